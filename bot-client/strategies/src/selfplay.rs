//! Fast local self-play: many games between two strategies on all cores, with duplicate
//! deals, and the match statistics.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use engine::{Action, EndKind, GameSetup, RuleSet, Seat};

use crate::local::{IllegalAction, play_game};
use crate::rng::derive;
use crate::stats::{EloEstimate, Tally};
use crate::strategy::{Decision, Strategy, UnknownStrategy, by_name};

/// What to play.
#[derive(Clone, Debug)]
pub struct SelfPlay {
    /// Strategy A's name.
    pub a: String,
    /// Strategy B's name.
    pub b: String,
    /// Games to play (with `duplicate`, rounded up to an even number: that many / 2 pairs).
    pub games: u64,
    /// The rules.
    pub rules: RuleSet,
    /// Master seed: every deal and every strategy's choices derive from it.
    pub seed: u64,
    /// Play every deal twice, seats swapped.
    pub duplicate: bool,
    /// Worker threads (0: one per core).
    pub threads: usize,
    /// Measure each decision's time.
    pub timing: bool,
}

/// One side's totals over a match.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SideStats {
    /// The strategy's name.
    pub strategy: String,
    /// Games won.
    pub wins: u64,
    /// Final points (all bonuses), summed over games.
    pub points: u64,
    /// Hands won.
    pub hands_won: u64,
    /// Hands won by gin or big gin.
    pub gins: u64,
    /// Hands won by undercutting the opponent's knock.
    pub undercuts: u64,
    /// Decisions made.
    pub decisions: u64,
    /// Time spent deciding (when measured).
    pub think_ns: u64,
    /// The slowest decision's time (when measured).
    pub max_think_ns: u64,
}

impl SideStats {
    /// Mean final points per game.
    pub fn points_per_game(&self, games: u64) -> f64 {
        if games == 0 { 0.0 } else { self.points as f64 / games as f64 }
    }

    /// Mean time per decision in microseconds (0 when not measured).
    pub fn micros_per_decision(&self) -> f64 {
        if self.decisions == 0 { 0.0 } else { self.think_ns as f64 / self.decisions as f64 / 1000.0 }
    }

    fn merge(&mut self, o: &SideStats) {
        self.wins += o.wins;
        self.points += o.points;
        self.hands_won += o.hands_won;
        self.gins += o.gins;
        self.undercuts += o.undercuts;
        self.decisions += o.decisions;
        self.think_ns += o.think_ns;
        self.max_think_ns = self.max_think_ns.max(o.max_think_ns);
    }
}

/// The outcome of a self-play match.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Report {
    /// The rules' name.
    pub rules: String,
    /// The master seed.
    pub seed: u64,
    /// Whether deals were played twice with seats swapped.
    pub duplicate: bool,
    /// Games played.
    pub games: u64,
    /// Hands played (dead hands included).
    pub hands: u64,
    /// Games with equal totals.
    pub draws: u64,
    /// The longest hand, in turns (draws), and the longest game, in hands: what the rules'
    /// `max_turns_per_hand` and `max_hands_per_game` must stay far above.
    pub longest_hand: u32,
    /// The longest game, in hands.
    pub longest_game: u32,
    /// Hands ended at the turn limit, and games at the hand limit.
    pub turn_limit_hands: u64,
    /// Games ended at the hand limit.
    pub hand_limit_games: u64,
    /// Strategy A.
    pub a: SideStats,
    /// Strategy B.
    pub b: SideStats,
    /// A's mean score (win 1, draw 0.5) over games.
    pub a_score: f64,
    /// A's Elo advantage over B with its 95% interval (over pairs when duplicate).
    pub elo: Option<EloEstimate>,
    /// Wall time in seconds.
    pub seconds: f64,
    /// Games per second.
    pub games_per_sec: f64,
    /// Worker threads used.
    pub threads: usize,
}

/// Why a match could not run.
#[derive(Debug)]
pub enum SelfPlayError {
    /// A strategy name is unknown.
    Unknown(UnknownStrategy),
    /// The rules are invalid.
    Rules(engine::RuleSetError),
    /// A strategy played an illegal action (a bug in it).
    Illegal(IllegalAction),
}

impl std::fmt::Display for SelfPlayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SelfPlayError::Unknown(e) => e.fmt(f),
            SelfPlayError::Rules(e) => write!(f, "invalid rules: {e}"),
            SelfPlayError::Illegal(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for SelfPlayError {}

/// Times each decision of the strategy it wraps.
struct Timed<'a> {
    inner: &'a mut dyn Strategy,
    ns: u64,
    max_ns: u64,
    decisions: u64,
    timing: bool,
}

impl Strategy for Timed<'_> {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn act(&mut self, d: &Decision<'_>) -> Action {
        self.decisions += 1;
        if !self.timing {
            return self.inner.act(d);
        }
        let t = Instant::now();
        let a = self.inner.act(d);
        let ns = t.elapsed().as_nanos() as u64;
        self.ns += ns;
        self.max_ns = self.max_ns.max(ns);
        a
    }
}

