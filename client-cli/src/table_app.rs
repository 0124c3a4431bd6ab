//! The full screen at a table of three to six (three players, teams, gin at one table,
//! rummy): [`TableApp`] holds the table's picture ([`TableScreen`]) and what only the screen
//! needs (sort order, the highlighted card, the cards marked for a meld, windows, the status
//! line, the `:` command line); [`TableApp::handle_key`] is the one place keys change it,
//! returning a [`TableCommand`] when a key means a move. The keys are the two-player
//! screen's ([`crate::app`]): card labels and arrows, `s` stock, `t` pile, `p` pass,
//! Enter/`x` discard, `K` knock; at rummy, labels (or Space) mark cards, `m` melds the marked
//! cards and `l` then a meld's number lays the highlighted card off. A move the legal list
//! does not hold is still sent: the server's reason is shown.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use engine::{Card, CardSet};
use gin_proto::v1 as pb;
use gin_proto::v1::game_event::Kind as K;

use crate::app::{LABELS, Sort};
use crate::tables::{Cmd, TableScreen};

/// A window over the table.
#[derive(Clone, Debug, PartialEq)]
pub enum TableOverlay {
    /// The keys that work at this table.
    Help,
    /// Knock (or gin) discarding this card, leaving this deadwood? (y/n)
    ConfirmKnock(Card, u32),
    /// Big gin? (y/n)
    ConfirmBigGin,
    /// Quit? (y/n)
    ConfirmQuit,
    /// Resign? (y/n)
    ConfirmResign,
    /// Lay this card off: onto which meld? (its number, Enter)
    LayOff(Card, String),
}

/// What a key asks the network side to do.
#[derive(Clone, Debug, PartialEq)]
pub enum TableCommand {
    /// Send this move.
    Act(pb::LegalAction),
    /// Resign the game.
    Resign,
    /// Leave (the seat is kept).
    Quit,
}

/// What a format's table offers, for its keys and its help.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Offers {
    /// Rummy: melds and lay-offs, no knock.
    pub rummy: bool,
    /// The two-player hand's upcard offer (three players, teams).
    pub upcard: bool,
    /// Big gin allowed by the rules.
    pub big_gin: bool,
}

impl Offers {
    /// What `format` offers (`document_json` says whether big gin is on).
    pub fn of(format: &pb::FormatInfo) -> Offers {
        let rummy = format.kind == "rummy";
        let upcard = matches!(format.kind.as_str(), "three-player" | "teams");
        let big_gin = upcard
            && serde_json::from_str::<serde_json::Value>(&format.document_json)
                .ok()
                .and_then(|v| find_bool(&v, "big_gin"))
                .unwrap_or(false);
        Offers { rummy, upcard, big_gin }
    }
}

fn find_bool(v: &serde_json::Value, key: &str) -> Option<bool> {
    match v {
        serde_json::Value::Object(m) => m
            .get(key)
            .and_then(serde_json::Value::as_bool)
            .or_else(|| m.values().find_map(|x| find_bool(x, key))),
        _ => None,
    }
}

/// The keys that work at a table offering `o` (`seated`: a player; a spectator only
/// watches), for the help window.
pub fn keys(o: Offers, seated: bool) -> Vec<(&'static str, &'static str)> {
    if !seated {
        return vec![
            ("Space", "continue after a hand's result"),
            ("?", "show / hide this help"),
            ("Esc", "close a window"),
            ("q", "quit (asks first)"),
            ("Ctrl+C", "quit at once"),
        ];
    }
    let mut k = vec![
        (
            "a-k",
            if o.rummy {
                "highlight the card with that label and mark it"
            } else {
                "select the card with that label"
            },
        ),
        ("Left/Right", "move the highlight"),
    ];
    if o.rummy {
        k.push(("Space", "mark / unmark the highlighted card"));
    }
    k.push(("s", "draw from the stock"));
    k.push((
        "t",
        if o.upcard { "take the top of the pile (or the upcard)" } else { "take the top of the pile" },
    ));
    if o.upcard {
        k.push(("p", "pass the upcard"));
    }
    k.push(("Enter or x", "discard the highlighted card"));
    if o.rummy {
        k.push(("m", "lay the marked cards down as a meld"));
        k.push(("l", "lay the highlighted card off: then the meld's number"));
    } else {
        k.push(("K (shift+k)", "knock (or gin) discarding the highlighted card"));
    }
    if o.big_gin {
        k.push(("B (shift+b)", "big gin: lay down all 11 cards"));
    }
    k.extend([
        ("o", "sort the hand by suit / by rank"),
        (":", "type a command (discard 7S, meld 7C 7D 7H, layoff 7S 2)"),
        ("R (shift+r)", "resign the game (asks first)"),
        ("y / n", "confirm / cancel"),
        ("Space", "continue after a hand's result"),
        ("?", "show / hide this help"),
        ("Esc", "close a window, cancel"),
        ("q", "quit (asks first)"),
        ("Ctrl+C", "quit at once"),
    ]);
    k
}

