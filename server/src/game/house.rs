//! House bots: a built-in strategy (`gin_strategies::by_name`) plays one seat of a game,
//! in-process.
//!
//! - **It sees what a client of its seat sees.** Its decision is the engine's state of its
//!   own seat only, read by `Decision::of` (its cards, the pile, the stock's size, the card
//!   taken, the knock limit, its legal actions, the scores: what that seat's stream shows),
//!   the same function local play uses; its `Memory` is fed with the game's log redacted for
//!   its seat by `Seen::of` (the other seat's stock draw without its card), the redaction of
//!   local play. It never reads the other hand or the stock. The test
//!   `sees_what_a_client_of_its_seat_sees` holds it to a client's view, turn after turn of
//!   whole games from either seat: its decision and memory equal those of the SDK's
//!   `SeatTracker` fed with [`event_for`](super::state::event_for), the stream a client of
//!   that seat reads.
//! - **Its actions take the clients' path.** An action goes through the commit,
//!   [`act_as`], with the seq the bot decided at: the game's lock, the `expected_seq` check,
//!   the engine, the durable write, publishing, clocks. Its events, log rows and durability
//!   are those of any action.
//! - **It does not hold the game's lock while it thinks.** [`House::arm`] (a hook of the
//!   commit, [`AfterChange`]: called under the lock after every change) only feeds the new log entries to the
//!   bot's memory, takes its turn as owned data (`Turn`) and spawns the decision on tokio's
//!   blocking pool; the action is applied later, and refused as stale (nothing applied) if
//!   the game moved meanwhile (a turn clock).
//! - **It survives restarts.** `house_bot` is stored with the game and the bot seat is
//!   marked in the seats table; at start the rebuilt games are armed again, and a fresh bot
//!   catches up from the log.
//! - **It is not part of the game's state.** The bots of the games in play are kept here, by
//!   game id, and leave when their game ends.
//!
//! - **At other tables** (`arm_table`): a `gin_strategies::tables::TableBot` (`random`,
//!   `simple` and `strong` everywhere; every two-player strategy at three players and in
//!   teams, which are two-player hands) per bot seat, once per turn event of its seat, deciding on a copy of the table (it
//!   reads only its seat: `gin_strategies::tables`). At three players and in teams its memory
//!   of the hand is fed from the log from the hand's `Dealt` entry on, redacted for its seat as
//!   local play redacts the engine's events
//!   (`a_table_bot_remembers_its_hand_from_the_log_as_local_play_does`), and its opponent's
//!   earlier showdowns come from the table's finished hands (so a bot made after a restart
//!   knows them too). At gin-7 and rummy `strong` is the table search
//!   (`gin_strategies::table_strong`): it samples the other seats' hidden cards from its
//!   seat's view of the table copy.
//!
//! **Why the engine's view and not the SDK's tracker.** Until the crates were split, a house
//! bot was the SDK's `SeatTracker` fed with protobuf events from `event_for`: the same code as
//! a client, but the server then depended on the whole SDK (tonic's client, TLS roots) and
//! formatted and re-parsed every card of its own log. The tracker could not move to a crate
//! the server may use without dragging protobuf into the strategies or a fourth crate into the
//! workspace. So the promise that a house bot sees what a client of its seat sees is kept by
//! the test above rather than by sharing the client's code.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use engine::{Action, Event, Game, Move, RuleSet, Seat};
use gin_proto::convert;
use gin_proto::v1 as pb;
use gin_strategies::{Decision, Memory, Seen, Shown, Strategy, Turn, fallback, is_listed};
use sha2::{Digest, Sha256};

use super::GameError;
use super::commit::act_as;
use super::shared::{AfterChange, Shared};
use super::state::{Entry, GameInfo, GameState, LogEvent, auto_action, auto_move};
use crate::metrics::AtomicHistogram;
use crate::storage::ActionKind;

/// A house bot playing one seat of one game.
pub struct HouseBot {
    seat: Seat,
    strategy: Box<dyn Strategy>,
    view: View,
    /// The turn (`GameState::turn_token`) a decision was last started for.
    scheduled: u64,
    /// That turn, taken under the game's lock, for the decision off it.
    turn: Option<Turn>,
}

