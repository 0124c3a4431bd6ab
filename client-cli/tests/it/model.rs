//! The pure parts of `gin play`: the table folded from events, the keys of the full
//! screen, and plain mode's lines and commands.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use engine::{Action, card, hand};
use gin_client_cli::app::{App, Command, Overlay, Sort};
use gin_client_cli::net::NetEvent;
use gin_client_cli::plain::{Flow, Plain};
use gin_client_cli::table::Table;
use gin_proto::v1 as pb;
use gin_proto::v1::game_event::Kind as K;

use crate::fixtures;

fn press(app: &mut App, c: KeyCode) -> Option<Command> {
    app.handle_key(KeyEvent::from(c))
}

fn ch(app: &mut App, c: char) -> Option<Command> {
    press(app, KeyCode::Char(c))
}

fn status(app: &App) -> String {
    app.status.as_ref().map(|s| s.text.clone()).unwrap_or_default()
}

// ---------------------------------------------------------------- table

#[test]
fn table_folds_draws_and_discards_and_tracks_known_cards() {
    let s = fixtures::upcard_offer();
    let mut t = Table::from_snapshot(&s).unwrap();
    assert!(t.my_turn());
    assert_eq!(t.top(), Some(card("KH")));
    let evs = [
        K::UpcardPassed(pb::UpcardPassed { seat: 0 }),
        K::TurnStarted(pb::TurnStarted {
            seat: 1,
            phase: pb::Phase::UpcardOffer as i32,
            ..Default::default()
        }),
        K::CardDrawn(pb::CardDrawn {
            seat: 1,
            source: pb::DrawSource::Pile as i32,
            card: "KH".into(),
            stock_size: 31,
        }),
        K::CardDiscarded(pb::CardDiscarded { seat: 1, card: "2D".into() }),
        K::TurnStarted(pb::TurnStarted { seat: 0, phase: pb::Phase::Draw as i32, ..Default::default() }),
        K::CardDrawn(pb::CardDrawn {
            seat: 0,
            source: pb::DrawSource::Stock as i32,
            card: "8D".into(),
            stock_size: 30,
        }),
    ];
    for (i, k) in evs.into_iter().enumerate() {
        t.apply(&fixtures::event(s.seq + 1 + i as u64, k)).unwrap();
    }
    assert_eq!(t.known[1], hand("KH"), "the bot holds the upcard it took");
    assert_eq!(t.pile, vec![card("2D")]);
    assert_eq!(t.stock, 30);
    assert!(t.hand.contains(card("8D")) && t.hand.len() == 11);
    assert_eq!(t.drawn, Some(card("8D")));
    assert!(!t.my_turn(), "no legal actions came with seat 0's turn event: not playable");
    assert_eq!(
        t.log[t.log.len() - 4..],
        [
            "you passed the upcard KH",
            "simple took KH from the pile",
            "simple discarded 2D",
            "you drew 8D from the stock"
        ]
    );
    // A discard of the pile card makes it public again.
    t.apply(&fixtures::event(s.seq + 7, K::CardDiscarded(pb::CardDiscarded { seat: 1, card: "KH".into() })))
        .unwrap();
    assert!(t.known[1].is_empty());
}

#[test]
fn table_refuses_a_gap_and_ignores_a_duplicate() {
    let s = fixtures::your_turn();
    let mut t = Table::from_snapshot(&s).unwrap();
    let before = t.last_seq;
    let e = t.apply(&fixtures::hand_ended(s.seq + 2)).unwrap_err();
    assert!(e.contains("gap"), "{e}");
    assert_eq!(t.last_seq, before);
    t.apply(&fixtures::hand_ended(s.seq)).unwrap(); // already seen: ignored
    assert!(t.hands.len() == 2 && t.last_seq == before);
    // A discard of a card the viewer does not hold is refused, and changes nothing.
    let bad = fixtures::event(s.seq + 1, K::CardDiscarded(pb::CardDiscarded { seat: 0, card: "QD".into() }));
    assert!(t.apply(&bad).is_err());
    assert_eq!(t.hand.len(), 11);
}

