//! A hostile (or older) server's text never reaches the terminal raw: names, the rules' name
//! and the game id carrying escape sequences, bidi overrides and zero-width characters are
//! shown escaped by the full screen, plain mode, `gin list`, `gin leaderboard`, `gin profile`
//! and the error messages.

use gin_client_cli::net::{self, NetEvent};
use gin_client_cli::plain::{Flow, Plain};
use gin_client_cli::table::Table;
use gin_proto::text::refused;
use gin_proto::v1 as pb;
use gin_proto::v1::game_event::Kind as K;
use gin_sdk::Error;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use crate::fixtures::{self, NOW};

/// Sets the terminal's title, rings and clears the screen (the rule set name).
const OSC_TITLE: &str = "\x1b]0;pwned\x07\x1b[2J";
/// Turns the rest of the line around: "alice" then reads "ecila".
const BIDI: &str = "\u{202e}ecila\u{202c}";
/// An 8-bit CSI (U+009B) with a zero-width joiner and a BOM.
const C1_AND_INVISIBLE: &str = "\u{9b}31mbob\u{200d}\u{feff}";

fn hostile_snapshot() -> pb::GameSnapshot {
    let mut s = fixtures::your_turn();
    s.game_id = format!("7f3a{OSC_TITLE}");
    s.rules.as_mut().unwrap().name = OSC_TITLE.into();
    s.seats[0].name = BIDI.into();
    s.seats[1].name = C1_AND_INVISIBLE.into();
    // A card the server should have written as "KS": neither screen shows it as sent.
    let turn = s.turn.as_mut().unwrap();
    turn.legal_actions.push(pb::LegalAction {
        kind: pb::ActionKind::Knock as i32,
        card: "\x1b[2JKS".into(),
        deadwood: 0,
        ..Default::default()
    });
    s
}

#[track_caller]
fn assert_clean(what: &str, text: &str) {
    let bad: Vec<String> =
        text.chars().filter(|&c| refused(c)).map(|c| format!("U+{:04X}", c as u32)).collect();
    assert!(bad.is_empty(), "{what}: raw {bad:?} in {text:?}");
}

/// The screen's cells, row by row (each cell's symbol as ratatui would write it).
fn screen(app: &gin_client_cli::app::App, w: u16, h: u16) -> String {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| gin_client_cli::render::draw(f, app, NOW)).unwrap();
    let buf = term.backend().buffer().clone();
    let rows: Vec<String> = (0..h).map(|y| (0..w).map(|x| buf[(x, y)].symbol()).collect()).collect();
    for r in &rows {
        assert_clean(&format!("a row of the screen at {w}x{h}"), r);
    }
    rows.join("|")
}

#[test]
fn the_table_keeps_the_server_s_text_escaped() {
    let s = hostile_snapshot();
    let mut t = Table::from_snapshot(&s).unwrap();
    assert_eq!(t.names[0], "\\u{202e}ecila\\u{202c}");
    assert_eq!(t.names[1], "\\u{9b}31mbob\\u{200d}\\u{feff}");
    assert_eq!(t.rules_name, "\\u{1b}]0;pwned\\u{7}\\u{1b}[2J");
    assert_eq!(t.game_id, "7f3a\\u{1b}]0;pwned\\u{7}\\u{1b}[2J");
    // A seat taken later, by a name with a line separator and an isolate.
    let joined = pb::PlayerJoined {
        seat: 1,
        name: "mallory\u{2028}\u{2067}x".into(),
        bot: false,
        entrant: false,
        ..Default::default()
    };
    t.apply(&fixtures::event(s.seq + 1, K::PlayerJoined(joined))).unwrap();
    assert_eq!(t.names[1], "mallory\\u{2028}\\u{2067}x");
    for l in &t.log {
        assert_clean("log", l);
    }
    assert_clean("game over line", &gin_client_cli::table::game_line(&t, &pb::GameResult::default()));
}

#[test]
fn the_full_screen_shows_no_raw_control_character() {
    let s = hostile_snapshot();
    let mut app = fixtures::app(&s, false);
    for (w, h) in [(80, 24), (120, 40)] {
        let text = screen(&app, w, h);
        assert!(text.contains("\\u{202e}ecila"), "the name is shown, escaped:\n{text}");
    }
    // The status line with a refusal, the hand's result window, then the game over.
    app.refused(net::refusal_text(&tonic::Status::failed_precondition(format!("no {OSC_TITLE}{BIDI}"))));
    app.apply(&fixtures::hand_ended(s.seq + 1)).unwrap();
    for (w, h) in [(80, 24), (120, 40)] {
        assert!(screen(&app, w, h).contains("Last hand"), "the hand's result is shown");
    }
    app.apply(&fixtures::game_over(s.seq + 2)).unwrap();
    for (w, h) in [(80, 24), (120, 40)] {
        screen(&app, w, h);
    }
}

#[test]
fn plain_mode_prints_no_raw_control_character() {
    let s = hostile_snapshot();
    let mut p = Plain::new();
    let mut out = Vec::new();
    let (lines, flow) = p.on_net(NetEvent::Snapshot(Box::new(s.clone())));
    assert_eq!(flow, Flow::Continue);
    assert_eq!(lines[0], "game 7f3a\\u{1b}]0;pwned\\u{7}\\u{1b}[2J: \\u{1b}]0;pwned\\u{7}\\u{1b}[2J to 100");
    assert!(lines.last().unwrap().ends_with("you can knock with AH, KS"), "{lines:?}");
    out.extend(lines);
    out.extend(p.on_net(NetEvent::Refused(net::refusal_text(&tonic::Status::invalid_argument(BIDI)))).0);
    out.extend(p.on_line("hand").0);
    out.extend(p.on_net(NetEvent::Event(Box::new(fixtures::hand_ended(s.seq + 1)))).0);
    let (lines, flow) = p.on_net(NetEvent::Event(Box::new(fixtures::game_over(s.seq + 2))));
    assert_eq!(flow, Flow::Exit(0));
    out.extend(lines);
    let bob = "\\u{9b}31mbob\\u{200d}\\u{feff}";
    assert!(out.contains(&format!("Score: \\u{{202e}}ecila\\u{{202c}} 53 - 25 {bob}")), "{out:#?}");
    for l in &out {
        assert_clean("plain", l);
    }
}

