//! Whole-hand benchmarks of the other tables: basic rummy (`rummy_random_hand/N`) and gin
//! for three to six (`gin7_random_hand/N`, `gin7_random_hand_no_turns/N`): random legal play
//! from a seeded deal to the hand's end, one core.
//!
//! `cargo bench -p gin-engine --bench tables`. A binary of its own, apart from the
//! two-player `engine` bench (see there).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use engine::Deck;
use engine::gin7::{Gin7EndKind, Gin7Hand, Gin7Rules};
use engine::rummy::{RummyHand, RummyRules};

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

/// One hand of basic rummy at a table of `rules.players`, uniformly at random over the legal
/// moves (`RummyHand::legal_count`, then `legal_nth` of a uniform index: no list is built),
/// from a seeded deal to going out or a dead hand.
fn random_rummy_hand(rules: &RummyRules, seed: u64, rng: &mut SplitMix) -> RummyHand {
    let mut h = RummyHand::deal(rules, seed, 0, (seed % rules.players as u64) as u8).expect("checked rules");
    while let Some(seat) = h.to_act() {
        let i = ((rng.next() as u128 * h.legal_count() as u128) >> 64) as usize;
        let a = h.legal_nth(i).expect("i < count");
        h.apply(seat, a).expect("legal action applies");
    }
    h
}

/// The same playout over the listed moves (`RummyHand::legal_into`, one buffer for the
/// hand), for checking: the same choices give the same hand.
fn random_rummy_hand_listed(rules: &RummyRules, seed: u64, rng: &mut SplitMix) -> RummyHand {
    let mut h = RummyHand::deal(rules, seed, 0, (seed % rules.players as u64) as u8).expect("checked rules");
    let mut legal = Vec::with_capacity(64);
    while let Some(seat) = h.to_act() {
        h.legal_into(&mut legal);
        let a = legal[((rng.next() as u128 * legal.len() as u128) >> 64) as usize];
        h.apply(seat, a).expect("legal action applies");
    }
    h
}

fn bench_rummy(c: &mut Criterion) {
    for players in 2..=6u8 {
        let rules = RummyRules::for_players(players).expect("2 to 6");
        // Check first: the fast path plays exactly the hands the listed one plays, and hands
        // end both ways over these seeds.
        let (mut out, mut dead) = (0, 0);
        for seed in 0..500 {
            let fast = random_rummy_hand(&rules, seed, &mut SplitMix(seed));
            let listed = random_rummy_hand_listed(&rules, seed, &mut SplitMix(seed));
            assert_eq!(fast.result(), listed.result(), "{players} players, seed {seed}");
            assert_eq!(format!("{fast:?}"), format!("{listed:?}"), "{players} players, seed {seed}");
            match fast.result().expect("over").winner {
                Some(_) => out += 1,
                None => dead += 1,
            }
        }
        assert!(out > 0 && dead > 0, "{players} players: {out} out, {dead} dead");
        let mut seed = 0u64;
        let mut rng = SplitMix(1);
        c.bench_function(&format!("rummy_random_hand/{players}"), |b| {
            b.iter(|| {
                seed += 1;
                black_box(random_rummy_hand(&rules, seed, &mut rng).stock_len())
            })
        });
    }
}

/// One hand of gin for three or more at a table of `rules.players`, uniformly at random over
/// the compact legal set (`legal().count()` and `nth()`), from a seeded deal to a knock or a
/// dead hand.
fn random_gin7_hand(rules: &Gin7Rules, seed: u64, rng: &mut SplitMix) -> Gin7Hand {
    let dealer = (seed % rules.players as u64) as u8;
    let mut h = Gin7Hand::deal_from(rules, seed, 0, dealer, Deck::shuffled(seed, 0)).expect("checked rules");
    while let Some(seat) = h.to_act() {
        let legal = h.legal();
        let i = ((rng.next() as u128 * legal.count() as u128) >> 64) as u32;
        let a = legal.nth(i).expect("i < count");
        h.apply(seat, &a).expect("legal action applies");
    }
    h
}

/// The same playout through the allocating API (legal_actions + is_legal), for checking.
fn random_gin7_hand_checked(rules: &Gin7Rules, seed: u64, rng: &mut SplitMix) -> Gin7Hand {
    let dealer = (seed % rules.players as u64) as u8;
    let mut h = Gin7Hand::deal_from(rules, seed, 0, dealer, Deck::shuffled(seed, 0)).expect("checked rules");
    while let Some(seat) = h.to_act() {
        let legal = h.legal_actions();
        assert!(legal.iter().all(|a| h.is_legal(seat, a)));
        let a = legal[((rng.next() as u128 * legal.len() as u128) >> 64) as usize].clone();
        h.apply(seat, &a).unwrap();
    }
    h
}

fn bench_gin7(c: &mut Criterion) {
    for players in 3..=6u8 {
        let rules = Gin7Rules::for_players(players).expect("3 to 6");
        // Check first: the fast path plays exactly the hands the checked path plays, and hands
        // end as knocks and dead hands over these seeds.
        let (mut knocks, mut dead) = (0, 0);
        for seed in 0..2000 {
            let fast = random_gin7_hand(&rules, seed, &mut SplitMix(seed));
            let slow = random_gin7_hand_checked(&rules, seed, &mut SplitMix(seed));
            assert_eq!(fast, slow, "seed {seed}");
            match fast.result().expect("every hand ends").end {
                Gin7EndKind::Dead => dead += 1,
                _ => knocks += 1,
            }
        }
        assert!(knocks > 0 && dead > 0, "{players} players: {knocks} knocks, {dead} dead");
        let mut seed = 0u64;
        let mut rng = SplitMix(1);
        c.bench_function(&format!("gin7_random_hand/{players}"), |b| {
            b.iter(|| {
                seed += 1;
                black_box(random_gin7_hand(&rules, seed, &mut rng).stock_len())
            })
        });
        // The same without turns of the pile (`reshuffles = 0`, the rule before it existed):
        // random play rarely knocks, so each turn allowed adds about a stock's worth of
        // actions to a hand; this one compares with the figures from before.
        let rules = Gin7Rules { reshuffles: 0, ..rules };
        let mut seed = 0u64;
        let mut rng = SplitMix(1);
        c.bench_function(&format!("gin7_random_hand_no_turns/{players}"), |b| {
            b.iter(|| {
                seed += 1;
                black_box(random_gin7_hand(&rules, seed, &mut rng).stock_len())
            })
        });
    }
}

criterion_group!(benches, bench_rummy, bench_gin7);
criterion_main!(benches);
