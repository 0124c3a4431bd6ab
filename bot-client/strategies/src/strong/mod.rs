//! `strong`: a determinized Monte Carlo player over an inferred opponent model.
//!
//! # The idea
//!
//! - **Memory and inference** (`model.rs`): every card this seat has seen is tracked (its
//!   own, every face-up card); the rest is either in the opponent's hand or in the stock.
//!   Cards the opponent took from the pile are certain; its pickups make their meld
//!   neighbours likelier, its discards and declined cards make theirs less likely. Sampled
//!   opponent hands are drawn by those weights and then *improved* the way a
//!   deadwood-minimizing player improves its hand over its draws (draw a few extra cards,
//!   drop the worst), so that late in a hand the samples hold low deadwood, as real hands do.
//!   The samples are then resampled by how well they explain the opponent's last discards:
//!   a minimizer throws away the card whose loss hurts least, so a hand in which its last
//!   discard was a blunder is very unlikely; and a hand the opponent could have knocked
//!   with after its last discard is unlikely too, as far as it is an eager knocker, which
//!   would have knocked ([`ModelTuning::eager_keeps`]).
//! - **Rollouts** (`sim.rs`, `melds.rs`): a determinization (opponent hand + stock order) is played to
//!   the end of the hand by a fast baseline policy for both seats, without allocating. In
//!   them both seats may wait for a better knock ([`Tuning::us_wait`], [`Tuning::opp_wait`],
//!   [`Tuning::late`]), as long as the opponent has shown it is a patient knocker
//!   (`patience.rs`: learnt from this game's showdowns, [`Tuning::adapt`]): the rollouts'
//!   opponent must play like the real one. Waiting always took `strong` from 47.5% to
//!   61–64% of games against `strong-v1` but from 79% to 74% against `simple`, which knocks
//!   at the first chance; adapting keeps most of both (docs/book/src/performance.md, "Bots"). Eleven melded cards
//!   count as a gin in rollouts, even under rules with big gin ([`Tuning::rollout_big_gin`]).
//!   All
//!   candidate actions of one decision are compared on the same determinizations (common
//!   random numbers), so their difference is far less noisy than each value.
//! - **Discard**: the candidates are the legal discards ranked by deadwood left minus the
//!   expected deadwood reduction of the next draw (draw potential); the best few are played
//!   out. Rollouts weigh the seat's own progress against feeding the opponent (a sampled
//!   opponent takes a discard that joins its melds) and against being knocked on.
//! - **Draw**: the pile's top is taken only when rollouts after taking it beat rollouts after
//!   a stock draw (or pass of the upcard, with the offer's exact sequence); cards that
//!   neither join nor neighbour anything, and would not lower deadwood much, are declined
//!   without search.
//! - **Knock**: gin and big gin are always played. Otherwise a knock's value is scored
//!   exactly against each sampled opponent hand (its melds, layoffs and undercuts), and
//!   compared with the rollouts of the best discards: the seat knocks only when that is
//!   worth more, so it waits for gin when an undercut is likely.
//! - **Knock melds**: among the minimum-deadwood arrangements, the one that leaves the
//!   sampled opponent hands the most deadwood after their layoffs.
//!
//! - **Game score** (`value.rs`, off by default): decisions may maximize the chance to win
//!   the race to the target instead of the hand's expected points; against `simple` that
//!   measured worse, so plain points are used.
//!
//! Draw-time samples are reused at the discard of the same turn. Everything is seeded: the
//! same seed plays the same game.

mod melds;
mod model;
mod patience;
mod sim;
mod value;

use engine::{Action, Card, CardSet, Meld, deadwood, deadwood_after_best_discard, deadwood_by_discard};

use crate::memory::Seen;
use crate::rng::Rng;
use crate::strategy::{Choice, Decision, Strategy};

use model::Model;
pub use model::ModelTuning;
use sim::{OPP, Params, Sim, US, melds_with};

