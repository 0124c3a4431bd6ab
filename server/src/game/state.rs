//! One game on the server: the engine game, the seats, the event log and its watchers.
//!
//! The log holds unredacted events; each viewer gets its own redaction when an event is sent
//! ([`event_for`]), so a card a viewer may not see never enters its stream. Seq numbers are
//! log positions (from 1): the same events in the same order are rebuilt when a game is
//! replayed from storage, so seqs survive a restart.
//!
//!
//! [`GameState`] holds:
//!
//! - the format (`GameInfo::format`) and the engine game as an `engine::Table`: two-player gin
//!   is its `Table::Gin` arm, played through [`GameState::play`] with the `Game`'s own path and
//!   wire form; every other format through `play_move` (the move's `TableEvent` logged, a
//!   `Dealt` per hand dealt (team play: two at once), a `TableHandEnded` per `HandReport`, a
//!   turn event for the next seat at the mover's table);
//! - the seats (one per seat of the format), the log, the watchers, and the snapshots
//!   ([`GameState::snapshot`]; other formats: `tables`, `seats_to_act`, totals…). At other
//!   tables the snapshot is built from the engine's `Table::view` of that seat, which holds its
//!   own cards and the public table only, never a partner's;
//! - `check_seq`: an action names the seq it was decided at; in team play it is stale only if
//!   the seat's own table moved since (`table_seq`), since the two tables play at once;
//! - the replay of stored actions (two-player: `Action` texts; others: `Move` texts);
//! - [`EarlyEnd`]: resign, forfeit, abandon, cancel, stored as `resign`/`timeout` actions; a
//!   game that never started always ends cancelled, with no winner. A resignation or a
//!   forfeit at a larger table ends the game, the leaver (and its partner in team play)
//!   losing and every other seat sharing the win;
//! - `GameInfo::fixed_deals` (deals someone chose: shown, and accepted by every seat) and
//!   `GameInfo::first_dealer` (two-player gin: the creator's choice, else the seed's);
//! - `auto_action` (a clock's move: it knocks when its discard allows) and `auto_move` (its
//!   equivalent at other tables: the gin hand's safe move, else the stock, else the `simple`
//!   bot's move);
//! - [`Seal`]: a tournament game's deals stay secret until the tournament is over: no record,
//!   reveals without deck or salt in events and snapshots;
//! - `house_seat` / `entrant_seat` (one stored flag, told apart by the game's house-bot
//!   strategy), `last_own_act_ms` and `idle_seat` (what the idle limit counts from, and who
//!   abandons: `super::expiry`).
//!
//! A seat's legal actions are not stored in the log: they are computed for the seat to act
//! when its turn event is sent.

use engine::{Action, Card, CardSet, Deck, Format, Game, GameSetup, Move, Seat, Table};
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
    Turn { seat: u8, phase: pb::Phase, deadline_ms: i64 },
    /// The upcard was passed.
    Passed { seat: u8 },
    /// A card was drawn.
    Drew { seat: u8, card: Card, from_stock: bool, stock: u32 },
    /// A card was discarded.
    Discarded { seat: u8, card: Card },
    /// Rummy: a meld was laid on the table, as its meld `index`.
    Melded { seat: u8, index: u32, cards: CardSet },
    /// Rummy: a card was laid off onto the table's meld `meld`.
    LaidOff { seat: u8, card: Card, meld: u32 },
    /// The pile under `top` became the stock (its `turn`-th turn), now `stock` cards.
    PileTurned { seat: u8, top: Card, turn: u32, stock: u32 },
    /// A two-player hand ended.
    HandEnded(Box<pb::HandResult>),
    /// A hand of another format ended.
    TableHandEnded(Box<pb::TableHandResult>),
    /// The game ended.
    GameOver(Box<pb::GameResult>),
    /// A clock ran out.
    ClockExpired { seat: u8, policy: pb::ClockPolicy },
    /// A seat left.
    Left { seat: u8, reason: pb::GameEndReason },
}

/// A seat taken (see [`LogEvent::Joined`]).
#[allow(missing_docs)]
#[derive(Clone, Debug)]
pub struct Joined {
    pub seat: u8,
    pub name: String,
    /// The house's bot.
    pub bot: bool,
    /// A tournament's entrant.
    pub entrant: bool,
    /// The account that took the seat, if any.
    pub account: Option<SeatAccount>,
}

/// A hand dealt (see [`LogEvent::Dealt`]).
#[allow(missing_docs)]
#[derive(Clone, Debug)]
pub struct Dealt {
    pub hand_number: u32,
    pub stage: u32,
    pub dealer: u8,
    pub upcard: Card,
    pub knock_limit: u32,
    /// Every seat's cards, by seat of the game (a seat not dealt in: empty).
    pub hands: Vec<CardSet>,
    pub commitment: [u8; 32],
    /// The commitment to the game's seed (the same at every deal).
    pub seed_commitment: [u8; 32],
    pub stock: u32,
    /// Formats other than two-player gin: the table (team play: 0 or 1).
    pub table: u8,
    /// Formats other than two-player gin: the seats dealt in (empty for two-player gin).
    pub seats: Vec<u8>,
}

/// A log entry.
#[derive(Clone, Debug)]
pub struct Entry {
    /// When it happened (unix ms).
    pub time_ms: i64,
    /// What.
    pub ev: LogEvent,
}

/// The account holding a seat (taken while signed in), as the game shows it: its name and
/// kind never change (no renames); its deletion is a flag the account registry shares with
/// every seat of the account (`game::shared::AccountDirectory`).
#[derive(Clone, Debug)]
pub struct SeatAccount {
    /// The account's id (stored with the seat: `SeatRow::account_id`).
    pub id: String,
    /// Its name, as registered (empty when the registry does not know it).
    pub name: String,
    /// Its kind, as the wire's `AccountKind` (0: unknown).
    pub kind: i32,
    /// Set once the account is deleted.
    pub deleted: Arc<std::sync::atomic::AtomicBool>,
}

impl SeatAccount {
    /// Fills a seat's account fields for the wire.
    pub fn describe(&self, info: &mut pb::SeatInfo) {
        if self.deleted.load(std::sync::atomic::Ordering::Relaxed) {
            info.account_deleted = true;
        } else {
            info.account = self.name.clone();
            info.account_kind = self.kind;
        }
    }
}

/// A taken seat.
#[derive(Clone, Debug)]
pub struct Seated {
    /// Display name.
    pub name: String,
    /// The account that took it (`None`: a guest, a house bot, an entrant).
    pub account: Option<SeatAccount>,
    /// SHA-256 of the seat token.
    pub token_hash: [u8; 32],
    /// The server seated a program here: the house bot in a game with a house bot strategy,
    /// else a tournament's entrant (one stored flag: [`GameState::house_seat`],
    /// [`GameState::entrant_seat`]).
    pub bot: bool,
}

