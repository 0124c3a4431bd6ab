//! The gate every call passes first: who the caller is, and whether it is within its rate. A
//! tower layer inside gRPC-Web's (it sees every call as gRPC), around every service.
//!
//! - **Identity** (`gin.v1.GameService` calls): `authorization: Bearer <seat token>` puts a
//!   [`SeatIdentity`] in the call's extensions (a token of a game in memory) or a
//!   [`ClaimedToken`] (a well-formed token that is not: only a finished game that left memory
//!   can have it; it is checked against the seats of the game the call names once that game
//!   is read back). No header: a spectator. A malformed header: UNAUTHENTICATED. tonic hands
//!   the extensions to the handler.
//! - **Accounts** (every `gin.v1` call): a bearer starting `gin_at_` is an account token,
//!   looked up in the registry in memory (`Accounts::identify`: one hash, one map lookup);
//!   known and live, an [`AccountIdentity`] goes in the extensions; unknown, revoked or
//!   expired (a session past its lifetime): UNAUTHENTICATED "unknown, revoked or expired
//!   account token". In a cluster an unknown one makes the registry read the other servers'
//!   changes once first (a token made elsewhere a moment ago), the only case where the gate
//!   awaits anything.
//! - **Rate** (every `gin.v1` call): [`Config::rate_per_sec`](crate::Config::rate_per_sec)
//!   per caller with a burst of two seconds' worth: a call with a known seat token counts
//!   against that seat, one with an account token against the account (from any address),
//!   any other against its peer address. Over it: RESOURCE_EXHAUSTED with
//!   a `retry-after-ms` hint, and the call never reaches its handler. The keyed GCRA limiter
//!   is `governor`'s, on tokio's clock ([`TokioClock`]); [`GateLayer::prune`] drops the
//!   callers idle long enough to be full again (the same as none), so that it holds only
//!   recent ones.
//!
//! Health checks and reflection pass untouched. The web page's files are counted against the
//! same per-address rate by [`WebLayer`](super::web::WebLayer), outside gRPC-Web's layer
//! ([`GateLayer::admit_page`]).

use std::future::{Ready, ready};
use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures_util::future::{BoxFuture, Either};
use governor::clock::Clock;
use governor::middleware::NoOpMiddleware;
use governor::nanos::Nanos;
use governor::state::keyed::DashMapStateStore;
use governor::{Quota, RateLimiter};
use http::{Request, Response};
use tonic::Status;
use tonic::body::Body;
use tonic::transport::server::{TcpConnectInfo, TlsConnectInfo};
use tower::{Layer, Service};

use crate::accounts::{AccountIdentity, Accounts, TOKEN_PREFIX};
use crate::game::shared::{ClaimedToken, QuotaKey, SeatIdentity, Shared, token_hash};

/// The caller's address (request extension set by the gate in a cluster): the one the proxy
/// (or a forwarding server) names in `x-gin-client`. Quotas and rate limits of calls without
/// an account, and quick match's "never paired with itself", go by it ([`ClientAddr::of`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientAddr(pub std::net::SocketAddr);

impl ClientAddr {
    /// The address of the caller of `req`: [`ClientAddr`] if the gate set it, else the TCP
    /// peer's.
    pub fn of<T>(req: &tonic::Request<T>) -> Option<std::net::SocketAddr> {
        req.extensions().get::<ClientAddr>().map(|c| c.0).or_else(|| req.remote_addr())
    }
}

/// Whom a game created by `req` counts against (`Config::max_open_games_per_caller`): the
/// account of a call with an account token (the [`AccountIdentity`] the gate put in its
/// extensions), from whatever address; else the caller's address (see [`ClientAddr::of`]);
/// `None` if neither is known.
pub fn quota_key<T>(req: &tonic::Request<T>) -> Option<QuotaKey> {
    match req.extensions().get::<AccountIdentity>() {
        Some(id) => Some(QuotaKey::Account(id.account_id.clone())),
        None => ClientAddr::of(req).map(|a| QuotaKey::Address(a.ip())),
    }
}

/// Who a call counts against for the rate limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CallerKey {
    /// A seat token's SHA-256.
    Token([u8; 32]),
    /// The peer's address (or none known).
    Peer(Option<IpAddr>),
    /// An account (its id hashed to 64 bits): every token of it counts together.
    Account(u64),
}

/// What a call's `authorization` header says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Identity {
    /// A seat of a game in memory.
    Seat(SeatIdentity),
    /// A well-formed token not in memory (see the module docs).
    Claimed(ClaimedToken),
    /// A live account token.
    Account(AccountIdentity),
}

/// The bearer of `authorization` when it is an account token (`gin_at_…`).
pub fn account_bearer(authorization: Option<&http::HeaderValue>) -> Option<&str> {
    let v = authorization?.to_str().ok()?;
    let token = v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer "))?.trim();
    token.starts_with(TOKEN_PREFIX).then_some(token)
}

