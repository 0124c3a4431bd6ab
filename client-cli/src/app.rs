//! The full-screen client's state and its keyboard: [`App`] holds the [`Table`] and what
//! only the screen needs (sort order, selected card, overlays, the status line);
//! [`App::handle_key`] is the one place keys change it, returning a [`Command`] for the
//! network when a key means an action. Rendering (`render`) only reads it.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use engine::{Action, Card};
use gin_proto::v1 as pb;

use crate::table::Table;

/// Labels of the cards in hand, in display order (a hand holds at most 11 cards).
pub const LABELS: [char; 11] = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k'];

/// Every key, for the help overlay and the README: (keys, what they do).
pub const KEYS: [(&str, &str); 16] = [
    ("a-k", "select the card with that label"),
    ("Left/Right", "move the selection"),
    ("s", "draw from the stock"),
    ("t", "take the top of the pile (or the upcard)"),
    ("p", "pass the upcard"),
    ("Enter or x", "discard the selected card"),
    ("K (shift+k)", "knock (or gin) discarding the selected card"),
    ("B (shift+b)", "big gin: lay down all 11 cards (if the rules allow)"),
    ("o", "sort the hand by suit / by rank"),
    ("R (shift+r)", "resign the game (asks first)"),
    ("y / n", "confirm / cancel (knock, resign, quit)"),
    ("Space", "continue after a hand's result"),
    ("?", "show / hide this help"),
    ("Esc", "close a window, cancel"),
    ("q", "quit (asks first)"),
    ("Ctrl+C", "quit at once"),
];

/// How the hand is sorted on screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sort {
    /// Clubs, diamonds, hearts, spades; by rank within a suit.
    Suit,
    /// By rank, then suit.
    Rank,
}

/// A window over the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Overlay {
    /// Every key.
    Help,
    /// Knock discarding this card? (y/n)
    ConfirmKnock(Card),
    /// Big gin? (y/n)
    ConfirmBigGin,
    /// Quit? (y/n)
    ConfirmQuit,
    /// Resign the game? (y/n)
    ConfirmResign,
    /// The result of the hand with this index in `Table::hands`.
    HandOver(usize),
}

/// Where the client stands.
#[derive(Clone, Debug)]
pub enum Stage {
    /// Connecting or finding a game; the text says what is going on.
    Connecting(String),
    /// At the table.
    InGame(Box<Table>),
}

/// What a key asks the network side to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Send this action (`offer`: during the upcard offer).
    Act(Action),
    /// Resign the game (it ends, won by the other seat).
    Resign,
    /// Leave.
    Quit,
}

/// The full-screen client's state.
#[derive(Clone, Debug)]
pub struct App {
    /// Connecting, or at the table.
    pub stage: Stage,
    /// Hand order.
    pub sort: Sort,
    /// The selected card (an index into the displayed hand).
    pub selected: usize,
    /// The window shown over the table, if any.
    pub overlay: Option<Overlay>,
    /// One line for the player: what was refused, the connection, a hint.
    pub status: Option<Status>,
    /// No colours (`--no-color` or `NO_COLOR`).
    pub no_color: bool,
    /// Hands whose result was already shown.
    pub hands_seen: usize,
    /// An action was sent and nothing came back yet: further actions wait.
    pub pending: bool,
}

/// The status line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    /// The text.
    pub text: String,
    /// An error (shown in red, or marked `error:` without colours).
    pub error: bool,
}

impl App {
    /// A client about to connect.
    pub fn new(no_color: bool) -> App {
        App {
            stage: Stage::Connecting("connecting…".into()),
            sort: Sort::Suit,
            selected: 0,
            overlay: None,
            status: None,
            no_color,
            hands_seen: 0,
            pending: false,
        }
    }

    /// The table, once at one.
    pub fn table(&self) -> Option<&Table> {
        match &self.stage {
            Stage::InGame(t) => Some(t),
            Stage::Connecting(_) => None,
        }
    }

    /// Shows `text` on the status line.
    pub fn info(&mut self, text: impl Into<String>) {
        self.status = Some(Status { text: text.into(), error: false });
    }

    /// The server refused the action sent: say why, and take actions again.
    pub fn refused(&mut self, why: impl Into<String>) {
        self.pending = false;
        self.error(why);
    }

    /// Shows `text` on the status line as an error.
    pub fn error(&mut self, text: impl Into<String>) {
        self.status = Some(Status { text: text.into(), error: true });
    }

