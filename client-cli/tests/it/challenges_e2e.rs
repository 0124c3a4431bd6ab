//! End to end with a real server (in this process, on a temporary SQLite file): `gin
//! challenge NAME` sends a challenge and prints its id, `gin challenges` lists it on the other
//! account, which declines one and accepts another (`--no-play`: the game's id printed, both
//! seats the accounts'); the challenger cancels a third; an unknown name and a rated challenge
//! are refused with the server's words and nothing sent.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::common::Server;

/// Runs `gin` with its config folder `cfg`.
async fn gin(cfg: &Path, args: &[&str]) -> Output {
    let cfg = cfg.to_path_buf();
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_gin"))
            .args(&args)
            .env("GIN_CONFIG_DIR", &cfg)
            .env_remove("GIN_ACCOUNT_TOKEN")
            .stdin(Stdio::null())
            .output()
            .expect("run gin")
    })
    .await
    .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn challenge_list_decline_accept_and_cancel_from_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("g.db")).await;
    let url = server.url();
    let (ann, bob) = (dir.path().join("ann"), dir.path().join("bob"));
    for (cfg, name) in [(&ann, "Ann"), (&bob, "Bob")] {
        let o = gin(cfg, &["account", "create", name, "--bot", "--server", &url]).await;
        assert!(o.status.success(), "{o:?}");
    }

    // Refused: nothing sent.
    let o = gin(&ann, &["challenge", "Nobody", "--server", &url]).await;
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(text(&o.stderr).starts_with("gin: error: challenging: "), "{o:?}");
    assert!(text(&o.stderr).contains("no account named"), "{o:?}");
    let o = gin(&bob, &["challenges", "--server", &url]).await;
    assert!(o.status.success() && o.stdout.is_empty(), "{o:?}");
    // A rated challenge is sent (and cancelled here).
    let o = gin(&ann, &["challenge", "Bob", "--rated", "--server", &url]).await;
    assert!(o.status.success(), "{o:?}");
    let rated = text(&o.stdout).trim().to_string();
    let o = gin(&ann, &["challenges", "cancel", &rated, "--server", &url]).await;
    assert!(o.status.success() && text(&o.stdout).contains("cancelled"), "{o:?}");

    // Sent, seen, declined.
    let o =
        gin(&ann, &["challenge", "Bob", "--rules", "oklahoma", "--turn-secs", "30", "--server", &url]).await;
    assert!(o.status.success(), "{o:?}");
    let first = text(&o.stdout).trim().to_string();
    let o = gin(&bob, &["challenges", "--server", &url]).await;
    assert!(o.status.success(), "{o:?}");
    let listed = text(&o.stdout);
    assert!(
        listed.starts_with(&format!("{first}  from Ann  oklahoma, 30 s a turn  open until ")),
        "{listed}"
    );
    let o = gin(&bob, &["challenges", "decline", &first, "--server", &url]).await;
    assert!(o.status.success() && text(&o.stdout).contains("declined"), "{o:?}");
    let o = gin(&bob, &["challenges", "accept", &first, "--no-play", "--server", &url]).await;
    assert_eq!(o.status.code(), Some(1), "declined already: {o:?}");

    // Sent and accepted: the game's id, both seats the accounts'.
    let o = gin(&ann, &["challenge", "Bob", "--seat", "0", "--server", &url]).await;
    let second = text(&o.stdout).trim().to_string();
    let o = gin(&bob, &["challenges", "accept", &second, "--no-play", "--server", &url]).await;
    assert!(o.status.success(), "{o:?}");
    let out = text(&o.stdout);
    let game = out.strip_prefix("game id: ").and_then(|r| r.split_whitespace().next()).unwrap().to_string();
    assert!(out.trim_end().ends_with("seat: 1"), "{out}");
    let snap = gin_sdk::Client::connect(&url).await.unwrap().get_game(&game, "").await.unwrap();
    let accounts: Vec<&str> = snap.seats.iter().map(|s| s.account.as_str()).collect();
    assert_eq!(accounts, ["Ann", "Bob"]);

    // Sent and cancelled.
    let o = gin(&ann, &["challenge", "Bob", "--server", &url]).await;
    let third = text(&o.stdout).trim().to_string();
    let o = gin(&ann, &["challenges", "cancel", &third, "--server", &url]).await;
    assert!(o.status.success() && text(&o.stdout).contains("cancelled"), "{o:?}");
    let o = gin(&bob, &["challenges", "list", "--server", &url]).await;
    assert!(o.status.success() && o.stdout.is_empty(), "nothing open: {o:?}");
}

/// `gin ladder`: a signed-in person waits in the ladder (its rating and the queue on stderr),
/// is seated against a house bot (nobody else queued), and plays the game here (`--plain`, no
/// input: it leaves at once, its seat kept); the game is a rated game of the account's. Not
/// signed in, or an unknown ladder: refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_waits_in_the_ladder_and_is_seated_against_a_house_bot() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(&dir.path().join("g.db"), |c| gin_server::Config {
        ladder_house_bots: true,
        ladder_house_after: std::time::Duration::from_millis(300),
        ..c
    })
    .await;
    let url = server.url();
    let cfg = dir.path().join("cy");
    let o = gin(&cfg, &["ladder", "--server", &url]).await;
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(text(&o.stderr).contains("not signed in"), "{o:?}");
    let o = gin(&cfg, &["account", "create", "Cy", "--bot", "--server", &url]).await;
    assert!(o.status.success(), "{o:?}");
    let o = gin(&cfg, &["ladder", "--rules", "rummy", "--server", &url]).await;
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(text(&o.stderr).contains("--players"), "{o:?}");

    let o = gin(&cfg, &["ladder", "--plain", "--server", &url]).await;
    assert!(o.status.success(), "{o:?}");
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert!(
        err.contains("waiting in the ladder gin/standard: your rating 1500 ±350, provisional; 1 waiting"),
        "{err}"
    );
    assert!(err.contains("seated against house-"), "{err}");
    let id = out.lines().find_map(|l| l.strip_prefix("game id: ")).expect("the game's id").to_string();
    let client = gin_sdk::Client::connect(&url).await.unwrap();
    let snap = client.get_game(&id, "").await.unwrap();
    let names: Vec<&str> = snap.seats.iter().map(|s| s.account.as_str()).collect();
    assert!(names.contains(&"Cy") && names.iter().any(|n| n.starts_with("house-")), "{names:?}");
    server.stop().await;
}
