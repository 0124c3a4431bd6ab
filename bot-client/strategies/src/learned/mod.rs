//! `learned`: a policy network distilled from `strong`'s decisions (issue 40, first step of
//! expert iteration: the apprentice).
//!
//! # The idea
//!
//! `strong` (determinized Monte Carlo) plays games; at each of its decisions the seat's
//! information state is encoded ([`features`]) and `strong`'s choice recorded, with the
//! hand's final result for that seat. A small MLP ([`net`]: 704 inputs, two hidden layers,
//! 67 outputs) learns, by Adam on the cross-entropy of those choices:
//!
//! - outputs 0–63: the discard (a logit per card bit, softmax over the legal discards);
//! - output 64: take the pile's top (logistic), at draws and offers;
//! - output 65: knock rather than discard (logistic), when a knock short of gin is legal;
//! - output 66: the hand's result for the seat to act (points / 100, squared error): a value
//!   head, trained alongside, unused by the player (for the search of a later step).
//!
//! The player: big gin and gin always (as `strong`); otherwise the network's choice among
//! the legal actions (a knock when its logit passes [`KNOCK_LOGIT`]), never taking back its own discard but for gin (as `strong`: two
//! players who retake each other's discards can pass the same cards round for ever). One
//! forward pass per decision: a few tens of microseconds.
//!
//! Then self-play (the step after distillation): [`explore_game`] plays the network drawing
//! its choices from its own distribution against `simple` and its greedy self, and
//! [`reinforce`] makes each choice likelier as its hand's result beat the value head's
//! prediction (REINFORCE, the value head as the baseline).
//!
//! The parameters are in `data/learned.bin` (embedded), made in two commands (seed 1): the
//! distillation (480 games of `strong` under each of the competition and standard rules,
//! `cargo run --release -p gin-strategies --example train_learned -- --seed 1 --games 480
//! --threads 1 --epochs 8 --out /tmp/distilled.bin`), then the self-play fine-tuning
//! (`--example finetune_learned -- --params /tmp/distilled.bin --steps 2400 --games 64
//! --every 100 --pairs 300 --lr 6e-5 --seed 1 --out bot-client/strategies/data/learned.bin`);
//! their docs say more.

pub mod features;
pub mod infer;
pub mod net;

use std::sync::OnceLock;

use engine::{Action, Card, GameSetup, Seat};

use crate::local::play_game;
use crate::strategy::{Choice, Decision, Strategy, by_name};
use net::{Acts, Net, Trainer};

/// Output of the take-the-pile logit.
pub const OUT_TAKE: usize = 64;
/// Output of the knock logit.
pub const OUT_KNOCK: usize = 65;
/// Output of the value.
pub const OUT_VALUE: usize = 66;
/// Number of outputs.
pub const OUTPUTS: usize = 67;

/// The player knocks (short of gin) when the knock logit is above this: a probability
/// over 0.27 rather than 0.5. `strong` declined 9 in 10 of the knocks it could make, and the
/// network trained on that knocks too seldom; against `simple` (competition rules, 1,000
/// duplicate pairs, seed 3: not the seed measured) -1 won 63.8% of games, -0.5 62.8%,
/// -1.5 62.5%, 0 61.5%, +1 60.4% (each ± about 1.5%).
pub const KNOCK_LOGIT: f32 = -1.0;

/// The embedded parameters.
static PARAMS: &[u8] = include_bytes!("../../data/learned.bin");

/// The embedded network (parsed once).
pub fn embedded() -> Result<&'static Net, net::BadParams> {
    static NET: OnceLock<Result<Net, net::BadParams>> = OnceLock::new();
    NET.get_or_init(|| Net::from_bytes(PARAMS)).as_ref().map_err(Clone::clone)
}

/// The learned player.
pub struct LearnedStrategy {
    net: NetRef,
    x: Vec<(u16, f32)>,
    acts: Acts,
    evaluations: u64,
    /// Exploring (self-play training): choices drawn from the network's distribution.
    explore: Option<crate::rng::Rng>,
}

impl LearnedStrategy {
    /// The player with the embedded parameters (`seed` is unused: it plays deterministically).
    pub fn new(seed: u64) -> LearnedStrategy {
        let _ = seed;
        LearnedStrategy::with_net(embedded().expect("the embedded parameters load (a test checks)"))
    }

