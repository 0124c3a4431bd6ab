//! End-to-end tests of the `gin` binary: each runs the real executable.

use std::path::PathBuf;
use std::process::Output;

use engine::{Action, CardSet, Deck, Game, GameRecord, GameSetup, RuleSet, Seat};

use crate::common::{gin, gin_with_stdin};

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("stderr is UTF-8")
}

fn tmp(name: &str, contents: &str) -> PathBuf {
    let p = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("gin-cli-{}-{name}", std::process::id()));
    std::fs::write(&p, contents).unwrap();
    p
}

// ---------------------------------------------------------------- analyze

#[test]
fn analyze_ten_cards() {
    let o = gin(&["analyze", "7C", "7D", "7H", "3S", "4S", "5S", "2D", "9S", "AH"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "deadwood       12\nmelds          [7C 7D 7H] [3S 4S 5S]\ndeadwood cards 2D AH 9S\n"
    );
    assert!(o.stderr.is_empty());
}

#[test]
fn analyze_one_quoted_argument_and_other_notations_give_the_same_answer() {
    let split = gin(&["analyze", "7C", "7D", "7H", "3S", "4S", "5S", "2D", "9S", "AH"]);
    let quoted = gin(&["analyze", "7c, 7♦ 7h 3♠ 4s 5S 2d 9S aH"]);
    assert!(quoted.status.success(), "{}", stderr(&quoted));
    assert_eq!(stdout(&quoted), stdout(&split));
    // 10D is TD: with 8D 9D it makes a run.
    let o = gin(&["analyze", "8D 9D 10D KS"]);
    assert_eq!(stdout(&o), "deadwood       10\nmelds          [8D 9D TD]\ndeadwood cards KS\n");
}

#[test]
fn analyze_eleven_cards_discards_first() {
    let h = "7C 7D 7H 3S 4S 5S 2D 9S AH KC QD";
    let b = engine::best_discard(engine::hand(h)).unwrap();
    assert_eq!((b.deadwood(), b.discard.to_string()), (22, "QD".to_string()));
    let o = gin(&["analyze", h]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "deadwood       22\n\
         discard        QD\n\
         melds          [7C 7D 7H] [3S 4S 5S]\n\
         deadwood cards KC 2D AH 9S\n\
         status         cannot knock: deadwood 22 > knock limit 10\n"
    );
    // The knock limit is an option.
    let o = gin(&["analyze", "--knock-limit", "25", h]);
    assert!(
        stdout(&o).ends_with("status         can knock: deadwood 22 <= knock limit 25\n"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn analyze_eleven_cards_gin_and_big_gin() {
    let o = gin(&["analyze", "AC 2C 3C 7D 7H 7S 9H TH JH QH KD"]);
    let out = stdout(&o);
    assert!(out.starts_with("deadwood       0\ndiscard        KD\n"), "{out}");
    assert!(out.ends_with("status         gin: discard KD and lay down with no deadwood\n"), "{out}");
    let o = gin(&["analyze", "AC 2C 3C 4C 5D 5H 5S 9H 9S 9D 9C"]);
    let out = stdout(&o);
    assert!(out.starts_with("deadwood       0\n"), "{out}");
    assert!(
        out.ends_with(
            "status         big gin: all 11 cards meld as [AC 2C 3C 4C] [5D 5H 5S] [9C 9D 9H 9S]\n"
        ),
        "{out}"
    );
}

#[test]
fn analyze_bad_hands_fail_on_stderr() {
    for (args, why) in [
        (vec!["analyze", "7S", "7S"], "card 7S appears twice"),
        (vec!["analyze", "7S", "XX"], "bad card \"XX\""),
        (vec!["analyze", "AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC"], "12 cards: a hand has at most 11"),
        (vec!["analyze", " , "], "no cards"),
    ] {
        let o = gin(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
        let err = stderr(&o);
        assert!(err.starts_with("gin: error: ") && err.contains(why), "{args:?}: {err}");
    }
    // No cards and no --stdin: a usage error.
    let o = gin(&["analyze"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("CARDS"));
}

#[test]
fn analyze_stdin_keeps_line_numbers() {
    let input = "7C 7D 7H 3S 4S 5S 2D 9S AH\n\
                 \n\
                 7C 7D 7H 3S 4S 5S 2D 9S AH KC QD\n\
                 7S 7S\n\
                 hello\n\
                 \t \n\
                 AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC\n\
                 ,\n\
                 KD\r\n\
                 8D 9D 10D KS";
    let o = gin_with_stdin(&["analyze", "--stdin"], input.as_bytes());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stderr.is_empty());
    let out = stdout(&o);
    assert!(out.ends_with('\n'));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), input.lines().count(), "{out}");
    assert_eq!(lines[0], "12 [7C 7D 7H] [3S 4S 5S]");
    assert_eq!(lines[1], "");
    assert_eq!(lines[2], "22 discard QD [7C 7D 7H] [3S 4S 5S]");
    assert_eq!(lines[3], "error: card 7S appears twice");
    assert!(lines[4].starts_with("error: bad card \"hello\""), "{}", lines[4]);
    assert_eq!(lines[5], "");
    assert_eq!(lines[6], "error: 12 cards: a hand has at most 11");
    assert!(lines[7].starts_with("error: no cards"), "{}", lines[7]);
    assert_eq!(lines[8], "10");
    assert_eq!(lines[9], "10 [8D 9D TD]");
}

#[test]
fn analyze_stdin_agrees_with_the_engine_on_dealt_hands() {
    let mut input = String::new();
    let mut hands = Vec::new();
    for seed in 0..300u64 {
        let deck = Deck::shuffled(seed, 0);
        let n = 1 + (seed % 11) as usize;
        let h: CardSet = deck.cards()[..n].iter().copied().collect();
        input += &format!("{h}\n");
        hands.push(h);
    }
    let o = gin_with_stdin(&["analyze", "--stdin"], input.as_bytes());
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), hands.len());
    for (h, line) in hands.iter().zip(&lines) {
        let mut words = line.split(' ');
        let dw: u32 = words.next().unwrap().parse().unwrap();
        if h.len() == 11 {
            assert_eq!(Some(dw), engine::deadwood_after_best_discard(*h), "{h}: {line}");
            assert_eq!(words.next(), Some("discard"), "{line}");
            let d: engine::Card = words.next().unwrap().parse().unwrap();
            assert!(h.contains(d));
            assert_eq!(engine::deadwood(h.without(d)), dw, "{h}: {line}");
        } else {
            assert_eq!(dw, engine::deadwood(*h), "{h}: {line}");
        }
        // The melds printed are disjoint melds of the hand, and what they leave is the deadwood.
        let mut used = CardSet::EMPTY;
        for m in line.split('[').skip(1) {
            let m: engine::Meld = m.trim().trim_end_matches(']').parse().unwrap();
            assert!(h.is_superset(m.cards()) && used.is_disjoint(m.cards()), "{h}: {line}");
            used |= m.cards();
        }
        let discard =
            if h.len() == 11 { line.split(' ').nth(2).unwrap().parse().unwrap() } else { CardSet::EMPTY };
        assert!(used.is_disjoint(discard), "{h}: {line}");
        assert_eq!((*h - used - discard).value(), dw, "{h}: {line}");
    }
}

// ---------------------------------------------------------------- replay

/// Plays a whole standard game deterministically: knock when possible, else big gin, else
/// draw from the stock (passing the upcard), else discard the solver's best discard.
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
            let card = if l.discards.contains(b.discard) { b.discard } else { l.discards.first().unwrap() };
            Action::Discard { card }
        };
        assert!(g.hand().legal_actions().contains(&a));
        g.apply(seat, &a).unwrap();
    }
    g
}

