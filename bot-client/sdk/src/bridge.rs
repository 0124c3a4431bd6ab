//! The bot bridge: a program in any language plays through `gin-bot bridge`, speaking a
//! small line protocol on its stdin and stdout, with no gRPC at all.
//!
//! The bridge runs the program once ([`BotProcess::spawn`]) and plays its games with the SDK
//! ([`play_game`]): every event of the seat's stream becomes one line to the program
//! ([`event_line`]); at each of the seat's turns it writes the turn's state and its legal
//! actions ([`turn_lines`]) and reads back one line, the action ([`parse_answer`]). The
//! protocol is documented in `examples/bridge/README.md`, with an example bot.
//!
//! A program that exits, answers garbage or an illegal action, or does not answer within the
//! timeout is an error ([`BridgeError`]) that names what happened, and the bridge never
//! hangs: the turn that failed gets a safe legal action (the SDK's fallback: a strategy must
//! answer), then the bridge resigns the game and stops.
//!
//! ```
//! use engine::{Action, Legal, hand};
//! use gin_sdk::bridge::{legal_tokens, parse_answer};
//! let legal = Legal { draw_stock: true, draw_pile: true, ..Legal::default() };
//! assert_eq!(legal_tokens(&legal), ["stock", "pile"]);
//! assert_eq!(parse_answer("stock", &legal), Ok(Action::DrawStock));
//! assert!(parse_answer("discard 7S", &legal).is_err()); // not legal now
//! ```

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use engine::{Action, CardSet, Legal, Seat};
use gin_proto::text::printable;
use gin_proto::v1 as pb;
use gin_proto::v1::game_event::Kind as K;
use gin_strategies::{Choice, Decision, Strategy, fallback, is_listed, server_melds};

use crate::{Client, Outcome, SeatTracker, Seated};

/// The protocol's version, sent in the first line (`bridge 2`). Version 2 only adds to
/// version 1: words at the end of the `game` line (every rule), and lines (`at` before each
/// event, the showdown before `handover`, `refused`, `error`): a version 1 program that
/// ignores what it does not know plays on.
pub const PROTOCOL_VERSION: u32 = 2;

/// What the bridge does when its program answers badly or late, or writes a line when no
/// answer was asked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnError {
    /// Resign the game and stop (every error is fatal).
    #[default]
    Stop,
    /// Resign the game and go on with the next one; a stray line is reported and ignored.
    ResignGame,
    /// Tell the program (`error <what>`), play a safe legal move for that turn, and go on
    /// with the game; a stray line is reported and ignored.
    Skip,
}

/// Why the bridge stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BridgeError {
    /// The program could not be started.
    Spawn(String),
    /// The program exited, or closed its output, while the bridge needed it.
    Exited(String),
    /// No answer within the timeout.
    Timeout(String),
    /// An answer that is not an action, or not a legal one now, or a line nobody asked for.
    BadAnswer(String),
    /// The server or the network (from the SDK).
    Sdk(String),
    /// The result read back from the server disagrees with the game's events.
    Check(String),
}

impl std::fmt::Display for BridgeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BridgeError::Spawn(e) => write!(f, "cannot start the bot program: {e}"),
            BridgeError::Exited(e) => write!(f, "the bot program is gone: {e}"),
            BridgeError::Timeout(e) => write!(f, "the bot program did not answer: {e}"),
            BridgeError::BadAnswer(e) => write!(f, "bad answer from the bot program: {e}"),
            BridgeError::Sdk(e) => write!(f, "{e}"),
            BridgeError::Check(e) => write!(f, "result check failed: {e}"),
        }
    }
}

impl std::error::Error for BridgeError {}

impl From<crate::Error> for BridgeError {
    fn from(e: crate::Error) -> BridgeError {
        BridgeError::Sdk(e.to_string())
    }
}

/// A running bot program: its stdin fed by a writer thread, its stdout read by a reader
/// thread (so neither a full pipe nor a silent program can block the bridge: every wait for
/// an answer has a timeout). Its stderr is the bridge's own.
pub struct BotProcess {
    cmd: String,
    child: Mutex<Child>,
    to_bot: Mutex<Option<Sender<String>>>,
    from_bot: Mutex<Receiver<String>>,
    timeout: Duration,
    /// The seq of the last event passed on (for the `turn` line).
    last_seq: AtomicU64,
    /// The first failure; once set, the bridge stops talking to the program.
    failure: Mutex<Option<BridgeError>>,
    failed: tokio::sync::Notify,
    /// What an error of the program does.
    on_error: OnError,
    /// What was forgiven under a lenient [`OnError`], for the bridge to report.
    notes: Mutex<Vec<String>>,
}

impl BotProcess {
    /// Starts `cmd` with `sh -c` and sends it the protocol's first line. `timeout` bounds
    /// each wait for an answer. Every error of the program is fatal ([`OnError::Stop`]).
    pub fn spawn(cmd: &str, timeout: Duration) -> Result<Arc<BotProcess>, BridgeError> {
        BotProcess::spawn_with(cmd, timeout, OnError::Stop)
    }

