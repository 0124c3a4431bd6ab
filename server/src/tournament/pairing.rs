//! Tournament pairings: round robin, gauntlet and Swiss. Pure functions, no I/O.

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