/// An account's rate key: its id hashed to 64 bits (SipHash, std's). The ids are the
/// server's own random ones, so no caller can choose two that share a key; a SHA-256 here
/// would cost every call with an account token a few hundred nanoseconds more.
fn account_key(account_id: &str) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
    BuildHasherDefault::<DefaultHasher>::default().hash_one(account_id)
}

/// The refusal of an account token the registry does not know, or knows revoked.
pub fn unknown_account_token() -> Status {
    Status::unauthenticated("unknown, revoked or expired account token")
}

/// The identity `authorization` (a header's value) gives against the server's seat tokens;
/// `None` for no header; UNAUTHENTICATED when it is malformed.
pub fn identify(
    shared: &Shared,
    authorization: Option<&http::HeaderValue>,
) -> Result<Option<Identity>, Status> {
    let Some(v) = authorization else { return Ok(None) };
    let v = v.to_str().map_err(|_| Status::unauthenticated("authorization: not text"))?;
    let token = v
        .strip_prefix("Bearer ")
        .or_else(|| v.strip_prefix("bearer "))
        .ok_or_else(|| Status::unauthenticated("authorization: expected `Bearer <seat token>`"))?
        .trim();
    if token.is_empty() {
        return Err(Status::unauthenticated("authorization: empty seat token"));
    }
    let hash = token_hash(token);
    let found = shared.tokens.read().expect("lock").get(&hash).cloned();
    Ok(Some(match found {
        Some((game_id, seat)) => Identity::Seat(SeatIdentity { game_id, seat, token_hash: hash }),
        None => Identity::Claimed(ClaimedToken { token_hash: hash }),
    }))
}

/// The limiter's clock: tokio's monotonic clock (`std`'s in a server), as the time since the
/// limiter was made. A test's paused time drives it (`#[tokio::test(start_paused = true)]`).
#[derive(Clone, Debug)]
pub struct TokioClock(tokio::time::Instant);

impl Clock for TokioClock {
    type Instant = Nanos;

    fn now(&self) -> Nanos {
        Nanos::from(self.0.elapsed())
    }
}

/// The keyed limiter, and the burst it allows (for the hint).
struct Limiter {
    keyed: RateLimiter<CallerKey, DashMapStateStore<CallerKey>, TokioClock, NoOpMiddleware<Nanos>>,
    per_sec: u32,
}

/// The gate's layer; `Clone` shares one limiter between every connection and thread.
#[derive(Clone)]
pub struct GateLayer {
    shared: Shared,
    limiter: Option<Arc<Limiter>>,
    /// The account registry (none: account tokens are unknown).
    accounts: Option<Accounts>,
}

impl GateLayer {
    /// The gate of `shared`'s server (no rate limit when `Config::rate_per_sec` is 0).
    pub fn new(shared: Shared) -> GateLayer {
        let per_sec = shared.cfg.rate_per_sec;
        let limiter = NonZeroU32::new(per_sec).map(|rate| {
            let burst = rate.saturating_mul(NonZeroU32::new(2).expect("2"));
            let quota = Quota::per_second(rate).allow_burst(burst);
            let keyed = RateLimiter::dashmap_with_clock(quota, TokioClock(tokio::time::Instant::now()));
            Arc::new(Limiter { keyed, per_sec })
        });
        GateLayer { shared, limiter, accounts: None }
    }

    /// The gate, identifying account tokens in `accounts`.
    pub fn with_accounts(self, accounts: Accounts) -> GateLayer {
        GateLayer { accounts: Some(accounts), ..self }
    }

    /// Drops the callers idle long enough to be full again (the same as none); run every
    /// second with the evictions. Returns how many the limiter still holds.
    pub fn prune(&self) -> usize {
        let Some(l) = &self.limiter else { return 0 };
        l.keyed.retain_recent();
        l.keyed.shrink_to_fit();
        l.keyed.len()
    }

