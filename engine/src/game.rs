//! A whole game: hands to the target with dealer rotation, stages, and the final bonuses.

use serde::{Deserialize, Serialize};

use crate::deal::{Deck, first_dealer};
use crate::hand::{Action, Event, Hand, HandResult, RuleError};
use crate::rules::{RuleSet, RuleSetError, Shutout};
use crate::seat::{BySeat, Seat};

/// How a game is set up: everything needed, with its actions, to replay it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameSetup {
    /// The rules.
    pub rules: RuleSet,
    /// The seed: hand `n` is dealt from `Deck::shuffled(seed, n)` unless `decks` gives it.
    pub seed: u64,
    /// Explicit decks for the first hands, in order (the rest come from the seed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decks: Vec<Deck>,
    /// The first dealer; `None`: drawn from the seed ([`first_dealer`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_dealer: Option<Seat>,
}

impl GameSetup {
    /// A seeded game under `rules`.
    pub fn new(rules: RuleSet, seed: u64) -> GameSetup {
        GameSetup { rules, seed, decks: Vec::new(), first_dealer: None }
    }
}

/// One finished hand of a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandSummary {
    /// Stage index (0 for a one-stage game).
    pub stage: u32,
    /// Hand number in the game (0-based; dead hands count).
    pub number: u32,
    /// Who dealt.
    pub dealer: Seat,
    /// The result.
    pub result: HandResult,
    /// Each seat's stage score (hand points) after this hand.
    pub scores: BySeat<u32>,
}

/// How a game ended, in every format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameEnd {
    /// The format's own end: a target reached (in the last stage), or the format's number
    /// of hands played.
    #[default]
    Normal,
    /// The game played its rules' `max_hands_per_game` hands first and ended where it
    /// stood: the totals decide it, the format's own bonuses included (no game bonus: nobody
    /// reached the target).
    HandLimit,
}

impl GameEnd {
    /// True for [`GameEnd::Normal`] (a result serializes without `end` then, as before).
    pub fn is_normal(&self) -> bool {
        *self == GameEnd::Normal
    }
}

/// The bonuses and totals of one stage (the whole game when it has one stage).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StageResult {
    /// The seat that reached the target (`None`: the stage was closed by the game's hand
    /// limit, [`GameEnd::HandLimit`]).
    pub reached_target: Option<Seat>,
    /// Hand points scored in the stage.
    pub hand_points: BySeat<u32>,
    /// Hands won in the stage.
    pub hands_won: BySeat<u32>,
    /// How many hands of the stage were dead.
    pub dead_hands: u32,
    /// Game (stage) bonus.
    pub game_bonus: BySeat<u32>,
    /// Box (line) bonus: hands won × the box bonus.
    pub box_bonus: BySeat<u32>,
    /// Shutout: the extra points it gave (doubled hand points, or the extra bonus).
    pub shutout_bonus: BySeat<u32>,
    /// The stage's total per seat.
    pub total: BySeat<u32>,
}

/// The end of a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameResult {
    /// Every stage's breakdown (one for a plain game).
    pub stages: Vec<StageResult>,
    /// Final totals, all bonuses included.
    pub totals: BySeat<u32>,
    /// The higher total (`None` on equal totals).
    pub winner: Option<Seat>,
    /// The difference of the totals.
    pub margin: u32,
    /// How the game ended.
    #[serde(default, skip_serializing_if = "GameEnd::is_normal")]
    pub end: GameEnd,
}

/// What one accepted action did to the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// The hand-level event.
    pub event: Event,
    /// The action ended a hand (see [`Game::hands`]); unless the game is over, the next
    /// hand is already dealt.
    pub hand_over: bool,
    /// The action ended the game (see [`Game::result`]).
    pub game_over: bool,
}

/// Why a game could not be set up or an action refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameError {
    /// The rules are invalid.
    Rules(RuleSetError),
    /// The game is over.
    GameOver,
    /// The hand refused the action.
    Rule(RuleError),
}

