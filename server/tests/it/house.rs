//! House bots: a network bot (the SDK) plays the server's built-in strategies to game over;
//! unknown strategies are refused; a house bot whose turn it is when the server starts plays;
//! a quick match nobody answered in time is played against a house bot.

use crate::common;

use std::time::Duration;

use common::*;
use gin_proto::v1 as pb;
use gin_proto::v1::lobby_service_client::LobbyServiceClient;
use gin_sdk::{Client, Options};

pub fn opts() -> Options {
    Options { retry_for: Duration::from_secs(30), ..Options::default() }
}

/// The result GetGame and GetRecord give, and the engine's replay of the record, all equal
/// the outcome the bot saw.
pub async fn check_result(gc: &mut Games, game: &str, seen: &pb::GameResult) -> engine::Game {
    let snap = get_game(gc, game, "").await;
    assert_eq!(snap.phase, pb::Phase::GameOver as i32);
    assert_eq!(snap.result.as_ref(), Some(seen));
    let rec = gc.get_record(pb::GetRecordRequest { game_id: game.into() }).await.unwrap().into_inner();
    assert_eq!(rec.result.as_ref(), Some(seen));
    let replayed = engine::GameRecord::from_json(&rec.record_json).unwrap().replay().unwrap();
    let r = replayed.result().expect("the record replays to game over");
    assert_eq!(r.totals.0.to_vec(), seen.totals);
    assert_eq!(r.winner.map(|s| s.index() as u32), seen.winner);
    replayed
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_network_bot_plays_house_bots_to_game_over() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("g.db")).await;
    let ch = server.channel().await;
    let client = Client::from_channel(ch.clone(), opts());
    let mut gc = Games::new(ch.clone());
    // Against each strategy, from either seat, under two rule sets.
    for (i, (house, my_seat, rules)) in
        [("simple", 0, "standard"), ("random", 1, "oklahoma"), ("strong", 0, "classic")]
            .into_iter()
            .enumerate()
    {
        let seated = client
            .create_game(pb::CreateGameRequest {
                rules: Some(preset(rules)),
                name: "sdk".into(),
                seat: Some(my_seat),
                house_bot: house.into(),
                seed: 100 + i as u64,
                ..Default::default()
            })
            .await
            .unwrap();
        assert_eq!(seated.seat.index() as u32, my_seat);
        let snap = get_game(&mut gc, &seated.game_id, "").await;
        let bot_seat = &snap.seats[1 - my_seat as usize];
        assert!(bot_seat.taken && bot_seat.bot, "{bot_seat:?}");
        assert_eq!(bot_seat.name, house);
        assert!(!snap.seats[my_seat as usize].bot);

        let mut me = gin_strategies::simple::SimpleStrategy::new(i as u64);
        let o = client.play(&seated.game_id, &seated.token, &mut me).await.unwrap();
        assert_eq!(o.reason, pb::GameEndReason::Target);
        assert!(o.opponent_bot && o.opponent == house, "{o:?}");
        assert!(o.decisions >= 2 * o.hands, "at least a draw and a discard per hand: {o:?}");
        let game = check_result(&mut gc, &seated.game_id, &o.result).await;
        // Both seats played: the bot's actions are in the record like the client's.
        for s in engine::Seat::BOTH {
            assert!(game.actions().iter().any(|(who, _)| *who == s), "seat {s} never acted");
        }
        assert_eq!(o.hands as usize, game.hands().len());
    }
    server.stop().await;
}

