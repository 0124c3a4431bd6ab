//! The strategy interface: a synchronous function of what one seat may see to an action.
//!
//! The same strategy runs in local self-play ([`crate::local`]), as the server's house bot
//! and on the network (the `gin-sdk` crate): each builds a [`Decision`] from the seat's own
//! view only.

use engine::{Action, BySeat, Card, CardSet, Game, Legal, RuleSet, Seat};

use crate::memory::Memory;
use crate::styles::{Style, StyleStrategy};

/// What kind of choice a decision is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Take the upcard or pass (first turn, rule sets with the offer).
    Offer,
    /// Draw from the stock or take the pile's top.
    Draw,
    /// Discard, knock or big gin.
    Discard,
}

/// Everything a seat may see when it has to act.
#[derive(Clone, Copy, Debug)]
pub struct Decision<'a> {
    /// The seat to act.
    pub seat: Seat,
    /// The rules of the game.
    pub rules: &'a RuleSet,
    /// The seat's cards (11 when it must discard).
    pub hand: CardSet,
    /// The face-up pile, bottom first.
    pub pile: &'a [Card],
    /// Cards left in the stock.
    pub stock_len: u32,
    /// The card taken from the pile this turn (it may not be discarded).
    pub taken: Option<Card>,
    /// The knock limit of this hand.
    pub knock_limit: u32,
    /// The legal actions.
    pub legal: Legal,
    /// Stage scores (hand points so far).
    pub scores: BySeat<u32>,
    /// The seat's memory of the hand in play.
    pub memory: &'a Memory,
}

impl<'a> Decision<'a> {
    /// The decision of `memory`'s seat in `game`, when that seat is to act: read from the
    /// engine's state of that seat only (its cards, the pile, the stock's size, the card
    /// taken, the knock limit, its legal actions, the scores), never the other hand or the
    /// stock. Local play and the server's house bots build their decisions here.
    #[inline]
    pub fn of(game: &'a Game, memory: &'a Memory) -> Option<Decision<'a>> {
        let seat = game.to_act().filter(|&s| s == memory.seat)?;
        let h = game.hand();
        Some(Decision {
            seat,
            rules: game.rules(),
            hand: h.cards(seat),
            pile: h.pile(),
            stock_len: h.stock_len() as u32,
            taken: h.taken_from_pile(),
            knock_limit: h.knock_limit(),
            legal: h.legal(),
            scores: game.scores(),
            memory,
        })
    }

    /// This decision without its borrows, but the rules and the memory: to decide later,
    /// away from the game ([`Turn::decision`]).
    pub fn to_turn(&self) -> Turn {
        Turn {
            seat: self.seat,
            hand: self.hand,
            pile: self.pile.to_vec(),
            stock_len: self.stock_len,
            taken: self.taken,
            knock_limit: self.knock_limit,
            legal: self.legal,
            scores: self.scores,
        }
    }
}

impl Decision<'_> {
    /// What is to be chosen.
    pub fn choice(&self) -> Choice {
        if self.legal.pass {
            Choice::Offer
        } else if self.legal.draw_stock || self.legal.draw_pile {
            Choice::Draw
        } else {
            Choice::Discard
        }
    }

    /// The top of the pile, if any.
    pub fn pile_top(&self) -> Option<Card> {
        self.pile.last().copied()
    }

    /// The action to decline the pile's top: pass during the offer, else draw from the stock.
    pub fn decline(&self) -> Action {
        if self.legal.pass { Action::Pass } else { Action::DrawStock }
    }

    /// The opponent.
    pub fn opponent(&self) -> Seat {
        self.seat.other()
    }
}

/// A [`Decision`] as owned data, without the rules and the memory (which whoever decides
/// keeps): taken while the game is at hand, decided on later, away from it. The server's
/// house bots take one under the game's lock ([`Decision::of`], then [`Decision::to_turn`])
/// and decide on another thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Turn {
    /// The seat to act.
    pub seat: Seat,
    /// The seat's cards.
    pub hand: CardSet,
    /// The face-up pile, bottom first.
    pub pile: Vec<Card>,
    /// Cards left in the stock.
    pub stock_len: u32,
    /// The card taken from the pile this turn.
    pub taken: Option<Card>,
    /// The knock limit of this hand.
    pub knock_limit: u32,
    /// The legal actions.
    pub legal: Legal,
    /// Stage scores.
    pub scores: BySeat<u32>,
}

impl Turn {
    /// The decision of this turn, with the game's `rules` and the seat's `memory`.
    pub fn decision<'a>(&'a self, rules: &'a RuleSet, memory: &'a Memory) -> Decision<'a> {
        Decision {
            seat: self.seat,
            rules,
            hand: self.hand,
            pile: &self.pile,
            stock_len: self.stock_len,
            taken: self.taken,
            knock_limit: self.knock_limit,
            legal: self.legal,
            scores: self.scores,
            memory,
        }
    }
}