    /// The table arrived (first snapshot, or a fresh one).
    pub fn set_table(&mut self, t: Table) {
        self.hands_seen = t.hands.len();
        self.stage = Stage::InGame(Box::new(t));
        self.clamp();
    }

    /// Folds one event into the table; a finished hand opens its result window.
    pub fn apply(&mut self, ev: &pb::GameEvent) -> Result<(), String> {
        let Stage::InGame(t) = &mut self.stage else { return Ok(()) };
        let before = t.last_seq;
        t.apply(ev)?;
        if t.last_seq != before {
            self.pending = false;
            if t.hands.len() > self.hands_seen {
                self.hands_seen = t.hands.len();
                self.overlay = Some(Overlay::HandOver(t.hands.len() - 1));
            }
            if matches!(self.overlay, Some(Overlay::ConfirmKnock(_)) | Some(Overlay::ConfirmBigGin))
                && !t.my_turn()
            {
                self.overlay = None;
            }
            if t.my_turn() {
                // Select the card just drawn, so Enter discards it unless another is picked.
                if let Some(c) = t.drawn
                    && let Some(i) = self.hand_order().iter().position(|&x| x == c)
                {
                    self.selected = i;
                }
            }
        }
        self.clamp();
        Ok(())
    }

    /// The viewer's cards in display order.
    pub fn hand_order(&self) -> Vec<Card> {
        let Some(t) = self.table() else { return Vec::new() };
        match self.sort {
            Sort::Suit => t.hand.iter().collect(),
            Sort::Rank => t.hand.by_rank(),
        }
    }

    /// The selected card, if the hand has one there.
    pub fn selected_card(&self) -> Option<Card> {
        self.hand_order().get(self.selected).copied()
    }

    fn clamp(&mut self) {
        let n = self.hand_order().len();
        if n == 0 {
            self.selected = 0;
        } else if self.selected >= n {
            self.selected = n - 1;
        }
    }

