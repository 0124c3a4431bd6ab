//! The accounts' rows: an account (a person or a bot: its name, the keys that keep names
//! apart, its password's hash), its API and session tokens (the hash of each, its scopes, when
//! it was last used, its revocation), and a game's seats naming the account that took them
//! ([`SeatRow::account_id`](super::SeatRow::account_id)). They are written by the store's
//! writer like the games' rows: in its group commits ([`Write::Account`](super::Write::Account)),
//! made durable by the journal as row records (`{"account": …}`, since 2026-11-28), applied to
//! SQLite without a sync of their own, applied again, idempotently, at start from the journal.
//!
//! - A name is never given again: a deleted account keeps its id, `name_key` and `skeleton`
//!   (unique, every account), loses its password hash, and its tokens are revoked.
//! - Every insert and update of an account or token row takes the next value of one change
//!   counter (`change` columns: SQLite's `account_counter` row, PostgreSQL's
//!   `account_change_seq`); [`Backend::account_changes`](super::Backend::account_changes)
//!   returns the rows changed after a cursor, so the servers of a cluster learn of each
//!   other's new tokens and revocations. On PostgreSQL every batch with an account write holds
//!   one advisory lock (`ACCOUNT_LOCK`) until it commits, so changes commit in counter order
//!   (a reader never sees a counter value before a smaller one commits) and an account's
//!   checks (live, not deleted) see every account write committed before.
//! - [`Backend::account_games`](super::Backend::account_games): an account's games, newest
//!   seat first, by index (`seats (account_id, joined_ms)`), a page at a time.
//!
//! Nothing here is logged: the rows hold password hashes and token hashes.

use std::fmt;

use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

use super::{Finished, NewGame, SeatRow, StoreError};

/// An account's kind: a person.
pub const KIND_PERSON: i32 = 1;
/// An account's kind: a bot.
pub const KIND_BOT: i32 = 2;

pub(super) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS accounts (
    id            TEXT    NOT NULL PRIMARY KEY,
    name          TEXT    NOT NULL,
    name_key      TEXT    NOT NULL UNIQUE,
    skeleton      TEXT    NOT NULL UNIQUE,
    kind          INTEGER NOT NULL,
    created_ms    INTEGER NOT NULL,
    password_hash TEXT,
    deleted_ms    INTEGER,
    change        INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS accounts_change ON accounts (change);
CREATE TABLE IF NOT EXISTS account_tokens (
    id           TEXT    NOT NULL PRIMARY KEY,
    account_id   TEXT    NOT NULL REFERENCES accounts (id),
    hash         BLOB    NOT NULL UNIQUE CHECK (length(hash) = 32),
    label        TEXT    NOT NULL,
    scopes       INTEGER NOT NULL,
    session      INTEGER NOT NULL,
    created_ms   INTEGER NOT NULL,
    last_used_ms INTEGER NOT NULL,
    revoked_ms   INTEGER,
    change       INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS account_tokens_change ON account_tokens (change);
CREATE INDEX IF NOT EXISTS account_tokens_account ON account_tokens (account_id);
-- The change counter: one row.
CREATE TABLE IF NOT EXISTS account_counter (n INTEGER NOT NULL);
INSERT INTO account_counter (n) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM account_counter);
";

/// An account. Its `Debug` leaves out the password's hash (no secret may reach a log).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccountRow {
    /// Its id (unique).
    pub id: String,
    /// Its name, as its holder wrote it.
    pub name: String,
    /// The name's key (case folded, normalized): unique, deleted accounts' too.
    pub name_key: String,
    /// The name's confusable skeleton: unique, deleted accounts' too.
    pub skeleton: String,
    /// Its kind: [`KIND_PERSON`] or [`KIND_BOT`].
    pub kind: i32,
    /// When it was created, in Unix milliseconds.
    pub created_ms: i64,
    /// Its password's hash (a PHC string); `None`: no password (a bot, or deleted).
    pub password_hash: Option<String>,
    /// When it was deleted, in Unix milliseconds.
    pub deleted_ms: Option<i64>,
}

