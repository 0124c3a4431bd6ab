//! The opponents of other styles (`gin-hunter`, `early-knocker`, `defensive`): legal whole
//! games under every kind of rules, and each one's style shows in its play.

use engine::{Action, BySeat, CardSet, EndKind, GameSetup, Legal, RuleSet, Seat, card, hand, knock_discards};
use gin_strategies::by_name;
use gin_strategies::local::play_game;
use gin_strategies::memory::{Memory, Seen};
use gin_strategies::strategy::{Decision, Strategy};
use gin_strategies::styles::{STYLES, Style, StyleStrategy};

fn rule_sets() -> Vec<RuleSet> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/rules/competition.toml"))
        .expect("competition rules");
    let mut v: Vec<RuleSet> =
        ["standard", "oklahoma", "classic"].iter().map(|p| RuleSet::preset(p).expect("preset")).collect();
    v.push(RuleSet::parse_any(&text).expect("valid rules"));
    v
}

#[test]
fn every_style_plays_legal_whole_games() {
    for (r, rules) in rule_sets().into_iter().enumerate() {
        for (i, name) in STYLES.iter().enumerate() {
            for other in ["simple", "random", "gin-hunter", "early-knocker", "defensive"] {
                let seed = 100 * r as u64 + 10 * i as u64;
                let mut a = by_name(name, seed).expect("registered");
                let mut b = by_name(other, seed + 1).expect("registered");
                assert_eq!(a.name(), *name);
                let game = play_game(GameSetup::new(rules.clone(), seed), [a.as_mut(), b.as_mut()])
                    .unwrap_or_else(|e| panic!("{name} vs {other} under {}: {e}", rules.name));
                assert!(game.is_over());
            }
        }
    }
}

/// Per style, over games against `simple` under the competition rules: (its knocks, their
/// mean deadwood, its gins).
fn knocks(style: Style) -> (u32, f64, u32) {
    let rules = rule_sets().pop().expect("competition");
    let (mut n, mut dw, mut gins) = (0u32, 0u32, 0u32);
    for g in 0..40u64 {
        let mut a = StyleStrategy::new(style, g);
        let mut b = by_name("simple", g + 1).expect("registered");
        let seat = if g % 2 == 0 { Seat::S0 } else { Seat::S1 };
        let players: [&mut dyn Strategy; 2] =
            if seat == Seat::S0 { [&mut a, b.as_mut()] } else { [b.as_mut(), &mut a] };
        let game = play_game(GameSetup::new(rules.clone(), 500 + g), players).expect("legal");
        for h in game.hands() {
            if let Some(s) = &h.result.showdown
                && s.knocker == seat
            {
                n += 1;
                dw += s.knocker_deadwood;
                gins += u32::from(matches!(h.result.end, EndKind::Gin | EndKind::BigGin));
            }
        }
    }
    (n, f64::from(dw) / f64::from(n.max(1)), gins)
}

#[test]
fn each_style_shows_in_its_knocks() {
    let (hn, hunter, hunter_gins) = knocks(Style::GinHunter);
    let (en, early, early_gins) = knocks(Style::EarlyKnocker);
    let (dn, defensive, _) = knocks(Style::Defensive);
    assert!(hn > 20 && en > 20 && dn > 20, "{hn} {en} {dn} knocks");
    // The early knocker knocks with much more deadwood, the gin hunter gins far more often.
    assert!(early > hunter + 2.0, "mean knock deadwood: early-knocker {early:.2}, gin-hunter {hunter:.2}");
    assert!(defensive > hunter + 2.0, "defensive {defensive:.2}, gin-hunter {hunter:.2}");
    let (hr, er) = (f64::from(hunter_gins) / f64::from(hn), f64::from(early_gins) / f64::from(en));
    assert!(hr > 2.0 * er, "gins per knock: gin-hunter {hr:.2}, early-knocker {er:.2}");
}

