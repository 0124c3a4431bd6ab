//! Several servers (issue 19): a call about a game another server holds is forwarded there.
//!
//! [`ForwardLayer`] sits innermost, after the framing check, on servers of a cluster only. A
//! call of `GameService` (and `LobbyService.JoinGame`) that the gate did not already tie to a
//! game in memory (a seat token it knows) has its one request message read; its field 1 is
//! the game's id in every one of those requests. A game in memory, over, unknown, or whose
//! server's lease ran out (claimed here by the lookup) is served here; one another server
//! holds goes there, over a connection kept per server, its headers (the seat token too) and
//! its message as they came, and its answer (a stream too) comes back as that server sent
//! it. A forwarded call is marked (`x-gin-forwarded`) and never forwarded again, so two
//! servers that disagree for a moment cannot bounce a call between them: the second one
//! serves it or refuses it (`UNAVAILABLE`, and the client retries).

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{HeaderValue, Request, Response};
use http_body_util::{BodyExt, Full};
use tonic::Status;
use tonic::body::Body;
use tonic::transport::{Channel, Endpoint};
use tower::{Layer, Service, ServiceExt};

use super::framing::Checked;
use crate::game::shared::{SeatIdentity, Shared};
use crate::storage::Owner;

/// The mark of a forwarded call.
pub const FORWARDED: &str = "x-gin-forwarded";

/// Forwards calls about other servers' games: see the [module](self) doc.
#[derive(Clone)]
pub struct ForwardLayer {
    shared: Shared,
    peers: Arc<Peers>,
}

/// What the forwarding of one server knows of the others.
#[derive(Default)]
struct Peers {
    /// A connection per server, opened at its first forwarded call.
    channels: Mutex<HashMap<String, Channel>>,
    /// Where other servers' games were found, and when: trusted for [`OWNER_TTL`] (a game
    /// moves only when its server's lease ran out, which takes longer), or until a call
    /// there fails.
    owners: Mutex<HashMap<String, (String, Instant)>>,
}

/// How long a game's server, once looked up, is trusted without asking PostgreSQL again.
const OWNER_TTL: Duration = Duration::from_secs(1);

impl Peers {
    fn owner(&self, id: &str) -> Option<String> {
        let owners = self.owners.lock().expect("lock");
        owners.get(id).filter(|(_, at)| at.elapsed() < OWNER_TTL).map(|(addr, _)| addr.clone())
    }

    fn remember(&self, id: &str, addr: &str) {
        let mut owners = self.owners.lock().expect("lock");
        // Old entries go as new ones come: the map stays as large as a second's games.
        if owners.len() >= 4096 {
            owners.retain(|_, (_, at)| at.elapsed() < OWNER_TTL);
        }
        owners.insert(id.to_owned(), (addr.to_owned(), Instant::now()));
    }

    fn forget(&self, id: &str) {
        self.owners.lock().expect("lock").remove(id);
    }
}

impl ForwardLayer {
    /// For the server of `shared`.
    pub fn new(shared: Shared) -> ForwardLayer {
        ForwardLayer { shared, peers: Arc::default() }
    }
}

impl<S> Layer<S> for ForwardLayer {
    type Service = Forward<S>;

    fn layer(&self, inner: S) -> Forward<S> {
        Forward { inner, shared: self.shared.clone(), peers: Arc::clone(&self.peers) }
    }
}

/// The service of [`ForwardLayer`].
#[derive(Clone)]
pub struct Forward<S> {
    inner: S,
    shared: Shared,
    peers: Arc<Peers>,
}

/// Whether the call at `path` names a game in field 1 of its request.
fn about_a_game(path: &str) -> bool {
    path.starts_with("/gin.v1.GameService/") || path == "/gin.v1.LobbyService/JoinGame"
}

/// The game id in field 1 of the first message of a gRPC request body (`None` if the body
/// holds no such field first, as prost writes it).
pub fn game_id_of(body: &[u8]) -> Option<String> {
    let message = body.get(5..)?;
    let (&tag, rest) = message.split_first()?;
    // Field 1, length-delimited.
    if tag != 0x0A {
        return None;
    }
    let (mut len, mut shift, mut i) = (0usize, 0u32, 0usize);
    loop {
        let b = *rest.get(i)?;
        len |= usize::from(b & 0x7F) << shift;
        i += 1;
        if b & 0x80 == 0 {
            break;
        }
        shift += 7;
        if shift > 28 {
            return None;
        }
    }
    let text = rest.get(i..i.checked_add(len)?)?;
    String::from_utf8(text.to_vec()).ok()
}

