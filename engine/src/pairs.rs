//! Gin for three players, rotating, and for four in two teams (seed 000). Every hand is a
//! two-player gin [`Hand`] under the game's [`RuleSet`]; these games seat the persons at it,
//! rotate them, and keep the score per person or per team.
//!
//! - **Three players** ([`ThreePlayerGame`]): « Le donneur distribue aux deux autres joueurs,
//!   mais pas à soi-même » — the dealer deals to the other two and sits the hand out; « Le
//!   perdant de chaque manche devient le donneur » — the loser deals next; « C'est alors le
//!   tour du gagnant et du donneur de la partie précédente » — the winner then plays the
//!   previous dealer. After a dead hand the same dealer deals again to the same two (as in
//!   two-player gin). The person at the dealer's left (seat `dealer + 1` mod 3) is the hand's
//!   non-dealer: it plays first (and has the upcard offer first, under rules with one).
//! - **Four players in teams** ([`TeamGame`]): persons 0 and 2 are team 0, persons 1 and 3
//!   team 1. A round is two hands at two tables at once: in even rounds 0 plays 1 and 2
//!   plays 3, in odd rounds 0 plays 3 and 2 plays 1 (partners change opponents from round to
//!   round). At both tables the dealer is of team `(first + round) % 2`. When both hands are
//!   over, the round is scored: both winners of one team, the team scores the sum; one
//!   winner each, the team whose winner scored more gets the difference (equal: nobody); one
//!   dead hand, the other table's winner scores its points for its team.
//!
//! Both games end after the hand (round) in which a person's (team's) score reaches the
//! target; the rule set's game bonus, box bonus (per hand won by a person, per round scored
//! by a team) and shutout then apply per person (team), the shutout when no other person
//! (team) won a hand (round), and for [`Shutout::DoubleHandPoints`] no hand (round) was dead.
//! Stages are for two players only: `stages` must be 1.

use serde::{Deserialize, Serialize};

use crate::deal::{ChaCha8, Deck};
use crate::game::GameEnd;
use crate::hand::{Action, Event, Hand, HandResult, RuleError};
use crate::rules::{RuleSet, RuleSetError, Shutout};
use crate::seat::Seat;

/// How a three-player or team game is set up: with its actions, everything to replay it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PairSetup {
    /// The two-player rules every hand is played under.
    pub rules: RuleSet,
    /// The seed: hand `n` of the game (counting every table's hands in order: round `r`'s
    /// tables are hands `2r` and `2r + 1` in a team game) is dealt from
    /// `Deck::shuffled(seed, n)` unless `decks` gives it.
    pub seed: u64,
    /// Explicit decks for the first hands, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decks: Vec<Deck>,
    /// The first dealer: a person (0..3) for three players, a team (0 or 1) for teams;
    /// `None`: drawn from the seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_dealer: Option<u8>,
}

impl PairSetup {
    /// A seeded game under `rules`.
    pub fn new(rules: RuleSet, seed: u64) -> PairSetup {
        PairSetup { rules, seed, decks: Vec::new(), first_dealer: None }
    }

    /// The deck hand `n` is dealt from (see [`PairSetup::seed`]).
    pub fn deck(&self, n: u32) -> Deck {
        self.decks.get(n as usize).copied().unwrap_or_else(|| Deck::shuffled(self.seed, n as u64))
    }

    fn check(&self, first_dealers: u8, what: &str) -> Result<(), PairError> {
        self.rules.validate().map_err(PairError::Rules)?;
        if self.rules.stages != 1 {
            return Err(PairError::Rules(RuleSetError {
                field: "stages".into(),
                message: format!("must be 1: games in stages are for two players, not {what}"),
            }));
        }
        if let Some(d) = self.first_dealer.filter(|&d| d >= first_dealers) {
            return Err(PairError::Setup(format!(
                "first_dealer {d} does not exist in {what}: it is 0..{}",
                first_dealers - 1
            )));
        }
        Ok(())
    }

    fn first(&self, n: u8) -> u8 {
        self.first_dealer.unwrap_or_else(|| ChaCha8::new(self.seed, u64::MAX).below(n as u32) as u8)
    }
}

/// Why a game could not start or an action was refused (the game is then unchanged).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PairError {
    /// The rules are invalid for this format.
    Rules(RuleSetError),
    /// The setup is invalid (a first dealer that does not exist).
    Setup(String),
    /// The game is over.
    GameOver,
    /// No such person.
    NoSuchPlayer(u8),
    /// The person sits this hand out (three players: the dealer).
    SitsOut(u8),
    /// The person's hand is over; the round goes on at the other table (teams).
    Waiting(u8),
    /// Another person is to act at this person's table.
    NotYourTurn {
        /// Who is to act there.
        to_act: u8,
    },
    /// The hand refused the action.
    Rule(RuleError),
}

