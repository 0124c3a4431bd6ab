//! Durable storage: every game's fixed facts, seats, action log and end.
//!
//! The action log is the truth: the engine is deterministic given the seed and the actions, so
//! the server rebuilds every game at start by replaying what [`Store::start`] loads. Every write is
//! durable before [`Store::write`] resolves. One writer thread owns the [`Backend`] and commits
//! everything queued at once in one transaction (group commit), so many games writing at the same
//! time share one `fsync`.
//!
//! The storage sits behind [`Backend`]; [`SqliteBackend`] is the implementation on a file: the
//! games, seats and results in SQLite (WAL), and the actions of unfinished games, the hot path,
//! in an append-only [`Journal`] next to it (`<db>-actions/`). A group commit is one write and
//! one `fdatasync` of the journal: its actions, and a copy of its rows (a game's creation,
//! seats, end) as row records. SQLite then commits the rows without a sync of its own
//! (`synchronous=NORMAL`; its checkpoints sync); the journal keeps the row records until
//! SQLite's files are synced, before each rotation, and at start applies the ones it holds to
//! SQLite again, idempotently. So everything survives a killed process and a power loss once a
//! commit has returned. A finished game's actions move into its row.

use std::fmt;
use std::future::Future;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;

use rusqlite::types::FromSqlError;
use rusqlite::{Connection, TransactionBehavior, params};
use tokio::sync::oneshot;

use crate::journal::Journal;

/// A new game's fixed facts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewGame {
    /// The game's id (unique).
    pub id: String,
    /// The rules, as JSON.
    pub rules_json: String,
    /// The deal seed (stored as the `i64` with the same bits).
    pub seed: u64,
    /// The game's secret.
    pub secret: [u8; 32],
    /// The clock: milliseconds per move.
    pub clock_millis: u32,
    /// What happens when the clock runs out (the server's encoding).
    pub clock_policy: i32,
    /// The house bot's name (empty for none).
    pub house_bot: String,
    /// When the game was created, in Unix milliseconds.
    pub created_ms: i64,
    /// Its creator chose the seed (so it may know every deal): see `state::GameInfo::fixed_deals`.
    pub fixed_deals: bool,
}

/// A taken seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatRow {
    /// The seat's number.
    pub seat: u8,
    /// The player's name.
    pub name: String,
    /// The hash of the seat's token.
    pub token_hash: [u8; 32],
    /// Whether a bot holds the seat.
    pub bot: bool,
    /// When the seat was taken, in Unix milliseconds.
    pub joined_ms: i64,
}

/// What kind of logged action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActionKind {
    /// A move played by the seat (stored as `play`).
    Play,
    /// A move made for the seat when its clock ran out (stored as `timeout`).
    Timeout,
    /// The seat resigned (stored as `resign`).
    Resign,
}

impl ActionKind {
    /// The stored text.
    fn as_str(self) -> &'static str {
        match self {
            ActionKind::Play => "play",
            ActionKind::Timeout => "timeout",
            ActionKind::Resign => "resign",
        }
    }

    /// Parses the stored text.
    fn parse(text: &str) -> Option<ActionKind> {
        match text {
            "play" => Some(ActionKind::Play),
            "timeout" => Some(ActionKind::Timeout),
            "resign" => Some(ActionKind::Resign),
            _ => None,
        }
    }
}

/// One logged action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionRow {
    /// The action's place in the game's log (0, 1, 2, ...; unique per game).
    pub index: u32,
    /// The seat that acted (or was acted for).
    pub seat: u8,
    /// What kind of action.
    pub kind: ActionKind,
    /// The action itself (the server's encoding).
    pub action: String,
    /// When it happened, in Unix milliseconds.
    pub time_ms: i64,
}

/// One write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Write {
    /// Creates a game; fails if the id exists.
    CreateGame(NewGame),
    /// Takes a seat; fails if the game does not exist or the seat is taken.
    TakeSeat {
        /// The game.
        game_id: String,
        /// The seat taken.
        seat: SeatRow,
    },
    /// Logs an action; fails if the game does not exist or the index is already logged.
    Action {
        /// The game.
        game_id: String,
        /// The action.
        action: ActionRow,
    },
    /// Records a game's end; fails if the game does not exist or has already ended.
    Finish {
        /// The game.
        game_id: String,
        /// The result, as JSON.
        result_json: String,
        /// When the game ended, in Unix milliseconds.
        finished_ms: i64,
        /// The game's whole action log, kept with the game's row (as [`encode_actions`]) so
        /// a finished game can be read back by its key alone. Encoded by the writer thread,
        /// off the request's path.
        actions: Vec<ActionRow>,
    },
}

/// A game's action log as stored in a finished game's row: a JSON array of
/// `[index, seat, kind, action, time_ms]`.
pub fn encode_actions(actions: &[ActionRow]) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(2 + actions.len() * 40);
    out.push('[');
    for (i, a) in actions.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let action = serde_json::to_string(&a.action).expect("a string serializes");
        let _ = write!(out, "[{},{},\"{}\",{action},{}]", a.index, a.seat, a.kind.as_str(), a.time_ms);
    }
    out.push(']');
    out
}

/// The inverse of [`encode_actions`].
pub fn decode_actions(json: &str) -> Result<Vec<ActionRow>, StoreError> {
    let rows: Vec<(u32, u8, String, String, i64)> =
        serde_json::from_str(json).map_err(|e| StoreError(format!("stored action log: {e}")))?;
    rows.into_iter()
        .map(|(index, seat, kind, action, time_ms)| {
            let kind = ActionKind::parse(&kind)
                .ok_or_else(|| StoreError(format!("stored action log: unknown kind {kind:?}")))?;
            Ok(ActionRow { index, seat, kind, action, time_ms })
        })
        .collect()
}

/// Everything stored about one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredGame {
    /// The fixed facts.
    pub game: NewGame,
    /// The taken seats, in join order.
    pub seats: Vec<SeatRow>,
    /// The action log, by index.
    pub actions: Vec<ActionRow>,
    /// The end, once the game has ended.
    pub finished: Option<Finished>,
}

/// A game's end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finished {
    /// The result, as JSON.
    pub result_json: String,
    /// When the game ended, in Unix milliseconds.
    pub finished_ms: i64,
}

/// What the server needs at start: every unfinished game in full. (A finished game is read
/// back when asked for, [`Backend::load_game`], its seats with it: their tokens identify
/// their players then, nothing of it is kept in memory before.)
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Startup {
    /// Every unfinished game, in creation order.
    pub live: Vec<StoredGame>,
}

/// Storage failure (wraps the backend's message).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreError(pub String);

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StoreError {}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> StoreError {
        StoreError(e.to_string())
    }
}

impl From<FromSqlError> for StoreError {
    fn from(e: FromSqlError) -> StoreError {
        StoreError(e.to_string())
    }
}

/// The message of writes that were not (and will not be) committed because the store is closed.
const CLOSED: &str = "store closed";

fn closed() -> StoreError {
    StoreError(CLOSED.to_owned())
}

/// A storage backend: synchronous, used from the writer thread only.
pub trait Backend: Send + 'static {
    /// Applies every write of `batch` durably, all or nothing: a refused batch (a constraint,
    /// an action index out of order) changes nothing. Only an I/O failure may leave part of it
    /// durable, as a crash would (`SqliteBackend` commits the rows, then the actions; after
    /// its journal failed it refuses every write until the process restarts and reads back
    /// what is on disk).
    fn commit(&mut self, batch: &[Write]) -> Result<(), StoreError>;
    /// Every game with its seats, actions and end.
    fn load_all(&mut self) -> Result<Vec<StoredGame>, StoreError>;
    /// What the server loads at start.
    fn load_startup(&mut self) -> Result<Startup, StoreError>;
    /// One game, by id (`None` if there is no such game).
    fn load_game(&mut self, id: &str) -> Result<Option<StoredGame>, StoreError>;
}