/// With fixed deals a house bot's choices follow from the seed: the same seed and the same
/// moves of the other seat replay the same game, bots and all, at two-player gin and at a
/// table (against `random` house bots, whose every move is drawn).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seeded_game_against_house_bots_replays_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("g.db")).await;
    let ch = server.channel().await;
    let client = Client::from_channel(ch.clone(), opts());
    let mut gc = Games::new(ch.clone());
    let moves = |json: &str, key: &str| -> Vec<serde_json::Value> {
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        v[key].as_array().expect("the record's moves").clone()
    };
    for seed in [41, 42] {
        let mut games = Vec::new();
        for _ in 0..2 {
            let req = pb::CreateGameRequest {
                rules: Some(preset("standard")),
                name: "sdk".into(),
                house_bot: "random".into(),
                seed,
                ..Default::default()
            };
            let seated = client.create_game(req).await.unwrap();
            let mut me = gin_strategies::simple::SimpleStrategy::new(7);
            client.play(&seated.game_id, &seated.token, &mut me).await.unwrap();
            let rec =
                gc.get_record(pb::GetRecordRequest { game_id: seated.game_id }).await.unwrap().into_inner();
            games.push(moves(&rec.record_json, "actions"));
        }
        assert!(games[0].len() > 20, "{} actions", games[0].len());
        assert_eq!(games[0], games[1], "two-player gin, seed {seed}");

        let mut tables = Vec::new();
        for _ in 0..2 {
            let req = pb::CreateGameRequest {
                format: r#"{"kind":"gin-7","players":3,"end":{"hands":2}}"#.into(),
                name: "sdk".into(),
                house_bot: "random".into(),
                seed,
                ..Default::default()
            };
            let seated = client.create_table(req).await.unwrap();
            let mut me = gin_sdk::table_strategy("simple", 7).unwrap();
            client.play_table(&seated.game_id, &seated.token, me.as_mut()).await.unwrap();
            let rec =
                gc.get_record(pb::GetRecordRequest { game_id: seated.game_id }).await.unwrap().into_inner();
            tables.push(moves(&rec.record_json, "moves"));
        }
        assert!(tables[0].len() > 10, "{} moves", tables[0].len());
        assert_eq!(tables[0], tables[1], "gin for three at one table, seed {seed}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_house_bot_is_refused_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("g.db")).await;
    let ch = server.channel().await;
    let mut lobby = LobbyServiceClient::new(ch.clone());
    let e = lobby
        .create_game(pb::CreateGameRequest {
            house_bot: "deep-blue".into(),
            join: true,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::InvalidArgument);
    assert!(e.message().contains("deep-blue") && e.message().contains("random, simple, strong"), "{e:?}");
    let open = lobby.list_games(pb::ListGamesRequest::default()).await.unwrap().into_inner();
    assert!(open.games.is_empty());

    // Without `join` the bot sits and the other seat is open to anyone.
    let c = lobby
        .create_game(pb::CreateGameRequest { house_bot: "simple".into(), seed: 3, ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    let open = lobby.list_games(pb::ListGamesRequest::default()).await.unwrap().into_inner();
    assert_eq!(open.games.len(), 1);
    let seats = &open.games[0].seats;
    assert!(!seats[0].taken && seats[1].taken && seats[1].bot, "{seats:?}");
    // Its creator chose the seed: the game says so, and a player joins only accepting that.
    assert!(open.games[0].fixed_deals);
    let client = Client::from_channel(ch.clone(), opts());
    let refused = client.join_game(&c.game_id, "late").await.unwrap_err();
    assert!(refused.to_string().contains("fixed deals"), "{refused}");
    let seated = client
        .join_game_with(pb::JoinGameRequest {
            game_id: c.game_id.clone(),
            name: "late".into(),
            accept_fixed_deals: true,
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(seated.seat, engine::Seat::S0);
    let mut me = gin_strategies::simple::SimpleStrategy::new(9);
    let o = client.play(&seated.game_id, &seated.token, &mut me).await.unwrap();
    check_result(&mut Games::new(ch), &seated.game_id, &o.result).await;
    server.stop().await;
}

fn quick(rules: &str, name: &str, house_bot: &str, after_ms: u32) -> pb::QuickMatchRequest {
    pb::QuickMatchRequest {
        rules: Some(preset(rules)),
        name: name.into(),
        house_bot: house_bot.into(),
        house_bot_after_ms: after_ms,
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quick_match_nobody_answers_in_time_is_played_against_the_house_bot() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("g.db")).await;
    let ch = server.channel().await;
    let client = Client::from_channel(ch.clone(), opts());
    let t0 = std::time::Instant::now();
    let (seated, bot) = client.quick_match_with(quick("oklahoma", "solo", "simple", 300)).await.unwrap();
    assert!(t0.elapsed() >= Duration::from_millis(300), "waited for a person first: {:?}", t0.elapsed());
    assert_eq!(bot.as_deref(), Some("simple"));
    assert_eq!(seated.seat, engine::Seat::S0);
    let mut gc = Games::new(ch.clone());
    let snap = get_game(&mut gc, &seated.game_id, &seated.token).await;
    assert_eq!(snap.viewer_seat, Some(0));
    assert_eq!(snap.rules.as_ref().unwrap().name, "oklahoma");
    assert!(!snap.seats[0].bot && snap.seats[0].name == "solo", "{:?}", snap.seats);
    assert!(snap.seats[1].bot && snap.seats[1].name == "simple", "{:?}", snap.seats);
    // Not an open game, and the queue is empty: the next caller waits alone, then gets its
    // own bot.
    let mut lobby = LobbyServiceClient::new(ch.clone());
    let open = lobby.list_games(pb::ListGamesRequest::default()).await.unwrap().into_inner();
    assert!(open.games.is_empty(), "{open:?}");
    let (other, bot) = client.quick_match_with(quick("oklahoma", "late", "random", 100)).await.unwrap();
    assert_eq!(bot.as_deref(), Some("random"));
    assert_ne!(other.game_id, seated.game_id);

    let mut me = gin_strategies::simple::SimpleStrategy::new(5);
    let o = client.play(&seated.game_id, &seated.token, &mut me).await.unwrap();
    assert!(o.opponent_bot && o.opponent == "simple", "{o:?}");
    check_result(&mut gc, &seated.game_id, &o.result).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_asking_before_the_house_bot_comes_is_paired_instead() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("g.db")).await;
    let ch = server.channel().await;
    let first = {
        // Another client: its own connection (one client's calls are never paired).
        let client = Client::from_channel(server.channel().await, opts());
        tokio::spawn(async move { client.quick_match_with(quick("standard", "ann", "strong", 20_000)).await })
    };
    // Ann is in the queue once a second caller with other rules waits alone (its bot comes).
    let client = Client::from_channel(ch.clone(), opts());
    let (_, bot) = client.quick_match_with(quick("classic", "cy", "random", 200)).await.unwrap();
    assert_eq!(bot.as_deref(), Some("random"));
    let t0 = std::time::Instant::now();
    let (ben, bot) = client.quick_match_with(quick("standard", "ben", "", 0)).await.unwrap();
    assert_eq!(bot, None);
    let (ann, bot) = first.await.unwrap().unwrap();
    assert!(t0.elapsed() < Duration::from_secs(10), "paired at once, not after ann's 20 s");
    assert_eq!(bot, None);
    assert_eq!(ann.game_id, ben.game_id);
    assert_ne!(ann.seat, ben.seat);
    let snap = get_game(&mut Games::new(ch.clone()), &ann.game_id, "").await;
    assert!(snap.seats.iter().all(|s| s.taken && !s.bot), "{:?}", snap.seats);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_quick_match_house_bot_settings_are_refused_and_queue_nobody() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("g.db")).await;
    let ch = server.channel().await;
    let mut lobby = LobbyServiceClient::new(ch.clone());
    for (req, says) in [
        (quick("standard", "a", "deep-blue", 100), "deep-blue"),
        (quick("standard", "a", "", 100), "only with house_bot"),
        (quick("standard", "a", "simple", 60_001), "at most 60000"),
        (quick("standard", "a\u{7}", "simple", 100), "name"),
    ] {
        let e = tokio::time::timeout(Duration::from_secs(5), lobby.quick_match(req))
            .await
            .expect("refused at once")
            .unwrap_err();
        assert_eq!(e.code(), tonic::Code::InvalidArgument, "{e:?}");
        assert!(e.message().contains(says), "{e:?}");
    }
    // Nobody was queued or seated: a caller asking now waits alone and gets the bot.
    let r = lobby.quick_match(quick("standard", "b", "simple", 100)).await.unwrap().into_inner();
    assert_eq!(r.house_bot, "simple");
    let snap = get_game(&mut Games::new(ch.clone()), &r.game_id, "").await;
    assert_eq!(snap.seats[0].name, "b");
    server.stop().await;
}

/// A server that stops between a client's action and the house bot's answer restarts with
/// the bot to act: it must play on its own. The instant is made exact by stopping while the
/// client is to draw and removing the bot's last action (its discard) from the database: at
/// start the log ends with the bot to discard. A fresh SDK process then plays the client's
/// seat from its token to game over.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_house_bot_to_act_at_start_plays_on() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.db");
    let server = TestServer::start(&db).await;
    let ch = server.channel().await;
    let mut lobby = LobbyServiceClient::new(ch.clone());
    let c = lobby
        .create_game(pb::CreateGameRequest {
            join: true,
            name: "alice".into(),
            house_bot: "simple".into(),
            seed: 77,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let (game, token) = (c.game_id.clone(), c.seat_token.clone());
    let mut gc = Games::new(ch.clone());
    let mut rng = Rng(5);
    let mut draws = 0;
    // Play seat 0 by hand, waiting for the bot after each action, until our 2nd draw turn
    // (early: a game can end in two hands).
    let stopped_at = loop {
        let snap = wait_for_turn(&mut gc, &game, &token).await;
        let turn = snap.turn.clone().expect("our turn info");
        if snap.phase == pb::Phase::Draw as i32 {
            draws += 1;
            if draws == 2 {
                break snap.seq;
            }
        }
        let p = Player {
            seat: 0,
            token: token.clone(),
            game_id: game.clone(),
            last_seq: snap.seq,
            messages: vec![],
        };
        send(&mut gc, &p, &choose(&mut rng, &turn)).await.unwrap();
    };
    server.stop().await;

    // Remove the bot's last action, as a crash before it reached the disk would: the game now
    // ends with the bot to discard.
    drop_last_journal_record(&gin_server::storage::journal_dir(&db), 1);

    let server = TestServer::start(&db).await;
    let ch = server.channel().await;
    let mut gc = Games::new(ch.clone());
    // The bot discards again by itself: the game comes back to our draw.
    let snap = wait_for_turn(&mut gc, &game, &token).await;
    assert_eq!(snap.phase, pb::Phase::Draw as i32);
    assert!(snap.seq >= stopped_at - 2, "seq {} vs {stopped_at}", snap.seq);

    let mut me = gin_strategies::simple::SimpleStrategy::new(1);
    let o = gin_sdk::play_seat(&server.url(), &game, &token, &mut me).await.unwrap();
    assert_eq!(o.reason, pb::GameEndReason::Target);
    check_result(&mut gc, &game, &o.result).await;
    server.stop().await;
}

/// Polls seat 0's snapshot until it is seat 0's turn.
async fn wait_for_turn(gc: &mut Games, game: &str, token: &str) -> pb::GameSnapshot {
    let end = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let snap = get_game(gc, game, token).await;
        if snap.seat_to_act == Some(0) {
            return snap;
        }
        assert!(snap.result.is_none(), "the game ended early");
        assert!(tokio::time::Instant::now() < end, "the house bot did not play: {snap:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The SDK over TLS (`https://`, trusting the test's CA) plays a house bot to game over.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sdk_plays_over_tls() {
    let dir = tempfile::tempdir().unwrap();
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    let (cert_path, key_path) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    std::fs::write(&cert_path, cert.cert.pem()).unwrap();
    std::fs::write(&key_path, cert.signing_key.serialize_pem()).unwrap();
    let server = TestServer::start_with(gin_server::Config {
        db: dir.path().join("g.db"),
        tls: Some((cert_path, key_path)),
        rate_per_sec: 0,
        ..gin_server::Config::default()
    })
    .await;
    let url = format!("https://localhost:{}", server.addr.port());
    let tls = Options { ca_cert: Some(cert.cert.pem().into_bytes()), ..opts() };
    let client = Client::connect_with(&url, tls).await.unwrap();
    let seated = client
        .create_game(pb::CreateGameRequest { house_bot: "simple".into(), seed: 8, ..Default::default() })
        .await
        .unwrap();
    let mut me = gin_strategies::simple::SimpleStrategy::new(2);
    let o = client.play(&seated.game_id, &seated.token, &mut me).await.unwrap();
    assert_eq!(o.reason, pb::GameEndReason::Target);
    assert_eq!(client.get_game(&seated.game_id, "").await.unwrap().result, Some(o.result));

    // Plain text against the TLS port gets nowhere.
    let plain =
        Options { connect_for: Duration::from_millis(200), retry_for: Duration::from_millis(500), ..opts() };
    let r = match Client::connect_with(&format!("http://127.0.0.1:{}", server.addr.port()), plain).await {
        Err(e) => Err(e),
        Ok(c) => c.get_game(&seated.game_id, "").await.map(|_| ()),
    };
    assert!(r.is_err());
    server.stop().await;
}

/// Cuts the last record off the newest segment of the action journal at `dir` (see the
/// format in `gin_server::storage::journal`), checking it is an action of `seat`.
fn drop_last_journal_record(dir: &std::path::Path, seat: u8) {
    let mut segments: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    segments.sort();
    let newest = segments.last().expect("a journal segment");
    let bytes = std::fs::read(newest).unwrap();
    // Records until the zeros written ahead of the appends (a record is never empty).
    let (mut at, mut last) = (8, None);
    while at + 8 <= bytes.len() {
        let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        if len == 0 {
            break;
        }
        last = Some(at);
        at += 8 + len;
    }
    assert!(at <= bytes.len() && bytes[at..].iter().all(|&b| b == 0), "whole records, then zeros");
    let last = last.expect("a record");
    let payload = &bytes[last + 8..];
    let id_len = u16::from_le_bytes([payload[0], payload[1]]) as usize;
    assert_eq!(payload[2 + id_len + 4], seat, "the last action was seat {seat}'s");
    // Zeroed, as the space after the last record is.
    let mut cut = bytes.clone();
    cut[last..at].fill(0);
    std::fs::write(newest, cut).unwrap();
}
