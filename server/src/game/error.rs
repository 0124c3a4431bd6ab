//! What can go wrong in a game, as the game layer says it. The API maps each kind to a gRPC
//! status in one place (`api::status`); nothing below the API knows `tonic::Status`, and
//! callers inside the server (house bots, clocks, expiry) branch on the kind, not on a code.
//!
//!
//! One variant per kind: not found, stale seq, over, illegal by the engine, seat taken,
//! quota, storage, …

use crate::storage::StoreError;

/// An error of the game layer. On any of them, nothing was applied.
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    /// No game by that id, in memory or in the store.
    #[error("no game {0:?}")]
    NotFound(String),
    /// In a cluster: another server serves the game (its lease holds).
    #[error("game {id:?} is served by the server at {addr}; call it there (or through the cluster's proxy)")]
    Elsewhere {
        /// The game.
        id: String,
        /// Where its server is reached.
        addr: String,
    },
    /// In a cluster: the game's server lost its lease; another server takes it over within
    /// a third of a lease.
    #[error("game {0:?} is moving to another server (its server's lease ran out); retry in a moment")]
    Moving(String),
    /// A token that is no seat's of the game.
    #[error("unknown seat token")]
    UnknownToken,
    /// The game's last write failed; it takes nothing more until the server restarts.
    #[error("this game hit a storage failure; retry after the server restarts")]
    Poisoned,
    /// The caller's `expected_seq` is not the game's last seq.
    #[error("stale expected_seq {expected}: the game is at seq {at}; nothing was applied")]
    Stale {
        /// What the caller expected.
        expected: u64,
        /// Where the game is.
        at: u64,
    },
    /// An action or an end on a finished game.
    #[error("the game is over")]
    Over,
    /// A seat asked of a finished game.
    #[error("the game is over: it takes no more players")]
    NoMorePlayers,
    /// An action before both seats are taken.
    #[error("the game has not started: a seat is free")]
    NotStarted,
    /// The rules refuse the action (not the seat's turn, a card it does not hold, …).
    #[error("{0}")]
    Illegal(#[from] engine::GameError),
    /// The rules of a format other than two-player gin refuse the move (the reason).
    #[error("{0}")]
    Refused(String),
    /// An action the rules allow, but not through this call (`not now: <why>`).
    #[error("not now: {0}")]
    NotNow(&'static str),
    /// The seat asked for is taken.
    #[error("seat {0} is taken")]
    SeatTaken(u8),
    /// Every seat is taken.
    #[error("the game is full")]
    Full,
    /// A join without accepting the deals the game's creator chose.
    #[error(
        "this game has fixed deals: its creator chose the seed and may know every hand; join with \
         accept_fixed_deals if you agree"
    )]
    FixedDeals,
    /// A field of the request is refused (the message names it).
    #[error("{0}")]
    Invalid(String),
    /// The caller has as many unfinished games as it may.
    #[error("at most {0} unfinished games per caller (tournament games included)")]
    Quota(u32),
    /// The store failed.
    #[error("storage: {0}")]
    Storage(#[from] StoreError),
    /// A stored game whose log does not replay.
    #[error("game {id}: cannot replay its log: {why}")]
    Replay {
        /// The game.
        id: String,
        /// What the replay said.
        why: String,
    },
    /// A task of the server failed (a panic).
    #[error("{0}")]
    Internal(String),
}

impl From<gin_proto::text::TextError> for GameError {
    fn from(e: gin_proto::text::TextError) -> GameError {
        GameError::Invalid(e.to_string())
    }
}