/// The full screen's state at a table of another format.
#[derive(Clone, Debug)]
pub struct TableApp {
    /// The table as this viewer sees it (snapshot and event log).
    pub screen: TableScreen,
    /// Whether the first snapshot arrived.
    pub ready: bool,
    /// Hand order.
    pub sort: Sort,
    /// The highlighted card (an index into the displayed hand).
    pub selected: usize,
    /// Rummy: the cards marked for a meld.
    pub marked: CardSet,
    /// The card the viewer drew last (shown marked until it discards).
    pub drawn: Option<Card>,
    /// The window over the table.
    pub overlay: Option<TableOverlay>,
    /// Finished hands not yet dismissed (each held until Space), oldest first.
    pub results: Vec<pb::TableHandResult>,
    /// The last finished hand seen (shown under the prompt on a wide screen).
    pub last_result: Option<pb::TableHandResult>,
    /// The `:` command line, while typed.
    pub input: Option<String>,
    /// The status line: (text, whether an error).
    pub status: Option<(String, bool)>,
    /// No colours (`--no-color` or `NO_COLOR`).
    pub no_color: bool,
    /// A move was sent and nothing came back yet: further moves wait.
    pub pending: bool,
    /// The seq of the last event or snapshot taken in (a move names it: `expected_seq`).
    pub last_seq: u64,
    /// The game-over event was taken in: a snapshot's result is shown only after it (a
    /// snapshot fetched ahead of the events must not end the game before its last hands'
    /// results are shown).
    pub game_over_seen: bool,
}

impl TableApp {
    /// A screen waiting for its first snapshot.
    pub fn new(no_color: bool) -> TableApp {
        TableApp {
            screen: TableScreen::default(),
            ready: false,
            sort: Sort::Suit,
            selected: 0,
            marked: CardSet::EMPTY,
            drawn: None,
            overlay: None,
            results: Vec::new(),
            last_result: None,
            input: None,
            status: None,
            no_color,
            pending: false,
            last_seq: 0,
            game_over_seen: false,
        }
    }

    /// A screen showing `snap` (the tests' start).
    pub fn with_snapshot(snap: pb::GameSnapshot, no_color: bool) -> TableApp {
        let mut a = TableApp::new(no_color);
        a.set_snapshot(snap);
        a
    }

    /// What this table offers.
    pub fn offers(&self) -> Offers {
        Offers::of(&self.screen.snap.format.clone().unwrap_or_default())
    }

    /// A fresh snapshot from the server.
    pub fn set_snapshot(&mut self, mut snap: pb::GameSnapshot) {
        let keep = self.selected_card();
        if self.ready && !self.game_over_seen {
            // Ahead of the events: the end waits for its event, after the hands' results.
            snap.result = None;
        }
        self.last_seq = self.last_seq.max(snap.seq);
        self.screen.snap = snap;
        self.ready = true;
        let hand = self.hand_set();
        self.marked &= hand;
        if let Some(d) = self.drawn.filter(|c| hand.contains(*c)) {
            self.select(d);
        } else if let Some(c) = keep {
            self.select(c);
        }
        self.clamp();
    }

    fn select(&mut self, c: Card) {
        if let Some(i) = self.hand_order().iter().position(|&x| x == c) {
            self.selected = i;
        }
    }