/// One unit of work: a game, or a duplicate pair.
struct Unit {
    index: u64,
    /// A's score over the unit's games (mean).
    score: f64,
    games: u64,
    hands: u64,
    draws: u64,
    longest_hand: u32,
    longest_game: u32,
    turn_limit_hands: u64,
    hand_limit_games: u64,
    a: SideStats,
    b: SideStats,
}

impl SelfPlay {
    /// Checks names and rules without playing.
    pub fn validate(&self) -> Result<(), SelfPlayError> {
        by_name(&self.a, 0).map_err(SelfPlayError::Unknown)?;
        by_name(&self.b, 0).map_err(SelfPlayError::Unknown)?;
        self.rules.validate().map_err(SelfPlayError::Rules)
    }

    /// Number of units (games, or pairs when duplicate).
    fn units(&self) -> u64 {
        if self.duplicate { self.games.div_ceil(2) } else { self.games }
    }

    /// The games of unit `u`: each game's setup and strategy A's seat. A duplicate unit is
    /// the same setup (same seed, so the same decks and first dealer) twice, A's seat
    /// swapped; single games alternate A's seat.
    pub fn unit_games(&self, u: u64) -> Vec<(GameSetup, Seat)> {
        let setup = GameSetup::new(self.rules.clone(), derive(self.seed, u));
        if self.duplicate {
            vec![(setup.clone(), Seat::S0), (setup, Seat::S1)]
        } else {
            vec![(setup, if u.is_multiple_of(2) { Seat::S0 } else { Seat::S1 })]
        }
    }

    /// Plays unit `u`.
    fn play_unit(&self, u: u64) -> Result<Unit, SelfPlayError> {
        let mut unit = Unit {
            index: u,
            score: 0.0,
            games: 0,
            hands: 0,
            draws: 0,
            longest_hand: 0,
            longest_game: 0,
            turn_limit_hands: 0,
            hand_limit_games: 0,
            a: SideStats::default(),
            b: SideStats::default(),
        };
        for (k, (setup, a_seat)) in self.unit_games(u).into_iter().enumerate() {
            let mut sa = by_name(&self.a, derive(self.seed ^ 0xA, u * 2 + k as u64))
                .map_err(SelfPlayError::Unknown)?;
            let mut sb = by_name(&self.b, derive(self.seed ^ 0xB, u * 2 + k as u64))
                .map_err(SelfPlayError::Unknown)?;
            let mut ta = Timed { inner: sa.as_mut(), ns: 0, max_ns: 0, decisions: 0, timing: self.timing };
            let mut tb = Timed { inner: sb.as_mut(), ns: 0, max_ns: 0, decisions: 0, timing: self.timing };
            let players: [&mut dyn Strategy; 2] =
                if a_seat == Seat::S0 { [&mut ta, &mut tb] } else { [&mut tb, &mut ta] };
            let game = play_game(setup, players).map_err(SelfPlayError::Illegal)?;
            let r = game.result().expect("played to the end");
            let b_seat = a_seat.other();
            unit.games += 1;
            unit.hands += game.hands().len() as u64;
            unit.longest_game = unit.longest_game.max(game.hands().len() as u32);
            unit.hand_limit_games += (r.end == engine::GameEnd::HandLimit) as u64;
            for h in game.hands() {
                unit.longest_hand = unit.longest_hand.max(h.result.turns);
                unit.turn_limit_hands += (h.result.end == EndKind::TurnLimit) as u64;
            }
            unit.a.decisions += ta.decisions;
            unit.a.think_ns += ta.ns;
            unit.a.max_think_ns = unit.a.max_think_ns.max(ta.max_ns);
            unit.b.decisions += tb.decisions;
            unit.b.think_ns += tb.ns;
            unit.b.max_think_ns = unit.b.max_think_ns.max(tb.max_ns);
            unit.a.points += r.totals[a_seat] as u64;
            unit.b.points += r.totals[b_seat] as u64;
            match r.winner {
                Some(w) if w == a_seat => {
                    unit.a.wins += 1;
                    unit.score += 1.0;
                }
                Some(_) => unit.b.wins += 1,
                None => {
                    unit.draws += 1;
                    unit.score += 0.5;
                }
            }
            for h in game.hands() {
                let Some(w) = h.result.winner else { continue };
                let side = if w == a_seat { &mut unit.a } else { &mut unit.b };
                side.hands_won += 1;
                match h.result.end {
                    EndKind::Gin | EndKind::BigGin => side.gins += 1,
                    EndKind::Undercut => side.undercuts += 1,
                    _ => {}
                }
            }
        }
        unit.score /= unit.games as f64;
        Ok(unit)
    }

