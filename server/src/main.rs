//! `gin-server`: parses flags, sets up tracing, binds, and serves until ctrl-c.
//!
//! Errors go to stderr as `gin-server: error: …` (and `  caused by: …` lines) with exit
//! status 1; usage errors are clap's, with status 2 (see `gin_cli_meta`).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::{CommandFactory, Parser};

// A tonic server allocates a little for every frame; mimalloc does that faster than glibc.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The Gin Rummy gRPC server. Every flag but --completions also reads an environment variable.
#[derive(Parser, Debug)]
#[command(
    name = "gin-server",
    version = env!("GIN_VERSION"),
    about,
    long_about = None,
    after_help = gin_cli_meta::exit_statuses(
        "Logs go to stdout (--log-format); RUST_LOG sets their level (default info). Errors that stop\n\
         the server go to stderr.",
        &[
            (0, "stopped by ctrl-c (SIGINT) or SIGTERM, after a graceful shutdown"),
            (1, "could not start (the address or --metrics-addr cannot be bound, the database\n\
                 cannot be opened or is of a newer version, ...) or failed while serving"),
            gin_cli_meta::USAGE_STATUS,
        ],
    ),
)]
struct Flags {
    /// Address to listen on.
    #[arg(long, env = "GIN_ADDR", default_value = "127.0.0.1:50051")]
    addr: SocketAddr,
    /// SQLite database file: every game and result is kept there (created if missing), the
    /// actions of unfinished games in the journal directory `<db>-actions` beside it.
    #[arg(long, env = "GIN_DB", default_value = "gin.db")]
    db: PathBuf,
    /// TLS certificate (PEM). With --tls-key, serves TLS; without, plain TCP.
    #[arg(long, env = "GIN_TLS_CERT", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// TLS private key (PEM).
    #[arg(long, env = "GIN_TLS_KEY", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Largest request accepted, in bytes.
    #[arg(long, env = "GIN_MAX_MESSAGE_BYTES", default_value_t = 64 * 1024)]
    max_message_bytes: usize,
    /// Requests per second per caller (seat token, or address without one); 0: unlimited.
    #[arg(long, env = "GIN_RATE_PER_SEC", default_value_t = 200)]
    rate_per_sec: u32,
    /// Accounts one address may register per hour; 0: no limit.
    #[arg(long, env = "GIN_REGISTRATIONS_PER_HOUR", default_value_t = 10)]
    registrations_per_hour: u32,
    /// Days a sign-in (the web page's session cookie included) lasts; API tokens do not
    /// expire.
    #[arg(long, env = "GIN_SESSION_DAYS", default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=3650))]
    session_days: u32,
    /// Seconds a call may take before it is DEADLINE_EXCEEDED (a stream once started is not
    /// timed; a quick match waits up to 60 s).
    #[arg(long, env = "GIN_REQUEST_TIMEOUT_SECS", default_value_t = 120)]
    request_timeout_secs: u64,
    /// Calls one connection may have in flight at once.
    #[arg(long, env = "GIN_MAX_CALLS_PER_CONNECTION", default_value_t = 1024)]
    max_calls_per_connection: usize,
    /// Unfinished games one caller (an account, from any address; else an address) may have
    /// created at once, the games of its tournaments included.
    #[arg(long, env = "GIN_MAX_OPEN_GAMES", default_value_t = 100, visible_alias = "max-open-games")]
    max_open_games_per_caller: u32,
    /// Seconds a game may wait for a player: then it is cancelled (no winner); 0: forever.
    #[arg(long, env = "GIN_OPEN_GAME_TTL_SECS", default_value_t = 3600)]
    open_game_ttl_secs: u64,
    /// Seconds the seat to act may do nothing: then it abandons the game and loses; 0: forever.
    #[arg(long, env = "GIN_IDLE_GAME_TTL_SECS", default_value_t = 3600)]
    idle_game_ttl_secs: u64,
    /// Events buffered per watch stream; a reader further behind is cut off and resumes.
    #[arg(long, env = "GIN_STREAM_BUFFER", default_value_t = 1024)]
    stream_buffer: usize,
    /// Seconds between heartbeats on an idle stream.
    #[arg(long, env = "GIN_HEARTBEAT_SECS", default_value_t = 15)]
    heartbeat_secs: u64,
    /// Seconds a finished game stays in memory; after that it is read back from the database
    /// when asked for (memory stays bounded however many games were played).
    #[arg(long, env = "GIN_KEEP_FINISHED_SECS", default_value_t = 5)]
    keep_finished_secs: u64,
    /// Threads serving connections (a connection stays on one); default: one per core.
    #[arg(long, env = "GIN_THREADS")]
    threads: Option<usize>,
    /// Serve the Prometheus metrics at http://<this address>/metrics (plain HTTP); off when
    /// not given. An address that cannot be bound stops the start.
    #[arg(long, env = "GIN_METRICS_ADDR")]
    metrics_addr: Option<SocketAddr>,
    /// Run as one server of several sharing the PostgreSQL database of --db: the address
    /// (host:port) the other servers reach this one at. Each game is served by one server,
    /// which holds a lease on it; a server that stops renewing loses its games to the others.
    #[arg(long, env = "GIN_CLUSTER_ADDR")]
    cluster_addr: Option<String>,
    /// In a cluster: the lease's length, in milliseconds (renewed every third of it).
    #[arg(long, env = "GIN_LEASE_MS", default_value_t = 3000)]
    lease_ms: u64,
    /// Put this tag (letters, digits, `_`; at most 16) and a `-` before the id of every game
    /// and tournament this server creates, so that a proxy in front of several servers can
    /// send the calls naming one to the server that created it (local-cluster.sh's HAProxy
    /// does); any server still serves any call (forwarding it to the game's server).
    #[arg(long, env = "GIN_ROUTE_TAG", value_parser = route_tag)]
    route_tag: Option<String>,
    /// In a cluster: the networks (CIDR, or single addresses) whose calls may name their
    /// caller in `x-gin-client`: the proxy in front and the other servers. A call from
    /// anywhere else counts as its TCP peer's, for quotas and rate limits.
    #[arg(long, env = "GIN_TRUSTED_PROXIES", value_delimiter = ',', value_parser = network,
          default_values_t = gin_server::Config::loopback())]
    trusted_proxies: Vec<ipnet::IpNet>,
    /// Enter the house bots in the ladder's two-player pools (`house-random`, `house-simple`,
    /// `house-strong`: bot accounts the server registers, plays and rates), as the opponent of
    /// a player who has waited --ladder-house-after-secs with nobody else in reach.
    #[arg(long, env = "GIN_LADDER_HOUSE_BOTS")]
    ladder_house_bots: bool,
    /// Seconds a ladder player waits before a house bot takes it on.
    #[arg(long, env = "GIN_LADDER_HOUSE_AFTER_SECS", default_value_t = 10)]
    ladder_house_after_secs: u64,
    /// Seconds per turn in ladder games (the server plays for a seat whose time runs out).
    #[arg(long, env = "GIN_LADDER_TURN_SECS", default_value_t = 60,
          value_parser = clap::value_parser!(u32).range(1..=3600))]
    ladder_turn_secs: u32,
    /// Log lines as text for people, or one JSON object per line for log collectors (each
    /// with its RPC's span: method and game id). The level comes from RUST_LOG (default info).
    #[arg(long, env = "GIN_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
    /// Print the shell completion script for gin-server (bash, zsh, fish, elvish,
    /// powershell) and exit, e.g. `gin-server --completions bash >
    /// ~/.local/share/bash-completion/completions/gin-server`. No environment variable.
    #[arg(long, value_name = "SHELL")]
    completions: Option<gin_cli_meta::Shell>,
}

