//! A tournament's results as JSON and CSV (`ExportTournament`).

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

/// The results as JSON: the tournament, its standings (best first) and its games.
pub fn export_json(s: &pb::TournamentState, names: &[String]) -> String {
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
            serde_json::json!({
                "rank": rank + 1, "entrant": r.entrant, "name": r.name, "games": r.games,
                "wins": r.wins, "losses": r.losses, "draws": r.draws,
                "points_for": r.points_for, "points_against": r.points_against,
                "score": r.score, "elo": r.elo, "elo_low": r.elo_low, "elo_high": r.elo_high,
            })
        })
        .collect();
    let games: Vec<_> = s
        .games
        .iter()
        .map(|g| {
            serde_json::json!({
                "number": g.number, "round": g.round, "game_id": g.game_id,
                "seats": [g.seat0, g.seat1], "deal_seed": g.deal_seed, "done": g.done,
                "winner_seat": g.winner, "totals": g.totals,
            })
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
    serde_json::to_string_pretty(&v).expect("JSON values serialize")
}

/// The results as CSV: one line per game, a blank line, then one line per standing (best
/// first). Fields are quoted where they must be (a name with a comma, a quote or a line break).
pub fn export_csv(s: &pb::TournamentState, names: &[String]) -> String {
    let name = |e: u32| names.get(e as usize).map_or("", String::as_str).to_owned();
    let opt = |v: Option<u32>| v.map_or(String::new(), |v| v.to_string());
    let mut games = csv::Writer::from_writer(Vec::new());
    let mut rows: Vec<Vec<String>> = vec![
        "number,round,game_id,seat0,seat0_name,seat1,seat1_name,deal_seed,done,winner_seat,total0,total1"
            .split(',')
            .map(String::from)
            .collect(),
    ];
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
    let mut standings = csv::Writer::from_writer(Vec::new());
    let mut table: Vec<Vec<String>> = vec![
        "rank,entrant,name,games,wins,losses,draws,points_for,points_against,score,elo,elo_low,elo_high"
            .split(',')
            .map(String::from)
            .collect(),
    ];
    for (rank, r) in s.standings.iter().flat_map(|st| &st.rows).enumerate() {
        table.push(vec![
            (rank + 1).to_string(),
            r.entrant.to_string(),
            r.name.clone(),
            r.games.to_string(),
            r.wins.to_string(),
            r.losses.to_string(),
            r.draws.to_string(),
            r.points_for.to_string(),
            r.points_against.to_string(),
            format!("{:.4}", r.score),
            format!("{:.1}", r.elo),
            format!("{:.1}", r.elo_low),
            format!("{:.1}", r.elo_high),
        ]);
    }
    let write = |w: &mut csv::Writer<Vec<u8>>, rows: Vec<Vec<String>>| {
        for row in rows {
            w.write_record(&row).expect("writing CSV into memory");
        }
    };
    write(&mut games, rows);
    write(&mut standings, table);
    let mut out = games.into_inner().expect("writing CSV into memory");
    out.push(b'\n');
    out.extend(standings.into_inner().expect("writing CSV into memory"));
    String::from_utf8(out).expect("CSV of UTF-8 text is UTF-8")
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
}
