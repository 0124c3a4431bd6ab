//! The leak checker: at least 1,000 hands played over the network by random legal players,
//! many games at once on one server, each watched by both seats and a spectator; every
//! message every viewer received is checked against an engine replay of the game: no viewer
//! ever gets a card it may not see at that point (the opponent's hand except cards taken
//! from the pile, the stock, a card the other seat drew from the stock).

use crate::common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use common::*;
use gin_proto::v1 as pb;

/// Games played at once.
const CONCURRENT: usize = 24;
/// Hands to check at least.
const HANDS: usize = 1_000;

fn hands_ended(g: &PlayedGame) -> usize {
    g.received[2]
        .iter()
        .filter_map(event)
        .filter(|e| matches!(e.kind, Some(pb::game_event::Kind::HandEnded(_))))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_networked_hands_leak_no_card() {
    let t0 = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("leaks.db")).await;
    // A few connections, several games on each.
    let mut channels = Vec::new();
    for _ in 0..4 {
        channels.push(server.channel().await);
    }
    let presets = ["standard", "oklahoma", "american", "classic", "wikihow", "multistage"];
    // Hands ended so far, over all games: once there are enough, every game resigns at its
    // next turn.
    let ended = Arc::new(AtomicUsize::new(0));
    let mut set = tokio::task::JoinSet::new();
    let mut next = 0u64;
    let spawn = |set: &mut tokio::task::JoinSet<_>, n: u64| {
        let ch = channels[n as usize % channels.len()].clone();
        let name = presets[n as usize % presets.len()];
        let stop = Some((ended.clone(), HANDS));
        set.spawn(async move {
            let g = play_watched_game_until(&ch, name, 1_000 + n, stop).await;
            // The replay is CPU work: off the runtime's workers.
            tokio::task::spawn_blocking(move || {
                let checked = check_no_leaks(&g);
                (g, checked)
            })
            .await
            .unwrap()
        });
    };
    for _ in 0..CONCURRENT {
        spawn(&mut set, next);
        next += 1;
    }
    let (mut hands, mut messages, mut games, mut actions, mut resigned) =
        (0usize, 0usize, 0usize, 0usize, 0usize);
    let mut per_viewer = [0usize; 3];
    while let Some(r) = set.join_next().await {
        let (g, checked) = r.expect("a game task");
        hands += hands_ended(&g);
        messages += checked;
        games += 1;
        actions += g.actions.len();
        resigned += usize::from(g.result.reason == pb::GameEndReason::Resigned as i32);
        for (n, r) in per_viewer.iter_mut().zip(&g.received) {
            *n += r.len();
        }
        if ended.load(Ordering::Relaxed) < HANDS {
            spawn(&mut set, next);
            next += 1;
        }
    }
    assert_eq!(hands, ended.load(Ordering::Relaxed));
    println!(
        "leak check: {hands} hands in {games} games ({resigned} stopped by resigning; {actions} actions); \
         {messages} messages checked (seat 0: {}, seat 1: {}, spectator: {}); {:?}",
        per_viewer[0],
        per_viewer[1],
        per_viewer[2],
        t0.elapsed()
    );
    assert!(hands >= HANDS, "{hands} hands");
    assert!(messages > 10 * hands);
    server.stop().await;
}

