//! The gRPC services: decoding at the edge, then the shared state.

use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use engine::{Action, Seat};
use gin_proto::v1 as pb;
use gin_proto::v1::game_service_server::GameService;
use gin_proto::v1::lobby_service_server::LobbyService;
use tokio::sync::{mpsc, oneshot};
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use crate::convert;
use crate::shared::{ClaimedToken, SeatIdentity, Shared, Waiter, claimed_seat, now_ms};
use crate::state::{EarlyEnd, Watcher};
use crate::storage::ActionKind;

/// `LobbyService`.
pub struct Lobby(pub Shared);

/// `GameService`.
pub struct Games(pub Shared);

fn peer_ip<T>(r: &Request<T>) -> Option<IpAddr> {
    r.remote_addr().map(|a| a.ip())
}

/// A request's game id, checked (and noted in the call's span).
fn game_id(id: &str) -> Result<&str, Status> {
    if id.is_empty() || id.len() > 64 {
        return Err(Status::invalid_argument("game_id: required, at most 64 characters"));
    }
    in_game(id);
    Ok(id)
}

/// Notes in the call's span (see `run`) the game the call is about.
pub(crate) fn in_game(id: &str) {
    tracing::Span::current().record("game", id);
}

#[tonic::async_trait]
impl LobbyService for Lobby {
    async fn create_game(
        &self,
        req: Request<pb::CreateGameRequest>,
    ) -> Result<Response<pb::CreateGameResponse>, Status> {
        let s = &self.0;
        let ip = peer_ip(&req);
        let r = req.into_inner();
        let rules = convert::rules(r.rules.as_ref())?;
        let clock = clock(r.clock)?;
        let house = crate::house::check(&r.house_bot)?;
        let want = r.seat.map(|n| convert::seat("seat", n)).transpose()?;
        if r.join {
            crate::shared::clean_name(&r.name)?;
        }
        let id = s.create_game(rules, clock, r.house_bot.clone(), r.seed, ip).await?;
        in_game(&id);
        let mut resp = pb::CreateGameResponse { game_id: id.clone(), seat: None, seat_token: String::new() };
        let human = want.unwrap_or(Seat::S0);
        let cell = s.game(&id).await?;
        if house {
            // The bot takes the other seat; nobody ever holds its token.
            s.join(&cell, Some(human.other()), crate::house::display_name(&r.house_bot), true, true).await?;
        }
        if r.join {
            // The creator chose the seed, if any: it accepts its own deals.
            let (seat, token) = s.join(&cell, Some(human), r.name, false, true).await?;
            resp.seat = Some(seat.index() as u32);
            resp.seat_token = token;
        }
        Ok(Response::new(resp))
    }

    async fn join_game(
        &self,
        req: Request<pb::JoinGameRequest>,
    ) -> Result<Response<pb::JoinGameResponse>, Status> {
        let s = &self.0;
        let r = req.into_inner();
        let cell = s.game(game_id(&r.game_id)?).await?;
        let want = r.seat.map(|n| convert::seat("seat", n)).transpose()?;
        let (seat, token) = s.join(&cell, want, r.name, false, r.accept_fixed_deals).await?;
        Ok(Response::new(pb::JoinGameResponse { seat: seat.index() as u32, seat_token: token }))
    }

    async fn list_games(
        &self,
        req: Request<pb::ListGamesRequest>,
    ) -> Result<Response<pb::ListGamesResponse>, Status> {
        let s = &self.0;
        let n = match req.get_ref().page_size {
            0 => 100,
            n => n.min(100) as usize,
        };
        let ids: Vec<String> =
            s.open.lock().expect("lock").iter().rev().take(n).map(|(_, id)| id.clone()).collect();
        let mut games = Vec::with_capacity(ids.len());
        for id in ids {
            let Ok(cell) = s.game(&id).await else { continue };
            let st = cell.state.lock().await;
            if st.is_over() {
                continue; // ended while this list was made
            }
            let snap = st.snapshot(None);
            games.push(pb::OpenGame {
                game_id: id,
                rules: snap.rules,
                clock: snap.clock,
                seats: snap.seats,
                created_unix_ms: st.info.created_ms,
                fixed_deals: st.info.fixed_deals,
            });
        }
        Ok(Response::new(pb::ListGamesResponse { games }))
    }

