//! The network bot against a real server on loopback sockets: the SDK resumes a stream cut
//! mid-game and still finishes; the `gin-bot play` binary plays games against house bots,
//! quick matches, and a given seat.

mod common;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::Server;
use engine::Action;
use gin_bot::sdk::{Client, Options};
use gin_bot::{Decision, Strategy};
use gin_proto::v1 as pb;
use tokio::net::{TcpListener, TcpStream};

/// A TCP proxy in front of the server that can cut every connection through it at once.
#[derive(Clone)]
struct Proxy {
    addr: SocketAddr,
    conns: Arc<Mutex<Vec<tokio::task::AbortHandle>>>,
    cuts: Arc<AtomicU32>,
}

impl Proxy {
    async fn start(upstream: SocketAddr) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let conns: Arc<Mutex<Vec<tokio::task::AbortHandle>>> = Arc::default();
        let c = conns.clone();
        tokio::spawn(async move {
            while let Ok((mut down, _)) = listener.accept().await {
                let Ok(mut up) = TcpStream::connect(upstream).await else { continue };
                // Small writes must not wait for Nagle's algorithm (40 ms a round trip).
                let _ = (down.set_nodelay(true), up.set_nodelay(true));
                let h = tokio::spawn(async move {
                    let _ = tokio::io::copy_bidirectional(&mut down, &mut up).await;
                });
                c.lock().unwrap().push(h.abort_handle());
            }
        });
        Proxy { addr, conns, cuts: Arc::default() }
    }

    /// Drops every open connection (both directions).
    fn cut(&self) {
        for h in self.conns.lock().unwrap().drain(..) {
            h.abort();
        }
        self.cuts.fetch_add(1, Ordering::Relaxed);
    }
}

/// `simple`, which asks the proxy to cut the connections at its `at`-th decision.
struct CutAt {
    inner: gin_bot::simple::SimpleStrategy,
    n: u32,
    at: u32,
    cut: Arc<AtomicBool>,
}

