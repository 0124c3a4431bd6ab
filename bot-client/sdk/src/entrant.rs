//! A tournament entrant: enters a server-run tournament and plays every game it is assigned,
//! each with a fresh strategy, many at once; re-enters with its entrant token when the
//! stream drops (a server restart included).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use backon::{BackoffBuilder, ExponentialBuilder};
use gin_proto::text::printable;
use gin_proto::v1 as pb;
use gin_proto::v1::join_tournament_response::Kind;
use gin_proto::v1::tournament_service_client::TournamentServiceClient;
use gin_strategies::by_name;
use gin_strategies::rng::derive;
use tokio::task::{AbortHandle, JoinSet};
use tonic::Code;

use crate::table::{TableOutcome, table_strategy_for};
use crate::{Client, Error, Outcome};

/// What an entrant reports as it goes.
#[derive(Debug)]
pub enum EntrantEvent {
    /// Entered (or re-entered) as entrant `entrant`; `token` re-enters.
    Entered {
        /// Entrant index.
        entrant: u32,
        /// The entrant token (secret).
        token: String,
        /// Entrants joined so far.
        joined: u32,
        /// Entrants needed.
        needed: u32,
    },
    /// A two-player game ended.
    Played(Outcome),
    /// A table game ended.
    PlayedTable(TableOutcome),
    /// A game could not be played to its end.
    Failed {
        /// The game.
        game_id: String,
        /// Why.
        error: String,
    },
}

/// Which tournament to enter, as whom, and on what terms.
#[derive(Clone, Debug, Default)]
pub struct Entry {
    /// The tournament.
    pub tournament_id: String,
    /// The entrant's display name.
    pub name: String,
    /// Re-enter as this entrant (the token it got when it first entered). An account token
    /// (`gin_at_…`, told by its prefix: [`crate::is_account_token`]) here is taken as the
    /// account's instead: the entrant is the account (as with a client signed in,
    /// [`Client::with_account_token`]).
    pub token: Option<String>,
    /// Enter even though the tournament's creator chose its seed and may know every deal
    /// (the server refuses a new entrant of such a tournament without it).
    pub accept_fixed_deals: bool,
}

/// Who plays an entrant's games: a built-in strategy by name ([`play_tournament`]) or any
/// other player ([`play_tournament_with`]; the bridge's bot program:
/// [`crate::bridge::BridgeEntrant`]).
pub trait EntrantPlayer: Send + Sync + 'static {
    /// Whether it can play the tournament's games, said before entering: `table` is the kind
    /// of its format at tables (`rummy`, `teams`, …), `None` for two-player gin.
    fn check(&self, table: Option<&str>) -> Result<(), Error>;

    /// Plays the seat of `token` in `game_id` to the end: the `n`th game this entrant was
    /// assigned (from 1), at a table of kind `table` or at two-player gin (`None`). Many
    /// games may be in play at once: a player that can play one at a time waits for its turn
    /// here.
    fn play(
        &self,
        client: Client,
        game_id: String,
        token: String,
        table: Option<String>,
        n: u64,
    ) -> PlayFuture;
}

/// A game being played by an [`EntrantPlayer`].
pub type PlayFuture = std::pin::Pin<Box<dyn std::future::Future<Output = Result<Played, Error>> + Send>>;

/// A built-in strategy by name, seeded from `seed` and the game's number of arrival.
struct Named {
    strategy: String,
    seed: u64,
}

impl EntrantPlayer for Named {
    fn check(&self, table: Option<&str>) -> Result<(), Error> {
        match table {
            Some(kind) => table_strategy_for(&self.strategy, kind, 0).map(drop),
            None => by_name(&self.strategy, 0).map(drop).map_err(|e| Error::Strategy(e.to_string())),
        }
    }

    fn play(&self, c: Client, game_id: String, token: String, table: Option<String>, n: u64) -> PlayFuture {
        let (strategy, seed) = (self.strategy.clone(), derive(self.seed, n));
        Box::pin(async move {
            match table {
                Some(kind) => {
                    let mut s = table_strategy_for(&strategy, &kind, seed)?;
                    c.play_table(&game_id, &token, s.as_mut()).await.map(Played::Table)
                }
                None => {
                    let mut s = by_name(&strategy, seed).map_err(|e| Error::Strategy(e.to_string()))?;
                    c.play(&game_id, &token, s.as_mut()).await.map(Played::Gin)
                }
            }
        })
    }
}

