//! The one mapping from the server's errors to gRPC statuses: the code a client branches on,
//! and the message it shows.

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
    fn from(e: GameError) -> Status {
        Status::new(code(&e), e.to_string())
    }
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
                GameError::NotNow("the upcard is offered only on the first turn"),
                Code::FailedPrecondition,
                "not now: the upcard is offered only on the first turn",
            ),
        ];
        for (e, code, text) in cases {
            let s = Status::from(e);
            assert_eq!(s.code(), code, "{s:?}");
            assert!(s.message().starts_with(text), "{:?} vs {text:?}", s.message());
        }
    }
}