/// What a house bot knows of its game: the rules, and its seat's memory of the hand in play,
/// fed with the log up to seq `fed`, redacted for that seat.
struct View {
    rules: RuleSet,
    memory: Memory,
    fed: u64,
    /// The knock limit of the hand in play.
    knock_limit: u32,
}

/// What a finished hand's showdown shows both seats, from its wire form (`None` when dead).
/// The server wrote it, so it reads; if it ever does not, the bot learns nothing from that
/// hand and says so in the log.
fn shown(r: &pb::HandResult) -> Option<Shown> {
    let s = r.showdown.as_ref()?;
    let read = || -> Result<Shown, gin_proto::convert::WireError> {
        Ok(Shown {
            knocker: convert::seat(s.knocker)?,
            knocker_deadwood: s.knocker_melds.as_ref().map_or(0, |a| a.deadwood_value),
            defender_hand: convert::defender_hand(s)?,
        })
    };
    read().inspect_err(|e| tracing::warn!("house bot: an unreadable showdown, not learnt from: {e}")).ok()
}

impl View {
    fn new(seat: Seat, rules: RuleSet) -> View {
        View { rules, memory: Memory::new(seat), fed: 0, knock_limit: 0 }
    }

    /// Feeds the memory every log entry after the last one fed, as its seat may see it.
    fn catch_up(&mut self, log: &[Entry]) {
        for e in &log[self.fed as usize..] {
            let m = &mut self.memory;
            let s = |seat: u8| Seat::new(seat).expect("a two-player seat");
            let event = match e.ev {
                LogEvent::Dealt(ref d) => {
                    m.new_hand(d.hand_number, d.hands[m.seat.index()], d.upcard);
                    self.knock_limit = d.knock_limit;
                    continue;
                }
                LogEvent::HandEnded(ref r) => {
                    m.hand_ended(shown(r).as_ref(), self.knock_limit);
                    continue;
                }
                LogEvent::Passed { seat } => Event::Passed { seat: s(seat) },
                LogEvent::Drew { seat, card, from_stock, .. } => {
                    Event::Drew { seat: s(seat), card, from_stock }
                }
                LogEvent::Discarded { seat, card } => Event::Discarded { seat: s(seat), card },
                _ => continue,
            };
            if let Some(seen) = Seen::of(&event, m.seat, m.pile_top()) {
                m.observe(seen);
            }
        }
        self.fed = log.len() as u64;
    }

    /// The seat's turn, when it is to act in `game`.
    fn turn(&self, game: &Game) -> Option<Turn> {
        Decision::of(game, &self.memory).map(|d| d.to_turn())
    }
}

/// A game's house bot, shared between the game (under its lock) and the decision in flight.
pub type HouseCell = Arc<Mutex<HouseBot>>;

/// Checks a requested house bot: `false` for none, `true` for a known strategy,
/// [`GameError::Invalid`] naming the known ones otherwise.
pub fn check(name: &str) -> Result<bool, GameError> {
    check_for(name, engine::Kind::Gin)
}

/// [`check`] for a game of `kind`. At the other tables a house bot plays what
/// `gin_strategies::tables` plays there: every two-player strategy where every hand is a
/// two-player hand (three players, teams), `random`, `simple` and `strong` at gin-7 and
/// rummy.
pub fn check_for(name: &str, kind: engine::Kind) -> Result<bool, GameError> {
    if name.is_empty() {
        return Ok(false);
    }
    if kind == engine::Kind::Gin {
        return gin_strategies::by_name(name, 0)
            .map(|_| true)
            .map_err(|e| GameError::Invalid(format!("house_bot: {e}")));
    }
    let known = gin_strategies::tables::strategies_for(kind);
    if known.contains(&name) {
        Ok(true)
    } else {
        Err(GameError::Invalid(format!(
            "house_bot: unknown strategy {name:?} for {kind}: the house plays {} there",
            known.join(", ")
        )))
    }
}

/// The display name of a house bot seat.
pub fn display_name(strategy: &str) -> String {
    strategy.to_string()
}

/// The bot's seed, the same after a restart. In a game with fixed deals, from the deal seed
/// its creator chose (whoever knows that seed knows every deal already): the same seed and
/// the same moves of the other seats replay the same game, bots included. Otherwise from the
/// game's secret, so that its choices say nothing of the deal seed.
fn seed(info: &GameInfo) -> u64 {
    let h = Sha256::new().chain_update(b"gin-house-bot\n");
    let h = if info.fixed_deals {
        h.chain_update(b"fixed deals\n").chain_update(info.seed.to_le_bytes())
    } else {
        h.chain_update(info.secret)
    };
    u64::from_le_bytes(h.finalize()[..8].try_into().expect("8 bytes"))
}

