//! `random`: uniform over the legal actions (knocks with engine-chosen melds).

use engine::Action;

use crate::rng::Rng;
use crate::strategy::{Decision, Strategy};

/// Picks uniformly among the legal actions.
pub struct RandomStrategy {
    rng: Rng,
}

impl RandomStrategy {
    /// A random player seeded by `seed`.
    pub fn new(seed: u64) -> RandomStrategy {
        RandomStrategy { rng: Rng::new(seed) }
    }
}

impl Strategy for RandomStrategy {
    fn name(&self) -> &str {
        "random"
    }

    fn act(&mut self, d: &Decision<'_>) -> Action {
        let n = d.legal.count();
        d.legal.nth(self.rng.below(n.max(1))).unwrap_or(Action::DrawStock)
    }
}
