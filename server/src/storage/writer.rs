//! [`Store`]: the async-facing handle; one writer thread owns the [`Backend`] and commits
//! everything queued at once (group commit), first in, first out.
//!
//!
//! An acknowledgment ([`Ack`]) comes once the write is durable. The backend is opened and
//! loaded on the writer thread (`Store::start_with`): PostgreSQL's blocking client runs a
//! runtime of its own, which may not be entered from an async task. Reads of one game go
//! through the same queue, so they see every write queued before them. A refused batch is
//! retried request by request, so the one at fault fails alone; any other failure is the whole
//! batch's. Observers ([`CommitObserver`], `Store::observe`) get each transaction's writes and
//! commit time: the storage layer knows only that trait, not the metrics. The cluster's
//! questions (`Store::renew`, `Store::owner_of`, `Store::tournament_owner`, …) go through the
//! same queue; `Store::lease_holds` is answered from memory: a lease's length after the last
//! renewal that succeeded was sent, by the monotonic clock (which runs while a process is
//! stopped).

use std::future::Future;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, mpsc};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

use super::{
    AccountChanges, AccountGame, Backend, Claimed, HistoryLine, Owner, PostgresBackend, RateFn,
    RatingChanges, SqliteBackend, Startup, StoreError, StoredGame, StoredTournament, Write, is_postgres_url,
};

/// At most this many writes are gathered into one transaction (one request is never split, so a
/// batch may exceed it by one request).
const MAX_BATCH_WRITES: usize = 8192;

/// One caller's writes and where to answer.
struct Request {
    writes: Vec<Write>,
    reply: oneshot::Sender<Result<(), StoreError>>,
}

/// What the writer thread receives.
enum Msg {
    Write(Request),
    /// A read, or a cluster operation (after committing everything queued before: FIFO).
    Ask(Ask),
    /// Commit everything before, then stop; answer when stopped.
    Close(oneshot::Sender<()>),
}

/// What the writer is asked besides writes, in turn with them.
enum Ask {
    /// Read one game.
    Load(String, oneshot::Sender<Result<Option<StoredGame>, StoreError>>),
    /// Renew this server's lease ([`Backend::renew`]).
    Renew(oneshot::Sender<Result<bool, StoreError>>),
    /// Claim lapsed servers' games and tournaments ([`Backend::claim_orphans`]).
    Claim(oneshot::Sender<Result<Claimed, StoreError>>),
    /// Who serves a game ([`Backend::owner_of`]).
    OwnerOf(String, oneshot::Sender<Result<Owner, StoreError>>),
    /// Who serves a tournament ([`Backend::tournament_owner`]).
    TournamentOwner(String, oneshot::Sender<Result<Owner, StoreError>>),
    /// Read one tournament ([`Backend::load_tournament`]).
    LoadTournament(String, oneshot::Sender<Result<Option<StoredTournament>, StoreError>>),
    /// The live servers ([`Backend::live_servers`]).
    LiveServers(oneshot::Sender<Result<Vec<(i64, String)>, StoreError>>),
    /// The status of the tournament that booked a game.
    TournamentStatusOf(String, oneshot::Sender<Result<Option<i32>, StoreError>>),
    /// A page of an account's games ([`Backend::account_games`]).
    AccountGames(AccountPage, oneshot::Sender<Result<Vec<AccountGame>, StoreError>>),
    /// The account and token rows changed after a cursor ([`Backend::account_changes`]).
    AccountChanges(i64, oneshot::Sender<Result<AccountChanges, StoreError>>),
    /// The server's rating function ([`Backend::set_rater`]).
    SetRater(RateFn, oneshot::Sender<Result<(), StoreError>>),
    /// The rating rows changed after a cursor ([`Backend::rating_changes`]).
    RatingChanges(i64, oneshot::Sender<Result<RatingChanges, StoreError>>),
    /// A page of an account's rating history ([`Backend::rating_history`]).
    RatingHistory(HistoryPage, oneshot::Sender<Result<Vec<HistoryLine>, StoreError>>),
}

/// Which page of a rating history: the account, the pool, the cursor, the limit.
type HistoryPage = (String, String, Option<(i64, String)>, usize);

