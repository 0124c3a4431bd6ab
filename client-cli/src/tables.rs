//! `gin play` and `gin watch` at a table of another format (three players, teams, gin for 3
//! to 6, rummy): the picture of the table one viewer may see ([`TableScreen`], pure: built
//! from the server's snapshot and events), its text lines (the `--plain` mode prints them),
//! the commands a player types (`meld 7C 7D 7H`, `layoff 7S 2`, …: `--plain`, and the full
//! screen's `:` line). The full screen is [`crate::table_app`] and [`crate::table_render`].
//!
//! The screen shows every opponent with its card count and the cards known taken from the
//! pile, each table in play (team play: two) with its pile and stock, rummy's melds with who
//! laid each card, the totals (team play: per team), the seat sitting out in the three-player
//! rotation, the viewer's hand with its best melds, and the last events. A refused move shows
//! the server's reason.

use engine::{Card, CardSet};
use gin_proto::v1 as pb;
use gin_proto::v1::game_event::Kind as K;

use crate::render::end_name;
use crate::table::shown;

/// Event lines kept for the screen.
const LOG: usize = 200;

/// One viewer's picture of a table game.
#[derive(Clone, Debug, Default)]
pub struct TableScreen {
    /// The latest snapshot for this viewer (refreshed after events).
    pub snap: pb::GameSnapshot,
    /// What happened, oldest first (the last 200 lines).
    pub log: Vec<String>,
    /// The last refusal or help text, until the next move (`--plain`).
    pub message: Option<String>,
}

/// A command a player typed.
#[derive(Clone, Debug, PartialEq)]
pub enum Cmd {
    /// A move (sent as is: the server says why, if it refuses it).
    Play(pb::LegalAction),
    /// Show the commands.
    Help,
    /// Leave (the seat is kept).
    Quit,
    /// Resign the game.
    Resign,
}

/// The commands, for `help`.
pub const HELP: &str = "commands: stock (s) | pile (t: take the pile's top or the upcard) | pass (p) | \
discard CARD (d) | knock CARD (k) | biggin | meld CARDS (m, e.g. meld 7C 7D 7H) | \
layoff CARD MELD (l, e.g. layoff 7S 2: onto the table's meld 2) | resign | quit (q)";

fn card_list(v: &[String]) -> String {
    v.iter().map(|c| shown(c)).collect::<Vec<_>>().join(" ")
}

impl TableScreen {
    /// The screen of `snap`.
    pub fn new(snap: pb::GameSnapshot) -> TableScreen {
        TableScreen { snap, ..Default::default() }
    }

    /// The viewer's seat (`None`: a spectator).
    pub fn viewer(&self) -> Option<u32> {
        self.snap.viewer_seat
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.snap.result.is_some()
    }

    /// The viewer's turn: its legal moves, when it may act.
    pub fn my_turn(&self) -> Option<&pb::TurnInfo> {
        let v = self.viewer()?;
        self.snap.turn.as_ref().filter(|_| self.snap.seats_to_act.contains(&v))
    }

    /// Seat `s` as people read it: `seat 2 (bob)`, `you`.
    pub fn name(&self, s: u32) -> String {
        if self.viewer() == Some(s) {
            return "you".into();
        }
        let seat = self.snap.seats.iter().find(|x| x.seat == s);
        match seat {
            Some(x) if x.bot => format!("seat {s} ({}, bot)", shown(&x.name)),
            Some(x) if x.entrant => format!("seat {s} ({}, entrant)", shown(&x.name)),
            // Signed in: the account's name (`(bot)` for a program's); a guest's as given.
            Some(x) => format!("seat {s} ({})", shown(&gin_sdk::seat_name(x))),
            None => format!("seat {s}"),
        }
    }

