//! The engine's deadwood solver checked against an independent brute-force reference.
//!
//! The reference lists every candidate meld of a hand (each set of 3 or 4 cards of one rank,
//! each run of 3 or more consecutive ranks of one suit, ace low), then walks every family of
//! pairwise-disjoint candidate melds and keeps the smallest unmelded value. Card values and meld
//! validity are computed here from ranks and suits; nothing of the engine's solver is used.
//!
//! The same reference writes `tests/data/hands.txt` (checked by `tests/it/hands_data.rs`):
//!
//! ```text
//! cargo test -p gin-engine --test it -- --ignored write_hands_file
//! ```

use std::collections::{BTreeSet, HashSet};
use std::fmt::Write as _;

use engine::{
    Arrangement, Card, CardSet, Meld, Rank, Suit, all_melded, best_arrangement, best_discard, deadwood,
    deadwood_after_best_discard, deadwood_by_discard, knock_discards, knock_options, min_arrangements,
};
use proptest::prelude::*;
use proptest::sample::subsequence;

// ---------------------------------------------------------------------------------------------
// The brute-force reference.
// ---------------------------------------------------------------------------------------------

/// The card of rank index `r` (0 = ace … 12 = king) and suit index `s` (0..4).
fn card_at(r: u8, s: u8) -> Card {
    Card::new(Rank::from_index(r).expect("rank"), Suit::from_index(s).expect("suit"))
}

/// Deadwood value, from the rules: A = 1, 2-10 face value, J Q K = 10.
fn ref_value(c: Card) -> u32 {
    (u32::from(c.rank().index()) + 1).min(10)
}

fn ref_total(cards: CardSet) -> u32 {
    cards.iter().map(ref_value).sum()
}

/// The rules' meld test, written out: 3-4 cards of one rank, or 3+ consecutive ranks of one suit.
fn ref_is_meld(cards: CardSet) -> bool {
    let v: Vec<Card> = cards.iter().collect();
    if v.len() < 3 {
        return false;
    }
    let one_rank = v.iter().all(|c| c.rank() == v[0].rank());
    if one_rank {
        return v.len() <= 4;
    }
    let one_suit = v.iter().all(|c| c.suit() == v[0].suit());
    let mut ranks: Vec<u8> = v.iter().map(|c| c.rank().index()).collect();
    ranks.sort_unstable();
    one_suit && ranks.windows(2).all(|w| w[1] == w[0] + 1)
}

/// Every candidate meld inside `h`.
fn candidate_melds(h: CardSet) -> Vec<CardSet> {
    let mut out = Vec::new();
    // Sets: every subset of 3 or 4 suits of one rank, all held.
    for r in 0..13u8 {
        for suits in 0u8..16 {
            if suits.count_ones() < 3 {
                continue;
            }
            let cards: CardSet = (0..4u8).filter(|s| suits >> s & 1 == 1).map(|s| card_at(r, s)).collect();
            if h.is_superset(cards) {
                out.push(cards);
            }
        }
    }
    // Runs: every rank interval of length >= 3 in one suit, all held.
    for s in 0..4u8 {
        for lo in 0..13u8 {
            for hi in lo + 2..13u8 {
                let cards: CardSet = (lo..=hi).map(|r| card_at(r, s)).collect();
                if h.is_superset(cards) {
                    out.push(cards);
                }
            }
        }
    }
    out
}

/// Calls `visit(family)` for every family of pairwise-disjoint melds taken from `melds[i..]`
/// (the empty family included), each family exactly once.
fn walk_families(
    melds: &[CardSet],
    i: usize,
    used: CardSet,
    cur: &mut Vec<CardSet>,
    visit: &mut dyn FnMut(&[CardSet]),
) {
    if i == melds.len() {
        visit(cur);
        return;
    }
    walk_families(melds, i + 1, used, cur, visit);
    if used.is_disjoint(melds[i]) {
        cur.push(melds[i]);
        walk_families(melds, i + 1, used | melds[i], cur, visit);
        cur.pop();
    }
}

/// The reference's full answer for one hand.
struct Reference {
    /// Minimum deadwood.
    deadwood: u32,
    /// Every family of melds reaching it, each family sorted.
    min_families: BTreeSet<Vec<CardSet>>,
    /// The first minimum family found.
    first: Vec<CardSet>,
}