    /// Plays the match; `progress` is called from time to time with (games done, total).
    pub fn run(&self, progress: &(dyn Fn(u64, u64) + Sync)) -> Result<Report, SelfPlayError> {
        self.validate()?;
        let units = self.units();
        let per_unit = if self.duplicate { 2 } else { 1 };
        let threads = if self.threads == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            self.threads
        };
        let next = AtomicU64::new(0);
        let done = AtomicU64::new(0);
        let failed = AtomicBool::new(false);
        let results: Mutex<Vec<Unit>> = Mutex::new(Vec::with_capacity(units as usize));
        let error: Mutex<Option<SelfPlayError>> = Mutex::new(None);
        let start = Instant::now();
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(|| {
                    let mut local = Vec::new();
                    loop {
                        let u = next.fetch_add(1, Ordering::Relaxed);
                        if u >= units || failed.load(Ordering::Relaxed) {
                            break;
                        }
                        match self.play_unit(u) {
                            Ok(r) => local.push(r),
                            Err(e) => {
                                failed.store(true, Ordering::Relaxed);
                                error.lock().expect("not poisoned").get_or_insert(e);
                                break;
                            }
                        }
                        done.fetch_add(per_unit, Ordering::Relaxed);
                    }
                    results.lock().expect("not poisoned").extend(local);
                });
            }
            let total = units * per_unit;
            loop {
                let d = done.load(Ordering::Relaxed);
                progress(d, total);
                if d >= total || failed.load(Ordering::Relaxed) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        });
        if let Some(e) = error.into_inner().expect("not poisoned") {
            return Err(e);
        }
        let seconds = start.elapsed().as_secs_f64();
        let mut results = results.into_inner().expect("not poisoned");
        results.sort_by_key(|u| u.index);
        let mut a = SideStats { strategy: self.a.clone(), ..SideStats::default() };
        let mut b = SideStats { strategy: self.b.clone(), ..SideStats::default() };
        let (mut games, mut hands, mut draws, mut total_score) = (0, 0, 0, 0.0);
        let (mut longest_hand, mut longest_game, mut turn_limit_hands, mut hand_limit_games) = (0, 0, 0, 0);
        let mut tally = Tally::default();
        for u in &results {
            a.merge(&u.a);
            b.merge(&u.b);
            games += u.games;
            hands += u.hands;
            draws += u.draws;
            longest_hand = longest_hand.max(u.longest_hand);
            longest_game = longest_game.max(u.longest_game);
            turn_limit_hands += u.turn_limit_hands;
            hand_limit_games += u.hand_limit_games;
            total_score += u.score * u.games as f64;
            tally.add(u.score);
        }
        Ok(Report {
            rules: self.rules.name.clone(),
            seed: self.seed,
            duplicate: self.duplicate,
            games,
            hands,
            draws,
            longest_hand,
            longest_game,
            turn_limit_hands,
            hand_limit_games,
            a,
            b,
            a_score: if games == 0 { 0.5 } else { total_score / games as f64 },
            elo: tally.elo(),
            seconds,
            games_per_sec: games as f64 / seconds.max(1e-9),
            threads,
        })
    }
}

impl Report {
    /// The human-readable summary.
    pub fn text(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let g = self.games;
        let _ = writeln!(
            s,
            "{} vs {}: {} games under {}{}, seed {}",
            self.a.strategy,
            self.b.strategy,
            g,
            self.rules,
            if self.duplicate { " (duplicate deals, seats swapped)" } else { "" },
            self.seed
        );
        let _ = writeln!(
            s,
            "{:<14}{:>8}{:>8}{:>13}{:>12}{:>7}{:>11}{:>12}",
            "", "wins", "win %", "points/game", "hands won", "gins", "undercuts", "µs/decision"
        );
        for (label, side) in [("A", &self.a), ("B", &self.b)] {
            let _ = writeln!(
                s,
                "{:<14}{:>8}{:>7.1}%{:>13.1}{:>12}{:>7}{:>11}{:>12.2}",
                format!("{label} {}", side.strategy),
                side.wins,
                100.0 * side.wins as f64 / g.max(1) as f64,
                side.points_per_game(g),
                side.hands_won,
                side.gins,
                side.undercuts,
                side.micros_per_decision()
            );
        }
        let _ =
            writeln!(s, "draws: {}   hands per game: {:.2}", self.draws, self.hands as f64 / g.max(1) as f64);
        let _ = writeln!(
            s,
            "{} hands: longest hand {} turns, longest game {} hands; {} hands at the turn limit, {} games at the hand limit",
            self.hands, self.longest_hand, self.longest_game, self.turn_limit_hands, self.hand_limit_games
        );
        if self.a.max_think_ns > 0 || self.b.max_think_ns > 0 {
            let _ = writeln!(
                s,
                "slowest decision: A {:.1} ms, B {:.1} ms",
                self.a.max_think_ns as f64 / 1e6,
                self.b.max_think_ns as f64 / 1e6
            );
        }
        if let Some(e) = self.elo {
            let _ = writeln!(
                s,
                "A's score {:.1}%  Elo A−B {} (95% interval{})",
                100.0 * self.a_score,
                e,
                if self.duplicate { ", over deal pairs" } else { "" }
            );
        }
        let _ = writeln!(
            s,
            "{:.2} s, {:.0} games/s on {} thread{}",
            self.seconds,
            self.games_per_sec,
            self.threads,
            if self.threads == 1 { "" } else { "s" }
        );
        s
    }
}
