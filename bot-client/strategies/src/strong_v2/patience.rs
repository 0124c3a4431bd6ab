//! How patient a knocker the opponent is, learnt from this game's showdowns.
//!
//! Two kinds of knockers are told apart. An *eager* one knocks at its first chance, mostly
//! with deadwood near the limit and almost never with gin (`simple`, `early-knocker`,
//! `defensive`). A *patient* one waits, for gin or a low knock (`strong-v1`, `gin-hunter`,
//! `strong`). Each showdown says something:
//!
//! - the opponent knocked: with gin, low (up to two fifths of the limit) or high deadwood;
//! - the opponent defended: its ten cards, as it held them after its last discard, were at
//!   or under the limit (it could have knocked then and did not) or over it. An eager
//!   knocker is almost never caught able to knock.
//!
//! The chances of each under each kind were measured in self-play (60 games of each
//! pairing, competition and standard rules: `simple`, `early-knocker` and `defensive`
//! defended able to knock in 0% of showdowns, `strong-v1` 28–29%, `gin-hunter` 41%); Bayes'
//! rule turns what was seen into the chance that the opponent is patient. The rollouts
//! then make both seats wait in proportion ([`super::Tuning::adapt`]).

use crate::memory::OppShowdown;

/// Chances of a (gin, low, high) knock by an eager knocker.
const EAGER_KNOCK: [f64; 3] = [0.02, 0.20, 0.78];
/// The same for a patient one.
const PATIENT_KNOCK: [f64; 3] = [0.40, 0.30, 0.30];
/// Chance that an eager defender could have knocked.
const EAGER_COULD: f64 = 0.02;
/// The same for a patient one.
const PATIENT_COULD: f64 = 0.30;

/// The likelihood ratio (patient against eager) of one showdown.
fn ratio(s: &OppShowdown) -> f64 {
    if s.knocked {
        let b = if s.deadwood == 0 {
            0
        } else if s.deadwood * 5 <= s.limit * 2 {
            1
        } else {
            2
        };
        PATIENT_KNOCK[b] / EAGER_KNOCK[b]
    } else if s.deadwood <= s.limit {
        PATIENT_COULD / EAGER_COULD
    } else {
        (1.0 - PATIENT_COULD) / (1.0 - EAGER_COULD)
    }
}

/// The chance that the opponent of `shown` is patient, from the chance `prior` before any.
pub fn patience(shown: &[OppShowdown], prior: f64) -> f64 {
    let prior = prior.clamp(1e-6, 1.0 - 1e-6);
    let log_odds = shown.iter().fold((prior / (1.0 - prior)).ln(), |acc, s| acc + ratio(s).ln());
    1.0 / (1.0 + (-log_odds).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn knock(deadwood: u32, limit: u32) -> OppShowdown {
        OppShowdown { knocked: true, deadwood, limit }
    }

    fn defence(deadwood: u32) -> OppShowdown {
        OppShowdown { knocked: false, deadwood, limit: 10 }
    }

    #[test]
    fn gins_and_unplayed_knocks_show_patience_high_knocks_eagerness() {
        assert!((patience(&[], 0.3) - 0.3).abs() < 1e-9);
        // One gin, or one defence that could have knocked, is strong evidence.
        assert!(patience(&[knock(0, 10)], 0.3) > 0.8);
        assert!(patience(&[defence(6)], 0.3) > 0.8);
        // A high knock and a defence over the limit are weaker evidence the other way.
        assert!(patience(&[knock(9, 10)], 0.3) < 0.2);
        assert!(patience(&[defence(25)], 0.3) < 0.3);
        let eager = [knock(9, 10), knock(8, 10), defence(30), defence(14)];
        assert!(patience(&eager, 0.3) < 0.05);
        assert!(patience(&[knock(9, 10), knock(8, 10), knock(0, 10)], 0.3) > patience(&eager[..2], 0.3));
        // Low is relative to the hand's limit: 3 of 10 is low, 3 of 5 high.
        assert!(ratio(&knock(3, 10)) > 1.0);
        assert!(ratio(&knock(3, 5)) < 1.0);
        assert!(ratio(&knock(2, 5)) > 1.0);
    }
}
