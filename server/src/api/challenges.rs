//! `ChallengeService`: one signed-in account challenges another, by name, to a two-seat game;
//! the challenged account accepts (the game is created with both accounts seated, in one
//! write: [`Shared::create_seated_game`]) or declines, the challenger cancels, or the
//! challenge expires.
//!
//! Challenges live in this server's memory (a map of the open ones and one broadcast channel of
//! changes that each `WatchChallenges` stream filters for its account, with a keep-alive, a
//! message without a challenge, every `Config::heartbeat` while nothing changes). In a cluster every
//! call is forwarded to the lobby's leader (`forward`), which keeps them; a restart of the
//! leader, or a new one, forgets open challenges (games created stay): documented in
//! `challenge.proto`. Keeping them in the shared store, polled as accounts are, would lift
//! that.
//!
//! Every call needs an account token with the scope `play` ([`caller`]). Refused input changes
//! nothing. A rated challenge's game is rated (`crate::ratings`): its format must be a named
//! preset's (a pool); custom rules are refused when the challenge is made.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gin_proto::v1 as pb;
use gin_proto::v1::challenge_service_server::ChallengeService;
use tokio::sync::broadcast;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use super::accounts::caller;
use super::convert;
use crate::accounts::{AccountIdentity, Accounts, SCOPE_PLAY};
use crate::game::shared::{NewSeat, QuotaKey, Shared, new_id, new_token, now_ms, random_seed};

/// The most challenges an account may have sent and not yet seen answered.
pub const MAX_OPEN_SENT: usize = 20;
/// A challenge's life when the request names none, in seconds.
pub const DEFAULT_EXPIRY_S: u32 = 600;
/// The longest life a challenge may ask for, in seconds.
pub const MAX_EXPIRY_S: u32 = 3600;

/// An open challenge, or one that just changed.
#[derive(Clone, Debug)]
struct Entry {
    /// Its id.
    id: String,
    /// The challenger's account id and name.
    from: (String, String),
    /// The challenged account's id and name.
    to: (String, String),
    /// The request's format, rules, size, clock and rated flag (checked).
    format: String,
    rules: Option<pb::Rules>,
    players: u32,
    clock: Option<pb::TurnClock>,
    rated: bool,
    /// The challenger's seat, if it asked for one.
    seat: Option<u32>,
    /// Unix milliseconds.
    created_ms: i64,
    expires_ms: i64,
    /// Where it stands.
    state: pb::ChallengeState,
    /// Once accepted: the game and the challenger's seat.
    game: Option<(String, u32)>,
}

impl Entry {
    /// The challenge as account `me` (one of its two) sees it.
    fn view(&self, me: &str) -> pb::Challenge {
        let sent = self.from.0 == me;
        pb::Challenge {
            challenge_id: self.id.clone(),
            challenger: self.from.1.clone(),
            opponent: self.to.1.clone(),
            format: self.format.clone(),
            rules: self.rules.clone(),
            players: self.players,
            clock: self.clock,
            rated: self.rated,
            challenger_seat: self.seat,
            state: self.state as i32,
            created_ms: self.created_ms,
            expires_ms: self.expires_ms,
            sent,
            game_id: self.game.as_ref().map(|g| g.0.clone()).unwrap_or_default(),
            seat: self.game.as_ref().map(|g| if sent { g.1 } else { 1 - g.1 }),
        }
    }

    /// Whether account `me` is one of its two.
    fn concerns(&self, me: &str) -> bool {
        self.from.0 == me || self.to.0 == me
    }
}

/// `ChallengeService`.
#[derive(Clone)]
pub struct ChallengeApi(Arc<Inner>);

/// The service's state.
struct Inner {
    shared: Shared,
    accounts: Accounts,
    /// The open challenges by id.
    open: Mutex<HashMap<String, Entry>>,
    /// Every change, for the watchers.
    changes: broadcast::Sender<Arc<Entry>>,
}

