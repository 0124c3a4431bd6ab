//! The ladder (`LadderService`, `proto/gin/v1/ladder.proto`): a standing rated pool per kind
//! of game where the server seats signed-in programs by rating, all day.
//!
//! [`Client::join_ladder`] queues the account once and waits for its seat;
//! [`Client::play_ladder`] is the whole loop of a ladder program: join, play the game, join
//! again, until told to stop, resuming the account's unfinished games first (a program
//! restarted in the middle of one), joining again after a broken stream, and waiting as the
//! server says when it is rate limited.
//!
//! ```no_run
//! # async fn demo(token: String) -> Result<(), gin_sdk::Error> {
//! use gin_sdk::ladder::{LadderEvent, LadderPlayer, LadderStop};
//! let me = gin_sdk::Client::connect("http://127.0.0.1:50051").await?.with_account_token(Some(token));
//! let mut strategy = gin_strategies::by_name("strong", 1).expect("a strategy");
//! let stop = LadderStop::default();
//! me.play_ladder("gin/standard", LadderPlayer::Two(strategy.as_mut()), None, &stop, &mut |e| {
//!     if let LadderEvent::Played(g) = e {
//!         println!("{}", g.line());
//!     }
//! })
//! .await?;
//! # Ok(())
//! # }
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use gin_proto::v1 as pb;
use gin_proto::v1::ladder_service_client::LadderServiceClient;
use gin_strategies::Strategy;
use tonic::transport::Channel;
use tonic::{Code, Status};

use crate::table::{TableOutcome, TableStrategy};
use crate::{Client, Error, Outcome, transient};

