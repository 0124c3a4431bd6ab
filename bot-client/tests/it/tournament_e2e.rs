//! End to end: a real server (in this process, on a loopback socket), a tournament created
//! with `gin-bot tournament create`, three `gin-bot tournament join` processes (random,
//! simple, strong), watched with `gin-bot tournament watch` to its final standings, then
//! `results` as JSON and CSV.

use std::process::Stdio;
use std::time::Duration;

use gin_proto::v1 as pb;
use tokio::process::Command;

use crate::common::Server;

const BIN: &str = env!("CARGO_BIN_EXE_gin-bot");

async fn run(args: &[&str]) -> (String, String) {
    let out = tokio::time::timeout(
        Duration::from_secs(120),
        Command::new(BIN).args(args).kill_on_drop(true).output(),
    )
    .await
    .expect("gin-bot finished in time")
    .expect("gin-bot ran");
    let (so, se) =
        (String::from_utf8_lossy(&out.stdout).to_string(), String::from_utf8_lossy(&out.stderr).to_string());
    assert!(out.status.success(), "gin-bot {args:?} failed:\n{so}\n{se}");
    (so, se)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_bot_processes_play_a_round_robin_to_its_standings() {
    let server = Server::start().await;
    let url = server.url();
    let (out, _) = run(&[
        "tournament",
        "create",
        "--server",
        &url,
        "--entrants",
        "3",
        "--games-per-pairing",
        "2",
        "--duplicate",
        "--parallel",
        "4",
        "--rules",
        "standard",
        "--seed",
        "5",
        "--name",
        "e2e",
    ])
    .await;
    let id = out.trim().to_string();
    assert_eq!(id.len(), 16, "the id is printed alone: {out:?}");

    // The entrants join one after the other so their indices are known.
    let mut joins = Vec::new();
    for strategy in ["strong", "simple", "random"] {
        let child = Command::new(BIN)
            .args([
                "tournament",
                "join",
                "--server",
                &url,
                &id,
                "--strategy",
                strategy,
                "--name",
                strategy,
                // The tournament's seed is given (a reproducible result): its deals are fixed.
                "--accept-fixed-deals",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        joins.push(child);
        // Wait until the server counts this entrant.
        let n = joins.len();
        for _ in 0..200 {
            let (json, _) =
                run(&["tournament", "results", "--server", &url, "--id", &id, "--format", "json"]).await;
            let v: serde_json::Value = serde_json::from_str(&json).unwrap();
            if v["entrants"].as_array().unwrap().len() == n {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    let (watched, _) = run(&["tournament", "watch", "--server", &url, &id]).await;
    assert!(watched.contains("finished, 6/6 games"), "{watched}");

    let mut lines = Vec::new();
    for child in joins {
        let out =
            tokio::time::timeout(Duration::from_secs(120), child.wait_with_output()).await.unwrap().unwrap();
        let so = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(out.status.success(), "{so}\n{}", String::from_utf8_lossy(&out.stderr));
        // Each entrant played its 4 games (2 opponents × 2) and printed the final standings.
        assert_eq!(so.lines().filter(|l| l.contains(" seat ")).count(), 4, "{so}");
        // Its opponents are the other entrants' programs, never said to be house bots.
        let played = so.lines().filter(|l| l.contains(" seat "));
        assert!(played.clone().all(|l| l.contains(" (entrant): ") && !l.contains("house bot")), "{so}");
        assert!(so.contains("finished"), "{so}");
        lines.push(so);
    }

    let (json, _) = run(&["tournament", "results", "--server", &url, "--id", &id, "--format", "json"]).await;
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["status"], "finished");
    assert_eq!(v["seed"], 5);
    assert_eq!(v["entrants"], serde_json::json!(["strong", "simple", "random"]));
    let games = v["games"].as_array().unwrap();
    assert_eq!(games.len(), 6);
    let standings = v["standings"].as_array().unwrap();
    let total_games: u64 = standings.iter().map(|s| s["games"].as_u64().unwrap()).sum();
    assert_eq!(total_games, 12, "each game counts for both entrants");
    let wins: u64 =
        standings.iter().map(|s| s["wins"].as_u64().unwrap() + s["draws"].as_u64().unwrap()).sum();
    assert!(wins >= 6, "every game has a winner or a draw");
    // Each entrant's points add up from the games.
    for s in standings {
        let e = s["entrant"].as_u64().unwrap();
        let pts: u64 = games
            .iter()
            .map(|g| {
                let seats = g["seats"].as_array().unwrap();
                let t = g["totals"].as_array().unwrap();
                (0..2).filter(|&i| seats[i].as_u64() == Some(e)).map(|i| t[i].as_u64().unwrap()).sum::<u64>()
            })
            .sum();
        assert_eq!(s["points_for"].as_u64(), Some(pts), "{s}");
    }
    // The random bot cannot beat both others over 8 games: it is never ranked first.
    assert_ne!(standings[0]["name"], "random", "{json}");

    let (csv, _) = run(&["tournament", "results", "--server", &url, &id, "--format", "csv"]).await;
    assert!(csv.starts_with("number,round,game_id"), "{csv}");
    assert_eq!(
        csv.lines().filter(|l| l.contains(",random,")).count(),
        4 + 1,
        "4 games and 1 standing: {csv}"
    );
    let (table, _) = run(&["tournament", "results", "--server", &url, &id]).await;
    assert!(
        table.contains("strong #0") && table.contains("simple #1") && table.contains("random #2"),
        "{table}"
    );
    server.stop().await;
}

/// A rummy tournament at tables of three: `create --rules rummy --players 3`, three `join`
/// processes (`strong`, `simple`, `random`) each playing every game at its table, standings
/// with the tables' columns. A strategy with no form for rummy is refused before entering.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rummy_tournament_at_tables_of_three() {
    let server = Server::start().await;
    let url = server.url();
    let (out, err) = run(&[
        "tournament",
        "create",
        "--server",
        &url,
        "--entrants",
        "3",
        "--games-per-pairing",
        "3",
        "--duplicate",
        "--rules",
        "rummy",
        "--players",
        "3",
        "--seed",
        "9",
    ])
    .await;
    let id = out.trim().to_string();
    assert!(err.contains("up to 3 games"), "{err}");
    let refused = Command::new(BIN)
        .args([
            "tournament",
            "join",
            "--server",
            &url,
            &id,
            "--strategy",
            "strong-v1",
            "--accept-fixed-deals",
        ])
        .output()
        .await
        .unwrap();
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains(
            "strategy: the table strategy strong-v1 plays three-player and teams only, not rummy: random, simple, strong there"
        ),
        "{said}"
    );
    let mut joins = Vec::new();
    // `strong` plays rummy as an entrant too (the table search on the seat's view).
    for (i, strategy) in ["strong", "simple", "random"].into_iter().enumerate() {
        let name = format!("{strategy}{i}");
        let child = Command::new(BIN)
            .args(["tournament", "join", "--server", &url, &id, "--strategy", strategy, "--name", &name])
            .arg("--accept-fixed-deals")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        joins.push(child);
    }
    for child in joins {
        let out =
            tokio::time::timeout(Duration::from_secs(120), child.wait_with_output()).await.unwrap().unwrap();
        let so = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(out.status.success(), "{so}\n{}", String::from_utf8_lossy(&out.stderr));
        // Each entrant played the table's 3 games, one in each seat.
        let played: Vec<&str> = so.lines().filter(|l| l.contains(" at rummy for 3: place ")).collect();
        assert_eq!(played.len(), 3, "{so}");
        for seat in 0..3 {
            assert_eq!(played.iter().filter(|l| l.contains(&format!(" seat {seat} at "))).count(), 1, "{so}");
        }
        assert!(so.contains("games: rummy (3 players) for 3") && so.contains("place"), "{so}");
    }
    let (json, _) = run(&["tournament", "results", "--server", &url, &id, "--format", "json"]).await;
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["game_format"]["kind"], "rummy");
    let games = v["games"].as_array().unwrap();
    assert_eq!(games.len(), 3);
    for s in v["standings"].as_array().unwrap() {
        let e = s["entrant"].as_u64().unwrap();
        let pts: i64 = games
            .iter()
            .map(|g| {
                let seat = g["seats"].as_array().unwrap().iter().position(|x| x.as_u64() == Some(e)).unwrap();
                g["totals"][seat].as_i64().unwrap()
            })
            .sum();
        assert_eq!(s["table_points"].as_i64(), Some(pts), "{s}");
    }
    server.stop().await;
}

/// Two `gin-bot tournament join` processes play on through a restart of the server, which
/// keeps no seat token: a game in play when it stopped is handed again with a new token on
/// re-entry, and played on with it. Every game ends, and no entrant reports a failed game.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn entrants_play_on_through_a_server_restart() {
    play_through_a_restart(&["--rules", "standard", "--games", "6"], &["a", "b"], 6, None).await;
}

/// The same with a program through the bridge as the first entrant: it re-enters, every game
/// is played to its end, and none is reported failed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bridge_entrant_plays_on_through_a_server_restart() {
    if std::process::Command::new("python3").arg("--version").output().is_err() {
        eprintln!("skipped: no python3 for the bridge's example bot");
        return;
    }
    let bot = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/bridge/bot.py");
    let cmd = format!("python3 {}", bot.display());
    play_through_a_restart(&["--rules", "standard", "--games", "6"], &["py", "b"], 6, Some(&cmd)).await;
}