impl ChallengeApi {
    /// The service over `shared`'s games and `accounts`.
    pub fn new(shared: Shared, accounts: Accounts) -> ChallengeApi {
        let (changes, _) = broadcast::channel(1024);
        ChallengeApi(Arc::new(Inner { shared, accounts, open: Mutex::default(), changes }))
    }

    /// Ends open challenge `id` in `state` if `ok` says it may, and tells the watchers.
    fn close(
        &self,
        id: &str,
        state: pb::ChallengeState,
        ok: impl FnOnce(&Entry) -> bool,
    ) -> Result<Entry, Status> {
        let mut open = self.0.open.lock().expect("lock");
        match open.get(id) {
            Some(e) if ok(e) => {}
            _ => return Err(not_open(id)),
        }
        let mut e = open.remove(id).expect("present");
        e.state = state;
        drop(open);
        let _ = self.0.changes.send(Arc::new(e.clone()));
        Ok(e)
    }
}

/// NOT_FOUND for a challenge that is not open for the caller.
fn not_open(id: &str) -> Status {
    Status::not_found(format!(
        "challenge_id: no open challenge {id:?} of yours (answered, cancelled, expired or never sent)"
    ))
}

/// The caller, who must hold an account token with the scope `play`.
fn player<T>(req: &Request<T>) -> Result<AccountIdentity, Status> {
    caller(req, SCOPE_PLAY)
}

/// Creates the game of accepted challenge `e`, the challenger in `challenger_seat`, counted
/// against `quota`: returns its id and the two seat tokens (challenger's, opponent's).
///
/// `rated`: the game is rated in its format's pool (the server's seed, both seats accounts).
async fn create_challenge_game(
    s: &Shared,
    e: &Entry,
    challenger_seat: u32,
    rated: bool,
    quota: &QuotaKey,
) -> Result<(String, [String; 2]), Status> {
    let format = match convert::format(&e.format, e.players, e.rules.as_ref())? {
        Some(f) => f,
        None => engine::Format::Gin(convert::rules(e.rules.as_ref())?),
    };
    let clock = convert::clock(e.clock)?;
    s.reserve(Some(quota))?;
    let id = new_id(s.cfg.route_tag.as_deref());
    let tokens = [new_token(), new_token()];
    let mut seats = vec![
        NewSeat {
            name: e.from.1.clone(),
            token: tokens[0].clone(),
            bot: false,
            account: Some(s.seat_account(&e.from.0)),
        },
        NewSeat {
            name: e.to.1.clone(),
            token: tokens[1].clone(),
            bot: false,
            account: Some(s.seat_account(&e.to.0)),
        },
    ];
    if challenger_seat == 1 {
        seats.reverse();
    }
    if rated {
        let pool = crate::ratings::Pool::of(&format).ok_or_else(|| {
            Status::invalid_argument("rated: only a named preset is rated; custom rules are casual")
        })?;
        s.create_rated_seated_game(
            id.clone(),
            format,
            clock,
            seats,
            pool.id().to_owned(),
            String::new(),
            Some(quota),
        )
        .await?;
    } else {
        s.create_seated_game(
            id.clone(),
            format,
            clock,
            random_seed(),
            false,
            seats,
            String::new(),
            Some(quota),
        )
        .await?;
    }
    // The tokens by account (the challenger's, then the challenged one's), not by seat.
    Ok((id, tokens))
}

