//! Trains `learned`'s network (issue 40): plays games with `strong` (against itself,
//! `strong-v2`, `simple` and `strong-v1` in turn), records its decisions, and fits the MLP
//! to them. From the repository's root:
//!
//! ```text
//! cargo run --release -p gin-strategies --example train_learned -- \
//!     --seed 1 --games 480 --threads 2 --epochs 8 \
//!     --out /tmp/distilled.bin [--cache target/learned-samples.bin]
//! ```
//!
//! The committed `data/learned.bin` is this network (`--seed 1 --games 480 --threads 1
//! --epochs 8`) fine-tuned by self-play: `examples/finetune_learned.rs` says how.
//!
//! `--games` games under each of the competition and the standard rules. The result is
//! the same for the same arguments whatever `--threads` (games are numbered, their seeds
//! derived from `--seed`, their samples concatenated in that order; training is
//! single-threaded). With `--cache`, the samples are written there after generation and read
//! back on the next run instead of playing the games again (resuming at training).
//! The last 5% of each rule set's games are held out to report agreement with `strong`.
//! With `--cache-dir D`, each game's samples are kept in a file of its own there and read
//! back instead of playing that game again: an interrupted run resumes where it stopped,
//! and a run with more `--games` plays only the new ones (the same games: each game's seed
//! depends on `--seed` and its number only).
//! `--max-samples N` trains on the first N training samples only (data-scaling checks);
//! `--h1`, `--h2`, `--lr` change the network's sizes and the learning rate.

mod common;

use std::time::Instant;

use common::arg;

use engine::RuleSet;
use gin_strategies::learned::{self, Sample, TrainConfig};

fn generate(
    rules: &RuleSet,
    seed: u64,
    games: u64,
    threads: usize,
    dir: &str,
    tag: usize,
) -> Vec<Vec<Sample>> {
    let done = std::sync::atomic::AtomicU64::new(0);
    let t = Instant::now();
    learned::par_map(games, threads, |i| {
        let file = format!("{dir}/r{tag}-s{seed}-g{i}.bin");
        let cached = if dir.is_empty() { None } else { std::fs::read(&file).ok() };
        let out = match cached.as_deref().and_then(learned::samples_from_bytes) {
            Some(out) => out,
            None => {
                let out = learned::generate_game(rules, seed, i);
                if !dir.is_empty() {
                    std::fs::write(&file, learned::samples_to_bytes(&out)).expect("the cache is written");
                }
                out
            }
        };
        let k = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        if k.is_multiple_of(20) || k == games {
            eprintln!("  {k}/{games} games, {:.0} s", t.elapsed().as_secs_f64());
        }
        out
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let seed: u64 = arg(&args, "--seed", 1);
    let games: u64 = arg(&args, "--games", 480);
    let threads: usize = arg(&args, "--threads", 2);
    let out: String = arg(&args, "--out", "/tmp/distilled.bin".to_string());
    let cache: String = arg(&args, "--cache", String::new());
    let cache_dir: String = arg(&args, "--cache-dir", String::new());
    if !cache_dir.is_empty() {
        std::fs::create_dir_all(&cache_dir).expect("the cache directory is made");
    }
    let cfg = TrainConfig {
        epochs: arg(&args, "--epochs", TrainConfig::default().epochs),
        lr: arg(&args, "--lr", TrainConfig::default().lr),
        hidden: [arg(&args, "--h1", 256), arg(&args, "--h2", 128)],
        seed,
        ..TrainConfig::default()
    };
    let t0 = Instant::now();
    let cached = if cache.is_empty() { None } else { std::fs::read(&cache).ok() };
    let (train, valid) = match cached.as_deref().and_then(learned::samples_from_bytes) {
        Some(all) => {
            let cut = all.len() - all.len() / 20;
            eprintln!("{} samples read from {cache}", all.len());
            let mut all = all;
            let valid = all.split_off(cut);
            (all, valid)
        }
        None => {
            let competition = common::competition();
            let (mut train, mut valid) = (Vec::new(), Vec::new());
            for (k, rules) in [competition, RuleSet::standard()].iter().enumerate() {
                eprintln!("generating {games} games under rule set {k}");
                let per_game =
                    generate(rules, seed.wrapping_add(k as u64 * 1_000_003), games, threads, &cache_dir, k);
                let cut = games as usize - games as usize / 20;
                for (i, g) in per_game.into_iter().enumerate() {
                    if i < cut { train.extend(g) } else { valid.extend(g) }
                }
            }
            if !cache.is_empty() {
                // Training samples first, then the held-out ones: the split above reads the
                // last twentieth back as the held-out set (approximately the same one).
                let mut all = train.clone();
                all.extend(valid.iter().cloned());
                std::fs::write(&cache, learned::samples_to_bytes(&all)).expect("the cache is written");
            }
            (train, valid)
        }
    };
    let max: usize = arg(&args, "--max-samples", usize::MAX);
    let mut train = train;
    train.truncate(max);
    eprintln!(
        "{} training samples, {} held out ({:.0} s); training {cfg:?}",
        train.len(),
        valid.len(),
        t0.elapsed().as_secs_f64()
    );
    let t1 = Instant::now();
    let net = learned::train(&train, &valid, &cfg, &mut |epoch, tr, va| {
        eprintln!(
            "epoch {epoch}: train {tr}\n          held out {va}   ({:.0} s)",
            t1.elapsed().as_secs_f64()
        );
    });
    std::fs::write(&out, net.to_bytes()).expect("the parameters are written");
    eprintln!("{} parameters written to {out} ({:.0} s in all)", net.len(), t0.elapsed().as_secs_f64());
}
