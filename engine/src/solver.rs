//! The exact minimum-deadwood solver.
//!
//! # The idea
//!
//! A hand is a `u64` with one 16-bit lane per suit, so for a whole hand at once:
//!
//! - `h & h>>1 & h>>2` marks the lowest card of every 3-card run (lanes never carry into
//!   each other: bits 13–15 of a lane are always 0);
//! - a rank has a set when at least three of the four lanes have its bit.
//!
//! Their union is the *meldable* part of the hand: cards in at least one candidate meld.
//! Every other card is deadwood whatever the arrangement. The search takes the lowest
//! meldable card `c` and branches: `c` stays unmelded, or `c` is in a run that starts at `c`
//! (any run holding `c` must start there, since lower cards of its suit come first), or in a
//! set with higher suits of its rank. Each branch recomputes the meldable part of what is
//! left, which prunes hard: a random hand has zero or one candidate meld most of the time,
//! and the search ends after a handful of word operations.
//!
//! This enumerates every family of disjoint melds exactly once, so it is exact, and the same
//! walk answers the 11-card questions (best discard, knockable discards, deadwood after each
//! discard) in one pass: for a family leaving the cards `U` unmelded, discarding `d ∈ U`
//! leaves `value(U) − value(d)`.

use crate::card::Card;
use crate::cardset::{CardSet, LANE};
use crate::meld::Meld;

const RANK0: u64 = 0x0001_0001_0001_0001;
/// The most disjoint melds a set of cards can hold (52 / 3).
const MAX_MELDS: usize = 17;

/// Ranks (as a 13-bit lane) held in at least three suits.
#[inline(always)]
fn set_ranks(h: u64) -> u64 {
    let a = h & LANE;
    let b = (h >> 16) & LANE;
    let c = (h >> 32) & LANE;
    let d = h >> 48;
    (a & b & (c | d)) | (c & d & (a | b))
}

/// Cards of `h` (a [`CardSet::bits`] mask) that belong to at least one candidate meld
/// within `h`: the rest is deadwood whatever the arrangement. A building block for
/// allocation-free searches over masks (the bots' rollouts use it).
#[inline(always)]
pub fn meldable(h: u64) -> u64 {
    let r = h & (h >> 1) & (h >> 2);
    let runs = r | r << 1 | r << 2;
    let s = set_ranks(h) * RANK0;
    runs | (s & h)
}

#[inline(always)]
fn value(b: u64) -> u32 {
    CardSet::from_bits(b).value()
}

/// Calls `f(meld)` (a mask) for every candidate meld of `m` that contains `c`, where `c` is
/// the lowest bit of `m` and every card of `m` is meldable within `m` (see [`meldable`]).
#[inline(always)]
pub fn melds_with_lowest(m: u64, c: u64, mut f: impl FnMut(u64)) {
    // Runs starting at c.
    let mut top = c << 2;
    let mut run = c | c << 1 | top;
    while m & run == run {
        f(run);
        top <<= 1;
        run |= top;
    }
    // Sets: c with higher suits of its rank.
    let rank = c.trailing_zeros() % 16;
    let others = m & (RANK0 << rank) & !c;
    match others.count_ones() {
        2 => f(c | others),
        3 => {
            f(c | others);
            let mut o = others;
            while o != 0 {
                let drop = o & o.wrapping_neg();
                f(c | (others & !drop));
                o &= o - 1;
            }
        }
        _ => {}
    }
}

/// The largest total value that disjoint melds of `h` can cover.
fn max_melded(h: u64) -> u32 {
    let m = meldable(h);
    if m == 0 {
        return 0;
    }
    let c = m & m.wrapping_neg();
    let mut best = max_melded(m & !c);
    let full = value(m);
    if best == full {
        return best;
    }
    melds_with_lowest(m, c, |meld| {
        if best < full {
            let v = value(meld) + max_melded(m & !meld);
            if v > best {
                best = v;
            }
        }
    });
    best
}

/// Walks every family of disjoint melds of `h`; calls `leaf(melded, melds)` for each.
fn families(
    m_in: u64,
    melded: u64,
    stack: &mut [u64; MAX_MELDS],
    depth: usize,
    leaf: &mut impl FnMut(u64, &[u64]),
) {
    let m = meldable(m_in);
    if m == 0 {
        leaf(melded, &stack[..depth]);
        return;
    }
    let c = m & m.wrapping_neg();
    families(m & !c, melded, stack, depth, leaf);
    melds_with_lowest(m, c, |meld| {
        stack[depth] = meld;
        families(m & !meld, melded | meld, stack, depth + 1, leaf);
    });
}