/// The checker itself catches leaks: one game, then each kind of leak planted in a copy of
/// what a viewer received.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_leak_checker_catches_planted_leaks() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("plant.db")).await;
    let ch = server.channel().await;
    let g = play_watched_game(&ch, "standard", 7).await;
    assert!(check_no_leaks(&g) > 0, "the real streams pass");
    use pb::game_event::Kind as K;
    use pb::watch_game_response::Kind as W;

    let caught = |what: &str, viewer: usize, plant: &dyn Fn(&mut pb::WatchGameResponse) -> bool| {
        let mut bad = g.received.clone();
        let n = bad[viewer].iter_mut().map(plant).filter(|&planted| planted).count();
        assert!(n > 0, "{what}: nothing to plant into");
        let bad = PlayedGame {
            game_id: g.game_id.clone(),
            tokens: g.tokens.clone(),
            rules: g.rules.clone(),
            seed: g.seed,
            start_seq: g.start_seq,
            actions: g.actions.clone(),
            received: bad,
            result: g.result.clone(),
        };
        let r = catch_unwind(AssertUnwindSafe(|| check_no_leaks(&bad)));
        assert!(r.is_err(), "{what}: the checker missed it");
    };
    // The engine's view of the game, to find cards to plant.
    let mut game = engine::Game::new(engine::GameSetup::new(g.rules.clone(), g.seed)).unwrap();
    let mut stock_draws = Vec::new(); // (seat, card, seq) of stock draws
    let mut dealt = vec![game.hand().cards(engine::Seat::S0)]; // seat 0's cards as dealt, per hand
    for (seat, a, seq) in &g.actions {
        let stock_top = game.hand().stock().first().copied();
        let n = game.hand_number();
        game.apply(*seat, a).unwrap();
        if game.hand_number() != n {
            dealt.push(game.hand().cards(engine::Seat::S0));
        }
        if *a == engine::Action::DrawStock {
            stock_draws.push((*seat, stock_top.unwrap(), *seq));
        }
    }
    // A stock draw's card planted into a viewer's CardDrawn event (seq: the draw's ack; the
    // CardDrawn event is the one before the TurnStarted that ends the action).
    let plant_draw = |what: &str, viewer: usize, ack: u64, card: engine::Card| {
        caught(what, viewer, &|m| match &mut m.kind {
            Some(W::Event(e)) if e.seq + 1 == ack => match &mut e.kind {
                Some(K::CardDrawn(d)) => {
                    assert!(d.card.is_empty(), "{what}: the server already sends it: {d:?}");
                    d.card = card.to_string();
                    true
                }
                _ => false,
            },
            _ => false,
        })
    };
    // 1. The opponent's stock draw, named in the other seat's stream and the spectator's.
    let (drawer, card, ack) = stock_draws[0];
    plant_draw("another seat's stock draw", drawer.other().index(), ack, card);
    plant_draw("a stock draw to the spectator", 2, ack, card);
    // 2. A stock card the seat drew and later discarded, named at the draw: still a leak then
    //    (the check is per point in time, not per hand).
    let discarded: Vec<engine::Card> = g
        .actions
        .iter()
        .filter_map(|(_, a, _)| match a {
            engine::Action::Discard { card } => Some(*card),
            _ => None,
        })
        .collect();
    let &(drawer, card, ack) = stock_draws
        .iter()
        .find(|(_, c, _)| discarded.contains(c))
        .expect("a stock card drawn, then discarded");
    plant_draw("a stock draw later discarded", drawer.other().index(), ack, card);
    // 3. The spectator given seat 0's dealt hand (of a hand dealt while it watched).
    caught("a dealt hand to the spectator", 2, &|m| match &mut m.kind {
        Some(W::Event(pb::GameEvent { kind: Some(K::HandDealt(d)), .. })) => {
            d.your_hand = dealt[d.hand_number as usize].iter().map(|c| c.to_string()).collect();
            true
        }
        _ => false,
    });
    // 4. A seat's snapshot holding the opponent's cards.
    let theirs = engine::Game::new(engine::GameSetup::new(g.rules.clone(), g.seed))
        .unwrap()
        .hand()
        .cards(engine::Seat::S1);
    caught("the opponent's hand in a snapshot", 0, &|m| match &mut m.kind {
        Some(W::Snapshot(s)) => {
            s.hand.extend(theirs.iter().map(|c| c.to_string()));
            true
        }
        _ => false,
    });
    // 5. The stock's top card in a turn's legal actions.
    let stock_top =
        engine::Game::new(engine::GameSetup::new(g.rules.clone(), g.seed)).unwrap().hand().stock()[0];
    caught("the stock's top card", 1, &|m| match &mut m.kind {
        Some(W::Event(pb::GameEvent { kind: Some(K::TurnStarted(t)), .. })) if t.turn.is_some() => {
            t.turn.as_mut().unwrap().best_discard = stock_top.to_string();
            true
        }
        _ => false,
    });
    server.stop().await;
}

