//! `strong` at one table of 3 to 6 (gin-7) and at rummy (2 to 6): determinized Monte Carlo
//! over the other seats' hidden hands, every seat rolled out with `simple`.
//!
//! At each decision with more than one sensible move:
//!
//! 1. **Candidates**: the draws (stock, pile); gin-7 after the draw: the discards leaving
//!    the least deadwood ([`DISCARDS`] of them) and the best knock; rummy in the play part of
//!    a turn: `simple`'s move, every meld and lay-off, the discards `simple` ranks first.
//!    Gin is always played at once.
//! 2. **Samples**: the cards this seat cannot place (neither its own, nor on the pile or the
//!    table, nor known to be held: the cards a seat took from the pile and still holds) are
//!    dealt at random to the other seats (each as many as it holds, its known cards kept)
//!    and to the stock ([`engine::gin7::Gin7Hand::with_hidden`],
//!    [`engine::rummy::RummyHand::with_hidden`]). At rummy each other seat's hand is an
//!    improved one ([`OpponentModel`]): dealt a few cards more than it holds, it throws the
//!    extra ones back as a `simple`-like player discards (the loosest, highest cards), since
//!    a seat that has played some turns holds a better hand than a random one. It took
//!    rummy for 2 from 74.1% to 82.5% of the wins against `simple` over 2,000 games
//!    (docs/book/src/performance.md).
//!    The model learns from each hand's showdown whether a seat improves its hand at all
//!    (the cards it is left with, against sampled ones): one that keeps anything, as
//!    `random` does, is then sampled uniform ([`TableStrong::rummy_hand_ended`]).
//!    The model can also hold the samples to what each seat passed up (its declined pile
//!    tops and discards, [`engine::rummy::RummyHand::declined`]; off: no gain measured).
//! 3. **Rollouts**: each candidate is played on each sample, then every seat plays `simple`
//!    to the hand's end; the samples and the rollouts' choices are shared between the
//!    candidates (common random numbers).
//! 4. **Choice**: the best mean of this seat's result for the hand against the others':
//!    gin-7, its net (points won − penalty) minus the others' mean net; rummy, the points it
//!    scores minus the others' scores over `n − 1`.
//!
//! The budget is a count, not a time: at most [`ROLLOUTS`] rollouts a decision (spread over
//! its candidates), so a decision is deterministic given the bot's seed; [`SearchStats`]
//! counts them and times the decisions. Under it, a safety net: a decision that has taken
//! [`TIME_GUARD`] (a loaded machine) stops sampling.

use std::time::Instant;

use engine::gin7::{Gin7Hand, Gin7Phase};
use engine::rummy::{RummyAction, RummyHand, RummyPhase};
use engine::{Action, BySeat, Card, CardSet, Seat, deadwood_by_discard};

use crate::memory::Memory;
use crate::rng::Rng;
use crate::simple::SimpleStrategy;
use crate::strategy::{Decision, Strategy};

/// The most rollouts in one decision, all candidates together.
pub const ROLLOUTS: u32 = 1000;
/// A safety net under the count: a decision past this time stops sampling (far above
/// what the budget takes on this machine, [`ROLLOUTS`]; a decision cut by it is the only one
/// that does not follow from the seed alone).
pub const TIME_GUARD: std::time::Duration = std::time::Duration::from_millis(50);
/// Gin-7: the discards compared (those leaving the least deadwood).
pub const DISCARDS: usize = 3;
/// The most candidates in one decision.
pub const MAX_CANDIDATES: usize = 5;

/// What the search did, over every decision of a bot.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SearchStats {
    /// Decisions taken.
    pub decisions: u64,
    /// Of them, decided by search (more than one candidate).
    pub searched: u64,
    /// Rollouts played.
    pub rollouts: u64,
    /// The most rollouts in one decision.
    pub max_rollouts: u32,
    /// Time spent deciding, in nanoseconds.
    pub nanos: u64,
    /// The longest decision, in nanoseconds.
    pub max_nanos: u64,
    /// Rummy: showdowns learnt from ([`TableStrong::rummy_hand_ended`]; their time counts
    /// in the next decision's).
    pub showdowns: u64,
}

impl SearchStats {
    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: &SearchStats) {
        self.decisions += other.decisions;
        self.searched += other.searched;
        self.rollouts += other.rollouts;
        self.max_rollouts = self.max_rollouts.max(other.max_rollouts);
        self.nanos += other.nanos;
        self.max_nanos = self.max_nanos.max(other.max_nanos);
        self.showdowns += other.showdowns;
    }

    /// Mean milliseconds per decision.
    pub fn mean_ms(&self) -> f64 {
        self.nanos as f64 / 1e6 / self.decisions.max(1) as f64
    }

    /// The longest decision in milliseconds.
    pub fn max_ms(&self) -> f64 {
        self.max_nanos as f64 / 1e6
    }
}