impl std::fmt::Display for PairError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PairError::Rules(e) => e.fmt(f),
            PairError::Setup(m) => f.write_str(m),
            PairError::GameOver => f.write_str("the game is over"),
            PairError::NoSuchPlayer(p) => write!(f, "seat {p} does not exist at this table"),
            PairError::SitsOut(p) => write!(f, "seat {p} deals and sits this hand out"),
            PairError::Waiting(p) => {
                write!(f, "seat {p}'s hand is over: the round goes on at the other table")
            }
            PairError::NotYourTurn { to_act } => write!(f, "not your turn: seat {to_act} is to act"),
            PairError::Rule(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for PairError {}

/// What one accepted action did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairStep {
    /// The table it was played at (always 0 for three players).
    pub table: u8,
    /// The hand-level event, in the hand's seats (see the game's `players`).
    pub event: Event,
    /// The action ended that table's hand.
    pub hand_over: bool,
    /// The action ended a round (three players: the hand) and the next one is dealt, unless
    /// the game is over.
    pub round_over: bool,
    /// The action ended the game.
    pub game_over: bool,
}

/// One finished hand at one table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairHand {
    /// The hand's number in the game (its deck's index).
    pub number: u32,
    /// The round (three players: equal to `number`).
    pub round: u32,
    /// The table (0 for three players).
    pub table: u8,
    /// The person at each hand seat: `players[0]` is the non-dealer (plays first),
    /// `players[1]` the dealer (three players: the dealer sits out; see `sitter`).
    pub players: [u8; 2],
    /// Three players: who dealt and sat out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sitter: Option<u8>,
    /// The hand's result, in hand seats.
    pub result: HandResult,
}

impl PairHand {
    /// The person who won the hand, if any.
    pub fn winner(&self) -> Option<u8> {
        self.result.winner.map(|s| self.players[s.index()])
    }
}

/// The final bonuses and totals of a game of several sides (persons or teams).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideTotals {
    /// The side whose score reached the target (`None`: the game's hand limit ended it).
    pub reached_target: Option<u8>,
    /// Hand points per side.
    pub hand_points: Vec<u32>,
    /// Hands (team: rounds) won per side.
    pub hands_won: Vec<u32>,
    /// Hands (rounds) in which nobody scored.
    pub dead_hands: u32,
    /// Game bonus per side.
    pub game_bonus: Vec<u32>,
    /// Box bonus per side.
    pub box_bonus: Vec<u32>,
    /// Shutout points per side.
    pub shutout_bonus: Vec<u32>,
    /// Final totals per side.
    pub totals: Vec<u32>,
    /// The side with the highest total (`None` when two share it).
    pub winner: Option<u8>,
    /// The winner's lead over the next side (0 on a tie).
    pub margin: u32,
    /// How the game ended.
    #[serde(default, skip_serializing_if = "GameEnd::is_normal")]
    pub end: GameEnd,
}

/// Closes a game of `scores.len()` sides: `w` reached the target (`None`: the hand limit
/// ended the game; no game bonus nor shutout then, the box bonuses as usual).
fn close(
    rules: &RuleSet,
    w: Option<usize>,
    scores: &[u32],
    hands_won: &[u32],
    dead_hands: u32,
) -> SideTotals {
    let n = scores.len();
    let mut game_bonus = vec![0; n];
    let mut shutout_bonus = vec![0; n];
    if let Some(w) = w {
        bonuses(rules, w, scores, hands_won, dead_hands, &mut game_bonus, &mut shutout_bonus);
    }
    let box_bonus: Vec<u32> = hands_won.iter().map(|h| h * rules.box_bonus).collect();
    let totals: Vec<u32> =
        (0..n).map(|s| scores[s] + game_bonus[s] + box_bonus[s] + shutout_bonus[s]).collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&s| std::cmp::Reverse(totals[s]));
    let margin = totals[order[0]] - totals[order[1]];
    SideTotals {
        reached_target: w.map(|w| w as u8),
        hand_points: scores.to_vec(),
        hands_won: hands_won.to_vec(),
        dead_hands,
        game_bonus,
        box_bonus,
        shutout_bonus,
        winner: (margin > 0).then_some(order[0] as u8),
        margin,
        totals,
        end: if w.is_some() { GameEnd::Normal } else { GameEnd::HandLimit },
    }
}

