//! `gin verify`: checks that a finished game's deals, and every card drawn after a turn of
//! the pile, were fixed before play, at every format.
//!
//! At each deal the server publishes a commitment, SHA-256 of the deck order and a secret
//! salt; at the hand's end it reveals both. With every deal it also publishes a commitment to
//! the game's seed (the same each time, first with the first deal), which keys every deck
//! and every shuffle of a pile turned into the stock (gin for 3 to 6 at one table, rummy);
//! the record reveals the seed and that commitment's salt once the game is over.
//!
//! A [`Verifiable`] record holds the game's record (of any format; it replays with the
//! engine), each hand's revealed deck, salt and commitment with the commitment seen when the
//! hand was dealt, and the seed's reveal with the seed commitments seen. [`check`] says
//! whether the seed matches its commitment as published, whether the record replays (and so
//! how each turn of the pile was shuffled: by the committed seed), and, hand by hand, whether
//! the reveal matches its commitment ([`engine::verify_deal`]), whether the revealed deck is
//! the deck the record plays, and whether the commitment is the one published at the deal.
//!
//! A record whose seed is not revealed yet (a tournament's game, until the tournament is
//! over) is checked as far as it can be: each hand's deck against its commitment as
//! published. Whether those decks and the draws after a turn of the pile come from the
//! committed seed waits for the seed; the [`Report`] says so (it is `pending`, not `ok`).

use engine::{Card, Deck, Table, TableEvent, TableRecord};
use serde::{Deserialize, Deserializer, Serialize};

/// A finished game with everything needed to check its deals (the file `gin verify` reads
/// and `gin verify ID --save FILE` writes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verifiable {
    /// The game.
    pub game_id: String,
    /// The engine's record (setup and every move), of any format; a two-player gin record
    /// (`"version": 1`, as files saved by earlier versions hold) reads too.
    #[serde(deserialize_with = "any_record")]
    pub record: TableRecord,
    /// One entry per dealt hand, in order.
    pub hands: Vec<HandReveal>,
    /// The commitment to the seed and its reveal; absent when the server gave none (files
    /// saved by earlier versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<SeedReveal>,
    /// The cards one seat drew as its own event stream showed them (`gin verify ID --token`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<SeatDraws>,
}

/// What one seat's stream showed it drawing, in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatDraws {
    /// The seat.
    pub seat: u8,
    /// Every card it drew (stock and pile), in card notation, in order.
    pub drawn: Vec<String>,
}

fn any_record<'de, D: Deserializer<'de>>(d: D) -> Result<TableRecord, D::Error> {
    let v = serde_json::Value::deserialize(d)?;
    TableRecord::parse(&v.to_string()).map_err(serde::de::Error::custom)
}

/// One hand's reveal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandReveal {
    /// The deck order, top first, in card notation separated by spaces.
    pub deck: String,
    /// The salt, hex.
    pub salt: String,
    /// The commitment revealed with it, hex.
    pub commitment: String,
    /// The commitment published when the hand was dealt (from the event stream), hex;
    /// absent when it was not collected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<String>,
}

/// The commitment to the game's seed and its reveal (the seed itself is the record's).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeedReveal {
    /// The salt, hex; empty while the seed is kept secret.
    pub salt: String,
    /// The commitment revealed with it, hex.
    pub commitment: String,
    /// The seed commitment published with each deal, in the order of the deals (from the
    /// event stream; the first is the first deal's), hex; empty when not collected.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub published: Vec<String>,
}

/// Lower-case hex.
pub fn to_hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Bytes from hex.
pub fn from_hex(s: &str) -> Result<Vec<u8>, String> {
    let s = s.trim();
    if !s.len().is_multiple_of(2) {
        return Err(format!("{s:?} is not hex (odd length)"));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).map_err(|_| format!("{s:?} is not hex")))
        .collect()
}

/// The result of [`check`]: lines for people and the verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// For people, one a line.
    pub lines: Vec<String>,
    /// Every check was made and passed.
    pub ok: bool,
    /// No check failed, but some wait for the seed, not revealed yet (`ok` is false).
    pub pending: bool,
}

/// A replayed record: the table, how many times a pile was turned into the stock, and every
/// draw: (seat, card, whether a pile had been turned earlier in that hand at its table).
struct Replayed {
    table: Table,
    turns: u32,
    draws: Vec<(u8, Card, bool)>,
}