/// Enters the tournament `entry` names on `client` (or re-enters with its token) and plays
/// every assignment with the strategy `strategy` (seeded from `seed` and the game's number of
/// arrival), until the final standings, which it returns. A table game (its assignment's
/// format is not two-player gin) is played with the table strategy of that name
/// ([`table_strategy_for`]: `random`, `simple`, `strong` at every table; the other two-player
/// strategies at three players and in teams).
/// [`play_tournament_with`] with that strategy.
pub async fn play_tournament(
    client: &Client,
    entry: Entry,
    strategy: &str,
    seed: u64,
    report: impl FnMut(EntrantEvent) + Send,
) -> Result<pb::Standings, Error> {
    let named = Named { strategy: strategy.to_owned(), seed };
    play_tournament_with(client, entry, std::sync::Arc::new(named), report).await
}

/// Enters the tournament `entry` names on `client` (or re-enters with its token) and plays
/// every assignment with `player`, until the final standings, which it returns. The player
/// is asked first whether it can play the tournament's games ([`EntrantPlayer::check`]).
/// Transient failures (a dropped stream, a restarting server, a rate limit: no sooner than
/// its `retry-after-ms`) are retried, with jittered waits, for the client's `retry_for`.
pub async fn play_tournament_with(
    client: &Client,
    entry: Entry,
    player: std::sync::Arc<dyn EntrantPlayer>,
    mut report: impl FnMut(EntrantEvent) + Send,
) -> Result<pb::Standings, Error> {
    let Entry { tournament_id: tid, name, mut token, accept_fixed_deals } = entry;
    // An account token where the entrant token goes: the account enters (its bearer).
    let signed_in;
    let client = match token.take_if(|t| crate::is_account_token(t)) {
        Some(account) => {
            signed_in = client.clone().with_account_token(Some(account));
            &signed_in
        }
        None => client,
    };
    // The player must play the tournament's games: a table strategy at tables.
    let state = TournamentServiceClient::new(client.channel())
        .get_tournament(client.request(pb::GetTournamentRequest { tournament_id: tid.clone() }))
        .await
        .ok()
        .and_then(|r| r.into_inner().state);
    let format = state.and_then(|s| s.game_format).filter(|f| !f.kind.is_empty() && f.kind != "gin");
    player.check(format.as_ref().map(|f| f.kind.as_str()))?;
    // Each game started: the token it is played with and its task. A server that restarted
    // keeps no seat token: it hands a game in play again with a new one, and the game is
    // played on with that (the old token identifies nobody any more).
    let mut started: HashMap<String, Started> = HashMap::new();
    let mut games: JoinSet<(String, Result<Played, Error>)> = JoinSet::new();
    let mut since = Instant::now();
    // The waits before re-entering, from the first again after any message.
    let mut waits = rejoin_backoff().build();
    loop {
        let mut t = TournamentServiceClient::new(client.channel());
        let req = client.request(pb::JoinTournamentRequest {
            tournament_id: tid.clone(),
            name: name.clone(),
            entrant_token: token.clone().unwrap_or_default(),
            accept_fixed_deals,
        });
        let mut stream = match t.join_tournament(req).await {
            Ok(s) => s.into_inner(),
            Err(s) if retryable(&s) && since.elapsed() < client.options().retry_for => {
                // A rate limit's `retry-after-ms` is a floor under the (jittered) wait.
                let next = crate::honour_retry_after(&s, Some(next_wait(&mut waits)));
                tokio::time::sleep(next.unwrap_or(Duration::from_secs(2))).await;
                continue;
            }
            Err(status) => return Err(Error::Rpc { what: "JoinTournament", status }),
        };
        loop {
            tokio::select! {
                m = stream.message() => match m {
                    Ok(Some(msg)) => {
                        since = Instant::now();
                        waits = rejoin_backoff().build();
                        match msg.kind {
                            Some(Kind::Entered(e)) => {
                                token = Some(e.entrant_token.clone());
                                report(EntrantEvent::Entered {
                                    entrant: e.entrant,
                                    token: e.entrant_token,
                                    joined: e.joined,
                                    needed: e.needed,
                                });
                            }
                            Some(Kind::Assignment(a)) => {
                                let n = match started.get(&a.game_id) {
                                    None => started.len() as u64 + 1,
                                    Some(g) if g.token == a.seat_token => continue,
                                    Some(g) if g.refused == a.seat_token => {
                                        // Refused, and handed again: not a restart.
                                        let error = format!("seat token refused for game {}", a.game_id);
                                        report(EntrantEvent::Failed { game_id: a.game_id, error });
                                        continue;
                                    }
                                    Some(g) => {
                                        g.task.abort();
                                        g.n
                                    }
                                };
                                let c = client.clone();
                                let (id, token) = (a.game_id.clone(), a.seat_token.clone());
                                let table = a.game_format.as_ref().map(|f| f.kind.clone()).filter(|k| !k.is_empty() && k != "gin");
                                let play = player.play(c, a.game_id.clone(), a.seat_token, table, n);
                                let game_id = a.game_id;
                                let task = games.spawn(async move { (game_id, play.await) });
                                started.insert(id, Started { token, refused: String::new(), task, n });
                            }
                            Some(Kind::Finished(st)) => {
                                while let Some(r) = games.join_next_with_id().await {
                                    report_game(&mut report, &mut started, r);
                                }
                                return Ok(st);
                            }
                            None => {}
                        }
                    }
                    // The stream ended or failed: re-enter with the token.
                    Ok(None) => break,
                    Err(s) if retryable(&s) => break,
                    Err(status) => return Err(Error::Rpc { what: "JoinTournament stream", status }),
                },
                Some(r) = games.join_next_with_id(), if !games.is_empty() => {
                    if report_game(&mut report, &mut started, r) {
                        // Its token is unknown: the server restarted and will hand the game
                        // again with a new one once this entrant re-enters.
                        break;
                    }
                }
            }
        }
        if since.elapsed() >= client.options().retry_for {
            return Err(Error::Rpc {
                what: "JoinTournament",
                status: tonic::Status::unavailable("the tournament stream kept failing"),
            });
        }
        tokio::time::sleep(next_wait(&mut waits)).await;
    }
}