    async fn quick_match(
        &self,
        req: Request<pb::QuickMatchRequest>,
    ) -> Result<Response<pb::QuickMatchResponse>, Status> {
        let s = self.0.clone();
        let ip = peer_ip(&req);
        // The caller's connection (address and port): one client's calls are never paired.
        let conn = req.remote_addr();
        let r = req.into_inner();
        let rules = convert::rules(r.rules.as_ref())?;
        let clock = clock(r.clock)?;
        // Checked and trimmed once: a pair's game is created with the names as they are.
        let name = crate::shared::clean_name(&r.name)?;
        let house = crate::house::check(&r.house_bot)?;
        let bot_after = match (house, r.house_bot_after_ms) {
            (false, 0) => None,
            (false, _) => return Err(Status::invalid_argument("house_bot_after_ms: only with house_bot")),
            (true, 0) => Some(HOUSE_BOT_AFTER),
            (true, ms) if Duration::from_millis(ms.into()) <= QUICK_MATCH_WAIT => {
                Some(Duration::from_millis(ms.into()))
            }
            (true, _) => return Err(Status::invalid_argument("house_bot_after_ms: at most 60000")),
        };
        let key = format!(
            "{}|{}|{}",
            serde_json::to_string(&rules).expect("rules serialize"),
            clock.turn_millis,
            clock.policy
        );
        // Someone else is waiting for the same game: seat both, once that caller took its
        // seat. Else wait in the queue: looked up and joined under one lock, so two callers
        // cannot both find it empty.
        let (tx, mut rx) = oneshot::channel();
        let ticket = {
            let mut t = s.tickets.lock().expect("lock");
            *t += 1;
            *t
        };
        let mut tx = Some(tx);
        loop {
            let partner = {
                let mut waiting = s.waiting.lock().expect("lock");
                let queue = waiting.entry(key.clone()).or_default();
                // Calls that ended are gone (each also leaves on its own, see `Leave`).
                queue.retain(|w| !w.tx.is_closed());
                // Two calls of one connection are one client: never its own partner.
                let found = queue.iter().position(|w| conn.is_none() || w.conn != conn);
                let found = found.map(|i| queue.remove(i));
                if found.is_none() {
                    let tx = tx.take().expect("queued once");
                    queue.push(Waiter { tx, name: name.clone(), ticket, conn });
                } else if queue.is_empty() {
                    waiting.remove(&key);
                }
                found
            };
            let Some(w) = partner else { break };
            // The game counts against the caller who pairs (as any game, against its creator).
            if let Err(e) = s.reserve(ip) {
                // Over its limit: the partner waits on for someone else.
                let mut waiting = s.waiting.lock().expect("lock");
                waiting.entry(key.clone()).or_default().insert(0, w);
                return Err(e);
            }
            // Seated in a task of its own, which this call answers to like the partner: a call
            // that goes away cannot leave the pair half-made.
            let (answer, mine) = oneshot::channel();
            tokio::spawn(seat_pair(s.clone(), rules.clone(), clock, w, name.clone(), ip, answer));
            match mine.await {
                Ok(Ok(Some(seat))) => return Ok(take_seat(seat)),
                // The partner had left: its game was called off. Look again.
                Ok(Ok(None)) => continue,
                Ok(Err(e)) => return Err(e),
                Err(_) => return Err(interrupted()),
            }
        }
        // Leave the queue when this call ends in any way (answered, timed out, cancelled).
        struct Leave(Shared, String, u64);
        impl Leave {
            /// Takes this caller out of the queue; false if a partner took it first.
            fn now(&self) -> bool {
                let mut w = self.0.waiting.lock().expect("lock");
                let Some(queue) = w.get_mut(&self.1) else { return false };
                let before = queue.len();
                queue.retain(|x| x.ticket != self.2);
                let queued = queue.len() < before;
                if queue.is_empty() {
                    w.remove(&self.1);
                }
                queued
            }
        }
        impl Drop for Leave {
            fn drop(&mut self) {
                self.now();
            }
        }
        let leave = Leave(s.clone(), key, ticket);
        let mut wait = QUICK_MATCH_WAIT;
        if let Some(after) = bot_after {
            if let Ok(answer) = tokio::time::timeout(after, &mut rx).await {
                return paired(answer);
            }
            if leave.now() {
                // Nobody came: the house bot takes seat 1, as in `create_game`.
                let id = s.create_game(rules, clock, r.house_bot.clone(), 0, ip).await?;
                let cell = s.game(&id).await?;
                s.join(&cell, Some(Seat::S1), crate::house::display_name(&r.house_bot), true, true).await?;
                let (seat, token) = s.join(&cell, Some(Seat::S0), r.name, false, false).await?;
                return Ok(Response::new(pb::QuickMatchResponse {
                    game_id: id,
                    seat: seat.index() as u32,
                    seat_token: token,
                    house_bot: r.house_bot,
                }));
            }
            // A partner took this caller just now: its answer is on the way.
            wait = wait.saturating_sub(after).max(Duration::from_secs(5));
        }
        match tokio::time::timeout(wait, rx).await {
            Ok(answer) => paired(answer),
            Err(_) => Err(Status::deadline_exceeded("nobody asked for the same rules within 60 s")),
        }
    }
}