/// The schema version this code writes and reads (`PRAGMA user_version`).
///
/// 3: the actions of unfinished games are in the journal (the `actions` table keeps only rows
/// written by versions 1 and 2 for games finished then).
/// 4: `games.fixed_deals` (a seed chosen by the creator).
const SCHEMA_VERSION: i64 = 4;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS games (
    id           TEXT    NOT NULL PRIMARY KEY,
    rules_json   TEXT    NOT NULL,
    seed         INTEGER NOT NULL,
    secret       BLOB    NOT NULL CHECK (length(secret) = 32),
    clock_millis INTEGER NOT NULL,
    clock_policy INTEGER NOT NULL,
    house_bot    TEXT    NOT NULL,
    created_ms   INTEGER NOT NULL,
    result_json  TEXT,
    record_json  TEXT,
    finished_ms  INTEGER,
    actions_json TEXT,
    fixed_deals  INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS seats (
    game_id    TEXT    NOT NULL REFERENCES games (id),
    seat       INTEGER NOT NULL,
    name       TEXT    NOT NULL,
    token_hash BLOB    NOT NULL CHECK (length(token_hash) = 32),
    bot        INTEGER NOT NULL,
    joined_ms  INTEGER NOT NULL,
    join_order INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat),
    UNIQUE (game_id, join_order)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS actions (
    game_id TEXT    NOT NULL REFERENCES games (id),
    idx     INTEGER NOT NULL,
    seat    INTEGER NOT NULL,
    kind    TEXT    NOT NULL CHECK (kind IN ('play', 'timeout', 'resign')),
    action  TEXT    NOT NULL,
    time_ms INTEGER NOT NULL
);
";

const INSERT_GAME: &str = "INSERT INTO games \
    (id, rules_json, seed, secret, clock_millis, clock_policy, house_bot, created_ms, fixed_deals) \
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";
const INSERT_SEAT: &str = "INSERT INTO seats \
    (game_id, seat, name, token_hash, bot, joined_ms, join_order) \
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, \
        (SELECT coalesce(max(join_order) + 1, 0) FROM seats WHERE game_id = ?1))";
/// The record (`record_json`, written by schema version 1 and 2) is not stored any more: it
/// is rebuilt from the seed and the actions, as the whole game is.
const FINISH_GAME: &str = "UPDATE games SET result_json = ?2, finished_ms = ?3, actions_json = ?4 \
    WHERE id = ?1 AND finished_ms IS NULL";
/// Version 1 to 2: finished games keep their action log in their row.
const MIGRATE_1_TO_2: &str = "ALTER TABLE games ADD COLUMN actions_json TEXT;";
/// Version 3 to 4: whether a game's creator chose its seed (0 for every game before).
const MIGRATE_3_TO_4: &str = "ALTER TABLE games ADD COLUMN fixed_deals INTEGER NOT NULL DEFAULT 0;";

/// SQLite and the action journal: a file and the directory `<file>-actions` next to it (or
/// ":memory:" for tests, the journal then in memory too).
pub struct SqliteBackend {
    conn: Connection,
    /// The database file (`None` in memory).
    path: Option<std::path::PathBuf>,
    /// The actions of unfinished games; it also knows each one's next index (see `commit`).
    journal: Journal,
    /// The ids of the unfinished games (the only ones that take actions).
    unfinished: std::collections::HashSet<String>,
    /// Keeps the checkpointer thread running (when dropped, after the writer's connection: it
    /// checkpoints once more and is waited for, so a closed store's files no longer change).
    _checkpointer: Option<Checkpointer>,
}

/// The checkpointer thread: stopped and joined on drop.
struct Checkpointer {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// How often the checkpointer copies the WAL into the database file.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(100);

/// Starts the checkpointer of the database at `path`: its own connection, which copies
/// committed WAL frames into the database file every [`CHECKPOINT_EVERY`] (a PASSIVE
/// checkpoint: it never blocks the writer) and once more when the returned handle is dropped.
///
/// Left to SQLite, the commit that crosses 1,000 WAL pages does the checkpoint itself, with an
/// fsync of the database file, while every action of its group commit waits: that was the tail
/// of the action latency. The writer's connection has automatic checkpoints off; SQLite restarts
/// the WAL from its beginning at a write once a checkpoint has copied all of it.
fn start_checkpointer(path: &Path) -> Result<Checkpointer, StoreError> {
    let context = |e: rusqlite::Error| StoreError(format!("checkpointer for {}: {e}", path.display()));
    let conn = Connection::open(path).map_err(context)?;
    conn.busy_timeout(Duration::from_secs(10)).map_err(context)?;
    let (keep, stop) = mpsc::channel::<()>();
    let name = path.display().to_string();
    let thread = std::thread::Builder::new()
        .name("store-checkpoint".to_owned())
        .spawn(move || {
            loop {
                let last =
                    matches!(stop.recv_timeout(CHECKPOINT_EVERY), Err(mpsc::RecvTimeoutError::Disconnected));
                // A failed checkpoint loses nothing (the frames stay in the WAL): say so, go on.
                if let Err(e) = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
                    tracing::warn!(db = %name, error = %e, "WAL checkpoint failed");
                }
                if last {
                    return;
                }
            }
        })
        .map_err(|e| StoreError(format!("starting the checkpointer thread: {e}")))?;
    Ok(Checkpointer { stop: Some(keep), thread: Some(thread) })
}

impl SqliteBackend {
    /// Opens (creating if missing) the database at `path`: WAL journal, foreign keys on, a busy
    /// timeout; creates the schema if missing (`PRAGMA user_version` = 4), migrates versions 1
    /// to 3, and refuses a database of another schema version. Then opens the action journal
    /// ([`journal_dir`]), recovering what it holds, and applies its row records to SQLite again
    /// (synced). Its later commits do not sync (`synchronous=NORMAL`): see
    /// [`SqliteBackend::commit`](Backend::commit).
    pub fn open(path: &Path) -> Result<SqliteBackend, StoreError> {
        SqliteBackend::open_with(path, JOURNAL_SEGMENT_BYTES)
    }

    /// [`SqliteBackend::open`] with the journal's segment size (tests use small ones).
    pub fn open_with(path: &Path, segment_bytes: u64) -> Result<SqliteBackend, StoreError> {
        let context = |e: rusqlite::Error| StoreError(format!("opening {}: {e}", path.display()));
        let in_memory = path.as_os_str() == ":memory:";
        let created = !in_memory && !path.exists();
        let mut conn = Connection::open(path).map_err(context)?;
        conn.busy_timeout(Duration::from_secs(10)).map_err(context)?;
        let mode: String =
            conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0)).map_err(context)?;
        let usable = mode.eq_ignore_ascii_case("wal") || (in_memory && mode.eq_ignore_ascii_case("memory"));
        if !usable {
            return Err(StoreError(format!("{}: cannot use WAL (journal mode {mode})", path.display())));
        }
        conn.pragma_update(None, "synchronous", "FULL").map_err(context)?;
        conn.pragma_update(None, "foreign_keys", true).map_err(context)?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(context)?;
        let version: i64 = tx.pragma_query_value(None, "user_version", |row| row.get(0)).map_err(context)?;
        match version {
            0 => {
                tx.execute_batch(SCHEMA).map_err(context)?;
                tx.pragma_update(None, "user_version", SCHEMA_VERSION).map_err(context)?;
            }
            // Version 2 to 3 needs the journal: below.
            1 => {
                tx.execute_batch(MIGRATE_1_TO_2).map_err(context)?;
                tx.pragma_update(None, "user_version", 2).map_err(context)?;
            }
            // Before the journal's row records are applied again below: they name the column.
            3 => {
                tx.execute_batch(MIGRATE_3_TO_4).map_err(context)?;
                tx.pragma_update(None, "user_version", SCHEMA_VERSION).map_err(context)?;
            }
            2 | SCHEMA_VERSION => {}
            other => {
                return Err(StoreError(format!(
                    "{}: schema version {other}, this server knows {SCHEMA_VERSION}",
                    path.display()
                )));
            }
        }
        tx.commit().map_err(context)?;
        if created {
            sync_parent_dir(path)?;
        }
        let mut journal = if in_memory {
            Journal::in_memory()
        } else {
            Journal::open(&journal_dir(path), segment_bytes)?.0
        };
        // Rows the journal made durable that SQLite may have lost (it does not sync them
        // itself, see `commit`): applied again, idempotently, and synced (still `FULL` here).
        let rows = journal.take_rows();
        if !rows.is_empty() {
            replay_rows(&mut conn, &journal, &rows)
                .map_err(|e| StoreError(format!("{}: {e}", path.display())))?;
        }
        let unfinished: std::collections::HashSet<String> = {
            let mut stmt = conn.prepare("SELECT id FROM games WHERE finished_ms IS NULL").map_err(context)?;
            let ids = stmt.query_map([], |r| r.get::<_, String>(0)).map_err(context)?;
            ids.collect::<Result<_, _>>().map_err(context)?
        };
        // The journal may still hold games that finished since its last rotation (their actions
        // are in their rows now), or whose creation never committed: they are not needed.
        let stale: Vec<String> =
            journal.games().filter(|g| !unfinished.contains(*g)).map(str::to_owned).collect();
        for id in &stale {
            journal.forget(id);
        }
        let version: i64 =
            conn.pragma_query_value(None, "user_version", |row| row.get(0)).map_err(context)?;
        if version == 2 {
            migrate_2_to_3(&mut conn, &mut journal)
                .map_err(|e| StoreError(format!("{}: {e}", path.display())))?;
        }
        let checkpointer = if in_memory {
            None
        } else {
            conn.pragma_update(None, "wal_autocheckpoint", 0).map_err(context)?;
            Some(start_checkpointer(path)?)
        };
        // From here on the rows of a batch are made durable by the journal's fdatasync (see
        // `commit`); SQLite's commits need not sync (its checkpoints still do).
        conn.pragma_update(None, "synchronous", "NORMAL").map_err(context)?;
        let path = (!in_memory).then(|| path.to_owned());
        Ok(SqliteBackend { conn, path, journal, unfinished, _checkpointer: checkpointer })
    }
}

/// The action journal of the database at `db`: the directory `<db>-actions` beside it.
pub fn journal_dir(db: &Path) -> std::path::PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push("-actions");
    std::path::PathBuf::from(name)
}

