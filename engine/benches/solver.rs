//! Solver speed, per hand: `cargo bench -p gin-engine --bench solver`.
//!
//! Each bench works through a pool of 4096 seeded random hands, one hand per iteration, so
//! criterion's time per iteration is the time per hand. Before timing, every answer of the
//! engine over the pool is checked against a small brute force written here, so a fast wrong
//! answer fails the bench.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use engine::{
    Card, CardSet, Rank, Suit, best_discard, deadwood, deadwood_after_best_discard, knock_discards,
};

const POOL: usize = 4096;

/// SplitMix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// `n` distinct cards out of `deck`.
    fn hand(&mut self, deck: &[Card], n: usize) -> CardSet {
        let mut d = deck.to_vec();
        for i in 0..n {
            let j = i + (self.next() % (d.len() - i) as u64) as usize;
            d.swap(i, j);
        }
        d[..n].iter().copied().collect()
    }
}

fn pool(seed: u64, deck: &[Card], n: usize) -> Vec<CardSet> {
    let mut rng = Rng(seed);
    (0..POOL).map(|_| rng.hand(deck, n)).collect()
}

// --- Brute force: every family of disjoint candidate melds. ---------------------------------

fn at(r: u8, s: u8) -> Card {
    Card::new(Rank::from_index(r).expect("rank"), Suit::from_index(s).expect("suit"))
}

fn value(cards: CardSet) -> u32 {
    cards.iter().map(|c| (u32::from(c.rank().index()) + 1).min(10)).sum()
}

/// Every set (3 or 4 cards of one rank) and run (3+ consecutive ranks of one suit) inside `h`.
fn candidate_melds(h: CardSet) -> Vec<CardSet> {
    let mut out = Vec::new();
    for r in 0..13 {
        for suits in (0u8..16).filter(|s| s.count_ones() >= 3) {
            let m: CardSet = (0..4).filter(|s| suits >> s & 1 == 1).map(|s| at(r, s)).collect();
            out.extend(h.is_superset(m).then_some(m));
        }
    }
    for s in 0..4 {
        for lo in 0..13 {
            for hi in lo + 2..13 {
                let m: CardSet = (lo..=hi).map(|r| at(r, s)).collect();
                out.extend(h.is_superset(m).then_some(m));
            }
        }
    }
    out
}

/// The most value that disjoint melds from `melds`, all inside `free`, can cover.
fn best_cover(melds: &[CardSet], free: CardSet) -> u32 {
    let Some((&m, rest)) = melds.split_first() else { return 0 };
    let skip = best_cover(rest, free);
    if free.is_superset(m) { skip.max(value(m) + best_cover(rest, free - m)) } else { skip }
}

fn brute(h: CardSet) -> u32 {
    value(h) - best_cover(&candidate_melds(h), h)
}

/// `brute(h - d)` for each card `d` of `h`.
fn brute_by_discard(h: CardSet) -> Vec<(Card, u32)> {
    h.iter().map(|d| (d, brute(h.without(d)))).collect()
}

fn brute_best(h: CardSet) -> u32 {
    brute_by_discard(h).iter().map(|&(_, dw)| dw).min().expect("non-empty hand")
}

// --- Checks, then timing. -----------------------------------------------------------------------

/// Times `f` over the pool, one hand per iteration.
fn time<T>(c: &mut Criterion, group: &str, name: &str, hands: &[CardSet], f: impl Fn(CardSet) -> T) {
    let mut g = c.benchmark_group(group);
    let mut i = 0;
    g.bench_function(name, |b| {
        b.iter(|| {
            let h = hands[i % POOL];
            i += 1;
            f(black_box(h))
        })
    });
    g.finish();
}

fn solver(c: &mut Criterion) {
    let deck: Vec<Card> = Card::all().collect();
    let two_suits: Vec<Card> = Card::all().filter(|c| c.suit().index() >= 2).collect();
    let ten = pool(0x5EED_0010, &deck, 10);
    let ten_dense = pool(0x5EED_2010, &two_suits, 10);
    let eleven = pool(0x5EED_0011, &deck, 11);

    // deadwood, 10 cards.
    for (hands, what) in [(&ten, "random"), (&ten_dense, "two-suit")] {
        let engine: u32 = hands.iter().map(|&h| deadwood(h)).sum();
        let reference: u32 = hands.iter().map(|&h| brute(h)).sum();
        assert_eq!(engine, reference, "sum of deadwood over the {what} 10-card pool");
    }
    time(c, "deadwood", "10", &ten, deadwood);
    time(c, "deadwood", "10_two_suits", &ten_dense, deadwood);

    // The 11-card questions.
    let per: Vec<Vec<(Card, u32)>> = eleven.iter().map(|&h| brute_by_discard(h)).collect();
    let best: Vec<u32> = eleven.iter().map(|&h| brute_best(h)).collect();
    let best_sum: u32 = best.iter().sum();

    let engine: u32 = eleven.iter().map(|&h| deadwood_after_best_discard(h).expect("non-empty")).sum();
    assert_eq!(engine, best_sum, "sum of deadwood_after_best_discard over the 11-card pool");
    time(c, "deadwood", "11_best_discard", &eleven, deadwood_after_best_discard);

    let engine: u32 = eleven
        .iter()
        .map(|&h| {
            let b = best_discard(h).expect("non-empty");
            assert!(h.contains(b.discard), "best_discard of {h}: {} not in hand", b.discard);
            assert_eq!(b.deadwood(), brute(h.without(b.discard)), "best_discard of {h}");
            brute(h.without(b.discard))
        })
        .sum();
    assert_eq!(engine, best_sum, "sum of brute(h - best_discard(h)) over the 11-card pool");
    time(c, "best_discard", "11", &eleven, best_discard);

    let engine: u32 = eleven.iter().map(|&h| knock_discards(h, 10).len()).sum();
    let reference: u32 = per.iter().map(|p| p.iter().filter(|&&(_, dw)| dw <= 10).count() as u32).sum();
    assert_eq!(engine, reference, "number of knock discards (limit 10) over the 11-card pool");
    for (&h, p) in eleven.iter().zip(&per) {
        let want: CardSet = p.iter().filter(|&&(_, dw)| dw <= 10).map(|&(d, _)| d).collect();
        assert_eq!(knock_discards(h, 10), want, "knock_discards({h}, 10)");
    }
    time(c, "knock_discards", "11", &eleven, |h| knock_discards(h, 10));
}

criterion_group!(benches, solver);
criterion_main!(benches);