/// How long a quick match waits for a partner.
const QUICK_MATCH_WAIT: Duration = Duration::from_secs(60);
/// How long a quick match with a house bot waits for a person first, unless told.
const HOUSE_BOT_AFTER: Duration = Duration::from_secs(10);

/// The seat a quick-match pairing sent this call (a dropped sender: it failed half-way). The
/// seat is acknowledged in the same poll that takes it and returns it, so a pairing told "taken"
/// knows this call answers with it; a call dropped before that never acknowledges (the answer
/// is dropped with it), and the pairing calls the game off.
fn paired(
    answer: Result<Result<crate::shared::Pairing, Status>, oneshot::error::RecvError>,
) -> Result<Response<pb::QuickMatchResponse>, Status> {
    match answer {
        Ok(Ok(seat)) => Ok(take_seat(seat)),
        Ok(Err(e)) => Err(e),
        Err(_) => Err(interrupted()),
    }
}

/// Takes a quick-match seat: acknowledges it, and (with no await in between) answers with it.
fn take_seat((seat, ack): crate::shared::Pairing) -> Response<pb::QuickMatchResponse> {
    let _ = ack.send(());
    in_game(&seat.game_id);
    Response::new(seat)
}

fn interrupted() -> Status {
    Status::unavailable("quick match was interrupted; ask again")
}

/// Seats quick-match waiter `w` (seat 0) and the caller `name` (seat 1) in a new game,
/// created with both seats in one write and counted against `ip` (reserved already). Each of
/// the two calls gets its seat with an acknowledgment to send in the poll that returns it
/// ([`paired`]): the waiter first; a waiter gone by then never acknowledges, the game is called
/// off (it ends cancelled, with no winner) and the caller is told `None` (it looks for another
/// partner); a caller gone before it took its seat has the game called off too. So nobody is
/// ever left in a game with a seat nobody holds. Runs in a task of its own.
async fn seat_pair(
    s: Shared,
    rules: engine::RuleSet,
    clock: pb::TurnClock,
    w: Waiter,
    name: String,
    ip: Option<IpAddr>,
    caller: oneshot::Sender<Result<Option<crate::shared::Pairing>, Status>>,
) {
    use crate::shared::{NewSeat, random_bytes, random_seed};
    let id = hex::encode(random_bytes::<8>());
    let tokens = [hex::encode(random_bytes::<16>()), hex::encode(random_bytes::<16>())];
    let seats = [
        NewSeat { name: w.name.clone(), token: tokens[0].clone(), bot: false },
        NewSeat { name, token: tokens[1].clone(), bot: false },
    ];
    if let Err(e) = s.create_seated_game(id.clone(), rules, clock, random_seed(), false, seats, ip).await {
        // Both asked for this game.
        let _ = w.tx.send(Err(e.clone()));
        let _ = caller.send(Err(e));
        return;
    }
    let [theirs, mine] = tokens;
    let answer = |seat: Seat, seat_token: String| pb::QuickMatchResponse {
        game_id: id.clone(),
        seat: seat.index() as u32,
        seat_token,
        house_bot: String::new(),
    };
    // A call gone already drops the answer, and with it the acknowledgment, at once.
    let (ack, acked) = oneshot::channel();
    let _ = w.tx.send(Ok((answer(Seat::S0, theirs), ack)));
    if acked.await.is_err() {
        tracing::info!(game = %id, "quick-match partner left while being seated: game called off");
        crate::expiry::call_off(&s, &id).await;
        let _ = caller.send(Ok(None));
        return;
    }
    let (ack, acked) = oneshot::channel();
    let _ = caller.send(Ok(Some((answer(Seat::S1, mine), ack))));
    if acked.await.is_err() {
        tracing::info!(game = %id, "quick-match caller left while being seated: game called off");
        crate::expiry::call_off(&s, &id).await;
    }
}

pub(crate) fn clock(c: Option<pb::TurnClock>) -> Result<pb::TurnClock, Status> {
    let c = c.unwrap_or_default();
    if c.turn_millis != 0 && !(100..=3_600_000).contains(&c.turn_millis) {
        return Err(Status::invalid_argument("clock.turn_millis: 0 (no clock) or 100 to 3600000"));
    }
    if pb::ClockPolicy::try_from(c.policy).is_err() {
        return Err(Status::invalid_argument("clock.policy: unknown value"));
    }
    Ok(c)
}

