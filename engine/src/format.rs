//! [`Format`]: the game kind, the table size and every number, as data. One document names
//! its `kind` and gives that kind's fields; a document without `kind` is a two-player gin
//! [`RuleSet`], as before.
//!
//! ```
//! use engine::{Format, Kind};
//! let f = Format::parse_any("kind = \"three-player\"\nbase = \"oklahoma\"").unwrap();
//! assert_eq!((f.kind(), f.players()), (Kind::ThreePlayer, 3));
//! let f = Format::parse_any("kind = \"rummy\"\nplayers = 5\nace_high = true").unwrap();
//! assert_eq!(f.players(), 5);
//! let e = Format::preset("teams").unwrap().with_players(5).unwrap_err();
//! assert!(e.to_string().contains("two teams of two"));
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::gin7::Gin7Rules;
use crate::rules::{PRESETS, RuleSet, RuleSetError};
use crate::rummy::RummyRules;

/// The game kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Kind {
    /// Two-player gin (every gin preset).
    #[serde(rename = "gin")]
    Gin,
    /// Gin for three: the dealer sits out, the loser deals next (seed 000).
    #[serde(rename = "three-player")]
    ThreePlayer,
    /// Gin for four in two teams, two tables at once (seed 000).
    #[serde(rename = "teams")]
    Teams,
    /// Gin for 3 to 6 at one table, 7 cards each (seed 002).
    #[serde(rename = "gin-7")]
    Gin7,
    /// Basic rummy for 2 to 6 (seed 003).
    #[serde(rename = "rummy")]
    Rummy,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 5] = [Kind::Gin, Kind::ThreePlayer, Kind::Teams, Kind::Gin7, Kind::Rummy];

    /// The kind's name in documents and on command lines.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Gin => "gin",
            Kind::ThreePlayer => "three-player",
            Kind::Teams => "teams",
            Kind::Gin7 => "gin-7",
            Kind::Rummy => "rummy",
        }
    }

    /// The kind called `name`.
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The table sizes the kind is played at.
    pub fn players(self) -> std::ops::RangeInclusive<u8> {
        match self {
            Kind::Gin => 2..=2,
            Kind::ThreePlayer => 3..=3,
            Kind::Teams => 4..=4,
            Kind::Gin7 => 3..=6,
            Kind::Rummy => 2..=6,
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A game's format: its kind with that kind's rules (table size included).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "serde_json::Value", try_from = "serde_json::Value")]
pub enum Format {
    /// Two-player gin.
    Gin(RuleSet),
    /// Three players, rotating; every hand under these two-player rules.
    ThreePlayer(RuleSet),
    /// Four in two teams; every hand under these two-player rules.
    Teams(RuleSet),
    /// Gin for 3 to 6 at one table.
    Gin7(Gin7Rules),
    /// Basic rummy.
    Rummy(RummyRules),
}

/// The format presets beyond the two-player gin presets ([`PRESETS`]).
pub const FORMAT_PRESETS: [&str; 4] = ["three-player", "teams", "gin-7", "rummy"];

/// Why a format was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatError {
    /// The field at fault (empty: the whole document).
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "format: {}", self.message)
        } else {
            write!(f, "format field `{}`: {}", self.field, self.message)
        }
    }
}

impl std::error::Error for FormatError {}

impl From<RuleSetError> for FormatError {
    fn from(e: RuleSetError) -> FormatError {
        FormatError { field: e.field, message: e.message }
    }
}

fn ferr(field: &str, message: impl Into<String>) -> FormatError {
    FormatError { field: field.into(), message: message.into() }
}

impl Default for Format {
    fn default() -> Format {
        Format::Gin(RuleSet::standard())
    }
}

impl Format {
    /// A named preset: a two-player gin preset (`standard`, …), or `three-player` and
    /// `teams` (on `standard`'s numbers), `gin-7` (gin for 4 at one table, 7 cards each, to
    /// 100 points won), or `rummy` (basic rummy for 4, to 150).
    pub fn preset(name: &str) -> Result<Format, FormatError> {
        Ok(match name {
            "three-player" => Format::ThreePlayer(RuleSet { name: name.into(), ..RuleSet::standard() }),
            "teams" => Format::Teams(RuleSet { name: name.into(), ..RuleSet::standard() }),
            "gin-7" => Format::Gin7(Gin7Rules::default()),
            "rummy" => Format::Rummy(RummyRules::for_players(4).expect("4 players is a rummy table")),
            _ if PRESETS.contains(&name) => Format::Gin(RuleSet::preset(name)?),
            _ => {
                return Err(ferr(
                    "name",
                    format!(
                        "unknown preset {name:?}; the presets are {}, {}",
                        PRESETS.join(", "),
                        FORMAT_PRESETS.join(", ")
                    ),
                ));
            }
        })
    }

