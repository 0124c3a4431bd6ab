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

use engine::RuleSet;
use gin_strategies::learned::{self, NetRef, net::Net};

fn arg(args: &[String], name: &str, default: &str) -> String {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned().unwrap_or(default.to_string())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let params =
        std::fs::read(arg(&args, "--params", "bot-client/strategies/data/learned.bin")).expect("read");
    let net = NetRef::Shared(std::sync::Arc::new(Net::from_bytes(&params).expect("a parameter file")));
    let b = arg(&args, "--b", "simple");
    let pairs: u64 = arg(&args, "--pairs", "1000").parse().expect("a number");
    let seed: u64 = arg(&args, "--seed", "3").parse().expect("a number");
    let rules = if args.iter().any(|a| a == "--standard") {
        RuleSet::standard()
    } else {
        RuleSet::parse_any(include_str!("../rules/competition.toml")).expect("the competition rules parse")
    };
    let share = learned::duplicate_share(&net, &b, pairs, seed, &rules);
    println!("learned ({} parameters) vs {b}: {share:.1}% of {} games", net.len(), 2 * pairs);
}
