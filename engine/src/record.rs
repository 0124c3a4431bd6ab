//! Game records: the setup (rules, seed, decks) and every action, as JSON or a compact text
//! form. Replaying a record with the engine gives the identical result.
//!
//! The text form, one item a line (`#` starts a comment):
//!
//! ```text
//! gin-record 1
//! rules {"name":"standard",...}      the rule set as one line of JSON
//! seed 42
//! first-dealer 1                     optional
//! deck KS 4S TD ...                  optional, one line per explicit deck, in order
//! 1 pass                             then one action a line: seat, then the action
//! 0 stock
//! 0 discard 7S
//! result {"stages":[...],...}        optional: the result the recorder saw
//! ```

use serde::{Deserialize, Serialize};

use crate::game::{Game, GameError, GameResult, GameSetup};
use crate::hand::Action;
use crate::seat::Seat;

/// One action of a record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedAction {
    /// Who acted.
    pub seat: Seat,
    /// What it did.
    pub action: Action,
}

/// A whole game, replayable.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameRecord {
    /// Record format version (1).
    pub version: u32,
    /// How the game was set up.
    pub setup: GameSetup,
    /// Every accepted action, in order.
    pub actions: Vec<RecordedAction>,
    /// The result as recorded (checked on replay when present).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<GameResult>,
}

/// Why a record did not replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayError {
    /// The record could not be read.
    Parse(String),
    /// The setup was refused.
    Setup(GameError),
    /// An action was refused.
    BadAction {
        /// Index of the first bad action (0-based).
        index: usize,
        /// Its seat.
        seat: Seat,
        /// The action.
        action: Action,
        /// Why it was refused.
        error: GameError,
    },
    /// The actions replayed, but the result differs from the recorded one.
    ResultMismatch,
}

impl std::fmt::Display for ReplayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplayError::Parse(e) => write!(f, "cannot read record: {e}"),
            ReplayError::Setup(e) => write!(f, "bad setup: {e}"),
            ReplayError::BadAction { index, seat, action, error } => {
                write!(f, "action #{} (seat {seat}: {action}) is illegal: {error}", index + 1)
            }
            ReplayError::ResultMismatch => {
                f.write_str("the replayed result differs from the recorded result")
            }
        }
    }
}

impl std::error::Error for ReplayError {}

impl Game {
    /// The record of this game so far (with its result once over).
    pub fn record(&self) -> GameRecord {
        GameRecord {
            version: 1,
            setup: self.setup().clone(),
            actions: self
                .actions()
                .iter()
                .map(|(seat, action)| RecordedAction { seat: *seat, action: action.clone() })
                .collect(),
            result: self.result().cloned(),
        }
    }
}

impl GameRecord {
    /// Replays every action; checks the recorded result when there is one.
    pub fn replay(&self) -> Result<Game, ReplayError> {
        let mut g = Game::new(self.setup.clone()).map_err(ReplayError::Setup)?;
        for (index, a) in self.actions.iter().enumerate() {
            g.apply(a.seat, &a.action).map_err(|error| ReplayError::BadAction {
                index,
                seat: a.seat,
                action: a.action.clone(),
                error,
            })?;
        }
        if let Some(want) = &self.result
            && g.result() != Some(want)
        {
            return Err(ReplayError::ResultMismatch);
        }
        Ok(g)
    }

    /// As pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a record always serializes")
    }

    /// From JSON.
    pub fn from_json(text: &str) -> Result<GameRecord, ReplayError> {
        serde_json::from_str(text).map_err(|e| ReplayError::Parse(e.to_string()))
    }

    /// As the compact text form (see the module docs).
    pub fn to_text(&self) -> String {
        let mut out = format!("gin-record {}\n", self.version);
        out += &format!("rules {}\n", serde_json::to_string(&self.setup.rules).expect("rules serialize"));
        out += &format!("seed {}\n", self.setup.seed);
        if let Some(d) = self.setup.first_dealer {
            out += &format!("first-dealer {d}\n");
        }
        for d in &self.setup.decks {
            out += &format!("deck {d}\n");
        }
        for a in &self.actions {
            out += &format!("{} {}\n", a.seat, a.action);
        }
        if let Some(r) = &self.result {
            out += &format!("result {}\n", serde_json::to_string(r).expect("result serializes"));
        }
        out
    }

    /// From the compact text form.
    pub fn from_text(text: &str) -> Result<GameRecord, ReplayError> {
        let perr = |line: usize, msg: String| ReplayError::Parse(format!("line {}: {msg}", line + 1));
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i, l.trim()))
            .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
        let version = match lines.next() {
            Some((_, l)) if l.starts_with("gin-record ") => {
                l["gin-record ".len()..].trim().parse::<u32>().map_err(|e| perr(0, e.to_string()))?
            }
            _ => return Err(ReplayError::Parse("the first line must be `gin-record 1`".into())),
        };
        let mut rules = None;
        let mut seed = None;
        let mut first_dealer = None;
        let mut decks = Vec::new();
        let mut actions = Vec::new();
        let mut result = None;
        for (i, line) in lines {
            let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
            match word {
                "rules" => {
                    rules = Some(crate::rules::RuleSet::from_json(rest).map_err(|e| perr(i, e.to_string()))?)
                }
                "seed" => seed = Some(rest.trim().parse::<u64>().map_err(|e| perr(i, format!("seed: {e}")))?),
                "first-dealer" => {
                    let n = rest.trim().parse::<u8>().map_err(|e| perr(i, e.to_string()))?;
                    first_dealer = Some(Seat::try_from(n).map_err(|e| perr(i, e))?);
                }
                "deck" => {
                    decks.push(rest.parse().map_err(|e: crate::deal::DeckError| perr(i, e.to_string()))?)
                }
                "result" => result = Some(serde_json::from_str(rest).map_err(|e| perr(i, e.to_string()))?),
                "0" | "1" => {
                    let seat = Seat::try_from(word.parse::<u8>().unwrap_or(0)).map_err(|e| perr(i, e))?;
                    let action = rest.parse::<Action>().map_err(|e| perr(i, e.to_string()))?;
                    actions.push(RecordedAction { seat, action });
                }
                _ => return Err(perr(i, format!("unknown line {word:?}"))),
            }
        }
        let rules = rules.ok_or_else(|| ReplayError::Parse("missing `rules` line".into()))?;
        let seed = seed.ok_or_else(|| ReplayError::Parse("missing `seed` line".into()))?;
        Ok(GameRecord { version, setup: GameSetup { rules, seed, decks, first_dealer }, actions, result })
    }

    /// Reads JSON or the text form (by the first non-blank character).
    pub fn parse(text: &str) -> Result<GameRecord, ReplayError> {
        if text.trim_start().starts_with('{') {
            GameRecord::from_json(text)
        } else {
            GameRecord::from_text(text)
        }
    }
}