/// Journal segments are rotated past this size (the live games' actions are carried over).
const JOURNAL_SEGMENT_BYTES: u64 = 64 << 20;

/// Version 2 to 3 (and 4): the unfinished games' action rows move into the journal (appended
/// first, durably; then deleted from the table with the version bump, in one transaction). A crash in
/// between redoes it: rows the journal already has are not appended twice.
fn migrate_2_to_3(conn: &mut Connection, journal: &mut Journal) -> Result<(), StoreError> {
    let rows: Vec<(String, ActionRow)> = {
        let mut stmt = conn.prepare(
            "SELECT game_id, idx, seat, kind, action, time_ms FROM actions \
             WHERE game_id IN (SELECT id FROM games WHERE finished_ms IS NULL) ORDER BY game_id, idx",
        )?;
        let mut rows = stmt.query([])?;
        let mut out = Vec::new();
        while let Some(row) = rows.next()? {
            out.push((row.get(0)?, action_row(row, 1)?));
        }
        out
    };
    let fresh: Vec<(&str, &ActionRow)> =
        rows.iter().filter(|(g, a)| a.index >= journal.next_index(g)).map(|(g, a)| (g.as_str(), a)).collect();
    journal.append(&fresh)?;
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.execute("DELETE FROM actions WHERE game_id IN (SELECT id FROM games WHERE finished_ms IS NULL)", [])?;
    // And on to version 4 in the same transaction (a version 2 database has no journal yet, so
    // no row records naming the new column were applied above).
    tx.execute_batch(MIGRATE_3_TO_4)?;
    tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    tx.commit()?;
    Ok(())
}

/// An action from a row whose columns from `at` are idx, seat, kind, action, time_ms.
fn action_row(row: &rusqlite::Row<'_>, at: usize) -> Result<ActionRow, StoreError> {
    let kind = row.get_ref(at + 2)?.as_str()?;
    let kind = ActionKind::parse(kind).ok_or_else(|| StoreError(format!("unknown action kind {kind:?}")))?;
    Ok(ActionRow {
        index: row.get(at)?,
        seat: row.get(at + 1)?,
        kind,
        action: row.get(at + 3)?,
        time_ms: row.get(at + 4)?,
    })
}

/// Makes a newly created database file's directory entry durable (SQLite itself syncs the
/// directory for the WAL and journal files it creates, not for the database file).
#[cfg(unix)]
fn sync_parent_dir(path: &Path) -> Result<(), StoreError> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| StoreError(format!("syncing directory {}: {e}", dir.display())))
}

/// Directories cannot be synced this way here; the first checkpoint's sync has to do.
#[cfg(not(unix))]
fn sync_parent_dir(_path: &Path) -> Result<(), StoreError> {
    Ok(())
}

/// Inserts the game `g` with `sql` ([`INSERT_GAME`] or its `OR IGNORE` form); the rows changed.
fn insert_game(conn: &Connection, sql: &str, g: &NewGame) -> rusqlite::Result<usize> {
    conn.prepare_cached(sql)?.execute(params![
        g.id,
        g.rules_json,
        g.seed as i64,
        g.secret,
        g.clock_millis,
        g.clock_policy,
        g.house_bot,
        g.created_ms,
        g.fixed_deals
    ])
}

/// Applies one write inside the open transaction `conn`.
fn apply(conn: &Connection, write: &Write) -> Result<(), StoreError> {
    match write {
        Write::CreateGame(g) => insert_game(conn, INSERT_GAME, g)
            .map(drop)
            .map_err(|e| StoreError(format!("creating game {}: {e}", g.id))),
        Write::TakeSeat { game_id, seat: s } => conn
            .prepare_cached(INSERT_SEAT)?
            .execute(params![game_id, s.seat, s.name, s.token_hash, s.bot, s.joined_ms])
            .map(drop)
            .map_err(|e| StoreError(format!("taking seat {} of game {game_id}: {e}", s.seat))),
        // The journal's, see `SqliteBackend::commit`.
        Write::Action { .. } => Ok(()),
        Write::Finish { game_id, result_json, finished_ms, actions } => {
            let changed = conn
                .prepare_cached(FINISH_GAME)?
                .execute(params![game_id, result_json, finished_ms, encode_actions(actions)])
                .map_err(|e| StoreError(format!("finishing game {game_id}: {e}")))?;
            if changed == 1 {
                Ok(())
            } else {
                Err(StoreError(format!("finishing game {game_id}: no such game, or already finished")))
            }
        }
    }
}

/// Where the rows of the game with id `game_id` go: `last` caches the previous lookup, since the
/// rows come grouped by game.
fn game_slot(
    games: &[StoredGame],
    by_id: &std::collections::HashMap<String, usize>,
    last: &mut Option<usize>,
    game_id: &str,
    table: &str,
) -> Result<usize, StoreError> {
    if let Some(i) = *last
        && games[i].game.id == game_id
    {
        return Ok(i);
    }
    let i =
        *by_id.get(game_id).ok_or_else(|| StoreError(format!("{table} row of unknown game {game_id}")))?;
    *last = Some(i);
    Ok(i)
}

impl SqliteBackend {
    /// Makes every committed SQLite transaction durable: syncs the WAL, then the database
    /// file (a checkpoint may have moved frames into it).
    fn sync_sqlite(&self) -> Result<(), StoreError> {
        let Some(db) = &self.path else { return Ok(()) };
        let mut wal = db.as_os_str().to_owned();
        wal.push("-wal");
        for file in [std::path::PathBuf::from(wal), db.clone()] {
            match std::fs::File::open(&file) {
                Ok(f) => f.sync_all().map_err(|e| StoreError(format!("syncing {}: {e}", file.display())))?,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(StoreError(format!("opening {}: {e}", file.display()))),
            }
        }
        Ok(())
    }
}

/// The row record of a write (game id, JSON text), if it is a row: what [`replay_rows`] needs
/// to apply it again. A game's end leaves its actions out: the journal has them.
fn row_record(write: &Write) -> Option<(&str, String)> {
    let (game, text) = match write {
        Write::CreateGame(g) => (
            &g.id,
            serde_json::json!({ "create": {
                "rules_json": g.rules_json,
                "seed": g.seed,
                "secret": g.secret.to_vec(),
                "clock_millis": g.clock_millis,
                "clock_policy": g.clock_policy,
                "house_bot": g.house_bot,
                "created_ms": g.created_ms,
                "fixed_deals": g.fixed_deals,
            }}),
        ),
        Write::TakeSeat { game_id, seat: s } => (
            game_id,
            serde_json::json!({ "seat": {
                "seat": s.seat,
                "name": s.name,
                "token_hash": s.token_hash.to_vec(),
                "bot": s.bot,
                "joined_ms": s.joined_ms,
            }}),
        ),
        Write::Finish { game_id, result_json, finished_ms, .. } => (
            game_id,
            serde_json::json!({ "finish": {
                "result_json": result_json,
                "finished_ms": finished_ms,
            }}),
        ),
        Write::Action { .. } => return None,
    };
    Some((game.as_str(), text.to_string()))
}

/// Applies the row records `rows` (as [`row_record`] wrote them) to SQLite again, in one
/// transaction: what SQLite already has is left as it is (a game or seat that exists, a game
/// already finished); a game's end takes its actions from `journal`.
fn replay_rows(
    conn: &mut Connection,
    journal: &Journal,
    rows: &[(String, String)],
) -> Result<(), StoreError> {
    use serde_json::Value;
    let bad = |game: &str, what: &str| StoreError(format!("journal: row record of game {game}: {what}"));
    let bytes32 = |v: &Value| -> Option<[u8; 32]> {
        let v: Vec<u8> = v
            .as_array()?
            .iter()
            .map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()))
            .collect::<Option<_>>()?;
        v.try_into().ok()
    };
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let mut applied = 0usize;
    for (game, text) in rows {
        let v: Value = serde_json::from_str(text).map_err(|e| bad(game, &e.to_string()))?;
        let changed = if let Some(g) = v.get("create") {
            let g = (|| {
                Some(NewGame {
                    id: game.clone(),
                    rules_json: g["rules_json"].as_str()?.to_owned(),
                    seed: g["seed"].as_u64()?,
                    secret: bytes32(&g["secret"])?,
                    clock_millis: u32::try_from(g["clock_millis"].as_u64()?).ok()?,
                    clock_policy: i32::try_from(g["clock_policy"].as_i64()?).ok()?,
                    house_bot: g["house_bot"].as_str()?.to_owned(),
                    created_ms: g["created_ms"].as_i64()?,
                    // Absent from the records written before schema version 4.
                    fixed_deals: g.get("fixed_deals").map_or(Some(false), serde_json::Value::as_bool)?,
                })
            })()
            .ok_or_else(|| bad(game, "malformed creation"))?;
            insert_game(&tx, &INSERT_GAME.replacen("INSERT INTO", "INSERT OR IGNORE INTO", 1), &g)?
        } else if let Some(s) = v.get("seat") {
            let s = (|| {
                Some(SeatRow {
                    seat: u8::try_from(s["seat"].as_u64()?).ok()?,
                    name: s["name"].as_str()?.to_owned(),
                    token_hash: bytes32(&s["token_hash"])?,
                    bot: s["bot"].as_bool()?,
                    joined_ms: s["joined_ms"].as_i64()?,
                })
            })()
            .ok_or_else(|| bad(game, "malformed seat"))?;
            tx.execute(
                &INSERT_SEAT.replacen("INSERT INTO", "INSERT OR IGNORE INTO", 1),
                params![game, s.seat, s.name, s.token_hash, s.bot, s.joined_ms],
            )?
        } else if let Some(f) = v.get("finish") {
            let (Some(result_json), Some(finished_ms)) =
                (f["result_json"].as_str(), f["finished_ms"].as_i64())
            else {
                return Err(bad(game, "malformed end"));
            };
            tx.execute(
                "UPDATE games SET result_json = ?2, finished_ms = ?3, actions_json = ?4 \
                 WHERE id = ?1 AND finished_ms IS NULL",
                params![game, result_json, finished_ms, encode_actions(&journal.actions(game))],
            )?
        } else {
            return Err(bad(game, "unknown kind"));
        };
        applied += changed;
    }
    tx.commit()?;
    if applied > 0 {
        tracing::warn!(rows = applied, "store: rows SQLite had lost were applied again from the journal");
    }
    Ok(())
}

