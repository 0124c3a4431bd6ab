//! Every format verifiable: a whole game of each format and table size is played on a real
//! server (a simple table strategy over the SDK at seat 0, house bots at the others), then the
//! real `gin verify` checks it from the server (the record, the reveals, the seed's salt, and
//! the commitments the spectator's stream published at each deal) and saves it, checks the
//! saved file offline, and fails a saved file whose seed or deal was tampered with; with seat
//! 0's token, every card seat 0 drew (as its stream showed it) is checked against the record.
//! At gin for 3 to 6 at one table and at rummy, some game turns its pile into the stock, and
//! the report says the committed seed fixed those turns.

use engine::Format;
use engine::gin7::Gin7End;
use engine::rummy::RummyEnd;
use gin_proto::v1 as pb;

use crate::common::{Server, gin};

/// The format document for `kind` at `players`, short games (`hands` hands, or a target of
/// 50 at the two-player kinds).
fn format(kind: &str, players: u8, hands: u32) -> String {
    let f = match Format::preset(kind).unwrap().with_players(players).unwrap() {
        Format::Gin7(mut r) => {
            r.end = Gin7End::Hands(hands);
            Format::Gin7(r)
        }
        Format::Rummy(mut r) => {
            r.end = RummyEnd::Hands(hands);
            Format::Rummy(r)
        }
        Format::ThreePlayer(mut r) => {
            r.target = 50;
            Format::ThreePlayer(r)
        }
        Format::Teams(mut r) => {
            r.target = 50;
            Format::Teams(r)
        }
        Format::Gin(mut r) => {
            r.target = 50;
            Format::Gin(r)
        }
    };
    f.to_value().to_string()
}