/// Rummy's opponent model: how the other seats' hidden cards are sampled.
///
/// - `improve`: a seat has been improving its hand since the deal, so a random hand is far
///   too loose. Each seat is dealt up to this many cards more than it holds (at most one for
///   each turn it has played) and throws the extra ones back as a `simple`-like player
///   discards: the loose card (none of its rank, none of its suit two ranks away) with the
///   most points first. The thrown cards go to the stock.
/// - `redeals`, `penalty`: how hard the samples are held to what the other seats passed up
///   (their declined pile tops and discards, [`RummyHand::declined`]): a sampled hand
///   holding two cards that meld with one of them is a contradiction. Off: no gain measured.
/// - `learn`: whether each seat improves its hand at all is learnt from its showdowns
///   ([`TableStrong::rummy_hand_ended`]): the cards it is left with at each hand's end are
///   weighed against hands sampled uniform and improved; a seat whose showdowns look
///   uniform (a player who keeps anything) is sampled uniform.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OpponentModel {
    /// Deals tried for each sample, the one with the fewest contradictions kept (1: none
    /// rejected).
    pub redeals: u32,
    /// Each sample's rollouts weigh `exp(-penalty × contradictions)` (0: all alike).
    pub penalty: f64,
    /// Extra cards dealt to each other seat and thrown back (0: a uniform deal).
    pub improve: u32,
    /// Learn from the showdowns whether each seat improves its hand (else `improve` for all).
    pub learn: bool,
}

impl OpponentModel {
    /// The model `strong` plays with.
    pub const DEFAULT: OpponentModel = OpponentModel { redeals: 1, penalty: 0.0, improve: 4, learn: true };
}

/// Hands sampled under each hypothesis (uniform, improved) to weigh one showdown.
pub const SHOWDOWN_SAMPLES: usize = 32;
/// The evidence, in nats, a seat's showdowns must give for uniform over improved before it
/// is sampled uniform (the prior: players improve their hands).
pub const PRIOR_COST: f64 = 3.0;
/// The least spread of a statistic's sampled distribution (a showdown is never certain)...
pub const MIN_SPREAD: f64 = 0.08;
/// ...and the most standard deviations one showdown's statistic counts for: one odd hand
/// (a model that does not fit it) weighs no more than a clear miss.
pub const MAX_Z: f64 = 2.5;

/// What a seat's level of improvement shows in the cards `hand` it is left with: the share
/// of them that are loose (none of their rank, none of their suit two ranks away), and their
/// mean points / 10 (a player who improves throws the high loose cards first).
fn showdown_stats(rules: &engine::rummy::RummyRules, hand: CardSet) -> [f64; 2] {
    if hand.is_empty() {
        return [0.0; 2];
    }
    let n = f64::from(hand.len());
    [
        f64::from((hand - crate::tables::rummy_useful(hand)).len()) / n,
        f64::from(rules.points(hand)) / n / 10.0,
    ]
}

/// The table `strong`.
pub struct TableStrong {
    rng: Rng,
    rollouts: u32,
    model: OpponentModel,
    stats: SearchStats,
    /// An empty memory for the rollouts' `simple` (it reads none at gin-7).
    blank: Memory,
    /// Rummy, learning: the hand as it stood at this bot's last decision (its seat), which
    /// its end's showdown is weighed against...
    last_rummy: Option<(RummyHand, u8)>,
    /// ...and each seat's log-likelihood of a uniform and of an improved hand (in that
    /// order) from the showdowns so far.
    showdown_ll: [[f64; 2]; 6],
    /// The showdowns' own random numbers (the search's are left as they were).
    learn_rng: Rng,
    /// Time spent on a showdown since the last decision (counted in the next).
    pending_nanos: u64,
}

impl TableStrong {
    /// A player whose choices are seeded by `seed`.
    pub fn new(seed: u64) -> TableStrong {
        TableStrong::with_rollouts(seed, ROLLOUTS)
    }

    /// The same with its own rollout budget per decision.
    pub fn with_rollouts(seed: u64, rollouts: u32) -> TableStrong {
        TableStrong {
            rng: Rng::new(seed ^ 0x57_2046_7AB1),
            rollouts: rollouts.max(1),
            model: OpponentModel::DEFAULT,
            stats: SearchStats::default(),
            blank: Memory::new(Seat::S0),
            last_rummy: None,
            showdown_ll: [[0.0; 2]; 6],
            learn_rng: Rng::new(seed ^ 0x5E0_0D0E),
            pending_nanos: 0,
        }
    }

    /// The same with its own opponent model (rummy).
    pub fn with_model(mut self, model: OpponentModel) -> TableStrong {
        self.model = model;
        self
    }

    /// Rummy: each seat's level of improvement, as its showdowns so far say: the model's
    /// `improve`, or 0 (uniform) for a seat whose showdowns look uniform by more than
    /// [`PRIOR_COST`].
    pub fn rummy_levels(&self) -> [u32; 6] {
        let mut out = [self.model.improve; 6];
        if self.model.learn {
            for (level, ll) in out.iter_mut().zip(&self.showdown_ll) {
                if ll[0] - ll[1] > PRIOR_COST {
                    *level = 0;
                }
            }
        }
        out
    }