impl Strategy for CutAt {
    fn name(&self) -> &str {
        "cut-at"
    }
    fn act(&mut self, d: &Decision<'_>) -> Action {
        self.n += 1;
        if self.n == self.at {
            self.cut.store(true, Ordering::Relaxed);
        }
        self.inner.act(d)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_cut_mid_game_resumes_and_the_game_finishes() {
    let server = Server::start().await;
    let proxy = Proxy::start(server.addr).await;
    let opts = Options { retry_for: Duration::from_secs(30), ..Options::default() };
    let client = Client::connect_with(&format!("http://{}", proxy.addr), opts).await.unwrap();
    let seated = client
        .create_game(pb::CreateGameRequest {
            name: "cut".into(),
            house_bot: "simple".into(),
            seed: 21,
            ..Default::default()
        })
        .await
        .unwrap();
    let cut = Arc::new(AtomicBool::new(false));
    // The cut happens while the bot's action is on its way or just after: the stream, and
    // possibly the action, fail and are retried.
    let watcher = {
        let (cut, p) = (cut.clone(), proxy.clone());
        tokio::spawn(async move {
            loop {
                if cut.load(Ordering::Relaxed) {
                    p.cut();
                    return;
                }
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        })
    };
    let mut me = CutAt { inner: gin_bot::simple::SimpleStrategy::new(4), n: 0, at: 6, cut };
    let o =
        tokio::time::timeout(Duration::from_secs(120), client.play(&seated.game_id, &seated.token, &mut me))
            .await
            .expect("the game finishes")
            .unwrap();
    watcher.await.unwrap();
    assert_eq!(proxy.cuts.load(Ordering::Relaxed), 1);
    assert!(me.n > 6, "the cut came mid-game: {} decisions", me.n);
    assert!(o.resumes >= 1, "the stream was resumed: {o:?}");
    assert_eq!(o.reason, pb::GameEndReason::Target);
    // The server's result (read directly, not through the proxy) is the one the bot saw.
    let direct = Client::connect(&server.url()).await.unwrap();
    let snap = direct.get_game(&seated.game_id, "").await.unwrap();
    assert_eq!(snap.result.as_ref(), Some(&o.result));
    let rec = direct.get_record(&seated.game_id).await.unwrap();
    let game = engine::GameRecord::from_json(&rec.record_json).unwrap().replay().unwrap();
    assert_eq!(game.result().unwrap().totals.0.to_vec(), o.result.totals);
    // Every decision the bot made was applied exactly once: its actions in the record.
    let mine = game.actions().iter().filter(|(s, _)| *s == o.seat).count() as u32;
    assert_eq!(mine, me.n, "one applied action per decision");
    server.stop().await;
}

/// Runs `gin-bot` with `args`; returns its stdout, stderr and success.
async fn gin_bot(args: &[&str]) -> (String, String, bool) {
    let out = tokio::time::timeout(
        Duration::from_secs(180),
        tokio::process::Command::new(env!("CARGO_BIN_EXE_gin-bot")).args(args).kill_on_drop(true).output(),
    )
    .await
    .expect("gin-bot finished")
    .unwrap();
    (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap(), out.status.success())
}

/// The game ids of `gin-bot play`'s result lines (`[i/n] <game> seat …`).
fn game_ids(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter(|l| l.starts_with('['))
        .map(|l| l.split_whitespace().nth(1).unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gin_bot_play_plays_house_bots_quick_matches_and_a_given_seat() {
    let server = Server::start().await;
    let url = server.url();
    let client = Client::connect(&url).await.unwrap();

    // Five games against house bots, three at a time.
    let (out, err, ok) = gin_bot(&[
        "play",
        "--server",
        &url,
        "--strategy",
        "simple",
        "--vs-bot",
        "random",
        "--games",
        "5",
        "--concurrency",
        "3",
        "--rules",
        "classic",
    ])
    .await;
    assert!(ok, "stdout:\n{out}\nstderr:\n{err}");
    let ids = game_ids(&out);
    assert_eq!(ids.len(), 5, "{out}");
    let mut wins = 0;
    for (id, line) in ids.iter().zip(out.lines()) {
        assert!(line.contains("vs random (house bot)"), "{line}");
        let snap = client.get_game(id, "").await.unwrap();
        let r = snap.result.expect("each game is over");
        assert_eq!(r.reason, pb::GameEndReason::Target as i32);
        assert_eq!(snap.rules.unwrap().name, "classic");
        assert!(snap.seats[1].bot && !snap.seats[0].bot);
        let me = &snap.seats[0];
        assert_eq!(me.name, "gin-bot-simple");
        let totals = format!("{}-{}", r.totals[0], r.totals[1]);
        assert!(line.contains(&totals), "{line} vs {totals}");
        wins += (r.winner == Some(0)) as u32;
    }
    let summary = out.lines().last().unwrap();
    assert!(summary.starts_with(&format!("5 games: {wins} won")), "{summary}");
    assert!(summary.contains("0 errors"), "{summary}");

    // Two bots asking for a quick match at once are paired: one game. (Two calls of one
    // client, on one connection, never are: see the server's tests.)
    let quick = ["play", "--server", &url, "--games", "1", "--name", "twin"];
    let ((out0, err0, ok0), (out1, err1, ok1)) = tokio::join!(gin_bot(&quick), gin_bot(&quick));
    assert!(ok0 && ok1, "stdout:\n{out0}{out1}\nstderr:\n{err0}{err1}");
    let (ids0, ids1) = (game_ids(&out0), game_ids(&out1));
    assert_eq!((ids0.len(), ids1.len()), (1, 1));
    assert_eq!(ids0[0], ids1[0], "{out0}{out1}");
    let results = [out0.lines().last().unwrap(), out1.lines().last().unwrap()];
    assert!(results.iter().any(|l| l.starts_with("1 games: 1 won")), "{results:?}");
    assert!(results.iter().any(|l| l.starts_with("1 games: 0 won")), "{results:?}");

    // A given seat: a game created elsewhere, played from its token.
    let seated = client
        .create_game(pb::CreateGameRequest {
            house_bot: "simple".into(),
            name: "given".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    let (out, err, ok) =
        gin_bot(&["play", "--server", &url, "--game", &seated.game_id, "--token", &seated.token]).await;
    assert!(ok, "stdout:\n{out}\nstderr:\n{err}");
    assert!(out.starts_with(&format!("{} seat 0 vs simple (house bot): ", seated.game_id)), "{out}");
    assert!(client.get_game(&seated.game_id, "").await.unwrap().result.is_some());

    // Refusals are reported: an unknown house bot, a bad token.
    let (_, err, ok) = gin_bot(&["play", "--server", &url, "--vs-bot", "nope"]).await;
    assert!(!ok && err.contains("unknown strategy \"nope\""), "{err}");
    let (_, err, ok) =
        gin_bot(&["play", "--server", &url, "--game", &seated.game_id, "--token", "bad"]).await;
    assert!(!ok && err.contains("Unauthenticated"), "{err}");
    server.stop().await;
}
