//! Drawing the full screen at a table of three to six: a pure function of a [`TableApp`]
//! onto a ratatui [`Frame`] (the tests render it into a `TestBackend`).
//!
//! The screen: a header (format, hand, game), the tables in play (stock, pile, dealer, every
//! seat with its card count, known cards and total, who is to act; the seat sitting out;
//! team play: both tables, the partner's marked, and the teams' totals; rummy: the melds on
//! the table, numbered), the hand with its labels (marked cards at rummy), a prompt saying
//! what to do, the events (on the right, or below on a narrow terminal; a wide one shows the
//! last hand's result under the prompt), the status line;
//! windows over it for help, confirmations, the meld to lay off onto, a hand's result (held
//! until Space) and the game's end.

use engine::{Card, CardSet, best_arrangement};
use gin_proto::v1 as pb;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use crate::app::{LABELS, Sort};
use crate::render::{MIN_HEIGHT, MIN_WIDTH, card_span, end_name};
use crate::table::shown;
use crate::table_app::{TableApp, TableOverlay, keys};

fn bold() -> Style {
    Style::default().add_modifier(Modifier::BOLD)
}

fn wire(v: &[String]) -> Vec<Card> {
    v.iter().filter_map(|c| c.parse().ok()).collect()
}

fn cards_spans(cards: impl IntoIterator<Item = Card>, nc: bool) -> Vec<Span<'static>> {
    let mut v = Vec::new();
    for (i, c) in cards.into_iter().enumerate() {
        if i > 0 {
            v.push(Span::raw(" "));
        }
        v.push(card_span(c, nc));
    }
    v
}

fn meld_spans(cards: &[Card], nc: bool) -> Vec<Span<'static>> {
    let mut v = vec![Span::raw("[")];
    v.extend(cards_spans(cards.iter().copied(), nc));
    v.push(Span::raw("]"));
    v
}

/// Seat `s` in a few letters: `you`, its name, `(bot)` for a house bot.
pub fn short_name(app: &TableApp, s: u32) -> String {
    if app.screen.viewer() == Some(s) {
        return "you".into();
    }
    match app.screen.snap.seats.iter().find(|x| x.seat == s) {
        Some(x) if x.name.is_empty() => format!("seat {s}"),
        Some(x) if x.bot => format!("{} (bot)", shown(&x.name)),
        Some(x) => shown(&x.name),
        None => format!("seat {s}"),
    }
}

/// Draws the screen of `app`.
pub fn draw(f: &mut Frame, app: &TableApp) {
    let area = f.area();
    if !app.ready {
        let [_, mid, _] =
            Layout::vertical([Constraint::Min(0), Constraint::Length(4), Constraint::Min(0)]).areas(area);
        f.render_widget(
            Paragraph::new(vec![Line::styled("joining the table…", bold()), Line::from("q: quit")])
                .block(Block::bordered().title(" gin ")),
            mid,
        );
        return;
    }
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
    draw_header(f, app, header);
    let wide = area.width >= 100;
    let (left, right) = if wide {
        let [l, r] = Layout::horizontal([Constraint::Min(0), Constraint::Length(36)]).areas(body);
        (l, Some(r))
    } else {
        (body, None)
    };
    let table = table_lines(app, left.width.saturating_sub(2));
    let hand_h = if app.screen.viewer().is_some() { 6 } else { 3 };
    let [table_a, hand_a, prompt_a, rest] = Layout::vertical([
        Constraint::Length(table.len() as u16 + 2),
        Constraint::Length(hand_h),
        Constraint::Length(3),
        Constraint::Min(0),
    ])
    .areas(left);
    f.render_widget(
        Paragraph::new(table).wrap(Wrap { trim: false }).block(Block::bordered().title(" Table ")),
        table_a,
    );
    draw_hand(f, app, hand_a);
    draw_prompt(f, app, prompt_a);
    match right {
        Some(log_a) => {
            draw_log(f, app, log_a);
            // The room under the prompt: the last hand's result.
            if rest.height >= 4 {
                let lines = match &app.last_result {
                    Some(r) => hand_over_lines(app, r),
                    None => vec![Line::from("No hand finished yet.")],
                };
                f.render_widget(
                    Paragraph::new(lines)
                        .wrap(Wrap { trim: true })
                        .block(Block::bordered().title(" Last hand ")),
                    rest,
                );
            }
        }
        None if rest.height >= 3 => draw_log(f, app, rest),
        None => {}
    }
    draw_status(f, app, status);
    draw_overlay(f, app, area);
}

