//! The API's contract over real sockets: every error code, each leaving the game exactly as
//! it was (same seq, same hands, and the refused caller's next legal action still succeeds
//! with the expected_seq it had); spectator redaction; resignation; health and reflection;
//! quick match; turn clocks.

use crate::common;

use std::time::Duration;

use common::*;
use gin_proto::v1 as pb;
use gin_proto::v1::game_service_client::GameServiceClient;
use gin_proto::v1::lobby_service_client::LobbyServiceClient;
use tonic::transport::Channel;
use tonic::{Code, Status};

/// A server with one started game ("standard", fixed seed) and a client.
struct Table {
    server: TestServer,
    _dir: tempfile::TempDir,
    ch: Channel,
    gc: Games,
    game: String,
    players: [Player; 2],
}

async fn table(seed: u64) -> Table {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("api.db")).await;
    table_on(server, dir, seed).await
}

async fn table_on(server: TestServer, dir: tempfile::TempDir, seed: u64) -> Table {
    let ch = server.channel().await;
    let (game, players) = new_game_req(
        &ch,
        pb::CreateGameRequest { rules: Some(preset("standard")), seed, ..Default::default() },
    )
    .await;
    let gc = GameServiceClient::new(ch.clone());
    Table { server, _dir: dir, ch, gc, game, players }
}

/// What must not change after a refused request.
#[derive(Clone, Debug, PartialEq)]
struct State {
    seq: u64,
    phase: i32,
    to_act: Option<u32>,
    hands: [Vec<String>; 2],
    pile: Vec<String>,
}

impl Table {
    async fn state(&mut self) -> State {
        let s0 = get_game(&mut self.gc, &self.game, &self.players[0].token).await;
        let s1 = get_game(&mut self.gc, &self.game, &self.players[1].token).await;
        assert_eq!(s0.seq, s1.seq);
        State {
            seq: s0.seq,
            phase: s0.phase,
            to_act: s0.seat_to_act,
            hands: [s0.hand, s1.hand],
            pile: s0.pile,
        }
    }

    /// The index of the player to act, and its snapshot (with its turn info).
    async fn seat_to_act(&mut self) -> (usize, pb::GameSnapshot) {
        let s = get_game(&mut self.gc, &self.game, "").await;
        let i = s.seat_to_act.expect("someone is to act") as usize;
        let snap = get_game(&mut self.gc, &self.game, &self.players[i].token).await;
        assert!(snap.turn.is_some(), "the seat to act gets its turn info");
        (i, snap)
    }

    /// Sends `kind` (a legal action of the seat to act) with `expected_seq`; returns the new seq.
    async fn legal(&mut self, kind: pb::ActionKind, expected_seq: u64) -> u64 {
        let (i, snap) = self.seat_to_act().await;
        let a = snap
            .turn
            .unwrap()
            .legal_actions
            .into_iter()
            .find(|a| a.kind == kind as i32)
            .unwrap_or_else(|| panic!("{kind:?} is not legal now"));
        self.players[i].last_seq = expected_seq;
        send(&mut self.gc, &self.players[i], &a)
            .await
            .unwrap_or_else(|e| panic!("legal {a:?} refused: {e:?}"))
    }

    /// Asserts the game is as `before`, then that the seat to act can still play the legal
    /// action `kind` with `before.seq`; returns the state after it.
    async fn unchanged_then_legal(&mut self, before: &State, what: &str, kind: pb::ActionKind) -> State {
        assert_eq!(&self.state().await, before, "{what}: the refused request changed the game");
        let seq = self.legal(kind, before.seq).await;
        assert!(seq > before.seq);
        let after = self.state().await;
        assert_eq!(after.seq, seq);
        after
    }
}

impl Table {
    /// Every action by either seat is refused with FAILED_PRECONDITION saying the game is
    /// over, and changes nothing.
    async fn nothing_after_the_end(&mut self, seq: u64) {
        let before = self.state().await;
        assert_eq!(before.seq, seq);
        let g = self.game.clone();
        let over = &[Code::FailedPrecondition];
        for p in &self.players {
            let tok = &p.token;
            let card = before.hands[p.seat as usize][0].clone();
            let gc = &mut self.gc;
            let take = authed(pb::TakeUpcardRequest { game_id: g.clone(), expected_seq: seq }, tok);
            let resign = authed(pb::ResignRequest { game_id: g.clone(), expected_seq: seq }, tok);
            let results = [
                ("pass", gc.pass_upcard(pass(&g, seq, tok)).await.map(|_| ())),
                ("take", gc.take_upcard(take).await.map(|_| ())),
                ("stock", gc.draw(draw(&g, seq, pb::DrawSource::Stock as i32, tok)).await.map(|_| ())),
                ("pile", gc.draw(draw(&g, seq, pb::DrawSource::Pile as i32, tok)).await.map(|_| ())),
                ("discard", gc.discard(discard(&g, seq, &card, tok)).await.map(|_| ())),
                ("knock", gc.knock(knock(&g, seq, &card, tok)).await.map(|_| ())),
                ("resign", gc.resign(resign).await.map(|_| ())),
            ];
            for (what, r) in results {
                let e = r.expect_err(what);
                assert!(over.contains(&e.code()), "{what} after the end: {e:?}");
                assert!(
                    e.message().contains("over"),
                    "{what} after the end: the reason is {:?}",
                    e.message()
                );
            }
        }
        assert_eq!(self.state().await, before);
    }
}

