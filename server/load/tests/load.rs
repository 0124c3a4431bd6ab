//! `gin-load`, the load benchmark, end to end: its client plays whole games against a real
//! server and its report counts them; its echo client measures its echo server; `all` runs
//! the real `gin-server`; `tournament` runs it with two `gin-bot` entrants; `ladder` pairs a
//! burst of programs and plays rated games; `accounts-startup` times the real `gin-server`'s
//! starts on a database of accounts.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use tokio::sync::oneshot;

/// A gin server in this process on 127.0.0.1:0.
struct TestServer {
    addr: std::net::SocketAddr,
    stop: oneshot::Sender<()>,
    task: tokio::task::JoinHandle<anyhow::Result<()>>,
}

impl TestServer {
    async fn start(db: &Path) -> TestServer {
        // As `gin-load all` starts its servers: no rate limit, registrations unlimited
        // (`actions --accounts` registers two accounts per slot from one address).
        let cfg = gin_server::Config {
            db: db.to_path_buf(),
            rate_per_sec: 0,
            registrations_per_hour: 0,
            ..gin_server::Config::default()
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, rx) = oneshot::channel::<()>();
        let task = tokio::spawn(gin_server::run(listener, cfg, async {
            let _ = rx.await;
        }));
        TestServer { addr, stop, task }
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    async fn stop(self) {
        let _ = self.stop.send(());
        self.task.await.unwrap().unwrap();
    }
}

/// The executables of the other packages that gin-load runs.
struct Binaries {
    server: PathBuf,
    bot: PathBuf,
}

/// `gin-server` and `gin-bot` of this build's profile, built once, before any test measures:
/// cargo builds only this package's binaries for its tests (a workspace build has built them
/// already, and cargo finds them up to date). Every test waits for it first, so no build
/// competes with a measurement for the cores.
fn binaries() -> &'static Binaries {
    static BINARIES: OnceLock<Binaries> = OnceLock::new();
    BINARIES.get_or_init(|| {
        let dir = Path::new(env!("CARGO_BIN_EXE_gin-load")).parent().unwrap();
        let profile = match dir.file_name().unwrap().to_str().unwrap() {
            "debug" => "dev",
            p => p,
        };
        let status = Command::new(env!("CARGO"))
            .args(["build", "--quiet", "--profile", profile, "-p", "gin-server", "-p", "gin-bot", "--bins"])
            .status()
            .expect("cargo runs");
        assert!(status.success(), "cargo build -p gin-server -p gin-bot failed");
        let exe = |name: &str| dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
        Binaries { server: exe("gin-server"), bot: exe("gin-bot") }
    })
}

/// Runs `gin-load <args> --json` to its end; its JSON report.
async fn gin_load(args: Vec<String>) -> serde_json::Value {
    let out = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_gin-load")).args(&args).arg("--json").stdin(Stdio::null()).output()
    })
    .await
    .unwrap()
    .expect("gin-load runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "gin-load failed ({}): {stderr}", out.status);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("gin-load's report: {e}\n{stderr}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gin_load_actions_plays_whole_games_on_two_client_threads() {
    binaries();
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("g.db")).await;
    // Short games (target 10): some end within the window even on a busy machine.
    let args = [
        "actions",
        "--threads",
        "2",
        "--parallel",
        "6",
        "--target",
        "10",
        "--connections",
        "3",
        "--warmup",
        "0.2",
    ];
    let mut args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    args.extend(["--seconds".into(), "3".into(), "--server".into(), server.url()]);
    let r = gin_load(args).await;
    // `gin-load actions` itself fails on any refusal, stream or order error, or no game over.
    assert!(r["actions_in_window"].as_u64().unwrap() > 100, "{r}");
    assert!(r["games_over"].as_u64().unwrap() > 0, "{r}");
    assert_eq!(r["refused"], 0, "{r}");
    assert_eq!(r["errors"].as_array().unwrap().len(), 0, "{r}");
    assert_eq!(r["connections"], 3, "{r}");
    server.stop().await;
}

