//! Gin for three (rotating) and for four in teams (seed 000): each sentence of the seed about
//! these tables is a test that quotes it; worked scores by hand; properties over random games.

use engine::pairs::{PairError, PairSetup, TeamGame, ThreePlayerGame, team_of};
use engine::{Action, Card, Deck, GameEnd, Hand, RuleSet, Seat, card};
use proptest::prelude::*;

/// A deck dealing `first` to the non-dealer (hand seat 0), `second` to the dealer, and `up`
/// as the upcard; the rest in the deck's usual order.
fn deck(first: &str, second: &str, up: &str) -> Deck {
    let a: Vec<Card> = first.split_whitespace().map(card).collect();
    let b: Vec<Card> = second.split_whitespace().map(card).collect();
    let mut cards = Vec::new();
    for i in 0..10 {
        cards.push(a[i]);
        cards.push(b[i]);
    }
    cards.push(card(up));
    for c in Card::all() {
        if !cards.contains(&c) {
            cards.push(c);
        }
    }
    Deck::from_cards(&cards).unwrap()
}

/// Nine clubs in a run: with the T♣ upcard, gin (the K♦ goes face down).
const GIN: &str = "AC 2C 3C 4C 5C 6C 7C 8C 9C KD";
/// No meld: deadwood 2+4+6+8+10 twice = 60.
const L60: &str = "2D 4D 6D 8D TD 2H 4H 6H 8H TH";
/// No meld: deadwood 1+3+5+7 twice, + 2 + 4 = 38.
const L38: &str = "AD 3D 5D 7D AH 3H 5H 7H 2S 4S";

fn setup(rules: RuleSet, decks: Vec<Deck>, first: u8) -> PairSetup {
    PairSetup { rules, seed: 7, decks, first_dealer: Some(first) }
}

fn gin_discard() -> Action {
    Action::knock(card("KD"))
}

/// « Le donneur distribue aux deux autres joueurs, mais pas à soi-même. Le donneur passe son
/// tour lorsque les deux autres joueurs jouent. »
#[test]
fn three_the_dealer_deals_to_the_two_others_and_sits_out() {
    let g = ThreePlayerGame::new(setup(RuleSet::standard(), vec![], 0)).unwrap();
    assert_eq!(g.sitter(), 0);
    assert_eq!(g.players(), [1, 2], "the seat at the dealer's left plays first");
    assert_eq!(g.seat_of(0), None);
    let h = g.hand();
    assert_eq!(h.cards(Seat::S0).len() + h.cards(Seat::S1).len(), 20, "10 cards to each of the two");
    assert_eq!(g.to_act(), Some(1));
    let mut same = g.clone();
    assert_eq!(same.apply(0, &Action::DrawStock), Err(PairError::SitsOut(0)));
    assert_eq!(same.apply(2, &Action::DrawStock), Err(PairError::NotYourTurn { to_act: 1 }));
    assert_eq!(same.apply(3, &Action::DrawStock), Err(PairError::NoSuchPlayer(3)));
    assert_eq!(same, g, "refusals change nothing");
}

/// « Le perdant de chaque manche devient le donneur. C'est alors le tour du gagnant et du
/// donneur de la partie précédente. »
#[test]
fn three_the_loser_deals_next_and_the_winner_plays_the_previous_dealer() {
    let mut g = ThreePlayerGame::new(setup(RuleSet::standard(), vec![deck(GIN, L60, "TC")], 0)).unwrap();
    g.apply(1, &Action::DrawPile).unwrap();
    let step = g.apply(1, &gin_discard()).unwrap();
    assert!(step.hand_over && !step.game_over);
    // Gin: the loser's 60 deadwood + the 25 gin bonus, to person 1.
    assert_eq!(g.scores(), [0, 85, 0]);
    assert_eq!(g.hands()[0].winner(), Some(1));
    assert_eq!(g.sitter(), 2, "the loser (person 2) deals");
    assert_eq!(g.players(), [0, 1], "the winner (1) plays the previous dealer (0)");
    assert_eq!(g.hand_number(), 1);
}