/// Which page of an account's games: the account, the cursor, the limit.
type AccountPage = (String, Option<(i64, String)>, usize);

impl Ask {
    fn answer(self, backend: &mut impl Backend) {
        match self {
            Ask::Load(id, reply) => drop(reply.send(backend.load_game(&id))),
            Ask::Renew(reply) => drop(reply.send(backend.renew())),
            Ask::Claim(reply) => drop(reply.send(backend.claim_orphans())),
            Ask::OwnerOf(id, reply) => drop(reply.send(backend.owner_of(&id))),
            Ask::TournamentOwner(id, reply) => drop(reply.send(backend.tournament_owner(&id))),
            Ask::LoadTournament(id, reply) => drop(reply.send(backend.load_tournament(&id))),
            Ask::LiveServers(reply) => drop(reply.send(backend.live_servers())),
            Ask::TournamentStatusOf(id, reply) => drop(reply.send(backend.tournament_status_of(&id))),
            Ask::AccountGames((id, before, limit), reply) => {
                drop(reply.send(backend.account_games(&id, before, limit)))
            }
            Ask::AccountChanges(after, reply) => drop(reply.send(backend.account_changes(after))),
            Ask::SetRater(rate, reply) => {
                backend.set_rater(rate);
                drop(reply.send(Ok(())))
            }
            Ask::RatingChanges(after, reply) => drop(reply.send(backend.rating_changes(after))),
            Ask::RatingHistory((account, pool, before, limit), reply) => {
                drop(reply.send(backend.rating_history(&account, &pool, before, limit)))
            }
        }
    }
}

/// Told of every transaction the writer committed (the server's metrics: see
/// [`Store::observe`]). Called on the writer thread between commits: it must be quick.
pub trait CommitObserver: Send + Sync {
    /// `writes` were made durable in one transaction, which took `took` (the backend's
    /// `commit`: append, sync, database commit).
    fn committed(&self, writes: usize, took: Duration);
}

/// State shared by every handle and the writer thread.
#[derive(Default)]
struct Shared {
    closed: AtomicBool,
    transactions: AtomicU64,
    writes: AtomicU64,
    /// Told of each commit, once set ([`Store::observe`]).
    observer: OnceLock<Arc<dyn CommitObserver>>,
    /// In a cluster: this server's id ([`Store::member`]).
    member: OnceLock<i64>,
    /// In a cluster: the lease's length.
    lease: OnceLock<Duration>,
    /// In a cluster: until when (ms after [`epoch`]) the lease surely holds: a lease's length
    /// after the last join or renewal that succeeded was sent (PostgreSQL's `now()` for it was
    /// later). See [`Store::lease_holds`].
    held_until_ms: AtomicU64,
    /// In a cluster: woken when a lookup found a game or tournament whose server's lease is
    /// gone ([`Store::claim_wanted`]).
    claim_soon: tokio::sync::Notify,
}

/// The instant the lease clock counts from (the first use, in this process).
fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

/// Milliseconds from [`epoch`] to `t`, rounded down.
fn since_epoch_ms(t: Instant) -> u64 {
    t.saturating_duration_since(epoch()).as_millis() as u64
}

/// The async-facing store: a writer thread owns the backend and does group commit.
///
/// Cloning gives another handle to the same writer. The writer stops on [`Store::close`], or once
/// every handle is dropped and the queue is empty.
#[derive(Clone)]
pub struct Store {
    queue: mpsc::Sender<Msg>,
    shared: Arc<Shared>,
}

impl Store {
    /// Starts the writer thread on `backend`, loads what the server needs at start.
    pub fn start(backend: impl Backend) -> Result<(Store, Startup), StoreError> {
        Store::start_with(move || Ok(backend))
    }

