//! `gin replay`: replays a game record (JSON or the compact text form) with the engine and
//! reports every hand, then the final score with its bonuses.

use std::fmt;
use std::io::{self, Write};

use engine::{
    Arrangement, BySeat, EndKind, Game, GameRecord, GameResult, HandEnd, HandReport, HandSummary, Kind,
    ReplayError, Seat, StageResult, Table, TableRecord,
};

/// Why a record did not replay: the engine's error, plus where it happened when known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayFailure {
    /// The engine's error (for a bad action: its 0-based index, seat, action and reason).
    pub error: ReplayError,
    /// More context: the hand holding the bad action, or the two results that differ.
    pub detail: Option<String>,
}

impl fmt::Display for ReplayFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.error.fmt(f)?;
        if let Some(d) = &self.detail {
            write!(f, " ({d})")?;
        }
        Ok(())
    }
}

impl std::error::Error for ReplayFailure {}

/// Parses a record (JSON or text, see [`GameRecord::parse`]) and replays it.
pub fn replay(text: &str) -> Result<Game, ReplayFailure> {
    let record = GameRecord::parse(text).map_err(|error| ReplayFailure { error, detail: None })?;
    record.replay().map_err(|error| {
        let detail = explain(&record, &error);
        ReplayFailure { error, detail }
    })
}

/// Where a replay went wrong, worked out by replaying again up to that point.
fn explain(record: &GameRecord, error: &ReplayError) -> Option<String> {
    match error {
        ReplayError::BadAction { index, .. } => {
            let mut g = Game::new(record.setup.clone()).ok()?;
            for a in record.actions.get(..*index)? {
                g.apply(a.seat, &a.action).ok()?;
            }
            Some(format!("in hand {}, stage {}", g.hand_number() + 1, g.stage() + 1))
        }
        ReplayError::ResultMismatch => {
            let recorded = record.result.as_ref()?;
            let replayed = GameRecord { result: None, ..record.clone() }.replay().ok()?;
            let replayed = match replayed.result() {
                Some(r) => describe_result(r),
                None => "the game is not over".to_string(),
            };
            Some(format!("recorded: {}; replayed: {replayed}", describe_result(recorded)))
        }
        ReplayError::Parse(_) | ReplayError::Setup(_) => None,
    }
}

fn describe_result(r: &GameResult) -> String {
    let winner = match r.winner {
        Some(w) => format!("seat {w} wins by {}", r.margin),
        None => "a tie".to_string(),
    };
    format!("totals {}, {winner}", pair(r.totals))
}

/// `seat 0 12, seat 1 40`.
fn pair(v: BySeat<u32>) -> String {
    format!("seat 0 {}, seat 1 {}", v[Seat::S0], v[Seat::S1])
}

/// `[7C 7D 7H] [3S 4S 5S] | 2D AH` (the engine's form), `no melds | 2D AH`, or `no cards`.
fn arrangement(a: &Arrangement) -> String {
    match (a.melds().is_empty(), a.deadwood_cards().is_empty()) {
        (true, true) => "no cards".to_string(),
        (true, false) => format!("no melds | {}", a.deadwood_cards()),
        (false, _) => a.to_string(),
    }
}

