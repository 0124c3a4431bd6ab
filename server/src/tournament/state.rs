//! One tournament in memory ([`Tournament`]): its entrants, booked games, the plan of what is
//! still to play, standings; how it advances (results, SPRT, the next Swiss round); how it is
//! rebuilt from its stored rows at start. No I/O here.
//!
//!
//! Entrants' tokens are kept hashed; `BookedGame`s keep their seat tokens in memory only (the
//! games' seats keep the hashes). Standings: `BookedGame::score` counts pairwise by place
//! against each opponent, never a partner (two-player gin is the case of two seats);
//! `GameOutcome` books a game's end (places derived from the winner at two-player gin);
//! `team_standings` per partnership. `take_playable`: with duplicate deals, never a game whose
//! deal is in play in another (the second game of a pair starts once the first is over).
//! `advance`: results, SPRT, the next Swiss round. `restore`: rebuilt from the stored rows,
//! each round's plan replayed from the results before it, the games already created (found by
//! deal seed and seats) taken out, so no game is created twice. `TournamentCell`: the state
//! behind a lock, with a version the streams wait on.

use std::collections::{HashSet, VecDeque};
use std::sync::Mutex;

use gin_proto::v1 as pb;
use gin_strategies::stats::{SprtState, Tally};
use prost::Message;
use tokio::sync::watch;

use super::pairing;
use super::spec::{MAX_PARALLEL, Planned, Spec};
use crate::game::shared::QuotaKey;
use crate::game::state::Seal;
use crate::storage::StoredTournament;

/// The most rating points per entrant in `TournamentState.rating_history`.
pub(crate) const HISTORY_POINTS: usize = 200;

/// At most `max` of `points`, evenly spread: every k-th from the first, and the last.
fn thin<T>(points: Vec<T>, max: usize) -> Vec<T> {
    let n = points.len();
    if n <= max {
        return points;
    }
    // (max - 1) strides cover the first to the last but one; the last is added.
    let step = (n - 1).div_ceil(max.max(2) - 1);
    points.into_iter().enumerate().filter(|(i, _)| i % step == 0 || i + 1 == n).map(|(_, p)| p).collect()
}

#[derive(Clone, Debug)]
/// A booked game: in the store, created on the server once `created`.
pub(crate) struct BookedGame {
    pub(crate) number: u32,
    pub(crate) round: u32,
    pub(crate) game_id: String,
    /// The entrant in each seat.
    pub(crate) seats: Vec<u32>,
    /// The seats' tokens, in memory only: the store keeps their hashes (with the game's
    /// seats), never the tokens. `None` after a restart, until the entrant re-enters and is
    /// handed a new one (`Tournaments::seat_token`).
    pub(crate) tokens: Vec<Option<String>>,
    pub(crate) deal_seed: u64,
    pub(crate) done: bool,
    pub(crate) winner: Option<u32>,
    /// Final totals per seat, once done.
    pub(crate) totals: Vec<i64>,
    /// Each seat's place once done, 1 the best (equal places: a draw between those seats).
    pub(crate) places: Vec<u32>,
    /// The game exists on the server (not stored: a booked game is created right after its
    /// booking, or by the driver after a crash between the two). Its seats are assigned only
    /// then.
    pub(crate) created: bool,
}

/// An entrant: its name and the hash of its entrant token.
#[derive(Clone, Debug)]
pub(crate) struct Entrant {
    pub(crate) name: String,
    pub(crate) token_hash: [u8; 32],
    /// The account it entered as (signed in): its games' seats are the account's.
    pub(crate) account: Option<String>,
}

/// One tournament in memory: its spec, entrants, booked games, what is still to play.
pub(crate) struct Tournament {
    pub(crate) id: String,
    pub(crate) spec: Spec,
    /// Who created it (its games count against that account's or address's unfinished
    /// games, as at its creation); not stored: after a restart its games count against
    /// nobody, like every game's.
    pub(crate) creator: Option<QuotaKey>,
    /// When it was created (ms since the epoch).
    pub(crate) created_ms: i64,
    pub(crate) status: pb::TournamentStatus,
    pub(crate) entrants: Vec<Entrant>,
    pub(crate) games: Vec<BookedGame>,
    pub(crate) planned: VecDeque<Planned>,
    /// Games being created now (counted as running).
    pub(crate) creating: u32,
    /// The next game's number.
    pub(crate) next_number: u32,
    /// The Swiss round in play (1-based; 1 for the other formats).
    pub(crate) round: u32,
    pub(crate) byes: HashSet<u32>,
    pub(crate) sprt: Option<(SprtState, f64)>,
}

