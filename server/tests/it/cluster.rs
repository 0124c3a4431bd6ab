//! Several servers on one PostgreSQL database (issue 19): each game is served by the server
//! holding its lease; a server killed with SIGKILL loses its games to another within a few
//! seconds (its lease runs out), which rebuilds them from PostgreSQL and goes on. Real
//! `gin-server` processes, a private PostgreSQL cluster.

use crate::common;
use crate::restart::{Proc, check_restored, final_result, record_is_what_was_played};

use std::path::PathBuf;
use std::time::{Duration, Instant};

use common::*;
use gin_proto::v1 as pb;
use gin_proto::v1::game_service_client::GameServiceClient;
use tonic::Code;

const SEED: u64 = 4_242;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_servers_game_moves_to_another_and_ends_as_an_uninterrupted_one() {
    let Some(pg) = gin_server::storage::pg_cluster::for_test() else { return };
    let db = PathBuf::from(pg.create_database("cluster").unwrap());
    let dir = tempfile::tempdir().unwrap();
    let lease = ["--lease-ms", "1500"];
    let mut a = Proc::start_in_cluster(&db, &dir.path().join("a.log"), &lease).await;
    let b = Proc::start_in_cluster(&db, &dir.path().join("b.log"), &lease).await;
    let (game, mut players) = new_game_req(
        &a.channel().await,
        pb::CreateGameRequest { rules: Some(preset("standard")), seed: SEED, ..Default::default() },
    )
    .await;

    // While A holds the game, B forwards the calls about it there: a read, a spectator's
    // stream, and every other action (each seat's token is unknown to B).
    let mut ga = GameServiceClient::new(a.channel().await);
    let mut gb = GameServiceClient::new(b.channel().await);
    let via_a = ga.get_game(pb::GetGameRequest { game_id: game.clone() }).await.unwrap().into_inner();
    let via_b = gb.get_game(pb::GetGameRequest { game_id: game.clone() }).await.unwrap().into_inner();
    assert_eq!(via_a, via_b);
    let mut watch_b = watch(&mut gb, &game, "", 0).await;
    let mut rng = Rng(SEED);
    let mut played: Vec<(usize, pb::LegalAction, u64)> = Vec::new();
    for i in 0..20 {
        let gc = if i % 2 == 0 { &mut ga } else { &mut gb };
        played.push(step(gc, &mut players, &mut rng).await.expect("not over yet"));
    }
    // The spectator's stream through B saw every event A published, in order.
    let mut seen = Vec::new();
    while seen.last() != Some(&played.last().unwrap().2) {
        let msg =
            tokio::time::timeout(Duration::from_secs(10), watch_b.message()).await.unwrap().unwrap().unwrap();
        if let Some(pb::watch_game_response::Kind::Event(e)) = msg.kind {
            seen.push(e.seq);
        }
    }
    assert_eq!(seen, (seen[0]..=seen[seen.len() - 1]).collect::<Vec<_>>(), "no gap, no duplicate");
    let acked = played.last().unwrap().2;
    a.kill();
    let killed = Instant::now();

    // B takes the game over once A's lease ran out: the same seq, the same seats.
    let taken = loop {
        match gb.get_game(pb::GetGameRequest { game_id: game.clone() }).await {
            Ok(r) => break r.into_inner().snapshot.expect("a snapshot"),
            Err(e) if e.code() == Code::Unavailable => {
                assert!(killed.elapsed() < Duration::from_secs(15), "not taken over in 15 s: {e:?}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("{e:?}\n{}", b.logs()),
        }
    };
    println!("taken over {:?} after the kill", killed.elapsed());
    assert_eq!(taken.seq, acked, "every acknowledged action, nothing else");
    check_restored(&mut gb, &game, &players, acked).await;

    // The game goes on at B to its end, as the same seed and actions end it uninterrupted.
    while let Some(s) = step(&mut gb, &mut players, &mut rng).await {
        played.push(s);
        assert!(played.len() < 20_000, "the game does not end");
    }
    let (result, rec) = final_result(&mut gb, &game).await;
    assert_eq!(result.reason, pb::GameEndReason::Target as i32);
    let record = engine::GameRecord::from_json(&rec.record_json).unwrap();
    record_is_what_was_played(&record, &result, &players, &played);
    assert!(b.logs().contains("game taken over"), "{}", b.logs());

    // A, started again, is a new server: the finished game is read back as any server reads it.
    let a2 = Proc::start_in_cluster(&db, &dir.path().join("a2.log"), &lease).await;
    let mut ga2 = GameServiceClient::new(a2.channel().await);
    let (again, _) = final_result(&mut ga2, &game).await;
    assert_eq!(again, result);
}

/// A server stopped gracefully (SIGTERM) gives its lease up once its last write is durable:
/// with a lease of 30 s, another server takes its game over within a few seconds (at the first
/// call for it there), not once the lease ran out, and the game ends as an uninterrupted one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_stopped_gracefully_hands_its_games_over_at_once() {
    let Some(pg) = gin_server::storage::pg_cluster::for_test() else { return };
    let db = PathBuf::from(pg.create_database("cluster").unwrap());
    let dir = tempfile::tempdir().unwrap();
    let lease = ["--lease-ms", "30000"];
    let mut a = Proc::start_in_cluster(&db, &dir.path().join("a.log"), &lease).await;
    let b = Proc::start_in_cluster(&db, &dir.path().join("b.log"), &lease).await;
    let (game, mut players) = new_game_req(
        &a.channel().await,
        pb::CreateGameRequest { rules: Some(preset("standard")), seed: SEED, ..Default::default() },
    )
    .await;
    let mut ga = GameServiceClient::new(a.channel().await);
    let mut gb = GameServiceClient::new(b.channel().await);
    let mut rng = Rng(SEED);
    let mut played: Vec<(usize, pb::LegalAction, u64)> = Vec::new();
    for _ in 0..20 {
        played.push(step(&mut ga, &mut players, &mut rng).await.expect("not over yet"));
    }
    let acked = played.last().unwrap().2;
    // B forwards to A while A holds the game.
    let via_b = gb.get_game(pb::GetGameRequest { game_id: game.clone() }).await.unwrap().into_inner();
    assert_eq!(via_b.snapshot.unwrap().seq, acked);

    a.send_signal("-TERM");
    let stopped = Instant::now();
    let status = a.exited_within(Duration::from_secs(10));
    assert!(status.is_some_and(|s| s.success()), "A did not stop gracefully: {status:?}\n{}", a.logs());
    assert!(a.logs().contains("lease given up"), "{}", a.logs());

    // B takes the game over far sooner than the 30 s lease: the same seq, the same seats.
    let taken = loop {
        match gb.get_game(pb::GetGameRequest { game_id: game.clone() }).await {
            Ok(r) => break r.into_inner().snapshot.expect("a snapshot"),
            Err(e) if e.code() == Code::Unavailable => {
                assert!(
                    stopped.elapsed() < Duration::from_secs(5),
                    "not taken over 5 s after a graceful stop (the lease is 30 s): {e:?}\n{}",
                    b.logs()
                );
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(e) => panic!("{e:?}\n{}", b.logs()),
        }
    };
    println!("taken over {:?} after SIGTERM", stopped.elapsed());
    assert_eq!(taken.seq, acked, "every acknowledged action, nothing else");
    check_restored(&mut gb, &game, &players, acked).await;
    assert!(b.logs().contains("game taken over"), "{}", b.logs());

    // The game goes on at B to its end, as the same seed and actions end it uninterrupted.
    while let Some(s) = step(&mut gb, &mut players, &mut rng).await {
        played.push(s);
        assert!(played.len() < 20_000, "the game does not end");
    }
    let (result, rec) = final_result(&mut gb, &game).await;
    assert_eq!(result.reason, pb::GameEndReason::Target as i32);
    let record = engine::GameRecord::from_json(&rec.record_json).unwrap();
    record_is_what_was_played(&record, &result, &players, &played);
}

/// Issue 19: one lobby over the servers of a cluster. Two callers asking quick match at two
/// different servers are paired (one queue: the oldest server's, where the game is made);
/// an open game and a tournament made at one server are listed by the other, and read
/// through either.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quick_match_and_the_lists_span_the_servers() {
    use gin_proto::v1::lobby_service_client::LobbyServiceClient;
    use gin_proto::v1::tournament_service_client::TournamentServiceClient;
    let Some(pg) = gin_server::storage::pg_cluster::for_test() else { return };
    let db = PathBuf::from(pg.create_database("lobby").unwrap());
    let dir = tempfile::tempdir().unwrap();
    let lease = ["--lease-ms", "1500"];
    let a = Proc::start_in_cluster(&db, &dir.path().join("a.log"), &lease).await;
    let b = Proc::start_in_cluster(&db, &dir.path().join("b.log"), &lease).await;
    let (ca, cb) = (a.channel().await, b.channel().await);

    // Quick match: one caller at each server, paired in one game.
    let ask = |ch: tonic::transport::Channel, name: &str| {
        let req = pb::QuickMatchRequest {
            rules: Some(preset("standard")),
            name: name.into(),
            ..Default::default()
        };
        async move { LobbyServiceClient::new(ch).quick_match(req).await.map(|r| r.into_inner()) }
    };
    let (x, y) = tokio::time::timeout(Duration::from_secs(20), async {
        tokio::join!(ask(ca.clone(), "ann"), ask(cb.clone(), "ben"))
    })
    .await
    .expect("paired across the servers");
    let (x, y) = (x.unwrap(), y.unwrap());
    assert_eq!(x.game_id, y.game_id, "one game for both");
    let mut seats = [x.seat, y.seat];
    seats.sort();
    assert_eq!(seats, [0, 1]);
    // Two callers at B (the younger server: their calls go to A over B's one connection to
    // it) are two callers there, not one: paired too.
    let (cb2, cb3) = (b.channel().await, b.channel().await);
    let (v, w) =
        tokio::time::timeout(Duration::from_secs(20), async { tokio::join!(ask(cb2, "cy"), ask(cb3, "di")) })
            .await
            .expect("paired though both came through B");
    assert_eq!(v.unwrap().game_id, w.unwrap().game_id);
    // Both servers serve it (one forwards to the other).
    for ch in [&ca, &cb] {
        let snap = get_game(&mut GameServiceClient::new(ch.clone()), &x.game_id, "").await;
        let names: Vec<_> = snap.seats.iter().map(|s| s.name.as_str()).collect();
        assert!(names.contains(&"ann") && names.contains(&"ben"), "{names:?}");
    }

    // An open game made at A and a tournament made at B: each listed by the other server.
    let open = LobbyServiceClient::new(ca.clone())
        .create_game(pb::CreateGameRequest {
            rules: Some(preset("standard")),
            name: "carl".into(),
            join: true,
            seat: Some(0),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .game_id;
    let listed = LobbyServiceClient::new(cb.clone())
        .list_games(pb::ListGamesRequest::default())
        .await
        .unwrap()
        .into_inner()
        .games;
    assert_eq!(
        listed.iter().filter(|g| g.game_id == open).count(),
        1,
        "{listed:?}\n{}\n{}",
        a.logs(),
        b.logs()
    );
    let spec =
        pb::TournamentSpec { name: "at B".into(), entrants: 2, games_per_pairing: 2, ..Default::default() };
    let t = TournamentServiceClient::new(cb.clone())
        .create_tournament(pb::CreateTournamentRequest { spec: Some(spec) })
        .await
        .unwrap()
        .into_inner();
    for ch in [&ca, &cb] {
        let list = TournamentServiceClient::new(ch.clone())
            .list_tournaments(pb::ListTournamentsRequest::default())
            .await
            .unwrap()
            .into_inner()
            .tournaments;
        assert_eq!(
            list.iter().filter(|s| s.tournament_id == t.tournament_id).count(),
            1,
            "{list:?}\n{}\n{}",
            a.logs(),
            b.logs()
        );
        assert!(list[0].created_unix_ms > 0);
        // And read through either server.
        let st = TournamentServiceClient::new(ch.clone())
            .get_tournament(pb::GetTournamentRequest { tournament_id: t.tournament_id.clone() })
            .await
            .unwrap()
            .into_inner()
            .state
            .unwrap();
        assert_eq!(st.spec.unwrap().name, "at B");
    }
}

/// The script a person runs to try a cluster (`examples/cluster/local-cluster.sh`), started
/// for a test in a temp directory with a lease of 1.5 s; stopped (SIGTERM: it stops
/// everything it started) when dropped.
struct LocalCluster {
    child: std::process::Child,
    /// Holds the script's output (`script.log`), and its directory `c` when given.
    dir: tempfile::TempDir,
    /// The script's directory (`--dir`, or the one it made and printed).
    cluster_dir: PathBuf,
    port: u16,
}

impl LocalCluster {
    /// `None` (the test skips, saying why) where PostgreSQL or HAProxy is not installed.
    async fn start(extra: &[&str]) -> Option<LocalCluster> {
        LocalCluster::start_with(extra, true).await
    }

    /// [`LocalCluster::start`]; without `--dir` unless `dir`: the script makes its own
    /// directory (and deletes it when stopped), as when a person runs it.
    async fn start_with(extra: &[&str], dir_given: bool) -> Option<LocalCluster> {
        use std::process::{Command, Stdio};
        let pg = gin_server::storage::pg_cluster::for_test()?;
        drop(pg);
        let haproxy = Command::new("haproxy").arg("-v").output().is_ok_and(|o| o.status.success());
        if !haproxy {
            assert!(
                std::env::var("GIN_REQUIRE_POSTGRES").as_deref() != Ok("1"),
                "GIN_REQUIRE_POSTGRES=1 but HAProxy is not installed"
            );
            eprintln!("skipped: HAProxy is not installed (Debian: apt-get install haproxy)");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let port = crate::common::free_port();
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/cluster/local-cluster.sh");
        let out = std::fs::File::create(dir.path().join("script.log")).unwrap();
        let given = dir.path().join("c");
        let child = Command::new("bash")
            .arg(script)
            .args(if dir_given { vec!["--dir", given.to_str().unwrap()] } else { vec![] })
            .args(["--port", &port.to_string()])
            .args(["--lease-ms", "1500"])
            .args(extra)
            .env("GIN_SERVER_BIN", env!("CARGO_BIN_EXE_gin-server"))
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .unwrap();
        let mut c = LocalCluster { child, dir, cluster_dir: given, port };
        let t = Instant::now();
        loop {
            // "proxy: http://… (directory D)", once everything answers.
            let log = c.log();
            if let Some(at) = log.find("(directory ") {
                let rest = &log[at + "(directory ".len()..];
                c.cluster_dir = PathBuf::from(&rest[..rest.find(')').unwrap()]);
                if c.file("ready").exists() {
                    break;
                }
            }
            assert!(c.child.try_wait().unwrap().is_none(), "the script stopped:\n{}", c.log());
            assert!(t.elapsed() < Duration::from_secs(60), "the cluster did not come up:\n{}", c.log());
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Some(c)
    }

    fn file(&self, name: &str) -> PathBuf {
        self.cluster_dir.join(name)
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("script.log")).unwrap_or_default()
    }

    /// A connection to the proxy.
    async fn channel(&self) -> tonic::transport::Channel {
        tonic::transport::Channel::from_shared(format!("http://127.0.0.1:{}", self.port))
            .unwrap()
            .connect()
            .await
            .unwrap()
    }

    /// Kills server `i` (1, 2, 3) with SIGKILL.
    fn kill(&self, i: usize) {
        let pid = std::fs::read_to_string(self.file(&format!("server-{i}.pid"))).unwrap();
        let killed = std::process::Command::new("kill").args(["-9", pid.trim()]).status().unwrap();
        assert!(killed.success());
    }

    /// How many times the servers' logs (every run of each) say `what`.
    fn said(&self, what: &str) -> usize {
        (1..=3)
            .map(|i| {
                std::fs::read_to_string(self.file(&format!("server-{i}.log")))
                    .unwrap_or_default()
                    .matches(what)
                    .count()
            })
            .sum()
    }
}

/// The first of `n` consecutive ports free on 127.0.0.1 now.
impl Drop for LocalCluster {
    fn drop(&mut self) {
        let _ = std::process::Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
        let _ = self.child.wait();
    }
}

/// The script a person runs to try a cluster (`examples/cluster/local-cluster.sh`): a
/// private PostgreSQL, three servers, HAProxy in front. Clients of the SDK play games against
/// house bots through the proxy while two of the three servers are killed with SIGKILL, one
/// after the other: every game ends, and its record (read through the proxy) replays to the
/// result its player saw.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_local_cluster_plays_through_the_proxy_while_servers_are_killed() {
    use crate::house::{check_result, opts};
    use gin_proto::v1::lobby_service_client::LobbyServiceClient;
    let Some(cluster) = LocalCluster::start(&[]).await else { return };
    let ch = cluster.channel().await;
    let client = gin_sdk::Client::from_channel(ch.clone(), opts());
    // Six players, each playing games back to back for six seconds: the kills fall in play.
    let deadline = Instant::now() + Duration::from_secs(6);
    let mut players = Vec::new();
    for p in 0..6u64 {
        let client = client.clone();
        players.push(tokio::spawn(async move {
            let mut ended = Vec::new();
            for g in 0.. {
                if Instant::now() > deadline && g >= 2 {
                    break;
                }
                let seated = client
                    .create_game(pb::CreateGameRequest {
                        rules: Some(preset("standard")),
                        house_bot: "simple".into(),
                        seed: p * 1000 + g,
                        ..Default::default()
                    })
                    .await
                    .expect("a game is created through the proxy");
                let mut me = gin_strategies::simple::SimpleStrategy::new(p);
                let o = client.play(&seated.game_id, &seated.token, &mut me).await.expect("the game ends");
                ended.push((seated.game_id, o.result));
            }
            ended
        }));
    }
    for i in [1, 2] {
        tokio::time::sleep(Duration::from_millis(1500)).await;
        cluster.kill(i);
    }
    let mut gc = GameServiceClient::new(ch);
    let mut games = 0;
    for p in players {
        for (id, result) in p.await.unwrap() {
            check_result(&mut gc, &id, &result).await;
            games += 1;
        }
    }
    assert!(games >= 12, "{games} games");
    let taken = cluster.said("game taken over");
    println!("{games} games through the proxy; {taken} taken over from killed servers");
    assert!(taken > 0, "no game was in play on a killed server");

    // The last server killed too: the proxy answers UNAVAILABLE with retry-after-ms (no
    // server took the call: nothing was done, so even CreateGame may be sent again).
    // Before the health checks saw it, HAProxy refuses the call's HTTP/2 stream
    // (REFUSED_STREAM: nothing of it processed); after, it answers with its 503.
    cluster.kill(3);
    let create = || async {
        LobbyServiceClient::new(cluster.channel().await)
            .create_game(pb::CreateGameRequest {
                rules: Some(preset("standard")),
                house_bot: "simple".into(),
                join: true,
                ..Default::default()
            })
            .await
            .unwrap_err()
    };
    let refused = create().await;
    assert!(gin_sdk::nothing_done(&refused), "{refused:?}");
    tokio::time::sleep(Duration::from_millis(1500)).await; // 2 checks 500 ms apart
    let refused = create().await;
    assert_eq!(refused.code(), Code::Unavailable, "{refused:?}");
    assert!(refused.metadata().get("retry-after-ms").is_some(), "{refused:?}");
    assert!(gin_sdk::nothing_done(&refused), "{refused:?}");
}

/// The local cluster's proxy sends each call about a game to the server that created it
/// (its route tag starts the game's id; the proxy reads the id in the request), so that a
/// server forwards nothing while no server dies: games against house bots played through the
/// proxy by SDK clients, created on each of the three servers in turn (round robin), and
/// not one call forwarded (`gin_forwarded_calls_total` of every server; two calls in three
/// would be without the routing), while every server played some.
///
/// Started as a person starts it (issue 36): with no `--dir` (as root, which CI is, the
/// directory `mktemp` made is 0700 and root's, and PostgreSQL runs as `postgres`), with the
/// servers', their metrics' and PostgreSQL's ports chosen, and not one warning from the
/// script, PostgreSQL or HAProxy.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_proxy_sends_each_game_s_calls_to_its_server() {
    use crate::house::{check_result, opts};
    use crate::metrics::Scrape;
    let [servers, metrics, pg] = [3, 3, 1].map(crate::common::free_ports);
    let ports = [
        "--server-port".to_string(),
        servers.to_string(),
        "--metrics-port".into(),
        metrics.to_string(),
        "--pg-port".into(),
        pg.to_string(),
    ];
    let ports: Vec<&str> = ports.iter().map(String::as_str).collect();
    let Some(cluster) = LocalCluster::start_with(&ports, false).await else { return };
    for i in 1..=3u16 {
        let addr = |f: &str| std::fs::read_to_string(cluster.file(&format!("server-{i}.{f}"))).unwrap();
        assert_eq!(addr("addr").trim(), format!("127.0.0.1:{}", servers + i - 1));
        assert_eq!(addr("metrics").trim(), format!("127.0.0.1:{}", metrics + i - 1));
    }
    let db = std::fs::read_to_string(cluster.file("db-url")).unwrap();
    assert!(db.contains(&format!("127.0.0.1:{pg}/")), "{db}");
    let haproxy = std::fs::read_to_string(cluster.file("haproxy.log")).unwrap();
    for (what, text) in [("the script", cluster.log()), ("HAProxy", haproxy)] {
        let lower = text.to_lowercase();
        assert!(!lower.contains("warning") && !lower.contains("alert"), "{what} warns:\n{text}");
    }
    let ch = cluster.channel().await;
    let client = gin_sdk::Client::from_channel(ch.clone(), opts());
    let mut gc = GameServiceClient::new(ch);
    let mut tags = Vec::new();
    for g in 0..6u64 {
        let seated = client
            .create_game(pb::CreateGameRequest {
                rules: Some(preset("standard")),
                house_bot: "simple".into(),
                seed: 77 + g,
                ..Default::default()
            })
            .await
            .expect("a game is created through the proxy");
        let (tag, _) = seated.game_id.split_once('-').expect("a cluster server's id has its route tag");
        tags.push(tag.to_string());
        let mut me = gin_strategies::simple::SimpleStrategy::new(g);
        let o = client.play(&seated.game_id, &seated.token, &mut me).await.expect("the game ends");
        check_result(&mut gc, &seated.game_id, &o.result).await;
    }
    tags.sort();
    tags.dedup();
    assert_eq!(tags, ["s1", "s2", "s3"], "games created on every server");
    for i in 1..=3 {
        let addr = std::fs::read_to_string(cluster.file(&format!("server-{i}.metrics"))).unwrap();
        let m = Scrape::of(addr.trim().parse().unwrap()).await;
        assert!(m.get("gin_actions_total") > 0.0, "server {i} played");
        assert_eq!(m.get("gin_forwarded_calls_total"), 0.0, "server {i} forwarded calls");
    }
}

/// In a cluster a call names its caller (`x-gin-client`) only from a trusted proxy
/// (`--trusted-proxies`, loopback by default: the proxy and the servers on this machine).
/// From anywhere else the name is ignored, and the caller is the TCP peer: a client that
/// reaches a server directly cannot pass for other addresses to evade the quota of
/// unfinished games per caller (one here).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_a_trusted_proxy_names_the_caller() {
    use gin_proto::v1::lobby_service_client::LobbyServiceClient;
    let Some(pg) = gin_server::storage::pg_cluster::for_test() else { return };
    let db = PathBuf::from(pg.create_database("trusted").unwrap());
    let dir = tempfile::tempdir().unwrap();
    let quota = ["--max-open-games-per-caller", "1"];
    let trusting = Proc::start_in_cluster(&db, &dir.path().join("t.log"), &quota).await;
    let elsewhere = [&quota[..], &["--trusted-proxies", "192.0.2.0/24,2001:db8::1"]].concat();
    let wary = Proc::start_in_cluster(&db, &dir.path().join("w.log"), &elsewhere).await;
    // Two open games, each asked for as another caller.
    let open_two = |ch: tonic::transport::Channel| async move {
        let mut lobby = LobbyServiceClient::new(ch);
        let mut codes = Vec::new();
        for caller in ["203.0.113.1:1000", "203.0.113.2:1000"] {
            let mut req = tonic::Request::new(pb::CreateGameRequest {
                rules: Some(preset("standard")),
                name: "eve".into(),
                join: true,
                ..Default::default()
            });
            req.metadata_mut().insert(gin_server::cluster::CLIENT, caller.parse().unwrap());
            codes.push(lobby.create_game(req).await.map(drop).map_err(|s| s.code()));
        }
        codes
    };
    assert_eq!(open_two(trusting.channel().await).await, [Ok(()), Ok(())], "two callers: one game each");
    assert_eq!(
        open_two(wary.channel().await).await,
        [Ok(()), Err(Code::ResourceExhausted)],
        "one caller, loopback, whatever it names: its one game\n{}",
        wary.logs()
    );
}

/// Issue 19: a tournament played through the proxy over three servers (the script, with
/// `--respawn`: a killed server is started again, as a new member of the cluster) by a
/// `gin-bot tournament join` process and an SDK entrant, while the server driving it is
/// killed with SIGKILL three times. Each time
/// another server takes the tournament over with its games (one claim), drives it on, and
/// the entrants re-enter through the proxy. The tournament completes: every game booked with
/// a result, each game's record (read through the proxy) replays to the result the SDK's
/// player saw at its end, and its totals are those gin-bot printed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_through_the_proxy_completes_while_its_server_is_killed_three_times() {
    use crate::house::{check_result, opts};
    use gin_proto::v1::tournament_service_client::TournamentServiceClient;
    use gin_sdk::entrant::{EntrantEvent, Entry, play_tournament};
    use std::sync::{Arc, Mutex};
    let gin_bot = PathBuf::from(env!("CARGO_BIN_EXE_gin-server")).with_file_name("gin-bot");
    if !gin_bot.exists() {
        assert!(
            std::env::var("GIN_REQUIRE_POSTGRES").as_deref() != Ok("1"),
            "{} is missing: `cargo test --workspace` builds it",
            gin_bot.display()
        );
        eprintln!("skipped: {} is missing (`cargo test --workspace` builds it)", gin_bot.display());
        return;
    }
    let Some(cluster) = LocalCluster::start(&["--respawn"]).await else { return };
    let ch = cluster.channel().await;
    let client = gin_sdk::Client::from_channel(ch.clone(), opts());
    let mut tc = TournamentServiceClient::new(ch.clone());
    let spec = pb::TournamentSpec {
        name: "across servers".into(),
        format: pb::TournamentFormat::RoundRobin as i32,
        entrants: 2,
        games_per_pairing: 60,
        duplicate: true,
        rules: Some(preset("standard")),
        parallel: 4,
        ..Default::default()
    };
    let created =
        tc.create_tournament(pb::CreateTournamentRequest { spec: Some(spec) }).await.unwrap().into_inner();
    let tid = created.tournament_id.clone();
    // One entrant is a `gin-bot tournament join` process, as a person would run it; the other
    // plays in this test with the SDK (the code under gin-bot), its every event kept.
    let bot = std::process::Command::new(&gin_bot)
        .args(["tournament", "join", "--server", &format!("http://127.0.0.1:{}", cluster.port)])
        .args([tid.as_str(), "--strategy", "simple", "--name", "gin-bot"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let bot = tokio::task::spawn_blocking(move || bot.wait_with_output());
    let events: Arc<Mutex<Vec<EntrantEvent>>> = Arc::default();
    let sdk = {
        let (client, events) = (client.clone(), events.clone());
        let entry =
            Entry { tournament_id: tid.clone(), name: "sdk".into(), token: None, accept_fixed_deals: false };
        tokio::spawn(async move {
            play_tournament(&client, entry, "random", 7, |e| events.lock().unwrap().push(e)).await
        })
    };

    // The server holding the tournament, from PostgreSQL: its address, once its lease holds.
    let db = std::fs::read_to_string(cluster.file("db-url")).unwrap().trim().to_string();
    let owner = move |tid: String| {
        let db = db.clone();
        gin_server::storage::pg_cluster::off_runtime(move || {
            let mut c = ::postgres::Client::connect(&db, ::postgres::NoTls).unwrap();
            c.query_opt(
                "SELECT s.addr FROM tournaments AS t JOIN servers AS s ON s.id = t.owner \
                 WHERE t.id = $1 AND s.lease_until > now()",
                &[&tid],
            )
            .unwrap()
            .map(|r| r.get::<_, String>(0))
        })
    };
    let server_at = |addr: &str| {
        (1..=3)
            .find(|i| {
                std::fs::read_to_string(cluster.file(&format!("server-{i}.addr"))).unwrap().trim() == addr
            })
            .expect("a server of the cluster")
    };
    let state = |tc: &mut TournamentServiceClient<tonic::transport::Channel>| {
        let mut tc = tc.clone();
        let tid = tid.clone();
        async move {
            loop {
                match tc.get_tournament(pb::GetTournamentRequest { tournament_id: tid.clone() }).await {
                    Ok(r) => return r.into_inner().state.unwrap(),
                    Err(e) if e.code() == Code::Unavailable => {
                        tokio::time::sleep(Duration::from_millis(100)).await
                    }
                    Err(e) => panic!("{e:?}"),
                }
            }
        }
    };
    let total = created.total_games;
    assert_eq!(total, 60);
    let t0 = Instant::now();
    let mut killed = Vec::new();
    for k in 1..=3u32 {
        // Games went on since the last kill (the tournament was taken over), and some are left.
        loop {
            let st = state(&mut tc).await;
            assert!(st.games_done < total, "the tournament ended before kill {k}: make it longer");
            if st.games_done >= k * total / 5 {
                break;
            }
            assert!(
                t0.elapsed() < Duration::from_secs(120),
                "stuck at {} games:\n{}",
                st.games_done,
                cluster.log()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let addr = loop {
            if let Some(a) = owner(tid.clone()) {
                break a;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        let i = server_at(&addr);
        cluster.kill(i);
        killed.push(i);
        println!("kill {k}: server {i} ({addr}) after {:?}", t0.elapsed());
    }

    let standings =
        tokio::time::timeout(Duration::from_secs(180), sdk).await.expect("the entrant ends").unwrap();
    standings.expect("the entrant plays to the final standings");
    let out =
        tokio::time::timeout(Duration::from_secs(60), bot).await.expect("gin-bot ends").unwrap().unwrap();
    let bot_out = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{bot_out}\n{}", String::from_utf8_lossy(&out.stderr));
    let st = state(&mut tc).await;
    assert_eq!(st.status, pb::TournamentStatus::Finished as i32);
    assert_eq!(st.games_done, total);
    let moved = cluster.said("tournament taken over");
    assert!(moved >= 3, "taken over {moved} times (killed {killed:?})");

    // Every game the entrants saw end: its record replays to what the player saw.
    let mut gc = GameServiceClient::new(ch.clone());
    let seen: Vec<(String, pb::GameResult)> = events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            EntrantEvent::Played(o) => Some((o.game_id.clone(), o.result.clone())),
            _ => None,
        })
        .collect();
    for (id, result) in &seen {
        check_result(&mut gc, id, result).await;
    }
    // gin-bot's line per game ("<game> seat S vs NAME (house bot): won A-B (…)"; a
    // tournament's seats are marked bots): its totals are the record's.
    let mut bot_games = 0;
    for line in bot_out.lines().filter(|l| l.contains(" seat ") && l.contains(" vs sdk")) {
        let (game, rest) = line.split_once(" seat ").unwrap();
        let seat: usize = rest[..1].parse().unwrap();
        let score = rest.split(": ").nth(1).unwrap().split(' ').nth(1).unwrap();
        let (mine, theirs) = score.split_once('-').unwrap();
        let rec = gc.get_record(pb::GetRecordRequest { game_id: game.into() }).await.unwrap().into_inner();
        let totals = rec.result.expect("a result").totals;
        assert_eq!(
            (totals[seat].to_string(), totals[1 - seat].to_string()),
            (mine.into(), theirs.into()),
            "{line}"
        );
        bot_games += 1;
    }
    assert_eq!(bot_games, total as usize, "gin-bot reports every game once:\n{bot_out}");
    // And every game of the tournament has its result booked, each the record's.
    let export = tc
        .export_tournament(pb::ExportTournamentRequest {
            tournament_id: tid.clone(),
            format: pb::ExportFormat::Json as i32,
        })
        .await
        .unwrap()
        .into_inner();
    let v: serde_json::Value = serde_json::from_str(&export.content).unwrap();
    let games = v["games"].as_array().unwrap();
    assert_eq!(games.len(), total as usize);
    for g in games {
        let id = g["game_id"].as_str().unwrap();
        let rec = gc.get_record(pb::GetRecordRequest { game_id: id.into() }).await.unwrap().into_inner();
        let result = rec.result.expect("a result");
        let totals: Vec<u64> = g["totals"].as_array().unwrap().iter().map(|t| t.as_u64().unwrap()).collect();
        assert_eq!(totals, result.totals.iter().map(|&t| t as u64).collect::<Vec<_>>(), "{g}");
    }
    println!(
        "{} games in {:?}; killed {killed:?}; taken over {moved} times; {} games seen ended by the entrants",
        total,
        t0.elapsed(),
        seen.len()
    );
}

/// Issue 36, item 1, across servers: a finished game of a tournament that another server
/// holds (and drives) is read back by this one from PostgreSQL; it asks the store whether the
/// tournament is over, and keeps the game sealed while it is not: no record, no deck.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_game_read_on_another_server_stays_sealed() {
    let Some(pg) = gin_server::storage::pg_cluster::for_test() else { return };
    let db = PathBuf::from(pg.create_database("sealed").unwrap());
    let dir = tempfile::tempdir().unwrap();
    let a = Proc::start_in_cluster(&db, &dir.path().join("a.log"), &[]).await;
    let b = Proc::start_in_cluster(&db, &dir.path().join("b.log"), &[]).await;
    let ch = a.channel().await;
    let spec = pb::TournamentSpec {
        entrants: 2,
        games_per_pairing: 2,
        duplicate: true,
        clock: Some(pb::TurnClock { turn_millis: 100, policy: pb::ClockPolicy::AutoPlay as i32 }),
        ..Default::default()
    };
    let tid = create_tournament(&ch, spec).await;
    let mut streams = enter_tournament(&ch, &tid, &["a", "b"]).await;
    let (game, token) = loop {
        match streams[0].message().await.unwrap().unwrap().kind {
            Some(pb::join_tournament_response::Kind::Assignment(a)) => break (a.game_id, a.seat_token),
            _ => continue,
        }
    };
    // A hand ends (the clock plays), then the game is resigned: over, its pair's other game
    // still to play.
    let mut ga = GameServiceClient::new(ch.clone());
    let mut live = watch(&mut ga, &game, "", 0).await;
    loop {
        let m =
            tokio::time::timeout(Duration::from_secs(60), live.message()).await.unwrap().unwrap().unwrap();
        if event(&m).is_some_and(|e| matches!(e.kind, Some(pb::game_event::Kind::HandEnded(_)))) {
            break;
        }
    }
    for _ in 0..200 {
        let seq = get_game(&mut ga, &game, &token).await.seq;
        let r =
            ga.resign(authed(pb::ResignRequest { game_id: game.clone(), expected_seq: seq }, &token)).await;
        match r {
            Err(e) if e.code() == Code::Aborted => continue,
            r => {
                r.unwrap();
                break;
            }
        }
    }
    let mut gb = GameServiceClient::new(b.channel().await);
    for gc in [&mut gb, &mut ga] {
        let e = gc.get_record(pb::GetRecordRequest { game_id: game.clone() }).await.unwrap_err();
        assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}\n{}", b.logs());
        let snap = get_game(gc, &game, "").await;
        assert!(snap.result.is_some() && !snap.hands.is_empty());
        for h in &snap.hands {
            let r = h.reveal.as_ref().unwrap();
            assert!(r.deck.is_empty() && r.salt.is_empty() && r.commitment.len() == 32, "{r:?}");
        }
    }
    drop(streams);
}

/// Issue 36: a server frozen (`SIGSTOP`) past its lease, then continued (`SIGCONT`), holds
/// in memory a game that another server took over and played on meanwhile. The calls it
/// was holding (sent while it was frozen, answered once it runs again, before it finds its
/// lease gone and stops) are refused `UNAVAILABLE` with `retry-after-ms` (nothing done),
/// not served from its stale copy: a watcher resuming after the new owner's last seq was
/// refused `OUT_OF_RANGE` there (the seq is past the stale copy's last), a read got an old
/// snapshot, an action and a new game `INTERNAL` (their writes fenced off). The game goes on
/// at the new owner, its seq from where it was.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_continued_past_its_lease_serves_nothing_stale() {
    use gin_proto::v1::lobby_service_client::LobbyServiceClient;
    let Some(pg) = gin_server::storage::pg_cluster::for_test() else { return };
    let db = PathBuf::from(pg.create_database("frozen").unwrap());
    let dir = tempfile::tempdir().unwrap();
    let lease = ["--lease-ms", "1000"];
    let mut a = Proc::start_in_cluster(&db, &dir.path().join("a.log"), &lease).await;
    let b = Proc::start_in_cluster(&db, &dir.path().join("b.log"), &lease).await;
    let ca = a.channel().await;
    let (game, mut players) = new_game_req(
        &ca,
        pb::CreateGameRequest { rules: Some(preset("standard")), seed: SEED, ..Default::default() },
    )
    .await;
    let mut ga = GameServiceClient::new(ca.clone());
    let mut rng = Rng(SEED);
    for _ in 0..10 {
        step(&mut ga, &mut players, &mut rng).await.expect("not over yet");
    }
    let at_a = get_game(&mut ga, &game, "").await.seq;

    // A is frozen; B takes the game over once A's lease ran out, and plays on.
    a.send_signal("-STOP");
    let frozen = Instant::now();
    let mut gb = GameServiceClient::new(b.channel().await);
    loop {
        // (Until the claim B forwards the read to A, which does not answer.)
        let read = gb.get_game(pb::GetGameRequest { game_id: game.clone() });
        if let Ok(Ok(r)) = tokio::time::timeout(Duration::from_millis(300), read).await {
            assert_eq!(r.into_inner().snapshot.unwrap().seq, at_a, "taken over where A left it");
            break;
        }
        assert!(frozen.elapsed() < Duration::from_secs(15), "not taken over\n{}", b.logs());
    }
    for _ in 0..6 {
        step(&mut gb, &mut players, &mut rng).await.expect("not over yet");
    }
    let at_b = get_game(&mut gb, &game, "").await.seq;
    assert!(at_b > at_a);

    // Calls sent to A while it is frozen: a watcher resuming after B's last seq, a read, an
    // action at B's last seq, a new game.
    let resume = {
        let mut g = ga.clone();
        let req =
            authed(pb::WatchGameRequest { game_id: game.clone(), resume_after_seq: at_b }, &players[0].token);
        tokio::spawn(async move { g.watch_game(req).await.map(|_| "a stream".to_string()) })
    };
    let read = {
        let mut g = ga.clone();
        let req = pb::GetGameRequest { game_id: game.clone() };
        tokio::spawn(async move {
            g.get_game(req)
                .await
                .map(|r| format!("a snapshot at seq {}", r.into_inner().snapshot.unwrap().seq))
        })
    };
    let snap = get_game(&mut gb, &game, &players[0].token).await;
    let me = if snap.turn.is_some() { 0 } else { 1 };
    let action = {
        let mut g = ga.clone();
        let p = Player {
            seat: players[me].seat,
            token: players[me].token.clone(),
            game_id: game.clone(),
            last_seq: at_b,
            messages: Vec::new(),
        };
        let turn = get_game(&mut gb, &game, &p.token).await.turn.expect("its turn");
        let a = turn.legal_actions[0].clone();
        tokio::spawn(async move { send(&mut g, &p, &a).await.map(|seq| format!("the action, at seq {seq}")) })
    };
    let create = {
        let mut l = LobbyServiceClient::new(ca.clone());
        let req = pb::CreateGameRequest {
            rules: Some(preset("standard")),
            house_bot: "simple".into(),
            join: true,
            ..Default::default()
        };
        tokio::spawn(
            async move { l.create_game(req).await.map(|r| format!("game {}", r.into_inner().game_id)) },
        )
    };
    // Frozen for twice its lease at least.
    tokio::time::sleep(
        Duration::from_millis(300).max(Duration::from_millis(2000).saturating_sub(frozen.elapsed())),
    )
    .await;
    a.send_signal("-CONT");
    let answers = [
        ("WatchGame", resume.await.unwrap()),
        ("GetGame", read.await.unwrap()),
        ("action", action.await.unwrap()),
        ("CreateGame", create.await.unwrap()),
    ];
    let seen: Vec<String> = answers
        .iter()
        .map(|(what, r)| match r {
            Ok(served) => format!("{what}: A served {served}"),
            Err(s) => format!(
                "{what}: {:?} {:?} retry-after-ms {:?}",
                s.code(),
                s.message(),
                s.metadata().get("retry-after-ms")
            ),
        })
        .collect();
    println!("B at seq {at_b}; A answered:\n{}", seen.join("\n"));
    for (what, answer) in answers {
        let s = answer.unwrap_err();
        assert_eq!(s.code(), Code::Unavailable, "{what}: {s:?}\n{seen:#?}");
        assert!(s.metadata().get("retry-after-ms").is_some(), "{what}: {s:?}");
    }
    // A finds its lease gone and stops; the game goes on at B from its seq.
    assert!(a.exited_within(Duration::from_secs(10)).is_some(), "A still runs\n{}", a.logs());
    assert!(a.logs().contains("lease is lost"), "{}", a.logs());
    assert_eq!(get_game(&mut gb, &game, "").await.seq, at_b, "nothing applied at A");
    let mut stream = watch(&mut gb, &game, &players[0].token, at_b).await;
    step(&mut gb, &mut players, &mut rng).await.expect("not over yet");
    let msg =
        tokio::time::timeout(Duration::from_secs(10), stream.message()).await.unwrap().unwrap().unwrap();
    let Some(pb::watch_game_response::Kind::Event(e)) = msg.kind else { panic!("{msg:?}") };
    assert_eq!(e.seq, at_b + 1, "resumed at B: the next seq");
}

/// Issue 36: a server frozen (`SIGSTOP`) for twice its lease, then continued (`SIGCONT`), in
/// the local cluster (the script, with `--respawn`, as an operator runs it). Meanwhile its
/// lease ran out and another server took its games over; continued, it finds what it holds
/// in memory stale and its writes fenced off: it answers the calls it was holding, and those
/// that arrive before it stops, `UNAVAILABLE` with `retry-after-ms` (nothing was done), not
/// `INTERNAL`, and serves nothing from memory (a stream resumed there would have been
/// refused `OUT_OF_RANGE`). Every client retries and resumes elsewhere: SDK players creating
/// games against house bots back to back, a `gin-bot` playing house bots and two `gin-bot`s
/// playing each other by quick match (the frozen server is the oldest: the lobby's leader).
/// Every game ends, every `gin-bot` exits 0, and each SDK game's record replays to the
/// result its player saw.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_frozen_past_its_lease_strands_no_game() {
    use crate::house::{check_result, opts};
    let gin_bot = PathBuf::from(env!("CARGO_BIN_EXE_gin-server")).with_file_name("gin-bot");
    if !gin_bot.exists() {
        assert!(
            std::env::var("GIN_REQUIRE_POSTGRES").as_deref() != Ok("1"),
            "{} is missing: `cargo test --workspace` builds it",
            gin_bot.display()
        );
        eprintln!("skipped: {} is missing (`cargo test --workspace` builds it)", gin_bot.display());
        return;
    }
    let Some(cluster) = LocalCluster::start(&["--respawn"]).await else { return };
    let url = format!("http://127.0.0.1:{}", cluster.port);
    let ch = cluster.channel().await;
    let client = gin_sdk::Client::from_channel(ch.clone(), opts());
    let bot = |args: &[&str]| {
        let child = std::process::Command::new(&gin_bot)
            .args(["play", "--server", &url])
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
    };
    let bots = [
        bot(&["--vs-bot", "simple", "--games", "6", "--parallel", "3", "--name", "vs-house"]),
        bot(&["--games", "4", "--parallel", "2", "--name", "qa"]),
        bot(&["--games", "4", "--parallel", "2", "--name", "qb"]),
    ];
    // Four SDK players, each playing games back to back until well after the freeze.
    let deadline = Instant::now() + Duration::from_secs(7);
    let mut players = Vec::new();
    for p in 0..4u64 {
        let client = client.clone();
        players.push(tokio::spawn(async move {
            let mut ended = Vec::new();
            for g in 0.. {
                if Instant::now() > deadline && g >= 2 {
                    break;
                }
                let seated = client
                    .create_game(pb::CreateGameRequest {
                        rules: Some(preset("standard")),
                        house_bot: "simple".into(),
                        seed: 500 + p * 1000 + g,
                        ..Default::default()
                    })
                    .await
                    .expect("a game is created through the proxy");
                let mut me = gin_strategies::simple::SimpleStrategy::new(p);
                let o = client.play(&seated.game_id, &seated.token, &mut me).await.expect("the game ends");
                ended.push((seated.game_id, o.result));
            }
            ended
        }));
    }

    // Server 1 (the oldest: the lobby's leader) is frozen for twice its lease (1.5 s), then
    // continued: its games were taken over meanwhile, and it stops on finding its lease gone.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let pid = std::fs::read_to_string(cluster.file("server-1.pid")).unwrap().trim().to_string();
    assert!(std::process::Command::new("kill").args(["-STOP", &pid]).status().unwrap().success());
    tokio::time::sleep(Duration::from_millis(3000)).await;
    assert!(std::process::Command::new("kill").args(["-CONT", &pid]).status().unwrap().success());

    let mut gc = GameServiceClient::new(ch);
    let mut games = 0;
    for p in players {
        let ended =
            tokio::time::timeout(Duration::from_secs(120), p).await.expect("every game ends").unwrap();
        for (id, result) in ended {
            check_result(&mut gc, &id, &result).await;
            games += 1;
        }
    }
    for b in bots {
        let out = tokio::time::timeout(Duration::from_secs(120), b).await.expect("gin-bot ends").unwrap();
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "gin-bot failed:\n{stdout}\n{stderr}\n{}", cluster.log());
        assert!(!stderr.contains("OUT_OF_RANGE") && !stderr.contains("Internal"), "{stderr}");
    }
    let log1 = std::fs::read_to_string(cluster.file("server-1.log")).unwrap();
    assert!(log1.contains("lease is lost"), "server 1 did not find its lease gone:\n{log1}");
    let taken = cluster.said("game taken over");
    println!(
        "{games} SDK games and 14 gin-bot games through the proxy; {taken} taken over from the frozen server"
    );
    assert!(taken > 0, "no game was in play on the frozen server");
    assert!(games >= 8, "{games} games");
}

