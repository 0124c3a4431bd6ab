//! `strong`: placeholder until the real strategy lands (plays like `simple`).

use engine::Action;

use crate::simple::SimpleStrategy;
use crate::strategy::{Decision, Strategy};

/// The strong player.
pub struct StrongStrategy {
    inner: SimpleStrategy,
}

impl StrongStrategy {
    /// A strong player seeded by `seed`.
    pub fn new(seed: u64) -> StrongStrategy {
        StrongStrategy { inner: SimpleStrategy::new(seed) }
    }
}

impl Strategy for StrongStrategy {
    fn name(&self) -> &str {
        "strong"
    }
    fn act(&mut self, d: &Decision<'_>) -> Action {
        self.inner.act(d)
    }
}
