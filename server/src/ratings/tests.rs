use super::*;
use proptest::prelude::*;

fn g2(rating: f64, deviation: f64) -> Rating {
    Rating { rating, deviation, volatility: 0.06, games: 0 }
}

fn wl() -> Rating {
    Rating::new(System::WengLin)
}

fn pool(id: &str) -> Pool {
    Pool::parse(id).unwrap_or_else(|| panic!("no pool {id}"))
}

#[test]
fn glickmans_worked_example() {
    // Glickman, "Example of the Glicko-2 system" (glicko.net/glicko/glicko2.pdf), τ = 0.5.
    let player = g2(1500.0, 200.0);
    let results = [
        (g2(1400.0, 30.0), Outcomes::WIN),
        (g2(1550.0, 100.0), Outcomes::LOSS),
        (g2(1700.0, 300.0), Outcomes::LOSS),
    ];
    let after = glicko2_period(&player, &results);
    // The paper rounds μ′ to −0.2069 before scaling back (1464.06); unrounded it is 1464.0507.
    assert!((after.rating - 1464.06).abs() < 0.01, "{after:?}");
    assert_eq!(format!("{:.2}", after.deviation), "151.52");
    // 0.059996: the paper's 0.05999 written to its five decimals, truncated.
    assert!((0.05999..0.06).contains(&after.volatility), "{after:?}");
    assert_eq!(after.games, 3);
}

#[test]
fn a_two_player_game_moves_both_ratings_by_the_server_s_path() {
    let p = pool("gin/standard");
    assert_eq!(p.system(), System::Glicko2);
    let before = [Rating::new(System::Glicko2), Rating::new(System::Glicko2)];
    let after = rate(&p, &before, &[0, 1]).unwrap();
    assert!(after[0].rating > 1500.0 && after[1].rating < 1500.0, "{after:?}");
    assert!((after[0].rating - 1500.0 + after[1].rating - 1500.0).abs() < 1e-9, "equal newcomers move alike");
    assert!(after[0].deviation < 350.0 && after[1].deviation < 350.0);
    assert_eq!((after[0].games, after[1].games), (1, 1));
    // The other seat winning mirrors it; a tie leaves equal newcomers where they were.
    let mirrored = rate(&p, &before, &[1, 0]).unwrap();
    assert_eq!(mirrored[0], after[1]);
    let tie = rate(&p, &before, &[0, 0]).unwrap();
    assert!((tie[0].rating - 1500.0).abs() < 1e-9);
}

#[test]
fn weng_lin_moves_the_winner_up_and_the_loser_down_and_keeps_the_places_order() {
    for id in ["three-player", "gin-7/3", "gin-7/6", "rummy/3", "rummy/5", "rummy/6"] {
        let p = pool(id);
        assert_eq!(p.system(), System::WengLin, "{id}");
        let n = usize::from(p.seats());
        let before = vec![wl(); n];
        // Places given out of seat order: seat k places (n - 1 - k).
        let places: Vec<u8> = (0..n as u8).rev().collect();
        let after = rate(&p, &before, &places).unwrap();
        let winner = n - 1;
        assert!(after[winner].rating > 25.0, "{id}: the winner goes up");
        assert!(after[0].rating < 25.0, "{id}: the last goes down");
        for k in 1..n {
            assert!(after[k].rating > after[k - 1].rating, "{id}: a better place ends higher: {after:?}");
        }
        assert!(after.iter().all(|r| r.deviation < 25.0 / 3.0 && r.games == 1), "{id}");
    }
}

#[test]
fn weng_lin_ties_share_their_move() {
    let p = pool("rummy/4");
    let after = rate(&p, &[wl(); 4], &[0, 1, 1, 3]).unwrap();
    assert!((after[1].rating - after[2].rating).abs() < 1e-9, "{after:?}");
    assert!(after[0].rating > after[1].rating && after[2].rating > after[3].rating);
}

#[test]
fn teams_rate_partners_together() {
    let p = pool("teams");
    assert!(p.teams());
    let after = rate(&p, &[wl(); 4], &[0, 1, 0, 1]).unwrap();
    assert!(after[0].rating > 25.0 && after[2].rating > 25.0);
    assert!(after[1].rating < 25.0 && after[3].rating < 25.0);
    assert!((after[0].rating - after[2].rating).abs() < 1e-9);
    // Partners must share their place.
    let err = rate(&p, &[wl(); 4], &[0, 1, 1, 0]).unwrap_err();
    assert!(err.0.contains("partners"), "{err}");
}

