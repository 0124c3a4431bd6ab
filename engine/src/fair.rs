//! Fair deals: a commitment to a deck order, published when the hand is dealt and checked
//! by anyone once the hand ends and the deck and salt are revealed.
//!
//! `commitment = SHA-256("gin-deal-v1\n" + deck as text (cards joined by single spaces, top
//! first) + "\n" + lowercase hex of the salt)`.
//!
//! The game's seed is committed to as well, with its first deal, before any pile is turned:
//! it keys every deck and every shuffle of a discard pile turned into the stock (gin for 3 to
//! 6 at one table, rummy), so the cards drawn after a turn of the pile are fixed before they
//! are seen.
//! `seed commitment = SHA-256("gin-seed-v1\n" + the seed in decimal + "\n" + lowercase hex
//! of the seed's salt)`, published with every deal, the seed and its salt revealed with the
//! game's record.

use sha2::{Digest, Sha256};

use crate::deal::Deck;

/// The commitment to `deck` under `salt`.
///
/// ```
/// use engine::{Deck, deal_commitment, verify_deal};
/// let deck = Deck::shuffled(7, 0);
/// let c = deal_commitment(&deck, b"salt");
/// assert!(verify_deal(&deck, b"salt", &c));
/// assert!(!verify_deal(&Deck::shuffled(7, 1), b"salt", &c));
/// ```
pub fn deal_commitment(deck: &Deck, salt: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"gin-deal-v1\n");
    h.update(deck.to_string().as_bytes());
    h.update(b"\n");
    for b in salt {
        h.update(format!("{b:02x}").as_bytes());
    }
    h.finalize().into()
}

/// True when `commitment` is the commitment to `deck` under `salt`.
pub fn verify_deal(deck: &Deck, salt: &[u8], commitment: &[u8]) -> bool {
    deal_commitment(deck, salt).as_slice() == commitment
}

/// The salt of hand `hand` of a game whose secret is `secret`: SHA-256("gin-salt-v1" +
/// secret + hand as 8 little-endian bytes). Each hand's salt is revealed at its end without
/// revealing the others.
pub fn hand_salt(secret: &[u8; 32], hand: u32) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"gin-salt-v1");
    h.update(secret);
    h.update((hand as u64).to_le_bytes());
    h.finalize().into()
}

/// The salt of the commitment to the seed of a game whose secret is `secret`:
/// SHA-256("gin-seed-salt-v1" + secret).
pub fn seed_salt(secret: &[u8; 32]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"gin-seed-salt-v1");
    h.update(secret);
    h.finalize().into()
}

/// The commitment to a game's `seed` under `salt` (see the module docs).
///
/// ```
/// use engine::{seed_commitment, verify_seed};
/// let c = seed_commitment(42, b"salt");
/// assert!(verify_seed(42, b"salt", &c));
/// assert!(!verify_seed(43, b"salt", &c));
/// ```
pub fn seed_commitment(seed: u64, salt: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(format!("gin-seed-v1\n{seed}\n").as_bytes());
    for b in salt {
        h.update(format!("{b:02x}").as_bytes());
    }
    h.finalize().into()
}

/// True when `commitment` is the commitment to `seed` under `salt`.
pub fn verify_seed(seed: u64, salt: &[u8], commitment: &[u8]) -> bool {
    seed_commitment(seed, salt).as_slice() == commitment
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commitment_is_the_documented_hash() {
        let deck = Deck::shuffled(1, 0);
        let text = format!("gin-deal-v1\n{deck}\n0aff");
        let want: [u8; 32] = Sha256::digest(text.as_bytes()).into();
        assert_eq!(deal_commitment(&deck, &[0x0a, 0xff]), want);
        assert!(!verify_deal(&deck, &[0x0a, 0xfe], &want));
        assert_ne!(hand_salt(&[1; 32], 0), hand_salt(&[1; 32], 1));
        assert_ne!(hand_salt(&[1; 32], 0), hand_salt(&[2; 32], 0));
    }

    #[test]
    fn seed_commitment_is_the_documented_hash() {
        let want: [u8; 32] = Sha256::digest(b"gin-seed-v1\n18446744073709551615\n0aff").into();
        assert_eq!(seed_commitment(u64::MAX, &[0x0a, 0xff]), want);
        assert!(!verify_seed(u64::MAX - 1, &[0x0a, 0xff], &want));
        assert!(!verify_seed(u64::MAX, &[0x0a, 0xfe], &want));
        let salt = seed_salt(&[1; 32]);
        assert_ne!(salt, seed_salt(&[2; 32]));
        assert!((0..4).all(|n| hand_salt(&[1; 32], n) != salt), "the seed's salt is no hand's");
    }
}
