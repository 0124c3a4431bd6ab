//! Drawing the full-screen client: pure functions of an [`App`] (and the time, for the turn
//! clock) onto a ratatui [`Frame`]. Nothing here changes state or does I/O, so every screen
//! renders into a `TestBackend` in the tests.
//!
//! The screen: a header (game, rules, hand, score), the table (stock, pile, the opponent's
//! known cards, who plays, the clock), the hand with its labels, melds and deadwood, a
//! prompt saying what to do, and on the right the score sheet and the move log; windows over
//! it for help, confirmations, a hand's result and the game's end.

use engine::{Card, CardSet, Seat, Suit};
use gin_proto::v1 as pb;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use crate::app::{App, KEYS, LABELS, Overlay, Stage};
use crate::table::Table;

/// The smallest screen the table is drawn on (a message asks for more below it).
pub const MIN_WIDTH: u16 = 60;
/// See [`MIN_WIDTH`].
pub const MIN_HEIGHT: u16 = 20;

/// A card for the screen: `7♠` in colour mode, `7S` without colours.
pub fn card_text(c: Card, no_color: bool) -> String {
    if no_color { c.to_string() } else { format!("{}{}", c.rank(), c.suit().symbol()) }
}

fn suit_style(s: Suit, no_color: bool) -> Style {
    if no_color {
        return Style::default();
    }
    match s {
        Suit::Clubs => Style::default().fg(Color::Green),
        Suit::Diamonds => Style::default().fg(Color::Blue),
        Suit::Hearts => Style::default().fg(Color::Red),
        Suit::Spades => Style::default(),
    }
}

/// A card as a styled span.
pub fn card_span(c: Card, no_color: bool) -> Span<'static> {
    Span::styled(card_text(c, no_color), suit_style(c.suit(), no_color))
}

fn cards_spans(cards: impl IntoIterator<Item = Card>, no_color: bool) -> Vec<Span<'static>> {
    let mut v = Vec::new();
    for (i, c) in cards.into_iter().enumerate() {
        if i > 0 {
            v.push(Span::raw(" "));
        }
        v.push(card_span(c, no_color));
    }
    v
}

fn wire_cards(v: &[String]) -> Vec<Card> {
    v.iter().filter_map(|c| c.parse().ok()).collect()
}

fn meld_spans(m: &[Card], no_color: bool) -> Vec<Span<'static>> {
    let mut v = vec![Span::raw("[")];
    v.extend(cards_spans(m.iter().copied(), no_color));
    v.push(Span::raw("]"));
    v
}

fn bold() -> Style {
    Style::default().add_modifier(Modifier::BOLD)
}

/// The time left on a turn clock as `m:ss`, or `None` without a clock.
pub fn clock_text(deadline_ms: i64, now_ms: i64) -> Option<String> {
    if deadline_ms == 0 {
        return None;
    }
    let left = (deadline_ms - now_ms).max(0) / 1000;
    Some(format!("{}:{:02}", left / 60, left % 60))
}

/// Draws the whole screen for `app` at time `now_ms` (unix ms, for the clock).
pub fn draw(f: &mut Frame, app: &App, now_ms: i64) {
    let area = f.area();
    let t = match &app.stage {
        Stage::Connecting(what) => {
            let [_, mid, status] =
                Layout::vertical([Constraint::Min(0), Constraint::Length(3), Constraint::Length(1)])
                    .areas(area);
            f.render_widget(
                Paragraph::new(vec![Line::from(Span::styled(what.clone(), bold())), Line::from("q: quit")])
                    .block(Block::bordered().title(" gin ")),
                mid,
            );
            draw_status(f, app, status);
            if app.overlay.is_some() {
                draw_overlay(f, app, None, area);
            }
            return;
        }
        Stage::InGame(t) => t,
    };
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        let msg = format!(
            "The terminal is {}x{}: make it at least {MIN_WIDTH}x{MIN_HEIGHT} to play (q: quit).",
            area.width, area.height
        );
        f.render_widget(Paragraph::new(msg).wrap(Wrap { trim: true }), area);
        return;
    }
    let [header, body, status] =
        Layout::vertical([Constraint::Length(1), Constraint::Min(0), Constraint::Length(1)]).areas(area);
    draw_header(f, app, t, header);
    let right_w = if area.width >= 100 { 36 } else { 29 };
    let [left, right] = Layout::horizontal([Constraint::Min(0), Constraint::Length(right_w)]).areas(body);
    let [table_a, hand_a, prompt_a, last_a] = Layout::vertical([
        Constraint::Length(5),
        Constraint::Length(7),
        Constraint::Length(5),
        Constraint::Min(0),
    ])
    .areas(left);
    draw_table(f, app, t, table_a, now_ms);
    draw_hand(f, app, t, hand_a);
    draw_prompt(f, app, t, prompt_a);
    draw_last_hand(f, app, t, last_a);
    let sheet_h = (t.hands.len() as u16 + 4).max(5).min(body.height / 2);
    let [sheet_a, log_a] = Layout::vertical([Constraint::Length(sheet_h), Constraint::Min(3)]).areas(right);
    draw_sheet(f, t, sheet_a);
    draw_log(f, t, log_a);
    draw_status(f, app, status);
    draw_overlay(f, app, Some(t), area);
}