/// The same at a rummy table of three: the seats of a table's game in play come back with
/// new tokens to all three entrants.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn table_entrants_play_on_through_a_server_restart() {
    play_through_a_restart(
        &["--rules", "rummy", "--players", "3", "--games", "3"],
        &["a", "b", "c"],
        3,
        None,
    )
    .await;
}

/// A tournament of `spec` (create's flags), one game at a time, among the entrants `names`:
/// the server stops while the second game is being played and starts again; every game is
/// played to its end and booked, `games` in all. With `bridge`, the first entrant is that
/// program through the bridge (`join --cmd`), the others `simple`.
async fn play_through_a_restart(spec: &[&str], names: &[&str], games: usize, bridge: Option<&str>) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let first = Server::start().await;
    let addr = first.addr;
    first.stop().await;
    let server = Server::start_at(&db, addr).await;
    let url = server.url();
    let entrants = names.len().to_string();
    let mut args = vec!["tournament", "create", "--server", &url, "--entrants", &entrants, "--parallel", "1"];
    args.extend(["--seed", "9", "--name", "restart"]);
    args.extend(spec);
    let (out, _) = run(&args).await;
    let id = out.trim().to_string();
    let mut joins = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let args = ["tournament", "join", "--server", &url, "--id", &id, "--name", name];
        let player = match bridge {
            Some(cmd) if i == 0 => ["--cmd", cmd],
            _ => ["--strategy", "simple"],
        };
        let child = Command::new(BIN)
            .args(args)
            .args(player)
            .arg("--accept-fixed-deals")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        joins.push(child);
    }
    // Stop the server while the second game is being played, then start it again.
    let args = ["tournament", "results", "--server", &url, "--id", &id, "--format", "json"];
    let results = || run(&args);
    let mut booked = 0;
    for _ in 0..2000 {
        let (json, _) = results().await;
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        booked = v["games"].as_array().map_or(0, Vec::len);
        if booked >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(booked >= 2, "the tournament got going");
    server.stop().await;
    let server = Server::start_at(&db, addr).await;

    for child in joins {
        let out =
            tokio::time::timeout(Duration::from_secs(180), child.wait_with_output()).await.unwrap().unwrap();
        let (so, se) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "{so}\n{se}");
        assert!(!se.lines().any(|l| l.starts_with("game ")), "no game failed: {se}");
        assert!(so.contains("finished"), "{so}");
    }
    let (json, _) = results().await;
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["status"], "finished");
    let booked = v["games"].as_array().unwrap();
    assert_eq!(booked.len(), games);
    assert!(booked.iter().all(|g| g["done"] == true && g["seats"].as_array().unwrap().len() == names.len()));
    server.stop().await;
}

