//! `simple`: the classic competition baseline (Neller's `SimpleGinRummyPlayer`).
//!
//! - Draw: takes the face-up card only if it joins a meld in its best arrangement (taking
//!   it strictly lowers the deadwood it would otherwise add), else draws from the stock (or
//!   passes the upcard).
//! - Discard: a card leaving the least deadwood, at random among ties; never the card just
//!   taken from the pile, and never a (drawn, discarded) pair it already played this hand.
//! - Knock: as soon as it legally may (gin when it can; big gin when the rules have it).

use engine::{Action, Card, CardSet, deadwood, deadwood_by_discard};

use crate::rng::Rng;
use crate::strategy::{Choice, Decision, Strategy};

/// The baseline player.
pub struct SimpleStrategy {
    rng: Rng,
}

impl SimpleStrategy {
    /// A baseline player; `seed` breaks ties between equal discards.
    pub fn new(seed: u64) -> SimpleStrategy {
        SimpleStrategy { rng: Rng::new(seed) }
    }

    /// Uniform among the cards of `among` whose `by_discard` value is least.
    fn least(&mut self, by_discard: &[u8; 64], among: CardSet) -> Option<Card> {
        let mut best = u8::MAX;
        let mut ties = CardSet::EMPTY;
        for c in among {
            let v = by_discard[c.bit() as usize];
            if v < best {
                best = v;
                ties = CardSet::single(c);
            } else if v == best {
                ties.insert(c);
            }
        }
        let n = ties.len();
        if n == 0 {
            return None;
        }
        ties.iter().nth(self.rng.below(n) as usize)
    }
}

/// True when `card` joins a meld of the best arrangement of `hand` + `card`.
pub fn melds_with(hand: CardSet, card: Card) -> bool {
    deadwood(hand.with(card)) < deadwood(hand) + card.value()
}

impl Strategy for SimpleStrategy {
    fn name(&self) -> &str {
        "simple"
    }

    fn act(&mut self, d: &Decision<'_>) -> Action {
        match d.choice() {
            Choice::Offer | Choice::Draw => match d.pile_top() {
                Some(top) if d.legal.draw_pile && melds_with(d.hand, top) => Action::DrawPile,
                _ => d.decline(),
            },
            Choice::Discard => {
                if d.legal.big_gin {
                    return Action::BigGin { melds: None };
                }
                let by = deadwood_by_discard(d.hand);
                if let Some(c) = self.least(&by, d.legal.knocks) {
                    return Action::knock(c);
                }
                let mut allowed = d.legal.discards;
                if let Some(drawn) = d.memory.drawn {
                    for &(a, b) in &d.memory.own_pairs {
                        if a == drawn {
                            allowed.remove(b);
                        }
                    }
                }
                if allowed.is_empty() {
                    allowed = d.legal.discards;
                }
                let c = self.least(&by, allowed).expect("a discard is always legal");
                Action::Discard { card: c }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{card, hand};

    #[test]
    fn melds_with_means_joins_a_meld() {
        let h = hand("7C 7D 3S 4S 9H KD QC 2H 5D AC");
        assert!(melds_with(h, card("7H")));
        assert!(melds_with(h, card("5S")));
        assert!(!melds_with(h, card("JH")));
        // 8D would not meld with anything.
        assert!(!melds_with(h, card("8D")));
    }
}
