//! The ladder's pairing: who plays whom next in a standing rated pool (issue 39). Pure,
//! synchronous and deterministic: no clock, no I/O, no storage, no async. Time comes in as a
//! millisecond number ([`Millis`]) on whatever monotonic clock the caller keeps (the server:
//! milliseconds since its start); the same calls with the same numbers give the same tables.
//!
//! ## What it holds
//!
//! A [`Ladder`] is a set of pools, each keyed by an opaque string (the server's choice: a
//! format and preset, `"gin/standard"`, `"gin7/4"`, …). A pool seats [`Seats`]: two players
//! ([`Seats::Two`]), one table of 3 to 6 ([`Seats::Table`]) or four in two teams of two
//! ([`Seats::Teams`]); the caller names it at each [`Ladder::join`], and a pool keeps the seats
//! it was opened with. Each pool has a queue of waiting [`Entrant`]s (an account id, opaque;
//! its rating and deviation; its arrival time), and remembers, per account, the others of its
//! last game in that pool and the ratings of the entrants it matched recently (for
//! [`Ladder::expected_wait`]).
//!
//! - [`Ladder::join`] queues an entrant. An account is never twice in one pool's queue (the
//!   second join is refused, [`LadderError::AlreadyQueued`], and changes nothing), so a table
//!   never seats an account against itself. An account may wait in several pools at once; the
//!   server decides whether it allows that.
//! - [`Ladder::leave`] (cancel) takes it out of a pool's queue; [`Ladder::leave_everywhere`]
//!   out of every pool (a program that disconnected).
//! - [`Ladder::pair`] forms every table it can now, removes their entrants from the queues
//!   and returns them ([`Match`]); [`Ladder::pair_pool`] does one pool.
//! - [`Ladder::expected_wait`] estimates a newcomer's wait, [`Ladder::expected_wait_of`] a
//!   waiting entrant's.
//!
//! ## The rules
//!
//! **The window.** An entrant who has waited `t` seconds accepts opponents within
//! ±`window` of its rating, `window = min(max_window, base_window + deviation_weight ×
//! deviation + widen_per_sec × t)`; by default ±(100 + 2 × deviation), growing 50 points a
//! second, capped at 1,000 ([`LadderConfig`]). A table is *acceptable* when its spread (the
//! highest rating minus the lowest) is within the window of every entrant at it: both sides
//! accept, so a newcomer is not handed to a far-away player merely because that player has
//! waited long; its own window grows too. Entrants further apart than `max_window` are never
//! seated together.
//!
//! **Closest first.** Among the acceptable tables, the one with the smallest spread is formed
//! first, then the next among those left, and so on (greedy; ties go to the lower rating).
//!
//! **No repeat while others wait.** A table *repeats* when it seats one of its entrants with
//! exactly the others of that entrant's last game in the pool (two players: the same two
//! twice in a row; a table or teams: the same table again). [`Ladder::pair`] first forms
//! every acceptable table that repeats for nobody; only then, among the entrants still
//! waiting, may it form a repeating table, only when every entrant at it has waited at
//! least `repeat_after_ms` (15 s by default), and only when nobody else left waiting is
//! within `max_window` of each of them (someone who could ever sit with them: as the windows
//! widen, the next call seats that one with one of them instead). So two programs alone in a
//! pool play again after 15 s; with a third within reach, they never do.
//!
//! **Seats.** A match lists its entrants by seat: by rating, lowest first; at a team table
//! the lowest and the highest are partners (seats 0 and 2) against the middle two (seats 1
//! and 3), the most even of the three ways to split four. The server may rotate the seats
//! (from the game's seed) if seat 0 should not always go to the lowest rating.
//!
//! ## The algorithm and its cost
//!
//! A call sorts a pool's queue by rating (ties: arrival, then account id: the order, and so
//! every result, depends on nothing but the inputs). For each entrant `i`, its *candidate*
//! is the acceptable table of smallest spread with `i` lowest, found by sweeping up the
//! ratings from `i`: at each entrant `j` above, the entrants passed whose window still holds
//! the distance from `i` to `j` are usable (a narrower one is dropped for good, as the
//! distance only grows: a newcomer's narrow window does not block the others); once `j`'s
//! window holds it too and enough are usable, the first of them with `j` are the table. The
//! sweep stops where the distance leaves `i`'s window; a table that repeats for someone is
//! passed over for the next one up. A min-heap holds each entrant's candidate by spread; the
//! smallest is formed, its entrants removed, and an entrant whose candidate lost a member has
//! its candidate swept again when it comes out of the heap (lazy deletion: removals only make
//! a candidate wider; removed entrants are skipped through a path-compressed "next alive"
//! array, near O(1) each). So the first table formed is the closest acceptable table of the
//! queue, the next the closest among those left, and so on, and when the call returns no
//! acceptable table is left. Two caveats for tables of more than two: when the closest table
//! repeats for someone, the sweep tries the next `j` up rather than every other subset of the
//! usable entrants; and greedy closest-first is not a partition of the queue minimising the
//! total spread (neither is it for two seats; it is what "closest first" asks).
//!
//! Cost: O(n log n) for the sort and the heap, plus the sweeps, each over the entrants it
//! passes (those whose window is too narrow for the distance, or whose table would repeat):
//! O(n log n) in practice, O(n × w) at worst, `w` the entrants within one window. Memory
//! O(n). The bench (`cargo bench -p gin-server --bench ladder`; the method and figures in
//! its module docs): 1,000 entrants arriving within a second are joined and paired in 0.8 ms
//! (median, one core), and one call of `pair` with 1,000 waiting takes 0.6 ms, 36 µs when it
//! seats nobody.
//!
//! ## The expected wait
//!
//! [`Ladder::expected_wait`] is an estimate, the smaller of two times:
//!
//! - **from the queue**: for each entrant waiting in the pool, the time until both windows
//!   (each growing from what it is now) hold the distance between them; the wait is the
//!   `(seats − 1)`th smallest of these (zero: the next call of [`Ladder::pair`] can seat it,
//!   unless others take those entrants first);
//! - **from the arrivals**: the pool remembers the time and rating of each entrant it matched
//!   within `history_ms` (10 minutes, at most `history` of them); in a steady state as many
//!   arrive as are matched, so the entrants matched at a distance within the current window,
//!   per second over that span (or since the pool opened, if later, and at least a second),
//!   is the rate at which acceptable opponents arrive; `seats − 1` of them take
//!   `(seats − 1) / rate`.
//!
//! `None` when neither can happen (nobody within reach of `max_window`, no recent match near
//! the rating, or the pool has never been opened). It ignores the repeat rule and the
//! entrants that others take first: an estimate to show a waiting player, not a promise.
//!
//! ## How the server uses it
//!
//! One [`Ladder`] behind a mutex (every call is short and synchronous, never across an
//! `.await`): `join` when a program queues (its rating and deviation from the ratings, `now`
//! from the server's clock), `leave` when it cancels or its stream ends, `pair` on a tick
//! (every 100 ms, say, and on each join) to create a game per [`Match`] (the repeat memory is
//! updated by `pair` itself), and `expected_wait_of` to report each waiting entrant's wait.

