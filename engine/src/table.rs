//! [`Table`]: one interface over every game kind, so the server, the clients and the bots
//! play any [`Format`] without knowing its rules: who may act, the legal moves, one
//! transition, a view per seat and for spectators, each hand's report and the result.
//!
//! Seats are indices `0..players`. A seat's view holds its own cards and the public table
//! only: never another seat's hand (in team play, not its partner's), never the stock.
//!
//! ```
//! use engine::{Format, Table, TableSetup};
//! let mut t = Table::new(TableSetup::new(Format::preset("three-player").unwrap(), 42)).unwrap();
//! let seat = t.to_act()[0];
//! let m = t.legal(seat)[0].clone();
//! t.apply(seat, &m).unwrap();
//! assert!(t.view(seat).cards().is_some());
//! ```

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::card::Card;
use crate::cardset::CardSet;
use crate::deal::Deck;
use crate::format::{Format, Kind};
use crate::game::{Game, GameEnd, GameError, GameSetup};
use crate::gin7::{Gin7EndKind, Gin7Error, Gin7Game, Gin7HandSummary, Gin7Setup};
use crate::hand::{Action, EndKind, Hand, HandResult, ParseActionError};
use crate::meld::Meld;
use crate::pairs::{PairError, PairHand, PairSetup, TeamGame, ThreePlayerGame, team_of};
use crate::rummy::{RummyAction, RummyError, RummyGame, RummyHandResult};
use crate::seat::Seat;

/// A move in any game kind. Each kind accepts its own: gin kinds `Pass`…`BigGin`, rummy
/// `DrawStock`, `DrawPile`, `Meld`, `LayOff`, `Discard`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Move {
    /// Decline the upcard (gin, first turn).
    Pass,
    /// Draw the stock's top card.
    DrawStock,
    /// Take the pile's top card.
    DrawPile,
    /// Discard a card face up.
    Discard {
        /// The card.
        card: Card,
    },
    /// Gin: knock, discarding face down.
    Knock {
        /// The face-down discard.
        discard: Card,
        /// The melds; `None`: the engine chooses.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        melds: Option<Vec<Meld>>,
    },
    /// Gin: all 11 cards in melds.
    BigGin {
        /// The melds; `None`: the engine chooses.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        melds: Option<Vec<Meld>>,
    },
    /// Rummy: lay a meld on the table.
    Meld {
        /// Its cards.
        cards: CardSet,
    },
    /// Rummy: lay one card off onto the table's meld `meld` (its index on the table).
    LayOff {
        /// The card.
        card: Card,
        /// The meld's index.
        meld: usize,
    },
}

impl From<Action> for Move {
    fn from(a: Action) -> Move {
        match a {
            Action::Pass => Move::Pass,
            Action::DrawStock => Move::DrawStock,
            Action::DrawPile => Move::DrawPile,
            Action::Discard { card } => Move::Discard { card },
            Action::Knock { discard, melds } => Move::Knock { discard, melds },
            Action::BigGin { melds } => Move::BigGin { melds },
        }
    }
}

impl From<RummyAction> for Move {
    fn from(a: RummyAction) -> Move {
        match a {
            RummyAction::DrawStock => Move::DrawStock,
            RummyAction::DrawPile => Move::DrawPile,
            RummyAction::Meld(cards) => Move::Meld { cards },
            RummyAction::LayOff { card, meld } => Move::LayOff { card, meld },
            RummyAction::Discard(card) => Move::Discard { card },
        }
    }
}

impl Move {
    /// The gin action, or why this is not one.
    #[inline]
    pub fn to_gin(&self) -> Result<Action, TableError> {
        Ok(match self {
            Move::Pass => Action::Pass,
            Move::DrawStock => Action::DrawStock,
            Move::DrawPile => Action::DrawPile,
            Move::Discard { card } => Action::Discard { card: *card },
            Move::Knock { discard, melds } => Action::Knock { discard: *discard, melds: melds.clone() },
            Move::BigGin { melds } => Action::BigGin { melds: melds.clone() },
            Move::Meld { .. } | Move::LayOff { .. } => {
                return Err(TableError::NotInThisGame(
                    "melds and lay-offs during play are rummy moves, not gin's",
                ));
            }
        })
    }

    /// The rummy action, or why this is not one.
    pub fn to_rummy(&self) -> Result<RummyAction, TableError> {
        Ok(match self {
            Move::DrawStock => RummyAction::DrawStock,
            Move::DrawPile => RummyAction::DrawPile,
            Move::Discard { card } => RummyAction::Discard(*card),
            Move::Meld { cards } => RummyAction::Meld(*cards),
            Move::LayOff { card, meld } => RummyAction::LayOff { card: *card, meld: *meld },
            Move::Pass | Move::Knock { .. } | Move::BigGin { .. } => {
                return Err(TableError::NotInThisGame(
                    "rummy has no upcard offer, knock or big gin: go out by melding",
                ));
            }
        })
    }
}

impl fmt::Display for Move {
    /// Gin's forms (`stock`, `discard 7S`, `knock 7S [..]`, …), `meld 7C 7D 7H`, `layoff 7S 2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Meld { cards } => write!(f, "meld {cards}"),
            Move::LayOff { card, meld } => write!(f, "layoff {card} {meld}"),
            m => m.to_gin().expect("a gin move").fmt(f),
        }
    }
}

impl FromStr for Move {
    type Err = ParseActionError;
    fn from_str(s: &str) -> Result<Move, ParseActionError> {
        let s = s.trim();
        let (word, rest) = s.split_once(char::is_whitespace).unwrap_or((s, ""));
        match word.to_ascii_lowercase().as_str() {
            "meld" => Ok(Move::Meld { cards: rest.parse().map_err(|e| ParseActionError(format!("{e}")))? }),
            "layoff" | "lay-off" => {
                let (c, m) = rest.trim().split_once(char::is_whitespace).ok_or_else(|| {
                    ParseActionError("expected `layoff <card> <meld number>`, e.g. `layoff 7S 2`".into())
                })?;
                Ok(Move::LayOff {
                    card: c.parse().map_err(|e| ParseActionError(format!("{e}")))?,
                    meld: m.trim().parse().map_err(|_| ParseActionError(format!("bad meld number {m:?}")))?,
                })
            }
            _ => s.parse::<Action>().map(Move::from),
        }
    }
}

