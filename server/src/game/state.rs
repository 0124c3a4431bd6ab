//! One game on the server: the engine game, the seats, the event log and its watchers.
//!
//! The log holds unredacted events; each viewer gets its own redaction when an event is sent
//! ([`event_for`]), so a card a viewer may not see never enters its stream. Seq numbers are
//! log positions (from 1): the same events in the same order are rebuilt when a game is
//! replayed from storage, so seqs survive a restart.

use engine::{Action, BySeat, CardSet, Deck, Game, GameSetup, RuleSet, Seat};
use gin_proto::v1 as pb;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::GameError;
use super::wire;
use crate::storage::{ActionKind, ActionRow, Write};
use tokio::sync::mpsc;

/// One event of the log, unredacted (fields as in the gin.v1 messages of the same names).
/// The rare large ones are boxed, so that a log entry (with its time) takes 32 bytes.
#[allow(missing_docs)]
#[derive(Clone, Debug)]
pub enum LogEvent {
    /// A seat was taken.
    Joined(Box<Joined>),
    /// A hand was dealt.
    Dealt(Box<Dealt>),
    /// A seat is to act. Its legal actions are not kept in the log: they are computed from
    /// the game when this is the current turn (a resumed or late stream gets them then).
    Turn { seat: Seat, phase: pb::Phase, deadline_ms: i64 },
    /// The upcard was passed.
    Passed { seat: Seat },
    /// A card was drawn.
    Drew { seat: Seat, card: engine::Card, from_stock: bool, stock: u32 },
    /// A card was discarded.
    Discarded { seat: Seat, card: engine::Card },
    /// A hand ended.
    HandEnded(Box<pb::HandResult>),
    /// The game ended.
    GameOver(Box<pb::GameResult>),
    /// A clock ran out.
    ClockExpired { seat: Seat, policy: pb::ClockPolicy },
    /// A seat left.
    Left { seat: Seat, reason: pb::GameEndReason },
}

/// A seat taken (see [`LogEvent::Joined`]).
#[allow(missing_docs)]
#[derive(Clone, Debug)]
pub struct Joined {
    pub seat: Seat,
    pub name: String,
    pub bot: bool,
}

/// A hand dealt (see [`LogEvent::Dealt`]).
#[allow(missing_docs)]
#[derive(Clone, Debug)]
pub struct Dealt {
    pub hand_number: u32,
    pub stage: u32,
    pub dealer: Seat,
    pub upcard: engine::Card,
    pub knock_limit: u32,
    pub hands: BySeat<CardSet>,
    pub commitment: [u8; 32],
    pub stock: u32,
}

/// A log entry.
#[derive(Clone, Debug)]
pub struct Entry {
    /// When it happened (unix ms).
    pub time_ms: i64,
    /// What.
    pub ev: LogEvent,
}

/// A taken seat.
#[derive(Clone, Debug)]
pub struct Seated {
    /// Display name.
    pub name: String,
    /// SHA-256 of the seat token.
    pub token_hash: [u8; 32],
    /// A house bot.
    pub bot: bool,
}

/// A watcher's channel.
pub struct Watcher {
    /// Whose view.
    pub viewer: Option<Seat>,
    /// Bounded: a full channel cuts the watcher off (it resumes), never blocking the game.
    pub tx: mpsc::Sender<Box<pb::WatchGameResponse>>,
    /// Set when the server cut this watcher off because its buffer was full.
    pub cut: Arc<AtomicBool>,
}

/// The turn information of the current turn, for the seat to act only.
pub struct CurrentTurn {
    seq: u64,
    seat: Seat,
    info: pb::TurnInfo,
}

/// The current turn's information on its way to the watchers of the seat to act: the last of
/// them gets it, the others a copy (it is a few dozen allocations: usually there is one).
struct TurnOut {
    turn: Option<CurrentTurn>,
    /// Watchers of the seat to act still to be sent it.
    left: usize,
}