mod sweep;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::time::Duration;

/// A time in milliseconds on the caller's monotonic clock.
pub type Millis = u64;

/// The ladder's numbers. Every field is public; [`Ladder::new`] checks them.
#[derive(Clone, Debug, PartialEq)]
pub struct LadderConfig {
    /// The window of a player of deviation zero on arrival, in rating points (100).
    pub base_window: f64,
    /// How many points of window each point of deviation adds (2: an uncertain rating,
    /// a provisional one, accepts a wider range).
    pub deviation_weight: f64,
    /// Points of window added per second waited (50).
    pub widen_per_sec: f64,
    /// The largest window (1,000): entrants further apart are never seated together.
    /// `f64::INFINITY` lifts the cap.
    pub max_window: f64,
    /// How long every entrant at a repeating table must have waited before it may be formed
    /// (15,000 ms), and then only when no other acceptable table was possible for them.
    pub repeat_after_ms: Millis,
    /// How far back the expected wait looks at the pool's matches (600,000 ms: 10 minutes).
    pub history_ms: Millis,
    /// At most this many matched entrants are remembered per pool for the expected wait (512).
    pub history: usize,
}

impl Default for LadderConfig {
    fn default() -> Self {
        LadderConfig {
            base_window: 100.0,
            deviation_weight: 2.0,
            widen_per_sec: 50.0,
            max_window: 1_000.0,
            repeat_after_ms: 15_000,
            history_ms: 600_000,
            history: 512,
        }
    }
}

