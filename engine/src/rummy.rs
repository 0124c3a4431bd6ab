//! Basic rummy (seed 003), the sibling game: 2 to 6 players, melds laid on the table during
//! one's turn, lay-offs onto anyone's melds, going out, the pile turned into the stock when
//! the stock runs out, the cards left in the other hands scored by the one who went out
//! (doubled for a "rummy"), ace low or (by option) high.
//!
//! # The project's choices where the seed is silent
//!
//! - **Turn order and deal**: the dealer deals one card at a time, starting on its left
//!   (seat `dealer + 1`), who plays first; the deal passes to the left after each hand.
//!   After the hands, the next card starts the discard pile, the rest is the stock.
//! - **The stock runs out**: at a draw from an empty stock, the discard pile except its top
//!   card is shuffled into a new stock (the pile from its bottom card up, Fisher–Yates as
//!   for the deck, [`crate::Deck`], on ChaCha8 keyed by the game seed, nonce `hand | k << 48`
//!   for the `k`-th turn of the pile in that hand, `k` from 1; the first card of the result
//!   is the new stock's top). After [`RummyRules::max_reshuffles`] turns (default 3),
//!   or when the pile has fewer than two cards to turn, the stock cannot be made again: if
//!   so at the start of a turn, the hand is **dead** (nobody scores, the deal passes on;
//!   taking the pile's top card turn after turn would go on forever).
//! - **Lay-offs** are one card at a time onto one meld on the table (any player's); a run
//!   is extended card by card (to add 6 and 7 to 3-4-5, lay off the 6, then the 7).
//! - **A play must leave a legal discard** when the final discard is required (the hand
//!   may not be emptied by a meld or a lay-off), and may never leave only the card just
//!   taken from the pile (which may not be discarded this turn).
//! - **"Rummy"**: going out in one turn having laid no meld and laid off no card earlier in
//!   the hand (every player discards every turn: discards do not count).
//! - **The game**: to a target (the first to reach it wins: only the hand's winner scores,
//!   so one player at a time reaches it) or a number of hands (the most points win; equal
//!   points share the win).
//! - **Every hand and every game ends** (RULES.md): a hand whose
//!   [`RummyRules::max_turns_per_hand`]-th turn ends with a discard that does not go out is
//!   void there (nobody scores, [`RummyHandResult::turn_limit`]); a game that has played
//!   [`RummyRules::max_hands_per_game`] hands ends where it stands, the most points winning
//!   ([`crate::GameEnd::HandLimit`]). The defaults are by table size, far above honest play.

use std::fmt;

use crate::card::{Card, Rank};
#[cfg(test)]
use crate::cardset::nth_card_search;
use crate::cardset::{CardSet, LANE, nth_card};
use crate::deal::{Deck, shuffle_turned_pile};

/// How a hand may end by going out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinalDiscard {
    /// A player goes out by melding, laying off or discarding its last card.
    Optional,
    /// The last card must be discarded (« certains joueurs exigent que la dernière carte
    /// dans la main d'un joueur soit défaussée »).
    Required,
}

/// How the game ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RummyEnd {
    /// The first to reach this many points wins.
    Target(u32),
    /// After this many hands (dead ones included), the most points win.
    Hands(u32),
}

/// The rules of a basic rummy game: every number a field.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RummyRules {
    /// Players at the table: 2 to 6.
    pub players: u8,
    /// Cards dealt to each; 0: by the table size (10 for 2, 7 for 3–4, 6 for 5–6).
    pub hand_size: u8,
    /// Aces high or low: Q-K-A is a run too (K-A-2 never is), and an ace counts 15.
    pub ace_high: bool,
    /// Whether going out needs a final discard.
    pub final_discard: FinalDiscard,
    /// Whether a "rummy" doubles the hand's points.
    pub rummy_doubles: bool,
    /// How many times the pile may be turned into the stock in one hand.
    pub max_reshuffles: u32,
    /// The end of the game.
    pub end: RummyEnd,
    /// A hand that reaches this many turns without anyone going out is void there. Default
    /// by table size, [`default_max_turns`].
    pub max_turns_per_hand: u32,
    /// A game that has played this many hands (void ones included) ends where it stands.
    /// Default by table size, [`default_max_hands`].
    pub max_hands_per_game: u32,
}

/// The default [`RummyRules::max_turns_per_hand`] at a table of `players`: at least three
/// times the longest hand seen in 100,000 hands of `simple` against `simple` there (the book,
/// docs/book/src/rules/fields.md, "Every hand and every game ends").
pub const fn default_max_turns(players: u8) -> u32 {
    match players {
        0..=2 => 400,
        3 => 400,
        4 => 300,
        5 => 270,
        _ => 200,
    }
}

/// The default [`RummyRules::max_hands_per_game`] at a table of `players`: at least three
/// times the longest game of the same self-play runs.
pub const fn default_max_hands(players: u8) -> u32 {
    match players {
        0..=2 => 140,
        3 => 90,
        4 => 70,
        5 => 50,
        _ => 50,
    }
}

impl Default for RummyRules {
    fn default() -> RummyRules {
        RummyRules {
            players: 2,
            hand_size: 0,
            ace_high: false,
            final_discard: FinalDiscard::Optional,
            rummy_doubles: true,
            max_reshuffles: 3,
            end: RummyEnd::Target(150),
            max_turns_per_hand: default_max_turns(2),
            max_hands_per_game: default_max_hands(2),
        }
    }
}

/// Why a rule set is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RummyRulesError(pub String);

impl fmt::Display for RummyRulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "rummy rules: {}", self.0)
    }
}

impl std::error::Error for RummyRulesError {}

impl RummyRules {
    /// The default rules for `players` (checked).
    pub fn for_players(players: u8) -> Result<RummyRules, RummyRulesError> {
        let r = RummyRules::default().resized(players);
        r.check()?;
        Ok(r)
    }

    /// The same rules at a table of `players` (unchecked): each limit left at the old
    /// size's default ([`default_max_turns`], [`default_max_hands`]) becomes the new size's;
    /// a number set otherwise is kept.
    pub fn resized(self, players: u8) -> RummyRules {
        let old = self.players;
        let follow = |v: u32, f: fn(u8) -> u32| if v == f(old) { f(players) } else { v };
        RummyRules {
            players,
            max_turns_per_hand: follow(self.max_turns_per_hand, default_max_turns),
            max_hands_per_game: follow(self.max_hands_per_game, default_max_hands),
            ..self
        }
    }

    /// Cards dealt to each player.
    pub fn cards_each(&self) -> u8 {
        match (self.hand_size, self.players) {
            (0, 2) => 10,
            (0, 3 | 4) => 7,
            (0, _) => 6,
            (n, _) => n,
        }
    }

    /// Refuses an impossible combination, saying why.
    pub fn check(&self) -> Result<(), RummyRulesError> {
        let bad = |m: String| Err(RummyRulesError(m));
        if !(2..=6).contains(&self.players) {
            return bad(format!("players: {} (2 to 6)", self.players));
        }
        let each = self.cards_each() as u32;
        if !(1..=20).contains(&each) {
            return bad(format!("hand_size: {each} (1 to 20)"));
        }
        // The hands, the pile's first card and at least one card of stock.
        let needed = each * self.players as u32 + 2;
        if needed > 52 {
            return bad(format!(
                "{} players with {each} cards each need {needed} cards (hands, the first discard, a stock); \
                 a deck has 52",
                self.players
            ));
        }
        for (field, v) in
            [("max_turns_per_hand", self.max_turns_per_hand), ("max_hands_per_game", self.max_hands_per_game)]
        {
            if v == 0 || v > crate::rules::MAX_LIMIT {
                return bad(format!("{field}: {v} (1 to {})", crate::rules::MAX_LIMIT));
            }
        }
        match self.end {
            RummyEnd::Target(0) => bad("end: a target of at least 1 point".into()),
            RummyEnd::Hands(0) => bad("end: at least one hand".into()),
            RummyEnd::Hands(n) if n > self.max_hands_per_game => bad(format!(
                "end: {n} hands is more than max_hands_per_game ({}): raise that too",
                self.max_hands_per_game
            )),
            _ => Ok(()),
        }
    }

    /// A card's points in a hand left at the end (ace 1, or 15 when aces are high; 2–10 face
    /// value; faces 10).
    pub fn card_points(&self, c: Card) -> u32 {
        if self.ace_high && c.rank() == Rank::ACE { 15 } else { c.value() }
    }

    /// The points of the cards `cards`.
    pub fn points(&self, cards: CardSet) -> u32 {
        let aces = (cards & CardSet::rank(Rank::ACE)).len();
        cards.value() + if self.ace_high { aces * 14 } else { 0 }
    }