    /// The player with the network `net`.
    pub fn with_net(net: &'static Net) -> LearnedStrategy {
        LearnedStrategy::with_shared(NetRef::Static(net))
    }

    /// The player with a network shared with others (a training run's current one).
    pub fn with_shared(net: NetRef) -> LearnedStrategy {
        LearnedStrategy {
            net,
            x: Vec::with_capacity(64),
            acts: Acts::default(),
            evaluations: 0,
            explore: None,
        }
    }

    /// The same drawing its choices from the network's distribution (softmax over the
    /// legal discards; take and knock with their logistic probabilities, the knock's shifted
    /// by [`KNOCK_LOGIT`]) rather than taking the likeliest: for self-play training.
    pub fn exploring(net: NetRef, seed: u64) -> LearnedStrategy {
        LearnedStrategy { explore: Some(crate::rng::Rng::new(seed)), ..LearnedStrategy::with_shared(net) }
    }

    /// Whether a yes/no choice with logit `z` (over `threshold`) is made.
    fn yes(&mut self, z: f32, threshold: f32) -> bool {
        match &mut self.explore {
            Some(rng) => (rng.unit() as f32) < sigmoid(z - threshold),
            None => z > threshold,
        }
    }

    /// The discard among `cards` (the likeliest, or drawn when exploring).
    fn pick(&mut self, cards: engine::CardSet) -> Option<Card> {
        let out = &self.acts.out;
        let Some(rng) = &mut self.explore else { return best_of(out, cards) };
        let mx = cards.iter().map(|c| out[c.bit() as usize]).fold(f32::MIN, f32::max);
        let z: f32 = cards.iter().map(|c| (out[c.bit() as usize] - mx).exp()).sum();
        let mut u = rng.unit() as f32 * z;
        for c in cards.iter() {
            u -= (out[c.bit() as usize] - mx).exp();
            if u <= 0.0 {
                return Some(c);
            }
        }
        cards.iter().last()
    }

    /// Forward passes of the network so far (at most one per decision: its time bound).
    pub fn evaluations(&self) -> u64 {
        self.evaluations
    }

    fn eval(&mut self, d: &Decision<'_>) -> &[f32] {
        self.evaluations += 1;
        features::encode(d, &mut self.x);
        self.net.forward(&self.x, &mut self.acts);
        &self.acts.out
    }
}

/// A network a player reads: the embedded one, or one shared by a training run.
#[derive(Clone)]
pub enum NetRef {
    /// For the program's life.
    Static(&'static Net),
    /// Shared.
    Shared(std::sync::Arc<Net>),
}

impl std::ops::Deref for NetRef {
    type Target = Net;
    fn deref(&self) -> &Net {
        match self {
            NetRef::Static(n) => n,
            NetRef::Shared(n) => n,
        }
    }
}

/// The legal discard with the highest logit in `out` among `cards`.
fn best_of(out: &[f32], cards: engine::CardSet) -> Option<Card> {
    cards.iter().max_by(|a, b| out[a.bit() as usize].total_cmp(&out[b.bit() as usize]))
}

impl Strategy for LearnedStrategy {
    fn name(&self) -> &str {
        "learned"
    }

    fn act(&mut self, d: &Decision<'_>) -> Action {
        match d.choice() {
            Choice::Offer | Choice::Draw => {
                let Some(top) = d.pile_top() else { return d.decline() };
                if !d.legal.draw_pile {
                    return d.decline();
                }
                if d.memory.own_discards.contains(top) {
                    let with = engine::deadwood_by_discard(d.hand.with(top));
                    if d.hand.iter().all(|c| with[c.bit() as usize] > 0) {
                        return d.decline();
                    }
                }
                let z = self.eval(d)[OUT_TAKE];
                if self.yes(z, 0.0) { Action::DrawPile } else { d.decline() }
            }
            Choice::Discard => {
                if d.legal.big_gin {
                    return Action::BigGin { melds: None };
                }
                let table = engine::deadwood_by_discard(d.hand);
                if let Some(c) =
                    d.legal.knocks.iter().filter(|c| table[c.bit() as usize] == 0).max_by_key(|c| c.value())
                {
                    return Action::knock(c);
                }
                let z = self.eval(d)[OUT_KNOCK];
                if !d.legal.knocks.is_empty()
                    && self.yes(z, KNOCK_LOGIT)
                    && let Some(c) = self.pick(d.legal.knocks)
                {
                    return Action::knock(c);
                }
                match self.pick(d.legal.discards) {
                    Some(card) => Action::Discard { card },
                    None => crate::strategy::fallback(d),
                }
            }
        }
    }
}

/// One recorded decision of the expert.
#[derive(Clone, Debug)]
pub struct Sample {
    /// Its inputs.
    pub x: Vec<(u16, f32)>,
    /// The legal discards and knocks (discard decisions), as card bits.
    pub mask: u64,
    /// The card the expert discarded (or knocked with), at a discard decision.
    pub discard: Option<u8>,
    /// Whether it took the pile's top, at a draw where that was legal.
    pub take: Option<bool>,
    /// Whether it knocked, where a knock short of gin was legal.
    pub knock: Option<bool>,
    /// The hand's result for the seat: points / 100, negative when the opponent scored.
    pub value: f32,
    hand: u32,
    seat: Seat,
}

/// Records the decisions of the strategy it wraps.
struct Recorder<'a> {
    inner: &'a mut dyn Strategy,
    out: Vec<Sample>,
}

