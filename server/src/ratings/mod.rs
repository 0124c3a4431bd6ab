//! Ratings: one pool per kind of game, a rating per account in each, and the leaderboards.
//!
//! A layer beside [`accounts`](crate::accounts): neither `game` nor `storage` imports it. The
//! maths is the `skillratings` crate's, never ours:
//!
//! - **Two players** (two-player gin under each preset, rummy for two): **Glicko-2**, a rating
//!   period per game (as Lichess rates), τ = 0.5; a new player starts at 1500 ± 350, volatility
//!   0.06.
//! - **Tables of three to six** (three-player gin, gin at one table, rummy) from the game's
//!   places, and **teams** as two teams of two: **Weng-Lin** (the Bayesian approximation of
//!   Weng and Lin, 2011; skillratings' defaults, β = 25/6). Its native scale (25 ± 25/3) is
//!   shown ×60 ([`WENG_LIN_SCALE`]): a newcomer is 1500 ± 500, so every pool reads on one scale
//!   and the ladder's windows mean the same points everywhere.
//!
//! A rating is **provisional** while its shown deviation is above a limit
//! ([`PROVISIONAL_DEVIATION`], [`PROVISIONAL_DEVIATION_WENG_LIN`]):
//! marked as such wherever it is shown, and kept off the leaderboards (a [`Board`] holds only
//! established ratings).
//!
//! Only a named preset is rated ([`Pool::of`]): custom rule sets are casual.

mod board;
mod registry;

pub use board::{Board, BoardEntry};
pub use registry::{Ratings, Shown, rate_stored};

use engine::{Format, Kind, PRESETS};
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2_rating_period};
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team, weng_lin_two_teams};
use skillratings::{MultiTeamOutcome, Outcomes};

/// Weng-Lin ratings are shown multiplied by this (25 → 1500, 25/3 → 500).
pub const WENG_LIN_SCALE: f64 = 60.0;

/// A Glicko-2 rating whose deviation is above this is provisional (Lichess's limit): ten games
/// against established players, won and lost in turn, bring a newcomer under it.
pub const PROVISIONAL_DEVIATION: f64 = 110.0;

/// A Weng-Lin rating whose shown uncertainty (×[`WENG_LIN_SCALE`]) is above this is
/// provisional: Weng-Lin's uncertainty comes down more slowly per game (a newcomer starts at
/// 500); at a table of four, 18 games against established players, placing in turn.
pub const PROVISIONAL_DEVIATION_WENG_LIN: f64 = 150.0;

/// How a pool's ratings move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum System {
    /// Glicko-2: two players.
    Glicko2,
    /// Weng-Lin: tables of three to six, and teams.
    WengLin,
}

/// A rated pool: one per kind of game and preset (and table size where it varies).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pool {
    id: String,
}

impl Pool {
    /// The pool of a game's format, or `None` for a format that is not rated (a custom rule
    /// set): `gin/<preset>` for two-player gin under a named preset, `three-player`, `teams`,
    /// `gin-7/<n>` and `rummy/<n>` for the presets at each table size.
    pub fn of(format: &Format) -> Option<Pool> {
        let id = match format.kind() {
            Kind::Gin => {
                let name = PRESETS.into_iter().find(|p| Format::preset(p).ok().as_ref() == Some(format))?;
                format!("gin/{name}")
            }
            Kind::ThreePlayer | Kind::Teams => {
                let name = format.kind().name();
                (Format::preset(name).ok().as_ref() == Some(format)).then(|| name.to_string())?
            }
            Kind::Gin7 | Kind::Rummy => {
                let name = format.kind().name();
                let n = format.players();
                let preset = Format::preset(name).ok()?.with_players(n).ok()?;
                (&preset == format).then(|| format!("{name}/{n}"))?
            }
        };
        Some(Pool { id })
    }

    /// The pool named `id` (as [`Pool::id`] writes it), or `None` for no such pool.
    pub fn parse(id: &str) -> Option<Pool> {
        Pool::all().into_iter().find(|p| p.id == id)
    }