#[test]
fn arrangement_is_live_with_the_best_discard_for_eleven_cards() {
    let t = Table::from_snapshot(&fixtures::your_turn()).unwrap();
    let (arr, best) = t.arrangement();
    assert_eq!(best, Some(card("KS")));
    assert_eq!(arr.deadwood(), 1);
    assert_eq!(arr.melds().len(), 3);
    assert_eq!(t.knock_deadwood(card("KS")), Some(1));
    assert_eq!(t.knock_deadwood(card("2C")), None);
}

// ---------------------------------------------------------------- keys

#[test]
fn labels_select_cards_and_enter_discards_the_selected_one() {
    let mut app = fixtures::app(&fixtures::your_turn(), false);
    // By suit: 2C 3C 4C 5D 7D 8D 9D AH 5H 5S KS.
    assert_eq!(ch(&mut app, 'h'), None);
    assert_eq!(app.selected_card(), Some(card("AH")));
    assert_eq!(press(&mut app, KeyCode::Enter), Some(Command::Act(Action::Discard { card: card("AH") })));
    // Until the server answers, a second action is held back (no double discard).
    assert_eq!(ch(&mut app, 'x'), None);
    assert_eq!(status(&app), "waiting for the server…");
    app.refused("refused: something");
    assert!(app.status.as_ref().unwrap().error);
    assert_eq!(press(&mut app, KeyCode::Right), None);
    assert_eq!(app.selected_card(), Some(card("5H")));
    assert_eq!(ch(&mut app, 'x'), Some(Command::Act(Action::Discard { card: card("5H") })));
    press(&mut app, KeyCode::Left);
    press(&mut app, KeyCode::Left);
    assert_eq!(app.selected_card(), Some(card("9D")));
}

#[test]
fn illegal_keys_say_why_and_send_nothing() {
    let mut app = fixtures::app(&fixtures::your_turn(), true);
    assert_eq!(ch(&mut app, 's'), None);
    assert_eq!(status(&app), "you have drawn already: discard or knock");
    assert!(app.status.as_ref().unwrap().error);
    assert_eq!(ch(&mut app, 'p'), None);
    assert!(status(&app).contains("only when the upcard is offered"));
    // Knocking with 2C breaks the club run: 3C 4C AH KS = 18 > 10.
    ch(&mut app, 'a');
    assert_eq!(ch(&mut app, 'K'), None);
    assert_eq!(app.overlay, None);
    assert_eq!(status(&app), "cannot knock discarding 2C: 18 deadwood left, the limit is 10");

    let mut offer = fixtures::app(&fixtures::upcard_offer(), true);
    assert_eq!(ch(&mut offer, 's'), None);
    assert!(status(&offer).contains("take the upcard (t) or pass (p)"), "{}", status(&offer));
    assert_eq!(press(&mut offer, KeyCode::Enter), None);
    assert_eq!(ch(&mut offer, 't'), Some(Command::Act(Action::DrawPile)));
    offer.refused("the game moved on before your move arrived; nothing was played");
    assert_eq!(ch(&mut offer, 'p'), Some(Command::Act(Action::Pass)));
}

#[test]
fn knock_asks_first() {
    let mut app = fixtures::app(&fixtures::your_turn(), false);
    ch(&mut app, 'k'); // KS
    assert_eq!(ch(&mut app, 'K'), None);
    assert_eq!(app.overlay, Some(Overlay::ConfirmKnock(card("KS"))));
    assert_eq!(ch(&mut app, 'n'), None, "n cancels");
    assert_eq!(app.overlay, None);
    ch(&mut app, 'K');
    assert_eq!(ch(&mut app, 'y'), Some(Command::Act(Action::knock(card("KS")))));
    assert_eq!(app.overlay, None);
}

