//! [`PostgresBackend`]: every row in PostgreSQL, for servers that outgrow one machine's
//! SQLite file (`--db postgres://…`).
//!
//! The same promise as [`SqliteBackend`](super::SqliteBackend): a batch is one transaction,
//! all or nothing, acknowledged once PostgreSQL committed it (its WAL flushed:
//! `synchronous_commit` is never `off` on the writer's connection). Group commit is the
//! writer's ([`Store`](super::Store)), as on SQLite: everything queued meanwhile shares one
//! transaction and one WAL flush.
//!
//! - The actions of unfinished games are rows of `actions`; a game's end moves its whole log
//!   into its row (`actions_json`, as on SQLite) and deletes them.
//! - A batch's actions go in with one statement (`log_actions`) that first checks, by
//!   index lookups only, that each game exists and is not over and that each game's first
//!   action of the batch follows one stored (index 0, or its predecessor is there); the
//!   primary key refuses a repeat. So the indices of a game go 0, 1, 2… with no gap and no
//!   repeat, checked in the database (whichever server writes), and nothing is updated in
//!   place on the hot path: the games' rows stay as written. The statement fails as a whole
//!   when the check fails, so a batch of actions alone needs no transaction block: one round
//!   trip, one WAL flush.
//! - The schema has a version (`gin_schema`); migrations run in a transaction under an
//!   advisory lock, so servers started together migrate once.
//! - A lost connection is opened again at the next call (its statements prepared again); the
//!   batch that met the loss failed as I/O, as a crash would have failed it.
//!
//! - A failed check in `log_actions` raises `GIN01` from `gin_refuse`; errors of class 22 and
//!   23 refuse (`StoreError::Refused`), the rest is `Io`. The checks use scalar subqueries so
//!   a cached plan made while the tables were small cannot turn into scans as they grow. No
//!   foreign key on `actions`: the statement checks per game. Any batch but actions alone is
//!   one transaction. Statements are prepared once per connection.
//! - **A cluster** (issue 19; the design: `crate::cluster`): `servers` (a row per server
//!   process, its lease), `games.owner` and `tournaments.owner`. `join_cluster` (and the claim
//!   of what lapsed servers left), `renew_lease`, `claim_orphans` (`Claimed`: games and
//!   tournaments, in one transaction), `owner_of` and `tournament_owner` (`Owner`; a lapsed
//!   owner's is `Lapsed`, nothing claimed), `live_servers`, `load_tournament`,
//!   `tournament_status_of`, `leave_cluster` (a graceful stop gives the lease up: the row
//!   deleted): also on the `Backend` trait, with defaults for a store of one server. A member's every batch holds its `servers` row (`FOR KEY SHARE`) and checks its
//!   lease (`GIN02`) and that every game is its; `load_startup` loads its own games and
//!   tournaments only. Only PostgreSQL's `now()` is used for leases, never a server's clock.
//! - A schema change is a new `SCHEMA_VERSION` and a step in `migrate`, run under the advisory
//!   lock. Version 2: the accounts (`accounts`, `account_tokens`, the sequence
//!   `account_change_seq` feeding their `change` columns) and `seats.account_id`.
//! - Account writes (`apply_account`): a batch with one holds `ACCOUNT_LOCK` (a transaction's
//!   advisory lock) from its start to its commit, so the account writes of every server of a
//!   cluster commit one at a time, in the order of their `change` values: `account_changes`
//!   after a cursor never misses a row that commits later with a smaller value. Their
//!   refusals name the constraint, never the key's values.
//! - Version 3: ratings (`ratings`, `rating_history`, `rating_change_seq`, `games.rated_pool`).
//!   A batch that rates a game holds `RATING_LOCK` until it commits: its seats' ratings are
//!   read, computed and written in its transaction, one rated game at a time across the
//!   cluster, their `change` values committing in order (as the accounts').

use std::collections::HashMap;
use std::time::Duration;

use postgres::{Client, GenericClient, IsolationLevel, NoTls, Statement, Transaction};

use super::tournaments::{
    BookedRow, EntrantRow, NewTournament, ResultRow, StoredTournament, TournamentWrite,
};
use super::{
    AccountChanges, AccountGame, AccountRow, AccountWrite, ActionKind, ActionRow, Backend, Finished,
    HistoryLine, MAX_TEXT_BYTES, NewGame, RateFn, RateGame, RatingChanges, RatingRow, RatingValue, SeatRow,
    Startup, StoreError, StoredGame, TokenRow, Write, decode_actions, encode_actions,
};

/// The schema version this code writes and reads (the one row of `gin_schema`).
///
/// 2: accounts (`accounts`, `account_tokens`, `account_change_seq`, `seats.account_id`).
/// 3: ratings (`ratings`, `rating_history`, `rating_change_seq`, `games.rated_pool`), and
/// `tournament_entrants.account_id`.
pub const SCHEMA_VERSION: i32 = 3;

/// The advisory lock every batch that rates a game holds until it commits.
const RATING_LOCK: i64 = 0x6769_6e5f_7261; // "gin_ra"

/// The advisory lock every batch with an account write holds until it commits (see
/// `accounts`: changes commit in counter order; an account's checks see every account write
/// committed before).
pub(super) const ACCOUNT_LOCK: i64 = 0x6769_6e5f_6163; // "gin_ac"

/// The advisory lock key migrations hold (any constant: it names this schema).
const MIGRATION_LOCK: i64 = 0x6769_6e5f_7631; // "gin_v1"

