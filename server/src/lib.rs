//! The Gin Rummy gRPC server: lobby, per-seat event streams that hide what a seat may not
//! see, durable games (SQLite, group commit), fair deals, turn clocks; Prometheus metrics
//! ([`metrics`], served when [`Config::metrics_addr`] is set).
//!
//! A library with [`run`]; the `gin-server` binary only checks the CPU (`engine::cpu`),
//! parses flags (each with an environment fallback) into [`Config`], sets up tracing (text,
//! or `--log-format json`), binds, and passes ctrl-c or SIGTERM.
//!
//! ```no_run
//! # async fn demo() -> anyhow::Result<()> {
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! let cfg = gin_server::Config { db: "games.db".into(), ..gin_server::Config::default() };
//! gin_server::run(listener, cfg, async { let _ = tokio::signal::ctrl_c().await; }).await?;
//! # Ok(()) }
//! ```
//!
//! ## Layers
//!
//! Five layers, each a folder of modules with one job; imports go one way (`api` and
//! `tournament` → `game` → `storage`; `api` → [`accounts`] → `storage`, beside `game`), and
//! no module imports its caller: the game layer
//! reaches the clock and the house bots only as hooks (`game::shared::AfterChange`,
//! registered by `game::open`), and knows nothing of gRPC statuses (`GameError`, mapped once
//! in `api::status`). [`cluster`] (what a server knows of the others) sits above the game
//! layer, which knows nothing of it; [`metrics`] is recorded where the numbers arise.
//! [`ladder`] (the rated ladder's queues and pairing) is pure, like the tournaments' pairings:
//! no clock, I/O or storage; its caller passes the time in.
//!
//! A call meets, from the outside in: `api::web::WebLayer` (a plain GET is the web page,
//! `/session` its sign-in; the page's session cookie becomes the call's bearer),
//! gRPC-Web, `api::gate::GateLayer` (identity, rate), `api::framing::FramingLayer`,
//! `api::deadline::DeadlineLayer`, then in a cluster `api::forward::ForwardLayer`, then the
//! service.
//!
//! ## `run`
//!
//! [`run`] binds the metrics endpoint first (an address in use stops the start before
//! anything is opened), opens the store, the game layer (`game::open`, `game::resume`) and the
//! tournaments, accepts on the caller's runtime and deals each connection in turn to one of
//! `Config::threads` serving threads (a shard), each a single-threaded tokio runtime serving
//! the same routes: health, reflection, gRPC-Web, TLS, `TCP_NODELAY`, and a tracing span per
//! call (its method and game). A connection lives on one serving thread: its calls, streams
//! and its own task run there; what threads share is what games share anyway (the games map,
//! each game's async lock, the store's queue, the streams' channels), so nothing may assume
//! the thread that applied an action is the one that serves its watchers. Tasks spawned while
//! serving a call (house bots, clocks, tournaments created by a call) run on that call's
//! thread; those of the games found at start on the caller's runtime.
//!
//! Graceful shutdown: the listener closed, tournament streams ended, every watch stream cut
//! and new ones refused (`Shared::cut_watchers`: a watch never ends on its own, and one
//! started during the stop would hold it up until its client left), then the serving threads
//! drained.

pub mod accounts;
pub mod api;
pub mod cluster;
pub mod config;
pub mod game;
pub mod ladder;
pub mod metrics;
pub mod ratings;
pub mod storage;
pub mod tournament;

pub use config::Config;

use std::future::Future;
use std::time::Duration;

use gin_proto::v1::account_service_server::AccountServiceServer;
use gin_proto::v1::challenge_service_server::ChallengeServiceServer;
use gin_proto::v1::game_service_server::GameServiceServer;
use gin_proto::v1::ladder_service_server::LadderServiceServer;
use gin_proto::v1::lobby_service_server::LobbyServiceServer;
use gin_proto::v1::rating_service_server::RatingServiceServer;
use gin_proto::v1::tournament_service_server::TournamentServiceServer;
use tokio::net::TcpListener;
use tokio_stream::StreamExt;
use tonic::transport::{Identity, Server, ServerTlsConfig};

use crate::api::{deadline, forward, framing, gate, web};

