//! Basic rummy (seed 003): each sentence of the seed about the game is a test that quotes
//! it; worked scores computed by hand; properties over random legal games.

use engine::rummy::{
    FinalDiscard, RummyAction as A, RummyEnd, RummyError, RummyGame, RummyHand, RummyPhase, RummyRules,
};
use engine::{Card, CardSet, Deck, card, hand};
use proptest::prelude::*;

fn rules(players: u8) -> RummyRules {
    RummyRules::for_players(players).unwrap()
}

/// A deck whose first cards are `top` (in order), the rest in the deck's usual order.
fn deck(top: &str) -> Deck {
    let mut cards: Vec<Card> = top.split_whitespace().map(card).collect();
    for c in Card::all() {
        if !cards.contains(&c) {
            cards.push(c);
        }
    }
    Deck::from_cards(&cards).unwrap()
}

/// Every card of a hand is somewhere, once: the hands and the table hold distinct cards,
/// and with the stock and the pile they make 52.
fn all_cards(h: &RummyHand) {
    let mut seen = CardSet::EMPTY;
    let mut n = 0;
    for s in 0..h.rules().players {
        seen |= h.hand(s);
        n += h.hand(s).len();
    }
    for t in h.table() {
        seen |= t.cards;
        n += t.cards.len();
    }
    assert_eq!(seen.len(), n, "a card in two places");
    assert_eq!(n as usize + h.stock_len() + h.pile_len(), 52, "52 cards in all");
}

/// « A deux joueurs, 10 cartes chacun · A trois ou quatre joueurs, sept cartes chacun · À
/// cinq ou six joueurs, six cartes chacun »; « Jouez au rami avec deux à six joueurs ».
#[test]
fn cards_dealt_by_table_size_from_two_to_six() {
    for (players, each) in [(2, 10), (3, 7), (4, 7), (5, 6), (6, 6)] {
        let h = RummyHand::deal(&rules(players), 9, 0, 0).unwrap();
        for s in 0..players {
            assert_eq!(h.hand(s).len(), each, "{players} players");
        }
        // « Retournez la carte du dessus de la pioche face visible … cette carte commence la
        // pile de défausse »
        assert_eq!(h.pile_len(), 1);
        assert_eq!(h.stock_len(), 52 - 1 - each as usize * players as usize);
        all_cards(&h);
    }
    for bad in [0, 1, 7] {
        let e = RummyRules::for_players(bad).unwrap_err();
        assert!(e.to_string().contains("2 to 6"), "{e}");
    }
    let too_many = RummyRules { players: 6, hand_size: 9, ..RummyRules::default() };
    assert!(too_many.check().unwrap_err().to_string().contains("a deck has 52"));
}

/// The deal starts on the dealer's left, who plays first.
#[test]
fn the_deal_starts_left_of_the_dealer_who_plays_first() {
    let d = deck("AC 2C 3C 4C 5C 6C");
    let h = RummyHand::deal_from(&rules(3), 1, 0, 2, &d).unwrap();
    assert!(h.hand(0).contains(card("AC")) && h.hand(0).contains(card("4C")));
    assert!(h.hand(1).contains(card("2C")) && h.hand(2).contains(card("3C")));
    assert_eq!(h.to_act(), Some(0));
    assert_eq!(h.phase(), RummyPhase::Draw);
}