impl Tournament {
    pub(crate) fn running(&self) -> u32 {
        self.games.iter().filter(|g| !g.done).count() as u32 + self.creating
    }

    pub(crate) fn done(&self) -> u32 {
        self.games.iter().filter(|g| g.done).count() as u32
    }

    /// Plans round `round` (the first, or the next Swiss round after the last is done).
    pub(crate) fn plan_round(&mut self, round: u32) {
        if self.spec.tables() {
            self.round = round;
            self.planned = self.spec.plan_tables().into();
            return;
        }
        let spec = &self.spec;
        let pairs = match spec.format {
            pb::TournamentFormat::Gauntlet => pairing::gauntlet(spec.entrants),
            pb::TournamentFormat::Swiss => {
                let scores: Vec<f64> = (0..spec.entrants).map(|e| self.tally(e).sum).collect();
                let met: HashSet<(u32, u32)> = self
                    .games
                    .iter()
                    .map(|g| (g.seats[0].min(g.seats[1]), g.seats[0].max(g.seats[1])))
                    .collect();
                let (pairs, bye) = pairing::swiss_round(&scores, &met, &self.byes);
                if let Some(b) = bye {
                    self.byes.insert(b);
                }
                pairs
            }
            _ => pairing::round_robin(spec.entrants),
        };
        self.round = round;
        self.planned = self.spec.plan(round, &pairs).into();
    }

    /// Takes from the plan up to `n` games to start now, in plan order, skipping a game whose
    /// deal is in play in another game: the other half of its duplicate pair, seats swapped,
    /// where an entrant would hold the hand its opponent holds here. So the second game of a
    /// pair starts only once the first is over. (Every other game has a deal of its own.)
    pub(crate) fn take_playable(&mut self, n: usize) -> Vec<Planned> {
        let mut busy: HashSet<u64> = if self.spec.duplicate {
            self.games.iter().filter(|g| !g.done).map(|g| g.deal_seed).collect()
        } else {
            HashSet::new()
        };
        let mut out = Vec::new();
        while out.len() < n {
            let Some(i) = self.planned.iter().position(|p| !busy.contains(&p.deal_seed)) else { break };
            let p = self.planned.remove(i).expect("found above");
            busy.insert(p.deal_seed);
            out.push(p);
        }
        out
    }

    /// Entrant `e`'s per-game scores ([`BookedGame::score`]).
    pub(crate) fn tally(&self, e: u32) -> Tally {
        let mut t = Tally::default();
        let teams = self.spec.teams();
        for g in self.games.iter().filter(|g| g.done) {
            let Some(s) = g.seats.iter().position(|&x| x == e) else { continue };
            t.add(g.score(s, teams));
        }
        t
    }

    /// The partnerships' standings (team tables; empty otherwise), best first.
    pub(crate) fn team_standings(&self) -> Vec<pb::TeamStanding> {
        if !self.spec.teams() {
            return Vec::new();
        }
        let mut rows: std::collections::BTreeMap<(u32, u32), pb::TeamStanding> = Default::default();
        for g in self.games.iter().filter(|g| g.done) {
            for s in 0..2 {
                let (a, b) = (g.seats[s], g.seats[s + 2]);
                let key = (a.min(b), a.max(b));
                let r = rows.entry(key).or_insert_with(|| pb::TeamStanding {
                    entrants: vec![key.0, key.1],
                    names: [key.0, key.1].iter().map(|&e| self.entrants[e as usize].name.clone()).collect(),
                    ..Default::default()
                });
                let score = g.score(s, true);
                r.games += 1;
                match g.outcome(s) {
                    Outcome::Win => r.wins += 1,
                    Outcome::Loss => r.losses += 1,
                    Outcome::Draw => r.draws += 1,
                }
                r.points += g.totals.get(s).copied().unwrap_or(0);
                // A running mean of the games' scores.
                r.score += (score - r.score) / r.games as f64;
            }
        }
        let mut rows: Vec<pb::TeamStanding> = rows.into_values().collect();
        rows.sort_by(|a, b| b.score.total_cmp(&a.score).then(b.points.cmp(&a.points)));
        rows
    }

