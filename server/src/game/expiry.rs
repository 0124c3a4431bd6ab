//! Games nobody plays end, by a stated policy, so what a server holds is bounded by the games
//! someone plays (the book: docs/book/src/operators/fair-play.md, "Games nobody plays end"):
//!
//! - a game that has not started (a seat is free) that nobody joined for
//!   [`Config::open_game_ttl`](crate::Config::open_game_ttl) is **cancelled**: it ends with
//!   no winner (`GAME_END_REASON_CANCELLED`) and leaves the open list;
//! - a started game in which no seat acted itself for
//!   [`Config::idle_game_ttl`](crate::Config::idle_game_ttl) is **abandoned** by its seat to
//!   act: it loses (`GAME_END_REASON_ABANDONED`). A seat acts itself when it joins or sends
//!   an action; a turn clock's move for it does not count, nor the house bot's moves: a game
//!   whose clock plays every turn, or in which the house plays on against a seat nobody
//!   plays, ends too. The house's bot never abandons: when it is to act, the seat that
//!   abandons is the first other one ([`GameState::idle_seat`](super::state::GameState::idle_seat)).
//!   A forfeit clock shorter than the limit acts first.
//!
//! The time counted is the last such act (a game not started: its last event; its creation
//! before any), which a restart replays, so a server that was down does not extend it. Each end is an action in the game's
//! log made through the one commit path ([`act_as`]): durable, published and replayed like
//! any other. The same path calls off a quick-match game whose partner left while both were
//! being seated ([`call_off`]).

use std::time::Duration;

use super::GameError;
use super::commit::act_as;
use super::shared::{Shared, now_ms};
use super::state::EarlyEnd;

/// Ends every game in memory that is due by the policy above (each in a task of its own);
/// returns how many were due. Run every second with the evictions. Games busy at that moment
/// (their lock taken) are looked at next time.
pub fn sweep(s: &Shared) -> usize {
    let (open_ttl, idle_ttl) = (ms(s.cfg.open_game_ttl), ms(s.cfg.idle_game_ttl));
    if open_ttl.is_none() && idle_ttl.is_none() {
        return 0;
    }
    let now = now_ms();
    let mut due = Vec::new();
    for (id, cell) in s.games.read().expect("lock").iter() {
        let Ok(st) = cell.state.try_lock() else { continue };
        if st.is_over() || st.poisoned {
            continue;
        }
        let how = if st.game.is_none() {
            match open_ttl {
                Some(t) if now - st.last_activity_ms() >= t => EarlyEnd::Cancel,
                _ => continue,
            }
        } else {
            match (st.idle_seat(), idle_ttl) {
                (Some(seat), Some(t)) if now - st.last_own_act_ms() >= t => EarlyEnd::Abandon(seat),
                _ => continue,
            }
        };
        due.push((id.clone(), how, st.last_seq()));
    }
    let n = due.len();
    for (id, how, seq) in due {
        let s = s.clone();
        tokio::spawn(async move {
            // Anything that happened since the look above refuses it (stale seq): fine.
            match act_as(&s, &id, 0, seq, move |st, _, now| st.end_early(how, now)).await {
                Ok(_) => tracing::info!(game = %id, ?how, "game ended: nobody played it in time"),
                Err(GameError::Stale { .. }) => {}
                Err(e) => tracing::warn!(game = %id, "ending an idle game failed: {e}"),
            }
        });
    }
    n
}

/// A limit in milliseconds; `None` for zero (no limit).
fn ms(d: Duration) -> Option<i64> {
    (!d.is_zero()).then(|| d.as_millis().min(i64::MAX as u128) as i64)
}

/// Calls off game `id` now: it ends cancelled, with no winner.
pub async fn call_off(s: &Shared, id: &str) {
    // Only the server acts in a game being called off, but a house bot or clock could have:
    // take the seq again then.
    for _ in 0..5 {
        let seq = match s.game(id).await {
            Ok(cell) => {
                let st = cell.state.lock().await;
                if st.is_over() {
                    return;
                }
                st.last_seq()
            }
            Err(_) => return,
        };
        match act_as(s, id, 0, seq, |st, _, now| st.end_early(EarlyEnd::Cancel, now)).await {
            Ok(_) => return,
            Err(GameError::Stale { .. }) => continue,
            Err(e) => {
                tracing::warn!(game = %id, "calling a game off failed: {e}");
                return;
            }
        }
    }
}
