//! What the server alone sends of a game, engine types to the wire: the rule set, an
//! arrangement, the turn information of the seat to act, hand and game results. (Requests are
//! decoded by the API, `api::convert`.)

use engine::{Arrangement, EndKind, GameResult, HandSummary, RuleSet, Seat, StageResult};
use gin_proto::convert::cards_to_pb as cards;
use gin_proto::v1 as pb;

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
