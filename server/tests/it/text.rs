//! Text people set and others see, over real sockets: names, rule set names, tournament and
//! entrant names holding controls, bidi overrides or zero-width characters are refused with
//! INVALID_ARGUMENT naming the field, and nothing is created; names of every script pass
//! and come back as they were sent. Ids echoed in errors come back escaped.

use crate::common;

use common::*;
use gin_proto::text::refused;
use gin_proto::v1 as pb;
use gin_proto::v1::lobby_service_client::LobbyServiceClient;
use gin_proto::v1::tournament_service_client::TournamentServiceClient;
use tonic::transport::Channel;
use tonic::{Code, Status};

type Lobby = LobbyServiceClient<Channel>;
type Tours = TournamentServiceClient<Channel>;

/// The rule set name of the issue: sets the terminal's title, rings, clears the screen.
const HOSTILE_RULES_NAME: &str = "\x1b]0;pwned\x07\x1b[2J";

fn custom_rules(name: &str) -> pb::Rules {
    let mut r = gin_proto::rules::to_pb(&engine::RuleSet::standard());
    r.name = name.into();
    pb::Rules { kind: Some(pb::rules::Kind::Custom(r)) }
}

/// `r` was refused with INVALID_ARGUMENT naming `field`, and the message holds no refused
/// character (it names them as U+XXXX).
#[track_caller]
fn assert_refused<T: std::fmt::Debug>(r: Result<T, Status>, field: &str) {
    let e = r.expect_err("refused");
    assert_eq!(e.code(), Code::InvalidArgument, "{field}: {e:?}");
    assert!(e.message().starts_with(&format!("{field}: ")), "{field}: {:?}", e.message());
    assert!(!e.message().chars().any(refused), "the error echoes the text raw: {:?}", e.message());
}

async fn open_games(lobby: &mut Lobby) -> Vec<pb::OpenGame> {
    lobby.list_games(pb::ListGamesRequest::default()).await.unwrap().into_inner().games
}

fn spec(name: &str, rules: pb::Rules) -> pb::TournamentSpec {
    pb::TournamentSpec {
        name: name.into(),
        entrants: 2,
        games_per_pairing: 1,
        rules: Some(rules),
        ..Default::default()
    }
}

async fn tournaments(t: &mut Tours) -> Vec<pb::TournamentState> {
    t.list_tournaments(pb::ListTournamentsRequest::default()).await.unwrap().into_inner().tournaments
}

fn join_req(tournament_id: &str, name: &str) -> pb::JoinTournamentRequest {
    pb::JoinTournamentRequest { tournament_id: tournament_id.into(), name: name.into(), ..Default::default() }
}

#[tokio::test]
async fn hostile_game_text_is_refused_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("text.db")).await;
    let ch = server.channel().await;
    let mut lobby = Lobby::new(ch.clone());

    // The rule set name, in every request that takes rules.
    let create = |rules: pb::Rules, name: &str| pb::CreateGameRequest {
        rules: Some(rules),
        join: true,
        name: name.into(),
        ..Default::default()
    };
    assert_refused(
        lobby.create_game(create(custom_rules(HOSTILE_RULES_NAME), "alice")).await,
        "rules.custom.name",
    );
    assert_refused(
        lobby
            .create_game(pb::CreateGameRequest {
                join: false,
                ..create(custom_rules(HOSTILE_RULES_NAME), "")
            })
            .await,
        "rules.custom.name",
    );
    let quick = |rules: pb::Rules, name: &str| pb::QuickMatchRequest {
        rules: Some(rules),
        name: name.into(),
        house_bot: "random".into(),
        house_bot_after_ms: 1,
        ..Default::default()
    };
    assert_refused(
        lobby.quick_match(quick(custom_rules(HOSTILE_RULES_NAME), "alice")).await,
        "rules.custom.name",
    );
    // Bidi and invisible characters in a rule set name.
    for name in ["abc\u{202e}txt", "house\u{200b}rules", "x\u{2028}y"] {
        assert_refused(lobby.create_game(create(custom_rules(name), "alice")).await, "rules.custom.name");
    }

    // Player names: a bidi override (U+202E), a zero-width joiner, a C1 CSI, ESC, an
    // isolate, a line separator, a tag character.
    let hostile_names = [
        "\u{202e}ecila",
        "al\u{200d}ice",
        "\u{9b}2J",
        "\x1b[31mred",
        "\u{2067}bob\u{2069}",
        "two\u{2028}lines",
        "flag\u{e0067}",
    ];
    for name in hostile_names {
        assert_refused(lobby.create_game(create(custom_rules("house"), name)).await, "name");
        assert_refused(lobby.quick_match(quick(preset("standard"), name)).await, "name");
    }
    assert!(open_games(&mut lobby).await.is_empty(), "a refused request created a game");

    // Joining an open game with such a name leaves its seats as they were.
    let g = lobby.create_game(create(custom_rules("house"), "alice")).await.unwrap().into_inner();
    let before = open_games(&mut lobby).await;
    assert_eq!(before.len(), 1);
    for name in hostile_names {
        let r = lobby
            .join_game(pb::JoinGameRequest {
                game_id: g.game_id.clone(),
                name: name.into(),
                ..Default::default()
            })
            .await;
        assert_refused(r, "name");
    }
    assert_eq!(open_games(&mut lobby).await, before, "a refused join changed the game");

    // Ids are echoed escaped (`{id:?}`), never raw.
    let e = lobby
        .join_game(pb::JoinGameRequest {
            game_id: "\x1b[2J\u{202e}x".into(),
            name: "bob".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "{e:?}");
    assert!(!e.message().chars().any(refused), "{:?}", e.message());
    server.stop().await;
}

