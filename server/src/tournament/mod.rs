//! Tournaments run by the server: entrants, pairings (round robin, gauntlet, Swiss),
//! duplicate deals, a bounded number of games at once, standings with Elo, an optional SPRT
//! stop rule, results as JSON and CSV. Durable: tournaments, entrants and their booked games
//! are written through the store's writer, in the same group commits as the games
//! (`storage::TournamentWrite`), and resumed at start.
//!
//! A tournament's games are ordinary server games with both seats taken at creation; each
//! entrant gets its seat token in an assignment on its `JoinTournament` stream and plays with
//! the ordinary `GameService`. A driver task per running tournament creates games up to the
//! `parallel` limit and polls the running ones for their end.
//!
//! The parts: `spec` (a validated spec and its plan of games), [`pairing`] (who meets whom),
//! `state` (one tournament in memory: entrants, booked games, standings; rebuilt from its
//! stored rows), `driver` (creates, books and finishes games), `service` (the gRPC service,
//! its streams), `export` (JSON and CSV).
//!
//!
//! [`Tournaments`] holds the tournaments in memory (`TournamentCell`s by id, in creation
//! order); `open` builds them from the rows the store loaded at start (`Startup::tournaments`)
//! and resumes the running ones; their writes (`storage::TournamentWrite`) go through the
//! store's writer: the same group commits, journal and durability as the games'. In a cluster
//! a claimed tournament is read back and driven on (`Tournaments::adopt`); its entrants
//! re-enter with their tokens and get their games with new seat tokens, as after a restart.
//! `create` and `enter` check every name as text people see (`gin_proto::text`) before
//! anything is stored.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};

use gin_proto::v1 as pb;
use tokio::sync::watch;
use tonic::Status;

use crate::game::shared::Shared;
use crate::storage::{Owner, StoreError, StoredTournament, TournamentWrite, Write};

mod driver;
mod export;
pub mod pairing;
mod service;
mod spec;
mod state;

use state::{Tournament, TournamentCell};

/// The tournaments of a server: a cheap `Clone` handle.
#[derive(Clone)]
pub struct Tournaments(Arc<Inner>);

struct Inner {
    shared: Shared,
    /// In a cluster: the other servers (for the lists).
    peers: Arc<crate::cluster::Peers>,
    map: RwLock<HashMap<String, Arc<TournamentCell>>>,
    /// Creation order, for listing.
    order: Mutex<Vec<(i64, String)>>,
    shutdown: watch::Sender<bool>,
}

impl Tournaments {
    /// Takes the tournaments the store found at start (`storage::Startup::tournaments`) and
    /// resumes every unfinished one.
    /// `peers`: the cluster's other servers (unused alone).
    pub fn open(
        shared: Shared,
        peers: Arc<crate::cluster::Peers>,
        stored: Vec<StoredTournament>,
    ) -> anyhow::Result<Tournaments> {
        let t = Tournaments(Arc::new(Inner {
            shared,
            peers,
            map: RwLock::new(HashMap::new()),
            order: Mutex::new(Vec::new()),
            shutdown: watch::Sender::new(false),
        }));
        let mut resumed = 0;
        for s in stored {
            let created = s.tournament.created_ms;
            let tournament = Tournament::restore(s)?;
            let running = tournament.status == pb::TournamentStatus::Running;
            let id = tournament.id.clone();
            let cell = Arc::new(TournamentCell::new(tournament));
            t.seal_games(&cell);
            t.0.map.write().expect("lock").insert(id.clone(), cell.clone());
            t.0.order.lock().expect("lock").push((created, id));
            if running {
                resumed += 1;
                t.spawn_driver(cell);
            }
        }
        t.0.order.lock().expect("lock").sort();
        tracing::info!(resumed, "tournaments restored");
        Ok(t)
    }