fn draw_header(f: &mut Frame, app: &TableApp, area: Rect) {
    let s = &app.screen.snap;
    let format = s.format.clone().unwrap_or_default();
    let round = if s.tables.len() > 1 { "round" } else { "hand" };
    let who = match s.viewer_seat {
        Some(v) => format!("you are seat {v}"),
        None => "watching".into(),
    };
    let text = format!(
        " {} · {round} {} · {who} · game {}",
        shown(&format.name),
        s.hand_number + 1,
        shown(&s.game_id)
    );
    f.render_widget(Paragraph::new(Line::styled(text, bold())), area);
}

/// The tables in play, as lines.
fn table_lines(app: &TableApp, width: u16) -> Vec<Line<'static>> {
    let nc = app.no_color;
    let s = &app.screen.snap;
    let teams = s.tables.len() > 1;
    let viewer = s.viewer_seat;
    let mut out = Vec::new();
    let name_w =
        s.seats.iter().map(|x| short_name(app, x.seat).chars().count()).max().unwrap_or(4).clamp(4, 18);
    for (i, t) in s.tables.iter().enumerate() {
        let mut head = Vec::new();
        if teams {
            let mine = viewer.is_some_and(|v| t.seats.contains(&v));
            let partner = viewer.map(|v| (v + 2) % 4).filter(|p| t.seats.contains(p));
            let whose = match (mine, partner) {
                (true, _) => " (yours)".to_string(),
                (_, Some(p)) => format!(" (your partner {})", short_name(app, p)),
                _ => String::new(),
            };
            head.push(Span::styled(format!("Table {i}{whose}: "), bold()));
        }
        head.push(Span::raw(format!("Stock {} · Pile ", t.stock_size)));
        match t.pile.last().and_then(|c| c.parse::<Card>().ok()) {
            Some(c) => {
                head.push(card_span(c, nc).patch_style(bold()));
                if t.pile.len() > 1 {
                    head.push(Span::raw(format!(" ({} below)", t.pile.len() - 1)));
                }
            }
            None => head.push(Span::raw("empty")),
        }
        head.push(Span::raw(format!(" · dealer {}", short_name(app, t.dealer))));
        if t.knock_limit > 0 {
            head.push(Span::raw(format!(" · knock ≤ {}", t.knock_limit)));
        }
        out.push(Line::from(head));
        for (k, &seat) in t.seats.iter().enumerate() {
            let cards = t.hand_sizes.get(k).copied().unwrap_or(0);
            let acts = s.seats_to_act.contains(&seat) && s.result.is_none();
            let mark = if acts { "▶" } else { " " };
            let mut l = vec![Span::styled(
                format!(
                    "{mark} {seat} {:<name_w$} {cards:>2} {}",
                    short_name(app, seat),
                    if cards == 1 { "card " } else { "cards" }
                ),
                if acts { bold() } else { Style::default() },
            )];
            if !teams && let Some(total) = s.totals.get(seat as usize) {
                l.push(Span::raw(format!("  total {total:>4}")));
            }
            let known = t.known.iter().find(|x| x.seat == seat).map(|x| wire(&x.cards)).unwrap_or_default();
            if !known.is_empty() && viewer != Some(seat) {
                l.push(Span::raw("  known "));
                l.extend(cards_spans(known, nc));
            }
            out.push(Line::from(l));
        }
        if !t.melds.is_empty() {
            // Numbered (`l` then the number lays a card off), packed into the width.
            let mut l = vec![Span::raw("Melds: ")];
            let mut used = 7;
            for m in &t.melds {
                let mut item = vec![Span::styled(format!("{} ", m.index), bold())];
                item.extend(meld_spans(&wire(&m.cards), nc));
                item.push(Span::raw(format!(" {}", short_name(app, m.seat))));
                let w: usize = item.iter().map(Span::width).sum();
                if used > 7 && used + 3 + w > width as usize {
                    out.push(Line::from(std::mem::take(&mut l)));
                    l.push(Span::raw("       "));
                    used = 7;
                }
                if used > 7 {
                    l.push(Span::raw(" · "));
                    used += 3;
                }
                l.extend(item);
                used += w;
            }
            out.push(Line::from(l));
        }
    }
    if let Some(sit) = s.sitting_out {
        let total = s.totals.get(sit as usize).map(|t| format!("  total {t:>4}")).unwrap_or_default();
        out.push(Line::from(format!(
            "  {sit} {:<name_w$} sits this hand out (dealt it){total}",
            short_name(app, sit)
        )));
    }
    if teams && !s.team_totals.is_empty() {
        let team = |i: usize| {
            let names = [i as u32, i as u32 + 2].map(|x| short_name(app, x)).join(" & ");
            format!("team {i} ({names}) {}", s.team_totals[i])
        };
        let all: Vec<String> = (0..s.team_totals.len()).map(team).collect();
        out.push(Line::styled(format!("Totals: {}", all.join(" · ")), bold()));
    }
    out
}

