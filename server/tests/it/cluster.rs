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

/// The script a person runs to try a cluster (`examples/cluster/local-cluster.sh`): a
/// private PostgreSQL, three servers, HAProxy in front. Clients of the SDK play games against
/// house bots through the proxy while two of the three servers are killed with SIGKILL, one
/// after the other: every game ends, and its record (read through the proxy) replays to the
/// result its player saw.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_local_cluster_plays_through_the_proxy_while_servers_are_killed() {
    use crate::house::{check_result, opts};
    use std::process::{Command, Stdio};
    let Some(pg) = gin_server::storage::pg_cluster::for_test() else { return };
    drop(pg);
    let haproxy = Command::new("haproxy").arg("-v").output().is_ok_and(|o| o.status.success());
    if !haproxy {
        assert!(
            std::env::var("GIN_REQUIRE_POSTGRES").as_deref() != Ok("1"),
            "GIN_REQUIRE_POSTGRES=1 but HAProxy is not installed"
        );
        eprintln!("skipped: HAProxy is not installed (Debian: apt-get install haproxy)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/cluster/local-cluster.sh");
    let out = std::fs::File::create(dir.path().join("script.log")).unwrap();
    let mut cluster = Command::new("bash")
        .arg(script)
        .args(["--dir", dir.path().join("c").to_str().unwrap(), "--port", &port.to_string()])
        .args(["--lease-ms", "1500"])
        .env("GIN_SERVER", env!("CARGO_BIN_EXE_gin-server"))
        .stdin(Stdio::null())
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .spawn()
        .unwrap();
    let log = || std::fs::read_to_string(dir.path().join("script.log")).unwrap_or_default();
    let ready = dir.path().join("c/ready");
    let t = Instant::now();
    while !ready.exists() {
        assert!(cluster.try_wait().unwrap().is_none(), "the script stopped:\n{}", log());
        assert!(t.elapsed() < Duration::from_secs(60), "the cluster did not come up:\n{}", log());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let ch = tonic::transport::Channel::from_shared(format!("http://127.0.0.1:{port}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
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
    let pid = |i: u32| std::fs::read_to_string(dir.path().join(format!("c/server-{i}.pid"))).unwrap();
    for i in [1, 2] {
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let killed = Command::new("kill").args(["-9", pid(i).trim()]).status().unwrap();
        assert!(killed.success());
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
    let taken: usize = (1..=3)
        .map(|i| {
            std::fs::read_to_string(dir.path().join(format!("c/server-{i}.log")))
                .unwrap_or_default()
                .matches("game taken over")
                .count()
        })
        .sum();
    println!("{games} games through the proxy; {taken} taken over from killed servers");
    assert!(taken > 0, "no game was in play on a killed server");
    let _ = Command::new("kill").args(["-TERM", &cluster.id().to_string()]).status();
    let _ = cluster.wait();
}
