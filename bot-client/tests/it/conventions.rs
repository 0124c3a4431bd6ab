//! The conventions gin-bot shares with gin and gin-server (`gin_cli_meta`), held over the real
//! executable: `--version` names the checkout's revision, `gin-bot completions` prints the
//! scripts committed in docs/completions, and errors go to stderr in one style with the
//! documented exit statuses (2 usage, 1 failure).

use std::path::Path;
use std::process::{Command, Output};

use crate::common::Server;

fn gin_bot(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gin-bot")).args(args).output().expect("run gin-bot")
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
        Path::new(env!("CARGO_BIN_EXE_gin-bot")),
        "gin-bot",
        env!("CARGO_PKG_VERSION"),
        repo(),
    );
}

#[test]
fn completions_are_the_committed_scripts() {
    let bin = Path::new(env!("CARGO_BIN_EXE_gin-bot"));
    for script in
        gin_cli_meta::testing::assert_completions_are_committed(bin, &["completions"], "gin-bot", repo())
    {
        assert!(script.contains("games-per-pairing"));
    }
}

#[test]
fn usage_errors_are_status_2_and_failures_1_in_one_style() {
    let o = gin_bot(&["selfplay", "--a", "simple", "--b", "simple", "--frob"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.starts_with("gin-bot: error: unexpected argument '--frob' found"), "{err}");
    assert!(err.contains("Usage: gin-bot selfplay"), "{err}");
    // A rules file that does not parse: the error, then its cause on a line of its own.
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("rules.toml");
    std::fs::write(&rules, "knock_limit = \"ten\"\n").unwrap();
    let o = gin_bot(&[
        "selfplay",
        "--a",
        "simple",
        "--b",
        "simple",
        "--games",
        "2",
        "--rules",
        rules.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    let err = stderr(&o);
    assert!(
        err.starts_with(&format!("gin-bot: error: rules file {}\n  caused by: ", rules.display())),
        "{err}"
    );
}

#[test]
fn an_unreachable_server_is_status_1() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}");
    let o = gin_bot(&["tournament", "results", "some-id", "--server", &url]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.starts_with(&format!("gin-bot: error: cannot connect: {url}")), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_tournament_is_status_1() {
    let server = Server::start().await;
    let url = server.url();
    let o = tokio::task::spawn_blocking(move || {
        gin_bot(&["tournament", "results", "no-such-tournament", "--server", &url])
    })
    .await
    .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    let err = stderr(&o);
    assert!(err.starts_with("gin-bot: error: ") && err.contains("no-such-tournament"), "{err}");
    server.stop().await;
}
