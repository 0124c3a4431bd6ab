//! Cards, seats, melds and legal actions between the engine and the wire: one conversion for
//! the server and every Rust client (rule sets convert in [`crate::rules`]).
//!
//! The wire writes a card in the engine's notation (`7S`, `TD`), a seat as its index and the
//! legal actions of a turn as a list of [`pb::LegalAction`]; the engine's compact
//! [`Legal`] goes out through [`legal_to_pb`] (the server) and comes back through [`legal`]
//! (the clients). What reads the wire returns a [`WireError`]; each side words it for its
//! reader (the server as `INVALID_ARGUMENT` naming the request's field, a client as a
//! message the server should not have sent).
//!
//! ```
//! use gin_proto::convert;
//! let held = engine::hand("7S 8S 9S KD");
//! assert_eq!(convert::cards(&convert::cards_to_pb(held)).unwrap(), held);
//! assert!(convert::seat(2).is_err());
//! ```

use engine::{Card, CardSet, Legal, Meld, MeldError, ParseCardError, Seat};

use crate::v1 as pb;

/// Something on the wire that is no card, seat, meld or legal action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WireError {
    /// Not card notation.
    Card(ParseCardError),
    /// A seat index that is no seat.
    Seat(u32),
    /// A legal action of a kind this side does not know.
    ActionKind(i32),
    /// The meld at `index` of a list.
    Meld {
        /// Its position in the list.
        index: usize,
        /// What is wrong with it.
        problem: MeldProblem,
    },
}

/// What is wrong with a meld from the wire.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MeldProblem {
    /// One of its cards is not card notation.
    Card(ParseCardError),
    /// A card appears twice.
    Twice(Card),
    /// The cards are no meld.
    Invalid(MeldError),
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WireError::Card(e) => e.fmt(f),
            WireError::Seat(n) => write!(f, "seat {n} does not exist; seats are 0 and 1"),
            WireError::ActionKind(k) => write!(f, "unknown legal action kind {k}"),
            WireError::Meld { index, problem } => {
                write!(f, "melds[{index}]: ")?;
                match problem {
                    MeldProblem::Card(e) => e.fmt(f),
                    MeldProblem::Twice(c) => write!(f, "card {c} appears twice"),
                    MeldProblem::Invalid(e) => e.fmt(f),
                }
            }
        }
    }
}

impl std::error::Error for WireError {}

/// A seat from its index.
pub fn seat(n: u32) -> Result<Seat, WireError> {
    u8::try_from(n).ok().and_then(Seat::new).ok_or(WireError::Seat(n))
}

/// The defender's ten cards at a showdown: its melds, its deadwood and its layoffs.
pub fn defender_hand(s: &pb::Showdown) -> Result<CardSet, WireError> {
    let mut hand = CardSet::EMPTY;
    if let Some(a) = &s.defender_melds {
        for m in &a.melds {
            hand = hand | cards(&m.cards)?;
        }
        hand = hand | cards(&a.deadwood)?;
    }
    for l in &s.layoffs {
        hand.insert(card(&l.card)?);
    }
    Ok(hand)
}

/// One card from its notation.
pub fn card(s: &str) -> Result<Card, WireError> {
    s.parse().map_err(WireError::Card)
}

/// Cards from their notations.
pub fn cards(v: &[String]) -> Result<CardSet, WireError> {
    v.iter().map(|c| card(c)).collect()
}

/// Cards for the wire: their notations, in the engine's bit order.
pub fn cards_to_pb(set: CardSet) -> Vec<String> {
    set.iter().map(|c| c.notation().to_owned()).collect()
}

/// Melds from the wire (a knock's named melds), each validated: no card twice in one, and a
/// set or a run.
pub fn melds(v: &[pb::Meld]) -> Result<Vec<Meld>, WireError> {
    v.iter()
        .enumerate()
        .map(|(index, m)| {
            let bad = |problem| WireError::Meld { index, problem };
            let mut set = CardSet::EMPTY;
            for c in &m.cards {
                let c: Card = c.parse().map_err(|e| bad(MeldProblem::Card(e)))?;
                if !set.insert(c) {
                    return Err(bad(MeldProblem::Twice(c)));
                }
            }
            Meld::new(set).map_err(|e| bad(MeldProblem::Invalid(e)))
        })
        .collect()
}

/// Melds for the wire.
pub fn melds_to_pb(melds: &[Meld]) -> Vec<pb::Meld> {
    melds.iter().map(|m| pb::Meld { cards: cards_to_pb(m.cards()) }).collect()
}

/// The legal actions of `legal` for the wire, in the engine's order: pass, draw from the
/// stock, take the pile's top (`TAKE_UPCARD` during the offer, else `DRAW_PILE`), each
/// discard, each knock (with the deadwood it leaves of `held`, the cards of the seat to act),
/// big gin.
pub fn legal_to_pb(legal: &Legal, held: CardSet) -> Vec<pb::LegalAction> {
    let kind = |k: pb::ActionKind| k as i32;
    let mut out = Vec::with_capacity(legal.count() as usize);
    if legal.pass {
        out.push(pb::LegalAction { kind: kind(pb::ActionKind::PassUpcard), ..Default::default() });
    }
    if legal.draw_stock {
        out.push(pb::LegalAction { kind: kind(pb::ActionKind::DrawStock), ..Default::default() });
    }
    if legal.draw_pile {
        let k = if legal.pass { pb::ActionKind::TakeUpcard } else { pb::ActionKind::DrawPile };
        out.push(pb::LegalAction { kind: kind(k), ..Default::default() });
    }
    for c in legal.discards {
        out.push(pb::LegalAction {
            kind: kind(pb::ActionKind::Discard),
            card: c.notation().to_owned(),
            ..Default::default()
        });
    }
    if !legal.knocks.is_empty() {
        let by = engine::deadwood_by_discard(held);
        for c in legal.knocks {
            out.push(pb::LegalAction {
                kind: kind(pb::ActionKind::Knock),
                card: c.notation().to_owned(),
                deadwood: by[c.bit() as usize] as u32,
                ..Default::default()
            });
        }
    }
    if legal.big_gin {
        out.push(pb::LegalAction { kind: kind(pb::ActionKind::BigGin), ..Default::default() });
    }
    out
}

