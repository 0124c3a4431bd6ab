//! End to end with a real server (in this process, on a temporary SQLite file): `gin play
//! --create --rated` creates a rated game signed in (refused signed out), another account
//! joins it and both play it to its end (gin-sdk, `simple` against `random`); then `gin
//! profile` shows both accounts' ratings moved (the winner's above 1500, the loser's below),
//! provisional, with the game in their history, `gin leaderboard` keeps provisional ratings
//! off the board, and an unknown pool or name is refused with the server's words.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use gin_proto::v1 as pb;

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
            .env_remove("GIN_SERVER")
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

/// The kept token of the account signed in with config folder `cfg` on `url`.
fn token(cfg: &Path, url: &str) -> String {
    gin_client_cli::creds::Store::at(cfg.to_path_buf()).get(url).unwrap().expect("signed in").token
}

/// The line of `out` starting with `first` (a table's row), split into its columns.
fn row<'a>(out: &'a str, first: &str) -> Vec<&'a str> {
    let line = out
        .lines()
        .find(|l| l.split("  ").next() == Some(first))
        .unwrap_or_else(|| panic!("no line starting with {first:?} in\n{out}"));
    line.split("  ").map(str::trim).filter(|c| !c.is_empty()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rated_game_from_the_terminal_moves_both_ratings_seen_in_profile_and_leaderboard() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("g.db")).await;
    let url = server.url();
    let (ann, bob, nobody) = (dir.path().join("ann"), dir.path().join("bob"), dir.path().join("nobody"));
    let o = gin(&ann, &["account", "create", "Ann", "--bot", "--server", &url]).await;
    assert!(o.status.success(), "{o:?}");
    let o = gin(&bob, &["account", "create", "Bob", "--no-password", "--server", &url]).await;
    assert!(o.status.success(), "{o:?}");

    // Signed out: refused before anything is created.
    let o = gin(&nobody, &["play", "--create", "--rated", "--plain", "--server", &url]).await;
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(
        text(&o.stderr).contains("--rated: a rated game is between signed-in accounts"),
        "{}",
        text(&o.stderr)
    );
    let o =
        gin(&ann, &["play", "--create", "--rated", "--plain", "--rules", "no-such.toml", "--server", &url])
            .await;
    assert_ne!(o.status.code(), Some(0), "{o:?}");
    let sdk = gin_sdk::Client::connect(&url).await.unwrap();
    assert!(sdk.list_games().await.unwrap().is_empty(), "nothing created");

    // Created rated by Ann (the plain client leaves at the end of its input, the seat kept).
    let o = gin(&ann, &["play", "--create", "--rated", "--plain", "--server", &url]).await;
    let out = text(&o.stdout);
    let game = out
        .lines()
        .find_map(|l| l.strip_prefix("game id: "))
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("no game id: {o:?}"))
        .to_string();
    let (ann_token, bob_token) = (token(&ann, &url), token(&bob, &url));
    // Bob joins as his account; both accounts play it to its end.
    let bob_sdk = sdk.clone().with_account_token(Some(bob_token.clone()));
    bob_sdk
        .join_table(pb::JoinGameRequest { game_id: game.clone(), ..Default::default() })
        .await
        .expect("Bob joins the rated game");
    let (g, t, other) = (game.clone(), bob_token.clone(), sdk.clone());
    let theirs = tokio::spawn(async move {
        let mut s = gin_strategies::random::RandomStrategy::new(3);
        other.play(&g, &t, &mut s).await.unwrap()
    });
    let mut mine = gin_strategies::simple::SimpleStrategy::new(1);
    let o = sdk.play(&game, &ann_token, &mut mine).await.unwrap();
    theirs.await.unwrap();
    let winner = o.result.winner.expect("a winner");
    let (win, lose) = if winner == 0 { ("Ann", "Bob") } else { ("Bob", "Ann") };

    // The profiles: each rating moved, provisional, the game in the history against the other.
    for (name, won) in [(win, true), (lose, false)] {
        let o = gin(&nobody, &["profile", &name.to_lowercase(), "--server", &url]).await;
        assert!(o.status.success(), "{o:?}");
        let out = text(&o.stdout);
        let kind = if name == "Ann" { "bot" } else { "person" };
        assert!(out.starts_with(&format!("{name} ({kind}), since ")), "{out}");
        assert!(out.lines().next().unwrap().ends_with("; 1 game finished"), "{out}");
        let r = row(&out, "gin/standard");
        let rating: f64 = r[1].parse().unwrap();
        assert_eq!(won, rating > 1500.0, "{name} won: {won}\n{out}");
        assert_ne!(rating, 1500.0, "{out}");
        let exact = sdk.player_ratings(name).await.unwrap().ratings[0].clone();
        assert_eq!(r[1], format!("{:.0}", exact.rating), "{out}");
        assert_eq!(r[2], format!("±{:.0}", exact.deviation), "{out}");
        assert_eq!(&r[3..], ["1", "provisional"], "{out}");
        assert!(out.contains("gin/standard, newest first:"), "{out}");
        let h = row(&out, &game);
        assert_eq!(h[2], if won { "1" } else { "2" }, "{out}");
        assert_eq!(h[3], format!("1500 → {rating:.0}"), "{out}");
        let other = if name == win { lose } else { win };
        assert_eq!(h[4], other, "{out}");
    }
    // --pool: that pool's history; JSON holds the same.
    let o = gin(&nobody, &["profile", "Ann", "--pool", "gin/standard", "--json", "--server", &url]).await;
    assert!(o.status.success(), "{o:?}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["account"]["kind"], "bot");
    assert_eq!(v["ratings"][0]["provisional"], true);
    assert_eq!(v["history"][0]["changes"][0]["game_id"], game.as_str());
    assert_eq!(v["history"][0]["changes"][0]["opponents"][0], "Bob");
    // Another pool: no rated games there.
    let o = gin(&nobody, &["profile", "Ann", "--pool", "rummy/3", "--server", &url]).await;
    assert!(o.status.success(), "{o:?}");
    assert!(text(&o.stdout).contains("rummy/3: no rated games"), "{o:?}");

    // The leaderboard keeps provisional ratings off.
    for args in [&["leaderboard", "--pool", "gin/standard"][..], &["leaderboard"][..]] {
        let o = gin(&nobody, &[args, &["--server", &url]].concat()).await;
        assert!(o.status.success(), "{o:?}");
        let out = text(&o.stdout);
        assert!(
            out.starts_with("leaderboard gin/standard: 0 established ratings\nno established ratings yet"),
            "{out}"
        );
        assert!(!out.contains("Ann") && !out.contains("Bob"), "{out}");
    }
    let o = gin(&nobody, &["leaderboard", "--rules", "oklahoma", "--server", &url]).await;
    assert!(text(&o.stdout).starts_with("leaderboard gin/oklahoma: 0"), "{o:?}");

    // Refused: an unknown pool, an unknown name, a rules name that is no preset.
    let o = gin(&nobody, &["leaderboard", "--pool", "gin/nope", "--server", &url]).await;
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let err = text(&o.stderr);
    assert!(err.starts_with("gin: error: the leaderboard of gin/nope: "), "{err}");
    assert!(err.contains("no pool \"gin/nope\"") && err.contains("gin/standard"), "{err}");
    let o = gin(&nobody, &["profile", "Nobody", "--server", &url]).await;
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let err = text(&o.stderr);
    assert!(err.starts_with("gin: error: the profile of Nobody: ") && err.contains("no account"), "{err}");
    let o = gin(&nobody, &["profile", "Ann", "--pool", "gin/nope", "--server", &url]).await;
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(text(&o.stderr).contains("no pool"), "{o:?}");
    let o = gin(&nobody, &["leaderboard", "--rules", "nope", "--server", &url]).await;
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(text(&o.stderr).contains("--rules nope: not a gin preset"), "{o:?}");
    server.stop().await;
}