/// The waits before re-entering a tournament: 50 ms doubling up to 2 s, each plus a random
/// 0–100 % of it (so that the entrants of a tournament, cut off together by a restart, do
/// not come back in step), no limit on their number (the caller stops after `retry_for`
/// without a message).
fn rejoin_backoff() -> ExponentialBuilder {
    ExponentialBuilder::new()
        .with_min_delay(Duration::from_millis(50))
        .with_factor(2.0)
        .with_max_delay(Duration::from_secs(2))
        .with_jitter()
        .without_max_times()
}

fn next_wait(waits: &mut <ExponentialBuilder as BackoffBuilder>::Backoff) -> Duration {
    waits.next().unwrap_or(Duration::from_secs(2))
}

/// A game played to its end.
pub enum Played {
    /// A two-player game.
    Gin(Outcome),
    /// A table game.
    Table(TableOutcome),
}

/// A game this entrant started.
struct Started {
    /// The seat token it is played with.
    token: String,
    /// The token the server refused, if it did.
    refused: String,
    /// Its task.
    task: AbortHandle,
    /// Its number among the games started (its strategy's seed).
    n: u64,
}

/// A task's end, as [`JoinSet::join_next_with_id`] gives it.
type Ended = Result<(tokio::task::Id, (String, Result<Played, Error>)), tokio::task::JoinError>;

/// Reports a game's task that ended; true when it ended because the server no longer knows
/// its seat token (it restarted, and keeps no token): then it is not reported, and its token
/// is forgotten so that the new one the server hands on re-entry starts it again. A task that
/// is no longer its game's (replaced for a new token, aborted or not) is not reported at
/// all: its game is the newer task's, whose token a stale refusal must not mark refused.
fn report_game(
    report: &mut impl FnMut(EntrantEvent),
    started: &mut HashMap<String, Started>,
    r: Ended,
) -> bool {
    let current = |game_id: &str, id| started.get(game_id).is_some_and(|g| g.task.id() == id);
    match r {
        Ok((id, (game_id, _))) if !current(&game_id, id) => {}
        Ok((_, (_, Ok(Played::Gin(o))))) => report(EntrantEvent::Played(o)),
        Ok((_, (_, Ok(Played::Table(o))))) => report(EntrantEvent::PlayedTable(o)),
        Ok((_, (game_id, Err(Error::Rpc { status, .. })))) if status.code() == Code::Unauthenticated => {
            if let Some(g) = started.get_mut(&game_id) {
                g.refused = std::mem::take(&mut g.token);
            }
            return true;
        }
        Ok((_, (game_id, Err(e)))) => report(EntrantEvent::Failed { game_id, error: e.to_string() }),
        Err(e) if e.is_cancelled() => {}
        Err(e) => {
            // A task that panicked: its game, if it still was the game's task.
            let Some(game_id) = started.iter().find(|(_, g)| g.task.id() == e.id()).map(|(k, _)| k.clone())
            else {
                return false;
            };
            report(EntrantEvent::Failed { game_id, error: e.to_string() });
        }
    }
    false
}