/// An account's token (an API token, or a sign-in's session). Its `Debug` leaves out the
/// token's hash.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenRow {
    /// Its id (unique; not secret).
    pub id: String,
    /// The account it acts for.
    pub account_id: String,
    /// SHA-256 of the token (unique).
    pub hash: [u8; 32],
    /// Its label, as its holder named it.
    pub label: String,
    /// What it may do (a bit mask, the server's encoding).
    pub scopes: u32,
    /// A sign-in's session token (not an API token).
    pub session: bool,
    /// When it was made, in Unix milliseconds.
    pub created_ms: i64,
    /// When it was last used, in Unix milliseconds.
    pub last_used_ms: i64,
    /// When it was revoked (the first time), in Unix milliseconds.
    pub revoked_ms: Option<i64>,
}

/// One write to the accounts' rows. Its serde form is the journal's row record (inside
/// `{"account": …}`). Its `Debug` leaves out password hashes.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AccountWrite {
    /// Creates an account; refused if its id, `name_key` or `skeleton` exists (deleted
    /// accounts keep theirs: a name is never given again).
    Create(AccountRow),
    /// Sets a live account's password hash; refused if there is no such live account.
    SetPassword {
        /// The account.
        account_id: String,
        /// The new hash (a PHC string).
        password_hash: String,
    },
    /// Adds a token; refused if its account does not exist or is deleted, or its id or hash
    /// exists.
    AddToken(TokenRow),
    /// Revokes a token, keeping the first revocation's time; refused if there is no such token.
    RevokeToken {
        /// The token.
        token_id: String,
        /// When, in Unix milliseconds.
        at_ms: i64,
    },
    /// Tokens used: each one's `last_used_ms` becomes the later of the stored one and this
    /// one; unknown ids are ignored.
    TouchTokens(Vec<(String, i64)>),
    /// Deletes an account: `deleted_ms` set, the password hash cleared, every live token
    /// revoked at `at_ms`; refused if there is no such live account.
    Delete {
        /// The account.
        account_id: String,
        /// When, in Unix milliseconds.
        at_ms: i64,
    },
}

// Hand-written `Debug`s: a password's hash and a token's hash are secrets (the hash is
// what a stolen database would be attacked with, and a token's is its lookup key), and a
// `{:?}` may reach a log. They print whether a hash is set, never its bytes.

impl fmt::Debug for AccountRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AccountRow")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("name_key", &self.name_key)
            .field("skeleton", &self.skeleton)
            .field("kind", &self.kind)
            .field("created_ms", &self.created_ms)
            .field("password_hash", &self.password_hash.as_ref().map(|_| Redacted("<set>")))
            .field("deleted_ms", &self.deleted_ms)
            .finish()
    }
}

impl fmt::Debug for TokenRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenRow")
            .field("id", &self.id)
            .field("account_id", &self.account_id)
            .field("hash", &Redacted("<sha-256>"))
            .field("label", &self.label)
            .field("scopes", &self.scopes)
            .field("session", &self.session)
            .field("created_ms", &self.created_ms)
            .field("last_used_ms", &self.last_used_ms)
            .field("revoked_ms", &self.revoked_ms)
            .finish()
    }
}

impl fmt::Debug for AccountWrite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AccountWrite::Create(a) => f.debug_tuple("Create").field(a).finish(),
            AccountWrite::SetPassword { account_id, password_hash: _ } => f
                .debug_struct("SetPassword")
                .field("account_id", account_id)
                .field("password_hash", &Redacted("<set>"))
                .finish(),
            AccountWrite::AddToken(t) => f.debug_tuple("AddToken").field(t).finish(),
            AccountWrite::RevokeToken { token_id, at_ms } => {
                f.debug_struct("RevokeToken").field("token_id", token_id).field("at_ms", at_ms).finish()
            }
            AccountWrite::TouchTokens(t) => f.debug_tuple("TouchTokens").field(t).finish(),
            AccountWrite::Delete { account_id, at_ms } => {
                f.debug_struct("Delete").field("account_id", account_id).field("at_ms", at_ms).finish()
            }
        }
    }
}