/// The game ends at the target with the rule set's bonuses, per person.
#[test]
fn three_game_ends_at_the_target_with_bonuses_per_person() {
    let rules = RuleSet { target: 80, ..RuleSet::standard() };
    let mut g = ThreePlayerGame::new(setup(rules, vec![deck(GIN, L60, "TC")], 0)).unwrap();
    g.apply(1, &Action::DrawPile).unwrap();
    assert!(g.apply(1, &gin_discard()).unwrap().game_over);
    let r = g.result().unwrap();
    assert_eq!(r.reached_target, Some(1));
    assert_eq!(r.hand_points, vec![0, 85, 0]);
    // standard: game bonus 100, box 25 per hand won, shutout doubles the hand points.
    assert_eq!(r.totals, vec![0, 85 + 100 + 25 + 85, 0]);
    assert_eq!((r.winner, r.margin), (Some(1), 295));
    assert_eq!(g.apply(1, &Action::DrawStock), Err(PairError::GameOver));
}

/// Impossible setups are refused with the field at fault.
#[test]
fn three_rules_errors_are_clear() {
    let e = ThreePlayerGame::new(PairSetup::new(RuleSet::preset("multistage").unwrap(), 1)).unwrap_err();
    assert!(e.to_string().contains("stages"), "{e}");
    let e = ThreePlayerGame::new(setup(RuleSet::standard(), vec![], 3)).unwrap_err();
    assert!(e.to_string().contains("first_dealer 3"), "{e}");
    let e = TeamGame::new(setup(RuleSet::standard(), vec![], 2)).unwrap_err();
    assert!(e.to_string().contains("first_dealer 2"), "{e}");
}

/// « Chaque joueur d'une équipe joue contre un joueur de l'équipe adverse » — and partners
/// change opponents from round to round.
#[test]
fn teams_each_plays_one_opponent_of_the_other_team_and_partners_swap() {
    let g = TeamGame::new(setup(RuleSet::standard(), vec![], 0)).unwrap();
    for round in 0..4 {
        let mut seen = Vec::new();
        for t in 0..2 {
            let [a, b] = g.players_in(round, t);
            assert_ne!(team_of(a), team_of(b), "round {round} table {t}");
            seen.extend([a, b]);
        }
        seen.sort();
        assert_eq!(seen, [0, 1, 2, 3]);
    }
    let opp = |round: u32| {
        let ps = g.players_in(round, 0);
        ps[0] + ps[1] // person 0 sits at table 0: its opponent is the other
    };
    assert_eq!(opp(0), 1);
    assert_eq!(opp(1), 3);
    assert_eq!(g.to_act().len(), 2, "two tables at once");
}

/// « si les deux joueurs de la même équipe ont gagné, ils combinent leurs scores. Si
/// seulement un joueur par équipe a gagné, la différence entre le score des deux équipes sera
/// attribuée comme score à l'équipe » (whose winner scored more: RULES.md).
#[test]
fn teams_round_scores_sum_or_difference() {
    let rules = RuleSet { target: 500, ..RuleSet::standard() };
    // Round 0, team 0 deals at both tables: persons 1 and 3 (team 1) play first.
    // Round 1, team 1 deals: table 0 is [0, 3], table 1 is [2, 1].
    let decks = vec![deck(GIN, L60, "TC"), deck(GIN, L38, "TC"), deck(GIN, L60, "TC"), deck(L38, GIN, "TC")];
    let mut g = TeamGame::new(setup(rules, decks, 0)).unwrap();
    assert_eq!(g.players(0), [1, 0]);
    assert_eq!(g.players(1), [3, 2]);
    g.apply(1, &Action::DrawPile).unwrap();
    let s = g.apply(1, &gin_discard()).unwrap();
    assert!(s.hand_over && !s.round_over);
    assert_eq!(g.to_act(), vec![3], "table 0 waits for table 1");
    assert_eq!(g.clone().apply(0, &Action::DrawStock), Err(PairError::Waiting(0)));
    g.apply(3, &Action::DrawPile).unwrap();
    assert!(g.apply(3, &gin_discard()).unwrap().round_over);
    // Both winners of team 1: 60 + 25 and 38 + 25, summed.
    assert_eq!(g.rounds()[0].points, [0, 85 + 63]);
    assert_eq!(g.players(0), [0, 3]);
    assert_eq!(g.players(1), [2, 1]);
    g.apply(0, &Action::DrawPile).unwrap();
    g.apply(0, &gin_discard()).unwrap();
    g.apply(2, &Action::Pass).unwrap();
    g.apply(1, &Action::DrawPile).unwrap();
    g.apply(1, &gin_discard()).unwrap();
    // One winner each: person 0 scored 85, person 1 scored 63: team 0 gets 22.
    assert_eq!(g.rounds()[1].points, [22, 0]);
    assert_eq!(g.scores(), [22, 148]);
    assert_eq!(TeamGame::round_points([Some((2, 30)), Some((3, 30))]), [0, 0], "equal: nobody");
    assert_eq!(TeamGame::round_points([None, Some((3, 30))]), [0, 30], "a dead table");
    assert_eq!(TeamGame::round_points([None, None]), [0, 0]);
}