impl LadderConfig {
    /// The window (± rating points) of an entrant of this deviation who has waited
    /// `waited_ms`.
    pub fn window(&self, deviation: f64, waited_ms: Millis) -> f64 {
        let grown = self.base_window
            + self.deviation_weight * deviation
            + self.widen_per_sec * (waited_ms as f64 / 1000.0);
        grown.min(self.max_window)
    }

    fn check(&self) -> Result<(), LadderError> {
        let finite = [
            ("base_window", self.base_window),
            ("deviation_weight", self.deviation_weight),
            ("widen_per_sec", self.widen_per_sec),
        ];
        for (field, v) in finite {
            if !(v.is_finite() && v >= 0.0) {
                return Err(LadderError::Config { field, why: format!("{v} is not a finite number ≥ 0") });
            }
        }
        if self.max_window.is_nan() || self.max_window < 0.0 {
            return Err(LadderError::Config {
                field: "max_window",
                why: format!("{} is not a number ≥ 0", self.max_window),
            });
        }
        Ok(())
    }
}

/// How a pool seats its entrants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Seats {
    /// Two players.
    Two,
    /// One table of 3 to 6.
    Table(u8),
    /// Four in two teams of two (partners in seats 0 and 2, 1 and 3).
    Teams,
}

impl Seats {
    /// The entrants at one table.
    pub fn size(self) -> usize {
        match self {
            Seats::Two => 2,
            Seats::Table(n) => n as usize,
            Seats::Teams => 4,
        }
    }

    fn check(self) -> Result<(), LadderError> {
        match self {
            Seats::Table(n) if !(3..=6).contains(&n) => Err(LadderError::Seats(n)),
            _ => Ok(()),
        }
    }
}

/// One account waiting in a pool.
#[derive(Clone, Debug, PartialEq)]
pub struct Entrant {
    /// The account's id (opaque to the ladder; compared as a string).
    pub account: String,
    /// Its rating in the pool.
    pub rating: f64,
    /// Its rating's deviation (≥ 0): the wider, the wider its window.
    pub deviation: f64,
    /// When it joined the queue.
    pub arrived_ms: Millis,
}

/// A table [`Ladder::pair`] formed.
#[derive(Clone, Debug, PartialEq)]
pub struct Match {
    /// The pool's key.
    pub pool: String,
    /// The pool's seats.
    pub seats: Seats,
    /// The entrants by seat (see the module docs, "Seats"), out of the queue now.
    pub entrants: Vec<Entrant>,
    /// The highest rating at the table minus the lowest.
    pub spread: f64,
    /// Whether it seats someone with exactly the others of its last game: formed only when
    /// all had waited `repeat_after_ms` and nothing else was possible for them.
    pub repeat: bool,
}

