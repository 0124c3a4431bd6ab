//! Turn clocks: when a seat's time runs out, the game's policy applies (auto-play or
//! forfeit), so a vanished client never stalls its opponent past the clock.

use std::time::Duration;

use engine::Seat;
use gin_proto::v1 as pb;

use super::GameError;
use super::commit::act_as;
use super::shared::{AfterChange, Shared, now_ms};
use super::state::{EarlyEnd, GameState, auto_action};
use crate::storage::ActionKind;

/// The clock as a hook after every change ([`AfterChange`]): arms the new turn's timer.
pub struct Clock;

impl AfterChange for Clock {
    fn after_change(&self, shared: &Shared, st: &mut GameState) {
        arm(shared, st);
    }
}

/// Starts the timer of the current turn, if the game has a clock and someone is to act.
/// Call with the game's lock held, after a change was made durable and published.
pub fn arm(shared: &Shared, st: &GameState) {
    if st.info.clock.turn_millis == 0 || st.deadline_ms == 0 {
        return;
    }
    let Some(seat) = st.to_act() else { return };
    let shared = shared.clone();
    let id = st.info.id.clone();
    let seq = st.last_seq();
    let wait = Duration::from_millis((st.deadline_ms - now_ms()).max(0) as u64);
    tokio::spawn(async move {
        tokio::time::sleep(wait).await;
        match expire(&shared, &id, seat, seq).await {
            Ok(()) => tracing::info!(game = %id, seat = %seat, "turn clock ran out"),
            // The seat acted in time (or the game stopped taking actions): nothing to do.
            Err(GameError::Stale { .. } | GameError::Poisoned | GameError::Over) => {}
            Err(e) => tracing::warn!(game = %id, "clock expiry failed: {e}"),
        }
    });
}

/// Applies the game's clock policy to `seat`, whose turn began at `seq`, through the commit:
/// a turn that moved on since is refused as stale.
async fn expire(shared: &Shared, id: &str, seat: Seat, seq: u64) -> Result<(), GameError> {
    act_as(shared, id, seat, seq, |st, seat, now| {
        match pb::ClockPolicy::try_from(st.info.clock.policy).unwrap_or(pb::ClockPolicy::AutoPlay) {
            pb::ClockPolicy::Forfeit => st.end_early(EarlyEnd::Forfeit(seat), now),
            _ => {
                let game = st.game.as_ref().ok_or(GameError::NotStarted)?;
                let action = auto_action(game.hand(), seat);
                st.play(seat, &action, ActionKind::Timeout, now)
            }
        }
    })
    .await
    .map(|_| ())
}
