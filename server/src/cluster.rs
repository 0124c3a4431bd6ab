//! Several servers on one PostgreSQL database (issue 19): what one server knows of the
//! others, shared by the layers that talk to them (`api::forward`, the lobby, the
//! tournaments). Each server is a row of `servers` with a lease; its id is its fencing token.
//!
//! - [`Peers::live`]: the servers whose leases hold, by id, asked of PostgreSQL at most once
//!   per [`TTL`]. The first one (the oldest) is the **lobby's leader**: quick match has one
//!   queue, the leader's, and the other servers forward `QuickMatch` there.
//! - [`Peers::owner`] / [`Peers::remember`]: where a game or a tournament was found, trusted
//!   for [`TTL`].
//! - [`Peers::forward`]: a call sent on, as it came, to one server, marked
//!   ([`FORWARDED`]: that server's id, so a new server started at a dead one's address refuses
//!   it) and with the caller's address ([`CLIENT`]).
//! - [`Peers::ask_others`]: one call to every other live server at once (the lists: open
//!   games, tournaments), each answer in time or left out.
//!
//! # The design, and why
//!
//! - **Calls for a game are forwarded by the server that received them**, not routed to its
//!   owner by the proxy. The proxy in front (HAProxy from Debian) balances HTTP/2 calls over
//!   the servers that accept connections and knows nothing of games. A game's owner is
//!   whichever server holds its lease in PostgreSQL (`games.owner`, the `servers` row it
//!   names): it is unknown when the game is created and changes when a server dies, so a proxy
//!   hashing a game-id header would send calls to a server that is not the owner after every
//!   failover and for every game created elsewhere, and that server would have to forward (or
//!   move the game) anyway. With forwarding, the lease is the only truth, any proxy works, and
//!   clients in any language need no header; the price is one extra hop for calls that land on
//!   another server ((N−1)/N of them with N servers), a unary call or a stream relayed over a
//!   kept-open connection between servers (`api::forward`: the request's one message read for
//!   the game id, field 1 of every request that names a game; the owner found in PostgreSQL
//!   and remembered for a second; a forwarded call is marked and never forwarded again).
//! - **The proxy saves that hop where it can, by the id** (`--route-tag`): each server puts its
//!   tag before the ids of the games and tournaments it creates (`s2-…`,
//!   `game::shared::new_id`), and the local cluster's HAProxy reads the id in the request
//!   (`req.body,ungrpc(1)`, the same field 1; `option http-buffer-request`) and sends the call
//!   to the server of that tag (`use-server`); a call naming no id, or one whose server is
//!   down, is balanced as before. Routing is only a hint: the creator serves its games until
//!   it dies, then the call lands on the restarted server of that tag or any other and is
//!   forwarded to the game's new owner. Measured: two calls in three forwarded without it, none
//!   with it while no server dies (`gin_forwarded_calls_total`, test
//!   `the_proxy_sends_each_game_s_calls_to_its_server`), and 1.8× the actions/s over three
//!   servers (the book's performance chapter).
//! - **A lease per server, fencing by its id** (`storage::postgres`): a server joins with a new
//!   `servers` row (its id, unique per process start, is the fencing token) and renews its
//!   lease every third of its length (`game::keep_lease`). Every batch it writes holds its row
//!   (`FOR KEY SHARE`) and checks that the lease has not run out and that every game is its
//!   (`games.owner`). A server claims a lapsed server's games by deleting that server's row
//!   first, in the claim's transaction: the delete waits for a batch of the lapsed server still
//!   in flight, and after it every batch of that server finds no lease. So two servers never
//!   both commit to one game, whatever the clocks (only PostgreSQL's `now()` is used) or a
//!   partition do. A server that learns its lease is gone stops (fail-stop: its games are
//!   others' already; restarted, it is a new server).
//! - **A graceful stop gives the lease up** (SIGTERM, ctrl-c; `Backend::leave`): the calls in
//!   flight finish, the serving threads stop, `Store::close` makes `lease_holds` false and
//!   the writer commits what is queued, then deletes the server's `servers` row, as a claimer
//!   deletes a lapsed one's; the writer stops, so nothing is written or served afterwards.
//!   Its games then name a server that is gone: `owner_of` says `Owner::Lapsed` at once, and
//!   that lookup wakes the claim loop (`Store::claim_wanted`, at most one early round per
//!   200 ms), whose claim takes everything the stopped server held, as after a lapse
//!   (exactly once: the same transaction, the same `NOT EXISTS`). A rolling restart thus moves
//!   games in a moment, not after `--lease-ms`; a killed server's still wait for its lease.
//! - **A server past its lease serves nothing, not even from memory** (issue 36): frozen
//!   (`SIGSTOP`) or cut off longer than a lease, its games may be another's already and its
//!   copy of them behind what clients saw there (a watcher resuming there got `OUT_OF_RANGE`:
//!   its seq was past the stale copy's last). `Store::lease_holds` is checked first in
//!   `ForwardLayer`: until a renewal succeeds every call is `UNAVAILABLE` (then the server
//!   stops if its lease is gone). A write its lost lease refused is `StoreError::LeaseLost`,
//!   `UNAVAILABLE` too. Such refusals carry `retry-after-ms`: nothing was done, so clients
//!   retry even `CreateGame` (the SDK's `nothing_done`, which also takes an HTTP/2
//!   `REFUSED_STREAM` as such; the examples).
//! - **Taking over, all at once**: a claim (`claim_orphans`, in the lease loop every third of
//!   a lease) takes everything lapsed servers held, games and tournaments, in one transaction,
//!   so a tournament and its games stay on one server and its driver sees its games in memory.
//!   No lookup claims (`owner_of` says `Owner::Lapsed`, a call gets `UNAVAILABLE` and is
//!   retried; the lookup only brings the loop's next whole claim forward): an earlier design claimed a single game on demand and split a tournament's
//!   games from their driver. A claimed game is replayed (`Shared::adopt`: its seats' tokens
//!   registered, listed open if a seat is free, resumed as at a start: a clock gets a whole
//!   turn again, a house bot to act plays); a claimed tournament is read back and driven on
//!   (`Tournaments::adopt`).
//! - **Tournament calls are forwarded like game calls** (`JoinTournament`, `WatchTournament`,
//!   `GetTournament`, `ExportTournament`: field 1 is the tournament id), to the server that
//!   drives it (`tournaments.owner`). One tournament driver at a time follows from the lease.
//! - **One lobby**: quick match has one queue, the leader's (the oldest live server, the lowest
//!   id in `servers`); every other server forwards `QuickMatch` there, and the game is made
//!   there (its later calls forwarded by game id like any other). When the leader dies its
//!   waiting callers get `UNAVAILABLE` and ask again (the SDK does), reaching the next oldest
//!   once the lease ran out. `ListGames` and `ListTournaments` asked by a client are asked of
//!   every live server at once (`ask_others`, 2 s each at most, a silent server left out) and
//!   merged newest first.
//! - **A forwarded call names its server** (`x-gin-forwarded: <id>`): a server started again at
//!   a dead one's address is a new server, and refuses (`UNAVAILABLE`) the calls other servers
//!   still send there for the dead one, instead of answering `NOT_FOUND` for what it never
//!   held.
//! - **The caller's address** behind the proxy: HAProxy sets `x-gin-client` (`ip:port`,
//!   replacing whatever a client sent) and a forwarding server passes it on; in a cluster the
//!   gate takes the caller's address from it (`api::gate::ClientAddr`), so quotas, rate limits
//!   and quick match's "never paired with itself" see the client, not the proxy. Only from
//!   `Config::trusted_proxies` (`--trusted-proxies`: the proxy and the other servers; loopback
//!   by default): from anywhere else the header is ignored and the caller is the TCP peer
//!   (`Config::trusts`), so a client reaching a server directly cannot pass for other
//!   addresses.
//! - Not across servers yet: the rate limit of forwarded calls (counted per forwarding server
//!   by the owner), and quotas (each server counts its own callers' games).
//!
//! The tests: `server/tests/it/cluster.rs` (a killed server's game moves to another and ends
//! as an uninterrupted one; one stopped gracefully moves within seconds, its lease 30 s; quick match across servers; the lists; a sealed tournament game
//! read elsewhere; `examples/cluster/local-cluster.sh` with HAProxy, servers killed and
//! frozen, `--respawn`), and `postgres_a_partitioned_owner_cannot_write_once_its_lease_is_gone`
//! and `postgres_a_lease_given_up_is_claimed_at_once_and_fences_its_server` in the store's
//! tests.

