//! One hand of Gin Rummy as a state machine: deal, upcard offer, draw, discard, knock, gin,
//! big gin, layoffs, dead hand, and the hand's score.
//!
//! Legality is an API: [`Hand::legal`] (compact), [`Hand::legal_actions`], [`Hand::is_legal`],
//! and one transition [`Hand::apply`]. On `Err` the hand is exactly as before.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::card::{Card, Suit};
use crate::cardset::{CardSet, nth_card};
use crate::deal::Deck;
use crate::layoff::{Defense, Layoff, best_defense};
use crate::meld::Meld;
use crate::rules::RuleSet;
use crate::seat::{BySeat, Seat};
use crate::solver::{Arrangement, ArrangementError, knock_options, min_arrangements};

/// Something a player does.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    /// Decline the upcard during the first-turn offer.
    Pass,
    /// Draw the top card of the stock.
    DrawStock,
    /// Take the top card of the discard pile (during the offer: take the upcard).
    DrawPile,
    /// Discard a card face up; the turn passes.
    Discard {
        /// The card.
        card: Card,
    },
    /// Discard face down and lay the hand down (gin when no deadwood is left).
    Knock {
        /// The card discarded face down.
        discard: Card,
        /// The melds to lay down; `None`: the engine chooses (see [`Hand::apply`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        melds: Option<Vec<Meld>>,
    },
    /// Lay down all 11 cards in melds, with no discard (rule sets with big gin).
    BigGin {
        /// The melds; `None`: the engine chooses.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        melds: Option<Vec<Meld>>,
    },
}

impl Action {
    /// A knock letting the engine arrange the melds.
    pub fn knock(discard: Card) -> Action {
        Action::Knock { discard, melds: None }
    }
}

impl fmt::Display for Action {
    /// Compact form: `pass`, `stock`, `pile`, `discard 7S`, `knock 7S [7C 7D 7H] [3S 4S 5S]`,
    /// `big-gin`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn melds_fmt(f: &mut fmt::Formatter<'_>, m: &Option<Vec<Meld>>) -> fmt::Result {
            for meld in m.iter().flatten() {
                write!(f, " [{meld}]")?;
            }
            Ok(())
        }
        match self {
            Action::Pass => f.write_str("pass"),
            Action::DrawStock => f.write_str("stock"),
            Action::DrawPile => f.write_str("pile"),
            Action::Discard { card } => write!(f, "discard {card}"),
            Action::Knock { discard, melds } => {
                write!(f, "knock {discard}")?;
                melds_fmt(f, melds)
            }
            Action::BigGin { melds } => {
                f.write_str("big-gin")?;
                melds_fmt(f, melds)
            }
        }
    }
}

/// Why an action's text did not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseActionError(pub String);

impl fmt::Display for ParseActionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseActionError {}

fn parse_melds(s: &str) -> Result<Option<Vec<Meld>>, ParseActionError> {
    let s = s.trim();
    if s.is_empty() {
        return Ok(None);
    }
    let mut out = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        let inner = rest.strip_prefix('[').and_then(|r| r.split_once(']')).ok_or_else(|| {
            ParseActionError(format!("expected melds in brackets like [7C 7D 7H], got {rest:?}"))
        })?;
        out.push(inner.0.parse::<Meld>().map_err(|e| ParseActionError(e.to_string()))?);
        rest = inner.1.trim_start();
    }
    Ok(Some(out))
}

impl FromStr for Action {
    type Err = ParseActionError;
    fn from_str(s: &str) -> Result<Action, ParseActionError> {
        let s = s.trim();
        let (word, rest) = s.split_once(char::is_whitespace).unwrap_or((s, ""));
        let rest = rest.trim();
        let card = |t: &str| t.parse::<Card>().map_err(|e| ParseActionError(e.to_string()));
        let no_args = |a: Action| {
            if rest.is_empty() { Ok(a) } else { Err(ParseActionError(format!("`{word}` takes no argument"))) }
        };
        match word.to_ascii_lowercase().as_str() {
            "pass" => no_args(Action::Pass),
            "stock" | "draw-stock" => no_args(Action::DrawStock),
            "pile" | "take" | "draw-pile" => no_args(Action::DrawPile),
            "discard" => Ok(Action::Discard { card: card(rest)? }),
            "knock" | "gin" => {
                let (c, m) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
                Ok(Action::Knock { discard: card(c)?, melds: parse_melds(m)? })
            }
            "big-gin" | "biggin" => Ok(Action::BigGin { melds: parse_melds(rest)? }),
            "" => Err(ParseActionError("empty action".into())),
            _ => Err(ParseActionError(format!(
                "unknown action {word:?}; expected pass, stock, pile, discard <card>, knock <card> [melds], big-gin"
            ))),
        }
    }
}

/// Where the hand stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "phase", rename_all = "snake_case")]
pub enum Phase {
    /// `seat` may take the upcard or pass (first turn, rule sets with the offer).
    UpcardOffer {
        /// Who decides.
        seat: Seat,
    },
    /// `seat` draws.
    Draw {
        /// Who draws.
        seat: Seat,
    },
    /// `seat` discards, knocks or declares big gin.
    Discard {
        /// Who plays.
        seat: Seat,
    },
    /// The hand is over: see [`Hand::result`].
    Over,
}

impl Phase {
    /// The seat to act, if any.
    pub fn to_act(self) -> Option<Seat> {
        match self {
            Phase::UpcardOffer { seat } | Phase::Draw { seat } | Phase::Discard { seat } => Some(seat),
            Phase::Over => None,
        }
    }
}