/// Why a table could not start or a move was refused (the table is then unchanged).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TableError {
    /// The format or the setup is invalid.
    Setup(String),
    /// The game is over.
    GameOver,
    /// No such seat.
    NoSuchSeat(u8),
    /// This seat may not act now.
    NotYourTurn {
        /// The seats that may.
        to_act: Vec<u8>,
        /// Why not, in words.
        why: String,
    },
    /// The move is not part of this game kind.
    NotInThisGame(&'static str),
    /// The rules refused the move.
    Illegal(String),
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableError::Setup(m) => f.write_str(m),
            TableError::GameOver => f.write_str("the game is over"),
            TableError::NoSuchSeat(s) => write!(f, "seat {s} does not exist at this table"),
            TableError::NotYourTurn { why, .. } => f.write_str(why),
            TableError::NotInThisGame(m) => f.write_str(m),
            TableError::Illegal(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for TableError {}

/// How a table is set up: with its moves, everything to replay it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableSetup {
    /// The format.
    pub format: Format,
    /// The seed: hand `n` is dealt from `Deck::shuffled(seed, n)` unless `decks` gives it.
    pub seed: u64,
    /// Explicit decks for the first hands, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decks: Vec<Deck>,
    /// The first dealer (a team, 0 or 1, in team play); `None`: from the seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_dealer: Option<u8>,
}

impl TableSetup {
    /// A seeded table of `format`.
    pub fn new(format: Format, seed: u64) -> TableSetup {
        TableSetup { format, seed, decks: Vec::new(), first_dealer: None }
    }
}

/// What a move did, in seats of the table. A draw from the stock names its card for the
/// seat that drew it only: [`TableEvent::seen_by`] gives each viewer its copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum TableEvent {
    /// Gin: the seat passed the upcard.
    Passed {
        /// Who.
        seat: u8,
    },
    /// The seat drew (`card`: `None` in the copy of a viewer who may not see it).
    Drew {
        /// Who.
        seat: u8,
        /// From the stock (else the pile's top).
        from_stock: bool,
        /// The card.
        card: Option<Card>,
    },
    /// The seat discarded face up.
    Discarded {
        /// Who.
        seat: u8,
        /// The card.
        card: Card,
    },
    /// Gin-7: the seat discarded `card`, the stock was low, and the pile under that card was
    /// shuffled into the stock (the pile's `turn`-th turn in this hand, from 1).
    PileTurned {
        /// Who.
        seat: u8,
        /// The discard, alone on the pile.
        card: Card,
        /// Which turn.
        turn: u32,
    },
    /// Gin kinds: the discard left the stock too low: the hand is dead.
    DeadHand {
        /// Who.
        seat: u8,
        /// The last discard.
        card: Card,
    },
    /// Gin kinds: the seat knocked, went gin or big gin (see [`Table::hands`]).
    Knocked {
        /// Who.
        seat: u8,
    },
    /// The seat discarded `card`, ending the hand's last turn under the format's
    /// `max_turns_per_hand`: the hand is dead (rummy: void), [`HandEnd::TurnLimit`].
    TurnLimit {
        /// Who.
        seat: u8,
        /// The last discard.
        card: Card,
    },
    /// Rummy: the seat laid a meld on the table.
    Melded {
        /// Who.
        seat: u8,
        /// The meld.
        cards: CardSet,
    },
    /// Rummy: the seat laid a card off onto the table's meld `meld`.
    LaidOff {
        /// Who.
        seat: u8,
        /// The card.
        card: Card,
        /// The meld's index on the table.
        meld: usize,
    },
}

impl TableEvent {
    /// Who moved.
    pub fn seat(&self) -> u8 {
        match *self {
            TableEvent::Passed { seat }
            | TableEvent::Drew { seat, .. }
            | TableEvent::Discarded { seat, .. }
            | TableEvent::PileTurned { seat, .. }
            | TableEvent::DeadHand { seat, .. }
            | TableEvent::Knocked { seat }
            | TableEvent::TurnLimit { seat, .. }
            | TableEvent::Melded { seat, .. }
            | TableEvent::LaidOff { seat, .. } => seat,
        }
    }

    /// The copy `viewer` may see (`None`: a spectator): a stock draw's card only for the
    /// seat that drew it.
    pub fn seen_by(&self, viewer: Option<u8>) -> TableEvent {
        match *self {
            TableEvent::Drew { seat, from_stock: true, .. } if viewer != Some(seat) => {
                TableEvent::Drew { seat, from_stock: true, card: None }
            }
            e => e,
        }
    }

    fn from_gin(e: crate::hand::Event, players: [u8; 2]) -> TableEvent {
        use crate::hand::Event as E;
        let p = |s: Seat| players[s.index()];
        match e {
            E::Passed { seat } => TableEvent::Passed { seat: p(seat) },
            E::Drew { seat, card, from_stock } => {
                TableEvent::Drew { seat: p(seat), from_stock, card: Some(card) }
            }
            E::Discarded { seat, card } => TableEvent::Discarded { seat: p(seat), card },
            E::DeadHand { seat, card } => TableEvent::DeadHand { seat: p(seat), card },
            E::Knocked { seat } => TableEvent::Knocked { seat: p(seat) },
            E::TurnLimit { seat, card } => TableEvent::TurnLimit { seat: p(seat), card },
        }
    }
}

