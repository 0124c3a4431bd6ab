//! The ladder over real sockets: ten programs of three strengths (one `random`, five
//! `simple`, four `strong`) play `gin/standard`'s ladder through gin-sdk's loop
//! (`play_ladder`) until the ratings have sorted them (bounded in time); then every `strong`
//! rates above every `simple`, every `simple` above every `random`, every deviation has
//! shrunk, and no program met the same opponent twice in a row while another within reach
//! waited. And: a house bot takes on a lone player; the ladder's refusals.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gin_proto::v1 as pb;
use gin_proto::v1::account_service_client::AccountServiceClient;
use gin_proto::v1::ladder_service_client::LadderServiceClient;
use gin_proto::v1::rating_service_client::RatingServiceClient;
use gin_sdk::ladder::{LadderEvent, LadderPlayer, LadderStop};
use tonic::Code;
use tonic::transport::Channel;

use crate::common::{TestServer, authed};
use crate::ratings::register_bot;

fn cfg(db: &Path) -> gin_server::Config {
    gin_server::Config {
        db: db.to_path_buf(),
        rate_per_sec: 0,
        registrations_per_hour: 0,
        ..gin_server::Config::default()
    }
}

async fn rating_in(ch: &Channel, name: &str, pool: &str) -> Option<pb::PoolRating> {
    let r = RatingServiceClient::new(ch.clone())
        .get_player_ratings(pb::GetPlayerRatingsRequest { name: name.into() })
        .await
        .unwrap()
        .into_inner();
    r.ratings.into_iter().find(|r| r.pool == pool)
}

/// What one program of the ladder test saw.
#[derive(Default)]
struct Program {
    /// Since when, at which rating, it waits now.
    waiting: Option<(Instant, f64)>,
    /// Its waits: from, to, its rating.
    waits: Vec<(Instant, Instant, f64)>,
    games: Vec<Game>,
}

/// One of its games as the ladder seated it.
struct Game {
    id: String,
    /// When it was matched.
    at: Instant,
    /// Its rating then.
    rating: f64,
    /// The others: name and rating.
    others: Vec<(String, f64)>,
    waited_ms: u64,
}