/// Why an action was refused. The hand is unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuleError {
    /// The hand is over.
    HandOver,
    /// Another seat is to act.
    NotYourTurn {
        /// Who is to act.
        to_act: Seat,
    },
    /// The action does not fit this phase.
    WrongPhase {
        /// What the phase allows, in words.
        expected: &'static str,
    },
    /// Both passed the upcard: the non-dealer must draw from the stock.
    MustDrawStock,
    /// The card is not in the player's hand.
    NotInHand(Card),
    /// The card was just taken from the pile.
    JustTaken(Card),
    /// Too much deadwood to knock.
    DeadwoodTooHigh {
        /// Deadwood the knock would leave.
        deadwood: u32,
        /// The knock limit of this hand.
        limit: u32,
    },
    /// The proposed melds are not an arrangement of the hand.
    BadMelds(ArrangementError),
    /// Big gin is not in these rules.
    NoBigGin,
    /// The 11 cards do not all fit in melds.
    NotBigGin,
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleError::HandOver => f.write_str("the hand is over"),
            RuleError::NotYourTurn { to_act } => write!(f, "not your turn: seat {to_act} is to act"),
            RuleError::WrongPhase { expected } => write!(f, "not now: {expected}"),
            RuleError::MustDrawStock => {
                f.write_str("both players passed the upcard: the non-dealer must draw from the stock")
            }
            RuleError::NotInHand(c) => write!(f, "card {c} is not in your hand"),
            RuleError::JustTaken(c) => {
                write!(f, "card {c} was just taken from the discard pile and cannot be discarded this turn")
            }
            RuleError::DeadwoodTooHigh { deadwood, limit } => {
                write!(f, "cannot knock: deadwood {deadwood} is over the knock limit {limit}")
            }
            RuleError::BadMelds(e) => write!(f, "bad melds: {e}"),
            RuleError::NoBigGin => f.write_str("big gin is not played under these rules"),
            RuleError::NotBigGin => f.write_str("not big gin: the 11 cards do not all fit in melds"),
        }
    }
}

impl std::error::Error for RuleError {}

/// What an accepted action did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// The seat passed the upcard.
    Passed {
        /// Who.
        seat: Seat,
    },
    /// The seat drew `card` (from the stock: only that seat may see it).
    Drew {
        /// Who.
        seat: Seat,
        /// The card.
        card: Card,
        /// True when it came from the stock.
        from_stock: bool,
    },
    /// The seat discarded `card` face up.
    Discarded {
        /// Who.
        seat: Seat,
        /// The card.
        card: Card,
    },
    /// The seat discarded `card`, leaving 2 cards in the stock: the hand is dead.
    DeadHand {
        /// Who.
        seat: Seat,
        /// The last discard.
        card: Card,
    },
    /// The seat knocked (or went gin, or big gin): see [`Hand::result`].
    Knocked {
        /// Who.
        seat: Seat,
    },
    /// The seat discarded `card`, ending the hand's [`RuleSet::max_turns_per_hand`]-th turn:
    /// the hand ends dead at the turn limit ([`EndKind::TurnLimit`]).
    TurnLimit {
        /// Who.
        seat: Seat,
        /// The last discard.
        card: Card,
    },
}

/// How a hand ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndKind {
    /// Two cards left in the stock: no score.
    Dead,
    /// A knock won by the knocker.
    Knock,
    /// A knock won by the defender (deadwood at most the knocker's).
    Undercut,
    /// A knock with no deadwood.
    Gin,
    /// All 11 cards melded, no discard.
    BigGin,
    /// The hand reached [`RuleSet::max_turns_per_hand`] turns without ending: a dead hand
    /// (no score), reported as such.
    TurnLimit,
}

impl EndKind {
    /// True for a hand nobody scores: dead at the stock, or at the turn limit.
    pub fn is_dead(self) -> bool {
        matches!(self, EndKind::Dead | EndKind::TurnLimit)
    }
}

/// What both players laid down after a knock.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Showdown {
    /// Who knocked.
    pub knocker: Seat,
    /// The knocker's face-down discard (none for big gin).
    pub discard: Option<Card>,
    /// The knocker's melds and deadwood.
    pub knocker_arrangement: Arrangement,
    /// The defender's own melds and deadwood left after layoffs.
    pub defender_arrangement: Arrangement,
    /// The defender's layoffs onto the knocker's melds (none after gin or big gin).
    pub layoffs: Vec<Layoff>,
    /// The knocker's deadwood.
    pub knocker_deadwood: u32,
    /// The defender's deadwood after layoffs.
    pub defender_deadwood: u32,
}

/// The end of a hand and its score.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct HandResult {
    /// How it ended.
    pub end: EndKind,
    /// Who scores (`None` for a dead hand).
    pub winner: Option<Seat>,
    /// Points to the winner, bonuses and doubling included.
    pub points: u32,
    /// Whether a spade upcard doubled the score.
    pub doubled: bool,
    /// The knock's details (`None` for a dead hand).
    pub showdown: Option<Showdown>,
    /// Turns played in the hand (each draw starts one; the knock's turn included).
    #[serde(default)]
    pub turns: u32,
}

/// The rule numbers one hand needs, copied out of the [`RuleSet`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct HandRules {
    knock_limit: u32,
    big_gin: Option<u32>,
    gin_bonus: u32,
    undercut_bonus: u32,
    doubled: bool,
    max_turns: u32,
}

/// Score of a hand ended by `end` (`Knock` covers undercuts) with knocker deadwood `K` and
/// defender deadwood `D`: (the knocker wins?, points before any doubling).
///
/// ```
/// use engine::{EndKind, RuleSet, score_knock};
/// // cardgames.io: knock with 3 against 21 scores 18.
/// assert_eq!(score_knock(EndKind::Knock, 3, 21, &RuleSet::standard()), (true, 18));
/// ```
pub fn score_knock(
    end: EndKind,
    knocker_deadwood: u32,
    defender_deadwood: u32,
    rules: &RuleSet,
) -> (bool, u32) {
    HandRules::from_rules(rules, None).score(end, knocker_deadwood, defender_deadwood)
}

