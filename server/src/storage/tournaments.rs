//! The tournaments' rows: a tournament (its spec, opaque here), its entrants (a name and the
//! hash of the entrant's token) and its booked games (seats by entrant, the deal, the result).
//! They are written by the store's writer like the games' rows: in its group commits, made
//! durable by the journal as row records (`{"tournament": …}`, since 2026-11-24), applied to
//! SQLite without a sync of their own, applied again at start from the journal.
//!
//! No seat token is stored: a booked game's `token0`/`token1` columns (from when they held
//! the tokens in plain text) are always `''`, and blanked at open in databases written before.

use rusqlite::{Connection, params};
use serde::{Deserialize, Serialize};

use super::StoreError;

pub(super) const SCHEMA: &str = "
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
    account_id    TEXT,
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
    -- Tables (more than two seats, or a table's places): JSON arrays; NULL for two-player
    -- gin, whose seats, totals and winner are the columns above.
    seats         TEXT,
    totals        TEXT,
    places        TEXT,
    PRIMARY KEY (tournament_id, number)
) WITHOUT ROWID;
";

const INSERT_TOURNAMENT: &str =
    "INSERT INTO tournaments (id, spec, created_ms, status, fixed_deals) VALUES (?1, ?2, ?3, ?4, ?5)";
const INSERT_ENTRANT: &str = "INSERT INTO tournament_entrants (tournament_id, idx, name, token_hash, account_id) VALUES (?1, ?2, ?3, ?4, ?5)";
const UPDATE_STATUS: &str = "UPDATE tournaments SET status = ?2 WHERE id = ?1";
const INSERT_BOOKED: &str = "INSERT INTO tournament_games \
    (tournament_id, number, round, game_id, seat0, seat1, token0, token1, deal_seed, done, seats) \
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, '', '', ?7, 0, ?8)";
const UPDATE_RESULT: &str = "UPDATE tournament_games SET done = 1, winner = ?3, total0 = ?4, total1 = ?5, \
    totals = ?6, places = ?7 WHERE tournament_id = ?1 AND number = ?2";

/// A new tournament's row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewTournament {
    /// The tournament's id (unique).
    pub id: String,
    /// Its spec, as the server encodes it (opaque here).
    pub spec: Vec<u8>,
    /// When it was created, in Unix milliseconds.
    pub created_ms: i64,
    /// Its status (the server's encoding).
    pub status: i32,
    /// Its creator chose the seed.
    pub fixed_deals: bool,
}

/// An entrant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntrantRow {
    /// Its number in the tournament (0, 1, 2…: the order of entry).
    pub idx: u32,
    /// Its name.
    pub name: String,
    /// SHA-256 of its entrant token.
    pub token_hash: [u8; 32],
    /// The account it entered as (signed in), if any (since 2026-11-28: a nullable column; a
    /// record before it has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account_id: Option<String>,
}

/// A booked game of a tournament (the game itself is a game's rows).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BookedRow {
    /// Its number in the tournament (unique there).
    pub number: u32,
    /// The round it belongs to.
    pub round: u32,
    /// The game's id.
    pub game_id: String,
    /// The entrant in each seat (two, or a table's).
    pub seats: Vec<u32>,
    /// The deal seed.
    pub deal_seed: u64,
}

/// A booked game's result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultRow {
    /// The game's number in the tournament.
    pub number: u32,
    /// The winning seat (`None`: a draw, or at a table a shared first place).
    pub winner: Option<u32>,
    /// Each seat's total (signed at tables).
    pub totals: Vec<i64>,
    /// Tables: each seat's place, 1 the best (empty for two-player gin).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub places: Vec<u32>,
}

/// A list as its JSON column: `None` (NULL) for two-player gin's two seats and no places.
fn json_column<T: Serialize>(v: &[T], two_player: bool) -> Option<String> {
    (!two_player).then(|| serde_json::to_string(v).expect("numbers serialize"))
}

/// A JSON column read back (`None`: NULL).
fn from_json_column<T: for<'de> Deserialize<'de>>(
    text: Option<String>,
    what: &str,
) -> Result<Option<Vec<T>>, rusqlite::Error> {
    text.map(|t| {
        serde_json::from_str(&t).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(
                0,
                rusqlite::types::Type::Text,
                format!("{what}: {e}").into(),
            )
        })
    })
    .transpose()
}

