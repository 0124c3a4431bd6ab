//! Gin for three or more at one table (seed 002, « Variante pour trois joueurs et plus »):
//! each sentence of the variant is a test that quotes it; worked scores computed by hand; the
//! project's choices (RULES.md); properties over random legal play.

use engine::gin7::{
    Gin7End, Gin7EndKind, Gin7Error, Gin7Event, Gin7Game, Gin7Hand, Gin7HandResult, Gin7Phase, Gin7Rules,
    Gin7Setup,
};
use engine::{Action, Card, CardSet, Deck, Meld, RuleError, best_defense, card, deadwood, hand};
use proptest::prelude::*;

fn rules(players: u8) -> Gin7Rules {
    Gin7Rules::for_players(players).unwrap()
}

/// A deck dealt by `dealer` that gives seat `s` the cards `seats[s]` (one at a time from the
/// dealer's left), then `up` as the upcard and `stock` on top of the stock; the rest of the
/// stock in the deck's usual order.
fn deck(dealer: u8, seats: &[&str], up: &str, stock: &str) -> Deck {
    let n = seats.len();
    let hands: Vec<Vec<Card>> = seats.iter().map(|s| hand(s).iter().collect()).collect();
    let each = hands[0].len();
    let mut order = Vec::new();
    for i in 0..each * n {
        order.push(hands[(dealer as usize + 1 + i) % n][i / n]);
    }
    order.push(card(up));
    order.extend(stock.split_whitespace().map(card));
    for c in Card::all() {
        if !order.contains(&c) {
            order.push(c);
        }
    }
    Deck::from_cards(&order).unwrap()
}

/// Deals `seats` (by seat number) with `dealer`, then the seat on its left draws the stock's
/// top card and knocks discarding `discard` face down.
fn knock_first_turn(r: &Gin7Rules, dealer: u8, seats: &[&str], stock: &str, discard: &str) -> Gin7HandResult {
    let used: CardSet = seats.iter().map(|s| hand(s)).fold(hand(stock), |a, b| a | b);
    let up = (!used).first().unwrap().to_string();
    let mut h = Gin7Hand::deal_from(r, 0, 0, dealer, deck(dealer, seats, &up, stock)).unwrap();
    let first = (dealer + 1) % r.players;
    h.apply(first, &Action::DrawStock).unwrap();
    assert_eq!(h.apply(first, &Action::knock(card(discard))), Ok(Gin7Event::Knocked { seat: first }));
    h.result().unwrap().clone()
}

fn points(r: &Gin7HandResult) -> Vec<u32> {
    r.seats.iter().map(|s| s.points).collect()
}

fn penalties(r: &Gin7HandResult) -> Vec<u32> {
    r.seats.iter().map(|s| s.penalty).collect()
}

fn deadwoods(r: &Gin7HandResult) -> Vec<u32> {
    r.seats.iter().map(|s| s.deadwood).collect()
}

/// « On ne distribue que 7 cartes à chaque joueur. »
#[test]
fn seven_cards_each() {
    for players in 3..=6u8 {
        let r = rules(players);
        assert_eq!(r.hand_size, 7);
        for dealer in 0..players {
            let h = Gin7Hand::deal(&r, 5, 0, dealer).unwrap();
            for s in 0..players {
                assert_eq!(h.cards(s).len(), 7, "{players} players, seat {s}");
            }
            assert_eq!(h.pile(), &[h.upcard()]);
            assert_eq!(h.stock_len(), 52 - 7 * players as usize - 1);
            // One card at a time from the dealer's left, who plays first.
            let left = (dealer + 1) % players;
            assert!(h.cards(left).contains(h.deck().cards()[0]));
            assert!(h.cards((left + 1) % players).contains(h.deck().cards()[1]));
            assert!(h.cards(left).contains(h.deck().cards()[players as usize]));
            assert_eq!((h.to_act(), h.phase()), (Some(left), Gin7Phase::Draw));
        }
    }
}

/// « Le joueur remportant la manche marque 20 points en cas de gin »; the others lose their
/// deadwood minus the winner's, which is 0; no layoffs onto gin.
#[test]
fn twenty_for_gin() {
    // Dealer 0; seat 1 holds A-2-3 of clubs and four sevens, draws KD and goes gin.
    let seats = ["2D 3D 4D 6H 2S 3S TH", "AC 2C 3C 7C 7D 7H 7S", "4C 5C KH QS JD 9H 8S"];
    let r = knock_first_turn(&rules(3), 0, &seats, "KD", "KD");
    assert_eq!(
        (r.end, r.knocker, r.winner, r.discard),
        (Gin7EndKind::Gin, Some(1), Some(1), Some(card("KD")))
    );
    // Seat 0: [2D 3D 4D] and 6+2+3+10 = 21. Seat 2: 4C 5C would extend A-2-3 of clubs, but
    // not onto gin: 4+5+10+10+10+9+8 = 56.
    assert_eq!(deadwoods(&r), vec![21, 0, 56]);
    assert_eq!(points(&r), vec![0, 20, 0]);
    assert_eq!(penalties(&r), vec![21, 0, 56]);
    assert!(r.seats.iter().all(|s| s.layoffs.is_empty()));
}