    /// Rummy: the hand this bot last decided in has ended, each seat left with `left` (by
    /// seat; the winner's empty, as [`engine::rummy::RummyHandResult::left`]). Each other
    /// seat's showdown is weighed: the share of loose cards it was left with and their mean
    /// points, against those of its hands sampled at that decision, uniform and improved (a
    /// normal likelihood, capped at [`MAX_Z`]). Returns whether it was weighed: not when the
    /// model does not learn, nor without a decision since the last end, nor when `left`
    /// does not fit the hand or shows no other seat's cards.
    pub fn rummy_hand_ended(&mut self, left: &[CardSet]) -> bool {
        let start = Instant::now();
        let weighed = self.weigh_showdown(left);
        if weighed {
            self.stats.showdowns += 1;
        }
        self.pending_nanos += start.elapsed().as_nanos() as u64;
        weighed
    }

    /// [`TableStrong::rummy_hand_ended`]'s weighing.
    fn weigh_showdown(&mut self, left: &[CardSet]) -> bool {
        let Some((h, me)) = self.last_rummy.take() else { return false };
        let n = h.rules().players;
        if !self.model.learn || left.len() != usize::from(n) {
            return false;
        }
        let shown: Vec<u8> =
            (0..n).filter(|&s| s != me && !left[s as usize].is_empty() && !h.hand(s).is_empty()).collect();
        if shown.is_empty() {
            return false;
        }
        for (k, level) in [0, self.model.improve].into_iter().enumerate() {
            // Per seat and statistic: the sum and the sum of squares.
            let mut sums = [[(0.0f64, 0.0f64); 2]; 6];
            for _ in 0..SHOWDOWN_SAMPLES {
                let Some((w, _)) = sample_rummy(&h, me, self.model, &[level; 6], &mut self.learn_rng) else {
                    return false;
                };
                for &s in &shown {
                    for (acc, t) in sums[s as usize].iter_mut().zip(showdown_stats(h.rules(), w.hand(s))) {
                        acc.0 += t;
                        acc.1 += t * t;
                    }
                }
            }
            let m = SHOWDOWN_SAMPLES as f64;
            for &s in &shown {
                let seen = showdown_stats(h.rules(), left[s as usize]);
                for (&(sum, sq), x) in sums[s as usize].iter().zip(seen) {
                    let mean = sum / m;
                    let spread = (sq / m - mean * mean).max(0.0).sqrt().max(MIN_SPREAD);
                    let z = ((x - mean) / spread).clamp(-MAX_Z, MAX_Z);
                    self.showdown_ll[s as usize][k] += -0.5 * z * z - spread.ln();
                }
            }
        }
        true
    }

    /// Rummy: forgets what the showdowns taught (a new game, other players).
    pub fn forget_showdowns(&mut self) {
        self.last_rummy = None;
        self.showdown_ll = [[0.0; 2]; 6];
    }

    /// What the search did so far.
    pub fn stats(&self) -> SearchStats {
        self.stats
    }

    fn record(&mut self, start: Instant, rollouts: u32, searched: bool) {
        let ns = start.elapsed().as_nanos() as u64 + std::mem::take(&mut self.pending_nanos);
        let s = &mut self.stats;
        s.decisions += 1;
        s.searched += searched as u64;
        s.rollouts += rollouts as u64;
        s.max_rollouts = s.max_rollouts.max(rollouts);
        s.nanos += ns;
        s.max_nanos = s.max_nanos.max(ns);
    }

    /// The action of `me`, which is to act in the gin-7 hand `h`.
    pub fn act_gin7(&mut self, h: &Gin7Hand, me: u8) -> Action {
        let start = Instant::now();
        let cands = gin7_candidates(h, me);
        if cands.len() == 1 {
            self.record(start, 0, false);
            return cands[0].clone();
        }
        let samples = (self.rollouts / cands.len() as u32).max(1);
        let mut total = vec![0.0f64; cands.len()];
        let mut played = 0;
        for k in 0..samples {
            if k > 0 && start.elapsed() > TIME_GUARD {
                break;
            }
            let Some(world) = sample_gin7(h, me, &mut self.rng) else { break };
            let seed = self.rng.next_u64();
            for (i, a) in cands.iter().enumerate() {
                let mut w = world.clone();
                if w.apply(me, a).is_err() {
                    total[i] = f64::NEG_INFINITY;
                    continue;
                }
                total[i] += rollout_gin7(w, me, seed, &self.blank);
                played += 1;
            }
        }
        let best = argmax(&total);
        self.record(start, played, true);
        cands[best].clone()
    }