    /// Applies one key: changes the screen state, and returns the command it asks for.
    pub fn handle_key(&mut self, key: KeyEvent) -> Option<Command> {
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            return Some(Command::Quit);
        }
        match self.overlay.clone() {
            Some(Overlay::ConfirmQuit) => {
                return match key.code {
                    KeyCode::Char('y') | KeyCode::Char('Y') => Some(Command::Quit),
                    _ => {
                        self.overlay = None;
                        None
                    }
                };
            }
            Some(Overlay::ConfirmResign) => {
                self.overlay = None;
                return match key.code {
                    KeyCode::Char('y') | KeyCode::Char('Y') => Some(Command::Resign),
                    _ => {
                        self.info("resign cancelled");
                        None
                    }
                };
            }
            Some(Overlay::ConfirmKnock(c)) => {
                self.overlay = None;
                return match key.code {
                    KeyCode::Char('y') | KeyCode::Char('Y') => self.act(Action::knock(c)),
                    _ => {
                        self.info("knock cancelled");
                        None
                    }
                };
            }
            Some(Overlay::ConfirmBigGin) => {
                self.overlay = None;
                return match key.code {
                    KeyCode::Char('y') | KeyCode::Char('Y') => self.act(Action::BigGin { melds: None }),
                    _ => None,
                };
            }
            Some(Overlay::Help) => {
                if matches!(key.code, KeyCode::Char('?') | KeyCode::Esc | KeyCode::Char('q')) {
                    self.overlay = None;
                }
                return None;
            }
            Some(Overlay::HandOver(_)) => {
                match key.code {
                    KeyCode::Char(' ') | KeyCode::Enter | KeyCode::Esc => self.overlay = None,
                    KeyCode::Char('q') => self.overlay = Some(Overlay::ConfirmQuit),
                    KeyCode::Char('?') => self.overlay = Some(Overlay::Help),
                    _ => {}
                }
                return None;
            }
            None => {}
        }
        let n = self.hand_order().len();
        match key.code {
            KeyCode::Char('?') => self.overlay = Some(Overlay::Help),
            KeyCode::Char('q') | KeyCode::Esc => {
                if self.table().is_some_and(Table::is_over) && key.code == KeyCode::Char('q') {
                    return Some(Command::Quit);
                }
                if key.code == KeyCode::Char('q') {
                    self.overlay = Some(Overlay::ConfirmQuit);
                }
            }
            KeyCode::Char('o') => {
                let c = self.selected_card();
                self.sort = if self.sort == Sort::Suit { Sort::Rank } else { Sort::Suit };
                if let Some(c) = c {
                    self.selected = self.hand_order().iter().position(|&x| x == c).unwrap_or(0);
                }
                let by = if self.sort == Sort::Suit { "suit" } else { "rank" };
                self.info(format!("hand sorted by {by}"));
            }
            KeyCode::Left if n > 0 => self.selected = (self.selected + n - 1) % n,
            KeyCode::Right if n > 0 => self.selected = (self.selected + 1) % n,
            KeyCode::Char(ch) if LABELS.contains(&ch) => {
                let i = LABELS.iter().position(|&l| l == ch).unwrap_or(0);
                if i < n {
                    self.selected = i;
                } else {
                    self.error(format!("no card labelled {ch}"));
                }
            }
            KeyCode::Char('s') => return self.act(Action::DrawStock),
            KeyCode::Char('t') => return self.act(Action::DrawPile),
            KeyCode::Char('p') => return self.act(Action::Pass),
            KeyCode::Enter | KeyCode::Char('x') => {
                let c = self.selected_card()?;
                return self.act(Action::Discard { card: c });
            }
            KeyCode::Char('K') => {
                let c = self.selected_card()?;
                let t = self.table()?;
                if !t.my_turn() {
                    self.error("not your turn");
                } else if t.knock_deadwood(c).is_some() {
                    self.overlay = Some(Overlay::ConfirmKnock(c));
                } else {
                    let why = self.refusal(&Action::knock(c));
                    self.error(why);
                }
            }
            KeyCode::Char('R') => match self.table() {
                Some(t) if t.viewer.is_some() && !t.is_over() => self.overlay = Some(Overlay::ConfirmResign),
                Some(t) if t.is_over() => self.error("the game is over"),
                _ => self.error("only a seated player can resign"),
            },
            KeyCode::Char('B') => {
                if self.table().is_some_and(|t| t.is_legal(&Action::BigGin { melds: None })) {
                    self.overlay = Some(Overlay::ConfirmBigGin);
                } else {
                    self.error("big gin is not possible now");
                }
            }
            _ => {}
        }
        None
    }

    /// The action as a command if it is legal now; otherwise says why on the status line.
    fn act(&mut self, a: Action) -> Option<Command> {
        if self.pending {
            self.info("waiting for the server…");
            return None;
        }
        let t = self.table()?;
        if t.is_legal(&a) {
            self.status = None;
            self.pending = true;
            return Some(Command::Act(a));
        }
        let why = self.refusal(&a);
        self.error(why);
        None
    }

    /// Why `a` is not legal now, for people.
    pub fn refusal(&self, a: &Action) -> String {
        match self.table() {
            Some(t) => refusal(t, a),
            None => "not at a table yet".into(),
        }
    }
}

/// Why `a` is not legal for the viewer of `t` now, for people.
pub fn refusal(t: &Table, a: &Action) -> String {
    if t.viewer.is_none() {
        return "you are watching: spectators do not play".into();
    }
    if t.is_over() {
        return "the game is over".into();
    }
    if !t.my_turn() {
        return match t.to_act {
            Some(s) => format!("not your turn: {} is to play", t.name(s)),
            None => "not your turn".into(),
        };
    }
    let offer = t.phase == pb::Phase::UpcardOffer;
    match a {
        Action::Pass => "you can pass only when the upcard is offered".into(),
        Action::DrawStock if offer => "first take the upcard (t) or pass (p)".into(),
        Action::DrawStock | Action::DrawPile => "you have drawn already: discard or knock".into(),
        Action::Discard { .. } | Action::Knock { .. } if t.phase != pb::Phase::Discard => {
            if offer {
                "take the upcard (t) or pass (p) first".into()
            } else {
                "draw first (s or t)".into()
            }
        }
        Action::Discard { card } if t.taken_from_pile == Some(*card) => {
            format!("{card} was just taken from the pile: discard another card")
        }
        Action::Discard { card } => format!("{card} cannot be discarded now"),
        Action::Knock { discard, .. } => {
            let left = engine::deadwood(t.hand.without(*discard));
            if t.taken_from_pile == Some(*discard) {
                format!("{discard} was just taken from the pile: knock with another card")
            } else {
                format!(
                    "cannot knock discarding {discard}: {left} deadwood left, the limit is {}",
                    t.knock_limit
                )
            }
        }
        Action::BigGin { .. } => "big gin is not possible now".into(),
    }
}