    /// [`spawn`](Self::spawn) with what an error of the program does.
    pub fn spawn_with(
        cmd: &str,
        timeout: Duration,
        on_error: OnError,
    ) -> Result<Arc<BotProcess>, BridgeError> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(cmd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| BridgeError::Spawn(format!("sh -c {cmd:?}: {e}")))?;
        let mut stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (to_bot, lines_out) = mpsc::channel::<String>();
        std::thread::spawn(move || {
            for line in lines_out {
                // The program closed its input or exited: stop; the next answer awaited
                // finds out why.
                if stdin.write_all(line.as_bytes()).and_then(|()| stdin.flush()).is_err() {
                    return;
                }
            }
        });
        let (lines_in, from_bot) = mpsc::channel::<String>();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if lines_in.send(line).is_err() {
                    return;
                }
            }
        });
        let bot = Arc::new(BotProcess {
            cmd: cmd.to_string(),
            child: Mutex::new(child),
            to_bot: Mutex::new(Some(to_bot)),
            from_bot: Mutex::new(from_bot),
            timeout,
            last_seq: AtomicU64::new(0),
            failure: Mutex::new(None),
            failed: tokio::sync::Notify::new(),
            on_error,
            notes: Mutex::new(Vec::new()),
        });
        bot.send(format!("bridge {PROTOCOL_VERSION}\n"));
        Ok(bot)
    }

    /// Queues text (whole lines) for the program. Never blocks.
    fn send(&self, text: String) -> bool {
        self.to_bot.lock().expect("lock").as_ref().is_some_and(|tx| tx.send(text).is_ok())
    }

    /// The first failure, if any.
    pub fn failure(&self) -> Option<BridgeError> {
        self.failure.lock().expect("lock").clone()
    }

    /// Takes the failure of the last game back, so that the next game is played, when
    /// [`OnError::ResignGame`] forgives it: an answer that was bad or late (not a program
    /// that is gone). Returns it.
    pub fn forgive(&self) -> Option<BridgeError> {
        let mut f = self.failure.lock().expect("lock");
        let forgivable = matches!(&*f, Some(BridgeError::BadAnswer(_) | BridgeError::Timeout(_)));
        if self.on_error == OnError::ResignGame && forgivable { f.take() } else { None }
    }

    /// What was forgiven since the last call (stray lines, bad answers under
    /// [`OnError::Skip`]), one line each, for the bridge to report.
    pub fn take_notes(&self) -> Vec<String> {
        std::mem::take(&mut *self.notes.lock().expect("lock"))
    }

    fn note(&self, text: String) {
        tracing::debug!("bridge: {text}");
        self.notes.lock().expect("lock").push(text);
    }

    /// An error of the program at a turn: under [`OnError::Skip`], a bad or late answer is
    /// told to the program (`error <what>`) and noted, and the turn gets a safe move;
    /// otherwise it is the failure.
    fn handle(&self, e: BridgeError) {
        match (&e, self.on_error) {
            (BridgeError::BadAnswer(m) | BridgeError::Timeout(m), OnError::Skip) => {
                self.send(format!("error {}\n", printable(m)));
                self.note(format!("{e}; a safe move was played instead"));
            }
            _ => self.fail(e),
        }
    }

    fn fail(&self, e: BridgeError) {
        let mut f = self.failure.lock().expect("lock");
        if f.is_none() {
            tracing::debug!("bridge failure: {e}");
            *f = Some(e);
            self.failed.notify_one();
        }
    }

    /// How the program ended, waiting a little for it to exit.
    fn exit_status(&self) -> String {
        let deadline = Instant::now() + Duration::from_millis(500);
        loop {
            match self.child.lock().expect("lock").try_wait() {
                Ok(Some(s)) => return format!("`{}` exited ({s})", self.cmd),
                Ok(None) if Instant::now() < deadline => {}
                Ok(None) => return format!("`{}` closed its output", self.cmd),
                Err(e) => return format!("`{}`: {e}", self.cmd),
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Writes the turn of `d` and reads the program's action.
    fn ask(&self, d: &Decision<'_>) -> Result<Action, BridgeError> {
        let seq = self.last_seq.load(Ordering::Relaxed);
        let legal = legal_tokens(&d.legal).join(" ");
        let line = self.ask_line(turn_lines(d, seq), &legal, seq)?;
        parse_answer(&line, &d.legal).map_err(|e| {
            BridgeError::BadAnswer(format!("{e} (answer to the turn at seq {seq}; legal: {legal})"))
        })
    }

    /// Writes `lines` (a turn) and reads the program's answer line (`legal`: the tokens, for
    /// the error texts).
    fn ask_line(&self, lines: String, legal: &str, seq: u64) -> Result<String, BridgeError> {
        let rx = self.from_bot.lock().expect("lock");
        while let Ok(line) = rx.try_recv() {
            if ignored(&line) {
                continue;
            }
            let what =
                format!("the program wrote {line:?} when no answer was asked (before the turn at seq {seq})");
            if self.on_error == OnError::Stop {
                return Err(BridgeError::BadAnswer(what));
            }
            // A debug print, or a late answer: reported, not fatal.
            self.note(format!("{what}: ignored"));
        }
        if !self.send(lines) {
            return Err(BridgeError::Exited(self.exit_status()));
        }
        let deadline = Instant::now() + self.timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(line) if ignored(&line) => continue,
                // Under a lenient mode, a line that is no move at all (a debug print) is
                // reported and the answer still awaited.
                Ok(line) if self.on_error != OnError::Stop && !looks_like_answer(&line) => {
                    self.note(format!(
                        "the program wrote {line:?}, which is no move, while asked for the turn at seq {seq}: ignored"
                    ));
                }
                Ok(line) => return Ok(line),
                Err(RecvTimeoutError::Timeout) => {
                    return Err(BridgeError::Timeout(format!(
                        "no action within {:?} for the turn at seq {seq} (legal: {legal})",
                        self.timeout
                    )));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(BridgeError::Exited(format!(
                        "{} without answering the turn at seq {seq}",
                        self.exit_status()
                    )));
                }
            }
        }
    }

    /// Closes the program's input (it should exit at end of input), waits up to `grace`
    /// for it to exit, and kills it otherwise. Returns how it ended.
    pub fn finish(&self, grace: Duration) -> String {
        self.to_bot.lock().expect("lock").take();
        let deadline = Instant::now() + grace;
        let mut child = self.child.lock().expect("lock");
        loop {
            match child.try_wait() {
                Ok(Some(s)) => return format!("exited ({s})"),
                Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return format!("killed: still running {grace:?} after the end of its input");
                }
            }
        }
    }
}

