//! Any table over the network (three players, teams, gin for 3 to 6, rummy; two-player gin
//! too): one seat's view folded from its events ([`TableTracker`]), strategies that decide
//! from that view and the legal moves the server sends ([`TableStrategy`]: `random`,
//! `simple` and `strong` at every table, the other two-player strategies where every hand is
//! a two-player hand), and [`Client::play_table`].
//!
//! The server sends a seat its legal moves with each of its turns, so a table strategy needs
//! no rules of its own: it picks one of them. The tracker keeps what a player looks at to
//! choose: its cards, the discard pile of its table, the melds on the table (rummy), the
//! scores; at gin-7 and rummy also what `strong`'s search needs of the hand (each seat's card
//! count, the cards known held, the turns of the pile and of play, who has melded), from
//! which it rebuilds the hand as the seat sees it ([`TableTracker::gin7_view`],
//! [`engine::gin7::Gin7Hand::from_view`]; [`TableTracker::rummy_view`],
//! [`engine::rummy::RummyHand::from_view`]) and searches it as the house bots do
//! ([`gin_strategies::table_strong`]).

use engine::{Action, BySeat, Card, CardSet, RuleSet, Seat};
use gin_proto::convert;
use gin_proto::v1 as pb;
use gin_proto::v1::game_event::Kind as K;
use gin_strategies::{Decision, Memory, OppShowdown, Seen, Shown, Strategy};
use tonic::Code;

use crate::{Client, Error, authed, transient};

/// One seat's view of a table of any format, from its events (and a snapshot to start).
#[derive(Clone, Debug, Default)]
pub struct TableTracker {
    seat: u8,
    last_seq: u64,
    /// The seat's cards.
    hand: CardSet,
    /// Each table's discard pile as far as it is known, by table index (team play: two).
    piles: Vec<Vec<Card>>,
    /// The table the seat plays at.
    table: usize,
    /// The seats at each table in play (empty for two-player gin).
    seats_at: Vec<Vec<u32>>,
    /// Rummy: the melds on the table, by index.
    melds: Vec<CardSet>,
    /// The seat's pending turn: the seq of its turn event and the legal moves.
    turn: Option<(u64, pb::TurnInfo)>,
    hands_ended: u32,
    totals: Vec<i64>,
    result: Option<pb::GameResult>,
    /// Cards in the stock of the seat's table.
    stock: u32,
    /// The format's kind (`gin`, `three-player`, `teams`, `gin-7`, `rummy`).
    kind: String,
    /// Three players, teams: the rules of every hand (for [`TableTracker::gin_decision`]).
    rules: Option<RuleSet>,
    /// Three players, teams: the seat's memory of its hand in play.
    gin: Option<GinHand>,
    /// Three players, teams: what the showdowns of this seat's hands showed of each
    /// opponent (by its seat), oldest first: the opponent changes from hand to hand, and
    /// `strong` learns from them what kind of knocker each is.
    showdowns: Vec<(u32, Vec<OppShowdown>)>,
    /// The format, from the game's [`pb::FormatInfo`] ([`TableTracker::set_format`]).
    format: Option<engine::Format>,
    /// Gin-7 and rummy: the public side of the hand in play, which `strong`'s search needs.
    public: TablePublic,
    /// Rummy: the last hand's showdown, the cards each seat was left with (by seat), and
    /// the count of ended hands it made.
    rummy_left: Option<(u32, Vec<CardSet>)>,
}

/// Gin-7 and rummy: what every seat knows of the hand in play beyond the pile and the
/// melds, folded from the events since its deal ([`TableTracker::gin7_view`],
/// [`TableTracker::rummy_view`]).
#[derive(Clone, Debug, Default)]
struct TablePublic {
    dealer: u8,
    /// Cards in each seat's hand, by seat.
    hand_lens: Vec<u32>,
    /// The cards each seat took from the pile and still holds (not melded, laid off or
    /// discarded since), by seat.
    known: Vec<CardSet>,
    /// Rummy: the cards each seat passed up in the hand (the pile's top at its draws from
    /// the stock, its discards), by seat.
    declined: Vec<CardSet>,
    /// Gin-7: every card turned face up in the hand and not turned back into the stock.
    faced: CardSet,
    /// The card the seat to act took from the pile this turn.
    taken: Option<Card>,
    /// Turns of the pile so far in the hand.
    pile_turns: u32,
    /// Draws (gin-7's turns of play) and discards (rummy's turns) so far in the hand.
    draws: u32,
    discards: u32,
    /// Rummy: the melds on the table with who laid each and the lay-offs.
    table: Vec<engine::rummy::TableMeld>,
    /// Rummy: the seats that laid a meld or laid off in the hand before this turn (bit per
    /// seat), and whether the seat to act has this turn.
    played_before: u8,
    played_now: bool,
    /// Whether the tracker saw the hand from its deal (one from a snapshot did not: it knows
    /// no turns of play, and in rummy only the pile's top).
    from_deal: bool,
}

/// A seat's memory of its two-player hand at a table of three players or in teams, as a
/// two-player seat's: this seat is `S0`, its opponent `S1`.
#[derive(Clone, Debug)]
struct GinHand {
    memory: Memory,
    /// The opponent's seat.
    opponent: u32,
    knock_limit: u32,
    /// The card this seat took from the pile this turn.
    taken: Option<Card>,
}

/// Whether every hand of the kind is a two-player gin hand (the tracker keeps a memory).
fn two_player_hands(kind: &str) -> bool {
    kind == "three-player" || kind == "teams"
}

impl TableTracker {
    /// A tracker for `seat` at a game of `kind`, before its events: fed the seat's stream
    /// from seq 1 (the first seat taken), it knows all the seat may know, the cards under
    /// the top of a rummy pile included (a snapshot shows only the top).
    pub fn new(seat: u8, kind: &str) -> TableTracker {
        TableTracker { seat, last_seq: 1, kind: kind.to_string(), ..Default::default() }
    }

    /// A tracker for `seat`, from its snapshot. The piles are as the snapshot shows them: in
    /// rummy only the top, so after the top is taken the card under it is unknown until the
    /// next discard ([`TableTracker::new`] and the stream from its start know it).
    pub fn from_snapshot(seat: u8, s: &pb::GameSnapshot) -> Result<TableTracker, Error> {
        let kind = s.format.as_ref().map_or("gin".to_string(), |f| f.kind.clone());
        let mut t = TableTracker { seat, last_seq: s.seq, kind, ..Default::default() };
        t.hand = convert::cards(&s.hand)?;
        if s.tables.is_empty() {
            // Two-player gin: the snapshot's own fields.
            t.piles = vec![cards_in_order(&s.pile)?];
        } else {
            for (i, tp) in s.tables.iter().enumerate() {
                t.piles.push(cards_in_order(&tp.pile)?);
                t.seats_at.push(tp.seats.clone());
                if tp.seats.contains(&u32::from(seat)) {
                    t.table = i;
                    t.stock = tp.stock_size;
                }
                if i == t.table {
                    t.melds = tp.melds.iter().map(|m| convert::cards(&m.cards)).collect::<Result<_, _>>()?;
                }
            }
        }
        t.totals = if s.totals.is_empty() {
            s.scores.iter().map(|&x| i64::from(x)).collect()
        } else {
            s.totals.clone()
        };
        t.hands_ended = (s.hands.len() + s.table_hands.len()) as u32;
        t.result = s.result.clone();
        if let Some(info) = &s.turn {
            t.turn = Some((s.seq, info.clone()));
        }
        Ok(t)
    }

    /// The seat.
    pub fn seat(&self) -> u8 {
        self.seat
    }

    /// Sets the format from the game's [`pb::FormatInfo`]: at three players and in teams,
    /// the two-player rules of every hand, which [`TableTracker::gin_decision`] needs.
    pub fn set_format(&mut self, f: &pb::FormatInfo) -> Result<(), Error> {
        if two_player_hands(&f.kind) || f.kind == "gin-7" || f.kind == "rummy" {
            let format = engine::Format::parse_any(&f.document_json)
                .map_err(|e| Error::Protocol(format!("the server's format: {e}")))?;
            self.rules = format.gin_rules().cloned();
            self.format = Some(format);
        }
        Ok(())
    }

