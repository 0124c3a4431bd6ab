//! The ladder's rules, one test each, and a property test of random queues, leaves and
//! pairings against a model.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Duration;

use proptest::prelude::*;

use super::*;

fn entrant(account: &str, rating: f64, deviation: f64, arrived_ms: Millis) -> Entrant {
    Entrant { account: account.to_string(), rating, deviation, arrived_ms }
}

fn ladder() -> Ladder {
    Ladder::new(LadderConfig::default()).expect("the defaults are valid")
}

/// Joins each `(account, rating)` with deviation zero at `now`.
fn join_all(l: &mut Ladder, pool: &str, seats: Seats, now: Millis, who: &[(&str, f64)]) {
    for &(a, r) in who {
        l.join(pool, seats, entrant(a, r, 0.0, now)).expect("join");
    }
}

/// Each match's accounts, by seat.
fn tables(matches: &[Match]) -> Vec<Vec<&str>> {
    matches.iter().map(|m| m.entrants.iter().map(|e| e.account.as_str()).collect()).collect()
}

#[test]
fn the_closest_pair_is_formed_first_and_each_pair_only_within_both_windows() {
    let mut l = ladder();
    // Windows ±100 (deviation zero, no wait). B–C (10) first, then E–F (30); A–B (90) is
    // gone with B; A–D (200) and D–E (300) are out of the windows.
    let who = [("a", 1500.0), ("b", 1590.0), ("c", 1600.0), ("d", 1700.0), ("e", 2000.0), ("f", 2030.0)];
    join_all(&mut l, "gin", Seats::Two, 0, &who);
    let m = l.pair(0);
    assert_eq!(tables(&m), [["b", "c"], ["e", "f"]]);
    assert_eq!((m[0].spread, m[1].spread), (10.0, 30.0));
    assert!(m.iter().all(|m| !m.repeat && m.pool == "gin" && m.seats == Seats::Two));
    let left: Vec<&str> = l.waiting("gin").map(|e| e.account.as_str()).collect();
    assert_eq!(left, ["a", "d"]);
    assert!(l.pair(0).is_empty(), "nothing more within the windows");
}

#[test]
fn the_window_widens_with_waiting_until_two_far_apart_are_paired() {
    let mut l = ladder();
    join_all(&mut l, "gin", Seats::Two, 0, &[("a", 1500.0), ("b", 1800.0)]);
    assert!(l.pair(0).is_empty(), "300 apart, windows ±100");
    assert_eq!(l.expected_wait_of("gin", "a", 0), Some(Duration::from_secs(4)));
    // 100 + 50 × 3.999 = 299.95 < 300.
    assert!(l.pair(3_999).is_empty());
    assert_eq!(l.len("gin"), 2);
    let m = l.pair(4_000);
    assert_eq!(tables(&m), [["a", "b"]]);
    assert_eq!(m[0].spread, 300.0);
    assert!(l.is_empty());

    // A deviation widens the window from the start: 100 + 2 × 100 = 300.
    l.join("gin", Seats::Two, entrant("c", 1500.0, 100.0, 10_000)).expect("join");
    l.join("gin", Seats::Two, entrant("d", 1800.0, 100.0, 10_000)).expect("join");
    assert_eq!(tables(&l.pair(10_000)), [["c", "d"]]);

    // Both must accept: a long waiter's wide window does not take a newcomer out of its own.
    l.join("gin", Seats::Two, entrant("e", 1500.0, 0.0, 20_000)).expect("join");
    assert!(l.pair(40_000).is_empty());
    l.join("gin", Seats::Two, entrant("f", 1800.0, 0.0, 40_000)).expect("join");
    assert!(l.pair(40_000).is_empty(), "e's window is 1,000 but f's 100");
    assert_eq!(tables(&l.pair(44_000)), [["e", "f"]]);

    // And the cap: 1,001 apart are never paired.
    join_all(&mut l, "gin", Seats::Two, 50_000, &[("g", 1000.0), ("h", 2001.0)]);
    assert!(l.pair(50_000 + 3_600_000).is_empty());
    assert_eq!(l.expected_wait_of("gin", "g", 50_000), None);
}

