//! Several servers (issue 19): a call about a game or a tournament another server holds is
//! forwarded there, and quick match to the lobby's leader.
//!
//! [`ForwardLayer`] sits innermost, after the framing check, on servers of a cluster only. A
//! call of `GameService` (and `LobbyService.JoinGame`) that the gate did not already tie to a
//! game in memory (a seat token it knows), and a call of `TournamentService` about one
//! tournament, has its one request message read; its field 1 is the game's (tournament's) id
//! in every one of those requests. One in memory, over, or unknown is served here; one
//! another server holds goes there ([`crate::cluster::Peers::forward`]: its headers, the
//! seat token too, and its message as they came; its answer, a stream too, as that server
//! sent it). One whose server's lease ran out is moving: `UNAVAILABLE` until a claim took it
//! (with everything its server held), and the client retries. `QuickMatch` and every call of
//! `ChallengeService` go to the lobby's leader (the oldest live server: one queue, and one
//! book of open challenges, for the cluster).
//!
//! A forwarded call is marked with the id of the server it is for, and never forwarded
//! again, so two servers that disagree for a moment cannot bounce a call between them: the
//! second one serves it or refuses it (`UNAVAILABLE`, and the client retries); a server
//! started at the address of one that died refuses the calls meant for that one.
//!
//!
//! A game's call is looked at here only when the gate found no seat of a game in memory. The
//! owner comes from `Store::owner_of` / `Store::tournament_owner` (`Owner::Lapsed` is
//! `UNAVAILABLE`), remembered for `cluster::TTL`. Every call is `UNAVAILABLE` while
//! `Store::lease_holds` is false (a server past its lease serves nothing, not even from
//! memory: see `cluster`). Why forwarding rather than routing by the proxy: `cluster`'s
//! module docs.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use http::{Request, Response};
use http_body_util::BodyExt;
use tonic::Status;
use tonic::body::Body;
use tower::{Layer, Service};

use super::framing::Checked;
use super::gate::ClientAddr;
use super::status::not_done;
use crate::cluster::Peers;
use crate::cluster::{Peer, forwarded_to};
use crate::game::shared::{SeatIdentity, Shared};
use crate::storage::Owner;
use crate::tournament::Tournaments;

pub use crate::cluster::FORWARDED;

/// Forwards calls about other servers' games: see the [module](self) doc.
#[derive(Clone)]
pub struct ForwardLayer {
    shared: Shared,
    tournaments: Tournaments,
    peers: Arc<Peers>,
}