    /// Folds one event in: the log, the turn, a finished hand held for the viewer. Whether
    /// the snapshot should be fetched again (a turn started, the game ended).
    pub fn on_event(&mut self, ev: &pb::GameEvent) -> bool {
        let v = self.screen.viewer();
        // An event the snapshot in hand already holds: only its line for the log.
        let behind = ev.seq <= self.screen.snap.seq;
        self.last_seq = self.last_seq.max(ev.seq);
        let mut refresh = false;
        match ev.kind.as_ref() {
            Some(K::CardDrawn(d)) if Some(d.seat) == v => {
                self.drawn = d.card.parse().ok();
            }
            Some(K::CardDiscarded(d)) if Some(d.seat) == v => {
                self.drawn = None;
                self.marked = CardSet::EMPTY;
            }
            Some(K::MeldLaid(d)) if Some(d.seat) == v => self.marked = CardSet::EMPTY,
            Some(K::TableHandEnded(h)) => {
                let r = h.result.clone().unwrap_or_default();
                // A player sees its own table's results; a spectator every table's.
                if v.is_none_or(|v| r.seats.contains(&v)) {
                    self.last_result = Some(r.clone());
                    self.results.push(r);
                    // The move that ended the hand (a knock, a gin, going out) has no event
                    // of its own: the hand's end answers it.
                    self.pending = false;
                    self.drawn = None;
                    self.marked = CardSet::EMPTY;
                }
                refresh = true;
            }
            Some(K::GameOver(g)) => {
                // The end, as the event says it (the snapshot fetched next says the same).
                self.game_over_seen = true;
                self.pending = false;
                self.screen.snap.result = g.result.clone();
                self.screen.snap.seats_to_act.clear();
                refresh = true;
            }
            Some(K::TurnStarted(_) | K::HandDealt(_)) => refresh = true,
            _ => {}
        }
        let by_me = match ev.kind.as_ref() {
            Some(K::CardDrawn(d)) => Some(d.seat),
            Some(K::CardDiscarded(d)) => Some(d.seat),
            Some(K::MeldLaid(d)) => Some(d.seat),
            Some(K::CardLaidOff(d)) => Some(d.seat),
            Some(K::UpcardPassed(d)) => Some(d.seat),
            _ => None,
        };
        if by_me.is_some() && by_me == v {
            self.pending = false;
            self.status = None;
        }
        if behind {
            if let Some(line) = self.screen.describe(ev) {
                self.screen.log.push(line);
            }
        } else {
            self.screen.on_event(ev);
        }
        if matches!(
            self.overlay,
            Some(TableOverlay::ConfirmKnock(..) | TableOverlay::ConfirmBigGin | TableOverlay::LayOff(..))
        ) && self.screen.my_turn().is_none()
        {
            self.overlay = None;
        }
        refresh
    }

    /// The server refused the move sent: its reason, and moves are taken again.
    pub fn refused(&mut self, why: impl Into<String>) {
        self.pending = false;
        self.status = Some((why.into(), true));
    }

    /// Shows `text` on the status line.
    pub fn info(&mut self, text: impl Into<String>) {
        self.status = Some((text.into(), false));
    }

    /// Shows `text` on the status line as an error.
    pub fn error(&mut self, text: impl Into<String>) {
        self.status = Some((text.into(), true));
    }

    fn hand_set(&self) -> CardSet {
        self.screen.snap.hand.iter().filter_map(|c| c.parse::<Card>().ok()).collect()
    }

    /// The viewer's cards in display order.
    pub fn hand_order(&self) -> Vec<Card> {
        let h = self.hand_set();
        match self.sort {
            Sort::Suit => h.iter().collect(),
            Sort::Rank => h.by_rank(),
        }
    }

    /// The highlighted card.
    pub fn selected_card(&self) -> Option<Card> {
        self.hand_order().get(self.selected).copied()
    }

    fn clamp(&mut self) {
        let n = self.hand_order().len();
        self.selected = if n == 0 { 0 } else { self.selected.min(n - 1) };
    }

    /// The legal moves now (empty when not the viewer's turn).
    pub fn legal(&self) -> &[pb::LegalAction] {
        self.screen.my_turn().map_or(&[], |t| &t.legal_actions)
    }

    fn legal_of(&self, kind: pb::ActionKind) -> impl Iterator<Item = &pb::LegalAction> {
        self.legal().iter().filter(move |a| a.kind == kind as i32)
    }

    /// The table melds the highlighted card `c` may be laid off onto now.
    pub fn layoff_targets(&self, c: Card) -> Vec<u32> {
        self.legal_of(pb::ActionKind::LayOff).filter(|a| a.card == c.to_string()).map(|a| a.meld).collect()
    }