impl Backend for SqliteBackend {
    fn commit(&mut self, batch: &[Write]) -> Result<(), StoreError> {
        if batch.is_empty() {
            return Ok(());
        }
        // Only an unfinished game takes actions (created earlier or in this batch).
        let mut open: std::collections::HashMap<&str, bool> = std::collections::HashMap::new();
        let mut actions = Vec::new();
        let mut others = false;
        for write in batch {
            match write {
                Write::CreateGame(g) => {
                    open.insert(&g.id, true);
                    others = true;
                }
                Write::Finish { game_id, .. } => {
                    open.insert(game_id, false);
                    others = true;
                }
                Write::Action { game_id, action } => {
                    let live = open
                        .get(game_id.as_str())
                        .copied()
                        .unwrap_or_else(|| self.unfinished.contains(game_id));
                    if !live {
                        return Err(StoreError(format!(
                            "logging action {} of game {game_id}: no such game, or it is over",
                            action.index
                        )));
                    }
                    actions.push((game_id.as_str(), action));
                }
                Write::TakeSeat { .. } => others = true,
            }
        }
        // Each game's action indices must go 0, 1, 2… with no gap and no repeat (the safety net
        // against applying an action twice), and their texts must fit the journal: checked
        // before anything is written, so a refused batch changes nothing.
        self.journal.check(&actions)?;
        // The rows (a game's creation, seats, end) are made durable by the journal, in the same
        // write and fdatasync as the actions, as row records; SQLite gets them in a transaction
        // that does not sync (`synchronous=NORMAL`). The journal keeps row records until its
        // next rotation, and SQLite's files are synced before that; at start, the row records
        // found are applied to SQLite again (`replay_rows`). The transaction is open before the
        // append, so a row SQLite refuses (a seat taken, a game already over) is refused
        // before anything is written.
        if self.journal.rotation_due() {
            self.sync_sqlite()?;
        }
        let records: Vec<(&str, String)> = batch.iter().filter_map(row_record).collect();
        let refs: Vec<(&str, &str)> = records.iter().map(|(g, t)| (*g, t.as_str())).collect();
        let tx = if others {
            let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            for write in batch {
                apply(&tx, write)?;
            }
            Some(tx)
        } else {
            None
        };
        self.journal.append_with_rows(&actions, &refs)?;
        if let Some(tx) = tx {
            tx.commit()?;
        }
        // A finished game takes no more actions: the journal may drop them.
        for (id, live) in open {
            if live {
                self.unfinished.insert(id.to_owned());
            } else {
                self.unfinished.remove(id);
                self.journal.forget(id);
            }
        }
        Ok(())
    }

    fn load_all(&mut self) -> Result<Vec<StoredGame>, StoreError> {
        // One read transaction: one consistent snapshot of the three tables.
        let tx = self.conn.transaction()?;
        let games = load_games(&tx, &self.journal, Which::All)?;
        tx.commit()?;
        Ok(games)
    }

    fn load_startup(&mut self) -> Result<Startup, StoreError> {
        let tx = self.conn.transaction()?;
        let live = load_games(&tx, &self.journal, Which::Unfinished)?;
        tx.commit()?;
        Ok(Startup { live })
    }

    fn load_game(&mut self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        let tx = self.conn.transaction()?;
        let game = load_games(&tx, &self.journal, Which::One(id))?.pop();
        tx.commit()?;
        Ok(game)
    }
}

/// Which games [`load_games`] reads.
#[derive(Clone, Copy)]
enum Which<'a> {
    All,
    Unfinished,
    One(&'a str),
}

impl Which<'_> {
    /// The condition on `games` (alias-free), and on a table's `game_id` column.
    fn conditions(self) -> (&'static str, &'static str) {
        match self {
            Which::All => ("", ""),
            Which::Unfinished => (
                "WHERE finished_ms IS NULL",
                "WHERE game_id IN (SELECT id FROM games WHERE finished_ms IS NULL)",
            ),
            Which::One(_) => ("WHERE id = ?1", "WHERE game_id = ?1"),
        }
    }
}

/// A seat from a row whose columns from `at` are seat, name, token_hash, bot, joined_ms.
fn seat_row(row: &rusqlite::Row<'_>, at: usize) -> Result<SeatRow, StoreError> {
    Ok(SeatRow {
        seat: row.get(at)?,
        name: row.get(at + 1)?,
        token_hash: row.get(at + 2)?,
        bot: row.get(at + 3)?,
        joined_ms: row.get(at + 4)?,
    })
}

/// Reads `which` games with their seats, actions and ends, inside the caller's transaction;
/// an unfinished game's actions come from `journal`, a finished one's from its row
/// (`actions_json`; games finished before schema version 2 have theirs in the actions table).
fn load_games(tx: &Connection, journal: &Journal, which: Which<'_>) -> Result<Vec<StoredGame>, StoreError> {
    let (games_where, rows_where) = which.conditions();
    let id_param: Vec<&dyn rusqlite::ToSql> = match &which {
        Which::One(id) => vec![id as &dyn rusqlite::ToSql],
        _ => Vec::new(),
    };
    let mut games = Vec::new();
    let mut stored_actions: Vec<Option<String>> = Vec::new();
    {
        let mut stmt = tx.prepare(&format!(
            "SELECT id, rules_json, seed, secret, clock_millis, clock_policy, house_bot, created_ms, \
             result_json, finished_ms, actions_json, fixed_deals FROM games {games_where} ORDER BY rowid"
        ))?;
        let mut rows = stmt.query(id_param.as_slice())?;
        while let Some(row) = rows.next()? {
            let finished_ms: Option<i64> = row.get(9)?;
            let finished = match finished_ms {
                Some(finished_ms) => Some(Finished {
                    result_json: row.get::<_, Option<String>>(8)?.unwrap_or_default(),
                    finished_ms,
                }),
                None => None,
            };
            stored_actions.push(row.get(10)?);
            games.push(StoredGame {
                game: NewGame {
                    id: row.get(0)?,
                    rules_json: row.get(1)?,
                    seed: row.get::<_, i64>(2)? as u64,
                    secret: row.get(3)?,
                    clock_millis: row.get(4)?,
                    clock_policy: row.get(5)?,
                    house_bot: row.get(6)?,
                    created_ms: row.get(7)?,
                    fixed_deals: row.get(11)?,
                },
                seats: Vec::new(),
                actions: Vec::new(),
                finished,
            });
        }
    }
    if games.is_empty() {
        return Ok(games);
    }
    let by_id: std::collections::HashMap<String, usize> =
        games.iter().enumerate().map(|(i, g)| (g.game.id.clone(), i)).collect();
    {
        let mut stmt = tx.prepare(&format!(
            "SELECT game_id, seat, name, token_hash, bot, joined_ms FROM seats {rows_where} \
             ORDER BY game_id, join_order"
        ))?;
        let mut rows = stmt.query(id_param.as_slice())?;
        let mut last = None;
        while let Some(row) = rows.next()? {
            let game_id = row.get_ref(0)?.as_str()?;
            let i = game_slot(&games, &by_id, &mut last, game_id, "seats")?;
            games[i].seats.push(seat_row(row, 1)?);
        }
    }
    // Actions: a finished game's from its row, an unfinished one's from the journal; only a
    // game finished by a version-1 server has them in the actions table.
    let mut legacy = false;
    for (g, json) in games.iter_mut().zip(&stored_actions) {
        match (json, &g.finished) {
            (Some(json), _) => g.actions = decode_actions(json)?,
            (None, None) => g.actions = journal.actions(&g.game.id),
            (None, Some(_)) => legacy = true,
        }
    }
    if legacy {
        let mut stmt = tx.prepare(&format!(
            "SELECT game_id, idx, seat, kind, action, time_ms FROM actions {rows_where} ORDER BY game_id, idx"
        ))?;
        let mut rows = stmt.query(id_param.as_slice())?;
        let mut last = None;
        while let Some(row) = rows.next()? {
            let game_id = row.get_ref(0)?.as_str()?;
            let i = game_slot(&games, &by_id, &mut last, game_id, "actions")?;
            if stored_actions[i].is_none() && games[i].finished.is_some() {
                let a = action_row(row, 1).map_err(|e| StoreError(format!("game {game_id}: {e}")))?;
                games[i].actions.push(a);
            }
        }
    }
    Ok(games)
}

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
    /// Read one game (after committing everything queued before: FIFO).
    Load(String, oneshot::Sender<Result<Option<StoredGame>, StoreError>>),
    /// Commit everything before, then stop; answer when stopped.
    Close(oneshot::Sender<()>),
}