impl TurnOut {
    fn new(turn: Option<CurrentTurn>, watchers: &[Watcher]) -> TurnOut {
        let left = turn.as_ref().map_or(0, |t| watchers.iter().filter(|w| w.viewer == Some(t.seat)).count());
        TurnOut { turn, left }
    }

    /// The information for event `seq` as `viewer` sees it, if it is the turn's event and
    /// `viewer` the seat to act.
    fn take(&mut self, seq: u64, viewer: Option<Seat>) -> Option<pb::TurnInfo> {
        let t = self.turn.as_ref().filter(|t| t.seq == seq && viewer == Some(t.seat))?;
        if self.left > 1 {
            self.left -= 1;
            return Some(t.info.clone());
        }
        self.left = 0;
        self.turn.take().map(|t| t.info)
    }
}

/// Sends the events after `after` to `w`; false when it must be dropped.
fn send_events(log: &[Entry], w: &Watcher, after: u64, turn: &mut TurnOut) -> bool {
    for (i, e) in log.iter().enumerate().skip(after as usize) {
        let seq = i as u64 + 1;
        let info = turn.take(seq, w.viewer);
        let msg = Box::new(pb::WatchGameResponse {
            kind: Some(pb::watch_game_response::Kind::Event(event_for(seq, e, w.viewer, info))),
        });
        match w.tx.try_send(msg) {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Full(_)) => {
                w.cut.store(true, Ordering::Relaxed);
                return false;
            }
            Err(mpsc::error::TrySendError::Closed(_)) => return false,
        }
    }
    true
}

/// The fixed facts of a game.
#[derive(Clone, Debug)]
pub struct GameInfo {
    /// Id.
    pub id: String,
    /// Rules.
    pub rules: RuleSet,
    /// Deal seed (secret until the game is over).
    pub seed: u64,
    /// Secret for the per-hand salts.
    pub secret: [u8; 32],
    /// Turn clock (0 ms: none).
    pub clock: pb::TurnClock,
    /// House bot strategy for the free seat ("" for none).
    pub house_bot: String,
    /// Creation time.
    pub created_ms: i64,
    /// The creator chose the seed, so it may know every deal: shown to everyone, and a player
    /// joins only if it accepts that (`JoinGameRequest.accept_fixed_deals`).
    pub fixed_deals: bool,
}

/// How a game ends before a seat reaches the target. A game that has not started (a seat is
/// free) always ends [`pb::GameEndReason::Cancelled`], with no winner: nobody can win a game
/// nobody played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EarlyEnd {
    /// The seat resigned (stored as a `resign` action).
    Resign(Seat),
    /// The seat's turn clock ran out under the forfeit policy (`timeout` action "forfeit").
    Forfeit(Seat),
    /// The seat was to act and did nothing within the server's idle limit (`timeout` action
    /// "abandon").
    Abandon(Seat),
    /// The server called the game off: nobody joined in time, or a quick-match partner left
    /// while both were being seated (`timeout` action "cancel"; the seat stored is 0).
    Cancel,
}

impl EarlyEnd {
    /// The stored action of this end: kind, text, seat.
    fn row(self) -> (ActionKind, &'static str, Seat) {
        match self {
            EarlyEnd::Resign(s) => (ActionKind::Resign, "", s),
            EarlyEnd::Forfeit(s) => (ActionKind::Timeout, "forfeit", s),
            EarlyEnd::Abandon(s) => (ActionKind::Timeout, "abandon", s),
            EarlyEnd::Cancel => (ActionKind::Timeout, "cancel", Seat::S0),
        }
    }

    /// The end a stored action stands for, if it is one.
    fn from_row(kind: ActionKind, action: &str, seat: Seat) -> Option<EarlyEnd> {
        match (kind, action) {
            (ActionKind::Resign, _) => Some(EarlyEnd::Resign(seat)),
            (ActionKind::Timeout, "forfeit") => Some(EarlyEnd::Forfeit(seat)),
            (ActionKind::Timeout, "abandon") => Some(EarlyEnd::Abandon(seat)),
            (ActionKind::Timeout, "cancel") => Some(EarlyEnd::Cancel),
            _ => None,
        }
    }
}

