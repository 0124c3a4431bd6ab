//! End to end: the real `gin` binary in plain mode plays a whole game against a house bot
//! on a real server (in this process, on a loopback socket), reading its prompts and
//! answering with real moves; then `gin verify` checks the finished game's deals, and
//! `gin list` / `gin watch` run against the same server.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::common::{Server, gin, gin_with_stdin};

/// The move a simple player makes at a `your turn:` prompt (None: not a prompt).
pub(crate) fn answer(prompt: &str) -> Option<String> {
    let rest = prompt.strip_prefix("your turn: ")?;
    if rest.starts_with("the upcard") {
        return Some("pass".into());
    }
    if rest.starts_with("draw") {
        return Some("stock".into());
    }
    if let Some(k) = rest.split("; you can knock with ").nth(1) {
        let first = k.split([',', ';', ' ']).next().unwrap();
        return Some(format!("knock {first}"));
    }
    let best = rest.split("; best discard ").nth(1)?.split(';').next().unwrap();
    Some(format!("discard {best}"))
}

#[test]
fn answers_follow_the_prompts() {
    assert_eq!(answer("your turn: the upcard is KH: take or pass").as_deref(), Some("pass"));
    assert_eq!(answer("your turn: draw: stock, or take KS from the pile").as_deref(), Some("stock"));
    assert_eq!(
        answer("your turn: discard CARD or knock CARD; best discard QD").as_deref(),
        Some("discard QD")
    );
    assert_eq!(
        answer("your turn: discard CARD or knock CARD; best discard KS; you can knock with AH, KS (gin)")
            .as_deref(),
        Some("knock AH")
    );
    assert_eq!(answer("simple discarded KS"), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_mode_plays_a_whole_game_against_a_house_bot() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("g.db")).await;
    let url = server.url();

    let out = tokio::task::spawn_blocking({
        let url = url.clone();
        move || gin(&["list", "--server", &url])
    })
    .await
    .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "no open games (start one: gin play --create)\n");

    let url2 = url.clone();
    let transcript = tokio::task::spawn_blocking(move || {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gin"))
            .args(["play", "--plain", "--vs-bot", "simple", "--name", "tester", "--server", &url2])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run gin play");
        let mut stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        // A watchdog, so a bug that stalls the game fails the test instead of hanging it.
        let (done_tx, done_rx) = mpsc::channel::<()>();
        let pid = child.id();
        let watchdog = std::thread::spawn(move || {
            if done_rx.recv_timeout(Duration::from_secs(30)).is_err() {
                let _ = Command::new("kill").arg(pid.to_string()).status();
            }
        });
        let mut lines = Vec::new();
        let mut sent = Vec::new();
        let mut tried_bad = false;
        for line in stdout.lines() {
            let line = line.expect("read gin's stdout");
            if let Some(mut a) = answer(&line) {
                if !tried_bad && a.starts_with("discard") {
                    // One bad command first: a clear error, and the game goes on.
                    tried_bad = true;
                    a = "discard ZZ".into();
                }
                writeln!(stdin, "{a}").expect("write gin's stdin");
                sent.push(a);
            }
            lines.push(line);
        }
        let status = child.wait().unwrap();
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        let _ = done_tx.send(());
        watchdog.join().unwrap();
        (status, lines, sent, err)
    })
    .await
    .unwrap();
    let (status, lines, sent, err) = transcript;
    let text = lines.join("\n");
    assert!(status.success(), "gin play failed: {status}\nstderr: {err}\nstdout:\n{text}");
    assert!(lines[0].starts_with("game ") && lines[0].ends_with(": standard to 100"), "{}", lines[0]);
    assert_eq!(lines[1], "you are tester (seat 0) against simple (seat 1, house bot)");
    assert!(text.contains("error: \"ZZ\" is not a card"), "the bad command got a clear error:\n{text}");
    assert!(sent.len() > 10, "a whole game takes many moves: {sent:?}");
    // It ran to the end: the result line, the bonus breakdown and the margin.
    let over = lines.iter().position(|l| l.starts_with("game over: ")).expect("a game over line");
    assert!(lines[over..].iter().any(|l| l.starts_with("game bonus")), "{text}");
    assert!(lines[over..].iter().any(|l| l.starts_with("total")), "{text}");
    assert!(lines.last().unwrap().starts_with("margin "), "{text}");
    // Every hand that ended was reported with the score.
    let ended =
        lines.iter().filter(|l| l.starts_with("hand ") && l.contains(": ") && !l.contains("dealt")).count();
    assert!(ended >= 1, "{text}");
    assert!(lines.iter().any(|l| l.starts_with("Score: tester ")), "{text}");

    // The finished game's deals check out against the commitments published at each deal.
    let id = lines[0].trim_start_matches("game ").split(':').next().unwrap().to_string();
    let saved = dir.path().join("v.json");
    let (url3, id2, saved2) = (url.clone(), id.clone(), saved.clone());
    let out = tokio::task::spawn_blocking(move || {
        gin(&["verify", &id2, "--server", &url3, "--save", saved2.to_str().unwrap()])
    })
    .await
    .unwrap();
    let v = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{v}{}", String::from_utf8_lossy(&out.stderr));
    assert!(v.contains("hand 1: ok (deck, salt and commitment agree, as published at the deal)"), "{v}");
    assert!(v.trim_end().lines().last().unwrap().ends_with("deals verified"), "{v}");
    // The saved file verifies offline; a tampered one does not.
    let out = gin(&["verify", saved.to_str().unwrap()]);
    assert!(out.status.success());
    let bad = dir.path().join("bad.json");
    let mut j: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    j["hands"][0]["salt"] = serde_json::Value::String("00".repeat(32));
    std::fs::write(&bad, j.to_string()).unwrap();
    let out = gin(&["verify", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("hand 1: FAILED"));

    // A spectator of the finished game sees its end, in plain mode, and the process ends.
    let (url4, id3) = (url.clone(), id.clone());
    let out = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_gin"))
            .args(["watch", &id3, "--plain", "--server", &url4])
            .stdin(Stdio::null())
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let w = String::from_utf8_lossy(&out.stdout);
    assert!(w.contains("watching tester (seat 0) against simple (seat 1, house bot)"), "{w}");
    assert!(w.contains("game over: "), "{w}");

    server.stop().await;
}