/// The worked example: 4 players, « 10 points pour un knock (quand il lui reste du bois
/// mort) »; « Les perdants pour leur part perdent la valeur de leur bois mort moins la valeur
/// du bois mort du gagnant »: a knock with 5 against 12, 9 and 30 after layoffs costs them 7,
/// 4 and 25.
#[test]
fn ten_for_a_knock_and_the_losers_lose_their_deadwood_minus_the_knockers() {
    let seats = [
        // Knocker, first to play (dealer 3): [2C 3C 4C] [9D 9H 9S], draws 5H, KS face down.
        "2C 3C 4C 9D 9H 9S KS",
        // [JD QD KD]; lays off 5C then 6C onto 2C-4C; 4S 8S left: 12.
        "5C 6C JD QD KD 4S 8S",
        // [7H 7D 7S]; 5S 2H AS AD: 9.
        "7H 7D 7S 5S 2H AS AD",
        // No meld, no layoff: 10+6+4+4+3+2+1 = 30.
        "KH 6H 4H 4D 3S 2D AH",
    ];
    let r = knock_first_turn(&rules(4), 3, &seats, "5H", "KS");
    assert_eq!((r.end, r.knocker, r.winner), (Gin7EndKind::Knock, Some(0), Some(0)));
    assert_eq!(r.knocker_melds().iter().map(|m| m.to_string()).collect::<Vec<_>>(), ["2C 3C 4C", "9D 9H 9S"]);
    assert_eq!(deadwoods(&r), vec![5, 12, 9, 30]);
    let laid: Vec<Card> = r.seats[1].layoffs.iter().map(|l| l.card).collect();
    assert_eq!(laid, vec![card("5C"), card("6C")]);
    assert_eq!(points(&r), vec![10, 0, 0, 0]);
    assert_eq!(penalties(&r), vec![0, 12 - 5, 9 - 5, 30 - 5]);
}

/// « … ou 10 points pour une défense réussie »: a defender at or under the knocker's deadwood
/// wins; the lowest wins, and between equals the first to play after the knocker; every
/// other player, the knocker included, loses its deadwood minus the winner's.
#[test]
fn ten_for_a_successful_defence_ties_to_the_first_after_the_knocker() {
    let seats = [
        // [JC QC KC]; lays off 4C and 5C onto the knocker's melds; 2S 3D: 5.
        "JC QC KC 4C 5C 2S 3D",
        // [6S 6H 6C 6D]; AH 2H 2D: 5.
        "6S 6H 6C 6D AH 2H 2D",
        // Knocker (dealer 1): [AC 2C 3C] [5D 5H 5S] 8H: 8 after KD face down.
        "AC 2C 3C 5D 5H 5S 8H",
        // [TS JS QS]; 7D 3H AD AS: 12.
        "TS JS QS 7D 3H AD AS",
    ];
    let r = knock_first_turn(&rules(4), 1, &seats, "KD", "KD");
    assert_eq!(deadwoods(&r), vec![5, 5, 8, 12]);
    // After seat 2 the order is 3, 0, 1: seat 0 is the first of the two at 5.
    assert_eq!((r.end, r.knocker, r.winner), (Gin7EndKind::Defence, Some(2), Some(0)));
    assert_eq!(points(&r), vec![10, 0, 0, 0]);
    assert_eq!(penalties(&r), vec![0, 5 - 5, 8 - 5, 12 - 5]);
    assert_eq!(r.seats[0].layoffs.len(), 2, "without its layoffs seat 0 would be at 14");
}

/// A defender level with the knocker defends successfully; the knocker loses nothing then.
#[test]
fn a_defence_level_with_the_knocker_costs_the_knocker_nothing() {
    // 3 players, dealer 2: seat 0 knocks with [AC 2C 3C] [5D 5H 5S] 8H = 8 (KD face down);
    // seat 1: [TS JS QS] 7D 3H AD AS = 12; seat 2: [6S 6H 6C 6D] 4D 3S AH = 8.
    let seats = ["AC 2C 3C 5D 5H 5S 8H", "TS JS QS 7D 3H AD AS", "6S 6H 6C 6D 4D 3S AH"];
    let r = knock_first_turn(&rules(3), 2, &seats, "KD", "KD");
    assert_eq!(deadwoods(&r), vec![8, 12, 8]);
    assert_eq!((r.end, r.winner), (Gin7EndKind::Defence, Some(2)));
    assert_eq!(points(&r), vec![0, 0, 10]);
    assert_eq!(penalties(&r), vec![0, 4, 0]);
}

/// « On distingue dans le décompte les points des pénalités »: won points and penalties are
/// two totals per player; the standing is by their difference.
#[test]
fn points_and_penalties_are_kept_apart() {
    let r3 = Gin7Rules { end: Gin7End::Hands(2), ..rules(3) };
    // Hand 0, dealer 0: seat 1 goes gin (20; penalties 21 and 56 as in `twenty_for_gin`).
    let gin = deck(0, &["2D 3D 4D 6H 2S 3S TH", "AC 2C 3C 7C 7D 7H 7S", "4C 5C KH QS JD 9H 8S"], "QC", "KD");
    // Hand 1, dealer 1: seat 2 knocks with 8, seat 0 at 12 (penalty 4), seat 1 defends at 8.
    let defence =
        deck(1, &["TS JS QS 7D 3H AD AS", "6S 6H 6C 6D 4D 3S AH", "AC 2C 3C 5D 5H 5S 8H"], "QC", "KD");
    let mut g = Gin7Game::new(Gin7Setup { decks: vec![gin, defence], ..Gin7Setup::new(r3, 0) }).unwrap();
    assert_eq!(g.hand().dealer(), 0, "seed 0 % 3");
    g.apply(1, &Action::DrawStock).unwrap();
    let step = g.apply(1, &Action::knock(card("KD"))).unwrap();
    assert!(step.hand_over && !step.game_over);
    assert_eq!((g.points(), g.penalties()), (&[0, 20, 0][..], &[21, 0, 56][..]));
    assert_eq!(g.hand().dealer(), 1, "the deal passes to the left");
    g.apply(2, &Action::DrawStock).unwrap();
    let step = g.apply(2, &Action::knock(card("KD"))).unwrap();
    assert!(step.hand_over && step.game_over);
    let h = &g.hands()[1].result;
    assert_eq!((h.end, h.winner), (Gin7EndKind::Defence, Some(1)));
    assert_eq!(g.points(), &[0, 30, 0]);
    assert_eq!(g.penalties(), &[21 + 4, 0, 56]);
    assert_eq!(g.net(), vec![-25, 30, -56]);
    assert_eq!(g.winners(), vec![1]);
    // The summaries keep the running totals apart too.
    assert_eq!(
        (g.hands()[0].points.clone(), g.hands()[0].penalties.clone()),
        (vec![0, 20, 0], vec![21, 0, 56])
    );
    assert_eq!(g.actions().len(), 4);
    assert_eq!(g.apply(0, &Action::DrawStock), Err(Gin7Error::NotYourTurn { to_act: None }));
}