impl std::fmt::Display for GameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GameError::Rules(e) => e.fmt(f),
            GameError::GameOver => f.write_str("the game is over"),
            GameError::Rule(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for GameError {}

/// A game in play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    setup: GameSetup,
    hand: Hand,
    hand_number: u32,
    stage: u32,
    scores: BySeat<u32>,
    hands: Vec<HandSummary>,
    stages: Vec<StageResult>,
    actions: Vec<(Seat, Action)>,
    result: Option<GameResult>,
}

impl Game {
    /// Starts a game: validates the rules and deals the first hand.
    pub fn new(setup: GameSetup) -> Result<Game, GameError> {
        setup.rules.validate().map_err(GameError::Rules)?;
        let dealer = setup
            .first_dealer
            .unwrap_or_else(|| Seat::new(first_dealer(setup.seed)).expect("first_dealer returns 0 or 1"));
        let hand = Hand::new(&setup.rules, deck_for(&setup, 0), dealer);
        Ok(Game {
            setup,
            hand,
            hand_number: 0,
            stage: 0,
            scores: BySeat::default(),
            hands: Vec::new(),
            stages: Vec::new(),
            actions: Vec::new(),
            result: None,
        })
    }

    /// The setup.
    pub fn setup(&self) -> &GameSetup {
        &self.setup
    }

    /// The rules.
    pub fn rules(&self) -> &RuleSet {
        &self.setup.rules
    }

    /// The current hand (the last one, once the game is over).
    pub fn hand(&self) -> &Hand {
        &self.hand
    }

    /// Number of the current hand (0-based, dead hands count).
    pub fn hand_number(&self) -> u32 {
        self.hand_number
    }

    /// Index of the current stage.
    pub fn stage(&self) -> u32 {
        self.stage
    }

    /// Hand points of each seat in the current stage.
    pub fn scores(&self) -> BySeat<u32> {
        self.scores
    }

    /// Finished hands.
    pub fn hands(&self) -> &[HandSummary] {
        &self.hands
    }

    /// Finished stages.
    pub fn stages(&self) -> &[StageResult] {
        &self.stages
    }

    /// Every action accepted so far.
    pub fn actions(&self) -> &[(Seat, Action)] {
        &self.actions
    }

    /// The result, once the game is over.
    pub fn result(&self) -> Option<&GameResult> {
        self.result.as_ref()
    }

    /// True once the game is over.
    pub fn is_over(&self) -> bool {
        self.result.is_some()
    }

    /// The seat to act, if any.
    pub fn to_act(&self) -> Option<Seat> {
        if self.is_over() { None } else { self.hand.phase().to_act() }
    }

    /// Applies `action` by `seat`. On `Err` nothing changed.
    pub fn apply(&mut self, seat: Seat, action: &Action) -> Result<Step, GameError> {
        if self.is_over() {
            return Err(GameError::GameOver);
        }
        let event = self.hand.apply(seat, action).map_err(GameError::Rule)?;
        self.actions.push((seat, action.clone()));
        let mut step = Step { event, hand_over: false, game_over: false };
        if self.hand.is_over() {
            step.hand_over = true;
            step.game_over = self.finish_hand();
        }
        Ok(step)
    }

