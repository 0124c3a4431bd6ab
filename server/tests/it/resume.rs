//! Watch streams that break: a dropped stream resumes with no gap and no duplicate; a
//! resume point past the end is OUT_OF_RANGE; a reader that stops reading is cut off
//! (UNAVAILABLE) without ever blocking the game, and resumes where it was cut.

use crate::common;

use std::time::{Duration, Instant};

use common::*;
use gin_proto::v1 as pb;
use gin_proto::v1::game_service_client::GameServiceClient;
use gin_proto::v1::lobby_service_client::LobbyServiceClient;
use tonic::Code;
use tonic::transport::{Channel, Endpoint};

type Stream = tonic::Streaming<pb::WatchGameResponse>;

/// Creates a game with nobody seated (so a spectator watching now sees every seq from 1),
/// then returns it with the spectator streams opened before the seats were taken.
async fn unseated_game(ch: &Channel, seed: u64, spectators: usize) -> (String, Vec<Stream>, [Player; 2]) {
    let mut lobby = LobbyServiceClient::new(ch.clone());
    let mut gc = GameServiceClient::new(ch.clone());
    let game = lobby
        .create_game(pb::CreateGameRequest { rules: Some(preset("standard")), seed, ..Default::default() })
        .await
        .unwrap()
        .into_inner()
        .game_id;
    let mut streams = Vec::new();
    for _ in 0..spectators {
        streams.push(watch(&mut gc, &game, "", 0).await);
    }
    let mut players = Vec::new();
    for (seat, name) in [(0u32, "alice"), (1, "bob")] {
        let j = lobby
            .join_game(pb::JoinGameRequest {
                game_id: game.clone(),
                name: name.into(),
                seat: Some(seat),
                accept_fixed_deals: true,
            })
            .await
            .unwrap()
            .into_inner();
        players.push(Player {
            seat,
            token: j.seat_token,
            game_id: game.clone(),
            last_seq: 0,
            messages: vec![],
        });
    }
    (game, streams, players.try_into().ok().unwrap())
}

/// Reads a stream to its end in a task (a reference watcher that never drops).
fn read_all(mut s: Stream) -> tokio::task::JoinHandle<Vec<pb::WatchGameResponse>> {
    tokio::spawn(async move {
        let (msgs, err) = drain(&mut s, Duration::from_secs(60)).await;
        assert!(err.is_none(), "the reference stream failed: {err:?}");
        msgs
    })
}

fn no_heartbeats(v: Vec<pb::WatchGameResponse>) -> Vec<pb::WatchGameResponse> {
    v.into_iter().filter(|m| msg_seq(m).is_some()).collect()
}

fn events(v: &[pb::WatchGameResponse]) -> Vec<pb::GameEvent> {
    v.iter().filter_map(event).cloned().collect()
}

/// Like [`read_until`], but a stream error ends the reading and is returned.
async fn read_until_or_error(
    s: &mut Stream,
    seq: u64,
    deadline: Duration,
) -> (Vec<pb::WatchGameResponse>, Option<tonic::Status>) {
    let mut out = Vec::new();
    let end = tokio::time::Instant::now() + deadline;
    loop {
        match tokio::time::timeout_at(end, s.message()).await.expect("no progress") {
            Ok(Some(m)) => {
                let reached = msg_seq(&m).is_some_and(|x| x >= seq);
                out.push(m);
                if reached {
                    return (out, None);
                }
            }
            Ok(None) => panic!("stream ended before seq {seq}"),
            Err(e) => return (out, Some(e)),
        }
    }
}