/// What the ladder refused, and why; a refused call changes nothing.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LadderError {
    /// The account already waits in this pool.
    #[error("account {account} already waits in the ladder pool {pool}")]
    AlreadyQueued {
        /// The pool's key.
        pool: String,
        /// The account.
        account: String,
    },
    /// The pool exists with other seats than the join asked for.
    #[error("the ladder pool {pool} seats {has:?}, not {asked:?}")]
    SeatsMismatch {
        /// The pool's key.
        pool: String,
        /// The pool's seats.
        has: Seats,
        /// The join's.
        asked: Seats,
    },
    /// A table of a size the ladder does not seat.
    #[error("a ladder table seats 3 to 6, not {0}")]
    Seats(u8),
    /// A rating or deviation that is not a finite number (a deviation: ≥ 0).
    #[error("account {account}: {what} {value} is not a finite number{}", if *.what == "deviation" { " ≥ 0" } else { "" })]
    Rating {
        /// The account.
        account: String,
        /// `rating` or `deviation`.
        what: &'static str,
        /// The value given.
        value: f64,
    },
    /// A [`LadderConfig`] field out of range.
    #[error("ladder setting {field}: {why}")]
    Config {
        /// The field.
        field: &'static str,
        /// What is wrong with it.
        why: String,
    },
}

/// One pool: its seats, queue, repeat memory and recent matches.
#[derive(Clone, Debug)]
struct Pool {
    seats: Seats,
    /// When the pool was opened (its first join).
    opened_ms: Millis,
    queue: BTreeMap<String, Entrant>,
    /// Per account, the others of its last game in this pool.
    last: HashMap<String, Vec<String>>,
    /// The time and rating of each entrant matched recently, oldest first.
    recent: VecDeque<(Millis, f64)>,
}

/// The ladder: pools of waiting entrants (see the module docs).
#[derive(Clone, Debug)]
pub struct Ladder {
    config: LadderConfig,
    pools: BTreeMap<String, Pool>,
}

impl Ladder {
    /// An empty ladder; refuses a config with a negative or non-finite number.
    pub fn new(config: LadderConfig) -> Result<Ladder, LadderError> {
        config.check()?;
        Ok(Ladder { config, pools: BTreeMap::new() })
    }

    /// Its numbers.
    pub fn config(&self) -> &LadderConfig {
        &self.config
    }

    /// Queues `entrant` in `pool`, opened with `seats` if new. Refused (and nothing changed):
    /// an account already waiting there, other seats than the pool's, a table size outside 3
    /// to 6, a rating or deviation that is not a finite number (a deviation below zero).
    pub fn join(&mut self, pool: &str, seats: Seats, entrant: Entrant) -> Result<(), LadderError> {
        seats.check()?;
        for (what, value) in [("rating", entrant.rating), ("deviation", entrant.deviation)] {
            if !value.is_finite() || (what == "deviation" && value < 0.0) {
                return Err(LadderError::Rating { account: entrant.account.clone(), what, value });
            }
        }
        if let Some(p) = self.pools.get(pool) {
            if p.seats != seats {
                return Err(LadderError::SeatsMismatch {
                    pool: pool.to_string(),
                    has: p.seats,
                    asked: seats,
                });
            }
            if p.queue.contains_key(&entrant.account) {
                return Err(LadderError::AlreadyQueued { pool: pool.to_string(), account: entrant.account });
            }
        }
        let p = self.pools.entry(pool.to_string()).or_insert_with(|| Pool {
            seats,
            opened_ms: entrant.arrived_ms,
            queue: BTreeMap::new(),
            last: HashMap::new(),
            recent: VecDeque::new(),
        });
        p.queue.insert(entrant.account.clone(), entrant);
        Ok(())
    }

    /// Takes `account` out of `pool`'s queue: its entry, or `None` if it was not waiting there.
    pub fn leave(&mut self, pool: &str, account: &str) -> Option<Entrant> {
        self.pools.get_mut(pool)?.queue.remove(account)
    }

    /// Takes `account` out of every queue; how many it was in.
    pub fn leave_everywhere(&mut self, account: &str) -> usize {
        self.pools.values_mut().filter_map(|p| p.queue.remove(account)).count()
    }

    /// Whether `account` waits in `pool`.
    pub fn is_waiting(&self, pool: &str, account: &str) -> bool {
        self.pools.get(pool).is_some_and(|p| p.queue.contains_key(account))
    }

    /// The entrants waiting in `pool`, by account id.
    pub fn waiting(&self, pool: &str) -> impl Iterator<Item = &Entrant> {
        self.pools.get(pool).into_iter().flat_map(|p| p.queue.values())
    }

