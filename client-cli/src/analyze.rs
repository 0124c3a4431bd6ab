//! `gin analyze`: the minimum deadwood and best melds of a hand; for 11 cards, the best
//! discard first.
//!
//! Two outputs: a human-readable report for one hand ([`write_report`]), and one compact
//! line per hand for streams ([`write_line`], [`run_lines`]).

use std::fmt;
use std::io::{self, BufRead, Write};

use engine::rummy::RummyRules;
use engine::{Arrangement, BestDiscard, CardSet, Meld};

/// The most cards a hand can hold: 10, plus the one drawn.
pub const MAX_CARDS: u32 = 11;

/// Why a piece of text is not a hand that can be analyzed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HandError {
    /// The text did not parse as cards (bad card, or a card twice).
    Parse(engine::ParseCardSetError),
    /// No cards at all.
    Empty,
    /// More cards than a hand holds (the count, the most).
    TooMany(u32, u32),
    /// The line is not UTF-8 text (stream mode only).
    NotUtf8,
}

impl fmt::Display for HandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HandError::Parse(e) => e.fmt(f),
            HandError::Empty => f.write_str("no cards: give 1 to 11 cards, e.g. 7S 8S 9S KD"),
            HandError::TooMany(n, max) => write!(f, "{n} cards: a hand has at most {max}"),
            HandError::NotUtf8 => f.write_str("the line is not valid UTF-8"),
        }
    }
}

impl std::error::Error for HandError {}

/// Parses a hand (`7S 8S 9S KD`, `10d, qh`, `A♠ …`) and checks it holds 1 to 11 cards.
pub fn parse_hand(text: &str) -> Result<CardSet, HandError> {
    let cards: CardSet = text.parse().map_err(HandError::Parse)?;
    match cards.len() {
        0 => Err(HandError::Empty),
        n if n > MAX_CARDS => Err(HandError::TooMany(n, MAX_CARDS)),
        _ => Ok(cards),
    }
}

/// What the solver says about a hand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Analysis {
    /// 1 to 10 cards: a minimum-deadwood arrangement.
    Hand(Arrangement),
    /// 11 cards: the discard leaving the least deadwood and the arrangement of the 10 left.
    Eleven {
        /// The best discard and the arrangement after it.
        best: BestDiscard,
        /// When all 11 cards meld at once (big gin): those melds.
        big_gin: Option<Arrangement>,
    },
}

impl Analysis {
    /// The minimum deadwood (11 cards: after the best discard).
    pub fn deadwood(&self) -> u32 {
        self.arrangement().deadwood()
    }

    /// The arrangement reported (11 cards: of the 10 left after the discard).
    pub fn arrangement(&self) -> &Arrangement {
        match self {
            Analysis::Hand(a) => a,
            Analysis::Eleven { best, .. } => &best.arrangement,
        }
    }
}

/// Analyzes a hand of 1 to 11 cards.
pub fn analyze(cards: CardSet) -> Result<Analysis, HandError> {
    analyze_with(cards, MAX_CARDS)
}

/// Analyzes a hand of 1 to `full` cards, `full` being a hand after its draw (11 in
/// two-player gin, 8 in gin-7): a full hand gets its best discard first.
pub fn analyze_with(cards: CardSet, full: u32) -> Result<Analysis, HandError> {
    match cards.len() {
        0 => Err(HandError::Empty),
        n if n > full => Err(HandError::TooMany(n, full)),
        n if n == full && full != MAX_CARDS => {
            let best = engine::best_discard(cards).ok_or(HandError::Empty)?;
            Ok(Analysis::Eleven { best, big_gin: None })
        }
        MAX_CARDS => {
            let best = engine::best_discard(cards).ok_or(HandError::Empty)?;
            debug_assert_eq!(Some(best.deadwood()), engine::deadwood_after_best_discard(cards));
            // Only a hand that is gin after its discard can be all melded: skip the extra
            // solver pass otherwise.
            let big_gin =
                (best.deadwood() == 0 && engine::all_melded(cards)).then(|| engine::best_arrangement(cards));
            Ok(Analysis::Eleven { best, big_gin })
        }
        _ => Ok(Analysis::Hand(engine::best_arrangement(cards))),
    }
}

fn write_melds(w: &mut impl Write, melds: &[Meld]) -> io::Result<()> {
    for (i, m) in melds.iter().enumerate() {
        if i > 0 {
            w.write_all(b" ")?;
        }
        write!(w, "[{m}]")?;
    }
    Ok(())
}