/// A placeholder printed in a secret's place, without quotes.
struct Redacted(&'static str);

impl fmt::Debug for Redacted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl AccountWrite {
    /// The id its journal record is filed under: the account's, or the token's for a
    /// revocation, empty for touches (which may name tokens of many accounts).
    pub fn record_id(&self) -> &str {
        match self {
            AccountWrite::Create(a) => &a.id,
            AccountWrite::SetPassword { account_id, .. } | AccountWrite::Delete { account_id, .. } => {
                account_id
            }
            AccountWrite::AddToken(t) => &t.account_id,
            AccountWrite::RevokeToken { token_id, .. } => token_id,
            AccountWrite::TouchTokens(_) => "",
        }
    }

    /// What it is, for errors (no secrets, no names).
    pub(super) fn what(&self) -> String {
        match self {
            AccountWrite::Create(a) => format!("creating account {}", a.id),
            AccountWrite::SetPassword { account_id, .. } => {
                format!("setting the password of account {account_id}")
            }
            AccountWrite::AddToken(t) => format!("adding token {} to account {}", t.id, t.account_id),
            AccountWrite::RevokeToken { token_id, .. } => format!("revoking token {token_id}"),
            AccountWrite::TouchTokens(_) => "touching tokens".to_owned(),
            AccountWrite::Delete { account_id, .. } => format!("deleting account {account_id}"),
        }
    }

    /// Checks the sizes of its texts (the journal's record format holds no longer ones).
    pub(super) fn check(&self) -> Result<(), StoreError> {
        let long = |s: &str| s.len() > super::MAX_TEXT_BYTES;
        let too_long = match self {
            AccountWrite::Create(a) => [&a.id, &a.name, &a.name_key, &a.skeleton].iter().any(|s| long(s)),
            AccountWrite::SetPassword { account_id, password_hash } => {
                long(account_id) || long(password_hash)
            }
            AccountWrite::AddToken(t) => long(&t.id) || long(&t.account_id) || long(&t.label),
            AccountWrite::RevokeToken { token_id, .. } => long(token_id),
            AccountWrite::TouchTokens(touched) => touched.iter().any(|(id, _)| long(id)),
            AccountWrite::Delete { account_id, .. } => long(account_id),
        };
        if too_long {
            return Err(StoreError::Refused(format!(
                "{}: a text longer than {} bytes",
                self.what(),
                super::MAX_TEXT_BYTES
            )));
        }
        Ok(())
    }

    /// Itself in parts whose journal records fit the record format (at most `u16::MAX` bytes
    /// each): only touches are split, by size.
    pub(super) fn in_record_parts(&self) -> Vec<AccountWrite> {
        /// A part's ids and times take about this many bytes at most (well below the format's
        /// limit, with room for JSON's quotes and escapes).
        const PART_BYTES: usize = 16 << 10;
        let AccountWrite::TouchTokens(touched) = self else { return vec![self.clone()] };
        let mut parts = Vec::new();
        let (mut part, mut bytes) = (Vec::new(), 0);
        for (id, at) in touched {
            let size = id.len() + 32;
            if !part.is_empty() && bytes + size > PART_BYTES {
                parts.push(AccountWrite::TouchTokens(std::mem::take(&mut part)));
                bytes = 0;
            }
            part.push((id.clone(), *at));
            bytes += size;
        }
        if !part.is_empty() || parts.is_empty() {
            parts.push(AccountWrite::TouchTokens(part));
        }
        parts
    }
}

/// One of an account's games: its fixed facts, its seats (in join order) and its end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccountGame {
    /// The fixed facts.
    pub game: NewGame,
    /// The taken seats, in join order.
    pub seats: Vec<SeatRow>,
    /// The end, once the game has ended.
    pub finished: Option<Finished>,
}

impl AccountGame {
    /// The cursor of [`Backend::account_games`](super::Backend::account_games) that goes on
    /// after this game in `account_id`'s list: the latest `joined_ms` of its seats (by
    /// `joined_ms`, then seat) and the game's id; `None` if no seat is the account's.
    pub fn cursor(&self, account_id: &str) -> Option<(i64, String)> {
        self.seats
            .iter()
            .filter(|s| s.account_id.as_deref() == Some(account_id))
            .map(|s| (s.joined_ms, s.seat))
            .max()
            .map(|(joined_ms, _)| (joined_ms, self.game.id.clone()))
    }
}

/// The account and token rows changed after a cursor ([`Backend::account_changes`](super::Backend::account_changes)).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AccountChanges {
    /// The accounts created or changed, in change order.
    pub accounts: Vec<AccountRow>,
    /// The tokens added or changed, in change order.
    pub tokens: Vec<TokenRow>,
    /// The largest change seen (the cursor given when nothing changed): the next call's `after`.
    pub cursor: i64,
}

