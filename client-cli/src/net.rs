//! The thin network side of `gin play` and `gin watch`: find a seat, then one task that
//! reads the game's event stream (resuming it after a drop, with no gap and no duplicate)
//! and sends the player's actions. It talks to the screen through channels only and never
//! touches the terminal. Connections, retries and the wire calls are the SDK's
//! ([`gin_sdk::Client`]).

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use engine::{Action, RuleSet};
use gin_proto::text::printable;
use gin_proto::v1 as pb;
use gin_proto::v1::watch_game_response::Kind as W;
use gin_sdk::{self as sdk, Client, Error, Options};
use tokio::sync::mpsc;
use tonic::Code;

/// What the network task tells the screen.
#[derive(Clone, Debug)]
pub enum NetEvent {
    /// A snapshot: the table as of now (at the start, or after a resync).
    Snapshot(Box<pb::GameSnapshot>),
    /// The next event, in seq order.
    Event(Box<pb::GameEvent>),
    /// The stream dropped; reconnecting (the reason).
    Reconnecting(String),
    /// The stream is back.
    Reconnected,
    /// The server refused an action: a message a person can act on.
    Refused(String),
    /// The game cannot be followed any more (the reason).
    Fatal(String),
}

/// What the player does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Move {
    /// A move of the game.
    Play(Action),
    /// A move at a table of another format, as the wire says it.
    Table(pb::LegalAction),
    /// Resign the game.
    Resign,
}

/// One action to send, with the seq of the last event the player saw.
#[derive(Clone, Debug)]
pub struct Send {
    /// The action.
    pub action: Move,
    /// The hand is in the upcard offer (`DrawPile` is `TakeUpcard` then).
    pub offer: bool,
    /// The seq the player saw.
    pub expected_seq: u64,
}

/// How to get a seat.
#[derive(Clone, Debug)]
pub enum Seating {
    /// Wait for another player asking for the same rules; with a house bot strategy, play
    /// that bot if nobody came within the seconds given.
    QuickMatch(Option<(String, u32)>),
    /// Play the server's house bot with this strategy.
    VsBot(String),
    /// Create a game and wait for someone to join it; `true`: a rated game (the client signed
    /// in, the rules a preset's).
    Create(bool),
    /// Join this game; `true`: even if its creator chose the seed (fixed deals).
    Join(String, bool),
}

/// A held seat (or, with an empty token, a spectator's place).
#[derive(Clone, Debug)]
pub struct Place {
    /// The game.
    pub game_id: String,
    /// The seat token; empty for a spectator.
    pub token: String,
}

/// Rules from a preset name or a TOML/JSON file, for the wire.
pub fn rules_spec(spec: &str) -> Result<pb::Rules> {
    if RuleSet::preset(spec).is_ok() {
        return Ok(sdk::preset(spec));
    }
    let path = Path::new(spec);
    if !path.exists() {
        bail!("--rules {spec:?} is neither a preset ({}) nor a rules file", engine::PRESETS.join(", "));
    }
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let rules = RuleSet::parse_any(&text).with_context(|| format!("rules file {}", path.display()))?;
    Ok(sdk::custom(&rules))
}

/// Connects to `url` (http:// or https://), giving up after a few seconds with a clear
/// error. `ca` trusts a CA certificate (PEM file) for https.
pub async fn connect(url: &str, ca: Option<&Path>) -> Result<Client> {
    let ca_cert = match ca {
        Some(p) => Some(std::fs::read(p).with_context(|| format!("reading CA certificate {}", p.display()))?),
        None => None,
    };
    let opts = Options { connect_for: Duration::from_secs(5), ca_cert, ..Options::default() };
    Client::connect_with(url, opts).await.map_err(|e| anyhow::anyhow!("{e} (is the server running?)"))
}

