//! `LobbyService`: creating, joining and listing games, quick match.
//!
//!
//! **Quick match** has a queue (`Matches`) by rules and clock, first come first, never
//! pairing two calls of one connection; a waiter leaves it when its call ends. The caller that
//! finds a partner creates the game with both seats in one write (`seat_pair`), hands the
//! waiter its seat and waits for its acknowledgment, sent in the poll that returns the answer:
//! a waiter gone by then never acknowledges, its game is called off and the caller looks
//! again. The pairing runs in a task of its own, and the pairing caller acknowledges its seat
//! the same way (gone before that: the game is called off). With a house bot, a waiter still
//! queued after `house_bot_after_ms` leaves and plays the bot; one already taken by a partner
//! waits for its answer.
//!
//! Tables of other formats (`quick_match_table`): the caller that completes a table of the
//! same format, size and clock seats everyone at once (`seat_table`, one write, every member
//! acknowledges; one gone: the game is called off, nobody re-paired), and with a house bot a
//! caller still queued after its wait seats itself, whoever waits with it and bots in the
//! seats left. `CreateGame` with `format`: the house bot takes the last `house_bots` seats
//! (0: every seat but the creator's). In a cluster `QuickMatch` is the leader's alone (the
//! others forward it: `api::forward`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gin_proto::v1 as pb;
use gin_proto::v1::lobby_service_client::LobbyServiceClient;
use gin_proto::v1::lobby_service_server::LobbyService;
use tokio::sync::oneshot;
use tonic::{Request, Response, Status};

use super::convert::{self, game_id, in_game};
use super::gate::{ClientAddr, quota_key};
use crate::accounts::{AccountIdentity, SCOPE_PLAY};
use crate::cluster::Peers;
use crate::game::expiry::call_off;
use crate::game::house;
use crate::game::shared::{NewSeat, QuotaKey, Shared, clean_name, new_id, new_token, random_seed};
use crate::game::state::SeatAccount;

/// `LobbyService`.
pub struct Lobby {
    shared: Shared,
    matches: Arc<Matches>,
    /// In a cluster: the other servers (for the lists).
    peers: Arc<Peers>,
}

impl Lobby {
    /// The lobby of the games in `shared`, with an empty quick-match queue; `peers`: the
    /// cluster's other servers (unused alone).
    pub fn new(shared: Shared, peers: Arc<Peers>) -> Lobby {
        Lobby { shared, matches: Arc::default(), peers }
    }
}

/// The quick-match queue.
#[derive(Default)]
struct Matches {
    /// Waiters by rules key, first come first.
    waiting: Mutex<HashMap<String, Vec<Waiter>>>,
    /// Next ticket.
    tickets: AtomicU64,
}

/// A quick-match waiter's seat, and the way to acknowledge it was taken.
type Pairing = (pb::QuickMatchResponse, oneshot::Sender<()>);

/// A caller waiting in quick match.
struct Waiter {
    /// Where to send its seat once paired.
    tx: oneshot::Sender<Result<Pairing, Status>>,
    /// Its name.
    name: String,
    /// Its account, signed in (a seat of the account's).
    account: Option<SeatAccount>,
    /// Identifies this waiter (to remove it on cancel).
    ticket: u64,
    /// Its connection (never paired with another call of the same one).
    conn: Option<std::net::SocketAddr>,
}

/// The account a call takes its seat for: the caller's when signed in (an account token with
/// the scope `play`: PERMISSION_DENIED without), whose name the seat shows.
fn playing_as<T>(s: &Shared, req: &Request<T>) -> Result<Option<SeatAccount>, Status> {
    let Some(id) = req.extensions().get::<AccountIdentity>() else { return Ok(None) };
    if !id.may(SCOPE_PLAY) {
        return Err(Status::permission_denied("this token lacks the scope play"));
    }
    Ok(Some(s.seat_account(&id.account_id)))
}