/// Issue 36: what operators use to restart a server that lost its lease (it stops by design):
/// `examples/cluster/gin-server@.service`. Its `[Service]` restarts always; systemd finds
/// nothing to say against it (`systemd-analyze verify`, where installed, with `ExecStart`
/// pointed at the built server); and a `gin-server` started as it starts one (no flag, the
/// settings of its example `/etc/gin/server-I.env`, each address and the database made this
/// test's) joins the cluster and serves: a game created there has its route tag.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_systemd_unit_restarts_a_server_and_its_settings_start_one() {
    use gin_proto::v1::lobby_service_client::LobbyServiceClient;
    let unit_path = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/cluster/gin-server@.service");
    let unit = std::fs::read_to_string(unit_path).unwrap();
    let service = unit.split("[Service]").nth(1).expect("a [Service] section");
    let service = service.split("\n[").next().unwrap();
    let settings: Vec<&str> = service.lines().map(str::trim).collect();
    assert!(settings.contains(&"Restart=always"), "{service}");
    assert!(
        settings.contains(&"ExecStart=/usr/local/bin/gin-server"),
        "no flag: the settings are the env file's"
    );
    assert!(settings.contains(&"EnvironmentFile=/etc/gin/server-%i.env"), "{service}");
    let server = env!("CARGO_BIN_EXE_gin-server");
    if let Ok(out) = std::process::Command::new("systemd-analyze").arg("--version").output()
        && out.status.success()
    {
        let dir = tempfile::tempdir().unwrap();
        let copy = unit.replace("/usr/local/bin/gin-server", server);
        std::fs::write(dir.path().join("gin-server@.service"), copy).unwrap();
        let out = std::process::Command::new("systemd-analyze")
            .arg("verify")
            .arg(dir.path().join("gin-server@1.service"))
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && said.trim().is_empty(), "systemd-analyze verify:\n{said}");
    } else {
        eprintln!("systemd-analyze is not installed: the unit is not verified by systemd");
    }

    // The example env file in the unit's comment: `#   GIN_NAME=value   # why`.
    let example: Vec<(String, String)> = unit
        .lines()
        .filter_map(|l| l.strip_prefix('#')?.trim().split_once('='))
        .filter(|(k, _)| k.starts_with("GIN_"))
        .map(|(k, v)| (k.to_string(), v.split('#').next().unwrap().trim().to_string()))
        .collect();
    let names: Vec<&str> = example.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        names,
        ["GIN_DB", "GIN_ADDR", "GIN_CLUSTER_ADDR", "GIN_ROUTE_TAG", "GIN_METRICS_ADDR", "GIN_LEASE_MS"]
    );
    let Some(pg) = gin_server::storage::pg_cluster::for_test() else { return };
    let db = pg.create_database("unit").unwrap();
    let (port, metrics) = (crate::common::free_port(), crate::common::free_port());
    let mut cmd = std::process::Command::new(server);
    for (k, v) in &example {
        let v = match k.as_str() {
            "GIN_DB" => db.clone(),
            "GIN_ADDR" | "GIN_CLUSTER_ADDR" => format!("127.0.0.1:{port}"),
            "GIN_METRICS_ADDR" => format!("127.0.0.1:{metrics}"),
            _ => v.clone(),
        };
        cmd.env(k, v);
    }
    let dir = tempfile::tempdir().unwrap();
    let log = std::fs::File::create(dir.path().join("server.log")).unwrap();
    let mut child = cmd.stdout(log.try_clone().unwrap()).stderr(log).spawn().unwrap();
    let logs = || std::fs::read_to_string(dir.path().join("server.log")).unwrap_or_default();
    let t = Instant::now();
    while !logs().contains("gin-server listening") {
        assert!(child.try_wait().unwrap().is_none(), "gin-server stopped:\n{}", logs());
        assert!(t.elapsed() < Duration::from_secs(30), "gin-server did not start:\n{}", logs());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let ch = tonic::transport::Channel::from_shared(format!("http://127.0.0.1:{port}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let created = LobbyServiceClient::new(ch)
        .create_game(pb::CreateGameRequest {
            rules: Some(preset("standard")),
            house_bot: "simple".into(),
            join: true,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let _ = child.kill();
    let _ = child.wait();
    assert!(created.game_id.starts_with("s1-"), "{}", created.game_id);
}

/// A rated game whose server is killed in the middle is taken over by another and, ended
/// there, rated exactly once: one history line per account, the same ratings on every server
/// and after a restart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rated_game_taken_over_after_a_kill_is_rated_once() {
    use gin_proto::v1::account_service_client::AccountServiceClient;
    use gin_proto::v1::lobby_service_client::LobbyServiceClient;
    use gin_proto::v1::rating_service_client::RatingServiceClient;
    let Some(pg) = gin_server::storage::pg_cluster::for_test() else { return };
    let db = PathBuf::from(pg.create_database("rated_takeover").unwrap());
    let dir = tempfile::tempdir().unwrap();
    let lease = ["--lease-ms", "1500"];
    let mut a = Proc::start_in_cluster(&db, &dir.path().join("a.log"), &lease).await;
    let b = Proc::start_in_cluster(&db, &dir.path().join("b.log"), &lease).await;
    let ch = a.channel().await;
    let register = |name: &'static str| {
        let ch = ch.clone();
        async move {
            let r = pb::RegisterRequest {
                name: name.into(),
                kind: pb::AccountKind::Bot as i32,
                ..Default::default()
            };
            AccountServiceClient::new(ch).register(r).await.unwrap().into_inner().token
        }
    };
    let (ann, bob) = (register("ann").await, register("bob").await);
    let mut lobby = LobbyServiceClient::new(ch.clone());
    let req = pb::CreateGameRequest {
        rules: Some(preset("standard")),
        join: true,
        rated: true,
        ..Default::default()
    };
    let c = lobby.create_game(authed(req, &ann)).await.unwrap().into_inner();
    let join = pb::JoinGameRequest { game_id: c.game_id.clone(), ..Default::default() };
    let j = lobby.join_game(authed(join, &bob)).await.unwrap().into_inner();
    let game = c.game_id.clone();
    let p = |seat, token: String| Player {
        seat,
        token,
        game_id: game.clone(),
        last_seq: 0,
        messages: Vec::new(),
    };
    let mut players = [p(c.seat.unwrap(), c.seat_token), p(j.seat, j.seat_token)];
    let mut ga = GameServiceClient::new(ch.clone());
    let mut rng = Rng(SEED);
    let mut seq = 0;
    for _ in 0..12 {
        seq = step(&mut ga, &mut players, &mut rng).await.expect("not over yet").2;
    }
    a.kill();
    let killed = Instant::now();
    let mut gb = GameServiceClient::new(b.channel().await);
    loop {
        match gb.get_game(pb::GetGameRequest { game_id: game.clone() }).await {
            Ok(r) => {
                assert_eq!(r.into_inner().snapshot.unwrap().seq, seq);
                break;
            }
            Err(e) if e.code() == Code::Unavailable => {
                assert!(killed.elapsed() < Duration::from_secs(15), "not taken over in 15 s: {e:?}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("{e:?}\n{}", b.logs()),
        }
    }
    // Ann resigns at B: Bob wins the rated game.
    let resign = pb::ResignRequest { game_id: game.clone(), expected_seq: seq };
    let ann_seat = players.iter().find(|p| p.seat == c.seat.unwrap()).unwrap();
    gb.resign(authed(resign, &ann_seat.token)).await.unwrap();
    let (result, _) = final_result(&mut gb, &game).await;
    assert_eq!(result.reason, pb::GameEndReason::Resigned as i32);

    // Rated once: read at B, then at A started again (the same rows, from PostgreSQL).
    let rated = |ch: tonic::transport::Channel, name: &'static str| async move {
        let mut r = RatingServiceClient::new(ch);
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let got = r.get_player_ratings(pb::GetPlayerRatingsRequest { name: name.into() }).await.unwrap();
            if let Some(p) = got.into_inner().ratings.into_iter().find(|p| p.pool == "gin/standard") {
                let h = r
                    .get_rating_history(pb::GetRatingHistoryRequest {
                        name: name.into(),
                        pool: "gin/standard".into(),
                        limit: 10,
                        page: String::new(),
                    })
                    .await
                    .unwrap()
                    .into_inner();
                return (p, h.changes);
            }
            assert!(Instant::now() < deadline, "{name} not rated");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    let (ann_b, ann_h) = rated(b.channel().await, "ann").await;
    let (bob_b, bob_h) = rated(b.channel().await, "bob").await;
    assert_eq!((ann_b.games, bob_b.games), (1, 1));
    assert!(bob_b.rating > 1500.0 && ann_b.rating < 1500.0, "{bob_b:?} {ann_b:?}");
    assert_eq!(ann_h.len(), 1);
    assert_eq!(bob_h.len(), 1);
    assert_eq!(ann_h[0].game_id, game);
    let a2 = Proc::start_in_cluster(&db, &dir.path().join("a2.log"), &lease).await;
    let (ann_a, ann_h2) = rated(a2.channel().await, "ann").await;
    assert_eq!(ann_a, ann_b);
    assert_eq!(ann_h2, ann_h);
}