/// What an accepted move did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableStep {
    /// The event, as the seat that moved sees it (see [`TableEvent::seen_by`] for others).
    pub event: TableEvent,
    /// Gin kinds (two-player hands): the hand's event, in the hand's seats (see
    /// [`Table::gin_seat`]), for a seat's memory of its hand.
    pub gin_event: Option<crate::hand::Event>,
    /// It ended a hand (see [`Table::hands`]).
    pub hand_over: bool,
    /// It ended the game.
    pub game_over: bool,
}

/// A game of any kind in play.
#[derive(Clone, Debug)]
#[allow(
    clippy::large_enum_variant,
    reason = "the two-player game is kept unboxed on purpose, every other kind boxed"
)]
pub enum Table {
    /// Two-player gin.
    Gin(Game),
    /// Three players, rotating (boxed, as the other large kinds: the two-player `Game`
    /// stays the largest arm, so a two-player table is no larger than its game).
    ThreePlayer(Box<ThreePlayerGame>),
    /// Four in teams (boxed: two hands in play).
    Teams(Box<TeamGame>),
    /// Gin for 3 to 6 at one table.
    Gin7(Box<Gin7Game>),
    /// Basic rummy (boxed: its hand keeps each seat's known and declined cards).
    Rummy(Box<RummyGame>),
}

impl TableStep {
    /// The step of a two-player gin hand whose seats hold `players`.
    fn gin(event: crate::hand::Event, players: [u8; 2], hand_over: bool, game_over: bool) -> TableStep {
        TableStep {
            event: TableEvent::from_gin(event, players),
            gin_event: Some(event),
            hand_over,
            game_over,
        }
    }
}

/// The table setup of a three-player or team game.
fn pair_setup(s: &PairSetup, format: fn(crate::rules::RuleSet) -> Format) -> TableSetup {
    TableSetup {
        format: format(s.rules.clone()),
        seed: s.seed,
        decks: s.decks.clone(),
        first_dealer: s.first_dealer,
    }
}

fn pair_err(e: PairError) -> TableError {
    match e {
        PairError::Rules(e) => TableError::Setup(e.to_string()),
        PairError::Setup(m) => TableError::Setup(m),
        PairError::GameOver => TableError::GameOver,
        PairError::NoSuchPlayer(p) => TableError::NoSuchSeat(p),
        e @ (PairError::SitsOut(_) | PairError::Waiting(_) | PairError::NotYourTurn { .. }) => {
            TableError::NotYourTurn { to_act: Vec::new(), why: e.to_string() }
        }
        PairError::Rule(e) => TableError::Illegal(e.to_string()),
    }
}

impl Table {
    /// Starts a table: checks the format and the setup, deals the first hand.
    pub fn new(setup: TableSetup) -> Result<Table, TableError> {
        setup.format.check().map_err(|e| TableError::Setup(e.to_string()))?;
        let TableSetup { format, seed, decks, first_dealer } = setup;
        Ok(match format {
            Format::Gin(rules) => {
                let first_dealer =
                    match first_dealer {
                        None => None,
                        Some(d) => Some(Seat::new(d).ok_or_else(|| {
                            TableError::Setup(format!("first_dealer {d}: seats are 0 and 1"))
                        })?),
                    };
                Table::Gin(
                    Game::new(GameSetup { rules, seed, decks, first_dealer })
                        .map_err(|e| TableError::Setup(e.to_string()))?,
                )
            }
            Format::ThreePlayer(rules) => Table::ThreePlayer(Box::new(
                ThreePlayerGame::new(PairSetup { rules, seed, decks, first_dealer }).map_err(pair_err)?,
            )),
            Format::Teams(rules) => Table::Teams(Box::new(
                TeamGame::new(PairSetup { rules, seed, decks, first_dealer }).map_err(pair_err)?,
            )),
            Format::Gin7(rules) => Table::Gin7(Box::new(
                Gin7Game::new(Gin7Setup { rules, seed, decks, first_dealer })
                    .map_err(|e| TableError::Setup(e.to_string()))?,
            )),
            Format::Rummy(rules) => Table::Rummy(Box::new(
                RummyGame::with_decks(rules, seed, decks, first_dealer)
                    .map_err(|e| TableError::Setup(e.to_string()))?,
            )),
        })
    }

    /// The setup this table started from (its format, seed, explicit decks, first dealer).
    pub fn setup(&self) -> TableSetup {
        match self {
            Table::Gin(g) => {
                let s = g.setup();
                TableSetup {
                    format: Format::Gin(s.rules.clone()),
                    seed: s.seed,
                    decks: s.decks.clone(),
                    first_dealer: s.first_dealer.map(u8::from),
                }
            }
            Table::ThreePlayer(g) => pair_setup(g.setup(), Format::ThreePlayer),
            Table::Teams(g) => pair_setup(g.setup(), Format::Teams),
            Table::Gin7(g) => {
                let s = g.setup();
                TableSetup {
                    format: Format::Gin7(s.rules),
                    seed: s.seed,
                    decks: s.decks.clone(),
                    first_dealer: s.first_dealer,
                }
            }
            Table::Rummy(g) => TableSetup {
                format: Format::Rummy(g.rules().clone()),
                seed: g.seed(),
                decks: g.decks().to_vec(),
                first_dealer: g.first_dealer(),
            },
        }
    }

    /// The result with every kind's own detail (two-player gin: stages and bonuses; three
    /// players and teams: the bonuses per person or team; gin-7: points and penalties;
    /// rummy: the scores), as JSON; `None` until the game is over.
    pub fn result_detail(&self) -> Option<serde_json::Value> {
        if !self.is_over() {
            return None;
        }
        let v = match self {
            Table::Gin(g) => serde_json::to_value(g.result()),
            Table::ThreePlayer(g) => serde_json::to_value(g.result()),
            Table::Teams(g) => serde_json::to_value(g.result()),
            Table::Gin7(g) => {
                Ok(serde_json::json!({"points": g.points(), "penalties": g.penalties(), "net": g.net()}))
            }
            Table::Rummy(g) => Ok(serde_json::json!({"scores": g.scores()})),
        };
        Some(v.expect("results serialize"))
    }