/// A tournament stream's failures worth re-entering after: the client's transient ones (the
/// server away, a timeout, a rate limit) and any HTTP/2 error.
fn retryable(s: &tonic::Status) -> bool {
    crate::transient(s) || (s.code() == Code::Internal && s.message().contains("h2"))
}

/// The standings as a text table (the server's text escaped).
pub fn standings_table(st: &pb::TournamentState) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let status = match pb::TournamentStatus::try_from(st.status) {
        Ok(pb::TournamentStatus::Waiting) => "waiting for entrants",
        Ok(pb::TournamentStatus::Running) => "running",
        Ok(pb::TournamentStatus::Finished) => "finished",
        _ => "unknown",
    };
    let name = printable(st.spec.as_ref().map(|p| p.name.as_str()).unwrap_or(""));
    let _ = writeln!(
        s,
        "tournament {}{}: {status}, {}/{} games",
        printable(&st.tournament_id),
        if name.is_empty() { String::new() } else { format!(" ({name})") },
        st.games_done,
        st.games_total
    );
    if !st.sprt_state.is_empty() {
        let _ = writeln!(
            s,
            "SPRT: {} (LLR {:.2}, bounds {:.2} .. {:.2})",
            printable(&st.sprt_state),
            st.sprt_llr,
            st.sprt_lower,
            st.sprt_upper
        );
    }
    let tables = st.game_format.as_ref().is_some_and(|f| !f.kind.is_empty() && f.kind != "gin");
    if let Some(f) = st.game_format.as_ref().filter(|_| tables) {
        let _ = writeln!(s, "games: {} for {}", printable(&f.name), f.players);
    }
    // Two-player: points for and against; tables: the summed totals and the mean place.
    let (p1, p2) = if tables { ("points", "place") } else { ("pts for", "pts agn") };
    let _ = writeln!(
        s,
        "{:>4}  {:<20}{:>6}{:>6}{:>6}{:>6}{:>9}{:>9}{:>8}  {:<26}",
        "rank", "entrant", "games", "wins", "loss", "draw", p1, p2, "score", "Elo [95%]"
    );
    for (i, r) in st.standings.iter().flat_map(|x| &x.rows).enumerate() {
        let (c1, c2) = if tables {
            (r.table_points.to_string(), format!("{:.2}", r.mean_place))
        } else {
            (r.points_for.to_string(), r.points_against.to_string())
        };
        let _ = writeln!(
            s,
            "{:>4}  {:<20}{:>6}{:>6}{:>6}{:>6}{:>9}{:>9}{:>7.1}%  {:+.0} [{:+.0}, {:+.0}]",
            i + 1,
            format!("{} #{}", printable(&r.name), r.entrant),
            r.games,
            r.wins,
            r.losses,
            r.draws,
            c1,
            c2,
            100.0 * r.score,
            r.elo,
            r.elo_low,
            r.elo_high
        );
    }
    let teams: Vec<&pb::TeamStanding> = st.standings.iter().flat_map(|x| &x.teams).collect();
    if !teams.is_empty() {
        let _ = writeln!(
            s,
            "\n{:>4}  {:<32}{:>6}{:>6}{:>6}{:>6}{:>9}{:>8}",
            "rank", "partners", "games", "wins", "loss", "draw", "points", "score"
        );
        for (i, t) in teams.into_iter().enumerate() {
            let who: Vec<String> =
                t.names.iter().zip(&t.entrants).map(|(n, e)| format!("{} #{e}", printable(n))).collect();
            let _ = writeln!(
                s,
                "{:>4}  {:<32}{:>6}{:>6}{:>6}{:>6}{:>9}{:>7.1}%",
                i + 1,
                who.join(" & "),
                t.games,
                t.wins,
                t.losses,
                t.draws,
                t.points,
                100.0 * t.score
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use gin_proto::text::refused;

    /// A game's task replaced by a newer one (the server handed the game again with a new
    /// token) and refused meanwhile: its end is not the newer task's. Before, its refusal
    /// marked the newer task's token refused, and when the server handed that token again,
    /// the entrant reported the game failed (a tournament test's flake after a restart).
    #[tokio::test]
    async fn a_replaced_games_refusal_is_not_its_successors() {
        let mut games: JoinSet<(String, Result<Played, Error>)> = JoinSet::new();
        let unauthenticated = || {
            Err(Error::Rpc {
                what: "WatchGame",
                status: tonic::Status::unauthenticated("unknown seat token"),
            })
        };
        // The old task (the token from before the restart) is refused at once.
        let old = games.spawn(async move { ("g".to_owned(), unauthenticated()) });
        tokio::task::yield_now().await;
        // Its successor, started with the token handed on re-entry, is still playing.
        let (go, wait) = tokio::sync::oneshot::channel::<()>();
        let new = games.spawn(async move {
            let _ = wait.await;
            ("g".to_owned(), unauthenticated())
        });
        // Aborted once handed the new token, but it had ended already: its end is a refusal.
        old.abort();
        let mut started = HashMap::new();
        started
            .insert("g".to_owned(), Started { token: "T1".into(), refused: String::new(), task: new, n: 1 });
        let mut reported = Vec::new();
        let ended = games.join_next_with_id().await.expect("the old task ended");
        assert!(!report_game(&mut |e| reported.push(e), &mut started, ended), "no re-entry for a stale end");
        assert!(reported.is_empty(), "{reported:?}");
        assert_eq!((started["g"].token.as_str(), started["g"].refused.as_str()), ("T1", ""));
        // The game's own task refused: re-enter, its token marked refused.
        go.send(()).expect("the new task waits");
        let ended = games.join_next_with_id().await.expect("the new task ended");
        assert!(report_game(&mut |e| reported.push(e), &mut started, ended), "re-enter for a new token");
        assert!(reported.is_empty(), "{reported:?}");
        assert_eq!((started["g"].token.as_str(), started["g"].refused.as_str()), ("", "T1"));
    }

    #[test]
    fn standings_from_a_hostile_server_print_escaped() {
        let row = |entrant: u32, name: &str| pb::Standing {
            entrant,
            name: name.into(),
            games: 2,
            ..Default::default()
        };
        let st = pb::TournamentState {
            tournament_id: "t1\x1b[2J".into(),
            spec: Some(pb::TournamentSpec { name: "cup\x1b]0;pwned\x07".into(), ..Default::default() }),
            status: pb::TournamentStatus::Running as i32,
            standings: Some(pb::Standings {
                rows: vec![row(0, "\u{202e}ecila"), row(1, "\u{9b}31mbob\u{200d}"), row(2, "Łukasz 李雷")],
                teams: vec![pb::TeamStanding {
                    entrants: vec![0, 1],
                    names: vec!["\u{202e}ecila".into(), "\u{9b}31mbob\u{200d}".into()],
                    games: 2,
                    ..Default::default()
                }],
            }),
            game_format: Some(pb::FormatInfo {
                kind: "teams".into(),
                players: 4,
                name: "teams\x1b[2J".into(),
                ..Default::default()
            }),
            sprt_state: "continue\u{2028}".into(),
            ..Default::default()
        };
        let table = standings_table(&st);
        for line in table.lines() {
            assert!(!line.chars().any(refused), "{line:?}");
        }
        assert!(table.starts_with("tournament t1\\u{1b}[2J (cup\\u{1b}]0;pwned\\u{7}): running"), "{table}");
        assert!(table.contains("\\u{202e}ecila #0"), "{table}");
        assert!(table.contains("\\u{9b}31mbob\\u{200d} #1"), "{table}");
        assert!(table.contains("Łukasz 李雷 #2"), "{table}");
        assert!(table.contains("games: teams\\u{1b}[2J for 4"), "{table}");
        assert!(table.contains("\\u{202e}ecila #0 & \\u{9b}31mbob\\u{200d} #1"), "{table}");
        assert!(table.contains("points"), "tables show their totals: {table}");
    }
}