/// Search sizes and heuristic weights.
#[derive(Clone, Copy, Debug)]
pub struct Tuning {
    /// The opponent model's weights.
    pub model: ModelTuning,
    /// Determinizations for a draw decision (each plays two rollouts).
    pub draw_samples: usize,
    /// Rollouts for a discard decision, shared among its candidates.
    pub discard_rollouts: usize,
    /// At most this many discards are played out.
    pub candidates: usize,
    /// Weight of the draw potential when ranking discards.
    pub potential: f32,
    /// Maximize the chance to win the game (not the hand's expected points).
    pub game_aware: bool,
    /// Points per rollout by which a knock may trail the best continuation and still be
    /// played (the best of several noisy estimates is biased upwards).
    pub knock_bias: f32,
    /// In rollouts, this seat knocks only with at most `limit - us_wait` deadwood (gin
    /// always), until the stock is down to `late` cards; 0 knocks as soon as allowed.
    /// Against a patient opponent (scaled by the chance that it is one when `adapt`).
    pub us_wait: u32,
    /// The same for the opponent in rollouts.
    pub opp_wait: u32,
    /// With this many stock cards or fewer, rollouts knock as soon as allowed (when the
    /// opponent is likelier patient than not, with `adapt`).
    pub late: usize,
    /// Scale the waits by the chance that the opponent is a patient knocker, learnt from
    /// this game's showdowns (`patience.rs`); otherwise wait as set.
    pub adapt: bool,
    /// That chance before the game's first showdown.
    pub prior: f32,
    /// Under rules with big gin, rollouts score eleven melded cards as a big gin (with its
    /// bonus) rather than as a gin. Off: the bonus on the opponent's side of the rollouts
    /// made `strong` knock early and be undercut three times as often (docs/book/src/performance.md).
    pub rollout_big_gin: bool,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            model: ModelTuning::default(),
            draw_samples: 256,
            discard_rollouts: 2400,
            candidates: 5,
            potential: 1.0,
            game_aware: false,
            knock_bias: 0.0,
            us_wait: 10,
            opp_wait: 10,
            late: 4,
            adapt: true,
            prior: 0.5,
            rollout_big_gin: false,
        }
    }
}

/// What a hand result (points for this seat, negative when the opponent scores) is worth.
struct Utility {
    table: Vec<f32>,
    mult: i32,
}

/// Hand results beyond this many points count as this many.
const RANGE: i32 = 300;

impl Utility {
    fn new(d: &Decision<'_>, game_aware: bool) -> Utility {
        let doubled =
            d.rules.spade_upcard_doubles && d.memory.upcard.is_some_and(|u| u.suit() == engine::Suit::Spades);
        let mult = if doubled { 2 } else { 1 };
        let table = if game_aware {
            let (a, b) = (d.scores[d.seat], d.scores[d.opponent()]);
            value::WinTable::for_rules(d.rules).utilities(a, b, RANGE as usize)
        } else {
            (-RANGE..=RANGE).map(|r| r as f32 / 100.0).collect()
        };
        Utility { table, mult }
    }

    #[inline]
    fn of(&self, r: i32) -> f64 {
        f64::from(self.table[((r * self.mult).clamp(-RANGE, RANGE) + RANGE) as usize])
    }
}

/// `n` opponent hands (the whole hand, as card bits) drawn by the opponent model at `d`
/// with the default weights, against a patient knocker with chance `patient`: for probes
/// that compare inference methods (`learned::infer`).
pub fn model_hands(d: &Decision<'_>, patient: f64, n: usize, seed: u64) -> Vec<u64> {
    Model::new(d, &ModelTuning::default(), patient).hands(&mut Rng::new(seed), n)
}

/// The strong player.
pub struct StrongStrategy {
    rng: Rng,
    t: Tuning,
    /// Opponent hands sampled at this turn's draw, reused at its discard (nothing the
    /// opponent did has changed in between; hands holding the card drawn are dropped).
    cache: Vec<u64>,
    /// The hand number and the opponent's move count the cache belongs to.
    cache_key: (u32, usize),
}

impl StrongStrategy {
    /// A strong player seeded by `seed`.
    pub fn new(seed: u64) -> StrongStrategy {
        StrongStrategy::with_tuning(seed, Tuning::default())
    }

    /// A strong player with its own search sizes and weights.
    pub fn with_tuning(seed: u64, t: Tuning) -> StrongStrategy {
        StrongStrategy { rng: Rng::new(seed), t, cache: Vec::new(), cache_key: (u32::MAX, 0) }
    }

