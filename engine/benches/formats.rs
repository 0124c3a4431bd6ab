//! Random legal play at every format and table size, on each format's default rules (issue
//! 36): `random_play/<format>/<players>`, one iteration a batch of 100 seeded hands (the
//! playouts of `shared/playouts.rs`), one core. Criterion's
//! throughput is in moves: its `thrpt` is moves per second (ns per move = 1e9 / it), and the
//! time of an iteration over 100 is the time of a hand.
//!
//! Three players and teams play two-player hands (`Hand`) under their rule set: their hands
//! are `random_play/gin/2`'s, with the same default limits.
//!
//! `cargo bench -p gin-engine --bench formats`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

#[path = "shared/playouts.rs"]
mod playouts;

/// Hands in one iteration.
const BATCH: u64 = 100;

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
    for (name, play) in playouts::formats() {
        batch(c, &name, play);
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