impl HandRules {
    fn from_rules(rules: &RuleSet, upcard: Option<Card>) -> HandRules {
        HandRules {
            knock_limit: upcard.map_or(rules.knock_limit, |u| rules.knock_limit_for(u)),
            big_gin: rules.big_gin.then_some(rules.big_gin_bonus),
            gin_bonus: rules.gin_bonus,
            undercut_bonus: rules.undercut_bonus,
            doubled: rules.spade_upcard_doubles && upcard.is_some_and(|u| u.suit() == Suit::Spades),
            max_turns: rules.max_turns_per_hand,
        }
    }

    fn score(&self, end: EndKind, k: u32, d: u32) -> (bool, u32) {
        match end {
            EndKind::Gin => (true, d + self.gin_bonus),
            EndKind::BigGin => (true, d + self.big_gin.unwrap_or(0)),
            EndKind::Knock | EndKind::Undercut if k < d => (true, d - k),
            EndKind::Knock | EndKind::Undercut => (false, k - d + self.undercut_bonus),
            EndKind::Dead | EndKind::TurnLimit => (false, 0),
        }
    }
}

/// The compact set of legal actions for the seat to act.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Legal {
    /// Who acts (`None` when the hand is over). Always `None` at a table of three or more
    /// ([`crate::gin7::Gin7Hand::legal`]): [`Seat`] has two values; ask
    /// [`crate::gin7::Gin7Hand::to_act`] there.
    pub seat: Option<Seat>,
    /// `Pass` is legal.
    pub pass: bool,
    /// `DrawStock` is legal.
    pub draw_stock: bool,
    /// `DrawPile` is legal.
    pub draw_pile: bool,
    /// Cards that may be discarded.
    pub discards: CardSet,
    /// Cards whose face-down discard allows a knock (or gin).
    pub knocks: CardSet,
    /// `BigGin` is legal.
    pub big_gin: bool,
}

impl Legal {
    /// Number of legal actions (knocks counted once per discard, with engine-chosen melds).
    pub fn count(&self) -> u32 {
        self.pass as u32
            + self.draw_stock as u32
            + self.draw_pile as u32
            + self.discards.len()
            + self.knocks.len()
            + self.big_gin as u32
    }

    /// The `i`-th legal action in [`Legal::to_vec`]'s order, without allocating.
    #[inline]
    pub fn nth(&self, mut i: u32) -> Option<Action> {
        if self.pass {
            if i == 0 {
                return Some(Action::Pass);
            }
            i -= 1;
        }
        // The draws: random play picks either at random, so the variant is computed, not
        // branched to (the pile when `i` is past the stock's place or the stock is not legal).
        let draws = self.draw_stock as u32 + self.draw_pile as u32;
        if i < draws {
            let pile = (i != 0) | !self.draw_stock;
            return Some(if pile { Action::DrawPile } else { Action::DrawStock });
        }
        i -= draws;
        let nd = self.discards.len();
        if i < nd {
            return nth_card(self.discards, i).map(|card| Action::Discard { card });
        }
        i -= nd;
        let nk = self.knocks.len();
        if i < nk {
            return nth_card(self.knocks, i).map(Action::knock);
        }
        i -= nk;
        (self.big_gin && i == 0).then_some(Action::BigGin { melds: None })
    }

    /// Every legal action: pass, stock, pile, discards, knocks, big gin.
    pub fn to_vec(&self) -> Vec<Action> {
        (0..self.count()).filter_map(|i| self.nth(i)).collect()
    }
}

/// The face-up discard pile: a fixed array (a hand allocates nothing while it is played).
/// Also the pile of [`crate::gin7`]'s hands.
#[derive(Clone, Copy)]
pub(crate) struct Pile {
    cards: [Card; 52],
    len: u8,
}

impl Pile {
    /// A pile holding `first` only.
    pub(crate) fn starting_with(first: Card) -> Pile {
        Pile { cards: [first; 52], len: 1 }
    }
    pub(crate) fn as_slice(&self) -> &[Card] {
        &self.cards[..self.len as usize]
    }
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub(crate) fn len(&self) -> usize {
        self.len as usize
    }
    pub(crate) fn push(&mut self, c: Card) {
        self.cards[self.len as usize] = c;
        self.len += 1;
    }
    /// The top card, or when the pile is empty any card (a read with no branch, for a
    /// caller that then uses it only if the pile has a card).
    #[inline]
    pub(crate) fn top_or_any(&self) -> Card {
        self.cards[(self.len.max(1) as usize - 1).min(51)]
    }
    /// Takes the top card off when `take` (the pile has one then): no branch.
    #[inline]
    pub(crate) fn drop_top(&mut self, take: bool) {
        self.len -= take as u8;
    }
    pub(crate) fn pop(&mut self) -> Option<Card> {
        self.len = self.len.checked_sub(1)?;
        Some(self.cards[self.len as usize])
    }
}

impl PartialEq for Pile {
    fn eq(&self, o: &Pile) -> bool {
        self.as_slice() == o.as_slice()
    }
}

impl Eq for Pile {}

impl fmt::Debug for Pile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_slice().fmt(f)
    }
}