impl ForwardLayer {
    /// For the server of `shared` and `tournaments`, in the cluster of `peers`.
    pub fn new(shared: Shared, tournaments: Tournaments, peers: Arc<Peers>) -> ForwardLayer {
        ForwardLayer { shared, tournaments, peers }
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

/// What a call is about, for forwarding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum About {
    /// The game in field 1.
    Game,
    /// The tournament in field 1.
    Tournament,
    /// Quick match and every `ChallengeService` and `LadderService` call: the lobby leader's
    /// (one queue, one book of open challenges, one ladder for the cluster).
    Leader,
}

impl About {
    /// The call at `path`'s, if it is forwarded at all.
    fn of(path: &str) -> Option<About> {
        if path.starts_with("/gin.v1.GameService/") || path == "/gin.v1.LobbyService/JoinGame" {
            return Some(About::Game);
        }
        if path == "/gin.v1.LobbyService/QuickMatch"
            || path.starts_with("/gin.v1.ChallengeService/")
            || path.starts_with("/gin.v1.LadderService/")
        {
            return Some(About::Leader);
        }
        let one_tournament = ["JoinTournament", "WatchTournament", "GetTournament", "ExportTournament"];
        let method = path.strip_prefix("/gin.v1.TournamentService/")?;
        one_tournament.contains(&method).then_some(About::Tournament)
    }
}

/// The game (tournament) id in field 1 of the first message of a gRPC request body (`None`
/// if the body holds no such field first, as prost writes it).
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
        // A server whose lease may have run out (it was frozen, or cut off from PostgreSQL,
        // longer than a lease) serves nothing until a renewal succeeds: its games may be
        // another server's already, and what it holds in memory behind what clients saw there
        // (a stream resumed here would be refused as past the game's last seq, a snapshot
        // would be old). Nothing is done: the client retries, through the proxy at another
        // server, or here once the lease is renewed (if it is gone, this server stops).
        if std::env::var_os("GIN_EXPERIMENT_NO_LEASE_CHECK").is_none() && !self.shared.store.lease_holds() {
            let status = not_done("this server's lease may have run out (it was not renewed in time); retry");
            return Box::pin(async move { Ok(status.into_http()) });
        }
        // A call forwarded here is served here; one meant for a server that was at this
        // address before (it died; this one started since) is refused, and the client retries.
        if let Some(to) = forwarded_to(req.headers()) {
            if to.is_none() || to != self.shared.store.member() {
                let status = not_done("the server this call was sent on to is gone; retry");
                return Box::pin(async move { Ok(status.into_http()) });
            }
            return Box::pin(self.inner.call(req));
        }
        // A seat of a game in memory (the gate knew its token), or a call about no game or
        // tournament: served here, as it came.
        let about = About::of(req.uri().path()).filter(|_| req.extensions().get::<SeatIdentity>().is_none());
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
            let key = match about {
                About::Leader => None,
                About::Game => id_of(&bytes).map(|id| format!("g{id}")),
                About::Tournament => id_of(&bytes).map(|id| format!("t{id}")),
            };
            let peer = match where_served(&shared, &peers, &tournaments, about, key.as_deref()).await {
                Ok(peer) => peer,
                Err(status) => return Ok(status.into_http()),
            };
            if let Some(peer) = peer {
                shared.metrics.forwarded_calls.inc();
                // The caller: as the proxy named it, else this connection's peer.
                let client = parts
                    .extensions
                    .get::<ClientAddr>()
                    .map(|c| c.0)
                    .or_else(|| super::gate::peer(&parts.extensions));
                let resp = peers.forward(&peer, parts, bytes, client).await;
                if resp.is_err()
                    && let Some(key) = &key
                {
                    peers.forget(key);
                }
                return Ok(resp.unwrap_or_else(|s| s.into_http()));
            }
            inner.call(Request::from_parts(parts, Checked::buffered(bytes))).await
        })
    }
}

/// The other server that serves a call `about` the game or tournament of `key` (its kind's
/// letter, then its id), or quick match; `None` for here: one in memory, this server's, over
/// or unknown (the service answers; it reads back a tournament this server claimed and has
/// not read back yet). One whose server's lease ran out is `UNAVAILABLE` until claimed.
async fn where_served(
    shared: &Shared,
    peers: &Peers,
    tournaments: &Tournaments,
    about: About,
    key: Option<&str>,
) -> Result<Option<Peer>, Status> {
    if about == About::Leader {
        let leader = peers.leader(&shared.store).await?;
        return Ok((Some(leader.id) != shared.store.member()).then_some(leader));
    }
    let Some(key) = key else { return Ok(None) };
    let id = &key[1..];
    let (what, held) = match about {
        About::Tournament => ("tournament", tournaments.holds(id)),
        _ => ("game", shared.games.read().expect("lock").contains_key(id)),
    };
    if held {
        return Ok(None);
    }
    if let Some(peer) = peers.owner(key) {
        return Ok(Some(peer));
    }
    let owner = match about {
        About::Tournament => shared.store.tournament_owner(id).await,
        _ => shared.store.owner_of(id).await,
    };
    match owner {
        Ok(Owner::Other { id: server, addr }) => {
            let peer = Peer { id: server, addr };
            peers.remember(key, &peer);
            Ok(Some(peer))
        }
        Ok(Owner::Lapsed) => Err(not_done(format!(
            "{what} {id:?} is moving to another server (its server's lease ran out); retry in a moment"
        ))),
        Ok(_) => Ok(None),
        Err(e) => Err(not_done(format!("locating {what} {id:?}: {e}"))),
    }
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
        assert_eq!(About::of("/gin.v1.LobbyService/QuickMatch"), Some(About::Leader));
        assert_eq!(About::of("/gin.v1.ChallengeService/WatchChallenges"), Some(About::Leader));
        assert_eq!(About::of("/gin.v1.ChallengeService/AcceptChallenge"), Some(About::Leader));
        assert_eq!(About::of("/gin.v1.LadderService/JoinLadder"), Some(About::Leader));
        let t = gin_proto::v1::JoinTournamentRequest { tournament_id: "t1".into(), ..Default::default() };
        assert_eq!(id_of(&frame(&t.encode_to_vec())), Some("t1".into()));
    }
}
