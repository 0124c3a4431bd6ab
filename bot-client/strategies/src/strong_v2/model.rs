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
    /// Log-likelihood cost per point of deadwood by which the opponent's last discard was
    /// worse than its best discard (in the sampled hand); 0 turns the check off.
    pub discard_fit: f32,
    /// How that cost fades for each earlier discard.
    pub fit_decay: f32,
    /// Proposals drawn per kept sample (importance resampling).
    pub oversample: usize,
    /// Log-likelihood cost for each card the opponent declined that would join a meld of
    /// the sampled hand.
    pub decline_fit: f32,
    /// Chance that an eager knocker (`patience.rs`) ends its turn with ten cards it could
    /// have knocked with. A sampled hand at or under the limit after the opponent's last
    /// discard is weighted by it (by 1 for a patient knocker; mixed by the chance that the
    /// opponent is one): against `simple` this took `strong` from 79.8% to 82.2% of games
    /// on 600 (seed 7), from 77.3% to 78.8% on 1,000 (seed 1, with the big gin change; docs/book/src/performance.md).
    pub eager_keeps: f32,
}

impl Default for ModelTuning {
    fn default() -> Self {
        ModelTuning {
            pickup: 3.0,
            discard: 0.6,
            decline: 0.7,
            extra_per_draw: 0.6,
            extra_max: 6,
            discard_fit: 10.0,
            fit_decay: 0.6,
            oversample: 6,
            decline_fit: 0.0,
            eager_keeps: 0.03,
        }
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
    /// Inverse weight of each pool card, indexed like `pool`.
    inv_weight: [f32; 52],
    /// How many of the opponent's cards are hidden.
    pub hidden: usize,
    /// Extra cards drawn then thrown away by the sampler.
    pub extra: usize,
    /// Cards in the stock.
    pub stock_len: usize,
    /// The opponent's last discards, most recent first, with the card it had just taken
    /// from the pile that turn (if any).
    recent: [(Card, Option<Card>); 4],
    n_recent: usize,
    fit: f32,
    decay: f32,
    declined: u64,
    decline_fit: f32,
    oversample: usize,
    /// This hand's knock limit.
    knock_limit: u32,
    /// Log-likelihood of a sampled hand the opponent could have knocked with at its last
    /// discard.
    knockable_ll: f32,
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
    /// The model for the seat deciding `d`, against an opponent that is a patient knocker
    /// with chance `patient`.
    pub fn new(d: &Decision<'_>, t: &ModelTuning, patient: f64) -> Model {
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
        let mut turns: Vec<(Card, Option<Card>)> = Vec::with_capacity(32);
        let mut taken = None;
        for ev in &mem.opp_moves {
            match *ev {
                Seen::Discarded { card, .. } => turns.push((card, taken.take())),
                Seen::DrewPile { card, .. } => {
                    taken = Some(card);
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
        let mut inv_weight = [0f32; 52];
        let mut pool_n = 0;
        for c in unseen {
            pool[pool_n] = c;
            inv_weight[pool_n] = 1.0 / factor[c.bit() as usize].max(1e-6);
            pool_n += 1;
        }
        let hidden = (10usize.saturating_sub(mem.opp_known.len() as usize)).min(pool_n);
        let extra =
            ((stock_draws as f32 * t.extra_per_draw).round() as usize).min(t.extra_max).min(pool_n - hidden);
        let mut recent = [(pool[0], None); 4];
        let mut n_recent = 0;
        for &t in turns.iter().rev().take(4) {
            recent[n_recent] = t;
            n_recent += 1;
        }
        let keeps = (1.0 - patient) * f64::from(t.eager_keeps.clamp(1e-6, 1.0)) + patient;
        Model {
            knock_limit: d.knock_limit,
            knockable_ll: keeps.ln() as f32,
            recent,
            n_recent,
            fit: t.discard_fit,
            declined: (mem.opp_declined - mem.opp_known).bits(),
            decline_fit: t.decline_fit,
            decay: t.fit_decay,
            oversample: t.oversample.max(1),
            known: mem.opp_known.bits(),
            pool,
            pool_n,
            inv_weight,
            hidden,
            extra,
            stock_len: (d.stock_len as usize).min(pool_n - hidden),
        }
    }

    /// The unseen cards.
    pub fn unseen(&self) -> &[Card] {
        &self.pool[..self.pool_n]
    }

    /// How well the opponent's hand `h` explains its last discards, as a log-likelihood
    /// (0 is best): a deadwood minimizer throws away the card whose loss hurts least.
    fn log_like(&self, h: u64) -> f32 {
        let mut ll = 0.0;
        let mut cost = self.fit;
        for (i, &(x, taken)) in self.recent[..self.n_recent].iter().enumerate() {
            let h11 = h | 1u64 << x.bit();
            let table = deadwood_by_discard(CardSet::from_bits(h11));
            // The hand it kept after its last discard: had it been at or under the limit,
            // an eager knocker would have knocked instead.
            if i == 0 && u32::from(table[x.bit() as usize]) <= self.knock_limit {
                ll += self.knockable_ll;
            }
            let mut allowed = h11;
            if let Some(t) = taken {
                allowed &= !(1u64 << t.bit());
            }
            let mut min = u8::MAX;
            let mut m = allowed;
            while m != 0 {
                min = min.min(table[m.trailing_zeros() as usize]);
                m &= m - 1;
            }
            ll -= cost * f32::from(table[x.bit() as usize].saturating_sub(min));
            if ll < -16.0 {
                // Already negligible next to any consistent sample.
                return ll;
            }
            cost *= self.decay;
        }
        if self.decline_fit > 0.0 {
            let mut m = self.declined;
            while m != 0 {
                let y = m.trailing_zeros() as u8;
                m &= m - 1;
                if super::sim::melds_with(h, y) {
                    ll -= self.decline_fit;
                }
            }
        }
        ll
    }

    /// `n` opponent hands: proposals from the weighted, improved sampler, resampled by how
    /// well they explain the opponent's recent discards.
    pub fn hands(&self, rng: &mut Rng, n: usize) -> Vec<u64> {
        let informed =
            (self.fit > 0.0 && self.n_recent > 0) || (self.decline_fit > 0.0 && self.declined != 0);
        if !informed || self.oversample <= 1 {
            return (0..n).map(|_| self.propose(rng)).collect();
        }
        let m = n * self.oversample;
        let mut props = Vec::with_capacity(m);
        let mut w = Vec::with_capacity(m);
        for _ in 0..m {
            let h = self.propose(rng);
            props.push(h);
            w.push(self.log_like(h).exp());
        }
        let total: f32 = w.iter().sum();
        if total <= 0.0 {
            props.truncate(n);
            return props;
        }
        // Systematic resampling.
        let step = total / n as f32;
        let mut u = rng.unit() as f32 * step;
        let mut out = Vec::with_capacity(n);
        let mut acc = 0.0;
        for (i, &wi) in w.iter().enumerate() {
            acc += wi;
            while u < acc && out.len() < n {
                out.push(props[i]);
                u += step;
            }
        }
        while out.len() < n {
            out.push(props[m - 1]);
        }
        out
    }

    /// One proposal for the opponent's hand.
    fn propose(&self, rng: &mut Rng) -> u64 {
        // Weighted sampling without replacement (Efraimidis–Spirakis): the k cards with the
        // smallest exponential keys E/w.
        let n = self.pool_n;
        let k = (self.hidden + self.extra).min(n);
        let mut keys = [(0f32, 0u8); 52];
        for (i, slot) in keys[..n].iter_mut().enumerate() {
            let u = (1.0 - rng.unit()) as f32;
            *slot = (-u.ln() * self.inv_weight[i], self.pool[i].bit());
        }
        if k < n && k > 0 {
            keys[..n].select_nth_unstable_by(k - 1, |a, b| a.0.total_cmp(&b.0));
        }
        let mut hidden = 0u64;
        for &(_, b) in &keys[..k] {
            hidden |= 1u64 << b;
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
        self.known | hidden
    }

    /// The stock for the opponent hand `opp`: the other unseen cards, shuffled, in
    /// `stock[..n]` (drawn from its end). Returns n.
    pub fn stock_for(&self, opp: u64, rng: &mut Rng, stock: &mut [Card; 52]) -> usize {
        let n = self.pool_n;
        let hidden = opp;
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
        len
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::{Memory, Seen};
    use engine::{BySeat, Legal, RuleSet, Seat, card, hand};

    #[test]
    fn an_eager_knocker_is_seldom_sampled_holding_cards_it_could_have_knocked_with() {
        let rules = RuleSet::standard();
        let mine = hand("AC 2C 3C 4D 5D 6D 7H 8H 9H KS");
        let mut m = Memory::new(Seat::S0);
        m.new_hand(0, mine, card("QD"));
        // Six turns each: this seat throws back the card it drew; the opponent draws from the
        // stock and throws a high card away.
        let ours = ["QS", "JS", "TS", "9S", "8S", "7S"];
        let theirs = ["KH", "QC", "JD", "KD", "QH", "JC"];
        for (o, t) in ours.iter().zip(theirs) {
            m.observe(Seen::DrewStock { seat: Seat::S0, card: Some(card(o)) });
            m.observe(Seen::Discarded { seat: Seat::S0, card: card(o) });
            m.observe(Seen::DrewStock { seat: Seat::S1, card: None });
            m.observe(Seen::Discarded { seat: Seat::S1, card: card(t) });
        }
        let pile: Vec<Card> = m.pile.clone();
        let d = Decision {
            seat: Seat::S0,
            rules: &rules,
            hand: mine,
            pile: &pile,
            stock_len: 19,
            taken: None,
            knock_limit: 10,
            legal: Legal { seat: Some(Seat::S0), draw_stock: true, draw_pile: true, ..Legal::default() },
            scores: BySeat::new(0, 0),
            memory: &m,
        };
        let t = ModelTuning::default();
        let knockable = |patient: f64| {
            let model = Model::new(&d, &t, patient);
            let hands = model.hands(&mut Rng::new(3), 400);
            assert!(
                hands
                    .iter()
                    .all(|&h| h & (mine.bits() | CardSet::from_iter(pile.iter().copied()).bits()) == 0)
            );
            hands.iter().filter(|&&h| engine::deadwood(CardSet::from_bits(h)) <= 10).count()
        };
        // Against a patient knocker, hands it could knock with are as likely as the sampler
        // makes them; against an eager one, which would have knocked, far rarer.
        let (patient, eager) = (knockable(1.0), knockable(0.0));
        assert!(patient >= 40, "{patient} of 400");
        assert!(eager * 4 < patient, "eager {eager}, patient {patient} of 400");
        // Half and half lies in between.
        let half = knockable(0.5);
        assert!(eager < half && half < patient, "{eager} < {half} < {patient}");
    }
}