/// Writes one finished hand: how it ended and who scored, both arrangements, the layoffs and
/// the stage scores after it. Hand and stage numbers are 1-based.
pub fn write_hand(w: &mut impl Write, h: &HandSummary) -> io::Result<()> {
    let r = &h.result;
    write!(w, "hand {} (stage {}), dealer seat {}: ", h.number + 1, h.stage + 1, h.dealer)?;
    let knocker = r.showdown.as_ref().map(|s| s.knocker);
    match (r.end, knocker) {
        (EndKind::Dead, _) => write!(w, "dead hand")?,
        (EndKind::TurnLimit, _) => write!(w, "dead hand at the turn limit ({} turns)", r.turns)?,
        (EndKind::Knock, Some(k)) => write!(w, "seat {k} knocks")?,
        (EndKind::Undercut, Some(k)) => write!(w, "seat {k} knocks and is undercut")?,
        (EndKind::Gin, Some(k)) => write!(w, "seat {k} goes gin")?,
        (EndKind::BigGin, Some(k)) => write!(w, "seat {k} goes big gin")?,
        (end, None) => write!(w, "{end:?}")?,
    }
    match r.winner {
        Some(s) => write!(w, "; seat {s} wins {} points", r.points)?,
        None => write!(w, ", no score")?,
    }
    if r.doubled {
        write!(w, " (doubled by the spade upcard)")?;
    }
    writeln!(w)?;
    if let Some(s) = &r.showdown {
        write!(w, "  knocker  seat {} deadwood {}", s.knocker, s.knocker_deadwood)?;
        match s.discard {
            Some(d) => write!(w, ", discards {d}")?,
            None => write!(w, ", no discard")?,
        }
        writeln!(w, ": {}", arrangement(&s.knocker_arrangement))?;
        writeln!(
            w,
            "  defender seat {} deadwood {}: {}",
            s.knocker.other(),
            s.defender_deadwood,
            arrangement(&s.defender_arrangement)
        )?;
        if !matches!(r.end, EndKind::Gin | EndKind::BigGin) {
            write!(w, "  layoffs  ")?;
            if s.layoffs.is_empty() {
                write!(w, "none")?;
            }
            for (i, l) in s.layoffs.iter().enumerate() {
                if i > 0 {
                    write!(w, ", ")?;
                }
                write!(w, "{}", l.card)?;
                if let Some(m) = s.knocker_arrangement.melds().get(l.meld) {
                    write!(w, " on [{m}]")?;
                }
            }
            writeln!(w)?;
        }
    }
    writeln!(w, "  scores   {}", pair(h.scores))
}

/// Writes one stage's breakdown as a table: hand points, hands won, each bonus and the total.
pub fn write_stage(w: &mut impl Write, index: usize, st: &StageResult) -> io::Result<()> {
    match st.reached_target {
        Some(s) => writeln!(w, "stage {}: seat {s} reached the target", index + 1)?,
        None => writeln!(w, "stage {}: closed at the hand limit, nobody reached the target", index + 1)?,
    }
    writeln!(w, "  {:<15}{:>8}{:>8}", "", "seat 0", "seat 1")?;
    let rows = [
        ("hand points", st.hand_points),
        ("hands won", st.hands_won),
        ("game bonus", st.game_bonus),
        ("box bonus", st.box_bonus),
        ("shutout bonus", st.shutout_bonus),
        ("total", st.total),
    ];
    for (name, v) in rows {
        writeln!(w, "  {name:<15}{:>8}{:>8}", v[Seat::S0], v[Seat::S1])?;
    }
    if st.dead_hands > 0 {
        writeln!(w, "  dead hands: {}", st.dead_hands)?;
    }
    Ok(())
}

/// Writes the end of a game: every stage's breakdown, the totals, the winner and the margin.
pub fn write_result(w: &mut impl Write, r: &GameResult) -> io::Result<()> {
    for (i, st) in r.stages.iter().enumerate() {
        write_stage(w, i, st)?;
    }
    if r.end == engine::GameEnd::HandLimit {
        writeln!(w, "the game ended at its hand limit: the totals decide")?;
    }
    writeln!(w, "game total: {}", pair(r.totals))?;
    match r.winner {
        Some(s) => writeln!(w, "winner: seat {s} by {} points", r.margin),
        None => writeln!(w, "no winner: the totals are equal"),
    }
}

/// Writes the whole report of a replayed game: a header, every finished hand, then the
/// result; for a game still in progress, the stages finished so far and where it stands.
pub fn write_report(w: &mut impl Write, game: &Game) -> io::Result<()> {
    let setup = game.setup();
    let plural = |n: usize, word: &str| if n == 1 { format!("1 {word}") } else { format!("{n} {word}s") };
    writeln!(
        w,
        "game: rules {}, seed {}, {}, {}",
        // A record may come from a server (`GetRecord`): its text is shown escaped.
        gin_proto::text::printable(&setup.rules.name),
        setup.seed,
        plural(game.actions().len(), "action"),
        plural(game.hands().len(), "finished hand")
    )?;
    for h in game.hands() {
        write_hand(w, h)?;
    }
    writeln!(w)?;
    match game.result() {
        Some(r) => write_result(w, r),
        None => {
            for (i, st) in game.stages().iter().enumerate() {
                write_stage(w, i, st)?;
            }
            writeln!(
                w,
                "the game is not over: hand {} (stage {}) is in play; stage scores {}",
                game.hand_number() + 1,
                game.stage() + 1,
                pair(game.scores())
            )
        }
    }
}