fn draw_hand(f: &mut Frame, app: &TableApp, area: Rect) {
    let nc = app.no_color;
    if app.screen.viewer().is_none() {
        let p = Paragraph::new("You are watching: the hands are hidden.")
            .wrap(Wrap { trim: true })
            .block(Block::bordered().title(" Spectator "));
        f.render_widget(p, area);
        return;
    }
    let order = app.hand_order();
    let turn = app.screen.my_turn().is_some();
    let (mut labels, mut cards, mut marks) = (Vec::new(), Vec::new(), String::new());
    for (i, c) in order.iter().enumerate() {
        let sel = i == app.selected && turn;
        let marked = app.marked.contains(*c);
        labels.push(Span::raw(format!(" {}  ", LABELS.get(i).copied().unwrap_or(' '))));
        let mut span = card_span(*c, nc);
        if sel {
            span = span.patch_style(Style::default().add_modifier(Modifier::REVERSED | Modifier::BOLD));
        } else if marked {
            span = span.patch_style(Style::default().add_modifier(Modifier::UNDERLINED));
        }
        cards.push(Span::raw(" "));
        cards.push(span);
        cards.push(Span::raw(" "));
        let m = match (sel, marked, app.drawn == Some(*c)) {
            (true, true, _) => "^+",
            (true, false, _) => "^^",
            (false, true, _) => "++",
            (false, false, true) => "**",
            _ => "  ",
        };
        marks.push_str(&format!(" {m} "));
    }
    let info = if !app.marked.is_empty() {
        let mut l = vec![Span::raw("marked ")];
        l.extend(cards_spans(app.marked.iter(), nc));
        l.push(Span::raw(if app.marked.len() >= 3 { "  (m: meld them)" } else { "  (a meld needs 3)" }));
        l
    } else if let Some(b) = app.screen.my_turn().and_then(|t| t.best.clone()) {
        let mut l = vec![Span::raw("best melds ")];
        if b.melds.is_empty() {
            l.push(Span::raw("none"));
        }
        for m in &b.melds {
            l.extend(meld_spans(&wire(&m.cards), nc));
            l.push(Span::raw(" "));
        }
        l.push(Span::raw(format!("· deadwood {}", b.deadwood_value)));
        l
    } else if !app.offers().rummy && order.len() <= 11 {
        let arr = best_arrangement(order.iter().copied().collect::<CardSet>());
        let mut l = vec![Span::raw("melds ")];
        if arr.melds().is_empty() {
            l.push(Span::raw("none "));
        }
        for m in arr.melds() {
            l.extend(meld_spans(&m.cards().iter().collect::<Vec<_>>(), nc));
            l.push(Span::raw(" "));
        }
        l.push(Span::raw(format!("· deadwood {}", arr.deadwood())));
        l
    } else {
        vec![]
    };
    let by = if app.sort == Sort::Suit { "by suit" } else { "by rank" };
    let title = format!(" Your hand ({by}, {} cards) ", order.len());
    let lines = vec![
        Line::from(labels),
        Line::from(cards),
        Line::from(marks.trim_end().to_string()),
        Line::from(info),
    ];
    f.render_widget(Paragraph::new(lines).block(Block::bordered().title(title)), area);
}