    /// In a cluster: takes over the tournament `id`, which this server just claimed from one
    /// whose lease ran out (with its games, in the same claim): read back from the store as at
    /// a start, and driven on here if it runs. Its entrants re-enter with their tokens (their
    /// streams ended with the old server) and get their games with new seat tokens, as after
    /// a restart. Nothing if it is here already.
    pub async fn adopt(&self, id: &str) -> Result<(), StoreError> {
        if self.0.map.read().expect("lock").contains_key(id) {
            return Ok(());
        }
        let Some(stored) = self.0.shared.store.load_tournament(id).await? else {
            return Err(StoreError::Refused(format!("no tournament {id:?} to take over")));
        };
        let created = stored.tournament.created_ms;
        let tournament = Tournament::restore(stored).map_err(|e| StoreError::Corrupt(format!("{e:#}")))?;
        let running = tournament.status == pb::TournamentStatus::Running;
        let cell = Arc::new(TournamentCell::new(tournament));
        {
            let mut map = self.0.map.write().expect("lock");
            if map.contains_key(id) {
                return Ok(());
            }
            map.insert(id.to_owned(), cell.clone());
        }
        self.seal_games(&cell);
        let mut order = self.0.order.lock().expect("lock");
        order.push((created, id.to_owned()));
        order.sort();
        drop(order);
        tracing::info!(tournament = id, running, "tournament taken over from a server whose lease ran out");
        if running {
            self.spawn_driver(cell);
        }
        Ok(())
    }

    /// Seals the games it booked while it is not over (every game taken into memory later
    /// gets the seal too: `Shared::seal`).
    fn seal_games(&self, cell: &TournamentCell) {
        if cell.seal.is_closed() {
            self.0.shared.seal(&cell.game_ids(), &cell.seal);
        }
    }

    /// Whether the tournament `id` is in this server's memory.
    pub fn holds(&self, id: &str) -> bool {
        self.0.map.read().expect("lock").contains_key(id)
    }

    /// Ends every stream (UNAVAILABLE) and stops the drivers: for graceful shutdown.
    pub fn shutdown(&self) {
        self.0.shutdown.send_replace(true);
    }

    fn cell(&self, id: &str) -> Result<Arc<TournamentCell>, Status> {
        self.0
            .map
            .read()
            .expect("lock")
            .get(id)
            .cloned()
            .ok_or_else(|| Status::not_found(format!("no tournament {id:?}")))
    }

    /// The tournament `id`, as [`cell`](Self::cell); in a cluster, one this server claimed
    /// (from a server whose lease ran out) and has not read back yet is read back first.
    async fn find(&self, id: &str) -> Result<Arc<TournamentCell>, Status> {
        let found = self.cell(id);
        if found.is_ok() || self.0.shared.cfg.cluster_addr.is_none() {
            return found;
        }
        match self.0.shared.store.tournament_owner(id).await {
            Ok(Owner::Me) => {
                self.adopt(id)
                    .await
                    .map_err(|e| Status::unavailable(format!("taking over tournament {id:?}: {e}")))?;
                self.cell(id)
            }
            Ok(Owner::Other { .. } | Owner::Lapsed) => Err(Status::unavailable(format!(
                "tournament {id:?} is served by another server, or moving to one; retry"
            ))),
            Ok(_) => found,
            Err(e) => Err(Status::unavailable(format!("locating tournament {id:?}: {e}"))),
        }
    }

    /// Writes `writes` through the store (in one of its group commits, all or nothing) and
    /// waits until they are durable.
    async fn store(&self, writes: Vec<TournamentWrite>) -> Result<(), StoreError> {
        self.0.shared.store.write(writes.into_iter().map(Write::Tournament).collect()).await
    }

    fn spawn_driver(&self, cell: Arc<TournamentCell>) {
        let t = self.clone();
        tokio::spawn(async move { t.drive(cell).await });
    }
}

/// A storage failure as the tournament's callers see it.
fn storage_status(e: StoreError) -> Status {
    Status::internal(format!("tournament storage: {e}"))
}
