//! `RuleSet`: every number and switch of the rules a field; the named presets of RULES.md;
//! custom sets from TOML or JSON, validated with errors that name the field.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::card::{Card, Rank};

/// When a score "reaches" the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetRule {
    /// Score ≥ target.
    AtLeast,
    /// Score > target (seed 002: « plus de 100 »).
    MoreThan,
}

/// What happens when the loser of a game (or stage) won no hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Shutout {
    /// No shutout rule.
    None,
    /// `standard`: the winner's hand points are doubled (before the box bonus) when the
    /// other player won no hand and no hand was dead.
    DoubleHandPoints,
    /// `wikihow`: the game bonus is `shutout_bonus` instead of `game_bonus` when the other
    /// player scored 0.
    ReplaceGameBonus,
    /// `multistage`: `shutout_bonus` is added to the game (stage) bonus when the other player
    /// won no hand.
    ExtraBonus,
}

/// Every rule that varies between the presets, as data.
///
/// Build one from a preset ([`RuleSet::preset`]) or parse it ([`RuleSet::from_toml`],
/// [`RuleSet::from_json`]); [`RuleSet::validate`] checks a hand-built one.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleSet {
    /// A name for people: the preset's, or what the author calls a custom set.
    pub name: String,
    /// Points added for gin.
    pub gin_bonus: u32,
    /// Whether big gin (11 cards melded, no discard) exists.
    pub big_gin: bool,
    /// Points added for big gin (when `big_gin`).
    pub big_gin_bonus: u32,
    /// Points added to the defender's score for an undercut.
    pub undercut_bonus: u32,
    /// The first-turn upcard offer (non-dealer, then dealer, then a forced stock draw).
    pub upcard_offer: bool,
    /// The most deadwood a knock may leave.
    pub knock_limit: u32,
    /// Oklahoma: the knock limit is set by the upcard (A: gin only; 2–10 face value; J/Q/K: 10).
    pub knock_limit_from_upcard: bool,
    /// Oklahoma: a spade upcard doubles the hand's score, bonuses included.
    pub spade_upcard_doubles: bool,
    /// Score that ends a game (or stage).
    pub target: u32,
    /// Whether the target is reached at ≥ or at >.
    pub target_rule: TargetRule,
    /// Bonus for the player who reaches the target.
    pub game_bonus: u32,
    /// Bonus per hand won, added at the end of the game (or stage).
    pub box_bonus: u32,
    /// The shutout rule.
    pub shutout: Shutout,
    /// The bonus used by [`Shutout::ReplaceGameBonus`] and [`Shutout::ExtraBonus`].
    pub shutout_bonus: u32,
    /// Number of stages: 1 for a plain game; each stage plays to `target` with its own bonuses.
    pub stages: u32,
    /// A hand that reaches this many turns (draws) without ending ends there, dead
    /// ([`crate::EndKind::TurnLimit`]: no score). Far above honest play (see
    /// [`DEFAULT_MAX_TURNS_PER_HAND`]); a document without it gets the default.
    #[serde(default = "default_max_turns")]
    pub max_turns_per_hand: u32,
    /// A game that has played this many hands (dead ones included; in teams, both tables'
    /// hands) ends where it stands ([`crate::GameEnd::HandLimit`]); a document without it
    /// gets the default ([`DEFAULT_MAX_HANDS_PER_GAME`]).
    #[serde(default = "default_max_hands")]
    pub max_hands_per_game: u32,
}

/// The default of [`RuleSet::max_turns_per_hand`] for every gin kind played with two-player
/// hands (two players, three players, teams): at least three times the longest hand seen in
/// 100,000 hands of `simple` against `simple` and of `strong` against `strong` (the book,
/// docs/book/src/rules/fields.md, "Every hand and every game ends").
pub const DEFAULT_MAX_TURNS_PER_HAND: u32 = 150;

/// The default of [`RuleSet::max_hands_per_game`]: at least three times the longest game of
/// the same self-play runs.
pub const DEFAULT_MAX_HANDS_PER_GAME: u32 = 200;

/// The most [`RuleSet::validate`] accepts for either limit.
pub const MAX_LIMIT: u32 = 1_000_000;

fn default_max_turns() -> u32 {
    DEFAULT_MAX_TURNS_PER_HAND
}

fn default_max_hands() -> u32 {
    DEFAULT_MAX_HANDS_PER_GAME
}

/// The names of the presets, in RULES.md's order.
pub const PRESETS: [&str; 7] =
    ["standard", "wikihow", "wikihow-alt", "classic", "american", "oklahoma", "multistage"];