/// Gets a seat as `how` says; a game created here gets `clock` (quick matches and joined
/// games have the clock their creator chose).
pub async fn seat(
    client: &Client,
    how: &Seating,
    rules: pb::Rules,
    clock: Option<pb::TurnClock>,
    name: &str,
) -> Result<Place> {
    let s = match how {
        Seating::QuickMatch(or_bot) => {
            let (house_bot, after_secs) = or_bot.clone().unwrap_or_default();
            let req = pb::QuickMatchRequest {
                rules: Some(rules),
                name: name.to_string(),
                house_bot,
                house_bot_after_ms: after_secs * 1000,
                ..Default::default()
            };
            client.quick_match_with(req).await.map(|(seated, _)| seated).map_err(|e| match e {
                Error::Rpc { status, .. } if status.code() == Code::DeadlineExceeded => anyhow::anyhow!(
                    "nobody else asked for a game with these rules within a minute; try --or-bot simple"
                ),
                e => anyhow::anyhow!("quick match: {}", explain(&e)),
            })?
        }
        Seating::VsBot(bot) => client
            .create_game(pb::CreateGameRequest {
                rules: Some(rules),
                clock,
                name: name.to_string(),
                house_bot: bot.clone(),
                ..Default::default()
            })
            .await
            .map_err(|e| anyhow::anyhow!("creating a game against the {bot} bot: {}", explain(&e)))?,
        Seating::Create(rated) => client
            .create_game(pb::CreateGameRequest {
                rules: Some(rules),
                name: name.to_string(),
                rated: *rated,
                ..Default::default()
            })
            .await
            .map_err(|e| {
                let what = if *rated { "creating a rated game" } else { "creating a game" };
                anyhow::anyhow!("{what}: {}", explain(&e))
            })?,
        Seating::Join(id, accept_fixed_deals) => return join(client, id, name, *accept_fixed_deals).await,
    };
    Ok(Place { game_id: s.game_id, token: s.token })
}

/// Takes the first free seat of game `id` (of any format: a table's seats go past 1).
async fn join(client: &Client, id: &str, name: &str, accept_fixed_deals: bool) -> Result<Place> {
    let j = client
        .join_table(pb::JoinGameRequest {
            game_id: id.to_string(),
            name: name.to_string(),
            accept_fixed_deals,
            ..Default::default()
        })
        .await
        .map_err(|e| match e {
            Error::Rpc { status, .. } => anyhow::anyhow!("joining game {id}: {}", refusal_text(&status)),
            e => anyhow::anyhow!("joining game {id}: {e}"),
        })?;
    Ok(Place { game_id: id.to_string(), token: j.token })
}

/// [`seat`] at a table of another format: `format` is its document, `players` its size.
/// (The SDK's table calls, retried as its other calls are; errors explained as [`seat`]'s.)
pub async fn seat_table(
    client: &Client,
    how: &Seating,
    format: &engine::Format,
    clock: Option<pb::TurnClock>,
    name: &str,
) -> Result<Place> {
    let doc = format.to_value().to_string();
    let players = u32::from(format.players());
    let s = match how {
        Seating::QuickMatch(or_bot) => {
            let (house_bot, after_secs) = or_bot.clone().unwrap_or_default();
            let req = pb::QuickMatchRequest {
                format: doc,
                players,
                name: name.to_string(),
                house_bot,
                house_bot_after_ms: after_secs * 1000,
                ..Default::default()
            };
            client.quick_match_table(req).await.map(|(seated, _)| seated).map_err(|e| match e {
                Error::Rpc { status, .. } if status.code() == Code::DeadlineExceeded => {
                    anyhow::anyhow!("nobody else asked for this table within a minute; try --or-bot simple")
                }
                e => anyhow::anyhow!("QuickMatch: {}", explain(&e)),
            })?
        }
        Seating::VsBot(_) | Seating::Create(_) => {
            let house_bot = if let Seating::VsBot(b) = how { b.clone() } else { String::new() };
            let rated = matches!(how, Seating::Create(true));
            client
                .create_table(pb::CreateGameRequest {
                    // A rated game names its preset (its pool is the preset's at this size).
                    format: if rated { format.kind().name().to_string() } else { doc },
                    rated,
                    players,
                    clock,
                    name: name.to_string(),
                    house_bot,
                    ..Default::default()
                })
                .await
                .map_err(|e| anyhow::anyhow!("CreateGame: {}", explain(&e)))?
        }
        Seating::Join(id, accept_fixed_deals) => return join(client, id, name, *accept_fixed_deals).await,
    };
    Ok(Place { game_id: s.game_id, token: s.token })
}

/// A server error for people: the status message, with what the code means. The server's
/// words are escaped (`gin_proto::text::printable`): any server may send anything.
pub fn explain(e: &Error) -> String {
    match e {
        Error::Rpc { status, .. } => refusal_text(status),
        e => printable(&e.to_string()).into_owned(),
    }
}

/// A refused call for people (the server's message escaped, as in [`explain`]).
pub fn refusal_text(s: &tonic::Status) -> String {
    let m = printable(s.message());
    match s.code() {
        Code::Aborted => "the game moved on before your move arrived; nothing was played".into(),
        Code::FailedPrecondition => format!("refused: {m}"),
        Code::InvalidArgument => format!("invalid: {m}"),
        Code::NotFound => format!("not found: {m}"),
        Code::PermissionDenied | Code::Unauthenticated => format!("not allowed: {m}"),
        Code::ResourceExhausted => format!("the server is busy: {m}"),
        Code::Unavailable | Code::DeadlineExceeded => format!("the server cannot be reached: {m}"),
        c => format!("server error ({c:?}): {m}"),
    }
}

