//! Tournament pairings: round robin, gauntlet and Swiss. Pure functions, no I/O.
//!
//!
//! `table_round_robin` / `table_seatings`: the seatings of a round robin at tables of 3 to 6
//! (every subset in every rotation; team tables in each of the three partnerships), tested for
//! equal seats, meetings and partnerships; `table_subsets`, `seatings_per_table`,
//! `subsets_count` (used by `Spec::plan_tables`).

use std::collections::HashSet;

/// Every pair `(i, j)`, `i < j`, of `n` entrants, in a fixed order.
pub fn round_robin(n: u32) -> Vec<(u32, u32)> {
    let mut v = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            v.push((i, j));
        }
    }
    v
}

/// A round robin at tables of `size` (3 to 6) among `n` entrants: every subset of
/// [`table_subsets`], each played in every seating of [`table_seatings`]. Each entrant holds
/// each seat equally often and meets each other entrant equally often (at a team table: as
/// partner and as opponent equally often). Each inner list is a game's entrants by seat.
pub fn table_round_robin(n: u32, size: u32, teams: bool) -> Vec<Vec<u32>> {
    table_subsets(n, size).iter().flat_map(|s| table_seatings(s, teams)).collect()
}

/// Every `size`-subset of `n` entrants, in lexicographic order (none if `size` is 0 or more
/// than `n`).
pub fn table_subsets(n: u32, size: u32) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    let mut subset: Vec<u32> = (0..size).collect();
    if size == 0 || size > n {
        return out;
    }
    loop {
        out.push(subset.clone());
        // The next subset in lexicographic order.
        let Some(i) = (0..size as usize).rev().find(|&i| subset[i] < n - size + i as u32) else { break };
        subset[i] += 1;
        for j in i + 1..size as usize {
            subset[j] = subset[j - 1] + 1;
        }
    }
    out
}

/// How many seatings [`table_seatings`] gives a table of `size` (12 at a team table).
pub fn seatings_per_table(size: u32, teams: bool) -> u32 {
    if teams && size == 4 { 12 } else { size }
}

/// How many `size`-subsets `n` entrants have (saturating).
pub fn subsets_count(n: u32, size: u32) -> u64 {
    if size > n {
        return 0;
    }
    (0..size as u64).fold(1u64, |c, k| c.saturating_mul(n as u64 - k) / (k + 1))
}

/// The seatings of one table's entrants: every rotation (each entrant once in each seat); at
/// a team table (four, partners in seats 0 and 2, 1 and 3), every rotation of each of the
/// three ways to make two pairs (each pair of entrants partners in one of them).
pub fn table_seatings(entrants: &[u32], teams: bool) -> Vec<Vec<u32>> {
    let rotations = |order: &[u32]| -> Vec<Vec<u32>> {
        (0..order.len()).map(|r| (0..order.len()).map(|k| order[(k + r) % order.len()]).collect()).collect()
    };
    match (teams, entrants) {
        (true, &[a, b, c, d]) => {
            [[a, b, c, d], [a, c, b, d], [a, b, d, c]].iter().flat_map(|o| rotations(o)).collect()
        }
        _ => rotations(entrants),
    }
}

/// Entrant 0 against each other entrant.
pub fn gauntlet(n: u32) -> Vec<(u32, u32)> {
    (1..n).map(|j| (0, j)).collect()
}

/// One Swiss round: entrants sorted by `scores` (best first, ties by index) are paired with
/// the nearest entrant below them whom they have not met (`met` holds pairs `(low, high)`),
/// backtracking when a choice would leave someone unpairable. When no pairing avoids every
/// repeat, repeats are allowed (as few as the same order finds). With an odd number, the
/// lowest-ranked entrant who has not had a bye yet (`byes`) sits out.
pub fn swiss_round(
    scores: &[f64],
    met: &HashSet<(u32, u32)>,
    byes: &HashSet<u32>,
) -> (Vec<(u32, u32)>, Option<u32>) {
    let n = scores.len() as u32;
    let mut order: Vec<u32> = (0..n).collect();
    order.sort_by(|&a, &b| scores[b as usize].total_cmp(&scores[a as usize]).then(a.cmp(&b)));
    let mut bye = None;
    if n % 2 == 1 {
        let pos = order.iter().rposition(|e| !byes.contains(e)).unwrap_or(order.len() - 1);
        bye = Some(order.remove(pos));
    }
    let key = |a: u32, b: u32| (a.min(b), a.max(b));
    for allow_repeats in [false, true] {
        let mut used = vec![false; order.len()];
        let mut out = Vec::new();
        if pair_rest(&order, &mut used, &mut out, &|a, b| allow_repeats || !met.contains(&key(a, b))) {
            return (out, bye);
        }
    }
    unreachable!("with repeats allowed, any even list pairs")
}

fn pair_rest(
    order: &[u32],
    used: &mut [bool],
    out: &mut Vec<(u32, u32)>,
    ok: &dyn Fn(u32, u32) -> bool,
) -> bool {
    let Some(first) = used.iter().position(|u| !u) else { return true };
    used[first] = true;
    for k in first + 1..order.len() {
        if used[k] || !ok(order[first], order[k]) {
            continue;
        }
        used[k] = true;
        out.push((order[first], order[k]));
        if pair_rest(order, used, out, ok) {
            return true;
        }
        out.pop();
        used[k] = false;
    }
    used[first] = false;
    false
}