/// Who plays the ladder's games: a two-player strategy (`gin/<preset>` pools) or a table
/// strategy (the pools of three to six, and teams).
pub enum LadderPlayer<'a> {
    /// Two-player gin.
    Two(&'a mut dyn Strategy),
    /// Tables and teams.
    Table(&'a mut dyn TableStrategy),
}

/// How one ladder game went.
#[derive(Clone, Debug)]
pub enum LadderResult {
    /// A two-player game.
    Two(Box<Outcome>),
    /// A table's game.
    Table(Box<TableOutcome>),
}

/// A ladder game played to its end.
#[derive(Clone, Debug)]
pub struct LadderGame {
    /// The seat the ladder gave (`None`: a game resumed after a restart).
    pub matched: Option<pb::LadderMatched>,
    /// How it ended.
    pub result: LadderResult,
}

impl LadderGame {
    /// The game's id.
    pub fn game_id(&self) -> &str {
        match &self.result {
            LadderResult::Two(o) => &o.game_id,
            LadderResult::Table(o) => &o.game_id,
        }
    }

    /// The score of the game for this program: 1 won (first place), 0.5 drawn, 0 lost;
    /// at a table, 1 for first down to 0 for last.
    pub fn score(&self) -> f64 {
        match &self.result {
            LadderResult::Two(o) => o.score(),
            LadderResult::Table(o) => {
                let n = o.totals.len().max(2) as f64;
                if o.place == 0 { 0.5 } else { (n - f64::from(o.place)) / (n - 1.0) }
            }
        }
    }

    /// One line for people.
    pub fn line(&self) -> String {
        match &self.result {
            LadderResult::Two(o) => o.line(),
            LadderResult::Table(o) => format!(
                "{} seat {} of {}: place {} ({} hands)",
                gin_proto::text::printable(&o.game_id),
                o.seat,
                o.players,
                o.place,
                o.hands
            ),
        }
    }
}

/// What [`Client::play_ladder`] tells its caller as it goes.
#[derive(Debug)]
pub enum LadderEvent<'a> {
    /// Waiting in the queue: where the program stands, its rating.
    Queued(&'a pb::LadderQueued),
    /// Seated: the game about to be played.
    Matched(&'a pb::LadderMatched),
    /// An unfinished game of the account found at the start, about to be played on.
    Resuming(&'a str),
    /// A game played to its end.
    Played(&'a LadderGame),
    /// The stream broke or the server refused for now: joining again after this wait.
    Retrying(&'a Status, Duration),
}

/// Tells [`Client::play_ladder`] to stop: it finishes the game in play, if any, and returns
/// instead of joining again (a queued program leaves the queue at once).
#[derive(Clone, Debug, Default)]
pub struct LadderStop(Arc<AtomicBool>);

impl LadderStop {
    /// Asks the loop to stop.
    pub fn stop(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// Whether it was asked to.
    pub fn stopped(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    /// Completes once it is asked to stop (polled every 50 ms).
    async fn wait(&self) {
        while !self.stopped() {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// The ladder pool of a preset or format name and a table size, as `gin-bot ladder --rules
/// --players` and `gin ladder` name it: a two-player preset `P` is `gin/P`; `three-player`
/// and `teams`; `gin-7` and `rummy` with their size (`rummy/4`). An error says what to give.
pub fn pool_of(rules: &str, players: Option<u8>) -> Result<String, String> {
    Ok(match (rules, players) {
        ("three-player" | "teams", None) => rules.to_owned(),
        ("gin-7" | "rummy", Some(n)) => format!("{rules}/{n}"),
        ("gin-7" | "rummy", None) => {
            return Err(format!("--rules {rules}: give the table size with --players"));
        }
        (_, Some(_)) => return Err("--players: only for gin-7 and rummy".into()),
        (preset, None) if engine::PRESETS.contains(&preset) => format!("gin/{preset}"),
        (other, None) => {
            return Err(format!(
                "--rules {}: a preset ({}), three-player, teams, gin-7 or rummy",
                gin_proto::text::printable(other),
                engine::PRESETS.join(", ")
            ));
        }
    })
}

/// How long to wait before joining again after `s`, or `None` when it is not worth it.
fn rejoin_after(s: &Status, attempt: u32) -> Option<Duration> {
    let backoff = Duration::from_millis(200 << attempt.min(6));
    match s.code() {
        // Rate limited: the server may say how long (`retry-after-ms`), else back off.
        Code::ResourceExhausted => Some(
            s.metadata()
                .get("retry-after-ms")
                .and_then(|v| v.to_str().ok()?.parse::<u64>().ok())
                .map_or(backoff.max(Duration::from_secs(1)), Duration::from_millis),
        ),
        // The old stream of this account is still queued until the server sees it closed.
        Code::AlreadyExists => Some(Duration::from_millis(300)),
        _ if transient(s) || s.code() == Code::Aborted => Some(backoff),
        _ => None,
    }
}

impl Client {
    /// The generated ladder client (for calls the SDK does not wrap); send its requests
    /// through [`Client::request`] to carry the account token.
    pub fn ladders(&self) -> LadderServiceClient<Channel> {
        LadderServiceClient::new(self.channel())
    }

    /// Every pool's ladder: how many wait, the expected wait.
    pub async fn list_ladders(&self) -> Result<pb::ListLaddersResponse, Error> {
        self.retry("ListLadders", self.opts.call_timeout, transient, || {
            let (mut c, req) = (self.ladders(), self.request(pb::ListLaddersRequest {}));
            async move { c.list_ladders(req).await.map(|r| r.into_inner()) }
        })
        .await
    }

    /// Queues the account in `pool`'s ladder and waits for its seat, calling `on_queued` with
    /// each progress message. A stream that breaks (or a rate limit) is joined again after a
    /// wait, within [`crate::Options::retry_for`] without progress; `stop` leaves the queue
    /// and returns `Ok(None)`.
    pub async fn join_ladder(
        &self,
        pool: &str,
        stop: &LadderStop,
        on_event: &mut (dyn FnMut(LadderEvent<'_>) + Send),
    ) -> Result<Option<pb::LadderMatched>, Error> {
        let mut attempt = 0u32;
        let mut progress = Instant::now();
        loop {
            if stop.stopped() {
                return Ok(None);
            }
            let failed = {
                let req = self.request(pb::JoinLadderRequest { pool: pool.to_owned() });
                let mut client = self.ladders();
                let opened = tokio::select! {
                    r = client.join_ladder(req) => r,
                    () = stop.wait() => return Ok(None),
                };
                match opened {
                    Err(s) => s,
                    Ok(stream) => {
                        let mut stream = stream.into_inner();
                        loop {
                            let next = tokio::select! {
                                m = tokio::time::timeout(self.opts.idle_timeout, stream.message()) => m,
                                () = stop.wait() => return Ok(None),
                            };
                            let m = match next {
                                Err(_) => {
                                    break Status::deadline_exceeded("the ladder said nothing for too long");
                                }
                                Ok(Err(s)) => break s,
                                Ok(Ok(None)) => {
                                    break Status::unavailable("the ladder's stream ended unseated");
                                }
                                Ok(Ok(Some(m))) => m,
                            };
                            progress = Instant::now();
                            attempt = 0;
                            match m.event {
                                Some(pb::join_ladder_response::Event::Queued(q)) => {
                                    on_event(LadderEvent::Queued(&q))
                                }
                                Some(pb::join_ladder_response::Event::Matched(m)) => return Ok(Some(m)),
                                None => {}
                            }
                        }
                    }
                }
            };
            let wait = match rejoin_after(&failed, attempt) {
                Some(w) if progress.elapsed() < self.opts.retry_for => w,
                _ => return Err(Error::Rpc { what: "JoinLadder", status: failed }),
            };
            on_event(LadderEvent::Retrying(&failed, wait));
            attempt += 1;
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = stop.wait() => return Ok(None),
            }
        }
    }

    /// The ladder loop: plays `pool`'s ladder with `player` until `stop` (finishing the game
    /// in play) or until `games` games are played, and returns how many were. First plays on
    /// any unfinished game of the account (a restart in the middle of one), with the account
    /// token; then joins, plays the game it is seated in, and joins again. Needs an account
    /// token ([`Client::with_account_token`]).
    pub async fn play_ladder(
        &self,
        pool: &str,
        mut player: LadderPlayer<'_>,
        games: Option<u64>,
        stop: &LadderStop,
        on_event: &mut (dyn FnMut(LadderEvent<'_>) + Send),
    ) -> Result<u64, Error> {
        let token = self
            .account_token()
            .ok_or_else(|| Error::Protocol("the ladder needs an account token (with_account_token)".into()))?
            .to_owned();
        let mut played = 0u64;
        let more = |played: u64| games.is_none_or(|g| played < g) && !stop.stopped();
        for id in self.unfinished_games().await? {
            if !more(played) {
                return Ok(played);
            }
            on_event(LadderEvent::Resuming(&id));
            let result = self.play_ladder_game(&id, &token, &mut player).await?;
            let g = LadderGame { matched: None, result };
            on_event(LadderEvent::Played(&g));
            played += 1;
        }
        while more(played) {
            let Some(m) = self.join_ladder(pool, stop, on_event).await? else { break };
            on_event(LadderEvent::Matched(&m));
            let result = self.play_ladder_game(&m.game_id, &m.seat_token, &mut player).await?;
            let g = LadderGame { matched: Some(m), result };
            on_event(LadderEvent::Played(&g));
            played += 1;
        }
        Ok(played)
    }

    /// Plays one game of the ladder to its end.
    async fn play_ladder_game(
        &self,
        game_id: &str,
        token: &str,
        player: &mut LadderPlayer<'_>,
    ) -> Result<LadderResult, Error> {
        Ok(match player {
            LadderPlayer::Two(s) => LadderResult::Two(Box::new(self.play(game_id, token, *s).await?)),
            LadderPlayer::Table(s) => {
                LadderResult::Table(Box::new(self.play_table(game_id, token, *s).await?))
            }
        })
    }

    /// The account's unfinished games among its newest 100, oldest first.
    async fn unfinished_games(&self) -> Result<Vec<String>, Error> {
        let page = self.list_player_games("", 100, "").await?;
        Ok(page.games.iter().rev().filter(|g| g.finished_unix_ms == 0).map(|g| g.game_id.clone()).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pool_comes_from_the_rules_and_the_table_size() {
        assert_eq!(pool_of("standard", None).unwrap(), "gin/standard");
        assert_eq!(pool_of("oklahoma", None).unwrap(), "gin/oklahoma");
        assert_eq!(pool_of("teams", None).unwrap(), "teams");
        assert_eq!(pool_of("rummy", Some(4)).unwrap(), "rummy/4");
        assert!(pool_of("rummy", None).unwrap_err().contains("--players"));
        assert!(pool_of("standard", Some(3)).is_err());
        assert!(pool_of("nonsense", None).unwrap_err().contains("a preset"));
    }

    #[test]
    fn a_rate_limit_waits_as_the_server_says_and_a_refusal_is_not_retried() {
        let mut limited = Status::resource_exhausted("slow down");
        limited.metadata_mut().insert("retry-after-ms", "1234".parse().expect("ascii"));
        assert_eq!(rejoin_after(&limited, 0), Some(Duration::from_millis(1234)));
        assert_eq!(rejoin_after(&Status::resource_exhausted("slow down"), 0), Some(Duration::from_secs(1)));
        assert_eq!(rejoin_after(&Status::already_exists("queued"), 3), Some(Duration::from_millis(300)));
        assert_eq!(rejoin_after(&Status::unavailable("gone"), 2), Some(Duration::from_millis(800)));
        assert_eq!(rejoin_after(&Status::invalid_argument("pool"), 0), None);
        assert_eq!(rejoin_after(&Status::unauthenticated("who"), 0), None);
    }
}