use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Request, Response};
use http_body_util::Full;
use tonic::Status;
use tonic::body::Body;
use tonic::metadata::MetadataValue;
use tonic::transport::{Channel, Endpoint};
use tower::ServiceExt;

use crate::storage::Store;

/// The mark of a forwarded call: the id of the server it is for.
pub const FORWARDED: &str = "x-gin-forwarded";

/// The caller's address (`ip:port`), as the proxy in front saw it (HAProxy sets it, replacing
/// any a client sent) or as the server that forwarded the call did. Trusted in a cluster only,
/// whose servers are reached through the proxy.
pub const CLIENT: &str = "x-gin-client";

/// How long what was learnt of the others (who is live, where a game is) is trusted without
/// asking PostgreSQL again: shorter than a lease, as a game moves only once one ran out.
pub const TTL: Duration = Duration::from_secs(1);

/// How long a server is waited for when every server is asked ([`Peers::ask_others`]).
const ASK_TIMEOUT: Duration = Duration::from_secs(2);

/// Another server: its id and address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Peer {
    /// Its id (its fencing token).
    pub id: i64,
    /// Where it serves.
    pub addr: String,
}

/// What one server knows of the others.
#[derive(Default)]
pub struct Peers {
    /// A connection per server, opened at its first call.
    channels: Mutex<HashMap<String, Channel>>,
    /// Where games and tournaments were found (by a key of the caller's), and when.
    owners: Mutex<HashMap<String, (Peer, Instant)>>,
    /// The live servers, by id, and when they were read.
    live: Mutex<Option<(Vec<Peer>, Instant)>>,
}

