//! Opponents with other styles than `simple`'s, so that tuning `strong` cannot overfit one
//! baseline. Each is cheap (no search) and plays from its own view only:
//!
//! - `gin-hunter`: plays for gin: keeps the cards that leave the most ways to meld (deadwood
//!   left minus the expected gain of the next draw), and knocks only with at most 2 deadwood
//!   or once the stock runs low (at most 8 cards left).
//! - `early-knocker`: rushes its deadwood down and knocks at the first chance: takes the
//!   pile's top when it joins a meld or is a low card that cuts the deadwood by 5 or more,
//!   throws the highest card among the discards that leave the least deadwood.
//! - `defensive`: never discards a card the opponent's pickups suggest it wants (same rank,
//!   or same suit up to two ranks away, as a card the opponent took from the pile) when it
//!   has another discard; among the rest, the least deadwood, preferring cards next to the
//!   opponent's own discards; knocks at the first chance.

use engine::{Action, Card, CardSet, deadwood, deadwood_after_best_discard, deadwood_by_discard};

use crate::memory::Seen;
use crate::rng::Rng;
use crate::simple::melds_with;
use crate::strategy::{Choice, Decision, Strategy};

/// The style names, as [`crate::by_name`] knows them.
pub const STYLES: [&str; 3] = ["gin-hunter", "early-knocker", "defensive"];

/// Which style a [`StyleStrategy`] plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Plays for gin, knocks late or with very low deadwood.
    GinHunter,
    /// Knocks at the first chance, rushing its deadwood down.
    EarlyKnocker,
    /// Never feeds the opponent's visible pickups when it can help it.
    Defensive,
}

impl Style {
    /// The style's strategy name.
    pub fn name(self) -> &'static str {
        match self {
            Style::GinHunter => "gin-hunter",
            Style::EarlyKnocker => "early-knocker",
            Style::Defensive => "defensive",
        }
    }
}

/// Deadwood at or under which `gin-hunter` knocks before the stock runs low.
pub const HUNTER_KNOCK: u8 = 2;
/// Stock size at or under which `gin-hunter` knocks with any legal deadwood.
pub const HUNTER_LATE_STOCK: u32 = 8;

/// A player of one [`Style`].
pub struct StyleStrategy {
    style: Style,
    rng: Rng,
}

impl StyleStrategy {
    /// A player of `style`; `seed` breaks ties.
    pub fn new(style: Style, seed: u64) -> StyleStrategy {
        StyleStrategy { style, rng: Rng::new(seed) }
    }

    /// Uniform among the cards of `among` with the least `key`.
    fn least<K: Ord + Copy>(&mut self, among: CardSet, key: impl Fn(Card) -> K) -> Option<Card> {
        let mut best: Option<K> = None;
        let mut ties = CardSet::EMPTY;
        for c in among {
            let k = key(c);
            if best.is_none_or(|b| k < b) {
                best = Some(k);
                ties = CardSet::single(c);
            } else if best == Some(k) {
                ties.insert(c);
            }
        }
        let n = ties.len();
        if n == 0 {
            return None;
        }
        ties.iter().nth(self.rng.below(n) as usize)
    }

    fn draw(&mut self, d: &Decision<'_>) -> Action {
        let Some(top) = d.pile_top().filter(|_| d.legal.draw_pile) else { return d.decline() };
        if melds_with(d.hand, top) {
            return Action::DrawPile;
        }
        if self.style == Style::EarlyKnocker && top.value() <= 3 {
            let now = deadwood(d.hand);
            let with = deadwood_after_best_discard(d.hand.with(top)).unwrap_or(now);
            if with + 5 <= now {
                return Action::DrawPile;
            }
        }
        d.decline()
    }

    fn discard(&mut self, d: &Decision<'_>) -> Action {
        if d.legal.big_gin {
            return Action::BigGin { melds: None };
        }
        let by = deadwood_by_discard(d.hand);
        let left = |c: Card| by[c.bit() as usize];
        if let Some(c) = self.least(d.legal.knocks, |c| (left(c), std::cmp::Reverse(c.value()))) {
            let k = left(c);
            let knock = match self.style {
                Style::GinHunter => k <= HUNTER_KNOCK || d.stock_len <= HUNTER_LATE_STOCK,
                Style::EarlyKnocker | Style::Defensive => true,
            };
            if knock {
                return Action::knock(c);
            }
        }
        let legal = d.legal.discards;
        let card = match self.style {
            Style::EarlyKnocker => self.least(legal, |c| (left(c), std::cmp::Reverse(c.value()))),
            Style::Defensive => {
                let wanted = wanted_by_opponent(d);
                let safe = if (legal - wanted).is_empty() { legal } else { legal - wanted };
                let discarded = near_mask(d.memory.opp_discards);
                self.least(safe, |c| (left(c), discarded & (1u64 << c.bit()) == 0))
            }
            Style::GinHunter => {
                let unseen: Vec<Card> = (!(d.memory.seen | d.hand | d.memory.opp_known)).iter().collect();
                let min = legal.iter().map(left).min().unwrap_or(0);
                // Deadwood left minus the mean gain of the next draw, in tenths of a point.
                self.least(legal, |c| {
                    if left(c) > min.saturating_add(10) {
                        return i64::MAX;
                    }
                    let rest = d.hand.without(c);
                    let gain: u32 = unseen
                        .iter()
                        .map(|&u| {
                            u32::from(left(c))
                                .saturating_sub(deadwood_after_best_discard(rest.with(u)).unwrap_or(0))
                        })
                        .sum();
                    let pot = i64::from(gain) * 10 / unseen.len().max(1) as i64;
                    i64::from(left(c)) * 10 - pot
                })
            }
        };
        Action::Discard { card: card.expect("a discard is always legal") }
    }
}

/// Cards sharing a possible meld with some card of `cards`: same rank, or same suit up to two
/// ranks away.
fn near_mask(cards: CardSet) -> u64 {
    cards.iter().fold(0, |m, c| {
        let b = u64::from(c.bit());
        let rank = b % 16;
        let lane = 0x1FFFu64 << (b - rank);
        m | (((0x0001_0001_0001_0001u64 << rank) | ((0x1Fu64 << b) >> 2 & lane)) & !(1u64 << b))
    })
}

/// The cards the opponent's pickups suggest it wants: the meld neighbours of every card it
/// took from the pile this hand.
pub fn wanted_by_opponent(d: &Decision<'_>) -> CardSet {
    let taken: CardSet = d
        .memory
        .opp_moves
        .iter()
        .filter_map(|m| match *m {
            Seen::DrewPile { card, .. } => Some(card),
            _ => None,
        })
        .collect();
    CardSet::from_bits(near_mask(taken))
}

impl Strategy for StyleStrategy {
    fn name(&self) -> &str {
        self.style.name()
    }

    fn act(&mut self, d: &Decision<'_>) -> Action {
        match d.choice() {
            Choice::Offer | Choice::Draw => self.draw(d),
            Choice::Discard => self.discard(d),
        }
    }
}