    /// The action of `me`, which is to act in the rummy hand `h`.
    pub fn act_rummy(&mut self, h: &RummyHand, me: u8) -> RummyAction {
        let start = Instant::now();
        if self.model.learn {
            self.last_rummy = Some((h.clone(), me));
        }
        let levels = self.rummy_levels();
        let cands = rummy_candidates(h, me, &mut self.rng);
        if cands.len() == 1 {
            self.record(start, 0, false);
            return cands[0];
        }
        let samples = (self.rollouts / cands.len() as u32).max(1);
        let mut total = vec![0.0f64; cands.len()];
        let mut played = 0;
        for k in 0..samples {
            if k > 0 && start.elapsed() > TIME_GUARD {
                break;
            }
            let Some((world, bad)) = sample_rummy(h, me, self.model, &levels, &mut self.rng) else { break };
            let weight = (-self.model.penalty * f64::from(bad)).exp();
            let seed = self.rng.next_u64();
            for (i, &a) in cands.iter().enumerate() {
                let mut w = world.clone();
                if w.apply(me, a).is_err() {
                    total[i] = f64::NEG_INFINITY;
                    continue;
                }
                total[i] += weight * rollout_rummy(w, me, seed);
                played += 1;
            }
        }
        let best = argmax(&total);
        self.record(start, played, true);
        cands[best]
    }
}

/// The first index of the greatest value.
fn argmax(v: &[f64]) -> usize {
    let mut best = 0;
    for (i, &x) in v.iter().enumerate() {
        if x > v[best] {
            best = i;
        }
    }
    best
}

/// Shuffles `v` in place (Fisher–Yates).
fn shuffle(v: &mut [Card], rng: &mut Rng) {
    for i in (1..v.len()).rev() {
        let j = rng.below(i as u32 + 1) as usize;
        v.swap(i, j);
    }
}

/// The rules a gin-7 decision's `simple` reads (no upcard offer, no big gin).
static GIN7_RULES: std::sync::LazyLock<engine::RuleSet> = std::sync::LazyLock::new(|| engine::RuleSet {
    big_gin: false,
    big_gin_bonus: 0,
    upcard_offer: false,
    ..engine::RuleSet::standard()
});

/// The moves worth comparing for `me` in `h` (the first is `simple`'s kind of choice).
fn gin7_candidates(h: &Gin7Hand, me: u8) -> Vec<Action> {
    let legal = h.legal();
    match h.phase() {
        Gin7Phase::Draw => {
            let mut v = vec![Action::DrawStock];
            if legal.draw_pile {
                v.push(Action::DrawPile);
            }
            v
        }
        _ => {
            let by = deadwood_by_discard(h.cards(me));
            let key = |c: Card| (by[c.bit() as usize], std::cmp::Reverse(c.value()), c);
            if let Some(gin) = legal.knocks.iter().find(|c| by[c.bit() as usize] == 0) {
                return vec![Action::knock(gin)];
            }
            let mut discards: Vec<Card> = legal.discards.iter().collect();
            discards.sort_by_key(|&c| key(c));
            let mut v: Vec<Action> =
                discards.into_iter().take(DISCARDS).map(|card| Action::Discard { card }).collect();
            if let Some(k) = legal.knocks.iter().min_by_key(|&c| key(c)) {
                v.insert(0, Action::knock(k));
            }
            v.truncate(MAX_CANDIDATES);
            v
        }
    }
}

/// A gin-7 hand as `me` might find it: the cards it cannot place dealt at random to the
/// other seats (their known cards kept) and the stock. `None` if the counts disagree (never
/// expected).
fn sample_gin7(h: &Gin7Hand, me: u8, rng: &mut Rng) -> Option<Gin7Hand> {
    let n = h.players();
    let pile: CardSet = h.pile().iter().copied().collect();
    let mut unknown = CardSet::FULL - h.cards(me) - pile;
    for s in (0..n).filter(|&s| s != me) {
        unknown = unknown - h.known_cards(s);
    }
    let mut pool: Vec<Card> = unknown.iter().collect();
    let need: u32 = (0..n).filter(|&s| s != me).map(|s| h.cards(s).len() - h.known_cards(s).len()).sum();
    if pool.len() != need as usize + h.stock_len() {
        return None;
    }
    shuffle(&mut pool, rng);
    let mut hands = [CardSet::EMPTY; 6];
    let mut at = 0;
    for s in 0..n {
        if s == me {
            hands[s as usize] = h.cards(me);
            continue;
        }
        let k = (h.cards(s).len() - h.known_cards(s).len()) as usize;
        hands[s as usize] = h.known_cards(s) | pool[at..at + k].iter().copied().collect::<CardSet>();
        at += k;
    }
    Some(h.with_hidden(&hands[..n as usize], &pool[at..], rng.next_u64()))
}

/// Plays `h` to its end with `simple` at every seat; `me`'s net for the hand minus the
/// others' mean.
fn rollout_gin7(mut h: Gin7Hand, me: u8, seed: u64, blank: &Memory) -> f64 {
    let mut simple = SimpleStrategy::new(seed);
    while let Some(s) = h.to_act() {
        let d = Decision {
            seat: Seat::S0,
            rules: &GIN7_RULES,
            hand: h.cards(s),
            pile: h.pile(),
            stock_len: h.stock_len() as u32,
            taken: h.taken_from_pile(),
            knock_limit: h.rules().knock_limit,
            legal: h.legal(),
            scores: BySeat::default(),
            memory: blank,
        };
        let a = simple.act(&d);
        if h.apply(s, &a).is_err() {
            return 0.0;
        }
    }
    let Some(r) = h.result() else { return 0.0 };
    let net = |s: &engine::gin7::Gin7SeatResult| s.points as f64 - s.penalty as f64;
    let n = r.seats.len();
    let mine = net(&r.seats[me as usize]);
    let others: f64 =
        r.seats.iter().enumerate().filter(|(s, _)| *s != me as usize).map(|(_, x)| net(x)).sum();
    mine - others / (n - 1) as f64
}