fn draw_header(f: &mut Frame, app: &App, t: &Table, area: Rect) {
    let _ = app;
    let seat_label = |s: Seat| {
        let bot = match (t.bots[s.index()], t.entrants[s.index()]) {
            (true, _) => " (bot)",
            (false, true) => " (entrant)",
            _ => "",
        };
        let you = if Some(s) == t.viewer { " (you)" } else { "" };
        format!("{}{bot}{you} {}", t.name(s), t.scores[s.index()])
    };
    let stage = if t.stage > 0 { format!(" stage {}", t.stage + 1) } else { String::new() };
    // Most important first: a narrow screen cuts the end.
    let text = format!(
        " {} - {} · hand {}{stage} · {} to {} · game {}",
        seat_label(Seat::S0),
        seat_label(Seat::S1),
        t.hand_number + 1,
        t.rules_name,
        t.target,
        t.game_id,
    );
    f.render_widget(Paragraph::new(Line::from(Span::styled(text, bold()))), area);
}

fn draw_table(f: &mut Frame, app: &App, t: &Table, area: Rect, now_ms: i64) {
    let nc = app.no_color;
    let mut top = vec![Span::raw(format!("Stock {:>2} cards   Pile ", t.stock))];
    match t.top() {
        Some(c) => {
            top.push(card_span(c, nc).patch_style(bold()));
            if t.pile.len() > 1 {
                top.push(Span::raw(format!(" ({} below)", t.pile.len() - 1)));
            }
        }
        None => top.push(Span::raw("empty")),
    }
    let mut lines = vec![Line::from(top)];
    let others: Vec<Seat> = match t.viewer {
        Some(me) => vec![me.other()],
        None => Seat::BOTH.to_vec(),
    };
    for s in others {
        let mut l = vec![Span::raw(format!("{}: {} cards, known: ", t.name(s), t.hand_sizes[s.index()]))];
        if t.known[s.index()].is_empty() {
            l.push(Span::raw("none"));
        } else {
            l.extend(cards_spans(t.known[s.index()].iter(), nc));
        }
        lines.push(Line::from(l));
    }
    let mut turn = match (t.is_over(), t.to_act) {
        (true, _) => "The game is over".to_string(),
        (false, Some(s)) => format!("To play: {} ({})", t.who(s), phase_word(t.phase)),
        (false, None) => "Between hands".to_string(),
    };
    if let Some(c) = clock_text(t.deadline_ms, now_ms).filter(|_| t.to_act.is_some() && !t.is_over()) {
        turn.push_str(&format!("   clock {c}"));
    }
    if lines.len() < 3 {
        lines.push(Line::from(turn));
    } else {
        lines[0].spans.push(Span::raw(format!("   {turn}")));
    }
    f.render_widget(Paragraph::new(lines).block(Block::bordered().title(" Table ")), area);
}

fn phase_word(p: pb::Phase) -> &'static str {
    match p {
        pb::Phase::UpcardOffer => "upcard offer",
        pb::Phase::Draw => "draw",
        pb::Phase::Discard => "discard",
        pb::Phase::GameOver => "game over",
        pb::Phase::WaitingForPlayers => "waiting for players",
        pb::Phase::Unspecified => "-",
    }
}

