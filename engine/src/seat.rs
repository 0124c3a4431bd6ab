//! Seats (indices, never "me/opponent") and per-seat values.

use std::fmt;
use std::ops::{Index, IndexMut};

use serde::{Deserialize, Serialize};

/// A seat at a two-player table: 0 or 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct Seat(u8);

impl Seat {
    /// Seat 0.
    pub const S0: Seat = Seat(0);
    /// Seat 1.
    pub const S1: Seat = Seat(1);
    /// Both seats.
    pub const BOTH: [Seat; 2] = [Seat::S0, Seat::S1];

    /// Seat `i` (0 or 1).
    pub const fn new(i: u8) -> Option<Seat> {
        if i < 2 { Some(Seat(i)) } else { None }
    }

    /// The index 0 or 1.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The other seat.
    pub const fn other(self) -> Seat {
        Seat(1 - self.0)
    }
}

impl TryFrom<u8> for Seat {
    type Error = String;
    fn try_from(i: u8) -> Result<Seat, String> {
        Seat::new(i).ok_or_else(|| format!("seat {i} does not exist; seats are 0 and 1"))
    }
}

impl From<Seat> for u8 {
    fn from(s: Seat) -> u8 {
        s.0
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// One value per seat.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BySeat<T>(pub [T; 2]);

impl<T> BySeat<T> {
    /// Both values.
    pub const fn new(s0: T, s1: T) -> BySeat<T> {
        BySeat([s0, s1])
    }

    /// Applies `f` to each.
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> BySeat<U> {
        BySeat(self.0.map(f))
    }
}

impl<T> Index<Seat> for BySeat<T> {
    type Output = T;
    fn index(&self, s: Seat) -> &T {
        &self.0[s.index()]
    }
}

impl<T> IndexMut<Seat> for BySeat<T> {
    fn index_mut(&mut self, s: Seat) -> &mut T {
        &mut self.0[s.index()]
    }
}