/// The house bots of the games in play, by game id: a hook of the commit.
#[derive(Default)]
pub struct House {
    bots: Mutex<HashMap<String, HouseCell>>,
    /// The other formats' house bots: one per bot seat, by game id then seat.
    tables: Mutex<HashMap<String, HashMap<u8, TableCell>>>,
}

/// A house bot at one seat of a table of any format other than two-player gin.
pub struct TableHouseBot {
    bot: gin_strategies::tables::TableBot,
    /// The seq of the turn event a decision was last started for.
    scheduled: u64,
    /// How many log entries its memory has been fed (gin kinds).
    fed: usize,
}

impl TableHouseBot {
    /// Gin kinds (three players, teams: two-player hands): feeds the bot's memory of its
    /// hand in play what its seat saw of it in the log since the last call, redacted for its
    /// seat as in local play (`Seen::of`: the other seat's stock draw without its card). A
    /// new hand (or a bot made after a restart) starts at the hand's `Dealt` entry. The
    /// other formats' bots keep no memory.
    fn catch_up(&mut self, log: &[Entry], t: &engine::Table, seat: u8) {
        let Some((_, _, number, players)) = t.gin_seat(seat) else {
            self.fed = log.len();
            return;
        };
        if self.bot.hand_key() != Some(number) {
            let dealt = log.iter().enumerate().rev().find_map(|(i, e)| match &e.ev {
                LogEvent::Dealt(d) if d.seats.contains(&seat) => Some((i, d)),
                _ => None,
            });
            let Some((i, d)) = dealt else {
                tracing::error!("house bot: no deal of seat {seat}'s hand in the log");
                self.fed = log.len();
                return;
            };
            self.bot.start_hand(t, seat, d.hands[seat as usize], d.upcard);
            self.fed = i + 1;
        }
        let in_hand = |x: u8| players.iter().position(|&p| p == x).and_then(|i| Seat::new(i as u8));
        for e in &log[self.fed.min(log.len())..] {
            let event = match e.ev {
                LogEvent::Passed { seat } => in_hand(seat).map(|seat| Event::Passed { seat }),
                LogEvent::Drew { seat, card, from_stock, .. } => {
                    in_hand(seat).map(|seat| Event::Drew { seat, card, from_stock })
                }
                LogEvent::Discarded { seat, card } => {
                    in_hand(seat).map(|seat| Event::Discarded { seat, card })
                }
                _ => None,
            };
            if let Some(event) = event {
                let top = self.bot.memory().pile_top();
                self.bot.observe(number, &event, top);
            }
        }
        self.fed = log.len();
    }
}

/// A table house bot, shared between the game and the decision in flight.
type TableCell = Arc<Mutex<TableHouseBot>>;

impl AfterChange for House {
    fn after_change(&self, shared: &Shared, st: &mut GameState) {
        self.arm(shared, st);
    }
}

impl House {
    /// House bots in play (for tests and measurements).
    pub fn len(&self) -> usize {
        self.bots.lock().expect("lock").len() + self.tables.lock().expect("lock").len()
    }

    /// No house bot in play.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// When the seat to act is the house bot's: brings its view up to date and starts its
    /// decision off the executor. Call with the game's lock held, after a change was made
    /// durable and published. Does nothing otherwise, or when a decision for this turn is
    /// already under way. A game that ended takes its bot with it.
    pub fn arm(&self, shared: &Shared, st: &mut GameState) {
        if st.info.house_bot.is_empty() || st.poisoned {
            return;
        }
        if st.is_over() {
            self.bots.lock().expect("lock").remove(&st.info.id);
            self.tables.lock().expect("lock").remove(&st.info.id);
            return;
        }
        if !st.two_player() {
            self.arm_table(shared, st);
            return;
        }
        let Some(bot) = self.bot(st) else { return };
        arm(shared, st, bot);
    }

