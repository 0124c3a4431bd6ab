//! Text people set and other people see (player and entrant names, rule set names,
//! tournament names): what it may hold, for the server, and how a client shows any text a
//! server sent, for every Rust client. One definition, so the two cannot drift apart.
//!
//! A character is *refused* when its Unicode general category is one of
//!
//! - `Cc`, controls: C0 (ESC, BEL, newline, tab…), DEL and C1 (U+0080–U+009F, CSI U+009B…),
//!   which drive a terminal;
//! - `Cf`, format characters: bidi embeddings, overrides and isolates (U+202A–U+202E,
//!   U+2066–U+2069), LRM, RLM and ALM, zero-width space, non-joiner and joiner
//!   (U+200B–U+200D), word joiner and invisible operators (U+2060–U+2064), the BOM (U+FEFF),
//!   soft hyphen, interlinear annotations (U+FFF9–U+FFFB), tags (U+E0001–U+E007F)…, which
//!   reorder or hide what a reader sees;
//! - `Zl` and `Zp`, the line and paragraph separators (U+2028, U+2029);
//! - `Co` private use, `Cs` surrogates (no Rust `char` is one) and `Cn` unassigned in the
//!   table's Unicode version ([`UNICODE_VERSION`]), whose look nobody can know.
//!
//! Letters, marks, digits, punctuation, symbols and spaces of every script pass: "Zoë",
//! "李雷", "Łukasz", "O'Brien-Smith".
//!
//! The server refuses such text where a caller sets it ([`check`]); a client passes every
//! text that came from a server through [`printable`] (or [`printable_lines`]) before
//! showing it, so even a server that let some through (an older one, or a hostile one)
//! cannot drive the terminal.
//!
//! Where each Rust client does it: `gin` where the server's text enters its model
//! (`table::shown`, `list`, `net`'s error texts), `gin-bot` in the SDK's `Error` and
//! `Outcome::line` and in what its commands print; ids, tokens and the final error are
//! escaped at the print. Cards are parsed, never shown as the server wrote them. The
//! terminal library is no safety net: ratatui 0.29 drops a grapheme holding a
//! `char::is_control` only in `Buffer::set_stringn`, and zero-width ones only in
//! `Paragraph`; ESC, BEL, C1 controls and zero-width joiners reached its buffer through
//! `gin`'s header until `table::shown`. Text already stored is not checked again (a
//! tournament's spec and entrants load and play as they were).
//!
//! ```
//! use gin_proto::text;
//! assert!(text::check("name", "Zoë", text::NAME_MAX).is_ok());
//! let e = text::check("name", "\u{202e}evil", text::NAME_MAX).unwrap_err();
//! assert!(e.to_string().starts_with("name: "));
//! assert_eq!(text::printable("\x1b]0;pwned\x07"), "\\u{1b}]0;pwned\\u{7}");
//! ```

use std::borrow::Cow;
use std::fmt;

use unicode_properties::{GeneralCategory as G, UnicodeGeneralCategory};

/// The Unicode version of the category table (from `unicode-properties`).
pub const UNICODE_VERSION: (u64, u64, u64) = unicode_properties::UNICODE_VERSION;

/// The most characters in a player's or an entrant's name.
pub const NAME_MAX: usize = 40;
/// The most characters in a rule set's name (the engine also caps it at 64 bytes).
pub const RULES_NAME_MAX: usize = 64;
/// The most characters in a tournament's name.
pub const TITLE_MAX: usize = 80;

/// What kind of refused character `c` is, or `None` when it may appear in text.
fn refused_kind(c: char) -> Option<&'static str> {
    // ASCII first: everything but C0 and DEL is printable, and it is nearly all text.
    if c.is_ascii() {
        return c.is_ascii_control().then_some("a control character");
    }
    match c.general_category() {
        G::Control => Some("a control character"),
        G::Format => Some("a format character (bidi control, zero-width or other invisible)"),
        G::LineSeparator | G::ParagraphSeparator => Some("a line or paragraph separator"),
        G::PrivateUse => Some("a private-use character"),
        G::Surrogate => Some("a surrogate"),
        G::Unassigned => Some("unassigned in Unicode"),
        _ => None,
    }
}

