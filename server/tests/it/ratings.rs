//! Ratings over the network: a rated game between two bot accounts moves the winner up and the
//! loser down, seen in `GetPlayerRatings`, `GetRatingHistory` and (once established) the
//! leaderboard; rated games refused without accounts, with a seed, a house bot or custom
//! rules, and a guest or the same account refused a seat, nothing changed; the ratings the
//! same after a restart, and after a `kill -9` right after a rated game's last action (rated
//! exactly once, with the game's end).

use std::path::Path;

use gin_proto::v1 as pb;
use gin_proto::v1::account_service_client::AccountServiceClient;
use gin_proto::v1::lobby_service_client::LobbyServiceClient;
use gin_proto::v1::rating_service_client::RatingServiceClient;
use tonic::Code;
use tonic::transport::Channel;

use crate::common::{TestServer, authed};

fn cfg(db: &Path) -> gin_server::Config {
    gin_server::Config { db: db.to_path_buf(), rate_per_sec: 0, ..gin_server::Config::default() }
}

/// A new bot account named `name`: its token.
pub(crate) async fn register_bot(ch: &Channel, name: &str) -> String {
    AccountServiceClient::new(ch.clone())
        .register(pb::RegisterRequest {
            name: name.into(),
            kind: pb::AccountKind::Bot as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .token
}

fn rated(rules: &str) -> pb::CreateGameRequest {
    pb::CreateGameRequest {
        rules: Some(crate::common::preset(rules)),
        join: true,
        rated: true,
        ..Default::default()
    }
}

/// A rated game of two-player gin `standard` between the accounts of `a` and `b`, played to
/// its end by `simple` (a) and `random` (b) through gin-sdk: its id and the winning seat.
async fn play_rated(ch: &Channel, a: &str, b: &str) -> (String, u32) {
    let mut lobby = LobbyServiceClient::new(ch.clone());
    let game = lobby.create_game(authed(rated("standard"), a)).await.unwrap().into_inner().game_id;
    lobby
        .join_game(authed(pb::JoinGameRequest { game_id: game.clone(), ..Default::default() }, b))
        .await
        .unwrap();
    let sdk = gin_sdk::Client::from_channel(ch.clone(), crate::house::opts());
    let (g, t) = (game.clone(), b.to_owned());
    let other = sdk.clone();
    let theirs = tokio::spawn(async move {
        let mut s = gin_strategies::random::RandomStrategy::new(3);
        other.play(&g, &t, &mut s).await.unwrap()
    });
    let mut mine = gin_strategies::simple::SimpleStrategy::new(1);
    let o = sdk.play(&game, a, &mut mine).await.unwrap();
    theirs.await.unwrap();
    assert_eq!(o.reason, pb::GameEndReason::Target);
    (game, o.result.winner.expect("a winner"))
}

async fn ratings_of(ch: &Channel, name: &str) -> Vec<pb::PoolRating> {
    RatingServiceClient::new(ch.clone())
        .get_player_ratings(pb::GetPlayerRatingsRequest { name: name.into() })
        .await
        .unwrap()
        .into_inner()
        .ratings
}

#[tokio::test]
async fn a_rated_game_moves_the_winner_up_and_the_loser_down_once_and_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("gin.db");
    let server = TestServer::start_with(cfg(&db)).await;
    let ch = server.channel().await;
    let (ann, bob) = (register_bot(&ch, "Ann").await, register_bot(&ch, "Bob").await);
    let mut lobby = LobbyServiceClient::new(ch.clone());

    // Refused, nothing created: no account, a seed, a house bot, custom rules, a first dealer.
    let e = lobby.create_game(rated("standard")).await.unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated, "{e:?}");
    for (req, field) in [
        (pb::CreateGameRequest { seed: 7, ..rated("standard") }, "seed"),
        (pb::CreateGameRequest { house_bot: "simple".into(), ..rated("standard") }, "house_bot"),
        (pb::CreateGameRequest { first_dealer: Some(1), ..rated("standard") }, "first_dealer"),
    ] {
        let e = lobby.create_game(authed(req, &ann)).await.unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
        assert!(e.message().starts_with(field), "{e:?}");
    }
    let mut rules = engine::RuleSet::standard();
    rules.gin_bonus += 1;
    let custom = pb::Rules { kind: Some(pb::rules::Kind::Custom(gin_proto::rules::to_pb(&rules))) };
    let e = lobby
        .create_game(authed(pb::CreateGameRequest { rules: Some(custom), ..rated("standard") }, &ann))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
    assert!(e.message().contains("custom rules are casual"), "{e:?}");
    let open = lobby.list_games(pb::ListGamesRequest::default()).await.unwrap().into_inner();
    assert!(open.games.is_empty(), "a refused rated game was created: {open:?}");

    // A guest, and the same account twice, are refused a seat of a rated game.
    let game = lobby.create_game(authed(rated("standard"), &ann)).await.unwrap().into_inner().game_id;
    let e = lobby
        .join_game(pb::JoinGameRequest { game_id: game.clone(), name: "guest".into(), ..Default::default() })
        .await
        .unwrap_err();
    assert!(e.message().contains("rated game seats signed-in accounts only"), "{e:?}");
    let e = lobby
        .join_game(authed(pb::JoinGameRequest { game_id: game.clone(), ..Default::default() }, &ann))
        .await
        .unwrap_err();
    assert!(e.message().contains("holds a seat of this game already"), "{e:?}");

    // A rated game played to its end.
    let (game, winner) = play_rated(&ch, &ann, &bob).await;
    let (win, lose) = if winner == 0 { ("Ann", "Bob") } else { ("Bob", "Ann") };
    let w = ratings_of(&ch, win).await;
    let l = ratings_of(&ch, lose).await;
    assert_eq!((w.len(), l.len()), (1, 1), "{w:?} {l:?}");
    assert_eq!((w[0].pool.as_str(), l[0].pool.as_str()), ("gin/standard", "gin/standard"));
    assert!(w[0].rating > 1500.0 && l[0].rating < 1500.0, "{w:?} {l:?}");
    assert_eq!((w[0].games, l[0].games), (1, 1));
    assert!(w[0].provisional && w[0].rank.is_none(), "one game is provisional: {w:?}");
    assert!(w[0].deviation < 350.0);
    // The history: the game, from 1500 to the new rating, against the other.
    let mut rs = RatingServiceClient::new(ch.clone());
    let h = rs
        .get_rating_history(pb::GetRatingHistoryRequest {
            name: win.into(),
            pool: "gin/standard".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(h.changes.len(), 1, "{h:?}");
    let c = &h.changes[0];
    assert_eq!((c.game_id.as_str(), c.place, c.rating_before), (game.as_str(), 1, 1500.0));
    assert_eq!(c.rating_after, w[0].rating);
    assert_eq!(c.opponents, vec![lose.to_string()]);
    assert!(h.next_page.is_empty());
    // Provisional ratings are kept off the board; an unknown pool is refused.
    let board = rs
        .get_leaderboard(pb::GetLeaderboardRequest { pool: "gin/standard".into(), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!((board.total, board.lines.len()), (0, 0), "{board:?}");
    let e =
        rs.get_leaderboard(pb::GetLeaderboardRequest { pool: "gin/nope".into(), ..Default::default() }).await;
    assert_eq!(e.unwrap_err().code(), Code::InvalidArgument);

    // A second game starts from the first's ratings.
    let (_, winner2) = play_rated(&ch, &ann, &bob).await;
    let ann_after = ratings_of(&ch, "Ann").await;
    let before = if winner == 0 { &w[0] } else { &l[0] };
    assert_eq!(ann_after[0].games, 2);
    assert_eq!(ann_after[0].rating > before.rating, winner2 == 0, "{before:?} -> {ann_after:?}");
    let bob_after = ratings_of(&ch, "Bob").await;
    server.stop().await;

    // The same after a restart.
    let server = TestServer::start_with(cfg(&db)).await;
    let ch = server.channel().await;
    assert_eq!(ratings_of(&ch, "Ann").await, ann_after);
    assert_eq!(ratings_of(&ch, "Bob").await, bob_after);
    server.stop().await;
}

#[tokio::test]
async fn a_rated_game_killed_at_its_end_is_rated_once() {
    use crate::restart::Proc;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("gin.db");
    let log = dir.path().join("server.log");
    let mut server = Proc::start(&db, &log).await;
    let ch = server.channel().await;
    let (cy, di) = (register_bot(&ch, "Cy").await, register_bot(&ch, "Di").await);
    let (game, winner) = play_rated(&ch, &cy, &di).await;
    // Killed the moment the last action was acknowledged: the end and its ratings are one
    // write, durable before the answer.
    server.kill();

    let server = Proc::start(&db, &log).await;
    let ch = server.channel().await;
    let (win, lose) = if winner == 0 { ("Cy", "Di") } else { ("Di", "Cy") };
    let w = ratings_of(&ch, win).await;
    let l = ratings_of(&ch, lose).await;
    assert_eq!((w.len(), l.len()), (1, 1), "{w:?} {l:?}\n{}", server.logs());
    assert_eq!((w[0].games, l[0].games), (1, 1), "rated once");
    assert!(w[0].rating > 1500.0 && l[0].rating < 1500.0, "{w:?} {l:?}");
    let h = RatingServiceClient::new(ch.clone())
        .get_rating_history(pb::GetRatingHistoryRequest {
            name: lose.into(),
            pool: "gin/standard".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(h.changes.len(), 1);
    assert_eq!(h.changes[0].game_id, game);
    assert_eq!(h.changes[0].place, 2);
}
