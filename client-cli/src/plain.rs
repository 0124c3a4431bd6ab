//! `--plain`: the same game as line-by-line text, for screen readers and scripts.
//!
//! Every event is one line (`bob discarded KD`); when it is your turn the client prints your
//! hand, its melds and deadwood, and one line starting `your turn:` that says what you may
//! do. Commands are read one a line from stdin (see [`HELP`]). [`Plain`] is pure: it turns
//! network events and input lines into output lines and commands; `main` only moves them.

use engine::{Action, Card, Seat};
use gin_proto::v1 as pb;
use ratatui::text::Line;

use crate::app::{Sort, refusal};
use crate::net::NetEvent;
use crate::render::{game_over_lines, hand_over_lines};
use crate::table::Table;

/// The commands of plain mode, as `help` prints them.
pub const HELP: &str = "\
commands (one a line; cards as 7S, TD, 10d, q♥):
  take | t            take the upcard, or the top of the discard pile
  pass | p            pass the upcard
  stock | s           draw from the stock
  discard CARD | d CARD   discard a card
  knock CARD | k CARD     knock (gin when no deadwood is left) discarding CARD face down
  biggin              big gin: all 11 cards melded, no discard (if the rules allow)
  resign              resign the game: it ends, won by your opponent
  hand                your hand, melds and deadwood, and what you may do
  table               the stock, the pile, the opponent's known cards, the scores
  score               the score sheet
  log                 the moves so far
  sort suit | sort rank   how your hand is listed
  help                this list
  quit                leave (your seat stays yours: gin prints how to come back)";

/// What the runner should do after a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Keep going.
    Continue,
    /// Send this action.
    Act(Action),
    /// Resign the game.
    Resign,
    /// Stop, with this exit status.
    Exit(u8),
}

/// Plain mode's state: the table and how to list the hand.
#[derive(Clone, Debug)]
pub struct Plain {
    /// The table, once the first snapshot came.
    pub table: Option<Table>,
    /// How the hand is listed.
    pub sort: Sort,
    /// Log lines already printed (`Table::logged`).
    printed: u64,
    /// The seq of the last `your turn:` prompt printed.
    prompted: u64,
    /// An action was sent and its outcome (the next turn, or a refusal) has not come yet.
    in_flight: bool,
    /// A resignation was sent: input waits until the game is over (or it is refused).
    resigning: bool,
}

impl Default for Plain {
    fn default() -> Plain {
        Plain::new()
    }
}

fn text(l: &Line) -> String {
    l.spans.iter().map(|s| s.content.as_ref()).collect()
}

fn cards_text(cards: impl IntoIterator<Item = Card>) -> String {
    cards.into_iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" ")
}

impl Plain {
    /// Before the first snapshot.
    pub fn new() -> Plain {
        Plain { table: None, sort: Sort::Suit, printed: 0, prompted: 0, in_flight: false, resigning: false }
    }

    /// Whether the next input line may be taken: at a table, with no action under way (so
    /// a script's lines apply in order, each to the state its author expected).
    pub fn ready(&self) -> bool {
        self.table.is_some() && !self.in_flight && !self.resigning
    }

    /// The lines for a network event, and what to do next.
    pub fn on_net(&mut self, ev: NetEvent) -> (Vec<String>, Flow) {
        let mut out = Vec::new();
        match ev {
            NetEvent::Snapshot(s) => match Table::from_snapshot(&s) {
                Ok(t) => {
                    let fresh = self.table.is_none();
                    self.printed = t.logged;
                    self.table = Some(t);
                    if fresh {
                        out.extend(self.intro());
                    }
                    return self.after(out);
                }
                Err(e) => return (vec![format!("error: bad snapshot from the server: {e}")], Flow::Exit(1)),
            },
            NetEvent::Event(e) => {
                let Some(t) = self.table.as_mut() else { return (out, Flow::Continue) };
                let hands = t.hands.len();
                if let Err(e) = t.apply(&e) {
                    return (vec![format!("error: {e}")], Flow::Exit(1));
                }
                // The action's outcome: the turn again (after a draw), or someone else's.
                if t.my_turn() || t.to_act != t.viewer {
                    self.in_flight = false;
                }
                let new = (t.logged - self.printed) as usize;
                let skip = t.log.len().saturating_sub(new);
                out.extend(t.log.iter().skip(skip).cloned());
                self.printed = t.logged;
                if t.hands.len() > hands {
                    let r = t.hands.last().cloned().unwrap_or_default();
                    out.extend(hand_over_lines(t, &r, true).iter().skip(1).map(text));
                }
                if let Some(r) = t.result.clone() {
                    out.extend(game_over_lines(t, &r).iter().skip(1).map(text));
                    return (out, Flow::Exit(0));
                }
            }
            NetEvent::Reconnecting(why) => out.push(format!("connection lost ({why}); reconnecting…")),
            NetEvent::Reconnected => out.push("reconnected".into()),
            NetEvent::Refused(why) => {
                out.push(format!("error: {why}"));
                self.in_flight = false;
                self.resigning = false;
                // Say again what may be done.
                self.prompted = 0;
            }
            NetEvent::Fatal(why) => return (vec![format!("error: {why}")], Flow::Exit(1)),
        }
        self.after(out)
    }

