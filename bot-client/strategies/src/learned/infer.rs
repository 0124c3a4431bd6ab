//! A hand-inference network (issue 40, step four): which unseen cards the opponent holds,
//! learnt from the true hands of played games, as one probability per card.
//!
//! What it sees is the seat's information state only, laid out in planes of 64 slots as
//! [`features`](super::features) does, but chosen for the opponent's side of the table:
//!
//! | plane | holds |
//! |---|---|
//! | 0 | the unseen cards (the opponent's hidden cards are among them) |
//! | 1 | cards the opponent surely holds (taken from the pile, not thrown since) |
//! | 2 | the opponent's discards this hand |
//! | 3 | the same, 0.7 to the power of how many of its turns ago |
//! | 4 | cards it declined (passed, or left on the pile for the stock) |
//! | 5 | the upcard it passed, by age |
//! | 6 | every card it took from the pile this hand |
//! | 7 | the card it threw in a turn it took from the pile |
//! | 8 | this seat's discards |
//! | 9 | the pile's top |
//! | 10 | scalars ([`SCALARS`]) |

use engine::{Card, CardSet, Seat};

use super::features::PLANE;
use super::net::{Acts, Net, Trainer};
use crate::Seen;
use crate::strategy::{Choice, Decision, Strategy};

/// Number of inputs.
pub const INPUTS: usize = 11 * PLANE;
/// The scalar plane's slots: the opponent's hidden cards / 10, its stock draws / 15, its
/// pile draws / 5, stock left / 32, knock limit / 10, is a discard decision, gin bonus /
/// 25, a constant 1.
pub const SCALARS: usize = 8;
/// How fast an event's weight in planes 3 and 5 fades, per opponent turn.
const FADE: f32 = 0.7;

/// The unseen cards at `d` (the opponent's hidden cards and the stock), as card bits.
pub fn unseen(d: &Decision<'_>) -> u64 {
    let m = d.memory;
    CardSet::FULL.bits() & !(m.seen | d.hand | m.opp_known).bits()
}

/// How many of the opponent's cards are hidden at `d`.
pub fn hidden_count(d: &Decision<'_>) -> usize {
    10usize.saturating_sub(d.memory.opp_known.len() as usize).min(unseen(d).count_ones() as usize)
}

/// The inputs of decision `d`, appended to `out` (cleared first).
pub fn encode(d: &Decision<'_>, out: &mut Vec<(u16, f32)>) {
    out.clear();
    let m = d.memory;
    let mut put = |p: usize, c: Card, v: f32| out.push(((p * PLANE + c.bit() as usize) as u16, v));
    let pool = unseen(d);
    for c in CardSet::from_bits(pool) {
        put(0, c, 1.0);
    }
    for c in m.opp_known {
        put(1, c, 1.0);
    }
    let turns = m.opp_moves.iter().filter(|e| matches!(e, Seen::Discarded { .. })).count();
    let (mut turn, mut stock_draws, mut pile_draws) = (0usize, 0u32, 0u32);
    let mut took = None;
    for ev in &m.opp_moves {
        let age = turns.saturating_sub(turn) as i32;
        match *ev {
            Seen::Discarded { card, .. } => {
                put(2, card, 1.0);
                put(3, card, FADE.powi(age - 1));
                if took.take().is_some() {
                    put(7, card, 1.0);
                }
                turn += 1;
            }
            Seen::Passed { card, .. } => put(5, card, FADE.powi(age)),
            Seen::DrewStock { .. } => stock_draws += 1,
            Seen::DrewPile { card, .. } => {
                pile_draws += 1;
                took = Some(card);
                put(6, card, 1.0);
            }
        }
    }
    for c in m.opp_declined - m.opp_discards {
        put(4, c, 1.0);
    }
    for c in m.own_discards {
        put(8, c, 1.0);
    }
    if let Some(t) = d.pile_top() {
        put(9, t, 1.0);
    }
    let base = 10 * PLANE;
    let s = [
        hidden_count(d) as f32 / 10.0,
        stock_draws as f32 / 15.0,
        pile_draws as f32 / 5.0,
        d.stock_len as f32 / 32.0,
        d.knock_limit as f32 / 10.0,
        f32::from(u8::from(d.choice() == Choice::Discard)),
        d.rules.gin_bonus as f32 / 25.0,
        1.0,
    ];
    for (i, v) in s.into_iter().enumerate() {
        if v != 0.0 {
            out.push(((base + i) as u16, v));
        }
    }
}