/// Tournament games with duplicate deals, many at once: every message of every game is
/// checked as above, and no entrant ever holds, in one game, the hand its opponent holds in
/// another game being played at the same time (the two games of a duplicate pair share the
/// deal with the seats swapped: they must never overlap).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn duplicate_tournament_games_in_parallel_leak_no_card() {
    use gin_proto::v1::tournament_service_client::TournamentServiceClient;
    use std::collections::HashMap;
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("tour.db")).await;
    let ch = server.channel().await;
    let mut tours = TournamentServiceClient::new(ch.clone());
    // Short games: many of them run at once, quickly.
    let rules = engine::RuleSet { name: "short".into(), target: 25, ..engine::RuleSet::standard() };
    // No seed: the deals are the server's secret until the end.
    let spec = pb::TournamentSpec {
        name: "dup".into(),
        entrants: 2,
        games_per_pairing: 16,
        duplicate: true,
        parallel: 8,
        rules: Some(pb::Rules { kind: Some(pb::rules::Kind::Custom(gin_proto::rules::to_pb(&rules))) }),
        ..Default::default()
    };
    let tid = create_tournament(&ch, spec).await;
    // Both entrants' streams; this test plays both seats (and a spectator) of every game.
    let streams = enter_tournament(&ch, &tid, &["east", "west"]).await;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(u32, pb::Assignment)>();
    for (entrant, mut s) in streams.into_iter().enumerate() {
        let tx = tx.clone();
        tokio::spawn(async move {
            while let Ok(Some(m)) = s.message().await {
                if let Some(pb::join_tournament_response::Kind::Assignment(a)) = m.kind {
                    let _ = tx.send((entrant as u32, a));
                }
            }
        });
    }
    drop(tx);
    let mut halves: HashMap<String, Vec<(u32, pb::Assignment)>> = HashMap::new();
    let mut set = tokio::task::JoinSet::new();
    let mut played = 0u64;
    while played < 16 {
        let (entrant, a) = tokio::time::timeout(std::time::Duration::from_secs(60), rx.recv())
            .await
            .expect("assignments keep coming")
            .expect("the streams are open");
        let both = halves.entry(a.game_id.clone()).or_default();
        both.push((entrant, a));
        if both.len() < 2 {
            continue;
        }
        both.sort_by_key(|(_, a)| a.seat);
        let entrants = [both[0].0, both[1].0];
        let player = |a: &pb::Assignment| Player {
            seat: a.seat,
            token: a.seat_token.clone(),
            game_id: a.game_id.clone(),
            last_seq: 0,
            messages: Vec::new(),
        };
        let players = [player(&both[0].1), player(&both[1].1)];
        let (ch, rules) = (ch.clone(), rules.clone());
        played += 1;
        set.spawn(async move {
            let g = play_watched(&ch, players, rules, played, None).await;
            (g, entrants)
        });
    }
    let mut games = Vec::new();
    while let Some(r) = set.join_next().await {
        games.push(r.unwrap());
    }
    // Over: the deal seeds are revealed.
    let st = loop {
        let st = tours
            .get_tournament(pb::GetTournamentRequest { tournament_id: tid.clone() })
            .await
            .unwrap()
            .into_inner()
            .state
            .unwrap();
        if st.status == pb::TournamentStatus::Finished as i32 {
            break st;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    let seeds: HashMap<&str, u64> = st.games.iter().map(|g| (g.game_id.as_str(), g.deal_seed)).collect();
    // Each game: its deal seed, when it ran (server times of its first and last events), the
    // hand each entrant was dealt first.
    struct Ran {
        seed: u64,
        from: i64,
        to: i64,
        dealt: HashMap<u32, engine::CardSet>,
        opponent: HashMap<u32, u32>,
    }
    let mut ran = Vec::new();
    let mut messages = 0;
    for (mut g, entrants) in games {
        g.seed = seeds[g.game_id.as_str()];
        messages += check_no_leaks(&g);
        let times: Vec<i64> = g.received[2].iter().filter_map(event).map(|e| e.time_unix_ms).collect();
        let first = engine::Game::new(engine::GameSetup::new(g.rules.clone(), g.seed)).unwrap();
        let dealt = (0..2).map(|i| (entrants[i], first.hand().cards(engine::Seat::new(i as u8).unwrap())));
        ran.push(Ran {
            seed: g.seed,
            from: *times.iter().min().unwrap(),
            to: *times.iter().max().unwrap(),
            dealt: dealt.collect(),
            opponent: HashMap::from([(entrants[0], entrants[1]), (entrants[1], entrants[0])]),
        });
    }
    let pairs = ran.iter().filter(|r| ran.iter().filter(|o| o.seed == r.seed).count() == 2).count();
    assert_eq!(pairs, 16, "every deal is played twice");
    let mut overlapping = 0;
    for (i, x) in ran.iter().enumerate() {
        for y in &ran[i + 1..] {
            if x.to <= y.from || y.to <= x.from {
                continue; // one after the other
            }
            overlapping += 1;
            assert_ne!(x.seed, y.seed, "the two games of a duplicate pair were played at the same time");
            for (e, hand) in &x.dealt {
                let theirs = y.dealt[&y.opponent[e]];
                assert_ne!(*hand, theirs, "entrant {e} held its opponent's hand of a game played meanwhile");
            }
        }
    }
    assert!(overlapping > 0, "games were played in parallel");
    println!(
        "duplicate tournament: 16 games, {overlapping} pairs of them overlapping, {messages} messages checked"
    );
    server.stop().await;
}
