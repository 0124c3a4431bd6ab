//! Tournaments over real sockets: entrants join, get their assignments, play them with the
//! ordinary game API, and the server books results, pairs Swiss rounds, stops on an SPRT,
//! exports JSON and CSV, and resumes after a restart.

use crate::common;

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use common::*;
use gin_proto::v1 as pb;
use gin_proto::v1::tournament_service_client::TournamentServiceClient;
use tonic::Code;
use tonic::transport::Channel;

pub(crate) type Tours = TournamentServiceClient<Channel>;

/// How an entrant plays: 0 = always the sensible move, 1 = random legal moves; or the
/// program that never ends a hand: it always takes the top discard (the upcard too) and
/// discards the first card it may, never knocking.
#[derive(Clone, Copy)]
pub(crate) enum Policy {
    Sensible,
    Random,
    TakeTheDiscard,
}

fn decide(policy: Policy, rng: &mut Rng, turn: &pb::TurnInfo) -> pb::LegalAction {
    match policy {
        Policy::Random => pick(rng, &turn.legal_actions),
        Policy::TakeTheDiscard => {
            let first = |kinds: &[pb::ActionKind]| {
                turn.legal_actions.iter().find(|a| kinds.iter().any(|&k| a.kind == k as i32)).cloned()
            };
            first(&[pb::ActionKind::TakeUpcard, pb::ActionKind::DrawPile])
                .or_else(|| first(&[pb::ActionKind::Discard]))
                .or_else(|| first(&[pb::ActionKind::DrawStock]))
                .expect("a draw or a discard is always legal")
        }
        Policy::Sensible => {
            let find = |kind: pb::ActionKind, card: Option<&str>| {
                turn.legal_actions
                    .iter()
                    .find(|a| a.kind == kind as i32 && card.is_none_or(|c| a.card == c))
                    .cloned()
            };
            find(pb::ActionKind::Knock, None)
                .or_else(|| find(pb::ActionKind::Discard, Some(&turn.best_discard)))
                .or_else(|| find(pb::ActionKind::DrawStock, None))
                .unwrap_or_else(|| pick(rng, &turn.legal_actions))
        }
    }
}

/// Plays one seat of a game to its end by polling GetGame with the seat token.
async fn play_seat(ch: Channel, a: pb::Assignment, policy: Policy, seed: u64) {
    let mut gc = Games::new(ch);
    let mut rng = Rng(seed);
    loop {
        let snap = get_game(&mut gc, &a.game_id, &a.seat_token).await;
        if snap.phase == pb::Phase::GameOver as i32 {
            return;
        }
        if snap.seat_to_act != Some(a.seat) {
            tokio::time::sleep(Duration::from_millis(1)).await;
            continue;
        }
        let turn = snap.turn.expect("the seat to act gets its turn");
        let act = decide(policy, &mut rng, &turn);
        let p = Player {
            seat: a.seat,
            token: a.seat_token.clone(),
            game_id: a.game_id.clone(),
            last_seq: snap.seq,
            messages: Vec::new(),
        };
        match send(&mut gc, &p, &act).await {
            Ok(_) => {}
            Err(e) if e.code() == Code::Aborted => {}
            Err(e) => panic!("legal {act:?} refused: {e:?}"),
        }
    }
}

/// What an entrant saw.
#[derive(Debug)]
pub(crate) struct EntrantRun {
    entrant: u32,
    token: String,
    assignments: Vec<pb::Assignment>,
    pub(crate) finished: Option<pb::Standings>,
}