    /// Notes event `ev` in the log (the snapshot is refreshed by the caller); the line, if
    /// the event says something to a person.
    pub fn on_event(&mut self, ev: &pb::GameEvent) -> Option<String> {
        // The viewer's own move, or a new hand or the end: its turn is over until the server
        // gives the next one.
        // (In team play the other table's deals and ends are not the viewer's.)
        let v = self.viewer();
        let mine =
            |seats: &[u32]| if seats.is_empty() || v.is_some_and(|v| seats.contains(&v)) { v } else { None };
        let by_me = match ev.kind.as_ref() {
            Some(K::CardDrawn(d)) => Some(d.seat),
            Some(K::CardDiscarded(d)) => Some(d.seat),
            Some(K::MeldLaid(d)) => Some(d.seat),
            Some(K::CardLaidOff(d)) => Some(d.seat),
            Some(K::UpcardPassed(d)) => Some(d.seat),
            Some(K::HandDealt(d)) => mine(&d.seats),
            Some(K::TableHandEnded(h)) => {
                mine(&h.result.as_ref().map(|r| r.seats.clone()).unwrap_or_default())
            }
            Some(K::HandEnded(_) | K::GameOver(_)) => v,
            _ => None,
        };
        if by_me.is_some() && by_me == v {
            self.snap.turn = None;
        }
        let line = self.describe(ev)?;
        self.log.push(line.clone());
        if self.log.len() > LOG {
            self.log.remove(0);
        }
        Some(line)
    }

    /// Event `ev` as a line for people (hands counted from 1, as the screens do).
    pub fn describe(&self, ev: &pb::GameEvent) -> Option<String> {
        let n = |s: u32| self.name(s);
        Some(match ev.kind.as_ref()? {
            K::PlayerJoined(j) => format!("{} took seat {}", shown(&gin_sdk::joined_name(j)), j.seat),
            K::PlayerLeft(l) => format!("{} left the game", n(l.seat)),
            K::HandDealt(d) => {
                let at =
                    if self.snap.tables.len() > 1 { format!(" at table {}", d.table) } else { String::new() };
                let mine = if d.your_hand.is_empty() {
                    String::new()
                } else {
                    format!(": you hold {}", card_list(&d.your_hand))
                };
                format!(
                    "hand {} dealt{at} by {}, upcard {}{mine}",
                    d.hand_number + 1,
                    n(d.dealer),
                    shown(&d.upcard)
                )
            }
            K::TurnStarted(_) | K::ClockExpired(_) => return None,
            K::UpcardPassed(p) => format!("{} passed the upcard", n(p.seat)),
            K::CardDrawn(d) => {
                let from = if d.source == pb::DrawSource::Pile as i32 { "the pile" } else { "the stock" };
                if d.card.is_empty() {
                    format!("{} drew from {from}", n(d.seat))
                } else {
                    format!("{} drew {} from {from}", n(d.seat), shown(&d.card))
                }
            }
            K::CardDiscarded(d) => format!("{} discarded {}", n(d.seat), shown(&d.card)),
            K::MeldLaid(m) => {
                let meld = m.meld.clone().unwrap_or_default();
                format!("{} laid meld {}: {}", n(m.seat), meld.index, card_list(&meld.cards))
            }
            K::CardLaidOff(l) => format!("{} laid {} off onto meld {}", n(l.seat), shown(&l.card), l.meld),
            K::PileTurned(p) => format!("the stock ran out: the pile was turned ({} cards)", p.stock_size),
            K::TableHandEnded(h) => {
                let r = h.result.clone().unwrap_or_default();
                let who = match (r.winner, r.by) {
                    (Some(w), _) => format!("{} scored {}", n(w), r.points),
                    (None, _) => "nobody scored".into(),
                };
                let limit = if r.end == pb::EndKind::TurnLimit as i32 {
                    format!(" after {} turns", r.turns)
                } else {
                    String::new()
                };
                format!("hand {} over ({}{limit}): {who}", r.hand_number + 1, end_name(r.end))
            }
            K::HandEnded(h) => {
                let r = h.result.clone().unwrap_or_default();
                format!("hand {} over ({})", r.hand_number + 1, end_name(r.end))
            }
            K::GameOver(g) => {
                let r = g.result.clone().unwrap_or_default();
                let winners: Vec<String> = r.winners.iter().map(|&w| n(w)).collect();
                let limit = if r.reason == pb::GameEndReason::HandLimit as i32 {
                    " (the hand limit: the totals decide)"
                } else {
                    ""
                };
                format!(
                    "game over{limit}: {} won",
                    if winners.is_empty() { "nobody".into() } else { winners.join(" and ") }
                )
            }
        })
    }

