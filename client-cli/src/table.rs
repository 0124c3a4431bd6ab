//! What one viewer knows of a game, folded from its snapshot and events: the pure model
//! behind both the full-screen and the plain client.
//!
//! [`Table::from_snapshot`] starts it; [`Table::apply`] folds each event (as this viewer
//! receives it: redacted) and appends a line to the move log. Nothing here does I/O or
//! reads a clock, so every screen can be built from a list of protobuf messages in a test.
//!
//! The server's text (the game id, names, the rules' name) enters here through [`shown`]:
//! a hostile or older server's control characters, bidi overrides or zero-width characters
//! are escaped before the screen or the plain output ever sees them.

use engine::{Action, Arrangement, Card, CardSet, Legal, Seat, best_arrangement, best_discard};
use gin_proto::convert;
use gin_proto::v1 as pb;
use gin_proto::v1::game_event::Kind as K;

/// The most log lines kept.
const LOG_LINES: usize = 200;

/// One viewer's picture of a game.
#[derive(Clone, Debug)]
pub struct Table {
    /// The game's id, for display ([`shown`]).
    pub game_id: String,
    /// The viewer's seat; `None` for a spectator.
    pub viewer: Option<Seat>,
    /// Display names by seat (empty while free), for display ([`shown`]).
    pub names: [String; 2],
    /// House bots by seat.
    pub bots: [bool; 2],
    /// Tournament entrants by seat (programs or people entered in a tournament: not house bots).
    pub entrants: [bool; 2],
    /// The rules' name, for display ([`shown`]).
    pub rules_name: String,
    /// The score that ends the game (or each stage).
    pub target: u32,
    /// The seq of the last event folded in.
    pub last_seq: u64,
    /// Where the hand stands.
    pub phase: pb::Phase,
    /// Who acts; `None` when nobody does (between hands, game over, waiting).
    pub to_act: Option<Seat>,
    /// Hand number (0-based), stage and dealer of the hand in play.
    pub hand_number: u32,
    /// Stage index.
    pub stage: u32,
    /// Dealer of the hand in play.
    pub dealer: Seat,
    /// Knock limit of the hand in play.
    pub knock_limit: u32,
    /// The viewer's cards (empty for a spectator).
    pub hand: CardSet,
    /// The discard pile, bottom first.
    pub pile: Vec<Card>,
    /// Cards left in the stock.
    pub stock: u32,
    /// Cards each seat holds.
    pub hand_sizes: [u32; 2],
    /// Cards each seat is known to hold (taken from the pile, not discarded since).
    pub known: [CardSet; 2],
    /// Stage scores.
    pub scores: [u32; 2],
    /// Finished hands, in order.
    pub hands: Vec<pb::HandResult>,
    /// The viewer's legal actions and best melds, when it is to act.
    pub turn: Option<pb::TurnInfo>,
    /// When the turn clock runs out (unix ms); 0 without a clock.
    pub deadline_ms: i64,
    /// The card the seat to act took from the pile this turn (it may not discard it).
    pub taken_from_pile: Option<Card>,
    /// The card the viewer drew last (shown marked until it discards).
    pub drawn: Option<Card>,
    /// The result, once the game is over.
    pub result: Option<pb::GameResult>,
    /// Each dealt hand's commitment as published at the deal, by hand number.
    pub commitments: Vec<(u32, Vec<u8>)>,
    /// The move log, oldest first (the last few hundred lines).
    pub log: Vec<String>,
    /// Lines ever added to the log (to tell which are new).
    pub logged: u64,
}

fn seat(n: u32) -> Result<Seat, String> {
    convert::seat(n).map_err(|e| e.to_string())
}

fn card(s: &str) -> Result<Card, String> {
    convert::card(s).map_err(|e| e.to_string())
}

fn cards(v: &[String]) -> Result<CardSet, String> {
    convert::cards(v).map_err(|e| e.to_string())
}

/// Text from the server as the table keeps it: [`gin_proto::text::printable`].
pub fn shown(text: &str) -> String {
    gin_proto::text::printable(text).into_owned()
}

fn phase(n: i32) -> pb::Phase {
    pb::Phase::try_from(n).unwrap_or(pb::Phase::Unspecified)
}