    /// The kind.
    pub fn kind(&self) -> Kind {
        match self {
            Table::Gin(_) => Kind::Gin,
            Table::ThreePlayer(_) => Kind::ThreePlayer,
            Table::Teams(_) => Kind::Teams,
            Table::Gin7(_) => Kind::Gin7,
            Table::Rummy(_) => Kind::Rummy,
        }
    }

    /// The table size.
    pub fn players(&self) -> u8 {
        match self {
            Table::Rummy(g) => g.hand().rules().players,
            Table::Gin7(g) => g.rules().players,
            t => *t.kind().players().start(),
        }
    }

    /// True once the game is over.
    pub fn is_over(&self) -> bool {
        match self {
            Table::Gin(g) => g.is_over(),
            Table::ThreePlayer(g) => g.is_over(),
            Table::Teams(g) => g.is_over(),
            Table::Gin7(g) => g.is_over(),
            Table::Rummy(g) => g.is_over(),
        }
    }

    /// The seats that may act now (two at once in team play, one per table).
    pub fn to_act(&self) -> Vec<u8> {
        match self {
            Table::Gin(g) => g.to_act().map(u8::from).into_iter().collect(),
            Table::ThreePlayer(g) => g.to_act().into_iter().collect(),
            Table::Teams(g) => g.to_act(),
            Table::Gin7(g) => g.to_act().into_iter().collect(),
            Table::Rummy(g) => if g.is_over() { None } else { g.hand().to_act() }.into_iter().collect(),
        }
    }

    /// The gin hand `seat` plays in now, with its hand seat there.
    fn gin_hand_of(&self, seat: u8) -> Option<(&Hand, Seat)> {
        match self {
            Table::Gin(g) => Some((g.hand(), Seat::new(seat)?)),
            Table::ThreePlayer(g) => Some((g.hand(), g.seat_of(seat)?)),
            Table::Teams(g) => g.place_of(seat).map(|(t, s)| (&g.tables()[t as usize], s)),
            Table::Gin7(_) | Table::Rummy(_) => None,
        }
    }

    /// Gin kinds: the two-player hand `seat` plays in now, its seat in that hand, the hand's
    /// number in the game, and the persons at the hand's seats. `None` for the other kinds
    /// and for a seat that sits the hand out. Only the seat's own cards may be read from it
    /// by a player: the hand also holds the other seat's and the stock.
    pub fn gin_seat(&self, seat: u8) -> Option<(&Hand, Seat, u32, [u8; 2])> {
        let (h, s) = self.gin_hand_of(seat)?;
        let (number, players) = match self {
            Table::Gin(g) => (g.hand_number(), [0, 1]),
            Table::ThreePlayer(g) => (g.hand_number(), g.players()),
            Table::Teams(g) => {
                let (t, _) = g.place_of(seat)?;
                (2 * g.round() + t as u32, g.players(t))
            }
            _ => return None,
        };
        Some((h, s, number, players))
    }

    /// The format's two-player rules (gin kinds).
    pub fn gin_rules(&self) -> Option<&crate::rules::RuleSet> {
        match self {
            Table::Gin(g) => Some(g.rules()),
            Table::ThreePlayer(g) => Some(&g.setup().rules),
            Table::Teams(g) => Some(&g.setup().rules),
            _ => None,
        }
    }

    /// The legal moves of `seat` (empty when it may not act).
    pub fn legal(&self, seat: u8) -> Vec<Move> {
        if self.is_over() {
            return Vec::new();
        }
        if let Table::Rummy(g) = self {
            return if g.hand().to_act() == Some(seat) {
                g.hand().legal().into_iter().map(Move::from).collect()
            } else {
                Vec::new()
            };
        }
        if let Table::Gin7(g) = self {
            return if g.to_act() == Some(seat) {
                g.hand().legal_actions().into_iter().map(Move::from).collect()
            } else {
                Vec::new()
            };
        }
        match self.gin_hand_of(seat) {
            Some((h, s)) if h.phase().to_act() == Some(s) => {
                h.legal().to_vec().into_iter().map(Move::from).collect()
            }
            _ => Vec::new(),
        }
    }

    /// Plays `m` for `seat`. On `Err` nothing changed.
    pub fn apply(&mut self, seat: u8, m: &Move) -> Result<TableStep, TableError> {
        if self.is_over() {
            return Err(TableError::GameOver);
        }
        if seat >= self.players() {
            return Err(TableError::NoSuchSeat(seat));
        }
        match self.apply_unchecked_turn(seat, m) {
            // A refusal leaves the table as it was: who may act is read then, not per move.
            Err(TableError::NotYourTurn { why, .. }) => {
                Err(TableError::NotYourTurn { to_act: self.to_act(), why })
            }
            r => r,
        }
    }

    /// The seat that may act first (the lowest when several may), without building a list.
    pub fn first_to_act(&self) -> Option<u8> {
        match self {
            Table::Teams(_) => self.to_act().first().copied(),
            Table::Gin(g) => g.to_act().map(u8::from),
            Table::ThreePlayer(g) => g.to_act(),
            Table::Gin7(g) => g.to_act(),
            Table::Rummy(g) => g.hand().to_act().filter(|_| !g.is_over()),
        }
    }

