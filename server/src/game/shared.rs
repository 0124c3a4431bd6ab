//! The server's shared state: a cheap `Clone` handle over `Arc<Inner>`.
//!
//!
//! It holds the games map (a [`GameCell`] per game in memory), the seat-token map (hashes
//! only), the quotas (unfinished games per creator, by [`QuotaKey`]: its account if it called
//! with one, from whatever address, else its address; [`Shared::reserve`],
//! [`Shared::reserve_up_to`], given back by [`Shared::game_ended`]), and the hooks
//! ([`AfterChange`], the trait; [`Shared::set_hooks`], [`Shared::after_change`]). Its std
//! mutexes guard map lookups only and are never held across `.await`.
//!
//! - **Joining**: [`Shared::join`] refuses a game that is over, and one with fixed deals
//!   unless the caller accepted them; a game's end takes it off the open list. Joins run in a
//!   task of their own, so a caller whose connection drops cannot cancel one half-way.
//! - **Start**: the unfinished games are rebuilt from the store (`rebuild`: their stored
//!   actions replayed).
//! - **Reading back**: [`Shared::game`] reads a finished game back from the store when it is
//!   not in memory; in a cluster it first asks who serves it: `Elsewhere` if another server
//!   holds it, `Moving` if its server lapsed and no claim took it yet, adopted if this server
//!   claimed it. [`Shared::adopt`]: a claimed game replayed, its seats' tokens registered,
//!   listed open if a seat is free, resumed as at a start (`gin_lease_moves_total`).
//! - **Eviction**: finished games leave memory `keep_finished` after their end, with their
//!   seat tokens ([`Shared::evict_due`], run every second). A token not in memory is a
//!   [`ClaimedToken`], checked against the seats of the game a request names once it is read
//!   back.
//! - **Seals**: [`Shared::seal`] / [`Shared::unseal`] keep the seals of the games of
//!   tournaments not over, by game id, and give them to every game taken into memory; in a
//!   cluster a game read back whose tournament another server holds asks the store
//!   (`tournament_status_of`, a scan: only for a game whose seats are all entrants').
//! - **Ids**: [`new_id`] puts the server's `--route-tag` before every new id (`s2-…`), so a
//!   proxy can send a game's calls to the server that made it.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use gin_proto::v1 as pb;
use sha2::{Digest, Sha256};

use super::GameError;
use super::state::{GameInfo, GameState, Seal, SeatAccount, Seated};
use crate::config::Config;
use crate::metrics::Metrics;
use crate::storage::{NewGame, Owner, SeatRow, Startup, Store, StoredGame, Write};

/// Whom a game counts against for [`Config::max_open_games_per_caller`]: the account of a
/// call made with an account token, from whatever address it comes (so one account cannot
/// exceed its quota from many addresses, and a signed-in program behind a shared address is
/// not starved by its neighbours); any other call's address. Built by the api layer, which
/// knows the call's identity.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum QuotaKey {
    /// A call without an account: its (client) address.
    Address(IpAddr),
    /// A call with an account token: the account's id.
    Account(String),
}

/// One game: its state behind an async mutex that serializes the game's changes, including
/// the wait for the store, so what watchers see is always durable.
pub struct GameCell {
    /// The state (in its own `Arc`, so an action can hold an owned guard: see `commit::act_as`).
    pub state: Arc<tokio::sync::Mutex<GameState>>,
}

impl GameCell {
    /// A cell holding `st`.
    pub fn new(st: GameState) -> Arc<GameCell> {
        Arc::new(GameCell { state: Arc::new(tokio::sync::Mutex::new(st)) })
    }
}

/// Who a seat token belongs to (request extension set by the auth interceptor).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatIdentity {
    /// The game.
    pub game_id: String,
    /// The seat.
    pub seat: u8,
    /// SHA-256 of the token (rate-limit key).
    pub token_hash: [u8; 32],
}

/// A well-formed seat token the server does not hold in memory: only a finished game that
/// left memory can have it (its seats' tokens leave with it), so it is checked against the
/// seats of the game the request names once that game is read back ([`claimed_seat`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimedToken {
    /// SHA-256 of the token.
    pub token_hash: [u8; 32],
}

/// The seat of `st` whose token hashes to `hash`.
pub fn claimed_seat(st: &GameState, hash: &[u8; 32]) -> Result<u8, GameError> {
    st.seats
        .iter()
        .position(|s| s.as_ref().is_some_and(|s| &s.token_hash == hash))
        .map(|i| i as u8)
        .ok_or(GameError::UnknownToken)
}

/// Work that follows every durable, published change of a game (a seat taken, an action, an
/// end), under the game's lock: arming the turn's clock, starting a house bot's decision.
/// Must not block: anything long is spawned.
pub trait AfterChange: Send + Sync {
    /// Called with the game's lock held, after the change is durable and published.
    fn after_change(&self, shared: &Shared, st: &mut GameState);
}

/// Where the game layer learns about the account holding a seat (implemented by the account
/// registry, a layer above: `accounts::Accounts`), so that seats show its name and kind, and
/// that it was deleted.
pub trait AccountDirectory: Send + Sync {
    /// The account of `id` as seats show it (an unknown one: no name, kind 0).
    fn seat_account(&self, id: &str) -> SeatAccount;
}