#[tokio::test]
async fn hostile_tournament_text_is_refused_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("text.db")).await;
    let mut t = Tours::new(server.channel().await);
    let create = |s: pb::TournamentSpec| pb::CreateTournamentRequest { spec: Some(s) };

    for name in ["cup\x1b]0;pwned\x07", "\u{202e}puc", "cup\u{200d}", "\u{9b}cup", "cup\u{feff}"] {
        assert_refused(t.create_tournament(create(spec(name, preset("standard")))).await, "spec.name");
    }
    assert_refused(
        t.create_tournament(create(spec("cup", custom_rules(HOSTILE_RULES_NAME)))).await,
        "spec.rules.custom.name",
    );
    assert_refused(t.create_tournament(create(spec(&"c".repeat(81), preset("standard")))).await, "spec.name");
    assert!(tournaments(&mut t).await.is_empty(), "a refused spec created a tournament");

    // Entrant names: a C1 control (CSI, U+009B), a bidi override, a zero-width joiner.
    let id = t
        .create_tournament(create(spec("cup", preset("standard"))))
        .await
        .unwrap()
        .into_inner()
        .tournament_id;
    let before = tournaments(&mut t).await;
    for name in ["\u{9b}31mred", "\u{202e}tnartne", "en\u{200d}trant", "bell\x07"] {
        assert_refused(t.join_tournament(join_req(&id, name)).await, "name");
    }
    assert_eq!(tournaments(&mut t).await, before, "a refused entrant changed the tournament");
    let st =
        t.get_tournament(pb::GetTournamentRequest { tournament_id: id.clone() }).await.unwrap().into_inner();
    let rows = st.state.unwrap().standings.map(|s| s.rows.len()).unwrap_or(0);
    assert_eq!(rows, 0, "a refused entrant was entered");

    let e = t
        .get_tournament(pb::GetTournamentRequest { tournament_id: "\x1b[2J\u{202e}".into() })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "{e:?}");
    assert!(!e.message().chars().any(refused), "{:?}", e.message());
    server.stop().await;
}