#[tonic::async_trait]
impl LobbyService for Lobby {
    async fn create_game(
        &self,
        req: Request<pb::CreateGameRequest>,
    ) -> Result<Response<pb::CreateGameResponse>, Status> {
        let s = &self.shared;
        let quota = quota_key(&req);
        // An account token may create a game only with the scope `play`; its seat is the
        // account's when it joins.
        let signed_in = playing_as(s, &req)?;
        let rated = req.get_ref().rated;
        if rated && signed_in.is_none() {
            return Err(Status::unauthenticated(
                "rated: a rated game is created with an account token (metadata `authorization: Bearer gin_at_…`)",
            ));
        }
        let account = signed_in.filter(|_| req.get_ref().join);
        let mut r = req.into_inner();
        if let Some(a) = &account {
            r.name = a.name.clone();
        }
        let format = match convert::format(&r.format, r.players, r.rules.as_ref())? {
            Some(f) => f,
            None => engine::Format::Gin(convert::rules(r.rules.as_ref())?),
        };
        let n = format.players() as u32;
        let clock = convert::clock(r.clock)?;
        let house = house::check_for(&r.house_bot, format.kind())?;
        let human = match r.seat {
            Some(k) if k >= n => {
                return Err(Status::invalid_argument(format!("seat: this game has seats 0 to {}", n - 1)));
            }
            k => k.unwrap_or(0),
        };
        // The house bot's seats: the last ones but the creator's.
        let bots = match (house, r.house_bots) {
            (false, 0) => 0,
            (false, _) => return Err(Status::invalid_argument("house_bots: only with house_bot")),
            (true, 0) => n - 1,
            (true, k) if k < n => k,
            (true, k) => {
                return Err(Status::invalid_argument(format!(
                    "house_bots: {k}, for a table of {n}: at most {}",
                    n - 1
                )));
            }
        };
        let first_dealer = match (r.first_dealer, &format) {
            (None, _) => None,
            (Some(d @ (0 | 1)), engine::Format::Gin(_)) => Some(d as u8),
            (Some(d), engine::Format::Gin(_)) => {
                return Err(Status::invalid_argument(format!("first_dealer: {d}; a seat, 0 or 1")));
            }
            (Some(_), _) => {
                return Err(Status::invalid_argument(
                    "first_dealer: two-player gin only (a table's dealer follows its format's rules)",
                ));
            }
        };
        if r.join {
            clean_name(&r.name)?;
        }
        let id = if rated {
            // A rated game: a named preset's pool, the server's seed and first dealer, accounts
            // only (no house bot until house bots are rated accounts).
            let refuse = |field: &str, why: &str| Err(Status::invalid_argument(format!("{field}: {why}")));
            if r.seed != 0 {
                return refuse("seed", "a rated game's deals are the server's: no seed");
            }
            if !r.house_bot.is_empty() {
                return refuse("house_bot", "a rated game seats accounts only");
            }
            if first_dealer.is_some() {
                return refuse("first_dealer", "a rated game's first dealer is drawn");
            }
            let pool = crate::ratings::Pool::of(&format).ok_or_else(|| {
                Status::invalid_argument(
                    "rated: only a named preset is rated (a pool per preset and table size); custom rules are casual",
                )
            })?;
            s.create_rated_game(format, clock, pool.id().to_owned(), quota.as_ref()).await?
        } else {
            s.create_game_dealt_by(format, clock, r.house_bot.clone(), r.seed, first_dealer, quota.as_ref())
                .await?
        };
        in_game(&id);
        let mut resp = pb::CreateGameResponse { game_id: id.clone(), seat: None, seat_token: String::new() };
        let cell = s.game(&id).await?;
        // Nobody ever holds a bot seat's token.
        for seat in (0..n).rev().filter(|&k| k != human).take(bots as usize) {
            s.join(&cell, Some(seat as u8), house::display_name(&r.house_bot), true, true).await?;
        }
        if r.join {
            // The creator chose the seed, if any: it accepts its own deals.
            let (seat, token) = s.join_as(&cell, Some(human as u8), r.name, false, true, account).await?;
            resp.seat = Some(u32::from(seat));
            resp.seat_token = token;
        }
        Ok(Response::new(resp))
    }

