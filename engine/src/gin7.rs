//! Gin for three to six players at one table, seven cards each (seed 002, « Variante pour
//! trois joueurs et plus »): « On ne distribue que 7 cartes à chaque joueur. On distingue dans
//! le décompte les points des pénalités. Le joueur remportant la manche marque 20 points en
//! cas de gin, 10 points pour un knock (quand il lui reste du bois mort) ou 10 points pour une
//! défense réussie. Les perdants pour leur part perdent la valeur de leur bois mort moins la
//! valeur du bois mort du gagnant. »
//!
//! Legality is an API as for the two-player [`crate::Hand`]: [`Gin7Hand::legal`] (compact,
//! the engine's [`Legal`]), [`Gin7Hand::legal_actions`], [`Gin7Hand::is_legal`], and one
//! transition [`Gin7Hand::apply`] over the engine's [`Action`]. On `Err` the hand is
//! exactly as before.
//!
//! # The project's choices where the seed is silent
//!
//! Every one is a field of [`Gin7Rules`].
//!
//! - **The deal**: the first dealer of a game is seat `seed % players`. The dealer deals one
//!   card at a time starting on its left (seat `dealer + 1`); the next card is the upcard,
//!   the first of the discard pile; the rest is the stock (`deck[players × hand_size + 1]`
//!   on top). The player on the dealer's left plays first; turns pass to the left (seat + 1).
//!   The deal passes to the left after every hand, dead hands included.
//! - **A turn** is the two-player turn: draw the stock's or the pile's top card, then discard
//!   face up or knock. A card taken from the pile may not be discarded in the same turn (one
//!   drawn from the stock may). No upcard offer, no big gin: `Pass` and `BigGin` are refused.
//! - **Knock**: the discard goes face down; allowed when the deadwood of the
//!   [`Gin7Rules::hand_size`] cards left is at most [`Gin7Rules::knock_limit`] (10); gin is
//!   a knock with no deadwood. The knock may name the knocker's melds; without them the
//!   engine picks a minimum-deadwood arrangement, and among those (as at two players) the one
//!   offering the fewest layoff spots among the cards the knocker has not seen.
//! - **Layoffs** ([`Gin7Rules::layoffs`]): after a knock that is not gin, every other player
//!   lays down its best melds and lays off onto the **knocker's** melds only, never onto
//!   another defender's. Each defender's layoffs are computed on its own against the
//!   knocker's melds as laid down ([`crate::best_defense`]), so the defenders' order does not
//!   matter. No layoffs onto gin.
//! - **Scoring**, with `K` the knocker's deadwood and `D_i` each defender's after its melds
//!   and layoffs:
//!   - gin: the knocker wins [`Gin7Rules::gin_points`] (20); every other player is penalised
//!     its deadwood;
//!   - a knock where some `D_i ≤ K` is a successful defence: the defender with the lowest
//!     `D_i` (ties: the first in play order after the knocker) wins
//!     [`Gin7Rules::defence_points`] (10); every other player, the knocker included, is
//!     penalised its deadwood minus the winner's (0 on a tie);
//!   - otherwise the knocker wins [`Gin7Rules::knock_points`] (10) and each defender is
//!     penalised `D_i − K`.
//!
//!   Points won and penalties are kept apart; a player's standing is its net, points minus
//!   penalties.
//! - **The pile turned** ([`Gin7Rules::reshuffles`]): when a discard without knocking
//!   leaves [`Gin7Rules::dead_stock`] cards (2) in the stock and the pile holds at least two
//!   cards, the pile but its top card (the discard just made) is shuffled and put **under**
//!   the cards left in the stock, at most `reshuffles` times in a hand, and play goes on.
//!   The default is by table size ([`default_pile_turns`], RULES.md "Turns of the pile at
//!   one table"): T(3) = 0, T(4) = 1, T(5) = 4, T(6) = 12, each the fewest turns that leave
//!   fewer than one hand in five dead when `simple` plays `simple` at that size. The shuffle is basic rummy's ([`crate::rummy`]): the pile from its bottom card
//!   up, Fisher–Yates as for the deck ([`Deck`]) on ChaCha8 keyed by the game seed, nonce
//!   `hand | k << 48` for the `k`-th turn of the pile in that hand, `k` from 1; the first
//!   card of the result lies just under the cards left in the stock. The turned cards are
//!   hidden again: no seat knows where they are ([`Gin7Hand::seen_by`]) until it draws one.
//! - **Dead hand** ([`Gin7Rules::dead_stock`]): a discard without knocking that leaves 2
//!   cards in the stock, once no turn of the pile is left (or the pile holds only the
//!   discard), ends the hand with no score, as at two players.
//! - **The game** ([`Gin7End`]): to a target of won points (100: the game ends after the hand
//!   in which some player's points reach it), or a fixed number of hands (dead ones count).
//!   The winners are the players with the best net (ties share).
//! - **Every hand and every game ends** (RULES.md): a hand whose
//!   [`Gin7Rules::max_turns_per_hand`]-th turn ends with a discard that goes on ends there,
//!   dead ([`Gin7EndKind::TurnLimit`]); a game that has played
//!   [`Gin7Rules::max_hands_per_game`] hands ends where it stands, the net deciding
//!   ([`crate::GameEnd::HandLimit`]). The defaults are by table size, far above honest play.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::card::Card;
use crate::cardset::CardSet;
use crate::deal::{Deck, shuffle_turned_pile};
use crate::hand::{Action, Legal, Pile, RuleError};
use crate::layoff::{Layoff, best_defense};
use crate::solver::{Arrangement, best_arrangement, deadwood, knock_discards, meldable, min_arrangements};

/// The most players at one table.
pub const MAX_PLAYERS: u8 = 6;
const MAX: usize = MAX_PLAYERS as usize;

/// How a game of gin for three or more ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Gin7End {
    /// After the hand in which some player's won points (penalties aside) reach this target.
    Points(u32),
    /// After this many hands, dead ones included.
    Hands(u32),
}

/// The rules of gin for three to six players at one table: every number a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Gin7Rules {
    /// Players at the table: 3 to 6.
    pub players: u8,
    /// Cards dealt to each (« 7 cartes à chaque joueur »); a knock leaves this many.
    pub hand_size: u8,
    /// The most deadwood a knock may leave, counted over the hand after the face-down discard.
    pub knock_limit: u32,
    /// Points to the knocker for gin.
    pub gin_points: u32,
    /// Points to the knocker for a knock that no defender beats or ties.
    pub knock_points: u32,
    /// Points to the defender who wins a successful defence.
    pub defence_points: u32,
    /// Whether defenders lay off onto the knocker's melds after a knock that is not gin.
    pub layoffs: bool,
    /// A discard without knocking that leaves this many cards in the stock (or fewer) ends
    /// the hand with no score, unless the pile is turned ([`Gin7Rules::reshuffles`]).
    pub dead_stock: u32,
    /// How many times in a hand the pile, but its top card, is shuffled under the stock when
    /// a discard leaves [`Gin7Rules::dead_stock`] cards in it (instead of the hand dying).
    /// 0: never, the two-player rule. Default by table size, [`default_pile_turns`]: the
    /// fewest that keep dead hands under one in five (at six, 9 cards of stock, with `simple`
    /// play 85% of the hands die there with 0 turns, 71% with 1, 54% with 3, 22% with 10,
    /// 18% with 12).
    pub reshuffles: u32,
    /// The end of the game.
    pub end: Gin7End,
    /// A hand that reaches this many turns (draws) without ending ends there, dead
    /// ([`Gin7EndKind::TurnLimit`]). Default by table size, [`default_max_turns`].
    pub max_turns_per_hand: u32,
    /// A game that has played this many hands (dead ones included) ends where it stands
    /// ([`crate::GameEnd::HandLimit`]). Default by table size, [`default_max_hands`].
    pub max_hands_per_game: u32,
}

/// The default turns of the pile in a hand at a table of `players` (RULES.md, "Turns of the
/// pile at one table"): T(3) = 0, T(4) = 1, T(5) = 4, T(6) = 12.
pub const fn default_pile_turns(players: u8) -> u32 {
    match players {
        0..=3 => 0,
        4 => 1,
        5 => 4,
        _ => 12,
    }
}

/// The default [`Gin7Rules::max_turns_per_hand`] at a table of `players`: at least three
/// times the longest hand seen in 100,000 hands of `simple` against `simple` there (the book,
/// docs/book/src/rules/fields.md, "Every hand and every game ends").
pub const fn default_max_turns(players: u8) -> u32 {
    match players {
        0..=3 => 100,
        4 => 140,
        5 => 240,
        _ => 300,
    }
}

