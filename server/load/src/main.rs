//! `gin-load`: the load benchmark of the Gin Rummy server.
//!
//! The measuring process is this one (the client); the servers run in their own processes.
//!
//! * `gin-load actions --server URL --parallel 100 --seconds 20`: keeps `--parallel` games in
//!   play (each created with `CreateGame { join: true, seed }` + `JoinGame { seat: 1 }`),
//!   watches both seats (`WatchGame` with the seat token) and plays them as fast as possible
//!   with a fixed policy; reports actions/s and the latency of the action RPCs (send to unary
//!   response) over the measurement window, and every refused action.
//! * `gin-load echo-server --addr 127.0.0.1:PORT`: a bare tonic `gin.bench.v1.EchoService`.
//! * `gin-load echo --server URL --connections 4 --in-flight 64 --seconds 10`: calls/s and
//!   latency of that echo, the cost of tonic itself on this machine.
//! * `gin-load idle-memory --server URL --server-pid PID --games 10000`: the server's resident
//!   memory per idle game, waiting (one seat taken) and dealt (both seats taken); with
//!   `--watch`, also dealt games whose two seats keep a `WatchGame` stream open.
//! * `gin-load all --seconds 20`: starts `gin-server` (next to this executable, or
//!   `--server-exe`) and `gin-load echo-server` as child processes on free ports with a
//!   temporary database, runs echo, actions and idle-memory (on a fresh server) and prints
//!   the table of the targets.
//!   `actions --accounts`: the same with signed-in players (two bot accounts per slot,
//!   registered first; every call carries an account token).
//! * `gin-load signed-in --pairs 3 --seconds 20`: starts `gin-server` and alternates
//!   anonymous and signed-in `actions` windows on it; prints actions/s and server CPU per
//!   action of each, the medians and the ratio (issue 38's target: within 5%).
//! * `gin-load tournament --games 1000 --parallel 150`: a tournament's throughput: starts
//!   `gin-server` and two `gin-bot tournament join` processes (both next to this executable,
//!   or `--server-exe`, `--bot-exe`), plays a two-entrant duplicate round robin, prints the
//!   standings and games/s (see `tournament.rs`).
//! * `gin-load ladder --burst 1000 --programs 100 --seconds 20`: the rated ladder: the
//!   pairing latency of that many programs joining at once, then rated games/s of programs
//!   playing it through gin-sdk's loop (see `ladder.rs`).
//! * `gin-load accounts-startup --accounts 100000 --runs 5`: the time `gin-server` takes to
//!   serve at start with that many accounts: SQLite after a graceful stop and after SIGKILL,
//!   PostgreSQL, and SQLite without accounts (see `accounts_startup.rs`).
//!
//! The clients of `actions` and `echo` run on `--threads` shards (default 2): a thread each
//! with a single-threaded tokio runtime that owns its share of the connections
//! (`--connections`) and of the games or calls using them (see `on_shards`); several games
//! share each HTTP/2 connection.
//!
//!
//! `all --runs N` runs the three in fresh processes N times in turn and tabulates medians and
//! ranges (`FIGURES`). A crate of its own so that the server's package carries none of its
//! dependencies (hdrhistogram was one of the server library's), and so that it may run the
//! other packages' binaries (`gin-bot` too) and depend on the SDK. Its tests
//! (`tests/load.rs`) have cargo build `gin-server` and `gin-bot` first (cargo builds only a
//! package's own binaries for its tests).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, bail};
use clap::{Args, Parser, Subcommand};
use gin_proto::bench as bpb;
use gin_proto::bench::echo_service_client::EchoServiceClient;
use gin_proto::bench::echo_service_server::{EchoService, EchoServiceServer};
use gin_proto::v1 as pb;
use gin_proto::v1::account_service_client::AccountServiceClient;
use gin_proto::v1::game_service_client::GameServiceClient;
use gin_proto::v1::lobby_service_client::LobbyServiceClient;
use gin_server::storage::pg_cluster::LocalPostgres;
use hdrhistogram::Histogram;
use serde_json::{Value, json};
use tonic::metadata::AsciiMetadataValue;
use tonic::transport::{Channel, Endpoint};
use tonic::{Request, Response, Status};

mod accounts_startup;
mod ladder;
mod tournament;

// The same allocator as gin-server (mimalloc), for the echo and the actions clients alike.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The targets of the issue, checked by `all`.
const TARGET_RATIO: f64 = 0.6;
const TARGET_P99_MS: f64 = 5.0;
const TARGET_IDLE_BYTES: f64 = 20.0 * 1024.0;

/// Load benchmark of the Gin Rummy gRPC server.
#[derive(Parser, Debug)]
#[command(
    name = "gin-load",
    version = env!("GIN_VERSION"),
    about,
    long_about = None,
    after_help = gin_cli_meta::exit_statuses("", &gin_cli_meta::common_statuses(
        "a measurement failed, or (all --check) a target was missed",
    )),
)]
struct Cli {
    /// Client threads (shards, each with its own connections) for `actions` and `echo`,
    /// default 2; the tokio workers of `echo-server` (default: one per core).
    #[arg(long, global = true)]
    threads: Option<usize>,
    /// The command.
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Plays games as fast as possible against a running gin-server.
    Actions(ActionsArgs),
    /// Serves the bare echo service (gin.bench.v1.EchoService) until ctrl-c.
    EchoServer(EchoServerArgs),
    /// Calls the echo service as fast as possible.
    Echo(EchoArgs),
    /// Measures the server's resident memory per idle game.
    IdleMemory(IdleArgs),
    /// Starts the servers as child processes, runs echo, actions and idle-memory, prints
    /// the table of the targets.
    All(AllArgs),
    /// Starts one gin-server and alternates `actions` windows of anonymous and of signed-in
    /// players (`actions --accounts`) on it; prints each window's actions/s and server CPU
    /// per action, their medians and the ratio signed-in/anonymous.
    SignedIn(SignedInArgs),
    /// Measures tournament throughput: starts a gin-server and two `gin-bot tournament join`
    /// processes on this machine, plays a two-entrant tournament, prints games/s.
    Tournament(tournament::TournamentArgs),
    /// Measures how long gin-server takes to serve at start with a database of many accounts
    /// and tokens: SQLite after a graceful stop and after SIGKILL, PostgreSQL, and SQLite
    /// without accounts.
    AccountsStartup(accounts_startup::AccountsStartupArgs),
    /// Measures the rated ladder: the pairing latency of many programs joining at once, and
    /// rated games/s of programs playing it (starts a gin-server).
    Ladder(ladder::LadderArgs),
    /// Fills a SQLite database as `accounts-startup` does and waits to be killed (run by it).
    #[command(hide = true)]
    AccountsStartupFill(accounts_startup::FillArgs),
}

#[derive(Args, Debug, Clone)]
struct ActionsArgs {
    /// The gin-server, e.g. http://127.0.0.1:50051.
    #[arg(long, default_value = "http://127.0.0.1:50051")]
    server: String,
    /// Games in play at once, each replaced when it ends.
    // `--games`: the older spelling, still taken.
    #[arg(long, value_name = "N", default_value_t = 100, alias = "games")]
    parallel: u64,
    /// Length of the measurement window, in seconds.
    #[arg(long, default_value_t = 20.0)]
    seconds: f64,
    /// Warm-up before the window, in seconds.
    #[arg(long, default_value_t = 2.0)]
    warmup: f64,
    /// HTTP/2 connections shared by the games (round robin).
    #[arg(long, default_value_t = 4)]
    connections: usize,
    /// Base of the deal seeds (game j of slot i uses base + i * 2^32 + j), so runs repeat.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The games' target score (the standard rules otherwise); 0: the standard 100. A low one
    /// makes short games, for a test on a busy machine that needs some to end.
    #[arg(long, default_value_t = 0)]
    target: u32,
    /// The server's process id: reports its CPU use over the window.
    #[arg(long)]
    server_pid: Option<u32>,
    /// Signed-in players: registers two bot accounts per slot (AccountService.Register, no
    /// password) before the run and plays every game with their account tokens (the lobby
    /// calls, the streams and the actions), so every call passes the gate's account path.
    /// The server must allow the registrations (`gin-server --registrations-per-hour 0`).
    #[arg(long)]
    accounts: bool,
    /// Print a JSON object (the summary line goes to stderr).
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug, Clone)]
struct SignedInArgs {
    /// Anonymous and signed-in windows: this many of each, alternating on one server.
    #[arg(long, default_value_t = 3)]
    pairs: u32,
    /// Length of each measurement window, in seconds.
    #[arg(long, default_value_t = 20.0)]
    seconds: f64,
    /// Warm-up before each window, in seconds.
    #[arg(long, default_value_t = 2.0)]
    warmup: f64,
    /// Games in play at once.
    #[arg(long, value_name = "N", default_value_t = 100)]
    parallel: u64,
    /// The games' target score (0: the standard 100).
    #[arg(long, default_value_t = 0)]
    target: u32,
    /// HTTP/2 connections shared by the games.
    #[arg(long, default_value_t = 4)]
    connections: usize,
    /// The gin-server executable (default: next to this one).
    #[arg(long, value_name = "FILE")]
    server_exe: Option<PathBuf>,
    /// Print a JSON object after the table.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug, Clone)]
struct EchoServerArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:50052")]
    addr: std::net::SocketAddr,
    /// Leave TCP_NODELAY off on accepted connections (as gin-server does, serving a
    /// `TcpListenerStream`); by default it is on, as tonic's own `serve` sets it.
    #[arg(long)]
    no_nodelay: bool,
    /// The durable echo: every call's payload is appended to this file and made durable
    /// before the answer, the way gin-server makes an action durable (one writer thread,
    /// everything queued meanwhile in one write and one `fdatasync`: group commit). The
    /// physical limit of a durably acknowledged call on this machine.
    #[arg(long, value_name = "FILE")]
    durable: Option<PathBuf>,
}