/// One decision's inputs with the truth: the opponent's hidden cards then.
#[derive(Clone, Debug)]
pub struct HandSample {
    /// The inputs.
    pub x: Vec<(u16, f32)>,
    /// The unseen cards (the cards the loss is taken over), as bits.
    pub pool: u64,
    /// The opponent's hidden cards, as bits (a subset of `pool`).
    pub hidden: u64,
    /// The marginals of `strong`'s opponent model at this decision, when probed.
    pub model: Option<Box<[f32; 64]>>,
}

/// The per-card probabilities from the network's outputs (logits) over `pool`, scaled so
/// that they sum to `n` (the opponent's hidden cards), none above 0.999.
pub fn probabilities(out: &[f32], pool: u64, n: usize, p: &mut [f32; 64]) {
    *p = [0.0; 64];
    let mut m = pool;
    while m != 0 {
        let b = m.trailing_zeros() as usize;
        m &= m - 1;
        p[b] = 1.0 / (1.0 + (-out[b]).exp());
    }
    let total: f32 = p.iter().sum();
    if total > 0.0 {
        let k = n as f32 / total;
        for v in p.iter_mut() {
            *v = (*v * k).min(0.999);
        }
    }
}

/// Log loss and hit figures over samples.
#[derive(Clone, Copy, Debug, Default)]
pub struct InferEval {
    /// Samples.
    pub n: u64,
    /// Summed binary log loss over the pool cards (nats).
    pub loss: f64,
    /// The same for the uniform guess (each pool card hidden/pool).
    pub uniform: f64,
    /// Summed true hidden cards among the top `hidden` by probability.
    pub top_hits: f64,
    /// Summed hidden cards.
    pub hidden: f64,
    /// Summed expected hits of a uniform draw.
    pub uniform_hits: f64,
    /// Summed expected hits of a hand drawn with these marginals (Σ p over the true cards).
    pub drawn_hits: f64,
}

impl InferEval {
    /// Adds one sample's figures, `p` its per-card probabilities.
    pub fn add(&mut self, s: &HandSample, p: &[f32; 64]) {
        let n = s.hidden.count_ones() as f64;
        let pool_n = s.pool.count_ones() as f64;
        let q = (n / pool_n).clamp(1e-6, 1.0 - 1e-6);
        let mut order: Vec<(f32, usize)> = Vec::with_capacity(52);
        let mut m = s.pool;
        while m != 0 {
            let b = m.trailing_zeros() as usize;
            m &= m - 1;
            let y = s.hidden >> b & 1 == 1;
            let pb = f64::from(p[b]).clamp(1e-6, 1.0 - 1e-6);
            self.loss -= if y { pb.ln() } else { (1.0 - pb).ln() };
            if y {
                self.drawn_hits += f64::from(p[b]);
            }
            self.uniform -= if y { q.ln() } else { (1.0 - q).ln() };
            order.push((p[b], b));
        }
        order.sort_by(|a, b| b.0.total_cmp(&a.0));
        let hits = order.iter().take(n as usize).filter(|&&(_, b)| s.hidden >> b & 1 == 1).count();
        self.n += 1;
        self.top_hits += hits as f64;
        self.hidden += n;
        self.uniform_hits += n * n / pool_n;
    }
}