impl Games {
    /// The seat of an acting request in `game`: its identity, checked against the game; a
    /// [`ClaimedToken`] is checked against the game's seats (the game read back if it left
    /// memory).
    async fn seat_for<T>(&self, req: &Request<T>, game: &str) -> Result<Seat, Status> {
        if let Some(claim) = req.extensions().get::<ClaimedToken>() {
            let cell = self.0.game(game).await?;
            let st = cell.state.lock().await;
            return claimed_seat(&st, &claim.token_hash);
        }
        let id = req.extensions().get::<SeatIdentity>().ok_or_else(|| {
            Status::unauthenticated("actions need a seat token: metadata `authorization: Bearer <token>`")
        })?;
        if id.game_id != game {
            // A game that does not exist is not found, whoever asks.
            self.0.game(game).await?;
            return Err(Status::permission_denied("this seat token is for another game"));
        }
        Ok(id.seat)
    }

    /// Whose view a request has of game `st`: its seat's, or a spectator's (no token, or the
    /// token of a seat in another game). A [`ClaimedToken`] must be a seat of `st`.
    fn viewer<T>(&self, req: &Request<T>, st: &crate::state::GameState) -> Result<Option<Seat>, Status> {
        if let Some(claim) = req.extensions().get::<ClaimedToken>() {
            return claimed_seat(st, &claim.token_hash).map(Some);
        }
        Ok(req.extensions().get::<SeatIdentity>().filter(|id| id.game_id == st.info.id).map(|id| id.seat))
    }

    /// The common path of every client action: auth, rate limit, then [`act_as`].
    async fn act<T, R: Send + 'static>(
        &self,
        req: &Request<T>,
        game: &str,
        expected_seq: u64,
        f: impl FnOnce(&mut crate::state::GameState, Seat, i64) -> Result<R, Status> + Send + 'static,
    ) -> Result<(u64, R), Status> {
        let s = &self.0;
        let game = game_id(game)?;
        let seat = self.seat_for(req, game).await?;
        act_as(s, game, seat, expected_seq, f).await
    }

    async fn play<T>(
        &self,
        req: &Request<T>,
        game: &str,
        expected_seq: u64,
        action: Action,
    ) -> Result<u64, Status> {
        let (seq, _) = self
            .act(req, game, expected_seq, move |st, seat, now| st.play(seat, &action, ActionKind::Play, now))
            .await?;
        Ok(seq)
    }
}

/// The path of every action, by a client (after auth) or a house bot: the game's lock,
/// `expected_seq`, the change `f` by `seat`, durable write, publish, clock, house bot. On any
/// error nothing was applied.
///
/// A caller that goes away (its connection dropped while the answer was on its way) must not
/// cancel an action half-way, applied in memory but neither durable nor published, with its
/// turn's clock and house bot never armed: once the change is applied, the rest is a
/// `Commit`, which finishes in a task of its own if it is dropped before it is done. (So the
/// common case, a caller that waits, costs no task.)
pub async fn act_as<R>(
    s: &Shared,
    game: &str,
    seat: Seat,
    expected_seq: u64,
    f: impl FnOnce(&mut crate::state::GameState, Seat, i64) -> Result<R, Status>,
) -> Result<(u64, R), Status> {
    let cell = s.game(game).await?;
    let mut st = cell.state.clone().lock_owned().await;
    if st.poisoned {
        return Err(Status::unavailable("this game hit a storage failure; retry after the server restarts"));
    }
    if expected_seq != st.last_seq() {
        return Err(Status::aborted(format!(
            "stale expected_seq {expected_seq}: the game is at seq {}; nothing was applied",
            st.last_seq()
        )));
    }
    let before = st.last_seq();
    let out = f(&mut st, seat, now_ms())?;
    let durable = s.store.write(std::mem::take(&mut st.pending));
    let commit = Commit(Some(Applied { s: s.clone(), st, before, durable }));
    Ok((commit.finish().await?, out))
}

/// An action applied in memory whose writes are queued: what remains is to wait until they
/// are durable, then publish (or poison the game if the store failed). Dropped before that,
/// it finishes in a task of its own.
struct Commit(Option<Applied>);

/// The parts of a [`Commit`].
struct Applied {
    s: Shared,
    st: tokio::sync::OwnedMutexGuard<crate::state::GameState>,
    before: u64,
    durable: crate::storage::Ack,
}

impl Applied {
    /// Once the store answered: publish, release the game's quota at its end, arm the clock
    /// and the house bot; the game's seq after the action.
    fn complete(mut self, stored: Result<(), crate::storage::StoreError>) -> Result<u64, Status> {
        if let Err(e) = stored {
            self.st.poisoned = true;
            return Err(Status::internal(format!("storage: {e}")));
        }
        self.st.publish(self.before);
        if self.st.is_over() {
            self.s.game_ended(&self.st);
        }
        crate::clock::arm(&self.s, &self.st);
        crate::house::arm(&self.s, &mut self.st);
        Ok(self.st.last_seq())
    }
}

