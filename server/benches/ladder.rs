//! The ladder's pairing (`gin_server::ladder`; issue 39's target: 1,000 queued programs
//! paired within one second of their arrival), in one pool (two seats unless said) under
//! the default [`LadderConfig`]:
//!
//! - `ladder/arrive_and_pair_all/1000`: [`ENTRANTS`] entrants arrive within one second
//!   (ratings uniform in 800–2,400, deviations 30–350), then `pair` is called at the end of
//!   that second and every second after until fewer than two wait; the whole of it, joins
//!   included, on a fresh ladder each time. Checked first: every entrant seated once, at
//!   least 99 % by the first call (998 of these 1,000; the last two, 541 points apart, when
//!   their windows reach each other, 6 s later).
//! - `ladder/arrive_and_pair_all/1000/six`: as the first, at tables of six (990 seated by
//!   the first call, 996 in all: four are left over).
//! - `ladder/arrive_one_by_one/1000`: the same arrivals, `pair_pool` after each join (a
//!   server that pairs on every arrival), then once a second until fewer than two wait.
//!   Checked first: every entrant seated once, at least 95 % within the second of arrivals.
//! - `ladder/pair/1000_waiting`: one call of `pair` on a queue of [`ENTRANTS`] waiting 0–30 s,
//!   each with its last opponent waiting too (a ladder that has been running), which seats
//!   at least 90 % of them (and none with its last opponent); the queue is cloned outside
//!   the timing.
//! - `ladder/pair/1000_waiting_none_fit`: one call on [`ENTRANTS`] waiting that no table can
//!   seat (ratings 250 apart, windows ±100): the floor of a call that finds nothing.
//!
//! One core of the machine, the system allocator (the server's binary uses mimalloc).
//! `cargo bench -p gin-server --bench ladder`, then `python3 .ci/bench-medians.py`.
//! Medians on 2026-11-28, two runs (AMD EPYC, 2 cores shared with other builds, load 0.5
//! to 1.3): arrive and pair all 0.75–0.80 ms (six: 0.93–0.96 ms), one by one 0.71–0.73 ms,
//! one call with 1,000 waiting 0.58 ms (about 40 % of it allocating and freeing: the
//! matches' entrants, the repeat memory), one that seats nobody 36–37 µs (the sort and the
//! sweeps).

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use gin_server::ladder::{Entrant, Ladder, LadderConfig, Match, Millis, Seats};

/// Entrants per run.
const ENTRANTS: usize = 1_000;

const POOL: &str = "gin/standard";

/// A pseudo-random sequence (splitmix64): the same entrants every run.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// [`ENTRANTS`] entrants with random ratings and deviations, arriving in order over
/// `0..spread_ms`.
fn arrivals(seed: u64, spread_ms: Millis) -> Vec<Entrant> {
    let mut s = seed;
    (0..ENTRANTS)
        .map(|i| Entrant {
            account: format!("ac_{:016x}", splitmix(&mut s)),
            rating: 800.0 + (splitmix(&mut s) % 1_600_000) as f64 / 1000.0,
            deviation: 30.0 + (splitmix(&mut s) % 320_000) as f64 / 1000.0,
            arrived_ms: i as Millis * spread_ms / ENTRANTS as Millis,
        })
        .collect()
}

fn ladder() -> Ladder {
    Ladder::new(LadderConfig::default()).expect("the defaults are valid")
}

/// Pairs once a second from `from` until fewer than a table wait (or a minute has passed):
/// the matches, each with the time of the call that formed it.
fn pair_until_done(l: &mut Ladder, from: Millis, seats: Seats) -> Vec<(Millis, Match)> {
    let mut out = Vec::new();
    let mut now = from;
    loop {
        out.extend(l.pair(now).into_iter().map(|m| (now, m)));
        if l.len(POOL) < seats.size() || now >= from + 60_000 {
            return out;
        }
        now += 1_000;
    }
}

fn arrive_and_pair_all(who: &[Entrant], seats: Seats) -> Vec<(Millis, Match)> {
    let mut l = ladder();
    for e in who {
        l.join(POOL, seats, e.clone()).expect("join");
    }
    pair_until_done(&mut l, 1_000, seats)
}

fn arrive_one_by_one(who: &[Entrant]) -> Vec<(Millis, Match)> {
    let mut l = ladder();
    let mut out = Vec::new();
    for e in who {
        let now = e.arrived_ms;
        l.join(POOL, Seats::Two, e.clone()).expect("join");
        out.extend(l.pair_pool(POOL, now).into_iter().map(|m| (now, m)));
    }
    out.extend(pair_until_done(&mut l, 1_000, Seats::Two));
    out
}

