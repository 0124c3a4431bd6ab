//! What a hand's points are worth in the game: the chance to win the game from a score.
//!
//! A game is a race to the target, so ten points matter more when they reach it, and losing
//! any hand matters most when the opponent is close to it. [`WinTable`] holds the chance to
//! win the game from each pair of scores, assuming even play from there: each hand is won
//! by either seat with the same chance, for points drawn from a fixed distribution (knocks
//! around 14 points, gins and undercuts 25 more), and some hands are dead. Decisions then
//! maximize the expected change of that chance instead of the expected points.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use engine::RuleSet;

/// Most points a hand is taken to score.
const MAX_POINTS: usize = 160;

/// The chance to win from every pair of scores below the target.
#[derive(Debug)]
pub struct WinTable {
    /// Scores from 0 to `size - 1` have not reached the target.
    size: usize,
    /// `w[a * size + b]`: the chance that the seat with `a` wins against `b`.
    w: Vec<f32>,
}

/// The assumed distribution of a won hand's points: `p[k]` for k points.
fn points_distribution() -> Vec<f64> {
    let mut p = vec![0f64; MAX_POINTS + 1];
    let mut add = |weight: f64, offset: usize, mean: f64| {
        // Geometric on 1.. with the given mean, shifted by `offset`.
        let q = 1.0 - 1.0 / mean;
        let mut mass = (1.0 - q) * weight;
        for k in 1..=MAX_POINTS {
            if k + offset <= MAX_POINTS {
                p[k + offset] += mass;
            }
            mass *= q;
        }
    };
    add(0.70, 0, 14.0);
    add(0.15, 25, 25.0);
    add(0.15, 25, 6.0);
    let s: f64 = p.iter().sum();
    p.iter().map(|x| x / s).collect()
}

impl WinTable {
    /// The table for `rules` (built once per target and target rule, then shared).
    pub fn for_rules(rules: &RuleSet) -> Arc<WinTable> {
        static CACHE: OnceLock<Mutex<HashMap<u32, Arc<WinTable>>>> = OnceLock::new();
        let size = (0..=rules.target + 1).find(|&s| rules.reaches_target(s)).unwrap_or(rules.target);
        let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
        let mut map = cache.lock().expect("not poisoned");
        map.entry(size).or_insert_with(|| Arc::new(WinTable::build(size as usize))).clone()
    }

    fn build(size: usize) -> WinTable {
        let p = points_distribution();
        let mut w = vec![0f32; size * size];
        for a in (0..size).rev() {
            for b in (0..size).rev() {
                let mut v = 0.0f64;
                for (k, &pk) in p.iter().enumerate().skip(1) {
                    if pk == 0.0 {
                        continue;
                    }
                    let win = if a + k >= size { 1.0 } else { f64::from(w[(a + k) * size + b]) };
                    let lose = if b + k >= size { 0.0 } else { f64::from(w[a * size + b + k]) };
                    v += pk * 0.5 * (win + lose);
                }
                // Dead hands replay from the same scores: they drop out.
                w[a * size + b] = v as f32;
            }
        }
        WinTable { size, w }
    }

    /// The chance to win from `a` against `b` (scores at or past the target are decided).
    pub fn win(&self, a: u32, b: u32) -> f32 {
        let (a, b) = (a as usize, b as usize);
        if a >= self.size {
            1.0
        } else if b >= self.size {
            0.0
        } else {
            self.w[a * self.size + b]
        }
    }

    /// For hand results from `-range` to `range` points (for the seat with `a`), the change
    /// in its chance to win, indexed by `points + range`.
    pub fn utilities(&self, a: u32, b: u32, range: usize) -> Vec<f32> {
        let now = self.win(a, b);
        (0..=2 * range)
            .map(|i| {
                let r = i as i64 - range as i64;
                if r >= 0 { self.win(a + r as u32, b) - now } else { self.win(a, b + (-r) as u32) - now }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chances_are_sane() {
        let t = WinTable::for_rules(&RuleSet::standard());
        assert!((t.win(0, 0) - 0.5).abs() < 0.01, "{}", t.win(0, 0));
        assert!(t.win(90, 0) > 0.9);
        assert!(t.win(0, 90) < 0.1);
        assert!(t.win(50, 40) > t.win(40, 50));
        assert_eq!(t.win(100, 20), 1.0);
        let u = t.utilities(95, 95, 50);
        // At 95-95 any win wins the game and any loss loses it.
        assert!(u[50 + 5] > 0.45 && u[50 - 5] < -0.45);
    }
}