    /// [`Table::apply`] past its checks of the game and the seat; a refusal's `to_act` is
    /// left empty for `apply` to fill.
    fn apply_unchecked_turn(&mut self, seat: u8, m: &Move) -> Result<TableStep, TableError> {
        match self {
            Table::Gin(g) => {
                let a = m.to_gin()?;
                let s = Seat::new(seat).expect("checked above");
                match g.apply(s, &a) {
                    Ok(step) => Ok(TableStep::gin(step.event, [0, 1], step.hand_over, step.game_over)),
                    Err(GameError::Rule(crate::hand::RuleError::NotYourTurn { to_act: t })) => {
                        Err(TableError::NotYourTurn {
                            to_act: vec![],
                            why: format!("not your turn: seat {t} is to act"),
                        })
                    }
                    Err(e) => Err(TableError::Illegal(e.to_string())),
                }
            }
            Table::ThreePlayer(g) => {
                let players = g.players();
                let step = g.apply(seat, &m.to_gin()?).map_err(pair_err)?;
                Ok(TableStep::gin(step.event, players, step.hand_over, step.game_over))
            }
            Table::Teams(g) => {
                let players = g.place_of(seat).map(|(t, _)| g.players(t)).expect("every seat plays");
                let step = g.apply(seat, &m.to_gin()?).map_err(pair_err)?;
                Ok(TableStep::gin(step.event, players, step.hand_over, step.game_over))
            }
            Table::Gin7(g) => {
                let a = m.to_gin()?;
                // A draw or a discard that goes on (almost every move) inline, its event in
                // registers; every other move through the game's apply.
                let step = match g.apply_common_owned(seat, a) {
                    Ok(event) => crate::gin7::Gin7Step { event, hand_over: false, game_over: false },
                    Err(a) => g.apply(seat, &a).map_err(|e| match e {
                        Gin7Error::NotYourTurn { .. } => {
                            TableError::NotYourTurn { to_act: vec![], why: e.to_string() }
                        }
                        e => TableError::Illegal(e.to_string()),
                    })?,
                };
                use crate::gin7::Gin7Event as E;
                let event = match step.event {
                    E::Drew { seat, card, from_stock } => {
                        TableEvent::Drew { seat, from_stock, card: Some(card) }
                    }
                    E::Discarded { seat, card } => TableEvent::Discarded { seat, card },
                    E::PileTurned { seat, card, turn } => TableEvent::PileTurned { seat, card, turn },
                    E::DeadHand { seat, card } => TableEvent::DeadHand { seat, card },
                    E::Knocked { seat } => TableEvent::Knocked { seat },
                    E::TurnLimit { seat, card } => TableEvent::TurnLimit { seat, card },
                };
                Ok(TableStep { event, gin_event: None, hand_over: step.hand_over, game_over: step.game_over })
            }
            Table::Rummy(g) => {
                let a = m.to_rummy()?;
                let before = g.results().len();
                let held = g.hand().hand(seat);
                let top = g.hand().pile_top();
                if let Err(e) = g.apply(seat, a) {
                    return Err(match e {
                        // Nothing changed: the seat to act is the one before the move.
                        RummyError::NotYourTurn { .. } => TableError::NotYourTurn {
                            to_act: if g.is_over() { None } else { g.hand().to_act() }.into_iter().collect(),
                            why: e.to_string(),
                        },
                        e => TableError::Illegal(e.to_string()),
                    });
                }
                let event = match a {
                    // The card drawn is the one now in the hand.
                    RummyAction::DrawStock => TableEvent::Drew {
                        seat,
                        from_stock: true,
                        card: (g.hand().hand(seat) - held).first(),
                    },
                    RummyAction::DrawPile => TableEvent::Drew { seat, from_stock: false, card: top },
                    RummyAction::Meld(cards) => TableEvent::Melded { seat, cards },
                    RummyAction::LayOff { card, meld } => TableEvent::LaidOff { seat, card, meld },
                    RummyAction::Discard(card) => match g.results().get(before) {
                        Some(r) if r.turn_limit => TableEvent::TurnLimit { seat, card },
                        _ => TableEvent::Discarded { seat, card },
                    },
                };
                Ok(TableStep {
                    event,
                    gin_event: None,
                    hand_over: g.results().len() > before,
                    game_over: g.is_over(),
                })
            }
        }
    }

    /// What `seat` may see.
    pub fn view(&self, seat: u8) -> TableView {
        TableView::of(self, Some(seat))
    }

    /// What a spectator may see.
    pub fn spectator_view(&self) -> TableView {
        TableView::of(self, None)
    }

    /// Each finished hand, in order, with the running totals.
    pub fn hands(&self) -> Vec<HandReport> {
        match self {
            Table::Gin(g) => g
                .hands()
                .iter()
                .map(|h| {
                    let mut r = HandReport::gin(h.number, h.number, 0, [0, 1], u8::from(h.dealer), &h.result);
                    r.totals = h.scores.0.iter().map(|&x| x as i64).collect();
                    r
                })
                .collect(),
            Table::ThreePlayer(g) => {
                let mut totals = [0i64; 3];
                g.hands()
                    .iter()
                    .map(|h| {
                        let mut r = HandReport::pair(h);
                        if let Some(w) = h.winner() {
                            totals[w as usize] += h.result.points as i64;
                        }
                        r.totals = totals.to_vec();
                        r
                    })
                    .collect()
            }
            Table::Teams(g) => g
                .hands()
                .iter()
                .enumerate()
                .map(|(i, h)| {
                    // Rounds end in order, each with its second hand: after hand `i`,
                    // `(i + 1) / 2` rounds are scored.
                    let mut r = HandReport::pair(h);
                    let done = i.div_ceil(2);
                    r.totals = match done.checked_sub(1).and_then(|k| g.rounds().get(k)) {
                        Some(rd) => rd.scores.map(|x| x as i64).to_vec(),
                        None => vec![0, 0],
                    };
                    if i % 2 == 1 {
                        r.team_points = g.rounds().get(i / 2).map(|rd| rd.points);
                    }
                    r
                })
                .collect(),
            Table::Gin7(g) => g.hands().iter().map(HandReport::gin7).collect(),
            Table::Rummy(g) => {
                let n = g.hand().rules().players as usize;
                let mut totals = vec![0i64; n];
                g.results()
                    .iter()
                    .zip(g.hand_tables())
                    .enumerate()
                    .map(|(i, (r, (dealer, table)))| {
                        if let Some(w) = r.winner {
                            totals[w as usize] += r.points as i64;
                        }
                        let mut rep = HandReport::rummy(i as u32, *dealer, r, table, g.hand().rules());
                        rep.totals = totals.clone();
                        rep
                    })
                    .collect()
            }
        }
    }

