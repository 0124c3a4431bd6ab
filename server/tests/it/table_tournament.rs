//! Tournaments at tables over real sockets: entrants seated at tables of the format's size,
//! every seat and every meeting equally often, duplicate deals rotated over the seats,
//! results booked per seat (totals, places), standings by pairwise scores, exports, and the
//! books read back the same after a restart.

use crate::common;

use std::collections::HashMap;

use common::*;
use gin_proto::v1 as pb;
use gin_sdk::entrant::{EntrantEvent, Entry, play_tournament};
use tonic::Code;

use crate::tournament::{Tours, get};

/// A seat's score in one game, as the standings define it: the mean over its opponents
/// (partners excluded at team tables) of 1 for a better place, 0.5 for the same, 0 for worse.
fn pairwise(places: &[u32], s: usize, teams: bool) -> f64 {
    let opponents: Vec<usize> = (0..places.len()).filter(|&o| o != s && !(teams && o % 2 == s % 2)).collect();
    let sum: f64 = opponents
        .iter()
        .map(|&o| match places[s].cmp(&places[o]) {
            std::cmp::Ordering::Less => 1.0,
            std::cmp::Ordering::Equal => 0.5,
            std::cmp::Ordering::Greater => 0.0,
        })
        .sum();
    sum / opponents.len() as f64
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rummy_round_robin_at_tables_of_three_seats_everyone_equally_and_books_every_seat() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let server = TestServer::start(&db).await;
    let ch = server.channel().await;
    let mut t = Tours::new(ch.clone());
    let spec = pb::TournamentSpec {
        name: "rummy cup".into(),
        entrants: 4,
        // Rounded up to a whole number of seatings: 3 at a table of 3.
        games_per_pairing: 2,
        duplicate: true,
        game_format: "rummy".into(),
        players: 3,
        parallel: 4,
        seed: 77,
        ..Default::default()
    };
    let r = t.create_tournament(pb::CreateTournamentRequest { spec: Some(spec) }).await.unwrap().into_inner();
    // Four tables (each 3-subset of 4 entrants), three games each.
    assert_eq!(r.total_games, 12);
    let id = r.tournament_id;
    let waiting = get(&mut t, &id).await;
    let f = waiting.game_format.clone().unwrap();
    assert_eq!((f.kind.as_str(), f.players), ("rummy", 3));

    let mut entrants = Vec::new();
    for (i, strategy) in ["simple", "simple", "random", "random"].into_iter().enumerate() {
        let url = server.url();
        let id = id.clone();
        entrants.push(tokio::spawn(async move {
            let client = gin_sdk::Client::connect(&url).await.unwrap();
            let entry = Entry {
                tournament_id: id,
                name: format!("{strategy}-{i}"),
                token: None,
                accept_fixed_deals: true,
            };
            let mut played = Vec::new();
            let mut failed = Vec::new();
            let st = play_tournament(&client, entry, strategy, i as u64, |ev| match ev {
                EntrantEvent::PlayedTable(o) => played.push(o),
                EntrantEvent::Played(o) => panic!("a two-player game at a rummy table: {o:?}"),
                EntrantEvent::Failed { game_id, error } => failed.push((game_id, error)),
                EntrantEvent::Entered { .. } => {}
            })
            .await
            .unwrap();
            assert!(failed.is_empty(), "{failed:?}");
            (played, st)
        }));
    }
    let mut outcomes = Vec::new();
    for e in entrants {
        let (played, _) =
            tokio::time::timeout(std::time::Duration::from_secs(240), e).await.unwrap().unwrap();
        // Each entrant sits at 3 of the 4 tables, 3 games each.
        assert_eq!(played.len(), 9);
        outcomes.extend(played);
    }

    let st = get(&mut t, &id).await;
    assert_eq!(st.status, pb::TournamentStatus::Finished as i32);
    assert_eq!(st.games.len(), 12);
    let mut seat_count: HashMap<(u32, usize), u32> = HashMap::new();
    let mut met: HashMap<(u32, u32), u32> = HashMap::new();
    let mut by_deal: HashMap<u64, Vec<&pb::TournamentGame>> = HashMap::new();
    let mut scores: HashMap<u32, Vec<f64>> = HashMap::new();
    let mut points: HashMap<u32, i64> = HashMap::new();
    let mut gc = Games::new(ch.clone());
    let name_of: HashMap<u32, &str> =
        st.standings.as_ref().unwrap().rows.iter().map(|r| (r.entrant, r.name.as_str())).collect();
    for g in &st.games {
        assert!(g.done);
        assert_eq!(g.entrants.len(), 3, "{g:?}");
        assert_eq!((g.seat0, g.seat1), (g.entrants[0], g.entrants[1]));
        // The server's result is what the tournament booked, seat by seat.
        let snap = get_game(&mut gc, &g.game_id, "").await;
        let result = snap.result.expect("over");
        assert_eq!(result.table_totals, g.table_totals, "game {}", g.number);
        assert_eq!(result.places, g.places, "game {}", g.number);
        // Each seat's player saw the same end.
        for o in outcomes.iter().filter(|o| o.game_id == g.game_id) {
            assert_eq!(o.totals, g.table_totals);
            assert_eq!(o.place, g.places[o.seat as usize]);
        }
        assert_eq!(outcomes.iter().filter(|o| o.game_id == g.game_id).count(), 3, "every seat played it");
        // The names of the game's seats are the entrants' (entrant numbers follow the order
        // of joining).
        let names: Vec<&str> = snap.seats.iter().map(|s| s.name.as_str()).collect();
        let want: Vec<&str> = g.entrants.iter().map(|&e| name_of[&e]).collect();
        assert_eq!(names, want);
        for (s, &e) in g.entrants.iter().enumerate() {
            *seat_count.entry((e, s)).or_default() += 1;
            scores.entry(e).or_default().push(pairwise(&g.places, s, false));
            *points.entry(e).or_default() += g.table_totals[s];
            for &f in &g.entrants {
                if e < f {
                    *met.entry((e, f)).or_default() += 1;
                }
            }
        }
        by_deal.entry(g.deal_seed).or_default().push(g);
    }
    // Every entrant holds every seat equally often; every pair meets equally often.
    assert_eq!(seat_count.len(), 12);
    assert!(seat_count.values().all(|&n| n == 3), "{seat_count:?}");
    assert_eq!(met.len(), 6);
    assert!(met.values().all(|&n| n == 6), "{met:?}");
    // Duplicate: each table's deal is played once in each rotation of its seats.
    assert_eq!(by_deal.len(), 4, "one deal per table");
    for games in by_deal.values() {
        assert_eq!(games.len(), 3);
        let first = &games[0].entrants;
        for g in games {
            let mut a = g.entrants.clone();
            let mut b = first.clone();
            a.sort();
            b.sort();
            assert_eq!(a, b, "one table");
        }
        let mut firsts: Vec<u32> = games.iter().map(|g| g.entrants[0]).collect();
        firsts.sort();
        firsts.dedup();
        assert_eq!(firsts.len(), 3, "each entrant of the table in seat 0 once: {games:?}");
    }
    // The standings are the pairwise scores, the summed totals and the mean places.
    let rows = &st.standings.as_ref().unwrap().rows;
    assert_eq!(rows.len(), 4);
    for r in rows {
        let s = &scores[&r.entrant];
        assert_eq!(r.games as usize, s.len());
        assert!((r.score - s.iter().sum::<f64>() / s.len() as f64).abs() < 1e-9, "{r:?}");
        assert_eq!(r.table_points, points[&r.entrant]);
        assert_eq!(r.wins + r.losses + r.draws, r.games);
        assert!(r.mean_place >= 1.0 && r.mean_place <= 3.0);
        assert!(r.elo_low <= r.elo && r.elo <= r.elo_high);
        assert_eq!((r.points_for, r.points_against), (0, 0), "two-player columns");
    }
    for w in rows.windows(2) {
        assert!(w[0].score >= w[1].score);
    }
    assert!(st.standings.as_ref().unwrap().teams.is_empty(), "no teams at rummy");

    // Exports: CSV with a table's columns, JSON with every seat.
    let csv = t
        .export_tournament(pb::ExportTournamentRequest {
            tournament_id: id.clone(),
            format: pb::ExportFormat::Csv as i32,
        })
        .await
        .unwrap()
        .into_inner()
        .content;
    let blocks: Vec<&str> = csv.split("\n\n").collect();
    assert_eq!(blocks.len(), 2, "{csv}");
    assert!(blocks[0].starts_with("number,round,game_id,entrants,names,deal_seed,done,places,totals\n"));
    assert_eq!(blocks[0].lines().count(), 13);
    let g0 = &st.games[0];
    let line = format!(
        "{},1,{},{},",
        g0.number,
        g0.game_id,
        g0.entrants.iter().map(|e| e.to_string()).collect::<Vec<_>>().join(" ")
    );
    assert!(blocks[0].lines().any(|l| l.starts_with(&line)), "{line} in {csv}");
    let json = t
        .export_tournament(pb::ExportTournamentRequest {
            tournament_id: id.clone(),
            format: pb::ExportFormat::Json as i32,
        })
        .await
        .unwrap()
        .into_inner()
        .content;
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["game_format"]["kind"], "rummy");
    assert_eq!(v["games"][0]["seats"].as_array().unwrap().len(), 3);
    assert_eq!(v["games"][0]["places"].as_array().unwrap().len(), 3);
    server.stop().await;

    // The books are read back from the store the same after a restart.
    let server = TestServer::start(&db).await;
    let mut t = Tours::new(server.channel().await);
    let again = get(&mut t, &id).await;
    assert_eq!(again.games, st.games);
    assert_eq!(again.standings, st.standings);
    server.stop().await;
}

