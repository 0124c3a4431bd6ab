//! Turn clocks: when a seat's time runs out, the game's policy applies (auto-play or
//! forfeit), so a vanished client never stalls its opponent past the clock.

use std::time::Duration;

use engine::{Action, Seat};
use gin_proto::v1 as pb;

use crate::shared::{Shared, now_ms};
use crate::state::{EarlyEnd, GameState};
use crate::storage::ActionKind;

/// Starts the timer of the current turn, if the game has a clock and someone is to act.
/// Call with the game's lock held, after a change was made durable and published.
pub fn arm(shared: &Shared, st: &GameState) {
    if st.info.clock.turn_millis == 0 || st.deadline_ms == 0 || st.to_act().is_none() {
        return;
    }
    let shared = shared.clone();
    let id = st.info.id.clone();
    let token = st.turn_token;
    let wait = Duration::from_millis((st.deadline_ms - now_ms()).max(0) as u64);
    tokio::spawn(async move {
        tokio::time::sleep(wait).await;
        if let Err(e) = expire(&shared, &id, token).await {
            tracing::warn!(game = %id, "clock expiry failed: {e}");
        }
    });
}

/// The auto-play move for the seat to act: decline the upcard, draw from the stock, or
/// discard the legal card that leaves the least deadwood (the higher card on ties).
pub fn auto_action(hand: &engine::Hand, seat: Seat) -> Action {
    let legal = hand.legal();
    if legal.pass {
        return Action::Pass;
    }
    if legal.draw_stock {
        return Action::DrawStock;
    }
    let by = engine::deadwood_by_discard(hand.cards(seat));
    let card = legal
        .discards
        .iter()
        .min_by_key(|c| (by[c.bit() as usize], std::cmp::Reverse((c.value(), c.bit()))))
        .expect("a seat to discard holds cards");
    Action::Discard { card }
}

async fn expire(shared: &Shared, id: &str, token: u64) -> Result<(), tonic::Status> {
    let cell = shared.game(id).await?;
    let mut st = cell.state.lock().await;
    if st.turn_token != token || st.poisoned {
        return Ok(());
    }
    let Some(seat) = st.to_act() else { return Ok(()) };
    let before = st.last_seq();
    let now = now_ms();
    match pb::ClockPolicy::try_from(st.info.clock.policy).unwrap_or(pb::ClockPolicy::AutoPlay) {
        pb::ClockPolicy::Forfeit => st.end_early(EarlyEnd::Forfeit(seat), now)?,
        _ => {
            let action = auto_action(st.game.as_ref().expect("a seat to act means a game").hand(), seat);
            st.play(seat, &action, ActionKind::Timeout, now)?;
        }
    }
    tracing::info!(game = %id, seat = %seat, "turn clock ran out");
    let writes = std::mem::take(&mut st.pending);
    if let Err(e) = shared.store.write(writes).await {
        st.poisoned = true;
        return Err(tonic::Status::internal(format!("storage: {e}")));
    }
    st.publish(before);
    if st.is_over() {
        shared.game_ended(&st);
    }
    arm(shared, &st);
    crate::house::arm(shared, &mut st);
    Ok(())
}
