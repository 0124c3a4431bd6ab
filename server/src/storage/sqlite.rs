//! [`SqliteBackend`]: the games, seats and results in SQLite (WAL), the actions of unfinished
//! games and the row records of each group commit in the [`Journal`] beside it; the schema and
//! its migrations; loading what the server needs.
//!
//!
//! A batch is one journal append (its actions and its rows as row records, one `fdatasync`),
//! then SQLite's transaction, opened before the append so a refused row writes nothing,
//! committed after it without a sync (`synchronous=NORMAL`). Before an append that rotates the
//! journal, SQLite's WAL and database files are synced (`sync_sqlite`); at start the row
//! records found are applied to SQLite again, idempotently (`replay_rows`), and the journal is
//! then compacted without them; a graceful stop (`close`) syncs and compacts the same way, so
//! only a start after a crash has rows to apply. A checkpointer
//! thread with its own connection checkpoints, so the writer never does. A game's end moves
//! its whole action log into its row (encoded by the writer) and the journal forgets it.
//!
//! Schema version 4 (`games.fixed_deals`). Versions 1 and 2 migrate: their unfinished games'
//! action rows move into the journal; 3 gains the column. `games.first_dealer`, nullable, is
//! added at open without a new version, since old servers ignore it; so are
//! `seats.account_id` (nullable, with the index `seats_account`) and the accounts' tables
//! (`accounts::prepare`).

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use rusqlite::{Connection, TransactionBehavior, params};

use super::journal::Journal;
use super::records::RowRecord;
use super::{
    AccountChanges, AccountGame, ActionKind, ActionRow, Backend, Finished, NewGame, SeatRow, Startup,
    StoreError, StoredGame, Write, decode_actions, encode_actions,
};

/// The schema version this code writes and reads (`PRAGMA user_version`).
///
/// 3: the actions of unfinished games are in the journal (the `actions` table keeps only rows
/// written by versions 1 and 2 for games finished then).
/// 4: `games.fixed_deals` (a seed chosen by the creator).
pub(super) const SCHEMA_VERSION: i64 = 4;

pub(super) const SCHEMA: &str = "
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
    fixed_deals  INTEGER NOT NULL DEFAULT 0,
    first_dealer INTEGER,
    rated_pool   TEXT
);
CREATE TABLE IF NOT EXISTS seats (
    game_id    TEXT    NOT NULL REFERENCES games (id),
    seat       INTEGER NOT NULL,
    name       TEXT    NOT NULL,
    token_hash BLOB    NOT NULL CHECK (length(token_hash) = 32),
    bot        INTEGER NOT NULL,
    joined_ms  INTEGER NOT NULL,
    join_order INTEGER NOT NULL,
    account_id TEXT,
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
    (id, rules_json, seed, secret, clock_millis, clock_policy, house_bot, created_ms, fixed_deals, first_dealer, \
    rated_pool) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)";
const INSERT_SEAT: &str = "INSERT INTO seats \
    (game_id, seat, name, token_hash, bot, joined_ms, account_id, join_order) \
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, \
        (SELECT coalesce(max(join_order) + 1, 0) FROM seats WHERE game_id = ?1))";
/// A taken seat's new token (its hash).
const UPDATE_TOKEN: &str = "UPDATE seats SET token_hash = ?3 WHERE game_id = ?1 AND seat = ?2";
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
    /// The server's rating function ([`Backend::set_rater`]).
    rater: Option<super::RateFn>,
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
pub(super) const CHECKPOINT_EVERY: Duration = Duration::from_millis(100);

/// Starts the checkpointer of the database at `path`: its own connection, which copies
/// committed WAL frames into the database file every [`CHECKPOINT_EVERY`] (a PASSIVE
/// checkpoint: it never blocks the writer) and once more when the returned handle is dropped.
///
/// Left to SQLite, the commit that crosses 1,000 WAL pages does the checkpoint itself, with an
/// fsync of the database file, while every action of its group commit waits: that was the tail
/// of the action latency. The writer's connection has automatic checkpoints off; SQLite restarts
/// the WAL from its beginning at a write once a checkpoint has copied all of it.
fn start_checkpointer(path: &Path) -> Result<Checkpointer, StoreError> {
    let context =
        |e: rusqlite::Error| StoreError::from(e).context(format!("checkpointer for {}", path.display()));
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
        .map_err(|e| StoreError::Io(format!("starting the checkpointer thread: {e}")))?;
    Ok(Checkpointer { stop: Some(keep), thread: Some(thread) })
}