/// Rounds a Swiss tournament of `n` entrants needs for a clear winner: ceil(log2 n).
pub fn swiss_default_rounds(n: u32) -> u32 {
    (32 - (n.max(2) - 1).leading_zeros()).max(1)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    #[test]
    fn a_table_round_robin_gives_every_entrant_every_seat_and_every_opponent_equally() {
        for (n, size, teams) in
            [(3, 3, false), (5, 3, false), (6, 4, false), (7, 6, false), (4, 4, true), (6, 4, true)]
        {
            let games = super::table_round_robin(n, size, teams);
            let subsets = super::subsets_count(n, size);
            let per = super::seatings_per_table(size, teams) as u64;
            assert_eq!(games.len() as u64, subsets * per, "{n} at {size}");
            let mut seat = HashMap::new();
            let mut met = HashMap::new();
            let mut partners = HashMap::new();
            for g in &games {
                assert_eq!(g.len(), size as usize);
                let mut sorted = g.clone();
                sorted.sort();
                sorted.dedup();
                assert_eq!(sorted.len(), size as usize, "distinct entrants: {g:?}");
                for (s, &e) in g.iter().enumerate() {
                    *seat.entry((e, s)).or_insert(0) += 1;
                    for (t, &f) in g.iter().enumerate() {
                        if e < f {
                            *met.entry((e, f)).or_insert(0) += 1;
                            if teams && s % 2 == t % 2 {
                                *partners.entry((e, f)).or_insert(0) += 1;
                            }
                        }
                    }
                }
            }
            fn same<K: std::fmt::Debug>(m: &HashMap<K, u32>, len: usize, what: &str) {
                assert_eq!(m.len(), len, "{what}");
                let first = *m.values().next().unwrap();
                assert!(m.values().all(|&v| v == first), "{what} unequal: {m:?}");
            }
            let at = format!("{n} at {size}");
            same(&seat, (n * size) as usize, &format!("{at}: seats"));
            same(&met, (n * (n - 1) / 2) as usize, &format!("{at}: meetings"));
            if teams {
                same(&partners, (n * (n - 1) / 2) as usize, &format!("{at}: partnerships"));
            }
        }
        assert!(super::table_round_robin(2, 3, false).is_empty(), "fewer entrants than seats");
    }

    use super::*;

    #[test]
    fn round_robin_is_every_pair_once() {
        let p = round_robin(5);
        assert_eq!(p.len(), 10);
        let set: HashSet<_> = p.iter().copied().collect();
        assert_eq!(set.len(), 10);
        assert!(p.iter().all(|&(a, b)| a < b && b < 5));
        assert_eq!(round_robin(2), vec![(0, 1)]);
    }

    #[test]
    fn gauntlet_is_the_first_against_each() {
        assert_eq!(gauntlet(4), vec![(0, 1), (0, 2), (0, 3)]);
    }

    #[test]
    fn swiss_pairs_neighbours_by_score() {
        let scores = [1.0, 3.0, 2.0, 0.0];
        let (p, bye) = swiss_round(&scores, &HashSet::new(), &HashSet::new());
        assert_eq!(bye, None);
        // Ranked 1, 2, 0, 3: 1-2 and 0-3.
        assert_eq!(p, vec![(1, 2), (0, 3)]);
    }

    #[test]
    fn swiss_avoids_repeats_by_backtracking() {
        // Ranked 0, 1, 2, 3; 0-1 met, so 0-2; then 1-3... unless 1-3 met too: then 0-3, 1-2.
        let met: HashSet<_> = [(0, 1), (1, 3)].into_iter().collect();
        let (p, _) = swiss_round(&[4.0, 3.0, 2.0, 1.0], &met, &HashSet::new());
        assert_eq!(p, vec![(0, 3), (1, 2)]);
        for &(a, b) in &p {
            assert!(!met.contains(&(a.min(b), a.max(b))));
        }
    }

    #[test]
    fn swiss_repeats_only_when_it_must_and_byes_rotate() {
        // Two entrants who met already must meet again.
        let met: HashSet<_> = [(0, 1)].into_iter().collect();
        let (p, bye) = swiss_round(&[1.0, 0.0], &met, &HashSet::new());
        assert_eq!((p, bye), (vec![(0, 1)], None));
        // Three entrants: the lowest without a bye sits out.
        let (p, bye) = swiss_round(&[2.0, 1.0, 0.0], &HashSet::new(), &HashSet::new());
        assert_eq!((p, bye), (vec![(0, 1)], Some(2)));
        let byes: HashSet<_> = [2].into_iter().collect();
        let (p, bye) = swiss_round(&[2.0, 1.0, 0.0], &HashSet::new(), &byes);
        assert_eq!((p, bye), (vec![(0, 2)], Some(1)));
    }

    #[test]
    fn swiss_full_tournament_never_repeats_while_avoidable() {
        // 6 entrants, 5 rounds: a round robin's worth; every round must avoid repeats.
        let n = 6u32;
        let mut met = HashSet::new();
        let mut scores = vec![0.0; n as usize];
        for round in 0..5 {
            let (p, bye) = swiss_round(&scores, &met, &HashSet::new());
            assert_eq!(bye, None);
            assert_eq!(p.len(), 3);
            for &(a, b) in &p {
                assert!(met.insert((a.min(b), a.max(b))), "round {round}: {a}-{b} repeated");
                scores[a.min(b) as usize] += 1.0; // the lower index wins
            }
        }
        assert_eq!(met.len(), 15);
    }

    #[test]
    fn default_rounds() {
        assert_eq!(swiss_default_rounds(2), 1);
        assert_eq!(swiss_default_rounds(4), 2);
        assert_eq!(swiss_default_rounds(5), 3);
        assert_eq!(swiss_default_rounds(8), 3);
        assert_eq!(swiss_default_rounds(9), 4);
    }
}