fn draw_hand(f: &mut Frame, app: &App, t: &Table, area: Rect) {
    let nc = app.no_color;
    if t.viewer.is_none() {
        let p = Paragraph::new(vec![Line::from("You are watching: the hands are hidden until a hand ends.")])
            .wrap(Wrap { trim: true })
            .block(Block::bordered().title(" Spectator "));
        f.render_widget(p, area);
        return;
    }
    let order = app.hand_order();
    let mut labels = Vec::new();
    let mut cards = Vec::new();
    let mut marks = String::new();
    for (i, c) in order.iter().enumerate() {
        let sel = i == app.selected && t.my_turn();
        labels.push(Span::raw(format!(" {}  ", LABELS.get(i).copied().unwrap_or(' '))));
        let mut s = card_span(*c, nc);
        if sel {
            s = s.patch_style(Style::default().add_modifier(Modifier::REVERSED | Modifier::BOLD));
        }
        cards.push(Span::raw(" "));
        cards.push(s);
        cards.push(Span::raw(" "));
        let mark = if sel {
            '^'
        } else if t.drawn == Some(*c) {
            '*'
        } else {
            ' '
        };
        marks.push_str(&format!(" {mark}{mark} "));
    }
    let (arr, best) = t.arrangement();
    let mut melds = vec![Span::raw("melds ")];
    if arr.melds().is_empty() {
        melds.push(Span::raw("none"));
    }
    for (i, m) in arr.melds().iter().enumerate() {
        if i > 0 {
            melds.push(Span::raw(" "));
        }
        melds.extend(meld_spans(&m.cards().iter().collect::<Vec<_>>(), nc));
    }
    let mut dw = vec![Span::raw(format!("deadwood {}", arr.deadwood()))];
    if !arr.deadwood_cards().is_empty() {
        dw.push(Span::raw(": "));
        dw.extend(cards_spans(arr.deadwood_cards().iter(), nc));
    }
    if let Some(b) = best {
        dw.push(Span::raw(" after discarding "));
        dw.push(card_span(b, nc));
    }
    let by = match app.sort {
        crate::app::Sort::Suit => "by suit",
        crate::app::Sort::Rank => "by rank",
    };
    let title = format!(" Your hand ({by}, {} cards) ", order.len());
    let lines = vec![
        Line::from(labels),
        Line::from(cards),
        Line::from(marks.trim_end().to_string()),
        Line::from(melds),
        Line::from(dw),
    ];
    f.render_widget(Paragraph::new(lines).block(Block::bordered().title(title)), area);
}

/// What the viewer is to do now, in one or two lines (the same words as plain mode).
pub fn prompt_lines(t: &Table, no_color: bool) -> Vec<Line<'static>> {
    if let Some(r) = &t.result {
        return vec![Line::from(Span::styled(crate::table::game_line(t, r), bold())), Line::from("q: quit")];
    }
    if t.phase == pb::Phase::WaitingForPlayers {
        return vec![
            Line::from(Span::styled("Waiting for an opponent.", bold())),
            Line::from(format!("Share the game id: gin play --join {}", t.game_id)),
        ];
    }
    let Some(me) = t.viewer else {
        return vec![Line::from("Watching. q: quit, ?: help")];
    };
    if t.to_act != Some(me) || t.turn.is_none() {
        return match t.to_act {
            Some(s) => vec![Line::from(format!("Waiting for {}…", t.name(s)))],
            None => vec![Line::from("Waiting…")],
        };
    }
    let top = t.top();
    let top_span = |no_color| top.map_or(Span::raw("-"), |c| card_span(c, no_color));
    match t.phase {
        pb::Phase::UpcardOffer => vec![
            Line::from(vec![
                Span::styled("Your turn: ", bold()),
                Span::raw("the upcard "),
                top_span(no_color),
            ]),
            Line::from("t take it · p pass"),
        ],
        pb::Phase::Draw => vec![
            Line::from(vec![Span::styled("Your turn: ", bold()), Span::raw("draw")]),
            Line::from(vec![Span::raw("s stock · t take "), top_span(no_color)]),
        ],
        _ => {
            let mut second = vec![Span::raw("Enter discard")];
            let knocks: Vec<Card> = t
                .turn
                .iter()
                .flat_map(|i| &i.legal_actions)
                .filter(|a| a.kind == pb::ActionKind::Knock as i32)
                .filter_map(|a| a.card.parse().ok())
                .collect();
            if !knocks.is_empty() {
                second.push(Span::raw(" · K knock with "));
                second.extend(cards_spans(knocks.iter().copied().collect::<CardSet>().iter(), no_color));
            }
            vec![
                Line::from(vec![
                    Span::styled("Your turn: ", bold()),
                    Span::raw("pick a card (a-k), discard or knock"),
                ]),
                Line::from(second),
            ]
        }
    }
}