/// Seat 0 must discard holding `cards`; the opponent took `taken` from the pile.
fn discard_of(s: &mut dyn Strategy, cards: CardSet, stock_len: u32, taken: &[&str]) -> Action {
    let rules = RuleSet::preset("standard").expect("preset");
    let mut mem = Memory::new(Seat::S0);
    mem.hand_number = 1;
    mem.seen = cards;
    for t in taken {
        mem.opp_known.insert(card(t));
        mem.opp_moves.push(Seen::DrewPile { seat: Seat::S1, card: card(t) });
    }
    let legal = Legal {
        seat: Some(Seat::S0),
        discards: cards,
        knocks: knock_discards(cards, 10),
        ..Legal::default()
    };
    let d = Decision {
        seat: Seat::S0,
        rules: &rules,
        hand: cards,
        pile: &[],
        stock_len,
        taken: None,
        knock_limit: 10,
        legal,
        scores: BySeat::new(0, 0),
        memory: &mem,
    };
    s.act(&d)
}

#[test]
fn early_knocker_knocks_and_gin_hunter_waits() {
    // 9 deadwood after discarding KS: a legal knock.
    let cards = hand("AC 2C 3C 4D 5D 6D 7H 8H 9H 9S KS");
    for seed in 0..4 {
        let a = discard_of(&mut StyleStrategy::new(Style::EarlyKnocker, seed), cards, 25, &[]);
        assert!(matches!(a, Action::Knock { discard, .. } if discard == card("KS")), "{a}");
        let a = discard_of(&mut StyleStrategy::new(Style::GinHunter, seed), cards, 25, &[]);
        assert!(matches!(a, Action::Discard { .. }), "{a}");
        // Late in the hand the gin hunter knocks too.
        let a = discard_of(&mut StyleStrategy::new(Style::GinHunter, seed), cards, 6, &[]);
        assert!(matches!(a, Action::Knock { .. }), "{a}");
    }
}

#[test]
fn defensive_never_feeds_the_opponents_pickups() {
    // 40 deadwood, no knock. The opponent took KH and JS: KS (same rank as KH) and QS (next
    // to JS) would feed it. Shedding either leaves 30; the least deadwood among the safe
    // discards is 8H's 32.
    let cards = hand("AC 2C 3C 4D 5D 6D 7H 8H KS QS 5C");
    for seed in 0..8 {
        let a = discard_of(&mut StyleStrategy::new(Style::Defensive, seed), cards, 25, &["KH", "JS"]);
        assert_eq!(a, Action::Discard { card: card("8H") }, "{a}");
        // `simple` sheds a high card.
        let a = discard_of(by_name("simple", seed).expect("known").as_mut(), cards, 25, &["KH", "JS"]);
        assert!(
            a == Action::Discard { card: card("KS") } || a == Action::Discard { card: card("QS") },
            "{a}"
        );
    }
    // Every deadwood card feeds a pickup: it breaks a meld rather than feed one.
    // (KS, QS, JD, TH next to the KH, QH, JH it took; 7D's or 4D's loss leaves a run.)
    let cards = hand("AC 2C 3C 4D 5D 6D 7D KS QS JD TH");
    for seed in 0..8 {
        let a = discard_of(&mut StyleStrategy::new(Style::Defensive, seed), cards, 25, &["KH", "QH", "JH"]);
        assert!(
            a == Action::Discard { card: card("7D") } || a == Action::Discard { card: card("4D") },
            "{a}"
        );
    }
    // Its knock's discard goes face down: it knocks with the least deadwood as ever.
    let cards = hand("AC 2C 3C 4D 5D 6D 7H 8H 9H 2S KS");
    let a = discard_of(&mut StyleStrategy::new(Style::Defensive, 1), cards, 25, &["KH"]);
    assert_eq!(a, Action::Knock { discard: card("KS"), melds: None }, "{a}");
}
