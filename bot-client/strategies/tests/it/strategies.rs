//! The built-in strategies play only legal actions, under every preset and the competition
//! rules; self-play's duplicate pairs deal the same cards with seats swapped; self-play is
//! reproducible and its statistics add up.

use engine::{Game, GameSetup, RuleSet, Seat};
use gin_strategies::local::play_game;
use gin_strategies::selfplay::SelfPlay;
use gin_strategies::simple::SimpleStrategy;
use gin_strategies::strategy::by_name;
use gin_strategies::{Choice, Decision, Strategy};
use proptest::prelude::*;

fn competition() -> RuleSet {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/rules/competition.toml")).unwrap();
    RuleSet::parse_any(&text).unwrap()
}

fn rules(i: usize) -> RuleSet {
    if i == engine::PRESETS.len() { competition() } else { RuleSet::preset(engine::PRESETS[i]).unwrap() }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// `play_game` refuses (returns Err naming the strategy) any illegal action, so a whole
    /// game to its end means every action was legal.
    #[test]
    fn random_and_simple_play_only_legal_actions(seed in any::<u64>(), r in 0..=engine::PRESETS.len(), pair in 0..3usize) {
        let (a, b) = [("random", "random"), ("simple", "random"), ("simple", "simple")][pair];
        let mut x = by_name(a, seed).unwrap();
        let mut y = by_name(b, !seed).unwrap();
        let game = play_game(GameSetup::new(rules(r), seed), [x.as_mut(), y.as_mut()]);
        prop_assert!(game.is_ok(), "{}", game.err().unwrap());
        prop_assert!(game.unwrap().is_over());
    }
}

/// Records every decision it is asked, and answers like `simple`.
struct Spy {
    inner: SimpleStrategy,
    seen: Vec<(Seat, Choice, u32, engine::CardSet)>,
}

impl Strategy for Spy {
    fn name(&self) -> &str {
        "spy"
    }
    fn act(&mut self, d: &Decision<'_>) -> engine::Action {
        self.seen.push((d.seat, d.choice(), d.memory.hand_number, d.hand));
        self.inner.act(d)
    }
}

#[test]
fn a_strategy_sees_only_its_own_seat() {
    let setup = GameSetup::new(RuleSet::standard(), 11);
    let mut a = Spy { inner: SimpleStrategy::new(1), seen: Vec::new() };
    let mut b = Spy { inner: SimpleStrategy::new(2), seen: Vec::new() };
    let game = play_game(setup.clone(), [&mut a, &mut b]).unwrap();
    assert!(a.seen.iter().all(|s| s.0 == Seat::S0) && b.seen.iter().all(|s| s.0 == Seat::S1));
    // Replaying the game, each decision's hand is exactly that seat's cards at that point.
    let mut g = Game::new(setup).unwrap();
    let (mut ia, mut ib) = (0, 0);
    for (seat, action) in game.actions() {
        let seen = if *seat == Seat::S0 { &a.seen[ia] } else { &b.seen[ib] };
        assert_eq!(seen.3, g.hand().cards(*seat));
        assert_eq!(seen.2, g.hand_number());
        if *seat == Seat::S0 {
            ia += 1
        } else {
            ib += 1
        }
        g.apply(*seat, action).unwrap();
    }
    assert_eq!((ia, ib), (a.seen.len(), b.seen.len()));
}

/// Records, at each hand's first decision, the opponent's showdowns its memory holds.
struct ShowdownSpy {
    inner: SimpleStrategy,
    at_hand: Vec<(u32, Vec<gin_strategies::OppShowdown>, u32)>,
}

impl Strategy for ShowdownSpy {
    fn name(&self) -> &str {
        "showdown-spy"
    }
    fn act(&mut self, d: &Decision<'_>) -> engine::Action {
        let m = d.memory;
        if self.at_hand.last().is_none_or(|h| h.0 != m.hand_number) {
            self.at_hand.push((m.hand_number, m.opp_showdowns.clone(), m.hands_ended));
        }
        self.inner.act(d)
    }
}

#[test]
fn each_seat_remembers_the_opponents_showdowns_of_the_game() {
    let setup = GameSetup::new(competition(), 5);
    let mut a = ShowdownSpy { inner: SimpleStrategy::new(1), at_hand: Vec::new() };
    let mut b = ShowdownSpy { inner: SimpleStrategy::new(2), at_hand: Vec::new() };
    let game = play_game(setup, [&mut a, &mut b]).unwrap();
    assert!(game.hands().len() >= 3, "a game of several hands");
    let (mut knocks, mut defences) = (0, 0);
    for (spy, seat) in [(&a, Seat::S0), (&b, Seat::S1)] {
        for (number, shown, ended) in &spy.at_hand {
            // What the showdowns of the hands before this one showed of the other seat: its
            // knock's deadwood, or the least deadwood of its ten cards when it defended.
            let before = &game.hands()[..*number as usize];
            let want: Vec<(bool, u32)> = before
                .iter()
                .filter_map(|h| h.result.showdown.as_ref())
                .map(|s| {
                    let mut held = s.defender_arrangement.cards();
                    for l in &s.layoffs {
                        held.insert(l.card);
                    }
                    if s.knocker != seat {
                        (true, s.knocker_deadwood)
                    } else {
                        (false, engine::deadwood(held))
                    }
                })
                .collect();
            let got: Vec<(bool, u32)> = shown.iter().map(|s| (s.knocked, s.deadwood)).collect();
            assert_eq!(got, want, "hand {number}");
            assert!(shown.iter().all(|s| s.limit == 10));
            assert_eq!(*ended, *number);
            knocks += got.iter().filter(|s| s.0).count();
            defences += got.iter().filter(|s| !s.0).count();
        }
    }
    assert!(knocks > 0 && defences > 0, "knocks and defences were seen");
}

