//! The commit: the one path that applies an action to a game, whoever acts (a client after
//! the API checked its token, a house bot, a turn clock running out, the expiry of a game
//! nobody plays): the game's lock, `expected_seq`, the change, the durable write, publishing
//! to the watchers, then the hooks ([`AfterChange`]: the clock, the house bot), which run
//! after every change under the game's lock and are registered at start
//! ([`Shared::set_hooks`]), so this module never names them and they never name their
//! caller.
//!
//!
//! Once the action is applied, the rest (the durable write, publishing, the hooks) is a
//! `Commit` that finishes in a task of its own if its caller goes away: a caller whose
//! connection drops cannot cancel an action half-way. Events are published only after the
//! store acknowledged the write; a store failure poisons the game (refused with
//! `UNAVAILABLE`) until a restart rebuilds it from the database, and the action that met it
//! gets `INTERNAL`, or `UNAVAILABLE` when the store was closed under it (the server stopping:
//! nothing committed). The commit's own numbers (actions applied, their time since `act_as`
//! began, which no hook can see) are atomic adds on `Shared::metrics` in `Commit`'s
//! completion.

use super::GameError;
#[cfg(doc)]
use super::shared::AfterChange;
use super::shared::{Shared, now_ms};
use super::state::GameState;

/// The path of every action: the game's lock, `expected_seq`, the change `f` by `seat`,
/// durable write, publish, hooks. On any error nothing was applied. Once acknowledged, the
/// action is counted and its time from here to the acknowledgement recorded
/// ([`Metrics`](crate::metrics::Metrics): two atomic adds, no lock).
///
/// A caller that goes away (its connection dropped while the answer was on its way) must not
/// cancel an action half-way, applied in memory but neither durable nor published, with its
/// hooks never run: once the change is applied, the rest is a `Commit`, which finishes in a
/// task of its own if it is dropped before it is done. (So the common case, a caller that
/// waits, costs no task.)
pub async fn act_as<R>(
    s: &Shared,
    game: &str,
    seat: u8,
    expected_seq: u64,
    f: impl FnOnce(&mut GameState, u8, i64) -> Result<R, GameError>,
) -> Result<(u64, R), GameError> {
    let arrived = std::time::Instant::now();
    let cell = s.game(game).await?;
    let mut st = cell.state.clone().lock_owned().await;
    if st.poisoned {
        return Err(GameError::Poisoned);
    }
    st.check_seq(seat, expected_seq)?;
    let before = st.last_seq();
    let out = f(&mut st, seat, now_ms())?;
    let durable = s.store.write(std::mem::take(&mut st.pending));
    let commit = Commit(Some(Applied { s: s.clone(), st, before, durable, arrived }));
    Ok((commit.finish().await?, out))
}

/// An action applied in memory whose writes are queued: what remains is to wait until they
/// are durable, then publish (or poison the game if the store failed). Dropped before that,
/// it finishes in a task of its own.
struct Commit(Option<Applied>);

/// The parts of a [`Commit`].
struct Applied {
    s: Shared,
    st: tokio::sync::OwnedMutexGuard<GameState>,
    before: u64,
    durable: crate::storage::Ack,
    /// When the action reached [`act_as`].
    arrived: std::time::Instant,
}

impl Applied {
    /// Once the store answered: publish, release the game's quota at its end, run the hooks;
    /// the game's seq after the action.
    fn complete(mut self, stored: Result<(), crate::storage::StoreError>) -> Result<u64, GameError> {
        if let Err(e) = stored {
            self.st.poisoned = true;
            return Err(e.into());
        }
        self.st.publish(self.before);
        if self.st.is_over() {
            self.s.game_ended(&self.st);
        }
        self.s.after_change(&mut self.st);
        let metrics = &self.s.metrics;
        metrics.actions.inc();
        metrics.action_seconds.observe_duration(self.arrived.elapsed());
        Ok(self.st.last_seq())
    }
}

impl Commit {
    async fn finish(mut self) -> Result<u64, GameError> {
        let applied = self.0.as_mut().expect("a commit finishes once");
        let stored = (&mut applied.durable).await;
        // No await from here on: the commit cannot be dropped half-way.
        self.0.take().expect("a commit finishes once").complete(stored)
    }
}