/// « Piochez une carte, soit du haut de la pioche, soit du haut de la pile de défausse » and
/// « si un joueur a choisi de piocher la carte du dessus de la pile de défausse …, il ne peut
/// pas défausser cette carte lors du même tour ».
#[test]
fn draw_from_either_and_never_discard_the_card_taken_from_the_pile() {
    let mut h = RummyHand::deal(&rules(2), 3, 0, 1).unwrap();
    assert_eq!(h.legal(), vec![A::DrawStock, A::DrawPile]);
    let top = h.pile_top().unwrap();
    h.apply(0, A::DrawPile).unwrap();
    assert!(h.hand(0).contains(top));
    assert!(!h.legal().contains(&A::Discard(top)));
    let before = h.clone().hand(0);
    let e = h.apply(0, A::Discard(top)).unwrap_err();
    assert!(e.to_string().contains("may not be discarded this turn"), "{e}");
    assert_eq!(h.hand(0), before, "refused: unchanged");
    // Out of turn, or a draw in the play part of the turn: refused.
    assert_eq!(h.apply(1, A::DrawStock), Err(RummyError::NotYourTurn { to_act: Some(0) }));
    assert_eq!(h.apply(0, A::DrawStock), Err(RummyError::WrongPhase(RummyPhase::Play)));
}

/// « Groupes : Brelan ou Carré · Séquences : trois cartes consécutives ou plus de la même
/// couleur » and « l'as est toujours une carte basse. Il ne peut pas être joué au-dessus du
/// roi »; « As Soit Haut soit Bas … une fusion de reine, roi et as serait également légale »
/// (K-A-2 never).
#[test]
fn melds_sets_runs_and_the_ace() {
    let low = rules(2);
    let high = RummyRules { ace_high: true, ..rules(2) };
    for (cards, is_low, is_high) in [
        ("7C 7D 7H", true, true),
        ("7C 7D 7H 7S", true, true),
        ("7C 7D", false, false),
        ("AC 2C 3C", true, true),
        ("QC KC AC", false, true),
        ("JC QC KC AC", false, true),
        ("KC AC 2C", false, false),
        ("8H 9H TH JH", true, true),
        ("8H 9H JH", false, false),
        ("8H 9D TH", false, false),
    ] {
        assert_eq!(low.is_meld(hand(cards)), is_low, "{cards} ace low");
        assert_eq!(high.is_meld(hand(cards)), is_high, "{cards} ace high");
    }
    // And the moves listed: Q-K-A only with aces high, K-A-2 never.
    let d = deck("QC 2S KC 3S AC 4S 2C 6S 9D 8S TD 5H JD 7H 4H 8D 5C 6D 7C 9S KD");
    for (r, qka) in [(&low, false), (&high, true)] {
        let mut h = RummyHand::deal_from(r, 1, 0, 0, &d).unwrap();
        assert_eq!(h.hand(1), hand("QC KC AC 2C 9D TD JD 4H 5C 7C"));
        h.apply(1, A::DrawPile).unwrap();
        let legal = h.legal();
        assert_eq!(legal.contains(&A::Meld(hand("QC KC AC"))), qka);
        assert!(!legal.contains(&A::Meld(hand("KC AC 2C"))));
        assert!(legal.contains(&A::Meld(hand("9D TD JD"))));
        assert!(!legal.contains(&A::Meld(hand("9D TD JD KD"))), "not consecutive");
        assert_eq!(h.apply(1, A::Meld(hand("QC KC AC"))).is_ok(), qka);
    }
    assert_eq!((high.card_points(card("AS")), low.card_points(card("AS"))), (15, 1));
    // A whole suit is one run, listed once, aces high or low; a 2 does not go above a high ace.
    let clubs = "AC 2D 2C 3D 3C 4D 4C 5D 5C 6D 6C 7D 7C 8D 8C 9D 9C TD TC JD JC QD QC KD KC";
    for r in [&low, &high] {
        let r = RummyRules { hand_size: 13, ..r.clone() };
        let mut h = RummyHand::deal_from(&r, 1, 0, 0, &deck(clubs)).unwrap();
        assert_eq!(h.hand(1), CardSet::suit(engine::Suit::Clubs));
        h.apply(1, A::DrawStock).unwrap();
        let whole = h.legal().iter().filter(|a| **a == A::Meld(CardSet::suit(engine::Suit::Clubs))).count();
        assert_eq!(whole, 1, "ace high: {}", r.ace_high);
    }
    let d = deck("QC 2S KC 3S AC 4S 2H 6S 9D 8S TD 5H JD 7H 4H 8D 5C 6D 7C 9S 2C");
    let mut h = RummyHand::deal_from(&high, 1, 0, 0, &d).unwrap();
    h.apply(1, A::DrawStock).unwrap();
    h.apply(1, A::Meld(hand("QC KC AC"))).unwrap();
    h.apply(1, A::Discard(card("2H"))).unwrap();
    h.apply(0, A::DrawPile).unwrap();
    assert!(h.hand(0).contains(card("2H")));
    assert!(!h.legal().iter().any(|a| matches!(a, A::LayOff { .. })), "no 2 above a high ace");
    assert_eq!((high.card_points(card("KS")), high.card_points(card("7S"))), (10, 7));
}