impl SqliteBackend {
    /// Its journal (for tests).
    #[cfg(test)]
    pub(super) fn journal(&self) -> &Journal {
        &self.journal
    }

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
        let context = |e: rusqlite::Error| StoreError::from(e).context(format!("opening {}", path.display()));
        let in_memory = path.as_os_str() == ":memory:";
        let created = !in_memory && !path.exists();
        let mut conn = Connection::open(path).map_err(context)?;
        conn.busy_timeout(Duration::from_secs(10)).map_err(context)?;
        let mode: String =
            conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0)).map_err(context)?;
        let usable = mode.eq_ignore_ascii_case("wal") || (in_memory && mode.eq_ignore_ascii_case("memory"));
        if !usable {
            return Err(StoreError::Io(format!("{}: cannot use WAL (journal mode {mode})", path.display())));
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
                return Err(StoreError::Corrupt(format!(
                    "{}: schema version {other}, this server knows {SCHEMA_VERSION}",
                    path.display()
                )));
            }
        }
        // A column added without a new schema version (nullable; older servers ignore it):
        // before the journal's row records are applied again below.
        if tx.prepare("SELECT first_dealer FROM games LIMIT 0").is_err() {
            tx.execute_batch("ALTER TABLE games ADD COLUMN first_dealer INTEGER").map_err(context)?;
        }
        // The tournaments' and accounts' tables (and `seats.account_id`): before the journal's
        // row records are applied again below.
        super::tournaments::prepare(&tx)?;
        super::accounts::prepare(&tx)?;
        super::ratings::prepare(&tx)?;
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
        let replay = std::time::Instant::now();
        if !rows.is_empty() {
            replay_rows(&mut conn, &journal, &rows).map_err(|e| e.context(path.display()))?;
        }
        // How many rows this start applied again: none after a graceful stop (see `close`).
        if !in_memory {
            tracing::info!(db = %path.display(), rows_replayed = rows.len(),
                took_ms = replay.elapsed().as_millis() as u64, "store: the journal's row records applied again");
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
            migrate_2_to_3(&mut conn, &mut journal).map_err(|e| e.context(path.display()))?;
        }
        // The rows applied again above are durable in SQLite now (synced): the journal starts
        // over without them, so that the next start does not apply them again (a start after a
        // long run would otherwise replay every row since the last rotation: 100,000 accounts'
        // registrations took seconds).
        if !rows.is_empty() {
            journal.compact().map_err(|e| StoreError::from(e).context(path.display()))?;
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
        Ok(SqliteBackend { conn, path, journal, unfinished, _checkpointer: checkpointer, rater: None })
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
    let kind = ActionKind::parse(kind)
        .ok_or_else(|| StoreError::Corrupt(format!("unknown action kind {kind:?}")))?;
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
        .map_err(|e| StoreError::Io(format!("syncing directory {}: {e}", dir.display())))
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
        g.fixed_deals,
        g.first_dealer,
        g.rated_pool
    ])
}