/// Version 1: everything.
pub(super) const SCHEMA_V1: &str = "
-- The servers of a cluster (`PostgresBackend::join_cluster`): a row per server process (its id
-- is its fencing token), the address other servers reach it at, and its lease. A server whose
-- lease ran out has its row deleted by the server that claims its games.
CREATE TABLE servers (
    id          BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    addr        TEXT        NOT NULL,
    joined_ms   BIGINT      NOT NULL,
    lease_until TIMESTAMPTZ NOT NULL
);
CREATE TABLE games (
    id           TEXT     PRIMARY KEY,
    -- The server that owns it (writes its rows, serves it); NULL for a single server.
    owner        BIGINT,
    created_seq  BIGINT   GENERATED ALWAYS AS IDENTITY UNIQUE,
    rules_json   TEXT     NOT NULL,
    seed         BIGINT   NOT NULL,
    secret       BYTEA    NOT NULL CHECK (length(secret) = 32),
    clock_millis BIGINT   NOT NULL,
    clock_policy INTEGER  NOT NULL,
    house_bot    TEXT     NOT NULL,
    created_ms   BIGINT   NOT NULL,
    fixed_deals  BOOLEAN  NOT NULL,
    first_dealer SMALLINT,
    result_json  TEXT,
    finished_ms  BIGINT,
    actions_json TEXT
);
CREATE INDEX games_unfinished ON games (created_seq) WHERE finished_ms IS NULL;
-- Fails the statement that calls it: a check inside one statement, so that the statement is
-- all or nothing even outside a transaction block.
-- GIN01: an action index out of order, or a game missing or over; GIN02: the writing server
-- does not hold the game (its lease ran out, or the game is another's).
CREATE FUNCTION gin_refuse(code TEXT, message TEXT) RETURNS BOOLEAN LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION USING ERRCODE = code, MESSAGE = message;
END $$;
CREATE INDEX games_owner ON games (owner) WHERE finished_ms IS NULL;
CREATE TABLE seats (
    game_id    TEXT     NOT NULL REFERENCES games (id),
    seat       SMALLINT NOT NULL,
    name       TEXT     NOT NULL,
    token_hash BYTEA    NOT NULL CHECK (length(token_hash) = 32),
    bot        BOOLEAN  NOT NULL,
    joined_ms  BIGINT   NOT NULL,
    join_order INTEGER  NOT NULL,
    PRIMARY KEY (game_id, seat),
    UNIQUE (game_id, join_order)
);
-- No foreign key: `log_actions` checks the game in the same statement, once per game and
-- batch rather than once per row.
CREATE TABLE actions (
    game_id TEXT     NOT NULL,
    idx     BIGINT   NOT NULL,
    seat    SMALLINT NOT NULL,
    kind    TEXT     NOT NULL CHECK (kind IN ('play', 'timeout', 'resign')),
    action  TEXT     NOT NULL,
    time_ms BIGINT   NOT NULL,
    PRIMARY KEY (game_id, idx)
);
CREATE TABLE tournaments (
    id          TEXT    PRIMARY KEY,
    -- The server that drives it, in a cluster (NULL for a single server).
    owner       BIGINT,
    created_seq BIGINT  GENERATED ALWAYS AS IDENTITY UNIQUE,
    spec        BYTEA   NOT NULL,
    created_ms  BIGINT  NOT NULL,
    status      INTEGER NOT NULL,
    fixed_deals BOOLEAN NOT NULL
);
CREATE TABLE tournament_entrants (
    tournament_id TEXT   NOT NULL REFERENCES tournaments (id),
    idx           BIGINT NOT NULL,
    name          TEXT   NOT NULL,
    token_hash    BYTEA  NOT NULL CHECK (length(token_hash) = 32),
    PRIMARY KEY (tournament_id, idx)
);
CREATE TABLE tournament_games (
    tournament_id TEXT    NOT NULL REFERENCES tournaments (id),
    number        BIGINT  NOT NULL,
    round         BIGINT  NOT NULL,
    game_id       TEXT    NOT NULL,
    -- JSON arrays: each seat's entrant; once done, each seat's total and (tables) place.
    seats         TEXT    NOT NULL,
    deal_seed     BIGINT  NOT NULL,
    done          BOOLEAN NOT NULL DEFAULT false,
    winner        BIGINT,
    totals        TEXT,
    places        TEXT,
    PRIMARY KEY (tournament_id, number)
);
";

/// Version 1 to 2: accounts, their tokens, and the account of a seat.
const SCHEMA_V2: &str = "
ALTER TABLE seats ADD COLUMN account_id TEXT;
-- An account's games, newest first (`account_games`): in the order of the index.
CREATE INDEX seats_account ON seats (account_id, joined_ms, game_id) WHERE account_id IS NOT NULL;
-- Every insert and update of an account or token row takes its next value (`change`).
CREATE SEQUENCE account_change_seq;
CREATE TABLE accounts (
    id            TEXT     PRIMARY KEY,
    name          TEXT     NOT NULL,
    name_key      TEXT     NOT NULL UNIQUE,
    skeleton      TEXT     NOT NULL UNIQUE,
    kind          INTEGER  NOT NULL,
    created_ms    BIGINT   NOT NULL,
    password_hash TEXT,
    deleted_ms    BIGINT,
    change        BIGINT   NOT NULL
);
CREATE INDEX accounts_change ON accounts (change);
CREATE TABLE account_tokens (
    id           TEXT     PRIMARY KEY,
    account_id   TEXT     NOT NULL REFERENCES accounts (id),
    hash         BYTEA    NOT NULL UNIQUE CHECK (length(hash) = 32),
    label        TEXT     NOT NULL,
    scopes       BIGINT   NOT NULL,
    session      BOOLEAN  NOT NULL,
    created_ms   BIGINT   NOT NULL,
    last_used_ms BIGINT   NOT NULL,
    revoked_ms   BIGINT,
    change       BIGINT   NOT NULL
);
CREATE INDEX account_tokens_change ON account_tokens (change);
CREATE INDEX account_tokens_account ON account_tokens (account_id);
";

/// Version 2 to 3: ratings, and a rated game's pool.
const SCHEMA_V3: &str = "
ALTER TABLE games ADD COLUMN rated_pool TEXT;
-- The account a tournament's entrant entered as.
ALTER TABLE tournament_entrants ADD COLUMN account_id TEXT;
-- Every insert and update of a rating row takes its next value (`change`).
CREATE SEQUENCE rating_change_seq;
CREATE TABLE ratings (
    account_id TEXT             NOT NULL,
    pool       TEXT             NOT NULL,
    rating     DOUBLE PRECISION NOT NULL,
    deviation  DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    games      BIGINT           NOT NULL,
    change     BIGINT           NOT NULL,
    PRIMARY KEY (account_id, pool)
);
CREATE INDEX ratings_change ON ratings (change);
CREATE TABLE rating_history (
    game_id          TEXT             NOT NULL,
    account_id       TEXT             NOT NULL,
    pool             TEXT             NOT NULL,
    seat             SMALLINT         NOT NULL,
    place            SMALLINT         NOT NULL,
    at_ms            BIGINT           NOT NULL,
    before_rating    DOUBLE PRECISION NOT NULL,
    before_deviation DOUBLE PRECISION NOT NULL,
    after_rating     DOUBLE PRECISION NOT NULL,
    after_deviation  DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX rating_history_account ON rating_history (account_id, pool, at_ms);
";

/// The statements of a batch, prepared once per connection.
struct Prepared {
    insert_game: Statement,
    insert_seat: Statement,
    update_token: Statement,
    log_actions: Statement,
    finish: Statement,
    holds_lease: Statement,
    drop_actions: Statement,
    insert_tournament: Statement,
    insert_entrant: Statement,
    update_status: Statement,
    insert_booked: Statement,
    update_result: Statement,
}

impl Prepared {
    fn new(c: &mut Client) -> Result<Prepared, postgres::Error> {
        Ok(Prepared {
            insert_game: c.prepare(
                "INSERT INTO games (id, rules_json, seed, secret, clock_millis, clock_policy, house_bot, \
                 created_ms, fixed_deals, first_dealer, owner, rated_pool) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
            )?,
            insert_seat: c.prepare(
                "INSERT INTO seats (game_id, seat, name, token_hash, bot, joined_ms, account_id, join_order) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, \
                     (SELECT coalesce(max(join_order) + 1, 0) FROM seats WHERE game_id = $1))",
            )?,
            update_token: c.prepare("UPDATE seats SET token_hash = $3 WHERE game_id = $1 AND seat = $2")?,
            log_actions: c.prepare(
                // Scalar subqueries, one primary-key lookup per game: a join or EXISTS could be
                // planned as a scan of the whole table while it was small, and the cached plan
                // kept as it grows.
                // $9: the writing server in a cluster (NULL alone): its lease must hold, and
                // every game must be its.
                "WITH checked AS ( \
                     SELECT CASE \
                     WHEN NOT ($9::int8 IS NULL OR coalesce((SELECT true FROM servers \
                         WHERE id = $9 AND lease_until > now() FOR KEY SHARE), false)) \
                     THEN gin_refuse('GIN02', 'this server''s lease ran out') \
                     WHEN bool_and( \
                         coalesce((SELECT g.finished_ms IS NULL AND ($9 IS NULL OR g.owner = $9) \
                             FROM games AS g WHERE g.id = v.id), false) \
                         AND (v.first = 0 OR coalesce((SELECT true FROM actions AS p \
                             WHERE p.game_id = v.id AND p.idx = v.first - 1), false))) \
                     THEN true \
                     ELSE gin_refuse('GIN01', 'an action index out of order, or a game missing, over or not this server''s') END AS ok \
                     FROM unnest($1::text[], $2::int8[]) AS v (id, first)) \
                 INSERT INTO actions (game_id, idx, seat, kind, action, time_ms) \
                 SELECT a.* FROM checked, \
                     unnest($3::text[], $4::int8[], $5::int2[], $6::text[], $7::text[], $8::int8[]) \
                         AS a (game_id, idx, seat, kind, action, time_ms) \
                 WHERE checked.ok",
            )?,
            finish: c.prepare(
                "UPDATE games SET result_json = $2, finished_ms = $3, actions_json = $4 \
                 WHERE id = $1 AND finished_ms IS NULL AND ($5::int8 IS NULL OR owner = $5)",
            )?,
            holds_lease: c.prepare("SELECT 1 FROM servers WHERE id = $1 AND lease_until > now() FOR KEY SHARE")?,
            drop_actions: c.prepare("DELETE FROM actions WHERE game_id = $1")?,
            insert_tournament: c.prepare(
                "INSERT INTO tournaments (id, spec, created_ms, status, fixed_deals, owner) VALUES ($1, $2, $3, $4, $5, $6)",
            )?,
            insert_entrant: c.prepare(
                "INSERT INTO tournament_entrants (tournament_id, idx, name, token_hash, account_id) \
                 VALUES ($1, $2, $3, $4, $5)",
            )?,
            update_status: c.prepare("UPDATE tournaments SET status = $2 WHERE id = $1")?,
            insert_booked: c.prepare(
                "INSERT INTO tournament_games (tournament_id, number, round, game_id, seats, deal_seed) \
                 VALUES ($1, $2, $3, $4, $5, $6)",
            )?,
            update_result: c.prepare(
                "UPDATE tournament_games SET done = true, winner = $3, totals = $4, places = $5 \
                 WHERE tournament_id = $1 AND number = $2",
            )?,
        })
    }
}

/// An open connection and its statements.
struct Conn {
    client: Client,
    st: Prepared,
}

/// PostgreSQL: a connection string (`postgres://user@host:port/db`), one connection owned by
/// the writer thread.
pub struct PostgresBackend {
    config: postgres::Config,
    /// `None` after a lost connection, until the next call opens it again.
    conn: Option<Conn>,
    /// In a cluster: this server's id (see [`PostgresBackend::join_cluster`]).
    member: Option<i64>,
    /// Its lease's length.
    ttl: Duration,
    /// The server's rating function ([`Backend::set_rater`]).
    rater: Option<RateFn>,
}

/// Integrity (class 23: unique, foreign key, check) and data (class 22: a NUL in a text) errors
/// refuse the write; anything else is I/O.
fn pg_error(e: postgres::Error) -> StoreError {
    let class = e.code().map(|c| &c.code()[..2]);
    match class {
        Some("23" | "22") => {
            StoreError::Refused(e.as_db_error().map_or_else(|| e.to_string(), |d| d.to_string()))
        }
        _ => StoreError::Io(format!("postgres: {e}")),
    }
}

/// The connection string without its password, for logs.
pub fn redacted(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_owned() };
    let (auth, host) = match rest.split_once('@') {
        Some((auth, host)) => (Some(auth), host),
        None => (None, rest),
    };
    match auth {
        Some(auth) => {
            let user = auth.split(':').next().unwrap_or("");
            let hidden = if auth.contains(':') { ":…" } else { "" };
            format!("{scheme}://{user}{hidden}@{host}")
        }
        None => url.to_owned(),
    }
}

/// True when `db` names a PostgreSQL database rather than a SQLite file.
pub fn is_postgres_url(db: &str) -> bool {
    db.starts_with("postgres://") || db.starts_with("postgresql://")
}

impl PostgresBackend {
    /// Connects to `url` (giving up after 10 s), creates the schema if missing, and refuses
    /// a database of a newer schema version.
    pub fn connect(url: &str) -> Result<PostgresBackend, StoreError> {
        let mut config: postgres::Config = url.parse().map_err(|e| {
            StoreError::Io(format!("{}: not a PostgreSQL connection string: {e}", redacted(url)))
        })?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(10));
        }
        config.application_name("gin-server");
        let mut backend =
            PostgresBackend { config, conn: None, member: None, ttl: Duration::ZERO, rater: None };
        backend.conn().map_err(|e| e.context(redacted(url)))?;
        Ok(backend)
    }

    /// The open connection, opened (migrated, statements prepared) if it was lost.
    fn conn(&mut self) -> Result<&mut Conn, StoreError> {
        if self.conn.as_ref().is_some_and(|c| c.client.is_closed()) {
            self.conn = None;
        }
        if self.conn.is_none() {
            let mut client =
                self.config.connect(NoTls).map_err(|e| StoreError::Io(format!("postgres: {e}")))?;
            migrate(&mut client)?;
            // The promise is a flushed WAL: whatever the cluster's default, never `off` here.
            let sync: String = client.query_one("SHOW synchronous_commit", &[]).map_err(pg_error)?.get(0);
            if sync == "off" {
                client.batch_execute("SET synchronous_commit TO on").map_err(pg_error)?;
            }
            let st = Prepared::new(&mut client).map_err(pg_error)?;
            self.conn = Some(Conn { client, st });
        }
        Ok(self.conn.as_mut().expect("opened above"))
    }

    /// Runs `f` on the open connection; after an I/O failure the connection is dropped, to be
    /// opened again at the next call.
    fn with<T>(&mut self, f: impl FnOnce(&mut Conn) -> Result<T, StoreError>) -> Result<T, StoreError> {
        let conn = self.conn()?;
        let result = f(conn);
        // After a failure that is not a refusal the session may be unusable even where the
        // client has not noticed yet (a terminated backend, a cut network): a new one.
        if matches!(result, Err(StoreError::Io(_))) || conn.client.is_closed() {
            self.conn = None;
        }
        result
    }
}

