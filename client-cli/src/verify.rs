//! `gin verify`: checks that a finished game's deals were fixed before play.
//!
//! At each deal the server publishes a commitment, SHA-256 of the deck order and a secret
//! salt; at the hand's end it reveals both. A [`Verifiable`] record holds the game's record
//! (which replays with the engine), each hand's revealed deck, salt and commitment, and the
//! commitment seen when the hand was dealt. [`check`] says, hand by hand, whether the reveal
//! matches its commitment ([`engine::verify_deal`]), whether the revealed deck is the deck
//! the record replays, and whether the commitment is the one published at the deal.

use engine::{Card, Deck, GameRecord};
use serde::{Deserialize, Serialize};

/// A finished game with everything needed to check its deals (the file `gin verify` reads
/// and `gin verify ID --save FILE` writes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verifiable {
    /// The game.
    pub game_id: String,
    /// The engine's record (setup and every action).
    pub record: GameRecord,
    /// One entry per dealt hand, in order.
    pub hands: Vec<HandReveal>,
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

/// The result of [`check`]: one line per hand and whether every check passed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// For people, one a line.
    pub lines: Vec<String>,
    /// Every hand passed every check.
    pub ok: bool,
}

/// Checks every hand of `v` (see the module docs).
pub fn check(v: &Verifiable) -> Report {
    let mut lines = Vec::new();
    let mut ok = true;
    let game = match v.record.replay() {
        Ok(g) => Some(g),
        Err(e) => {
            lines.push(format!("record: does not replay: {e}"));
            ok = false;
            None
        }
    };
    let dealt = game.as_ref().map(|g| g.hand_number() as usize + 1);
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
                let expected =
                    setup.decks.get(i).copied().unwrap_or_else(|| Deck::shuffled(setup.seed, i as u64));
                if expected != *d {
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
    if ok {
        lines.push(format!("all {} deals verified", v.hands.len()));
    }
    Report { lines, ok }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{Game, GameSetup, RuleSet};

    fn finished(seed: u64) -> Game {
        let mut a = gin_strategies::by_name("simple", 1).unwrap();
        let mut b = gin_strategies::by_name("simple", 2).unwrap();
        gin_strategies::local::play_game(GameSetup::new(RuleSet::standard(), seed), [a.as_mut(), b.as_mut()])
            .unwrap()
    }

    fn verifiable(seed: u64) -> Verifiable {
        let g = finished(seed);
        let hands = (0..=g.hand_number())
            .map(|n| {
                let deck = Deck::shuffled(seed, n as u64);
                let salt = [n as u8; 32];
                let c = engine::deal_commitment(&deck, &salt);
                HandReveal {
                    deck: deck.cards().iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" "),
                    salt: to_hex(&salt),
                    commitment: to_hex(&c),
                    published: Some(to_hex(&c)),
                }
            })
            .collect();
        Verifiable { game_id: "g".into(), record: g.record(), hands }
    }

    #[test]
    fn hex_round_trips_and_refuses_junk() {
        assert_eq!(from_hex(&to_hex(&[0, 1, 0xab, 0xff])).unwrap(), vec![0, 1, 0xab, 0xff]);
        assert!(from_hex("abc").is_err());
        assert!(from_hex("zz").is_err());
    }

    #[test]
    fn an_honest_game_verifies_and_each_tampering_is_caught() {
        let v = verifiable(7);
        let r = check(&v);
        assert!(r.ok, "{:?}", r.lines);
        assert_eq!(r.lines.last().unwrap(), &format!("all {} deals verified", v.hands.len()));

        // A different salt: the commitment no longer matches.
        let mut bad = v.clone();
        bad.hands[0].salt = to_hex(&[9; 32]);
        let r = check(&bad);
        assert!(!r.ok);
        assert!(r.lines[0].contains("hand 1: FAILED: the deck and salt do not match"), "{:?}", r.lines);

        // A deck that matches its (recomputed) commitment but is not the one played.
        let mut bad = v.clone();
        let other = Deck::shuffled(8, 0);
        let salt = [0u8; 32];
        bad.hands[0].deck = other.cards().iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" ");
        bad.hands[0].commitment = to_hex(&engine::deal_commitment(&other, &salt));
        bad.hands[0].published = None;
        let r = check(&bad);
        assert!(!r.ok);
        assert!(r.lines[0].contains("not the deck the record deals"), "{:?}", r.lines);

        // A commitment other than the one published at the deal.
        let mut bad = v.clone();
        bad.hands[0].published = Some(to_hex(&[1; 32]));
        let r = check(&bad);
        assert!(!r.ok && r.lines[0].contains("published at the deal"), "{:?}", r.lines);

        // A missing hand.
        let mut bad = v;
        bad.hands.pop();
        assert!(!check(&bad).ok);
    }
}