#[tokio::test]
async fn table_specs_that_cannot_be_played_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("t.db")).await;
    let mut t = Tours::new(server.channel().await);
    let table = |f: &str, players: u32, entrants: u32| pb::TournamentSpec {
        entrants,
        games_per_pairing: 1,
        game_format: f.into(),
        players,
        ..Default::default()
    };
    for (s, what) in [
        (
            pb::TournamentSpec { format: pb::TournamentFormat::Swiss as i32, ..table("rummy", 4, 8) },
            "spec.format: tables of 4 play round robin only",
        ),
        (
            pb::TournamentSpec { format: pb::TournamentFormat::Gauntlet as i32, ..table("gin-7", 3, 4) },
            "round robin only",
        ),
        (
            pb::TournamentSpec {
                sprt: Some(pb::Sprt { elo0: 0.0, elo1: 10.0, ..Default::default() }),
                ..table("rummy", 2, 2)
            },
            "spec.sprt",
        ),
        (table("rummy", 5, 4), "spec.entrants: at least the table size, 5"),
        (table("teams", 5, 6), "spec.players"),
        (table("poker", 0, 4), "spec.game_format"),
        (pb::TournamentSpec { rules: Some(preset("standard")), ..table("rummy", 3, 3) }, "spec.rules"),
        (table("", 3, 3), "spec.players"),
        (pb::TournamentSpec { games_per_pairing: 10_000, ..table("rummy", 6, 64) }, "games in all"),
    ] {
        let e = t.create_tournament(pb::CreateTournamentRequest { spec: Some(s) }).await.unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument, "{what}: {e:?}");
        assert!(e.message().contains(what), "{what}: {}", e.message());
    }
    let listed = t.list_tournaments(pb::ListTournamentsRequest::default()).await.unwrap().into_inner();
    assert!(listed.tournaments.is_empty(), "refused specs create nothing");
    server.stop().await;
}
