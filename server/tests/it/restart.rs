//! The real `gin-server` binary killed with SIGKILL mid-game and restarted on the same
//! database: every acknowledged action survived, the seats' tokens still work, and the game
//! ends exactly as the same seed and actions end on a server that was never interrupted (and
//! as the engine replaying the record says). Also: ctrl-c stops the server promptly.

use crate::common;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::*;
use gin_proto::v1 as pb;
use gin_proto::v1::account_service_client::AccountServiceClient;
use gin_proto::v1::game_service_client::GameServiceClient;
use gin_proto::v1::lobby_service_client::LobbyServiceClient;
use tonic::transport::Channel;

/// A `gin-server` process; killed when dropped.
pub struct Proc {
    child: Child,
    addr: String,
    log: PathBuf,
}

impl Proc {
    pub async fn start(db: &Path, log: &Path) -> Proc {
        Proc::start_with(db, log, &[]).await
    }

    /// [`Proc::start`] with more flags.
    pub async fn start_with(db: &Path, log: &Path, flags: &[&str]) -> Proc {
        Proc::spawn(db, log, flags, false).await
    }

    /// A server of a cluster on the PostgreSQL database `db` (`--cluster-addr`: its own
    /// address), with more flags.
    pub async fn start_in_cluster(db: &Path, log: &Path, flags: &[&str]) -> Proc {
        Proc::spawn(db, log, flags, true).await
    }

    async fn spawn(db: &Path, log: &Path, flags: &[&str], cluster: bool) -> Proc {
        // A free port, below the ephemeral range (see `free_ports`).
        let port = crate::common::free_port();
        let addr = format!("127.0.0.1:{port}");
        let out = File::options().create(true).append(true).open(log).unwrap();
        let cluster_flags: &[&str] = if cluster { &["--cluster-addr", &addr] } else { &[] };
        let child = Command::new(env!("CARGO_BIN_EXE_gin-server"))
            .args(["--addr", &addr, "--db"])
            .arg(db)
            .args(["--rate-per-sec", "0"])
            .args(cluster_flags)
            .args(flags)
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .expect("spawn gin-server");
        let mut p = Proc { child, addr, log: log.to_path_buf() };
        p.wait_ready().await;
        p
    }