/// Who owns a game or a tournament, as [`PostgresBackend::owner_of`] and
/// [`PostgresBackend::tournament_owner`] found it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Owner {
    /// This server.
    Me,
    /// Another server whose lease holds, reachable at `addr`.
    Other {
        /// Its id.
        id: i64,
        /// Where it serves.
        addr: String,
    },
    /// Its server's lease ran out (or it has none): it is moving, to the first live server
    /// whose claim ([`PostgresBackend::claim_orphans`]) takes everything that server held.
    Lapsed,
    /// The game is over: any server reads it. (A tournament, finished or not, is its
    /// owner's.)
    Finished,
    /// No such game (tournament).
    NoSuchGame,
}

/// What one claim took: games and tournaments of lapsed servers (or of none).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Claimed {
    /// The unfinished games' ids.
    pub games: Vec<String>,
    /// The tournaments' ids (finished ones too: their owner serves their reads).
    pub tournaments: Vec<String>,
}

/// A lease's length as an SQL interval parameter (seconds).
fn secs(ttl: Duration) -> f64 {
    ttl.as_secs_f64()
}

impl PostgresBackend {
    /// Joins the cluster on this database: a new row in `servers`, reachable at `addr`, with
    /// a lease of `ttl`; then claims what lapsed servers left (games and tournaments). Its id is the fencing token of everything this backend writes from
    /// now on: every batch checks (and holds, until it commits) that the lease has not run out
    /// and that its games are this server's, and the games it creates are.
    pub fn join_cluster(&mut self, addr: &str, ttl: Duration) -> Result<i64, StoreError> {
        let id: i64 = self.with(|c| {
            c.client
                .query_one(
                    "INSERT INTO servers (addr, joined_ms, lease_until) \
                     VALUES ($1, (extract(epoch FROM now()) * 1000)::int8, now() + make_interval(secs => $2)) \
                     RETURNING id",
                    &[&addr, &secs(ttl)],
                )
                .map(|r| r.get(0))
                .map_err(pg_error)
        })?;
        self.member = Some(id);
        self.ttl = ttl;
        // The games and tournaments of servers gone before this one started.
        self.claim_orphans()?;
        Ok(id)
    }

    /// The process id of this backend's PostgreSQL session (tests cut it).
    #[cfg(test)]
    pub(super) fn session_pid(&mut self) -> i32 {
        self.with(|c| c.client.query_one("SELECT pg_backend_pid()", &[]).map(|r| r.get(0)).map_err(pg_error))
            .expect("a session")
    }

    /// This server's id in the cluster, once joined.
    pub fn member(&self) -> Option<i64> {
        self.member
    }

    /// Renews the lease for its length from now: `false` once it is lost (its row deleted by a
    /// server that claimed its games after it ran out): the server must give up every game
    /// it holds and join again.
    pub fn renew_lease(&mut self) -> Result<bool, StoreError> {
        let Some(me) = self.member else { return Ok(true) };
        let ttl = self.ttl;
        self.with(|c| {
            c.client
                .execute(
                    "UPDATE servers SET lease_until = now() + make_interval(secs => $2) WHERE id = $1",
                    &[&me, &secs(ttl)],
                )
                .map(|n| n == 1)
                .map_err(pg_error)
        })
    }

    /// Gives the lease up (a graceful stop, after the last write): this server's row is
    /// deleted, as a server claiming a lapsed one's games deletes it, so the next claim of any
    /// other server takes its games and tournaments (they name a server that is gone), and
    /// every later batch of this backend finds no lease (`GIN02`). The caller must serve
    /// nothing more: its games are others' from now on.
    pub fn leave_cluster(&mut self) -> Result<(), StoreError> {
        let Some(me) = self.member else { return Ok(()) };
        self.with(|c| {
            c.client.execute("DELETE FROM servers WHERE id = $1", &[&me]).map(drop).map_err(pg_error)
        })
    }

    /// Claims for this server everything that servers whose leases ran out held (and what no
    /// server holds): their unfinished games and their tournaments, in one transaction, so
    /// a tournament and its games stay on one server. The lapsed servers' rows are deleted
    /// first, in the same transaction: that waits for any batch of theirs still in flight (it
    /// holds their row), and fences them off for good (their later batches find no lease).
    pub fn claim_orphans(&mut self) -> Result<Claimed, StoreError> {
        let Some(me) = self.member else { return Err(StoreError::Refused("not in a cluster".into())) };
        self.with(|Conn { client, st }| {
            let mut tx = client.transaction().map_err(pg_error)?;
            if tx.query_opt(&st.holds_lease, &[&me]).map_err(pg_error)?.is_none() {
                return Err(lease_lost());
            }
            tx.execute("DELETE FROM servers WHERE lease_until < now() AND id <> $1", &[&me]).map_err(pg_error)?;
            let ids = |rows: Vec<postgres::Row>| rows.iter().map(|r| r.get(0)).collect();
            let games = tx
                .query(
                    "UPDATE games AS g SET owner = $1 \
                     WHERE g.finished_ms IS NULL \
                         AND (g.owner IS NULL OR NOT EXISTS (SELECT 1 FROM servers AS s WHERE s.id = g.owner)) \
                     RETURNING g.id",
                    &[&me],
                )
                .map_err(pg_error)?;
            let tournaments = tx
                .query(
                    "UPDATE tournaments AS t SET owner = $1 \
                     WHERE t.owner IS NULL OR NOT EXISTS (SELECT 1 FROM servers AS s WHERE s.id = t.owner) \
                     RETURNING t.id",
                    &[&me],
                )
                .map_err(pg_error)?;
            tx.commit().map_err(pg_error)?;
            Ok(Claimed { games: ids(games), tournaments: ids(tournaments) })
        })
    }