impl Strategy for Recorder<'_> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn act(&mut self, d: &Decision<'_>) -> Action {
        let a = self.inner.act(d);
        let mut s = Sample {
            x: Vec::new(),
            mask: 0,
            discard: None,
            take: None,
            knock: None,
            value: 0.0,
            hand: d.memory.hand_number,
            seat: d.seat,
        };
        match (d.choice(), &a) {
            (Choice::Offer | Choice::Draw, a) if d.legal.draw_pile => s.take = Some(*a == Action::DrawPile),
            (Choice::Discard, Action::Discard { card } | Action::Knock { discard: card, .. }) => {
                s.mask = (d.legal.discards | d.legal.knocks).bits();
                s.discard = Some(card.bit());
                let table = engine::deadwood_by_discard(d.hand);
                let gin = d.legal.knocks.iter().any(|c| table[c.bit() as usize] == 0);
                if !d.legal.knocks.is_empty() && !gin {
                    s.knock = Some(matches!(a, Action::Knock { .. }));
                }
            }
            _ => {}
        }
        if s.take.is_some() || s.discard.is_some() {
            features::encode(d, &mut s.x);
            self.out.push(s);
        }
        a
    }
}

/// The expert's opponents in the generated games, by game index: `strong` itself (both
/// seats recorded), `strong-v2`, `simple`, `strong-v1`.
pub const OPPONENTS: [&str; 4] = ["strong", "strong-v2", "simple", "strong-v1"];

/// Plays game `i` of a data set seeded by `seed` (`rules`: the game's rules) with `strong`
/// at both seats or against one of [`OPPONENTS`], and returns `strong`'s decisions with the
/// hands' results.
pub fn generate_game(rules: &engine::RuleSet, seed: u64, i: u64) -> Vec<Sample> {
    use crate::rng::derive;
    let opp = OPPONENTS[(i % OPPONENTS.len() as u64) as usize];
    let mut a = by_name("strong", derive(seed, 3 * i)).expect("known");
    let mut b = by_name(opp, derive(seed, 3 * i + 1)).expect("known");
    let both = opp == "strong";
    let strong_seat = if (i / OPPONENTS.len() as u64).is_multiple_of(2) { Seat::S0 } else { Seat::S1 };
    let mut ra = Recorder { inner: a.as_mut(), out: Vec::new() };
    let mut rb = Recorder { inner: b.as_mut(), out: Vec::new() };
    let setup = GameSetup::new(rules.clone(), derive(seed, 3 * i + 2));
    let game = {
        let players: [&mut dyn Strategy; 2] =
            if strong_seat == Seat::S0 { [&mut ra, &mut rb] } else { [&mut rb, &mut ra] };
        play_game(setup, players).expect("strong plays legal moves")
    };
    let mut out = ra.out;
    if both {
        out.extend(rb.out);
    }
    for s in &mut out {
        if let Some(h) = game.hands().get(s.hand as usize) {
            let r = &h.result;
            let pts = r.points as f32 / 100.0;
            s.value = match r.winner {
                Some(w) if w == s.seat => pts,
                Some(_) => -pts,
                None => 0.0,
            };
        }
    }
    out
}