/// Layoffs go onto the knocker's melds only, never onto another defender's, and each
/// defender's are counted against the knocker's melds as laid down.
#[test]
fn layoffs_onto_the_knockers_melds_only_each_defender_on_its_own() {
    let seats = [
        // Knocker (dealer 3): [3S 4S 5S] [9D 9H 9C] 2H = 2 after KS face down.
        "3S 4S 5S 9D 9H 9C 2H",
        // 6S fits the knocker's run; [8C 8D 8H]; KC QD: 20.
        "6S 8C 8D 8H KC QD 4H",
        // 7S fits only after 6S, which is another defender's layoff: it stays; 8S would fit
        // seat 1's set of 8s: it stays too. [AC AD AS]; 7+8+10+10 = 35.
        "7S 8S JC TD AC AD AS",
        "KH QH JH 2C 3C 4D 5D",
    ];
    let r = knock_first_turn(&rules(4), 3, &seats, "KS", "KS");
    assert_eq!(r.seats[1].layoffs.iter().map(|l| l.card).collect::<Vec<_>>(), vec![card("6S")]);
    assert!(r.seats[2].layoffs.is_empty());
    // Seat 1: KC QD 4H = 24; seat 2: 7+8+10+10 = 35; seat 3: [JH QH KH] 2+3+4+5 = 14.
    assert_eq!(deadwoods(&r), vec![2, 24, 35, 14]);
    assert_eq!(penalties(&r), vec![0, 22, 33, 12]);
    // Without layoffs, seat 1 keeps 6S.
    let no = Gin7Rules { layoffs: false, ..rules(4) };
    let r = knock_first_turn(&no, 3, &seats, "KS", "KS");
    assert_eq!(deadwoods(&r), vec![2, 30, 35, 14]);
    assert!(r.seats.iter().all(|s| s.layoffs.is_empty()));
}

/// The knock: the deadwood of the seven cards left after the face-down discard is at most the
/// limit; the knocker may name its melds (checked) or let the engine choose.
#[test]
fn knock_limit_and_named_melds() {
    let seats = ["2C 3C 4C 9D 9H 9S KS", "5C 6C JD QD KD 4S 8S", "7H 7D 7S 5S 2H AS AD"];
    let mut h = Gin7Hand::deal_from(&rules(3), 0, 0, 2, deck(2, &seats, "QC", "JH")).unwrap();
    h.apply(0, &Action::DrawStock).unwrap();
    let before = h.clone();
    // Without KS: [2C 3C 4C] [9D 9H 9S] JH = 10, the limit: allowed; without 2C: 3C 4C KS JH
    // = 27 over the limit.
    assert!(h.is_legal(0, &Action::knock(card("KS"))));
    assert_eq!(
        h.apply(0, &Action::knock(card("2C"))),
        Err(Gin7Error::Illegal(RuleError::DeadwoodTooHigh { deadwood: 27, limit: 10 }))
    );
    assert_eq!(h.legal().knocks, hand("KS JH"));
    let melds = |s: &[&str]| Some(s.iter().map(|m| m.parse::<Meld>().unwrap()).collect::<Vec<_>>());
    // Named melds that leave too much: only the 9s laid down.
    let a = Action::Knock { discard: card("KS"), melds: melds(&["9D 9H 9S"]) };
    assert_eq!(
        h.apply(0, &a),
        Err(Gin7Error::Illegal(RuleError::DeadwoodTooHigh { deadwood: 19, limit: 10 }))
    );
    // Melds with a card not in the hand, or the discard.
    let a = Action::Knock { discard: card("KS"), melds: melds(&["9D 9H 9S 9C"]) };
    assert!(matches!(h.apply(0, &a), Err(Gin7Error::Illegal(RuleError::BadMelds(_)))));
    assert_eq!(h, before, "refused: unchanged");
    let a = Action::Knock { discard: card("KS"), melds: melds(&["9D 9H 9S", "2C 3C 4C"]) };
    h.apply(0, &a).unwrap();
    let r = h.result().unwrap();
    assert_eq!(r.seats[0].deadwood, 10);
    assert_eq!(h.cards(0).len(), 7);
    assert_eq!(h.apply(0, &Action::DrawStock), Err(Gin7Error::NotYourTurn { to_act: None }));
}