#[derive(Args, Debug, Clone)]
struct EchoArgs {
    /// The echo server, e.g. http://127.0.0.1:50052.
    #[arg(long, default_value = "http://127.0.0.1:50052")]
    server: String,
    /// HTTP/2 connections (round robin).
    #[arg(long, default_value_t = 4)]
    connections: usize,
    /// Calls in flight.
    #[arg(long, default_value_t = 64)]
    in_flight: usize,
    /// Length of the measurement window, in seconds.
    #[arg(long, default_value_t = 10.0)]
    seconds: f64,
    /// Warm-up before the window, in seconds.
    #[arg(long, default_value_t = 2.0)]
    warmup: f64,
    /// Bytes of payload per call.
    #[arg(long, default_value_t = 64)]
    payload: usize,
    /// The server's process id: reports its CPU use over the window.
    #[arg(long)]
    server_pid: Option<u32>,
    /// Print a JSON object (the summary line goes to stderr).
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug, Clone)]
struct IdleArgs {
    /// The gin-server (best a fresh one: memory freed earlier is reused by new games).
    #[arg(long, default_value = "http://127.0.0.1:50051")]
    server: String,
    /// The server's process id (its VmRSS is read from /proc/PID/status).
    #[arg(long)]
    server_pid: u32,
    /// Games of each kind to create.
    #[arg(long, default_value_t = 10_000)]
    games: u64,
    /// Lobby calls in flight while creating them.
    #[arg(long, default_value_t = 64)]
    in_flight: u64,
    /// HTTP/2 connections (round robin).
    #[arg(long, default_value_t = 4)]
    connections: usize,
    /// Base of the deal seeds.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Also measure `--games` more dealt games with both seats watching (WatchGame streams
    /// kept open), as games with their players connected.
    #[arg(long)]
    watch: bool,
    /// Print a JSON object (the summary line goes to stderr).
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug, Clone)]
struct AllArgs {
    /// Length of each measurement window (echo and actions), in seconds.
    #[arg(long, default_value_t = 20.0)]
    seconds: f64,
    /// Warm-up before each window, in seconds.
    #[arg(long, default_value_t = 2.0)]
    warmup: f64,
    /// Games in play at once for `actions`.
    // `--games`: the older spelling, still taken.
    #[arg(long, value_name = "N", default_value_t = 100, alias = "games")]
    parallel: u64,
    /// The `actions` games' target score (see `actions --target`); 0: the standard 100.
    #[arg(long, default_value_t = 0)]
    target: u32,
    /// Idle games of each kind for `idle-memory`.
    #[arg(long, default_value_t = 10_000)]
    idle_games: u64,
    /// HTTP/2 connections.
    #[arg(long, default_value_t = 4)]
    connections: usize,
    /// Echo calls in flight.
    #[arg(long, default_value_t = 64)]
    in_flight: usize,
    /// The gin-server executable (default: `gin-server` next to this one).
    // `--gin-server`: the older spelling, still taken.
    #[arg(long, value_name = "FILE", alias = "gin-server")]
    server_exe: Option<PathBuf>,
    /// Start the echo server with TCP_NODELAY off, like gin-server's accepted sockets.
    #[arg(long)]
    echo_no_nodelay: bool,
    /// Keep the temporary directory (databases and server logs).
    #[arg(long)]
    keep_temp: bool,
    /// The servers under test keep their games in PostgreSQL (`--db postgres://…`): a private
    /// cluster (`initdb` + `pg_ctl` from Debian's `postgresql`) started for the run, a fresh
    /// database for each server.
    #[arg(long)]
    postgres: bool,
    /// Repeat the three measurements this many times, in turn (echo, actions, idle memory,
    /// echo, ...), each on a fresh server: the table gives each figure's median and range,
    /// the ratio's from the ratios of the runs.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    runs: u32,
    /// Exit with an error when a target is missed (by the medians).
    #[arg(long)]
    check: bool,
    /// Print a JSON object after the table: every run's reports under `runs`, each figure's
    /// median under `medians`, the median ratio as `ratio_actions_echo`; `echo`, `actions`
    /// and `idle_memory` are the last run's reports.
    #[arg(long)]
    json: bool,
}

fn main() -> std::process::ExitCode {
    // Before anything built for a newer CPU runs (see `engine::cpu`).
    if let Some(why) = engine::cpu::unsupported("gin-load") {
        eprintln!("gin-load: error: {why}");
        return std::process::ExitCode::from(gin_cli_meta::USAGE);
    }
    // The error style of gin, gin-bot and gin-server.
    match run(gin_cli_meta::parse("gin-load")) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            gin_cli_meta::print_error("gin-load", &e);
            std::process::ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    // The client commands do their calls on `--threads` shards (see `on_shards`); this
    // process's main runtime only keeps time. The echo server is tonic's plain default.
    let shards = cli.threads.unwrap_or(2).max(1);
    let mut rt = match cli.cmd {
        Cmd::EchoServer(_) => {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            b.enable_all();
            if let Some(n) = cli.threads {
                b.worker_threads(n.max(1));
            }
            b
        }
        Cmd::Actions(_) | Cmd::Echo(_) => {
            let mut b = tokio::runtime::Builder::new_current_thread();
            b.enable_all();
            b
        }
        _ => {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            b.enable_all().worker_threads(shards);
            b
        }
    };
    let rt = rt.build()?;
    rt.block_on(async move {
        match cli.cmd {
            Cmd::Actions(a) => {
                let r = actions(&a, shards).await?;
                report(&r.summary(), r.json(), a.json);
                r.verdict()
            }
            Cmd::EchoServer(a) => echo_server(&a).await,
            Cmd::Echo(a) => {
                let r = echo(&a, shards).await?;
                report(&r.summary(), r.json(), a.json);
                r.verdict()
            }
            Cmd::IdleMemory(a) => {
                let r = idle_memory(&a).await?;
                report(&r.summary(), r.json(), a.json);
                Ok(())
            }
            Cmd::All(a) => all(&a).await,
            Cmd::SignedIn(a) => signed_in(&a).await,
            Cmd::Tournament(a) => tournament::run(&a).await,
            Cmd::AccountsStartup(a) => accounts_startup::run(&a).await,
            Cmd::Ladder(a) => ladder::run(&a).await,
            Cmd::AccountsStartupFill(a) => accounts_startup::fill_and_wait(&a).await,
        }
    })
}

/// Prints the summary line, and the JSON object with `--json` (the line then on stderr).
fn report(summary: &str, json: Value, as_json: bool) {
    if as_json {
        eprintln!("{summary}");
        println!("{json}");
    } else {
        println!("{summary}");
    }
}

// ---------------------------------------------------------------------------------------
// Shared measuring machinery.

/// Connects `n` HTTP/2 connections to `url`.
async fn connect(url: &str, n: usize) -> anyhow::Result<Vec<Channel>> {
    let ep = Endpoint::from_shared(url.to_string())
        .with_context(|| format!("bad server URL {url:?}"))?
        .tcp_nodelay(true)
        .connect_timeout(Duration::from_secs(5));
    let mut out = Vec::with_capacity(n.max(1));
    for _ in 0..n.max(1) {
        out.push(ep.connect().await.with_context(|| format!("connecting to {url}"))?);
    }
    Ok(out)
}

/// The client side of a measurement, on `shards` shards: each is a thread with a
/// single-threaded tokio runtime that connects its share of the `connections` to `server`,
/// has `spawn(shard, its channels, its task set)` start its tasks, and once `meter` stops,
/// joins them (10 s of grace). Returns the errors met, once every shard is done.
///
/// Why not one multi-threaded runtime: there, the tasks of one HTTP/2 connection (its
/// calls, its streams, the connection's own task) run on either worker, and contend for
/// the connection's lock: measured here, some 40,000 futex calls per second and ~30% more
/// client CPU per action. A shard owns its connections and everything that uses them.
async fn on_shards<F>(
    shards: usize,
    server: &str,
    connections: usize,
    meter: Arc<Meter>,
    spawn: F,
) -> Vec<String>
where
    F: Fn(usize, &[Channel], &mut tokio::task::JoinSet<anyhow::Result<()>>) + Send + Sync + 'static,
{
    let spawn = Arc::new(spawn);
    let mut done = Vec::new();
    for shard in 0..shards {
        let (spawn, shard_meter, server) = (spawn.clone(), meter.clone(), server.to_string());
        let work = async move {
            let n = share(connections as u64, shard, shards).count();
            let chans = match connect(&server, n).await {
                Ok(c) => c,
                Err(e) => {
                    shard_meter.stop.store(true, Ordering::Relaxed);
                    return vec![format!("{e:#}")];
                }
            };
            let mut set = tokio::task::JoinSet::new();
            spawn(shard, &chans, &mut set);
            // The grace period of `join_all` starts at the stop, not before.
            while !shard_meter.stopped() {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            join_all(set, Duration::from_secs(10)).await
        };
        let (tx, rx) = tokio::sync::oneshot::channel();
        let spawned = std::thread::Builder::new().name(format!("shard-{shard}")).spawn(move || {
            let out = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
                Ok(rt) => rt.block_on(work),
                Err(e) => vec![format!("shard {shard}: runtime: {e}")],
            };
            let _ = tx.send(out);
        });
        match spawned {
            Ok(_) => done.push(rx),
            Err(e) => {
                meter.stop.store(true, Ordering::Relaxed);
                return vec![format!("shard {shard}: thread: {e}")];
            }
        }
    }
    let mut errors = Vec::new();
    for (shard, rx) in done.into_iter().enumerate() {
        match rx.await {
            Ok(e) => errors.extend(e),
            Err(_) => errors.push(format!("shard {shard} panicked")),
        }
    }
    errors
}

/// The items `0..total` that shard `shard` of `shards` takes: every `shards`-th.
fn share(total: u64, shard: usize, shards: usize) -> impl Iterator<Item = u64> {
    (shard as u64..total).step_by(shards.max(1))
}

/// Latencies and counts of one run; latencies are recorded only inside the window.
struct Stats {
    /// Latency of the successful calls inside the window, in microseconds.
    hist: Histogram<u64>,
    /// Successful calls inside the window.
    window_ok: u64,
    /// Successful calls in the whole run.
    total_ok: u64,
    /// Refused calls (any non-OK status) in the whole run, by code.
    refused: BTreeMap<String, u64>,
    /// The first few refusal messages.
    errors: Vec<String>,
}

impl Stats {
    fn new() -> Stats {
        Stats {
            hist: Histogram::new_with_bounds(1, 120_000_000, 3).expect("valid histogram bounds"),
            window_ok: 0,
            total_ok: 0,
            refused: BTreeMap::new(),
            errors: Vec::new(),
        }
    }

    fn refused_total(&self) -> u64 {
        self.refused.values().sum()
    }

    fn note_error(&mut self, what: String) {
        if self.errors.len() < 10 {
            self.errors.push(what);
        }
    }
}

