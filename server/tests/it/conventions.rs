//! The conventions gin-server shares with gin and gin-bot (`gin_cli_meta`), held over the real
//! executable: `--version` names the checkout's revision, `--completions` prints the scripts
//! committed in docs/completions, and errors go to stderr in one style with the documented
//! exit statuses (2 usage, 1 could not start).

use std::path::Path;
use std::process::{Command, Output, Stdio};

fn gin_server(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gin-server"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run gin-server")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("stderr is UTF-8")
}

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

#[test]
fn version_names_the_checkouts_revision() {
    gin_cli_meta::testing::assert_version_names_the_revision(
        Path::new(env!("CARGO_BIN_EXE_gin-server")),
        "gin-server",
        env!("CARGO_PKG_VERSION"),
        repo(),
    );
}

#[test]
fn completions_are_the_committed_scripts() {
    let bin = Path::new(env!("CARGO_BIN_EXE_gin-server"));
    for script in
        gin_cli_meta::testing::assert_completions_are_committed(bin, &["--completions"], "gin-server", repo())
    {
        assert!(script.contains("trusted-proxies"));
    }
}

#[test]
fn a_bad_flag_is_status_2() {
    let o = gin_server(&["--frob"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.starts_with("gin-server: error: unexpected argument '--frob' found"), "{err}");
    let o = gin_server(&["--route-tag", "a b"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with("gin-server: error: invalid value 'a b' for '--route-tag"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn an_address_in_use_stops_the_start_with_status_1_and_its_cause() {
    let dir = tempfile::tempdir().unwrap();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let db = dir.path().join("g.db");
    let o = gin_server(&["--addr", &addr, "--db", db.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        format!("gin-server: error: binding {addr}\n  caused by: Address already in use (os error 98)\n")
    );
    // A database that cannot be opened (its folder is missing): status 1, said once.
    drop(taken);
    let db = dir.path().join("no-such-folder").join("g.db");
    let o = gin_server(&["--addr", "127.0.0.1:0", "--db", db.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.starts_with(&format!("gin-server: error: opening {}", db.display())), "{err}");
}