fn draw_prompt(f: &mut Frame, app: &App, t: &Table, area: Rect) {
    // An action on its way: say so, rather than ask again for what was just answered.
    let mut lines = if app.pending && t.result.is_none() {
        vec![Line::from(Span::styled("Sent: waiting for the server…", bold()))]
    } else {
        prompt_lines(t, app.no_color)
    };
    lines.push(Line::from(Span::styled(
        "?: help · o: sort · q: quit",
        Style::default().add_modifier(Modifier::DIM),
    )));
    f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }).block(Block::bordered()), area);
}

/// The last finished hand's result, in the space left under the prompt.
fn draw_last_hand(f: &mut Frame, app: &App, t: &Table, area: Rect) {
    if area.height < 3 {
        return;
    }
    let lines = match t.hands.last() {
        Some(r) => hand_over_lines(t, r, app.no_color),
        None => vec![Line::from("No hand finished yet.")],
    };
    f.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: true }).block(Block::bordered().title(" Last hand ")),
        area,
    );
}

/// How a hand ended, in a word or two (every format's ends).
pub fn end_name(end: i32) -> &'static str {
    match pb::EndKind::try_from(end).unwrap_or(pb::EndKind::Unspecified) {
        pb::EndKind::Dead => "dead",
        pb::EndKind::Knock => "knock",
        pb::EndKind::Undercut => "undercut",
        pb::EndKind::Gin => "gin",
        pb::EndKind::BigGin => "big gin",
        pb::EndKind::Defence => "defence",
        pb::EndKind::WentOut => "went out",
        pb::EndKind::Rummy => "rummy",
        pb::EndKind::TurnLimit => "turn limit",
        pb::EndKind::Unspecified => "?",
    }
}

fn draw_sheet(f: &mut Frame, t: &Table, area: Rect) {
    let w = 7;
    let name = |s: Seat| {
        let mut n = t.name(s);
        n.truncate(w);
        n
    };
    let mut lines = vec![Line::from(Span::styled(
        format!("{:<3}{:<9}{:>w$}{:>w$}", "#", "end", name(Seat::S0), name(Seat::S1)),
        bold(),
    ))];
    let rows = area.height.saturating_sub(4) as usize;
    let skip = t.hands.len().saturating_sub(rows);
    for r in t.hands.iter().skip(skip) {
        let pts = |s: u32| if r.winner == Some(s) { r.points.to_string() } else { String::from("-") };
        lines.push(Line::from(format!(
            "{:<3}{:<9}{:>w$}{:>w$}",
            r.hand_number + 1,
            end_name(r.end),
            pts(0),
            pts(1)
        )));
    }
    lines.push(Line::from(Span::styled(
        format!("{:<12}{:>w$}{:>w$}", "total", t.scores[0], t.scores[1]),
        bold(),
    )));
    f.render_widget(Paragraph::new(lines).block(Block::bordered().title(" Score ")), area);
}