/// What every task of a run shares: the stop and window flags and the stats.
struct Meter {
    /// Set at the end of the window: tasks stop before their next call.
    stop: AtomicBool,
    /// Set during the window.
    measuring: AtomicBool,
    stats: Mutex<Stats>,
}

impl Meter {
    fn new() -> Meter {
        Meter {
            stop: AtomicBool::new(false),
            measuring: AtomicBool::new(false),
            stats: Mutex::new(Stats::new()),
        }
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    fn measuring(&self) -> bool {
        self.measuring.load(Ordering::Relaxed)
    }

    /// Records one call that took `dt` and ended with `status`.
    fn record(&self, dt: Duration, status: Result<(), &Status>, what: &str) {
        let in_window = self.measuring();
        let mut s = self.stats.lock().expect("stats lock");
        match status {
            Ok(()) => {
                s.total_ok += 1;
                if in_window {
                    s.window_ok += 1;
                    s.hist.saturating_record((dt.as_micros() as u64).max(1));
                }
            }
            Err(e) => {
                *s.refused.entry(format!("{:?}", e.code())).or_insert(0) += 1;
                s.note_error(format!("{what}: {:?}: {}", e.code(), e.message()));
            }
        }
    }
}

/// CPU time (user + system) of a process so far, from /proc/PID/stat, in seconds.
fn cpu_seconds(pid: u32) -> Option<f64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces: the fields after it start after the last ')'.
    let rest = &text[text.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // Fields 14 and 15 of the file (utime, stime) are 11 and 12 after the name, from 0.
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    // USER_HZ is 100 on every Linux ABI in use.
    Some(ticks as f64 / 100.0)
}

/// Resident memory of a process, from VmRSS in /proc/PID/status, in bytes.
fn rss_bytes(pid: u32) -> anyhow::Result<u64> {
    let path = format!("/proc/{pid}/status");
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {path}"))?;
    let line = text.lines().find(|l| l.starts_with("VmRSS:")).ok_or_else(|| anyhow!("{path}: no VmRSS"))?;
    let kb: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| anyhow!("{path}: bad VmRSS line {line:?}"))?;
    Ok(kb * 1024)
}

/// The measurement window: its length and the CPU share of both processes during it.
#[derive(Debug, Clone, Copy)]
struct Window {
    secs: f64,
    /// Server CPU over the window, in cores (1.0 = one core busy).
    server_cores: Option<f64>,
    /// This process's CPU over the window, in cores.
    client_cores: Option<f64>,
    /// The server's VmRSS at the start and the end of the window, in bytes.
    server_rss: Option<(u64, u64)>,
}

/// Waits out the warm-up, opens the window for `seconds`, then sets the stop flag.
async fn run_window(meter: &Meter, warmup: f64, seconds: f64, server_pid: Option<u32>) -> Window {
    tokio::time::sleep(Duration::from_secs_f64(warmup.max(0.0))).await;
    let me = std::process::id();
    let (s0, c0) = (server_pid.and_then(cpu_seconds), cpu_seconds(me));
    let r0 = server_pid.and_then(|p| rss_bytes(p).ok());
    let t0 = Instant::now();
    meter.measuring.store(true, Ordering::Relaxed);
    tokio::time::sleep(Duration::from_secs_f64(seconds.max(0.1))).await;
    meter.measuring.store(false, Ordering::Relaxed);
    let secs = t0.elapsed().as_secs_f64();
    let (s1, c1) = (server_pid.and_then(cpu_seconds), cpu_seconds(me));
    let r1 = server_pid.and_then(|p| rss_bytes(p).ok());
    meter.stop.store(true, Ordering::Relaxed);
    let share = |a: Option<f64>, b: Option<f64>| a.zip(b).map(|(a, b)| (b - a) / secs);
    Window { secs, server_cores: share(s0, s1), client_cores: share(c0, c1), server_rss: r0.zip(r1) }
}

/// Latency percentiles in milliseconds.
#[derive(Debug, Clone, Copy, Default)]
struct Lat {
    p50: f64,
    p90: f64,
    p99: f64,
    max: f64,
}

impl Lat {
    fn of(h: &Histogram<u64>) -> Lat {
        let ms = |us: u64| us as f64 / 1000.0;
        if h.is_empty() {
            return Lat::default();
        }
        Lat {
            p50: ms(h.value_at_quantile(0.50)),
            p90: ms(h.value_at_quantile(0.90)),
            p99: ms(h.value_at_quantile(0.99)),
            max: ms(h.max()),
        }
    }

    fn text(&self) -> String {
        format!(
            "p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            self.p50, self.p90, self.p99, self.max
        )
    }

    fn json(&self) -> Value {
        json!({ "p50": self.p50, "p90": self.p90, "p99": self.p99, "max": self.max })
    }
}

fn cpu_text(w: &Window) -> String {
    let pct = |c: Option<f64>| c.map_or("?".to_string(), |c| format!("{:.0}%", c * 100.0));
    let mut s =
        format!("CPU server {} client {} (100% = one core)", pct(w.server_cores), pct(w.client_cores));
    if let Some((a, b)) = w.server_rss {
        s.push_str(&format!("; server VmRSS {:.1} -> {:.1} MiB", a as f64 / 1048576.0, b as f64 / 1048576.0));
    }
    s
}

/// Joins every task, aborting those still running after `grace`.
async fn join_all(mut set: tokio::task::JoinSet<anyhow::Result<()>>, grace: Duration) -> Vec<String> {
    let mut errors = Vec::new();
    let deadline = tokio::time::Instant::now() + grace;
    loop {
        match tokio::time::timeout_at(deadline, set.join_next()).await {
            Ok(None) => break,
            Ok(Some(Ok(Ok(())))) => {}
            Ok(Some(Ok(Err(e)))) => errors.push(format!("{e:#}")),
            Ok(Some(Err(e))) => {
                if !e.is_cancelled() {
                    errors.push(format!("task: {e}"));
                }
            }
            Err(_) => {
                set.abort_all();
                while set.join_next().await.is_some() {}
                break;
            }
        }
    }
    errors
}

// ---------------------------------------------------------------------------------------
// actions

/// Counters of the game side of `actions`.
#[derive(Default)]
struct GameCounts {
    created: AtomicU64,
    over: AtomicU64,
    over_in_window: AtomicU64,
    /// Streams that failed (non-OK status) or ended before the game-over event.
    stream_errors: AtomicU64,
    /// Events out of order: a seq that is not the previous one + 1, a turn of this seat
    /// without its legal actions, a turn with no legal action.
    order_errors: AtomicU64,
    /// Lobby calls refused.
    lobby_errors: AtomicU64,
}

/// The result of `actions`.
struct ActionsReport {
    games: u64,
    connections: usize,
    /// With `--accounts`: the accounts' names, slot by slot (seat 0's, seat 1's).
    account_names: Vec<String>,
    window: Window,
    actions_in_window: u64,
    actions_total: u64,
    lat: Lat,
    refused: BTreeMap<String, u64>,
    refused_total: u64,
    errors: Vec<String>,
    games_created: u64,
    games_over: u64,
    games_over_in_window: u64,
    stream_errors: u64,
    order_errors: u64,
    lobby_errors: u64,
}

impl ActionsReport {
    fn rate(&self) -> f64 {
        self.actions_in_window as f64 / self.window.secs
    }

    fn summary(&self) -> String {
        let mut s = format!(
            "actions{}: {:.0} actions/s over {:.1} s ({} games in flight, {} connections); latency {}; \
             refused {}; games over {} ({} in the window), created {}; stream errors {}, order errors {}; {}",
            if self.account_names.is_empty() { "" } else { " (signed in)" },
            self.rate(),
            self.window.secs,
            self.games,
            self.connections,
            self.lat.text(),
            self.refused_total,
            self.games_over,
            self.games_over_in_window,
            self.games_created,
            self.stream_errors,
            self.order_errors,
            cpu_text(&self.window),
        );
        for e in &self.errors {
            s.push_str("\n  error: ");
            s.push_str(e);
        }
        s
    }

    fn json(&self) -> Value {
        json!({
            "actions_per_sec": self.rate(),
            "window_secs": self.window.secs,
            "games_in_flight": self.games,
            "connections": self.connections,
            "signed_in": !self.account_names.is_empty(),
            "accounts": self.account_names,
            "server_cpu_us_per_action": self.cpu_per_action(),
            "actions_in_window": self.actions_in_window,
            "actions_total": self.actions_total,
            "latency_ms": self.lat.json(),
            "refused": self.refused_total,
            "refused_by_code": self.refused,
            "errors": self.errors,
            "games_created": self.games_created,
            "games_over": self.games_over,
            "games_over_in_window": self.games_over_in_window,
            "stream_errors": self.stream_errors,
            "order_errors": self.order_errors,
            "lobby_errors": self.lobby_errors,
            "server_cpu_cores": self.window.server_cores,
            "client_cpu_cores": self.window.client_cores,
            "server_rss_window_start": self.window.server_rss.map(|r| r.0),
            "server_rss_window_end": self.window.server_rss.map(|r| r.1),
            "server_rss_growth_per_action": self.rss_per_action(),
        })
    }

    /// The server's CPU time per action over the window, in microseconds.
    fn cpu_per_action(&self) -> Option<f64> {
        let cores = self.window.server_cores?;
        (self.actions_in_window > 0).then(|| cores * self.window.secs * 1e6 / self.actions_in_window as f64)
    }

    /// The server's RSS growth over the window per action, in bytes.
    fn rss_per_action(&self) -> Option<f64> {
        let (a, b) = self.window.server_rss?;
        (self.actions_in_window > 0).then(|| (b as f64 - a as f64) / self.actions_in_window as f64)
    }

    /// A correct run refuses nothing, loses no stream, sees every event in order and
    /// finishes at least one game.
    fn verdict(&self) -> anyhow::Result<()> {
        if self.refused_total > 0 {
            bail!("{} actions refused (see the errors above)", self.refused_total);
        }
        if self.stream_errors + self.order_errors + self.lobby_errors > 0 {
            bail!(
                "{} stream errors, {} order errors, {} lobby errors",
                self.stream_errors,
                self.order_errors,
                self.lobby_errors
            );
        }
        if self.games_over == 0 {
            bail!("no game reached GameOver");
        }
        Ok(())
    }
}

