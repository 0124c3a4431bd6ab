//! Durable storage: every game's fixed facts, seats, action log and end; every tournament's
//! entrants and booked games; every account (people and bots), its tokens, and the account
//! that took each seat.
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
//!
//!
//! [`Store::open`] takes `--db`: a `postgres://` or `postgresql://` URL is PostgreSQL
//! ([`PostgresBackend`]), anything else a SQLite file; `describe` gives `--db` for the logs,
//! without a password. Every backend refuses an id or action text longer than
//! `MAX_TEXT_BYTES`. [`StoreError`]: `Refused` (a write breaking a rule of the store, nothing
//! of its batch written), `Io`, `Corrupt`, `Closed`, `LeaseLost` (a cluster member's lease
//! ran out: nothing committed). The rows are `NewGame`, `SeatRow` (with the account that took
//! the seat, if any), `ActionRow`, `Write`, `StoredGame`, `Startup` (with every account and
//! token, and the cursor of their changes); the accounts' are `AccountRow`, `TokenRow`,
//! `AccountWrite`, `AccountGame`, `AccountChanges`. `Backend` is implemented for
//! `Box<dyn Backend>` too.
//!
//! A game's actions are stored in one place at a time, whole: while it is unfinished, in the
//! journal (SQLite) or `actions` (PostgreSQL), the index checks making it impossible to store
//! one twice; from its end, in its row. On SQLite that row is durable by the next rotation,
//! which syncs SQLite first, and until then restored from the journal's row record and actions
//! at start if SQLite lost it; the journal's records of games SQLite says are finished are
//! ignored at start. On PostgreSQL the action rows are deleted in the transaction that writes
//! the log into the game's row.
//!
//! `pg_cluster`: [`LocalPostgres`](pg_cluster::LocalPostgres), a private PostgreSQL for tests and `gin-load all
//! --postgres`. The store's tests (`tests.rs`) that hold for every backend run twice, on a
//! SQLite file and on a private PostgreSQL (`on_every_backend!`); the journal's, SQLite's and
//! PostgreSQL's own tests (schema races, a lost connection, tournament rows) run on their
//! backend. A new backend implements [`Backend`] (its `commit` durable and all or nothing per
//! batch), is opened in [`Store::open`] and added to `Db` in `tests.rs`.

//!
//! The parts: `writer` (the [`Store`] handle and its writer thread), `sqlite` (the
//! [`SqliteBackend`]: schema, migrations, loading), [`journal`] (the action journal: segments
//! of CRC-checked records, its own [`JournalError`]), `records` (the row records a group commit
//! writes to the journal, serde types), `tournaments` (the tournaments' tables: written by the
//! same writer, in the same group commits), `accounts` (the accounts' and tokens' tables, the
//! same way: `Write::Account`; an account's games, `Store::account_games`; the rows changed
//! after a cursor, `Store::account_changes`, how the servers of a cluster learn of each
//! other's new tokens and revocations). Nothing here knows gRPC or the game's rules:
//! writes are rows and action texts. No row is ever logged (they hold password and token
//! hashes).

mod accounts;
pub mod journal;
pub mod pg_cluster;
mod postgres;
mod ratings;
mod records;
mod sqlite;
#[cfg(test)]
mod tests;
mod tournaments;
mod writer;

use rusqlite::types::FromSqlError;

pub use accounts::{AccountChanges, AccountGame, AccountRow, AccountWrite, KIND_BOT, KIND_PERSON, TokenRow};
pub use journal::{Journal, JournalError};
pub use postgres::{Claimed, Owner, PostgresBackend, is_postgres_url, redacted};
pub use ratings::{HistoryLine, RateFn, RateGame, Rated, RatedSeat, RatingChanges, RatingRow, RatingValue};
pub use sqlite::{SqliteBackend, journal_dir};
pub use tournaments::{BookedRow, EntrantRow, NewTournament, ResultRow, StoredTournament, TournamentWrite};
pub use writer::{Ack, CommitObserver, Store};

