//! Issue 40, step four: how much of the opponent's hidden hand a network trained on true
//! hands can name, next to `strong`'s opponent model, on the same decisions. From the
//! repository's root:
//!
//! ```text
//! cargo run --release -p gin-strategies --example probe_inference -- \
//!     --observer learned --opponent simple --games 4000 --valid 200 --threads 2 --seed 1
//! ```
//!
//! Plays `--games` games of `--observer` against `--opponent` (competition rules unless
//! `--standard`), records each of the observer's decisions with the opponent's true hidden
//! cards, trains a hand-inference network on them (`--epochs`, `--hidden a,b`), and prints
//! its figures and the model's (`--model-samples` hands a decision) on `--valid` more games.
//! `--out` writes the network.

mod common;

use common::arg;
use gin_strategies::learned::{infer, par_map};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let observer: String = arg(&args, "--observer", "learned".to_string());
    let opponent: String = arg(&args, "--opponent", "simple".to_string());
    let (games, valid, seed): (u64, u64, u64) =
        (arg(&args, "--games", 4000), arg(&args, "--valid", 200), arg(&args, "--seed", 1));
    let threads: usize = arg(&args, "--threads", 2);
    let epochs: usize = arg(&args, "--epochs", 6);
    let model_samples: usize = arg(&args, "--model-samples", 200);
    let hidden: Vec<usize> = arg(&args, "--hidden", "256,128".to_string())
        .split(',')
        .map(|v| v.parse().expect("a size"))
        .collect();
    let lr: f32 = arg(&args, "--lr", 1e-3);
    let rules = common::rules_flag(&args);
    let t = std::time::Instant::now();
    let train: Vec<infer::HandSample> =
        par_map(games, threads, |i| infer::probe_game(&observer, &opponent, &rules, seed, i, 0))
            .into_iter()
            .flatten()
            .collect();
    let held: Vec<infer::HandSample> = par_map(valid, threads, |i| {
        infer::probe_game(&observer, &opponent, &rules, seed, games + i, model_samples)
    })
    .into_iter()
    .flatten()
    .collect();
    println!(
        "{observer} against {opponent}: {} training decisions, {} held out ({:.0} s)",
        train.len(),
        held.len(),
        t.elapsed().as_secs_f64()
    );
    let mut model = infer::InferEval::default();
    let mut p = [0f32; 64];
    for s in &held {
        let m = s.model.as_ref().expect("probed");
        p.copy_from_slice(&m[..]);
        model.add(s, &p);
    }
    println!("strong's model ({model_samples} hands a decision): {model}");
    let net = infer::train(&train, &held, [hidden[0], hidden[1]], epochs, lr, seed, &mut |e, ev| {
        println!("epoch {e}: network: {ev} ({:.0} s)", t.elapsed().as_secs_f64());
    });
    let out: String = arg(&args, "--out", String::new());
    if !out.is_empty() {
        std::fs::write(&out, net.to_bytes()).expect("write the network");
    }
}
