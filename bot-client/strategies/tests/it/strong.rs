//! Tests of the `strong` strategy: legal play under every kind of rules, a few decisions that
//! only a working strategy gets right, and determinism.

use engine::{Action, BySeat, Card, CardSet, GameSetup, Legal, RuleSet, Seat, card, hand, knock_discards};
use gin_strategies::local::play_game;
use gin_strategies::memory::{Memory, Seen};
use gin_strategies::random::RandomStrategy;
use gin_strategies::simple::SimpleStrategy;
use gin_strategies::strategy::{Decision, Strategy};
use gin_strategies::strong::{StrongStrategy, Tuning};

/// A small search: the same code paths, fast enough for debug builds.
fn quick(seed: u64) -> StrongStrategy {
    StrongStrategy::with_tuning(
        seed,
        Tuning { draw_samples: 6, discard_rollouts: 20, candidates: 3, ..Tuning::default() },
    )
}

fn rule_sets() -> Vec<RuleSet> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/rules/competition.toml"))
        .expect("competition rules");
    let mut v: Vec<RuleSet> =
        ["standard", "oklahoma", "classic"].iter().map(|p| RuleSet::preset(p).expect("preset")).collect();
    v.push(RuleSet::parse_any(&text).expect("valid rules"));
    v
}

#[test]
fn plays_only_legal_actions() {
    for (r, rules) in rule_sets().into_iter().enumerate() {
        for g in 0..6u64 {
            let seed = 1000 * r as u64 + g;
            let mut strong = quick(seed);
            let mut simple = SimpleStrategy::new(seed + 1);
            let mut random = RandomStrategy::new(seed + 2);
            let other: &mut dyn Strategy = if g % 2 == 0 { &mut simple } else { &mut random };
            let players: [&mut dyn Strategy; 2] =
                if g % 3 == 0 { [&mut strong, other] } else { [other, &mut strong] };
            let game = play_game(GameSetup::new(rules.clone(), seed), players)
                .unwrap_or_else(|e| panic!("{}: {e}", rules.name));
            assert!(game.is_over());
        }
    }
}

#[test]
fn default_search_plays_a_legal_game() {
    let rules = RuleSet::preset("standard").expect("preset");
    let mut strong = StrongStrategy::new(3);
    let mut simple = SimpleStrategy::new(4);
    let game = play_game(GameSetup::new(rules, 9), [&mut strong, &mut simple]).expect("legal play");
    assert!(game.is_over());
}

#[test]
fn same_seed_same_game() {
    let rules = RuleSet::preset("standard").expect("preset");
    let play = |seed: u64| {
        let (mut a, mut b) = (quick(seed), SimpleStrategy::new(5));
        play_game(GameSetup::new(rules.clone(), 77), [&mut a, &mut b]).expect("legal").actions().to_vec()
    };
    assert_eq!(play(11), play(11));
}

/// Seat 0's action holding `cards` (11: discard; 10: draw), with `pile` face up (top last).
fn decide(
    strong: &mut StrongStrategy,
    cards: CardSet,
    pile: &[Card],
    stock_len: u32,
    mem: &Memory,
) -> Action {
    let rules = RuleSet::preset("standard").expect("preset");
    let legal = if cards.len() == 11 {
        Legal { seat: Some(Seat::S0), discards: cards, knocks: knock_discards(cards, 10), ..Legal::default() }
    } else {
        Legal { seat: Some(Seat::S0), draw_stock: true, draw_pile: true, ..Legal::default() }
    };
    let d = Decision {
        seat: Seat::S0,
        rules: &rules,
        hand: cards,
        pile,
        stock_len,
        taken: None,
        knock_limit: 10,
        legal,
        scores: BySeat::new(0, 0),
        memory: mem,
    };
    strong.act(&d)
}

/// A memory of seat 0: it holds `cards`, the pile is `pile`, and the opponent took each card
/// of `taken` from the pile, each followed by a discard from `discarded`.
fn memory(cards: CardSet, pile: &[Card], taken: &[Card], discarded: &[Card]) -> Memory {
    let mut m = Memory::new(Seat::S0);
    m.hand_number = 1;
    m.upcard = pile.first().copied();
    m.pile = pile.to_vec();
    m.seen = cards | pile.iter().copied().collect::<CardSet>() | taken.iter().copied().collect::<CardSet>();
    for (&t, &x) in taken.iter().zip(discarded) {
        m.opp_known.insert(t);
        m.opp_moves.push(Seen::DrewPile { seat: Seat::S1, card: t });
        m.opp_discards.insert(x);
        m.opp_moves.push(Seen::Discarded { seat: Seat::S1, card: x });
        m.draws[1] += 1;
    }
    m
}

#[test]
fn gins_when_it_can() {
    let cards = hand("AC 2C 3C 4D 5D 6D 7H 8H 9H TH KS");
    let pile = [card("2S"), card("QD")];
    let mem = memory(cards, &pile, &[], &[]);
    for seed in 0..4 {
        let a = decide(&mut quick(seed), cards, &pile, 20, &mem);
        assert!(matches!(a, Action::Knock { discard, .. } if discard == card("KS")), "{a}");
    }
}

#[test]
fn knocks_rather_than_end_the_hand_dead() {
    // Two cards left in the stock: any discard ends the hand with no score; a knock with
    // 1 deadwood wins almost surely.
    let cards = hand("AC 2C 3C 4D 5D 6D 7H 8H 9H AS KS");
    let pile = [card("2S"), card("QD")];
    let mem = memory(cards, &pile, &[], &[]);
    let a = decide(&mut quick(1), cards, &pile, 2, &mem);
    assert!(matches!(a, Action::Knock { discard, .. } if discard == card("KS")), "{a}");
}

