//! `gin-bot bridge` against a real server on a loopback socket: the example bot of
//! `examples/bridge/` (Python, no dependencies) plays complete games against a house bot, and
//! a program that answers garbage, exits or stays silent stops the bridge with a clear error
//! (never a hang) after resigning the game.

use std::time::Duration;

use gin_proto::v1 as pb;
use gin_sdk::Client;

use crate::common::Server;

/// Runs `gin-bot` with `args` (RUST_BACKTRACE off: errors are one line); returns its stdout,
/// stderr and success. A hang fails the test.
async fn gin_bot(args: &[&str]) -> (String, String, bool) {
    let out = tokio::time::timeout(
        Duration::from_secs(120),
        tokio::process::Command::new(env!("CARGO_BIN_EXE_gin-bot"))
            .args(args)
            .env("RUST_BACKTRACE", "0")
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("gin-bot bridge finished (no hang)")
    .unwrap();
    (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap(), out.status.success())
}

fn example_bot() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/bridge/bot.py");
    assert!(path.exists(), "{} is missing", path.display());
    format!("python3 {}", path.display())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_example_bot_plays_complete_games_against_a_house_bot() {
    let server = Server::start().await;
    let url = server.url();
    let client = Client::connect(&url).await.unwrap();
    let cmd = example_bot();
    let (out, err, ok) =
        gin_bot(&["bridge", "--cmd", &cmd, "--server", &url, "--vs-bot", "simple", "--games", "3"]).await;
    assert!(ok, "bridge failed:\n{out}\n{err}");
    let results: Vec<&str> = out.lines().filter(|l| l.starts_with('[')).collect();
    assert_eq!(results.len(), 3, "{out}");
    for line in &results {
        assert!(line.contains("result checked against GetRecord"), "{line}");
        let game = line.split_whitespace().nth(1).unwrap();
        let rec = client.get_record(game).await.unwrap();
        let r = rec.result.unwrap();
        assert_eq!(r.reason, pb::GameEndReason::Target as i32, "{game}: {r:?}");
        assert!(r.totals.iter().max().unwrap() >= &100, "{game}: {r:?}");
        // The program played seat 0 (its actions are in the record), the house bot seat 1.
        let snap = client.get_game(game, "").await.unwrap();
        assert!(snap.seats[1].bot && !snap.seats[0].bot, "{game}: {:?}", snap.seats);
        assert!(
            rec.record_text.lines().any(|l| l.starts_with("0 discard")),
            "{game}: seat 0 never discarded"
        );
    }
    // The program saw every game end (the example bot reports each `gameover` line on stderr).
    assert_eq!(err.matches("bridge example bot: game over").count(), 3, "{err}");
    assert!(out.contains("3 games:") && out.contains("the program exited (exit status: 0)"), "{out}");
    server.stop().await;
}

/// The game id named in the bridge's error (`[1/1] game <id>: …`).
fn failed_game(err: &str) -> String {
    let i = err.find("] game ").unwrap_or_else(|| panic!("no game in {err}"));
    err[i + 7..].split(':').next().unwrap().to_string()
}

/// Runs the bridge with `cmd` against a house bot; it must fail with `expected` in its error,
/// and the game must be over, resigned by the bridge's seat.
async fn fails_with(server: &Server, cmd: &str, extra: &[&str], expected: &str) {
    let url = server.url();
    let mut args = vec!["bridge", "--cmd", cmd, "--server", &url, "--vs-bot", "simple", "--games", "2"];
    args.extend_from_slice(extra);
    let started = std::time::Instant::now();
    let (out, err, ok) = gin_bot(&args).await;
    assert!(!ok, "`{cmd}` should fail the bridge:\n{out}\n{err}");
    assert!(err.contains(expected), "`{cmd}`: expected {expected:?} in:\n{err}");
    assert!(started.elapsed() < Duration::from_secs(30), "`{cmd}` took {:?}", started.elapsed());
    let game = failed_game(&err);
    let client = Client::connect(&url).await.unwrap();
    let snap = client.get_game(&game, "").await.unwrap();
    assert_eq!(snap.phase, pb::Phase::GameOver as i32, "{game} not over after `{cmd}`");
    let r = snap.result.unwrap();
    assert_eq!(r.reason, pb::GameEndReason::Resigned as i32, "{game}: {r:?}");
    assert_eq!(r.loser_by_default, Some(0), "{game}: {r:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_answer_is_a_clear_error_and_the_game_is_resigned() {
    let server = Server::start().await;
    // Garbage.
    let garbage = "while read l; do case $l in legal*) echo garbage;; esac; done";
    let cmd = format!("sh -c '{garbage}'");
    fails_with(&server, &cmd, &[], "bad answer from the bot program: \"garbage\" is not an action").await;
    // A well-formed action that is not legal now (the first turn offers pass or pile).
    let illegal = "while read l; do case $l in legal*) echo discard AS;; esac; done";
    let cmd = format!("sh -c '{illegal}'");
    fails_with(&server, &cmd, &[], "\"discard AS\" is not legal now").await;
    // A line nobody asked for, before the first turn.
    let chatty = "echo hello; while read l; do case $l in legal*) echo pass;; esac; done";
    let cmd = format!("sh -c '{chatty}'");
    // (Usually "wrote \"hello\" when no answer was asked"; "\"hello\" is not an action" if the
    // line reaches the bridge after its first question.)
    fails_with(&server, &cmd, &[], "\"hello\"").await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_that_exits_or_stays_silent_is_an_error_not_a_hang() {
    let server = Server::start().await;
    fails_with(&server, "true", &[], "the bot program is gone: `true` exited (exit status: 0)").await;
    fails_with(&server, "exit 3", &[], "exited (exit status: 3)").await;
    fails_with(
        &server,
        "cat > /dev/null",
        &["--timeout-ms", "300"],
        "did not answer: no action within 300ms",
    )
    .await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_example_bot_plays_rummy_and_a_team_game_and_sees_every_table_event() {
    let server = Server::start().await;
    let url = server.url();
    let client = Client::connect(&url).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    // The example bot behind a tee: every line the bridge wrote to it is kept.
    let seen = dir.path().join("seen.txt");
    let cmd = format!("tee -a {} | {}", seen.display(), example_bot());
    // Rummy against the house's `strong` (its table search), teams against `simple`.
    for (rules, players, n, house) in [("rummy", "3", 3usize, "strong"), ("teams", "4", 4, "simple")] {
        let (out, err, ok) = gin_bot(&[
            "bridge",
            "--cmd",
            &cmd,
            "--server",
            &url,
            "--rules",
            rules,
            "--players",
            players,
            "--vs-bot",
            house,
            "--games",
            "2",
        ])
        .await;
        assert!(ok, "{rules}: bridge failed:\n{out}\n{err}");
        let results: Vec<&str> = out.lines().filter(|l| l.starts_with('[')).collect();
        assert_eq!(results.len(), 2, "{out}");
        for line in &results {
            assert!(line.contains("result checked against GetRecord"), "{line}");
            let game = line.split_whitespace().nth(1).unwrap();
            let rec = client.get_record(game).await.unwrap();
            let r = rec.result.unwrap();
            assert_eq!(r.reason, pb::GameEndReason::Target as i32);
            assert_eq!(r.table_totals.len(), n);
            // The program's moves are seat 0's in the record.
            let record = engine::TableRecord::parse(&rec.record_json).unwrap();
            assert!(record.moves.iter().any(|m| m.seat == 0), "{game}");
            assert!(line.contains(&format!("place {}", r.places[0])), "{line}");
        }
    }
    let lines = std::fs::read_to_string(&seen).unwrap();
    let starts = |w: &str| lines.lines().filter(|l| l.starts_with(w)).count();
    assert_eq!(starts("table "), 4, "a table line per game:\n{lines}");
    assert!(starts("meld ") > 0 && starts("melds") > 0, "rummy's melds reach the program");
    assert!(starts("tablehandover ") >= 4, "every hand's end");
    assert!(lines.lines().any(|l| l.starts_with("legal ") && l.contains("meld:")), "meld tokens offered");
    assert_eq!(starts("gameover "), 4);
}

/// The lines of a recorded session: `(kind, words)`.
fn session(path: &std::path::Path) -> Vec<(String, Vec<String>)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace().map(String::from);
            Some((w.next()?, w.collect()))
        })
        .collect()
}

fn card_set(words: &[String]) -> engine::CardSet {
    words.iter().map(|c| c.parse::<engine::Card>().unwrap()).collect()
}

/// A program that records every line it is sent (`tee`) and plays with the example bot:
/// every hand's showdown it was told (who knocked, the face-down discard, both sides' melds,
/// deadwood and lay-offs, both hands) is the engine's replay of the game's record; the
/// `game` line carries every rule; each event line comes after an `at <seq> <time>` line
/// with increasing seqs and times.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recording_program_is_told_every_showdown_and_every_rule() {
    let server = Server::start().await;
    let url = server.url();
    let client = Client::connect(&url).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let rec_path = dir.path().join("session.txt");
    let cmd = format!("tee {} | {}", rec_path.display(), example_bot());
    let (out, err, ok) = gin_bot(&[
        "bridge", "--cmd", &cmd, "--server", &url, "--vs-bot", "simple", "--games", "2", "--seat", "1",
        "--seed", "41",
    ])
    .await;
    assert!(ok, "bridge failed:\n{out}\n{err}");
    let lines = session(&rec_path);
    assert_eq!(lines[0], ("bridge".to_string(), vec!["2".to_string()]));
    let games: Vec<&Vec<String>> = lines.iter().filter(|(k, _)| k == "game").map(|(_, w)| w).collect();
    assert_eq!(games.len(), 2);
    let mut showdowns = 0;
    for (g, words) in games.iter().enumerate() {
        let (id, seat) = (&words[0], &words[1]);
        assert_eq!(seat, "1", "--seat 1");
        let r = engine::RuleSet::preset("standard").unwrap();
        for rule in [
            format!("gin_bonus={}", r.gin_bonus),
            format!("big_gin={}", u8::from(r.big_gin)),
            format!("big_gin_bonus={}", r.big_gin_bonus),
            format!("undercut_bonus={}", r.undercut_bonus),
            format!("knock_limit={}", r.knock_limit),
            format!("target={}", r.target),
        ] {
            assert!(words.contains(&rule), "{rule} in {words:?}");
        }
        let rec = client.get_record(id).await.unwrap();
        let record = engine::GameRecord::from_json(&rec.record_json).unwrap();
        assert_eq!(record.setup.seed, 41 + g as u64, "--seed: game i is dealt from SEED+i");
        let game = record.replay().unwrap();
        // This game's lines: from its `game` line to the next.
        let start = lines.iter().position(|(k, w)| k == "game" && &w[0] == id).unwrap();
        let end =
            lines[start + 1..].iter().position(|(k, _)| k == "game").map_or(lines.len(), |e| start + 1 + e);
        let mine = &lines[start..end];
        // `at` lines: increasing seqs and times, each followed by an event line.
        let ats: Vec<(u64, i64)> = mine
            .iter()
            .filter(|(k, _)| k == "at")
            .map(|(_, w)| (w[0].parse().unwrap(), w[1].parse().unwrap()))
            .collect();
        assert!(ats.len() > 20, "{} at lines", ats.len());
        assert!(ats.windows(2).all(|p| p[1].0 > p[0].0 && p[1].1 >= p[0].1), "{ats:?}");
        for (i, (k, _)) in mine.iter().enumerate() {
            if k == "at" {
                let next = &mine[i + 1].0;
                assert!(
                    !["at", "turn", "hand", "legal"].contains(&next.as_str()),
                    "an event after `at`: {next}"
                );
            }
        }
        for h in game.hands() {
            let Some(sd) = &h.result.showdown else { continue };
            showdowns += 1;
            let at = mine
                .iter()
                .position(|(k, w)| k == "showdown" && w[0] == h.number.to_string())
                .unwrap_or_else(|| panic!("hand {} of {id}: no showdown line", h.number));
            let block = &mine[at..at + 8];
            let knocker = sd.knocker.index().to_string();
            let defender = sd.knocker.other().index().to_string();
            let discard = sd.discard.map_or("-".to_string(), |c| c.to_string());
            assert_eq!(block[0].1, vec![h.number.to_string(), knocker.clone(), discard]);
            for (j, seat, arr, deadwood) in [
                (1, &knocker, &sd.knocker_arrangement, sd.knocker_deadwood),
                (3, &defender, &sd.defender_arrangement, sd.defender_deadwood),
            ] {
                let (kind, w) = &block[j];
                assert_eq!((kind.as_str(), &w[0], &w[1]), ("melds", seat, &deadwood.to_string()));
                let melds: Vec<engine::CardSet> = w[2..]
                    .iter()
                    .map(|m| m.split(',').map(|c| c.parse::<engine::Card>().unwrap()).collect())
                    .collect();
                let want: Vec<engine::CardSet> = arr.melds().iter().map(|m| m.cards()).collect();
                assert_eq!(melds, want, "hand {}: melds of seat {seat}", h.number);
                assert_eq!(block[j + 1].0, "deadwood");
                assert_eq!(&block[j + 1].1[0], seat);
                assert_eq!(card_set(&block[j + 1].1[1..]), arr.deadwood_cards());
            }
            assert_eq!(block[5].0, "layoffs");
            let layoffs: Vec<String> = sd.layoffs.iter().map(|l| format!("{}:{}", l.card, l.meld)).collect();
            assert_eq!(block[5].1, layoffs);
            assert_eq!((block[6].0.as_str(), &block[6].1[0]), ("revealed", &knocker));
            assert_eq!(card_set(&block[6].1[1..]), sd.knocker_arrangement.cards());
            let laid_off: engine::CardSet = sd.layoffs.iter().map(|l| l.card).collect();
            assert_eq!(card_set(&block[7].1[1..]), sd.defender_arrangement.cards() | laid_off);
            // All of it is the hand's end event: after its `at` line, before `handover`.
            assert_eq!(mine[at - 1].0, "at");
            assert_eq!(mine[at + 8].0, "handover", "{:?}", &mine[at..at + 9]);
        }
    }
    assert!(showdowns >= 2, "whole games have knocks");
    server.stop().await;
}