    /// The chance that the opponent is a patient knocker (`prior` without `adapt`).
    fn patience(&self, d: &Decision<'_>) -> f64 {
        if self.t.adapt {
            patience::patience(&d.memory.opp_showdowns, f64::from(self.t.prior))
        } else {
            f64::from(self.t.prior)
        }
    }

    /// The rollouts' parameters for the hand of `d`.
    fn params(&self, d: &Decision<'_>) -> Params {
        let mut pr = Params::new(d.rules, d.knock_limit);
        let (mut us, mut opp, mut late) = (self.t.us_wait, self.t.opp_wait, self.t.late);
        if self.t.adapt {
            let p = self.patience(d);
            us = (f64::from(us) * p).round() as u32;
            opp = (f64::from(opp) * p).round() as u32;
            late = if p >= 0.5 { late } else { 0 };
        }
        pr.knock_at = [d.knock_limit.saturating_sub(us), d.knock_limit.saturating_sub(opp)];
        pr.late = late;
        if !self.t.rollout_big_gin {
            pr.big_gin = None;
        }
        pr
    }

    fn draw(&mut self, d: &Decision<'_>) -> Action {
        let Some(top) = d.pile_top() else { return d.decline() };
        if !d.legal.draw_pile {
            return d.decline();
        }
        let h = d.hand;
        let dw = deadwood(h) as i32;
        let with = deadwood_by_discard(h.with(top));
        let best_with = h.iter().map(|c| with[c.bit() as usize] as i32).min().unwrap_or(dw);
        // A card this seat threw away this hand is taken back only for gin. Two players who
        // retake each other's discards can pass the same cards round for ever, the stock
        // never shrinking (`strong` against `strong-v1` did, with three aces): if one of them
        // never retakes its own discards, the cards cannot come round again.
        if d.memory.own_discards.contains(top) && best_with > 0 {
            return d.decline();
        }
        let related = sim::near(top.bit()) & h.bits() != 0;
        if !related && dw - best_with < 4 {
            return d.decline();
        }
        let model = Model::new(d, &self.t.model, self.patience(d));
        let pr = self.params(d);
        let offer_first =
            d.legal.pass && !d.memory.opp_moves.iter().any(|m| matches!(m, Seen::Passed { .. }));
        let mut stock = [top; 52];
        let util = Utility::new(d, self.t.game_aware);
        let mut diff = 0f64;
        let hands = model.hands(&mut self.rng, self.t.draw_samples);
        for &opp in &hands {
            let n = model.stock_for(opp, &mut self.rng, &mut stock);
            let base = Sim::new([h.bits(), opp], &stock[..n], d.pile);
            let mut s = base;
            let c = s.take_pile(US);
            let take = match s.policy_discard(US, Some(c), &pr) {
                Some(r) => r,
                None => s.run(OPP, &pr),
            };
            let mut s = base;
            let decline = if d.legal.pass {
                if offer_first {
                    if melds_with(opp, top.bit()) {
                        let c = s.take_pile(OPP);
                        match s.policy_discard(OPP, Some(c), &pr) {
                            Some(r) => r,
                            None => s.run(US, &pr),
                        }
                    } else {
                        s.stock_only = true;
                        s.run(US, &pr)
                    }
                } else {
                    s.stock_only = true;
                    s.run(OPP, &pr)
                }
            } else if s.draw_stock(US) {
                match s.policy_discard(US, None, &pr) {
                    Some(r) => r,
                    None => s.run(OPP, &pr),
                }
            } else {
                0
            };
            diff += util.of(take) - util.of(decline);
        }
        self.cache = hands;
        self.cache_key = (d.memory.hand_number, d.memory.opp_moves.len());
        if diff > 0.0 { Action::DrawPile } else { d.decline() }
    }

