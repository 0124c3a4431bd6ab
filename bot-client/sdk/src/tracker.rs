//! One seat's picture of a game, rebuilt from that seat's event stream.
//!
//! [`SeatTracker`] folds the server's events (as the seat receives them: redacted) into
//! what [`Decision`] needs: the seat's cards, the pile, the stock size, the card taken from
//! the pile, scores, and the seat's [`Memory`], fed with the same [`Seen`] events as in local
//! self-play. When the last event is the seat's own `TurnStarted` with its legal actions,
//! [`SeatTracker::decision`] is that turn's decision.
//!
//! The network bot ([`Client::play`](crate::Client::play)) uses it, so a strategy sees
//! exactly what a client of that seat sees, nothing more.

use engine::{BySeat, Card, CardSet, Legal, RuleSet, Seat};
use gin_proto::convert::{self, WireError};
use gin_proto::v1 as pb;
use gin_proto::v1::game_event::Kind as K;

use gin_strategies::{Decision, Memory, Seen, Shown};

/// A seat's view of one game, built from its events.
#[derive(Clone, Debug)]
pub struct SeatTracker {
    seat: Seat,
    rules: RuleSet,
    last_seq: u64,
    hand: CardSet,
    pile: Vec<Card>,
    stock_len: u32,
    taken: Option<Card>,
    knock_limit: u32,
    scores: BySeat<u32>,
    hand_number: Option<u32>,
    stage: u32,
    memory: Memory,
    /// The seq of this seat's pending turn and its legal actions.
    turn: Option<(u64, Legal)>,
    names: [String; 2],
    bots: [bool; 2],
    entrants: [bool; 2],
    result: Option<pb::GameResult>,
}

/// An event the tracker cannot follow: a gap in the seqs, or a message that contradicts
/// what came before. The stream must be reopened (from scratch if need be).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrackError(pub String);

impl std::fmt::Display for TrackError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TrackError {}

/// A message of the wire that is no card, seat or legal action, as the tracker words it.
fn wire(e: WireError) -> String {
    e.to_string()
}

impl SeatTracker {
    /// A tracker for `seat` that has seen every event up to `after_seq` (0: none). To follow
    /// a game from the start, feed it every event from seq `after_seq + 1`; seq 1 is always
    /// the first seat taken, which carries nothing a decision needs, so 1 is a fine start.
    pub fn new(seat: Seat, rules: RuleSet, after_seq: u64) -> SeatTracker {
        SeatTracker {
            seat,
            rules,
            last_seq: after_seq,
            hand: CardSet::EMPTY,
            pile: Vec::with_capacity(52),
            stock_len: 0,
            taken: None,
            knock_limit: 0,
            scores: BySeat::default(),
            hand_number: None,
            stage: 0,
            memory: Memory::new(seat),
            turn: None,
            names: Default::default(),
            bots: [false; 2],
            entrants: [false; 2],
            result: None,
        }
    }

    /// The seat.
    pub fn seat(&self) -> Seat {
        self.seat
    }

    /// The rules.
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// The seq of the last event applied.
    pub fn last_seq(&self) -> u64 {
        self.last_seq
    }

    /// The game's result, once the game-over event arrived.
    pub fn result(&self) -> Option<&pb::GameResult> {
        self.result.as_ref()
    }

    /// Hands finished so far (dead hands included).
    pub fn hands_ended(&self) -> u32 {
        self.memory.hands_ended
    }

    /// The display name of `seat` (empty until it joined).
    pub fn name(&self, seat: Seat) -> &str {
        &self.names[seat.index()]
    }

    /// Whether `seat` is a house bot.
    pub fn is_bot(&self, seat: Seat) -> bool {
        self.bots[seat.index()]
    }

    /// Whether a tournament's entrant holds `seat` (a program or person entered in the
    /// tournament: never a house bot).
    pub fn is_entrant(&self, seat: Seat) -> bool {
        self.entrants[seat.index()]
    }

    /// Records who sits at `seat` (from a snapshot: events before the tracker's start).
    pub fn set_player(&mut self, seat: Seat, name: &str, bot: bool) {
        self.names[seat.index()] = name.to_string();
        self.bots[seat.index()] = bot;
    }

    /// Records whether a tournament's entrant sits at `seat` (from a snapshot's
    /// `SeatInfo.entrant`).
    pub fn set_entrant(&mut self, seat: Seat, entrant: bool) {
        self.entrants[seat.index()] = entrant;
    }

    /// The seat's cards now.
    pub fn hand(&self) -> CardSet {
        self.hand
    }

    /// The seat's memory of the hand in play.
    pub fn memory(&self) -> &Memory {
        &self.memory
    }

