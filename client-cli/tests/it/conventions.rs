//! The conventions gin shares with gin-bot and gin-server (`gin_cli_meta`), held over the real
//! executable: `--version` names the checkout's revision, `gin completions` prints the scripts
//! committed in docs/completions, and errors go to stderr in one style with the documented
//! exit statuses (2 usage, 1 failure).

use std::path::Path;
use std::process::Output;

use crate::common::{Server, gin};

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("stderr is UTF-8")
}

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// A loopback port nobody listens on (bound, then let go).
fn closed_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

#[test]
fn version_names_the_checkouts_revision() {
    gin_cli_meta::testing::assert_version_names_the_revision(
        Path::new(env!("CARGO_BIN_EXE_gin")),
        "gin",
        env!("CARGO_PKG_VERSION"),
        repo(),
    );
}

#[test]
fn completions_are_the_committed_scripts() {
    let bin = Path::new(env!("CARGO_BIN_EXE_gin"));
    for script in
        gin_cli_meta::testing::assert_completions_are_committed(bin, &["completions"], "gin", repo())
    {
        assert!(script.contains("--vs-bot"));
    }
    let o = gin(&["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("gin: error: invalid value 'tcsh' for '<SHELL>'"), "{}", stderr(&o));
}

#[test]
fn a_bad_flag_is_a_usage_error_in_clap_words_after_the_name() {
    let o = gin(&["list", "--frob"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    let err = stderr(&o);
    assert!(err.starts_with("gin: error: unexpected argument '--frob' found"), "{err}");
    assert!(err.contains("Usage: gin list [OPTIONS]"), "{err}");
    // No command: the help, on stderr (not as an error message), status 2.
    let o = gin(&[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("Gin Rummy client") && stderr(&o).contains("Usage: gin <COMMAND>"));
    // The help is not an error: stdout, status 0.
    let o = gin(&["list", "--help"]);
    assert!(o.status.success() && o.stderr.is_empty());
    assert!(String::from_utf8(o.stdout).unwrap().contains("Exit status:\n  0  "));
}

#[test]
fn an_error_and_its_cause_one_a_line_with_status_1() {
    let missing = Path::new(env!("CARGO_TARGET_TMPDIR")).join("conventions-no-such-record.json");
    let o = gin(&["replay", missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    assert_eq!(
        stderr(&o),
        format!(
            "gin: error: cannot read record file {}\n  caused by: No such file or directory (os error 2)\n",
            missing.display()
        )
    );
}

#[test]
fn an_unreachable_server_is_status_1() {
    let url = format!("http://127.0.0.1:{}", closed_port());
    let o = gin(&["list", "--server", &url]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.starts_with(&format!("gin: error: cannot connect: {url}")), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_game_is_status_1_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("conventions.db")).await;
    let url = server.url();
    let (watch, verify) = tokio::task::spawn_blocking(move || {
        (
            gin(&["watch", "no-such-game", "--server", &url]),
            gin(&["verify", "no-such-game", "--server", &url]),
        )
    })
    .await
    .unwrap();
    for o in [&watch, &verify] {
        assert_eq!(o.status.code(), Some(1), "{}", stderr(o));
        assert!(o.stdout.is_empty());
    }
    let err = stderr(&watch);
    assert!(err.starts_with("gin: error: game no-such-game: not found: "), "{err}");
    let err = stderr(&verify);
    assert!(err.starts_with("gin: error: game \"no-such-game\": not found: "), "{err}");
    server.stop().await;
}