    /// Adds the prompt when it just became the viewer's turn.
    fn after(&mut self, mut out: Vec<String>) -> (Vec<String>, Flow) {
        if let Some(t) = &self.table {
            if t.is_over() {
                if let Some(r) = &t.result {
                    out.extend(game_over_lines(t, r).iter().map(text));
                }
                return (out, Flow::Exit(0));
            }
            if t.my_turn() && self.prompted != t.last_seq {
                self.prompted = t.last_seq;
                out.extend(self.hand_lines());
            }
        }
        (out, Flow::Continue)
    }

    fn intro(&self) -> Vec<String> {
        let Some(t) = &self.table else { return Vec::new() };
        let seat = |s: Seat| {
            let bot = match (t.bots[s.index()], t.entrants[s.index()]) {
                (true, _) => ", house bot",
                (false, true) => ", entrant",
                _ => "",
            };
            format!("{} (seat {}{bot})", t.name(s), s.index())
        };
        let mut v = vec![format!("game {}: {} to {}", t.game_id, t.rules_name, t.target)];
        match t.viewer {
            Some(me) => v.push(format!("you are {} against {}", seat(me), seat(me.other()))),
            None => v.push(format!("watching {} against {}", seat(Seat::S0), seat(Seat::S1))),
        }
        if t.phase == pb::Phase::WaitingForPlayers {
            v.push(format!("waiting for an opponent: share the game id {}", t.game_id));
        }
        v.push("type help for the commands".into());
        v
    }

    /// The viewer's hand, melds and deadwood, and (on its turn) the `your turn:` line.
    pub fn hand_lines(&self) -> Vec<String> {
        let Some(t) = &self.table else { return vec!["not at a table yet".into()] };
        if t.viewer.is_none() {
            return vec!["you are watching: no hand".into()];
        }
        let cards = match self.sort {
            Sort::Suit => t.hand.iter().collect::<Vec<_>>(),
            Sort::Rank => t.hand.by_rank(),
        };
        let (arr, best) = t.arrangement();
        let melds: Vec<String> =
            arr.melds().iter().map(|m| format!("[{}]", cards_text(m.cards().iter()))).collect();
        let mut dw = format!("deadwood {}", arr.deadwood());
        if !arr.deadwood_cards().is_empty() {
            dw.push_str(&format!(": {}", cards_text(arr.deadwood_cards().iter())));
        }
        if let Some(b) = best {
            dw.push_str(&format!(" after discarding {b}"));
        }
        let mut v = vec![
            format!("your hand: {}", cards_text(cards)),
            format!("melds {}; {dw}", if melds.is_empty() { "none".into() } else { melds.join(" ") }),
        ];
        if t.my_turn() {
            v.push(self.turn_line(t, best));
        } else if let Some(s) = t.to_act {
            v.push(format!("waiting for {}", t.name(s)));
        }
        v
    }

    fn turn_line(&self, t: &Table, best: Option<Card>) -> String {
        let top = t.top().map_or("-".to_string(), |c| c.to_string());
        match t.phase {
            pb::Phase::UpcardOffer => format!("your turn: the upcard is {top}: take or pass"),
            pb::Phase::Draw => format!("your turn: draw: stock, or take {top} from the pile"),
            _ => {
                let knocks: Vec<String> = t
                    .turn
                    .iter()
                    .flat_map(|i| &i.legal_actions)
                    .filter(|a| a.kind == pb::ActionKind::Knock as i32)
                    // Cards as the engine writes them, never the server's strings (as on
                    // the full screen).
                    .filter_map(|a| Some((a.card.parse::<Card>().ok()?, a.deadwood)))
                    .map(|(c, dw)| if dw == 0 { format!("{c} (gin)") } else { c.to_string() })
                    .collect();
                let mut s = "your turn: discard CARD or knock CARD".to_string();
                if let Some(b) = best {
                    s.push_str(&format!("; best discard {b}"));
                }
                if !knocks.is_empty() {
                    s.push_str(&format!("; you can knock with {}", knocks.join(", ")));
                }
                if t.is_legal(&Action::BigGin { melds: None }) {
                    s.push_str("; you can declare big gin");
                }
                s
            }
        }
    }

