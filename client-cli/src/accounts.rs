//! What `gin whoami`, `gin games`, `gin challenges` and `gin account tokens` print (pure: from the
//! `AccountService` answers to lines or JSON). The server's text is escaped
//! (`gin_proto::text::printable`) in the lines; the JSON holds it as sent (a JSON string
//! escapes control characters itself).

use gin_proto::v1 as pb;
use serde_json::{Value, json};

use crate::table::shown;

/// `YYYY-MM-DD HH:MM` (UTC) of a Unix time in milliseconds; `-` for 0.
pub fn date(unix_ms: i64) -> String {
    if unix_ms <= 0 {
        return "-".into();
    }
    let secs = unix_ms.div_euclid(1000);
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02}", rest / 3600, rest % 3600 / 60)
}

/// `person` or `bot`.
pub fn kind(k: i32) -> &'static str {
    match pb::AccountKind::try_from(k) {
        Ok(pb::AccountKind::Bot) => "bot",
        Ok(pb::AccountKind::Person) => "person",
        _ => "?",
    }
}

/// A scope's word on the command line (`play`, `tournament`, `account`).
pub fn scope_word(s: i32) -> &'static str {
    match pb::TokenScope::try_from(s) {
        Ok(pb::TokenScope::Play) => "play",
        Ok(pb::TokenScope::Tournament) => "tournament",
        Ok(pb::TokenScope::Account) => "account",
        _ => "?",
    }
}

/// An account in a few words: `alice (person)`, `robo (bot)`.
pub fn account_line(a: &pb::Account) -> String {
    format!("{} ({})", shown(&a.name), kind(a.kind))
}

/// `gin whoami`'s lines.
pub fn whoami_lines(server: &str, w: &pb::WhoAmIResponse) -> Vec<String> {
    let mut v = Vec::new();
    if let Some(a) = &w.account {
        v.push(format!("signed in as {} on {}", account_line(a), shown(server)));
        v.push(format!(
            "account created {} UTC{}",
            date(a.created_unix_ms),
            if a.has_password { ", with a password" } else { "" }
        ));
    }
    if let Some(t) = &w.token {
        v.push(format!("token {} ({}): {}", shown(&t.id), shown(&t.label), scopes(&t.scopes)));
    }
    v
}

fn scopes(s: &[i32]) -> String {
    s.iter().map(|&s| scope_word(s)).collect::<Vec<_>>().join(", ")
}

/// One opponent's seat in a game's list: an account (`(bot)` for a bot account), `deleted`,
/// a house bot, or `guest`.
pub fn opponent(s: &pb::SeatInfo) -> String {
    if s.account_deleted {
        "deleted".into()
    } else if !s.account.is_empty() {
        shown(&gin_sdk::seat_name(s))
    } else if s.bot {
        format!("{} (house bot)", shown(&s.name))
    } else if s.entrant {
        format!("{} (entrant)", shown(&s.name))
    } else {
        "guest".into()
    }
}

/// A game's result for the account: `won 131-45`, `lost`, `drew`, `in play`, with the
/// reason when it is not the target (`won 20-0 (resigned)`).
pub fn result(g: &pb::PlayerGame) -> String {
    let Some(o) = g.outcome.as_ref().filter(|_| g.finished_unix_ms != 0) else {
        return "in play".into();
    };
    let verdict = match (o.won, o.drawn) {
        (true, _) => "won",
        (false, true) => "drew",
        _ => "lost",
    };
    let mine = o.totals.get(g.seat as usize).copied().unwrap_or(0);
    let others = o
        .totals
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != g.seat as usize)
        .map(|(_, t)| t.to_string())
        .collect::<Vec<_>>()
        .join("-");
    let reason = match pb::GameEndReason::try_from(o.reason) {
        Ok(pb::GameEndReason::Target) | Ok(pb::GameEndReason::Unspecified) | Err(_) => "",
        Ok(pb::GameEndReason::Resigned) => " (resigned)",
        Ok(pb::GameEndReason::Forfeit) => " (forfeit)",
        Ok(pb::GameEndReason::Cancelled) => " (cancelled)",
        Ok(pb::GameEndReason::Abandoned) => " (abandoned)",
        Ok(pb::GameEndReason::HandLimit) => " (hand limit)",
    };
    if others.is_empty() {
        format!("{verdict} {mine}{reason}")
    } else {
        format!("{verdict} {mine}-{others}{reason}")
    }
}