fn for_each_family(h: CardSet, mut leaf: impl FnMut(u64, &[u64])) {
    let mut stack = [0u64; MAX_MELDS];
    families(h.bits(), 0, &mut stack, 0, &mut leaf);
}

/// The minimum deadwood of a hand of any size (melds chosen to make it smallest).
///
/// ```
/// use engine::{deadwood, hand};
/// // A 7-8-9 run and a set of 8s compete for the 8 of spades: both are tried.
/// assert_eq!(deadwood(hand("7S 8S 9S 8C 8D 8H KD")), 10);
/// ```
#[inline]
pub fn deadwood(h: CardSet) -> u32 {
    h.value() - max_melded(h.bits())
}

/// The smallest deadwood left after discarding one card from `h` (for an 11-card hand:
/// the deadwood of the best discard). `None` for an empty hand.
pub fn deadwood_after_best_discard(h: CardSet) -> Option<u32> {
    let hb = h.bits();
    if meldable(hb) == 0 {
        return if hb == 0 { None } else { Some(h.value() - h.max_value()) };
    }
    let mut best = u32::MAX;
    for_each_family(h, |melded, _| {
        let u = CardSet::from_bits(hb & !melded);
        if !u.is_empty() {
            best = best.min(u.value() - u.max_value());
        }
    });
    Some(best)
}

/// For each card `d` of `h`, the minimum deadwood of `h` without `d`, indexed by
/// [`Card::bit`]; cards not in `h` hold `u8::MAX`.
pub fn deadwood_by_discard(h: CardSet) -> [u8; 64] {
    let hb = h.bits();
    let mut table = [u8::MAX; 64];
    for_each_family(h, |melded, _| {
        let u = CardSet::from_bits(hb & !melded);
        let total = u.value();
        for d in u {
            let v = (total - d.value()) as u8;
            let slot = &mut table[d.bit() as usize];
            if v < *slot {
                *slot = v;
            }
        }
    });
    table
}

/// What an 11-card hand may do at the end of a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KnockOptions {
    /// Cards whose discard leaves deadwood at most the limit.
    pub discards: CardSet,
    /// Every card fits in melds at once (big gin with 11 cards).
    pub all_melded: bool,
}

/// Cards of `h` whose discard leaves deadwood at most `limit`, and whether all of `h` melds:
/// one pass of the solver.
pub fn knock_options(h: CardSet, limit: u32) -> KnockOptions {
    let hb = h.bits();
    // Cards in no candidate meld stay deadwood whatever is discarded: if even discarding the
    // highest of them leaves more than the limit, nothing can knock (the common case).
    let loose = CardSet::from_bits(hb & !meldable(hb));
    if !loose.is_empty() && loose.value() - loose.max_value() > limit {
        return KnockOptions { discards: CardSet::EMPTY, all_melded: false };
    }
    let mut out = 0u64;
    let mut all_melded = false;
    for_each_family(h, |melded, _| {
        let u = hb & !melded;
        if u == 0 {
            all_melded = true;
            return;
        }
        let uset = CardSet::from_bits(u);
        let total = uset.value();
        if total - uset.max_value() > limit {
            return;
        }
        out |= u & at_least(total.saturating_sub(limit));
    });
    KnockOptions { discards: CardSet::from_bits(out), all_melded }
}

/// Cards of `h` whose discard leaves deadwood at most `limit` (the discards that allow a
/// knock, or with `limit` 0, gin).
pub fn knock_discards(h: CardSet, limit: u32) -> CardSet {
    knock_options(h, limit).discards
}

/// Cards whose value is at least `v`.
const fn at_least(v: u32) -> u64 {
    if v <= 1 {
        return crate::cardset::FULL;
    }
    if v > 10 {
        return 0;
    }
    // Ranks with value >= v: indices v-1 ..= 12.
    let lane = LANE & !((1u64 << (v - 1)) - 1);
    lane * RANK0
}

/// True when every card of `h` is in some meld at once (10 cards: gin; 11 cards: big gin).
pub fn all_melded(h: CardSet) -> bool {
    deadwood(h) == 0
}

/// Melds and deadwood cards: one way to lay a hand down.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Arrangement {
    melds: Vec<Meld>,
    deadwood: CardSet,
}

/// Why a proposed arrangement is not one of a given hand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArrangementError {
    /// A meld holds a card that is not in the hand.
    NotInHand(Card),
    /// Two melds share a card.
    Overlap(Card),
}

impl std::fmt::Display for ArrangementError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArrangementError::NotInHand(c) => write!(f, "meld card {c} is not in the hand"),
            ArrangementError::Overlap(c) => write!(f, "card {c} is in two melds"),
        }
    }
}

impl std::error::Error for ArrangementError {}

