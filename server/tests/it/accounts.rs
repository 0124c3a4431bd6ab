//! Accounts over the network: registration (names unique without regard to case and
//! confusables), sign-in (one answer for a wrong password and an unknown name, throttled
//! failures), tokens and scopes, password changes ending sessions, registrations per hour,
//! deletion and export, secrets never on disk, and everything surviving a restart; unfinished
//! games counted per account from every address (games, quick match, tournaments), and a
//! seat's account in its `PlayerJoined`.

use std::path::Path;
use std::time::Duration;

use gin_proto::v1 as pb;
use gin_proto::v1::account_service_client::AccountServiceClient;
use tonic::Code;
use tonic::transport::Channel;

use crate::common::{TestServer, authed};

type Accounts = AccountServiceClient<Channel>;

async fn client(server: &TestServer) -> Accounts {
    AccountServiceClient::new(server.channel().await)
}

fn cfg(db: &Path) -> gin_server::Config {
    gin_server::Config { db: db.to_path_buf(), rate_per_sec: 0, ..gin_server::Config::default() }
}

/// Registers `name` (a person when `password` is set, else a bot): its first token.
async fn register(c: &mut Accounts, name: &str, password: &str) -> pb::RegisterResponse {
    let kind = if password.is_empty() { pb::AccountKind::Bot } else { pb::AccountKind::Person };
    c.register(pb::RegisterRequest {
        name: name.into(),
        kind: kind as i32,
        password: password.into(),
        token_label: String::new(),
    })
    .await
    .unwrap()
    .into_inner()
}

async fn who(c: &mut Accounts, token: &str) -> Result<pb::WhoAmIResponse, tonic::Status> {
    c.who_am_i(authed(pb::WhoAmIRequest {}, token)).await.map(|r| r.into_inner())
}

async fn sign_in(c: &mut Accounts, name: &str, password: &str) -> Result<pb::SignInResponse, tonic::Status> {
    c.sign_in(pb::SignInRequest { name: name.into(), password: password.into(), label: String::new() })
        .await
        .map(|r| r.into_inner())
}

#[tokio::test]
async fn names_are_unique_without_regard_to_case_and_confusables_and_bad_input_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(cfg(&dir.path().join("gin.db"))).await;
    let mut c = client(&server).await;

    let paul = register(&mut c, "Paul", "correct horse").await;
    let a = paul.account.clone().unwrap();
    assert_eq!((a.name.as_str(), a.kind, a.has_password), ("Paul", pb::AccountKind::Person as i32, true));
    assert!(paul.token.starts_with("gin_at_"), "a token");
    let info = paul.token_info.clone().unwrap();
    assert!(info.session && info.id.starts_with("tk_") && info.scopes.len() == 3, "{info:?}");
    let bot = register(&mut c, "Robo", "").await;
    assert_eq!(bot.account.unwrap().kind, pb::AccountKind::Bot as i32);
    assert!(!bot.token_info.unwrap().session);

    let refused = |name: &str, kind: pb::AccountKind, password: &str| pb::RegisterRequest {
        name: name.into(),
        kind: kind as i32,
        password: password.into(),
        token_label: String::new(),
    };
    let cases = [
        (refused("paul", pb::AccountKind::Person, "password1"), Code::AlreadyExists, "name"),
        (refused("PAU1", pb::AccountKind::Bot, ""), Code::AlreadyExists, "confusable"),
        (refused("Robot2", pb::AccountKind::Bot, "a password"), Code::InvalidArgument, "password"),
        (refused("", pb::AccountKind::Person, "password1"), Code::InvalidArgument, "name"),
        (refused(" lead", pb::AccountKind::Person, "password1"), Code::InvalidArgument, "name"),
        (refused("a\u{202e}b", pb::AccountKind::Person, "password1"), Code::InvalidArgument, "name"),
        (refused(&"x".repeat(41), pb::AccountKind::Person, "password1"), Code::InvalidArgument, "name"),
        (refused("Shorty", pb::AccountKind::Person, "short"), Code::InvalidArgument, "password"),
        (refused("Nokind", pb::AccountKind::Unspecified, ""), Code::InvalidArgument, "kind"),
    ];
    for (req, code, needle) in cases {
        let name = req.name.clone();
        let e = c.register(req).await.unwrap_err();
        assert_eq!(e.code(), code, "{name:?}: {e:?}");
        assert!(e.message().contains(needle), "{name:?}: {e:?}");
        // Nothing was created: the name is free (or still the first holder's).
        let profile = c.get_account(pb::GetAccountRequest { name: name.clone() }).await;
        if name == "paul" {
            assert_eq!(profile.unwrap().into_inner().account.unwrap().name, "Paul");
        } else {
            assert_eq!(profile.unwrap_err().code(), Code::NotFound, "{name:?}");
        }
    }
    // Both first tokens work.
    assert_eq!(who(&mut c, &paul.token).await.unwrap().account.unwrap().name, "Paul");
    // A made-up account token: refused by the gate, on every service.
    let fake = format!("gin_at_{}", "A".repeat(43));
    let e = who(&mut c, &fake).await.unwrap_err();
    assert_eq!((e.code(), e.message()), (Code::Unauthenticated, "unknown, revoked or expired account token"));
    let mut lobby = gin_proto::v1::lobby_service_client::LobbyServiceClient::new(server.channel().await);
    let e = lobby.list_games(authed(pb::ListGamesRequest::default(), &fake)).await.unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated);
    server.stop().await;
}