/// The seqs of `v` are exactly `from..=to`, each once.
#[track_caller]
fn assert_seqs(v: &[pb::GameEvent], from: u64, to: u64) {
    let seqs: Vec<u64> = v.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (from..=to).collect::<Vec<_>>(), "gap or duplicate");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_stream_resumes_without_gap_or_duplicate() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("resume.db")).await;
    let ch = server.channel().await;
    let mut gc = GameServiceClient::new(ch.clone());
    let (game, mut spec, mut players) = unseated_game(&ch, 4242, 2).await;
    let spec_drop = spec.pop().unwrap();
    let spec_ref = read_all(spec.pop().unwrap());
    // Seat 0 too: its stream holds its cards (and its turn info), redacted per viewer.
    let seat_ref = read_all(watch(&mut gc, &game, &players[0].token, 0).await);
    let seat_drop = watch(&mut gc, &game, &players[0].token, 0).await;
    let mut rng = Rng(4242);

    // Play, read part of the dropping streams, drop them while events are still unread.
    let mut acks = Vec::new();
    for _ in 0..16 {
        acks.push(step(&mut gc, &mut players, &mut rng).await.expect("game still on").2);
    }
    let mid = acks[7];
    let mut parts = Vec::new();
    for mut s in [spec_drop, seat_drop] {
        let got = read_until(&mut s, mid, Duration::from_secs(10)).await;
        assert_eq!(msg_seq(got.last().unwrap()), Some(mid));
        parts.push(got);
        drop(s);
    }
    // The other seat and this one play on while nobody reads, until it is seat 0's turn.
    let mut n = 0;
    while n < 16 || get_game(&mut gc, &game, "").await.seat_to_act != Some(0) {
        step(&mut gc, &mut players, &mut rng).await.expect("game still on");
        n += 1;
    }
    let resumed_at = get_game(&mut gc, &game, "").await.seq;
    let spec_resumed = read_all(watch(&mut gc, &game, "", mid).await);
    let seat_resumed = read_all(watch(&mut gc, &game, &players[0].token, mid).await);
    // ... and to the end of the game.
    n += 16;
    while step(&mut gc, &mut players, &mut rng).await.is_some() {
        n += 1;
        assert!(n < 5_000, "the game does not end");
    }
    let last = get_game(&mut gc, &game, "").await.seq;

    // Spectator: snapshot at seq 0, then 1..=last exactly once, equal to the reference.
    let reference = no_heartbeats(spec_ref.await.unwrap());
    let resumed = no_heartbeats(spec_resumed.await.unwrap());
    assert!(
        matches!(&resumed[0].kind, Some(pb::watch_game_response::Kind::Event(e)) if e.seq == mid + 1),
        "a resumed stream starts with the next event, no snapshot"
    );
    let mut all = parts[0].clone();
    all.extend(resumed.iter().cloned());
    assert!(matches!(&all[0].kind, Some(pb::watch_game_response::Kind::Snapshot(s)) if s.seq == 0));
    assert_seqs(&events(&all), 1, last);
    assert_eq!(all, reference, "the resumed spectator saw something else");

    // Seat 0: the same, except that turn info is only sent for a turn that is current when
    // sent: events replayed on resume carry none for past turns.
    let reference = no_heartbeats(seat_ref.await.unwrap());
    let resumed = no_heartbeats(seat_resumed.await.unwrap());
    let mut all = parts[1].clone();
    all.extend(resumed.iter().cloned());
    let first = msg_seq(&all[0]).unwrap();
    assert!(matches!(&all[0].kind, Some(pb::watch_game_response::Kind::Snapshot(_))));
    assert_eq!(first, msg_seq(&reference[0]).unwrap());
    assert_seqs(&events(&all), first + 1, last);
    assert_eq!(all.len(), reference.len());
    for (got, want) in all.iter().zip(&reference) {
        if got == want {
            continue;
        }
        let (Some(g), Some(w)) = (event(got), event(want)) else { panic!("{got:?} != {want:?}") };
        let stripped = |e: &pb::GameEvent| {
            let mut e = e.clone();
            if let Some(pb::game_event::Kind::TurnStarted(t)) = &mut e.kind {
                t.turn = None;
            }
            e
        };
        assert_eq!(stripped(g), stripped(w));
        assert!(g.seq > mid && g.seq <= resumed_at, "only replayed events may differ: {g:?} vs {w:?}");
        assert!(
            matches!(&g.kind, Some(pb::game_event::Kind::TurnStarted(t)) if t.turn.is_none()),
            "a replayed event differs: {g:?} vs {w:?}"
        );
    }
    // The turn that was current at the resume (seat 0's) came with its info.
    let t = resumed
        .iter()
        .rev()
        .filter_map(event)
        .filter(|e| e.seq <= resumed_at)
        .find_map(|e| match &e.kind {
            Some(pb::game_event::Kind::TurnStarted(t)) => Some(t),
            _ => None,
        })
        .expect("the current turn was replayed");
    assert_eq!(t.seat, 0);
    assert!(t.turn.is_some(), "the current turn's info is sent on resume");
    println!("resume: {last} events, dropped at {mid}, resumed at {resumed_at}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_after_the_last_seq_is_out_of_range() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("range.db")).await;
    let ch = server.channel().await;
    let mut gc = GameServiceClient::new(ch.clone());
    let (game, mut players) = new_game(&ch, preset("standard"), 77).await;
    let mut rng = Rng(77);
    for _ in 0..3 {
        step(&mut gc, &mut players, &mut rng).await.unwrap();
    }
    let last = get_game(&mut gc, &game, "").await.seq;
    for (after, token) in [(last + 1, ""), (last + 1, players[0].token.as_str()), (u64::MAX, "")] {
        let r = gc
            .watch_game(authed(
                pb::WatchGameRequest { game_id: game.clone(), resume_after_seq: after },
                token,
            ))
            .await;
        let e = r.err().unwrap_or_else(|| panic!("resume after {after} (last {last}) accepted"));
        assert_eq!(e.code(), Code::OutOfRange, "{e:?}");
    }
    // Resuming at the last seq is fine: nothing is sent until the next event.
    let mut s = watch(&mut gc, &game, "", last).await;
    let seq = step(&mut gc, &mut players, &mut rng).await.unwrap().2;
    let got = read_until(&mut s, seq, Duration::from_secs(10)).await;
    assert_seqs(&events(&got), last + 1, seq);
    drop(s);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_reader_is_cut_off_without_blocking_the_game_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let metrics = crate::metrics::free_addr();
    let server = TestServer::start_with(gin_server::Config {
        db: dir.path().join("slow.db"),
        rate_per_sec: 0,
        stream_buffer: 16,
        metrics_addr: Some(metrics),
        ..gin_server::Config::default()
    })
    .await;
    let ch = server.channel().await;
    let mut gc = GameServiceClient::new(ch.clone());
    let (game, spec, mut players) = unseated_game(&ch, 99, 0).await;
    assert!(spec.is_empty());
    // The slow reader has a connection of its own with a small HTTP/2 window, so what it
    // does not read stays in the server's buffer (not in the transport's).
    let slow_ch = Endpoint::from_shared(server.url())
        .unwrap()
        .initial_stream_window_size(Some(1024))
        .connect()
        .await
        .unwrap();
    let mut slow_gc = GameServiceClient::new(slow_ch.clone());
    let mut slow = watch(&mut slow_gc, &game, "", 0).await;
    let start = get_game(&mut gc, &game, "").await.seq;
    // A reference spectator that keeps up.
    let reference = read_all(watch(&mut gc, &game, "", start).await);

    // The game advances by well over 50 events; every action is answered promptly.
    let mut rng = Rng(99);
    let mut slowest = Duration::ZERO;
    let mut end = start;
    let mut over = false;
    while end < start + 200 {
        let t = Instant::now();
        let r = tokio::time::timeout(Duration::from_secs(5), step(&mut gc, &mut players, &mut rng))
            .await
            .expect("an action blocked behind a slow reader");
        slowest = slowest.max(t.elapsed());
        match r {
            Some((_, _, seq)) => end = seq,
            None => {
                over = true;
                break;
            }
        }
    }
    assert!(end - start > 50, "{} events only", end - start);
    assert!(slowest < Duration::from_secs(2), "slowest action {slowest:?}");

    // The slow reader gets what was buffered, then UNAVAILABLE.
    let (got, err) = drain(&mut slow, Duration::from_secs(10)).await;
    let err = err.expect("the slow reader is cut off");
    assert_eq!(err.code(), Code::Unavailable, "{err:?}");
    assert!(matches!(&got[0].kind, Some(pb::watch_game_response::Kind::Snapshot(s)) if s.seq == start));
    let got_events = events(&got);
    let cut_at = got_events.last().map_or(start, |e| e.seq);
    assert_seqs(&got_events, start + 1, cut_at);
    assert!(cut_at < end, "cut off before the end ({cut_at} of {end})");
    // Resuming from the last seq received gives the rest, no gap, no duplicate. (Resumed
    // again as often as the server cuts the stream, to check the rest; then one resume must
    // have been enough, the reader reading as fast as it can.)
    let mut all = got_events;
    let mut resumes = Vec::new();
    loop {
        let from = all.last().map_or(start, |e| e.seq);
        if from == end {
            break;
        }
        assert!(resumes.len() < 100, "no progress resuming");
        let mut s = watch(&mut slow_gc, &game, "", from).await;
        let (rest, err) = if over {
            drain(&mut s, Duration::from_secs(10)).await
        } else {
            read_until_or_error(&mut s, end, Duration::from_secs(10)).await
        };
        resumes.push((from, events(&rest).len(), err.as_ref().map(|e| e.code())));
        all.extend(events(&rest));
        if let Some(e) = err {
            assert_eq!(e.code(), Code::Unavailable, "{e:?}");
        }
    }
    assert_seqs(&all, start + 1, end);
    // Every cut the reader met was counted by the server (the reference spectator, which
    // keeps up, may in a very slow run have been cut once too).
    let cuts = 1 + resumes.iter().filter(|(_, _, e)| e.is_some()).count() as u64;
    let counted = crate::metrics::Scrape::of(metrics).await.get("gin_watch_streams_cut_total") as u64;
    assert!((cuts..=cuts + 1).contains(&counted), "{counted} cuts counted, {cuts} met: {resumes:?}");
    drop(slow);
    // The same events as a reader that kept up (ended by a resignation).
    if !over {
        let r = pb::ResignRequest { game_id: game.clone(), expected_seq: end };
        gc.resign(authed(r, &players[0].token)).await.unwrap();
    }
    let want = events(&reference.await.unwrap());
    assert_eq!(all[..], want[..all.len()]);
    println!(
        "slow reader: {} events, cut off after {} (buffer 16), slowest action {slowest:?}, resumes {resumes:?}",
        end - start,
        cut_at - start
    );
    assert_eq!(
        resumes.len(),
        1,
        "a reader resuming {} events behind was cut off again at once: (resume_after_seq, events received, \
         error) = {resumes:?}; the server pushes a resumed stream's whole backlog into its bounded buffer \
         (stream_buffer) before the client can read, so a backlog larger than the buffer is always cut off",
        end - cut_at
    );
    server.stop().await;
}