    /// Runs [`GateLayer::prune`] every second while the server runs.
    pub fn spawn_pruner(&self) {
        let Some(limiter) = &self.limiter else { return };
        let weak = Arc::downgrade(limiter);
        let gate = GateLayer { shared: self.shared.clone(), limiter: None, accounts: None };
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(std::time::Duration::from_secs(1));
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                let Some(limiter) = weak.upgrade() else { return };
                GateLayer { limiter: Some(limiter), ..gate.clone() }.prune();
            }
        });
    }

    /// Counts one call of `key` against its rate; RESOURCE_EXHAUSTED with a retry hint when
    /// over it.
    pub fn admit(&self, key: CallerKey) -> Result<(), Status> {
        self.check(key).map_err(|ms| {
            let per_sec = self.limiter.as_ref().map_or(0, |l| l.per_sec);
            let mut s = Status::resource_exhausted(format!(
                "rate limit: at most {per_sec} requests/s per caller; retry in {ms} ms"
            ));
            if let Ok(v) = ms.to_string().parse() {
                s.metadata_mut().insert("retry-after-ms", v);
            }
            s
        })
    }

    /// Counts one request of `key` against its rate; over it, the milliseconds to wait.
    fn check(&self, key: CallerKey) -> Result<(), u64> {
        let Some(l) = &self.limiter else { return Ok(()) };
        l.keyed.check_key(&key).map_err(|not_until| {
            self.shared.metrics.rate_limited.inc();
            not_until.wait_time_from(l.keyed.clock().now()).as_millis() as u64 + 1
        })
    }

    /// The caller of `req`: the address a trusted proxy (or another server of the cluster)
    /// names in `x-gin-client`, if any, and the one to count against (that, else the TCP
    /// peer's).
    fn caller<B>(&self, req: &Request<B>) -> (Option<SocketAddr>, Option<SocketAddr>) {
        let tcp = peer(req.extensions());
        let named = tcp
            .filter(|p| self.shared.cfg.trusts(p.ip()))
            .and_then(|_| crate::cluster::client_header(req.headers()));
        (named, named.or(tcp))
    }

    /// The account registry the gate identifies account tokens in, if any.
    pub fn accounts(&self) -> Option<&Accounts> {
        self.accounts.as_ref()
    }

    /// The address `req` counts against (see `caller`): a trusted proxy's `x-gin-client`,
    /// else the TCP peer's.
    pub fn client_ip<B>(&self, req: &Request<B>) -> Option<IpAddr> {
        self.caller(req).1.map(|c| c.ip())
    }

    /// Counts a request for the web page against its caller's address, as a call without a
    /// seat token is: over the rate, the milliseconds to wait (the page answers 429).
    pub fn admit_page<B>(&self, req: &Request<B>) -> Result<(), u64> {
        let (_, client) = self.caller(req);
        self.check(CallerKey::Peer(client.map(|c| c.ip())))
    }
}

impl<S> Layer<S> for GateLayer {
    type Service = Gate<S>;

    fn layer(&self, inner: S) -> Gate<S> {
        Gate { inner, layer: self.clone() }
    }
}

/// The gate around a service (see the module docs).
#[derive(Clone)]
pub struct Gate<S> {
    inner: S,
    layer: GateLayer,
}

impl<S, B> Service<Request<B>> for Gate<S>
where
    S: Service<Request<B>, Response = Response<Body>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    B: Send + 'static,
{
    type Response = Response<Body>;
    type Error = S::Error;
    type Future = Either<
        S::Future,
        Either<Ready<Result<Response<Body>, S::Error>>, BoxFuture<'static, Result<Response<Body>, S::Error>>>,
    >;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut req: Request<B>) -> Self::Future {
        let refuse = |s: Status| Either::Right(Either::Left(ready(Ok(s.into_http()))));
        let path = req.uri().path();
        if !path.starts_with("/gin.v1.") {
            return Either::Left(self.inner.call(req));
        }
        let authorization = req.headers().get(http::header::AUTHORIZATION);
        let identity = if let Some(token) = account_bearer(authorization) {
            let Some(accounts) = &self.layer.accounts else { return refuse(unknown_account_token()) };
            match accounts.identify(token) {
                Some(id) => Some(Identity::Account(id)),
                None if accounts.clustered() => {
                    // Perhaps made on another server a moment ago: read the changes once, then
                    // pass the call on (the service's readiness was checked for this call).
                    // Counted against the address first: made-up tokens cannot make a caller
                    // read the store more often than its rate.
                    let (_, client) = self.layer.caller(&req);
                    if let Err(s) = self.layer.admit(CallerKey::Peer(client.map(|c| c.ip()))) {
                        return refuse(s);
                    }
                    let token = token.to_owned();
                    let accounts = accounts.clone();
                    let layer = self.layer.clone();
                    let clone = self.inner.clone();
                    let mut inner = std::mem::replace(&mut self.inner, clone);
                    return Either::Right(Either::Right(Box::pin(async move {
                        let Some(id) = accounts.identify_fresh(&token).await else {
                            return Ok(unknown_account_token().into_http());
                        };
                        match layer.admit_call(&mut req, Some(Identity::Account(id))) {
                            Ok(()) => inner.call(req).await,
                            Err(s) => Ok(s.into_http()),
                        }
                    })));
                }
                None => return refuse(unknown_account_token()),
            }
        } else if path.starts_with("/gin.v1.GameService/") {
            match identify(&self.layer.shared, authorization) {
                Ok(id) => id,
                Err(s) => return refuse(s),
            }
        } else {
            None
        };
        match self.layer.admit_call(&mut req, identity) {
            Ok(()) => Either::Left(self.inner.call(req)),
            Err(s) => refuse(s),
        }
    }
}