/// Every backend refuses a game id or an action text longer than this many bytes (the
/// journal's record format holds no longer ones).
pub const MAX_TEXT_BYTES: usize = u16::MAX as usize;

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
    /// Two-player gin: the first dealer its creator chose (`None`: drawn from the seed).
    pub first_dealer: Option<u8>,
    /// A rated game's pool (`None`: casual).
    pub rated_pool: Option<String>,
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
    /// The account that took it (`None`: a guest, or taken before accounts existed).
    pub account_id: Option<String>,
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
    /// Gives a taken seat a new token (its hash); fails if the seat is not taken.
    SeatToken {
        /// The game.
        game_id: String,
        /// The seat.
        seat: u8,
        /// SHA-256 of the new token.
        token_hash: [u8; 32],
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
    /// A write to a tournament's rows.
    Tournament(TournamentWrite),
    /// A write to the accounts' rows (accounts, tokens).
    Account(AccountWrite),
    /// Rates a game that ends in the same batch (after its [`Write::Finish`]): refused if a seat's
    /// account is there twice, if the rating function refuses, or if the store has none
    /// ([`Store::set_rater`]); nothing happens if the game was rated already.
    Rate(RateGame),
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
        serde_json::from_str(json).map_err(|e| StoreError::Corrupt(format!("stored action log: {e}")))?;
    rows.into_iter()
        .map(|(index, seat, kind, action, time_ms)| {
            let kind = ActionKind::parse(&kind)
                .ok_or_else(|| StoreError::Corrupt(format!("stored action log: unknown kind {kind:?}")))?;
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
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Startup {
    /// Every unfinished game, in creation order.
    pub live: Vec<StoredGame>,
    /// Every tournament (finished ones too: they are listed), in creation order.
    pub tournaments: Vec<StoredTournament>,
    /// Every account (deleted ones too), in change order.
    pub accounts: Vec<AccountRow>,
    /// Every token (revoked ones too), in change order.
    pub tokens: Vec<TokenRow>,
    /// The largest change of the account and token rows loaded: where
    /// [`Backend::account_changes`] goes on from.
    pub account_cursor: i64,
    /// Every rating, and the cursor [`Backend::rating_changes`] goes on from.
    pub ratings: RatingChanges,
}

/// Why the store did not make writes durable (or could not read).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// The writes break a rule of the store: a game or seat that exists already, a game that
    /// does not exist or is over, an action index out of order, a text too long. Nothing of
    /// the batch was written; other writes are not affected.
    #[error("{0}")]
    Refused(String),
    /// The disk or the database failed. Part of a batch may be durable (as after a crash);
    /// after a journal failure every later write is refused until a restart.
    #[error("{0}")]
    Io(String),
    /// What is stored is not what this server writes (or can read).
    #[error("{0}")]
    Corrupt(String),
    /// The store was closed: the writes were not (and will not be) committed.
    #[error("store closed")]
    Closed,
    /// In a cluster: this server's lease ran out (its games may be another server's now), so
    /// the writes were refused, all of them: nothing was committed. A retry cannot succeed
    /// here; made at another server (through the proxy) it can.
    #[error("this server's lease ran out: its games may be another server's now")]
    LeaseLost,
}

impl StoreError {
    /// The same error, its message prefixed with what was being done.
    pub fn context(self, doing: impl std::fmt::Display) -> StoreError {
        match self {
            StoreError::Refused(m) => StoreError::Refused(format!("{doing}: {m}")),
            StoreError::Io(m) => StoreError::Io(format!("{doing}: {m}")),
            StoreError::Corrupt(m) => StoreError::Corrupt(format!("{doing}: {m}")),
            StoreError::Closed => StoreError::Closed,
            StoreError::LeaseLost => StoreError::LeaseLost,
        }
    }
}

impl From<rusqlite::Error> for StoreError {
    /// A constraint (unique, foreign key, check) refuses the write; anything else is I/O.
    fn from(e: rusqlite::Error) -> StoreError {
        match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::ConstraintViolation) => StoreError::Refused(e.to_string()),
            Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase) => {
                StoreError::Corrupt(e.to_string())
            }
            _ => StoreError::Io(e.to_string()),
        }
    }
}

impl From<FromSqlError> for StoreError {
    fn from(e: FromSqlError) -> StoreError {
        StoreError::Corrupt(e.to_string())
    }
}

impl From<JournalError> for StoreError {
    fn from(e: JournalError) -> StoreError {
        match e {
            JournalError::Refused(m) => StoreError::Refused(m),
            JournalError::Io(m) => StoreError::Io(m),
            JournalError::Corrupt(m) => StoreError::Corrupt(m),
        }
    }
}

/// What `--db` names, for logs: a file's path, or a connection string without its password.
pub fn describe(db: &std::path::Path) -> String {
    let text = db.to_string_lossy();
    if is_postgres_url(&text) { redacted(&text) } else { db.display().to_string() }
}

