//! What a hostile player or bot author tries, over real sockets on a real database: deals a
//! creator can foresee, finished games joined again, quick-match partners that vanish, games
//! and tournaments nobody plays, and the answers that must name the right problem.

use crate::common;

use std::time::Duration;

use common::*;
use gin_proto::v1 as pb;
use gin_proto::v1::lobby_service_client::LobbyServiceClient;
use gin_proto::v1::tournament_service_client::TournamentServiceClient;
use tonic::Code;
use tonic::transport::Channel;

type Lobby = LobbyServiceClient<Channel>;
type Tours = TournamentServiceClient<Channel>;

fn config(db: &std::path::Path) -> gin_server::Config {
    gin_server::Config { db: db.to_path_buf(), rate_per_sec: 0, ..gin_server::Config::default() }
}

async fn list(lobby: &mut Lobby) -> Vec<pb::OpenGame> {
    lobby.list_games(pb::ListGamesRequest::default()).await.unwrap().into_inner().games
}

fn join_req(game: &str, name: &str, accept_fixed_deals: bool) -> pb::JoinGameRequest {
    pb::JoinGameRequest { game_id: game.into(), name: name.into(), seat: None, accept_fixed_deals }
}

/// The kinds of a stream's events, in order (snapshots and heartbeats left out).
fn kinds(msgs: &[pb::WatchGameResponse]) -> Vec<(u64, i64, String)> {
    use pb::game_event::Kind as K;
    msgs.iter()
        .filter_map(event)
        .map(|e| {
            let k = match &e.kind {
                Some(K::PlayerJoined(_)) => "player_joined",
                Some(K::PlayerLeft(_)) => "player_left",
                Some(K::HandDealt(_)) => "hand_dealt",
                Some(K::TurnStarted(_)) => "turn_started",
                Some(K::GameOver(_)) => "game_over",
                _ => "other",
            };
            (e.seq, e.time_unix_ms, k.to_string())
        })
        .collect()
}