impl Arrangement {
    /// The arrangement of `hand` that lays down exactly `melds` (validated: the melds must be
    /// disjoint and inside the hand).
    pub fn new(hand: CardSet, melds: Vec<Meld>) -> Result<Arrangement, ArrangementError> {
        let mut used = CardSet::EMPTY;
        for m in &melds {
            if let Some(c) = (m.cards() - hand).first() {
                return Err(ArrangementError::NotInHand(c));
            }
            if let Some(c) = (m.cards() & used).first() {
                return Err(ArrangementError::Overlap(c));
            }
            used |= m.cards();
        }
        let mut melds = melds;
        melds.sort();
        Ok(Arrangement { melds, deadwood: hand - used })
    }

    fn from_masks(hand: CardSet, masks: &[u64]) -> Arrangement {
        let mut melds: Vec<Meld> = masks
            .iter()
            .map(|&b| Meld::new(CardSet::from_bits(b)).expect("solver produces valid melds"))
            .collect();
        melds.sort();
        let used = masks.iter().fold(0, |a, &b| a | b);
        Arrangement { melds, deadwood: CardSet::from_bits(hand.bits() & !used) }
    }

    /// The melds, in a fixed order.
    pub fn melds(&self) -> &[Meld] {
        &self.melds
    }

    /// Cards in no meld.
    pub fn deadwood_cards(&self) -> CardSet {
        self.deadwood
    }

    /// Value of the deadwood cards.
    pub fn deadwood(&self) -> u32 {
        self.deadwood.value()
    }

    /// All cards of the arrangement.
    pub fn cards(&self) -> CardSet {
        self.melds.iter().fold(self.deadwood, |a, m| a | m.cards())
    }

    /// Cards that could be laid off directly onto some meld of this arrangement.
    pub fn layoff_spots(&self) -> CardSet {
        self.melds.iter().fold(CardSet::EMPTY, |a, m| a | m.layoff_spots())
    }
}

impl std::fmt::Display for Arrangement {
    /// `[7C 7D 7H] [3S 4S 5S] | AH 2D 7S`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, m) in self.melds.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "[{m}]")?;
        }
        if !self.deadwood.is_empty() {
            if !self.melds.is_empty() {
                f.write_str(" ")?;
            }
            write!(f, "| {}", self.deadwood)?;
        }
        Ok(())
    }
}

/// A minimum-deadwood arrangement of `h` (the first found in the solver's fixed order).
///
/// ```
/// use engine::{best_arrangement, hand};
/// let a = best_arrangement(hand("7C 7D 7H 3S 4S 5S 2D 9S AH"));
/// assert_eq!(a.deadwood(), 12);
/// assert_eq!(a.to_string(), "[7C 7D 7H] [3S 4S 5S] | 2D AH 9S");
/// ```
pub fn best_arrangement(h: CardSet) -> Arrangement {
    let hb = h.bits();
    let mut best = (u32::MAX, [0u64; MAX_MELDS], 0usize);
    for_each_family(h, |melded, melds| {
        let dw = value(hb & !melded);
        if dw < best.0 {
            best.0 = dw;
            best.1[..melds.len()].copy_from_slice(melds);
            best.2 = melds.len();
        }
    });
    Arrangement::from_masks(h, &best.1[..best.2])
}

/// Every minimum-deadwood arrangement of `h`, in the solver's fixed order.
pub fn min_arrangements(h: CardSet) -> Vec<Arrangement> {
    let hb = h.bits();
    let mut best = u32::MAX;
    let mut out: Vec<Arrangement> = Vec::new();
    for_each_family(h, |melded, melds| {
        let dw = value(hb & !melded);
        if dw < best {
            best = dw;
            out.clear();
        }
        if dw == best {
            out.push(Arrangement::from_masks(h, melds));
        }
    });
    out
}

/// The best discard from a hand (normally 11 cards) and the arrangement of what is left.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BestDiscard {
    /// The card to discard.
    pub discard: Card,
    /// A minimum-deadwood arrangement of the hand without the discard.
    pub arrangement: Arrangement,
}

impl BestDiscard {
    /// Deadwood left after the discard.
    pub fn deadwood(&self) -> u32 {
        self.arrangement.deadwood()
    }
}

