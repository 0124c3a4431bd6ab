//! Complete games over real loopback sockets with the generated clients, checked against
//! the engine; hidden information never reaches a viewer that may not see it.

mod common;

use common::*;
use engine::{CardSet, Seat};
use gin_proto::v1 as pb;
use gin_proto::v1::game_service_client::GameServiceClient;
use tokio_stream::StreamExt;

async fn watch(
    gc: &mut GameServiceClient<tonic::transport::Channel>,
    game: &str,
    token: &str,
    after: u64,
) -> tonic::Streaming<pb::WatchGameResponse> {
    gc.watch_game(authed(pb::WatchGameRequest { game_id: game.into(), resume_after_seq: after }, token))
        .await
        .unwrap()
        .into_inner()
}

fn event(m: &pb::WatchGameResponse) -> Option<&pb::GameEvent> {
    match &m.kind {
        Some(pb::watch_game_response::Kind::Event(e)) => Some(e),
        _ => None,
    }
}

/// Plays one whole game with random legal actions; returns the actions taken, every message
/// each viewer (seat 0, seat 1, spectator) received, and the game-over result.
pub async fn play_game(
    ch: &tonic::transport::Channel,
    rules: pb::Rules,
    seed: u64,
) -> (String, Vec<(Seat, engine::Action)>, [Vec<pb::WatchGameResponse>; 3], pb::GameResult) {
    let (game, mut players) = new_game(ch, rules, seed).await;
    let mut gc = GameServiceClient::new(ch.clone());
    let mut s0 = watch(&mut gc, &game, &players[0].token, 0).await;
    let mut s1 = watch(&mut gc, &game, &players[1].token, 0).await;
    let mut s2 = watch(&mut gc, &game, "", 0).await;
    let mut received: [Vec<pb::WatchGameResponse>; 3] = Default::default();
    let mut actions = Vec::new();
    let mut rng = Rng(seed);
    let mut result = None;
    let mut done = [false; 3];
    while done.iter().any(|d| !d) {
        // Read whichever stream has something; spectator too.
        let (i, msg) = tokio::select! {
            m = s0.next(), if !done[0] => (0, m),
            m = s1.next(), if !done[1] => (1, m),
            m = s2.next(), if !done[2] => (2, m),
        };
        let Some(msg) = msg else {
            done[i] = true;
            continue;
        };
        let msg = msg.expect("stream error");
        received[i].push(msg.clone());
        // The seat to act learns its legal actions from the snapshot (when it starts watching
        // during its turn) or from the TurnStarted event.
        let turn = match &msg.kind {
            Some(pb::watch_game_response::Kind::Snapshot(s)) => {
                if i < 2 {
                    players[i].last_seq = s.seq;
                }
                s.turn.clone()
            }
            Some(pb::watch_game_response::Kind::Event(e)) => {
                if i < 2 {
                    players[i].last_seq = e.seq;
                }
                match &e.kind {
                    Some(pb::game_event::Kind::GameOver(g)) => {
                        result = g.result.clone();
                        None
                    }
                    Some(pb::game_event::Kind::TurnStarted(t)) if i < 2 && t.seat == players[i].seat => {
                        Some(t.turn.clone().expect("the seat to act gets its turn info"))
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        match turn {
            Some(turn) if i < 2 => {
                // Half the time the sensible move (knock, else the best discard), else random.
                let sensible = turn
                    .legal_actions
                    .iter()
                    .find(|a| a.kind == pb::ActionKind::Knock as i32)
                    .cloned()
                    .or_else(|| {
                        turn.legal_actions
                            .iter()
                            .find(|a| a.kind == pb::ActionKind::Discard as i32 && a.card == turn.best_discard)
                            .cloned()
                    });
                let a = match sensible {
                    Some(a) if rng.below(2) == 0 => a,
                    _ => pick(&mut rng, &turn.legal_actions),
                };

                send(&mut gc, &players[i], &a).await.expect("a legal action is accepted");
                actions.push((Seat::new(players[i].seat as u8).unwrap(), engine_action(&a)));
            }
            _ => {}
        }
    }
    (game, actions, received, result.expect("game over"))
}

fn cards(v: &[String]) -> CardSet {
    v.iter().map(|c| c.parse::<engine::Card>().unwrap()).collect()
}

/// Every card named anywhere in a message (except finished hands' showdowns and reveals,
/// which are public once the hand is over), for the leak check.
fn cards_in(m: &pb::WatchGameResponse) -> CardSet {
    use pb::game_event::Kind as K;
    match &m.kind {
        Some(pb::watch_game_response::Kind::Snapshot(s)) => cards(&s.hand) | cards(&s.pile),
        Some(pb::watch_game_response::Kind::Event(e)) => match &e.kind {
            Some(K::HandDealt(d)) => cards(&d.your_hand) | cards(std::slice::from_ref(&d.upcard)),
            Some(K::CardDrawn(d)) if !d.card.is_empty() => cards(std::slice::from_ref(&d.card)),
            Some(K::CardDiscarded(d)) => cards(std::slice::from_ref(&d.card)),
            Some(K::TurnStarted(t)) => t.turn.as_ref().map_or(CardSet::EMPTY, |t| {
                let mut c: CardSet = t
                    .legal_actions
                    .iter()
                    .filter(|a| !a.card.is_empty())
                    .map(|a| a.card.parse::<engine::Card>().unwrap())
                    .collect();
                if let Some(b) = &t.best {
                    c |= cards(&b.deadwood);
                    for m in &b.melds {
                        c |= cards(&m.cards);
                    }
                }
                c
            }),
            _ => CardSet::EMPTY,
        },
        _ => CardSet::EMPTY,
    }
}

/// Replays the game with the engine, hand by hand, and checks every message each viewer got
/// against what that viewer may see at that point.
fn check_no_leaks(
    rules: &engine::RuleSet,
    seed: u64,
    actions: &[(Seat, engine::Action)],
    received: &[Vec<pb::WatchGameResponse>; 3],
) {
    // Per hand: the cards each seat may see = its own cards ever held in that hand + every
    // face-up card of that hand. A spectator: face-up cards only.
    let mut g = engine::Game::new(engine::GameSetup::new(rules.clone(), seed)).unwrap();
    let mut allowed: Vec<[CardSet; 3]> = Vec::new();
    let mut cur = [CardSet::EMPTY; 3];
    let snap = |g: &engine::Game, cur: &mut [CardSet; 3]| {
        let h = g.hand();
        let public: CardSet =
            h.pile().iter().copied().collect::<CardSet>() | h.known_cards(Seat::S0) | h.known_cards(Seat::S1);
        cur[0] |= h.cards(Seat::S0) | public;
        cur[1] |= h.cards(Seat::S1) | public;
        cur[2] |= public;
    };
    snap(&g, &mut cur);
    for (seat, a) in actions {
        let before_hands = g.hands().len();
        g.apply(*seat, a).unwrap();
        if g.hands().len() > before_hands {
            // The discard that ended a dead hand was face up for everyone.
            if let engine::Action::Discard { card } = a {
                for c in cur.iter_mut() {
                    c.insert(*card);
                }
            }
            allowed.push(cur);
            cur = [CardSet::EMPTY; 3];
        }
        snap(&g, &mut cur);
    }
    allowed.push(cur);
    for (viewer, msgs) in received.iter().enumerate() {
        let mut hand = 0usize;
        for m in msgs {
            if let Some(e) = event(m)
                && let Some(pb::game_event::Kind::HandDealt(d)) = &e.kind
            {
                hand = d.hand_number as usize;
            }
            let seen = cards_in(m);
            let ok = allowed[hand.min(allowed.len() - 1)][viewer];
            assert!(
                ok.is_superset(seen),
                "viewer {viewer} saw {:?} it may not see in hand {hand}: {m:?}",
                seen - ok
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn complete_games_match_the_engine_and_hide_cards() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("g.db")).await;
    let ch = server.channel().await;
    for (name, seed) in [("standard", 11u64), ("oklahoma", 12), ("american", 13), ("classic", 14)] {
        let (game, actions, received, result) = play_game(&ch, preset(name), seed).await;
        // The engine, given the same seed and actions, reaches the same result.
        let rules = engine::RuleSet::preset(name).unwrap();
        let mut g = engine::Game::new(engine::GameSetup::new(rules.clone(), seed)).unwrap();
        for (s, a) in &actions {
            g.apply(*s, a).unwrap();
        }
        let want = g.result().expect("the engine's game is over too");
        assert_eq!(result.totals, want.totals.0.to_vec(), "{name}");
        assert_eq!(result.winner, want.winner.map(|s| s.index() as u32), "{name}");
        assert_eq!(result.margin, want.margin, "{name}");
        check_no_leaks(&rules, seed, &actions, &received);
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
        for msgs in &received {
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
