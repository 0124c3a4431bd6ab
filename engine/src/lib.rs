//! The Gin Rummy rules engine: exact, deterministic and fast.
//!
//! Pure: no async, no I/O, no clock, no global RNG. Randomness comes in as a seed.
//!
//! ```
//! use engine::{deadwood, hand};
//! assert_eq!(deadwood(hand("7C 7D 7H 3S 4S 5S 2D 9S AH")), 12);
//! ```

mod card;
mod cardset;
mod meld;
mod solver;

pub use card::{Card, ParseCardError, Rank, Suit, card};
pub use cardset::{CardSet, ParseCardSetError, hand};
pub use meld::{Meld, MeldError, MeldKind};
pub use solver::{
    Arrangement, ArrangementError, BestDiscard, all_melded, best_arrangement, best_discard, deadwood,
    deadwood_after_best_discard, deadwood_by_discard, knock_discards, min_arrangements,
};