#[test]
fn bad_input_gets_a_clear_error() {
    let o = gin(&["play", "--plain", "--rules", "nonesuch", "--server", "http://127.0.0.1:1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is neither a preset"), "{o:?}");
    let o = gin(&["play", "--plain", "--vs-bot", "nonesuch", "--server", "http://127.0.0.1:1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--vs-bot"), "{o:?}");
    let o = gin(&["play", "--plain", "--server", "ftp://example"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("expected http://host:port"), "{o:?}");
    let o = gin(&["play", "--turn-secs", "30", "--server", "http://127.0.0.1:1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--turn-secs needs"), "{o:?}");
    let o = gin(&["play", "--create", "--join", "x"]);
    assert_eq!(o.status.code(), Some(2), "clap refuses conflicting flags");
    let o = gin(&["play", "--plain", "--or-bot", "nonesuch", "--server", "http://127.0.0.1:1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--or-bot"), "{o:?}");
    let o = gin(&["play", "--wait", "5"]);
    assert_eq!(o.status.code(), Some(2), "--wait needs --or-bot");
    let o = gin(&["play", "--or-bot", "simple", "--vs-bot", "simple"]);
    assert_eq!(o.status.code(), Some(2), "--or-bot is a quick match, --vs-bot is not");
}

fn gin_stdin(args: &[&str], input: &str) -> std::process::Output {
    gin_with_stdin(args, input.as_bytes())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_who_leaves_comes_back_to_the_same_seat() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("g.db")).await;
    let url = server.url();
    let (first, back) = tokio::task::spawn_blocking(move || {
        let first = gin_stdin(
            &["play", "--plain", "--vs-bot", "random", "--name", "ada", "--server", &url],
            "quit\n",
        );
        let err = String::from_utf8_lossy(&first.stderr).to_string();
        let cmd =
            err.lines().find(|l| l.trim_start().starts_with("gin play --join")).expect(&err).to_string();
        let words: Vec<&str> = cmd.split_whitespace().collect();
        let (id, token) = (words[3], words[5]);
        let back =
            gin_stdin(&["play", "--plain", "--join", id, "--token", token, "--server", &url], "hand\nquit\n");
        (first, back)
    })
    .await
    .unwrap();
    assert!(first.status.success());
    let out = String::from_utf8_lossy(&back.stdout);
    assert!(back.status.success(), "{out}{}", String::from_utf8_lossy(&back.stderr));
    assert!(out.contains("you are ada (seat 0) against random (seat 1, house bot)"), "{out}");
    assert!(out.contains("your hand: "), "{out}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quick_match_nobody_answers_is_played_against_the_house_bot() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("g.db")).await;
    let url = server.url();
    let out = tokio::task::spawn_blocking(move || {
        gin_stdin(
            &["play", "--plain", "--or-bot", "random", "--wait", "1", "--name", "ada", "--server", &url],
            "resign\n",
        )
    })
    .await
    .unwrap();
    let (text, err) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{text}{err}");
    assert!(err.contains("the random bot plays you after 1 s"), "{err}");
    assert!(text.contains("you are ada (seat 0) against random (seat 1, house bot)"), "{text}");
    assert!(text.contains("game over: random won"), "{text}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_can_resign() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("g.db")).await;
    let url = server.url();
    let out = tokio::task::spawn_blocking(move || {
        gin_stdin(&["play", "--plain", "--vs-bot", "random", "--name", "ada", "--server", &url], "resign\n")
    })
    .await
    .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("ada resigned"), "{text}");
    assert!(text.contains("you resigned"), "{text}");
    assert!(text.contains("game over: random won"), "{text}");
    server.stop().await;
}