impl Drop for BotProcess {
    fn drop(&mut self) {
        if let Ok(mut c) = self.child.lock()
            && matches!(c.try_wait(), Ok(None))
        {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Whether a line of the program starts like a move (its first word, before a space or a
/// colon, names one): else, under a lenient [`OnError`], it is a stray line.
fn looks_like_answer(line: &str) -> bool {
    let word = line.trim().split([' ', ':']).next().unwrap_or("");
    ["pass", "stock", "pile", "take", "discard", "knock", "big-gin", "meld", "layoff"]
        .contains(&word.to_ascii_lowercase().as_str())
}

/// Lines from the program that are not answers: empty, or comments starting with `#`.
fn ignored(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

/// The program as a [`Strategy`]: each decision is written to it and its answer read back.
/// After a failure it answers with a safe legal action and the bridge stops the game.
pub struct BridgeStrategy(Arc<BotProcess>);

impl Strategy for BridgeStrategy {
    fn name(&self) -> &str {
        "bridge"
    }

    fn act(&mut self, d: &Decision<'_>) -> Action {
        if self.0.failure().is_none() {
            match self.0.ask(d) {
                Ok(a) => return a,
                Err(e) => self.0.handle(e),
            }
        }
        fallback(d)
    }

    /// The server refused the melds the program named: it is told why (`refused <reason>`)
    /// and asked again, with the same turn.
    fn melds_refused(&mut self, d: &Decision<'_>, action: &Action, reason: &str) -> Action {
        if self.0.failure().is_none() {
            self.0.send(format!("refused {}\n", printable(reason)));
            match self.0.ask(d) {
                Ok(a) => return a,
                Err(e) => self.0.handle(e),
            }
        }
        server_melds(action)
    }
}

fn cards(set: CardSet) -> String {
    set.by_rank().iter().map(|c| format!(" {c}")).collect()
}

fn seat_or_dash(s: Option<u32>) -> String {
    s.map_or("-".into(), |s| s.to_string())
}

/// The legal actions as the protocol's tokens, each one a complete answer: `pass`,
/// `pile` (take the upcard or the pile's top), `stock`, `discard:7S`, `knock:7S` (face-down
/// discard 7S; gin when no deadwood is left), `big-gin`.
pub fn legal_tokens(l: &Legal) -> Vec<String> {
    let mut v = Vec::new();
    if l.pass {
        v.push("pass".to_string());
    }
    if l.draw_stock {
        v.push("stock".to_string());
    }
    if l.draw_pile {
        v.push("pile".to_string());
    }
    v.extend(l.discards.by_rank().iter().map(|c| format!("discard:{c}")));
    v.extend(l.knocks.by_rank().iter().map(|c| format!("knock:{c}")));
    if l.big_gin {
        v.push("big-gin".to_string());
    }
    v
}

/// The lines of one turn (the last, `legal …`, asks for the answer):
///
/// ```text
/// turn <seq> <offer|draw|discard> <stock size> <knock limit> <score 0> <score 1> <card taken from the pile this turn, or ->
/// hand <your cards>
/// pile <the face-up pile, bottom first>
/// legal <token> <token> …
/// ```
pub fn turn_lines(d: &Decision<'_>, seq: u64) -> String {
    let phase = match d.choice() {
        Choice::Offer => "offer",
        Choice::Draw => "draw",
        Choice::Discard => "discard",
    };
    let taken = d.taken.map_or("-".into(), |c| c.to_string());
    let pile: String = d.pile.iter().map(|c| format!(" {c}")).collect();
    format!(
        "turn {seq} {phase} {} {} {} {} {taken}\nhand{}\npile{pile}\nlegal {}\n",
        d.stock_len,
        d.knock_limit,
        d.scores[Seat::S0],
        d.scores[Seat::S1],
        cards(d.hand),
        legal_tokens(&d.legal).join(" "),
    )
}

/// Reads an answer: one of the [`legal_tokens`], or the same with a space for the colon
/// (`discard 7S`), or a knock naming its melds (`knock 7S [7C 7D 7H] [3S 4S 5S]`). It must
/// be legal now (named melds are checked by the server).
pub fn parse_answer(line: &str, legal: &Legal) -> Result<Action, String> {
    let text = line.trim().replacen(':', " ", 1);
    let action: Action = text.parse().map_err(|e| format!("{:?} is not an action: {e}", line.trim()))?;
    if !is_listed(legal, &action) {
        return Err(format!("{:?} is not legal now", line.trim()));
    }
    Ok(action)
}

/// The line for one event of the seat's stream (`None` for the events it does not pass
/// on: joins, and turns, which come as [`turn_lines`] when they are the program's):
///
/// ```text
/// deal <hand number> <dealer> <upcard> <knock limit> <your 10 cards>
/// passed <seat>
/// drew <seat> stock <card, or ? for the other seat>
/// drew <seat> pile <card>
/// discarded <seat> <card>
/// handover <hand number> <dead|knock|undercut|gin|big-gin> <winner or -> <points> <score 0> <score 1>
/// left <seat> <resigned|forfeit>
/// timeout <seat>
/// gameover <winner or -> <total 0> <total 1> <target|resigned|forfeit>
/// ```
pub fn event_line(ev: &pb::GameEvent) -> Option<String> {
    let line = match ev.kind.as_ref()? {
        K::PlayerJoined(_) | K::TurnStarted(_) => return None,
        // The bridge plays two-player gin; the other formats' events do not occur there.
        K::MeldLaid(m) => {
            let meld = m.meld.clone().unwrap_or_default();
            format!("meld {} {} {}", m.seat, meld.index, meld.cards.join(" "))
        }
        K::CardLaidOff(l) => format!("layoff {} {} {}", l.seat, l.card, l.meld),
        K::PileTurned(p) => format!("pileturned {} {}", p.seat, p.stock_size),
        K::TableHandEnded(h) => {
            let r = h.result.clone().unwrap_or_default();
            let totals: String = r.totals.iter().map(|t| format!(" {t}")).collect();
            format!(
                "tablehandover {} {} {} {}{totals}",
                r.hand_number,
                end_word(r.end),
                seat_or_dash(r.winner),
                r.points
            )
        }
        K::HandDealt(d) => {
            let hand: String = d.your_hand.iter().map(|c| format!(" {c}")).collect();
            format!("deal {} {} {} {}{hand}", d.hand_number, d.dealer, d.upcard, d.knock_limit)
        }
        K::UpcardPassed(p) => format!("passed {}", p.seat),
        K::CardDrawn(c) => {
            let pile = c.source == pb::DrawSource::Pile as i32;
            let card = if c.card.is_empty() { "?" } else { &c.card };
            format!("drew {} {} {card}", c.seat, if pile { "pile" } else { "stock" })
        }
        K::CardDiscarded(c) => format!("discarded {} {}", c.seat, c.card),
        K::HandEnded(h) => {
            let r = h.result.clone().unwrap_or_default();
            let end = end_word(r.end);
            let s = |i: usize| r.scores.get(i).copied().unwrap_or(0);
            let showdown =
                r.showdown.as_ref().map(|sd| showdown_lines(r.hand_number, sd)).unwrap_or_default();
            format!(
                "{showdown}handover {} {end} {} {} {} {}",
                r.hand_number,
                seat_or_dash(r.winner),
                r.points,
                s(0),
                s(1)
            )
        }
        K::PlayerLeft(l) => format!("left {} {}", l.seat, reason(l.reason)),
        K::ClockExpired(c) => format!("timeout {}", c.seat),
        K::GameOver(g) if g.result.as_ref().is_some_and(|r| r.totals.is_empty() && !r.places.is_empty()) => {
            // A table of another format: every winner (comma-separated), every total.
            let r = g.result.clone().unwrap_or_default();
            let winners: Vec<String> = r.winners.iter().map(u32::to_string).collect();
            let winners = if winners.is_empty() { "-".to_string() } else { winners.join(",") };
            let totals: String = r.table_totals.iter().map(|t| format!(" {t}")).collect();
            format!("gameover {winners}{totals} {}", reason(r.reason))
        }
        K::GameOver(g) => {
            let r = g.result.clone().unwrap_or_default();
            let t = |i: usize| r.totals.get(i).copied().unwrap_or(0);
            format!("gameover {} {} {} {}", seat_or_dash(r.winner), t(0), t(1), reason(r.reason))
        }
    };
    Some(line + "\n")
}

/// The showdown of a knock (gin, big gin), before its `handover` line:
///
/// ```text
/// showdown <hand> <knocker> <face-down discard, or - for big gin>
/// melds <seat> <deadwood value> <meld> <meld> …     each meld's cards comma-separated
/// deadwood <seat> <cards…>                          (the line may be just `deadwood <seat>`)
/// …                                                  the knocker's two lines, then the defender's
/// layoffs <card>:<knocker's meld index> …           the defender's lay-offs (may be just `layoffs`)
/// revealed <seat> <cards…>                          each hand as laid down (knocker first)
/// ```
///
/// The knocker's melds are the ones it named, or the server's minimum-deadwood arrangement;
/// the defender's melds and lay-offs are the server's, the best for the defender.
pub fn showdown_lines(hand: u32, sd: &pb::Showdown) -> String {
    let defender = 1 - sd.knocker.min(1);
    let discard = if sd.discard.is_empty() { "-" } else { &sd.discard };
    let mut out = format!("showdown {hand} {} {discard}\n", sd.knocker);
    let arrangement = |seat: u32, a: &pb::Arrangement| {
        let melds: String = a.melds.iter().map(|m| format!(" {}", m.cards.join(","))).collect();
        let deadwood: String = a.deadwood.iter().map(|c| format!(" {c}")).collect();
        format!("melds {seat} {}{melds}\ndeadwood {seat}{deadwood}\n", a.deadwood_value)
    };
    let (k, d) =
        (sd.knocker_melds.clone().unwrap_or_default(), sd.defender_melds.clone().unwrap_or_default());
    out += &arrangement(sd.knocker, &k);
    out += &arrangement(defender, &d);
    let layoffs: String = sd.layoffs.iter().map(|l| format!(" {}:{}", l.card, l.meld)).collect();
    out += &format!("layoffs{layoffs}\n");
    let hand_of = |a: &pb::Arrangement, extra: Vec<&String>| -> String {
        let mut cards: Vec<&String> = a.melds.iter().flat_map(|m| &m.cards).chain(&a.deadwood).collect();
        cards.extend(extra);
        cards.iter().map(|c| format!(" {c}")).collect()
    };
    out += &format!("revealed {}{}\n", sd.knocker, hand_of(&k, Vec::new()));
    out += &format!("revealed {defender}{}\n", hand_of(&d, sd.layoffs.iter().map(|l| &l.card).collect()));
    out
}

/// The line before each event's: `at <seq> <server time, Unix milliseconds>`.
fn at_line(ev: &pb::GameEvent) -> String {
    format!("at {} {}\n", ev.seq, ev.time_unix_ms)
}

/// Every rule of `r` as `key=value` words (for the `game` line): bonuses, big gin, knock
/// limit, the upcard, the target and how it is reached, stages.
pub fn rule_words(r: &pb::RuleSet) -> String {
    let b = |x: bool| u8::from(x);
    let target_rule = pb::TargetRule::try_from(r.target_rule).map_or("?".to_string(), |t| {
        t.as_str_name().trim_start_matches("TARGET_RULE_").to_ascii_lowercase().replace('_', "-")
    });
    let shutout = pb::Shutout::try_from(r.shutout).map_or("?".to_string(), |t| {
        t.as_str_name().trim_start_matches("SHUTOUT_").to_ascii_lowercase().replace('_', "-")
    });
    format!(
        "gin_bonus={} big_gin={} big_gin_bonus={} undercut_bonus={} upcard_offer={} knock_limit={} \
         knock_limit_from_upcard={} spade_upcard_doubles={} target={} target_rule={target_rule} game_bonus={} \
         box_bonus={} shutout={shutout} shutout_bonus={} stages={}",
        r.gin_bonus,
        b(r.big_gin),
        r.big_gin_bonus,
        r.undercut_bonus,
        b(r.upcard_offer),
        r.knock_limit,
        b(r.knock_limit_from_upcard),
        b(r.spade_upcard_doubles),
        r.target,
        r.game_bonus,
        r.box_bonus,
        r.shutout_bonus,
        r.stages
    )
}

fn end_word(e: i32) -> &'static str {
    match pb::EndKind::try_from(e) {
        Ok(pb::EndKind::Dead) => "dead",
        Ok(pb::EndKind::Knock) => "knock",
        Ok(pb::EndKind::Undercut) => "undercut",
        Ok(pb::EndKind::Gin) => "gin",
        Ok(pb::EndKind::BigGin) => "big-gin",
        Ok(pb::EndKind::Defence) => "defence",
        Ok(pb::EndKind::WentOut) => "went-out",
        Ok(pb::EndKind::Rummy) => "rummy",
        Ok(pb::EndKind::TurnLimit) => "turn-limit",
        _ => "?",
    }
}

fn reason(r: i32) -> &'static str {
    match pb::GameEndReason::try_from(r) {
        Ok(pb::GameEndReason::Target) => "target",
        Ok(pb::GameEndReason::Resigned) => "resigned",
        Ok(pb::GameEndReason::Forfeit) => "forfeit",
        Ok(pb::GameEndReason::Cancelled) => "cancelled",
        Ok(pb::GameEndReason::Abandoned) => "abandoned",
        Ok(pb::GameEndReason::HandLimit) => "hand-limit",
        _ => "?",
    }
}

/// Plays the seat `seated` with the program `bot` to game over. The program first gets
/// `game <game id> <seat> <rules name> <target>`, then the seat's events and turns. On a
/// failure of the program, the game is resigned and the failure returned.
pub async fn play_game(
    client: &Client,
    seated: &Seated,
    bot: &Arc<BotProcess>,
) -> Result<Outcome, BridgeError> {
    let snap = client.get_game(&seated.game_id, &seated.token).await?;
    let rules = snap.rules.clone().unwrap_or_default();
    // The server's text, escaped: a control character (a newline) would break the protocol.
    let (id, name) = (printable(&seated.game_id), printable(&rules.name));
    bot.send(format!("game {id} {} {name} {} {}\n", seated.seat.index(), rules.target, rule_words(&rules)));
    let mut strategy = BridgeStrategy(bot.clone());
    let observer_bot = bot.clone();
    let mut on_event = move |ev: &pb::GameEvent, _: &SeatTracker| {
        observer_bot.last_seq.store(ev.seq, Ordering::Relaxed);
        if observer_bot.failure().is_none()
            && let Some(line) = event_line(ev)
        {
            observer_bot.send(at_line(ev) + &line);
        }
    };
    let played = tokio::select! {
        r = client.play_observed(&seated.game_id, &seated.token, &mut strategy, &mut on_event) => Some(r),
        () = bot.failed.notified() => None,
    };
    if let Some(e) = bot.failure() {
        if let Err(r) = client.resign(&seated.game_id, &seated.token).await {
            tracing::warn!(game = seated.game_id, "resigning after the program's failure: {r}");
        }
        return Err(e);
    }
    Ok(played.expect("no failure: the game was played")?)
}

/// Reads the finished game back (`GetRecord`) and checks it against `o`, the result the
/// seat's stream ended with: the same result, the target reached by the winner (or equal
/// totals for a draw), the margin the difference of the totals. Returns the hands recorded.
pub async fn check_result(client: &Client, o: &Outcome, target: u32) -> Result<usize, BridgeError> {
    let rec = client.get_record(&o.game_id).await?;
    let g = &o.game_id;
    if rec.result.as_ref() != Some(&o.result) {
        return Err(BridgeError::Check(format!(
            "{g}: GetRecord's result differs from the game-over event's"
        )));
    }
    // At the hand limit the totals decide, no target reached.
    if o.reason == pb::GameEndReason::Target {
        let [a, b] = o.totals;
        if a.max(b) < target {
            return Err(BridgeError::Check(format!("{g}: totals {a}-{b} below the target {target}")));
        }
        let ok = match o.winner {
            Some(w) => o.totals[w.index()] == a.max(b) && o.margin == a.abs_diff(b),
            None => a == b,
        };
        if !ok {
            return Err(BridgeError::Check(format!("{g}: winner {:?} with totals {a}-{b}", o.winner)));
        }
    }
    Ok(rec.reveals.len())
}

/// A table move as the protocol's token, a complete answer: `stock`, `pile`, `pass`,
/// `discard:7S`, `knock:7S`, `big-gin`, `meld:7C,7D,7H`, `layoff:7S:2` (onto the table's
/// meld 2).
pub fn table_token(a: &pb::LegalAction) -> String {
    use pb::ActionKind as A;
    match A::try_from(a.kind).unwrap_or(A::Unspecified) {
        A::DrawStock => "stock".into(),
        A::DrawPile | A::TakeUpcard => "pile".into(),
        A::PassUpcard => "pass".into(),
        A::Discard => format!("discard:{}", a.card),
        A::Knock => format!("knock:{}", a.card),
        A::BigGin => "big-gin".into(),
        A::Meld => format!("meld:{}", a.cards.join(",")),
        A::LayOff => format!("layoff:{}:{}", a.card, a.meld),
        A::Unspecified => "?".into(),
    }
}

/// Reads a table answer: one of the turn's tokens ([`table_token`]), or the same with
/// spaces for the separators (`meld 7C 7D 7H`, `layoff 7S 2`, `discard 7S`); a meld's cards
/// in any order. It must be legal now.
pub fn parse_table_answer(line: &str, legal: &[pb::LegalAction]) -> Result<pb::LegalAction, String> {
    let words: Vec<&str> = line.trim().split([' ', ':', ',']).filter(|w| !w.is_empty()).collect();
    let Some((&word, rest)) = words.split_first() else { return Err("an empty answer".into()) };
    let word = if word == "take" { "pile" } else { word };
    let cards: Result<CardSet, _> = rest.iter().map(|c| c.parse::<engine::Card>()).collect();
    let found = legal.iter().find(|a| {
        let t = table_token(a);
        let mut tw = t.split([':', ',']);
        if tw.next() != Some(word) {
            return false;
        }
        match word {
            "meld" => {
                cards.as_ref().is_ok_and(|c| *c == a.cards.iter().filter_map(|x| x.parse().ok()).collect())
            }
            "layoff" => {
                rest.len() == 2
                    && rest[0].parse::<engine::Card>().ok().map(|c| c.to_string()) == Some(a.card.clone())
                    && rest[1].parse::<u32>().ok() == Some(a.meld)
            }
            "discard" | "knock" => {
                rest.len() == 1
                    && rest[0].parse::<engine::Card>().ok().map(|c| c.to_string()) == Some(a.card.clone())
            }
            _ => rest.is_empty(),
        }
    });
    found.cloned().ok_or_else(|| format!("{:?} is not a legal move now", line.trim()))
}

/// The lines of one turn at a table of another format (the last, `legal …`, asks for the
/// answer):
///
/// ```text
/// turn <seq> <offer|draw|play> <stock size> <your total>
/// hand <your cards>
/// pile <your table's discard pile as known, bottom first>
/// melds <index>:<cards comma-separated> …   (rummy: the melds on the table)
/// legal <token> <token> …
/// ```
pub fn table_turn_lines(view: &crate::TableTracker, turn: &pb::TurnInfo, seq: u64) -> String {
    use pb::ActionKind as A;
    let has = |k: A| turn.legal_actions.iter().any(|a| a.kind == k as i32);
    let phase = if has(A::PassUpcard) {
        "offer"
    } else if has(A::DrawStock) || has(A::DrawPile) {
        "draw"
    } else {
        "play"
    };
    let me = view.totals().get(view.seat() as usize).copied().unwrap_or(0);
    let pile: String = view.pile_top().map(|c| format!(" {c}")).unwrap_or_default();
    let melds: String = view
        .melds()
        .iter()
        .enumerate()
        .map(|(i, m)| {
            format!(" {i}:{}", m.by_rank().iter().map(|c| c.to_string()).collect::<Vec<_>>().join(","))
        })
        .collect();
    let tokens: Vec<String> = turn.legal_actions.iter().map(table_token).collect();
    format!(
        "turn {seq} {phase} {} {me}\nhand{}\npile{pile}\nmelds{melds}\nlegal {}\n",
        view.stock_len(),
        cards(view.hand()),
        tokens.join(" ")
    )
}

/// The program at a table of another format (see [`BridgeStrategy`]).
pub struct BridgeTableStrategy(Arc<BotProcess>);

impl BridgeTableStrategy {
    /// The program `bot` as a table strategy.
    pub fn new(bot: Arc<BotProcess>) -> BridgeTableStrategy {
        BridgeTableStrategy(bot)
    }
}

impl crate::TableStrategy for BridgeTableStrategy {
    fn name(&self) -> &str {
        "bridge"
    }

    fn act(&mut self, view: &crate::TableTracker, turn: &pb::TurnInfo) -> pb::LegalAction {
        if self.0.failure().is_none() {
            let seq = self.0.last_seq.load(Ordering::Relaxed);
            let lines = table_turn_lines(view, turn, seq);
            let tokens: Vec<String> = turn.legal_actions.iter().map(table_token).collect();
            match self.0.ask_line(lines, &tokens.join(" "), seq) {
                Ok(line) => match parse_table_answer(&line, &turn.legal_actions) {
                    Ok(a) => return a,
                    Err(e) => self.0.handle(BridgeError::BadAnswer(format!(
                        "{e} (answer to the turn at seq {seq}; legal: {})",
                        tokens.join(" ")
                    ))),
                },
                Err(e) => self.0.handle(e),
            }
        }
        // After a failure (the bridge resigns the game), or a bad answer forgiven: the first
        // legal move.
        turn.legal_actions.first().cloned().unwrap_or_default()
    }
}

/// Plays the seat of `token` in `game_id`, a table of another format, with the program
/// `bot`. It first gets `table <game id> <seat> <kind> <players>`, then the seat's events
/// and turns. On a failure of the program, the game is resigned and the failure returned.
pub async fn play_table_game(
    client: &Client,
    game_id: &str,
    token: &str,
    bot: &Arc<BotProcess>,
) -> Result<crate::TableOutcome, BridgeError> {
    let snap = client.get_game(game_id, token).await?;
    let seat = snap.viewer_seat.ok_or(BridgeError::Sdk("not seated".into()))?;
    let f = snap.format.clone().unwrap_or_default();
    bot.send(format!("table {} {seat} {} {}\n", printable(game_id), printable(&f.kind), f.players));
    let mut strategy = BridgeTableStrategy(bot.clone());
    let observer_bot = bot.clone();
    let mut on_event = move |ev: &pb::GameEvent, _: &crate::TableTracker| {
        observer_bot.last_seq.store(ev.seq, Ordering::Relaxed);
        if observer_bot.failure().is_none()
            && let Some(line) = event_line(ev)
        {
            observer_bot.send(at_line(ev) + &line);
        }
    };
    let played = tokio::select! {
        r = client.play_table_observed(game_id, token, &mut strategy, &mut on_event) => Some(r),
        () = bot.failed.notified() => None,
    };
    if let Some(e) = bot.failure() {
        if let Err(r) = client.resign(game_id, token).await {
            tracing::warn!(game = game_id, "resigning after the program's failure: {r}");
        }
        return Err(e);
    }
    Ok(played.expect("no failure: the game was played")?)
}

/// The program as a tournament entrant's player ([`crate::entrant::play_tournament_with`]):
/// it plays every game the tournament assigns, one at a time (its one input and output carry
/// one game), each announced as the bridge announces a game (`game …` at two-player gin,
/// `table …` at a table). (Its results are not checked against `GetRecord` as the bridge's
/// own games are: a tournament's records are given once it is over.) A failure of the program is handled as by the bridge's games: its game
/// is resigned; a forgiven one ([`BotProcess::forgive`], `OnError::ResignGame`) lets the next
/// game be played; any other ends its play, and every game assigned afterwards is resigned at
/// once (so that the tournament still ends), each one a failed game with the first error.
pub struct BridgeEntrant {
    bot: Arc<BotProcess>,
    /// Held for the whole of a game: one game at a time.
    turn: Arc<tokio::sync::Mutex<()>>,
}

impl BridgeEntrant {
    /// The program `bot` as an entrant's player.
    pub fn new(bot: Arc<BotProcess>) -> BridgeEntrant {
        BridgeEntrant { bot, turn: Arc::new(tokio::sync::Mutex::new(())) }
    }
}

impl crate::entrant::EntrantPlayer for BridgeEntrant {
    /// The bridge plays every format.
    fn check(&self, _table: Option<&str>) -> Result<(), crate::Error> {
        Ok(())
    }

    fn play(
        &self,
        client: Client,
        game_id: String,
        token: String,
        table: Option<String>,
        _n: u64,
    ) -> crate::entrant::PlayFuture {
        use crate::entrant::Played;
        let (bot, turn) = (self.bot.clone(), self.turn.clone());
        Box::pin(async move {
            let _mine = turn.lock().await;
            if let Some(e) = bot.failure() {
                if let Err(r) = client.resign(&game_id, &token).await {
                    tracing::warn!(game = game_id, "resigning after the program's failure: {r}");
                }
                return Err(crate::Error::Player(format!("{e} (the game was resigned)")));
            }
            let played = match table {
                Some(_) => play_table_game(&client, &game_id, &token, &bot).await.map(Played::Table),
                None => {
                    let snap = client.get_game(&game_id, &token).await?;
                    let seat = crate::convert::seat(snap.viewer_seat.ok_or(crate::Error::NotSeated)?)?;
                    let seated = Seated { game_id: game_id.clone(), seat, token };
                    play_game(&client, &seated, &bot).await.map(Played::Gin)
                }
            };
            played.map_err(|e| {
                let how = if bot.forgive().is_some() {
                    " (the game was resigned; going on)"
                } else if bot.failure().is_some() {
                    " (the game was resigned)"
                } else {
                    ""
                };
                crate::Error::Player(format!("{e}{how}"))
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{BySeat, Card, RuleSet, hand};

    fn card(s: &str) -> Card {
        s.parse().unwrap()
    }

    #[test]
    fn answers_are_tokens_or_the_engine_text_and_must_be_legal() {
        let legal = Legal {
            seat: Some(Seat::S0),
            discards: hand("7S KD 3C"),
            knocks: hand("KD"),
            ..Legal::default()
        };
        assert_eq!(legal_tokens(&legal), ["discard:3C", "discard:7S", "discard:KD", "knock:KD"]);
        for t in legal_tokens(&legal) {
            assert!(parse_answer(&t, &legal).is_ok(), "{t}");
        }
        assert_eq!(parse_answer(" discard 7S \n", &legal), Ok(Action::Discard { card: card("7S") }));
        assert_eq!(parse_answer("knock:KD", &legal), Ok(Action::knock(card("KD"))));
        assert!(matches!(
            parse_answer("knock KD [7C 7D 7H]", &legal),
            Ok(Action::Knock { melds: Some(m), .. }) if m.len() == 1
        ));
        assert_eq!(parse_answer("discard:2H", &legal), Err("\"discard:2H\" is not legal now".into()));
        assert_eq!(parse_answer("knock:7S", &legal), Err("\"knock:7S\" is not legal now".into()));
        assert_eq!(parse_answer("stock", &legal), Err("\"stock\" is not legal now".into()));
        let e = parse_answer("hello", &legal).unwrap_err();
        assert!(e.starts_with("\"hello\" is not an action"), "{e}");
        assert!(parse_answer("", &legal).is_err());
        let offer = Legal { seat: Some(Seat::S1), pass: true, draw_pile: true, ..Legal::default() };
        assert_eq!(legal_tokens(&offer), ["pass", "pile"]);
        assert_eq!(parse_answer("take", &offer), Ok(Action::DrawPile));
        let big = Legal { big_gin: true, ..Legal::default() };
        assert_eq!(legal_tokens(&big), ["big-gin"]);
        assert_eq!(parse_answer("big-gin", &big), Ok(Action::BigGin { melds: None }));
    }

    #[test]
    fn a_turn_is_four_lines_ending_with_the_legal_tokens() {
        let rules = RuleSet::standard();
        let memory = gin_strategies::Memory::new(Seat::S1);
        let pile = [card("2C"), card("9H")];
        let d = Decision {
            seat: Seat::S1,
            rules: &rules,
            hand: hand("7S 8S 9S 8C 8D 8H KD 2D 3D 4D 9H"),
            pile: &pile[..1],
            stock_len: 30,
            taken: Some(card("9H")),
            knock_limit: 10,
            legal: Legal { seat: Some(Seat::S1), discards: hand("KD 2D"), ..Legal::default() },
            scores: BySeat::new(25, 0),
            memory: &memory,
        };
        assert_eq!(
            turn_lines(&d, 41),
            "turn 41 discard 30 10 25 0 9H\nhand 2D 3D 4D 7S 8C 8D 8H 8S 9H 9S KD\npile 2C\n\
             legal discard:2D discard:KD\n"
        );
    }

    #[test]
    fn events_become_one_line_each() {
        let ev = |kind| pb::GameEvent { seq: 5, time_unix_ms: 0, kind: Some(kind) };
        let stock = |card: &str| {
            K::CardDrawn(pb::CardDrawn {
                seat: 1,
                source: pb::DrawSource::Stock as i32,
                card: card.into(),
                stock_size: 20,
            })
        };
        let cases = [
            (
                K::HandDealt(pb::HandDealt {
                    hand_number: 2,
                    dealer: 1,
                    upcard: "QS".into(),
                    knock_limit: 10,
                    your_hand: "AC 2C 3C 4C 5C 6C 7C 8C 9C TC".split(' ').map(String::from).collect(),
                    ..Default::default()
                }),
                Some("deal 2 1 QS 10 AC 2C 3C 4C 5C 6C 7C 8C 9C TC"),
            ),
            (stock(""), Some("drew 1 stock ?")),
            (stock("4H"), Some("drew 1 stock 4H")),
            (
                K::CardDrawn(pb::CardDrawn {
                    seat: 0,
                    source: pb::DrawSource::Pile as i32,
                    card: "QS".into(),
                    stock_size: 20,
                }),
                Some("drew 0 pile QS"),
            ),
            (K::CardDiscarded(pb::CardDiscarded { seat: 0, card: "5D".into() }), Some("discarded 0 5D")),
            (K::UpcardPassed(pb::UpcardPassed { seat: 1 }), Some("passed 1")),
            (
                K::HandEnded(pb::HandEnded {
                    result: Some(pb::HandResult {
                        hand_number: 2,
                        end: pb::EndKind::Gin as i32,
                        winner: Some(0),
                        points: 41,
                        scores: vec![66, 12],
                        ..Default::default()
                    }),
                }),
                Some("handover 2 gin 0 41 66 12"),
            ),
            (
                K::HandEnded(pb::HandEnded {
                    result: Some(pb::HandResult {
                        hand_number: 3,
                        end: pb::EndKind::Dead as i32,
                        scores: vec![66, 12],
                        ..Default::default()
                    }),
                }),
                Some("handover 3 dead - 0 66 12"),
            ),
            (
                K::GameOver(pb::GameOver {
                    result: Some(pb::GameResult {
                        reason: pb::GameEndReason::Target as i32,
                        winner: Some(1),
                        totals: vec![80, 230],
                        margin: 150,
                        ..Default::default()
                    }),
                }),
                Some("gameover 1 80 230 target"),
            ),
            (K::TurnStarted(pb::TurnStarted::default()), None),
            (K::PlayerJoined(pb::PlayerJoined::default()), None),
        ];
        for (kind, want) in cases {
            assert_eq!(event_line(&ev(kind)), want.map(|w| format!("{w}\n")));
        }
    }

    #[test]
    fn a_showdown_is_eight_lines_before_handover_and_the_game_line_has_every_rule() {
        let arr = |melds: &[&str], deadwood: &[&str], value| pb::Arrangement {
            melds: melds
                .iter()
                .map(|m| pb::Meld { cards: m.split(' ').map(String::from).collect() })
                .collect(),
            deadwood: deadwood.iter().map(|c| c.to_string()).collect(),
            deadwood_value: value,
        };
        let sd = pb::Showdown {
            knocker: 1,
            discard: "KS".into(),
            knocker_melds: Some(arr(&["7C 7D 7H", "3S 4S 5S"], &["AH", "2D"], 3)),
            defender_melds: Some(arr(&["TC JC QC"], &["9D", "KH"], 19)),
            layoffs: vec![
                pb::Layoff { card: "7S".into(), meld: 0 },
                pb::Layoff { card: "6S".into(), meld: 1 },
            ],
        };
        let ended = pb::GameEvent {
            seq: 40,
            time_unix_ms: 1_700_000_000_123,
            kind: Some(K::HandEnded(pb::HandEnded {
                result: Some(pb::HandResult {
                    hand_number: 2,
                    end: pb::EndKind::Knock as i32,
                    winner: Some(1),
                    points: 16,
                    showdown: Some(sd.clone()),
                    scores: vec![10, 41],
                    ..Default::default()
                }),
            })),
        };
        assert_eq!(
            event_line(&ended).unwrap(),
            "showdown 2 1 KS\n\
             melds 1 3 7C,7D,7H 3S,4S,5S\n\
             deadwood 1 AH 2D\n\
             melds 0 19 TC,JC,QC\n\
             deadwood 0 9D KH\n\
             layoffs 7S:0 6S:1\n\
             revealed 1 7C 7D 7H 3S 4S 5S AH 2D\n\
             revealed 0 TC JC QC 9D KH 7S 6S\n\
             handover 2 knock 1 16 10 41\n"
        );
        assert_eq!(at_line(&ended), "at 40 1700000000123\n");
        // Big gin: no face-down discard, no lay-offs.
        let big = pb::Showdown { discard: String::new(), layoffs: Vec::new(), ..sd };
        let lines = showdown_lines(0, &big);
        assert!(lines.starts_with("showdown 0 1 -\n") && lines.contains("\nlayoffs\n"), "{lines}");
        let words = rule_words(&gin_proto::rules::to_pb(&engine::RuleSet::preset("oklahoma").unwrap()));
        for w in ["knock_limit_from_upcard=1", "target_rule=at-least", "stages=1", "gin_bonus=25"] {
            assert!(words.split(' ').any(|x| x == w), "{w} in {words}");
        }
    }
}