impl Commit {
    async fn finish(mut self) -> Result<u64, Status> {
        let applied = self.0.as_mut().expect("a commit finishes once");
        let stored = (&mut applied.durable).await;
        // No await from here on: the commit cannot be dropped half-way.
        self.0.take().expect("a commit finishes once").complete(stored)
    }
}

impl Drop for Commit {
    fn drop(&mut self) {
        let Some(mut applied) = self.0.take() else { return };
        // Outside a runtime (the server is gone) there is nobody to publish to; the writes
        // are queued either way.
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                let stored = (&mut applied.durable).await;
                let _ = applied.complete(stored);
            });
        }
    }
}

#[tonic::async_trait]
impl GameService for Games {
    type WatchGameStream = WatchStream;

    async fn watch_game(&self, req: Request<pb::WatchGameRequest>) -> Result<Response<WatchStream>, Status> {
        let s = &self.0;
        let r = req.get_ref();
        let game = game_id(&r.game_id)?;
        let cell = s.game(game).await?;
        let cut = Arc::new(AtomicBool::new(false));
        let (rx, last_seq) = {
            let mut st = cell.state.lock().await;
            let viewer = self.viewer(&req, &st)?;
            let after = r.resume_after_seq;
            if after > st.last_seq() {
                return Err(Status::out_of_range(format!(
                    "resume_after_seq {after} is past the game's last seq {}",
                    st.last_seq()
                )));
            }
            // Room for the whole backlog (a resume far behind gets all of it in one go: the
            // log holds it anyway) plus the live buffer.
            let backlog = if after == 0 { 1 } else { (st.last_seq() - after) as usize };
            let (tx, rx) = mpsc::channel(s.cfg.stream_buffer + backlog);
            let from = if after == 0 {
                let snap = st.snapshot(viewer);
                let msg = Box::new(pb::WatchGameResponse {
                    kind: Some(pb::watch_game_response::Kind::Snapshot(snap)),
                });
                tx.try_send(msg).map_err(|_| Status::internal("stream buffer"))?;
                st.last_seq()
            } else {
                after
            };
            st.add_watcher(Watcher { viewer, tx, cut: cut.clone() }, from);
            (rx, st.last_seq_shared.clone())
        };
        let every = s.cfg.heartbeat;
        let beat = Box::pin(tokio::time::sleep(every));
        Ok(Response::new(WatchStream { rx, cut, last_seq, every, beat, busy: false, done: false }))
    }

    async fn get_game(
        &self,
        req: Request<pb::GetGameRequest>,
    ) -> Result<Response<pb::GetGameResponse>, Status> {
        let s = &self.0;
        let game = game_id(&req.get_ref().game_id)?;
        let cell = s.game(game).await?;
        let st = cell.state.lock().await;
        let viewer = self.viewer(&req, &st)?;
        Ok(Response::new(pb::GetGameResponse { snapshot: Some(st.snapshot(viewer)) }))
    }

    async fn get_record(
        &self,
        req: Request<pb::GetRecordRequest>,
    ) -> Result<Response<pb::GetRecordResponse>, Status> {
        let s = &self.0;
        let cell = s.game(game_id(&req.get_ref().game_id)?).await?;
        let st = cell.state.lock().await;
        let Some(result) = st.ended.clone() else {
            return Err(Status::failed_precondition("the record is available once the game is over"));
        };
        let (json, text, hands) = match &st.game {
            Some(g) => {
                let rec = g.record();
                let n = g.hand_number() + 1; // the hand in play too: dealt, and over with the game
                (rec.to_json(), rec.to_text(), n)
            }
            None => (String::new(), String::new(), 0),
        };
        let reveals = (0..hands).map(|n| st.reveal(n)).collect();
        Ok(Response::new(pb::GetRecordResponse {
            record_json: json,
            record_text: text,
            reveals,
            result: Some(result),
        }))
    }

    async fn take_upcard(
        &self,
        req: Request<pb::TakeUpcardRequest>,
    ) -> Result<Response<pb::TakeUpcardResponse>, Status> {
        let r = req.get_ref();
        let (game, exp) = (r.game_id.clone(), r.expected_seq);
        let (seq, _) = self
            .act(&req, &game, exp, |st, seat, now| {
                let offer = st
                    .game
                    .as_ref()
                    .is_some_and(|g| matches!(g.hand().phase(), engine::Phase::UpcardOffer { .. }));
                // Not the seat to act: the engine says "not your turn" (below), whatever the phase.
                if !offer && !st.is_over() && st.to_act() == Some(seat) {
                    return Err(Status::failed_precondition(
                        "not now: the upcard is offered only on the first turn",
                    ));
                }
                st.play(seat, &Action::DrawPile, ActionKind::Play, now)
            })
            .await?;
        Ok(Response::new(pb::TakeUpcardResponse { seq }))
    }