    /// Books the finished hand; deals the next or ends the game. Returns true at game over.
    fn finish_hand(&mut self) -> bool {
        let result = self.hand.result().expect("hand is over").clone();
        let dealer = self.hand.dealer();
        if let Some(w) = result.winner {
            self.scores[w] += result.points;
        }
        self.hands.push(HandSummary {
            stage: self.stage,
            number: self.hand_number,
            dealer,
            result: result.clone(),
            scores: self.scores,
        });
        let rules = &self.setup.rules;
        if let Some(w) = result.winner.filter(|&w| rules.reaches_target(self.scores[w])) {
            let stage = self.close_stage(Some(w));
            self.stages.push(stage);
            self.stage += 1;
            self.scores = BySeat::default();
            if self.stage >= rules.stages {
                self.result = Some(self.final_result());
                return true;
            }
        }
        if self.hands.len() as u32 >= rules.max_hands_per_game {
            // The hand limit: the stage in play closes where it stands, nobody having
            // reached its target.
            let stage = self.close_stage(None);
            self.stages.push(stage);
            self.result = Some(GameResult { end: GameEnd::HandLimit, ..self.final_result() });
            return true;
        }
        let next_dealer = if result.end.is_dead() { dealer } else { dealer.other() };
        self.hand_number += 1;
        self.hand = Hand::new(&self.setup.rules, deck_for(&self.setup, self.hand_number), next_dealer);
        false
    }

    /// Closes the stage in play: `w` reached its target (`None`: the hand limit closed it;
    /// no game bonus nor shutout then, the box bonuses as usual).
    fn close_stage(&self, w: Option<Seat>) -> StageResult {
        let rules = &self.setup.rules;
        let mut hands_won = BySeat::<u32>::default();
        let mut dead_hands = 0;
        for h in self.hands.iter().filter(|h| h.stage == self.stage) {
            match h.result.winner {
                Some(s) => hands_won[s] += 1,
                None => dead_hands += 1,
            }
        }
        let mut game_bonus = BySeat::<u32>::default();
        let mut shutout_bonus = BySeat::<u32>::default();
        if let Some(w) = w {
            let l = w.other();
            game_bonus[w] = rules.game_bonus;
            match rules.shutout {
                Shutout::None => {}
                Shutout::DoubleHandPoints => {
                    if hands_won[l] == 0 && dead_hands == 0 {
                        shutout_bonus[w] = self.scores[w];
                    }
                }
                Shutout::ReplaceGameBonus => {
                    if self.scores[l] == 0 {
                        game_bonus[w] = rules.shutout_bonus;
                    }
                }
                Shutout::ExtraBonus => {
                    if hands_won[l] == 0 {
                        shutout_bonus[w] = rules.shutout_bonus;
                    }
                }
            }
        }
        let box_bonus = hands_won.map(|n| n * rules.box_bonus);
        let mut total = BySeat::<u32>::default();
        for s in Seat::BOTH {
            total[s] = self.scores[s] + game_bonus[s] + box_bonus[s] + shutout_bonus[s];
        }
        StageResult {
            reached_target: w,
            hand_points: self.scores,
            hands_won,
            dead_hands,
            game_bonus,
            box_bonus,
            shutout_bonus,
            total,
        }
    }

    fn final_result(&self) -> GameResult {
        let mut totals = BySeat::<u32>::default();
        for st in &self.stages {
            for s in Seat::BOTH {
                totals[s] += st.total[s];
            }
        }
        let (a, b) = (totals[Seat::S0], totals[Seat::S1]);
        GameResult {
            stages: self.stages.clone(),
            totals,
            winner: match a.cmp(&b) {
                std::cmp::Ordering::Greater => Some(Seat::S0),
                std::cmp::Ordering::Less => Some(Seat::S1),
                std::cmp::Ordering::Equal => None,
            },
            margin: a.abs_diff(b),
            end: GameEnd::Normal,
        }
    }
}

