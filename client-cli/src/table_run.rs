//! The loops of `gin play` and `gin watch` at a table of another format: they move messages
//! between the terminal, the pure [`TableScreen`] and the network task ([`net::follow`]),
//! refreshing the screen's snapshot from the server after events (`GetGame`: what this
//! viewer may see now).

use std::io::{self, BufRead, Write};
use std::time::Duration;

use anyhow::Result;
use crossterm::event::{Event, EventStream, KeyEventKind};
use futures_util::StreamExt;
use gin_sdk::Client;
use tokio::sync::mpsc;

use crate::net::{self, Move, NetEvent, Place, Send};
use crate::table_app::{TableApp, TableCommand};
use crate::tables::{Cmd, HELP, TableScreen};

/// What to do after a message: go on, send a move, leave.
enum Next {
    Go,
    Send(Move),
    Exit(u8),
}

/// The shared part of both front ends: a network message applied to the screen.
async fn on_net(
    client: &Client,
    place: &Place,
    s: &mut Option<TableScreen>,
    ev: NetEvent,
) -> (Vec<String>, Next) {
    let mut out = Vec::new();
    match ev {
        NetEvent::Snapshot(snap) => {
            let screen = s.get_or_insert_with(TableScreen::default);
            screen.snap = *snap;
            out.extend(screen.lines());
        }
        NetEvent::Event(e) => {
            let Some(screen) = s.as_mut() else { return (out, Next::Go) };
            let mine = screen.viewer().is_some_and(|v| {
                matches!(&e.kind, Some(gin_proto::v1::game_event::Kind::TurnStarted(t)) if t.seat == v && t.turn.is_some())
            });
            if let Some(l) = screen.on_event(&e) {
                out.push(l);
            }
            let over = matches!(e.kind, Some(gin_proto::v1::game_event::Kind::GameOver(_)));
            if mine || over {
                // What this seat may see now, its legal moves included.
                if let Ok(snap) = client.get_game(&place.game_id, &place.token).await {
                    screen.snap = snap;
                }
                screen.message = None;
                out.extend(screen.lines());
            } else if let Some(gin_proto::v1::game_event::Kind::TurnStarted(_)) = &e.kind {
                // Keep the seats to act current without a call: the next snapshot says the rest.
            }
        }
        NetEvent::Reconnecting(why) => out.push(format!("connection lost ({why}); reconnecting…")),
        NetEvent::Reconnected => out.push("reconnected".into()),
        NetEvent::Refused(why) => {
            let why = if why.starts_with("refused") { why } else { format!("refused: {why}") };
            out.push(why.clone());
            if let Some(screen) = s.as_mut() {
                screen.message = Some(why);
            }
        }
        NetEvent::Fatal(why) => {
            out.push(format!("error: {why}"));
            return (out, Next::Exit(1));
        }
    }
    (out, Next::Go)
}

fn after_command(s: &mut TableScreen, line: &str) -> (Vec<String>, Next) {
    match s.command(line) {
        Ok(Cmd::Help) => (vec![HELP.into()], Next::Go),
        Ok(Cmd::Quit) => (vec![], Next::Exit(0)),
        Ok(Cmd::Resign) => (vec![], Next::Send(Move::Resign)),
        Ok(Cmd::Play(a)) => {
            if s.viewer().is_none() {
                return (vec!["watching: you hold no seat".into()], Next::Go);
            }
            s.message = None;
            (vec![], Next::Send(Move::Table(a)))
        }
        Err(e) => {
            s.message = Some(e.clone());
            (vec![e], Next::Go)
        }
    }
}

