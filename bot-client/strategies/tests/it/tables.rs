//! Bots at every table format: they only play legal moves, `simple` beats `random` in every
//! format, equal strategies share the wins, and the duplicate rotation seats A everywhere.

use engine::{Format, Kind, TableSetup};
use gin_strategies::tables::{TableBot, TableSelfPlay, play_table, strategies_for};

fn formats() -> Vec<Format> {
    let mut f = vec![Format::preset("three-player").unwrap(), Format::preset("teams").unwrap()];
    for n in [3, 6] {
        f.push(Format::preset("gin-7").unwrap().with_players(n).unwrap());
    }
    for n in [2, 4, 6] {
        f.push(Format::preset("rummy").unwrap().with_players(n).unwrap());
    }
    f
}

#[test]
fn every_strategy_plays_whole_games_of_its_formats() {
    for format in formats() {
        let kind = format.kind();
        // (The Monte Carlo players are slow in a test: `strong` plays below and elsewhere.)
        for name in strategies_for(kind).iter().filter(|&&n| !n.starts_with("strong")) {
            let mut bots: Vec<TableBot> =
                (0..format.players()).map(|s| TableBot::new(name, kind, s as u64).unwrap()).collect();
            let t = play_table(TableSetup::new(format.clone(), 11), &mut bots)
                .unwrap_or_else(|e| panic!("{}: {e}", format.name()));
            assert!(t.is_over());
            assert!(!t.hands().is_empty());
        }
    }
    // At gin-7 and rummy, `strong` is the table search; the two-player strategies play the
    // two-player hands of three-player and teams only.
    for kind in [Kind::Gin7, Kind::Rummy] {
        assert!(TableBot::new("strong", kind, 1).is_ok());
        let e = TableBot::new("strong-v2", kind, 1).err().unwrap();
        assert!(e.0.contains("random, simple, strong"), "{}", e.0);
    }
    for name in ["strong", "strong-v1", "strong-v2", "gin-hunter", "early-knocker", "defensive"] {
        assert!(TableBot::new(name, Kind::ThreePlayer, 1).is_ok());
        assert!(TableBot::new(name, Kind::Teams, 1).is_ok());
        assert!(name == "strong" || TableBot::new(name, Kind::Gin7, 1).is_err());
    }
}

#[test]
fn simple_beats_random_and_equals_share_in_every_format() {
    for format in formats() {
        let fair = 1.0 / if format.kind() == Kind::Teams { 2.0 } else { format.players() as f64 };
        let sp = |a: &str, b: &str| TableSelfPlay {
            format: format.clone(),
            a: a.into(),
            b: b.into(),
            deals: 12,
            seed: 5,
            threads: 1,
        };
        let r = sp("simple", "random").run().unwrap();
        let rotations = if format.kind() == Kind::Teams { 2 } else { format.players() as u64 };
        assert_eq!(r.games, 12 * rotations);
        assert!(r.a_win_share > fair + 0.2, "{}: simple won {} of the wins", r.format, r.a_win_share);
        assert!(r.a_mean_place < r.b_mean_place, "{}", r.text());
        // Rotated over every seat: when A wins every game, every seat held A equally often,
        // so every seat won equally often.
        if r.a_win_share == 1.0 {
            for w in &r.seat_win_share {
                assert!((w - 1.0 / format.players() as f64).abs() < 1e-9, "{}", r.text());
            }
        }
        let even = sp("simple", "simple").run().unwrap();
        assert!((even.a_win_share - fair).abs() < 0.2, "{}", even.text());
    }
}
