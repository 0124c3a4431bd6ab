//! Random legal play at every format and table size, on each format's default rules (issue
//! 36): `random_play/<format>/<players>`, one iteration a batch of 100 seeded hands, each
//! from its deal to its end, uniformly at random over the legal moves (the compact legal
//! sets: `Legal::count`/`nth`, `RummyHand::legal_count`/`legal_nth`), one core. Criterion's
//! throughput is in moves: its `thrpt` is moves per second (ns per move = 1e9 / it), and the
//! time of an iteration over 100 is the time of a hand.
//!
//! Three players and teams play two-player hands (`Hand`) under their rule set: their hands
//! are `random_play/gin/2`'s, with the same default limits.
//!
//! `cargo bench -p gin-engine --bench formats`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use engine::gin7::{Gin7Hand, Gin7Rules};
use engine::rummy::{RummyHand, RummyRules};
use engine::{Deck, Hand, RuleSet, Seat};

/// Hands in one iteration.
const BATCH: u64 = 100;

struct SplitMix(u64);
impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u32) -> u32 {
        ((self.next() as u128 * n as u128) >> 64) as u32
    }
}

/// A two-player hand (every gin kind but gin-7), played at random: its moves.
fn gin_hand(rules: &RuleSet, seed: u64) -> u64 {
    let mut rng = SplitMix(seed);
    let dealer = if seed & 1 == 0 { Seat::S0 } else { Seat::S1 };
    let mut h = Hand::new(rules, Deck::shuffled(seed, 0), dealer);
    let mut moves = 0;
    while let legal @ engine::Legal { seat: Some(seat), .. } = h.legal() {
        let a = legal.nth(rng.below(legal.count())).expect("i < count");
        h.apply(seat, &a).expect("legal action applies");
        moves += 1;
    }
    moves
}

/// A hand of gin at one table, played at random: its moves.
fn gin7_hand(rules: &Gin7Rules, seed: u64) -> u64 {
    let mut rng = SplitMix(seed);
    let dealer = (seed % rules.players as u64) as u8;
    let mut h = Gin7Hand::deal_from(rules, seed, 0, dealer, Deck::shuffled(seed, 0)).expect("checked rules");
    let mut moves = 0;
    while let Some(seat) = h.to_act() {
        let legal = h.legal();
        let a = legal.nth(rng.below(legal.count())).expect("i < count");
        h.apply(seat, &a).expect("legal action applies");
        moves += 1;
    }
    moves
}

/// A hand of basic rummy, played at random: its moves.
fn rummy_hand(rules: &RummyRules, seed: u64) -> u64 {
    let mut rng = SplitMix(seed);
    let mut h = RummyHand::deal(rules, seed, 0, (seed % rules.players as u64) as u8).expect("checked rules");
    let mut moves = 0;
    while let Some(seat) = h.to_act() {
        let a = h.legal_nth(rng.below(h.legal_count() as u32) as usize).expect("i < count");
        h.apply(seat, a).expect("legal action applies");
        moves += 1;
    }
    moves
}

/// Benches `play` over the batch, its throughput the batch's moves.
fn batch(c: &mut Criterion, name: &str, play: impl Fn(u64) -> u64) {
    let moves: u64 = (0..BATCH).map(&play).sum();
    let mut g = c.benchmark_group("random_play");
    g.throughput(Throughput::Elements(moves));
    g.bench_function(name, |b| b.iter(|| black_box((0..BATCH).map(&play).sum::<u64>())));
    g.finish();
    eprintln!("random_play/{name}: {:.1} moves a hand", moves as f64 / BATCH as f64);
}

fn bench(c: &mut Criterion) {
    let gin = RuleSet::standard();
    batch(c, "gin/2", |s| gin_hand(&gin, s));
    for n in 3..=6u8 {
        let rules = Gin7Rules::for_players(n).expect("3 to 6");
        batch(c, &format!("gin-7/{n}"), |s| gin7_hand(&rules, s));
    }
    for n in 2..=6u8 {
        let rules = RummyRules::for_players(n).expect("2 to 6");
        batch(c, &format!("rummy/{n}"), |s| rummy_hand(&rules, s));
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
