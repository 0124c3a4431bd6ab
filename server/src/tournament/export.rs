//! A tournament's results as JSON and CSV (`ExportTournament`).
//!
//!
//! Tables have their own CSV columns (every seat's entrant, place and total in one field each)
//! and a partnership section.

use gin_proto::v1 as pb;

fn status_name(s: i32) -> &'static str {
    match pb::TournamentStatus::try_from(s) {
        Ok(pb::TournamentStatus::Waiting) => "waiting",
        Ok(pb::TournamentStatus::Running) => "running",
        Ok(pb::TournamentStatus::Finished) => "finished",
        _ => "unknown",
    }
}

fn format_name(f: i32) -> &'static str {
    match pb::TournamentFormat::try_from(f) {
        Ok(pb::TournamentFormat::Gauntlet) => "gauntlet",
        Ok(pb::TournamentFormat::Swiss) => "swiss",
        _ => "round_robin",
    }
}

/// Whether the tournament's games are tables (any format but two-player gin).
fn tables(s: &pb::TournamentState) -> bool {
    s.game_format.as_ref().is_some_and(|f| !f.kind.is_empty() && f.kind != "gin")
}

/// A game's entrants by seat (older states: the two seats).
fn entrants(g: &pb::TournamentGame) -> Vec<u32> {
    if g.entrants.is_empty() { vec![g.seat0, g.seat1] } else { g.entrants.clone() }
}

/// Numbers (or names) joined by spaces, for one CSV field.
fn joined<T: ToString>(v: impl IntoIterator<Item = T>) -> String {
    v.into_iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" ")
}

/// The results as JSON: the tournament, its standings (best first) and its games.
pub fn export_json(s: &pb::TournamentState, names: &[String]) -> String {
    let tables = tables(s);
    let spec = s.spec.clone().unwrap_or_default();
    let rules = match spec.rules.and_then(|r| r.kind) {
        Some(pb::rules::Kind::Custom(r)) => serde_json::json!(r.name),
        Some(pb::rules::Kind::Preset(p)) => serde_json::json!(p),
        None => serde_json::json!("standard"),
    };
    let standings: Vec<_> = s
        .standings
        .iter()
        .flat_map(|st| &st.rows)
        .enumerate()
        .map(|(rank, r)| {
            let mut v = serde_json::json!({
                "rank": rank + 1, "entrant": r.entrant, "name": r.name, "games": r.games,
                "wins": r.wins, "losses": r.losses, "draws": r.draws,
                "points_for": r.points_for, "points_against": r.points_against,
                "score": r.score, "elo": r.elo, "elo_low": r.elo_low, "elo_high": r.elo_high,
            });
            if tables {
                v["table_points"] = serde_json::json!(r.table_points);
                v["mean_place"] = serde_json::json!(r.mean_place);
            }
            v
        })
        .collect();
    let games: Vec<_> = s
        .games
        .iter()
        .map(|g| {
            let mut v = serde_json::json!({
                "number": g.number, "round": g.round, "game_id": g.game_id,
                "seats": entrants(g), "deal_seed": g.deal_seed, "done": g.done,
                "winner_seat": g.winner, "totals": g.totals,
            });
            if tables {
                v["totals"] = serde_json::json!(g.table_totals);
                v["places"] = serde_json::json!(g.places);
            }
            v
        })
        .collect();
    let v = serde_json::json!({
        "tournament_id": s.tournament_id,
        "name": spec.name,
        "status": status_name(s.status),
        "format": format_name(spec.format),
        "entrants": names,
        "games_per_pairing": spec.games_per_pairing,
        "duplicate": spec.duplicate,
        "rules": rules,
        "seed": spec.seed,
        "games_done": s.games_done,
        "games_total": s.games_total,
        "sprt": spec.sprt.map(|p| serde_json::json!({
            "elo0": p.elo0, "elo1": p.elo1, "alpha": p.alpha, "beta": p.beta,
            "state": s.sprt_state, "llr": s.sprt_llr, "lower": s.sprt_lower, "upper": s.sprt_upper,
        })),
        "standings": standings,
        "games": games,
    });
    let mut v = v;
    if let Some(f) = &s.game_format {
        v["game_format"] = serde_json::json!({"kind": f.kind, "players": f.players, "name": f.name});
    }
    let teams: Vec<_> = s
        .standings
        .iter()
        .flat_map(|st| &st.teams)
        .enumerate()
        .map(|(rank, t)| {
            serde_json::json!({
                "rank": rank + 1, "entrants": t.entrants, "names": t.names, "games": t.games,
                "wins": t.wins, "losses": t.losses, "draws": t.draws, "points": t.points,
                "score": t.score,
            })
        })
        .collect();
    if !teams.is_empty() {
        v["team_standings"] = serde_json::json!(teams);
    }
    serde_json::to_string_pretty(&v).expect("JSON values serialize")
}