/// One hand in play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hand {
    rules: HandRules,
    deck: Deck,
    dealer: Seat,
    cards: BySeat<CardSet>,
    /// Index in `deck` of the stock's top card.
    stock_next: u8,
    pile: Pile,
    phase: Phase,
    /// The card taken from the pile this turn (it may not be discarded).
    taken: Option<Card>,
    /// Both passed the upcard: the next draw must be from the stock.
    stock_only: bool,
    /// Cards in each seat's hand that the other seat saw it take from the pile.
    known: BySeat<CardSet>,
    /// Every card each seat has seen: its own cards, and every face-up card.
    seen: BySeat<CardSet>,
    /// Turns started (draws) so far.
    turns: u32,
    result: Option<Box<HandResult>>,
}

impl Hand {
    /// Deals a hand from `deck` (see [`Deck`] for the deal order) under `rules`.
    pub fn new(rules: &RuleSet, deck: Deck, dealer: Seat) -> Hand {
        let d = deck.cards();
        let non_dealer = dealer.other();
        let mut cards = BySeat::new(CardSet::EMPTY, CardSet::EMPTY);
        for (i, &c) in d[..20].iter().enumerate() {
            let s = if i % 2 == 0 { non_dealer } else { dealer };
            cards[s].insert(c);
        }
        let upcard = d[20];
        let mut pile = Pile { cards: [upcard; 52], len: 0 };
        pile.push(upcard);
        let phase = if rules.upcard_offer {
            Phase::UpcardOffer { seat: non_dealer }
        } else {
            Phase::Draw { seat: non_dealer }
        };
        Hand {
            rules: HandRules::from_rules(rules, Some(upcard)),
            deck,
            dealer,
            cards,
            stock_next: 21,
            pile,
            phase,
            taken: None,
            stock_only: false,
            known: BySeat::default(),
            seen: cards.map(|c| c.with(upcard)),
            turns: 0,
            result: None,
        }
    }

    /// The deck this hand was dealt from.
    pub fn deck(&self) -> &Deck {
        &self.deck
    }

    /// The dealer.
    pub fn dealer(&self) -> Seat {
        self.dealer
    }

    /// The upcard (first card of the discard pile).
    pub fn upcard(&self) -> Card {
        self.deck.cards()[20]
    }

    /// The knock limit of this hand (Oklahoma: set by the upcard).
    pub fn knock_limit(&self) -> u32 {
        self.rules.knock_limit
    }

    /// Where the hand stands.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// A seat's cards.
    pub fn cards(&self, seat: Seat) -> CardSet {
        self.cards[seat]
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
        &self.deck.cards()[self.stock_next as usize..]
    }

    /// Cards of `seat` that the other seat knows it holds (taken from the pile).
    pub fn known_cards(&self, seat: Seat) -> CardSet {
        self.known[seat]
    }

    /// Every card `seat` has seen so far.
    pub fn seen_by(&self, seat: Seat) -> CardSet {
        self.seen[seat]
    }

    /// The card `seat` took from the pile this turn, if any.
    pub fn taken_from_pile(&self) -> Option<Card> {
        self.taken
    }

    /// Turns started so far (each draw starts one; the upcard offer's passes do not).
    pub fn turns(&self) -> u32 {
        self.turns
    }

    /// The result, once the hand is over.
    pub fn result(&self) -> Option<&HandResult> {
        self.result.as_deref()
    }

    /// True once the hand is over.
    pub fn is_over(&self) -> bool {
        self.phase == Phase::Over
    }

    /// The legal actions of the seat to act, compactly.
    #[inline]
    pub fn legal(&self) -> Legal {
        match self.phase {
            Phase::Over => Legal::default(),
            Phase::UpcardOffer { seat } => {
                Legal { seat: Some(seat), pass: true, draw_pile: true, ..Legal::default() }
            }
            Phase::Draw { seat } => Legal {
                seat: Some(seat),
                draw_stock: true,
                draw_pile: !self.stock_only && !self.pile.is_empty(),
                ..Legal::default()
            },
            Phase::Discard { seat } => {
                let h = self.cards[seat];
                let opts = knock_options(h, self.rules.knock_limit);
                let not_taken = match self.taken {
                    Some(c) => h.without(c),
                    None => h,
                };
                Legal {
                    seat: Some(seat),
                    discards: not_taken,
                    knocks: opts.discards & not_taken,
                    big_gin: opts.all_melded && self.rules.big_gin.is_some(),
                    ..Legal::default()
                }
            }
        }
    }

    /// Every legal action of the seat to act (knocks with engine-chosen melds).
    pub fn legal_actions(&self) -> Vec<Action> {
        self.legal().to_vec()
    }

    /// Whether `seat` may do `action` now.
    pub fn is_legal(&self, seat: Seat, action: &Action) -> bool {
        self.check(seat, action).is_ok()
    }