/// Everything the game slots share.
struct Play {
    meter: Arc<Meter>,
    counts: GameCounts,
    /// The games' rules (`None`: the server's default, standard).
    rules: Option<pb::Rules>,
    /// With `--accounts`: each slot's two account tokens (seat 0's, seat 1's), by slot.
    accounts: Option<Vec<(AsciiMetadataValue, AsciiMetadataValue)>>,
}

/// One action of the policy.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Choice {
    Pass,
    Take,
    DrawStock,
    DrawPile,
    Discard(String),
    /// Knock discarding this card face down; empty: big gin.
    Knock(String),
}

/// Points of a card in notation ("7S", "TD", "AH"): ace 1, faces 10.
fn card_value(card: &str) -> u32 {
    match card.as_bytes().first() {
        Some(b'A') => 1,
        Some(d @ b'2'..=b'9') => u32::from(d - b'0'),
        _ => 10,
    }
}

/// The fixed policy: big gin or the knock that leaves the least deadwood when legal; pass
/// the upcard; draw from the stock; discard the card that leaves the least deadwood (the
/// server's `best_discard`), else the highest legal card.
fn choose(turn: &pb::TurnInfo) -> Option<Choice> {
    use pb::ActionKind as K;
    let legal = &turn.legal_actions;
    let has = |k: K| legal.iter().any(|a| a.kind == k as i32);
    if has(K::BigGin) {
        return Some(Choice::Knock(String::new()));
    }
    if let Some(k) = legal.iter().filter(|a| a.kind == K::Knock as i32).min_by_key(|a| a.deadwood) {
        return Some(Choice::Knock(k.card.clone()));
    }
    if has(K::PassUpcard) {
        return Some(Choice::Pass);
    }
    if has(K::DrawStock) {
        return Some(Choice::DrawStock);
    }
    let discards = || legal.iter().filter(|a| a.kind == K::Discard as i32);
    if !turn.best_discard.is_empty() && discards().any(|a| a.card == turn.best_discard) {
        return Some(Choice::Discard(turn.best_discard.clone()));
    }
    if let Some(d) = discards().max_by_key(|a| card_value(&a.card)) {
        return Some(Choice::Discard(d.card.clone()));
    }
    if has(K::TakeUpcard) {
        return Some(Choice::Take);
    }
    if has(K::DrawPile) {
        return Some(Choice::DrawPile);
    }
    None
}

fn authed<T>(msg: T, auth: &AsciiMetadataValue) -> Request<T> {
    let mut r = Request::new(msg);
    r.metadata_mut().insert("authorization", auth.clone());
    r
}

/// Sends `choice` as its unary RPC.
async fn send(
    client: &mut GameServiceClient<Channel>,
    auth: &AsciiMetadataValue,
    game_id: &str,
    expected_seq: u64,
    choice: &Choice,
) -> Result<(), Status> {
    let game_id = game_id.to_string();
    match choice {
        Choice::Pass => {
            client.pass_upcard(authed(pb::PassUpcardRequest { game_id, expected_seq }, auth)).await.map(drop)
        }
        Choice::Take => {
            client.take_upcard(authed(pb::TakeUpcardRequest { game_id, expected_seq }, auth)).await.map(drop)
        }
        Choice::DrawStock | Choice::DrawPile => {
            let source =
                if *choice == Choice::DrawStock { pb::DrawSource::Stock } else { pb::DrawSource::Pile }
                    as i32;
            client.draw(authed(pb::DrawRequest { game_id, expected_seq, source }, auth)).await.map(drop)
        }
        Choice::Discard(card) => client
            .discard(authed(pb::DiscardRequest { game_id, expected_seq, card: card.clone() }, auth))
            .await
            .map(drop),
        Choice::Knock(card) => client
            .knock(authed(
                pb::KnockRequest { game_id, expected_seq, discard: card.clone(), melds: Vec::new() },
                auth,
            ))
            .await
            .map(drop),
    }
}

/// Why a seat stopped before the game-over event.
#[derive(Debug)]
enum End {
    /// The run is over.
    Stopped,
    /// Something failed (already counted): the game is abandoned.
    Failed,
}

/// Plays one seat of a game: watches its stream and acts on each of its turns with
/// `expected_seq` = the last seq seen. Ok once the game-over event arrived.
async fn play_seat(
    play: &Play,
    chan: Channel,
    game_id: &str,
    seat: u32,
    auth: AsciiMetadataValue,
) -> Result<(), End> {
    let meter = &play.meter;
    let counts = &play.counts;
    let mut client = GameServiceClient::new(chan);
    let req = authed(pb::WatchGameRequest { game_id: game_id.to_string(), resume_after_seq: 0 }, &auth);
    let mut stream = match client.watch_game(req).await {
        Ok(r) => r.into_inner(),
        Err(e) => {
            counts.stream_errors.fetch_add(1, Ordering::Relaxed);
            meter.stats.lock().expect("stats lock").note_error(format!("WatchGame {game_id}/{seat}: {e}"));
            return Err(End::Failed);
        }
    };
    let order_error = |what: String| {
        counts.order_errors.fetch_add(1, Ordering::Relaxed);
        meter.stats.lock().expect("stats lock").note_error(format!("game {game_id} seat {seat}: {what}"));
        End::Failed
    };
    let mut last = 0u64;
    loop {
        let msg = match stream.message().await {
            Ok(Some(m)) => m,
            Ok(None) => {
                counts.stream_errors.fetch_add(1, Ordering::Relaxed);
                let what =
                    format!("game {game_id} seat {seat}: the stream ended before GameOver (last seq {last})");
                meter.stats.lock().expect("stats lock").note_error(what);
                return Err(End::Failed);
            }
            Err(e) => {
                if meter.stopped() {
                    return Err(End::Stopped);
                }
                counts.stream_errors.fetch_add(1, Ordering::Relaxed);
                meter.stats.lock().expect("stats lock").note_error(format!("stream {game_id}/{seat}: {e}"));
                return Err(End::Failed);
            }
        };
        use pb::game_event::Kind as E;
        use pb::watch_game_response::Kind as W;
        let turn = match msg.kind {
            Some(W::Snapshot(s)) => {
                last = s.seq;
                if s.phase == pb::Phase::GameOver as i32 {
                    return Ok(());
                }
                if s.seat_to_act == Some(seat) {
                    match s.turn {
                        Some(t) => Some(t),
                        None => {
                            return Err(order_error("snapshot: this seat to act, without turn info".into()));
                        }
                    }
                } else {
                    None
                }
            }
            Some(W::Event(e)) => {
                if e.seq != last + 1 {
                    return Err(order_error(format!("event seq {} after {last}", e.seq)));
                }
                last = e.seq;
                match e.kind {
                    Some(E::GameOver(_)) => return Ok(()),
                    Some(E::TurnStarted(t)) if t.seat == seat => match t.turn {
                        Some(t) => Some(t),
                        None => {
                            return Err(order_error(format!("TurnStarted at seq {last} without turn info")));
                        }
                    },
                    _ => None,
                }
            }
            Some(W::Heartbeat(_)) | None => None,
        };
        let Some(turn) = turn else { continue };
        if meter.stopped() {
            return Err(End::Stopped);
        }
        let Some(choice) = choose(&turn) else {
            return Err(order_error(format!("no legal action at seq {last}: {turn:?}")));
        };
        let t0 = Instant::now();
        let r = send(&mut client, &auth, game_id, last, &choice).await;
        let dt = t0.elapsed();
        match r {
            Ok(()) => meter.record(dt, Ok(()), ""),
            Err(e) => {
                meter.record(dt, Err(&e), &format!("game {game_id} seat {seat} seq {last} {choice:?}"));
                return Err(End::Failed);
            }
        }
    }
}

fn bearer(token: &str) -> anyhow::Result<AsciiMetadataValue> {
    format!("Bearer {token}").parse().map_err(|e| anyhow!("seat token is not ASCII: {e}"))
}

/// `msg` for seat `seat` (0 or 1): with its account token when signed in.
fn as_seat<T>(signed: &Option<(AsciiMetadataValue, AsciiMetadataValue)>, msg: T, seat: usize) -> Request<T> {
    match signed {
        Some(t) => authed(msg, if seat == 0 { &t.0 } else { &t.1 }),
        None => Request::new(msg),
    }
}

/// One slot: plays games one after another until the run stops.
async fn slot(play: Arc<Play>, chan: Channel, slot: u64, seed_base: u64) -> anyhow::Result<()> {
    let mut lobby = LobbyServiceClient::new(chan.clone());
    // Signed in: the lobby calls carry the seat's account token (the seat is the account's).
    let signed = play.accounts.as_ref().map(|a| a[slot as usize].clone());
    for j in 0u64.. {
        if play.meter.stopped() {
            return Ok(());
        }
        let seed = seed_base.wrapping_add(slot << 32).wrapping_add(j).max(1);
        let created = lobby
            .create_game(as_seat(
                &signed,
                pb::CreateGameRequest {
                    join: true,
                    name: format!("load{slot}a"),
                    seed,
                    rules: play.rules.clone(),
                    ..Default::default()
                },
                0,
            ))
            .await;
        let created = match created {
            Ok(r) => r.into_inner(),
            Err(e) => {
                play.counts.lobby_errors.fetch_add(1, Ordering::Relaxed);
                bail!("CreateGame: {:?}: {}", e.code(), e.message());
            }
        };
        if created.seat != Some(0) {
            bail!("CreateGame with join: seat {:?}, expected 0", created.seat);
        }
        let joined = lobby
            .join_game(as_seat(
                &signed,
                pb::JoinGameRequest {
                    game_id: created.game_id.clone(),
                    name: format!("load{slot}b"),
                    seat: Some(1),
                    // Its own seeded game (reproducible runs): it accepts its own deals.
                    accept_fixed_deals: true,
                },
                1,
            ))
            .await;
        let joined = match joined {
            Ok(r) => r.into_inner(),
            Err(e) => {
                play.counts.lobby_errors.fetch_add(1, Ordering::Relaxed);
                bail!("JoinGame: {:?}: {}", e.code(), e.message());
            }
        };
        play.counts.created.fetch_add(1, Ordering::Relaxed);
        let id = created.game_id.as_str();
        let (a0, a1) = match &signed {
            Some(t) => t.clone(),
            None => (bearer(&created.seat_token)?, bearer(&joined.seat_token)?),
        };
        let r = tokio::try_join!(
            play_seat(&play, chan.clone(), id, 0, a0),
            play_seat(&play, chan.clone(), id, 1, a1)
        );
        match r {
            Ok(_) => {
                play.counts.over.fetch_add(1, Ordering::Relaxed);
                if play.meter.measuring() {
                    play.counts.over_in_window.fetch_add(1, Ordering::Relaxed);
                }
            }
            Err(End::Stopped) => return Ok(()),
            Err(End::Failed) => {}
        }
    }
    Ok(())
}