/// `actions --accounts`: every game is played by two registered bot accounts with their
/// account tokens; the games are the accounts' own (ListPlayerGames lists them).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gin_load_actions_with_accounts_plays_as_signed_in_players() {
    use gin_proto::v1 as pb;
    binaries();
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("g.db")).await;
    let args =
        "actions --accounts --threads 2 --parallel 4 --target 10 --connections 2 --warmup 0.2 --seconds 3";
    let mut args: Vec<String> = args.split_whitespace().map(String::from).collect();
    args.extend(["--server".into(), server.url()]);
    let r = gin_load(args).await;
    assert_eq!(r["signed_in"], true, "{r}");
    let names: Vec<&str> = r["accounts"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    assert_eq!(names.len(), 8, "two accounts per slot: {r}");
    assert!(r["actions_in_window"].as_u64().unwrap() > 50, "{r}");
    assert!(r["games_over"].as_u64().unwrap() > 0, "{r}");
    assert_eq!((r["refused"].as_u64(), r["lobby_errors"].as_u64()), (Some(0), Some(0)), "{r}");
    // Slot 0's accounts: seat 0's and seat 1's of every game of that slot.
    let mut accounts =
        gin_proto::v1::account_service_client::AccountServiceClient::connect(server.url()).await.unwrap();
    for (seat, name) in names[..2].iter().enumerate() {
        let listed = accounts
            .list_player_games(pb::ListPlayerGamesRequest {
                name: name.to_string(),
                page_size: 100,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        assert!(!listed.games.is_empty(), "{name} has no game: {r}");
        for g in &listed.games {
            assert_eq!(g.seat, seat as u32, "{name}: {g:?}");
            let other = &g.seats[1 - seat];
            assert_eq!(other.account, names[1 - seat], "{name}: {g:?}");
        }
    }
    server.stop().await;
}

/// `signed-in` alternates anonymous and signed-in windows on one server it starts, and
/// reports each window and the ratio.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gin_load_signed_in_alternates_anonymous_and_signed_in_windows() {
    binaries();
    let mut args: Vec<String> =
        "signed-in --pairs 1 --seconds 1 --warmup 0.2 --parallel 4 --target 10 --connections 2 --server-exe"
            .split_whitespace()
            .map(String::from)
            .collect();
    args.push(binaries().server.display().to_string());
    let out = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_gin-load")).args(&args).arg("--json").stdin(Stdio::null()).output()
    })
    .await
    .unwrap()
    .expect("gin-load runs");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "gin-load signed-in failed ({}): {stderr}", out.status);
    assert!(stdout.contains("ratio signed-in/anonymous: actions/s "), "{stdout}");
    let r: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    let windows = r["windows"].as_array().unwrap();
    let kinds: Vec<bool> = windows.iter().map(|w| w["signed_in"].as_bool().unwrap()).collect();
    assert_eq!(kinds, [false, true], "{r}");
    for w in windows {
        assert_eq!(w["actions"]["signed_in"], w["signed_in"], "{r}");
        assert!(w["actions"]["actions_per_sec"].as_f64().unwrap() > 0.0, "{r}");
        assert!(w["actions"]["server_cpu_us_per_action"].as_f64().unwrap() > 0.0, "{r}");
    }
    assert!(r["ratio_actions_per_sec"].as_f64().unwrap() > 0.0, "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gin_load_echo_measures_its_echo_server() {
    binaries();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut echo_server = Command::new(env!("CARGO_BIN_EXE_gin-load"))
        .args(["echo-server", "--addr", &format!("127.0.0.1:{port}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("gin-load echo-server starts");
    // Wait until it listens.
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let args = ["echo", "--threads", "2", "--connections", "2", "--in-flight", "8", "--warmup", "0.2"];
    let mut args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    args.extend(["--seconds".into(), "1".into(), "--server".into(), format!("http://127.0.0.1:{port}")]);
    let r = gin_load(args).await;
    let _ = echo_server.kill();
    let _ = echo_server.wait();
    assert!(r["calls_in_window"].as_u64().unwrap() > 100, "{r}");
    assert_eq!(r["refused"], 0, "{r}");
    assert_eq!(r["in_flight"], 8, "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gin_load_all_repeats_its_runs_and_reports_medians() {
    binaries();
    // Long enough for every run's games to reach their end, alongside the other tests. The
    // older spellings `--games` (now `--parallel`) and `--gin-server` (now `--server-exe`),
    // still taken, are used here so that scripts using them stay tested.
    let mut args: Vec<String> =
        "all --runs 3 --seconds 2.5 --warmup 0.2 --games 6 --target 10 --idle-games 20 --in-flight 8 --gin-server"
            .split_whitespace()
            .map(String::from)
            .collect();
    args.push(binaries().server.display().to_string());
    let out = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_gin-load")).args(&args).arg("--json").stdin(Stdio::null()).output()
    })
    .await
    .unwrap()
    .expect("gin-load runs");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "gin-load all failed ({}): {stderr}", out.status);
    assert_eq!(stderr.matches("running actions").count(), 3, "{stderr}");
    assert!(stdout.contains("median of 3"), "{stdout}");
    let json = stdout.lines().last().unwrap();
    let r: serde_json::Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    let runs = r["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3);
    let mut ratios: Vec<f64> = runs.iter().map(|x| x["ratio_actions_echo"].as_f64().unwrap()).collect();
    ratios.sort_by(f64::total_cmp);
    assert_eq!(r["medians"]["ratio_actions_echo"].as_f64(), Some(ratios[1]), "{r}");
    assert_eq!(r["ratio_actions_echo"].as_f64(), Some(ratios[1]), "{r}");
    let mut rates: Vec<f64> =
        runs.iter().map(|x| x["actions"]["actions_per_sec"].as_f64().unwrap()).collect();
    rates.sort_by(f64::total_cmp);
    assert_eq!(r["medians"]["actions_per_sec"].as_f64(), Some(rates[1]), "{r}");
    assert!(rates[0] > 0.0, "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gin_load_tournament_plays_a_round_with_two_bot_processes() {
    let Binaries { server, bot } = binaries();
    let args = ["tournament", "--games", "6", "--parallel", "3", "--rules", "oklahoma"];
    let mut args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    args.extend(["--server-exe".into(), server.display().to_string()]);
    args.extend(["--bot-exe".into(), bot.display().to_string()]);
    let r = gin_load(args.clone()).await;
    assert_eq!(r["games"], 6, "{r}");
    assert!(r["games_per_sec"].as_f64().unwrap() > 0.0, "{r}");
    assert_eq!(
        (r["parallel"].as_u64(), r["strategy"].as_str(), r["rules"].as_str()),
        (Some(3), Some("simple"), Some("oklahoma"))
    );
    // Without --json: the standings, then the rate.
    let out = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_gin-load")).args(&args).stdin(Stdio::null()).output()
    })
    .await
    .unwrap()
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.starts_with("tournament "), "{stdout}");
    assert!(
        stdout.contains(": finished, 6/6 games") && stdout.contains("bot-a #") && stdout.contains("bot-b #"),
        "{stdout}"
    );
    let last = stdout.lines().last().unwrap();
    assert!(
        last.starts_with("6 games in ")
            && last.ends_with("(2 simple bot processes, 3 games at once, oklahoma for 2)"),
        "{last}"
    );
    // At tables: rummy for 3 among 4 bot processes, 3 games at each of the 4 tables.
    let mut table: Vec<String> = ["tournament", "--games", "3", "--parallel", "4", "--rules", "rummy"]
        .iter()
        .chain(&["--players", "3", "--entrants", "4"])
        .map(|s| s.to_string())
        .collect();
    table.extend(["--server-exe".into(), server.display().to_string()]);
    table.extend(["--bot-exe".into(), bot.display().to_string()]);
    let r = gin_load(table).await;
    assert_eq!(
        (r["games"].as_u64(), r["players"].as_u64(), r["entrants"].as_u64()),
        (Some(12), Some(3), Some(4)),
        "{r}"
    );
    assert!(r["games_per_sec"].as_f64().unwrap() > 0.0, "{r}");
    // A missing executable is named, with how to build it.
    let out = Command::new(env!("CARGO_BIN_EXE_gin-load"))
        .args(["tournament", "--bot-exe", "/nonexistent/gin-bot"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("/nonexistent/gin-bot not found"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gin_load_accounts_startup_times_the_servers_starts_after_a_stop_and_after_sigkill() {
    let server = &binaries().server;
    let mut args: Vec<String> =
        "accounts-startup --accounts 2000 --games 30 --runs 3".split_whitespace().map(String::from).collect();
    args.extend(["--server-exe".into(), server.display().to_string()]);
    // Without PostgreSQL (said, or a failure under GIN_REQUIRE_POSTGRES=1): SQLite alone.
    let postgres =
        tokio::task::spawn_blocking(gin_server::storage::pg_cluster::for_test).await.unwrap().is_some();
    if !postgres {
        args.push("--no-postgres".into());
    }
    let r = gin_load(args).await;
    assert_eq!(r["runs"], 3, "{r}");
    let cases = r["cases"].as_array().unwrap();
    let names: Vec<&str> = cases.iter().map(|c| c["case"].as_str().unwrap()).collect();
    let mut want = vec!["SQLite after a graceful stop", "SQLite after SIGKILL (replay)"];
    if postgres {
        want.push("PostgreSQL");
    }
    want.push("SQLite without accounts");
    assert_eq!(names, want, "{r}");
    for case in cases {
        let name = case["case"].as_str().unwrap();
        let runs = case["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 3, "{r}");
        let accounts = if name.contains("without") { 0 } else { 2000 };
        let mut ready: Vec<f64> = runs.iter().map(|x| x["ready_s"].as_f64().unwrap()).collect();
        ready.sort_by(f64::total_cmp);
        assert_eq!(case["ready_median_s"].as_f64(), Some(ready[1]), "{r}");
        for run in runs {
            assert_eq!(run["accounts_loaded"], accounts, "{name}: {r}");
            // The server's own stages, from its log, come before the first call's answer.
            let listening = run["listening_ms"].as_f64().unwrap();
            assert!(listening > 0.0 && listening / 1000.0 < run["ready_s"].as_f64().unwrap(), "{name}: {r}");
            // Every account's and token's row is applied again after SIGKILL, none otherwise.
            let replayed = run["rows_replayed"].as_u64().unwrap();
            if name.contains("SIGKILL") {
                assert!(replayed >= 4000, "{name}: {r}");
            } else {
                assert_eq!(replayed, 0, "{name}: {r}");
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gin_load_ladder_pairs_a_burst_and_plays_rated_games() {
    let server = &binaries().server;
    let mut args: Vec<String> =
        "ladder --burst 40 --programs 6 --seconds 10".split_whitespace().map(String::from).collect();
    args.extend(["--server-exe".into(), server.display().to_string()]);
    let r = gin_load(args).await;
    let burst = &r["burst"];
    assert_eq!(burst["programs"], 40, "{r}");
    // Every one of the 40 was matched (the report counts them), each latency a real figure.
    let p50 = burst["latency_ms"]["p50"].as_f64().unwrap();
    let max = burst["latency_ms"]["max"].as_f64().unwrap();
    assert!(p50 > 0.0 && p50 <= max, "{r}");
    assert!(burst["server_waited_ms_max"].as_f64().unwrap() <= max + 1000.0, "{r}");
    let steady = &r["steady"];
    assert_eq!(steady["programs"], 6, "{r}");
    assert!(steady["rated_games_per_sec"].as_f64().unwrap() > 0.0, "{r}");
}