/// « Le joueur A a joué une combinaison qui comprend trois huit. Le joueur B peut retirer un
/// huit de sa main » · « … le huit, le neuf ou le 10 de cœur. Le joueur B peut retirer le sept
/// de cœur ou le valet de cœur, ou les deux » · « Les cartes qui sont retirées sont placées sur
/// la table devant le joueur qui les joue ».
#[test]
fn lay_offs_onto_another_players_melds_stay_in_front_of_who_laid_them() {
    // Seat 1 (left of dealer 0) gets the cards in even places, seat 0 the others.
    let d = deck("8C 2S 8D 3S 8H 7H 9H 8S TH JH AS 4D 5D 6D KS QS KD QD KH QH JC");
    let mut h = RummyHand::deal_from(&rules(2), 1, 0, 0, &d).unwrap();
    assert_eq!(h.hand(1), hand("8C 8D 8H 9H TH AS 5D KS KD KH"));
    assert_eq!(h.hand(0), hand("2S 3S 7H 8S JH 4D 6D QS QD QH"));
    h.apply(1, A::DrawStock).unwrap();
    h.apply(1, A::Meld(hand("8C 8D 8H"))).unwrap();
    h.apply(1, A::Meld(hand("KS KD KH"))).unwrap();
    h.apply(1, A::Discard(card("AS"))).unwrap();
    h.apply(0, A::DrawStock).unwrap();
    h.apply(0, A::LayOff { card: card("8S"), meld: 0 }).unwrap();
    // 7H is not next to the 8 set as a run: refused, unchanged.
    let e = h.apply(0, A::LayOff { card: card("7H"), meld: 0 }).unwrap_err();
    assert!(e.to_string().contains("does not fit"), "{e}");
    h.apply(0, A::Meld(hand("QS QD QH"))).unwrap();
    h.apply(0, A::Discard(card("2S"))).unwrap();
    // The stock's cards come in the deck's usual order after the listed ones: AC, 2C, 3C.
    h.apply(1, A::DrawStock).unwrap();
    assert_eq!(h.hand(1), hand("9H TH 5D AC 3C"));
    let t = h.table();
    assert_eq!(t[0].cards, hand("8C 8D 8H 8S"));
    assert_eq!(t[0].by, 1);
    assert_eq!(t[0].layoffs, vec![(0, card("8S"))]);
    assert_eq!((t[2].cards, t[2].by), (hand("QS QD QH"), 0));
    // A run of seat 1's own, then seat 0 lays off onto it (below and above).
    assert!(!h.legal().contains(&A::Meld(hand("AC 3C 5D"))));
    h.apply(1, A::Discard(card("5D"))).unwrap();
    all_cards(&h);
}