fn reference(h: CardSet) -> Reference {
    let melds = candidate_melds(h);
    let total = ref_total(h);
    let mut best = Reference { deadwood: u32::MAX, min_families: BTreeSet::new(), first: Vec::new() };
    walk_families(&melds, 0, CardSet::EMPTY, &mut Vec::new(), &mut |family| {
        let dw = total - family.iter().map(|&m| ref_total(m)).sum::<u32>();
        if dw < best.deadwood {
            best.deadwood = dw;
            best.min_families.clear();
            best.first = family.to_vec();
        }
        if dw == best.deadwood {
            let mut f = family.to_vec();
            f.sort();
            best.min_families.insert(f);
        }
    });
    best
}

/// Minimum deadwood by brute force.
fn brute(h: CardSet) -> u32 {
    reference(h).deadwood
}

/// `brute(h - d)` for every card `d` of `h`.
fn brute_by_discard(h: CardSet) -> Vec<(Card, u32)> {
    h.iter().map(|d| (d, brute(h.without(d)))).collect()
}

// ---------------------------------------------------------------------------------------------
// Checks against the engine.
// ---------------------------------------------------------------------------------------------

/// Checks that `a` is a valid arrangement of exactly `h` with deadwood `want`.
fn check_arrangement(h: CardSet, a: &Arrangement, want: u32) -> Result<(), TestCaseError> {
    let mut used = CardSet::EMPTY;
    for m in a.melds() {
        let c = m.cards();
        prop_assert!(Meld::kind_of(c).is_some(), "engine says [{c}] is not a meld; hand {h}");
        prop_assert!(ref_is_meld(c), "[{c}] is not a meld; hand {h}");
        prop_assert!(h.is_superset(c), "meld [{c}] not inside hand {h}");
        prop_assert!(used.is_disjoint(c), "meld [{c}] overlaps another; hand {h}");
        used |= c;
    }
    prop_assert!(used.is_disjoint(a.deadwood_cards()), "melded card counted as deadwood; hand {h}: {a}");
    prop_assert_eq!(used | a.deadwood_cards(), h, "arrangement {} does not cover hand {}", a, h);
    prop_assert_eq!(a.cards(), h);
    prop_assert_eq!(ref_total(a.deadwood_cards()), want, "arrangement {} of hand {}", a, h);
    prop_assert_eq!(a.deadwood(), want, "arrangement {} of hand {}", a, h);
    Ok(())
}

fn check_ten(h: CardSet) -> Result<(), TestCaseError> {
    let want = brute(h);
    prop_assert_eq!(deadwood(h), want, "deadwood of {}", h);
    let a = best_arrangement(h);
    check_arrangement(h, &a, want)?;
    prop_assert_eq!(all_melded(h), want == 0, "all_melded of {}", h);
    Ok(())
}

fn check_eleven(h: CardSet, random_limit: u32) -> Result<(), TestCaseError> {
    let per = brute_by_discard(h);
    let min = per.iter().map(|&(_, dw)| dw).min().expect("non-empty hand");
    prop_assert_eq!(deadwood_after_best_discard(h), Some(min), "deadwood after best discard of {}", h);

    let b = best_discard(h).expect("non-empty hand");
    prop_assert!(h.contains(b.discard), "discard {} not in hand {}", b.discard, h);
    prop_assert_eq!(brute(h.without(b.discard)), min, "best_discard {} of {}", b.discard, h);
    prop_assert_eq!(b.deadwood(), min, "best_discard {} of {}", b.discard, h);
    check_arrangement(h.without(b.discard), &b.arrangement, min)?;

    let table = deadwood_by_discard(h);
    for &(d, dw) in &per {
        prop_assert_eq!(u32::from(table[d.bit() as usize]), dw, "deadwood_by_discard[{}] of {}", d, h);
    }
    for (bit, &v) in table.iter().enumerate() {
        let in_hand = Card::from_bit(bit as u8).is_some_and(|c| h.contains(c));
        if !in_hand {
            prop_assert_eq!(v, u8::MAX, "deadwood_by_discard[bit {}] of {}", bit, h);
        }
    }

    for limit in [0, 10, random_limit] {
        let want: CardSet = per.iter().filter(|&&(_, dw)| dw <= limit).map(|&(d, _)| d).collect();
        prop_assert_eq!(knock_discards(h, limit), want, "knock_discards({}, {})", h, limit);
        let o = knock_options(h, limit);
        prop_assert_eq!(o.discards, want, "knock_options({}, {}).discards", h, limit);
        prop_assert_eq!(o.all_melded, brute(h) == 0, "knock_options({}, {}).all_melded", h, limit);
    }
    prop_assert_eq!(all_melded(h), brute(h) == 0, "all_melded of {}", h);
    Ok(())
}