    /// Every preset name.
    pub fn preset_names() -> impl Iterator<Item = &'static str> {
        PRESETS.into_iter().chain(FORMAT_PRESETS)
    }

    /// The kind.
    pub fn kind(&self) -> Kind {
        match self {
            Format::Gin(_) => Kind::Gin,
            Format::ThreePlayer(_) => Kind::ThreePlayer,
            Format::Teams(_) => Kind::Teams,
            Format::Gin7(_) => Kind::Gin7,
            Format::Rummy(_) => Kind::Rummy,
        }
    }

    /// The table size.
    pub fn players(&self) -> u8 {
        match self {
            Format::Rummy(r) => r.players,
            Format::Gin7(r) => r.players,
            _ => *self.kind().players().start(),
        }
    }

    /// The two-player rules every hand is played under (gin kinds).
    pub fn gin_rules(&self) -> Option<&RuleSet> {
        match self {
            Format::Gin(r) | Format::ThreePlayer(r) | Format::Teams(r) => Some(r),
            Format::Gin7(_) | Format::Rummy(_) => None,
        }
    }

    /// A name for people: the kind, and the rules' name where it says more.
    pub fn name(&self) -> String {
        match self {
            Format::Gin(r) => r.name.clone(),
            Format::ThreePlayer(r) | Format::Teams(r) if r.name == self.kind().name() => r.name.clone(),
            Format::ThreePlayer(r) | Format::Teams(r) => format!("{} ({})", self.kind(), r.name),
            Format::Gin7(r) => format!("gin-7 ({} players)", r.players),
            Format::Rummy(r) => format!("rummy ({} players)", r.players),
        }
    }

    /// The same format at a table of `n`: refused when the kind is not played by `n`.
    pub fn with_players(self, n: u8) -> Result<Format, FormatError> {
        let kind = self.kind();
        let sizes = kind.players();
        if !sizes.contains(&n) {
            let why = match kind {
                Kind::Gin => {
                    "two-player gin is for 2 players (three-player, teams and rummy seat more)".to_string()
                }
                Kind::ThreePlayer => "three-player gin is for 3 players".into(),
                Kind::Teams => format!("a team game is for 4 players, two teams of two: not {n}"),
                Kind::Gin7 => format!("gin-7 is for 3 to 6 players, not {n}"),
                Kind::Rummy => format!("rummy is for 2 to 6 players, not {n}"),
            };
            return Err(ferr("players", why));
        }
        Ok(match self {
            Format::Rummy(r) => {
                let r = r.resized(n);
                r.check().map_err(|e| ferr("players", e.0))?;
                Format::Rummy(r)
            }
            Format::Gin7(r) => {
                let r = r.resized(n);
                r.check().map_err(|e| ferr("players", e.0))?;
                Format::Gin7(r)
            }
            f => f,
        })
    }

    /// Checks every number.
    pub fn check(&self) -> Result<(), FormatError> {
        match self {
            Format::Gin(r) => r.validate()?,
            Format::ThreePlayer(r) | Format::Teams(r) => {
                r.validate()?;
                if r.stages != 1 {
                    return Err(ferr("stages", "must be 1: games in stages are for two players"));
                }
            }
            Format::Gin7(r) => r.check().map_err(|e| ferr("", e.0))?,
            Format::Rummy(r) => r.check().map_err(|e| ferr("", e.0))?,
        }
        Ok(())
    }

    /// Reads a preset name, or a TOML or JSON document (by its first non-blank character).
    pub fn parse_any(text: &str) -> Result<Format, FormatError> {
        let t = text.trim();
        if Format::preset_names().any(|p| p == t) {
            return Format::preset(t);
        }
        let v: serde_json::Value = if t.starts_with('{') {
            serde_json::from_str(t).map_err(|e| ferr("", format!("not valid JSON: {e}")))?
        } else {
            let v: toml::Value =
                toml::from_str(t).map_err(|e| ferr("", format!("not valid TOML: {}", e.message())))?;
            serde_json::to_value(v).map_err(|e| ferr("", e.to_string()))?
        };
        Format::from_value(v)
    }

    /// Reads a document's fields: `kind` (default `gin`), then that kind's fields.
    pub fn from_value(v: serde_json::Value) -> Result<Format, FormatError> {
        let serde_json::Value::Object(mut fields) = v else {
            return Err(ferr("", "expected a table/object of fields"));
        };
        let kind = match fields.remove("kind") {
            None => Kind::Gin,
            Some(serde_json::Value::String(k)) => Kind::from_name(&k).ok_or_else(|| {
                let names: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
                ferr("kind", format!("unknown kind {k:?}; the kinds are {}", names.join(", ")))
            })?,
            Some(_) => return Err(ferr("kind", "must be a string")),
        };
        let players = match kind {
            Kind::Rummy | Kind::Gin7 => None,
            _ => match fields.remove("players") {
                None => None,
                Some(p) => Some(
                    p.as_u64().filter(|&p| p <= 255).ok_or_else(|| ferr("players", "must be a number"))?,
                ),
            },
        };
        let f = match kind {
            Kind::Gin | Kind::ThreePlayer | Kind::Teams => {
                let named = fields.contains_key("name");
                let mut rules = RuleSet::from_value(serde_json::Value::Object(fields))?;
                if !named && kind != Kind::Gin && rules.name == "standard" {
                    rules.name = kind.name().into();
                }
                match kind {
                    Kind::Gin => Format::Gin(rules),
                    Kind::ThreePlayer => Format::ThreePlayer(rules),
                    _ => Format::Teams(rules),
                }
            }
            // The numbers a document leaves out are the defaults of its table size.
            Kind::Gin7 => {
                let base = Gin7Rules::default();
                Format::Gin7(merge(
                    base.resized(players_in(&fields).unwrap_or(base.players)),
                    fields,
                    "gin-7",
                )?)
            }
            Kind::Rummy => {
                let base = RummyRules::default();
                Format::Rummy(merge(
                    base.clone().resized(players_in(&fields).unwrap_or(base.players)),
                    fields,
                    "rummy",
                )?)
            }
        };
        let f = match players {
            Some(p) => f.with_players(p as u8)?,
            None => f,
        };
        f.check()?;
        Ok(f)
    }

    /// The document: `kind` and the kind's fields.
    pub fn to_value(&self) -> serde_json::Value {
        let inner = match self {
            Format::Gin(r) | Format::ThreePlayer(r) | Format::Teams(r) => serde_json::to_value(r),
            Format::Gin7(r) => serde_json::to_value(r),
            Format::Rummy(r) => serde_json::to_value(r),
        };
        let mut m = match inner {
            Ok(serde_json::Value::Object(m)) => m,
            _ => unreachable!("rules serialize to an object"),
        };
        let mut out = serde_json::Map::new();
        out.insert("kind".into(), self.kind().name().into());
        out.append(&mut m);
        serde_json::Value::Object(out)
    }

    /// The document as TOML.
    pub fn to_toml(&self) -> String {
        toml::to_string(&self.to_value()).expect("a format serializes to TOML")
    }
}

