//! Fair deals: a commitment to a deck order, published when the hand is dealt and checked
//! by anyone once the hand ends and the deck and salt are revealed.
//!
//! `commitment = SHA-256("gin-deal-v1\n" + deck as text (cards joined by single spaces, top
//! first) + "\n" + lowercase hex of the salt)`.

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
}