/// The strength of a program by its name's start.
fn strength(name: &str) -> usize {
    ["random", "simple", "strong"].iter().position(|s| name.starts_with(s)).expect("a strength")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_programs_on_the_ladder_sort_themselves_by_strength() {
    const POOL: &str = "gin/standard";
    let dir = tempfile::tempdir().unwrap();
    // A program stopped while queued may have been seated a moment before (its stream closed
    // after the match was sent): its game's other seat then plays against the clock until the
    // absent seat abandons, after the idle limit: 10 s here, not an hour.
    let server = TestServer::start_with(gin_server::Config {
        idle_game_ttl: Duration::from_secs(10),
        ..cfg(&dir.path().join("g.db"))
    })
    .await;
    let ch = server.channel().await;
    // One `random`: two of them would meet, and a game of two random players runs to the hand
    // limit (some 120 hands, 6,000 moves), minutes here.
    let names: Vec<String> = ["random-1", "simple-1", "simple-2", "simple-3", "simple-4", "simple-5"]
        .iter()
        .chain(&["strong-1", "strong-2", "strong-3", "strong-4"])
        .map(|s| s.to_string())
        .collect();
    let stop = LadderStop::default();
    // Each program's ladder games in order, and its waits in the queue.
    let log: Arc<Mutex<HashMap<String, Program>>> = Arc::default();
    let mut programs = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let token = register_bot(&ch, name).await;
        let sdk =
            gin_sdk::Client::from_channel(ch.clone(), crate::house::opts()).with_account_token(Some(token));
        let (name, stop, log) = (name.clone(), stop.clone(), log.clone());
        programs.push(tokio::spawn(async move {
            let kind = &name[..6];
            let mut strategy = gin_strategies::by_name(kind, i as u64 + 1).unwrap();
            let mut on_event = |e: LadderEvent<'_>| {
                let mut log = log.lock().unwrap();
                let me = log.entry(name.clone()).or_default();
                match e {
                    LadderEvent::Queued(q) if me.waiting.is_none() => {
                        me.waiting = Some((Instant::now(), q.rating))
                    }
                    LadderEvent::Matched(m) => {
                        let (from, rating) = me.waiting.take().expect("a queued message comes first");
                        me.waits.push((from, Instant::now(), rating));
                        let others: Vec<(String, f64)> = m
                            .seats
                            .iter()
                            .filter(|s| s.name != name)
                            .map(|s| (s.name.clone(), s.rating))
                            .collect();
                        me.games.push(Game {
                            id: m.game_id.clone(),
                            at: Instant::now(),
                            rating,
                            others,
                            waited_ms: m.waited_ms,
                        });
                    }
                    _ => {}
                }
            };
            sdk.play_ladder(POOL, LadderPlayer::Two(strategy.as_mut()), None, &stop, &mut on_event).await
        }));
    }
    // Plays until the ratings are in order and every program has played enough, or the bound.
    let started = Instant::now();
    let bound = Duration::from_secs(300);
    let sorted = |r: &HashMap<String, pb::PoolRating>| {
        let (mut low, mut high) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
        for (n, p) in r {
            let s = strength(n);
            low[s] = low[s].min(p.rating);
            high[s] = high[s].max(p.rating);
        }
        low[2] > high[1] && low[1] > high[0]
    };
    let last = loop {
        tokio::time::sleep(Duration::from_secs(2)).await;
        let mut now = HashMap::new();
        for n in &names {
            if let Some(r) = rating_in(&ch, n, POOL).await {
                now.insert(n.clone(), r);
            }
        }
        let enough = now.len() == names.len() && now.values().all(|r| r.games >= 6);
        if started.elapsed().as_secs() % 20 < 2 {
            let line: Vec<String> =
                now.iter().map(|(n, r)| format!("{n} {:.0}/{}", r.rating, r.games)).collect();
            eprintln!("{:?}: {line:?}", started.elapsed());
        }
        if enough && sorted(&now) || started.elapsed() > bound {
            break now;
        }
    };
    stop.stop();
    for (n, p) in names.iter().zip(programs) {
        let played = p.await.unwrap().unwrap_or_else(|e| panic!("{n}'s ladder loop failed: {e}"));
        assert!(played >= 6, "{n} played {played} games");
    }
    let summary: Vec<String> = names
        .iter()
        .map(|n| {
            last.get(n).map_or(format!("{n}: -"), |r| {
                format!("{n}: {:.0} ±{:.0} ({} games)", r.rating, r.deviation, r.games)
            })
        })
        .collect();
    assert!(sorted(&last), "not sorted by strength after {:?}: {summary:?}", started.elapsed());
    // Every deviation shrank from that of the program's first rated game.
    let mut ratings = RatingServiceClient::new(ch.clone());
    for n in &names {
        let h = ratings
            .get_rating_history(pb::GetRatingHistoryRequest {
                name: n.clone(),
                pool: POOL.into(),
                limit: 100,
                page: String::new(),
            })
            .await
            .unwrap()
            .into_inner();
        let first = h.changes.last().expect("rated games").deviation_after;
        let now = last[n].deviation;
        assert!(
            now < first,
            "{n}: deviation {now:.1} after {} games, {first:.1} after the first",
            last[n].games
        );
    }
    // No program met the same opponent twice in a row while another program within reach of
    // both (1,000 points: the ladder's widest window) waited; and a repeat only after both had
    // waited the ladder's 15 s.
    let log = std::mem::take(&mut *log.lock().unwrap());
    let mut repeats = 0;
    for (n, p) in log.iter() {
        for w in p.games.windows(2) {
            let (before, g) = (&w[0], &w[1]);
            if before.others.iter().map(|o| &o.0).ne(g.others.iter().map(|o| &o.0)) {
                continue;
            }
            repeats += 1;
            assert!(
                g.waited_ms >= 15_000,
                "{n} played {:?} twice in a row after {} ms ({})",
                g.others,
                g.waited_ms,
                g.id
            );
            let slack = Duration::from_millis(300);
            let at = g.at;
            for (o, q) in log.iter().filter(|(o, _)| *o != n && g.others.iter().all(|x| &x.0 != *o)) {
                for &(from, to, rating) in &q.waits {
                    let reach = (rating - g.rating).abs() <= 1000.0
                        && g.others.iter().all(|x| (rating - x.1).abs() <= 1000.0);
                    assert!(
                        !(reach && from + slack < at && at + slack < to),
                        "{n} played {:?} again in {} while {o} (rating {rating:.0}) waited",
                        g.others,
                        g.id
                    );
                }
            }
        }
    }
    eprintln!("ladder sorted in {:?} ({repeats} allowed repeats): {summary:?}", started.elapsed());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lone_player_meets_the_house_bot_nearest_its_rating_and_the_ladder_refuses_bad_joins() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(gin_server::Config {
        ladder_house_bots: true,
        ladder_house_after: Duration::from_millis(300),
        ..cfg(&dir.path().join("g.db"))
    })
    .await;
    let ch = server.channel().await;
    let mut ladder = LadderServiceClient::new(ch.clone());
    // Refusals: no account, an unknown pool, the same account twice; nothing queued by them.
    let e = ladder.join_ladder(pb::JoinLadderRequest { pool: "gin/standard".into() }).await.unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated);
    let token = register_bot(&ch, "lonely").await;
    let e = ladder
        .join_ladder(authed(pb::JoinLadderRequest { pool: "gin/nope".into() }, &token))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("gin/standard"), "{}", e.message());
    let listed = ladder.list_ladders(pb::ListLaddersRequest {}).await.unwrap().into_inner();
    assert!(listed.house_bots);
    assert!(listed.pools.iter().all(|p| p.waiting == 0), "{listed:?}");
    // A house account's name is the server's.
    let e = AccountServiceClient::new(ch.clone())
        .register(pb::RegisterRequest {
            name: "House-Strong".into(),
            kind: pb::AccountKind::Bot as i32,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");

    let mut first = ladder
        .join_ladder(authed(pb::JoinLadderRequest { pool: "gin/standard".into() }, &token))
        .await
        .unwrap()
        .into_inner();
    let q = match first.message().await.unwrap().unwrap().event {
        Some(pb::join_ladder_response::Event::Queued(q)) => q,
        other => panic!("first a queued message, not {other:?}"),
    };
    assert_eq!((q.pool.as_str(), q.waiting, q.rating, q.games), ("gin/standard", 1, 1500.0, 0));
    assert!(q.provisional);
    let e = ladder
        .join_ladder(authed(pb::JoinLadderRequest { pool: "gin/standard".into() }, &token))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::AlreadyExists);
    let m = loop {
        match first.message().await.unwrap().expect("the stream ends after the match").event {
            Some(pb::join_ladder_response::Event::Matched(m)) => break m,
            Some(pb::join_ladder_response::Event::Queued(_)) => continue,
            None => panic!("an empty message"),
        }
    };
    assert!(first.message().await.unwrap().is_none(), "the stream ends after the match");
    assert!(m.waited_ms >= 300, "{m:?}");
    // Three house bots at 1500: the nearest is any of them; a bot account, seated by the house.
    let them = &m.seats[1 - m.seat as usize];
    assert!(them.name.starts_with("house-"), "{m:?}");
    assert_eq!(them.kind, pb::AccountKind::Bot as i32);
    assert_eq!(m.seats[m.seat as usize].name, "lonely");
    // Played to its end with the seat token given; the game is rated for both accounts.
    let sdk = gin_sdk::Client::from_channel(ch.clone(), crate::house::opts());
    let mut s = gin_strategies::simple::SimpleStrategy::new(1);
    let o = sdk.play(&m.game_id, &m.seat_token, &mut s).await.unwrap();
    let mine = loop {
        // The ratings reach the board's memory within a poll.
        if let Some(r) = rating_in(&ch, "lonely", "gin/standard").await.filter(|r| r.games == 1) {
            break r;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let theirs = rating_in(&ch, &them.name, "gin/standard").await.expect("the house bot is rated");
    assert_eq!(theirs.games, 1);
    let won = o.winner == Some(o.seat);
    assert_eq!(mine.rating > 1500.0, won, "{mine:?} after {}", o.line());
    assert_eq!(theirs.rating > 1500.0, !won, "{theirs:?}");
    server.stop().await;
}