#[test]
fn the_same_two_never_play_twice_in_a_row_while_a_third_waits() {
    let mut l = ladder();
    join_all(&mut l, "gin", Seats::Two, 0, &[("a", 1500.0), ("b", 1495.0)]);
    assert_eq!(tables(&l.pair(0)), [["b", "a"]]);
    assert_eq!(l.last_opponents("gin", "a"), ["b"]);
    // All three wait: b–a (5) would be the closest, but it repeats; a–c (30), not b–c (35).
    join_all(&mut l, "gin", Seats::Two, 1_000, &[("a", 1500.0), ("b", 1495.0), ("c", 1530.0)]);
    let m = l.pair(1_000);
    assert_eq!(tables(&m), [["a", "c"]]);
    assert!(!m[0].repeat);
    // b now waits alone; a minute later still nobody for it.
    assert!(l.pair(61_000).is_empty());

    // Three programs that rejoin the moment their game is made, for many rounds, whatever the
    // waits: no one ever plays the same opponent twice in a row, since the third waits.
    let mut l = ladder();
    let who = [("a", 1500.0), ("b", 1520.0), ("c", 1550.0)];
    join_all(&mut l, "gin", Seats::Two, 0, &who);
    let mut last: HashMap<String, String> = HashMap::new();
    for round in 0..60u64 {
        let now = round * 7_000;
        for m in l.pair(now) {
            let [x, y] = [&m.entrants[0].account, &m.entrants[1].account];
            assert_ne!(last.get(x), Some(y), "round {round}: {x} plays {y} again");
            assert_ne!(last.get(y), Some(x), "round {round}: {y} plays {x} again");
            assert!(!m.repeat);
            last.insert(x.clone(), y.clone());
            last.insert(y.clone(), x.clone());
            for e in m.entrants {
                l.join("gin", Seats::Two, Entrant { arrived_ms: now, ..e }).expect("rejoin");
            }
        }
    }
    assert_eq!(last.len(), 3, "all three played");
}

#[test]
fn a_repeat_is_allowed_once_both_waited_the_stated_time_and_nobody_else_is_in_reach() {
    // Only the two of them.
    let mut l = ladder();
    let after = l.config().repeat_after_ms;
    join_all(&mut l, "gin", Seats::Two, 0, &[("a", 1500.0), ("b", 1510.0)]);
    assert_eq!(tables(&l.pair(0)), [["a", "b"]]);
    join_all(&mut l, "gin", Seats::Two, 2_000, &[("a", 1500.0), ("b", 1510.0)]);
    assert!(l.pair(2_000).is_empty());
    assert!(l.pair(2_000 + after - 1).is_empty());
    let m = l.pair(2_000 + after);
    assert_eq!(tables(&m), [["a", "b"]]);
    assert!(m[0].repeat);

    // The same table of three again, alone, after the same wait.
    let seats = Seats::Table(3);
    let three = [("x", 1500.0), ("y", 1600.0), ("z", 1700.0)];
    join_all(&mut l, "t", seats, 0, &three);
    assert!(!l.pair_pool("t", 10_000)[0].repeat);
    join_all(&mut l, "t", seats, 10_000, &three);
    assert!(l.pair_pool("t", 10_000 + after - 1).is_empty());
    let m = l.pair_pool("t", 10_000 + after);
    assert_eq!(tables(&m), [["x", "y", "z"]]);
    assert!(m[0].repeat);

    let mut l = ladder();
    join_all(&mut l, "gin", Seats::Two, 0, &[("a", 1500.0), ("b", 1510.0), ("far", 2600.0)]);
    assert_eq!(tables(&l.pair(0)), [["a", "b"]]);
    l.join("gin", Seats::Two, entrant("a", 1500.0, 0.0, 1_000)).expect("rejoin");
    l.join("gin", Seats::Two, entrant("b", 1510.0, 0.0, 5_000)).expect("rejoin");
    // a has waited long enough before b has: no repeat.
    assert!(l.pair(1_000 + after).is_empty());
    assert!(l.pair(5_000 + after - 1).is_empty());
    let m = l.pair(5_000 + after);
    assert_eq!(tables(&m), [["a", "b"]]);
    assert!(m[0].repeat, "formed under the exception, and said so");
    // `far` (1,090 from b: beyond the cap) waited all along and was never within reach.
    assert_eq!(l.len("gin"), 1);

    // Within reach, a third waiting is taken instead, however long the two waited: b–c (390),
    // and a waits (a–c, 400, comes second; a–b would repeat).
    assert!(l.leave("gin", "far").is_some());
    join_all(&mut l, "gin", Seats::Two, 100_000, &[("a", 1500.0), ("b", 1510.0), ("c", 1900.0)]);
    let m = l.pair(100_000 + 10 * after);
    assert_eq!(tables(&m), [["b", "c"]]);
    assert!(!m[0].repeat);
    assert!(l.is_waiting("gin", "a"));

    // A third within reach who has just come (its window still narrow) keeps the two from
    // repeating: nobody is seated until its window reaches one of them.
    let mut l = ladder();
    join_all(&mut l, "gin", Seats::Two, 0, &[("a", 1500.0), ("b", 1510.0)]);
    assert_eq!(tables(&l.pair(0)), [["a", "b"]]);
    join_all(&mut l, "gin", Seats::Two, 1_000, &[("a", 1500.0), ("b", 1510.0)]);
    let t = 1_000 + after;
    join_all(&mut l, "gin", Seats::Two, t, &[("c", 2300.0)]);
    assert!(l.pair(t).is_empty(), "a–b would repeat while c, 790 above b, waits");
    // c's window (100 + 50 a second) holds b at 790 after 13.8 s.
    let m = l.pair(t + 14_000);
    assert_eq!(tables(&m), [["b", "c"]]);
    assert!(!m[0].repeat);
}

