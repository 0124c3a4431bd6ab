//! End to end at tables of three to six, by keys: the real `gin` binary runs full screen in
//! a detached tmux session (120×40) against house bots on a real server (in this process, a
//! temporary database); the test reads the screen with `tmux capture-pane -p` and answers
//! with `tmux send-keys`, as a person would: passes the upcard, draws from the stock, knocks
//! with `K` and `y` when the prompt offers it, melds by marking the cards' labels and `m`,
//! lays off with a label, `l` and the meld's number, discards with a label and Enter,
//! closes each hand's result with Space. Once, a move out of turn shows the server's reason.
//! At the game's end the totals on the screen must be the server's record (`GetRecord`).
//!
//! Skipped (with a note) when tmux is missing, unless `GIN_REQUIRE_TMUX=1` (CI sets it).

use std::collections::BTreeMap;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::Server;

/// One `gin` in its own tmux server (its socket in the test's temporary directory: no other
/// tmux is touched).
struct Tmux {
    socket: String,
}

impl Tmux {
    fn available() -> bool {
        let ok = Command::new("tmux").arg("-V").output().is_ok_and(|o| o.status.success());
        if !ok {
            assert!(
                std::env::var("GIN_REQUIRE_TMUX").as_deref() != Ok("1"),
                "tmux is required (GIN_REQUIRE_TMUX=1) but cannot be run"
            );
            eprintln!("tmux is not installed: skipping the tmux test");
        }
        ok
    }

    fn start(dir: &std::path::Path, args: &[&str]) -> Tmux {
        let socket = dir.join("tmux.sock").to_str().expect("a UTF-8 temporary path").to_string();
        let mut cmd = vec![env!("CARGO_BIN_EXE_gin").to_string()];
        cmd.extend(args.iter().map(|a| a.to_string()));
        let t = Tmux { socket };
        let out = t
            .tmux()
            .args(["new-session", "-d", "-x", "120", "-y", "40", "-s", "gin"])
            .args(["-e", "TERM=xterm-256color"])
            .args(cmd)
            .output()
            .expect("run tmux");
        assert!(out.status.success(), "tmux new-session: {}", String::from_utf8_lossy(&out.stderr));
        // Keep the pane after gin exits, to read its last words and its status.
        let _ = t.tmux().args(["set-option", "-t", "gin", "remain-on-exit", "on"]).output();
        t
    }

    fn tmux(&self) -> Command {
        let mut c = Command::new("tmux");
        c.args(["-S", &self.socket, "-f", "/dev/null"]);
        c
    }

    fn screen(&self) -> String {
        let out = self.tmux().args(["capture-pane", "-p", "-t", "gin"]).output().expect("tmux capture-pane");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn send(&self, keys: &[&str]) {
        let out = self.tmux().args(["send-keys", "-t", "gin"]).args(keys).output().expect("tmux send-keys");
        assert!(out.status.success(), "send-keys {keys:?}: {}", String::from_utf8_lossy(&out.stderr));
    }

    /// Polls the screen until `done` holds (or `limit` passes); the last screen read.
    fn wait(&self, limit: Duration, done: impl Fn(&str) -> bool) -> Result<String, String> {
        self.wait_settled(limit, Duration::ZERO, done)
    }

    /// As [`Tmux::wait`], and the screen stayed the same for `settle` (the keys sent at once
    /// are all taken in: a screen read between two of them is not answered).
    fn wait_settled(
        &self,
        limit: Duration,
        settle: Duration,
        done: impl Fn(&str) -> bool,
    ) -> Result<String, String> {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if done(&s) {
                if settle.is_zero() {
                    return Ok(s);
                }
                std::thread::sleep(settle);
                if self.screen() == s {
                    return Ok(s);
                }
                continue;
            }
            if start.elapsed() > limit {
                return Err(s);
            }
            std::thread::sleep(Duration::from_millis(40));
        }
    }