/// The default [`Gin7Rules::max_hands_per_game`] at a table of `players`: at least three
/// times the longest game of the same self-play runs.
pub const fn default_max_hands(players: u8) -> u32 {
    match players {
        0..=3 => 100,
        4 => 140,
        5 => 180,
        _ => 220,
    }
}

impl Default for Gin7Rules {
    fn default() -> Gin7Rules {
        Gin7Rules {
            players: 4,
            hand_size: 7,
            knock_limit: 10,
            gin_points: 20,
            knock_points: 10,
            defence_points: 10,
            layoffs: true,
            dead_stock: 2,
            reshuffles: default_pile_turns(4),
            end: Gin7End::Points(100),
            max_turns_per_hand: default_max_turns(4),
            max_hands_per_game: default_max_hands(4),
        }
    }
}

/// Why a rule set (or a deal under it) is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gin7RulesError(pub String);

impl fmt::Display for Gin7RulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "gin rules for 3 or more: {}", self.0)
    }
}

impl std::error::Error for Gin7RulesError {}

/// The largest knock limit [`Gin7Rules::check`] accepts.
pub const MAX_KNOCK_LIMIT: u32 = 100;

impl Gin7Rules {
    /// The default rules for `players` (checked): the size-dependent numbers (turns of the
    /// pile, the turn and hand limits) are that size's defaults.
    pub fn for_players(players: u8) -> Result<Gin7Rules, Gin7RulesError> {
        let r = Gin7Rules::default().resized(players);
        r.check()?;
        Ok(r)
    }

    /// The same rules at a table of `players` (unchecked): each size-dependent number left
    /// at the old size's default ([`default_pile_turns`], [`default_max_turns`],
    /// [`default_max_hands`]) becomes the new size's; a number set otherwise is kept.
    pub fn resized(self, players: u8) -> Gin7Rules {
        let old = self.players;
        let follow = |v: u32, f: fn(u8) -> u32| if v == f(old) { f(players) } else { v };
        Gin7Rules {
            players,
            reshuffles: follow(self.reshuffles, default_pile_turns),
            max_turns_per_hand: follow(self.max_turns_per_hand, default_max_turns),
            max_hands_per_game: follow(self.max_hands_per_game, default_max_hands),
            ..self
        }
    }

    /// Refuses an impossible combination, saying which field and why.
    pub fn check(&self) -> Result<(), Gin7RulesError> {
        let bad = |m: String| Err(Gin7RulesError(m));
        if !(3..=MAX_PLAYERS).contains(&self.players) {
            return bad(format!(
                "players: {} (3 to 6 at one table; two players play the two-player game)",
                self.players
            ));
        }
        if self.hand_size < 3 {
            return bad(format!("hand_size: {} (at least 3, the smallest meld)", self.hand_size));
        }
        // The hands, the upcard, the stock that makes a hand dead, and one card to draw.
        let needed = self.players as u64 * self.hand_size as u64 + 1 + self.dead_stock as u64 + 1;
        if needed > 52 {
            return bad(format!(
                "{} players × {} cards need {needed} cards (the hands, the upcard, {} cards of dead \
                 stock and one to draw), the deck has 52",
                self.players, self.hand_size, self.dead_stock
            ));
        }
        for (field, v) in
            [("max_turns_per_hand", self.max_turns_per_hand), ("max_hands_per_game", self.max_hands_per_game)]
        {
            if v == 0 || v > crate::rules::MAX_LIMIT {
                return bad(format!("{field}: {v} (1 to {})", crate::rules::MAX_LIMIT));
            }
        }
        if self.knock_limit > MAX_KNOCK_LIMIT {
            return bad(format!("knock_limit: {} (at most {MAX_KNOCK_LIMIT})", self.knock_limit));
        }
        match self.end {
            Gin7End::Points(0) => bad("end: a target of at least 1 point".into()),
            Gin7End::Hands(0) => bad("end: at least one hand".into()),
            Gin7End::Hands(n) if n > self.max_hands_per_game => bad(format!(
                "end: {n} hands is more than max_hands_per_game ({}): raise that too",
                self.max_hands_per_game
            )),
            _ => Ok(()),
        }
    }

    /// Cards in the stock right after the deal.
    pub fn stock_at_deal(&self) -> usize {
        52 - self.players as usize * self.hand_size as usize - 1
    }
}

/// Where the turn is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Gin7Phase {
    /// The player to act draws.
    Draw,
    /// The player to act discards or knocks.
    Discard,
    /// The hand is over: see [`Gin7Hand::result`].
    Over,
}

/// Why an action was refused. The hand is unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Gin7Error {
    /// Not this seat's turn.
    NotYourTurn {
        /// The seat to act (`None`: the hand, or the game, is over).
        to_act: Option<u8>,
    },
    /// The action does not fit this part of the turn.
    WrongPhase {
        /// Where the turn is.
        phase: Gin7Phase,
        /// What it allows, in words.
        expected: &'static str,
    },
    /// The action breaks a rule, saying which (the two-player game's reasons: a card not in
    /// the hand, the card just taken from the pile, deadwood over the limit, bad melds, no
    /// big gin).
    Illegal(RuleError),
}

impl fmt::Display for Gin7Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Gin7Error::NotYourTurn { to_act: Some(s) } => write!(f, "not your turn: seat {s} is to act"),
            Gin7Error::NotYourTurn { to_act: None } => f.write_str("the hand is over"),
            Gin7Error::WrongPhase { expected, .. } => write!(f, "not now: {expected}"),
            Gin7Error::Illegal(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Gin7Error {}

/// What an accepted action did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Gin7Event {
    /// The seat drew `card` (from the stock: only that seat may see it).
    Drew {
        /// Who.
        seat: u8,
        /// The card.
        card: Card,
        /// True when it came from the stock.
        from_stock: bool,
    },
    /// The seat discarded `card` face up; the turn passes to the left.
    Discarded {
        /// Who.
        seat: u8,
        /// The card.
        card: Card,
    },
    /// The seat discarded `card`, leaving [`Gin7Rules::dead_stock`] cards in the stock, and
    /// the pile under it was turned: shuffled and put under the stock ([`Gin7Rules::reshuffles`]).
    /// `card` is the pile's only card; the turn passes to the left.
    PileTurned {
        /// Who.
        seat: u8,
        /// The discard, left alone on the pile.
        card: Card,
        /// Which turn of the pile in this hand (from 1).
        turn: u32,
    },
    /// The seat discarded `card`, leaving [`Gin7Rules::dead_stock`] cards in the stock with
    /// no turn of the pile left: the hand is dead.
    DeadHand {
        /// Who.
        seat: u8,
        /// The last discard.
        card: Card,
    },
    /// The seat discarded `card`, ending the hand's [`Gin7Rules::max_turns_per_hand`]-th
    /// turn: the hand ends dead at the turn limit.
    TurnLimit {
        /// Who.
        seat: u8,
        /// The last discard.
        card: Card,
    },
    /// The seat knocked (or went gin): see [`Gin7Hand::result`].
    Knocked {
        /// Who.
        seat: u8,
    },
}

/// How a hand ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Gin7EndKind {
    /// The stock ran down to [`Gin7Rules::dead_stock`]: no score.
    Dead,
    /// A knock that no defender beat or tied: the knocker wins.
    Knock,
    /// A knock that a defender beat or tied: that defender wins.
    Defence,
    /// A knock with no deadwood.
    Gin,
    /// The hand reached [`Gin7Rules::max_turns_per_hand`] turns: no score.
    TurnLimit,
}

/// One seat at the end of a hand.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Gin7SeatResult {
    /// The seat's melds and deadwood as laid down (the knocker's: its knock; a defender's:
    /// its own melds and the deadwood left after its layoffs; after a dead hand: a
    /// minimum-deadwood arrangement of the cards held).
    pub arrangement: Arrangement,
    /// The seat's layoffs onto the knocker's melds (`meld` indexes the knocker's
    /// `arrangement.melds()`); empty for the knocker, after gin, and without layoffs.
    pub layoffs: Vec<Layoff>,
    /// The deadwood counted for the score (0 after a dead hand: nothing is counted).
    pub deadwood: u32,
    /// Points won in this hand.
    pub points: u32,
    /// Penalty for this hand.
    pub penalty: u32,
}

/// The end of a hand and its score.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Gin7HandResult {
    /// How it ended.
    pub end: Gin7EndKind,
    /// Who knocked (`None` for a dead hand).
    pub knocker: Option<u8>,
    /// Who won the hand (`None` for a dead hand).
    pub winner: Option<u8>,
    /// The knocker's face-down discard (`None` for a dead hand).
    pub discard: Option<Card>,
    /// Every seat, by seat number.
    pub seats: Vec<Gin7SeatResult>,
    /// Turns played in the hand (each draw starts one).
    #[serde(default)]
    pub turns: u32,
}