    pub(crate) fn standings(&self) -> pb::Standings {
        let tables = self.spec.tables();
        let mut rows: Vec<pb::Standing> = (0..self.entrants.len() as u32)
            .map(|e| {
                let mut r = pb::Standing {
                    entrant: e,
                    name: self.entrants[e as usize].name.clone(),
                    ..Default::default()
                };
                let mut places = 0u64;
                for g in self.games.iter().filter(|g| g.done) {
                    let Some(s) = g.seats.iter().position(|&x| x == e) else { continue };
                    r.games += 1;
                    match g.outcome(s) {
                        Outcome::Win => r.wins += 1,
                        Outcome::Loss => r.losses += 1,
                        Outcome::Draw => r.draws += 1,
                    }
                    let total = g.totals.get(s).copied().unwrap_or(0);
                    if tables {
                        r.table_points += total;
                        places += u64::from(g.places.get(s).copied().unwrap_or(1));
                    } else {
                        r.points_for += total.max(0) as u64;
                        r.points_against += g.totals.get(1 - s).copied().unwrap_or(0).max(0) as u64;
                    }
                }
                if tables && r.games > 0 {
                    r.mean_place = places as f64 / r.games as f64;
                }
                let t = self.tally(e);
                r.score = t.mean();
                if let Some(est) = t.elo() {
                    (r.elo, r.elo_low, r.elo_high) = (est.elo, est.low, est.high);
                }
                r
            })
            .collect();
        let points = |r: &pb::Standing| r.points_for as i64 - r.points_against as i64 + r.table_points;
        rows.sort_by(|a, b| {
            b.score.total_cmp(&a.score).then(points(b).cmp(&points(a))).then(a.entrant.cmp(&b.entrant))
        });
        pb::Standings { rows, teams: self.team_standings() }
    }

    pub(crate) fn state(&self, with_games: bool) -> pb::TournamentState {
        let over = self.status == pb::TournamentStatus::Finished;
        let mut spec = self.spec.pb.clone();
        if !over {
            spec.seed = 0; // every deal derives from it: secret until the end
        }
        let (lo, hi) = self.spec.sprt.map(|s| s.bounds()).unwrap_or((0.0, 0.0));
        let tables = self.spec.tables();
        pb::TournamentState {
            tournament_id: self.id.clone(),
            spec: Some(spec),
            status: self.status as i32,
            games_done: self.done(),
            games_total: self.spec.total_games(),
            games_running: self.running(),
            standings: Some(self.standings()),
            games: if with_games {
                self.games
                    .iter()
                    .map(|g| pb::TournamentGame {
                        number: g.number,
                        round: g.round,
                        game_id: g.game_id.clone(),
                        seat0: g.seats[0],
                        seat1: g.seats[1],
                        deal_seed: if over { g.deal_seed } else { 0 },
                        done: g.done,
                        winner: g.winner,
                        totals: if g.done && !tables {
                            g.totals.iter().map(|&t| t.max(0) as u32).collect()
                        } else {
                            Vec::new()
                        },
                        entrants: g.seats.clone(),
                        table_totals: if g.done && tables { g.totals.clone() } else { Vec::new() },
                        places: if g.done { g.places.clone() } else { Vec::new() },
                    })
                    .collect()
            } else {
                Vec::new()
            },
            sprt_state: match self.sprt {
                None if self.spec.sprt.is_some() => "continue".into(),
                None => String::new(),
                Some((s, _)) => sprt_name(s).into(),
            },
            sprt_llr: self.sprt.map_or(0.0, |s| s.1),
            sprt_lower: lo,
            sprt_upper: hi,
            fixed_deals: self.spec.fixed,
            game_format: Some(crate::game::wire::format_info(&self.spec.game)),
            created_unix_ms: self.created_ms,
            rating_history: if with_games { self.rating_history() } else { Vec::new() },
        }
    }

