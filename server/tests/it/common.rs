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
        Self::start_at("127.0.0.1:0".parse().unwrap(), cfg).await
    }

    /// A server at `addr` (a restarted server at the address of the one before).
    pub async fn start_at(addr: SocketAddr, cfg: gin_server::Config) -> TestServer {
        let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
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
        .join_game(pb::JoinGameRequest {
            game_id: c.game_id.clone(),
            name: "bob".into(),
            seat: None,
            accept_fixed_deals: true,
        })
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
        K::Meld => {
            gc.lay_meld(authed(
                pb::LayMeldRequest { game_id: g, expected_seq: seq, cards: a.cards.clone() },
                t,
            ))
            .await?
            .into_inner()
            .seq
        }
        K::LayOff => {
            gc.lay_off(authed(
                pb::LayOffRequest { game_id: g, expected_seq: seq, card: a.card.clone(), meld: a.meld },
                t,
            ))
            .await?
            .into_inner()
            .seq
        }
        K::Unspecified => panic!("unspecified action"),
    })
}

/// The engine move a legal action stands for, at a table of any format.
pub fn engine_move(a: &pb::LegalAction) -> engine::Move {
    use pb::ActionKind as K;
    match K::try_from(a.kind).unwrap() {
        K::Meld => engine::Move::Meld { cards: a.cards.join(" ").parse().unwrap() },
        K::LayOff => engine::Move::LayOff { card: a.card.parse().unwrap(), meld: a.meld as usize },
        _ => engine_action(a).into(),
    }
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
        K::Meld | K::LayOff | K::Unspecified => panic!("not a two-player gin action"),
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

// ---------------------------------------------------------------------------------------
// Shared helpers of the api, resume, restart and leaks tests.
// ---------------------------------------------------------------------------------------

/// The generated game client over a channel.
pub type Games = GameServiceClient<Channel>;

/// Opens `game`'s event stream as `token` ("" for a spectator), after seq `after`.
pub async fn watch(
    gc: &mut Games,
    game: &str,
    token: &str,
    after: u64,
) -> tonic::Streaming<pb::WatchGameResponse> {
    gc.watch_game(authed(pb::WatchGameRequest { game_id: game.into(), resume_after_seq: after }, token))
        .await
        .expect("watch")
        .into_inner()
}

/// The event of a stream message, if it is one.
pub fn event(m: &pb::WatchGameResponse) -> Option<&pb::GameEvent> {
    match &m.kind {
        Some(pb::watch_game_response::Kind::Event(e)) => Some(e),
        _ => None,
    }
}

/// The seq a stream message covers: an event's seq or a snapshot's; none for a heartbeat.
pub fn msg_seq(m: &pb::WatchGameResponse) -> Option<u64> {
    match &m.kind {
        Some(pb::watch_game_response::Kind::Event(e)) => Some(e.seq),
        Some(pb::watch_game_response::Kind::Snapshot(s)) => Some(s.seq),
        _ => None,
    }
}

/// The snapshot GetGame gives `token` ("" for a spectator).
pub async fn get_game(gc: &mut Games, game: &str, token: &str) -> pb::GameSnapshot {
    gc.get_game(authed(pb::GetGameRequest { game_id: game.into() }, token))
        .await
        .expect("get_game")
        .into_inner()
        .snapshot
        .expect("a snapshot")
}

/// Creates a game with `req` (the creator joins seat 0) and seats "bob" in seat 1.
pub async fn new_game_req(ch: &Channel, req: pb::CreateGameRequest) -> (String, [Player; 2]) {
    let mut lobby = LobbyServiceClient::new(ch.clone());
    let req = pb::CreateGameRequest { join: true, seat: Some(0), name: "alice".into(), ..req };
    let c = lobby.create_game(req).await.expect("create_game").into_inner();
    let j = lobby
        .join_game(pb::JoinGameRequest {
            game_id: c.game_id.clone(),
            name: "bob".into(),
            seat: Some(1),
            accept_fixed_deals: true,
        })
        .await
        .expect("join_game")
        .into_inner();
    assert_eq!((c.seat, j.seat), (Some(0), 1));
    let p = |seat, token: String| Player {
        seat,
        token,
        game_id: c.game_id.clone(),
        last_seq: 0,
        messages: Vec::new(),
    };
    (c.game_id.clone(), [p(0, c.seat_token), p(1, j.seat_token)])
}

/// The policy of every test player: half the time the sensible move (knock if it may, else
/// the discard that leaves the least deadwood, else draw from the stock, which keeps hands
/// short), else [`pick`]. Deterministic given `rng`.
pub fn choose(rng: &mut Rng, turn: &pb::TurnInfo) -> pb::LegalAction {
    let find = |kind: pb::ActionKind, card: Option<&str>| {
        turn.legal_actions.iter().find(|a| a.kind == kind as i32 && card.is_none_or(|c| a.card == c)).cloned()
    };
    let sensible = find(pb::ActionKind::Knock, None)
        .or_else(|| find(pb::ActionKind::Discard, Some(&turn.best_discard)))
        .or_else(|| find(pb::ActionKind::DrawStock, None));
    match sensible {
        Some(a) if rng.below(2) == 0 => a,
        _ => pick(rng, &turn.legal_actions),
    }
}

/// One action by whichever seat is to act, chosen with [`choose`] from that seat's GetGame
/// snapshot and sent with the snapshot's seq. Returns the player index, the action and the
/// seq it produced; `None` when nobody is to act (the game is over).
pub async fn step(
    gc: &mut Games,
    players: &mut [Player; 2],
    rng: &mut Rng,
) -> Option<(usize, pb::LegalAction, u64)> {
    let game = players[0].game_id.clone();
    let s0 = get_game(gc, &game, &players[0].token).await;
    let i = players.iter().position(|p| Some(p.seat) == s0.seat_to_act)?;
    let snap = if i == 0 { s0 } else { get_game(gc, &game, &players[1].token).await };
    let turn = snap.turn.expect("the seat to act gets its turn info");
    players[i].last_seq = snap.seq;
    let a = choose(rng, &turn);
    let seq = send(gc, &players[i], &a).await.unwrap_or_else(|e| panic!("legal {a:?} refused: {e:?}"));
    assert!(seq > snap.seq, "an accepted action produces events");
    players[i].last_seq = seq;
    Some((i, a, seq))
}

/// Reads `s` until it ends (or fails), with an overall deadline; returns the messages and
/// the error that ended it, if any. Heartbeats are kept.
pub async fn drain(
    s: &mut tonic::Streaming<pb::WatchGameResponse>,
    deadline: Duration,
) -> (Vec<pb::WatchGameResponse>, Option<Status>) {
    let mut out = Vec::new();
    let end = tokio::time::Instant::now() + deadline;
    loop {
        match tokio::time::timeout_at(end, s.message()).await {
            Err(_) => panic!("stream did not end within {deadline:?} ({} messages read)", out.len()),
            Ok(Ok(Some(m))) => out.push(m),
            Ok(Ok(None)) => return (out, None),
            Ok(Err(e)) => return (out, Some(e)),
        }
    }
}

/// Reads `s` until a message with seq >= `seq` arrived (or panics after `deadline`).
pub async fn read_until(
    s: &mut tonic::Streaming<pb::WatchGameResponse>,
    seq: u64,
    deadline: Duration,
) -> Vec<pb::WatchGameResponse> {
    let mut out = Vec::new();
    let end = tokio::time::Instant::now() + deadline;
    loop {
        let m = tokio::time::timeout_at(end, s.message())
            .await
            .unwrap_or_else(|_| panic!("seq {seq} not reached within {deadline:?}: {out:?}"))
            .expect("stream error")
            .unwrap_or_else(|| panic!("stream ended before seq {seq}: {out:?}"));
        let reached = msg_seq(&m).is_some_and(|s| s >= seq);
        out.push(m);
        if reached {
            return out;
        }
    }
}

/// One game played over the network, as the leak checker needs it.
pub struct PlayedGame {
    pub game_id: String,
    /// The seats' tokens.
    pub tokens: [String; 2],
    pub rules: engine::RuleSet,
    pub seed: u64,
    /// The seq of the last event before the first action (both seated, first hand dealt).
    pub start_seq: u64,
    /// Every action with the seq it produced (the seq of its last event).
    pub actions: Vec<(engine::Seat, engine::Action, u64)>,
    /// Every message each viewer received: seat 0, seat 1, a spectator.
    pub received: [Vec<pb::WatchGameResponse>; 3],
    pub result: pb::GameResult,
}

/// Plays one whole game on `ch` driven by three watch streams (seat 0, seat 1, a spectator),
/// each seat acting with [`choose`] when its stream tells it to.
pub async fn play_watched_game(ch: &Channel, rules_name: &str, seed: u64) -> PlayedGame {
    play_watched_game_until(ch, rules_name, seed, None).await
}

/// [`play_watched_game`], counting the hands that end into `stop.0`; once it reaches
/// `stop.1`, the next seat to act resigns (so many games at once stop near a total).
pub async fn play_watched_game_until(
    ch: &Channel,
    rules_name: &str,
    seed: u64,
    stop: Option<(std::sync::Arc<std::sync::atomic::AtomicUsize>, usize)>,
) -> PlayedGame {
    let (_, players) = new_game_req(
        ch,
        pb::CreateGameRequest { rules: Some(preset(rules_name)), seed, ..Default::default() },
    )
    .await;
    play_watched(ch, players, engine::RuleSet::preset(rules_name).unwrap(), seed, stop).await
}

/// Plays the game of `players` (both seats, their tokens) to its end as
/// [`play_watched_game_until`] does; `rules` and `seed` go into the result for the checker.
pub async fn play_watched(
    ch: &Channel,
    mut players: [Player; 2],
    rules: engine::RuleSet,
    seed: u64,
    stop: Option<(std::sync::Arc<std::sync::atomic::AtomicUsize>, usize)>,
) -> PlayedGame {
    use std::sync::atomic::Ordering;
    use tokio_stream::StreamExt;
    let game = players[0].game_id.clone();
    let mut gc = GameServiceClient::new(ch.clone());
    let mut streams = [
        watch(&mut gc, &game, &players[0].token, 0).await,
        watch(&mut gc, &game, &players[1].token, 0).await,
        watch(&mut gc, &game, "", 0).await,
    ];
    let start_seq = get_game(&mut gc, &game, "").await.seq;
    let mut received: [Vec<pb::WatchGameResponse>; 3] = Default::default();
    let mut actions = Vec::new();
    let mut rng = Rng(seed);
    let mut result = None;
    let mut done = [false; 3];
    while done.iter().any(|d| !d) {
        let [s0, s1, s2] = &mut streams;
        let (i, msg) = tokio::select! {
            m = s0.next(), if !done[0] => (0, m),
            m = s1.next(), if !done[1] => (1, m),
            m = s2.next(), if !done[2] => (2, m),
            _ = tokio::time::sleep(Duration::from_secs(20)) => panic!("game {game}: no message for 20 s"),
        };
        let Some(msg) = msg else {
            done[i] = true;
            continue;
        };
        let msg = msg.unwrap_or_else(|e| panic!("game {game}: stream {i} failed: {e:?}"));
        received[i].push(msg.clone());
        if let (Some((hands, _)), Some(pb::game_event::Kind::HandEnded(_)), 2) =
            (&stop, event(&msg).and_then(|e| e.kind.as_ref()), i)
        {
            hands.fetch_add(1, Ordering::Relaxed);
        }
        let turn = match &msg.kind {
            Some(pb::watch_game_response::Kind::Snapshot(s)) if i < 2 => {
                players[i].last_seq = s.seq;
                s.turn.clone()
            }
            Some(pb::watch_game_response::Kind::Event(e)) => {
                if i < 2 {
                    players[i].last_seq = e.seq;
                }
                match &e.kind {
                    Some(pb::game_event::Kind::GameOver(g)) => {
                        result = g.result.clone();
                        None
                    }
                    Some(pb::game_event::Kind::TurnStarted(t)) if i < 2 && t.seat == players[i].seat => {
                        Some(t.turn.clone().expect("the seat to act gets its turn info"))
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        if let (Some(turn), true) = (turn, i < 2) {
            if let Some((hands, limit)) = &stop
                && hands.load(Ordering::Relaxed) >= *limit
            {
                let r = pb::ResignRequest { game_id: game.clone(), expected_seq: players[i].last_seq };
                gc.resign(authed(r, &players[i].token)).await.expect("resign");
                continue;
            }
            let a = choose(&mut rng, &turn);
            let seq = send(&mut gc, &players[i], &a)
                .await
                .unwrap_or_else(|e| panic!("game {game}: legal {a:?} refused: {e:?}"));
            actions.push((engine::Seat::new(players[i].seat as u8).unwrap(), engine_action(&a), seq));
        }
    }
    PlayedGame {
        game_id: game,
        tokens: [players[0].token.clone(), players[1].token.clone()],
        rules,
        seed,
        start_seq,
        actions,
        received,
        result: result.expect("game over"),
    }
}

/// Cards as a set.
pub fn card_set(v: &[String]) -> engine::CardSet {
    v.iter().map(|c| c.parse::<engine::Card>().unwrap_or_else(|e| panic!("card {c:?}: {e}"))).collect()
}

fn turn_cards(t: &pb::TurnInfo) -> engine::CardSet {
    let mut c: engine::CardSet = t
        .legal_actions
        .iter()
        .filter(|a| !a.card.is_empty())
        .map(|a| a.card.parse::<engine::Card>().unwrap())
        .collect();
    if !t.best_discard.is_empty() {
        c |= card_set(std::slice::from_ref(&t.best_discard));
    }
    if let Some(b) = &t.best {
        c |= card_set(&b.deadwood);
        for m in &b.melds {
            c |= card_set(&m.cards);
        }
    }
    c
}

/// Every card named anywhere in a message, except finished hands' showdowns and reveals
/// (public once the hand is over).
pub fn cards_in(m: &pb::WatchGameResponse) -> engine::CardSet {
    use pb::game_event::Kind as K;
    let one =
        |c: &String| if c.is_empty() { engine::CardSet::EMPTY } else { card_set(std::slice::from_ref(c)) };
    match &m.kind {
        Some(pb::watch_game_response::Kind::Snapshot(s)) => {
            let mut c = card_set(&s.hand) | card_set(&s.pile) | one(&s.taken_from_pile);
            for k in &s.known {
                c |= card_set(&k.cards);
            }
            if let Some(t) = &s.turn {
                c |= turn_cards(t);
            }
            c
        }
        Some(pb::watch_game_response::Kind::Event(e)) => match &e.kind {
            Some(K::HandDealt(d)) => card_set(&d.your_hand) | one(&d.upcard),
            Some(K::CardDrawn(d)) => one(&d.card),
            Some(K::CardDiscarded(d)) => one(&d.card),
            Some(K::TurnStarted(t)) => t.turn.as_ref().map_or(engine::CardSet::EMPTY, turn_cards),
            _ => engine::CardSet::EMPTY,
        },
        _ => engine::CardSet::EMPTY,
    }
}

/// Replays `g` with the engine and checks every message each viewer (seat 0, seat 1,
/// spectator) received against what that viewer may see AT THAT POINT: a seat its own
/// cards of the hand so far and the face-up cards (pile, cards known taken from the pile);
/// a spectator the face-up cards only. So the opponent's hand, the stock and a card the
/// other seat drew from the stock never pass. Each message is placed in time by its seq
/// (the seqs the actions produced). Returns the number of messages checked.
pub fn check_no_leaks(g: &PlayedGame) -> usize {
    use engine::{CardSet, Seat};
    let mut game = engine::Game::new(engine::GameSetup::new(g.rules.clone(), g.seed)).unwrap();
    // Per state k (0: before the first action; k: after action k): the hand in play and
    // what each viewer may see then.
    let visible = |game: &engine::Game| {
        let h = game.hand();
        let public: CardSet =
            h.pile().iter().copied().collect::<CardSet>() | h.known_cards(Seat::S0) | h.known_cards(Seat::S1);
        [h.cards(Seat::S0) | public, h.cards(Seat::S1) | public, public]
    };
    let mut hand_of = vec![game.hand_number()];
    // Cumulative within the hand in play at state k.
    let mut cum = vec![visible(&game)];
    // Everything a viewer may have seen of each finished hand.
    let mut finished: Vec<[CardSet; 3]> = Vec::new();
    for (seat, a, _) in &g.actions {
        let before = game.hands().len();
        let prev = *cum.last().unwrap();
        game.apply(*seat, a).unwrap_or_else(|e| panic!("game {}: the engine refuses {a}: {e}", g.game_id));
        let v = visible(&game);
        if game.hands().len() > before {
            let mut end = prev;
            // The discard that ended a dead hand was face up for everyone.
            if let engine::Action::Discard { card } = a {
                for c in end.iter_mut() {
                    c.insert(*card);
                }
            }
            finished.push(end);
            cum.push(if game.is_over() { std::array::from_fn(|i| end[i] | v[i]) } else { v });
        } else {
            cum.push(std::array::from_fn(|i| prev[i] | v[i]));
        }
        hand_of.push(game.hand_number());
    }
    // State of seq s: 0 up to start_seq, then the action that produced it.
    let state_of = |s: u64| -> usize {
        if s <= g.start_seq { 0 } else { 1 + g.actions.partition_point(|(_, _, r)| *r < s) }
    };
    let mut checked = 0;
    for (viewer, msgs) in g.received.iter().enumerate() {
        let mut hand = None;
        for m in msgs {
            let Some(seq) = msg_seq(m) else { continue };
            match &m.kind {
                Some(pb::watch_game_response::Kind::Snapshot(s)) => hand = Some(s.hand_number),
                Some(pb::watch_game_response::Kind::Event(pb::GameEvent {
                    kind: Some(pb::game_event::Kind::HandDealt(d)),
                    ..
                })) => hand = Some(d.hand_number),
                _ => {}
            }
            let k = state_of(seq);
            let seen = cards_in(m);
            checked += 1;
            if seen.is_empty() {
                continue;
            }
            // After the last action only a resignation may follow: no card in that.
            assert!(k < cum.len(), "game {}: viewer {viewer}: cards after the last action: {m:?}", g.game_id);
            let h =
                hand.unwrap_or_else(|| panic!("game {}: viewer {viewer}: cards before any deal", g.game_id));
            let ok = if h == hand_of[k] {
                cum[k][viewer]
            } else {
                assert!(
                    h < hand_of[k],
                    "game {}: viewer {viewer}: hand {h} not dealt at seq {seq}",
                    g.game_id
                );
                finished[h as usize][viewer]
            };
            assert!(
                ok.is_superset(seen),
                "game {}: viewer {viewer} saw {:?} it may not see (hand {h}, seq {seq}): {m:?}",
                g.game_id,
                seen - ok
            );
        }
    }
    checked
}

/// Creates a tournament with `spec`; its id.
pub async fn create_tournament(ch: &Channel, spec: pb::TournamentSpec) -> String {
    let mut t = gin_proto::v1::tournament_service_client::TournamentServiceClient::new(ch.clone());
    let r = t.create_tournament(pb::CreateTournamentRequest { spec: Some(spec) }).await;
    r.expect("create_tournament").into_inner().tournament_id
}

/// Enters one new entrant per name into tournament `tid` (deals drawn by the server); their
/// streams, first message (`Entered`) unread.
pub async fn enter_tournament(
    ch: &Channel,
    tid: &str,
    names: &[&str],
) -> Vec<tonic::Streaming<pb::JoinTournamentResponse>> {
    let mut t = gin_proto::v1::tournament_service_client::TournamentServiceClient::new(ch.clone());
    let mut streams = Vec::new();
    for name in names {
        let req = pb::JoinTournamentRequest {
            tournament_id: tid.into(),
            name: (*name).into(),
            ..Default::default()
        };
        streams.push(t.join_tournament(req).await.expect("join_tournament").into_inner());
    }
    streams
}

/// The first of `n` consecutive loopback ports free a moment ago, for a process started
/// next to listen on. Chosen at random *below* the kernel's ephemeral range
/// (`net.ipv4.ip_local_port_range`, 32768–60999 by default), where neither another test's
/// `bind(0)` nor an outgoing connection (to PostgreSQL, say) can take one between the probe
/// and the child's bind: a probe of port 0 handed on lost that race in CI ("Address already in
/// use" for the third of three servers).
pub fn free_ports(n: u16) -> u16 {
    use std::hash::{BuildHasher, RandomState};
    let (low, high) = (20_000u16, 32_000u16);
    let seed = RandomState::new();
    for attempt in 0u32.. {
        let span = u64::from(high - low - n);
        let first = low + (seed.hash_one(attempt) % span) as u16;
        let held: Vec<_> =
            (first..first + n).filter_map(|p| std::net::TcpListener::bind(("127.0.0.1", p)).ok()).collect();
        if held.len() == usize::from(n) {
            return first;
        }
        assert!(attempt < 10_000, "no {n} free consecutive ports in {low}..{high}");
    }
    unreachable!()
}

/// One loopback port free a moment ago (see [`free_ports`]).
pub fn free_port() -> u16 {
    free_ports(1)
}