#[test]
fn simple_takes_melding_upcards_and_knocks_at_once() {
    // Over many games: every pile draw by simple joined a meld, and whenever a knock was
    // legal, simple knocked.
    for seed in 0..40 {
        let mut a = SimpleStrategy::new(seed);
        let mut b = SimpleStrategy::new(seed + 1000);
        let game = play_game(GameSetup::new(RuleSet::standard(), seed), [&mut a, &mut b]).unwrap();
        let mut g = Game::new(game.setup().clone()).unwrap();
        for (seat, action) in game.actions() {
            let h = g.hand();
            let legal = h.legal();
            match action {
                engine::Action::DrawPile => {
                    let top = *h.pile().last().unwrap();
                    assert!(
                        gin_strategies::simple::melds_with(h.cards(*seat), top),
                        "seed {seed}: took {top} for nothing"
                    );
                }
                engine::Action::Discard { .. } => {
                    assert!(legal.knocks.is_empty(), "seed {seed}: could knock")
                }
                _ => {}
            }
            g.apply(*seat, action).unwrap();
        }
    }
}

#[test]
fn duplicate_pairs_deal_the_same_cards_with_seats_swapped() {
    let sp = SelfPlay {
        a: "simple".into(),
        b: "random".into(),
        games: 20,
        rules: RuleSet::standard(),
        seed: 3,
        duplicate: true,
        threads: 2,
        timing: false,
    };
    for u in 0..10 {
        let games = sp.unit_games(u);
        assert_eq!(games.len(), 2);
        let ((s0, a0), (s1, a1)) = (&games[0], &games[1]);
        assert_eq!((*a0, *a1), (Seat::S0, Seat::S1));
        let (g0, g1) = (Game::new(s0.clone()).unwrap(), Game::new(s1.clone()).unwrap());
        // Same first deal and dealer: A's cards in the first game are B's in the second.
        assert_eq!(g0.hand().deck(), g1.hand().deck());
        assert_eq!(g0.hand().dealer(), g1.hand().dealer());
        assert_eq!(g0.hand().cards(*a0), g1.hand().cards(a1.other()));
    }
    assert_ne!(sp.unit_games(0)[0].0.seed, sp.unit_games(1)[0].0.seed);
    // Not duplicate: A's seat alternates.
    let single = SelfPlay { duplicate: false, ..sp.clone() };
    assert_eq!(single.unit_games(0)[0].1, Seat::S0);
    assert_eq!(single.unit_games(1)[0].1, Seat::S1);
}

#[test]
fn selfplay_reproduces_and_adds_up() {
    let sp = SelfPlay {
        a: "simple".into(),
        b: "random".into(),
        games: 60,
        rules: RuleSet::standard(),
        seed: 9,
        duplicate: true,
        threads: 2,
        timing: true,
    };
    let r1 = sp.run(&|_, _| {}).unwrap();
    let r2 = SelfPlay { threads: 1, ..sp.clone() }.run(&|_, _| {}).unwrap();
    assert_eq!(r1.games, 60);
    assert_eq!(r1.a.wins + r1.b.wins + r1.draws, 60);
    // Same seed, any number of threads: the same match.
    assert_eq!(
        (r1.a.wins, r1.a.points, r1.b.points, r1.hands),
        (r2.a.wins, r2.a.points, r2.b.points, r2.hands)
    );
    assert!(r1.a.wins > 50, "simple beats random: {}", r1.text());
    let e = r1.elo.unwrap();
    assert!(e.low <= e.elo && e.elo <= e.high && e.elo > 200.0, "{e:?}");
    assert!(r1.a.decisions > 0 && r1.a.think_ns > 0);
    assert!(r1.a.max_think_ns > 0 && r1.a.max_think_ns <= r1.a.think_ns);
    assert!(r1.text().contains("slowest decision: A "), "{}", r1.text());
    // The JSON form carries the same numbers.
    let v = serde_json::to_value(&r1).unwrap();
    assert_eq!(v["a"]["wins"], r1.a.wins);
    // Unknown names and bad rules are clear errors.
    let bad = SelfPlay { a: "nope".into(), ..sp.clone() }.run(&|_, _| {}).unwrap_err();
    assert!(bad.to_string().contains("unknown strategy \"nope\""), "{bad}");
}