/// « Un joueur « sort » lorsqu'il joue la dernière carte de sa main soit en fusionnant, en
/// licenciant ou en se défaussant » and the scoring: « Les as valent un point. Les cartes
/// numérotées valent leur valeur nominale. Les cartes faciales valent 10 points »; « Lorsqu'un
/// joueur joue au rami, tous les points sont doublés ».
#[test]
fn going_out_by_melding_everything_at_once_is_a_rummy_and_doubles() {
    // Seat 1 is dealt a hand that is all melds but one card, and draws the card that fits.
    let d = deck("2C 9S 3C 9D 4C AH 5H KS 6H KD 7H QH 8H QD 9C QC JC JD TS JS 3D");
    let mut h = RummyHand::deal_from(&rules(2), 1, 0, 0, &d).unwrap();
    assert_eq!(h.hand(1), hand("2C 3C 4C 5H 6H 7H 8H 9C JC TS"));
    assert_eq!(h.hand(0), hand("9S 9D AH KS KD QH QD QC JD JS"));
    // The first discard is 3D, the stock's top is the card after it.
    assert_eq!(h.pile_top(), Some(card("3D")));
    h.apply(1, A::DrawPile).unwrap();
    h.apply(1, A::Meld(hand("2C 3C 4C"))).unwrap();
    h.apply(1, A::Meld(hand("5H 6H 7H 8H"))).unwrap();
    let e = h.apply(1, A::Discard(card("3D"))).unwrap_err();
    assert!(e.to_string().contains("may not be discarded"), "{e}");
    h.apply(1, A::Discard(card("JC"))).unwrap();
    assert!(h.result().is_none(), "9C TS 3D still in hand");
    // Seat 0 plays on; seat 1 cannot go out in one turn now: no rummy later.
    h.apply(0, A::DrawStock).unwrap();
    h.apply(0, A::Discard(card("AH"))).unwrap();
    assert_eq!(h.hand(1), hand("9C TS 3D"));

    // A rummy: everything in one turn, nothing played before in the hand.
    let d = deck("2C 9S 3C 9D 4C AH 5H KS 6H KD 7H QH 8H QD 9C QC TC JD JC JS 4S");
    let mut h = RummyHand::deal_from(&rules(2), 1, 0, 0, &d).unwrap();
    assert_eq!(h.hand(1), hand("2C 3C 4C 5H 6H 7H 8H 9C TC JC"));
    h.apply(1, A::DrawStock).unwrap();
    let drawn = h.hand(1) - hand("2C 3C 4C 5H 6H 7H 8H 9C TC JC");
    h.apply(1, A::Meld(hand("2C 3C 4C"))).unwrap();
    h.apply(1, A::Meld(hand("5H 6H 7H 8H"))).unwrap();
    h.apply(1, A::Meld(hand("9C TC JC"))).unwrap();
    h.apply(1, A::Discard(drawn.first().unwrap())).unwrap();
    let r = h.result().unwrap();
    assert_eq!(r.winner, Some(1));
    assert!(r.rummy);
    // Seat 0 holds 9S 9D AH KS KD QH QD QC JD JS: 9+9+1+10×7 = 89, doubled.
    assert_eq!(h.hand(0), hand("9S 9D AH KS KD QH QD QC JD JS"));
    assert_eq!(r.points, 2 * 89);
    assert_eq!(h.to_act(), None);
    assert!(h.legal().is_empty());
}