/// Replays `r` move by move, counting the turns of the pile (gin at one table: a discard
/// that turns it; rummy: a draw from an empty stock), and checks the recorded result.
fn replay(r: &TableRecord) -> Result<Replayed, String> {
    // The engine's own replay first, for its errors (the move at fault, a result mismatch).
    r.replay().map_err(|e| e.to_string())?;
    let mut table = Table::new(r.setup.clone()).map_err(|e| e.to_string())?;
    let mut turns = 0;
    let mut draws = Vec::new();
    // The hands (and their tables) in which a pile was turned.
    let mut turned = std::collections::HashSet::new();
    for m in &r.moves {
        let view = table.spectator_view();
        let at = view.tables().iter().position(|p| p.seats.contains(&m.seat));
        let here = (view.hand_number(), at);
        let stock_before = at.map(|t| view.tables()[t].stock_len);
        let step = table.apply(m.seat, &m.action).map_err(|e| e.to_string())?;
        match step.event {
            TableEvent::PileTurned { .. } => {
                turns += 1;
                turned.insert(here);
            }
            TableEvent::Drew { seat, from_stock, card } => {
                if from_stock && matches!(table, Table::Rummy(_)) && stock_before == Some(0) {
                    turns += 1;
                    turned.insert(here);
                }
                if let Some(c) = card {
                    draws.push((seat, c, turned.contains(&here)));
                }
            }
            _ => {}
        }
    }
    Ok(Replayed { table, turns, draws })
}

/// How many hands a replayed table dealt: every finished hand, and those in play when the
/// game ended (a resignation, a clock) or when the record stops.
fn hands_dealt(t: &Table) -> usize {
    let done = t.hands().len();
    if t.is_over() {
        return done;
    }
    let in_play = match t {
        Table::Gin(g) => g.hand_number() as usize + 1,
        Table::Teams(_) => 2 * t.spectator_view().hand_number() as usize + 2,
        _ => t.spectator_view().hand_number() as usize + 1,
    };
    done.max(in_play)
}

/// What the seed's check found: its problems, and what was checked.
fn check_seed(v: &Verifiable, turns: Option<u32>) -> (Vec<String>, String) {
    let Some(sr) = &v.seed else {
        let mut problems = Vec::new();
        if let Some(n) = turns.filter(|&n| n > 0) {
            problems.push(format!(
                "the record turns the pile {n} time(s) but no commitment to the seed was given: the \
                 cards drawn after a turn are fixed by no commitment"
            ));
        }
        let checked = match turns {
            Some(_) => "no commitment given, and no pile was turned: each deal's commitment fixes every card",
            None => "no commitment given",
        };
        return (problems, checked.into());
    };
    let mut problems = Vec::new();
    let commitment = from_hex(&sr.commitment);
    let mut seen = String::new();
    match &commitment {
        Err(e) => problems.push(format!("seed commitment: {e}")),
        Ok(c) => {
            for (i, p) in sr.published.iter().enumerate() {
                match from_hex(p) {
                    Ok(p) if p == *c => {}
                    Ok(_) => problems.push(format!(
                        "the seed commitment differs from the one published with deal {}",
                        i + 1
                    )),
                    Err(e) => problems.push(format!("published seed commitment: {e}")),
                }
            }
            if !sr.published.is_empty() {
                seen = ", as published with the first deal and every other".into();
            }
        }
    }
    if sr.salt.trim().is_empty() {
        return (problems, String::new());
    }
    match (from_hex(&sr.salt), &commitment) {
        (Ok(salt), Ok(c)) => {
            if !engine::verify_seed(v.record.setup.seed, &salt, c) {
                problems.push("the record's seed and the salt do not match the seed commitment".into());
            }
        }
        (Err(e), _) => problems.push(format!("seed salt: {e}")),
        (Ok(_), Err(_)) => {}
    }
    let fixed = match turns {
        Some(0) => ": no pile was turned".to_string(),
        Some(n) => format!(": it fixed the {n} turn(s) of the pile, and every card drawn after them"),
        None => String::new(),
    };
    (problems, format!("ok (seed, salt and commitment agree{seen}{fixed})"))
}