/// Item 1: whoever chose a seed knows every deal; a game or tournament with one says so, and
/// nobody is seated in it without accepting that.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_creator_chosen_seed_is_shown_and_nobody_plays_it_unknowingly() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(config(&dir.path().join("seed.db"))).await;
    let ch = server.channel().await;
    let mut lobby = Lobby::new(ch.clone());
    let mut gc = Games::new(ch.clone());
    const SEED: u64 = 4242;

    // Mallory plays a game with seed S to its end and reads its deck from the record.
    let (first, players) = new_game_req(
        &ch,
        pb::CreateGameRequest { rules: Some(preset("standard")), seed: SEED, ..Default::default() },
    )
    .await;
    let seq = get_game(&mut gc, &first, "").await.seq;
    gc.resign(authed(pb::ResignRequest { game_id: first.clone(), expected_seq: seq }, &players[0].token))
        .await
        .unwrap();
    let rec = gc.get_record(pb::GetRecordRequest { game_id: first.clone() }).await.unwrap().into_inner();
    let deck: Vec<String> = rec.reveals[0].deck.clone();
    assert_eq!(deck.len(), 52);

    // Then offers a game with the same seed, and one with a drawn seed.
    let bait = lobby
        .create_game(pb::CreateGameRequest {
            join: true,
            name: "mallory".into(),
            seed: SEED,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let fair = lobby
        .create_game(pb::CreateGameRequest { join: true, name: "fair".into(), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    let open = list(&mut lobby).await;
    let shown = |id: &str| open.iter().find(|g| g.game_id == id).expect("listed").fixed_deals;
    assert!(shown(&bait.game_id), "a seeded game is marked as such: {open:?}");
    assert!(!shown(&fair.game_id));
    assert!(get_game(&mut gc, &bait.game_id, "").await.fixed_deals);

    // Joining it unknowingly is refused, and changes nothing.
    let e = lobby.join_game(join_req(&bait.game_id, "victim", false)).await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert!(e.message().contains("fixed deals") && e.message().contains("accept_fixed_deals"), "{e:?}");
    let snap = get_game(&mut gc, &bait.game_id, "").await;
    assert!(!snap.seats[1].taken, "the seat is still free");
    assert!(list(&mut lobby).await.iter().any(|g| g.game_id == bait.game_id));
    // A game with a drawn seed is joined as before.
    lobby.join_game(join_req(&fair.game_id, "guest", false)).await.unwrap();

    // Accepted, the deal is the one Mallory foresaw: the joiner knows what it agreed to.
    let j = lobby.join_game(join_req(&bait.game_id, "informed", true)).await.unwrap().into_inner();
    let mine = get_game(&mut gc, &bait.game_id, &j.seat_token).await;
    let foreseen = engine::Game::new(engine::GameSetup::new(engine::RuleSet::standard(), SEED)).unwrap();
    let foreseen = foreseen.hand().cards(engine::Seat::new(j.seat as u8).unwrap());
    assert_eq!(card_set(&mine.hand), foreseen);
    assert!(deck.iter().any(|c| mine.hand.contains(c)));

    // A tournament's seed: the same rule for its entrants.
    let mut tours = Tours::new(ch.clone());
    let spec = |seed| pb::TournamentSpec { entrants: 2, games_per_pairing: 2, seed, ..Default::default() };
    let fixed = tours
        .create_tournament(pb::CreateTournamentRequest { spec: Some(spec(SEED)) })
        .await
        .unwrap()
        .into_inner()
        .tournament_id;
    let drawn = tours
        .create_tournament(pb::CreateTournamentRequest { spec: Some(spec(0)) })
        .await
        .unwrap()
        .into_inner()
        .tournament_id;
    let state = |id: String| {
        let mut t = Tours::new(ch.clone());
        async move {
            t.get_tournament(pb::GetTournamentRequest { tournament_id: id })
                .await
                .unwrap()
                .into_inner()
                .state
                .unwrap()
        }
    };
    assert!(state(fixed.clone()).await.fixed_deals);
    assert!(!state(drawn.clone()).await.fixed_deals);
    let enter = |id: &str, accept| pb::JoinTournamentRequest {
        tournament_id: id.into(),
        name: "bot".into(),
        accept_fixed_deals: accept,
        ..Default::default()
    };
    let Err(e) = tours.join_tournament(enter(&fixed, false)).await else { panic!("entered") };
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert!(e.message().contains("fixed deals"), "{e:?}");
    assert_eq!(state(fixed.clone()).await.standings.unwrap().rows.len(), 0, "nobody entered");
    tours.join_tournament(enter(&fixed, true)).await.unwrap();
    tours.join_tournament(enter(&drawn, false)).await.unwrap();
    // The flag survives a restart.
    server.stop().await;
    let server = TestServer::start_with(config(&dir.path().join("seed.db"))).await;
    let ch = server.channel().await;
    let mut tours = Tours::new(ch.clone());
    let st = tours.get_tournament(pb::GetTournamentRequest { tournament_id: fixed.clone() }).await.unwrap();
    assert!(st.into_inner().state.unwrap().fixed_deals);
    let Err(e) = tours.join_tournament(enter(&fixed, false)).await else { panic!("entered") };
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    let mut lobby = Lobby::new(ch.clone());
    let snap = get_game(&mut Games::new(ch), &bait.game_id, "").await;
    assert!(snap.fixed_deals);
    let open = list(&mut lobby).await;
    assert!(open.iter().all(|g| g.game_id != bait.game_id), "full now");
    server.stop().await;
}

/// Asks to join `game`, which is over: refused as such.
async fn refuse(lobby: &mut Lobby, game: &str, accept: bool) {
    let e = lobby.join_game(join_req(game, "late", accept)).await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert!(e.message().contains("over"), "{e:?}");
}

/// Item 3: a game its only player left before anyone joined is over for good: not listed, not
/// joinable, its history the same from memory, after eviction and after a restart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_left_before_anyone_joined_is_over_for_good() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("left.db");
    let cfg = gin_server::Config { keep_finished: Duration::ZERO, ..config(&db) };
    let server = TestServer::start_with(cfg.clone()).await;
    let ch = server.channel().await;
    let mut lobby = Lobby::new(ch.clone());
    let mut gc = Games::new(ch.clone());
    let c = lobby
        .create_game(pb::CreateGameRequest { join: true, name: "ann".into(), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    let g = c.game_id.clone();
    let seq = get_game(&mut gc, &g, &c.seat_token).await.seq;
    gc.resign(authed(pb::ResignRequest { game_id: g.clone(), expected_seq: seq }, &c.seat_token))
        .await
        .unwrap();
    let snap = get_game(&mut gc, &g, "").await;
    let result = snap.result.clone().expect("over");
    assert_eq!(result.reason, pb::GameEndReason::Cancelled as i32, "{result:?}");
    assert_eq!(snap.phase, pb::Phase::GameOver as i32, "a cancelled game says it is over");
    assert_eq!(result.winner, None, "nobody wins a game nobody played");
    assert_eq!(result.loser_by_default, None);
    assert!(list(&mut lobby).await.is_empty(), "a finished game is not open");

    // Its log: the creator joined (seq 1), left, the game ended; a stream resumed after seq 1
    // gets the rest, and always the same.
    let history = |gc: &mut Games, g: String| {
        let mut gc = gc.clone();
        async move {
            let snap = get_game(&mut gc, &g, "").await;
            let (events, _) = drain(&mut watch(&mut gc, &g, "", 1).await, Duration::from_secs(5)).await;
            (snap.seq, snap.seats, snap.result, kinds(&events))
        }
    };
    let before = history(&mut gc, g.clone()).await;
    let names: Vec<&str> = before.3.iter().map(|(_, _, k)| k.as_str()).collect();
    assert_eq!(names, ["player_left", "game_over"]);
    assert_eq!(before.0, 3);

    refuse(&mut lobby, &g, false).await;
    refuse(&mut lobby, &g, true).await;
    // Evicted (keep_finished 0: the next second), read back from the database: the same.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    refuse(&mut lobby, &g, false).await;
    assert_eq!(history(&mut gc, g.clone()).await, before);
    // And after a restart.
    server.stop().await;
    let server = TestServer::start_with(cfg).await;
    let ch = server.channel().await;
    let mut lobby = Lobby::new(ch.clone());
    let mut gc = Games::new(ch.clone());
    refuse(&mut lobby, &g, false).await;
    assert!(list(&mut lobby).await.is_empty());
    assert_eq!(history(&mut gc, g.clone()).await, before);
    server.stop().await;
}

/// Item 4: a quick-match caller whose deadline runs out while it is being paired is gone;
/// its partner is never left in a game with a seat nobody holds. Each trial asks with a
/// deadline (enforced by the server) and has a partner ask just around its end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quick_match_partner_who_left_is_never_seated() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(config(&dir.path().join("qm.db"))).await;
    let (a, b) = (server_timed(server.addr).await, server_timed(server.addr).await);
    let ask = |lobby: &BareLobby, name: &str, deadline: Duration| {
        let mut lobby = lobby.clone();
        let mut req = tonic::Request::new(pb::QuickMatchRequest {
            rules: Some(preset("standard")),
            name: name.into(),
            ..Default::default()
        });
        req.set_timeout(deadline);
        async move { lobby.quick_match(req).await.map(|r| r.into_inner()) }
    };
    const DEADLINE: Duration = Duration::from_millis(40);
    let (mut paired, mut alone) = (0, 0);
    for trial in 0..120u32 {
        // The partner comes from 4 ms before the deadline to 2 ms after it, in steps of 50 µs.
        let lead = Duration::from_micros(4_000).saturating_sub(Duration::from_micros(50 * trial as u64));
        let waiter = tokio::spawn(ask(&a, "gone", DEADLINE));
        tokio::time::sleep(DEADLINE - lead).await;
        let partner = ask(&b, "left", DEADLINE * 2).await;
        let waiter = waiter.await.unwrap();
        match (&waiter, &partner) {
            (Ok(w), Ok(p)) => {
                assert_eq!(w.game_id, p.game_id, "trial {trial}");
                paired += 1;
            }
            (Err(w), Err(p)) => {
                assert!(timed_out(w), "trial {trial}: {w:?}");
                assert!(timed_out(p), "trial {trial}: {p:?}");
                alone += 1;
            }
            _ => panic!(
                "trial {trial}: one was seated in a game the other never heard of: {waiter:?} / {partner:?}"
            ),
        }
    }
    println!("quick match around the deadline: {paired} paired, {alone} not");
    server.stop().await;
}

/// The answer to a call whose deadline ran out on the server (tonic's server says CANCELLED
/// "Timeout expired").
fn timed_out(s: &tonic::Status) -> bool {
    matches!(s.code(), Code::DeadlineExceeded | Code::Cancelled) && s.message().contains("Timeout expired")
}

/// A lobby client over a bare HTTP/2 connection.
type BareLobby = LobbyServiceClient<
    tower::util::BoxCloneSyncService<
        http::Request<tonic::body::Body>,
        http::Response<hyper::body::Incoming>,
        hyper::Error,
    >,
>;

/// A lobby client on a connection of its own that, unlike tonic's channel, does not enforce a
/// call's `grpc-timeout` itself: the server alone decides when the call's time is up, so the
/// client gets whatever the server decided (on the channel, the client may give up just as the
/// server answers).
async fn server_timed(addr: std::net::SocketAddr) -> BareLobby {
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    tcp.set_nodelay(true).unwrap();
    let io = hyper_util::rt::TokioIo::new(tcp);
    let (sender, conn) =
        hyper::client::conn::http2::handshake(hyper_util::rt::TokioExecutor::new(), io).await.unwrap();
    tokio::spawn(conn);
    let svc = tower::service_fn(move |req: http::Request<tonic::body::Body>| {
        let mut sender = sender.clone();
        async move { sender.send_request(req).await }
    });
    let origin = format!("http://{addr}").parse().unwrap();
    LobbyServiceClient::with_origin(tower::util::BoxCloneSyncService::new(svc), origin)
}

/// One client's two quick-match calls are never paired with each other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clients_two_quick_matches_are_not_paired_together() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(config(&dir.path().join("self.db"))).await;
    let (mine, other) = (server_timed(server.addr).await, server_timed(server.addr).await);
    let ask = |lobby: &BareLobby, name: &str, deadline: Duration| {
        let mut lobby = lobby.clone();
        let mut req = tonic::Request::new(pb::QuickMatchRequest { name: name.into(), ..Default::default() });
        req.set_timeout(deadline);
        async move { lobby.quick_match(req).await.map(|r| r.into_inner()) }
    };
    let first = tokio::spawn(ask(&mine, "one", Duration::from_secs(3)));
    tokio::time::sleep(Duration::from_millis(100)).await;
    let second = tokio::spawn(ask(&mine, "two", Duration::from_millis(600)));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!first.is_finished() && !second.is_finished(), "not paired with each other");
    let third = ask(&other, "three", Duration::from_secs(3)).await.unwrap();
    let first = first.await.unwrap().unwrap();
    assert_eq!(first.game_id, third.game_id, "the first in the queue is paired with another client");
    let e = second.await.unwrap().unwrap_err();
    assert!(timed_out(&e), "{e:?}");
    server.stop().await;
}

/// Item 6: a tournament's games count against its creator's limit of unfinished games, and
/// `parallel` has a ceiling.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tournaments_count_against_their_creators_limit() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = gin_server::Config { max_open_games_per_caller: 6, ..config(&dir.path().join("t.db")) };
    let server = TestServer::start_with(cfg).await;
    let ch = server.channel().await;
    let mut tours = Tours::new(ch.clone());
    // The request of the report: refused, with the limit named.
    let huge =
        pb::TournamentSpec { entrants: 2, games_per_pairing: 10_000, parallel: 1000, ..Default::default() };
    let e = tours.create_tournament(pb::CreateTournamentRequest { spec: Some(huge) }).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
    assert!(e.message().contains("spec.parallel"), "{e:?}");
    let over = pb::TournamentSpec { entrants: 2, games_per_pairing: 100, parallel: 7, ..Default::default() };
    let e = tours.create_tournament(pb::CreateTournamentRequest { spec: Some(over) }).await.unwrap_err();
    assert!(e.message().contains("at most 6"), "{e:?}");
    // Two tournaments of 4 at once, entrants that never play: at most 6 games in all.
    let mut ids = Vec::new();
    let mut entrants = Vec::new();
    for _ in 0..2 {
        let spec =
            pb::TournamentSpec { entrants: 2, games_per_pairing: 100, parallel: 4, ..Default::default() };
        let id = create_tournament(&ch, spec).await;
        entrants.extend(enter_tournament(&ch, &id, &["idle-a", "idle-b"]).await);
        ids.push(id);
    }
    tokio::time::sleep(Duration::from_millis(800)).await;
    let mut running = 0;
    for id in &ids {
        let st = tours.get_tournament(pb::GetTournamentRequest { tournament_id: id.clone() }).await.unwrap();
        running += st.into_inner().state.unwrap().games_running;
    }
    assert_eq!(running, 6, "the creator's limit, shared by its tournaments");
    let mut lobby = Lobby::new(ch.clone());
    let e = lobby.create_game(pb::CreateGameRequest::default()).await.unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted, "{e:?}");
    drop(entrants);
    server.stop().await;
}

