//! What one seat remembers of the hand in play, built only from what that seat may see.
//!
//! The same [`Memory`] is fed by the local self-play loop, the server's house bots and the
//! network client, from [`Seen`] events that never hold a card the seat may not see (a stock
//! draw by the other seat comes with no card): [`Seen::of`] is that redaction of the engine's
//! events (local play, house bots); the network client reads the server's redacted events.
//! Strategies read it to infer the opponent's hand.

use engine::{Card, CardSet, Event, Seat};

/// One thing a seat saw happen in the hand in play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seen {
    /// `seat` declined the upcard `card` during the offer.
    Passed {
        /// Who.
        seat: Seat,
        /// The upcard.
        card: Card,
    },
    /// `seat` drew from the stock; `card` is known only to the seat that drew it.
    DrewStock {
        /// Who.
        seat: Seat,
        /// The card, when the viewer is the one who drew.
        card: Option<Card>,
    },
    /// `seat` took `card` from the pile.
    DrewPile {
        /// Who.
        seat: Seat,
        /// The card.
        card: Card,
    },
    /// `seat` discarded `card` face up.
    Discarded {
        /// Who.
        seat: Seat,
        /// The card.
        card: Card,
    },
}

impl Seen {
    /// What `viewer` sees of the engine's `event`: everything but the card of the other
    /// seat's stock draw. `pile_top` is the pile's top before the event (the upcard a pass
    /// declines). `None` for a knock (the hand's end is no move to remember).
    #[inline]
    pub fn of(event: &Event, viewer: Seat, pile_top: Option<Card>) -> Option<Seen> {
        match *event {
            Event::Passed { seat } => pile_top.map(|card| Seen::Passed { seat, card }),
            Event::Drew { seat, card, from_stock: true } => {
                Some(Seen::DrewStock { seat, card: (seat == viewer).then_some(card) })
            }
            Event::Drew { seat, card, from_stock: false } => Some(Seen::DrewPile { seat, card }),
            Event::Discarded { seat, card }
            | Event::DeadHand { seat, card }
            | Event::TurnLimit { seat, card } => Some(Seen::Discarded { seat, card }),
            Event::Knocked { .. } => None,
        }
    }
}

/// A seat's memory of the hand in play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Memory {
    /// Whose memory.
    pub seat: Seat,
    /// The hand it belongs to.
    pub hand_number: u32,
    /// The upcard this hand started with.
    pub upcard: Option<Card>,
    /// Cards the opponent surely holds: taken from the pile and not discarded since.
    pub opp_known: CardSet,
    /// Cards the opponent discarded this hand.
    pub opp_discards: CardSet,
    /// Cards the opponent declined: the upcard it passed, or the pile's top when it drew
    /// from the stock instead.
    pub opp_declined: CardSet,
    /// Cards this seat discarded this hand.
    pub own_discards: CardSet,
    /// Every card this seat has seen (its own, and every card shown face up).
    pub seen: CardSet,
    /// The face-up discard pile, bottom first.
    pub pile: Vec<Card>,
    /// Draws made by each seat this hand.
    pub draws: [u32; 2],
    /// The card this seat drew this turn (until it discards).
    pub drawn: Option<Card>,
    /// This seat's (drawn, discarded) pairs this hand, in order.
    pub own_pairs: Vec<(Card, Card)>,
    /// The opponent's visible moves this hand, in order.
    pub opp_moves: Vec<Seen>,
    /// The opponent's part in this game's showdowns (kept across hands): whether it knocked
    /// and its deadwood then. What kind of knocker it is, eager or patient, shows there.
    pub opp_showdowns: Vec<OppShowdown>,
    /// Hands ended this game (dead hands count).
    pub hands_ended: u32,
}

/// A hand's showdown, as both seats see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shown {
    /// Who knocked.
    pub knocker: Seat,
    /// The knocker's deadwood (0 for gin and big gin).
    pub knocker_deadwood: u32,
    /// The defender's ten cards as it held them (its melds, deadwood and layoffs).
    pub defender_hand: CardSet,
}