fn check_min_arrangements(h: CardSet) -> Result<(), TestCaseError> {
    let r = reference(h);
    let all = min_arrangements(h);
    let mut seen = BTreeSet::new();
    for a in &all {
        check_arrangement(h, a, r.deadwood)?;
        let mut f: Vec<CardSet> = a.melds().iter().map(|m| m.cards()).collect();
        f.sort();
        prop_assert!(seen.insert(f), "min_arrangements of {} lists {} twice", h, a);
    }
    prop_assert_eq!(all.len(), r.min_families.len(), "number of min arrangements of {}", h);
    prop_assert_eq!(seen, r.min_families, "min arrangements of {}", h);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Hand strategies.
// ---------------------------------------------------------------------------------------------

fn cards_where(keep: impl Fn(Card) -> bool) -> Vec<Card> {
    Card::all().filter(|&c| keep(c)).collect()
}

/// `n` cards out of the whole deck.
fn uniform(n: usize) -> impl Strategy<Value = CardSet> {
    subsequence(cards_where(|_| true), n).prop_map(|v| v.into_iter().collect())
}

/// `n` cards from two suits only: long runs, crossing runs.
fn two_suits(n: usize) -> impl Strategy<Value = CardSet> {
    (0..4u8, 1..4u8).prop_flat_map(move |(a, k)| {
        let b = (a + k) % 4;
        subsequence(cards_where(|c| c.suit().index() == a || c.suit().index() == b), n)
            .prop_map(|v| v.into_iter().collect())
    })
}

/// `n` cards from a window of 3-5 consecutive ranks (all four suits, or three suits and at
/// least 4 ranks): sets and runs overlap.
fn window(n: usize) -> impl Strategy<Value = CardSet> {
    (3..=5u8, 0..4u8, prop::bool::ANY).prop_flat_map(move |(width, skip, three_suits)| {
        let width = if three_suits { width.max(4) } else { width };
        (0..=13 - width).prop_flat_map(move |lo| {
            let cards = cards_where(|c| {
                (lo..lo + width).contains(&c.rank().index()) && !(three_suits && c.suit().index() == skip)
            });
            subsequence(cards, n).prop_map(|v| v.into_iter().collect())
        })
    })
}

/// Hands where melds are common.
fn dense(n: usize) -> impl Strategy<Value = CardSet> {
    prop_oneof![two_suits(n), window(n)]
}

// ---------------------------------------------------------------------------------------------
// Property tests.
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn ten_card_uniform(h in uniform(10)) {
        check_ten(h)?;
    }

    #[test]
    fn ten_card_dense(h in dense(10)) {
        check_ten(h)?;
    }

    #[test]
    fn min_arrangements_dense(h in dense(10)) {
        check_min_arrangements(h)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn eleven_card_uniform(h in uniform(11), limit in 0..=30u32) {
        check_eleven(h, limit)?;
    }

    #[test]
    fn eleven_card_dense(h in dense(11), limit in 0..=30u32) {
        check_eleven(h, limit)?;
    }

    #[test]
    fn min_arrangements_uniform(h in uniform(10)) {
        check_min_arrangements(h)?;
    }

}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// `deadwood` claims to work for a hand of any size.
    #[test]
    fn deadwood_any_size(h in (0..=13usize).prop_flat_map(|n| prop_oneof![uniform(n), window(n.min(12))])) {
        prop_assert_eq!(deadwood(h), brute(h), "deadwood of {}", h);
    }
}

// ---------------------------------------------------------------------------------------------
// Fixed cases: the reference itself, and a few hands with known answers.
// ---------------------------------------------------------------------------------------------

fn parse(s: &str) -> CardSet {
    engine::hand(s)
}