    /// Whether `cards` form a meld under these rules: 3 or 4 of a rank, or 3 or more
    /// consecutive cards of a suit (ace low; with `ace_high`, Q-K-A too, never K-A-2).
    pub fn is_meld(&self, cards: CardSet) -> bool {
        let n = cards.len();
        if n < 3 {
            return false;
        }
        if cards.rank_mask().count_ones() == 1 {
            return n <= 4;
        }
        let b = cards.bits();
        let lane = b.trailing_zeros() / 16;
        let bits = (b >> (lane * 16)) & LANE;
        if bits.count_ones() != n {
            return false;
        }
        contiguous(bits) || (self.ace_high && bits & 1 == 1 && contiguous((bits & !1) | 1 << 13))
    }
}

/// The aces: bit 0 of each suit lane.
const ACES: u64 = 0x0001_0001_0001_0001;

const fn contiguous(x: u64) -> bool {
    x != 0 && {
        let s = x >> x.trailing_zeros();
        s & (s + 1) == 0
    }
}

/// A meld on the table.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TableMeld {
    /// Every card of it now (laid off ones included).
    pub cards: CardSet,
    /// Who laid it.
    pub by: u8,
    /// The cards laid off onto it, in order, with who laid each (they stay in front of that
    /// player).
    pub layoffs: Vec<(u8, Card)>,
}

/// One move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RummyAction {
    /// Take the stock's top card (the pile is turned first if the stock is empty).
    DrawStock,
    /// Take the discard pile's top card.
    DrawPile,
    /// Lay these cards from the hand on the table as a new meld.
    Meld(CardSet),
    /// Lay this card off onto the table's meld with this index.
    LayOff {
        /// The card.
        card: Card,
        /// The meld's index on the table.
        meld: usize,
    },
    /// Discard this card, ending the turn.
    Discard(Card),
}

impl fmt::Display for RummyAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RummyAction::DrawStock => f.write_str("draw stock"),
            RummyAction::DrawPile => f.write_str("draw pile"),
            RummyAction::Meld(c) => write!(f, "meld {c}"),
            RummyAction::LayOff { card, meld } => write!(f, "lay off {card} on {meld}"),
            RummyAction::Discard(c) => write!(f, "discard {c}"),
        }
    }
}

/// Where a turn is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RummyPhase {
    /// The player to act draws.
    Draw,
    /// The player to act melds, lays off, then discards.
    Play,
    /// The hand is over.
    Over,
}

/// Why a move is refused (the hand is unchanged).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RummyError {
    /// Not this seat's turn.
    NotYourTurn {
        /// The seat to act (none when the hand is over).
        to_act: Option<u8>,
    },
    /// Not a move of this phase of the turn.
    WrongPhase(RummyPhase),
    /// The move breaks a rule, saying which.
    Illegal(String),
}

impl fmt::Display for RummyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RummyError::NotYourTurn { to_act: Some(s) } => write!(f, "not your turn: seat {s} is to act"),
            RummyError::NotYourTurn { to_act: None } => f.write_str("the hand is over"),
            RummyError::WrongPhase(p) => write!(f, "not a move for this part of the turn ({p:?})"),
            RummyError::Illegal(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for RummyError {}

/// How a hand ended.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RummyHandResult {
    /// Who went out (`None`: a dead hand, nobody scores).
    pub winner: Option<u8>,
    /// Whether it was a rummy.
    pub rummy: bool,
    /// The cards left in each hand.
    pub left: Vec<CardSet>,
    /// The points the winner scores (doubled already for a rummy).
    pub points: u32,
    /// The hand was void at [`RummyRules::max_turns_per_hand`] turns (`winner` is `None`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub turn_limit: bool,
    /// Turns played in the hand (the one that went out included).
    #[serde(default)]
    pub turns: u32,
}

/// What one seat sees of a rummy hand in play, the input of [`RummyHand::from_view`]: every
/// public fact of the hand and the seat's own cards, nothing hidden. A client builds it from
/// the events it was sent from the hand's deal (`gin_sdk::TableTracker` does): a snapshot
/// shows only the pile's top.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RummyView {
    /// The rules.
    pub rules: RummyRules,
    /// Who dealt.
    pub dealer: u8,
    /// The seat whose view this is.
    pub seat: u8,
    /// The seat to act.
    pub to_act: u8,
    /// Where its turn is: [`RummyPhase::Draw`] or [`RummyPhase::Play`].
    pub phase: RummyPhase,
    /// The viewer's cards.
    pub cards: CardSet,
    /// How many cards each seat holds, by seat.
    pub hand_lens: Vec<u32>,
    /// The whole discard pile, bottom first.
    pub pile: Vec<Card>,
    /// The melds on the table, in the order they were laid.
    pub table: Vec<TableMeld>,
    /// Cards left in the stock.
    pub stock_len: u32,
    /// The card the seat to act took from the pile this turn, if any.
    pub taken: Option<Card>,
    /// Turns of the pile into the stock so far in this hand.
    pub pile_turns: u32,
    /// Turns ended so far in this hand (each by a discard).
    pub turns: u32,
    /// By seat: whether it laid a meld or laid off a card in this hand before this turn.
    pub played_before: Vec<bool>,
    /// Whether the seat to act has laid a meld or laid off a card this turn.
    pub played_now: bool,
    /// The cards each seat is known to hold (taken from the pile, not melded, laid off or
    /// discarded since), by seat.
    pub known: Vec<CardSet>,
    /// The cards each seat passed up in this hand, by seat: the pile's top when it drew
    /// from the stock, and the cards it discarded ([`RummyHand::declined`]).
    pub declined: Vec<CardSet>,
}

/// The most melds a table can hold (three cards each).
const MAX_MELDS: usize = 52 / 3;

/// One hand of basic rummy.
///
/// The hot state lives in the struct itself, not behind pointers: each seat's cards in a
/// fixed array, the stock and the pile in one array of cards (the stock from its start, top
/// last; the pile from its end down, top first), the lay-off spots of the table's melds in
/// another.
#[derive(Clone)]
pub struct RummyHand {
    rules: RummyRules,
    seed: u64,
    number: u64,
    dealer: u8,
    /// Each seat's cards (seats `0..players`; the rest empty).
    hands: [CardSet; 8],
    /// The stock in `cards[..stock]` (top last) and the pile in `cards[64 - pile..]` (top
    /// first): together at most 52 cards, so the two never meet.
    cards: [Card; 64],
    stock: u8,
    pile: u8,
    table: Vec<TableMeld>,
    /// Each table meld's lay-off spots ([`RummyHand::spots`]), kept with the table
    /// (`spots[..table.len()]`).
    spots: [CardSet; MAX_MELDS],
    /// All of them together: a hand holding none has no lay-off.
    all_spots: CardSet,
    to_act: u8,
    phase: RummyPhase,
    /// The card taken from the pile this turn, which may not be discarded (none, or one).
    from_pile: CardSet,
    /// Whether each seat has laid a meld or laid off a card in this hand before this turn
    /// (bit `seat`).
    played_before: u8,
    /// Whether the seat to act has melded or laid off this turn.
    played_now: bool,
    /// Each seat's cards known to the others: taken from the pile and still held.
    known: [CardSet; 8],
    /// Each seat's passed-up cards in this hand ([`RummyHand::declined`]).
    declined: [CardSet; 8],
    /// In the play part of a turn, how many legal melds and lay-offs the hand to act has
    /// ([`RummyHand::meld_count`], [`RummyHand::layoff_count`]): counted once each time the
    /// hand or the table changes, not at each question.
    melds_now: u32,
    layoffs_now: u32,
    reshuffles: u32,
    /// Turns ended so far (each by a discard).
    turns: u32,
    /// The aces ([`ACES`]) when they are high, else none: the cards copied above the king
    /// when counting runs.
    high_aces: u64,
    result: Option<RummyHandResult>,
}

impl fmt::Debug for RummyHand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.rules.players as usize;
        f.debug_struct("RummyHand")
            .field("rules", &self.rules)
            .field("seed", &self.seed)
            .field("number", &self.number)
            .field("dealer", &self.dealer)
            .field("hands", &&self.hands[..n])
            .field("stock", &self.stock())
            .field("pile", &self.pile().collect::<Vec<_>>())
            .field("table", &self.table)
            .field("spots", &self.table_spots())
            .field("all_spots", &self.all_spots)
            .field("to_act", &self.to_act)
            .field("phase", &self.phase)
            .field("from_pile", &self.from_pile)
            .field("played_before", &(0..n).map(|s| self.played_before >> s & 1 == 1).collect::<Vec<_>>())
            .field("played_now", &self.played_now)
            .field("known", &&self.known[..n])
            .field("declined", &&self.declined[..n])
            .field("melds_now", &self.melds_now)
            .field("layoffs_now", &self.layoffs_now)
            .field("reshuffles", &self.reshuffles)
            .field("turns", &self.turns)
            .field("result", &self.result)
            .finish()
    }
}

impl RummyHand {
    /// Hand number `number` of a game with seed `seed`, dealt by `dealer`, from the deck
    /// [`Deck::shuffled`]`(seed, number)`.
    pub fn deal(
        rules: &RummyRules,
        seed: u64,
        number: u64,
        dealer: u8,
    ) -> Result<RummyHand, RummyRulesError> {
        RummyHand::deal_from(rules, seed, number, dealer, &Deck::shuffled(seed, number))
    }