    async fn pass_upcard(
        &self,
        req: Request<pb::PassUpcardRequest>,
    ) -> Result<Response<pb::PassUpcardResponse>, Status> {
        let r = req.get_ref();
        let (game, exp) = (r.game_id.clone(), r.expected_seq);
        let seq = self.play(&req, &game, exp, Action::Pass).await?;
        Ok(Response::new(pb::PassUpcardResponse { seq }))
    }

    async fn draw(&self, req: Request<pb::DrawRequest>) -> Result<Response<pb::DrawResponse>, Status> {
        let r = req.get_ref();
        let (game, exp) = (r.game_id.clone(), r.expected_seq);
        let action = match pb::DrawSource::try_from(r.source) {
            Ok(pb::DrawSource::Stock) => Action::DrawStock,
            Ok(pb::DrawSource::Pile) => Action::DrawPile,
            _ => return Err(Status::invalid_argument("source: DRAW_SOURCE_STOCK or DRAW_SOURCE_PILE")),
        };
        let (seq, card) = self
            .act(&req, &game, exp, move |st, seat, now| {
                if st.to_act() == Some(seat)
                    && st
                        .game
                        .as_ref()
                        .is_some_and(|g| matches!(g.hand().phase(), engine::Phase::UpcardOffer { .. }))
                {
                    return Err(Status::failed_precondition(
                        "not now: first turn, take the upcard (TakeUpcard) or pass (PassUpcard)",
                    ));
                }
                st.play(seat, &action, ActionKind::Play, now)?;
                // The card drawn: the Drew entry this action just logged.
                Ok(st
                    .log
                    .iter()
                    .rev()
                    .find_map(|e| match e.ev {
                        crate::state::Ev::Drew { card, .. } => Some(card.to_string()),
                        _ => None,
                    })
                    .unwrap_or_default())
            })
            .await?;
        Ok(Response::new(pb::DrawResponse { seq, card }))
    }

    async fn discard(
        &self,
        req: Request<pb::DiscardRequest>,
    ) -> Result<Response<pb::DiscardResponse>, Status> {
        let r = req.get_ref();
        let card = convert::parse_card("card", &r.card)?;
        let (game, exp) = (r.game_id.clone(), r.expected_seq);
        let seq = self.play(&req, &game, exp, Action::Discard { card }).await?;
        Ok(Response::new(pb::DiscardResponse { seq }))
    }

    async fn knock(&self, req: Request<pb::KnockRequest>) -> Result<Response<pb::KnockResponse>, Status> {
        let r = req.get_ref();
        let action = convert::knock_action(&r.discard, &r.melds)?;
        let (game, exp) = (r.game_id.clone(), r.expected_seq);
        let seq = self.play(&req, &game, exp, action).await?;
        Ok(Response::new(pb::KnockResponse { seq }))
    }

    async fn resign(&self, req: Request<pb::ResignRequest>) -> Result<Response<pb::ResignResponse>, Status> {
        let r = req.get_ref();
        let (game, exp) = (r.game_id.clone(), r.expected_seq);
        let (seq, _) =
            self.act(&req, &game, exp, |st, seat, now| st.end_early(EarlyEnd::Resign(seat), now)).await?;
        Ok(Response::new(pb::ResignResponse { seq }))
    }
}

/// The watch stream: events from the game's channel, heartbeats while idle. It ends after
/// the game-over event; when the server cut the watcher off (its buffer was full) it ends with
/// UNAVAILABLE so the client resumes from its last seq. One bounded channel of boxed
/// messages per watcher, no task.
///
/// A heartbeat goes out when a whole period passed with nothing sent: the timer is not reset
/// at every event (that costs a timer-wheel update per message on a busy stream); a message
/// marks the period busy, and a busy period's end just starts the next one. So an idle stream
/// gets its first heartbeat between one and two periods after its last event.
pub struct WatchStream {
    rx: mpsc::Receiver<Box<pb::WatchGameResponse>>,
    cut: Arc<AtomicBool>,
    last_seq: Arc<AtomicU64>,
    every: Duration,
    beat: Pin<Box<tokio::time::Sleep>>,
    /// Something was sent in the current heartbeat period.
    busy: bool,
    done: bool,
}