    /// [`House::arm`] at a table of another format: each bot seat to act (two at once in
    /// team play) decides on a copy of the table, off the lock, once per turn.
    fn arm_table(&self, shared: &Shared, st: &GameState) {
        let Some(t) = st.game.as_ref() else { return };
        for seat in st.seats_to_act() {
            if !st.seats[seat as usize].as_ref().is_some_and(|s| s.bot) {
                continue;
            }
            let Some(turn) = st.turn_seq(seat) else { continue };
            let cell = {
                let mut tables = self.tables.lock().expect("lock");
                let bots = tables.entry(st.info.id.clone()).or_default();
                match bots.entry(seat) {
                    std::collections::hash_map::Entry::Occupied(e) => e.get().clone(),
                    std::collections::hash_map::Entry::Vacant(e) => {
                        let s = seed(&st.info) ^ u64::from(seat);
                        match gin_strategies::tables::TableBot::new(&st.info.house_bot, t.kind(), s) {
                            Ok(bot) => e
                                .insert(Arc::new(Mutex::new(TableHouseBot { bot, scheduled: 0, fed: 0 })))
                                .clone(),
                            Err(err) => {
                                tracing::error!(game = %st.info.id, "house bot: {err}");
                                continue;
                            }
                        }
                    }
                }
            };
            {
                let mut b = cell.lock().expect("lock");
                if b.scheduled == turn {
                    continue;
                }
                b.scheduled = turn;
                b.catch_up(&st.log, t, seat);
            }
            // The bot reads only its own seat of the copy: its cards, the public table,
            // its legal moves (see `gin_strategies::tables`).
            let table = t.clone();
            let expected = st.last_seq();
            let (shared, id) = (shared.clone(), st.info.id.clone());
            let think = shared.metrics.house_think_seconds.clone();
            tokio::spawn(async move {
                let decided = tokio::task::spawn_blocking(move || {
                    let start = Instant::now();
                    let m = cell.lock().expect("lock").bot.act(&table, seat);
                    think.observe_duration(start.elapsed());
                    if table.legal(seat).contains(&m) { m } else { auto_move(&table, seat).unwrap_or(m) }
                })
                .await;
                match decided {
                    Ok(m) => apply_move(&shared, &id, seat, expected, m).await,
                    Err(e) => tracing::error!(game = %id, "house bot failed: {e}"),
                }
            });
        }
    }

    /// The bot of game `st` if its seat is to act, made the first time it is.
    fn bot(&self, st: &GameState) -> Option<HouseCell> {
        let seat = st.to_act()?;
        if !st.seats[seat as usize].as_ref().is_some_and(|s| s.bot) {
            return None;
        }
        let seat = Seat::new(seat)?;
        let mut bots = self.bots.lock().expect("lock");
        if let Some(b) = bots.get(&st.info.id) {
            return Some(b.clone());
        }
        match gin_strategies::by_name(&st.info.house_bot, seed(&st.info)) {
            Ok(strategy) => {
                let rules = st.info.format.gin_rules().cloned().expect("two-player gin");
                let view = View::new(seat, rules);
                let b = Arc::new(Mutex::new(HouseBot { seat, strategy, view, scheduled: 0, turn: None }));
                bots.insert(st.info.id.clone(), b.clone());
                Some(b)
            }
            Err(e) => {
                tracing::error!(game = %st.info.id, "house bot: {e}");
                None
            }
        }
    }
}

/// Brings `bot`'s view of `st` up to date and starts its decision for the turn, unless one is
/// under way already.
fn arm(shared: &Shared, st: &GameState, bot: HouseCell) {
    let Some(seat) = st.to_act().and_then(Seat::new) else { return };
    {
        let mut b = bot.lock().expect("lock");
        if b.seat != seat || b.scheduled == st.turn_token {
            return;
        }
        b.view.catch_up(&st.log);
        let Some(turn) = st.gin().and_then(|g| b.view.turn(g)) else {
            tracing::error!(game = %st.info.id, "house bot: no pending turn in its view");
            return;
        };
        b.turn = Some(turn);
        b.scheduled = st.turn_token;
    }
    let expected = st.last_seq();
    let (shared, id) = (shared.clone(), st.info.id.clone());
    let think = shared.metrics.house_think_seconds.clone();
    tokio::spawn(async move {
        let action = match tokio::task::spawn_blocking(move || decide(&bot, &think)).await {
            Ok(Some(a)) => a,
            Ok(None) => {
                tracing::error!(game = %id, "house bot: no pending turn in its view");
                return;
            }
            Err(e) => {
                tracing::error!(game = %id, "house bot failed: {e}");
                return;
            }
        };
        apply(&shared, &id, seat, expected, action).await;
    });
}