#[test]
fn tables_of_three_to_six_and_teams_form_with_their_size_and_close_ratings() {
    for n in 3..=6u8 {
        let mut l = ladder();
        let seats = Seats::Table(n);
        // Two clusters of n (1,000 + 10k and 1,500 + 3k) and one more at 1,700.
        for k in 0..n as usize {
            l.join("t", seats, entrant(&format!("lo{k}"), 1000.0 + 10.0 * k as f64, 0.0, 0)).expect("join");
            l.join("t", seats, entrant(&format!("hi{k}"), 1500.0 + 3.0 * k as f64, 0.0, 0)).expect("join");
        }
        l.join("t", seats, entrant("alone", 1700.0, 0.0, 0)).expect("join");
        let m = l.pair(0);
        assert_eq!(m.len(), 2, "{n}: {m:?}");
        let (hi, lo) = (&m[0], &m[1]);
        assert!(hi.entrants.iter().all(|e| e.account.starts_with("hi")), "the closer table first");
        assert!(lo.entrants.iter().all(|e| e.account.starts_with("lo")));
        assert_eq!((hi.spread, lo.spread), (3.0 * (n - 1) as f64, 10.0 * (n - 1) as f64));
        for t in &m {
            assert_eq!(t.entrants.len(), n as usize);
            assert!(t.entrants.windows(2).all(|w| w[0].rating <= w[1].rating), "seated by rating");
        }
        assert_eq!(l.waiting("t").map(|e| e.account.as_str()).collect::<Vec<_>>(), ["alone"]);
    }

    let mut l = ladder();
    let who = [("a", 1500.0), ("b", 1520.0), ("c", 1540.0), ("d", 1600.0), ("e", 2500.0)];
    join_all(&mut l, "teams", Seats::Teams, 0, &who);
    let m = l.pair(0);
    // The lowest and the highest partners (seats 0 and 2) against the middle two.
    assert_eq!(tables(&m), [["a", "b", "d", "c"]]);
    assert_eq!(m[0].spread, 100.0);
    assert_eq!(l.last_opponents("teams", "a"), ["b", "d", "c"]);
}

#[test]
fn a_newcomer_s_narrow_window_does_not_keep_a_table_from_the_others() {
    let mut l = ladder();
    let seats = Seats::Table(3);
    join_all(&mut l, "t", seats, 0, &[("x", 1500.0), ("y", 1700.0), ("z", 1800.0)]);
    join_all(&mut l, "t", seats, 20_000, &[("new", 1600.0)]);
    // x, y, z have waited 20 s (windows ±1,000); new's is ±100, too narrow for any table of
    // three here, and passed over: x, y, z (300).
    let m = l.pair(20_000);
    assert_eq!(tables(&m), [["x", "y", "z"]]);
    assert_eq!(m[0].spread, 300.0);
    assert!(l.is_waiting("t", "new"));
}