    /// Every pool, in a stable order.
    pub fn all() -> Vec<Pool> {
        let mut all: Vec<Pool> = PRESETS.iter().map(|p| Pool { id: format!("gin/{p}") }).collect();
        all.push(Pool { id: "three-player".into() });
        all.push(Pool { id: "teams".into() });
        all.extend((3..=6).map(|n| Pool { id: format!("gin-7/{n}") }));
        all.extend((2..=6).map(|n| Pool { id: format!("rummy/{n}") }));
        all
    }

    /// Its stable name (`gin/standard`, `rummy/4`, …): what the API and the store use.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The format its games are played in.
    pub fn format(&self) -> Format {
        let (name, n) = match self.id.split_once('/') {
            Some(("gin", preset)) => return Format::preset(preset).expect("a pool names a preset"),
            Some((kind, n)) => (kind, n.parse::<u8>().expect("a pool's size is a number")),
            None => return Format::preset(&self.id).expect("a pool names a preset"),
        };
        Format::preset(name).and_then(|f| f.with_players(n)).expect("a pool's size is its kind's")
    }

    /// The number of seats at its tables.
    pub fn seats(&self) -> u8 {
        self.format().players()
    }

    /// How its ratings move.
    pub fn system(&self) -> System {
        if self.seats() == 2 { System::Glicko2 } else { System::WengLin }
    }

    /// Whether its seats play as two teams of two (seats 0 and 2 against 1 and 3).
    pub fn teams(&self) -> bool {
        self.id == "teams"
    }
}

impl std::fmt::Display for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.id)
    }
}

/// One account's rating in one pool, in the system's own numbers (what the store keeps).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// Glicko-2's rating, or Weng-Lin's μ.
    pub rating: f64,
    /// Glicko-2's deviation, or Weng-Lin's σ.
    pub deviation: f64,
    /// Glicko-2's volatility (0 under Weng-Lin).
    pub volatility: f64,
    /// Rated games played in the pool.
    pub games: u32,
}

impl Rating {
    /// A newcomer's rating under `system`.
    pub fn new(system: System) -> Rating {
        match system {
            System::Glicko2 => {
                let g = Glicko2Rating::new();
                Rating { rating: g.rating, deviation: g.deviation, volatility: g.volatility, games: 0 }
            }
            System::WengLin => {
                let w = WengLinRating::new();
                Rating { rating: w.rating, deviation: w.uncertainty, volatility: 0.0, games: 0 }
            }
        }
    }

    /// The rating as shown (Weng-Lin's ×[`WENG_LIN_SCALE`]).
    pub fn shown(&self, system: System) -> f64 {
        match system {
            System::Glicko2 => self.rating,
            System::WengLin => self.rating * WENG_LIN_SCALE,
        }
    }

    /// The deviation as shown (Weng-Lin's ×[`WENG_LIN_SCALE`]).
    pub fn shown_deviation(&self, system: System) -> f64 {
        match system {
            System::Glicko2 => self.deviation,
            System::WengLin => self.deviation * WENG_LIN_SCALE,
        }
    }

    /// Whether it is provisional: its shown deviation above [`PROVISIONAL_DEVIATION`]
    /// (Glicko-2) or [`PROVISIONAL_DEVIATION_WENG_LIN`].
    pub fn provisional(&self, system: System) -> bool {
        let limit = match system {
            System::Glicko2 => PROVISIONAL_DEVIATION,
            System::WengLin => PROVISIONAL_DEVIATION_WENG_LIN,
        };
        self.shown_deviation(system) > limit
    }

    fn glicko2(&self) -> Glicko2Rating {
        Glicko2Rating { rating: self.rating, deviation: self.deviation, volatility: self.volatility }
    }

    fn weng_lin(&self) -> WengLinRating {
        WengLinRating { rating: self.rating, uncertainty: self.deviation }
    }

    fn from_glicko2(g: Glicko2Rating, games: u32) -> Rating {
        Rating { rating: g.rating, deviation: g.deviation, volatility: g.volatility, games }
    }