/// Whether a game's deals must stay secret beyond the game itself: a tournament game's, while
/// its tournament is not over. The games of a tournament share its deals (a duplicate pair,
/// or a pass over a table's seatings, is dealt from one seed), and every deal seed derives
/// from the tournament's seed by invertible steps (`gin_strategies::rng::derive`), so one
/// game's seed gives every deal of the tournament. While sealed, nothing a game serves names
/// its seed or a dealt deck: its record is refused, and its hands' reveals carry the
/// commitment only (no deck, no salt). One flag for all the games of a tournament, opened
/// when it ends (`Shared::seal`).
#[derive(Clone, Debug)]
pub struct Seal(Arc<AtomicBool>);

impl Seal {
    /// A new seal, closed.
    pub fn closed() -> Seal {
        Seal(Arc::new(AtomicBool::new(true)))
    }

    /// Whether the deals are still secret.
    pub fn is_closed(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }

    /// Opens it: every game holding it shows its deals from now on.
    pub fn open(&self) {
        self.0.store(false, Ordering::Release);
    }
}

/// `r` without what gives its deck away: the commitment only (see [`Seal`]).
fn sealed_reveal(r: &mut Option<pb::DealReveal>) {
    if let Some(r) = r {
        r.deck.clear();
        r.salt.clear();
    }
}

/// A watcher's channel.
pub struct Watcher {
    /// Whose view.
    pub viewer: Option<u8>,
    /// Bounded: a full channel cuts the watcher off (it resumes), never blocking the game.
    pub tx: mpsc::Sender<Box<pb::WatchGameResponse>>,
    /// Set when the server cut this watcher off because its buffer was full.
    pub cut: Arc<AtomicBool>,
    /// Counts the watchers cut off for being slow (the server's
    /// [`Metrics::streams_cut`](crate::metrics::Metrics::streams_cut)).
    pub cut_count: prometheus_client::metrics::counter::Counter,
}

/// The turn information of the current turn, for the seat to act only.
pub struct CurrentTurn {
    seq: u64,
    seat: u8,
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
    fn take(&mut self, seq: u64, viewer: Option<u8>) -> Option<pb::TurnInfo> {
        let t = self.turn.as_ref().filter(|t| t.seq == seq && viewer == Some(t.seat))?;
        if self.left > 1 {
            self.left -= 1;
            return Some(t.info.clone());
        }
        self.left = 0;
        self.turn.take().map(|t| t.info)
    }
}

/// The turns whose information goes out with one publication: the current turn of each seat
/// to act (team play has two at once), each for its own seat's watchers.
struct Turns([Option<TurnOut>; 2]);

impl Turns {
    fn take(&mut self, seq: u64, viewer: Option<u8>) -> Option<pb::TurnInfo> {
        self.0.iter_mut().flatten().find_map(|t| t.take(seq, viewer))
    }
}