/// Registers two bot accounts for each of `games` slots (no password): their names (the
/// run's own prefix: a server keeps every name it gave) and account tokens, by slot.
async fn register_accounts(
    server: &str,
    games: u64,
) -> anyhow::Result<(Vec<String>, Vec<(AsciiMetadataValue, AsciiMetadataValue)>)> {
    let chan = connect(server, 1).await?.remove(0);
    let mut client = AccountServiceClient::new(chan);
    let run = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let prefix = format!("ld{:x}{:x}", run.as_millis() % (1 << 40), std::process::id() % 4096);
    let (mut names, mut tokens) = (Vec::new(), Vec::new());
    for slot in 0..games {
        let mut pair = Vec::with_capacity(2);
        for seat in ["a", "b"] {
            let name = format!("{prefix}-{slot}{seat}");
            let r = client
                .register(pb::RegisterRequest {
                    name: name.clone(),
                    kind: pb::AccountKind::Bot as i32,
                    token_label: "gin-load".into(),
                    ..Default::default()
                })
                .await
                .map_err(|e| {
                    anyhow!(
                        "AccountService.Register {name}: {:?}: {} (start the server with \
                         --registrations-per-hour 0)",
                        e.code(),
                        e.message()
                    )
                })?
                .into_inner();
            pair.push(bearer(&r.token)?);
            names.push(name);
        }
        let b = pair.pop().expect("two");
        tokens.push((pair.pop().expect("two"), b));
    }
    Ok((names, tokens))
}

async fn actions(a: &ActionsArgs, shards: usize) -> anyhow::Result<ActionsReport> {
    let (connections, games, seed) = (a.connections.max(1), a.parallel, a.seed);
    let shards = shards.min(connections).min(games.max(1) as usize);
    // Connect first (on this thread): a wrong URL fails here, before any shard starts.
    drop(connect(&a.server, 1).await?);
    let rules = (a.target > 0).then(|| {
        let r = engine::RuleSet { name: "short".into(), target: a.target, ..engine::RuleSet::standard() };
        pb::Rules { kind: Some(pb::rules::Kind::Custom(gin_proto::rules::to_pb(&r))) }
    });
    // Before the warm-up and the window: the registrations are not measured.
    let (account_names, accounts) = match a.accounts {
        true => {
            let (names, tokens) = register_accounts(&a.server, games).await?;
            (names, Some(tokens))
        }
        false => (Vec::new(), None),
    };
    let play =
        Arc::new(Play { meter: Arc::new(Meter::new()), counts: GameCounts::default(), rules, accounts });
    let clients = on_shards(shards, &a.server, connections, play.meter.clone(), {
        let play = play.clone();
        move |shard, chans, set| {
            for (k, i) in share(games, shard, shards).enumerate() {
                set.spawn(slot(play.clone(), chans[k % chans.len()].clone(), i, seed));
            }
        }
    });
    let (task_errors, window) =
        tokio::join!(clients, run_window(&play.meter, a.warmup, a.seconds, a.server_pid));
    let s = play.meter.stats.lock().expect("stats lock");
    let c = &play.counts;
    let mut errors = s.errors.clone();
    errors.extend(task_errors);
    Ok(ActionsReport {
        games: a.parallel,
        connections: a.connections.max(1),
        account_names,
        window,
        actions_in_window: s.window_ok,
        actions_total: s.total_ok,
        lat: Lat::of(&s.hist),
        refused: s.refused.clone(),
        refused_total: s.refused_total(),
        errors,
        games_created: c.created.load(Ordering::Relaxed),
        games_over: c.over.load(Ordering::Relaxed),
        games_over_in_window: c.over_in_window.load(Ordering::Relaxed),
        stream_errors: c.stream_errors.load(Ordering::Relaxed),
        order_errors: c.order_errors.load(Ordering::Relaxed),
        lobby_errors: c.lobby_errors.load(Ordering::Relaxed),
    })
}

// ---------------------------------------------------------------------------------------
// echo

/// The echo service: bare, or durable (each payload made durable before the answer).
struct Echo {
    durable: Option<std::sync::mpsc::Sender<(Vec<u8>, tokio::sync::oneshot::Sender<()>)>>,
}

#[tonic::async_trait]
impl EchoService for Echo {
    async fn echo(&self, req: Request<bpb::EchoRequest>) -> Result<Response<bpb::EchoResponse>, Status> {
        let payload = req.into_inner().payload;
        if let Some(queue) = &self.durable {
            let (done, flushed) = tokio::sync::oneshot::channel();
            queue.send((payload.clone(), done)).map_err(|_| Status::unavailable("the writer stopped"))?;
            flushed.await.map_err(|_| Status::internal("the write failed"))?;
        }
        Ok(Response::new(bpb::EchoResponse { payload }))
    }
}

/// The durable echo's writer thread: waits for a call, takes everything queued behind it,
/// appends it all (each payload with its length) in one write, `fdatasync`, answers each.
/// As gin-server's store writer does, minus the database: the floor of a durable call.
fn durable_writer(
    mut file: std::fs::File,
    inbox: std::sync::mpsc::Receiver<(Vec<u8>, tokio::sync::oneshot::Sender<()>)>,
) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut buf = Vec::with_capacity(1 << 20);
    let mut waiting = Vec::new();
    while let Ok(first) = inbox.recv() {
        let mut next = Some(first);
        while let Some((payload, done)) = next.take() {
            buf.extend_from_slice(&(payload.len() as u32).to_le_bytes());
            buf.extend_from_slice(&payload);
            waiting.push(done);
            next = inbox.try_recv().ok();
        }
        file.write_all(&buf)?;
        file.sync_data()?;
        buf.clear();
        for done in waiting.drain(..) {
            let _ = done.send(());
        }
    }
    Ok(())
}

async fn echo_server(a: &EchoServerArgs) -> anyhow::Result<()> {
    let listener =
        tokio::net::TcpListener::bind(a.addr).await.with_context(|| format!("binding {}", a.addr))?;
    let incoming = tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(!a.no_nodelay));
    let durable = match &a.durable {
        Some(path) => {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .with_context(|| format!("opening {}", path.display()))?;
            let (queue, inbox) = std::sync::mpsc::channel();
            std::thread::Builder::new().name("durable-echo".into()).spawn(move || {
                if let Err(e) = durable_writer(file, inbox) {
                    gin_cli_meta::print_error("gin-load", &e.context("durable echo"));
                    std::process::exit(1);
                }
            })?;
            Some(queue)
        }
        None => None,
    };
    eprintln!(
        "gin-load echo-server listening on {} (TCP_NODELAY {}{})",
        a.addr,
        !a.no_nodelay,
        a.durable.as_ref().map_or(String::new(), |p| format!(", durable to {}", p.display()))
    );
    tonic::transport::Server::builder()
        .add_service(EchoServiceServer::new(Echo { durable }))
        .serve_with_incoming_shutdown(incoming, async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}

/// The result of `echo`.
struct EchoReport {
    connections: usize,
    in_flight: usize,
    window: Window,
    calls_in_window: u64,
    lat: Lat,
    refused_total: u64,
    errors: Vec<String>,
}

impl EchoReport {
    fn rate(&self) -> f64 {
        self.calls_in_window as f64 / self.window.secs
    }

    fn summary(&self) -> String {
        let mut s = format!(
            "echo: {:.0} calls/s over {:.1} s ({} in flight, {} connections); latency {}; refused {}; {}",
            self.rate(),
            self.window.secs,
            self.in_flight,
            self.connections,
            self.lat.text(),
            self.refused_total,
            cpu_text(&self.window),
        );
        for e in &self.errors {
            s.push_str("\n  error: ");
            s.push_str(e);
        }
        s
    }

    fn json(&self) -> Value {
        json!({
            "calls_per_sec": self.rate(),
            "window_secs": self.window.secs,
            "connections": self.connections,
            "in_flight": self.in_flight,
            "calls_in_window": self.calls_in_window,
            "latency_ms": self.lat.json(),
            "refused": self.refused_total,
            "errors": self.errors,
            "server_cpu_cores": self.window.server_cores,
            "client_cpu_cores": self.window.client_cores,
        })
    }

    fn verdict(&self) -> anyhow::Result<()> {
        if self.refused_total > 0 {
            bail!("{} echo calls failed", self.refused_total);
        }
        Ok(())
    }
}

async fn echo(a: &EchoArgs, shards: usize) -> anyhow::Result<EchoReport> {
    let (connections, in_flight, size) = (a.connections.max(1), a.in_flight.max(1), a.payload);
    let shards = shards.min(connections).min(in_flight);
    drop(connect(&a.server, 1).await?);
    let meter = Arc::new(Meter::new());
    let clients = on_shards(shards, &a.server, connections, meter.clone(), {
        let meter = meter.clone();
        move |shard, chans, set| {
            let payload = vec![0x5a_u8; size];
            for (k, _) in share(in_flight as u64, shard, shards).enumerate() {
                let mut client = EchoServiceClient::new(chans[k % chans.len()].clone());
                let meter = meter.clone();
                let payload = payload.clone();
                set.spawn(async move {
                    while !meter.stopped() {
                        let t0 = Instant::now();
                        let r = client.echo(bpb::EchoRequest { payload: payload.clone() }).await;
                        let dt = t0.elapsed();
                        match r {
                            Ok(_) => meter.record(dt, Ok(()), ""),
                            Err(e) => {
                                meter.record(dt, Err(&e), "Echo");
                                tokio::time::sleep(Duration::from_millis(10)).await;
                            }
                        }
                    }
                    Ok(())
                });
            }
        }
    });
    let (task_errors, window) = tokio::join!(clients, run_window(&meter, a.warmup, a.seconds, a.server_pid));
    let s = meter.stats.lock().expect("stats lock");
    let mut errors = s.errors.clone();
    errors.extend(task_errors);
    Ok(EchoReport {
        connections: a.connections.max(1),
        in_flight: a.in_flight.max(1),
        window,
        calls_in_window: s.window_ok,
        lat: Lat::of(&s.hist),
        refused_total: s.refused_total(),
        errors,
    })
}