    /// The same from an explicit deck (`deck.cards()[0]` dealt first).
    pub fn deal_from(
        rules: &RummyRules,
        seed: u64,
        number: u64,
        dealer: u8,
        deck: &Deck,
    ) -> Result<RummyHand, RummyRulesError> {
        rules.check()?;
        let n = rules.players;
        if dealer >= n {
            return Err(RummyRulesError(format!("dealer: seat {dealer} at a table of {n}")));
        }
        let each = rules.cards_each() as usize;
        let deck = deck.cards();
        let mut hands = [CardSet::EMPTY; 8];
        let mut seat = dealer;
        for &c in &deck[..each * n as usize] {
            seat = if seat + 1 == n { 0 } else { seat + 1 };
            hands[seat as usize].insert(c);
        }
        let first = deck[each * n as usize];
        let rest = &deck[each * n as usize + 1..];
        let mut cards = [first; 64];
        for (at, &c) in cards.iter_mut().zip(rest.iter().rev()) {
            *at = c;
        }
        Ok(RummyHand {
            rules: rules.clone(),
            seed,
            number,
            dealer,
            hands,
            cards,
            stock: rest.len() as u8,
            pile: 1,
            table: Vec::new(),
            spots: [CardSet::EMPTY; MAX_MELDS],
            all_spots: CardSet::EMPTY,
            to_act: (dealer + 1) % n,
            phase: RummyPhase::Draw,
            from_pile: CardSet::EMPTY,
            played_before: 0,
            played_now: false,
            known: [CardSet::EMPTY; 8],
            declined: [CardSet::EMPTY; 8],
            melds_now: 0,
            layoffs_now: 0,
            reshuffles: 0,
            turns: 0,
            high_aces: if rules.ace_high { ACES } else { 0 },
            result: None,
        })
    }

    /// The rules.
    pub fn rules(&self) -> &RummyRules {
        &self.rules
    }

    /// Who dealt.
    pub fn dealer(&self) -> u8 {
        self.dealer
    }

    /// The seat to act, or `None` once the hand is over.
    #[inline]
    pub fn to_act(&self) -> Option<u8> {
        (self.phase != RummyPhase::Over).then_some(self.to_act)
    }

    /// Where the turn is.
    pub fn phase(&self) -> RummyPhase {
        self.phase
    }

    /// Seat `s`'s cards.
    pub fn hand(&self, s: u8) -> CardSet {
        if s < self.rules.players {
            self.hands[s as usize]
        } else {
            panic!("seat {s} at a table of {}", self.rules.players)
        }
    }

    /// The cards of seat `s` (below the table size), no bounds check.
    #[inline]
    fn cards_of(&self, s: u8) -> CardSet {
        self.hands[s as usize & 7]
    }

    /// The stock, top last.
    fn stock(&self) -> &[Card] {
        &self.cards[..self.stock as usize]
    }