const FIRST_BACKOFF: Duration = Duration::from_millis(100);
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// Follows `place`'s game until `cmds` closes: forwards its snapshot and events in order to
/// `out`, reopens the stream after a drop (from the last seq forwarded), and sends each
/// action of `cmds` (each in its own task, retried by the SDK while the server is away). Ends
/// when `out` or `cmds` closes, or with [`NetEvent::Fatal`]. The server ends the stream after
/// the game is over: that end is not a drop (no reconnecting); commands are still sent (the
/// server refuses them, and the refusal is forwarded).
pub async fn follow(
    client: Client,
    place: Place,
    out: mpsc::UnboundedSender<NetEvent>,
    mut cmds: mpsc::UnboundedReceiver<Send>,
) {
    let idle = client.options().idle_timeout;
    let mut last = 0u64;
    let mut delay = FIRST_BACKOFF;
    let mut dropped = false;
    // The game-over event was forwarded: the stream's end is the game's, not a drop.
    let mut over = false;
    loop {
        let mut stream = match client.watch(&place.game_id, &place.token, last).await {
            Ok(s) => s,
            Err(Error::Rpc { status, .. }) if !sdk::stream_fatal(&status) => {
                let _ = out.send(NetEvent::Reconnecting(refusal_text(&status)));
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(MAX_BACKOFF);
                continue;
            }
            Err(e) => {
                let _ = out.send(NetEvent::Fatal(explain(&e)));
                return;
            }
        };
        if std::mem::take(&mut dropped) && out.send(NetEvent::Reconnected).is_err() {
            return;
        }
        let why = loop {
            tokio::select! {
                m = tokio::time::timeout(idle, stream.message()) => {
                    let m = match m {
                        Err(_) => break "no message from the server (not even a heartbeat)".to_string(),
                        Ok(Err(s)) if sdk::stream_fatal(&s) => {
                            let _ = out.send(NetEvent::Fatal(refusal_text(&s)));
                            return;
                        }
                        Ok(Err(s)) => break refusal_text(&s),
                        Ok(Ok(None)) if over => {
                            while let Some(c) = cmds.recv().await {
                                send_command(&client, &place, &out, c);
                            }
                            return;
                        }
                        Ok(Ok(None)) => break "the server closed the stream".to_string(),
                        Ok(Ok(Some(m))) => m,
                    };
                    delay = FIRST_BACKOFF;
                    let ev = match m.kind {
                        Some(W::Snapshot(s)) => {
                            last = s.seq;
                            over = s.phase == pb::Phase::GameOver as i32;
                            NetEvent::Snapshot(Box::new(s))
                        }
                        Some(W::Event(e)) if e.seq <= last => continue,
                        Some(W::Event(e)) if e.seq != last + 1 => break format!("event {} after {last}", e.seq),
                        Some(W::Event(e)) => {
                            last = e.seq;
                            over |= matches!(e.kind, Some(pb::game_event::Kind::GameOver(_)));
                            NetEvent::Event(Box::new(e))
                        }
                        Some(W::Heartbeat(_)) | None => continue,
                    };
                    if out.send(ev).is_err() {
                        return;
                    }
                }
                c = cmds.recv() => {
                    let Some(c) = c else { return };
                    send_command(&client, &place, &out, c);
                }
            }
        };
        dropped = true;
        if out.send(NetEvent::Reconnecting(why)).is_err() {
            return;
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(MAX_BACKOFF);
    }
}

/// Sends one command in its own task, so the stream is read (and a drop noticed) while the
/// SDK retries a call the server could not take yet. A retry that arrives after the game moved
/// on is refused as stale, never applied twice; a refusal goes to `out`.
fn send_command(client: &Client, place: &Place, out: &mpsc::UnboundedSender<NetEvent>, c: Send) {
    let (client, place, out) = (client.clone(), place.clone(), out.clone());
    tokio::spawn(async move {
        let r = match &c.action {
            Move::Play(a) => client.act(&place.game_id, &place.token, c.expected_seq, a, c.offer).await,
            Move::Table(a) => client.send_legal(&place.game_id, &place.token, c.expected_seq, a).await,
            Move::Resign => client.resign(&place.game_id, &place.token).await,
        };
        if let Err(e) = r {
            let _ = out.send(NetEvent::Refused(explain(&e)));
        }
    });
}
