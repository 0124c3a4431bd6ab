//! Meld masks and layoffs without allocation, for the rollouts' showdowns.
//!
//! The engine's solver answers deadwood questions; a showdown also needs the knocker's
//! melds (to lay off onto) and the defender's deadwood after layoffs. The engine's
//! [`engine::best_defense`] builds vectors; these versions work on `u64` masks only.

use engine::{CardSet, deadwood, meldable, melds_with_lowest};

const RANK0: u64 = 0x0001_0001_0001_0001;

#[inline(always)]
fn value(b: u64) -> u32 {
    CardSet::from_bits(b).value()
}

/// Melds of one arrangement: at most 5 in 16 cards (10- and 11-card hands hold at most 3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Melds {
    /// The meld masks.
    pub m: [u64; 5],
    /// How many are used.
    pub n: usize,
}

impl Melds {
    /// The melds in use.
    pub fn as_slice(&self) -> &[u64] {
        &self.m[..self.n]
    }
    /// All melded cards.
    pub fn cards(&self) -> u64 {
        self.as_slice().iter().fold(0, |a, &b| a | b)
    }
}

/// Walks the families of melds of `m_in`; `leaf` returns `false` to stop the walk.
fn walk(m_in: u64, cur: &mut Melds, leaf: &mut impl FnMut(&Melds) -> bool) -> bool {
    let m = meldable(m_in);
    if m == 0 {
        return leaf(cur);
    }
    let c = m & m.wrapping_neg();
    if !walk(m & !c, cur, leaf) {
        return false;
    }
    let mut go = true;
    melds_with_lowest(m, c, |meld| {
        if go && cur.n < cur.m.len() {
            cur.m[cur.n] = meld;
            cur.n += 1;
            go = walk(m & !meld, cur, leaf);
            cur.n -= 1;
        }
    });
    go
}

/// Calls `f` with every minimum-deadwood family of melds of `h`.
pub fn for_each_min(h: u64, mut f: impl FnMut(&Melds)) {
    let best = deadwood(CardSet::from_bits(h));
    let mut cur = Melds::default();
    walk(h, &mut cur, &mut |ms: &Melds| {
        if value(h & !ms.cards()) == best {
            f(ms);
        }
        true
    });
}

/// One minimum-deadwood family of melds of `h`, whose deadwood is `dw`.
pub fn best_melds(h: u64, dw: u32) -> Melds {
    let mut out = Melds::default();
    let mut cur = Melds::default();
    walk(h, &mut cur, &mut |ms: &Melds| {
        if value(h & !ms.cards()) == dw {
            out = *ms;
            false
        } else {
            true
        }
    });
    out
}

/// The defender's deadwood after its best melds and layoffs onto `melds` (the engine's
/// [`engine::best_defense`], exact, without allocating).
pub fn defender_deadwood(def: u64, melds: &[u64]) -> u32 {
    let mut runs = 0u64;
    let mut spots = 0u64;
    for &m in melds {
        let rank = m.trailing_zeros() % 16;
        if m & !(RANK0 << rank) == 0 {
            if m.count_ones() == 3 {
                spots |= (RANK0 << rank) & !m;
            }
        } else {
            runs |= m;
        }
    }
    // Every defender card that some order of layoffs could place.
    let mut r = runs;
    loop {
        let add = ((r << 1) | (r >> 1)) & def & !r;
        if add == 0 {
            break;
        }
        r |= add;
    }
    let layable = (r & !runs) | (spots & def);
    if layable == 0 {
        return deadwood(CardSet::from_bits(def));
    }
    let mut best = u32::MAX;
    // Subsets of `layable` (it is small): keep those every card of which can be placed.
    let mut t = layable;
    loop {
        let mut r = runs;
        loop {
            let add = ((r << 1) | (r >> 1)) & t & !r;
            if add == 0 {
                break;
            }
            r |= add;
        }
        let placed = (r & !runs) | (t & spots);
        if placed & t == t {
            best = best.min(deadwood(CardSet::from_bits(def & !t)));
        }
        if t == 0 {
            break;
        }
        t = (t - 1) & layable;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{Meld, best_arrangement, best_defense, hand};

    #[test]
    fn matches_engine_defense() {
        let mut rng = crate::rng::Rng::new(7);
        for _ in 0..3000 {
            let mut deck: Vec<engine::Card> = engine::Card::all().collect();
            for i in (1..deck.len()).rev() {
                deck.swap(i, rng.below(i as u32 + 1) as usize);
            }
            let k: CardSet = deck[..10].iter().copied().collect();
            let d: CardSet = deck[10..20].iter().copied().collect();
            let arr = best_arrangement(k);
            let masks: Vec<u64> = arr.melds().iter().map(|m: &Meld| m.cards().bits()).collect();
            assert_eq!(defender_deadwood(d.bits(), &masks), best_defense(d, arr.melds()).deadwood());
            let bm = best_melds(k.bits(), arr.deadwood());
            assert_eq!(value(k.bits() & !bm.cards()), arr.deadwood());
        }
        // Runs laid off several in a row, and a set's fourth card.
        let k = hand("3S 4S 5S 7C 7D 7H");
        let arr = best_arrangement(k);
        let masks: Vec<u64> = arr.melds().iter().map(|m| m.cards().bits()).collect();
        assert_eq!(defender_deadwood(hand("7S 2C KD").bits(), &masks), 12);
        assert_eq!(defender_deadwood(hand("6S 7S 2C KD").bits(), &masks), 12);
    }
}