impl Peers {
    /// Where `key` was found less than [`TTL`] ago.
    pub fn owner(&self, key: &str) -> Option<Peer> {
        let owners = self.owners.lock().expect("lock");
        owners.get(key).filter(|(_, at)| at.elapsed() < TTL).map(|(peer, _)| peer.clone())
    }

    /// `key` is at `peer`.
    pub fn remember(&self, key: &str, peer: &Peer) {
        let mut owners = self.owners.lock().expect("lock");
        // Old entries go as new ones come: the map stays as large as a second's games.
        if owners.len() >= 4096 {
            owners.retain(|_, (_, at)| at.elapsed() < TTL);
        }
        owners.insert(key.to_owned(), (peer.clone(), Instant::now()));
    }

    /// `key` is no longer where it was (a call there failed).
    pub fn forget(&self, key: &str) {
        self.owners.lock().expect("lock").remove(key);
    }

    /// The servers whose leases hold (this one too), oldest first.
    pub async fn live(&self, store: &Store) -> Result<Vec<Peer>, Status> {
        if let Some((peers, at)) = &*self.live.lock().expect("lock")
            && at.elapsed() < TTL
        {
            return Ok(peers.clone());
        }
        let peers: Vec<Peer> = store
            .live_servers()
            .await
            .map_err(|e| Status::unavailable(format!("listing the cluster's servers: {e}")))?
            .into_iter()
            .map(|(id, addr)| Peer { id, addr })
            .collect();
        *self.live.lock().expect("lock") = Some((peers.clone(), Instant::now()));
        Ok(peers)
    }

    /// The lobby's leader: the oldest live server.
    pub async fn leader(&self, store: &Store) -> Result<Peer, Status> {
        self.live(store)
            .await?
            .into_iter()
            .next()
            .ok_or_else(|| Status::unavailable("no live server in the cluster"))
    }

    /// The connection to the server at `addr`.
    fn channel(&self, addr: &str) -> Result<Channel, Status> {
        let mut channels = self.channels.lock().expect("lock");
        if let Some(c) = channels.get(addr) {
            return Ok(c.clone());
        }
        let endpoint = Endpoint::from_shared(format!("http://{addr}"))
            .map_err(|e| Status::internal(format!("a server's address {addr:?}: {e}")))?;
        Ok(channels.entry(addr.to_owned()).or_insert(endpoint.connect_lazy()).clone())
    }

