//! Random legal play at every format and table size on each format's default rules: the
//! playouts that `benches/formats.rs` (criterion, wall time) and `examples/random_play_cpu.rs`
//! (the thread's CPU time) both time, so the two figures are of the same work. Each hand is
//! seeded, played from its deal to its end uniformly at random over the legal moves (the
//! compact legal sets: `Legal::count`/`nth`, `RummyHand::legal_count`/`legal_nth`), and
//! returns its number of moves.

use engine::gin7::{Gin7Hand, Gin7Rules};
use engine::rummy::{RummyHand, RummyRules};
use engine::{Deck, Hand, RuleSet, Seat};

/// A seeded playout: one hand, its moves.
pub type Playout = Box<dyn Fn(u64) -> u64>;

/// Every format and size (`gin/2`, `gin-7/3`…`gin-7/6`, `rummy/2`…`rummy/6`) with its
/// playout. Three players and teams play two-player hands (`Hand`) under their rule set:
/// their hands are `gin/2`'s, with the same default limits.
pub fn formats() -> Vec<(String, Playout)> {
    let gin = RuleSet::standard();
    let mut out: Vec<(String, Playout)> = vec![("gin/2".into(), Box::new(move |s| gin_hand(&gin, s)))];
    for n in 3..=6u8 {
        let rules = Gin7Rules::for_players(n).expect("3 to 6");
        out.push((format!("gin-7/{n}"), Box::new(move |s| gin7_hand(&rules, s))));
    }
    for n in 2..=6u8 {
        let rules = RummyRules::for_players(n).expect("2 to 6");
        out.push((format!("rummy/{n}"), Box::new(move |s| rummy_hand(&rules, s))));
    }
    out
}

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
