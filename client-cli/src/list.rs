//! `gin list`: the open games as lines of text (pure, so a test can feed it a hostile
//! server's answer). Every text of the server goes through [`shown`].

use gin_proto::v1 as pb;

use crate::table::shown;

/// One line per open game: `<id>  <rules> to <target>[, N s a turn]  waiting: <names>`, or a
/// hint when there is none.
pub fn lines(games: &[pb::OpenGame]) -> Vec<String> {
    if games.is_empty() {
        return vec!["no open games (start one: gin play --create)".into()];
    }
    games
        .iter()
        .map(|g| {
            let rules =
                g.rules.as_ref().map_or("?".to_string(), |r| format!("{} to {}", shown(&r.name), r.target));
            let players: Vec<String> = g.seats.iter().filter(|s| s.taken).map(|s| shown(&s.name)).collect();
            let clock = g
                .clock
                .as_ref()
                .filter(|c| c.turn_millis > 0)
                .map_or(String::new(), |c| format!(", {} s a turn", c.turn_millis / 1000));
            format!("{}  {rules}{clock}  waiting: {}", shown(&g.game_id), players.join(", "))
        })
        .collect()
}