/// The engine's compact [`Legal`] for `seat` from the wire's list of legal actions.
pub fn legal(seat: Seat, actions: &[pb::LegalAction]) -> Result<Legal, WireError> {
    use pb::ActionKind as K;
    let mut l = Legal {
        seat: Some(seat),
        pass: false,
        draw_stock: false,
        draw_pile: false,
        discards: CardSet::EMPTY,
        knocks: CardSet::EMPTY,
        big_gin: false,
    };
    for a in actions {
        match K::try_from(a.kind) {
            Ok(K::PassUpcard) => l.pass = true,
            Ok(K::TakeUpcard | K::DrawPile) => l.draw_pile = true,
            Ok(K::DrawStock) => l.draw_stock = true,
            Ok(K::Discard) => {
                l.discards.insert(card(&a.card)?);
            }
            Ok(K::Knock) => {
                l.knocks.insert(card(&a.card)?);
            }
            Ok(K::BigGin) => l.big_gin = true,
            _ => return Err(WireError::ActionKind(a.kind)),
        }
    }
    Ok(l)
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{Game, GameSetup, RuleSet};

    #[test]
    fn every_preset_round_trips() {
        for name in engine::PRESETS {
            let r = RuleSet::preset(name).unwrap();
            assert_eq!(crate::rules::from_pb(&crate::rules::to_pb(&r)).unwrap(), r, "{name}");
        }
    }

    /// What the server sends of a turn's legal actions is what a client reads back, at every
    /// turn of whole games (offers, draws, discards, knocks).
    #[test]
    fn legal_actions_round_trip_over_whole_games() {
        let mut turns = 0;
        let mut knocks = 0;
        for (seed, preset) in [(1, "standard"), (2, "oklahoma"), (3, "classic"), (4, "multistage")] {
            let mut game = Game::new(GameSetup::new(RuleSet::preset(preset).unwrap(), seed)).unwrap();
            let mut x = seed;
            while let Some(seat) = game.to_act() {
                let h = game.hand();
                let l = h.legal();
                let wire = legal_to_pb(&l, h.cards(seat));
                assert_eq!(wire.len() as u32, l.count());
                assert_eq!(legal(seat, &wire).unwrap(), l, "seed {seed}, turn {turns}");
                knocks += l.knocks.len();
                turns += 1;
                // Mostly the first legal action (draws and the lowest discard), sometimes another.
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let i = if x >> 61 == 0 { (x >> 32) as u32 % l.count() } else { 0 };
                let a = l.nth(i).unwrap();
                game.apply(seat, &a).unwrap();
            }
        }
        assert!(turns > 200 && knocks > 0, "{turns} turns, {knocks} knock options");
    }

    #[test]
    fn legal_from_the_wire() {
        let k = |k: pb::ActionKind, c: &str| pb::LegalAction {
            kind: k as i32,
            card: c.into(),
            deadwood: 0,
            ..Default::default()
        };
        let t = [
            k(pb::ActionKind::Discard, "7S"),
            k(pb::ActionKind::Discard, "KD"),
            k(pb::ActionKind::Knock, "KD"),
        ];
        let l = legal(Seat::S1, &t).unwrap();
        assert_eq!(l.seat, Some(Seat::S1));
        assert_eq!(l.discards, engine::hand("7S KD"));
        assert_eq!(l.knocks, engine::hand("KD"));
        assert!(!l.pass && !l.draw_stock && !l.draw_pile && !l.big_gin);
        assert!(matches!(legal(Seat::S0, &[k(pb::ActionKind::Discard, "ZZ")]), Err(WireError::Card(_))));
        assert_eq!(
            legal(Seat::S0, &[pb::LegalAction { kind: 99, ..Default::default() }]).unwrap_err().to_string(),
            "unknown legal action kind 99"
        );
    }

    #[test]
    fn melds_are_validated_and_errors_name_them() {
        let m = |cards: &str| pb::Meld { cards: cards.split_whitespace().map(String::from).collect() };
        let ok = melds(&[m("7S 8S 9S"), m("KD KH KC")]).unwrap();
        assert_eq!(melds_to_pb(&ok), vec![m("7S 8S 9S"), m("KC KD KH")]);
        let err = |v: &[pb::Meld]| melds(v).unwrap_err().to_string();
        assert_eq!(err(&[m("7S 8S 9S"), m("KD KD KH")]), "melds[1]: card KD appears twice");
        assert!(err(&[m("7S ZZ 9S")]).starts_with("melds[0]: bad card \"ZZ\""));
        assert!(err(&[m("7S 8S")]).starts_with("melds[0]: [7S 8S] is not a meld"));
        assert_eq!(seat(1), Ok(Seat::S1));
        assert_eq!(seat(2).unwrap_err().to_string(), "seat 2 does not exist; seats are 0 and 1");
    }
}
