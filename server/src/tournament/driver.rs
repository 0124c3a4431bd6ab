//! The driver of a running tournament: creates its games up to the `parallel` limit (each
//! booked in the store first, then created on the server with both seats taken), books the
//! finished ones, advances rounds, until the end; and the seat tokens of games found after a
//! restart.
//!
//!
//! It books games up to `parallel` and its creator's limit of unfinished games (reserved
//! before booking); each game is booked (its row with the game id) before it is created with
//! both seats in one store write (`Shared::create_seated_game`), and a booked game that does
//! not exist (a crash between the two writes) is created by the driver. Seats are assigned
//! once the game exists; the game is sealed before it exists (`Shared::seal`), and the seal
//! is opened once the tournament's end is stored. `seat_token`: after a restart a game in play
//! gets a new token for the entrant that re-enters (`Shared::new_seat_token`).

use std::sync::Arc;
use std::time::Duration;

use gin_proto::v1 as pb;
use tonic::Status;

use super::spec::Planned;
use super::state::{BookedGame, GameOutcome, TournamentCell};
use super::{Tournaments, storage_status};
use crate::game::GameError;
use crate::game::shared::{NewSeat, new_id, new_token};
use crate::storage::{BookedRow, ResultRow, TournamentWrite};

impl Tournaments {
    /// Creates games up to the limit, books finished ones, advances rounds, until the end.
    pub(super) async fn drive(&self, cell: Arc<TournamentCell>) {
        let mut shutdown = self.0.shutdown.subscribe();
        loop {
            if *shutdown.borrow_and_update() {
                return;
            }
            // Start games.
            let to_create: Vec<(u32, Planned, Vec<String>)> = {
                let mut st = cell.state.lock().expect("lock");
                if st.status != pb::TournamentStatus::Running {
                    return;
                }
                let free = st.spec.parallel.saturating_sub(st.running());
                let mut picked = st.take_playable(free as usize);
                // Its games count against its creator's unfinished games: one is reserved for
                // each game started (given back at its end, or if it is not created); the
                // others wait for a game to end.
                let granted = self.0.shared.reserve_up_to(st.creator.as_ref(), picked.len() as u32) as usize;
                for p in picked.drain(granted..).rev() {
                    st.planned.push_front(p);
                }
                let mut v = Vec::with_capacity(picked.len());
                for p in picked {
                    let number = st.next_number;
                    st.next_number += 1;
                    let names = p.seats.iter().map(|&e| st.entrants[e as usize].name.clone()).collect();
                    v.push((number, p, names));
                }
                st.creating += v.len() as u32;
                v
            };
            // Create them concurrently (their store writes share group commits). A failed
            // one goes back to the plan; a restart finds created games by their deal and
            // seats, whatever their order.
            let mut creations = tokio::task::JoinSet::new();
            for (number, p, names) in to_create {
                let (t, c) = (self.clone(), cell.clone());
                creations.spawn(async move {
                    let r = t.create_game(&c, number, p.clone(), names).await;
                    (p, r)
                });
            }
            let mut failed = false;
            while let Some(r) = creations.join_next().await {
                match r {
                    Ok((_, Ok(()))) => cell.bump(),
                    Ok((p, Err(e))) => {
                        tracing::warn!(error = %e, "tournament: cannot create a game; retrying");
                        let mut st = cell.state.lock().expect("lock");
                        st.creating -= 1;
                        st.planned.push_front(p);
                        failed = true;
                    }
                    Err(e) => {
                        // A panic (a bug): that game is lost to the plan, but the tournament
                        // must not wait for it forever.
                        tracing::error!(error = %e, "tournament: game creation task failed");
                        cell.state.lock().expect("lock").creating -= 1;
                        failed = true;
                    }
                }
            }
            if failed {
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            // Book finished games.
            let (running, idle, tables) = {
                let st = cell.state.lock().expect("lock");
                let r: Vec<(u32, String, bool)> = st
                    .games
                    .iter()
                    .filter(|g| !g.done)
                    .map(|g| (g.number, g.game_id.clone(), g.created))
                    .collect();
                let idle = r.is_empty() && st.creating == 0 && st.planned.is_empty();
                (r, idle, st.spec.tables())
            };
            let mut finished = Vec::new();
            for (number, game_id, created) in running {
                let gc = match self.0.shared.game(&game_id).await {
                    Ok(gc) => {
                        if !created && cell.created(number) {
                            cell.bump();
                        }
                        gc
                    }
                    Err(GameError::NotFound(_)) => {
                        // Booked but not created (a crash between the two writes, or a
                        // failed creation): create it now.
                        let booked = {
                            let st = cell.state.lock().expect("lock");
                            st.games.iter().find(|g| g.number == number).cloned().map(|g| {
                                let names =
                                    g.seats.iter().map(|&e| st.entrants[e as usize].name.clone()).collect();
                                (g, names)
                            })
                        };
                        // One of its creator's games for it, once one is free.
                        let creator = cell.state.lock().expect("lock").creator.clone();
                        let booked = booked.filter(|_| self.0.shared.reserve(creator.as_ref()).is_ok());
                        if let Some((g, names)) = booked {
                            match self.ensure_game(&cell, &g, names, true).await {
                                Ok(()) => {
                                    cell.created(number);
                                    cell.bump();
                                }
                                Err(e) => {
                                    tracing::warn!(error = %e, game = %g.game_id, "tournament: cannot create a booked game yet")
                                }
                            }
                        }
                        continue;
                    }
                    Err(_) => continue,
                };
                let gs = gc.state.lock().await;
                if let Some(r) = &gs.ended {
                    finished.push((number, GameOutcome::of(r, tables)));
                }
            }
            // `idle`: nothing left to play or book (e.g. after a restart): advance anyway.
            if !finished.is_empty() || idle {
                let (rows, over, id) = {
                    let mut st = cell.state.lock().expect("lock");
                    let mut rows = Vec::new();
                    for (number, outcome) in finished {
                        if st.finish_game(number, &outcome) {
                            rows.push((number, outcome));
                        }
                    }
                    let over = st.advance();
                    (rows, over, st.id.clone())
                };
                let mut writes: Vec<TournamentWrite> = rows
                    .into_iter()
                    .map(|(number, o)| TournamentWrite::Result {
                        tournament_id: id.clone(),
                        result: ResultRow { number, winner: o.winner, totals: o.totals, places: o.places },
                    })
                    .collect();
                if over {
                    writes.push(TournamentWrite::Status {
                        tournament_id: id.clone(),
                        status: pb::TournamentStatus::Finished as i32,
                    });
                }
                let stored = self.store(writes).await;
                if let Err(e) = stored {
                    tracing::error!(error = %e, "tournament: cannot store results");
                }
                if over {
                    // Its deals may be shown now: every game of it is over.
                    cell.seal.open();
                    self.0.shared.unseal(&cell.game_ids());
                }
                cell.bump();
                if over {
                    tracing::info!(tournament = %id, "tournament over");
                    return;
                }
            }
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(10)) => {}
                _ = shutdown.changed() => {}
            }
        }
    }

    /// Books one tournament game and creates it with both seats taken. The booking (its row,
    /// with the game's id and seat tokens chosen here) is written first and the game, seats
    /// included, in one write after it: a crash between the two leaves a booked game that
    /// does not exist yet, which the driver creates (see [`Tournaments::ensure_game`]), never a
    /// game the tournament does not know.
    async fn create_game(
        &self,
        cell: &TournamentCell,
        number: u32,
        p: Planned,
        names: Vec<String>,
    ) -> Result<(), Status> {
        let tid = cell.state.lock().expect("lock").id.clone();
        let game_id = new_id(self.0.shared.cfg.route_tag.as_deref());
        // Sealed before it exists: it shares the tournament's deals (see `game::state::Seal`).
        self.0.shared.seal(std::slice::from_ref(&game_id), &cell.seal);
        let tokens = p.seats.iter().map(|_| Some(new_token())).collect();
        let g = BookedGame {
            number,
            round: p.round,
            game_id: game_id.clone(),
            seats: p.seats.clone(),
            tokens,
            deal_seed: p.deal_seed,
            done: false,
            winner: None,
            totals: Vec::new(),
            places: Vec::new(),
            created: false,
        };
        let booking = self
            .store(vec![TournamentWrite::Book {
                tournament_id: tid,
                game: BookedRow { number, round: p.round, game_id, seats: p.seats, deal_seed: p.deal_seed },
            }])
            .await
            .map_err(storage_status);
        if let Err(e) = booking {
            self.0.shared.unseal(std::slice::from_ref(&g.game_id));
            let creator = cell.state.lock().expect("lock").creator.clone();
            self.0.shared.release_caller(creator.as_ref());
            return Err(e);
        }
        let booked = g.clone();
        {
            let mut st = cell.state.lock().expect("lock");
            st.creating -= 1;
            st.games.push(g);
            st.games.sort_by_key(|g| g.number);
        }
        // Booked: from here on a failure only delays the game (the driver creates it).
        match self.ensure_game(cell, &booked, names, true).await {
            Ok(()) => {
                cell.created(number);
            }
            Err(e) => {
                tracing::warn!(error = %e, game = %booked.game_id, "tournament: cannot create a booked game yet")
            }
        }
        Ok(())
    }

    /// The token of seat `seat` of tournament game `number` (`game_id`): the one in memory,
    /// or, for a game created before a restart (the store keeps no token), a new one made
    /// durable by the game layer, the old one identifying nobody from then on.
    pub(super) async fn seat_token(
        &self,
        cell: &TournamentCell,
        number: u32,
        game_id: &str,
        seat: usize,
    ) -> Result<String, GameError> {
        let known = |cell: &TournamentCell| {
            let st = cell.state.lock().expect("lock");
            st.games.iter().find(|g| g.number == number).and_then(|g| g.tokens.get(seat).cloned().flatten())
        };
        let _one_at_a_time = cell.new_tokens.lock().await;
        if let Some(t) = known(cell) {
            return Ok(t);
        }
        let s = u8::try_from(seat).map_err(|_| GameError::Invalid(format!("seat {seat}")))?;
        let token = self.0.shared.new_seat_token(game_id, s).await?;
        let mut st = cell.state.lock().expect("lock");
        if let Some(t) = st.games.iter_mut().find(|g| g.number == number).and_then(|g| g.tokens.get_mut(seat))
        {
            *t = Some(token.clone());
        }
        Ok(token)
    }

    /// Creates booked game `g` (every seat taken, with its tokens: new ones if it has none,
    /// after a restart) unless it exists.
    async fn ensure_game(
        &self,
        cell: &TournamentCell,
        g: &BookedGame,
        names: Vec<String>,
        reserved: bool,
    ) -> Result<(), Status> {
        let sh = &self.0.shared;
        let (format, clock, fixed, creator, accounts) = {
            let st = cell.state.lock().expect("lock");
            let accounts: Vec<Option<String>> = g
                .seats
                .iter()
                .map(|&e| st.entrants.get(e as usize).and_then(|x| x.account.clone()))
                .collect();
            (st.spec.game.clone(), st.spec.clock, st.spec.fixed, st.creator.clone(), accounts)
        };
        // The creator's reservation for this game, given back if it is not created here.
        let creator = creator.filter(|_| reserved);
        match sh.game(&g.game_id).await {
            Ok(_) => {
                sh.release_caller(creator.as_ref());
                return Ok(());
            }
            Err(GameError::NotFound(_)) => {}
            Err(e) => {
                sh.release_caller(creator.as_ref());
                return Err(e.into());
            }
        }
        let tokens: Vec<String> = g.tokens.iter().map(|t| t.clone().unwrap_or_else(new_token)).collect();
        // An entrant that entered signed in holds its seats as its account (named and marked as
        // it, in its history).
        let seats = names
            .into_iter()
            .zip(&tokens)
            .zip(accounts)
            .map(|((name, token), account)| NewSeat {
                name,
                token: token.clone(),
                bot: true,
                account: account.map(|id| sh.seat_account(&id)),
            })
            .collect();
        sh.create_seated_game(
            g.game_id.clone(),
            format,
            clock,
            g.deal_seed,
            fixed,
            seats,
            String::new(),
            creator.as_ref(),
        )
        .await?;
        let mut st = cell.state.lock().expect("lock");
        if let Some(b) = st.games.iter_mut().find(|b| b.number == g.number) {
            b.tokens = tokens.into_iter().map(Some).collect();
        }
        Ok(())
    }
}