impl Table {
    /// The table as a snapshot shows it.
    pub fn from_snapshot(s: &pb::GameSnapshot) -> Result<Table, String> {
        let mut names: [String; 2] = Default::default();
        let (mut bots, mut entrants) = ([false; 2], [false; 2]);
        for i in &s.seats {
            let k = seat(i.seat)?.index();
            // Signed in: the account's name (`(bot)` for a program's); a guest's as given.
            names[k] = shown(&gin_sdk::seat_name(i));
            bots[k] = i.bot;
            entrants[k] = i.entrant;
        }
        let viewer = s.viewer_seat.map(seat).transpose()?;
        let mut known = [CardSet::EMPTY; 2];
        for k in &s.known {
            known[seat(k.seat)?.index()] = cards(&k.cards)?;
        }
        let pair = |v: &[u32]| [v.first().copied().unwrap_or(0), v.get(1).copied().unwrap_or(0)];
        let (rules_name, target) =
            s.rules.as_ref().map_or((String::new(), 0), |r| (shown(&r.name), r.target));
        let to_act = s.seat_to_act.map(seat).transpose()?;
        let mut t = Table {
            game_id: shown(&s.game_id),
            viewer,
            names,
            bots,
            entrants,
            rules_name,
            target,
            last_seq: s.seq,
            phase: phase(s.phase),
            to_act,
            hand_number: s.hand_number,
            stage: s.stage,
            dealer: seat(s.dealer)?,
            knock_limit: s.knock_limit,
            hand: cards(&s.hand)?,
            pile: s.pile.iter().map(|c| card(c)).collect::<Result<_, _>>()?,
            stock: s.stock_size,
            hand_sizes: pair(&s.hand_sizes),
            known,
            scores: pair(&s.scores),
            hands: s.hands.clone(),
            turn: None,
            deadline_ms: s.turn_deadline_unix_ms,
            taken_from_pile: if s.taken_from_pile.is_empty() {
                None
            } else {
                Some(card(&s.taken_from_pile)?)
            },
            drawn: None,
            result: s.result.clone(),
            commitments: Vec::new(),
            log: Vec::new(),
            logged: 0,
        };
        if !s.deal_commitment.is_empty() {
            t.commitments.push((s.hand_number, s.deal_commitment.clone()));
        }
        if to_act.is_some() && to_act == viewer {
            t.turn = s.turn.clone();
        }
        if t.result.is_some() {
            t.phase = pb::Phase::GameOver;
            t.to_act = None;
        }
        Ok(t)
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.result.is_some()
    }

    /// Who `s` is, for people: "you" for the viewer, else its name (or "seat N").
    pub fn who(&self, s: Seat) -> String {
        if Some(s) == self.viewer {
            return "you".into();
        }
        self.name(s)
    }

    /// The display name of `s` ("seat N" while it has none).
    pub fn name(&self, s: Seat) -> String {
        let n = &self.names[s.index()];
        if n.is_empty() { format!("seat {}", s.index()) } else { n.clone() }
    }

    /// The top of the discard pile.
    pub fn top(&self) -> Option<Card> {
        self.pile.last().copied()
    }

    /// Whether the viewer is to act now (and has its legal actions).
    pub fn my_turn(&self) -> bool {
        self.viewer.is_some() && self.to_act == self.viewer && self.turn.is_some() && !self.is_over()
    }

    /// The viewer's legal actions, when it is to act.
    pub fn legal(&self) -> Option<Legal> {
        let me = self.viewer?;
        if !self.my_turn() {
            return None;
        }
        convert::legal(me, &self.turn.as_ref()?.legal_actions).ok()
    }

    /// Whether `a` is among the viewer's legal actions now.
    pub fn is_legal(&self, a: &Action) -> bool {
        self.legal().is_some_and(|l| gin_strategies::is_listed(&l, a))
    }

    /// The deadwood a knock discarding `c` would leave, if it is a legal knock.
    pub fn knock_deadwood(&self, c: Card) -> Option<u32> {
        let t = self.turn.as_ref()?;
        t.legal_actions
            .iter()
            .find(|a| a.kind == pb::ActionKind::Knock as i32 && card(&a.card).ok() == Some(c))
            .map(|a| a.deadwood)
    }

    /// The viewer's cards arranged now: with 11 cards, after the best discard (returned too).
    pub fn arrangement(&self) -> (Arrangement, Option<Card>) {
        if self.hand.len() == 11
            && let Some(b) = best_discard(self.hand)
        {
            return (b.arrangement, Some(b.discard));
        }
        (best_arrangement(self.hand), None)
    }

    /// The viewer's opponent (`None` for a spectator).
    pub fn opponent(&self) -> Option<Seat> {
        self.viewer.map(Seat::other)
    }

    fn push_log(&mut self, line: String) {
        self.log.push(line);
        self.logged += 1;
        if self.log.len() > LOG_LINES {
            self.log.remove(0);
        }
    }

