//! Several servers (issue 19): a call about a game or a tournament another server holds is
//! forwarded there.
//!
//! [`ForwardLayer`] sits innermost, after the framing check, on servers of a cluster only. A
//! call of `GameService` (and `LobbyService.JoinGame`) that the gate did not already tie to a
//! game in memory (a seat token it knows), and a call of `TournamentService` about one
//! tournament, has its one request message read; its field 1 is the game's (tournament's) id
//! in every one of those requests. One in memory, over, or unknown is served here; one
//! another server holds goes there, over a connection kept per server, its headers (the seat
//! token too) and its message as they came, and its answer (a stream too) comes back as that
//! server sent it. One whose server's lease ran out is moving: `UNAVAILABLE` until a claim
//! took it (with everything its server held), and the client retries. A forwarded call is marked (`x-gin-forwarded`) and never forwarded again, so two
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
use crate::tournament::Tournaments;

/// The mark of a forwarded call: the id of the server it is for (a server started again at
/// the address of one that died is a new one, and refuses the calls meant for the old).
pub const FORWARDED: &str = "x-gin-forwarded";

/// Forwards calls about other servers' games: see the [module](self) doc.
#[derive(Clone)]
pub struct ForwardLayer {
    shared: Shared,
    tournaments: Tournaments,
    peers: Arc<Peers>,
}

/// What the forwarding of one server knows of the others.
#[derive(Default)]
struct Peers {
    /// A connection per server, opened at its first forwarded call.
    channels: Mutex<HashMap<String, Channel>>,
    /// Where other servers' games and tournaments were found (by [`About::key`]), and when:
    /// trusted for [`OWNER_TTL`] (one moves only when its server's lease ran out, which takes
    /// longer), or until a call there fails.
    owners: Mutex<HashMap<String, (Peer, Instant)>>,
}

/// Another server: its id and address.
#[derive(Clone, Debug)]
struct Peer {
    id: i64,
    addr: String,
}

/// How long a game's server, once looked up, is trusted without asking PostgreSQL again.
const OWNER_TTL: Duration = Duration::from_secs(1);

impl Peers {
    fn owner(&self, id: &str) -> Option<Peer> {
        let owners = self.owners.lock().expect("lock");
        owners.get(id).filter(|(_, at)| at.elapsed() < OWNER_TTL).map(|(peer, _)| peer.clone())
    }

    fn remember(&self, id: &str, peer: &Peer) {
        let mut owners = self.owners.lock().expect("lock");
        // Old entries go as new ones come: the map stays as large as a second's games.
        if owners.len() >= 4096 {
            owners.retain(|_, (_, at)| at.elapsed() < OWNER_TTL);
        }
        owners.insert(id.to_owned(), (peer.clone(), Instant::now()));
    }

    fn forget(&self, id: &str) {
        self.owners.lock().expect("lock").remove(id);
    }
}

impl ForwardLayer {
    /// For the server of `shared` and `tournaments`.
    pub fn new(shared: Shared, tournaments: Tournaments) -> ForwardLayer {
        ForwardLayer { shared, tournaments, peers: Arc::default() }
    }
}

impl<S> Layer<S> for ForwardLayer {
    type Service = Forward<S>;

    fn layer(&self, inner: S) -> Forward<S> {
        Forward {
            inner,
            shared: self.shared.clone(),
            tournaments: self.tournaments.clone(),
            peers: Arc::clone(&self.peers),
        }
    }
}

/// The service of [`ForwardLayer`].
#[derive(Clone)]
pub struct Forward<S> {
    inner: S,
    shared: Shared,
    tournaments: Tournaments,
    peers: Arc<Peers>,
}

/// What a call names in field 1 of its request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum About {
    Game,
    Tournament,
}

impl About {
    /// The call at `path`'s, if it names one.
    fn of(path: &str) -> Option<About> {
        if path.starts_with("/gin.v1.GameService/") || path == "/gin.v1.LobbyService/JoinGame" {
            return Some(About::Game);
        }
        let one_tournament = ["JoinTournament", "WatchTournament", "GetTournament", "ExportTournament"];
        let method = path.strip_prefix("/gin.v1.TournamentService/")?;
        one_tournament.contains(&method).then_some(About::Tournament)
    }

    /// The key of `id` in [`Peers::owners`].
    fn key(self, id: &str) -> String {
        match self {
            About::Game => format!("g{id}"),
            About::Tournament => format!("t{id}"),
        }
    }
}