/// A turn: draw from the stock or the pile, then discard or knock; the card taken from the
/// pile may not be discarded in the same turn; no upcard offer, no big gin; turns pass left.
#[test]
fn a_turn_and_its_refusals() {
    let mut h = Gin7Hand::deal(&rules(5), 11, 0, 4).unwrap();
    let up = h.upcard();
    assert_eq!(h.legal_actions(), vec![Action::DrawStock, Action::DrawPile]);
    assert!(h.legal().seat.is_none() && !h.legal().pass && !h.legal().big_gin);
    let before = h.clone();
    assert_eq!(h.apply(1, &Action::DrawStock), Err(Gin7Error::NotYourTurn { to_act: Some(0) }));
    assert!(matches!(h.apply(0, &Action::Pass), Err(Gin7Error::WrongPhase { phase: Gin7Phase::Draw, .. })));
    assert_eq!(h.apply(0, &Action::BigGin { melds: None }), Err(Gin7Error::Illegal(RuleError::NoBigGin)));
    assert!(matches!(h.apply(0, &Action::knock(up)), Err(Gin7Error::WrongPhase { .. })));
    assert_eq!(h, before);
    assert_eq!(h.apply(0, &Action::DrawPile), Ok(Gin7Event::Drew { seat: 0, card: up, from_stock: false }));
    assert_eq!((h.taken_from_pile(), h.known_cards(0)), (Some(up), CardSet::single(up)));
    assert_eq!(h.apply(0, &Action::Discard { card: up }), Err(Gin7Error::Illegal(RuleError::JustTaken(up))));
    assert!(!h.legal().discards.contains(up));
    assert!(h.pile().is_empty());
    let other = h.cards(0).without(up).first().unwrap();
    h.apply(0, &Action::Discard { card: other }).unwrap();
    assert_eq!((h.to_act(), h.phase(), h.known_cards(0)), (Some(1), Gin7Phase::Draw, CardSet::single(up)));
    // A card drawn from the stock may be discarded at once.
    let Gin7Event::Drew { card: c, .. } = h.apply(1, &Action::DrawStock).unwrap() else { panic!() };
    h.apply(1, &Action::Discard { card: c }).unwrap();
    assert_eq!(h.pile(), &[other, c]);
    // Seat 4 is followed by seat 0.
    for s in 2..=4 {
        h.apply(s, &Action::DrawStock).unwrap();
        let d = h.cards(s).first().unwrap();
        h.apply(s, &Action::Discard { card: d }).unwrap();
    }
    assert_eq!(h.to_act(), Some(0));
}

/// The dead hand: without turns of the pile (`reshuffles = 0`, the two-player rule), a
/// discard leaving two cards in the stock ends the hand, nobody scores.
#[test]
fn dead_hand_at_two_cards_of_stock() {
    for players in 3..=6u8 {
        let r = Gin7Rules { reshuffles: 0, ..rules(players) };
        let mut h = Gin7Hand::deal(&r, 3, 0, 0).unwrap();
        let mut last = None;
        let mut discards = 0;
        while let Some(s) = h.to_act() {
            let Gin7Event::Drew { card, .. } = h.apply(s, &Action::DrawStock).unwrap() else { panic!() };
            last = Some(h.apply(s, &Action::Discard { card }).unwrap());
            discards += 1;
        }
        assert!(matches!(last, Some(Gin7Event::DeadHand { .. })));
        assert_eq!((h.stock_len(), discards), (2, r.stock_at_deal() - 2));
        assert_eq!((h.pile().len(), h.pile_turns()), (discards + 1, 0));
        let res = h.result().unwrap();
        assert_eq!((res.end, res.winner, res.knocker), (Gin7EndKind::Dead, None, None));
        assert!(res.seats.iter().all(|s| s.points == 0 && s.penalty == 0));
    }
}

