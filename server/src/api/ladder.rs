//! `LadderService`: the standing rated pools where signed-in programs and people queue and the
//! server seats them by rating (issue 39).
//!
//! The pairing itself is [`crate::ladder`] (pure: closest first, windows widening with the
//! wait, no repeat while another table is possible). This module serves it:
//!
//! - **A queued player is a stream.** `JoinLadder` puts the caller's account in the pool's
//!   queue with its rating there ([`Ratings::in_pool`]) and keeps a *waiter*: the stream's
//!   sender and a one-shot slot for its match. The stream says where it stands on joining and
//!   every few seconds; a stream closed by the client leaves the queue (its task notices the
//!   closed channel). The join's number tells a waiter from a later one of the same account.
//! - **One pairing task** ([`LadderApi::spawn`]) runs every [`TICK`]: under the lock it pairs
//!   every pool ([`Ladder::pair`]), then, when the house bots are entered, seats every player
//!   of a two-player pool who has waited [`crate::Config::ladder_house_after`] against the house bot
//!   of nearest rating, and takes the waiters of every table out. Each table's game is created
//!   in a task of its own (a store write each, concurrently): a rated game of the pool, the
//!   server's seed and turn clock ([`crate::Config::ladder_turn_millis`], auto-play), seats rotated
//!   at random from the pairing's order. A table one of whose players left in between is not
//!   created, or, when the player left while it was being created, called off (unrated);
//!   the others go back to the queue with their arrival time.
//! - **In memory, on the lobby's leader.** In a cluster every call is forwarded to the leader
//!   (`forward`), so there is one queue; a restart (or a new leader) empties the queues, and
//!   the programs' loops join again.
//! - **House bots** (`--ladder-house-bots`): the bot accounts `house-random`, `house-simple`
//!   and `house-strong` ([`Accounts::house_account`]), played in-process by the house bot of
//!   their strategy, rated like any account; never queued themselves (two of them would play
//!   each other all day), only the opponent of a player nobody else reached.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gin_proto::v1 as pb;
use gin_proto::v1::ladder_service_server::LadderService;
use tokio::sync::{mpsc, oneshot};
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use super::accounts::caller;
use crate::accounts::{Accounts, SCOPE_PLAY};
use crate::game::shared::{NewSeat, Shared, new_id, new_token, random_seed};
use crate::ladder::{Entrant, Ladder, LadderConfig, LadderError, Match, Millis, Seats};
use crate::ratings::{Pool, Rating, Ratings};

/// How often the pairing task pairs the queues.
pub const TICK: Duration = Duration::from_millis(100);

/// The house bots' accounts and the strategies that play them.
pub const HOUSE_BOTS: [(&str, &str); 3] =
    [("house-random", "random"), ("house-simple", "simple"), ("house-strong", "strong")];

/// `LadderService` (cheap to clone: a handle).
#[derive(Clone)]
pub struct LadderApi(Arc<Inner>);

struct Inner {
    shared: Shared,
    accounts: Accounts,
    ratings: Ratings,
    /// The ladder's clock's zero.
    start: Instant,
    state: Mutex<State>,
    /// The house bots entered: (account id, name, strategy); empty when they are not.
    house: Mutex<Vec<HouseBot>>,
    /// How long a two-player pool's player waits before the house bot takes it on.
    house_after_ms: Millis,
    /// Ladder games' turn clock.
    clock: pb::TurnClock,
}

struct State {
    ladder: Ladder,
    /// The queued players' streams, by (pool id, account id).
    waiters: HashMap<(String, String), Waiter>,
    /// Numbers the joins.
    joins: u64,
    /// The accounts seated by the ladder whose new rating may not have reached the ratings'
    /// memory yet (their game may have ended since the last poll).
    seated: std::collections::HashSet<String>,
}

