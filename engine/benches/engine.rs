//! Whole-hand benchmarks: random legal play from a seeded deal to the hand's end.
//!
//! `cargo bench -p gin-engine --bench engine`. One iteration = one complete hand (deal,
//! every action chosen uniformly among the legal ones, the end and its score), on one core.
//! The other tables' hands are in `benches/tables.rs`: a separate binary, since their use
//! of the same engine functions changed what got inlined here (the two-player hand measured
//! 36% slower in one binary with them, with the engine unchanged).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use engine::{CardSet, Deck, EndKind, Hand, RuleSet, Seat};

struct SplitMix(u64);
impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// Plays one hand uniformly at random over the compact legal-action set.
fn random_hand(rules: &RuleSet, seed: u64, rng: &mut SplitMix) -> Hand {
    let dealer = if seed & 1 == 0 { Seat::S0 } else { Seat::S1 };
    let mut h = Hand::new(rules, Deck::shuffled(seed, 0), dealer);
    while let legal @ engine::Legal { seat: Some(seat), .. } = h.legal() {
        let i = ((rng.next() as u128 * legal.count() as u128) >> 64) as u32;
        let a = legal.nth(i).expect("i < count");
        h.apply(seat, &a).expect("legal action applies");
    }
    h
}

/// The same playout through the slow, allocating API (legal_actions + is_legal), for checking.
fn random_hand_checked(rules: &RuleSet, seed: u64, rng: &mut SplitMix) -> Hand {
    let dealer = if seed & 1 == 0 { Seat::S0 } else { Seat::S1 };
    let mut h = Hand::new(rules, Deck::shuffled(seed, 0), dealer);
    while let Some(seat) = h.phase().to_act() {
        let legal = h.legal_actions();
        assert!(legal.iter().all(|a| h.is_legal(seat, a)));
        let a = legal[((rng.next() as u128 * legal.len() as u128) >> 64) as usize].clone();
        h.apply(seat, &a).unwrap();
        let mut all = h.cards(Seat::S0) | h.cards(Seat::S1);
        all |= h.pile().iter().chain(h.stock()).copied().collect::<CardSet>();
        if let Some(d) = h.result().and_then(|r| r.showdown.as_ref()).and_then(|s| s.discard) {
            all.insert(d);
        }
        assert_eq!(all, CardSet::FULL);
    }
    h
}

fn bench(c: &mut Criterion) {
    for name in ["standard", "oklahoma"] {
        let rules = RuleSet::preset(name).unwrap();
        // Check first: the fast path plays exactly the hands the checked path plays.
        let mut ends = [0u32; 6];
        for seed in 0..2000 {
            let fast = random_hand(&rules, seed, &mut SplitMix(seed));
            let slow = random_hand_checked(&rules, seed, &mut SplitMix(seed));
            assert_eq!(fast, slow, "seed {seed}");
            let r = fast.result().expect("every hand ends");
            ends[r.end as usize] += 1;
        }
        assert!(
            ends[EndKind::Dead as usize] > 0
                && ends[EndKind::Knock as usize] + ends[EndKind::Undercut as usize] > 0
        );
        let mut seed = 0u64;
        let mut rng = SplitMix(1);
        c.bench_function(&format!("random_hand/{name}"), |b| {
            b.iter(|| {
                seed += 1;
                black_box(random_hand(&rules, seed, &mut rng).stock_len())
            })
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
