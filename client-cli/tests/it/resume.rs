//! Network drops: the client's network task ([`net::follow`]) keeps the game when the
//! server goes away mid-game and comes back (same address, same database). The stream
//! resumes from the last event seen: every seq arrives exactly once, in order, and the game
//! is played to its end. A server refusal comes back as a message, not a failure.

use engine::Action;
use gin_client_cli::net::{self, Move, NetEvent, Place, Send};
use gin_client_cli::plain::{Flow, Plain};
use gin_proto::v1 as pb;
use gin_sdk::{Client, Options};
use tokio::sync::mpsc;

use crate::common::Server;

/// A plain-mode client fed by the network task; `answer` picks the moves from its prompts.
struct Player {
    plain: Plain,
    seqs: Vec<u64>,
    reconnecting: u32,
    reconnected: u32,
    refused: Vec<String>,
    moves: u32,
}

fn answer(lines: &[String]) -> Option<String> {
    let l = lines.iter().rev().find(|l| l.starts_with("your turn: "))?;
    let rest = &l["your turn: ".len()..];
    if rest.starts_with("the upcard") {
        return Some("pass".into());
    }
    if rest.starts_with("draw") {
        return Some("stock".into());
    }
    if let Some(k) = rest.split("; you can knock with ").nth(1) {
        return Some(format!("knock {}", k.split([',', ';', ' ']).next().unwrap()));
    }
    Some(format!("discard {}", rest.split("; best discard ").nth(1)?.split(';').next().unwrap()))
}

impl Player {
    /// Handles one network event; returns whether the game is over.
    fn on(&mut self, ev: NetEvent, cmds: &mpsc::UnboundedSender<Send>) -> bool {
        match &ev {
            NetEvent::Snapshot(s) => self.seqs.push(s.seq),
            NetEvent::Event(e) => self.seqs.push(e.seq),
            NetEvent::Reconnecting(_) => self.reconnecting += 1,
            NetEvent::Reconnected => self.reconnected += 1,
            NetEvent::Refused(why) => self.refused.push(why.clone()),
            NetEvent::Fatal(why) => panic!("fatal: {why}"),
        }
        let (lines, flow) = self.plain.on_net(ev);
        match flow {
            Flow::Exit(0) => return true,
            Flow::Exit(c) => panic!("exit {c}: {lines:?}"),
            _ => {}
        }
        if let Some(cmd) = answer(&lines) {
            let (_, flow) = self.plain.on_line(&cmd);
            let Flow::Act(action) = flow else { panic!("{cmd} was refused locally") };
            let t = self.plain.table.as_ref().unwrap();
            let offer = t.phase == pb::Phase::UpcardOffer;
            cmds.send(Send { action: Move::Play(action), offer, expected_seq: t.last_seq }).unwrap();
            self.moves += 1;
        }
        false
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_game_survives_a_server_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.db");
    let server = Server::start(&db).await;
    let addr = server.addr;
    let client = Client::connect_with(&server.url(), Options::default()).await.unwrap();
    let seated = client
        .create_game(pb::CreateGameRequest {
            name: "alice".into(),
            house_bot: "simple".into(),
            seed: 11,
            ..Default::default()
        })
        .await
        .unwrap();
    let place = Place { game_id: seated.game_id.clone(), token: seated.token.clone() };
    let (out_tx, mut out_rx) = mpsc::unbounded_channel();
    let (cmd_tx, cmd_rx) = mpsc::unbounded_channel();
    let task = tokio::spawn(net::follow(client.clone(), place, out_tx, cmd_rx));
    let mut p = Player {
        plain: Plain::new(),
        seqs: vec![],
        reconnecting: 0,
        reconnected: 0,
        refused: vec![],
        moves: 0,
    };

    // Play a few moves, then take the server away while it is our turn.
    while p.moves < 6 {
        let ev = out_rx.recv().await.expect("the network task runs");
        assert!(!p.on(ev, &cmd_tx), "the game ended before the restart");
    }
    server.stop().await;
    // The stream is reported lost (events already on their way may come first).
    loop {
        let ev = out_rx.recv().await.unwrap();
        let lost = matches!(ev, NetEvent::Reconnecting(_));
        assert!(!p.on(ev, &cmd_tx), "the game ended while the server was away");
        if lost {
            break;
        }
    }
    let server = Server::restart(addr, &db).await;

    // The game goes on to its end through the resumed stream.
    loop {
        let ev = out_rx.recv().await.expect("the network task runs");
        if p.on(ev, &cmd_tx) {
            break;
        }
    }
    assert!(p.reconnecting >= 1 && p.reconnected >= 1, "{} / {}", p.reconnecting, p.reconnected);
    let first = p.seqs[0];
    let want: Vec<u64> = (first..first + p.seqs.len() as u64).collect();
    assert_eq!(p.seqs, want, "every event exactly once, in order, across the restart");
    let t = p.plain.table.as_ref().unwrap();
    let snap = client.get_game(&seated.game_id, &seated.token).await.unwrap();
    assert_eq!(t.last_seq, snap.seq);
    assert_eq!(t.hands.len(), snap.hands.len());
    assert!(t.result.is_some() && snap.result.is_some());

    // A stale action (an old seq) is refused with a message, and the task carries on.
    cmd_tx.send(Send { action: Move::Play(Action::DrawStock), offer: false, expected_seq: 1 }).unwrap();
    loop {
        match out_rx.recv().await.unwrap() {
            NetEvent::Refused(why) => {
                assert!(why.contains("refused") || why.contains("moved on"), "{why}");
                break;
            }
            NetEvent::Fatal(why) => panic!("{why}"),
            _ => {}
        }
    }
    drop(cmd_tx);
    task.await.unwrap();
    server.stop().await;
}