    /// The servers whose leases hold (this one too), by id: (id, address).
    pub fn live_servers(&mut self) -> Result<Vec<(i64, String)>, StoreError> {
        self.with(|c| {
            let rows = c
                .client
                .query("SELECT id, addr FROM servers WHERE lease_until > now() ORDER BY id", &[])
                .map_err(pg_error)?;
            Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
        })
    }

    /// Who owns the game `id`. A lapsed owner's game is [`Owner::Lapsed`], not claimed here:
    /// a claim takes all of a lapsed server's games and tournaments at once.
    pub fn owner_of(&mut self, id: &str) -> Result<Owner, StoreError> {
        self.owner_in(
            "SELECT g.owner, s.addr, coalesce(s.lease_until > now(), false), g.finished_ms IS NOT NULL \
             FROM games AS g LEFT JOIN servers AS s ON s.id = g.owner WHERE g.id = $1",
            id,
        )
    }

    /// Who owns the tournament `id` (finished or not), as [`owner_of`](Self::owner_of) a game.
    pub fn tournament_owner(&mut self, id: &str) -> Result<Owner, StoreError> {
        self.owner_in(
            "SELECT t.owner, s.addr, coalesce(s.lease_until > now(), false), false \
             FROM tournaments AS t LEFT JOIN servers AS s ON s.id = t.owner WHERE t.id = $1",
            id,
        )
    }

    /// The owner in the row `query` finds for `id`: (owner, its address, its lease holds,
    /// over).
    fn owner_in(&mut self, query: &str, id: &str) -> Result<Owner, StoreError> {
        let Some(me) = self.member else { return Err(StoreError::Refused("not in a cluster".into())) };
        let found = self.with(|c| c.client.query_opt(query, &[&id]).map_err(pg_error))?;
        let Some(row) = found else { return Ok(Owner::NoSuchGame) };
        if row.get::<_, bool>(3) {
            return Ok(Owner::Finished);
        }
        let (owner, addr, alive): (Option<i64>, Option<String>, bool) = (row.get(0), row.get(1), row.get(2));
        Ok(match (owner, addr) {
            (Some(o), _) if o == me => Owner::Me,
            (Some(o), Some(addr)) if alive => Owner::Other { id: o, addr },
            _ => Owner::Lapsed,
        })
    }
}

/// Creates the schema, or checks its version, under the migration lock.
fn migrate(client: &mut Client) -> Result<(), StoreError> {
    let mut tx = client.transaction().map_err(pg_error)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK]).map_err(pg_error)?;
    tx.batch_execute("CREATE TABLE IF NOT EXISTS gin_schema (version INTEGER NOT NULL)").map_err(pg_error)?;
    let version: Option<i32> =
        tx.query_opt("SELECT version FROM gin_schema", &[]).map_err(pg_error)?.map(|r| r.get(0));
    match version {
        None => {
            tx.batch_execute(SCHEMA_V1).map_err(pg_error)?;
            tx.batch_execute(SCHEMA_V2).map_err(pg_error)?;
            tx.batch_execute(SCHEMA_V3).map_err(pg_error)?;
            tx.execute("INSERT INTO gin_schema (version) VALUES ($1)", &[&SCHEMA_VERSION])
                .map_err(pg_error)?;
        }
        Some(v @ (1 | 2)) => {
            if v == 1 {
                tx.batch_execute(SCHEMA_V2).map_err(pg_error)?;
            }
            tx.batch_execute(SCHEMA_V3).map_err(pg_error)?;
            tx.execute("UPDATE gin_schema SET version = $1", &[&SCHEMA_VERSION]).map_err(pg_error)?;
        }
        Some(SCHEMA_VERSION) => {}
        Some(other) => {
            return Err(StoreError::Corrupt(format!(
                "schema version {other}, this server knows {SCHEMA_VERSION}"
            )));
        }
    }
    tx.commit().map_err(pg_error)
}

/// What `Actions::flush` refuses with when the database's check failed.
const OUT_OF_ORDER: &str = "logging actions: an index out of order, or a game missing or over";

/// A run of consecutive actions of a batch, by game: the first index and the one after the last.
struct Actions<'a> {
    games: Vec<(&'a str, u32, u32)>,
    rows: Vec<(&'a str, &'a ActionRow)>,
    /// The writing server, in a cluster.
    me: Option<i64>,
}

impl<'a> Actions<'a> {
    fn new(me: Option<i64>) -> Actions<'a> {
        Actions { games: Vec::new(), rows: Vec::new(), me }
    }

    /// Adds an action; refused if it does not follow the game's previous one in this run.
    fn push(&mut self, game_id: &'a str, a: &'a ActionRow) -> Result<(), StoreError> {
        if game_id.len() > MAX_TEXT_BYTES || a.action.len() > MAX_TEXT_BYTES {
            return Err(StoreError::Refused(format!(
                "logging action {} of game {game_id}: id or text longer than {MAX_TEXT_BYTES} bytes",
                a.index
            )));
        }
        match self.games.iter_mut().find(|(g, ..)| *g == game_id) {
            Some((_, _, next)) if *next == a.index => *next += 1,
            Some((_, _, next)) => {
                return Err(StoreError::Refused(format!(
                    "logging action {} of game {game_id}: the next index is {next}",
                    a.index
                )));
            }
            None => self.games.push((game_id, a.index, a.index + 1)),
        }
        self.rows.push((game_id, a));
        Ok(())
    }

    /// Checks and advances every game's next index and inserts the actions, in one
    /// statement (`log_actions`): all of it or, when a game's index is not its next one or
    /// the game is missing or over, none of it.
    fn flush(&mut self, tx: &mut impl GenericClient, st: &Prepared) -> Result<(), StoreError> {
        if self.rows.is_empty() {
            return Ok(());
        }
        let ids: Vec<&str> = self.games.iter().map(|g| g.0).collect();
        let firsts: Vec<i64> = self.games.iter().map(|g| i64::from(g.1)).collect();
        let games: Vec<&str> = self.rows.iter().map(|r| r.0).collect();
        let idx: Vec<i64> = self.rows.iter().map(|r| i64::from(r.1.index)).collect();
        let seats: Vec<i16> = self.rows.iter().map(|r| i16::from(r.1.seat)).collect();
        let kinds: Vec<&str> = self.rows.iter().map(|r| r.1.kind.as_str()).collect();
        let texts: Vec<&str> = self.rows.iter().map(|r| r.1.action.as_str()).collect();
        let times: Vec<i64> = self.rows.iter().map(|r| r.1.time_ms).collect();
        let logged = tx.execute(
            &st.log_actions,
            &[&ids, &firsts, &games, &idx, &seats, &kinds, &texts, &times, &self.me],
        );
        match logged {
            Ok(n) if n == self.rows.len() as u64 => {}
            Ok(n) => {
                return Err(StoreError::Io(format!(
                    "logging actions: {n} rows written of {}",
                    self.rows.len()
                )));
            }
            // Refused: explained by `why_refused` once the transaction is over.
            // (A repeated index breaks the primary key: refused the same way.)
            Err(e) if e.code().is_some_and(|c| c.code() == "GIN01" || c.code() == "23505") => {
                return Err(StoreError::Refused(OUT_OF_ORDER.to_owned()));
            }
            Err(e) if e.code().is_some_and(|c| c.code() == "GIN02") => return Err(lease_lost()),
            Err(e) => return Err(pg_error(e)),
        }
        self.games.clear();
        self.rows.clear();
        Ok(())
    }

    /// Why the check of the next indices refused the run (`flush` said [`OUT_OF_ORDER`]),
    /// once its transaction is rolled back: the first game at fault as stored.
    fn why_refused(&self, client: &mut Client) -> StoreError {
        let ids: Vec<&str> = self.games.iter().map(|g| g.0).collect();
        let found = match client.query(
            "SELECT g.id, (SELECT coalesce(max(idx) + 1, 0) FROM actions WHERE game_id = g.id), \
             g.finished_ms IS NOT NULL, g.owner FROM games AS g WHERE g.id = ANY($1)",
            &[&ids],
        ) {
            Ok(rows) => rows,
            Err(e) => return pg_error(e),
        };
        let state: HashMap<String, (i64, bool, Option<i64>)> =
            found.iter().map(|r| (r.get::<_, String>(0), (r.get(1), r.get(2), r.get(3)))).collect();
        for &(game, first, _) in &self.games {
            let why = match state.get(game) {
                None => "no such game".to_owned(),
                Some((_, true, _)) => "the game is over".to_owned(),
                Some((_, _, owner)) if self.me.is_some() && *owner != self.me => {
                    "the game is another server's".to_owned()
                }
                Some((next, ..)) if *next != i64::from(first) => format!("the next index is {next}"),
                Some(_) => continue,
            };
            return StoreError::Refused(format!("logging action {first} of game {game}: {why}"));
        }
        StoreError::Refused("logging actions: an index out of order".to_owned())
    }
}

