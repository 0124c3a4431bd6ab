//! Seeded deals: a fixed, documented algorithm, so a seed gives the same deck forever.
//!
//! # The algorithm (version 1)
//!
//! 1. A ChaCha stream cipher with 8 rounds (ChaCha8, Bernstein's original layout), keyed by the
//!    game seed: key words 0–1 = the seed as a little-endian `u64`, key words 2–7 = 0;
//!    64-bit block counter starting at 0 (state words 12–13); 64-bit nonce = the hand number
//!    (state words 14–15). Its output is read as little-endian `u32` words, block after block.
//! 2. Start from the deck in [`Card::all`] order (clubs A..K, diamonds, hearts, spades).
//! 3. Fisher–Yates from the end: for `i` = 51 down to 1, draw `j` uniform in `0..=i` with
//!    Lemire's multiply-and-reject method on one `u32` word (`m = x * (i+1)`; reject while the
//!    low 32 bits are below `2^32 mod (i+1)`; `j = m >> 32`), then swap cards `i` and `j`.
//! 4. `deck[0]` is the top card. The deal gives `deck[0]` to the non-dealer, `deck[1]` to the
//!    dealer, and so on alternately for 20 cards; `deck[20]` is the upcard; `deck[21..]` is
//!    the stock, `deck[21]` on top.
//!
//! The first dealer of a game is seat `w & 1`, where `w` is the first word of the stream
//! with nonce `u64::MAX`.

use crate::card::Card;
use crate::cardset::CardSet;

/// A deck order: `cards[0]` is the top (dealt first).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Deck([Card; 52]);

impl std::fmt::Debug for Deck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Deck[{self}]")
    }
}

impl std::fmt::Display for Deck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, c) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

/// Why a deck order was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeckError(pub String);

impl std::fmt::Display for DeckError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "bad deck: {}", self.0)
    }
}

impl std::error::Error for DeckError {}

impl Deck {
    /// The deck for hand number `hand` of a game with seed `seed` (see the module docs).
    pub fn shuffled(seed: u64, hand: u64) -> Deck {
        // The deck in `Card::all` order (dense index order), built once at compile time.
        const ORDERED: [Card; 52] = {
            let mut d = [Card::new(crate::card::Rank::ACE, crate::card::Suit::Clubs); 52];
            let mut i = 0;
            while i < 52 {
                d[i] = match Card::from_dense(i as u8) {
                    Some(c) => c,
                    None => panic!("52 cards"),
                };
                i += 1;
            }
            d
        };
        let mut rng = ChaCha8::new(seed, hand);
        let mut d = ORDERED;
        for i in (1..52u32).rev() {
            let j = rng.below(i + 1) as usize;
            d.swap(i as usize, j);
        }
        Deck(d)
    }

    /// A deck in an explicit order; every card exactly once.
    pub fn from_cards(cards: &[Card]) -> Result<Deck, DeckError> {
        if cards.len() != 52 {
            return Err(DeckError(format!("{} cards; a deck has 52", cards.len())));
        }
        let mut seen = CardSet::EMPTY;
        for &c in cards {
            if !seen.insert(c) {
                return Err(DeckError(format!("card {c} appears twice")));
            }
        }
        let mut d = [cards[0]; 52];
        d.copy_from_slice(cards);
        Ok(Deck(d))
    }

    /// The cards, top first.
    pub fn cards(&self) -> &[Card; 52] {
        &self.0
    }
}

impl std::str::FromStr for Deck {
    type Err = DeckError;
    fn from_str(s: &str) -> Result<Deck, DeckError> {
        let cards: Result<Vec<Card>, _> = s.split_whitespace().map(str::parse).collect();
        Deck::from_cards(&cards.map_err(|e| DeckError(e.to_string()))?)
    }
}