/// The moves worth comparing for `me` in the rummy hand `h`: the draws; in the play part,
/// `simple`'s move first, then the melds and lay-offs, then the discards `simple` ranks
/// first.
fn rummy_candidates(h: &RummyHand, me: u8, rng: &mut Rng) -> Vec<RummyAction> {
    if h.phase() == RummyPhase::Draw {
        return vec![RummyAction::DrawStock, RummyAction::DrawPile];
    }
    let legal = h.legal();
    let simple = crate::tables::rummy_simple(h, me, rng);
    let mut v = vec![simple];
    for &a in &legal {
        if matches!(a, RummyAction::Meld(_) | RummyAction::LayOff { .. }) && !v.contains(&a) {
            v.push(a);
        }
    }
    let cards = h.hand(me);
    let rules = h.rules();
    let useful = |c: Card| {
        cards.iter().any(|o| {
            o != c
                && (o.rank() == c.rank()
                    || (o.suit() == c.suit() && o.rank().index().abs_diff(c.rank().index()) <= 2))
        })
    };
    let mut discards: Vec<Card> =
        legal.iter().filter_map(|a| if let RummyAction::Discard(c) = a { Some(*c) } else { None }).collect();
    discards.sort_by_key(|&c| (useful(c), std::cmp::Reverse(rules.card_points(c)), c));
    for c in discards.into_iter().take(3) {
        let a = RummyAction::Discard(c);
        if !v.contains(&a) {
            v.push(a);
        }
    }
    v.truncate(MAX_CANDIDATES);
    v
}

/// A rummy hand as `me` might find it: the cards it cannot place (neither its own, nor on
/// the pile or the table, nor known to be held: taken from the pile) dealt at random to the
/// other seats (their known cards kept; each improved by its level in `improve`, by seat)
/// and the stock; the deal of the model's `redeals`
/// with the fewest [`contradictions`], and their count (0, not counted, when the model is
/// off). `None` if the counts disagree (never expected).
fn sample_rummy(
    h: &RummyHand,
    me: u8,
    model: OpponentModel,
    improve: &[u32; 6],
    rng: &mut Rng,
) -> Option<(RummyHand, u32)> {
    let (redeals, count) = (model.redeals.max(1), model.redeals > 1 || model.penalty != 0.0);
    let n = h.rules().players;
    let table = h.table().iter().fold(CardSet::EMPTY, |a, m| a | m.cards);
    let mut unknown = CardSet::FULL - h.hand(me) - table - h.pile_cards();
    for s in (0..n).filter(|&s| s != me) {
        unknown = unknown - h.known_cards(s);
    }
    let mut pool: Vec<Card> = unknown.iter().collect();
    let hidden = |s: u8| (h.hand(s).len() - h.known_cards(s).len()) as usize;
    let need: usize = (0..n).filter(|&s| s != me).map(hidden).sum();
    if pool.len() != need + h.stock_len() {
        return None;
    }
    // At most one extra card for each turn a seat has played.
    let played = h.turns() / u32::from(n);
    let mut best = ([CardSet::EMPTY; 6], Vec::new(), u32::MAX);
    for _ in 0..redeals {
        shuffle(&mut pool, rng);
        let mut hands = [CardSet::EMPTY; 6];
        let mut thrown = Vec::new();
        let (mut at, mut bad, mut need_rest) = (0, 0, need);
        for s in 0..n {
            if s == me {
                hands[s as usize] = h.hand(me);
                continue;
            }
            let (k, known) = (hidden(s), h.known_cards(s));
            need_rest -= k;
            let extra = (played.min(improve[s as usize]) as usize).min(pool.len() - at - k - need_rest);
            let mut hand = known | pool[at..at + k + extra].iter().copied().collect::<CardSet>();
            for _ in 0..extra {
                let c = thrown_back(h.rules(), hand, known);
                hand = hand.without(c);
                thrown.push(c);
            }
            hands[s as usize] = hand;
            at += extra;
            if count {
                bad += contradictions(h, hands[s as usize], h.declined(s));
            }
            at += k;
        }
        if bad < best.2 {
            let mut stock = pool[at..].to_vec();
            if !thrown.is_empty() {
                stock.extend_from_slice(&thrown);
                shuffle(&mut stock, rng);
            }
            best = (hands, stock, bad);
            if bad == 0 {
                break;
            }
        }
    }
    let (hands, stock, bad) = best;
    Some((h.with_hidden(&hands[..n as usize], &stock, rng.next_u64()), bad))
}

/// The card a `simple`-like player throws from `hand`, never one of `keep` (cards known to
/// be held): the loose card (none of its rank, none of its suit two ranks away) with the
/// most points, else the card with the most points.
fn thrown_back(rules: &engine::rummy::RummyRules, hand: CardSet, keep: CardSet) -> Card {
    let free = hand - keep;
    let loose = free - crate::tables::rummy_useful(hand);
    let pool = if loose.is_empty() { free } else { loose };
    pool.iter().max_by_key(|&c| (rules.card_points(c), c)).expect("a card to throw back")
}