/// The discard that leaves the least deadwood. Among equal discards: the family found first
/// by the solver, then the highest-value unmelded card, then the highest card in bit order
/// (spades before hearts before diamonds before clubs). `None` for an empty hand.
///
/// ```
/// use engine::{best_discard, hand};
/// let b = best_discard(hand("7C 7D 7H 3S 4S 5S 2D 9S AH KC QD")).unwrap();
/// assert_eq!(b.deadwood(), 22);
/// assert_eq!(b.discard.to_string(), "QD");
/// ```
pub fn best_discard(h: CardSet) -> Option<BestDiscard> {
    let hb = h.bits();
    let mut best: Option<(u32, u64, [u64; MAX_MELDS], usize)> = None;
    for_each_family(h, |melded, melds| {
        let u = hb & !melded;
        if u == 0 {
            return;
        }
        let us = CardSet::from_bits(u);
        let top = us.max_value();
        let dw = us.value() - top;
        if best.as_ref().is_none_or(|b| dw < b.0) {
            // Highest bit among the cards of the top value.
            let tops = u & at_least(top);
            let d = 1u64 << (63 - tops.leading_zeros());
            let mut stack = [0u64; MAX_MELDS];
            stack[..melds.len()].copy_from_slice(melds);
            best = Some((dw, d, stack, melds.len()));
        }
    });
    let (_, d, stack, n) = best?;
    let card = Card::from_bit(d.trailing_zeros() as u8).expect("discard is a card");
    Some(BestDiscard { discard: card, arrangement: Arrangement::from_masks(h.without(card), &stack[..n]) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cardset::hand;

    #[test]
    fn table() {
        let cases: &[(&str, u32)] = &[
            ("", 0),
            // wikiHow's knock lists a set of 7s and "a 7" beside it: with one deck that 7
            // joins the set, so the minimum is 3 (the declared-arrangement case is in hand tests).
            ("7C 7D 7H 3S 4S 5S 2D 7S AH", 3),
            // 7-8-9 run against a set of 8s: both tried.
            ("7S 8S 9S 8C 8D", 8 + 8),
            ("7S 8S 9S 8C 8D 8H", 0),
            // Sets of 7s and 8s beat the run: only 9S is left.
            ("7S 8S 9S 8C 8D 8H 7C 7D", 9),
            ("AC 2C 3C 4C 5C 6C 7C 8C 9C TC", 0),
            ("QS KS AS", 21),
            ("KS AS 2S", 13),
            ("AC AD AH AS 2C 3C", 0),
            ("AC AD AH AS 2C 3C 2D 3D", 2),
            ("KC KD KH KS QC QD QH JC JD JH", 0),
            ("2C 3C 4C 5C 5D 5H 6C", 6),
            ("5C 5D 5H 5S 4C 6C 3S 4S 6S 7S", 10),
        ];
        for &(h, want) in cases {
            assert_eq!(deadwood(hand(h)), want, "{h}");
            assert_eq!(best_arrangement(hand(h)).deadwood(), want, "{h}");
        }
    }

    #[test]
    fn best_discard_and_by_discard_agree() {
        let h = hand("7C 7D 7H 3S 4S 5S 2D 7S AH KC QD");
        let t = deadwood_by_discard(h);
        let min = h.iter().map(|c| t[c.bit() as usize] as u32).min().unwrap();
        for c in h {
            assert_eq!(t[c.bit() as usize] as u32, deadwood(h.without(c)), "{c}");
        }
        assert_eq!(deadwood_after_best_discard(h), Some(min));
        let b = best_discard(h).unwrap();
        assert_eq!(b.deadwood(), min);
        assert_eq!(deadwood(h.without(b.discard)), min);
        assert_eq!(b.discard, crate::card::card("QD"));
    }

    #[test]
    fn knock_discards_match_definition() {
        let h = hand("7C 7D 7H 3S 4S 5S 2D 7S AH KC JD");
        for limit in [0, 5, 10, 20, 40] {
            let want: CardSet = h.iter().filter(|&c| deadwood(h.without(c)) <= limit).collect();
            assert_eq!(knock_discards(h, limit), want, "limit {limit}");
        }
    }

    #[test]
    fn big_gin_detection() {
        assert!(all_melded(hand("AC 2C 3C 4C 5D 5H 5S 9H 9S 9D 9C")));
        assert!(!all_melded(hand("AC 2C 3C 4C 5D 5H 5S 9H 9S 9D TC")));
    }

    #[test]
    fn min_arrangements_lists_ties() {
        // 8C 8D 8H + 7S 8S 9S: both ways use the 8S or not; deadwood equal for both splits.
        let all = min_arrangements(hand("7S 8S 9S 8C 8D 8H"));
        assert_eq!(all.iter().map(Arrangement::deadwood).collect::<Vec<_>>(), vec![0]);
        let all = min_arrangements(hand("8S 8C 8D 8H 7S 9S"));
        assert!(all.iter().all(|a| a.deadwood() == 0));
        // A 6-card run: one run of 6, or two runs of 3.
        let all = min_arrangements(hand("3S 4S 5S 6S 7S 8S"));
        assert_eq!(all.len(), 2);
    }
}