#[test]
fn reference_knows_the_rules() {
    let cases: &[(&str, u32)] = &[
        ("", 0),
        ("QS KS AS", 21),
        ("KS AS 2S", 13),
        ("AS 2S 3S", 0),
        ("7S 8S 9S 8C 8D", 16),
        ("7S 8S 9S 8C 8D 8H 7C 7D KD QH", 29),
        ("AC AD AH AS 2C 3C 2D 3D", 2),
        ("5C 5D 5H 5S 4C 6C 3S 4S 6S 7S", 10),
        ("3S 4S 5S 6S 7S 8S", 0),
    ];
    for &(h, want) in cases {
        assert_eq!(brute(parse(h)), want, "{h}");
    }
    // A 6-card run: one run of 6 or two runs of 3.
    assert_eq!(reference(parse("3S 4S 5S 6S 7S 8S")).min_families.len(), 2);
    // Sets: four 3-card sets and one 4-card set of a rank.
    assert_eq!(candidate_melds(parse("9C 9D 9H 9S")).len(), 5);
    // Runs in a 5-card suit: 3 + 2 + 1.
    assert_eq!(candidate_melds(parse("AH 2H 3H 4H 5H")).len(), 6);
    assert!(!ref_is_meld(parse("QS KS AS")));
    assert!(!ref_is_meld(parse("9C 9D 9H 9S TS")));
}

// ---------------------------------------------------------------------------------------------
// The data file `tests/data/hands.txt`, written from the reference.
// ---------------------------------------------------------------------------------------------

/// SplitMix64: a tiny deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// `n` distinct cards out of `pool`.
    fn choose(&mut self, pool: &[Card], n: usize) -> CardSet {
        let mut v = pool.to_vec();
        for i in 0..n {
            let j = i + self.below((v.len() - i) as u64) as usize;
            v.swap(i, j);
        }
        v[..n].iter().copied().collect()
    }
}

fn gen_uniform(rng: &mut Rng, n: usize) -> CardSet {
    rng.choose(&cards_where(|_| true), n)
}

fn gen_two_suits(rng: &mut Rng, n: usize) -> CardSet {
    let a = rng.below(4) as u8;
    let b = (a + 1 + rng.below(3) as u8) % 4;
    rng.choose(&cards_where(|c| c.suit().index() == a || c.suit().index() == b), n)
}

fn gen_window(rng: &mut Rng, n: usize) -> CardSet {
    let width = 3 + rng.below(3) as u8;
    let lo = rng.below(u64::from(14 - width)) as u8;
    rng.choose(&cards_where(|c| (lo..lo + width).contains(&c.rank().index())), n)
}

/// All four cards of one rank, and the rest from the two ranks either side: a 4-of-a-kind
/// that competes with runs.
fn gen_quads_runs(rng: &mut Rng, n: usize) -> CardSet {
    let r = 2 + rng.below(9) as u8;
    let quad: CardSet = (0..4).map(|s| card_at(r, s)).collect();
    let around = cards_where(|c| c.rank().index().abs_diff(r) <= 2 && !quad.contains(c));
    quad | rng.choose(&around, n - 4)
}

/// A random meld of `size` cards disjoint from `used`, if one turned up.
fn gen_meld(rng: &mut Rng, size: u8, used: CardSet) -> Option<CardSet> {
    for _ in 0..100 {
        let m: CardSet = if size <= 4 && rng.below(2) == 0 {
            let r = rng.below(13) as u8;
            let skip = if size == 3 { rng.below(4) as u8 } else { 4 };
            (0..4).filter(|&s| s != skip).map(|s| card_at(r, s)).collect()
        } else {
            let s = rng.below(4) as u8;
            let lo = rng.below(u64::from(14 - size)) as u8;
            (lo..lo + size).map(|r| card_at(r, s)).collect()
        };
        if m.is_disjoint(used) {
            return Some(m);
        }
    }
    None
}

/// A hand of `n` cards that is all melds (gin for 10 cards, big gin for 11).
fn gen_all_melds(rng: &mut Rng, n: usize) -> CardSet {
    let splits: &[&[u8]] = if n == 10 {
        &[&[3, 3, 4], &[3, 4, 3], &[4, 3, 3], &[3, 7], &[4, 6], &[5, 5], &[6, 4], &[10]]
    } else {
        &[&[3, 4, 4], &[4, 3, 4], &[3, 3, 5], &[5, 3, 3], &[5, 6], &[4, 7], &[3, 8], &[11]]
    };
    loop {
        let split = splits[rng.below(splits.len() as u64) as usize];
        let mut used = CardSet::EMPTY;
        let ok = split.iter().all(|&size| match gen_meld(rng, size, used) {
            Some(m) => {
                used |= m;
                true
            }
            None => false,
        });
        if ok {
            assert_eq!(used.len() as usize, n);
            return used;
        }
    }
}

