//! One interface over every game kind ([`Table`]): formats as data with clear errors, and
//! properties over random games of every format: every listed move is accepted and others
//! refused with the table unchanged, a replay gives the same hands and result, and no view
//! ever holds another seat's hidden cards.

use engine::{
    Card, CardSet, Format, Kind, Move, Seat, Table, TableEvent, TableRecord, TableReplayError, TableSetup,
};
use proptest::prelude::*;

#[test]
fn formats_load_from_presets_toml_and_json_with_clear_errors() {
    assert_eq!(Format::preset("three-player").unwrap().players(), 3);
    assert_eq!(Format::preset("teams").unwrap().kind(), Kind::Teams);
    assert_eq!(Format::preset("rummy").unwrap().players(), 4);
    assert_eq!(Format::preset("gin-7").unwrap().kind(), Kind::Gin7);
    assert_eq!(Format::parse_any("oklahoma").unwrap().kind(), Kind::Gin);
    // A document without `kind` is a two-player rule set, as before.
    let f = Format::parse_any("gin_bonus = 30").unwrap();
    assert_eq!(f.gin_rules().unwrap().gin_bonus, 30);
    let f = Format::parse_any(r#"{"kind": "teams", "base": "classic", "target": 250}"#).unwrap();
    assert_eq!(
        (f.kind(), f.gin_rules().unwrap().target, f.gin_rules().unwrap().gin_bonus),
        (Kind::Teams, 250, 20)
    );
    let f = Format::parse_any("kind = \"rummy\"\nplayers = 6\nend = { hands = 5 }").unwrap();
    assert_eq!(f.players(), 6);
    // Round trips.
    for name in Format::preset_names() {
        let f = Format::preset(name).unwrap();
        assert_eq!(Format::parse_any(&f.to_toml()).unwrap(), f, "{name}");
        let json = serde_json::to_string(&f).unwrap();
        assert_eq!(serde_json::from_str::<Format>(&json).unwrap(), f, "{name}");
    }
    let cases = [
        ("kind = \"teams\"\nplayers = 5", "two teams of two"),
        ("kind = \"three-player\"\nplayers = 4", "for 3 players"),
        ("kind = \"gin\"\nplayers = 3", "for 2 players"),
        ("kind = \"rummy\"\nplayers = 7", "2 to 6"),
        ("kind = \"rummy\"\nplayers = 6\nhand_size = 9", "need 56 cards"),
        ("kind = \"three-player\"\nbase = \"multistage\"", "stages"),
        ("kind = \"poker\"", "unknown kind"),
        ("kind = \"gin-7\"\nplayers = 2", "3 to 6"),
        ("kind = \"gin-7\"\nplayers = 6\nhand_size = 9", "need 58 cards"),
        ("kind = \"rummy\"\ngin_bonus = 3", "unknown field"),
    ];
    for (doc, want) in cases {
        let e = Format::parse_any(doc).unwrap_err().to_string();
        assert!(e.contains(want), "{doc:?}: {e}");
    }
}

/// Every seat's true hand (empty for a seat that sits out), read from inside the table.
fn true_hands(t: &Table) -> Vec<CardSet> {
    match t {
        Table::Gin(g) => Seat::BOTH.iter().map(|&s| g.hand().cards(s)).collect(),
        Table::ThreePlayer(g) => {
            (0..3).map(|p| g.seat_of(p).map_or(CardSet::EMPTY, |s| g.hand().cards(s))).collect()
        }
        Table::Teams(g) => (0..4)
            .map(|p| {
                let (ti, s) = g.place_of(p).unwrap();
                g.tables()[ti as usize].cards(s)
            })
            .collect(),
        Table::Gin7(g) => (0..g.rules().players).map(|s| g.hand().cards(s)).collect(),
        Table::Rummy(g) => (0..g.hand().rules().players).map(|s| g.hand().hand(s)).collect(),
    }
}

/// Cards of each seat that everyone knows (taken from the pile).
fn known(t: &Table) -> Vec<CardSet> {
    let v = t.spectator_view();
    let mut out = vec![CardSet::EMPTY; t.players() as usize];
    for part in v.tables() {
        for (i, &s) in part.seats.iter().enumerate() {
            out[s as usize] |= part.known[i];
        }
    }
    out
}

/// No view shows a card hidden in another seat's hand. Team play deals two decks, one per
/// table: a table's cards are compared with that table's hands only.
fn check_views(t: &Table) {
    let hands = true_hands(t);
    let known = known(t);
    let hidden: Vec<CardSet> = hands.iter().zip(&known).map(|(&h, &k)| h - k).collect();
    let viewers = (0..t.players()).map(Some).chain([None]);
    for viewer in viewers {
        let v = match viewer {
            Some(s) => t.view(s),
            None => t.spectator_view(),
        };
        assert_eq!(
            v.cards(),
            viewer.map(|s| hands[s as usize]),
            "a seat sees its own hand, a spectator none"
        );
        for part in v.tables() {
            let mut visible = part.pile.iter().copied().collect::<CardSet>();
            for k in &part.known {
                visible |= *k;
            }
            for m in &part.melds {
                visible |= m.cards;
            }
            if let Some(s) = viewer.filter(|s| part.seats.contains(s)) {
                visible |= hands[s as usize];
            }
            for &other in part.seats.iter().filter(|&&o| Some(o) != viewer) {
                let leak = visible & hidden[other as usize];
                assert!(leak.is_empty(), "{viewer:?} sees {leak} of seat {other}'s hidden cards");
            }
        }
    }
}

/// 52 cards in every hand in play: the hands, the pile, the stock (and rummy's table).
fn check_cards(t: &Table) {
    let gin = |h: &engine::Hand| {
        if !h.is_over() {
            let n = h.cards(Seat::S0).len() + h.cards(Seat::S1).len();
            assert_eq!(n as usize + h.pile().len() + h.stock_len(), 52);
            assert!((h.cards(Seat::S0) & h.cards(Seat::S1)).is_empty());
        }
    };
    match t {
        Table::Gin(g) => gin(g.hand()),
        Table::ThreePlayer(g) => gin(g.hand()),
        Table::Teams(g) => g.tables().iter().for_each(gin),
        Table::Gin7(g) => {
            let h = g.hand();
            let all = (0..g.rules().players).fold(CardSet::EMPTY, |a, s| a | h.cards(s));
            let n: u32 = (0..g.rules().players).map(|s| h.cards(s).len()).sum();
            assert_eq!(all.len(), n, "a card in two hands");
            assert_eq!(n as usize + h.pile().len() + h.stock_len(), 52);
        }
        Table::Rummy(g) => {
            let h = g.hand();
            let mut all = CardSet::EMPTY;
            let mut n = 0;
            for s in 0..h.rules().players {
                all |= h.hand(s);
                n += h.hand(s).len();
            }
            for m in h.table() {
                all |= m.cards;
                n += m.cards.len();
            }
            assert_eq!(all.len(), n, "a card in two places");
            assert_eq!(n as usize + h.pile_len() + h.stock_len(), 52);
        }
    }
}

/// Some moves that are not listed for `seat` (to check they are refused).
fn unlisted(t: &Table, seat: u8, legal: &[Move]) -> Vec<Move> {
    let mut out = Vec::new();
    let mut push = |m: Move| {
        if !legal.contains(&m) {
            out.push(m);
        }
    };
    push(Move::Pass);
    push(Move::DrawStock);
    push(Move::DrawPile);
    for c in Card::all().step_by(5) {
        push(Move::Discard { card: c });
        push(Move::Knock { discard: c, melds: None });
        push(Move::LayOff { card: c, meld: 0 });
    }
    push(Move::Meld { cards: true_hands(t)[seat as usize] });
    out
}

/// Every format, with short games (a low target, a few hands) so that many fit in a test.
fn formats() -> Vec<Format> {
    let short = |f: Format| match f {
        Format::Gin(r) => Format::Gin(engine::RuleSet { target: 40, ..r }),
        Format::ThreePlayer(r) => Format::ThreePlayer(engine::RuleSet { target: 40, ..r }),
        Format::Teams(r) => Format::Teams(engine::RuleSet { target: 40, ..r }),
        Format::Gin7(r) => {
            Format::Gin7(engine::gin7::Gin7Rules { end: engine::gin7::Gin7End::Hands(4), ..r })
        }
        Format::Rummy(r) => {
            Format::Rummy(engine::rummy::RummyRules { end: engine::rummy::RummyEnd::Hands(3), ..r })
        }
    };
    let mut f = vec![
        short(Format::preset("standard").unwrap()),
        short(Format::preset("three-player").unwrap()),
        short(Format::preset("teams").unwrap()),
    ];
    for n in 2..=6 {
        f.push(short(Format::preset("rummy").unwrap().with_players(n).unwrap()));
    }
    for n in 3..=6 {
        f.push(short(Format::preset("gin-7").unwrap().with_players(n).unwrap()));
    }
    f
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn every_format_random_games(seed in any::<u64>(), which in 0usize..12) {
        let format = formats()[which].clone();
        let setup = TableSetup::new(format.clone(), seed);
        let mut t = Table::new(setup.clone()).unwrap();
        let mut rng = seed | 1;
        let mut steps = 0u32;
        while !t.is_over() {
            let who = t.to_act();
            prop_assert!(!who.is_empty());
            for s in 0..t.players() {
                prop_assert_eq!(t.legal(s).is_empty(), !who.contains(&s), "seat {} legal list vs to_act", s);
            }
            rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let seat = who[(rng >> 35) as usize % who.len()];
            let legal = t.legal(seat);
            if steps.is_multiple_of(64) {
                check_views(&t);
                check_cards(&t);
                let before = (t.moves().len(), t.spectator_view(), t.view(seat));
                for m in unlisted(&t, seat, &legal) {
                    prop_assert!(t.clone().apply(seat, &m).is_err(), "{} accepted but not listed", m);
                    let mut c = t.clone();
                    let _ = c.apply(seat, &m);
                    prop_assert_eq!(&(c.moves().len(), c.spectator_view(), c.view(seat)), &before);
                }
                for m in &legal {
                    prop_assert!(t.clone().apply(seat, m).is_ok(), "{} listed but refused", m);
                }
                // A seat that may not act is refused.
                if let Some(idle) = (0..t.players()).find(|s| !who.contains(s)) {
                    prop_assert!(t.clone().apply(idle, &legal[0]).is_err());
                }
            }
            let m = legal[(rng >> 20) as usize % legal.len()].clone();
            let step = t.apply(seat, &m).unwrap();
            prop_assert_eq!(step.event.seat(), seat);
            // A stock draw's card is the drawer's alone.
            if let TableEvent::Drew { from_stock: true, card, .. } = step.event {
                prop_assert!(card.is_some());
                prop_assert_eq!(step.event.seen_by(Some(seat)), step.event);
                for other in (0..t.players()).filter(|&o| o != seat).map(Some).chain([None]) {
                    prop_assert_eq!(
                        step.event.seen_by(other),
                        TableEvent::Drew { seat, from_stock: true, card: None }
                    );
                }
                if !step.hand_over {
                    prop_assert!(true_hands(&t)[seat as usize].contains(card.unwrap()));
                }
            } else {
                prop_assert_eq!(step.event.seen_by(None), step.event, "only stock draws are hidden");
            }
            steps += 1;
            prop_assert!(steps < 2_000_000);
        }
        prop_assert!(t.apply(0, &Move::DrawStock).is_err());
        let result = t.result().unwrap();
        prop_assert_eq!(result.totals.len(), t.players() as usize);
        let best = *result.totals.iter().max().unwrap();
        for &w in &result.winners {
            prop_assert_eq!(result.totals[w as usize], best);
        }
        let hands = t.hands();
        prop_assert!(!hands.is_empty());
        // Running totals end at the hand points (before game bonuses).
        for h in &hands {
            prop_assert!(h.seats.len() >= 2);
            if h.winner.is_some() {
                prop_assert!(h.seats.contains(&h.winner.unwrap()));
            }
        }
        // A replay of the moves gives the same hands and result.
        let mut r = Table::new(setup).unwrap();
        for (s, m) in t.moves() {
            r.apply(s, &m).unwrap();
        }
        prop_assert_eq!(r.hands(), hands.clone());
        prop_assert_eq!(r.result(), Some(result.clone()));
        // So does its record, as JSON and as text (the recorded result is checked).
        let rec = t.record();
        prop_assert_eq!(&rec.setup, &t.setup());
        for text in [rec.to_json(), rec.to_text()] {
            let back = TableRecord::parse(&text).unwrap();
            prop_assert_eq!(&back, &rec);
            let again = back.replay().unwrap();
            prop_assert_eq!(again.hands(), hands.clone());
        }
        // A record whose result was changed does not replay.
        let mut bad = rec.clone();
        bad.result.as_mut().unwrap().totals[0] += 1;
        prop_assert_eq!(bad.replay().err(), Some(TableReplayError::ResultMismatch));
    }
}

/// Records with explicit decks; a bad move is named with its index; a two-player gin record
/// (version 1) reads as a table record.
#[test]
fn records_with_explicit_decks_bad_moves_and_gin_records() {
    let deck = engine::Deck::shuffled(99, 0);
    let setup = TableSetup {
        format: Format::preset("rummy").unwrap().with_players(3).unwrap(),
        seed: 5,
        decks: vec![deck],
        first_dealer: Some(2),
    };
    let mut t = Table::new(setup.clone()).unwrap();
    // Seat 0 (the dealer's left) plays first; its hand is the deck's first card, then every third.
    assert_eq!(t.to_act(), vec![0]);
    let first: CardSet = deck.cards().iter().step_by(3).take(7).copied().collect();
    assert_eq!(t.view(0).cards(), Some(first));
    for _ in 0..5 {
        let s = t.to_act()[0];
        let m = t.legal(s).last().unwrap().clone();
        t.apply(s, &m).unwrap();
    }
    let rec = t.record();
    assert_eq!(rec.setup, setup);
    assert!(rec.to_text().contains(&format!("deck {deck}")));
    let mut bad = rec.clone();
    bad.moves[3].seat = (bad.moves[3].seat + 1) % 3;
    match bad.replay() {
        Err(TableReplayError::BadMove { index: 3, .. }) => {}
        other => panic!("{other:?}"),
    }
    // Version 1: the two-player record of a game.
    let mut g = engine::Game::new(engine::GameSetup::new(engine::RuleSet::standard(), 3)).unwrap();
    while let Some(s) = g.to_act() {
        let a = g.hand().legal_actions()[0].clone();
        g.apply(s, &a).unwrap();
        if g.hands().len() == 2 {
            break;
        }
    }
    for text in [g.record().to_text(), g.record().to_json()] {
        let r = TableRecord::parse(&text).unwrap();
        assert_eq!(r.setup.format.kind(), Kind::Gin);
        assert_eq!(r.moves.len(), g.actions().len());
        assert_eq!(r.replay().unwrap().hands().len(), 2);
    }
}