/// Whether `text` is a two-player gin record (version 1, JSON or text), which the
/// two-player report replays with its own detail.
pub fn is_gin_record(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with("gin-record")
        || (t.starts_with('{')
            && serde_json::from_str::<serde_json::Value>(t)
                .is_ok_and(|v| v.get("version").and_then(|x| x.as_u64()) == Some(1)))
}

/// The game record inside a file `gin verify ID --save FILE` wrote (a JSON object with
/// `game_id`, `record` and `hands`), as JSON text; `None` for anything else.
pub fn saved_verifiable_record(text: &str) -> Option<String> {
    let t = text.trim_start();
    if !t.starts_with('{') {
        return None;
    }
    let v: serde_json::Value = serde_json::from_str(t).ok()?;
    let o = v.as_object()?;
    if !(o.contains_key("game_id") && o.contains_key("hands")) {
        return None;
    }
    Some(o.get("record")?.to_string())
}

/// Parses a record of any format and replays it: a two-player gin record through the
/// two-player game (with its detailed errors), any other through [`engine::Table`]. A file
/// `gin verify --save` wrote is replayed by the record it holds.
pub fn replay_any(text: &str) -> Result<Table, Box<dyn std::error::Error + Send + Sync>> {
    if let Some(record) = saved_verifiable_record(text) {
        return replay_any(&record);
    }
    if is_gin_record(text) {
        return Ok(Table::Gin(replay(text)?));
    }
    let record = TableRecord::parse(text)?;
    Ok(record.replay()?)
}

/// The full report of a replayed table, as `gin replay --json` prints it: the format, each
/// finished hand ([`engine::HandReport`]: how it ended, who knocked or went out, each seat's
/// melds, lay-offs, deadwood and penalty, the running totals), whether the game is over,
/// the result (totals, winners, places) and the kind's own detail (two-player gin: the
/// stages and bonuses).
pub fn json_report(t: &Table) -> serde_json::Value {
    serde_json::json!({
        "format": t.setup().format,
        "players": t.players(),
        "hands": t.hands(),
        "over": t.is_over(),
        "result": t.result(),
        "detail": t.result_detail(),
    })
}

/// Writes [`json_report`] as pretty JSON and a newline.
pub fn write_json(w: &mut impl Write, t: &Table) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *w, &json_report(t))?;
    writeln!(w)
}

fn seats(v: &[i64]) -> String {
    v.iter().enumerate().map(|(i, x)| format!("seat {i} {x}")).collect::<Vec<_>>().join(", ")
}