/// A bot strategy. One value plays one seat of one game at a time; it may keep state across
/// decisions (a new hand shows as a new `memory.hand_number`).
pub trait Strategy: Send {
    /// The strategy's name.
    fn name(&self) -> &str;
    /// The action to take. It must be one of `d.legal` (a knock may name its melds).
    fn act(&mut self, d: &Decision<'_>) -> Action;
    /// The server refused the melds `action` named (a knock or big gin), saying `reason`:
    /// the action to send instead, for the same turn `d`. By default the same knock with
    /// the melds left to the server (its minimum-deadwood arrangement).
    fn melds_refused(&mut self, d: &Decision<'_>, action: &Action, reason: &str) -> Action {
        let _ = (d, reason);
        server_melds(action)
    }
}

/// `action` with its melds left to the server: a knock or big gin naming none.
pub fn server_melds(action: &Action) -> Action {
    match action {
        Action::Knock { discard, .. } => Action::knock(*discard),
        Action::BigGin { .. } => Action::BigGin { melds: None },
        a => a.clone(),
    }
}

/// Whether `action` is one of `legal` (a knock's named melds are for the server to check).
pub fn is_listed(legal: &Legal, action: &Action) -> bool {
    use Action as A;
    match action {
        A::Pass => legal.pass,
        A::DrawStock => legal.draw_stock,
        A::DrawPile => legal.draw_pile,
        A::Discard { card } => legal.discards.contains(*card),
        A::Knock { discard, .. } => legal.knocks.contains(*discard),
        A::BigGin { .. } => legal.big_gin,
    }
}

/// A safe legal action for `d`, used when a strategy returns an illegal one: decline the
/// upcard or draw from the stock; else the discard that leaves the least deadwood.
pub fn fallback(d: &Decision<'_>) -> Action {
    use Action as A;
    let l = &d.legal;
    if l.pass {
        return A::Pass;
    }
    if l.draw_stock {
        return A::DrawStock;
    }
    if l.draw_pile {
        return A::DrawPile;
    }
    let by = engine::deadwood_by_discard(d.hand);
    match l.discards.iter().min_by_key(|c| (by[c.bit() as usize], std::cmp::Reverse(c.value()))) {
        Some(card) => A::Discard { card },
        None if l.big_gin => A::BigGin { melds: None },
        None => l.knocks.iter().next().map_or(A::DrawStock, A::knock),
    }
}

/// Strategy names accepted by [`by_name`].
pub const STRATEGIES: [&str; 8] =
    ["random", "simple", "strong", "strong-v1", "strong-v2", "gin-hunter", "early-knocker", "defensive"];

/// The strategy called `name`, its choices seeded by `seed`.
pub fn by_name(name: &str, seed: u64) -> Result<Box<dyn Strategy>, UnknownStrategy> {
    Ok(match name {
        "random" => Box::new(crate::random::RandomStrategy::new(seed)),
        "simple" => Box::new(crate::simple::SimpleStrategy::new(seed)),
        "strong" => Box::new(crate::strong::StrongStrategy::new(seed)),
        "strong-v1" => Box::new(crate::strong_v1::StrongV1Strategy::new(seed)),
        "strong-v2" => Box::new(crate::strong_v2::StrongV2Strategy::new(seed)),
        "gin-hunter" => Box::new(StyleStrategy::new(Style::GinHunter, seed)),
        "early-knocker" => Box::new(StyleStrategy::new(Style::EarlyKnocker, seed)),
        "defensive" => Box::new(StyleStrategy::new(Style::Defensive, seed)),
        // Not in `STRATEGIES` (issue 40's first step, far weaker than `strong`): by name only.
        "learned" => Box::new(crate::learned::LearnedStrategy::new(seed)),
        _ => return Err(UnknownStrategy(name.to_string())),
    })
}

/// A strategy name that [`by_name`] does not know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownStrategy(pub String);

impl std::fmt::Display for UnknownStrategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown strategy {:?}; known: {}", self.0, STRATEGIES.join(", "))
    }
}

impl std::error::Error for UnknownStrategy {}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::hand;

    #[test]
    fn fallback_is_legal() {
        let d = |legal: Legal, h: &str| (legal, hand(h));
        let none = Legal {
            seat: Some(Seat::S0),
            pass: false,
            draw_stock: false,
            draw_pile: false,
            discards: CardSet::EMPTY,
            knocks: CardSet::EMPTY,
            big_gin: false,
        };
        let cases = [
            d(Legal { pass: true, draw_pile: true, ..none }, "AC 2C 3C 4D 5D 6D 7H 8H 9H KS"),
            d(Legal { draw_stock: true, draw_pile: true, ..none }, "AC 2C 3C 4D 5D 6D 7H 8H 9H KS"),
            d(Legal { discards: hand("KS QD AC"), ..none }, "AC 2C 3C 4D 5D 6D 7H 8H 9H KS QD"),
        ];
        let rules = RuleSet::standard();
        let mem = Memory::new(Seat::S0);
        for (legal, h) in cases {
            let dec = Decision {
                seat: Seat::S0,
                rules: &rules,
                hand: h,
                pile: &[],
                stock_len: 31,
                taken: None,
                knock_limit: 10,
                legal,
                scores: BySeat::default(),
                memory: &mem,
            };
            let a = fallback(&dec);
            assert!(is_listed(&legal, &a), "{a} not in {legal:?}");
        }
    }
}