/// The `game total:` and `winner:` lines of a report.
fn final_lines(out: &str) -> (String, String) {
    let total = out.lines().find(|l| l.starts_with("game total: ")).expect("a game total line").to_string();
    let winner =
        out.lines().find(|l| l.starts_with("winner: ") || l.starts_with("no winner")).unwrap().to_string();
    (total, winner)
}

fn expected_final_lines(g: &Game) -> (String, String) {
    let r = g.result().unwrap();
    let total = format!("game total: seat 0 {}, seat 1 {}", r.totals[Seat::S0], r.totals[Seat::S1]);
    let winner = match r.winner {
        Some(w) => format!("winner: seat {w} by {} points", r.margin),
        None => "no winner: the totals are equal".to_string(),
    };
    (total, winner)
}

#[test]
fn replay_json_and_text_records_report_the_engines_result() {
    let g = play(7);
    let r = g.result().unwrap();
    let rec = g.record();
    let json = tmp("game7.json", &rec.to_json());
    let text = tmp("game7.txt", &rec.to_text());
    let out_json = gin(&["replay", json.to_str().unwrap()]);
    let out_text = gin(&["replay", text.to_str().unwrap()]);
    for o in [&out_json, &out_text] {
        assert!(o.status.success(), "{}", stderr(o));
        assert!(o.stderr.is_empty());
    }
    let out = stdout(&out_json);
    assert_eq!(out, stdout(&out_text));
    assert_eq!(final_lines(&out), expected_final_lines(&g));
    // One headline per hand, in order, with the running scores of each.
    let heads: Vec<&str> = out.lines().filter(|l| l.starts_with("hand ")).collect();
    assert_eq!(heads.len(), g.hands().len());
    let scores: Vec<&str> = out.lines().filter(|l| l.starts_with("  scores   ")).collect();
    for ((h, head), score) in g.hands().iter().zip(&heads).zip(&scores) {
        assert!(
            head.starts_with(&format!("hand {} (stage 1), dealer seat {}: ", h.number + 1, h.dealer)),
            "{head}"
        );
        match h.result.winner {
            Some(w) => assert!(head.contains(&format!("seat {w} wins {} points", h.result.points)), "{head}"),
            None => assert!(head.contains("dead hand"), "{head}"),
        }
        assert_eq!(
            *score,
            format!("  scores   seat 0 {}, seat 1 {}", h.scores[Seat::S0], h.scores[Seat::S1])
        );
    }
    // The stage table shows the engine's bonus breakdown.
    let st = &r.stages[0];
    for (name, v) in [("game bonus", st.game_bonus), ("box bonus", st.box_bonus), ("total", st.total)] {
        let row = format!("  {name:<15}{:>8}{:>8}", v[Seat::S0], v[Seat::S1]);
        assert!(out.lines().any(|l| l == row), "missing {row:?} in\n{out}");
    }
}

