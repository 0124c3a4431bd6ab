//! The Gin Rummy gRPC server: lobby, per-seat event streams that hide what a seat may not
//! see, durable games (SQLite, group commit), fair deals, turn clocks.
//!
//! A library with [`run`]; the `gin-server` binary only parses flags, sets up tracing,
//! binds and passes ctrl-c.
//!
//! ```no_run
//! # async fn demo() -> anyhow::Result<()> {
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! let cfg = gin_server::Config { db: "games.db".into(), ..gin_server::Config::default() };
//! gin_server::run(listener, cfg, async { let _ = tokio::signal::ctrl_c().await; }).await?;
//! # Ok(()) }
//! ```

pub mod clock;
pub mod convert;
pub mod house;
pub mod journal;
pub mod pairing;
pub mod service;
pub mod shared;
pub mod state;
pub mod store;
pub mod tournament;

use std::future::Future;
use std::path::PathBuf;
use std::time::Duration;

use gin_proto::v1::game_service_server::GameServiceServer;
use gin_proto::v1::lobby_service_server::LobbyServiceServer;
use gin_proto::v1::tournament_service_server::TournamentServiceServer;
use tokio::net::TcpListener;
use tonic::transport::{Identity, Server, ServerTlsConfig};
use tonic::{Request, Status};

use crate::shared::{SeatIdentity, Shared, token_hash};

/// Server settings; every one has a flag (and an environment variable) in `gin-server`.
#[derive(Clone, Debug)]
pub struct Config {
    /// SQLite database file.
    pub db: PathBuf,
    /// TLS certificate and key (PEM); plain TCP without.
    pub tls: Option<(PathBuf, PathBuf)>,
    /// Largest request accepted, in bytes.
    pub max_message_bytes: usize,
    /// Requests per second per caller (seat token, or peer address without one); 0: no limit.
    pub rate_per_sec: u32,
    /// Unfinished games one caller (peer address) may have created.
    pub max_open_games_per_caller: u32,
    /// Events buffered per watch stream; a stream further behind is cut off and resumes.
    pub stream_buffer: usize,
    /// Heartbeat interval on idle streams.
    pub heartbeat: Duration,
    /// How long a finished game stays in memory after its end; then only its seat tokens do,
    /// and the game is read back from the store when asked for (a record, a late watcher).
    pub keep_finished: Duration,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            db: PathBuf::from("gin.db"),
            tls: None,
            max_message_bytes: 64 * 1024,
            rate_per_sec: 200,
            max_open_games_per_caller: 100,
            stream_buffer: 1024,
            heartbeat: Duration::from_secs(15),
            keep_finished: Duration::from_secs(5),
        }
    }
}

/// The tokio runtime the server is meant to run on (the `gin-server` binary does): the
/// multi-threaded scheduler, one worker per core, with its LIFO slot turned off when built
/// with `--cfg tokio_unstable` (the workspace's `.cargo/config.toml` sets it).
///
/// Why: an action wakes three tasks of one connection at once, the call's own (its answer)
/// and both seats' watch streams (their events), and each of them wakes the connection's
/// task to write. With the LIFO slot, the connection's task runs right after the first of
/// them and writes alone, then again for the next: about two `writev` per action. In plain
/// FIFO order it runs after all three and writes them in one go: about one `writev` per
/// three actions under load, with the system time of the whole run (server and clients on
/// two cores) down from ~40% to ~25% and some 15% more actions per second.
pub fn runtime_builder() -> tokio::runtime::Builder {
    let mut b = tokio::runtime::Builder::new_multi_thread();
    b.enable_all();
    #[cfg(tokio_unstable)]
    b.disable_lifo_slot();
    b
}