    /// What gin's threads are doing (for a failure's message).
    fn threads(&self) -> String {
        let out = self.tmux().args(["display-message", "-p", "-t", "gin", "#{pane_pid}"]).output();
        let pid = out.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()).unwrap_or_default();
        let mut s = format!("pid {pid}:");
        for t in std::fs::read_dir(format!("/proc/{pid}/task")).into_iter().flatten().flatten() {
            let p = t.path();
            let comm = std::fs::read_to_string(p.join("comm")).unwrap_or_default();
            let wchan = std::fs::read_to_string(p.join("wchan")).unwrap_or_default();
            let stack = std::fs::read_to_string(p.join("stat")).unwrap_or_default();
            s.push_str(&format!(
                "\n  {} {} {wchan} {}",
                p.display(),
                comm.trim(),
                stack.split(' ').nth(2).unwrap_or("")
            ));
        }
        s
    }

    /// gin's exit status, once it has exited: tmux's word for it, or (tmux may take its time
    /// to reap it) the kernel's for the pane's process, a zombie by then.
    fn dead(&self) -> Option<String> {
        let out = self
            .tmux()
            .args(["display-message", "-p", "-t", "gin", "#{pane_dead} #{pane_dead_status} #{pane_pid}"])
            .output()
            .ok()?;
        let s = String::from_utf8_lossy(&out.stdout).trim().to_string();
        // `1 STATUS PID` once tmux reaped it; `1 PID` when its terminal closed but tmux did
        // not reap it yet (it may take long); `0 PID` before.
        let pid = match s.split_whitespace().collect::<Vec<_>>().as_slice() {
            ["1", status, _pid] => return Some(status.to_string()),
            [_, pid] => pid.to_string(),
            _ => return None,
        };
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
        if fields.first() != Some(&"Z") {
            return None;
        }
        // Field 52 of proc(5), `exit_code`: the status as waitpid reports it.
        let code: i32 = fields.get(49)?.parse().ok()?;
        Some(((code >> 8) & 0xff).to_string())
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.tmux().arg("kill-server").output();
    }
}

/// The label (a-k) of `card` (as the screen writes it, "9♣") in the hand's box.
fn label_of(screen: &str, card: &str) -> Option<char> {
    let rows: Vec<&str> = screen.lines().collect();
    // The labels are the first row in the hand's box (one card or eleven).
    let r = rows.iter().position(|r| r.contains("┌ Your hand ("))? + 1;
    let cards: Vec<char> = rows.get(r + 1)?.chars().collect();
    let labels: Vec<char> = rows[r].chars().collect();
    let want: Vec<char> = card.chars().collect();
    let col = (0..cards.len()).find(|&i| cards[i..].starts_with(&want))?;
    labels.get(col).copied().filter(char::is_ascii_lowercase)
}

/// The prompt's second line: what the moves are (`m meld [9♣ 9♦ 9♥] · l lay off 8♠→1 · …`).
fn prompt(screen: &str, starts: &str) -> Option<String> {
    screen
        .lines()
        .find(|l| l.trim_start().starts_with(starts))
        .map(|l| l.split('│').next().unwrap_or(l).to_string())
}