#[test]
fn replay_reports_showdowns() {
    // Find a game with a knock that had layoffs, so the showdown lines are exercised.
    let (g, h) = (0..200)
        .map(play)
        .find_map(|g| {
            let h = g
                .hands()
                .iter()
                .find(|h| h.result.showdown.as_ref().is_some_and(|s| !s.layoffs.is_empty()))?
                .clone();
            Some((g, h))
        })
        .expect("some game has layoffs");
    let path = tmp("layoffs.json", &g.record().to_json());
    let out = stdout(&gin(&["replay", path.to_str().unwrap()]));
    let s = h.result.showdown.as_ref().unwrap();
    let head = format!("hand {} (stage 1)", h.number + 1);
    let block: Vec<&str> = out.lines().skip_while(|l| !l.starts_with(&head)).take(5).collect();
    assert!(
        block[1].starts_with(&format!("  knocker  seat {} deadwood {}", s.knocker, s.knocker_deadwood)),
        "{block:?}"
    );
    assert!(block[1].ends_with(&s.knocker_arrangement.to_string()), "{block:?}");
    assert!(block[2].starts_with(&format!(
        "  defender seat {} deadwood {}",
        s.knocker.other(),
        s.defender_deadwood
    )));
    let l = s.layoffs[0];
    let meld = s.knocker_arrangement.melds()[l.meld];
    assert!(block[3].starts_with(&format!("  layoffs  {} on [{meld}]", l.card)), "{block:?}");
}