impl Drop for Commit {
    fn drop(&mut self) {
        let Some(mut applied) = self.0.take() else { return };
        // Outside a runtime (the server is gone) there is nobody to publish to; the writes
        // are queued either way.
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                let stored = (&mut applied.durable).await;
                let _ = applied.complete(stored);
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;
    use std::task::{Context, Poll};
    use std::time::Duration;

    use gin_proto::v1 as pb;
    use tokio::sync::mpsc;

    use super::*;
    use crate::game::state::{EarlyEnd, Watcher};
    use crate::storage::{ActionKind, Store};

    /// Polls `fut` once.
    fn poll_once<F: Future + Unpin>(fut: &mut F) -> Poll<F::Output> {
        let mut cx = Context::from_waker(std::task::Waker::noop());
        std::pin::Pin::new(fut).poll(&mut cx)
    }

    /// A store and shared state on a fresh database (`keep_finished` as given) with one
    /// game, both seats taken, dealt with `seed`.
    async fn one_game(
        keep_finished: Duration,
        seed: u64,
    ) -> (tempfile::TempDir, crate::config::Config, Store, Shared, String) {
        let dir = tempfile::tempdir().unwrap();
        let cfg = crate::config::Config {
            db: dir.path().join("gin.db"),
            keep_finished,
            ..crate::config::Config::default()
        };
        let (store, stored) = Store::open_sqlite(&cfg.db).unwrap();
        let s = crate::game::open(cfg.clone(), store.clone(), stored).unwrap();
        let rules = engine::RuleSet::standard();
        let id = s
            .create_game(engine::Format::Gin(rules), pb::TurnClock::default(), String::new(), seed, None)
            .await
            .unwrap();
        let cell = s.game(&id).await.unwrap();
        s.join(&cell, Some(0), "a".into(), false, true).await.unwrap();
        s.join(&cell, Some(1), "b".into(), false, true).await.unwrap();
        (dir, cfg, store, s, id)
    }

    #[tokio::test]
    async fn an_action_whose_caller_goes_away_is_still_stored_and_published() {
        let (_dir, cfg, store, s, id) = one_game(Duration::from_secs(5), 7).await;
        let cell = s.game(&id).await.unwrap();
        let (tx, mut rx) = mpsc::channel(64);
        let (seat, seq, action) = {
            let mut st = cell.state.lock().await;
            let seq = st.last_seq();
            st.add_watcher(
                Watcher {
                    viewer: None,
                    tx,
                    cut: Arc::new(AtomicBool::new(false)),
                    cut_count: Default::default(),
                },
                seq,
            );
            let action = st.gin().unwrap().hand().legal_actions()[0].clone();
            (st.to_act().unwrap(), seq, action)
        };

        let mut fut = Box::pin(act_as(&s, &id, seat, seq, move |st, seat, now| {
            st.play(seat, &action, ActionKind::Play, now)
        }));
        // Applied and queued, waiting for the store: the caller goes away now.
        assert!(poll_once(&mut fut).is_pending());
        drop(fut);

        // The action is still published to the watcher...
        let msg = tokio::time::timeout(Duration::from_secs(10), rx.recv()).await.unwrap().unwrap();
        let Some(pb::watch_game_response::Kind::Event(ev)) = msg.kind else {
            panic!("not an event: {msg:?}")
        };
        assert_eq!(ev.seq, seq + 1);
        // ...the game goes on from it (its lock was released)...
        let last = cell.state.lock().await.last_seq();
        assert!(last > seq);
        // ...and it is durable.
        store.close().await;
        let (store, stored) = Store::open_sqlite(&cfg.db).unwrap();
        assert_eq!(stored.live[0].actions.len(), 1);
        store.close().await;
    }

    #[tokio::test]
    async fn a_finished_game_leaves_memory_and_comes_back_the_same() {
        let (_dir, _cfg, store, s, id) = one_game(Duration::ZERO, 9).await;
        let cell = s.game(&id).await.unwrap();
        // A few moves, then a resignation.
        for _ in 0..12 {
            let (seat, seq, action) = {
                let st = cell.state.lock().await;
                let action = st.gin().unwrap().hand().legal_actions()[0].clone();
                (st.to_act().unwrap(), st.last_seq(), action)
            };
            act_as(&s, &id, seat, seq, move |st, seat, now| st.play(seat, &action, ActionKind::Play, now))
                .await
                .unwrap();
        }
        let seq = cell.state.lock().await.last_seq();
        act_as(&s, &id, 0, seq, |st, seat, now| st.end_early(EarlyEnd::Resign(seat), now)).await.unwrap();
        let before = [None, Some(0), Some(1)].map(|v| {
            let st = cell.state.try_lock().unwrap();
            st.snapshot(v)
        });
        drop(cell);

        assert_eq!(s.games_in_memory(), 1);
        assert_eq!(s.evict_due(), 1);
        assert_eq!(s.games_in_memory(), 0);
        let back = s.game(&id).await.unwrap();
        assert_eq!(s.games_in_memory(), 1);
        let after = [None, Some(0), Some(1)].map(|v| back.state.try_lock().unwrap().snapshot(v));
        assert_eq!(after, before);
        // Read back, it leaves again; an unknown id is still not found.
        assert_eq!(s.evict_due(), 1);
        assert!(matches!(s.game("feedfacefeedface").await.err(), Some(GameError::NotFound(_))));
        store.close().await;
    }
}