fn by_rank(cards: CardSet) -> String {
    cards.by_rank().iter().map(Card::to_string).collect::<Vec<_>>().join(" ")
}

/// One line of the data file for `h`, from the reference.
fn data_line(h: CardSet, tag: &str) -> String {
    let mut line = by_rank(h);
    if h.len() == 10 {
        let r = reference(h);
        let mut melds: Vec<String> = r.first.iter().map(|&m| format!("[{}]", by_rank(m))).collect();
        melds.sort();
        let melds = if melds.is_empty() { "-".to_string() } else { melds.join(" ") };
        write!(line, " | {} | {} | {}", r.deadwood, melds, tag).expect("write to string");
    } else {
        let per = brute_by_discard(h);
        let min = per.iter().map(|&(_, dw)| dw).min().expect("non-empty hand");
        let best: CardSet = per.iter().filter(|&&(_, dw)| dw == min).map(|&(d, _)| d).collect();
        write!(line, " | {} | {} | {}", min, by_rank(best), tag).expect("write to string");
    }
    line
}

const HANDS_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/hands.txt");

/// The whole data file, deterministically.
fn hands_file_text() -> String {
    let mut rng = Rng(0x6A1D_2026_0000_0001);
    let mut out = String::new();
    out.push_str(
        "# Gin Rummy deadwood reference hands, written by the brute-force reference in \
         engine/tests/it/solver_reference.rs\n\
         # (cargo test -p gin-engine --test it -- --ignored write_hands_file), never by the engine.\n\
         # One hand per line, four fields separated by '|': CARDS | DEADWOOD | DETAIL | CATEGORY\n\
         # 10 cards: DEADWOOD is the minimum deadwood; DETAIL is the melds of one minimum arrangement,\n\
         #   each in brackets, or '-' when no meld is laid down.\n\
         # 11 cards: DEADWOOD is the minimum deadwood after the best discard; DETAIL is every\n\
         #   discard that reaches it.\n\
         # CATEGORY says how the hand was drawn: uniform, two-suits, window (3-5 consecutive ranks),\n\
         #   quads-runs (a 4-of-a-kind and cards within 2 ranks of it), gin, big-gin.\n",
    );
    type Gen = fn(&mut Rng, usize) -> CardSet;
    let plan: &[(&str, Gen, usize, usize)] = &[
        ("uniform", gen_uniform, 10, 160),
        ("uniform", gen_uniform, 11, 160),
        ("two-suits", gen_two_suits, 10, 50),
        ("two-suits", gen_two_suits, 11, 50),
        ("window", gen_window, 10, 50),
        ("window", gen_window, 11, 50),
        ("quads-runs", gen_quads_runs, 10, 30),
        ("quads-runs", gen_quads_runs, 11, 30),
        ("gin", gen_all_melds, 10, 40),
        ("big-gin", gen_all_melds, 11, 40),
    ];
    let mut seen = HashSet::new();
    for &(tag, generate, n, count) in plan {
        let mut made = 0;
        while made < count {
            let h = generate(&mut rng, n);
            assert_eq!(h.len() as usize, n);
            if !seen.insert(h) {
                continue;
            }
            if tag == "gin" || tag == "big-gin" {
                assert_eq!(brute(h), 0, "{tag} hand {h} is not all melds");
            }
            out.push_str(&data_line(h, tag));
            out.push('\n');
            made += 1;
        }
    }
    out
}

/// Writes `tests/data/hands.txt`.
#[test]
#[ignore = "writes tests/data/hands.txt; run by hand to regenerate it"]
fn write_hands_file() {
    std::fs::create_dir_all(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data")).expect("create tests/data");
    std::fs::write(HANDS_FILE, hands_file_text()).expect("write hands.txt");
}

/// The committed file is exactly what the reference writes (so every line comes from it).
#[test]
fn hands_file_matches_reference() {
    let file = std::fs::read_to_string(HANDS_FILE).expect("read tests/data/hands.txt");
    let want = hands_file_text();
    if file != want {
        let diff = file.lines().zip(want.lines()).position(|(a, b)| a != b);
        panic!(
            "tests/data/hands.txt differs from the reference output (first differing line: {diff:?}); \
             regenerate it with the ignored test write_hands_file"
        );
    }
}