/// A game on the server.
pub struct GameState {
    /// Fixed facts.
    pub info: GameInfo,
    /// The seats.
    pub seats: [Option<Seated>; 2],
    /// The engine game, once both seats are taken.
    pub game: Option<Game>,
    /// The event log (seq = index + 1).
    pub log: Vec<Entry>,
    /// Finished hands, for snapshots.
    pub hand_results: Vec<pb::HandResult>,
    /// The final result (target, resignation or forfeit).
    pub ended: Option<pb::GameResult>,
    /// The action rows logged so far (their number is the next row's index; stored again, all
    /// together, with the game's end).
    pub action_rows: Vec<ActionRow>,
    /// Watchers.
    pub watchers: Vec<Watcher>,
    /// Changes at every turn; a clock timer fires only if it still matches.
    pub turn_token: u64,
    /// The current turn's deadline (unix ms), 0 without a clock.
    pub deadline_ms: i64,
    /// The store failed for this game: it refuses actions until the server restarts.
    pub poisoned: bool,
    /// Writes produced by the last change, to be made durable before acknowledging it.
    pub pending: Vec<Write>,
    /// The last published seq, readable without the game's lock (for heartbeats).
    pub last_seq_shared: Arc<AtomicU64>,
}

impl GameState {
    /// A new game with no seat taken.
    pub fn new(info: GameInfo) -> GameState {
        GameState {
            info,
            seats: [None, None],
            game: None,
            log: Vec::new(),
            hand_results: Vec::new(),
            ended: None,
            action_rows: Vec::new(),
            watchers: Vec::new(),
            turn_token: 0,
            deadline_ms: 0,
            poisoned: false,
            pending: Vec::new(),
            last_seq_shared: Arc::new(AtomicU64::new(0)),
        }
    }

    /// The last seq (0 before any event).
    pub fn last_seq(&self) -> u64 {
        self.log.len() as u64
    }

    /// True once the game is over.
    pub fn is_over(&self) -> bool {
        self.ended.is_some()
    }

    /// The seat to act, if any.
    pub fn to_act(&self) -> Option<Seat> {
        if self.is_over() { None } else { self.game.as_ref().and_then(Game::to_act) }
    }

    /// A free seat: `want`, or the first free one.
    pub fn free_seat(&self, want: Option<Seat>) -> Result<Seat, GameError> {
        match want {
            Some(s) if self.seats[s.index()].is_some() => Err(GameError::SeatTaken(s)),
            Some(s) => Ok(s),
            None => Seat::BOTH.into_iter().find(|s| self.seats[s.index()].is_none()).ok_or(GameError::Full),
        }
    }

    fn push(&mut self, time_ms: i64, ev: LogEvent) {
        self.log.push(Entry { time_ms, ev });
    }

    /// Seats a player; deals the first hand once both seats are taken.
    pub fn seat(&mut self, seat: Seat, who: Seated, now: i64) {
        self.push(now, LogEvent::Joined(Box::new(Joined { seat, name: who.name.clone(), bot: who.bot })));
        self.seats[seat.index()] = Some(who);
        if self.game.is_none() && self.seats.iter().all(Option::is_some) {
            let g = Game::new(GameSetup::new(self.info.rules.clone(), self.info.seed))
                .expect("rules were validated at creation");
            self.game = Some(g);
            tracing::info!(game = %self.info.id, rules = %self.info.rules.name, "game started");
            self.deal_events(now);
        }
    }

    fn deck(&self, n: u32) -> Deck {
        Deck::shuffled(self.info.seed, n as u64)
    }

