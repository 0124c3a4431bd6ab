//! Screen snapshots: the main screens rendered into ratatui's `TestBackend` at 80×24 and
//! 120×40, compared with the committed snapshots in `tests/snapshots/` (insta's format, one
//! `<screen>_<w>x<h>.snap` each). A difference fails the test and shows the diff; to accept
//! a change on purpose, review it with `cargo insta review` (or run with
//! `INSTA_UPDATE=always` and review the diff of the files) before committing. CI sets
//! `CI=true`, so insta never writes there: a difference only fails.
//!
//! insta compares text without its trailing blank lines (a screen's blank bottom rows): the
//! screen's height is the backend's, so every other row is still compared.

use crossterm::event::{KeyCode, KeyEvent};
use gin_client_cli::app::{App, Overlay};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use crate::fixtures::{self, NOW};

fn screen(app: &App, w: u16, h: u16) -> String {
    drawn(w, h, |f| gin_client_cli::render::draw(f, app, NOW))
}

/// What `draw` puts on a `w`×`h` screen, as text (trailing blanks trimmed).
fn drawn(w: u16, h: u16, draw: impl FnOnce(&mut ratatui::Frame)) -> String {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(draw).unwrap();
    let buf = term.backend().buffer().clone();
    let mut out = String::new();
    for y in 0..h {
        let mut line = String::new();
        for x in 0..w {
            line.push_str(buf[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Compares the screen with `tests/snapshots/<name>_<w>x<h>.snap`.
fn check(name: &str, app: &App, w: u16, h: u16) {
    snapshot(&format!("{name}_{w}x{h}"), screen(app, w, h));
}

/// Compares `screen` with `tests/snapshots/<name>.snap`.
fn snapshot(name: &str, screen: String) {
    insta::with_settings!({
        snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshots"),
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_snapshot!(name.to_string(), screen);
    });
}

fn both(name: &str, app: &App) {
    check(name, app, 80, 24);
    check(name, app, 120, 40);
}

fn key(app: &mut App, c: KeyCode) {
    app.handle_key(KeyEvent::from(c));
}

#[test]
fn your_turn() {
    let mut app = fixtures::app(&fixtures::your_turn(), false);
    key(&mut app, KeyCode::Char('k')); // select KS, the 11th card
    both("your_turn", &app);
}

#[test]
fn your_turn_without_colours_uses_letters() {
    let app = fixtures::app(&fixtures::your_turn(), true);
    check("your_turn_no_color", &app, 80, 24);
}

#[test]
fn your_turn_sorted_by_rank() {
    let mut app = fixtures::app(&fixtures::your_turn(), false);
    key(&mut app, KeyCode::Char('o'));
    check("your_turn_by_rank", &app, 80, 24);
}

#[test]
fn knock_confirmation() {
    let mut app = fixtures::app(&fixtures::your_turn(), false);
    key(&mut app, KeyCode::Char('k'));
    key(&mut app, KeyCode::Char('K'));
    assert!(matches!(app.overlay, Some(Overlay::ConfirmKnock(_))));
    check("knock_confirm", &app, 80, 24);
}

/// A knock confirmed is on its way: the prompt says so instead of asking again (a second
/// key would only meet "waiting for the server"); the next state from the server replaces it.
#[test]
fn an_action_on_its_way_is_not_asked_for_again() {
    let mut app = fixtures::app(&fixtures::your_turn(), false);
    assert!(screen(&app, 80, 24).contains("Your turn: pick a card"));
    key(&mut app, KeyCode::Char('k'));
    key(&mut app, KeyCode::Char('K'));
    key(&mut app, KeyCode::Char('y'));
    assert!(app.pending, "the knock was sent");
    let text = screen(&app, 80, 24);
    assert!(text.contains("Sent: waiting for the server"), "{text}");
    assert!(!text.contains("Your turn"), "{text}");
}

#[test]
fn upcard_offer() {
    let app = fixtures::app(&fixtures::upcard_offer(), false);
    both("upcard_offer", &app);
}

#[test]
fn hand_over() {
    let s = fixtures::your_turn();
    let mut app = fixtures::app(&s, false);
    app.apply(&fixtures::hand_ended(s.seq + 1)).unwrap();
    assert_eq!(app.overlay, Some(Overlay::HandOver(2)));
    both("hand_over", &app);
}

#[test]
fn game_over() {
    let s = fixtures::your_turn();
    let mut app = fixtures::app(&s, false);
    app.apply(&fixtures::hand_ended(s.seq + 1)).unwrap();
    app.apply(&fixtures::game_over(s.seq + 2)).unwrap();
    key(&mut app, KeyCode::Char(' ')); // past the hand's result
    assert_eq!(app.overlay, None);
    both("game_over", &app);
}

#[test]
fn help() {
    let mut app = fixtures::app(&fixtures::your_turn(), false);
    key(&mut app, KeyCode::Char('?'));
    both("help", &app);
}

#[test]
fn quit_confirmation() {
    let mut app = fixtures::app(&fixtures::upcard_offer(), false);
    key(&mut app, KeyCode::Char('q'));
    check("quit_confirm", &app, 80, 24);
}

#[test]
fn tiny_and_odd_terminals_do_not_panic() {
    let mut app = fixtures::app(&fixtures::your_turn(), false);
    for (w, h) in [(1, 1), (20, 5), (40, 12), (79, 23), (200, 60)] {
        screen(&app, w, h);
    }
    key(&mut app, KeyCode::Char('?'));
    for (w, h) in [(1, 1), (20, 5), (40, 12)] {
        screen(&app, w, h);
    }
}
