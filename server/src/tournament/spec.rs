//! A tournament's spec, validated, with its defaults filled in, and its plan: which games
//! each round plays, in what order, on which deals.

use engine::RuleSet;
use gin_proto::v1 as pb;
use gin_strategies::rng::derive;
use gin_strategies::stats::Sprt;
use tonic::Status;

use super::pairing;
use crate::game::shared::random_bytes;

/// The most games one tournament may play (its plan is held in memory).
pub const MAX_GAMES: u64 = 1_000_000;
/// The most games one tournament may have in play at once (its creator's limit of unfinished
/// games may be lower: see `Tournaments::create`).
pub const MAX_PARALLEL: u32 = 256;

/// A validated tournament spec.
#[derive(Clone, Debug)]
pub struct Spec {
    /// As given, with defaults filled in and the seed drawn.
    pub pb: pb::TournamentSpec,
    /// Round robin, gauntlet (entrant 0 against each other) or Swiss.
    pub format: pb::TournamentFormat,
    /// How many entrants it takes.
    pub entrants: u32,
    /// Games per pairing (even with duplicate deals).
    pub per_pairing: u32,
    /// Each deal is played twice, seats swapped.
    pub duplicate: bool,
    /// The games' rules.
    pub rules: RuleSet,
    /// The games' clock.
    pub clock: pb::TurnClock,
    /// The most games in play at once.
    pub parallel: u32,
    /// Rounds (Swiss; 1 for the other formats).
    pub rounds: u32,
    /// The stop rule (two entrants only).
    pub sprt: Option<Sprt>,
    /// Every deal derives from it.
    pub seed: u64,
    /// The creator chose the seed: it may know every deal (see [`pb::TournamentState`]'s
    /// `fixed_deals`). Stored in its own column (the stored spec has the seed filled in).
    pub fixed: bool,
}

impl Spec {
    /// Validates `p` and fills its defaults: for a new spec and for one read back at start
    /// (the text a caller sets is checked before, in `create`).
    pub fn new(mut p: pb::TournamentSpec) -> Result<Spec, Status> {
        let format = pb::TournamentFormat::try_from(p.format)
            .map_err(|_| Status::invalid_argument("spec.format: unknown value"))?;
        let format = if format == pb::TournamentFormat::Unspecified {
            pb::TournamentFormat::RoundRobin
        } else {
            format
        };
        if !(2..=64).contains(&p.entrants) {
            return Err(Status::invalid_argument("spec.entrants: 2 to 64"));
        }
        if !(1..=10_000).contains(&p.games_per_pairing) {
            return Err(Status::invalid_argument("spec.games_per_pairing: 1 to 10000"));
        }
        let per_pairing = if p.duplicate { p.games_per_pairing.div_ceil(2) * 2 } else { p.games_per_pairing };
        let rules = crate::api::convert::stored_rules(p.rules.as_ref())?;
        let clock = crate::api::convert::clock(p.clock)?;
        let parallel = if p.parallel == 0 { 16 } else { p.parallel };
        if parallel > MAX_PARALLEL {
            return Err(Status::invalid_argument(format!("spec.parallel: at most {MAX_PARALLEL}")));
        }
        let rounds = match format {
            pb::TournamentFormat::Swiss if p.rounds == 0 => pairing::swiss_default_rounds(p.entrants),
            pb::TournamentFormat::Swiss if p.rounds > 100 => {
                return Err(Status::invalid_argument("spec.rounds: at most 100"));
            }
            pb::TournamentFormat::Swiss => p.rounds,
            _ => 1,
        };
        let sprt = match &p.sprt {
            None => None,
            Some(s) => {
                if p.entrants != 2 {
                    return Err(Status::invalid_argument("spec.sprt: only with exactly 2 entrants"));
                }
                let alpha = if s.alpha == 0.0 { 0.05 } else { s.alpha };
                let beta = if s.beta == 0.0 { 0.05 } else { s.beta };
                let in_range = |x: f64| x > 0.0 && x < 0.5;
                if !in_range(alpha) || !in_range(beta) {
                    return Err(Status::invalid_argument("spec.sprt: alpha and beta between 0 and 0.5"));
                }
                let ordered = s.elo0.is_finite() && s.elo1.is_finite() && s.elo1 > s.elo0;
                if !ordered {
                    return Err(Status::invalid_argument("spec.sprt: elo1 must be greater than elo0"));
                }
                Some(Sprt { elo0: s.elo0, elo1: s.elo1, alpha, beta })
            }
        };
        let fixed = p.seed != 0;
        let seed = if fixed { p.seed } else { u64::from_le_bytes(random_bytes::<8>()) };
        let n = p.entrants as u64;
        let pairs = match format {
            pb::TournamentFormat::Gauntlet => n - 1,
            pb::TournamentFormat::Swiss => n / 2 * rounds as u64,
            _ => n * (n - 1) / 2,
        };
        if pairs * per_pairing as u64 > MAX_GAMES {
            return Err(Status::invalid_argument(format!(
                "spec: {} games in all; at most {MAX_GAMES} per tournament",
                pairs * per_pairing as u64
            )));
        }
        p.seed = seed;
        p.format = format as i32;
        p.parallel = parallel;
        p.rounds = if format == pb::TournamentFormat::Swiss { rounds } else { 0 };
        p.rules =
            Some(pb::Rules { kind: Some(pb::rules::Kind::Custom(crate::game::wire::rule_set(&rules))) });
        p.clock = Some(clock);
        if let (Some(s), Some(v)) = (&sprt, p.sprt.as_mut()) {
            v.alpha = s.alpha;
            v.beta = s.beta;
        }
        Ok(Spec {
            pb: p.clone(),
            format,
            entrants: p.entrants,
            per_pairing,
            duplicate: p.duplicate,
            rules,
            clock,
            parallel,
            rounds,
            sprt,
            seed,
            fixed,
        })
    }

    /// Games per round's pairings.
    pub fn pairs_per_round(&self) -> u32 {
        let n = self.entrants;
        match self.format {
            pb::TournamentFormat::Gauntlet => n - 1,
            pb::TournamentFormat::Swiss => n / 2,
            _ => n * (n - 1) / 2,
        }
    }

    /// The most games the tournament plays.
    pub fn total_games(&self) -> u32 {
        self.pairs_per_round() * self.per_pairing * self.rounds
    }

    /// The games of `pairs` in round `round`, in play order: each pairing's games
    /// alternate seats; with duplicate deals, games 2k and 2k+1 share a deal.
    pub fn plan(&self, round: u32, pairs: &[(u32, u32)]) -> Vec<Planned> {
        let mut v = Vec::new();
        for (p, &(i, j)) in pairs.iter().enumerate() {
            for k in 0..self.per_pairing {
                let deal = if self.duplicate { k / 2 } else { k };
                v.push(Planned {
                    round,
                    seats: if k % 2 == 0 { [i, j] } else { [j, i] },
                    deal_seed: derive(derive(self.seed, round as u64), ((p as u64) << 20) | deal as u64),
                });
            }
        }
        v
    }
}

/// A game of the plan, not booked yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Planned {
    /// Its round.
    pub round: u32,
    /// The entrant in each seat.
    pub seats: [u32; 2],
    /// Its deal.
    pub deal_seed: u64,
}