#[tonic::async_trait]
impl ChallengeService for ChallengeApi {
    async fn create_challenge(
        &self,
        req: Request<pb::CreateChallengeRequest>,
    ) -> Result<Response<pb::CreateChallengeResponse>, Status> {
        let me = player(&req)?;
        let r = req.into_inner();
        let accounts = &self.0.accounts;
        let mut found = accounts.by_name(r.opponent.trim());
        // In a cluster, an account registered at another server in the last moments may not
        // have reached this one's registry yet: read the others' changes once before saying no.
        if found.is_none() && accounts.clustered() {
            accounts.poll().await?;
            found = accounts.by_name(r.opponent.trim());
        }
        let opponent = found
            .filter(|a| a.deleted_ms.is_none())
            .ok_or_else(|| Status::not_found(format!("opponent: no account named {:?}", r.opponent)))?;
        if opponent.id == me.account_id {
            return Err(Status::invalid_argument("opponent: you cannot challenge yourself"));
        }
        let format = match convert::format(&r.format, r.players, r.rules.as_ref())? {
            Some(f) => f,
            None => engine::Format::Gin(convert::rules(r.rules.as_ref())?),
        };
        if format.players() != 2 {
            return Err(Status::invalid_argument(format!(
                "format: a challenge seats two accounts; this format seats {}",
                format.players()
            )));
        }
        convert::clock(r.clock)?;
        if let Some(k) = r.seat
            && k > 1
        {
            return Err(Status::invalid_argument(format!("seat: {k}; 0 or 1 (unset: drawn)")));
        }
        let life = match r.expires_in_s {
            0 => DEFAULT_EXPIRY_S,
            s if s <= MAX_EXPIRY_S => s,
            s => {
                return Err(Status::invalid_argument(format!(
                    "expires_in_s: {s}; 0 (the default, {DEFAULT_EXPIRY_S}) or 1 to {MAX_EXPIRY_S}"
                )));
            }
        };
        if r.rated && crate::ratings::Pool::of(&format).is_none() {
            return Err(Status::invalid_argument(
                "rated: only a named preset is rated (a pool per preset); custom rules are casual",
            ));
        }
        let now = now_ms();
        let e = Entry {
            id: format!("ch-{}", new_id(self.0.shared.cfg.route_tag.as_deref())),
            from: (me.account_id.clone(), me.name.clone()),
            to: (opponent.id.clone(), opponent.name.clone()),
            format: r.format,
            rules: r.rules,
            players: r.players,
            clock: r.clock,
            rated: r.rated,
            seat: r.seat,
            created_ms: now,
            expires_ms: now + i64::from(life) * 1000,
            state: pb::ChallengeState::Open,
            game: None,
        };
        {
            let mut open = self.0.open.lock().expect("lock");
            let sent = open.values().filter(|c| c.from.0 == me.account_id).count();
            if sent >= MAX_OPEN_SENT {
                return Err(Status::resource_exhausted(format!(
                    "you have {sent} challenges open, the most at once: wait for answers or cancel one"
                )));
            }
            open.insert(e.id.clone(), e.clone());
        }
        let _ = self.0.changes.send(Arc::new(e.clone()));
        // Expires unless answered first.
        let api = self.clone();
        let id = e.id.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(u64::from(life))).await;
            let _ = api.close(&id, pb::ChallengeState::Expired, |_| true);
        });
        Ok(Response::new(pb::CreateChallengeResponse { challenge: Some(e.view(&me.account_id)) }))
    }

    type WatchChallengesStream = ReceiverStream<Result<pb::WatchChallengesResponse, Status>>;

    async fn watch_challenges(
        &self,
        req: Request<pb::WatchChallengesRequest>,
    ) -> Result<Response<Self::WatchChallengesStream>, Status> {
        let me = player(&req)?.account_id;
        // Subscribed before the open ones are read: a change in between is sent twice at
        // worst, never lost.
        let mut changes = self.0.changes.subscribe();
        let mut first: Vec<Entry> =
            self.0.open.lock().expect("lock").values().filter(|e| e.concerns(&me)).cloned().collect();
        first.sort_by(|a, b| (a.created_ms, &a.id).cmp(&(b.created_ms, &b.id)));
        let (tx, rx) = tokio::sync::mpsc::channel(64);
        let every = self.0.shared.cfg.heartbeat.max(Duration::from_millis(100));
        tokio::spawn(async move {
            for e in first {
                let m = pb::WatchChallengesResponse { challenge: Some(e.view(&me)) };
                if tx.send(Ok(m)).await.is_err() {
                    return;
                }
            }
            let mut beat = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
            loop {
                let e = tokio::select! {
                    e = changes.recv() => e,
                    () = tx.closed() => return,
                    _ = beat.tick() => {
                        // A keep-alive (no challenge) while nothing changes.
                        if tx.send(Ok(pb::WatchChallengesResponse { challenge: None })).await.is_err() {
                            return;
                        }
                        continue;
                    }
                };
                match e {
                    Ok(e) if e.concerns(&me) => {
                        let m = pb::WatchChallengesResponse { challenge: Some(e.view(&me)) };
                        if tx.send(Ok(m)).await.is_err() {
                            return;
                        }
                        beat.reset();
                    }
                    Ok(_) => {}
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        let _ = tx
                            .send(Err(Status::aborted("this stream fell behind the changes: watch again")))
                            .await;
                        return;
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                }
            }
        });
        Ok(Response::new(ReceiverStream::new(rx)))
    }

    async fn accept_challenge(
        &self,
        req: Request<pb::AcceptChallengeRequest>,
    ) -> Result<Response<pb::AcceptChallengeResponse>, Status> {
        let me = player(&req)?;
        let id = req.into_inner().challenge_id;
        // Taken out of the open ones first, so one answer wins; put back if the game cannot be
        // created.
        let mut e = {
            let mut open = self.0.open.lock().expect("lock");
            match open.get(&id) {
                Some(e) if e.to.0 == me.account_id => open.remove(&id).expect("present"),
                _ => return Err(not_open(&id)),
            }
        };
        let seat = e.seat.unwrap_or((random_seed() & 1) as u32);
        let quota = QuotaKey::Account(me.account_id.clone());
        let (game_id, tokens) = match create_challenge_game(&self.0.shared, &e, seat, e.rated, &quota).await {
            Ok(g) => g,
            Err(err) => {
                if e.expires_ms > now_ms() {
                    self.0.open.lock().expect("lock").insert(id, e);
                }
                return Err(err);
            }
        };
        convert::in_game(&game_id);
        e.state = pb::ChallengeState::Accepted;
        e.game = Some((game_id, seat));
        let _ = self.0.changes.send(Arc::new(e.clone()));
        // The caller's token: the challenged account's, whichever seat it took.
        let mine = tokens[1].clone();
        Ok(Response::new(pb::AcceptChallengeResponse {
            challenge: Some(e.view(&me.account_id)),
            seat_token: mine,
        }))
    }

    async fn decline_challenge(
        &self,
        req: Request<pb::DeclineChallengeRequest>,
    ) -> Result<Response<pb::DeclineChallengeResponse>, Status> {
        let me = player(&req)?.account_id;
        let id = req.into_inner().challenge_id;
        let e = self.close(&id, pb::ChallengeState::Declined, |e| e.to.0 == me)?;
        Ok(Response::new(pb::DeclineChallengeResponse { challenge: Some(e.view(&me)) }))
    }

    async fn cancel_challenge(
        &self,
        req: Request<pb::CancelChallengeRequest>,
    ) -> Result<Response<pb::CancelChallengeResponse>, Status> {
        let me = player(&req)?.account_id;
        let id = req.into_inner().challenge_id;
        let e = self.close(&id, pb::ChallengeState::Cancelled, |e| e.from.0 == me)?;
        Ok(Response::new(pb::CancelChallengeResponse { challenge: Some(e.view(&me)) }))
    }

    async fn list_challenges(
        &self,
        req: Request<pb::ListChallengesRequest>,
    ) -> Result<Response<pb::ListChallengesResponse>, Status> {
        let me = player(&req)?.account_id;
        let mut mine: Vec<Entry> =
            self.0.open.lock().expect("lock").values().filter(|e| e.concerns(&me)).cloned().collect();
        mine.sort_by(|a, b| (a.created_ms, &a.id).cmp(&(b.created_ms, &b.id)));
        let challenges = mine.iter().map(|e| e.view(&me)).collect();
        Ok(Response::new(pb::ListChallengesResponse { challenges }))
    }
}