fn draw_log(f: &mut Frame, t: &Table, area: Rect) {
    let rows = area.height.saturating_sub(2) as usize;
    let width = area.width.saturating_sub(2) as usize;
    // Wrap by hand, so the newest lines are the ones that show.
    let mut lines: Vec<String> = Vec::new();
    for l in &t.log {
        let mut rest = l.as_str();
        let mut first = true;
        while !rest.is_empty() {
            let w = if first { width } else { width.saturating_sub(2) }.max(1);
            let cut = rest.char_indices().nth(w).map_or(rest.len(), |(i, _)| i);
            let cut =
                if cut < rest.len() { rest[..cut].rfind(' ').filter(|&i| i > 0).unwrap_or(cut) } else { cut };
            let piece = rest[..cut].trim_end();
            lines.push(if first { piece.to_string() } else { format!("  {piece}") });
            rest = rest[cut..].trim_start();
            first = false;
        }
    }
    let skip = lines.len().saturating_sub(rows);
    let lines: Vec<Line> = lines.into_iter().skip(skip).map(Line::from).collect();
    f.render_widget(Paragraph::new(lines).block(Block::bordered().title(" Log ")), area);
}

fn draw_status(f: &mut Frame, app: &App, area: Rect) {
    let Some(s) = &app.status else { return };
    let line = if s.error {
        if app.no_color {
            Line::from(format!("error: {}", s.text))
        } else {
            Line::from(Span::styled(
                s.text.clone(),
                Style::default().fg(Color::Red).add_modifier(Modifier::BOLD),
            ))
        }
    } else {
        Line::from(s.text.clone())
    };
    f.render_widget(Paragraph::new(line), area);
}

/// A rectangle of at most `w`×`h` centred in `area`.
fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect { x: area.x + (area.width - w) / 2, y: area.y + (area.height - h) / 2, width: w, height: h }
}

fn popup(f: &mut Frame, area: Rect, title: &str, lines: Vec<Line<'static>>, w: u16) {
    let h = lines.len() as u16 + 2;
    let r = centered(area, w, h);
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: false }).block(Block::bordered().title(format!(" {title} "))),
        r,
    );
}

fn draw_overlay(f: &mut Frame, app: &App, t: Option<&Table>, area: Rect) {
    let nc = app.no_color;
    match (&app.overlay, t) {
        (Some(Overlay::Help), _) => {
            let mut lines: Vec<Line> =
                KEYS.iter().map(|(k, what)| Line::from(format!("{k:<12} {what}"))).collect();
            lines.push(Line::from("Press ? or Esc to close."));
            popup(f, area, "Keys", lines, 72);
        }
        (Some(Overlay::ConfirmQuit), _) => {
            let lines = vec![
                Line::from("Leave the game? The seat stays yours: the"),
                Line::from("command to come back is printed on exit."),
                Line::from("y: quit · any other key: stay"),
            ];
            popup(f, area, "Quit?", lines, 44);
        }
        (Some(Overlay::ConfirmKnock(c)), Some(t)) => {
            let dw = t.knock_deadwood(*c).unwrap_or(0);
            let what = if dw == 0 { "Go gin".to_string() } else { format!("Knock with {dw} deadwood") };
            let lines = vec![
                Line::from(vec![
                    Span::raw(format!("{what}, discarding ")),
                    card_span(*c, nc),
                    Span::raw("?"),
                ]),
                Line::from("y: knock · any other key: cancel"),
            ];
            popup(f, area, "Knock?", lines, 44);
        }
        (Some(Overlay::ConfirmResign), _) => {
            let lines =
                vec![Line::from("Resign? The game ends, won by your"), Line::from("opponent.  y / n")];
            popup(f, area, "Resign?", lines, 42);
        }
        (Some(Overlay::ConfirmBigGin), _) => {
            popup(f, area, "Big gin?", vec![Line::from("Lay down all 11 cards? y / n")], 40);
        }
        (Some(Overlay::HandOver(i)), Some(t)) => {
            if let Some(r) = t.hands.get(*i) {
                let mut lines = hand_over_lines(t, r, nc);
                lines.push(Line::from(""));
                lines.push(Line::from("Space: continue"));
                popup(f, area, &format!("Hand {} over", r.hand_number + 1), lines, 76);
            }
        }
        (None, Some(t)) if t.is_over() => {
            if let Some(r) = &t.result {
                let mut lines = game_over_lines(t, r);
                lines.push(Line::from(""));
                lines.push(Line::from("q: quit"));
                popup(f, area, "Game over", lines, 60);
            }
        }
        _ => {}
    }
}