// ---------------------------------------------------------------------------------------
// idle-memory

/// The result of `idle-memory`.
struct IdleReport {
    games: u64,
    rss_start: u64,
    /// After `games` waiting games (one seat taken).
    rss_waiting: u64,
    /// After `games` more dealt games (both seats taken, first hand dealt).
    rss_dealt: u64,
    /// After `games` more dealt games, each seat with an open WatchGame stream (`--watch`).
    rss_watched: Option<u64>,
}

impl IdleReport {
    fn waiting_per_game(&self) -> f64 {
        self.rss_waiting.saturating_sub(self.rss_start) as f64 / self.games as f64
    }

    fn dealt_per_game(&self) -> f64 {
        self.rss_dealt.saturating_sub(self.rss_waiting) as f64 / self.games as f64
    }

    /// The average over every game open once the dealt ones are created (`games` waiting and
    /// `games` dealt): the robust figure, where the marginal ones can be skewed by the
    /// allocator reusing memory it got during the previous step.
    fn idle_per_game(&self) -> f64 {
        self.rss_dealt.saturating_sub(self.rss_start) as f64 / (2 * self.games) as f64
    }

    fn watched_per_game(&self) -> Option<f64> {
        self.rss_watched.map(|w| w.saturating_sub(self.rss_dealt) as f64 / self.games as f64)
    }

    fn summary(&self) -> String {
        let mut s = format!(
            "idle-memory: {:.0} bytes per idle game ({} open), {:.0} bytes per dealt idle game (both \
             seats, first hand dealt), {:.0} bytes per waiting game (one seat); server VmRSS {:.1} MiB \
             -> {:.1} MiB ({} waiting) -> {:.1} MiB (+{} dealt)",
            self.idle_per_game(),
            2 * self.games,
            self.dealt_per_game(),
            self.waiting_per_game(),
            self.rss_start as f64 / 1048576.0,
            self.rss_waiting as f64 / 1048576.0,
            self.games,
            self.rss_dealt as f64 / 1048576.0,
            self.games,
        );
        if let (Some(w), Some(per)) = (self.rss_watched, self.watched_per_game()) {
            s.push_str(&format!(
                " -> {:.1} MiB (+{} dealt and watched by both seats: {per:.0} bytes per game)",
                w as f64 / 1048576.0,
                self.games
            ));
        }
        s
    }

    fn json(&self) -> Value {
        json!({
            "games": self.games,
            "bytes_per_dealt_game": self.dealt_per_game(),
            "bytes_per_idle_game": self.idle_per_game(),
            "bytes_per_waiting_game": self.waiting_per_game(),
            "rss_start": self.rss_start,
            "rss_after_waiting": self.rss_waiting,
            "rss_after_dealt": self.rss_dealt,
            "bytes_per_watched_game": self.watched_per_game(),
            "rss_after_watched": self.rss_watched,
        })
    }
}

/// An open event stream.
type Watch = tonic::Streaming<pb::WatchGameResponse>;

/// How far `create_idle` goes with each game.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Idle {
    /// One seat taken.
    Waiting,
    /// Both seats taken: the first hand is dealt.
    Dealt,
    /// Dealt, and each seat watches the game (the streams are returned, kept open).
    Watched,
}

/// Creates `n` games, `in_flight` lobby calls at a time.
async fn create_idle(
    chans: &[Channel],
    n: u64,
    in_flight: u64,
    seed: u64,
    how: Idle,
) -> anyhow::Result<Vec<Watch>> {
    let next = Arc::new(AtomicU64::new(0));
    let mut set = tokio::task::JoinSet::new();
    for w in 0..in_flight.clamp(1, n.max(1)) {
        let mut lobby = LobbyServiceClient::new(chans[w as usize % chans.len()].clone());
        let mut games = GameServiceClient::new(chans[w as usize % chans.len()].clone());
        let next = next.clone();
        set.spawn(async move {
            let mut streams = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    return anyhow::Ok(streams);
                }
                let req = pb::CreateGameRequest {
                    join: true,
                    name: "idle-a".into(),
                    seed: seed.wrapping_add(i).max(1),
                    ..Default::default()
                };
                let c = lobby.create_game(req).await.context("CreateGame")?.into_inner();
                if how == Idle::Waiting {
                    continue;
                }
                let req = pb::JoinGameRequest {
                    game_id: c.game_id.clone(),
                    name: "idle-b".into(),
                    seat: Some(1),
                    accept_fixed_deals: true,
                };
                let j = lobby.join_game(req).await.context("JoinGame")?.into_inner();
                if how == Idle::Watched {
                    for token in [&c.seat_token, &j.seat_token] {
                        let req = pb::WatchGameRequest { game_id: c.game_id.clone(), resume_after_seq: 0 };
                        let r = games.watch_game(authed(req, &bearer(token)?)).await.context("WatchGame")?;
                        streams.push(r.into_inner());
                    }
                }
            }
        });
    }
    let mut streams = Vec::new();
    while let Some(r) = set.join_next().await {
        streams.extend(r??);
    }
    Ok(streams)
}

async fn idle_memory(a: &IdleArgs) -> anyhow::Result<IdleReport> {
    let chans = connect(&a.server, a.connections).await?;
    let n = a.games.max(1);
    // Let the server settle (a fresh one may still be starting).
    tokio::time::sleep(Duration::from_secs(1)).await;
    let rss_start = rss_bytes(a.server_pid)?;
    create_idle(&chans, n, a.in_flight, a.seed, Idle::Waiting).await?;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let rss_waiting = rss_bytes(a.server_pid)?;
    create_idle(&chans, n, a.in_flight, a.seed.wrapping_add(n), Idle::Dealt).await?;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let rss_dealt = rss_bytes(a.server_pid)?;
    let mut rss_watched = None;
    if a.watch {
        let streams = create_idle(&chans, n, a.in_flight, a.seed.wrapping_add(2 * n), Idle::Watched).await?;
        tokio::time::sleep(Duration::from_secs(1)).await;
        rss_watched = Some(rss_bytes(a.server_pid)?);
        drop(streams);
    }
    Ok(IdleReport { games: n, rss_start, rss_waiting, rss_dealt, rss_watched })
}

// ---------------------------------------------------------------------------------------
// all

/// A child process, killed (and reaped) when dropped.
struct ChildGuard {
    name: &'static str,
    child: Child,
    log: PathBuf,
}

