//! Test helpers: a real server on a loopback socket, generated clients, a player loop.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use gin_proto::v1 as pb;
use gin_proto::v1::game_service_client::GameServiceClient;
use gin_proto::v1::lobby_service_client::LobbyServiceClient;
use tokio::sync::oneshot;
use tonic::metadata::MetadataValue;
use tonic::transport::Channel;
use tonic::{Request, Status};

/// A server running in this process on 127.0.0.1:0.
pub struct TestServer {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<anyhow::Result<()>>>,
}

impl TestServer {
    pub async fn start(db: &Path) -> TestServer {
        Self::start_with(gin_server::Config {
            db: db.to_path_buf(),
            rate_per_sec: 0,
            ..gin_server::Config::default()
        })
        .await
    }

    pub async fn start_with(cfg: gin_server::Config) -> TestServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (tx, rx) = oneshot::channel::<()>();
        let task = tokio::spawn(gin_server::run(listener, cfg, async {
            let _ = rx.await;
        }));
        TestServer { addr, stop: Some(tx), task: Some(task) }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub async fn channel(&self) -> Channel {
        for _ in 0..50 {
            if let Ok(c) = Channel::from_shared(self.url()).unwrap().connect().await {
                return c;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("server did not come up");
    }

    pub async fn stop(mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.task.take() {
            t.await.unwrap().unwrap();
        }
    }
}

/// A request carrying a seat token.
pub fn authed<T>(msg: T, token: &str) -> Request<T> {
    let mut r = Request::new(msg);
    if !token.is_empty() {
        r.metadata_mut().insert("authorization", MetadataValue::try_from(format!("Bearer {token}")).unwrap());
    }
    r
}

/// One seated player: its token and everything its stream delivered.
pub struct Player {
    pub seat: u32,
    pub token: String,
    pub game_id: String,
    pub last_seq: u64,
    pub messages: Vec<pb::WatchGameResponse>,
}

/// Creates a game with `rules` and `seed` and seats two players.
pub async fn new_game(ch: &Channel, rules: pb::Rules, seed: u64) -> (String, [Player; 2]) {
    let mut lobby = LobbyServiceClient::new(ch.clone());
    let c = lobby
        .create_game(pb::CreateGameRequest {
            rules: Some(rules),
            join: true,
            name: "alice".into(),
            seed,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let j = lobby
        .join_game(pb::JoinGameRequest { game_id: c.game_id.clone(), name: "bob".into(), seat: None })
        .await
        .unwrap()
        .into_inner();
    let p = |seat, token: String| Player {
        seat,
        token,
        game_id: c.game_id.clone(),
        last_seq: 0,
        messages: Vec::new(),
    };
    (c.game_id.clone(), [p(c.seat.unwrap(), c.seat_token), p(j.seat, j.seat_token)])
}

pub fn preset(name: &str) -> pb::Rules {
    pb::Rules { kind: Some(pb::rules::Kind::Preset(name.into())) }
}

/// Sends `a` for `p` with its last seen seq. Returns the status on refusal.
pub async fn send(
    gc: &mut GameServiceClient<Channel>,
    p: &Player,
    a: &pb::LegalAction,
) -> Result<u64, Status> {
    let g = p.game_id.clone();
    let seq = p.last_seq;
    let t = &p.token;
    use pb::ActionKind as K;
    Ok(match K::try_from(a.kind).unwrap() {
        K::TakeUpcard => {
            gc.take_upcard(authed(pb::TakeUpcardRequest { game_id: g, expected_seq: seq }, t))
                .await?
                .into_inner()
                .seq
        }
        K::PassUpcard => {
            gc.pass_upcard(authed(pb::PassUpcardRequest { game_id: g, expected_seq: seq }, t))
                .await?
                .into_inner()
                .seq
        }
        K::DrawStock => {
            gc.draw(authed(
                pb::DrawRequest { game_id: g, expected_seq: seq, source: pb::DrawSource::Stock as i32 },
                t,
            ))
            .await?
            .into_inner()
            .seq
        }
        K::DrawPile => {
            gc.draw(authed(
                pb::DrawRequest { game_id: g, expected_seq: seq, source: pb::DrawSource::Pile as i32 },
                t,
            ))
            .await?
            .into_inner()
            .seq
        }
        K::Discard => {
            gc.discard(authed(pb::DiscardRequest { game_id: g, expected_seq: seq, card: a.card.clone() }, t))
                .await?
                .into_inner()
                .seq
        }
        K::Knock => {
            gc.knock(authed(
                pb::KnockRequest { game_id: g, expected_seq: seq, discard: a.card.clone(), melds: vec![] },
                t,
            ))
            .await?
            .into_inner()
            .seq
        }
        K::BigGin => {
            gc.knock(authed(
                pb::KnockRequest { game_id: g, expected_seq: seq, discard: String::new(), melds: vec![] },
                t,
            ))
            .await?
            .into_inner()
            .seq
        }
        K::Unspecified => panic!("unspecified action"),
    })
}

/// The engine action a legal action stands for (to replay with the engine).
pub fn engine_action(a: &pb::LegalAction) -> engine::Action {
    use pb::ActionKind as K;
    match K::try_from(a.kind).unwrap() {
        K::TakeUpcard | K::DrawPile => engine::Action::DrawPile,
        K::PassUpcard => engine::Action::Pass,
        K::DrawStock => engine::Action::DrawStock,
        K::Discard => engine::Action::Discard { card: a.card.parse().unwrap() },
        K::Knock => engine::Action::knock(a.card.parse().unwrap()),
        K::BigGin => engine::Action::BigGin { melds: None },
        K::Unspecified => panic!(),
    }
}

/// A tiny deterministic RNG.
pub struct Rng(pub u64);
impl Rng {
    pub fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// Picks a random legal action, taking a knock half of the time when one is legal (so games
/// end in a reasonable number of hands).
pub fn pick(rng: &mut Rng, legal: &[pb::LegalAction]) -> pb::LegalAction {
    let knocks: Vec<&pb::LegalAction> = legal
        .iter()
        .filter(|a| {
            matches!(pb::ActionKind::try_from(a.kind), Ok(pb::ActionKind::Knock | pb::ActionKind::BigGin))
        })
        .collect();
    if !knocks.is_empty() && rng.below(2) == 0 {
        return knocks[rng.below(knocks.len())].clone();
    }
    legal[rng.below(legal.len())].clone()
}