/// The game bonus and the shutout of side `w`, which reached the target.
fn bonuses(
    rules: &RuleSet,
    w: usize,
    scores: &[u32],
    hands_won: &[u32],
    dead_hands: u32,
    game_bonus: &mut [u32],
    shutout_bonus: &mut [u32],
) {
    let n = scores.len();
    let others = (0..n).filter(|&s| s != w);
    let others_won_none = others.clone().all(|s| hands_won[s] == 0);
    game_bonus[w] = rules.game_bonus;
    match rules.shutout {
        Shutout::None => {}
        Shutout::DoubleHandPoints => {
            if others_won_none && dead_hands == 0 {
                shutout_bonus[w] = scores[w];
            }
        }
        Shutout::ReplaceGameBonus => {
            if others.clone().all(|s| scores[s] == 0) {
                game_bonus[w] = rules.shutout_bonus;
            }
        }
        Shutout::ExtraBonus => {
            if others_won_none {
                shutout_bonus[w] = rules.shutout_bonus;
            }
        }
    }
}

/// Applies `action` by person `p` at a table whose hand seats hold `players`.
fn play(hand: &mut Hand, players: [u8; 2], p: u8, action: &Action) -> Result<Event, PairError> {
    let seat = Seat::new(players.iter().position(|&x| x == p).expect("p plays at this table") as u8)
        .expect("two seats");
    match hand.phase().to_act() {
        Some(s) if s != seat => return Err(PairError::NotYourTurn { to_act: players[s.index()] }),
        _ => {}
    }
    hand.apply(seat, action).map_err(PairError::Rule)
}

/// Gin for three: the dealer sits out, the loser deals next (seed 000).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreePlayerGame {
    setup: PairSetup,
    hand: Hand,
    sitter: u8,
    players: [u8; 2],
    number: u32,
    scores: [u32; 3],
    hands: Vec<PairHand>,
    actions: Vec<(u8, Action)>,
    result: Option<SideTotals>,
}

impl ThreePlayerGame {
    /// Starts a game: checks the rules and deals the first hand.
    pub fn new(setup: PairSetup) -> Result<ThreePlayerGame, PairError> {
        setup.check(3, "a three-player game")?;
        let sitter = setup.first(3);
        let players = [(sitter + 1) % 3, (sitter + 2) % 3];
        let hand = Hand::new(&setup.rules, setup.deck(0), Seat::S1);
        Ok(ThreePlayerGame {
            setup,
            hand,
            sitter,
            players,
            number: 0,
            scores: [0; 3],
            hands: Vec::new(),
            actions: Vec::new(),
            result: None,
        })
    }

    /// The setup.
    pub fn setup(&self) -> &PairSetup {
        &self.setup
    }

    /// The hand in play (the last one once the game is over).
    pub fn hand(&self) -> &Hand {
        &self.hand
    }

    /// The dealer of the hand in play, who sits it out.
    pub fn sitter(&self) -> u8 {
        self.sitter
    }

    /// The person at each seat of the hand in play (`[non-dealer, other]`).
    pub fn players(&self) -> [u8; 2] {
        self.players
    }

    /// The hand seat of person `p` in the hand in play (`None`: sits out).
    pub fn seat_of(&self, p: u8) -> Option<Seat> {
        self.players.iter().position(|&x| x == p).map(|i| Seat::new(i as u8).expect("two seats"))
    }

    /// The number of the hand in play.
    pub fn hand_number(&self) -> u32 {
        self.number
    }

    /// Each person's hand points so far.
    pub fn scores(&self) -> [u32; 3] {
        self.scores
    }

    /// The finished hands.
    pub fn hands(&self) -> &[PairHand] {
        &self.hands
    }

    /// Every accepted action, by person.
    pub fn actions(&self) -> &[(u8, Action)] {
        &self.actions
    }

    /// The result, once over.
    pub fn result(&self) -> Option<&SideTotals> {
        self.result.as_ref()
    }

    /// True once over.
    pub fn is_over(&self) -> bool {
        self.result.is_some()
    }

    /// The person to act.
    pub fn to_act(&self) -> Option<u8> {
        if self.is_over() { None } else { self.hand.phase().to_act().map(|s| self.players[s.index()]) }
    }