#[tokio::test]
async fn sign_in_answers_alike_for_unknown_names_and_slows_down_failures() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(cfg(&dir.path().join("gin.db"))).await;
    let mut c = client(&server).await;
    register(&mut c, "Alice", "alice's password").await;
    register(&mut c, "Bob", "bob's password").await;

    let s = sign_in(&mut c, "ALICE", "alice's password").await.unwrap();
    assert!(s.token_info.as_ref().unwrap().session);
    assert_eq!(who(&mut c, &s.token).await.unwrap().account.unwrap().name, "Alice");

    let wrong = sign_in(&mut c, "alice", "not it at all").await.unwrap_err();
    let unknown = sign_in(&mut c, "nobody", "not it at all").await.unwrap_err();
    assert_eq!((wrong.code(), wrong.message()), (Code::Unauthenticated, "wrong name or password"));
    assert_eq!((unknown.code(), unknown.message()), (wrong.code(), wrong.message()));

    // Alice's name has one failure; four more, then even the right password waits.
    for _ in 0..4 {
        assert_eq!(sign_in(&mut c, "alice", "still wrong").await.unwrap_err().code(), Code::Unauthenticated);
    }
    let slowed = sign_in(&mut c, "Alice", "alice's password").await.unwrap_err();
    assert_eq!(slowed.code(), Code::ResourceExhausted, "{slowed:?}");
    let ms: u64 = slowed.metadata().get("retry-after-ms").unwrap().to_str().unwrap().parse().unwrap();
    assert!((1..=1001).contains(&ms), "{ms}");
    // An unknown name is slowed down the same way (the answer tells nothing of the name).
    for _ in 0..4 {
        assert_eq!(sign_in(&mut c, "nobody", "x").await.unwrap_err().code(), Code::Unauthenticated);
    }
    assert_eq!(sign_in(&mut c, "nobody", "x").await.unwrap_err().code(), Code::ResourceExhausted);
    // Another name from the same address still signs in.
    sign_in(&mut c, "bob", "bob's password").await.unwrap();
    // Once the delay is over, the right password works and resets the name's count.
    tokio::time::sleep(Duration::from_millis(ms + 50)).await;
    sign_in(&mut c, "alice", "alice's password").await.unwrap();
    assert_eq!(sign_in(&mut c, "alice", "wrong again").await.unwrap_err().code(), Code::Unauthenticated);
    sign_in(&mut c, "alice", "alice's password").await.unwrap();
    server.stop().await;
}

#[tokio::test]
async fn tokens_scopes_revocation_and_password_changes() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(cfg(&dir.path().join("gin.db"))).await;
    let mut c = client(&server).await;
    let first = register(&mut c, "Carol", "carol's password").await;
    let session = sign_in(&mut c, "carol", "carol's password").await.unwrap().token;

    let api = c
        .create_token(authed(
            pb::CreateTokenRequest {
                label: "my bot".into(),
                scopes: vec![pb::TokenScope::Play as i32, pb::TokenScope::Play as i32],
            },
            &first.token,
        ))
        .await
        .unwrap()
        .into_inner();
    let info = api.token_info.unwrap();
    assert_eq!(
        (info.label.as_str(), info.scopes.clone(), info.session),
        ("my bot", vec![pb::TokenScope::Play as i32], false)
    );
    // The play-only token identifies the account but may not manage it.
    assert_eq!(who(&mut c, &api.token).await.unwrap().token.unwrap().id, info.id);
    let denied = c
        .create_token(authed(pb::CreateTokenRequest { label: "more".into(), scopes: vec![3] }, &api.token))
        .await
        .unwrap_err();
    assert_eq!(denied.code(), Code::PermissionDenied, "{denied:?}");
    // A token without `play` creates and joins no game; one without `tournament` enters no
    // tournament.
    let manager = c
        .create_token(authed(
            pb::CreateTokenRequest { label: "manager".into(), scopes: vec![3] },
            &first.token,
        ))
        .await
        .unwrap()
        .into_inner()
        .token;
    let mut lobby = gin_proto::v1::lobby_service_client::LobbyServiceClient::new(server.channel().await);
    let e = lobby
        .create_game(authed(pb::CreateGameRequest { join: true, ..Default::default() }, &manager))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    let mut tournaments =
        gin_proto::v1::tournament_service_client::TournamentServiceClient::new(server.channel().await);
    let e = tournaments
        .create_tournament(authed(pb::CreateTournamentRequest::default(), &api.token))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    let manager_id = who(&mut c, &manager).await.unwrap().token.unwrap().id;
    c.revoke_token(authed(pb::RevokeTokenRequest { id: manager_id }, &first.token)).await.unwrap();
    // Bad input: named, nothing made.
    for (label, scopes, field) in [("", vec![1], "label"), ("x", vec![], "scopes"), ("x", vec![9], "scopes")]
    {
        let e = c
            .create_token(authed(pb::CreateTokenRequest { label: label.into(), scopes }, &first.token))
            .await
            .unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        assert!(e.message().starts_with(field), "{e:?}");
    }
    let list =
        c.list_tokens(authed(pb::ListTokensRequest {}, &first.token)).await.unwrap().into_inner().tokens;
    assert_eq!(list.len(), 4, "{list:?}");

    // Revoked: refused at once.
    let r = c
        .revoke_token(authed(pb::RevokeTokenRequest { id: info.id.clone() }, &first.token))
        .await
        .unwrap()
        .into_inner();
    assert!(r.token_info.unwrap().revoked_unix_ms > 0);
    assert_eq!(who(&mut c, &api.token).await.unwrap_err().code(), Code::Unauthenticated);
    let e = c
        .revoke_token(authed(pb::RevokeTokenRequest { id: "tk_nope".into() }, &first.token))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::NotFound);
    let list =
        c.list_tokens(authed(pb::ListTokensRequest {}, &first.token)).await.unwrap().into_inner().tokens;
    assert_eq!(list.last().unwrap().id, info.id, "live ones first");

    // An API token made before the change stays, sessions end.
    let kept = c
        .create_token(authed(
            pb::CreateTokenRequest { label: "kept".into(), scopes: vec![1, 2, 3] },
            &first.token,
        ))
        .await
        .unwrap()
        .into_inner()
        .token;
    let wrong = c
        .set_password(authed(
            pb::SetPasswordRequest {
                current_password: "nope nope".into(),
                new_password: "new password".into(),
            },
            &kept,
        ))
        .await
        .unwrap_err();
    assert_eq!(wrong.code(), Code::Unauthenticated);
    let set = c
        .set_password(authed(
            pb::SetPasswordRequest {
                current_password: "carol's password".into(),
                new_password: "new password".into(),
            },
            &kept,
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(who(&mut c, &session).await.unwrap_err().code(), Code::Unauthenticated);
    assert_eq!(who(&mut c, &first.token).await.unwrap_err().code(), Code::Unauthenticated, "a session too");
    who(&mut c, &kept).await.unwrap();
    who(&mut c, &set.token).await.unwrap();
    assert_eq!(sign_in(&mut c, "carol", "carol's password").await.unwrap_err().code(), Code::Unauthenticated);
    sign_in(&mut c, "carol", "new password").await.unwrap();
    // Sign-out ends the token of the call.
    c.sign_out(authed(pb::SignOutRequest {}, &set.token)).await.unwrap();
    assert_eq!(who(&mut c, &set.token).await.unwrap_err().code(), Code::Unauthenticated);
    server.stop().await;
}

#[tokio::test]
async fn registrations_per_address_per_hour_are_limited() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(gin_server::Config {
        registrations_per_hour: 3,
        ..cfg(&dir.path().join("gin.db"))
    })
    .await;
    let mut c = client(&server).await;
    // A refused registration takes none.
    assert!(
        c.register(pb::RegisterRequest { name: "".into(), kind: 2, ..Default::default() }).await.is_err()
    );
    for name in ["One", "Two", "Three"] {
        register(&mut c, name, "").await;
    }
    let e = c
        .register(pb::RegisterRequest { name: "Four".into(), kind: 2, ..Default::default() })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted, "{e:?}");
    let ms: u64 = e.metadata().get("retry-after-ms").unwrap().to_str().unwrap().parse().unwrap();
    assert!(ms > 3_500_000, "{ms}");
    assert_eq!(
        c.get_account(pb::GetAccountRequest { name: "Four".into() }).await.unwrap_err().code(),
        Code::NotFound
    );
    server.stop().await;
}