impl Gin7HandResult {
    /// The knocker's melds as laid down (empty for a dead hand).
    pub fn knocker_melds(&self) -> &[crate::Meld] {
        match self.knocker {
            Some(k) => self.seats[k as usize].arrangement.melds(),
            None => &[],
        }
    }
}

/// What one seat sees of a gin-7 hand in play, the input of [`Gin7Hand::from_view`]: every
/// public fact of the hand and the seat's own cards, nothing hidden. A client builds it from
/// the events it was sent (`gin_sdk::TableTracker` does).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gin7View {
    /// The rules.
    pub rules: Gin7Rules,
    /// Who dealt.
    pub dealer: u8,
    /// The seat whose view this is.
    pub seat: u8,
    /// The seat to act.
    pub to_act: u8,
    /// Where its turn is: [`Gin7Phase::Draw`] or [`Gin7Phase::Discard`].
    pub phase: Gin7Phase,
    /// The viewer's cards.
    pub cards: CardSet,
    /// How many cards each seat holds, by seat.
    pub hand_lens: Vec<u32>,
    /// The cards each seat is known to hold (taken from the pile, still held), by seat.
    pub known: Vec<CardSet>,
    /// The discard pile, bottom first.
    pub pile: Vec<Card>,
    /// Cards left in the stock.
    pub stock_len: u32,
    /// The card the seat to act took from the pile this turn, if any.
    pub taken: Option<Card>,
    /// Turns of the pile so far in this hand.
    pub pile_turns: u32,
    /// Turns of play (draws) so far in this hand.
    pub turns_played: u32,
    /// Every card seen face up in this hand and not turned back into the stock since (the
    /// upcard, the discards; the pile's cards need not be named again).
    pub public: CardSet,
}

/// Why a view was refused ([`Gin7Hand::from_view`], [`crate::rummy::RummyHand::from_view`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewError(pub String);

impl fmt::Display for ViewError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "inconsistent view: {}", self.0)
    }
}

impl std::error::Error for ViewError {}

/// One hand of gin at a table of three to six.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gin7Hand {
    rules: Gin7Rules,
    deck: Deck,
    /// The game's seed and this hand's number (the pile's shuffle is keyed by them).
    seed: u64,
    number: u64,
    dealer: u8,
    cards: [CardSet; MAX],
    /// Cards taken from the pile and still held (public).
    known: [CardSet; MAX],
    /// Every card each seat has held (but the cards turned back into the stock).
    held: [CardSet; MAX],
    /// Every card turned face up so far (the upcard and the discards; but the cards turned
    /// back into the stock).
    public: CardSet,
    /// The stock is `stock[stock_next..]`, top first (the deck's order until the pile is
    /// turned; the cards before `stock_next` mean nothing).
    stock: [Card; 52],
    /// Index in `stock` of the stock's top card.
    stock_next: u8,
    /// Turns of the pile so far in this hand.
    turns: u32,
    /// Turns of play (draws) so far in this hand.
    played: u32,
    pile: Pile,
    to_act: u8,
    phase: Gin7Phase,
    /// The card taken from the pile this turn, which may not be discarded (none, or one: a
    /// set, so that a draw sets it and a discard's check reads it without a branch).
    taken: CardSet,
    result: Option<Box<Gin7HandResult>>,
}

impl Gin7Hand {
    /// Hand number `number` of a game with seed `seed`, dealt by `dealer` from
    /// [`Deck::shuffled`]`(seed, number)`.
    pub fn deal(rules: &Gin7Rules, seed: u64, number: u64, dealer: u8) -> Result<Gin7Hand, Gin7RulesError> {
        Gin7Hand::deal_from(rules, seed, number, dealer, Deck::shuffled(seed, number))
    }

    /// Hand number `number` of a game with seed `seed` (they key the shuffles of the pile when
    /// it is turned), dealt by `dealer` from an explicit deck: `deck.cards()[0]` goes to seat
    /// `dealer + 1`, the next to the seat on its left, and so on one card at a time; then the
    /// upcard; the rest is the stock, top first.
    ///
    /// ```
    /// use engine::Deck;
    /// use engine::gin7::{Gin7Hand, Gin7Phase, Gin7Rules};
    /// let h = Gin7Hand::deal_from(&Gin7Rules::default(), 1, 0, 3, Deck::shuffled(1, 0)).unwrap();
    /// assert_eq!(h.cards(0).len(), 7);
    /// assert!(h.cards(0).contains(h.deck().cards()[0]));
    /// assert_eq!((h.to_act(), h.phase(), h.stock_len()), (Some(0), Gin7Phase::Draw, 23));
    /// ```
    pub fn deal_from(
        rules: &Gin7Rules,
        seed: u64,
        number: u64,
        dealer: u8,
        deck: Deck,
    ) -> Result<Gin7Hand, Gin7RulesError> {
        rules.check()?;
        let n = rules.players;
        if dealer >= n {
            return Err(Gin7RulesError(format!("dealer: seat {dealer} at a table of {n}")));
        }
        let dealt = n as usize * rules.hand_size as usize;
        let d = deck.cards();
        let mut cards = [CardSet::EMPTY; MAX];
        let mut seat = dealer;
        for &c in &d[..dealt] {
            seat = if seat + 1 == n { 0 } else { seat + 1 };
            cards[seat as usize].insert(c);
        }
        let upcard = d[dealt];
        Ok(Gin7Hand {
            rules: *rules,
            stock: *deck.cards(),
            deck,
            seed,
            number,
            dealer,
            cards,
            known: [CardSet::EMPTY; MAX],
            held: cards,
            public: CardSet::single(upcard),
            stock_next: dealt as u8 + 1,
            turns: 0,
            played: 0,
            pile: Pile::starting_with(upcard),
            to_act: (dealer + 1) % n,
            phase: Gin7Phase::Draw,
            taken: CardSet::EMPTY,
            result: None,
        })
    }

    /// The rules.
    pub fn rules(&self) -> &Gin7Rules {
        &self.rules
    }

    /// Players at the table.
    pub fn players(&self) -> u8 {
        self.rules.players
    }

    /// Who dealt.
    pub fn dealer(&self) -> u8 {
        self.dealer
    }

    /// The deck this hand was dealt from.
    pub fn deck(&self) -> &Deck {
        &self.deck
    }

    /// The upcard (first card of the discard pile).
    pub fn upcard(&self) -> Card {
        self.deck.cards()[self.rules.players as usize * self.rules.hand_size as usize]
    }

    /// The seat to act, or `None` once the hand is over.
    pub fn to_act(&self) -> Option<u8> {
        (self.phase != Gin7Phase::Over).then_some(self.to_act)
    }

    /// Where the turn is.
    pub fn phase(&self) -> Gin7Phase {
        self.phase
    }

    /// True once the hand is over.
    pub fn is_over(&self) -> bool {
        self.phase == Gin7Phase::Over
    }

    /// Seat `seat`'s cards (after a knock: the knocker's without its face-down discard).
    /// Empty for a seat that is not at the table.
    pub fn cards(&self, seat: u8) -> CardSet {
        self.cards.get(seat as usize).copied().unwrap_or_default()
    }

    /// The face-up discard pile, bottom first (the last is the top).
    pub fn pile(&self) -> &[Card] {
        self.pile.as_slice()
    }

    /// Cards left in the stock.
    pub fn stock_len(&self) -> usize {
        52 - self.stock_next as usize
    }

    /// The stock, top first (hidden information: for the server and tests).
    pub fn stock(&self) -> &[Card] {
        &self.stock[self.stock_next as usize..]
    }

    /// How many times the pile has been turned under the stock in this hand
    /// ([`Gin7Rules::reshuffles`]).
    pub fn pile_turns(&self) -> u32 {
        self.turns
    }

    /// Turns of play started so far in this hand (each draw starts one).
    pub fn turns_played(&self) -> u32 {
        self.played
    }

    /// Cards of `seat` that every player knows it holds: taken from the pile, still held.
    pub fn known_cards(&self, seat: u8) -> CardSet {
        self.known.get(seat as usize).copied().unwrap_or_default()
    }

    /// Every card `seat` has seen so far and still knows the place of: the cards it has held
    /// and every face-up card, but the cards turned back into the stock with the pile
    /// ([`Gin7Rules::reshuffles`]): hidden again, they may come to any hand (one drawn again
    /// is seen again by its drawer).
    pub fn seen_by(&self, seat: u8) -> CardSet {
        self.held.get(seat as usize).map_or(CardSet::EMPTY, |&h| h | self.public)
    }

