//! Suits, ranks and cards, with the compact text notation of RULES.md (`7S`, `TD`, `10D`, `A♠`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One of the four suits, in the fixed order clubs, diamonds, hearts, spades.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Suit {
    /// ♣
    Clubs = 0,
    /// ♦
    Diamonds = 1,
    /// ♥
    Hearts = 2,
    /// ♠
    Spades = 3,
}

impl Suit {
    /// All suits in index order.
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];

    /// The suit with index `i` (0..4).
    pub const fn from_index(i: u8) -> Option<Suit> {
        match i {
            0 => Some(Suit::Clubs),
            1 => Some(Suit::Diamonds),
            2 => Some(Suit::Hearts),
            3 => Some(Suit::Spades),
            _ => None,
        }
    }

    /// Index 0..4.
    pub const fn index(self) -> u8 {
        self as u8
    }

    /// The notation letter: `C`, `D`, `H`, `S`.
    pub const fn letter(self) -> char {
        match self {
            Suit::Clubs => 'C',
            Suit::Diamonds => 'D',
            Suit::Hearts => 'H',
            Suit::Spades => 'S',
        }
    }

    /// The suit symbol: ♣ ♦ ♥ ♠.
    pub const fn symbol(self) -> char {
        match self {
            Suit::Clubs => '♣',
            Suit::Diamonds => '♦',
            Suit::Hearts => '♥',
            Suit::Spades => '♠',
        }
    }

    fn parse_char(c: char) -> Option<Suit> {
        match c {
            'C' | 'c' | '♣' | '♧' => Some(Suit::Clubs),
            'D' | 'd' | '♦' | '♢' => Some(Suit::Diamonds),
            'H' | 'h' | '♥' | '♡' => Some(Suit::Hearts),
            'S' | 's' | '♠' | '♤' => Some(Suit::Spades),
            _ => None,
        }
    }
}

impl fmt::Display for Suit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// A rank, ace low: `A 2 … 9 T J Q K`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rank(u8);

impl Rank {
    /// Ace (always low).
    pub const ACE: Rank = Rank(0);
    /// Ten.
    pub const TEN: Rank = Rank(9);
    /// Jack.
    pub const JACK: Rank = Rank(10);
    /// Queen.
    pub const QUEEN: Rank = Rank(11);
    /// King.
    pub const KING: Rank = Rank(12);

    /// The rank with index `i` (0 = ace … 12 = king).
    pub const fn from_index(i: u8) -> Option<Rank> {
        if i < 13 { Some(Rank(i)) } else { None }
    }

    /// Index 0 (ace) … 12 (king).
    pub const fn index(self) -> u8 {
        self.0
    }

    /// Deadwood value: A = 1, 2–10 face value, J Q K = 10.
    pub const fn value(self) -> u32 {
        if self.0 >= 9 { 10 } else { self.0 as u32 + 1 }
    }

    /// The notation character: `A 2 … 9 T J Q K`.
    pub const fn letter(self) -> char {
        b"A23456789TJQK"[self.0 as usize] as char
    }

    /// All thirteen ranks, ace first.
    pub fn all() -> impl Iterator<Item = Rank> {
        (0..13).map(Rank)
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// One card of the 52-card deck.
///
/// Internally the card is its bit index in a [`CardSet`](crate::CardSet):
/// `suit * 16 + rank`, so that each suit owns one 16-bit lane of the mask.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Card(u8);

impl Card {
    /// The card of this rank and suit.
    pub const fn new(rank: Rank, suit: Suit) -> Card {
        Card(suit as u8 * 16 + rank.0)
    }

    /// The card whose bit index is `bit` (`suit * 16 + rank`), if that is a card.
    pub const fn from_bit(bit: u8) -> Option<Card> {
        if bit < 64 && bit % 16 < 13 { Some(Card(bit)) } else { None }
    }

    /// The card with dense index `i` in 0..52 (`suit * 13 + rank`).
    pub const fn from_dense(i: u8) -> Option<Card> {
        if i < 52 { Some(Card((i / 13) * 16 + i % 13)) } else { None }
    }

    /// Dense index 0..52 (`suit * 13 + rank`).
    pub const fn dense(self) -> u8 {
        (self.0 / 16) * 13 + self.0 % 16
    }

    /// Bit index in a [`CardSet`](crate::CardSet).
    pub const fn bit(self) -> u8 {
        self.0
    }

    /// The rank.
    pub const fn rank(self) -> Rank {
        Rank(self.0 % 16)
    }

    /// The suit.
    pub const fn suit(self) -> Suit {
        match Suit::from_index(self.0 / 16) {
            Some(s) => s,
            None => Suit::Spades,
        }
    }

    /// Deadwood value of the card.
    pub const fn value(self) -> u32 {
        self.rank().value()
    }

    /// Every card, clubs first, ace to king within a suit.
    pub fn all() -> impl Iterator<Item = Card> {
        (0..52u8).map(|i| Card((i / 13) * 16 + i % 13))
    }
}

/// The notation of every card, by bit index (suit * 16 + rank; 13..16 of a suit unused).
const NOTATION: [&str; 64] = [
    "AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC", "KC", "", "", "", "AD", "2D",
    "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD", "KD", "", "", "", "AH", "2H", "3H", "4H",
    "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "KH", "", "", "", "AS", "2S", "3S", "4S", "5S", "6S",
    "7S", "8S", "9S", "TS", "JS", "QS", "KS", "", "", "",
];

impl Card {
    /// The notation (`"7S"`, `"TD"`, `"AH"`) as a static string: what [`Display`](fmt::Display)
    /// writes, without formatting machinery or allocation.
    pub const fn notation(self) -> &'static str {
        NOTATION[self.0 as usize]
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.notation())
    }
}