/// The table size a document's fields give, if they give a plausible one.
fn players_in(fields: &serde_json::Map<String, serde_json::Value>) -> Option<u8> {
    fields.get("players")?.as_u64().and_then(|p| u8::try_from(p).ok())
}

/// `fields` over `base`'s: unknown fields refused, the field at fault named.
fn merge<T: Serialize + serde::de::DeserializeOwned>(
    base: T,
    fields: serde_json::Map<String, serde_json::Value>,
    kind: &str,
) -> Result<T, FormatError> {
    let mut merged = match serde_json::to_value(base) {
        Ok(serde_json::Value::Object(m)) => m,
        _ => unreachable!("rules serialize to an object"),
    };
    for (k, val) in fields {
        if !merged.contains_key(&k) {
            let known: Vec<&str> = merged.keys().map(String::as_str).collect();
            return Err(ferr(&k, format!("unknown field; the {kind} fields are kind, {}", known.join(", "))));
        }
        merged.insert(k, val);
    }
    serde_path_to_error::deserialize(serde_json::Value::Object(merged)).map_err(|e| {
        let path = e.path().to_string();
        ferr(if path == "." { "" } else { &path }, e.into_inner().to_string())
    })
}

impl From<Format> for serde_json::Value {
    fn from(f: Format) -> serde_json::Value {
        f.to_value()
    }
}

impl TryFrom<serde_json::Value> for Format {
    type Error = FormatError;
    fn try_from(v: serde_json::Value) -> Result<Format, FormatError> {
        Format::from_value(v)
    }
}

impl From<RuleSet> for Format {
    fn from(r: RuleSet) -> Format {
        Format::Gin(r)
    }
}