/// Losses and accuracies over a set of samples.
#[derive(Clone, Copy, Debug, Default)]
pub struct Eval {
    /// Discard decisions, and how many the network chose as the expert did.
    pub discards: (u64, u64),
    /// Draw decisions, agreed.
    pub takes: (u64, u64),
    /// Knock decisions, agreed.
    pub knocks: (u64, u64),
    /// Mean squared error of the value head.
    pub value_mse: f64,
}

impl std::fmt::Display for Eval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pct = |(n, k): (u64, u64)| 100.0 * k as f64 / n.max(1) as f64;
        write!(
            f,
            "discard {:.1}% of {}, take {:.1}% of {}, knock {:.1}% of {}, value mse {:.4}",
            pct(self.discards),
            self.discards.0,
            pct(self.takes),
            self.takes.0,
            pct(self.knocks),
            self.knocks.0,
            self.value_mse
        )
    }
}

fn sigmoid(z: f32) -> f32 {
    1.0 / (1.0 + (-z).exp())
}

/// The loss's derivative by each output for sample `s` (outputs `out`), into `d`; adds to
/// `e`.
fn grad(s: &Sample, out: &[f32], d: &mut [f32; OUTPUTS], e: &mut Eval, value_weight: f32) {
    d.fill(0.0);
    if let Some(c) = s.discard {
        let mut mx = f32::MIN;
        let mut m = s.mask;
        while m != 0 {
            let b = m.trailing_zeros() as usize;
            m &= m - 1;
            mx = mx.max(out[b]);
        }
        let mut z = 0.0;
        let mut m = s.mask;
        while m != 0 {
            let b = m.trailing_zeros() as usize;
            m &= m - 1;
            z += (out[b] - mx).exp();
        }
        let mut m = s.mask;
        let mut arg = (f32::MIN, 0usize);
        while m != 0 {
            let b = m.trailing_zeros() as usize;
            m &= m - 1;
            d[b] = (out[b] - mx).exp() / z;
            if out[b] > arg.0 {
                arg = (out[b], b);
            }
        }
        d[c as usize] -= 1.0;
        e.discards.0 += 1;
        e.discards.1 += u64::from(arg.1 == c as usize);
    }
    if let Some(t) = s.take {
        d[OUT_TAKE] = sigmoid(out[OUT_TAKE]) - f32::from(u8::from(t));
        e.takes.0 += 1;
        e.takes.1 += u64::from((out[OUT_TAKE] > 0.0) == t);
    }
    if let Some(k) = s.knock {
        d[OUT_KNOCK] = sigmoid(out[OUT_KNOCK]) - f32::from(u8::from(k));
        e.knocks.0 += 1;
        e.knocks.1 += u64::from((out[OUT_KNOCK] > 0.0) == k);
    }
    let dv = out[OUT_VALUE] - s.value.clamp(-1.5, 1.5);
    d[OUT_VALUE] = value_weight * dv;
    e.value_mse += f64::from(dv * dv);
}

/// How a network is trained.
#[derive(Clone, Copy, Debug)]
pub struct TrainConfig {
    /// Hidden layer sizes.
    pub hidden: [usize; 2],
    /// Passes over the training samples.
    pub epochs: usize,
    /// Samples per Adam step.
    pub batch: usize,
    /// Learning rate (decayed linearly to a tenth over the epochs).
    pub lr: f32,
    /// Weight of the value head's loss.
    pub value_weight: f32,
    /// The seed of the initial weights and of the shuffles.
    pub seed: u64,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig { hidden: [256, 128], epochs: 8, batch: 128, lr: 1e-3, value_weight: 0.5, seed: 1 }
    }
}

/// The network's agreement with the expert on `samples`.
pub fn evaluate(net: &Net, samples: &[Sample]) -> Eval {
    let mut e = Eval::default();
    let mut acts = Acts::default();
    let mut d = [0f32; OUTPUTS];
    for s in samples {
        net.forward(&s.x, &mut acts);
        grad(s, &acts.out, &mut d, &mut e, 1.0);
    }
    e.value_mse /= samples.len().max(1) as f64;
    e
}