    fn deal_events(&mut self, now: i64) {
        let g = self.game.as_ref().expect("dealt game");
        let h = g.hand();
        let n = g.hand_number();
        let salt = engine::hand_salt(&self.info.secret, n);
        let ev = LogEvent::Dealt(Box::new(Dealt {
            hand_number: n,
            stage: g.stage(),
            dealer: h.dealer(),
            upcard: h.upcard(),
            knock_limit: h.knock_limit(),
            hands: BySeat::new(h.cards(Seat::S0), h.cards(Seat::S1)),
            commitment: engine::deal_commitment(h.deck(), &salt),
            stock: h.stock_len() as u32,
        }));
        self.push(now, ev);
        self.turn_event(now);
    }

    fn turn_event(&mut self, now: i64) {
        let Some(g) = self.game.as_ref() else { return };
        let h = g.hand();
        let Some(seat) = h.phase().to_act() else { return };
        let phase = match h.phase() {
            engine::Phase::UpcardOffer { .. } => pb::Phase::UpcardOffer,
            engine::Phase::Draw { .. } => pb::Phase::Draw,
            _ => pb::Phase::Discard,
        };
        self.turn_token += 1;
        self.deadline_ms =
            if self.info.clock.turn_millis > 0 { now + self.info.clock.turn_millis as i64 } else { 0 };
        let deadline_ms = self.deadline_ms;
        self.push(now, LogEvent::Turn { seat, phase, deadline_ms });
    }

    /// The reveal of hand `n`.
    pub fn reveal(&self, n: u32) -> pb::DealReveal {
        let deck = self.deck(n);
        let salt = engine::hand_salt(&self.info.secret, n);
        pb::DealReveal {
            deck: deck.cards().iter().map(|c| c.notation().to_owned()).collect(),
            salt: salt.to_vec(),
            commitment: engine::deal_commitment(&deck, &salt).to_vec(),
        }
    }

    /// Applies a play (or a clock's auto-play) by `seat`, appending its events and the write
    /// that logs it. On `Err` nothing changed.
    pub fn play(&mut self, seat: Seat, action: &Action, kind: ActionKind, now: i64) -> Result<(), GameError> {
        if self.is_over() {
            return Err(GameError::Over);
        }
        let g = self.game.as_mut().ok_or(GameError::NotStarted)?;
        let step = g.apply(seat, action)?;
        if kind == ActionKind::Timeout {
            self.push(now, LogEvent::ClockExpired { seat, policy: pb::ClockPolicy::AutoPlay });
        }
        self.log_action(seat, kind, action.to_string(), now);
        match step.event {
            engine::Event::Passed { seat } => self.push(now, LogEvent::Passed { seat }),
            engine::Event::Drew { seat, card, from_stock } => {
                let stock = self.game.as_ref().map_or(0, |g| g.hand().stock_len() as u32);
                self.push(now, LogEvent::Drew { seat, card, from_stock, stock });
            }
            engine::Event::Discarded { seat, card } | engine::Event::DeadHand { seat, card } => {
                self.push(now, LogEvent::Discarded { seat, card })
            }
            engine::Event::Knocked { .. } => {}
        }
        if step.hand_over {
            let g = self.game.as_ref().expect("game");
            let summary = g.hands().last().expect("a finished hand").clone();
            let result = wire::hand_result(&summary, self.reveal(summary.number));
            self.hand_results.push(result.clone());
            self.push(now, LogEvent::HandEnded(Box::new(result)));
            if step.game_over {
                let g = self.game.as_ref().expect("game");
                let r = wire::game_result(g.result().expect("game over"));
                self.finish(r, now);
                return Ok(());
            }
            self.deal_events(now);
            return Ok(());
        }
        self.turn_event(now);
        Ok(())
    }

