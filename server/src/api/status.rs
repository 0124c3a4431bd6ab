//! The one mapping from the server's errors to gRPC statuses: the code a client branches on,
//! and the message it shows.
//!
//!
//! The code, and the error's text as the message; an `UNAVAILABLE` (nothing was applied:
//! send it again) carries `retry-after-ms` (`not_done`). Callers inside the server branch on
//! the error's variant, never on a code or a message.

use tonic::{Code, Status};

use crate::game::GameError;
use crate::storage::StoreError;

/// The gRPC code of each kind of game error.
pub fn code(e: &GameError) -> Code {
    match e {
        GameError::NotFound(_) => Code::NotFound,
        // Retried (through the proxy, or at that address) it reaches the game's server.
        GameError::Elsewhere { .. } | GameError::Moving(_) => Code::Unavailable,
        GameError::UnknownToken => Code::Unauthenticated,
        GameError::Poisoned => Code::Unavailable,
        // The store was closed under the action (the server is stopping, or gave its games
        // up): nothing was committed, so the action may be sent again, where the game is
        // rebuilt from what was.
        GameError::Storage(StoreError::Closed) => Code::Unavailable,
        // In a cluster: this server's lease ran out, its writes were refused (nothing was
        // committed); the game is another server's now, where the retry goes.
        GameError::Storage(StoreError::LeaseLost) => Code::Unavailable,
        GameError::Stale { .. } => Code::Aborted,
        GameError::Over
        | GameError::NoMorePlayers
        | GameError::NotStarted
        | GameError::Illegal(_)
        | GameError::Refused(_)
        | GameError::NotNow(_)
        | GameError::SeatTaken(_)
        | GameError::Full
        | GameError::FixedDeals => Code::FailedPrecondition,
        GameError::Invalid(_) => Code::InvalidArgument,
        GameError::Quota(_) => Code::ResourceExhausted,
        GameError::Storage(_) | GameError::Replay { .. } | GameError::Internal(_) => Code::Internal,
    }
}

impl From<GameError> for Status {
    /// Every `UNAVAILABLE` of a game error was refused before anything was applied (see
    /// [`GameError`]): it carries `retry-after-ms` ([`not_done`]), so a client retries even a
    /// call it may not repeat blindly (`CreateGame`).
    fn from(e: GameError) -> Status {
        match code(&e) {
            Code::Unavailable => not_done(e.to_string()),
            code => Status::new(code, e.to_string()),
        }
    }
}

/// How long a client waits before retrying a call refused with [`not_done`]: about the time
/// another server takes to claim a lapsed server's games (a third of a lease, 1 s by default),
/// or a restarting server to come back; the client's backoff adds to it.
pub const RETRY_AFTER: std::time::Duration = std::time::Duration::from_millis(250);

/// `UNAVAILABLE` for a call this server refused before doing anything (its lease may have
/// run out, the game is moving to another server, the store is closing): with the metadata
/// `retry-after-ms` ([`RETRY_AFTER`]), which tells a client that nothing was done, so the call may be
/// sent again, even one that is not repeated blindly after a dropped connection
/// (`CreateGame`, `JoinGame`). A rate limit's refusal carries the same key.
pub fn not_done(message: impl Into<String>) -> Status {
    let mut s = Status::unavailable(message);
    s.metadata_mut().insert("retry-after-ms", RETRY_AFTER.as_millis().to_string().parse().expect("digits"));
    s
}

impl From<StoreError> for Status {
    fn from(e: StoreError) -> Status {
        GameError::from(e).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texts and codes clients saw before the errors were typed stay the same.
    #[test]
    fn each_error_keeps_its_code_and_text() {
        let cases = [
            (GameError::NotFound("ab".into()), Code::NotFound, "no game \"ab\""),
            (GameError::UnknownToken, Code::Unauthenticated, "unknown seat token"),
            (
                GameError::Stale { expected: 3, at: 5 },
                Code::Aborted,
                "stale expected_seq 3: the game is at seq 5; nothing was applied",
            ),
            (GameError::Over, Code::FailedPrecondition, "the game is over"),
            (GameError::SeatTaken(1), Code::FailedPrecondition, "seat 1 is taken"),
            (
                GameError::Quota(7),
                Code::ResourceExhausted,
                "at most 7 unfinished games per caller (tournament games included)",
            ),
            (GameError::Storage(StoreError::Io("disk".into())), Code::Internal, "storage: "),
            (GameError::Storage(StoreError::Closed), Code::Unavailable, "storage: store closed"),
            (
                GameError::Storage(StoreError::LeaseLost),
                Code::Unavailable,
                "storage: this server's lease ran out",
            ),
            (
                GameError::NotNow("the upcard is offered only on the first turn"),
                Code::FailedPrecondition,
                "not now: the upcard is offered only on the first turn",
            ),
        ];
        for (e, code, text) in cases {
            let s = Status::from(e);
            assert_eq!(s.code(), code, "{s:?}");
            // Nothing was done: an UNAVAILABLE says so, for clients that may not repeat blindly.
            assert_eq!(s.metadata().get("retry-after-ms").is_some(), code == Code::Unavailable, "{s:?}");
            assert!(s.message().starts_with(text), "{:?} vs {text:?}", s.message());
        }
    }
}