/// Trains a network on `train`, reporting each epoch (its number, the training figures,
/// the figures on `valid`) to `report`.
pub fn train(
    train: &[Sample],
    valid: &[Sample],
    cfg: &TrainConfig,
    report: &mut dyn FnMut(usize, &Eval, &Eval),
) -> Net {
    let mut net = Net::new([features::INPUTS, cfg.hidden[0], cfg.hidden[1], OUTPUTS], cfg.seed);
    let mut tr = Trainer::new(&net, cfg.lr);
    let mut rng = crate::rng::Rng::new(crate::rng::derive(cfg.seed, 0x7EA1));
    let mut order: Vec<usize> = (0..train.len()).collect();
    let mut acts = Acts::default();
    let mut d = [0f32; OUTPUTS];
    let total_steps = (cfg.epochs * train.len().div_ceil(cfg.batch)).max(1);
    let mut steps = 0usize;
    for epoch in 0..cfg.epochs {
        for i in (1..order.len()).rev() {
            let j = rng.below(i as u32 + 1) as usize;
            order.swap(i, j);
        }
        let mut e = Eval::default();
        for chunk in order.chunks(cfg.batch) {
            for &k in chunk {
                let s = &train[k];
                net.forward(&s.x, &mut acts);
                grad(s, &acts.out, &mut d, &mut e, cfg.value_weight);
                tr.backward(&net, &s.x, &acts, &d);
            }
            tr.lr = cfg.lr * (1.0 - 0.9 * steps as f32 / total_steps as f32);
            tr.step(&mut net, chunk.len());
            steps += 1;
        }
        e.value_mse /= train.len().max(1) as f64;
        report(epoch, &e, &evaluate(&net, valid));
    }
    net
}

/// Plays game `i` of a self-play batch seeded by `seed`: `net`, exploring, against
/// `opponent` (a strategy's name, or `learned` for the network itself, greedy), seats
/// alternating with `i`; returns the explorer's decisions, each with its hand's result for
/// it (points / 100) as `value`.
pub fn explore_game(net: &NetRef, opponent: &str, rules: &engine::RuleSet, seed: u64, i: u64) -> Vec<Sample> {
    use crate::rng::derive;
    let mut a = LearnedStrategy::exploring(net.clone(), derive(seed, 3 * i));
    let mut b: Box<dyn Strategy> = if opponent == "learned" {
        Box::new(LearnedStrategy::with_shared(net.clone()))
    } else {
        by_name(opponent, derive(seed, 3 * i + 1)).expect("a known strategy")
    };
    let mut ra = Recorder { inner: &mut a, out: Vec::new() };
    let setup = GameSetup::new(rules.clone(), derive(seed, 3 * i + 2));
    let game = if i.is_multiple_of(2) {
        play_game(setup, [&mut ra, b.as_mut()])
    } else {
        play_game(setup, [b.as_mut(), &mut ra])
    }
    .expect("legal play");
    let mut out = ra.out;
    for s in &mut out {
        if let Some(h) = game.hands().get(s.hand as usize) {
            let pts = h.result.points as f32 / 100.0;
            s.value = match h.result.winner {
                Some(w) if w == s.seat => pts,
                Some(_) => -pts,
                None => 0.0,
            };
        }
    }
    out
}

/// The share of `pairs` duplicate deal pairs (seeded by `seed`, each deal played from both
/// seats) that the greedy network `net` wins against the strategy named `b` under `rules`, in
/// percent (a drawn game counts half).
pub fn duplicate_share(net: &NetRef, b: &str, pairs: u64, seed: u64, rules: &engine::RuleSet) -> f64 {
    use crate::rng::derive;
    let (mut score, mut games) = (0.0, 0u64);
    for p in 0..pairs {
        for seat in [Seat::S0, Seat::S1] {
            let mut a = LearnedStrategy::with_shared(net.clone());
            let mut o =
                by_name(b, derive(seed ^ 0xB, p * 2 + seat.index() as u64)).expect("a known strategy");
            let setup = GameSetup::new(rules.clone(), derive(seed, p));
            let game = if seat == Seat::S0 {
                play_game(setup, [&mut a, o.as_mut()])
            } else {
                play_game(setup, [o.as_mut(), &mut a])
            }
            .expect("legal play");
            score += match game.result().expect("over").winner {
                Some(w) if w == seat => 1.0,
                Some(_) => 0.0,
                None => 0.5,
            };
            games += 1;
        }
    }
    100.0 * score / games.max(1) as f64
}