/// The strategy's action for the pending turn (a legal one: an illegal choice is replaced);
/// the time it took goes in `think`.
fn decide(bot: &Mutex<HouseBot>, think: &AtomicHistogram) -> Option<Action> {
    let start = Instant::now();
    let mut guard = bot.lock().expect("lock");
    let b = &mut *guard;
    let turn = b.turn.take()?;
    let d = turn.decision(&b.view.rules, &b.view.memory);
    let a = b.strategy.act(&d);
    think.observe_duration(start.elapsed());
    if is_listed(&d.legal, &a) {
        Some(a)
    } else {
        let instead = fallback(&d);
        tracing::warn!(strategy = b.strategy.name(), "house bot chose an illegal `{a}`; playing `{instead}`");
        Some(instead)
    }
}

/// Applies the bot's action through the path of every action.
async fn apply(shared: &Shared, id: &str, seat: Seat, expected: u64, action: Action) {
    let r = act_as(shared, id, seat.index() as u8, expected, move |st, at, now| {
        match st.play(at, &action, ActionKind::Play, now) {
            Err(GameError::Illegal(e)) if st.to_act() == Some(at) => {
                // Named melds the engine refuses, say: play the clock's safe move instead.
                let auto = auto_action(st.gin().expect("a game").hand(), seat);
                tracing::warn!(game = %st.info.id, "house bot's `{action}` refused ({e}); playing `{auto}`");
                st.play(at, &auto, ActionKind::Play, now)
            }
            r => r,
        }
    })
    .await;
    report(id, r.map(|_| ()));
}

/// Applies a table house bot's move through the path of every action.
async fn apply_move(shared: &Shared, id: &str, seat: u8, expected: u64, m: Move) {
    let r = act_as(shared, id, seat, expected, move |st, seat, now| {
        st.play_move(seat, &m, ActionKind::Play, now)
    })
    .await;
    report(id, r.map(|_| ()));
}