/// Serves on `listener` until `shutdown` completes, then stops gracefully: in-flight calls
/// finish, every acknowledged write is on disk, the store is closed.
///
/// The connections are served by `cfg.threads` threads, each running a single-threaded tokio
/// runtime; `run`'s own task accepts them and hands each to the next thread in turn. A
/// connection, its calls and its streams then stay on one thread. On one multi-threaded
/// runtime they ran on either worker and contended for the connection's lock: measured
/// here, in one run out of four or five the server spent a quarter more CPU per action.
/// Games are shared by all threads; the background tasks (evictions; clocks and house bots
/// of the games found on start) run on the caller's runtime.
pub async fn run(
    listener: TcpListener,
    cfg: Config,
    shutdown: impl Future<Output = ()> + Send,
) -> anyhow::Result<()> {
    // First: an address for the metrics that cannot be had stops the start.
    let metrics_listener = match cfg.metrics_addr {
        Some(addr) => Some(metrics::http::bind(addr).await?),
        None => None,
    };
    // The start's stages are logged with their times (`gin-load accounts-startup` reads them).
    let started = std::time::Instant::now();
    let opened = match &cfg.cluster_addr {
        Some(addr) => storage::Store::open_cluster(&cfg.db, addr, cfg.lease),
        None => storage::Store::open(&cfg.db),
    };
    let (store, mut startup) = opened.map_err(|e| anyhow::anyhow!("{e}"))?;
    tracing::info!(
        took_ms = started.elapsed().as_millis() as u64,
        accounts = startup.accounts.len(),
        tokens = startup.tokens.len(),
        unfinished_games = startup.live.len(),
        "start: store opened and loaded"
    );
    let found_tournaments = std::mem::take(&mut startup.tournaments);
    // The accounts and their tokens, in memory (the gate looks bearers up there).
    let registry = std::time::Instant::now();
    let accounts = accounts::Accounts::open(
        store.clone(),
        &mut startup,
        cfg.registrations_per_hour,
        cfg.session_lifetime,
    )
    .await?;
    tracing::info!(took_ms = registry.elapsed().as_millis() as u64, "start: the accounts' registry built");
    accounts.spawn_tasks();
    // The ratings (the store rates a game at its end; the leaderboards are kept here).
    let ratings =
        ratings::Ratings::open(store.clone(), &mut startup).await.map_err(|e| anyhow::anyhow!("{e}"))?;
    ratings.spawn_poll();
    let directory: std::sync::Arc<dyn game::shared::AccountDirectory> = std::sync::Arc::new(accounts.clone());
    let shared = game::open_with(cfg.clone(), store.clone(), startup, Some(directory))?;
    store.observe(shared.metrics.clone());
    // Unfinished games with a clock get their timers back; house bots whose turn it is play;
    // finished games leave memory and games nobody plays end, from now on.
    game::resume(&shared).await;

    // In a cluster: what this server knows of the others (forwarding, the lobby's lists).
    let peers = std::sync::Arc::new(cluster::Peers::default());
    let tournaments = tournament::Tournaments::open(shared.clone(), peers.clone(), found_tournaments)?;

    // The ladder (its queues are the lobby leader's in a cluster; every server pairs its own).
    let ladder = api::ladder::LadderApi::new(shared.clone(), accounts.clone(), ratings.clone());
    ladder.spawn().await?;

    let (health, health_service) = tonic_health::server::health_reporter();
    health.set_serving::<GameServiceServer<api::games::Games>>().await;
    health.set_serving::<LobbyServiceServer<api::lobby::Lobby>>().await;
    health.set_serving::<TournamentServiceServer<tournament::Tournaments>>().await;
    health.set_serving::<AccountServiceServer<api::accounts::AccountApi>>().await;
    health.set_serving::<RatingServiceServer<api::ratings::RatingApi>>().await;
    health.set_serving::<ChallengeServiceServer<api::challenges::ChallengeApi>>().await;
    health.set_serving::<LadderServiceServer<api::ladder::LadderApi>>().await;
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(gin_proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()?;
    let tls = match &cfg.tls {
        Some((cert, key)) => Some(Identity::from_pem(std::fs::read(cert)?, std::fs::read(key)?)),
        None => None,
    };
    if let Some(identity) = &tls {
        // Checked here, where a bad certificate or key stops the start, not in each thread.
        Server::builder().tls_config(ServerTlsConfig::new().identity(identity.clone()))?;
    }
    let max = cfg.max_message_bytes;
    let mut routes = tonic::service::RoutesBuilder::default();
    let gate = gate::GateLayer::new(shared.clone()).with_accounts(accounts.clone());
    gate.spawn_pruner();
    routes
        .add_service(health_service)
        .add_service(reflection)
        .add_service(GameServiceServer::new(api::games::Games(shared.clone())).max_decoding_message_size(max))
        .add_service(
            LobbyServiceServer::new(api::lobby::Lobby::new(shared.clone(), peers.clone()))
                .max_decoding_message_size(max),
        )
        .add_service(TournamentServiceServer::new(tournaments.clone()).max_decoding_message_size(max))
        .add_service(
            AccountServiceServer::new(api::accounts::AccountApi::new(accounts.clone(), store.clone()))
                .max_decoding_message_size(max),
        )
        .add_service(
            RatingServiceServer::new(api::ratings::RatingApi::new(ratings.clone(), accounts.clone()))
                .max_decoding_message_size(max),
        )
        .add_service(
            ChallengeServiceServer::new(api::challenges::ChallengeApi::new(shared.clone(), accounts.clone()))
                .max_decoding_message_size(max),
        )
        .add_service(LadderServiceServer::new(ladder).max_decoding_message_size(max));
    let routes = routes.routes();

    let addr = listener.local_addr()?;
    let threads = cfg.threads.max(1);
    tracing::info!(%addr, db = %storage::describe(&cfg.db), tls = tls.is_some(), threads,
        start_ms = started.elapsed().as_millis() as u64, "gin-server listening");
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let mut shards = Vec::new();
    for i in 0..threads {
        let (conns, incoming) = tokio::sync::mpsc::unbounded_channel::<std::net::TcpStream>();
        let shard = Shard {
            routes: routes.clone(),
            tls: tls.clone(),
            max_message_bytes: max,
            gate: gate.clone(),
            timeout: cfg.request_timeout,
            max_calls: cfg.max_calls_per_connection.max(1),
            forward: cfg
                .cluster_addr
                .as_ref()
                .map(|_| forward::ForwardLayer::new(shared.clone(), tournaments.clone(), peers.clone())),
        };
        let mut stopped = stopped.clone();
        let (done_tx, done) = tokio::sync::oneshot::channel();
        std::thread::Builder::new().name(format!("gin-serve-{i}")).spawn(move || {
            // The calls woken by the store's writer (another thread) run before the writes
            // they wake: the connection then writes the answers of a whole group commit in
            // one go, not one by one (0.2 instead of 1 `writev` per action, measured).
            let rt =
                tokio::runtime::Builder::new_current_thread().enable_all().global_queue_interval(1).build();
            let served = match rt {
                Ok(rt) => rt.block_on(shard.serve(incoming, async move {
                    let _ = stopped.wait_for(|s| *s).await;
                })),
                Err(e) => Err(e.into()),
            };
            let _ = done_tx.send(served);
        })?;
        shards.push((conns, done));
    }
    let metrics_task = metrics_listener.map(|listener| {
        let mut stopped = stopped.clone();
        if let Ok(at) = listener.local_addr() {
            tracing::info!(%at, "metrics served at /metrics");
        }
        tokio::spawn(metrics::http::serve(listener, shared.metrics.clone(), async move {
            let _ = stopped.wait_for(|s| *s).await;
        }))
    });

    // In a cluster: the lease kept, lapsed servers' games and tournaments taken over; its loss
    // stops the server.
    let mut lease_lost = cfg.cluster_addr.as_ref().map(|_| {
        let t = tournaments.clone();
        let take = move |id: String| {
            let t = t.clone();
            tokio::spawn(async move {
                if let Err(e) = t.adopt(&id).await {
                    tracing::error!(tournament = %id, error = %e, "taking over a tournament failed");
                }
            });
        };
        tokio::spawn(game::keep_lease(shared.clone(), take))
    });
    let mut lost = None;
    let mut shutdown = std::pin::pin!(shutdown);
    let mut next = 0;
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                // Detached from this runtime's reactor; the serving thread registers it with
                // its own.
                Ok((conn, peer)) => match conn.into_std() {
                    Ok(mut conn) => {
                        // A thread that is gone (it failed: its error is returned at the end)
                        // leaves the others to serve; with none left, the server stops.
                        let mut sent = false;
                        for _ in 0..threads {
                            next += 1;
                            match shards[next % threads].0.send(conn) {
                                Ok(()) => {
                                    sent = true;
                                    break;
                                }
                                Err(back) => conn = back.0,
                            }
                        }
                        if !sent {
                            tracing::error!("every serving thread failed: stopping");
                            break;
                        }
                    }
                    Err(e) => tracing::warn!(%peer, "accept: {e}"),
                },
                Err(e) => {
                    // Out of descriptors, or a connection reset before its accept: not fatal.
                    tracing::warn!("accept: {e}");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            },
            _ = &mut shutdown => break,
            e = async { lease_lost.as_mut().expect("guarded").await }, if lease_lost.is_some() => {
                let e = e.unwrap_or_else(|j| anyhow::anyhow!("the lease task failed: {j}"));
                tracing::error!(error = %e, "stopping");
                lost = Some(e);
                break;
            }
        }
    }
    if let Some(task) = lease_lost.take() {
        task.abort();
    }
    drop(listener);
    tournaments.shutdown();
    // Watch streams never end on their own: cut them off (UNAVAILABLE, so clients resume
    // elsewhere or later), and refuse new ones, or the graceful shutdown would wait for them.
    shared.cut_watchers().await;
    let _ = stop.send(true);
    let mut failed = None;
    for (conns, done) in shards {
        drop(conns);
        match done.await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => failed = Some(e),
            Err(_) => failed = Some(anyhow::anyhow!("a serving thread panicked")),
        }
    }
    // The tokens' last uses noted since the last minute.
    accounts.flush_uses().await;
    store.close().await;
    if let Some(task) = metrics_task {
        let _ = task.await;
    }
    tracing::info!("gin-server stopped");
    match (lost, failed) {
        (Some(e), _) | (None, Some(e)) => Err(e),
        (None, None) => Ok(()),
    }
}