/// Joins (or re-enters with `token`): the stream and its first message.
async fn enter(
    ch: &Channel,
    tid: &str,
    name: &str,
    token: Option<String>,
) -> (tonic::Streaming<pb::JoinTournamentResponse>, pb::Entered) {
    let mut t = Tours::new(ch.clone());
    let mut s = t
        .join_tournament(pb::JoinTournamentRequest {
            tournament_id: tid.into(),
            name: name.into(),
            entrant_token: token.unwrap_or_default(),
            // The specs here fix the seed (reproducible deals).
            accept_fixed_deals: true,
        })
        .await
        .expect("join")
        .into_inner();
    let first = s.message().await.expect("stream").expect("first message");
    let Some(pb::join_tournament_response::Kind::Entered(e)) = first.kind else {
        panic!("first message must be Entered: {first:?}")
    };
    (s, e)
}

/// Joins (or re-enters with `token`) and plays every assignment until the final standings,
/// or until `stop_after` assignments were received (then it drops the stream).
pub(crate) async fn run_entrant(
    ch: Channel,
    tid: String,
    name: &str,
    token: Option<String>,
    policy: Policy,
    stop_after: Option<usize>,
) -> EntrantRun {
    let (s, e) = enter(&ch, &tid, name, token).await;
    play_stream(ch, s, e, policy, stop_after).await
}