/// Sends the events after `after` to `w`; false when it must be dropped.
/// A sealed game's ([`Seal`]) hand results carry no deck.
fn send_events(log: &[Entry], w: &Watcher, after: u64, turn: &mut Turns, sealed: bool) -> bool {
    for (i, e) in log.iter().enumerate().skip(after as usize) {
        let seq = i as u64 + 1;
        let info = turn.take(seq, w.viewer);
        let mut ev = event_for(seq, e, w.viewer, info);
        if sealed {
            seal_event(&mut ev);
        }
        let msg = Box::new(pb::WatchGameResponse { kind: Some(pb::watch_game_response::Kind::Event(ev)) });
        match w.tx.try_send(msg) {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Full(_)) => {
                w.cut.store(true, Ordering::Relaxed);
                w.cut_count.inc();
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
    /// The format: the kind, the table size and every number.
    pub format: Format,
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
    /// Two-player gin: the first dealer its creator chose (`None`: drawn from the seed).
    pub first_dealer: Option<u8>,
    /// A rated game's pool (`None`: casual): only accounts take its seats, and its end rates
    /// them ([`Write::Rate`], in the same write as the end).
    pub rated_pool: Option<String>,
}

/// How a game ends before a seat reaches the target. A game that has not started (a seat is
/// free) always ends [`pb::GameEndReason::Cancelled`], with no winner: nobody can win a game
/// nobody played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EarlyEnd {
    /// The seat resigned (stored as a `resign` action).
    Resign(u8),
    /// The seat's turn clock ran out under the forfeit policy (`timeout` action "forfeit").
    Forfeit(u8),
    /// The seat was to act and did nothing within the server's idle limit (`timeout` action
    /// "abandon").
    Abandon(u8),
    /// The server called the game off: nobody joined in time, or a quick-match partner left
    /// while both were being seated (`timeout` action "cancel"; the seat stored is 0).
    Cancel,
}

impl EarlyEnd {
    /// The stored action of this end: kind, text, seat.
    fn row(self) -> (ActionKind, &'static str, u8) {
        match self {
            EarlyEnd::Resign(s) => (ActionKind::Resign, "", s),
            EarlyEnd::Forfeit(s) => (ActionKind::Timeout, "forfeit", s),
            EarlyEnd::Abandon(s) => (ActionKind::Timeout, "abandon", s),
            EarlyEnd::Cancel => (ActionKind::Timeout, "cancel", 0),
        }
    }

    /// The end a stored action stands for, if it is one.
    fn from_row(kind: ActionKind, action: &str, seat: u8) -> Option<EarlyEnd> {
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
    /// The seats, one per seat of the format.
    pub seats: Vec<Option<Seated>>,
    /// The engine game, once every seat is taken.
    pub game: Option<Table>,
    /// The event log (seq = index + 1).
    pub log: Vec<Entry>,
    /// Finished two-player hands, for snapshots.
    pub hand_results: Vec<pb::HandResult>,
    /// Finished hands of the other formats, for snapshots.
    pub table_hands: Vec<pb::TableHandResult>,
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
    /// No turn's clock runs out before this (unix ms): set when a restart resumes the game,
    /// so every turn in progress gets a whole turn again.
    pub clock_floor_ms: i64,
    /// The store failed for this game: it refuses actions until the server restarts.
    pub poisoned: bool,
    /// Writes produced by the last change, to be made durable before acknowledging it.
    pub pending: Vec<Write>,
    /// The last published seq, readable without the game's lock (for heartbeats).
    pub last_seq_shared: Arc<AtomicU64>,
    /// Formats other than two-player gin: the highest hand number dealt so far.
    dealt: Option<u32>,
    /// Team play: the last seq that changed each table (an action is stale only if its own
    /// table moved since the seq it names: the other table plays at the same time).
    table_seq: [u64; 2],
    /// A tournament game's seal (see [`Seal`]); `None` for every other game.
    pub seal: Option<Seal>,
    /// When a seat last acted itself (unix ms): an action of a seat not held by a house bot,
    /// not a clock's; or such a seat's joining; the game's creation before any. What the idle
    /// limit counts from ([`GameState::last_own_act_ms`]).
    last_own_ms: i64,
}

impl GameState {
    /// A new game with no seat taken.
    pub fn new(info: GameInfo) -> GameState {
        let players = info.format.players() as usize;
        let created = info.created_ms;
        GameState {
            info,
            seats: vec![None; players],
            game: None,
            log: Vec::new(),
            hand_results: Vec::new(),
            table_hands: Vec::new(),
            ended: None,
            action_rows: Vec::new(),
            watchers: Vec::new(),
            turn_token: 0,
            deadline_ms: 0,
            clock_floor_ms: 0,
            poisoned: false,
            pending: Vec::new(),
            last_seq_shared: Arc::new(AtomicU64::new(0)),
            dealt: None,
            table_seq: [0; 2],
            seal: None,
            last_own_ms: created,
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

    /// Whether its deals are secret beyond the game (a tournament game, its tournament not
    /// over: [`Seal`]).
    pub fn sealed(&self) -> bool {
        self.seal.as_ref().is_some_and(Seal::is_closed)
    }

    /// Whether the server's house bot plays `seat` (a seat taken by a program the server
    /// seated, in a game with a house bot strategy; a tournament's entrants are seated by the
    /// server too, in games without one: [`GameState::entrant_seat`]).
    pub fn house_seat(&self, seat: u8) -> bool {
        self.seat_is_bot(seat) && !self.info.house_bot.is_empty()
    }

    /// Whether a tournament entrant holds `seat`: a program or person of its own, never the
    /// house's bot. (The store keeps one flag for seats the server took for a program; a game
    /// without a house bot strategy has such seats only as a tournament's.)
    pub fn entrant_seat(&self, seat: u8) -> bool {
        self.seat_is_bot(seat) && self.info.house_bot.is_empty()
    }

    fn seat_is_bot(&self, seat: u8) -> bool {
        self.seats.get(seat as usize).and_then(Option::as_ref).is_some_and(|s| s.bot)
    }

    /// The seat that abandons this game when nobody plays it ([`EarlyEnd::Abandon`]): the seat
    /// to act, unless the house's bot holds it (the house's bot is never absent: a game with
    /// an absent person and the house plays on, its clock and the bot moving, and ends when
    /// the person has been gone for the idle limit), then the first other seat to act, then
    /// the first seat not the house's. `None` before the game starts, after its end, or when
    /// the house holds every seat.
    pub fn idle_seat(&self) -> Option<u8> {
        let to_act = self.seats_to_act();
        to_act
            .iter()
            .copied()
            .chain(0..self.players())
            .find(|&s| !self.house_seat(s))
            .filter(|_| !to_act.is_empty())
    }

    /// The table size.
    pub fn players(&self) -> u8 {
        self.seats.len() as u8
    }

    /// The two-player game, when this is one and it has started.
    pub fn gin(&self) -> Option<&Game> {
        match &self.game {
            Some(Table::Gin(g)) => Some(g),
            _ => None,
        }
    }

    /// Whether this game is two-player gin (the wire's original form).
    pub fn two_player(&self) -> bool {
        matches!(self.info.format, Format::Gin(_))
    }

    /// The seat to act, if any (the lowest when several may: team play).
    pub fn to_act(&self) -> Option<u8> {
        if self.is_over() { None } else { self.game.as_ref().and_then(Table::first_to_act) }
    }

    /// Every seat that may act now.
    pub fn seats_to_act(&self) -> Vec<u8> {
        if self.is_over() { Vec::new() } else { self.game.as_ref().map(Table::to_act).unwrap_or_default() }
    }

    /// Whether `seat` may act now.
    pub fn may_act(&self, seat: u8) -> bool {
        match &self.game {
            Some(Table::Teams(_)) => self.seats_to_act().contains(&seat),
            _ => self.to_act() == Some(seat),
        }
    }

    /// Refuses an action by `seat` that names `expected` when the game moved since: any
    /// event after it (in team play, any event at `seat`'s own table: the other table plays
    /// at the same time).
    pub fn check_seq(&self, seat: u8, expected: u64) -> Result<(), GameError> {
        let at = self.last_seq();
        let stale = match &self.game {
            Some(Table::Teams(g)) if expected <= at => {
                let t = g.place_of(seat).map_or(0, |(t, _)| t as usize);
                expected < self.table_seq[t]
            }
            _ => expected != at,
        };
        if stale { Err(GameError::Stale { expected, at }) } else { Ok(()) }
    }

    /// Whether `seat` is offered the upcard now (gin kinds' first turn).
    pub fn offered(&self, seat: u8) -> bool {
        match &self.game {
            Some(Table::Gin(g)) => matches!(g.hand().phase(), engine::Phase::UpcardOffer { .. }),
            Some(t) => self.may_act(seat) && t.legal(seat).contains(&Move::Pass),
            None => false,
        }
    }

    /// Formats other than two-player gin: how many hands were dealt (their reveals are in the
    /// record).
    pub fn hands_dealt(&self) -> u32 {
        self.dealt.map_or(0, |d| d + 1)
    }

    /// A free seat: `want`, or the first free one.
    pub fn free_seat(&self, want: Option<u8>) -> Result<u8, GameError> {
        match want {
            Some(s) if s as usize >= self.seats.len() => Err(GameError::Invalid(format!(
                "seat {s}: this game has seats 0 to {}",
                self.seats.len() - 1
            ))),
            Some(s) if self.seats[s as usize].is_some() => Err(GameError::SeatTaken(s)),
            Some(s) => Ok(s),
            None => (0..self.players()).find(|&s| self.seats[s as usize].is_none()).ok_or(GameError::Full),
        }
    }

    /// Team play: the table `seat` plays at now.
    fn table_of(&self, seat: u8) -> Option<usize> {
        match &self.game {
            Some(Table::Teams(g)) => g.place_of(seat).map(|(t, _)| t as usize),
            _ => None,
        }
    }

    fn push(&mut self, time_ms: i64, ev: LogEvent) {
        self.log.push(Entry { time_ms, ev });
        self.table_seq = [self.last_seq(); 2];
    }

    /// Logs an event of one table only (team play: the other table's actions stay fresh).
    fn push_at(&mut self, table: Option<usize>, time_ms: i64, ev: LogEvent) {
        match table {
            Some(t) => {
                self.log.push(Entry { time_ms, ev });
                self.table_seq[t] = self.last_seq();
            }
            None => self.push(time_ms, ev),
        }
    }

    /// Seats a player; deals the first hand once every seat is taken.
    pub fn seat(&mut self, seat: u8, who: Seated, now: i64) {
        let house = who.bot && !self.info.house_bot.is_empty();
        if !house {
            self.last_own_ms = self.last_own_ms.max(now);
        }
        let ev = Joined {
            seat,
            name: who.name.clone(),
            bot: house,
            entrant: who.bot && !house,
            account: who.account.clone(),
        };
        self.push(now, LogEvent::Joined(Box::new(ev)));
        self.seats[seat as usize] = Some(who);
        if self.game.is_none() && self.seats.iter().all(Option::is_some) {
            let t = match &self.info.format {
                Format::Gin(rules) => Table::Gin(
                    Game::new(GameSetup {
                        first_dealer: self.info.first_dealer.and_then(Seat::new),
                        ..GameSetup::new(rules.clone(), self.info.seed)
                    })
                    .expect("rules were validated at creation"),
                ),
                f => Table::new(engine::TableSetup::new(f.clone(), self.info.seed))
                    .expect("the format was validated at creation"),
            };
            self.game = Some(t);
            tracing::info!(game = %self.info.id, format = %self.info.format.name(), "game started");
            self.deal_events(now);
        }
    }

    fn deck(&self, n: u32) -> Deck {
        Deck::shuffled(self.info.seed, n as u64)
    }

    fn deal_events(&mut self, now: i64) {
        let Some(g) = self.gin() else {
            self.table_deal_events(now);
            return;
        };
        let h = g.hand();
        let n = g.hand_number();
        let salt = engine::hand_salt(&self.info.secret, n);
        let ev = LogEvent::Dealt(Box::new(Dealt {
            hand_number: n,
            stage: g.stage(),
            dealer: h.dealer().index() as u8,
            upcard: h.upcard(),
            knock_limit: h.knock_limit(),
            hands: vec![h.cards(Seat::S0), h.cards(Seat::S1)],
            commitment: engine::deal_commitment(h.deck(), &salt),
            seed_commitment: self.seed_commitment(),
            stock: h.stock_len() as u32,
            table: 0,
            seats: Vec::new(),
        }));
        self.push(now, ev);
        self.turn_event(now);
    }

    /// Formats other than two-player gin: a `Dealt` for every hand dealt since the last, then
    /// a turn for each seat to act.
    fn table_deal_events(&mut self, now: i64) {
        let Some(t) = self.game.as_ref() else { return };
        if t.is_over() {
            return;
        }
        let mut deals = Vec::new();
        for (n, table) in hands_in_play(t) {
            if self.dealt.is_some_and(|d| n <= d) {
                continue;
            }
            let deck = self.deck(n);
            let salt = engine::hand_salt(&self.info.secret, n);
            let view = t.spectator_view();
            let part = &view.tables()[table as usize];
            let mut hands = vec![CardSet::EMPTY; self.seats.len()];
            for &s in &part.seats {
                hands[s as usize] = t.view(s).cards().unwrap_or(CardSet::EMPTY);
            }
            deals.push(Dealt {
                hand_number: n,
                stage: 0,
                dealer: part.dealer,
                upcard: part.pile.first().copied().unwrap_or_else(|| deck.cards()[0]),
                knock_limit: part.knock_limit.unwrap_or(0),
                hands,
                commitment: engine::deal_commitment(&deck, &salt),
                seed_commitment: self.seed_commitment(),
                stock: part.stock_len,
                table,
                seats: play_order(&part.seats, part.dealer),
            });
        }
        if deals.is_empty() {
            // Team play, one table done: it waits for the other, whose turn goes on (a turn
            // event there would make its seat's move stale).
            return;
        }
        for d in deals {
            self.dealt = Some(self.dealt.map_or(d.hand_number, |x| x.max(d.hand_number)));
            self.push(now, LogEvent::Dealt(Box::new(d)));
        }
        for seat in self.seats_to_act() {
            self.seat_turn_event(seat, now);
        }
    }

    fn turn_event(&mut self, now: i64) {
        let Some(g) = self.gin() else {
            if let Some(seat) = self.to_act() {
                self.seat_turn_event(seat, now);
            }
            return;
        };
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
        self.push(now, LogEvent::Turn { seat: seat.index() as u8, phase, deadline_ms });
    }

    /// Formats other than two-player gin: `seat` is to act.
    fn seat_turn_event(&mut self, seat: u8, now: i64) {
        let Some(t) = self.game.as_ref() else { return };
        let phase = table_phase(t, seat);
        self.turn_token += 1;
        self.deadline_ms =
            if self.info.clock.turn_millis > 0 { now + self.info.clock.turn_millis as i64 } else { 0 };
        let deadline_ms = self.deadline_ms;
        let table = self.table_of(seat);
        self.push_at(table, now, LogEvent::Turn { seat, phase, deadline_ms });
    }

    /// The commitment to the game's seed, published with every deal: it fixes the shuffles
    /// of a pile turned into the stock before any card is dealt (`engine::seed_commitment`).
    pub fn seed_commitment(&self) -> [u8; 32] {
        engine::seed_commitment(self.info.seed, &engine::seed_salt(&self.info.secret))
    }

    /// The salt of [`GameState::seed_commitment`]: revealed with the seed, in the record.
    pub fn seed_salt(&self) -> [u8; 32] {
        engine::seed_salt(&self.info.secret)
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
    pub fn play(&mut self, seat: u8, action: &Action, kind: ActionKind, now: i64) -> Result<(), GameError> {
        if self.is_over() {
            return Err(GameError::Over);
        }
        let Some(Table::Gin(g)) = self.game.as_mut() else {
            return match self.game {
                None => Err(GameError::NotStarted),
                Some(_) => self.play_move(seat, &Move::from(action.clone()), kind, now),
            };
        };
        let s = Seat::new(seat).ok_or(GameError::Invalid(format!("seat {seat}: the seats are 0 and 1")))?;
        let step = g.apply(s, action)?;
        if kind == ActionKind::Timeout {
            self.push(now, LogEvent::ClockExpired { seat, policy: pb::ClockPolicy::AutoPlay });
        }
        self.log_action(seat, kind, action.to_string(), now);
        let u = |s: Seat| s.index() as u8;
        match step.event {
            engine::Event::Passed { seat } => self.push(now, LogEvent::Passed { seat: u(seat) }),
            engine::Event::Drew { seat, card, from_stock } => {
                let stock = self.gin().map_or(0, |g| g.hand().stock_len() as u32);
                self.push(now, LogEvent::Drew { seat: u(seat), card, from_stock, stock });
            }
            engine::Event::Discarded { seat, card }
            | engine::Event::DeadHand { seat, card }
            | engine::Event::TurnLimit { seat, card } => {
                self.push(now, LogEvent::Discarded { seat: u(seat), card })
            }
            engine::Event::Knocked { .. } => {}
        }
        if step.hand_over {
            let g = self.gin().expect("game");
            let summary = g.hands().last().expect("a finished hand").clone();
            let result = wire::hand_result(&summary, self.reveal(summary.number));
            self.hand_results.push(result.clone());
            self.push(now, LogEvent::HandEnded(Box::new(result)));
            if step.game_over {
                let g = self.gin().expect("game");
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

    /// Applies a move of a format other than two-player gin (two-player gin takes its
    /// [`Action`]s through [`GameState::play`]). On `Err` nothing changed.
    pub fn play_move(&mut self, seat: u8, m: &Move, kind: ActionKind, now: i64) -> Result<(), GameError> {
        if self.is_over() {
            return Err(GameError::Over);
        }
        if self.two_player() {
            let a = m.to_gin().map_err(|e| GameError::Refused(e.to_string()))?;
            return self.play(seat, &a, kind, now);
        }
        let table = self.table_of(seat);
        let t = self.game.as_mut().ok_or(GameError::NotStarted)?;
        // Rummy turns the pile into the stock at a draw from an empty stock.
        let rummy_stock = match t {
            Table::Rummy(g) => Some(g.hand().stock_len()),
            _ => None,
        };
        let step = t.apply(seat, m).map_err(table_error)?;
        if kind == ActionKind::Timeout {
            self.push_at(table, now, LogEvent::ClockExpired { seat, policy: pb::ClockPolicy::AutoPlay });
        }
        self.log_action(seat, kind, m.to_string(), now);
        let t = self.game.as_ref().expect("started");
        let stock = |seat: u8| {
            let v = t.spectator_view();
            v.tables().iter().find(|p| p.seats.contains(&seat)).map_or(0, |p| p.stock_len)
        };
        use engine::TableEvent as E;
        let ev = match step.event {
            E::Passed { seat } => Some(LogEvent::Passed { seat }),
            E::Drew { seat, from_stock: true, card } if rummy_stock == Some(0) => {
                let top = t.spectator_view().tables()[0].pile.last().copied();
                let stock = stock(seat);
                let turn = 1 + self.turns_of_the_pile();
                if let Some(top) = top {
                    self.push_at(table, now, LogEvent::PileTurned { seat, top, turn, stock: stock + 1 });
                }
                Some(LogEvent::Drew {
                    seat,
                    card: card.expect("the mover sees its card"),
                    from_stock: true,
                    stock,
                })
            }
            E::Drew { seat, from_stock, card } => Some(LogEvent::Drew {
                seat,
                card: card.expect("the mover sees its card"),
                from_stock,
                stock: stock(seat),
            }),
            E::Discarded { seat, card } | E::DeadHand { seat, card } | E::TurnLimit { seat, card } => {
                Some(LogEvent::Discarded { seat, card })
            }
            E::PileTurned { seat, card, turn } => {
                self.push_at(table, now, LogEvent::Discarded { seat, card });
                let t = self.game.as_ref().expect("started");
                let stock = t.spectator_view().tables()[0].stock_len;
                Some(LogEvent::PileTurned { seat, top: card, turn, stock })
            }
            E::Knocked { .. } => None,
            E::Melded { seat, cards } => {
                let index = t.spectator_view().tables()[0].melds.len().saturating_sub(1) as u32;
                Some(LogEvent::Melded { seat, index, cards })
            }
            E::LaidOff { seat, card, meld } => Some(LogEvent::LaidOff { seat, card, meld: meld as u32 }),
        };
        if let Some(ev) = ev {
            self.push_at(table, now, ev);
        }
        if step.hand_over {
            let t = self.game.as_ref().expect("started");
            let reports = t.hands();
            let done = self.table_hands.len();
            let new: Vec<_> =
                reports[done..].iter().map(|r| wire::table_hand_result(r, self.reveal(r.number))).collect();
            for r in new {
                self.table_hands.push(r.clone());
                self.push_at(table, now, LogEvent::TableHandEnded(Box::new(r)));
            }
            if step.game_over {
                let t = self.game.as_ref().expect("started");
                let r = wire::table_game_result(&t.result().expect("game over"));
                self.finish(r, now);
                return Ok(());
            }
            let before = self.dealt;
            self.table_deal_events(now);
            if before != self.dealt {
                return Ok(());
            }
            // Team play: this table waits for the other one.
        }
        // The next to act at the mover's table (itself, to go on with its turn).
        let t = self.game.as_ref().expect("started");
        let next = if t.to_act().contains(&seat) {
            Some(seat)
        } else {
            t.to_act().into_iter().find(|&s| self.table_of(s) == table)
        };
        if let Some(next) = next {
            self.seat_turn_event(next, now);
        }
        Ok(())
    }

    /// How many times the pile was turned into the stock in the hand in play (rummy).
    fn turns_of_the_pile(&self) -> u32 {
        let mut n = 0;
        for e in self.log.iter().rev() {
            match e.ev {
                LogEvent::PileTurned { .. } => n += 1,
                LogEvent::Dealt(_) => break,
                _ => {}
            }
        }
        n
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
        let reason = if cancelled { pb::GameEndReason::Cancelled } else { reason } as i32;
        let r = if self.two_player() {
            let scores = self.gin().map(|g| g.scores().0.to_vec()).unwrap_or_default();
            pb::GameResult {
                reason,
                winner: loser.map(|s| 1 - s as u32),
                totals: scores.clone(),
                margin: scores.first().zip(scores.get(1)).map_or(0, |(a, b)| a.abs_diff(*b)),
                stages: Vec::new(),
                loser_by_default: loser.map(u32::from),
                ..Default::default()
            }
        } else {
            let view = self.game.as_ref().map(Table::spectator_view);
            let totals = view.as_ref().map(|v| v.scores().to_vec()).unwrap_or_default();
            let team_totals = view
                .as_ref()
                .and_then(|v| v.team_scores())
                .map(|t| t.iter().map(|&x| x as i64).collect())
                .unwrap_or_default();
            // The leaver (and in team play its partner) loses; every other seat shares the win.
            let losers: Vec<u8> = match (loser, &self.info.format) {
                (Some(l), Format::Teams(_)) => vec![l, (l + 2) % 4],
                (Some(l), _) => vec![l],
                (None, _) => Vec::new(),
            };
            let winners: Vec<u32> = if loser.is_some() {
                (0..self.players()).filter(|s| !losers.contains(s)).map(u32::from).collect()
            } else {
                Vec::new()
            };
            let places = if loser.is_some() {
                (0..self.players()).map(|s| if losers.contains(&s) { 2 } else { 1 }).collect()
            } else {
                Vec::new()
            };
            pb::GameResult {
                reason,
                winner: if winners.len() == 1 { winners.first().copied() } else { None },
                loser_by_default: loser.map(u32::from),
                table_totals: totals,
                team_totals,
                winners,
                places,
                ..Default::default()
            }
        };
        self.finish(r, now);
        Ok(())
    }

    /// When the game last changed (its last event; its creation before any).
    pub fn last_activity_ms(&self) -> i64 {
        self.log.last().map_or(self.info.created_ms, |e| e.time_ms)
    }

    /// When a seat last acted itself: an action (or its joining) of a seat the house's bot
    /// does not hold, a clock's moves not counted; the game's creation before any. A game
    /// whose clock plays every turn, or whose house bot plays on against a seat left empty,
    /// is idle from then.
    pub fn last_own_act_ms(&self) -> i64 {
        self.last_own_ms
    }

    fn finish(&mut self, r: pb::GameResult, now: i64) {
        self.turn_token += 1;
        self.deadline_ms = 0;
        self.ended = Some(r.clone());
        self.push(now, LogEvent::GameOver(Box::new(r.clone())));
        let mut result_json = serde_json::json!({
            "reason": pb::GameEndReason::try_from(r.reason).map(|x| x.as_str_name()).unwrap_or("?"),
            "winner": r.winner,
            "totals": r.totals,
            "margin": r.margin,
            "loser_by_default": r.loser_by_default,
        });
        if !self.two_player() {
            result_json["table_totals"] = serde_json::json!(r.table_totals);
            result_json["winners"] = serde_json::json!(r.winners);
            result_json["places"] = serde_json::json!(r.places);
            if !r.team_totals.is_empty() {
                result_json["team_totals"] = serde_json::json!(r.team_totals);
            }
        }
        self.pending.push(Write::Finish {
            game_id: self.info.id.clone(),
            result_json: result_json.to_string(),
            finished_ms: now,
            actions: std::mem::take(&mut self.action_rows),
        });
        if let Some(rate) = self.rating(&r, now) {
            self.pending.push(Write::Rate(rate));
        }
        tracing::info!(game = %self.info.id, winner = ?r.winner, reason = r.reason, "game over");
    }

    /// A rated game's rating at its end `r`: every seat's account and place (0 first), or
    /// `None` for a casual game, a cancelled one, or one without an account at every seat.
    /// Two players: the winner first (a seat that resigned, forfeited or abandoned loses);
    /// tables: the result's places; teams: by team.
    fn rating(&self, r: &pb::GameResult, now: i64) -> Option<crate::storage::RateGame> {
        let pool = self.info.rated_pool.clone()?;
        if r.reason == pb::GameEndReason::Cancelled as i32 {
            return None;
        }
        let n = usize::from(self.players());
        let places: Vec<u8> = if self.two_player() {
            let w = r.winner? as usize;
            (0..n).map(|s| u8::from(s != w)).collect()
        } else if r.places.len() == n {
            r.places.iter().map(|&p| u8::try_from(p.saturating_sub(1)).unwrap_or(u8::MAX)).collect()
        } else {
            return None;
        };
        let seats = self
            .seats
            .iter()
            .zip(places)
            .map(|(s, place)| Some((s.as_ref()?.account.as_ref()?.id.clone(), place)))
            .collect::<Option<Vec<_>>>()?;
        Some(crate::storage::RateGame { game_id: self.info.id.clone(), pool, seats, at_ms: now })
    }

    fn log_action(&mut self, seat: u8, kind: ActionKind, action: String, now: i64) {
        if kind != ActionKind::Timeout && !self.house_seat(seat) {
            self.last_own_ms = self.last_own_ms.max(now);
        }
        let index = self.action_rows.len() as u32;
        let row = ActionRow { index, seat, kind, action, time_ms: now };
        self.action_rows.push(row.clone());
        self.pending.push(Write::Action { game_id: self.info.id.clone(), action: row });
    }

    /// Replays one stored action (at start).
    pub fn replay(&mut self, row: &ActionRow) -> Result<(), String> {
        let seat = row.seat;
        if seat >= self.players() {
            return Err(format!("bad seat {seat}"));
        }
        let r = match EarlyEnd::from_row(row.kind, &row.action, seat) {
            Some(how) => self.end_early(how, row.time_ms),
            None if self.two_player() => {
                let a: Action = row.action.parse().map_err(|e: engine::ParseActionError| e.to_string())?;
                self.play(seat, &a, row.kind, row.time_ms)
            }
            None => {
                let m: Move = row.action.parse().map_err(|e: engine::ParseActionError| e.to_string())?;
                self.play_move(seat, &m, row.kind, row.time_ms)
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
        let mut turns =
            self.current_turns(after, |seat| self.watchers.iter().any(|w| w.viewer == Some(seat)));
        let (log, sealed) = (&self.log, self.sealed());
        self.watchers.retain(|w| send_events(log, w, after, &mut turns, sealed));
        if self.is_over() {
            self.watchers.clear();
        }
    }

    /// Registers a watcher that has seen everything up to `after` and sends it the rest.
    pub fn add_watcher(&mut self, w: Watcher, after: u64) {
        let mut turns = self.current_turns(after, |seat| w.viewer == Some(seat));
        if send_events(&self.log, &w, after, &mut turns, self.sealed()) && !self.is_over() {
            self.watchers.push(w);
        }
    }

    /// The deadline of `seat`'s current turn (unix ms), when it is to act and the game has a
    /// clock.
    pub fn turn_deadline(&self, seat: u8) -> Option<i64> {
        let seq = self.turn_seq(seat)?;
        match self.log[seq as usize - 1].ev {
            LogEvent::Turn { deadline_ms, .. } if deadline_ms > 0 => Some(deadline_ms),
            _ => None,
        }
    }

    /// The seq of `seat`'s current turn event, when it is to act.
    pub fn turn_seq(&self, seat: u8) -> Option<u64> {
        if !self.may_act(seat) {
            return None;
        }
        let i = self.log.iter().rposition(|e| matches!(e.ev, LogEvent::Turn { seat: s, .. } if s == seat))?;
        Some(i as u64 + 1)
    }

    /// The current turns' information, for the turn events after `after` (about to be sent)
    /// of seats `wanted` says a receiver is.
    fn current_turns(&self, after: u64, wanted: impl Fn(u8) -> bool) -> Turns {
        // Two seats act at once in team play only (no list built for the others).
        let second = match &self.game {
            Some(Table::Teams(_)) => self.seats_to_act().get(1).copied(),
            _ => None,
        };
        let mut out = [None, None];
        for (slot, seat) in out.iter_mut().zip(self.to_act().into_iter().chain(second)) {
            let Some(seq) = self.turn_seq(seat) else { continue };
            if seq <= after || !wanted(seat) {
                continue;
            }
            let Some(info) = self.turn_info(seat) else { continue };
            *slot = Some(TurnOut::new(Some(CurrentTurn { seq, seat, info }), &self.watchers));
        }
        Turns(out)
    }

    /// The turn information of `seat`, when it may act.
    pub fn turn_info(&self, seat: u8) -> Option<pb::TurnInfo> {
        match self.game.as_ref()? {
            Table::Gin(g) => Some(wire::turn_info(g.hand(), Seat::new(seat)?)),
            t => Some(wire::table_turn_info(t, seat)),
        }
    }

    /// What `viewer` may see now.
    pub fn snapshot(&self, viewer: Option<u8>) -> pb::GameSnapshot {
        let team = |i: u8| matches!(self.info.format, Format::Teams(_)).then_some(u32::from(i % 2));
        let seats = (0..self.players())
            .map(|i| {
                let seated = self.seats[i as usize].as_ref();
                let mut info = pb::SeatInfo {
                    seat: i as u32,
                    name: seated.map(|s| s.name.clone()).unwrap_or_default(),
                    taken: seated.is_some(),
                    bot: self.house_seat(i),
                    team: team(i),
                    entrant: self.entrant_seat(i),
                    ..Default::default()
                };
                if let Some(a) = seated.and_then(|s| s.account.as_ref()) {
                    a.describe(&mut info);
                }
                info
            })
            .collect();
        let mut s = pb::GameSnapshot {
            game_id: self.info.id.clone(),
            seq: self.last_seq(),
            rules: self.info.format.gin_rules().filter(|_| self.two_player()).map(wire::rule_set),
            clock: Some(self.info.clock),
            seats,
            viewer_seat: viewer.map(u32::from),
            // A game over before it started (cancelled) is over too.
            phase: if self.is_over() { pb::Phase::GameOver } else { pb::Phase::WaitingForPlayers } as i32,
            hands: self.hand_results.clone(),
            result: self.ended.clone(),
            turn_deadline_unix_ms: self.deadline_ms,
            fixed_deals: self.info.fixed_deals,
            format: Some(wire::format_info(&self.info.format)),
            ..Default::default()
        };
        if self.sealed() {
            s.hands.iter_mut().for_each(|h| sealed_reveal(&mut h.reveal));
        }
        let Some(t) = &self.game else { return s };
        if let Table::Gin(g) = t {
            let h = g.hand();
            let v = g.seat_view(viewer.and_then(Seat::new).unwrap_or(Seat::S0));
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
            s.seat_to_act = self.to_act().map(u32::from);
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
                s.turn = self.turn_info(v);
            }
            return s;
        }
        let view = match viewer {
            Some(v) => t.view(v),
            None => t.spectator_view(),
        };
        let to_act = self.seats_to_act();
        s.phase = match (self.is_over(), viewer.filter(|v| to_act.contains(v)).or(to_act.first().copied())) {
            (true, _) => pb::Phase::GameOver,
            (false, Some(seat)) => table_phase(t, seat),
            (false, None) => pb::Phase::Draw,
        } as i32;
        s.seat_to_act = to_act.first().map(|&x| u32::from(x));
        s.seats_to_act = to_act.iter().map(|&x| u32::from(x)).collect();
        s.hand_number = view.hand_number();
        s.sitting_out = view.sitting_out().map(u32::from);
        if viewer.is_some() {
            s.hand = gin_proto::convert::cards_to_pb(view.cards().unwrap_or(CardSet::EMPTY));
        }
        s.tables = view.tables().iter().map(wire::table_in_play).collect();
        s.totals = view.scores().to_vec();
        s.team_totals = view.team_scores().map(|t| t.iter().map(|&x| x as i64).collect()).unwrap_or_default();
        s.table_hands = self.table_hands.clone();
        if self.sealed() {
            s.table_hands.iter_mut().for_each(|h| sealed_reveal(&mut h.reveal));
        }
        if let Some(v) = viewer.filter(|v| to_act.contains(v)) {
            s.turn = self.turn_info(v);
        }
        s
    }
}

/// The hands in play of a table: (hand number, table index).
fn hands_in_play(t: &Table) -> Vec<(u32, u8)> {
    match t {
        Table::Teams(g) => vec![(2 * g.round(), 0), (2 * g.round() + 1, 1)],
        t => vec![(t.spectator_view().hand_number(), 0)],
    }
}

/// `seats` in play order: from the dealer's left (the seat after the dealer) round the table.
fn play_order(seats: &[u8], dealer: u8) -> Vec<u8> {
    let mut v = seats.to_vec();
    v.sort_by_key(|&s| if s > dealer { s - dealer } else { s + seats.len().max(8) as u8 });
    v
}

/// What `seat` is to do at `t` (it may act).
fn table_phase(t: &Table, seat: u8) -> pb::Phase {
    let legal = t.legal(seat);
    if legal.contains(&Move::Pass) {
        pb::Phase::UpcardOffer
    } else if legal.iter().any(|m| matches!(m, Move::DrawStock | Move::DrawPile)) {
        pb::Phase::Draw
    } else {
        pb::Phase::Discard
    }
}

/// A refused move, as the game layer says it.
fn table_error(e: engine::TableError) -> GameError {
    use engine::TableError as T;
    match e {
        T::GameOver => GameError::Over,
        T::NotYourTurn { why, .. } => GameError::Refused(why),
        e => GameError::Refused(e.to_string()),
    }
}

/// Event `seq` as `viewer` may see it.
/// `info` is the current turn's information, given only when this event is the current
/// turn and `viewer` is the seat to act.
pub fn event_for(seq: u64, e: &Entry, viewer: Option<u8>, info: Option<pb::TurnInfo>) -> pb::GameEvent {
    use pb::game_event::Kind as K;
    let s = u32::from;
    let kind = match &e.ev {
        LogEvent::Joined(j) => {
            let mut seat = pb::SeatInfo::default();
            if let Some(a) = &j.account {
                a.describe(&mut seat);
            }
            K::PlayerJoined(pb::PlayerJoined {
                seat: s(j.seat),
                name: j.name.clone(),
                bot: j.bot,
                entrant: j.entrant,
                account: seat.account,
                account_kind: seat.account_kind,
                account_deleted: seat.account_deleted,
            })
        }
        LogEvent::Dealt(d) => K::HandDealt(pb::HandDealt {
            hand_number: d.hand_number,
            stage: d.stage,
            dealer: s(d.dealer),
            upcard: d.upcard.notation().to_owned(),
            knock_limit: d.knock_limit,
            your_hand: viewer
                .and_then(|v| d.hands.get(v as usize))
                .map(|&h| gin_proto::convert::cards_to_pb(h))
                .unwrap_or_default(),
            commitment: d.commitment.to_vec(),
            seed_commitment: d.seed_commitment.to_vec(),
            stock_size: d.stock,
            table: u32::from(d.table),
            seats: d.seats.iter().map(|&x| s(x)).collect(),
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
        LogEvent::Melded { seat, index, cards } => K::MeldLaid(pb::MeldLaid {
            seat: s(*seat),
            meld: Some(pb::TableMeld {
                index: *index,
                seat: s(*seat),
                cards: gin_proto::convert::cards_to_pb(*cards),
                layoffs: Vec::new(),
            }),
        }),
        LogEvent::LaidOff { seat, card, meld } => {
            K::CardLaidOff(pb::CardLaidOff { seat: s(*seat), card: card.notation().to_owned(), meld: *meld })
        }
        LogEvent::PileTurned { seat, top, turn, stock } => K::PileTurned(pb::PileTurned {
            seat: s(*seat),
            turn: *turn,
            stock_size: *stock,
            pile: vec![top.notation().to_owned()],
        }),
        LogEvent::HandEnded(r) => K::HandEnded(pb::HandEnded { result: Some((**r).clone()) }),
        LogEvent::TableHandEnded(r) => K::TableHandEnded(pb::TableHandEnded { result: Some((**r).clone()) }),
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

/// `ev` as a sealed game ([`Seal`]) sends it: a hand's reveal without its deck.
pub fn seal_event(ev: &mut pb::GameEvent) {
    use pb::game_event::Kind as K;
    match &mut ev.kind {
        Some(K::HandEnded(h)) => {
            if let Some(r) = &mut h.result {
                sealed_reveal(&mut r.reveal);
            }
        }
        Some(K::TableHandEnded(h)) => {
            if let Some(r) = &mut h.result {
                sealed_reveal(&mut r.reveal);
            }
        }
        _ => {}
    }
}

/// The move a seat makes when its clock runs out (and a house bot whose choice the engine
/// refused): decline the upcard, draw from the stock, or discard the legal card that leaves
/// the least deadwood (the higher card on ties), face down, knocking (or going gin, or big
/// gin), whenever that discard allows it: a hand the clock plays ends as a real hand does,
/// never dead for want of a knock.
pub fn auto_action(hand: &engine::Hand, seat: Seat) -> Action {
    let legal = hand.legal();
    if legal.pass {
        return Action::Pass;
    }
    if legal.draw_stock {
        return Action::DrawStock;
    }
    if legal.big_gin {
        return Action::BigGin { melds: None };
    }
    let by = engine::deadwood_by_discard(hand.cards(seat));
    let card = legal
        .discards
        .iter()
        .chain(legal.knocks.iter())
        .min_by_key(|c| (by[c.bit() as usize], std::cmp::Reverse((c.value(), c.bit()))))
        .expect("a seat to discard holds cards");
    if legal.knocks.contains(card) {
        return Action::Knock { discard: card, melds: None };
    }
    Action::Discard { card }
}

/// [`auto_action`] at a table of any format: the two-player gin hand's safe move for gin
/// kinds; elsewhere decline, draw from the stock, or else the house `simple` bot's move.
pub fn auto_move(t: &Table, seat: u8) -> Option<Move> {
    if let Some((h, s, _, _)) = t.gin_seat(seat) {
        return Some(auto_action(h, s).into());
    }
    let legal = t.legal(seat);
    if legal.is_empty() {
        return None;
    }
    if legal.contains(&Move::DrawStock) {
        return Some(Move::DrawStock);
    }
    let mut bot = gin_strategies::tables::TableBot::new("simple", t.kind(), 0).ok()?;
    Some(bot.act(t, seat))
}

#[cfg(test)]
mod auto_tests {
    use super::*;

    /// A clock that plays every turn of both seats plays real hands: it knocks when it can,
    /// so its games end by their target, like any other (it only ever discarded, so every
    /// hand went dead and the game never ended).
    #[test]
    fn the_clocks_own_play_knocks_and_finishes_games() {
        for (preset, seed) in [("standard", 1), ("standard", 2), ("oklahoma", 3), ("classic", 4)] {
            let rules = engine::RuleSet::preset(preset).unwrap();
            let mut g = Game::new(GameSetup::new(rules, seed)).unwrap();
            let mut steps = 0;
            while !g.is_over() {
                let seat = g.hand().phase().to_act().expect("someone is to act");
                g.apply(seat, &auto_action(g.hand(), seat)).expect("the clock's move is legal");
                steps += 1;
                assert!(steps < 20_000, "{preset} seed {seed}: no end after {steps} moves");
            }
            let scored = g.hands().iter().filter(|h| h.result.winner.is_some()).count();
            assert!(scored > 0, "{preset} seed {seed}: every hand dead");
        }
        // Every other format, every seat played by the clock (three players: 7 dead hands of 7
        // before; teams: 14).
        for name in engine::FORMAT_PRESETS {
            for seed in 1..4 {
                let mut t = Table::new(engine::TableSetup::new(Format::preset(name).unwrap(), seed)).unwrap();
                let mut steps = 0;
                while !t.is_over() {
                    let seat = t.to_act()[0];
                    let m = auto_move(&t, seat).expect("a seat to act has a move");
                    t.apply(seat, &m).expect("the clock's move is legal");
                    steps += 1;
                    assert!(steps < 50_000, "{name} seed {seed}: no end after {steps} moves");
                }
                let scored = t.hands().iter().filter(|h| h.winner.is_some()).count();
                assert!(scored > 0, "{name} seed {seed}: every hand dead");
            }
        }
    }
}

#[cfg(test)]
mod size_tests {
    #[test]
    fn a_log_entry_is_small() {
        // Two or three entries per action, kept for the game's life: keep them small.
        assert!(std::mem::size_of::<super::Entry>() <= 32, "{}", std::mem::size_of::<super::Entry>());
    }
}

#[cfg(test)]
mod table_tests {
    use super::*;

    fn teams(seed: u64) -> GameState {
        let mut st = GameState::new(GameInfo {
            id: format!("t{seed}"),
            format: Format::preset("teams").unwrap(),
            seed,
            secret: [1; 32],
            clock: pb::TurnClock::default(),
            house_bot: String::new(),
            created_ms: 0,
            fixed_deals: false,
            first_dealer: None,
            rated_pool: None,
        });
        for seat in 0..4 {
            st.seat(
                seat,
                Seated { name: format!("p{seat}"), account: None, token_hash: [seat; 32], bot: false },
                0,
            );
        }
        st
    }

    /// Team play: one table's moves, its hand's end included, never make the other table's
    /// pending move stale (and never give that seat a second turn event).
    #[test]
    fn a_tables_hand_ending_leaves_the_other_tables_turn_alone() {
        let mut ended_alone = 0;
        for seed in 0..40 {
            let mut st = teams(seed);
            let t = st.game.as_ref().unwrap();
            let Table::Teams(g) = t else { unreachable!() };
            // The seat to act at table 1 waits while table 0 plays its whole hand.
            let waiting = g.tables()[1].phase().to_act().map(|s| g.players(1)[s.index()]).unwrap();
            let seen = st.last_seq();
            let turns_before = st
                .log
                .iter()
                .filter(|e| matches!(e.ev, LogEvent::Turn { seat, .. } if seat == waiting))
                .count();
            let mut n = 0;
            loop {
                let Some(Table::Teams(g)) = st.game.as_ref() else { unreachable!() };
                if g.tables()[0].is_over() || g.round() > 0 {
                    break;
                }
                let seat = g.tables()[0].phase().to_act().map(|s| g.players(0)[s.index()]).unwrap();
                // Knock when it may, else the first legal move: hands end sooner.
                let legal = st.game.as_ref().unwrap().legal(seat);
                let m = legal.iter().find(|m| matches!(m, Move::Knock { .. })).unwrap_or(&legal[0]).clone();
                st.play_move(seat, &m, ActionKind::Play, 0).unwrap();
                n += 1;
                assert!(n < 1000);
            }
            let Some(Table::Teams(g)) = st.game.as_ref() else { unreachable!() };
            if g.round() > 0 {
                continue;
            }
            ended_alone += 1;
            assert!(st.table_hands.len() == 1, "seed {seed}: table 0's hand reported");
            assert_eq!(st.check_seq(waiting, seen).map_err(|e| e.to_string()), Ok(()), "seed {seed}");
            let turns_after = st
                .log
                .iter()
                .filter(|e| matches!(e.ev, LogEvent::Turn { seat, .. } if seat == waiting))
                .count();
            assert_eq!(turns_after, turns_before, "seed {seed}: no second turn event for seat {waiting}");
            // Its move at that seq goes through; a move at table 0 is refused (its hand is over).
            let m = st.game.as_ref().unwrap().legal(waiting)[0].clone();
            st.play_move(waiting, &m, ActionKind::Play, 0).unwrap();
        }
        assert!(ended_alone > 10, "{ended_alone} hands ended at one table alone");
    }
}