    /// Applies one key: changes the screen, and returns the command it asks for.
    pub fn handle_key(&mut self, key: KeyEvent) -> Option<TableCommand> {
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            return Some(TableCommand::Quit);
        }
        if let Some(line) = self.input.as_mut() {
            match key.code {
                // Backspace on an empty line closes it, as Esc does.
                KeyCode::Esc => self.input = None,
                KeyCode::Backspace if line.pop().is_none() => self.input = None,
                KeyCode::Char(c) => line.push(c),
                KeyCode::Enter => {
                    let line = self.input.take().unwrap_or_default();
                    return self.typed(&line);
                }
                _ => {}
            }
            return None;
        }
        match self.overlay.clone() {
            Some(TableOverlay::ConfirmQuit) => {
                return match key.code {
                    KeyCode::Char('y' | 'Y') => Some(TableCommand::Quit),
                    _ => {
                        self.overlay = None;
                        None
                    }
                };
            }
            Some(TableOverlay::ConfirmResign) => {
                self.overlay = None;
                if matches!(key.code, KeyCode::Char('y' | 'Y')) {
                    return Some(TableCommand::Resign);
                }
                self.info("resign cancelled");
                return None;
            }
            Some(TableOverlay::ConfirmKnock(c, _)) => {
                self.overlay = None;
                if matches!(key.code, KeyCode::Char('y' | 'Y')) {
                    return self.act(pb::ActionKind::Knock, c.to_string(), vec![], 0);
                }
                self.info("knock cancelled");
                return None;
            }
            Some(TableOverlay::ConfirmBigGin) => {
                self.overlay = None;
                if matches!(key.code, KeyCode::Char('y' | 'Y')) {
                    return self.act(pb::ActionKind::BigGin, String::new(), vec![], 0);
                }
                return None;
            }
            Some(TableOverlay::Help) => {
                if matches!(key.code, KeyCode::Char('?' | 'q') | KeyCode::Esc) {
                    self.overlay = None;
                }
                return None;
            }
            Some(TableOverlay::LayOff(c, mut digits)) => {
                match key.code {
                    KeyCode::Char(d) if d.is_ascii_digit() => {
                        digits.push(d);
                        let n: u32 = digits.parse().unwrap_or(u32::MAX);
                        // Sent at once unless another meld's number starts with these digits.
                        let longer = self
                            .screen
                            .snap
                            .tables
                            .iter()
                            .flat_map(|t| &t.melds)
                            .any(|m| m.index != n && m.index.to_string().starts_with(&digits));
                        if !longer {
                            self.overlay = None;
                            return self.act(pb::ActionKind::LayOff, c.to_string(), vec![], n);
                        }
                        self.overlay = Some(TableOverlay::LayOff(c, digits));
                    }
                    KeyCode::Backspace => {
                        digits.pop();
                        self.overlay = Some(TableOverlay::LayOff(c, digits));
                    }
                    KeyCode::Enter if !digits.is_empty() => {
                        self.overlay = None;
                        let n = digits.parse().unwrap_or(u32::MAX);
                        return self.act(pb::ActionKind::LayOff, c.to_string(), vec![], n);
                    }
                    KeyCode::Esc | KeyCode::Char('q') => {
                        self.overlay = None;
                        self.info("lay-off cancelled");
                    }
                    _ => {}
                }
                return None;
            }
            None => {}
        }
        // A finished hand's result is held until Space.
        if !self.results.is_empty() {
            match key.code {
                KeyCode::Char(' ') | KeyCode::Enter | KeyCode::Esc => {
                    self.results.remove(0);
                }
                // At the game's end q leaves, as on its window.
                KeyCode::Char('q') if self.screen.is_over() => return Some(TableCommand::Quit),
                KeyCode::Char('q') => self.overlay = Some(TableOverlay::ConfirmQuit),
                KeyCode::Char('?') => self.overlay = Some(TableOverlay::Help),
                _ => {}
            }
            return None;
        }
        let n = self.hand_order().len();
        let offers = self.offers();
        match key.code {
            KeyCode::Char('?') => self.overlay = Some(TableOverlay::Help),
            KeyCode::Char('q') => {
                if self.screen.is_over() {
                    return Some(TableCommand::Quit);
                }
                self.overlay = Some(TableOverlay::ConfirmQuit);
            }
            KeyCode::Char(':') => self.input = Some(String::new()),
            KeyCode::Esc => {
                self.marked = CardSet::EMPTY;
                self.status = None;
            }
            KeyCode::Char('o') => {
                let c = self.selected_card();
                self.sort = if self.sort == Sort::Suit { Sort::Rank } else { Sort::Suit };
                if let Some(c) = c {
                    self.select(c);
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
                    if offers.rummy {
                        self.toggle_mark();
                    }
                } else {
                    self.error(format!("no card labelled {ch}"));
                }
            }
            KeyCode::Char(' ') if offers.rummy => self.toggle_mark(),
            KeyCode::Char('s') => return self.act(pb::ActionKind::DrawStock, String::new(), vec![], 0),
            KeyCode::Char('t') => {
                let kind = if self.screen.snap.phase == pb::Phase::UpcardOffer as i32 {
                    pb::ActionKind::TakeUpcard
                } else {
                    pb::ActionKind::DrawPile
                };
                return self.act(kind, String::new(), vec![], 0);
            }
            KeyCode::Char('p') => return self.act(pb::ActionKind::PassUpcard, String::new(), vec![], 0),
            KeyCode::Enter | KeyCode::Char('x') => {
                let c = self.selected_card()?;
                return self.act(pb::ActionKind::Discard, c.to_string(), vec![], 0);
            }
            KeyCode::Char('K') => {
                let c = self.selected_card()?;
                let dw = self
                    .legal_of(pb::ActionKind::Knock)
                    .find(|a| a.card == c.to_string())
                    .map(|a| a.deadwood);
                match dw {
                    Some(dw) if !self.pending => self.overlay = Some(TableOverlay::ConfirmKnock(c, dw)),
                    // Not offered: the server says why.
                    _ => return self.act(pb::ActionKind::Knock, c.to_string(), vec![], 0),
                }
            }
            KeyCode::Char('B') => {
                if self.legal_of(pb::ActionKind::BigGin).next().is_some() {
                    self.overlay = Some(TableOverlay::ConfirmBigGin);
                } else {
                    return self.act(pb::ActionKind::BigGin, String::new(), vec![], 0);
                }
            }
            KeyCode::Char('m') => {
                if self.marked.len() < 3 {
                    self.error("mark the meld's cards first (their labels or Space), at least 3");
                    return None;
                }
                let cards = self.marked.iter().map(|c| c.to_string()).collect();
                return self.act(pb::ActionKind::Meld, String::new(), cards, 0);
            }
            KeyCode::Char('l') => {
                let c = self.selected_card()?;
                if self.screen.my_turn().is_none() {
                    return self.act(pb::ActionKind::LayOff, c.to_string(), vec![], 0);
                }
                self.overlay = Some(TableOverlay::LayOff(c, String::new()));
            }
            KeyCode::Char('R') => {
                if self.screen.viewer().is_some() && !self.screen.is_over() {
                    self.overlay = Some(TableOverlay::ConfirmResign);
                } else {
                    self.error("only a seated player can resign, before the end");
                }
            }
            _ => {}
        }
        None
    }

    fn toggle_mark(&mut self) {
        if let Some(c) = self.selected_card() {
            if self.marked.contains(c) {
                self.marked.remove(c);
            } else {
                self.marked.insert(c);
            }
        }
    }

    /// A typed command (the `:` line): the same commands as `--plain`.
    fn typed(&mut self, line: &str) -> Option<TableCommand> {
        match self.screen.command(line) {
            Ok(Cmd::Help) => self.overlay = Some(TableOverlay::Help),
            Ok(Cmd::Quit) => self.overlay = Some(TableOverlay::ConfirmQuit),
            Ok(Cmd::Resign) => self.overlay = Some(TableOverlay::ConfirmResign),
            Ok(Cmd::Play(a)) => return self.send(a),
            Err(e) => self.error(e),
        }
        None
    }

    /// The move, in the legal list's own spelling when it is there; sent either way (the
    /// server says why it refuses one).
    fn act(
        &mut self,
        kind: pb::ActionKind,
        card: String,
        cards: Vec<String>,
        meld: u32,
    ) -> Option<TableCommand> {
        let a = pb::LegalAction { kind: kind as i32, card, cards, meld, ..Default::default() };
        self.send(a)
    }

    fn send(&mut self, a: pb::LegalAction) -> Option<TableCommand> {
        if self.screen.viewer().is_none() {
            self.error("you are watching: spectators do not play");
            return None;
        }
        if self.screen.is_over() {
            self.error("the game is over");
            return None;
        }
        if self.pending {
            self.info("waiting for the server…");
            return None;
        }
        let a = self.legal().iter().find(|l| crate::tables::same_move(l, &a)).cloned().unwrap_or(a);
        self.status = None;
        self.pending = true;
        Some(TableCommand::Act(a))
    }
}