/// A house bot entered in the ladder: its account's id and name, and its strategy.
type HouseBot = (String, String, &'static str);

/// A queued player's stream.
struct Waiter {
    join: u64,
    name: String,
    kind: i32,
    /// The stream's messages (to see whether the client is still there).
    out: mpsc::Sender<Result<pb::JoinLadderResponse, Status>>,
    /// Where its match goes.
    matched: oneshot::Sender<Result<pb::LadderMatched, Status>>,
}

impl Waiter {
    /// Whether its client has left (its stream or its match's slot closed).
    fn gone(&self) -> bool {
        self.out.is_closed() || self.matched.is_closed()
    }
}

/// A table's game as created: its id, pool and seats, each seat's token and what the
/// players are told of the seats.
struct Created {
    id: String,
    pool: String,
    seats: Seats,
    tokens: Vec<String>,
    seen: Vec<pb::LadderSeat>,
}

/// One seat of a table about to be created: its entrant, and its waiter (`None`: a house bot,
/// then its name and strategy).
struct Taken {
    entrant: Entrant,
    waiter: Option<Waiter>,
    house: Option<(String, &'static str)>,
}

impl LadderApi {
    /// The service over `shared`'s games, `accounts` and `ratings`, with `shared`'s settings
    /// (turn clock, house bots). Call [`LadderApi::spawn`] to start pairing.
    pub fn new(shared: Shared, accounts: Accounts, ratings: Ratings) -> LadderApi {
        let cfg = &shared.cfg;
        let clock =
            pb::TurnClock { turn_millis: cfg.ladder_turn_millis, policy: pb::ClockPolicy::AutoPlay as i32 };
        let house_after_ms = cfg.ladder_house_after.as_millis() as Millis;
        let ladder = Ladder::new(LadderConfig::default()).expect("the default ladder settings are valid");
        LadderApi(Arc::new(Inner {
            accounts,
            ratings,
            start: Instant::now(),
            state: Mutex::new(State {
                ladder,
                waiters: HashMap::new(),
                joins: 0,
                seated: std::collections::HashSet::new(),
            }),
            house: Mutex::default(),
            house_after_ms,
            clock,
            shared,
        }))
    }

    /// Enters the house bots (registering their accounts the first time), when the server's
    /// settings say so, and starts the pairing task.
    pub async fn spawn(&self) -> Result<(), crate::accounts::AccountError> {
        if self.0.shared.cfg.ladder_house_bots {
            let mut house = Vec::new();
            for (name, strategy) in HOUSE_BOTS {
                let a = self.0.accounts.house_account(name).await?;
                house.push((a.id, a.name, strategy));
            }
            *self.0.house.lock().expect("lock") = house;
        }
        let api = self.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(TICK);
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                every.tick().await;
                api.tick();
            }
        });
        Ok(())
    }

    /// Milliseconds on the ladder's clock.
    fn now(&self) -> Millis {
        self.0.start.elapsed().as_millis() as Millis
    }

    /// Pairs every pool once and starts the tables' games.
    pub fn tick(&self) {
        let now = self.now();
        let tables = {
            let mut st = self.0.state.lock().expect("lock");
            let mut matches: Vec<(Match, Option<HouseBot>)> =
                st.ladder.pair(now).into_iter().map(|m| (m, None)).collect();
            matches.extend(self.house_matches(&mut st, now));
            let mut tables = Vec::with_capacity(matches.len());
            for (m, house) in matches {
                let taken: Vec<Taken> = m
                    .entrants
                    .into_iter()
                    .map(|entrant| {
                        let key = (m.pool.clone(), entrant.account.clone());
                        let house =
                            house.as_ref().filter(|h| h.0 == entrant.account).map(|h| (h.1.clone(), h.2));
                        st.seated.insert(entrant.account.clone());
                        Taken { waiter: st.waiters.remove(&key), entrant, house }
                    })
                    .collect();
                tables.push((m.pool, m.seats, taken));
            }
            tables
        };
        for (pool, seats, taken) in tables {
            let api = self.clone();
            tokio::spawn(async move { api.start_game(pool, seats, taken).await });
        }
    }

    /// Takes out of the two-player queues every player who has waited the house's time, each
    /// with the house bot of nearest rating (its account id, name and strategy).
    fn house_matches(&self, st: &mut State, now: Millis) -> Vec<(Match, Option<HouseBot>)> {
        let house = self.0.house.lock().expect("lock").clone();
        if house.is_empty() {
            return Vec::new();
        }
        let mut out = Vec::new();
        for pool in Pool::all().into_iter().filter(|p| p.seats() == 2) {
            let due: Vec<Entrant> = st
                .ladder
                .waiting(pool.id())
                .filter(|e| now.saturating_sub(e.arrived_ms) >= self.0.house_after_ms)
                .cloned()
                .collect();
            for e in due {
                let nearest = house
                    .iter()
                    .enumerate()
                    .filter(|(_, h)| h.0 != e.account)
                    .map(|(i, h)| (i, self.0.ratings.in_pool(&h.0, &pool)))
                    .min_by(|a, b| (a.1.rating - e.rating).abs().total_cmp(&(b.1.rating - e.rating).abs()));
                let Some((i, r)) = nearest else { continue };
                st.ladder.leave(pool.id(), &e.account);
                let bot = Entrant {
                    account: house[i].0.clone(),
                    rating: r.rating,
                    deviation: r.deviation,
                    arrived_ms: now,
                };
                let spread = (bot.rating - e.rating).abs();
                let entrants = if bot.rating < e.rating { vec![bot, e] } else { vec![e, bot] };
                let m =
                    Match { pool: pool.id().to_owned(), seats: Seats::Two, entrants, spread, repeat: false };
                out.push((m, Some(house[i].clone())));
            }
        }
        out
    }

    /// Creates one table's rated game and tells its players; if one of them left (or the game
    /// cannot be created), puts the others back in the queue, or tells them why.
    async fn start_game(&self, pool_id: String, seats: Seats, mut taken: Vec<Taken>) {
        let gone = taken.iter().any(|t| match &t.waiter {
            Some(w) => w.gone(),
            None => t.house.is_none(),
        });
        if gone {
            self.requeue(&pool_id, seats, taken);
            return;
        }
        let pool = Pool::parse(&pool_id).expect("a ladder pool is a rating pool");
        // Seats rotated at random: the pairing lists its entrants lowest rating first (at a
        // team table a rotation keeps the partners together).
        let n = taken.len();
        taken.rotate_left((random_seed() % n as u64) as usize);
        let tokens: Vec<String> = (0..n).map(|_| new_token()).collect();
        let mut house_bot = String::new();
        let mut seen = Vec::with_capacity(n);
        let mut new_seats = Vec::with_capacity(n);
        for (t, token) in taken.iter().zip(&tokens) {
            let (name, kind) = match (&t.waiter, &t.house) {
                (Some(w), _) => (w.name.clone(), w.kind),
                (None, Some((name, strategy))) => {
                    house_bot = (*strategy).to_owned();
                    (name.clone(), crate::storage::KIND_BOT)
                }
                (None, None) => unreachable!("checked above"),
            };
            seen.push(pb::LadderSeat {
                name: name.clone(),
                kind: super::accounts::kind_pb(kind) as i32,
                rating: t.entrant.rating,
                deviation: t.entrant.deviation,
            });
            new_seats.push(NewSeat {
                name,
                token: token.clone(),
                bot: t.waiter.is_none(),
                account: Some(self.0.shared.seat_account(&t.entrant.account)),
            });
        }
        let s = &self.0.shared;
        let id = new_id(s.cfg.route_tag.as_deref());
        let made = s
            .create_rated_seated_game(
                id.clone(),
                pool.format(),
                self.0.clock,
                new_seats,
                pool_id.clone(),
                house_bot,
                None,
            )
            .await
            .map_err(Status::from);
        let table = Created { id, pool: pool_id, seats, tokens, seen };
        self.answer(table, taken, made).await;
    }

    /// Tells the players of `table` their seats (`made`: whether its game was created). A
    /// player who left while the game was being created would be seated, and lose it by
    /// abandonment: the game is called off then (a cancelled game is not rated) and the
    /// others go back in the queue.
    async fn answer(&self, table: Created, taken: Vec<Taken>, made: Result<(), Status>) {
        let Created { id, pool, seats, tokens, seen } = table;
        let s = &self.0.shared;
        if made.is_ok() && taken.iter().any(|t| t.waiter.as_ref().is_some_and(Waiter::gone)) {
            tracing::info!(game = %id, %pool, "ladder: a player left while its game was created: called off");
            crate::game::expiry::call_off(s, &id).await;
            self.requeue(&pool, seats, taken);
            return;
        }
        let now = self.now();
        let mut lost = false;
        for (seat, (t, token)) in taken.into_iter().zip(tokens).enumerate() {
            let Some(w) = t.waiter else { continue };
            let answer = match &made {
                Ok(()) => Ok(pb::LadderMatched {
                    pool: pool.clone(),
                    game_id: id.clone(),
                    seat: seat as u32,
                    seat_token: token,
                    seats: seen.clone(),
                    waited_ms: now.saturating_sub(t.entrant.arrived_ms),
                }),
                Err(e) => Err(e.clone()),
            };
            lost |= w.matched.send(answer).is_err();
        }
        if lost && made.is_ok() {
            // Gone between the look above and its answer: the others were told, and see the
            // game called off.
            tracing::info!(game = %id, %pool, "ladder: a player left as its game was answered: called off");
            crate::game::expiry::call_off(s, &id).await;
        }
        if let Err(e) = made {
            tracing::warn!(%pool, "ladder: a table's game could not be created: {e}");
        }
    }

    /// Puts the players of a table that will not be played back in the queue, as they were.
    fn requeue(&self, pool: &str, seats: Seats, taken: Vec<Taken>) {
        let mut st = self.0.state.lock().expect("lock");
        for t in taken {
            let Some(w) = t.waiter else { continue };
            if w.gone() {
                continue;
            }
            let key = (pool.to_owned(), t.entrant.account.clone());
            if st.waiters.contains_key(&key) || st.ladder.join(pool, seats, t.entrant).is_err() {
                continue;
            }
            st.waiters.insert(key, w);
        }
    }

    /// Takes waiter `join` of `account` out of `pool` (its stream closed).
    fn leave(&self, pool: &str, account: &str, join: u64) {
        let mut st = self.0.state.lock().expect("lock");
        let key = (pool.to_owned(), account.to_owned());
        if st.waiters.get(&key).is_some_and(|w| w.join == join) {
            st.waiters.remove(&key);
            st.ladder.leave(pool, account);
        }
    }

    /// Where `account` stands in `pool`, or `None` once it is out of the queue.
    fn queued(&self, pool: &Pool, account: &str) -> Option<pb::LadderQueued> {
        let now = self.now();
        let (waiting, arrived, expected) = {
            let st = self.0.state.lock().expect("lock");
            let e = st.ladder.waiting(pool.id()).find(|e| e.account == account)?;
            (st.ladder.len(pool.id()), e.arrived_ms, st.ladder.expected_wait_of(pool.id(), account, now))
        };
        let r = self.0.ratings.in_pool(account, pool);
        Some(pb::LadderQueued {
            pool: pool.id().to_owned(),
            waiting: waiting as u32,
            waited_ms: now.saturating_sub(arrived),
            expected_wait_ms: expected.map(|d| d.as_millis() as u64),
            rating: r.rating,
            deviation: r.deviation,
            provisional: r.provisional,
            games: r.games,
        })
    }
}

