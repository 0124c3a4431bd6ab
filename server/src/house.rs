//! House bots: a built-in strategy (`gin_strategies::by_name`) plays one seat of a game, in-process.
//!
//! - **It sees what a client of its seat sees.** The bot's picture of the game is a
//!   `gin_bot::sdk::SeatTracker` fed with the game's log redacted for its seat by the same
//!   [`event_for`] that builds every client's stream; it never reads the engine's hands.
//! - **Its actions take the clients' path.** An action goes through
//!   [`service::act_as`](crate::service::act_as) with the seq the bot decided at: the game's
//!   lock, the `expected_seq` check, the engine, the durable write, publishing, clocks. Its
//!   events, log rows and durability are those of any action.
//! - **It does not hold the game's lock while it thinks.** [`arm`] (called under the lock
//!   after every change, next to the clock's hook) only feeds the new events to the bot and
//!   spawns the decision on tokio's blocking pool; the action is applied later, and refused
//!   as stale (nothing applied) if the game moved meanwhile (a turn clock).
//! - **It survives restarts.** `house_bot` is stored with the game and the bot seat is
//!   marked in the seats table; at start the rebuilt games are armed again, and a fresh bot
//!   catches up from the log.

use std::sync::{Arc, Mutex};

use engine::{Action, Seat};
use gin_sdk::SeatTracker;
use gin_strategies::{Strategy, fallback, is_listed};
use sha2::{Digest, Sha256};
use tonic::{Code, Status};

use crate::shared::Shared;
use crate::state::{Ev, GameState, event_for};
use crate::store::ActionKind;

/// A house bot playing one seat of one game.
pub struct HouseBot {
    seat: Seat,
    strategy: Box<dyn Strategy>,
    tracker: SeatTracker,
    /// The turn (`GameState::turn_token`) a decision was last started for.
    scheduled: u64,
}

/// A game's house bot, shared between the game (under its lock) and the decision in flight.
pub type HouseCell = Arc<Mutex<HouseBot>>;

/// Checks a requested house bot: `false` for none, `true` for a known strategy,
/// INVALID_ARGUMENT naming the known ones otherwise.
pub fn check(name: &str) -> Result<bool, Status> {
    if name.is_empty() {
        return Ok(false);
    }
    gin_strategies::by_name(name, 0)
        .map(|_| true)
        .map_err(|e| Status::invalid_argument(format!("house_bot: {e}")))
}

/// The display name of a house bot seat.
pub fn display_name(strategy: &str) -> String {
    strategy.to_string()
}

/// The bot's seed: from the game's secret, so its choices are the same after a restart and
/// say nothing of the deal seed.
fn seed(secret: &[u8; 32]) -> u64 {
    let h = Sha256::new().chain_update(b"gin-house-bot\n").chain_update(secret).finalize();
    u64::from_le_bytes(h[..8].try_into().expect("8 bytes"))
}

/// When the seat to act is the house bot's: brings its view up to date and starts its
/// decision off the executor. Call with the game's lock held, after a change was made
/// durable and published (next to `clock::arm`). Does nothing otherwise, or when a decision
/// for this turn is already under way.
pub fn arm(shared: &Shared, st: &mut GameState) {
    if st.info.house_bot.is_empty() || st.poisoned {
        return;
    }
    let Some(seat) = st.to_act() else { return };
    if !st.seats[seat.index()].as_ref().is_some_and(|s| s.bot) {
        return;
    }
    let bot = match &st.house {
        Some(b) => b.clone(),
        None => match gin_strategies::by_name(&st.info.house_bot, seed(&st.info.secret)) {
            Ok(strategy) => {
                let tracker = SeatTracker::new(seat, st.info.rules.clone(), 0);
                let b = Arc::new(Mutex::new(HouseBot { seat, strategy, tracker, scheduled: 0 }));
                st.house = Some(b.clone());
                b
            }
            Err(e) => {
                tracing::error!(game = %st.info.id, "house bot: {e}");
                return;
            }
        },
    };
    {
        let mut b = bot.lock().expect("lock");
        if b.seat != seat || b.scheduled == st.turn_token {
            return;
        }
        if let Err(e) = feed(&mut b, st) {
            tracing::error!(game = %st.info.id, "house bot cannot follow the game: {e}");
            return;
        }
        b.scheduled = st.turn_token;
    }
    let expected = st.last_seq();
    let (shared, id) = (shared.clone(), st.info.id.clone());
    tokio::spawn(async move {
        let action = match tokio::task::spawn_blocking(move || decide(&bot)).await {
            Ok(Some(a)) => a,
            Ok(None) => {
                tracing::error!(game = %id, "house bot: no pending turn in its view");
                return;
            }
            Err(e) => {
                tracing::error!(game = %id, "house bot failed: {e}");
                return;
            }
        };
        apply(&shared, &id, seat, expected, action).await;
    });
}

/// Feeds the bot every event it has not seen, as its seat's stream would show them (the
/// current turn with its legal actions).
fn feed(b: &mut HouseBot, st: &GameState) -> Result<(), String> {
    let g = st.game.as_ref().ok_or("no game")?;
    let last = st.last_seq();
    let mut info = Some(crate::convert::turn_info(g.hand(), b.seat));
    for seq in b.tracker.last_seq() + 1..=last {
        let e = &st.log[(seq - 1) as usize];
        let current = seq == last && matches!(e.ev, Ev::Turn { seat, .. } if seat == b.seat);
        let ev = event_for(seq, e, Some(b.seat), if current { info.take() } else { None });
        b.tracker.apply(&ev).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The strategy's action for the pending turn (a legal one: an illegal choice is replaced).
fn decide(bot: &Mutex<HouseBot>) -> Option<Action> {
    let mut guard = bot.lock().expect("lock");
    let b = &mut *guard;
    let d = b.tracker.decision()?;
    let a = b.strategy.act(&d);
    if is_listed(&d.legal, &a) {
        Some(a)
    } else {
        let instead = fallback(&d);
        tracing::warn!(strategy = b.strategy.name(), "house bot chose an illegal `{a}`; playing `{instead}`");
        Some(instead)
    }
}

/// Applies the bot's action through the path of every action.
async fn apply(shared: &Shared, id: &str, seat: Seat, expected: u64, action: Action) {
    let r = crate::service::act_as(shared, id, seat, expected, move |st, seat, now| {
        match st.play(seat, &action, ActionKind::Play, now) {
            Err(e) if e.code() == Code::FailedPrecondition && st.to_act() == Some(seat) => {
                // Named melds the engine refuses, say: play the clock's safe move instead.
                let auto = crate::clock::auto_action(st.game.as_ref().expect("a game").hand(), seat);
                tracing::warn!(game = %st.info.id, "house bot's `{action}` refused ({}); playing `{auto}`", e.message());
                st.play(seat, &auto, ActionKind::Play, now)
            }
            r => r,
        }
    })
    .await;
    match r {
        Ok(_) => {}
        Err(s) if s.code() == Code::Aborted => {
            tracing::debug!(game = %id, "house bot's action was stale (the game moved on)")
        }
        Err(s) => tracing::warn!(game = %id, "house bot's action failed: {s}"),
    }
}
