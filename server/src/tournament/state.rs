//! One tournament in memory ([`Tournament`]): its entrants, booked games, the plan of what is
//! still to play, standings; how it advances (results, SPRT, the next Swiss round); how it is
//! rebuilt from its stored rows at start. No I/O here.

use std::collections::{HashSet, VecDeque};
use std::sync::Mutex;

use gin_proto::v1 as pb;
use gin_strategies::stats::{SprtState, Tally};
use prost::Message;
use tokio::sync::watch;

use super::pairing;
use super::spec::{MAX_PARALLEL, Planned, Spec};
use crate::storage::StoredTournament;

#[derive(Clone, Debug)]
/// A booked game: in the store, created on the server once `created`.
pub(crate) struct BookedGame {
    pub(crate) number: u32,
    pub(crate) round: u32,
    pub(crate) game_id: String,
    pub(crate) seats: [u32; 2],
    /// The seats' tokens, in memory only: the store keeps their hashes (with the game's
    /// seats), never the tokens. `None` after a restart, until the entrant re-enters and is
    /// handed a new one (`Tournaments::seat_token`).
    pub(crate) tokens: [Option<String>; 2],
    pub(crate) deal_seed: u64,
    pub(crate) done: bool,
    pub(crate) winner: Option<u32>,
    pub(crate) totals: [u32; 2],
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
}

/// One tournament in memory: its spec, entrants, booked games, what is still to play.
pub(crate) struct Tournament {
    pub(crate) id: String,
    pub(crate) spec: Spec,
    /// Who created it (its games count against that address's unfinished games); not
    /// stored: after a restart its games count against nobody, like every game's.
    pub(crate) creator: Option<std::net::IpAddr>,
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

    /// Entrant `e`'s per-game scores.
    pub(crate) fn tally(&self, e: u32) -> Tally {
        let mut t = Tally::default();
        for g in self.games.iter().filter(|g| g.done) {
            let Some(s) = g.seats.iter().position(|&x| x == e) else { continue };
            t.add(match g.winner {
                Some(w) if w as usize == s => 1.0,
                Some(_) => 0.0,
                None => 0.5,
            });
        }
        t
    }

    pub(crate) fn standings(&self) -> pb::Standings {
        let mut rows: Vec<pb::Standing> = (0..self.entrants.len() as u32)
            .map(|e| {
                let mut r = pb::Standing {
                    entrant: e,
                    name: self.entrants[e as usize].name.clone(),
                    ..Default::default()
                };
                for g in self.games.iter().filter(|g| g.done) {
                    let Some(s) = g.seats.iter().position(|&x| x == e) else { continue };
                    r.games += 1;
                    match g.winner {
                        Some(w) if w as usize == s => r.wins += 1,
                        Some(_) => r.losses += 1,
                        None => r.draws += 1,
                    }
                    r.points_for += g.totals[s] as u64;
                    r.points_against += g.totals[1 - s] as u64;
                }
                let t = self.tally(e);
                r.score = t.mean();
                if let Some(est) = t.elo() {
                    (r.elo, r.elo_low, r.elo_high) = (est.elo, est.low, est.high);
                }
                r
            })
            .collect();
        rows.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then(
                    (b.points_for as i64 - b.points_against as i64)
                        .cmp(&(a.points_for as i64 - a.points_against as i64)),
                )
                .then(a.entrant.cmp(&b.entrant))
        });
        pb::Standings { rows }
    }

    pub(crate) fn state(&self, with_games: bool) -> pb::TournamentState {
        let over = self.status == pb::TournamentStatus::Finished;
        let mut spec = self.spec.pb.clone();
        if !over {
            spec.seed = 0; // every deal derives from it: secret until the end
        }
        let (lo, hi) = self.spec.sprt.map(|s| s.bounds()).unwrap_or((0.0, 0.0));
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
                        totals: if g.done { g.totals.to_vec() } else { Vec::new() },
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
        }
    }

    /// Books a finished game's result; returns false if it was already booked.
    pub(crate) fn finish_game(&mut self, number: u32, winner: Option<u32>, totals: [u32; 2]) -> bool {
        let Some(g) = self.games.iter_mut().find(|g| g.number == number) else { return false };
        if g.done {
            return false;
        }
        g.done = true;
        g.winner = winner;
        g.totals = totals;
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
}

impl TournamentCell {
    /// A cell for `t`, at version 0.
    pub(crate) fn new(t: Tournament) -> TournamentCell {
        TournamentCell {
            state: Mutex::new(t),
            version: watch::Sender::new(0),
            new_tokens: Default::default(),
        }
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
        let entrants =
            s.entrants.into_iter().map(|e| Entrant { name: e.name, token_hash: e.token_hash }).collect();
        let games: Vec<BookedGame> = s
            .games
            .into_iter()
            .map(|(b, result)| BookedGame {
                number: b.number,
                round: b.round,
                game_id: b.game_id,
                seats: b.seats,
                tokens: [None, None],
                deal_seed: b.deal_seed,
                done: result.is_some(),
                winner: result.as_ref().and_then(|r| r.winner),
                totals: result.map_or([0, 0], |r| r.totals),
                // Checked by the driver before the seats are assigned.
                created: false,
            })
            .collect();
        let status = pb::TournamentStatus::try_from(t.status).unwrap_or(pb::TournamentStatus::Waiting);
        let mut st = Tournament::new(id, spec, None);
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
    pub(crate) fn new(id: String, spec: Spec, creator: Option<std::net::IpAddr>) -> Tournament {
        Tournament {
            id,
            spec,
            creator,
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
