//! The ratings' rows: an account's rating in a pool (`ratings`), and a line per seat of every
//! rated game (`rating_history`: before and after). A rated game's end is one write,
//! [`Write::Rate`](super::Write::Rate), in the same batch as the game's end: the backend reads
//! the seats' ratings, has the server's rating function ([`RateFn`], given once at start by
//! [`Store::set_rater`](super::Store::set_rater): the maths is a layer above) compute the new
//! ones, and writes both in the same commit as the end. So a game is rated exactly once: its
//! end is written once (a second is refused), and a game whose history exists is never rated
//! again (a row record applied again at start finds it).
//!
//! SQLite: the new ratings are computed on the writer thread before the batch's records are
//! built, from SQLite's rows (every earlier batch is applied there) and the batch's own earlier
//! updates; the journal's row record (`{"rated": …}`, since 2026-11-28) holds the computed rows,
//! so a start applies them again without the maths. PostgreSQL: the seats' rows are locked
//! (`FOR UPDATE`) under one advisory lock (`RATING_LOCK`) in the batch's transaction, so two
//! servers rating the same account serialize.
//!
//! Every change of a `ratings` row takes the next value of one change counter (as the accounts'
//! rows do): [`Backend::rating_changes`](super::Backend::rating_changes) returns the rows changed
//! after a cursor, from which every server keeps its leaderboards.

use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

use super::StoreError;

pub(super) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS ratings (
    account_id TEXT    NOT NULL,
    pool       TEXT    NOT NULL,
    rating     REAL    NOT NULL,
    deviation  REAL    NOT NULL,
    volatility REAL    NOT NULL,
    games      INTEGER NOT NULL,
    change     INTEGER NOT NULL,
    PRIMARY KEY (account_id, pool)
);
CREATE INDEX IF NOT EXISTS ratings_change ON ratings (change);
CREATE TABLE IF NOT EXISTS rating_history (
    game_id          TEXT    NOT NULL,
    account_id       TEXT    NOT NULL,
    pool             TEXT    NOT NULL,
    seat             INTEGER NOT NULL,
    place            INTEGER NOT NULL,
    at_ms            INTEGER NOT NULL,
    before_rating    REAL    NOT NULL,
    before_deviation REAL    NOT NULL,
    after_rating     REAL    NOT NULL,
    after_deviation  REAL    NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX IF NOT EXISTS rating_history_account ON rating_history (account_id, pool, at_ms);
CREATE TABLE IF NOT EXISTS rating_counter (n INTEGER NOT NULL);
INSERT INTO rating_counter (n) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM rating_counter);
";

/// A rating in a pool's system's own numbers (what the rating function takes and gives).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatingValue {
    /// The rating (Glicko-2's, or Weng-Lin's μ).
    pub rating: f64,
    /// Its deviation (Glicko-2's, or Weng-Lin's σ).
    pub deviation: f64,
    /// Glicko-2's volatility (0 otherwise).
    pub volatility: f64,
    /// Rated games played in the pool.
    pub games: u32,
}

/// The server's rating function: a pool's id, each seat's rating before (`None`: a newcomer
/// to the pool), each seat's place (0 first) → each seat's rating before (a newcomer's is the
/// pool's starting rating) and after, or why not.
pub type RateFn = fn(
    pool: &str,
    before: &[Option<RatingValue>],
    places: &[u8],
) -> Result<Vec<(RatingValue, RatingValue)>, String>;

/// A rated game's end, as the game layer writes it: who sat where and placed how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RateGame {
    /// The game.
    pub game_id: String,
    /// Its pool's id.
    pub pool: String,
    /// Each seat's account and place (0 first), by seat.
    pub seats: Vec<(String, u8)>,
    /// When it ended (Unix ms).
    pub at_ms: i64,
}

/// One account's rating row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatingRow {
    /// The account.
    pub account_id: String,
    /// The pool's id.
    pub pool: String,
    /// The rating.
    pub value: RatingValue,
}

/// A rated game as computed: its seats' ratings before and after (the journal's record).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rated {
    /// The pool's id.
    pub pool: String,
    /// When it ended (Unix ms).
    pub at_ms: i64,
    /// By seat: the account, its place, its rating before and after.
    pub seats: Vec<RatedSeat>,
}