    /// The card the seat to act took from the pile this turn, if any.
    pub fn taken_from_pile(&self) -> Option<Card> {
        self.taken.first()
    }

    /// A copy of this hand with its hidden cards placed again, for a player's search over
    /// what it cannot see (a determinization): each seat `s` holds `hands[s]`, the stock is
    /// `stock` (top first), and later turns of the pile are shuffled keyed by `seed` instead
    /// of the game's. Everything public stays: the pile, the cards known to be held, the
    /// turn. The caller keeps what it deals consistent (each seat the same number of cards,
    /// its known ones among them; the stock as long; every card once): checked in debug
    /// builds.
    pub fn with_hidden(&self, hands: &[CardSet], stock: &[Card], seed: u64) -> Gin7Hand {
        let n = self.rules.players as usize;
        debug_assert_eq!(hands.len(), n);
        debug_assert_eq!(stock.len(), self.stock_len());
        let mut h = self.clone();
        for (s, &c) in hands.iter().enumerate().take(n) {
            debug_assert_eq!(c.len(), self.cards[s].len(), "seat {s}");
            debug_assert!(c.is_superset(self.known[s]), "seat {s}");
            h.held[s] = (h.held[s] - self.cards[s]) | c;
            h.cards[s] = c;
        }
        h.stock[self.stock_next as usize..].copy_from_slice(stock);
        h.seed = seed;
        h
    }

    /// A hand as `view.seat` sees it, for a search over what it cannot see: everything
    /// public and its own cards as the view says, the cards it cannot place dealt to the
    /// other seats (their known cards kept) and the stock in a fixed order, the hand's seed
    /// `seed` (it keys later turns of the pile). The seat's search deals the hidden cards
    /// again ([`Gin7Hand::with_hidden`]); [`Gin7Hand::deck`] and [`Gin7Hand::upcard`] of the
    /// result are made up. Refused, saying why, when the view does not add up: a seat out of
    /// range, a phase that is not a turn, counts that do not make 52 cards, a card in two
    /// places.
    pub fn from_view(view: &Gin7View, seed: u64) -> Result<Gin7Hand, ViewError> {
        let err = |m: String| Err(ViewError(m));
        let rules = view.rules;
        rules.check().map_err(|e| ViewError(e.0))?;
        let n = rules.players;
        for (what, s) in [("dealer", view.dealer), ("seat", view.seat), ("seat to act", view.to_act)] {
            if s >= n {
                return err(format!("{what}: seat {s} at a table of {n}"));
            }
        }
        if view.phase == Gin7Phase::Over {
            return err("the hand is over".into());
        }
        if view.hand_lens.len() != n as usize || view.known.len() != n as usize {
            return err(format!(
                "{} hand sizes and {} known hands at a table of {n}",
                view.hand_lens.len(),
                view.known.len()
            ));
        }
        let (me, size) = (view.seat as usize, u32::from(rules.hand_size));
        for (s, &len) in view.hand_lens.iter().enumerate() {
            let want =
                if s == view.to_act as usize && view.phase == Gin7Phase::Discard { size + 1 } else { size };
            if len != want {
                return err(format!("seat {s} holds {len} cards; {want} at this point of the turn"));
            }
            if view.known[s].len() > len {
                return err(format!("seat {s} is known to hold {} of its {len} cards", view.known[s].len()));
            }
        }
        if view.cards.len() != view.hand_lens[me] {
            return err(format!(
                "the seat's {} cards, {} by the hand sizes",
                view.cards.len(),
                view.hand_lens[me]
            ));
        }
        if !view.cards.is_superset(view.known[me]) {
            return err("the seat's known cards are not all in its hand".into());
        }
        // Every card placed once: the seat's, the others' known ones, the pile.
        let mut placed = view.cards;
        for (s, &k) in view.known.iter().enumerate() {
            if s != me {
                if !(placed & k).is_empty() {
                    return err(format!("seat {s}'s known cards [{}] are placed twice", placed & k));
                }
                placed |= k;
            }
        }
        for &c in &view.pile {
            if placed.contains(c) {
                return err(format!("the pile's {c} is placed twice"));
            }
            placed.insert(c);
        }
        let total: u32 = view.hand_lens.iter().sum::<u32>() + view.pile.len() as u32 + view.stock_len;
        if total != 52 {
            return err(format!("{total} cards in the hands, the pile and the stock, not 52"));
        }
        if let Some(t) = view.taken
            && (view.phase != Gin7Phase::Discard || !view.known[view.to_act as usize].contains(t))
        {
            return err(format!("{t} taken from the pile this turn, not a known card of the seat to act"));
        }
        // The cards the seat cannot place: to each other seat after its known ones, then the
        // stock.
        let mut unseen = (CardSet::FULL - placed).iter();
        let mut cards = [CardSet::EMPTY; MAX];
        for (s, c) in cards.iter_mut().enumerate().take(n as usize) {
            *c = if s == me { view.cards } else { view.known[s] };
            while c.len() < view.hand_lens[s] {
                c.insert(unseen.next().expect("the counts add up to 52"));
            }
        }
        let stock: Vec<Card> = unseen.collect();
        debug_assert_eq!(stock.len(), view.stock_len as usize);
        // The stock at the end of the array, top first; before it, the rest (meaning nothing).
        let mut order: Vec<Card> =
            (CardSet::FULL - stock.iter().copied().collect::<CardSet>()).iter().collect();
        order.extend(&stock);
        let deck = Deck::from_cards(&order).map_err(|e| ViewError(e.to_string()))?;
        let mut pile = match view.pile.first() {
            Some(&c) => Pile::starting_with(c),
            None => {
                let mut p = Pile::starting_with(order[0]);
                p.pop();
                p
            }
        };
        for &c in view.pile.iter().skip(1) {
            pile.push(c);
        }
        let public = view.public | view.pile.iter().copied().collect::<CardSet>();
        let mut known = [CardSet::EMPTY; MAX];
        known[..n as usize].copy_from_slice(&view.known);
        Ok(Gin7Hand {
            rules,
            stock: *deck.cards(),
            deck,
            seed,
            number: 0,
            dealer: view.dealer,
            cards,
            known,
            held: cards,
            public,
            stock_next: (52 - stock.len()) as u8,
            turns: view.pile_turns,
            played: view.turns_played,
            pile,
            to_act: view.to_act,
            phase: view.phase,
            taken: view.taken.map_or(CardSet::EMPTY, CardSet::single),
            result: None,
        })
    }

    /// The view of `seat` of this hand ([`Gin7Hand::from_view`] takes it back).
    pub fn view_of(&self, seat: u8) -> Gin7View {
        let n = self.rules.players as usize;
        Gin7View {
            rules: self.rules,
            dealer: self.dealer,
            seat,
            to_act: self.to_act,
            phase: self.phase,
            cards: self.cards(seat),
            hand_lens: self.cards[..n].iter().map(|c| c.len()).collect(),
            known: self.known[..n].to_vec(),
            pile: self.pile().to_vec(),
            stock_len: self.stock_len() as u32,
            taken: self.taken_from_pile(),
            pile_turns: self.turns,
            turns_played: self.played,
            public: self.public,
        }
    }

    /// The result, once the hand is over.
    pub fn result(&self) -> Option<&Gin7HandResult> {
        self.result.as_deref()
    }

    /// The legal actions of the seat to act, compactly: `pass` and `big_gin` are always
    /// false, and `seat` is always `None` ([`crate::Seat`] has two values): the seat is
    /// [`Gin7Hand::to_act`]. Empty (count 0) once the hand is over.
    #[inline]
    pub fn legal(&self) -> Legal {
        match self.phase {
            Gin7Phase::Over => Legal::default(),
            Gin7Phase::Draw => {
                Legal { draw_stock: true, draw_pile: !self.pile.is_empty(), ..Legal::default() }
            }
            Gin7Phase::Discard => {
                let h = self.cards[self.to_act as usize];
                let not_taken = h - self.taken;
                // The solver's own first refusal, inline: the cards in no candidate meld stay
                // deadwood whatever is discarded, and if even discarding the highest of them
                // leaves more than the limit, nothing can knock (most turns).
                let limit = self.rules.knock_limit;
                let loose = CardSet::from_bits(h.bits() & !meldable(h.bits()));
                let knocks = if !loose.is_empty() && loose.value() - loose.max_value() > limit {
                    CardSet::EMPTY
                } else {
                    knock_discards(h, limit) & not_taken
                };
                Legal { discards: not_taken, knocks, ..Legal::default() }
            }
        }
    }

