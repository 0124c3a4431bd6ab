//! Tables of every format over the network: three players, teams, gin for 3 to 6, rummy.
//! Real sockets, a real database file, the generated clients.
//!
//! - Every seat and a spectator watch whole games played by test clients through the RPCs
//!   (rummy's melds and lay-offs included); each message each viewer got is checked against
//!   an engine replay: no viewer ever gets a card it may not see at that point.
//! - The record the server gives at the end replays, with the engine, to the result the
//!   server announced, move for move the moves the clients made.
//! - House bots fill the seats of a quick match and of a created game, at every format.
//! - Stale and refused moves change nothing; team play's two tables do not make each other
//!   stale.

use crate::common;

use std::time::Duration;

use common::*;
use engine::{CardSet, Move, Table};
use gin_proto::v1 as pb;
use gin_proto::v1::lobby_service_client::LobbyServiceClient;
use tonic::transport::Channel;

/// A seat held by a test client.
pub struct TableSeat {
    pub token: String,
}

/// Creates a game of `format` (a preset or a JSON document) with every seat taken by test
/// clients: the creator takes seat 0, the others join in order.
pub async fn new_table(ch: &Channel, format: &str, players: u32, seed: u64) -> (String, Vec<TableSeat>) {
    let mut lobby = LobbyServiceClient::new(ch.clone());
    let c = lobby
        .create_game(pb::CreateGameRequest {
            format: format.into(),
            players,
            join: true,
            name: "p0".into(),
            seed,
            ..Default::default()
        })
        .await
        .unwrap_or_else(|e| panic!("create {format}: {e:?}"))
        .into_inner();
    let n = players.max(1);
    assert_eq!(c.seat, Some(0));
    let mut seats = vec![TableSeat { token: c.seat_token }];
    let snap = get_game(&mut Games::new(ch.clone()), &c.game_id, "").await;
    let size = snap.seats.len() as u32;
    assert!(size >= n, "{format}: {size} seats");
    for k in 1..size {
        let j = lobby
            .join_game(pb::JoinGameRequest {
                game_id: c.game_id.clone(),
                name: format!("p{k}"),
                seat: None,
                accept_fixed_deals: true,
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(j.seat, k, "seats are taken in order");
        seats.push(TableSeat { token: j.seat_token });
    }
    (c.game_id, seats)
}

/// The move a test client makes: half the time the sensible one (a meld or a lay-off, a
/// knock, the best discard, the stock), else any legal one.
pub fn choose_move(rng: &mut Rng, turn: &pb::TurnInfo) -> pb::LegalAction {
    use pb::ActionKind as K;
    let find = |k: K, card: Option<&str>| {
        turn.legal_actions.iter().find(|a| a.kind == k as i32 && card.is_none_or(|c| a.card == c)).cloned()
    };
    let sensible = find(K::Meld, None)
        .or_else(|| find(K::LayOff, None))
        .or_else(|| find(K::Knock, None))
        .or_else(|| find(K::Discard, Some(&turn.best_discard)))
        .or_else(|| find(K::DrawStock, None));
    match sensible {
        Some(a) if rng.below(3) != 0 => a,
        _ => turn.legal_actions[rng.below(turn.legal_actions.len())].clone(),
    }
}

/// Every card a message of a table game names, except finished hands' results and reveals
/// (public once the hand is over) and the game's end.
pub fn table_cards_in(m: &pb::WatchGameResponse) -> CardSet {
    use pb::game_event::Kind as K;
    let one = |c: &String| if c.is_empty() { CardSet::EMPTY } else { card_set(std::slice::from_ref(c)) };
    let turn = |t: &pb::TurnInfo| {
        let mut c = one(&t.best_discard);
        for a in &t.legal_actions {
            c |= one(&a.card) | card_set(&a.cards);
        }
        if let Some(b) = &t.best {
            c |= card_set(&b.deadwood);
            for m in &b.melds {
                c |= card_set(&m.cards);
            }
        }
        c
    };
    match &m.kind {
        Some(pb::watch_game_response::Kind::Snapshot(s)) => {
            let mut c = card_set(&s.hand) | card_set(&s.pile);
            for t in &s.tables {
                c |= card_set(&t.pile);
                for k in &t.known {
                    c |= card_set(&k.cards);
                }
                for m in &t.melds {
                    c |= card_set(&m.cards);
                }
            }
            if let Some(t) = &s.turn {
                c |= turn(t);
            }
            c
        }
        Some(pb::watch_game_response::Kind::Event(e)) => match &e.kind {
            Some(K::HandDealt(d)) => card_set(&d.your_hand) | one(&d.upcard),
            Some(K::CardDrawn(d)) => one(&d.card),
            Some(K::CardDiscarded(d)) => one(&d.card),
            Some(K::MeldLaid(d)) => d.meld.as_ref().map_or(CardSet::EMPTY, |m| card_set(&m.cards)),
            Some(K::CardLaidOff(d)) => one(&d.card),
            Some(K::PileTurned(d)) => card_set(&d.pile),
            Some(K::TurnStarted(t)) => t.turn.as_ref().map_or(CardSet::EMPTY, turn),
            _ => CardSet::EMPTY,
        },
        _ => CardSet::EMPTY,
    }
}

/// A table game played over the network, watched by every seat and a spectator.
pub struct PlayedTable {
    pub game_id: String,
    pub players: u8,
    /// Every move with the seat that made it and the seq it produced.
    pub moves: Vec<(u8, Move, u64)>,
    /// The seq before the first move.
    pub start_seq: u64,
    /// What each seat (then the spectator) received.
    pub received: Vec<Vec<pb::WatchGameResponse>>,
    pub result: pb::GameResult,
    pub record: pb::GetRecordResponse,
}

/// Plays game `game` (every seat in `seats`) with [`choose_move`] to its end: whichever seat
/// may act moves (in team play, the two tables in turn), each from its own GetGame snapshot.
pub async fn play_table(ch: &Channel, game: &str, seats: &[TableSeat], seed: u64) -> PlayedTable {
    let mut gc = Games::new(ch.clone());
    let mut streams = Vec::new();
    for s in seats {
        streams.push(watch(&mut gc, game, &s.token, 0).await);
    }
    streams.push(watch(&mut gc, game, "", 0).await);
    let mut rng = Rng(seed);
    let mut moves = Vec::new();
    let start_seq = get_game(&mut gc, game, "").await.seq;
    let mut round = 0usize;
    loop {
        let spectator = get_game(&mut gc, game, "").await;
        if spectator.result.is_some() {
            break;
        }
        assert!(!spectator.seats_to_act.is_empty(), "nobody to act in a game not over: {spectator:?}");
        assert_eq!(spectator.seat_to_act, spectator.seats_to_act.first().copied());
        // Team play: each of the seats to act in turn.
        let seat = spectator.seats_to_act[round % spectator.seats_to_act.len()];
        round += 1;
        let me = &seats[seat as usize];
        let snap = get_game(&mut gc, game, &me.token).await;
        let turn = snap.turn.clone().unwrap_or_else(|| panic!("seat {seat} to act has no turn: {snap:?}"));
        let a = choose_move(&mut rng, &turn);
        let p = Player {
            seat,
            token: me.token.clone(),
            game_id: game.into(),
            last_seq: snap.seq,
            messages: Vec::new(),
        };
        let seq = send(&mut gc, &p, &a).await.unwrap_or_else(|e| panic!("legal {a:?} refused: {e:?}"));
        moves.push((seat as u8, engine_move(&a), seq));
        assert!(moves.len() < 20_000, "game {game} does not end");
    }
    let mut received = Vec::new();
    for mut s in streams {
        let (msgs, err) = drain(&mut s, Duration::from_secs(30)).await;
        assert!(err.is_none(), "stream ended with {err:?}");
        received.push(msgs);
    }
    let record = gc
        .get_record(pb::GetRecordRequest { game_id: game.into() })
        .await
        .expect("the record of a finished game")
        .into_inner();
    let result = record.result.clone().expect("a result");
    PlayedTable {
        game_id: game.into(),
        players: seats.len() as u8,
        moves,
        start_seq,
        received,
        result,
        record,
    }
}

/// Checks `g`'s record (it replays, with the engine, to the result announced and holds the
/// moves the clients made) and every viewer's messages (no card it may not see at that
/// point: replaying the moves, a seat may see what its view showed so far in the hands in
/// play, a spectator what the spectator's view showed). Returns the messages checked.
pub fn check_table(g: &PlayedTable) -> usize {
    let rec = engine::TableRecord::parse(&g.record.record_json)
        .unwrap_or_else(|e| panic!("game {}: record: {e}", g.game_id));
    let replayed = rec.replay().unwrap_or_else(|e| panic!("game {}: replay: {e}", g.game_id));
    let made: Vec<(u8, Move)> = g.moves.iter().map(|(s, m, _)| (*s, m.clone())).collect();
    let recorded: Vec<(u8, Move)> = rec.moves.iter().map(|m| (m.seat, m.action.clone())).collect();
    assert_eq!(recorded, made, "game {}: the record holds the moves made", g.game_id);
    let r = replayed.result().expect("the replay ends");
    assert_eq!(g.result.reason, pb::GameEndReason::Target as i32);
    assert_eq!(g.result.table_totals, r.totals, "game {}: totals", g.game_id);
    assert_eq!(g.result.winners, r.winners.iter().map(|&w| u32::from(w)).collect::<Vec<_>>());
    assert_eq!(g.result.places, r.places.iter().map(|&p| u32::from(p)).collect::<Vec<_>>());
    assert_eq!(g.record.reveals.len(), replayed.hands().len(), "a reveal for every hand dealt");

    // Replay the moves; per state k (0: before the first move), what each viewer may have
    // seen of the hands in play so far (reset when a new deal starts), and of the hands just
    // finished.
    let mut t = Table::new(rec.setup.clone()).unwrap();
    let n = g.players as usize;
    let views = |t: &Table| -> Vec<CardSet> {
        (0..n as u8)
            .map(|s| t.view(s).visible_cards())
            .chain(std::iter::once(t.spectator_view().visible_cards()))
            .collect()
    };
    let deal = |t: &Table| t.spectator_view().hand_number();
    let mut allowed: Vec<Vec<CardSet>> = vec![views(&t)];
    let mut cum = views(&t);
    for (seat, m, _) in &g.moves {
        let before = deal(&t);
        t.apply(*seat, m).unwrap_or_else(|e| panic!("game {}: the engine refuses {m}: {e}", g.game_id));
        let mut seen_now = views(&t);
        // A face-up discard is seen by everyone, even one that ended the hand.
        if let Move::Discard { card } = m {
            for c in seen_now.iter_mut() {
                c.insert(*card);
            }
        }
        if deal(&t) != before || t.is_over() {
            // A new deal: what was seen of the finished hands stays allowed for the messages
            // of this move; the next moves start afresh.
            let here: Vec<CardSet> = cum.iter().zip(&seen_now).map(|(a, b)| *a | *b).collect();
            allowed.push(here);
            cum = views(&t);
        } else {
            for (c, v) in cum.iter_mut().zip(&seen_now) {
                *c |= *v;
            }
            allowed.push(cum.clone());
        }
    }
    let state_of = |s: u64| -> usize {
        if s <= g.start_seq { 0 } else { 1 + g.moves.partition_point(|(_, _, r)| *r < s) }
    };
    let mut checked = 0;
    for (viewer, msgs) in g.received.iter().enumerate() {
        for m in msgs {
            let Some(seq) = msg_seq(m) else { continue };
            let seen = table_cards_in(m);
            checked += 1;
            if seen.is_empty() {
                continue;
            }
            let k = state_of(seq);
            assert!(
                k < allowed.len(),
                "game {}: viewer {viewer}: cards after the last move: {m:?}",
                g.game_id
            );
            let ok = allowed[k][viewer];
            assert!(
                ok.is_superset(seen),
                "game {}: viewer {viewer} saw {} it may not see (seq {seq}, state {k}): {m:?}",
                g.game_id,
                seen - ok
            );
        }
    }
    checked
}

/// Every format, short games, every seat and a spectator watching.
const FORMATS: [(&str, u32); 6] = [
    (r#"{"kind":"three-player","target":40}"#, 3),
    (r#"{"kind":"teams","target":40}"#, 4),
    (r#"{"kind":"gin-7","players":3,"end":{"hands":3}}"#, 3),
    (r#"{"kind":"gin-7","players":5,"end":{"hands":2}}"#, 5),
    (r#"{"kind":"rummy","players":3,"end":{"hands":3}}"#, 3),
    (r#"{"kind":"rummy","players":6,"end":{"hands":2}}"#, 6),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_format_plays_over_the_network_leaks_no_card_and_replays_from_its_record() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("tables.db")).await;
    let ch = server.channel().await;
    let mut checked = 0;
    for (i, (format, players)) in FORMATS.iter().enumerate() {
        let seed = 4_000 + i as u64;
        let (game, seats) = new_table(&ch, format, *players, seed).await;
        assert_eq!(seats.len() as u32, *players);
        let snap = get_game(&mut Games::new(ch.clone()), &game, &seats[0].token).await;
        let info = snap.format.clone().expect("the format");
        assert_eq!(info.players, *players);
        assert_eq!(
            snap.seats.iter().filter(|s| s.team.is_some()).count(),
            if info.kind == "teams" { 4 } else { 0 }
        );
        let g = play_table(&ch, &game, &seats, seed).await;
        let n = tokio::task::spawn_blocking(move || check_table(&g)).await.unwrap();
        assert!(n > 50, "{format}: only {n} messages");
        checked += n;
    }
    assert!(checked > 1_000, "{checked} messages checked");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rummy_moves_go_through_their_rpcs_and_refusals_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("rummy.db")).await;
    let ch = server.channel().await;
    let (game, seats) = new_table(&ch, r#"{"kind":"rummy","players":3,"end":{"hands":3}}"#, 3, 77).await;
    let mut gc = Games::new(ch.clone());
    let snap = get_game(&mut gc, &game, "").await;
    assert_eq!(snap.format.as_ref().unwrap().kind, "rummy");
    assert_eq!(snap.tables.len(), 1);
    assert_eq!(snap.tables[0].hand_sizes, vec![7, 7, 7], "rummy for 3: 7 cards each");
    assert!(snap.hand.is_empty(), "a spectator holds no cards");
    let first = snap.seat_to_act.unwrap();
    let me = &seats[first as usize];
    let mine = get_game(&mut gc, &game, &me.token).await;
    assert_eq!(mine.hand.len(), 7);
    let turn = mine.turn.clone().unwrap();
    assert!(turn.legal_actions.iter().any(|a| a.kind == pb::ActionKind::DrawStock as i32));

    // A meld before drawing, a lay-off onto no meld, a seat not to act: refused, unchanged.
    let cards: Vec<String> = mine.hand.iter().take(3).cloned().collect();
    let e = gc
        .lay_meld(authed(
            pb::LayMeldRequest { game_id: game.clone(), expected_seq: mine.seq, cards },
            &me.token,
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::FailedPrecondition, "{e:?}");
    let e = gc
        .lay_off(authed(
            pb::LayOffRequest {
                game_id: game.clone(),
                expected_seq: mine.seq,
                card: mine.hand[0].clone(),
                meld: 0,
            },
            &me.token,
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::FailedPrecondition, "{e:?}");
    let other = &seats[((first + 1) % 3) as usize];
    let e = gc
        .draw(authed(
            pb::DrawRequest {
                game_id: game.clone(),
                expected_seq: mine.seq,
                source: pb::DrawSource::Stock as i32,
            },
            &other.token,
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::FailedPrecondition, "{e:?}");
    assert!(e.message().contains("turn"), "{e:?}");
    let e = gc
        .knock(authed(
            pb::KnockRequest {
                game_id: game.clone(),
                expected_seq: mine.seq,
                discard: mine.hand[0].clone(),
                melds: vec![],
            },
            &me.token,
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::FailedPrecondition, "rummy has no knock: {e:?}");
    let e = gc
        .lay_meld(authed(
            pb::LayMeldRequest { game_id: game.clone(), expected_seq: mine.seq, cards: vec!["ZZ".into()] },
            &me.token,
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::InvalidArgument, "{e:?}");
    assert_eq!(get_game(&mut gc, &game, &me.token).await, mine, "refusals changed nothing");

    // Play on until melds have been laid and a card laid off through the RPCs.
    let g = play_table(&ch, &game, &seats, 77).await;
    let melds = g.moves.iter().filter(|(_, m, _)| matches!(m, Move::Meld { .. })).count();
    assert!(melds > 0, "no meld laid in a whole game");
    let spectator = &g.received[3];
    let laid = spectator
        .iter()
        .filter_map(event)
        .filter(|e| matches!(e.kind, Some(pb::game_event::Kind::MeldLaid(_))))
        .count();
    assert_eq!(laid, melds, "every meld is an event, with who laid it");
    let ends = spectator
        .iter()
        .filter_map(event)
        .filter_map(|e| match &e.kind {
            Some(pb::game_event::Kind::TableHandEnded(h)) => h.result.clone(),
            _ => None,
        })
        .collect::<Vec<_>>();
    assert_eq!(ends.len(), 3, "three hands, each ended with its result");
    for h in &ends {
        assert_eq!(h.outcomes.len(), 3, "every seat's cards laid down: {h:?}");
        assert!(h.reveal.is_some());
        assert_eq!(h.totals.len(), 3);
    }
    check_table(&g);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn house_bots_fill_a_table_by_quick_match_and_at_creation() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("bots.db")).await;
    let ch = server.channel().await;
    let mut lobby = LobbyServiceClient::new(ch.clone());
    let mut gc = Games::new(ch.clone());

    // Quick match for rummy at 3 with nobody else: two house bots after 100 ms.
    let q = lobby
        .quick_match(pb::QuickMatchRequest {
            format: r#"{"kind":"rummy","players":3,"end":{"hands":2}}"#.into(),
            name: "solo".into(),
            house_bot: "simple".into(),
            house_bot_after_ms: 100,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!((q.seat, q.house_bot.as_str()), (0, "simple"));
    let snap = get_game(&mut gc, &q.game_id, &q.seat_token).await;
    assert_eq!(snap.seats.iter().map(|s| s.bot).collect::<Vec<_>>(), vec![false, true, true]);
    let g = play_with_bots(&ch, &q.game_id, &q.seat_token, 0, 5).await;
    assert_eq!(g.reason, pb::GameEndReason::Target as i32);
    assert_eq!(g.table_totals.len(), 3);

    // A team game created with three house bots: the creator's partner and both opponents.
    let c = lobby
        .create_game(pb::CreateGameRequest {
            format: r#"{"kind":"teams","target":30}"#.into(),
            join: true,
            name: "lead".into(),
            house_bot: "simple".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let snap = get_game(&mut gc, &c.game_id, &c.seat_token).await;
    assert_eq!(snap.seats.iter().filter(|s| s.bot).count(), 3);
    assert_eq!(
        snap.seats.iter().map(|s| s.team).collect::<Vec<_>>(),
        vec![Some(0), Some(1), Some(0), Some(1)]
    );
    let r = play_with_bots(&ch, &c.game_id, &c.seat_token, 0, 6).await;
    assert_eq!(r.team_totals.len(), 2);
    assert_eq!(r.winners.len(), 2, "both partners win: {r:?}");

    // `strong` plays at every table: three players and teams (two-player hands), gin-7 and
    // rummy (its table search).
    for format in [
        r#"{"kind":"three-player","target":30}"#,
        r#"{"kind":"teams","target":30}"#,
        r#"{"kind":"gin-7","players":3,"end":{"points":20}}"#,
        r#"{"kind":"rummy","players":3,"end":{"target":40}}"#,
    ] {
        let c = lobby
            .create_game(pb::CreateGameRequest {
                format: format.into(),
                join: true,
                name: "me".into(),
                house_bot: "strong".into(),
                ..Default::default()
            })
            .await
            .unwrap_or_else(|e| panic!("{format}: {e:?}"))
            .into_inner();
        let snap = get_game(&mut gc, &c.game_id, &c.seat_token).await;
        assert!(snap.seats.iter().skip(1).all(|s| s.bot && s.name == "strong"), "{format}: {:?}", snap.seats);
        let r = play_with_bots(&ch, &c.game_id, &c.seat_token, 0, 7).await;
        assert_eq!(r.reason, pb::GameEndReason::Target as i32, "{format}");
    }

    // An unknown strategy or too many bots is refused.
    for (format, bot, bots) in [("gin-7", "nobody", 0), ("rummy", "nobody", 0), ("rummy", "simple", 4)] {
        let e = lobby
            .create_game(pb::CreateGameRequest {
                format: format.into(),
                house_bot: bot.into(),
                house_bots: bots,
                ..Default::default()
            })
            .await
            .unwrap_err();
        assert_eq!(e.code(), tonic::Code::InvalidArgument, "{format} {bot}: {e:?}");
    }
    server.stop().await;
}

/// Plays seat `seat` of `game` (the others house bots) with [`choose_move`] until the game
/// is over; its result.
pub async fn play_with_bots(ch: &Channel, game: &str, token: &str, seat: u32, seed: u64) -> pb::GameResult {
    let mut gc = Games::new(ch.clone());
    let mut rng = Rng(seed);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    loop {
        let snap = get_game(&mut gc, game, token).await;
        assert!(tokio::time::Instant::now() < deadline, "game {game} did not end: {snap:?}");
        if let Some(r) = snap.result {
            return r;
        }
        let Some(turn) = snap.turn.filter(|_| snap.seats_to_act.contains(&seat)) else {
            tokio::time::sleep(Duration::from_millis(5)).await;
            continue;
        };
        let a = choose_move(&mut rng, &turn);
        let p = Player {
            seat,
            token: token.into(),
            game_id: game.into(),
            last_seq: snap.seq,
            messages: Vec::new(),
        };
        match send(&mut gc, &p, &a).await {
            Ok(_) => {}
            // Team play: the bots at the other table move meanwhile (not stale); at this
            // seat's own table nothing moves while it is to act.
            Err(e) => panic!("{a:?} refused: {e:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_a_team_table_the_other_tables_moves_do_not_make_a_move_stale() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("teams.db")).await;
    let ch = server.channel().await;
    let (game, seats) = new_table(&ch, "teams", 4, 12).await;
    let mut gc = Games::new(ch.clone());
    let snap = get_game(&mut gc, &game, "").await;
    let [a, b] = snap.seats_to_act[..] else { panic!("two seats to act: {:?}", snap.seats_to_act) };
    // Both read the game at the same seq, then both move: neither is stale.
    let sa = get_game(&mut gc, &game, &seats[a as usize].token).await;
    let sb = get_game(&mut gc, &game, &seats[b as usize].token).await;
    assert_eq!(sa.seq, sb.seq);
    let mut rng = Rng(1);
    for (seat, s) in [(a, &sa), (b, &sb)] {
        let act = choose_move(&mut rng, s.turn.as_ref().unwrap());
        let p = Player {
            seat,
            token: seats[seat as usize].token.clone(),
            game_id: game.clone(),
            last_seq: s.seq,
            messages: Vec::new(),
        };
        send(&mut gc, &p, &act).await.unwrap_or_else(|e| panic!("seat {seat}: {e:?}"));
    }
    // A second move of `a` at the seq it last saw before its own move is stale.
    let act = choose_move(&mut rng, sa.turn.as_ref().unwrap());
    let p = Player {
        seat: a,
        token: seats[a as usize].token.clone(),
        game_id: game.clone(),
        last_seq: sa.seq,
        messages: Vec::new(),
    };
    let e = send(&mut gc, &p, &act).await.unwrap_err();
    assert_eq!(e.code(), tonic::Code::Aborted, "{e:?}");
    server.stop().await;
}

/// One move of whichever seat may act (the lowest), from its own snapshot: the seat, the
/// move and the seq it produced; `None` once the game is over.
async fn table_step(
    gc: &mut Games,
    game: &str,
    seats: &[TableSeat],
    rng: &mut Rng,
) -> Option<(u8, pb::LegalAction, u64)> {
    let spectator = get_game(gc, game, "").await;
    if spectator.result.is_some() {
        return None;
    }
    let seat = spectator.seat_to_act.expect("someone to act");
    let me = &seats[seat as usize];
    let snap = get_game(gc, game, &me.token).await;
    let a = choose_move(rng, snap.turn.as_ref().expect("the seat to act gets its turn"));
    let p = Player {
        seat,
        token: me.token.clone(),
        game_id: game.into(),
        last_seq: snap.seq,
        messages: Vec::new(),
    };
    let seq = send(gc, &p, &a).await.unwrap_or_else(|e| panic!("legal {a:?} refused: {e:?}"));
    Some((seat as u8, a, seq))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_six_player_rummy_game_survives_sigkill_mid_hand_and_ends_as_an_uninterrupted_one() {
    use crate::restart::Proc;
    const RUMMY6: &str = r#"{"kind":"rummy","players":6,"end":{"hands":2}}"#;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.db");
    let log = dir.path().join("server.log");
    let mut server = Proc::start(&db, &log).await;
    let (game, seats) = new_table(&server.channel().await, RUMMY6, 6, 606).await;
    let mut gc = Games::new(server.channel().await);
    let mut rng = Rng(606);
    let mut played = Vec::new();
    for kill in 0..2 {
        // Mid-hand: some moves into the first hand, then a few into the second.
        let mut n = 0;
        loop {
            played.push(table_step(&mut gc, &game, &seats, &mut rng).await.expect("not over yet"));
            n += 1;
            let ended = get_game(&mut gc, &game, "").await.table_hands.len();
            if (kill == 0 && n == 17) || (kill == 1 && ended == 1 && n >= 5) {
                break;
            }
        }
        let views: Vec<pb::GameSnapshot> = {
            let mut v = vec![get_game(&mut gc, &game, "").await];
            for s in &seats {
                v.push(get_game(&mut gc, &game, &s.token).await);
            }
            v
        };
        server.kill();
        server = Proc::start(&db, &log).await;
        gc = Games::new(server.channel().await);
        // Every viewer sees exactly what it saw before the kill (the clock aside).
        let mut after = vec![get_game(&mut gc, &game, "").await];
        for s in &seats {
            after.push(get_game(&mut gc, &game, &s.token).await);
        }
        assert_eq!(after, views, "kill {kill}: the restarted game differs");
        assert!(views[0].table_hands.len() == kill, "kill {kill} is in hand {}", views[0].table_hands.len());
    }
    while let Some(s) = table_step(&mut gc, &game, &seats, &mut rng).await {
        played.push(s);
        assert!(played.len() < 5_000, "the game does not end");
    }
    let rec = gc.get_record(pb::GetRecordRequest { game_id: game.clone() }).await.unwrap().into_inner();
    let record = engine::TableRecord::parse(&rec.record_json).unwrap();
    let sent: Vec<(u8, Move)> = played.iter().map(|(s, a, _)| (*s, engine_move(a))).collect();
    let recorded: Vec<(u8, Move)> = record.moves.iter().map(|m| (m.seat, m.action.clone())).collect();
    assert_eq!(recorded, sent, "every acknowledged move, in order, and nothing else");
    let replay = record.replay().unwrap().result().unwrap();
    let result = rec.result.unwrap();
    assert_eq!(result.table_totals, replay.totals);
    drop(gc);
    drop(server);

    // The same seed and moves, never interrupted: the same events and result.
    let fresh = Proc::start(&dir.path().join("fresh.db"), &log).await;
    let (game2, seats2) = new_table(&fresh.channel().await, RUMMY6, 6, 606).await;
    let mut gc = Games::new(fresh.channel().await);
    let mut seq = get_game(&mut gc, &game2, "").await.seq;
    for (seat, a, want) in &played {
        let p = Player {
            seat: u32::from(*seat),
            token: seats2[*seat as usize].token.clone(),
            game_id: game2.clone(),
            last_seq: seq,
            messages: Vec::new(),
        };
        seq = send(&mut gc, &p, a).await.unwrap_or_else(|e| panic!("{a:?} refused: {e:?}"));
        assert_eq!(seq, *want, "the same move produced other events");
    }
    let rec2 = gc.get_record(pb::GetRecordRequest { game_id: game2 }).await.unwrap().into_inner();
    assert_eq!(rec2.result.unwrap().table_totals, result.table_totals);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_a_team_table_both_tables_clocks_run_out() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("clock.db")).await;
    let ch = server.channel().await;
    let mut lobby = LobbyServiceClient::new(ch.clone());
    let c = lobby
        .create_game(pb::CreateGameRequest {
            format: "teams".into(),
            clock: Some(pb::TurnClock { turn_millis: 200, policy: pb::ClockPolicy::AutoPlay as i32 }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let mut tokens = Vec::new();
    for k in 0..4 {
        let j = lobby
            .join_game(pb::JoinGameRequest {
                game_id: c.game_id.clone(),
                name: format!("idle{k}"),
                seat: None,
                accept_fixed_deals: true,
            })
            .await
            .unwrap()
            .into_inner();
        tokens.push(j.seat_token);
    }
    let mut gc = Games::new(ch.clone());
    let mut s = watch(&mut gc, &c.game_id, "", 0).await;
    // Nobody plays: the clocks of both tables run out, each seat to act in its turn.
    let mut expired = std::collections::BTreeSet::new();
    let end = tokio::time::Instant::now() + Duration::from_secs(20);
    while expired.len() < 4 {
        let m = tokio::time::timeout_at(end, s.message()).await.expect("clocks ran out").unwrap().unwrap();
        if let Some(pb::GameEvent { kind: Some(pb::game_event::Kind::ClockExpired(x)), .. }) = event(&m) {
            assert_eq!(x.policy, pb::ClockPolicy::AutoPlay as i32);
            expired.insert(x.seat);
        }
    }
    assert_eq!(expired.into_iter().collect::<Vec<_>>(), vec![0, 1, 2, 3], "every seat's clock ran out");
    let snap = get_game(&mut gc, &c.game_id, &tokens[0]).await;
    assert!(snap.result.is_none());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quick_match_fills_a_table_with_the_callers_asking_for_the_same_format_and_size() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("qm.db")).await;
    // Three clients (three connections) ask for rummy at 3, one for rummy at 4.
    let ask = |players: u32, name: &'static str| {
        let url = server.url();
        async move {
            let ch = Channel::from_shared(url).unwrap().connect().await.unwrap();
            let mut lobby = LobbyServiceClient::new(ch);
            lobby
                .quick_match(pb::QuickMatchRequest {
                    format: "rummy".into(),
                    players,
                    name: name.into(),
                    ..Default::default()
                })
                .await
        }
    };
    let lone = tokio::spawn(tokio::time::timeout(Duration::from_secs(2), ask(4, "dee")));
    let (a, b, c) = tokio::join!(ask(3, "ann"), ask(3, "bo"), ask(3, "cy"));
    let (a, b, c) = (a.unwrap().into_inner(), b.unwrap().into_inner(), c.unwrap().into_inner());
    assert!(a.game_id == b.game_id && b.game_id == c.game_id, "one table for the three");
    let mut seats = vec![a.seat, b.seat, c.seat];
    seats.sort();
    assert_eq!(seats, vec![0, 1, 2]);
    assert!(a.house_bot.is_empty());
    let ch = server.channel().await;
    let snap = get_game(&mut Games::new(ch.clone()), &a.game_id, &a.seat_token).await;
    assert_eq!(snap.format.unwrap().players, 3);
    let mut names: Vec<String> = snap.seats.iter().map(|s| s.name.clone()).collect();
    names.sort();
    assert_eq!(names, ["ann", "bo", "cy"]);
    assert!(snap.seats.iter().all(|s| s.taken && !s.bot));
    // The caller asking for 4 was not seated with them: it is still waiting.
    assert!(lone.await.unwrap().is_err(), "a table of 4 needs four callers");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quick_match_table_not_full_in_time_seats_who_came_and_house_bots() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("qmb.db")).await;
    let ask = |name: &'static str, after: u32| {
        let url = server.url();
        async move {
            let ch = Channel::from_shared(url).unwrap().connect().await.unwrap();
            LobbyServiceClient::new(ch)
                .quick_match(pb::QuickMatchRequest {
                    format: "gin-7".into(),
                    players: 4,
                    name: name.into(),
                    house_bot: "simple".into(),
                    house_bot_after_ms: after,
                    ..Default::default()
                })
                .await
                .unwrap()
                .into_inner()
        }
    };
    // The first waits 400 ms, the second comes at once: at 400 ms both sit with two bots.
    let (a, b) = tokio::join!(ask("ann", 400), async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        ask("bo", 60_000).await
    });
    assert_eq!(a.game_id, b.game_id);
    assert_eq!((a.seat, b.seat), (0, 1), "who came, in order; bots after");
    assert_eq!(a.house_bot, "simple");
    let snap = get_game(&mut Games::new(server.channel().await), &a.game_id, "").await;
    let bots: Vec<bool> = snap.seats.iter().map(|s| s.bot).collect();
    assert_eq!(bots, vec![false, false, true, true]);
    let ch = server.channel().await;
    let r = play_with_bots(&ch, &a.game_id, &a.seat_token, 0, 3);
    let s = play_with_bots(&ch, &b.game_id, &b.seat_token, 1, 4);
    let (r, s) = tokio::join!(r, s);
    assert_eq!(r, s, "one game, one result");
    assert_eq!(r.table_totals.len(), 4);
    server.stop().await;
}