    /// The result, once over.
    pub fn result(&self) -> Option<TableResult> {
        if !self.is_over() {
            return None;
        }
        Some(match self {
            Table::Gin(g) => {
                let r = g.result().expect("over");
                TableResult::from_totals(r.totals.0.iter().map(|&x| x as i64).collect(), None, r.end)
            }
            Table::ThreePlayer(g) => {
                let r = g.result().expect("over");
                TableResult::from_totals(r.totals.iter().map(|&x| x as i64).collect(), None, r.end)
            }
            Table::Teams(g) => {
                let r = g.result().expect("over");
                let team: Vec<i64> = r.totals.iter().map(|&x| x as i64).collect();
                let per_seat = (0..4).map(|p| team[team_of(p) as usize]).collect();
                TableResult::from_totals(per_seat, Some(team), r.end)
            }
            Table::Gin7(g) => TableResult::from_totals(g.net(), None, g.end().expect("over")),
            Table::Rummy(g) => TableResult::from_totals(
                g.scores().iter().map(|&x| x as i64).collect(),
                None,
                g.end().expect("over"),
            ),
        })
    }

    /// Every accepted move, by seat, in order.
    pub fn moves(&self) -> Vec<(u8, Move)> {
        match self {
            Table::Gin(g) => g.actions().iter().map(|(s, a)| (u8::from(*s), Move::from(a.clone()))).collect(),
            Table::ThreePlayer(g) => g.actions().iter().map(|(s, a)| (*s, Move::from(a.clone()))).collect(),
            Table::Teams(g) => g.actions().iter().map(|(s, a)| (*s, Move::from(a.clone()))).collect(),
            Table::Gin7(g) => g.actions().iter().map(|(s, a)| (*s, Move::from(a.clone()))).collect(),
            Table::Rummy(g) => g.actions().iter().map(|(s, a)| (*s, Move::from(*a))).collect(),
        }
    }
}

/// How a hand ended, in any kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HandEnd {
    /// Nobody scores.
    Dead,
    /// Gin: a knock won by the knocker.
    Knock,
    /// Gin: a knock won by the defender.
    Undercut,
    /// Gin: a knock with no deadwood.
    Gin,
    /// Gin: 11 cards melded.
    BigGin,
    /// Gin for 3 to 6: a knock that a defender beat or tied.
    Defence,
    /// Rummy: a player went out.
    WentOut,
    /// Rummy: went out all at once (doubled).
    Rummy,
    /// The hand reached the format's `max_turns_per_hand` turns: dead (rummy: void), no
    /// score.
    TurnLimit,
}

impl HandEnd {
    /// True for a hand nobody scores: dead, or at the turn limit.
    pub fn is_dead(self) -> bool {
        matches!(self, HandEnd::Dead | HandEnd::TurnLimit)
    }
}

/// What one seat laid down at a hand's end.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatOutcome {
    /// The seat.
    pub seat: u8,
    /// Its melds (gin: at the showdown; rummy: laid on the table during the hand).
    pub melds: Vec<CardSet>,
    /// Cards it laid off (gin: onto the knocker's melds; rummy: onto any meld).
    pub layoffs: Vec<Card>,
    /// Its deadwood cards (rummy: the cards left in its hand).
    pub deadwood: CardSet,
    /// Their value.
    pub deadwood_points: u32,
    /// Gin for 3 to 6: the penalty the seat lost in this hand.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub penalty: u32,
}

fn is_zero(x: &u32) -> bool {
    *x == 0
}

/// One finished hand, in full: for `gin replay --json` and every report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandReport {
    /// The hand's number in the game (its deck's index).
    pub number: u32,
    /// The round (team play: two hands per round; else equal to `number`).
    pub round: u32,
    /// The table (team play: 0 or 1).
    pub table: u8,
    /// The seats that played it.
    pub seats: Vec<u8>,
    /// Who dealt it (three players: the seat that sat out).
    pub dealer: u8,
    /// How it ended.
    pub end: HandEnd,
    /// Who knocked or went out.
    pub by: Option<u8>,
    /// Who scored.
    pub winner: Option<u8>,
    /// The points the winner scored.
    pub points: u32,
    /// The knocker's face-down discard.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discard: Option<Card>,
    /// Each seat's melds, lay-offs and deadwood (a dead gin hand: none laid down).
    pub outcomes: Vec<SeatOutcome>,
    /// Team play: the points each team scored for the round, on its second hand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team_points: Option<[u32; 2]>,
    /// Running totals after the hand: per seat, or per team in team play (stage scores in
    /// a game in stages).
    pub totals: Vec<i64>,
    /// Turns played in the hand (each draw starts one).
    #[serde(default)]
    pub turns: u32,
}

impl HandReport {
    fn gin(number: u32, round: u32, table: u8, players: [u8; 2], dealer: u8, r: &HandResult) -> HandReport {
        let end = match r.end {
            EndKind::Dead => HandEnd::Dead,
            EndKind::Knock => HandEnd::Knock,
            EndKind::Undercut => HandEnd::Undercut,
            EndKind::Gin => HandEnd::Gin,
            EndKind::BigGin => HandEnd::BigGin,
            EndKind::TurnLimit => HandEnd::TurnLimit,
        };
        let mut outcomes = Vec::new();
        let mut by = None;
        let mut discard = None;
        if let Some(sd) = &r.showdown {
            by = Some(players[sd.knocker.index()]);
            discard = sd.discard;
            let k = &sd.knocker_arrangement;
            let d = &sd.defender_arrangement;
            outcomes.push(SeatOutcome {
                seat: players[sd.knocker.index()],
                melds: k.melds().iter().map(|m| m.cards()).collect(),
                layoffs: Vec::new(),
                deadwood: k.deadwood_cards(),
                deadwood_points: sd.knocker_deadwood,
                penalty: 0,
            });
            outcomes.push(SeatOutcome {
                seat: players[sd.knocker.other().index()],
                melds: d.melds().iter().map(|m| m.cards()).collect(),
                layoffs: sd.layoffs.iter().map(|l| l.card).collect(),
                deadwood: d.deadwood_cards(),
                deadwood_points: sd.defender_deadwood,
                penalty: 0,
            });
        }
        HandReport {
            number,
            round,
            table,
            seats: players.to_vec(),
            dealer,
            end,
            by,
            winner: r.winner.map(|w| players[w.index()]),
            points: r.points,
            discard,
            outcomes,
            team_points: None,
            totals: Vec::new(),
            turns: r.turns,
        }
    }