    /// Every legal action of the seat to act (knocks with engine-chosen melds), in
    /// [`Legal::to_vec`]'s order.
    pub fn legal_actions(&self) -> Vec<Action> {
        self.legal().to_vec()
    }

    /// Whether `seat` may do `action` now.
    pub fn is_legal(&self, seat: u8, action: &Action) -> bool {
        self.check(seat, action).is_ok()
    }

    /// Checks an action without applying it; returns the knock's arrangement when it is one.
    fn check(&self, seat: u8, action: &Action) -> Result<Option<Arrangement>, Gin7Error> {
        if self.phase == Gin7Phase::Over {
            return Err(Gin7Error::NotYourTurn { to_act: None });
        }
        if seat != self.to_act {
            return Err(Gin7Error::NotYourTurn { to_act: Some(self.to_act) });
        }
        let illegal = |e| Err(Gin7Error::Illegal(e));
        let hand = self.cards[seat as usize];
        match (self.phase, action) {
            (_, Action::BigGin { .. }) => illegal(RuleError::NoBigGin),
            (Gin7Phase::Draw, Action::DrawStock) => Ok(None),
            (Gin7Phase::Draw, Action::DrawPile) if self.pile.is_empty() => Err(Gin7Error::WrongPhase {
                phase: self.phase,
                expected: "draw from the stock: the discard pile is empty",
            }),
            (Gin7Phase::Draw, Action::DrawPile) => Ok(None),
            (Gin7Phase::Draw, _) => Err(Gin7Error::WrongPhase {
                phase: self.phase,
                expected: "draw from the stock or the pile (no upcard offer at a table of three or more)",
            }),
            (Gin7Phase::Discard, Action::Discard { card }) => {
                self.check_discard(hand, *card)?;
                Ok(None)
            }
            (Gin7Phase::Discard, Action::Knock { discard, melds }) => {
                self.check_discard(hand, *discard)?;
                let rest = hand.without(*discard);
                let limit = self.rules.knock_limit;
                let arrangement = match melds {
                    Some(m) => Arrangement::new(rest, m.clone())
                        .map_err(|e| Gin7Error::Illegal(RuleError::BadMelds(e)))?,
                    None => {
                        // The quick refusal first: the least deadwood the knock could leave.
                        let dw = deadwood(rest);
                        if dw > limit {
                            return illegal(RuleError::DeadwoodTooHigh { deadwood: dw, limit });
                        }
                        self.knock_arrangement(seat, rest)
                    }
                };
                let dw = arrangement.deadwood();
                if dw > limit {
                    return illegal(RuleError::DeadwoodTooHigh { deadwood: dw, limit });
                }
                Ok(Some(arrangement))
            }
            (Gin7Phase::Discard, _) => Err(Gin7Error::WrongPhase {
                phase: self.phase,
                expected: "discard or knock: you have drawn already",
            }),
            (Gin7Phase::Over, _) => Err(Gin7Error::NotYourTurn { to_act: None }),
        }
    }

    fn check_discard(&self, hand: CardSet, card: Card) -> Result<(), Gin7Error> {
        if !hand.contains(card) {
            return Err(Gin7Error::Illegal(RuleError::NotInHand(card)));
        }
        if self.taken.contains(card) {
            return Err(Gin7Error::Illegal(RuleError::JustTaken(card)));
        }
        Ok(())
    }

    /// The knocker's arrangement when it names none: a minimum-deadwood arrangement, and among
    /// those the one offering the fewest layoff spots among the cards the knocker has not
    /// seen; remaining ties go to the first in the solver's fixed order.
    fn knock_arrangement(&self, seat: u8, cards: CardSet) -> Arrangement {
        let unseen = !self.seen_by(seat);
        let mut best: Option<(u32, Arrangement)> = None;
        for a in min_arrangements(cards) {
            let spots = (a.layoff_spots() & unseen).len();
            if best.as_ref().is_none_or(|b| spots < b.0) {
                best = Some((spots, a));
            }
        }
        best.map(|b| b.1).expect("every hand has an arrangement")
    }

    /// Applies `action` by `seat`. On `Err` nothing changed.
    ///
    /// ```
    /// use engine::{Action, Deck};
    /// use engine::gin7::{Gin7Error, Gin7Hand, Gin7Rules};
    /// let mut h = Gin7Hand::deal_from(&Gin7Rules::default(), 7, 0, 0, Deck::shuffled(7, 0)).unwrap();
    /// // Seat 1, on the dealer's left, plays first.
    /// assert_eq!(h.apply(2, &Action::DrawStock), Err(Gin7Error::NotYourTurn { to_act: Some(1) }));
    /// h.apply(1, &Action::DrawStock).unwrap();
    /// assert_eq!(h.cards(1).len(), 8);
    /// ```
    #[inline]
    pub fn apply(&mut self, seat: u8, action: &Action) -> Result<Gin7Event, Gin7Error> {
        match self.apply_common(seat, action) {
            Some(event) => Ok(event),
            None => self.apply_listed(seat, action),
        }
    }

    /// Almost every move of a hand, when legal, played inline and with no call: a draw, or a
    /// discard that neither ends the hand nor turns the pile (the stock keeps more than
    /// `dead_stock` cards); `None` (nothing changed) for every other move and every refusal,
    /// which [`Gin7Hand::apply_listed`] plays (it plays these the same way). The event comes
    /// back small, in registers (a `Result` with the error beside it went through memory).
    #[inline(always)]
    fn apply_common(&mut self, seat: u8, action: &Action) -> Option<Gin7Event> {
        if seat == self.to_act {
            let s = seat as usize;
            match (self.phase, action) {
                (Gin7Phase::Draw, Action::DrawStock | Action::DrawPile) => {
                    // One path for both (random play picks one at random: no branch on it).
                    let pile = matches!(action, Action::DrawPile);
                    let (stock_top, pile_top) =
                        (self.stock[(self.stock_next as usize).min(51)], self.pile.top_or_any());
                    let can = if pile { !self.pile.is_empty() } else { (self.stock_next as usize) < 52 };
                    if can {
                        let card = if pile { pile_top } else { stock_top };
                        self.stock_next += !pile as u8;
                        self.pile.drop_top(pile);
                        self.cards[s].insert(card);
                        self.held[s].insert(card);
                        self.known[s] |= CardSet::from_bits((pile as u64) << card.bit());
                        self.taken = CardSet::from_bits((pile as u64) << card.bit());
                        self.played += 1;
                        self.phase = Gin7Phase::Discard;
                        return Some(Gin7Event::Drew { seat, card, from_stock: !pile });
                    }
                }
                (Gin7Phase::Discard, &Action::Discard { card })
                    if self.cards[s].contains(card)
                        && !self.taken.contains(card)
                        && self.stock_len() > self.rules.dead_stock as usize
                        && self.played < self.rules.max_turns_per_hand =>
                {
                    self.cards[s].remove(card);
                    self.known[s].remove(card);
                    self.pile.push(card);
                    self.public.insert(card);
                    self.taken = CardSet::EMPTY;
                    self.phase = Gin7Phase::Draw;
                    self.to_act = if seat + 1 == self.rules.players { 0 } else { seat + 1 };
                    return Some(Gin7Event::Discarded { seat, card });
                }
                _ => {}
            }
        }
        None
    }

