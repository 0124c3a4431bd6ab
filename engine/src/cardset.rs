//! `CardSet`: any set of cards in one 64-bit word (one 16-bit lane per suit).

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, Not, Sub};
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::card::{Card, ParseCardError, Rank, Suit};

/// A set of cards as a bitmask: bit `suit * 16 + rank`. Bits 13–15 of each lane are always 0.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CardSet(u64);

/// The 13 valid bits of one suit lane.
pub(crate) const LANE: u64 = 0x1FFF;
/// All 52 valid bits.
pub(crate) const FULL: u64 = LANE | LANE << 16 | LANE << 32 | LANE << 48;

impl CardSet {
    /// No cards.
    pub const EMPTY: CardSet = CardSet(0);
    /// The whole deck.
    pub const FULL: CardSet = CardSet(FULL);

    /// The set with exactly these bits; bits that are not cards are dropped.
    pub const fn from_bits(bits: u64) -> CardSet {
        CardSet(bits & FULL)
    }

    /// The raw mask.
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// The one-card set.
    pub const fn single(c: Card) -> CardSet {
        CardSet(1 << c.bit())
    }

    /// All cards of one suit.
    pub const fn suit(s: Suit) -> CardSet {
        CardSet(LANE << (s as u64 * 16))
    }

    /// All four cards of one rank.
    pub const fn rank(r: Rank) -> CardSet {
        CardSet(0x0001_0001_0001_0001 << r.index())
    }

    /// Number of cards.
    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// True when no card is in the set.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// True when `c` is in the set.
    pub const fn contains(self, c: Card) -> bool {
        self.0 >> c.bit() & 1 == 1
    }

    /// True when every card of `other` is in `self`.
    pub const fn is_superset(self, other: CardSet) -> bool {
        other.0 & !self.0 == 0
    }

    /// True when the sets share no card.
    pub const fn is_disjoint(self, other: CardSet) -> bool {
        self.0 & other.0 == 0
    }

    /// Adds a card; returns whether it was absent.
    pub fn insert(&mut self, c: Card) -> bool {
        let had = self.contains(c);
        self.0 |= 1 << c.bit();
        !had
    }

    /// Removes a card; returns whether it was present.
    pub fn remove(&mut self, c: Card) -> bool {
        let had = self.contains(c);
        self.0 &= !(1 << c.bit());
        had
    }

    /// The set with `c` added.
    pub const fn with(self, c: Card) -> CardSet {
        CardSet(self.0 | 1 << c.bit())
    }

    /// The set with `c` removed.
    pub const fn without(self, c: Card) -> CardSet {
        CardSet(self.0 & !(1 << c.bit()))
    }

    /// The card with the lowest bit index (clubs first, then by rank), if any.
    pub const fn first(self) -> Option<Card> {
        if self.0 == 0 { None } else { Card::from_bit(self.0.trailing_zeros() as u8) }
    }

    /// The `i`-th card in bit order (`self.iter().nth(i)`, without the loop: one
    /// instruction on this build's CPUs), if there are more than `i`.
    ///
    /// ```
    /// let h = engine::hand("7S 2C KD");
    /// assert_eq!(h.nth(1), Some(engine::card("KD")));
    /// assert_eq!(h.nth(3), None);
    /// ```
    #[inline]
    pub fn nth(self, i: u32) -> Option<Card> {
        nth_card(self, i)
    }

    /// Sum of the deadwood values of the cards.
    pub const fn value(self) -> u32 {
        // Each card's value written in binary over four masks: value = Σ 2^k [bit k of value].
        const fn mask(k: u32) -> u64 {
            let mut lane = 0u64;
            let mut r = 0;
            while r < 13 {
                let v = if r >= 9 { 10 } else { r + 1 };
                if v >> k & 1 == 1 {
                    lane |= 1 << r;
                }
                r += 1;
            }
            lane | lane << 16 | lane << 32 | lane << 48
        }
        const M0: u64 = mask(0);
        const M1: u64 = mask(1);
        const M2: u64 = mask(2);
        const M3: u64 = mask(3);
        (self.0 & M0).count_ones()
            + 2 * (self.0 & M1).count_ones()
            + 4 * (self.0 & M2).count_ones()
            + 8 * (self.0 & M3).count_ones()
    }

    /// The highest deadwood value of a card in the set (0 when empty).
    pub const fn max_value(self) -> u32 {
        let ranks = (self.0 | self.0 >> 16 | self.0 >> 32 | self.0 >> 48) & LANE;
        if ranks == 0 {
            0
        } else {
            let top = 63 - ranks.leading_zeros();
            if top >= 9 { 10 } else { top + 1 }
        }
    }