/// One seat of a [`Rated`] game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatedSeat {
    /// The account.
    pub account_id: String,
    /// Its place (0 first).
    pub place: u8,
    /// Its rating before the game (a newcomer's: the pool's starting rating).
    pub before: RatingValue,
    /// Its rating after.
    pub after: RatingValue,
}

/// The rating rows changed after a cursor ([`Backend::rating_changes`](super::Backend::rating_changes)).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RatingChanges {
    /// The rows, in change order.
    pub rows: Vec<RatingRow>,
    /// The largest change seen (the cursor given when nothing changed).
    pub cursor: i64,
}

/// One line of an account's rating history in a pool, newest first.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryLine {
    /// The game.
    pub game_id: String,
    /// When it ended (Unix ms).
    pub at_ms: i64,
    /// The account's place (0 first).
    pub place: u8,
    /// Its rating and deviation before.
    pub before: (f64, f64),
    /// Its rating and deviation after.
    pub after: (f64, f64),
    /// The other seats' accounts, by seat.
    pub opponents: Vec<String>,
}

pub(super) fn prepare(conn: &Connection) -> Result<(), StoreError> {
    conn.execute_batch(SCHEMA)?;
    if conn.prepare("SELECT rated_pool FROM games LIMIT 0").is_err() {
        conn.execute_batch("ALTER TABLE games ADD COLUMN rated_pool TEXT")?;
    }
    Ok(())
}

/// Whether game `game_id` has been rated.
pub(super) fn is_rated(conn: &Connection, game_id: &str) -> Result<bool, StoreError> {
    Ok(conn
        .prepare_cached("SELECT 1 FROM rating_history WHERE game_id = ?1 LIMIT 1")?
        .query_row([game_id], |_| Ok(()))
        .optional()?
        .is_some())
}

/// An account's rating in a pool.
pub(super) fn rating_of(
    conn: &Connection,
    account_id: &str,
    pool: &str,
) -> Result<Option<RatingValue>, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT rating, deviation, volatility, games FROM ratings WHERE account_id = ?1 AND pool = ?2",
        )?
        .query_row([account_id, pool], |r| {
            Ok(RatingValue {
                rating: r.get(0)?,
                deviation: r.get(1)?,
                volatility: r.get(2)?,
                games: r.get(3)?,
            })
        })
        .optional()?)
}

/// Computes `w` with `rate`, from `current` (a seat's rating now: the store's, or an earlier
/// write of the same batch). Refused (nothing changes) when the function refuses.
pub fn compute(
    w: &RateGame,
    rate: RateFn,
    mut current: impl FnMut(&str) -> Result<Option<RatingValue>, StoreError>,
) -> Result<Rated, StoreError> {
    let refused = |why: String| StoreError::Refused(format!("rating game {}: {why}", w.game_id));
    let mut accounts: Vec<&str> = w.seats.iter().map(|(a, _)| a.as_str()).collect();
    accounts.sort_unstable();
    if accounts.windows(2).any(|p| p[0] == p[1]) {
        return Err(refused("an account holds two seats".into()));
    }
    let before: Vec<Option<RatingValue>> =
        w.seats.iter().map(|(a, _)| current(a)).collect::<Result<_, _>>()?;
    let places: Vec<u8> = w.seats.iter().map(|(_, p)| *p).collect();
    let after = rate(&w.pool, &before, &places).map_err(refused)?;
    if after.len() != w.seats.len() {
        return Err(refused(format!("{} ratings for {} seats", after.len(), w.seats.len())));
    }
    Ok(Rated {
        pool: w.pool.clone(),
        at_ms: w.at_ms,
        seats: w
            .seats
            .iter()
            .zip(before)
            .zip(after)
            .map(|(((account_id, place), _), (before, after))| RatedSeat {
                account_id: account_id.clone(),
                place: *place,
                before,
                after,
            })
            .collect(),
    })
}

