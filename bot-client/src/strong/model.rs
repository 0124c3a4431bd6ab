//! The opponent model: which unseen cards the opponent likely holds, and sampled
//! determinizations (the opponent's hand and the stock's order) drawn from it.
//!
//! - Every card this seat has not seen is either in the opponent's hand or in the stock.
//!   Cards the opponent took from the pile and still holds are certain.
//! - Each unseen card gets a weight, 1 to start with. A pile card the opponent took makes
//!   its meld neighbours (same rank, same suit one or two ranks away) more likely; a card it
//!   discarded, or declined (passed the upcard, or drew from the stock rather than take the
//!   pile's top), makes its neighbours less likely: it would have kept or taken it if it
//!   joined something.
//! - The hidden part of the opponent's hand is drawn by weight without replacement. The
//!   opponent has been improving its hand since the deal, so a random hand would be far too
//!   weak: the sampler draws a few extra cards (as many as a fraction of the opponent's stock
//!   draws) and then throws away, one at a time, the card whose loss hurts the hand least,
//!   as a deadwood-minimizing player does. The rest of the unseen cards, shuffled, is the
//!   stock.

use engine::{Card, CardSet, deadwood_by_discard};

use crate::memory::Seen;
use crate::rng::Rng;
use crate::strategy::Decision;

/// Tunable weights of the model.
#[derive(Clone, Copy, Debug)]
pub struct ModelTuning {
    /// Factor for a neighbour of a card the opponent took and holds.
    pub pickup: f32,
    /// Factor for a neighbour of a card the opponent discarded.
    pub discard: f32,
    /// Factor for a neighbour of a card the opponent declined.
    pub decline: f32,
    /// Extra cards drawn (then thrown away) per opponent stock draw.
    pub extra_per_draw: f32,
    /// At most this many extra cards.
    pub extra_max: usize,
}

impl Default for ModelTuning {
    fn default() -> Self {
        ModelTuning { pickup: 3.0, discard: 0.6, decline: 0.7, extra_per_draw: 0.6, extra_max: 6 }
    }
}

/// What the opponent may hold.
#[derive(Clone, Debug)]
pub struct Model {
    /// Cards the opponent surely holds.
    pub known: u64,
    /// Unseen cards (the opponent's hidden cards and the stock).
    pool: [Card; 52],
    pool_n: usize,
    /// Weight of each pool card, indexed like `pool`.
    weight: [f32; 52],
    /// How many of the opponent's cards are hidden.
    pub hidden: usize,
    /// Extra cards drawn then thrown away by the sampler.
    pub extra: usize,
    /// Cards in the stock.
    pub stock_len: usize,
}

/// Cards that could form a meld with `c`: same rank, and same suit one or two ranks away
/// (split as (close, far): same rank and ±1, then ±2).
fn neighbours(c: Card) -> (u64, u64) {
    let b = c.bit() as u64;
    let rank = b % 16;
    let same_rank = 0x0001_0001_0001_0001u64 << rank;
    let lane = 0x1FFFu64 << (b - rank);
    let one = ((1u64 << b << 1) | (1u64 << b >> 1)) & lane;
    let two = ((1u64 << b << 2) | (1u64 << b >> 2)) & lane;
    ((same_rank | one) & !(1u64 << b), two)
}

impl Model {
    /// The model for the seat deciding `d`.
    pub fn new(d: &Decision<'_>, t: &ModelTuning) -> Model {
        let mem = d.memory;
        let seen = mem.seen | d.hand | mem.opp_known;
        let unseen = !seen;
        let mut factor = [1.0f32; 64];
        let mut mul = |mask: u64, f: f32| {
            let mut m = mask & unseen.bits();
            while m != 0 {
                factor[m.trailing_zeros() as usize] *= f;
                m &= m - 1;
            }
        };
        let mut stock_draws = 0u32;
        for ev in &mem.opp_moves {
            match *ev {
                Seen::DrewPile { card, .. } => {
                    let (close, far) = neighbours(card);
                    if mem.opp_known.contains(card) {
                        mul(close, t.pickup);
                        mul(far, t.pickup.sqrt());
                    } else {
                        mul(close, t.pickup.sqrt());
                    }
                }
                Seen::DrewStock { .. } => stock_draws += 1,
                _ => {}
            }
        }
        for c in mem.opp_discards {
            let (close, far) = neighbours(c);
            mul(close, t.discard);
            mul(far, t.discard.sqrt());
        }
        for c in mem.opp_declined - mem.opp_discards {
            let (close, far) = neighbours(c);
            mul(close, t.decline);
            mul(far, t.decline.sqrt());
        }
        let mut pool = [Card::from_bit(0).expect("a card"); 52];
        let mut weight = [0f32; 52];
        let mut pool_n = 0;
        for c in unseen {
            pool[pool_n] = c;
            weight[pool_n] = factor[c.bit() as usize];
            pool_n += 1;
        }
        let hidden = (10usize.saturating_sub(mem.opp_known.len() as usize)).min(pool_n);
        let extra =
            ((stock_draws as f32 * t.extra_per_draw).round() as usize).min(t.extra_max).min(pool_n - hidden);
        Model {
            known: mem.opp_known.bits(),
            pool,
            pool_n,
            weight,
            hidden,
            extra,
            stock_len: (d.stock_len as usize).min(pool_n - hidden),
        }
    }

    /// The unseen cards.
    pub fn unseen(&self) -> &[Card] {
        &self.pool[..self.pool_n]
    }

    /// Draws one determinization: the opponent's hand, and the stock in `stock[..n]`
    /// (drawn from its end). Returns (hand, n).
    pub fn sample(&self, rng: &mut Rng, stock: &mut [Card; 52]) -> (u64, usize) {
        let n = self.pool_n;
        let mut w = self.weight;
        let mut total: f32 = w[..n].iter().sum();
        let mut hidden = 0u64;
        for _ in 0..self.hidden + self.extra {
            let mut r = rng.unit() as f32 * total;
            let mut pick = n;
            for (i, &wi) in w[..n].iter().enumerate() {
                if wi > 0.0 {
                    pick = i;
                    if r < wi {
                        break;
                    }
                    r -= wi;
                }
            }
            if pick == n {
                break;
            }
            total -= w[pick];
            w[pick] = 0.0;
            hidden |= 1u64 << self.pool[pick].bit();
        }
        // Throw away the extras as a deadwood minimizer would.
        for _ in 0..self.extra {
            let table = deadwood_by_discard(CardSet::from_bits(self.known | hidden));
            let mut best = (u8::MAX, 0u32, 0u8);
            let mut m = hidden;
            while m != 0 {
                let b = m.trailing_zeros() as u8;
                m &= m - 1;
                let v = table[b as usize];
                let val = super::sim::value_of(b);
                if v < best.0 || (v == best.0 && val > best.1) {
                    best = (v, val, b);
                }
            }
            hidden &= !(1u64 << best.2);
        }
        let mut k = 0;
        for &c in &self.pool[..n] {
            if hidden & (1u64 << c.bit()) == 0 {
                stock[k] = c;
                k += 1;
            }
        }
        for i in (1..k).rev() {
            let j = rng.below(i as u32 + 1) as usize;
            stock.swap(i, j);
        }
        // The stock's bottom cards beyond its real size (if memory and view disagree) go.
        let len = k.min(self.stock_len);
        let off = k - len;
        if off > 0 {
            stock.copy_within(off..k, 0);
        }
        (self.known | hidden, len)
    }
}