    /// Each entrant's rating after each of its finished games (the games in booking order,
    /// counted as they come), thinned to at most [`HISTORY_POINTS`] per entrant, the last kept.
    pub(crate) fn rating_history(&self) -> Vec<pb::RatingPoint> {
        let teams = self.spec.teams();
        let mut tallies = vec![Tally::default(); self.entrants.len()];
        let mut per: Vec<Vec<pb::RatingPoint>> = vec![Vec::new(); self.entrants.len()];
        for (counted, g) in self.games.iter().filter(|g| g.done).enumerate() {
            for (s, &e) in g.seats.iter().enumerate() {
                let Some(t) = tallies.get_mut(e as usize) else { continue };
                t.add(g.score(s, teams));
                if let Some(est) = t.elo() {
                    per[e as usize].push(pb::RatingPoint {
                        games: counted as u32 + 1,
                        entrant: e,
                        elo: est.elo,
                        elo_low: est.low,
                        elo_high: est.high,
                    });
                }
            }
        }
        per.into_iter().flat_map(|points| thin(points, HISTORY_POINTS)).collect()
    }

    /// Books a finished game's result; returns false if it was already booked.
    pub(crate) fn finish_game(&mut self, number: u32, result: &GameOutcome) -> bool {
        let Some(g) = self.games.iter_mut().find(|g| g.number == number) else { return false };
        if g.done {
            return false;
        }
        g.done = true;
        g.winner = result.winner;
        g.totals = result.totals.clone();
        g.places = result.places(g.seats.len());
        true
    }

    /// After results: the SPRT, the next Swiss round, the end. Returns true when it finished.
    pub(crate) fn advance(&mut self) -> bool {
        if self.status != pb::TournamentStatus::Running {
            return false;
        }
        if let Some(s) = self.spec.sprt {
            let t = self.tally(0);
            let st = s.state(&t);
            let llr = t.llr(s.elo0, s.elo1);
            self.sprt = Some((st, llr));
            if st != SprtState::Continue {
                self.planned.clear();
            }
        }
        let stopped = matches!(self.sprt, Some((s, _)) if s != SprtState::Continue);
        if self.planned.is_empty() && self.running() == 0 {
            if !stopped && self.spec.format == pb::TournamentFormat::Swiss && self.round < self.spec.rounds {
                let next = self.round + 1;
                self.plan_round(next);
                return false;
            }
            self.status = pb::TournamentStatus::Finished;
            return true;
        }
        false
    }
}

/// A finished game's result as the tournament books it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct GameOutcome {
    /// The single winning seat (two-player: the winner; `None`: a draw or a shared win).
    pub(crate) winner: Option<u32>,
    /// Final totals per seat.
    pub(crate) totals: Vec<i64>,
    /// Each seat's place, 1 the best (empty: two-player, from `winner`).
    pub(crate) places: Vec<u32>,
}

impl GameOutcome {
    /// The result of a game that ended (`pb::GameResult`): two-player totals and winner, or
    /// a table's signed totals and places.
    pub(crate) fn of(r: &pb::GameResult, tables: bool) -> GameOutcome {
        if tables {
            GameOutcome { winner: r.winner, totals: r.table_totals.clone(), places: r.places.clone() }
        } else {
            let totals = (0..2).map(|s| i64::from(r.totals.get(s).copied().unwrap_or(0))).collect();
            GameOutcome { winner: r.winner, totals, places: Vec::new() }
        }
    }

    /// Each of `seats` seats' place: as given; two-player (or a table that ended with no
    /// places): the winner first and the other seats second, every seat first without one.
    pub(crate) fn places(&self, seats: usize) -> Vec<u32> {
        if self.places.len() == seats {
            return self.places.clone();
        }
        (0..seats as u32).map(|s| if self.winner.is_some_and(|w| w != s) { 2 } else { 1 }).collect()
    }
}

/// A seat's result in one game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    Win,
    Loss,
    Draw,
}

impl BookedGame {
    /// Seat `s`'s score in this finished game: the mean, over its opponents (at a team table
    /// not its partner), of 1 for a better place, 0.5 for the same, 0 for a worse one. Two
    /// players: 1 for a win, 0.5 for a draw, 0 for a loss.
    pub(crate) fn score(&self, s: usize, teams: bool) -> f64 {
        let mine = self.places[s];
        let (mut sum, mut n) = (0.0, 0u32);
        for (o, &theirs) in self.places.iter().enumerate() {
            if o == s || (teams && o % 2 == s % 2) {
                continue;
            }
            n += 1;
            sum += match mine.cmp(&theirs) {
                std::cmp::Ordering::Less => 1.0,
                std::cmp::Ordering::Equal => 0.5,
                std::cmp::Ordering::Greater => 0.0,
            };
        }
        if n == 0 { 0.5 } else { sum / n as f64 }
    }