/// « certains joueurs exigent que la dernière carte dans la main d'un joueur soit défaussée »:
/// with the final discard required, a meld may not empty the hand; without, it may.
#[test]
fn the_final_discard_optional_or_required() {
    // Either way, going out by a discard, melds laid on earlier turns: no rummy.
    let d = deck("2C 9S 3C 9D 4C AH 5H KS 6H KD 7H QH 8H QD 9C QC TC JD JC JS 4S");
    let (ones, zeros) = (hand("2C 3C 4C 5H 6H 7H 8H 9C TC JC"), hand("9S 9D AH KS KD QH QD QC JD JS"));
    // Draws from the stock and discards the card drawn (the seat holds `keep` before).
    let idle = |h: &mut RummyHand, seat: u8, keep: CardSet| {
        h.apply(seat, A::DrawStock).unwrap();
        h.apply(seat, A::Discard((h.hand(seat) - keep).first().unwrap())).unwrap();
    };
    for final_discard in [FinalDiscard::Optional, FinalDiscard::Required] {
        let r = RummyRules { final_discard, ..rules(2) };
        let mut h = RummyHand::deal_from(&r, 1, 0, 0, &d).unwrap();
        idle(&mut h, 1, ones);
        idle(&mut h, 0, zeros);
        // Seat 1 melds seven of its ten cards and discards the card drawn.
        h.apply(1, A::DrawStock).unwrap();
        let extra = (h.hand(1) - ones).first().unwrap();
        h.apply(1, A::Meld(hand("2C 3C 4C"))).unwrap();
        h.apply(1, A::Meld(hand("5H 6H 7H 8H"))).unwrap();
        h.apply(1, A::Discard(extra)).unwrap();
        idle(&mut h, 0, zeros);
        // Then holds 9C TC JC: with the draw, four cards; melds three, discards the fourth.
        h.apply(1, A::DrawStock).unwrap();
        let extra = (h.hand(1) - hand("9C TC JC")).first().unwrap();
        let meld = A::Meld(hand("9C TC JC"));
        assert!(h.legal().contains(&meld));
        h.apply(1, meld).unwrap();
        h.apply(1, A::Discard(extra)).unwrap();
        let r = h.result().unwrap();
        assert_eq!(r.winner, Some(1));
        assert!(!r.rummy, "melds laid on earlier turns");
        assert_eq!(r.points, r.left[0].iter().map(|c| c.value()).sum::<u32>(), "not doubled");
    }
    // Required: a meld of a whole three-card hand is not listed and is refused.
    let r = RummyRules { final_discard: FinalDiscard::Required, hand_size: 2, ..rules(2) };
    let d = deck("7C 2D 7D 2H 7H");
    let mut h = RummyHand::deal_from(&r, 1, 0, 0, &d).unwrap();
    assert_eq!(h.hand(1), hand("7C 7D"));
    h.apply(1, A::DrawPile).unwrap();
    assert!(!h.legal().contains(&A::Meld(hand("7C 7D 7H"))));
    let e = h.apply(1, A::Meld(hand("7C 7D 7H"))).unwrap_err();
    assert!(e.to_string().contains("final discard"), "{e}");
    // Optional: it goes out.
    let r = RummyRules { hand_size: 2, ..rules(2) };
    let mut h = RummyHand::deal_from(&r, 1, 0, 0, &d).unwrap();
    h.apply(1, A::DrawPile).unwrap();
    h.apply(1, A::Meld(hand("7C 7D 7H"))).unwrap();
    let res = h.result().unwrap();
    // Seat 0 holds 2D 2H: 4 points, doubled (a rummy).
    assert_eq!((res.winner, res.rummy, res.points), (Some(1), true, 8));
}

/// « les as devraient compter pour 15 points chacun » when aces are high.
#[test]
fn aces_count_fifteen_when_high() {
    let high = RummyRules { ace_high: true, ..rules(2) };
    assert_eq!(high.points(hand("AC AD KS 5H")), 15 + 15 + 10 + 5);
    assert_eq!(rules(2).points(hand("AC AD KS 5H")), 1 + 1 + 10 + 5);
}

/// « mélangez toutes les cartes de la défausse à l'exception de celle du dessus pour former une
/// nouvelle pioche »; after the allowed turns of the pile, a dead hand.
#[test]
fn the_pile_becomes_the_stock_then_the_hand_dies() {
    let r = RummyRules { max_reshuffles: 1, ..rules(2) };
    let mut h = RummyHand::deal(&r, 5, 0, 0).unwrap();
    let mut turned = false;
    let mut guard = 0;
    while h.result().is_none() {
        guard += 1;
        assert!(guard < 1000);
        let s = h.to_act().unwrap();
        if h.phase() == RummyPhase::Draw {
            if h.stock_len() == 0 {
                let (pile, top) = (h.pile_len(), h.pile_top());
                h.apply(s, A::DrawStock).unwrap();
                assert_eq!(h.pile_len(), 1, "the top card stays");
                assert_eq!(h.pile_top(), top);
                assert_eq!(h.stock_len(), pile - 2, "the rest, less the card drawn");
                turned = true;
            } else {
                h.apply(s, A::DrawStock).unwrap();
            }
        } else {
            // Discard the card drawn (never meld): the hand cannot end by going out.
            let legal = h.legal();
            let discard = legal.iter().rev().find(|a| matches!(a, A::Discard(_))).unwrap();
            h.apply(s, *discard).unwrap();
        }
        all_cards(&h);
    }
    assert!(turned);
    let res = h.result().unwrap();
    assert_eq!((res.winner, res.points), (None, 0), "a dead hand");
}

