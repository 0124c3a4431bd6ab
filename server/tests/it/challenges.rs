//! Challenges (`ChallengeService`) on real sockets: one account challenges another, the
//! challenged one sees it on its stream and accepts, both play the game to its end through the
//! SDK with their account tokens, and it is in both accounts' games; decline, cancel and expiry
//! reach both streams; refused challenges (self, unknown or deleted, anonymous, no `play`,
//! rated, bad input, too many) change nothing; a program's `accept_next_challenge` takes only
//! the challenges its filter likes, and plays them.

use std::time::Duration;

use gin_proto::v1 as pb;
use gin_proto::v1::challenge_service_client::ChallengeServiceClient;
use gin_sdk::Client;
use tonic::Code;

use crate::common::{TestServer, authed, preset};

/// A test server without rate limits, on a fresh database.
async fn server(dir: &tempfile::TempDir) -> TestServer {
    TestServer::start_with(gin_server::Config {
        db: dir.path().join("gin.db"),
        rate_per_sec: 0,
        ..gin_server::Config::default()
    })
    .await
}

/// Registers `name` (a bot account): an SDK client holding its token, and the token.
async fn account(server: &TestServer, name: &str) -> (Client, String) {
    let guest = Client::from_channel(server.channel().await, crate::house::opts());
    let r = guest.register(name, pb::AccountKind::Bot, "", "").await.unwrap();
    (guest.with_account_token(Some(r.token.clone())), r.token)
}

/// The next message of a challenge stream, within five seconds.
async fn next(s: &mut tonic::Streaming<pb::WatchChallengesResponse>) -> pb::Challenge {
    tokio::time::timeout(Duration::from_secs(5), s.message())
        .await
        .expect("a change within 5 s")
        .unwrap()
        .unwrap()
        .challenge
        .unwrap()
}