/// INVALID_ARGUMENT naming the pools, for an unknown one.
fn unknown_pool(id: &str) -> Status {
    let all: Vec<String> = Pool::all().iter().map(|p| p.id().to_owned()).collect();
    Status::invalid_argument(format!("pool: no ladder {id:?}; the pools: {}", all.join(", ")))
}

/// A pool's seats, as the pairing takes them.
fn seats_of(pool: &Pool) -> Seats {
    match pool.seats() {
        2 => Seats::Two,
        4 if pool.teams() => Seats::Teams,
        n => Seats::Table(n),
    }
}

#[tonic::async_trait]
impl LadderService for LadderApi {
    type JoinLadderStream = ReceiverStream<Result<pb::JoinLadderResponse, Status>>;

    async fn join_ladder(
        &self,
        req: Request<pb::JoinLadderRequest>,
    ) -> Result<Response<Self::JoinLadderStream>, Status> {
        let me = caller(&req, SCOPE_PLAY)?;
        let id = req.into_inner().pool;
        let pool = Pool::parse(id.trim()).ok_or_else(|| unknown_pool(&id))?;
        let kind = self.0.accounts.get(&me.account_id).map_or(crate::storage::KIND_PERSON, |a| a.kind);
        // An account the ladder seated before: its last game's rating, read now rather than at
        // the next poll (a program joins again the moment its game ends).
        if self.0.state.lock().expect("lock").seated.remove(&me.account_id)
            && let Err(e) = self.0.ratings.refresh().await
        {
            tracing::warn!(error = %e, "ladder: reading rating changes");
        }
        let r = self.0.ratings.in_pool(&me.account_id, &pool);
        let (tx, rx) = mpsc::channel(8);
        let (matched, mut on_match) = oneshot::channel();
        let join = {
            let mut st = self.0.state.lock().expect("lock");
            let entrant = Entrant {
                account: me.account_id.clone(),
                rating: r.rating,
                deviation: r.deviation,
                arrived_ms: self.now(),
            };
            st.ladder.join(pool.id(), seats_of(&pool), entrant).map_err(|e| match e {
                LadderError::AlreadyQueued { .. } => Status::already_exists(format!(
                    "pool: this account already waits in the ladder {} (another connection?)",
                    pool.id()
                )),
                e => Status::internal(e.to_string()),
            })?;
            // The first word, before any match can be sent: where it stands on arrival.
            let first = pb::LadderQueued {
                pool: pool.id().to_owned(),
                waiting: st.ladder.len(pool.id()) as u32,
                waited_ms: 0,
                expected_wait_ms: st
                    .ladder
                    .expected_wait_of(pool.id(), &me.account_id, self.now())
                    .map(|d| d.as_millis() as u64),
                rating: r.rating,
                deviation: r.deviation,
                provisional: r.provisional,
                games: r.games,
            };
            let first =
                pb::JoinLadderResponse { event: Some(pb::join_ladder_response::Event::Queued(first)) };
            tx.try_send(Ok(first)).expect("a new channel has room");
            st.joins += 1;
            let join = st.joins;
            let w = Waiter { join, name: me.name.clone(), kind, out: tx.clone(), matched };
            st.waiters.insert((pool.id().to_owned(), me.account_id.clone()), w);
            join
        };
        let api = self.clone();
        let every = self.0.shared.cfg.heartbeat.clamp(Duration::from_millis(100), Duration::from_secs(5));
        tokio::spawn(async move {
            let mut beat = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
            loop {
                tokio::select! {
                    biased;
                    () = tx.closed() => break,
                    _ = beat.tick() => {
                        // Out of the queue but not told yet: the match is on its way.
                        let Some(q) = api.queued(&pool, &me.account_id) else { continue };
                        let m = pb::JoinLadderResponse { event: Some(pb::join_ladder_response::Event::Queued(q)) };
                        if tx.send(Ok(m)).await.is_err() {
                            break;
                        }
                    }
                    m = &mut on_match => {
                        let m = match m {
                            Ok(Ok(m)) => Ok(pb::JoinLadderResponse {
                                event: Some(pb::join_ladder_response::Event::Matched(m)),
                            }),
                            Ok(Err(e)) => Err(e),
                            Err(_) => Err(Status::unavailable("the ladder stopped: join again")),
                        };
                        let _ = tx.send(m).await;
                        return;
                    }
                }
            }
            api.leave(pool.id(), &me.account_id, join);
        });
        Ok(Response::new(ReceiverStream::new(rx)))
    }