    fn gin7(h: &Gin7HandSummary) -> HandReport {
        let r = &h.result;
        let n = r.seats.len() as u8;
        let outcomes = if matches!(r.end, Gin7EndKind::Dead | Gin7EndKind::TurnLimit) {
            Vec::new()
        } else {
            r.seats
                .iter()
                .enumerate()
                .map(|(s, o)| SeatOutcome {
                    seat: s as u8,
                    melds: o.arrangement.melds().iter().map(|m| m.cards()).collect(),
                    layoffs: o.layoffs.iter().map(|l| l.card).collect(),
                    deadwood: o.arrangement.deadwood_cards(),
                    deadwood_points: o.deadwood,
                    penalty: o.penalty,
                })
                .collect()
        };
        HandReport {
            number: h.number,
            round: h.number,
            table: 0,
            seats: (0..n).collect(),
            dealer: h.dealer,
            end: match r.end {
                Gin7EndKind::Dead => HandEnd::Dead,
                Gin7EndKind::Knock => HandEnd::Knock,
                Gin7EndKind::Defence => HandEnd::Defence,
                Gin7EndKind::Gin => HandEnd::Gin,
                Gin7EndKind::TurnLimit => HandEnd::TurnLimit,
            },
            by: r.knocker,
            winner: r.winner,
            points: r.winner.map_or(0, |w| r.seats[w as usize].points),
            discard: r.discard,
            outcomes,
            team_points: None,
            totals: h.points.iter().zip(&h.penalties).map(|(&p, &q)| p as i64 - q as i64).collect(),
            turns: r.turns,
        }
    }

    fn pair(h: &PairHand) -> HandReport {
        let dealer = h.sitter.unwrap_or(h.players[1]);
        HandReport::gin(h.number, h.round, h.table, h.players, dealer, &h.result)
    }

    fn rummy(
        number: u32,
        dealer: u8,
        r: &RummyHandResult,
        table: &[crate::rummy::TableMeld],
        rules: &crate::rummy::RummyRules,
    ) -> HandReport {
        let n = r.left.len() as u8;
        let points = |c: CardSet| rules.points(c);
        let outcomes = (0..n)
            .map(|s| SeatOutcome {
                seat: s,
                melds: table
                    .iter()
                    .filter(|m| m.by == s)
                    .map(|m| m.layoffs.iter().fold(m.cards, |a, &(_, c)| a - CardSet::from_iter([c])))
                    .collect(),
                layoffs: table
                    .iter()
                    .flat_map(|m| m.layoffs.iter())
                    .filter(|(by, _)| *by == s)
                    .map(|&(_, c)| c)
                    .collect(),
                deadwood: r.left[s as usize],
                deadwood_points: points(r.left[s as usize]),
                penalty: 0,
            })
            .collect();
        HandReport {
            number,
            round: number,
            table: 0,
            seats: (0..n).collect(),
            dealer,
            end: match (r.winner, r.rummy) {
                (None, _) if r.turn_limit => HandEnd::TurnLimit,
                (None, _) => HandEnd::Dead,
                (Some(_), true) => HandEnd::Rummy,
                (Some(_), false) => HandEnd::WentOut,
            },
            by: r.winner,
            winner: r.winner,
            points: r.points,
            discard: None,
            outcomes,
            team_points: None,
            totals: Vec::new(),
            turns: r.turns,
        }
    }
}

/// The end of a game of any kind.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableResult {
    /// Final totals per seat (team play: the seat's team's total).
    pub totals: Vec<i64>,
    /// Team play: the teams' totals (team 0: seats 0 and 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team_totals: Option<Vec<i64>>,
    /// The seats with the best total (several on a tie; both partners in team play).
    pub winners: Vec<u8>,
    /// Each seat's place: 1 for the best, equal totals share a place.
    pub places: Vec<u8>,
    /// How the game ended: its format's own end, or the hand limit.
    #[serde(default, skip_serializing_if = "GameEnd::is_normal")]
    pub end: GameEnd,
}

impl TableResult {
    fn from_totals(totals: Vec<i64>, team_totals: Option<Vec<i64>>, end: GameEnd) -> TableResult {
        let best = totals.iter().copied().max().unwrap_or(0);
        let winners = (0..totals.len() as u8).filter(|&s| totals[s as usize] == best).collect();
        let places = totals.iter().map(|&t| 1 + totals.iter().filter(|&&o| o > t).count() as u8).collect();
        TableResult { totals, team_totals, winners, places, end }
    }
}

/// The cards and the table one viewer may see. Built only by [`Table::view`] and
/// [`Table::spectator_view`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TableView {
    kind: Kind,
    players: u8,
    viewer: Option<u8>,
    cards: Option<CardSet>,
    to_act: Vec<u8>,
    hand_number: u32,
    sitting_out: Option<u8>,
    tables: Vec<TablePart>,
    scores: Vec<i64>,
    team_scores: Option<[u32; 2]>,
    over: bool,
}

