//! Melds (sets and runs), validated, and the cards that can be laid off onto them.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::cardset::{CardSet, LANE, ParseCardSetError};

/// What kind of meld.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MeldKind {
    /// 3 or 4 cards of one rank.
    Set,
    /// 3 or more consecutive ranks of one suit, ace low.
    Run,
}

/// A valid meld. The only way to get one is [`Meld::new`] (or parsing), which checks it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Meld(CardSet);

/// Why a group of cards is not a meld.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MeldError {
    /// Fewer than 3 cards.
    TooFew(CardSet),
    /// Not all one rank, and not consecutive cards of one suit.
    NotSetOrRun(CardSet),
    /// The text did not parse as cards.
    Parse(ParseCardSetError),
}

impl fmt::Display for MeldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MeldError::TooFew(c) => write!(f, "[{c}] is not a meld: a meld has at least 3 cards"),
            MeldError::NotSetOrRun(c) => write!(
                f,
                "[{c}] is not a meld: not 3-4 cards of one rank, nor consecutive cards of one suit (ace low)"
            ),
            MeldError::Parse(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for MeldError {}

/// True when the 13-bit lane `x` is one block of consecutive ones.
const fn is_contiguous(x: u64) -> bool {
    x != 0 && {
        let shifted = x >> x.trailing_zeros();
        shifted & (shifted + 1) == 0
    }
}

impl Meld {
    /// Checks that `cards` form a set or a run.
    pub fn new(cards: CardSet) -> Result<Meld, MeldError> {
        if cards.len() < 3 {
            return Err(MeldError::TooFew(cards));
        }
        if Self::kind_of(cards).is_some() { Ok(Meld(cards)) } else { Err(MeldError::NotSetOrRun(cards)) }
    }

    /// The kind of meld `cards` would be, or `None` when it is not one.
    pub const fn kind_of(cards: CardSet) -> Option<MeldKind> {
        let b = cards.bits();
        let n = b.count_ones();
        if n < 3 {
            return None;
        }
        // A set: one rank, 3 or 4 cards.
        let ranks = cards.rank_mask();
        if ranks.count_ones() == 1 && n <= 4 {
            return Some(MeldKind::Set);
        }
        // A run: all bits in one lane, contiguous.
        let lane = b.trailing_zeros() / 16;
        let in_lane = (b >> (lane * 16)) & LANE;
        if in_lane.count_ones() == n && is_contiguous(in_lane) {
            return Some(MeldKind::Run);
        }
        None
    }

    /// The meld's cards.
    pub const fn cards(self) -> CardSet {
        self.0
    }

    /// Set or run.
    pub const fn kind(self) -> MeldKind {
        match Self::kind_of(self.0) {
            Some(k) => k,
            None => MeldKind::Set,
        }
    }

    /// The cards that could be laid off directly onto this meld now: the missing card of a
    /// 3-card set, or the card just below and just above a run.
    pub const fn layoff_spots(self) -> CardSet {
        let b = self.0.bits();
        match self.kind() {
            MeldKind::Set => {
                if b.count_ones() == 4 {
                    CardSet::EMPTY
                } else {
                    let r = self.0.rank_mask() as u64;
                    CardSet::from_bits((r | r << 16 | r << 32 | r << 48) & !b)
                }
            }
            MeldKind::Run => {
                let lane = b.trailing_zeros() / 16;
                let mask = LANE << (lane * 16);
                CardSet::from_bits(((b << 1) | (b >> 1)) & mask & !b)
            }
        }
    }

    /// This meld with `extra` added, if the result is still a meld of the same kind.
    pub fn extended(self, extra: CardSet) -> Option<Meld> {
        let all = self.0 | extra;
        (Self::kind_of(all) == Some(self.kind())).then_some(Meld(all))
    }
}

impl fmt::Display for Meld {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl fmt::Debug for Meld {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Meld[{}]", self.0)
    }
}

impl FromStr for Meld {
    type Err = MeldError;
    fn from_str(s: &str) -> Result<Meld, MeldError> {
        Meld::new(s.parse().map_err(MeldError::Parse)?)
    }
}

impl Serialize for Meld {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Meld {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Meld, D::Error> {
        let cards = CardSet::deserialize(d)?;
        Meld::new(cards).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cardset::hand;

    #[test]
    fn valid_and_invalid_melds() {
        let ok = [
            ("7C 7D 7H", MeldKind::Set),
            ("7C 7D 7H 7S", MeldKind::Set),
            ("AS 2S 3S", MeldKind::Run),
            ("9H TH JH QH KH", MeldKind::Run),
        ];
        for (s, k) in ok {
            assert_eq!(s.parse::<Meld>().map(Meld::kind), Ok(k), "{s}");
        }
        let bad = ["7C 7D", "QS KS AS", "KS AS 2S", "AS 2S 4S", "AS 2S 3D", "7C 7D 8H", ""];
        for s in bad {
            assert!(s.parse::<Meld>().is_err(), "{s} should not be a meld");
        }
        assert!(matches!("7C 7D".parse::<Meld>(), Err(MeldError::TooFew(_))));
    }

    #[test]
    fn layoff_spots() {
        let m: Meld = "3S 4S 5S".parse().unwrap();
        assert_eq!(m.layoff_spots(), hand("2S 6S"));
        let m: Meld = "AS 2S 3S".parse().unwrap();
        assert_eq!(m.layoff_spots(), hand("4S"));
        let m: Meld = "JD QD KD".parse().unwrap();
        assert_eq!(m.layoff_spots(), hand("TD"));
        let m: Meld = "7C 7D 7H".parse().unwrap();
        assert_eq!(m.layoff_spots(), hand("7S"));
        let m: Meld = "7C 7D 7H 7S".parse().unwrap();
        assert_eq!(m.layoff_spots(), CardSet::EMPTY);
    }

    #[test]
    fn extended() {
        let m: Meld = "3S 4S 5S".parse().unwrap();
        assert!(m.extended(hand("6S 7S")).is_some());
        assert!(m.extended(hand("7S")).is_none());
        let s: Meld = "7C 7D 7H".parse().unwrap();
        assert!(s.extended(hand("7S")).is_some());
    }
}
