//! The defender's best play after a knock: its own melds plus layoffs onto the knocker's melds.

use serde::{Deserialize, Serialize};

use crate::card::Card;
use crate::cardset::{CardSet, LANE};
use crate::meld::{Meld, MeldKind};
use crate::solver::{Arrangement, best_arrangement, deadwood};

/// One card laid off by the defender onto one of the knocker's melds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Layoff {
    /// The card laid off.
    pub card: Card,
    /// Index of the knocker's meld it goes onto (in the knocker's arrangement order).
    pub meld: usize,
}

/// What the defender lays down after a knock.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Defense {
    /// The defender's own melds and remaining deadwood (laid-off cards excluded).
    pub arrangement: Arrangement,
    /// Cards laid off onto the knocker's melds, in the order they can be played.
    pub layoffs: Vec<Layoff>,
}

impl Defense {
    /// The defender's deadwood after layoffs.
    pub fn deadwood(&self) -> u32 {
        self.arrangement.deadwood()
    }
}

/// The groups of defender cards that could be laid off onto `meld` together: for a 3-card
/// set the missing card, for a run every (cards below, cards above) pair of contiguous
/// extensions. Always starts with the empty group. Cards are in play order.
fn options(defender: CardSet, meld: Meld) -> Vec<Vec<Card>> {
    let mut out = vec![Vec::new()];
    let b = meld.cards().bits();
    match meld.kind() {
        MeldKind::Set => {
            for c in meld.layoff_spots() & defender {
                out.push(vec![c]);
            }
        }
        MeldKind::Run => {
            let lane = b.trailing_zeros() / 16;
            let mask = LANE << (lane * 16);
            let d = defender.bits() & mask;
            let mut downs: Vec<Vec<Card>> = vec![Vec::new()];
            let mut lo = b & b.wrapping_neg();
            while lo >> 1 & mask & d != 0 {
                lo >>= 1;
                let mut g = downs.last().cloned().unwrap_or_default();
                g.push(Card::from_bit(lo.trailing_zeros() as u8).expect("card bit"));
                downs.push(g);
            }
            let mut ups: Vec<Vec<Card>> = vec![Vec::new()];
            let mut hi = 1u64 << (63 - b.leading_zeros());
            while hi << 1 & mask & d != 0 {
                hi <<= 1;
                let mut g = ups.last().cloned().unwrap_or_default();
                g.push(Card::from_bit(hi.trailing_zeros() as u8).expect("card bit"));
                ups.push(g);
            }
            out.clear();
            for dn in &downs {
                for up in &ups {
                    out.push(dn.iter().chain(up).copied().collect());
                }
            }
        }
    }
    out
}

/// The defender's melds and layoffs that leave it the least deadwood, onto the knocker's
/// `melds`. Exact: every combination of layoff groups is tried with the solver on the rest.
/// Among equal results the first in a fixed order wins (fewer layoffs on earlier melds first).
pub fn best_defense(defender: CardSet, melds: &[Meld]) -> Defense {
    // No card of the defender fits any of the melds (most defences): every meld's only
    // option is the empty group, and the search would answer the defender's own best
    // arrangement with no lay-off.
    if melds.iter().all(|m| (m.layoff_spots() & defender).is_empty()) {
        return Defense { arrangement: best_arrangement(defender), layoffs: Vec::new() };
    }
    search(defender, melds)
}