    /// Starts the writer thread, which opens the backend with `open` and loads what the server
    /// needs at start; returns once that is done (or failed). A backend whose connection must
    /// stay on one thread (PostgreSQL's blocking client runs its own runtime, which may not
    /// be entered from an async task) is opened and used on the writer thread only.
    pub fn start_with<B: Backend>(
        open: impl FnOnce() -> Result<B, StoreError> + Send + 'static,
    ) -> Result<(Store, Startup), StoreError> {
        let (queue, inbox) = mpsc::channel();
        let (started, start) = mpsc::sync_channel(1);
        let shared = Arc::new(Shared::default());
        let writer_shared = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("store-writer".to_owned())
            .spawn(move || {
                let opened = open().and_then(|mut backend| Ok((backend.load_startup()?, backend)));
                match opened {
                    Ok((startup, backend)) => {
                        if started.send(Ok(startup)).is_ok() {
                            writer(backend, inbox, &writer_shared);
                        }
                    }
                    Err(e) => {
                        let _ = started.send(Err(e));
                    }
                }
            })
            .map_err(|e| StoreError::Io(format!("starting the store writer thread: {e}")))?;
        let startup =
            start.recv().map_err(|_| StoreError::Io("the store writer thread stopped".into()))??;
        Ok((Store { queue, shared }, startup))
    }

    /// Convenience: [`SqliteBackend::open`] + [`Store::start`].
    pub fn open_sqlite(path: &Path) -> Result<(Store, Startup), StoreError> {
        Store::start(SqliteBackend::open(path)?)
    }

    /// Opens the store `--db` names as one server of a cluster reachable at `addr`
    /// ([`PostgresBackend::join_cluster`], a lease of `lease`): PostgreSQL only. What it
    /// loads is this server's: the games and tournaments of servers gone before it started,
    /// which it claims.
    pub fn open_cluster(db: &Path, addr: &str, lease: Duration) -> Result<(Store, Startup), StoreError> {
        let Some(url) = db.to_str().filter(|d| is_postgres_url(d)) else {
            return Err(StoreError::Refused(format!(
                "several servers share a PostgreSQL database: --db {} is not a postgres:// URL",
                db.display()
            )));
        };
        let (url, addr) = (url.to_owned(), addr.to_owned());
        let member = Arc::new(OnceLock::new());
        let joined = Arc::clone(&member);
        let (store, startup) = Store::start_with(move || {
            let mut backend = PostgresBackend::connect(&url)?;
            let sent = Instant::now();
            let _ = joined.set((backend.join_cluster(&addr, lease)?, sent));
            Ok(backend)
        })?;
        if let Some(&(id, sent)) = member.get() {
            let _ = store.shared.member.set(id);
            let _ = store.shared.lease.set(lease);
            store.shared.held_until_ms.store(since_epoch_ms(sent + lease), Ordering::Release);
        }
        Ok((store, startup))
    }

    /// In a cluster: this server's id (its fencing token; a server started again at the same
    /// address is a new one). Alone: `None`.
    pub fn member(&self) -> Option<i64> {
        self.shared.member.get().copied()
    }

    /// Opens the store `--db` names: a PostgreSQL connection string (`postgres://…` or
    /// `postgresql://…`), else a SQLite file.
    pub fn open(db: &Path) -> Result<(Store, Startup), StoreError> {
        match db.to_str().filter(|d| is_postgres_url(d)) {
            Some(url) => {
                let url = url.to_owned();
                Store::start_with(move || PostgresBackend::connect(&url))
            }
            None => Store::open_sqlite(db),
        }
    }

    /// Enqueues `writes` NOW (so calls made in some order are committed in that order: FIFO), and
    /// returns a future that resolves once they are durably committed (or failed). The writes of one
    /// call are committed all together or not at all.
    ///
    /// Never blocks: enqueuing is a non-blocking channel send; the future awaits the answer.
    pub fn write(&self, writes: Vec<Write>) -> Ack {
        let answer = if self.shared.closed.load(Ordering::Acquire) {
            None
        } else {
            let (reply, answer) = oneshot::channel();
            self.queue.send(Msg::Write(Request { writes, reply })).ok().map(|()| answer)
        };
        Ack { answer }
    }

    /// Reads the game `id` as stored once everything written before this call is committed
    /// (`None`: no such game). The read waits its turn behind the writes queued before it.
    pub async fn load_game(&self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        let id = id.to_owned();
        self.ask(|reply| Ask::Load(id, reply)).await
    }

    /// In a cluster: renews this server's lease; `false` once it is lost (the server must
    /// give up its games). Alone: `true`.
    pub async fn renew(&self) -> Result<bool, StoreError> {
        let sent = Instant::now();
        let renewed = self.ask(Ask::Renew).await;
        if let (Ok(true), Some(&lease)) = (&renewed, self.shared.lease.get()) {
            self.shared.held_until_ms.fetch_max(since_epoch_ms(sent + lease), Ordering::AcqRel);
        }
        renewed
    }

