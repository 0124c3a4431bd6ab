//! Complete games over real loopback sockets with the generated clients, checked against
//! the engine; hidden information never reaches a viewer that may not see it.

use crate::common;

use common::*;
use gin_proto::v1 as pb;
use gin_proto::v1::game_service_client::GameServiceClient;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn complete_games_match_the_engine_and_hide_cards() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("g.db")).await;
    let ch = server.channel().await;
    for (name, seed) in [("standard", 11u64), ("oklahoma", 12), ("american", 13), ("classic", 14)] {
        let played = play_watched_game(&ch, name, seed).await;
        let (game, result) = (played.game_id.clone(), played.result.clone());
        // The engine, given the same seed and actions, reaches the same result.
        let rules = engine::RuleSet::preset(name).unwrap();
        let mut g = engine::Game::new(engine::GameSetup::new(rules.clone(), seed)).unwrap();
        for (s, a, _) in &played.actions {
            g.apply(*s, a).unwrap();
        }
        let want = g.result().expect("the engine's game is over too");
        assert_eq!(result.totals, want.totals.0.to_vec(), "{name}");
        assert_eq!(result.winner, want.winner.map(|s| s.index() as u32), "{name}");
        assert_eq!(result.margin, want.margin, "{name}");
        assert!(check_no_leaks(&played) > 0);
        // The record replays with the engine to the same result, and every deal verifies.
        let mut gc = GameServiceClient::new(ch.clone());
        let rec = gc.get_record(pb::GetRecordRequest { game_id: game.clone() }).await.unwrap().into_inner();
        let record = engine::GameRecord::from_json(&rec.record_json).unwrap();
        assert_eq!(record.replay().unwrap().result(), Some(want));
        assert_eq!(rec.reveals.len(), g.hands().len());
        for r in &rec.reveals {
            let deck: engine::Deck = r.deck.join(" ").parse().unwrap();
            assert!(engine::verify_deal(&deck, &r.salt, &r.commitment));
        }
        // Every viewer's seqs are gap-free and increasing.
        for msgs in &played.received {
            let seqs: Vec<u64> = msgs.iter().filter_map(event).map(|e| e.seq).collect();
            assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "{name}: gap in {seqs:?}");
        }
    }
    server.stop().await;
}

/// gRPC-Web on the same port: a raw HTTP/1.1 POST of an empty ListGames request gets a
/// gRPC-Web answer (the trailers frame carries grpc-status 0).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_web_over_http1() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("g.db")).await;
    let _ = server.channel().await;
    let mut sock = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let body = [0u8, 0, 0, 0, 0]; // one uncompressed frame, empty ListGamesRequest
    let req = format!(
        "POST /gin.v1.LobbyService/ListGames HTTP/1.1\r\nHost: localhost\r\ncontent-type: application/grpc-web+proto\r\nx-grpc-web: 1\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    sock.write_all(req.as_bytes()).await.unwrap();
    sock.write_all(&body).await.unwrap();
    let mut resp = Vec::new();
    sock.read_to_end(&mut resp).await.unwrap();
    let text = String::from_utf8_lossy(&resp);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(text.contains("application/grpc-web"), "{text}");
    assert!(text.contains("grpc-status:0") || text.contains("grpc-status: 0"), "{text}");
    server.stop().await;
}

/// A finished game leaves the server's memory (here at once: `keep_finished` 0) and is read
/// back from the store when asked for: every viewer's replay of it, its snapshot and its
/// record are exactly what they were while it was in memory.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finished_games_leave_memory_and_read_back_the_same() {
    use std::time::Duration;
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(gin_server::Config {
        db: dir.path().join("g.db"),
        rate_per_sec: 0,
        keep_finished: Duration::ZERO,
        ..gin_server::Config::default()
    })
    .await;
    let ch = server.channel().await;
    let played = play_watched_game(&ch, "standard", 41).await;
    let game = &played.game_id;
    let mut gc = GameServiceClient::new(ch.clone());
    let tokens = [played.tokens[0].clone(), played.tokens[1].clone(), String::new()];

    // Everything each viewer saw after its first snapshot, as a late watcher replays it.
    let replay = |gc: GameServiceClient<tonic::transport::Channel>, token: String, after: u64| {
        let game = game.clone();
        async move {
            let mut gc = gc;
            let mut s = watch(&mut gc, &game, &token, after).await;
            let (msgs, err) = drain(&mut s, Duration::from_secs(10)).await;
            assert!(err.is_none(), "{err:?}");
            msgs.into_iter().filter_map(without_turn_info).collect::<Vec<_>>()
        }
    };
    for (viewer, token) in tokens.iter().enumerate() {
        let first = msg_seq(&played.received[viewer][0]).unwrap();
        let live: Vec<_> = played.received[viewer].iter().cloned().filter_map(without_turn_info).collect();
        // The evictor runs every second: by then the game left memory.
        tokio::time::sleep(Duration::from_millis(1200)).await;
        let read_back = replay(gc.clone(), token.clone(), first).await;
        assert_eq!(read_back.len(), live.len(), "viewer {viewer}: events replayed");
        if let Some(i) = (0..live.len()).find(|&i| read_back[i] != live[i]) {
            panic!("viewer {viewer}: event {i} differs: {:?} read back, {:?} live", read_back[i], live[i]);
        }
    }
    let snapshot = get_game(&mut gc, game, &tokens[0]).await;
    assert_eq!(snapshot.phase, pb::Phase::GameOver as i32);
    assert_eq!(snapshot.result.as_ref(), Some(&played.result));
    let record = gc.get_record(pb::GetRecordRequest { game_id: game.clone() }).await.unwrap().into_inner();
    let rec = engine::GameRecord::from_json(&record.record_json).unwrap();
    assert_eq!(rec.actions.len(), played.actions.len());
    assert_eq!(
        rec.replay().unwrap().result().and_then(|r| r.winner).map(|w| w.index() as u32),
        played.result.winner
    );
    assert_eq!(record.result.as_ref(), Some(&played.result));
    // The seats' tokens still identify them; an unknown game is still NOT_FOUND.
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let again = get_game(&mut gc, game, &tokens[1]).await;
    assert_eq!(again.viewer_seat, Some(1));
    let missing = gc.get_game(pb::GetGameRequest { game_id: "0123456789abcdef".into() }).await.unwrap_err();
    assert_eq!(missing.code(), tonic::Code::NotFound);
    server.stop().await;
}