    /// The ranks present, as a 13-bit mask (bit r = some card of rank r).
    pub const fn rank_mask(self) -> u16 {
        ((self.0 | self.0 >> 16 | self.0 >> 32 | self.0 >> 48) & LANE) as u16
    }

    /// Iterates the cards in bit order (clubs A..K, then diamonds, hearts, spades).
    pub const fn iter(self) -> Iter {
        Iter(self.0)
    }

    /// The cards sorted by rank, then suit.
    pub fn by_rank(self) -> Vec<Card> {
        let mut v: Vec<Card> = self.iter().collect();
        v.sort_by_key(|c| (c.rank(), c.suit()));
        v
    }
}

/// Iterator over a [`CardSet`].
#[derive(Clone, Debug)]
pub struct Iter(u64);

impl Iterator for Iter {
    type Item = Card;
    fn next(&mut self) -> Option<Card> {
        if self.0 == 0 {
            return None;
        }
        let b = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Card::from_bit(b)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Iter {}

impl IntoIterator for CardSet {
    type Item = Card;
    type IntoIter = Iter;
    fn into_iter(self) -> Iter {
        self.iter()
    }
}

impl FromIterator<Card> for CardSet {
    fn from_iter<I: IntoIterator<Item = Card>>(it: I) -> CardSet {
        let mut s = CardSet::EMPTY;
        for c in it {
            s.insert(c);
        }
        s
    }
}

impl From<Card> for CardSet {
    fn from(c: Card) -> CardSet {
        CardSet::single(c)
    }
}

impl BitOr for CardSet {
    type Output = CardSet;
    fn bitor(self, o: CardSet) -> CardSet {
        CardSet(self.0 | o.0)
    }
}
impl BitOrAssign for CardSet {
    fn bitor_assign(&mut self, o: CardSet) {
        self.0 |= o.0;
    }
}
impl BitAnd for CardSet {
    type Output = CardSet;
    fn bitand(self, o: CardSet) -> CardSet {
        CardSet(self.0 & o.0)
    }
}
impl BitAndAssign for CardSet {
    fn bitand_assign(&mut self, o: CardSet) {
        self.0 &= o.0;
    }
}
impl BitXor for CardSet {
    type Output = CardSet;
    fn bitxor(self, o: CardSet) -> CardSet {
        CardSet(self.0 ^ o.0)
    }
}
impl Sub for CardSet {
    type Output = CardSet;
    fn sub(self, o: CardSet) -> CardSet {
        CardSet(self.0 & !o.0)
    }
}
impl Not for CardSet {
    type Output = CardSet;
    fn not(self) -> CardSet {
        CardSet(!self.0 & FULL)
    }
}

impl fmt::Display for CardSet {
    /// Cards separated by spaces, in bit order: `AC 2C 7S`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, c) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for CardSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CardSet[{self}]")
    }
}

/// Why a list of cards did not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseCardSetError {
    /// One token was not a card.
    Card(ParseCardError),
    /// The same card appeared twice.
    Duplicate(Card),
}

impl fmt::Display for ParseCardSetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseCardSetError::Card(e) => e.fmt(f),
            ParseCardSetError::Duplicate(c) => write!(f, "card {c} appears twice"),
        }
    }
}

impl std::error::Error for ParseCardSetError {}

impl FromStr for CardSet {
    type Err = ParseCardSetError;

    /// Parses cards separated by spaces and/or commas: `7S 8S 9S, KD`.
    fn from_str(s: &str) -> Result<CardSet, ParseCardSetError> {
        let mut set = CardSet::EMPTY;
        for tok in s.split(|c: char| c.is_whitespace() || c == ',').filter(|t| !t.is_empty()) {
            let c: Card = tok.parse().map_err(ParseCardSetError::Card)?;
            if !set.insert(c) {
                return Err(ParseCardSetError::Duplicate(c));
            }
        }
        Ok(set)
    }
}

