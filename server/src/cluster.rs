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