/// Every entrant seated exactly once, in tables of two; how many were seated by `by_ms`, and
/// the time of the last table.
fn check_seated(who: &[Entrant], matches: &[(Millis, Match)], by_ms: Millis) -> (usize, Millis) {
    let mut seated: Vec<&str> =
        matches.iter().flat_map(|(_, m)| m.entrants.iter().map(|e| e.account.as_str())).collect();
    assert!(
        matches.iter().all(|(_, m)| m.entrants.len() == 2 && m.entrants[0].account != m.entrants[1].account)
    );
    seated.sort_unstable();
    seated.dedup();
    assert_eq!(seated.len(), who.len(), "every entrant seated, once");
    assert_eq!(matches.len() * 2, who.len());
    let early = matches.iter().filter(|(at, _)| *at <= by_ms).count() * 2;
    (early, matches.iter().map(|(at, _)| *at).max().unwrap_or(0))
}

/// A ladder that has been running: [`ENTRANTS`] waiting, arrived over the 30 s before
/// `30_000`, each with a last opponent.
fn running() -> Ladder {
    let who = arrivals(2, 30_000);
    let mut l = ladder();
    for e in &who {
        l.join(POOL, Seats::Two, Entrant { arrived_ms: 0, ..e.clone() }).expect("join");
    }
    let first = pair_until_done(&mut l, 0, Seats::Two);
    check_seated(&who, &first, 0);
    for e in who {
        l.join(POOL, Seats::Two, e).expect("rejoin");
    }
    assert_eq!(l.len(POOL), ENTRANTS);
    l
}

fn bench(c: &mut Criterion) {
    let who = arrivals(1, 1_000);
    let (early, last) = check_seated(&who, &arrive_and_pair_all(&who, Seats::Two), 1_000);
    eprintln!("arrive_and_pair_all: {early} seated by the first call (1 s), the last at {last} ms");
    assert!(early >= ENTRANTS * 99 / 100, "{early} seated by the first call");
    c.bench_function("ladder/arrive_and_pair_all/1000", |b| {
        b.iter(|| black_box(arrive_and_pair_all(&who, Seats::Two)))
    });

    // Tables of six: 166 tables, four left over.
    let six = arrive_and_pair_all(&who, Seats::Table(6));
    assert!(six.iter().all(|(_, m)| m.entrants.len() == 6 && m.spread <= 1_000.0));
    let mut seated: Vec<&str> =
        six.iter().flat_map(|(_, m)| m.entrants.iter().map(|e| e.account.as_str())).collect();
    seated.sort_unstable();
    seated.dedup();
    assert_eq!(seated.len(), six.len() * 6, "nobody seated twice");
    let early = six.iter().filter(|(at, _)| *at == 1_000).count() * 6;
    eprintln!("arrive_and_pair_all/six: {early} seated by the first call, {} in all", six.len() * 6);
    assert!(early >= ENTRANTS * 95 / 100, "{early} seated by the first call");
    c.bench_function("ladder/arrive_and_pair_all/1000/six", |b| {
        b.iter(|| black_box(arrive_and_pair_all(&who, Seats::Table(6))))
    });

    let (early, last) = check_seated(&who, &arrive_one_by_one(&who), 1_000);
    eprintln!("arrive_one_by_one: {early} seated within the second of arrivals, the last at {last} ms");
    assert!(early >= ENTRANTS * 95 / 100, "{early} seated within the second of arrivals");
    c.bench_function("ladder/arrive_one_by_one/1000", |b| b.iter(|| black_box(arrive_one_by_one(&who))));

    let l = running();
    let formed = l.clone().pair(30_000);
    eprintln!("pair/1000_waiting: {} of {ENTRANTS} seated by the call", formed.len() * 2);
    assert!(formed.len() * 2 >= ENTRANTS * 9 / 10, "{} tables", formed.len());
    assert!(formed.iter().all(|m| !m.repeat));
    c.bench_function("ladder/pair/1000_waiting", |b| {
        // The ladder is handed back, to be dropped outside the timing.
        b.iter_batched(|| l.clone(), |mut l| (black_box(l.pair(30_000)), l), BatchSize::SmallInput)
    });

    let mut apart = ladder();
    for i in 0..ENTRANTS {
        let e = Entrant {
            account: format!("ac_{i:016x}"),
            rating: 250.0 * i as f64,
            deviation: 0.0,
            arrived_ms: 0,
        };
        apart.join(POOL, Seats::Two, e).expect("join");
    }
    assert!(apart.pair(0).is_empty());
    c.bench_function("ladder/pair/1000_waiting_none_fit", |b| b.iter(|| black_box(apart.pair(0))));
    assert_eq!(apart.len(POOL), ENTRANTS);
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