/// One write to a tournament's rows. Its serde form is the journal's row record (inside
/// `{"tournament": …}`): a field added later needs a default.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TournamentWrite {
    /// Creates a tournament; refused if the id exists.
    Create(NewTournament),
    /// Adds an entrant; refused if the tournament does not exist or the number is taken.
    Entrant {
        /// The tournament.
        tournament_id: String,
        /// The entrant.
        entrant: EntrantRow,
    },
    /// Sets a tournament's status.
    Status {
        /// The tournament.
        tournament_id: String,
        /// The status (the server's encoding).
        status: i32,
    },
    /// Books a game; refused if the tournament does not exist or the number is taken.
    Book {
        /// The tournament.
        tournament_id: String,
        /// The game.
        game: BookedRow,
    },
    /// Records a booked game's result.
    Result {
        /// The tournament.
        tournament_id: String,
        /// The result.
        result: ResultRow,
    },
}

impl TournamentWrite {
    /// The tournament written to.
    pub fn tournament_id(&self) -> &str {
        match self {
            TournamentWrite::Create(t) => &t.id,
            TournamentWrite::Entrant { tournament_id, .. }
            | TournamentWrite::Status { tournament_id, .. }
            | TournamentWrite::Book { tournament_id, .. }
            | TournamentWrite::Result { tournament_id, .. } => tournament_id,
        }
    }
}

/// Everything stored about one tournament.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredTournament {
    /// Its row.
    pub tournament: NewTournament,
    /// Its entrants, by number.
    pub entrants: Vec<EntrantRow>,
    /// Its booked games, by number, with their results once known.
    pub games: Vec<(BookedRow, Option<ResultRow>)>,
}

/// Creates the tables if missing; adds `fixed_deals` to a table made before it; blanks the
/// seat tokens older servers stored in plain text (zeroed in the file: `secure_delete` is on
/// for that one statement).
pub(super) fn prepare(conn: &Connection) -> Result<(), StoreError> {
    conn.execute_batch(SCHEMA)?;
    if conn.prepare("SELECT fixed_deals FROM tournaments LIMIT 0").is_err() {
        conn.execute_batch("ALTER TABLE tournaments ADD COLUMN fixed_deals INTEGER NOT NULL DEFAULT 0")?;
    }
    if conn.prepare("SELECT account_id FROM tournament_entrants LIMIT 0").is_err() {
        conn.execute_batch("ALTER TABLE tournament_entrants ADD COLUMN account_id TEXT")?;
    }
    if conn.prepare("SELECT seats FROM tournament_games LIMIT 0").is_err() {
        conn.execute_batch(
            "ALTER TABLE tournament_games ADD COLUMN seats TEXT; \
             ALTER TABLE tournament_games ADD COLUMN totals TEXT; \
             ALTER TABLE tournament_games ADD COLUMN places TEXT;",
        )?;
    }
    let stored: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM tournament_games WHERE token0 <> '' OR token1 <> '')",
        [],
        |r| r.get(0),
    )?;
    if stored {
        conn.pragma_update(None, "secure_delete", "ON")?;
        conn.execute(
            "UPDATE tournament_games SET token0 = '', token1 = '' WHERE token0 <> '' OR token1 <> ''",
            [],
        )?;
        conn.pragma_update(None, "secure_delete", "OFF")?;
    }
    Ok(())
}

