//! Turn clocks: when a seat's time runs out, the game's policy applies (auto-play or
//! forfeit), so a vanished client never stalls its opponent past the clock.
//!
//!
//! A hook ([`AfterChange`]): after a change, a timer for the turn
//! (at other tables one per seat to act, at its turn event's deadline), never sooner than
//! `clock_floor_ms` after a restart. When it runs out, the policy acts through `act_as` at the
//! turn's seq, so a turn that moved on is refused as stale.

use std::time::Duration;

use gin_proto::v1 as pb;

use super::GameError;
use super::commit::act_as;
use super::shared::{AfterChange, Shared, now_ms};
use super::state::{EarlyEnd, GameState, auto_action, auto_move};
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
    if !st.two_player() {
        // Team play has two turns at once, one per table: a timer for each seat to act, at
        // its own turn's deadline (a turn in progress at a restart gets a whole turn again).
        // A move at the other table does not make it stale.
        for seat in st.seats_to_act() {
            if let Some(deadline) = st.turn_deadline(seat) {
                start(shared, st, seat, deadline.max(st.clock_floor_ms));
            }
        }
        return;
    }
    let Some(seat) = st.to_act() else { return };
    start(shared, st, seat, st.deadline_ms);
}

/// A timer that applies the clock's policy to `seat` at `deadline_ms`, unless the game moved
/// on (at `seat`'s table) by then.
fn start(shared: &Shared, st: &GameState, seat: u8, deadline_ms: i64) {
    let shared = shared.clone();
    let id = st.info.id.clone();
    let seq = st.last_seq();
    let wait = Duration::from_millis((deadline_ms - now_ms()).max(0) as u64);
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
async fn expire(shared: &Shared, id: &str, seat: u8, seq: u64) -> Result<(), GameError> {
    act_as(shared, id, seat, seq, |st, seat, now| {
        match pb::ClockPolicy::try_from(st.info.clock.policy).unwrap_or(pb::ClockPolicy::AutoPlay) {
            pb::ClockPolicy::Forfeit => st.end_early(EarlyEnd::Forfeit(seat), now),
            _ => {
                if let Some(g) = st.gin() {
                    let action = auto_action(g.hand(), engine::Seat::new(seat).ok_or(GameError::NotStarted)?);
                    return st.play(seat, &action, ActionKind::Timeout, now);
                }
                let t = st.game.as_ref().ok_or(GameError::NotStarted)?;
                let m = auto_move(t, seat).ok_or(GameError::NotStarted)?;
                st.play_move(seat, &m, ActionKind::Timeout, now)
            }
        }
    })
    .await
    .map(|_| ())
}

#[cfg(test)]
mod tests {
    //! On paused time: a whole minute's clock runs out at once, and exactly when it should.

    use std::sync::Arc;

    use super::*;
    use crate::game::shared::GameCell;
    use crate::game::state::{Entry, LogEvent};
    use crate::storage::{ActionRow, Store};

    const TURN: Duration = Duration::from_secs(60);

    /// A game with a turn clock of [`TURN`] under `policy`, both seats taken: the first
    /// turn's clock is armed. With the tokio time it began, and how far before that turn's
    /// end (at most) the clock may run out: the deadline is Unix time, stamped (and the wait
    /// computed from it) in the real time the seating took.
    async fn clocked_game(
        policy: pb::ClockPolicy,
    ) -> (tempfile::TempDir, Store, Shared, Arc<GameCell>, tokio::time::Instant, Duration) {
        let dir = tempfile::tempdir().unwrap();
        let cfg = crate::config::Config { db: dir.path().join("gin.db"), ..crate::config::Config::default() };
        let (store, stored) = Store::open_sqlite(&cfg.db).unwrap();
        let s = crate::game::open(cfg, store.clone(), stored).unwrap();
        let clock = pb::TurnClock { turn_millis: TURN.as_millis() as u32, policy: policy as i32 };
        let id = s
            .create_game(engine::Format::Gin(engine::RuleSet::standard()), clock, String::new(), 5, None)
            .await
            .unwrap();
        let cell = s.game(&id).await.unwrap();
        s.join(&cell, Some(0), "a".into(), false, true).await.unwrap();
        let (start, wall) = (tokio::time::Instant::now(), now_ms());
        s.join(&cell, Some(1), "b".into(), false, true).await.unwrap();
        let slack = Duration::from_millis((now_ms() - wall + 1) as u64);
        assert_eq!(tokio::time::Instant::now(), start, "paused time stood still while seating");
        (dir, store, s, cell, start, slack)
    }

    /// The seat to act, the game's result and its action rows, under the game's lock (which
    /// a clock running out holds until its action is durable and published).
    async fn look(cell: &GameCell) -> (Option<u8>, Option<pb::GameResult>, Vec<ActionRow>) {
        let st = cell.state.lock().await;
        (st.to_act(), st.ended.clone(), st.action_rows.clone())
    }

    #[tokio::test(start_paused = true)]
    async fn an_idle_seats_clock_plays_for_it_when_its_turn_is_up_and_not_before() {
        let (_dir, store, s, cell, start, slack) = clocked_game(pb::ClockPolicy::AutoPlay).await;
        let (Some(idle), None, rows) = look(&cell).await else { panic!("the game is not on") };
        assert!(rows.is_empty());

        // Just before the turn is up: nothing happened.
        tokio::time::sleep_until(start + TURN - slack).await;
        let (to_act, _, rows) = look(&cell).await;
        assert_eq!((to_act, rows.len()), (Some(idle), 0), "the clock ran out early");
        // Just after: the clock passed the upcard for the idle seat, and the other seat's
        // clock runs, a whole turn from then. (From here on, paused time also runs on while a
        // write is out on the store's thread, the runtime having nothing else to do, so a
        // clock armed after such a write is checked within a second.)
        tokio::time::sleep_until(start + TURN + Duration::from_millis(1)).await;
        let (to_act, ended, rows) = look(&cell).await;
        assert_eq!(to_act, Some(1 - idle), "the clock did not run out in time: {rows:?}");
        assert_eq!(ended, None);
        let [row] = &rows[..] else { panic!("one action: {rows:?}") };
        assert_eq!((row.seat, row.kind), (idle, ActionKind::Timeout));
        tokio::time::sleep_until(start + TURN * 2 - Duration::from_secs(1)).await;
        assert_eq!(look(&cell).await.2.len(), 1, "the next clock ran out early");
        tokio::time::sleep_until(start + TURN * 2 + Duration::from_secs(1)).await;
        let (to_act, _, rows) = look(&cell).await;
        assert_eq!(rows.len(), 2, "the next clock did not run out in time");
        assert_eq!((rows[1].seat, rows[1].kind), (1 - idle, ActionKind::Timeout));
        assert_eq!(to_act, Some(idle), "both passed the upcard: the first draws");

        // A seat that acts in time stops its clock: it draws 30 s into its turn, and the old
        // clock, running out at its time, finds the turn gone (stale) and does nothing. The
        // discard's turn has a clock of its own, a whole turn from the draw (armed when the
        // draw is durable: paused time may have run on to the old clock's end meanwhile).
        tokio::time::sleep_until(start + TURN * 2 + Duration::from_secs(30)).await;
        let (seq, id, draw) = {
            let st = cell.state.lock().await;
            (st.last_seq(), st.info.id.clone(), st.gin().unwrap().hand().legal_actions()[0].clone())
        };
        let wall = now_ms();
        act_as(&s, &id, idle, seq, move |st, seat, now| st.play(seat, &draw, ActionKind::Play, now))
            .await
            .unwrap();
        let (drawn, slack) =
            (tokio::time::Instant::now(), Duration::from_millis((now_ms() - wall + 1) as u64));
        tokio::time::sleep_until(start + TURN * 3 + Duration::from_secs(2)).await;
        let (to_act, _, rows) = look(&cell).await;
        assert_eq!(rows.len(), 3, "the stale clock acted: {rows:?}");
        assert_eq!((to_act, rows[2].kind), (Some(idle), ActionKind::Play), "it discards next");
        tokio::time::sleep_until(drawn + TURN - slack).await;
        assert_eq!(look(&cell).await.2.len(), 3, "the discard's clock ran out early");
        tokio::time::sleep_until(drawn + TURN + Duration::from_millis(1)).await;
        let (to_act, _, rows) = look(&cell).await;
        assert_eq!(rows.len(), 4, "the discard's clock did not run out in time");
        assert_eq!((rows[3].seat, rows[3].kind), (idle, ActionKind::Timeout));
        assert_eq!(to_act, Some(1 - idle));
        store.close().await;
    }

    #[tokio::test(start_paused = true)]
    async fn under_the_forfeit_policy_the_idle_seat_loses_when_its_turn_is_up_and_not_before() {
        let (_dir, store, _s, cell, start, slack) = clocked_game(pb::ClockPolicy::Forfeit).await;
        let (Some(idle), None, _) = look(&cell).await else { panic!("the game is not on") };

        tokio::time::sleep_until(start + TURN - slack).await;
        let (_, ended, rows) = look(&cell).await;
        assert!(ended.is_none() && rows.is_empty(), "the clock ran out early: {ended:?}");
        tokio::time::sleep_until(start + TURN + Duration::from_millis(1)).await;
        let (to_act, ended, _) = look(&cell).await;
        let result = ended.expect("the clock did not run out in time");
        assert_eq!(result.reason, pb::GameEndReason::Forfeit as i32);
        assert_eq!(result.winner, Some(u32::from(1 - idle)));
        assert_eq!(result.loser_by_default, Some(u32::from(idle)));
        assert_eq!(to_act, None);
        let st = cell.state.lock().await;
        let expired = |e: &&Entry| matches!(e.ev, LogEvent::ClockExpired { seat, policy: pb::ClockPolicy::Forfeit } if seat == idle);
        assert_eq!(st.log.iter().filter(expired).count(), 1, "the clock's end is in the game's log");
        drop(st);
        store.close().await;
    }
}