/// [`best_defense`] by trying every combination of lay-off groups.
fn search(defender: CardSet, melds: &[Meld]) -> Defense {
    let opts: Vec<Vec<Vec<Card>>> = melds.iter().map(|&m| options(defender, m)).collect();
    let mut idx = vec![0usize; melds.len()];
    let mut best: Option<(u32, Vec<usize>)> = None;
    loop {
        let mut used = CardSet::EMPTY;
        let mut ok = true;
        for (m, &i) in idx.iter().enumerate() {
            for &c in &opts[m][i] {
                ok &= used.insert(c);
            }
        }
        if ok {
            let dw = deadwood(defender - used);
            if best.as_ref().is_none_or(|b| dw < b.0) {
                best = Some((dw, idx.clone()));
            }
        }
        // Next combination (odometer).
        let mut k = 0;
        loop {
            if k == idx.len() {
                let (_, choice) = best.expect("the empty combination is always valid");
                let mut layoffs = Vec::new();
                let mut laid = CardSet::EMPTY;
                for (m, &i) in choice.iter().enumerate() {
                    for &c in &opts[m][i] {
                        layoffs.push(Layoff { card: c, meld: m });
                        laid.insert(c);
                    }
                }
                return Defense { arrangement: best_arrangement(defender - laid), layoffs };
            }
            idx[k] += 1;
            if idx[k] < opts[k].len() {
                break;
            }
            idx[k] = 0;
            k += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::card;
    use crate::cardset::hand;

    fn melds(s: &[&str]) -> Vec<Meld> {
        s.iter().map(|m| m.parse().unwrap()).collect()
    }

    #[test]
    fn wikihow_layoffs() {
        // Knocker: set of 7s and 3-4-5 of spades; the defender may add the 7, the 2 or 6 of
        // spades, and keep going up the run (6 then 7 of spades).
        let k = melds(&["7C 7D 7H", "3S 4S 5S"]);
        let d = best_defense(hand("7S 2S 6S KD QD JD 9C 9H 2H 4C"), &k);
        let laid: CardSet = d.layoffs.iter().map(|l| l.card).collect();
        assert_eq!(laid, hand("7S 2S 6S"));
        assert_eq!(d.arrangement.to_string(), "[JD QD KD] | 4C 9C 2H 9H");
        assert_eq!(d.deadwood(), 24);
        // Several in a row onto one run: 6S then 7S, and the set takes no 7 since 7S is used.
        let d = best_defense(hand("6S 7S KD"), &melds(&["3S 4S 5S"]));
        assert_eq!(d.layoffs.iter().map(|l| l.card).collect::<Vec<_>>(), vec![card("6S"), card("7S")]);
        assert_eq!(d.deadwood(), 10);
    }

    #[test]
    fn own_meld_beats_layoff_when_better() {
        // 6S could go on the knocker's run, but 6S 6H 6D is a set of the defender's own: either
        // way it is melded; the 6H 6D stay only in the set.
        let d = best_defense(hand("6S 6H 6D 9C"), &melds(&["3S 4S 5S"]));
        assert_eq!(d.deadwood(), 9);
        // 4th card onto a set; none onto a 4-card set.
        let d = best_defense(hand("7S KC"), &melds(&["7C 7D 7H"]));
        assert_eq!(d.deadwood(), 10);
        let d = best_defense(hand("8S KC"), &melds(&["8C 8D 8H"]));
        assert_eq!(d.layoffs.len(), 1);
        let d = best_defense(hand("KC"), &melds(&["8C 8D 8H 8S"]));
        assert!(d.layoffs.is_empty());
    }

    /// The shortcut (no card fits any meld) answers as the search does.
    #[test]
    fn no_fitting_card_answers_as_the_search() {
        let all: Vec<Meld> = ["3S 4S 5S", "7C 7D 7H", "9D TD JD QD", "KC KD KH KS", "AH 2H 3H", "JC QC KC"]
            .iter()
            .map(|m| m.parse().unwrap())
            .collect();
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut shortcuts = 0;
        for _ in 0..5000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let melds: Vec<Meld> =
                all.iter().enumerate().filter(|&(k, _)| x >> (52 + k) & 1 == 0).map(|(_, &m)| m).collect();
            let taken = melds.iter().fold(CardSet::EMPTY, |a, m| a | m.cards());
            let defender = CardSet::from_bits(x & x >> 9) - taken;
            if melds.iter().all(|m| (m.layoff_spots() & defender).is_empty()) {
                shortcuts += 1;
            }
            assert_eq!(best_defense(defender, &melds), search(defender, &melds), "{defender} {melds:?}");
        }
        assert!(shortcuts > 100, "{shortcuts}");
    }

    #[test]
    fn two_runs_growing_toward_each_other_share_no_card() {
        let d = best_defense(hand("6S 8S"), &melds(&["3S 4S 5S", "9S TS JS"]));
        assert_eq!(d.deadwood(), 0);
        assert_eq!(
            d.layoffs,
            vec![Layoff { card: card("6S"), meld: 0 }, Layoff { card: card("8S"), meld: 1 }]
        );
        // 7S fits either run once 6S or 8S is laid, but only once.
        let d = best_defense(hand("6S 7S 8S 9H"), &melds(&["3S 4S 5S", "9S TS JS"]));
        assert_eq!(d.deadwood(), 9);
    }
}