    /// Gin-7: this seat's view of the hand in play at its `turn`, for
    /// [`engine::gin7::Gin7Hand::from_view`] (`strong`'s search). An error before the format
    /// is known ([`TableTracker::set_format`]), at another kind, or when the tracker did not
    /// see the hand from its deal (it knows no turns of play then).
    pub fn gin7_view(&self, turn: &pb::TurnInfo) -> Result<engine::gin7::Gin7View, Error> {
        let Some(engine::Format::Gin7(rules)) = &self.format else {
            return Err(Error::Strategy(format!("no gin-7 rules known at {}", self.kind)));
        };
        let p = self.hand_public()?;
        Ok(engine::gin7::Gin7View {
            rules: *rules,
            dealer: p.dealer,
            seat: self.seat,
            to_act: self.seat,
            phase: if draws(turn) { engine::gin7::Gin7Phase::Draw } else { engine::gin7::Gin7Phase::Discard },
            cards: self.hand,
            hand_lens: p.hand_lens.clone(),
            known: p.known.clone(),
            pile: self.piles.get(self.table).cloned().unwrap_or_default(),
            stock_len: self.stock,
            taken: p.taken,
            pile_turns: p.pile_turns,
            turns_played: p.draws,
            public: p.faced,
        })
    }

    /// Rummy: this seat's view of the hand in play at its `turn`, for
    /// [`engine::rummy::RummyHand::from_view`] (`strong`'s search). An error before the
    /// format is known ([`TableTracker::set_format`]), at another kind, or when the tracker
    /// did not see the hand from its deal (from a snapshot it knows only the pile's top).
    pub fn rummy_view(&self, turn: &pb::TurnInfo) -> Result<engine::rummy::RummyView, Error> {
        let Some(engine::Format::Rummy(rules)) = &self.format else {
            return Err(Error::Strategy(format!("no rummy rules known at {}", self.kind)));
        };
        let p = self.hand_public()?;
        let n = rules.players as usize;
        Ok(engine::rummy::RummyView {
            rules: rules.clone(),
            dealer: p.dealer,
            seat: self.seat,
            to_act: self.seat,
            phase: if draws(turn) {
                engine::rummy::RummyPhase::Draw
            } else {
                engine::rummy::RummyPhase::Play
            },
            cards: self.hand,
            hand_lens: p.hand_lens.clone(),
            pile: self.piles.get(self.table).cloned().unwrap_or_default(),
            table: p.table.clone(),
            stock_len: self.stock,
            taken: p.taken,
            pile_turns: p.pile_turns,
            turns: p.discards,
            played_before: (0..n).map(|s| p.played_before >> s & 1 == 1).collect(),
            played_now: p.played_now,
            known: p.known.clone(),
            declined: p.declined.clone(),
        })
    }

    /// The public side of the hand in play, if this tracker saw it from its deal.
    fn hand_public(&self) -> Result<&TablePublic, Error> {
        if !self.public.from_deal {
            return Err(Error::Strategy(
                "the hand was not followed from its deal (a tracker from a snapshot)".into(),
            ));
        }
        Ok(&self.public)
    }

    /// Gin-7 and rummy: folds `kind` into the hand's public side (before the piles move).
    fn feed_public(&mut self, kind: &K) -> Result<(), Error> {
        let gin7 = self.kind == "gin-7";
        if !gin7 && self.kind != "rummy" {
            return Ok(());
        }
        let card = |c: &str| convert::card(c).map_err(Error::from);
        let pile: &[Card] = self.piles.get(self.table).map_or(&[], Vec::as_slice);
        let p = &mut self.public;
        // A seat's hand grows or shrinks by `by` cards.
        let len = |p: &mut TablePublic, seat: u32, by: i64| match p.hand_lens.get_mut(seat as usize) {
            Some(l) => {
                *l = (i64::from(*l) + by).max(0) as u32;
                Ok(())
            }
            None => Err(Error::Protocol(format!("no seat {seat} at the table"))),
        };
        match kind {
            K::HandDealt(d) => {
                let n = d.seats.iter().max().map_or(0, |&m| m as usize + 1);
                let each = (52u32.saturating_sub(d.stock_size + 1)) / (d.seats.len().max(1) as u32);
                let upcard = card(&d.upcard)?;
                *p = TablePublic {
                    dealer: d.dealer as u8,
                    hand_lens: vec![each; n],
                    known: vec![CardSet::EMPTY; n],
                    declined: vec![CardSet::EMPTY; n],
                    faced: CardSet::single(upcard),
                    from_deal: true,
                    ..TablePublic::default()
                };
            }
            K::CardDrawn(d) => {
                len(p, d.seat, 1)?;
                p.draws += 1;
                p.taken = None;
                if d.source == pb::DrawSource::Pile as i32 {
                    let top = match pile.last() {
                        Some(&c) => c,
                        None => card(&d.card)?,
                    };
                    p.taken = Some(top);
                    if let Some(k) = p.known.get_mut(d.seat as usize) {
                        k.insert(top);
                    }
                } else if let (Some(&top), Some(k)) = (pile.last(), p.declined.get_mut(d.seat as usize)) {
                    k.insert(top);
                }
            }
            K::CardDiscarded(d) => {
                let c = card(&d.card)?;
                len(p, d.seat, -1)?;
                if let Some(k) = p.known.get_mut(d.seat as usize) {
                    k.remove(c);
                }
                if let Some(k) = p.declined.get_mut(d.seat as usize) {
                    k.insert(c);
                }
                p.faced.insert(c);
                p.taken = None;
                p.discards += 1;
                p.played_before |= (p.played_now as u8) << (d.seat & 7);
                p.played_now = false;
            }
            K::PileTurned(t) => {
                p.pile_turns = t.turn;
                let left = cards_in_order(&t.pile)?;
                let turned: CardSet = pile.iter().copied().filter(|c| !left.contains(c)).collect();
                p.faced = p.faced - turned;
            }
            K::MeldLaid(m) => {
                let cards = convert::cards(&m.meld.as_ref().map(|m| m.cards.clone()).unwrap_or_default())?;
                len(p, m.seat, -i64::from(cards.len()))?;
                if let Some(k) = p.known.get_mut(m.seat as usize) {
                    *k = *k - cards;
                }
                p.table.push(engine::rummy::TableMeld { cards, by: m.seat as u8, layoffs: Vec::new() });
                p.played_now = true;
            }
            K::CardLaidOff(l) => {
                let c = card(&l.card)?;
                len(p, l.seat, -1)?;
                if let Some(k) = p.known.get_mut(l.seat as usize) {
                    k.remove(c);
                }
                if let Some(m) = p.table.get_mut(l.meld as usize) {
                    m.cards.insert(c);
                    m.layoffs.push((l.seat as u8, c));
                }
                p.played_now = true;
            }
            _ => {}
        }
        Ok(())
    }

    /// Three players, teams: the seat's memory of its hand in play, as a two-player seat's
    /// (this seat `S0`, its opponent `S1`), fed from the hand's deal on.
    pub fn gin_memory(&self) -> Option<&Memory> {
        self.gin.as_ref().map(|g| &g.memory)
    }