    /// Checks an action without applying it; returns the knock's arrangement when it is one.
    #[inline]
    fn check(&self, seat: Seat, action: &Action) -> Result<Option<Arrangement>, RuleError> {
        let to_act = self.phase.to_act().ok_or(RuleError::HandOver)?;
        if seat != to_act {
            return Err(RuleError::NotYourTurn { to_act });
        }
        let hand = self.cards[seat];
        match (self.phase, action) {
            (Phase::UpcardOffer { .. }, Action::Pass | Action::DrawPile) => Ok(None),
            (Phase::UpcardOffer { .. }, _) => {
                Err(RuleError::WrongPhase { expected: "take the upcard (pile) or pass" })
            }
            (Phase::Draw { .. }, Action::DrawStock) => Ok(None),
            (Phase::Draw { .. }, Action::DrawPile) if self.stock_only => Err(RuleError::MustDrawStock),
            (Phase::Draw { .. }, Action::DrawPile) if self.pile.is_empty() => {
                Err(RuleError::WrongPhase { expected: "draw from the stock: the discard pile is empty" })
            }
            (Phase::Draw { .. }, Action::DrawPile) => Ok(None),
            (Phase::Draw { .. }, _) => {
                Err(RuleError::WrongPhase { expected: "draw from the stock or the pile" })
            }
            (Phase::Discard { .. }, Action::Discard { card }) => {
                self.check_discard(hand, *card)?;
                Ok(None)
            }
            (Phase::Discard { .. }, Action::Knock { discard, melds }) => {
                self.check_discard(hand, *discard)?;
                let rest = hand.without(*discard);
                let arrangement = match melds {
                    Some(m) => Arrangement::new(rest, m.clone()).map_err(RuleError::BadMelds)?,
                    None => self.knock_arrangement(seat, rest),
                };
                let dw = arrangement.deadwood();
                if dw > self.rules.knock_limit {
                    return Err(RuleError::DeadwoodTooHigh { deadwood: dw, limit: self.rules.knock_limit });
                }
                Ok(Some(arrangement))
            }
            (Phase::Discard { .. }, Action::BigGin { melds }) => {
                if self.rules.big_gin.is_none() {
                    return Err(RuleError::NoBigGin);
                }
                let arrangement = match melds {
                    Some(m) => Arrangement::new(hand, m.clone()).map_err(RuleError::BadMelds)?,
                    None => self.knock_arrangement(seat, hand),
                };
                if arrangement.deadwood_cards() != CardSet::EMPTY {
                    return Err(RuleError::NotBigGin);
                }
                Ok(Some(arrangement))
            }
            (Phase::Discard { .. }, _) => {
                Err(RuleError::WrongPhase { expected: "discard, knock or big gin: you have drawn already" })
            }
            (Phase::Over, _) => Err(RuleError::HandOver),
        }
    }

    fn check_discard(&self, hand: CardSet, card: Card) -> Result<(), RuleError> {
        if !hand.contains(card) {
            return Err(RuleError::NotInHand(card));
        }
        if self.taken == Some(card) {
            return Err(RuleError::JustTaken(card));
        }
        Ok(())
    }