/// « Le premier joueur à atteindre un nombre prédéterminé de points (par exemple 150), ou à
/// avoir le plus de points après un nombre prédéterminé de mains jouées, est le gagnant ».
#[test]
fn a_game_to_a_target_or_a_number_of_hands() {
    for end in [RummyEnd::Target(50), RummyEnd::Hands(3)] {
        let r = RummyRules { players: 3, end, ..RummyRules::default() };
        let mut g = RummyGame::new(r, 11).unwrap();
        let mut rng = 0x1234_5678u64;
        let mut moves = 0;
        while !g.is_over() {
            let h = g.hand();
            let legal = h.legal();
            // Prefer melds and lay-offs, so hands end.
            let pick =
                legal.iter().find(|a| matches!(a, A::Meld(_) | A::LayOff { .. })).copied().unwrap_or_else(
                    || {
                        rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                        legal[(rng >> 33) as usize % legal.len()]
                    },
                );
            g.apply(h.to_act().unwrap(), pick).unwrap();
            moves += 1;
            assert!(moves < 200_000);
        }
        let total: u32 = g.results().iter().map(|r| r.points).sum();
        assert_eq!(g.scores().iter().sum::<u32>(), total);
        match end {
            RummyEnd::Target(t) => {
                assert!(g.scores().iter().any(|&s| s >= t));
                assert_eq!(g.winners().len(), 1);
                assert!(g.scores()[g.winners()[0] as usize] >= t);
            }
            RummyEnd::Hands(n) => assert_eq!(g.results().len(), n as usize),
        }
        assert!(g.apply(0, A::DrawStock).is_err(), "over: nothing more");
    }
}

/// Every move by brute force: every subset of the hand that is a meld, every card onto every
/// table meld it fits, every discard; a meld or lay-off kept only if what it leaves may still
/// end the turn (as the rules say, without the engine's shortcuts).
fn brute_force_legal(h: &RummyHand) -> Vec<A> {
    let Some(s) = h.to_act() else { return Vec::new() };
    if h.phase() == RummyPhase::Draw {
        return h.legal();
    }
    let r = h.rules();
    let hand_cards: Vec<Card> = h.hand(s).iter().collect();
    let hand = h.hand(s);
    // The card taken from the pile this turn is the one no listed discard names.
    let discards: Vec<Card> =
        h.legal().iter().filter_map(|a| if let A::Discard(c) = a { Some(*c) } else { None }).collect();
    let from_pile = hand_cards.iter().copied().find(|c| !discards.contains(c));
    let ok = |rest: CardSet| {
        if rest.is_empty() {
            r.final_discard == FinalDiscard::Optional
        } else {
            from_pile.is_none_or(|p| rest != CardSet::single(p))
        }
    };
    let mut out = Vec::new();
    for mask in 0u32..(1 << hand_cards.len()) {
        let m: CardSet =
            hand_cards.iter().enumerate().filter(|(i, _)| mask >> i & 1 == 1).map(|(_, c)| *c).collect();
        if r.is_meld(m) && ok(hand - m) {
            out.push(A::Meld(m));
        }
    }
    for (i, t) in h.table().iter().enumerate() {
        for &c in &hand_cards {
            if r.is_meld(t.cards.with(c)) && ok(hand.without(c)) {
                out.push(A::LayOff { card: c, meld: i });
            }
        }
    }
    out.extend(discards.into_iter().map(A::Discard));
    out
}

