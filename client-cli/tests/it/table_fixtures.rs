//! Hand-made states of tables of three to six, as the server sends them: the snapshot a
//! seat sees, and the events that end a hand or the game.
#![allow(dead_code)]

use gin_client_cli::table_app::TableApp;
use gin_proto::v1 as pb;
use gin_proto::v1::game_event::Kind as K;

pub fn strs(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

pub fn seats(names: &[(&str, bool)], teams: bool) -> Vec<pb::SeatInfo> {
    names
        .iter()
        .enumerate()
        .map(|(i, (n, bot))| pb::SeatInfo {
            seat: i as u32,
            name: (*n).into(),
            taken: true,
            bot: *bot,
            team: teams.then_some(i as u32 % 2),
            entrant: false,
            ..Default::default()
        })
        .collect()
}

pub fn act(kind: pb::ActionKind, card: &str, cards: &str, meld: u32) -> pb::LegalAction {
    pb::LegalAction { kind: kind as i32, card: card.into(), cards: strs(cards), meld, ..Default::default() }
}

fn knock(card: &str, deadwood: u32) -> pb::LegalAction {
    pb::LegalAction { kind: pb::ActionKind::Knock as i32, card: card.into(), deadwood, ..Default::default() }
}

fn discards(hand: &str) -> Vec<pb::LegalAction> {
    strs(hand).iter().map(|c| act(pb::ActionKind::Discard, c, "", 0)).collect()
}

fn format(kind: &str, players: u32, name: &str, doc: &str) -> Option<pb::FormatInfo> {
    Some(pb::FormatInfo { kind: kind.into(), players, name: name.into(), document_json: doc.into() })
}

fn table(
    seats: &[u32],
    dealer: u32,
    sizes: &[u32],
    pile: &str,
    stock: u32,
    knock_limit: u32,
) -> pb::TableInPlay {
    pb::TableInPlay {
        seats: seats.to_vec(),
        dealer,
        hand_sizes: sizes.to_vec(),
        known: vec![],
        pile: strs(pile),
        stock_size: stock,
        melds: vec![],
        knock_limit,
    }
}

fn best(melds: &[&str], deadwood: &str, value: u32) -> Option<pb::Arrangement> {
    Some(pb::Arrangement {
        melds: melds.iter().map(|m| pb::Meld { cards: strs(m) }).collect(),
        deadwood: strs(deadwood),
        deadwood_value: value,
    })
}

pub fn app(snap: pb::GameSnapshot, log: &[&str], no_color: bool) -> TableApp {
    let mut a = TableApp::with_snapshot(snap, no_color);
    a.screen.log = log.iter().map(|l| l.to_string()).collect();
    a
}

pub fn event(seq: u64, kind: K) -> pb::GameEvent {
    pb::GameEvent { seq, time_unix_ms: 0, kind: Some(kind) }
}

/// Three players: seat 2 (cy) dealt and sits out; seat 0 (you) is offered the upcard.
pub fn three_player() -> pb::GameSnapshot {
    pb::GameSnapshot {
        game_id: "3p0c1a".into(),
        seq: 12,
        seats: seats(&[("ann", false), ("bo", false), ("cy", false)], false),
        viewer_seat: Some(0),
        phase: pb::Phase::UpcardOffer as i32,
        seat_to_act: Some(0),
        seats_to_act: vec![0],
        hand_number: 2,
        hand: strs("AC 2C 3C 7D 8D 5S 5H JD QS KH"),
        sitting_out: Some(2),
        format: format("three-player", 3, "three-player", r#"{"kind":"three-player","big_gin":true}"#),
        tables: vec![table(&[0, 1], 2, &[10, 10], "8D", 31, 10)],
        totals: vec![25, 0, 61],
        turn: Some(pb::TurnInfo {
            legal_actions: vec![
                act(pb::ActionKind::TakeUpcard, "", "", 0),
                act(pb::ActionKind::PassUpcard, "", "", 0),
            ],
            best: best(&["AC 2C 3C"], "7D 8D 5S 5H JD QS KH", 55),
            best_discard: String::new(),
        }),
        ..Default::default()
    }
}

/// A team game seen by seat 1 (bo), its turn to discard; the partner (di) plays table 1.
pub fn teams() -> pb::GameSnapshot {
    let hand = "AC 2C 3C 7D 8D 9D 5S 5H 5D KS 4C";
    let mut legal = discards(hand);
    legal.push(knock("KS", 0));
    pb::GameSnapshot {
        game_id: "7ea45b".into(),
        seq: 140,
        seats: seats(&[("ann", false), ("bo", false), ("cy", true), ("di", false)], true),
        viewer_seat: Some(1),
        phase: pb::Phase::Discard as i32,
        seat_to_act: Some(1),
        seats_to_act: vec![1, 2],
        hand_number: 5,
        hand: strs(hand),
        format: format("teams", 4, "teams", r#"{"kind":"teams","big_gin":true}"#),
        tables: vec![
            pb::TableInPlay {
                known: vec![pb::KnownCards { seat: 0, cards: strs("JH") }],
                ..table(&[1, 0], 0, &[11, 10], "2H QH", 24, 10)
            },
            table(&[2, 3], 3, &[10, 10], "3C", 31, 10),
        ],
        totals: vec![41, 17, 41, 17],
        team_totals: vec![41, 17],
        turn: Some(pb::TurnInfo {
            legal_actions: legal,
            best: best(&["AC 2C 3C 4C", "7D 8D 9D", "5S 5H 5D"], "", 0),
            best_discard: "KS".into(),
        }),
        ..Default::default()
    }
}

/// Gin at one table for `n` (3 or 6): seat 0 to discard (3) or waiting for seat 4 (6).
pub fn gin7(n: u32) -> pb::GameSnapshot {
    let names: Vec<(&str, bool)> =
        [("you", false), ("simple", true), ("strong", true), ("dee", false), ("eve", false), ("fay", false)]
            [..n as usize]
            .to_vec();
    let hand = if n == 3 { "4C 5C 6C 9H 9S 9D 2H KD" } else { "4C 5C 6C 9H 9S 2H KD" };
    let mine = n == 3;
    let mut legal = discards(hand);
    legal.extend([knock("KD", 2), knock("2H", 10)]);
    let sizes: Vec<u32> = (0..n).map(|i| if i == 0 && mine { 8 } else { 7 }).collect();
    pb::GameSnapshot {
        game_id: format!("g7x{n}"),
        seq: 40,
        seats: seats(&names, false),
        viewer_seat: Some(0),
        phase: if mine { pb::Phase::Discard } else { pb::Phase::Draw } as i32,
        seat_to_act: Some(if mine { 0 } else { 4 }),
        seats_to_act: vec![if mine { 0 } else { 4 }],
        hand_number: 3,
        hand: strs(hand),
        format: format("gin-7", n, &format!("gin-7 ({n} players)"), r#"{"kind":"gin-7"}"#),
        tables: vec![pb::TableInPlay {
            known: vec![pb::KnownCards { seat: 1, cards: strs("QH") }],
            ..table(&(0..n).collect::<Vec<_>>(), n - 1, &sizes, "7S 3D", 52 - 7 * n - 3, 10)
        }],
        totals: (0..n as i64).map(|i| [14, -6, 20, -3, 0, 8][i as usize]).collect(),
        turn: mine.then(|| pb::TurnInfo {
            legal_actions: legal,
            best: best(&["4C 5C 6C", "9H 9S 9D"], "2H", 2),
            best_discard: "KD".into(),
        }),
        ..Default::default()
    }
}

/// Rummy for `n` (2 or 6): seat 0 to play after drawing, melds on the table.
pub fn rummy(n: u32) -> pb::GameSnapshot {
    let names: Vec<(&str, bool)> =
        [("ann", false), ("simple", true), ("bea", false), ("simple", true), ("cy", false), ("strong", true)]
            [..n as usize]
            .to_vec();
    let hand = if n == 2 { "9C 9D 9H 8S 2D KH 3C 4C 5C JS QS" } else { "9C 9D 9H 8S 2D KH 5C" };
    let mut legal =
        vec![act(pb::ActionKind::Meld, "", "9C 9D 9H", 0), act(pb::ActionKind::LayOff, "8S", "", 1)];
    if n == 2 {
        legal.push(act(pb::ActionKind::Meld, "", "3C 4C 5C", 0));
    } else {
        legal.push(act(pb::ActionKind::LayOff, "5C", "", 3));
    }
    legal.extend(discards(hand));
    let mut melds = vec![
        pb::TableMeld { index: 0, seat: 1, cards: strs("QC QD QH"), layoffs: vec![] },
        pb::TableMeld {
            index: 1,
            seat: n - 1,
            cards: strs("4S 5S 6S 7S"),
            layoffs: vec![pb::LaidOffCard { card: "7S".into(), seat: 0 }],
        },
    ];
    if n == 6 {
        melds.push(pb::TableMeld { index: 2, seat: 2, cards: strs("AD 2D 3D"), layoffs: vec![] });
        melds.push(pb::TableMeld { index: 3, seat: 4, cards: strs("6C 7C 8C"), layoffs: vec![] });
    }
    let sizes: Vec<u32> = if n == 2 { vec![11, 4] } else { vec![7, 3, 2, 6, 1, 6] };
    pb::GameSnapshot {
        game_id: format!("5ea7r{n}"),
        seq: 88,
        seats: seats(&names, false),
        viewer_seat: Some(0),
        phase: pb::Phase::Discard as i32,
        seat_to_act: Some(0),
        seats_to_act: vec![0],
        hand_number: 1,
        hand: strs(hand),
        format: format("rummy", n, &format!("rummy ({n} players)"), r#"{"kind":"rummy"}"#),
        tables: vec![pb::TableInPlay {
            melds,
            known: vec![pb::KnownCards { seat: 1, cards: strs("JD") }],
            ..table(&(0..n).collect::<Vec<_>>(), n - 1, &sizes, "JD", 17, 0)
        }],
        totals: (0..n as i64).map(|i| [12, 0, 30, 0, 7, 51][i as usize]).collect(),
        turn: Some(pb::TurnInfo {
            legal_actions: legal,
            best: best(&["9C 9D 9H"], "8S 2D KH", 20),
            best_discard: String::new(),
        }),
        ..Default::default()
    }
}

/// The end of a rummy hand for 6: seat 0 went out.
pub fn rummy6_hand_ended(seq: u64) -> pb::GameEvent {
    let out = |seat: u32, melds: &[&str], layoffs: &str, dw: &str, v: u32| pb::SeatOutcome {
        seat,
        melds: melds.iter().map(|m| pb::Meld { cards: strs(m) }).collect(),
        layoffs: strs(layoffs),
        deadwood: strs(dw),
        deadwood_value: v,
        penalty: 0,
    };
    event(
        seq,
        K::TableHandEnded(pb::TableHandEnded {
            result: Some(pb::TableHandResult {
                hand_number: 1,
                round: 1,
                table: 0,
                seats: (0..6).collect(),
                dealer: 5,
                end: pb::EndKind::WentOut as i32,
                by: Some(0),
                winner: Some(0),
                points: 47,
                discard: String::new(),
                outcomes: vec![
                    out(0, &["9C 9D 9H"], "7S 8S", "", 0),
                    out(1, &["QC QD QH"], "", "2S 4H", 6),
                    out(2, &["AD 2D 3D"], "", "KC", 10),
                    out(3, &[], "", "3H 5D 9S", 17),
                    out(4, &["6C 7C 8C"], "", "4D", 4),
                    out(5, &["4S 5S 6S"], "", "JC", 10),
                ],
                team_points: vec![],
                totals: vec![59, 0, 30, 0, 7, 51],
                reveal: None,
                turns: 31,
            }),
        }),
    )
}

/// The game's end for rummy for 6.
pub fn rummy6_game_over(seq: u64) -> pb::GameEvent {
    event(
        seq,
        K::GameOver(pb::GameOver {
            result: Some(pb::GameResult {
                reason: pb::GameEndReason::Target as i32,
                winner: Some(0),
                table_totals: vec![59, 0, 30, 0, 7, 51],
                winners: vec![0],
                places: vec![1, 5, 3, 5, 4, 2],
                ..Default::default()
            }),
        }),
    )
}