/// A program in another language enters a tournament through the bridge: `gin-bot
/// tournament join --cmd "python3 examples/bridge/bot.py"` against a built-in strategy, two
/// games assigned at once (the program plays them one after the other). The tournament
/// finishes; the bridge entrant's games are in the standings, its points those of the games;
/// each game's record replays with the engine to the result recorded, every hand revealed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bridge_program_enters_a_tournament_against_a_built_in_strategy() {
    if std::process::Command::new("python3").arg("--version").output().is_err() {
        eprintln!("skipped: no python3 for the bridge's example bot");
        return;
    }
    let bot = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/bridge/bot.py");
    let cmd = format!("python3 {}", bot.display());
    let server = Server::start().await;
    let url = server.url();
    let (out, _) = run(&[
        "tournament",
        "create",
        "--server",
        &url,
        "--games-per-pairing",
        "4",
        "--parallel",
        "2",
        "--seed",
        "11",
    ])
    .await;
    let id = out.trim().to_string();
    let mut joins = Vec::new();
    for who in [["--cmd", cmd.as_str()], ["--strategy", "simple"]] {
        let child = Command::new(BIN)
            .args(["tournament", "join", "--server", &url, &id, "--accept-fixed-deals"])
            .args(who)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        joins.push(child);
        // Wait until the server counts this entrant (the bridge is entrant 0).
        let n = joins.len();
        for _ in 0..200 {
            let (json, _) = run(&["tournament", "results", "--server", &url, &id, "--format", "json"]).await;
            let v: serde_json::Value = serde_json::from_str(&json).unwrap();
            if v["entrants"].as_array().unwrap().len() == n {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    let mut outs = Vec::new();
    for child in joins {
        let out =
            tokio::time::timeout(Duration::from_secs(120), child.wait_with_output()).await.unwrap().unwrap();
        let (so, se) = (
            String::from_utf8_lossy(&out.stdout).to_string(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        );
        assert!(out.status.success(), "{so}\n{se}");
        assert_eq!(so.lines().filter(|l| l.contains(" seat ")).count(), 4, "{so}\n{se}");
        assert!(
            so.contains("finished, 4/4 games") && so.contains("bridge #0") && so.contains("simple #1"),
            "{so}"
        );
        assert!(!se.lines().any(|l| l.starts_with("game ")), "no game failed: {se}");
        outs.push((so, se));
    }
    // The program was run once, and ended at the end of its input.
    assert_eq!(outs[0].1.matches("entered as entrant #0").count(), 1, "{}", outs[0].1);
    assert!(outs[0].1.contains("the program exited (exit status: 0)"), "{}", outs[0].1);

    let (json, _) = run(&["tournament", "results", "--server", &url, &id, "--format", "json"]).await;
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["status"], "finished");
    assert_eq!(v["entrants"], serde_json::json!(["bridge", "simple"]));
    let games = v["games"].as_array().unwrap();
    assert_eq!(games.len(), 4);
    let standings = v["standings"].as_array().unwrap();
    let bridge = standings.iter().find(|s| s["name"] == "bridge").expect("the bridge entrant is ranked");
    assert_eq!(bridge["games"].as_u64(), Some(4), "{bridge}");
    let pts: u64 = games
        .iter()
        .map(|g| {
            let seat = g["seats"].as_array().unwrap().iter().position(|x| x.as_u64() == Some(0)).unwrap();
            g["totals"][seat].as_u64().unwrap()
        })
        .sum();
    assert_eq!(bridge["points_for"].as_u64(), Some(pts), "{bridge}");
    let client = gin_sdk::Client::connect(&url).await.unwrap();
    for g in games {
        let rec = client.get_record(g["game_id"].as_str().unwrap()).await.unwrap();
        let record = engine::GameRecord::from_json(&rec.record_json).unwrap();
        let game = record.replay().expect("the record replays to its result");
        let result = game.result().expect("the game ended").clone();
        assert_eq!(rec.result.as_ref().map(|r| r.totals.clone()), Some(result.totals.0.to_vec()), "{g}");
        assert_eq!(rec.reveals.len(), game.hands().len(), "every hand revealed: {g}");
        assert_eq!(g["totals"], serde_json::json!(result.totals.0.to_vec()), "{g}");
    }
    server.stop().await;
}

/// Creates a tournament with `create`, joins `gin-bot tournament join --cmd CMD` (entrant
/// 0, with `bridge_args`) then each of `strategies`; waits for every one. Returns the id
/// and, for each entrant, its stdout, stderr and success.
async fn bridge_tournament(
    url: &str,
    create: &[&str],
    cmd: &str,
    bridge_args: &[&str],
    strategies: &[&str],
) -> (String, Vec<(String, String, bool)>) {
    let (out, _) = run(&[&["tournament", "create", "--server", url][..], create].concat()).await;
    let id = out.trim().to_string();
    let mut joins = Vec::new();
    let mut entrants = vec![[&["--cmd", cmd][..], bridge_args].concat()];
    entrants.extend(strategies.iter().map(|s| vec!["--strategy", s, "--name", s]));
    for who in entrants {
        let child = Command::new(BIN)
            .args(["tournament", "join", "--server", url, &id, "--accept-fixed-deals"])
            .args(who)
            .env("RUST_BACKTRACE", "0")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        joins.push(child);
        let n = joins.len();
        for _ in 0..200 {
            let (json, _) = run(&["tournament", "results", "--server", url, &id, "--format", "json"]).await;
            let v: serde_json::Value = serde_json::from_str(&json).unwrap();
            if v["entrants"].as_array().unwrap().len() == n {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    let mut outs = Vec::new();
    for child in joins {
        let out =
            tokio::time::timeout(Duration::from_secs(120), child.wait_with_output()).await.unwrap().unwrap();
        outs.push((
            String::from_utf8_lossy(&out.stdout).to_string(),
            String::from_utf8_lossy(&out.stderr).to_string(),
            out.status.success(),
        ));
    }
    (id, outs)
}

/// A bridge entrant whose program fails (answers garbage; exits at once) under the default
/// `--on-error stop`: its game is resigned, and so is every later game assigned to it, so
/// that the tournament still finishes for the other entrant; the command fails, naming the
/// first error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_bridge_entrant_resigns_its_games_and_the_tournament_ends() {
    let server = Server::start().await;
    let url = server.url();
    let garbage = "sh -c 'while read l; do case $l in legal*) echo garbage;; esac; done'";
    let cases = [
        (garbage, "bad answer from the bot program: \"garbage\" is not an action"),
        ("true", "the bot program is gone: `true` exited (exit status: 0)"),
    ];
    for (cmd, expected) in cases {
        let create = ["--games-per-pairing", "3", "--parallel", "2", "--seed", "3"];
        let (id, outs) = bridge_tournament(&url, &create, cmd, &[], &["simple"]).await;
        let (so, se, ok) = &outs[0];
        assert!(!ok, "`{cmd}` should fail the entrant:\n{so}\n{se}");
        assert!(se.contains(expected), "`{cmd}`: expected {expected:?} in:\n{se}");
        assert!(se.contains("its later games were resigned"), "{se}");
        assert!(so.contains("finished, 3/3 games"), "the standings are printed still: {so}");
        let (so1, se1, ok1) = &outs[1];
        assert!(ok1, "the other entrant plays the tournament to its end:\n{so1}\n{se1}");
        let (json, _) = run(&["tournament", "results", "--server", &url, &id, "--format", "json"]).await;
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["status"], "finished");
        let bridge = &v["standings"].as_array().unwrap().iter().find(|s| s["entrant"] == 0).unwrap().clone();
        assert_eq!((bridge["games"].as_u64(), bridge["losses"].as_u64()), (Some(3), Some(3)), "{bridge}");
        let client = gin_sdk::Client::connect(&url).await.unwrap();
        for g in v["games"].as_array().unwrap() {
            let snap = client.get_game(g["game_id"].as_str().unwrap(), "").await.unwrap();
            let r = snap.result.unwrap();
            assert_eq!(r.reason, pb::GameEndReason::Resigned as i32, "`{cmd}`: {g}");
            let seat = g["seats"].as_array().unwrap().iter().position(|x| x.as_u64() == Some(0)).unwrap();
            assert_eq!(r.loser_by_default, Some(seat as u32), "`{cmd}`: {g}");
        }
    }
    server.stop().await;
}

/// The bridge entrant at tables: a rummy tournament at tables of three, the example bot
/// against two built-in strategies; it plays each of the table's games (one in each seat)
/// and the standings carry its points.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bridge_program_plays_a_rummy_tournament_at_tables_of_three() {
    if std::process::Command::new("python3").arg("--version").output().is_err() {
        eprintln!("skipped: no python3 for the bridge's example bot");
        return;
    }
    let bot = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/bridge/bot.py");
    let cmd = format!("python3 {}", bot.display());
    let server = Server::start().await;
    let url = server.url();
    let create = [
        "--entrants",
        "3",
        "--games-per-pairing",
        "3",
        "--duplicate",
        "--rules",
        "rummy",
        "--players",
        "3",
        "--seed",
        "9",
    ];
    let (id, outs) = bridge_tournament(&url, &create, &cmd, &["--name", "py"], &["simple", "random"]).await;
    for (so, se, ok) in &outs {
        assert!(ok, "{so}\n{se}");
        let played: Vec<&str> = so.lines().filter(|l| l.contains(" at rummy for 3: place ")).collect();
        assert_eq!(played.len(), 3, "{so}");
        assert!(so.contains("py #0") && so.contains("finished, 3/3 games"), "{so}");
        assert!(!se.lines().any(|l| l.starts_with("game ")), "no game failed: {se}");
    }
    let (json, _) = run(&["tournament", "results", "--server", &url, &id, "--format", "json"]).await;
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let games = v["games"].as_array().unwrap();
    let py = v["standings"].as_array().unwrap().iter().find(|s| s["name"] == "py").unwrap().clone();
    assert_eq!(py["games"].as_u64(), Some(3), "{py}");
    let pts: i64 = games
        .iter()
        .map(|g| {
            let seat = g["seats"].as_array().unwrap().iter().position(|x| x.as_u64() == Some(0)).unwrap();
            g["totals"][seat].as_i64().unwrap()
        })
        .sum();
    assert_eq!(py["table_points"].as_i64(), Some(pts), "{py}");
    let client = gin_sdk::Client::connect(&url).await.unwrap();
    for g in games {
        let rec = client.get_record(g["game_id"].as_str().unwrap()).await.unwrap();
        let record = engine::TableRecord::parse(&rec.record_json).expect("a table's record");
        let replayed = record.replay().expect("the record replays");
        let totals = replayed.result().expect("the game ended").totals.clone();
        assert_eq!(rec.result.map(|r| r.table_totals), Some(totals), "{g}");
    }
    server.stop().await;
}

/// A bridge entrant under a lenient `--on-error`, its program answering an illegal move: under
/// `resign-game` each game is resigned and the next played (the command succeeds, each game
/// reported resigned); under `skip` the program is told, each turn gets a safe move, and every
/// game is played to its end by the target (each bad answer reported).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lenient_bridge_entrant_resigns_or_skips_and_plays_on() {
    let server = Server::start().await;
    let url = server.url();
    // (A move, never a legal one: a line that is no move at all is ignored under these modes.)
    let illegal = "sh -c 'while read l; do case $l in legal*) echo discard AS;; esac; done'";
    for mode in ["resign-game", "skip"] {
        let create = ["--games-per-pairing", "2", "--parallel", "2", "--seed", "4"];
        let (id, outs) = bridge_tournament(&url, &create, illegal, &["--on-error", mode], &["simple"]).await;
        let (so, se, ok) = &outs[0];
        assert!(ok, "{mode}: {so}\n{se}");
        assert!(so.contains("finished, 2/2 games") && outs[1].2, "{mode}: {so}\n{}", outs[1].1);
        let resigned = se.matches("(the game was resigned; going on)").count();
        let skipped = se.matches("\"discard AS\" is not legal now").count();
        let (json, _) = run(&["tournament", "results", "--server", &url, &id, "--format", "json"]).await;
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let client = gin_sdk::Client::connect(&url).await.unwrap();
        let mut reasons = Vec::new();
        for g in v["games"].as_array().unwrap() {
            let snap = client.get_game(g["game_id"].as_str().unwrap(), "").await.unwrap();
            reasons.push(snap.result.unwrap().reason);
        }
        if mode == "resign-game" {
            assert_eq!(resigned, 2, "{se}");
            assert_eq!(reasons, [pb::GameEndReason::Resigned as i32; 2], "{se}");
        } else {
            assert_eq!(resigned, 0, "{se}");
            assert!(skipped > 2 && se.contains("a safe move was played instead"), "{se}");
            assert!(!reasons.contains(&(pb::GameEndReason::Resigned as i32)), "{reasons:?}\n{se}");
        }
    }
    server.stop().await;
}