    /// How many wait in `pool`.
    pub fn len(&self, pool: &str) -> usize {
        self.pools.get(pool).map_or(0, |p| p.queue.len())
    }

    /// Whether nobody waits anywhere.
    pub fn is_empty(&self) -> bool {
        self.pools.values().all(|p| p.queue.is_empty())
    }

    /// The pools' keys (every pool ever joined), in order.
    pub fn pools(&self) -> impl Iterator<Item = &str> {
        self.pools.keys().map(String::as_str)
    }

    /// The others of `account`'s last game in `pool` (empty if none).
    pub fn last_opponents(&self, pool: &str, account: &str) -> &[String] {
        self.pools.get(pool).and_then(|p| p.last.get(account)).map_or(&[], Vec::as_slice)
    }

    /// Forms every table it can at `now` in every pool (pools in key order, each pool's
    /// tables closest first), takes their entrants out of the queues, remembers each one's
    /// others as its last game's, and returns them.
    pub fn pair(&mut self, now: Millis) -> Vec<Match> {
        let mut out = Vec::new();
        for (key, pool) in &mut self.pools {
            pool.pair(key, &self.config, now, &mut out);
        }
        out
    }

    /// [`Ladder::pair`] in one pool.
    pub fn pair_pool(&mut self, pool: &str, now: Millis) -> Vec<Match> {
        let mut out = Vec::new();
        if let Some(p) = self.pools.get_mut(pool) {
            p.pair(pool, &self.config, now, &mut out);
        }
        out
    }

    /// The expected wait of a newcomer of this rating and deviation joining `pool` at `now`
    /// (see the module docs, "The expected wait"); `None` if no table is in sight.
    pub fn expected_wait(&self, pool: &str, rating: f64, deviation: f64, now: Millis) -> Option<Duration> {
        self.pools.get(pool)?.expected_wait(&self.config, rating, deviation, 0, None, now)
    }

    /// The expected further wait of `account`, waiting in `pool` (its window already widened
    /// by its wait); `None` if it is not waiting there or no table is in sight.
    pub fn expected_wait_of(&self, pool: &str, account: &str, now: Millis) -> Option<Duration> {
        let p = self.pools.get(pool)?;
        let e = p.queue.get(account)?;
        p.expected_wait(
            &self.config,
            e.rating,
            e.deviation,
            now.saturating_sub(e.arrived_ms),
            Some(account),
            now,
        )
    }
}