    /// The pile from its bottom card up.
    fn pile(&self) -> impl Iterator<Item = Card> + '_ {
        self.cards[64 - self.pile as usize..].iter().rev().copied()
    }

    /// The lay-off spots of the table's melds.
    #[inline]
    fn table_spots(&self) -> &[CardSet] {
        &self.spots[..self.table.len()]
    }

    /// The melds on the table, in the order they were laid.
    pub fn table(&self) -> &[TableMeld] {
        &self.table
    }

    /// The discard pile's top card.
    pub fn pile_top(&self) -> Option<Card> {
        (self.pile > 0).then(|| self.cards[64 - self.pile as usize])
    }

    /// Cards in the discard pile.
    pub fn pile_len(&self) -> usize {
        self.pile as usize
    }

    /// Cards in the stock.
    pub fn stock_len(&self) -> usize {
        self.stock as usize
    }

    /// Every card of the discard pile (each was seen face up when discarded: public, though
    /// a seat's view shows only the top).
    pub fn pile_cards(&self) -> CardSet {
        self.pile().collect()
    }

    /// The cards seat `s` is known to hold: taken from the pile and not melded, laid off or
    /// discarded since (every seat saw them taken).
    pub fn known_cards(&self, s: u8) -> CardSet {
        self.known.get(s as usize).copied().unwrap_or_default()
    }

    /// The cards seat `s` passed up in this hand, public: each pile top it left when it drew
    /// from the stock, and each card it discarded. Evidence of what its hand did not meld
    /// with at the time, for an opponent model.
    pub fn declined(&self, s: u8) -> CardSet {
        self.declined.get(s as usize).copied().unwrap_or_default()
    }

    /// A copy of this hand with its hidden cards placed again, for a player's search over
    /// what it cannot see (a determinization): each seat `s` holds `hands[s]`, the stock is
    /// `stock` (top first), and later turns of the pile are shuffled keyed by `seed` instead
    /// of the game's. Everything public stays: the pile, the table, the turn, the cards known
    /// to be held ([`RummyHand::known_cards`]) and passed up ([`RummyHand::declined`]). The
    /// caller keeps what it deals consistent (each seat as many cards, its known ones among
    /// them; the stock as long; every card once): checked in debug builds.
    pub fn with_hidden(&self, hands: &[CardSet], stock: &[Card], seed: u64) -> RummyHand {
        let n = self.rules.players as usize;
        debug_assert_eq!(hands.len(), n);
        debug_assert_eq!(stock.len(), self.stock as usize);
        let mut h = self.clone();
        for (s, &c) in hands.iter().enumerate().take(n) {
            debug_assert_eq!(c.len(), self.hands[s].len(), "seat {s}");
            debug_assert!(c.is_superset(self.known[s]), "seat {s}");
            h.hands[s] = c;
        }
        // The stock is kept top last.
        for (at, &c) in h.cards.iter_mut().zip(stock.iter().rev()) {
            *at = c;
        }
        h.seed = seed;
        if h.phase == RummyPhase::Play {
            h.count_plays();
        }
        h
    }

    /// A hand as `view.seat` sees it, for a search over what it cannot see: everything
    /// public and its own cards as the view says, the cards it cannot place dealt to the
    /// other seats (the card the seat to act took from the pile kept in its hand) and the
    /// stock in a fixed order, the hand's seed `seed` (it keys later turns of the pile). The
    /// seat's search deals the hidden cards again ([`RummyHand::with_hidden`]). Refused,
    /// saying why, when the view does not add up: a seat out of range, a phase that is not a
    /// turn, a meld the rules do not allow, counts that do not make 52 cards, a card in two
    /// places, a turn that could not be.
    pub fn from_view(view: &RummyView, seed: u64) -> Result<RummyHand, crate::gin7::ViewError> {
        let err = |m: String| Err(crate::gin7::ViewError(m));
        let rules = &view.rules;
        rules.check().map_err(|e| crate::gin7::ViewError(e.0))?;
        let n = rules.players;
        for (what, s) in [("dealer", view.dealer), ("seat", view.seat), ("seat to act", view.to_act)] {
            if s >= n {
                return err(format!("{what}: seat {s} at a table of {n}"));
            }
        }
        if view.phase == RummyPhase::Over {
            return err("the hand is over".into());
        }
        if [view.hand_lens.len(), view.played_before.len(), view.known.len(), view.declined.len()]
            .iter()
            .any(|&l| l != n as usize)
        {
            return err(format!(
                "{} hand sizes, {} seats' plays, {} known and {} declined hands at a table of {n}",
                view.hand_lens.len(),
                view.played_before.len(),
                view.known.len(),
                view.declined.len()
            ));
        }
        let me = view.seat as usize;
        if view.cards.len() != view.hand_lens[me] {
            return err(format!(
                "the seat's {} cards, {} by the hand sizes",
                view.cards.len(),
                view.hand_lens[me]
            ));
        }
        if let Some(s) = view.hand_lens.iter().position(|&l| l == 0) {
            return err(format!("seat {s} holds no card in a hand in play"));
        }
        let mut placed = view.cards;
        for (i, m) in view.table.iter().enumerate() {
            if !rules.is_meld(m.cards) {
                return err(format!("meld {i} [{}] is not a meld under these rules", m.cards));
            }
            if !(placed & m.cards).is_empty() {
                return err(format!("meld {i}'s [{}] placed twice", placed & m.cards));
            }
            placed |= m.cards;
        }
        for &c in &view.pile {
            if placed.contains(c) {
                return err(format!("the pile's {c} is placed twice"));
            }
            placed.insert(c);
        }
        let total = view.hand_lens.iter().sum::<u32>() as usize
            + view.pile.len()
            + view.stock_len as usize
            + view.table.iter().map(|m| m.cards.len() as usize).sum::<usize>();
        if total != 52 {
            return err(format!("{total} cards in the hands, the pile, the table and the stock, not 52"));
        }
        if view.phase == RummyPhase::Draw {
            if view.pile.is_empty() {
                return err("a draw with no pile".into());
            }
            if view.stock_len == 0 && (view.pile.len() < 2 || view.pile_turns >= rules.max_reshuffles) {
                return err("a draw with no stock and no turn of the pile left".into());
            }
            if view.taken.is_some() || view.played_now {
                return err("a card taken or a play made before the draw".into());
            }
        }
        if !view.cards.is_superset(view.known[me]) {
            return err("the seat's known cards are not all in its hand".into());
        }
        let mut hands = [CardSet::EMPTY; 8];
        hands[me] = view.cards;
        // The others' known cards, in their hands.
        for (s, &k) in view.known.iter().enumerate().filter(|&(s, _)| s != me) {
            if k.len() > view.hand_lens[s] {
                return err(format!(
                    "seat {s} is known to hold {} of its {} cards",
                    k.len(),
                    view.hand_lens[s]
                ));
            }
            if !(placed & k).is_empty() {
                return err(format!("seat {s}'s known cards [{}] are placed twice", placed & k));
            }
            hands[s] = k;
            placed |= k;
        }
        // The card taken from the pile this turn is in the hand of the seat to act, or on the
        // table (melded or laid off since).
        let on_table = view.table.iter().fold(CardSet::EMPTY, |a, m| a | m.cards);
        if let Some(t) = view.taken {
            let actor = view.to_act as usize;
            if view.pile.contains(&t) || (actor == me && !(view.cards | on_table).contains(t)) {
                return err(format!(
                    "{t} taken from the pile this turn is neither held by the seat to act nor on the table"
                ));
            }
            if actor != me && !placed.contains(t) {
                hands[actor].insert(t);
                placed.insert(t);
            }
        }
        // The cards the seat cannot place: to each other seat, then the stock.
        let mut unseen = (CardSet::FULL - placed).iter();
        for s in (0..n as usize).filter(|&s| s != me) {
            while hands[s].len() < view.hand_lens[s] {
                let Some(c) = unseen.next() else { return err("too few cards for the hands".into()) };
                hands[s].insert(c);
            }
        }
        let stock: Vec<Card> = unseen.collect();
        if stock.len() != view.stock_len as usize {
            return err(format!("{} cards left for a stock of {}", stock.len(), view.stock_len));
        }
        let first = view
            .pile
            .first()
            .or(stock.first())
            .copied()
            .unwrap_or_else(|| Card::all().next().expect("52 cards"));
        let mut cards = [first; 64];
        // The stock top last; the pile from the end down, top first.
        for (at, &c) in cards.iter_mut().zip(stock.iter().rev()) {
            *at = c;
        }
        for (i, &c) in view.pile.iter().enumerate() {
            cards[63 - i] = c;
        }
        let mut h = RummyHand {
            rules: rules.clone(),
            seed,
            number: 0,
            dealer: view.dealer,
            hands,
            cards,
            stock: stock.len() as u8,
            pile: view.pile.len() as u8,
            table: view.table.clone(),
            spots: [CardSet::EMPTY; MAX_MELDS],
            all_spots: CardSet::EMPTY,
            to_act: view.to_act,
            phase: view.phase,
            from_pile: view.taken.map_or(CardSet::EMPTY, CardSet::single),
            played_before: view.played_before.iter().enumerate().fold(0, |b, (s, &p)| b | (p as u8) << s),
            played_now: view.played_now,
            known: std::array::from_fn(|s| view.known.get(s).copied().unwrap_or_default()),
            declined: std::array::from_fn(|s| view.declined.get(s).copied().unwrap_or_default()),
            melds_now: 0,
            layoffs_now: 0,
            reshuffles: view.pile_turns,
            turns: view.turns,
            high_aces: if rules.ace_high { ACES } else { 0 },
            result: None,
        };
        if h.table.len() > MAX_MELDS {
            return err(format!("{} melds on the table", h.table.len()));
        }
        for i in 0..h.table.len() {
            h.spots[i] = h.spots(h.table[i].cards);
        }
        h.all_spots = h.table_spots().iter().fold(CardSet::EMPTY, |a, &b| a | b);
        if h.phase == RummyPhase::Play {
            h.count_plays();
        }
        Ok(h)
    }

    /// The view of `seat` of this hand ([`RummyHand::from_view`] takes it back).
    pub fn view_of(&self, seat: u8) -> RummyView {
        let n = self.rules.players as usize;
        RummyView {
            rules: self.rules.clone(),
            dealer: self.dealer,
            seat,
            to_act: self.to_act,
            phase: self.phase,
            cards: self.hand(seat),
            hand_lens: self.hands[..n].iter().map(|c| c.len()).collect(),
            pile: self.pile().collect(),
            table: self.table.clone(),
            stock_len: self.stock as u32,
            taken: self.taken_from_pile(),
            pile_turns: self.reshuffles,
            turns: self.turns,
            played_before: (0..n).map(|s| self.played_before >> s & 1 == 1).collect(),
            played_now: self.played_now,
            known: self.known[..n].to_vec(),
            declined: self.declined[..n].to_vec(),
        }
    }

    /// The card the seat to act took from the discard pile this turn, which it may not
    /// discard this turn (none before its draw, or after a draw from the stock).
    pub fn taken_from_pile(&self) -> Option<Card> {
        self.from_pile.first()
    }

    /// The result, once the hand is over.
    pub fn result(&self) -> Option<&RummyHandResult> {
        self.result.as_ref()
    }

    /// Whether a draw from the stock is possible now (the stock has a card, or the pile can
    /// be turned into one).
    #[inline]
    fn can_draw_stock(&self) -> bool {
        self.stock != 0 || (self.pile >= 2 && self.reshuffles < self.rules.max_reshuffles)
    }

    /// In the draw part of a turn both draws are always legal: the stock can be drawn from
    /// (the deal leaves a stock, and a turn whose stock cannot be made again is a dead hand
    /// instead, [`RummyHand::next_turn`]) and the pile has a card (the deal's first discard,
    /// then every turn's discard; a turn of the pile leaves its top card).
    #[inline]
    fn both_draws_legal(&self) -> bool {
        self.can_draw_stock() && self.pile != 0
    }

    /// Every legal move of the seat to act, in a fixed order: draws (stock, pile); melds
    /// (sets by rank, a four's subsets after it; then runs by suit, lowest card, length);
    /// lay-offs (by meld, then card); discards (by card). Empty once the hand is over.
    pub fn legal(&self) -> Vec<RummyAction> {
        let mut out = Vec::new();
        self.legal_into(&mut out);
        out
    }

    /// [`RummyHand::legal`] into `out` (cleared first): a playout reuses one buffer.
    pub fn legal_into(&self, out: &mut Vec<RummyAction>) {
        out.clear();
        self.each_legal(|a| {
            out.push(a);
            false
        });
    }

    /// How many legal moves there are ([`RummyHand::legal`]'s length, without building it):
    /// counted by formula from the hand's bits, the table's lay-off spots and the pile.
    #[inline]
    pub fn legal_count(&self) -> usize {
        match self.phase {
            RummyPhase::Over => 0,
            RummyPhase::Draw => {
                debug_assert!(self.both_draws_legal());
                2
            }
            RummyPhase::Play => {
                let hand = self.cards_of(self.to_act);
                (self.melds_now + self.layoffs_now + self.discards(hand).len()) as usize
            }
        }
    }

    /// The `i`-th legal move ([`RummyHand::legal`]`[i]`, without building the list).
    #[inline]
    pub fn legal_nth(&self, i: usize) -> Option<RummyAction> {
        let mut i = u32::try_from(i).ok()?;
        match self.phase {
            RummyPhase::Over => None,
            RummyPhase::Draw => {
                debug_assert!(self.both_draws_legal());
                if i >= 2 {
                    return None;
                }
                // Random play picks either at random: the variant computed, not branched to
                // (the two variants' tags are 0 and 1).
                Some(if i != 0 { RummyAction::DrawPile } else { RummyAction::DrawStock })
            }
            RummyPhase::Play => {
                let hand = self.cards_of(self.to_act);
                let melds = self.melds_now;
                // The discards, last in the list, first here: most turns have nothing else.
                let plays = melds + self.layoffs_now;
                if i >= plays {
                    return nth_card(self.discards(hand), i - plays).map(RummyAction::Discard);
                }
                if i < melds {
                    let mut found = None;
                    self.each_legal_meld(hand, |m| {
                        if i == 0 {
                            found = Some(m);
                            return true;
                        }
                        i -= 1;
                        false
                    });
                    return found;
                }
                i -= melds;
                if i < self.layoffs_now {
                    if hand.len() <= 2 {
                        // Few cards: what a lay-off leaves needs checking, one by one.
                        let mut found = None;
                        self.each_legal_layoff(hand, |a| {
                            if i == 0 {
                                found = Some(a);
                                return true;
                            }
                            i -= 1;
                            false
                        });
                        return found;
                    }
                    let fits = hand & self.all_spots;
                    for (meld, &spots) in self.table_spots().iter().enumerate() {
                        let here = fits & spots;
                        let n = here.len();
                        if i < n {
                            return nth_card(here, i).map(|card| RummyAction::LayOff { card, meld });
                        }
                        i -= n;
                    }
                    return None;
                }
                None
            }
        }
    }

    /// Calls `f` on each legal move in order until it returns true.
    fn each_legal(&self, mut f: impl FnMut(RummyAction) -> bool) {
        match self.phase {
            RummyPhase::Over => {}
            RummyPhase::Draw => {
                debug_assert!(self.both_draws_legal());
                if !f(RummyAction::DrawStock) {
                    f(RummyAction::DrawPile);
                }
            }
            RummyPhase::Play => {
                let hand = self.cards_of(self.to_act);
                let mut stop = false;
                self.each_legal_meld(hand, |a| {
                    stop = f(a);
                    stop
                });
                if stop {
                    return;
                }
                self.each_legal_layoff(hand, |a| {
                    stop = f(a);
                    stop
                });
                if stop {
                    return;
                }
                for c in self.discards(hand).iter() {
                    if f(RummyAction::Discard(c)) {
                        return;
                    }
                }
            }
        }
    }

    /// Calls `f` on each legal meld of `hand` (the hand to act) in order until it returns true.
    fn each_legal_meld(&self, hand: CardSet, mut f: impl FnMut(RummyAction) -> bool) {
        // Only a play that leaves one card or none may leave too little: checked then.
        self.each_meld_in(hand, |m| {
            (hand.len() > m.len() + 1 || self.leaves_a_play(hand - m)) && f(RummyAction::Meld(m))
        });
    }

    /// Calls `f` on each legal lay-off of `hand` (the hand to act) in order until it returns
    /// true.
    fn each_legal_layoff(&self, hand: CardSet, mut f: impl FnMut(RummyAction) -> bool) {
        let fits = hand & self.all_spots;
        if fits.is_empty() {
            return;
        }
        for (i, &spots) in self.table_spots().iter().enumerate() {
            for c in (fits & spots).iter() {
                if (hand.len() > 2 || self.leaves_a_play(hand.without(c)))
                    && f(RummyAction::LayOff { card: c, meld: i })
                {
                    return;
                }
            }
        }
    }

    /// The cards of `hand` (the hand to act) that may be discarded: all but the one taken
    /// from the pile this turn.
    #[inline]
    fn discards(&self, hand: CardSet) -> CardSet {
        hand - self.from_pile
    }

    /// How many legal melds `hand` (the hand to act) has: [`RummyHand::each_legal_meld`]'s
    /// count, by formula. Sets: one per rank held 3 times, five (the four, its four threes)
    /// per rank held 4 times. Runs: for each length `k` from 3, the number of `k` consecutive
    /// cards of a suit held, counted in all four lanes at once (bits 13–15 of a lane are
    /// empty, so no window crosses into the next lane; with aces high the ace is copied to
    /// bit 13). Then the melds a play may not make: the whole hand when the final discard is
    /// required, the whole hand but the card just taken from the pile.
    #[inline]
    fn meld_count(&self, hand: CardSet) -> u32 {
        let b = hand.bits();
        // At least three of the lanes c, d, h, s: c & d & (h | s), or h & s & (c | d), with
        // the pairs of lanes taken in one word.
        let (p, q) = (b & b >> 16, b | b >> 16);
        let r3 = (p & q >> 32 | p >> 32 & q) & LANE;
        let x = b | (b & self.high_aces) << 13;
        let w = x & x >> 1 & x >> 2;
        // Most hands in play hold no meld at all.
        if r3 | w == 0 { 0 } else { self.meld_count_of(hand, r3, x, w) }
    }

    /// [`RummyHand::meld_count`] once `hand` holds a meld: `r3` its ranks held 3 or 4 times,
    /// `x` its bits (the aces copied to bit 13 when high), `w` the lowest cards of its three
    /// consecutive cards of a suit.
    #[inline(never)]
    fn meld_count_of(&self, hand: CardSet, r3: u64, x: u64, mut w: u64) -> u32 {
        let b = hand.bits();
        let r4 = b & b >> 16 & b >> 32 & b >> 48 & LANE;
        let mut n = r3.count_ones() + 4 * r4.count_ones();
        let mut k = 3;
        while w != 0 {
            n += w.count_ones();
            w &= x >> k;
            k += 1;
        }
        if self.rules.ace_high {
            // A whole suit with the ace high: the two stretches holding the ace twice (A..A)
            // or the whole suit again (2..A) are no new runs.
            const WHOLE: u64 = 0x3FFF;
            for at in [0, 16, 32, 48] {
                if x >> at & WHOLE == WHOLE {
                    n -= 2;
                }
            }
        }
        if self.rules.final_discard == FinalDiscard::Required && self.rules.is_meld(hand) {
            n -= 1;
        }
        if !self.from_pile.is_empty()
            && hand.is_superset(self.from_pile)
            && self.rules.is_meld(hand - self.from_pile)
        {
            n -= 1;
        }
        n
    }

    /// How many legal lay-offs `hand` (the hand to act) has: [`RummyHand::each_legal_layoff`]'s
    /// count.
    #[inline]
    fn layoff_count(&self, hand: CardSet) -> u32 {
        if (hand & self.all_spots).is_empty() { 0 } else { self.layoff_count_of(hand) }
    }

    /// [`RummyHand::layoff_count`] once `hand` holds a card that fits the table.
    #[inline(never)]
    fn layoff_count_of(&self, hand: CardSet) -> u32 {
        let fits = hand & self.all_spots;
        if hand.len() <= 2 {
            let mut n = 0;
            self.each_legal_layoff(hand, |_| {
                n += 1;
                false
            });
            return n;
        }
        self.table_spots().iter().map(|&s| (fits & s).len()).sum()
    }

    /// Whether a hand left as `rest` after a meld or lay-off is allowed: empty only when the
    /// final discard is optional; otherwise holding a card that may be discarded.
    fn leaves_a_play(&self, rest: CardSet) -> bool {
        if rest.is_empty() {
            return self.rules.final_discard == FinalDiscard::Optional;
        }
        rest != self.from_pile
    }

    /// The cards that could be laid off onto the meld `meld` now: the fourth of a set of
    /// three; the card below and above a run (the ace above a king when aces are high, never
    /// a 2 above a high ace).
    fn spots(&self, meld: CardSet) -> CardSet {
        let b = meld.bits();
        if meld.rank_mask().count_ones() == 1 {
            return if meld.len() == 3 {
                CardSet::from_bits((meld.rank_mask() as u64) * 0x0001_0001_0001_0001) - meld
            } else {
                CardSet::EMPTY
            };
        }
        let shift = b.trailing_zeros() / 16 * 16;
        let lane = (b >> shift) & LANE;
        let mut near = ((lane << 1) | (lane >> 1)) & LANE & !lane;
        if self.rules.ace_high && lane & 1 << 12 != 0 && lane & 1 == 0 {
            near |= 1;
        }
        // Checked one by one: a 2 next to an ace that is high in this run does not fit.
        let mut out = CardSet::EMPTY;
        for c in CardSet::from_bits(near << shift).iter() {
            if self.rules.is_meld(meld.with(c)) {
                out.insert(c);
            }
        }
        out
    }

    /// Calls `f` on every meld that can be made from `hand` until it returns true: each set
    /// of a rank with 3 cards, or with 4 the four and then its subsets of 3; each run (every
    /// stretch of 3 or more consecutive cards of a suit, by suit, lowest card, length; with
    /// aces high, the ace also above the king).
    fn each_meld_in(&self, hand: CardSet, mut f: impl FnMut(CardSet) -> bool) {
        let b = hand.bits();
        // The ranks held 3 or 4 times: at least three of the four suit lanes.
        let [c, d, h, sp] = [0, 16, 32, 48].map(|at| (b >> at) & LANE);
        let r3 = ((c & d & h) | (c & d & sp) | (c & h & sp) | (d & h & sp)) as u16;
        let mut rest = r3;
        while rest != 0 {
            let r = rest.trailing_zeros() as u64;
            rest &= rest - 1;
            let set = CardSet::from_bits(b & (0x0001_0001_0001_0001 << r));
            if f(set) {
                return;
            }
            if set.len() == 4 {
                for c in set.iter() {
                    if f(set.without(c)) {
                        return;
                    }
                }
            }
        }
        for suit in 0..4u32 {
            let lane = (b >> (suit * 16)) & LANE;
            let ext = if self.rules.ace_high { lane | (lane & 1) << 13 } else { lane };
            // The lowest cards of three consecutive ones held.
            let mut starts = ext & ext >> 1 & ext >> 2;
            while starts != 0 {
                let lo = starts.trailing_zeros();
                starts &= starts - 1;
                for hi in lo + 2..14u32 {
                    if ext >> hi & 1 == 0 {
                        break;
                    }
                    // The whole suit from the 2 to the high ace is the whole suit again, and
                    // a stretch holding the ace both low and high is no run.
                    if hi == 13 && lo <= 1 {
                        continue;
                    }
                    let span = ((1u64 << (hi - lo + 1)) - 1) << lo;
                    let bits = (span & LANE) | (span >> 13 & 1);
                    if f(CardSet::from_bits(bits << (suit * 16))) {
                        return;
                    }
                }
            }
        }
    }

    /// Plays `action` for `seat`; on an error the hand is unchanged.
    #[inline(always)]
    pub fn apply(&mut self, seat: u8, action: RummyAction) -> Result<(), RummyError> {
        // The moves of almost every turn, when legal, played here; every other move, and
        // every refusal, by `apply_checked`.
        if seat == self.to_act {
            let s = seat as usize & 7;
            match (self.phase, action) {
                (RummyPhase::Draw, RummyAction::DrawStock | RummyAction::DrawPile) => {
                    // One path for both (random play picks one at random: no branch on it):
                    // the stock's top is `cards[stock - 1]`, the pile's `cards[64 - pile]`.
                    let pile = action == RummyAction::DrawPile;
                    let (len, at) = if pile {
                        (self.pile, 64 - self.pile as usize)
                    } else {
                        (self.stock, self.stock as usize)
                    };
                    if len != 0 {
                        let c = self.cards[(at - !pile as usize) & 63];
                        // A draw from the stock passes the pile's top up (there is one: a
                        // discard ends every turn).
                        let top = self.cards[(64 - self.pile as usize) & 63];
                        self.declined[s] |=
                            CardSet::from_bits((!pile as u64 & (self.pile != 0) as u64) << top.bit());
                        self.known[s] |= CardSet::from_bits((pile as u64) << c.bit());
                        self.pile -= pile as u8;
                        self.stock -= !pile as u8;
                        self.hands[s].insert(c);
                        self.from_pile = CardSet::from_bits((pile as u64) << c.bit());
                        self.phase = RummyPhase::Play;
                        self.count_plays();
                        return Ok(());
                    }
                }
                (RummyPhase::Play, RummyAction::Discard(card))
                    if self.discards(self.hands[s]).contains(card) =>
                {
                    self.hands[s].remove(card);
                    self.known[s].remove(card);
                    self.declined[s].insert(card);
                    self.push_pile(card);
                    if !self.out_if_empty(seat) {
                        self.next_turn();
                    }
                    return Ok(());
                }
                _ => {}
            }
        }
        self.apply_checked(seat, action)
    }

    /// [`RummyHand::apply`], every move checked.
    fn apply_checked(&mut self, seat: u8, action: RummyAction) -> Result<(), RummyError> {
        if self.phase == RummyPhase::Over || seat != self.to_act {
            return Err(RummyError::NotYourTurn { to_act: self.to_act() });
        }
        let s = seat as usize & 7;
        match (self.phase, action) {
            (RummyPhase::Draw, RummyAction::DrawStock) => {
                if let Some(top) = self.pile_top() {
                    self.declined[s].insert(top);
                }
                if self.stock == 0 {
                    if !self.can_draw_stock() {
                        return Err(RummyError::Illegal(
                            "the stock is empty and the pile may not be turned into a new one".into(),
                        ));
                    }
                    self.turn_pile();
                }
                self.stock -= 1;
                let c = self.cards[self.stock as usize];
                self.hands[s].insert(c);
                self.phase = RummyPhase::Play;
            }
            (RummyPhase::Draw, RummyAction::DrawPile) => {
                if self.pile == 0 {
                    return Err(RummyError::Illegal("the discard pile is empty".into()));
                }
                let c = self.cards[64 - self.pile as usize];
                self.pile -= 1;
                self.hands[s].insert(c);
                self.known[s].insert(c);
                self.from_pile = CardSet::single(c);
                self.phase = RummyPhase::Play;
            }
            (RummyPhase::Play, RummyAction::Meld(cards)) => {
                let hand = self.hands[s];
                if !hand.is_superset(cards) {
                    return Err(RummyError::Illegal(format!("[{}] are not all in your hand", cards - hand)));
                }
                if !self.rules.is_meld(cards) {
                    return Err(RummyError::Illegal(format!(
                        "[{cards}] is not a meld: 3 or 4 of a rank, or 3 or more consecutive cards of a suit ({})",
                        if self.rules.ace_high { "ace low or high, never K-A-2" } else { "ace low" }
                    )));
                }
                self.check_rest(hand - cards)?;
                self.hands[s] = hand - cards;
                self.known[s] = self.known[s] - cards;
                let spots = self.spots(cards);
                self.spots[self.table.len()] = spots;
                self.all_spots |= spots;
                self.table.push(TableMeld { cards, by: seat, layoffs: Vec::new() });
                self.played_now = true;
                self.out_if_empty(seat);
            }
            (RummyPhase::Play, RummyAction::LayOff { card, meld }) => {
                let hand = self.hands[s];
                if !hand.contains(card) {
                    return Err(RummyError::Illegal(format!("{card} is not in your hand")));
                }
                let Some(t) = self.table.get(meld) else {
                    return Err(RummyError::Illegal(format!(
                        "no meld {meld} on the table ({} there)",
                        self.table.len()
                    )));
                };
                if !self.rules.is_meld(t.cards.with(card)) {
                    return Err(RummyError::Illegal(format!("{card} does not fit the meld [{}]", t.cards)));
                }
                self.check_rest(hand.without(card))?;
                self.hands[s].remove(card);
                self.known[s].remove(card);
                let t = &mut self.table[meld];
                t.cards.insert(card);
                t.layoffs.push((seat, card));
                let cards = t.cards;
                self.spots[meld] = self.spots(cards);
                self.all_spots = self.table_spots().iter().fold(CardSet::EMPTY, |a, &b| a | b);
                self.played_now = true;
                self.out_if_empty(seat);
            }
            (RummyPhase::Play, RummyAction::Discard(card)) => {
                if !self.hands[s].contains(card) {
                    return Err(RummyError::Illegal(format!("{card} is not in your hand")));
                }
                if self.from_pile.contains(card) {
                    return Err(RummyError::Illegal(format!(
                        "{card} was just taken from the discard pile: it may not be discarded this turn"
                    )));
                }
                self.hands[s].remove(card);
                self.known[s].remove(card);
                self.declined[s].insert(card);
                self.push_pile(card);
                if !self.out_if_empty(seat) {
                    self.next_turn();
                }
            }
            (phase, _) => return Err(RummyError::WrongPhase(phase)),
        }
        if self.phase == RummyPhase::Play {
            self.count_plays();
        }
        Ok(())
    }

    /// Counts the legal melds and lay-offs of the hand to act, in the play part of a turn.
    #[inline]
    fn count_plays(&mut self) {
        let hand = self.cards_of(self.to_act);
        self.melds_now = self.meld_count(hand);
        self.layoffs_now = self.layoff_count(hand);
    }

    fn check_rest(&self, rest: CardSet) -> Result<(), RummyError> {
        if self.leaves_a_play(rest) {
            return Ok(());
        }
        Err(RummyError::Illegal(if rest.is_empty() {
            "going out needs a final discard under these rules: keep a card to discard".into()
        } else {
            "that would leave only the card just taken from the pile, which may not be discarded this turn"
                .into()
        }))
    }

    /// Puts `card` on the pile.
    #[inline]
    fn push_pile(&mut self, card: Card) {
        self.pile += 1;
        self.cards[(64 - self.pile as usize) & 63] = card;
    }

    /// Ends the hand if `seat`'s hand is empty; whether it did.
    #[inline]
    fn out_if_empty(&mut self, seat: u8) -> bool {
        if !self.cards_of(seat).is_empty() {
            return false;
        }
        self.go_out(seat);
        true
    }

    /// Ends the hand: `seat` went out.
    #[inline(never)]
    fn go_out(&mut self, seat: u8) {
        let rummy = self.played_before >> seat & 1 == 0;
        let left: CardSet = self.hands.iter().fold(CardSet::EMPTY, |a, &h| a | h);
        let base = self.rules.points(left);
        let points = if rummy && self.rules.rummy_doubles { base * 2 } else { base };
        let left = self.hands[..self.rules.players as usize].to_vec();
        let turns = self.turns + 1;
        self.result =
            Some(RummyHandResult { winner: Some(seat), rummy, left, points, turn_limit: false, turns });
        self.phase = RummyPhase::Over;
    }

    #[inline]
    fn next_turn(&mut self) {
        self.played_before |= (self.played_now as u8) << self.to_act;
        self.played_now = false;
        self.from_pile = CardSet::EMPTY;
        self.to_act = if self.to_act + 1 == self.rules.players { 0 } else { self.to_act + 1 };
        self.phase = RummyPhase::Draw;
        self.turns += 1;
        // The stock is empty for good (taking the pile's top card turn after turn would go on
        // forever): a dead hand. Or the turn limit.
        if !self.can_draw_stock() {
            self.die(false);
        } else if self.turns >= self.rules.max_turns_per_hand {
            self.die(true);
        }
    }

    /// Ends the hand dead (at the turn limit when `turn_limit`): nobody scores.
    #[inline(never)]
    fn die(&mut self, turn_limit: bool) {
        let left = self.hands[..self.rules.players as usize].to_vec();
        let turns = self.turns;
        self.result =
            Some(RummyHandResult { winner: None, rummy: false, left, points: 0, turn_limit, turns });
        self.phase = RummyPhase::Over;
    }

    /// Turns ended so far in this hand (each by a discard).
    pub fn turns(&self) -> u32 {
        self.turns
    }

    /// The pile but its top card, shuffled, becomes the stock.
    fn turn_pile(&mut self) {
        self.reshuffles += 1;
        debug_assert!(self.stock == 0 && self.pile >= 2);
        let top = self.cards[64 - self.pile as usize];
        // From the pile's bottom card up (less its top), shuffled as the deck is.
        let n = self.pile as usize - 1;
        let mut turned = [top; 52];
        for (t, &c) in turned.iter_mut().zip(self.cards[64 - n..].iter().rev()) {
            *t = c;
        }
        let turned = &mut turned[..n];
        shuffle_turned_pile(turned, self.seed, self.number, self.reshuffles);
        // turned[0] is the top: the stock's top is its last.
        for (at, &c) in self.cards.iter_mut().zip(turned.iter().rev()) {
            *at = c;
        }
        self.stock = n as u8;
        self.pile = 1;
        self.cards[63] = top;
    }
}