    pub fn logs(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Waits until the server answers a request.
    async fn wait_ready(&mut self) {
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(30) {
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("gin-server exited at start ({status}):\n{}", self.logs());
            }
            if let Ok(ch) = Channel::from_shared(format!("http://{}", self.addr)).unwrap().connect().await {
                let mut lobby = LobbyServiceClient::new(ch);
                if lobby.list_games(pb::ListGamesRequest::default()).await.is_ok() {
                    return;
                }
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("gin-server did not come up in 30 s:\n{}", self.logs());
    }

    pub async fn channel(&self) -> Channel {
        Channel::from_shared(format!("http://{}", self.addr)).unwrap().connect().await.unwrap()
    }

    /// Its address.
    pub fn addr(&self) -> std::net::SocketAddr {
        self.addr.parse().unwrap()
    }

    /// SIGKILL, and reap.
    pub fn kill(&mut self) {
        self.child.kill().unwrap();
        let status = self.child.wait().unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(9), "killed by SIGKILL");
    }

    /// Sends `signal` (`kill`'s flag: `-STOP`, `-CONT`) and returns at once.
    pub fn send_signal(&self, signal: &str) {
        let ok = Command::new("kill").args([signal, &self.child.id().to_string()]).status().unwrap();
        assert!(ok.success());
    }

    /// Waits up to `d` for the process to exit by itself; None if still running.
    pub fn exited_within(&mut self, d: Duration) -> Option<std::process::ExitStatus> {
        let t = Instant::now();
        while t.elapsed() < d {
            if let Some(s) = self.child.try_wait().unwrap() {
                return Some(s);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    /// Sends SIGINT (ctrl-c) and waits up to `d` for the exit; None if still running.
    fn interrupt(&mut self, d: Duration) -> Option<std::process::ExitStatus> {
        self.signal("-INT", d)
    }

    /// Sends `signal` (`kill`'s flag) and waits up to `d` for the exit; None if still running.
    fn signal(&mut self, signal: &str, d: Duration) -> Option<std::process::ExitStatus> {
        let ok = Command::new("kill").args([signal, &self.child.id().to_string()]).status().unwrap();
        assert!(ok.success());
        let t = Instant::now();
        while t.elapsed() < d {
            if let Some(s) = self.child.try_wait().unwrap() {
                return Some(s);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

const SEED: u64 = 31_337;

/// The result in the GameOver snapshot and in GetRecord, which must agree.
pub async fn final_result(gc: &mut Games, game: &str) -> (pb::GameResult, pb::GetRecordResponse) {
    let snap = get_game(gc, game, "").await;
    assert_eq!(snap.phase, pb::Phase::GameOver as i32);
    let result = snap.result.expect("a result once over");
    let rec = gc.get_record(pb::GetRecordRequest { game_id: game.into() }).await.unwrap().into_inner();
    assert_eq!(rec.result.as_ref(), Some(&result));
    (result, rec)
}

/// The record holds exactly the actions `played` (by `players`, in order), and the engine
/// replaying it reaches `result`; the replayed game.
pub fn record_is_what_was_played(
    record: &engine::GameRecord,
    result: &pb::GameResult,
    players: &[Player; 2],
    played: &[(usize, pb::LegalAction, u64)],
) -> engine::Game {
    let sent: Vec<(engine::Seat, engine::Action)> = played
        .iter()
        .map(|(i, a, _)| (engine::Seat::new(players[*i].seat as u8).unwrap(), engine_action(a)))
        .collect();
    let recorded: Vec<(engine::Seat, engine::Action)> =
        record.actions.iter().map(|r| (r.seat, r.action.clone())).collect();
    assert_eq!(recorded, sent);
    let replay = record.replay().unwrap();
    let want = replay.result().expect("the replayed game is over");
    assert_eq!(result.totals, want.totals.0.to_vec());
    assert_eq!(result.winner, want.winner.map(|s| s.index() as u32));
    assert_eq!(result.margin, want.margin);
    replay
}

/// After a restart: the game is at `seq`, and both seats' tokens still identify their seats.
pub async fn check_restored(gc: &mut Games, game: &str, players: &[Player; 2], seq: u64) {
    assert_eq!(get_game(gc, game, "").await.seq, seq, "the restarted server lost or invented events");
    for p in players {
        let snap = get_game(gc, game, &p.token).await;
        assert_eq!(snap.seq, seq);
        assert_eq!(snap.viewer_seat, Some(p.seat), "the token still opens its seat");
        assert!(!snap.hand.is_empty());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_survives_sigkill_and_ends_as_an_uninterrupted_one() {
    let dir = tempfile::tempdir().unwrap();
    let (db, fresh) = (dir.path().join("games.db"), dir.path().join("fresh.db"));
    survives_sigkill(&db, &fresh, &dir.path().join("server.log")).await;
}

/// The same on PostgreSQL (`--db postgres://…`, a private cluster): every acknowledged
/// action was committed there before the kill.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_on_postgres_survives_sigkill_and_ends_as_an_uninterrupted_one() {
    let Some(pg) = gin_server::storage::pg_cluster::for_test() else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = PathBuf::from(pg.create_database("games").unwrap());
    let fresh = PathBuf::from(pg.create_database("fresh").unwrap());
    survives_sigkill(&db, &fresh, &dir.path().join("server.log")).await;
}

/// A game on the store `db` whose server is killed twice mid-game ends as the same game
/// replayed uninterrupted on the empty store `fresh`.
async fn survives_sigkill(db: &Path, fresh: &Path, log: &Path) {
    let (db, log) = (db.to_path_buf(), log.to_path_buf());
    let mut server = Proc::start(&db, &log).await;
    let ch = server.channel().await;
    let (game, mut players) = new_game_req(
        &ch,
        pb::CreateGameRequest { rules: Some(preset("standard")), seed: SEED, ..Default::default() },
    )
    .await;
    let mut gc = GameServiceClient::new(ch);
    let mut rng = Rng(SEED);
    // Every acknowledged action: who, what, the seq it produced.
    let mut played: Vec<(usize, pb::LegalAction, u64)> = Vec::new();

    // Kill twice: in the middle of the first hand, then a few actions into a later hand.
    let mut acked_at_kill = Vec::new();
    for kill in 0..2 {
        let mut n = 0;
        loop {
            let s = step(&mut gc, &mut players, &mut rng).await.expect("not over yet");
            played.push(s);
            n += 1;
            let hands = get_game(&mut gc, &game, "").await.hands.len();
            if (kill == 0 && n == 20) || (kill == 1 && hands >= 1 && n >= 5) {
                break;
            }
        }
        let acked = played.last().unwrap().2;
        let acked_actions = played.len();
        acked_at_kill.push(acked_actions);
        server.kill();
        server = Proc::start(&db, &log).await;
        gc = GameServiceClient::new(server.channel().await);
        check_restored(&mut gc, &game, &players, acked).await;
        println!("killed after {acked_actions} actions (seq {acked}); restored");
    }
    // Play on to the end.
    while let Some(s) = step(&mut gc, &mut players, &mut rng).await {
        played.push(s);
        assert!(played.len() < 20_000, "the game does not end");
    }
    let (result, rec) = final_result(&mut gc, &game).await;
    assert_eq!(result.reason, pb::GameEndReason::Target as i32);

    // Every acknowledged action is in the record, in order, and nothing else.
    let record = engine::GameRecord::from_json(&rec.record_json).unwrap();
    assert_eq!(record.setup.seed, SEED);
    for n in &acked_at_kill {
        assert!(record.actions.len() >= *n, "an action acknowledged before a kill was lost");
    }
    assert!(record.actions.len() >= played.len());
    let replay = record_is_what_was_played(&record, &result, &players, &played);
    assert_eq!(rec.reveals.len(), replay.hands().len());
    drop(gc);
    drop(server);

    // The same seed and the same actions on a fresh database, never interrupted.
    let fresh = Proc::start(fresh, &log).await;
    let ch = fresh.channel().await;
    let (game2, mut players2) = new_game_req(
        &ch,
        pb::CreateGameRequest { rules: Some(preset("standard")), seed: SEED, ..Default::default() },
    )
    .await;
    let mut gc = GameServiceClient::new(ch);
    let mut seq = get_game(&mut gc, &game2, "").await.seq;
    for (i, a, want_seq) in &played {
        players2[*i].last_seq = seq;
        seq = send(&mut gc, &players2[*i], a).await.unwrap_or_else(|e| panic!("{a:?} refused: {e:?}"));
        assert_eq!(seq, *want_seq, "the same action produced other events");
    }
    let (result2, rec2) = final_result(&mut gc, &game2).await;
    assert_eq!(result2, result, "the interrupted game ended otherwise");
    assert_eq!(
        (result2.totals.clone(), result2.winner, result2.margin),
        (result.totals.clone(), result.winner, result.margin)
    );
    let record2 = engine::GameRecord::from_json(&rec2.record_json).unwrap();
    assert_eq!(record2.actions, record.actions);
    assert_eq!(
        rec2.reveals.iter().map(|r| &r.deck).collect::<Vec<_>>(),
        rec.reveals.iter().map(|r| &r.deck).collect::<Vec<_>>()
    );
    println!(
        "{} actions, result {:?} / {:?}, margin {}",
        played.len(),
        result.totals,
        result.winner,
        result.margin
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_stops_the_server_promptly_even_with_a_watcher() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.db");
    let log = dir.path().join("server.log");

    // Without a watcher.
    let mut server = Proc::start(&db, &log).await;
    let ch = server.channel().await;
    let (game, players) = new_game(&ch, preset("standard"), 5).await;
    drop(ch);
    let status = server.interrupt(Duration::from_secs(10)).expect("ctrl-c stops an idle server");
    assert!(status.success(), "{status}");

    // With one: a spectator watching a game in play.
    let mut server = Proc::start(&db, &log).await;
    let ch = server.channel().await;
    let mut gc = GameServiceClient::new(ch.clone());
    let seq = get_game(&mut gc, &game, "").await.seq;
    assert_eq!(seq, 4, "two joins, a deal, a turn");
    check_restored(&mut gc, &game, &players, seq).await;
    let mut stream = watch(&mut gc, &game, "", 0).await;
    assert!(stream.message().await.unwrap().is_some(), "the snapshot");
    let reader = tokio::spawn(async move { drain(&mut stream, Duration::from_secs(30)).await });
    let status = server.interrupt(Duration::from_secs(5));
    let ended = tokio::time::timeout(Duration::from_secs(1), reader).await;
    assert!(
        status.is_some(),
        "gin-server still runs 5 s after ctrl-c while a client watches a game: graceful shutdown waits for \
         every open watch stream, which only ends with the game; the streams are never told to end\n{}",
        server.logs()
    );
    assert!(status.unwrap().success());
    assert!(ended.is_ok(), "the watcher's stream ended with the server");
}

/// SIGTERM (what systemd and container runtimes send) stops the server as gracefully as
/// ctrl-c, with a watcher; with `--log-format json` every log line is a JSON object, and a
/// line logged during a call carries the call's span: its method and its game.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_stops_the_server_gracefully_and_json_logs_carry_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.db");
    let log = dir.path().join("server.log");
    let mut server = Proc::start_with(&db, &log, &["--log-format", "json"]).await;
    let ch = server.channel().await;
    let (game, players) = new_game(&ch, preset("standard"), 5).await;
    let mut gc = GameServiceClient::new(ch.clone());
    let mut stream = watch(&mut gc, &game, "", 0).await;
    assert!(stream.message().await.unwrap().is_some(), "the snapshot");
    let reader = tokio::spawn(async move { drain(&mut stream, Duration::from_secs(30)).await });
    let status = server.signal("-TERM", Duration::from_secs(5));
    assert!(status.is_some(), "gin-server still runs 5 s after SIGTERM:\n{}", server.logs());
    assert!(status.unwrap().success(), "exit status after SIGTERM");
    assert!(tokio::time::timeout(Duration::from_secs(1), reader).await.is_ok(), "the watcher's stream ended");
    // Every line is JSON; the game's start was logged in the call that seated its second player.
    let lines: Vec<serde_json::Value> = server
        .logs()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    let started = lines
        .iter()
        .find(|l| l["fields"]["message"] == "game started")
        .unwrap_or_else(|| panic!("no 'game started' line: {lines:#?}"));
    assert_eq!(started["span"]["name"], "rpc", "{started}");
    assert_eq!(started["span"]["method"], "/gin.v1.LobbyService/JoinGame", "{started}");
    assert_eq!(started["span"]["game"], game.as_str(), "{started}");
    assert!(lines.iter().any(|l| l["fields"]["message"] == "SIGTERM: shutting down"), "{lines:#?}");
    assert!(lines.iter().any(|l| l["fields"]["message"] == "gin-server stopped"), "{lines:#?}");
    // The store was closed cleanly: the game is all there after a restart.
    let mut server = Proc::start(&db, &log).await;
    let ch = server.channel().await;
    let mut gc = GameServiceClient::new(ch.clone());
    let seq = get_game(&mut gc, &game, "").await.seq;
    check_restored(&mut gc, &game, &players, seq).await;
    assert!(server.interrupt(Duration::from_secs(10)).expect("stops").success());
}

/// A client that starts a new watch stream the moment its stream is cut by a stopping
/// server does not hold the stop up: a watch that starts once the server is stopping is
/// refused (UNAVAILABLE). (It used to be registered after the open streams were cut, and the
/// graceful stop then waited for it until the client went away: a tournament entrant
/// restarting its game's stream kept a server from stopping for its whole retry budget.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_started_while_the_server_stops_does_not_hold_it_up() {
    let dir = tempfile::tempdir().unwrap();
    for round in 0..5 {
        let server = TestServer::start(&dir.path().join(format!("g{round}.db"))).await;
        let ch = server.channel().await;
        let (game, _players) = new_game(&ch, preset("standard"), 5).await;
        // Several watchers on one connection, each re-watching at once when cut.
        let mut watchers = Vec::new();
        for _ in 0..4 {
            let mut gc = GameServiceClient::new(ch.clone());
            let game = game.clone();
            watchers.push(tokio::spawn(async move {
                let mut refused = 0;
                loop {
                    let req = pb::WatchGameRequest { game_id: game.clone(), resume_after_seq: 0 };
                    match gc.watch_game(req).await {
                        Ok(s) => {
                            let mut s = s.into_inner();
                            while let Ok(Some(_)) = s.message().await {}
                        }
                        Err(e) if e.code() == tonic::Code::Unavailable => {
                            refused += 1;
                            if refused > 1000 {
                                return;
                            }
                        }
                        Err(_) => return,
                    }
                }
            }));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        let stopped = tokio::time::timeout(Duration::from_secs(20), server.stop()).await;
        assert!(stopped.is_ok(), "round {round}: the server still stops 20 s later: a watch held it up");
        for w in watchers {
            w.abort();
        }
    }
}

/// How many journal row records the start logged in `log` applied to SQLite again (its
/// `rows_replayed=` line); panics when the start logged none.
fn rows_replayed(log: &Path) -> usize {
    let text = std::fs::read_to_string(log).unwrap();
    let line = text
        .lines()
        .find(|l| l.contains("row records applied again"))
        .unwrap_or_else(|| panic!("no line of the journal's row records in the log:\n{text}"));
    let n = line.split("rows_replayed=").nth(1).expect("rows_replayed=").split(' ').next().unwrap();
    n.parse().unwrap_or_else(|e| panic!("{n:?}: {e} in {line}"))
}

/// A graceful stop (SIGTERM or ctrl-c) compacts the SQLite journal: the next start applies no
/// row record again, what a start after SIGKILL does (for every account and token registered
/// since the last start); the accounts and their tokens are all there after each start.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_start_after_a_graceful_stop_applies_no_journal_row_again_one_after_sigkill_does() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("gin.db");
    let log = |n: usize| dir.path().join(format!("start{n}.log"));
    let flags = ["--registrations-per-hour", "0"];
    let mut tokens: Vec<String> = Vec::new();
    let mut server = Proc::start_with(&db, &log(0), &flags).await;
    assert_eq!(rows_replayed(&log(0)), 0, "a new database");
    tokens.extend(register_bots(server.channel().await, 0, 20).await);
    server.kill();
    // After SIGKILL: every account's and token's row is applied again.
    let mut server = Proc::start_with(&db, &log(1), &flags).await;
    assert!(rows_replayed(&log(1)) >= 40, "after SIGKILL: {}", rows_replayed(&log(1)));
    all_known(server.channel().await, &tokens).await;
    tokens.extend(register_bots(server.channel().await, 20, 20).await);
    let status = server.signal("-TERM", Duration::from_secs(10)).expect("SIGTERM stops the server");
    assert!(status.success(), "{status}");
    let logs = std::fs::read_to_string(log(1)).unwrap();
    assert!(logs.contains("journal compacted at the stop"), "{logs}");
    // After a graceful stop: none, and everything is there.
    let mut server = Proc::start_with(&db, &log(2), &flags).await;
    assert_eq!(rows_replayed(&log(2)), 0, "after SIGTERM");
    all_known(server.channel().await, &tokens).await;
    // ctrl-c too, even right after a start with no change since (nothing to compact).
    let status = server.interrupt(Duration::from_secs(10)).expect("ctrl-c stops the server");
    assert!(status.success(), "{status}");
    let mut server = Proc::start_with(&db, &log(3), &flags).await;
    assert_eq!(rows_replayed(&log(3)), 0, "after ctrl-c");
    all_known(server.channel().await, &tokens).await;
    tokens.extend(register_bots(server.channel().await, 40, 5).await);
    assert!(server.interrupt(Duration::from_secs(10)).expect("stops").success());
    let server = Proc::start_with(&db, &log(4), &flags).await;
    assert_eq!(rows_replayed(&log(4)), 0, "after ctrl-c with changes");
    all_known(server.channel().await, &tokens).await;
}

/// Registers the bot accounts `Bot{from}` … `Bot{from + n - 1}`: their tokens.
async fn register_bots(ch: Channel, from: usize, n: usize) -> Vec<String> {
    let mut c = AccountServiceClient::new(ch);
    let mut tokens = Vec::new();
    for i in from..from + n {
        let req = pb::RegisterRequest {
            name: format!("Bot{i}"),
            kind: pb::AccountKind::Bot as i32,
            ..Default::default()
        };
        tokens.push(c.register(req).await.unwrap().into_inner().token);
    }
    tokens
}

/// Each of `tokens` (`Bot0`'s first) names its account.
async fn all_known(ch: Channel, tokens: &[String]) {
    let mut c = AccountServiceClient::new(ch);
    for (i, token) in tokens.iter().enumerate() {
        let who = c.who_am_i(authed(pb::WhoAmIRequest {}, token)).await;
        let name = who.unwrap_or_else(|e| panic!("token {i}: {e}")).into_inner().account.unwrap().name;
        assert_eq!(name, format!("Bot{i}"));
    }
}