    /// [`Gin7Hand::apply`] for every move, checked with its reason.
    #[inline(never)]
    fn apply_listed(&mut self, seat: u8, action: &Action) -> Result<Gin7Event, Gin7Error> {
        // The common legal moves go straight through; anything else (knocks, and every
        // refusal with its reason) goes through `check`, which the guards here mirror.
        let mine = seat == self.to_act;
        let arrangement = match (self.phase, action) {
            (Gin7Phase::Draw, Action::DrawStock) if mine => None,
            (Gin7Phase::Draw, Action::DrawPile) if mine && !self.pile.is_empty() => None,
            (Gin7Phase::Discard, Action::Discard { card })
                if mine && self.cards[seat as usize].contains(*card) && !self.taken.contains(*card) =>
            {
                None
            }
            _ => self.check(seat, action)?,
        };
        let s = seat as usize;
        Ok(match action {
            Action::DrawStock => {
                let card = self.stock[self.stock_next as usize];
                self.stock_next += 1;
                self.cards[s].insert(card);
                self.held[s].insert(card);
                self.taken = CardSet::EMPTY;
                self.played += 1;
                self.phase = Gin7Phase::Discard;
                Gin7Event::Drew { seat, card, from_stock: true }
            }
            Action::DrawPile => {
                let card = self.pile.pop().expect("checked: pile not empty");
                self.cards[s].insert(card);
                self.held[s].insert(card);
                self.known[s].insert(card);
                self.taken = CardSet::single(card);
                self.played += 1;
                self.phase = Gin7Phase::Discard;
                Gin7Event::Drew { seat, card, from_stock: false }
            }
            Action::Discard { card } => {
                let card = *card;
                self.cards[s].remove(card);
                self.known[s].remove(card);
                self.pile.push(card);
                self.public.insert(card);
                self.taken = CardSet::EMPTY;
                let low = self.stock_len() <= self.rules.dead_stock as usize;
                if low && (self.turns >= self.rules.reshuffles || self.pile.len() < 2) {
                    self.dead(Gin7EndKind::Dead);
                    return Ok(Gin7Event::DeadHand { seat, card });
                }
                if self.played >= self.rules.max_turns_per_hand {
                    self.dead(Gin7EndKind::TurnLimit);
                    return Ok(Gin7Event::TurnLimit { seat, card });
                }
                self.phase = Gin7Phase::Draw;
                self.to_act = if seat + 1 == self.rules.players { 0 } else { seat + 1 };
                if low {
                    self.turn_pile();
                    Gin7Event::PileTurned { seat, card, turn: self.turns }
                } else {
                    Gin7Event::Discarded { seat, card }
                }
            }
            Action::Knock { discard, .. } => {
                let arrangement = arrangement.expect("checked: a knock has an arrangement");
                self.cards[s].remove(*discard);
                self.known[s].remove(*discard);
                self.settle(seat, *discard, arrangement);
                Gin7Event::Knocked { seat }
            }
            Action::Pass | Action::BigGin { .. } => unreachable!("checked: always refused"),
        })
    }

    /// Turns the pile but its top card under the stock (see the module docs): the cards
    /// turned are hidden again.
    fn turn_pile(&mut self) {
        self.turns += 1;
        let pile = self.pile.as_slice();
        let (turned, top) = (&pile[..pile.len() - 1], pile[pile.len() - 1]);
        let mut cards = [top; 52];
        let cards = &mut cards[..turned.len()];
        cards.copy_from_slice(turned);
        shuffle_turned_pile(cards, self.seed, self.number, self.turns);
        // The cards left in the stock stay on top, the turned ones under them.
        let left = self.stock_len();
        let next = 52 - left - cards.len();
        self.stock.copy_within(self.stock_next as usize.., next);
        self.stock[next + left..].copy_from_slice(cards);
        self.stock_next = next as u8;
        let hidden: CardSet = cards.iter().copied().collect();
        self.public = self.public - hidden;
        for h in &mut self.held {
            *h = *h - hidden;
        }
        self.pile = Pile::starting_with(top);
    }

    /// Ends the hand with no score: dead at the stock, or at the turn limit.
    fn dead(&mut self, end: Gin7EndKind) {
        let n = self.rules.players as usize;
        let seats = self.cards[..n]
            .iter()
            .map(|&c| Gin7SeatResult {
                arrangement: best_arrangement(c),
                layoffs: Vec::new(),
                deadwood: 0,
                points: 0,
                penalty: 0,
            })
            .collect();
        self.phase = Gin7Phase::Over;
        self.result = Some(Box::new(Gin7HandResult {
            end,
            knocker: None,
            winner: None,
            discard: None,
            seats,
            turns: self.played,
        }));
    }

    fn settle(&mut self, knocker: u8, discard: Card, arrangement: Arrangement) {
        let n = self.rules.players;
        let k = arrangement.deadwood();
        let gin = k == 0;
        let mut seats: Vec<Gin7SeatResult> = (0..n)
            .map(|s| {
                let cards = self.cards[s as usize];
                let (arrangement, layoffs) = if s == knocker {
                    (arrangement.clone(), Vec::new())
                } else if gin || !self.rules.layoffs {
                    (best_arrangement(cards), Vec::new())
                } else {
                    let d = best_defense(cards, arrangement.melds());
                    (d.arrangement, d.layoffs)
                };
                let deadwood = arrangement.deadwood();
                Gin7SeatResult { arrangement, layoffs, deadwood, points: 0, penalty: 0 }
            })
            .collect();
        // The defenders in play order after the knocker: the first lowest wins a defence.
        let mut best: Option<(u8, u32)> = None;
        for i in 1..n {
            let s = (knocker + i) % n;
            let d = seats[s as usize].deadwood;
            if d <= k && best.is_none_or(|b| d < b.1) {
                best = Some((s, d));
            }
        }
        let (end, winner, base) = match best {
            _ if gin => (Gin7EndKind::Gin, knocker, 0),
            Some((w, d)) => (Gin7EndKind::Defence, w, d),
            None => (Gin7EndKind::Knock, knocker, k),
        };
        for (s, r) in seats.iter_mut().enumerate() {
            if s == winner as usize {
                r.points = match end {
                    Gin7EndKind::Gin => self.rules.gin_points,
                    Gin7EndKind::Knock => self.rules.knock_points,
                    _ => self.rules.defence_points,
                };
            } else {
                r.penalty = r.deadwood.saturating_sub(base);
            }
        }
        self.phase = Gin7Phase::Over;
        self.taken = CardSet::EMPTY;
        self.result = Some(Box::new(Gin7HandResult {
            end,
            knocker: Some(knocker),
            winner: Some(winner),
            discard: Some(discard),
            seats,
            turns: self.played,
        }));
    }
}

/// How a game of gin for three or more is set up: everything needed, with its actions, to
/// replay it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gin7Setup {
    /// The rules.
    pub rules: Gin7Rules,
    /// The seed: hand `n` is dealt from `Deck::shuffled(seed, n)` unless `decks` gives it.
    pub seed: u64,
    /// Explicit decks for the first hands, in order (the rest come from the seed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decks: Vec<Deck>,
    /// The first dealer; `None`: seat `seed % players`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_dealer: Option<u8>,
}

impl Gin7Setup {
    /// A seeded game under `rules`.
    pub fn new(rules: Gin7Rules, seed: u64) -> Gin7Setup {
        Gin7Setup { rules, seed, decks: Vec::new(), first_dealer: None }
    }

    fn deck(&self, n: u32) -> Deck {
        self.decks.get(n as usize).copied().unwrap_or_else(|| Deck::shuffled(self.seed, n as u64))
    }
}

/// One finished hand of a game, with the running totals after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gin7HandSummary {
    /// Hand number in the game (0-based; dead hands count).
    pub number: u32,
    /// Who dealt.
    pub dealer: u8,
    /// The result.
    pub result: Gin7HandResult,
    /// Each seat's points won so far, this hand included.
    pub points: Vec<u32>,
    /// Each seat's penalties so far, this hand included.
    pub penalties: Vec<u32>,
}

/// What one accepted action did to the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gin7Step {
    /// The hand-level event.
    pub event: Gin7Event,
    /// The action ended a hand (see [`Gin7Game::hands`]); unless the game is over, the next
    /// hand is already dealt.
    pub hand_over: bool,
    /// The action ended the game.
    pub game_over: bool,
}

/// A game's accepted actions, compactly: a draw or a discard (all but a few moves a hand) is
/// one `u16` (seat, kind, card), logged from the move's event in registers; every other
/// action (a knock, with its melds) is kept whole in `others`, in order. (A log of `(u8,
/// Action)`, 40 bytes a move, cost a stalled store on every move: the action was written a
/// byte at a time, then copied 32 bytes at once.)
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct ActionLog {
    /// `kind | seat << 6 | card bit` (seats below 8: tables hold at most 6); kind
    /// [`ActionLog::OTHER`]: the next of `others`.
    moves: Vec<u16>,
    others: Vec<Action>,
}

impl ActionLog {
    const STOCK: u16 = 0;
    const PILE: u16 = 1 << 9;
    const DISCARD: u16 = 2 << 9;
    const OTHER: u16 = 3 << 9;

    /// Logs the draw or discard whose event this is (an event of another move: see
    /// [`ActionLog::push`]).
    #[inline(always)]
    fn push_common(&mut self, event: &Gin7Event) {
        let (kind, seat, card) = match *event {
            Gin7Event::Drew { seat, card, from_stock } => {
                (if from_stock { Self::STOCK } else { Self::PILE }, seat, card)
            }
            Gin7Event::Discarded { seat, card } => (Self::DISCARD, seat, card),
            _ => unreachable!("apply_common plays only draws and discards"),
        };
        self.moves.push(kind | (seat as u16) << 6 | card.bit() as u16);
    }

