//! `GameService`: watching a game (a stream per viewer, redacted for it), reading it, and
//! the actions of a seat, each through the commit.
//!
//!
//! `act` takes a client's seat from the gate's identity (a seat token's, or the seat of the
//! game held by the account of an account token with the scope `play`) and goes through the
//! commit
//! (`game::commit::act_as`); the two-player RPCs go to `GameState::play`, which passes a move
//! of another format to `play_move`, as rummy's `LayMeld`/`LayOff` do. `WatchStream` sends a
//! heartbeat after a whole idle period.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use engine::{Action, Move};
use gin_proto::v1 as pb;
use gin_proto::v1::game_service_server::GameService;
use tokio::sync::mpsc;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use super::convert::{self, game_id};
use crate::accounts::{AccountIdentity, SCOPE_PLAY};
use crate::game::GameError;
use crate::game::commit::act_as;
use crate::game::shared::{ClaimedToken, SeatIdentity, Shared, claimed_seat, now_ms};
use crate::game::state::{EarlyEnd, GameState, LogEvent, Watcher};
use crate::storage::ActionKind;

/// `GameService`.
pub struct Games(pub Shared);

impl Games {
    /// The seat of an acting request in `game`: its identity, checked against the game; a
    /// [`ClaimedToken`] is checked against the game's seats (the game read back if it left
    /// memory).
    async fn seat_for<T>(&self, req: &Request<T>, game: &str) -> Result<u8, Status> {
        if let Some(id) = req.extensions().get::<AccountIdentity>() {
            if !id.may(SCOPE_PLAY) {
                return Err(Status::permission_denied("this token lacks the scope play"));
            }
            let cell = self.0.game(game).await?;
            let st = cell.state.lock().await;
            return account_seat(&st, id)
                .ok_or_else(|| Status::permission_denied("this account holds no seat of this game"));
        }
        if let Some(claim) = req.extensions().get::<ClaimedToken>() {
            let cell = self.0.game(game).await?;
            let st = cell.state.lock().await;
            return Ok(claimed_seat(&st, &claim.token_hash)?);
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
    fn viewer<T>(&self, req: &Request<T>, st: &GameState) -> Result<Option<u8>, Status> {
        if let Some(id) = req.extensions().get::<AccountIdentity>() {
            return Ok(account_seat(st, id).filter(|_| id.may(SCOPE_PLAY)));
        }
        if let Some(claim) = req.extensions().get::<ClaimedToken>() {
            return Ok(claimed_seat(st, &claim.token_hash).map(Some)?);
        }
        Ok(req.extensions().get::<SeatIdentity>().filter(|id| id.game_id == st.info.id).map(|id| id.seat))
    }

    /// The common path of every client action: auth, rate limit, then [`act_as`].
    async fn act<T, R: Send + 'static>(
        &self,
        req: &Request<T>,
        game: &str,
        expected_seq: u64,
        f: impl FnOnce(&mut GameState, u8, i64) -> Result<R, GameError> + Send + 'static,
    ) -> Result<(u64, R), Status> {
        let s = &self.0;
        let game = game_id(game)?;
        let seat = self.seat_for(req, game).await?;
        Ok(act_as(s, game, seat, expected_seq, f).await?)
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

    /// A move of a format other than two-player gin (rummy's melds and lay-offs).
    async fn play_move<T>(
        &self,
        req: &Request<T>,
        game: &str,
        expected_seq: u64,
        m: Move,
    ) -> Result<u64, Status> {
        let (seq, _) = self
            .act(req, game, expected_seq, move |st, seat, now| st.play_move(seat, &m, ActionKind::Play, now))
            .await?;
        Ok(seq)
    }
}

/// The seat of `st` the account of `id` holds.
fn account_seat(st: &GameState, id: &AccountIdentity) -> Option<u8> {
    st.seats
        .iter()
        .position(|s| s.as_ref().and_then(|s| s.account.as_ref()).is_some_and(|a| a.id == id.account_id))
        .map(|i| i as u8)
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
            // Checked under the game's lock: see `Shared::cut_watchers`.
            if s.stopping() {
                return Err(Status::unavailable("the server is shutting down; watch again later"));
            }
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
            let cut_count = s.metrics.streams_cut.clone();
            st.add_watcher(Watcher { viewer, tx, cut: cut.clone(), cut_count }, from);
            (rx, st.last_seq_shared.clone())
        };
        let every = s.cfg.heartbeat;
        let beat = Box::pin(tokio::time::sleep(every));
        let open = OpenStream::new(&s.metrics.watch_streams);
        Ok(Response::new(WatchStream {
            rx,
            cut,
            last_seq,
            every,
            beat,
            busy: false,
            done: false,
            _open: open,
        }))
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
        if st.sealed() {
            return Err(Status::failed_precondition(
                "the record of a tournament's game is available once the tournament is over \
                 (its other games may be dealt the same decks)",
            ));
        }
        let (json, text, hands) = match &st.game {
            Some(engine::Table::Gin(g)) => {
                let rec = g.record();
                let n = g.hand_number() + 1; // the hand in play too: dealt, and over with the game
                (rec.to_json(), rec.to_text(), n)
            }
            Some(t) => {
                let rec = t.record();
                // Every hand dealt, the ones in play when the game ended too.
                let n = st.hands_dealt();
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
            seed_salt: st.seed_salt().to_vec(),
            seed_commitment: st.seed_commitment().to_vec(),
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
                let offer = st.offered(seat);
                // Not the seat to act: the engine says "not your turn" (below), whatever the phase.
                if !offer && !st.is_over() && st.may_act(seat) {
                    return Err(GameError::NotNow("the upcard is offered only on the first turn"));
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
                if st.may_act(seat) && st.offered(seat) {
                    return Err(GameError::NotNow(
                        "first turn, take the upcard (TakeUpcard) or pass (PassUpcard)",
                    ));
                }
                st.play(seat, &action, ActionKind::Play, now)?;
                // The card drawn: the Drew entry this action just logged.
                Ok(st
                    .log
                    .iter()
                    .rev()
                    .find_map(|e| match e.ev {
                        LogEvent::Drew { card, .. } => Some(card.to_string()),
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

    async fn lay_meld(
        &self,
        req: Request<pb::LayMeldRequest>,
    ) -> Result<Response<pb::LayMeldResponse>, Status> {
        let r = req.get_ref();
        let cards = gin_proto::convert::cards(&r.cards)
            .map_err(|e| Status::invalid_argument(format!("cards: {e}")))?;
        if cards.len() as usize != r.cards.len() {
            return Err(Status::invalid_argument("cards: a card is named twice"));
        }
        let (game, exp) = (r.game_id.clone(), r.expected_seq);
        let seq = self.play_move(&req, &game, exp, Move::Meld { cards }).await?;
        Ok(Response::new(pb::LayMeldResponse { seq }))
    }

    async fn lay_off(&self, req: Request<pb::LayOffRequest>) -> Result<Response<pb::LayOffResponse>, Status> {
        let r = req.get_ref();
        let card = convert::parse_card("card", &r.card)?;
        let (game, exp) = (r.game_id.clone(), r.expected_seq);
        let seq = self.play_move(&req, &game, exp, Move::LayOff { card, meld: r.meld as usize }).await?;
        Ok(Response::new(pb::LayOffResponse { seq }))
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
    /// Counted in the open streams while it lives.
    _open: OpenStream,
}

/// One stream counted in a gauge of open streams, from its creation to its drop (whether it
/// ended, was cut off or its client left).
struct OpenStream(prometheus_client::metrics::gauge::Gauge);

impl OpenStream {
    fn new(gauge: &prometheus_client::metrics::gauge::Gauge) -> OpenStream {
        gauge.inc();
        OpenStream(gauge.clone())
    }
}

impl Drop for OpenStream {
    fn drop(&mut self) {
        self.0.dec();
    }
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

    /// `req` as the gate passes it on with `authorization: Bearer <token>`.
    fn with_token<T>(s: &Shared, req: T, token: &str) -> Result<Request<T>, Status> {
        let header = format!("Bearer {token}").parse().unwrap();
        let mut r = Request::new(req);
        match crate::gate::identify(s, Some(&header))? {
            Some(crate::gate::Identity::Seat(id)) => drop(r.extensions_mut().insert(id)),
            Some(crate::gate::Identity::Claimed(claim)) => drop(r.extensions_mut().insert(claim)),
            Some(crate::gate::Identity::Account(id)) => drop(r.extensions_mut().insert(id)),
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
        let id = s.create_game(
            engine::Format::Gin(engine::RuleSet::standard()),
            pb::TurnClock::default(),
            String::new(),
            3,
            None,
        );
        let id = id.await.unwrap();
        let cell = s.game(&id).await.unwrap();
        let (_, t0) = s.join(&cell, Some(0), "a".into(), false, true).await.unwrap();
        let (_, t1) = s.join(&cell, Some(1), "b".into(), false, true).await.unwrap();
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
}
