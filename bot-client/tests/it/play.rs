//! The `gin-bot play` binary against a real server on loopback sockets: games against house
//! bots, quick matches, and a given seat.

use std::time::Duration;

use gin_proto::v1 as pb;
use gin_sdk::Client;

use crate::common::Server;

/// Runs `gin-bot` with `args`; returns its stdout, stderr and success.
async fn gin_bot(args: &[&str]) -> (String, String, bool) {
    let out = tokio::time::timeout(
        Duration::from_secs(180),
        tokio::process::Command::new(env!("CARGO_BIN_EXE_gin-bot")).args(args).kill_on_drop(true).output(),
    )
    .await
    .expect("gin-bot finished")
    .unwrap();
    (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap(), out.status.success())
}

/// The game ids of `gin-bot play`'s result lines (`[i/n] <game> seat …`).
fn game_ids(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter(|l| l.starts_with('['))
        .map(|l| l.split_whitespace().nth(1).unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gin_bot_play_plays_house_bots_quick_matches_and_a_given_seat() {
    let server = Server::start().await;
    let url = server.url();
    let client = Client::connect(&url).await.unwrap();

    // Five games against house bots, three at a time.
    let (out, err, ok) = gin_bot(&[
        "play",
        "--server",
        &url,
        "--strategy",
        "simple",
        "--vs-bot",
        "random",
        "--games",
        "5",
        "--parallel",
        "3",
        "--rules",
        "classic",
    ])
    .await;
    assert!(ok, "stdout:\n{out}\nstderr:\n{err}");
    let ids = game_ids(&out);
    assert_eq!(ids.len(), 5, "{out}");
    let mut wins = 0;
    for (id, line) in ids.iter().zip(out.lines()) {
        assert!(line.contains("vs random (house bot)"), "{line}");
        let snap = client.get_game(id, "").await.unwrap();
        let r = snap.result.expect("each game is over");
        assert_eq!(r.reason, pb::GameEndReason::Target as i32);
        assert_eq!(snap.rules.unwrap().name, "classic");
        assert!(snap.seats[1].bot && !snap.seats[0].bot);
        let me = &snap.seats[0];
        assert_eq!(me.name, "gin-bot-simple");
        let totals = format!("{}-{}", r.totals[0], r.totals[1]);
        assert!(line.contains(&totals), "{line} vs {totals}");
        wins += (r.winner == Some(0)) as u32;
    }
    let summary = out.lines().last().unwrap();
    assert!(summary.starts_with(&format!("5 games: {wins} won")), "{summary}");
    assert!(summary.contains("0 errors"), "{summary}");

    // Two bots asking for a quick match at once are paired: one game. (Two calls of one
    // client, on one connection, never are: see the server's tests.)
    let quick = ["play", "--server", &url, "--games", "1", "--name", "twin"];
    let ((out0, err0, ok0), (out1, err1, ok1)) = tokio::join!(gin_bot(&quick), gin_bot(&quick));
    assert!(ok0 && ok1, "stdout:\n{out0}{out1}\nstderr:\n{err0}{err1}");
    let (ids0, ids1) = (game_ids(&out0), game_ids(&out1));
    assert_eq!((ids0.len(), ids1.len()), (1, 1));
    assert_eq!(ids0[0], ids1[0], "{out0}{out1}");
    let results = [out0.lines().last().unwrap(), out1.lines().last().unwrap()];
    assert!(results.iter().any(|l| l.starts_with("1 games: 1 won")), "{results:?}");
    assert!(results.iter().any(|l| l.starts_with("1 games: 0 won")), "{results:?}");

    // A given seat: a game created elsewhere, played from its token.
    let seated = client
        .create_game(pb::CreateGameRequest {
            house_bot: "simple".into(),
            name: "given".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    let (out, err, ok) =
        gin_bot(&["play", "--server", &url, "--join", &seated.game_id, "--token", &seated.token]).await;
    assert!(ok, "stdout:\n{out}\nstderr:\n{err}");
    assert!(out.starts_with(&format!("{} seat 0 vs simple (house bot): ", seated.game_id)), "{out}");
    assert!(client.get_game(&seated.game_id, "").await.unwrap().result.is_some());

    // Refusals are reported: an unknown house bot, a bad token.
    let (_, err, ok) = gin_bot(&["play", "--server", &url, "--vs-bot", "nope"]).await;
    assert!(!ok && err.contains("unknown strategy \"nope\""), "{err}");
    // (`--game`: the older spelling of `--join`, still taken.)
    let (_, err, ok) =
        gin_bot(&["play", "--server", &url, "--game", &seated.game_id, "--token", "bad"]).await;
    assert!(!ok && err.contains("Unauthenticated"), "{err}");

    // `--join` without a token takes the game's free seat: two such processes on a game nobody
    // has joined play it against each other, each told its seat's token.
    let id = client
        .lobby()
        .create_game(pb::CreateGameRequest { name: "nobody".into(), ..Default::default() })
        .await
        .unwrap()
        .into_inner()
        .game_id;
    let join = ["play", "--server", &url, "--join", &id];
    let ((out0, err0, ok0), (out1, err1, ok1)) = tokio::join!(gin_bot(&join), gin_bot(&join));
    assert!(ok0 && ok1, "stdout:\n{out0}{out1}\nstderr:\n{err0}{err1}");
    assert!(err0.contains(&format!("joined game {id} as seat ")) && err0.contains("--token "), "{err0}");
    assert!(out0.starts_with(&id) && out1.starts_with(&id), "{out0}{out1}");
    assert!(client.get_game(&id, "").await.unwrap().result.is_some());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gin_bot_play_plays_tables_of_every_format_against_house_bots() {
    let server = Server::start().await;
    let url = server.url();
    let client = Client::connect(&url).await.unwrap();
    // `strong` at gin-7 and rummy: the table search on the seat's view.
    for (rules, players, n, strategy) in [
        ("rummy", "3", 3u32, "strong"),
        ("teams", "4", 4, "simple"),
        ("gin-7", "4", 4, "strong"),
        ("three-player", "3", 3, "simple"),
    ] {
        let (out, err, ok) = gin_bot(&[
            "play",
            "--server",
            &url,
            "--rules",
            rules,
            "--players",
            players,
            "--vs-bot",
            "simple",
            "--games",
            "2",
            "--strategy",
            strategy,
        ])
        .await;
        assert!(ok, "{rules}: stdout:\n{out}\nstderr:\n{err}");
        let ids = game_ids(&out);
        assert_eq!(ids.len(), 2, "{out}");
        for (id, line) in ids.iter().zip(out.lines()) {
            let snap = client.get_game(id, "").await.unwrap();
            let f = snap.format.clone().unwrap();
            assert_eq!((f.kind.as_str(), f.players), (rules, n), "{line}");
            let r = snap.result.expect("each game is over");
            assert_eq!(r.reason, pb::GameEndReason::Target as i32, "{line}");
            assert_eq!(snap.seats.iter().filter(|s| s.bot).count() as u32, n - 1);
            // The line says our seat's place and every total as the server's result has them.
            let totals: Vec<String> = r.table_totals.iter().map(i64::to_string).collect();
            assert!(line.contains(&format!("totals {} (target", totals.join(" "))), "{line} vs {totals:?}");
            assert!(line.contains(&format!("place {},", r.places[0])), "{line} vs {:?}", r.places);
        }
        let summary = out.lines().last().unwrap();
        assert!(
            summary.contains(&format!("2 games at {rules} for {n}")) && summary.contains("0 errors"),
            "{summary}"
        );
    }
    // A strategy the tables do not have is refused before connecting.
    let (_, err, ok) =
        gin_bot(&["play", "--server", &url, "--rules", "rummy", "--strategy", "strong-v1"]).await;
    assert!(!ok && err.contains("--strategy") && err.contains("random, simple, strong there"), "{err}");
}

/// `--seat 1 --deal-seed S --first-dealer 1` plays seat 1 of fixed deals S, S+1…, seat 1
/// dealing first; the same seed from seat 0
/// deals the same hands (a mirrored pair).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gin_bot_play_takes_a_seat_and_a_deal_seed_for_mirrored_pairs() {
    let server = Server::start().await;
    let url = server.url();
    let client = Client::connect(&url).await.unwrap();
    let mut decks = Vec::new();
    for seat in ["1", "0"] {
        let (out, err, ok) = gin_bot(&[
            "play",
            "--server",
            &url,
            "--vs-bot",
            "simple",
            "--games",
            "2",
            "--seat",
            seat,
            "--deal-seed",
            "90",
            "--first-dealer",
            "1",
        ])
        .await;
        assert!(ok, "stdout:\n{out}\nstderr:\n{err}");
        let ids = game_ids(&out);
        assert_eq!(ids.len(), 2, "{out}");
        let mut mine = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            let snap = client.get_game(id, "").await.unwrap();
            let s: usize = seat.parse().unwrap();
            assert!(!snap.seats[s].bot && snap.seats[1 - s].bot, "{:?}", snap.seats);
            assert!(snap.fixed_deals, "a chosen seed is a fixed deal");
            let rec = client.get_record(id).await.unwrap();
            let record = engine::GameRecord::from_json(&rec.record_json).unwrap();
            assert_eq!(record.setup.seed, 90 + i as u64);
            assert_eq!(record.setup.first_dealer.map(|s| s.index()), Some(1), "--first-dealer 1");
            mine.push(rec.reveals[0].deck.clone());
        }
        decks.push(mine);
    }
    assert_eq!(decks[0], decks[1], "the same seeds deal the same first hands from either seat");
    assert!(
        gin_bot(&["play", "--server", &url, "--seat", "1"]).await.1.contains("--vs-bot"),
        "--seat needs --vs-bot"
    );
    server.stop().await;
}

/// `learned` (the policy network) plays over the network through the SDK, by name as
/// `gin-bot play --strategy`, under the competition and the standard rules, against the
/// house's `strong` and the house's `learned`: every game to its end, every move one the
/// server took (a refused move is an error in the summary).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gin_bot_play_plays_learned_over_the_network() {
    let server = Server::start().await;
    let url = server.url();
    let client = Client::connect(&url).await.unwrap();
    let competition = concat!(env!("CARGO_MANIFEST_DIR"), "/strategies/rules/competition.toml");
    for (rules, house) in [(competition, "strong"), ("standard", "learned")] {
        let (out, err, ok) = gin_bot(&[
            "play",
            "--server",
            &url,
            "--rules",
            rules,
            "--strategy",
            "learned",
            "--vs-bot",
            house,
            "--games",
            "3",
            "--parallel",
            "3",
        ])
        .await;
        assert!(ok, "{rules}: stdout:\n{out}\nstderr:\n{err}");
        let ids = game_ids(&out);
        assert_eq!(ids.len(), 3, "{out}");
        for (id, line) in ids.iter().zip(out.lines()) {
            assert!(line.contains(&format!("vs {house} (house bot)")), "{line}");
            let snap = client.get_game(id, "").await.unwrap();
            assert_eq!(snap.result.expect("each game is over").reason, pb::GameEndReason::Target as i32);
            assert_eq!(
                snap.rules.unwrap().name,
                if rules == "standard" { "standard" } else { "competition" }
            );
            assert_eq!(snap.seats[0].name, "gin-bot-learned");
        }
        let summary = out.lines().last().unwrap();
        assert!(summary.starts_with("3 games: ") && summary.contains("0 errors"), "{summary}");
    }
    server.stop().await;
}
