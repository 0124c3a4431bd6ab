//! Requests decoded into engine types, with errors that name the request's field
//! (`INVALID_ARGUMENT`). Cards, seats, melds and legal actions convert in `gin_proto::convert`,
//! rule sets in `gin_proto::rules`: one conversion shared with the Rust clients; what the
//! server alone sends (turn information, hand and game results) is `game::wire`.
//!
//!
//! `format`: a request's `format` and `players` as an `engine::Format`, errors naming
//! `format.<field>` or `players`; `rules` checks a custom set's name as text people see
//! (`gin_proto::text`), `stored_rules` reads a stored spec's rules without that check (text
//! already stored is not checked again); `clock`; `game_id`, noted in the call's span by
//! `in_game`.

use engine::{Action, Card, Meld, RuleSet, Seat};
use gin_proto::v1 as pb;
use tonic::Status;

/// One card from a request.
pub fn parse_card(field: &str, s: &str) -> Result<Card, Status> {
    gin_proto::convert::card(s).map_err(|e| Status::invalid_argument(format!("{field}: {e}")))
}

/// Melds from a request (errors name the meld: `melds[1]: …`).
pub fn parse_melds(melds: &[pb::Meld]) -> Result<Vec<Meld>, Status> {
    gin_proto::convert::melds(melds).map_err(|e| Status::invalid_argument(e.to_string()))
}

/// The format a request names: `None` for two-player gin under `rules` (unless `players`
/// asks for another size); else a preset or a document (`format`), at `players` (0: the
/// format's own size). Errors name the field.
pub fn format(
    format: &str,
    players: u32,
    rules: Option<&pb::Rules>,
) -> Result<Option<engine::Format>, Status> {
    if format.trim().is_empty() {
        return match players {
            0 | 2 => Ok(None),
            n => Err(Status::invalid_argument(format!(
                "players: two-player gin is for 2; for a table of {n}, name a format (`format`: three-player, \
                 teams, gin-7, rummy)"
            ))),
        };
    }
    if rules.is_some_and(|r| r.kind.is_some()) {
        return Err(Status::invalid_argument("rules: not with `format` (a format holds its own rules)"));
    }
    if format.len() > 16 * 1024 {
        return Err(Status::invalid_argument("format: at most 16 KiB"));
    }
    let bad = |e: engine::FormatError| {
        let field = if e.field.is_empty() { "format".to_string() } else { format!("format.{}", e.field) };
        Status::invalid_argument(format!("{field}: {}", e.message))
    };
    let mut f = engine::Format::parse_any(format).map_err(bad)?;
    if players != 0 {
        let n =
            u8::try_from(players).map_err(|_| Status::invalid_argument(format!("players: {players}?")))?;
        f = f.with_players(n).map_err(|e| Status::invalid_argument(format!("players: {}", e.message)))?;
    }
    if let Some(r) = f.gin_rules() {
        gin_proto::text::check("format.name", &r.name, gin_proto::text::NAME_MAX)
            .map_err(|e| Status::invalid_argument(e.to_string()))?;
    }
    Ok(Some(f))
}

/// A seat index from a request.
pub fn seat(field: &str, n: u32) -> Result<Seat, Status> {
    gin_proto::convert::seat(n).map_err(|e| Status::invalid_argument(format!("{field}: {e}")))
}

/// Rules from a request: a preset name or a full rule set (validated, errors name the field;
/// a custom set's name is text people see, checked by [`rules_text`]).
pub fn rules(r: Option<&pb::Rules>) -> Result<RuleSet, Status> {
    rules_text("rules", r)?;
    stored_rules(r)
}

/// The text a caller sets in `field` (`rules`, `spec.rules`): a custom rule set's name, which
/// every other player and watcher sees (`gin_proto::text`; INVALID_ARGUMENT naming
/// `<field>.custom.name`).
pub fn rules_text(field: &str, r: Option<&pb::Rules>) -> Result<(), Status> {
    if let Some(pb::rules::Kind::Custom(c)) = r.and_then(|r| r.kind.as_ref()) {
        let field = format!("{field}.custom.name");
        gin_proto::text::check(&field, &c.name, gin_proto::text::RULES_NAME_MAX)?;
    }
    Ok(())
}

/// Rules as [`rules`] reads them, without the text check: for rules stored before it existed
/// (a tournament's spec, read again at start), which must still load.
pub fn stored_rules(r: Option<&pb::Rules>) -> Result<RuleSet, Status> {
    let bad = |e: engine::RuleSetError| Status::invalid_argument(format!("rules: {e}"));
    match r.and_then(|r| r.kind.as_ref()) {
        None => Ok(RuleSet::standard()),
        Some(pb::rules::Kind::Preset(name)) => RuleSet::preset(name).map_err(bad),
        Some(pb::rules::Kind::Custom(c)) => gin_proto::rules::from_pb(c).map_err(bad),
    }
}

/// The engine action of a wire request.
pub fn knock_action(discard: &str, melds: &[pb::Meld]) -> Result<Action, Status> {
    let melds = if melds.is_empty() { None } else { Some(parse_melds(melds)?) };
    if discard.is_empty() {
        Ok(Action::BigGin { melds })
    } else {
        Ok(Action::Knock { discard: parse_card("discard", discard)?, melds })
    }
}

/// A turn clock from a request (none: no clock).
pub fn clock(c: Option<pb::TurnClock>) -> Result<pb::TurnClock, Status> {
    let c = c.unwrap_or_default();
    if c.turn_millis != 0 && !(100..=3_600_000).contains(&c.turn_millis) {
        return Err(Status::invalid_argument("clock.turn_millis: 0 (no clock) or 100 to 3600000"));
    }
    if pb::ClockPolicy::try_from(c.policy).is_err() {
        return Err(Status::invalid_argument("clock.policy: unknown value"));
    }
    Ok(c)
}

/// A request's game id, checked (and noted in the call's span, see [`in_game`]).
pub fn game_id(id: &str) -> Result<&str, Status> {
    if id.is_empty() || id.len() > 64 {
        return Err(Status::invalid_argument("game_id: required, at most 64 characters"));
    }
    in_game(id);
    Ok(id)
}

/// Notes in the call's span (see `run`) the game the call is about.
pub fn in_game(id: &str) {
    tracing::Span::current().record("game", id);
}