    /// The knocker's arrangement when it names none: a minimum-deadwood arrangement, and among
    /// those the one offering the fewest layoff spots among the cards the knocker has not seen;
    /// remaining ties go to the first in the solver's fixed order.
    fn knock_arrangement(&self, seat: Seat, cards: CardSet) -> Arrangement {
        let unseen = !self.seen[seat];
        let all = min_arrangements(cards);
        let mut best: Option<(u32, Arrangement)> = None;
        for a in all {
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
    /// use engine::{Action, Deck, Hand, RuleSet, Seat};
    /// let mut h = Hand::new(&RuleSet::standard(), Deck::shuffled(7, 0), Seat::S0);
    /// // Seat 1 (the non-dealer) is offered the upcard first; seat 0 may not act.
    /// assert!(h.apply(Seat::S0, &Action::Pass).is_err());
    /// h.apply(Seat::S1, &Action::Pass).unwrap();
    /// ```
    pub fn apply(&mut self, seat: Seat, action: &Action) -> Result<Event, RuleError> {
        // The common legal moves go straight through; anything else (knocks, and every
        // refusal with its reason) goes through `check`, which the guards here mirror.
        let arrangement = match (self.phase, action) {
            (Phase::Draw { seat: s }, Action::DrawStock) if s == seat => None,
            (Phase::Draw { seat: s }, Action::DrawPile)
                if s == seat && !self.stock_only && !self.pile.is_empty() =>
            {
                None
            }
            (Phase::Discard { seat: s }, Action::Discard { card })
                if s == seat && self.cards[seat].contains(*card) && self.taken != Some(*card) =>
            {
                None
            }
            _ => self.check(seat, action)?,
        };
        Ok(match action {
            Action::Pass => {
                if seat == self.dealer {
                    self.stock_only = true;
                    self.phase = Phase::Draw { seat: self.dealer.other() };
                } else {
                    self.phase = Phase::UpcardOffer { seat: self.dealer };
                }
                Event::Passed { seat }
            }
            Action::DrawStock => {
                let card = self.deck.cards()[self.stock_next as usize];
                self.stock_next += 1;
                self.cards[seat].insert(card);
                self.seen[seat].insert(card);
                self.stock_only = false;
                self.taken = None;
                self.turns += 1;
                self.phase = Phase::Discard { seat };
                Event::Drew { seat, card, from_stock: true }
            }
            Action::DrawPile => {
                let card = self.pile.pop().expect("checked: pile not empty");
                self.cards[seat].insert(card);
                self.known[seat].insert(card);
                self.taken = Some(card);
                self.turns += 1;
                self.phase = Phase::Discard { seat };
                Event::Drew { seat, card, from_stock: false }
            }
            Action::Discard { card } => {
                let card = *card;
                self.cards[seat].remove(card);
                self.known[seat].remove(card);
                self.pile.push(card);
                self.seen[Seat::S0].insert(card);
                self.seen[Seat::S1].insert(card);
                self.taken = None;
                if self.stock_len() <= 2 {
                    self.end_dead(EndKind::Dead);
                    Event::DeadHand { seat, card }
                } else if self.turns >= self.rules.max_turns {
                    self.end_dead(EndKind::TurnLimit);
                    Event::TurnLimit { seat, card }
                } else {
                    self.phase = Phase::Draw { seat: seat.other() };
                    Event::Discarded { seat, card }
                }
            }
            Action::Knock { discard, .. } => {
                let arrangement = arrangement.expect("checked: knock has an arrangement");
                self.cards[seat].remove(*discard);
                let end = if arrangement.deadwood() == 0 { EndKind::Gin } else { EndKind::Knock };
                self.settle(seat, Some(*discard), arrangement, end);
                Event::Knocked { seat }
            }
            Action::BigGin { .. } => {
                let arrangement = arrangement.expect("checked: big gin has an arrangement");
                self.settle(seat, None, arrangement, EndKind::BigGin);
                Event::Knocked { seat }
            }
        })
    }

    /// Ends the hand with no score: dead at the stock, or at the turn limit.
    #[inline(never)]
    fn end_dead(&mut self, end: EndKind) {
        self.phase = Phase::Over;
        self.result = Some(Box::new(HandResult {
            end,
            winner: None,
            points: 0,
            doubled: false,
            showdown: None,
            turns: self.turns,
        }));
    }

    fn settle(&mut self, knocker: Seat, discard: Option<Card>, arrangement: Arrangement, end: EndKind) {
        let defender = knocker.other();
        let dcards = self.cards[defender];
        let defense = if end == EndKind::Knock {
            best_defense(dcards, arrangement.melds())
        } else {
            Defense { arrangement: crate::solver::best_arrangement(dcards), layoffs: Vec::new() }
        };
        let (k, d) = (arrangement.deadwood(), defense.deadwood());
        let (knocker_wins, points) = self.rules.score(end, k, d);
        let end = if end == EndKind::Knock && !knocker_wins { EndKind::Undercut } else { end };
        let doubled = self.rules.doubled;
        self.phase = Phase::Over;
        self.taken = None;
        self.result = Some(Box::new(HandResult {
            end,
            winner: Some(if knocker_wins { knocker } else { defender }),
            points: if doubled { points * 2 } else { points },
            doubled,
            showdown: Some(Showdown {
                knocker,
                discard,
                knocker_arrangement: arrangement,
                defender_arrangement: defense.arrangement,
                layoffs: defense.layoffs,
                knocker_deadwood: k,
                defender_deadwood: d,
            }),
            turns: self.turns,
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::card;
    use crate::cardset::hand;

    /// A deck where the non-dealer (seat 1, dealer 0) gets `nd`, the dealer gets `dl`, then
    /// `up` is the upcard and `stock` the top of the stock; the rest follows in deck order.
    pub(crate) fn deck_for(nd: &str, dl: &str, up: &str, stock: &str) -> Deck {
        let (nd, dl) = (hand(nd).by_rank(), hand(dl).by_rank());
        assert_eq!((nd.len(), dl.len()), (10, 10));
        let mut order = Vec::new();
        for i in 0..10 {
            order.push(nd[i]);
            order.push(dl[i]);
        }
        order.push(card(up));
        order.extend(stock.split_whitespace().map(card));
        let used: CardSet = order.iter().copied().collect();
        order.extend((!used).iter());
        Deck::from_cards(&order).unwrap()
    }

    fn knock(d: &str) -> Action {
        Action::knock(card(d))
    }

    #[test]
    fn deal_gives_ten_each_and_an_upcard() {
        let h = Hand::new(&RuleSet::standard(), Deck::shuffled(5, 0), Seat::S1);
        assert_eq!(h.cards(Seat::S0).len(), 10);
        assert_eq!(h.cards(Seat::S1).len(), 10);
        assert_eq!(h.pile(), &[h.upcard()]);
        assert_eq!(h.stock_len(), 31);
        // The non-dealer deals first: deck[0] goes to seat 0 when seat 1 deals.
        assert!(h.cards(Seat::S0).contains(h.deck().cards()[0]));
        assert_eq!(h.phase(), Phase::UpcardOffer { seat: Seat::S0 });
    }

    #[test]
    fn upcard_offer_flow() {
        let rules = RuleSet::standard();
        let deck = Deck::shuffled(9, 0);
        let mut h = Hand::new(&rules, deck, Seat::S0);
        // Non-dealer passes, dealer passes: non-dealer must draw from the stock.
        assert_eq!(
            h.apply(Seat::S1, &Action::DrawStock),
            Err(RuleError::WrongPhase { expected: "take the upcard (pile) or pass" })
        );
        h.apply(Seat::S1, &Action::Pass).unwrap();
        assert_eq!(h.phase(), Phase::UpcardOffer { seat: Seat::S0 });
        h.apply(Seat::S0, &Action::Pass).unwrap();
        assert_eq!(h.phase(), Phase::Draw { seat: Seat::S1 });
        let before = h.clone();
        assert_eq!(h.apply(Seat::S1, &Action::DrawPile), Err(RuleError::MustDrawStock));
        assert_eq!(format!("{:?}", h), format!("{:?}", before));
        assert_eq!(h.legal_actions(), vec![Action::DrawStock]);
        h.apply(Seat::S1, &Action::DrawStock).unwrap();
        assert_eq!(h.cards(Seat::S1).len(), 11);

        // Dealer takes the upcard after the non-dealer passed; then the non-dealer plays.
        let mut h = Hand::new(&rules, deck, Seat::S0);
        h.apply(Seat::S1, &Action::Pass).unwrap();
        let up = h.upcard();
        assert_eq!(
            h.apply(Seat::S0, &Action::DrawPile),
            Ok(Event::Drew { seat: Seat::S0, card: up, from_stock: false })
        );
        assert_eq!(h.apply(Seat::S0, &Action::Discard { card: up }), Err(RuleError::JustTaken(up)));
        let other = h.cards(Seat::S0).without(up).first().unwrap();
        h.apply(Seat::S0, &Action::Discard { card: other }).unwrap();
        assert_eq!(h.phase(), Phase::Draw { seat: Seat::S1 });
        assert_eq!(h.known_cards(Seat::S0), CardSet::single(up));
    }

    #[test]
    fn no_offer_rules_start_with_a_normal_draw() {
        let h = Hand::new(&RuleSet::preset("wikihow").unwrap(), Deck::shuffled(9, 0), Seat::S0);
        assert_eq!(h.phase(), Phase::Draw { seat: Seat::S1 });
        assert_eq!(h.legal_actions(), vec![Action::DrawStock, Action::DrawPile]);
    }

    #[test]
    fn wikihow_knock_with_declared_melds_scores_its_own_deadwood() {
        // Seat 1 holds the wikiHow knock: set of 7s, 3-4-5 of spades, a 2, a 7 and an ace,
        // plus a king to discard face down; it draws 6S (its run becomes 3-6) and lays down
        // exactly those melds, leaving the 2, the 7 and the ace: deadwood 10, a legal knock.
        let deck = deck_for("7C 7D 7H 3S 4S 5S 2D 7S AH KC", "9C 9D 9H TC JC QD 2C 4D 6H 8H", "KD", "6S");
        let rules = RuleSet::preset("wikihow").unwrap();
        let mut h = Hand::new(&rules, deck, Seat::S0);
        h.apply(Seat::S1, &Action::DrawStock).unwrap();
        let melds = vec!["7C 7D 7H".parse().unwrap(), "3S 4S 5S 6S".parse().unwrap()];
        let declared = Action::Knock { discard: card("KC"), melds: Some(melds) };
        h.apply(Seat::S1, &declared).unwrap();
        let r = h.result().unwrap();
        let s = r.showdown.as_ref().unwrap();
        assert_eq!(s.knocker_deadwood, 10);
        assert_eq!(s.knocker_arrangement.deadwood_cards(), hand("2D 7S AH"));
        // Defender: the run 9C TC JC beats the set of 9s; left 9D 9H QD 2C 4D 6H 8H = 48, and
        // nothing of it lays off onto the 7s or 3S-6S.
        assert_eq!(s.defender_deadwood, 48);
        assert!(s.layoffs.is_empty());
        assert_eq!((r.end, r.winner, r.points), (EndKind::Knock, Some(Seat::S1), 38));
        // Without declared melds the engine finds the better arrangement (7S joins the set).
        let mut h = Hand::new(&rules, deck, Seat::S0);
        h.apply(Seat::S1, &Action::DrawStock).unwrap();
        h.apply(Seat::S1, &knock("KC")).unwrap();
        assert_eq!(h.result().unwrap().showdown.as_ref().unwrap().knocker_deadwood, 3);
    }

    #[test]
    fn knock_limit_enforced_and_state_unchanged() {
        let deck = deck_for("7C 7D 7H 3S 4S 5S 2D 9S AH KC", "9C 9D 9H TC JC QD 2C 4D 6H 8H", "KD", "QC");
        let mut h = Hand::new(&RuleSet::preset("wikihow").unwrap(), deck, Seat::S0);
        h.apply(Seat::S1, &Action::DrawStock).unwrap();
        let before = format!("{h:?}");
        // Without KC and QC: deadwood 2+9+1+10 = 22 > 10.
        assert_eq!(
            h.apply(Seat::S1, &knock("KC")),
            Err(RuleError::DeadwoodTooHigh { deadwood: 22, limit: 10 })
        );
        assert_eq!(h.apply(Seat::S1, &knock("3D")), Err(RuleError::NotInHand(card("3D"))));
        assert_eq!(h.apply(Seat::S0, &knock("KC")), Err(RuleError::NotYourTurn { to_act: Seat::S1 }));
        assert_eq!(format!("{h:?}"), before);
        assert!(h.legal().knocks.is_empty());
    }

    #[test]
    fn gin_scores_defender_deadwood_plus_bonus_without_layoffs() {
        // Knocker gin: A-2-3-4 clubs, 5D 5H 5S, 9H 9S 9D; drawn card KC discarded.
        let deck = deck_for("AC 2C 3C 4C 5D 5H 5S 9H 9S 9D", "5C 6C 7C 8C TH TS TD 2H 3H 4S", "KD", "KC");
        let mut h = Hand::new(&RuleSet::preset("wikihow").unwrap(), deck, Seat::S0);
        h.apply(Seat::S1, &Action::DrawStock).unwrap();
        assert!(h.legal().knocks.contains(card("KC")));
        h.apply(Seat::S1, &knock("KC")).unwrap();
        let r = h.result().unwrap();
        assert_eq!(r.end, EndKind::Gin);
        assert_eq!(r.winner, Some(Seat::S1));
        // Defender: 5C-8C run, tens set, 2H 3H 4S = 9 deadwood; 5C could extend A-4C but no layoffs on gin.
        assert_eq!(r.points, 9 + 25);
        assert!(r.showdown.as_ref().unwrap().layoffs.is_empty());
    }

    #[test]
    fn big_gin_when_rules_allow_it() {
        let deck = deck_for("AC 2C 3C 4C 5D 5H 5S 9H 9S 9D", "5C 6C 7C 8C TH TS TD 2H 3H 4S", "KD", "9C");
        let mut h = Hand::new(&RuleSet::standard(), deck, Seat::S0);
        h.apply(Seat::S1, &Action::Pass).unwrap();
        h.apply(Seat::S0, &Action::Pass).unwrap();
        h.apply(Seat::S1, &Action::DrawStock).unwrap();
        assert!(h.legal().big_gin);
        h.apply(Seat::S1, &Action::BigGin { melds: None }).unwrap();
        let r = h.result().unwrap();
        assert_eq!((r.end, r.points), (EndKind::BigGin, 9 + 31));
        // Without big gin in the rules, the same 11 cards discard and go gin.
        let mut h = Hand::new(&RuleSet::preset("wikihow").unwrap(), deck, Seat::S0);
        h.apply(Seat::S1, &Action::DrawStock).unwrap();
        assert!(!h.legal().big_gin);
        assert_eq!(h.apply(Seat::S1, &Action::BigGin { melds: None }), Err(RuleError::NoBigGin));
        h.apply(Seat::S1, &knock("9C")).unwrap();
        assert_eq!(h.result().unwrap().end, EndKind::Gin);
    }

    #[test]
    fn undercut_goes_to_the_defender_and_ties_too() {
        // Knocker: 7C 7D 7H, 3S 4S 5S, AH 2D 4C 3C -> discard... deadwood 10 after QC discard.
        let deck = deck_for("7C 7D 7H 3S 4S 5S AH 2D 4C 3C", "9C 9D 9H TC JC QC 8D 8S 8H 6H", "KD", "QD");
        let mut h = Hand::new(&RuleSet::preset("wikihow").unwrap(), deck, Seat::S0);
        h.apply(Seat::S1, &Action::DrawStock).unwrap();
        h.apply(Seat::S1, &knock("QD")).unwrap();
        let r = h.result().unwrap();
        let s = r.showdown.as_ref().unwrap();
        assert_eq!(s.knocker_deadwood, 10);
        // Defender: 9s set, 8s set, TC JC QC run, 6H left = 6 -> undercut by 4 + 25.
        assert_eq!(s.defender_deadwood, 6);
        assert_eq!((r.end, r.winner, r.points), (EndKind::Undercut, Some(Seat::S0), 29));
    }

    #[test]
    fn dead_hand_at_two_stock_cards() {
        let rules = RuleSet::preset("wikihow").unwrap();
        let mut h = Hand::new(&rules, Deck::shuffled(11, 0), Seat::S0);
        let mut seat = Seat::S1;
        let mut last = None;
        while !h.is_over() {
            h.apply(seat, &Action::DrawStock).unwrap();
            let c = h.cards(seat).iter().last().unwrap();
            last = Some(h.apply(seat, &Action::Discard { card: c }).unwrap());
            seat = seat.other();
        }
        assert!(matches!(last, Some(Event::DeadHand { .. })));
        assert_eq!(h.stock_len(), 2);
        assert_eq!(h.result().unwrap().end, EndKind::Dead);
        assert_eq!(h.apply(seat, &Action::DrawStock), Err(RuleError::HandOver));
    }

    #[test]
    fn knock_arrangement_prefers_fewest_unseen_layoff_spots() {
        // 3S..8S can be one 6-run (spots 2S, 9S) or 3S-5S + 6S-8S (same outer spots). With 8S 8C 8D:
        // the run 3S-7S + set 8S 8C 8D (spots 2S, 8S? no: 8H, 8... ) compete; check we pick min spots.
        let deck = deck_for("3S 4S 5S 6S 7S 8S 8C 8D AH 2H", "9C 9D 9H TC JC QC 7D 7C 6H 5H", "KD", "KC");
        let mut h = Hand::new(&RuleSet::preset("wikihow").unwrap(), deck, Seat::S0);
        h.apply(Seat::S1, &Action::DrawStock).unwrap();
        h.apply(Seat::S1, &knock("KC")).unwrap();
        let s = h.result().unwrap().showdown.clone().unwrap();
        let unseen = !h.seen_by(Seat::S1);
        let chosen = (s.knocker_arrangement.layoff_spots() & unseen).len();
        for a in min_arrangements(s.knocker_arrangement.cards()) {
            assert!(chosen <= (a.layoff_spots() & unseen).len());
        }
        assert_eq!(s.knocker_deadwood, 3);
    }

    #[test]
    fn nth_card_selects_in_bit_order() {
        let h = hand("AC 7C KD 2H 9S KS");
        let cards: Vec<Card> = h.iter().collect();
        for (i, c) in cards.iter().enumerate() {
            assert_eq!(nth_card(h, i as u32), Some(*c));
        }
        assert_eq!(nth_card(h, 6), None);
        assert_eq!(nth_card(CardSet::EMPTY, 0), None);
    }

    #[test]
    fn action_text_round_trips() {
        for s in [
            "pass",
            "stock",
            "pile",
            "discard 7S",
            "knock KC",
            "knock KC [7C 7D 7H] [3S 4S 5S]",
            "big-gin",
            "big-gin [AC 2C 3C]",
        ] {
            let a: Action = s.parse().unwrap();
            assert_eq!(a.to_string(), s);
            let j = serde_json::to_string(&a).unwrap();
            assert_eq!(serde_json::from_str::<Action>(&j).unwrap(), a);
        }
        for bad in ["", "jump", "discard", "discard 1X", "knock KC [7C 7D]", "knock KC 7C 7D 7H", "pass now"]
        {
            assert!(bad.parse::<Action>().is_err(), "{bad}");
        }
    }

    #[test]
    fn score_examples_from_the_seeds() {
        let w = RuleSet::preset("wikihow").unwrap();
        // wikiHow: gin vs 21 deadwood scores 46; knock 3 vs 12 scores 9;
        // knock 10 vs 10: defender 25; knock 10 vs 6: defender 29.
        assert_eq!(score_knock(EndKind::Gin, 0, 21, &w), (true, 46));
        assert_eq!(score_knock(EndKind::Knock, 3, 12, &w), (true, 9));
        assert_eq!(score_knock(EndKind::Knock, 10, 10, &w), (false, 25));
        assert_eq!(score_knock(EndKind::Knock, 10, 6, &w), (false, 29));
        // cardgames.io: knock 3 vs 21 scores 18.
        assert_eq!(score_knock(EndKind::Knock, 3, 21, &RuleSet::standard()), (true, 18));
        assert_eq!(score_knock(EndKind::BigGin, 0, 12, &RuleSet::standard()), (true, 43));
    }
}