/// A finished game due to leave memory.
struct Leaving {
    due: Instant,
    id: String,
    /// Its seat tokens (hashes) in the token map.
    tokens: Vec<[u8; 32]>,
}

/// Everything the services share.
pub struct Inner {
    /// Configuration.
    pub cfg: Config,
    /// The store.
    pub store: Store,
    /// Games by id. A std lock: held only for map lookups, never across `.await`.
    pub games: RwLock<HashMap<String, Arc<GameCell>>>,
    /// Seat tokens by hash, of the games in memory (a finished game's leave with it). A std
    /// lock: read synchronously by the interceptor.
    pub tokens: RwLock<HashMap<[u8; 32], (String, u8)>>,
    /// Games with a free seat, by creation order (for ListGames).
    pub open: Mutex<Vec<(i64, String)>>,
    /// Unfinished games created by each caller (its account, or its address).
    pub open_by_caller: Mutex<HashMap<QuotaKey, u32>>,
    /// Creator of each unfinished game.
    pub creator: Mutex<HashMap<String, QuotaKey>>,
    /// What runs after every change of a game ([`Shared::set_hooks`]).
    hooks: std::sync::OnceLock<Vec<Arc<dyn AfterChange>>>,
    /// The seals of the games of the tournaments this server holds that are not over, by
    /// game id ([`Shared::seal`]): a game taken into memory gets its seal from here.
    seals: RwLock<HashMap<String, Seal>>,
    /// Finished games in memory, oldest end first, with when they leave it (see [`Shared::evict_due`]).
    finished: Mutex<std::collections::VecDeque<Leaving>>,
    /// The server is stopping: no new watch stream (see [`Shared::cut_watchers`]).
    stopping: std::sync::atomic::AtomicBool,
    /// The accounts of seats taken while signed in ([`Shared::seat_account`]).
    directory: Option<Arc<dyn AccountDirectory>>,
    /// The numbers an operator watches (atomics: recorded without a lock).
    pub metrics: Arc<Metrics>,
}

/// The cheap handle.
#[derive(Clone)]
pub struct Shared(pub Arc<Inner>);

