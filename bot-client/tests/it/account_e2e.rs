//! End to end with a real server: `gin-bot account create` makes a bot account whose token
//! (printed once) signs in as a bot, and `gin-bot play --account-token` (and
//! `GIN_ACCOUNT_TOKEN`) plays a game whose seat is that account's, marked
//! ACCOUNT_KIND_BOT; the account's games list it, not a guest's.

use std::time::Duration;

use gin_proto::v1 as pb;
use gin_sdk::Client;

use crate::common::Server;

async fn gin_bot(args: &[&str], env: &[(&str, &str)]) -> (String, String, bool) {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_gin-bot"));
    cmd.args(args).env_remove("GIN_ACCOUNT_TOKEN").kill_on_drop(true);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = tokio::time::timeout(Duration::from_secs(120), cmd.output())
        .await
        .expect("gin-bot finished")
        .unwrap();
    (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap(), out.status.success())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn account_create_makes_a_bot_account_on_a_real_server() {
    let server = Server::start().await;
    let url = server.url();
    let (token, err, ok) = gin_bot(&["account", "create", "Robo", "--server", &url], &[]).await;
    assert!(ok, "{err}");
    let token = token.trim().to_string();
    assert!(gin_sdk::is_account_token(&token), "{token:?}");
    let me = Client::connect(&url).await.unwrap().with_account_token(Some(token));
    let w = me.who_am_i().await.unwrap();
    let a = w.account.unwrap();
    assert_eq!((a.name.as_str(), a.kind, a.has_password), ("Robo", pb::AccountKind::Bot as i32, false));
    assert_eq!(w.token.unwrap().label, "gin-bot");
    // The name is taken now.
    let (_, err, ok) = gin_bot(&["account", "create", "robo", "--server", &url], &[]).await;
    assert!(!ok && err.starts_with("gin-bot: error: creating bot account robo: "), "{err}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_account_plays_as_itself() {
    let server = Server::start().await;
    let url = server.url();
    let (token, err, ok) = gin_bot(&["account", "create", "Robo", "--server", &url], &[]).await;
    assert!(ok, "{err}");
    let token = token.trim().to_string();
    assert!(gin_sdk::is_account_token(&token), "{token:?}");

    let (out, err, ok) =
        gin_bot(&["play", "--vs-bot", "simple", "--account-token", &token, "--server", &url], &[]).await;
    assert!(ok, "stdout:\n{out}\nstderr:\n{err}");
    let id = out.lines().find(|l| l.starts_with('[')).unwrap().split_whitespace().nth(1).unwrap().to_string();
    // The game's seat 0 is the bot account's, as anyone sees it.
    let client = Client::connect(&url).await.unwrap();
    let snap = client.get_game(&id, "").await.unwrap();
    let seat = snap.seats.iter().find(|s| s.seat == 0).unwrap();
    assert_eq!(seat.account, "Robo", "{seat:?}");
    assert_eq!(seat.account_kind, pb::AccountKind::Bot as i32, "{seat:?}");

    // Through the environment too; both games are the account's.
    let (out, err, ok) =
        gin_bot(&["play", "--vs-bot", "random", "--server", &url], &[("GIN_ACCOUNT_TOKEN", &token)]).await;
    assert!(ok, "stdout:\n{out}\nstderr:\n{err}");
    let games = client.list_player_games("robo", 0, "").await.unwrap();
    assert_eq!(games.account.unwrap().kind, pb::AccountKind::Bot as i32);
    assert_eq!(games.games.len(), 2, "{:?}", games.games);
    assert!(games.games.iter().any(|g| g.game_id == id));
    // A guest's game is not.
    let (_, err, ok) = gin_bot(&["play", "--vs-bot", "random", "--server", &url], &[]).await;
    assert!(ok, "{err}");
    assert_eq!(client.list_player_games("robo", 0, "").await.unwrap().games.len(), 2);

    server.stop().await;
}

/// `gin-bot tournament join --token gin_at_…`: the account token is taken as the account's
/// by its prefix (sent as the bearer, not as an entrant token to re-enter with, which the
/// server would refuse), and `--account-token` does the same; both entrants play to the
/// standings.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_account_enters_a_tournament_with_its_token() {
    let server = Server::start().await;
    let url = server.url();
    let (token, err, ok) = gin_bot(&["account", "create", "Robo", "--server", &url], &[]).await;
    assert!(ok, "{err}");
    let token = token.trim().to_string();
    let (id, err, ok) = gin_bot(
        &[
            "tournament",
            "create",
            "--server",
            &url,
            "--entrants",
            "2",
            "--games-per-pairing",
            "1",
            "--account-token",
            &token,
        ],
        &[],
    )
    .await;
    assert!(ok, "{err}");
    let id = id.trim().to_string();
    let (a_args, b_args) = (
        ["tournament", "join", &id, "--token", &token, "--name", "robo", "--server", &url],
        ["tournament", "join", &id, "--name", "guest", "--server", &url],
    );
    let (a, b) = (gin_bot(&a_args, &[]), gin_bot(&b_args, &[]));
    let ((a_out, a_err, a_ok), (b_out, b_err, b_ok)) = tokio::join!(a, b);
    assert!(a_ok, "stdout:\n{a_out}\nstderr:\n{a_err}");
    assert!(b_ok, "stdout:\n{b_out}\nstderr:\n{b_err}");
    assert!(a_out.contains("finished") && a_out.lines().any(|l| l.contains(" seat ")), "{a_out}");
    server.stop().await;
}

/// `gin-bot ladder --token T --strategy strong --rules standard --accept-challenges`: a lone
/// program on a server with house bots plays its ladder games against them (rated: its rating
/// in `gin/standard` counts them), prints its progress with its rating, and takes the
/// challenge another account sent it, alongside.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_account_plays_the_ladder_and_takes_a_challenge() {
    let server = Server::start_with(|c| gin_server::Config {
        ladder_house_bots: true,
        ladder_house_after: Duration::from_millis(200),
        ..c
    })
    .await;
    let url = server.url();
    let (token, err, ok) = gin_bot(&["account", "create", "Climber", "--server", &url], &[]).await;
    assert!(ok, "{err}");
    let token = token.trim().to_string();
    // Another account challenges it first; it plays its seat with `random`.
    let rival = Client::connect(&url).await.unwrap();
    let rival_token = rival.register("Rival", pb::AccountKind::Bot, "", "").await.unwrap().token;
    let rival = rival.with_account_token(Some(rival_token.clone()));
    let c = rival
        .create_challenge(pb::CreateChallengeRequest { opponent: "climber".into(), ..Default::default() })
        .await
        .unwrap();
    let watcher = rival.clone();
    let id = c.challenge_id.clone();
    let rival_plays = tokio::spawn(async move {
        let mut stream = watcher.watch_challenges().await.unwrap();
        let game = loop {
            let m = stream.message().await.unwrap().expect("the stream lasts");
            if let Some(c) = m.challenge.filter(|c| c.challenge_id == id && !c.game_id.is_empty()) {
                break c.game_id;
            }
        };
        let mut s = gin_strategies::random::RandomStrategy::new(5);
        watcher.play(&game, &rival_token, &mut s).await.map(|o| (game, o))
    });

    let (out, err, ok) = gin_bot(
        &[
            "ladder",
            "--token",
            &token,
            "--strategy",
            "strong",
            "--rules",
            "standard",
            "--games",
            "2",
            "--accept-challenges",
        ],
        &[("GIN_SERVER", &url)],
    )
    .await;
    assert!(ok, "stdout:\n{out}\nstderr:\n{err}");
    // The challenge was taken (its game may still be in play when the ladder's two end).
    assert!(out.contains("challenge from Rival: game "), "{out}");
    assert!(
        out.contains(
            "ladder gin/standard: 0 played (0 points), rating 1500 ±350 provisional after 0 rated games"
        ),
        "{out}"
    );
    assert_eq!(
        out.lines().filter(|l| l.starts_with("seated in ") && l.contains("house-")).count(),
        2,
        "{out}"
    );
    assert!(out.ends_with("ladder gin/standard: stopped after 2 games\n"), "{out}");
    let games = |r: &pb::GetPlayerRatingsResponse| {
        r.ratings.iter().find(|p| p.pool == "gin/standard").map(|p| p.games)
    };
    let mut rated = None;
    for _ in 0..50 {
        let r = Client::connect(&url).await.unwrap().player_ratings("Climber").await.unwrap();
        rated = games(&r);
        if rated == Some(2) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(rated, Some(2), "two rated ladder games");
    drop(rival_plays);
    server.stop().await;
}
