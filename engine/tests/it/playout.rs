//! Properties over random legal play: every hand ends; 52 cards are accounted for at every
//! step; `is_legal` agrees with `legal_actions`; illegal actions leave the state unchanged;
//! views never contain hidden cards; records replay to the identical result.

use engine::{Action, Card, CardSet, Game, GameRecord, GameSetup, Hand, PRESETS, RuleSet, Seat};
use proptest::prelude::*;

struct SplitMix(u64);
impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Every candidate action a seat could try: the full action space (knocks without melds).
fn action_space() -> Vec<Action> {
    let mut v = vec![Action::Pass, Action::DrawStock, Action::DrawPile, Action::BigGin { melds: None }];
    for c in Card::all() {
        v.push(Action::Discard { card: c });
        v.push(Action::knock(c));
    }
    v
}

fn accounted(h: &Hand) -> CardSet {
    let mut all = h.cards(Seat::S0);
    assert!(all.is_disjoint(h.cards(Seat::S1)));
    all |= h.cards(Seat::S1);
    let mut n = all.len() as usize;
    for &c in h.pile().iter().chain(h.stock()) {
        assert!(all.insert(c), "{c} twice");
        n += 1;
    }
    if let Some(d) = h.result().and_then(|r| r.showdown.as_ref()).and_then(|s| s.discard) {
        assert!(all.insert(d));
        n += 1;
    }
    assert_eq!(n, 52);
    all
}

fn check_views(g: &Game) {
    let h = g.hand();
    let stock: CardSet = h.stock().iter().copied().collect();
    for seat in Seat::BOTH {
        let opp = seat.other();
        let hidden = (h.cards(opp) - h.known_cards(opp)) | stock;
        let v = g.seat_view(seat);
        assert!(v.current_cards().is_disjoint(hidden), "seat {seat} sees {:?}", v.current_cards() & hidden);
        assert_eq!(v.hand(), h.cards(seat));
        assert_eq!(v.public().stock_len(), h.stock_len());
        // A view serialized as JSON holds no hidden card either (in the first hand: later views
        // also carry earlier hands' showdowns, public by nature, whose cards were dealt again).
        let json = serde_json::to_string(&v).unwrap();
        if !h.is_over() && g.hands().is_empty() {
            for c in hidden {
                assert!(!json.contains(&format!("\"{c}\"")), "seat {seat} JSON shows {c}");
            }
        }
    }
    let hidden_all =
        (h.cards(Seat::S0) - h.known_cards(Seat::S0)) | (h.cards(Seat::S1) - h.known_cards(Seat::S1)) | stock;
    let s = g.spectator_view();
    assert!(s.public().current_cards().is_disjoint(hidden_all));
}

/// Plays one random legal game, checking the properties at every step (all of them during
/// the first `deep_hands` hands). A knock, when legal, is taken half the time, so games end
/// in a reasonable number of hands; everything else is uniform over the legal actions.
fn random_game(rules: RuleSet, seed: u64, deep_hands: usize) -> Game {
    let mut rng = SplitMix(seed);
    let space = action_space();
    let mut g = Game::new(GameSetup::new(rules, seed)).unwrap();
    let mut steps = 0;
    while !g.is_over() {
        let seat = g.to_act().expect("a game not over has a seat to act");
        let legal = g.hand().legal_actions();
        assert!(!legal.is_empty());
        assert_eq!(accounted(g.hand()), CardSet::FULL);
        if g.hands().len() < deep_hands {
            for a in &space {
                assert_eq!(g.hand().is_legal(seat, a), legal.contains(a), "{a} at {:?}", g.hand().phase());
                if !legal.contains(a) {
                    let mut g2 = g.clone();
                    assert!(g2.apply(seat, a).is_err());
                    assert!(g2 == g, "{a} changed the state");
                }
            }
            // The other seat can never act.
            let mut g2 = g.clone();
            assert!(g2.apply(seat.other(), &legal[0]).is_err());
            assert!(g2 == g);
            check_views(&g);
        }
        let knocks: Vec<&Action> =
            legal.iter().filter(|a| matches!(a, Action::Knock { .. } | Action::BigGin { .. })).collect();
        let a = if !knocks.is_empty() && rng.below(2) == 0 {
            knocks[rng.below(knocks.len())].clone()
        } else {
            legal[rng.below(legal.len())].clone()
        };
        let hand_before = g.hands().len();
        let step = g.apply(seat, &a).unwrap();
        assert_eq!(step.hand_over, g.hands().len() == hand_before + 1);
        steps += 1;
        assert!(steps < 100_000, "the game does not end");
    }
    g
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn random_legal_games_keep_every_invariant(seed in any::<u64>(), preset in 0usize..PRESETS.len()) {
        let rules = RuleSet::preset(PRESETS[preset]).unwrap();
        let g = random_game(rules, seed, 2);
        let r = g.result().unwrap();
        prop_assert_eq!(r.margin, r.totals[Seat::S0].abs_diff(r.totals[Seat::S1]));
    }

    #[test]
    fn records_replay_to_the_identical_result(seed in any::<u64>(), preset in 0usize..PRESETS.len()) {
        let rules = RuleSet::preset(PRESETS[preset]).unwrap();
        let g = random_game(rules, seed, 0);
        let rec = g.record();
        for parsed in [GameRecord::from_json(&rec.to_json()).unwrap(), GameRecord::from_text(&rec.to_text()).unwrap()] {
            prop_assert_eq!(&parsed, &rec);
            let g2 = parsed.replay().unwrap();
            prop_assert_eq!(g2.result(), g.result());
            prop_assert_eq!(g2.hands(), g.hands());
        }
    }
}

#[test]
fn many_random_hands_end_with_all_cards_accounted() {
    // Fast check over many hands without the per-step deep checks.
    for seed in 0..300 {
        let g = random_game(RuleSet::standard(), seed, 0);
        assert_eq!(accounted(g.hand()), CardSet::FULL);
    }
}

#[test]
fn a_tampered_record_reports_the_first_bad_action() {
    let g = random_game(RuleSet::standard(), 99, 0);
    let mut rec = g.record();
    // Make action 5 a discard of a card nobody can hold: one from the bottom of the stock.
    let bottom =
        g.setup().decks.first().copied().unwrap_or_else(|| engine::Deck::shuffled(99, 0)).cards()[51];
    rec.actions[5].action = Action::Discard { card: bottom };
    match rec.replay() {
        Err(engine::ReplayError::BadAction { index, .. }) => assert!(index <= 5),
        other => panic!("expected a bad action, got {other:?}"),
    }
    // A changed result is caught too.
    let mut rec = g.record();
    if let Some(r) = rec.result.as_mut() {
        r.margin += 1;
    }
    assert_eq!(rec.replay().err(), Some(engine::ReplayError::ResultMismatch));
}