/// A whole game of basic rummy: hands until the end, the deal passing to the left.
#[derive(Clone, Debug)]
pub struct RummyGame {
    rules: RummyRules,
    seed: u64,
    decks: Vec<Deck>,
    first_dealer: Option<u8>,
    scores: Vec<u32>,
    hands_played: u32,
    hand: RummyHand,
    results: Vec<RummyHandResult>,
    tables: Vec<(u8, Vec<TableMeld>)>,
    actions: Vec<(u8, RummyAction)>,
    over: bool,
    /// The game ended at its hand limit.
    hand_limit: bool,
}

impl RummyGame {
    /// A new game: the first dealer is seat `seed % players`.
    pub fn new(rules: RummyRules, seed: u64) -> Result<RummyGame, RummyRulesError> {
        RummyGame::with_decks(rules, seed, Vec::new(), None)
    }

    /// A new game whose first hands are dealt from `decks` (the rest from the seed), the
    /// first dealer `first_dealer` (`None`: seat `seed % players`).
    pub fn with_decks(
        rules: RummyRules,
        seed: u64,
        decks: Vec<Deck>,
        first_dealer: Option<u8>,
    ) -> Result<RummyGame, RummyRulesError> {
        let dealer = first_dealer.unwrap_or((seed % rules.players.max(1) as u64) as u8);
        let deck = decks.first().copied().unwrap_or_else(|| Deck::shuffled(seed, 0));
        let hand = RummyHand::deal_from(&rules, seed, 0, dealer, &deck)?;
        Ok(RummyGame {
            scores: vec![0; rules.players as usize],
            rules,
            seed,
            decks,
            first_dealer,
            hands_played: 0,
            hand,
            results: Vec::new(),
            tables: Vec::new(),
            actions: Vec::new(),
            over: false,
            hand_limit: false,
        })
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The explicit decks the game was set up with.
    pub fn decks(&self) -> &[Deck] {
        &self.decks
    }

    /// The first dealer the game was set up with (`None`: from the seed).
    pub fn first_dealer(&self) -> Option<u8> {
        self.first_dealer
    }

    /// The rules.
    pub fn rules(&self) -> &RummyRules {
        &self.rules
    }

    /// Every accepted action, by seat, in order.
    pub fn actions(&self) -> &[(u8, RummyAction)] {
        &self.actions
    }

    /// For each finished hand: who dealt it and the melds on the table at its end.
    pub fn hand_tables(&self) -> &[(u8, Vec<TableMeld>)] {
        &self.tables
    }

    /// The hand in play (or the last one, once the game is over).
    pub fn hand(&self) -> &RummyHand {
        &self.hand
    }

    /// Each seat's points.
    pub fn scores(&self) -> &[u32] {
        &self.scores
    }

    /// The results of the hands played.
    pub fn results(&self) -> &[RummyHandResult] {
        &self.results
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.over
    }

    /// How the game ended (`None` while it goes on).
    pub fn end(&self) -> Option<crate::GameEnd> {
        self.over.then_some(if self.hand_limit { crate::GameEnd::HandLimit } else { crate::GameEnd::Normal })
    }

    /// The winners once the game is over (several when they share the most points).
    pub fn winners(&self) -> Vec<u8> {
        if !self.over {
            return Vec::new();
        }
        let best = self.scores.iter().copied().max().unwrap_or(0);
        (0..self.rules.players).filter(|&s| self.scores[s as usize] == best).collect()
    }

    /// Plays `action` for `seat` in the hand in play; when it ends the hand, scores it and
    /// deals the next (unless the game is over).
    pub fn apply(&mut self, seat: u8, action: RummyAction) -> Result<(), RummyError> {
        if self.over {
            return Err(RummyError::NotYourTurn { to_act: None });
        }
        self.hand.apply(seat, action)?;
        self.actions.push((seat, action));
        if let Some(r) = self.hand.result().cloned() {
            if let Some(w) = r.winner {
                self.scores[w as usize] += r.points;
            }
            self.results.push(r);
            self.tables.push((self.hand.dealer(), self.hand.table().to_vec()));
            self.hands_played += 1;
            let normal = match self.rules.end {
                RummyEnd::Target(t) => self.scores.iter().any(|&s| s >= t),
                RummyEnd::Hands(n) => self.hands_played >= n,
            };
            self.hand_limit = !normal && self.hands_played >= self.rules.max_hands_per_game;
            self.over = normal || self.hand_limit;
            if !self.over {
                let dealer = (self.hand.dealer() + 1) % self.rules.players;
                let n = self.hands_played as u64;
                let deck =
                    self.decks.get(n as usize).copied().unwrap_or_else(|| Deck::shuffled(self.seed, n));
                self.hand = RummyHand::deal_from(&self.rules, self.seed, n, dealer, &deck)
                    .expect("the rules were checked at the start");
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nth_card_selects_in_bit_order() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for n in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Sparse and dense sets, the empty and the full one.
            let set = match n {
                0 => CardSet::EMPTY,
                1 => CardSet::FULL,
                _ if n % 3 == 0 => CardSet::from_bits(x & x >> 11),
                _ => CardSet::from_bits(x),
            };
            let cards: Vec<Card> = set.iter().collect();
            for (i, &c) in cards.iter().enumerate() {
                assert_eq!(nth_card(set, i as u32), Some(c), "{set:?} {i}");
                assert_eq!(nth_card_search(set, i as u32), Some(c), "{set:?} {i}");
            }
            for select in [nth_card, nth_card_search] {
                assert_eq!(select(set, cards.len() as u32), None);
                assert_eq!(select(set, 63), None);
            }
        }
    }

    /// A hand rebuilt from a seat's view ([`RummyHand::view_of`], [`RummyHand::from_view`]),
    /// its hidden cards then dealt at random ([`RummyHand::with_hidden`]), gives the seat the
    /// view it had and, when it is to act, the true hand's legal moves; it plays on to its
    /// end. Views that do not add up are refused.
    #[test]
    fn a_hand_rebuilt_from_a_seats_view_has_the_true_hands_legal_moves() {
        let mut x = 0x0F1E_2D3C_4B5A_6978u64;
        let mut next = |n: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n as u64) as usize
        };
        let mut compared = 0;
        for players in 2..=6u8 {
            for ace_high in [false, true] {
                let rules = RummyRules { ace_high, ..RummyRules::for_players(players).unwrap() };
                for seed in 0..25u64 {
                    let mut h = RummyHand::deal(&rules, seed, 1, (seed % players as u64) as u8).unwrap();
                    let mut moves = 0;
                    while let Some(actor) = h.to_act() {
                        for seat in 0..players {
                            let v = h.view_of(seat);
                            let built = RummyHand::from_view(&v, seed ^ 5).unwrap();
                            assert_eq!(built.view_of(seat), v);
                            let table = h.table().iter().fold(CardSet::EMPTY, |a, m| a | m.cards);
                            // The card the seat to act took this turn is one of its known.
                            assert!((h.known_cards(actor) | table).is_superset(h.from_pile));
                            let known = (0..players)
                                .filter(|&s| s != seat)
                                .fold(CardSet::EMPTY, |a, s| a | h.known_cards(s));
                            let mut pool: Vec<Card> =
                                (CardSet::FULL - h.hand(seat) - table - h.pile_cards() - known)
                                    .iter()
                                    .collect();
                            for i in (1..pool.len()).rev() {
                                pool.swap(i, next(i + 1));
                            }
                            let mut hands = Vec::new();
                            for s in 0..players {
                                let mut c = if s == seat { h.hand(s) } else { h.known_cards(s) };
                                while c.len() < h.hand(s).len() {
                                    c.insert(pool.pop().unwrap());
                                }
                                hands.push(c);
                            }
                            let world = built.with_hidden(&hands, &pool, 3);
                            assert_eq!(world.view_of(seat), v);
                            if seat == actor {
                                assert_eq!(world.legal(), h.legal(), "seed {seed}, seat {seat}");
                                assert_eq!(world.legal_count(), h.legal_count());
                                compared += 1;
                                let mut w = world.clone();
                                let mut left = 0;
                                while let Some(s) = w.to_act() {
                                    let legal = w.legal();
                                    w.apply(s, legal[left % legal.len()]).unwrap();
                                    left += 1;
                                }
                            }
                        }
                        // Mostly the plays and discards listed last (melds, lay-offs come
                        // before the discards), so that the table fills.
                        let legal = h.legal();
                        let a = if next(3) == 0 { legal[next(legal.len())] } else { legal[0] };
                        h.apply(actor, a).unwrap();
                        moves += 1;
                        if moves > 400 {
                            break;
                        }
                    }
                }
            }
        }
        assert!(compared > 1000, "{compared}");
        let h = RummyHand::deal(&RummyRules::for_players(4).unwrap(), 2, 0, 0).unwrap();
        let v = h.view_of(2);
        let bad = |f: &dyn Fn(&mut RummyView)| {
            let mut w = v.clone();
            f(&mut w);
            RummyHand::from_view(&w, 0).unwrap_err().to_string()
        };
        assert!(bad(&|w| w.to_act = 4).contains("seat to act: seat 4"));
        assert!(bad(&|w| w.stock_len -= 1).contains("not 52"));
        assert!(bad(&|w| w.pile.push(w.cards.first().unwrap())).contains("placed twice"));
        assert!(bad(&|w| w.played_before.pop().map_or((), drop)).contains("seats' plays"));
        assert!(bad(&|w| w.pile = vec![]).contains("not 52"));
        let three = crate::hand("2C 3C 5C");
        assert!(
            bad(&|w| w.table.push(TableMeld { cards: three, by: 0, layoffs: Vec::new() }))
                .contains("not a meld")
        );
    }