    /// Ends the game before its target (see [`EarlyEnd`]): the seat that left loses, a
    /// cancelled game has no winner.
    pub fn end_early(&mut self, how: EarlyEnd, now: i64) -> Result<(), GameError> {
        if self.is_over() {
            return Err(GameError::Over);
        }
        let (kind, text, stored_seat) = how.row();
        self.log_action(stored_seat, kind, text.into(), now);
        let (leaver, reason) = match how {
            EarlyEnd::Resign(s) => (Some(s), pb::GameEndReason::Resigned),
            EarlyEnd::Forfeit(s) => {
                self.push(now, LogEvent::ClockExpired { seat: s, policy: pb::ClockPolicy::Forfeit });
                (Some(s), pb::GameEndReason::Forfeit)
            }
            EarlyEnd::Abandon(s) => (Some(s), pb::GameEndReason::Abandoned),
            EarlyEnd::Cancel => (None, pb::GameEndReason::Cancelled),
        };
        if let Some(seat) = leaver {
            self.push(now, LogEvent::Left { seat, reason });
        }
        // Nobody wins a game that never started, or that the server called off.
        let cancelled = self.game.is_none() || how == EarlyEnd::Cancel;
        let loser = leaver.filter(|_| !cancelled);
        let scores = self.game.as_ref().map(|g| g.scores().0.to_vec()).unwrap_or_default();
        let r = pb::GameResult {
            reason: if cancelled { pb::GameEndReason::Cancelled } else { reason } as i32,
            winner: loser.map(|s| s.other().index() as u32),
            totals: scores.clone(),
            margin: scores.first().zip(scores.get(1)).map_or(0, |(a, b)| a.abs_diff(*b)),
            stages: Vec::new(),
            loser_by_default: loser.map(|s| s.index() as u32),
        };
        self.finish(r, now);
        Ok(())
    }

    /// When the game last changed (its last event; its creation before any).
    pub fn last_activity_ms(&self) -> i64 {
        self.log.last().map_or(self.info.created_ms, |e| e.time_ms)
    }

    fn finish(&mut self, r: pb::GameResult, now: i64) {
        self.turn_token += 1;
        self.deadline_ms = 0;
        self.ended = Some(r.clone());
        self.push(now, LogEvent::GameOver(Box::new(r.clone())));
        let result_json = serde_json::json!({
            "reason": pb::GameEndReason::try_from(r.reason).map(|x| x.as_str_name()).unwrap_or("?"),
            "winner": r.winner,
            "totals": r.totals,
            "margin": r.margin,
            "loser_by_default": r.loser_by_default,
        })
        .to_string();
        self.pending.push(Write::Finish {
            game_id: self.info.id.clone(),
            result_json,
            finished_ms: now,
            actions: std::mem::take(&mut self.action_rows),
        });
        tracing::info!(game = %self.info.id, winner = ?r.winner, reason = r.reason, "game over");
    }

    fn log_action(&mut self, seat: Seat, kind: ActionKind, action: String, now: i64) {
        let index = self.action_rows.len() as u32;
        let row = ActionRow { index, seat: seat.index() as u8, kind, action, time_ms: now };
        self.action_rows.push(row.clone());
        self.pending.push(Write::Action { game_id: self.info.id.clone(), action: row });
    }

    /// Replays one stored action (at start).
    pub fn replay(&mut self, row: &ActionRow) -> Result<(), String> {
        let seat = Seat::new(row.seat).ok_or("bad seat")?;
        let r = match EarlyEnd::from_row(row.kind, &row.action, seat) {
            Some(how) => self.end_early(how, row.time_ms),
            None => {
                let a: Action = row.action.parse().map_err(|e: engine::ParseActionError| e.to_string())?;
                self.play(seat, &a, row.kind, row.time_ms)
            }
        };
        self.pending.clear();
        r.map_err(|e| e.to_string())
    }

    /// Sends every event after `after` to the watchers; drops the ones that are full (they
    /// are cut off and resume) or gone. Once the game is over, every watcher is released
    /// (its stream ends after the game-over event).
    pub fn publish(&mut self, after: u64) {
        self.last_seq_shared.store(self.last_seq(), Ordering::Relaxed);
        let turn = self.current_turn(after, |seat| self.watchers.iter().any(|w| w.viewer == Some(seat)));
        let mut turn = TurnOut::new(turn, &self.watchers);
        let log = &self.log;
        self.watchers.retain(|w| send_events(log, w, after, &mut turn));
        if self.is_over() {
            self.watchers.clear();
        }
    }