impl serde::Serialize for Deck {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Deck {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Deck, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Shuffles the cards of a discard pile being turned into a new stock, as basic rummy and
/// gin for three or more turn it: `cards` is the pile (its top card left out) from its
/// bottom card up; Fisher–Yates as for the deck ([`Deck::shuffled`]: from the end, Lemire's
/// draw) on ChaCha8 keyed by the game `seed`, nonce `hand | k << 48` for the `k`-th turn of
/// the pile in hand number `hand` (`k` from 1). Afterwards `cards[0]` is the top of the
/// turned cards.
pub(crate) fn shuffle_turned_pile(cards: &mut [Card], seed: u64, hand: u64, k: u32) {
    let mut rng = ChaCha8::new(seed, hand | (k as u64) << 48);
    for i in (1..cards.len() as u32).rev() {
        let j = rng.below(i + 1) as usize;
        cards.swap(i as usize, j);
    }
}

/// The first dealer (0 or 1) of a game with this seed.
pub fn first_dealer(seed: u64) -> u8 {
    (ChaCha8::new(seed, u64::MAX).next_u32() & 1) as u8
}

/// ChaCha with 8 rounds, as the module docs lay it out: the deal's random stream
/// (`rand_chacha`'s, which is that stream word for word: a test checks it against the
/// reference core below).
#[derive(Clone)]
pub(crate) struct ChaCha8(rand_chacha::ChaCha8Rng);

impl ChaCha8 {
    pub(crate) fn new(seed: u64, nonce: u64) -> ChaCha8 {
        use rand_chacha::rand_core::SeedableRng;
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&seed.to_le_bytes());
        let mut rng = rand_chacha::ChaCha8Rng::from_seed(key);
        rng.set_stream(nonce);
        ChaCha8(rng)
    }

    #[inline(always)]
    pub(crate) fn next_u32(&mut self) -> u32 {
        rand_chacha::rand_core::Rng::next_u32(&mut self.0)
    }

    /// Uniform in `0..n` (Lemire's method), `n >= 1`.
    #[inline(always)]
    pub(crate) fn below(&mut self, n: u32) -> u32 {
        let mut m = self.next_u32() as u64 * n as u64;
        if (m as u32) < n {
            let t = n.wrapping_neg() % n;
            while (m as u32) < t {
                m = self.next_u32() as u64 * n as u64;
            }
        }
        (m >> 32) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[inline(always)]
    fn quarter(s: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize) {
        s[a] = s[a].wrapping_add(s[b]);
        s[d] = (s[d] ^ s[a]).rotate_left(16);
        s[c] = s[c].wrapping_add(s[d]);
        s[b] = (s[b] ^ s[c]).rotate_left(12);
        s[a] = s[a].wrapping_add(s[b]);
        s[d] = (s[d] ^ s[a]).rotate_left(8);
        s[c] = s[c].wrapping_add(s[d]);
        s[b] = (s[b] ^ s[c]).rotate_left(7);
    }

    /// One ChaCha block of `rounds` rounds (even) from `input`.
    fn chacha_block(input: &[u32; 16], rounds: u32) -> [u32; 16] {
        let mut x = *input;
        for _ in 0..rounds / 2 {
            quarter(&mut x, 0, 4, 8, 12);
            quarter(&mut x, 1, 5, 9, 13);
            quarter(&mut x, 2, 6, 10, 14);
            quarter(&mut x, 3, 7, 11, 15);
            quarter(&mut x, 0, 5, 10, 15);
            quarter(&mut x, 1, 6, 11, 12);
            quarter(&mut x, 2, 7, 8, 13);
            quarter(&mut x, 3, 4, 9, 14);
        }
        for (o, i) in x.iter_mut().zip(input) {
            *o = o.wrapping_add(*i);
        }
        x
    }

    /// The stream as the module docs define it, from the reference core above.
    fn reference_words(seed: u64, nonce: u64, n: usize) -> Vec<u32> {
        let mut state = [0u32; 16];
        state[..4].copy_from_slice(&[0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574]);
        state[4] = seed as u32;
        state[5] = (seed >> 32) as u32;
        state[14] = nonce as u32;
        state[15] = (nonce >> 32) as u32;
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            out.extend(chacha_block(&state, 8));
            let ctr = (state[12] as u64 | (state[13] as u64) << 32).wrapping_add(1);
            state[12] = ctr as u32;
            state[13] = (ctr >> 32) as u32;
        }
        out.truncate(n);
        out
    }

