//! Gin Rummy bots.
//!
//! - The strategies, local self-play and statistics live in the `gin-strategies` crate,
//!   re-exported here under their old paths ([`strategy`], [`memory`], [`local`],
//!   [`selfplay`], [`stats`], …).
//! - [`sdk`]: the network bot: any [`Strategy`] plays on a gin server (quick match, games
//!   against house bots, a given seat), resuming dropped streams and retrying transient
//!   failures; [`sdk::play_seat`] plays one seat to game over.
//! - [`bridge`]: a bot program in any language plays through a line protocol on its
//!   stdin/stdout (`gin-bot bridge`).

pub mod bridge;
pub mod entrant;
pub mod sdk;

pub use gin_strategies::{Choice, Decision, Memory, STRATEGIES, Seen, Strategy, UnknownStrategy, by_name};
pub use gin_strategies::{local, memory, random, rng, selfplay, simple, stats, strategy, strong};
