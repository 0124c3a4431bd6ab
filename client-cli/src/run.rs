//! The two front ends' loops: they only move messages between the terminal, the pure
//! state ([`App`], [`Plain`]) and the network task ([`net::follow`]).

use std::io::{self, BufRead, Write};
use std::time::Duration;

use anyhow::Result;
use crossterm::event::{Event, EventStream, KeyEventKind};
use futures_util::StreamExt;
use gin_proto::v1 as pb;
use gin_sdk::Client;
use ratatui::DefaultTerminal;
use tokio::sync::mpsc;

use crate::app::{App, Command};
use crate::net::{self, Move, NetEvent, Place, Send};
use crate::plain::{Flow, Plain};
use crate::table::Table;

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// Plays (or watches) `place` in plain text mode: events to stdout, commands from stdin.
/// Returns the exit status (0 at game over or `quit`) and whether the game is over.
pub async fn plain(client: Client, place: Place, mut out: impl Write) -> Result<(u8, bool)> {
    let (net_tx, mut net_rx) = mpsc::unbounded_channel();
    let (cmd_tx, cmd_rx) = mpsc::unbounded_channel();
    tokio::spawn(net::follow(client, place, net_tx, cmd_rx));
    // Stdin is read on its own thread: a blocking read must not hold up the events.
    let (line_tx, mut line_rx) = mpsc::unbounded_channel::<Option<String>>();
    std::thread::spawn(move || {
        for line in io::stdin().lock().lines() {
            match line {
                Ok(l) => {
                    if line_tx.send(Some(l)).is_err() {
                        return;
                    }
                }
                Err(_) => break,
            }
        }
        let _ = line_tx.send(None);
    });
    let mut p = Plain::new();
    let mut stdin_open = true;
    loop {
        let (lines, flow) = tokio::select! {
            ev = net_rx.recv() => match ev {
                Some(ev) => p.on_net(ev),
                None => (vec!["error: the connection ended".into()], Flow::Exit(1)),
            },
            l = line_rx.recv(), if stdin_open && p.ready() => match l {
                Some(Some(l)) => p.on_line(&l),
                _ => {
                    stdin_open = false;
                    (vec!["end of input: leaving the game".into()], Flow::Exit(0))
                }
            },
        };
        for l in lines {
            writeln!(out, "{l}")?;
        }
        out.flush()?;
        match flow {
            Flow::Continue => {}
            Flow::Exit(code) => return Ok((code, p.table.as_ref().is_some_and(Table::is_over))),
            Flow::Act(action) => {
                if let Some(t) = &p.table {
                    let offer = t.phase == pb::Phase::UpcardOffer;
                    let _ = cmd_tx.send(Send { action: Move::Play(action), offer, expected_seq: t.last_seq });
                }
            }
            Flow::Resign => {
                if let Some(t) = &p.table {
                    let _ =
                        cmd_tx.send(Send { action: Move::Resign, offer: false, expected_seq: t.last_seq });
                }
            }
        }
    }
}

/// Plays (or watches) `place` full screen until the player quits. Returns the exit status
/// and whether the game is over.
pub async fn tui(client: Client, place: Place, no_color: bool) -> Result<(u8, bool)> {
    let (net_tx, mut net_rx) = mpsc::unbounded_channel();
    let (cmd_tx, cmd_rx) = mpsc::unbounded_channel();
    tokio::spawn(net::follow(client, place.clone(), net_tx, cmd_rx));

    // Raw mode and the alternate screen, with a panic hook that gives the terminal back first.
    let mut terminal = match ratatui::try_init() {
        Ok(t) => t,
        Err(e) => {
            // Raw mode may be on already: off again, quietly (there may be no terminal at all).
            let _ = ratatui::try_restore();
            return Err(e.into());
        }
    };
    let result = tui_loop(&mut terminal, &mut net_rx, &cmd_tx, &place, no_color).await;
    // Dropping the terminal shows the cursor again; then raw mode off, main screen back.
    drop(terminal);
    ratatui::restore();
    result
}

async fn tui_loop(
    terminal: &mut DefaultTerminal,
    net_rx: &mut mpsc::UnboundedReceiver<NetEvent>,
    cmd_tx: &mpsc::UnboundedSender<Send>,
    place: &Place,
    no_color: bool,
) -> Result<(u8, bool)> {
    // Keys (and resizes) as a stream, read in this loop beside the network's events.
    let mut keys = EventStream::new();
    let mut app = App::new(no_color);
    app.stage =
        crate::app::Stage::Connecting(format!("joining game {}…", crate::table::shown(&place.game_id)));
    let mut tick = tokio::time::interval(Duration::from_millis(500));
    let mut net_open = true;
    loop {
        terminal.draw(|f| crate::render::draw(f, &app, now_ms()))?;
        tokio::select! {
            ev = net_rx.recv(), if net_open => match ev {
                None => {
                    net_open = false;
                    // After the game is over its stream ends: nothing is wrong.
                    if !app.table().is_some_and(Table::is_over) {
                        app.error("the connection ended");
                    }
                }
                Some(NetEvent::Snapshot(s)) => match Table::from_snapshot(&s) {
                    Ok(t) => app.set_table(t),
                    Err(e) => app.error(format!("bad snapshot from the server: {e}")),
                },
                Some(NetEvent::Event(e)) => {
                    if let Err(e) = app.apply(&e) {
                        app.error(format!("lost track of the game: {e}"));
                    }
                }
                Some(NetEvent::Reconnecting(why)) => app.error(format!("connection lost ({why}); reconnecting…")),
                Some(NetEvent::Reconnected) => app.info("reconnected"),
                Some(NetEvent::Refused(why)) => app.refused(why),
                Some(NetEvent::Fatal(why)) => app.error(format!("{why} (q: quit)")),
            },
            k = keys.next() => match k {
                Some(Ok(Event::Key(key))) if key.kind != KeyEventKind::Release => {
                    match app.handle_key(key) {
                        Some(Command::Quit) => return Ok((0, app.table().is_some_and(Table::is_over))),
                        Some(Command::Act(action)) => {
                            if let Some(t) = app.table() {
                                let offer = t.phase == pb::Phase::UpcardOffer;
                                let _ = cmd_tx.send(Send { action: Move::Play(action), offer, expected_seq: t.last_seq });
                            }
                        }
                        Some(Command::Resign) => {
                            if let Some(t) = app.table() {
                                let _ = cmd_tx.send(Send { action: Move::Resign, offer: false, expected_seq: t.last_seq });
                            }
                        }
                        None => {}
                    }
                }
                Some(Ok(Event::Resize(..))) => {} // draw() fits the new size
                Some(Ok(_)) => {}
                // The terminal cannot be read any more: leave as if quitting.
                Some(Err(_)) | None => return Ok((0, app.table().is_some_and(Table::is_over))),
            },
            _ = tick.tick() => {}
        }
    }
}