/// Applies one write that is not an action inside the open transaction.
fn apply(tx: &mut Transaction<'_>, st: &Prepared, write: &Write, me: Option<i64>) -> Result<(), StoreError> {
    let one = |changed: u64, what: String| {
        if changed == 1 { Ok(()) } else { Err(StoreError::Refused(what)) }
    };
    match write {
        Write::CreateGame(g) => tx
            .execute(
                &st.insert_game,
                &[
                    &g.id,
                    &g.rules_json,
                    &(g.seed as i64),
                    &g.secret.as_slice(),
                    &i64::from(g.clock_millis),
                    &g.clock_policy,
                    &g.house_bot,
                    &g.created_ms,
                    &g.fixed_deals,
                    &g.first_dealer.map(i16::from),
                    &me,
                    &g.rated_pool,
                ],
            )
            .map(drop)
            .map_err(|e| pg_error(e).context(format!("creating game {}", g.id))),
        Write::TakeSeat { game_id, seat: s } => tx
            .execute(
                &st.insert_seat,
                &[
                    game_id,
                    &i16::from(s.seat),
                    &s.name,
                    &s.token_hash.as_slice(),
                    &s.bot,
                    &s.joined_ms,
                    &s.account_id,
                ],
            )
            .map(drop)
            .map_err(|e| pg_error(e).context(format!("taking seat {} of game {game_id}", s.seat))),
        Write::SeatToken { game_id, seat, token_hash } => {
            let changed = tx
                .execute(&st.update_token, &[game_id, &i16::from(*seat), &token_hash.as_slice()])
                .map_err(|e| pg_error(e).context(format!("new token of seat {seat} of game {game_id}")))?;
            one(changed, format!("new token of seat {seat} of game {game_id}: no such seat"))
        }
        Write::Action { .. } => unreachable!("actions go through `Actions`"),
        Write::Finish { game_id, result_json, finished_ms, actions } => {
            let changed = tx
                .execute(&st.finish, &[game_id, result_json, finished_ms, &encode_actions(actions), &me])
                .map_err(|e| pg_error(e).context(format!("finishing game {game_id}")))?;
            one(
                changed,
                format!("finishing game {game_id}: no such game, already finished, or not this server's"),
            )?;
            tx.execute(&st.drop_actions, &[game_id]).map(drop).map_err(pg_error)
        }
        Write::Tournament(w) => apply_tournament(tx, st, w, me),
        Write::Account(w) => apply_account(tx, w),
        // Rated by `commit` (`rate_game`).
        Write::Rate(_) => Ok(()),
    }
}

/// `result`, its [`OUT_OF_ORDER`] refusal replaced by the reason (`run`: the refused actions).
fn explained(
    result: Result<(), StoreError>,
    run: &Actions<'_>,
    client: &mut Client,
) -> Result<(), StoreError> {
    match result {
        Err(StoreError::Refused(m)) if m == OUT_OF_ORDER => Err(run.why_refused(client)),
        other => other,
    }
}

/// What a server's writes fail with once its lease ran out: every write of the batch fails
/// (nothing is committed; a retry here cannot succeed), the server must give its games up and
/// join again.
fn lease_lost() -> StoreError {
    StoreError::LeaseLost
}

/// A list as a JSON column.
fn json<T: serde::Serialize>(v: &[T]) -> String {
    serde_json::to_string(v).expect("numbers serialize")
}

fn apply_tournament(
    tx: &mut Transaction<'_>,
    st: &Prepared,
    w: &TournamentWrite,
    me: Option<i64>,
) -> Result<(), StoreError> {
    let id = w.tournament_id();
    let changed = match w {
        TournamentWrite::Create(t) => tx
            .execute(&st.insert_tournament, &[&t.id, &t.spec, &t.created_ms, &t.status, &t.fixed_deals, &me]),
        TournamentWrite::Entrant { tournament_id, entrant: e } => tx.execute(
            &st.insert_entrant,
            &[tournament_id, &i64::from(e.idx), &e.name, &e.token_hash.as_slice(), &e.account_id],
        ),
        TournamentWrite::Status { tournament_id, status } => {
            tx.execute(&st.update_status, &[tournament_id, status])
        }
        TournamentWrite::Book { tournament_id, game: g } => tx.execute(
            &st.insert_booked,
            &[
                tournament_id,
                &i64::from(g.number),
                &i64::from(g.round),
                &g.game_id,
                &json(&g.seats),
                &(g.deal_seed as i64),
            ],
        ),
        TournamentWrite::Result { tournament_id, result: r } => tx.execute(
            &st.update_result,
            &[
                tournament_id,
                &i64::from(r.number),
                &r.winner.map(i64::from),
                &json(&r.totals),
                &(!r.places.is_empty()).then(|| json(&r.places)),
            ],
        ),
    }
    .map_err(|e| pg_error(e).context(format!("tournament {id}")))?;
    if changed == 0 {
        return Err(StoreError::Refused(format!("tournament {id}: no such tournament or game")));
    }
    Ok(())
}

impl Backend for PostgresBackend {
    fn renew(&mut self) -> Result<bool, StoreError> {
        self.renew_lease()
    }

    fn claim_orphans(&mut self) -> Result<Claimed, StoreError> {
        PostgresBackend::claim_orphans(self)
    }

    fn leave(&mut self) -> Result<(), StoreError> {
        self.leave_cluster()
    }

    fn owner_of(&mut self, id: &str) -> Result<Owner, StoreError> {
        PostgresBackend::owner_of(self, id)
    }

    fn tournament_owner(&mut self, id: &str) -> Result<Owner, StoreError> {
        PostgresBackend::tournament_owner(self, id)
    }

    fn live_servers(&mut self) -> Result<Vec<(i64, String)>, StoreError> {
        PostgresBackend::live_servers(self)
    }

    fn tournament_status_of(&mut self, id: &str) -> Result<Option<i32>, StoreError> {
        // No index on `tournament_games.game_id`: a scan, for a finished tournament game read
        // back by a server that does not hold its tournament (rare: its calls go to its own).
        let q = "SELECT t.status FROM tournament_games AS g JOIN tournaments AS t ON t.id = g.tournament_id \
                 WHERE g.game_id = $1 LIMIT 1";
        let found = self.with(|c| c.client.query_opt(q, &[&id]).map_err(pg_error))?;
        Ok(found.map(|row| row.get::<_, i32>(0)))
    }

    fn load_tournament(&mut self, id: &str) -> Result<Option<StoredTournament>, StoreError> {
        self.with(|c| {
            let mut tx = snapshot(&mut c.client)?;
            let t = load_tournaments(&mut tx, None, Some(id))?.pop();
            tx.commit().map_err(pg_error)?;
            Ok(t)
        })
    }