#[test]
fn a_table_does_not_seat_the_same_players_again_while_another_waits() {
    let mut l = ladder();
    let seats = Seats::Table(3);
    join_all(&mut l, "t", seats, 0, &[("a", 1500.0), ("b", 1501.0), ("c", 1502.0)]);
    assert_eq!(tables(&l.pair(0)), [["a", "b", "c"]]);
    join_all(&mut l, "t", seats, 1_000, &[("a", 1500.0), ("b", 1501.0), ("c", 1502.0), ("d", 1550.0)]);
    let m = l.pair(1_000);
    assert_eq!(m.len(), 1);
    assert!(tables(&m)[0].contains(&"d"), "{m:?}");
    assert!(!m[0].repeat);
}

#[test]
fn leaving_takes_an_entrant_out_and_nothing_else() {
    let mut l = ladder();
    join_all(&mut l, "gin", Seats::Two, 0, &[("a", 1500.0), ("b", 1510.0)]);
    join_all(&mut l, "rummy", Seats::Table(3), 0, &[("a", 1500.0), ("x", 1500.0), ("y", 1500.0)]);
    let gone = l.leave("gin", "a").expect("a waited");
    assert_eq!(gone, entrant("a", 1500.0, 0.0, 0));
    assert_eq!(l.leave("gin", "a"), None, "already out");
    assert_eq!(l.leave("nowhere", "b"), None);
    assert!(!l.is_waiting("gin", "a") && l.is_waiting("gin", "b") && l.is_waiting("rummy", "a"));
    assert!(l.pair_pool("gin", 60_000).is_empty(), "b alone");
    assert_eq!(l.leave_everywhere("a"), 1);
    assert!(l.pair(60_000).is_empty(), "rummy lacks its third");
    assert_eq!((l.len("gin"), l.len("rummy")), (1, 2));
}

#[test]
fn bad_joins_are_refused_with_the_reason_and_change_nothing() {
    let mut l = ladder();
    l.join("gin", Seats::Two, entrant("a", 1500.0, 50.0, 0)).expect("join");
    let before = format!("{l:?}");
    let refused = [
        (Seats::Two, entrant("a", 1700.0, 10.0, 5), "account a already waits in the ladder pool gin"),
        (Seats::Teams, entrant("b", 1500.0, 0.0, 0), "the ladder pool gin seats Two, not Teams"),
        (Seats::Table(7), entrant("b", 1500.0, 0.0, 0), "a ladder table seats 3 to 6, not 7"),
        (Seats::Table(2), entrant("b", 1500.0, 0.0, 0), "a ladder table seats 3 to 6, not 2"),
        (Seats::Two, entrant("b", f64::NAN, 0.0, 0), "account b: rating NaN is not a finite number"),
        (Seats::Two, entrant("b", 1500.0, -1.0, 0), "account b: deviation -1 is not a finite number ≥ 0"),
        (
            Seats::Two,
            entrant("b", 1500.0, f64::INFINITY, 0),
            "account b: deviation inf is not a finite number ≥ 0",
        ),
    ];
    for (seats, e, why) in refused {
        let err = l.join("gin", seats, e).expect_err(why);
        assert_eq!(err.to_string(), why);
    }
    assert_eq!(format!("{l:?}"), before, "the ladder is as it was");
    assert_eq!(l.waiting("gin").collect::<Vec<_>>(), [&entrant("a", 1500.0, 50.0, 0)]);

    let bad = LadderConfig { widen_per_sec: -1.0, ..LadderConfig::default() };
    let err = Ladder::new(bad).expect_err("negative widening");
    assert_eq!(err.to_string(), "ladder setting widen_per_sec: -1 is not a finite number ≥ 0");
    assert!(Ladder::new(LadderConfig { max_window: f64::INFINITY, ..LadderConfig::default() }).is_ok());
}

/// A pseudo-random sequence (splitmix64), for inputs the tests can repeat.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[test]
fn the_same_inputs_give_the_same_tables() {
    let pools =
        [("gin", Seats::Two), ("three", Seats::Table(3)), ("teams", Seats::Teams), ("six", Seats::Table(6))];
    let mut seed = 7;
    let joins: Vec<(usize, Entrant)> = (0..400)
        .map(|i| {
            let p = (splitmix(&mut seed) % 4) as usize;
            let rating = 800.0 + (splitmix(&mut seed) % 1600) as f64;
            let deviation = (splitmix(&mut seed) % 350) as f64;
            let arrived = (i / 100) * 2_000;
            (p, entrant(&format!("ac{}", i % 150), rating, deviation, arrived))
        })
        .collect();
    let run = || {
        let mut l = ladder();
        let mut out = Vec::new();
        for batch in joins.chunks(100) {
            let now = batch[0].1.arrived_ms;
            for (p, e) in batch {
                let (pool, seats) = pools[*p];
                if !l.is_waiting(pool, &e.account) {
                    l.join(pool, seats, e.clone()).expect("join");
                }
            }
            out.extend(l.pair(now + 500));
        }
        out.extend(l.pair(60_000));
        (out, l.waiting("gin").cloned().collect::<Vec<_>>())
    };
    let first = run();
    assert!(first.0.len() > 50, "{} tables", first.0.len());
    assert_eq!(first, run());
}