/// The newest seat of an account in each game, newest first: the columns game_id, joined_ms.
/// `?1` the account; `?2`, `?3` the cursor (joined_ms, game id), `?4` the limit. One row per
/// game: the account's latest seat (by joined_ms, then seat) in it, checked against the
/// game's other seats by a scalar subquery (a lookup of its primary key per row: an anti join
/// could be planned as a scan; `coalesce` keeps the planner off `seats_account` there, which
/// would read every seat of the account for each row).
const ACCOUNT_SEATS: &str = "SELECT s.game_id, s.joined_ms FROM seats AS s \
    WHERE s.account_id = ?1 AND s.account_id IS NOT NULL {after} \
    AND (SELECT count(*) FROM seats AS o WHERE o.game_id = s.game_id \
        AND coalesce(o.account_id, '') = s.account_id \
        AND (o.joined_ms > s.joined_ms OR (o.joined_ms = s.joined_ms AND o.seat > s.seat))) = 0 \
    ORDER BY s.joined_ms DESC, s.game_id DESC LIMIT ?4";

/// The cursor's condition in [`ACCOUNT_SEATS`]: strictly after (joined_ms, game id) in its order.
/// (`joined_ms <= ?2` too: a range of the index, where the scan starts.)
const AFTER_CURSOR: &str =
    "AND s.joined_ms <= ?2 AND (s.joined_ms < ?2 OR (s.joined_ms = ?2 AND s.game_id < ?3))";

/// [`ACCOUNT_SEATS`] for a cursor or none; for PostgreSQL with `$n` parameters: `$1` to `$4`
/// with a cursor, `$1` (the account) and `$2` (the limit) without.
pub(super) fn account_seats_sql(cursor: bool, postgres: bool) -> String {
    let sql = ACCOUNT_SEATS.replace("{after}", if cursor { AFTER_CURSOR } else { "" });
    match (postgres, cursor) {
        (false, _) => sql,
        (true, true) => (1..=4).fold(sql, |s, n| s.replace(&format!("?{n}"), &format!("${n}"))),
        // PostgreSQL wants every parameter used: the limit is the second one here.
        (true, false) => sql.replace("?1", "$1").replace("?4", "$2"),
    }
}

/// Creates the tables if missing; adds `seats.account_id` (nullable, no new schema version:
/// older servers ignore it) and its index.
pub(super) fn prepare(conn: &Connection) -> Result<(), StoreError> {
    conn.execute_batch(SCHEMA)?;
    if conn.prepare("SELECT account_id FROM seats LIMIT 0").is_err() {
        conn.execute_batch("ALTER TABLE seats ADD COLUMN account_id TEXT")?;
    }
    conn.execute_batch(
        "CREATE INDEX IF NOT EXISTS seats_account ON seats (account_id, joined_ms) \
         WHERE account_id IS NOT NULL",
    )?;
    Ok(())
}

/// The next value of the change counter.
fn next_change(conn: &Connection) -> Result<i64, StoreError> {
    Ok(conn
        .prepare_cached("UPDATE account_counter SET n = n + 1 RETURNING n")?
        .query_row([], |r| r.get(0))?)
}

/// Applies `w` in the open transaction `conn`; `replay`: a row record applied again at start,
/// where what exists already is left as it is and nothing is refused. The rows changed.
pub(super) fn apply(conn: &Connection, w: &AccountWrite, replay: bool) -> Result<usize, StoreError> {
    let change = next_change(conn)?;
    apply_as(conn, w, replay, change)
}

/// The change counter's value (SQLite's `account_counter` row).
pub(super) fn counter(conn: &Connection) -> Result<i64, StoreError> {
    Ok(conn.prepare_cached("SELECT n FROM account_counter")?.query_row([], |r| r.get(0))?)
}

/// Sets the change counter to `n` (after [`replay`]).
pub(super) fn set_counter(conn: &Connection, n: i64) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE account_counter SET n = ?1")?.execute([n])?;
    Ok(())
}

/// [`apply`] of a row record applied again at start (`replay`), the change counter kept by the
/// caller in `counter` (read with [`counter`], stored with [`set_counter`]): a write that
/// changes a row takes `counter + 1` and advances it; one SQLite already holds (after a crash,
/// every one) costs no write of the counter.
pub(super) fn replay(conn: &Connection, w: &AccountWrite, counter: &mut i64) -> Result<usize, StoreError> {
    let changed = apply_as(conn, w, true, *counter + 1)?;
    if changed > 0 {
        *counter += 1;
    }
    Ok(changed)
}