/// State shared by every handle and the writer thread.
#[derive(Default)]
struct Shared {
    closed: AtomicBool,
    transactions: AtomicU64,
    writes: AtomicU64,
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
    /// Opens the backend, loads what the server needs at start, starts the writer thread.
    pub fn start(mut backend: impl Backend) -> Result<(Store, Startup), StoreError> {
        let games = backend.load_startup()?;
        let (queue, inbox) = mpsc::channel();
        let shared = Arc::new(Shared::default());
        let writer_shared = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("store-writer".to_owned())
            .spawn(move || writer(backend, inbox, &writer_shared))
            .map_err(|e| StoreError(format!("starting the store writer thread: {e}")))?;
        Ok((Store { queue, shared }, games))
    }

    /// Convenience: [`SqliteBackend::open`] + [`Store::start`].
    pub fn open_sqlite(path: &Path) -> Result<(Store, Startup), StoreError> {
        Store::start(SqliteBackend::open(path)?)
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
        if self.shared.closed.load(Ordering::Acquire) {
            return Err(closed());
        }
        let (reply, answer) = oneshot::channel();
        self.queue.send(Msg::Load(id.to_owned(), reply)).map_err(|_| closed())?;
        answer.await.unwrap_or_else(|_| Err(closed()))
    }

    /// Counters for benchmarks: (transactions committed, writes committed).
    pub fn stats(&self) -> (u64, u64) {
        (self.shared.transactions.load(Ordering::Relaxed), self.shared.writes.load(Ordering::Relaxed))
    }

