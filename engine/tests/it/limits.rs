//! Every hand and every game ends (RULES.md, "Every hand and every game ends"), and the turns
//! of the pile at one table follow the table size ("Turns of the pile at one table").

use engine::gin7::{Gin7Rules, default_pile_turns};
use engine::rummy::RummyRules;
use engine::{Format, GameEnd, HandEnd, Move, RuleSet, Table, TableEvent, TableRecord, TableSetup};

/// Every format at every table size, on its defaults.
fn every_format() -> Vec<Format> {
    let mut f = vec![
        Format::preset("standard").unwrap(),
        Format::preset("multistage").unwrap(),
        Format::preset("three-player").unwrap(),
        Format::preset("teams").unwrap(),
    ];
    for n in 3..=6 {
        f.push(Format::preset("gin-7").unwrap().with_players(n).unwrap());
    }
    for n in 2..=6 {
        f.push(Format::preset("rummy").unwrap().with_players(n).unwrap());
    }
    f
}

/// The format's two limits: (turns per hand, hands per game).
fn limits(f: &Format) -> (u32, u32) {
    match f {
        Format::Gin(r) | Format::ThreePlayer(r) | Format::Teams(r) => {
            (r.max_turns_per_hand, r.max_hands_per_game)
        }
        Format::Gin7(r) => (r.max_turns_per_hand, r.max_hands_per_game),
        Format::Rummy(r) => (r.max_turns_per_hand, r.max_hands_per_game),
    }
}

/// The program that never ends a hand: it always takes the top discard (the upcard too),
/// draws from the stock only when it must, and discards the first card it may, never
/// knocking, melding or going out.
fn take_the_discard(t: &Table, seat: u8) -> Move {
    let legal = t.legal(seat);
    for want in [Move::DrawPile, Move::DrawStock] {
        if legal.contains(&want) {
            return want;
        }
    }
    legal
        .iter()
        .find(|m| matches!(m, Move::Discard { .. }))
        .cloned()
        .unwrap_or_else(|| panic!("seat {seat} has no discard among {legal:?}"))
}

/// Two (or more) programs that always take each other's discards end every game, at every
/// format and size: each hand at its turn limit, the game at its hand limit, within the
/// moves those limits allow; both end states reported as such (each hand's end, the last
/// move's event, the result), and the record replays to the same result. On the engine
/// before the limits, no hand of theirs ever ended.
#[test]
fn players_who_always_take_the_discard_end_every_game_at_every_format() {
    for format in every_format() {
        let name = format.name();
        let (turns, hands) = limits(&format);
        // A hand at its limit is `turns` draws and as many discards (a team round: two
        // hands); a little over for the game's last step.
        let bound = hands as u64 * (2 * turns as u64 + 2);
        let mut t = Table::new(TableSetup::new(format.clone(), 7)).unwrap();
        let mut moves = 0u64;
        let mut limit_events = 0;
        while !t.is_over() {
            assert!(moves <= bound, "{name}: still going after {moves} moves (bound {bound})");
            let seat = t.to_act()[0];
            let m = take_the_discard(&t, seat);
            let step = t.apply(seat, &m).unwrap_or_else(|e| panic!("{name}: {m} refused: {e}"));
            if let TableEvent::TurnLimit { seat: s, .. } = step.event {
                assert_eq!(s, seat, "{name}");
                assert!(step.hand_over, "{name}");
                limit_events += 1;
            }
            moves += 1;
        }
        let reports = t.hands();
        assert_eq!(reports.len() as u32, hands, "{name}: the game ends at its hand limit");
        assert_eq!(limit_events, reports.len(), "{name}: every hand ended by the turn-limit event");
        for h in &reports {
            assert_eq!(h.end, HandEnd::TurnLimit, "{name}: hand {}", h.number);
            assert_eq!(h.turns, turns, "{name}: hand {}", h.number);
            assert_eq!((h.winner, h.points), (None, 0), "{name}");
        }
        let result = t.result().unwrap();
        assert_eq!(result.end, GameEnd::HandLimit, "{name}");
        // Nobody scored: a drawn game, every seat sharing the first place.
        assert_eq!(result.winners.len(), t.players() as usize, "{name}");
        let json = serde_json::to_value(&result).unwrap();
        assert_eq!(json["end"], "hand_limit", "{name}");
        let record = t.record();
        let back: TableRecord = serde_json::from_str(&serde_json::to_string(&record).unwrap()).unwrap();
        let replayed = back.replay().unwrap();
        assert_eq!(replayed.result(), t.result(), "{name}");
        assert_eq!(replayed.hands(), reports, "{name}");
    }
}

/// A two-player game at a small limit: the hand limit closes the stage where it stands,
/// with no game bonus (nobody reached the target) and the box bonuses as usual.
#[test]
fn the_hand_limit_ends_a_two_player_game_with_its_box_bonuses() {
    let rules = RuleSet { max_hands_per_game: 3, target: 10_000, ..RuleSet::standard() };
    let mut g = engine::Game::new(engine::GameSetup::new(rules.clone(), 11)).unwrap();
    while !g.is_over() {
        let seat = g.to_act().unwrap();
        let l = g.hand().legal();
        let a = match l.knocks.first() {
            Some(c) => engine::Action::knock(c),
            None => l.to_vec().into_iter().find(|a| !matches!(a, engine::Action::DrawPile)).unwrap(),
        };
        g.apply(seat, &a).unwrap();
    }
    assert_eq!(g.hands().len(), 3);
    let r = g.result().unwrap();
    assert_eq!(r.end, GameEnd::HandLimit);
    let st = &r.stages[0];
    assert_eq!(st.reached_target, None);
    assert_eq!(st.game_bonus.0, [0, 0]);
    assert_eq!(st.shutout_bonus.0, [0, 0]);
    for s in engine::Seat::BOTH {
        assert_eq!(st.box_bonus[s], st.hands_won[s] * rules.box_bonus);
        assert_eq!(st.total[s], st.hand_points[s] + st.box_bonus[s]);
        assert_eq!(r.totals[s], st.total[s]);
    }
}