/// The pile turned (`reshuffles`): at six, from the deck in its fresh order (dealer 5: seat 0
/// holds AC 8C 2D 9D 3H TH 4S…, the upcard is 4S, the stock 5S to KS), every seat draws the
/// stock's top and discards it; seat 0 takes the upcard first, then throws it back. The
/// discard that leaves 2 cards in the stock turns the pile but that discard under them,
/// shuffled; after the last turn allowed, the same discard kills the hand.
#[test]
fn the_pile_is_turned_under_the_stock_then_the_hand_dies() {
    let fresh = Deck::from_cards(&Card::all().collect::<Vec<_>>()).unwrap();
    let play = |reshuffles: u32| {
        let r = Gin7Rules { reshuffles, ..rules(6) };
        let mut h = Gin7Hand::deal_from(&r, 77, 4, 5, fresh).unwrap();
        assert_eq!((h.upcard(), h.stock_len()), (card("4S"), 9));
        assert_eq!(h.stock()[0], card("5S"));
        // Seat 0 takes 4S (known), discards AC; seats 1 to 5 draw 5S to 9S and discard them.
        h.apply(0, &Action::DrawPile).unwrap();
        h.apply(0, &Action::Discard { card: card("AC") }).unwrap();
        assert_eq!(h.known_cards(0), hand("4S"));
        for s in 1..=5 {
            let Gin7Event::Drew { card, .. } = h.apply(s, &Action::DrawStock).unwrap() else { panic!() };
            h.apply(s, &Action::Discard { card }).unwrap();
        }
        // Seat 0 draws TS and throws 4S back; seat 1 draws JS and discards it: 2 cards left.
        h.apply(0, &Action::DrawStock).unwrap();
        h.apply(0, &Action::Discard { card: card("4S") }).unwrap();
        assert_eq!(h.known_cards(0), CardSet::EMPTY);
        h.apply(1, &Action::DrawStock).unwrap();
        let before = h.clone();
        let event = h.apply(1, &Action::Discard { card: card("JS") }).unwrap();
        (before, h, event)
    };

    // reshuffles = 0: today's dead hand, the stock at 2, the pile as it lies.
    let (_, h, event) = play(0);
    assert_eq!(event, Gin7Event::DeadHand { seat: 1, card: card("JS") });
    assert_eq!((h.is_over(), h.result().unwrap().end, h.pile_turns()), (true, Gin7EndKind::Dead, 0));
    assert_eq!(h.stock(), &[card("QS"), card("KS")]);
    assert_eq!(h.pile(), &["AC", "5S", "6S", "7S", "8S", "9S", "4S", "JS"].map(card));

    // reshuffles = 1: the same discard turns the pile.
    let (before, mut h, event) = play(1);
    assert_eq!(before.stock(), &[card("QS"), card("KS")]);
    assert_eq!(event, Gin7Event::PileTurned { seat: 1, card: card("JS"), turn: 1 });
    assert_eq!((h.pile_turns(), h.phase(), h.to_act()), (1, Gin7Phase::Draw, Some(2)));
    // The top stays; the cards left in the stock stay on top; under them, exactly the old
    // pile but its top, in another order.
    let turned = hand("AC 5S 6S 7S 8S 9S 4S");
    assert_eq!(h.pile(), &[card("JS")]);
    assert_eq!(h.stock_len(), 2 + 7);
    assert_eq!(&h.stock()[..2], &[card("QS"), card("KS")]);
    let under: CardSet = h.stock()[2..].iter().copied().collect();
    assert_eq!((under, under.len()), (turned, 7));
    assert_ne!(h.stock()[2..], ["AC", "5S", "6S", "7S", "8S", "9S", "4S"].map(card));
    conserved(&h);
    // The turned cards are hidden again: nobody has seen them, not even those who held them
    // (seat 0 held 4S and AC); the new top is seen by all.
    for s in 0..6 {
        assert!(h.seen_by(s).is_disjoint(turned), "seat {s}");
        assert!(h.seen_by(s).contains(card("JS")));
        assert_eq!(h.known_cards(s), CardSet::EMPTY);
    }
    assert!(before.seen_by(3).contains(card("4S")) && before.seen_by(0).contains(card("AC")));
    // The same seed and hand number turn the pile the same way; another hand number not.
    assert_eq!(play(1).1, h);
    let other = {
        let r = Gin7Rules { reshuffles: 1, ..rules(6) };
        let mut g = Gin7Hand::deal_from(&r, 77, 5, 5, fresh).unwrap();
        for (s, a) in replay_actions(&before) {
            g.apply(s, &a).unwrap();
        }
        g.apply(1, &Action::Discard { card: card("JS") }).unwrap();
        g
    };
    assert_eq!(other.pile(), h.pile());
    assert_ne!(other.stock(), h.stock());

    // Seats 2 and 3 draw QS and KS, seat 4 the first turned card: it alone has seen it.
    for s in 2..=3 {
        h.apply(s, &Action::DrawStock).unwrap();
        let top = h.cards(s).iter().find(|c| !fresh.cards()[..42].contains(c)).unwrap();
        h.apply(s, &Action::Discard { card: top }).unwrap();
    }
    let first = h.stock()[0];
    assert_eq!(
        h.apply(4, &Action::DrawStock).unwrap(),
        Gin7Event::Drew { seat: 4, card: first, from_stock: true }
    );
    assert!(h.seen_by(4).contains(first));
    assert!((0..6).filter(|&s| s != 4).all(|s| !h.seen_by(s).contains(first)));
    h.apply(4, &Action::Discard { card: first }).unwrap();
    // Play on, drawing and discarding, until the stock is at 2 again: no turn left, dead.
    let mut last = None;
    while let Some(s) = h.to_act() {
        let Gin7Event::Drew { card, .. } = h.apply(s, &Action::DrawStock).unwrap() else { panic!() };
        last = Some(h.apply(s, &Action::Discard { card }).unwrap());
        conserved(&h);
    }
    assert!(matches!(last, Some(Gin7Event::DeadHand { .. })));
    assert_eq!((h.stock_len(), h.pile_turns(), h.pile().len()), (2, 1, 8));
    let res = h.result().unwrap();
    assert_eq!((res.end, res.winner), (Gin7EndKind::Dead, None));
    conserved(&h);
}

/// The actions that led to `h` from its deal, for the scripted hand above (all draws from the
/// stock but seat 0's first, each discard named by the pile).
fn replay_actions(h: &Gin7Hand) -> Vec<(u8, Action)> {
    let mut out = vec![(0, Action::DrawPile)];
    for (i, &c) in h.pile().iter().enumerate() {
        if i > 0 {
            out.push((i as u8 % 6, Action::DrawStock));
        }
        out.push((i as u8 % 6, Action::Discard { card: c }));
    }
    out.push((1, Action::DrawStock));
    out
}