impl GateLayer {
    /// Counts a call of `identity` against its rate: a seat's or an account's own (a signed-in
    /// program behind an address it shares is not starved by its neighbours, and one account's
    /// calls from many addresses share its one rate), else its address's; and puts the
    /// identity and the caller's address in its extensions.
    fn admit_call<B>(&self, req: &mut Request<B>, identity: Option<Identity>) -> Result<(), Status> {
        // The caller: the TCP peer, or in a cluster the one a call from its proxy (or
        // another of its servers) names. (Kept as an extension only then: elsewhere
        // `ClientAddr::of` reads the TCP peer.)
        let (named, client) = self.caller(req);
        if let Some(c) = named {
            req.extensions_mut().insert(ClientAddr(c));
        }
        let peer = CallerKey::Peer(client.map(|c| c.ip()));
        match &identity {
            Some(Identity::Seat(id)) => self.admit(CallerKey::Token(id.token_hash))?,
            Some(Identity::Account(id)) => self.admit(CallerKey::Account(account_key(&id.account_id)))?,
            _ => self.admit(peer)?,
        }
        match identity {
            Some(Identity::Seat(id)) => {
                req.extensions_mut().insert(id);
            }
            Some(Identity::Claimed(claim)) => {
                req.extensions_mut().insert(claim);
            }
            Some(Identity::Account(id)) => {
                req.extensions_mut().insert(id);
            }
            None => {}
        }
        Ok(())
    }
}

/// The peer address of a call, over TCP or TLS.
pub fn peer(ext: &http::Extensions) -> Option<std::net::SocketAddr> {
    let tcp = ext
        .get::<TcpConnectInfo>()
        .or_else(|| ext.get::<TlsConnectInfo<TcpConnectInfo>>().map(|t| t.get_ref()));
    tcp.and_then(|c| c.remote_addr())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::Store;
    use std::time::Duration;

    /// On paused time: the limiter's clock is tokio's, so the refill is exact and instant.
    #[tokio::test(start_paused = true)]
    async fn each_caller_has_its_own_rate_and_idle_ones_are_pruned() {
        let dir = tempfile::tempdir().unwrap();
        let cfg =
            crate::Config { db: dir.path().join("gin.db"), rate_per_sec: 5, ..crate::Config::default() };
        let (store, startup) = Store::open_sqlite(&cfg.db).unwrap();
        let start = tokio::time::Instant::now();
        let at = |ms: u64| tokio::time::sleep_until(start + Duration::from_millis(ms));
        let gate = GateLayer::new(Shared::new(cfg, store.clone(), startup).unwrap());
        let (a, b) = (CallerKey::Token([1; 32]), CallerKey::Peer(None));
        // A burst of two seconds' worth, then refused with a retry hint (one interval, 200
        // ms, and 1 ms); others unaffected.
        for _ in 0..10 {
            gate.admit(a).unwrap();
        }
        let refused = gate.admit(a).unwrap_err();
        assert_eq!(refused.code(), tonic::Code::ResourceExhausted);
        let hint: u64 = refused.metadata().get("retry-after-ms").unwrap().to_str().unwrap().parse().unwrap();
        assert_eq!(hint, 201);
        gate.admit(b).unwrap();
        // Recent callers stay (dropping them would reset a caller's limit)...
        assert_eq!(gate.prune(), 2);
        assert!(gate.admit(a).is_err());
        // ...idle ones go once full again, and one interval of grace: `b` (one call) at 0.4 s,
        // `a` (its whole burst) at 2.2 s, not before.
        at(399).await;
        assert_eq!(gate.prune(), 2);
        at(400).await;
        assert_eq!(gate.prune(), 1);
        at(2199).await;
        assert_eq!(gate.prune(), 1);
        at(2200).await;
        assert_eq!(gate.prune(), 0);
        // A caller back after that has its whole burst, and no more.
        for _ in 0..10 {
            gate.admit(a).unwrap();
        }
        assert!(gate.admit(a).is_err());
        store.close().await;
    }

    #[tokio::test]
    async fn without_a_rate_every_call_passes() {
        let dir = tempfile::tempdir().unwrap();
        let cfg =
            crate::Config { db: dir.path().join("gin.db"), rate_per_sec: 0, ..crate::Config::default() };
        let (store, startup) = Store::open_sqlite(&cfg.db).unwrap();
        let gate = GateLayer::new(Shared::new(cfg, store.clone(), startup).unwrap());
        for _ in 0..10_000 {
            gate.admit(CallerKey::Peer(None)).unwrap();
        }
        assert_eq!(gate.prune(), 0);
        store.close().await;
    }
}
