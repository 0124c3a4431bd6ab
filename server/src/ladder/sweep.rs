//! The greedy sweep behind [`super::Ladder::pair`], on one pool's queue sorted by rating
//! (the idea and its cost: the parent module's docs, "The algorithm and its cost").

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The most entrants at one table.
const MAX_SEATS: usize = 6;

/// One waiting entrant, as the sweep sees it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Cand {
    /// Its rating (the candidates come sorted by it).
    pub rating: f64,
    /// Its window now (± points).
    pub window: f64,
    /// Whether it has waited long enough for a repeating table.
    pub seasoned: bool,
}

/// A table formed: positions in the sorted queue, ascending.
#[derive(Clone, Debug)]
pub(super) struct Formed {
    pub members: Vec<usize>,
    pub spread: f64,
    pub repeat: bool,
}

/// The tables formed among `c` (sorted by rating), `n` at a table, closest first: first those
/// that repeat for nobody, then, among those left, repeating ones of seasoned entrants.
/// `last[i]`: the positions of the others of `i`'s last game, when they all wait.
pub(super) fn sweep(c: &[Cand], n: usize, last: &[Option<Vec<usize>>]) -> Vec<Formed> {
    debug_assert!((2..=MAX_SEATS).contains(&n));
    debug_assert!(c.windows(2).all(|w| w[0].rating <= w[1].rating));
    let mut alive = Alive::new(c.len());
    let mut out = Vec::new();
    phase(c, n, &mut alive, &mut out, |g| !repeats(g, last), last);
    if alive.count >= n && c.iter().any(|x| x.seasoned) {
        phase(c, n, &mut alive, &mut out, |g| !repeats(g, last) || g.iter().all(|&m| c[m].seasoned), last);
    }
    out
}

/// Whether the table `g` seats one of its entrants with exactly the others of its last game.
fn repeats(g: &[usize], last: &[Option<Vec<usize>>]) -> bool {
    g.iter().any(|&m| matches!(&last[m], Some(l) if !l.is_empty() && l.iter().all(|o| g.contains(o))))
}

/// One greedy pass: each alive entrant's candidate table in a min-heap by spread; the
/// smallest whose entrants all still wait is formed, a stale one swept again.
fn phase(
    c: &[Cand],
    n: usize,
    alive: &mut Alive,
    out: &mut Vec<Formed>,
    allow: impl Fn(&[usize]) -> bool,
    last: &[Option<Vec<usize>>],
) {
    let mut tables = vec![[0usize; MAX_SEATS]; c.len()];
    let mut heap = BinaryHeap::new();
    let mut i = alive.next(0);
    while i < c.len() {
        if let Some((spread, g)) = candidate(c, n, i, alive, &allow) {
            tables[i] = g;
            heap.push(Reverse((spread.to_bits(), i)));
        }
        i = alive.next(i + 1);
    }
    // A spread is ≥ 0 (a higher rating minus a lower one), and the bits of non-negative
    // floats order as their values: the heap orders by spread, then by lowest position.
    while let Some(Reverse((bits, i))) = heap.pop() {
        if !alive.is(i) {
            continue;
        }
        let g = &tables[i][..n];
        if g.iter().all(|&m| alive.is(m)) {
            for &m in g {
                alive.kill(m);
            }
            out.push(Formed { members: g.to_vec(), spread: f64::from_bits(bits), repeat: repeats(g, last) });
        } else if let Some((spread, g)) = candidate(c, n, i, alive, &allow) {
            tables[i] = g;
            heap.push(Reverse((spread.to_bits(), i)));
        }
    }
}

/// The table of `n` of smallest spread with `i` lowest, found by sweeping up from `i`: at
/// each entrant `j` above, at distance `gap`, the entrants passed whose window still holds
/// `gap` are usable (a narrower one is dropped for good: the distances only grow); once `j`'s
/// window holds `gap` too and enough are usable, the first of them with `j` make the table,
/// of spread `gap`. A table `allow` refuses is passed over (`j` stays usable for a wider
/// one). It stops where `gap` leaves `i`'s window. Its spread and members, ascending.
fn candidate(
    c: &[Cand],
    n: usize,
    i: usize,
    alive: &mut Alive,
    allow: &impl Fn(&[usize]) -> bool,
) -> Option<(f64, [usize; MAX_SEATS])> {
    let mut usable: Vec<usize> = Vec::new();
    let mut j = alive.next(i + 1);
    while j < c.len() {
        let gap = c[j].rating - c[i].rating;
        if gap > c[i].window {
            return None;
        }
        if c[j].window >= gap {
            usable.retain(|&k| c[k].window >= gap);
            if usable.len() >= n - 2 {
                let mut g = [i; MAX_SEATS];
                g[1..n - 1].copy_from_slice(&usable[..n - 2]);
                g[n - 1] = j;
                if allow(&g[..n]) {
                    return Some((gap, g));
                }
            }
            if n > 2 {
                usable.push(j);
            }
        }
        j = alive.next(j + 1);
    }
    None
}

/// Which positions still wait: `next(x)` is the first alive position ≥ `x` (or the length),
/// through a path-halved "next" array.
struct Alive {
    next: Vec<usize>,
    count: usize,
}

impl Alive {
    fn new(len: usize) -> Alive {
        Alive { next: (0..=len).collect(), count: len }
    }

    fn is(&self, x: usize) -> bool {
        self.next[x] == x
    }

    fn kill(&mut self, x: usize) {
        debug_assert!(self.is(x));
        self.next[x] = x + 1;
        self.count -= 1;
    }

    fn next(&mut self, mut x: usize) -> usize {
        while self.next[x] != x {
            let up = self.next[self.next[x]];
            self.next[x] = up;
            x = up;
        }
        x
    }
}