#[test]
fn the_insertion_order_does_not_change_the_tables() {
    let mut seed = 11;
    let who: Vec<Entrant> = (0..300)
        .map(|i| {
            let r = 1000.0 + (splitmix(&mut seed) % 1000) as f64;
            entrant(&format!("p{i}"), r, (splitmix(&mut seed) % 200) as f64, splitmix(&mut seed) % 5_000)
        })
        .collect();
    let run = |order: &mut dyn Iterator<Item = &Entrant>| {
        let mut l = ladder();
        for e in order {
            l.join("teams", Seats::Teams, e.clone()).expect("join");
        }
        (l.pair(5_000), l.pair(20_000))
    };
    let forward = run(&mut who.iter());
    assert!(forward.0.len() > 40);
    assert_eq!(forward, run(&mut who.iter().rev()));
}

#[test]
fn the_expected_wait_comes_from_the_queue_and_from_recent_matches() {
    let mut l = ladder();
    assert_eq!(l.expected_wait("gin", 1500.0, 0.0, 0), None, "no such pool");
    join_all(&mut l, "gin", Seats::Two, 0, &[("a", 1500.0)]);
    assert_eq!(l.expected_wait("gin", 1550.0, 0.0, 0), Some(Duration::ZERO), "a is within reach");
    // 300 away, both windows at 100 growing 50 a second: 4 s. A second later a's window is
    // 150: still 4 s for a newcomer of deviation 0 (its own window is 100), 3 s for one of
    // deviation 25 (150).
    assert_eq!(l.expected_wait("gin", 1800.0, 0.0, 0), Some(Duration::from_secs(4)));
    assert_eq!(l.expected_wait("gin", 1800.0, 0.0, 1_000), Some(Duration::from_secs(4)));
    assert_eq!(l.expected_wait("gin", 1800.0, 25.0, 1_000), Some(Duration::from_secs(3)));
    assert_eq!(l.expected_wait("gin", 2600.0, 0.0, 0), None, "beyond the cap, no history");
    assert_eq!(l.expected_wait_of("gin", "a", 0), None, "nobody else waits, no history");
    assert_eq!(l.expected_wait_of("gin", "nobody", 0), None);
    l.leave("gin", "a");

    // Ten matched near 1,500 at t = 0; a minute later the queue is empty: ten arrivals a
    // minute near 1,500, one needed: 6 s. Far from them, nothing in sight.
    let who: Vec<(String, f64)> = (0..10).map(|i| (format!("p{i}"), 1490.0 + 2.0 * i as f64)).collect();
    let who: Vec<(&str, f64)> = who.iter().map(|(a, r)| (a.as_str(), *r)).collect();
    join_all(&mut l, "gin", Seats::Two, 0, &who);
    assert_eq!(l.pair(0).len(), 5);
    assert_eq!(l.expected_wait("gin", 1500.0, 0.0, 60_000), Some(Duration::from_secs(6)));
    assert_eq!(l.expected_wait("gin", 1800.0, 0.0, 60_000), None);
    // A table of four needs three of them: 18 s, once the history is ten minutes old it is
    // forgotten.
    join_all(&mut l, "teams", Seats::Teams, 0, &who[..8]);
    assert_eq!(l.pair(0).len(), 2);
    assert_eq!(l.expected_wait("teams", 1500.0, 0.0, 60_000), Some(Duration::from_millis(22_500)));
    assert_eq!(l.expected_wait("teams", 1500.0, 0.0, 600_001), None);
}

// ---- The property test.

const POOLS: [(&str, Seats); 4] =
    [("two", Seats::Two), ("three", Seats::Table(3)), ("teams", Seats::Teams), ("five", Seats::Table(5))];