/// The public side of one table in play (team play has two).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TablePart {
    /// The seats at it.
    pub seats: Vec<u8>,
    /// Who dealt.
    pub dealer: u8,
    /// Cards in each of those seats' hands.
    pub hand_lens: Vec<u32>,
    /// Cards of each seat's hand that everyone knows (taken from the pile).
    pub known: Vec<CardSet>,
    /// The discard pile, bottom first (rummy: only its top card is shown).
    pub pile: Vec<Card>,
    /// Cards left in the stock.
    pub stock_len: u32,
    /// Rummy: the melds on the table, with who laid each, and lay-offs with who laid them.
    pub melds: Vec<crate::rummy::TableMeld>,
    /// Gin: this hand's knock limit.
    pub knock_limit: Option<u32>,
}

impl TablePart {
    fn gin(h: &Hand, players: [u8; 2], dealer: u8) -> TablePart {
        TablePart {
            seats: players.to_vec(),
            dealer,
            hand_lens: Seat::BOTH.iter().map(|&s| h.cards(s).len()).collect(),
            known: Seat::BOTH.iter().map(|&s| h.known_cards(s)).collect(),
            pile: h.pile().to_vec(),
            stock_len: h.stock_len() as u32,
            melds: Vec::new(),
            knock_limit: Some(h.knock_limit()),
        }
    }
}

impl TableView {
    fn of(t: &Table, viewer: Option<u8>) -> TableView {
        let viewer = viewer.filter(|&v| v < t.players());
        let (cards, tables, hand_number, sitting_out, scores, team_scores) = match t {
            Table::Gin(g) => {
                let h = g.hand();
                let cards = viewer.and_then(Seat::new).map(|s| h.cards(s));
                let part = TablePart::gin(h, [0, 1], u8::from(h.dealer()));
                (cards, vec![part], g.hand_number(), None, g.scores().0.map(|x| x as i64).to_vec(), None)
            }
            Table::ThreePlayer(g) => {
                let h = g.hand();
                let cards = viewer.map(|v| g.seat_of(v).map_or(CardSet::EMPTY, |s| h.cards(s)));
                let part = TablePart::gin(h, g.players(), g.sitter());
                (
                    cards,
                    vec![part],
                    g.hand_number(),
                    Some(g.sitter()),
                    g.scores().map(|x| x as i64).to_vec(),
                    None,
                )
            }
            Table::Teams(g) => {
                let cards = viewer.map(|v| {
                    let (ti, s) = g.place_of(v).expect("every seat plays");
                    g.tables()[ti as usize].cards(s)
                });
                let parts = (0..2u8)
                    .map(|ti| {
                        let ps = g.players(ti);
                        TablePart::gin(&g.tables()[ti as usize], ps, ps[1])
                    })
                    .collect();
                let sc = g.scores();
                (
                    cards,
                    parts,
                    g.round(),
                    None,
                    (0..4).map(|p| sc[team_of(p) as usize] as i64).collect(),
                    Some(sc),
                )
            }
            Table::Gin7(g) => {
                let h = g.hand();
                let n = h.players();
                let cards = viewer.map(|v| h.cards(v));
                let part = TablePart {
                    seats: (0..n).collect(),
                    dealer: h.dealer(),
                    hand_lens: (0..n).map(|s| h.cards(s).len()).collect(),
                    known: (0..n).map(|s| h.known_cards(s)).collect(),
                    pile: h.pile().to_vec(),
                    stock_len: h.stock_len() as u32,
                    melds: Vec::new(),
                    knock_limit: Some(h.rules().knock_limit),
                };
                (cards, vec![part], g.hand_number(), None, g.net(), None)
            }
            Table::Rummy(g) => {
                let h = g.hand();
                let n = h.rules().players;
                let cards = viewer.map(|v| h.hand(v));
                let part = TablePart {
                    seats: (0..n).collect(),
                    dealer: h.dealer(),
                    hand_lens: (0..n).map(|s| h.hand(s).len()).collect(),
                    known: (0..n).map(|_| CardSet::EMPTY).collect(),
                    pile: h.pile_top().into_iter().collect(),
                    stock_len: h.stock_len() as u32,
                    melds: h.table().to_vec(),
                    knock_limit: None,
                };
                (
                    cards,
                    vec![part],
                    g.results().len() as u32,
                    None,
                    g.scores().iter().map(|&x| x as i64).collect(),
                    None,
                )
            }
        };
        TableView {
            kind: t.kind(),
            players: t.players(),
            viewer,
            cards,
            to_act: t.to_act(),
            hand_number,
            sitting_out,
            tables,
            scores,
            team_scores,
            over: t.is_over(),
        }
    }

    /// The kind.
    pub fn kind(&self) -> Kind {
        self.kind
    }
    /// The table size.
    pub fn players(&self) -> u8 {
        self.players
    }
    /// Whose view (`None`: a spectator's).
    pub fn viewer(&self) -> Option<u8> {
        self.viewer
    }
    /// The viewer's own cards (`None` for a spectator; empty while it sits out).
    pub fn cards(&self) -> Option<CardSet> {
        self.cards
    }
    /// Who may act.
    pub fn to_act(&self) -> &[u8] {
        &self.to_act
    }
    /// The hand (team play: round) in play.
    pub fn hand_number(&self) -> u32 {
        self.hand_number
    }
    /// Three players: who deals and sits out.
    pub fn sitting_out(&self) -> Option<u8> {
        self.sitting_out
    }
    /// The tables in play (two in team play).
    pub fn tables(&self) -> &[TablePart] {
        &self.tables
    }
    /// Scores per seat (team play: the seat's team's).
    pub fn scores(&self) -> &[i64] {
        &self.scores
    }
    /// Team play: the teams' scores.
    pub fn team_scores(&self) -> Option<[u32; 2]> {
        self.team_scores
    }
    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.over
    }
    /// Every card this view shows: the viewer's hand, the piles, the known cards, the melds.
    pub fn visible_cards(&self) -> CardSet {
        let mut v = self.cards.unwrap_or(CardSet::EMPTY);
        for p in &self.tables {
            v |= p.pile.iter().copied().collect::<CardSet>();
            for k in &p.known {
                v |= *k;
            }
            for m in &p.melds {
                v |= m.cards;
            }
        }
        v
    }
}