/// Writes the human-readable report of `analysis`, several lines:
///
/// ```text
/// deadwood       22
/// discard        QD
/// melds          [7C 7D 7H] [3S 4S 5S]
/// deadwood cards 2D AH 9S KC
/// status         cannot knock: deadwood 22 > knock limit 10
/// ```
///
/// `discard` and `status` appear for 11 cards only; `knock_limit` is the most deadwood a
/// knock may leave.
pub fn write_report(w: &mut impl Write, analysis: &Analysis, knock_limit: u32) -> io::Result<()> {
    let a = analysis.arrangement();
    writeln!(w, "deadwood       {}", a.deadwood())?;
    if let Analysis::Eleven { best, .. } = analysis {
        writeln!(w, "discard        {}", best.discard)?;
    }
    write!(w, "melds          ")?;
    if a.melds().is_empty() {
        write!(w, "none")?;
    } else {
        write_melds(w, a.melds())?;
    }
    writeln!(w)?;
    if a.deadwood_cards().is_empty() {
        writeln!(w, "deadwood cards none")?;
    } else {
        writeln!(w, "deadwood cards {}", a.deadwood_cards())?;
    }
    if let Analysis::Eleven { best, big_gin } = analysis {
        write!(w, "status         ")?;
        let dw = best.deadwood();
        if let Some(all) = big_gin {
            write!(w, "big gin: all 11 cards meld as ")?;
            write_melds(w, all.melds())?;
            writeln!(w)?;
        } else if dw == 0 {
            writeln!(w, "gin: discard {} and lay down with no deadwood", best.discard)?;
        } else if dw <= knock_limit {
            writeln!(w, "can knock: deadwood {dw} <= knock limit {knock_limit}")?;
        } else {
            writeln!(w, "cannot knock: deadwood {dw} > knock limit {knock_limit}")?;
        }
    }
    Ok(())
}

/// Writes the one-line answer for `analysis`, without the newline: the deadwood first, then
/// for 11 cards `discard <card>`, then the melds: `12 [7C 7D 7H] [3S 4S 5S]`,
/// `22 discard QD [7C 7D 7H] [3S 4S 5S]`.
pub fn write_line(w: &mut impl Write, analysis: &Analysis) -> io::Result<()> {
    let a = analysis.arrangement();
    write!(w, "{}", a.deadwood())?;
    if let Analysis::Eleven { best, .. } = analysis {
        write!(w, " discard {}", best.discard)?;
    }
    for m in a.melds() {
        write!(w, " [{m}]")?;
    }
    Ok(())
}

/// A rummy hand's report: the melds that leave the fewest points, the cards left and
/// whether the hand can go out (`full`: the cards held after a draw).
///
/// ```text
/// points left    5
/// melds          [QH KH AH]
/// cards left     2C 3C
/// status         cannot go out: 2 cards left
/// ```
pub fn write_rummy_report(
    w: &mut impl Write,
    rules: &RummyRules,
    cards: CardSet,
    full: u32,
) -> io::Result<()> {
    let a = rules.best_melds(cards);
    writeln!(w, "points left    {}", a.points)?;
    write!(w, "melds          ")?;
    if a.melds.is_empty() {
        write!(w, "none")?;
    }
    for (i, m) in a.melds.iter().enumerate() {
        write!(w, "{}[{m}]", if i > 0 { " " } else { "" })?;
    }
    writeln!(w)?;
    writeln!(
        w,
        "cards left     {}",
        if a.left.is_empty() { "none".to_string() } else { a.left.to_string() }
    )?;
    if cards.len() == full {
        write!(w, "status         ")?;
        match a.left.len() {
            0 => writeln!(w, "can go out: every card melds"),
            1 => writeln!(w, "can go out: lay the melds and discard {}", a.left),
            n => writeln!(w, "cannot go out: {n} cards left (lay-offs onto the table not counted)"),
        }?;
    }
    Ok(())
}

/// The one-line rummy answer: the points left, then the melds: `5 [QH KH AH]`.
pub fn rummy_line(rules: &RummyRules, cards: CardSet) -> String {
    let a = rules.best_melds(cards);
    let mut s = a.points.to_string();
    for m in &a.melds {
        s += &format!(" [{m}]");
    }
    s
}

/// Counts from [`run_lines`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinesSummary {
    /// Input lines read (blank ones included).
    pub lines: u64,
    /// Lines answered with `error: …`.
    pub errors: u64,
}

/// Answers one hand per input line with exactly one output line: [`write_line`]'s answer,
/// `error: <why>` for a line that is not a hand of 1 to 11 cards, or a blank line for a
/// blank line, so that output line N always answers input line N. `\n` and `\r\n` line ends
/// are accepted; a last line without a line end is answered too.
///
/// Output is not flushed per line (callers pass a buffered writer); it is flushed at the end.
/// Fails only when reading or writing fails.
pub fn run_lines(input: impl BufRead, output: impl Write) -> io::Result<LinesSummary> {
    run_lines_with(input, output, |cards| {
        let a = analyze(cards)?;
        let mut line = Vec::new();
        write_line(&mut line, &a).expect("writing to a Vec");
        Ok(String::from_utf8(line).expect("ASCII"))
    })
}