    async fn join_game(
        &self,
        req: Request<pb::JoinGameRequest>,
    ) -> Result<Response<pb::JoinGameResponse>, Status> {
        let s = &self.shared;
        let account = playing_as(s, &req)?;
        let mut r = req.into_inner();
        if let Some(a) = &account {
            r.name = a.name.clone();
        }
        let cell = s.game(game_id(&r.game_id)?).await?;
        let want = match r.seat {
            Some(k) => Some(u8::try_from(k).map_err(|_| Status::invalid_argument(format!("seat: {k}?")))?),
            None => None,
        };
        let (seat, token) = s.join_as(&cell, want, r.name, false, r.accept_fixed_deals, account).await?;
        Ok(Response::new(pb::JoinGameResponse { seat: u32::from(seat), seat_token: token }))
    }

    async fn list_games(
        &self,
        req: Request<pb::ListGamesRequest>,
    ) -> Result<Response<pb::ListGamesResponse>, Status> {
        let s = &self.shared;
        let forwarded = req.metadata().contains_key(crate::cluster::FORWARDED);
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
                format: snap.format,
            });
        }
        // In a cluster, asked by a client (not by another server): every server's open games.
        if s.cfg.cluster_addr.is_some() && !forwarded {
            let others = self
                .peers
                .ask_others(&s.store, s.store.member(), |channel, mark| async move {
                    let mut req = Request::new(pb::ListGamesRequest { page_size: n as u32 });
                    req.metadata_mut().insert(crate::cluster::FORWARDED, mark);
                    let r = LobbyServiceClient::new(channel).list_games(req).await?;
                    Ok(r.into_inner().games)
                })
                .await;
            games.extend(others.into_iter().flatten());
            games.sort_by_key(|g| std::cmp::Reverse(g.created_unix_ms));
            games.truncate(n);
        }
        Ok(Response::new(pb::ListGamesResponse { games }))
    }

    async fn quick_match(
        &self,
        req: Request<pb::QuickMatchRequest>,
    ) -> Result<Response<pb::QuickMatchResponse>, Status> {
        let s = self.shared.clone();
        let quota = quota_key(&req);
        // The caller's connection (address and port): one client's calls are never paired.
        let conn = ClientAddr::of(&req);
        let account = playing_as(&s, &req)?;
        let mut r = req.into_inner();
        if let Some(a) = &account {
            r.name = a.name.clone();
        }
        let table = convert::format(&r.format, r.players, r.rules.as_ref())?;
        let kind = table.as_ref().map_or(engine::Kind::Gin, engine::Format::kind);
        let rules = match &table {
            Some(_) => engine::RuleSet::standard(),
            None => convert::rules(r.rules.as_ref())?,
        };
        let clock = convert::clock(r.clock)?;
        // Checked and trimmed once: a pair's game is created with the names as they are.
        let name = clean_name(&r.name)?;
        let house = house::check_for(&r.house_bot, kind)?;
        let bot_after = match (house, r.house_bot_after_ms) {
            (false, 0) => None,
            (false, _) => return Err(Status::invalid_argument("house_bot_after_ms: only with house_bot")),
            (true, 0) => Some(HOUSE_BOT_AFTER),
            (true, ms) if Duration::from_millis(ms.into()) <= QUICK_MATCH_WAIT => {
                Some(Duration::from_millis(ms.into()))
            }
            (true, _) => return Err(Status::invalid_argument("house_bot_after_ms: at most 60000")),
        };
        if let Some(format) = table {
            let ask =
                TableAsk { format, clock, name, account, conn, quota, house_bot: r.house_bot, bot_after };
            return self.quick_match_table(ask).await;
        }
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
        let ticket = self.matches.tickets.fetch_add(1, Ordering::Relaxed);
        let mut tx = Some(tx);
        loop {
            let partner = {
                let mut waiting = self.matches.waiting.lock().expect("lock");
                let queue = waiting.entry(key.clone()).or_default();
                // Calls that ended are gone (each also leaves on its own, see `Leave`).
                queue.retain(|w| !w.tx.is_closed());
                // Two calls of one connection are one client, two of one account one player:
                // never its own partner.
                let found = queue.iter().position(|w| {
                    (conn.is_none() || w.conn != conn) && !same_account(w.account.as_ref(), account.as_ref())
                });
                let found = found.map(|i| queue.remove(i));
                if found.is_none() {
                    let tx = tx.take().expect("queued once");
                    queue.push(Waiter { tx, name: name.clone(), account: account.clone(), ticket, conn });
                } else if queue.is_empty() {
                    waiting.remove(&key);
                }
                found
            };
            let Some(w) = partner else { break };
            // The game counts against the caller who pairs (as any game, against its creator).
            if let Err(e) = s.reserve(quota.as_ref()) {
                // Over its limit: the partner waits on for someone else.
                let mut waiting = self.matches.waiting.lock().expect("lock");
                waiting.entry(key.clone()).or_default().insert(0, w);
                return Err(e.into());
            }
            // Seated in a task of its own, which this call answers to like the partner: a call
            // that goes away cannot leave the pair half-made.
            let (answer, mine) = oneshot::channel();
            let me = (name.clone(), account.clone());
            tokio::spawn(seat_pair(s.clone(), rules.clone(), clock, w, me, quota.clone(), answer));
            match mine.await {
                Ok(Ok(Some(seat))) => return Ok(take_seat(seat)),
                // The partner had left: its game was called off. Look again.
                Ok(Ok(None)) => continue,
                Ok(Err(e)) => return Err(e),
                Err(_) => return Err(interrupted()),
            }
        }
        let leave = Leave(self.matches.clone(), key, ticket);
        let mut wait = QUICK_MATCH_WAIT;
        if let Some(after) = bot_after {
            if let Ok(answer) = tokio::time::timeout(after, &mut rx).await {
                return paired(answer);
            }
            if leave.now() {
                // Nobody came: the house bot takes seat 1, as in `create_game`.
                let id = s
                    .create_game(engine::Format::Gin(rules), clock, r.house_bot.clone(), 0, quota.as_ref())
                    .await?;
                let cell = s.game(&id).await?;
                s.join(&cell, Some(1), house::display_name(&r.house_bot), true, true).await?;
                let (seat, token) = s.join_as(&cell, Some(0), r.name, false, false, account).await?;
                return Ok(Response::new(pb::QuickMatchResponse {
                    game_id: id,
                    seat: u32::from(seat),
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

/// Whether two quick-match callers are one account.
fn same_account(a: Option<&SeatAccount>, b: Option<&SeatAccount>) -> bool {
    matches!((a, b), (Some(a), Some(b)) if a.id == b.id)
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
    answer: Result<Result<Pairing, Status>, oneshot::error::RecvError>,
) -> Result<Response<pb::QuickMatchResponse>, Status> {
    match answer {
        Ok(Ok(seat)) => Ok(take_seat(seat)),
        Ok(Err(e)) => Err(e),
        Err(_) => Err(interrupted()),
    }
}

/// Takes a quick-match seat: acknowledges it, and (with no await in between) answers with it.
fn take_seat((seat, ack): Pairing) -> Response<pb::QuickMatchResponse> {
    let _ = ack.send(());
    in_game(&seat.game_id);
    Response::new(seat)
}

fn interrupted() -> Status {
    Status::unavailable("quick match was interrupted; ask again")
}

/// Seats quick-match waiter `w` (seat 0) and the caller `name` (seat 1) in a new game,
/// created with both seats in one write and counted against `quota` (reserved already). Each of
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
    (name, account): (String, Option<SeatAccount>),
    quota: Option<QuotaKey>,
    caller: oneshot::Sender<Result<Option<Pairing>, Status>>,
) {
    let id = new_id(s.cfg.route_tag.as_deref());
    let tokens = [new_token(), new_token()];
    let seats = vec![
        NewSeat { name: w.name.clone(), token: tokens[0].clone(), bot: false, account: w.account.clone() },
        NewSeat { name, token: tokens[1].clone(), bot: false, account },
    ];
    let format = engine::Format::Gin(rules);
    let created = s.create_seated_game(
        id.clone(),
        format,
        clock,
        random_seed(),
        false,
        seats,
        String::new(),
        quota.as_ref(),
    );
    if let Err(e) = created.await {
        let e = Status::from(e);
        // Both asked for this game.
        let _ = w.tx.send(Err(e.clone()));
        let _ = caller.send(Err(e));
        return;
    }
    let [theirs, mine] = tokens;
    let answer = |seat: u32, seat_token: String| pb::QuickMatchResponse {
        game_id: id.clone(),
        seat,
        seat_token,
        house_bot: String::new(),
    };
    // A call gone already drops the answer, and with it the acknowledgment, at once.
    let (ack, acked) = oneshot::channel();
    let _ = w.tx.send(Ok((answer(0, theirs), ack)));
    if acked.await.is_err() {
        tracing::info!(game = %id, "quick-match partner left while being seated: game called off");
        call_off(&s, &id).await;
        let _ = caller.send(Ok(None));
        return;
    }
    let (ack, acked) = oneshot::channel();
    let _ = caller.send(Ok(Some((answer(1, mine), ack))));
    if acked.await.is_err() {
        tracing::info!(game = %id, "quick-match caller left while being seated: game called off");
        call_off(&s, &id).await;
    }
}

/// Leaves the quick-match queue when a call ends in any way (answered, timed out,
/// cancelled): queue key and ticket.
struct Leave(Arc<Matches>, String, u64);

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

/// A quick-match call for a table of a format other than two-player gin.
struct TableAsk {
    format: engine::Format,
    clock: pb::TurnClock,
    name: String,
    account: Option<SeatAccount>,
    conn: Option<std::net::SocketAddr>,
    quota: Option<QuotaKey>,
    house_bot: String,
    bot_after: Option<Duration>,
}

impl Lobby {
    /// Quick match at a table of `ask.format`: the caller who completes a table (every other
    /// seat waiting for the same format, size and clock) seats them all; with a house bot, a
    /// caller nobody completed a table for in time seats itself and whoever waits with it,
    /// and house bots take the seats left.
    async fn quick_match_table(&self, ask: TableAsk) -> Result<Response<pb::QuickMatchResponse>, Status> {
        let s = self.shared.clone();
        let n = ask.format.players() as usize;
        let key = format!("{}|{}|{}", ask.format.to_value(), ask.clock.turn_millis, ask.clock.policy);
        let (tx, mut rx) = oneshot::channel();
        let ticket = self.matches.tickets.fetch_add(1, Ordering::Relaxed);
        let me = Waiter { tx, name: ask.name.clone(), account: ask.account.clone(), ticket, conn: ask.conn };
        let group = {
            let mut waiting = self.matches.waiting.lock().expect("lock");
            let queue = waiting.entry(key.clone()).or_default();
            queue.retain(|w| !w.tx.is_closed());
            let others = others_of(queue, ask.conn, ask.account.as_ref(), n - 1);
            if others.len() == n - 1 {
                let mut group = take_all(queue, &others);
                group.push(me);
                if queue.is_empty() {
                    waiting.remove(&key);
                }
                Some(group)
            } else {
                queue.push(me);
                None
            }
        };
        let leave = Leave(self.matches.clone(), key.clone(), ticket);
        if let Some(group) = group {
            if let Err(e) = s.reserve(ask.quota.as_ref()) {
                // Over its limit: the others wait on for someone else.
                let mut waiting = self.matches.waiting.lock().expect("lock");
                let queue = waiting.entry(key).or_default();
                for (i, w) in group.into_iter().filter(|w| w.ticket != ticket).enumerate() {
                    queue.insert(i, w);
                }
                return Err(e.into());
            }
            tokio::spawn(seat_table(
                s.clone(),
                ask.format.clone(),
                ask.clock,
                group,
                String::new(),
                ask.quota.clone(),
            ));
        }
        let mut wait = QUICK_MATCH_WAIT;
        if let Some(after) = ask.bot_after {
            if let Ok(answer) = tokio::time::timeout(after, &mut rx).await {
                return paired(answer);
            }
            // Nobody completed the table: this caller and whoever waits with it, and bots.
            let group = {
                let mut waiting = self.matches.waiting.lock().expect("lock");
                waiting.get_mut(&key).and_then(|queue| {
                    let mine = queue.iter().position(|w| w.ticket == ticket)?;
                    let me = queue.remove(mine);
                    let others = others_of(queue, ask.conn, ask.account.as_ref(), n - 1);
                    let mut group = take_all(queue, &others);
                    group.insert(0, me);
                    Some(group)
                })
            };
            if let Some(group) = group {
                s.reserve(ask.quota.as_ref())?;
                tokio::spawn(seat_table(
                    s.clone(),
                    ask.format,
                    ask.clock,
                    group,
                    ask.house_bot,
                    ask.quota.clone(),
                ));
            }
            wait = wait.saturating_sub(after).max(Duration::from_secs(5));
        }
        // Still queued while it waits: `leave` takes it out when this call ends.
        let answer = tokio::time::timeout(wait, rx).await;
        drop(leave);
        match answer {
            Ok(answer) => paired(answer),
            Err(_) => Err(Status::deadline_exceeded("nobody asked for the same table within 60 s")),
        }
    }
}

/// Up to `k` waiters of `queue` another connection than `conn` and another account than
/// `account` hold, distinct connections and accounts (one client, one account, is never
/// seated twice at a table), first come first: their indices.
fn others_of(
    queue: &[Waiter],
    conn: Option<std::net::SocketAddr>,
    account: Option<&SeatAccount>,
    k: usize,
) -> Vec<usize> {
    let mut seen: Vec<std::net::SocketAddr> = conn.into_iter().collect();
    let mut accounts: Vec<&str> = account.map(|a| a.id.as_str()).into_iter().collect();
    let mut out = Vec::new();
    for (i, w) in queue.iter().enumerate() {
        if out.len() == k {
            break;
        }
        if w.account.as_ref().is_some_and(|a| accounts.contains(&a.id.as_str())) {
            continue;
        }
        match w.conn {
            Some(c) if seen.contains(&c) => continue,
            Some(c) => seen.push(c),
            None => {}
        }
        if let Some(a) = &w.account {
            accounts.push(&a.id);
        }
        out.push(i);
    }
    out
}

/// Takes the waiters at `indices` (ascending) out of `queue`, in queue order.
fn take_all(queue: &mut Vec<Waiter>, indices: &[usize]) -> Vec<Waiter> {
    let mut out: Vec<Waiter> = indices.iter().rev().map(|&i| queue.remove(i)).collect();
    out.reverse();
    out
}

/// Seats `group` (seats 0, 1, … in order) and house bots `house_bot` in the seats left, in a
/// new game of `format` created in one write and counted against `quota` (reserved already).
/// Every member gets its seat with an acknowledgment to send in the poll that returns it
/// ([`paired`]); if one of them is gone by then, the game is called off (it ends cancelled,
/// with no winner). Runs in a task of its own.
async fn seat_table(
    s: Shared,
    format: engine::Format,
    clock: pb::TurnClock,
    group: Vec<Waiter>,
    house_bot: String,
    quota: Option<QuotaKey>,
) {
    let id = new_id(s.cfg.route_tag.as_deref());
    let n = format.players() as usize;
    let tokens: Vec<String> = (0..n).map(|_| new_token()).collect();
    let seats = (0..n)
        .map(|i| match group.get(i) {
            Some(w) => NewSeat {
                name: w.name.clone(),
                token: tokens[i].clone(),
                bot: false,
                account: w.account.clone(),
            },
            None => NewSeat {
                name: house::display_name(&house_bot),
                token: tokens[i].clone(),
                bot: true,
                account: None,
            },
        })
        .collect();
    let with_bots = if group.len() < n { house_bot.clone() } else { String::new() };
    let created = s.create_seated_game(
        id.clone(),
        format,
        clock,
        random_seed(),
        false,
        seats,
        with_bots.clone(),
        quota.as_ref(),
    );
    if let Err(e) = created.await {
        let e = Status::from(e);
        for w in group {
            let _ = w.tx.send(Err(e.clone()));
        }
        return;
    }
    let mut acks = Vec::new();
    for (i, w) in group.into_iter().enumerate() {
        let (ack, acked) = oneshot::channel();
        let answer = pb::QuickMatchResponse {
            game_id: id.clone(),
            seat: i as u32,
            seat_token: tokens[i].clone(),
            house_bot: with_bots.clone(),
        };
        let _ = w.tx.send(Ok((answer, ack)));
        acks.push(acked);
    }
    for acked in acks {
        if acked.await.is_err() {
            tracing::info!(game = %id, "quick-match player left while being seated: game called off");
            call_off(&s, &id).await;
            return;
        }
    }
}