/// Whether `c` may not appear in text people set (see the [module docs](self)).
pub fn refused(c: char) -> bool {
    refused_kind(c).is_some()
}

/// Text a caller set that may not be stored: the field, and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextError {
    /// The request field, as a dotted path (`name`, `rules.custom.name`, `spec.name`).
    pub field: String,
    /// What is wrong, with the rule.
    pub message: String,
}

impl fmt::Display for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for TextError {}

impl From<TextError> for tonic::Status {
    fn from(e: TextError) -> tonic::Status {
        tonic::Status::invalid_argument(e.to_string())
    }
}

/// Checks `text`, set by a caller in `field`: at most `max_chars` characters, none of them
/// [refused]. The error names the field, the first refused character (as `U+XXXX`,
/// never the character itself) and the rule.
///
/// ```
/// use gin_proto::text::{check, NAME_MAX};
/// assert!(check("name", "Łukasz", NAME_MAX).is_ok());
/// let e = check("name", "a\u{200d}b", NAME_MAX).unwrap_err();
/// assert_eq!(e.field, "name");
/// assert!(e.message.contains("U+200D"), "{e}");
/// ```
pub fn check(field: &str, text: &str, max_chars: usize) -> Result<(), TextError> {
    let bad = |message: String| TextError { field: field.to_string(), message };
    for (i, c) in text.chars().enumerate() {
        if let Some(kind) = refused_kind(c) {
            return Err(bad(format!(
                "character {} is U+{:04X}, {kind}; text may not hold control, format (bidi, \
                 zero-width), line or paragraph separator, private-use or unassigned characters",
                i + 1,
                c as u32
            )));
        }
    }
    let n = text.chars().count();
    if n > max_chars {
        return Err(bad(format!("at most {max_chars} characters ({n} given)")));
    }
    Ok(())
}