/// Applies one write inside the open transaction `conn`.
fn apply(conn: &Connection, write: &Write) -> Result<(), StoreError> {
    match write {
        Write::CreateGame(g) => insert_game(conn, INSERT_GAME, g)
            .map(drop)
            .map_err(|e| StoreError::from(e).context(format!("creating game {}", g.id))),
        Write::TakeSeat { game_id, seat: s } => conn
            .prepare_cached(INSERT_SEAT)?
            .execute(params![game_id, s.seat, s.name, s.token_hash, s.bot, s.joined_ms, s.account_id])
            .map(drop)
            .map_err(|e| StoreError::from(e).context(format!("taking seat {} of game {game_id}", s.seat))),
        Write::SeatToken { game_id, seat, token_hash } => {
            let changed =
                conn.prepare_cached(UPDATE_TOKEN)?.execute(params![game_id, seat, token_hash]).map_err(
                    |e| StoreError::from(e).context(format!("new token of seat {seat} of game {game_id}")),
                )?;
            if changed == 1 {
                Ok(())
            } else {
                Err(StoreError::Refused(format!("new token of seat {seat} of game {game_id}: no such seat")))
            }
        }
        // The journal's, see `SqliteBackend::commit`.
        Write::Action { .. } => Ok(()),
        Write::Tournament(w) => super::tournaments::apply(conn, w, false).map(drop),
        Write::Account(w) => super::accounts::apply(conn, w, false).map(drop),
        // Computed and applied by `SqliteBackend::commit`.
        Write::Rate(_) => Ok(()),
        Write::Finish { game_id, result_json, finished_ms, actions } => {
            let changed = conn
                .prepare_cached(FINISH_GAME)?
                .execute(params![game_id, result_json, finished_ms, encode_actions(actions)])
                .map_err(|e| StoreError::from(e).context(format!("finishing game {game_id}")))?;
            if changed == 1 {
                Ok(())
            } else {
                Err(StoreError::Refused(format!(
                    "finishing game {game_id}: no such game, or already finished"
                )))
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
    let i = *by_id
        .get(game_id)
        .ok_or_else(|| StoreError::Corrupt(format!("{table} row of unknown game {game_id}")))?;
    *last = Some(i);
    Ok(i)
}

impl SqliteBackend {
    /// The new ratings of the games `batch` rates, in order (a game rated already: none).
    fn rate<'b>(&self, batch: &'b [Write]) -> Result<Vec<(&'b str, super::Rated)>, StoreError> {
        let mut out: Vec<(&str, super::Rated)> = Vec::new();
        for write in batch {
            let Write::Rate(w) = write else { continue };
            let rate = self.rater.ok_or_else(|| {
                StoreError::Refused(format!("rating game {}: this store has no rating function", w.game_id))
            })?;
            if super::ratings::is_rated(&self.conn, &w.game_id)? || out.iter().any(|(id, _)| *id == w.game_id)
            {
                continue;
            }
            let computed = super::ratings::compute(w, rate, |account| {
                let earlier = out
                    .iter()
                    .rev()
                    .flat_map(|(_, r)| (r.pool == w.pool).then_some(r.seats.iter()).into_iter().flatten());
                match earlier.into_iter().find(|s| s.account_id == account) {
                    Some(s) => Ok(Some(s.after)),
                    None => super::ratings::rating_of(&self.conn, account, &w.pool),
                }
            });
            if let Some(r) = super::ratings::or_skip(w, computed)? {
                out.push((&w.game_id, r));
            }
        }
        Ok(out)
    }

    /// Makes every committed SQLite transaction durable: syncs the WAL, then the database
    /// file (a checkpoint may have moved frames into it).
    fn sync_sqlite(&self) -> Result<(), StoreError> {
        let Some(db) = &self.path else { return Ok(()) };
        let mut wal = db.as_os_str().to_owned();
        wal.push("-wal");
        for file in [std::path::PathBuf::from(wal), db.clone()] {
            match std::fs::File::open(&file) {
                Ok(f) => {
                    f.sync_all().map_err(|e| StoreError::Io(format!("syncing {}: {e}", file.display())))?
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(StoreError::Io(format!("opening {}: {e}", file.display()))),
            }
        }
        Ok(())
    }
}

/// Applies the row records `rows` (game id, [`RowRecord`] text) to SQLite again, in one
/// transaction: what SQLite already has is left as it is (a game or seat that exists, a game
/// already finished); a game's end takes its actions from `journal`.
fn replay_rows(
    conn: &mut Connection,
    journal: &Journal,
    rows: &[(String, String)],
) -> Result<(), StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let mut applied = 0usize;
    // The accounts' change counter, advanced only by a record that changes a row.
    let counter_before = super::accounts::counter(&tx)?;
    let mut counter = counter_before;
    for (game, text) in rows {
        let record = RowRecord::parse(text)
            .map_err(|e| StoreError::Corrupt(format!("journal: row record of game {game}: {e}")))?;
        applied += match record {
            RowRecord::Create(c) => insert_game(
                &tx,
                &INSERT_GAME.replacen("INSERT INTO", "INSERT OR IGNORE INTO", 1),
                &c.game(game),
            )?,
            RowRecord::Seat(t) => {
                let s = t.seat();
                tx.execute(
                    &INSERT_SEAT.replacen("INSERT INTO", "INSERT OR IGNORE INTO", 1),
                    params![game, s.seat, s.name, s.token_hash, s.bot, s.joined_ms, s.account_id],
                )?
            }
            RowRecord::Token(t) => tx.execute(UPDATE_TOKEN, params![game, t.seat, t.token_hash])?,
            RowRecord::Tournament(w) => super::tournaments::apply(&tx, &w, true)?,
            RowRecord::Account(w) => super::accounts::replay(&tx, &w, &mut counter)?,
            RowRecord::Rated(r) => super::ratings::apply(&tx, game, &r)?,
            RowRecord::Finish(f) => tx.execute(
                "UPDATE games SET result_json = ?2, finished_ms = ?3, actions_json = ?4 \
                 WHERE id = ?1 AND finished_ms IS NULL",
                params![game, f.result_json, f.finished_ms, encode_actions(&journal.actions(game))],
            )?,
        };
    }
    if counter != counter_before {
        super::accounts::set_counter(&tx, counter)?;
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
                        return Err(StoreError::Refused(format!(
                            "logging action {} of game {game_id}: no such game, or it is over",
                            action.index
                        )));
                    }
                    actions.push((game_id.as_str(), action));
                }
                Write::TakeSeat { .. } | Write::SeatToken { .. } | Write::Tournament(_) | Write::Rate(_) => {
                    others = true
                }
                Write::Account(w) => {
                    w.check()?;
                    others = true;
                }
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
        // A rated game's new ratings, computed here from SQLite's rows (every earlier batch is
        // applied there) and this batch's earlier ratings, then kept in its row record.
        let rated = self.rate(batch)?;
        let mut records: Vec<(&str, String)> = Vec::new();
        for write in batch {
            match write {
                Write::Rate(w) => {
                    if let Some(r) = rated.iter().find(|(id, _)| *id == w.game_id) {
                        records.push((&w.game_id, RowRecord::Rated(r.1.clone()).to_json()));
                    }
                }
                // Touches of many tokens in several records, each fitting the record format.
                Write::Account(w) => records.extend(
                    w.in_record_parts()
                        .into_iter()
                        .map(|part| (w.record_id(), RowRecord::Account(part).to_json())),
                ),
                other => records.extend(RowRecord::of(other).map(|(id, r)| (id, r.to_json()))),
            }
        }
        let refs: Vec<(&str, &str)> = records.iter().map(|(g, t)| (*g, t.as_str())).collect();
        let tx = if others {
            let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            for write in batch {
                apply(&tx, write)?;
            }
            for (game_id, r) in &rated {
                super::ratings::apply(&tx, game_id, r)?;
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

    /// A graceful stop: if the journal holds row records, SQLite's files are synced (the rows
    /// are durable there) and the journal compacted ([`Journal::compact`]), so the next start
    /// has no row to apply again; only a start after a crash pays for that.
    fn close(&mut self) -> Result<(), StoreError> {
        let rows = self.journal.row_records();
        if rows == 0 {
            return Ok(());
        }
        let t = std::time::Instant::now();
        self.sync_sqlite()?;
        self.journal.compact()?;
        tracing::info!(
            rows,
            took_ms = t.elapsed().as_millis() as u64,
            "store: the journal compacted at the stop (its row records are in SQLite, synced)"
        );
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
        let tournaments = super::tournaments::load(&tx)?;
        let accounts = super::accounts::changes(&tx, i64::MIN)?;
        let mut ratings = super::ratings::changes(&tx, i64::MIN)?;
        ratings.cursor = ratings.cursor.max(0);
        tx.commit()?;
        Ok(Startup {
            live,
            tournaments,
            accounts: accounts.accounts,
            tokens: accounts.tokens,
            account_cursor: accounts.cursor.max(0),
            ratings,
        })
    }

    fn load_game(&mut self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        let tx = self.conn.transaction()?;
        let game = load_games(&tx, &self.journal, Which::One(id))?.pop();
        tx.commit()?;
        Ok(game)
    }

    fn tournament_status_of(&mut self, id: &str) -> Result<Option<i32>, StoreError> {
        use rusqlite::OptionalExtension;
        let found = self
            .conn
            .query_row(
                "SELECT t.status FROM tournament_games AS g JOIN tournaments AS t ON t.id = g.tournament_id \
                 WHERE g.game_id = ?1 LIMIT 1",
                [id],
                |row| row.get(0),
            )
            .optional()?;
        Ok(found)
    }

    fn account_games(
        &mut self,
        account_id: &str,
        before: Option<(i64, String)>,
        limit: usize,
    ) -> Result<Vec<AccountGame>, StoreError> {
        let tx = self.conn.transaction()?;
        let ids = super::accounts::account_game_ids(&tx, account_id, before.as_ref(), limit)?;
        let mut out = Vec::with_capacity(ids.len());
        for id in &ids {
            let g = load_games(&tx, &self.journal, Which::Facts(id))?
                .pop()
                .ok_or_else(|| StoreError::Corrupt(format!("seat of unknown game {id}")))?;
            out.push(AccountGame { game: g.game, seats: g.seats, finished: g.finished });
        }
        tx.commit()?;
        Ok(out)
    }

    fn account_changes(&mut self, after: i64) -> Result<AccountChanges, StoreError> {
        let tx = self.conn.transaction()?;
        let changes = super::accounts::changes(&tx, after)?;
        tx.commit()?;
        Ok(changes)
    }

    fn set_rater(&mut self, rate: super::RateFn) {
        self.rater = Some(rate);
    }

    fn rating_changes(&mut self, after: i64) -> Result<super::RatingChanges, StoreError> {
        super::ratings::changes(&self.conn, after)
    }

    fn rating_history(
        &mut self,
        account_id: &str,
        pool: &str,
        before: Option<(i64, String)>,
        limit: usize,
    ) -> Result<Vec<super::HistoryLine>, StoreError> {
        let tx = self.conn.transaction()?;
        let lines = super::ratings::history(&tx, account_id, pool, before, limit)?;
        tx.commit()?;
        Ok(lines)
    }
}

/// Which games [`load_games`] reads.
#[derive(Clone, Copy)]
enum Which<'a> {
    All,
    Unfinished,
    One(&'a str),
    /// One game without its actions.
    Facts(&'a str),
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
            Which::One(_) | Which::Facts(_) => ("WHERE id = ?1", "WHERE game_id = ?1"),
        }
    }
}

/// A seat from a row whose columns from `at` are seat, name, token_hash, bot, joined_ms,
/// account_id.
fn seat_row(row: &rusqlite::Row<'_>, at: usize) -> Result<SeatRow, StoreError> {
    Ok(SeatRow {
        seat: row.get(at)?,
        name: row.get(at + 1)?,
        token_hash: row.get(at + 2)?,
        bot: row.get(at + 3)?,
        joined_ms: row.get(at + 4)?,
        account_id: row.get(at + 5)?,
    })
}

/// Reads `which` games with their seats, actions and ends, inside the caller's transaction;
/// an unfinished game's actions come from `journal`, a finished one's from its row
/// (`actions_json`; games finished before schema version 2 have theirs in the actions table).
fn load_games(tx: &Connection, journal: &Journal, which: Which<'_>) -> Result<Vec<StoredGame>, StoreError> {
    let (games_where, rows_where) = which.conditions();
    let id_param: Vec<&dyn rusqlite::ToSql> = match &which {
        Which::One(id) | Which::Facts(id) => vec![id as &dyn rusqlite::ToSql],
        _ => Vec::new(),
    };
    let mut games = Vec::new();
    let mut stored_actions: Vec<Option<String>> = Vec::new();
    {
        let mut stmt = tx.prepare(&format!(
            "SELECT id, rules_json, seed, secret, clock_millis, clock_policy, house_bot, created_ms, \
             result_json, finished_ms, {actions}, fixed_deals, first_dealer, rated_pool FROM games {games_where} \
             ORDER BY rowid",
            actions = if matches!(which, Which::Facts(_)) { "NULL" } else { "actions_json" }
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
                    first_dealer: row.get(12)?,
                    rated_pool: row.get(13)?,
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
            "SELECT game_id, seat, name, token_hash, bot, joined_ms, account_id FROM seats {rows_where} \
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
    if matches!(which, Which::Facts(_)) {
        return Ok(games);
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
                let a = action_row(row, 1).map_err(|e| e.context(format!("game {game_id}")))?;
                games[i].actions.push(a);
            }
        }
    }
    Ok(games)
}