/// The error of `r`, which must have `code` and a message containing every one of `needles`.
#[track_caller]
fn refused<T: std::fmt::Debug>(r: Result<T, Status>, code: Code, needles: &[&str]) -> Status {
    let e = match r {
        Ok(v) => panic!("expected {code:?}, got Ok({v:?})"),
        Err(e) => e,
    };
    assert_eq!(e.code(), code, "{e:?}");
    for n in needles {
        assert!(e.message().contains(n), "{code:?} message {:?} does not mention {n:?}", e.message());
    }
    e
}

fn draw(game: &str, seq: u64, source: i32, token: &str) -> tonic::Request<pb::DrawRequest> {
    authed(pb::DrawRequest { game_id: game.into(), expected_seq: seq, source }, token)
}

fn discard(game: &str, seq: u64, card: &str, token: &str) -> tonic::Request<pb::DiscardRequest> {
    authed(pb::DiscardRequest { game_id: game.into(), expected_seq: seq, card: card.into() }, token)
}

fn knock(game: &str, seq: u64, card: &str, token: &str) -> tonic::Request<pb::KnockRequest> {
    authed(
        pb::KnockRequest { game_id: game.into(), expected_seq: seq, discard: card.into(), melds: vec![] },
        token,
    )
}

fn pass(game: &str, seq: u64, token: &str) -> tonic::Request<pb::PassUpcardRequest> {
    authed(pb::PassUpcardRequest { game_id: game.into(), expected_seq: seq }, token)
}