/// What the screen asks now, and the keys that answer it (each a tmux key name).
fn answer(screen: &str, tried_refusal: &mut bool) -> Option<(&'static str, Vec<String>)> {
    let k = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    if screen.contains("Space: continue") && screen.contains(" over ─") {
        return Some(("result", k(&["Space"])));
    }
    if screen.contains("│meld: ") && screen.contains("Esc: cancel") {
        // A meld number that another could start: Enter sends it.
        return Some(("layoff-enter", k(&["Enter"])));
    }
    if screen.contains("y: knock") {
        return Some(("confirm", k(&["y"])));
    }
    if screen.contains("Your turn: the upcard") {
        return Some(("pass", k(&["p"])));
    }
    if screen.contains("Your turn: draw") {
        if !*tried_refusal {
            // Once: a discard before drawing; the server's reason shows.
            *tried_refusal = true;
            return Some(("refusal", k(&["x"])));
        }
        return Some(("stock", k(&["s"])));
    }
    if screen.contains("Your turn: pick a card") {
        if let Some(line) = prompt(screen, "Enter discard · K knock with ") {
            let card = line.split("K knock with ").nth(1)?.split_whitespace().next()?.to_string();
            if let Some(l) = label_of(screen, &card) {
                return Some(("knock", vec![l.to_string(), "K".into()]));
            }
        }
        return Some(("discard", k(&["a", "Enter"])));
    }
    if screen.contains("Your turn: mark cards") {
        let line = prompt(screen, "m meld ").or_else(|| prompt(screen, "l lay off ")).unwrap_or_default();
        if let Some(rest) = line.strip_prefix(" ").unwrap_or(&line).strip_prefix("m meld [") {
            let cards: Vec<&str> = rest.split(']').next()?.split(' ').collect();
            let labels: Option<Vec<String>> =
                cards.iter().map(|c| label_of(screen, c).map(String::from)).collect();
            if let Some(labels) = labels {
                // Esc first: no card left marked from before.
                let mut keys = vec!["Escape".to_string()];
                keys.extend(labels);
                keys.push("m".into());
                return Some(("meld", keys));
            }
        }
        if let Some(rest) = line.split("l lay off ").nth(1) {
            let first = rest.split_whitespace().next()?;
            let (card, meld) = first.split_once('→')?;
            let l = label_of(screen, card)?;
            let mut keys = vec![l.to_string(), "l".into()];
            keys.extend(meld.chars().map(String::from));
            return Some(("layoff", keys));
        }
        return Some(("discard", k(&["a", "Enter"])));
    }
    None
}

/// Plays the game on the screen to its end; what was pressed (by kind) and the final screen.
fn play(t: &Tmux) -> (BTreeMap<&'static str, u32>, String) {
    let start = Instant::now();
    let mut pressed = BTreeMap::new();
    let mut tried_refusal = false;
    loop {
        let screen = t.screen();
        assert!(start.elapsed() < Duration::from_secs(240), "the game stalled; screen:\n{screen}");
        if let Some(status) = t.dead() {
            panic!("gin exited ({status}) before the game's end; screen:\n{screen}");
        }
        if screen.contains(" Game over ─") && !screen.contains("Space: continue") {
            return (pressed, screen);
        }
        let Some((what, keys)) = answer(&screen, &mut tried_refusal) else {
            std::thread::sleep(Duration::from_millis(40));
            continue;
        };
        *pressed.entry(what).or_default() += 1;
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        t.send(&keys);
        if what == "refusal" {
            let refusal = |l: &str| l.trim_start_matches("error: ").starts_with("refused: ");
            let s = t
                .wait(Duration::from_secs(30), |s| s.lines().any(refusal))
                .unwrap_or_else(|s| panic!("no refusal shown:\n{s}"));
            let reason = s.lines().find(|l| refusal(l)).unwrap().trim_start_matches("error: ");
            assert!(reason.trim().len() > "refused: ".len() + 5, "a reason: {reason}");
            continue;
        }
        // The answer is taken in when the table, the hand or the window changed (the events'
        // column aside: it moves on its own), and nothing is on its way.
        let before = left(&screen);
        let settled = t.wait_settled(Duration::from_secs(60), Duration::from_millis(150), |s| {
            left(s) != before && !s.contains("Sent: waiting")
        });
        if let Err(s) = settled {
            panic!("no answer to {keys:?} ({what}); screen:\n{s}");
        }
    }
}

/// The screen but its events' column (the 36 columns on the right at 120 wide).
fn left(screen: &str) -> String {
    screen.lines().map(|l| l.chars().take(84).collect::<String>()).collect::<Vec<_>>().join("\n")
}

