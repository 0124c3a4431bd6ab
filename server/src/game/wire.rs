//! What the server alone sends of a game, engine types to the wire: the rule set, an
//! arrangement, the turn information of the seat to act, hand and game results. (Requests are
//! decoded by the API, `api::convert`.)
//!
//!
//! `turn_info`: the legal actions by `gin_proto::convert::legal_to_pb` and the best
//! arrangement. For other formats: `format_info`, `table_turn_info` (the moves of
//! `Table::legal`, rummy's best melds under its own values), `table_in_play`,
//! `table_hand_result`, `table_game_result`.

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
    let legal = hand.legal();
    let legal_actions = gin_proto::convert::legal_to_pb(&legal, held);
    let (best, best_discard) = if held.len() >= 11 {
        match best_legal_discard(held, legal.discards) {
            Some((a, d)) => (arrangement(&a), d.notation().to_owned()),
            None => (pb::Arrangement::default(), String::new()),
        }
    } else {
        (arrangement(&engine::best_arrangement(held)), String::new())
    };
    pb::TurnInfo { legal_actions, best: Some(best), best_discard }
}

/// The discard among `may` (the cards that may be discarded now: never the card just taken
/// from the pile) that leaves the least deadwood, and the arrangement of what it leaves; ties
/// as `engine::best_discard` breaks them (the highest value, then the highest card).
fn best_legal_discard(held: engine::CardSet, may: engine::CardSet) -> Option<(Arrangement, engine::Card)> {
    if let Some(b) = engine::best_discard(held).filter(|b| may.contains(b.discard)) {
        return Some((b.arrangement, b.discard));
    }
    let after = engine::deadwood_by_discard(held);
    let d = may.iter().min_by_key(|c| (after[c.bit() as usize], std::cmp::Reverse((c.value(), c.bit()))))?;
    Some((engine::best_arrangement(held.without(d)), d))
}

/// How a hand ended, for the wire.
pub fn end_kind(e: EndKind) -> pb::EndKind {
    match e {
        EndKind::Dead => pb::EndKind::Dead,
        EndKind::Knock => pb::EndKind::Knock,
        EndKind::Undercut => pb::EndKind::Undercut,
        EndKind::Gin => pb::EndKind::Gin,
        EndKind::BigGin => pb::EndKind::BigGin,
        EndKind::TurnLimit => pb::EndKind::TurnLimit,
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
        turns: r.turns,
    }
}

fn stage(s: &StageResult) -> pb::StageResult {
    pb::StageResult {
        reached_target: s.reached_target.map_or(0, |w| w.index() as u32),
        hand_points: s.hand_points.0.to_vec(),
        hands_won: s.hands_won.0.to_vec(),
        game_bonus: s.game_bonus.0.to_vec(),
        box_bonus: s.box_bonus.0.to_vec(),
        shutout_bonus: s.shutout_bonus.0.to_vec(),
        total: s.total.0.to_vec(),
        hand_limit: s.reached_target.is_none(),
    }
}

/// How a game played to its end ended, for the wire.
pub fn game_end(e: engine::GameEnd) -> pb::GameEndReason {
    match e {
        engine::GameEnd::Normal => pb::GameEndReason::Target,
        engine::GameEnd::HandLimit => pb::GameEndReason::HandLimit,
    }
}

/// A game's result, played to its end (the target, or the hand limit).
pub fn game_result(r: &GameResult) -> pb::GameResult {
    pb::GameResult {
        reason: game_end(r.end) as i32,
        winner: r.winner.map(|s| s.index() as u32),
        totals: r.totals.0.to_vec(),
        margin: r.margin,
        stages: r.stages.iter().map(stage).collect(),
        loser_by_default: None,
        ..Default::default()
    }
}

/// A format's kind, size and document, for the wire.
pub fn format_info(f: &engine::Format) -> pb::FormatInfo {
    pb::FormatInfo {
        kind: f.kind().name().to_owned(),
        players: u32::from(f.players()),
        name: f.name(),
        document_json: f.to_value().to_string(),
    }
}