    /// Whether this server surely still holds its lease: alone, always; in a cluster, until a
    /// lease's length after the last renewal that succeeded was sent (by this machine's
    /// monotonic clock, which runs while the process is stopped). Past that, another server
    /// may have claimed this one's games already, and what this server holds in memory may be
    /// behind what clients saw since: a server that was frozen (`SIGSTOP`), or cut off from
    /// PostgreSQL, serves nothing from memory until a renewal succeeds (if it finds its lease
    /// gone, it stops). Fencing does not rest on this (every write checks the lease in
    /// PostgreSQL): it keeps stale reads from being served.
    pub fn lease_holds(&self) -> bool {
        self.member().is_none()
            || since_epoch_ms(Instant::now()) < self.shared.held_until_ms.load(Ordering::Acquire)
    }

    /// In a cluster: claims the unfinished games and the tournaments of servers whose leases
    /// ran out.
    pub async fn claim_orphans(&self) -> Result<Claimed, StoreError> {
        self.ask(Ask::Claim).await
    }

    /// In a cluster: who serves the game `id`. [`Owner::Lapsed`] wakes
    /// [`Store::claim_wanted`].
    pub async fn owner_of(&self, id: &str) -> Result<Owner, StoreError> {
        let id = id.to_owned();
        self.lapsed_wakes(self.ask(|reply| Ask::OwnerOf(id, reply)).await)
    }

    /// In a cluster: who serves the tournament `id`. [`Owner::Lapsed`] wakes
    /// [`Store::claim_wanted`].
    pub async fn tournament_owner(&self, id: &str) -> Result<Owner, StoreError> {
        let id = id.to_owned();
        self.lapsed_wakes(self.ask(|reply| Ask::TournamentOwner(id, reply)).await)
    }

    /// Wakes [`Store::claim_wanted`] if `owner` is [`Owner::Lapsed`].
    fn lapsed_wakes(&self, owner: Result<Owner, StoreError>) -> Result<Owner, StoreError> {
        if matches!(owner, Ok(Owner::Lapsed)) {
            self.shared.claim_soon.notify_one();
        }
        owner
    }

    /// Completes once a lookup found a game or tournament whose server's lease is gone (given
    /// up at a graceful stop, or run out): the lease loop claims then rather than at its next
    /// tick, so a client's retry finds the game taken over in a moment. The claim itself is
    /// the same as at a tick (everything lapsed servers held, in one transaction).
    pub async fn claim_wanted(&self) {
        self.shared.claim_soon.notified().await;
    }

    /// In a cluster: the servers whose leases hold, by id: (id, address).
    pub async fn live_servers(&self) -> Result<Vec<(i64, String)>, StoreError> {
        self.ask(Ask::LiveServers).await
    }

    /// One tournament, read back (`None` if there is none).
    pub async fn load_tournament(&self, id: &str) -> Result<Option<StoredTournament>, StoreError> {
        let id = id.to_owned();
        self.ask(|reply| Ask::LoadTournament(id, reply)).await
    }

    /// The status of the tournament that booked game `id`, if one did (the server's encoding).
    pub async fn tournament_status_of(&self, id: &str) -> Result<Option<i32>, StoreError> {
        let id = id.to_owned();
        self.ask(|reply| Ask::TournamentStatusOf(id, reply)).await
    }

    /// The games of the account `account_id`, newest seat first, strictly after `before` (the
    /// last game of the page before: its seat's `joined_ms` and its id), at most `limit`: see
    /// [`Backend::account_games`]. In turn with the writes queued before.
    pub async fn account_games(
        &self,
        account_id: &str,
        before: Option<(i64, String)>,
        limit: usize,
    ) -> Result<Vec<AccountGame>, StoreError> {
        let page = (account_id.to_owned(), before, limit);
        self.ask(|reply| Ask::AccountGames(page, reply)).await
    }