#[derive(Clone, Debug)]
enum Op {
    Join { pool: usize, account: u8, rating: f64, deviation: f64 },
    Leave { pool: usize, account: u8 },
    Pair { after_ms: Millis },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0..POOLS.len(), 0..16u8, 1000.0..2200.0f64, prop_oneof![Just(0.0), 0.0..350.0f64])
            .prop_map(|(pool, account, rating, deviation)| Op::Join { pool, account, rating: rating.round(), deviation }),
        1 => (0..POOLS.len(), 0..16u8).prop_map(|(pool, account)| Op::Leave { pool, account }),
        2 => prop_oneof![Just(0), 0..40_000u64].prop_map(|after_ms| Op::Pair { after_ms }),
    ]
}

/// Whether `group` seats one of its accounts with exactly the others of its last game.
fn repeats(group: &[&str], last: &HashMap<String, Vec<String>>) -> bool {
    group
        .iter()
        .any(|a| last.get(*a).is_some_and(|l| !l.is_empty() && l.iter().all(|o| group.contains(&o.as_str()))))
}

/// Calls `f` with every `n`-subset of `0..len` (ascending) that extends `cur`.
fn subsets(len: usize, n: usize, cur: &mut Vec<usize>, f: &mut dyn FnMut(&[usize])) {
    if cur.len() == n {
        return f(cur);
    }
    let from = cur.last().map_or(0, |&k| k + 1);
    for k in from..len {
        cur.push(k);
        subsets(len, n, cur, f);
        cur.pop();
    }
}