fn meld_pb(c: engine::CardSet) -> pb::Meld {
    pb::Meld { cards: cards(c) }
}

/// The end of a hand of any kind, for the wire.
pub fn hand_end(e: engine::HandEnd) -> pb::EndKind {
    use engine::HandEnd as H;
    match e {
        H::Dead => pb::EndKind::Dead,
        H::Knock => pb::EndKind::Knock,
        H::Undercut => pb::EndKind::Undercut,
        H::Gin => pb::EndKind::Gin,
        H::BigGin => pb::EndKind::BigGin,
        H::Defence => pb::EndKind::Defence,
        H::WentOut => pb::EndKind::WentOut,
        H::Rummy => pb::EndKind::Rummy,
        H::TurnLimit => pb::EndKind::TurnLimit,
    }
}

/// A finished hand of a format other than two-player gin, with its reveal.
pub fn table_hand_result(h: &engine::HandReport, reveal: pb::DealReveal) -> pb::TableHandResult {
    pb::TableHandResult {
        hand_number: h.number,
        round: h.round,
        table: u32::from(h.table),
        seats: h.seats.iter().map(|&s| u32::from(s)).collect(),
        dealer: u32::from(h.dealer),
        end: hand_end(h.end) as i32,
        by: h.by.map(u32::from),
        winner: h.winner.map(u32::from),
        points: h.points,
        discard: h.discard.map(|c| c.notation().to_owned()).unwrap_or_default(),
        outcomes: h
            .outcomes
            .iter()
            .map(|o| pb::SeatOutcome {
                seat: u32::from(o.seat),
                melds: o.melds.iter().map(|&m| meld_pb(m)).collect(),
                layoffs: o.layoffs.iter().map(|c| c.notation().to_owned()).collect(),
                deadwood: cards(o.deadwood),
                deadwood_value: o.deadwood_points,
                penalty: o.penalty,
            })
            .collect(),
        team_points: h.team_points.map(|p| p.to_vec()).unwrap_or_default(),
        totals: h.totals.clone(),
        reveal: Some(reveal),
        turns: h.turns,
    }
}

/// The result of a game of another format that reached its end (its own, or the hand
/// limit).
pub fn table_game_result(r: &engine::TableResult) -> pb::GameResult {
    pb::GameResult {
        reason: game_end(r.end) as i32,
        winner: if r.winners.len() == 1 { r.winners.first().map(|&w| u32::from(w)) } else { None },
        table_totals: r.totals.clone(),
        team_totals: r.team_totals.clone().unwrap_or_default(),
        winners: r.winners.iter().map(|&w| u32::from(w)).collect(),
        places: r.places.iter().map(|&p| u32::from(p)).collect(),
        ..Default::default()
    }
}

/// One table in play, for the wire.
pub fn table_in_play(p: &engine::TablePart) -> pb::TableInPlay {
    pb::TableInPlay {
        seats: p.seats.iter().map(|&s| u32::from(s)).collect(),
        dealer: u32::from(p.dealer),
        hand_sizes: p.hand_lens.clone(),
        known: p
            .seats
            .iter()
            .zip(&p.known)
            .map(|(&s, &k)| pb::KnownCards { seat: u32::from(s), cards: cards(k) })
            .collect(),
        pile: p.pile.iter().map(|c| c.notation().to_owned()).collect(),
        stock_size: p.stock_len,
        melds: p
            .melds
            .iter()
            .enumerate()
            .map(|(i, m)| pb::TableMeld {
                index: i as u32,
                seat: u32::from(m.by),
                cards: cards(m.cards),
                layoffs: m
                    .layoffs
                    .iter()
                    .map(|&(by, c)| pb::LaidOffCard { card: c.notation().to_owned(), seat: u32::from(by) })
                    .collect(),
            })
            .collect(),
        knock_limit: p.knock_limit.unwrap_or(0),
    }
}