/// `legal_count` and `legal_nth` (counted by formula) agree with `legal` (listed) in hands
/// dense with melds: large hands dealt from decks sorted by suit (long runs, whole suits,
/// with the ace high or low) or by rank (sets, fours), every final-discard rule, random
/// play to the end; the list checked by brute force while the hand is small enough.
#[test]
fn count_and_nth_agree_with_the_list_in_hands_full_of_melds() {
    let by_suit: Vec<Card> = Card::all().collect();
    let mut by_rank = by_suit.clone();
    by_rank.sort_by_key(|c| (c.rank(), c.suit()));
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut next = |n: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n as u64) as usize
    };
    let mut checked = 0;
    for game in 0..240 {
        let players = 2 + (game % 3) as u8;
        let hand_size = [3, 10, 13, 16][game / 3 % 4];
        if hand_size as usize * players as usize + 2 > 52 {
            continue;
        }
        let r = RummyRules {
            players,
            hand_size,
            ace_high: game / 12 % 2 == 1,
            final_discard: if game / 24 % 2 == 1 { FinalDiscard::Required } else { FinalDiscard::Optional },
            ..RummyRules::default()
        };
        // A sorted deck turned at a random place, then dealt: each seat gets every
        // `players`-th card, so seat by seat the hands hold stretches of suits or ranks.
        let sorted = if game / 48 % 2 == 0 { &by_suit } else { &by_rank };
        let turn = next(52);
        let mut cards: Vec<Card> = sorted[turn..].iter().chain(&sorted[..turn]).copied().collect();
        // Seat 1's cards together: every card it is dealt from one stretch.
        let each = hand_size as usize;
        let stretch: Vec<Card> = cards.drain(..each).collect();
        let mut dealt = Vec::new();
        for i in 0..each * players as usize {
            dealt.push(if i % players as usize == 0 {
                stretch[i / players as usize]
            } else {
                cards.remove(0)
            });
        }
        dealt.extend(cards);
        let d = Deck::from_cards(&dealt).unwrap();
        let mut h = RummyHand::deal_from(&r, game as u64, 0, 0, &d).unwrap();
        while let Some(s) = h.to_act() {
            let legal = h.legal();
            assert_eq!(h.legal_count(), legal.len(), "game {game}: {h:?}");
            for (i, a) in legal.iter().enumerate() {
                assert_eq!(h.legal_nth(i), Some(*a), "game {game}, move {i}: {h:?}");
            }
            assert_eq!(h.legal_nth(legal.len()), None);
            if h.phase() == RummyPhase::Play && h.hand(s).len() <= 12 {
                let mut listed: Vec<String> = legal.iter().map(|a| format!("{a:?}")).collect();
                listed.sort();
                let mut brute: Vec<String> = brute_force_legal(&h).iter().map(|a| format!("{a:?}")).collect();
                brute.sort();
                assert_eq!(listed, brute, "game {game}: {h:?}");
                checked += 1;
            }
            // Melds and lay-offs first when there are some, to empty hands and fill the table.
            let play = legal.iter().position(|a| matches!(a, A::Meld(_) | A::LayOff { .. }));
            let a = match play {
                Some(i) if next(4) != 0 => legal[i + next(legal.len() - i)],
                _ => legal[next(legal.len())],
            };
            h.apply(s, a).unwrap();
        }
    }
    assert!(checked > 1000, "{checked}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random legal games of every table size: 52 cards always, every listed move accepted,
    /// moves not listed refused with the hand unchanged, the same seed the same game.
    #[test]
    fn random_games_keep_every_rule(seed in any::<u64>(), players in 2u8..=6, ace_high: bool, required: bool) {
        let r = RummyRules {
            players,
            ace_high,
            final_discard: if required { FinalDiscard::Required } else { FinalDiscard::Optional },
            ..RummyRules::default()
        };
        let mut h = RummyHand::deal(&r, seed, 0, (seed % players as u64) as u8).unwrap();
        let mut again = h.clone();
        let mut x = seed | 1;
        let mut steps = 0;
        while let Some(s) = h.to_act() {
            steps += 1;
            prop_assert!(steps < 20_000);
            let legal = h.legal();
            prop_assert!(!legal.is_empty());
            // The list is every move a brute force finds, once each, and count/nth agree.
            let mut sorted: Vec<String> = legal.iter().map(|a| format!("{a:?}")).collect();
            sorted.sort();
            let mut brute: Vec<String> = brute_force_legal(&h).iter().map(|a| format!("{a:?}")).collect();
            brute.sort();
            prop_assert_eq!(&sorted, &brute);
            prop_assert_eq!(h.legal_count(), legal.len());
            for (i, a) in legal.iter().enumerate() {
                prop_assert_eq!(h.legal_nth(i), Some(*a));
            }
            prop_assert_eq!(h.legal_nth(legal.len()), None);
            // A move not listed: refused, nothing changes.
            let hand_now = h.hand(s);
            for probe in [A::DrawStock, A::DrawPile, A::Discard(card("AC")), A::Meld(hand_now), A::LayOff { card: card("KS"), meld: 99 }] {
                if !legal.contains(&probe) {
                    let before = format!("{h:?}");
                    prop_assert!(h.apply(s, probe).is_err());
                    prop_assert_eq!(before, format!("{h:?}"));
                }
            }
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            let a = legal[(x % legal.len() as u64) as usize];
            h.apply(s, a).unwrap();
            again.apply(s, a).unwrap();
            all_cards(&h);
        }
        prop_assert_eq!(h.result(), again.result());
        let res = h.result().unwrap();
        if let Some(w) = res.winner {
            prop_assert!(h.hand(w).is_empty());
            let left = res.left.iter().fold(CardSet::EMPTY, |a, &b| a | b);
            let base = r.points(left);
            prop_assert_eq!(res.points, if res.rummy { 2 * base } else { base });
        }
    }
}

