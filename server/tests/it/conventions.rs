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
    let head = Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(repo())
        .output()
        .expect("git (the tests run in a checkout)");
    let head = String::from_utf8(head.stdout).unwrap().trim().to_string();
    assert!(!head.is_empty());
    let o = gin_server(&["--version"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8(o.stdout).unwrap();
    let want = format!("gin-server {} ({head}", env!("CARGO_PKG_VERSION"));
    assert!(out.starts_with(&want), "{out:?} does not start with {want:?}");
}

#[test]
fn completions_are_the_committed_scripts() {
    for (shell, file) in [("bash", "gin-server.bash"), ("zsh", "_gin-server"), ("fish", "gin-server.fish")] {
        let o = gin_server(&["--completions", shell]);
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        let committed = std::fs::read(repo().join("docs/completions").join(file)).unwrap();
        assert!(
            o.stdout == committed,
            "gin-server --completions {shell} differs from docs/completions/{file}"
        );
        assert!(String::from_utf8_lossy(&o.stdout).contains("trusted-proxies"), "{shell}");
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