    /// Folds one event in. Events at or before [`last_seq`](Self::last_seq) are ignored; a
    /// gap is an error (reopen the stream). On error the table is unchanged.
    pub fn apply(&mut self, ev: &pb::GameEvent) -> Result<(), String> {
        if ev.seq <= self.last_seq {
            return Ok(());
        }
        if ev.seq != self.last_seq + 1 {
            return Err(format!("event {} after {}: a gap", ev.seq, self.last_seq));
        }
        let mut next = self.clone();
        next.apply_kind(ev.kind.as_ref()).map_err(|e| format!("event {}: {e}", ev.seq))?;
        next.last_seq = ev.seq;
        *self = next;
        Ok(())
    }

    fn apply_kind(&mut self, kind: Option<&K>) -> Result<(), String> {
        if !matches!(kind, Some(K::TurnStarted(_))) {
            self.turn = None;
        }
        match kind {
            None => return Err("an event with no kind".into()),
            Some(K::MeldLaid(_) | K::CardLaidOff(_) | K::PileTurned(_) | K::TableHandEnded(_)) => {
                return Err("an event of a table format: this screen shows two-player gin".into());
            }
            Some(K::PlayerJoined(j)) => {
                let s = seat(j.seat)?;
                // Signed in: the account's name (`(bot)` for a program's), as from a snapshot.
                self.names[s.index()] = shown(&gin_sdk::joined_name(j));
                self.bots[s.index()] = j.bot;
                self.entrants[s.index()] = j.entrant;
                let bot = match (j.bot, j.entrant) {
                    (true, _) => " (house bot)",
                    (false, true) => " (entrant)",
                    _ => "",
                };
                let line = format!("{}{bot} took seat {}", self.name(s), s.index());
                self.push_log(line);
            }
            Some(K::PlayerLeft(l)) => {
                let s = seat(l.seat)?;
                let why = match pb::GameEndReason::try_from(l.reason) {
                    Ok(pb::GameEndReason::Resigned) => "resigned",
                    Ok(pb::GameEndReason::Forfeit) => "forfeited (out of time)",
                    Ok(pb::GameEndReason::Abandoned) => "abandoned the game (idle too long)",
                    _ => "left",
                };
                let line = format!("{} {why}", self.who(s));
                self.push_log(line);
            }
            Some(K::ClockExpired(c)) => {
                let s = seat(c.seat)?;
                let line = format!("{}: time ran out, the server played", self.who(s));
                self.push_log(line);
            }
            Some(K::HandDealt(d)) => {
                let up = card(&d.upcard)?;
                if d.stage != self.stage {
                    self.scores = [0, 0];
                }
                self.hand_number = d.hand_number;
                self.stage = d.stage;
                self.dealer = seat(d.dealer)?;
                self.knock_limit = d.knock_limit;
                self.hand = cards(&d.your_hand)?;
                self.pile = vec![up];
                self.stock = d.stock_size;
                self.hand_sizes = [10, 10];
                self.known = [CardSet::EMPTY; 2];
                self.taken_from_pile = None;
                self.drawn = None;
                self.phase = pb::Phase::Draw;
                self.to_act = None;
                self.commitments.push((d.hand_number, d.commitment.clone()));
                let line = format!(
                    "hand {} dealt by {}: upcard {up}, knock limit {}",
                    d.hand_number + 1,
                    self.who(self.dealer),
                    d.knock_limit
                );
                self.push_log(line);
            }
            Some(K::TurnStarted(t)) => {
                let s = seat(t.seat)?;
                self.to_act = Some(s);
                self.phase = phase(t.phase);
                self.deadline_ms = t.deadline_unix_ms;
                if Some(s) == self.viewer {
                    self.turn = t.turn.clone();
                }
            }
            Some(K::UpcardPassed(p)) => {
                let s = seat(p.seat)?;
                let up = self.top().ok_or("a pass with no upcard")?;
                let line = format!("{} passed the upcard {up}", self.who(s));
                self.push_log(line);
            }
            Some(K::CardDrawn(d)) => {
                let s = seat(d.seat)?;
                self.stock = d.stock_size;
                self.hand_sizes[s.index()] += 1;
                match pb::DrawSource::try_from(d.source) {
                    Ok(pb::DrawSource::Pile) => {
                        let c = self.pile.pop().ok_or("a pile draw from an empty pile")?;
                        self.known[s.index()].insert(c);
                        self.taken_from_pile = Some(c);
                        if Some(s) == self.viewer {
                            self.hand.insert(c);
                            self.drawn = Some(c);
                        }
                        let line = format!("{} took {c} from the pile", self.who(s));
                        self.push_log(line);
                    }
                    Ok(pb::DrawSource::Stock) => {
                        self.taken_from_pile = None;
                        if Some(s) == self.viewer {
                            let c = card(&d.card)?;
                            self.hand.insert(c);
                            self.drawn = Some(c);
                            self.push_log(format!("you drew {c} from the stock"));
                        } else {
                            let line = format!("{} drew from the stock", self.who(s));
                            self.push_log(line);
                        }
                    }
                    _ => return Err(format!("unknown draw source {}", d.source)),
                }
            }
            Some(K::CardDiscarded(d)) => {
                let s = seat(d.seat)?;
                let c = card(&d.card)?;
                if Some(s) == self.viewer && !self.hand.remove(c) {
                    return Err(format!("you discarded {c}, which you do not hold"));
                }
                self.hand_sizes[s.index()] = self.hand_sizes[s.index()].saturating_sub(1);
                self.known[s.index()].remove(c);
                self.pile.push(c);
                self.taken_from_pile = None;
                self.drawn = None;
                let line = format!("{} discarded {c}", self.who(s));
                self.push_log(line);
            }
            Some(K::HandEnded(h)) => {
                let r = h.result.clone().unwrap_or_default();
                if r.scores.len() == 2 {
                    self.scores = [r.scores[0], r.scores[1]];
                }
                self.to_act = None;
                self.taken_from_pile = None;
                self.drawn = None;
                let line = hand_line(self, &r);
                self.push_log(line);
                self.hands.push(r);
            }
            Some(K::GameOver(g)) => {
                let r = g.result.clone().unwrap_or_default();
                self.to_act = None;
                self.phase = pb::Phase::GameOver;
                let line = game_line(self, &r);
                self.push_log(line);
                self.result = Some(r);
            }
        }
        Ok(())
    }
}

