//! The server's side of the wire: requests decoded into engine types, with errors that name
//! the request's field (`INVALID_ARGUMENT`), and what the server alone sends (turn
//! information, hand and game results). Cards, seats, melds and legal actions convert in
//! `gin_proto::convert`, rule sets in `gin_proto::rules`: one conversion shared with the Rust
//! clients.

use engine::{Action, Arrangement, Card, EndKind, GameResult, HandSummary, Meld, RuleSet, Seat, StageResult};
use gin_proto::convert::cards_to_pb as cards;
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

/// A rule set for the wire.
pub fn rule_set(r: &RuleSet) -> pb::RuleSet {
    gin_proto::rules::to_pb(r)
}

/// An arrangement for the wire.
pub fn arrangement(a: &Arrangement) -> pb::Arrangement {
    pb::Arrangement {
        melds: a.melds().iter().map(|m| pb::Meld { cards: cards(m.cards()) }).collect(),
        deadwood: cards(a.deadwood_cards()),
        deadwood_value: a.deadwood(),
    }
}

/// The turn information of the seat to act, for that seat only.
pub fn turn_info(hand: &engine::Hand, seat: Seat) -> pb::TurnInfo {
    let held = hand.cards(seat);
    let legal_actions = gin_proto::convert::legal_to_pb(&hand.legal(), held);
    let (best, best_discard) = if held.len() >= 11 {
        match engine::best_discard(held) {
            Some(b) => (arrangement(&b.arrangement), b.discard.notation().to_owned()),
            None => (pb::Arrangement::default(), String::new()),
        }
    } else {
        (arrangement(&engine::best_arrangement(held)), String::new())
    };
    pb::TurnInfo { legal_actions, best: Some(best), best_discard }
}

/// How a hand ended, for the wire.
pub fn end_kind(e: EndKind) -> pb::EndKind {
    match e {
        EndKind::Dead => pb::EndKind::Dead,
        EndKind::Knock => pb::EndKind::Knock,
        EndKind::Undercut => pb::EndKind::Undercut,
        EndKind::Gin => pb::EndKind::Gin,
        EndKind::BigGin => pb::EndKind::BigGin,
    }
}

/// A finished hand with its reveal.
pub fn hand_result(h: &HandSummary, reveal: pb::DealReveal) -> pb::HandResult {
    let r = &h.result;
    pb::HandResult {
        hand_number: h.number,
        stage: h.stage,
        dealer: h.dealer.index() as u32,
        end: end_kind(r.end) as i32,
        winner: r.winner.map(|s| s.index() as u32),
        points: r.points,
        doubled: r.doubled,
        showdown: r.showdown.as_ref().map(|s| pb::Showdown {
            knocker: s.knocker.index() as u32,
            discard: s.discard.map(|c| c.notation().to_owned()).unwrap_or_default(),
            knocker_melds: Some(arrangement(&s.knocker_arrangement)),
            defender_melds: Some(arrangement(&s.defender_arrangement)),
            layoffs: s
                .layoffs
                .iter()
                .map(|l| pb::Layoff { card: l.card.notation().to_owned(), meld: l.meld as u32 })
                .collect(),
        }),
        scores: h.scores.0.to_vec(),
        reveal: Some(reveal),
    }
}

fn stage(s: &StageResult) -> pb::StageResult {
    pb::StageResult {
        reached_target: s.reached_target.index() as u32,
        hand_points: s.hand_points.0.to_vec(),
        hands_won: s.hands_won.0.to_vec(),
        game_bonus: s.game_bonus.0.to_vec(),
        box_bonus: s.box_bonus.0.to_vec(),
        shutout_bonus: s.shutout_bonus.0.to_vec(),
        total: s.total.0.to_vec(),
    }
}

/// A game's result reached by the target.
pub fn game_result(r: &GameResult) -> pb::GameResult {
    pb::GameResult {
        reason: pb::GameEndReason::Target as i32,
        winner: r.winner.map(|s| s.index() as u32),
        totals: r.totals.0.to_vec(),
        margin: r.margin,
        stages: r.stages.iter().map(stage).collect(),
        loser_by_default: None,
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
