//! The bot's side of the wire: protobuf rule sets, cards, legal actions and results to
//! engine types and back. (Rule sets convert in `gin_proto::rules`, shared with the server.)

use engine::{Card, CardSet, Legal, RuleSet, Seat};
use gin_proto::v1 as pb;

/// A rule set from the wire (a snapshot's `rules`), validated.
pub fn rules_from_pb(c: &pb::RuleSet) -> Result<RuleSet, String> {
    gin_proto::rules::from_pb(c).map_err(|e| format!("the server's rules: {e}"))
}

/// A rule set for the wire (to create or quick-match a game with custom rules).
pub fn rules_to_pb(r: &RuleSet) -> pb::RuleSet {
    gin_proto::rules::to_pb(r)
}

/// One card in notation.
pub fn card(s: &str) -> Result<Card, String> {
    s.parse().map_err(|e| format!("card {s:?} from the server: {e}"))
}

/// Cards in notation.
pub fn cards(v: &[String]) -> Result<CardSet, String> {
    v.iter().map(|c| card(c)).collect()
}

/// A seat index from the wire.
pub fn seat(n: u32) -> Result<Seat, String> {
    u8::try_from(n).ok().and_then(Seat::new).ok_or_else(|| format!("seat {n} from the server"))
}

/// The engine's compact [`Legal`] for `seat` from the wire's list of legal actions.
pub fn legal(seat: Seat, t: &pb::TurnInfo) -> Result<Legal, String> {
    use pb::ActionKind as K;
    let mut l = Legal {
        seat: Some(seat),
        pass: false,
        draw_stock: false,
        draw_pile: false,
        discards: CardSet::EMPTY,
        knocks: CardSet::EMPTY,
        big_gin: false,
    };
    for a in &t.legal_actions {
        match K::try_from(a.kind) {
            Ok(K::PassUpcard) => l.pass = true,
            Ok(K::TakeUpcard | K::DrawPile) => l.draw_pile = true,
            Ok(K::DrawStock) => l.draw_stock = true,
            Ok(K::Discard) => {
                l.discards.insert(card(&a.card)?);
            }
            Ok(K::Knock) => {
                l.knocks.insert(card(&a.card)?);
            }
            Ok(K::BigGin) => l.big_gin = true,
            _ => return Err(format!("unknown legal action kind {}", a.kind)),
        }
    }
    Ok(l)
}

/// Melds for a knock request.
pub fn melds(m: &Option<Vec<engine::Meld>>) -> Vec<pb::Meld> {
    m.iter()
        .flatten()
        .map(|m| pb::Meld { cards: m.cards().iter().map(|c| c.to_string()).collect() })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_round_trips() {
        for name in engine::PRESETS {
            let r = RuleSet::preset(name).unwrap();
            assert_eq!(rules_from_pb(&rules_to_pb(&r)).unwrap(), r, "{name}");
        }
    }

    #[test]
    fn legal_from_the_wire() {
        let k = |k: pb::ActionKind, c: &str| pb::LegalAction { kind: k as i32, card: c.into(), deadwood: 0 };
        let t = pb::TurnInfo {
            legal_actions: vec![
                k(pb::ActionKind::Discard, "7S"),
                k(pb::ActionKind::Discard, "KD"),
                k(pb::ActionKind::Knock, "KD"),
            ],
            ..Default::default()
        };
        let l = legal(Seat::S1, &t).unwrap();
        assert_eq!(l.seat, Some(Seat::S1));
        assert_eq!(l.discards, engine::hand("7S KD"));
        assert_eq!(l.knocks, engine::hand("KD"));
        assert!(!l.pass && !l.draw_stock && !l.draw_pile && !l.big_gin);
        let bad =
            pb::TurnInfo { legal_actions: vec![k(pb::ActionKind::Discard, "ZZ")], ..Default::default() };
        assert!(legal(Seat::S0, &bad).is_err());
    }
}