/// An idle stream gets heartbeats carrying the game's last seq; a stream that keeps getting
/// events gets none (a heartbeat only follows a whole period with nothing sent).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn heartbeats_only_on_idle_streams() {
    let dir = tempfile::tempdir().unwrap();
    let period = Duration::from_millis(300);
    let server = TestServer::start_with(gin_server::Config {
        db: dir.path().join("gin.db"),
        rate_per_sec: 0,
        heartbeat: period,
        ..gin_server::Config::default()
    })
    .await;
    let ch = server.channel().await;
    let (_game, mut streams, mut players) = unseated_game(&ch, 17, 1).await;
    let mut stream = streams.pop().unwrap();
    let mut gc = GameServiceClient::new(ch.clone());

    // Busy: six actions, one every period / 3 (a count, not a deadline: on a loaded machine
    // an action may take a while, and the test is about the gaps, not the pace): events only.
    let mut seen = Vec::new();
    let mut rng = Rng(5);
    let mut acted = 0;
    while acted < 6 {
        if step(&mut gc, &mut players, &mut rng).await.is_none() {
            break;
        }
        acted += 1;
        tokio::time::sleep(period / 3).await;
        while let Ok(m) = tokio::time::timeout(Duration::from_millis(1), stream.message()).await {
            seen.push(m.unwrap().expect("the stream goes on"));
        }
    }
    assert!(acted >= 5, "only {acted} actions");
    let beats = seen.iter().filter(|m| matches!(m.kind, Some(pb::watch_game_response::Kind::Heartbeat(_))));
    assert_eq!(beats.count(), 0, "heartbeats on a busy stream");
    let last = seen.iter().filter_map(msg_seq).max().unwrap();

    // Idle: heartbeats, each with the last seq, within two periods of each other.
    let started = Instant::now();
    for _ in 0..3 {
        let m =
            tokio::time::timeout(period * 3, stream.message()).await.expect("a heartbeat").unwrap().unwrap();
        match m.kind {
            Some(pb::watch_game_response::Kind::Heartbeat(h)) => assert_eq!(h.last_seq, last),
            other => panic!("expected a heartbeat, got {other:?}"),
        }
    }
    assert!(started.elapsed() >= period * 2, "heartbeats too often: {:?}", started.elapsed());
    server.stop().await;
}