impl Shown {
    /// What the engine's showdown shows.
    pub fn of(s: &engine::Showdown) -> Shown {
        let mut defender_hand = s.defender_arrangement.cards();
        for l in &s.layoffs {
            defender_hand.insert(l.card);
        }
        Shown { knocker: s.knocker, knocker_deadwood: s.knocker_deadwood, defender_hand }
    }
}

/// The opponent's part in one showdown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OppShowdown {
    /// It knocked (else it defended).
    pub knocked: bool,
    /// Its deadwood: the knock's, or the least its ten cards could have (before layoffs)
    /// when it defended. A defender at or under the limit could have knocked at its last
    /// turn and did not.
    pub deadwood: u32,
    /// The hand's knock limit.
    pub limit: u32,
}

impl OppShowdown {
    /// The opponent's part in showdown `s` of a hand in which this seat was `seat`, under
    /// knock limit `limit`; `None` when it defended and the showdown does not show its ten
    /// cards (a server that sent no melds): its hand says nothing then, rather than a false
    /// "could have knocked".
    pub fn of(s: &Shown, seat: Seat, limit: u32) -> Option<OppShowdown> {
        let knocked = s.knocker != seat;
        if !knocked && s.defender_hand.len() != 10 {
            return None;
        }
        let deadwood = if knocked { s.knocker_deadwood } else { engine::deadwood(s.defender_hand) };
        Some(OppShowdown { knocked, deadwood, limit })
    }
}

impl Memory {
    /// An empty memory for `seat`.
    pub fn new(seat: Seat) -> Memory {
        Memory {
            seat,
            hand_number: 0,
            upcard: None,
            opp_known: CardSet::EMPTY,
            opp_discards: CardSet::EMPTY,
            opp_declined: CardSet::EMPTY,
            own_discards: CardSet::EMPTY,
            seen: CardSet::EMPTY,
            pile: Vec::with_capacity(52),
            draws: [0; 2],
            drawn: None,
            own_pairs: Vec::with_capacity(32),
            opp_moves: Vec::with_capacity(64),
            opp_showdowns: Vec::new(),
            hands_ended: 0,
        }
    }

    /// Starts hand `hand_number`: this seat was dealt `cards` and `upcard` is face up.
    pub fn new_hand(&mut self, hand_number: u32, cards: CardSet, upcard: Card) {
        self.hand_number = hand_number;
        self.upcard = Some(upcard);
        self.opp_known = CardSet::EMPTY;
        self.opp_discards = CardSet::EMPTY;
        self.opp_declined = CardSet::EMPTY;
        self.own_discards = CardSet::EMPTY;
        self.seen = cards.with(upcard);
        self.pile.clear();
        self.pile.push(upcard);
        self.draws = [0; 2];
        self.drawn = None;
        self.own_pairs.clear();
        self.opp_moves.clear();
    }

    /// Records one event of the hand in play.
    pub fn observe(&mut self, ev: Seen) {
        let mine = |s: Seat| s == self.seat;
        match ev {
            Seen::Passed { seat, card } => {
                if !mine(seat) {
                    self.opp_declined.insert(card);
                    self.opp_moves.push(ev);
                }
            }
            Seen::DrewStock { seat, card } => {
                self.draws[seat.index()] += 1;
                if mine(seat) {
                    if let Some(c) = card {
                        self.seen.insert(c);
                    }
                    self.drawn = card;
                } else {
                    if let Some(&top) = self.pile.last() {
                        self.opp_declined.insert(top);
                    }
                    self.opp_moves.push(Seen::DrewStock { seat, card: None });
                }
            }
            Seen::DrewPile { seat, card } => {
                self.draws[seat.index()] += 1;
                self.pile.pop();
                if mine(seat) {
                    self.drawn = Some(card);
                } else {
                    self.opp_known.insert(card);
                    self.opp_moves.push(ev);
                }
            }
            Seen::Discarded { seat, card } => {
                self.seen.insert(card);
                self.pile.push(card);
                if mine(seat) {
                    self.own_discards.insert(card);
                    if let Some(d) = self.drawn.take() {
                        self.own_pairs.push((d, card));
                    }
                } else {
                    self.opp_known.remove(card);
                    self.opp_discards.insert(card);
                    self.opp_moves.push(ev);
                }
            }
        }
    }