    /// Three players, teams: the two-player [`Decision`] of this seat's `turn` (this seat
    /// `S0`, its opponent `S1`), for any two-player [`Strategy`]; `None` at other tables,
    /// before the rules are known ([`TableTracker::set_format`]) or the hand is dealt.
    pub fn gin_decision<'a>(&'a self, turn: &pb::TurnInfo) -> Option<Decision<'a>> {
        let (g, rules) = (self.gin.as_ref()?, self.rules.as_ref()?);
        let legal = convert::legal(Seat::S0, &turn.legal_actions).ok()?;
        let me = u32::from(self.seat);
        let opponent = self.seats_at.get(self.table)?.iter().copied().find(|&s| s != me)?;
        let total =
            |s: u32| self.totals.get(s as usize).map_or(0, |&t| t.clamp(0, i64::from(u32::MAX)) as u32);
        Some(Decision {
            seat: Seat::S0,
            rules,
            hand: self.hand,
            pile: self.piles.get(self.table).map_or(&[], Vec::as_slice),
            stock_len: self.stock,
            taken: g.taken,
            knock_limit: g.knock_limit,
            legal,
            scores: BySeat::new(total(me), total(opponent)),
            memory: &g.memory,
        })
    }

    /// Feeds the memory of a two-player hand (three players, teams) what this seat saw.
    fn feed_gin(&mut self, kind: &K) -> Result<(), Error> {
        if !two_player_hands(&self.kind) {
            return Ok(());
        }
        let me = u32::from(self.seat);
        let card = |c: &str| convert::card(c).map_err(Error::from);
        if let K::HandDealt(d) = kind {
            if d.seats.contains(&me) {
                let Some(&opponent) = d.seats.iter().find(|&&s| s != me) else {
                    return Err(Error::Protocol(format!("a hand of two dealt to seats {:?}", d.seats)));
                };
                let mut memory = Memory::new(Seat::S0);
                memory.new_hand(d.hand_number, convert::cards(&d.your_hand)?, card(&d.upcard)?);
                memory.opp_showdowns = self.showdowns_of(opponent).to_vec();
                self.gin = Some(GinHand { memory, opponent, knock_limit: d.knock_limit, taken: None });
            }
            return Ok(());
        }
        if let K::TableHandEnded(pb::TableHandEnded { result: Some(r) }) = kind {
            if let (Some(g), Some(by)) = (&self.gin, r.by)
                && r.seats.contains(&me)
                && r.seats.contains(&g.opponent)
            {
                let (opponent, limit) = (g.opponent, g.knock_limit);
                let outcome = |s: u32| {
                    r.outcomes.iter().find(|o| o.seat == s).ok_or_else(|| {
                        Error::Protocol(format!("hand {}: no outcome for seat {s}", r.hand_number))
                    })
                };
                // The defender's ten cards as it held them: its melds, lay-offs and deadwood.
                let defender = outcome(if by == me { opponent } else { me })?;
                let mut defender_hand =
                    convert::cards(&defender.layoffs)? | convert::cards(&defender.deadwood)?;
                for m in &defender.melds {
                    defender_hand |= convert::cards(&m.cards)?;
                }
                let shown = Shown {
                    knocker: if by == me { Seat::S0 } else { Seat::S1 },
                    knocker_deadwood: outcome(by)?.deadwood_value,
                    defender_hand,
                };
                let Some(shown) = OppShowdown::of(&shown, Seat::S0, limit) else { return Ok(()) };
                match self.showdowns.iter_mut().find(|(s, _)| *s == opponent) {
                    Some((_, list)) => list.push(shown),
                    None => self.showdowns.push((opponent, vec![shown])),
                }
            }
            return Ok(());
        }
        let at_mine = self.seats_at.get(self.table).cloned().unwrap_or_default();
        let Some(g) = self.gin.as_mut() else { return Ok(()) };
        let who = |s: u32| if s == me { Seat::S0 } else { Seat::S1 };
        let seen = match kind {
            K::UpcardPassed(p) if at_mine.contains(&p.seat) => {
                g.memory.pile_top().map(|card| Seen::Passed { seat: who(p.seat), card })
            }
            K::CardDrawn(d) if at_mine.contains(&d.seat) => {
                if d.source == pb::DrawSource::Pile as i32 {
                    let top = match g.memory.pile_top() {
                        Some(c) => c,
                        None => card(&d.card)?,
                    };
                    if d.seat == me {
                        g.taken = Some(top);
                    }
                    Some(Seen::DrewPile { seat: who(d.seat), card: top })
                } else {
                    if d.seat == me {
                        g.taken = None;
                    }
                    let c = if d.seat == me { Some(card(&d.card)?) } else { None };
                    Some(Seen::DrewStock { seat: who(d.seat), card: c })
                }
            }
            K::CardDiscarded(d) if at_mine.contains(&d.seat) => {
                if d.seat == me {
                    g.taken = None;
                }
                Some(Seen::Discarded { seat: who(d.seat), card: card(&d.card)? })
            }
            _ => None,
        };
        if let Some(seen) = seen {
            g.memory.observe(seen);
        }
        Ok(())
    }

    /// Three players, teams: what the showdowns of this seat's hands against `opponent` (a
    /// seat) showed of it, oldest first (none before the first; only those this tracker saw:
    /// one started from a snapshot knows none of the hands before it).
    pub fn showdowns_of(&self, opponent: u32) -> &[OppShowdown] {
        self.showdowns.iter().find(|(s, _)| *s == opponent).map_or(&[], |(_, list)| list)
    }

    /// Rummy: the cards each seat was left with (by seat) at the end of the last hand this
    /// tracker saw end, and how many hands had ended with it ([`TableTracker::hands_ended`]).
    pub fn last_rummy_showdown(&self) -> Option<(u32, &[CardSet])> {
        self.rummy_left.as_ref().map(|(at, left)| (*at, left.as_slice()))
    }

    /// The seq of the last event applied.
    pub fn last_seq(&self) -> u64 {
        self.last_seq
    }

    /// The seat's cards.
    pub fn hand(&self) -> CardSet {
        self.hand
    }

    /// The format's kind (`gin`, `three-player`, `teams`, `gin-7`, `rummy`).
    pub fn kind(&self) -> &str {
        &self.kind
    }

    /// Cards left in the stock of the seat's table, as the last event said.
    pub fn stock_len(&self) -> u32 {
        self.stock
    }

    /// The top of the seat's table's discard pile, if known.
    pub fn pile_top(&self) -> Option<Card> {
        self.piles.get(self.table).and_then(|p| p.last().copied())
    }

    /// Rummy: the melds on the table, by index.
    pub fn melds(&self) -> &[CardSet] {
        &self.melds
    }

    /// Hands finished so far.
    pub fn hands_ended(&self) -> u32 {
        self.hands_ended
    }

    /// The running totals per seat after the last finished hand (team play: the seat's
    /// team's).
    pub fn totals(&self) -> &[i64] {
        &self.totals
    }

    /// The result, once the game is over.
    pub fn result(&self) -> Option<&pb::GameResult> {
        self.result.as_ref()
    }

    /// The seat's pending turn: the seq to send with its move, and the legal moves.
    pub fn turn(&self) -> Option<(u64, &pb::TurnInfo)> {
        self.turn.as_ref().map(|(seq, t)| (*seq, t))
    }

    /// Applies the next event (an event at or before the last one is ignored: a resume).
    pub fn apply(&mut self, ev: &pb::GameEvent) -> Result<(), Error> {
        if ev.seq <= self.last_seq {
            return Ok(());
        }
        if ev.seq != self.last_seq + 1 {
            return Err(Error::Protocol(format!("event {} after {}: a gap", ev.seq, self.last_seq)));
        }
        self.last_seq = ev.seq;
        if let Some(k) = &ev.kind {
            self.feed_gin(k)?;
            self.feed_public(k)?;
        }
        let me = u32::from(self.seat);
        let card = |c: &str| convert::card(c).map_err(Error::from);
        match ev.kind.as_ref() {
            Some(K::TurnStarted(t)) => {
                if t.seat == me {
                    self.turn = t.turn.clone().map(|info| (ev.seq, info));
                }
                return Ok(());
            }
            Some(K::HandDealt(d)) => {
                let table = d.table as usize;
                if self.piles.len() <= table {
                    self.piles.resize(table + 1, Vec::new());
                }
                self.piles[table] = vec![card(&d.upcard)?];
                if self.seats_at.len() <= table {
                    self.seats_at.resize(table + 1, Vec::new());
                }
                self.seats_at[table] = d.seats.clone();
                if d.seats.is_empty() || d.seats.contains(&me) {
                    self.stock = d.stock_size;
                    self.hand = convert::cards(&d.your_hand)?;
                    self.table = table;
                    self.melds.clear();
                }
            }
            Some(K::CardDrawn(d)) => {
                let table = self.table_of(d.seat);
                if table == self.table {
                    self.stock = d.stock_size;
                }
                if d.source == pb::DrawSource::Pile as i32 {
                    let top = self.piles.get_mut(table).and_then(Vec::pop);
                    if d.seat == me {
                        self.hand.insert(top.map_or_else(|| card(&d.card), Ok)?);
                    }
                } else if d.seat == me {
                    self.hand.insert(card(&d.card)?);
                }
            }
            Some(K::CardDiscarded(d)) => {
                let c = card(&d.card)?;
                if d.seat == me && !self.hand.remove(c) {
                    return Err(Error::Protocol(format!("this seat discarded {c}, which it does not hold")));
                }
                let table = self.table_of(d.seat);
                if let Some(p) = self.piles.get_mut(table) {
                    p.push(c);
                }
            }
            Some(K::PileTurned(p)) => {
                let table = self.table_of(p.seat);
                if table == self.table {
                    self.stock = p.stock_size;
                }
                if let Some(pile) = self.piles.get_mut(table) {
                    *pile = cards_in_order(&p.pile)?;
                }
            }
            Some(K::MeldLaid(m)) => {
                let cards = convert::cards(&m.meld.as_ref().map(|m| m.cards.clone()).unwrap_or_default())?;
                if m.seat == me {
                    self.hand = self.hand - cards;
                }
                self.melds.push(cards);
            }
            Some(K::CardLaidOff(l)) => {
                let c = card(&l.card)?;
                if l.seat == me {
                    self.hand.remove(c);
                }
                if let Some(m) = self.melds.get_mut(l.meld as usize) {
                    m.insert(c);
                }
            }
            Some(K::HandEnded(h)) => {
                self.hands_ended += 1;
                if let Some(r) = &h.result {
                    self.totals = r.scores.iter().map(|&x| i64::from(x)).collect();
                }
            }
            Some(K::TableHandEnded(h)) => {
                // Rummy: the cards each seat was left with, read (and checked) first.
                let left = match &h.result {
                    Some(r) if self.kind == "rummy" && !r.outcomes.is_empty() => Some(rummy_left(r)?),
                    _ => None,
                };
                self.hands_ended += 1;
                if let Some(r) = &h.result {
                    self.totals = r.totals.clone();
                }
                if let Some(left) = left {
                    self.rummy_left = Some((self.hands_ended, left));
                }
            }
            Some(K::GameOver(g)) => self.result = g.result.clone(),
            Some(K::PlayerJoined(_) | K::PlayerLeft(_) | K::ClockExpired(_) | K::UpcardPassed(_)) => {}
            None => return Err(Error::Protocol("an event with no kind".into())),
        }
        // The seat's own move, a deal or a hand's end at its table, or the game's end, ends
        // its pending turn (the server sends the next one). In team play the other table's
        // deals and ends are not this seat's.
        let at_mine = |seats: &[u32]| seats.is_empty() || seats.contains(&me);
        if matches!(ev.kind, Some(K::CardDrawn(ref d)) if d.seat == me)
            || matches!(ev.kind, Some(K::CardDiscarded(ref d)) if d.seat == me)
            || matches!(ev.kind, Some(K::MeldLaid(ref d)) if d.seat == me)
            || matches!(ev.kind, Some(K::CardLaidOff(ref d)) if d.seat == me)
            || matches!(ev.kind, Some(K::UpcardPassed(ref d)) if d.seat == me)
            || matches!(ev.kind, Some(K::HandDealt(ref d)) if at_mine(&d.seats))
            || matches!(ev.kind, Some(K::TableHandEnded(ref h)) if h.result.as_ref().is_none_or(|r| at_mine(&r.seats)))
            || matches!(ev.kind, Some(K::GameOver(_) | K::HandEnded(_)))
        {
            self.turn = None;
        }
        Ok(())
    }

    /// The table `seat` plays at (team play has two).
    fn table_of(&self, seat: u32) -> usize {
        self.seats_at.iter().position(|s| s.contains(&seat)).unwrap_or(self.table)
    }
}