    /// Applies one event. Events at or before [`last_seq`](Self::last_seq) are ignored
    /// (a duplicate); a gap is an error. On error the tracker is unchanged.
    pub fn apply(&mut self, ev: &pb::GameEvent) -> Result<(), TrackError> {
        if ev.seq <= self.last_seq {
            return Ok(());
        }
        if ev.seq != self.last_seq + 1 {
            return Err(TrackError(format!("event seq {} after seq {}: a gap", ev.seq, self.last_seq)));
        }
        let mut next = self.clone();
        next.apply_kind(ev.seq, ev.kind.as_ref())
            .map_err(|e| TrackError(format!("event {}: {e}", ev.seq)))?;
        next.last_seq = ev.seq;
        *self = next;
        Ok(())
    }

    fn apply_kind(&mut self, seq: u64, kind: Option<&K>) -> Result<(), String> {
        let me = self.seat;
        if !matches!(kind, Some(K::TurnStarted(_))) {
            self.turn = None;
        }
        match kind {
            None => return Err("an event with no kind".into()),
            Some(K::PlayerJoined(j)) => {
                let s = convert::seat(j.seat).map_err(wire)?;
                // Signed in: the account's name, as a snapshot's seat shows it (`seat_name`).
                self.names[s.index()] = crate::account::joined_name(j);
                self.bots[s.index()] = j.bot;
                self.entrants[s.index()] = j.entrant;
            }
            Some(K::PlayerLeft(_)) | Some(K::ClockExpired(_)) => {}
            Some(K::MeldLaid(_) | K::CardLaidOff(_) | K::PileTurned(_) | K::TableHandEnded(_)) => {
                return Err("an event of a table format in a two-player game".into());
            }
            Some(K::HandDealt(d)) => {
                let upcard = convert::card(&d.upcard).map_err(wire)?;
                let hand = convert::cards(&d.your_hand).map_err(wire)?;
                if hand.len() != 10 {
                    return Err(format!("dealt {} cards to this seat", hand.len()));
                }
                if self.hand_number.is_some() && d.stage != self.stage {
                    self.scores = BySeat::default();
                }
                self.hand_number = Some(d.hand_number);
                self.stage = d.stage;
                self.hand = hand;
                self.pile.clear();
                self.pile.push(upcard);
                self.stock_len = d.stock_size;
                self.taken = None;
                self.knock_limit = d.knock_limit;
                self.memory.new_hand(d.hand_number, hand, upcard);
            }
            Some(K::TurnStarted(t)) => {
                self.turn = None;
                if convert::seat(t.seat).map_err(wire)? == me
                    && let Some(info) = &t.turn
                {
                    self.turn = Some((seq, convert::legal(me, &info.legal_actions).map_err(wire)?));
                }
            }
            Some(K::UpcardPassed(p)) => {
                let seat = convert::seat(p.seat).map_err(wire)?;
                let card = *self.pile.last().ok_or("a pass with no upcard")?;
                self.memory.observe(Seen::Passed { seat, card });
            }
            Some(K::CardDrawn(d)) => {
                let seat = convert::seat(d.seat).map_err(wire)?;
                self.stock_len = d.stock_size;
                match pb::DrawSource::try_from(d.source) {
                    Ok(pb::DrawSource::Pile) => {
                        let card = self.pile.pop().ok_or("a pile draw from an empty pile")?;
                        if !d.card.is_empty() && convert::card(&d.card).map_err(wire)? != card {
                            return Err(format!("drew {} from the pile, whose top is {card}", d.card));
                        }
                        if seat == me {
                            self.hand.insert(card);
                        }
                        self.taken = Some(card);
                        self.memory.observe(Seen::DrewPile { seat, card });
                    }
                    Ok(pb::DrawSource::Stock) => {
                        self.taken = None;
                        if seat == me {
                            let card = convert::card(&d.card).map_err(wire)?;
                            self.hand.insert(card);
                            self.memory.observe(Seen::DrewStock { seat, card: Some(card) });
                        } else {
                            self.memory.observe(Seen::DrewStock { seat, card: None });
                        }
                    }
                    _ => return Err(format!("unknown draw source {}", d.source)),
                }
            }
            Some(K::CardDiscarded(d)) => {
                let seat = convert::seat(d.seat).map_err(wire)?;
                let card = convert::card(&d.card).map_err(wire)?;
                if seat == me && !self.hand.remove(card) {
                    return Err(format!("this seat discarded {card}, which it does not hold"));
                }
                self.pile.push(card);
                self.taken = None;
                self.memory.observe(Seen::Discarded { seat, card });
            }
            Some(K::HandEnded(h)) => {
                let shown = match h.result.as_ref().and_then(|r| r.showdown.as_ref()) {
                    Some(s) => Some(Shown {
                        knocker: convert::seat(s.knocker).map_err(wire)?,
                        knocker_deadwood: s.knocker_melds.as_ref().map_or(0, |a| a.deadwood_value),
                        defender_hand: convert::defender_hand(s).map_err(wire)?,
                    }),
                    None => None,
                };
                self.memory.hand_ended(shown.as_ref(), self.knock_limit);
                if let Some(r) = &h.result
                    && r.scores.len() == 2
                {
                    self.scores = BySeat::new(r.scores[0], r.scores[1]);
                }
            }
            Some(K::GameOver(g)) => {
                self.result = Some(g.result.clone().unwrap_or_default());
            }
        }
        Ok(())
    }