#[test]
fn quit_asks_first_and_ctrl_c_does_not() {
    let mut app = fixtures::app(&fixtures::your_turn(), false);
    assert_eq!(ch(&mut app, 'q'), None);
    assert_eq!(app.overlay, Some(Overlay::ConfirmQuit));
    assert_eq!(ch(&mut app, 'n'), None);
    assert_eq!(app.overlay, None);
    ch(&mut app, 'q');
    assert_eq!(ch(&mut app, 'y'), Some(Command::Quit));
    let mut app = fixtures::app(&fixtures::your_turn(), false);
    assert_eq!(app.handle_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)), Some(Command::Quit));
}

#[test]
fn help_opens_and_closes_and_swallows_keys() {
    let mut app = fixtures::app(&fixtures::your_turn(), false);
    ch(&mut app, '?');
    assert_eq!(app.overlay, Some(Overlay::Help));
    assert_eq!(press(&mut app, KeyCode::Enter), None, "no discard behind the help");
    assert_eq!(app.overlay, Some(Overlay::Help));
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.overlay, None);
}

#[test]
fn sort_toggle_keeps_the_selected_card() {
    let mut app = fixtures::app(&fixtures::your_turn(), false);
    ch(&mut app, 'h'); // AH
    ch(&mut app, 'o');
    assert_eq!(app.sort, Sort::Rank);
    assert_eq!(app.selected_card(), Some(card("AH")));
    assert_eq!(
        app.hand_order().iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" "),
        "AH 2C 3C 4C 5D 5H 5S 7D 8D 9D KS"
    );
    ch(&mut app, 'o');
    assert_eq!(app.sort, Sort::Suit);
}

#[test]
fn a_hand_result_waits_for_space() {
    let s = fixtures::your_turn();
    let mut app = fixtures::app(&s, false);
    app.apply(&fixtures::hand_ended(s.seq + 1)).unwrap();
    assert_eq!(app.overlay, Some(Overlay::HandOver(2)));
    assert_eq!(ch(&mut app, 's'), None);
    assert_eq!(app.overlay, Some(Overlay::HandOver(2)));
    ch(&mut app, ' ');
    assert_eq!(app.overlay, None);
}

// ---------------------------------------------------------------- plain mode

fn plain_at(s: pb::GameSnapshot) -> (Plain, Vec<String>) {
    let mut p = Plain::new();
    let (lines, flow) = p.on_net(NetEvent::Snapshot(Box::new(s)));
    assert_eq!(flow, Flow::Continue);
    (p, lines)
}

/// Issue 36, item 8: a tournament's entrant is another program (or person), never shown as a
/// house bot: plain mode, the full screen's header and the table's log say so.
#[test]
fn a_tournament_entrant_is_not_called_a_house_bot() {
    let mut s = fixtures::your_turn();
    s.seats[1] = pb::SeatInfo { name: "py-entrant".into(), bot: false, entrant: true, ..s.seats[1].clone() };
    let (_, lines) = plain_at(s.clone());
    assert_eq!(lines[1], "you are alice (seat 0) against py-entrant (seat 1, entrant)");
    let t = gin_client_cli::table::Table::from_snapshot(&s).unwrap();
    assert_eq!((t.bots, t.entrants), ([false; 2], [false, true]));
    let mut t = t;
    let joined = pb::PlayerJoined {
        seat: 1,
        name: "py-entrant".into(),
        bot: false,
        entrant: true,
        ..Default::default()
    };
    t.apply(&fixtures::event(s.seq + 1, pb::game_event::Kind::PlayerJoined(joined))).unwrap();
    assert!(t.log.last().unwrap().contains("py-entrant (entrant) took seat 1"), "{:?}", t.log);
}

