//! `simple`: the classic competition baseline (Neller's `SimpleGinRummyPlayer`).
//!
//! - Draw: takes the face-up card only if it joins a meld in its best arrangement (taking
//!   it strictly lowers the deadwood it would otherwise add), else draws from the stock (or
//!   passes the upcard).
//! - Discard: a card leaving the least deadwood, at random among ties; never the card just
//!   taken from the pile, and never a (drawn, discarded) pair it already played this hand.
//! - Knock: as soon as it legally may (gin when it can; big gin when the rules have it).

use engine::{Action, Card, CardSet, deadwood, deadwood_by_discard, meldable};

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
        // One pass with no branch on the values (branching on each comparison mispredicts):
        // a lower value restarts the ties, an equal one joins them (conditional moves).
        let mut best = u8::MAX;
        let mut ties = 0u64;
        for c in among {
            let v = by_discard[c.bit() as usize];
            ties = if v < best { 0 } else { ties };
            best = best.min(v);
            ties |= ((v == best) as u64) << c.bit();
        }
        let ties = CardSet::from_bits(ties);
        let n = ties.len();
        if n == 0 {
            return None;
        }
        ties.nth(self.rng.below(n))
    }
}

/// True when `card` joins a meld of the best arrangement of `hand` + `card`.
pub fn melds_with(hand: CardSet, card: Card) -> bool {
    let with = hand.with(card);
    // A card in no candidate meld of the hand with it stays deadwood in every arrangement of
    // it: the best one is the hand's own, plus the card (most draws; no search then).
    if !hand.contains(card) && meldable(with.bits()) & 1 << card.bit() == 0 {
        return false;
    }
    deadwood(with) < deadwood(hand) + card.value()
}

impl Strategy for SimpleStrategy {
    fn name(&self) -> &str {
        "simple"
    }

    // Inlined where it is called by its type (`tables::GinPlayer`): its action is then built
    // where it is used, not returned through memory.
    #[inline(always)]
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

    /// The quick refusal (a card in no candidate meld) answers as the definition does.
    #[test]
    fn melds_with_agrees_with_the_deadwood_definition() {
        let mut rng = Rng::new(16);
        for _ in 0..20_000 {
            let mut h = CardSet::EMPTY;
            let size = 6 + rng.below(6);
            while h.len() < size {
                h.insert(Card::from_dense(rng.below(52) as u8).expect("a card"));
            }
            let c = Card::from_dense(rng.below(52) as u8).expect("a card");
            let by_definition = deadwood(h.with(c)) < deadwood(h) + c.value();
            assert_eq!(melds_with(h, c), by_definition, "{h} + {c}");
        }
    }
}