    fn discard(&mut self, d: &Decision<'_>) -> Action {
        if d.legal.big_gin {
            return Action::BigGin { melds: None };
        }
        let h = d.hand;
        let table = deadwood_by_discard(h);
        let tv = |c: Card| table[c.bit() as usize];
        // Gin: always.
        if let Some(c) = d.legal.knocks.iter().filter(|&c| tv(c) == 0).max_by_key(|c| c.value()) {
            return Action::knock(c);
        }
        let knock = d.legal.knocks.iter().min_by_key(|&c| (tv(c), std::cmp::Reverse(c.value())));
        let model = Model::new(d, &self.t.model, self.patience(d));
        let cands = self.candidates(d, &table, &model);
        let pr = self.params(d);
        let n_arms = cands.len() + usize::from(knock.is_some());
        if n_arms == 1 && knock.is_none() {
            return Action::Discard { card: cands[0] };
        }
        let samples = (self.t.discard_rollouts / n_arms.max(1)).max(16);
        let mut stock = [cands[0]; 52];
        let mut opps = [0u64; 256];
        let samples = samples.min(opps.len());
        let util = Utility::new(d, self.t.game_aware);
        let mut sums = [0f64; 16];
        let hands = self.hands(d, &model, samples);
        for (opp_slot, &opp) in opps.iter_mut().zip(&hands) {
            let n = model.stock_for(opp, &mut self.rng, &mut stock);
            *opp_slot = opp;
            let base = Sim::new([h.bits(), opp], &stock[..n], d.pile);
            for (i, &c) in cands.iter().enumerate() {
                let mut s = base;
                let r = if s.discard(US, c.bit()) { 0 } else { s.run(OPP, &pr) };
                sums[i] += util.of(r);
            }
        }
        let (mut best_i, mut best_v) = (0usize, f64::MIN);
        for (i, &v) in sums[..cands.len()].iter().enumerate() {
            if v > best_v {
                best_i = i;
                best_v = v;
            }
        }
        if let Some(kc) = knock {
            let kept = h.without(kc).bits();
            let (kv, melds) = knock_value(kept, &opps[..samples], &pr, &util);
            let bias = f64::from(self.t.knock_bias) / 100.0 * samples as f64;
            if kv + bias > best_v {
                return Action::Knock { discard: kc, melds: Some(melds) };
            }
        }
        Action::Discard { card: cands[best_i] }
    }

    /// `n` opponent hands for a decision: those sampled at this turn's draw, if any, then
    /// fresh ones.
    fn hands(&mut self, d: &Decision<'_>, model: &Model, n: usize) -> Vec<u64> {
        let mut out = Vec::with_capacity(n);
        if self.cache_key == (d.memory.hand_number, d.memory.opp_moves.len()) {
            let mine = d.hand.bits();
            out.extend(self.cache.iter().copied().filter(|&h| h & mine == 0).take(n));
        }
        self.cache.clear();
        self.cache_key = (u32::MAX, 0);
        if out.len() < n {
            out.extend(model.hands(&mut self.rng, n - out.len()));
        }
        out
    }

    /// The discards worth playing out, best first by deadwood left minus draw potential.
    fn candidates(&self, d: &Decision<'_>, table: &[u8; 64], model: &Model) -> Vec<Card> {
        let legal = d.legal.discards;
        let min = legal.iter().map(|c| table[c.bit() as usize]).min().unwrap_or(0);
        let unseen = model.unseen();
        let mut scored: Vec<(f32, Card)> = Vec::with_capacity(11);
        for c in legal {
            let left = table[c.bit() as usize];
            if left > min.saturating_add(12) {
                continue;
            }
            let rest = d.hand.without(c);
            let mut gain = 0u32;
            for &u in unseen {
                let v = deadwood_after_best_discard(rest.with(u)).unwrap_or(0);
                gain += u32::from(left).saturating_sub(v);
            }
            let pot = gain as f32 / unseen.len().max(1) as f32;
            scored.push((f32::from(left) - self.t.potential * pot, c));
        }
        scored.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.value().cmp(&a.1.value())));
        scored.truncate(self.t.candidates.clamp(1, 16));
        scored.into_iter().map(|(_, c)| c).collect()
    }
}