    fn commit(&mut self, batch: &[Write]) -> Result<(), StoreError> {
        if batch.is_empty() {
            return Ok(());
        }
        let me = self.member;
        let rater = self.rater;
        self.with(|Conn { client, st }| {
            // Actions only (the hot path): one statement, its own transaction, one round trip.
            if batch.iter().all(|w| matches!(w, Write::Action { .. })) {
                let mut run = Actions::new(me);
                for write in batch {
                    if let Write::Action { game_id, action } = write {
                        run.push(game_id, action)?;
                    }
                }
                let result = run.flush(client, st);
                return explained(result, &run, client);
            }
            let mut run = Actions::new(me);
            let result = (|| {
                let mut tx = client.transaction().map_err(pg_error)?;
                // In a cluster: the lease must hold, locked (for key share) until the commit, so
                // a server claiming this one's games waits for the batch, then sees it.
                if let Some(me) = me
                    && tx.query_opt(&st.holds_lease, &[&me]).map_err(pg_error)?.is_none()
                {
                    return Err(lease_lost());
                }
                // Account writes: one at a time across the cluster, until the commit.
                if batch.iter().any(|w| matches!(w, Write::Account(_))) {
                    for write in batch {
                        if let Write::Account(w) = write {
                            w.check()?;
                        }
                    }
                    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&ACCOUNT_LOCK]).map_err(pg_error)?;
                }
                // Rated games: one at a time across the cluster, until the commit.
                if batch.iter().any(|w| matches!(w, Write::Rate(_))) {
                    if rater.is_none() {
                        return Err(StoreError::Refused(
                            "rating a game: this store has no rating function".into(),
                        ));
                    }
                    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&RATING_LOCK]).map_err(pg_error)?;
                }
                for write in batch {
                    match write {
                        Write::Action { game_id, action } => run.push(game_id, action)?,
                        Write::Rate(w) => {
                            run.flush(&mut tx, st)?;
                            rate_game(&mut tx, w, rater.expect("checked above"))?;
                        }
                        other => {
                            // The actions before it first: a game's end follows its last action.
                            run.flush(&mut tx, st)?;
                            apply(&mut tx, st, other, me)?;
                        }
                    }
                }
                run.flush(&mut tx, st)?;
                // Dropped without commit on any error above: rolled back, nothing written.
                tx.commit().map_err(pg_error)
            })();
            explained(result, &run, client)
        })
    }

    fn load_all(&mut self) -> Result<Vec<StoredGame>, StoreError> {
        self.with(|c| {
            let mut tx = snapshot(&mut c.client)?;
            let games = load_games(&mut tx, Which::All)?;
            tx.commit().map_err(pg_error)?;
            Ok(games)
        })
    }

    /// In a cluster: this server's unfinished games and tournaments only.
    fn load_startup(&mut self) -> Result<Startup, StoreError> {
        let me = self.member;
        self.with(|c| {
            let mut tx = snapshot(&mut c.client)?;
            let live = load_games(&mut tx, me.map_or(Which::Unfinished, Which::Owned))?;
            let tournaments = load_tournaments(&mut tx, me, None)?;
            let accounts = account_changes(&mut tx, i64::MIN)?;
            let mut ratings = rating_changes(&mut tx, i64::MIN)?;
            ratings.cursor = ratings.cursor.max(0);
            tx.commit().map_err(pg_error)?;
            Ok(Startup {
                live,
                tournaments,
                accounts: accounts.accounts,
                tokens: accounts.tokens,
                account_cursor: accounts.cursor.max(0),
                ratings,
            })
        })
    }

    fn load_game(&mut self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        self.with(|c| {
            let mut tx = snapshot(&mut c.client)?;
            let game = load_games(&mut tx, Which::One(id))?.pop();
            tx.commit().map_err(pg_error)?;
            Ok(game)
        })
    }

    fn account_games(
        &mut self,
        account_id: &str,
        before: Option<(i64, String)>,
        limit: usize,
    ) -> Result<Vec<AccountGame>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.with(|c| {
            let mut tx = snapshot(&mut c.client)?;
            let sql = super::accounts::account_seats_sql(before.is_some(), true);
            let rows = match &before {
                Some((joined, game)) => tx.query(&sql, &[&account_id, joined, game, &limit]),
                None => tx.query(&sql, &[&account_id, &limit]),
            }
            .map_err(pg_error)?;
            let mut out = Vec::with_capacity(rows.len());
            for r in &rows {
                let id: &str = r.get(0);
                let g = load_games(&mut tx, Which::Facts(id))?
                    .pop()
                    .ok_or_else(|| StoreError::Corrupt(format!("seat of unknown game {id}")))?;
                out.push(AccountGame { game: g.game, seats: g.seats, finished: g.finished });
            }
            tx.commit().map_err(pg_error)?;
            Ok(out)
        })
    }

    fn account_changes(&mut self, after: i64) -> Result<AccountChanges, StoreError> {
        self.with(|c| {
            let mut tx = snapshot(&mut c.client)?;
            let changes = account_changes(&mut tx, after)?;
            tx.commit().map_err(pg_error)?;
            Ok(changes)
        })
    }

    fn set_rater(&mut self, rate: RateFn) {
        self.rater = Some(rate);
    }

    fn rating_changes(&mut self, after: i64) -> Result<RatingChanges, StoreError> {
        self.with(|c| {
            let mut tx = snapshot(&mut c.client)?;
            let changes = rating_changes(&mut tx, after)?;
            tx.commit().map_err(pg_error)?;
            Ok(changes)
        })
    }

    fn rating_history(
        &mut self,
        account_id: &str,
        pool: &str,
        before: Option<(i64, String)>,
        limit: usize,
    ) -> Result<Vec<HistoryLine>, StoreError> {
        let (at, game) = before.unwrap_or((i64::MAX, String::new()));
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.with(|c| {
            let mut tx = snapshot(&mut c.client)?;
            let rows = tx
                .query(
                    "SELECT h.game_id, h.at_ms, h.place, h.before_rating, h.before_deviation, h.after_rating, \
                     h.after_deviation, ARRAY(SELECT o.account_id FROM rating_history AS o \
                         WHERE o.game_id = h.game_id AND o.seat <> h.seat ORDER BY o.seat) \
                     FROM rating_history AS h WHERE h.account_id = $1 AND h.pool = $2 \
                     AND (h.at_ms < $3 OR (h.at_ms = $3 AND $4 <> '' AND h.game_id < $4)) \
                     ORDER BY h.at_ms DESC, h.game_id DESC LIMIT $5",
                    &[&account_id, &pool, &at, &game, &limit],
                )
                .map_err(pg_error)?;
            tx.commit().map_err(pg_error)?;
            Ok(rows
                .iter()
                .map(|r| HistoryLine {
                    game_id: r.get(0),
                    at_ms: r.get(1),
                    place: u8::try_from(r.get::<_, i16>(2)).unwrap_or(u8::MAX),
                    before: (r.get(3), r.get(4)),
                    after: (r.get(5), r.get(6)),
                    opponents: r.get(7),
                })
                .collect())
        })
    }
}

/// Rates game `w.game_id` inside the open transaction (which holds [`RATING_LOCK`]): its
/// seats' ratings read, computed by `rate`, written with the history; nothing if it was rated
/// already.
fn rate_game(tx: &mut Transaction<'_>, w: &RateGame, rate: RateFn) -> Result<(), StoreError> {
    let done = tx
        .query_opt("SELECT 1 FROM rating_history WHERE game_id = $1 LIMIT 1", &[&w.game_id])
        .map_err(pg_error)?
        .is_some();
    if done {
        return Ok(());
    }
    let mut current: HashMap<String, RatingValue> = HashMap::new();
    let accounts: Vec<&str> = w.seats.iter().map(|(a, _)| a.as_str()).collect();
    for r in tx
        .query(
            "SELECT account_id, rating, deviation, volatility, games FROM ratings \
             WHERE pool = $1 AND account_id = ANY($2) FOR UPDATE",
            &[&w.pool, &accounts],
        )
        .map_err(pg_error)?
    {
        let games = u32::try_from(r.get::<_, i64>(4)).unwrap_or(u32::MAX);
        current.insert(
            r.get(0),
            RatingValue { rating: r.get(1), deviation: r.get(2), volatility: r.get(3), games },
        );
    }
    let Some(rated) =
        super::ratings::or_skip(w, super::ratings::compute(w, rate, |a| Ok(current.get(a).copied())))?
    else {
        return Ok(());
    };
    for (seat, s) in rated.seats.iter().enumerate() {
        let (a, b) = (s.after, s.before);
        tx.execute(
            "INSERT INTO ratings (account_id, pool, rating, deviation, volatility, games, change) \
             VALUES ($1, $2, $3, $4, $5, $6, nextval('rating_change_seq')) ON CONFLICT (account_id, pool) \
             DO UPDATE SET rating = excluded.rating, deviation = excluded.deviation, \
             volatility = excluded.volatility, games = excluded.games, change = excluded.change",
            &[&s.account_id, &rated.pool, &a.rating, &a.deviation, &a.volatility, &i64::from(a.games)],
        )
        .map_err(pg_error)?;
        tx.execute(
            "INSERT INTO rating_history (game_id, account_id, pool, seat, place, at_ms, before_rating, \
             before_deviation, after_rating, after_deviation) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
            &[
                &w.game_id,
                &s.account_id,
                &rated.pool,
                &(seat as i16),
                &i16::from(s.place),
                &rated.at_ms,
                &b.rating,
                &b.deviation,
                &a.rating,
                &a.deviation,
            ],
        )
        .map_err(pg_error)?;
    }
    Ok(())
}