#[test]
fn takes_the_card_that_gins_and_declines_a_useless_one() {
    let cards = hand("AC 2C 3C 4D 5D 6D 7H 8H 9H KS");
    let pile = [card("2S"), card("4C")];
    let mem = memory(cards, &pile, &[], &[]);
    for seed in 0..4 {
        assert_eq!(decide(&mut StrongStrategy::new(seed), cards, &pile, 20, &mem), Action::DrawPile);
    }
    let pile = [card("2S"), card("QD")];
    let mem = memory(cards, &pile, &[], &[]);
    assert_eq!(decide(&mut quick(0), cards, &pile, 20, &mem), Action::DrawStock);
}

#[test]
fn does_not_feed_the_opponents_known_meld() {
    // The opponent took 8H and 9H from the pile: TH completes its run. TC is worth as much
    // to this hand and feeds nothing known.
    let cards = hand("AC 2C 3C QS QD QC TH TC 9S 6D 2S");
    let pile = [card("KD"), card("3D"), card("JS"), card("4S")];
    let mem = memory(cards, &pile, &[card("8H"), card("9H")], &[card("3D"), card("4S")]);
    for seed in 0..6 {
        let a = decide(&mut StrongStrategy::new(seed), cards, &pile, 24, &mem);
        assert_ne!(a, Action::Discard { card: card("TH") }, "seed {seed}");
        assert!(matches!(a, Action::Discard { .. }), "{a}");
    }
}

/// A digest of the games `make` plays against `simple` (seat swapped each game) under
/// `rules_names`: every action in order, FNV-1a over their text.
fn digest_games(mut make: impl FnMut(u64) -> Box<dyn Strategy>) -> (u64, Vec<BySeat<u32>>) {
    let rules = rule_sets();
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut scores = Vec::new();
    for (g, rules) in rules.into_iter().enumerate() {
        let seed = 40 + g as u64;
        let mut bot = make(seed);
        let mut simple = SimpleStrategy::new(seed + 1);
        let players: [&mut dyn Strategy; 2] =
            if g % 2 == 0 { [bot.as_mut(), &mut simple] } else { [&mut simple, bot.as_mut()] };
        let game = play_game(GameSetup::new(rules, seed), players).expect("legal play");
        for (seat, a) in game.actions() {
            for b in format!("{}:{a};", seat.index()).bytes() {
                h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            }
        }
        scores.push(game.result().expect("over").totals);
    }
    (h, scores)
}

#[test]
fn strong_v1_plays_the_games_it_played_when_frozen() {
    use gin_strategies::strong_v1::{StrongV1Strategy, Tuning as V1Tuning};
    let v1 = digest_games(|seed| {
        Box::new(StrongV1Strategy::with_tuning(
            seed,
            V1Tuning { draw_samples: 6, discard_rollouts: 20, candidates: 3, ..V1Tuning::default() },
        ))
    });
    // Pinned when `strong` was frozen as `strong-v1` (issue 18): the same decisions for the
    // same seeds, whatever `strong` has become since.
    let pinned = (
        2_163_471_782_578_858_635u64,
        vec![BySeat::new(156, 457), BySeat::new(266, 395), BySeat::new(118, 48), BySeat::new(106, 38)],
    );
    assert_eq!(v1, pinned);
    assert_eq!(gin_strategies::by_name("strong-v1", 1).expect("registered").name(), "strong-v1");
}

#[test]
fn strong_v2_plays_the_games_it_played_when_frozen() {
    use gin_strategies::strong_v2::{StrongV2Strategy, Tuning as V2Tuning};
    let small = |_| V2Tuning { draw_samples: 6, discard_rollouts: 20, candidates: 3, ..V2Tuning::default() };
    let v2 = digest_games(|seed| Box::new(StrongV2Strategy::with_tuning(seed, small(seed))));
    // Pinned when `strong` was frozen as `strong-v2` (issue 40): the same decisions for the
    // same seeds, whatever `strong` becomes.
    let pinned = (
        14_849_264_091_294_745_596u64,
        vec![BySeat::new(326, 113), BySeat::new(711, 0), BySeat::new(123, 43), BySeat::new(33, 124)],
    );
    assert_eq!(v2, pinned);
    assert_eq!(gin_strategies::by_name("strong-v2", 1).expect("registered").name(), "strong-v2");
}

#[test]
fn never_takes_back_its_own_discard_but_for_gin() {
    // From a game `strong` played against `strong-v1` that never ended: both kept retaking
    // the aces the other threw away, the stock staying at six cards. AD melds with AH and
    // would be taken, but this seat threw it away earlier in the hand.
    let cards = hand("2C 3C 4C 5C 4D AH 2H 3S 4S 5S");
    let pile = [card("KD"), card("9C"), card("AD")];
    let fresh = memory(cards, &pile, &[], &[]);
    let mut threw = fresh.clone();
    threw.own_discards.insert(card("AD"));
    for seed in 0..4 {
        assert_eq!(
            decide(&mut StrongStrategy::new(seed), cards, &pile, 6, &fresh),
            Action::DrawPile,
            "seed {seed}"
        );
        assert_eq!(
            decide(&mut StrongStrategy::new(seed), cards, &pile, 6, &threw),
            Action::DrawStock,
            "seed {seed}"
        );
    }
    // Gin is taken back all the same.
    let cards = hand("AC 2C 3C 4D 5D 6D 7H 8H 9H KS");
    let pile = [card("2S"), card("4C")];
    let mut threw = memory(cards, &pile, &[], &[]);
    threw.own_discards.insert(card("4C"));
    assert_eq!(decide(&mut quick(0), cards, &pile, 20, &threw), Action::DrawPile);
}