    /// Records the end of the hand in play: its showdown (`None` for a dead hand) under
    /// knock limit `knock_limit`. The hand's own memory stays until the next
    /// [`Memory::new_hand`].
    pub fn hand_ended(&mut self, shown: Option<&Shown>, knock_limit: u32) {
        self.hands_ended += 1;
        if let Some(o) = shown.and_then(|s| OppShowdown::of(s, self.seat, knock_limit)) {
            self.opp_showdowns.push(o);
        }
    }

    /// The discard pile's top card.
    pub fn pile_top(&self) -> Option<Card> {
        self.pile.last().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{card, hand};

    #[test]
    fn tracks_pickups_declines_and_pairs() {
        let me = Seat::S0;
        let mut m = Memory::new(me);
        m.new_hand(3, hand("AC 2C 3C 4D 5D 6D 7H 8H 9H KS"), card("QS"));
        m.observe(Seen::Passed { seat: Seat::S1, card: card("QS") });
        assert!(m.opp_declined.contains(card("QS")));
        m.observe(Seen::DrewStock { seat: me, card: Some(card("TS")) });
        assert!(m.seen.contains(card("TS")));
        m.observe(Seen::Discarded { seat: me, card: card("KS") });
        assert_eq!(m.own_pairs, vec![(card("TS"), card("KS"))]);
        m.observe(Seen::DrewPile { seat: Seat::S1, card: card("KS") });
        assert_eq!(m.pile_top(), Some(card("QS")));
        assert_eq!(m.opp_known, CardSet::single(card("KS")));
        m.observe(Seen::Discarded { seat: Seat::S1, card: card("KS") });
        assert!(m.opp_known.is_empty());
        assert!(m.opp_discards.contains(card("KS")));
        m.observe(Seen::DrewStock { seat: me, card: Some(card("JS")) });
        m.observe(Seen::Discarded { seat: me, card: card("JS") });
        // The opponent draws from the stock rather than take JS: it declined JS.
        m.observe(Seen::DrewStock { seat: Seat::S1, card: None });
        assert!(m.opp_declined.contains(card("JS")));
        assert_eq!(m.draws, [2, 2]);
        assert_eq!(m.opp_moves.len(), 4);
    }

    #[test]
    fn keeps_the_opponents_showdowns_across_hands() {
        let me = Seat::S1;
        let mut m = Memory::new(me);
        let dealt = hand("AC 2C 3C 4D 5D 6D 7H 8H 9H KS");
        let shown = |knocker, knocker_deadwood, defender: &str| Shown {
            knocker,
            knocker_deadwood,
            defender_hand: hand(defender),
        };
        m.new_hand(0, dealt, card("QS"));
        m.hand_ended(Some(&shown(Seat::S0, 7, "AS 2S 3S 4H 5H 6H 7C 8C 9C KD")), 10);
        m.new_hand(1, dealt, card("QS"));
        // This seat knocked: the opponent's ten cards had 3 deadwood (it could have knocked).
        m.hand_ended(Some(&shown(me, 0, "AS 2S 3S 4H 5H 6H 7C 8C 9C 3D")), 10);
        m.new_hand(2, dealt, card("QS"));
        m.hand_ended(None, 10);
        m.new_hand(3, dealt, card("QS"));
        m.hand_ended(Some(&shown(Seat::S0, 0, "AS 2S 3S 4H 5H 6H 7C 8C 9C KD")), 5);
        // A showdown without the defender's cards is not taken for one it could have won.
        m.new_hand(4, dealt, card("QS"));
        m.hand_ended(Some(&shown(me, 4, "")), 10);
        assert_eq!(
            m.opp_showdowns,
            vec![
                OppShowdown { knocked: true, deadwood: 7, limit: 10 },
                OppShowdown { knocked: false, deadwood: 3, limit: 10 },
                OppShowdown { knocked: true, deadwood: 0, limit: 5 },
            ]
        );
        assert_eq!(m.hands_ended, 5);
    }
}