/// The rating rows changed after `after`.
fn rating_changes(tx: &mut Transaction<'_>, after: i64) -> Result<RatingChanges, StoreError> {
    let mut out = RatingChanges { cursor: after, ..RatingChanges::default() };
    let rows = tx
        .query(
            "SELECT account_id, pool, rating, deviation, volatility, games, change FROM ratings \
             WHERE change > $1 ORDER BY change",
            &[&after],
        )
        .map_err(pg_error)?;
    for r in &rows {
        out.cursor = out.cursor.max(r.get(6));
        out.rows.push(RatingRow {
            account_id: r.get(0),
            pool: r.get(1),
            value: RatingValue {
                rating: r.get(2),
                deviation: r.get(3),
                volatility: r.get(4),
                games: u32::try_from(r.get::<_, i64>(5)).unwrap_or(u32::MAX),
            },
        });
    }
    Ok(out)
}

/// Applies one account write inside the open transaction (which holds [`ACCOUNT_LOCK`]).
fn apply_account(tx: &mut Transaction<'_>, w: &AccountWrite) -> Result<(), StoreError> {
    let what = || w.what();
    let refused = |why: &str| Err(StoreError::Refused(format!("{}: {why}", w.what())));
    // Without the database's detail, which quotes the values of a key (a token's hash).
    let error = |e: postgres::Error| {
        let refusal = matches!(e.code().map(|c| &c.code()[..2]), Some("23" | "22"));
        match e.as_db_error() {
            Some(d) if refusal => StoreError::Refused(format!("{}: {}", what(), d.message())),
            _ => pg_error(e).context(what()),
        }
    };
    let run = |tx: &mut Transaction<'_>, sql: &str, params: &[&(dyn postgres::types::ToSql + Sync)]| {
        tx.execute(sql, params).map_err(error)
    };
    let exists = |tx: &mut Transaction<'_>, sql: &str, id: &str| {
        tx.query_opt(sql, &[&id]).map(|r| r.is_some()).map_err(|e| pg_error(e).context(what()))
    };
    const NEXT: &str = "nextval('account_change_seq')";
    match w {
        AccountWrite::Create(a) => {
            run(
                tx,
                &format!(
                    "INSERT INTO accounts (id, name, name_key, skeleton, kind, created_ms, password_hash, \
                     deleted_ms, change) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, {NEXT})"
                ),
                &[
                    &a.id,
                    &a.name,
                    &a.name_key,
                    &a.skeleton,
                    &a.kind,
                    &a.created_ms,
                    &a.password_hash,
                    &a.deleted_ms,
                ],
            )?;
        }
        AccountWrite::SetPassword { account_id, password_hash } => {
            let changed = run(
                tx,
                &format!(
                    "UPDATE accounts SET password_hash = $2, change = {NEXT} \
                     WHERE id = $1 AND deleted_ms IS NULL AND password_hash IS DISTINCT FROM $2"
                ),
                &[account_id, password_hash],
            )?;
            if changed == 0
                && !exists(tx, "SELECT 1 FROM accounts WHERE id = $1 AND deleted_ms IS NULL", account_id)?
            {
                return refused("no such live account");
            }
        }
        AccountWrite::AddToken(t) => {
            let changed = run(
                tx,
                &format!(
                    "INSERT INTO account_tokens (id, account_id, hash, label, scopes, session, created_ms, \
                     last_used_ms, revoked_ms, change) \
                     SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, {NEXT} \
                     WHERE EXISTS (SELECT 1 FROM accounts WHERE id = $2 AND deleted_ms IS NULL)"
                ),
                &[
                    &t.id,
                    &t.account_id,
                    &t.hash.as_slice(),
                    &t.label,
                    &i64::from(t.scopes),
                    &t.session,
                    &t.created_ms,
                    &t.last_used_ms,
                    &t.revoked_ms,
                ],
            )?;
            if changed == 0 {
                return refused("no such live account");
            }
        }
        AccountWrite::RevokeToken { token_id, at_ms } => {
            let changed = run(
                tx,
                &format!(
                    "UPDATE account_tokens SET revoked_ms = $2, change = {NEXT} WHERE id = $1 AND revoked_ms IS NULL"
                ),
                &[token_id, at_ms],
            )?;
            if changed == 0 && !exists(tx, "SELECT 1 FROM account_tokens WHERE id = $1", token_id)? {
                return refused("no such token");
            }
        }
        AccountWrite::TouchTokens(touched) => {
            let ids: Vec<&str> = touched.iter().map(|(id, _)| id.as_str()).collect();
            let times: Vec<i64> = touched.iter().map(|(_, at)| *at).collect();
            // The latest time of each id (an id may come twice), applied where it is later.
            run(
                tx,
                &format!(
                    "UPDATE account_tokens AS t SET last_used_ms = v.at, change = {NEXT} \
                     FROM (SELECT id, max(at) AS at FROM unnest($1::text[], $2::int8[]) AS u (id, at) \
                         GROUP BY id) AS v \
                     WHERE t.id = v.id AND t.last_used_ms < v.at"
                ),
                &[&ids, &times],
            )?;
        }
        AccountWrite::Delete { account_id, at_ms } => {
            let changed = run(
                tx,
                &format!(
                    "UPDATE accounts SET deleted_ms = $2, password_hash = NULL, change = {NEXT} \
                     WHERE id = $1 AND deleted_ms IS NULL"
                ),
                &[account_id, at_ms],
            )?;
            if changed == 0 {
                return refused("no such live account");
            }
            run(
                tx,
                &format!(
                    "UPDATE account_tokens SET revoked_ms = $2, change = {NEXT} \
                     WHERE account_id = $1 AND revoked_ms IS NULL"
                ),
                &[account_id, at_ms],
            )?;
        }
    }
    Ok(())
}

/// The accounts and tokens changed after `after`, in change order.
fn account_changes(tx: &mut Transaction<'_>, after: i64) -> Result<AccountChanges, StoreError> {
    use super::accounts::{ACCOUNT_COLUMNS, TOKEN_COLUMNS};
    let mut out = AccountChanges { cursor: after, ..AccountChanges::default() };
    let accounts = tx
        .query(
            &format!("SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE change > $1 ORDER BY change"),
            &[&after],
        )
        .map_err(pg_error)?;
    for r in &accounts {
        out.cursor = out.cursor.max(r.get(8));
        out.accounts.push(AccountRow {
            id: r.get(0),
            name: r.get(1),
            name_key: r.get(2),
            skeleton: r.get(3),
            kind: r.get(4),
            created_ms: r.get(5),
            password_hash: r.get(6),
            deleted_ms: r.get(7),
        });
    }
    let tokens = tx
        .query(
            &format!("SELECT {TOKEN_COLUMNS} FROM account_tokens WHERE change > $1 ORDER BY change"),
            &[&after],
        )
        .map_err(pg_error)?;
    for r in &tokens {
        out.cursor = out.cursor.max(r.get(9));
        let hash: Vec<u8> = r.get(2);
        out.tokens.push(TokenRow {
            id: r.get(0),
            account_id: r.get(1),
            hash: hash.try_into().map_err(|_| corrupt("token hash"))?,
            label: r.get(3),
            scopes: u32::try_from(r.get::<_, i64>(4)).map_err(|_| corrupt("token scopes"))?,
            session: r.get(5),
            created_ms: r.get(6),
            last_used_ms: r.get(7),
            revoked_ms: r.get(8),
        });
    }
    Ok(out)
}

/// A read-only transaction that sees one consistent snapshot of every table.
fn snapshot(client: &mut Client) -> Result<Transaction<'_>, StoreError> {
    client
        .build_transaction()
        .isolation_level(IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .map_err(pg_error)
}