impl Pool {
    fn pair(&mut self, key: &str, cfg: &LadderConfig, now: Millis, out: &mut Vec<Match>) {
        self.forget_old(cfg, now);
        let n = self.seats.size();
        if self.queue.len() < n {
            return;
        }
        let mut order: Vec<&Entrant> = self.queue.values().collect();
        order.sort_by(|a, b| {
            a.rating
                .total_cmp(&b.rating)
                .then(a.arrived_ms.cmp(&b.arrived_ms))
                .then_with(|| a.account.cmp(&b.account))
        });
        let position: HashMap<&str, usize> =
            order.iter().enumerate().map(|(i, e)| (e.account.as_str(), i)).collect();
        let cands: Vec<sweep::Cand> = order
            .iter()
            .map(|e| {
                let waited = now.saturating_sub(e.arrived_ms);
                sweep::Cand {
                    rating: e.rating,
                    window: cfg.window(e.deviation, waited),
                    seasoned: waited >= cfg.repeat_after_ms,
                }
            })
            .collect();
        // Each entrant's last game's others, as positions: only when all of them wait (else
        // no table here can repeat it).
        let last: Vec<Option<Vec<usize>>> = order
            .iter()
            .map(|e| {
                let others = self.last.get(&e.account)?;
                others.iter().map(|a| position.get(a.as_str()).copied()).collect()
            })
            .collect();
        let mut formed = sweep::sweep(&cands, n, &last);
        // A repeating table waits while someone else who could ever sit with its entrants
        // (within `max_window` of each) is left waiting: the windows widen, and next time that
        // one may be seated with one of them instead.
        let mut seated = vec![false; order.len()];
        for f in formed.iter().filter(|f| !f.repeat) {
            for &m in &f.members {
                seated[m] = true;
            }
        }
        let mut left: Vec<usize> = (0..order.len()).filter(|&i| !seated[i]).collect();
        formed.retain(|f| {
            if !f.repeat {
                return true;
            }
            let reach = |p: usize| {
                f.members.iter().all(|&m| (order[p].rating - order[m].rating).abs() <= cfg.max_window)
            };
            let blocked = left.iter().any(|&p| !f.members.contains(&p) && reach(p));
            if !blocked {
                left.retain(|p| !f.members.contains(p));
            }
            !blocked
        });
        let tables: Vec<(Vec<String>, f64, bool)> = formed
            .into_iter()
            .map(|f| {
                let mut ids: Vec<String> = f.members.iter().map(|&i| order[i].account.clone()).collect();
                if self.seats == Seats::Teams {
                    // By rating a ≤ b ≤ c ≤ d: a and d partners (seats 0, 2) against b and c.
                    ids.swap(2, 3);
                }
                (ids, f.spread, f.repeat)
            })
            .collect();
        for (ids, spread, repeat) in tables {
            let entrants: Vec<Entrant> =
                ids.iter().map(|a| self.queue.remove(a).expect("a formed table's entrant waits")).collect();
            for e in &entrants {
                let others = ids.iter().filter(|a| **a != e.account).cloned().collect();
                self.last.insert(e.account.clone(), others);
                self.recent.push_back((now, e.rating));
            }
            out.push(Match { pool: key.to_string(), seats: self.seats, entrants, spread, repeat });
        }
        while self.recent.len() > cfg.history {
            self.recent.pop_front();
        }
    }

    /// Drops the recent matches older than the history.
    fn forget_old(&mut self, cfg: &LadderConfig, now: Millis) {
        while self.recent.front().is_some_and(|&(t, _)| now.saturating_sub(t) > cfg.history_ms) {
            self.recent.pop_front();
        }
    }

    fn expected_wait(
        &self,
        cfg: &LadderConfig,
        rating: f64,
        deviation: f64,
        waited: Millis,
        exclude: Option<&str>,
        now: Millis,
    ) -> Option<Duration> {
        let need = self.seats.size() - 1;
        let mine = cfg.window(deviation, waited);
        // Seconds until a window now at `w`, growing, holds `gap`.
        let until = |gap: f64, w: f64| -> f64 {
            if gap <= w {
                0.0
            } else if gap > cfg.max_window || cfg.widen_per_sec == 0.0 {
                f64::INFINITY
            } else {
                (gap - w) / cfg.widen_per_sec
            }
        };
        let mut times: Vec<f64> = self
            .queue
            .values()
            .filter(|e| Some(e.account.as_str()) != exclude)
            .map(|e| {
                let gap = (e.rating - rating).abs();
                let theirs = cfg.window(e.deviation, now.saturating_sub(e.arrived_ms));
                until(gap, mine).max(until(gap, theirs))
            })
            .filter(|t| t.is_finite())
            .collect();
        let from_queue = if times.len() >= need {
            *times.select_nth_unstable_by(need - 1, f64::total_cmp).1
        } else {
            f64::INFINITY
        };
        let near = self
            .recent
            .iter()
            .filter(|&&(t, r)| now.saturating_sub(t) <= cfg.history_ms && (r - rating).abs() <= mine)
            .count();
        let span_ms = now.saturating_sub(self.opened_ms).min(cfg.history_ms).max(1000);
        let from_arrivals =
            if near == 0 { f64::INFINITY } else { need as f64 * span_ms as f64 / 1000.0 / near as f64 };
        let secs = from_queue.min(from_arrivals);
        secs.is_finite().then(|| Duration::from_millis((secs * 1000.0).ceil() as u64))
    }
}