/// Why a rule set was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleSetError {
    /// The field at fault (dotted path), or empty when the whole document is at fault.
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for RuleSetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "rule set: {}", self.message)
        } else {
            write!(f, "rule set field `{}`: {}", self.field, self.message)
        }
    }
}

impl std::error::Error for RuleSetError {}

fn err(field: &str, message: impl Into<String>) -> RuleSetError {
    RuleSetError { field: field.to_string(), message: message.into() }
}

impl Default for RuleSet {
    fn default() -> Self {
        RuleSet::standard()
    }
}

impl RuleSet {
    /// `standard` (the default; cardgames.io, seed 004).
    pub fn standard() -> RuleSet {
        RuleSet {
            name: "standard".into(),
            gin_bonus: 25,
            big_gin: true,
            big_gin_bonus: 31,
            undercut_bonus: 25,
            upcard_offer: true,
            knock_limit: 10,
            knock_limit_from_upcard: false,
            spade_upcard_doubles: false,
            target: 100,
            target_rule: TargetRule::AtLeast,
            game_bonus: 100,
            box_bonus: 25,
            shutout: Shutout::DoubleHandPoints,
            shutout_bonus: 0,
            stages: 1,
            max_turns_per_hand: DEFAULT_MAX_TURNS_PER_HAND,
            max_hands_per_game: DEFAULT_MAX_HANDS_PER_GAME,
        }
    }

    /// A named preset from RULES.md (`standard`, `wikihow`, `wikihow-alt`, `classic`,
    /// `american`, `oklahoma`, `multistage`).
    pub fn preset(name: &str) -> Result<RuleSet, RuleSetError> {
        let s = RuleSet::standard();
        let r = match name {
            "standard" => s,
            "wikihow" => RuleSet {
                name: name.into(),
                big_gin: false,
                big_gin_bonus: 0,
                upcard_offer: false,
                box_bonus: 20,
                shutout: Shutout::ReplaceGameBonus,
                shutout_bonus: 200,
                ..s
            },
            "wikihow-alt" => RuleSet {
                name: name.into(),
                gin_bonus: 20,
                undercut_bonus: 10,
                ..RuleSet::preset("wikihow")?
            },
            "classic" => RuleSet {
                name: name.into(),
                gin_bonus: 20,
                big_gin_bonus: 20,
                undercut_bonus: 10,
                game_bonus: 0,
                box_bonus: 0,
                shutout: Shutout::None,
                ..s
            },
            "american" => RuleSet {
                name: name.into(),
                big_gin: false,
                big_gin_bonus: 0,
                undercut_bonus: 20,
                target_rule: TargetRule::MoreThan,
                game_bonus: 0,
                box_bonus: 0,
                shutout: Shutout::None,
                ..s
            },
            "oklahoma" => RuleSet {
                name: name.into(),
                big_gin: false,
                big_gin_bonus: 0,
                knock_limit_from_upcard: true,
                spade_upcard_doubles: true,
                target: 150,
                ..s
            },
            "multistage" => RuleSet {
                name: name.into(),
                big_gin: false,
                big_gin_bonus: 0,
                undercut_bonus: 20,
                target_rule: TargetRule::MoreThan,
                shutout: Shutout::ExtraBonus,
                shutout_bonus: 100,
                stages: 3,
                ..s
            },
            _ => {
                return Err(err(
                    "name",
                    format!("unknown preset {name:?}; the presets are {}", PRESETS.join(", ")),
                ));
            }
        };
        Ok(r)
    }

    /// Checks the numbers make a playable game.
    pub fn validate(&self) -> Result<(), RuleSetError> {
        if self.name.trim().is_empty() {
            return Err(err("name", "must not be empty"));
        }
        if self.name.len() > 64 {
            return Err(err("name", "at most 64 bytes"));
        }
        if self.knock_limit > 99 {
            return Err(err("knock_limit", "must be at most 99"));
        }
        if self.target == 0 || self.target > 100_000 {
            return Err(err("target", "must be between 1 and 100000"));
        }
        if self.stages == 0 || self.stages > 100 {
            return Err(err("stages", "must be between 1 and 100"));
        }
        for (field, v) in [
            ("gin_bonus", self.gin_bonus),
            ("big_gin_bonus", self.big_gin_bonus),
            ("undercut_bonus", self.undercut_bonus),
            ("game_bonus", self.game_bonus),
            ("box_bonus", self.box_bonus),
            ("shutout_bonus", self.shutout_bonus),
        ] {
            if v > 10_000 {
                return Err(err(field, "must be at most 10000"));
            }
        }
        if self.max_turns_per_hand == 0 || self.max_turns_per_hand > MAX_LIMIT {
            return Err(err("max_turns_per_hand", format!("must be between 1 and {MAX_LIMIT}")));
        }
        if self.max_hands_per_game == 0 || self.max_hands_per_game > MAX_LIMIT {
            return Err(err("max_hands_per_game", format!("must be between 1 and {MAX_LIMIT}")));
        }
        if !self.big_gin && self.big_gin_bonus != 0 {
            return Err(err("big_gin_bonus", "must be 0 when big_gin is false"));
        }
        Ok(())
    }