/// The auth interceptor: a valid `authorization: Bearer <seat token>` puts a
/// [`SeatIdentity`] into the request's extensions; no header means a spectator; a header
/// with an unknown or malformed token is UNAUTHENTICATED.
pub fn authenticate(shared: &Shared, mut req: Request<()>) -> Result<Request<()>, Status> {
    let Some(v) = req.metadata().get("authorization") else { return Ok(req) };
    let v = v.to_str().map_err(|_| Status::unauthenticated("authorization: not text"))?;
    let token = v
        .strip_prefix("Bearer ")
        .or_else(|| v.strip_prefix("bearer "))
        .ok_or_else(|| Status::unauthenticated("authorization: expected `Bearer <seat token>`"))?
        .trim();
    let hash = token_hash(token);
    let found = shared.tokens.read().expect("lock").get(&hash).cloned();
    let (game_id, seat) = found.ok_or_else(|| Status::unauthenticated("unknown seat token"))?;
    req.extensions_mut().insert(SeatIdentity { game_id, seat, token_hash: hash });
    Ok(req)
}

/// Serves on `listener` until `shutdown` completes, then stops gracefully: in-flight calls
/// finish, every acknowledged write is on disk, the store is closed.
pub async fn run(
    listener: TcpListener,
    cfg: Config,
    shutdown: impl Future<Output = ()> + Send,
) -> anyhow::Result<()> {
    let (store, startup) = store::Store::open_sqlite(&cfg.db).map_err(|e| anyhow::anyhow!("{e}"))?;
    let shared = Shared::new(cfg.clone(), store.clone(), startup)?;
    shared.spawn_evictor();
    // Unfinished games with a clock get their timers back; house bots whose turn it is play.
    let cells: Vec<_> = shared.games.read().expect("lock").values().cloned().collect();
    for cell in cells {
        let mut st = cell.state.lock().await;
        if st.info.clock.turn_millis > 0 && st.to_act().is_some() {
            st.deadline_ms = shared::now_ms() + st.info.clock.turn_millis as i64;
            clock::arm(&shared, &st);
        }
        house::arm(&shared, &mut st);
    }

    let tournaments = tournament::Tournaments::open(shared.clone(), &cfg.db)?;

    let (health, health_service) = tonic_health::server::health_reporter();
    health.set_serving::<GameServiceServer<service::Games>>().await;
    health.set_serving::<LobbyServiceServer<service::Lobby>>().await;
    health.set_serving::<TournamentServiceServer<tournament::Tournaments>>().await;
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(gin_proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()?;

    let lobby = LobbyServiceServer::new(service::Lobby(shared.clone()));
    let max = cfg.max_message_bytes;

    let mut builder = Server::builder();
    if let Some((cert, key)) = &cfg.tls {
        let identity = Identity::from_pem(std::fs::read(cert)?, std::fs::read(key)?);
        builder = builder.tls_config(ServerTlsConfig::new().identity(identity))?;
    }
    let addr = listener.local_addr()?;
    tracing::info!(%addr, db = %cfg.db.display(), tls = cfg.tls.is_some(), "gin-server listening");
    builder
        .accept_http1(true)
        .layer(tonic_web::GrpcWebLayer::new())
        .add_service(health_service)
        .add_service(reflection)
        .add_service(tonic::service::interceptor::InterceptedService::new(
            GameServiceServer::new(service::Games(shared.clone())).max_decoding_message_size(max),
            {
                let auth = shared.clone();
                move |r| authenticate(&auth, r)
            },
        ))
        .add_service(lobby.max_decoding_message_size(max))
        .add_service(TournamentServiceServer::new(tournaments.clone()).max_decoding_message_size(max))
        .serve_with_incoming_shutdown(
            // Small writes (an event, then the unary answer) must not wait for Nagle's algorithm.
            tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true)),
            async {
                shutdown.await;
                tournaments.shutdown();
                // Watch streams never end on their own: cut them off (UNAVAILABLE, so clients
                // resume elsewhere or later) or the graceful shutdown would wait forever.
                let cells: Vec<_> = shared.games.read().expect("lock").values().cloned().collect();
                for cell in cells {
                    let mut st = cell.state.lock().await;
                    for w in st.watchers.drain(..) {
                        w.cut.store(true, std::sync::atomic::Ordering::Relaxed);
                    }
                }
            },
        )
        .await?;
    store.close().await;
    tracing::info!("gin-server stopped");
    Ok(())
}