/// Checks `v` (see the module docs).
pub fn check(v: &Verifiable) -> Report {
    let mut lines = Vec::new();
    let mut ok = true;
    let revealed = v.seed.as_ref().is_none_or(|s| !s.salt.trim().is_empty());
    // A record whose seed is secret names none: it does not replay, and its decks are
    // checked against their commitments only.
    let game = if revealed {
        match replay(&v.record) {
            Ok(g) => Some(g),
            Err(e) => {
                lines.push(format!("record: does not replay: {e}"));
                ok = false;
                None
            }
        }
    } else {
        None
    };
    let (problems, seed_ok) = check_seed(v, game.as_ref().map(|g| g.turns));
    if !problems.is_empty() {
        ok = false;
        lines.push(format!("seed: FAILED: {}", problems.join("; ")));
    } else if revealed {
        lines.push(format!("seed: {seed_ok}"));
    } else {
        lines.push(
            "seed: not revealed yet (a tournament's seed is, once the tournament is over): each deal \
             is checked against its commitment below; that the decks and the cards drawn after a \
             turn of the pile come from the committed seed can be checked once it is"
                .into(),
        );
    }
    if let Some(sd) = &v.seat {
        match &game {
            Some(g) => {
                let mine: Vec<&(u8, Card, bool)> = g.draws.iter().filter(|d| d.0 == sd.seat).collect();
                let after = mine.iter().filter(|d| d.2).count();
                let differs =
                    sd.drawn.iter().zip(&mine).position(|(s, d)| s.parse::<Card>().ok() != Some(d.1));
                match differs {
                    Some(k) => {
                        ok = false;
                        lines.push(format!(
                            "seat {}: FAILED: its draw #{} was {} in its stream, {} in the record",
                            sd.seat,
                            k + 1,
                            sd.drawn[k],
                            mine[k].1
                        ));
                    }
                    None if sd.drawn.len() != mine.len() => {
                        ok = false;
                        lines.push(format!(
                            "seat {}: FAILED: its stream shows {} draws, the record {}",
                            sd.seat,
                            sd.drawn.len(),
                            mine.len()
                        ));
                    }
                    None => lines.push(format!(
                        "seat {}: ok (the {} cards it drew, {after} of them after a turn of the pile, are the record's)",
                        sd.seat,
                        mine.len()
                    )),
                }
            }
            None if !revealed => lines.push(format!(
                "seat {}: its {} draws can be checked against the record once the seed is revealed",
                sd.seat,
                sd.drawn.len()
            )),
            None => {}
        }
    }
    let dealt = game.as_ref().map(|g| hands_dealt(&g.table));
    if v.hands.is_empty() {
        lines.push("no hand reveals to check".into());
        ok = false;
    }
    if let Some(n) = dealt
        && n != v.hands.len()
    {
        lines.push(format!("the record dealt {n} hands but {} are revealed", v.hands.len()));
        ok = false;
    }
    for (i, h) in v.hands.iter().enumerate() {
        let mut problems = Vec::new();
        let deck: Result<Vec<Card>, String> =
            h.deck.split_whitespace().map(|c| c.parse::<Card>().map_err(|e| format!("{c:?}: {e}"))).collect();
        let deck = deck.and_then(|d| Deck::from_cards(&d).map_err(|e| e.to_string()));
        let salt = from_hex(&h.salt);
        let commitment = from_hex(&h.commitment);
        match (&deck, &salt, &commitment) {
            (Ok(d), Ok(s), Ok(c)) => {
                if !engine::verify_deal(d, s, c) {
                    problems.push("the deck and salt do not match the commitment".to_string());
                }
                let setup = &v.record.setup;
                let expected = match setup.decks.get(i) {
                    Some(d) => Some(*d),
                    None if revealed => Some(Deck::shuffled(setup.seed, i as u64)),
                    None => None,
                };
                if expected.is_some_and(|e| e != *d) {
                    problems.push("the revealed deck is not the deck the record deals".into());
                }
            }
            _ => {
                for e in [deck.err(), salt.err(), commitment.as_ref().err().cloned()].into_iter().flatten() {
                    problems.push(e);
                }
            }
        }
        match (&h.published, &commitment) {
            (Some(p), Ok(c)) => match from_hex(p) {
                Ok(p) if p == *c => {}
                Ok(_) => problems.push("the commitment differs from the one published at the deal".into()),
                Err(e) => problems.push(e),
            },
            (None, _) => {}
            (Some(_), Err(_)) => {}
        }
        if problems.is_empty() {
            let seen = if h.published.is_some() { ", as published at the deal" } else { "" };
            lines.push(format!("hand {}: ok (deck, salt and commitment agree{seen})", i + 1));
        } else {
            ok = false;
            lines.push(format!("hand {}: FAILED: {}", i + 1, problems.join("; ")));
        }
    }
    let pending = ok && !revealed;
    if pending {
        lines.push(format!(
            "{} deals checked against their commitments; the seed is not revealed yet",
            v.hands.len()
        ));
    } else if ok {
        lines.push(format!("all {} deals verified", v.hands.len()));
    }
    Report { lines, ok: ok && revealed, pending }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{Format, TableSetup};

    /// A finished table of `format` (`players` seats) played by simple bots.
    fn finished(format: &str, players: u8, seed: u64) -> Table {
        let format = Format::preset(format).unwrap().with_players(players).unwrap();
        let mut bots: Vec<gin_strategies::tables::TableBot> = (0..players)
            .map(|s| gin_strategies::tables::TableBot::new("simple", format.kind(), s as u64).unwrap())
            .collect();
        gin_strategies::tables::play_table(TableSetup::new(format, seed), &mut bots).unwrap()
    }

    /// What an honest server reveals of `t` (secret `secret`).
    fn verifiable(t: &Table, secret: [u8; 32]) -> Verifiable {
        let record = t.record();
        let seed = record.setup.seed;
        let hands = (0..hands_dealt(t) as u32)
            .map(|n| {
                let deck = Deck::shuffled(seed, n as u64);
                let salt = engine::hand_salt(&secret, n);
                let c = engine::deal_commitment(&deck, &salt);
                HandReveal {
                    deck: deck.cards().iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" "),
                    salt: to_hex(&salt),
                    commitment: to_hex(&c),
                    published: Some(to_hex(&c)),
                }
            })
            .collect::<Vec<_>>();
        let salt = engine::seed_salt(&secret);
        let c = to_hex(&engine::seed_commitment(seed, &salt));
        let seed = SeedReveal { salt: to_hex(&salt), commitment: c.clone(), published: vec![c; hands.len()] };
        Verifiable { game_id: "g".into(), record, hands, seed: Some(seed), seat: None }
    }

    /// A rummy game for 4 whose piles were turned (the first seed from 1 that does).
    fn rummy_with_turns() -> (Verifiable, u32) {
        (1..)
            .map(|seed| verifiable(&finished("rummy", 4, seed), [seed as u8; 32]))
            .map(|v| {
                let turns = replay(&v.record).unwrap().turns;
                (v, turns)
            })
            .find(|(_, n)| *n > 0)
            .unwrap()
    }

    #[test]
    fn hex_round_trips_and_refuses_junk() {
        assert_eq!(from_hex(&to_hex(&[0, 1, 0xab, 0xff])).unwrap(), vec![0, 1, 0xab, 0xff]);
        assert!(from_hex("abc").is_err());
        assert!(from_hex("zz").is_err());
    }

    #[test]
    fn an_honest_game_verifies_and_each_tampering_is_caught() {
        let v = verifiable(&finished("standard", 2, 7), [3; 32]);
        let r = check(&v);
        assert!(r.ok && !r.pending, "{:?}", r.lines);
        assert_eq!(r.lines.last().unwrap(), &format!("all {} deals verified", v.hands.len()));
        assert_eq!(
            r.lines[0],
            "seed: ok (seed, salt and commitment agree, as published with the first deal and every other: no pile was turned)"
        );

        // A different salt: the commitment no longer matches.
        let mut bad = v.clone();
        bad.hands[0].salt = to_hex(&[9; 32]);
        let r = check(&bad);
        assert!(!r.ok && !r.pending);
        assert!(r.lines[1].contains("hand 1: FAILED: the deck and salt do not match"), "{:?}", r.lines);

        // A deck that matches its (recomputed) commitment but is not the one played.
        let mut bad = v.clone();
        let other = Deck::shuffled(8, 0);
        let salt = [0u8; 32];
        bad.hands[0].deck = other.cards().iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" ");
        bad.hands[0].commitment = to_hex(&engine::deal_commitment(&other, &salt));
        bad.hands[0].published = None;
        let r = check(&bad);
        assert!(!r.ok);
        assert!(r.lines[1].contains("not the deck the record deals"), "{:?}", r.lines);

        // A commitment other than the one published at the deal.
        let mut bad = v.clone();
        bad.hands[0].published = Some(to_hex(&[1; 32]));
        let r = check(&bad);
        assert!(!r.ok && r.lines[1].contains("published at the deal"), "{:?}", r.lines);

        // A missing hand.
        let mut bad = v;
        bad.hands.pop();
        assert!(!check(&bad).ok);
    }

    /// The seed fixes every turn of the pile: a seed other than the committed one, a
    /// commitment other than the one published, or none at all where a pile was turned, fail.
    #[test]
    fn the_draws_after_a_turn_of_the_pile_are_fixed_by_the_committed_seed() {
        let (v, turns) = rummy_with_turns();
        let r = check(&v);
        assert!(r.ok, "{:?}", r.lines);
        assert!(
            r.lines[0].ends_with(&format!(
                ": it fixed the {turns} turn(s) of the pile, and every card drawn after them)"
            )),
            "{:?}",
            r.lines
        );

        // The record's seed is not the committed one.
        let mut bad = v.clone();
        bad.seed.as_mut().unwrap().salt = to_hex(&[7; 32]);
        let r = check(&bad);
        assert!(!r.ok && !r.pending);
        assert!(
            r.lines[0].starts_with("seed: FAILED: the record's seed and the salt do not match"),
            "{:?}",
            r.lines
        );

        // The commitment revealed is not the one published with the deals.
        let mut bad = v.clone();
        bad.seed.as_mut().unwrap().published[1] = to_hex(&[1; 32]);
        let r = check(&bad);
        assert!(r.lines[0].contains("differs from the one published with deal 2"), "{:?}", r.lines);
        assert!(!r.ok);

        // No commitment to the seed at all: the draws after the turns are fixed by nothing.
        let mut bad = v.clone();
        bad.seed = None;
        let r = check(&bad);
        assert!(
            !r.ok && r.lines[0].contains(&format!("turns the pile {turns} time(s) but no commitment")),
            "{:?}",
            r.lines
        );
    }

    /// A seat's own draws, as its stream showed them, against the record's: those after a
    /// turn of the pile counted; one card other than the record's fails.
    #[test]
    fn a_seats_draws_are_checked_against_the_record() {
        let (mut v, _) = rummy_with_turns();
        let g = replay(&v.record).unwrap();
        // The seat that drew the most after a turn of the pile.
        let seat = (0..4u8).max_by_key(|&s| g.draws.iter().filter(|d| d.0 == s && d.2).count()).unwrap();
        let mine: Vec<_> = g.draws.iter().filter(|d| d.0 == seat).collect();
        let after = mine.iter().filter(|d| d.2).count();
        assert!(after > 0);
        v.seat = Some(SeatDraws { seat, drawn: mine.iter().map(|d| d.1.to_string()).collect() });
        let r = check(&v);
        assert!(r.ok, "{:?}", r.lines);
        let line = format!(
            "seat {seat}: ok (the {} cards it drew, {after} of them after a turn of the pile, are the record's)",
            mine.len()
        );
        assert!(r.lines.contains(&line), "{:?}", r.lines);
        // The last card drawn, other than the record's.
        let mut bad = v.clone();
        let last = bad.seat.as_mut().unwrap().drawn.last_mut().unwrap();
        *last = if last == "AS" { "AH".into() } else { "AS".into() };
        let r = check(&bad);
        assert!(!r.ok, "{:?}", r.lines);
        assert!(
            r.lines.iter().any(|l| l.starts_with(&format!("seat {seat}: FAILED: its draw #{}", mine.len())))
        );
        // One draw left out.
        let mut bad = v;
        bad.seat.as_mut().unwrap().drawn.pop();
        assert!(!check(&bad).ok);
    }

    /// A record whose seed is secret still has each deal checked against its commitment; the
    /// rest waits for the seed (pending, not ok), and a bad deal still fails.
    #[test]
    fn a_record_with_its_seed_secret_is_checked_as_far_as_it_can_be() {
        let (mut v, _) = rummy_with_turns();
        v.seed.as_mut().unwrap().salt = String::new();
        v.record.setup.seed = 0;
        let r = check(&v);
        assert!(!r.ok && r.pending, "{:?}", r.lines);
        assert!(r.lines[0].starts_with("seed: not revealed yet"), "{:?}", r.lines);
        assert!(r.lines.last().unwrap().ends_with("the seed is not revealed yet"), "{:?}", r.lines);
        let mut bad = v;
        bad.hands[0].salt = to_hex(&[9; 32]);
        let r = check(&bad);
        assert!(!r.ok && !r.pending, "{:?}", r.lines);
    }

    /// Files saved before: a two-player gin record (version 1) and no seed reveal.
    #[test]
    fn an_older_saved_file_still_reads() {
        let v = verifiable(&finished("standard", 2, 9), [4; 32]);
        let Table::Gin(g) = v.record.replay().unwrap() else { panic!("gin") };
        let mut j = serde_json::to_value(&v).unwrap();
        j["record"] = serde_json::to_value(g.record()).unwrap();
        j.as_object_mut().unwrap().remove("seed");
        let old: Verifiable = serde_json::from_value(j).unwrap();
        let r = check(&old);
        assert!(r.ok, "{:?}", r.lines);
        assert_eq!(
            r.lines[0],
            "seed: no commitment given, and no pile was turned: each deal's commitment fixes every card"
        );
    }
}