/// The game (tournament) id in field 1 of the first message of a gRPC request body (`None` if the body
/// holds no such field first, as prost writes it).
pub fn id_of(body: &[u8]) -> Option<String> {
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
        // or one about no game or tournament: served here, as it came.
        if let Some(to) = req.headers().get(FORWARDED) {
            let me = self.shared.store.member().map(|id| id.to_string());
            if to.to_str().ok() != me.as_deref() {
                let status = Status::unavailable(format!(
                    "this server is not server {} (it moved or is gone); retry",
                    String::from_utf8_lossy(to.as_bytes())
                ));
                return Box::pin(async move { Ok(status.into_http()) });
            }
        }
        let about = About::of(req.uri().path()).filter(|_| {
            req.extensions().get::<SeatIdentity>().is_none() && !req.headers().contains_key(FORWARDED)
        });
        let Some(about) = about else {
            return Box::pin(self.inner.call(req));
        };
        // The service made ready by `poll_ready` serves this call; a clone waits for the next.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let (shared, tournaments, peers) =
            (self.shared.clone(), self.tournaments.clone(), Arc::clone(&self.peers));
        Box::pin(async move {
            let (parts, body) = req.into_parts();
            let bytes = match body.collect().await {
                Ok(collected) => collected.to_bytes(),
                Err(status) => return Ok(status.into_http()),
            };
            if let Some(id) = id_of(&bytes) {
                let held = match about {
                    About::Game => shared.games.read().expect("lock").contains_key(&id),
                    About::Tournament => tournaments.holds(&id),
                };
                let key = about.key(&id);
                let peer = match held {
                    true => None,
                    false => match peers.owner(&key) {
                        Some(peer) => Some(peer),
                        None => match locate(&shared, about, &id).await {
                            Ok(Some(peer)) => {
                                peers.remember(&key, &peer);
                                Some(peer)
                            }
                            Ok(None) => None,
                            Err(status) => return Ok(status.into_http()),
                        },
                    },
                };
                if let Some(peer) = peer {
                    let resp = forward(&peers, &peer, parts, bytes).await;
                    if resp.is_err() {
                        peers.forget(&key);
                    }
                    return Ok(resp.unwrap_or_else(|s| s.into_http()));
                }
            }
            inner.call(Request::from_parts(parts, Checked::buffered(bytes))).await
        })
    }
}

/// Where the game (tournament) `id`, not in this server's memory, is served: another
/// server, or `None` for here (this server's, over, or unknown: the service answers; it
/// reads back a tournament this server claimed and has not read back yet).
async fn locate(shared: &Shared, about: About, id: &str) -> Result<Option<Peer>, Status> {
    let what = match about {
        About::Game => "game",
        About::Tournament => "tournament",
    };
    let owner = match about {
        About::Game => shared.store.owner_of(id).await,
        About::Tournament => shared.store.tournament_owner(id).await,
    };
    match owner {
        Ok(Owner::Other { id, addr }) => Ok(Some(Peer { id, addr })),
        Ok(Owner::Lapsed) => Err(Status::unavailable(format!(
            "{what} {id:?} is moving to another server (its server's lease ran out); retry in a moment"
        ))),
        Ok(_) => Ok(None),
        Err(e) => Err(Status::unavailable(format!("locating {what} {id:?}: {e}"))),
    }
}

/// Sends the call (`parts`, its message `bytes`) to the server `peer`; its answer, or
/// `UNAVAILABLE` when that server does not answer.
async fn forward(
    peers: &Peers,
    peer: &Peer,
    mut parts: http::request::Parts,
    bytes: Bytes,
) -> Result<Response<Body>, Status> {
    let addr = &peer.addr;
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
    parts.headers.insert(FORWARDED, HeaderValue::from(peer.id));
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
        assert_eq!(id_of(&frame(&watch.encode_to_vec())), Some(long));
        let draw =
            gin_proto::v1::DrawRequest { game_id: "abc".into(), expected_seq: 3, ..Default::default() };
        assert_eq!(id_of(&frame(&draw.encode_to_vec())), Some("abc".into()));
        let join = gin_proto::v1::JoinGameRequest { game_id: "xyz".into(), ..Default::default() };
        assert_eq!(id_of(&frame(&join.encode_to_vec())), Some("xyz".into()));
        // No id (an empty field is not written), a cut body, a body too short: none.
        let empty = gin_proto::v1::GetGameRequest { game_id: String::new() };
        assert_eq!(id_of(&frame(&empty.encode_to_vec())), None);
        let cut = frame(&draw.encode_to_vec());
        assert_eq!(id_of(&cut[..7]), None);
        assert_eq!(id_of(&[0, 0]), None);
        assert_eq!(About::of("/gin.v1.GameService/Draw"), Some(About::Game));
        assert_eq!(About::of("/gin.v1.LobbyService/JoinGame"), Some(About::Game));
        assert_eq!(About::of("/gin.v1.LobbyService/CreateGame"), None);
        assert_eq!(About::of("/gin.v1.TournamentService/JoinTournament"), Some(About::Tournament));
        assert_eq!(About::of("/gin.v1.TournamentService/ExportTournament"), Some(About::Tournament));
        assert_eq!(About::of("/gin.v1.TournamentService/ListTournaments"), None);
        assert_eq!(About::of("/gin.v1.TournamentService/CreateTournament"), None);
        let t = gin_proto::v1::JoinTournamentRequest { tournament_id: "t1".into(), ..Default::default() };
        assert_eq!(id_of(&frame(&t.encode_to_vec())), Some("t1".into()));
    }
}