/// [`apply`] with the change number `change`.
fn apply_as(conn: &Connection, w: &AccountWrite, replay: bool, change: i64) -> Result<usize, StoreError> {
    let context = |e: rusqlite::Error| StoreError::from(e).context(w.what());
    let refused = |why: &str| Err(StoreError::Refused(format!("{}: {why}", w.what())));
    let or_ignore = if replay { "OR IGNORE " } else { "" };
    match w {
        AccountWrite::Create(a) => conn
            .prepare_cached(&format!(
                "INSERT {or_ignore}INTO accounts (id, name, name_key, skeleton, kind, created_ms, \
                 password_hash, deleted_ms, change) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
            ))?
            .execute(params![
                a.id,
                a.name,
                a.name_key,
                a.skeleton,
                a.kind,
                a.created_ms,
                a.password_hash,
                a.deleted_ms,
                change
            ])
            .map_err(context),
        AccountWrite::SetPassword { account_id, password_hash } => {
            let changed = conn
                .prepare_cached(
                    "UPDATE accounts SET password_hash = ?2, change = ?3 \
                     WHERE id = ?1 AND deleted_ms IS NULL AND password_hash IS NOT ?2",
                )?
                .execute(params![account_id, password_hash, change])
                .map_err(context)?;
            if changed == 0 && !replay && !live_account(conn, account_id)? {
                return refused("no such live account");
            }
            Ok(changed)
        }
        AccountWrite::AddToken(t) => {
            let changed = conn
                .prepare_cached(&format!(
                    "INSERT {or_ignore}INTO account_tokens (id, account_id, hash, label, scopes, session, \
                     created_ms, last_used_ms, revoked_ms, change) \
                     SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10 \
                     WHERE EXISTS (SELECT 1 FROM accounts WHERE id = ?2 AND deleted_ms IS NULL)"
                ))?
                .execute(params![
                    t.id,
                    t.account_id,
                    t.hash,
                    t.label,
                    t.scopes,
                    t.session,
                    t.created_ms,
                    t.last_used_ms,
                    t.revoked_ms,
                    change
                ])
                .map_err(context)?;
            if changed == 0 && !replay {
                return refused("no such live account");
            }
            Ok(changed)
        }
        AccountWrite::RevokeToken { token_id, at_ms } => {
            let changed = conn
                .prepare_cached(
                    "UPDATE account_tokens SET revoked_ms = ?2, change = ?3 WHERE id = ?1 AND revoked_ms IS NULL",
                )?
                .execute(params![token_id, at_ms, change])
                .map_err(context)?;
            if changed == 0 && !replay {
                let exists = conn
                    .prepare_cached("SELECT 1 FROM account_tokens WHERE id = ?1")?
                    .query_row([token_id], |_| Ok(()))
                    .optional()?
                    .is_some();
                if !exists {
                    return refused("no such token");
                }
            }
            Ok(changed)
        }
        AccountWrite::TouchTokens(touched) => {
            let mut stmt = conn.prepare_cached(
                "UPDATE account_tokens SET last_used_ms = ?2, change = ?3 WHERE id = ?1 AND last_used_ms < ?2",
            )?;
            let mut changed = 0;
            for (id, at_ms) in touched {
                changed += stmt.execute(params![id, at_ms, change]).map_err(context)?;
            }
            Ok(changed)
        }
        AccountWrite::Delete { account_id, at_ms } => {
            let changed = conn
                .prepare_cached(
                    "UPDATE accounts SET deleted_ms = ?2, password_hash = NULL, change = ?3 \
                     WHERE id = ?1 AND deleted_ms IS NULL",
                )?
                .execute(params![account_id, at_ms, change])
                .map_err(context)?;
            if changed == 0 && !replay {
                return refused("no such live account");
            }
            let revoked = conn
                .prepare_cached(
                    "UPDATE account_tokens SET revoked_ms = ?2, change = ?3 \
                     WHERE account_id = ?1 AND revoked_ms IS NULL",
                )?
                .execute(params![account_id, at_ms, change])
                .map_err(context)?;
            Ok(changed + revoked)
        }
    }
}

/// Whether the live (not deleted) account `id` exists.
fn live_account(conn: &Connection, id: &str) -> Result<bool, StoreError> {
    Ok(conn
        .prepare_cached("SELECT 1 FROM accounts WHERE id = ?1 AND deleted_ms IS NULL")?
        .query_row([id], |_| Ok(()))
        .optional()?
        .is_some())
}

/// The account columns read back, in this order.
pub(super) const ACCOUNT_COLUMNS: &str =
    "id, name, name_key, skeleton, kind, created_ms, password_hash, deleted_ms, change";
