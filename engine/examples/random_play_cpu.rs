//! Random legal play at every format and table size on the defaults, timed in the thread's
//! own CPU time (`/proc/thread-self/schedstat`, Linux), not wall time: a figure that holds on
//! a loaded machine, where a criterion run's wall time counts the waits for a core. The same
//! playouts as `benches/formats.rs` (`random_play/<format>/<players>`), from
//! `benches/shared/playouts.rs`.
//!
//! `cargo run --release -p gin-engine --example random_play_cpu [seconds per format]`

#[path = "../benches/shared/playouts.rs"]
mod playouts;

/// Nanoseconds this thread has run on a CPU.
fn cpu_ns() -> u64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").expect("Linux schedstat");
    s.split_whitespace().next().and_then(|x| x.parse().ok()).expect("a number")
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
    for (name, play) in playouts::formats() {
        run(&name, secs, play);
    }
}