/// A program with a quirk (`mode`), else the example bot's play: `stray` prints a debug line
/// before each answer; `illegal-once` answers its first question with a move that is not
/// legal (and says on stderr what the bridge told it); `illegal-first-game` does so all
/// through its first game; `bad-melds` names melds it does not hold at its first knock, then, told
/// `refused`, knocks plainly.
fn quirky(dir: &std::path::Path, mode: &str) -> String {
    let script = dir.join("quirky.py");
    let bot_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/bridge");
    std::fs::write(
        &script,
        format!(
            r#"import sys
sys.path.insert(0, {bot_dir:?})
from bot import choose
mode = sys.argv[1]
hand, pile, asked, games, knocked = [], [], 0, 0, False
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    kind, args = words[0], words[1:]
    if kind in ("error", "refused"):
        print("quirky was told: " + line.strip(), file=sys.stderr, flush=True)
    if kind == "game":
        games += 1
    elif kind == "hand":
        hand = args
    elif kind == "pile":
        pile = args
    elif kind == "legal":
        asked += 1
        answer = choose(args, hand, pile)
        if mode == "stray":
            print("debug: thinking about " + answer, flush=True)
        if mode == "illegal-once" and asked == 1:
            answer = "discard AS"
        if mode == "illegal-first-game" and games == 1:
            answer = "discard AS"
        if mode == "bad-melds" and answer.startswith("knock:") and kind == "legal" and not knocked:
            knocked = True
            # A set of three cards, one of them not in the hand: refused whatever the deal.
            absent = next(r + s for r in "A23456789TJQK" for s in "CDHS" if r + s not in hand)
            others = [absent[0] + s for s in "CDHS" if s != absent[1]][:2]
            answer = "knock " + answer[6:] + " [" + " ".join([absent] + others) + "]"
        print(answer, flush=True)
"#
        ),
    )
    .unwrap();
    format!("python3 {} {mode}", script.display())
}

