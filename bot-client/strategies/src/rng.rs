//! A small, fast, seedable generator for strategies' choices (xoshiro256++ from
//! `rand_xoshiro`, seeded by SplitMix64). Strategies are deterministic given their seed:
//! self-play runs reproduce.

use rand_core::{Rng as _, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// SplitMix64: one step. Also used to derive independent seeds from one master seed.
#[inline]
pub fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Derives the `i`-th seed of a family from `seed` (distinct `i` give unrelated seeds).
pub fn derive(seed: u64, i: u64) -> u64 {
    splitmix(splitmix(seed) ^ splitmix(i.wrapping_mul(0xD1B5_4A32_D192_ED03)))
}

/// xoshiro256++ (`rand_xoshiro`), its state seeded by SplitMix64 as this project always has:
/// the stream of a seed never changes (a test pins it), so self-play runs reproduce.
#[derive(Clone, Debug)]
pub struct Rng {
    inner: Xoshiro256PlusPlus,
}

impl Rng {
    /// A generator seeded from `seed`.
    pub fn new(seed: u64) -> Rng {
        let mut x = seed;
        let mut state = [0u8; 32];
        for word in state.chunks_exact_mut(8) {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            word.copy_from_slice(&splitmix(x).to_le_bytes());
        }
        Rng { inner: Xoshiro256PlusPlus::from_seed(state) }
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }

    /// Uniform in `0..n` (`n > 0`), by Lemire's multiply-shift (bias below 2^-32 for small n).
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        debug_assert!(n > 0);
        (((self.next_u64() >> 32) * n as u64) >> 32) as u32
    }

    /// Uniform in `[0, 1)`.
    #[inline]
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_is_in_range_and_roughly_uniform() {
        let mut r = Rng::new(1);
        let mut counts = [0u32; 7];
        for _ in 0..70_000 {
            counts[r.below(7) as usize] += 1;
        }
        for c in counts {
            assert!((9_000..11_000).contains(&c), "{counts:?}");
        }
    }

    /// The streams of this project's own xoshiro256++ before it came from `rand_xoshiro`:
    /// a seed's games must not change.
    #[test]
    fn the_stream_of_a_seed_is_the_one_it_always_was() {
        let mut r = Rng::new(5);
        let v: Vec<u64> = (0..4).map(|_| r.next_u64()).collect();
        assert_eq!(v, [3401903922599661988, 2089683434351689853, 13336916286302855004, 851184807660174666]);
        let mut r = Rng::new(0);
        assert_eq!([r.next_u64(), r.next_u64()], [6409272458699751175, 6888991682673849350]);
    }

    #[test]
    fn same_seed_same_stream_and_derive_separates() {
        let (mut a, mut b) = (Rng::new(5), Rng::new(5));
        assert_eq!(a.next_u64(), b.next_u64());
        assert_ne!(derive(5, 0), derive(5, 1));
        assert_ne!(derive(5, 0), derive(6, 0));
    }
}
