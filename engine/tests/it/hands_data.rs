//! Checks the engine's solver against every hand of `tests/data/hands.txt`, whose answers were
//! written by the brute-force reference in `tests/it/solver_reference.rs` (format: the file's
//! header).

use engine::{
    Arrangement, CardSet, Meld, best_arrangement, best_discard, deadwood, deadwood_after_best_discard,
    knock_discards,
};

const HANDS_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/hands.txt");

/// Checks one data line; `Err` says what disagrees.
fn check_line(line: &str) -> Result<(), String> {
    let fields: Vec<&str> = line.split('|').map(str::trim).collect();
    let [cards, dw, detail, _category] = fields[..] else {
        return Err(format!("expected 4 fields separated by '|', got {}", fields.len()));
    };
    let h: CardSet = cards.parse().map_err(|e| format!("hand: {e}"))?;
    let dw: u32 = dw.parse().map_err(|e| format!("deadwood {dw:?}: {e}"))?;
    match h.len() {
        10 => {
            if deadwood(h) != dw {
                return Err(format!("deadwood: engine {}, file {dw}", deadwood(h)));
            }
            let a = best_arrangement(h);
            if a.deadwood() != dw {
                return Err(format!("best_arrangement {a} has deadwood {}, file {dw}", a.deadwood()));
            }
            let melds = if detail == "-" {
                Vec::new()
            } else {
                let inner = detail
                    .strip_prefix('[')
                    .and_then(|d| d.strip_suffix(']'))
                    .ok_or_else(|| format!("melds {detail:?}: expected [..] [..]"))?;
                inner
                    .split("] [")
                    .map(|m| m.parse::<Meld>().map_err(|e| format!("meld [{m}]: {e}")))
                    .collect::<Result<Vec<Meld>, String>>()?
            };
            let file = Arrangement::new(h, melds).map_err(|e| format!("file's arrangement: {e}"))?;
            if file.deadwood() != dw {
                return Err(format!(
                    "file's arrangement {file} has deadwood {}, file says {dw}",
                    file.deadwood()
                ));
            }
        }
        11 => {
            let best: CardSet = detail.parse().map_err(|e| format!("best discards: {e}"))?;
            if best.is_empty() || !h.is_superset(best) {
                return Err(format!("best discards [{best}] must be a non-empty part of the hand"));
            }
            if deadwood_after_best_discard(h) != Some(dw) {
                return Err(format!(
                    "deadwood_after_best_discard: engine {:?}, file {dw}",
                    deadwood_after_best_discard(h)
                ));
            }
            let b = best_discard(h).ok_or("best_discard: None")?;
            if !best.contains(b.discard) {
                return Err(format!("best_discard {} is not one of the file's [{best}]", b.discard));
            }
            if b.deadwood() != dw {
                return Err(format!("best_discard {} leaves {}, file {dw}", b.discard, b.deadwood()));
            }
            let k = knock_discards(h, dw);
            if k != best {
                return Err(format!("knock_discards(h, {dw}): engine [{k}], file [{best}]"));
            }
        }
        n => return Err(format!("{n} cards; the file holds 10- and 11-card hands")),
    }
    Ok(())
}

#[test]
fn every_hand_in_the_data_file() {
    let text = std::fs::read_to_string(HANDS_FILE).expect("read tests/data/hands.txt");
    let mut hands = 0;
    let mut failures = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        hands += 1;
        if let Err(why) = check_line(line) {
            failures.push(format!("line {}: {line}\n    {why}", i + 1));
        }
    }
    assert!(hands >= 500, "tests/data/hands.txt has only {hands} hands; expected at least 500");
    assert!(failures.is_empty(), "{} of {hands} hands disagree:\n{}", failures.len(), failures.join("\n"));
}