/// Runs the bridge with `cmd` against `simple` for `games` games with `extra` flags:
/// (stdout, stderr), having checked it succeeded.
async fn bridge_ok(server: &Server, cmd: &str, games: &str, extra: &[&str]) -> (String, String) {
    let url = server.url();
    let mut args = vec!["bridge", "--cmd", cmd, "--server", &url, "--vs-bot", "simple", "--games", games];
    args.extend_from_slice(extra);
    let (out, err, ok) = gin_bot(&args).await;
    assert!(ok, "`{cmd}` {extra:?} failed:\n{out}\n{err}");
    (out, err)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lenient_bridge_reports_stray_lines_and_bad_answers_and_plays_on() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    // Debug prints before every answer: each reported with its text, none fatal.
    let (out, err) = bridge_ok(&server, &quirky(dir.path(), "stray"), "1", &["--on-error", "skip"]).await;
    assert!(out.contains("1 games: "), "{out}");
    assert!(err.contains("wrote \"debug: thinking about") && err.contains("ignored"), "{err}");
    // Without a lenient mode the same program stops the bridge.
    let url = server.url();
    let cmd = quirky(dir.path(), "stray");
    let (_, err, ok) = gin_bot(&["bridge", "--cmd", &cmd, "--server", &url, "--vs-bot", "simple"]).await;
    assert!(!ok && err.contains("debug: thinking about"), "{err}");
    // One illegal answer under skip: the program is told, a safe move is played, the game
    // goes on to its end.
    let (out, err) =
        bridge_ok(&server, &quirky(dir.path(), "illegal-once"), "1", &["--on-error", "skip"]).await;
    assert!(out.contains("result checked against GetRecord"), "{out}");
    assert!(
        err.contains("quirky was told: error ") && err.contains("\"discard AS\" is not legal now"),
        "{err}"
    );
    assert!(err.contains("a safe move was played instead"), "{err}");
    // Illegal answers in the first game under resign-game: it is resigned, the second is
    // played to its end.
    let (out, err) =
        bridge_ok(&server, &quirky(dir.path(), "illegal-first-game"), "2", &["--on-error", "resign-game"])
            .await;
    assert!(err.contains("[1/2] game ") && err.contains("(the game was resigned; going on)"), "{err}");
    assert!(out.contains("[2/2] ") && out.contains("1 resigned after a bad answer"), "{out}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn melds_the_server_refuses_are_told_to_the_program_never_replaced() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    // Seeded deals, so the program surely reaches a knock (it knocks at its first chance).
    let (out, err) = bridge_ok(&server, &quirky(dir.path(), "bad-melds"), "2", &["--seed", "11"]).await;
    assert!(out.contains("[2/2] ") && out.contains("result checked against GetRecord"), "{out}");
    // The program was told why, and answered again (a plain knock), in the same turn.
    assert!(err.contains("quirky was told: refused "), "{err}");
    server.stop().await;
}

/// `gin-bot bridge --ladder`: the example program plays the rated ladder as a bot account
/// (here against the house bots, nobody else queued), two games, each rated.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_example_bot_plays_the_ladder_through_the_bridge() {
    let server = Server::start_with(|c| gin_server::Config {
        ladder_house_bots: true,
        ladder_house_after: Duration::from_millis(200),
        ..c
    })
    .await;
    let url = server.url();
    let client = gin_sdk::Client::connect(&url).await.unwrap();
    let token = client.register("Bridged", pb::AccountKind::Bot, "", "").await.unwrap().token;
    let cmd = example_bot();
    let args =
        ["bridge", "--ladder", "--cmd", &cmd, "--server", &url, "--account-token", &token, "--games", "2"];
    let (out, err, ok) = gin_bot(&args).await;
    assert!(ok, "stdout:\n{out}\nstderr:\n{err}");
    assert!(
        out.starts_with("ladder gin/standard: rating 1500 ±350 provisional after 0 rated games; 1 waiting\n"),
        "{out}"
    );
    assert_eq!(out.lines().filter(|l| l.starts_with("[1] ") || l.starts_with("[2] ")).count(), 2, "{out}");
    assert!(out.contains("house-"), "its opponents are the house bots: {out}");
    assert!(out.contains("ladder gin/standard: 2 games, "), "{out}");
    let r = client.player_ratings("Bridged").await.unwrap();
    let games = r.ratings.iter().find(|p| p.pool == "gin/standard").map(|p| p.games);
    assert_eq!(games, Some(2), "{r:?}");
    // Without an account, the ladder is refused before the program starts.
    let (_, err, ok) = gin_bot(&["bridge", "--ladder", "--cmd", &cmd, "--server", &url]).await;
    assert!(!ok && err.contains("--account-token"), "{err}");

    // --accept-challenges: a rival's challenge, taken and played to its end by the program.
    let rival = client.register("Rival", pb::AccountKind::Bot, "", "").await.unwrap().token;
    let rival = Client::connect(&url).await.unwrap().with_account_token(Some(rival));
    let c = rival
        .create_challenge(pb::CreateChallengeRequest { opponent: "bridged".into(), ..Default::default() })
        .await
        .unwrap();
    let plays = tokio::spawn(async move {
        let mut stream = rival.watch_challenges().await.unwrap();
        let game = loop {
            let m = stream.message().await.unwrap().expect("the stream lasts");
            if let Some(x) = m.challenge.filter(|x| x.challenge_id == c.challenge_id && !x.game_id.is_empty())
            {
                break x.game_id;
            }
        };
        let token = rival.account_token().unwrap().to_owned();
        let mut s = gin_strategies::random::RandomStrategy::new(2);
        rival.play(&game, &token, &mut s).await.unwrap()
    });
    let args = ["bridge", "--accept-challenges", "--cmd", &cmd, "--server", &url, "--account-token", &token];
    let (out, err, ok) = gin_bot(&args).await;
    assert!(ok, "stdout:\n{out}\nstderr:\n{err}");
    assert!(out.starts_with("challenge from Rival: game "), "{out}");
    assert!(out.contains("challenges: 1 games, "), "{out}");
    let theirs = plays.await.unwrap();
    assert_eq!(theirs.result.reason, pb::GameEndReason::Target as i32, "played to its end");
    server.stop().await;
}