/// Every byte of every file under `dir`.
fn every_byte(dir: &Path) -> Vec<u8> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(every_byte(&p));
        } else {
            out.extend(std::fs::read(&p).unwrap());
        }
    }
    out
}

fn holds(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[tokio::test]
async fn accounts_and_tokens_survive_a_restart_and_no_secret_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("gin.db");
    let server = TestServer::start_with(cfg(&db)).await;
    let mut c = client(&server).await;
    let password = "a secret passphrase";
    let dave = register(&mut c, "Dave", password).await;
    let session = sign_in(&mut c, "dave", password).await.unwrap().token;
    let api = c
        .create_token(authed(pb::CreateTokenRequest { label: "api".into(), scopes: vec![1, 3] }, &dave.token))
        .await
        .unwrap()
        .into_inner();
    let revoked = c
        .create_token(authed(pb::CreateTokenRequest { label: "gone".into(), scopes: vec![1] }, &dave.token))
        .await
        .unwrap()
        .into_inner();
    c.revoke_token(authed(pb::RevokeTokenRequest { id: revoked.token_info.unwrap().id }, &dave.token))
        .await
        .unwrap();
    let bot = register(&mut c, "Botty", "").await;
    server.stop().await;

    let tokens = [&dave.token, &session, &api.token, &revoked.token, &bot.token];
    let bytes = every_byte(dir.path());
    assert!(!holds(&bytes, password), "the password is on disk");
    for t in tokens {
        assert!(!holds(&bytes, t), "a token is on disk");
        assert!(!holds(&bytes, t.strip_prefix("gin_at_").unwrap()), "a token's secret part is on disk");
    }

    let server = TestServer::start_with(cfg(&db)).await;
    let mut c = client(&server).await;
    assert_eq!(who(&mut c, &api.token).await.unwrap().account.unwrap().name, "Dave");
    assert_eq!(who(&mut c, &session).await.unwrap().account.unwrap().name, "Dave");
    assert_eq!(who(&mut c, &bot.token).await.unwrap().account.unwrap().kind, pb::AccountKind::Bot as i32);
    assert_eq!(
        who(&mut c, &revoked.token).await.unwrap_err().code(),
        Code::Unauthenticated,
        "revoked stays revoked"
    );
    sign_in(&mut c, "Dave", password).await.unwrap();
    let e = c
        .register(pb::RegisterRequest { name: "DAVE".into(), kind: 2, ..Default::default() })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::AlreadyExists);
    // Last uses were written on the way down.
    let list = c.list_tokens(authed(pb::ListTokensRequest {}, &api.token)).await.unwrap().into_inner().tokens;
    assert!(list.iter().find(|t| t.label == "api").unwrap().last_used_unix_ms > 0, "{list:?}");
    server.stop().await;
}