/// A game's format in a word or two: `standard`, `rummy (4)`.
pub fn format_name(g: &pb::PlayerGame) -> String {
    match &g.format {
        Some(f) if f.kind.is_empty() || f.kind == "gin" => {
            shown(g.rules.as_ref().map_or(f.name.as_str(), |r| r.name.as_str()))
        }
        Some(f) => format!("{} ({})", shown(if f.name.is_empty() { &f.kind } else { &f.name }), f.players),
        None => shown(g.rules.as_ref().map_or("?", |r| r.name.as_str())),
    }
}

/// `gin games`' table: a header, then a line a game (date, format, opponents, result, id;
/// the id is what `gin replay`/`gin verify` take).
pub fn games_lines(r: &pb::ListPlayerGamesResponse) -> Vec<String> {
    let rows: Vec<[String; 5]> = r
        .games
        .iter()
        .map(|g| {
            let opponents: Vec<String> =
                g.seats.iter().filter(|s| s.seat != g.seat && s.taken).map(opponent).collect();
            [date(g.joined_unix_ms), format_name(g), opponents.join(", "), result(g), shown(&g.game_id)]
        })
        .collect();
    let head = ["DATE (UTC)", "FORMAT", "OPPONENTS", "RESULT", "GAME"].map(String::from);
    let mut width = head.clone().map(|h| h.chars().count());
    for row in &rows {
        for (w, c) in width.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |row: &[String; 5]| {
        let mut s = String::new();
        for (i, (c, w)) in row.iter().zip(width).enumerate() {
            if i + 1 == row.len() {
                s.push_str(c);
            } else {
                s.push_str(&format!("{c:<w$}  "));
            }
        }
        s
    };
    let mut v = Vec::new();
    if let Some(a) = &r.account {
        v.push(format!("games of {}", account_line(a)));
    }
    if rows.is_empty() {
        v.push("no games".into());
        return v;
    }
    v.push(line(&head));
    v.extend(rows.iter().map(line));
    v
}

fn seat_json(s: &pb::SeatInfo) -> Value {
    json!({
        "seat": s.seat,
        "name": s.name,
        "account": (!s.account.is_empty()).then_some(&s.account),
        "account_kind": (!s.account.is_empty()).then(|| kind(s.account_kind)),
        "account_deleted": s.account_deleted,
        "house_bot": s.bot,
        "entrant": s.entrant,
    })
}

/// `gin games --json`: the account, the games (each with its seats, its result and the
/// totals) and the next page's token (null on the last page).
pub fn games_json(r: &pb::ListPlayerGamesResponse) -> Value {
    let games: Vec<Value> = r
        .games
        .iter()
        .map(|g| {
            json!({
                "game_id": g.game_id,
                "format": g.format.as_ref().map(|f| f.kind.clone()),
                "rules": g.rules.as_ref().map(|r| r.name.clone()),
                "players": g.format.as_ref().map(|f| f.players),
                "seat": g.seat,
                "joined_unix_ms": g.joined_unix_ms,
                "finished_unix_ms": (g.finished_unix_ms != 0).then_some(g.finished_unix_ms),
                "opponents": g.seats.iter().filter(|s| s.seat != g.seat).map(seat_json).collect::<Vec<_>>(),
                "result": result(g),
                "won": g.outcome.as_ref().map(|o| o.won),
                "drawn": g.outcome.as_ref().map(|o| o.drawn),
                "totals": g.outcome.as_ref().map(|o| o.totals.clone()),
            })
        })
        .collect();
    json!({
        "account": r.account.as_ref().map(|a| json!({"name": a.name, "kind": kind(a.kind)})),
        "games": games,
        "next_page_token": (!r.next_page_token.is_empty()).then_some(&r.next_page_token),
    })
}

/// `gin account tokens`' lines: id, label, scopes, created, last used, state.
pub fn token_lines(tokens: &[pb::TokenInfo]) -> Vec<String> {
    if tokens.is_empty() {
        return vec!["no tokens".into()];
    }
    tokens
        .iter()
        .map(|t| {
            let state = if t.revoked_unix_ms != 0 {
                format!("revoked {}", date(t.revoked_unix_ms))
            } else {
                "live".into()
            };
            format!(
                "{}  {}{}  [{}]  created {}  last used {}  {state}",
                shown(&t.id),
                shown(&t.label),
                if t.session { " (session)" } else { "" },
                scopes(&t.scopes),
                date(t.created_unix_ms),
                date(t.last_used_unix_ms),
            )
        })
        .collect()
}

/// A challenge's state, in words.
pub fn challenge_state(state: i32) -> &'static str {
    match pb::ChallengeState::try_from(state) {
        Ok(pb::ChallengeState::Open) => "open",
        Ok(pb::ChallengeState::Accepted) => "accepted",
        Ok(pb::ChallengeState::Declined) => "declined",
        Ok(pb::ChallengeState::Cancelled) => "cancelled",
        Ok(pb::ChallengeState::Expired) => "expired",
        _ => "unknown",
    }
}