    fn from_weng_lin(w: WengLinRating, games: u32) -> Rating {
        Rating { rating: w.rating, deviation: w.uncertainty, volatility: 0.0, games }
    }
}

/// Why a game's result cannot be rated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RateError(pub String);

impl std::fmt::Display for RateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RateError {}

/// A Glicko-2 rating period: `player` against each of `results` (an opponent's rating and the
/// outcome from `player`'s side). A game is one period of one result; Glickman's worked
/// example is one period of three.
pub fn glicko2_period(player: &Rating, results: &[(Rating, Outcomes)]) -> Rating {
    let results: Vec<(Glicko2Rating, Outcomes)> = results.iter().map(|(r, o)| (r.glicko2(), *o)).collect();
    let new = glicko2_rating_period(&player.glicko2(), &results, &Glicko2Config::new());
    Rating::from_glicko2(new, player.games + results.len() as u32)
}

/// The ratings after one game of `pool`: `before[seat]` each seat's rating, `places[seat]` its
/// place (0 first; equal places are a tie; at teams, seats 0 and 2 must share a place, as must
/// 1 and 3). Returns each seat's new rating, `games` counted.
pub fn rate(pool: &Pool, before: &[Rating], places: &[u8]) -> Result<Vec<Rating>, RateError> {
    let n = usize::from(pool.seats());
    if before.len() != n || places.len() != n {
        return Err(RateError(format!(
            "pool {pool} seats {n}: {} ratings and {} places given",
            before.len(),
            places.len()
        )));
    }
    if before.iter().any(|r| !(r.rating.is_finite() && r.deviation.is_finite() && r.deviation > 0.0)) {
        return Err(RateError("a rating or deviation is not a finite positive number".into()));
    }
    if pool.teams() {
        if places[0] != places[2] || places[1] != places[3] {
            return Err(RateError("at teams, partners (seats 0 and 2, 1 and 3) share their place".into()));
        }
        let outcome = match places[0].cmp(&places[1]) {
            std::cmp::Ordering::Less => Outcomes::WIN,
            std::cmp::Ordering::Greater => Outcomes::LOSS,
            std::cmp::Ordering::Equal => Outcomes::DRAW,
        };
        let one = [before[0].weng_lin(), before[2].weng_lin()];
        let two = [before[1].weng_lin(), before[3].weng_lin()];
        let (one, two) = weng_lin_two_teams(&one, &two, &outcome, &WengLinConfig::new());
        let g = |seat: usize| before[seat].games + 1;
        return Ok(vec![
            Rating::from_weng_lin(one[0], g(0)),
            Rating::from_weng_lin(two[0], g(1)),
            Rating::from_weng_lin(one[1], g(2)),
            Rating::from_weng_lin(two[1], g(3)),
        ]);
    }
    match pool.system() {
        System::Glicko2 => {
            let outcome = match places[0].cmp(&places[1]) {
                std::cmp::Ordering::Less => Outcomes::WIN,
                std::cmp::Ordering::Greater => Outcomes::LOSS,
                std::cmp::Ordering::Equal => Outcomes::DRAW,
            };
            let other = match outcome {
                Outcomes::WIN => Outcomes::LOSS,
                Outcomes::LOSS => Outcomes::WIN,
                Outcomes::DRAW => Outcomes::DRAW,
            };
            Ok(vec![
                glicko2_period(&before[0], &[(before[1], outcome)]),
                glicko2_period(&before[1], &[(before[0], other)]),
            ])
        }
        System::WengLin => {
            let teams: Vec<[WengLinRating; 1]> = before.iter().map(|r| [r.weng_lin()]).collect();
            let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
                .iter()
                .zip(places)
                .map(|(t, &p)| (&t[..], MultiTeamOutcome::new(usize::from(p) + 1)))
                .collect();
            let new = weng_lin_multi_team(&ranked, &WengLinConfig::new());
            Ok(new.iter().zip(before).map(|(t, b)| Rating::from_weng_lin(t[0], b.games + 1)).collect())
        }
    }
}

#[cfg(test)]
mod tests;