    /// Sends the call (`parts`, its message `bytes`) from `client` to the server `peer`; its
    /// answer (a stream too) as that server sends it, or `UNAVAILABLE` when it does not answer.
    pub async fn forward(
        &self,
        peer: &Peer,
        mut parts: http::request::Parts,
        bytes: Bytes,
        client: Option<SocketAddr>,
    ) -> Result<Response<Body>, Status> {
        let channel = self.channel(&peer.addr)?;
        mark(&mut parts.headers, peer, client);
        let req = Request::from_parts(parts, Body::new(Full::new(bytes)));
        // A server that does not answer (it died; its lease has not run out yet): the client
        // retries, and what it held moves once the lease is out.
        channel
            .oneshot(req)
            .await
            .map_err(|e| Status::unavailable(format!("the server at {} did not answer: {e}", peer.addr)))
    }

    /// Calls `call` on a connection to every live server (read afresh) but `me`, at once, its request
    /// marked forwarded (with [`FORWARDED`]; see [`forwarded_to`]); the answers that came in
    /// time (a server that does not answer is left out, and logged).
    pub async fn ask_others<T, F, Fut>(&self, store: &Store, me: Option<i64>, call: F) -> Vec<T>
    where
        F: Fn(Channel, MetadataValue<tonic::metadata::Ascii>) -> Fut,
        Fut: Future<Output = Result<T, Status>>,
    {
        // Read afresh: a server that joined within the last second is asked too.
        *self.live.lock().expect("lock") = None;
        let Ok(live) = self.live(store).await else { return Vec::new() };
        let asks = live.iter().filter(|p| Some(p.id) != me).filter_map(|p| {
            let channel = self.channel(&p.addr).ok()?;
            let mark = MetadataValue::from(p.id);
            let answer = call(channel, mark);
            Some(async move {
                match tokio::time::timeout(ASK_TIMEOUT, answer).await {
                    Ok(Ok(t)) => Some(t),
                    Ok(Err(s)) => {
                        tracing::warn!(server = %p.addr, error = %s.message(), "a server did not answer a list");
                        None
                    }
                    Err(_) => {
                        tracing::warn!(server = %p.addr, "a server did not answer a list in time");
                        None
                    }
                }
            })
        });
        futures_util::future::join_all(asks).await.into_iter().flatten().collect()
    }
}

/// Marks a call for `peer`, from `client`.
fn mark(headers: &mut HeaderMap, peer: &Peer, client: Option<SocketAddr>) {
    headers.insert(FORWARDED, HeaderValue::from(peer.id));
    if let Some(c) = client
        && let Ok(v) = HeaderValue::from_str(&c.to_string())
    {
        headers.insert(CLIENT, v);
    }
}

/// The server id a forwarded call is for, if it is one (`Some(None)`: marked, but not with an
/// id).
pub fn forwarded_to(headers: &HeaderMap) -> Option<Option<i64>> {
    headers.get(FORWARDED).map(|v| v.to_str().ok().and_then(|s| s.parse().ok()))
}

/// The caller's address that [`CLIENT`] says: `ip:port` (`[v6]:port` or `v6:port`).
pub fn client_header(headers: &HeaderMap) -> Option<SocketAddr> {
    let text = headers.get(CLIENT)?.to_str().ok()?.trim();
    text.parse().ok().or_else(|| {
        let (ip, port) = text.rsplit_once(':')?;
        Some(SocketAddr::new(ip.parse().ok()?, port.parse().ok()?))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_forwarded_call_names_its_server_and_its_caller() {
        let mut h = HeaderMap::new();
        assert_eq!(forwarded_to(&h), None);
        let client: SocketAddr = "10.1.2.3:4567".parse().unwrap();
        mark(&mut h, &Peer { id: 42, addr: "x:1".into() }, Some(client));
        assert_eq!(forwarded_to(&h), Some(Some(42)));
        assert_eq!(client_header(&h), Some(client));
        h.insert(FORWARDED, HeaderValue::from_static("1x"));
        assert_eq!(forwarded_to(&h), Some(None));
        for (text, want) in [
            ("::1:80", Some("[::1]:80")),
            ("[::1]:80", Some("[::1]:80")),
            ("1.2.3.4:5", Some("1.2.3.4:5")),
            ("1.2.3.4", None),
            ("nobody", None),
        ] {
            h.insert(CLIENT, HeaderValue::from_static(text));
            assert_eq!(client_header(&h), want.map(|w| w.parse().unwrap()), "{text}");
        }
    }
}