impl<S> Service<Request<Checked>> for Forward<S>
where
    S: Service<Request<Checked>, Response = Response<Body>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = Response<Body>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Response<Body>, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<Checked>) -> Self::Future {
        // A seat of a game in memory (the gate knew its token), a call forwarded once already,
        // or one about no game: served here, as it came.
        let here = !about_a_game(req.uri().path())
            || req.extensions().get::<SeatIdentity>().is_some()
            || req.headers().contains_key(FORWARDED);
        if here {
            return Box::pin(self.inner.call(req));
        }
        // The service made ready by `poll_ready` serves this call; a clone waits for the next.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let (shared, peers) = (self.shared.clone(), Arc::clone(&self.peers));
        Box::pin(async move {
            let (parts, body) = req.into_parts();
            let bytes = match body.collect().await {
                Ok(collected) => collected.to_bytes(),
                Err(status) => return Ok(status.into_http()),
            };
            if let Some(id) = game_id_of(&bytes)
                && !shared.games.read().expect("lock").contains_key(&id)
            {
                let addr = match peers.owner(&id) {
                    Some(addr) => Some(addr),
                    None => match shared.store.owner_of(&id).await {
                        Ok(Owner::Other { addr, .. }) => {
                            peers.remember(&id, &addr);
                            Some(addr)
                        }
                        // This server's now (claimed by the lookup), over, or none: served here.
                        Ok(_) => None,
                        Err(e) => {
                            return Ok(Status::unavailable(format!("locating game {id:?}: {e}")).into_http());
                        }
                    },
                };
                if let Some(addr) = addr {
                    let resp = forward(&peers, &addr, parts, bytes).await;
                    if resp.is_err() {
                        peers.forget(&id);
                    }
                    return Ok(resp.unwrap_or_else(|s| s.into_http()));
                }
            }
            inner.call(Request::from_parts(parts, Checked::buffered(bytes))).await
        })
    }
}

/// Sends the call (`parts`, its message `bytes`) to the server at `addr`; its answer, or
/// `UNAVAILABLE` when that server does not answer.
async fn forward(
    peers: &Peers,
    addr: &str,
    mut parts: http::request::Parts,
    bytes: Bytes,
) -> Result<Response<Body>, Status> {
    let channel = {
        let mut channels = peers.channels.lock().expect("lock");
        match channels.get(addr) {
            Some(c) => c.clone(),
            None => match Endpoint::from_shared(format!("http://{addr}")) {
                Ok(e) => channels.entry(addr.to_owned()).or_insert(e.connect_lazy()).clone(),
                Err(e) => return Err(Status::internal(format!("a server's address {addr:?}: {e}"))),
            },
        }
    };
    parts.headers.insert(FORWARDED, HeaderValue::from_static("1"));
    let req = Request::from_parts(parts, Body::new(Full::new(bytes)));
    // A server that does not answer (it died; its lease has not run out yet): the client
    // retries, and the game moves once the lease is out.
    channel
        .oneshot(req)
        .await
        .map_err(|e| Status::unavailable(format!("the game's server at {addr} did not answer: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    #[test]
    fn the_game_id_is_read_from_field_one_of_every_request_that_names_a_game() {
        let frame = |m: &[u8]| {
            let mut b = vec![0u8];
            b.extend_from_slice(&(m.len() as u32).to_be_bytes());
            b.extend_from_slice(m);
            b
        };
        let long = "g".repeat(200);
        let watch = gin_proto::v1::WatchGameRequest { game_id: long.clone(), resume_after_seq: 7 };
        assert_eq!(game_id_of(&frame(&watch.encode_to_vec())), Some(long));
        let draw =
            gin_proto::v1::DrawRequest { game_id: "abc".into(), expected_seq: 3, ..Default::default() };
        assert_eq!(game_id_of(&frame(&draw.encode_to_vec())), Some("abc".into()));
        let join = gin_proto::v1::JoinGameRequest { game_id: "xyz".into(), ..Default::default() };
        assert_eq!(game_id_of(&frame(&join.encode_to_vec())), Some("xyz".into()));
        // No id (an empty field is not written), a cut body, a body too short: none.
        let empty = gin_proto::v1::GetGameRequest { game_id: String::new() };
        assert_eq!(game_id_of(&frame(&empty.encode_to_vec())), None);
        let cut = frame(&draw.encode_to_vec());
        assert_eq!(game_id_of(&cut[..7]), None);
        assert_eq!(game_id_of(&[0, 0]), None);
        assert!(about_a_game("/gin.v1.GameService/Draw"));
        assert!(about_a_game("/gin.v1.LobbyService/JoinGame"));
        assert!(!about_a_game("/gin.v1.LobbyService/CreateGame"));
    }
}