/// Item 6: games nobody plays end by the stated policy: an open game nobody joined is
/// cancelled, a started game whose seat to act does nothing is abandoned by that seat; a
/// tournament whose entrants never play goes on; the ends survive a restart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_nobody_plays_expire() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = gin_server::Config {
        open_game_ttl: Duration::from_millis(400),
        idle_game_ttl: Duration::from_millis(600),
        ..config(&dir.path().join("idle.db"))
    };
    let server = TestServer::start_with(cfg.clone()).await;
    let ch = server.channel().await;
    let mut lobby = Lobby::new(ch.clone());
    let mut gc = Games::new(ch.clone());
    let nobody = lobby.create_game(pb::CreateGameRequest::default()).await.unwrap().into_inner().game_id;
    let (started, _players) = new_game_req(&ch, pb::CreateGameRequest::default()).await;
    let to_act = get_game(&mut gc, &started, "").await.seat_to_act.expect("someone is to act");
    let mut tours = Tours::new(ch.clone());
    let spec = pb::TournamentSpec { entrants: 2, games_per_pairing: 3, parallel: 1, ..Default::default() };
    let tid = create_tournament(&ch, spec).await;
    let entrants = enter_tournament(&ch, &tid, &["sleepy-a", "sleepy-b"]).await;
    // Still going within the limits.
    assert_eq!(list(&mut lobby).await.len(), 1);
    assert!(get_game(&mut gc, &started, "").await.result.is_none());

    let end = tokio::time::Instant::now() + Duration::from_secs(15);
    let (cancelled, abandoned) = loop {
        let a = get_game(&mut gc, &nobody, "").await.result;
        let b = get_game(&mut gc, &started, "").await.result;
        if let (Some(a), Some(b)) = (a, b) {
            break (a, b);
        }
        assert!(tokio::time::Instant::now() < end, "idle games did not end");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(cancelled.reason, pb::GameEndReason::Cancelled as i32, "{cancelled:?}");
    assert_eq!(cancelled.winner, None);
    assert_eq!(get_game(&mut gc, &nobody, "").await.phase, pb::Phase::GameOver as i32);
    assert!(list(&mut lobby).await.is_empty(), "a cancelled game is not open");
    assert_eq!(abandoned.reason, pb::GameEndReason::Abandoned as i32, "{abandoned:?}");
    assert_eq!(abandoned.loser_by_default, Some(to_act));
    assert_eq!(abandoned.winner, Some(1 - to_act));
    // The tournament's games are abandoned one after the other, and it ends.
    let state = loop {
        let st = tours.get_tournament(pb::GetTournamentRequest { tournament_id: tid.clone() }).await.unwrap();
        let st = st.into_inner().state.unwrap();
        if st.status == pb::TournamentStatus::Finished as i32 {
            break st;
        }
        assert!(
            tokio::time::Instant::now() < end + Duration::from_secs(15),
            "the tournament stalled: {st:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(state.games_done, 3);
    drop(entrants);
    // After a restart, the same ends.
    server.stop().await;
    let server = TestServer::start_with(cfg).await;
    let mut gc = Games::new(server.channel().await);
    assert_eq!(get_game(&mut gc, &nobody, "").await.result, Some(cancelled));
    assert_eq!(get_game(&mut gc, &started, "").await.result, Some(abandoned));
    server.stop().await;
}

/// The answers a caller gets name its real problem.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_name_the_real_problem() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(config(&dir.path().join("err.db"))).await;
    let ch = server.channel().await;
    let mut gc = Games::new(ch.clone());
    let (game, players) = new_game_req(&ch, pb::CreateGameRequest::default()).await;
    // A valid seat token, for a game that does not exist: not found.
    let e = gc
        .resign(authed(
            pb::ResignRequest { game_id: "feedfacefeedface".into(), expected_seq: 0 },
            &players[0].token,
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "{e:?}");
    // For another game that exists: permission denied.
    let (other, _) = new_game_req(&ch, pb::CreateGameRequest::default()).await;
    let e = gc
        .resign(authed(pb::ResignRequest { game_id: other.clone(), expected_seq: 0 }, &players[0].token))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    // During the upcard offer, the seat not to act is told it is not its turn, whatever it asks.
    let snap = get_game(&mut gc, &game, "").await;
    assert_eq!(snap.phase, pb::Phase::UpcardOffer as i32);
    let idle = &players[1 - snap.seat_to_act.unwrap() as usize];
    let draw = pb::DrawRequest {
        game_id: game.clone(),
        expected_seq: snap.seq,
        source: pb::DrawSource::Stock as i32,
    };
    let e = gc.draw(authed(draw, &idle.token)).await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    assert!(e.message().contains("not your turn"), "{e:?}");
    let take = pb::TakeUpcardRequest { game_id: game.clone(), expected_seq: snap.seq };
    let e = gc.take_upcard(authed(take, &idle.token)).await.unwrap_err();
    assert!(e.message().contains("not your turn"), "{e:?}");
    // The seat to act still hears about the offer.
    let actor = &players[snap.seat_to_act.unwrap() as usize];
    let draw = pb::DrawRequest {
        game_id: game.clone(),
        expected_seq: snap.seq,
        source: pb::DrawSource::Stock as i32,
    };
    let e = gc.draw(authed(draw, &actor.token)).await.unwrap_err();
    assert!(e.message().contains("first turn"), "{e:?}");
    assert_eq!(get_game(&mut gc, &game, "").await.seq, snap.seq, "nothing applied");
    server.stop().await;
}

/// Resigns `token`'s seat of `game` (a clock may move first: asked again), unless it is over.
async fn resign(gc: &mut Games, game: &str, token: &str) {
    for _ in 0..200 {
        let seq = get_game(gc, game, token).await.seq;
        let r = gc.resign(authed(pb::ResignRequest { game_id: game.into(), expected_seq: seq }, token));
        match r.await {
            Ok(_) => return,
            Err(e) if e.code() == Code::Aborted => continue, // the clock moved first
            Err(e) if e.code() == Code::FailedPrecondition => return, // over already
            Err(e) => panic!("resign: {e:?}"),
        }
    }
    panic!("{game}: never resigned");
}

/// The reveals of every hand ended that `snap` and `events` carry: (deck, salt, commitment)
/// lengths.
fn reveals(snap: Option<&pb::GameSnapshot>, events: &[pb::WatchGameResponse]) -> Vec<(usize, usize, usize)> {
    use pb::game_event::Kind as K;
    let of = |r: &Option<pb::DealReveal>| {
        let r = r.as_ref().expect("a hand's result carries its reveal");
        (r.deck.len(), r.salt.len(), r.commitment.len())
    };
    let mut v = Vec::new();
    if let Some(s) = snap {
        v.extend(s.hands.iter().map(|h| of(&h.reveal)));
        v.extend(s.table_hands.iter().map(|h| of(&h.reveal)));
    }
    for e in events.iter().filter_map(event) {
        match &e.kind {
            Some(K::HandEnded(h)) => v.push(of(&h.result.as_ref().unwrap().reveal)),
            Some(K::TableHandEnded(h)) => v.push(of(&h.result.as_ref().unwrap().reveal)),
            _ => {}
        }
    }
    v
}

/// Issue 36, item 1: a duplicate tournament's games share their deals (a pair, or a pass over
/// a table's seatings), and every deal seed derives from the tournament's seed: no game of it
/// gives its seed or a dealt deck away before the tournament is over. Its record is refused,
/// its hands' reveals (in the stream, in snapshots, live or read again) carry the commitment
/// only; once the tournament is over, every record and reveal is there and checks out. At
/// two-player gin and at three-player gin (4 entrants, 3 games per table, 4 at once), each
/// game played by its clock until a hand ended, then resigned.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournaments_deals_stay_secret_until_it_is_over() {
    use pb::game_event::Kind as K;
    // (format, players, entrants, games per pairing, games per deal)
    for (format, players, entrants, per_pairing, per_deal) in [("", 0, 2, 4, 2), ("three-player", 3, 4, 3, 3)]
    {
        let dir = tempfile::tempdir().unwrap();
        let server = TestServer::start_with(config(&dir.path().join("sealed.db"))).await;
        let ch = server.channel().await;
        let mut gc = Games::new(ch.clone());
        let tours = Tours::new(ch.clone());
        let spec = pb::TournamentSpec {
            entrants,
            games_per_pairing: per_pairing,
            duplicate: true,
            parallel: 4,
            game_format: format.into(),
            players,
            clock: Some(pb::TurnClock { turn_millis: 100, policy: pb::ClockPolicy::AutoPlay as i32 }),
            ..Default::default()
        };
        let tid = create_tournament(&ch, spec).await;
        let names: Vec<String> = (0..entrants).map(|i| format!("e{i}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(String, String)>();
        for mut s in enter_tournament(&ch, &tid, &names).await {
            let tx = tx.clone();
            tokio::spawn(async move {
                while let Ok(Some(m)) = s.message().await {
                    if let Some(pb::join_tournament_response::Kind::Assignment(a)) = m.kind {
                        let _ = tx.send((a.game_id, a.seat_token));
                    }
                }
            });
        }
        drop(tx);
        let status = |mut t: Tours, tid: String| async move {
            let st = t.get_tournament(pb::GetTournamentRequest { tournament_id: tid }).await.unwrap();
            st.into_inner().state.unwrap()
        };
        let total = status(tours.clone(), tid.clone()).await.games_total as usize;
        let mut seen = std::collections::HashSet::new();
        let (mut checked, mut refused) = (0, 0);
        while seen.len() < total {
            let (game, token) = tokio::time::timeout(Duration::from_secs(60), rx.recv())
                .await
                .expect("assignments keep coming")
                .expect("the entrants' streams are open");
            if !seen.insert(game.clone()) {
                continue;
            }
            // Watch it until a hand ended (the clock plays), then resign it.
            let mut live = watch(&mut gc, &game, "", 0).await;
            let mut events = Vec::new();
            let end = tokio::time::Instant::now() + Duration::from_secs(60);
            loop {
                let m = tokio::time::timeout_at(end, live.message()).await.expect("a hand ends").unwrap();
                let Some(m) = m else { break };
                let done = event(&m).is_some_and(|e| {
                    matches!(e.kind, Some(K::HandEnded(_) | K::TableHandEnded(_) | K::GameOver(_)))
                });
                events.push(m);
                if done {
                    break;
                }
            }
            resign(&mut gc, &game, &token).await;
            // Over: read by anyone, while the tournament is not.
            let record = gc.get_record(pb::GetRecordRequest { game_id: game.clone() }).await;
            let snap = get_game(&mut gc, &game, "").await;
            assert!(snap.result.is_some(), "{game}: resigned");
            let (again, _) = drain(&mut watch(&mut gc, &game, "", 1).await, Duration::from_secs(10)).await;
            // Item 8: its seats are entrants', not house bots.
            assert!(snap.seats.iter().all(|s| s.taken && s.entrant && !s.bot), "{:?}", snap.seats);
            let joined = again.iter().filter_map(event).filter_map(|e| match &e.kind {
                Some(K::PlayerJoined(j)) => Some((j.bot, j.entrant)),
                _ => None,
            });
            assert_eq!(joined.collect::<Vec<_>>(), vec![(false, true); snap.seats.len() - 1], "{game}");
            let shown = reveals(Some(&snap), &events).into_iter().chain(reveals(None, &again));
            let shown: Vec<_> = shown.collect();
            assert!(!shown.is_empty(), "{game}: a hand ended");
            let over =
                status(tours.clone(), tid.clone()).await.status == pb::TournamentStatus::Finished as i32;
            if over {
                continue; // the last games may end it: then everything may be shown
            }
            checked += 1;
            match record {
                Err(e) => {
                    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
                    assert!(e.message().contains("tournament is over"), "{e:?}");
                    refused += 1;
                }
                Ok(r) => {
                    let r = r.into_inner();
                    panic!(
                        "{game}: the record of a game of a tournament in play was given: {}",
                        r.record_text
                    )
                }
            }
            for (deck, salt, commitment) in shown {
                assert_eq!((deck, salt, commitment), (0, 0, 32), "{game}: a deck shown before the end");
            }
        }
        assert!(checked >= total / 2 && refused == checked, "{checked} of {total} games checked in play");
        // Over: every record, its seed, and every reveal, checked against the deal.
        let end = tokio::time::Instant::now() + Duration::from_secs(30);
        let st = loop {
            let st = status(tours.clone(), tid.clone()).await;
            if st.status == pb::TournamentStatus::Finished as i32 {
                break st;
            }
            assert!(tokio::time::Instant::now() < end, "the tournament did not end");
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        let mut deals = std::collections::HashMap::<u64, usize>::new();
        for g in &st.games {
            *deals.entry(g.deal_seed).or_default() += 1;
            let rec = gc.get_record(pb::GetRecordRequest { game_id: g.game_id.clone() }).await.unwrap();
            let rec = rec.into_inner();
            let seed = format!("seed {}", g.deal_seed);
            assert!(rec.record_text.lines().any(|l| l == seed), "{seed}: {}", rec.record_text);
            assert!(!rec.reveals.is_empty());
            for (n, r) in rec.reveals.iter().enumerate() {
                let deck: engine::Deck = r.deck.join(" ").parse().unwrap();
                assert_eq!(deck, engine::Deck::shuffled(g.deal_seed, n as u64), "{} hand {n}", g.game_id);
                assert!(engine::verify_deal(&deck, &r.salt, &r.commitment));
            }
            let snap = get_game(&mut gc, &g.game_id, "").await;
            assert!(reveals(Some(&snap), &[]).iter().all(|&(d, s, _)| d == 52 && s > 0), "{}", g.game_id);
        }
        assert!(deals.values().all(|&n| n == per_deal), "{deals:?}: each deal shared");
        server.stop().await;
    }
}

/// Issue 36, item 2: a game under an auto-play clock that every seat has left ends. The clock
/// plays each absent seat's turns (and knocks when its move can: hands end scored), but its
/// moves are not the seat's own, nor are a house bot's: a game in which no seat acted itself
/// for the idle limit is abandoned by its seat to act, never by the house's bot. Two-player
/// gin (two people gone), three-player gin (two people gone, a house bot playing on), and
/// two-player gin against the house bot; each ends `ABANDONED`, its phase over.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_its_clock_plays_for_absent_seats_ends() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = gin_server::Config {
        idle_game_ttl: Duration::from_millis(1500),
        ..config(&dir.path().join("clocked.db"))
    };
    let server = TestServer::start_with(cfg).await;
    let ch = server.channel().await;
    let mut lobby = Lobby::new(ch.clone());
    let mut gc = Games::new(ch.clone());
    let clock = Some(pb::TurnClock { turn_millis: 100, policy: pb::ClockPolicy::AutoPlay as i32 });
    let create =
        |req: pb::CreateGameRequest| pb::CreateGameRequest { clock, join: true, name: "gone".into(), ..req };
    let two = lobby.create_game(create(Default::default())).await.unwrap().into_inner();
    lobby.join_game(join_req(&two.game_id, "gone too", false)).await.unwrap();
    let three = pb::CreateGameRequest {
        format: "three-player".into(),
        house_bot: "simple".into(),
        house_bots: 1,
        ..Default::default()
    };
    let three = lobby.create_game(create(three)).await.unwrap().into_inner();
    lobby.join_game(join_req(&three.game_id, "gone too", false)).await.unwrap();
    let bot = pb::CreateGameRequest { house_bot: "simple".into(), ..Default::default() };
    let bot = lobby.create_game(create(bot)).await.unwrap().into_inner();

    let games = [(&two, None), (&three, Some(2)), (&bot, Some(1))];
    let end = tokio::time::Instant::now() + Duration::from_secs(15);
    for (g, house_seat) in games {
        let snap = loop {
            let snap = get_game(&mut gc, &g.game_id, "").await;
            if snap.result.is_some() {
                break snap;
            }
            assert!(tokio::time::Instant::now() < end, "{}: still in play at seq {}", g.game_id, snap.seq);
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        let r = snap.result.clone().unwrap();
        assert_eq!(r.reason, pb::GameEndReason::Abandoned as i32, "{r:?}");
        assert_eq!(snap.phase, pb::Phase::GameOver as i32);
        let loser = r.loser_by_default.expect("a seat abandoned it");
        assert_ne!(Some(loser), house_seat, "the house's bot never abandons: {r:?}");
        assert!(snap.seats.iter().all(|s| s.taken));
        assert_eq!(snap.seats.iter().filter(|s| s.bot).count(), usize::from(house_seat.is_some()));
        assert!(snap.seats.iter().all(|s| !s.entrant), "no tournament here: {:?}", snap.seats);
        // The clock did play for the absent seats before the limit.
        let (events, _) = drain(&mut watch(&mut gc, &g.game_id, "", 1).await, Duration::from_secs(5)).await;
        let expired = events
            .iter()
            .filter_map(event)
            .filter(|e| matches!(e.kind, Some(pb::game_event::Kind::ClockExpired(_))));
        assert!(expired.count() >= 3, "{}: the clock played", g.game_id);
    }
    server.stop().await;
}

/// Issue 36, item 1, from the store: a finished game of a tournament not over stays sealed
/// when it is read back (left memory) and after a restart (the tournament reads its games
/// back and seals them again).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_game_read_back_or_restarted_stays_sealed() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = gin_server::Config { keep_finished: Duration::ZERO, ..config(&dir.path().join("restart.db")) };
    let server = TestServer::start_with(cfg.clone()).await;
    let ch = server.channel().await;
    let mut gc = Games::new(ch.clone());
    let spec = pb::TournamentSpec {
        entrants: 2,
        games_per_pairing: 2,
        duplicate: true,
        parallel: 2,
        clock: Some(pb::TurnClock { turn_millis: 100, policy: pb::ClockPolicy::AutoPlay as i32 }),
        ..Default::default()
    };
    let tid = create_tournament(&ch, spec).await;
    let mut streams = enter_tournament(&ch, &tid, &["a", "b"]).await;
    // The first game (its pair's second waits for it): its first hand, then resigned.
    let (game, token) = loop {
        match streams[0].message().await.unwrap().unwrap().kind {
            Some(pb::join_tournament_response::Kind::Assignment(a)) => break (a.game_id, a.seat_token),
            _ => continue,
        }
    };
    let mut live = watch(&mut gc, &game, "", 0).await;
    loop {
        let m =
            tokio::time::timeout(Duration::from_secs(60), live.message()).await.unwrap().unwrap().unwrap();
        if event(&m).is_some_and(|e| matches!(e.kind, Some(pb::game_event::Kind::HandEnded(_)))) {
            break;
        }
    }
    resign(&mut gc, &game, &token).await;
    let sealed = |mut gc: Games, game: String| async move {
        let e = gc.get_record(pb::GetRecordRequest { game_id: game.clone() }).await.unwrap_err();
        assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
        let snap = get_game(&mut gc, &game, "").await;
        assert!(snap.result.is_some());
        let (again, _) = drain(&mut watch(&mut gc, &game, "", 1).await, Duration::from_secs(10)).await;
        let shown = reveals(Some(&snap), &again);
        assert!(!shown.is_empty() && shown.iter().all(|&r| r == (0, 0, 32)), "{shown:?}");
    };
    sealed(gc.clone(), game.clone()).await;
    // Out of memory (kept 0 s: evicted within a second), read back from the database.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    sealed(gc.clone(), game.clone()).await;
    // After a restart: the tournament (its entrants gone) is not over.
    drop(streams);
    server.stop().await;
    let server = TestServer::start_with(cfg).await;
    let gc = Games::new(server.channel().await);
    sealed(gc.clone(), game.clone()).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    sealed(gc, game).await;
    server.stop().await;
}
