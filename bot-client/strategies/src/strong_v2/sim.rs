//! Fast rollouts of the rest of a hand from a determinized state (both hands and the stock
//! order fixed), both seats playing the baseline policy: take the pile's top only when it
//! joins a meld, discard the card that leaves the least deadwood, knock with at most
//! [`Params::knock_at`] deadwood (gin always; once the stock is down to [`Params::late`]
//! cards, as soon as allowed). Rollouts that knock as soon as allowed, as the baseline does,
//! undervalue waiting: a patient player meets a patient opponent.
//!
//! The state is a few words and arrays of card bits: a rollout allocates nothing and costs a
//! few solver calls per turn (about a microsecond per hand on one core).

use engine::{Card, CardSet, deadwood, deadwood_by_discard};

use super::melds::{best_melds, defender_deadwood};

/// The seat that decides (index into [`Sim::hands`]).
pub const US: usize = 0;
/// Its opponent.
pub const OPP: usize = 1;

/// A rollout that has not ended after this many turns is scored as a dead hand.
const MAX_TURNS: u32 = 200;

/// The scoring rules a rollout needs.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// The knock limit of this hand.
    pub knock_limit: u32,
    /// Gin bonus.
    pub gin_bonus: u32,
    /// Undercut bonus.
    pub undercut_bonus: u32,
    /// Big gin bonus, when the rules have big gin.
    pub big_gin: Option<u32>,
    /// Per seat ([`US`], [`OPP`]): the policy knocks only with this much deadwood or less
    /// (the limit: as soon as allowed)...
    pub knock_at: [u32; 2],
    /// ...until the stock is down to this many cards; then as soon as allowed.
    pub late: usize,
}

impl Params {
    /// The parameters of the hand in play.
    pub fn new(rules: &engine::RuleSet, knock_limit: u32) -> Params {
        Params {
            knock_limit,
            gin_bonus: rules.gin_bonus,
            undercut_bonus: rules.undercut_bonus,
            big_gin: rules.big_gin.then_some(rules.big_gin_bonus),
            knock_at: [knock_limit; 2],
            late: 0,
        }
    }
}

/// A determinized hand in play.
#[derive(Clone, Copy, Debug)]
pub struct Sim {
    /// Both hands as masks ([`US`], [`OPP`]).
    pub hands: [u64; 2],
    stock: [u8; 52],
    stock_len: usize,
    pile: [u8; 52],
    pile_len: usize,
    /// The next draw must be from the stock (both players passed the upcard).
    pub stock_only: bool,
    /// Each 10-card hand's deadwood when known (`u8::MAX` when not).
    dw: [u8; 2],
}

/// Cards that could share a meld with the card of bit `c`: same rank, and same suit up to
/// two ranks away.
#[inline]
pub fn near(c: u8) -> u64 {
    let rank = u64::from(c % 16);
    let lane = 0x1FFFu64 << (u64::from(c) - rank);
    ((0x0001_0001_0001_0001u64 << rank) | ((0x1Fu64 << c) >> 2 & lane)) & !(1u64 << c)
}

/// True when `c` joins a meld of the best arrangement of `h` + `c`.
#[inline]
pub fn melds_with(h: u64, c: u8) -> bool {
    if near(c) & h == 0 {
        return false;
    }
    let hs = CardSet::from_bits(h);
    deadwood(CardSet::from_bits(h | 1 << c)) < deadwood(hs) + value_of(c)
}

/// Deadwood value of the card with bit `b`.
#[inline]
pub fn value_of(b: u8) -> u32 {
    ((b % 16) as u32 + 1).min(10)
}

impl Sim {
    /// A state: `hands`, the stock (drawn from its end), the pile (top last).
    pub fn new(hands: [u64; 2], stock: &[Card], pile: &[Card]) -> Sim {
        let mut s = Sim {
            hands,
            stock: [0; 52],
            stock_len: stock.len().min(52),
            pile: [0; 52],
            pile_len: pile.len().min(52),
            stock_only: false,
            dw: [u8::MAX; 2],
        };
        for (i, c) in stock.iter().take(52).enumerate() {
            s.stock[i] = c.bit();
        }
        for (i, c) in pile.iter().take(52).enumerate() {
            s.pile[i] = c.bit();
        }
        s
    }

    /// The pile's top.
    pub fn pile_top(&self) -> Option<u8> {
        self.pile_len.checked_sub(1).map(|i| self.pile[i])
    }

    /// Seat `p` takes the pile's top.
    pub fn take_pile(&mut self, p: usize) -> u8 {
        self.pile_len -= 1;
        let c = self.pile[self.pile_len];
        self.hands[p] |= 1 << c;
        self.dw[p] = u8::MAX;
        c
    }

    /// Seat `p` draws from the stock; `false` when the stock is empty.
    pub fn draw_stock(&mut self, p: usize) -> bool {
        if self.stock_len == 0 {
            return false;
        }
        self.stock_len -= 1;
        self.hands[p] |= 1 << self.stock[self.stock_len];
        self.dw[p] = u8::MAX;
        self.stock_only = false;
        true
    }

    /// Seat `p` discards `c` face up; `true` when that ends the hand dead.
    pub fn discard(&mut self, p: usize, c: u8) -> bool {
        self.hands[p] &= !(1 << c);
        self.dw[p] = u8::MAX;
        self.pile[self.pile_len] = c;
        self.pile_len += 1;
        self.stock_len <= 2
    }