/// The total score over `opps` of knocking with `kept`, with the best minimum-deadwood
/// melds for it (the one that leaves the defenders the most deadwood after layoffs).
fn knock_value(kept: u64, opps: &[u64], pr: &Params, util: &Utility) -> (f64, Vec<Meld>) {
    let k = deadwood(CardSet::from_bits(kept)) as i32;
    let mut best: Option<(f64, melds::Melds)> = None;
    melds::for_each_min(kept, |ms| {
        let mut total = 0f64;
        for &opp in opps {
            let dd = melds::defender_deadwood(opp, ms.as_slice()) as i32;
            total += util.of(if k < dd { dd - k } else { -(k - dd + pr.undercut_bonus as i32) });
        }
        if best.is_none_or(|b| total > b.0) {
            best = Some((total, *ms));
        }
    });
    let (v, ms) = best.expect("every hand has an arrangement");
    let melds = ms
        .as_slice()
        .iter()
        .map(|&m| Meld::new(CardSet::from_bits(m)).expect("the solver's melds are melds"))
        .collect();
    (v, melds)
}

impl Strategy for StrongStrategy {
    fn name(&self) -> &str {
        "strong"
    }

    fn act(&mut self, d: &Decision<'_>) -> Action {
        match d.choice() {
            Choice::Offer | Choice::Draw => self.draw(d),
            Choice::Discard => self.discard(d),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::{Memory, OppShowdown};
    use engine::{BySeat, Legal, RuleSet, Seat, card, hand};

    /// The rollouts' parameters under standard rules, after showdowns in which the opponent
    /// knocked with the given deadwoods (limit 10), or, when negative, defended with that
    /// many (negated) deadwood points in its ten cards.
    fn params(t: Tuning, shown: &[i32]) -> Params {
        let rules = RuleSet::standard();
        let mut m = Memory::new(Seat::S0);
        m.opp_showdowns = shown
            .iter()
            .map(|&d| OppShowdown { knocked: d >= 0, deadwood: d.unsigned_abs(), limit: 10 })
            .collect();
        let pile = [card("QD")];
        let d = Decision {
            seat: Seat::S0,
            rules: &rules,
            hand: hand("AC 2C 3C 4D 5D 6D 7H 8H 9H KS"),
            pile: &pile,
            stock_len: 20,
            taken: None,
            knock_limit: 10,
            legal: Legal { seat: Some(Seat::S0), draw_stock: true, draw_pile: true, ..Legal::default() },
            scores: BySeat::new(0, 0),
            memory: &m,
        };
        StrongStrategy::with_tuning(1, t).params(&d)
    }

    /// Their knock thresholds (this seat, the opponent) and late stock.
    fn waits(t: Tuning, shown: &[i32]) -> ([u32; 2], usize) {
        let pr = params(t, shown);
        (pr.knock_at, pr.late)
    }

    #[test]
    fn rollouts_score_eleven_melded_cards_as_a_gin_unless_told_otherwise() {
        // Standard rules have big gin (31); the rollouts leave it out by default.
        assert_eq!(params(Tuning::default(), &[]).big_gin, None);
        let t = Tuning { rollout_big_gin: true, ..Tuning::default() };
        assert_eq!(params(t, &[]).big_gin, Some(31));
    }

    #[test]
    fn rollouts_wait_as_long_as_the_opponent_has_shown_it_waits() {
        let t = Tuning { us_wait: 10, opp_wait: 8, late: 6, adapt: true, prior: 0.3, ..Tuning::default() };
        // Before any knock: 30% of the waits, no late rule.
        assert_eq!(waits(t, &[]), ([7, 8], 0));
        // Two gins: a patient opponent; the full waits.
        assert_eq!(waits(t, &[0, 0]), ([0, 2], 6));
        // Caught able to knock (6 deadwood) when it defended: patient too.
        assert!(waits(t, &[-6]).0[1] <= 3);
        // Three knocks near the limit, a defence far over it: an eager one; knock as soon
        // as allowed.
        assert_eq!(waits(t, &[9, 8, 10]), ([10, 10], 0));
        assert_eq!(waits(t, &[9, -25, 10]), ([10, 10], 0));
        // Without `adapt` the waits are as set, whatever the knocks.
        let fixed = Tuning { adapt: false, ..t };
        assert_eq!(waits(fixed, &[9, 8, 10]), ([0, 2], 6));
    }
}
