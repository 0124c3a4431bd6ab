//! `gin-load`, the load benchmark, end to end: its client plays whole games against a real
//! server and its report counts them; its echo client measures its echo server.

mod common;

use std::process::{Command, Stdio};
use std::time::Duration;

use common::*;

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
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("g.db")).await;
    let args = ["actions", "--threads", "2", "--games", "6", "--connections", "3", "--warmup", "0.2"];
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gin_load_echo_measures_its_echo_server() {
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
    // Long enough for every run's games to reach their end, alongside the other tests.
    let mut args: Vec<String> =
        "all --runs 3 --seconds 2.5 --warmup 0.2 --games 6 --idle-games 20 --in-flight 8 --gin-server"
            .split_whitespace()
            .map(String::from)
            .collect();
    args.push(env!("CARGO_BIN_EXE_gin-server").to_string());
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
