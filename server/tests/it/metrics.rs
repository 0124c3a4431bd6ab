//! The Prometheus endpoint (`--metrics-addr`): scraped over a raw HTTP/1.1 request on a real
//! socket before, during and after games, its numbers move by exactly what was played; off
//! by default (the binary listens on one port only); an address in use stops the start.

use crate::common;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use common::*;
use gin_proto::v1 as pb;
use gin_proto::v1::lobby_service_client::LobbyServiceClient;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tonic::Code;

/// A port free a moment ago.
pub fn free_addr() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], crate::common::free_port()))
}

/// `GET path` over a fresh connection: the status line and the body. The connection is
/// retried for a few seconds: the server's task binds the metrics address when it first
/// runs, which can be after a client has already reached the gRPC listener (bound by the
/// test, so accepting at once) on a loaded machine.
async fn http_get(addr: SocketAddr, path: &str) -> (String, String) {
    let mut tries = 0;
    let mut conn = loop {
        match tokio::net::TcpStream::connect(addr).await {
            Ok(c) => break c,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused && tries < 100 => {
                tries += 1;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(e) => panic!("connect to the metrics address: {e}"),
        }
    };
    let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    conn.write_all(req.as_bytes()).await.unwrap();
    let mut raw = String::new();
    tokio::time::timeout(Duration::from_secs(10), conn.read_to_string(&mut raw))
        .await
        .expect("the scrape answered in time")
        .unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").expect("an HTTP answer");
    (head.lines().next().unwrap_or_default().to_owned(), body.to_owned())
}

/// The numbers of one scrape, by series (`name{labels}` as printed).
pub struct Scrape(HashMap<String, f64>);

impl Scrape {
    pub async fn of(addr: SocketAddr) -> Scrape {
        let (status, body) = http_get(addr, "/metrics").await;
        assert_eq!(status, "HTTP/1.1 200 OK", "{body}");
        let values = body
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .map(|l| {
                let (series, value) = l.rsplit_once(' ').unwrap_or_else(|| panic!("not a sample: {l:?}"));
                (series.to_owned(), value.parse().unwrap_or_else(|_| panic!("not a number: {l:?}")))
            })
            .collect();
        Scrape(values)
    }

    pub fn get(&self, series: &str) -> f64 {
        *self.0.get(series).unwrap_or_else(|| panic!("no series {series} in {:?}", self.0.keys()))
    }
}

/// Scrapes until `series` equals `want` (what follows the last answer, like a stream's end,
/// is counted a moment after the client sees it), or panics after 10 s.
async fn until(addr: SocketAddr, series: &str, want: f64) -> Scrape {
    let end = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let s = Scrape::of(addr).await;
        if s.get(series) == want {
            return s;
        }
        assert!(tokio::time::Instant::now() < end, "{series} is {}, not {want}", s.get(series));
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

const GIN: &str = "gin_games_in_play{format=\"gin\"}";
const ACTIONS: &str = "gin_actions_total";
const LATENCIES: &str = "gin_action_duration_seconds_count";
const BATCHES: &str = "gin_commit_batch_writes_count";
const BATCH_WRITES: &str = "gin_commit_batch_writes_sum";
const FLUSHES: &str = "gin_commit_flush_duration_seconds_count";
const STREAMS: &str = "gin_watch_streams_open";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_numbers_move_with_a_game() {
    let dir = tempfile::tempdir().unwrap();
    let metrics = free_addr();
    let server = TestServer::start_with(gin_server::Config {
        db: dir.path().join("m.db"),
        rate_per_sec: 0,
        metrics_addr: Some(metrics),
        ..gin_server::Config::default()
    })
    .await;
    let ch = server.channel().await;
    let mut gc = Games::new(ch.clone());

    let start = Scrape::of(metrics).await;
    for (series, v) in [
        (GIN, 0.0),
        ("gin_games_in_play{format=\"rummy\"}", 0.0),
        (ACTIONS, 0.0),
        (LATENCIES, 0.0),
        (STREAMS, 0.0),
        ("gin_watch_streams_cut_total", 0.0),
        ("gin_rate_limited_total", 0.0),
        ("gin_house_bot_think_duration_seconds_count", 0.0),
        ("gin_lease_moves_total", 0.0),
        ("gin_forwarded_calls_total", 0.0),
    ] {
        assert_eq!(start.get(series), v, "{series} at start");
    }

    let (game, mut players) = new_game(&ch, preset("standard"), 4242).await;
    let created = Scrape::of(metrics).await;
    assert_eq!(created.get(GIN), 1.0, "one game in play");
    // The game's creation and both seats were written, each write durable in some batch.
    assert!(created.get(BATCHES) > start.get(BATCHES));
    assert!(created.get(BATCH_WRITES) >= start.get(BATCH_WRITES) + 3.0);
    assert!(created.get(FLUSHES) > start.get(FLUSHES));
    assert_eq!(created.get(ACTIONS), 0.0, "seats taken are no actions");

    let mut spectator = watch(&mut gc, &game, "", 0).await;
    assert_eq!(Scrape::of(metrics).await.get(STREAMS), 1.0, "the spectator's stream is open");

    let mut rng = Rng(9);
    const PLAYED: usize = 7;
    for _ in 0..PLAYED {
        step(&mut gc, &mut players, &mut rng).await.expect("the game goes on");
    }
    let during = Scrape::of(metrics).await;
    assert_eq!(during.get(ACTIONS), PLAYED as f64, "every action counted once");
    assert_eq!(during.get(LATENCIES), PLAYED as f64, "every action timed");
    assert!(during.get("gin_action_duration_seconds_sum") > 0.0);
    assert_eq!(
        during.get("gin_action_duration_seconds_bucket{le=\"+Inf\"}"),
        PLAYED as f64,
        "the buckets hold every action"
    );
    assert!(during.get(BATCHES) >= created.get(BATCHES) + 1.0, "the actions were committed");
    assert!(during.get(BATCH_WRITES) >= created.get(BATCH_WRITES) + PLAYED as f64);
    assert_eq!(during.get(GIN), 1.0);
    assert_eq!(during.get(STREAMS), 1.0);

    // A resignation is an action too, and ends the game: nothing in play, the stream ends.
    let seq = get_game(&mut gc, &game, "").await.seq;
    gc.resign(authed(pb::ResignRequest { game_id: game.clone(), expected_seq: seq }, &players[0].token))
        .await
        .expect("resign");
    let (_, err) = drain(&mut spectator, Duration::from_secs(10)).await;
    assert!(err.is_none(), "{err:?}");
    drop(spectator);
    let after = until(metrics, STREAMS, 0.0).await;
    assert_eq!(after.get(ACTIONS), PLAYED as f64 + 1.0);
    assert_eq!(after.get(GIN), 0.0, "the game is over");
    assert_eq!(after.get("gin_watch_streams_cut_total"), 0.0, "nobody was cut off");
    assert_eq!(after.get("gin_lease_moves_total"), 0.0, "one server: no lease moves");
    assert_eq!(after.get("gin_forwarded_calls_total"), 0.0, "one server: nothing forwarded");

    // Anything but GET /metrics is refused.
    assert_eq!(http_get(metrics, "/").await.0, "HTTP/1.1 404 Not Found");
    server.stop().await;
    // The endpoint stops with the server.
    assert!(tokio::net::TcpStream::connect(metrics).await.is_err(), "the metrics listener is closed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn house_bot_decisions_and_rate_refusals_are_counted() {
    let dir = tempfile::tempdir().unwrap();
    let metrics = free_addr();
    let server = TestServer::start_with(gin_server::Config {
        db: dir.path().join("h.db"),
        rate_per_sec: 0,
        metrics_addr: Some(metrics),
        ..gin_server::Config::default()
    })
    .await;
    let ch = server.channel().await;
    // A whole game against the house bot: every action of both seats counted, the bot's
    // decisions timed.
    let client = gin_sdk::Client::from_channel(
        ch.clone(),
        gin_sdk::Options { retry_for: Duration::from_secs(30), ..gin_sdk::Options::default() },
    );
    let seated = client
        .create_game(pb::CreateGameRequest {
            rules: Some(preset("standard")),
            name: "sdk".into(),
            seat: Some(0),
            house_bot: "random".into(),
            seed: 77,
            ..Default::default()
        })
        .await
        .unwrap();
    let mut me = gin_strategies::simple::SimpleStrategy::new(1);
    client.play(&seated.game_id, &seated.token, &mut me).await.unwrap();
    let mut gc = Games::new(ch.clone());
    let rec =
        gc.get_record(pb::GetRecordRequest { game_id: seated.game_id.clone() }).await.unwrap().into_inner();
    let record = engine::GameRecord::from_json(&rec.record_json).unwrap();
    let bot_actions = record.actions.iter().filter(|a| a.seat == engine::Seat::new(1).unwrap()).count();
    let s = until(metrics, ACTIONS, record.actions.len() as f64).await;
    let thought = s.get("gin_house_bot_think_duration_seconds_count");
    assert!(
        thought >= bot_actions as f64 && bot_actions > 0,
        "{thought} decisions timed for {bot_actions} of the bot's actions"
    );
    assert_eq!(s.get(GIN), 0.0);
    server.stop().await;

    // Calls over the rate limit are refused and counted.
    let server = TestServer::start_with(gin_server::Config {
        db: dir.path().join("r.db"),
        rate_per_sec: 3,
        metrics_addr: Some(metrics),
        ..gin_server::Config::default()
    })
    .await;
    let mut lobby = LobbyServiceClient::new(server.channel().await);
    let refusal = loop {
        if let Err(e) = lobby.list_games(pb::ListGamesRequest::default()).await {
            break e;
        }
    };
    assert_eq!(refusal.code(), Code::ResourceExhausted);
    assert_eq!(Scrape::of(metrics).await.get("gin_rate_limited_total"), 1.0);
    server.stop().await;
}

#[tokio::test]
async fn a_metrics_address_in_use_stops_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let db = dir.path().join("never.db");
    let cfg =
        gin_server::Config { db: db.clone(), metrics_addr: Some(addr), ..gin_server::Config::default() };
    let run = gin_server::run(listener, cfg, std::future::pending());
    let err = tokio::time::timeout(Duration::from_secs(10), run)
        .await
        .expect("the start failed at once")
        .expect_err("an address in use stops the start");
    let text = format!("{err:#}");
    assert!(text.contains(&format!("--metrics-addr {addr}")) && text.contains("cannot listen"), "{text}");
    assert!(!db.exists(), "nothing was opened before the metrics address");
}

#[cfg(target_os = "linux")]
/// The listening TCP sockets of process `pid` (Linux: its descriptors' socket inodes among
/// /proc/net/tcp's LISTEN rows).
fn listening_sockets(pid: u32) -> usize {
    let inodes: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter_map(|l| l.to_str()?.strip_prefix("socket:[")?.strip_suffix(']').map(str::to_owned))
        .collect();
    let mut n = 0;
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        for row in std::fs::read_to_string(table).unwrap_or_default().lines().skip(1) {
            let cols: Vec<&str> = row.split_whitespace().collect();
            // State 0A is LISTEN; the inode is the tenth column.
            if cols.get(3) == Some(&"0A") && cols.get(9).is_some_and(|i| inodes.iter().any(|x| x == i)) {
                n += 1;
            }
        }
    }
    n
}

/// The real binary: without `--metrics-addr` it listens on its gRPC port alone; with
/// `GIN_METRICS_ADDR` (the flag's variable) it serves the numbers there too.
#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_serves_metrics_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    for metrics in [None, Some(free_addr())] {
        let addr = free_addr();
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_gin-server"));
        cmd.args(["--addr", &addr.to_string(), "--db"])
            .arg(dir.path().join("b.db"))
            .env_remove("GIN_METRICS_ADDR")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        if let Some(m) = metrics {
            cmd.env("GIN_METRICS_ADDR", m.to_string());
        }
        let mut child = cmd.spawn().expect("spawn gin-server");
        // Up once it answers a call (its metrics are bound before it serves any).
        let end = tokio::time::Instant::now() + Duration::from_secs(30);
        loop {
            let url = format!("http://{addr}");
            if let Ok(ch) = tonic::transport::Channel::from_shared(url).unwrap().connect().await
                && LobbyServiceClient::new(ch).list_games(pb::ListGamesRequest::default()).await.is_ok()
            {
                break;
            }
            assert!(child.try_wait().unwrap().is_none(), "gin-server exited at start");
            assert!(tokio::time::Instant::now() < end, "gin-server did not come up");
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        match metrics {
            None => assert_eq!(listening_sockets(child.id()), 1, "only the gRPC port"),
            Some(m) => {
                assert_eq!(listening_sockets(child.id()), 2, "the gRPC port and the metrics");
                assert_eq!(Scrape::of(m).await.get(ACTIONS), 0.0);
            }
        }
        child.kill().unwrap();
        child.wait().unwrap();
    }
}