/// A storage backend: synchronous, used from the writer thread only (it may be opened there
/// too: [`Store::start_with`]).
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

    /// In a cluster (several servers on one database): renews this server's lease; `false`
    /// once it is lost. Alone: always `true`.
    fn renew(&mut self) -> Result<bool, StoreError> {
        Ok(true)
    }

    /// In a cluster: claims the unfinished games and the tournaments of servers whose
    /// leases ran out. Alone: none.
    fn claim_orphans(&mut self) -> Result<Claimed, StoreError> {
        Ok(Claimed::default())
    }

    /// At a graceful stop, once the last write is durable: leaves the files as a next start
    /// reads them fastest (SQLite: the journal's row records folded away, see
    /// `SqliteBackend`'s docs). Not called after a crash, which loses nothing by it.
    fn close(&mut self) -> Result<(), StoreError> {
        Ok(())
    }

    /// In a cluster, at a graceful stop once the last write is durable: gives this server's
    /// lease up, as a lapsed lease looks to the others (its row gone), so another server
    /// claims its games at its next look instead of after the lease's time. Every later write
    /// of this server finds no lease. Alone: nothing to do.
    fn leave(&mut self) -> Result<(), StoreError> {
        Ok(())
    }

    /// In a cluster: who serves the game `id` ([`Owner::Lapsed`] if its server's lease ran
    /// out). Alone: every game is this server's.
    fn owner_of(&mut self, _id: &str) -> Result<Owner, StoreError> {
        Ok(Owner::Me)
    }

    /// In a cluster: who serves the tournament `id`. Alone: every one is this server's.
    fn tournament_owner(&mut self, _id: &str) -> Result<Owner, StoreError> {
        Ok(Owner::Me)
    }

    /// One tournament with its entrants and games, by id (`None` if there is none): for a
    /// tournament taken over from a lapsed server.
    fn load_tournament(&mut self, id: &str) -> Result<Option<StoredTournament>, StoreError> {
        Ok(self.load_startup()?.tournaments.into_iter().find(|t| t.tournament.id == id))
    }

    /// In a cluster: the servers whose leases hold, by id: (id, address). Alone: none.
    fn live_servers(&mut self) -> Result<Vec<(i64, String)>, StoreError> {
        Ok(Vec::new())
    }

    /// The status (the server's encoding) of the tournament that booked game `id`, if one did:
    /// for a game read back by a server that does not hold its tournament.
    fn tournament_status_of(&mut self, id: &str) -> Result<Option<i32>, StoreError>;

    /// The games in which a seat has the account `account_id` (finished or not), ordered by
    /// (that seat's `joined_ms`, the game's id), newest first; strictly after `before` in that
    /// order (a page's last game: its seat's `joined_ms` and its id); at most `limit`. A game
    /// where the account holds several seats is listed once, by its latest one.
    fn account_games(
        &mut self,
        account_id: &str,
        before: Option<(i64, String)>,
        limit: usize,
    ) -> Result<Vec<AccountGame>, StoreError>;

    /// The account and token rows created or changed after the change `after` (0: all), and
    /// the cursor to go on from.
    fn account_changes(&mut self, after: i64) -> Result<AccountChanges, StoreError>;

    /// Gives the backend the server's rating function ([`Write::Rate`] is refused before).
    fn set_rater(&mut self, rate: RateFn);

    /// The rating rows changed after the change `after` (0: all), and the cursor to go on from.
    fn rating_changes(&mut self, after: i64) -> Result<RatingChanges, StoreError>;

    /// A page of an account's rating history in a pool, newest first, strictly before `before`
    /// (a line's `at_ms` and game id), at most `limit` lines.
    fn rating_history(
        &mut self,
        account_id: &str,
        pool: &str,
        before: Option<(i64, String)>,
        limit: usize,
    ) -> Result<Vec<HistoryLine>, StoreError>;
}

impl Backend for Box<dyn Backend> {
    fn commit(&mut self, batch: &[Write]) -> Result<(), StoreError> {
        (**self).commit(batch)
    }

    fn load_all(&mut self) -> Result<Vec<StoredGame>, StoreError> {
        (**self).load_all()
    }

    fn load_startup(&mut self) -> Result<Startup, StoreError> {
        (**self).load_startup()
    }

    fn load_game(&mut self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        (**self).load_game(id)
    }

    fn renew(&mut self) -> Result<bool, StoreError> {
        (**self).renew()
    }

    fn claim_orphans(&mut self) -> Result<Claimed, StoreError> {
        (**self).claim_orphans()
    }

    fn leave(&mut self) -> Result<(), StoreError> {
        (**self).leave()
    }

    fn owner_of(&mut self, id: &str) -> Result<Owner, StoreError> {
        (**self).owner_of(id)
    }

    fn tournament_owner(&mut self, id: &str) -> Result<Owner, StoreError> {
        (**self).tournament_owner(id)
    }

    fn tournament_status_of(&mut self, id: &str) -> Result<Option<i32>, StoreError> {
        (**self).tournament_status_of(id)
    }

    fn load_tournament(&mut self, id: &str) -> Result<Option<StoredTournament>, StoreError> {
        (**self).load_tournament(id)
    }

    fn live_servers(&mut self) -> Result<Vec<(i64, String)>, StoreError> {
        (**self).live_servers()
    }

    fn account_games(
        &mut self,
        account_id: &str,
        before: Option<(i64, String)>,
        limit: usize,
    ) -> Result<Vec<AccountGame>, StoreError> {
        (**self).account_games(account_id, before, limit)
    }

    fn set_rater(&mut self, rate: RateFn) {
        (**self).set_rater(rate)
    }

    fn rating_changes(&mut self, after: i64) -> Result<RatingChanges, StoreError> {
        (**self).rating_changes(after)
    }

    fn rating_history(
        &mut self,
        account_id: &str,
        pool: &str,
        before: Option<(i64, String)>,
        limit: usize,
    ) -> Result<Vec<HistoryLine>, StoreError> {
        (**self).rating_history(account_id, pool, before, limit)
    }

    fn account_changes(&mut self, after: i64) -> Result<AccountChanges, StoreError> {
        (**self).account_changes(after)
    }
}
