//! Match statistics: Elo difference with a 95% interval, and the SPRT stop rule.
//!
//! A match is a list of scores in `[0, 1]` for one side (1 win, 0.5 draw, 0 loss; with
//! duplicate deals, each pair of games counts as one observation, the mean of its two
//! scores, which removes most of the luck of the deal from the variance).

/// Elo difference for an expected score `s` (0 < s < 1): `-400 log10(1/s - 1)`.
pub fn elo_from_score(s: f64) -> f64 {
    let s = s.clamp(1e-9, 1.0 - 1e-9);
    -400.0 * (1.0 / s - 1.0).log10()
}

/// Expected score for an Elo difference.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Mean and variance (population) of observations, as running sums.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Tally {
    /// Observations.
    pub n: u64,
    /// Sum of the observations.
    pub sum: f64,
    /// Sum of their squares.
    pub sum_sq: f64,
}

impl Tally {
    /// Adds one observation.
    pub fn add(&mut self, x: f64) {
        self.n += 1;
        self.sum += x;
        self.sum_sq += x * x;
    }

    /// The mean score.
    pub fn mean(&self) -> f64 {
        if self.n == 0 { 0.5 } else { self.sum / self.n as f64 }
    }

    /// The per-observation variance.
    pub fn variance(&self) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        let m = self.mean();
        (self.sum_sq / self.n as f64 - m * m).max(0.0)
    }

    /// Elo difference and its 95% interval `(low, elo, high)`; `None` with no observation.
    pub fn elo(&self) -> Option<EloEstimate> {
        if self.n == 0 {
            return None;
        }
        let m = self.mean();
        let se = (self.variance() / self.n as f64).sqrt();
        Some(EloEstimate {
            elo: elo_from_score(m),
            low: elo_from_score(m - 1.959_964 * se),
            high: elo_from_score(m + 1.959_964 * se),
            score: m,
        })
    }

    /// The log-likelihood ratio of H1 (`elo1`) against H0 (`elo0`), by the normal
    /// approximation of the generalized SPRT: `n (s1 - s0) (2 m - s0 - s1) / (2 v)`, with
    /// mean and variance taken over the observations plus one prior win and one prior loss
    /// (so a run of identical results has a variance, and the first few results cannot
    /// decide the test alone).
    pub fn llr(&self, elo0: f64, elo1: f64) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        let mut t = *self;
        t.add(1.0);
        t.add(0.0);
        let v = t.variance();
        let (s0, s1) = (score_from_elo(elo0), score_from_elo(elo1));
        t.n as f64 * (s1 - s0) * (2.0 * t.mean() - s0 - s1) / (2.0 * v)
    }
}

/// An Elo difference with its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct EloEstimate {
    /// The estimate.
    pub elo: f64,
    /// Lower bound of the 95% interval.
    pub low: f64,
    /// Upper bound of the 95% interval.
    pub high: f64,
    /// The mean score it comes from.
    pub score: f64,
}

impl std::fmt::Display for EloEstimate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:+.1} [{:+.1}, {:+.1}]", self.elo, self.low, self.high)
    }
}

/// A sequential probability ratio test between two Elo hypotheses.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Sprt {
    /// H0: the Elo difference is `elo0`.
    pub elo0: f64,
    /// H1: the Elo difference is `elo1`.
    pub elo1: f64,
    /// False positive rate.
    pub alpha: f64,
    /// False negative rate.
    pub beta: f64,
}

/// Where an SPRT stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum SprtState {
    /// Keep playing.
    Continue,
    /// H1 accepted.
    AcceptH1,
    /// H0 accepted.
    AcceptH0,
}

impl Sprt {
    /// The decision bounds `(lower, upper)` on the LLR.
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The test's state after `tally`.
    pub fn state(&self, tally: &Tally) -> SprtState {
        let llr = tally.llr(self.elo0, self.elo1);
        let (lo, hi) = self.bounds();
        if llr >= hi {
            SprtState::AcceptH1
        } else if llr <= lo {
            SprtState::AcceptH0
        } else {
            SprtState::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, eps: f64) -> bool {
        (a - b).abs() < eps
    }

    #[test]
    fn elo_of_known_scores() {
        assert!(close(elo_from_score(0.5), 0.0, 1e-9));
        // 75% is +190.8 Elo; 64% is +100.0 (the classic table).
        assert!(close(elo_from_score(0.75), 190.85, 0.01));
        assert!(close(elo_from_score(0.64), 100.0, 0.2));
        assert!(close(score_from_elo(elo_from_score(0.3)), 0.3, 1e-12));
        assert!(elo_from_score(0.25) < 0.0);
    }

    #[test]
    fn interval_of_a_known_match() {
        // 60 wins, 40 losses: mean 0.6, variance 0.24, se 0.049; 95%: 0.504 .. 0.696.
        let mut t = Tally::default();
        for i in 0..100 {
            t.add(if i < 60 { 1.0 } else { 0.0 });
        }
        let e = t.elo().unwrap();
        assert!(close(e.score, 0.6, 1e-12));
        assert!(close(e.elo, 70.44, 0.01), "{e:?}");
        assert!(close(e.low, elo_from_score(0.6 - 1.959_964 * 0.24f64.sqrt() / 10.0), 1e-9));
        assert!(close(e.low, 2.767, 0.001) && close(e.high, 143.909, 0.001), "{e:?}");
    }

    #[test]
    fn sprt_accepts_the_true_hypothesis() {
        let s = Sprt { elo0: 0.0, elo1: 50.0, alpha: 0.05, beta: 0.05 };
        let (lo, hi) = s.bounds();
        assert!(close(hi, 2.944, 0.001) && close(lo, -2.944, 0.001));
        // A side scoring 75% is quickly accepted as better than H1's 57%.
        let mut t = Tally::default();
        let mut state = SprtState::Continue;
        for i in 0..400 {
            t.add(if i % 4 == 3 { 0.0 } else { 1.0 });
            state = s.state(&t);
            if state != SprtState::Continue {
                break;
            }
        }
        assert_eq!(state, SprtState::AcceptH1);
        // An even match is accepted as H0.
        let mut t = Tally::default();
        for i in 0..2000 {
            t.add(if i % 2 == 0 { 0.0 } else { 1.0 });
        }
        assert_eq!(s.state(&t), SprtState::AcceptH0);
        // Straight wins: decided after a handful of games, not after one.
        let mut t = Tally::default();
        t.add(1.0);
        assert_eq!(s.state(&t), SprtState::Continue);
        let mut n = 1;
        while s.state(&t) == SprtState::Continue {
            t.add(1.0);
            n += 1;
        }
        assert_eq!(s.state(&t), SprtState::AcceptH1);
        assert!((3..30).contains(&n), "{n}");
    }
}