    /// Logs any action.
    fn push(&mut self, seat: u8, action: &Action) {
        let seat = (seat as u16) << 6;
        self.moves.push(match action {
            Action::DrawStock => Self::STOCK | seat,
            Action::DrawPile => Self::PILE | seat,
            Action::Discard { card } => Self::DISCARD | seat | card.bit() as u16,
            other => {
                self.others.push(other.clone());
                Self::OTHER | seat
            }
        });
    }

    /// The actions with their seats, in order.
    fn to_vec(&self) -> Vec<(u8, Action)> {
        let mut others = self.others.iter();
        let card = |m: u16| Card::from_bit((m & 63) as u8).expect("logged from a card");
        self.moves
            .iter()
            .map(|&m| {
                let action = match m & Self::OTHER {
                    Self::STOCK => Action::DrawStock,
                    Self::PILE => Action::DrawPile,
                    Self::DISCARD => Action::Discard { card: card(m) },
                    _ => others.next().expect("one logged whole per OTHER").clone(),
                };
                ((m >> 6 & 7) as u8, action)
            })
            .collect()
    }
}

/// A game of gin for three or more: hands until the end, the deal passing to the left.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gin7Game {
    setup: Gin7Setup,
    hand: Gin7Hand,
    hand_number: u32,
    points: Vec<u32>,
    penalties: Vec<u32>,
    hands: Vec<Gin7HandSummary>,
    actions: ActionLog,
    over: bool,
    /// The game ended at its hand limit.
    hand_limit: bool,
}

impl Gin7Game {
    /// Starts a game: checks the rules and the first dealer, deals the first hand.
    pub fn new(setup: Gin7Setup) -> Result<Gin7Game, Gin7RulesError> {
        setup.rules.check()?;
        let n = setup.rules.players;
        let dealer = setup.first_dealer.unwrap_or((setup.seed % n as u64) as u8);
        let hand = Gin7Hand::deal_from(&setup.rules, setup.seed, 0, dealer, setup.deck(0))?;
        Ok(Gin7Game {
            hand,
            hand_number: 0,
            points: vec![0; n as usize],
            penalties: vec![0; n as usize],
            hands: Vec::new(),
            actions: ActionLog::default(),
            over: false,
            hand_limit: false,
            setup,
        })
    }

    /// The setup.
    pub fn setup(&self) -> &Gin7Setup {
        &self.setup
    }

    /// The rules.
    pub fn rules(&self) -> &Gin7Rules {
        &self.setup.rules
    }

    /// The hand in play (the last one, once the game is over).
    pub fn hand(&self) -> &Gin7Hand {
        &self.hand
    }

    /// Number of the hand in play (0-based, dead hands count).
    pub fn hand_number(&self) -> u32 {
        self.hand_number
    }

    /// Finished hands, with running totals.
    pub fn hands(&self) -> &[Gin7HandSummary] {
        &self.hands
    }

    /// Every action accepted so far, with its seat (a list built from the game's compact
    /// log).
    pub fn actions(&self) -> Vec<(u8, Action)> {
        self.actions.to_vec()
    }

    /// How many actions were accepted so far.
    pub fn action_count(&self) -> usize {
        self.actions.moves.len()
    }

    /// Each seat's points won.
    pub fn points(&self) -> &[u32] {
        &self.points
    }

    /// Each seat's penalties.
    pub fn penalties(&self) -> &[u32] {
        &self.penalties
    }

    /// Each seat's net: points won minus penalties.
    pub fn net(&self) -> Vec<i64> {
        self.points.iter().zip(&self.penalties).map(|(&p, &q)| p as i64 - q as i64).collect()
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.over
    }

    /// How the game ended (`None` while it goes on).
    pub fn end(&self) -> Option<crate::GameEnd> {
        self.over.then_some(if self.hand_limit { crate::GameEnd::HandLimit } else { crate::GameEnd::Normal })
    }

    /// The seat to act, if any.
    pub fn to_act(&self) -> Option<u8> {
        if self.over { None } else { self.hand.to_act() }
    }

    /// The winners once the game is over: the seats with the best net (several on a tie).
    /// Empty while the game goes on.
    pub fn winners(&self) -> Vec<u8> {
        if !self.over {
            return Vec::new();
        }
        let net = self.net();
        let best = net.iter().copied().max().unwrap_or(0);
        (0..self.setup.rules.players).filter(|&s| net[s as usize] == best).collect()
    }

    /// Applies `action` by `seat` to the hand in play; when it ends the hand, books it and
    /// deals the next (unless the game is over). On `Err` nothing changed.
    #[inline]
    pub fn apply(&mut self, seat: u8, action: &Action) -> Result<Gin7Step, Gin7Error> {
        match self.apply_common(seat, action) {
            Some(event) => Ok(Gin7Step { event, hand_over: false, game_over: false }),
            None => self.apply_rest(seat, action),
        }
    }

    /// A draw, or a discard that neither ends the hand nor turns the pile, inline: its event
    /// (the hand and the game go on), small enough to stay in registers up to the caller;
    /// `None` (nothing changed) for every other move, which [`Gin7Game::apply`] plays.
    #[inline(always)]
    fn apply_common(&mut self, seat: u8, action: &Action) -> Option<Gin7Event> {
        if self.over {
            return None;
        }
        let event = self.hand.apply_common(seat, action)?;
        self.actions.push_common(&event);
        Some(event)
    }

    /// [`Gin7Game::apply_common`] of an action the caller owns: logged without a copy, or
    /// given back when not played.
    #[inline(always)]
    pub(crate) fn apply_common_owned(&mut self, seat: u8, action: Action) -> Result<Gin7Event, Action> {
        if self.over {
            return Err(action);
        }
        match self.hand.apply_common(seat, &action) {
            Some(event) => {
                self.actions.push_common(&event);
                Ok(event)
            }
            None => Err(action),
        }
    }

