//! The network bot against a real server on loopback sockets: the SDK resumes a stream cut
//! mid-game and still finishes, every decision applied exactly once.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use engine::Action;
use gin_proto::v1 as pb;
use gin_sdk::{Client, Options};
use gin_strategies::{Decision, Strategy};
use tokio::net::{TcpListener, TcpStream};

use crate::common::Server;

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
    inner: gin_strategies::simple::SimpleStrategy,
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
    let mut me = CutAt { inner: gin_strategies::simple::SimpleStrategy::new(4), n: 0, at: 6, cut };
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

/// The table `simple`, which asks the proxy to cut the connections at its `at`-th move.
struct TableCutAt {
    inner: Box<dyn gin_sdk::TableStrategy>,
    n: u32,
    at: u32,
    cut: Arc<AtomicBool>,
}

impl gin_sdk::TableStrategy for TableCutAt {
    fn name(&self) -> &str {
        "table-cut-at"
    }
    fn act(&mut self, view: &gin_sdk::TableTracker, turn: &pb::TurnInfo) -> pb::LegalAction {
        self.n += 1;
        if self.n == self.at {
            self.cut.store(true, Ordering::Relaxed);
        }
        self.inner.act(view, turn)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_game_s_stream_cut_mid_game_resumes_and_every_move_is_applied_once() {
    let server = Server::start().await;
    let proxy = Proxy::start(server.addr).await;
    let opts = Options { retry_for: Duration::from_secs(30), ..Options::default() };
    let client = Client::connect_with(&format!("http://{}", proxy.addr), opts).await.unwrap();
    let c = client
        .lobby()
        .create_game(pb::CreateGameRequest {
            format: r#"{"kind":"rummy","players":3,"end":{"hands":2}}"#.into(),
            join: true,
            name: "cut".into(),
            house_bot: "simple".into(),
            seed: 22,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let cut = Arc::new(AtomicBool::new(false));
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
    let mut me = TableCutAt { inner: gin_sdk::table_strategy("simple", 4).unwrap(), n: 0, at: 6, cut };
    let o =
        tokio::time::timeout(Duration::from_secs(120), client.play_table(&c.game_id, &c.seat_token, &mut me))
            .await
            .expect("the game finishes")
            .unwrap();
    watcher.await.unwrap();
    assert_eq!(proxy.cuts.load(Ordering::Relaxed), 1);
    assert!(me.n > 6, "the cut came mid-game: {} moves", me.n);
    assert!(o.resumes >= 1, "the stream was resumed: {o:?}");
    assert_eq!(o.result.reason, pb::GameEndReason::Target as i32);
    let direct = Client::connect(&server.url()).await.unwrap();
    let rec = direct.get_record(&c.game_id).await.unwrap();
    assert_eq!(rec.result.as_ref(), Some(&o.result));
    let record = engine::TableRecord::parse(&rec.record_json).unwrap();
    let mine = record.moves.iter().filter(|m| m.seat == o.seat).count() as u32;
    assert_eq!(mine, me.n, "one applied move per decision");
    assert_eq!(o.decisions, me.n);
    server.stop().await;
}