/// Whether `turn` is the draw part of a turn (its legal moves draw).
/// The cards each seat of a rummy hand's result `r` was left with, by seat (at most six).
fn rummy_left(r: &pb::TableHandResult) -> Result<Vec<CardSet>, Error> {
    let n = r.outcomes.iter().map(|o| o.seat as usize + 1).max().unwrap_or(0);
    if n > 6 {
        return Err(Error::Protocol(format!(
            "hand {}: an outcome for seat {} at rummy",
            r.hand_number,
            n - 1
        )));
    }
    let mut left = vec![CardSet::EMPTY; n];
    for o in &r.outcomes {
        left[o.seat as usize] = convert::cards(&o.deadwood)?;
    }
    Ok(left)
}

fn draws(turn: &pb::TurnInfo) -> bool {
    use pb::ActionKind as A;
    turn.legal_actions.iter().any(|a| a.kind == A::DrawStock as i32 || a.kind == A::DrawPile as i32)
}

fn cards_in_order(v: &[String]) -> Result<Vec<Card>, Error> {
    v.iter().map(|c| convert::card(c).map_err(Error::from)).collect()
}

/// A strategy for a table of any format: picks one of the legal moves the server sent with
/// the seat's turn, from the seat's view.
pub trait TableStrategy: Send {
    /// Its name.
    fn name(&self) -> &str;
    /// One of `turn.legal_actions` (anything else is replaced by the first legal move).
    fn act(&mut self, view: &TableTracker, turn: &pb::TurnInfo) -> pb::LegalAction;
    /// What its search did so far, for a strategy that searches (`strong` at gin-7 and
    /// rummy); `None` for the others.
    fn search_stats(&self) -> Option<gin_strategies::table_strong::SearchStats> {
        None
    }
}

/// The table strategies: `random` (any legal move) and `simple` (the classic baseline, as
/// the house plays it: lay the meld worth most and every lay-off it can, knock as soon as it
/// may, take the pile's top only when it lowers the deadwood (rummy: when it melds with two
/// cards of the hand or lays off), discard to the least deadwood (rummy: the highest card
/// that neither pairs nor sits near one of its suit)) at every table; `strong` at every
/// table too: where every hand is a two-player hand (three players, teams) the two-player
/// `strong` from the tracker's memory of the hand ([`TableTracker::gin_decision`]), at gin-7
/// and rummy the house's table search ([`gin_strategies::table_strong`]) on a hand rebuilt
/// from the seat's view ([`TableTracker::gin7_view`], [`TableTracker::rummy_view`]).
/// The other two-player strategies (`strong-v1`, `strong-v2` and the styles: see
/// [`gin_strategies::STRATEGIES`]) play three players and teams only (they model one
/// opponent); [`table_strategy_for`] refuses them at gin-7 and rummy.
pub const TABLE_STRATEGIES: [&str; 8] = gin_strategies::STRATEGIES;

/// The table strategies that play gin-7 and rummy.
pub const GIN7_RUMMY_STRATEGIES: [&str; 3] = ["random", "simple", "strong"];

/// The table strategy `name` for a game of format kind `kind` (as [`pb::FormatInfo`] names
/// it): [`table_strategy`], but at gin-7 and rummy only [`GIN7_RUMMY_STRATEGIES`].
pub fn table_strategy_for(name: &str, kind: &str, seed: u64) -> Result<Box<dyn TableStrategy>, Error> {
    if !GIN7_RUMMY_STRATEGIES.contains(&name) && !two_player_hands(kind) && TABLE_STRATEGIES.contains(&name) {
        return Err(Error::Strategy(format!(
            "the table strategy {name} plays three-player and teams only, not {kind}: {} there",
            GIN7_RUMMY_STRATEGIES.join(", ")
        )));
    }
    table_strategy(name, seed)
}

/// The table strategy `name`, its choices seeded by `seed`.
pub fn table_strategy(name: &str, seed: u64) -> Result<Box<dyn TableStrategy>, Error> {
    match name {
        "random" => Ok(Box::new(RandomTable { state: seed })),
        "simple" => Ok(Box::new(SimpleTable)),
        "strong" => Ok(Box::new(StrongTable {
            two: TwoPlayerTable(gin_strategies::by_name("strong", seed).map_err(|e| Error::Strategy(e.0))?),
            search: gin_strategies::table_strong::TableStrong::new(seed),
            read: None,
        })),
        _ => match gin_strategies::by_name(name, seed) {
            Ok(s) => Ok(Box::new(TwoPlayerTable(s))),
            Err(_) => Err(Error::Strategy(format!(
                "unknown table strategy {name:?}; the table strategies are {}",
                TABLE_STRATEGIES.join(", ")
            ))),
        },
    }
}

/// Any legal move, uniformly.
struct RandomTable {
    state: u64,
}

impl TableStrategy for RandomTable {
    fn name(&self) -> &str {
        "random"
    }

    fn act(&mut self, _: &TableTracker, turn: &pb::TurnInfo) -> pb::LegalAction {
        // SplitMix64.
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let n = turn.legal_actions.len().max(1) as u64;
        turn.legal_actions.get((z % n) as usize).cloned().unwrap_or_default()
    }
}

/// The classic baseline at any table.
struct SimpleTable;

impl SimpleTable {
    /// Whether taking `top` is worth it: it makes a meld with two cards of the hand, or lays
    /// off onto a meld on the table (rummy).
    fn helps(hand: CardSet, top: Card, table: &[CardSet]) -> bool {
        let meld = |c: CardSet| engine::Meld::new(c).is_ok();
        let melds = hand.iter().any(|a| hand.iter().any(|b| b > a && meld(CardSet::from_iter([a, b, top]))));
        let lays = table.iter().any(|m| meld(m.with(top)));
        melds || lays
    }
}