    /// Registers a watcher that has seen everything up to `after` and sends it the rest.
    pub fn add_watcher(&mut self, w: Watcher, after: u64) {
        let turn = self.current_turn(after, |seat| w.viewer == Some(seat));
        let mut turn = TurnOut::new(turn, std::slice::from_ref(&w));
        if send_events(&self.log, &w, after, &mut turn) && !self.is_over() {
            self.watchers.push(w);
        }
    }

    /// The current turn's information, when its event is after `after` (about to be sent)
    /// and `wanted` says a receiver is that seat.
    fn current_turn(&self, after: u64, wanted: impl Fn(Seat) -> bool) -> Option<CurrentTurn> {
        let (i, e) =
            self.log.iter().enumerate().rev().find(|(_, e)| matches!(e.ev, LogEvent::Turn { .. }))?;
        let LogEvent::Turn { seat, .. } = e.ev else { return None };
        let seq = i as u64 + 1;
        if seq <= after || self.to_act() != Some(seat) || !wanted(seat) {
            return None;
        }
        let g = self.game.as_ref()?;
        Some(CurrentTurn { seq, seat, info: wire::turn_info(g.hand(), seat) })
    }

    /// What `viewer` may see now.
    pub fn snapshot(&self, viewer: Option<Seat>) -> pb::GameSnapshot {
        let seats = (0..2)
            .map(|i| pb::SeatInfo {
                seat: i as u32,
                name: self.seats[i].as_ref().map(|s| s.name.clone()).unwrap_or_default(),
                taken: self.seats[i].is_some(),
                bot: self.seats[i].as_ref().is_some_and(|s| s.bot),
            })
            .collect();
        let mut s = pb::GameSnapshot {
            game_id: self.info.id.clone(),
            seq: self.last_seq(),
            rules: Some(wire::rule_set(&self.info.rules)),
            clock: Some(self.info.clock),
            seats,
            viewer_seat: viewer.map(|v| v.index() as u32),
            phase: pb::Phase::WaitingForPlayers as i32,
            hands: self.hand_results.clone(),
            result: self.ended.clone(),
            turn_deadline_unix_ms: self.deadline_ms,
            fixed_deals: self.info.fixed_deals,
            ..Default::default()
        };
        if let Some(g) = &self.game {
            let h = g.hand();
            let v = g.seat_view(viewer.unwrap_or(Seat::S0));
            let public = v.public();
            s.phase = if self.is_over() {
                pb::Phase::GameOver
            } else {
                match h.phase() {
                    engine::Phase::UpcardOffer { .. } => pb::Phase::UpcardOffer,
                    engine::Phase::Draw { .. } => pb::Phase::Draw,
                    _ => pb::Phase::Discard,
                }
            } as i32;
            s.seat_to_act = self.to_act().map(|x| x.index() as u32);
            s.hand_number = public.hand_number();
            s.stage = public.stage();
            s.dealer = public.dealer().index() as u32;
            s.knock_limit = public.knock_limit();
            if viewer.is_some() {
                s.hand = gin_proto::convert::cards_to_pb(v.hand());
            }
            s.pile = public.pile().iter().map(|c| c.notation().to_owned()).collect();
            s.stock_size = public.stock_len() as u32;
            s.hand_sizes = public.hand_lens().0.to_vec();
            s.known = Seat::BOTH
                .iter()
                .map(|&x| pb::KnownCards {
                    seat: x.index() as u32,
                    cards: gin_proto::convert::cards_to_pb(public.known()[x]),
                })
                .collect();
            s.scores = public.scores().0.to_vec();
            s.taken_from_pile = public.taken_from_pile().map(|c| c.notation().to_owned()).unwrap_or_default();
            if !self.is_over() {
                let salt = engine::hand_salt(&self.info.secret, g.hand_number());
                s.deal_commitment = engine::deal_commitment(h.deck(), &salt).to_vec();
            }
            if let (Some(v), Some(t)) = (viewer, self.to_act())
                && v == t
            {
                s.turn = Some(wire::turn_info(h, v));
            }
        }
        s
    }
}

