//! The SDK's retries against a scripted lobby server on a loopback socket: a server's
//! `retry-after-ms` is waited for, transient failures stop after the time budget, a status
//! that retrying does not fix is not retried, and connecting stops after `connect_for`.
//!
//! Timings are checked from below only (the machine may be slow), with generous upper bounds.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gin_proto::v1 as pb;
use gin_proto::v1::lobby_service_server::{LobbyService, LobbyServiceServer};
use gin_sdk::{Client, Error, Options};
use tokio::net::TcpListener;
use tonic::transport::server::TcpIncoming;
use tonic::{Code, Request, Response, Status};

/// The answer to the `n`-th `ListGames` call (from 0): a refusal, or `None` for success.
type Script = Box<dyn Fn(usize) -> Option<Status> + Send + Sync>;

/// A lobby whose `ListGames` answers as its script says, and notes when each call came.
struct Scripted {
    script: Script,
    calls: Arc<Mutex<Vec<Instant>>>,
}

#[tonic::async_trait]
impl LobbyService for Scripted {
    async fn create_game(
        &self,
        _: Request<pb::CreateGameRequest>,
    ) -> Result<Response<pb::CreateGameResponse>, Status> {
        Err(Status::unimplemented("scripted lobby"))
    }

    async fn join_game(
        &self,
        _: Request<pb::JoinGameRequest>,
    ) -> Result<Response<pb::JoinGameResponse>, Status> {
        Err(Status::unimplemented("scripted lobby"))
    }

    async fn list_games(
        &self,
        _: Request<pb::ListGamesRequest>,
    ) -> Result<Response<pb::ListGamesResponse>, Status> {
        let n = {
            let mut calls = self.calls.lock().unwrap();
            calls.push(Instant::now());
            calls.len() - 1
        };
        match (self.script)(n) {
            Some(refusal) => Err(refusal),
            None => Ok(Response::new(pb::ListGamesResponse::default())),
        }
    }

    async fn quick_match(
        &self,
        _: Request<pb::QuickMatchRequest>,
    ) -> Result<Response<pb::QuickMatchResponse>, Status> {
        Err(Status::unimplemented("scripted lobby"))
    }
}

/// The scripted lobby, serving on 127.0.0.1:0 until dropped.
struct Lobby {
    url: String,
    calls: Arc<Mutex<Vec<Instant>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Lobby {
    async fn start(script: impl Fn(usize) -> Option<Status> + Send + Sync + 'static) -> Lobby {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let calls: Arc<Mutex<Vec<Instant>>> = Arc::default();
        let lobby = Scripted { script: Box::new(script), calls: calls.clone() };
        let task = tokio::spawn(async move {
            tonic::transport::Server::builder()
                .add_service(LobbyServiceServer::new(lobby))
                .serve_with_incoming(TcpIncoming::from(listener))
                .await
                .unwrap();
        });
        Lobby { url, calls, task }
    }

    fn calls(&self) -> Vec<Instant> {
        self.calls.lock().unwrap().clone()
    }
}

impl Drop for Lobby {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn rate_limited(ms: &str) -> Status {
    let mut s = Status::resource_exhausted("rate limit");
    s.metadata_mut().insert("retry-after-ms", ms.parse().unwrap());
    s
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rate_limit_s_retry_after_is_waited_for() {
    // Refused once with a 300 ms hint, then served: without the hint the SDK's first wait
    // would be 50-100 ms.
    let lobby = Lobby::start(|n| (n == 0).then(|| rate_limited("300"))).await;
    let client = Client::connect(&lobby.url).await.unwrap();
    let games = client.list_games().await.expect("served after the wait");
    assert!(games.is_empty());
    let calls = lobby.calls();
    assert_eq!(calls.len(), 2, "one refusal, one retry");
    let gap = calls[1] - calls[0];
    assert!(gap >= Duration::from_millis(300), "retried {gap:?} after a 300 ms hint");
    assert!(gap < Duration::from_secs(20), "retried {gap:?} after a 300 ms hint");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_retry_waits_for_the_hint_it_got() {
    // Refused three times with a 200 ms hint each (a rate limit that lasts): every retry
    // waits for it, whatever the backoff's own step.
    let lobby = Lobby::start(|n| (n < 3).then(|| rate_limited("200"))).await;
    let client = Client::connect(&lobby.url).await.unwrap();
    client.list_games().await.expect("served after the waits");
    let calls = lobby.calls();
    assert_eq!(calls.len(), 4, "three refusals, three retries");
    for (i, w) in calls.windows(2).enumerate() {
        let gap = w[1] - w[0];
        assert!(gap >= Duration::from_millis(200), "retry {} came {gap:?} after a 200 ms hint", i + 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transient_failures_stop_after_retry_for() {
    let lobby = Lobby::start(|_| Some(Status::unavailable("down for maintenance"))).await;
    let opts = Options { retry_for: Duration::from_secs(1), ..Options::default() };
    let client = Client::connect_with(&lobby.url, opts).await.unwrap();
    let start = Instant::now();
    let err = tokio::time::timeout(Duration::from_secs(60), client.list_games())
        .await
        .expect("the budget ends the retries")
        .expect_err("UNAVAILABLE for ever");
    let took = start.elapsed();
    match &err {
        Error::Rpc { what, status } => {
            assert_eq!(*what, "ListGames");
            assert_eq!(status.code(), Code::Unavailable, "{err}");
        }
        e => panic!("expected the last status, got {e}"),
    }
    assert!(took >= Duration::from_secs(1), "gave up after {took:?}, before the 1 s budget");
    // The last wait may start just before the budget ends: at most 10 s (5 s plus jitter).
    assert!(took < Duration::from_secs(30), "gave up only after {took:?}");
    let calls = lobby.calls().len();
    assert!(calls >= 3, "retried with backoff within the budget: {calls} calls");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_status_retrying_does_not_fix_is_not_retried() {
    let lobby = Lobby::start(|_| Some(Status::invalid_argument("page size"))).await;
    let client = Client::connect(&lobby.url).await.unwrap();
    match client.list_games().await {
        Err(Error::Rpc { what: "ListGames", status }) => assert_eq!(status.code(), Code::InvalidArgument),
        r => panic!("expected INVALID_ARGUMENT, got {r:?}"),
    }
    assert_eq!(lobby.calls().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connecting_stops_after_connect_for() {
    // A port nobody listens on (any more): every attempt is refused at once.
    let addr = TcpListener::bind("127.0.0.1:0").await.unwrap().local_addr().unwrap();
    let opts = Options { connect_for: Duration::from_secs(1), ..Options::default() };
    let start = Instant::now();
    let r =
        tokio::time::timeout(Duration::from_secs(60), Client::connect_with(&format!("http://{addr}"), opts))
            .await
            .expect("the budget ends the attempts");
    let took = start.elapsed();
    assert!(matches!(r, Err(Error::Connect(_))), "{:?}", r.err());
    assert!(took >= Duration::from_secs(1), "gave up after {took:?}, before the 1 s budget");
    assert!(took < Duration::from_secs(30), "gave up only after {took:?}");
}