/// The results as CSV: one line per game, a blank line, then one line per standing (best
/// first); at team tables, a blank line and one line per partnership. Fields are quoted where
/// they must be (a name with a comma, a quote or a line break). At tables, a game's entrants,
/// places and totals are each one field, seat by seat, separated by spaces (names by " | ").
pub fn export_csv(s: &pb::TournamentState, names: &[String]) -> String {
    if tables(s) {
        return export_tables_csv(s, names);
    }
    let name = |e: u32| names.get(e as usize).map_or("", String::as_str).to_owned();
    let opt = |v: Option<u32>| v.map_or(String::new(), |v| v.to_string());
    let mut rows = vec![header(
        "number,round,game_id,seat0,seat0_name,seat1,seat1_name,deal_seed,done,winner_seat,total0,total1",
    )];
    for g in &s.games {
        rows.push(vec![
            g.number.to_string(),
            g.round.to_string(),
            g.game_id.clone(),
            g.seat0.to_string(),
            name(g.seat0),
            g.seat1.to_string(),
            name(g.seat1),
            g.deal_seed.to_string(),
            g.done.to_string(),
            opt(g.winner),
            opt(g.totals.first().copied()),
            opt(g.totals.get(1).copied()),
        ]);
    }
    csv_sections(vec![rows, standings_rows(s, false)])
}

/// The standings as CSV rows, header first: two-player gin's points for and against, or a
/// table's summed totals and mean place.
fn standings_rows(s: &pb::TournamentState, tables: bool) -> Vec<Vec<String>> {
    let points = if tables { "points,mean_place" } else { "points_for,points_against" };
    let mut table = vec![header(&format!(
        "rank,entrant,name,games,wins,losses,draws,{points},score,elo,elo_low,elo_high"
    ))];
    for (rank, r) in s.standings.iter().flat_map(|st| &st.rows).enumerate() {
        let (p1, p2) = if tables {
            (r.table_points.to_string(), format!("{:.3}", r.mean_place))
        } else {
            (r.points_for.to_string(), r.points_against.to_string())
        };
        table.push(vec![
            (rank + 1).to_string(),
            r.entrant.to_string(),
            r.name.clone(),
            r.games.to_string(),
            r.wins.to_string(),
            r.losses.to_string(),
            r.draws.to_string(),
            p1,
            p2,
            format!("{:.4}", r.score),
            format!("{:.1}", r.elo),
            format!("{:.1}", r.elo_low),
            format!("{:.1}", r.elo_high),
        ]);
    }
    table
}

/// CSV tables, one after the other, each after a blank line.
fn csv_sections(sections: Vec<Vec<Vec<String>>>) -> String {
    let mut out = Vec::new();
    for (i, rows) in sections.into_iter().enumerate() {
        let mut w = csv::Writer::from_writer(Vec::new());
        for row in rows {
            w.write_record(&row).expect("writing CSV into memory");
        }
        if i > 0 {
            out.push(b'\n');
        }
        out.extend(w.into_inner().expect("writing CSV into memory"));
    }
    String::from_utf8(out).expect("CSV of UTF-8 text is UTF-8")
}

/// A header line's fields.
fn header(h: &str) -> Vec<String> {
    h.split(',').map(String::from).collect()
}

/// [`export_csv`] at tables.
fn export_tables_csv(s: &pb::TournamentState, names: &[String]) -> String {
    let name = |e: u32| names.get(e as usize).map_or("", String::as_str).to_owned();
    let mut games = vec![header("number,round,game_id,entrants,names,deal_seed,done,places,totals")];
    for g in &s.games {
        let e = entrants(g);
        games.push(vec![
            g.number.to_string(),
            g.round.to_string(),
            g.game_id.clone(),
            joined(&e),
            e.iter().map(|&x| name(x)).collect::<Vec<_>>().join(" | "),
            g.deal_seed.to_string(),
            g.done.to_string(),
            joined(&g.places),
            joined(&g.table_totals),
        ]);
    }
    let mut sections = vec![games, standings_rows(s, true)];
    let teams: Vec<&pb::TeamStanding> = s.standings.iter().flat_map(|st| &st.teams).collect();
    if !teams.is_empty() {
        let mut rows = vec![header("team_rank,entrants,names,games,wins,losses,draws,points,score")];
        for (rank, t) in teams.into_iter().enumerate() {
            rows.push(vec![
                (rank + 1).to_string(),
                joined(&t.entrants),
                t.names.join(" | "),
                t.games.to_string(),
                t.wins.to_string(),
                t.losses.to_string(),
                t.draws.to_string(),
                t.points.to_string(),
                format!("{:.4}", t.score),
            ]);
        }
        sections.push(rows);
    }
    csv_sections(sections)
}