/// `f(0) … f(n - 1)` computed on `threads` threads, in index order (the same result whatever
/// the count).
pub fn par_map<T: Send>(n: u64, threads: usize, f: impl Fn(u64) -> T + Sync) -> Vec<T> {
    let next = std::sync::atomic::AtomicU64::new(0);
    let out: std::sync::Mutex<Vec<Option<T>>> = std::sync::Mutex::new((0..n).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if i >= n {
                        break;
                    }
                    let v = f(i);
                    out.lock().expect("not poisoned")[i as usize] = Some(v);
                }
            });
        }
    });
    out.into_inner().expect("not poisoned").into_iter().map(|v| v.expect("every index done")).collect()
}

/// One policy-gradient step (REINFORCE with the value head as the baseline) over the
/// explorer's decisions `batch`: each choice made more likely in proportion to how much its
/// hand's result beat the value head's prediction; the value head fitted to the results.
/// Returns the mean advantage's magnitude.
pub fn reinforce(net: &mut Net, tr: &mut Trainer, batch: &[Sample], value_weight: f32) -> f32 {
    let mut acts = Acts::default();
    let mut d = [0f32; OUTPUTS];
    let mut e = Eval::default();
    let mut total = 0.0;
    for s in batch {
        net.forward(&s.x, &mut acts);
        // The derivative of −log π(choice) by each output (the knock's logit shifted).
        let mut shifted = acts.out.clone();
        shifted[OUT_KNOCK] -= KNOCK_LOGIT;
        grad(s, &shifted, &mut d, &mut e, 0.0);
        let adv = s.value.clamp(-1.5, 1.5) - acts.out[OUT_VALUE];
        total += adv.abs();
        for x in d.iter_mut().take(OUT_VALUE) {
            *x *= adv;
        }
        d[OUT_VALUE] = value_weight * -adv;
        tr.backward(net, &s.x, &acts, &d);
    }
    tr.step(net, batch.len().max(1));
    total / batch.len().max(1) as f32
}

/// Writes `samples` as bytes (a cache of generated data, so that training can resume
/// without replaying the games; never committed).
pub fn samples_to_bytes(samples: &[Sample]) -> Vec<u8> {
    let mut o = Vec::new();
    o.extend_from_slice(&(samples.len() as u64).to_le_bytes());
    for s in samples {
        o.extend_from_slice(&(s.x.len() as u16).to_le_bytes());
        for &(i, v) in &s.x {
            o.extend_from_slice(&i.to_le_bytes());
            o.extend_from_slice(&v.to_le_bytes());
        }
        o.extend_from_slice(&s.mask.to_le_bytes());
        o.push(s.discard.unwrap_or(u8::MAX));
        o.push(s.take.map_or(2, u8::from));
        o.push(s.knock.map_or(2, u8::from));
        o.extend_from_slice(&s.value.to_le_bytes());
    }
    o
}

/// Reads what [`samples_to_bytes`] wrote; `None` when it is not that.
pub fn samples_from_bytes(b: &[u8]) -> Option<Vec<Sample>> {
    let mut at = 0usize;
    let mut take = |n: usize| -> Option<&[u8]> {
        let s = b.get(at..at + n)?;
        at += n;
        Some(s)
    };
    let n = u64::from_le_bytes(take(8)?.try_into().ok()?) as usize;
    let mut out = Vec::with_capacity(n.min(1 << 24));
    let flag = |v: u8| match v {
        0 => Some(false),
        1 => Some(true),
        _ => None,
    };
    for _ in 0..n {
        let k = u16::from_le_bytes(take(2)?.try_into().ok()?) as usize;
        let mut x = Vec::with_capacity(k);
        for _ in 0..k {
            let i = u16::from_le_bytes(take(2)?.try_into().ok()?);
            let v = f32::from_le_bytes(take(4)?.try_into().ok()?);
            x.push((i, v));
        }
        let mask = u64::from_le_bytes(take(8)?.try_into().ok()?);
        let f = take(3)?;
        let (discard, tk, kn) = (f[0], f[1], f[2]);
        let value = f32::from_le_bytes(take(4)?.try_into().ok()?);
        out.push(Sample {
            x,
            mask,
            discard: (discard != u8::MAX).then_some(discard),
            take: flag(tk),
            knock: flag(kn),
            value,
            hand: 0,
            seat: Seat::S0,
        });
    }
    Some(out)
}