/// Plays `ops` on a ladder, checking every call against a model of the queues and the last
/// games; the matches, for the determinism check.
fn check(ops: &[Op]) -> Result<Vec<Match>, TestCaseError> {
    let cfg = LadderConfig::default();
    let mut l = Ladder::new(cfg.clone()).expect("config");
    let mut queues: Vec<BTreeMap<String, Entrant>> = vec![BTreeMap::new(); POOLS.len()];
    let mut last: Vec<HashMap<String, Vec<String>>> = vec![HashMap::new(); POOLS.len()];
    let mut now = 0;
    let mut all = Vec::new();
    for op in ops {
        match *op {
            Op::Join { pool, account, rating, deviation } => {
                let (key, seats) = POOLS[pool];
                let e = entrant(&format!("ac{account}"), rating, deviation, now);
                let got = l.join(key, seats, e.clone());
                if queues[pool].contains_key(&e.account) {
                    let refused = matches!(got, Err(LadderError::AlreadyQueued { .. }));
                    prop_assert!(refused, "a second join: {:?}", got);
                } else {
                    prop_assert_eq!(got, Ok(()));
                    queues[pool].insert(e.account.clone(), e);
                }
            }
            Op::Leave { pool, account } => {
                let a = format!("ac{account}");
                prop_assert_eq!(l.leave(POOLS[pool].0, &a), queues[pool].remove(&a));
            }
            Op::Pair { after_ms } => {
                now += after_ms;
                let window = |e: &Entrant| cfg.window(e.deviation, now - e.arrived_ms);
                let seasoned = |e: &Entrant| now - e.arrived_ms >= cfg.repeat_after_ms;
                // Per pool, before: the closest acceptable table that repeats for nobody
                // (checked for two seats always; for more only where no table could repeat,
                // as the sweep passes over a refused table without trying every other).
                let mut closest: Vec<Option<f64>> = vec![None; POOLS.len()];
                for (pool, (_, seats)) in POOLS.iter().enumerate() {
                    let mut q: Vec<&Entrant> = queues[pool].values().collect();
                    q.sort_by(|a, b| a.rating.total_cmp(&b.rating));
                    let may_repeat = q.iter().any(|e| {
                        last[pool]
                            .get(&e.account)
                            .is_some_and(|l| l.iter().all(|o| queues[pool].contains_key(o)))
                    });
                    if *seats != Seats::Two && may_repeat {
                        continue;
                    }
                    subsets(q.len(), seats.size(), &mut Vec::new(), &mut |g| {
                        let spread = q[g[g.len() - 1]].rating - q[g[0]].rating;
                        let ids: Vec<&str> = g.iter().map(|&k| q[k].account.as_str()).collect();
                        if g.iter().all(|&k| spread <= window(q[k])) && !repeats(&ids, &last[pool]) {
                            closest[pool] = Some(closest[pool].map_or(spread, |c: f64| c.min(spread)));
                        }
                    });
                }
                let matches = l.pair(now);
                let mut first: Vec<Option<f64>> = vec![None; POOLS.len()];
                let mut seen = HashSet::new();
                for m in &matches {
                    let pool = POOLS.iter().position(|p| p.0 == m.pool).expect("a known pool");
                    prop_assert_eq!(m.seats, POOLS[pool].1);
                    prop_assert_eq!(m.entrants.len(), m.seats.size());
                    let ids: Vec<&str> = m.entrants.iter().map(|e| e.account.as_str()).collect();
                    for e in &m.entrants {
                        prop_assert!(
                            seen.insert((pool, e.account.clone())),
                            "{} twice in one call",
                            e.account
                        );
                        prop_assert_eq!(Some(e), queues[pool].get(&e.account), "it waited as matched");
                        prop_assert!(!l.is_waiting(&m.pool, &e.account), "out of the queue");
                    }
                    let (lo, hi) = m
                        .entrants
                        .iter()
                        .fold((f64::MAX, f64::MIN), |(lo, hi), e| (lo.min(e.rating), hi.max(e.rating)));
                    prop_assert_eq!(m.spread, hi - lo);
                    prop_assert!(m.entrants.iter().all(|e| m.spread <= window(e)), "within every window");
                    let r: Vec<f64> = m.entrants.iter().map(|e| e.rating).collect();
                    if m.seats == Seats::Teams {
                        prop_assert!(r[0] <= r[1] && r[1] <= r[3] && r[3] <= r[2], "{:?}", r);
                    } else {
                        prop_assert!(r.windows(2).all(|w| w[0] <= w[1]), "{:?}", r);
                    }
                    prop_assert_eq!(m.repeat, repeats(&ids, &last[pool]));
                    if m.repeat {
                        prop_assert!(m.entrants.iter().all(seasoned), "a repeat before its time");
                    }
                    if first[pool].is_none() {
                        first[pool] = Some(m.spread);
                    }
                }
                for pool in 0..POOLS.len() {
                    if closest[pool].is_some() {
                        prop_assert_eq!(
                            first[pool],
                            closest[pool],
                            "the closest table first in {}",
                            POOLS[pool].0
                        );
                    }
                }
                for m in &matches {
                    let pool = POOLS.iter().position(|p| p.0 == m.pool).expect("a known pool");
                    for e in &m.entrants {
                        queues[pool].remove(&e.account);
                        let others = m.entrants.iter().filter(|o| o.account != e.account);
                        last[pool].insert(e.account.clone(), others.map(|o| o.account.clone()).collect());
                    }
                }
                // No acceptable table is left that the rules allow now (for more than two
                // seats: where no table could repeat).
                for (pool, (key, seats)) in POOLS.iter().enumerate() {
                    let q: Vec<&Entrant> = queues[pool].values().collect();
                    let may_repeat = q.iter().any(|e| {
                        last[pool]
                            .get(&e.account)
                            .is_some_and(|l| l.iter().all(|o| queues[pool].contains_key(o)))
                    });
                    if *seats != Seats::Two && may_repeat {
                        continue;
                    }
                    let mut left = None;
                    subsets(q.len(), seats.size(), &mut Vec::new(), &mut |g| {
                        let (lo, hi) = g.iter().fold((f64::MAX, f64::MIN), |(lo, hi), &k| {
                            (lo.min(q[k].rating), hi.max(q[k].rating))
                        });
                        let ids: Vec<&str> = g.iter().map(|&k| q[k].account.as_str()).collect();
                        let fits = g.iter().all(|&k| hi - lo <= window(q[k]));
                        let allowed = !repeats(&ids, &last[pool]) || g.iter().all(|&k| seasoned(q[k]));
                        if fits && allowed {
                            left = Some(ids.join(" "));
                        }
                    });
                    prop_assert_eq!(left, None, "a table left waiting in {}", key);
                }
                for (pool, (key, _)) in POOLS.iter().enumerate() {
                    prop_assert_eq!(l.len(key), queues[pool].len());
                    for a in queues[pool].keys() {
                        let _ = l.expected_wait_of(key, a, now);
                    }
                    let _ = l.expected_wait(key, 1600.0, 50.0, now);
                }
                all.extend(matches);
            }
        }
    }
    Ok(all)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_queues_pair_by_the_rules(ops in prop::collection::vec(op(), 1..120)) {
        let first = check(&ops)?;
        prop_assert_eq!(first, check(&ops)?, "the same inputs, the same tables");
    }
}
