//! Records of a table of any format: the setup (format, seed, explicit decks, first dealer)
//! and every move, as JSON or a compact text form; replaying gives the identical table.
//! A two-player gin record ([`GameRecord`], `gin-record 1`) reads as one too.
//!
//! The text form, one item a line (`#` starts a comment):
//!
//! ```text
//! table-record 2
//! format {"kind":"rummy","players":4,...}   the format as one line of JSON
//! seed 42
//! first-dealer 1                            optional
//! deck KS 4S TD ...                         optional, one line per explicit deck, in order
//! 1 stock                                   then one move a line: seat, then the move
//! 1 meld 7C 7D 7H
//! 1 layoff 8C 0
//! 1 discard 2S
//! result {"totals":[...],...}               optional: the result the recorder saw
//! ```

use serde::{Deserialize, Serialize};

use crate::format::Format;
use crate::record::GameRecord;
use crate::table::{Move, Table, TableError, TableResult, TableSetup};

/// The record format version of [`TableRecord`].
pub const TABLE_RECORD_VERSION: u32 = 2;

/// One move of a record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedMove {
    /// Who moved.
    pub seat: u8,
    /// The move.
    #[serde(rename = "move")]
    pub action: Move,
}

/// A whole table, replayable.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableRecord {
    /// Record format version (2).
    pub version: u32,
    /// How the table was set up.
    pub setup: TableSetup,
    /// Every accepted move, in order.
    pub moves: Vec<RecordedMove>,
    /// The result as recorded (checked on replay when present).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<TableResult>,
}

/// Why a record did not replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TableReplayError {
    /// The record could not be read.
    Parse(String),
    /// The setup was refused.
    Setup(TableError),
    /// A move was refused.
    BadMove {
        /// Index of the first bad move (0-based).
        index: usize,
        /// Its seat.
        seat: u8,
        /// The move.
        action: Move,
        /// Why it was refused.
        error: TableError,
    },
    /// The moves replayed, but the result differs from the recorded one.
    ResultMismatch,
}

impl std::fmt::Display for TableReplayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TableReplayError::Parse(e) => write!(f, "cannot read record: {e}"),
            TableReplayError::Setup(e) => write!(f, "bad setup: {e}"),
            TableReplayError::BadMove { index, seat, action, error } => {
                write!(f, "move #{} (seat {seat}: {action}) is illegal: {error}", index + 1)
            }
            TableReplayError::ResultMismatch => {
                f.write_str("the replayed result differs from the recorded result")
            }
        }
    }
}

impl std::error::Error for TableReplayError {}

impl Table {
    /// The record of this table so far (with its result once over).
    pub fn record(&self) -> TableRecord {
        TableRecord {
            version: TABLE_RECORD_VERSION,
            setup: self.setup(),
            moves: self.moves().into_iter().map(|(seat, action)| RecordedMove { seat, action }).collect(),
            result: self.result(),
        }
    }
}

impl TableRecord {
    /// Replays every move; checks the recorded result when there is one.
    pub fn replay(&self) -> Result<Table, TableReplayError> {
        let mut t = Table::new(self.setup.clone()).map_err(TableReplayError::Setup)?;
        for (index, m) in self.moves.iter().enumerate() {
            t.apply(m.seat, &m.action).map_err(|error| TableReplayError::BadMove {
                index,
                seat: m.seat,
                action: m.action.clone(),
                error,
            })?;
        }
        if let Some(want) = &self.result
            && t.result().as_ref() != Some(want)
        {
            return Err(TableReplayError::ResultMismatch);
        }
        Ok(t)
    }

