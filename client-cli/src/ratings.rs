//! What `gin leaderboard` and `gin profile` print (pure: from the `RatingService` and
//! `GetAccount` answers to lines or JSON). The server's text is escaped
//! (`gin_proto::text::printable`) in the lines; the JSON holds it as sent.

use gin_proto::v1 as pb;
use serde_json::{Value, json};

use crate::accounts::{account_line, date, kind};
use crate::table::shown;

/// The pool of two-player gin under the named preset `preset` (`gin/<preset>`).
pub fn gin_pool(preset: &str) -> String {
    format!("gin/{preset}")
}

/// A rating as shown: rounded to a whole number.
fn rating(r: f64) -> String {
    format!("{:.0}", r)
}

/// A deviation as shown: `±` and rounded.
fn deviation(d: f64) -> String {
    format!("±{:.0}", d)
}

/// A name with `(bot)` after a bot account's.
fn name(n: &str, k: i32) -> String {
    match pb::AccountKind::try_from(k) {
        Ok(pb::AccountKind::Bot) => format!("{} (bot)", shown(n)),
        _ => shown(n),
    }
}

/// Rows as aligned columns, two spaces apart (the last column not padded).
fn columns<const N: usize>(head: [&str; N], rows: &[[String; N]]) -> Vec<String> {
    let head = head.map(String::from);
    let mut width = head.clone().map(|h| h.chars().count());
    for row in rows {
        for (w, c) in width.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |row: &[String; N]| {
        let mut s = String::new();
        for (i, (c, w)) in row.iter().zip(width).enumerate() {
            if i + 1 == N {
                s.push_str(c);
            } else {
                s.push_str(&format!("{c:<w$}  "));
            }
        }
        s.trim_end().to_string()
    };
    std::iter::once(&head).chain(rows).map(line).collect()
}

/// `gin leaderboard`'s lines: a heading, then rank, name (bots marked `(bot)`), rating
/// (rounded), deviation and rated games, best first.
pub fn leaderboard_lines(pool: &str, r: &pb::GetLeaderboardResponse) -> Vec<String> {
    let mut v = vec![format!(
        "leaderboard {}: {} established rating{}",
        shown(pool),
        r.total,
        if r.total == 1 { "" } else { "s" }
    )];
    if r.lines.is_empty() {
        v.push(match r.total {
            0 => "no established ratings yet (a rating is provisional until its deviation comes down)".into(),
            _ => "no lines on this page".into(),
        });
        return v;
    }
    let rows: Vec<[String; 5]> = r
        .lines
        .iter()
        .map(|l| {
            [
                l.rank.to_string(),
                name(&l.name, l.kind),
                rating(l.rating),
                deviation(l.deviation),
                l.games.to_string(),
            ]
        })
        .collect();
    v.extend(columns(["RANK", "NAME", "RATING", "DEVIATION", "GAMES"], &rows));
    v
}

/// `gin leaderboard --json`: the pool, its total and the lines.
pub fn leaderboard_json(pool: &str, r: &pb::GetLeaderboardResponse) -> Value {
    let lines: Vec<Value> = r
        .lines
        .iter()
        .map(|l| {
            json!({
                "rank": l.rank,
                "name": l.name,
                "kind": kind(l.kind),
                "rating": l.rating,
                "deviation": l.deviation,
                "games": l.games,
            })
        })
        .collect();
    json!({ "pool": pool, "total": r.total, "lines": lines })
}

/// A pool rating's standing: `#3`, or `provisional`.
fn standing(p: &pb::PoolRating) -> String {
    match (p.provisional, p.rank) {
        (false, Some(r)) => format!("#{r}"),
        (true, _) => "provisional".into(),
        (false, None) => "-".into(),
    }
}

/// One rated game's line: game id, when it ended, place, rating before → after, opponents.
fn change_row(c: &pb::RatingChange) -> [String; 5] {
    let opponents: Vec<String> = c.opponents.iter().map(|o| shown(o)).collect();
    [
        shown(&c.game_id),
        date(c.ended_ms),
        c.place.to_string(),
        format!("{} → {}", rating(c.rating_before), rating(c.rating_after)),
        opponents.join(", "),
    ]
}

/// `gin profile`'s lines: the account (kind, since when, games finished), its rating in
/// each pool (rating, ±deviation, games, rank or `provisional`), then for each pool in
/// `histories` its rated games, newest first (game id, ended, place, before → after,
/// opponents).
pub fn profile_lines(
    account: &pb::GetAccountResponse,
    ratings: &pb::GetPlayerRatingsResponse,
    histories: &[(String, pb::GetRatingHistoryResponse)],
) -> Vec<String> {
    let mut v = Vec::new();
    match &account.account {
        Some(a) => v.push(format!(
            "{}, since {}; {} game{} finished",
            account_line(a),
            date(a.created_unix_ms),
            account.games_finished,
            if account.games_finished == 1 { "" } else { "s" }
        )),
        None => v.push(shown(&ratings.name)),
    }
    if ratings.ratings.is_empty() {
        v.push("no rated games".into());
    } else {
        let rows: Vec<[String; 5]> = ratings
            .ratings
            .iter()
            .map(|p| {
                [shown(&p.pool), rating(p.rating), deviation(p.deviation), p.games.to_string(), standing(p)]
            })
            .collect();
        v.extend(columns(["POOL", "RATING", "DEVIATION", "GAMES", "RANK"], &rows));
    }
    for (pool, h) in histories {
        v.push(String::new());
        if h.changes.is_empty() {
            v.push(format!("{}: no rated games", shown(pool)));
            continue;
        }
        v.push(format!("{}, newest first:", shown(pool)));
        let rows: Vec<[String; 5]> = h.changes.iter().map(change_row).collect();
        v.extend(columns(["GAME", "ENDED (UTC)", "PLACE", "RATING", "OPPONENTS"], &rows));
    }
    v
}

/// `gin profile --json`: the account, its ratings, and the histories asked for.
pub fn profile_json(
    account: &pb::GetAccountResponse,
    ratings: &pb::GetPlayerRatingsResponse,
    histories: &[(String, pb::GetRatingHistoryResponse)],
) -> Value {
    let pools: Vec<Value> = ratings
        .ratings
        .iter()
        .map(|p| {
            json!({
                "pool": p.pool,
                "rating": p.rating,
                "deviation": p.deviation,
                "games": p.games,
                "provisional": p.provisional,
                "rank": p.rank,
            })
        })
        .collect();
    let histories: Vec<Value> = histories
        .iter()
        .map(|(pool, h)| {
            let changes: Vec<Value> = h
                .changes
                .iter()
                .map(|c| {
                    json!({
                        "game_id": c.game_id,
                        "ended_unix_ms": c.ended_ms,
                        "place": c.place,
                        "rating_before": c.rating_before,
                        "rating_after": c.rating_after,
                        "deviation_after": c.deviation_after,
                        "opponents": c.opponents,
                    })
                })
                .collect();
            json!({ "pool": pool, "changes": changes, "next_page": (!h.next_page.is_empty()).then_some(&h.next_page) })
        })
        .collect();
    json!({
        "account": account.account.as_ref().map(|a| json!({
            "name": a.name,
            "kind": kind(a.kind),
            "created_unix_ms": a.created_unix_ms,
        })),
        "games_finished": account.games_finished,
        "ratings": pools,
        "history": histories,
    })
}