fn all_cards() -> Vec<String> {
    engine::CardSet::FULL.iter().map(|c| c.to_string()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_argument_changes_nothing() {
    let mut t = table(101).await;
    let before = t.state().await;
    let (i, _) = t.seat_to_act().await;
    let (g, tok, seq) = (t.game.clone(), t.players[i].token.clone(), before.seq);

    refused(t.gc.discard(discard(&g, seq, "ZZ", &tok)).await, Code::InvalidArgument, &["card"]);
    refused(t.gc.discard(discard(&g, seq, "", &tok)).await, Code::InvalidArgument, &["card"]);
    refused(t.gc.discard(discard(&g, seq, "11H", &tok)).await, Code::InvalidArgument, &["card"]);
    refused(
        t.gc.draw(draw(&g, seq, pb::DrawSource::Unspecified as i32, &tok)).await,
        Code::InvalidArgument,
        &["source"],
    );
    refused(t.gc.draw(draw(&g, seq, 7, &tok)).await, Code::InvalidArgument, &["source"]);
    refused(t.gc.knock(knock(&g, seq, "XX", &tok)).await, Code::InvalidArgument, &["discard"]);
    let bad_meld = pb::KnockRequest {
        game_id: g.clone(),
        expected_seq: seq,
        discard: "KS".into(),
        melds: vec![pb::Meld { cards: vec!["2C".into(), "9H".into(), "KD".into()] }],
    };
    refused(t.gc.knock(authed(bad_meld, &tok)).await, Code::InvalidArgument, &["melds[0]"]);
    // An empty game id, on actions and reads.
    refused(t.gc.discard(discard("", seq, "KS", &tok)).await, Code::InvalidArgument, &["game_id"]);
    refused(t.gc.pass_upcard(pass("", seq, &tok)).await, Code::InvalidArgument, &["game_id"]);
    refused(
        t.gc.get_game(pb::GetGameRequest { game_id: String::new() }).await,
        Code::InvalidArgument,
        &["game_id"],
    );
    refused(
        t.gc.watch_game(pb::WatchGameRequest { game_id: String::new(), resume_after_seq: 0 }).await,
        Code::InvalidArgument,
        &["game_id"],
    );
    refused(
        t.gc.get_record(pb::GetRecordRequest { game_id: String::new() }).await,
        Code::InvalidArgument,
        &["game_id"],
    );
    let mut lobby = LobbyServiceClient::new(t.ch.clone());
    refused(
        lobby
            .join_game(pb::JoinGameRequest {
                game_id: String::new(),
                name: "x".into(),
                seat: None,
                accept_fixed_deals: true,
            })
            .await,
        Code::InvalidArgument,
        &["game_id"],
    );

    // Lobby: bad rules create nothing.
    let mut tables =
        lobby.list_games(pb::ListGamesRequest::default()).await.unwrap().into_inner().games.len();
    let create = |rules: Option<pb::Rules>, clock: Option<pb::TurnClock>| pb::CreateGameRequest {
        rules,
        clock,
        join: true,
        name: "carol".into(),
        ..Default::default()
    };
    refused(
        lobby.create_game(create(Some(preset("no-such-rules")), None)).await,
        Code::InvalidArgument,
        &["preset", "no-such-rules"],
    );
    let mut custom = gin_server::game::wire::rule_set(&engine::RuleSet::standard());
    custom.target = 0;
    refused(
        lobby
            .create_game(create(
                Some(pb::Rules { kind: Some(pb::rules::Kind::Custom(custom.clone())) }),
                None,
            ))
            .await,
        Code::InvalidArgument,
        &["`target`"],
    );
    refused(
        lobby
            .create_game(create(
                None,
                Some(pb::TurnClock { turn_millis: 5, policy: pb::ClockPolicy::Forfeit as i32 }),
            ))
            .await,
        Code::InvalidArgument,
        &["turn_millis"],
    );
    refused(
        lobby
            .join_game(pb::JoinGameRequest {
                game_id: g.clone(),
                name: "x".into(),
                seat: Some(2),
                accept_fixed_deals: true,
            })
            .await,
        Code::InvalidArgument,
        &["seat"],
    );
    assert_eq!(
        lobby.list_games(pb::ListGamesRequest::default()).await.unwrap().into_inner().games.len(),
        tables
    );
    // The same custom rules with a real target are fine.
    custom.target = 50;
    lobby
        .create_game(create(Some(pb::Rules { kind: Some(pb::rules::Kind::Custom(custom)) }), None))
        .await
        .unwrap();
    tables += 1;
    assert_eq!(
        lobby.list_games(pb::ListGamesRequest::default()).await.unwrap().into_inner().games.len(),
        tables
    );

    t.unchanged_then_legal(&before, "INVALID_ARGUMENT", pb::ActionKind::PassUpcard).await;
    t.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_precondition_changes_nothing() {
    let mut t = table(202).await;
    let g = t.game.clone();
    // Upcard offer: drawing is not how the first turn works; the other seat may not act.
    let before = t.state().await;
    assert_eq!(before.phase, pb::Phase::UpcardOffer as i32);
    let (i, _) = t.seat_to_act().await;
    let (me, other) = (t.players[i].token.clone(), t.players[1 - i].token.clone());
    refused(
        t.gc.draw(draw(&g, before.seq, pb::DrawSource::Stock as i32, &me)).await,
        Code::FailedPrecondition,
        &["not now"],
    );
    refused(
        t.gc.pass_upcard(pass(&g, before.seq, &other)).await,
        Code::FailedPrecondition,
        &["not your turn"],
    );
    // Both pass: the non-dealer must draw (checked with the old seq after the refusals).
    let s = t.unchanged_then_legal(&before, "upcard offer", pb::ActionKind::PassUpcard).await.seq;
    let seq = t.legal(pb::ActionKind::PassUpcard, s).await;

    // Time to draw.
    let before = t.state().await;
    assert_eq!((before.seq, before.phase), (seq, pb::Phase::Draw as i32));
    let (i, snap) = t.seat_to_act().await;
    let (me, other) = (t.players[i].token.clone(), t.players[1 - i].token.clone());
    let mine = snap.hand[0].clone();
    refused(t.gc.discard(discard(&g, seq, &mine, &me)).await, Code::FailedPrecondition, &["not now"]);
    refused(t.gc.knock(knock(&g, seq, &mine, &me)).await, Code::FailedPrecondition, &[]);
    refused(
        t.gc.draw(draw(&g, seq, pb::DrawSource::Stock as i32, &other)).await,
        Code::FailedPrecondition,
        &["not your turn"],
    );
    refused(
        t.gc.take_upcard(authed(pb::TakeUpcardRequest { game_id: g.clone(), expected_seq: seq }, &me)).await,
        Code::FailedPrecondition,
        &["not now"],
    );
    assert_eq!(t.state().await, before);
    let seq = t.legal(pb::ActionKind::DrawStock, seq).await;

    // Time to discard, with 11 cards.
    let before = t.state().await;
    assert_eq!(before.phase, pb::Phase::Discard as i32);
    let (i, snap) = t.seat_to_act().await;
    assert_eq!(snap.hand.len(), 11);
    let (me, other) = (t.players[i].token.clone(), t.players[1 - i].token.clone());
    let not_mine = all_cards().into_iter().find(|c| !snap.hand.contains(c)).unwrap();
    refused(
        t.gc.discard(discard(&g, seq, &not_mine, &me)).await,
        Code::FailedPrecondition,
        &["not in your hand"],
    );
    let turn = snap.turn.clone().unwrap();
    let illegal_knock = snap
        .hand
        .iter()
        .find(|c| !turn.legal_actions.iter().any(|a| a.kind == pb::ActionKind::Knock as i32 && &a.card == *c))
        .expect("seed 202: some knock is over the limit")
        .clone();
    refused(
        t.gc.knock(knock(&g, seq, &illegal_knock, &me)).await,
        Code::FailedPrecondition,
        &["deadwood", "limit"],
    );
    refused(
        t.gc.discard(discard(&g, seq, &snap.hand[0], &other)).await,
        Code::FailedPrecondition,
        &["not your turn"],
    );
    refused(
        t.gc.draw(draw(&g, seq, pb::DrawSource::Pile as i32, &me)).await,
        Code::FailedPrecondition,
        &["not now"],
    );

    // A full game refuses another player; a taken seat too.
    let mut lobby = LobbyServiceClient::new(t.ch.clone());
    refused(
        lobby
            .join_game(pb::JoinGameRequest {
                game_id: g.clone(),
                name: "carol".into(),
                seat: None,
                accept_fixed_deals: true,
            })
            .await,
        Code::FailedPrecondition,
        &["full"],
    );
    refused(
        lobby
            .join_game(pb::JoinGameRequest {
                game_id: g.clone(),
                name: "carol".into(),
                seat: Some(1),
                accept_fixed_deals: true,
            })
            .await,
        Code::FailedPrecondition,
        &["taken"],
    );
    // No record before the end.
    refused(
        t.gc.get_record(pb::GetRecordRequest { game_id: g.clone() }).await,
        Code::FailedPrecondition,
        &[],
    );
    t.unchanged_then_legal(&before, "FAILED_PRECONDITION", pb::ActionKind::Discard).await;
    t.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn not_found_unauthenticated_permission_denied_change_nothing() {
    let mut t = table(303).await;
    let (b_game, b_players) = new_game_req(
        &t.ch,
        pb::CreateGameRequest { rules: Some(preset("oklahoma")), seed: 304, ..Default::default() },
    )
    .await;
    let g = t.game.clone();
    let before = t.state().await;
    let b_before = get_game(&mut t.gc, &b_game, &b_players[0].token).await;
    let (i, _) = t.seat_to_act().await;
    let me = t.players[i].token.clone();
    let seq = before.seq;

    // NOT_FOUND.
    let nowhere = "00000000deadbeef".to_string();
    refused(
        t.gc.get_game(pb::GetGameRequest { game_id: nowhere.clone() }).await,
        Code::NotFound,
        &[&nowhere],
    );
    refused(
        t.gc.watch_game(pb::WatchGameRequest { game_id: nowhere.clone(), resume_after_seq: 0 }).await,
        Code::NotFound,
        &[],
    );
    refused(t.gc.get_record(pb::GetRecordRequest { game_id: nowhere.clone() }).await, Code::NotFound, &[]);
    let mut lobby = LobbyServiceClient::new(t.ch.clone());
    refused(
        lobby
            .join_game(pb::JoinGameRequest {
                game_id: nowhere.clone(),
                name: "x".into(),
                seat: None,
                accept_fixed_deals: true,
            })
            .await,
        Code::NotFound,
        &[],
    );

    // UNAUTHENTICATED: no token, a bogus token, a malformed header.
    refused(t.gc.pass_upcard(pass(&g, seq, "")).await, Code::Unauthenticated, &[]);
    refused(
        t.gc.resign(authed(pb::ResignRequest { game_id: g.clone(), expected_seq: seq }, "")).await,
        Code::Unauthenticated,
        &[],
    );
    refused(
        t.gc.pass_upcard(pass(&g, seq, "0123456789abcdef0123456789abcdef")).await,
        Code::Unauthenticated,
        &[],
    );
    let mut r = pass(&g, seq, "");
    r.metadata_mut().insert("authorization", format!("Basic {me}").parse().unwrap());
    refused(t.gc.pass_upcard(r).await, Code::Unauthenticated, &[]);
    refused(
        t.gc.get_game(authed(pb::GetGameRequest { game_id: g.clone() }, "not-a-token")).await,
        Code::Unauthenticated,
        &[],
    );

    // PERMISSION_DENIED: a valid token of game A on game B (and B's on A).
    refused(t.gc.pass_upcard(pass(&b_game, b_before.seq, &me)).await, Code::PermissionDenied, &[]);
    refused(
        t.gc.resign(authed(pb::ResignRequest { game_id: b_game.clone(), expected_seq: b_before.seq }, &me))
            .await,
        Code::PermissionDenied,
        &[],
    );
    for p in &b_players {
        refused(t.gc.pass_upcard(pass(&g, seq, &p.token)).await, Code::PermissionDenied, &[]);
    }
    // ... and it does not make the bearer a viewer of game B's cards.
    let as_spectator = get_game(&mut t.gc, &b_game, &me).await;
    assert!(
        as_spectator.hand.is_empty() && as_spectator.viewer_seat.is_none() && as_spectator.turn.is_none()
    );

    let b_after = get_game(&mut t.gc, &b_game, &b_players[0].token).await;
    assert_eq!((b_after.seq, &b_after.hand), (b_before.seq, &b_before.hand));
    t.unchanged_then_legal(
        &before,
        "NOT_FOUND/UNAUTHENTICATED/PERMISSION_DENIED",
        pb::ActionKind::PassUpcard,
    )
    .await;
    t.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aborted_stale_and_retried_actions_apply_once() {
    let mut t = table(404).await;
    let g = t.game.clone();
    let mut spectator = watch(&mut t.gc, &g, "", 0).await;
    let before = t.state().await;
    let (i, _) = t.seat_to_act().await;
    let me = t.players[i].token.clone();

    // Stale (behind) and invented (ahead) expected_seq.
    refused(t.gc.pass_upcard(pass(&g, before.seq - 1, &me)).await, Code::Aborted, &["stale"]);
    refused(t.gc.pass_upcard(pass(&g, before.seq + 1, &me)).await, Code::Aborted, &[]);
    refused(t.gc.pass_upcard(pass(&g, 0, &me)).await, Code::Aborted, &[]);
    assert_eq!(t.state().await, before);

    // A retried pass: the first is applied, the retry is ABORTED.
    let seq1 = t.gc.pass_upcard(pass(&g, before.seq, &me)).await.unwrap().into_inner().seq;
    refused(t.gc.pass_upcard(pass(&g, before.seq, &me)).await, Code::Aborted, &["stale"]);
    let mid = t.state().await;
    assert_eq!(mid.seq, seq1);

    // Two copies of the same draw request at once: exactly one is applied.
    let s = t.legal(pb::ActionKind::PassUpcard, mid.seq).await;
    let (j, _) = t.seat_to_act().await;
    assert_eq!(j, i, "after both passed, the non-dealer draws");
    let tok = t.players[j].token.clone();
    let (mut a, mut b) = (t.gc.clone(), t.gc.clone());
    let (ra, rb) = tokio::join!(
        a.draw(draw(&g, s, pb::DrawSource::Stock as i32, &tok)),
        b.draw(draw(&g, s, pb::DrawSource::Stock as i32, &tok)),
    );
    let (ok, err) = match (ra, rb) {
        (Ok(x), Err(e)) | (Err(e), Ok(x)) => (x.into_inner(), e),
        other => panic!("exactly one of two identical draws may succeed: {other:?}"),
    };
    assert_eq!(err.code(), Code::Aborted, "{err:?}");
    let after = t.state().await;
    assert_eq!(after.seq, ok.seq);
    assert_eq!(after.hands[j].len(), 11, "one card drawn, not two");
    // One more action, then the stream holds every event once: one pass by each seat, one
    // draw, one discard.
    let end = t.unchanged_then_legal(&after, "after the retries", pb::ActionKind::Discard).await.seq;
    let msgs = read_until(&mut spectator, end, Duration::from_secs(10)).await;
    let seqs: Vec<u64> = msgs.iter().filter_map(event).map(|e| e.seq).collect();
    assert_eq!(seqs, (before.seq + 1..=end).collect::<Vec<_>>());
    let count = |f: &dyn Fn(&pb::game_event::Kind) -> bool| {
        msgs.iter().filter_map(event).filter(|e| e.kind.as_ref().is_some_and(f)).count()
    };
    use pb::game_event::Kind as K;
    assert_eq!(count(&|k| matches!(k, K::UpcardPassed(p) if p.seat == i as u32)), 1);
    assert_eq!(count(&|k| matches!(k, K::UpcardPassed(p) if p.seat == 1 - i as u32)), 1);
    assert_eq!(count(&|k| matches!(k, K::CardDrawn(_))), 1);
    assert_eq!(count(&|k| matches!(k, K::CardDiscarded(_))), 1);
    drop(spectator);
    t.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limit_is_resource_exhausted_with_retry_after() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(gin_server::Config {
        db: dir.path().join("rate.db"),
        rate_per_sec: 5,
        ..gin_server::Config::default()
    })
    .await;
    let mut t = table_on(server, dir, 505).await;
    let g = t.game.clone();
    let before = t.state().await;
    let (i, _) = t.seat_to_act().await;
    let me = t.players[i].token.clone();

    // Each seat token has its own bucket: flood with reads until refused.
    let mut ok = 0;
    let refusal = loop {
        match t.gc.get_game(authed(pb::GetGameRequest { game_id: g.clone() }, &me)).await {
            Ok(_) => ok += 1,
            Err(e) => break e,
        }
        assert!(ok < 100, "no refusal at 5 requests/s");
    };
    assert!(ok >= 3, "a burst is allowed ({ok})");
    assert_eq!(refusal.code(), Code::ResourceExhausted, "{refusal:?}");
    let retry: u64 = refusal
        .metadata()
        .get("retry-after-ms")
        .expect("retry-after-ms metadata")
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=1_000).contains(&retry), "retry-after-ms {retry}");
    // The action is refused the same way, and nothing happens.
    refused(t.gc.pass_upcard(pass(&g, before.seq, &me)).await, Code::ResourceExhausted, &["rate"]);
    // After the hint (and enough for the state reads), it goes through with the old seq.
    tokio::time::sleep(Duration::from_millis(retry + 1_200)).await;
    t.unchanged_then_legal(&before, "RESOURCE_EXHAUSTED", pb::ActionKind::PassUpcard).await;

    // Callers without a token are limited by address, the lobby too.
    let mut lobby = LobbyServiceClient::new(t.ch.clone());
    let refusal = loop {
        if let Err(e) = lobby.list_games(pb::ListGamesRequest::default()).await {
            break e;
        }
    };
    assert_eq!(refusal.code(), Code::ResourceExhausted);
    assert!(refusal.metadata().get("retry-after-ms").is_some());
    t.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spectator_sees_no_hand_a_seat_its_ten_cards() {
    let mut t = table(606).await;
    let g = t.game.clone();
    let spec = get_game(&mut t.gc, &g, "").await;
    assert!(spec.hand.is_empty(), "{spec:?}");
    assert!(spec.turn.is_none() && spec.viewer_seat.is_none() && spec.taken_from_pile.is_empty());
    assert_eq!(spec.hand_sizes, vec![10, 10]);
    assert_eq!(spec.pile.len(), 1);
    assert_eq!(spec.stock_size, 31);
    // The spectator's stream starts with the same redacted snapshot.
    let mut s = watch(&mut t.gc, &g, "", 0).await;
    match s.message().await.unwrap().unwrap().kind {
        Some(pb::watch_game_response::Kind::Snapshot(w)) => assert_eq!(w, spec),
        other => panic!("expected a snapshot first: {other:?}"),
    }
    let to_act = spec.seat_to_act.unwrap();
    let mut hands = Vec::new();
    for p in &t.players {
        let snap = get_game(&mut t.gc, &g, &p.token).await;
        assert_eq!(snap.viewer_seat, Some(p.seat));
        assert_eq!(snap.hand.len(), 10, "{snap:?}");
        assert_eq!(snap.turn.is_some(), p.seat == to_act, "turn info only for the seat to act");
        let h = card_set(&snap.hand);
        assert!(h.is_disjoint(card_set(&snap.pile)));
        // The seat's stream starts with its own snapshot.
        let mut w = watch(&mut t.gc, &g, &p.token, 0).await;
        match w.message().await.unwrap().unwrap().kind {
            Some(pb::watch_game_response::Kind::Snapshot(w)) => assert_eq!(w.hand, snap.hand),
            other => panic!("expected a snapshot first: {other:?}"),
        }
        hands.push(h);
    }
    assert!(hands[0].is_disjoint(hands[1]));
    drop(s);
    t.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resign_ends_the_game_for_the_other_seat() {
    let mut t = table(707).await;
    let g = t.game.clone();
    let mut spectator = watch(&mut t.gc, &g, "", 0).await;
    let start = t.state().await.seq;
    let s = t.legal(pb::ActionKind::PassUpcard, start).await;
    // The seat NOT to act resigns.
    let (i, _) = t.seat_to_act().await;
    let quitter = 1 - i;
    let seq = t
        .gc
        .resign(authed(pb::ResignRequest { game_id: g.clone(), expected_seq: s }, &t.players[quitter].token))
        .await
        .unwrap()
        .into_inner()
        .seq;
    let (msgs, err) = drain(&mut spectator, Duration::from_secs(10)).await;
    assert!(err.is_none(), "{err:?}");
    let evs: Vec<&pb::GameEvent> = msgs.iter().filter_map(event).collect();
    assert_eq!(evs.last().unwrap().seq, seq);
    use pb::game_event::Kind as K;
    let n = evs.len();
    match (&evs[n - 2].kind, &evs[n - 1].kind) {
        (Some(K::PlayerLeft(l)), Some(K::GameOver(o))) => {
            assert_eq!((l.seat, l.reason), (quitter as u32, pb::GameEndReason::Resigned as i32));
            let r = o.result.as_ref().unwrap();
            assert_eq!(r.reason, pb::GameEndReason::Resigned as i32);
            assert_eq!(r.winner, Some(i as u32));
            assert_eq!(r.loser_by_default, Some(quitter as u32));
        }
        other => panic!("expected PlayerLeft then GameOver: {other:?}"),
    }
    let snap = get_game(&mut t.gc, &g, &t.players[i].token).await;
    assert_eq!(snap.phase, pb::Phase::GameOver as i32);
    assert!(snap.seat_to_act.is_none() && snap.turn.is_none());
    assert_eq!(snap.result.as_ref().unwrap().winner, Some(i as u32));

    // The record is there, with the first hand's reveal.
    let rec = t.gc.get_record(pb::GetRecordRequest { game_id: g.clone() }).await.unwrap().into_inner();
    assert_eq!(rec.result.as_ref().unwrap().reason, pb::GameEndReason::Resigned as i32);
    assert_eq!(rec.result.as_ref().unwrap().loser_by_default, Some(quitter as u32));
    let record = engine::GameRecord::from_json(&rec.record_json).unwrap();
    assert_eq!(record.setup.seed, 707);
    assert_eq!(record.actions.len(), 1, "one pass");
    assert_eq!(rec.reveals.len(), 1);
    let deck: engine::Deck = rec.reveals[0].deck.join(" ").parse().unwrap();
    assert!(engine::verify_deal(&deck, &rec.reveals[0].salt, &rec.reveals[0].commitment));

    // Nothing more may happen, and the reason says why.
    t.nothing_after_the_end(seq).await;
    // A late watcher gets the final snapshot and the stream ends.
    let (late, err) = drain(&mut watch(&mut t.gc, &g, "", 0).await, Duration::from_secs(5)).await;
    assert!(err.is_none());
    assert!(matches!(&late[0].kind, Some(pb::watch_game_response::Kind::Snapshot(s)) if s.seq == seq));
    t.server.stop().await;

    // The same after a resignation in the middle of a turn (11 cards, time to discard).
    let mut t = table(709).await;
    let s = t.state().await.seq;
    let s = t.legal(pb::ActionKind::PassUpcard, s).await;
    let s = t.legal(pb::ActionKind::PassUpcard, s).await;
    let s = t.legal(pb::ActionKind::DrawStock, s).await;
    let (i, _) = t.seat_to_act().await;
    let r = pb::ResignRequest { game_id: t.game.clone(), expected_seq: s };
    let seq = t.gc.resign(authed(r, &t.players[i].token)).await.unwrap().into_inner().seq;
    let snap = get_game(&mut t.gc, &t.game, "").await;
    let result = snap.result.unwrap();
    assert_eq!((result.winner, result.loser_by_default), (Some(1 - i as u32), Some(i as u32)));
    let rec = t.gc.get_record(pb::GetRecordRequest { game_id: t.game.clone() }).await.unwrap().into_inner();
    assert_eq!(engine::GameRecord::from_json(&rec.record_json).unwrap().actions.len(), 3);
    assert_eq!(rec.reveals.len(), 1, "the hand in play when the game ended is revealed too");
    t.nothing_after_the_end(seq).await;
    t.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_and_reflection() {
    use tonic_health::pb::health_check_response::ServingStatus;
    use tonic_health::pb::health_client::HealthClient;
    use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
    use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
    use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;
    use tonic_reflection::pb::v1::{ServerReflectionRequest, ServerReflectionResponse};

    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("h.db")).await;
    let ch = server.channel().await;
    let mut health = HealthClient::new(ch.clone());
    for service in ["gin.v1.GameService", "gin.v1.LobbyService"] {
        let r = health
            .check(tonic_health::pb::HealthCheckRequest { service: service.into() })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(r.status, ServingStatus::Serving as i32, "{service}");
    }
    let unknown = health.check(tonic_health::pb::HealthCheckRequest { service: "gin.v1.Nope".into() }).await;
    assert_eq!(unknown.unwrap_err().code(), Code::NotFound);

    let mut refl = ServerReflectionClient::new(ch.clone());
    let req = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut s = refl.server_reflection_info(tokio_stream::iter(vec![req])).await.unwrap().into_inner();
    let resp: ServerReflectionResponse = s.message().await.unwrap().expect("a reflection answer");
    let names: Vec<String> = match resp.message_response {
        Some(MessageResponse::ListServicesResponse(l)) => l.service.into_iter().map(|s| s.name).collect(),
        other => panic!("expected a service list: {other:?}"),
    };
    for want in ["gin.v1.GameService", "gin.v1.LobbyService", "grpc.health.v1.Health"] {
        assert!(names.iter().any(|n| n == want), "{want} not in {names:?}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quick_match_seats_two_callers_in_one_game() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("q.db")).await;
    let ch = server.channel().await;
    // Two clients: two connections (two calls of one connection are never paired).
    let other = server.channel().await;
    let ask = |name: &str, ch: &Channel| {
        let mut lobby = LobbyServiceClient::new(ch.clone());
        let req = pb::QuickMatchRequest {
            rules: Some(preset("oklahoma")),
            name: name.into(),
            ..Default::default()
        };
        async move { lobby.quick_match(req).await }
    };
    let (a, b) = tokio::time::timeout(Duration::from_secs(10), async {
        tokio::join!(ask("ann", &ch), ask("ben", &other))
    })
    .await
    .expect("paired within 10 s");
    let (a, b) = (a.unwrap().into_inner(), b.unwrap().into_inner());
    assert_eq!(a.game_id, b.game_id);
    assert_ne!(a.seat, b.seat);
    assert_ne!(a.seat_token, b.seat_token);
    let mut gc = GameServiceClient::new(ch.clone());
    let mut hands = Vec::new();
    for m in [&a, &b] {
        let snap = get_game(&mut gc, &m.game_id, &m.seat_token).await;
        assert_eq!(snap.viewer_seat, Some(m.seat));
        assert_eq!(snap.hand.len(), 10);
        assert_eq!(snap.rules.as_ref().unwrap().name, "oklahoma");
        assert!(snap.seats.iter().all(|s| s.taken));
        hands.push(card_set(&snap.hand));
    }
    assert!(hands[0].is_disjoint(hands[1]));
    // The tokens act: the seat to act passes the upcard.
    let snap = get_game(&mut gc, &a.game_id, "").await;
    let tok = if Some(a.seat) == snap.seat_to_act { &a.seat_token } else { &b.seat_token };
    gc.pass_upcard(pass(&a.game_id, snap.seq, tok)).await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_quick_match_callers_at_once_are_all_paired() {
    // The queue is looked up and joined under one lock: no caller overwrites another's place.
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("q.db")).await;
    let mut asks = Vec::new();
    for i in 0..48 {
        // Each caller a client of its own (its own connection).
        let mut lobby = LobbyServiceClient::new(server.channel().await);
        let req = pb::QuickMatchRequest {
            rules: Some(preset("standard")),
            name: format!("p{i}"),
            ..Default::default()
        };
        asks.push(tokio::spawn(async move { lobby.quick_match(req).await }));
    }
    let mut games: std::collections::HashMap<String, Vec<u32>> = std::collections::HashMap::new();
    for ask in asks {
        let a = tokio::time::timeout(Duration::from_secs(20), ask).await.expect("every caller answered");
        let a = a.unwrap().expect("paired").into_inner();
        games.entry(a.game_id).or_default().push(a.seat);
    }
    assert_eq!(games.len(), 24);
    assert!(games.values().all(|seats| seats.len() == 2 && seats[0] != seats[1]), "{games:?}");
    server.stop().await;
}

async fn clock_game(
    policy: pb::ClockPolicy,
) -> (TestServer, tempfile::TempDir, Games, String, pb::GameSnapshot) {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("clock.db")).await;
    let ch = server.channel().await;
    let mut gc = GameServiceClient::new(ch.clone());
    let (game, _players) = new_game_req(
        &ch,
        pb::CreateGameRequest {
            rules: Some(preset("standard")),
            clock: Some(pb::TurnClock { turn_millis: 300, policy: policy as i32 }),
            seed: 808,
            ..Default::default()
        },
    )
    .await;
    let snap = get_game(&mut gc, &game, "").await;
    assert!(snap.turn_deadline_unix_ms > 0, "a clocked turn has a deadline");
    (server, dir, gc, game, snap)
}

/// Reads `s` until an event matching `f`, within `within`; returns every event read.
async fn events_until(
    s: &mut tonic::Streaming<pb::WatchGameResponse>,
    within: Duration,
    f: impl Fn(&pb::game_event::Kind) -> bool,
) -> Vec<pb::GameEvent> {
    let mut out = Vec::new();
    let end = tokio::time::Instant::now() + within;
    loop {
        let m = tokio::time::timeout_at(end, s.message())
            .await
            .unwrap_or_else(|_| panic!("not within {within:?}: {out:?}"))
            .unwrap()
            .expect("stream open");
        if let Some(e) = event(&m) {
            out.push(e.clone());
            if e.kind.as_ref().is_some_and(&f) {
                return out;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn turn_clock_auto_plays_for_an_idle_seat() {
    let (server, _dir, mut gc, game, snap) = clock_game(pb::ClockPolicy::AutoPlay).await;
    let idle = snap.seat_to_act.unwrap();
    let mut s = watch(&mut gc, &game, "", snap.seq).await;
    use pb::game_event::Kind as K;
    // Nobody acts: the clock passes the upcard for the idle seat, then the other seat's clock
    // runs.
    let evs =
        events_until(&mut s, Duration::from_secs(2), |k| matches!(k, K::TurnStarted(t) if t.seat != idle))
            .await;
    let kinds: Vec<_> = evs.iter().map(|e| e.kind.clone().unwrap()).collect();
    match &kinds[..] {
        [K::ClockExpired(c), K::UpcardPassed(p), K::TurnStarted(t)] => {
            assert_eq!((c.seat, c.policy), (idle, pb::ClockPolicy::AutoPlay as i32));
            assert_eq!(p.seat, idle);
            assert_eq!(t.seat, 1 - idle);
            assert!(t.deadline_unix_ms > evs[0].time_unix_ms);
        }
        other => panic!("expected ClockExpired, UpcardPassed, TurnStarted: {other:?}"),
    }
    assert!(evs[0].time_unix_ms >= snap.turn_deadline_unix_ms - 5, "not before the deadline");
    let now = get_game(&mut gc, &game, "").await;
    assert!(now.seq > snap.seq);
    assert_eq!(now.phase, pb::Phase::UpcardOffer as i32);
    // It goes on: the other seat passes too, then the first draws from the stock.
    events_until(&mut s, Duration::from_secs(3), |k| matches!(k, K::CardDrawn(d) if d.seat == idle)).await;
    drop(s);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn turn_clock_forfeit_loses_the_game() {
    let (server, _dir, mut gc, game, snap) = clock_game(pb::ClockPolicy::Forfeit).await;
    let idle = snap.seat_to_act.unwrap();
    let mut s = watch(&mut gc, &game, "", snap.seq).await;
    use pb::game_event::Kind as K;
    let evs = events_until(&mut s, Duration::from_secs(2), |k| matches!(k, K::GameOver(_))).await;
    let kinds: Vec<_> = evs.iter().map(|e| e.kind.clone().unwrap()).collect();
    match &kinds[..] {
        [K::ClockExpired(c), K::PlayerLeft(l), K::GameOver(o)] => {
            assert_eq!((c.seat, c.policy), (idle, pb::ClockPolicy::Forfeit as i32));
            assert_eq!((l.seat, l.reason), (idle, pb::GameEndReason::Forfeit as i32));
            let r = o.result.as_ref().unwrap();
            assert_eq!(r.reason, pb::GameEndReason::Forfeit as i32);
            assert_eq!(r.winner, Some(1 - idle));
            assert_eq!(r.loser_by_default, Some(idle));
        }
        other => panic!("expected ClockExpired, PlayerLeft, GameOver: {other:?}"),
    }
    assert!(s.message().await.unwrap().is_none(), "the stream ends after the game");
    let end = get_game(&mut gc, &game, "").await;
    assert_eq!(end.phase, pb::Phase::GameOver as i32);
    assert_eq!(end.result.unwrap().reason, pb::GameEndReason::Forfeit as i32);
    server.stop().await;
}

/// A call the server has not answered within its request timeout is cut off there, whatever
/// the client allows (a quick match nobody answers would otherwise wait its 60 s), as
/// DEADLINE_EXCEEDED (gRPC's code for it; tonic's own timeout said CANCELLED) with the limit
/// in its message.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_over_the_servers_timeout_is_cut_off() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(gin_server::Config {
        db: dir.path().join("t.db"),
        rate_per_sec: 0,
        request_timeout: Duration::from_millis(300),
        ..gin_server::Config::default()
    })
    .await;
    let mut lobby = LobbyServiceClient::new(server.channel().await);
    let t0 = std::time::Instant::now();
    let e = lobby.quick_match(pb::QuickMatchRequest::default()).await.unwrap_err();
    let took = t0.elapsed();
    assert!(took >= Duration::from_millis(300) && took < Duration::from_secs(5), "{took:?}");
    assert_eq!(e.code(), Code::DeadlineExceeded, "{e:?}");
    assert!(e.message().contains("300ms") && e.message().contains("--request-timeout-secs"), "{e:?}");
    // The server goes on: a call within the limit is answered.
    lobby.list_games(pb::ListGamesRequest::default()).await.unwrap();
    server.stop().await;
}

/// `CreateGame.first_dealer` deals the first hand from the seat asked, whatever the seed
/// would draw; a bad seat, or a table format, is refused and creates nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_creator_may_choose_the_first_dealer_of_two_player_gin() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("g.db")).await;
    let ch = server.channel().await;
    let mut lobby = LobbyServiceClient::new(ch.clone());
    let mut games = GameServiceClient::new(ch.clone());
    // A seed whose own first dealer is seat 0, and one whose is seat 1.
    let seeds: Vec<u64> =
        [0u8, 1].iter().map(|&d| (1..).find(|&s| engine::first_dealer(s) == d).unwrap()).collect();
    for (seed, drawn) in seeds.into_iter().zip([0u32, 1]) {
        for asked in [None, Some(0u32), Some(1)] {
            let c = lobby
                .create_game(pb::CreateGameRequest {
                    join: true,
                    name: "me".into(),
                    house_bot: "simple".into(),
                    seed,
                    first_dealer: asked,
                    ..Default::default()
                })
                .await
                .unwrap()
                .into_inner();
            let snap = games
                .get_game(authed(pb::GetGameRequest { game_id: c.game_id.clone() }, &c.seat_token))
                .await
                .unwrap()
                .into_inner();
            assert_eq!(snap.snapshot.unwrap().dealer, asked.unwrap_or(drawn), "seed {seed}, asked {asked:?}");
        }
    }
    for (req, field) in [
        (pb::CreateGameRequest { first_dealer: Some(2), ..Default::default() }, "first_dealer: 2"),
        (
            pb::CreateGameRequest { format: "rummy".into(), first_dealer: Some(0), ..Default::default() },
            "first_dealer: two-player gin only",
        ),
    ] {
        let e = lobby.create_game(req).await.unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        assert!(e.message().contains(field), "{}", e.message());
    }
    let listed = lobby.list_games(pb::ListGamesRequest::default()).await.unwrap().into_inner();
    assert_eq!(listed.games.len(), 0, "the refused calls created nothing; the others are full");
    server.stop().await;
}