    /// The lines for one input line, and what to do.
    pub fn on_line(&mut self, line: &str) -> (Vec<String>, Flow) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(first) = words.first() else { return (Vec::new(), Flow::Continue) };
        let cmd = first.to_ascii_lowercase();
        let arg = words.get(1).copied();
        let card = |arg: Option<&str>| -> Result<Card, String> {
            let a = arg.ok_or_else(|| format!("{cmd} needs a card, e.g. `{cmd} 7S`"))?;
            a.parse::<Card>().map_err(|e| format!("{a:?} is not a card: {e}"))
        };
        let action = match cmd.as_str() {
            "take" | "t" | "pile" => Ok(Action::DrawPile),
            "pass" | "p" => Ok(Action::Pass),
            "stock" | "s" | "draw" => Ok(Action::DrawStock),
            "discard" | "d" | "x" => card(arg).map(|c| Action::Discard { card: c }),
            "knock" | "k" | "gin" => card(arg).map(Action::knock),
            "biggin" | "big-gin" => Ok(Action::BigGin { melds: None }),
            "help" | "?" => return (HELP.lines().map(String::from).collect(), Flow::Continue),
            "quit" | "q" | "exit" => return (vec!["bye".into()], Flow::Exit(0)),
            "resign" => {
                return match &self.table {
                    Some(t) if t.viewer.is_some() && !t.is_over() => {
                        // The next line waits for its outcome: the game's end.
                        self.resigning = true;
                        (Vec::new(), Flow::Resign)
                    }
                    Some(t) if t.is_over() => (vec!["error: the game is over".into()], Flow::Continue),
                    _ => (vec!["error: only a seated player can resign".into()], Flow::Continue),
                };
            }
            "hand" => return (self.hand_lines(), Flow::Continue),
            "table" => return (self.table_lines(), Flow::Continue),
            "score" => return (self.score_lines(), Flow::Continue),
            "log" => return (self.table.iter().flat_map(|t| t.log.clone()).collect(), Flow::Continue),
            "sort" => {
                return match arg.map(str::to_ascii_lowercase).as_deref() {
                    Some("suit") => {
                        self.sort = Sort::Suit;
                        (self.hand_lines(), Flow::Continue)
                    }
                    Some("rank") => {
                        self.sort = Sort::Rank;
                        (self.hand_lines(), Flow::Continue)
                    }
                    _ => (vec!["error: sort suit, or sort rank".into()], Flow::Continue),
                };
            }
            _ => Err(format!("unknown command {first:?}; type help for the commands")),
        };
        let Some(t) = &self.table else { return (vec!["error: not at a table yet".into()], Flow::Continue) };
        let a = match action {
            Ok(a) if t.is_legal(&a) => a,
            Ok(a) => return (self.with_turn_line(format!("error: {}", refusal(t, &a))), Flow::Continue),
            Err(e) => return (self.with_turn_line(format!("error: {e}")), Flow::Continue),
        };
        self.in_flight = true;
        (Vec::new(), Flow::Act(a))
    }

    /// `error` and, on the viewer's turn, the `your turn:` line again (what may be done).
    fn with_turn_line(&self, error: String) -> Vec<String> {
        let mut v = vec![error];
        if let Some(t) = self.table.as_ref().filter(|t| t.my_turn()) {
            v.push(self.turn_line(t, t.arrangement().1));
        }
        v
    }

    fn table_lines(&self) -> Vec<String> {
        let Some(t) = &self.table else { return vec!["not at a table yet".into()] };
        let mut v = vec![format!(
            "hand {}: stock {} cards, pile {} ({} cards)",
            t.hand_number + 1,
            t.stock,
            t.top().map_or("empty".into(), |c| c.to_string()),
            t.pile.len()
        )];
        for s in Seat::BOTH {
            if Some(s) == t.viewer {
                continue;
            }
            let k = &t.known[s.index()];
            let known = if k.is_empty() { "none".into() } else { cards_text(k.iter()) };
            v.push(format!("{}: {} cards, known: {known}", t.name(s), t.hand_sizes[s.index()]));
        }
        v.push(format!("score: {} {} - {} {}", t.name(Seat::S0), t.scores[0], t.scores[1], t.name(Seat::S1)));
        match t.to_act {
            Some(s) => v.push(format!("to play: {}", t.who(s))),
            None => v.push("nobody to play".into()),
        }
        v
    }

    fn score_lines(&self) -> Vec<String> {
        let Some(t) = &self.table else { return vec!["not at a table yet".into()] };
        let mut v: Vec<String> = t.hands.iter().map(|r| crate::table::hand_line(t, r)).collect();
        v.push(format!("score: {} {} - {} {}", t.name(Seat::S0), t.scores[0], t.scores[1], t.name(Seat::S1)));
        v
    }
}