/// The turn information of `seat`, to act at a table of a format other than two-player gin:
/// its legal moves and its best melds (gin kinds: as in two-player gin; rummy: under its own
/// card values).
pub fn table_turn_info(t: &engine::Table, seat: u8) -> pb::TurnInfo {
    if let Some((h, s, _, _)) = t.gin_seat(seat) {
        return turn_info(h, s);
    }
    let held = t.view(seat).cards().unwrap_or(engine::CardSet::EMPTY);
    let legal = t.legal(seat);
    let kind = |k: pb::ActionKind| k as i32;
    let legal_actions = legal
        .iter()
        .map(|m| {
            use engine::Move as M;
            let mut a = pb::LegalAction::default();
            match m {
                M::Pass => a.kind = kind(pb::ActionKind::PassUpcard),
                M::DrawStock => a.kind = kind(pb::ActionKind::DrawStock),
                M::DrawPile => a.kind = kind(pb::ActionKind::DrawPile),
                M::Discard { card } => {
                    a.kind = kind(pb::ActionKind::Discard);
                    a.card = card.notation().to_owned();
                }
                M::Knock { discard, .. } => {
                    a.kind = kind(pb::ActionKind::Knock);
                    a.card = discard.notation().to_owned();
                    a.deadwood = engine::deadwood(held.without(*discard));
                }
                M::BigGin { .. } => a.kind = kind(pb::ActionKind::BigGin),
                M::Meld { cards: c } => {
                    a.kind = kind(pb::ActionKind::Meld);
                    a.cards = cards(*c);
                }
                M::LayOff { card, meld } => {
                    a.kind = kind(pb::ActionKind::LayOff);
                    a.card = card.notation().to_owned();
                    a.meld = *meld as u32;
                }
            }
            a
        })
        .collect();
    let (best, best_discard) = match t {
        engine::Table::Rummy(g) => {
            let b = g.hand().rules().best_melds(held);
            let best = pb::Arrangement {
                melds: b.melds.iter().map(|&m| meld_pb(m)).collect(),
                deadwood: cards(b.left),
                deadwood_value: b.points,
            };
            (best, String::new())
        }
        _ => {
            let may: engine::CardSet = legal
                .iter()
                .filter_map(|m| match m {
                    engine::Move::Discard { card } => Some(*card),
                    _ => None,
                })
                .collect();
            match best_legal_discard(held, may) {
                Some((a, d)) => (arrangement(&a), d.notation().to_owned()),
                None => (arrangement(&engine::best_arrangement(held)), String::new()),
            }
        }
    };
    pb::TurnInfo { legal_actions, best: Some(best), best_discard }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The turn information never suggests the card just taken from the pile, which may not be
    /// discarded: it suggests the best card that may go (the page showed the taken card).
    #[test]
    fn the_best_discard_is_one_that_may_be_discarded() {
        let rules = engine::RuleSet::standard();
        let mut seen = 0;
        for seed in 0..400 {
            let mut hand = engine::Hand::new(&rules, engine::Deck::shuffled(seed, 0), Seat::S0);
            // Seat 1, the non-dealer, takes the upcard: it may not discard it this turn.
            hand.apply(Seat::S1, &engine::Action::DrawPile).expect("the upcard may be taken");
            let held = hand.cards(Seat::S1);
            let taken = hand.taken_from_pile().expect("just taken");
            let info = turn_info(&hand, Seat::S1);
            let may = hand.legal().discards;
            assert!(!may.contains(taken));
            let suggested: engine::Card = info.best_discard.parse().expect("a card");
            assert!(may.contains(suggested), "seed {seed}: {suggested} may not be discarded");
            let after = engine::deadwood_by_discard(held);
            let least = may.iter().map(|c| after[c.bit() as usize]).min().expect("a discard");
            assert_eq!(after[suggested.bit() as usize], least, "seed {seed}");
            assert_eq!(info.best.expect("an arrangement").deadwood_value, least as u32, "seed {seed}");
            if engine::best_discard(held).expect("11 cards").discard == taken {
                seen += 1;
            }
        }
        assert!(seen > 0, "no deal where the taken card was the unrestricted best discard");
    }
}