/// What the viewer is to do now, in two lines.
pub fn prompt_lines(app: &TableApp) -> Vec<Line<'static>> {
    let nc = app.no_color;
    let s = &app.screen.snap;
    if let Some(r) = &s.result {
        return vec![Line::styled(game_line(app, r), bold()), Line::from("q: quit")];
    }
    if !app.results.is_empty() {
        return vec![Line::styled("The hand is over.", bold()), Line::from("Space: continue")];
    }
    if app.pending {
        return vec![Line::styled("Sent: waiting for the server…", bold())];
    }
    if app.screen.viewer().is_none() {
        return vec![Line::from("Watching. q: quit, ?: help")];
    }
    if s.phase == pb::Phase::WaitingForPlayers as i32 {
        return vec![
            Line::styled("Waiting for players to join.", bold()),
            Line::from(format!("Share the game id: gin play --join {}", shown(&s.game_id))),
        ];
    }
    let Some(turn) = app.screen.my_turn() else {
        let who: Vec<String> = s.seats_to_act.iter().map(|&x| short_name(app, x)).collect();
        return vec![Line::from(if who.is_empty() {
            "Waiting…".to_string()
        } else {
            format!("Waiting for {}…", who.join(" and "))
        })];
    };
    let top = s
        .tables
        .iter()
        .find(|t| s.viewer_seat.is_some_and(|v| t.seats.contains(&v)))
        .and_then(|t| t.pile.last())
        .and_then(|c| c.parse::<Card>().ok());
    let top_span = || top.map_or(Span::raw("-"), |c| card_span(c, nc));
    let kind = |k: pb::ActionKind| turn.legal_actions.iter().filter(move |a| a.kind == k as i32);
    let you = Span::styled("Your turn: ", bold());
    if s.phase == pb::Phase::UpcardOffer as i32 {
        return vec![
            Line::from(vec![you, Span::raw("the upcard "), top_span()]),
            Line::from("t take it · p pass"),
        ];
    }
    if s.phase == pb::Phase::Draw as i32 {
        return vec![
            Line::from(vec![you, Span::raw("draw")]),
            Line::from(vec![Span::raw("s stock · t take "), top_span()]),
        ];
    }
    if app.offers().rummy {
        let mut second = Vec::new();
        let melds: Vec<_> = kind(pb::ActionKind::Meld).collect();
        if !melds.is_empty() {
            second.push(Span::raw("m meld "));
            for (i, m) in melds.iter().take(3).enumerate() {
                if i > 0 {
                    second.push(Span::raw(" "));
                }
                second.extend(meld_spans(&wire(&m.cards), nc));
            }
            if melds.len() > 3 {
                second.push(Span::raw(" …"));
            }
            second.push(Span::raw(" · "));
        }
        let offs: Vec<_> = kind(pb::ActionKind::LayOff).collect();
        if !offs.is_empty() {
            second.push(Span::raw("l lay off "));
            for (i, a) in offs.iter().take(4).enumerate() {
                if i > 0 {
                    second.push(Span::raw(" "));
                }
                if let Ok(c) = a.card.parse::<Card>() {
                    second.push(card_span(c, nc));
                }
                second.push(Span::raw(format!("→{}", a.meld)));
            }
            second.push(Span::raw(" · "));
        }
        second.push(Span::raw("Enter discard"));
        return vec![
            Line::from(vec![you, Span::raw("mark cards (a-k), meld, lay off or discard")]),
            Line::from(second),
        ];
    }
    let mut second = vec![Span::raw("Enter discard")];
    let knocks: CardSet = kind(pb::ActionKind::Knock).filter_map(|a| a.card.parse().ok()).collect();
    if !knocks.is_empty() {
        second.push(Span::raw(" · K knock with "));
        second.extend(cards_spans(knocks.iter(), nc));
    }
    if kind(pb::ActionKind::BigGin).next().is_some() {
        second.push(Span::raw(" · B big gin"));
    }
    vec![Line::from(vec![you, Span::raw("pick a card (a-k), discard or knock")]), Line::from(second)]
}

fn draw_prompt(f: &mut Frame, app: &TableApp, area: Rect) {
    let mut lines = prompt_lines(app);
    lines.truncate(2);
    while lines.len() < 2 {
        lines.push(Line::from(""));
    }
    let hint = if app.screen.viewer().is_some() {
        "?: help · o: sort · :: command · q: quit"
    } else {
        "?: help · q: quit"
    };
    lines.push(Line::styled(hint, Style::default().add_modifier(Modifier::DIM)));
    f.render_widget(
        Paragraph::new(lines),
        area.inner(ratatui::layout::Margin { horizontal: 1, vertical: 0 }),
    );
}