/// Plays (or watches) `place` in plain text: events and the table to stdout, commands from
/// stdin. The exit status (0 at game over or `quit`) and whether the game is over.
pub async fn plain(client: Client, place: Place, mut out: impl Write) -> Result<(u8, bool)> {
    let (net_tx, mut net_rx) = mpsc::unbounded_channel();
    let (cmd_tx, cmd_rx) = mpsc::unbounded_channel();
    tokio::spawn(net::follow(client.clone(), place.clone(), net_tx, cmd_rx));
    let (line_tx, mut line_rx) = mpsc::unbounded_channel::<Option<String>>();
    std::thread::spawn(move || {
        for line in io::stdin().lock().lines() {
            let Ok(l) = line else { break };
            if line_tx.send(Some(l)).is_err() {
                return;
            }
        }
        let _ = line_tx.send(None);
    });
    let mut screen: Option<TableScreen> = None;
    let mut stdin_open = true;
    // A move was sent: the next line is read once the server answered it (an event or a
    // refusal), so a script's lines each meet the game as it then is.
    let mut waiting = false;
    loop {
        let (lines, next) = tokio::select! {
            ev = net_rx.recv() => match ev {
                Some(ev) => {
                    if matches!(ev, NetEvent::Event(_) | NetEvent::Refused(_)) {
                        waiting = false;
                    }
                    on_net(&client, &place, &mut screen, ev).await
                }
                None if screen.as_ref().is_some_and(TableScreen::is_over) => (vec![], Next::Exit(0)),
                None => (vec!["error: the connection ended".into()], Next::Exit(1)),
            },
            // Lines are read at the seat's turn (typed ahead, they wait for it).
            l = line_rx.recv(), if stdin_open && !waiting && screen.as_ref().is_some_and(|s| s.my_turn().is_some()) => match l {
                Some(Some(l)) if l.trim().is_empty() => (vec![], Next::Go),
                Some(Some(l)) => after_command(screen.as_mut().expect("a screen"), &l),
                _ => {
                    stdin_open = false;
                    (vec!["end of input: leaving the game".into()], Next::Exit(0))
                }
            },
        };
        for l in lines {
            writeln!(out, "{l}")?;
        }
        out.flush()?;
        let over = screen.as_ref().is_some_and(TableScreen::is_over);
        match next {
            Next::Go if over => return Ok((0, true)),
            Next::Go => {}
            Next::Exit(code) => return Ok((code, over)),
            Next::Send(action) => {
                let expected_seq = screen.as_ref().map_or(0, |s| s.snap.seq);
                waiting = true;
                let _ = cmd_tx.send(Send { action, offer: false, expected_seq });
            }
        }
    }
}

/// Plays (or watches) `place` full screen: the table, the hand with its labels, keys as at
/// two players ([`TableApp`]).
pub async fn tui(client: Client, place: Place, no_color: bool) -> Result<(u8, bool)> {
    let (net_tx, mut net_rx) = mpsc::unbounded_channel();
    let (cmd_tx, cmd_rx) = mpsc::unbounded_channel();
    tokio::spawn(net::follow(client.clone(), place.clone(), net_tx, cmd_rx));
    let mut terminal = match ratatui::try_init() {
        Ok(t) => t,
        Err(e) => {
            let _ = ratatui::try_restore();
            return Err(e.into());
        }
    };
    let mut keys = EventStream::new();
    let mut app = TableApp::new(no_color);
    let mut tick = tokio::time::interval(Duration::from_millis(500));
    let mut net_open = true;
    let result = loop {
        terminal.draw(|f| crate::table_render::draw(f, &app))?;
        let next = tokio::select! {
            ev = net_rx.recv(), if net_open => match ev {
                Some(NetEvent::Snapshot(snap)) => {
                    app.set_snapshot(*snap);
                    Next::Go
                }
                Some(NetEvent::Event(e)) => {
                    if app.on_event(&e) {
                        // What this seat may see now: the tables, its legal moves.
                        if let Ok(snap) = client.get_game(&place.game_id, &place.token).await
                            && snap.seq >= app.last_seq
                        {
                            app.set_snapshot(snap);
                        }
                    }
                    Next::Go
                }
                Some(NetEvent::Reconnecting(why)) => {
                    app.error(format!("connection lost ({why}); reconnecting…"));
                    Next::Go
                }
                Some(NetEvent::Reconnected) => {
                    app.info("reconnected");
                    Next::Go
                }
                Some(NetEvent::Refused(why)) => {
                    app.refused(if why.starts_with("refused") { why } else { format!("refused: {why}") });
                    Next::Go
                }
                Some(NetEvent::Fatal(why)) => {
                    app.error(format!("{why} (q: quit)"));
                    Next::Go
                }
                None => {
                    net_open = false;
                    if !app.screen.is_over() {
                        app.error("the connection ended");
                    }
                    Next::Go
                }
            },
            k = keys.next() => match k {
                Some(Ok(Event::Key(key))) if key.kind != KeyEventKind::Release => match app.handle_key(key) {
                    Some(TableCommand::Quit) => Next::Exit(0),
                    Some(TableCommand::Resign) => Next::Send(Move::Resign),
                    Some(TableCommand::Act(a)) => Next::Send(Move::Table(a)),
                    None => Next::Go,
                },
                Some(Ok(_)) => Next::Go,
                Some(Err(_)) | None => Next::Exit(0),
            },
            _ = tick.tick() => Next::Go,
        };
        match next {
            Next::Go => {}
            Next::Exit(code) => break (code, app.screen.is_over()),
            Next::Send(action) => {
                let _ = cmd_tx.send(Send { action, offer: false, expected_seq: app.last_seq });
            }
        }
    };
    drop(terminal);
    ratatui::restore();
    Ok(result)
}
