//! The ratings' leaderboards (`gin_server::ratings`; issue 39's target: a leaderboard page
//! over 100,000 rated accounts in ≤ 5 ms p99 at the server), on one board of [`ACCOUNTS`]
//! established ratings (uniform in 800–2,400):
//!
//! - `ratings/page/top`: the first page (20 lines) cloned out, as `GetLeaderboard` does.
//! - `ratings/page/deep`: a page from a random offset.
//! - `ratings/rank`: an account's rank (a hash lookup and a binary search), as
//!   `GetPlayerRatings` does per pool.
//! - `ratings/update`: a rated game's two accounts moved on the board (taken off at their old
//!   rating, put on at the new one: the board is one sorted vector, so this is the costly
//!   one: up to a `memmove` of the board).
//! - `ratings/rate/glicko2`, `ratings/rate/weng_lin_6`: a game's new ratings (skillratings).
//!
//! `cargo bench -p gin-server --bench ratings`, then `python3 .ci/bench-medians.py`.
//! Medians on 2026-11-28 (AMD EPYC, 2 cores shared with other builds): a top page 0.27 µs, a
//! deep page 0.37 µs, a rank 1.05 µs, a rated game's two board moves 132 µs, a Glicko-2 game
//! 0.41 µs, a Weng-Lin table of six 0.77 µs.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use gin_server::ratings::{Board, BoardEntry, Pool, Rating, System, rate};

const ACCOUNTS: usize = 100_000;

/// SplitMix64: the bench's inputs, the same each run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn rating(&mut self) -> f64 {
        800.0 + (self.next() % 160_000) as f64 / 100.0
    }
}

fn board(rng: &mut Rng) -> Board {
    let entries = (0..ACCOUNTS)
        .map(|i| BoardEntry {
            account: format!("acc-{i:06}"),
            rating: rng.rating(),
            deviation: 60.0,
            games: 30,
        })
        .collect();
    Board::from_entries(entries)
}

fn benches(c: &mut Criterion) {
    let mut rng = Rng(39);
    let mut b = board(&mut rng);
    assert_eq!(b.len(), ACCOUNTS);
    let mut g = c.benchmark_group("ratings");
    g.bench_function("page/top", |bench| bench.iter(|| black_box(b.page(0, 20).to_vec())));
    g.bench_function("page/deep", |bench| {
        bench.iter(|| {
            let offset = (rng.next() % ACCOUNTS as u64) as usize;
            black_box(b.page(offset, 20).to_vec())
        })
    });
    g.bench_function("rank", |bench| {
        bench.iter(|| {
            let who = format!("acc-{:06}", rng.next() % ACCOUNTS as u64);
            black_box(b.rank(&who))
        })
    });
    g.bench_function("update", |bench| {
        bench.iter(|| {
            for _ in 0..2 {
                let who = format!("acc-{:06}", rng.next() % ACCOUNTS as u64);
                let entry =
                    BoardEntry { account: who.clone(), rating: rng.rating(), deviation: 60.0, games: 31 };
                b.set(&who, Some(entry));
            }
        })
    });
    assert_eq!(b.len(), ACCOUNTS);
    let two = Pool::parse("gin/standard").unwrap();
    let before = [Rating::new(System::Glicko2), Rating { rating: 1600.0, ..Rating::new(System::Glicko2) }];
    g.bench_function("rate/glicko2", |bench| bench.iter(|| black_box(rate(&two, &before, &[0, 1]).unwrap())));
    let six = Pool::parse("rummy/6").unwrap();
    let before = [Rating::new(System::WengLin); 6];
    g.bench_function("rate/weng_lin_6", |bench| {
        bench.iter(|| black_box(rate(&six, &before, &[3, 0, 5, 1, 2, 4]).unwrap()))
    });
    g.finish();
}

criterion_group!(ratings, benches);
criterion_main!(ratings);