    /// `with_hidden` with the hand's own hidden cards and seed gives the hand back; with the
    /// hidden cards dealt again it keeps what is public and plays on.
    #[test]
    fn with_hidden_places_the_hidden_cards_again() {
        let rules = RummyRules::for_players(3).unwrap();
        let mut h = RummyHand::deal(&rules, 4, 0, 0).unwrap();
        for _ in 0..6 {
            let seat = h.to_act().unwrap();
            let a = *h.legal().last().unwrap();
            h.apply(seat, a).unwrap();
        }
        let hands: Vec<CardSet> = (0..3).map(|s| h.hand(s)).collect();
        let mut stock = h.stock().to_vec();
        stock.reverse();
        let same = h.with_hidden(&hands, &stock, h.seed);
        assert_eq!(format!("{same:?}"), format!("{h:?}"));
        assert_eq!(h.pile_cards().len() as usize, h.pile_len());
        // Seats 1 and 2 swap the cards they are not known to hold.
        let (a, b) = (hands[1] - h.known_cards(1), hands[2] - h.known_cards(2));
        assert_eq!(a.len(), b.len(), "seats 1 and 2 hide as many");
        let mut swapped = hands.clone();
        swapped[1] = h.known_cards(1) | b;
        swapped[2] = h.known_cards(2) | a;
        let mut g = h.with_hidden(&swapped, &stock, 3);
        assert_eq!((g.hand(1), g.hand(2), g.pile_top()), (swapped[1], swapped[2], h.pile_top()));
        assert_eq!((g.known_cards(1), g.declined(2)), (h.known_cards(1), h.declined(2)));
        let mut moves = 0;
        while let Some(seat) = g.to_act() {
            let a = g.legal()[0];
            g.apply(seat, a).unwrap();
            moves += 1;
            assert!(moves < 100_000);
        }
    }