    /// [`Gin7Game::apply`] of every other move (and every refusal).
    #[inline(never)]
    fn apply_rest(&mut self, seat: u8, action: &Action) -> Result<Gin7Step, Gin7Error> {
        if self.over {
            return Err(Gin7Error::NotYourTurn { to_act: None });
        }
        let event = self.hand.apply_listed(seat, action)?;
        self.actions.push(seat, action);
        let mut step = Gin7Step { event, hand_over: false, game_over: false };
        if let Some(r) = self.hand.result() {
            step.hand_over = true;
            for (s, sr) in r.seats.iter().enumerate() {
                self.points[s] += sr.points;
                self.penalties[s] += sr.penalty;
            }
            let played = self.hands.len() as u32 + 1;
            let normal = match self.setup.rules.end {
                Gin7End::Points(t) => self.points.iter().any(|&p| p >= t),
                Gin7End::Hands(n) => played >= n,
            };
            self.hand_limit = !normal && played >= self.setup.rules.max_hands_per_game;
            self.over = normal || self.hand_limit;
            // The result moves to the summary when the next hand replaces this one (a copy
            // only for the last hand, which stays readable in the hand).
            let r = match self.over {
                true => r.clone(),
                false => *self.hand.result.take().expect("the hand is over"),
            };
            let dealer = self.hand.dealer();
            self.hands.push(Gin7HandSummary {
                number: self.hand_number,
                dealer,
                result: r,
                points: self.points.clone(),
                penalties: self.penalties.clone(),
            });
            step.game_over = self.over;
            if !self.over {
                self.hand_number += 1;
                let next = (dealer + 1) % self.setup.rules.players;
                let (seed, number) = (self.setup.seed, self.hand_number);
                self.hand = Gin7Hand::deal_from(
                    &self.setup.rules,
                    seed,
                    number as u64,
                    next,
                    self.setup.deck(number),
                )
                .expect("the rules were checked at the start");
            }
        }
        Ok(step)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `apply`'s inline path plays every move as the checked path does (the same event, the
    /// same hand after, the same refusal), over random hands with and without turns of the
    /// pile, legal moves and refused ones.
    /// The compact log gives back every kind of action with its seat, in order, a knock's
    /// named melds included.
    #[test]
    fn the_action_log_gives_back_what_it_logged() {
        let c = |s: &str| s.parse::<Card>().unwrap();
        let knock = Action::Knock {
            discard: c("KD"),
            melds: Some(vec![crate::meld::Meld::new(crate::hand("7C 7D 7H")).unwrap()]),
        };
        let moves = vec![
            (0, Action::DrawStock),
            (5, Action::DrawPile),
            (5, Action::Discard { card: c("AS") }),
            (3, Action::Discard { card: c("KH") }),
            (2, knock),
            (4, Action::knock(c("2C"))),
            (1, Action::Discard { card: c("QC") }),
        ];
        let mut log = ActionLog::default();
        for (s, a) in &moves {
            log.push(*s, a);
        }
        assert_eq!(log.to_vec(), moves);
        // From the events of a draw and a discard, as the inline path logs them.
        let mut from_events = ActionLog::default();
        from_events.push_common(&Gin7Event::Drew { seat: 5, card: c("9S"), from_stock: false });
        from_events.push_common(&Gin7Event::Discarded { seat: 2, card: c("TD") });
        assert_eq!(from_events.to_vec(), vec![(5, Action::DrawPile), (2, Action::Discard { card: c("TD") })]);
    }

    /// A hand rebuilt from a seat's view ([`Gin7Hand::view_of`], [`Gin7Hand::from_view`]),
    /// its hidden cards then dealt at random ([`Gin7Hand::with_hidden`]), gives the seat the
    /// view it had and, when it is to act, the true hand's legal moves; it plays on to its
    /// end. Views that do not add up are refused.
    #[test]
    fn a_hand_rebuilt_from_a_seats_view_has_the_true_hands_legal_moves() {
        let mut x = 0x1234_5678_9ABC_DEF1u64;
        let mut next = |n: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n as u64) as usize
        };
        let mut compared = 0;
        for players in 3..=6u8 {
            let r = Gin7Rules { reshuffles: 12, ..Gin7Rules::for_players(players).unwrap() };
            for seed in 0..40u64 {
                let mut h = Gin7Hand::deal(&r, seed, seed % 3, (seed % players as u64) as u8).unwrap();
                while let Some(actor) = h.to_act() {
                    for seat in 0..players {
                        let v = h.view_of(seat);
                        let built = Gin7Hand::from_view(&v, seed ^ 7).unwrap();
                        assert_eq!(built.view_of(seat), v);
                        // The hidden cards dealt again at random, as a search does.
                        let mut pool: Vec<Card> = (CardSet::FULL
                            - h.cards(seat)
                            - h.pile().iter().copied().collect::<CardSet>()
                            - (0..players)
                                .filter(|&s| s != seat)
                                .fold(CardSet::EMPTY, |a, s| a | h.known_cards(s)))
                        .iter()
                        .collect();
                        for i in (1..pool.len()).rev() {
                            pool.swap(i, next(i + 1));
                        }
                        let mut hands = Vec::new();
                        for s in 0..players {
                            let mut c = if s == seat { h.cards(s) } else { h.known_cards(s) };
                            while c.len() < h.cards(s).len() {
                                c.insert(pool.pop().unwrap());
                            }
                            hands.push(c);
                        }
                        let world = built.with_hidden(&hands, &pool, 3);
                        assert_eq!(world.view_of(seat), v);
                        assert_eq!((world.to_act(), world.phase()), (h.to_act(), h.phase()));
                        assert_eq!(world.seen_by(seat), h.seen_by(seat), "seat {seat}");
                        if seat == actor {
                            assert_eq!(world.legal_actions(), h.legal_actions(), "seed {seed}, seat {seat}");
                            assert_eq!(world.legal(), h.legal());
                            compared += 1;
                            // The rebuilt hand plays on to its end.
                            let mut w = world.clone();
                            while let Some(s) = w.to_act() {
                                let legal = w.legal_actions();
                                w.apply(s, &legal[legal.len() - 1]).unwrap();
                            }
                        }
                    }
                    let legal = h.legal_actions();
                    let a = legal[next(legal.len())].clone();
                    h.apply(actor, &a).unwrap();
                }
            }
        }
        assert!(compared > 1000, "{compared}");
        // Views that do not add up.
        let h = Gin7Hand::deal(&Gin7Rules::default(), 1, 0, 0).unwrap();
        let v = h.view_of(2);
        let bad = |f: &dyn Fn(&mut Gin7View)| {
            let mut w = v.clone();
            f(&mut w);
            Gin7Hand::from_view(&w, 0).unwrap_err().to_string()
        };
        assert!(bad(&|w| w.seat = 9).contains("seat: seat 9"));
        assert!(bad(&|w| w.stock_len += 1).contains("not 52"));
        assert!(bad(&|w| w.pile.push(w.cards.first().unwrap())).contains("placed twice"));
        assert!(bad(&|w| w.hand_lens[1] = 8).contains("seat 1 holds 8 cards"));
        assert!(bad(&|w| w.phase = Gin7Phase::Over).contains("over"));
        assert!(bad(&|w| w.taken = w.cards.first()).contains("taken from the pile"));
    }

    #[test]
    fn apply_inline_equals_the_checked_path() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |n: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n as u64) as usize
        };
        for players in 3..=6u8 {
            for reshuffles in [0, 12] {
                let r = Gin7Rules { reshuffles, ..Gin7Rules::for_players(players).unwrap() };
                for seed in 0..150u64 {
                    let mut h = Gin7Hand::deal(&r, seed, seed % 4, (seed % players as u64) as u8).unwrap();
                    while let Some(seat) = h.to_act() {
                        // Refused moves: the wrong seat, a card not held, the wrong phase.
                        let other = (seat + 1) % players;
                        let absent = (!h.cards(seat)).first().unwrap();
                        for (s, a) in [
                            (other, Action::DrawStock),
                            (seat, Action::Discard { card: absent }),
                            (seat, Action::Discard { card: h.cards(seat).first().unwrap() }),
                            (seat, Action::DrawPile),
                        ] {
                            let (mut fast, mut listed) = (h.clone(), h.clone());
                            assert_eq!(fast.apply(s, &a), listed.apply_listed(s, &a));
                            assert_eq!(fast, listed);
                        }
                        let legal = h.legal_actions();
                        let a = legal[next(legal.len())].clone();
                        let mut listed = h.clone();
                        let want = listed.apply_listed(seat, &a);
                        assert_eq!(h.apply(seat, &a), want, "seed {seed}: {a:?}");
                        assert_eq!(h, listed);
                    }
                }
            }
        }
    }

    /// The pile is turned as basic rummy turns it: its cards but the top, from the bottom up,
    /// shuffled by [`shuffle_turned_pile`] with the game's seed, the hand's number and the
    /// turn's number, go under the cards left in the stock.
    #[test]
    fn the_pile_is_shuffled_as_rummys() {
        let r = Gin7Rules { reshuffles: 2, ..Gin7Rules::for_players(6).unwrap() };
        let mut h = Gin7Hand::deal(&r, 9, 3, 1).unwrap();
        let mut turns = 0;
        while let Some(s) = h.to_act() {
            let Gin7Event::Drew { card, .. } = h.apply(s, &Action::DrawStock).unwrap() else { panic!() };
            let before = h.clone();
            if let Gin7Event::PileTurned { turn, .. } = h.apply(s, &Action::Discard { card }).unwrap() {
                turns += 1;
                assert_eq!(turn, turns);
                let mut want = before.stock().to_vec();
                let mut turned = before.pile().to_vec();
                shuffle_turned_pile(&mut turned, 9, 3, turn);
                want.extend(turned);
                assert_eq!(h.stock(), want);
                assert_eq!(h.pile(), &[card]);
            }
        }
        assert_eq!(turns, 2);
    }

    /// `with_hidden` with the hand's own hidden cards and seed gives the hand back; with the
    /// hidden cards dealt again it keeps what is public and plays on.
    #[test]
    fn with_hidden_places_the_hidden_cards_again() {
        let rules = Gin7Rules::for_players(4).unwrap();
        let mut h = Gin7Hand::deal(&rules, 9, 0, 0).unwrap();
        for _ in 0..9 {
            let seat = h.to_act().unwrap();
            let a = h.legal_actions()[0].clone();
            h.apply(seat, &a).unwrap();
        }
        let hands: Vec<CardSet> = (0..4).map(|s| h.cards(s)).collect();
        assert_eq!(h.with_hidden(&hands, h.stock(), h.seed), h);
        // Seats 2 and 3 swap their unknown cards.
        let (a, b) = (hands[2] - h.known_cards(2), hands[3] - h.known_cards(3));
        let mut swapped = hands.clone();
        swapped[2] = h.known_cards(2) | b;
        swapped[3] = h.known_cards(3) | a;
        let mut stock = h.stock().to_vec();
        stock.reverse();
        let mut g = h.with_hidden(&swapped, &stock, 5);
        assert_eq!((g.cards(2), g.cards(3), g.stock()), (swapped[2], swapped[3], &stock[..]));
        assert_eq!((g.pile(), g.to_act(), g.phase()), (h.pile(), h.to_act(), h.phase()));
        while let Some(seat) = g.to_act() {
            let a = g.legal_actions()[0].clone();
            g.apply(seat, &a).unwrap();
        }
    }
}