/// A random legal action of `h`.
fn random_action(h: &Hand, rng: &mut u64) -> Action {
    *rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let legal = h.legal();
    legal.nth(((*rng >> 33) % legal.count() as u64) as u32).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Random three-player games: the rotation follows the seed after every hand, scores add
    /// up, and the totals follow the bonuses.
    #[test]
    fn three_player_random_games(seed in any::<u64>()) {
        let rules = RuleSet::standard();
        let mut g = ThreePlayerGame::new(PairSetup::new(rules.clone(), seed)).unwrap();
        let mut rng = seed | 1;
        let mut before = (g.sitter(), g.players());
        let mut hands = 0;
        while !g.is_over() {
            let p = g.to_act().unwrap();
            prop_assert_ne!(p, g.sitter());
            let a = random_action(g.hand(), &mut rng);
            let step = g.apply(p, &a).unwrap();
            if step.hand_over && !step.game_over {
                let h = g.hands().last().unwrap();
                match h.winner() {
                    None => prop_assert_eq!((g.sitter(), g.players()), before, "dead hand: same seats"),
                    Some(w) => {
                        let loser = h.players[0] + h.players[1] - w;
                        prop_assert_eq!(g.sitter(), loser);
                        let mut now = g.players();
                        now.sort();
                        let mut want = [w, before.0];
                        want.sort();
                        prop_assert_eq!(now, want);
                    }
                }
                before = (g.sitter(), g.players());
                hands += 1;
                prop_assert!(hands < 5000);
            }
        }
        let r = g.result().unwrap();
        let mut pts = [0u32; 3];
        let mut won = [0u32; 3];
        for h in g.hands() {
            if let Some(w) = h.winner() {
                pts[w as usize] += h.result.points;
                won[w as usize] += 1;
            }
        }
        prop_assert_eq!(&r.hand_points, &pts.to_vec());
        match r.reached_target {
            Some(w) => prop_assert!(rules.reaches_target(pts[w as usize])),
            // Random play's hands can be long: the game's hand limit ended it.
            None => prop_assert_eq!((r.end, g.hands().len() as u32), (GameEnd::HandLimit, rules.max_hands_per_game)),
        }
        for p in 0..3 {
            prop_assert_eq!(r.box_bonus[p], won[p] * rules.box_bonus);
            prop_assert_eq!(r.totals[p], pts[p] + r.game_bonus[p] + r.box_bonus[p] + r.shutout_bonus[p]);
        }
        let best = *r.totals.iter().max().unwrap();
        if let Some(w) = r.winner {
            prop_assert_eq!(r.totals[w as usize], best);
        }
    }

    /// Random team games: each round's team points follow the two hands, and the game ends
    /// when a team reaches the target.
    #[test]
    fn team_random_games(seed in any::<u64>()) {
        let rules = RuleSet::standard();
        let mut g = TeamGame::new(PairSetup::new(rules.clone(), seed)).unwrap();
        let mut rng = seed | 1;
        let mut steps = 0u64;
        while !g.is_over() {
            let who = g.to_act();
            prop_assert!(!who.is_empty() && who.len() <= 2);
            let p = who[(rng >> 40) as usize % who.len()];
            let (t, _) = g.place_of(p).unwrap();
            let a = random_action(&g.tables()[t as usize], &mut rng);
            g.apply(p, &a).unwrap();
            steps += 1;
            prop_assert!(steps < 1_000_000);
        }
        let mut scores = [0u32; 2];
        for rd in g.rounds() {
            let wins = [0u8, 1].map(|t| {
                let h = g.hands().iter().find(|h| h.round == rd.round && h.table == t).unwrap();
                h.winner().map(|w| (w, h.result.points))
            });
            prop_assert_eq!(rd.points, TeamGame::round_points(wins));
            scores[0] += rd.points[0];
            scores[1] += rd.points[1];
            prop_assert_eq!(rd.scores, scores);
        }
        let r = g.result().unwrap();
        prop_assert_eq!(&r.hand_points, &scores.to_vec());
        match r.reached_target {
            Some(w) => prop_assert!(rules.reaches_target(scores[w as usize])),
            None => prop_assert_eq!((r.end, g.hands().len() as u32), (GameEnd::HandLimit, rules.max_hands_per_game)),
        }
        prop_assert_eq!(g.hands().len(), 2 * g.rounds().len());
    }
}