/// Applies `w` in the open transaction `conn`; `replay`: a row record applied again at start,
/// where what exists already is left as it is.
pub(super) fn apply(conn: &Connection, w: &TournamentWrite, replay: bool) -> Result<usize, StoreError> {
    let insert = |sql: &str| {
        if replay { sql.replacen("INSERT INTO", "INSERT OR IGNORE INTO", 1) } else { sql.to_owned() }
    };
    let context =
        |e: rusqlite::Error| StoreError::from(e).context(format!("tournament {}", w.tournament_id()));
    let changed = match w {
        TournamentWrite::Create(t) => conn.prepare_cached(&insert(INSERT_TOURNAMENT))?.execute(params![
            t.id,
            t.spec,
            t.created_ms,
            t.status,
            t.fixed_deals
        ]),
        TournamentWrite::Entrant { tournament_id, entrant: e } => conn
            .prepare_cached(&insert(INSERT_ENTRANT))?
            .execute(params![tournament_id, e.idx, e.name, e.token_hash, e.account_id]),
        TournamentWrite::Status { tournament_id, status } => {
            conn.prepare_cached(UPDATE_STATUS)?.execute(params![tournament_id, status])
        }
        TournamentWrite::Book { tournament_id, game: g } => {
            conn.prepare_cached(&insert(INSERT_BOOKED))?.execute(params![
                tournament_id,
                g.number,
                g.round,
                g.game_id,
                g.seats.first().copied().unwrap_or(0),
                g.seats.get(1).copied().unwrap_or(0),
                g.deal_seed as i64,
                json_column(&g.seats, g.seats.len() == 2)
            ])
        }
        TournamentWrite::Result { tournament_id, result: r } => {
            conn.prepare_cached(UPDATE_RESULT)?.execute(params![
                tournament_id,
                r.number,
                r.winner,
                r.totals.first().copied().unwrap_or(0),
                r.totals.get(1).copied().unwrap_or(0),
                json_column(&r.totals, r.places.is_empty() && r.totals.len() == 2),
                json_column(&r.places, r.places.is_empty()),
            ])
        }
    }
    .map_err(context)?;
    let updates = matches!(w, TournamentWrite::Status { .. } | TournamentWrite::Result { .. });
    if updates && changed == 0 && !replay {
        return Err(StoreError::Refused(format!(
            "tournament {}: no such tournament or game",
            w.tournament_id()
        )));
    }
    Ok(changed)
}

/// Every tournament, in creation order, with its entrants and games.
pub(super) fn load(conn: &Connection) -> Result<Vec<StoredTournament>, StoreError> {
    let mut out = Vec::new();
    let mut stmt = conn
        .prepare("SELECT id, spec, created_ms, status, fixed_deals FROM tournaments ORDER BY created_ms")?;
    let rows = stmt.query_map([], |r| {
        Ok(NewTournament {
            id: r.get(0)?,
            spec: r.get(1)?,
            created_ms: r.get(2)?,
            status: r.get(3)?,
            fixed_deals: r.get(4)?,
        })
    })?;
    for t in rows {
        out.push(StoredTournament { tournament: t?, entrants: Vec::new(), games: Vec::new() });
    }
    let mut entrants = conn.prepare(
        "SELECT idx, name, token_hash, account_id FROM tournament_entrants WHERE tournament_id = ?1 ORDER BY idx",
    )?;
    let mut games = conn.prepare(
        "SELECT number, round, game_id, seat0, seat1, deal_seed, done, winner, total0, total1, \
         seats, totals, places FROM tournament_games WHERE tournament_id = ?1 ORDER BY number",
    )?;
    for t in &mut out {
        let id = &t.tournament.id;
        for e in entrants.query_map([id], |r| {
            let hash: Vec<u8> = r.get(2)?;
            Ok((r.get(0)?, r.get(1)?, hash, r.get(3)?))
        })? {
            let (idx, name, hash, account_id) = e?;
            let token_hash = <[u8; 32]>::try_from(hash)
                .map_err(|_| StoreError::Corrupt(format!("tournament {id}: an entrant's token hash")))?;
            t.entrants.push(EntrantRow { idx, name, token_hash, account_id });
        }
        for g in games.query_map([id], |r| {
            let seats = from_json_column(r.get(10)?, "seats")?;
            let booked = BookedRow {
                number: r.get(0)?,
                round: r.get(1)?,
                game_id: r.get(2)?,
                seats: match seats {
                    Some(s) => s,
                    None => vec![r.get(3)?, r.get(4)?],
                },
                deal_seed: r.get::<_, i64>(5)? as u64,
            };
            let result = if r.get::<_, i64>(6)? != 0 {
                let totals = match from_json_column(r.get(11)?, "totals")? {
                    Some(t) => t,
                    None => vec![
                        r.get::<_, Option<i64>>(8)?.unwrap_or(0),
                        r.get::<_, Option<i64>>(9)?.unwrap_or(0),
                    ],
                };
                let places = from_json_column(r.get(12)?, "places")?.unwrap_or_default();
                Some(ResultRow { number: booked.number, winner: r.get(7)?, totals, places })
            } else {
                None
            };
            Ok((booked, result))
        })? {
            t.games.push(g?);
        }
    }
    Ok(out)
}