    /// The baseline draw for seat `p`: the pile's top if it joins a meld, else the stock.
    /// Returns the card taken from the pile, or `Err` when the stock is empty.
    #[inline]
    pub fn policy_draw(&mut self, p: usize) -> Result<Option<u8>, ()> {
        if !self.stock_only
            && let Some(top) = self.pile_top()
            && near(top) & self.hands[p] != 0
        {
            let h = self.hands[p];
            if self.dw[p] == u8::MAX {
                self.dw[p] = deadwood(CardSet::from_bits(h)) as u8;
            }
            if deadwood(CardSet::from_bits(h | 1 << top)) < u32::from(self.dw[p]) + value_of(top) {
                return Ok(Some(self.take_pile(p)));
            }
        }
        if self.draw_stock(p) { Ok(None) } else { Err(()) }
    }

    /// The baseline end of turn for seat `p` holding 11 cards (`taken`: the card it may not
    /// discard). Returns the hand's result for [`US`] when the hand ends.
    #[inline]
    pub fn policy_discard(&mut self, p: usize, taken: Option<u8>, pr: &Params) -> Option<i32> {
        let h = self.hands[p];
        let table = deadwood_by_discard(CardSet::from_bits(h));
        let mut allowed = h;
        if let Some(t) = taken {
            allowed &= !(1u64 << t);
        }
        let mut best = u8::MAX;
        let mut best_c = 0u8;
        let mut a = allowed;
        while a != 0 {
            let b = a.trailing_zeros() as u8;
            a &= a - 1;
            let v = table[b as usize];
            if v < best || (v == best && value_of(b) > value_of(best_c)) {
                best = v;
                best_c = b;
            }
        }
        if best == 0
            && let Some(bonus) = pr.big_gin
            && deadwood(CardSet::from_bits(h)) == 0
        {
            let pts = (deadwood(CardSet::from_bits(self.hands[p ^ 1])) + bonus) as i32;
            return Some(if p == US { pts } else { -pts });
        }
        if u32::from(best) <= pr.knock_limit
            && (u32::from(best) <= pr.knock_at[p] || self.stock_len <= pr.late)
        {
            return Some(self.showdown(p, h & !(1u64 << best_c), u32::from(best), pr));
        }
        let dead = self.discard(p, best_c);
        self.dw[p] = best;
        if dead { Some(0) } else { None }
    }

    /// The result for [`US`] when seat `p` knocks keeping the cards `kept`, of deadwood `k`.
    pub fn showdown(&self, p: usize, kept: u64, k: u32, pr: &Params) -> i32 {
        let def = self.hands[p ^ 1];
        let (knocker_wins, pts) = if k == 0 {
            (true, deadwood(CardSet::from_bits(def)) + pr.gin_bonus)
        } else {
            let ms = best_melds(kept, k);
            let d = defender_deadwood(def, ms.as_slice());
            if k < d { (true, d - k) } else { (false, k - d + pr.undercut_bonus) }
        };
        let pts = pts as i32;
        if knocker_wins == (p == US) { pts } else { -pts }
    }

    /// Plays the hand out from seat `p`'s draw; the result for [`US`].
    pub fn run(&mut self, mut p: usize, pr: &Params) -> i32 {
        // A hand of pile draws only (each seat taking the other's discard back) could go round
        // for ever: past this many turns the rollout counts as a dead hand.
        for _ in 0..MAX_TURNS {
            let Ok(taken) = self.policy_draw(p) else { return 0 };
            if let Some(r) = self.policy_discard(p, taken, pr) {
                return r;
            }
            p ^= 1;
        }
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{RuleSet, card, hand};

    #[test]
    fn knocks_and_scores_like_the_engine() {
        let pr = Params::new(&RuleSet::standard(), 10);
        // US draws 4C and discards KC: gin. OPP holds 65 deadwood in no meld.
        let us = hand("AC 2C 3C 4D 5D 6D 7H 8H 9H KC").bits();
        let opp = hand("2S 4S 6S 8S KD QD JH 3H 5C 7C").bits();
        let mut s = Sim::new([us, opp], &[card("KS"), card("4C")], &[card("QS")]);
        assert_eq!(s.run(US, &pr), 65 + 25);
        // OPP to play instead: it draws 4C and cannot knock; its discard leaves one card in
        // the stock: a dead hand.
        let mut s = Sim::new([us, opp], &[card("KS"), card("4C")], &[card("QS")]);
        assert_eq!(s.run(OPP, &pr), 0);
        assert!(melds_with(us, card("4C").bit()));
        assert!(!melds_with(us, card("KS").bit()));

        // US draws KC and throws it back, keeping 5 deadwood: by default it knocks at once;
        // knocking only at 3 or less it waits (four cards left in the stock), unless the
        // stock counts as low at four.
        let us = hand("AC 2C 3C 4D 5D 6D 7H 8H 9H 5S").bits();
        let stock = [card("KH"), card("KS"), card("2D"), card("QH"), card("KC")];
        let turn = |knock_at: u32, late: usize| {
            let pr = Params { knock_at: [knock_at, 10], late, ..pr };
            let mut s = Sim::new([us, opp], &stock, &[card("QS")]);
            assert_eq!(s.policy_draw(US), Ok(None));
            s.policy_discard(US, None, &pr)
        };
        assert_eq!(turn(10, 0), Some(65 - 5));
        assert_eq!(turn(3, 0), None);
        assert_eq!(turn(3, 4), Some(65 - 5));
    }
}