    /// The table as lines: the format, each table in play, every seat, the totals, the
    /// viewer's hand and best melds, whose turn it is.
    pub fn lines(&self) -> Vec<String> {
        let s = &self.snap;
        let mut out = Vec::new();
        let f = s.format.clone().unwrap_or_default();
        let viewer = match s.viewer_seat {
            Some(v) => format!("you are seat {v}"),
            None => "watching".into(),
        };
        // Team play deals a round: a hand at each table.
        let hand = if s.tables.len() > 1 { "round" } else { "hand" };
        out.push(format!(
            "game {}: {} for {}, {hand} {} ({viewer})",
            shown(&s.game_id),
            shown(&f.name),
            f.players,
            s.hand_number + 1
        ));
        if let Some(sit) = s.sitting_out {
            out.push(format!("sitting out: {} (deals this hand)", self.name(sit)));
        }
        for (i, t) in s.tables.iter().enumerate() {
            let label = if s.tables.len() > 1 { format!("table {i}: ") } else { String::new() };
            let top = t.pile.last().map_or("empty".to_string(), |c| shown(c));
            out.push(format!(
                "{label}pile {top}, stock {} cards, dealer {}",
                t.stock_size,
                self.name(t.dealer)
            ));
            for (k, &seat) in t.seats.iter().enumerate() {
                let cards = t.hand_sizes.get(k).copied().unwrap_or(0);
                let known =
                    t.known.iter().find(|x| x.seat == seat).map(|x| card_list(&x.cards)).unwrap_or_default();
                let known = if known.is_empty() { String::new() } else { format!(", known {known}") };
                let total = s.totals.get(seat as usize).map(|t| format!(", total {t}")).unwrap_or_default();
                let acts = if s.seats_to_act.contains(&seat) { "  <- to act" } else { "" };
                out.push(format!("  {}: {cards} cards{known}{total}{acts}", self.name(seat)));
            }
            for m in &t.melds {
                let off: Vec<String> = m
                    .layoffs
                    .iter()
                    .map(|l| format!("{} by {}", shown(&l.card), self.name(l.seat)))
                    .collect();
                let off =
                    if off.is_empty() { String::new() } else { format!(" (laid off: {})", off.join(", ")) };
                out.push(format!(
                    "  meld {}: {} by {}{off}",
                    m.index,
                    card_list(&m.cards),
                    self.name(m.seat)
                ));
            }
        }
        if !s.team_totals.is_empty() {
            let t: Vec<String> = s
                .team_totals
                .iter()
                .enumerate()
                .map(|(i, x)| format!("team {i} (seats {} and {}) {x}", i, i + 2))
                .collect();
            out.push(format!("teams: {}", t.join(", ")));
        }
        if s.viewer_seat.is_some() {
            out.push(format!("your hand: {}", card_list(&s.hand)));
        }
        if let Some(t) = self.my_turn()
            && let Some(b) = &t.best
        {
            let melds: Vec<String> = b.melds.iter().map(|m| card_list(&m.cards)).collect();
            let after = if t.best_discard.is_empty() {
                String::new()
            } else {
                format!(" after discarding {}", shown(&t.best_discard))
            };
            out.push(format!(
                "best melds: {}; deadwood {}{after}",
                if melds.is_empty() { "none".into() } else { melds.join(" | ") },
                b.deadwood_value
            ));
        }
        if let Some(r) = &s.result {
            let totals: Vec<String> = r.table_totals.iter().map(i64::to_string).collect();
            let winners: Vec<String> = r.winners.iter().map(|&w| self.name(w)).collect();
            out.push(format!(
                "game over: totals {}; won by {}",
                totals.join(" "),
                if winners.is_empty() { "nobody".into() } else { winners.join(" and ") }
            ));
        } else if let Some(t) = self.my_turn() {
            out.push(format!("your move: {}", legal_text(t)));
        }
        out
    }