/// A game the rating function refused is not rated (its end must not fail for it): logged,
/// and `None`; any other error is the batch's.
pub(super) fn or_skip(
    w: &RateGame,
    computed: Result<Rated, StoreError>,
) -> Result<Option<Rated>, StoreError> {
    match computed {
        Ok(r) => Ok(Some(r)),
        Err(StoreError::Refused(why)) => {
            tracing::warn!(game = %w.game_id, pool = %w.pool, %why, "a rated game's end is not rated");
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Applies a computed rated game in the open transaction `conn`, unless the game was rated
/// already (a record applied again at start). The rows changed.
pub(super) fn apply(conn: &Connection, game_id: &str, r: &Rated) -> Result<usize, StoreError> {
    if is_rated(conn, game_id)? {
        return Ok(0);
    }
    let mut changed = 0;
    for (seat, s) in r.seats.iter().enumerate() {
        let change: i64 = conn
            .prepare_cached("UPDATE rating_counter SET n = n + 1 RETURNING n")?
            .query_row([], |row| row.get(0))?;
        let a = s.after;
        changed += conn
            .prepare_cached(
                "INSERT INTO ratings (account_id, pool, rating, deviation, volatility, games, change) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (account_id, pool) DO UPDATE SET \
                 rating = excluded.rating, deviation = excluded.deviation, volatility = excluded.volatility, \
                 games = excluded.games, change = excluded.change",
            )?
            .execute(params![s.account_id, r.pool, a.rating, a.deviation, a.volatility, a.games, change])?;
        let b = s.before;
        conn.prepare_cached(
            "INSERT INTO rating_history (game_id, account_id, pool, seat, place, at_ms, before_rating, \
             before_deviation, after_rating, after_deviation) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        )?
        .execute(params![
            game_id,
            s.account_id,
            r.pool,
            seat as i64,
            s.place,
            r.at_ms,
            b.rating,
            b.deviation,
            a.rating,
            a.deviation
        ])?;
    }
    Ok(changed)
}

/// The rating rows changed after `after`.
pub(super) fn changes(conn: &Connection, after: i64) -> Result<RatingChanges, StoreError> {
    let mut out = RatingChanges { cursor: after, ..RatingChanges::default() };
    let mut stmt = conn.prepare_cached(
        "SELECT account_id, pool, rating, deviation, volatility, games, change FROM ratings \
         WHERE change > ?1 ORDER BY change",
    )?;
    let rows = stmt.query_map([after], |r| {
        Ok((
            RatingRow {
                account_id: r.get(0)?,
                pool: r.get(1)?,
                value: RatingValue {
                    rating: r.get(2)?,
                    deviation: r.get(3)?,
                    volatility: r.get(4)?,
                    games: r.get(5)?,
                },
            },
            r.get::<_, i64>(6)?,
        ))
    })?;
    for row in rows {
        let (row, change) = row?;
        out.cursor = out.cursor.max(change);
        out.rows.push(row);
    }
    Ok(out)
}

/// A page of an account's history in a pool, newest first, strictly before `before` (an
/// `at_ms` and game id), at most `limit` lines.
pub(super) fn history(
    conn: &Connection,
    account_id: &str,
    pool: &str,
    before: Option<(i64, String)>,
    limit: usize,
) -> Result<Vec<HistoryLine>, StoreError> {
    let (at, game) = before.map_or((i64::MAX, String::new()), |(a, g)| (a, g));
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let mut stmt = conn.prepare_cached(
        "SELECT game_id, at_ms, place, before_rating, before_deviation, after_rating, after_deviation, seat \
         FROM rating_history WHERE account_id = ?1 AND pool = ?2 \
         AND (at_ms < ?3 OR (at_ms = ?3 AND ?4 <> '' AND game_id < ?4)) \
         ORDER BY at_ms DESC, game_id DESC LIMIT ?5",
    )?;
    let rows = stmt.query_map(params![account_id, pool, at, game, limit], |r| {
        Ok((
            HistoryLine {
                game_id: r.get(0)?,
                at_ms: r.get(1)?,
                place: r.get(2)?,
                before: (r.get(3)?, r.get(4)?),
                after: (r.get(5)?, r.get(6)?),
                opponents: Vec::new(),
            },
            r.get::<_, i64>(7)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (mut line, seat) = row?;
        let mut others = conn.prepare_cached(
            "SELECT account_id FROM rating_history WHERE game_id = ?1 AND seat <> ?2 ORDER BY seat",
        )?;
        line.opponents =
            others.query_map(params![line.game_id, seat], |r| r.get(0))?.collect::<Result<_, _>>()?;
        out.push(line);
    }
    Ok(out)
}