impl TableStrategy for SimpleTable {
    fn name(&self) -> &str {
        "simple"
    }

    fn act(&mut self, view: &TableTracker, turn: &pb::TurnInfo) -> pb::LegalAction {
        use pb::ActionKind as A;
        let legal = &turn.legal_actions;
        let of = |k: A| legal.iter().filter(move |a| a.kind == k as i32);
        let points = |a: &&pb::LegalAction| {
            a.cards.iter().filter_map(|c| convert::card(c).ok()).map(|c| c.value()).sum::<u32>()
        };
        if let Some(m) = of(A::Meld).max_by_key(points) {
            return m.clone();
        }
        if let Some(l) = of(A::LayOff).next() {
            return l.clone();
        }
        if let Some(b) = of(A::BigGin).next() {
            return b.clone();
        }
        if let Some(k) = of(A::Knock).min_by_key(|a| a.deadwood) {
            return k.clone();
        }
        // Gin kinds: when it lowers the deadwood (after the best discard); rummy: when it melds.
        let take = view.pile_top().is_some_and(|top| {
            if view.kind() == "rummy" {
                Self::helps(view.hand(), top, view.melds())
            } else {
                engine::best_discard(view.hand().with(top))
                    .is_some_and(|b| b.arrangement.deadwood() < engine::deadwood(view.hand()))
            }
        });
        for (kind, wanted) in
            [(A::TakeUpcard, take), (A::PassUpcard, true), (A::DrawPile, take), (A::DrawStock, true)]
        {
            if wanted && let Some(a) = of(kind).next() {
                return a.clone();
            }
        }
        let discards: Vec<&pb::LegalAction> = of(A::Discard).collect();
        if let Some(d) = discards.iter().find(|a| a.card == turn.best_discard) {
            return (*d).clone();
        }
        // Rummy (no best discard): the highest card that neither pairs with another nor
        // sits within two ranks of one of its suit (the house `simple`'s discard), else the
        // highest.
        let hand = view.hand();
        let useful = |c: Card| {
            hand.iter().any(|o| {
                o != c
                    && (o.rank() == c.rank()
                        || (o.suit() == c.suit() && o.rank().index().abs_diff(c.rank().index()) <= 2))
            })
        };
        let key =
            |a: &&&pb::LegalAction| convert::card(&a.card).map_or((false, 0), |c| (!useful(c), c.value()));
        discards
            .iter()
            .max_by_key(key)
            .map(|a| (*a).clone())
            .unwrap_or_else(|| legal.first().cloned().unwrap_or_default())
    }
}

/// A two-player strategy (`strong`, `strong-v1`, the styles) at a table of two-player
/// hands: the strategy on the tracker's decision, its action sent as the legal move it names
/// (the server arranges a knock's melds: a table move names none).
struct TwoPlayerTable(Box<dyn Strategy>);

impl TableStrategy for TwoPlayerTable {
    fn name(&self) -> &str {
        self.0.name()
    }

    fn act(&mut self, view: &TableTracker, turn: &pb::TurnInfo) -> pb::LegalAction {
        let Some(d) = view.gin_decision(turn) else {
            tracing::warn!(
                kind = view.kind(),
                "{}: no two-player decision here; playing simple",
                self.0.name()
            );
            return SimpleTable.act(view, turn);
        };
        let a = self.0.act(&d);
        legal_move(&a, turn).unwrap_or_else(|| {
            tracing::warn!("{}: {a:?} is not among the legal moves; playing simple", self.0.name());
            SimpleTable.act(view, turn)
        })
    }
}

/// `strong` at every table: the two-player `strong` where every hand is a two-player hand,
/// the table search at gin-7 and rummy, on the hand rebuilt from the seat's view. Its move
/// is sent as the legal move it names; none (never expected) or a view that does not add up
/// (a tracker from a snapshot) plays `simple`'s move instead, with a warning.
struct StrongTable {
    two: TwoPlayerTable,
    search: gin_strategies::table_strong::TableStrong,
    /// Rummy: the hands ended at its last search (the next one's showdown is learnt from).
    read: Option<u32>,
}

impl StrongTable {
    /// The search's move at gin-7 or rummy, as one of `turn`'s legal moves.
    fn searched(&mut self, view: &TableTracker, turn: &pb::TurnInfo) -> Result<pb::LegalAction, String> {
        let me = view.seat();
        if view.kind() == "gin-7" {
            let v = view.gin7_view(turn).map_err(|e| e.to_string())?;
            let h = engine::gin7::Gin7Hand::from_view(&v, 0).map_err(|e| e.to_string())?;
            let a = self.search.act_gin7(&h, me);
            legal_move(&a, turn).ok_or_else(|| format!("{a:?} is not among the legal moves"))
        } else {
            let v = view.rummy_view(turn).map_err(|e| e.to_string())?;
            let h = engine::rummy::RummyHand::from_view(&v, 0).map_err(|e| e.to_string())?;
            // The showdown of the hand of its last search, if that is the one that ended.
            if let (Some(read), Some((at, left))) = (self.read, view.last_rummy_showdown())
                && at == read + 1
            {
                self.search.rummy_hand_ended(left);
            }
            self.read = Some(view.hands_ended());
            let a = self.search.act_rummy(&h, me);
            rummy_legal_move(a, turn).ok_or_else(|| format!("{a} is not among the legal moves"))
        }
    }
}

impl TableStrategy for StrongTable {
    fn name(&self) -> &str {
        "strong"
    }

    fn act(&mut self, view: &TableTracker, turn: &pb::TurnInfo) -> pb::LegalAction {
        if view.kind() != "gin-7" && view.kind() != "rummy" {
            return self.two.act(view, turn);
        }
        self.searched(view, turn).unwrap_or_else(|why| {
            tracing::warn!(kind = view.kind(), "strong: {why}; playing simple");
            SimpleTable.act(view, turn)
        })
    }

    fn search_stats(&self) -> Option<gin_strategies::table_strong::SearchStats> {
        Some(self.search.stats())
    }
}

/// The legal move of `turn` that is the rummy move `a`.
fn rummy_legal_move(a: engine::rummy::RummyAction, turn: &pb::TurnInfo) -> Option<pb::LegalAction> {
    use engine::rummy::RummyAction as R;
    use pb::ActionKind as A;
    let card_is = |l: &pb::LegalAction, c: Card| convert::card(&l.card).is_ok_and(|x| x == c);
    turn.legal_actions
        .iter()
        .find(|l| match a {
            R::DrawStock => l.kind == A::DrawStock as i32,
            R::DrawPile => l.kind == A::DrawPile as i32 || l.kind == A::TakeUpcard as i32,
            R::Meld(cards) => l.kind == A::Meld as i32 && convert::cards(&l.cards).is_ok_and(|c| c == cards),
            R::LayOff { card, meld } => {
                l.kind == A::LayOff as i32 && l.meld as usize == meld && card_is(l, card)
            }
            R::Discard(c) => l.kind == A::Discard as i32 && card_is(l, c),
        })
        .cloned()
}

/// The legal move of `turn` that is the two-player action `a`.
fn legal_move(a: &Action, turn: &pb::TurnInfo) -> Option<pb::LegalAction> {
    use pb::ActionKind as A;
    let (kinds, card): (&[A], Option<Card>) = match a {
        Action::Pass => (&[A::PassUpcard], None),
        Action::DrawStock => (&[A::DrawStock], None),
        Action::DrawPile => (&[A::TakeUpcard, A::DrawPile], None),
        Action::Discard { card } => (&[A::Discard], Some(*card)),
        Action::Knock { discard, .. } => (&[A::Knock], Some(*discard)),
        Action::BigGin { .. } => (&[A::BigGin], None),
    };
    turn.legal_actions
        .iter()
        .find(|l| {
            kinds.iter().any(|&k| l.kind == k as i32)
                && card.is_none_or(|c| convert::card(&l.card).is_ok_and(|x| x == c))
        })
        .cloned()
}

/// How a table game ended, for the seat that played it.
#[derive(Clone, Debug)]
pub struct TableOutcome {
    /// The game.
    pub game_id: String,
    /// The format's kind.
    pub kind: String,
    /// The table size.
    pub players: u32,
    /// The seat played.
    pub seat: u8,
    /// The seat's place, 1 for the best (0: the game ended with no places, cancelled).
    pub place: u32,
    /// The final totals per seat.
    pub totals: Vec<i64>,
    /// Hands played.
    pub hands: u32,
    /// Moves this bot sent.
    pub decisions: u32,
    /// Times the event stream was reopened.
    pub resumes: u32,
    /// The server's result as sent.
    pub result: pb::GameResult,
}

