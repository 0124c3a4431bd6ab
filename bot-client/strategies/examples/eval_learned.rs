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

mod common;

use common::arg;
use gin_strategies::learned::{self, NetRef, net::Net};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let params = std::fs::read(arg(&args, "--params", "bot-client/strategies/data/learned.bin".to_string()))
        .expect("read");
    let net = NetRef::Shared(std::sync::Arc::new(Net::from_bytes(&params).expect("a parameter file")));
    let b: String = arg(&args, "--b", "simple".to_string());
    let pairs: u64 = arg(&args, "--pairs", 1000);
    let seed: u64 = arg(&args, "--seed", 3);
    let rules = common::rules_flag(&args);
    let share = learned::duplicate_share(&net, &b, pairs, seed, &rules);
    println!("learned ({} parameters) vs {b}: {share:.1}% of {} games", net.len(), 2 * pairs);
}