/// The final totals on the game-over window: seat → total.
fn final_totals(screen: &str) -> BTreeMap<u32, i64> {
    let mut out = BTreeMap::new();
    // In the window: `│ 1. seat 3 simple (bot)     -9     │`.
    for cell in screen.lines().flat_map(|l| l.split('│')) {
        let Some((place, rest)) = cell.trim().split_once(". seat ") else { continue };
        if place.parse::<u32>().is_err() {
            continue;
        }
        let seat = rest.split_whitespace().next().and_then(|s| s.parse().ok());
        let total = rest.split_whitespace().last().and_then(|s| s.parse().ok());
        if let (Some(seat), Some(total)) = (seat, total) {
            out.insert(seat, total);
        }
    }
    out
}

#[test]
fn labels_are_read_off_the_hand_at_any_size() {
    let one = "┌ Your hand (by suit, 1 cards) ─┐\n│ a       │\n│ 4♦      │";
    assert_eq!(label_of(one, "4♦"), Some('a'));
    let two = "┌ Your hand (by suit, 2 cards) ─┐\n│ a   b   │\n│ 4♦  K♠  │";
    assert_eq!(label_of(two, "K♠"), Some('b'));
    assert_eq!(label_of(two, "Q♠"), None);
}

#[test]
fn final_totals_are_read_off_the_window() {
    let s = "│Game over: you won   │ seat 1 drew\n│ 1. seat 0 you     59   │hand 1 over (knock): seat 3\n│ 2. seat 2 simple (bot)   -4   │";
    assert_eq!(final_totals(s), BTreeMap::from([(0, 59), (2, -4)]));
}

async fn plays_to_the_end(name: &str, rules: &str) {
    if !Tmux::available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("g.db")).await;
    let url = server.url();
    let client = gin_sdk::Client::connect(&url).await.unwrap();
    let format = dir.path().join(format!("{name}.json"));
    std::fs::write(&format, rules).unwrap();
    let f = format.to_str().unwrap().to_string();
    let sock_dir = dir.path().to_path_buf();
    let began = Instant::now();
    let (pressed, screen, id) = tokio::task::spawn_blocking(move || {
        let t = Tmux::start(
            &sock_dir,
            &["play", "--rules", &f, "--vs-bot", "simple", "--name", "keys", "--server", &url],
        );
        let first = t
            .wait(Duration::from_secs(60), |s| s.contains("you are seat "))
            .unwrap_or_else(|s| panic!("no table on the screen:\n{s}"));
        let id = first
            .lines()
            .next()
            .and_then(|l| l.split(" · game ").nth(1))
            .map(|s| s.trim().to_string())
            .expect("the game's id in the header");
        let (pressed, screen) = play(&t);
        t.send(&["q"]);
        let left = Instant::now();
        let status = loop {
            if let Some(status) = t.dead() {
                break status;
            }
            if left.elapsed() > Duration::from_secs(30) {
                let s = t.screen();
                panic!(
                    "q at the end does not leave:\n{s}\nbefore q:\n{screen}\n{pressed:?}\n{}",
                    t.threads()
                );
            }
            std::thread::sleep(Duration::from_millis(40));
        };
        assert_eq!(status, "0", "gin exits 0");
        (pressed, screen, id)
    })
    .await
    .unwrap();
    let record = client.get_record(&id).await.unwrap();
    let result = record.result.expect("a finished game's result");
    let want: BTreeMap<u32, i64> =
        result.table_totals.iter().enumerate().map(|(i, &t)| (i as u32, t)).collect();
    assert_eq!(final_totals(&screen), want, "screen:\n{screen}");
    assert!(pressed.get("stock").copied().unwrap_or(0) >= 2, "{pressed:?}");
    assert!(pressed.get("result").copied().unwrap_or(0) >= 1, "a hand's result was held: {pressed:?}");
    eprintln!("{name}: {pressed:?} in {:.1} s", began.elapsed().as_secs_f64());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tmux_plays_a_rummy_game_for_three_to_its_end_by_keys() {
    plays_to_the_end("rummy3", r#"{"kind":"rummy","players":3,"end":{"hands":2}}"#).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tmux_plays_gin_at_one_table_for_four_to_its_end_by_keys() {
    plays_to_the_end("gin7", r#"{"kind":"gin-7","players":4,"end":{"hands":2}}"#).await;
}