    /// A card taken from the pile is known held by its taker until melded, laid off or
    /// discarded; the pile's top left by a draw from the stock and every discard are the
    /// seat's declined cards; the view carries both and a hand rebuilt from it keeps them.
    #[test]
    fn pile_pickups_are_known_and_passed_cards_declined() {
        use crate::{card as c, hand};
        let rules = RummyRules::for_players(3).unwrap();
        // The dealer is seat 0: seat 1 is dealt first and plays first.
        let hands = ["2C 3D 9S JH QH KH 4H", "5H 6H 8C 9C TD JD QS", "2S 3S AD AH 7C 7D KS"];
        let hands: Vec<Vec<Card>> = hands.iter().map(|h| hand(h).iter().collect()).collect();
        let mut order: Vec<Card> = (0..7).flat_map(|i| [1, 2, 0].map(|s| hands[s][i])).collect();
        order.push(c("7H"));
        let used: CardSet = order.iter().copied().collect();
        order.extend((CardSet::FULL - used).iter());
        let deck = Deck::from_cards(&order).unwrap();
        let mut h = RummyHand::deal_from(&rules, 9, 0, 0, &deck).unwrap();
        let play = |h: &mut RummyHand, s: u8, a: RummyAction| h.apply(s, a).unwrap();
        play(&mut h, 1, RummyAction::DrawPile);
        assert_eq!((h.known_cards(1), h.declined(1)), (hand("7H"), CardSet::EMPTY));
        let v = h.view_of(2);
        assert_eq!(v.known[1], hand("7H"));
        let built = RummyHand::from_view(&v, 1).unwrap();
        assert!(built.hand(1).contains(c("7H")) && built.known_cards(1) == hand("7H"));
        assert_eq!(built.view_of(2), v);
        play(&mut h, 1, RummyAction::Meld(hand("5H 6H 7H")));
        assert_eq!(h.known_cards(1), CardSet::EMPTY, "melded");
        play(&mut h, 1, RummyAction::Discard(c("QS")));
        assert_eq!(h.declined(1), hand("QS"));
        play(&mut h, 2, RummyAction::DrawStock);
        assert_eq!(h.declined(2), hand("QS"), "the pile's top left");
        play(&mut h, 2, RummyAction::Discard(c("KS")));
        assert_eq!(h.declined(2), hand("QS KS"));
        play(&mut h, 0, RummyAction::DrawPile);
        play(&mut h, 0, RummyAction::Discard(c("2C")));
        assert_eq!((h.known_cards(0), h.declined(0)), (hand("KS"), hand("2C")), "still held");
        play(&mut h, 1, RummyAction::DrawPile);
        play(&mut h, 1, RummyAction::Discard(c("8C")));
        play(&mut h, 2, RummyAction::DrawStock);
        play(&mut h, 2, RummyAction::Discard(c("AD")));
        play(&mut h, 0, RummyAction::DrawStock);
        play(&mut h, 0, RummyAction::Discard(c("KS")));
        assert_eq!((h.known_cards(0), h.declined(0)), (CardSet::EMPTY, hand("2C AD KS")), "discarded");
        let v = h.view_of(0);
        assert_eq!((v.known[1], v.declined[1]), (hand("2C"), hand("QS 8C")));
        assert_eq!(v.declined[2], hand("QS KS 8C AD"));
        // Rebuilt, seat 1 holds its known 2C, whatever is dealt to the others.
        let built = RummyHand::from_view(&v, 1).unwrap();
        assert_eq!(built.view_of(0), v);
        assert!(built.hand(1).contains(c("2C")) && !built.hand(2).contains(c("2C")));
        play(&mut h, 1, RummyAction::DrawStock);
        play(&mut h, 1, RummyAction::Discard(c("9C")));
        play(&mut h, 2, RummyAction::DrawStock);
        play(&mut h, 2, RummyAction::Discard(c("AH")));
        play(&mut h, 0, RummyAction::DrawStock);
        play(&mut h, 0, RummyAction::Discard(c("4H")));
        play(&mut h, 1, RummyAction::DrawPile);
        assert_eq!(h.known_cards(1), hand("2C 4H"));
        play(&mut h, 1, RummyAction::LayOff { card: c("4H"), meld: 0 });
        assert_eq!(h.known_cards(1), hand("2C"), "laid off");
        // A view whose known cards do not add up is refused.
        let mut bad = v.clone();
        bad.known[2] = hand("2C");
        assert!(RummyHand::from_view(&bad, 0).unwrap_err().to_string().contains("placed twice"));
        bad.known.pop();
        assert!(RummyHand::from_view(&bad, 0).unwrap_err().to_string().contains("known"));
        bad = v.clone();
        bad.known[0] = hand("9C");
        assert!(RummyHand::from_view(&bad, 0).unwrap_err().to_string().contains("not all in its hand"));
    }
}