impl Stream for WatchStream {
    type Item = Result<pb::WatchGameResponse, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.done {
            return Poll::Ready(None);
        }
        match self.rx.poll_recv(cx) {
            Poll::Ready(Some(m)) => {
                self.busy = true;
                Poll::Ready(Some(Ok(*m)))
            }
            Poll::Ready(None) => {
                self.done = true;
                if self.cut.load(Ordering::Relaxed) {
                    Poll::Ready(Some(Err(Status::unavailable(
                        "stream cut off: the reader fell too far behind; resume with resume_after_seq",
                    ))))
                } else {
                    Poll::Ready(None)
                }
            }
            Poll::Pending => loop {
                match self.beat.as_mut().poll(cx) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(()) => {
                        let next = tokio::time::Instant::now() + self.every;
                        self.beat.as_mut().reset(next);
                        if std::mem::take(&mut self.busy) {
                            // A busy period ended: poll the new one (registers the waker).
                            continue;
                        }
                        let hb = pb::Heartbeat {
                            time_unix_ms: now_ms(),
                            last_seq: self.last_seq.load(Ordering::Relaxed),
                        };
                        return Poll::Ready(Some(Ok(pb::WatchGameResponse {
                            kind: Some(pb::watch_game_response::Kind::Heartbeat(hb)),
                        })));
                    }
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::Store;

    /// Polls `fut` once.
    fn poll_once<F: Future + Unpin>(fut: &mut F) -> Poll<F::Output> {
        let mut cx = Context::from_waker(std::task::Waker::noop());
        std::pin::Pin::new(fut).poll(&mut cx)
    }

    /// A store and shared state on a fresh database (`keep_finished` as given) with one
    /// game, both seats taken, dealt with `seed`.
    async fn one_game(
        keep_finished: Duration,
        seed: u64,
    ) -> (tempfile::TempDir, crate::Config, Store, Shared, String) {
        let dir = tempfile::tempdir().unwrap();
        let cfg = crate::Config { db: dir.path().join("gin.db"), keep_finished, ..crate::Config::default() };
        let (store, stored) = Store::open_sqlite(&cfg.db).unwrap();
        let s = Shared::new(cfg.clone(), store.clone(), stored).unwrap();
        let rules = engine::RuleSet::standard();
        let id = s.create_game(rules, pb::TurnClock::default(), String::new(), seed, None).await.unwrap();
        let cell = s.game(&id).await.unwrap();
        s.join(&cell, Some(Seat::S0), "a".into(), false, true).await.unwrap();
        s.join(&cell, Some(Seat::S1), "b".into(), false, true).await.unwrap();
        (dir, cfg, store, s, id)
    }

    #[tokio::test]
    async fn an_action_whose_caller_goes_away_is_still_stored_and_published() {
        let (_dir, cfg, store, s, id) = one_game(Duration::from_secs(5), 7).await;
        let cell = s.game(&id).await.unwrap();
        let (tx, mut rx) = mpsc::channel(64);
        let (seat, seq, action) = {
            let mut st = cell.state.lock().await;
            let seq = st.last_seq();
            st.add_watcher(Watcher { viewer: None, tx, cut: Arc::new(AtomicBool::new(false)) }, seq);
            let action = st.game.as_ref().unwrap().hand().legal_actions()[0].clone();
            (st.to_act().unwrap(), seq, action)
        };

        let mut fut = Box::pin(act_as(&s, &id, seat, seq, move |st, seat, now| {
            st.play(seat, &action, ActionKind::Play, now)
        }));
        // Applied and queued, waiting for the store: the caller goes away now.
        assert!(poll_once(&mut fut).is_pending());
        drop(fut);

        // The action is still published to the watcher...
        let msg = tokio::time::timeout(Duration::from_secs(10), rx.recv()).await.unwrap().unwrap();
        let Some(pb::watch_game_response::Kind::Event(ev)) = msg.kind else {
            panic!("not an event: {msg:?}")
        };
        assert_eq!(ev.seq, seq + 1);
        // ...the game goes on from it (its lock was released)...
        let last = cell.state.lock().await.last_seq();
        assert!(last > seq);
        // ...and it is durable.
        store.close().await;
        let (store, stored) = Store::open_sqlite(&cfg.db).unwrap();
        assert_eq!(stored.live[0].actions.len(), 1);
        store.close().await;
    }

    /// `req` as the gate passes it on with `authorization: Bearer <token>`.
    fn with_token<T>(s: &Shared, req: T, token: &str) -> Result<Request<T>, Status> {
        let header = format!("Bearer {token}").parse().unwrap();
        let mut r = Request::new(req);
        match crate::gate::identify(s, Some(&header))? {
            Some(crate::gate::Identity::Seat(id)) => drop(r.extensions_mut().insert(id)),
            Some(crate::gate::Identity::Claimed(claim)) => drop(r.extensions_mut().insert(claim)),
            None => {}
        }
        Ok(r)
    }

    #[tokio::test]
    async fn a_finished_games_seat_tokens_leave_memory_with_it_and_still_identify_its_seats() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = crate::Config {
            db: dir.path().join("gin.db"),
            keep_finished: Duration::ZERO,
            rate_per_sec: 0,
            ..crate::Config::default()
        };
        let (store, stored) = Store::open_sqlite(&cfg.db).unwrap();
        let s = Shared::new(cfg.clone(), store.clone(), stored).unwrap();
        let games = Games(s.clone());
        let id = s.create_game(engine::RuleSet::standard(), pb::TurnClock::default(), String::new(), 3, None);
        let id = id.await.unwrap();
        let cell = s.game(&id).await.unwrap();
        let (_, t0) = s.join(&cell, Some(Seat::S0), "a".into(), false, true).await.unwrap();
        let (_, t1) = s.join(&cell, Some(Seat::S1), "b".into(), false, true).await.unwrap();
        drop(cell);
        assert_eq!(s.tokens.read().unwrap().len(), 2);
        let seat_of = |snap: Response<pb::GetGameResponse>| snap.into_inner().snapshot.unwrap().viewer_seat;
        let get = |t: &str| with_token(&s, pb::GetGameRequest { game_id: id.clone() }, t);

        // Seat 1 resigns (its token known in memory); the game ends.
        let seq = games.get_game(get(&t1).unwrap()).await.unwrap().into_inner().snapshot.unwrap().seq;
        let resign =
            with_token(&s, pb::ResignRequest { game_id: id.clone(), expected_seq: seq }, &t1).unwrap();
        games.resign(resign).await.unwrap();
        // Both tokens leave memory with the game...
        assert_eq!(s.evict_due(), 1);
        assert_eq!(s.tokens.read().unwrap().len(), 0, "no token of a game out of memory is kept");
        // ...and still identify their seats, checked against the game read back.
        assert_eq!(seat_of(games.get_game(get(&t0).unwrap()).await.unwrap()), Some(0));
        assert_eq!(seat_of(games.get_game(get(&t1).unwrap()).await.unwrap()), Some(1));
        let watch = with_token(&s, pb::WatchGameRequest { game_id: id.clone(), resume_after_seq: 0 }, &t1);
        assert!(games.watch_game(watch.unwrap()).await.is_ok());
        // An action with one is refused as any action on a finished game, not as unknown.
        let late = with_token(&s, pb::ResignRequest { game_id: id.clone(), expected_seq: seq + 10 }, &t0);
        let refused = games.resign(late.unwrap()).await.unwrap_err();
        assert_ne!(refused.code(), tonic::Code::Unauthenticated, "{refused:?}");
        // A token of no seat of the game is unknown.
        let stranger = "00112233445566778899aabbccddeeff";
        let refused = games.get_game(get(stranger).unwrap()).await.unwrap_err();
        assert_eq!(refused.code(), tonic::Code::Unauthenticated, "{refused:?}");
        let act = with_token(&s, pb::ResignRequest { game_id: id.clone(), expected_seq: seq }, stranger);
        assert_eq!(games.resign(act.unwrap()).await.unwrap_err().code(), tonic::Code::Unauthenticated);
        // A malformed header is refused by the interceptor itself.
        assert_eq!(get("").unwrap_err().code(), tonic::Code::Unauthenticated);
        store.close().await;
    }

    #[tokio::test]
    async fn a_finished_game_leaves_memory_and_comes_back_the_same() {
        let (_dir, _cfg, store, s, id) = one_game(Duration::ZERO, 9).await;
        let cell = s.game(&id).await.unwrap();
        // A few moves, then a resignation.
        for _ in 0..12 {
            let (seat, seq, action) = {
                let st = cell.state.lock().await;
                let action = st.game.as_ref().unwrap().hand().legal_actions()[0].clone();
                (st.to_act().unwrap(), st.last_seq(), action)
            };
            act_as(&s, &id, seat, seq, move |st, seat, now| st.play(seat, &action, ActionKind::Play, now))
                .await
                .unwrap();
        }
        let seq = cell.state.lock().await.last_seq();
        act_as(&s, &id, Seat::S0, seq, |st, seat, now| st.end_early(EarlyEnd::Resign(seat), now))
            .await
            .unwrap();
        let before = [None, Some(Seat::S0), Some(Seat::S1)].map(|v| {
            let st = cell.state.try_lock().unwrap();
            st.snapshot(v)
        });
        drop(cell);

        assert_eq!(s.games_in_memory(), 1);
        assert_eq!(s.evict_due(), 1);
        assert_eq!(s.games_in_memory(), 0);
        let back = s.game(&id).await.unwrap();
        assert_eq!(s.games_in_memory(), 1);
        let after =
            [None, Some(Seat::S0), Some(Seat::S1)].map(|v| back.state.try_lock().unwrap().snapshot(v));
        assert_eq!(after, before);
        // Read back, it leaves again; an unknown id is still not found.
        assert_eq!(s.evict_due(), 1);
        assert_eq!(s.game("feedfacefeedface").await.err().map(|e| e.code()), Some(tonic::Code::NotFound));
        store.close().await;
    }
}
