//! Plays a `learned` network read from a parameter file (not the embedded one: no rebuild
//! needed to try a candidate) against a named strategy, over duplicate deal pairs, and
//! prints its share of the games. From the repository's root:
//!
//! ```text
//! cargo run --release -p gin-strategies --example eval_learned -- \
//!     --params /tmp/candidate.bin --b simple --pairs 1000 --seed 3 [--standard]
//! ```
//!
//! Competition rules unless `--standard`; one thread. For the figures that count, embed the
//! parameters and use `gin-bot selfplay --duplicate` (its Elo interval).

use engine::{GameSetup, RuleSet, Seat};
use gin_strategies::learned::{LearnedStrategy, net::Net};
use gin_strategies::local::play_game;
use gin_strategies::rng::derive;
use gin_strategies::strategy::by_name;

fn arg(args: &[String], name: &str, default: &str) -> String {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned().unwrap_or(default.to_string())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let params =
        std::fs::read(arg(&args, "--params", "bot-client/strategies/data/learned.bin")).expect("read");
    let net: &'static Net = Box::leak(Box::new(Net::from_bytes(&params).expect("a parameter file")));
    let b = arg(&args, "--b", "simple");
    let pairs: u64 = arg(&args, "--pairs", "1000").parse().expect("a number");
    let seed: u64 = arg(&args, "--seed", "3").parse().expect("a number");
    let rules = if args.iter().any(|a| a == "--standard") {
        RuleSet::standard()
    } else {
        RuleSet::parse_any(include_str!("../rules/competition.toml")).expect("the competition rules parse")
    };
    let (mut score, mut games) = (0.0, 0u64);
    for p in 0..pairs {
        for seat in [Seat::S0, Seat::S1] {
            let mut a = LearnedStrategy::with_net(net);
            let mut o = by_name(&b, derive(seed ^ 0xB, p * 2 + seat.index() as u64)).expect("a strategy");
            let setup = GameSetup::new(rules.clone(), derive(seed, p));
            let game = if seat == Seat::S0 {
                play_game(setup, [&mut a, o.as_mut()])
            } else {
                play_game(setup, [o.as_mut(), &mut a])
            }
            .expect("legal play");
            let r = game.result().expect("over");
            score += match r.winner {
                Some(w) if w == seat => 1.0,
                Some(_) => 0.0,
                None => 0.5,
            };
            games += 1;
        }
    }
    println!(
        "learned ({} parameters) vs {b}: {:.1}% of {games} games",
        net.len(),
        100.0 * score / games as f64
    );
}
