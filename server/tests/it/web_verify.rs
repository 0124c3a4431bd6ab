//! Every format verified in the browser (`server/web/test/verify_formats.mjs`): a game of
//! each format and table size is watched by the page from before its first deal, played to
//! its end by a simple table strategy over the SDK (seat 0) and the server's house bots, and
//! the page's "Verify the deals" must check the seed against the commitment published with
//! the deals, and every hand; a seed commitment other than the one published must fail.

use std::path::Path;

use engine::Format;
use engine::gin7::Gin7End;
use engine::rummy::RummyEnd;
use gin_proto::v1 as pb;
use gin_proto::v1::lobby_service_client::LobbyServiceClient;

use crate::common::TestServer;
use crate::web::{browser_parts, node_script};

/// The format document for `kind` at `players`, a short game.
fn short(kind: &str, players: u8) -> String {
    let f = match Format::preset(kind).unwrap().with_players(players).unwrap() {
        Format::Gin7(mut r) => {
            r.end = Gin7End::Hands(3);
            Format::Gin7(r)
        }
        Format::Rummy(mut r) => {
            r.end = RummyEnd::Hands(2);
            Format::Rummy(r)
        }
        Format::ThreePlayer(mut r) => {
            r.target = 30;
            Format::ThreePlayer(r)
        }
        Format::Teams(mut r) => {
            r.target = 30;
            Format::Teams(r)
        }
        Format::Gin(mut r) => {
            r.target = 30;
            Format::Gin(r)
        }
    };
    f.to_value().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_verifies_a_game_of_every_format() {
    let Some(web) = browser_parts() else { return };
    let dir = tempfile::tempdir().unwrap();
    let cfg =
        gin_server::Config { db: dir.path().join("g.db"), rate_per_sec: 0, ..gin_server::Config::default() };
    let server = TestServer::start_with(cfg).await;
    let ch = server.channel().await;
    let url = server.url();
    let sizes: [(&str, &[u8]); 5] = [
        ("standard", &[2]),
        ("three-player", &[3]),
        ("teams", &[4]),
        ("gin-7", &[3, 4, 5, 6]),
        ("rummy", &[2, 3, 4, 5, 6]),
    ];
    // Each game waits for a player at seat 0, the house bot at the others.
    let mut games = Vec::new();
    for (kind, ns) in sizes {
        for &n in ns {
            let r = LobbyServiceClient::new(ch.clone())
                .create_game(pb::CreateGameRequest {
                    format: short(kind, n),
                    players: u32::from(n),
                    house_bot: "simple".into(),
                    ..Default::default()
                })
                .await
                .unwrap()
                .into_inner();
            games.push((format!("{kind}-{n}"), r.game_id, kind));
        }
    }
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("web-screenshots");
    let mut args =
        vec!["test/verify_formats.mjs".to_string(), format!("{url}/"), shots.display().to_string()];
    args.extend(games.iter().map(|(label, id, _)| format!("{label}={id}")));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let client = gin_sdk::Client::connect(&url).await.unwrap();
    let (ok, stdout, stderr) = node_script(&web, &args, &[], |line| {
        let client = client.clone();
        let game = line.strip_prefix("watching ").and_then(|id| games.iter().find(|g| g.1 == id)).cloned();
        async move {
            let (_, id, kind) = game?;
            // The page follows the game: seat 0 joins, and the game is played to its end.
            let seated = client
                .join_table(pb::JoinGameRequest {
                    game_id: id.clone(),
                    name: "tester".into(),
                    seat: Some(0),
                    ..Default::default()
                })
                .await
                .unwrap();
            let kind = Format::preset(kind).unwrap().kind().name().to_string();
            let mut bot = gin_sdk::table_strategy_for("simple", &kind, 1).unwrap();
            client.play_table(&id, &seated.token, bot.as_mut()).await.unwrap();
            Some("played\n".into())
        }
    })
    .await;
    assert!(ok && stdout.contains("formats verified"), "{stdout}\n{stderr}");
    for (label, _, _) in &games {
        assert!(stdout.contains(&format!("verified {label}: All ")), "{label}: {stdout}");
    }
    eprintln!("{stdout}");
    server.stop().await;
}