impl fmt::Debug for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why a piece of card notation did not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseCardError {
    input: String,
    reason: &'static str,
}

impl ParseCardError {
    pub(crate) fn new(input: &str, reason: &'static str) -> Self {
        ParseCardError { input: input.to_string(), reason }
    }
}

impl fmt::Display for ParseCardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad card {:?}: {}", self.input, self.reason)
    }
}

impl std::error::Error for ParseCardError {}

impl FromStr for Card {
    type Err = ParseCardError;

    /// Parses `7S`, `TD`, `10D`, `qh`, `A♠`.
    fn from_str(s: &str) -> Result<Card, ParseCardError> {
        let t = s.trim();
        let mut chars = t.chars();
        let suit_char = chars
            .next_back()
            .ok_or_else(|| ParseCardError::new(s, "empty; expected rank then suit, e.g. 7S"))?;
        let rank_str = chars.as_str();
        let suit = Suit::parse_char(suit_char)
            .ok_or_else(|| ParseCardError::new(s, "unknown suit; expected one of C D H S ♣ ♦ ♥ ♠"))?;
        let rank = match rank_str.as_bytes() {
            [b'A' | b'a'] => Rank::ACE,
            [b'T' | b't'] | [b'1', b'0'] => Rank::TEN,
            [b'J' | b'j'] => Rank::JACK,
            [b'Q' | b'q'] => Rank::QUEEN,
            [b'K' | b'k'] => Rank::KING,
            [d @ b'2'..=b'9'] => Rank(d - b'1'),
            [] => return Err(ParseCardError::new(s, "missing rank; expected rank then suit, e.g. 7S")),
            _ => return Err(ParseCardError::new(s, "unknown rank; expected one of A 2-9 T (or 10) J Q K")),
        };
        Ok(Card::new(rank, suit))
    }
}

impl Serialize for Card {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Card, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Parses one card, panicking on bad notation: for tests and examples only.
///
/// ```
/// let c = engine::card("TD");
/// assert_eq!(c.to_string(), "TD");
/// ```
pub fn card(s: &str) -> Card {
    match s.parse() {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_display_round_trip() {
        for c in Card::all() {
            assert_eq!(c.to_string().parse::<Card>(), Ok(c));
            // The static notation is the rank's letter then the suit's.
            assert_eq!(c.notation(), format!("{}{}", c.rank().letter(), c.suit().letter()));
        }
        assert_eq!(Card::all().count(), 52);
    }

    #[test]
    fn notation_variants() {
        let cases = [
            ("10D", "TD"),
            ("td", "TD"),
            ("A♠", "AS"),
            ("q♥", "QH"),
            ("k♣", "KC"),
            ("7♦", "7D"),
            (" 2s ", "2S"),
        ];
        for (input, want) in cases {
            assert_eq!(input.parse::<Card>().map(|c| c.to_string()), Ok(want.to_string()), "{input}");
        }
    }

    #[test]
    fn bad_notation_says_why() {
        for (input, why) in [
            ("", "empty"),
            ("S", "missing rank"),
            ("1X", "unknown suit"),
            ("11S", "unknown rank"),
            ("1S", "unknown rank"),
            ("ZH", "unknown rank"),
            ("0S", "unknown rank"),
        ] {
            let err = input.parse::<Card>().unwrap_err();
            assert!(err.to_string().contains(why), "{input}: {err}");
        }
    }

    #[test]
    fn values() {
        let v: Vec<u32> = Rank::all().map(Rank::value).collect();
        assert_eq!(v, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]);
    }

    #[test]
    fn dense_and_bit_indices_agree() {
        for (i, c) in Card::all().enumerate() {
            assert_eq!(c.dense() as usize, i);
            assert_eq!(Card::from_dense(i as u8), Some(c));
            assert_eq!(Card::from_bit(c.bit()), Some(c));
        }
        assert_eq!(Card::from_bit(13), None);
        assert_eq!(Card::from_dense(52), None);
    }
}