/// Writes one finished hand of any format.
pub fn write_table_hand(w: &mut impl Write, kind: Kind, h: &HandReport) -> io::Result<()> {
    write!(w, "hand {}", h.number + 1)?;
    match kind {
        Kind::Teams => write!(w, " (round {}, table {})", h.round + 1, h.table + 1)?,
        Kind::ThreePlayer => write!(w, ", seat {} deals and sits out", h.dealer)?,
        _ => write!(w, ", dealer seat {}", h.dealer)?,
    }
    let players: Vec<String> = h.seats.iter().map(|s| format!("seat {s}")).collect();
    write!(w, ", {}: ", players.join(" v "))?;
    let by = h.by.map_or(String::new(), |b| format!("seat {b} "));
    match h.end {
        HandEnd::Dead => write!(w, "dead hand")?,
        HandEnd::TurnLimit => write!(w, "dead hand at the turn limit ({} turns)", h.turns)?,
        HandEnd::Knock => write!(w, "{by}knocks")?,
        HandEnd::Undercut => write!(w, "{by}knocks and is undercut")?,
        HandEnd::Defence => write!(w, "{by}knocks and is beaten (a successful defence)")?,
        HandEnd::Gin => write!(w, "{by}goes gin")?,
        HandEnd::BigGin => write!(w, "{by}goes big gin")?,
        HandEnd::WentOut => write!(w, "{by}goes out")?,
        HandEnd::Rummy => write!(w, "{by}goes rummy (all at once: doubled)")?,
    }
    match h.winner {
        Some(s) => writeln!(w, "; seat {s} wins {} points", h.points)?,
        None => writeln!(w, ", no score")?,
    }
    for o in &h.outcomes {
        write!(w, "  seat {} deadwood {}:", o.seat, o.deadwood_points)?;
        for m in &o.melds {
            write!(w, " [{m}]")?;
        }
        if o.melds.is_empty() {
            write!(w, " no melds")?;
        }
        write!(w, " | {}", if o.deadwood.is_empty() { "-".to_string() } else { o.deadwood.to_string() })?;
        if !o.layoffs.is_empty() {
            let l: Vec<String> = o.layoffs.iter().map(|c| c.to_string()).collect();
            write!(w, "; laid off {}", l.join(" "))?;
        }
        if o.penalty > 0 {
            write!(w, "; penalty {}", o.penalty)?;
        }
        writeln!(w)?;
    }
    if let Some([a, b]) = h.team_points {
        writeln!(w, "  round scored: team 0 {a}, team 1 {b}")?;
    }
    let label = if kind == Kind::Teams { "team totals" } else { "totals" };
    let totals = if kind == Kind::Teams {
        format!("team 0 {}, team 1 {}", h.totals[0], h.totals[1])
    } else {
        seats(&h.totals)
    };
    writeln!(w, "  {label}   {totals}")
}