    /// Applies `action` by person `p`. On `Err` nothing changed.
    pub fn apply(&mut self, p: u8, action: &Action) -> Result<PairStep, PairError> {
        if self.is_over() {
            return Err(PairError::GameOver);
        }
        if p >= 3 {
            return Err(PairError::NoSuchPlayer(p));
        }
        if p == self.sitter {
            return Err(PairError::SitsOut(p));
        }
        let event = play(&mut self.hand, self.players, p, action)?;
        self.actions.push((p, action.clone()));
        let mut step = PairStep { table: 0, event, hand_over: false, round_over: false, game_over: false };
        if self.hand.is_over() {
            step.hand_over = true;
            step.round_over = true;
            step.game_over = self.finish_hand();
        }
        Ok(step)
    }

    fn finish_hand(&mut self) -> bool {
        let result = self.hand.result().expect("over").clone();
        let summary = PairHand {
            number: self.number,
            round: self.number,
            table: 0,
            players: self.players,
            sitter: Some(self.sitter),
            result,
        };
        let winner = summary.winner();
        if let Some(w) = winner {
            self.scores[w as usize] += summary.result.points;
        }
        self.hands.push(summary);
        let reached = winner.filter(|&w| self.setup.rules.reaches_target(self.scores[w as usize]));
        if reached.is_some() || self.hands.len() as u32 >= self.setup.rules.max_hands_per_game {
            let mut won = [0u32; 3];
            let mut dead = 0;
            for h in &self.hands {
                match h.winner() {
                    Some(x) => won[x as usize] += 1,
                    None => dead += 1,
                }
            }
            let w = reached.map(usize::from);
            self.result = Some(close(&self.setup.rules, w, &self.scores, &won, dead));
            return true;
        }
        if let Some(w) = winner {
            let loser = self.players[0] + self.players[1] - w;
            self.sitter = loser;
            self.players = [(loser + 1) % 3, (loser + 2) % 3];
        }
        self.number += 1;
        self.hand = Hand::new(&self.setup.rules, self.setup.deck(self.number), Seat::S1);
        false
    }
}

/// The person's team in a team game: persons 0 and 2 are team 0, 1 and 3 team 1.
pub const fn team_of(p: u8) -> u8 {
    p % 2
}

/// One scored round of a team game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamRound {
    /// The round's number.
    pub round: u32,
    /// Points each team scored in the round (at most one is not 0).
    pub points: [u32; 2],
    /// Each team's score after the round.
    pub scores: [u32; 2],
}

/// Gin for four in two teams: two tables at once, partners change opponents (seed 000).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TeamGame {
    setup: PairSetup,
    first: u8,
    round: u32,
    tables: [Hand; 2],
    scores: [u32; 2],
    hands: Vec<PairHand>,
    rounds: Vec<TeamRound>,
    actions: Vec<(u8, Action)>,
    result: Option<SideTotals>,
}

impl TeamGame {
    /// Starts a game: checks the rules and deals the first round.
    pub fn new(setup: PairSetup) -> Result<TeamGame, PairError> {
        setup.check(2, "a team game (first_dealer names a team)")?;
        let first = setup.first(2);
        let tables = [
            Hand::new(&setup.rules, setup.deck(0), Seat::S1),
            Hand::new(&setup.rules, setup.deck(1), Seat::S1),
        ];
        Ok(TeamGame {
            setup,
            first,
            round: 0,
            tables,
            scores: [0; 2],
            hands: Vec::new(),
            rounds: Vec::new(),
            actions: Vec::new(),
            result: None,
        })
    }

    /// The setup.
    pub fn setup(&self) -> &PairSetup {
        &self.setup
    }

    /// The round in play.
    pub fn round(&self) -> u32 {
        self.round
    }

    /// The two tables' hands of the round in play.
    pub fn tables(&self) -> &[Hand; 2] {
        &self.tables
    }

    /// The persons at table `t` in round `round`, by hand seat (`[non-dealer, dealer]`).
    pub fn players_in(&self, round: u32, t: u8) -> [u8; 2] {
        let a = 2 * t;
        let b = if round.is_multiple_of(2) { a + 1 } else { (a + 3) % 4 };
        let dealer_team = ((self.first as u32 + round) % 2) as u8;
        if team_of(a) == dealer_team { [b, a] } else { [a, b] }
    }

    /// The persons at table `t` in the round in play.
    pub fn players(&self, t: u8) -> [u8; 2] {
        self.players_in(self.round, t)
    }