/// The best melds of a hand: ace low, the same as gin's exact solver; ace high, Q-K-A is a
/// run (the ace at either end) and K-A-2 is not (RULES.md), an ace left counts 15.
#[test]
fn best_melds_ace_low_like_gin_and_ace_high_by_hand() {
    let low = rules(2);
    let high = RummyRules { ace_high: true, ..rules(2) };
    let a = high.best_melds(hand("QH KH AH 2C 3C"));
    assert_eq!((a.melds, a.left, a.points), (vec![hand("QH KH AH")], hand("2C 3C"), 5));
    assert_eq!(low.best_melds(hand("QH KH AH 2C 3C")).points, 10 + 10 + 1 + 2 + 3);
    let k_a_2 = high.best_melds(hand("KH AH 2H"));
    assert!(k_a_2.melds.is_empty());
    assert_eq!(k_a_2.points, 10 + 15 + 2);
    // The ace plays at either end of a run (A-2-3 stays one), but counts 15 when left.
    assert_eq!(high.best_melds(hand("AC 2C 3C")).points, 0);
    assert_eq!(high.best_melds(hand("AC 2C 5D")).points, 15 + 2 + 5);
    assert_eq!(low.best_melds(hand("AC 2C 3C")).points, 0);
}

proptest! {
    #[test]
    fn best_melds_ace_low_equal_the_gin_solver(bits in any::<u64>(), n in 3usize..12) {
        let cards: CardSet = Card::all().filter(|c| bits >> (c.bit() % 64) & 1 == 1).take(n).collect();
        let a = rules(2).best_melds(cards);
        prop_assert_eq!(a.points, engine::deadwood(cards));
        let mut all = a.left;
        for m in &a.melds {
            prop_assert!(rules(2).is_meld(*m));
            prop_assert!(all.is_disjoint(*m));
            all |= *m;
        }
        prop_assert_eq!(all, cards);
    }
}
