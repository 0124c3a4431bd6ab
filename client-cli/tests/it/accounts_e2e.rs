//! End to end with a real server (in this process, its accounts in a temporary SQLite file):
//! `gin account create` signs in, `gin whoami` names the account, an API token is made and
//! listed, after `gin logout` `gin whoami` says signed out and the token is refused, `gin
//! login` with a password (a wrong one refused) or the API token signs in again. Signed in,
//! `gin play --plain` against a house bot takes the account's seat (shown with the account's
//! name, not the display name given), `gin games` lists that game with its opponent and
//! result, and a game played `--guest` is not the account's.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::common::Server;
use crate::play_e2e::answer;

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

/// `gin play --plain` with `args` to game over, answering its prompts; its stdout lines.
async fn play(cfg: &Path, args: &[&str]) -> Vec<String> {
    let cfg = cfg.to_path_buf();
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    tokio::task::spawn_blocking(move || {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gin"))
            .arg("play")
            .arg("--plain")
            .args(&args)
            .env("GIN_CONFIG_DIR", &cfg)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run gin play");
        let mut stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (done_tx, done_rx) = mpsc::channel::<()>();
        let pid = child.id();
        let watchdog = std::thread::spawn(move || {
            if done_rx.recv_timeout(Duration::from_secs(60)).is_err() {
                let _ = Command::new("kill").arg(pid.to_string()).status();
            }
        });
        let mut lines = Vec::new();
        for line in stdout.lines() {
            let line = line.expect("read gin's stdout");
            if let Some(a) = answer(&line) {
                writeln!(stdin, "{a}").expect("write gin's stdin");
            }
            lines.push(line);
        }
        let status = child.wait().unwrap();
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        let _ = done_tx.send(());
        watchdog.join().unwrap();
        assert!(status.success(), "gin play: {status}\nstderr: {err}\nstdout:\n{}", lines.join("\n"));
        lines
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signed_in_player_s_game_is_the_account_s() {
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
    assert!(text(&o.stdout).starts_with(&format!("signed in as Alice (person) on {url}\n")), "{o:?}");

    // Signed in: the seat is Alice's, shown by the account's name (not --name's).
    let lines = play(&cfg, &["--vs-bot", "simple", "--name", "tester", "--server", &url]).await;
    assert_eq!(lines[1], "you are Alice (seat 0) against simple (seat 1, house bot)", "{lines:#?}");
    assert!(lines.iter().any(|l| l.starts_with("game over: ")), "{lines:#?}");
    let id = lines[0].trim_start_matches("game ").split(':').next().unwrap().to_string();

    // gin games: that game, its opponent and its result.
    let o = gin_in(&cfg, &["games", "--server", &url], "").await;
    assert!(o.status.success(), "{o:?}");
    let out = text(&o.stdout);
    let row =
        out.lines().find(|l| l.ends_with(&id)).unwrap_or_else(|| panic!("game {id} not listed:\n{out}"));
    assert!(row.contains("simple (house bot)") && (row.contains(" won ") || row.contains(" lost ")), "{row}");
    let o = gin_in(&cfg, &["games", "Alice", "--json", "--server", &url], "").await;
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {o:?}"));
    assert_eq!(j["account"]["name"], "Alice");
    assert_eq!(j["games"][0]["game_id"], id.as_str());
    assert_eq!(j["games"][0]["opponents"][0]["house_bot"], true);

    // A guest's game is not the account's.
    let guest = play(&cfg, &["--vs-bot", "simple", "--name", "tester", "--guest", "--server", &url]).await;
    assert_eq!(guest[1], "you are tester (seat 0) against simple (seat 1, house bot)", "{guest:#?}");
    let o = gin_in(&cfg, &["games", "--json", "--server", &url], "").await;
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["games"].as_array().unwrap().len(), 1, "{j}");

    // Logout revokes the token: whoami says signed out, and the token no longer works.
    let token = {
        let kept: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(cfg.join("accounts.json")).unwrap()).unwrap();
        kept["servers"][url.as_str()]["token"].as_str().unwrap().to_string()
    };
    let o = gin_in(&cfg, &["logout", "--server", &url], "").await;
    assert!(o.status.success(), "{o:?}");
    let o = gin_in(&cfg, &["whoami", "--server", &url], "").await;
    assert_eq!(o.status.code(), Some(3), "{o:?}");
    assert!(text(&o.stdout).starts_with("signed out"), "{o:?}");
    let client = gin_sdk::Client::connect(&url).await.unwrap().with_account_token(Some(token));
    let e = client.who_am_i().await.unwrap_err();
    assert!(
        matches!(&e, gin_sdk::Error::Rpc { status, .. } if status.code() == tonic::Code::Unauthenticated),
        "{e}"
    );

    // Signed in again with the password.
    let o = gin_in(&cfg, &["login", "alice", "--password-stdin", "--server", &url], "correct horse\n").await;
    assert!(o.status.success(), "{o:?}");
    let o = gin_in(&cfg, &["whoami", "--server", &url], "").await;
    assert!(text(&o.stdout).starts_with("signed in as Alice (person)"), "{o:?}");

    server.stop().await;
}