    /// Waits until everything enqueued before this call is committed, then stops the writer thread
    /// (for graceful shutdown; the backend is dropped before this returns). Further writes fail with
    /// `StoreError("store closed")`. Closing a closed store returns at once.
    pub async fn close(&self) {
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
            Some(answer) => std::pin::Pin::new(answer).poll(cx).map(|r| r.unwrap_or_else(|_| Err(closed()))),
            None => std::task::Poll::Ready(Err(closed())),
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
        let mut load = None;
        let mut count = 0;
        let mut next = Some(first);
        while let Some(msg) = next.take() {
            match msg {
                Msg::Write(request) => {
                    count += request.writes.len();
                    batch.push(request);
                }
                Msg::Load(id, reply) => {
                    // Reads see everything queued before them: commit that first.
                    load = Some((id, reply));
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
        if let Some((id, reply)) = load {
            let _ = reply.send(backend.load_game(&id));
        }
        if let Some(done) = close {
            shared.closed.store(true, Ordering::Release);
            drop(backend);
            // Requests queued after the close are dropped: their callers get "store closed".
            drop(inbox);
            let _ = done.send(());
            return;
        }
    }
}

/// Commits `batch` (`count` writes in all) in one transaction and answers every request; if that
/// fails, retries each request in its own transaction so one bad request fails alone.
fn commit_batch(backend: &mut impl Backend, batch: &mut Vec<Request>, count: usize, shared: &Shared) {
    if batch.is_empty() {
        return;
    }
    let committed = |writes: usize| {
        if writes > 0 {
            shared.transactions.fetch_add(1, Ordering::Relaxed);
            shared.writes.fetch_add(writes as u64, Ordering::Relaxed);
        }
    };
    if batch.len() == 1 {
        let request = batch.pop().expect("one request");
        let result = backend.commit(&request.writes);
        if result.is_ok() {
            committed(request.writes.len());
        }
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
    match backend.commit(&all) {
        Ok(()) => {
            committed(all.len());
            for (_, reply) in owners {
                let _ = reply.send(Ok(()));
            }
        }
        Err(_) => {
            for (range, reply) in owners {
                let writes = &all[range];
                let result = backend.commit(writes);
                if result.is_ok() {
                    committed(writes.len());
                }
                let _ = reply.send(result);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;
    use std::time::Instant;

    fn new_game(id: &str, seed: u64) -> NewGame {
        let mut secret = [0u8; 32];
        for (i, b) in secret.iter_mut().enumerate() {
            *b = (i as u8).wrapping_mul(37) ^ seed as u8;
        }
        NewGame {
            id: id.to_owned(),
            rules_json: format!("{{\"game\":\"{id}\"}}"),
            seed,
            secret,
            clock_millis: 30_000,
            clock_policy: -2,
            house_bot: "random".to_owned(),
            created_ms: 1_700_000_000_000 + seed as i64 % 1000,
            fixed_deals: seed % 2 == 1,
        }
    }

    fn seat(seat: u8, name: &str, bot: bool) -> SeatRow {
        SeatRow {
            seat,
            name: name.to_owned(),
            token_hash: [seat ^ 0xA5; 32],
            bot,
            joined_ms: 1000 + seat as i64,
        }
    }

    fn action(index: u32, kind: ActionKind) -> ActionRow {
        ActionRow {
            index,
            seat: (index % 2) as u8,
            kind,
            action: format!("move-{index}"),
            time_ms: 5000 + index as i64,
        }
    }

    fn create(game: &NewGame) -> Write {
        Write::CreateGame(game.clone())
    }

    fn take(game_id: &str, row: &SeatRow) -> Write {
        Write::TakeSeat { game_id: game_id.to_owned(), seat: row.clone() }
    }

    fn act(game_id: &str, row: &ActionRow) -> Write {
        Write::Action { game_id: game_id.to_owned(), action: row.clone() }
    }

    fn finish(game_id: &str, finished: &Finished, actions: &[ActionRow]) -> Write {
        Write::Finish {
            game_id: game_id.to_owned(),
            result_json: finished.result_json.clone(),
            finished_ms: finished.finished_ms,
            actions: actions.to_vec(),
        }
    }

    /// What is on disk, read as another process would: a copy of the database, its WAL and
    /// its journal (taken while the store may still be running: the journal is locked by it),
    /// opened and read in full.
    fn load(path: &Path) -> Vec<StoredGame> {
        let copy = tempfile::tempdir().unwrap();
        let db = copy.path().join("gin.db");
        std::fs::copy(path, &db).unwrap();
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        if Path::new(&wal).exists() {
            let mut to = db.as_os_str().to_owned();
            to.push("-wal");
            std::fs::copy(&wal, &to).unwrap();
        }
        let (from, to) = (journal_dir(path), journal_dir(&db));
        std::fs::create_dir(&to).unwrap();
        for entry in std::fs::read_dir(&from).unwrap() {
            let entry = entry.unwrap();
            if entry.file_name() != "LOCK" {
                std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
            }
        }
        SqliteBackend::open(&db).unwrap().load_all().unwrap()
    }

    #[test]
    fn the_action_log_encoding_is_the_json_it_always_was_and_decodes_back() {
        let mut rows =
            vec![action(0, ActionKind::Play), action(1, ActionKind::Timeout), action(2, ActionKind::Resign)];
        rows[1].action = "odd \"text\" \\ \n é".to_owned();
        rows[2].time_ms = -5;
        let tuples: Vec<(u32, u8, &str, &str, i64)> =
            rows.iter().map(|a| (a.index, a.seat, a.kind.as_str(), a.action.as_str(), a.time_ms)).collect();
        let json = encode_actions(&rows);
        assert_eq!(json, serde_json::to_string(&tuples).unwrap());
        assert_eq!(decode_actions(&json).unwrap(), rows);
        assert_eq!(encode_actions(&[]), "[]");
        assert!(decode_actions("[[0,0,\"nope\",\"x\",1]]").is_err());
    }

    #[tokio::test]
    async fn round_trip_survives_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gin.db");
        let (store, loaded) = Store::open_sqlite(&path).unwrap();
        assert_eq!(loaded, Startup::default());

        // Top bit set: stored as a negative i64.
        let a = new_game("game-a", 0x8000_0000_0000_0001);
        let b = new_game("game-b", u64::MAX);
        let c = new_game("game-c", 0);
        // Seats joined out of seat order: join order must survive.
        let a_seats = vec![seat(1, "alice", false), seat(0, "house", true)];
        let b_seats = vec![seat(0, "bob", false)];
        let a_actions: Vec<ActionRow> = (0..7)
            .map(|i| action(i, if i == 3 { ActionKind::Timeout } else { ActionKind::Play }))
            .chain([action(7, ActionKind::Resign)])
            .collect();
        let b_actions: Vec<ActionRow> = (0..3).map(|i| action(i, ActionKind::Play)).collect();
        let a_end = Finished { result_json: "{\"winner\":1}".to_owned(), finished_ms: 1_700_000_999_999 };

        store.write(vec![create(&a), create(&b)]).await.unwrap();
        store.write(vec![create(&c)]).await.unwrap();
        for s in &a_seats {
            store.write(vec![take("game-a", s)]).await.unwrap();
        }
        store.write(b_seats.iter().map(|s| take("game-b", s)).collect()).await.unwrap();
        // Interleave the two games' actions.
        for (i, row) in a_actions.iter().enumerate() {
            store.write(vec![act("game-a", row)]).await.unwrap();
            if let Some(row) = b_actions.get(i) {
                store.write(vec![act("game-b", row)]).await.unwrap();
            }
        }
        store.write(vec![finish("game-a", &a_end, &a_actions)]).await.unwrap();
        let (transactions, writes) = store.stats();
        assert_eq!(writes, 3 + 3 + 11 + 1);
        assert!(transactions >= 1 && transactions <= writes);
        store.close().await;
        drop(store);

        let expected = vec![
            StoredGame { game: a, seats: a_seats, actions: a_actions, finished: Some(a_end) },
            StoredGame { game: b, seats: b_seats, actions: b_actions, finished: None },
            StoredGame { game: c, seats: vec![], actions: vec![], finished: None },
        ];
        assert_eq!(load(&path), expected);
        // At start: the unfinished games in full, nothing of the finished one...
        let (store, loaded) = Store::open_sqlite(&path).unwrap();
        assert_eq!(loaded.live, expected[1..].to_vec());
        assert_eq!(store.stats(), (0, 0));
        // ...and any game by id: the finished one from its row's action log, the same.
        assert_eq!(store.load_game("game-a").await.unwrap().as_ref(), Some(&expected[0]));
        assert_eq!(store.load_game("game-b").await.unwrap().as_ref(), Some(&expected[1]));
        assert_eq!(store.load_game("game-z").await.unwrap(), None);
        store.close().await;
        assert!(store.load_game("game-a").await.is_err());
    }

    #[tokio::test]
    async fn a_finished_game_leaves_the_journal_and_its_row_is_the_truth() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gin.db");
        let rows: Vec<ActionRow> = (0..5).map(|i| action(i, ActionKind::Play)).collect();
        let end = Finished { result_json: "{}".to_owned(), finished_ms: 9 };
        {
            let mut b = SqliteBackend::open(&path).unwrap();
            b.commit(&[create(&new_game("done", 1)), create(&new_game("live", 2))]).unwrap();
            for r in &rows[..4] {
                b.commit(&[act("done", r), act("live", r)]).unwrap();
            }
            // The last action and the end in one batch, as a game's last move comes.
            b.commit(&[act("done", &rows[4]), finish("done", &end, &rows)]).unwrap();
            assert_eq!(b.journal.games().collect::<Vec<_>>(), ["live"]);
        }
        // A journal whose last append is gone while SQLite kept the end (SQLite commits after
        // the journal's append now, so a crash cannot leave this; the row is the truth
        // either way): the finished game is whole from its row.
        let journal = journal_dir(&path);
        let segment = std::fs::read_dir(&journal).unwrap().next().unwrap().unwrap().path();
        let bytes = std::fs::read(&segment).unwrap();
        let mut last = Vec::new();
        crate::journal::encode_record(&mut last, "done", &rows[4]);
        let end_of_records = bytes.windows(last.len()).rposition(|w| w == last.as_slice()).unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&segment)
            .unwrap()
            .set_len(end_of_records as u64)
            .unwrap();
        let mut b = SqliteBackend::open(&path).unwrap();
        // The journal still holds the finished game's first records: ignored, forgotten.
        assert_eq!(b.journal.games().collect::<Vec<_>>(), ["live"]);
        let done = b.load_game("done").unwrap().unwrap();
        assert_eq!((done.actions, done.finished), (rows.clone(), Some(end)));
        assert_eq!(b.load_startup().unwrap().live[0].actions, rows[..4].to_vec());
        // It takes no action any more; the live game takes its next.
        assert!(b.commit(&[act("done", &action(5, ActionKind::Play))]).is_err());
        b.commit(&[act("live", &rows[4])]).unwrap();
    }

    #[tokio::test]
    async fn a_read_sees_the_writes_queued_before_it() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = Store::open_sqlite(&dir.path().join("gin.db")).unwrap();
        let g = new_game("g", 4);
        let rows: Vec<ActionRow> = (0..50).map(|i| action(i, ActionKind::Play)).collect();
        let end = Finished { result_json: "{}".to_owned(), finished_ms: 5 };
        // Nothing awaited before the read: FIFO makes it see every write.
        let mut pending = vec![store.write(vec![create(&g), take("g", &seat(0, "a", false))])];
        pending.extend(rows.iter().map(|r| store.write(vec![act("g", r)])));
        pending.push(store.write(vec![finish("g", &end, &rows)]));
        let read = store.load_game("g").await.unwrap().unwrap();
        assert_eq!(read.actions, rows);
        assert_eq!(read.finished, Some(end));
        for p in pending {
            p.await.unwrap();
        }
        store.close().await;
    }

    #[tokio::test]
    async fn a_version_1_database_is_migrated_its_live_actions_move_to_the_journal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gin.db");
        let rows = |n: u32| (0..n).map(|i| action(i, ActionKind::Play)).collect::<Vec<_>>();
        {
            // The version 1 schema: no actions_json column; the actions in their table.
            let c = Connection::open(&path).unwrap();
            let v1 = SCHEMA
                .replace(",\n    actions_json TEXT", "")
                .replace(",\n    fixed_deals  INTEGER NOT NULL DEFAULT 0", "");
            assert!(!v1.contains("fixed_deals") && !v1.contains("actions_json"));
            c.execute_batch(&v1).unwrap();
            c.pragma_update(None, "user_version", 1).unwrap();
            for (id, seed, n) in [("old", 9, 3u32), ("live", 10, 2)] {
                let g = new_game(id, seed);
                c.execute(
                    "INSERT INTO games (id, rules_json, seed, secret, clock_millis, clock_policy, house_bot, created_ms) \
                     VALUES (?1, ?2, ?3, ?4, 0, 0, '', 1)",
                    params![g.id, g.rules_json, seed as i64, g.secret],
                )
                .unwrap();
                for a in rows(n) {
                    c.execute(
                        "INSERT INTO actions (game_id, idx, seat, kind, action, time_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                        params![id, a.index, a.seat, "play", a.action, a.time_ms],
                    )
                    .unwrap();
                }
            }
            c.execute(
                "UPDATE games SET result_json = '{}', record_json = '[]', finished_ms = 7 WHERE id = 'old'",
                [],
            )
            .unwrap();
        }
        let (store, loaded) = Store::open_sqlite(&path).unwrap();
        assert_eq!(loaded.live.len(), 1);
        assert_eq!(loaded.live[0].actions, rows(2));
        // The next index follows the migrated ones; a repeat is refused.
        assert!(store.write(vec![act("live", &action(1, ActionKind::Play))]).await.is_err());
        store.write(vec![act("live", &action(2, ActionKind::Play))]).await.unwrap();
        let old = store.load_game("old").await.unwrap().unwrap();
        assert_eq!(old.actions, rows(3));
        assert_eq!(old.finished.map(|f| f.finished_ms), Some(7));
        store.close().await;
        let c = Connection::open(&path).unwrap();
        let version: i64 = c.pragma_query_value(None, "user_version", |r| r.get(0)).unwrap();
        assert_eq!(version, SCHEMA_VERSION);
        let left: i64 =
            c.query_row("SELECT count(*) FROM actions WHERE game_id = 'live'", [], |r| r.get(0)).unwrap();
        assert_eq!(left, 0, "the live game's rows moved to the journal");
        drop(c);
        // Reopened: the live game's actions come from the journal alone, the old one's from its table.
        let (store, loaded) = Store::open_sqlite(&path).unwrap();
        assert_eq!(loaded.live[0].actions, rows(3));
        assert_eq!(store.load_game("old").await.unwrap().unwrap().actions, rows(3));
        store.close().await;
    }

    #[tokio::test]
    async fn the_checkpointer_moves_the_wal_into_the_database_and_keeps_it_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gin.db");
        let wal = dir.path().join("gin.db-wal");
        let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
        let (store, _) = Store::open_sqlite(&path).unwrap();
        let empty = size(&path);
        let mut wal_sizes = Vec::new();
        for round in 0..6u64 {
            // One transaction per write: many WAL frames.
            for i in 0..300 {
                store
                    .write(vec![create(&new_game(&format!("g{round}-{i}"), round * 1000 + i))])
                    .await
                    .unwrap();
            }
            tokio::time::sleep(CHECKPOINT_EVERY * 4).await;
            wal_sizes.push(size(&wal));
        }
        // The writer never checkpoints (autocheckpoint off): only the checkpointer moved the
        // rows into the database file while the store was open...
        assert!(size(&path) > empty + 32 * 1024, "database file {} -> {} bytes", empty, size(&path));
        // ...and the WAL restarted from its beginning instead of growing round after round.
        assert!(wal_sizes[5] <= wal_sizes[0] * 2, "WAL sizes per round: {wal_sizes:?}");
        store.close().await;
        assert_eq!(load(&path).len(), 1800);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_writers_are_fifo_and_group_committed() {
        const GAMES: usize = 50;
        const ACTIONS: u32 = 200;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gin.db");
        let (store, _) = Store::open_sqlite(&path).unwrap();

        let mut tasks = Vec::new();
        for g in 0..GAMES {
            let store = store.clone();
            tasks.push(tokio::spawn(async move {
                let id = format!("game-{g}");
                if g % 2 == 0 {
                    // Enqueue everything before awaiting anything: only FIFO makes this work (seats
                    // and actions need the game; join order is assigned at commit).
                    let mut pending = vec![
                        store.write(vec![create(&new_game(&id, g as u64))]),
                        store.write(vec![take(&id, &seat(1, "second", false))]),
                        store.write(vec![take(&id, &seat(0, "first", true))]),
                    ];
                    for i in 0..ACTIONS {
                        pending.push(store.write(vec![act(&id, &action(i, ActionKind::Play))]));
                    }
                    for p in pending {
                        p.await.unwrap();
                    }
                } else {
                    // One at a time, as a live game does.
                    store.write(vec![create(&new_game(&id, g as u64))]).await.unwrap();
                    store.write(vec![take(&id, &seat(1, "second", false))]).await.unwrap();
                    store.write(vec![take(&id, &seat(0, "first", true))]).await.unwrap();
                    for i in 0..ACTIONS {
                        store.write(vec![act(&id, &action(i, ActionKind::Play))]).await.unwrap();
                    }
                }
            }));
        }
        for task in tasks {
            task.await.unwrap();
        }
        let (transactions, writes) = store.stats();
        assert_eq!(writes, (GAMES * (3 + ACTIONS as usize)) as u64);
        assert!(transactions < writes, "no group commit: {transactions} transactions for {writes} writes");
        store.close().await;

        let loaded = load(&path);
        assert_eq!(loaded.len(), GAMES);
        for game in &loaded {
            let seed = game.game.id.strip_prefix("game-").unwrap().parse::<u64>().unwrap();
            assert_eq!(game.game, new_game(&game.game.id, seed));
            assert_eq!(game.seats, vec![seat(1, "second", false), seat(0, "first", true)]);
            let expected: Vec<ActionRow> = (0..ACTIONS).map(|i| action(i, ActionKind::Play)).collect();
            assert_eq!(game.actions, expected);
        }
        store.close().await;
    }

    /// A SQLite backend whose first commit waits for a signal (so requests can pile up behind it)
    /// and which records the size of every batch it is asked to commit.
    struct Gated {
        inner: SqliteBackend,
        entered: Option<mpsc::Sender<()>>,
        gate: Option<mpsc::Receiver<()>>,
        batches: Arc<Mutex<Vec<usize>>>,
    }

    impl Backend for Gated {
        fn commit(&mut self, batch: &[Write]) -> Result<(), StoreError> {
            if let (Some(entered), Some(gate)) = (self.entered.take(), self.gate.take()) {
                entered.send(()).unwrap();
                gate.recv().unwrap();
            }
            self.batches.lock().unwrap().push(batch.len());
            self.inner.commit(batch)
        }

        fn load_all(&mut self) -> Result<Vec<StoredGame>, StoreError> {
            self.inner.load_all()
        }

        fn load_startup(&mut self) -> Result<Startup, StoreError> {
            self.inner.load_startup()
        }

        fn load_game(&mut self, id: &str) -> Result<Option<StoredGame>, StoreError> {
            self.inner.load_game(id)
        }
    }

    #[tokio::test]
    async fn duplicate_index_fails_only_its_request() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gin.db");
        let (entered_tx, entered) = mpsc::channel();
        let (open_gate, gate) = mpsc::channel();
        let batches = Arc::new(Mutex::new(Vec::new()));
        let backend = Gated {
            inner: SqliteBackend::open(&path).unwrap(),
            entered: Some(entered_tx),
            gate: Some(gate),
            batches: Arc::clone(&batches),
        };
        let (store, _) = Store::start(backend).unwrap();
        let (x, y) = (new_game("x", 1), new_game("y", 2));

        // The first batch holds the writer until the others are queued behind it.
        let first = store.write(vec![create(&x), create(&y), act("x", &action(0, ActionKind::Play))]);
        entered.recv().unwrap();
        let good_x = store.write(vec![act("x", &action(1, ActionKind::Play))]);
        // A new index then a duplicate one: the whole request must fail, the new index too.
        let bad_x = store
            .write(vec![act("x", &action(2, ActionKind::Play)), act("x", &action(0, ActionKind::Resign))]);
        let good_y =
            store.write(vec![act("y", &action(0, ActionKind::Play)), act("y", &action(1, ActionKind::Play))]);
        open_gate.send(()).unwrap();

        first.await.unwrap();
        good_x.await.unwrap();
        let err = bad_x.await.unwrap_err();
        assert!(err.0.contains("action 0 of game x"), "{err}");
        good_y.await.unwrap();
        // The three requests were tried as one batch, which failed, then one by one.
        assert_eq!(*batches.lock().unwrap(), vec![3, 5, 1, 2, 2]);
        assert_eq!(store.stats(), (3, 3 + 1 + 2));

        let loaded = load(&path);
        assert_eq!(loaded[0].actions, vec![action(0, ActionKind::Play), action(1, ActionKind::Play)]);
        assert_eq!(loaded[1].actions, vec![action(0, ActionKind::Play), action(1, ActionKind::Play)]);
        // The store goes on: index 2 of x was not taken.
        store.write(vec![act("x", &action(2, ActionKind::Timeout))]).await.unwrap();
        store.close().await;
        assert_eq!(load(&path)[0].actions.len(), 3);
    }

    /// SQLite's commits do not sync: what a power loss takes from it, the journal's row
    /// records give back at the next start.
    #[test]
    fn rows_sqlite_lost_come_back_from_the_journal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gin.db");
        let end = Finished { result_json: "{\"winner\":1}".to_owned(), finished_ms: 99 };
        let played: Vec<ActionRow> = (0..3).map(|i| action(i, ActionKind::Play)).collect();
        let mut before = {
            let mut b = SqliteBackend::open(&path).unwrap();
            b.commit(&[create(&new_game("g", 7)), take("g", &seat(0, "ann", false))]).unwrap();
            b.commit(&[take("g", &seat(1, "bot", true)), create(&new_game("h", 8))]).unwrap();
            let acts: Vec<Write> = played.iter().map(|a| act("g", a)).collect();
            b.commit(&acts).unwrap();
            b.commit(&[finish("g", &end, &played), take("h", &seat(1, "cy", false))]).unwrap();
            b.commit(&[act("h", &action(0, ActionKind::Resign))]).unwrap();
            b.load_all().unwrap()
        };
        assert_eq!(before.len(), 2);
        assert_eq!(before[0].finished.as_ref(), Some(&end));
        // As if none of SQLite's commits had reached the disk, then some of them.
        for lost in [
            "DELETE FROM seats; DELETE FROM games;",
            "UPDATE games SET finished_ms = NULL, \
            result_json = NULL, actions_json = NULL; DELETE FROM seats WHERE name = 'cy';",
        ] {
            let c = Connection::open(&path).unwrap();
            c.execute_batch(lost).unwrap();
            drop(c);
            let mut b = SqliteBackend::open(&path).unwrap();
            assert_eq!(b.load_all().unwrap(), before, "after {lost}");
            // And it goes on from there: the game left takes its next action.
            if lost.starts_with("DELETE") {
                b.commit(&[act("h", &action(1, ActionKind::Play))]).unwrap();
                b.commit(&[act("h", &action(1, ActionKind::Play))]).unwrap_err();
                before = b.load_all().unwrap();
                assert_eq!(before[1].actions.len(), 2);
            }
        }
    }