#[test]
fn replay_json_flag_prints_the_game_result() {
    let g = play(11);
    let path = tmp("game11.txt", &g.record().to_text());
    let o = gin(&["replay", "--json", path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let got: engine::GameResult = serde_json::from_value(v["detail"].clone()).expect("a GameResult");
    assert_eq!(Some(&got), g.result());
    // Every hand in full, with the running totals.
    let hands: Vec<engine::HandReport> = serde_json::from_value(v["hands"].clone()).unwrap();
    assert_eq!(hands.len(), g.hands().len());
    for (h, want) in hands.iter().zip(g.hands()) {
        assert_eq!(h.points, want.result.points);
        assert_eq!(h.winner, want.result.winner.map(u8::from));
        assert_eq!(h.totals, want.scores.0.map(|x| x as i64).to_vec());
        if let Some(sd) = &want.result.showdown {
            assert_eq!(h.by, Some(u8::from(sd.knocker)));
            assert_eq!(h.outcomes[0].deadwood_points, sd.knocker_deadwood);
            assert_eq!(h.outcomes[1].deadwood_points, sd.defender_deadwood);
            assert_eq!(h.outcomes[1].layoffs, sd.layoffs.iter().map(|l| l.card).collect::<Vec<_>>());
        }
    }
    assert_eq!(v["over"], true);
}

/// Records of the other formats replay too: the report names every hand and the winners,
/// and `--json` gives each hand in full.
#[test]
fn replay_of_every_format() {
    use engine::{Format, Table, TableSetup};
    for (name, players) in [("three-player", 3), ("teams", 4), ("gin-7", 5), ("rummy", 3)] {
        let format = Format::preset(name).unwrap().with_players(players).unwrap();
        let mut bots: Vec<gin_strategies::tables::TableBot> = (0..players)
            .map(|s| gin_strategies::tables::TableBot::new("simple", format.kind(), s as u64).unwrap())
            .collect();
        let t: Table = gin_strategies::tables::play_table(TableSetup::new(format, 21), &mut bots).unwrap();
        let r = t.result().unwrap();
        for (i, text) in [t.record().to_text(), t.record().to_json()].into_iter().enumerate() {
            let path = tmp(&format!("{name}-{i}.rec"), &text);
            let o = gin(&["replay", path.to_str().unwrap()]);
            assert!(o.status.success(), "{}", stderr(&o));
            let out = stdout(&o);
            assert_eq!(out.lines().filter(|l| l.starts_with("hand ")).count(), t.hands().len(), "{out}");
            let winners: Vec<String> = r.winners.iter().map(|s| format!("seat {s}")).collect();
            assert!(out.trim_end().ends_with(&winners.join(", ")), "{out}");
            let o = gin(&["replay", "--json", path.to_str().unwrap()]);
            let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            let hands: Vec<engine::HandReport> = serde_json::from_value(v["hands"].clone()).unwrap();
            assert_eq!(hands, t.hands());
            let got: engine::TableResult = serde_json::from_value(v["result"].clone()).unwrap();
            assert_eq!(got, r);
        }
    }
}

#[test]
fn replay_reads_stdin() {
    let g = play(3);
    let o = gin_with_stdin(&["replay", "-"], g.record().to_json().as_bytes());
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(final_lines(&stdout(&o)), expected_final_lines(&g));
}

#[test]
fn replay_of_an_unfinished_game_says_so() {
    let g = play(9);
    let mut rec = g.record();
    rec.result = None;
    // Cut the record a few actions into the second hand.
    let mut probe = Game::new(rec.setup.clone()).unwrap();
    let mut n = 0;
    while probe.hands().is_empty() {
        probe.apply(rec.actions[n].seat, &rec.actions[n].action).unwrap();
        n += 1;
    }
    rec.actions.truncate(n + 3);
    let path = tmp("unfinished.json", &rec.to_json());
    let o = gin(&["replay", path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.lines().filter(|l| l.starts_with("hand ")).count(), 1, "{out}");
    assert!(!out.contains("game total"), "{out}");
    let sc = probe.scores();
    let want = format!(
        "the game is not over: hand 2 (stage 1) is in play; stage scores seat 0 {}, seat 1 {}",
        sc[Seat::S0],
        sc[Seat::S1]
    );
    assert_eq!(out.lines().last(), Some(want.as_str()), "{out}");
    let o = gin(&["replay", "--json", path.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((v["over"].clone(), v["result"].clone()), (serde_json::json!(false), serde_json::Value::Null));
    assert_eq!(v["hands"].as_array().unwrap().len(), 1);
}

#[test]
fn replay_of_a_corrupted_record_names_the_first_bad_action() {
    let g = play(4);
    let mut rec = g.record();
    // Action #k (1-based) becomes a discard of a card seat never holds there: the opponent's.
    let k = 40;
    let mut probe = Game::new(rec.setup.clone()).unwrap();
    for a in &rec.actions[..k - 1] {
        probe.apply(a.seat, &a.action).unwrap();
    }
    let seat = rec.actions[k - 1].seat;
    let card = probe.hand().cards(seat.other()).first().unwrap();
    rec.actions[k - 1].action = Action::Discard { card };
    // A later action is broken too: only the first is reported.
    rec.actions[k + 5].action = Action::Pass;
    assert!(GameRecord::parse(&rec.to_text()).is_ok());
    for (name, body) in [("bad.json", rec.to_json()), ("bad.txt", rec.to_text())] {
        let path = tmp(name, &body);
        let o = gin(&["replay", path.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1), "{name}");
        assert!(o.stdout.is_empty(), "{name}");
        let err = stderr(&o);
        assert!(err.starts_with("gin: error: record "), "{err}");
        assert!(
            err.contains(&format!("action #{k} (seat {seat}: discard {card}) is illegal")),
            "{name}: {err}"
        );
        assert!(!err.contains(&format!("action #{}", k + 6)), "{err}");
        assert!(err.contains(&format!("in hand {}", probe.hand_number() + 1)), "{err}");
    }
}

#[test]
fn replay_of_a_tampered_result_fails() {
    let g = play(8);
    let mut rec = g.record();
    rec.result.as_mut().unwrap().margin += 1;
    let path = tmp("tampered.json", &rec.to_json());
    let o = gin(&["replay", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("differs from the recorded result"), "{}", stderr(&o));
}

#[test]
fn replay_of_missing_or_garbage_files_fails_clearly() {
    let missing = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("no-such-record.json");
    let o = gin(&["replay", missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    let err = stderr(&o);
    assert!(err.starts_with("gin: error: cannot read record file "), "{err}");
    assert!(err.contains("no-such-record.json"), "{err}");
    let garbage = tmp("garbage.txt", "this is not a record\n");
    let o = gin(&["replay", garbage.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("cannot read record"), "{}", stderr(&o));
}

/// `gin analyze --rules`: gin-7 hands of up to 8 cards with their knock limit; rummy hands
/// scored by rummy's rules (aces high: Q-K-A melds, an ace left counts 15).
#[test]
fn analyze_for_gin7_and_rummy() {
    let o = gin(&["analyze", "--rules", "gin-7", "7C", "7D", "7H", "3S", "4S", "5S", "2D", "KC"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("discard        KC"), "{out}");
    assert!(out.contains("can knock: deadwood 2 <= knock limit 10"), "{out}");
    let o = gin(&["analyze", "--rules", "gin-7", "7C", "7D", "7H", "3S", "4S", "5S", "2D", "KC", "9H"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("9 cards"), "{}", stderr(&o));
    let rules = tmp("rummy-high.toml", "kind = \"rummy\"\nace_high = true\nplayers = 4\n");
    let r = rules.to_str().unwrap();
    let o = gin(&["analyze", "--rules", r, "QH", "KH", "AH", "2C", "3C", "4C", "9D", "5D"]);
    let out = stdout(&o);
    assert!(out.starts_with("points left    14\n"), "{out}");
    assert!(out.contains("cannot go out: 2 cards left"), "{out}");
    let o = gin_with_stdin(&["analyze", "--rules", r, "--stdin"], b"QH KH AH 2C\nKH AH 2H\n\nXX\n");
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[..3], ["2 [AH QH KH]", "27", ""], "{out}");
    assert!(lines[3].starts_with("error: "), "{out}");
    // Ace low (the preset): Q-K-A is no meld and the ace counts 1.
    let o = gin(&["analyze", "--rules", "rummy", "QH", "KH", "AH", "2C", "3C"]);
    assert!(stdout(&o).starts_with("points left    26\n"), "{}", stdout(&o));
}