#[test]
fn a_result_of_the_wrong_size_or_a_broken_rating_is_refused() {
    let p = pool("gin/standard");
    assert!(rate(&p, &[Rating::new(System::Glicko2)], &[0]).is_err());
    let nan = Rating { rating: f64::NAN, ..Rating::new(System::Glicko2) };
    assert!(rate(&p, &[nan, Rating::new(System::Glicko2)], &[0, 1]).is_err());
}

#[test]
fn every_preset_has_its_pool_and_custom_rules_have_none() {
    for p in Pool::all() {
        assert_eq!(Pool::of(&p.format()).as_ref(), Some(&p), "{p}");
        assert_eq!(Pool::parse(p.id()).as_ref(), Some(&p));
    }
    assert_eq!(Pool::all().len(), 7 + 2 + 4 + 5);
    assert_eq!(Pool::of(&Format::preset("oklahoma").unwrap()).unwrap().id(), "gin/oklahoma");
    assert_eq!(Pool::of(&Format::preset("rummy").unwrap()).unwrap().id(), "rummy/4");
    assert_eq!(pool("rummy/2").system(), System::Glicko2);
    let mut custom = engine::RuleSet::standard();
    custom.target += 1;
    assert_eq!(Pool::of(&Format::Gin(custom)), None);
    assert_eq!(Pool::parse("gin/nonsense"), None);
    assert_eq!(Pool::parse("rummy/7"), None);
}

#[test]
fn newcomers_are_provisional_until_their_deviation_comes_down() {
    for id in ["gin/standard", "rummy/4"] {
        let p = pool(id);
        let s = p.system();
        let mut me = Rating::new(s);
        assert!(me.provisional(s));
        assert_eq!(me.shown(s), 1500.0, "{id}: one scale for every pool");
        let established = match s {
            System::Glicko2 => g2(1500.0, 60.0),
            System::WengLin => Rating { deviation: 1.0, ..wl() },
        };
        let mut games = 0;
        while me.provisional(s) {
            let mut seats = vec![established; usize::from(p.seats())];
            seats[0] = me;
            let places: Vec<u8> = (0..p.seats()).map(|k| (k + games) % p.seats()).collect();
            me = rate(&p, &seats, &places).unwrap()[0];
            games += 1;
            assert!(games < 40, "{id}: still provisional after 40 games: {me:?}");
        }
        assert!(games >= 5, "{id}: established after only {games} games");
    }
}

proptest! {
    #[test]
    fn the_board_is_sorted_and_ranks_as_a_sorted_list_would(
        ops in prop::collection::vec((0u8..40, prop::option::of(1000u32..2000)), 1..200),
        offset in 0usize..50, limit in 0usize..50,
    ) {
        let mut board = Board::new();
        let mut model: std::collections::BTreeMap<String, f64> = Default::default();
        for (who, rating) in ops {
            let account = format!("a{who:02}");
            let entry = rating.map(|r| BoardEntry { account: account.clone(), rating: f64::from(r), deviation: 50.0, games: 1 });
            board.set(&account, entry);
            match rating {
                Some(r) => { model.insert(account, f64::from(r)); }
                None => { model.remove(&account); }
            }
        }
        let mut expected: Vec<(String, f64)> = model.into_iter().collect();
        expected.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        prop_assert_eq!(board.len(), expected.len());
        let page: Vec<(String, f64)> = board.page(offset, limit).iter().map(|e| (e.account.clone(), e.rating)).collect();
        let want: Vec<(String, f64)> = expected.iter().skip(offset).take(limit).cloned().collect();
        prop_assert_eq!(page, want);
        for (i, (account, _)) in expected.iter().enumerate() {
            prop_assert_eq!(board.rank(account), Some(i + 1));
        }
        prop_assert_eq!(board.rank("nobody"), None);
        let rebuilt = Board::from_entries(board.page(0, usize::MAX).to_vec());
        prop_assert_eq!(rebuilt.page(0, usize::MAX), board.page(0, usize::MAX));
    }
}