#[cfg(test)]
mod export_tests {
    use super::*;

    #[test]
    fn csv_has_both_tables_and_quotes_only_what_must_be() {
        let state = pb::TournamentState {
            games: vec![
                pb::TournamentGame {
                    number: 0,
                    round: 1,
                    game_id: "g0".into(),
                    seat0: 0,
                    seat1: 1,
                    deal_seed: 7,
                    done: true,
                    winner: Some(1),
                    totals: vec![12, 130],
                    ..Default::default()
                },
                pb::TournamentGame {
                    number: 1,
                    round: 1,
                    game_id: "g1".into(),
                    seat0: 1,
                    seat1: 0,
                    ..Default::default()
                },
            ],
            standings: Some(pb::Standings {
                rows: vec![pb::Standing {
                    entrant: 1,
                    name: "Smith, \"Bo\"".into(),
                    games: 1,
                    wins: 1,
                    points_for: 130,
                    points_against: 12,
                    score: 1.0,
                    elo: 400.0,
                    elo_low: -1.25,
                    elo_high: 801.0,
                    ..Default::default()
                }],
                ..Default::default()
            }),
            ..Default::default()
        };
        let names = ["Zoë".to_string(), "Smith, \"Bo\"".to_string()];
        assert_eq!(
            export_csv(&state, &names),
            "number,round,game_id,seat0,seat0_name,seat1,seat1_name,deal_seed,done,winner_seat,total0,total1\n\
             0,1,g0,0,Zoë,1,\"Smith, \"\"Bo\"\"\",7,true,1,12,130\n\
             1,1,g1,1,\"Smith, \"\"Bo\"\"\",0,Zoë,0,false,,,\n\
             \n\
             rank,entrant,name,games,wins,losses,draws,points_for,points_against,score,elo,elo_low,elo_high\n\
             1,1,\"Smith, \"\"Bo\"\"\",1,1,0,0,130,12,1.0000,400.0,-1.2,801.0\n"
        );
    }

    #[test]
    fn a_team_tournament_exports_every_seat_and_the_partnerships() {
        let state = pb::TournamentState {
            game_format: Some(pb::FormatInfo { kind: "teams".into(), players: 4, ..Default::default() }),
            games: vec![pb::TournamentGame {
                number: 3,
                round: 1,
                game_id: "g3".into(),
                seat0: 2,
                seat1: 0,
                entrants: vec![2, 0, 3, 1],
                deal_seed: 9,
                done: true,
                table_totals: vec![110, -20, 110, -20],
                places: vec![1, 2, 1, 2],
                ..Default::default()
            }],
            standings: Some(pb::Standings {
                rows: vec![pb::Standing {
                    entrant: 2,
                    name: "Zoë".into(),
                    games: 1,
                    wins: 1,
                    score: 1.0,
                    table_points: 110,
                    mean_place: 1.0,
                    ..Default::default()
                }],
                teams: vec![pb::TeamStanding {
                    entrants: vec![2, 3],
                    names: vec!["Zoë".into(), "Di".into()],
                    games: 1,
                    wins: 1,
                    points: 110,
                    score: 1.0,
                    ..Default::default()
                }],
            }),
            ..Default::default()
        };
        let names = ["Al".to_string(), "Bea".to_string(), "Zoë".to_string(), "Di".to_string()];
        assert_eq!(
            export_csv(&state, &names),
            "number,round,game_id,entrants,names,deal_seed,done,places,totals\n\
             3,1,g3,2 0 3 1,Zoë | Al | Di | Bea,9,true,1 2 1 2,110 -20 110 -20\n\
             \n\
             rank,entrant,name,games,wins,losses,draws,points,mean_place,score,elo,elo_low,elo_high\n\
             1,2,Zoë,1,1,0,0,110,1.000,1.0000,0.0,0.0,0.0\n\
             \n\
             team_rank,entrants,names,games,wins,losses,draws,points,score\n\
             1,2 3,Zoë | Di,1,1,0,0,110,1.0000\n"
        );
        let v: serde_json::Value = serde_json::from_str(&export_json(&state, &names)).unwrap();
        assert_eq!(v["games"][0]["seats"], serde_json::json!([2, 0, 3, 1]));
        assert_eq!(v["games"][0]["totals"], serde_json::json!([110, -20, 110, -20]));
        assert_eq!(v["games"][0]["places"], serde_json::json!([1, 2, 1, 2]));
        assert_eq!(v["standings"][0]["table_points"], 110);
        assert_eq!(v["team_standings"][0]["entrants"], serde_json::json!([2, 3]));
        assert_eq!(v["game_format"]["kind"], "teams");
    }
}