/// Plays a game of `format` (a document; `players` seats) to its end: seat 0 by a simple
/// table strategy over the SDK, the others by the server's simple house bot. Its id and seat
/// 0's token.
async fn play(url: &str, format: &str, players: u8) -> (String, String) {
    let client = gin_sdk::Client::connect(url).await.unwrap();
    let seated = client
        .create_table(pb::CreateGameRequest {
            format: format.to_string(),
            players: u32::from(players),
            house_bot: "simple".into(),
            name: "tester".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    let kind = Format::parse_any(format).unwrap().kind().name().to_string();
    let mut bot = gin_sdk::table_strategy_for("simple", &kind, 1).unwrap();
    let played = tokio::time::timeout(
        std::time::Duration::from_secs(120),
        client.play_table(&seated.game_id, &seated.token, bot.as_mut()),
    )
    .await
    .expect("the game ends within two minutes")
    .unwrap();
    assert!(played.hands > 0);
    (seated.game_id, seated.token)
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `gin verify` of game `id` from the server (saved), then of the saved file, then of tampered
/// copies; then as seat 0 (`token`) saw it, its draws checked. The turns of the pile the report
/// says the seed fixed, and how many of seat 0's draws came after one.
async fn verify_everywhere(url: &str, id: &str, token: &str, dir: &std::path::Path) -> (u32, u32) {
    let saved = dir.join(format!("{id}.json"));
    let (u, i, s) = (url.to_string(), id.to_string(), saved.clone());
    let o = tokio::task::spawn_blocking(move || {
        gin(&["verify", &i, "--server", &u, "--save", s.to_str().unwrap()])
    })
    .await
    .unwrap();
    let out = stdout(&o);
    assert!(o.status.success(), "{out}{}", String::from_utf8_lossy(&o.stderr));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], format!("game {id}"));
    assert!(
        lines[1].starts_with(
            "seed: ok (seed, salt and commitment agree, as published with the first deal and every other: "
        ),
        "{out}"
    );
    let hands = lines.iter().filter(|l| l.starts_with("hand ")).count();
    assert!(hands > 0, "{out}");
    assert!(
        lines
            .iter()
            .filter(|l| l.starts_with("hand "))
            .all(|l| l.ends_with(": ok (deck, salt and commitment agree, as published at the deal)")),
        "{out}"
    );
    assert_eq!(lines.last().unwrap(), &format!("all {hands} deals verified"), "{out}");
    let turns = lines[1]
        .split(": it fixed the ")
        .nth(1)
        .map_or(0, |t| t.split(' ').next().unwrap().parse::<u32>().unwrap());

    // The saved file verifies offline, to the same report.
    let o = gin(&["verify", saved.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stdout(&o));
    assert_eq!(stdout(&o), out);

    // `gin replay` reads the saved file: the same report as of the record inside it.
    let j: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    let record = dir.join(format!("{id}-record.json"));
    std::fs::write(&record, j["record"].to_string()).unwrap();
    let of_record = gin(&["replay", record.to_str().unwrap()]);
    assert!(of_record.status.success(), "{}", String::from_utf8_lossy(&of_record.stderr));
    let of_saved = gin(&["replay", saved.to_str().unwrap()]);
    assert!(of_saved.status.success(), "{}", String::from_utf8_lossy(&of_saved.stderr));
    assert_eq!(stdout(&of_saved), stdout(&of_record));
    assert!(stdout(&of_saved).contains("hand 1"), "{}", stdout(&of_saved));

    // Tampered: the seed's salt (the record's seed no longer matches its commitment), and a
    // hand's salt.
    let j: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    let bad = dir.join(format!("{id}-bad.json"));
    let mut b = j.clone();
    b["seed"]["salt"] = serde_json::Value::String("00".repeat(32));
    std::fs::write(&bad, b.to_string()).unwrap();
    let o = gin(&["verify", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("seed: FAILED: the record's seed and the salt do not match"),
        "{}",
        stdout(&o)
    );
    let mut b = j;
    b["hands"][hands - 1]["salt"] = serde_json::Value::String("00".repeat(32));
    std::fs::write(&bad, b.to_string()).unwrap();
    let o = gin(&["verify", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).contains(&format!("hand {hands}: FAILED")), "{}", stdout(&o));

    // As seat 0 saw it: every card it drew is the record's.
    let mine = dir.join(format!("{id}-seat.json"));
    let (u, i, t, s) = (url.to_string(), id.to_string(), token.to_string(), mine.clone());
    let o = tokio::task::spawn_blocking(move || {
        gin(&["verify", &i, "--server", &u, "--token", &t, "--save", s.to_str().unwrap()])
    })
    .await
    .unwrap();
    let seat = stdout(&o);
    assert!(o.status.success(), "{seat}{}", String::from_utf8_lossy(&o.stderr));
    let line = seat.lines().find(|l| l.starts_with("seat 0: ")).unwrap_or_else(|| panic!("{seat}"));
    let rest = line.strip_prefix("seat 0: ok (the ").unwrap_or_else(|| panic!("{seat}"));
    let (n, rest) = rest.split_once(" cards it drew, ").unwrap();
    let (after, rest) = rest.split_once(' ').unwrap();
    assert_eq!(rest, "of them after a turn of the pile, are the record's)", "{seat}");
    let (n, after) = (n.parse::<usize>().unwrap(), after.parse::<u32>().unwrap());
    let mut j: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&mine).unwrap()).unwrap();
    assert_eq!(j["seat"]["drawn"].as_array().unwrap().len(), n);
    // A card other than the one seat 0 was shown.
    let first = j["seat"]["drawn"][0].as_str().unwrap().to_string();
    j["seat"]["drawn"][0] = serde_json::Value::String(if first == "AS" { "AH" } else { "AS" }.into());
    std::fs::write(&bad, j.to_string()).unwrap();
    let o = gin(&["verify", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).contains("seat 0: FAILED: its draw #1 was "), "{}", stdout(&o));
    (turns, after)
}

/// Plays and verifies a game of `kind` at each of `sizes`; the turns of the pile at each.
/// The deals are the server's own, so whether a game turns its pile is chance: until `shown`
/// holds of the turns so far, up to ten more games are played at the last (largest) size,
/// where the stock is smallest.
async fn every_size(
    kind: &str,
    sizes: &[u8],
    hands: u32,
    shown: impl Fn(&[(u32, u32)]) -> bool,
) -> Vec<(u32, u32)> {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("g.db")).await;
    let url = server.url();
    let mut turns = Vec::new();
    let last = *sizes.last().unwrap();
    for (i, &n) in sizes.iter().chain([last; 10].iter()).enumerate() {
        if i >= sizes.len() && shown(&turns) {
            break;
        }
        let (id, token) = play(&url, &format(kind, n, hands), n).await;
        turns.push(verify_everywhere(&url, &id, &token, dir.path()).await);
    }
    server.stop().await;
    turns
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gin_verify_two_player_gin() {
    every_size("standard", &[2], 0, |_| true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gin_verify_three_player_gin() {
    every_size("three-player", &[3], 0, |_| true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gin_verify_team_gin() {
    every_size("teams", &[4], 0, |_| true).await;
}

/// Gin for 3 to 6 at one table: the draws after a turn of the pile are fixed by the seed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gin_verify_gin_at_one_table_for_3_to_6() {
    let turned = |t: &[(u32, u32)]| t.iter().any(|&(t, _)| t > 0);
    let turns = every_size("gin-7", &[3, 4, 5, 6], 4, turned).await;
    assert!(turned(&turns), "some game turned its pile: {turns:?}");
}

/// Rummy for 2 to 6: the draws after a turn of the pile are fixed by the seed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gin_verify_rummy_for_2_to_6() {
    let after = |t: &[(u32, u32)]| t.iter().any(|&(_, a)| a > 0);
    let turns = every_size("rummy", &[2, 3, 4, 5, 6], 3, after).await;
    assert!(turns.iter().any(|&(t, _)| t > 0), "some game turned its pile: {turns:?}");
    assert!(after(&turns), "seat 0 drew after a turn of the pile in some game: {turns:?}");
}

/// A game the server keeps the record of for now (in play; a tournament's, until the
/// tournament is over) is not verifiable yet: exit status 3 and the server's reason, not a
/// failure.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gin_verify_of_a_game_not_over_says_it_is_not_verifiable_yet() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("g.db")).await;
    let url = server.url();
    let client = gin_sdk::Client::connect(&url).await.unwrap();
    let seated = client
        .create_table(pb::CreateGameRequest {
            format: format("rummy", 3, 3),
            players: 3,
            house_bot: "simple".into(),
            name: "tester".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    let id = seated.game_id;
    let o = tokio::task::spawn_blocking(move || gin(&["verify", &id, "--server", &url])).await.unwrap();
    assert_eq!(o.status.code(), Some(3), "{}{}", stdout(&o), String::from_utf8_lossy(&o.stderr));
    assert!(
        stdout(&o).ends_with("not verifiable yet: refused: the record is available once the game is over\n"),
        "{}",
        stdout(&o)
    );
    server.stop().await;
}