    /// Parses a rule set from JSON. The document may name a `base` preset (default
    /// `standard`) and give only the fields that differ; unknown fields are refused.
    pub fn from_json(text: &str) -> Result<RuleSet, RuleSetError> {
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| err("", format!("not valid JSON: {e}")))?;
        RuleSet::from_value(v)
    }

    /// Parses a rule set from TOML, as [`RuleSet::from_json`].
    ///
    /// ```
    /// let r = engine::RuleSet::from_toml("base = \"standard\"\ngin_bonus = 30\nname = \"house\"").unwrap();
    /// assert_eq!(r.gin_bonus, 30);
    /// let e = engine::RuleSet::from_toml("gin_bonus = \"lots\"").unwrap_err();
    /// assert_eq!(e.field, "gin_bonus");
    /// ```
    pub fn from_toml(text: &str) -> Result<RuleSet, RuleSetError> {
        let v: toml::Value =
            toml::from_str(text).map_err(|e| err("", format!("not valid TOML: {}", e.message())))?;
        let v = serde_json::to_value(v).map_err(|e| err("", e.to_string()))?;
        RuleSet::from_value(v)
    }

    /// Reads a preset name, or a TOML or JSON document (by its first non-blank character).
    pub fn parse_any(text: &str) -> Result<RuleSet, RuleSetError> {
        let t = text.trim();
        if PRESETS.contains(&t) {
            return RuleSet::preset(t);
        }
        if t.starts_with('{') { RuleSet::from_json(t) } else { RuleSet::from_toml(t) }
    }

    pub(crate) fn from_value(v: serde_json::Value) -> Result<RuleSet, RuleSetError> {
        let serde_json::Value::Object(mut fields) = v else {
            return Err(err("", "expected a table/object of fields"));
        };
        let base = match fields.remove("base") {
            None => RuleSet::standard(),
            Some(serde_json::Value::String(b)) => RuleSet::preset(&b).map_err(|e| err("base", e.message))?,
            Some(_) => return Err(err("base", "must be a preset name")),
        };
        let named = fields.contains_key("name");
        let mut merged = match serde_json::to_value(&base) {
            Ok(serde_json::Value::Object(m)) => m,
            _ => unreachable!("a RuleSet serializes to an object"),
        };
        let changed = !fields.is_empty();
        for (k, val) in fields {
            if !merged.contains_key(&k) {
                let known: Vec<&str> = merged.keys().map(String::as_str).collect();
                return Err(err(&k, format!("unknown field; the fields are base, {}", known.join(", "))));
            }
            merged.insert(k, val);
        }
        let rules: RuleSet =
            serde_path_to_error::deserialize(serde_json::Value::Object(merged)).map_err(|e| {
                let path = e.path().to_string();
                err(if path == "." { "" } else { &path }, e.into_inner().to_string())
            })?;
        let rules = if changed && !named { RuleSet { name: "custom".into(), ..rules } } else { rules };
        rules.validate()?;
        Ok(rules)
    }

    /// Serializes to TOML (all fields).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a RuleSet always serializes")
    }

    /// The knock limit for a hand whose upcard is `upcard`.
    pub fn knock_limit_for(&self, upcard: Card) -> u32 {
        if !self.knock_limit_from_upcard {
            self.knock_limit
        } else if upcard.rank() == Rank::ACE {
            0
        } else {
            upcard.value().min(10)
        }
    }

    /// True when `score` reaches the target.
    pub fn reaches_target(&self, score: u32) -> bool {
        match self.target_rule {
            TargetRule::AtLeast => score >= self.target,
            TargetRule::MoreThan => score > self.target,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::card;

    #[test]
    fn presets_match_rules_table() {
        // name, gin, big gin (None = none), undercut, offer, target, >, game, box
        type Row = (&'static str, u32, Option<u32>, u32, bool, u32, bool, u32, u32);
        let table: [Row; 7] = [
            ("standard", 25, Some(31), 25, true, 100, false, 100, 25),
            ("wikihow", 25, None, 25, false, 100, false, 100, 20),
            ("wikihow-alt", 20, None, 10, false, 100, false, 100, 20),
            ("classic", 20, Some(20), 10, true, 100, false, 0, 0),
            ("american", 25, None, 20, true, 100, true, 0, 0),
            ("oklahoma", 25, None, 25, true, 150, false, 100, 25),
            ("multistage", 25, None, 20, true, 100, true, 100, 25),
        ];
        for (name, gin, big, under, offer, target, more, game, boxb) in table {
            let r = RuleSet::preset(name).unwrap();
            r.validate().unwrap();
            assert_eq!(r.name, name);
            assert_eq!(r.gin_bonus, gin, "{name}");
            assert_eq!(r.big_gin.then_some(r.big_gin_bonus), big, "{name}");
            assert_eq!(r.undercut_bonus, under, "{name}");
            assert_eq!(r.upcard_offer, offer, "{name}");
            assert_eq!(r.target, target, "{name}");
            assert_eq!(r.target_rule == TargetRule::MoreThan, more, "{name}");
            assert_eq!(r.game_bonus, game, "{name}");
            assert_eq!(r.box_bonus, boxb, "{name}");
        }
        let ok = RuleSet::preset("oklahoma").unwrap();
        assert!(ok.knock_limit_from_upcard && ok.spade_upcard_doubles);
        assert_eq!(RuleSet::preset("multistage").unwrap().stages, 3);
        assert_eq!(RuleSet::preset("wikihow").unwrap().shutout, Shutout::ReplaceGameBonus);
        assert_eq!(RuleSet::preset("wikihow").unwrap().shutout_bonus, 200);
        assert_eq!(RuleSet::standard().shutout, Shutout::DoubleHandPoints);
        assert_eq!(RuleSet::preset("multistage").unwrap().shutout, Shutout::ExtraBonus);
        assert!(RuleSet::preset("nope").unwrap_err().message.contains("standard"));
    }

    #[test]
    fn oklahoma_knock_limit() {
        let r = RuleSet::preset("oklahoma").unwrap();
        assert_eq!(r.knock_limit_for(card("AS")), 0);
        assert_eq!(r.knock_limit_for(card("7D")), 7);
        assert_eq!(r.knock_limit_for(card("TD")), 10);
        assert_eq!(r.knock_limit_for(card("KH")), 10);
        assert_eq!(RuleSet::standard().knock_limit_for(card("AS")), 10);
    }

    #[test]
    fn target_rules() {
        let s = RuleSet::standard();
        assert!(s.reaches_target(100) && !s.reaches_target(99));
        let a = RuleSet::preset("american").unwrap();
        assert!(!a.reaches_target(100) && a.reaches_target(101));
    }

    #[test]
    fn parse_round_trips_and_errors_name_the_field() {
        for p in PRESETS {
            let r = RuleSet::preset(p).unwrap();
            assert_eq!(RuleSet::from_toml(&r.to_toml()).unwrap(), r);
            assert_eq!(RuleSet::from_json(&serde_json::to_string(&r).unwrap()).unwrap(), r);
            assert_eq!(RuleSet::parse_any(p).unwrap(), r);
        }
        let r = RuleSet::from_json(r#"{"base": "classic", "target": 250}"#).unwrap();
        assert_eq!((r.target, r.gin_bonus, r.name.as_str()), (250, 20, "custom"));
        let cases: &[(&str, &str)] = &[
            (r#"{"gin_bonus": "x"}"#, "gin_bonus"),
            (r#"{"gin_bonnus": 3}"#, "gin_bonnus"),
            (r#"{"target": 0}"#, "target"),
            (r#"{"stages": 0}"#, "stages"),
            (r#"{"base": "nope"}"#, "base"),
            (r#"{"shutout": "sometimes"}"#, "shutout"),
            (r#"{"big_gin": false, "big_gin_bonus": 5}"#, "big_gin_bonus"),
            (r#"{"knock_limit": -1}"#, "knock_limit"),
            (r#"{"max_turns_per_hand": 0}"#, "max_turns_per_hand"),
            (r#"{"max_hands_per_game": 2000000}"#, "max_hands_per_game"),
        ];
        for (doc, field) in cases {
            let e = RuleSet::from_json(doc).unwrap_err();
            assert_eq!(e.field, *field, "{doc}: {e}");
        }
        assert_eq!(RuleSet::from_toml("target = \"high\"").unwrap_err().field, "target");
        assert_eq!(RuleSet::from_toml("this is not toml").unwrap_err().field, "");
        assert_eq!(RuleSet::from_json("[1]").unwrap_err().field, "");
    }
}