    async fn list_ladders(
        &self,
        _req: Request<pb::ListLaddersRequest>,
    ) -> Result<Response<pb::ListLaddersResponse>, Status> {
        let now = self.now();
        let st = self.0.state.lock().expect("lock");
        let pools = Pool::all()
            .iter()
            .map(|p| {
                let fresh = Rating::new(p.system());
                let deviation = fresh.shown_deviation(p.system());
                pb::LadderPool {
                    pool: p.id().to_owned(),
                    waiting: st.ladder.len(p.id()) as u32,
                    expected_wait_ms: st
                        .ladder
                        .expected_wait(p.id(), fresh.shown(p.system()), deviation, now)
                        .map(|d| d.as_millis() as u64),
                }
            })
            .collect();
        let house_bots = !self.0.house.lock().expect("lock").is_empty();
        Ok(Response::new(pb::ListLaddersResponse { pools, house_bots }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::KIND_BOT;

    /// A player whose client left while its table's game was being created (after the look
    /// before the creation) is not seated: the game is called off, unrated, and the other
    /// player is back in the queue, not told of a game.
    #[tokio::test]
    async fn a_player_gone_while_its_game_is_created_has_it_called_off_and_the_other_queued_again() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = crate::Config { db: dir.path().join("gin.db"), ..crate::Config::default() };
        let (store, mut startup) = crate::storage::Store::open(&cfg.db).unwrap();
        let accounts =
            Accounts::open(store.clone(), &mut startup, cfg.registrations_per_hour, cfg.session_lifetime)
                .await
                .unwrap();
        let ratings = Ratings::open(store.clone(), &mut startup).await.unwrap();
        let directory: Arc<dyn crate::game::shared::AccountDirectory> = Arc::new(accounts.clone());
        let shared = crate::game::open_with(cfg.clone(), store, startup, Some(directory)).unwrap();
        let api = LadderApi::new(shared.clone(), accounts.clone(), ratings);
        let pool = Pool::parse("gin/standard").unwrap();
        let mut taken = Vec::new();
        let mut kept = Vec::new();
        for (join, name) in [(1, "stays"), (2, "leaves")] {
            let a = accounts.register(name, KIND_BOT, "", "", None).await.unwrap().0;
            let (out, rx) = mpsc::channel(8);
            let (matched, on_match) = oneshot::channel();
            kept.push((a.id.clone(), rx, on_match));
            let entrant = Entrant { account: a.id, rating: 1500.0, deviation: 350.0, arrived_ms: 0 };
            taken.push(Taken {
                entrant,
                waiter: Some(Waiter { join, name: name.into(), kind: KIND_BOT, out, matched }),
                house: None,
            });
        }
        // The game is created with both seated...
        let (id, tokens) = (new_id(None), vec![new_token(), new_token()]);
        let seats = taken
            .iter()
            .zip(&tokens)
            .map(|(t, token)| NewSeat {
                name: t.waiter.as_ref().unwrap().name.clone(),
                token: token.clone(),
                bot: false,
                account: Some(shared.seat_account(&t.entrant.account)),
            })
            .collect();
        let clock = pb::TurnClock::default();
        let made = shared
            .create_rated_seated_game(
                id.clone(),
                pool.format(),
                clock,
                seats,
                pool.id().into(),
                String::new(),
                None,
            )
            .await
            .map_err(Status::from);
        assert!(made.is_ok(), "{made:?}");
        // ...and meanwhile the second player's client left (its stream's task ended).
        let (_, _, gone) = kept.pop().unwrap();
        drop(gone);
        let table =
            Created { id: id.clone(), pool: pool.id().into(), seats: Seats::Two, tokens, seen: Vec::new() };
        api.answer(table, taken, made).await;
        // Called off: over, cancelled, no winner.
        let snap = shared.game(&id).await.unwrap().state.lock().await.snapshot(None);
        let r = snap.result.expect("the game is over");
        assert_eq!((r.reason, r.winner), (pb::GameEndReason::Cancelled as i32, None));
        // The one who stayed waits in the queue again, told nothing.
        let (stays, _rx, mut on_match) = kept.pop().unwrap();
        assert!(matches!(on_match.try_recv(), Err(oneshot::error::TryRecvError::Empty)));
        let st = api.0.state.lock().unwrap();
        assert!(st.waiters.contains_key(&(pool.id().to_owned(), stays.clone())));
        assert_eq!(st.ladder.waiting(pool.id()).map(|e| e.account.clone()).collect::<Vec<_>>(), vec![stays]);
    }
}