impl TableOutcome {
    /// The outcome of the game `tr` followed, ended with `r`.
    fn of(
        game_id: &str,
        kind: String,
        players: u32,
        seat: u8,
        tr: &TableTracker,
        (decisions, resumes): (u32, u32),
        r: pb::GameResult,
    ) -> TableOutcome {
        let totals = if r.table_totals.is_empty() {
            r.totals.iter().map(|&x| i64::from(x)).collect()
        } else {
            r.table_totals.clone()
        };
        let place = match r.places.get(seat as usize) {
            Some(&p) => p,
            // Two-player gin: 1 for the winner (both on equal totals), else 2.
            None if !r.totals.is_empty() => {
                if r.winner.is_none_or(|w| w == u32::from(seat)) {
                    1
                } else {
                    2
                }
            }
            None => 0,
        };
        TableOutcome {
            game_id: game_id.to_string(),
            kind,
            players,
            seat,
            place,
            totals,
            hands: tr.hands_ended(),
            decisions,
            resumes,
            result: r,
        }
    }

    /// Whether the seat won (alone or with others: a tie or a team).
    pub fn won(&self) -> bool {
        self.result.winners.contains(&u32::from(self.seat))
    }

    /// One line for people: `<game> seat 2 at rummy for 4: place 1, totals 61 0 12 0 (target, 3 hands)`.
    pub fn line(&self) -> String {
        let reason = pb::GameEndReason::try_from(self.result.reason).map_or("?", |r| match r {
            pb::GameEndReason::Target => "target",
            pb::GameEndReason::Resigned => "resigned",
            pb::GameEndReason::Forfeit => "forfeit",
            pb::GameEndReason::Cancelled => "cancelled",
            pb::GameEndReason::Abandoned => "abandoned",
            pb::GameEndReason::HandLimit => "hand limit",
            pb::GameEndReason::Unspecified => "?",
        });
        let totals: Vec<String> = self.totals.iter().map(i64::to_string).collect();
        format!(
            "{} seat {} at {} for {}: place {}, totals {} ({reason}, {} hands)",
            gin_proto::text::printable(&self.game_id),
            self.seat,
            self.kind,
            self.players,
            self.place,
            totals.join(" "),
            self.hands
        )
    }
}

impl Client {
    /// Plays the seat of `token` in `game_id` (a table of any format) with `strategy` to
    /// game over. From any point of the game: it starts from the seat's snapshot, then
    /// follows its stream (resumed when it drops); at each of its turns it sends one of the
    /// legal moves with the last seq it saw. A stale move (`ABORTED`: the game moved on)
    /// is decided again once the stream brought what happened.
    pub async fn play_table(
        &self,
        game_id: &str,
        token: &str,
        strategy: &mut dyn TableStrategy,
    ) -> Result<TableOutcome, Error> {
        self.play_table_observed(game_id, token, strategy, &mut |_, _| {}).await
    }

    /// [`play_table`](Self::play_table), calling `on_event` with each new event of the
    /// seat's stream once the tracker has applied it (in seq order, each once), before the
    /// strategy is asked to act on it. The bot bridge passes the events on with it.
    pub async fn play_table_observed(
        &self,
        game_id: &str,
        token: &str,
        strategy: &mut dyn TableStrategy,
        on_event: &mut (dyn FnMut(&pb::GameEvent, &TableTracker) + Send),
    ) -> Result<TableOutcome, Error> {
        let snap = self.get_game(game_id, token).await?;
        let seat = snap.viewer_seat.ok_or(Error::NotSeated)? as u8;
        let (kind, players) = match &snap.format {
            Some(f) => (f.kind.clone(), f.players),
            None => ("gin".to_string(), snap.seats.len() as u32),
        };
        // From the game's first events: the whole of what the seat may know (a snapshot
        // shows only the top of a rummy pile). Seq 1 is the first seat taken: a seated caller
        // means it exists.
        let mut tr = TableTracker::new(seat, &kind);
        if let Some(f) = &snap.format {
            tr.set_format(f)?;
        }
        let mut decisions = 0;
        // The seq a move was last sent at: decide again only once something new arrived.
        let mut sent_at = None;
        let mut waits = None;
        let mut resumes = 0;
        let mut progress = std::time::Instant::now();
        loop {
            // One stream, kept open: each event is applied, then this seat's turn (if any)
            // is played inline, as `Client::play` does.
            let mut stream = self.watch(game_id, token, tr.last_seq()).await?;
            let ended = loop {
                if let Some(r) = tr.result().cloned() {
                    return Ok(TableOutcome::of(game_id, kind, players, seat, &tr, (decisions, resumes), r));
                }
                if let Some((_, turn)) = tr.turn()
                    && sent_at != Some(tr.last_seq())
                {
                    let mut a = strategy.act(&tr, turn);
                    if !turn.legal_actions.contains(&a) {
                        tracing::warn!(
                            game = game_id,
                            strategy = strategy.name(),
                            "illegal move {a:?}; playing the first legal one"
                        );
                        a = turn.legal_actions.first().cloned().unwrap_or_default();
                    }
                    sent_at = Some(tr.last_seq());
                    decisions += 1;
                    match self.send_legal(game_id, token, tr.last_seq(), &a).await {
                        Ok(()) => {}
                        // Stale: the stream brings what happened, then this seat decides again.
                        Err(Error::Rpc { status, .. }) if status.code() == Code::Aborted => {
                            tracing::debug!(game = game_id, "stale move ({}); resyncing", status.message());
                        }
                        Err(e) => return Err(e),
                    }
                }
                let ev = match self.next_event(&mut stream).await {
                    Ok(ev) => ev,
                    Err(why) => break why,
                };
                let before = tr.last_seq();
                tr.apply(&ev)?;
                if tr.last_seq() != before {
                    on_event(&ev, &tr);
                }
                waits = None;
                progress = std::time::Instant::now();
            };
            self.before_resume(game_id, tr.last_seq(), ended, progress, &mut waits).await?;
            resumes += 1;
        }
    }