#[test]
fn plain_prompts_with_the_hand_and_what_may_be_done() {
    let (_, lines) = plain_at(fixtures::your_turn());
    let text = lines.join("\n");
    assert!(text.starts_with(
        "game 7f3a9c01: standard to 100\nyou are alice (seat 0) against simple (seat 1, house bot)"
    ));
    assert!(
        text.ends_with(
            "your hand: 2C 3C 4C 5D 7D 8D 9D AH 5H 5S KS\n\
             melds [2C 3C 4C] [7D 8D 9D] [5D 5H 5S]; deadwood 1: AH after discarding KS\n\
             your turn: discard CARD or knock CARD; best discard KS; you can knock with AH, KS"
        ),
        "{text}"
    );
    let (_, lines) = plain_at(fixtures::upcard_offer());
    assert_eq!(lines.last().unwrap(), "your turn: the upcard is KH: take or pass");
}

#[test]
fn plain_commands_parse_check_and_wait_for_their_outcome() {
    let (mut p, _) = plain_at(fixtures::your_turn());
    assert!(p.ready());
    assert_eq!(p.on_line("  "), (vec![], Flow::Continue));
    let (l, f) = p.on_line("discard zz");
    assert_eq!(f, Flow::Continue);
    assert!(l[0].starts_with("error: \"zz\" is not a card"), "{l:?}");
    let turn = "your turn: discard CARD or knock CARD; best discard KS; you can knock with AH, KS";
    let (l, _) = p.on_line("stock");
    assert_eq!(
        l,
        ["error: you have drawn already: discard or knock", turn],
        "the error, then what may be done"
    );
    let (l, _) = p.on_line("frobnicate");
    assert_eq!(l, ["error: unknown command \"frobnicate\"; type help for the commands", turn]);
    let (l, _) = p.on_line("knock 2c");
    assert_eq!(l, ["error: cannot knock discarding 2C: 18 deadwood left, the limit is 10", turn]);
    assert_eq!(p.on_line("knock ks").1, Flow::Act(Action::knock(card("KS"))));
    assert!(!p.ready(), "the next line waits for the knock's outcome");
    let (l, _) = p.on_net(NetEvent::Refused("refused: something".into()));
    assert_eq!(l[0], "error: refused: something");
    assert!(p.ready());
    assert!(l.iter().any(|l| l.starts_with("your turn:")), "the prompt again after a refusal: {l:?}");
    assert_eq!(p.on_line("D 10d").1, Flow::Continue, "TD is not in hand");
    assert_eq!(p.on_line("d 9d").1, Flow::Act(Action::Discard { card: card("9D") }));
    assert_eq!(p.on_line("quit").1, Flow::Exit(0));
    let (l, _) = p.on_line("sort rank");
    assert_eq!(l[0], "your hand: AH 2C 3C 4C 5D 5H 5S 7D 8D 9D KS");
}

#[test]
fn plain_prints_the_hand_result_and_the_game_breakdown_then_ends() {
    let s = fixtures::your_turn();
    let (mut p, _) = plain_at(s.clone());
    let (l, f) = p.on_net(NetEvent::Event(Box::new(fixtures::hand_ended(s.seq + 1))));
    assert_eq!(f, Flow::Continue);
    assert_eq!(
        l,
        [
            "hand 3: you knocked (1 vs 23): you score 22",
            "alice: [2C 3C 4C] [5D 5H 5S] [7D 8D 9D] deadwood 1: AH",
            "simple: [QC QH QS] deadwood 23: 2H 3S 8C 9H",
            "simple laid off: TD on meld 3, 5C on meld 2",
            "alice discarded face down: KS",
            "Score: alice 53 - 25 simple",
        ]
    );
    let (l, f) = p.on_net(NetEvent::Event(Box::new(fixtures::game_over(s.seq + 2))));
    assert_eq!(f, Flow::Exit(0));
    assert_eq!(l[0], "game over: you won alice 283 - 50 simple");
    assert!(l.contains(&"game bonus             100         0".to_string()), "{l:?}");
    assert!(l.contains(&"box bonus               75        25".to_string()), "{l:?}");
    assert_eq!(l.last().unwrap(), "margin 233");
}