    /// The seat's decision, when the last event gave it the turn with its legal actions.
    pub fn decision(&self) -> Option<Decision<'_>> {
        let (seq, legal) = self.turn?;
        if seq != self.last_seq || self.result.is_some() {
            return None;
        }
        Some(Decision {
            seat: self.seat,
            rules: &self.rules,
            hand: self.hand,
            pile: &self.pile,
            stock_len: self.stock_len,
            taken: self.taken,
            knock_limit: self.knock_limit,
            legal,
            scores: self.scores,
            memory: &self.memory,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{Action, Game, GameSetup, hand};

    fn ev(seq: u64, kind: K) -> pb::GameEvent {
        pb::GameEvent { seq, time_unix_ms: 0, kind: Some(kind) }
    }

    /// A seat taken signed in is named as its account, as `seat_name` names it from a snapshot.
    #[test]
    fn a_joined_account_is_named_as_the_account() {
        let mut t = SeatTracker::new(Seat::S0, RuleSet::standard(), 0);
        let joined = |seat, name: &str, account: &str, kind: pb::AccountKind| {
            K::PlayerJoined(pb::PlayerJoined {
                seat,
                name: name.into(),
                account: account.into(),
                account_kind: kind as i32,
                ..Default::default()
            })
        };
        t.apply(&ev(1, joined(0, "me", "", pb::AccountKind::Unspecified))).unwrap();
        t.apply(&ev(2, joined(1, "asked as", "Robo", pb::AccountKind::Bot))).unwrap();
        assert_eq!((t.name(Seat::S0), t.name(Seat::S1)), ("me", "Robo (bot)"));
    }

    /// The tracker's decisions equal the engine's own view of the seat, turn after turn,
    /// in a whole game fed with events built from the engine the way the server redacts them.
    #[test]
    fn follows_a_whole_game_like_the_engine() {
        use gin_strategies::Strategy;
        let mut game = Game::new(GameSetup::new(RuleSet::standard(), 7)).unwrap();
        let mut trackers = Seat::BOTH.map(|s| SeatTracker::new(s, RuleSet::standard(), 0));
        let mut bots =
            [gin_strategies::simple::SimpleStrategy::new(1), gin_strategies::simple::SimpleStrategy::new(2)];
        let mut seq = 0;
        let mut feed = |trackers: &mut [SeatTracker; 2], k: &dyn Fn(Seat) -> K| {
            seq += 1;
            for t in trackers.iter_mut() {
                t.apply(&ev(seq, k(t.seat()))).unwrap();
            }
        };
        let mut hand_number = u32::MAX;
        let mut decisions = 0;
        while let Some(seat) = game.to_act() {
            if game.hand_number() != hand_number {
                hand_number = game.hand_number();
                let h = game.hand().clone();
                feed(&mut trackers, &|v| {
                    K::HandDealt(pb::HandDealt {
                        hand_number,
                        upcard: h.upcard().to_string(),
                        knock_limit: h.knock_limit(),
                        your_hand: h.cards(v).iter().map(|c| c.to_string()).collect(),
                        stock_size: h.stock_len() as u32,
                        ..Default::default()
                    })
                });
            }
            let h = game.hand().clone();
            let info = pb::TurnInfo {
                legal_actions: h
                    .legal_actions()
                    .iter()
                    .map(|a| {
                        let (kind, card) = match a {
                            Action::Pass => (pb::ActionKind::PassUpcard, None),
                            Action::DrawStock => (pb::ActionKind::DrawStock, None),
                            Action::DrawPile => (pb::ActionKind::DrawPile, None),
                            Action::Discard { card } => (pb::ActionKind::Discard, Some(*card)),
                            Action::Knock { discard, .. } => (pb::ActionKind::Knock, Some(*discard)),
                            Action::BigGin { .. } => (pb::ActionKind::BigGin, None),
                        };
                        pb::LegalAction {
                            kind: kind as i32,
                            card: card.map(|c| c.to_string()).unwrap_or_default(),
                            deadwood: 0,
                            ..Default::default()
                        }
                    })
                    .collect(),
                ..Default::default()
            };
            feed(&mut trackers, &|v| {
                K::TurnStarted(pb::TurnStarted {
                    seat: seat.index() as u32,
                    turn: (v == seat).then(|| info.clone()),
                    ..Default::default()
                })
            });
            assert!(trackers[seat.other().index()].decision().is_none());
            let d = trackers[seat.index()].decision().expect("the seat to act decides");
            assert_eq!(d.hand, h.cards(seat));
            assert_eq!(d.pile, h.pile());
            assert_eq!(d.stock_len, h.stock_len() as u32);
            assert_eq!(d.taken, h.taken_from_pile());
            assert_eq!(d.legal, h.legal());
            assert_eq!(d.scores, game.scores());
            // The other seat's part in this game's showdowns so far: its knocks' deadwood,
            // or its ten cards' least deadwood when it defended.
            let shown: Vec<(bool, u32)> = game
                .hands()
                .iter()
                .filter_map(|h| h.result.showdown.as_ref())
                .map(|s| match s.knocker != seat {
                    true => (true, s.knocker_deadwood),
                    false => (false, engine::deadwood(Shown::of(s).defender_hand)),
                })
                .collect();
            let remembered: Vec<(bool, u32)> =
                d.memory.opp_showdowns.iter().map(|s| (s.knocked, s.deadwood)).collect();
            assert_eq!(remembered, shown);
            let action = bots[seat.index()].act(&d);
            decisions += 1;
            let step = game.apply(seat, &action).unwrap();
            let s = seat.index() as u32;
            match step.event {
                engine::Event::Passed { .. } => {
                    feed(&mut trackers, &|_| K::UpcardPassed(pb::UpcardPassed { seat: s }))
                }
                engine::Event::Drew { card, from_stock, .. } => {
                    let stock = game.hand().stock_len() as u32;
                    feed(&mut trackers, &|v| {
                        K::CardDrawn(pb::CardDrawn {
                            seat: s,
                            source: if from_stock { pb::DrawSource::Stock } else { pb::DrawSource::Pile }
                                as i32,
                            card: if !from_stock || v == seat { card.to_string() } else { String::new() },
                            stock_size: stock,
                        })
                    })
                }
                engine::Event::Discarded { card, .. }
                | engine::Event::DeadHand { card, .. }
                | engine::Event::TurnLimit { card, .. } => feed(&mut trackers, &|_| {
                    K::CardDiscarded(pb::CardDiscarded { seat: s, card: card.to_string() })
                }),
                engine::Event::Knocked { .. } => {}
            }
            if step.hand_over {
                let last = game.hands().last().unwrap();
                let scores = last.scores.0.to_vec();
                let showdown = last.result.showdown.as_ref().map(|s| pb::Showdown {
                    knocker: s.knocker.index() as u32,
                    knocker_melds: Some(pb::Arrangement {
                        deadwood_value: s.knocker_deadwood,
                        ..Default::default()
                    }),
                    defender_melds: Some(pb::Arrangement {
                        melds: convert::melds_to_pb(s.defender_arrangement.melds()),
                        deadwood: convert::cards_to_pb(s.defender_arrangement.deadwood_cards()),
                        deadwood_value: s.defender_deadwood,
                    }),
                    layoffs: s
                        .layoffs
                        .iter()
                        .map(|l| pb::Layoff { card: l.card.to_string(), meld: l.meld as u32 })
                        .collect(),
                    ..Default::default()
                });
                feed(&mut trackers, &|_| {
                    K::HandEnded(pb::HandEnded {
                        result: Some(pb::HandResult {
                            scores: scores.clone(),
                            showdown: showdown.clone(),
                            ..Default::default()
                        }),
                    })
                });
            }
        }
        assert!(decisions > 20);
        feed(&mut trackers, &|_| K::GameOver(pb::GameOver { result: Some(pb::GameResult::default()) }));
        assert!(trackers.iter().all(|t| t.result().is_some() && t.decision().is_none()));
    }

    #[test]
    fn gaps_and_contradictions_are_refused_and_change_nothing() {
        let mut t = SeatTracker::new(Seat::S0, RuleSet::standard(), 1);
        let deal = K::HandDealt(pb::HandDealt {
            upcard: "QS".into(),
            your_hand: hand("AC 2C 3C 4D 5D 6D 7H 8H 9H KS").iter().map(|c| c.to_string()).collect(),
            stock_size: 31,
            ..Default::default()
        });
        assert!(t.apply(&ev(3, deal.clone())).is_err(), "seq 2 is missing");
        t.apply(&ev(2, deal.clone())).unwrap();
        t.apply(&ev(2, deal)).unwrap(); // a duplicate: ignored
        let before = t.hand();
        let bad = K::CardDiscarded(pb::CardDiscarded { seat: 0, card: "JD".into() });
        assert!(t.apply(&ev(3, bad)).is_err(), "seat 0 does not hold JD");
        assert_eq!((t.last_seq(), t.hand()), (2, before));
    }
}