/// Event `seq` as `viewer` may see it.
/// `info` is the current turn's information, given only when this event is the current
/// turn and `viewer` is the seat to act.
pub fn event_for(seq: u64, e: &Entry, viewer: Option<Seat>, info: Option<pb::TurnInfo>) -> pb::GameEvent {
    use pb::game_event::Kind as K;
    let s = |x: Seat| x.index() as u32;
    let kind = match &e.ev {
        LogEvent::Joined(j) => {
            K::PlayerJoined(pb::PlayerJoined { seat: s(j.seat), name: j.name.clone(), bot: j.bot })
        }
        LogEvent::Dealt(d) => K::HandDealt(pb::HandDealt {
            hand_number: d.hand_number,
            stage: d.stage,
            dealer: s(d.dealer),
            upcard: d.upcard.notation().to_owned(),
            knock_limit: d.knock_limit,
            your_hand: viewer.map(|v| gin_proto::convert::cards_to_pb(d.hands[v])).unwrap_or_default(),
            commitment: d.commitment.to_vec(),
            stock_size: d.stock,
        }),
        LogEvent::Turn { seat, phase, deadline_ms } => K::TurnStarted(pb::TurnStarted {
            seat: s(*seat),
            phase: *phase as i32,
            deadline_unix_ms: *deadline_ms,
            turn: info.filter(|_| viewer == Some(*seat)),
        }),
        LogEvent::Passed { seat } => K::UpcardPassed(pb::UpcardPassed { seat: s(*seat) }),
        LogEvent::Drew { seat, card, from_stock, stock } => K::CardDrawn(pb::CardDrawn {
            seat: s(*seat),
            source: if *from_stock { pb::DrawSource::Stock } else { pb::DrawSource::Pile } as i32,
            card: if !*from_stock || viewer == Some(*seat) {
                card.notation().to_owned()
            } else {
                String::new()
            },
            stock_size: *stock,
        }),
        LogEvent::Discarded { seat, card } => {
            K::CardDiscarded(pb::CardDiscarded { seat: s(*seat), card: card.notation().to_owned() })
        }
        LogEvent::HandEnded(r) => K::HandEnded(pb::HandEnded { result: Some((**r).clone()) }),
        LogEvent::GameOver(r) => K::GameOver(pb::GameOver { result: Some((**r).clone()) }),
        LogEvent::ClockExpired { seat, policy } => {
            K::ClockExpired(pb::ClockExpired { seat: s(*seat), policy: *policy as i32 })
        }
        LogEvent::Left { seat, reason } => {
            K::PlayerLeft(pb::PlayerLeft { seat: s(*seat), reason: *reason as i32 })
        }
    };
    pb::GameEvent { seq, time_unix_ms: e.time_ms, kind: Some(kind) }
}

/// The move a seat makes when its clock runs out (and a house bot whose choice the engine
/// refused): decline the upcard, draw from the stock, or discard the legal card that leaves
/// the least deadwood (the higher card on ties).
pub fn auto_action(hand: &engine::Hand, seat: Seat) -> Action {
    let legal = hand.legal();
    if legal.pass {
        return Action::Pass;
    }
    if legal.draw_stock {
        return Action::DrawStock;
    }
    let by = engine::deadwood_by_discard(hand.cards(seat));
    let card = legal
        .discards
        .iter()
        .min_by_key(|c| (by[c.bit() as usize], std::cmp::Reverse((c.value(), c.bit()))))
        .expect("a seat to discard holds cards");
    Action::Discard { card }
}

#[cfg(test)]
mod size_tests {
    #[test]
    fn a_log_entry_is_small() {
        // Two or three entries per action, kept for the game's life: keep them small.
        assert!(std::mem::size_of::<super::Entry>() <= 32, "{}", std::mem::size_of::<super::Entry>());
    }
}
