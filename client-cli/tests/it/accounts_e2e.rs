//! End to end with a real server (in this process, its accounts in a temporary SQLite file):
//! `gin account create` signs in, `gin whoami` names the account, an API token is made and
//! listed, after `gin logout` `gin whoami` says signed out and the token is refused, `gin
//! login` with a password (a wrong one refused) or the API token signs in again.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::common::Server;

/// Runs `gin` with its config folder `cfg` and `input` on stdin.
async fn gin_in(cfg: &Path, args: &[&str], input: &str) -> Output {
    let (cfg, input) = (cfg.to_path_buf(), input.to_string());
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    tokio::task::spawn_blocking(move || {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gin"))
            .args(&args)
            .env("GIN_CONFIG_DIR", &cfg)
            .env_remove("GIN_ACCOUNT_TOKEN")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run gin");
        child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_whoami_logout_and_login_on_a_real_server() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("g.db")).await;
    let url = server.url();
    let cfg = dir.path().join("cfg");

    let o = gin_in(
        &cfg,
        &["account", "create", "Alice", "--password-stdin", "--server", &url],
        "correct horse\n",
    )
    .await;
    assert!(o.status.success(), "{o:?}");
    assert_eq!(text(&o.stdout), format!("created Alice (person) on {url}; signed in\n"));
    let o = gin_in(&cfg, &["whoami", "--server", &url], "").await;
    assert!(o.status.success(), "{o:?}");
    let who = text(&o.stdout);
    assert!(who.starts_with(&format!("signed in as Alice (person) on {url}\n")), "{who}");
    assert!(who.contains(", with a password") && who.contains("play, tournament, account"), "{who}");
    // The name is taken, without regard to case.
    let o = gin_in(
        &dir.path().join("other"),
        &["account", "create", "alice", "--no-password", "--server", &url],
        "",
    )
    .await;
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(text(&o.stderr).starts_with("gin: error: creating account alice: "), "{o:?}");

    // An API token for a program: it signs in too.
    let o =
        gin_in(&cfg, &["account", "tokens", "create", "ci", "--scope", "play", "--server", &url], "").await;
    assert!(o.status.success(), "{o:?}");
    let api = text(&o.stdout).trim().to_string();
    assert!(gin_sdk::is_account_token(&api), "{o:?}");
    let o = gin_in(&cfg, &["account", "tokens", "list", "--server", &url], "").await;
    assert!(o.status.success(), "{o:?}");
    assert!(text(&o.stdout).lines().any(|l| l.contains("  ci  [play]") && l.ends_with("live")), "{o:?}");

    // Logout revokes the token: whoami says signed out, and the token no longer works.
    let kept: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(cfg.join("accounts.json")).unwrap()).unwrap();
    let token = kept["servers"][url.as_str()]["token"].as_str().unwrap().to_string();
    let o = gin_in(&cfg, &["logout", "--server", &url], "").await;
    assert!(o.status.success(), "{o:?}");
    assert!(!cfg.join("accounts.json").exists());
    let o = gin_in(&cfg, &["whoami", "--server", &url], "").await;
    assert_eq!(o.status.code(), Some(3), "{o:?}");
    assert!(text(&o.stdout).starts_with("signed out"), "{o:?}");
    let client = gin_sdk::Client::connect(&url).await.unwrap().with_account_token(Some(token));
    let e = client.who_am_i().await.unwrap_err();
    assert!(
        matches!(&e, gin_sdk::Error::Rpc { status, .. } if status.code() == tonic::Code::Unauthenticated),
        "{e}"
    );

    // A wrong password, then the right one (the name without regard to case).
    let o = gin_in(&cfg, &["login", "alice", "--password-stdin", "--server", &url], "wrong horse\n").await;
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(text(&o.stderr).starts_with("gin: error: signing in as alice: not allowed: "), "{o:?}");
    let o = gin_in(&cfg, &["login", "alice", "--password-stdin", "--server", &url], "correct horse\n").await;
    assert!(o.status.success(), "{o:?}");
    let o = gin_in(&cfg, &["whoami", "--server", &url], "").await;
    assert!(text(&o.stdout).starts_with("signed in as Alice (person)"), "{o:?}");
    // And with the API token.
    let o = gin_in(&cfg, &["login", "--token", &api, "--server", &url], "").await;
    assert!(o.status.success(), "{o:?}");
    let o = gin_in(&cfg, &["whoami", "--server", &url], "").await;
    assert!(text(&o.stdout).contains("(ci): play"), "{o:?}");

    server.stop().await;
}