    /// As pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a record always serializes")
    }

    /// As the compact text form (see the module docs).
    pub fn to_text(&self) -> String {
        let mut out = format!("table-record {}\n", self.version);
        out += &format!("format {}\n", self.setup.format.to_value());
        out += &format!("seed {}\n", self.setup.seed);
        if let Some(d) = self.setup.first_dealer {
            out += &format!("first-dealer {d}\n");
        }
        for d in &self.setup.decks {
            out += &format!("deck {d}\n");
        }
        for m in &self.moves {
            out += &format!("{} {}\n", m.seat, m.action);
        }
        if let Some(r) = &self.result {
            out += &format!("result {}\n", serde_json::to_string(r).expect("result serializes"));
        }
        out
    }

    /// From the compact text form.
    pub fn from_text(text: &str) -> Result<TableRecord, TableReplayError> {
        let perr = |line: usize, msg: String| TableReplayError::Parse(format!("line {}: {msg}", line + 1));
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i, l.trim()))
            .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
        let version = match lines.next() {
            Some((i, l)) if l.starts_with("table-record ") => {
                l["table-record ".len()..].trim().parse::<u32>().map_err(|e| perr(i, e.to_string()))?
            }
            _ => return Err(TableReplayError::Parse("the first line must be `table-record 2`".into())),
        };
        let mut format = None;
        let mut seed = None;
        let mut first_dealer = None;
        let mut decks = Vec::new();
        let mut moves = Vec::new();
        let mut result = None;
        for (i, line) in lines {
            let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
            match word {
                "format" => format = Some(Format::parse_any(rest).map_err(|e| perr(i, e.to_string()))?),
                "seed" => seed = Some(rest.trim().parse::<u64>().map_err(|e| perr(i, format!("seed: {e}")))?),
                "first-dealer" => {
                    first_dealer = Some(rest.trim().parse::<u8>().map_err(|e| perr(i, e.to_string()))?)
                }
                "deck" => {
                    decks.push(rest.parse().map_err(|e: crate::deal::DeckError| perr(i, e.to_string()))?)
                }
                "result" => result = Some(serde_json::from_str(rest).map_err(|e| perr(i, e.to_string()))?),
                w if w.parse::<u8>().is_ok() => {
                    let seat = w.parse::<u8>().expect("checked");
                    let action = rest.parse::<Move>().map_err(|e| perr(i, e.to_string()))?;
                    moves.push(RecordedMove { seat, action });
                }
                _ => return Err(perr(i, format!("unknown line {word:?}"))),
            }
        }
        let format = format.ok_or_else(|| TableReplayError::Parse("missing `format` line".into()))?;
        let seed = seed.ok_or_else(|| TableReplayError::Parse("missing `seed` line".into()))?;
        Ok(TableRecord { version, setup: TableSetup { format, seed, decks, first_dealer }, moves, result })
    }

    /// Reads a record of any format: JSON or text, this version or a two-player gin record
    /// (version 1; its recorded result is checked by the gin replay, then dropped).
    pub fn parse(text: &str) -> Result<TableRecord, TableReplayError> {
        let t = text.trim_start();
        if t.starts_with("gin-record") {
            return TableRecord::from_gin(
                GameRecord::from_text(text).map_err(|e| TableReplayError::Parse(e.to_string()))?,
            );
        }
        if t.starts_with('{') {
            let v: serde_json::Value =
                serde_json::from_str(t).map_err(|e| TableReplayError::Parse(e.to_string()))?;
            if v.get("version").and_then(|x| x.as_u64()) == Some(1) {
                let g: GameRecord =
                    serde_json::from_value(v).map_err(|e| TableReplayError::Parse(e.to_string()))?;
                return TableRecord::from_gin(g);
            }
            return serde_json::from_value(v).map_err(|e| TableReplayError::Parse(e.to_string()));
        }
        TableRecord::from_text(text)
    }

    /// A two-player gin record as a table record (its result checked by a replay first).
    pub fn from_gin(g: GameRecord) -> Result<TableRecord, TableReplayError> {
        let game = g.replay().map_err(|e| TableReplayError::Parse(format!("gin record: {e}")))?;
        let table = Table::Gin(game);
        let GameRecord { setup, .. } = g;
        let moves = table.moves().into_iter().map(|(seat, action)| RecordedMove { seat, action }).collect();
        Ok(TableRecord {
            version: TABLE_RECORD_VERSION,
            setup: TableSetup {
                format: Format::Gin(setup.rules),
                seed: setup.seed,
                decks: setup.decks,
                first_dealer: setup.first_dealer.map(u8::from),
            },
            moves,
            result: table.result(),
        })
    }
}