/// A `--route-tag`: 1 to 16 ASCII letters, digits or `_` (it goes into ids, and a proxy
/// matches it as the start of one).
fn route_tag(s: &str) -> Result<String, String> {
    let ok = (1..=16).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if ok { Ok(s.to_string()) } else { Err("1 to 16 ASCII letters, digits or _".into()) }
}

/// A `--trusted-proxies` entry: a network (`10.0.0.0/24`, `fd00::/8`) or one address.
fn network(s: &str) -> Result<ipnet::IpNet, String> {
    let s = s.trim();
    s.parse::<ipnet::IpNet>()
        .or_else(|_| s.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
        .map_err(|_| format!("`{s}`: a network (10.0.0.0/24, fd00::/8) or an address (10.0.0.7)"))
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum LogFormat {
    Text,
    Json,
}

fn main() -> std::process::ExitCode {
    // Before anything built for a newer CPU runs (see `engine::cpu`).
    if let Some(why) = engine::cpu::unsupported("gin-server") {
        eprintln!("gin-server: error: {why}");
        return std::process::ExitCode::from(gin_cli_meta::USAGE);
    }
    let f: Flags = gin_cli_meta::parse("gin-server");
    if let Some(shell) = f.completions {
        let written = gin_cli_meta::write_completions(Flags::command(), shell, &mut std::io::stdout().lock());
        if let Err(e) = written {
            gin_cli_meta::print_error(
                "gin-server",
                &anyhow::Error::from(e).context("writing the completions"),
            );
            return std::process::ExitCode::FAILURE;
        }
        return std::process::ExitCode::SUCCESS;
    }
    // This runtime accepts connections and runs the background tasks; `run` serves the
    // connections on threads of its own.
    let served = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(anyhow::Error::from)
        .and_then(|rt| rt.block_on(serve(f)));
    match served {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            gin_cli_meta::print_error("gin-server", &e);
            std::process::ExitCode::FAILURE
        }
    }
}

async fn serve(f: Flags) -> anyhow::Result<()> {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    let logs = tracing_subscriber::fmt().with_env_filter(filter);
    match f.log_format {
        LogFormat::Text => logs.init(),
        LogFormat::Json => logs.json().with_current_span(true).with_span_list(false).init(),
    }
    let cfg = gin_server::Config {
        db: f.db,
        tls: f.tls_cert.zip(f.tls_key),
        max_message_bytes: f.max_message_bytes,
        rate_per_sec: f.rate_per_sec,
        registrations_per_hour: f.registrations_per_hour,
        session_lifetime: Duration::from_secs(u64::from(f.session_days) * 24 * 3600),
        request_timeout: Duration::from_secs(f.request_timeout_secs.max(1)),
        max_calls_per_connection: f.max_calls_per_connection.max(1),
        max_open_games_per_caller: f.max_open_games_per_caller,
        open_game_ttl: Duration::from_secs(f.open_game_ttl_secs),
        idle_game_ttl: Duration::from_secs(f.idle_game_ttl_secs),
        stream_buffer: f.stream_buffer.max(16),
        heartbeat: Duration::from_secs(f.heartbeat_secs.max(1)),
        keep_finished: Duration::from_secs(f.keep_finished_secs),
        threads: f.threads.unwrap_or(gin_server::Config::default().threads).max(1),
        metrics_addr: f.metrics_addr,
        cluster_addr: f.cluster_addr,
        lease: Duration::from_millis(f.lease_ms.max(300)),
        route_tag: f.route_tag,
        trusted_proxies: f.trusted_proxies,
        ladder_house_bots: f.ladder_house_bots,
        ladder_house_after: Duration::from_secs(f.ladder_house_after_secs),
        ladder_turn_millis: f.ladder_turn_secs * 1000,
    };
    let listener =
        tokio::net::TcpListener::bind(f.addr).await.with_context(|| format!("binding {}", f.addr))?;
    gin_server::run(listener, cfg, stop_signal()?).await
}

/// Completes at ctrl-c (SIGINT) or SIGTERM (what systemd and container runtimes send): either
/// stops the server gracefully.
fn stop_signal() -> anyhow::Result<impl std::future::Future<Output = ()>> {
    #[cfg(unix)]
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    Ok(async move {
        #[cfg(unix)]
        tokio::select! {
            _ = tokio::signal::ctrl_c() => tracing::info!("ctrl-c: shutting down"),
            _ = term.recv() => tracing::info!("SIGTERM: shutting down"),
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            tracing::info!("ctrl-c: shutting down");
        }
    })
}

#[cfg(test)]
mod tests {
    use super::{Flags, network, route_tag};
    use clap::CommandFactory;

    #[test]
    fn the_flags_are_well_formed() {
        Flags::command().debug_assert();
    }

    /// docs/man/gin-server.1 and docs/completions/{gin-server.bash,_gin-server,gin-server.fish}
    /// are what the code generates.
    #[test]
    fn generated_docs_are_current() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        gin_cli_meta::check_generated(
            Flags::command(),
            &root,
            "GIN_WRITE_GENERATED=1 cargo test -p gin-server --bin gin-server generated_docs_are_current",
        );
    }

    #[test]
    fn a_trusted_proxy_is_a_network_or_an_address() {
        assert_eq!(network("10.0.0.0/24").unwrap().to_string(), "10.0.0.0/24");
        assert_eq!(network(" 10.0.0.7 ").unwrap().to_string(), "10.0.0.7/32");
        assert_eq!(network("::1").unwrap().to_string(), "::1/128");
        assert!(network("10.0.0.0/33").unwrap_err().contains("a network"));
        assert!(network("proxy.local").is_err());
    }

    #[test]
    fn a_route_tag_is_a_short_word() {
        assert_eq!(route_tag("s1"), Ok("s1".to_string()));
        assert_eq!(route_tag("eu_west_2"), Ok("eu_west_2".to_string()));
        for bad in ["", "s-1", "a b", "é", "x".repeat(17).as_str()] {
            assert!(route_tag(bad).is_err(), "{bad:?}");
        }
    }
}