#[test]
fn gin_list_prints_no_raw_control_character() {
    let game = |id: &str, rules: &str, names: [&str; 2]| pb::OpenGame {
        game_id: id.into(),
        rules: Some(pb::RuleSet { name: rules.into(), target: 100, ..Default::default() }),
        clock: Some(pb::TurnClock { turn_millis: 30_000, policy: 0 }),
        seats: vec![
            pb::SeatInfo {
                seat: 0,
                name: names[0].into(),
                taken: true,
                bot: false,
                team: None,
                entrant: false,
                ..Default::default()
            },
            pb::SeatInfo {
                seat: 1,
                name: names[1].into(),
                taken: !names[1].is_empty(),
                bot: false,
                team: None,
                entrant: false,
                ..Default::default()
            },
        ],
        created_unix_ms: NOW,
        fixed_deals: false,
        ..Default::default()
    };
    let lines = gin_client_cli::list::lines(&[
        game("g1", OSC_TITLE, [BIDI, ""]),
        game("g2\u{2066}", "standard", [C1_AND_INVISIBLE, "Zoë"]),
        game("g3", "Règles de 李雷", ["Łukasz", ""]),
    ]);
    assert_eq!(
        lines,
        [
            "g1  \\u{1b}]0;pwned\\u{7}\\u{1b}[2J to 100, 30 s a turn  waiting: \\u{202e}ecila\\u{202c}",
            "g2\\u{2066}  standard to 100, 30 s a turn  waiting: \\u{9b}31mbob\\u{200d}\\u{feff}, Zoë",
            "g3  Règles de 李雷 to 100, 30 s a turn  waiting: Łukasz",
        ]
    );
    assert_eq!(gin_client_cli::list::lines(&[]), ["no open games (start one: gin play --create)"]);
}

#[test]
fn the_server_s_error_messages_are_escaped() {
    let status = tonic::Status::not_found(format!("no game {OSC_TITLE} {BIDI} {C1_AND_INVISIBLE}"));
    let t = net::refusal_text(&status);
    assert_clean("refusal", &t);
    assert!(t.starts_with("not found: no game \\u{1b}]0;pwned"), "{t}");
    let rpc = Error::Rpc { what: "JoinGame", status: status.clone() };
    assert_clean("explain rpc", &net::explain(&rpc));
    assert_clean("sdk error", &rpc.to_string());
    let protocol = Error::Protocol(format!("odd {BIDI}"));
    assert_clean("explain protocol", &net::explain(&protocol));
    for code in [tonic::Code::Unknown, tonic::Code::Internal, tonic::Code::Unavailable, tonic::Code::Aborted]
    {
        assert_clean("refusal", &net::refusal_text(&tonic::Status::new(code, OSC_TITLE)));
    }
}

#[test]
fn gin_leaderboard_and_gin_profile_print_no_raw_control_character() {
    use gin_client_cli::ratings;
    let board = pb::GetLeaderboardResponse {
        lines: vec![pb::LeaderboardLine {
            rank: 1,
            name: OSC_TITLE.into(),
            kind: pb::AccountKind::Bot as i32,
            rating: 1600.4,
            deviation: 80.6,
            games: 12,
        }],
        total: 1,
    };
    let lines = ratings::leaderboard_lines(BIDI, &board);
    let cols: Vec<&str> = lines[2].split("  ").map(str::trim).filter(|c| !c.is_empty()).collect();
    assert_eq!(cols, ["1", "\\u{1b}]0;pwned\\u{7}\\u{1b}[2J (bot)", "1600", "±81", "12"], "{lines:?}");
    lines.iter().for_each(|l| assert_clean("gin leaderboard", l));
    let account = pb::GetAccountResponse {
        account: Some(pb::Account {
            name: BIDI.into(),
            kind: pb::AccountKind::Person as i32,
            ..Default::default()
        }),
        games_finished: 3,
    };
    let mine = pb::GetPlayerRatingsResponse {
        name: BIDI.into(),
        ratings: vec![pb::PoolRating {
            pool: C1_AND_INVISIBLE.into(),
            rating: 1499.6,
            deviation: 200.0,
            games: 3,
            provisional: true,
            rank: None,
        }],
    };
    let history = pb::GetRatingHistoryResponse {
        changes: vec![pb::RatingChange {
            game_id: OSC_TITLE.into(),
            place: 2,
            rating_before: 1510.0,
            rating_after: 1499.6,
            opponents: vec![C1_AND_INVISIBLE.into(), BIDI.into()],
            ..Default::default()
        }],
        next_page: String::new(),
    };
    let lines = ratings::profile_lines(&account, &mine, &[(C1_AND_INVISIBLE.into(), history)]);
    let text = lines.join("\n");
    let row = text.lines().find(|l| l.contains("provisional")).expect("the pool's line");
    let cols: Vec<&str> = row.split("  ").map(str::trim).filter(|c| !c.is_empty()).collect();
    assert_eq!(cols[1..], ["1500", "±200", "3", "provisional"], "{text}");
    assert!(text.contains("1510 → 1500"), "{text}");
    lines.iter().for_each(|l| assert_clean("gin profile", l));
}