/// Which games [`load_games`] reads.
#[derive(Clone, Copy)]
enum Which<'a> {
    All,
    Unfinished,
    /// The unfinished games of this server (in a cluster).
    Owned(i64),
    One(&'a str),
    /// One game without its actions.
    Facts(&'a str),
}

/// A column that does not fit its Rust type.
fn corrupt(what: &str) -> StoreError {
    StoreError::Corrupt(format!("stored {what} out of range"))
}

/// Reads `which` games with their seats, actions and ends.
fn load_games(tx: &mut Transaction<'_>, which: Which<'_>) -> Result<Vec<StoredGame>, StoreError> {
    let (games_where, rows_where) = match which {
        Which::All => ("", ""),
        Which::Unfinished => {
            ("WHERE finished_ms IS NULL", "WHERE game_id IN (SELECT id FROM games WHERE finished_ms IS NULL)")
        }
        Which::Owned(_) => (
            "WHERE finished_ms IS NULL AND owner = $1",
            "WHERE game_id IN (SELECT id FROM games WHERE finished_ms IS NULL AND owner = $1)",
        ),
        Which::One(_) | Which::Facts(_) => ("WHERE id = $1", "WHERE game_id = $1"),
    };
    let (one, me);
    let params: &[&(dyn postgres::types::ToSql + Sync)] = match which {
        Which::One(id) | Which::Facts(id) => {
            one = id;
            &[&one]
        }
        Which::Owned(id) => {
            me = id;
            &[&me]
        }
        _ => &[],
    };
    let rows = tx
        .query(
            &format!(
                "SELECT id, rules_json, seed, secret, clock_millis, clock_policy, house_bot, created_ms, \
                 result_json, finished_ms, {actions}, fixed_deals, first_dealer, rated_pool \
                 FROM games {games_where} ORDER BY created_seq",
                actions = if matches!(which, Which::Facts(_)) { "NULL::text" } else { "actions_json" }
            ),
            params,
        )
        .map_err(pg_error)?;
    let mut games = Vec::with_capacity(rows.len());
    let mut by_id = HashMap::with_capacity(rows.len());
    for r in &rows {
        let id: String = r.get(0);
        let secret: Vec<u8> = r.get(3);
        let finished_ms: Option<i64> = r.get(9);
        let finished = finished_ms.map(|finished_ms| Finished {
            result_json: r.get::<_, Option<String>>(8).unwrap_or_default(),
            finished_ms,
        });
        let actions = match r.get::<_, Option<String>>(10) {
            Some(json) => decode_actions(&json).map_err(|e| e.context(format!("game {id}")))?,
            None => Vec::new(),
        };
        by_id.insert(id.clone(), games.len());
        games.push(StoredGame {
            game: NewGame {
                id,
                rules_json: r.get(1),
                seed: r.get::<_, i64>(2) as u64,
                secret: secret.try_into().map_err(|_| corrupt("secret"))?,
                clock_millis: u32::try_from(r.get::<_, i64>(4)).map_err(|_| corrupt("clock"))?,
                clock_policy: r.get(5),
                house_bot: r.get(6),
                created_ms: r.get(7),
                fixed_deals: r.get(11),
                first_dealer: r
                    .get::<_, Option<i16>>(12)
                    .map(|d| u8::try_from(d).map_err(|_| corrupt("first dealer")))
                    .transpose()?,
                rated_pool: r.get(13),
            },
            seats: Vec::new(),
            actions,
            finished,
        });
    }
    if games.is_empty() {
        return Ok(games);
    }
    let slot = |game_id: &str, table: &str| {
        by_id
            .get(game_id)
            .copied()
            .ok_or_else(|| StoreError::Corrupt(format!("{table} row of unknown game {game_id}")))
    };
    let seats = tx
        .query(
            &format!(
                "SELECT game_id, seat, name, token_hash, bot, joined_ms, account_id FROM seats {rows_where} \
                 ORDER BY game_id, join_order"
            ),
            params,
        )
        .map_err(pg_error)?;
    for r in &seats {
        let i = slot(r.get(0), "seats")?;
        let hash: Vec<u8> = r.get(3);
        games[i].seats.push(SeatRow {
            seat: u8::try_from(r.get::<_, i16>(1)).map_err(|_| corrupt("seat"))?,
            name: r.get(2),
            token_hash: hash.try_into().map_err(|_| corrupt("token hash"))?,
            bot: r.get(4),
            joined_ms: r.get(5),
            account_id: r.get(6),
        });
    }
    if matches!(which, Which::Facts(_)) {
        return Ok(games);
    }
    let actions = tx
        .query(
            &format!("SELECT game_id, idx, seat, kind, action, time_ms FROM actions {rows_where} ORDER BY game_id, idx"),
            params,
        )
        .map_err(pg_error)?;
    for r in &actions {
        let game_id: &str = r.get(0);
        let i = slot(game_id, "actions")?;
        let kind: &str = r.get(3);
        games[i].actions.push(ActionRow {
            index: u32::try_from(r.get::<_, i64>(1)).map_err(|_| corrupt("action index"))?,
            seat: u8::try_from(r.get::<_, i16>(2)).map_err(|_| corrupt("seat"))?,
            kind: ActionKind::parse(kind).ok_or_else(|| {
                StoreError::Corrupt(format!("game {game_id}: unknown action kind {kind:?}"))
            })?,
            action: r.get(4),
            time_ms: r.get(5),
        });
    }
    Ok(games)
}

/// A JSON list column read back.
fn from_json<T: for<'de> serde::Deserialize<'de>>(text: &str, what: &str) -> Result<Vec<T>, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt(format!("stored {what}: {e}")))
}

/// Every tournament, in creation order, with its entrants and games (`owner`: only that
/// server's; `only`: that one alone).
fn load_tournaments(
    tx: &mut Transaction<'_>,
    owner: Option<i64>,
    only: Option<&str>,
) -> Result<Vec<StoredTournament>, StoreError> {
    let mut out = Vec::new();
    let mut by_id = HashMap::new();
    for r in tx
        .query(
            "SELECT id, spec, created_ms, status, fixed_deals FROM tournaments \
             WHERE ($1::int8 IS NULL OR owner = $1) AND ($2::text IS NULL OR id = $2) ORDER BY created_seq",
            &[&owner, &only],
        )
        .map_err(pg_error)?
    {
        let id: String = r.get(0);
        by_id.insert(id.clone(), out.len());
        out.push(StoredTournament {
            tournament: NewTournament {
                id,
                spec: r.get(1),
                created_ms: r.get(2),
                status: r.get(3),
                fixed_deals: r.get(4),
            },
            entrants: Vec::new(),
            games: Vec::new(),
        });
    }
    let slot = |id: &str| {
        by_id.get(id).copied().ok_or_else(|| StoreError::Corrupt(format!("row of unknown tournament {id}")))
    };
    let u32_of = |v: i64, what: &str| u32::try_from(v).map_err(|_| corrupt(what));
    for r in tx
        .query(
            "SELECT tournament_id, idx, name, token_hash, account_id FROM tournament_entrants \
             WHERE tournament_id IN (SELECT id FROM tournaments \
                 WHERE ($1::int8 IS NULL OR owner = $1) AND ($2::text IS NULL OR id = $2)) \
             ORDER BY tournament_id, idx",
            &[&owner, &only],
        )
        .map_err(pg_error)?
    {
        let i = slot(r.get(0))?;
        let hash: Vec<u8> = r.get(3);
        out[i].entrants.push(EntrantRow {
            idx: u32_of(r.get(1), "entrant number")?,
            name: r.get(2),
            token_hash: hash.try_into().map_err(|_| corrupt("entrant token hash"))?,
            account_id: r.get(4),
        });
    }
    for r in tx
        .query(
            "SELECT tournament_id, number, round, game_id, seats, deal_seed, done, winner, totals, places \
             FROM tournament_games \
             WHERE tournament_id IN (SELECT id FROM tournaments \
                 WHERE ($1::int8 IS NULL OR owner = $1) AND ($2::text IS NULL OR id = $2)) \
             ORDER BY tournament_id, number",
            &[&owner, &only],
        )
        .map_err(pg_error)?
    {
        let i = slot(r.get(0))?;
        let booked = BookedRow {
            number: u32_of(r.get(1), "game number")?,
            round: u32_of(r.get(2), "round")?,
            game_id: r.get(3),
            seats: from_json(r.get(4), "seats")?,
            deal_seed: r.get::<_, i64>(5) as u64,
        };
        let result = if r.get::<_, bool>(6) {
            Some(ResultRow {
                number: booked.number,
                winner: r.get::<_, Option<i64>>(7).map(|w| u32_of(w, "winner")).transpose()?,
                totals: from_json(r.get::<_, Option<&str>>(8).unwrap_or("[]"), "totals")?,
                places: match r.get::<_, Option<&str>>(9) {
                    Some(p) => from_json(p, "places")?,
                    None => Vec::new(),
                },
            })
        } else {
            None
        };
        out[i].games.push((booked, result));
    }
    Ok(out)
}