/// The status of a refused SDK call.
fn refused<T: std::fmt::Debug>(r: Result<T, gin_sdk::Error>) -> tonic::Status {
    match r {
        Err(gin_sdk::Error::Rpc { status, .. }) => status,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

fn to(opponent: &str) -> pb::CreateChallengeRequest {
    pb::CreateChallengeRequest {
        opponent: opponent.into(),
        rules: Some(preset("standard")),
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_challenge_is_seen_accepted_and_played_to_its_end_by_both_accounts() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(&dir).await;
    let (ann, ann_token) = account(&server, "Ann").await;
    let (bob, bob_token) = account(&server, "Bob").await;
    let mut ann_sees = ann.watch_challenges().await.unwrap();
    let mut bob_sees = bob.watch_challenges().await.unwrap();

    let clock = pb::TurnClock { turn_millis: 60_000, policy: 0 };
    let sent = ann
        .create_challenge(pb::CreateChallengeRequest {
            opponent: "BOB".into(),
            seat: Some(1),
            clock: Some(clock),
            ..to("BOB")
        })
        .await
        .unwrap();
    assert_eq!((sent.challenger.as_str(), sent.opponent.as_str(), sent.sent), ("Ann", "Bob", true));
    assert_eq!(sent.state, pb::ChallengeState::Open as i32);
    let life = sent.expires_ms - sent.created_ms;
    assert_eq!(life, 600_000, "the default expiry is ten minutes");

    let seen = next(&mut bob_sees).await;
    assert_eq!(seen.challenge_id, sent.challenge_id);
    assert!(!seen.sent && seen.state == pb::ChallengeState::Open as i32, "{seen:?}");
    assert_eq!((seen.challenger.as_str(), seen.clock, seen.challenger_seat), ("Ann", Some(clock), Some(1)));
    assert_eq!(next(&mut ann_sees).await.challenge_id, sent.challenge_id);
    assert_eq!(bob.list_challenges().await.unwrap(), vec![seen.clone()]);

    let accepted = bob.accept_challenge(&seen.challenge_id).await.unwrap();
    let game = accepted.challenge.as_ref().unwrap().game_id.clone();
    assert!(!game.is_empty() && !accepted.seat_token.is_empty());
    assert_eq!(accepted.challenge.as_ref().unwrap().seat, Some(0), "the challenger asked for seat 1");
    let ann_told = next(&mut ann_sees).await;
    assert_eq!(ann_told.state, pb::ChallengeState::Accepted as i32);
    assert_eq!((ann_told.game_id.as_str(), ann_told.seat), (game.as_str(), Some(1)));
    let bob_told = next(&mut bob_sees).await;
    assert_eq!((bob_told.state, bob_told.seat), (pb::ChallengeState::Accepted as i32, Some(0)));
    // Answered: open nowhere, and not to be answered again.
    assert!(ann.list_challenges().await.unwrap().is_empty());
    assert!(bob.list_challenges().await.unwrap().is_empty());
    assert_eq!(refused(bob.accept_challenge(&seen.challenge_id).await).code(), Code::NotFound);

    // Both seats are the accounts', with the clock asked for.
    let mut gc = crate::common::Games::new(server.channel().await);
    let snap = crate::common::get_game(&mut gc, &game, &ann_token).await;
    assert_eq!(snap.viewer_seat, Some(1));
    let names: Vec<&str> = snap.seats.iter().map(|s| s.account.as_str()).collect();
    assert_eq!(names, ["Bob", "Ann"]);
    // The seat token AcceptChallenge gave is the accepting account's seat's, not the other's.
    let by_token = crate::common::get_game(&mut gc, &game, &accepted.seat_token).await;
    assert_eq!(by_token.viewer_seat, Some(0), "Bob's seat token");

    // Both play it to the end with their account tokens alone.
    let (a, b) = tokio::join!(
        async {
            let mut s = gin_strategies::simple::SimpleStrategy::new(1);
            ann.play(&game, &ann_token, &mut s).await
        },
        async {
            let mut s = gin_strategies::simple::SimpleStrategy::new(2);
            bob.play(&game, &bob_token, &mut s).await
        }
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(a.result, b.result);
    let over = crate::common::get_game(&mut gc, &game, "").await;
    assert_eq!(over.phase, pb::Phase::GameOver as i32);
    for (who, c) in [("Ann", &ann), ("Bob", &bob)] {
        let listed = c.list_player_games(who, 0, "").await.unwrap();
        assert_eq!(listed.games.len(), 1, "{who}");
        assert_eq!(listed.games[0].game_id, game);
        assert!(listed.games[0].outcome.is_some(), "{who}: the game is over");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn decline_cancel_and_expiry_close_a_challenge_and_both_streams_are_told() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(&dir).await;
    let (ann, _) = account(&server, "Ann").await;
    let (bob, _) = account(&server, "Bob").await;
    let mut ann_sees = ann.watch_challenges().await.unwrap();
    let mut bob_sees = bob.watch_challenges().await.unwrap();

    // Declined by Bob; Ann cannot decline it for him, nor can Bob cancel it.
    let c = ann.create_challenge(to("Bob")).await.unwrap();
    assert_eq!(next(&mut ann_sees).await.state, pb::ChallengeState::Open as i32);
    assert_eq!(next(&mut bob_sees).await.state, pb::ChallengeState::Open as i32);
    assert_eq!(refused(ann.decline_challenge(&c.challenge_id).await).code(), Code::NotFound);
    assert_eq!(refused(bob.cancel_challenge(&c.challenge_id).await).code(), Code::NotFound);
    assert_eq!(refused(ann.accept_challenge(&c.challenge_id).await).code(), Code::NotFound);
    assert_eq!(bob.list_challenges().await.unwrap().len(), 1, "refused answers changed nothing");
    let d = bob.decline_challenge(&c.challenge_id).await.unwrap();
    assert_eq!(d.state, pb::ChallengeState::Declined as i32);
    assert_eq!(next(&mut ann_sees).await.state, pb::ChallengeState::Declined as i32);
    assert_eq!(next(&mut bob_sees).await.state, pb::ChallengeState::Declined as i32);
    assert_eq!(refused(bob.accept_challenge(&c.challenge_id).await).code(), Code::NotFound);

    // Cancelled by Ann.
    let c = ann.create_challenge(to("Bob")).await.unwrap();
    next(&mut ann_sees).await;
    next(&mut bob_sees).await;
    let x = ann.cancel_challenge(&c.challenge_id).await.unwrap();
    assert_eq!(x.state, pb::ChallengeState::Cancelled as i32);
    let told = next(&mut bob_sees).await;
    assert_eq!(
        (told.challenge_id.as_str(), told.state),
        (c.challenge_id.as_str(), pb::ChallengeState::Cancelled as i32)
    );
    next(&mut ann_sees).await;
    assert_eq!(refused(bob.accept_challenge(&c.challenge_id).await).code(), Code::NotFound);

    // Expired after its one second.
    let c = ann.create_challenge(pb::CreateChallengeRequest { expires_in_s: 1, ..to("Bob") }).await.unwrap();
    assert_eq!(c.expires_ms - c.created_ms, 1000);
    next(&mut bob_sees).await;
    next(&mut ann_sees).await;
    let told = next(&mut bob_sees).await;
    assert_eq!(
        (told.challenge_id.as_str(), told.state),
        (c.challenge_id.as_str(), pb::ChallengeState::Expired as i32)
    );
    assert_eq!(next(&mut ann_sees).await.state, pb::ChallengeState::Expired as i32);
    assert_eq!(refused(bob.accept_challenge(&c.challenge_id).await).code(), Code::NotFound);
    assert!(ann.list_challenges().await.unwrap().is_empty());
    assert!(bob.list_challenges().await.unwrap().is_empty());
    // No game was created for either.
    assert!(bob.list_player_games("", 0, "").await.unwrap().games.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_challenges_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(&dir).await;
    let (ann, _) = account(&server, "Ann").await;
    let (bob, _) = account(&server, "Bob").await;
    let (gone, _) = account(&server, "Gone").await;
    gone.delete_account("Gone", "").await.unwrap();
    let ch = server.channel().await;

    let cases: Vec<(pb::CreateChallengeRequest, Code, &str)> = vec![
        (to("ann"), Code::InvalidArgument, "cannot challenge yourself"),
        (to("Nobody"), Code::NotFound, "no account named \"Nobody\""),
        (to("Gone"), Code::NotFound, "no account named \"Gone\""),
        (
            pb::CreateChallengeRequest {
                rated: true,
                rules: Some(pb::Rules {
                    kind: Some(pb::rules::Kind::Custom(gin_proto::rules::to_pb(&engine::RuleSet {
                        gin_bonus: 31,
                        ..engine::RuleSet::standard()
                    }))),
                }),
                ..to("Bob")
            },
            Code::InvalidArgument,
            "custom rules are casual",
        ),
        (pb::CreateChallengeRequest { seat: Some(2), ..to("Bob") }, Code::InvalidArgument, "seat: 2"),
        (
            pb::CreateChallengeRequest { expires_in_s: 3601, ..to("Bob") },
            Code::InvalidArgument,
            "expires_in_s",
        ),
        (
            pb::CreateChallengeRequest { format: "three-player".into(), rules: None, ..to("Bob") },
            Code::InvalidArgument,
            "seats two accounts",
        ),
        (
            pb::CreateChallengeRequest {
                clock: Some(pb::TurnClock { turn_millis: 5, policy: 0 }),
                ..to("Bob")
            },
            Code::InvalidArgument,
            "clock.turn_millis",
        ),
    ];
    for (req, code, says) in cases {
        let s = refused(ann.create_challenge(req.clone()).await);
        assert_eq!(s.code(), code, "{req:?}: {s:?}");
        assert!(s.message().contains(says), "{req:?}: {:?} should say {says:?}", s.message());
    }
    // Anonymous: UNAUTHENTICATED; a token without `play`: PERMISSION_DENIED.
    let mut raw = ChallengeServiceClient::new(ch.clone());
    let s = raw.create_challenge(to("Bob")).await.unwrap_err();
    assert_eq!(s.code(), Code::Unauthenticated, "{s:?}");
    assert_eq!(
        raw.list_challenges(pb::ListChallengesRequest {}).await.unwrap_err().code(),
        Code::Unauthenticated
    );
    let no_play = ann.create_token("no play", &[pb::TokenScope::Account]).await.unwrap().token;
    let s = raw.create_challenge(authed(to("Bob"), &no_play)).await.unwrap_err();
    assert_eq!(s.code(), Code::PermissionDenied, "{s:?}");
    assert!(bob.list_challenges().await.unwrap().is_empty(), "nothing was sent");
    assert!(ann.list_challenges().await.unwrap().is_empty());

    // Twenty open at once, not a twenty-first; one answered frees a place.
    let mut open = Vec::new();
    for _ in 0..gin_server::api::challenges::MAX_OPEN_SENT {
        open.push(ann.create_challenge(to("Bob")).await.unwrap());
    }
    let s = refused(ann.create_challenge(to("Bob")).await);
    assert_eq!(s.code(), Code::ResourceExhausted, "{s:?}");
    assert_eq!(bob.list_challenges().await.unwrap().len(), 20, "the refused one was not sent");
    // Bob may still challenge Ann: the limit is per challenger.
    bob.create_challenge(to("Ann")).await.unwrap();
    bob.decline_challenge(&open[0].challenge_id).await.unwrap();
    ann.create_challenge(to("Bob")).await.unwrap();
    assert_eq!(ann.list_challenges().await.unwrap().len(), 21, "20 sent, 1 received");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_accepts_only_the_challenges_its_filter_likes_and_plays_them() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(&dir).await;
    let (ann, ann_token) = account(&server, "Ann").await;
    let (bot, bot_token) = account(&server, "Robo").await;
    // Sent before the program watches: the stream starts with the open ones.
    let oklahoma = ann
        .create_challenge(pb::CreateChallengeRequest { rules: Some(preset("oklahoma")), ..to("Robo") })
        .await
        .unwrap();
    let wants_standard = |c: &pb::Challenge| matches!(&c.rules, Some(pb::Rules { kind: Some(pb::rules::Kind::Preset(p)) }) if p == "standard");
    let taker = tokio::spawn({
        let bot = bot.clone();
        async move { bot.accept_next_challenge(wants_standard).await }
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!taker.is_finished(), "the oklahoma challenge is not taken");
    let standard = ann.create_challenge(to("Robo")).await.unwrap();
    let got = tokio::time::timeout(Duration::from_secs(10), taker).await.unwrap().unwrap().unwrap();
    assert_eq!(got.challenge_id, standard.challenge_id);
    assert_eq!(got.state, pb::ChallengeState::Accepted as i32);
    // The other stays open, for a person to answer.
    let open = bot.list_challenges().await.unwrap();
    assert_eq!(
        open.iter().map(|c| c.challenge_id.as_str()).collect::<Vec<_>>(),
        [oklahoma.challenge_id.as_str()]
    );

    let (a, b) = tokio::join!(
        async {
            let mut s = gin_strategies::simple::SimpleStrategy::new(3);
            ann.play(&got.game_id, &ann_token, &mut s).await
        },
        async {
            let mut s = gin_strategies::simple::SimpleStrategy::new(4);
            bot.play(&got.game_id, &bot_token, &mut s).await
        }
    );
    assert_eq!(a.unwrap().result, b.unwrap().result);
}

/// Two servers on one PostgreSQL: a challenge sent at one is seen, accepted and played at the
/// other (the calls go to the lobby's leader, which keeps the open challenges).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgresql_a_challenge_sent_at_one_server_is_seen_and_played_at_another() {
    use crate::restart::Proc;
    let Some(pg) = gin_server::storage::pg_cluster::for_test() else { return };
    let db = std::path::PathBuf::from(pg.create_database("challenges").unwrap());
    let dir = tempfile::tempdir().unwrap();
    let lease = ["--lease-ms", "1500"];
    let a = Proc::start_in_cluster(&db, &dir.path().join("a.log"), &lease).await;
    let b = Proc::start_in_cluster(&db, &dir.path().join("b.log"), &lease).await;
    let at_a = Client::from_channel(a.channel().await, crate::house::opts());
    let at_b = Client::from_channel(b.channel().await, crate::house::opts());
    let ann_token = at_a.register("Ann", pb::AccountKind::Bot, "", "").await.unwrap().token;
    let bob_token = at_b.register("Bob", pb::AccountKind::Bot, "", "").await.unwrap().token;
    let ann = at_a.with_account_token(Some(ann_token.clone()));
    let bob = at_b.with_account_token(Some(bob_token.clone()));

    let mut bob_sees = bob.watch_challenges().await.unwrap();
    let sent = ann.create_challenge(to("Bob")).await.unwrap();
    let seen = next(&mut bob_sees).await;
    assert_eq!((seen.challenge_id.as_str(), seen.sent), (sent.challenge_id.as_str(), false));
    assert_eq!(bob.list_challenges().await.unwrap().len(), 1, "listed at B too");
    let accepted = bob.accept_challenge(&seen.challenge_id).await.unwrap().challenge.unwrap();
    let (x, y) = tokio::join!(
        async {
            let mut s = gin_strategies::simple::SimpleStrategy::new(5);
            ann.play(&accepted.game_id, &ann_token, &mut s).await
        },
        async {
            let mut s = gin_strategies::simple::SimpleStrategy::new(6);
            bob.play(&accepted.game_id, &bob_token, &mut s).await
        }
    );
    assert_eq!(x.unwrap().result, y.unwrap().result);
}

/// A stream with nothing to say sends keep-alives (no challenge), at the heartbeat's pace,
/// and still brings the next change.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_challenge_stream_sends_keep_alives() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(gin_server::Config {
        db: dir.path().join("gin.db"),
        rate_per_sec: 0,
        heartbeat: Duration::from_millis(200),
        ..gin_server::Config::default()
    })
    .await;
    let (ann, _) = account(&server, "Ann").await;
    let (bob, _) = account(&server, "Bob").await;
    let mut bob_sees = bob.watch_challenges().await.unwrap();
    for _ in 0..2 {
        let m =
            tokio::time::timeout(Duration::from_secs(2), bob_sees.message()).await.unwrap().unwrap().unwrap();
        assert_eq!(m.challenge, None, "a keep-alive");
    }
    let sent = ann.create_challenge(to("Bob")).await.unwrap();
    loop {
        let m =
            tokio::time::timeout(Duration::from_secs(2), bob_sees.message()).await.unwrap().unwrap().unwrap();
        if let Some(c) = m.challenge {
            assert_eq!(c.challenge_id, sent.challenge_id);
            break;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rated_challenge_is_played_and_rates_both_accounts() {
    use gin_proto::v1::rating_service_client::RatingServiceClient;
    let dir = tempfile::tempdir().unwrap();
    let server = server(&dir).await;
    let (ann, ann_token) = account(&server, "Ann").await;
    let (bob, bob_token) = account(&server, "Bob").await;
    let sent = ann.create_challenge(pb::CreateChallengeRequest { rated: true, ..to("Bob") }).await.unwrap();
    assert!(sent.rated);
    let accepted = bob.accept_challenge(&sent.challenge_id).await.unwrap();
    let game = accepted.challenge.unwrap().game_id;
    let (a, b) = tokio::join!(
        async {
            let mut s = gin_strategies::simple::SimpleStrategy::new(1);
            ann.play(&game, &ann_token, &mut s).await
        },
        async {
            let mut s = gin_strategies::random::RandomStrategy::new(2);
            bob.play(&game, &bob_token, &mut s).await
        }
    );
    let winner = a.unwrap().result.winner.expect("a winner");
    b.unwrap();
    let mut rs = RatingServiceClient::new(server.channel().await);
    let rating = |name: &str| {
        let req = pb::GetPlayerRatingsRequest { name: name.into() };
        let mut rs = rs.clone();
        async move { rs.get_player_ratings(req).await.unwrap().into_inner().ratings }
    };
    let (ra, rb) = (rating("Ann").await, rating("Bob").await);
    assert_eq!((ra.len(), rb.len()), (1, 1), "{ra:?} {rb:?}");
    assert_eq!(ra[0].pool, "gin/standard");
    let (win, lose) = match winner_seat_name(&server, &game, winner).await.as_str() {
        "Ann" => (&ra[0], &rb[0]),
        _ => (&rb[0], &ra[0]),
    };
    assert!(win.rating > 1500.0 && lose.rating < 1500.0, "{win:?} {lose:?}");
    let history = rs
        .get_rating_history(pb::GetRatingHistoryRequest {
            name: "Ann".into(),
            pool: "gin/standard".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(history.changes[0].game_id, game);
}

/// The account name at `seat` of `game`.
async fn winner_seat_name(server: &TestServer, game: &str, seat: u32) -> String {
    let mut gc = crate::common::Games::new(server.channel().await);
    let snap = crate::common::get_game(&mut gc, game, "").await;
    snap.seats[seat as usize].account.clone()
}