    /// Seat `s`'s result: a win is the first place when not every seat shares it; a draw,
    /// every seat in the same place.
    pub(crate) fn outcome(&self, s: usize) -> Outcome {
        if self.places.iter().all(|&p| p == self.places[s]) {
            Outcome::Draw
        } else if self.places[s] == 1 {
            Outcome::Win
        } else {
            Outcome::Loss
        }
    }
}

fn sprt_name(s: SprtState) -> &'static str {
    match s {
        SprtState::Continue => "continue",
        SprtState::AcceptH1 => "accept_h1",
        SprtState::AcceptH0 => "accept_h0",
    }
}

/// A tournament as the server holds it: its state behind a lock, and a version the streams
/// wait on.
pub(crate) struct TournamentCell {
    pub(crate) state: Mutex<Tournament>,
    /// Bumped at every change; streams wait on it.
    pub(crate) version: watch::Sender<u64>,
    /// Held while a seat's new token is made, so two streams of one entrant (a re-entry
    /// while the old stream ends) never give one seat two tokens in turn.
    pub(crate) new_tokens: tokio::sync::Mutex<()>,
    /// Its games' seal (`game::state::Seal`): closed until it is over, since its games share
    /// its deals; opened by the driver once the end is stored.
    pub(crate) seal: Seal,
}

impl TournamentCell {
    /// A cell for `t`, at version 0.
    pub(crate) fn new(t: Tournament) -> TournamentCell {
        let seal = Seal::closed();
        if t.status == pb::TournamentStatus::Finished {
            seal.open();
        }
        TournamentCell {
            state: Mutex::new(t),
            version: watch::Sender::new(0),
            new_tokens: Default::default(),
            seal,
        }
    }

    /// The ids of its booked games.
    pub(crate) fn game_ids(&self) -> Vec<String> {
        self.state.lock().expect("lock").games.iter().map(|g| g.game_id.clone()).collect()
    }

    pub(crate) fn bump(&self) {
        self.version.send_modify(|v| *v += 1);
    }

    /// Marks game `number` as existing on the server; whether that is news.
    pub(crate) fn created(&self, number: u32) -> bool {
        let mut st = self.state.lock().expect("lock");
        match st.games.iter_mut().find(|g| g.number == number) {
            Some(g) if !g.created => {
                g.created = true;
                true
            }
            _ => false,
        }
    }
}

impl Tournament {
    /// A tournament as stored: its spec, entrants and booked games, with the plan of what is
    /// still to play rebuilt (each round's plan is a function of the results before it).
    pub(crate) fn restore(s: StoredTournament) -> anyhow::Result<Tournament> {
        let t = s.tournament;
        let id = t.id;
        let mut spec_pb = pb::TournamentSpec::decode(t.spec.as_slice())
            .map_err(|e| anyhow::anyhow!("tournament storage: tournament {id}: its spec: {e}"))?;
        // Created before the ceiling was lowered: it plays on, at the ceiling.
        spec_pb.parallel = spec_pb.parallel.min(MAX_PARALLEL);
        let mut spec = Spec::new(spec_pb)
            .map_err(|e| anyhow::anyhow!("tournament storage: tournament {id}: {}", e.message()))?;
        // The stored spec has its seed filled in: whether its creator chose it is stored apart.
        spec.fixed = t.fixed_deals;
        let entrants = s
            .entrants
            .into_iter()
            .map(|e| Entrant { name: e.name, token_hash: e.token_hash, account: e.account_id })
            .collect();
        let games: Vec<BookedGame> = s
            .games
            .into_iter()
            .map(|(b, result)| {
                let outcome =
                    result.map(|r| GameOutcome { winner: r.winner, totals: r.totals, places: r.places });
                BookedGame {
                    number: b.number,
                    round: b.round,
                    game_id: b.game_id,
                    tokens: vec![None; b.seats.len()],
                    places: outcome.as_ref().map_or(Vec::new(), |o| o.places(b.seats.len())),
                    seats: b.seats,
                    deal_seed: b.deal_seed,
                    done: outcome.is_some(),
                    winner: outcome.as_ref().and_then(|r| r.winner),
                    totals: outcome.map_or(Vec::new(), |r| r.totals),
                    // Checked by the driver before the seats are assigned.
                    created: false,
                }
            })
            .collect();
        let status = pb::TournamentStatus::try_from(t.status).unwrap_or(pb::TournamentStatus::Waiting);
        let mut st = Tournament::new(id, spec, None, t.created_ms);
        st.status = status;
        st.entrants = entrants;
        if status != pb::TournamentStatus::Waiting {
            // Replay the rounds: each round's plan is a function of the results before it.
            let last_round = games.iter().map(|g| g.round).max().unwrap_or(1).max(1);
            for round in 1..=last_round {
                st.plan_round(round);
                let booked: Vec<BookedGame> = games.iter().filter(|g| g.round == round).cloned().collect();
                // A planned game is identified by its deal and seats (unique within a round).
                for g in &booked {
                    if let Some(i) =
                        st.planned.iter().position(|p| p.seats == g.seats && p.deal_seed == g.deal_seed)
                    {
                        st.planned.remove(i);
                    }
                }
                st.games.extend(booked);
            }
            st.next_number = st.games.iter().map(|g| g.number + 1).max().unwrap_or(0);
            if st.spec.sprt.is_some() && status == pb::TournamentStatus::Running {
                st.advance();
            }
        }
        Ok(st)
    }

