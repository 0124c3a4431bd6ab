//! Gin Rummy bots.
//!
//! - [`strategy`]: the [`Strategy`] trait, a synchronous function of what one seat may see
//!   ([`Decision`]) to an action, and the built-in strategies [`random`], [`simple`] and
//!   [`strong`], by name through [`by_name`].
//! - [`memory`]: what a seat remembers of the hand in play, fed by redacted events.
//! - [`local`] and [`selfplay`]: fast in-process games and matches on all cores, with
//!   duplicate deals; [`stats`]: Elo with its interval, SPRT.
//! - [`sdk`]: the network bot: any [`Strategy`] plays on a gin server (quick match, games
//!   against house bots, a given seat), resuming dropped streams and retrying transient
//!   failures; [`sdk::play_seat`] plays one seat to game over.
//! - [`bridge`]: a bot program in any language plays through a line protocol on its
//!   stdin/stdout (`gin-bot bridge`).

pub mod bridge;
pub mod entrant;
pub mod local;
pub mod memory;
pub mod random;
pub mod rng;
pub mod sdk;
pub mod selfplay;
pub mod simple;
pub mod stats;
pub mod strategy;
pub mod strong;

pub use memory::{Memory, Seen};
pub use strategy::{Choice, Decision, STRATEGIES, Strategy, UnknownStrategy, by_name};