/// [`run_lines`] with another answer per hand (gin-7's, rummy's).
pub fn run_lines_with(
    mut input: impl BufRead,
    mut output: impl Write,
    answer_of: impl Fn(CardSet) -> Result<String, HandError>,
) -> io::Result<LinesSummary> {
    let mut summary = LinesSummary::default();
    let mut buf = Vec::with_capacity(128);
    loop {
        buf.clear();
        if input.read_until(b'\n', &mut buf)? == 0 {
            break;
        }
        summary.lines += 1;
        let mut line = buf.as_slice();
        if let Some(l) = line.strip_suffix(b"\n") {
            line = l;
        }
        if let Some(l) = line.strip_suffix(b"\r") {
            line = l;
        }
        let answer = std::str::from_utf8(line).map_err(|_| HandError::NotUtf8).and_then(|text| {
            if text.trim().is_empty() { Ok(None) } else { parse_hand(text).and_then(&answer_of).map(Some) }
        });
        match answer {
            Ok(Some(a)) => output.write_all(a.as_bytes())?,
            Ok(None) => {}
            Err(e) => {
                summary.errors += 1;
                write!(output, "error: {e}")?;
            }
        }
        output.write_all(b"\n")?;
    }
    output.flush()?;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::hand;

    fn line(h: &str) -> String {
        let mut out = Vec::new();
        write_line(&mut out, &analyze(hand(h)).unwrap()).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn report(h: &str) -> String {
        let mut out = Vec::new();
        write_report(&mut out, &analyze(hand(h)).unwrap(), 10).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn ten_or_fewer_cards() {
        assert_eq!(line("7C 7D 7H 3S 4S 5S 2D 9S AH"), "12 [7C 7D 7H] [3S 4S 5S]");
        assert_eq!(line("KD"), "10");
        assert_eq!(
            report("7C 7D 7H 3S 4S 5S 2D 9S AH"),
            "deadwood       12\nmelds          [7C 7D 7H] [3S 4S 5S]\ndeadwood cards 2D AH 9S\n"
        );
        assert_eq!(report("7S 8S 9S"), "deadwood       0\nmelds          [7S 8S 9S]\ndeadwood cards none\n");
        assert_eq!(report("KD 2C"), "deadwood       12\nmelds          none\ndeadwood cards 2C KD\n");
    }

    #[test]
    fn eleven_cards_statuses() {
        assert_eq!(line("7C 7D 7H 3S 4S 5S 2D 9S AH KC QD"), "22 discard QD [7C 7D 7H] [3S 4S 5S]");
        let r = report("7C 7D 7H 3S 4S 5S 2D 9S AH KC QD");
        assert!(r.starts_with("deadwood       22\ndiscard        QD\n"), "{r}");
        assert!(r.ends_with("status         cannot knock: deadwood 22 > knock limit 10\n"), "{r}");
        // Discarding KC leaves only 2H unmelded.
        let r = report("7C 7D 7H 3S 4S 5S 8D 9D TD 2H KC");
        assert!(r.contains("discard        KC\n"), "{r}");
        assert!(r.contains("status         can knock: deadwood 2 <= knock limit 10\n"), "{r}");
        let r = report("AC 2C 3C 7D 7H 7S 9H TH JH QH KD");
        assert!(r.contains("status         gin: discard KD and lay down with no deadwood\n"), "{r}");
        let r = report("AC 2C 3C 4C 5D 5H 5S 9H 9S 9D 9C");
        assert!(r.contains("deadwood       0\n"), "{r}");
        assert!(r.contains("status         big gin: all 11 cards meld as "), "{r}");
    }

    #[test]
    fn bad_hands() {
        assert_eq!(parse_hand(""), Err(HandError::Empty));
        assert_eq!(parse_hand(" , "), Err(HandError::Empty));
        assert!(matches!(parse_hand("7S 7S"), Err(HandError::Parse(_))));
        assert!(matches!(parse_hand("7S XX"), Err(HandError::Parse(_))));
        assert_eq!(parse_hand("AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC"), Err(HandError::TooMany(12, 11)));
        assert_eq!(parse_hand("10d, qh A♠").map(|h| h.to_string()), Ok("TD QH AS".to_string()));
    }

    #[test]
    fn lines_keep_their_places() {
        let input: &[u8] = b"7C 7D 7H 3S 4S 5S 2D 9S AH\r\n\n7S 7S\n   \n\xff\nKD";
        let mut out = Vec::new();
        let s = run_lines(input, &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = out.split('\n').collect();
        assert_eq!(lines.len(), 7, "{out:?}"); // 6 answers, each ending in \n
        assert_eq!(lines[0], "12 [7C 7D 7H] [3S 4S 5S]");
        assert_eq!(lines[1], "");
        assert_eq!(lines[2], "error: card 7S appears twice");
        assert_eq!(lines[3], "");
        assert_eq!(lines[4], "error: the line is not valid UTF-8");
        assert_eq!(lines[5], "10");
        assert_eq!(s, LinesSummary { lines: 6, errors: 2 });
    }
}