/// Logs how a house bot's action went (a stale one: the game moved on meanwhile).
fn report(id: &str, r: Result<(), GameError>) {
    match r {
        Ok(_) => {}
        Err(GameError::Stale { .. }) => {
            tracing::debug!(game = %id, "house bot's action was stale (the game moved on)")
        }
        Err(e) => tracing::warn!(game = %id, "house bot's action failed: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::super::state::{GameInfo, Seated, event_for};
    use super::super::wire::turn_info;
    use super::*;
    use gin_proto::v1 as pb;
    use gin_sdk::SeatTracker;

    #[test]
    fn a_showdown_is_read_or_said_unreadable_and_a_dead_hand_shows_nothing() {
        let showdown = |knocker: u32, deadwood: &str| pb::HandResult {
            showdown: Some(pb::Showdown {
                knocker,
                knocker_melds: Some(pb::Arrangement { deadwood_value: 7, ..Default::default() }),
                defender_melds: Some(pb::Arrangement {
                    deadwood: vec![deadwood.to_string()],
                    ..Default::default()
                }),
                ..Default::default()
            }),
            ..Default::default()
        };
        let s = shown(&showdown(1, "KS")).expect("a readable showdown");
        assert_eq!((s.knocker, s.knocker_deadwood), (Seat::S1, 7));
        assert_eq!(s.defender_hand, engine::hand("KS"));
        // A seat or a card that does not read: nothing learnt (and a warning logged).
        assert_eq!(shown(&showdown(2, "KS")), None);
        assert_eq!(shown(&showdown(0, "XX")), None);
        assert_eq!(shown(&pb::HandResult::default()), None);
    }

    /// A game of `format` with house bot `simple`, its secret and id from `seed`.
    fn info(format: engine::Format, seed: u64) -> GameInfo {
        GameInfo {
            id: format!("g{seed}"),
            format,
            seed,
            secret: [seed as u8; 32],
            clock: pb::TurnClock::default(),
            house_bot: "simple".into(),
            created_ms: 0,
            fixed_deals: false,
            first_dealer: None,
            rated_pool: None,
        }
    }

    fn game(preset: &str, seed: u64) -> GameState {
        let mut st = GameState::new(info(engine::Format::Gin(RuleSet::preset(preset).unwrap()), seed));
        for (seat, name) in [(0, "alice"), (1, "simple")] {
            st.seat(
                seat,
                Seated { name: name.into(), account: None, token_hash: [0; 32], bot: seat == 1 },
                0,
            );
        }
        st
    }

    /// A client of `seat`: the SDK's tracker fed with every event after its last, as
    /// `event_for` sends them to that seat (the current turn with its legal actions).
    fn follow(t: &mut SeatTracker, st: &GameState) {
        let last = st.last_seq();
        for seq in t.last_seq() + 1..=last {
            let e = &st.log[(seq - 1) as usize];
            let me = t.seat().index() as u8;
            let current = seq == last && matches!(e.ev, LogEvent::Turn { seat, .. } if seat == me);
            let info = current.then(|| turn_info(st.gin().unwrap().hand(), t.seat()));
            t.apply(&event_for(seq, e, Some(me), info)).unwrap();
        }
    }

    /// A house bot's decision and memory equal a client's of the same seat, at every turn of
    /// whole games (offers, draws, discards, knocks, dead hands, several hands and stages),
    /// from either seat; a bot started mid-game (a restart) catches up from the log to the
    /// same view.
    #[test]
    fn sees_what_a_client_of_its_seat_sees() {
        let (mut turns, mut knocks_seen) = (0, 0);
        for (preset, seed) in [("standard", 1), ("oklahoma", 2), ("classic", 3), ("multistage", 4)] {
            let mut st = game(preset, seed);
            let rules = st.info.format.gin_rules().unwrap().clone();
            let mut views = Seat::BOTH.map(|s| View::new(s, rules.clone()));
            let mut clients = Seat::BOTH.map(|s| SeatTracker::new(s, rules.clone(), 0));
            let mut players = [
                gin_strategies::simple::SimpleStrategy::new(seed),
                gin_strategies::simple::SimpleStrategy::new(!seed),
            ];
            let mut limits = HashMap::new();
            while let Some(seat) = st.to_act().and_then(Seat::new) {
                let g = st.gin().unwrap();
                limits.insert(g.hand_number(), g.hand().knock_limit());
                for s in Seat::BOTH {
                    let (view, client) = (&mut views[s.index()], &mut clients[s.index()]);
                    view.catch_up(&st.log);
                    follow(client, &st);
                    let at = format!("{preset} seed {seed}, seat {s}, seq {}", st.last_seq());
                    assert_eq!(&view.memory, client.memory(), "{at}");
                    let turn = view.turn(g);
                    if s != seat {
                        assert!(turn.is_none() && client.decision().is_none());
                        continue;
                    }
                    let turn = turn.expect("the bot's turn");
                    let mine = turn.decision(&view.rules, &view.memory);
                    let theirs = client.decision().expect("the client's turn");
                    assert_eq!(mine.rules, theirs.rules);
                    assert_eq!(turn, theirs.to_turn(), "{at}");
                    assert_eq!(mine.memory, theirs.memory, "{at}");
                    // The other seat's knocks at the showdowns so far, with their limits.
                    let knocks: Vec<(bool, u32, u32)> = g
                        .hands()
                        .iter()
                        .filter_map(|h| Some((h.result.showdown.as_ref()?, limits[&h.number])))
                        .map(|(sd, limit)| {
                            let defender = Shown::of(sd).defender_hand;
                            let knocked = sd.knocker != s;
                            let dw = if knocked { sd.knocker_deadwood } else { engine::deadwood(defender) };
                            (knocked, dw, limit)
                        })
                        .collect();
                    let seen: Vec<(bool, u32, u32)> =
                        mine.memory.opp_showdowns.iter().map(|k| (k.knocked, k.deadwood, k.limit)).collect();
                    assert_eq!(seen, knocks, "{at}");
                    knocks_seen += knocks.len();
                    turns += 1;
                }
                if turns % 17 == 0 {
                    // A restart: a fresh bot catches up from the log alone.
                    let mut fresh = View::new(seat, rules.clone());
                    fresh.catch_up(&st.log);
                    assert_eq!(fresh.memory, views[seat.index()].memory);
                    assert_eq!(fresh.turn(g), views[seat.index()].turn(g));
                }
                let d = Decision::of(g, &views[seat.index()].memory).unwrap();
                let action = players[seat.index()].act(&d);
                st.play(seat.index() as u8, &action, crate::storage::ActionKind::Play, 0).unwrap();
            }
            assert!(st.is_over());
        }
        assert!(turns > 400, "{turns} turns");
        assert!(knocks_seen > 100, "{knocks_seen} showdowns seen");
    }

    /// At a table of two-player hands (three players, teams), a house bot's memory of its
    /// hand, fed from the game's log, equals the one local play builds from the engine's
    /// events, for every seat in a hand at every move of whole games; a bot made afresh (a
    /// restart) catches up to the same memory; and the second to play in a hand remembers
    /// the moves made before its first turn.
    #[test]
    fn a_table_bot_remembers_its_hand_from_the_log_as_local_play_does() {
        use gin_strategies::tables::TableBot;
        for (format, seed) in [
            (engine::Format::ThreePlayer(RuleSet::standard()), 5u64),
            (engine::Format::Teams(RuleSet::standard()), 6),
        ] {
            let mut st = GameState::new(info(format.clone(), seed));
            let n = st.players();
            for seat in 0..n {
                st.seat(
                    seat,
                    Seated { name: format!("b{seat}"), account: None, token_hash: [0; 32], bot: true },
                    0,
                );
            }
            let kind = st.game.as_ref().unwrap().kind();
            let bot = |s: u64| TableBot::new("simple", kind, s).unwrap();
            let mut local: Vec<TableBot> = (0..n).map(|s| bot(seed + u64::from(s))).collect();
            let mut served: Vec<TableHouseBot> =
                (0..n).map(|_| TableHouseBot { bot: bot(0), scheduled: 0, fed: 0 }).collect();
            let (mut checked, mut early, mut moves) = (0, 0, 0);
            while let Some(seat) = st.game.as_ref().unwrap().first_to_act() {
                let t = st.game.as_ref().unwrap().clone();
                for s in 0..n {
                    let Some((_, me, number, _)) = t.gin_seat(s) else { continue };
                    let b = &mut served[s as usize];
                    b.catch_up(&st.log, &t, s);
                    assert_eq!(b.bot.hand_key(), Some(number));
                    if local[s as usize].hand_key() == Some(number) {
                        let at = format!("{format:?} seat {s}, seq {}", st.last_seq());
                        assert_eq!(b.bot.memory(), local[s as usize].memory(), "{at}");
                        checked += 1;
                        let m = b.bot.memory();
                        if m.draws[me.index()] == 0 && !m.opp_moves.is_empty() {
                            early += 1;
                        }
                    }
                }
                // Local play, as `gin_strategies::tables::play_table` plays it.
                let m = local[seat as usize].act(&t, seat);
                if let Some((h, _, number, players)) = t.gin_seat(seat) {
                    for (s, p) in Seat::BOTH.into_iter().zip(players) {
                        if local[p as usize].hand_key() != Some(number) {
                            local[p as usize].start_hand(&t, p, h.cards(s), h.upcard());
                        }
                    }
                }
                let before =
                    t.gin_seat(seat).map(|(h, _, n, players)| (n, players, h.pile().last().copied()));
                let step = t.clone().apply(seat, &m).unwrap();
                if let (Some(ev), Some((n, players, top))) = (step.gin_event, before) {
                    for p in players {
                        local[p as usize].observe(n, &ev, top);
                    }
                }
                st.play_move(seat, &m, crate::storage::ActionKind::Play, 0).unwrap();
                moves += 1;
                if moves % 23 == 0 {
                    let t = st.game.as_ref().unwrap();
                    if t.gin_seat(seat).is_some() && !t.is_over() {
                        let mut fresh = TableHouseBot { bot: bot(0), scheduled: 0, fed: 0 };
                        fresh.catch_up(&st.log, t, seat);
                        served[seat as usize].catch_up(&st.log, t, seat);
                        assert_eq!(fresh.bot.memory(), served[seat as usize].bot.memory());
                    }
                }
            }
            assert!(checked > 300, "{format:?}: {checked} checks");
            assert!(early > 10, "{format:?}: {early} checks before a seat's first draw with moves seen");
        }
    }
}