    /// Person `p`'s table and hand seat in the round in play.
    pub fn place_of(&self, p: u8) -> Option<(u8, Seat)> {
        (0..2u8).find_map(|t| {
            let ps = self.players(t);
            ps.iter().position(|&x| x == p).map(|i| (t, Seat::new(i as u8).expect("two seats")))
        })
    }

    /// Each team's score so far.
    pub fn scores(&self) -> [u32; 2] {
        self.scores
    }

    /// Every finished hand, both tables, in the order they ended.
    pub fn hands(&self) -> &[PairHand] {
        &self.hands
    }

    /// The scored rounds.
    pub fn rounds(&self) -> &[TeamRound] {
        &self.rounds
    }

    /// Every accepted action, by person.
    pub fn actions(&self) -> &[(u8, Action)] {
        &self.actions
    }

    /// The result (per team), once over.
    pub fn result(&self) -> Option<&SideTotals> {
        self.result.as_ref()
    }

    /// True once over.
    pub fn is_over(&self) -> bool {
        self.result.is_some()
    }

    /// The persons who may act now: one per table whose hand is not over.
    pub fn to_act(&self) -> Vec<u8> {
        if self.is_over() {
            return Vec::new();
        }
        (0..2u8)
            .filter_map(|t| self.tables[t as usize].phase().to_act().map(|s| self.players(t)[s.index()]))
            .collect()
    }

    /// Applies `action` by person `p`. On `Err` nothing changed.
    pub fn apply(&mut self, p: u8, action: &Action) -> Result<PairStep, PairError> {
        if self.is_over() {
            return Err(PairError::GameOver);
        }
        let (t, _) = self.place_of(p).ok_or(PairError::NoSuchPlayer(p))?;
        let players = self.players(t);
        let hand = &mut self.tables[t as usize];
        if hand.is_over() {
            return Err(PairError::Waiting(p));
        }
        let event = play(hand, players, p, action)?;
        self.actions.push((p, action.clone()));
        let mut step = PairStep { table: t, event, hand_over: false, round_over: false, game_over: false };
        if hand.is_over() {
            step.hand_over = true;
            self.hands.push(PairHand {
                number: 2 * self.round + t as u32,
                round: self.round,
                table: t,
                players,
                sitter: None,
                result: hand.result().expect("over").clone(),
            });
            if self.tables.iter().all(Hand::is_over) {
                step.round_over = true;
                step.game_over = self.finish_round();
            }
        }
        Ok(step)
    }

    /// Scores a round's two hands: (team, points) won by each table's winner.
    pub fn round_points(wins: [Option<(u8, u32)>; 2]) -> [u32; 2] {
        let mut out = [0; 2];
        match wins {
            [Some((a, pa)), Some((b, pb))] if team_of(a) == team_of(b) => out[team_of(a) as usize] = pa + pb,
            [Some((a, pa)), Some((b, pb))] => match pa.cmp(&pb) {
                std::cmp::Ordering::Greater => out[team_of(a) as usize] = pa - pb,
                std::cmp::Ordering::Less => out[team_of(b) as usize] = pb - pa,
                std::cmp::Ordering::Equal => {}
            },
            [Some((a, pa)), None] | [None, Some((a, pa))] => out[team_of(a) as usize] = pa,
            [None, None] => {}
        }
        out
    }

    fn finish_round(&mut self) -> bool {
        let r = self.round;
        let wins = [0u8, 1].map(|t| {
            let h =
                self.hands.iter().rev().find(|h| h.round == r && h.table == t).expect("both tables are over");
            h.winner().map(|w| (w, h.result.points))
        });
        let points = Self::round_points(wins);
        for (score, p) in self.scores.iter_mut().zip(points) {
            *score += p;
        }
        self.rounds.push(TeamRound { round: r, points, scores: self.scores });
        let reached = (0..2).find(|&t| points[t] > 0 && self.setup.rules.reaches_target(self.scores[t]));
        if reached.is_some() || self.hands.len() as u32 >= self.setup.rules.max_hands_per_game {
            let mut won = [0u32; 2];
            let mut dead = 0;
            for rd in &self.rounds {
                match (0..2).find(|&t| rd.points[t] > 0) {
                    Some(t) => won[t] += 1,
                    None => dead += 1,
                }
            }
            self.result = Some(close(&self.setup.rules, reached, &self.scores, &won, dead));
            return true;
        }
        self.round += 1;
        let n = 2 * self.round;
        self.tables = [
            Hand::new(&self.setup.rules, self.setup.deck(n), Seat::S1),
            Hand::new(&self.setup.rules, self.setup.deck(n + 1), Seat::S1),
        ];
        false
    }
}
