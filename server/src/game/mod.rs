//! The game layer: the games in play and everything that changes them, below the API and
//! above the store.
//!
//! - [`shared`]: the games in memory (by id), seat tokens, quotas, game creation and seating;
//! - [`state`]: one game: the engine game, seats, the event log, watchers, and the redaction
//!   of each event for each viewer ([`state::event_for`]);
//! - [`commit`]: the one path that applies an action, whoever acts, and the hooks that run
//!   after every change ([`shared::AfterChange`]);
//! - [`clock`], [`house`]: the two hooks, turn clocks and house bots, which act through the
//!   commit like a client;
//! - [`expiry`]: games nobody plays end, through the commit;
//! - [`wire`]: what the server alone sends of a game, engine types to `gin.v1`;
//! - [`error`]: [`GameError`], mapped to gRPC statuses by the API only.
//!
//! Imports go one way: `shared` and `state` know neither the commit nor its hooks; the commit
//! knows the hooks only as `dyn AfterChange`, registered by [`open`].
//!
//!
//! [`open`] builds the shared state with its hooks (the clock, then the house bots);
//! [`resume`] gives the games found at start their clocks and house bots back
//! (`resume_game`) and runs evictions and expiry every second; [`keep_lease`] (in a cluster)
//! renews the lease every third of its length, claims lapsed servers' games and tournaments,
//! adopts the games here and hands the tournaments to the tournament layer, and returns,
//! stopping the server, once the lease is lost.

pub mod clock;
pub mod commit;
pub mod error;
pub mod expiry;
pub mod house;
pub mod shared;
pub mod state;
pub mod wire;

use std::sync::Arc;
use std::time::Duration;

pub use error::GameError;
use shared::{Shared, now_ms};

use crate::config::Config;
use crate::storage::{Startup, Store};

/// The game layer over `store`: the unfinished games it loaded at start, replayed, with the
/// turn clock and the house bots as the hooks after every change. Call [`resume`] once a
/// runtime runs, to start what those games were waiting for.
pub fn open(cfg: Config, store: Store, startup: Startup) -> anyhow::Result<Shared> {
    open_with(cfg, store, startup, None)
}

/// [`open`], the seats' accounts described by `directory` (the account registry).
pub fn open_with(
    cfg: Config,
    store: Store,
    startup: Startup,
    directory: Option<Arc<dyn shared::AccountDirectory>>,
) -> anyhow::Result<Shared> {
    let shared = Shared::with_directory(cfg, store, startup, directory)?;
    shared.set_hooks(vec![Arc::new(clock::Clock), Arc::new(house::House::default())]);
    Ok(shared)
}

/// Starts one game loaded from the store where it stopped (at a start, or taken over from
/// another server): a turn with a clock gets a whole turn of time again, a house bot whose
/// turn it is plays.
pub async fn resume_game(shared: &Shared, cell: &shared::GameCell) {
    let mut st = cell.state.lock().await;
    if st.info.clock.turn_millis > 0 && st.to_act().is_some() {
        st.deadline_ms = now_ms() + st.info.clock.turn_millis as i64;
        st.clock_floor_ms = st.deadline_ms;
    }
    shared.after_change(&mut st);
}

/// The shortest time between two rounds of [`keep_lease`] woken early by a lookup (a flood of
/// calls for a lapsed server's games makes a claim every so often, not one per call).
const EARLY_CLAIM_GAP: Duration = Duration::from_millis(200);

/// In a cluster: every third of the lease, renews this server's lease and takes over what
/// servers whose leases ran out (or were given up) held: their games here, then each
/// tournament through `take_tournament` (the tournament layer, above this one). A lookup
/// that found such a game or tournament ([`crate::storage::Store::claim_wanted`]) brings the
/// next round forward. Returns (an error) once the lease
/// is lost or cannot be renewed before it runs out: the server must stop, its games being
/// others' now.
pub async fn keep_lease(shared: Shared, take_tournament: impl Fn(String) + Send) -> anyhow::Error {
    let every = shared.cfg.lease / 3;
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut renewed = std::time::Instant::now();
    let mut round = std::time::Instant::now();
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            // A lookup found a lapsed server's game (one stopped gracefully gave its lease up):
            // a claim now, at most one such every `EARLY_CLAIM_GAP`.
            _ = shared.store.claim_wanted() => {
                tokio::time::sleep(EARLY_CLAIM_GAP.saturating_sub(round.elapsed())).await;
            }
        }
        round = std::time::Instant::now();
        match shared.store.renew().await {
            Ok(true) => renewed = std::time::Instant::now(),
            Ok(false) => {
                return anyhow::anyhow!("this server's lease is lost: its games are other servers' now");
            }
            Err(e) => {
                tracing::warn!(error = %e, "renewing the lease failed");
                if renewed.elapsed() >= shared.cfg.lease {
                    return anyhow::anyhow!("the lease could not be renewed before it ran out: {e}");
                }
                continue;
            }
        }
        match shared.store.claim_orphans().await {
            Ok(claimed) => {
                for id in claimed.games {
                    if let Err(e) = shared.adopt(&id).await {
                        tracing::error!(game = %id, error = %e, "taking over a game failed");
                    }
                }
                claimed.tournaments.into_iter().for_each(&take_tournament);
            }
            Err(e) => tracing::warn!(error = %e, "claiming lapsed servers' games failed"),
        }
    }
}

/// Starts the games found at start where they stopped: a turn with a clock gets a whole turn
/// of time again (the server was down, not the player), a house bot whose turn it is plays.
/// Then, every second until the shared state is gone, finished games leave memory
/// ([`Shared::evict_due`]) and games nobody plays end ([`expiry::sweep`]).
pub async fn resume(shared: &Shared) {
    let cells: Vec<_> = shared.games.read().expect("lock").values().cloned().collect();
    for cell in cells {
        resume_game(shared, &cell).await;
    }
    let weak = Arc::downgrade(&shared.0);
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let Some(inner) = weak.upgrade() else { return };
            let shared = Shared(inner);
            shared.evict_due();
            expiry::sweep(&shared);
        }
    });
}