impl Serialize for CardSet {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for CardSet {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CardSet, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Parses a list of cards, panicking on bad notation: for tests and examples only.
///
/// ```
/// let h = engine::hand("7S 8S 9S KD");
/// assert_eq!(h.len(), 4);
/// assert_eq!(h.value(), 34);
/// ```
pub fn hand(s: &str) -> CardSet {
    match s.parse() {
        Ok(h) => h,
        Err(e) => panic!("{e}"),
    }
}

/// The `i`-th card of `set` in bit order, branch-free (random play picks `i` at random, and
/// a loop over the set bits would mispredict its exit). With BMI2 (x86-64-v3, this
/// workspace's target) one PDEP deposits bit `i` onto the set's bits (3 cycles on Intel;
/// random playouts 10–20% faster than [`nth_card_search`]; microcoded and slow on AMD before
/// Zen 3); elsewhere [`nth_card_search`].
#[inline]
pub(crate) fn nth_card(set: CardSet, i: u32) -> Option<Card> {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        let x = set.bits();
        if i >= x.count_ones() {
            return None;
        }
        // SAFETY: compiled only where the whole build enables BMI2, and every binary checks
        // first that the CPU has the build's features (`engine::cpu`). The workspace's one
        // `unsafe` (see ARCHITECTURE.md).
        #[allow(unsafe_code)]
        let bit = unsafe { std::arch::x86_64::_pdep_u64(1u64 << i, x) };
        Card::from_bit(bit.trailing_zeros() as u8)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    nth_card_search(set, i)
}

/// [`nth_card`] without BMI2: a binary search by popcounts (the half of the word, then the
/// quarter within it, then the byte holding the card, each step a conditional move), then a
/// table for the card within the byte.
#[inline]
#[cfg_attr(all(target_arch = "x86_64", target_feature = "bmi2"), allow(dead_code))]
pub(crate) fn nth_card_search(set: CardSet, i: u32) -> Option<Card> {
    let x = set.bits();
    if i >= x.count_ones() {
        return None;
    }
    let (mut at, mut i) = (0u32, i);
    for width in [32u32, 16, 8] {
        // The cards in the lower `width` bits from `at`.
        let low = (x >> at & ((1u64 << width) - 1)).count_ones();
        let up = i >= low;
        at += if up { width } else { 0 };
        i -= if up { low } else { 0 };
    }
    let byte = (x >> at) as usize & 0xFF;
    // Below 8 (the card is in this byte): masked, the index needs no bounds check.
    Card::from_bit((at + SELECT_IN_BYTE[byte << 3 | (i as usize & 7)] as u32) as u8)
}

/// `SELECT_IN_BYTE[b << 3 | k]`: the position of the `k`-th set bit of the byte `b` (8 when
/// it has fewer).
const SELECT_IN_BYTE: [u8; 2048] = {
    let mut t = [8u8; 2048];
    let mut b = 0;
    while b < 256 {
        let (mut k, mut bit) = (0, 0);
        while bit < 8 {
            if b >> bit & 1 == 1 {
                t[b << 3 | k] = bit as u8;
                k += 1;
            }
            bit += 1;
        }
        b += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::card;

    #[test]
    fn value_matches_per_card_sum() {
        let mut all = CardSet::EMPTY;
        for c in Card::all() {
            assert_eq!(CardSet::single(c).value(), c.value(), "{c}");
            all.insert(c);
        }
        assert_eq!(all, CardSet::FULL);
        assert_eq!(all.value(), 4 * (1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 40));
        assert_eq!(hand("AC 5D TS KH").value(), 26);
    }

    #[test]
    fn max_value() {
        assert_eq!(CardSet::EMPTY.max_value(), 0);
        assert_eq!(hand("AC 5D 3S").max_value(), 5);
        assert_eq!(hand("AC JD").max_value(), 10);
    }

    #[test]
    fn parse_display_and_errors() {
        let h = hand("7S, 8s 10S  kd");
        assert_eq!(h.to_string(), "KD 7S 8S TS");
        assert_eq!("7S 7S".parse::<CardSet>(), Err(ParseCardSetError::Duplicate(card("7S"))));
        assert!(matches!("7S XX".parse::<CardSet>(), Err(ParseCardSetError::Card(_))));
        assert_eq!("".parse::<CardSet>(), Ok(CardSet::EMPTY));
    }

    #[test]
    fn set_operations() {
        let a = hand("AC 2C 3C");
        let b = hand("3C 4C");
        assert_eq!(a | b, hand("AC 2C 3C 4C"));
        assert_eq!(a & b, hand("3C"));
        assert_eq!(a - b, hand("AC 2C"));
        assert_eq!((!a).len(), 49);
        assert!(a.is_superset(hand("AC 3C")));
        assert!(!a.is_superset(b));
        assert_eq!(CardSet::rank(Rank::KING).len(), 4);
        assert_eq!(CardSet::suit(Suit::Hearts).len(), 13);
        assert_eq!(a.first(), Some(card("AC")));
        assert_eq!(a.iter().len(), 3);
    }
}
