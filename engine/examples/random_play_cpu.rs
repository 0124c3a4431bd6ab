//! Random legal play at every format and table size on the defaults, timed in the thread's
//! own CPU time (`/proc/thread-self/schedstat`, Linux), not wall time: a figure that holds on
//! a loaded machine, where a criterion run's wall time counts the waits for a core. The same
//! playouts as `benches/formats.rs` (`random_play/<format>/<players>`).
//!
//! `cargo run --release -p gin-engine --example random_play_cpu [seconds per format]`

use engine::gin7::{Gin7Hand, Gin7Rules};
use engine::rummy::{RummyHand, RummyRules};
use engine::{Deck, Hand, RuleSet, Seat};

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

/// Nanoseconds this thread has run on a CPU.
fn cpu_ns() -> u64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").expect("Linux schedstat");
    s.split_whitespace().next().and_then(|x| x.parse().ok()).expect("a number")
}

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

/// Plays hands for `secs` seconds of CPU time; prints hands/s and ns per move.
fn run(name: &str, secs: f64, play: impl Fn(u64) -> u64) {
    let (mut hands, mut moves, mut seed) = (0u64, 0u64, 0u64);
    let start = cpu_ns();
    let budget = (secs * 1e9) as u64;
    loop {
        for _ in 0..1000 {
            moves += std::hint::black_box(play(seed));
            seed += 1;
            hands += 1;
        }
        let ns = cpu_ns() - start;
        if ns >= budget {
            println!(
                "{name:<12} {:>9.0} hands/s  {:>6.2} ns a move  {:>6.1} moves a hand",
                hands as f64 * 1e9 / ns as f64,
                ns as f64 / moves as f64,
                moves as f64 / hands as f64
            );
            return;
        }
    }
}

fn main() {
    let secs: f64 = std::env::args().nth(1).map_or(2.0, |s| s.parse().expect("seconds"));
    let gin = RuleSet::standard();
    run("gin/2", secs, |s| gin_hand(&gin, s));
    for n in 3..=6u8 {
        let rules = Gin7Rules::for_players(n).expect("3 to 6");
        run(&format!("gin-7/{n}"), secs, |s| gin7_hand(&rules, s));
    }
    for n in 2..=6u8 {
        let rules = RummyRules::for_players(n).expect("2 to 6");
        run(&format!("rummy/{n}"), secs, |s| rummy_hand(&rules, s));
    }
}
