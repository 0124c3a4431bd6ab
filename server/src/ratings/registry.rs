//! The ratings in memory: every account's rating in every pool, and each pool's [`Board`],
//! kept from the store's rating rows. The store computes and writes a rated game's ratings in
//! the game's end's commit (with [`rate_stored`], given at start); this registry learns of
//! them from [`Store::rating_changes`] after a cursor: polled every 250 ms (every server of a
//! cluster learns of every other's rated games), and at once before a read of one account.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::storage::{RatingChanges, RatingValue, Startup, Store, StoreError};

use super::{Board, BoardEntry, Pool, Rating, System, rate};

/// How often the registry reads the ratings changed since its cursor.
const POLL: Duration = Duration::from_millis(250);

/// The server's rating function, as the store calls it ([`crate::storage::RateFn`]).
pub fn rate_stored(
    pool: &str,
    before: &[Option<RatingValue>],
    places: &[u8],
) -> Result<Vec<(RatingValue, RatingValue)>, String> {
    let pool = Pool::parse(pool).ok_or_else(|| format!("no pool {pool:?}"))?;
    let system = pool.system();
    let before: Vec<Rating> =
        before.iter().map(|b| b.map_or_else(|| Rating::new(system), from_value)).collect();
    let after = rate(&pool, &before, places).map_err(|e| e.0)?;
    Ok(before.iter().zip(after).map(|(b, a)| (to_value(b), to_value(&a))).collect())
}

fn from_value(v: RatingValue) -> Rating {
    Rating { rating: v.rating, deviation: v.deviation, volatility: v.volatility, games: v.games }
}

fn to_value(r: &Rating) -> RatingValue {
    RatingValue { rating: r.rating, deviation: r.deviation, volatility: r.volatility, games: r.games }
}

/// One account's rating in one pool, as shown.
#[derive(Clone, Debug, PartialEq)]
pub struct Shown {
    /// The pool.
    pub pool: Pool,
    /// The rating, on the shared scale.
    pub rating: f64,
    /// Its deviation, on the shared scale.
    pub deviation: f64,
    /// Rated games played in the pool.
    pub games: u32,
    /// Whether it is provisional (then it has no rank).
    pub provisional: bool,
    /// Its rank on the pool's board.
    pub rank: Option<usize>,
}

#[derive(Default)]
struct PoolState {
    ratings: HashMap<String, Rating>,
    board: Board,
}

#[derive(Default)]
struct State {
    pools: HashMap<Pool, PoolState>,
    cursor: i64,
}

/// The ratings in memory (cheap to clone: a handle).
#[derive(Clone)]
pub struct Ratings {
    store: Store,
    state: Arc<Mutex<State>>,
}

impl Ratings {
    /// The registry of the ratings `startup` holds; gives the store the rating function.
    pub async fn open(store: Store, startup: &mut Startup) -> Result<Ratings, StoreError> {
        store.set_rater(rate_stored).await?;
        let r = Ratings { store, state: Arc::default() };
        r.apply(std::mem::take(&mut startup.ratings));
        Ok(r)
    }

    /// Polls the store for rating changes every 250 ms, for as long as the runtime runs.
    pub fn spawn_poll(&self) {
        let r = self.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(POLL);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                if let Err(e) = r.refresh().await {
                    if matches!(e, StoreError::Closed) {
                        return;
                    }
                    tracing::warn!(error = %e, "reading rating changes");
                }
            }
        });
    }

    /// Reads the rating rows changed since the cursor, now.
    pub async fn refresh(&self) -> Result<(), StoreError> {
        let cursor = self.state.lock().expect("lock").cursor;
        let changes = self.store.rating_changes(cursor).await?;
        self.apply(changes);
        Ok(())
    }

    fn apply(&self, changes: RatingChanges) {
        let mut st = self.state.lock().expect("lock");
        if changes.cursor <= st.cursor && changes.rows.is_empty() {
            return;
        }
        st.cursor = st.cursor.max(changes.cursor);
        let mut fresh: HashMap<Pool, Vec<BoardEntry>> = HashMap::new();
        let rebuild = st.pools.is_empty();
        for row in changes.rows {
            let Some(pool) = Pool::parse(&row.pool) else { continue };
            let system = pool.system();
            let rating = from_value(row.value);
            let p = st.pools.entry(pool.clone()).or_default();
            p.ratings.insert(row.account_id.clone(), rating);
            let entry = (!rating.provisional(system)).then(|| BoardEntry {
                account: row.account_id.clone(),
                rating: rating.shown(system),
                deviation: rating.shown_deviation(system),
                games: rating.games,
            });
            if rebuild {
                if let Some(e) = entry {
                    fresh.entry(pool).or_default().push(e);
                }
            } else {
                p.board.set(&row.account_id, entry);
            }
        }
        // At start: one sort per board rather than an insert per account.
        for (pool, entries) in fresh {
            if let Some(p) = st.pools.get_mut(&pool) {
                p.board = Board::from_entries(entries);
            }
        }
    }

    /// A page of `pool`'s board, and how many are on it.
    pub fn leaderboard(&self, pool: &Pool, offset: usize, limit: usize) -> (Vec<(usize, BoardEntry)>, usize) {
        let st = self.state.lock().expect("lock");
        let Some(p) = st.pools.get(pool) else { return (Vec::new(), 0) };
        let lines = p
            .board
            .page(offset, limit)
            .iter()
            .enumerate()
            .map(|(i, e)| (offset + i + 1, e.clone()))
            .collect();
        (lines, p.board.len())
    }

    /// An account's ratings, by pool id.
    pub fn of(&self, account: &str) -> Vec<Shown> {
        let st = self.state.lock().expect("lock");
        let mut out: Vec<Shown> = st
            .pools
            .iter()
            .filter_map(|(pool, p)| {
                let r = p.ratings.get(account)?;
                let system: System = pool.system();
                Some(Shown {
                    pool: pool.clone(),
                    rating: r.shown(system),
                    deviation: r.shown_deviation(system),
                    games: r.games,
                    provisional: r.provisional(system),
                    rank: p.board.rank(account),
                })
            })
            .collect();
        out.sort_by(|a, b| a.pool.cmp(&b.pool));
        out
    }

    /// An account's rating in `pool` as shown: its own, or a newcomer's (1500, the system's
    /// starting deviation, no games) when it has played none there.
    pub fn in_pool(&self, account: &str, pool: &Pool) -> Shown {
        let st = self.state.lock().expect("lock");
        let system = pool.system();
        let found = st.pools.get(pool).and_then(|p| Some((p.ratings.get(account)?, p.board.rank(account))));
        let fresh = Rating::new(system);
        let (r, rank) = found.unwrap_or((&fresh, None));
        Shown {
            pool: pool.clone(),
            rating: r.shown(system),
            deviation: r.shown_deviation(system),
            games: r.games,
            provisional: r.provisional(system),
            rank,
        }
    }

    /// The store (for the history's pages).
    pub fn store(&self) -> &Store {
        &self.store
    }
}