/// Writes the report of a replayed table of any format: two-player gin as
/// [`write_report`]; the others: a header, every finished hand, then the result.
pub fn write_table_report(w: &mut impl Write, t: &Table) -> io::Result<()> {
    if let Table::Gin(g) = t {
        return write_report(w, g);
    }
    let setup = t.setup();
    writeln!(
        w,
        "game: {}, {} players, seed {}, {} moves, {} finished hands",
        gin_proto::text::printable(&setup.format.name()),
        t.players(),
        setup.seed,
        t.moves().len(),
        t.hands().len()
    )?;
    for h in t.hands() {
        write_table_hand(w, t.kind(), &h)?;
    }
    writeln!(w)?;
    match t.result() {
        Some(r) => {
            if r.end == engine::GameEnd::HandLimit {
                writeln!(w, "the game ended at its hand limit: the totals decide")?;
            }
            if let Some(team) = &r.team_totals {
                writeln!(w, "game total: team 0 (seats 0, 2) {}, team 1 (seats 1, 3) {}", team[0], team[1])?;
            } else {
                writeln!(w, "game total: {}", seats(&r.totals))?;
            }
            let winners: Vec<String> = r.winners.iter().map(|s| format!("seat {s}")).collect();
            writeln!(w, "winner{}: {}", if r.winners.len() > 1 { "s" } else { "" }, winners.join(", "))
        }
        None => writeln!(w, "the game is not over: scores {}", seats(t.view(0).scores())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{Action, GameSetup, RuleSet};

    fn play(seed: u64) -> Game {
        let mut g = Game::new(GameSetup::new(RuleSet::standard(), seed)).unwrap();
        while let Some(seat) = g.to_act() {
            let l = g.hand().legal();
            let a = if let Some(c) = l.knocks.first() {
                Action::knock(c)
            } else if l.big_gin {
                Action::BigGin { melds: None }
            } else if l.draw_stock {
                Action::DrawStock
            } else if l.pass {
                Action::Pass
            } else {
                let b = engine::best_discard(g.hand().cards(seat)).unwrap();
                Action::Discard {
                    card: if l.discards.contains(b.discard) {
                        b.discard
                    } else {
                        l.discards.first().unwrap()
                    },
                }
            };
            g.apply(seat, &a).unwrap();
        }
        g
    }

    #[test]
    fn report_lists_every_hand_and_the_totals() {
        let g = play(5);
        let r = g.result().unwrap();
        let mut out = Vec::new();
        write_report(&mut out, &g).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert_eq!(out.lines().filter(|l| l.starts_with("hand ")).count(), g.hands().len());
        assert!(out.contains(&format!("game total: {}\n", pair(r.totals))), "{out}");
        for h in g.hands() {
            assert!(out.contains(&format!("hand {} (stage 1), dealer seat {}: ", h.number + 1, h.dealer)));
        }
    }

    /// Two players who always take the discard: each hand ends at the turn limit and the game
    /// at the hand limit, and the report says so (two-player and table reports, and JSON).
    #[test]
    fn report_names_the_turn_and_hand_limits() {
        let rules = RuleSet { max_turns_per_hand: 4, max_hands_per_game: 2, ..RuleSet::standard() };
        let mut g = Game::new(GameSetup::new(rules.clone(), 3)).unwrap();
        while let Some(seat) = g.to_act() {
            let l = g.hand().legal();
            let a = if l.draw_pile {
                Action::DrawPile
            } else {
                Action::Discard { card: l.discards.first().unwrap() }
            };
            g.apply(seat, &a).unwrap();
        }
        let mut out = Vec::new();
        write_report(&mut out, &g).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert_eq!(out.matches("dead hand at the turn limit (4 turns), no score").count(), 2, "{out}");
        assert!(out.contains("stage 1: closed at the hand limit, nobody reached the target"), "{out}");
        assert!(out.contains("the game ended at its hand limit: the totals decide"), "{out}");
        let t = Table::new(engine::TableSetup::new(engine::Format::ThreePlayer(rules), 3)).unwrap();
        let mut t = t;
        while let Some(seat) = t.first_to_act() {
            let legal = t.legal(seat);
            let m = legal
                .iter()
                .find(|m| matches!(m, engine::Move::DrawPile))
                .or_else(|| legal.iter().find(|m| matches!(m, engine::Move::Discard { .. })))
                .unwrap()
                .clone();
            t.apply(seat, &m).unwrap();
        }
        let mut out = Vec::new();
        write_table_report(&mut out, &t).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert_eq!(out.matches("dead hand at the turn limit (4 turns), no score").count(), 2, "{out}");
        assert!(out.contains("the game ended at its hand limit: the totals decide"), "{out}");
        let j = json_report(&t);
        assert_eq!(j["hands"][0]["end"], "turn_limit");
        assert_eq!(j["result"]["end"], "hand_limit");
    }

    #[test]
    fn bad_action_names_its_hand() {
        let g = play(5);
        let mut rec = g.record();
        rec.result = None;
        // The first action of the second hand, replaced by a discard before any draw.
        let mut probe = Game::new(rec.setup.clone()).unwrap();
        let mut index = 0;
        while probe.hands().is_empty() {
            let a = &rec.actions[index];
            probe.apply(a.seat, &a.action).unwrap();
            index += 1;
        }
        let card = probe.hand().cards(rec.actions[index].seat).first().unwrap();
        rec.actions[index].action = Action::Discard { card };
        let err = replay(&rec.to_json()).unwrap_err();
        assert!(matches!(err.error, ReplayError::BadAction { index: i, .. } if i == index));
        assert_eq!(err.detail.as_deref(), Some("in hand 2, stage 1"));
    }

    #[test]
    fn result_mismatch_shows_both() {
        let g = play(6);
        let mut rec = g.record();
        let r = rec.result.as_mut().unwrap();
        r.totals.0[0] += 1;
        let err = replay(&rec.to_text()).unwrap_err();
        assert_eq!(err.error, ReplayError::ResultMismatch);
        let d = err.detail.unwrap();
        assert!(d.starts_with("recorded: totals seat 0 "), "{d}");
        assert!(d.contains(&format!("replayed: totals {}", pair(g.result().unwrap().totals))), "{d}");
    }
}