/// The seats of `game` as a spectator sees them.
async fn seats(gc: &mut crate::common::Games, game: &str) -> Vec<pb::SeatInfo> {
    crate::common::get_game(gc, game, "").await.seats
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_account_plays_as_itself_its_games_are_listed_and_deletion_shows_on_its_seats() {
    use gin_proto::v1::lobby_service_client::LobbyServiceClient;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("gin.db");
    let server = TestServer::start_with(cfg(&db)).await;
    let ch = server.channel().await;
    let mut c = client(&server).await;
    let mut lobby = LobbyServiceClient::new(ch.clone());
    let mut gc = crate::common::Games::new(ch.clone());
    let password = "erin's passphrase";
    let erin = register(&mut c, "Erin", password).await.token;
    let zed = register(&mut c, "Zed", "").await.token;

    // Signed in, against a house bot: the seat is the account's, named as it.
    let created = lobby
        .create_game(authed(
            pb::CreateGameRequest {
                rules: Some(crate::common::preset("standard")),
                join: true,
                name: "someone else".into(),
                house_bot: "simple".into(),
                seed: 7,
                ..Default::default()
            },
            &erin,
        ))
        .await
        .unwrap()
        .into_inner();
    let game = created.game_id.clone();
    let s = seats(&mut gc, &game).await;
    assert_eq!((s[0].name.as_str(), s[0].account.as_str()), ("Erin", "Erin"));
    assert_eq!(s[0].account_kind, pb::AccountKind::Person as i32);
    assert!(s[1].bot && s[1].account.is_empty() && s[1].account_kind == 0, "{:?}", s[1]);
    // The account token views and acts for its seat: it sees its hand.
    let mine = crate::common::get_game(&mut gc, &game, &erin).await;
    assert_eq!(mine.viewer_seat, Some(0));
    assert!(mine.hand.len() >= 10, "the seat's view holds its hand: {:?}", mine.hand);
    let spectator = crate::common::get_game(&mut gc, &game, "").await;
    assert!(spectator.hand.is_empty() && spectator.viewer_seat.is_none());
    // A guest's seat token for the same seat is unaffected: still returned, and it works.
    assert_eq!(crate::common::get_game(&mut gc, &game, &created.seat_token).await.hand, mine.hand);

    // A whole game played with the account token alone.
    let sdk = gin_sdk::Client::from_channel(ch.clone(), crate::house::opts());
    let mut me = gin_strategies::simple::SimpleStrategy::new(1);
    let o = sdk.play(&game, &erin, &mut me).await.unwrap();
    assert_eq!(o.reason, pb::GameEndReason::Target);

    let listed = c
        .list_player_games(pb::ListPlayerGamesRequest { name: "ERIN".into(), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(listed.games.len(), 1);
    let g = &listed.games[0];
    assert_eq!((g.game_id.as_str(), g.seat), (game.as_str(), 0));
    assert!(g.finished_unix_ms >= g.joined_unix_ms && g.joined_unix_ms > 0, "{g:?}");
    let out = g.outcome.as_ref().unwrap();
    assert_eq!(out.won, o.result.winner == Some(0), "{out:?} {:?}", o.result);
    assert_eq!(out.totals, o.result.totals.iter().map(|t| *t as i32).collect::<Vec<_>>());
    assert_eq!(out.reason, pb::GameEndReason::Target as i32);
    assert_eq!(g.seats[0].account, "Erin");
    assert_eq!(g.format.as_ref().unwrap().kind, "gin");
    let profile = c.get_account(pb::GetAccountRequest { name: "erin".into() }).await.unwrap().into_inner();
    assert_eq!(profile.games_finished, 1);

    // A bot account joins a guest's game: marked a bot; the guest's seat names no account.
    let guest = lobby
        .create_game(pb::CreateGameRequest { join: true, name: "guest".into(), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    lobby
        .join_game(authed(pb::JoinGameRequest { game_id: guest.game_id.clone(), ..Default::default() }, &zed))
        .await
        .unwrap();
    let s = seats(&mut gc, &guest.game_id).await;
    assert!(s[0].account.is_empty() && s[0].account_kind == 0 && !s[0].account_deleted, "{:?}", s[0]);
    assert_eq!((s[1].name.as_str(), s[1].account_kind), ("Zed", pb::AccountKind::Bot as i32));
    // One seat per account in a game.
    let open = lobby
        .create_game(authed(pb::CreateGameRequest { join: true, ..Default::default() }, &zed))
        .await
        .unwrap()
        .into_inner();
    let twice = lobby
        .join_game(authed(pb::JoinGameRequest { game_id: open.game_id.clone(), ..Default::default() }, &zed))
        .await
        .unwrap_err();
    assert_eq!(twice.code(), Code::FailedPrecondition, "{twice:?}");
    // The account token acts for its seat (and not in games it holds none of).
    let e = gc
        .resign(authed(pb::ResignRequest { game_id: game.clone(), ..Default::default() }, &zed))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    let seq = crate::common::get_game(&mut gc, &guest.game_id, "").await.seq;
    gc.resign(authed(pb::ResignRequest { game_id: guest.game_id.clone(), expected_seq: seq }, &zed))
        .await
        .unwrap();
    let zed_games = c
        .list_player_games(authed(pb::ListPlayerGamesRequest::default(), &zed))
        .await
        .unwrap()
        .into_inner()
        .games;
    assert_eq!(zed_games.len(), 2);
    assert!(!zed_games.iter().find(|g| g.game_id == guest.game_id).unwrap().outcome.as_ref().unwrap().won);

    // Export: the account, its games, no secret.
    let json = c.export_account(authed(pb::ExportAccountRequest {}, &erin)).await.unwrap().into_inner().json;
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["account"]["name"], "Erin");
    assert_eq!(doc["games"][0]["id"], game.as_str());
    assert_eq!(doc["tokens"].as_array().unwrap().len(), 1);
    assert!(!json.contains(&erin) && !json.contains(erin.strip_prefix("gin_at_").unwrap()));
    assert!(!json.contains("argon2"), "no password hash");

    // Deletion: confirmed by the name exactly; the token ends, the name stays taken, the
    // seats say deleted.
    let e = c
        .delete_account(authed(
            pb::DeleteAccountRequest { confirm_name: "zed".into(), password: String::new() },
            &zed,
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    who(&mut c, &zed).await.unwrap();
    c.delete_account(authed(
        pb::DeleteAccountRequest { confirm_name: "Zed".into(), password: String::new() },
        &zed,
    ))
    .await
    .unwrap();
    assert_eq!(who(&mut c, &zed).await.unwrap_err().code(), Code::Unauthenticated);
    assert_eq!(
        c.register(pb::RegisterRequest { name: "zed".into(), kind: 2, ..Default::default() })
            .await
            .unwrap_err()
            .code(),
        Code::AlreadyExists
    );
    let s = seats(&mut gc, &guest.game_id).await;
    assert!(s[1].account_deleted && s[1].account.is_empty(), "{:?}", s[1]);
    assert_eq!(
        c.get_account(pb::GetAccountRequest { name: "Zed".into() }).await.unwrap_err().code(),
        Code::NotFound
    );
    server.stop().await;

    // Nothing secret on disk after all that.
    let bytes = every_byte(dir.path());
    assert!(!holds(&bytes, password));
    for t in [&erin, &zed] {
        assert!(!holds(&bytes, t) && !holds(&bytes, t.strip_prefix("gin_at_").unwrap()));
    }

    // After a restart: the seats still name their accounts (read back from the store).
    let server = TestServer::start_with(cfg(&db)).await;
    let mut gc = crate::common::Games::new(server.channel().await);
    let s = seats(&mut gc, &game).await;
    assert_eq!((s[0].account.as_str(), s[0].account_kind), ("Erin", pb::AccountKind::Person as i32));
    let s = seats(&mut gc, &guest.game_id).await;
    assert!(s[1].account_deleted, "{:?}", s[1]);
    let s = seats(&mut gc, &open.game_id).await;
    assert!(s[0].account_deleted, "an unfinished game's seat too: {:?}", s[0]);
    server.stop().await;
}

/// Two servers on one PostgreSQL: an account registered at one signs in and plays at the
/// other at once (an unknown token makes a server read the others' changes), and a token
/// revoked at one is refused by the other within a second.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgresql_two_servers_share_accounts_and_revocations_within_a_second() {
    use crate::restart::Proc;
    use gin_proto::v1::lobby_service_client::LobbyServiceClient;
    let Some(pg) = gin_server::storage::pg_cluster::for_test() else { return };
    let db = std::path::PathBuf::from(pg.create_database("accounts").unwrap());
    let dir = tempfile::tempdir().unwrap();
    let lease = ["--lease-ms", "1500"];
    let a = Proc::start_in_cluster(&db, &dir.path().join("a.log"), &lease).await;
    let b = Proc::start_in_cluster(&db, &dir.path().join("b.log"), &lease).await;
    let (ca, cb) = (a.channel().await, b.channel().await);
    let (mut at_a, mut at_b) = (AccountServiceClient::new(ca.clone()), AccountServiceClient::new(cb.clone()));

    let fay = register(&mut at_a, "Fay", "fay's password").await.token;
    assert_eq!(who(&mut at_b, &fay).await.unwrap().account.unwrap().name, "Fay", "known at B at once");
    let session = sign_in(&mut at_b, "fay", "fay's password").await.unwrap();
    let session_id = session.token_info.unwrap().id;
    who(&mut at_a, &session.token).await.unwrap();
    let e = at_b.register(pb::RegisterRequest { name: "FAY".into(), kind: 2, ..Default::default() }).await;
    assert_eq!(e.unwrap_err().code(), Code::AlreadyExists);

    // Plays at B with the token made at A.
    let game = LobbyServiceClient::new(cb.clone())
        .create_game(authed(
            pb::CreateGameRequest {
                rules: Some(crate::common::preset("standard")),
                join: true,
                house_bot: "simple".into(),
                seed: 3,
                ..Default::default()
            },
            &fay,
        ))
        .await
        .unwrap()
        .into_inner()
        .game_id;
    let sdk = gin_sdk::Client::from_channel(cb.clone(), crate::house::opts());
    let o = sdk.play(&game, &fay, &mut gin_strategies::simple::SimpleStrategy::new(2)).await.unwrap();
    assert_eq!(o.reason, pb::GameEndReason::Target);
    let listed = at_a
        .list_player_games(authed(pb::ListPlayerGamesRequest::default(), &fay))
        .await
        .unwrap()
        .into_inner()
        .games;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].seats[0].account, "Fay");

    // Revoked at A: refused at B within a second.
    at_a.revoke_token(authed(pb::RevokeTokenRequest { id: session_id }, &fay)).await.unwrap();
    let t = std::time::Instant::now();
    loop {
        match who(&mut at_b, &session.token).await {
            Err(e) if e.code() == Code::Unauthenticated => break,
            Err(e) => panic!("{e:?}"),
            Ok(_) => {
                assert!(t.elapsed() < Duration::from_secs(1), "still accepted at B after {:?}", t.elapsed());
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    }
    who(&mut at_b, &fay).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quick_match_seats_accounts_as_themselves_and_never_one_account_twice() {
    use gin_proto::v1::lobby_service_client::LobbyServiceClient;
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(cfg(&dir.path().join("gin.db"))).await;
    let mut c = client(&server).await;
    let gus = register(&mut c, "Gus", "").await.token;
    let ask = |ch: Channel, token: String, name: &str| {
        let req = pb::QuickMatchRequest {
            rules: Some(crate::common::preset("standard")),
            name: name.into(),
            ..Default::default()
        };
        async move { LobbyServiceClient::new(ch).quick_match(authed(req, &token)).await.map(|r| r.into_inner()) }
    };
    // Two calls of one account (two connections) are not paired with each other: the guest
    // who comes next is paired with the first.
    let first = tokio::spawn(ask(server.channel().await, gus.clone(), "x"));
    tokio::time::sleep(Duration::from_millis(200)).await;
    let second = tokio::spawn(ask(server.channel().await, gus.clone(), "y"));
    tokio::time::sleep(Duration::from_millis(200)).await;
    let guest = ask(server.channel().await, String::new(), "hal").await.unwrap();
    let paired = tokio::time::timeout(Duration::from_secs(5), first).await.unwrap().unwrap().unwrap();
    assert_eq!(paired.game_id, guest.game_id);
    second.abort();
    let mut gc = crate::common::Games::new(server.channel().await);
    let s = seats(&mut gc, &guest.game_id).await;
    let (mine, theirs) = (&s[paired.seat as usize], &s[guest.seat as usize]);
    assert_eq!(
        (mine.name.as_str(), mine.account.as_str(), mine.account_kind),
        ("Gus", "Gus", pb::AccountKind::Bot as i32)
    );
    assert_eq!((theirs.name.as_str(), theirs.account.as_str()), ("hal", ""));
    server.stop().await;
}

#[tokio::test]
async fn an_accounts_games_come_newest_first_a_page_at_a_time() {
    use gin_proto::v1::lobby_service_client::LobbyServiceClient;
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(cfg(&dir.path().join("gin.db"))).await;
    let mut c = client(&server).await;
    let mut lobby = LobbyServiceClient::new(server.channel().await);
    let ivy = register(&mut c, "Ivy", "").await.token;
    // A guest's game is nobody's.
    lobby
        .create_game(pb::CreateGameRequest { join: true, name: "Ivy".into(), ..Default::default() })
        .await
        .unwrap();
    let mut made = Vec::new();
    for _ in 0..3 {
        let g = lobby
            .create_game(authed(pb::CreateGameRequest { join: true, ..Default::default() }, &ivy))
            .await
            .unwrap()
            .into_inner();
        made.push(g.game_id);
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    made.reverse();
    let page =
        |token: String| pb::ListPlayerGamesRequest { name: "ivy".into(), page_size: 2, page_token: token };
    let first = c.list_player_games(page(String::new())).await.unwrap().into_inner();
    assert_eq!(first.account.unwrap().name, "Ivy");
    assert!(!first.next_page_token.is_empty());
    let second = c.list_player_games(page(first.next_page_token.clone())).await.unwrap().into_inner();
    assert!(second.next_page_token.is_empty());
    let ids: Vec<String> = first.games.iter().chain(&second.games).map(|g| g.game_id.clone()).collect();
    assert_eq!(ids, made);
    assert!(first.games.iter().all(|g| g.outcome.is_none() && g.finished_unix_ms == 0));
    let e = c.list_player_games(page("not a token".into())).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().starts_with("page_token"), "{e:?}");
    let e = c.list_player_games(pb::ListPlayerGamesRequest::default()).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "no name and not signed in");
    server.stop().await;
}

/// An unknown name costs a password verification too (against a dummy hash), so timing does
/// not tell which names exist: a statistical test over many tries. 30 sign-ins with a wrong
/// password for 30 registered names and 30 for unknown names, interleaved (each name once:
/// no name's throttle in the way; spread over loopback addresses: none's either). If the
/// two kinds of answer took the same time, how many unknown names' times lie above the
/// pooled median is hypergeometric (mean 15, sd 1.95); 8 to 22 is ±3.6 sd (a chance of about
/// 3 in 10,000 to fail by luck), while an unknown name answered without a verification is
/// faster every time and puts none above it.
#[tokio::test]
async fn an_unknown_name_takes_about_as_long_as_a_wrong_password() {
    const N: usize = 30;
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(gin_server::Config {
        registrations_per_hour: 0,
        ..cfg(&dir.path().join("gin.db"))
    })
    .await;
    let mut c = client(&server).await;
    for i in 0..N {
        register(&mut c, &format!("known{i}"), "the right password").await;
    }
    let mut times: Vec<(Duration, bool)> = Vec::new();
    for i in 0..N {
        // Each kind first in half the pairs: the first of two verifications in a row pays more
        // (its 19 MiB come fresh from the system; the second's reuse them).
        let order = if i % 2 == 0 { [false, true] } else { [true, false] };
        for unknown in order {
            // 15 failures an address: under its limit (20 in 15 minutes).
            let from = format!("127.0.0.{}", 10 + times.len() / 15);
            let mut c = AccountServiceClient::new(channel_from(&server, &from).await);
            let name = if unknown { format!("nobody{i}") } else { format!("known{i}") };
            let t = std::time::Instant::now();
            let e = sign_in(&mut c, &name, "a wrong password").await.unwrap_err();
            times.push((t.elapsed(), unknown));
            assert_eq!((e.code(), e.message()), (Code::Unauthenticated, "wrong name or password"), "{name}");
        }
    }
    let mut sorted: Vec<Duration> = times.iter().map(|t| t.0).collect();
    sorted.sort();
    let median = sorted[N - 1];
    let above = times.iter().filter(|(t, unknown)| *unknown && *t > median).count();
    let show = |unknown: bool| {
        let mut v: Vec<Duration> = times.iter().filter(|t| t.1 == unknown).map(|t| t.0).collect();
        v.sort();
        v[N / 2]
    };
    assert!(
        (8..=22).contains(&above),
        "{above} of {N} unknown names above the pooled median: median wrong password {:?}, unknown name {:?}",
        show(false),
        show(true)
    );
    server.stop().await;
}

/// A channel to `server` whose calls come from `local` (a loopback address: 127.0.0.2 is
/// another caller than 127.0.0.1).
async fn channel_from(server: &TestServer, local: &str) -> Channel {
    Channel::from_shared(server.url())
        .unwrap()
        .local_address(Some(local.parse().unwrap()))
        .connect()
        .await
        .unwrap()
}

/// A game against the house bot, created by `token`'s account (a guest without a token).
async fn create_vs_house(ch: &Channel, token: &str) -> Result<pb::CreateGameResponse, tonic::Status> {
    use gin_proto::v1::lobby_service_client::LobbyServiceClient;
    let req = pb::CreateGameRequest {
        rules: Some(crate::common::preset("standard")),
        join: true,
        name: "guest".into(),
        house_bot: "simple".into(),
        ..Default::default()
    };
    LobbyServiceClient::new(ch.clone()).create_game(authed(req, token)).await.map(|r| r.into_inner())
}

fn quota_cfg(db: &Path, limit: u32) -> gin_server::Config {
    gin_server::Config { max_open_games_per_caller: limit, ..cfg(db) }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_accounts_unfinished_games_count_from_every_address_and_come_back_at_their_end() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(quota_cfg(&dir.path().join("gin.db"), 2)).await;
    let mut c = client(&server).await;
    let ivy = register(&mut c, "Ivy", "").await.token;
    let (here, there) = (channel_from(&server, "127.0.0.1").await, channel_from(&server, "127.0.0.2").await);

    // One game from each address: the account's two.
    let first = create_vs_house(&here, &ivy).await.unwrap();
    create_vs_house(&there, &ivy).await.unwrap();
    for ch in [&here, &there] {
        let e = create_vs_house(ch, &ivy).await.unwrap_err();
        assert_eq!(e.code(), Code::ResourceExhausted, "the account is at its limit from any address: {e:?}");
    }
    // Neither address is: a guest at either creates games.
    create_vs_house(&there, "").await.unwrap();

    // The account's game ends: its quota comes back, at the other address too.
    let mut gc = crate::common::Games::new(here.clone());
    let seq = crate::common::get_game(&mut gc, &first.game_id, "").await.seq;
    gc.resign(authed(pb::ResignRequest { game_id: first.game_id.clone(), expected_seq: seq }, &ivy))
        .await
        .unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        match create_vs_house(&there, &ivy).await {
            Ok(_) => break,
            Err(e) if e.code() == Code::ResourceExhausted && tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(e) => panic!("the ended game's quota is not given back: {e:?}"),
        }
    }
    let e = create_vs_house(&here, &ivy).await.unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted, "one came back, one taken again: {e:?}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn guests_at_their_addresss_limit_do_not_stop_an_account_behind_it() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(quota_cfg(&dir.path().join("gin.db"), 1)).await;
    let mut c = client(&server).await;
    let jay = register(&mut c, "Jay", "jay's passphrase").await.token;
    let shared = channel_from(&server, "127.0.0.2").await;

    // The guests behind the address use its one game.
    create_vs_house(&shared, "").await.unwrap();
    let e = create_vs_house(&shared, "").await.unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted, "{e:?}");
    // The account behind it still has its own.
    create_vs_house(&shared, &jay).await.unwrap();
    let e = create_vs_house(&shared, &jay).await.unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted, "and no more: {e:?}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quick_match_partners_player_joined_names_its_account_and_kind() {
    use gin_proto::v1::game_event::Kind as K;
    use gin_proto::v1::lobby_service_client::LobbyServiceClient;
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(cfg(&dir.path().join("gin.db"))).await;
    let mut c = client(&server).await;
    let kim = register(&mut c, "Kim", "kim's passphrase").await.token;
    let lex = register(&mut c, "Lex", "").await.token;
    let ask = |ch: Channel, token: String| {
        let req = pb::QuickMatchRequest {
            rules: Some(crate::common::preset("standard")),
            name: "someone".into(),
            ..Default::default()
        };
        async move { LobbyServiceClient::new(ch).quick_match(authed(req, &token)).await.map(|r| r.into_inner()) }
    };
    // Kim waits; Lex, a bot account, pairs.
    let waiting = tokio::spawn(ask(server.channel().await, kim.clone()));
    tokio::time::sleep(Duration::from_millis(200)).await;
    let pairing = ask(server.channel().await, lex.clone()).await.unwrap();
    let mine = tokio::time::timeout(Duration::from_secs(5), waiting).await.unwrap().unwrap().unwrap();
    assert_eq!(mine.game_id, pairing.game_id);

    // Kim's stream after the first seat's join (seq 1): its partner's (the caller who paired
    // takes seat 1, seq 2) names the account and its kind.
    assert_eq!((mine.seat, pairing.seat), (0, 1));
    let mut gc = crate::common::Games::new(server.channel().await);
    let mut stream = crate::common::watch(&mut gc, &mine.game_id, &mine.seat_token, 1).await;
    let read = crate::common::read_until(&mut stream, 2, Duration::from_secs(5)).await;
    let joined: Vec<_> = read
        .iter()
        .filter_map(crate::common::event)
        .filter_map(|e| match &e.kind {
            Some(K::PlayerJoined(j)) => Some(j.clone()),
            _ => None,
        })
        .collect();
    let partner = joined.iter().find(|j| j.seat == pairing.seat).expect("the partner's PlayerJoined");
    assert_eq!(
        (partner.name.as_str(), partner.account.as_str(), partner.account_kind, partner.account_deleted),
        ("Lex", "Lex", pb::AccountKind::Bot as i32, false),
        "{partner:?}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quick_match_counts_the_game_against_the_pairing_account_from_any_address() {
    use gin_proto::v1::lobby_service_client::LobbyServiceClient;
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(quota_cfg(&dir.path().join("gin.db"), 1)).await;
    let mut c = client(&server).await;
    let max = register(&mut c, "Max", "").await.token;
    let ask = |ch: Channel, token: String| {
        let req = pb::QuickMatchRequest {
            rules: Some(crate::common::preset("standard")),
            name: "q".into(),
            ..Default::default()
        };
        async move { LobbyServiceClient::new(ch).quick_match(authed(req, &token)).await.map(|r| r.into_inner()) }
    };
    // The account's one game, from 127.0.0.1.
    create_vs_house(&channel_from(&server, "127.0.0.1").await, &max).await.unwrap();
    // A guest waits; the account pairs from 127.0.0.2: refused, and the guest waits on.
    let waiting = tokio::spawn(ask(channel_from(&server, "127.0.0.3").await, String::new()));
    tokio::time::sleep(Duration::from_millis(200)).await;
    let e = ask(channel_from(&server, "127.0.0.2").await, max.clone()).await.unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted, "the account is at its limit from any address: {e:?}");
    // A guest at 127.0.0.2 is not the account: it pairs.
    let paired = ask(channel_from(&server, "127.0.0.2").await, String::new()).await.unwrap();
    let theirs = tokio::time::timeout(Duration::from_secs(5), waiting).await.unwrap().unwrap().unwrap();
    assert_eq!(paired.game_id, theirs.game_id);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournaments_games_count_against_its_creators_account_from_any_address() {
    use gin_proto::v1::join_tournament_response::Kind as J;
    use gin_proto::v1::tournament_service_client::TournamentServiceClient;
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(quota_cfg(&dir.path().join("gin.db"), 1)).await;
    let mut c = client(&server).await;
    let nia = register(&mut c, "Nia", "").await.token;
    let (here, there) = (channel_from(&server, "127.0.0.1").await, channel_from(&server, "127.0.0.2").await);
    let spec = pb::TournamentSpec {
        parallel: 1,
        duplicate: false,
        seed: 0,
        ..crate::tournament::spec(pb::TournamentFormat::RoundRobin, 2, 1)
    };
    let req = pb::CreateTournamentRequest { spec: Some(spec) };
    let tid = TournamentServiceClient::new(here.clone())
        .create_tournament(authed(req, &nia))
        .await
        .unwrap()
        .into_inner()
        .tournament_id;
    // Two guests enter from a third address: its one game starts.
    let mut streams =
        crate::common::enter_tournament(&channel_from(&server, "127.0.0.3").await, &tid, &["a", "b"]).await;
    let first = &mut streams[0];
    loop {
        let m =
            tokio::time::timeout(Duration::from_secs(5), first.message()).await.unwrap().unwrap().unwrap();
        if matches!(m.kind, Some(J::Assignment(_))) {
            break;
        }
    }
    // The game counts against Nia, from any address, and not against the address it created
    // the tournament from.
    for ch in [&here, &there] {
        let e = create_vs_house(ch, &nia).await.unwrap_err();
        assert_eq!(e.code(), Code::ResourceExhausted, "the tournament's game is the account's: {e:?}");
    }
    create_vs_house(&here, "").await.unwrap();
    server.stop().await;
}

#[tokio::test]
async fn an_account_enters_a_tournament_as_itself_once_and_its_games_are_its() {
    use gin_proto::v1::tournament_service_client::TournamentServiceClient;
    use gin_sdk::entrant::{Entry, play_tournament};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("gin.db");
    let server = TestServer::start_with(cfg(&db)).await;
    let ch = server.channel().await;
    let mut c = client(&server).await;
    let tia = register(&mut c, "Tia", "").await.token;
    let spec = |seed| pb::TournamentSpec {
        parallel: 1,
        duplicate: false,
        seed,
        ..crate::tournament::spec(pb::TournamentFormat::RoundRobin, 2, 2)
    };

    // Once per tournament: a second entry of the account is refused, the first stands.
    let once = crate::common::create_tournament(&ch, spec(5)).await;
    let mut t = TournamentServiceClient::new(ch.clone());
    let join = |name: &str| pb::JoinTournamentRequest {
        tournament_id: once.clone(),
        name: name.into(),
        accept_fixed_deals: true,
        ..Default::default()
    };
    let mut first = t.join_tournament(authed(join("someone"), &tia)).await.unwrap().into_inner();
    let Some(pb::join_tournament_response::Kind::Entered(e)) = first.message().await.unwrap().unwrap().kind
    else {
        panic!("not entered")
    };
    assert_eq!((e.entrant, e.joined), (0, 1));
    let again = t.join_tournament(authed(join("Tia"), &tia)).await.unwrap_err();
    assert_eq!(again.code(), Code::AlreadyExists, "{again:?}");
    let state = t
        .get_tournament(pb::GetTournamentRequest { tournament_id: once.clone() })
        .await
        .unwrap()
        .into_inner()
        .state
        .unwrap();
    let rows = state.standings.unwrap().rows;
    assert_eq!(rows.len(), 1, "the refused entry added nobody: {rows:?}");
    assert_eq!(rows[0].name, "Tia", "the entrant is named as its account");
    drop(first);

    // A tournament played by the account (entering with its token, as `gin-bot tournament
    // join --token gin_at_…` does) and a guest: its games' seats are the account's.
    let tid = crate::common::create_tournament(&ch, spec(9)).await;
    let sdk = gin_sdk::Client::from_channel(ch.clone(), crate::house::opts());
    let entry = |name: &str, token: Option<String>| Entry {
        tournament_id: tid.clone(),
        name: name.into(),
        token,
        accept_fixed_deals: true,
    };
    let (a, b) = tokio::join!(
        play_tournament(&sdk, entry("not my name", Some(tia.clone())), "simple", 1, |_| {}),
        play_tournament(&sdk, entry("guest", None), "random", 2, |_| {}),
    );
    let standings = a.unwrap();
    b.unwrap();
    let names: Vec<&str> = standings.rows.iter().map(|r| r.name.as_str()).collect();
    assert!(names.contains(&"Tia") && names.contains(&"guest"), "{names:?}");
    let games = c
        .list_player_games(pb::ListPlayerGamesRequest { name: "tia".into(), ..Default::default() })
        .await
        .unwrap()
        .into_inner()
        .games;
    assert_eq!(games.len(), 2, "both tournament games are in the account's history: {games:?}");
    for g in &games {
        let mine = &g.seats[g.seat as usize];
        assert_eq!((mine.account.as_str(), mine.account_kind), ("Tia", pb::AccountKind::Bot as i32));
        let other = &g.seats[1 - g.seat as usize];
        assert!(other.account.is_empty() && other.name == "guest", "{other:?}");
        assert!(g.finished_unix_ms > 0);
    }
    server.stop().await;

    // Kept across a restart: the entrant is still the account's.
    let server = TestServer::start_with(cfg(&db)).await;
    let state = TournamentServiceClient::new(server.channel().await)
        .get_tournament(pb::GetTournamentRequest { tournament_id: once.clone() })
        .await
        .unwrap()
        .into_inner()
        .state
        .unwrap();
    let rows = state.standings.unwrap().rows;
    assert_eq!(rows.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(), ["Tia"]);
    let mut t = TournamentServiceClient::new(server.channel().await);
    let again = t.join_tournament(authed(join("Tia"), &tia)).await.unwrap_err();
    assert_eq!(again.code(), Code::AlreadyExists, "after a restart too: {again:?}");
    server.stop().await;
}