#[test]
fn resign_asks_first_and_only_a_seated_player_in_a_live_game_may() {
    let mut app = fixtures::app(&fixtures::your_turn(), false);
    assert_eq!(ch(&mut app, 'R'), None);
    assert_eq!(app.overlay, Some(Overlay::ConfirmResign));
    assert_eq!(ch(&mut app, 'n'), None);
    assert_eq!(app.overlay, None);
    assert!(status(&app).contains("resign cancelled"), "{}", status(&app));
    ch(&mut app, 'R');
    assert_eq!(ch(&mut app, 'y'), Some(Command::Resign));

    // A spectator has nothing to resign.
    let mut watching = fixtures::your_turn();
    watching.viewer_seat = None;
    let mut app = fixtures::app(&watching, false);
    assert_eq!(ch(&mut app, 'R'), None);
    assert_eq!(app.overlay, None);
    assert!(status(&app).contains("only a seated player"), "{}", status(&app));

    // Nor does anyone once the game is over.
    let s = fixtures::your_turn();
    let mut app = fixtures::app(&s, false);
    app.apply(&fixtures::hand_ended(s.seq + 1)).unwrap();
    app.apply(&fixtures::game_over(s.seq + 2)).unwrap();
    app.overlay = None;
    assert_eq!(ch(&mut app, 'R'), None);
    assert!(status(&app).contains("the game is over"), "{}", status(&app));
}

#[test]
fn plain_resign_is_for_a_seated_player_in_a_live_game() {
    let (mut p, _) = plain_at(fixtures::your_turn());
    assert_eq!(p.on_line("resign"), (Vec::new(), Flow::Resign));
    let mut watching = fixtures::your_turn();
    watching.viewer_seat = None;
    let (mut p, _) = plain_at(watching);
    let (l, f) = p.on_line("resign");
    assert_eq!(f, Flow::Continue);
    assert_eq!(l, ["error: only a seated player can resign"]);
}

/// Accounts: a seat taken while signed in shows the account's name, a bot account's with
/// `(bot)`; an account since deleted shows `deleted`; a guest plainly, by the name given.
#[test]
fn seats_show_their_accounts() {
    let mut s = fixtures::your_turn();
    s.seats[0] = pb::SeatInfo {
        name: "al".into(),
        account: "Alice".into(),
        account_kind: pb::AccountKind::Person as i32,
        ..s.seats[0].clone()
    };
    s.seats[1] = pb::SeatInfo {
        name: "r".into(),
        bot: false,
        account: "Robo".into(),
        account_kind: pb::AccountKind::Bot as i32,
        ..s.seats[1].clone()
    };
    let (_, lines) = plain_at(s.clone());
    assert_eq!(lines[1], "you are Alice (seat 0) against Robo (bot) (seat 1)");
    s.seats[1] =
        pb::SeatInfo { account: String::new(), account_kind: 0, account_deleted: true, ..s.seats[1].clone() };
    s.seats[0] = pb::SeatInfo { account: String::new(), account_kind: 0, ..s.seats[0].clone() };
    let (_, lines) = plain_at(s);
    assert_eq!(lines[1], "you are al (seat 0) against deleted (seat 1)");
}

/// A seat taken signed in shows its account from its PlayerJoined, as from a snapshot: a bot
/// account's name with `(bot)`, whatever name the seat was asked for with.
#[test]
fn a_seat_joined_by_an_account_shows_the_account() {
    let s = fixtures::your_turn();
    let mut t = gin_client_cli::table::Table::from_snapshot(&s).unwrap();
    let joined = pb::PlayerJoined {
        seat: 1,
        name: "whatever".into(),
        account: "Robo".into(),
        account_kind: pb::AccountKind::Bot as i32,
        ..Default::default()
    };
    t.apply(&fixtures::event(s.seq + 1, pb::game_event::Kind::PlayerJoined(joined))).unwrap();
    assert!(t.log.last().unwrap().contains("Robo (bot) took seat 1"), "{:?}", t.log);
    assert_eq!(t.names[1], "Robo (bot)");
}