/// What one serving thread serves.
struct Shard {
    routes: tonic::service::Routes,
    tls: Option<Identity>,
    /// The largest request message (`Config::max_message_bytes`).
    max_message_bytes: usize,
    /// Identity and rate limit (shared by every thread).
    gate: gate::GateLayer,
    /// `Config::request_timeout`.
    timeout: Duration,
    /// `Config::max_calls_per_connection`.
    max_calls: usize,
    /// In a cluster: forwarding to the servers of other games.
    forward: Option<forward::ForwardLayer>,
}

impl Shard {
    /// Serves every connection `incoming` brings until `stop` completes and the calls in
    /// flight are done.
    async fn serve(
        self,
        incoming: tokio::sync::mpsc::UnboundedReceiver<std::net::TcpStream>,
        stop: impl Future<Output = ()>,
    ) -> anyhow::Result<()> {
        let incoming = tokio_stream::wrappers::UnboundedReceiverStream::new(incoming).map(|conn| {
            let conn = tokio::net::TcpStream::from_std(conn)?;
            // Small writes (an event, then the unary answer) must not wait for Nagle's algorithm.
            conn.set_nodelay(true)?;
            Ok::<_, std::io::Error>(conn)
        });
        let mut builder = Server::builder();
        if let Some(identity) = self.tls {
            builder = builder.tls_config(ServerTlsConfig::new().identity(identity))?;
        }
        builder
            .accept_http1(true)
            // A connection holds at most so many calls.
            .concurrency_limit_per_connection(self.max_calls)
            // A span per call: its method, and the game it is about once the call knows it
            // (`api::convert::in_game`); every log line inside carries them.
            .trace_fn(
                |req| tracing::info_span!("rpc", method = %req.uri().path(), game = tracing::field::Empty),
            )
            // The web page: plain GETs never reach gRPC, only the gate's rate limit.
            .layer(web::WebLayer::new(self.gate.clone()))
            .layer(tonic_web::GrpcWebLayer::new())
            // Inside gRPC-Web's layer: they see every call as gRPC. Identity and rate first.
            .layer(self.gate)
            .layer(framing::FramingLayer::new(self.max_message_bytes))
            // A call whose handler has not answered by then is DEADLINE_EXCEEDED (a stream
            // once it has started is not timed; a shorter `grpc-timeout` is tonic's).
            .layer(deadline::DeadlineLayer::new(self.timeout))
            // In a cluster: calls about other servers' games go there (after the checks above).
            .layer(tower::util::option_layer(self.forward))
            .add_routes(self.routes)
            .serve_with_incoming_shutdown(incoming, stop)
            .await?;
        Ok(())
    }
}