    /// A database and journal from before row records existed (the journal's segment in the
    /// first format, actions only): opened, written to (rows and actions, appended to the old
    /// segment), reopened, and nothing is lost.
    #[test]
    fn an_older_journal_takes_the_new_records_and_reopens() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gin.db");
        let played: Vec<ActionRow> = (0..3).map(|i| action(i, ActionKind::Play)).collect();
        {
            let mut b = SqliteBackend::open(&path).unwrap();
            b.commit(&[create(&new_game("g", 7)), take("g", &seat(0, "ann", false))]).unwrap();
            let acts: Vec<Write> = played.iter().map(|a| act("g", a)).collect();
            b.commit(&acts).unwrap();
        }
        // What the server before wrote: SQLite synced, one journal segment of the first
        // format holding the actions only.
        let journal = journal_dir(&path);
        for entry in std::fs::read_dir(&journal).unwrap() {
            let p = entry.unwrap().path();
            if p.extension().is_some_and(|e| e == "log") {
                std::fs::remove_file(p).unwrap();
            }
        }
        let mut old = b"GINJNL01".to_vec();
        for a in &played {
            crate::journal::encode_record(&mut old, "g", a);
        }
        std::fs::write(journal.join("00000001.log"), &old).unwrap();

        let end = Finished { result_json: "{}".to_owned(), finished_ms: 9 };
        let before = {
            let mut b = SqliteBackend::open(&path).unwrap();
            assert_eq!(b.load_game("g").unwrap().unwrap().actions, played);
            b.commit(&[take("g", &seat(1, "bob", false)), create(&new_game("h", 8))]).unwrap();
            let last = action(3, ActionKind::Resign);
            let all: Vec<ActionRow> = played.iter().cloned().chain([last.clone()]).collect();
            b.commit(&[act("g", &last), finish("g", &end, &all)]).unwrap();
            b.load_all().unwrap()
        };
        assert_eq!(before[0].seats.len(), 2);
        assert_eq!(before[0].finished.as_ref(), Some(&end));
        // The old segment took the new records (no rotation yet).
        assert_eq!(&std::fs::read(journal.join("00000001.log")).unwrap()[..8], b"GINJNL01");
        let mut b = SqliteBackend::open(&path).unwrap();
        assert_eq!(b.load_all().unwrap(), before);
    }

    /// Rotations leave the row records behind (SQLite's files are synced first): the journal
    /// stays small, and everything is still there after a reopen.
    #[test]
    fn rotations_leave_row_records_behind_and_lose_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gin.db");
        let end = Finished { result_json: "{}".to_owned(), finished_ms: 5 };
        let before = {
            let mut b = SqliteBackend::open_with(&path, 2048).unwrap();
            for i in 0..40u32 {
                let id = format!("game-{i}");
                b.commit(&[create(&new_game(&id, u64::from(i))), take(&id, &seat(0, "a", false))]).unwrap();
                b.commit(&[take(&id, &seat(1, "b", true))]).unwrap();
                let played: Vec<ActionRow> = (0..4).map(|n| action(n, ActionKind::Play)).collect();
                let mut last: Vec<Write> = played.iter().map(|a| act(&id, a)).collect();
                if i % 2 == 0 {
                    last.push(finish(&id, &end, &played));
                }
                b.commit(&last).unwrap();
            }
            b.load_all().unwrap()
        };
        assert_eq!(before.len(), 40);
        let segment_rows = |dir: &Path| {
            let (mut j, _) = Journal::open(dir, 1 << 20).unwrap();
            j.take_rows().len()
        };
        // 40 games wrote 120 rows and 20 ends: most were left behind at rotations.
        let left = segment_rows(&journal_dir(&path));
        assert!(left < 40, "{left} row records still in the journal");
        let mut b = SqliteBackend::open_with(&path, 2048).unwrap();
        assert_eq!(b.load_all().unwrap(), before);
    }

    #[tokio::test]
    async fn failed_writes_leave_the_state_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gin.db");
        let (store, _) = Store::open_sqlite(&path).unwrap();
        let g = new_game("g", 7);
        let end = Finished { result_json: "{}".to_owned(), finished_ms: 99 };
        store
            .write(vec![
                create(&g),
                take("g", &seat(0, "a", false)),
                act("g", &action(0, ActionKind::Play)),
                act("g", &action(1, ActionKind::Play)),
            ])
            .await
            .unwrap();
        store.write(vec![create(&new_game("done", 8)), finish("done", &end, &[])]).await.unwrap();
        let before = load(&path);
        let stats = store.stats();

        let failing: Vec<Vec<Write>> = vec![
            // Each request has good writes before the bad one: none of them may stay.
            vec![create(&new_game("new", 9)), create(&new_game("g", 10))],
            vec![take("g", &seat(1, "b", false)), take("g", &seat(0, "c", false))],
            vec![act("g", &action(2, ActionKind::Play)), act("g", &action(1, ActionKind::Play))],
            vec![act("g", &action(2, ActionKind::Play)), act("nope", &action(0, ActionKind::Play))],
            vec![act("g", &action(2, ActionKind::Play)), take("nope", &seat(0, "d", false))],
            vec![act("g", &action(2, ActionKind::Play)), finish("nope", &end, &[])],
            vec![act("g", &action(2, ActionKind::Play)), act("done", &action(0, ActionKind::Play))],
            vec![finish("g", &end, &[]), act("g", &action(2, ActionKind::Play))],
            // Refused by the journal (a text too long for it): the rows before it stay out too.
            vec![
                create(&new_game("new2", 11)),
                act("g", &ActionRow { action: "x".repeat(70_000), ..action(2, ActionKind::Play) }),
            ],
            vec![finish("g", &end, &[]), finish("done", &end, &[])],
            vec![finish("g", &end, &[]), finish("g", &end, &[])],
        ];
        for writes in failing {
            let what = format!("{writes:?}");
            assert!(store.write(writes).await.is_err(), "should fail: {what}");
            assert_eq!(load(&path), before, "changed by {what}");
        }
        assert_eq!(store.stats(), stats);
        store.close().await;
        assert_eq!(load(&path), before);
    }

    #[tokio::test]
    async fn acknowledged_writes_are_visible_to_another_connection() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gin.db");
        let (store, _) = Store::open_sqlite(&path).unwrap();
        let g = new_game("g", 3);
        store.write(vec![create(&g)]).await.unwrap();
        let seen = load(&path);
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0].game, g);
        for i in 0..5 {
            store.write(vec![act("g", &action(i, ActionKind::Play))]).await.unwrap();
            // A second connection while the store runs: committed, not buffered.
            let seen = load(&path);
            assert_eq!(seen[0].actions.len(), i as usize + 1);
            assert_eq!(seen[0].actions[i as usize], action(i, ActionKind::Play));
        }
        store.close().await;
    }

    #[tokio::test]
    async fn close_commits_what_is_queued_then_refuses() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gin.db");
        let (store, _) = Store::open_sqlite(&path).unwrap();
        let mut pending = vec![store.write(vec![create(&new_game("g", 1))])];
        for i in 0..100 {
            pending.push(store.write(vec![act("g", &action(i, ActionKind::Play))]));
        }
        let other = store.clone();
        store.close().await;
        for p in pending {
            p.await.unwrap();
        }
        assert_eq!(store.write(vec![]).await, Err(StoreError("store closed".to_owned())));
        assert_eq!(
            other.write(vec![act("g", &action(100, ActionKind::Play))]).await,
            Err(StoreError("store closed".to_owned()))
        );
        other.close().await;
        assert_eq!(load(&path)[0].actions.len(), 100);
    }

    #[tokio::test]
    async fn dropping_every_handle_still_commits_what_is_queued() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gin.db");
        let (store, _) = Store::open_sqlite(&path).unwrap();
        let pending = store.write(vec![create(&new_game("g", 1))]);
        drop(store);
        pending.await.unwrap();
        assert_eq!(load(&path).len(), 1);
    }

    #[test]
    fn in_memory_and_empty_batches() {
        let mut backend = SqliteBackend::open(Path::new(":memory:")).unwrap();
        backend.commit(&[]).unwrap();
        backend.commit(&[create(&new_game("m", 5))]).unwrap();
        assert!(backend.commit(&[create(&new_game("m", 6))]).is_err());
        let loaded = backend.load_all().unwrap();
        assert_eq!(loaded.len(), 1);
        assert_eq!(loaded[0].game, new_game("m", 5));
    }

    #[test]
    fn refuses_an_unknown_schema_version() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gin.db");
        drop(SqliteBackend::open(&path).unwrap());
        // Reopening the same version is fine.
        drop(SqliteBackend::open(&path).unwrap());
        Connection::open(&path).unwrap().pragma_update(None, "user_version", 5).unwrap();
        let err = SqliteBackend::open(&path).err().unwrap();
        assert!(err.0.contains("schema version 5"), "{err}");
    }

    /// Run by hand: `cargo test -p gin-server --release store_throughput -- --ignored --nocapture`.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[ignore = "a measurement, not a test"]
    async fn store_throughput() {
        const WRITERS: usize = 100;
        const WRITES: u32 = 300;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gin.db");
        let (store, _) = Store::open_sqlite(&path).unwrap();
        let games: Vec<Write> =
            (0..WRITERS).map(|g| create(&new_game(&format!("game-{g}"), g as u64))).collect();
        store.write(games).await.unwrap();
        let before = store.stats();
        let start = Instant::now();
        let mut tasks = Vec::new();
        for g in 0..WRITERS {
            let store = store.clone();
            tasks.push(tokio::spawn(async move {
                let id = format!("game-{g}");
                for i in 0..WRITES {
                    store.write(vec![act(&id, &action(i, ActionKind::Play))]).await.unwrap();
                }
            }));
        }
        for task in tasks {
            task.await.unwrap();
        }
        let elapsed = start.elapsed();
        let (transactions, writes) = store.stats();
        let (transactions, writes) = (transactions - before.0, writes - before.1);
        println!(
            "store_throughput: {writes} writes by {WRITERS} concurrent writers in {elapsed:.2?}: \
             {:.0} writes/s, {transactions} transactions ({:.1} writes each, {:.0} transactions/s)",
            writes as f64 / elapsed.as_secs_f64(),
            writes as f64 / transactions as f64,
            transactions as f64 / elapsed.as_secs_f64(),
        );
        store.close().await;
    }
}