/// Plays the assignments of an entered entrant's stream.
async fn play_stream(
    ch: Channel,
    mut s: tonic::Streaming<pb::JoinTournamentResponse>,
    e: pb::Entered,
    policy: Policy,
    stop_after: Option<usize>,
) -> EntrantRun {
    use pb::join_tournament_response::Kind;
    let mut run =
        EntrantRun { entrant: e.entrant, token: e.entrant_token, assignments: Vec::new(), finished: None };
    let mut tasks = Vec::new();
    if stop_after == Some(0) {
        return run;
    }
    while let Some(m) =
        tokio::time::timeout(Duration::from_secs(120), s.message()).await.expect("no stall").expect("stream")
    {
        match m.kind {
            Some(Kind::Assignment(a)) => {
                run.assignments.push(a.clone());
                let seed = run.entrant as u64 * 1000 + run.assignments.len() as u64;
                tasks.push(tokio::spawn(play_seat(ch.clone(), a, policy, seed)));
                if stop_after.is_some_and(|n| run.assignments.len() >= n) {
                    break;
                }
            }
            Some(Kind::Finished(st)) => {
                run.finished = Some(st);
                break;
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    if stop_after.is_none() {
        for t in tasks {
            t.await.unwrap();
        }
    } else {
        for t in tasks {
            t.abort();
        }
    }
    run
}

pub(crate) fn spec(format: pb::TournamentFormat, entrants: u32, per_pairing: u32) -> pb::TournamentSpec {
    pb::TournamentSpec {
        name: "test cup".into(),
        format: format as i32,
        entrants,
        games_per_pairing: per_pairing,
        duplicate: true,
        rules: Some(preset("standard")),
        parallel: 3,
        seed: 77,
        ..Default::default()
    }
}

/// A gauntlet of three entrants, two games per pairing (4 in all), one game at a time.
fn gauntlet_of_three_one_at_a_time() -> pb::TournamentSpec {
    pb::TournamentSpec { parallel: 1, ..spec(pb::TournamentFormat::Gauntlet, 3, 2) }
}

async fn create(t: &mut Tours, s: pb::TournamentSpec) -> (String, u32) {
    let r = t
        .create_tournament(pb::CreateTournamentRequest { spec: Some(s) })
        .await
        .expect("create")
        .into_inner();
    (r.tournament_id, r.total_games)
}

pub(crate) async fn get(t: &mut Tours, id: &str) -> pb::TournamentState {
    t.get_tournament(pb::GetTournamentRequest { tournament_id: id.into() })
        .await
        .unwrap()
        .into_inner()
        .state
        .unwrap()
}

/// Checks the books: every game over on the server with the booked totals and winner, and
/// standings that add up.
async fn check_books(ch: &Channel, st: &pb::TournamentState, entrants: u32) {
    assert_eq!(st.status, pb::TournamentStatus::Finished as i32);
    let mut gc = Games::new(ch.clone());
    let mut per_entrant: HashMap<u32, (u32, u64)> = HashMap::new();
    for g in &st.games {
        assert!(g.done, "game {} not done", g.number);
        let snap = get_game(&mut gc, &g.game_id, "").await;
        let r = snap.result.expect("a finished game has a result");
        assert_eq!(r.totals, g.totals, "game {}", g.number);
        assert_eq!(r.winner, g.winner, "game {}", g.number);
        for (seat, e) in [g.seat0, g.seat1].into_iter().enumerate() {
            let x = per_entrant.entry(e).or_default();
            x.0 += 1;
            x.1 += g.totals[seat] as u64;
        }
    }
    let rows = &st.standings.as_ref().unwrap().rows;
    assert_eq!(rows.len() as u32, entrants);
    for r in rows {
        let (games, points) = per_entrant.get(&r.entrant).copied().unwrap_or_default();
        assert_eq!((r.games, r.points_for), (games, points), "entrant {}", r.entrant);
        assert_eq!(r.wins + r.losses + r.draws, r.games);
        assert!((r.score - (r.wins as f64 + 0.5 * r.draws as f64) / r.games.max(1) as f64).abs() < 1e-9);
        assert!(r.elo_low <= r.elo && r.elo <= r.elo_high);
    }
    for w in rows.windows(2) {
        assert!(w[0].score >= w[1].score, "standings are sorted by score");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn round_robin_with_duplicate_deals_to_final_standings() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("t.db")).await;
    let ch = server.channel().await;
    let mut t = Tours::new(ch.clone());
    let (id, total) = create(&mut t, spec(pb::TournamentFormat::RoundRobin, 3, 2)).await;
    assert_eq!(total, 6);
    let waiting = get(&mut t, &id).await;
    assert_eq!(waiting.status, pb::TournamentStatus::Waiting as i32);
    assert_eq!(waiting.spec.as_ref().unwrap().seed, 0, "the seed stays secret until the end");

    let mut watch = t
        .watch_tournament(pb::WatchTournamentRequest { tournament_id: id.clone() })
        .await
        .unwrap()
        .into_inner();
    let runs = futures_join(vec![
        tokio::spawn(run_entrant(ch.clone(), id.clone(), "ann", None, Policy::Sensible, None)),
        tokio::spawn(run_entrant(ch.clone(), id.clone(), "bob", None, Policy::Sensible, None)),
        tokio::spawn(run_entrant(ch.clone(), id.clone(), "cat", None, Policy::Random, None)),
    ])
    .await;
    // Each entrant got exactly its 4 games (2 opponents × 2), once each.
    for r in &runs {
        assert_eq!(r.assignments.len(), 4, "{r:?}");
        let ids: HashSet<_> = r.assignments.iter().map(|a| &a.game_id).collect();
        assert_eq!(ids.len(), 4);
        assert!(r.finished.is_some());
    }
    // A fourth entrant is refused.
    let mut t2 = Tours::new(ch.clone());
    let e = t2
        .join_tournament(pb::JoinTournamentRequest {
            tournament_id: id.clone(),
            name: "dan".into(),
            accept_fixed_deals: true,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);

    // The watcher saw progress and the end.
    let mut last = None;
    while let Some(m) = watch.message().await.unwrap() {
        last = m.state;
    }
    let last = last.unwrap();
    assert_eq!((last.status, last.games_done), (pb::TournamentStatus::Finished as i32, 6));

    let st = get(&mut t, &id).await;
    assert_eq!(st.games.len(), 6);
    check_books(&ch, &st, 3).await;
    // The rating history: each entrant's points in the order the games finished, one per game
    // it played (four each), the last one its standing's rating.
    for row in &st.standings.as_ref().unwrap().rows {
        let points: Vec<_> = st.rating_history.iter().filter(|p| p.entrant == row.entrant).collect();
        assert_eq!(points.len(), row.games as usize, "{:?}", st.rating_history);
        assert!(points.windows(2).all(|w| w[0].games < w[1].games) && points.last().unwrap().games <= 6);
        let last = points.last().unwrap();
        assert_eq!((last.elo, last.elo_low, last.elo_high), (row.elo, row.elo_low, row.elo_high));
    }
    assert!(last.rating_history.is_empty(), "the watch stream carries no history");
    assert_eq!(st.spec.as_ref().unwrap().seed, 77, "revealed at the end");
    // Duplicate pairs: same deal, seats swapped; different pairs: different deals. (A pair's
    // second game starts once the first is over, so the two need not be numbered in a row.)
    let mut by_deal: HashMap<u64, Vec<&pb::TournamentGame>> = HashMap::new();
    for g in &st.games {
        by_deal.entry(g.deal_seed).or_default().push(g);
    }
    assert_eq!(by_deal.len(), 3, "{:?}", st.games);
    for pair in by_deal.values() {
        assert_eq!(pair.len(), 2, "{pair:?}");
        assert_eq!((pair[0].seat0, pair[0].seat1), (pair[1].seat1, pair[1].seat0));
        // The games really were dealt from that seed: the records say so.
        let mut gc = Games::new(ch.clone());
        for g in pair.iter() {
            let rec = gc
                .get_record(pb::GetRecordRequest { game_id: g.game_id.clone() })
                .await
                .unwrap()
                .into_inner();
            let v: serde_json::Value = serde_json::from_str(&rec.record_json).unwrap();
            assert_eq!(v["setup"]["seed"].as_u64(), Some(g.deal_seed), "{}", rec.record_json);
        }
    }
    // Every pairing met exactly once (2 games).
    let mut pairs: HashMap<(u32, u32), u32> = HashMap::new();
    for g in &st.games {
        *pairs.entry((g.seat0.min(g.seat1), g.seat0.max(g.seat1))).or_default() += 1;
    }
    assert_eq!(pairs, HashMap::from([((0, 1), 2), ((0, 2), 2), ((1, 2), 2)]));

    // Exports.
    let json = t
        .export_tournament(pb::ExportTournamentRequest {
            tournament_id: id.clone(),
            format: pb::ExportFormat::Json as i32,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(json.media_type, "application/json");
    let v: serde_json::Value = serde_json::from_str(&json.content).unwrap();
    assert_eq!(v["games"].as_array().unwrap().len(), 6);
    assert_eq!(v["standings"].as_array().unwrap().len(), 3);
    assert_eq!(
        v["standings"][0]["entrant"].as_u64(),
        Some(st.standings.as_ref().unwrap().rows[0].entrant as u64)
    );
    let csv = t
        .export_tournament(pb::ExportTournamentRequest {
            tournament_id: id.clone(),
            format: pb::ExportFormat::Csv as i32,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(csv.media_type, "text/csv");
    let blocks: Vec<&str> = csv.content.split("\n\n").collect();
    assert_eq!(blocks.len(), 2);
    assert_eq!(blocks[0].lines().count(), 7, "header + 6 games");
    assert_eq!(blocks[1].trim_end().lines().count(), 4, "header + 3 entrants");
    server.stop().await;
}

/// Two programs that always take each other's discards never end a hand on their own: the
/// rules' turn limit ends each hand (dead, END_KIND_TURN_LIMIT) and the hand limit each game
/// (GAME_END_REASON_HAND_LIMIT, a draw at 0-0), so their tournament finishes. Small limits
/// set on the wire keep it quick; without the limits it never finished.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_of_players_who_always_take_the_discard_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("t.db")).await;
    let ch = server.channel().await;
    let mut t = Tours::new(ch.clone());
    let rules =
        engine::RuleSet { max_turns_per_hand: 6, max_hands_per_game: 3, ..engine::RuleSet::standard() };
    let s = pb::TournamentSpec {
        rules: Some(pb::Rules { kind: Some(pb::rules::Kind::Custom(gin_proto::rules::to_pb(&rules))) }),
        parallel: 2,
        ..spec(pb::TournamentFormat::RoundRobin, 2, 2)
    };
    let (id, total) = create(&mut t, s).await;
    assert_eq!(total, 2);
    let runs = tokio::time::timeout(
        Duration::from_secs(60),
        futures_join(vec![
            tokio::spawn(run_entrant(ch.clone(), id.clone(), "ann", None, Policy::TakeTheDiscard, None)),
            tokio::spawn(run_entrant(ch.clone(), id.clone(), "bob", None, Policy::TakeTheDiscard, None)),
        ]),
    )
    .await
    .expect("the tournament finishes");
    assert!(runs.iter().all(|r| r.finished.is_some()));
    let st = get(&mut t, &id).await;
    check_books(&ch, &st, 2).await;
    let mut gc = Games::new(ch.clone());
    for g in &st.games {
        let snap = get_game(&mut gc, &g.game_id, "").await;
        let rules = snap.rules.as_ref().unwrap();
        assert_eq!((rules.max_turns_per_hand, rules.max_hands_per_game), (6, 3));
        assert_eq!(snap.hands.len(), 3, "game {}: three hands, then the hand limit", g.number);
        for h in &snap.hands {
            assert_eq!(h.end, pb::EndKind::TurnLimit as i32, "game {}: {h:?}", g.number);
            assert_eq!((h.winner, h.points, h.turns), (None, 0, 6));
        }
        let r = snap.result.unwrap();
        assert_eq!(r.reason, pb::GameEndReason::HandLimit as i32);
        assert_eq!((r.winner, r.totals.clone()), (None, vec![0, 0]));
        assert!(r.stages[0].hand_limit);
    }
    let rows = &st.standings.as_ref().unwrap().rows;
    assert!(rows.iter().all(|r| (r.games, r.draws) == (2, 2)), "{rows:?}");
    server.stop().await;
}

async fn futures_join(hs: Vec<tokio::task::JoinHandle<EntrantRun>>) -> Vec<EntrantRun> {
    let mut out = Vec::new();
    for h in hs {
        out.push(h.await.unwrap());
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn swiss_rounds_avoid_repeats() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("t.db")).await;
    let ch = server.channel().await;
    let mut t = Tours::new(ch.clone());
    let mut s = spec(pb::TournamentFormat::Swiss, 4, 1);
    s.duplicate = false;
    s.rounds = 3;
    s.parallel = 4;
    let (id, total) = create(&mut t, s).await;
    assert_eq!(total, 6, "3 rounds × 2 pairings × 1 game");
    let runs = futures_join(
        ["a", "b", "c", "d"]
            .iter()
            .enumerate()
            .map(|(i, n)| {
                // One random player: a game of two random players can last many hands.
                let p = if i < 3 { Policy::Sensible } else { Policy::Random };
                tokio::spawn(run_entrant(ch.clone(), id.clone(), n, None, p, None))
            })
            .collect(),
    )
    .await;
    for r in &runs {
        assert_eq!(r.assignments.len(), 3, "one game per round");
        let rounds: Vec<u32> = r.assignments.iter().map(|a| a.round).collect();
        assert_eq!(rounds, vec![1, 2, 3]);
        let opps: HashSet<u32> = r.assignments.iter().map(|a| a.opponent).collect();
        assert_eq!(opps.len(), 3, "entrant {} met someone twice: {:?}", r.entrant, r.assignments);
    }
    let st = get(&mut t, &id).await;
    check_books(&ch, &st, 4).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sprt_stops_a_lopsided_match_early() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("t.db")).await;
    let ch = server.channel().await;
    let mut t = Tours::new(ch.clone());
    let mut s = spec(pb::TournamentFormat::RoundRobin, 2, 400);
    s.parallel = 4;
    s.sprt = Some(pb::Sprt { elo0: 0.0, elo1: 100.0, alpha: 0.05, beta: 0.05 });
    let (id, total) = create(&mut t, s).await;
    assert_eq!(total, 400);
    // Entrant 0 (the first to join) is the one the SPRT measures.
    let (s0, e0) = enter(&ch, &id, "good", None).await;
    let (s1, e1) = enter(&ch, &id, "bad", None).await;
    assert_eq!((e0.entrant, e1.entrant), (0, 1));
    let runs = futures_join(vec![
        tokio::spawn(play_stream(ch.clone(), s0, e0, Policy::Sensible, None)),
        tokio::spawn(play_stream(ch.clone(), s1, e1, Policy::Random, None)),
    ])
    .await;
    assert!(runs.iter().all(|r| r.finished.is_some()));
    let st = get(&mut t, &id).await;
    assert_eq!(st.sprt_state, "accept_h1", "after {} games, llr {}", st.games_done, st.sprt_llr);
    assert!(st.sprt_llr >= st.sprt_upper);
    assert!(st.games_done < 100, "stopped early: {} games", st.games_done);
    check_books(&ch, &st, 2).await;
    let rows = &st.standings.as_ref().unwrap().rows;
    assert_eq!(rows[0].name, "good");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_survives_a_restart_and_entrants_reenter() {
    let dir = tempfile::tempdir().unwrap();
    survives_a_restart(&dir.path().join("t.db"), dir.path()).await;
}

/// The same on PostgreSQL (a private cluster).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_on_postgres_survives_a_restart_and_entrants_reenter() {
    let Some(pg) = gin_server::storage::pg_cluster::for_test() else { return };
    survives_a_restart(std::path::Path::new(&pg.create_database("t").unwrap()), &pg.data_dir()).await;
}

/// A tournament on the store `db`: its server stops mid-game and starts again; the entrants
/// re-enter and it ends as it would have. No token is in any file under `files` (the
/// store's files).
async fn survives_a_restart(db: &std::path::Path, files: &std::path::Path) {
    let db = db.to_path_buf();
    let server = TestServer::start(&db).await;
    let ch = server.channel().await;
    let mut t = Tours::new(ch.clone());
    let (id, total) = create(&mut t, gauntlet_of_three_one_at_a_time()).await;
    assert_eq!(total, 4);
    // Both entrants of the first game take one assignment, then vanish mid-game.
    let (sa, ea) = enter(&ch, &id, "hero", None).await;
    let (sb, eb) = enter(&ch, &id, "foe1", None).await;
    let (sc, ec) = enter(&ch, &id, "foe2", None).await;
    assert_eq!((ea.entrant, eb.entrant, ec.entrant, ec.joined, ec.needed), (0, 1, 2, 3, 3));
    let a = tokio::spawn(play_stream(ch.clone(), sa, ea, Policy::Sensible, Some(1)));
    let b = tokio::spawn(play_stream(ch.clone(), sb, eb, Policy::Sensible, Some(1)));
    let c = play_stream(ch.clone(), sc, ec, Policy::Sensible, Some(0)).await;
    let (a, b) = (a.await.unwrap(), b.await.unwrap());
    assert!(c.assignments.is_empty(), "parallel 1: only the first game is out");
    let before = get(&mut t, &id).await;
    assert_eq!(before.status, pb::TournamentStatus::Running as i32);
    server.stop().await;

    let server = TestServer::start(&db).await;
    let ch = server.channel().await;
    let mut t = Tours::new(ch.clone());
    let mid = get(&mut t, &id).await;
    assert_eq!(mid.status, pb::TournamentStatus::Running as i32);
    assert_eq!(mid.games.len(), before.games.len(), "no game created twice");
    // A wrong token is refused; the right ones re-enter and get the unfinished game again.
    let e = t
        .join_tournament(pb::JoinTournamentRequest {
            tournament_id: id.clone(),
            entrant_token: "nope".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated);
    let runs = futures_join(vec![
        tokio::spawn(run_entrant(ch.clone(), id.clone(), "", Some(a.token.clone()), Policy::Sensible, None)),
        tokio::spawn(run_entrant(ch.clone(), id.clone(), "", Some(b.token.clone()), Policy::Sensible, None)),
        tokio::spawn(run_entrant(ch.clone(), id.clone(), "", Some(c.token.clone()), Policy::Random, None)),
    ])
    .await;
    assert_eq!(runs[0].entrant, a.entrant);
    let (old, new) = (&a.assignments[0], &runs[0].assignments[0]);
    assert_eq!(new.game_id, old.game_id, "the unfinished game comes back");
    // The server kept no seat token: the game comes back with a new one, the old one is
    // refused.
    assert_ne!(new.seat_token, old.seat_token);
    let mut gc = Games::new(ch.clone());
    let refused = gc.get_game(authed(pb::GetGameRequest { game_id: old.game_id.clone() }, &old.seat_token));
    assert_eq!(refused.await.unwrap_err().code(), Code::Unauthenticated);
    let st = get(&mut t, &id).await;
    assert_eq!(st.games.len(), 4);
    check_books(&ch, &st, 3).await;
    // Gauntlet: the first entrant played every game.
    assert!(st.games.iter().all(|g| g.seat0 == 0 || g.seat1 == 0));
    server.stop().await;

    // No seat token (nor entrant token) is anywhere in what the server wrote: its database,
    // WAL and journal (or PostgreSQL's data directory, its WAL included) hold their hashes
    // only.
    let mut secrets: Vec<String> = [&a, &b, &c]
        .into_iter()
        .chain(&runs)
        .flat_map(|r| r.assignments.iter().map(|x| x.seat_token.clone()).chain([r.token.clone()]))
        .collect();
    secrets.sort();
    secrets.dedup();
    assert!(secrets.len() >= 8, "{secrets:?}");
    let mut files = vec![files.to_path_buf()];
    let mut read = 0;
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        read += bytes.len();
        for secret in &secrets {
            let found = bytes.windows(secret.len()).any(|w| w == secret.as_bytes());
            assert!(!found, "{} holds a token in plain text", path.display());
        }
    }
    assert!(read > 10_000, "the database and journal were read ({read} bytes)");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_booked_but_not_created_before_a_crash_is_created_at_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let server = TestServer::start(&db).await;
    let ch = server.channel().await;
    let mut t = Tours::new(ch.clone());
    let (id, total) = create(&mut t, gauntlet_of_three_one_at_a_time()).await;
    assert_eq!(total, 4);
    let mut tokens = Vec::new();
    for name in ["hero", "foe1", "foe2"] {
        let (_, e) = enter(&ch, &id, name, None).await;
        tokens.push(e.entrant_token);
    }
    // The tournament started: its first game is booked (and created) by the driver.
    let start = std::time::Instant::now();
    while get(&mut t, &id).await.games.is_empty() {
        assert!(start.elapsed() < Duration::from_secs(10), "the first game is booked");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(get(&mut t, &id).await.games.len(), 1, "parallel 1");
    server.stop().await;

    // The state a crash between the two writes leaves: the booking (its row, with the game's
    // id and seat tokens) is stored, the game is not.
    let booked = "feedfacefeedface";
    let c = rusqlite::Connection::open(&db).unwrap();
    let n = c
        .execute(
            "UPDATE tournament_games SET game_id = ?1 WHERE tournament_id = ?2 AND done = 0",
            [booked, &id],
        )
        .unwrap();
    assert_eq!(n, 1);
    drop(c);

    let server = TestServer::start(&db).await;
    let ch = server.channel().await;
    let mut t = Tours::new(ch.clone());
    let runs = futures_join(
        tokens
            .into_iter()
            .map(|tok| {
                tokio::spawn(run_entrant(ch.clone(), id.clone(), "", Some(tok), Policy::Sensible, None))
            })
            .collect(),
    )
    .await;
    assert_eq!(runs[0].assignments[0].game_id, booked, "the booked game is created and assigned");
    let st = get(&mut t, &id).await;
    assert_eq!(st.games.len(), 4);
    assert_eq!(st.games[0].game_id, booked);
    // Played to the end under the booked deal (with new seat tokens: none is stored).
    check_books(&ch, &st, 3).await;
    server.stop().await;
}

#[tokio::test]
async fn bad_specs_and_unknown_ids_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("t.db")).await;
    let ch = server.channel().await;
    let mut t = Tours::new(ch.clone());
    for (s, what) in [
        (pb::TournamentSpec { entrants: 1, games_per_pairing: 1, ..Default::default() }, "entrants"),
        (pb::TournamentSpec { entrants: 2, games_per_pairing: 0, ..Default::default() }, "games_per_pairing"),
        (
            pb::TournamentSpec {
                entrants: 3,
                games_per_pairing: 2,
                sprt: Some(pb::Sprt { elo0: 0.0, elo1: 10.0, ..Default::default() }),
                ..Default::default()
            },
            "sprt",
        ),
        (
            pb::TournamentSpec {
                entrants: 2,
                games_per_pairing: 2,
                rules: Some(preset("nope")),
                ..Default::default()
            },
            "rules",
        ),
        (
            pb::TournamentSpec { entrants: 64, games_per_pairing: 10_000, ..Default::default() },
            "too many games",
        ),
    ] {
        let e = t.create_tournament(pb::CreateTournamentRequest { spec: Some(s) }).await.unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument, "{what}: {e:?}");
    }
    let listed = t.list_tournaments(pb::ListTournamentsRequest::default()).await.unwrap().into_inner();
    assert!(listed.tournaments.is_empty(), "refused specs create nothing");
    let e = t.get_tournament(pb::GetTournamentRequest { tournament_id: "missing".into() }).await.unwrap_err();
    assert_eq!(e.code(), Code::NotFound);
    server.stop().await;
}

/// An entrant refused by the server's rate limit (RESOURCE_EXHAUSTED with a `retry-after-ms`
/// hint) when it enters waits and enters again, rather than giving up.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_entrant_refused_by_the_rate_limit_waits_and_enters() {
    use gin_sdk::entrant::{EntrantEvent, Entry, play_tournament};
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(gin_server::Config {
        db: dir.path().join("t.db"),
        rate_per_sec: 2,
        ..gin_server::Config::default()
    })
    .await;
    let ch = server.channel().await;
    let mut t = Tours::new(ch.clone());
    let spec =
        pb::TournamentSpec { name: "rated".into(), entrants: 2, games_per_pairing: 1, ..Default::default() };
    let (id, _) = create(&mut t, spec).await;
    // This address's whole burst, used up (every caller here shares it: no seat token).
    let refused = loop {
        if let Err(e) = t.get_tournament(pb::GetTournamentRequest { tournament_id: id.clone() }).await {
            break e;
        }
    };
    assert_eq!(refused.code(), Code::ResourceExhausted);
    let client = gin_sdk::Client::connect(&server.url()).await.unwrap();
    let entry =
        Entry { tournament_id: id.clone(), name: "patient".into(), token: None, accept_fixed_deals: false };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let entrant = tokio::spawn(async move {
        play_tournament(&client, entry, "random", 1, move |e| {
            if let EntrantEvent::Entered { entrant, .. } = e {
                let _ = tx.send(entrant);
            }
        })
        .await
    });
    let entered = tokio::time::timeout(Duration::from_secs(20), rx.recv()).await;
    assert!(
        matches!(entered, Ok(Some(_))),
        "not entered: {entered:?}; the entrant's end: {:?}",
        if entrant.is_finished() { Some(entrant.await) } else { None }
    );
    entrant.abort();
    server.stop().await;
}