fn deck_for(setup: &GameSetup, n: u32) -> Deck {
    setup.decks.get(n as usize).copied().unwrap_or_else(|| Deck::shuffled(setup.seed, n as u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cardset::CardSet;
    use crate::hand::EndKind;

    /// Plays a game where `policy` picks each action from the legal ones.
    fn play(rules: RuleSet, seed: u64, mut policy: impl FnMut(&Game) -> Action) -> Game {
        let mut g = Game::new(GameSetup::new(rules, seed)).unwrap();
        let mut n = 0;
        while !g.is_over() {
            let seat = g.to_act().unwrap();
            let a = policy(&g);
            g.apply(seat, &a).unwrap();
            n += 1;
            assert!(n < 1_000_000, "game does not end");
        }
        g
    }

    /// Knock as soon as possible, else draw from the stock and discard the highest card.
    fn eager(g: &Game) -> Action {
        let l = g.hand().legal();
        if let Some(c) = l.knocks.iter().next() {
            return Action::knock(c);
        }
        if l.big_gin {
            return Action::BigGin { melds: None };
        }
        if l.draw_stock {
            return Action::DrawStock;
        }
        if l.pass {
            return Action::Pass;
        }
        let seat = l.seat.unwrap();
        let b = crate::solver::best_discard(g.hand().cards(seat)).unwrap();
        if l.discards.contains(b.discard) {
            Action::Discard { card: b.discard }
        } else {
            Action::Discard { card: l.discards.first().unwrap() }
        }
    }

    #[test]
    fn totals_add_up_for_every_preset() {
        for name in crate::rules::PRESETS {
            let rules = RuleSet::preset(name).unwrap();
            for seed in 0..20 {
                let g = play(rules.clone(), seed, eager);
                let r = g.result().unwrap();
                assert_eq!(r.stages.len() as u32, rules.stages, "{name}");
                let hand_sum: BySeat<u32> = g.hands().iter().fold(BySeat::default(), |mut acc, h| {
                    if let Some(w) = h.result.winner {
                        acc[w] += h.result.points;
                    }
                    acc
                });
                let mut staged = BySeat::<u32>::default();
                for st in &r.stages {
                    let w = st.reached_target.unwrap();
                    assert!(rules.reaches_target(st.hand_points[w]), "{name}");
                    assert!(!rules.reaches_target(st.hand_points[w.other()]), "{name}");
                    for s in Seat::BOTH {
                        staged[s] += st.hand_points[s];
                        assert_eq!(st.box_bonus[s], st.hands_won[s] * rules.box_bonus);
                        assert_eq!(
                            st.total[s],
                            st.hand_points[s] + st.game_bonus[s] + st.box_bonus[s] + st.shutout_bonus[s]
                        );
                    }
                }
                assert_eq!(staged, hand_sum, "{name} seed {seed}");
                assert_eq!(r.margin, r.totals[Seat::S0].abs_diff(r.totals[Seat::S1]));
                // Dealer rotation: alternate, except the same dealer after a dead hand.
                for w in g.hands().windows(2) {
                    let want = if w[0].result.end.is_dead() { w[0].dealer } else { w[0].dealer.other() };
                    assert_eq!(w[1].dealer, want, "{name}");
                }
            }
        }
    }

    fn summary(stage: u32, winner: Option<Seat>, points: u32) -> HandSummary {
        HandSummary {
            stage,
            number: 0,
            dealer: Seat::S0,
            result: HandResult {
                end: if winner.is_some() { EndKind::Knock } else { EndKind::Dead },
                winner,
                points,
                doubled: false,
                showdown: None,
                turns: 0,
            },
            scores: BySeat::default(),
        }
    }

    fn game_with(rules: RuleSet, hands: Vec<HandSummary>, scores: [u32; 2]) -> Game {
        let mut g = Game::new(GameSetup::new(rules, 1)).unwrap();
        g.hands = hands;
        g.scores = BySeat(scores);
        g
    }

    #[test]
    fn standard_shutout_doubles_hand_points_unless_a_hand_was_dead() {
        let r = RuleSet::standard();
        let g = game_with(
            r.clone(),
            vec![summary(0, Some(Seat::S0), 60), summary(0, Some(Seat::S0), 45)],
            [105, 0],
        );
        let st = g.close_stage(Some(Seat::S0));
        assert_eq!(st.total, BySeat([105 * 2 + 100 + 2 * 25, 0]));
        let g = game_with(
            r,
            vec![summary(0, Some(Seat::S0), 60), summary(0, None, 0), summary(0, Some(Seat::S0), 45)],
            [105, 0],
        );
        assert_eq!(g.close_stage(Some(Seat::S0)).total, BySeat([105 + 100 + 50, 0]));
    }

    #[test]
    fn box_bonus_can_overturn_the_winner() {
        // Seed 004: the player who reached 100 can still lose on box bonuses.
        let r = RuleSet::standard();
        let mut hands: Vec<_> = (0..6).map(|_| summary(0, Some(Seat::S1), 15)).collect();
        hands.push(summary(0, Some(Seat::S0), 100));
        let mut g = game_with(r, hands, [100, 90]);
        let st = g.close_stage(Some(Seat::S0));
        assert_eq!(st.total, BySeat([100 + 100 + 25, 90 + 6 * 25]));
        g.stages.push(st);
        let res = g.final_result();
        assert_eq!(res.winner, Some(Seat::S1));
        assert_eq!(res.margin, 240 - 225);
    }

    #[test]
    fn wikihow_shutout_game_bonus_200() {
        let r = RuleSet::preset("wikihow").unwrap();
        let g = game_with(r.clone(), vec![summary(0, Some(Seat::S1), 100)], [0, 100]);
        assert_eq!(g.close_stage(Some(Seat::S1)).total, BySeat([0, 100 + 200 + 20]));
        let g = game_with(r, vec![summary(0, Some(Seat::S0), 5), summary(0, Some(Seat::S1), 100)], [5, 100]);
        assert_eq!(g.close_stage(Some(Seat::S1)).total, BySeat([5 + 20, 100 + 100 + 20]));
    }

    #[test]
    fn multistage_extra_bonus_per_stage() {
        let r = RuleSet::preset("multistage").unwrap();
        let g = game_with(r.clone(), vec![summary(0, Some(Seat::S0), 101)], [101, 0]);
        assert_eq!(g.close_stage(Some(Seat::S0)).total, BySeat([101 + 100 + 100 + 25, 0]));
        let g = game_with(r, vec![summary(0, Some(Seat::S1), 3), summary(0, Some(Seat::S0), 101)], [101, 3]);
        assert_eq!(g.close_stage(Some(Seat::S0)).total, BySeat([101 + 100 + 25, 3 + 25]));
    }

    #[test]
    fn classic_and_american_have_no_bonuses() {
        for name in ["classic", "american"] {
            let r = RuleSet::preset(name).unwrap();
            let g = game_with(r, vec![summary(0, Some(Seat::S0), 120)], [120, 0]);
            assert_eq!(g.close_stage(Some(Seat::S0)).total, BySeat([120, 0]), "{name}");
        }
    }

    #[test]
    fn oklahoma_spade_upcard_doubles() {
        let rules = RuleSet::preset("oklahoma").unwrap();
        let mut seen_double = false;
        for seed in 0..200 {
            let g = play(rules.clone(), seed, eager);
            for h in g.hands() {
                seen_double |= h.result.doubled;
                if h.result.doubled {
                    assert_eq!(h.result.points % 2, 0);
                }
            }
        }
        assert!(seen_double);
    }

    #[test]
    fn game_over_refuses_actions() {
        let mut g = play(RuleSet::preset("classic").unwrap(), 3, eager);
        let seat = g.hand().dealer();
        assert_eq!(g.apply(seat, &Action::DrawStock), Err(GameError::GameOver));
        // All 52 cards are accounted for in the last hand.
        let h = g.hand();
        let mut all = h.cards(Seat::S0) | h.cards(Seat::S1);
        all |= h.pile().iter().copied().collect::<CardSet>();
        all |= h.stock().iter().copied().collect::<CardSet>();
        if let Some(d) = h.result().and_then(|r| r.showdown.as_ref()).and_then(|s| s.discard) {
            all.insert(d);
        }
        assert_eq!(all, CardSet::FULL);
    }
}
