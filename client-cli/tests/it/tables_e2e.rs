//! End to end at tables of other formats: the real `gin` binary in plain mode plays a whole
//! rummy game for 3 and a team game against house bots on a real server, reading the legal
//! moves each prompt lists and answering (melds and lay-offs first); a refused move shows
//! the server's reason. The final totals it prints are the server's.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::common::Server;

/// The command a player answers a `your move: a | b | …` prompt with: a meld, else a
/// lay-off, else a knock, else the stock, else the first discard.
fn answer(line: &str) -> Option<String> {
    let moves: Vec<&str> = line.strip_prefix("your move: ")?.split(" | ").collect();
    for prefix in ["meld ", "layoff ", "biggin", "knock ", "pass", "stock", "discard "] {
        if let Some(m) = moves.iter().find(|m| m.starts_with(prefix)) {
            return Some(match prefix {
                // `knock 7S (4) 9S (8)`: the first card; `discard 7S 9S`: the first card.
                "knock " | "discard " => format!("{prefix}{}", m[prefix.len()..].split(' ').next().unwrap()),
                _ => m.to_string(),
            });
        }
    }
    None
}

#[test]
fn answers_follow_the_legal_moves() {
    assert_eq!(answer("your move: stock | pile").as_deref(), Some("stock"));
    assert_eq!(
        answer("your move: meld 7C 7D 7H | layoff 9S 0 | discard 2C 9S").as_deref(),
        Some("meld 7C 7D 7H")
    );
    assert_eq!(answer("your move: knock 2C (3) 9S (10) | discard 2C 9S").as_deref(), Some("knock 2C"));
    assert_eq!(answer("your move: discard QD KS").as_deref(), Some("discard QD"));
    assert_eq!(answer("seat 1 discarded KS"), None);
}

/// Plays `gin play --plain` with `args` to the end; its stdout lines, the commands sent.
fn play(url: &str, args: &[&str]) -> (Vec<String>, Vec<String>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gin"))
        .args(["play", "--plain", "--name", "tester", "--server", url])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run gin play");
    let mut stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let pid = child.id();
    let watchdog = std::thread::spawn(move || {
        if done_rx.recv_timeout(Duration::from_secs(120)).is_err() {
            let _ = Command::new("kill").arg(pid.to_string()).status();
        }
    });
    let (mut lines, mut sent) = (Vec::new(), Vec::new());
    let mut tried_bad = false;
    for line in stdout.lines() {
        let line = line.expect("read gin's stdout");
        if let Some(mut a) = answer(&line) {
            if !tried_bad && a == "stock" {
                // Once: a move the rules refuse now (a discard before drawing).
                tried_bad = true;
                let card = lines.iter().rev().find_map(|l: &String| l.strip_prefix("your hand: ")).unwrap();
                a = format!("discard {}", card.split(' ').next().unwrap());
                writeln!(stdin, "{a}").unwrap();
                sent.push(a);
                a = "stock".into();
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
    assert!(status.success(), "gin play failed: {status}\nstderr: {err}\nstdout:\n{}", lines.join("\n"));
    (lines, sent, err)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_mode_plays_rummy_and_a_team_game_against_house_bots() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("g.db")).await;
    let url = server.url();
    let client = gin_sdk::Client::connect(&url).await.unwrap();
    let format = dir.path().join("rummy3.json");
    std::fs::write(&format, r#"{"kind":"rummy","players":3,"end":{"hands":2}}"#).unwrap();
    let teams = dir.path().join("teams.json");
    // To 100: a team game to 40 could end in its first round, before this seat had played
    // more than four moves (a run in CI did).
    std::fs::write(&teams, r#"{"kind":"teams","target":100}"#).unwrap();
    for args in [
        vec!["--rules", format.to_str().unwrap(), "--vs-bot", "simple"],
        vec!["--rules", teams.to_str().unwrap(), "--vs-bot", "simple"],
    ] {
        let u = url.clone();
        let a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let (lines, sent, _) = tokio::task::spawn_blocking(move || {
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            play(&u, &a)
        })
        .await
        .unwrap();
        let text = lines.join("\n");
        assert!(sent.len() > 5, "{sent:?}\n{text}");
        assert!(lines.iter().any(|l| l.starts_with("refused: ")), "the refused move says why:\n{text}");
        // Every opponent with its card count; the seats to act.
        assert!(lines.iter().any(|l| l.contains("(simple, bot): ") && l.contains(" cards")), "{text}");
        if args[1].ends_with("teams.json") {
            assert!(lines.iter().any(|l| l.starts_with("teams: team 0 (seats 0 and 2) ")), "{text}");
            assert!(lines.iter().any(|l| l.starts_with("table 1: pile ")), "two tables:\n{text}");
        } else {
            assert!(sent.iter().any(|s| s.starts_with("meld ")) || text.contains(" laid meld "), "{text}");
        }
        // The last table shown is the end, with the server's totals.
        let over = lines
            .iter()
            .rev()
            .find(|l| l.starts_with("game over: totals "))
            .unwrap_or_else(|| panic!("the end:\n{text}"));
        let id = lines.iter().find_map(|l| l.strip_prefix("game ")?.split(':').next()).unwrap().to_string();
        let r = client.get_game(&id, "").await.unwrap().result.expect("the game is over");
        let totals: Vec<i64> = over["game over: totals ".len()..]
            .split(';')
            .next()
            .unwrap()
            .split(' ')
            .map(|t| t.parse().unwrap())
            .collect();
        assert_eq!(totals, r.table_totals, "{over}");
    }
    server.stop().await;
}