impl ChildGuard {
    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Fails when the child has exited, with the end of its log.
    fn check_alive(&mut self) -> anyhow::Result<()> {
        if let Some(status) = self.child.try_wait()? {
            bail!("{} exited ({status}); the end of its log:\n{}", self.name, log_tail(&self.log));
        }
        Ok(())
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn log_tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}

/// A temporary directory, removed when dropped unless kept.
struct TempDir {
    path: PathBuf,
    keep: bool,
}

impl TempDir {
    fn new(keep: bool) -> anyhow::Result<TempDir> {
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let path = std::env::temp_dir().join(format!("gin-load-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&path).with_context(|| format!("creating {}", path.display()))?;
        Ok(TempDir { path, keep })
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if self.keep {
            eprintln!("kept {}", self.path.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// A port free now on 127.0.0.1.
fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Starts `cmd` with its output into `log`.
fn spawn(name: &'static str, mut cmd: Command, log: PathBuf) -> anyhow::Result<ChildGuard> {
    let out = std::fs::File::create(&log).with_context(|| format!("creating {}", log.display()))?;
    cmd.stdin(Stdio::null()).stdout(out.try_clone()?).stderr(out);
    let child = cmd.spawn().with_context(|| format!("starting {name}: {cmd:?}"))?;
    Ok(ChildGuard { name, child, log })
}

/// Waits (at most 20 s) until `probe` succeeds against the child.
async fn wait_ready<F, Fut>(child: &mut ChildGuard, url: &str, probe: F) -> anyhow::Result<()>
where
    F: Fn(Channel) -> Fut,
    Fut: std::future::Future<Output = Result<(), Status>>,
{
    let t0 = Instant::now();
    loop {
        child.check_alive()?;
        if let Ok(ch) = connect(url, 1).await
            && probe(ch[0].clone()).await.is_ok()
        {
            return Ok(());
        }
        if t0.elapsed() > Duration::from_secs(20) {
            bail!(
                "{} did not answer at {url} within 20 s; the end of its log:\n{}",
                child.name,
                log_tail(&child.log)
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Starts a gin-server with a fresh database in `dir`.
/// Runs `gin-load <command> <args> --json` as a child process (each measurement in a fresh
/// process: a client that has just run one benchmark measured the next one some 30% lower)
/// and returns its JSON report. Its summary line goes to stderr as it ends; a failed check
/// (refused calls, lost streams) fails the whole run.
fn measure(exe: &Path, command: &str, args: &[String]) -> anyhow::Result<Value> {
    // Dirty pages left by a build just before (hundreds of MB) are written back during the run
    // otherwise, and every fdatasync waits behind them: flush them first (best effort).
    let _ = Command::new("sync").status();
    let out = Command::new(exe)
        .arg(command)
        .args(args)
        .arg("--json")
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("running gin-load {command}"))?;
    if !out.status.success() {
        bail!("gin-load {command} failed ({}): see its output above", out.status);
    }
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.trim()).with_context(|| format!("gin-load {command}: its JSON report: {text}"))
}

/// Starts a gin-server on a fresh store: a SQLite file in `dir`, or a new database of `pg`.
async fn start_gin_server(
    bin: &Path,
    dir: &Path,
    tag: &str,
    pg: Option<&LocalPostgres>,
) -> anyhow::Result<(ChildGuard, String)> {
    let port = free_port()?;
    let db = match pg {
        Some(pg) => PathBuf::from(pg.create_database(tag).map_err(|e| anyhow!(e))?),
        None => dir.join(format!("{tag}.db")),
    };
    let mut cmd = Command::new(bin);
    cmd.arg("--addr").arg(format!("127.0.0.1:{port}")).arg("--db").arg(db).args([
        "--rate-per-sec",
        "0",
        "--max-open-games-per-caller",
        "100000",
        // `actions --accounts` registers two accounts per game slot from one address.
        "--registrations-per-hour",
        "0",
    ]);
    let mut child = spawn("gin-server", cmd, dir.join(format!("gin-server-{tag}.log")))?;
    let url = format!("http://127.0.0.1:{port}");
    wait_ready(&mut child, &url, |ch| async move {
        LobbyServiceClient::new(ch).list_games(pb::ListGamesRequest { page_size: 1 }).await.map(drop)
    })
    .await?;
    Ok((child, url))
}

async fn all(a: &AllArgs) -> anyhow::Result<()> {
    let exe = std::env::current_exe().context("locating this executable")?;
    let gin_server = a.server_exe.clone().unwrap_or_else(|| exe.with_file_name("gin-server"));
    if !gin_server.is_file() {
        bail!("no gin-server at {} (build it: cargo build --release -p gin-server)", gin_server.display());
    }
    let tmp = TempDir::new(a.keep_temp)?;
    eprintln!("gin-load all: temporary directory {}", tmp.path.display());

    let pg = if a.postgres {
        let pg = LocalPostgres::start().map_err(|e| anyhow!("starting PostgreSQL: {e}"))?;
        eprintln!("gin-load all: the servers keep their games in PostgreSQL (port {})", pg.port());
        Some(pg)
    } else {
        None
    };
    let mut runs = Vec::new();
    for run in 1..=a.runs {
        if a.runs > 1 {
            eprintln!("run {run} of {}", a.runs);
        }
        runs.push(all_once(a, &exe, &gin_server, &tmp.path, run, pg.as_ref()).await?);
    }

    // The table: each figure's median over the runs (and its range, with several).
    let figures: Vec<Figure> = FIGURES.iter().map(|f| Figure::of(f, &runs)).collect();
    let median = |name: &str| figures.iter().find(|f| f.spec.name == name).and_then(|f| f.median);
    let ratio = median(RATIO).context("no ratio")?;
    let p99 = median(P99).context("actions: no p99")?;
    let idle = median(IDLE).context("idle-memory: no bytes_per_idle_game")?;
    let refused: f64 = runs.iter().map(|r| num(&r.actions, &["refused"]).unwrap_or(0.0)).sum();
    let ok = |b: bool| if b { "yes" } else { "NO" };
    println!();
    let head = if a.runs > 1 { format!("median of {}", a.runs) } else { "value".to_string() };
    println!(
        "{:<32} {:>13}  {:<22} {:<12} met",
        "metric",
        head,
        if a.runs > 1 { "range" } else { "" },
        "target"
    );
    for f in &figures {
        let (target, met) = match f.spec.name {
            RATIO => (format!(">= {TARGET_RATIO}"), ok(ratio >= TARGET_RATIO)),
            DURABLE_RATIO => {
                let r = f.median.unwrap_or(0.0);
                (format!(">= {TARGET_DURABLE_RATIO}"), ok(r >= TARGET_DURABLE_RATIO))
            }
            P99 => (format!("<= {TARGET_P99_MS} ms"), ok(p99 <= TARGET_P99_MS)),
            IDLE => (format!("<= {} KiB", TARGET_IDLE_BYTES / 1024.0), ok(idle <= TARGET_IDLE_BYTES)),
            _ => (String::new(), ""),
        };
        let show = |x: Option<f64>| x.map_or("?".to_string(), f.spec.show);
        let range = match (a.runs > 1, f.min, f.max) {
            (true, Some(lo), Some(hi)) => format!("{} – {}", show(Some(lo)), show(Some(hi))),
            _ => String::new(),
        };
        println!("{:<32} {:>13}  {:<22} {:<12} {met}", f.spec.name, show(f.median), range, target);
    }
    println!(
        "{:<32} {:>13}  {:<22} {:<12} {}",
        "refused actions (all runs)",
        format!("{refused:.0}"),
        "",
        "0",
        ok(refused == 0.0)
    );
    if a.json {
        let medians: serde_json::Map<String, Value> =
            figures.iter().map(|f| (f.spec.key.to_string(), json!(f.median))).collect();
        let last = runs.last().expect("at least one run");
        let j = json!({
            "echo": last.echo,
            "durable_echo": last.durable_echo,
            "actions": last.actions,
            "idle_memory": last.idle,
            "ratio_actions_echo": ratio,
            "medians": medians,
            "runs": runs.iter().map(|r| json!({
                "echo": r.echo,
                "durable_echo": r.durable_echo,
                "actions": r.actions,
                "idle_memory": r.idle,
                "ratio_actions_echo": r.ratio(),
                "ratio_actions_durable_echo": r.durable_ratio(),
            })).collect::<Vec<_>>(),
            "targets": {
                "ratio_actions_echo": { "target": TARGET_RATIO, "met": ratio >= TARGET_RATIO },
                "p99_action_latency_ms": { "target": TARGET_P99_MS, "met": p99 <= TARGET_P99_MS },
                "bytes_per_idle_game": { "target": TARGET_IDLE_BYTES, "met": idle <= TARGET_IDLE_BYTES },
            },
        });
        println!("{j}");
    }
    if a.check && (ratio < TARGET_RATIO || p99 > TARGET_P99_MS || idle > TARGET_IDLE_BYTES) {
        bail!("a target was missed (see the table)");
    }
    Ok(())
}

/// `signed-in`: anonymous and signed-in `actions` windows, alternating on one server (in
/// the order A S S A A S …, so that a drift of the machine's load falls on both alike).
async fn signed_in(a: &SignedInArgs) -> anyhow::Result<()> {
    let exe = std::env::current_exe().context("locating this executable")?;
    let gin_server = a.server_exe.clone().unwrap_or_else(|| exe.with_file_name("gin-server"));
    if !gin_server.is_file() {
        bail!("no gin-server at {} (build it: cargo build --release -p gin-server)", gin_server.display());
    }
    let tmp = TempDir::new(false)?;
    let (mut server, url) = start_gin_server(&gin_server, &tmp.path, "signed-in", None).await?;
    let mut windows: Vec<(bool, Value)> = Vec::new();
    for pair in 0..a.pairs {
        let order = if pair % 2 == 0 { [false, true] } else { [true, false] };
        for signed in order {
            eprintln!(
                "window {} of {}: {} players ({} s)...",
                windows.len() + 1,
                2 * a.pairs,
                if signed { "signed-in" } else { "anonymous" },
                a.seconds
            );
            let mut args = vec![
                format!("--server={url}"),
                format!("--server-pid={}", server.pid()),
                format!("--parallel={}", a.parallel),
                format!("--target={}", a.target),
                format!("--connections={}", a.connections),
                format!("--seconds={}", a.seconds),
                format!("--warmup={}", a.warmup),
                format!("--seed={}", 1 + pair as u64),
            ];
            if signed {
                args.push("--accounts".into());
            }
            let mut report = measure(&exe, "actions", &args)?;
            // The accounts' names are the window's own business: not repeated here.
            if let Some(o) = report.as_object_mut() {
                o.remove("accounts");
            }
            windows.push((signed, report));
            server.check_alive()?;
        }
    }
    drop(server);
    let of = |signed: bool, key: &str| {
        let mut v: Vec<f64> =
            windows.iter().filter(|w| w.0 == signed).filter_map(|w| num(&w.1, &[key])).collect();
        v.sort_by(f64::total_cmp);
        median(&v)
    };
    let show = |x: Option<f64>, d: usize| x.map_or("?".to_string(), |x| format!("{x:.d$}"));
    println!();
    println!(
        "{:<8} {:<10} {:>10} {:>16} {:>12}",
        "window", "players", "actions/s", "server CPU/action", "p99 (ms)"
    );
    for (i, (signed, w)) in windows.iter().enumerate() {
        println!(
            "{:<8} {:<10} {:>10} {:>14} µs {:>12}",
            i + 1,
            if *signed { "signed-in" } else { "anonymous" },
            show(num(w, &["actions_per_sec"]), 0),
            show(num(w, &["server_cpu_us_per_action"]), 1),
            show(num(w, &["latency_ms", "p99"]), 2),
        );
    }
    let (rate_a, rate_s) = (of(false, "actions_per_sec"), of(true, "actions_per_sec"));
    let (cpu_a, cpu_s) = (of(false, "server_cpu_us_per_action"), of(true, "server_cpu_us_per_action"));
    let rate_ratio = rate_s.zip(rate_a).map(|(s, a)| s / a);
    let cpu_ratio = cpu_s.zip(cpu_a).map(|(s, a)| s / a);
    println!(
        "medians: anonymous {} actions/s, {} µs server CPU per action; signed-in {} actions/s, {} µs",
        show(rate_a, 0),
        show(cpu_a, 1),
        show(rate_s, 0),
        show(cpu_s, 1)
    );
    println!(
        "ratio signed-in/anonymous: actions/s {}, server CPU per action {} (target: actions/s >= 0.95)",
        show(rate_ratio, 3),
        show(cpu_ratio, 3)
    );
    if a.json {
        let j = json!({
            "windows": windows.iter().map(|(s, w)| json!({ "signed_in": s, "actions": w })).collect::<Vec<_>>(),
            "anonymous": { "actions_per_sec": rate_a, "server_cpu_us_per_action": cpu_a },
            "signed_in": { "actions_per_sec": rate_s, "server_cpu_us_per_action": cpu_s },
            "ratio_actions_per_sec": rate_ratio,
            "ratio_server_cpu_per_action": cpu_ratio,
        });
        println!("{j}");
    }
    Ok(())
}

/// The reports of one run of `all`.
struct AllRun {
    echo: Value,
    /// The durable echo (`echo-server --durable`).
    durable_echo: Value,
    actions: Value,
    idle: Value,
}

impl AllRun {
    fn ratio(&self) -> Option<f64> {
        Some(num(&self.actions, &["actions_per_sec"])? / num(&self.echo, &["calls_per_sec"])?)
    }

    fn durable_ratio(&self) -> Option<f64> {
        Some(num(&self.actions, &["actions_per_sec"])? / num(&self.durable_echo, &["calls_per_sec"])?)
    }
}

/// A number in a JSON report.
fn num(v: &Value, path: &[&str]) -> Option<f64> {
    path.iter().fold(v, |v, k| &v[*k]).as_f64()
}

/// One line of `all`'s table.
struct FigureSpec {
    name: &'static str,
    /// Its key in the JSON `medians`.
    key: &'static str,
    get: fn(&AllRun) -> Option<f64>,
    show: fn(f64) -> String,
}

const RATIO: &str = "ratio actions/echo";
const DURABLE_RATIO: &str = "ratio actions/durable echo";
/// Actions per second against the durable echo's calls per second (issue 19).
const TARGET_DURABLE_RATIO: f64 = 0.8;
const P99: &str = "p99 action latency";
const IDLE: &str = "bytes per idle game (all open)";

fn kib(b: f64) -> String {
    format!("{:.1} KiB", b / 1024.0)
}

const FIGURES: &[FigureSpec] = &[
    FigureSpec {
        name: "echo calls/s",
        key: "echo_calls_per_sec",
        get: |r| num(&r.echo, &["calls_per_sec"]),
        show: |x| format!("{x:.0}"),
    },
    FigureSpec {
        name: "game actions/s",
        key: "actions_per_sec",
        get: |r| num(&r.actions, &["actions_per_sec"]),
        show: |x| format!("{x:.0}"),
    },
    FigureSpec {
        name: "durable echo calls/s",
        key: "durable_echo_calls_per_sec",
        get: |r| num(&r.durable_echo, &["calls_per_sec"]),
        show: |x| format!("{x:.0}"),
    },
    FigureSpec { name: RATIO, key: "ratio_actions_echo", get: AllRun::ratio, show: |x| format!("{x:.2}") },
    FigureSpec {
        name: DURABLE_RATIO,
        key: "ratio_actions_durable_echo",
        get: AllRun::durable_ratio,
        show: |x| format!("{x:.2}"),
    },
    FigureSpec {
        name: P99,
        key: "p99_action_latency_ms",
        get: |r| num(&r.actions, &["latency_ms", "p99"]),
        show: |x| format!("{x:.2} ms"),
    },
    FigureSpec {
        name: "p50 action latency",
        key: "p50_action_latency_ms",
        get: |r| num(&r.actions, &["latency_ms", "p50"]),
        show: |x| format!("{x:.2} ms"),
    },
    FigureSpec {
        name: IDLE,
        key: "bytes_per_idle_game",
        get: |r| num(&r.idle, &["bytes_per_idle_game"]),
        show: kib,
    },
    FigureSpec {
        name: "bytes per dealt game (marginal)",
        key: "bytes_per_dealt_game",
        get: |r| num(&r.idle, &["bytes_per_dealt_game"]),
        show: kib,
    },
    FigureSpec {
        name: "bytes per waiting game",
        key: "bytes_per_waiting_game",
        get: |r| num(&r.idle, &["bytes_per_waiting_game"]),
        show: kib,
    },
    FigureSpec {
        name: "bytes per watched idle game",
        key: "bytes_per_watched_game",
        get: |r| num(&r.idle, &["bytes_per_watched_game"]),
        show: kib,
    },
    FigureSpec {
        name: "server RSS growth per action",
        key: "server_rss_growth_per_action",
        get: |r| num(&r.actions, &["server_rss_growth_per_action"]),
        show: |b| format!("{b:.0} B"),
    },
    FigureSpec {
        name: "server CPU during actions",
        key: "server_cpu_cores_actions",
        get: |r| num(&r.actions, &["server_cpu_cores"]),
        show: |c| format!("{:.0}%", c * 100.0),
    },
];

/// A figure over the runs: median (the mean of the middle two for an even count), range.
struct Figure {
    spec: &'static FigureSpec,
    median: Option<f64>,
    min: Option<f64>,
    max: Option<f64>,
}

impl Figure {
    fn of(spec: &'static FigureSpec, runs: &[AllRun]) -> Figure {
        let mut v: Vec<f64> = runs.iter().filter_map(spec.get).collect();
        v.sort_by(f64::total_cmp);
        Figure { spec, median: median(&v), min: v.first().copied(), max: v.last().copied() }
    }
}

/// The median of sorted values.
fn median(sorted: &[f64]) -> Option<f64> {
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}

/// One run of `all`: the echo, the actions and the idle memory, each in a fresh client
/// process against a fresh server.
async fn all_once(
    a: &AllArgs,
    exe: &Path,
    gin_server: &Path,
    tmp: &Path,
    run: u32,
    pg: Option<&LocalPostgres>,
) -> anyhow::Result<AllRun> {
    // 1. The bare echo, then the durable one.
    let echo = echo_once(a, exe, tmp, &format!("{run}"), None).await?;
    let journal = tmp.join(format!("durable-echo-{run}.log"));
    let durable_echo = echo_once(a, exe, tmp, &format!("durable-{run}"), Some(&journal)).await?;
    let _ = std::fs::remove_file(&journal);

    // 2. Game actions.
    let (mut server, url) = start_gin_server(gin_server, tmp, &format!("actions-{run}"), pg).await?;
    eprintln!("running actions ({} s, {} games)...", a.seconds, a.parallel);
    let actions = measure(
        exe,
        "actions",
        &[
            format!("--server={url}"),
            format!("--server-pid={}", server.pid()),
            format!("--parallel={}", a.parallel),
            format!("--target={}", a.target),
            format!("--connections={}", a.connections),
            format!("--seconds={}", a.seconds),
            format!("--warmup={}", a.warmup),
        ],
    )?;
    server.check_alive()?;
    drop(server);

    // 3. Idle memory, on a fresh server (memory freed by the games above would be reused).
    let (mut server, url) = start_gin_server(gin_server, tmp, &format!("idle-{run}"), pg).await?;
    eprintln!(
        "running idle-memory ({} waiting, {} dealt, {} dealt and watched games)...",
        a.idle_games, a.idle_games, a.idle_games
    );
    let idle = measure(
        exe,
        "idle-memory",
        &[
            format!("--server={url}"),
            format!("--server-pid={}", server.pid()),
            format!("--games={}", a.idle_games),
            format!("--connections={}", a.connections),
            "--watch".to_string(),
        ],
    )?;
    server.check_alive()?;
    drop(server);
    Ok(AllRun { echo, durable_echo, actions, idle })
}

/// One echo measurement on a fresh echo server (`durable`: its journal file).
async fn echo_once(
    a: &AllArgs,
    exe: &Path,
    tmp: &Path,
    tag: &str,
    durable: Option<&Path>,
) -> anyhow::Result<Value> {
    let port = free_port()?;
    let mut cmd = Command::new(exe);
    cmd.arg("echo-server").arg("--addr").arg(format!("127.0.0.1:{port}"));
    if a.echo_no_nodelay {
        cmd.arg("--no-nodelay");
    }
    if let Some(journal) = durable {
        cmd.arg("--durable").arg(journal);
    }
    let mut echo_child = spawn("echo-server", cmd, tmp.join(format!("echo-server-{tag}.log")))?;
    let echo_url = format!("http://127.0.0.1:{port}");
    wait_ready(&mut echo_child, &echo_url, |ch| async move {
        EchoServiceClient::new(ch).echo(bpb::EchoRequest { payload: Vec::new() }).await.map(drop)
    })
    .await?;
    let kind = if durable.is_some() { "durable echo" } else { "echo" };
    eprintln!("running {kind} ({} s)...", a.seconds);
    let echo = measure(
        exe,
        "echo",
        &[
            format!("--server={echo_url}"),
            format!("--server-pid={}", echo_child.pid()),
            format!("--connections={}", a.connections),
            format!("--in-flight={}", a.in_flight),
            format!("--seconds={}", a.seconds),
            format!("--warmup={}", a.warmup),
        ],
    )?;
    echo_child.check_alive()?;
    Ok(echo)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0]), Some(3.0));
        assert_eq!(median(&[1.0, 2.0, 9.0]), Some(2.0));
        assert_eq!(median(&[1.0, 2.0, 4.0, 9.0]), Some(3.0));
        let runs: Vec<AllRun> = [(100.0, 50.0), (120.0, 66.0), (110.0, 44.0)]
            .into_iter()
            .map(|(e, a)| AllRun {
                echo: json!({ "calls_per_sec": e }),
                durable_echo: json!({ "calls_per_sec": e / 2.0 }),
                actions: json!({ "actions_per_sec": a }),
                idle: json!({}),
            })
            .collect();
        let ratio = FIGURES.iter().find(|f| f.name == RATIO).unwrap();
        let f = Figure::of(ratio, &runs);
        // The ratios of the runs (0.5, 0.55, 0.4), not the ratio of the medians (55 / 110).
        assert_eq!((f.median, f.min, f.max), (Some(0.5), Some(0.4), Some(0.55)));
        let durable = FIGURES.iter().find(|f| f.name == DURABLE_RATIO).unwrap();
        assert_eq!(Figure::of(durable, &runs).median, Some(1.0));
        let idle = FIGURES.iter().find(|f| f.name == IDLE).unwrap();
        assert_eq!(Figure::of(idle, &runs).median, None);
    }

    fn la(kind: pb::ActionKind, card: &str, deadwood: u32) -> pb::LegalAction {
        pb::LegalAction { kind: kind as i32, card: card.into(), deadwood, ..Default::default() }
    }

    #[test]
    fn policy() {
        use pb::ActionKind as K;
        let t = |legal: Vec<pb::LegalAction>, best: &str| pb::TurnInfo {
            legal_actions: legal,
            best: None,
            best_discard: best.into(),
        };
        let offer = t(vec![la(K::TakeUpcard, "", 0), la(K::PassUpcard, "", 0)], "");
        assert_eq!(choose(&offer), Some(Choice::Pass));
        let draw = t(vec![la(K::DrawStock, "", 0), la(K::DrawPile, "", 0)], "");
        assert_eq!(choose(&draw), Some(Choice::DrawStock));
        let discard = t(vec![la(K::Discard, "3C", 0), la(K::Discard, "KD", 0), la(K::Discard, "9H", 0)], "");
        assert_eq!(choose(&discard), Some(Choice::Discard("KD".into())));
        let best = t(vec![la(K::Discard, "3C", 0), la(K::Discard, "KD", 0)], "3C");
        assert_eq!(choose(&best), Some(Choice::Discard("3C".into())));
        let knock = t(vec![la(K::Discard, "3C", 0), la(K::Knock, "3C", 7), la(K::Knock, "KD", 3)], "");
        assert_eq!(choose(&knock), Some(Choice::Knock("KD".into())));
        let big = t(vec![la(K::Knock, "3C", 0), la(K::BigGin, "", 0)], "");
        assert_eq!(choose(&big), Some(Choice::Knock(String::new())));
        assert_eq!(choose(&t(vec![], "")), None);
    }

    #[test]
    fn card_values() {
        assert_eq!(card_value("AS"), 1);
        assert_eq!(card_value("7H"), 7);
        assert_eq!(card_value("TD"), 10);
        assert_eq!(card_value("KC"), 10);
    }
}