/// The limits are fields of every format's rules: documents set them, refuse 0 with the
/// field named, and documents (and stored rule sets) written before they existed load with
/// the defaults, by table size where the format's numbers depend on it.
#[test]
fn the_limits_are_rule_fields_with_defaults_for_old_documents() {
    let f =
        Format::parse_any("kind = \"gin-7\"\nplayers = 6\nmax_turns_per_hand = 50\nmax_hands_per_game = 9")
            .unwrap();
    assert_eq!(limits(&f), (50, 9));
    let f = Format::parse_any("{\"base\": \"classic\", \"max_turns_per_hand\": 40}").unwrap();
    assert_eq!(limits(&f), (40, engine::DEFAULT_MAX_HANDS_PER_GAME));
    for (doc, field) in [
        ("kind = \"rummy\"\nend = { hands = 100000 }", "max_hands_per_game"),
        ("kind = \"gin-7\"\nend = { hands = 100000 }", "max_hands_per_game"),
    ] {
        let e = Format::parse_any(doc).unwrap_err();
        assert!(e.to_string().contains(field), "{doc}: {e}");
    }
    let f = Format::parse_any("kind = \"rummy\"\nend = { hands = 2000 }\nmax_hands_per_game = 2000").unwrap();
    assert_eq!(limits(&f).1, 2000);
    for doc in [
        "max_turns_per_hand = 0",
        "kind = \"gin-7\"\nmax_turns_per_hand = 0",
        "kind = \"rummy\"\nmax_turns_per_hand = 0",
    ] {
        let e = Format::parse_any(doc).unwrap_err();
        assert!(e.to_string().contains("max_turns_per_hand"), "{doc}: {e}");
    }
    // A two-player rule set as stored before (serde, no `base`): the defaults.
    let mut old = serde_json::to_value(RuleSet::standard()).unwrap();
    let m = old.as_object_mut().unwrap();
    m.remove("max_turns_per_hand");
    m.remove("max_hands_per_game");
    let r: RuleSet = serde_json::from_value(old).unwrap();
    assert_eq!(r, RuleSet::standard());
    // Formats at every size: a document that leaves them out gets its size's defaults;
    // the document written out holds every number.
    for f in every_format() {
        let mut v = f.to_value();
        assert!(v.get("max_turns_per_hand").is_some() && v.get("max_hands_per_game").is_some());
        let m = v.as_object_mut().unwrap();
        m.remove("max_turns_per_hand");
        m.remove("max_hands_per_game");
        assert_eq!(Format::from_value(v).unwrap(), f, "{}", f.name());
    }
    assert_eq!(
        limits(&Format::Rummy(RummyRules::for_players(6).unwrap())),
        limits(&Format::preset("rummy").unwrap().with_players(6).unwrap())
    );
}

/// Gin at one table: the pile is turned at most T(n) times by default, T(3) = 0, T(4) = 1,
/// T(5) = 4, T(6) = 12 (RULES.md), however the format is reached; a count the document sets
/// is kept, and a document stored with the old default (12 at every size) keeps its 12.
#[test]
fn the_turns_of_the_pile_default_by_table_size() {
    for (n, want) in [(3u8, 0u32), (4, 1), (5, 4), (6, 12)] {
        assert_eq!(default_pile_turns(n), want);
        assert_eq!(Gin7Rules::for_players(n).unwrap().reshuffles, want, "for_players({n})");
        let Format::Gin7(r) = Format::preset("gin-7").unwrap().with_players(n).unwrap() else { panic!() };
        assert_eq!(r.reshuffles, want, "preset at {n}");
        let Format::Gin7(r) = Format::parse_any(&format!("kind = \"gin-7\"\nplayers = {n}")).unwrap() else {
            panic!()
        };
        assert_eq!(r.reshuffles, want, "document at {n}");
        // Set by the document: kept.
        let doc = format!("kind = \"gin-7\"\nplayers = {n}\nreshuffles = 7");
        let Format::Gin7(r) = Format::parse_any(&doc).unwrap() else { panic!() };
        assert_eq!(r.reshuffles, 7);
        let Format::Gin7(r) = Format::preset("gin-7").unwrap() else { panic!() };
        let Format::Gin7(r) =
            Format::Gin7(Gin7Rules { reshuffles: 12, players: 3, ..r }).with_players(n).unwrap()
        else {
            panic!()
        };
        assert_eq!(r.reshuffles, 12, "a set 12 stays 12 at {n}");
    }
    // A gin-7 game stored before (its document names `reshuffles: 12` and no limits) loads
    // with its 12 turns.
    let Format::Gin7(r) = Format::preset("gin-7").unwrap().with_players(5).unwrap() else { panic!() };
    let mut v = Format::Gin7(Gin7Rules { reshuffles: 12, ..r }).to_value();
    let m = v.as_object_mut().unwrap();
    m.remove("max_turns_per_hand");
    m.remove("max_hands_per_game");
    let Format::Gin7(back) = Format::from_value(v).unwrap() else { panic!() };
    assert_eq!(back.reshuffles, 12);
}