fn draw_log(f: &mut Frame, app: &TableApp, area: Rect) {
    let rows = area.height.saturating_sub(2) as usize;
    let width = area.width.saturating_sub(2) as usize;
    // Wrapped by hand, so the newest lines are the ones that show.
    let mut lines: Vec<String> = Vec::new();
    for l in &app.screen.log {
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
    f.render_widget(Paragraph::new(lines).block(Block::bordered().title(" Events ")), area);
}

fn draw_status(f: &mut Frame, app: &TableApp, area: Rect) {
    let line = if let Some(input) = &app.input {
        Line::from(format!(":{input}_"))
    } else {
        match &app.status {
            None => return,
            Some((t, true)) if app.no_color => Line::from(format!("error: {t}")),
            Some((t, true)) => {
                Line::styled(t.clone(), Style::default().fg(Color::Red).add_modifier(Modifier::BOLD))
            }
            Some((t, false)) => Line::from(t.clone()),
        }
    };
    f.render_widget(Paragraph::new(line), area);
}

fn popup(f: &mut Frame, area: Rect, title: &str, lines: Vec<Line<'static>>, w: u16) {
    popup_with(f, area, title, lines, w, None);
}

/// A window; `keys` on its bottom border (shown even when the text is cut).
fn popup_with(f: &mut Frame, area: Rect, title: &str, lines: Vec<Line<'static>>, w: u16, keys: Option<&str>) {
    let w = w.min(area.width);
    // Rows as wrapped (a long line takes two: the last line must still show).
    let inner = w.saturating_sub(2).max(1) as usize;
    // (Word wrapping leaves some room at a row's end: counted generously.)
    let rows: usize = lines
        .iter()
        .map(|l| if l.width() > inner { l.width().div_ceil(inner.saturating_sub(10).max(1)) } else { 1 })
        .sum();
    let h = (rows as u16 + 2).min(area.height);
    let r = Rect { x: area.x + (area.width - w) / 2, y: area.y + (area.height - h) / 2, width: w, height: h };
    f.render_widget(Clear, r);
    let mut block = Block::bordered().title(format!(" {title} "));
    if let Some(k) = keys {
        block = block.title_bottom(Line::styled(format!(" {k} "), bold()));
    }
    f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }).block(block), r);
}