    /// Reads a typed command. A move is built as typed, whether legal or not: the server
    /// says why it refuses one.
    pub fn command(&self, line: &str) -> Result<Cmd, String> {
        use pb::ActionKind as A;
        let mut words = line.split_whitespace();
        let Some(word) = words.next() else { return Err(HELP.into()) };
        let rest: Vec<&str> = words.collect();
        let card = |i: usize| -> Result<String, String> {
            let w = rest.get(i).ok_or_else(|| format!("{word}: which card? ({HELP})"))?;
            w.parse::<Card>().map(|c| c.to_string()).map_err(|e| format!("{w}: {e}"))
        };
        let mv = |kind: A| pb::LegalAction { kind: kind as i32, ..Default::default() };
        let offer = self.snap.phase == pb::Phase::UpcardOffer as i32;
        let cmd = match word.to_ascii_lowercase().as_str() {
            "help" | "h" | "?" => Cmd::Help,
            "quit" | "q" => Cmd::Quit,
            "resign" => Cmd::Resign,
            "stock" | "s" | "draw" => Cmd::Play(mv(A::DrawStock)),
            "pile" | "take" | "t" => Cmd::Play(mv(if offer { A::TakeUpcard } else { A::DrawPile })),
            "pass" | "p" => Cmd::Play(mv(A::PassUpcard)),
            "biggin" | "big" => Cmd::Play(mv(A::BigGin)),
            "discard" | "d" | "x" => Cmd::Play(pb::LegalAction { card: card(0)?, ..mv(A::Discard) }),
            "knock" | "k" => Cmd::Play(pb::LegalAction { card: card(0)?, ..mv(A::Knock) }),
            "meld" | "m" => {
                if rest.len() < 3 {
                    return Err("meld: name its cards, at least 3 (meld 7C 7D 7H)".into());
                }
                let cards: Result<CardSet, _> = rest.iter().map(|w| w.parse::<Card>()).collect();
                let cards = cards.map_err(|e| format!("meld: {e}"))?;
                Cmd::Play(pb::LegalAction {
                    cards: cards.iter().map(|c| c.to_string()).collect(),
                    ..mv(A::Meld)
                })
            }
            "layoff" | "l" => {
                let meld = rest
                    .get(1)
                    .and_then(|w| w.parse::<u32>().ok())
                    .ok_or("layoff: name the card and the meld's number (layoff 7S 2)")?;
                Cmd::Play(pb::LegalAction { card: card(0)?, meld, ..mv(A::LayOff) })
            }
            // A card alone discards it.
            w if w.parse::<Card>().is_ok() => {
                Cmd::Play(pb::LegalAction { card: card_of(w), ..mv(A::Discard) })
            }
            _ => return Err(format!("unknown command {:?}; {HELP}", shown(word))),
        };
        if let Cmd::Play(a) = &cmd {
            // The legal list names the meld's cards in its own order: send them so.
            if let Some(t) = self.my_turn()
                && let Some(same) = t.legal_actions.iter().find(|l| same_move(l, a))
            {
                return Ok(Cmd::Play(same.clone()));
            }
        }
        Ok(cmd)
    }
}

fn card_of(w: &str) -> String {
    w.parse::<Card>().map(|c| c.to_string()).unwrap_or_default()
}

/// Whether two moves are the same (a meld's cards in any order; the upcard taken is the pile
/// drawn).
pub fn same_move(a: &pb::LegalAction, b: &pb::LegalAction) -> bool {
    let set = |v: &[String]| v.iter().filter_map(|c| c.parse::<Card>().ok()).collect::<CardSet>();
    let kind =
        |k: i32| if k == pb::ActionKind::TakeUpcard as i32 { pb::ActionKind::DrawPile as i32 } else { k };
    kind(a.kind) == kind(b.kind) && a.card == b.card && a.meld == b.meld && set(&a.cards) == set(&b.cards)
}