    #[test]
    fn the_stream_is_the_documented_chacha8_word_for_word() {
        for (seed, nonce) in [(0, 0), (1, 0), (42, 7), (u64::MAX, 3), (0x0123_4567_89ab_cdef, u64::MAX)] {
            let mut r = ChaCha8::new(seed, nonce);
            let got: Vec<u32> = (0..1000).map(|_| r.next_u32()).collect();
            assert_eq!(got, reference_words(seed, nonce, 1000), "seed {seed}, nonce {nonce}");
        }
    }

    /// RFC 8439 §2.3.2: the ChaCha20 block function test vector (checks the core we reduce to 8 rounds).
    #[test]
    fn chacha20_block_test_vector() {
        let mut input = [0u32; 16];
        input[..4].copy_from_slice(&[0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574]);
        for i in 0..8 {
            let b = 4 * i as u32;
            input[4 + i] = u32::from_le_bytes([b as u8, b as u8 + 1, b as u8 + 2, b as u8 + 3]);
        }
        input[12] = 1;
        input[13] = 0x0900_0000;
        input[14] = 0x4a00_0000;
        input[15] = 0;
        let want = [
            0xe4e7f110, 0x15593bd1, 0x1fdd0f50, 0xc47120a3, 0xc7f4d1c7, 0x0368c033, 0x9aaa2204, 0x4e6cd4c3,
            0x466482d2, 0x09aa9f07, 0x05d7c214, 0xa2028bd9, 0xd19c12b5, 0xb94e16de, 0xe883d0cb, 0x4e3c50a2,
        ];
        assert_eq!(chacha_block(&input, 20), want);
    }

    #[test]
    fn shuffle_is_a_permutation_and_stable() {
        let d = Deck::shuffled(42, 0);
        let all: CardSet = d.cards().iter().copied().collect();
        assert_eq!(all, CardSet::FULL);
        assert_eq!(d, Deck::shuffled(42, 0));
        assert_ne!(d, Deck::shuffled(42, 1));
        assert_ne!(d, Deck::shuffled(43, 0));
        // Pinned: this must never change, or every stored seed deals differently.
        assert_eq!(
            Deck::shuffled(1, 0).to_string().split(' ').take(12).collect::<Vec<_>>().join(" "),
            PINNED_SEED1_HAND0
        );
    }

    const PINNED_SEED1_HAND0: &str = "KS 4S TD 3C TH 9D AC KH KD AD JS QC";

    /// The turned pile's shuffle (rummy's and gin for three or more's): pinned, as the deal.
    #[test]
    fn turned_pile_shuffle_is_stable() {
        let mut cards: Vec<Card> = Card::all().take(10).collect();
        shuffle_turned_pile(&mut cards, 1, 0, 1);
        let mut again: Vec<Card> = Card::all().take(10).collect();
        shuffle_turned_pile(&mut again, 1, 0, 1);
        assert_eq!(cards, again);
        let s = cards.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" ");
        assert_eq!(s, "6C 3C 2C 7C 9C 5C 4C 8C AC TC");
        // Another turn, or another hand: another order.
        let mut other: Vec<Card> = Card::all().take(10).collect();
        shuffle_turned_pile(&mut other, 1, 0, 2);
        assert_ne!(other, cards);
        let mut other: Vec<Card> = Card::all().take(10).collect();
        shuffle_turned_pile(&mut other, 1, 1, 1);
        assert_ne!(other, cards);
    }

    #[test]
    fn below_is_roughly_uniform() {
        let mut r = ChaCha8::new(7, 0);
        let mut counts = [0u32; 6];
        for _ in 0..60_000 {
            counts[r.below(6) as usize] += 1;
        }
        for c in counts {
            assert!((9_000..11_000).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn deck_parse_errors() {
        assert!("AS".parse::<Deck>().unwrap_err().0.contains("1 cards"));
        let d = Deck::shuffled(3, 3);
        let mut s = d.to_string();
        s.replace_range(0..2, &d.cards()[1].to_string());
        assert!(s.parse::<Deck>().unwrap_err().0.contains("twice"));
        assert_eq!(d.to_string().parse::<Deck>(), Ok(d));
    }
}