impl std::fmt::Display for InferEval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let k = self.n.max(1) as f64;
        write!(
            f,
            "{} samples: log loss {:.4} of uniform; a drawn hand holds {:.2}, the top picks {:.2} of {:.2} hidden cards (uniform {:.2})",
            self.n,
            self.loss / self.uniform.max(1e-9),
            self.drawn_hits / k,
            self.top_hits / k,
            self.hidden / k,
            self.uniform_hits / k
        )
    }
}

/// Records, at each decision of the strategy it wraps, its inputs and the opponent's true
/// hidden cards (read from `truth`, which the game loop keeps up to date).
struct Probe<'a> {
    inner: &'a mut dyn Strategy,
    model_samples: usize,
    truth: &'a std::sync::atomic::AtomicU64,
    out: Vec<HandSample>,
}

impl Strategy for Probe<'_> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn act(&mut self, d: &Decision<'_>) -> engine::Action {
        let pool = unseen(d);
        let hidden = self.truth.load(std::sync::atomic::Ordering::Relaxed) & pool;
        if hidden != 0 {
            let mut x = Vec::new();
            encode(d, &mut x);
            let model = (self.model_samples > 0).then(|| {
                let n = self.model_samples;
                let hands = crate::strong::model_hands(d, 0.5, n, self.out.len() as u64);
                let mut p = [0f32; 64];
                for h in hands {
                    let mut m = h & pool;
                    while m != 0 {
                        p[m.trailing_zeros() as usize] += 1.0;
                        m &= m - 1;
                    }
                }
                let mut m = pool;
                while m != 0 {
                    let b = m.trailing_zeros() as usize;
                    m &= m - 1;
                    p[b] = (p[b] + 0.5) / (n as f32 + 1.0);
                }
                Box::new(p)
            });
            self.out.push(HandSample { x, pool, hidden, model });
        }
        self.inner.act(d)
    }
}

/// Plays game `i` of a set seeded by `seed`: `observer` (a strategy's name) against
/// `opponent`, seats alternating with `i`, and returns the observer's decisions with the
/// opponent's hidden cards at each (and, with `model_samples` > 0, the marginals of that
/// many hands drawn by `strong`'s opponent model).
pub fn probe_game(
    observer: &str,
    opponent: &str,
    rules: &engine::RuleSet,
    seed: u64,
    i: u64,
    model_samples: usize,
) -> Vec<HandSample> {
    use crate::rng::derive;
    let mut a = crate::strategy::by_name(observer, derive(seed, 3 * i)).expect("a known strategy");
    let mut b = crate::strategy::by_name(opponent, derive(seed, 3 * i + 1)).expect("a known strategy");
    let truth = std::sync::atomic::AtomicU64::new(0);
    let mut probe = Probe { inner: a.as_mut(), model_samples, truth: &truth, out: Vec::new() };
    let seat = if i.is_multiple_of(2) { Seat::S0 } else { Seat::S1 };
    let setup = engine::GameSetup::new(rules.clone(), derive(seed, 3 * i + 2));
    let mut game = engine::Game::new(setup).expect("valid rules");
    let players: [&mut dyn Strategy; 2] =
        if seat == Seat::S0 { [&mut probe, b.as_mut()] } else { [b.as_mut(), &mut probe] };
    crate::local::play_on_watched(&mut game, players, &mut |g| {
        truth.store(g.hand().cards(seat.other()).bits(), std::sync::atomic::Ordering::Relaxed);
    })
    .expect("legal play");
    probe.out
}