fn draw_overlay(f: &mut Frame, app: &TableApp, area: Rect) {
    let nc = app.no_color;
    match &app.overlay {
        Some(TableOverlay::Help) => {
            let mut lines: Vec<Line> = keys(app.offers(), app.screen.viewer().is_some())
                .iter()
                .map(|(k, what)| Line::from(format!("{k:<12} {what}")))
                .collect();
            lines.push(Line::from("Press ? or Esc to close."));
            popup(f, area, "Keys at this table", lines, 76);
        }
        Some(TableOverlay::ConfirmQuit) => {
            let lines = vec![
                Line::from("Leave the game? The seat stays yours: the"),
                Line::from("command to come back is printed on exit."),
                Line::from("y: quit · any other key: stay"),
            ];
            popup(f, area, "Quit?", lines, 44);
        }
        Some(TableOverlay::ConfirmKnock(c, dw)) => {
            let what = if *dw == 0 { "Go gin".to_string() } else { format!("Knock with {dw} deadwood") };
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
        Some(TableOverlay::ConfirmResign) => {
            popup(f, area, "Resign?", vec![Line::from("Resign? The game ends for you.  y / n")], 42);
        }
        Some(TableOverlay::ConfirmBigGin) => {
            popup(f, area, "Big gin?", vec![Line::from("Lay down all 11 cards? y / n")], 40);
        }
        Some(TableOverlay::LayOff(c, digits)) => {
            let targets = app.layoff_targets(*c);
            let mut lines = vec![Line::from(vec![
                Span::raw("Lay "),
                card_span(*c, nc),
                Span::raw(" off onto which meld? Type its number."),
            ])];
            for t in &app.screen.snap.tables {
                for m in &t.melds {
                    let ok = targets.contains(&m.index);
                    let mut l = vec![Span::styled(
                        format!("{} {:>2} ", if ok { "▶" } else { " " }, m.index),
                        if ok { bold() } else { Style::default() },
                    )];
                    l.extend(meld_spans(&wire(&m.cards), nc));
                    l.push(Span::raw(format!(" {}", short_name(app, m.seat))));
                    lines.push(Line::from(l));
                }
            }
            if targets.is_empty() {
                lines.push(Line::from("(no meld takes this card now: the server will say why)"));
            }
            lines.push(Line::from(format!("meld: {digits}_   Esc: cancel")));
            popup(f, area, "Lay off", lines, 60);
        }
        None => {
            if let Some(r) = app.results.first() {
                let lines = hand_over_lines(app, r);
                popup_with(
                    f,
                    area,
                    &format!("Hand {} over", r.hand_number + 1),
                    lines,
                    76,
                    Some("Space: continue"),
                );
            } else if let Some(r) = &app.screen.snap.result {
                popup_with(f, area, "Game over", game_over_lines(app, r), 60, Some("q: quit"));
            }
        }
    }
}

/// A finished hand for people: how it ended, every seat's melds, lay-offs and deadwood, the
/// totals after it.
pub fn hand_over_lines(app: &TableApp, r: &pb::TableHandResult) -> Vec<Line<'static>> {
    let nc = app.no_color;
    let teams = app.screen.snap.tables.len() > 1 || !r.team_points.is_empty();
    let at = if teams { format!(" at table {}", r.table) } else { String::new() };
    let who = match r.winner {
        Some(w) => format!("{} scored {}", short_name(app, w), r.points),
        None => "nobody scored".into(),
    };
    let by = match r.by {
        Some(b) if r.winner != Some(b) => format!(", {} ended it", short_name(app, b)),
        _ => String::new(),
    };
    let mut lines = vec![Line::styled(
        format!("Hand {}{at} ({}): {who}{by}", r.hand_number + 1, end_name(r.end)),
        bold(),
    )];
    for o in &r.outcomes {
        let mut l = vec![Span::raw(format!("{} {}: ", o.seat, short_name(app, o.seat)))];
        for m in &o.melds {
            l.extend(meld_spans(&wire(&m.cards), nc));
            l.push(Span::raw(" "));
        }
        if !o.layoffs.is_empty() {
            l.push(Span::raw("laid off "));
            l.extend(cards_spans(wire(&o.layoffs), nc));
            l.push(Span::raw(" "));
        }
        l.push(Span::raw(format!("deadwood {}", o.deadwood_value)));
        if !o.deadwood.is_empty() {
            l.push(Span::raw(": "));
            l.extend(cards_spans(wire(&o.deadwood), nc));
        }
        if o.penalty > 0 {
            l.push(Span::raw(format!(", penalty {}", o.penalty)));
        }
        lines.push(Line::from(l));
    }
    if !r.discard.is_empty()
        && let (Some(b), Ok(c)) = (r.by, r.discard.parse::<Card>())
    {
        lines.push(Line::from(vec![
            Span::raw(format!("{} discarded face down: ", short_name(app, b))),
            card_span(c, nc),
        ]));
    }
    if !r.team_points.is_empty() {
        let p: Vec<String> = r.team_points.iter().enumerate().map(|(i, x)| format!("team {i} {x}")).collect();
        lines.push(Line::from(format!("Round's points: {}", p.join(" · "))));
    }
    let totals: Vec<String> = if teams {
        r.totals.iter().enumerate().map(|(i, x)| format!("team {i} {x}")).collect()
    } else {
        r.totals.iter().enumerate().map(|(i, x)| format!("{i} {} {x}", short_name(app, i as u32))).collect()
    };
    if !totals.is_empty() {
        lines.push(Line::from(format!("Totals: {}", totals.join(" · "))));
    }
    lines
}

/// The game's end in one line: who won.
pub fn game_line(app: &TableApp, r: &pb::GameResult) -> String {
    let winners: Vec<String> = r.winners.iter().map(|&w| short_name(app, w)).collect();
    let limit = if r.reason == pb::GameEndReason::HandLimit as i32 {
        " at the hand limit (the totals decide)"
    } else {
        ""
    };
    match winners.len() {
        0 => format!("Game over{limit}: nobody won"),
        _ => format!("Game over{limit}: {} won", winners.join(" and ")),
    }
}

/// The game's end: who won, then every seat's place and final total (team play: the
/// teams' too).
pub fn game_over_lines(app: &TableApp, r: &pb::GameResult) -> Vec<Line<'static>> {
    let mut lines = vec![Line::styled(game_line(app, r), bold())];
    let mut seats: Vec<usize> = (0..r.table_totals.len()).collect();
    seats.sort_by_key(|&i| (r.places.get(i).copied().unwrap_or(u32::MAX), i));
    for i in seats {
        let place = r.places.get(i).map_or("-".to_string(), |p| format!("{p}."));
        lines.push(Line::from(format!(
            "{place:>3} seat {i} {:<18} {:>6}",
            short_name(app, i as u32),
            r.table_totals[i]
        )));
    }
    if !r.team_totals.is_empty() {
        let t: Vec<String> = r.team_totals.iter().enumerate().map(|(i, x)| format!("team {i} {x}")).collect();
        lines.push(Line::from(format!("Teams: {}", t.join(" · "))));
    }
    lines
}
