//! What one seat, or a spectator, may see.
//!
//! A view is built only by [`Game::seat_view`] / [`Game::spectator_view`] (its fields are
//! private), so a view can never hold a card its viewer may not see: the opponent's hand,
//! the stock, a card the other seat drew from the stock. Both hands appear only in the
//! showdown of a hand that ended with a knock.

use serde::Serialize;

use crate::card::Card;
use crate::cardset::CardSet;
use crate::game::{Game, GameResult, HandSummary};
use crate::hand::{Action, Phase};
use crate::seat::{BySeat, Seat};

/// The public part of the table, seen by everyone.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PublicView {
    hand_number: u32,
    stage: u32,
    dealer: Seat,
    phase: Phase,
    knock_limit: u32,
    pile: Vec<Card>,
    stock_len: usize,
    hand_lens: BySeat<u32>,
    known: BySeat<CardSet>,
    taken_from_pile: Option<Card>,
    scores: BySeat<u32>,
    finished_hands: Vec<HandSummary>,
    result: Option<GameResult>,
}

impl PublicView {
    fn of(g: &Game) -> PublicView {
        let h = g.hand();
        PublicView {
            hand_number: g.hand_number(),
            stage: g.stage(),
            dealer: h.dealer(),
            phase: h.phase(),
            knock_limit: h.knock_limit(),
            pile: h.pile().to_vec(),
            stock_len: h.stock_len(),
            hand_lens: BySeat([h.cards(Seat::S0).len(), h.cards(Seat::S1).len()]),
            known: BySeat([h.known_cards(Seat::S0), h.known_cards(Seat::S1)]),
            taken_from_pile: h.taken_from_pile(),
            scores: g.scores(),
            finished_hands: g.hands().to_vec(),
            result: g.result().cloned(),
        }
    }

    /// Number of the hand in play.
    pub fn hand_number(&self) -> u32 {
        self.hand_number
    }
    /// Current stage.
    pub fn stage(&self) -> u32 {
        self.stage
    }
    /// The dealer of the hand in play.
    pub fn dealer(&self) -> Seat {
        self.dealer
    }
    /// Where the hand stands.
    pub fn phase(&self) -> Phase {
        self.phase
    }
    /// The knock limit of this hand.
    pub fn knock_limit(&self) -> u32 {
        self.knock_limit
    }
    /// The face-up pile, bottom first.
    pub fn pile(&self) -> &[Card] {
        &self.pile
    }
    /// Cards left in the stock.
    pub fn stock_len(&self) -> usize {
        self.stock_len
    }
    /// How many cards each seat holds.
    pub fn hand_lens(&self) -> BySeat<u32> {
        self.hand_lens
    }
    /// Cards each seat is known to hold (taken from the pile).
    pub fn known(&self) -> BySeat<CardSet> {
        self.known
    }
    /// The card taken from the pile this turn.
    pub fn taken_from_pile(&self) -> Option<Card> {
        self.taken_from_pile
    }
    /// Stage scores.
    pub fn scores(&self) -> BySeat<u32> {
        self.scores
    }
    /// Finished hands (with their showdowns).
    pub fn finished_hands(&self) -> &[HandSummary] {
        &self.finished_hands
    }
    /// The game's result once over.
    pub fn result(&self) -> Option<&GameResult> {
        self.result.as_ref()
    }

    /// Every card of the hand in play that this view shows (for leak checks; the showdowns
    /// of finished hands are public by nature and not counted).
    pub fn current_cards(&self) -> CardSet {
        let pile: CardSet = self.pile.iter().copied().collect();
        pile | self.known[Seat::S0] | self.known[Seat::S1]
    }
}

/// What one seat may see.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SeatView {
    seat: Seat,
    hand: CardSet,
    public: PublicView,
    legal: Vec<Action>,
}

impl SeatView {
    /// Whose view.
    pub fn seat(&self) -> Seat {
        self.seat
    }
    /// The seat's own cards.
    pub fn hand(&self) -> CardSet {
        self.hand
    }
    /// The public part.
    pub fn public(&self) -> &PublicView {
        &self.public
    }
    /// The seat's legal actions (empty when it is not its turn).
    pub fn legal(&self) -> &[Action] {
        &self.legal
    }
    /// Every card of the hand in play that this view shows.
    pub fn current_cards(&self) -> CardSet {
        let legal: CardSet = self
            .legal
            .iter()
            .filter_map(|a| match a {
                Action::Discard { card } | Action::Knock { discard: card, .. } => Some(*card),
                _ => None,
            })
            .collect();
        self.public.current_cards() | self.hand | legal
    }
}

/// What a spectator may see: the public part only.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SpectatorView {
    public: PublicView,
}

impl SpectatorView {
    /// The public part.
    pub fn public(&self) -> &PublicView {
        &self.public
    }
}

impl Game {
    /// What `seat` may see now.
    pub fn seat_view(&self, seat: Seat) -> SeatView {
        let legal = if self.to_act() == Some(seat) { self.hand().legal_actions() } else { Vec::new() };
        SeatView { seat, hand: self.hand().cards(seat), public: PublicView::of(self), legal }
    }

    /// What a spectator may see now.
    pub fn spectator_view(&self) -> SpectatorView {
        SpectatorView { public: PublicView::of(self) }
    }
}
