//! `gin-bot bridge` against a real server on a loopback socket: the example bot of
//! `examples/bridge/` (Python, no dependencies) plays complete games against a house bot, and
//! a program that answers garbage, exits or stays silent stops the bridge with a clear error
//! (never a hang) after resigning the game.

use std::time::Duration;

use gin_proto::v1 as pb;
use gin_sdk::Client;

use crate::common::Server;

/// Runs `gin-bot` with `args` (RUST_BACKTRACE off: errors are one line); returns its stdout,
/// stderr and success. A hang fails the test.
async fn gin_bot(args: &[&str]) -> (String, String, bool) {
    let out = tokio::time::timeout(
        Duration::from_secs(120),
        tokio::process::Command::new(env!("CARGO_BIN_EXE_gin-bot"))
            .args(args)
            .env("RUST_BACKTRACE", "0")
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("gin-bot bridge finished (no hang)")
    .unwrap();
    (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap(), out.status.success())
}

fn example_bot() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/bridge/bot.py");
    assert!(path.exists(), "{} is missing", path.display());
    format!("python3 {}", path.display())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_example_bot_plays_complete_games_against_a_house_bot() {
    let server = Server::start().await;
    let url = server.url();
    let client = Client::connect(&url).await.unwrap();
    let cmd = example_bot();
    let (out, err, ok) =
        gin_bot(&["bridge", "--cmd", &cmd, "--server", &url, "--vs-bot", "simple", "--games", "3"]).await;
    assert!(ok, "bridge failed:\n{out}\n{err}");
    let results: Vec<&str> = out.lines().filter(|l| l.starts_with('[')).collect();
    assert_eq!(results.len(), 3, "{out}");
    for line in &results {
        assert!(line.contains("result checked against GetRecord"), "{line}");
        let game = line.split_whitespace().nth(1).unwrap();
        let rec = client.get_record(game).await.unwrap();
        let r = rec.result.unwrap();
        assert_eq!(r.reason, pb::GameEndReason::Target as i32, "{game}: {r:?}");
        assert!(r.totals.iter().max().unwrap() >= &100, "{game}: {r:?}");
        // The program played seat 0 (its actions are in the record), the house bot seat 1.
        let snap = client.get_game(game, "").await.unwrap();
        assert!(snap.seats[1].bot && !snap.seats[0].bot, "{game}: {:?}", snap.seats);
        assert!(
            rec.record_text.lines().any(|l| l.starts_with("0 discard")),
            "{game}: seat 0 never discarded"
        );
    }
    // The program saw every game end (the example bot reports each `gameover` line on stderr).
    assert_eq!(err.matches("bridge example bot: game over").count(), 3, "{err}");
    assert!(out.contains("3 games:") && out.contains("the program exited (exit status: 0)"), "{out}");
    server.stop().await;
}

/// The game id named in the bridge's error (`[1/1] game <id>: …`).
fn failed_game(err: &str) -> String {
    let i = err.find("] game ").unwrap_or_else(|| panic!("no game in {err}"));
    err[i + 7..].split(':').next().unwrap().to_string()
}

/// Runs the bridge with `cmd` against a house bot; it must fail with `expected` in its error,
/// and the game must be over, resigned by the bridge's seat.
async fn fails_with(server: &Server, cmd: &str, extra: &[&str], expected: &str) {
    let url = server.url();
    let mut args = vec!["bridge", "--cmd", cmd, "--server", &url, "--vs-bot", "simple", "--games", "2"];
    args.extend_from_slice(extra);
    let started = std::time::Instant::now();
    let (out, err, ok) = gin_bot(&args).await;
    assert!(!ok, "`{cmd}` should fail the bridge:\n{out}\n{err}");
    assert!(err.contains(expected), "`{cmd}`: expected {expected:?} in:\n{err}");
    assert!(started.elapsed() < Duration::from_secs(30), "`{cmd}` took {:?}", started.elapsed());
    let game = failed_game(&err);
    let client = Client::connect(&url).await.unwrap();
    let snap = client.get_game(&game, "").await.unwrap();
    assert_eq!(snap.phase, pb::Phase::GameOver as i32, "{game} not over after `{cmd}`");
    let r = snap.result.unwrap();
    assert_eq!(r.reason, pb::GameEndReason::Resigned as i32, "{game}: {r:?}");
    assert_eq!(r.loser_by_default, Some(0), "{game}: {r:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_answer_is_a_clear_error_and_the_game_is_resigned() {
    let server = Server::start().await;
    // Garbage.
    let garbage = "while read l; do case $l in legal*) echo garbage;; esac; done";
    let cmd = format!("sh -c '{garbage}'");
    fails_with(&server, &cmd, &[], "bad answer from the bot program: \"garbage\" is not an action").await;
    // A well-formed action that is not legal now (the first turn offers pass or pile).
    let illegal = "while read l; do case $l in legal*) echo discard AS;; esac; done";
    let cmd = format!("sh -c '{illegal}'");
    fails_with(&server, &cmd, &[], "\"discard AS\" is not legal now").await;
    // A line nobody asked for, before the first turn.
    let chatty = "echo hello; while read l; do case $l in legal*) echo pass;; esac; done";
    let cmd = format!("sh -c '{chatty}'");
    // (Usually "wrote \"hello\" when no answer was asked"; "\"hello\" is not an action" if the
    // line reaches the bridge after its first question.)
    fails_with(&server, &cmd, &[], "\"hello\"").await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_that_exits_or_stays_silent_is_an_error_not_a_hang() {
    let server = Server::start().await;
    fails_with(&server, "true", &[], "the bot program is gone: `true` exited (exit status: 0)").await;
    fails_with(&server, "exit 3", &[], "exited (exit status: 3)").await;
    fails_with(
        &server,
        "cat > /dev/null",
        &["--timeout-ms", "300"],
        "did not answer: no action within 300ms",
    )
    .await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_example_bot_plays_rummy_and_a_team_game_and_sees_every_table_event() {
    let server = Server::start().await;
    let url = server.url();
    let client = Client::connect(&url).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    // The example bot behind a tee: every line the bridge wrote to it is kept.
    let seen = dir.path().join("seen.txt");
    let cmd = format!("tee -a {} | {}", seen.display(), example_bot());
    for (rules, players, n) in [("rummy", "3", 3usize), ("teams", "4", 4)] {
        let (out, err, ok) = gin_bot(&[
            "bridge",
            "--cmd",
            &cmd,
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
        ])
        .await;
        assert!(ok, "{rules}: bridge failed:\n{out}\n{err}");
        let results: Vec<&str> = out.lines().filter(|l| l.starts_with('[')).collect();
        assert_eq!(results.len(), 2, "{out}");
        for line in &results {
            assert!(line.contains("result checked against GetRecord"), "{line}");
            let game = line.split_whitespace().nth(1).unwrap();
            let rec = client.get_record(game).await.unwrap();
            let r = rec.result.unwrap();
            assert_eq!(r.reason, pb::GameEndReason::Target as i32);
            assert_eq!(r.table_totals.len(), n);
            // The program's moves are seat 0's in the record.
            let record = engine::TableRecord::parse(&rec.record_json).unwrap();
            assert!(record.moves.iter().any(|m| m.seat == 0), "{game}");
            assert!(line.contains(&format!("place {}", r.places[0])), "{line}");
        }
    }
    let lines = std::fs::read_to_string(&seen).unwrap();
    let starts = |w: &str| lines.lines().filter(|l| l.starts_with(w)).count();
    assert_eq!(starts("table "), 4, "a table line per game:\n{lines}");
    assert!(starts("meld ") > 0 && starts("melds") > 0, "rummy's melds reach the program");
    assert!(starts("tablehandover ") >= 4, "every hand's end");
    assert!(lines.lines().any(|l| l.starts_with("legal ") && l.contains("meld:")), "meld tokens offered");
    assert_eq!(starts("gameover "), 4);
}
