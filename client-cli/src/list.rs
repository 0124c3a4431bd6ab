//! `gin list`: the open games as lines of text (pure, so a test can feed it a hostile
//! server's answer). Every text of the server goes through [`shown`].

use gin_proto::v1 as pb;

use crate::table::shown;

/// One line per open game: `<id>  <rules> to <target>[, N s a turn]  waiting: <names>`, and a
/// warning when its creator chose the seed (fixed deals); a hint when there is none.
pub fn lines(games: &[pb::OpenGame]) -> Vec<String> {
    if games.is_empty() {
        return vec!["no open games (start one: gin play --create)".into()];
    }
    games
        .iter()
        .map(|g| {
            // A table of another format: its name and size, and the free seats.
            let rules = match (&g.format, &g.rules) {
                (Some(f), None) => {
                    let free = g.seats.iter().filter(|s| !s.taken).count();
                    format!("{} for {} ({free} free)", shown(&f.name), f.players)
                }
                (_, Some(r)) => format!("{} to {}", shown(&r.name), r.target),
                (None, None) => "?".to_string(),
            };
            let players: Vec<String> = g.seats.iter().filter(|s| s.taken).map(|s| shown(&s.name)).collect();
            let clock = g
                .clock
                .as_ref()
                .filter(|c| c.turn_millis > 0)
                .map_or(String::new(), |c| format!(", {} s a turn", c.turn_millis / 1000));
            let fixed = if g.fixed_deals {
                "  FIXED DEALS: its creator chose the seed and may know every hand \
                 (join with --accept-fixed-deals)"
            } else {
                ""
            };
            format!("{}  {rules}{clock}  waiting: {}{fixed}", shown(&g.game_id), players.join(", "))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_table_of_another_format_says_its_size_and_free_seats() {
        let seat = |seat, name: &str| gin_proto::v1::SeatInfo {
            seat,
            name: name.into(),
            taken: !name.is_empty(),
            ..Default::default()
        };
        let game = gin_proto::v1::OpenGame {
            game_id: "r4".into(),
            format: Some(gin_proto::v1::FormatInfo {
                kind: "rummy".into(),
                players: 4,
                name: "rummy (4 players)".into(),
                ..Default::default()
            }),
            seats: vec![seat(0, "ann"), seat(1, "bo"), seat(2, ""), seat(3, "")],
            ..Default::default()
        };
        assert_eq!(super::lines(&[game]), ["r4  rummy (4 players) for 4 (2 free)  waiting: ann, bo"]);
    }

    #[test]
    fn a_game_with_fixed_deals_says_so() {
        let game = |fixed_deals| gin_proto::v1::OpenGame {
            game_id: "g".into(),
            rules: Some(gin_proto::v1::RuleSet {
                name: "standard".into(),
                target: 100,
                ..Default::default()
            }),
            seats: vec![gin_proto::v1::SeatInfo {
                seat: 0,
                name: "ann".into(),
                taken: true,
                bot: false,
                team: None,
                entrant: false,
                ..Default::default()
            }],
            fixed_deals,
            ..Default::default()
        };
        let lines = super::lines(&[game(true), game(false)]);
        assert!(lines[0].ends_with("FIXED DEALS: its creator chose the seed and may know every hand (join with --accept-fixed-deals)"), "{lines:?}");
        assert_eq!(lines[1], "g  standard to 100  waiting: ann");
    }
}
