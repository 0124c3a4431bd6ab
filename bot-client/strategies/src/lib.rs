//! Gin Rummy strategies, on the engine alone: nothing network, no async, no I/O.
//!
//! - [`strategy`]: the [`Strategy`] trait, a synchronous function of what one seat may see
//!   ([`Decision`]) to an action, and the built-in strategies [`random`], [`simple`] and
//!   [`strong`], with [`strong_v1`] (`strong` frozen as it was, the yardstick of its progress),
//!   and opponents of other styles ([`styles`]: `gin-hunter`, `early-knocker`,
//!   `defensive`), by name through [`by_name`].
//! - [`memory`]: what a seat remembers of the hand in play, fed by redacted events.
//! - [`local`] and [`selfplay`]: fast in-process games and matches on all cores, with
//!   duplicate deals; [`stats`]: Elo with its interval, SPRT; [`rng`]: the strategies' seeded
//!   generator and seed derivation.
//!
//! The same strategy plays in local self-play, as the server's house bot and on the network
//! (the `gin-sdk` crate): each builds its [`Decision`] from the seat's own view only.
//! With the `serde` feature, the self-play report and the statistics serialize (for JSON
//! reports).
//!
//! ```
//! use engine::{GameSetup, RuleSet};
//! use gin_strategies::{by_name, local};
//!
//! let mut a = by_name("simple", 1).unwrap();
//! let mut b = by_name("random", 2).unwrap();
//! let game = local::play_game(GameSetup::new(RuleSet::standard(), 7), [a.as_mut(), b.as_mut()]).unwrap();
//! assert!(game.result().is_some());
//! ```

pub mod local;
pub mod memory;
pub mod random;
pub mod rng;
pub mod selfplay;
pub mod simple;
pub mod stats;
pub mod strategy;
pub mod strong;
pub mod strong_v1;
pub mod styles;
pub mod tables;

pub use memory::{Memory, OppShowdown, Seen, Shown};
pub use strategy::{
    Choice, Decision, STRATEGIES, Strategy, Turn, UnknownStrategy, by_name, fallback, is_listed, server_melds,
};