/// The event of a message with its turn information removed (a stream attaches it only to
/// the turn current when the event is sent, so a replay of a finished game has none).
fn without_turn_info(m: pb::WatchGameResponse) -> Option<pb::GameEvent> {
    let Some(pb::watch_game_response::Kind::Event(mut e)) = m.kind else { return None };
    if let Some(pb::game_event::Kind::TurnStarted(t)) = &mut e.kind {
        t.turn = None;
    }
    Some(e)
}

/// The server serves each connection on one of its threads: a game whose two seats and a
/// spectator are on connections of three different threads plays to the end, and every
/// viewer sees every event (an action applied on one thread reaches the streams of the
/// others) in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seats_served_by_different_threads_play_a_whole_game() {
    use std::time::Duration;
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(gin_server::Config {
        db: dir.path().join("g.db"),
        rate_per_sec: 0,
        threads: 3,
        ..gin_server::Config::default()
    })
    .await;
    // Connections are dealt to the threads in turn: these three land on three threads.
    let chans = [server.channel().await, server.channel().await, server.channel().await];
    let (game, [p0, p1]) = new_game(&chans[0], preset("standard"), 21).await;

    // One seat: watches on its own connection and plays a random legal action on its turns.
    // Returns every seq it saw and the result.
    // Both seats open their streams before either acts, so both see the same events
    // from the same snapshot on (a seat that subscribed late would start at a later seq).
    let open = |ch: tonic::transport::Channel, p: Player| async move {
        let mut gc = GameServiceClient::new(ch);
        let stream = watch(&mut gc, &p.game_id, &p.token, 0).await;
        (gc, stream, p)
    };
    let (gc0, stream0, p0) = open(chans[1].clone(), p0).await;
    let (gc1, stream1, p1) = open(chans[2].clone(), p1).await;
    let seat = |mut gc: Games, mut stream: tonic::Streaming<pb::WatchGameResponse>, mut p: Player| async move {
        let mut rng = Rng(p.seat as u64 + 7);
        let mut seqs = Vec::new();
        loop {
            let msg = tokio::time::timeout(Duration::from_secs(20), stream.message())
                .await
                .expect("a message within 20 s")
                .expect("the stream works")
                .expect("the stream lasts to the game's end");
            let turn = match msg.kind {
                Some(pb::watch_game_response::Kind::Snapshot(s)) => {
                    p.last_seq = s.seq;
                    s.turn
                }
                Some(pb::watch_game_response::Kind::Event(e)) => {
                    p.last_seq = e.seq;
                    seqs.push(e.seq);
                    match e.kind {
                        Some(pb::game_event::Kind::GameOver(g)) => {
                            return (seqs, g.result.expect("a result"));
                        }
                        Some(pb::game_event::Kind::TurnStarted(t)) if t.seat == p.seat => t.turn,
                        _ => None,
                    }
                }
                _ => None,
            };
            if let Some(turn) = turn {
                let a = pick(&mut rng, &turn.legal_actions);
                send(&mut gc, &p, &a).await.expect("a legal action in turn is accepted");
            }
        }
    };
    let spectator = {
        let mut gc = GameServiceClient::new(chans[0].clone());
        let mut stream = watch(&mut gc, &game, "", 0).await;
        async move { drain(&mut stream, Duration::from_secs(60)).await }
    };
    let ((seqs0, r0), (seqs1, r1), (seen, err)) =
        tokio::join!(seat(gc0, stream0, p0), seat(gc1, stream1, p1), spectator);
    assert!(err.is_none(), "{err:?}");
    assert_eq!(r0, r1, "both seats saw the same result");
    assert!(r0.winner.is_some());
    assert_eq!(seqs0, seqs1, "both seats saw the same events");
    let last = *seqs0.last().unwrap();
    let first = seqs0[0];
    assert_eq!(seqs0, (first..=last).collect::<Vec<_>>(), "in order, no gap, no duplicate");
    let spectator_last = seen.iter().filter_map(event).map(|e| e.seq).max();
    assert_eq!(spectator_last, Some(last), "the spectator saw the game to its end");
    server.stop().await;
}
