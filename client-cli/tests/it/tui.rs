//! End to end, full screen: the real `gin` binary in a real pseudo-terminal plays a game
//! against a house bot on a real server (in this process, on a loopback socket). The test
//! reads the screen back through a terminal emulator (`vt100`) and answers with keys, as a
//! person would: passes the upcard, draws from the stock, discards by label and Enter,
//! knocks with `K` and `y` when the prompt offers it, closes each hand's window with Space.
//! Halfway it quits (`q`, `y`) and comes back to its seat with `--join ID --token TOKEN`.
//! The final score on the screen must be the server's record of the game.

use std::io::{Read, Write};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use gin_proto::v1 as pb;
use portable_pty::{CommandBuilder, PtySize, native_pty_system};

use crate::common::Server;

const ROWS: u16 = 40;
const COLS: u16 = 120;

/// One run of `gin` in a pseudo-terminal, its screen kept by a terminal emulator.
struct Term {
    parser: vt100::Parser,
    out: mpsc::Receiver<Vec<u8>>,
    keys: Box<dyn Write + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
    // Kept open until the end: dropping the master hangs the terminal up.
    _master: Box<dyn portable_pty::MasterPty + Send>,
}

impl Term {
    fn spawn(args: &[&str]) -> Term {
        let pair = native_pty_system()
            .openpty(PtySize { rows: ROWS, cols: COLS, pixel_width: 0, pixel_height: 0 })
            .expect("open a pseudo-terminal");
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_gin"));
        cmd.args(args);
        cmd.env("TERM", "xterm-256color");
        let child = pair.slave.spawn_command(cmd).expect("start gin in the pseudo-terminal");
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().expect("terminal reader");
        let keys = pair.master.take_writer().expect("terminal writer");
        let (tx, out) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            loop {
                match reader.read(&mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => {
                        if tx.send(buf[..n].to_vec()).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let size = |n| std::num::NonZeroU16::new(n).expect("a terminal size");
        Term { parser: vt100::Parser::new(size(ROWS), size(COLS), 0), out, keys, child, _master: pair.master }
    }

    /// Takes in what the program wrote, for up to `wait`, and then until it has been quiet
    /// for a moment: a frame reaches the terminal in pieces (the pty hands it over in
    /// chunks), and a screen read between two pieces mixes two frames (a prompt of the new
    /// one over the hand of the old: a key pressed for a card that moved).
    fn pump(&mut self, wait: Duration) {
        if let Ok(bytes) = self.out.recv_timeout(wait) {
            self.parser.process(&bytes);
            while let Ok(bytes) = self.out.recv_timeout(Duration::from_millis(15)) {
                self.parser.process(&bytes);
            }
        }
    }

    fn rows(&self) -> Vec<String> {
        self.parser.screen().rows(0, COLS).collect()
    }

    fn text(&self) -> String {
        self.rows().join("\n")
    }

    fn press(&mut self, keys: &str) {
        self.keys.write_all(keys.as_bytes()).expect("type into the terminal");
        self.keys.flush().expect("type into the terminal");
    }

    /// Waits until `done` holds for the screen's text (or `limit` passes); whether it did.
    fn wait_for(&mut self, limit: Duration, done: impl Fn(&str) -> bool) -> bool {
        let start = Instant::now();
        loop {
            if done(&self.text()) {
                return true;
            }
            if start.elapsed() >= limit {
                return false;
            }
            self.pump(Duration::from_millis(20));
        }
    }

    /// Waits for the program to end; its exit code.
    fn wait_exit(&mut self, limit: Duration) -> u32 {
        let start = Instant::now();
        loop {
            self.pump(Duration::from_millis(20));
            if let Some(status) = self.child.try_wait().expect("child status") {
                // What it wrote last (the note on leaving, the restored screen).
                self.pump(Duration::from_millis(200));
                return status.exit_code();
            }
            assert!(start.elapsed() < limit, "gin did not exit; screen:\n{}", self.text());
        }
    }
}

impl Drop for Term {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

/// The label (a-k) of `card` (as the screen writes it, e.g. "A♥") in the hand's box.
fn label_of(rows: &[String], card: &str) -> Option<char> {
    let r = rows.iter().position(|r| r.contains("│ a   b   c"))?;
    let cards: Vec<char> = rows.get(r + 1)?.chars().collect();
    let labels: Vec<char> = rows[r].chars().collect();
    let want: Vec<char> = card.chars().collect();
    let col = (0..cards.len()).find(|&i| cards[i..].starts_with(&want))?;
    labels.get(col).copied().filter(char::is_ascii_lowercase)
}

/// The first card the prompt offers to knock with ("… · K knock with A♥ K♠").
fn knock_card(rows: &[String]) -> Option<String> {
    let line = rows.iter().find(|r| r.contains("K knock with "))?;
    let rest = line.split("K knock with ").nth(1)?;
    Some(rest.split_whitespace().next()?.trim_end_matches('│').to_string())
}

#[test]
fn labels_and_knock_cards_are_read_off_the_screen() {
    let rows: Vec<String> = [
        "│ a   b   c   d   e   f   g   h   i   j   k       │",
        "│ 2♣  3♣  4♣  5♦  7♦  8♦  9♦  A♥  5♥  5♠  K♠      │",
        "│Enter discard · K knock with A♥ K♠               │",
    ]
    .map(String::from)
    .to_vec();
    assert_eq!(label_of(&rows, "2♣"), Some('a'));
    assert_eq!(label_of(&rows, "A♥"), Some('h'));
    assert_eq!(label_of(&rows, "K♠"), Some('k'));
    assert_eq!(label_of(&rows, "Q♠"), None);
    assert_eq!(knock_card(&rows).as_deref(), Some("A♥"));
}

/// What the test's player did, in all.
#[derive(Default, Debug)]
struct Played {
    passes: u32,
    draws: u32,
    discards: u32,
    knocks: u32,
    hands_closed: u32,
}

enum Stop {
    /// Quit halfway (after this many discards), to come back.
    After(u32),
    /// Play to the end.
    GameOver,
}

/// What the screen asks of the player now.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ask {
    GameOver,
    HandOver,
    ConfirmKnock,
    Upcard,
    Draw,
    Discard,
    Nothing,
}

fn ask(text: &str) -> Ask {
    if text.contains("game over: ") && text.contains("Game over") {
        Ask::GameOver
    } else if text.contains("Space: continue") {
        Ask::HandOver
    } else if text.contains("y: knock") {
        Ask::ConfirmKnock
    } else if text.contains("Your turn: the upcard") {
        Ask::Upcard
    } else if text.contains("Your turn: draw") {
        Ask::Draw
    } else if text.contains("Your turn: pick a card") {
        Ask::Discard
    } else {
        Ask::Nothing
    }
}

/// Plays by the screen until `stop`; returns the final screen's text when the game is over.
/// After each answer it waits for the screen to ask something else, so no key is pressed
/// twice for one question.
fn play(t: &mut Term, played: &mut Played, stop: Stop) -> Option<String> {
    let start = Instant::now();
    let mut knock_tries = 0;
    loop {
        assert!(start.elapsed() < Duration::from_secs(60), "the game stalled; screen:\n{}", t.text());
        t.pump(Duration::from_millis(20));
        let rows = t.rows();
        let text = rows.join("\n");
        let now = ask(&text);
        if now == Ask::GameOver {
            return Some(text);
        }
        if let Stop::After(n) = stop
            && played.discards >= n
            && matches!(now, Ask::Upcard | Ask::Draw | Ask::Discard)
        {
            t.press("q");
            assert!(
                t.wait_for(Duration::from_secs(5), |s| s.contains("y: quit")),
                "q asks to confirm:\n{}",
                t.text()
            );
            t.press("y");
            return None;
        }
        let keys = match now {
            Ask::HandOver => {
                played.hands_closed += 1;
                " ".to_string()
            }
            Ask::ConfirmKnock => {
                played.knocks += 1;
                "y".to_string()
            }
            Ask::Upcard => {
                played.passes += 1;
                "p".to_string()
            }
            Ask::Draw => {
                played.draws += 1;
                "s".to_string()
            }
            Ask::Discard => match knock_card(&rows).and_then(|c| label_of(&rows, &c)) {
                // Knock when the prompt offers it (the window asks to confirm).
                Some(label) if knock_tries < 3 => {
                    knock_tries += 1;
                    format!("{label}K")
                }
                _ => {
                    played.discards += 1;
                    // The first card: any card may go after a draw from the stock.
                    "a\r".to_string()
                }
            },
            Ask::GameOver | Ask::Nothing => continue,
        };
        t.press(&keys);
        let answered = t.wait_for(Duration::from_secs(10), |s| ask(s) != now);
        assert!(answered, "no answer to {keys:?} at {now:?}; screen:\n{}", t.text());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn full_screen_client_plays_leaves_comes_back_and_finishes_a_game() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("g.db")).await;
    let url = server.url();
    let client = gin_sdk::Client::connect(&url).await.unwrap();
    let seated = client
        .create_game(pb::CreateGameRequest {
            name: "tester".into(),
            house_bot: "simple".into(),
            seed: 11,
            ..Default::default()
        })
        .await
        .unwrap();
    let (id, token) = (seated.game_id.clone(), seated.token.clone());

    let (u, i, k) = (url.clone(), id.clone(), token.clone());
    let (played, first_screen, left_screen, final_screen) = tokio::task::spawn_blocking(move || {
        let args = ["play", "--server", u.as_str(), "--join", i.as_str(), "--token", k.as_str()];
        let mut played = Played::default();
        let mut t = Term::spawn(&args);
        // The full screen comes up with the game: the header names both players.
        assert!(
            t.wait_for(Duration::from_secs(20), |s| s.contains("tester (you)")),
            "no game on the screen:\n{}",
            t.text()
        );
        let first_screen = t.text();
        assert!(t.parser.screen().alternate_screen(), "the game is drawn on the alternate screen");
        assert!(play(&mut t, &mut played, Stop::After(6)).is_none());
        assert_eq!(t.wait_exit(Duration::from_secs(10)), 0, "quitting exits 0");
        assert!(!t.parser.screen().alternate_screen(), "the terminal is given back on quitting");
        let left_screen = t.text();

        // Back to the same seat, and on to the end.
        let mut t = Term::spawn(&args);
        play(&mut t, &mut played, Stop::GameOver).expect("game over");
        // The server ends the game's streams after the game over; the screen stays quiet
        // (it used to say "connection lost … reconnecting" and keep reconnecting).
        let start = Instant::now();
        while start.elapsed() < Duration::from_millis(1500) {
            t.pump(Duration::from_millis(50));
        }
        let final_screen = t.text();
        t.press("q");
        assert_eq!(t.wait_exit(Duration::from_secs(10)), 0, "q at game over exits 0");
        assert!(!t.parser.screen().alternate_screen(), "the terminal is given back at the end");
        (played, first_screen, left_screen, final_screen)
    })
    .await
    .unwrap();

    assert!(first_screen.contains("simple (bot)"), "{first_screen}");
    assert!(first_screen.contains(&format!("game {}", &id[..8])), "{first_screen}");
    // Leaving keeps the seat and says how to come back.
    assert!(
        left_screen.contains(&format!("gin play --join {id} --token {token}")),
        "the way back is printed on leaving:\n{left_screen}"
    );
    assert!(played.discards > 6 && played.draws > 6, "{played:?}");
    assert!(played.hands_closed >= 1, "at least one hand ended before the game: {played:?}");

    // The screen's final score is the server's record of the game.
    let record = client.get_record(&id).await.unwrap();
    let result = record.result.expect("a finished game's result");
    // The popup's line is the longest (the prompt's copy of it is cut by the popup).
    let line = final_screen
        .split("│game over: ")
        .skip(1)
        .map(|l| l.split('│').next().unwrap().trim())
        .max_by_key(|l| l.len())
        .expect("the game over line")
        .to_string();
    let totals = format!("tester {} - {} simple", result.totals[0], result.totals[1]);
    let expected = match result.winner {
        Some(0) => format!("you won {totals}"),
        Some(1) => format!("simple won {totals}"),
        _ => format!("a draw {totals}"),
    };
    assert_eq!(line, expected, "screen:\n{final_screen}");
    assert!(
        !final_screen.contains("connection lost"),
        "the end of the game is not a lost connection:\n{final_screen}"
    );
    assert!(!final_screen.contains("connection ended"), "{final_screen}");
    // Each answer became exactly one action of the seat's, none lost, none doubled.
    let mut mine = std::collections::BTreeMap::<&str, u32>::new();
    for line in record.record_text.lines() {
        if let Some(action) = line.strip_prefix("0 ") {
            *mine.entry(action.split_whitespace().next().unwrap()).or_default() += 1;
        }
    }
    let pressed = [
        ("discard", played.discards),
        ("knock", played.knocks),
        ("pass", played.passes),
        ("stock", played.draws),
    ];
    assert_eq!(mine, pressed.into_iter().filter(|p| p.1 > 0).collect(), "{played:?}\n{}", record.record_text);
    // Seed 11 deals the player a knock (offered on the prompt, taken with K and y).
    assert_eq!(played.knocks, 1, "{played:?}");
    server.stop().await;
}