/// Trains a hand-inference network of hidden sizes `hidden` on `train` for `epochs`
/// (Adam, batches of 128, learning rate `lr` decayed linearly to a tenth), reporting the
/// figures on `valid` after each epoch.
pub fn train(
    train: &[HandSample],
    valid: &[HandSample],
    hidden: [usize; 2],
    epochs: usize,
    lr: f32,
    seed: u64,
    report: &mut dyn FnMut(usize, &InferEval),
) -> Net {
    let mut net = Net::new([INPUTS, hidden[0], hidden[1], 64], seed);
    let mut tr = Trainer::new(&net, lr);
    let mut rng = crate::rng::Rng::new(crate::rng::derive(seed, 0x1F3));
    let mut order: Vec<usize> = (0..train.len()).collect();
    let mut acts = Acts::default();
    let batch = 128;
    let total = (epochs * train.len().div_ceil(batch)).max(1);
    let mut steps = 0;
    for epoch in 0..epochs {
        for i in (1..order.len()).rev() {
            let j = rng.below(i as u32 + 1) as usize;
            order.swap(i, j);
        }
        for chunk in order.chunks(batch) {
            for &k in chunk {
                let s = &train[k];
                net.forward(&s.x, &mut acts);
                let mut d = [0f32; 64];
                let mut m = s.pool;
                while m != 0 {
                    let b = m.trailing_zeros() as usize;
                    m &= m - 1;
                    let p = 1.0 / (1.0 + (-acts.out[b]).exp());
                    d[b] = p - f32::from(u8::from(s.hidden >> b & 1 == 1));
                }
                tr.backward(&net, &s.x, &acts, &d);
            }
            tr.lr = lr * (1.0 - 0.9 * steps as f32 / total as f32);
            tr.step(&mut net, chunk.len());
            steps += 1;
        }
        report(epoch, &evaluate(&net, valid));
    }
    net
}

/// The network's figures on `samples`.
pub fn evaluate(net: &Net, samples: &[HandSample]) -> InferEval {
    let mut e = InferEval::default();
    let mut acts = Acts::default();
    let mut p = [0f32; 64];
    for s in samples {
        net.forward(&s.x, &mut acts);
        probabilities(&acts.out, s.pool, s.hidden.count_ones() as usize, &mut p);
        e.add(s, &p);
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_probe_records_the_opponents_hidden_cards_among_the_unseen_and_the_models_marginals() {
        let rules = engine::RuleSet::standard();
        let samples = probe_game("simple", "simple", &rules, 5, 1, 40);
        assert!(samples.len() > 20, "{} decisions", samples.len());
        for s in &samples {
            let n = s.hidden.count_ones();
            assert!(s.hidden & !s.pool == 0, "a hidden card outside the unseen ones");
            assert!((1..=10).contains(&n), "{n} hidden cards");
            assert!(s.x.iter().all(|&(i, _)| (i as usize) < INPUTS));
            // Plane 0 is the pool, card for card.
            let plane0: u64 = s.x.iter().filter(|e| (e.0 as usize) < PLANE).fold(0, |a, e| a | 1 << e.0);
            assert_eq!(plane0, s.pool);
            let m = s.model.as_ref().expect("probed");
            let total: f32 = m.iter().sum();
            assert!(m.iter().enumerate().all(|(b, &p)| p == 0.0 || s.pool >> b & 1 == 1));
            // Each of 40 sampled hands holds n of the pool's cards; smoothing adds a little.
            let smoothing = 0.5 * s.pool.count_ones() as f32 / 41.0;
            assert!((total - (n as f32 * 40.0 / 41.0 + smoothing)).abs() < 1e-3, "{total} for {n}");
        }
    }

    #[test]
    fn a_network_trained_on_true_hands_names_them_better_than_a_uniform_guess() {
        let rules = engine::RuleSet::standard();
        let train_set: Vec<HandSample> =
            (0..800).flat_map(|i| probe_game("simple", "simple", &rules, 2, i, 0)).collect();
        let valid: Vec<HandSample> =
            (800..860).flat_map(|i| probe_game("simple", "simple", &rules, 2, i, 0)).collect();
        let net = train(&train_set, &valid, [64, 32], 3, 2e-3, 1, &mut |_, _| {});
        let e = evaluate(&net, &valid);
        assert!(e.loss < 0.97 * e.uniform, "{e}");
        assert!(e.top_hits > 1.15 * e.uniform_hits, "{e}");
    }
}