    /// The account and token rows created or changed after the change `after`
    /// ([`Startup::account_cursor`], then each answer's `cursor`): see
    /// [`Backend::account_changes`]. In turn with the writes queued before.
    pub async fn account_changes(&self, after: i64) -> Result<AccountChanges, StoreError> {
        self.ask(|reply| Ask::AccountChanges(after, reply)).await
    }

    /// Gives the backend the server's rating function: before any [`Write::Rate`](super::Write::Rate) (refused
    /// until then).
    pub async fn set_rater(&self, rate: RateFn) -> Result<(), StoreError> {
        self.ask(|reply| Ask::SetRater(rate, reply)).await
    }

    /// The rating rows changed after the change `after` ([`Startup::ratings`]' cursor, then
    /// each answer's): see [`Backend::rating_changes`]. In turn with the writes queued before.
    pub async fn rating_changes(&self, after: i64) -> Result<RatingChanges, StoreError> {
        self.ask(|reply| Ask::RatingChanges(after, reply)).await
    }

    /// A page of an account's rating history in a pool: see [`Backend::rating_history`].
    pub async fn rating_history(
        &self,
        account_id: &str,
        pool: &str,
        before: Option<(i64, String)>,
        limit: usize,
    ) -> Result<Vec<HistoryLine>, StoreError> {
        let page = (account_id.to_owned(), pool.to_owned(), before, limit);
        self.ask(|reply| Ask::RatingHistory(page, reply)).await
    }

    /// Asks the writer, in turn with the writes queued before.
    async fn ask<T>(
        &self,
        ask: impl FnOnce(oneshot::Sender<Result<T, StoreError>>) -> Ask,
    ) -> Result<T, StoreError> {
        if self.shared.closed.load(Ordering::Acquire) {
            return Err(StoreError::Closed);
        }
        let (reply, answer) = oneshot::channel();
        self.queue.send(Msg::Ask(ask(reply))).map_err(|_| StoreError::Closed)?;
        answer.await.unwrap_or(Err(StoreError::Closed))
    }

    /// Counters for benchmarks: (transactions committed, writes committed).
    pub fn stats(&self) -> (u64, u64) {
        (self.shared.transactions.load(Ordering::Relaxed), self.shared.writes.load(Ordering::Relaxed))
    }

    /// From now on, `observer` is told of every transaction committed (once: a second
    /// observer is ignored).
    pub fn observe(&self, observer: Arc<dyn CommitObserver>) {
        let _ = self.shared.observer.set(observer);
    }

    /// Waits until everything enqueued before this call is committed, then stops the writer thread
    /// (for graceful shutdown; the backend is dropped before this returns). Further writes fail with
    /// [`StoreError::Closed`]. Closing a closed store returns at once. In a cluster, the lease
    /// is given up once the last write is committed ([`Backend::leave`]): the server must serve
    /// nothing after this, and [`Store::lease_holds`] is `false` from the call on.
    pub async fn close(&self) {
        // In a cluster: nothing is served from memory from now on ([`Store::lease_holds`]):
        // the writer gives the lease up once what is queued is committed.
        self.shared.held_until_ms.store(0, Ordering::Release);
        let (done, stopped) = oneshot::channel();
        let sent = self.queue.send(Msg::Close(done)).is_ok();
        self.shared.closed.store(true, Ordering::Release);
        if sent {
            // An error means the writer stopped for another close: fine too.
            let _ = stopped.await;
        }
    }
}

/// The answer to one [`Store::write`]: resolves once its writes are durably committed (or failed).
/// The writes are already queued: dropping an `Ack` does not withdraw them.
#[must_use = "the writes are queued either way; await the Ack to know they are durable"]
pub struct Ack {
    /// `None`: the store was closed before the writes could be queued.
    answer: Option<oneshot::Receiver<Result<(), StoreError>>>,
}

impl Future for Ack {
    type Output = Result<(), StoreError>;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        match self.answer.as_mut() {
            // A dropped reply means the writer stopped before reaching the request.
            Some(answer) => std::pin::Pin::new(answer).poll(cx).map(|r| r.unwrap_or(Err(StoreError::Closed))),
            None => std::task::Poll::Ready(Err(StoreError::Closed)),
        }
    }
}