/// Each impossible combination is refused, naming the field.
#[test]
fn impossible_rules_are_refused_with_a_clear_error() {
    let err = |r: Gin7Rules| r.check().unwrap_err().to_string();
    assert!(err(Gin7Rules { players: 2, ..Gin7Rules::default() }).contains("players: 2 (3 to 6"));
    assert!(err(Gin7Rules { players: 7, ..Gin7Rules::default() }).contains("players: 7"));
    let e = err(Gin7Rules { players: 6, hand_size: 9, ..Gin7Rules::default() });
    assert!(e.contains("6 players × 9 cards need 58 cards") && e.contains("the deck has 52"), "{e}");
    let e = err(Gin7Rules { players: 3, hand_size: 17, ..Gin7Rules::default() });
    assert!(e.contains("3 players × 17 cards need 55 cards"), "{e}");
    // 3 × 16 + upcard + 2 + 1 = 52: just fits; with a dead stock of 3 it does not.
    assert!(Gin7Rules { players: 3, hand_size: 16, ..Gin7Rules::default() }.check().is_ok());
    assert!(
        err(Gin7Rules { players: 3, hand_size: 16, dead_stock: 3, ..Gin7Rules::default() })
            .contains("53 cards")
    );
    assert!(err(Gin7Rules { hand_size: 2, ..Gin7Rules::default() }).contains("hand_size: 2"));
    assert!(err(Gin7Rules { knock_limit: 101, ..Gin7Rules::default() }).contains("knock_limit: 101"));
    assert!(err(Gin7Rules { end: Gin7End::Points(0), ..Gin7Rules::default() }).contains("end: a target"));
    assert!(
        err(Gin7Rules { end: Gin7End::Hands(0), ..Gin7Rules::default() }).contains("end: at least one hand")
    );
    assert!(Gin7Hand::deal(&rules(3), 0, 0, 3).unwrap_err().to_string().contains("dealer: seat 3"));
    assert!(Gin7Game::new(Gin7Setup { first_dealer: Some(4), ..Gin7Setup::new(rules(4), 0) }).is_err());
    // Serde: defaults, the end like rummy's, unknown fields refused.
    let r: Gin7Rules = serde_json::from_str(r#"{"players":5,"end":{"hands":4}}"#).unwrap();
    assert_eq!(r, Gin7Rules { players: 5, end: Gin7End::Hands(4), ..Gin7Rules::default() });
    assert_eq!(serde_json::to_value(Gin7End::Points(100)).unwrap(), serde_json::json!({"points": 100}));
    assert!(serde_json::from_str::<Gin7Rules>(r#"{"playerz":5}"#).is_err());
    let d = Gin7Rules::default();
    assert_eq!(
        (d.players, d.hand_size, d.knock_limit, d.gin_points, d.knock_points, d.defence_points),
        (4, 7, 10, 20, 10, 10)
    );
    assert_eq!((d.layoffs, d.dead_stock, d.reshuffles, d.end), (true, 2, 1, Gin7End::Points(100)));
}

/// The game: the deal passes left after every hand (dead ones too), to a number of hands or
/// a target of won points; the winners by net.
#[test]
fn a_game_to_a_number_of_hands_or_a_target() {
    let mut rng = SplitMix(3);
    for players in 3..=6u8 {
        let r = Gin7Rules { end: Gin7End::Hands(7), ..rules(players) };
        let mut g = Gin7Game::new(Gin7Setup::new(r, 40 + players as u64)).unwrap();
        let first = ((40 + players as u64) % players as u64) as u8;
        play_game(&mut g, &mut rng);
        assert_eq!(g.hands().len(), 7);
        for (i, h) in g.hands().iter().enumerate() {
            assert_eq!(h.dealer, (first + i as u8) % players);
            assert_eq!(h.number, i as u32);
            assert_eq!(h.result, replay_hand(&g, i));
        }
        check_winners(&g);
        // To a target: the game ends after the first hand in which some points reach it.
        let r = Gin7Rules { end: Gin7End::Points(25), ..rules(players) };
        let mut g = Gin7Game::new(Gin7Setup::new(r, players as u64)).unwrap();
        play_game(&mut g, &mut rng);
        let reached = |h: &engine::gin7::Gin7HandSummary| h.points.iter().any(|&p| p >= 25);
        let (last, before) = g.hands().split_last().unwrap();
        assert!(reached(last) && !before.iter().any(reached));
        check_winners(&g);
    }
}

/// Replays hand `i` of a finished game from its deck and the actions of that hand.
fn replay_hand(g: &Gin7Game, i: usize) -> Gin7HandResult {
    let h = &g.hands()[i];
    let mut hand = Gin7Hand::deal(g.rules(), g.setup().seed, i as u64, h.dealer).unwrap();
    let mut n = 0;
    let all = g.actions();
    let mut actions = all.iter();
    while n < i {
        // Skip the earlier hands' actions: count hands ending.
        let mut probe = Gin7Hand::deal(g.rules(), g.setup().seed, n as u64, g.hands()[n].dealer).unwrap();
        while !probe.is_over() {
            let (s, a) = actions.next().unwrap();
            probe.apply(*s, a).unwrap();
        }
        n += 1;
    }
    while !hand.is_over() {
        let (s, a) = actions.next().unwrap();
        hand.apply(*s, a).unwrap();
    }
    hand.result().unwrap().clone()
}

fn check_winners(g: &Gin7Game) {
    assert!(g.is_over());
    let net = g.net();
    let best = *net.iter().max().unwrap();
    let w: Vec<u8> = (0..g.rules().players).filter(|&s| net[s as usize] == best).collect();
    assert_eq!(g.winners(), w);
    let last = g.hands().last().unwrap();
    for (s, &v) in net.iter().enumerate() {
        assert_eq!(v, g.points()[s] as i64 - g.penalties()[s] as i64);
        assert_eq!((last.points[s], last.penalties[s]), (g.points()[s], g.penalties()[s]));
    }
}

struct SplitMix(u64);
impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u32) -> u32 {
        ((self.next() as u128 * n as u128) >> 64) as u32
    }
}

fn play_game(g: &mut Gin7Game, rng: &mut SplitMix) {
    while let Some(s) = g.to_act() {
        let l = g.hand().legal();
        let a = l.nth(rng.below(l.count())).unwrap();
        g.apply(s, &a).unwrap();
    }
}

/// Every card once: the hands, the pile, the stock and the knocker's face-down discard.
fn conserved(h: &Gin7Hand) {
    let mut all = CardSet::EMPTY;
    let mut n = 0;
    let mut add = |c: CardSet| {
        assert!(all.is_disjoint(c), "a card in two places");
        all |= c;
        n += c.len();
    };
    for s in 0..h.players() {
        add(h.cards(s));
    }
    add(h.pile().iter().copied().collect());
    add(h.stock().iter().copied().collect());
    if let Some(d) = h.result().and_then(|r| r.discard) {
        add(CardSet::single(d));
    }
    assert_eq!((n, all), (52, CardSet::FULL));
}

/// The stock stays hidden: no seat has seen a card in it (the cards turned back into it with
/// the pile are unseen again), and the cards known in a hand are in it.
fn hidden(h: &Gin7Hand) {
    let stock: CardSet = h.stock().iter().copied().collect();
    for s in 0..h.players() {
        assert!(h.seen_by(s).is_disjoint(stock), "seat {s} has seen a card of the stock");
        assert!(h.known_cards(s) - h.cards(s) == CardSet::EMPTY);
    }
}

/// The result follows the scoring rules, recomputed from its deadwoods, and each seat's melds,
/// layoffs and deadwood account for its cards.
fn check_scores(h: &Gin7Hand) {
    let rules = h.rules();
    let r = h.result().unwrap();
    let n = rules.players;
    assert_eq!(r.seats.len(), n as usize);
    if matches!(r.end, Gin7EndKind::Dead | Gin7EndKind::TurnLimit) {
        assert!(r.knocker.is_none() && r.winner.is_none() && r.discard.is_none());
        // The limit ends a hand that would go on; a hand whose last allowed turn also
        // empties the stock ends dead on its own, as it would without the limit.
        if r.end == Gin7EndKind::TurnLimit {
            assert_eq!(r.turns, rules.max_turns_per_hand);
        } else {
            assert!(r.turns <= rules.max_turns_per_hand, "{} turns", r.turns);
        }
        assert!(r.seats.iter().all(|s| (s.points, s.penalty, s.deadwood) == (0, 0, 0)));
        return;
    }
    let k = r.knocker.unwrap();
    let kd = r.seats[k as usize].deadwood;
    assert!(kd <= rules.knock_limit);
    let knocker_melds = r.knocker_melds().to_vec();
    for s in 0..n {
        let sr = &r.seats[s as usize];
        let cards = h.cards(s);
        let laid: CardSet = sr.layoffs.iter().map(|l| l.card).collect();
        let melded: CardSet = sr.arrangement.melds().iter().fold(CardSet::EMPTY, |a, m| a | m.cards());
        assert_eq!(melded | laid | sr.arrangement.deadwood_cards(), cards);
        assert_eq!(sr.deadwood, sr.arrangement.deadwood());
        assert_eq!(sr.deadwood, sr.arrangement.deadwood_cards().iter().map(|c| c.value()).sum::<u32>());
        if s == k || r.end == Gin7EndKind::Gin || !rules.layoffs {
            assert!(sr.layoffs.is_empty());
            assert_eq!(sr.deadwood, deadwood(cards), "seat {s}");
        } else {
            // Layoffs onto the knocker's melds only, each a legal extension, and the best.
            for (i, m) in knocker_melds.iter().enumerate() {
                let on: CardSet = sr.layoffs.iter().filter(|l| l.meld == i).map(|l| l.card).collect();
                assert!(on.is_empty() || m.extended(on).is_some(), "{on} onto {m}");
            }
            assert_eq!(sr.deadwood, best_defense(cards, &knocker_melds).deadwood());
            assert!(sr.deadwood <= deadwood(cards));
        }
    }
    let order: Vec<u8> = (1..n).map(|i| (k + i) % n).collect();
    let d = |s: u8| r.seats[s as usize].deadwood;
    let (winner, won, base) = if kd == 0 {
        (k, rules.gin_points, 0)
    } else {
        let low = order.iter().copied().min_by_key(|&s| d(s)).unwrap();
        if d(low) <= kd { (low, rules.defence_points, d(low)) } else { (k, rules.knock_points, kd) }
    };
    let end = match (kd == 0, winner == k) {
        (true, _) => Gin7EndKind::Gin,
        (false, true) => Gin7EndKind::Knock,
        (false, false) => Gin7EndKind::Defence,
    };
    assert_eq!((r.end, r.winner), (end, Some(winner)));
    for s in 0..n {
        let sr = &r.seats[s as usize];
        if s == winner {
            assert_eq!((sr.points, sr.penalty), (won, 0));
        } else {
            assert_eq!((sr.points, sr.penalty), (0, d(s) - base), "seat {s}");
        }
    }
}

/// Every action a player could try at this point of `h`.
fn every_action() -> Vec<Action> {
    let mut all = vec![Action::DrawStock, Action::DrawPile, Action::Pass, Action::BigGin { melds: None }];
    for c in Card::all() {
        all.push(Action::Discard { card: c });
        all.push(Action::knock(c));
    }
    all
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Uniformly random legal play to the end of a hand: the cards are conserved; the legal
    /// set is exactly what `apply` accepts; `count`/`nth` agree with `legal_actions`; a replay
    /// gives the same hand; the score follows the rules.
    #[test]
    fn random_hands_keep_every_rule(
        seed in any::<u64>(),
        players in 3u8..=6,
        layoffs: bool,
        limit in 0u32..=20,
        reshuffles in 0u32..=4,
    ) {
        let r = Gin7Rules { layoffs, knock_limit: limit, reshuffles, ..rules(players) };
        let dealer = (seed % players as u64) as u8;
        let mut h = Gin7Hand::deal(&r, seed, 0, dealer).unwrap();
        let start = h.clone();
        let mut rng = SplitMix(seed);
        let mut played = Vec::new();
        let all = every_action();
        conserved(&h);
        while let Some(seat) = h.to_act() {
            let l = h.legal();
            let legal = h.legal_actions();
            prop_assert_eq!(l.count() as usize, legal.len());
            for (i, a) in legal.iter().enumerate() {
                prop_assert_eq!(l.nth(i as u32), Some(a.clone()));
            }
            prop_assert_eq!(l.nth(l.count()), None);
            for a in &all {
                let mut c = h.clone();
                let ok = c.apply(seat, a).is_ok();
                prop_assert_eq!(ok, legal.contains(a), "{:?}", a);
                prop_assert_eq!(ok, h.is_legal(seat, a));
                if !ok {
                    prop_assert_eq!(&c, &h);
                }
                for other in (0..8).filter(|&s| s != seat) {
                    let mut c = h.clone();
                    prop_assert!(c.apply(other, a).is_err() && !h.is_legal(other, a));
                    prop_assert_eq!(&c, &h);
                }
            }
            for other in (0..8).filter(|&s| s != seat) {
                let mut c = h.clone();
                prop_assert_eq!(c.apply(other, &legal[0]), Err(Gin7Error::NotYourTurn { to_act: Some(seat) }));
                prop_assert_eq!(&c, &h);
            }
            let a = legal[rng.below(legal.len() as u32) as usize].clone();
            let turns = h.pile_turns();
            let event = h.apply(seat, &a).unwrap();
            played.push((seat, a));
            conserved(&h);
            hidden(&h);
            let turned = matches!(event, Gin7Event::PileTurned { turn, .. } if turn == turns + 1);
            prop_assert_eq!(h.pile_turns(), turns + turned as u32);
            prop_assert!(h.pile_turns() <= reshuffles);
            if turned {
                prop_assert_eq!(h.pile().len(), 1);
                prop_assert!(h.stock_len() > r.dead_stock as usize);
            }
        }
        check_scores(&h);
        let mut again = start;
        for (s, a) in &played {
            again.apply(*s, a).unwrap();
        }
        prop_assert_eq!(&again, &h);
    }

    /// Whole games: the deal passes left, the totals are the sums of the hands.
    #[test]
    fn random_games_add_up(seed in any::<u64>(), players in 3u8..=6, hands in 1u32..6, reshuffles in 0u32..=4) {
        let r = Gin7Rules { end: Gin7End::Hands(hands), knock_limit: 10, reshuffles, ..rules(players) };
        let mut g = Gin7Game::new(Gin7Setup::new(r, seed)).unwrap();
        play_game(&mut g, &mut SplitMix(seed));
        prop_assert_eq!(g.hands().len() as u32, hands);
        let mut p = vec![0u32; players as usize];
        let mut q = vec![0u32; players as usize];
        for (i, h) in g.hands().iter().enumerate() {
            prop_assert_eq!(h.dealer, ((seed % players as u64) as u8 + i as u8) % players);
            for (s, sr) in h.result.seats.iter().enumerate() {
                p[s] += sr.points;
                q[s] += sr.penalty;
            }
            prop_assert_eq!(&h.points, &p);
            prop_assert_eq!(&h.penalties, &q);
        }
        check_winners(&g);
    }
}

/// Random play reaches every kind of end at every table size (so the properties above see
/// knocks, defences and gins, not only dead hands).
#[test]
fn random_play_reaches_every_end() {
    for players in 3..=6u8 {
        let mut ends = [0u32; 4];
        for seed in 0..40_000u64 {
            if ends.iter().all(|&n| n > 0) {
                break;
            }
            let mut h = Gin7Hand::deal(&rules(players), seed, 0, (seed % players as u64) as u8).unwrap();
            let mut rng = SplitMix(seed);
            while let Some(s) = h.to_act() {
                let l = h.legal();
                h.apply(s, &l.nth(rng.below(l.count())).unwrap()).unwrap();
            }
            check_scores(&h);
            ends[h.result().unwrap().end as usize] += 1;
        }
        assert!(ends.iter().all(|&n| n > 0), "{players} players: dead, knock, defence, gin = {ends:?}");
    }
}

/// A game's setup and its hand summaries go through JSON and back unchanged (for records and
/// replay reports), and replaying the setup with the actions gives the same game.
#[test]
fn setup_and_results_round_trip_and_replay() {
    let r = Gin7Rules { end: Gin7End::Hands(3), ..rules(4) };
    let setup =
        Gin7Setup { decks: vec![Deck::shuffled(99, 7)], first_dealer: Some(2), ..Gin7Setup::new(r, 5) };
    let json = serde_json::to_string(&setup).unwrap();
    assert_eq!(serde_json::from_str::<Gin7Setup>(&json).unwrap(), setup);
    let mut g = Gin7Game::new(setup.clone()).unwrap();
    assert_eq!((g.hand().dealer(), *g.hand().deck()), (2, Deck::shuffled(99, 7)));
    play_game(&mut g, &mut SplitMix(8));
    for h in g.hands() {
        let j = serde_json::to_string(h).unwrap();
        assert_eq!(&serde_json::from_str::<engine::gin7::Gin7HandSummary>(&j).unwrap(), h);
    }
    let mut again = Gin7Game::new(setup).unwrap();
    for (s, a) in &g.actions() {
        again.apply(*s, a).unwrap();
    }
    assert_eq!(again, g);
}

/// With `reshuffles = 0` the hands are exactly those of before the rule: random play over
/// 3 to 6 players and many seeds, each hand's actions and result folded into a fingerprint
/// pinned from the engine before the field existed.
#[test]
fn no_turn_of_the_pile_plays_exactly_as_before() {
    let mut fp = 0xcbf2_9ce4_8422_2325u64;
    let mut fold = |x: u64| {
        for b in x.to_le_bytes() {
            fp = (fp ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    };
    let mut dead = 0;
    for players in 3..=6u8 {
        let r = Gin7Rules { reshuffles: 0, ..rules(players) };
        for seed in 0..300u64 {
            let mut h = Gin7Hand::deal(&r, seed, seed % 5, (seed % players as u64) as u8).unwrap();
            let mut rng = SplitMix(seed ^ 0xF00D);
            let mut n = 0u64;
            while let Some(s) = h.to_act() {
                let l = h.legal();
                let a = l.nth(rng.below(l.count())).unwrap();
                h.apply(s, &a).unwrap();
                n += 1;
            }
            let res = h.result().unwrap();
            dead += (res.end == Gin7EndKind::Dead) as u32;
            fold(n);
            fold(res.end as u64);
            fold(h.stock_len() as u64);
            fold(res.knocker.map_or(99, |k| k as u64));
            for s in &res.seats {
                fold(s.points as u64 | (s.penalty as u64) << 16 | (s.deadwood as u64) << 32);
            }
            for c in h.pile() {
                fold(c.to_string().bytes().fold(0, |a, b| a << 8 | b as u64));
            }
        }
    }
    assert_eq!((dead, fp), (1138, 4_844_564_496_537_420_031));
}
