//! Tournaments run by the server: entrants, pairings (round robin, gauntlet, Swiss),
//! duplicate deals, a bounded number of games at once, standings with Elo, an optional SPRT
//! stop rule, results as JSON and CSV. Durable: tournaments, entrants and their games are
//! written to the same SQLite file as the games (own tables, own connection) and resumed at
//! start.
//!
//! A tournament's games are ordinary server games with both seats taken at creation; each
//! entrant gets its seat token in an assignment on its `JoinTournament` stream and plays with
//! the ordinary `GameService`. A driver task per running tournament creates games up to the
//! `parallel` limit and polls the running ones for their end.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::Path;
use std::pin::Pin;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use engine::RuleSet;
use gin_proto::v1 as pb;
use gin_proto::v1::tournament_service_server::TournamentService;
use gin_strategies::rng::derive;
use gin_strategies::stats::{Sprt, SprtState, Tally};
use prost::Message;
use rusqlite::{Connection, params};
use tokio::sync::{mpsc, watch};
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

pub mod pairing;
use crate::game::GameError;
use crate::game::shared::{NewSeat, Shared, now_ms, random_bytes, token_hash};

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS tournaments (
    id         TEXT    NOT NULL PRIMARY KEY,
    spec       BLOB    NOT NULL,
    created_ms INTEGER NOT NULL,
    status     INTEGER NOT NULL,
    fixed_deals INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS tournament_entrants (
    tournament_id TEXT    NOT NULL REFERENCES tournaments (id),
    idx           INTEGER NOT NULL,
    name          TEXT    NOT NULL,
    token_hash    BLOB    NOT NULL CHECK (length(token_hash) = 32),
    PRIMARY KEY (tournament_id, idx)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tournament_games (
    tournament_id TEXT    NOT NULL REFERENCES tournaments (id),
    number        INTEGER NOT NULL,
    round         INTEGER NOT NULL,
    game_id       TEXT    NOT NULL,
    seat0         INTEGER NOT NULL,
    seat1         INTEGER NOT NULL,
    -- Always '' (seat tokens are never stored: their hashes are the games' seats').
    token0        TEXT    NOT NULL,
    token1        TEXT    NOT NULL,
    deal_seed     INTEGER NOT NULL,
    done          INTEGER NOT NULL,
    winner        INTEGER,
    total0        INTEGER,
    total1        INTEGER,
    PRIMARY KEY (tournament_id, number)
) WITHOUT ROWID;
";

/// The most games one tournament may play (its plan is held in memory).
const MAX_GAMES: u64 = 1_000_000;
/// The most games one tournament may have in play at once (its creator's limit of unfinished
/// games may be lower: see `Tournaments::create`).
const MAX_PARALLEL: u32 = 256;

/// A validated tournament spec.
#[derive(Clone, Debug)]
struct Spec {
    /// As given, with defaults filled in and the seed drawn.
    pb: pb::TournamentSpec,
    format: pb::TournamentFormat,
    entrants: u32,
    /// Games per pairing (even with duplicate deals).
    per_pairing: u32,
    duplicate: bool,
    rules: RuleSet,
    clock: pb::TurnClock,
    parallel: u32,
    rounds: u32,
    sprt: Option<Sprt>,
    seed: u64,
    /// The creator chose the seed: it may know every deal (see [`pb::TournamentState`]'s
    /// `fixed_deals`). Stored in its own column (the stored spec has the seed filled in).
    fixed: bool,
}

impl Spec {
    /// Validates `p` and fills its defaults: for a new spec and for one read back at start
    /// (the text a caller sets is checked before, in `create`).
    fn new(mut p: pb::TournamentSpec) -> Result<Spec, Status> {
        let format = pb::TournamentFormat::try_from(p.format)
            .map_err(|_| Status::invalid_argument("spec.format: unknown value"))?;
        let format = if format == pb::TournamentFormat::Unspecified {
            pb::TournamentFormat::RoundRobin
        } else {
            format
        };
        if !(2..=64).contains(&p.entrants) {
            return Err(Status::invalid_argument("spec.entrants: 2 to 64"));
        }
        if !(1..=10_000).contains(&p.games_per_pairing) {
            return Err(Status::invalid_argument("spec.games_per_pairing: 1 to 10000"));
        }
        let per_pairing = if p.duplicate { p.games_per_pairing.div_ceil(2) * 2 } else { p.games_per_pairing };
        let rules = crate::api::convert::stored_rules(p.rules.as_ref())?;
        let clock = crate::api::convert::clock(p.clock)?;
        let parallel = if p.parallel == 0 { 16 } else { p.parallel };
        if parallel > MAX_PARALLEL {
            return Err(Status::invalid_argument(format!("spec.parallel: at most {MAX_PARALLEL}")));
        }
        let rounds = match format {
            pb::TournamentFormat::Swiss if p.rounds == 0 => pairing::swiss_default_rounds(p.entrants),
            pb::TournamentFormat::Swiss if p.rounds > 100 => {
                return Err(Status::invalid_argument("spec.rounds: at most 100"));
            }
            pb::TournamentFormat::Swiss => p.rounds,
            _ => 1,
        };
        let sprt = match &p.sprt {
            None => None,
            Some(s) => {
                if p.entrants != 2 {
                    return Err(Status::invalid_argument("spec.sprt: only with exactly 2 entrants"));
                }
                let alpha = if s.alpha == 0.0 { 0.05 } else { s.alpha };
                let beta = if s.beta == 0.0 { 0.05 } else { s.beta };
                let in_range = |x: f64| x > 0.0 && x < 0.5;
                if !in_range(alpha) || !in_range(beta) {
                    return Err(Status::invalid_argument("spec.sprt: alpha and beta between 0 and 0.5"));
                }
                let ordered = s.elo0.is_finite() && s.elo1.is_finite() && s.elo1 > s.elo0;
                if !ordered {
                    return Err(Status::invalid_argument("spec.sprt: elo1 must be greater than elo0"));
                }
                Some(Sprt { elo0: s.elo0, elo1: s.elo1, alpha, beta })
            }
        };
        let fixed = p.seed != 0;
        let seed = if fixed { p.seed } else { u64::from_le_bytes(random_bytes::<8>()) };
        let n = p.entrants as u64;
        let pairs = match format {
            pb::TournamentFormat::Gauntlet => n - 1,
            pb::TournamentFormat::Swiss => n / 2 * rounds as u64,
            _ => n * (n - 1) / 2,
        };
        if pairs * per_pairing as u64 > MAX_GAMES {
            return Err(Status::invalid_argument(format!(
                "spec: {} games in all; at most {MAX_GAMES} per tournament",
                pairs * per_pairing as u64
            )));
        }
        p.seed = seed;
        p.format = format as i32;
        p.parallel = parallel;
        p.rounds = if format == pb::TournamentFormat::Swiss { rounds } else { 0 };
        p.rules =
            Some(pb::Rules { kind: Some(pb::rules::Kind::Custom(crate::game::wire::rule_set(&rules))) });
        p.clock = Some(clock);
        if let (Some(s), Some(v)) = (&sprt, p.sprt.as_mut()) {
            v.alpha = s.alpha;
            v.beta = s.beta;
        }
        Ok(Spec {
            pb: p.clone(),
            format,
            entrants: p.entrants,
            per_pairing,
            duplicate: p.duplicate,
            rules,
            clock,
            parallel,
            rounds,
            sprt,
            seed,
            fixed,
        })
    }

    /// Games per round's pairings.
    fn pairs_per_round(&self) -> u32 {
        let n = self.entrants;
        match self.format {
            pb::TournamentFormat::Gauntlet => n - 1,
            pb::TournamentFormat::Swiss => n / 2,
            _ => n * (n - 1) / 2,
        }
    }

    /// The most games the tournament plays.
    fn total_games(&self) -> u32 {
        self.pairs_per_round() * self.per_pairing * self.rounds
    }

    /// The games of `pairs` in round `round`, in play order: each pairing's games
    /// alternate seats; with duplicate deals, games 2k and 2k+1 share a deal.
    fn plan(&self, round: u32, pairs: &[(u32, u32)]) -> Vec<Planned> {
        let mut v = Vec::new();
        for (p, &(i, j)) in pairs.iter().enumerate() {
            for k in 0..self.per_pairing {
                let deal = if self.duplicate { k / 2 } else { k };
                v.push(Planned {
                    round,
                    seats: if k % 2 == 0 { [i, j] } else { [j, i] },
                    deal_seed: derive(derive(self.seed, round as u64), ((p as u64) << 20) | deal as u64),
                });
            }
        }
        v
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Planned {
    round: u32,
    seats: [u32; 2],
    deal_seed: u64,
}

#[derive(Clone, Debug)]
struct TGame {
    number: u32,
    round: u32,
    game_id: String,
    seats: [u32; 2],
    /// The seats' tokens, in memory only: the store keeps their hashes (with the game's
    /// seats), never the tokens. `None` after a restart, until the entrant re-enters and is
    /// handed a new one ([`Tournaments::seat_token`]).
    tokens: [Option<String>; 2],
    deal_seed: u64,
    done: bool,
    winner: Option<u32>,
    totals: [u32; 2],
    /// The game exists on the server (not stored: a booked game is created right after its
    /// booking, or by the driver after a crash between the two). Its seats are assigned only
    /// then.
    created: bool,
}

#[derive(Clone, Debug)]
struct Entrant {
    name: String,
    token_hash: [u8; 32],
}

struct TState {
    id: String,
    spec: Spec,
    /// Who created it (its games count against that address's unfinished games); not
    /// stored: after a restart its games count against nobody, like every game's.
    creator: Option<std::net::IpAddr>,
    status: pb::TournamentStatus,
    entrants: Vec<Entrant>,
    games: Vec<TGame>,
    planned: VecDeque<Planned>,
    /// Games being created now (counted as running).
    creating: u32,
    /// The next game's number.
    next_number: u32,
    /// The Swiss round in play (1-based; 1 for the other formats).
    round: u32,
    byes: HashSet<u32>,
    sprt: Option<(SprtState, f64)>,
}

impl TState {
    fn running(&self) -> u32 {
        self.games.iter().filter(|g| !g.done).count() as u32 + self.creating
    }

    fn done(&self) -> u32 {
        self.games.iter().filter(|g| g.done).count() as u32
    }

    /// Plans round `round` (the first, or the next Swiss round after the last is done).
    fn plan_round(&mut self, round: u32) {
        let spec = &self.spec;
        let pairs = match spec.format {
            pb::TournamentFormat::Gauntlet => pairing::gauntlet(spec.entrants),
            pb::TournamentFormat::Swiss => {
                let scores: Vec<f64> = (0..spec.entrants).map(|e| self.tally(e).sum).collect();
                let met: HashSet<(u32, u32)> = self
                    .games
                    .iter()
                    .map(|g| (g.seats[0].min(g.seats[1]), g.seats[0].max(g.seats[1])))
                    .collect();
                let (pairs, bye) = pairing::swiss_round(&scores, &met, &self.byes);
                if let Some(b) = bye {
                    self.byes.insert(b);
                }
                pairs
            }
            _ => pairing::round_robin(spec.entrants),
        };
        self.round = round;
        self.planned = self.spec.plan(round, &pairs).into();
    }

    /// Takes from the plan up to `n` games to start now, in plan order, skipping a game whose
    /// deal is in play in another game: the other half of its duplicate pair, seats swapped,
    /// where an entrant would hold the hand its opponent holds here. So the second game of a
    /// pair starts only once the first is over. (Every other game has a deal of its own.)
    fn take_playable(&mut self, n: usize) -> Vec<Planned> {
        let mut busy: HashSet<u64> = if self.spec.duplicate {
            self.games.iter().filter(|g| !g.done).map(|g| g.deal_seed).collect()
        } else {
            HashSet::new()
        };
        let mut out = Vec::new();
        while out.len() < n {
            let Some(i) = self.planned.iter().position(|p| !busy.contains(&p.deal_seed)) else { break };
            let p = self.planned.remove(i).expect("found above");
            busy.insert(p.deal_seed);
            out.push(p);
        }
        out
    }

    /// Entrant `e`'s per-game scores.
    fn tally(&self, e: u32) -> Tally {
        let mut t = Tally::default();
        for g in self.games.iter().filter(|g| g.done) {
            let Some(s) = g.seats.iter().position(|&x| x == e) else { continue };
            t.add(match g.winner {
                Some(w) if w as usize == s => 1.0,
                Some(_) => 0.0,
                None => 0.5,
            });
        }
        t
    }

    fn standings(&self) -> pb::Standings {
        let mut rows: Vec<pb::Standing> = (0..self.entrants.len() as u32)
            .map(|e| {
                let mut r = pb::Standing {
                    entrant: e,
                    name: self.entrants[e as usize].name.clone(),
                    ..Default::default()
                };
                for g in self.games.iter().filter(|g| g.done) {
                    let Some(s) = g.seats.iter().position(|&x| x == e) else { continue };
                    r.games += 1;
                    match g.winner {
                        Some(w) if w as usize == s => r.wins += 1,
                        Some(_) => r.losses += 1,
                        None => r.draws += 1,
                    }
                    r.points_for += g.totals[s] as u64;
                    r.points_against += g.totals[1 - s] as u64;
                }
                let t = self.tally(e);
                r.score = t.mean();
                if let Some(est) = t.elo() {
                    (r.elo, r.elo_low, r.elo_high) = (est.elo, est.low, est.high);
                }
                r
            })
            .collect();
        rows.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then(
                    (b.points_for as i64 - b.points_against as i64)
                        .cmp(&(a.points_for as i64 - a.points_against as i64)),
                )
                .then(a.entrant.cmp(&b.entrant))
        });
        pb::Standings { rows }
    }

    fn state(&self, with_games: bool) -> pb::TournamentState {
        let over = self.status == pb::TournamentStatus::Finished;
        let mut spec = self.spec.pb.clone();
        if !over {
            spec.seed = 0; // every deal derives from it: secret until the end
        }
        let (lo, hi) = self.spec.sprt.map(|s| s.bounds()).unwrap_or((0.0, 0.0));
        pb::TournamentState {
            tournament_id: self.id.clone(),
            spec: Some(spec),
            status: self.status as i32,
            games_done: self.done(),
            games_total: self.spec.total_games(),
            games_running: self.running(),
            standings: Some(self.standings()),
            games: if with_games {
                self.games
                    .iter()
                    .map(|g| pb::TournamentGame {
                        number: g.number,
                        round: g.round,
                        game_id: g.game_id.clone(),
                        seat0: g.seats[0],
                        seat1: g.seats[1],
                        deal_seed: if over { g.deal_seed } else { 0 },
                        done: g.done,
                        winner: g.winner,
                        totals: if g.done { g.totals.to_vec() } else { Vec::new() },
                    })
                    .collect()
            } else {
                Vec::new()
            },
            sprt_state: match self.sprt {
                None if self.spec.sprt.is_some() => "continue".into(),
                None => String::new(),
                Some((s, _)) => sprt_name(s).into(),
            },
            sprt_llr: self.sprt.map_or(0.0, |s| s.1),
            sprt_lower: lo,
            sprt_upper: hi,
            fixed_deals: self.spec.fixed,
        }
    }

    /// Books a finished game's result; returns false if it was already booked.
    fn finish_game(&mut self, number: u32, winner: Option<u32>, totals: [u32; 2]) -> bool {
        let Some(g) = self.games.iter_mut().find(|g| g.number == number) else { return false };
        if g.done {
            return false;
        }
        g.done = true;
        g.winner = winner;
        g.totals = totals;
        true
    }

    /// After results: the SPRT, the next Swiss round, the end. Returns true when it finished.
    fn advance(&mut self) -> bool {
        if self.status != pb::TournamentStatus::Running {
            return false;
        }
        if let Some(s) = self.spec.sprt {
            let t = self.tally(0);
            let st = s.state(&t);
            let llr = t.llr(s.elo0, s.elo1);
            self.sprt = Some((st, llr));
            if st != SprtState::Continue {
                self.planned.clear();
            }
        }
        let stopped = matches!(self.sprt, Some((s, _)) if s != SprtState::Continue);
        if self.planned.is_empty() && self.running() == 0 {
            if !stopped && self.spec.format == pb::TournamentFormat::Swiss && self.round < self.spec.rounds {
                let next = self.round + 1;
                self.plan_round(next);
                return false;
            }
            self.status = pb::TournamentStatus::Finished;
            return true;
        }
        false
    }
}

fn sprt_name(s: SprtState) -> &'static str {
    match s {
        SprtState::Continue => "continue",
        SprtState::AcceptH1 => "accept_h1",
        SprtState::AcceptH0 => "accept_h0",
    }
}

struct TCell {
    st: Mutex<TState>,
    /// Bumped at every change; streams wait on it.
    version: watch::Sender<u64>,
    /// Held while a seat's new token is made, so two streams of one entrant (a re-entry
    /// while the old stream ends) never give one seat two tokens in turn.
    new_tokens: tokio::sync::Mutex<()>,
}

impl TCell {
    fn bump(&self) {
        self.version.send_modify(|v| *v += 1);
    }

    /// Marks game `number` as existing on the server; whether that is news.
    fn created(&self, number: u32) -> bool {
        let mut st = self.st.lock().expect("lock");
        match st.games.iter_mut().find(|g| g.number == number) {
            Some(g) if !g.created => {
                g.created = true;
                true
            }
            _ => false,
        }
    }
}

/// The tournaments of a server: a cheap `Clone` handle.
#[derive(Clone)]
pub struct Tournaments(Arc<Inner>);

struct Inner {
    shared: Shared,
    db: Arc<Mutex<Connection>>,
    map: RwLock<HashMap<String, Arc<TCell>>>,
    /// Creation order, for listing.
    order: Mutex<Vec<(i64, String)>>,
    shutdown: watch::Sender<bool>,
}

fn db_err(e: rusqlite::Error) -> anyhow::Error {
    anyhow::anyhow!("tournament storage: {e}")
}

impl Tournaments {
    /// Opens the tournament tables in `db` (creating them) and resumes every unfinished
    /// tournament.
    pub fn open(shared: Shared, db: &Path) -> anyhow::Result<Tournaments> {
        let conn = Connection::open(db).map_err(db_err)?;
        conn.busy_timeout(Duration::from_secs(10)).map_err(db_err)?;
        conn.pragma_update(None, "synchronous", "FULL").map_err(db_err)?;
        // What is deleted or overwritten is zeroed in the file (the seat tokens below).
        conn.pragma_update(None, "secure_delete", "ON").map_err(db_err)?;
        conn.execute_batch(SCHEMA).map_err(db_err)?;
        // Seat tokens were stored in plain text before 2026-11-24: gone (their hashes are the
        // games' seats'; an entrant that re-enters gets a new token).
        conn.execute(
            "UPDATE tournament_games SET token0 = '', token1 = '' WHERE token0 <> '' OR token1 <> ''",
            [],
        )
        .map_err(db_err)?;
        // Tables made before `fixed_deals` existed (their tournaments' seeds count as drawn).
        if conn.prepare("SELECT fixed_deals FROM tournaments LIMIT 0").is_err() {
            conn.execute_batch("ALTER TABLE tournaments ADD COLUMN fixed_deals INTEGER NOT NULL DEFAULT 0")
                .map_err(db_err)?;
        }
        let loaded = load_all(&conn).map_err(db_err)?;
        let t = Tournaments(Arc::new(Inner {
            shared,
            db: Arc::new(Mutex::new(conn)),
            map: RwLock::new(HashMap::new()),
            order: Mutex::new(Vec::new()),
            shutdown: watch::Sender::new(false),
        }));
        let mut resumed = 0;
        for (created, st) in loaded {
            let running = st.status == pb::TournamentStatus::Running;
            let id = st.id.clone();
            let cell = Arc::new(TCell {
                st: Mutex::new(st),
                version: watch::Sender::new(0),
                new_tokens: Default::default(),
            });
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

    /// Ends every stream (UNAVAILABLE) and stops the drivers: for graceful shutdown.
    pub fn shutdown(&self) {
        self.0.shutdown.send_replace(true);
    }

    fn cell(&self, id: &str) -> Result<Arc<TCell>, Status> {
        self.0
            .map
            .read()
            .expect("lock")
            .get(id)
            .cloned()
            .ok_or_else(|| Status::not_found(format!("no tournament {id:?}")))
    }

    /// Runs `f` on the database connection off the async threads.
    async fn db<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, Status> {
        let db = self.0.db.clone();
        tokio::task::spawn_blocking(move || f(&mut db.lock().expect("lock")))
            .await
            .map_err(|e| Status::internal(format!("tournament storage: {e}")))?
            .map_err(|e| Status::internal(format!("tournament storage: {e}")))
    }

    fn spawn_driver(&self, cell: Arc<TCell>) {
        let t = self.clone();
        tokio::spawn(async move { t.drive(cell).await });
    }

    /// Creates games up to the limit, books finished ones, advances rounds, until the end.
    async fn drive(&self, cell: Arc<TCell>) {
        let mut shutdown = self.0.shutdown.subscribe();
        loop {
            if *shutdown.borrow_and_update() {
                return;
            }
            // Start games.
            let to_create: Vec<(u32, Planned, [String; 2])> = {
                let mut st = cell.st.lock().expect("lock");
                if st.status != pb::TournamentStatus::Running {
                    return;
                }
                let free = st.spec.parallel.saturating_sub(st.running());
                let mut picked = st.take_playable(free as usize);
                // Its games count against its creator's unfinished games: one is reserved for
                // each game started (given back at its end, or if it is not created); the
                // others wait for a game to end.
                let granted = self.0.shared.reserve_up_to(st.creator, picked.len() as u32) as usize;
                for p in picked.drain(granted..).rev() {
                    st.planned.push_front(p);
                }
                let mut v = Vec::with_capacity(picked.len());
                for p in picked {
                    let number = st.next_number;
                    st.next_number += 1;
                    let names = p.seats.map(|e| st.entrants[e as usize].name.clone());
                    v.push((number, p, names));
                }
                st.creating += v.len() as u32;
                v
            };
            // Create them concurrently (their store writes share group commits). A failed
            // one goes back to the plan; a restart finds created games by their deal and
            // seats, whatever their order.
            let mut creations = tokio::task::JoinSet::new();
            for (number, p, names) in to_create {
                let (t, c) = (self.clone(), cell.clone());
                creations.spawn(async move { (p, t.create_game(&c, number, p, names).await) });
            }
            let mut failed = false;
            while let Some(r) = creations.join_next().await {
                match r {
                    Ok((_, Ok(()))) => cell.bump(),
                    Ok((p, Err(e))) => {
                        tracing::warn!(error = %e, "tournament: cannot create a game; retrying");
                        let mut st = cell.st.lock().expect("lock");
                        st.creating -= 1;
                        st.planned.push_front(p);
                        failed = true;
                    }
                    Err(e) => {
                        // A panic (a bug): that game is lost to the plan, but the tournament
                        // must not wait for it forever.
                        tracing::error!(error = %e, "tournament: game creation task failed");
                        cell.st.lock().expect("lock").creating -= 1;
                        failed = true;
                    }
                }
            }
            if failed {
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            // Book finished games.
            let (running, idle) = {
                let st = cell.st.lock().expect("lock");
                let r: Vec<(u32, String, bool)> = st
                    .games
                    .iter()
                    .filter(|g| !g.done)
                    .map(|g| (g.number, g.game_id.clone(), g.created))
                    .collect();
                let idle = r.is_empty() && st.creating == 0 && st.planned.is_empty();
                (r, idle)
            };
            let mut finished = Vec::new();
            for (number, game_id, created) in running {
                let gc = match self.0.shared.game(&game_id).await {
                    Ok(gc) => {
                        if !created && cell.created(number) {
                            cell.bump();
                        }
                        gc
                    }
                    Err(GameError::NotFound(_)) => {
                        // Booked but not created (a crash between the two writes, or a
                        // failed creation): create it now.
                        let booked = {
                            let st = cell.st.lock().expect("lock");
                            st.games.iter().find(|g| g.number == number).cloned().map(|g| {
                                let names = g.seats.map(|e| st.entrants[e as usize].name.clone());
                                (g, names)
                            })
                        };
                        // One of its creator's games for it, once one is free.
                        let creator = cell.st.lock().expect("lock").creator;
                        let booked = booked.filter(|_| self.0.shared.reserve(creator).is_ok());
                        if let Some((g, names)) = booked {
                            match self.ensure_game(&cell, &g, names, true).await {
                                Ok(()) => {
                                    cell.created(number);
                                    cell.bump();
                                }
                                Err(e) => {
                                    tracing::warn!(error = %e, game = %g.game_id, "tournament: cannot create a booked game yet")
                                }
                            }
                        }
                        continue;
                    }
                    Err(_) => continue,
                };
                let gs = gc.state.lock().await;
                if let Some(r) = &gs.ended {
                    let totals =
                        [r.totals.first().copied().unwrap_or(0), r.totals.get(1).copied().unwrap_or(0)];
                    finished.push((number, r.winner, totals));
                }
            }
            // `idle`: nothing left to play or book (e.g. after a restart): advance anyway.
            if !finished.is_empty() || idle {
                let (rows, over, id) = {
                    let mut st = cell.st.lock().expect("lock");
                    let mut rows = Vec::new();
                    for &(number, winner, totals) in &finished {
                        if st.finish_game(number, winner, totals) {
                            rows.push((number, winner, totals));
                        }
                    }
                    let over = st.advance();
                    (rows, over, st.id.clone())
                };
                let tid = id.clone();
                let stored = self
                    .db(move |c| {
                        let tx = c.transaction()?;
                        for (number, winner, totals) in rows {
                            tx.execute(
                                "UPDATE tournament_games SET done = 1, winner = ?3, total0 = ?4, total1 = ?5 \
                                 WHERE tournament_id = ?1 AND number = ?2",
                                params![tid, number, winner, totals[0], totals[1]],
                            )?;
                        }
                        if over {
                            tx.execute(
                                "UPDATE tournaments SET status = ?2 WHERE id = ?1",
                                params![tid, pb::TournamentStatus::Finished as i32],
                            )?;
                        }
                        tx.commit()
                    })
                    .await;
                if let Err(e) = stored {
                    tracing::error!(error = %e, "tournament: cannot store results");
                }
                cell.bump();
                if over {
                    tracing::info!(tournament = %id, "tournament over");
                    return;
                }
            }
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(10)) => {}
                _ = shutdown.changed() => {}
            }
        }
    }

    /// Books one tournament game and creates it with both seats taken. The booking (its row,
    /// with the game's id and seat tokens chosen here) is written first and the game, seats
    /// included, in one write after it: a crash between the two leaves a booked game that
    /// does not exist yet, which the driver creates (see [`Tournaments::ensure_game`]), never a
    /// game the tournament does not know.
    async fn create_game(
        &self,
        cell: &TCell,
        number: u32,
        p: Planned,
        names: [String; 2],
    ) -> Result<(), Status> {
        let tid = cell.st.lock().expect("lock").id.clone();
        let game_id = hex::encode(random_bytes::<8>());
        let tokens = [Some(new_token()), Some(new_token())];
        let g = TGame {
            number,
            round: p.round,
            game_id: game_id.clone(),
            seats: p.seats,
            tokens: tokens.clone(),
            deal_seed: p.deal_seed,
            done: false,
            winner: None,
            totals: [0, 0],
            created: false,
        };
        let booking = self
            .db(move |c| {
                c.execute(
                    "INSERT INTO tournament_games (tournament_id, number, round, game_id, seat0, seat1, token0, \
                     token1, deal_seed, done) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 0)",
                    params![tid, number, p.round, game_id, p.seats[0], p.seats[1], "", "", p.deal_seed as i64],
                )
                .map(|_| ())
            })
            .await;
        if let Err(e) = booking {
            let creator = cell.st.lock().expect("lock").creator;
            self.0.shared.release_caller(creator);
            return Err(e);
        }
        let booked = g.clone();
        {
            let mut st = cell.st.lock().expect("lock");
            st.creating -= 1;
            st.games.push(g);
            st.games.sort_by_key(|g| g.number);
        }
        // Booked: from here on a failure only delays the game (the driver creates it).
        match self.ensure_game(cell, &booked, names, true).await {
            Ok(()) => {
                cell.created(number);
            }
            Err(e) => {
                tracing::warn!(error = %e, game = %booked.game_id, "tournament: cannot create a booked game yet")
            }
        }
        Ok(())
    }

    /// The token of seat `seat` of tournament game `number` (`game_id`): the one in memory,
    /// or, for a game created before a restart (the store keeps no token), a new one made
    /// durable by the game layer, the old one identifying nobody from then on.
    async fn seat_token(
        &self,
        cell: &TCell,
        number: u32,
        game_id: &str,
        seat: usize,
    ) -> Result<String, GameError> {
        let known = |cell: &TCell| {
            let st = cell.st.lock().expect("lock");
            st.games.iter().find(|g| g.number == number).and_then(|g| g.tokens[seat].clone())
        };
        let _one_at_a_time = cell.new_tokens.lock().await;
        if let Some(t) = known(cell) {
            return Ok(t);
        }
        let s = engine::Seat::new(seat as u8).ok_or_else(|| GameError::Invalid(format!("seat {seat}")))?;
        let token = self.0.shared.new_seat_token(game_id, s).await?;
        let mut st = cell.st.lock().expect("lock");
        if let Some(g) = st.games.iter_mut().find(|g| g.number == number) {
            g.tokens[seat] = Some(token.clone());
        }
        Ok(token)
    }

    /// Creates booked game `g` (both seats taken, with its tokens: new ones if it has none,
    /// after a restart) unless it exists.
    async fn ensure_game(
        &self,
        cell: &TCell,
        g: &TGame,
        names: [String; 2],
        reserved: bool,
    ) -> Result<(), Status> {
        let sh = &self.0.shared;
        let (rules, clock, fixed, creator) = {
            let st = cell.st.lock().expect("lock");
            (st.spec.rules.clone(), st.spec.clock, st.spec.fixed, st.creator)
        };
        // The creator's reservation for this game, given back if it is not created here.
        let creator = creator.filter(|_| reserved);
        match sh.game(&g.game_id).await {
            Ok(_) => {
                sh.release_caller(creator);
                return Ok(());
            }
            Err(GameError::NotFound(_)) => {}
            Err(e) => {
                sh.release_caller(creator);
                return Err(e.into());
            }
        }
        let tokens = g.tokens.clone().map(|t| t.unwrap_or_else(new_token));
        let [n0, n1] = names;
        let seat = |name, token: &String| NewSeat { name, token: token.clone(), bot: true };
        let seats = [seat(n0, &tokens[0]), seat(n1, &tokens[1])];
        sh.create_seated_game(g.game_id.clone(), rules, clock, g.deal_seed, fixed, seats, creator).await?;
        let mut st = cell.st.lock().expect("lock");
        if let Some(b) = st.games.iter_mut().find(|b| b.number == g.number) {
            b.tokens = tokens.map(Some);
        }
        Ok(())
    }

    /// Creates a tournament for `creator` (a peer address), whose unfinished games its games
    /// count against: so `parallel` may not be more than that limit.
    async fn create(
        &self,
        spec: pb::TournamentSpec,
        creator: Option<std::net::IpAddr>,
    ) -> Result<pb::CreateTournamentResponse, Status> {
        // Text people see, checked here rather than in `Spec::new`: a spec stored before a
        // stricter check must still load at start.
        gin_proto::text::check("spec.name", &spec.name, gin_proto::text::TITLE_MAX)?;
        crate::api::convert::rules_text("spec.rules", spec.rules.as_ref())?;
        let spec = Spec::new(spec)?;
        let limit = self.0.shared.cfg.max_open_games_per_caller;
        if spec.parallel > limit {
            return Err(Status::invalid_argument(format!(
                "spec.parallel: at most {limit} on this server (a tournament's games count against \
                 its creator's limit of unfinished games)"
            )));
        }
        let id = hex::encode(random_bytes::<8>());
        let created = now_ms();
        let blob = spec.pb.encode_to_vec();
        let total = spec.total_games();
        let tid = id.clone();
        let fixed = spec.fixed;
        self.db(move |c| {
            c.execute(
                "INSERT INTO tournaments (id, spec, created_ms, status, fixed_deals) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![tid, blob, created, pb::TournamentStatus::Waiting as i32, fixed],
            )
            .map(|_| ())
        })
        .await?;
        let st = TState {
            id: id.clone(),
            spec,
            creator,
            status: pb::TournamentStatus::Waiting,
            entrants: Vec::new(),
            games: Vec::new(),
            planned: VecDeque::new(),
            creating: 0,
            next_number: 0,
            round: 0,
            byes: HashSet::new(),
            sprt: None,
        };
        let cell = Arc::new(TCell {
            st: Mutex::new(st),
            version: watch::Sender::new(0),
            new_tokens: Default::default(),
        });
        self.0.map.write().expect("lock").insert(id.clone(), cell);
        self.0.order.lock().expect("lock").push((created, id.clone()));
        tracing::info!(tournament = %id, total, "tournament created");
        Ok(pb::CreateTournamentResponse { tournament_id: id, total_games: total })
    }

    /// Adds an entrant (durably); starts the tournament when it is the last one needed.
    async fn enter(&self, cell: &Arc<TCell>, name: String) -> Result<(u32, String), Status> {
        let name = name.trim().to_string();
        gin_proto::text::check("name", &name, gin_proto::text::NAME_MAX)?;
        let name = if name.is_empty() { "entrant".to_string() } else { name };
        let token = hex::encode(random_bytes::<16>());
        let hash = token_hash(&token);
        // Reserve the index under the lock, then write; roll back on a storage failure.
        let (idx, tid, starts) = {
            let mut st = cell.st.lock().expect("lock");
            if st.status != pb::TournamentStatus::Waiting || st.entrants.len() as u32 >= st.spec.entrants {
                return Err(Status::failed_precondition(
                    "the tournament has all its entrants; re-enter with your entrant_token",
                ));
            }
            st.entrants.push(Entrant { name: name.clone(), token_hash: hash });
            let idx = st.entrants.len() as u32 - 1;
            let starts = st.entrants.len() as u32 == st.spec.entrants;
            if starts {
                st.status = pb::TournamentStatus::Running;
                st.plan_round(1);
            }
            (idx, st.id.clone(), starts)
        };
        let t2 = tid.clone();
        let stored = self
            .db(move |c| {
                let tx = c.transaction()?;
                tx.execute(
                    "INSERT INTO tournament_entrants (tournament_id, idx, name, token_hash) VALUES (?1, ?2, ?3, ?4)",
                    params![t2, idx, name, hash.to_vec()],
                )?;
                if starts {
                    tx.execute(
                        "UPDATE tournaments SET status = ?2 WHERE id = ?1",
                        params![t2, pb::TournamentStatus::Running as i32],
                    )?;
                }
                tx.commit()
            })
            .await;
        if let Err(e) = stored {
            let mut st = cell.st.lock().expect("lock");
            st.entrants.truncate(idx as usize);
            st.status = pb::TournamentStatus::Waiting;
            st.planned.clear();
            return Err(e);
        }
        cell.bump();
        if starts {
            tracing::info!(tournament = %tid, "tournament started");
            self.spawn_driver(cell.clone());
        }
        Ok((idx, token))
    }
}

/// Completes once the shutdown flag is set.
async fn stopped(rx: &mut watch::Receiver<bool>) {
    let _ = rx.wait_for(|s| *s).await;
}

type BoxStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send>>;

fn tournament_id(id: &str) -> Result<&str, Status> {
    if id.is_empty() || id.len() > 64 {
        return Err(Status::invalid_argument("tournament_id: required, at most 64 characters"));
    }
    Ok(id)
}

#[tonic::async_trait]
impl TournamentService for Tournaments {
    async fn create_tournament(
        &self,
        req: Request<pb::CreateTournamentRequest>,
    ) -> Result<Response<pb::CreateTournamentResponse>, Status> {
        let creator = req.remote_addr().map(|a| a.ip());
        let spec = req.into_inner().spec.ok_or_else(|| Status::invalid_argument("spec: required"))?;
        Ok(Response::new(self.create(spec, creator).await?))
    }

    type JoinTournamentStream = BoxStream<pb::JoinTournamentResponse>;

    async fn join_tournament(
        &self,
        req: Request<pb::JoinTournamentRequest>,
    ) -> Result<Response<Self::JoinTournamentStream>, Status> {
        let r = req.into_inner();
        let cell = self.cell(tournament_id(&r.tournament_id)?)?;
        let (entrant, token) = if r.entrant_token.is_empty() {
            if cell.st.lock().expect("lock").spec.fixed && !r.accept_fixed_deals {
                return Err(Status::failed_precondition(
                    "this tournament has fixed deals: its creator chose the seed and may know every \
                     hand; enter with accept_fixed_deals if you agree",
                ));
            }
            self.enter(&cell, r.name).await?
        } else {
            let hash = token_hash(r.entrant_token.trim());
            let st = cell.st.lock().expect("lock");
            let idx = st
                .entrants
                .iter()
                .position(|e| e.token_hash == hash)
                .ok_or_else(|| Status::unauthenticated("unknown entrant_token for this tournament"))?;
            (idx as u32, r.entrant_token.trim().to_string())
        };
        let (tx, rx) = mpsc::channel(64);
        let mut version = cell.version.subscribe();
        let mut shutdown = self.0.shutdown.subscribe();
        let first = {
            let st = cell.st.lock().expect("lock");
            pb::Entered {
                entrant,
                entrant_token: token,
                joined: st.entrants.len() as u32,
                needed: st.spec.entrants,
            }
        };
        let tours = self.clone();
        tokio::spawn(async move {
            use pb::join_tournament_response::Kind;
            let msg = |k: Kind| Ok(pb::JoinTournamentResponse { kind: Some(k) });
            if tx.send(msg(Kind::Entered(first))).await.is_err() {
                return;
            }
            let mut sent: HashSet<u32> = HashSet::new();
            loop {
                version.borrow_and_update();
                let (assignments, finished) = {
                    let st = cell.st.lock().expect("lock");
                    let mut v = Vec::new();
                    for g in st.games.iter().filter(|g| !g.done && g.created) {
                        let Some(seat) = g.seats.iter().position(|&x| x == entrant) else { continue };
                        if !sent.insert(g.number) {
                            continue;
                        }
                        let a = pb::Assignment {
                            game_id: g.game_id.clone(),
                            seat: seat as u32,
                            seat_token: g.tokens[seat].clone().unwrap_or_default(),
                            opponent: g.seats[1 - seat],
                            round: g.round,
                        };
                        v.push((g.number, a));
                    }
                    let fin = (st.status == pb::TournamentStatus::Finished).then(|| st.standings());
                    (v, fin)
                };
                for (number, mut a) in assignments {
                    if a.seat_token.is_empty() {
                        // A game from before a restart: its seat gets a new token.
                        match tours.seat_token(&cell, number, &a.game_id, a.seat as usize).await {
                            Ok(t) => a.seat_token = t,
                            Err(e) => {
                                // Over meanwhile (nothing left to play), or the store failed.
                                tracing::info!(game = %a.game_id, "tournament: no new seat token: {e}");
                                continue;
                            }
                        }
                    }
                    if tx.send(msg(Kind::Assignment(a))).await.is_err() {
                        return;
                    }
                }
                if let Some(s) = finished {
                    let _ = tx.send(msg(Kind::Finished(s))).await;
                    return;
                }
                tokio::select! {
                    r = version.changed() => if r.is_err() { return },
                    _ = tx.closed() => return,
                    _ = stopped(&mut shutdown) => {
                        let _ = tx.send(Err(Status::unavailable("the server is shutting down; re-enter later"))).await;
                        return;
                    }
                }
            }
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    type WatchTournamentStream = BoxStream<pb::WatchTournamentResponse>;

    async fn watch_tournament(
        &self,
        req: Request<pb::WatchTournamentRequest>,
    ) -> Result<Response<Self::WatchTournamentStream>, Status> {
        let cell = self.cell(tournament_id(&req.get_ref().tournament_id)?)?;
        let (tx, rx) = mpsc::channel(16);
        let mut version = cell.version.subscribe();
        let mut shutdown = self.0.shutdown.subscribe();
        tokio::spawn(async move {
            loop {
                version.borrow_and_update();
                let (state, over) = {
                    let st = cell.st.lock().expect("lock");
                    (st.state(false), st.status == pb::TournamentStatus::Finished)
                };
                if tx.send(Ok(pb::WatchTournamentResponse { state: Some(state) })).await.is_err() || over {
                    return;
                }
                tokio::select! {
                    r = version.changed() => if r.is_err() { return },
                    _ = tx.closed() => return,
                    _ = stopped(&mut shutdown) => {
                        let _ = tx.send(Err(Status::unavailable("the server is shutting down; watch again later"))).await;
                        return;
                    }
                }
            }
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    async fn get_tournament(
        &self,
        req: Request<pb::GetTournamentRequest>,
    ) -> Result<Response<pb::GetTournamentResponse>, Status> {
        let cell = self.cell(tournament_id(&req.get_ref().tournament_id)?)?;
        let state = cell.st.lock().expect("lock").state(true);
        Ok(Response::new(pb::GetTournamentResponse { state: Some(state) }))
    }

    async fn list_tournaments(
        &self,
        req: Request<pb::ListTournamentsRequest>,
    ) -> Result<Response<pb::ListTournamentsResponse>, Status> {
        let limit = match req.get_ref().limit {
            0 => 50,
            n => n.min(1000) as usize,
        };
        let ids: Vec<String> =
            self.0.order.lock().expect("lock").iter().rev().take(limit).map(|(_, id)| id.clone()).collect();
        let tournaments = ids
            .iter()
            .filter_map(|id| self.cell(id).ok())
            .map(|c| c.st.lock().expect("lock").state(false))
            .collect();
        Ok(Response::new(pb::ListTournamentsResponse { tournaments }))
    }

    async fn export_tournament(
        &self,
        req: Request<pb::ExportTournamentRequest>,
    ) -> Result<Response<pb::ExportTournamentResponse>, Status> {
        let r = req.into_inner();
        let cell = self.cell(tournament_id(&r.tournament_id)?)?;
        let format = pb::ExportFormat::try_from(r.format)
            .map_err(|_| Status::invalid_argument("format: unknown value"))?;
        let st = cell.st.lock().expect("lock");
        let state = st.state(true);
        let names: Vec<String> = st.entrants.iter().map(|e| e.name.clone()).collect();
        drop(st);
        let (content, media_type) = match format {
            pb::ExportFormat::Csv => (export_csv(&state, &names), "text/csv"),
            _ => (export_json(&state, &names), "application/json"),
        };
        Ok(Response::new(pb::ExportTournamentResponse { content, media_type: media_type.into() }))
    }
}

fn status_name(s: i32) -> &'static str {
    match pb::TournamentStatus::try_from(s) {
        Ok(pb::TournamentStatus::Waiting) => "waiting",
        Ok(pb::TournamentStatus::Running) => "running",
        Ok(pb::TournamentStatus::Finished) => "finished",
        _ => "unknown",
    }
}

fn format_name(f: i32) -> &'static str {
    match pb::TournamentFormat::try_from(f) {
        Ok(pb::TournamentFormat::Gauntlet) => "gauntlet",
        Ok(pb::TournamentFormat::Swiss) => "swiss",
        _ => "round_robin",
    }
}

/// The results as JSON: the tournament, its standings (best first) and its games.
pub fn export_json(s: &pb::TournamentState, names: &[String]) -> String {
    let spec = s.spec.clone().unwrap_or_default();
    let rules = match spec.rules.and_then(|r| r.kind) {
        Some(pb::rules::Kind::Custom(r)) => serde_json::json!(r.name),
        Some(pb::rules::Kind::Preset(p)) => serde_json::json!(p),
        None => serde_json::json!("standard"),
    };
    let standings: Vec<_> = s
        .standings
        .iter()
        .flat_map(|st| &st.rows)
        .enumerate()
        .map(|(rank, r)| {
            serde_json::json!({
                "rank": rank + 1, "entrant": r.entrant, "name": r.name, "games": r.games,
                "wins": r.wins, "losses": r.losses, "draws": r.draws,
                "points_for": r.points_for, "points_against": r.points_against,
                "score": r.score, "elo": r.elo, "elo_low": r.elo_low, "elo_high": r.elo_high,
            })
        })
        .collect();
    let games: Vec<_> = s
        .games
        .iter()
        .map(|g| {
            serde_json::json!({
                "number": g.number, "round": g.round, "game_id": g.game_id,
                "seats": [g.seat0, g.seat1], "deal_seed": g.deal_seed, "done": g.done,
                "winner_seat": g.winner, "totals": g.totals,
            })
        })
        .collect();
    let v = serde_json::json!({
        "tournament_id": s.tournament_id,
        "name": spec.name,
        "status": status_name(s.status),
        "format": format_name(spec.format),
        "entrants": names,
        "games_per_pairing": spec.games_per_pairing,
        "duplicate": spec.duplicate,
        "rules": rules,
        "seed": spec.seed,
        "games_done": s.games_done,
        "games_total": s.games_total,
        "sprt": spec.sprt.map(|p| serde_json::json!({
            "elo0": p.elo0, "elo1": p.elo1, "alpha": p.alpha, "beta": p.beta,
            "state": s.sprt_state, "llr": s.sprt_llr, "lower": s.sprt_lower, "upper": s.sprt_upper,
        })),
        "standings": standings,
        "games": games,
    });
    serde_json::to_string_pretty(&v).expect("JSON values serialize")
}

/// The results as CSV: one line per game, a blank line, then one line per standing (best
/// first). Fields are quoted where they must be (a name with a comma, a quote or a line break).
pub fn export_csv(s: &pb::TournamentState, names: &[String]) -> String {
    let name = |e: u32| names.get(e as usize).map_or("", String::as_str).to_owned();
    let opt = |v: Option<u32>| v.map_or(String::new(), |v| v.to_string());
    let mut games = csv::Writer::from_writer(Vec::new());
    let mut rows: Vec<Vec<String>> = vec![
        "number,round,game_id,seat0,seat0_name,seat1,seat1_name,deal_seed,done,winner_seat,total0,total1"
            .split(',')
            .map(String::from)
            .collect(),
    ];
    for g in &s.games {
        rows.push(vec![
            g.number.to_string(),
            g.round.to_string(),
            g.game_id.clone(),
            g.seat0.to_string(),
            name(g.seat0),
            g.seat1.to_string(),
            name(g.seat1),
            g.deal_seed.to_string(),
            g.done.to_string(),
            opt(g.winner),
            opt(g.totals.first().copied()),
            opt(g.totals.get(1).copied()),
        ]);
    }
    let mut standings = csv::Writer::from_writer(Vec::new());
    let mut table: Vec<Vec<String>> = vec![
        "rank,entrant,name,games,wins,losses,draws,points_for,points_against,score,elo,elo_low,elo_high"
            .split(',')
            .map(String::from)
            .collect(),
    ];
    for (rank, r) in s.standings.iter().flat_map(|st| &st.rows).enumerate() {
        table.push(vec![
            (rank + 1).to_string(),
            r.entrant.to_string(),
            r.name.clone(),
            r.games.to_string(),
            r.wins.to_string(),
            r.losses.to_string(),
            r.draws.to_string(),
            r.points_for.to_string(),
            r.points_against.to_string(),
            format!("{:.4}", r.score),
            format!("{:.1}", r.elo),
            format!("{:.1}", r.elo_low),
            format!("{:.1}", r.elo_high),
        ]);
    }
    let write = |w: &mut csv::Writer<Vec<u8>>, rows: Vec<Vec<String>>| {
        for row in rows {
            w.write_record(&row).expect("writing CSV into memory");
        }
    };
    write(&mut games, rows);
    write(&mut standings, table);
    let mut out = games.into_inner().expect("writing CSV into memory");
    out.push(b'\n');
    out.extend(standings.into_inner().expect("writing CSV into memory"));
    String::from_utf8(out).expect("CSV of UTF-8 text is UTF-8")
}

/// Loads every tournament with its entrants and games, and rebuilds what is still to play.
fn load_all(c: &Connection) -> rusqlite::Result<Vec<(i64, TState)>> {
    let mut out = Vec::new();
    let mut stmt =
        c.prepare("SELECT id, spec, created_ms, status, fixed_deals FROM tournaments ORDER BY created_ms")?;
    let rows: Vec<(String, Vec<u8>, i64, i32, bool)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))?
        .collect::<Result<_, _>>()?;
    for (id, blob, created, status, fixed) in rows {
        let mut spec_pb = pb::TournamentSpec::decode(blob.as_slice())
            .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
        // Created before the ceiling was lowered: it plays on, at the ceiling.
        spec_pb.parallel = spec_pb.parallel.min(MAX_PARALLEL);
        let mut spec = Spec::new(spec_pb).map_err(|e| {
            rusqlite::Error::ToSqlConversionFailure(format!("tournament {id}: {}", e.message()).into())
        })?;
        // The stored spec has its seed filled in: whether its creator chose it is stored apart.
        spec.fixed = fixed;
        let mut entrants = Vec::new();
        let mut s = c.prepare(
            "SELECT name, token_hash FROM tournament_entrants WHERE tournament_id = ?1 ORDER BY idx",
        )?;
        for r in s.query_map([&id], |r| Ok((r.get::<_, String>(0)?, r.get::<_, Vec<u8>>(1)?)))? {
            let (name, h) = r?;
            let token_hash: [u8; 32] = h.try_into().unwrap_or([0; 32]);
            entrants.push(Entrant { name, token_hash });
        }
        let mut games = Vec::new();
        let mut s = c.prepare(
            "SELECT number, round, game_id, seat0, seat1, deal_seed, done, winner, total0, total1 \
             FROM tournament_games WHERE tournament_id = ?1 ORDER BY number",
        )?;
        for r in s.query_map([&id], |r| {
            Ok(TGame {
                number: r.get(0)?,
                round: r.get(1)?,
                game_id: r.get(2)?,
                seats: [r.get(3)?, r.get(4)?],
                tokens: [None, None],
                deal_seed: r.get::<_, i64>(5)? as u64,
                done: r.get::<_, i64>(6)? != 0,
                winner: r.get(7)?,
                totals: [r.get::<_, Option<u32>>(8)?.unwrap_or(0), r.get::<_, Option<u32>>(9)?.unwrap_or(0)],
                // Checked by the driver before the seats are assigned.
                created: false,
            })
        })? {
            games.push(r?);
        }
        let status = pb::TournamentStatus::try_from(status).unwrap_or(pb::TournamentStatus::Waiting);
        let mut st = TState {
            id: id.clone(),
            spec,
            creator: None,
            status,
            entrants,
            games: Vec::new(),
            planned: VecDeque::new(),
            creating: 0,
            next_number: 0,
            round: 0,
            byes: HashSet::new(),
            sprt: None,
        };
        if status != pb::TournamentStatus::Waiting {
            // Replay the rounds: each round's plan is a function of the results before it.
            let last_round = games.iter().map(|g| g.round).max().unwrap_or(1).max(1);
            for round in 1..=last_round {
                st.plan_round(round);
                let created: Vec<TGame> = games.iter().filter(|g| g.round == round).cloned().collect();
                // A planned game is identified by its deal and seats (unique within a round).
                for g in &created {
                    if let Some(i) =
                        st.planned.iter().position(|p| p.seats == g.seats && p.deal_seed == g.deal_seed)
                    {
                        st.planned.remove(i);
                    }
                }
                st.games.extend(created);
            }
            st.next_number = st.games.iter().map(|g| g.number + 1).max().unwrap_or(0);
            if st.spec.sprt.is_some() && status == pb::TournamentStatus::Running {
                st.advance();
            }
        }
        out.push((created, st));
    }
    Ok(out)
}

/// A new seat token.
fn new_token() -> String {
    hex::encode(random_bytes::<16>())
}

#[cfg(test)]
mod export_tests {
    use super::*;

    #[test]
    fn csv_has_both_tables_and_quotes_only_what_must_be() {
        let state = pb::TournamentState {
            games: vec![
                pb::TournamentGame {
                    number: 0,
                    round: 1,
                    game_id: "g0".into(),
                    seat0: 0,
                    seat1: 1,
                    deal_seed: 7,
                    done: true,
                    winner: Some(1),
                    totals: vec![12, 130],
                },
                pb::TournamentGame {
                    number: 1,
                    round: 1,
                    game_id: "g1".into(),
                    seat0: 1,
                    seat1: 0,
                    ..Default::default()
                },
            ],
            standings: Some(pb::Standings {
                rows: vec![pb::Standing {
                    entrant: 1,
                    name: "Smith, \"Bo\"".into(),
                    games: 1,
                    wins: 1,
                    points_for: 130,
                    points_against: 12,
                    score: 1.0,
                    elo: 400.0,
                    elo_low: -1.25,
                    elo_high: 801.0,
                    ..Default::default()
                }],
            }),
            ..Default::default()
        };
        let names = ["Zoë".to_string(), "Smith, \"Bo\"".to_string()];
        assert_eq!(
            export_csv(&state, &names),
            "number,round,game_id,seat0,seat0_name,seat1,seat1_name,deal_seed,done,winner_seat,total0,total1\n\
             0,1,g0,0,Zoë,1,\"Smith, \"\"Bo\"\"\",7,true,1,12,130\n\
             1,1,g1,1,\"Smith, \"\"Bo\"\"\",0,Zoë,0,false,,,\n\
             \n\
             rank,entrant,name,games,wins,losses,draws,points_for,points_against,score,elo,elo_low,elo_high\n\
             1,1,\"Smith, \"\"Bo\"\"\",1,1,0,0,130,12,1.0000,400.0,-1.2,801.0\n"
        );
    }
}