/// The writer thread: block for the first request, gather what else is queued, commit it all in one
/// transaction, answer everyone.
fn writer(mut backend: impl Backend, inbox: mpsc::Receiver<Msg>, shared: &Shared) {
    let mut batch: Vec<Request> = Vec::new();
    loop {
        let Ok(first) = inbox.recv() else {
            // Every handle is gone and the queue is empty.
            return;
        };
        let mut close = None;
        let mut ask = None;
        let mut count = 0;
        let mut next = Some(first);
        while let Some(msg) = next.take() {
            match msg {
                Msg::Write(request) => {
                    count += request.writes.len();
                    batch.push(request);
                }
                Msg::Ask(a) => {
                    // Reads see everything queued before them: commit that first.
                    ask = Some(a);
                    break;
                }
                Msg::Close(done) => {
                    close = Some(done);
                    break;
                }
            }
            if count < MAX_BATCH_WRITES {
                next = inbox.try_recv().ok();
            }
        }
        commit_batch(&mut backend, &mut batch, count, shared);
        if let Some(a) = ask {
            a.answer(&mut backend);
        }
        if let Some(done) = close {
            shared.closed.store(true, Ordering::Release);
            // Everything queued before the close is committed: the backend tidies its files for
            // the next start. Should this fail, that start reads them as after a crash.
            if let Err(e) = backend.close() {
                tracing::warn!(error = %e, "closing the store's files failed: the next start recovers them");
            }
            // In a cluster: everything queued before the close is committed (or failed) and
            // nothing more will be: the lease is given up, so another server takes this one's
            // games at its next claim, not once the lease ran out. Should this fail, the lease
            // runs out as a killed server's does.
            if let Some(&id) = shared.member.get() {
                match backend.leave() {
                    Ok(()) => {
                        tracing::info!(server = id, "lease given up: other servers take this one's games")
                    }
                    Err(e) => {
                        tracing::warn!(server = id, error = %e, "giving the lease up failed: it runs out")
                    }
                }
            }
            drop(backend);
            // Requests queued after the close are dropped: their callers get "store closed".
            drop(inbox);
            let _ = done.send(());
            return;
        }
    }
}

/// Commits `batch` (`count` writes in all) in one transaction and answers every request; if the
/// store refused it, retries each request in its own transaction so one bad request fails
/// alone; any other failure is every request's.
fn commit_batch(backend: &mut impl Backend, batch: &mut Vec<Request>, count: usize, shared: &Shared) {
    if batch.is_empty() {
        return;
    }
    if batch.len() == 1 {
        let request = batch.pop().expect("one request");
        let result = commit(backend, shared, &request.writes);
        let _ = request.reply.send(result);
        return;
    }
    // Several requests: one slice of all their writes, remembering whose are whose.
    let mut all = Vec::with_capacity(count);
    let mut owners = Vec::with_capacity(batch.len());
    for request in batch.drain(..) {
        let start = all.len();
        all.extend(request.writes);
        owners.push((start..all.len(), request.reply));
    }
    match commit(backend, shared, &all) {
        Ok(()) => {
            for (_, reply) in owners {
                let _ = reply.send(Ok(()));
            }
        }
        // Refused: something in the batch breaks a rule; nothing was written. Each request on
        // its own, so the one at fault fails alone.
        Err(StoreError::Refused(_)) => {
            for (range, reply) in owners {
                let result = commit(backend, shared, &all[range]);
                let _ = reply.send(result);
            }
        }
        // The disk or the database failed: every request of the batch shares the failure (a
        // retry would only meet it again, or write half of what failed).
        Err(e) => {
            for (_, reply) in owners {
                let _ = reply.send(Err(e.clone()));
            }
        }
    }
}

/// One transaction of `writes`; once committed, counted and told to the observer with the
/// time it took.
fn commit(backend: &mut impl Backend, shared: &Shared, writes: &[Write]) -> Result<(), StoreError> {
    let start = Instant::now();
    let result = backend.commit(writes);
    if result.is_ok() && !writes.is_empty() {
        shared.transactions.fetch_add(1, Ordering::Relaxed);
        shared.writes.fetch_add(writes.len() as u64, Ordering::Relaxed);
        if let Some(o) = shared.observer.get() {
            o.committed(writes.len(), start.elapsed());
        }
    }
    result
}