/// The token columns read back, in this order.
pub(super) const TOKEN_COLUMNS: &str =
    "id, account_id, hash, label, scopes, session, created_ms, last_used_ms, revoked_ms, change";

/// An account from a row of [`ACCOUNT_COLUMNS`], with its change.
fn account_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<(AccountRow, i64)> {
    Ok((
        AccountRow {
            id: r.get(0)?,
            name: r.get(1)?,
            name_key: r.get(2)?,
            skeleton: r.get(3)?,
            kind: r.get(4)?,
            created_ms: r.get(5)?,
            password_hash: r.get(6)?,
            deleted_ms: r.get(7)?,
        },
        r.get(8)?,
    ))
}

/// A token from a row of [`TOKEN_COLUMNS`], with its change.
fn token_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<(TokenRow, i64)> {
    Ok((
        TokenRow {
            id: r.get(0)?,
            account_id: r.get(1)?,
            hash: r.get(2)?,
            label: r.get(3)?,
            scopes: r.get(4)?,
            session: r.get(5)?,
            created_ms: r.get(6)?,
            last_used_ms: r.get(7)?,
            revoked_ms: r.get(8)?,
        },
        r.get(9)?,
    ))
}

/// The accounts and tokens changed after `after` (all of them for `after` below every change),
/// in change order.
pub(super) fn changes(conn: &Connection, after: i64) -> Result<AccountChanges, StoreError> {
    let mut out = AccountChanges { cursor: after, ..AccountChanges::default() };
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE change > ?1 ORDER BY change"
    ))?;
    for row in stmt.query_map([after], account_row)? {
        let (a, change) = row?;
        out.cursor = out.cursor.max(change);
        out.accounts.push(a);
    }
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {TOKEN_COLUMNS} FROM account_tokens WHERE change > ?1 ORDER BY change"
    ))?;
    for row in stmt.query_map([after], token_row)? {
        let (t, change) = row?;
        out.cursor = out.cursor.max(change);
        out.tokens.push(t);
    }
    Ok(out)
}

/// The ids of the games of `account_id` (each with its latest seat's joined_ms), newest first,
/// strictly after `before`, at most `limit`.
pub(super) fn account_game_ids(
    conn: &Connection,
    account_id: &str,
    before: Option<&(i64, String)>,
    limit: usize,
) -> Result<Vec<String>, StoreError> {
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let mut stmt = conn.prepare_cached(&account_seats_sql(before.is_some(), false))?;
    let (joined, game) = match before {
        Some((j, g)) => (Some(*j), Some(g.as_str())),
        None => (None, None),
    };
    let rows = stmt.query_map(params![account_id, joined, game, limit], |r| r.get::<_, String>(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

#[cfg(test)]
mod debug_tests {
    use super::*;

    #[test]
    fn debug_never_prints_a_hash() {
        let account = AccountRow {
            id: "a1".into(),
            name: "Ann".into(),
            name_key: "ann".into(),
            skeleton: "ann".into(),
            kind: KIND_PERSON,
            created_ms: 1,
            password_hash: Some("$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$SECRETHASH".into()),
            deleted_ms: None,
        };
        let shown = format!("{account:?}");
        assert!(!shown.contains("SECRETHASH") && !shown.contains("argon2"), "{shown}");
        assert!(shown.contains("password_hash: Some(<set>)") && shown.contains("\"Ann\""), "{shown}");
        let none = format!("{:?}", AccountRow { password_hash: None, ..account.clone() });
        assert!(none.contains("password_hash: None"), "{none}");

        let token = TokenRow {
            id: "t1".into(),
            account_id: "a1".into(),
            hash: [0x5a; 32],
            label: "laptop".into(),
            scopes: 3,
            session: false,
            created_ms: 1,
            last_used_ms: 2,
            revoked_ms: None,
        };
        let shown = format!("{token:?} {token:#?}");
        // Neither the bytes (90, 90, …) nor hex.
        assert!(!shown.contains("90") && !shown.to_lowercase().contains("5a5a"), "{shown}");
        assert!(shown.contains("hash: <sha-256>") && shown.contains("\"laptop\""), "{shown}");

        let writes = format!(
            "{:?}",
            [
                AccountWrite::Create(account),
                AccountWrite::AddToken(token),
                AccountWrite::SetPassword { account_id: "a1".into(), password_hash: "$NEWSECRET".into() },
            ]
        );
        assert!(!writes.contains("SECRET") && !writes.contains("90"), "{writes}");
    }
}