/// `text` (from a server) safe to show on a terminal: every [refused] character
/// replaced by its escape, `\u{1b}`, and everything else as it is. Borrowed when nothing
/// needed replacing (all text a server checked with [`check`]).
///
/// ```
/// use gin_proto::text::printable;
/// assert_eq!(printable("Zoë"), "Zoë");
/// assert_eq!(printable("\u{202e}gnp.exe"), "\\u{202e}gnp.exe");
/// ```
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(refused) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if refused(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// [`printable`] for text of several lines (an error with its causes, a results document):
/// its line breaks (`\n`) kept, every other refused character escaped.
///
/// ```
/// use gin_proto::text::printable_lines;
/// assert_eq!(printable_lines("a\x1b[2J\nb\r\n"), "a\\u{1b}[2J\nb\\u{d}\n");
/// ```
pub fn printable_lines(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c != '\n' && refused(c)) {
        return Cow::Borrowed(text);
    }
    let lines: Vec<Cow<'_, str>> = text.split('\n').map(printable).collect();
    Cow::Owned(lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One character of each refused kind, with its category.
    const REFUSED: &[(char, &str)] = &[
        ('\0', "Cc NUL"),
        ('\t', "Cc tab"),
        ('\n', "Cc newline"),
        ('\r', "Cc carriage return"),
        ('\x07', "Cc BEL"),
        ('\x1b', "Cc ESC"),
        ('\x7f', "Cc DEL"),
        ('\u{80}', "Cc C1 first"),
        ('\u{85}', "Cc NEL"),
        ('\u{9b}', "Cc CSI"),
        ('\u{9d}', "Cc OSC"),
        ('\u{9f}', "Cc C1 last"),
        ('\u{ad}', "Cf soft hyphen"),
        ('\u{61c}', "Cf arabic letter mark"),
        ('\u{180e}', "Cf mongolian vowel separator"),
        ('\u{200b}', "Cf zero-width space"),
        ('\u{200c}', "Cf zero-width non-joiner"),
        ('\u{200d}', "Cf zero-width joiner"),
        ('\u{200e}', "Cf LRM"),
        ('\u{200f}', "Cf RLM"),
        ('\u{202a}', "Cf LRE"),
        ('\u{202b}', "Cf RLE"),
        ('\u{202c}', "Cf PDF"),
        ('\u{202d}', "Cf LRO"),
        ('\u{202e}', "Cf RLO"),
        ('\u{2060}', "Cf word joiner"),
        ('\u{2061}', "Cf function application"),
        ('\u{2064}', "Cf invisible plus"),
        ('\u{2066}', "Cf LRI"),
        ('\u{2067}', "Cf RLI"),
        ('\u{2068}', "Cf FSI"),
        ('\u{2069}', "Cf PDI"),
        ('\u{206a}', "Cf inhibit symmetric swapping"),
        ('\u{feff}', "Cf BOM"),
        ('\u{fff9}', "Cf interlinear annotation anchor"),
        ('\u{fffb}', "Cf interlinear annotation terminator"),
        ('\u{e0001}', "Cf language tag"),
        ('\u{e0020}', "Cf tag space"),
        ('\u{e007f}', "Cf cancel tag"),
        ('\u{2028}', "Zl line separator"),
        ('\u{2029}', "Zp paragraph separator"),
        ('\u{e000}', "Co private use"),
        ('\u{f8ff}', "Co private use last BMP"),
        ('\u{f0000}', "Co plane 15"),
        ('\u{10fffd}', "Co plane 16"),
        ('\u{378}', "Cn unassigned"),
        ('\u{fffe}', "Cn noncharacter"),
        ('\u{ffff}', "Cn noncharacter"),
        ('\u{10ffff}', "Cn last code point"),
    ];

    /// Text people write, in many scripts, with marks, symbols and spaces.
    const ACCEPTED: &[&str] = &[
        "alice",
        "Zoë",
        "Łukasz",
        "李雷",
        "Ђорђе",
        "Μαρία",
        "محمد",
        "שרה",
        "नमस्ते",
        "ﾃｽﾄ",
        "O'Brien-Smith (2nd)",
        "e\u{301}",             // combining acute accent (Mn)
        "田中\u{3000}太郎",     // ideographic space (Zs)
        "nbsp\u{a0}ok",         // no-break space (Zs)
        "🂡 gin ♠♥",             // symbols (So)
        "❤\u{fe0f}",            // variation selector (Mn)
        "~!@#$%^&*()_+{}|:<>?", // ASCII punctuation
    ];

    #[test]
    fn every_refused_kind_is_refused_by_check_and_escaped_by_printable() {
        for &(c, what) in REFUSED {
            assert!(refused(c), "{what} (U+{:04X})", c as u32);
            let text = format!("ab{c}cd");
            let e = check("name", &text, NAME_MAX).unwrap_err();
            assert_eq!(e.field, "name", "{what}");
            assert!(e.message.contains(&format!("U+{:04X}", c as u32)), "{what}: {e}");
            assert!(e.message.starts_with("character 3 is"), "{what}: {e}");
            assert!(!e.to_string().contains(c), "{what}: the error holds the character itself");
            let shown = printable(&text);
            assert_eq!(shown, format!("ab\\u{{{:x}}}cd", c as u32), "{what}");
            assert!(!shown.chars().any(refused), "{what}");
        }
    }

    #[test]
    fn all_c0_c1_and_bidi_controls_are_refused() {
        for c in (0u32..0x20).chain(0x7f..0xa0).chain(0x202a..0x202f).chain(0x2066..0x206a) {
            let c = char::from_u32(c).unwrap();
            assert!(refused(c), "U+{:04X}", c as u32);
        }
        for c in (0xe0001u32..=0xe0001).chain(0xe0020..=0xe007f).chain(0x200b..=0x200f).chain(0x2060..=0x2064)
        {
            let c = char::from_u32(c).unwrap();
            assert!(refused(c), "U+{:04X}", c as u32);
        }
    }

    #[test]
    fn text_of_every_script_passes_unchanged() {
        for t in ACCEPTED {
            assert_eq!(check("name", t, NAME_MAX), Ok(()), "{t}");
            assert!(matches!(printable(t), Cow::Borrowed(s) if s == *t), "{t}");
        }
        for c in (0x20u8..0x7f).map(char::from) {
            assert!(!refused(c), "{c:?}");
        }
    }

    #[test]
    fn the_issue_s_rule_set_name_is_refused_and_shown_inert() {
        let name = "\x1b]0;pwned\x07\x1b[2J";
        let e = check("rules.custom.name", name, RULES_NAME_MAX).unwrap_err();
        assert!(e.to_string().starts_with("rules.custom.name: character 1 is U+001B, a control"), "{e}");
        assert_eq!(printable(name), "\\u{1b}]0;pwned\\u{7}\\u{1b}[2J");
    }

    #[test]
    fn length_is_counted_in_characters_up_to_the_limit() {
        for max in [NAME_MAX, RULES_NAME_MAX, TITLE_MAX] {
            // Multi-byte characters count once.
            let at = "ł".repeat(max);
            assert_eq!(check("f", &at, max), Ok(()));
            let over = "ł".repeat(max + 1);
            let e = check("f", &over, max).unwrap_err();
            assert_eq!(e.to_string(), format!("f: at most {max} characters ({} given)", max + 1));
            assert_eq!(check("f", &"李".repeat(max), max), Ok(()));
        }
        assert_eq!(check("f", "", NAME_MAX), Ok(()));
        assert_eq!(check("f", "abc", 3), Ok(()));
        assert!(check("f", "abcd", 3).is_err());
        assert!(check("f", "a", 0).is_err());
    }

    #[test]
    fn a_refused_character_is_reported_before_the_length() {
        let t = format!("{}\u{202e}", "a".repeat(NAME_MAX + 5));
        let e = check("name", &t, NAME_MAX).unwrap_err();
        assert!(e.message.contains("U+202E"), "{e}");
    }

    #[test]
    fn the_error_is_invalid_argument_on_the_wire() {
        let s: tonic::Status = check("spec.name", "x\u{1b}", TITLE_MAX).unwrap_err().into();
        assert_eq!(s.code(), tonic::Code::InvalidArgument);
        assert!(s.message().starts_with("spec.name: character 2 is U+001B"), "{}", s.message());
    }

    #[test]
    fn printable_lines_keeps_only_newlines() {
        assert!(matches!(printable_lines("a\nb\n"), Cow::Borrowed("a\nb\n")));
        let shown = printable_lines("Error: x\u{202e}\n\nCaused by:\n    \x1b[2J\t\u{2028}");
        assert_eq!(shown, "Error: x\\u{202e}\n\nCaused by:\n    \\u{1b}[2J\\u{9}\\u{2028}");
        assert!(!shown.chars().any(|c| c != '\n' && refused(c)));
    }

    #[test]
    fn printable_output_is_never_refused_and_is_stable() {
        let hostile = "\u{9b}31m\u{200b}\u{2028}\u{e000}\u{378}ok\u{feff}";
        let once = printable(hostile).into_owned();
        assert!(!once.chars().any(refused), "{once}");
        assert_eq!(printable(&once), once.as_str(), "escapes are themselves printable");
        assert_eq!(once, "\\u{9b}31m\\u{200b}\\u{2028}\\u{e000}\\u{378}ok\\u{feff}");
    }
}
