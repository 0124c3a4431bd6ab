//! A tournament's spec, validated, with its defaults filled in, and its plan: which games
//! each round plays, in what order, on which deals.
//!
//!
//! `Spec`: defaults filled, the seed drawn; its games' `engine::Format` (two-player gin on
//! its rules, or a table format: round robin only, games per table rounded up to a whole
//! number of seatings; stored as the format's full document). `plan`: a round's games in play
//! order with their deal seeds (derived from the tournament seed); `plan_tables`: a table
//! round robin, each table's games through its seatings in turn, with duplicate deals one
//! deal per pass over the seatings.

use engine::{Format, Kind};
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
    /// The games' format: two-player gin on its rules, or a table (round robin only).
    pub game: Format,
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
        let table =
            crate::api::convert::format(&p.game_format, p.players, p.rules.as_ref()).map_err(|e| {
                let m = e.message();
                let m = if m.starts_with("format") { format!("game_{m}") } else { m.to_owned() };
                Status::invalid_argument(format!("spec.{m}"))
            })?;
        let game = match table {
            None => Format::Gin(crate::api::convert::stored_rules(p.rules.as_ref())?),
            Some(f) => f,
        };
        let size = u32::from(game.players());
        let per_pairing = if let Format::Gin(_) = game {
            if p.duplicate { p.games_per_pairing.div_ceil(2) * 2 } else { p.games_per_pairing }
        } else {
            if format != pb::TournamentFormat::RoundRobin {
                return Err(Status::invalid_argument(format!(
                    "spec.format: tables of {size} play round robin only"
                )));
            }
            if p.sprt.is_some() {
                return Err(Status::invalid_argument("spec.sprt: two-player gin only"));
            }
            if p.entrants < size {
                return Err(Status::invalid_argument(format!(
                    "spec.entrants: at least the table size, {size}"
                )));
            }
            let m = pairing::seatings_per_table(size, game.kind() == Kind::Teams);
            p.games_per_pairing.div_ceil(m) * m
        };
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
            _ if !matches!(game, Format::Gin(_)) => pairing::subsets_count(p.entrants, size),
            pb::TournamentFormat::Gauntlet => n - 1,
            pb::TournamentFormat::Swiss => n / 2 * rounds as u64,
            _ => n * (n - 1) / 2,
        };
        let games = pairs.saturating_mul(per_pairing as u64);
        if games > MAX_GAMES {
            return Err(Status::invalid_argument(format!(
                "spec: {games} games in all; at most {MAX_GAMES} per tournament"
            )));
        }
        p.seed = seed;
        p.format = format as i32;
        p.parallel = parallel;
        p.rounds = if format == pb::TournamentFormat::Swiss { rounds } else { 0 };
        // Read back as stored: two-player gin as its full rule set, a table as its format's
        // full document (so a later change of a preset does not change a stored tournament).
        match &game {
            Format::Gin(rules) => {
                p.rules = Some(pb::Rules {
                    kind: Some(pb::rules::Kind::Custom(crate::game::wire::rule_set(rules))),
                });
                p.game_format.clear();
                p.players = 0;
            }
            table => {
                p.game_format = table.to_value().to_string();
                p.players = size;
            }
        }
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
            game,
            clock,
            parallel,
            rounds,
            sprt,
            seed,
            fixed,
        })
    }

    /// The table size (2: two-player gin).
    pub fn size(&self) -> u32 {
        u32::from(self.game.players())
    }

    /// Whether the games are tables (any format but two-player gin).
    pub fn tables(&self) -> bool {
        !matches!(self.game, Format::Gin(_))
    }

    /// Whether the games are team tables (partners in seats 0 and 2, 1 and 3).
    pub fn teams(&self) -> bool {
        self.game.kind() == Kind::Teams
    }

    /// Games per round's pairings (tables: the tables of the round robin).
    pub fn pairs_per_round(&self) -> u32 {
        let n = self.entrants;
        if self.tables() {
            return pairing::subsets_count(n, self.size()) as u32;
        }
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
                    seats: if k % 2 == 0 { vec![i, j] } else { vec![j, i] },
                    deal_seed: self.deal_seed(round, p, deal),
                });
            }
        }
        v
    }

    /// The games of a table round robin (one round), in play order: each table's games go
    /// through its seatings in turn ([`pairing::table_seatings`]); with duplicate deals, the
    /// games of one pass over the seatings share a deal.
    pub fn plan_tables(&self) -> Vec<Planned> {
        let seatings = pairing::seatings_per_table(self.size(), self.teams());
        let mut v = Vec::new();
        for (p, subset) in pairing::table_subsets(self.entrants, self.size()).iter().enumerate() {
            let all = pairing::table_seatings(subset, self.teams());
            for k in 0..self.per_pairing {
                let deal = if self.duplicate { k / seatings } else { k };
                v.push(Planned {
                    round: 1,
                    seats: all[(k % seatings) as usize].clone(),
                    deal_seed: self.deal_seed(1, p, deal),
                });
            }
        }
        v
    }

    /// The deal of the `deal`th deal of pairing (or table) `p` of round `round`.
    fn deal_seed(&self, round: u32, p: usize, deal: u32) -> u64 {
        derive(derive(self.seed, round as u64), ((p as u64) << 20) | deal as u64)
    }
}

/// A game of the plan, not booked yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Planned {
    /// Its round.
    pub round: u32,
    /// The entrant in each seat.
    pub seats: Vec<u32>,
    /// Its deal.
    pub deal_seed: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use gin_strategies::rng::splitmix;

    /// SplitMix64's finaliser undone: each step is a bijection of `u64`.
    fn unmix(mut z: u64) -> u64 {
        let inverse = |m: u64| (0..6).fold(m, |x, _| x.wrapping_mul(2u64.wrapping_sub(m.wrapping_mul(x))));
        z ^= (z >> 31) ^ (z >> 62);
        z = z.wrapping_mul(inverse(0x94D0_49BB_1331_11EB));
        z ^= (z >> 27) ^ (z >> 54);
        z = z.wrapping_mul(inverse(0xBF58_476D_1CE4_E5B9));
        z ^= (z >> 30) ^ (z >> 60);
        z.wrapping_sub(0x9E37_79B9_7F4A_7C15)
    }

    /// Why every game of a tournament is sealed until it is over (`game::state::Seal`), not only
    /// those that share a deal: its deal seeds derive from its seed by invertible steps, so
    /// anyone holding one game's seed (and guessing its small indices) has the tournament's
    /// seed, and with it every deal of every game.
    #[test]
    fn one_deal_seed_gives_the_tournament_seed_away() {
        let spec = Spec::new(pb::TournamentSpec { entrants: 4, games_per_pairing: 2, ..Default::default() });
        let spec = spec.unwrap();
        let planned = spec.plan(1, &pairing::round_robin(4));
        let last = planned.last().unwrap();
        // `derive(x, i) = splitmix(splitmix(x) ^ splitmix(i * K))`, undone for a known `i`.
        let undo = |out: u64, i: u64| unmix(unmix(out) ^ splitmix(i.wrapping_mul(0xD1B5_4A32_D192_ED03)));
        let found = (0..6u64).flat_map(|p| (0..2u64).map(move |d| (p << 20) | d)).find_map(|i| {
            let seed = undo(undo(last.deal_seed, i), 1);
            (Spec { seed, ..spec.clone() }.plan(1, &pairing::round_robin(4)) == planned).then_some(seed)
        });
        assert_eq!(found, Some(spec.seed), "every deal of the tournament, from its last game's seed");
    }
}