impl std::ops::Deref for Shared {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

/// Milliseconds since the epoch.
pub fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// `n` random bytes from the OS.
pub fn random_bytes<const N: usize>() -> [u8; N] {
    let mut b = [0u8; N];
    getrandom::fill(&mut b).expect("the OS random source works");
    b
}

/// A new secret token (a seat's or an entrant's): 16 random bytes in hex; only its SHA-256
/// ([`token_hash`]) is ever stored.
pub fn new_token() -> String {
    hex::encode(random_bytes::<16>())
}

/// A new game or tournament id: 8 random bytes in hex, after `tag` and a `-` when the server
/// has a route tag ([`Config::route_tag`]: a proxy sends the calls naming the id to the server
/// of that tag).
pub fn new_id(tag: Option<&str>) -> String {
    let hex = hex::encode(random_bytes::<8>());
    match tag {
        Some(tag) => format!("{tag}-{hex}"),
        None => hex,
    }
}

/// A deal seed from the OS's random source.
pub fn random_seed() -> u64 {
    u64::from_le_bytes(random_bytes::<8>())
}

/// SHA-256 of a token.
pub fn token_hash(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

impl Shared {
    /// Builds the shared state from what the store loaded at start: every unfinished game
    /// (replayed). Finished games are read back when asked for ([`Shared::game`]).
    pub fn new(cfg: Config, store: Store, startup: Startup) -> anyhow::Result<Shared> {
        Shared::with_directory(cfg, store, startup, None)
    }

    /// [`Shared::new`], the seats' accounts described by `directory`.
    pub fn with_directory(
        cfg: Config,
        store: Store,
        startup: Startup,
        directory: Option<Arc<dyn AccountDirectory>>,
    ) -> anyhow::Result<Shared> {
        let inner = Inner {
            directory,
            cfg,
            store,
            games: RwLock::new(HashMap::new()),
            tokens: RwLock::new(HashMap::new()),
            open: Mutex::new(Vec::new()),
            open_by_caller: Mutex::new(HashMap::new()),
            creator: Mutex::new(HashMap::new()),
            hooks: std::sync::OnceLock::new(),
            seals: RwLock::new(HashMap::new()),
            finished: Mutex::new(std::collections::VecDeque::new()),
            stopping: std::sync::atomic::AtomicBool::new(false),
            metrics: Arc::new(Metrics::new()),
        };
        let shared = Shared(Arc::new(inner));
        let unfinished = startup.live.len();
        for sg in startup.live {
            let st = shared.rebuild(&sg)?;
            shared.register(&st);
            let id = st.info.id.clone();
            shared.games.write().expect("lock").insert(id, GameCell::new(st));
        }
        tracing::info!(unfinished, "games restored from the store");
        Ok(shared)
    }

    /// What an unfinished game loaded from the store needs around it: its seats' tokens
    /// known, listed open if a seat is free, counted in play.
    fn register(&self, st: &GameState) {
        if st.is_over() {
            return;
        }
        for (i, s) in st.seats.iter().enumerate() {
            if let Some(s) = s {
                self.tokens.write().expect("lock").insert(s.token_hash, (st.info.id.clone(), i as u8));
            }
        }
        if st.seats.iter().any(Option::is_none) {
            let mut open = self.open.lock().expect("lock");
            open.push((st.info.created_ms, st.info.id.clone()));
            open.sort();
        }
        self.metrics.games_in_play(st.info.format.kind()).inc();
    }

    /// Takes into memory the unfinished game `id` that this server now serves (in a cluster:
    /// claimed from a server whose lease ran out): replayed from the store, registered, and
    /// started where it stopped, as at a start ([`resume_game`](super::resume_game)).
    pub async fn adopt(&self, id: &str) -> Result<Arc<GameCell>, GameError> {
        if let Some(cell) = self.games.read().expect("lock").get(id) {
            return Ok(cell.clone());
        }
        let Some(sg) = self.store.load_game(id).await? else {
            return Err(GameError::NotFound(id.to_owned()));
        };
        let mut st = self.rebuild(&sg)?;
        self.find_seal(&mut st).await?;
        let over = st.is_over();
        let (cell, fresh) = {
            let mut games = self.games.write().expect("lock");
            match games.get(id) {
                Some(cell) => (cell.clone(), false),
                None => {
                    self.register(&st);
                    let cell = GameCell::new(st);
                    games.insert(id.to_owned(), cell.clone());
                    (cell, true)
                }
            }
        };
        if fresh {
            if over {
                self.keep_for_a_while(id, Vec::new());
            } else {
                self.metrics.lease_moves.inc();
                tracing::info!(game = id, "game taken over from a server whose lease ran out");
                super::resume_game(self, &cell).await;
            }
        }
        Ok(cell)
    }

    /// The game `id`: from memory, or (a finished game that left it) read back from the store
    /// and replayed, then kept for [`Config::keep_finished`] again. In a cluster, an
    /// unfinished game this server does not hold is [`GameError::Elsewhere`] if its server's
    /// lease holds, and [`GameError::Moving`] if it ran out (a claim takes it over, with all
    /// its server held: [`super::keep_lease`]); one this server claimed is taken over here.
    pub async fn game(&self, id: &str) -> Result<Arc<GameCell>, GameError> {
        if let Some(cell) = self.games.read().expect("lock").get(id) {
            return Ok(cell.clone());
        }
        let not_found = || GameError::NotFound(id.to_owned());
        // Only a finished game can be missing from memory (every other one is loaded at start
        // and created here), or in a cluster another server's; an id that is not even
        // well-formed is not looked up.
        if id.is_empty() || id.len() > 64 {
            return Err(not_found());
        }
        if self.cfg.cluster_addr.is_some() {
            match self.store.owner_of(id).await? {
                Owner::Me => return self.adopt(id).await,
                Owner::Other { addr, .. } => return Err(GameError::Elsewhere { id: id.to_owned(), addr }),
                Owner::Lapsed => return Err(GameError::Moving(id.to_owned())),
                Owner::Finished | Owner::NoSuchGame => {}
            }
        }
        let Some(sg) = self.store.load_game(id).await? else { return Err(not_found()) };
        let mut st = self.rebuild(&sg)?;
        self.find_seal(&mut st).await?;
        let over = st.is_over();
        let cell = {
            let mut games = self.games.write().expect("lock");
            // Someone else may have loaded it meanwhile: keep theirs.
            games.entry(id.to_owned()).or_insert_with(|| GameCell::new(st)).clone()
        };
        if over {
            // Its tokens are not in the token map (read back, not joined).
            self.keep_for_a_while(id, Vec::new());
        }
        Ok(cell)
    }

    /// Seals the games `ids` of a tournament that is not over with `seal` (see [`Seal`]): the
    /// ones in memory now, and any taken into memory later (created, read back, taken over)
    /// until [`Shared::unseal`]. The tournament layer calls it for every game it books (before
    /// the game exists) and, at start or when it takes a tournament over, for the games it
    /// booked before.
    pub fn seal(&self, ids: &[String], seal: &Seal) {
        {
            let mut seals = self.seals.write().expect("lock");
            for id in ids {
                seals.insert(id.clone(), seal.clone());
            }
        }
        let cells: Vec<_> = {
            let games = self.games.read().expect("lock");
            ids.iter().filter_map(|id| games.get(id).cloned()).collect()
        };
        for cell in cells {
            // At start and at a take-over nothing has the lock yet; otherwise the game sets it
            // under its lock, before anything more is published.
            match cell.state.clone().try_lock_owned() {
                Ok(mut st) => st.seal = Some(seal.clone()),
                Err(_) => {
                    let seal = seal.clone();
                    tokio::spawn(async move { cell.state.lock().await.seal = Some(seal) });
                }
            }
        }
    }

    /// Forgets the seals of `ids`, whose tournament is over (its seal opened already: the
    /// games in memory hold it open).
    pub fn unseal(&self, ids: &[String]) {
        let mut seals = self.seals.write().expect("lock");
        for id in ids {
            seals.remove(id);
        }
    }

    /// Gives `st`, just taken into memory, its seal: the one its tournament registered here,
    /// or, in a cluster, a closed one when the store says it is a game of a tournament not over
    /// that another server holds (a finished game read back here: it stays sealed in this
    /// server's memory, at most [`Config::keep_finished`] after the tournament ends).
    async fn find_seal(&self, st: &mut GameState) -> Result<(), GameError> {
        if let Some(seal) = self.seals.read().expect("lock").get(&st.info.id) {
            st.seal = Some(seal.clone());
            return Ok(());
        }
        // Only a tournament seats entrants, and in every seat at once: any other game is asked
        // nothing (the store finds a game's tournament by a scan).
        let entrants = (0..st.players()).all(|s| st.entrant_seat(s));
        if self.cfg.cluster_addr.is_some() && entrants {
            let finished = pb::TournamentStatus::Finished as i32;
            if self.store.tournament_status_of(&st.info.id).await?.is_some_and(|s| s != finished) {
                st.seal = Some(Seal::closed());
            }
        }
        Ok(())
    }

    /// Games in memory (for tests and measurements).
    pub fn games_in_memory(&self) -> usize {
        self.games.read().expect("lock").len()
    }

    /// Schedules the finished game `id` to leave memory after [`Config::keep_finished`], with
    /// the seat tokens `tokens` (hashes) from the token map.
    fn keep_for_a_while(&self, id: &str, tokens: Vec<[u8; 32]>) {
        let due = Instant::now() + self.cfg.keep_finished;
        self.finished.lock().expect("lock").push_back(Leaving { due, id: id.to_owned(), tokens });
    }

    /// For a graceful stop: from now on no watch stream may start ([`Shared::stopping`]), and
    /// every one open is cut (its client gets UNAVAILABLE, and resumes elsewhere or later).
    /// Watch streams never end on their own: the stop would wait for them forever. A stream
    /// that starts concurrently either sees the flag (its game's lock is taken after the
    /// flag is set) or is registered before this cuts its game's watchers.
    pub async fn cut_watchers(&self) {
        self.stopping.store(true, std::sync::atomic::Ordering::SeqCst);
        let cells: Vec<_> = self.games.read().expect("lock").values().cloned().collect();
        for cell in cells {
            let mut st = cell.state.lock().await;
            for w in st.watchers.drain(..) {
                w.cut.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        }
    }

    /// Whether the server is stopping (no new watch stream): read under the game's lock.
    pub fn stopping(&self) -> bool {
        self.stopping.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Drops from memory the finished games whose time is up, and their seat tokens from the
    /// token map: what a server keeps in memory is bounded by the games in play, not the games
    /// ever played. Anyone still holding one of them finishes with it; the next lookup reads
    /// it back, and a request with one of its tokens is checked against its seats then
    /// ([`ClaimedToken`]).
    pub fn evict_due(&self) -> usize {
        let now = Instant::now();
        let mut due = Vec::new();
        {
            let mut q = self.finished.lock().expect("lock");
            while q.front().is_some_and(|l| l.due <= now) {
                due.push(q.pop_front().expect("front"));
            }
        }
        if due.is_empty() {
            return 0;
        }
        let gone: Vec<Arc<GameCell>> = {
            let mut games = self.games.write().expect("lock");
            due.iter().filter_map(|l| games.remove(l.id.as_str())).collect()
        };
        {
            let mut tokens = self.tokens.write().expect("lock");
            for hash in due.iter().flat_map(|l| &l.tokens) {
                tokens.remove(hash);
            }
        }
        let n = gone.len();
        // A finished game is thousands of allocations: free them outside the map's lock (every
        // action looks its game up there) and off the workers when there is a runtime.
        match tokio::runtime::Handle::try_current() {
            Ok(rt) => drop(rt.spawn_blocking(move || drop(gone))),
            Err(_) => drop(gone),
        }
        n
    }

    /// Sets what runs after every change of a game, in this order (once, at start: see
    /// [`game::open`](super::open)). Without hooks, changes are made and published only.
    pub fn set_hooks(&self, hooks: Vec<Arc<dyn AfterChange>>) {
        if self.hooks.set(hooks).is_err() {
            panic!("the hooks are set once");
        }
    }

    /// Runs the hooks after a change of `st` was made durable and published (under its lock).
    pub fn after_change(&self, st: &mut GameState) {
        for hook in self.hooks.get().into_iter().flatten() {
            hook.after_change(self, st);
        }
    }

    /// Counts one more unfinished game against `caller` (see [`QuotaKey`]), if it is under
    /// [`Config::max_open_games_per_caller`]; RESOURCE_EXHAUSTED if not. The game created then
    /// gives it back when it ends; [`Shared::release_caller`] if it was not created.
    pub fn reserve(&self, caller: Option<&QuotaKey>) -> Result<(), GameError> {
        if self.reserve_up_to(caller, 1) == 1 {
            return Ok(());
        }
        Err(GameError::Quota(self.cfg.max_open_games_per_caller))
    }

    /// Counts up to `n` more unfinished games against `caller`, as many as its limit allows;
    /// how many were counted (all of them without a key).
    pub fn reserve_up_to(&self, caller: Option<&QuotaKey>, n: u32) -> u32 {
        let Some(key) = caller else { return n };
        let mut m = self.open_by_caller.lock().expect("lock");
        let used = m.entry(key.clone()).or_insert(0);
        let granted = n.min(self.cfg.max_open_games_per_caller.saturating_sub(*used));
        *used += granted;
        if *used == 0 {
            m.remove(key);
        }
        granted
    }

    /// Registers game `id`, created by `caller` (reserved with [`Shared::reserve`]), so that its
    /// end gives the reservation back.
    fn charge(&self, id: &str, caller: Option<&QuotaKey>) {
        if let Some(key) = caller {
            self.creator.lock().expect("lock").insert(id.to_owned(), key.clone());
        }
    }

    /// A new game's fixed facts.
    fn new_info(
        id: String,
        format: engine::Format,
        clock: pb::TurnClock,
        house_bot: String,
        seed: u64,
        fixed_deals: bool,
    ) -> GameInfo {
        GameInfo {
            id,
            format,
            seed,
            secret: random_bytes::<32>(),
            clock,
            house_bot,
            created_ms: now_ms(),
            fixed_deals,
            first_dealer: None,
            rated_pool: None,
        }
    }

    /// Creates a game (durably) and returns its id; it counts against `caller`'s unfinished
    /// games until it ends. A `seed` of 0 draws one at random; any other fixes the deals
    /// ([`GameInfo::fixed_deals`]).
    pub async fn create_game(
        &self,
        format: engine::Format,
        clock: pb::TurnClock,
        house_bot: String,
        seed: u64,
        caller: Option<&QuotaKey>,
    ) -> Result<String, GameError> {
        self.create_game_dealt_by(format, clock, house_bot, seed, None, caller).await
    }

    /// Creates a rated game of the pool `pool` (checked by the caller: a layer above knows the
    /// pools): the server's seed, no house bot; only accounts take its seats
    /// ([`GameInfo::rated_pool`]).
    pub async fn create_rated_game(
        &self,
        format: engine::Format,
        clock: pb::TurnClock,
        pool: String,
        caller: Option<&QuotaKey>,
    ) -> Result<String, GameError> {
        self.create_game_with(format, clock, String::new(), 0, None, Some(pool), caller).await
    }

    /// [`Shared::create_game`] with the first dealer chosen (two-player gin; checked by the
    /// caller).
    pub async fn create_game_dealt_by(
        &self,
        format: engine::Format,
        clock: pb::TurnClock,
        house_bot: String,
        seed: u64,
        first_dealer: Option<u8>,
        caller: Option<&QuotaKey>,
    ) -> Result<String, GameError> {
        self.create_game_with(format, clock, house_bot, seed, first_dealer, None, caller).await
    }

    #[allow(clippy::too_many_arguments)]
    async fn create_game_with(
        &self,
        format: engine::Format,
        clock: pb::TurnClock,
        house_bot: String,
        seed: u64,
        first_dealer: Option<u8>,
        rated_pool: Option<String>,
        caller: Option<&QuotaKey>,
    ) -> Result<String, GameError> {
        self.reserve(caller)?;
        let id = new_id(self.cfg.route_tag.as_deref());
        let (seed, fixed) = if seed == 0 { (random_seed(), false) } else { (seed, true) };
        let info = GameInfo {
            first_dealer,
            rated_pool,
            ..Shared::new_info(id.clone(), format, clock, house_bot, seed, fixed)
        };
        if let Err(e) = self.store.write(vec![Write::CreateGame(new_game(&info))]).await {
            self.release_caller(caller);
            return Err(e.into());
        }
        self.charge(&id, caller);
        self.metrics.games_in_play(info.format.kind()).inc();
        let created = info.created_ms;
        self.games.write().expect("lock").insert(id.clone(), GameCell::new(GameState::new(info)));
        self.open.lock().expect("lock").push((created, id.clone()));
        Ok(id)
    }

    /// Creates game `id` with every seat taken, in one durable write: afterwards the game
    /// exists with its seats or not at all (a tournament books the id and the tokens
    /// first, then creates the game, and after a crash creates it again if it is missing;
    /// quick match seats every partner at once). `seats` are each seat's name, token and
    /// whether a program holds it, one per seat of `format`; with a `house_bot` strategy, the
    /// server's house bot plays the seats marked `bot`. The game counts against `reserved_by`'s unfinished games
    /// until it ends: its caller reserved it ([`Shared::reserve`]); if the store refuses the
    /// game, the reservation is given back. `fixed_deals`: someone chose `seed` (see
    /// [`GameInfo::fixed_deals`]). Fails if the id exists.
    #[allow(clippy::too_many_arguments)]
    pub async fn create_seated_game(
        &self,
        id: String,
        format: engine::Format,
        clock: pb::TurnClock,
        seed: u64,
        fixed_deals: bool,
        seats: Vec<NewSeat>,
        house_bot: String,
        reserved_by: Option<&QuotaKey>,
    ) -> Result<(), GameError> {
        self.create_seated(id, format, clock, seed, fixed_deals, seats, house_bot, None, reserved_by).await
    }

    /// [`Shared::create_seated_game`] for a rated game of the pool `pool` (checked by the
    /// caller), every seat an account's: the server's seed. `house_bot` (a strategy, checked
    /// by the caller; empty: none) plays the seats marked `bot`, which must then be the
    /// house's own rated accounts (the ladder's house bots).
    #[allow(clippy::too_many_arguments)]
    pub async fn create_rated_seated_game(
        &self,
        id: String,
        format: engine::Format,
        clock: pb::TurnClock,
        seats: Vec<NewSeat>,
        pool: String,
        house_bot: String,
        reserved_by: Option<&QuotaKey>,
    ) -> Result<(), GameError> {
        if seats.iter().any(|s| s.account.is_none()) {
            return Err(GameError::Refused("a rated game seats signed-in accounts only".into()));
        }
        let seed = random_seed();
        self.create_seated(id, format, clock, seed, false, seats, house_bot, Some(pool), reserved_by).await
    }

    #[allow(clippy::too_many_arguments)]
    async fn create_seated(
        &self,
        id: String,
        format: engine::Format,
        clock: pb::TurnClock,
        seed: u64,
        fixed_deals: bool,
        seats: Vec<NewSeat>,
        house_bot: String,
        rated_pool: Option<String>,
        reserved_by: Option<&QuotaKey>,
    ) -> Result<(), GameError> {
        if seats.len() != format.players() as usize {
            return Err(GameError::Internal(format!(
                "{} seats for a table of {}",
                seats.len(),
                format.players()
            )));
        }
        let info = GameInfo {
            rated_pool,
            ..Shared::new_info(id.clone(), format, clock, house_bot, seed, fixed_deals)
        };
        let mut writes = vec![Write::CreateGame(new_game(&info))];
        let now = info.created_ms;
        let mut st = GameState::new(info);
        st.seal = self.seals.read().expect("lock").get(&id).cloned();
        let mut hashes = Vec::new();
        // The names were checked (`clean_name`) when their players asked: quick-match callers,
        // tournament entrants when they entered. Not checked again, so entrants stored before a
        // stricter check still get their games.
        for (seat, NewSeat { name, token, bot, account }) in (0u8..).zip(seats) {
            let hash = token_hash(&token);
            let account_id = account.as_ref().map(|a| a.id.clone());
            st.seat(seat, Seated { name: name.clone(), account, token_hash: hash, bot }, now);
            writes.push(Write::TakeSeat {
                game_id: id.clone(),
                seat: SeatRow { seat, name, token_hash: hash, bot, joined_ms: now, account_id },
            });
            hashes.push((hash, seat));
        }
        writes.append(&mut st.pending);
        if let Err(e) = self.store.write(writes).await {
            self.release_caller(reserved_by);
            return Err(e.into());
        }
        self.charge(&id, reserved_by);
        self.metrics.games_in_play(st.info.format.kind()).inc();
        st.publish(0);
        {
            let mut tokens = self.tokens.write().expect("lock");
            for (hash, seat) in hashes {
                tokens.insert(hash, (id.clone(), seat));
            }
        }
        // Someone may have read it back from the store meanwhile (its id is listed by the
        // tournament once booked): keep theirs, the same durable state.
        let cell = self.games.write().expect("lock").entry(id).or_insert_with(|| GameCell::new(st)).clone();
        let mut st = cell.state.lock().await;
        self.after_change(&mut st);
        Ok(())
    }

    /// The account `id` as seats show it.
    pub fn seat_account(&self, id: &str) -> SeatAccount {
        match &self.directory {
            Some(d) => d.seat_account(id),
            None => SeatAccount { id: id.to_owned(), name: String::new(), kind: 0, deleted: Arc::default() },
        }
    }

    /// Rebuilds a game from its stored facts and log, its seats' accounts described.
    fn rebuild(&self, sg: &StoredGame) -> Result<GameState, GameError> {
        rebuild(sg, |id| self.seat_account(id))
    }

    /// Gives taken seat `seat` of game `id` a new token, durably, and returns it: the old one
    /// identifies nobody from then on. For a program that lost its token, or a server that
    /// never kept it (a tournament seats its entrants with tokens it keeps in memory only,
    /// and hands an entrant that re-enters after a restart a new one). Refused for a game that
    /// is over (it takes no actions any more) or a seat nobody took.
    pub async fn new_seat_token(&self, id: &str, seat: u8) -> Result<String, GameError> {
        let cell = self.game(id).await?;
        let mut st = cell.state.lock().await;
        if st.poisoned {
            return Err(GameError::Poisoned);
        }
        if st.is_over() {
            return Err(GameError::Over);
        }
        let Some(old) = st.seats.get(seat as usize).and_then(|s| s.as_ref()).map(|s| s.token_hash) else {
            return Err(GameError::Invalid(format!("seat {seat} of game {id} is not taken")));
        };
        let token = new_token();
        let hash = token_hash(&token);
        let write = Write::SeatToken { game_id: id.to_owned(), seat, token_hash: hash };
        if let Err(e) = self.store.write(vec![write]).await {
            st.poisoned = true;
            return Err(e.into());
        }
        st.seats[seat as usize].as_mut().expect("taken").token_hash = hash;
        let mut tokens = self.tokens.write().expect("lock");
        tokens.remove(&old);
        tokens.insert(hash, (id.to_owned(), seat));
        Ok(token)
    }

    /// Gives back one game [`Shared::reserve`]d by `caller` that was not created.
    pub fn release_caller(&self, caller: Option<&QuotaKey>) {
        let Some(key) = caller else { return };
        let mut m = self.open_by_caller.lock().expect("lock");
        if let Some(n) = m.get_mut(key) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                m.remove(key);
            }
        }
    }

    /// Called when game `st` ends: frees its creator's quota, takes it off the open list; the
    /// game and its seat tokens leave memory after [`Config::keep_finished`].
    pub fn game_ended(&self, st: &GameState) {
        let id = &st.info.id;
        self.metrics.games_in_play(st.info.format.kind()).dec();
        let creator = self.creator.lock().expect("lock").remove(id);
        self.release_caller(creator.as_ref());
        if st.seats.iter().any(Option::is_none) {
            self.open.lock().expect("lock").retain(|(_, g)| g != id);
        }
        let tokens = st.seats.iter().flatten().map(|s| s.token_hash).collect();
        self.keep_for_a_while(id, tokens);
    }

    /// Seats `name` in `cell` (durably); returns the seat and its token. Runs in its own task,
    /// so a caller that goes away cannot cancel it half-way (see `commit::act_as`). A game
    /// that is over takes nobody; one with fixed deals only a player who accepts them
    /// (`accept_fixed_deals`; the server's own seatings, house bots, pass true).
    pub async fn join(
        &self,
        cell: &Arc<GameCell>,
        want: Option<u8>,
        name: String,
        bot: bool,
        accept_fixed_deals: bool,
    ) -> Result<(u8, String), GameError> {
        self.join_as(cell, want, name, bot, accept_fixed_deals, None).await
    }

    /// [`Shared::join`] for `account` (a seat taken while signed in: stored with the seat, the
    /// seat showing the account); an account holds at most one seat of a game.
    pub async fn join_as(
        &self,
        cell: &Arc<GameCell>,
        want: Option<u8>,
        name: String,
        bot: bool,
        accept_fixed_deals: bool,
        account: Option<SeatAccount>,
    ) -> Result<(u8, String), GameError> {
        let (s, cell) = (self.clone(), cell.clone());
        // In the call's span (its log lines say which call and game).
        let join = async move { s.join_now(&cell, want, name, bot, accept_fixed_deals, account).await };
        tokio::spawn(tracing::Instrument::in_current_span(join))
            .await
            .map_err(|e| GameError::Internal(format!("join task: {e}")))?
    }

    async fn join_now(
        &self,
        cell: &GameCell,
        want: Option<u8>,
        name: String,
        bot: bool,
        accept_fixed_deals: bool,
        account: Option<SeatAccount>,
    ) -> Result<(u8, String), GameError> {
        let name = clean_name(&name)?;
        let mut st = cell.state.lock().await;
        if st.poisoned {
            return Err(GameError::Poisoned);
        }
        if st.is_over() {
            return Err(GameError::NoMorePlayers);
        }
        if st.info.fixed_deals && !accept_fixed_deals {
            return Err(GameError::FixedDeals);
        }
        if st.info.rated_pool.is_some() && account.is_none() {
            return Err(GameError::Refused(
                "a rated game seats signed-in accounts only: join with an account token".into(),
            ));
        }
        if let Some(a) = &account
            && st.seats.iter().flatten().any(|s| s.account.as_ref().is_some_and(|b| b.id == a.id))
        {
            return Err(GameError::Refused("this account holds a seat of this game already".into()));
        }
        let seat = st.free_seat(want)?;
        let token = new_token();
        let hash = token_hash(&token);
        let now = now_ms();
        let before = st.last_seq();
        let account_id = account.as_ref().map(|a| a.id.clone());
        st.seat(seat, Seated { name: name.clone(), account, token_hash: hash, bot }, now);
        let mut writes = vec![Write::TakeSeat {
            game_id: st.info.id.clone(),
            seat: SeatRow { seat, name, token_hash: hash, bot, joined_ms: now, account_id },
        }];
        writes.append(&mut st.pending);
        if let Err(e) = self.store.write(writes).await {
            st.poisoned = true;
            return Err(e.into());
        }
        self.tokens.write().expect("lock").insert(hash, (st.info.id.clone(), seat));
        if st.seats.iter().all(Option::is_some) {
            let id = st.info.id.clone();
            self.open.lock().expect("lock").retain(|(_, g)| *g != id);
        }
        st.publish(before);
        self.after_change(&mut st);
        Ok((seat, token))
    }
}

/// The stored row of a new game.
fn new_game(info: &GameInfo) -> NewGame {
    NewGame {
        id: info.id.clone(),
        // Two-player gin: the rule set, as always; other formats: the format's document
        // (with its `kind`).
        rules_json: match &info.format {
            engine::Format::Gin(rules) => serde_json::to_string(rules).expect("rules serialize"),
            f => f.to_value().to_string(),
        },
        seed: info.seed,
        secret: info.secret,
        clock_millis: info.clock.turn_millis,
        clock_policy: info.clock.policy,
        house_bot: info.house_bot.clone(),
        created_ms: info.created_ms,
        fixed_deals: info.fixed_deals,
        first_dealer: info.first_dealer,
        rated_pool: info.rated_pool.clone(),
    }
}

/// A seat of a game created with both seats taken ([`Shared::create_seated_game`]).
pub struct NewSeat {
    /// The display name, checked already ([`clean_name`]).
    pub name: String,
    /// Its seat token (chosen by the caller, who hands it out).
    pub token: String,
    /// The server seats a program in it: the house bot (in a game with a house bot strategy:
    /// see [`Shared::create_seated_game`]) or, in a game without one, a tournament's entrant
    /// (stored as the same flag: [`GameState::entrant_seat`]).
    pub bot: bool,
    /// The account taking it (signed in), if any.
    pub account: Option<SeatAccount>,
}

/// A display name, trimmed; INVALID_ARGUMENT (`name: …`) when too long or holding characters
/// `gin_proto::text` refuses (controls, bidi and zero-width format characters…).
pub fn clean_name(name: &str) -> Result<String, GameError> {
    let n = name.trim();
    gin_proto::text::check("name", n, gin_proto::text::NAME_MAX)?;
    Ok(if n.is_empty() { "player".into() } else { n.to_string() })
}

/// Rebuilds a game from its stored facts and log; `account` describes a seat's account by its id.
fn rebuild(sg: &StoredGame, account: impl Fn(&str) -> SeatAccount) -> Result<GameState, GameError> {
    let why = |why: String| GameError::Replay { id: sg.game.id.clone(), why };
    replay(sg, account).map_err(why)
}

fn replay(sg: &StoredGame, account: impl Fn(&str) -> SeatAccount) -> Result<GameState, String> {
    let g = &sg.game;
    let format = stored_format(&g.rules_json)?;
    let info = GameInfo {
        id: g.id.clone(),
        format,
        seed: g.seed,
        secret: g.secret,
        clock: pb::TurnClock { turn_millis: g.clock_millis, policy: g.clock_policy },
        house_bot: g.house_bot.clone(),
        created_ms: g.created_ms,
        fixed_deals: g.fixed_deals,
        first_dealer: g.first_dealer,
        rated_pool: g.rated_pool.clone(),
    };
    let mut st = GameState::new(info);
    for s in &sg.seats {
        let seat = s.seat;
        if seat >= st.players() {
            return Err(format!("bad seat {seat}"));
        }
        // An account this server has not learnt of yet (registered at another server of a
        // cluster a moment ago): the seat's own name is the account's (a seat taken signed in
        // is named as its account); its kind comes with the registry's next poll.
        let account = s.account_id.as_deref().map(&account).map(|mut a| {
            if a.name.is_empty() {
                a.name = s.name.clone();
            }
            a
        });
        let seated = Seated { name: s.name.clone(), account, token_hash: s.token_hash, bot: s.bot };
        st.seat(seat, seated, s.joined_ms);
    }
    st.pending.clear();
    for a in &sg.actions {
        st.replay(a)?;
    }
    Ok(st)
}

/// A stored game's format: a two-player rule set (no `kind`), or a format's document.
pub fn stored_format(json: &str) -> Result<engine::Format, String> {
    let v: serde_json::Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
    if v.get("kind").is_none() {
        let rules: engine::RuleSet = serde_json::from_value(v).map_err(|e| e.to_string())?;
        return Ok(engine::Format::Gin(rules));
    }
    engine::Format::from_value(v).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::new_id;

    #[test]
    fn a_route_tag_starts_every_new_id() {
        let plain = new_id(None);
        assert_eq!(plain.len(), 16);
        assert!(plain.bytes().all(|b| b.is_ascii_hexdigit()), "{plain}");
        let tagged = new_id(Some("s2"));
        let (tag, rest) = tagged.split_once('-').expect("tag-…");
        assert_eq!(tag, "s2");
        assert_eq!(rest.len(), 16);
        assert!(rest.bytes().all(|b| b.is_ascii_hexdigit()), "{tagged}");
        assert_ne!(new_id(Some("s2")), tagged, "random");
    }

    /// A game rebuilt where the account registry does not know a seat's account yet (a
    /// take-over right after the account registered at another server) shows the account by
    /// the seat's own name, not an empty one; a known account by its registered name.
    #[test]
    fn a_seat_of_an_account_not_known_yet_is_named_as_its_seat() {
        use crate::game::state::SeatAccount;
        use crate::storage::{NewGame, SeatRow, StoredGame};
        let seat = |n: u8, name: &str, account: &str| SeatRow {
            seat: n,
            name: name.into(),
            token_hash: [n; 32],
            bot: false,
            joined_ms: 1,
            account_id: Some(account.into()),
        };
        let sg = StoredGame {
            game: NewGame {
                id: "g".into(),
                rules_json: serde_json::to_string(&engine::RuleSet::standard()).unwrap(),
                seed: 5,
                secret: [0; 32],
                clock_millis: 0,
                clock_policy: 0,
                house_bot: String::new(),
                created_ms: 1,
                fixed_deals: false,
                first_dealer: None,
                rated_pool: None,
            },
            seats: vec![seat(0, "Ann", "known"), seat(1, "Newcomer", "unknown")],
            actions: Vec::new(),
            finished: None,
        };
        let directory = |id: &str| SeatAccount {
            id: id.into(),
            name: if id == "known" { "Ann".into() } else { String::new() },
            kind: if id == "known" { 2 } else { 0 },
            deleted: Default::default(),
        };
        let st = super::replay(&sg, directory).unwrap();
        let named: Vec<String> =
            st.seats.iter().map(|s| s.as_ref().unwrap().account.as_ref().unwrap().name.clone()).collect();
        assert_eq!(named, ["Ann", "Newcomer"]);
    }
}