#[tokio::test]
async fn names_of_every_script_are_accepted_as_sent() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("text.db")).await;
    let ch = server.channel().await;
    let mut lobby = Lobby::new(ch.clone());
    let g = lobby
        .create_game(pb::CreateGameRequest {
            rules: Some(custom_rules("Règles de Zoë")),
            join: true,
            name: "Zoë".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let listed = open_games(&mut lobby).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].rules.as_ref().unwrap().name, "Règles de Zoë");
    let names: Vec<&str> = listed[0].seats.iter().filter(|s| s.taken).map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["Zoë"]);
    lobby
        .join_game(pb::JoinGameRequest {
            game_id: g.game_id.clone(),
            name: "李雷".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    let snap = gin_proto::v1::game_service_client::GameServiceClient::new(ch.clone())
        .get_game(pb::GetGameRequest { game_id: g.game_id.clone() })
        .await
        .unwrap()
        .into_inner()
        .snapshot
        .unwrap();
    let names: Vec<&str> = snap.seats.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["Zoë", "李雷"]);

    let mut t = Tours::new(ch.clone());
    let id = t
        .create_tournament(pb::CreateTournamentRequest {
            spec: Some(spec("Кубок 李雷 cup", preset("standard"))),
        })
        .await
        .unwrap()
        .into_inner()
        .tournament_id;
    let mut stream = t.join_tournament(join_req(&id, "Łukasz")).await.unwrap().into_inner();
    assert!(stream.message().await.unwrap().is_some(), "entered");
    let st = t.get_tournament(pb::GetTournamentRequest { tournament_id: id }).await.unwrap().into_inner();
    let st = st.state.unwrap();
    assert_eq!(st.spec.unwrap().name, "Кубок 李雷 cup");
    let names: Vec<String> = st.standings.unwrap().rows.into_iter().map(|r| r.name).collect();
    assert_eq!(names, ["Łukasz"]);
    drop(stream);
    server.stop().await;
}

/// Text an older server let through (its check refused only `char::is_control`): a
/// tournament whose spec and entrant hold a bidi override and a zero-width joiner, written
/// into the database directly, still loads at start and gets its game created.
#[tokio::test]
async fn text_stored_before_the_check_still_loads_and_plays() {
    use prost::Message;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("text.db");
    let server = TestServer::start(&db).await;
    let mut t = Tours::new(server.channel().await);
    let id = t
        .create_tournament(pb::CreateTournamentRequest { spec: Some(spec("cup", custom_rules("house"))) })
        .await
        .unwrap()
        .into_inner()
        .tournament_id;
    let first = t.join_tournament(join_req(&id, "alice")).await.unwrap().into_inner();
    drop(first);
    server.stop().await;

    let (old_title, old_rules, old_name) = ("\u{202e}puc", "house\u{200b}", "al\u{200d}ice");
    {
        let c = rusqlite::Connection::open(&db).unwrap();
        let blob: Vec<u8> =
            c.query_row("SELECT spec FROM tournaments WHERE id = ?1", [&id], |r| r.get(0)).unwrap();
        let mut s = pb::TournamentSpec::decode(blob.as_slice()).unwrap();
        s.name = old_title.into();
        match s.rules.as_mut().and_then(|r| r.kind.as_mut()) {
            Some(pb::rules::Kind::Custom(r)) => r.name = old_rules.into(),
            k => panic!("a stored spec holds its rules in full: {k:?}"),
        }
        c.execute("UPDATE tournaments SET spec = ?1 WHERE id = ?2", rusqlite::params![s.encode_to_vec(), id])
            .unwrap();
        let n = c
            .execute("UPDATE tournament_entrants SET name = ?1 WHERE tournament_id = ?2", [old_name, &id])
            .unwrap();
        assert_eq!(n, 1);
    }

    let server = TestServer::start(&db).await;
    let ch = server.channel().await;
    let mut t = Tours::new(ch.clone());
    let get = |t: &mut Tours| {
        let mut t = t.clone();
        let id = id.clone();
        async move {
            t.get_tournament(pb::GetTournamentRequest { tournament_id: id })
                .await
                .unwrap()
                .into_inner()
                .state
                .unwrap()
        }
    };
    let st = get(&mut t).await;
    assert_eq!(st.spec.as_ref().unwrap().name, old_title, "the stored spec loaded as it was");
    // The second entrant starts it: the game is created with the stored entrant's name.
    let mut second = t.join_tournament(join_req(&id, "bob")).await.unwrap().into_inner();
    assert!(second.message().await.unwrap().is_some(), "entered");
    let mut game = None;
    for _ in 0..200 {
        if let Some(g) = get(&mut t).await.games.first() {
            let r = gin_proto::v1::game_service_client::GameServiceClient::new(ch.clone())
                .get_game(pb::GetGameRequest { game_id: g.game_id.clone() })
                .await;
            if let Ok(r) = r {
                game = r.into_inner().snapshot;
                break;
            }
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let game = game.expect("the tournament's game was created");
    let mut names: Vec<String> = game.seats.iter().map(|s| s.name.clone()).collect();
    names.sort();
    assert_eq!(names, [old_name, "bob"]);
    assert_eq!(game.rules.unwrap().name, old_rules);
    drop(second);
    server.stop().await;
}
