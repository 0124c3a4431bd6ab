//! Fine-tunes `learned`'s network by self-play policy gradient (issue 40, the step after
//! distillation): the network plays, drawing its choices from its own distribution, and
//! each choice is made more likely as its hand's result beat the value head's prediction
//! (REINFORCE with a learned baseline). From the repository's root:
//!
//! ```text
//! cargo run --release -p gin-strategies --example finetune_learned -- \
//!     --params /tmp/distilled.bin --steps 2400 --games 64 --every 100 --pairs 300 \
//!     --lr 6e-5 --seed 1 --out bot-client/strategies/data/learned.bin
//! ```
//!
//! made the committed parameters from the distilled network (`train_learned`'s, seed 1):
//! about 16 minutes on one thread of this machine, loaded.
//!
//! Each step plays `--games` games (competition and standard rules in turn, the opponents of
//! `--opponents` in turn; `learned` is the current network, greedy), then takes one Adam
//! step over all their decisions. Every `--every` steps the greedy network plays `--pairs`
//! duplicate pairs against `simple` (competition rules, seed 3, the games of
//! `eval_learned`) and the best so far is written to `--out`. Deterministic for its
//! arguments whatever `--threads`.

mod common;

use std::sync::Arc;
use std::time::Instant;

use common::arg;

use engine::RuleSet;
use gin_strategies::learned::{self, NetRef, Sample, net::Net, net::Trainer};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let params: String = arg(&args, "--params", "/tmp/distilled.bin".to_string());
    let out: String = arg(&args, "--out", "/tmp/tuned.bin".to_string());
    let opponents: String = arg(&args, "--opponents", "simple,learned".to_string());
    let opponents: Vec<&str> = opponents.split(',').collect();
    let steps: u64 = arg(&args, "--steps", 400);
    let games: u64 = arg(&args, "--games", 64);
    let lr: f32 = arg(&args, "--lr", 2e-5);
    let seed: u64 = arg(&args, "--seed", 1);
    let threads: usize = arg(&args, "--threads", 1);
    let every: u64 = arg(&args, "--every", 50);
    let pairs: u64 = arg(&args, "--pairs", 300);
    let value_weight: f32 = arg(&args, "--value-weight", 0.5);
    let competition = common::competition();
    let rule_sets = [competition.clone(), RuleSet::standard()];
    let mut net =
        Net::from_bytes(&std::fs::read(&params).expect("the parameters are read")).expect("parameters");
    let mut tr = Trainer::new(&net, lr);
    let t0 = Instant::now();
    let shared = NetRef::Shared(Arc::new(net.clone()));
    let mut best = learned::duplicate_share(&shared, "simple", pairs, 3, &competition);
    eprintln!("step 0: {best:.1}% against simple ({pairs} pairs)");
    std::fs::write(&out, net.to_bytes()).expect("written");
    for step in 1..=steps {
        let shared = NetRef::Shared(Arc::new(net.clone()));
        let per_game = learned::par_map(games, threads, |g| {
            let i = step * games + g;
            let rules = &rule_sets[(i % 2) as usize];
            let opp = opponents[((i / 2) % opponents.len() as u64) as usize];
            learned::explore_game(&shared, opp, rules, seed, i)
        });
        let batch: Vec<Sample> = per_game.into_iter().flatten().collect();
        let adv = learned::reinforce(&mut net, &mut tr, &batch, value_weight);
        if step % every == 0 || step == steps {
            let shared = NetRef::Shared(Arc::new(net.clone()));
            let now = learned::duplicate_share(&shared, "simple", pairs, 3, &competition);
            eprintln!(
                "step {step}: {} decisions, mean |advantage| {adv:.3}; {now:.1}% against simple ({:.0} s)",
                batch.len(),
                t0.elapsed().as_secs_f64()
            );
            if now > best {
                best = now;
                std::fs::write(&out, net.to_bytes()).expect("written");
            }
        }
    }
    eprintln!("best {best:.1}% against simple, written to {out} ({:.0} s)", t0.elapsed().as_secs_f64());
}
