//! What the network sees of a decision: only the seat's own information state (its
//! [`Decision`] and [`Memory`](crate::Memory)), as `(index, value)` pairs over planes of 64 slots, one slot
//! per card bit (`Card::bit`: 16 per suit, 13 used).
//!
//! | plane | holds |
//! |---|---|
//! | 0 | the seat's hand (10 cards at a draw, 11 at a discard) |
//! | 1 | the face-up pile below its top |
//! | 2 | the pile's top |
//! | 3 | cards the opponent surely holds (taken from the pile) |
//! | 4 | the opponent's discards this hand |
//! | 5 | cards the opponent declined |
//! | 6 | this seat's discards this hand |
//! | 7 | the card taken from the pile this turn (it may not be discarded) |
//! | 8 | the hand's cards that are melded in its best arrangement |
//! | 9 | per card of the hand: the hand's deadwood without it, / 50 |
//! | 10 | scalars ([`scalars`]) |

use engine::{CardSet, deadwood};

use crate::strategy::{Choice, Decision};

/// Slots per plane.
pub const PLANE: usize = 64;
/// Number of inputs.
pub const INPUTS: usize = 11 * PLANE;

/// The scalar plane's slots, in order: stock left / 32, knock limit / 10, the hand's
/// deadwood / 50, is an offer, is a draw, is a discard, own score / 100, opponent's score /
/// 100, gin bonus / 25, undercut bonus / 25, big gin, spade doubles, draws made by both /
/// 30, the pile's top lowers the hand's deadwood by this / 20 (draws), a constant 1.
pub fn scalars() -> usize {
    15
}

/// The inputs of decision `d`, appended to `out` (cleared first).
pub fn encode(d: &Decision<'_>, out: &mut Vec<(u16, f32)>) {
    out.clear();
    let m = d.memory;
    let plane = |p: usize, s: CardSet, out: &mut Vec<(u16, f32)>| {
        for c in s {
            out.push(((p * PLANE + c.bit() as usize) as u16, 1.0));
        }
    };
    let h = d.hand;
    plane(0, h, out);
    let n = d.pile.len();
    if n > 1 {
        plane(1, d.pile[..n - 1].iter().copied().collect(), out);
    }
    if let Some(t) = d.pile_top() {
        plane(2, CardSet::EMPTY.with(t), out);
    }
    plane(3, m.opp_known, out);
    plane(4, m.opp_discards, out);
    plane(5, m.opp_declined, out);
    plane(6, m.own_discards, out);
    if let Some(t) = d.taken {
        plane(7, CardSet::EMPTY.with(t), out);
    }
    let dw = deadwood(h);
    let by = if h.len() == 11 { Some(engine::deadwood_by_discard(h)) } else { None };
    for c in h {
        let without = match &by {
            Some(t) => u32::from(t[c.bit() as usize]),
            None => deadwood(h.without(c)),
        };
        if without + c.value() > dw {
            out.push(((8 * PLANE + c.bit() as usize) as u16, 1.0));
        }
        out.push(((9 * PLANE + c.bit() as usize) as u16, without as f32 / 50.0));
    }
    let base = 10 * PLANE;
    let choice = d.choice();
    let r = d.rules;
    let gain = match (choice, d.pile_top()) {
        (Choice::Offer | Choice::Draw, Some(t)) => {
            let with = engine::deadwood_by_discard(h.with(t));
            let best = h.iter().map(|c| u32::from(with[c.bit() as usize])).min().unwrap_or(dw);
            dw as f32 - best as f32
        }
        _ => 0.0,
    };
    let s = [
        d.stock_len as f32 / 32.0,
        d.knock_limit as f32 / 10.0,
        dw as f32 / 50.0,
        f32::from(u8::from(choice == Choice::Offer)),
        f32::from(u8::from(choice == Choice::Draw)),
        f32::from(u8::from(choice == Choice::Discard)),
        d.scores[d.seat] as f32 / 100.0,
        d.scores[d.opponent()] as f32 / 100.0,
        r.gin_bonus as f32 / 25.0,
        r.undercut_bonus as f32 / 25.0,
        f32::from(u8::from(r.big_gin)),
        f32::from(u8::from(r.spade_upcard_doubles)),
        (m.draws[0] + m.draws[1]) as f32 / 30.0,
        gain / 20.0,
        1.0,
    ];
    debug_assert_eq!(s.len(), scalars());
    for (i, v) in s.into_iter().enumerate() {
        if v != 0.0 {
            out.push(((base + i) as u16, v));
        }
    }
}