    /// A new tournament, waiting for its entrants.
    pub(crate) fn new(id: String, spec: Spec, creator: Option<QuotaKey>, created_ms: i64) -> Tournament {
        Tournament {
            id,
            spec,
            creator,
            created_ms,
            status: pb::TournamentStatus::Waiting,
            entrants: Vec::new(),
            games: Vec::new(),
            planned: VecDeque::new(),
            creating: 0,
            next_number: 0,
            round: 0,
            byes: HashSet::new(),
            sprt: None,
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn rating_history_is_thinned_evenly_keeping_the_first_and_the_last() {
        let few: Vec<u32> = (0..150).collect();
        assert_eq!(thin(few.clone(), 200), few, "under the limit: every point");
        let many: Vec<u32> = (0..1000).collect();
        let kept = thin(many, 200);
        assert!(kept.len() <= 200, "{}", kept.len());
        assert_eq!((kept[0], kept[1], *kept.last().unwrap()), (0, 6, 999));
        assert!(kept.windows(2).all(|w| w[1] - w[0] <= 6));
        let just_over = thin((0..201u32).collect(), 200);
        assert!((100..=200).contains(&just_over.len()) && just_over.last() == Some(&200));
        assert_eq!(thin(vec![7u32], 200), vec![7]);
        assert!(thin(Vec::<u32>::new(), 200).is_empty());
    }

    use super::*;

    fn table_spec(format: &str, entrants: u32, per_table: u32, duplicate: bool) -> Spec {
        Spec::new(pb::TournamentSpec {
            entrants,
            games_per_pairing: per_table,
            duplicate,
            game_format: format.into(),
            seed: 5,
            ..Default::default()
        })
        .unwrap()
    }

    /// A running tournament of `spec` with its whole plan booked (not played).
    fn booked(spec: Spec) -> Tournament {
        let mut t = Tournament::new("t".into(), spec, None, 1);
        for e in 0..t.spec.entrants {
            t.entrants.push(Entrant { name: format!("e{e}"), token_hash: [0; 32], account: None });
        }
        t.status = pb::TournamentStatus::Running;
        t.plan_round(1);
        let planned: Vec<Planned> = t.planned.drain(..).collect();
        for (number, p) in planned.into_iter().enumerate() {
            t.games.push(BookedGame {
                number: number as u32,
                round: p.round,
                game_id: format!("g{number}"),
                tokens: vec![None; p.seats.len()],
                seats: p.seats,
                deal_seed: p.deal_seed,
                done: false,
                winner: None,
                totals: Vec::new(),
                places: Vec::new(),
                created: true,
            });
        }
        t
    }

    #[test]
    fn a_team_round_robin_partners_every_pair_and_rotates_each_deal_over_its_seatings() {
        let t = booked(table_spec("teams", 4, 1, true));
        // One table of four: its 12 seatings (3 partnerships × 4 rotations) on one deal.
        assert_eq!(t.spec.total_games(), 12);
        assert_eq!(t.games.len(), 12);
        let deals: std::collections::HashSet<u64> = t.games.iter().map(|g| g.deal_seed).collect();
        assert_eq!(deals.len(), 1);
        let seatings: std::collections::HashSet<Vec<u32>> = t.games.iter().map(|g| g.seats.clone()).collect();
        assert_eq!(seatings.len(), 12, "12 different seatings");
        // Without duplicate deals, each game has a deal of its own.
        let t = booked(table_spec("teams", 5, 12, false));
        assert_eq!(t.games.len(), 5 * 12);
        let deals: std::collections::HashSet<u64> = t.games.iter().map(|g| g.deal_seed).collect();
        assert_eq!(deals.len(), 60);
        // Games per table are rounded up to a whole number of seatings.
        assert_eq!(table_spec("rummy", 4, 5, false).per_pairing, 8, "4 seatings at rummy for 4");
        assert_eq!(table_spec("teams", 4, 13, true).per_pairing, 24);
    }

    #[test]
    fn team_standings_score_partners_together_and_never_against_each_other() {
        let mut t = booked(table_spec("teams", 4, 1, true));
        // Seats 0 and 2 are a team, 1 and 3 the other. In every game, the team of seat 0
        // wins with 120 to 40.
        let numbers: Vec<u32> = t.games.iter().map(|g| g.number).collect();
        for n in numbers {
            let won = GameOutcome { winner: None, totals: vec![120, 40, 120, 40], places: vec![1, 2, 1, 2] };
            assert!(t.finish_game(n, &won));
            assert!(!t.finish_game(n, &won), "booked once");
        }
        let st = t.standings();
        // Each entrant sat in seat 0 or 2 in half of the 12 seatings: 6 wins, 6 losses.
        for r in &st.rows {
            assert_eq!((r.games, r.wins, r.losses, r.draws), (12, 6, 6, 0), "{r:?}");
            assert!((r.score - 0.5).abs() < 1e-12, "a partner's place is never a pairwise result");
            assert_eq!(r.table_points, 6 * 120 + 6 * 40);
            assert!((r.mean_place - 1.5).abs() < 1e-12);
        }
        // Six partnerships, each 4 games together (both on the winning team in 2 of them).
        assert_eq!(st.teams.len(), 6);
        for team in &st.teams {
            assert_eq!(team.entrants.len(), 2);
            assert!(team.entrants[0] < team.entrants[1]);
            assert_eq!(team.names, team.entrants.iter().map(|e| format!("e{e}")).collect::<Vec<_>>());
            assert_eq!((team.games, team.wins, team.losses), (4, 2, 2), "{team:?}");
            assert_eq!(team.points, 2 * 120 + 2 * 40);
            assert!((team.score - 0.5).abs() < 1e-12);
        }
    }

    #[test]
    fn a_table_game_scores_each_seat_pairwise_by_place() {
        let g = BookedGame {
            number: 0,
            round: 1,
            game_id: "g".into(),
            seats: vec![0, 1, 2, 3],
            tokens: vec![None; 4],
            deal_seed: 0,
            done: true,
            winner: None,
            totals: vec![50, 50, 10, -5],
            places: vec![1, 1, 3, 4],
            created: true,
        };
        // Seat 0: tie with seat 1 (0.5), better than 2 and 3 (1 each): 2.5 / 3.
        assert!((g.score(0, false) - 2.5 / 3.0).abs() < 1e-12);
        assert!((g.score(2, false) - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(g.score(3, false), 0.0);
        assert_eq!((g.outcome(0), g.outcome(1), g.outcome(3)), (Outcome::Win, Outcome::Win, Outcome::Loss));
        let all_tied = BookedGame { places: vec![1, 1, 1, 1], ..g.clone() };
        assert_eq!(all_tied.outcome(2), Outcome::Draw);
        assert_eq!(all_tied.score(2, false), 0.5);
        // Two players: the winner gets 1, places from the winner.
        let two = GameOutcome { winner: Some(1), totals: vec![30, 140], places: Vec::new() };
        assert_eq!(two.places(2), vec![2, 1]);
        let drawn = GameOutcome { winner: None, ..two };
        assert_eq!(drawn.places(2), vec![1, 1]);
    }
}