/// How many of the cards a seat passed up (`declined`: the pile's tops it left, its
/// discards) would make a meld with two cards of `hand`: each is a move a `simple`-like
/// player would not have made holding them (it takes a top card that melds, melds at once,
/// discards a card that helps nothing first). A soft count: hands change, players differ.
fn contradictions(h: &RummyHand, hand: CardSet, declined: CardSet) -> u32 {
    let rules = h.rules();
    let mut bad = 0;
    for c in declined.iter() {
        // Only cards of its rank or suit can meld with it (as `simple`'s draw reads it).
        let b = c.bit() as u64;
        let near =
            CardSet::from_bits(0x0001_0001_0001_0001 << (b & 15) | 0x1FFF << (b & !15)) & hand.without(c);
        if near.len() >= 2
            && near.iter().any(|a| near.iter().any(|o| o > a && rules.is_meld(CardSet::from_iter([a, o, c]))))
        {
            bad += 1;
        }
    }
    bad
}

/// Plays `h` to its end with `simple` at every seat; the points `me` scores minus the
/// others' over `n − 1`.
fn rollout_rummy(mut h: RummyHand, me: u8, seed: u64) -> f64 {
    let mut rng = Rng::new(seed);
    while let Some(s) = h.to_act() {
        let a = crate::tables::rummy_simple(&h, s, &mut rng);
        if h.apply(s, a).is_err() {
            return 0.0;
        }
    }
    let Some(r) = h.result() else { return 0.0 };
    let n = h.rules().players as f64;
    match r.winner {
        Some(w) if w == me => r.points as f64,
        Some(_) => -(r.points as f64) / (n - 1.0),
        None => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::TableBot;
    use engine::{Format, Kind, Move, Table, TableSetup};

    /// Plays one game of `format` with `strong` (a budget of `rollouts`) at the seats of
    /// `strong_seats` and `simple` or `random` at the others; every move of `strong` must be
    /// legal. Returns its search statistics and its moves.
    fn play(
        format: &Format,
        seed: u64,
        strong_seats: &[u8],
        rollouts: u32,
    ) -> (SearchStats, Vec<(u8, Move)>) {
        let n = format.players();
        let mut t = Table::new(TableSetup::new(format.clone(), seed)).unwrap();
        let mut strong: Vec<TableStrong> =
            (0..n).map(|s| TableStrong::with_rollouts(seed ^ u64::from(s) << 40, rollouts)).collect();
        let mut others: Vec<TableBot> = (0..n)
            .map(|s| {
                let name = if (seed + u64::from(s)).is_multiple_of(3) { "random" } else { "simple" };
                TableBot::new(name, format.kind(), seed + u64::from(s)).unwrap()
            })
            .collect();
        while let Some(seat) = t.first_to_act() {
            let m = if strong_seats.contains(&seat) {
                match &t {
                    Table::Gin7(g) => Move::from(strong[seat as usize].act_gin7(g.hand(), seat)),
                    Table::Rummy(g) => Move::from(strong[seat as usize].act_rummy(g.hand(), seat)),
                    _ => unreachable!("gin-7 and rummy only"),
                }
            } else {
                others[seat as usize].act(&t, seat)
            };
            if let Err(e) = t.apply(seat, &m) {
                panic!(
                    "{} seat {seat} (strong: {}) played {m}: {e}",
                    format.name(),
                    strong_seats.contains(&seat)
                );
            }
        }
        let mut stats = SearchStats::default();
        for s in strong_seats {
            stats.add(&strong[*s as usize].stats());
        }
        (stats, t.moves())
    }

    fn formats() -> Vec<Format> {
        let mut v = Vec::new();
        for n in 3..=6 {
            v.push(Format::preset("gin-7").unwrap().with_players(n).unwrap());
        }
        for n in 2..=6 {
            v.push(Format::preset("rummy").unwrap().with_players(n).unwrap());
        }
        v
    }

    /// `strong` plays thousands of games at every size of gin-7 and rummy, one seat or
    /// several, against `simple` and `random`, and never makes an illegal move (a small
    /// budget: the search's moves are the same kinds at any budget).
    #[test]
    fn strong_plays_every_table_size_legally() {
        let mut games = 0;
        let mut searched = 0;
        for (f, format) in formats().iter().enumerate() {
            let n = format.players();
            for g in 0..240u64 {
                let seed = 1000 * f as u64 + g;
                let seats: Vec<u8> = if g % 4 == 0 { (0..n).collect() } else { vec![(g % n as u64) as u8] };
                let (stats, _) = play(format, seed, &seats, 4);
                // (A game may end before a seat acts: a rummy hand going out for 150 at once.)
                searched += stats.searched;
                games += 1;
            }
        }
        assert!(games >= 2000 && searched > 10_000, "{games} games, {searched} searched decisions");
    }

    /// The time limit is a count: no decision plays more than its budget of rollouts (each
    /// rollout is one hand played to its end, and every hand ends: the formats' turn
    /// limits), at every size, whatever the number of candidates; the default budget keeps
    /// the mean decision near a millisecond (docs/book/src/performance.md).
    #[test]
    fn strong_keeps_to_its_rollout_budget() {
        for format in formats() {
            for budget in [1, 7, 30] {
                let (stats, _) = play(&format, 77 + budget as u64, &[0], budget);
                assert!(stats.searched > 0, "{}", format.name());
                assert!(
                    stats.max_rollouts <= budget.max(MAX_CANDIDATES as u32),
                    "{}: {} rollouts in a decision, budget {budget}",
                    format.name(),
                    stats.max_rollouts
                );
                assert!(stats.rollouts <= stats.searched * u64::from(budget.max(MAX_CANDIDATES as u32)));
            }
        }
        assert_eq!(TableStrong::new(1).rollouts, ROLLOUTS);
    }

    /// Given its seed, `strong` plays the same game.
    #[test]
    fn strong_is_deterministic_given_its_seed() {
        for format in [formats()[1].clone(), formats()[6].clone()] {
            let a = play(&format, 5, &[1], 20).1;
            let b = play(&format, 5, &[1], 20).1;
            assert_eq!(a, b, "{}", format.name());
        }
        assert_eq!(Kind::Gin7, formats()[0].kind());
    }

    /// A rummy sample keeps every public fact and the cards known held, deals each seat as
    /// many cards as it holds and the stock as long, every card once (improved or not); more
    /// deals tried find fewer hands that contradict what the seats passed up; improved
    /// hands hold fewer loose cards than uniform ones.
    #[test]
    fn rummy_samples_keep_the_known_cards_and_the_counts() {
        let h = |s: &str| engine::hand(s);
        let rules = engine::rummy::RummyRules::for_players(3).unwrap();
        let deal = RummyHand::deal(&rules, 1, 0, 0).unwrap();
        assert_eq!(contradictions(&deal, h("5H 6H 9C"), h("7H")), 1, "a run");
        assert_eq!(contradictions(&deal, h("7C 7D 9C"), h("7H 2S")), 1, "a set");
        assert_eq!(contradictions(&deal, h("5H 9H 7C"), h("7H")), 0);
        assert_eq!(contradictions(&deal, h("7H 9H 2C"), h("7H")), 0, "one card with it");
        let (mut known, mut checked) = (0, 0);
        let mut bad = [0u32; 2];
        let mut loose = [0u32; 2];
        let loose_in = |hand: CardSet| {
            hand.iter()
                .filter(|&c| {
                    !hand.iter().any(|o| {
                        o != c
                            && (o.rank() == c.rank()
                                || (o.suit() == c.suit() && o.rank().index().abs_diff(c.rank().index()) <= 2))
                    })
                })
                .count() as u32
        };
        for n in 2..=6u8 {
            let rules = engine::rummy::RummyRules::for_players(n).unwrap();
            for seed in 0..30u64 {
                let mut hand = RummyHand::deal(&rules, seed, 0, (seed % u64::from(n)) as u8).unwrap();
                let mut rng = Rng::new(seed);
                while let Some(s) = hand.to_act() {
                    let me = (s + 1) % n;
                    let models = [
                        OpponentModel { redeals: 1, penalty: 0.5, improve: 0, learn: false },
                        OpponentModel { redeals: 8, penalty: 0.5, improve: 0, learn: false },
                        OpponentModel { improve: 0, ..OpponentModel::DEFAULT },
                        OpponentModel::DEFAULT,
                    ];
                    for (i, model) in models.into_iter().enumerate() {
                        let (w, b) = sample_rummy(&hand, me, model, &[model.improve; 6], &mut rng)
                            .expect("the counts agree");
                        assert_eq!(w.view_of(me), hand.view_of(me), "n {n} seed {seed}");
                        let others: u32 = (0..n)
                            .filter(|&o| o != me)
                            .map(|o| contradictions(&w, w.hand(o), w.declined(o)))
                            .sum();
                        if i < 2 {
                            assert_eq!(b, others);
                            bad[i] += b;
                        } else {
                            // The model off counts none.
                            assert_eq!(b, 0);
                            loose[i - 2] +=
                                (0..n).filter(|&o| o != me).map(|o| loose_in(w.hand(o))).sum::<u32>();
                        }
                        let mut total = w.pile_len() + w.stock_len();
                        total += w.table().iter().map(|m| m.cards.len() as usize).sum::<usize>();
                        let mut all =
                            w.pile_cards() | w.table().iter().fold(CardSet::EMPTY, |a, m| a | m.cards);
                        for o in 0..n {
                            assert!(w.hand(o).is_superset(hand.known_cards(o)));
                            assert_eq!(w.hand(o).len(), hand.hand(o).len());
                            known += hand.known_cards(o).len();
                            total += w.hand(o).len() as usize;
                            all |= w.hand(o);
                        }
                        // Every card once: the hands, the pile and the table disjoint, the
                        // stock the rest.
                        assert_eq!((total, all.len() as usize + w.stock_len()), (52, 52));
                        checked += 1;
                    }
                    let a = crate::tables::rummy_simple(&hand, s, &mut rng);
                    hand.apply(s, a).unwrap();
                }
            }
        }
        assert!(checked > 5000 && known > 500, "{checked} samples, {known} known cards");
        assert!(bad[1] * 2 < bad[0], "contradictions: {bad:?}");
        assert!(loose[1] * 10 < loose[0] * 9, "loose cards, uniform and improved: {loose:?}");
    }

    /// A seat throws back its loosest, highest card, never one known held.
    #[test]
    fn an_improved_hand_throws_back_the_loose_high_cards() {
        let h = |s: &str| engine::hand(s);
        let rules = engine::rummy::RummyRules::for_players(2).unwrap();
        let c = |s: &str| h(s).iter().next().unwrap();
        assert_eq!(thrown_back(&rules, h("KS 2C 5H 6H 9D"), CardSet::EMPTY), c("KS"));
        assert_eq!(thrown_back(&rules, h("KS 2C 5H 6H 9D"), h("KS")), c("9D"));
        // No loose card: the highest.
        assert_eq!(thrown_back(&rules, h("KS KH 5H 6H"), CardSet::EMPTY), c("KS").max(c("KH")));
    }

    /// Rummy for `n`, `strong` (a budget of 40 rollouts) at seat 0 learning from showdowns
    /// and `others[s - 1]` at the others, one game for each seed of `seeds`: what it learnt
    /// by each game's end (its levels and the evidence for uniform over improved, by seat)
    /// and its statistics.
    fn learnt(
        n: u8,
        others: &[&str],
        seeds: std::ops::Range<u64>,
        model: OpponentModel,
    ) -> Vec<([u32; 6], [f64; 6], SearchStats)> {
        let format = Format::preset("rummy").unwrap().with_players(n).unwrap();
        seeds
            .map(|seed| {
                let mut t = Table::new(TableSetup::new(format.clone(), seed)).unwrap();
                let mut bots: Vec<TableBot> = (0..n)
                    .map(|s| {
                        let name = if s == 0 { "strong" } else { others[s as usize - 1] };
                        TableBot::new(name, format.kind(), seed + u64::from(s)).unwrap()
                    })
                    .collect();
                bots[0].strong = Some(TableStrong::with_rollouts(seed, 40).with_model(model));
                while let Some(seat) = t.first_to_act() {
                    let m = bots[seat as usize].act(&t, seat);
                    t.apply(seat, &m).unwrap();
                }
                let strong = bots[0].strong.as_ref().unwrap();
                (strong.rummy_levels(), strong.showdown_ll.map(|ll| ll[0] - ll[1]), strong.stats())
            })
            .collect()
    }

    /// `strong` learns from the rummy showdowns which seats keep anything (`random`: sampled
    /// uniform) and which improve their hands (`simple`: sampled improved, never taken for
    /// uniform); off, it learns nothing.
    #[test]
    fn rummy_showdowns_tell_a_loose_player_from_one_who_improves() {
        let (mut uniform, mut evidence, mut showdowns) = ([0; 3], [0; 3], 0);
        for (levels, for_uniform, stats) in
            learnt(4, &["simple", "random", "simple"], 0..30, OpponentModel::DEFAULT)
        {
            for s in 1..4 {
                uniform[s - 1] += u32::from(levels[s] == 0);
                evidence[s - 1] += u32::from(for_uniform[s] > 0.0);
            }
            assert_eq!(levels[0], OpponentModel::DEFAULT.improve, "its own seat is never weighed");
            showdowns += stats.showdowns;
        }
        assert!(showdowns >= 60, "{showdowns} showdowns in 30 games");
        assert_eq!((uniform[0], uniform[2]), (0, 0), "simple is never taken for uniform: {uniform:?}");
        assert!(uniform[1] >= 8, "random is found uniform in few games: {uniform:?}");
        assert!(evidence[1] >= 20 && evidence[0] + evidence[2] <= 10, "evidence for uniform: {evidence:?}");
        // Two players, against each alone.
        let simple = learnt(2, &["simple"], 0..20, OpponentModel::DEFAULT);
        assert!(simple.iter().all(|(l, e, _)| l[1] == OpponentModel::DEFAULT.improve && e[1] <= 0.0));
        assert!(simple.iter().filter(|(_, e, _)| e[1] < -4.0).count() >= 16);
        let random = learnt(2, &["random"], 0..20, OpponentModel::DEFAULT);
        assert!(random.iter().filter(|(l, _, _)| l[1] == 0).count() >= 6);
        assert!(random.iter().filter(|(_, e, _)| e[1] > 0.0).count() >= 16);
        // Off: nothing weighed.
        let off = OpponentModel { learn: false, ..OpponentModel::DEFAULT };
        for (levels, for_uniform, stats) in learnt(2, &["random"], 0..5, off) {
            assert_eq!((levels, for_uniform, stats.showdowns), ([off.improve; 6], [0.0; 6], 0));
        }
    }
}
