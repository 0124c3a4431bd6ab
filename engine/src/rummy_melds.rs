//! The best melds of a rummy hand under its rules (ace low, or high: Q-K-A, never K-A-2):
//! the arrangement that leaves the fewest points in hand. An exact search over the melds the
//! cards can form, for `gin analyze` and the bots (hands of a few cards: fast enough).

use crate::cardset::{CardSet, LANE};
use crate::rummy::RummyRules;

/// Melds and the cards left, with their points.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RummyArrangement {
    /// The melds, in a fixed order.
    pub melds: Vec<CardSet>,
    /// The cards in no meld.
    pub left: CardSet,
    /// Their points under the rules.
    pub points: u32,
}

impl RummyRules {
    /// Every meld `cards` can form under these rules (sets of 3 and 4, and their 3-card
    /// subsets; runs of every length).
    pub fn melds_in(&self, cards: CardSet) -> Vec<CardSet> {
        let mut out = Vec::new();
        for r in crate::card::Rank::all() {
            let s = cards & CardSet::rank(r);
            if s.len() >= 3 {
                out.push(s);
                if s.len() == 4 {
                    out.extend(s.iter().map(|c| s.without(c)));
                }
            }
        }
        // Runs: positions 0..=12 are A..K; with aces high, position 13 is the ace again.
        let top = if self.ace_high { 13 } else { 12 };
        for lane in 0..4u32 {
            let bits = (cards.bits() >> (lane * 16)) & LANE;
            let has = |p: u32| bits >> (p % 13) & 1 == 1;
            for lo in 0..=top {
                let mut run = 0u64;
                for p in lo..=top {
                    if !has(p) || (p == 13 && lo == 0) {
                        break;
                    }
                    run |= 1 << ((p % 13) + lane * 16);
                    if p >= lo + 2 {
                        out.push(CardSet::from_bits(run));
                    }
                }
            }
        }
        out
    }

    /// The melds of `cards` that leave the fewest points (ties: the first found).
    pub fn best_melds(&self, cards: CardSet) -> RummyArrangement {
        let melds = self.melds_in(cards);
        let mut best = (u32::MAX, Vec::new());
        let mut chosen = Vec::new();
        self.search(cards, &melds, 0, &mut chosen, &mut best);
        let left = best.1.iter().fold(cards, |a, &m| a - m);
        RummyArrangement { melds: best.1, points: self.points(left), left }
    }

    /// Melds from `melds[from..]` disjoint from the chosen ones; keeps the least points left.
    fn search(
        &self,
        left: CardSet,
        melds: &[CardSet],
        from: usize,
        chosen: &mut Vec<CardSet>,
        best: &mut (u32, Vec<CardSet>),
    ) {
        let here = self.points(left);
        if here < best.0 {
            *best = (here, chosen.clone());
        }
        for (i, &m) in melds.iter().enumerate().skip(from) {
            if left.is_superset(m) {
                chosen.push(m);
                self.search(left - m, melds, i + 1, chosen, best);
                chosen.pop();
            }
        }
    }
}