/// A hand's result for people: how it ended, both hands (melds, deadwood, layoffs), the
/// score. Shared by the full-screen window and plain mode.
pub fn hand_over_lines(t: &Table, r: &pb::HandResult, nc: bool) -> Vec<Line<'static>> {
    let mut lines = vec![Line::from(Span::styled(crate::table::hand_line(t, r), bold()))];
    if let Some(sd) = &r.showdown {
        let knocker = Seat::new(sd.knocker as u8).unwrap_or(Seat::S0);
        let arr_lines = |who: String, a: Option<&pb::Arrangement>| {
            let mut l = vec![Span::raw(format!("{who}: "))];
            if let Some(a) = a {
                for m in &a.melds {
                    l.extend(meld_spans(&wire_cards(&m.cards), nc));
                    l.push(Span::raw(" "));
                }
                l.push(Span::raw(format!("deadwood {}", a.deadwood_value)));
                if !a.deadwood.is_empty() {
                    l.push(Span::raw(": "));
                    l.extend(cards_spans(wire_cards(&a.deadwood), nc));
                }
            }
            Line::from(l)
        };
        lines.push(arr_lines(t.name(knocker), sd.knocker_melds.as_ref()));
        lines.push(arr_lines(t.name(knocker.other()), sd.defender_melds.as_ref()));
        if !sd.layoffs.is_empty() {
            let mut l = vec![Span::raw(format!("{} laid off: ", t.name(knocker.other())))];
            for (i, lo) in sd.layoffs.iter().enumerate() {
                if i > 0 {
                    l.push(Span::raw(", "));
                }
                l.extend(cards_spans(wire_cards(std::slice::from_ref(&lo.card)), nc));
                l.push(Span::raw(format!(" on meld {}", lo.meld + 1)));
            }
            lines.push(Line::from(l));
        }
        if !sd.discard.is_empty() {
            let mut l = vec![Span::raw(format!("{} discarded face down: ", t.name(knocker)))];
            l.extend(cards_spans(wire_cards(std::slice::from_ref(&sd.discard)), nc));
            lines.push(Line::from(l));
        }
    }
    if r.scores.len() == 2 {
        lines.push(Line::from(format!(
            "Score: {} {} - {} {}",
            t.name(Seat::S0),
            r.scores[0],
            r.scores[1],
            t.name(Seat::S1)
        )));
    }
    lines
}

/// The game's end for people: the winner, then each stage's bonus breakdown and totals.
pub fn game_over_lines(t: &Table, r: &pb::GameResult) -> Vec<Line<'static>> {
    let mut lines = vec![Line::from(Span::styled(crate::table::game_line(t, r), bold()))];
    let why = match pb::GameEndReason::try_from(r.reason) {
        Ok(pb::GameEndReason::Resigned) => Some("resigned"),
        Ok(pb::GameEndReason::Forfeit) => Some("forfeited"),
        Ok(pb::GameEndReason::Abandoned) => Some("abandoned the game (idle too long)"),
        _ => None,
    };
    if let (Some(why), Some(l)) = (why, r.loser_by_default) {
        lines.push(Line::from(format!("{} {why}", t.name(Seat::new(l as u8).unwrap_or(Seat::S0)))));
    }
    let v = |x: &[u32], i: usize| x.get(i).copied().unwrap_or(0);
    let w = 10;
    for (k, s) in r.stages.iter().enumerate() {
        if r.stages.len() > 1 {
            lines.push(Line::from(format!("stage {}", k + 1)));
        }
        lines.push(Line::from(Span::styled(
            format!("{:<16}{:>w$}{:>w$}", "", t.name(Seat::S0), t.name(Seat::S1)),
            bold(),
        )));
        for (label, x) in [
            ("hand points", &s.hand_points),
            ("hands won", &s.hands_won),
            ("game bonus", &s.game_bonus),
            ("box bonus", &s.box_bonus),
            ("shutout bonus", &s.shutout_bonus),
            ("total", &s.total),
        ] {
            lines.push(Line::from(format!("{label:<16}{:>w$}{:>w$}", v(x, 0), v(x, 1))));
        }
    }
    if r.stages.len() != 1 {
        lines.push(Line::from(format!("{:<16}{:>w$}{:>w$}", "final", v(&r.totals, 0), v(&r.totals, 1))));
    }
    lines.push(Line::from(format!("margin {}", r.margin)));
    lines
}