    /// Sends one legal move of any format (retrying transient failures: a repeat is refused
    /// as stale, never applied twice).
    pub async fn send_legal(
        &self,
        game_id: &str,
        token: &str,
        expected: u64,
        a: &pb::LegalAction,
    ) -> Result<(), Error> {
        use pb::ActionKind as A;
        let g = || game_id.to_string();
        let t = self.opts.call_timeout;
        let kind = A::try_from(a.kind).unwrap_or(A::Unspecified);
        match kind {
            A::Meld => {
                self.retry("LayMeld", t, transient, || {
                    let mut c = self.games();
                    let req = authed(
                        pb::LayMeldRequest { game_id: g(), expected_seq: expected, cards: a.cards.clone() },
                        token,
                    );
                    async move { c.lay_meld(req).await.map(|_| ()) }
                })
                .await
            }
            A::LayOff => {
                self.retry("LayOff", t, transient, || {
                    let mut c = self.games();
                    let req = authed(
                        pb::LayOffRequest {
                            game_id: g(),
                            expected_seq: expected,
                            card: a.card.clone(),
                            meld: a.meld,
                        },
                        token,
                    );
                    async move { c.lay_off(req).await.map(|_| ()) }
                })
                .await
            }
            A::Unspecified => Err(Error::Protocol(format!("a legal move of no known kind: {}", a.kind))),
            _ => {
                let card = |c: &str| convert::card(c).map_err(Error::from);
                let action = match kind {
                    A::PassUpcard => engine::Action::Pass,
                    A::TakeUpcard | A::DrawPile => engine::Action::DrawPile,
                    A::DrawStock => engine::Action::DrawStock,
                    A::Discard => engine::Action::Discard { card: card(&a.card)? },
                    A::Knock => engine::Action::knock(card(&a.card)?),
                    _ => engine::Action::BigGin { melds: None },
                };
                self.send(game_id, token, expected, &action, kind == A::TakeUpcard).await
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(seq: u64, kind: K) -> pb::GameEvent {
        pb::GameEvent { seq, time_unix_ms: 0, kind: Some(kind) }
    }

    /// One seat's stream of a local engine table, built as the server builds it
    /// (`server/src/game/state.rs`: `play_move`, `event_for`), fed to a tracker.
    struct Feed {
        tr: TableTracker,
        seq: u64,
    }

    impl Feed {
        fn send(&mut self, kind: K) {
            self.seq += 1;
            self.tr.apply(&ev(self.seq, kind)).unwrap();
        }

        /// The deal of the hand in play.
        fn deal(&mut self, t: &engine::Table) {
            let me = self.tr.seat();
            let v = t.view(me);
            let part = &v.tables()[0];
            self.send(K::HandDealt(pb::HandDealt {
                hand_number: v.hand_number(),
                dealer: u32::from(part.dealer),
                upcard: part.pile[0].notation().to_owned(),
                your_hand: convert::cards_to_pb(v.cards().unwrap()),
                stock_size: part.stock_len,
                seats: part.seats.iter().map(|&s| u32::from(s)).collect(),
                ..Default::default()
            }));
        }
    }

    /// The legal moves of `seat` at `t` as the server sends them.
    fn legal_pb(t: &engine::Table, seat: u8) -> Vec<pb::LegalAction> {
        use engine::Move as M;
        use pb::ActionKind as A;
        let held = t.view(seat).cards().unwrap();
        t.legal(seat)
            .iter()
            .map(|m| {
                let (kind, card, cards, meld) = match m {
                    M::DrawStock => (A::DrawStock, None, CardSet::EMPTY, 0),
                    M::DrawPile => (A::DrawPile, None, CardSet::EMPTY, 0),
                    M::Discard { card } => (A::Discard, Some(*card), CardSet::EMPTY, 0),
                    M::Knock { discard, .. } => (A::Knock, Some(*discard), CardSet::EMPTY, 0),
                    M::Meld { cards } => (A::Meld, None, *cards, 0),
                    M::LayOff { card, meld } => (A::LayOff, Some(*card), CardSet::EMPTY, *meld as u32),
                    other => panic!("{other:?} at gin-7 or rummy"),
                };
                pb::LegalAction {
                    kind: kind as i32,
                    card: card.map(|c| c.notation().to_owned()).unwrap_or_default(),
                    deadwood: if kind == A::Knock {
                        engine::deadwood(held.without(card.unwrap()))
                    } else {
                        0
                    },
                    cards: if cards.is_empty() { Vec::new() } else { convert::cards_to_pb(cards) },
                    meld,
                }
            })
            .collect()
    }

    /// The move a legal action names.
    fn to_move(a: &pb::LegalAction) -> engine::Move {
        use engine::Move as M;
        use pb::ActionKind as A;
        let card = || convert::card(&a.card).unwrap();
        match A::try_from(a.kind).unwrap() {
            A::DrawStock => M::DrawStock,
            A::DrawPile => M::DrawPile,
            A::Discard => M::Discard { card: card() },
            A::Knock => M::Knock { discard: card(), melds: None },
            A::Meld => M::Meld { cards: convert::cards(&a.cards).unwrap() },
            A::LayOff => M::LayOff { card: card(), meld: a.meld as usize },
            k => panic!("{k:?} at gin-7 or rummy"),
        }
    }

    /// Plays a local game of `format` with the SDK's `strong` at seat `me`, fed the seat's
    /// events as the server sends them, and the house `simple` at the others. At each of its
    /// turns the tracker's view is the engine's view of the seat, the search decides, and its
    /// move is legal. Returns its decisions and the hands played.
    fn local_game(format: &engine::Format, seed: u64, me: u8) -> (u32, u32) {
        use engine::{Table, TableEvent as E, TableSetup};
        let n = format.players();
        let kind = format.kind().name();
        let mut t = Table::new(TableSetup::new(format.clone(), seed)).unwrap();
        let mut f = Feed { tr: TableTracker::new(me, kind), seq: 1 };
        let info = pb::FormatInfo {
            kind: kind.into(),
            players: u32::from(n),
            name: format.name(),
            document_json: format.to_value().to_string(),
        };
        f.tr.set_format(&info).unwrap();
        let mut strong = table_strategy_for("strong", kind, seed).unwrap();
        let mut others: Vec<gin_strategies::tables::TableBot> = (0..n)
            .map(|s| {
                gin_strategies::tables::TableBot::new("simple", format.kind(), seed + u64::from(s)).unwrap()
            })
            .collect();
        f.deal(&t);
        let (mut decisions, mut hands, mut showdowns) = (0, 0, 0);
        while let Some(seat) = t.first_to_act() {
            let m = if seat == me {
                let turn = pb::TurnInfo { legal_actions: legal_pb(&t, me), ..Default::default() };
                f.send(K::TurnStarted(pb::TurnStarted {
                    seat: u32::from(me),
                    turn: Some(turn),
                    ..Default::default()
                }));
                let turn = f.tr.turn().unwrap().1.clone();
                match &t {
                    Table::Gin7(g) => {
                        assert_eq!(f.tr.gin7_view(&turn).unwrap(), g.hand().view_of(me), "seed {seed}")
                    }
                    Table::Rummy(g) => {
                        assert_eq!(f.tr.rummy_view(&turn).unwrap(), g.hand().view_of(me), "seed {seed}")
                    }
                    _ => unreachable!(),
                }
                let a = strong.act(&f.tr, &turn);
                assert!(turn.legal_actions.contains(&a), "{kind} seed {seed}: {a:?} is not legal");
                decisions += 1;
                to_move(&a)
            } else {
                others[seat as usize].act(&t, seat)
            };
            // Rummy turns the pile into the stock at a draw from an empty stock.
            let empty = matches!(&t, Table::Rummy(g) if g.hand().stock_len() == 0);
            let step =
                t.apply(seat, &m).unwrap_or_else(|e| panic!("{kind} seed {seed}: seat {seat} {m}: {e}"));
            let stock = t.spectator_view().tables()[0].stock_len;
            let pile_top = || t.spectator_view().tables()[0].pile.last().map(|c| c.notation().to_owned());
            match step.event.seen_by(Some(me)) {
                E::Drew { seat, from_stock, card } => {
                    if from_stock && empty {
                        let turn = f.tr.public.pile_turns + 1;
                        let pile = pile_top().into_iter().collect();
                        f.send(K::PileTurned(pb::PileTurned {
                            seat: u32::from(seat),
                            turn,
                            stock_size: stock + 1,
                            pile,
                        }));
                    }
                    let source = if from_stock { pb::DrawSource::Stock } else { pb::DrawSource::Pile };
                    f.send(K::CardDrawn(pb::CardDrawn {
                        seat: u32::from(seat),
                        source: source as i32,
                        card: card.map(|c| c.notation().to_owned()).unwrap_or_default(),
                        stock_size: stock,
                    }));
                }
                E::Discarded { seat, card } | E::DeadHand { seat, card } | E::TurnLimit { seat, card } => {
                    f.send(K::CardDiscarded(pb::CardDiscarded {
                        seat: u32::from(seat),
                        card: card.notation().to_owned(),
                    }));
                }
                E::PileTurned { seat, card, turn } => {
                    let card = card.notation().to_owned();
                    f.send(K::CardDiscarded(pb::CardDiscarded { seat: u32::from(seat), card: card.clone() }));
                    f.send(K::PileTurned(pb::PileTurned {
                        seat: u32::from(seat),
                        turn,
                        stock_size: stock,
                        pile: vec![card],
                    }));
                }
                E::Melded { seat, cards } => {
                    // (Its index on the table: the hand may be over, the table the next hand's.)
                    let index = f.tr.public.table.len() as u32;
                    let meld = pb::TableMeld {
                        index,
                        seat: u32::from(seat),
                        cards: convert::cards_to_pb(cards),
                        layoffs: vec![],
                    };
                    f.send(K::MeldLaid(pb::MeldLaid { seat: u32::from(seat), meld: Some(meld) }));
                }
                E::LaidOff { seat, card, meld } => f.send(K::CardLaidOff(pb::CardLaidOff {
                    seat: u32::from(seat),
                    card: card.notation().to_owned(),
                    meld: meld as u32,
                })),
                E::Knocked { .. } => {}
                e => panic!("{e:?} at gin-7 or rummy"),
            }
            if step.hand_over {
                hands += 1;
                let seats = (0..u32::from(n)).collect();
                // Rummy: the cards each seat was left with, as the server shows them.
                let left = match &t {
                    Table::Rummy(g) => g.results().last().unwrap().left.clone(),
                    _ => Vec::new(),
                };
                let outcomes = (0..n)
                    .filter(|_| !left.is_empty())
                    .map(|s| pb::SeatOutcome {
                        seat: u32::from(s),
                        deadwood: convert::cards_to_pb(left[s as usize]),
                        ..Default::default()
                    })
                    .collect();
                let result = pb::TableHandResult { seats, outcomes, ..Default::default() };
                f.send(K::TableHandEnded(pb::TableHandEnded { result: Some(result) }));
                if !left.is_empty() {
                    assert_eq!(f.tr.last_rummy_showdown(), Some((f.tr.hands_ended(), &left[..])));
                    // A showdown shows something when another seat is left with cards.
                    showdowns += u64::from((0..n).any(|s| s != me && !left[s as usize].is_empty()));
                }
                if !step.game_over {
                    f.deal(&t);
                }
            }
        }
        // Every decision was the search's (a view refused would have played `simple`).
        let stats = strong.search_stats().unwrap();
        assert_eq!(stats.decisions, u64::from(decisions), "{kind} seed {seed}");
        // Rummy: it learnt from the showdown of every hand that ended after one of its
        // decisions with another seat's cards left (all but those that ended before its
        // first turn; none at gin-7).
        assert!(
            stats.showdowns <= showdowns && stats.showdowns * 10 >= showdowns * 8,
            "{kind} seed {seed}: {} of {showdowns} showdowns",
            stats.showdowns
        );
        (decisions, hands)
    }

    /// `strong` over the SDK (the tracker's view of the seat, rebuilt as a hand and
    /// searched) plays hundreds of local gin-7 and rummy hands at every table size with no
    /// illegal move, its view the engine's at every turn.
    #[test]
    fn strong_plays_gin7_and_rummy_from_the_trackers_view_with_no_illegal_move() {
        let mut formats = Vec::new();
        for n in 3..=6 {
            let end = engine::gin7::Gin7End::Hands(12);
            let r = engine::gin7::Gin7Rules { end, ..engine::gin7::Gin7Rules::for_players(n).unwrap() };
            formats.push(engine::Format::Gin7(r));
        }
        for n in 2..=6 {
            let end = engine::rummy::RummyEnd::Hands(12);
            formats.push(engine::Format::Rummy(engine::rummy::RummyRules {
                end,
                ..engine::rummy::RummyRules::for_players(n).unwrap()
            }));
        }
        let (mut decisions, mut hands) = (0, 0);
        for (i, format) in formats.iter().enumerate() {
            for g in 0..3u64 {
                let (d, h) = local_game(format, 100 * i as u64 + g, (g % u64::from(format.players())) as u8);
                decisions += d;
                hands += h;
            }
        }
        assert!(hands >= 300 && decisions > 3000, "{hands} hands, {decisions} decisions");
    }

    /// A tracker from a snapshot did not see the hand from its deal: it gives no view for
    /// the search (a clear error), and `strong` plays `simple`'s legal move instead; from
    /// the next deal on it has one.
    #[test]
    fn a_tracker_from_a_snapshot_gives_a_view_from_the_next_deal_on() {
        let format = engine::Format::preset("gin-7").unwrap();
        let info = pb::FormatInfo {
            kind: "gin-7".into(),
            players: 4,
            name: format.name(),
            document_json: format.to_value().to_string(),
        };
        let draw = pb::LegalAction { kind: pb::ActionKind::DrawStock as i32, ..Default::default() };
        let turn = pb::TurnInfo { legal_actions: vec![draw.clone()], ..Default::default() };
        let snap = pb::GameSnapshot {
            seq: 30,
            viewer_seat: Some(1),
            format: Some(info.clone()),
            hand: "2C 3C 4C 9D TD KS QH".split(' ').map(String::from).collect(),
            turn: Some(turn.clone()),
            tables: vec![pb::TableInPlay {
                seats: vec![0, 1, 2, 3],
                pile: vec!["5H".into()],
                stock_size: 20,
                ..Default::default()
            }],
            ..Default::default()
        };
        let mut t = TableTracker::from_snapshot(1, &snap).unwrap();
        assert!(t.gin7_view(&turn).unwrap_err().to_string().contains("no gin-7 rules"));
        t.set_format(&info).unwrap();
        assert!(t.gin7_view(&turn).unwrap_err().to_string().contains("not followed from its deal"));
        assert!(t.rummy_view(&turn).is_err(), "not rummy");
        let mut strong = table_strategy("strong", 1).unwrap();
        assert_eq!(strong.act(&t, &turn), draw);
        assert_eq!(strong.search_stats().unwrap().decisions, 0, "simple's move, not the search's");
        // The next hand's deal: a view, and the search decides.
        let hand = "AS 2S 3S 7D 8D KH QC";
        let dealt = pb::HandDealt {
            dealer: 0,
            upcard: "9C".into(),
            your_hand: hand.split(' ').map(String::from).collect(),
            stock_size: 52 - 4 * 7 - 1,
            seats: vec![1, 2, 3, 0],
            ..Default::default()
        };
        t.apply(&ev(31, K::HandDealt(dealt))).unwrap();
        let draws = pb::TurnInfo {
            legal_actions: vec![
                draw,
                pb::LegalAction { kind: pb::ActionKind::DrawPile as i32, ..Default::default() },
            ],
            ..Default::default()
        };
        t.apply(&ev(
            32,
            K::TurnStarted(pb::TurnStarted { seat: 1, turn: Some(draws.clone()), ..Default::default() }),
        ))
        .unwrap();
        let v = t.gin7_view(&draws).unwrap();
        assert_eq!(
            (v.hand_lens, v.pile, v.stock_len, v.cards),
            (vec![7; 4], vec!["9C".parse().unwrap()], 23, engine::hand(hand))
        );
        assert!(draws.legal_actions.contains(&strong.act(&t, &draws)));
        assert_eq!(strong.search_stats().unwrap().decisions, 1);
    }

    /// Team play: the other table's hand ending leaves this seat's pending turn; its own
    /// table's ends it.
    #[test]
    fn only_its_own_tables_events_end_a_seats_turn() {
        let snap = pb::GameSnapshot {
            seq: 10,
            viewer_seat: Some(0),
            seats_to_act: vec![0, 3],
            turn: Some(pb::TurnInfo::default()),
            tables: vec![
                pb::TableInPlay { seats: vec![1, 0], pile: vec!["2C".into()], ..Default::default() },
                pb::TableInPlay { seats: vec![2, 3], pile: vec!["3C".into()], ..Default::default() },
            ],
            ..Default::default()
        };
        let mut t = TableTracker::from_snapshot(0, &snap).unwrap();
        assert!(t.turn().is_some());
        let end = |seats: Vec<u32>| {
            K::TableHandEnded(pb::TableHandEnded {
                result: Some(pb::TableHandResult { seats, ..Default::default() }),
            })
        };
        t.apply(&ev(11, K::CardDiscarded(pb::CardDiscarded { seat: 3, card: "9S".into() }))).unwrap();
        t.apply(&ev(12, end(vec![2, 3]))).unwrap();
        assert!(t.turn().is_some(), "the other table's end");
        assert_eq!(t.pile_top(), Some("2C".parse().unwrap()), "the other table's discard went on its pile");
        t.apply(&ev(13, end(vec![1, 0]))).unwrap();
        assert!(t.turn().is_none(), "its own table's end");
    }

    /// A rummy hand's end keeps each seat's cards left; an outcome for a seat past six is a
    /// protocol error that leaves the count of ended hands and the last showdown as they were.
    #[test]
    fn a_rummy_showdown_is_kept_and_a_seat_past_six_refused() {
        let mut t = TableTracker::new(0, "rummy");
        let end = |seats: &[(u32, &str)]| {
            let outcomes = seats
                .iter()
                .map(|&(seat, cards)| pb::SeatOutcome {
                    seat,
                    deadwood: cards.split_whitespace().map(String::from).collect(),
                    ..Default::default()
                })
                .collect();
            K::TableHandEnded(pb::TableHandEnded {
                result: Some(pb::TableHandResult { outcomes, ..Default::default() }),
            })
        };
        t.apply(&ev(2, end(&[(0, ""), (1, "KS 2C")]))).unwrap();
        let kept = [CardSet::EMPTY, engine::hand("KS 2C")];
        assert_eq!(t.last_rummy_showdown(), Some((1, &kept[..])));
        let e = t.apply(&ev(3, end(&[(0, "3D"), (7, "4D")]))).unwrap_err();
        assert!(e.to_string().contains("seat 7"), "{e}");
        assert_eq!((t.hands_ended(), t.last_rummy_showdown()), (1, Some((1, &kept[..]))));
    }
}