/// How a hand ended, in one line: `hand 2: you knocked (4 vs 17): you score 13`.
pub fn hand_line(t: &Table, r: &pb::HandResult) -> String {
    let end = pb::EndKind::try_from(r.end).unwrap_or(pb::EndKind::Unspecified);
    let n = r.hand_number + 1;
    let Some(sd) = &r.showdown else {
        if end == pb::EndKind::TurnLimit {
            return format!("hand {n}: dead hand at the turn limit ({} turns), no score", r.turns);
        }
        return format!("hand {n}: dead hand, no score");
    };
    let knocker = seat(sd.knocker).map(|s| t.who(s)).unwrap_or_default();
    let kd = sd.knocker_melds.as_ref().map_or(0, |a| a.deadwood_value);
    let dd = sd.defender_melds.as_ref().map_or(0, |a| a.deadwood_value);
    let winner = r.winner.and_then(|w| seat(w).ok()).map(|s| t.who(s)).unwrap_or_default();
    let score = if winner == "you" { "you score" } else { "scores" };
    let winner = if winner == "you" { String::new() } else { format!("{winner} ") };
    let doubled = if r.doubled { " (doubled)" } else { "" };
    let how = match end {
        pb::EndKind::Gin => format!("{knocker} went gin"),
        pb::EndKind::BigGin => format!("{knocker} went big gin"),
        pb::EndKind::Undercut => format!("{knocker} knocked ({kd} vs {dd}) and was undercut"),
        _ => format!("{knocker} knocked ({kd} vs {dd})"),
    };
    format!("hand {n}: {how}: {winner}{score} {}{doubled}", r.points)
}

/// How the game ended, in one line.
pub fn game_line(t: &Table, r: &pb::GameResult) -> String {
    let totals = format!(
        "{} {} - {} {}",
        t.name(Seat::S0),
        r.totals.first().copied().unwrap_or(0),
        r.totals.get(1).copied().unwrap_or(0),
        t.name(Seat::S1)
    );
    if r.reason == pb::GameEndReason::Cancelled as i32 {
        return "game over: cancelled before it was played (no winner)".into();
    }
    let over = if r.reason == pb::GameEndReason::HandLimit as i32 {
        "game over at the hand limit (the totals decide)"
    } else {
        "game over"
    };
    match r.winner.and_then(|w| seat(w).ok()) {
        Some(w) if Some(w) == t.viewer => format!("{over}: you won {totals}"),
        Some(w) => format!("{over}: {} won {totals}", t.name(w)),
        None => format!("{over}: a draw {totals}"),
    }
}