/// The legal moves as commands: `stock | pile | meld 7C 7D 7H | layoff 9S 0 | discard …`.
pub fn legal_text(t: &pb::TurnInfo) -> String {
    use pb::ActionKind as A;
    let mut words: Vec<String> = Vec::new();
    let mut discards = Vec::new();
    let mut knocks = Vec::new();
    for a in &t.legal_actions {
        match A::try_from(a.kind).unwrap_or(A::Unspecified) {
            A::DrawStock => words.push("stock".into()),
            A::DrawPile | A::TakeUpcard => words.push("pile".into()),
            A::PassUpcard => words.push("pass".into()),
            A::BigGin => words.push("biggin".into()),
            A::Meld => words.push(format!("meld {}", card_list(&a.cards))),
            A::LayOff => words.push(format!("layoff {} {}", shown(&a.card), a.meld)),
            A::Discard => discards.push(shown(&a.card)),
            A::Knock => knocks.push(format!("{} ({})", shown(&a.card), a.deadwood)),
            A::Unspecified => {}
        }
    }
    if !knocks.is_empty() {
        words.push(format!("knock {}", knocks.join(" ")));
    }
    if !discards.is_empty() {
        words.push(format!("discard {}", discards.join(" ")));
    }
    words.join(" | ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn screen(phase: pb::Phase, legal: Vec<pb::LegalAction>) -> TableScreen {
        TableScreen::new(pb::GameSnapshot {
            viewer_seat: Some(1),
            seats_to_act: vec![1],
            phase: phase as i32,
            turn: Some(pb::TurnInfo { legal_actions: legal, ..Default::default() }),
            ..Default::default()
        })
    }

    fn la(kind: pb::ActionKind, card: &str, cards: &[&str], meld: u32) -> pb::LegalAction {
        pb::LegalAction {
            kind: kind as i32,
            card: card.into(),
            cards: cards.iter().map(|c| c.to_string()).collect(),
            meld,
            ..Default::default()
        }
    }

    #[test]
    fn commands_become_moves_as_the_legal_list_spells_them() {
        use pb::ActionKind as A;
        let meld = la(A::Meld, "", &["7C", "7D", "7H"], 0);
        let s = screen(pb::Phase::Discard, vec![meld.clone(), la(A::LayOff, "8S", &[], 2)]);
        // Any order, any case: the legal list's own form is sent.
        assert_eq!(s.command("meld 7h 7C 7d"), Ok(Cmd::Play(meld)));
        assert_eq!(s.command("l 8S 2"), Ok(Cmd::Play(la(A::LayOff, "8S", &[], 2))));
        // Not legal now: sent as typed, for the server to say why.
        assert_eq!(s.command("discard KS"), Ok(Cmd::Play(la(A::Discard, "KS", &[], 0))));
        assert_eq!(s.command("KS"), Ok(Cmd::Play(la(A::Discard, "KS", &[], 0))));
        // Malformed: a clear error, nothing sent.
        assert!(s.command("meld 7C 7D").unwrap_err().contains("at least 3"));
        assert!(s.command("layoff 8S").unwrap_err().contains("meld's number"));
        assert!(s.command("discard ZZ").unwrap_err().contains("ZZ"));
        assert!(s.command("dance").unwrap_err().starts_with("unknown command"));
        assert_eq!(s.command("help"), Ok(Cmd::Help));
        assert_eq!(s.command("q"), Ok(Cmd::Quit));
        // The upcard offer takes with TakeUpcard; later turns draw the pile.
        let offer = screen(pb::Phase::UpcardOffer, vec![]);
        assert_eq!(offer.command("take"), Ok(Cmd::Play(la(A::TakeUpcard, "", &[], 0))));
        let draw = screen(pb::Phase::Draw, vec![]);
        assert_eq!(draw.command("pile"), Ok(Cmd::Play(la(A::DrawPile, "", &[], 0))));
    }

    #[test]
    fn the_viewers_own_move_ends_its_turn_until_the_next_one() {
        let mut s = screen(pb::Phase::Draw, vec![la(pb::ActionKind::DrawStock, "", &[], 0)]);
        let other = pb::GameEvent {
            seq: 5,
            kind: Some(K::CardDiscarded(pb::CardDiscarded { seat: 0, card: "KS".into() })),
            ..Default::default()
        };
        s.on_event(&other);
        assert!(s.my_turn().is_some(), "another seat's move (the other table's) leaves it");
        let mine = pb::GameEvent {
            seq: 7,
            kind: Some(K::CardDrawn(pb::CardDrawn {
                seat: 1,
                source: pb::DrawSource::Stock as i32,
                card: "2C".into(),
                stock_size: 9,
            })),
            ..Default::default()
        };
        // The other table's hand ends (team play): still this seat's turn.
        let other_table = pb::GameEvent {
            seq: 6,
            kind: Some(K::TableHandEnded(pb::TableHandEnded {
                result: Some(pb::TableHandResult { seats: vec![2, 3], ..Default::default() }),
            })),
            ..Default::default()
        };
        s.on_event(&other_table);
        assert!(s.my_turn().is_some(), "the other table's hand end leaves it");
        assert_eq!(s.on_event(&mine).as_deref(), Some("you drew 2C from the stock"));
        assert!(s.my_turn().is_none());
        let mut s = screen(pb::Phase::Draw, vec![la(pb::ActionKind::DrawStock, "", &[], 0)]);
        let own_table = pb::GameEvent {
            seq: 7,
            kind: Some(K::TableHandEnded(pb::TableHandEnded {
                result: Some(pb::TableHandResult { seats: vec![1, 0], ..Default::default() }),
            })),
            ..Default::default()
        };
        s.on_event(&own_table);
        assert!(s.my_turn().is_none(), "its own table's hand end ends it");
    }
}
