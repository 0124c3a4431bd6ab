//! A small, fast, seedable generator for strategies' choices (xoshiro256++ seeded by
//! SplitMix64). Strategies are deterministic given their seed: self-play runs reproduce.

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

/// xoshiro256++.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// A generator seeded from `seed`.
    pub fn new(seed: u64) -> Rng {
        let mut x = seed;
        let mut s = [0u64; 4];
        for v in &mut s {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            *v = splitmix(x);
        }
        Rng { s }
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let out = (s[0].wrapping_add(s[3])).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        out
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

    #[test]
    fn same_seed_same_stream_and_derive_separates() {
        let (mut a, mut b) = (Rng::new(5), Rng::new(5));
        assert_eq!(a.next_u64(), b.next_u64());
        assert_ne!(derive(5, 0), derive(5, 1));
        assert_ne!(derive(5, 0), derive(6, 0));
    }
}