/// One line of `gin challenges`: id, who to whom, what, its state and when it expires (the
/// server's text escaped).
pub fn challenge_line(c: &pb::Challenge) -> String {
    let what = match (&c.format, &c.rules) {
        (f, _) if !f.is_empty() => f.clone(),
        (_, Some(pb::Rules { kind: Some(pb::rules::Kind::Preset(p)) })) => p.clone(),
        (_, Some(pb::Rules { kind: Some(_) })) => "custom rules".into(),
        _ => "standard".into(),
    };
    let who = match c.sent {
        true => format!("to {}", c.opponent),
        false => format!("from {}", c.challenger),
    };
    let mut line = format!(
        "{}  {}  {}{}{}  {}",
        c.challenge_id,
        who,
        what,
        if c.rated { ", rated" } else { "" },
        c.clock
            .filter(|k| k.turn_millis > 0)
            .map(|k| format!(", {} s a turn", k.turn_millis / 1000))
            .unwrap_or_default(),
        challenge_state(c.state),
    );
    if c.state == pb::ChallengeState::Open as i32 {
        line.push_str(&format!(" until {}", date(c.expires_ms)));
    }
    if !c.game_id.is_empty() {
        line.push_str(&format!("  game {}", c.game_id));
    }
    shown(&line)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOSTILE: &str = "\x1b]0;pwned\x07\u{202e}";

    #[test]
    fn dates_are_utc_minutes() {
        assert_eq!(date(0), "-");
        assert_eq!(date(1), "1970-01-01 00:00");
        // 2024-02-29 13:37:00 UTC.
        assert_eq!(date(1_709_213_820_000), "2024-02-29 13:37");
        assert_eq!(date(1_764_288_000_000), "2025-11-28 00:00");
    }

    fn game() -> pb::PlayerGame {
        let seat = |seat, name: &str, account: &str, kind: pb::AccountKind| pb::SeatInfo {
            seat,
            name: name.into(),
            taken: true,
            account: account.into(),
            account_kind: kind as i32,
            ..Default::default()
        };
        pb::PlayerGame {
            game_id: "g1".into(),
            format: Some(pb::FormatInfo {
                kind: "gin".into(),
                players: 2,
                name: "standard".into(),
                ..Default::default()
            }),
            seat: 1,
            seats: vec![
                seat(0, "r", "Robo", pb::AccountKind::Bot),
                seat(1, "me", "Alice", pb::AccountKind::Person),
            ],
            joined_unix_ms: 1_709_213_820_000,
            finished_unix_ms: 1_709_213_900_000,
            outcome: Some(pb::GameOutcome {
                won: true,
                totals: vec![45, 131],
                reason: 1,
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn a_game_line_has_the_date_format_opponents_result_and_id() {
        let mut r = pb::ListPlayerGamesResponse { games: vec![game()], ..Default::default() };
        let mut guest = game();
        guest.game_id = "g2".into();
        guest.seats[0] = pb::SeatInfo { seat: 0, name: "pat".into(), taken: true, ..Default::default() };
        guest.finished_unix_ms = 0;
        let mut gone = game();
        gone.seats[0].account.clear();
        gone.seats[0].account_deleted = true;
        gone.outcome =
            Some(pb::GameOutcome { won: false, totals: vec![100, 20], reason: 2, ..Default::default() });
        let mut house = game();
        house.seats[0] =
            pb::SeatInfo { seat: 0, name: "simple".into(), taken: true, bot: true, ..Default::default() };
        r.games.extend([guest, gone, house]);
        let lines = games_lines(&r);
        assert!(lines[0].starts_with("DATE (UTC)        FORMAT    OPPONENTS"), "{lines:#?}");
        assert!(lines[1].starts_with("2024-02-29 13:37  standard  Robo (bot)"), "{lines:#?}");
        assert!(lines[1].contains("won 131-45") && lines[1].ends_with("g1"), "{lines:#?}");
        assert!(lines[2].contains(" guest ") && lines[2].contains("in play"), "{lines:#?}");
        assert!(lines[3].contains(" deleted ") && lines[3].contains("lost 20-100 (resigned)"), "{lines:#?}");
        assert!(lines[4].contains("simple (house bot)"), "{lines:#?}");
        let j = games_json(&r);
        assert_eq!(j["games"][0]["opponents"][0]["account"], "Robo");
        assert_eq!(j["games"][0]["opponents"][0]["account_kind"], "bot");
        assert_eq!(j["games"][0]["result"], "won 131-45");
        assert_eq!(j["next_page_token"], Value::Null);
    }

    #[test]
    fn a_server_s_text_is_escaped_in_lines() {
        let mut g = game();
        g.game_id = format!("g{HOSTILE}");
        g.seats[0].account = format!("R{HOSTILE}");
        let r = pb::ListPlayerGamesResponse { games: vec![g], ..Default::default() };
        for l in games_lines(&r) {
            assert!(!l.chars().any(gin_proto::text::refused), "{l:?}");
        }
        let t = pb::TokenInfo { id: format!("t{HOSTILE}"), label: HOSTILE.into(), ..Default::default() };
        for l in token_lines(&[t]) {
            assert!(!l.chars().any(gin_proto::text::refused), "{l:?}");
        }
    }

    #[test]
    fn a_challenge_line_says_who_what_and_where_it_stands_escaped() {
        let c = pb::Challenge {
            challenge_id: "ch-1".into(),
            challenger: "Ann\u{1b}[2J".into(),
            opponent: "Bob".into(),
            rules: Some(pb::Rules { kind: Some(pb::rules::Kind::Preset("oklahoma".into())) }),
            clock: Some(pb::TurnClock { turn_millis: 30_000, policy: 0 }),
            state: pb::ChallengeState::Open as i32,
            expires_ms: 86_400_000,
            ..Default::default()
        };
        let line = challenge_line(&c);
        assert_eq!(line, "ch-1  from Ann\\u{1b}[2J  oklahoma, 30 s a turn  open until 1970-01-02 00:00");
        let sent = pb::Challenge {
            sent: true,
            rated: true,
            format: "rummy".into(),
            rules: None,
            clock: None,
            state: pb::ChallengeState::Accepted as i32,
            game_id: "g1".into(),
            ..c
        };
        assert_eq!(challenge_line(&sent), "ch-1  to Bob  rummy, rated  accepted  game g1");
    }
}
