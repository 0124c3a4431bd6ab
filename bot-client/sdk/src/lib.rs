//! The network bot SDK: implement [`Strategy`] (the `gin-strategies` crate), get a bot that
//! plays on a gin server. `gin-bot`, the terminal client `gin` and third-party Rust bots use
//! it.
//!
//! A [`Client`] connects (`http://` or `https://`), seats the bot ([`Client::quick_match`],
//! [`Client::create_game`], [`Client::join_game`], or a seat token you already hold) and
//! [`Client::play`]s the seat to game over:
//!
//! - it reads the seat's event stream from the game's first event, so the strategy's
//!   [`Memory`](gin_strategies::Memory) is exact even when it joins a game in progress (a
//!   restarted bot process, say), and builds each [`Decision`](gin_strategies::Decision)
//!   from the seat's own view only ([`SeatTracker`]);
//! - when its `TurnStarted` event arrives with the legal actions, it asks the strategy and
//!   sends the action with `expected_seq` = the last seq it saw; an action outside the legal
//!   list is replaced by a safe legal one (with a warning);
//! - a dropped or idle stream is reopened with `resume_after_seq` (no gap, no duplicate);
//!   transient failures (`UNAVAILABLE`, a call that timed out, a rate limit) are retried with
//!   backoff for up to [`Options::retry_for`] without progress, across a server restart too
//!   (`CreateGame` and `JoinGame` only when the refusal says nothing was done:
//!   [`nothing_done`]);
//!   an `ABORTED` action (stale seq: nothing was applied) resyncs from the stream, and the
//!   strategy decides again at the seat's next turn event.
//!
//! Strategies are synchronous; on a multi-threaded tokio runtime each decision runs under
//! `block_in_place`, so a slow strategy does not stall other games of the same process.
//!
//! Signed in ([`Client::with_account_token`]), lobby and tournament calls carry the account
//! token, and the seats taken are the account's; [`account`] wraps the account calls.
//!
//! Beside the client: [`tracker`] (one seat's view folded from its events), [`bridge`] (a
//! program in any language plays through a line protocol on its stdin/stdout: `gin-bot
//! bridge`) and [`entrant`] (a tournament entrant playing every game it is assigned).
//!
//! ```no_run
//! # async fn demo() -> Result<(), gin_sdk::Error> {
//! use gin_sdk::{Client, preset};
//! let client = Client::connect("http://127.0.0.1:50051").await?;
//! let seat = client.quick_match(preset("standard"), "my-bot").await?;
//! let mut bot = gin_strategies::by_name("simple", 1).unwrap(); // or your own `impl Strategy`
//! let outcome = client.play(&seat.game_id, &seat.token, bot.as_mut()).await?;
//! println!("{}", outcome.line());
//! # Ok(()) }
//! ```
//!
//! What [`Client::play`] does with each event of the seat's stream, without a server: the
//! tracker folds it, and the seat's turn is a decision for any strategy.
//!
//! ```
//! use engine::{RuleSet, Seat};
//! use gin_proto::v1::{self as pb, game_event::Kind};
//! use gin_sdk::SeatTracker;
//!
//! let ev = |seq, kind| pb::GameEvent { seq, time_unix_ms: 0, kind: Some(kind) };
//! let mut t = SeatTracker::new(Seat::S0, RuleSet::standard(), 1);
//! let dealt = pb::HandDealt {
//!     upcard: "QS".into(),
//!     your_hand: "AC 2C 3C 4D 5D 6D 7H 8H 9H KS".split(' ').map(String::from).collect(),
//!     stock_size: 31,
//!     knock_limit: 10,
//!     ..Default::default()
//! };
//! t.apply(&ev(2, Kind::HandDealt(dealt))).unwrap();
//! let offer = |kind: pb::ActionKind| pb::LegalAction { kind: kind as i32, ..Default::default() };
//! let turn = pb::TurnInfo {
//!     legal_actions: vec![offer(pb::ActionKind::PassUpcard), offer(pb::ActionKind::TakeUpcard)],
//!     ..Default::default()
//! };
//! t.apply(&ev(3, Kind::TurnStarted(pb::TurnStarted { seat: 0, turn: Some(turn), ..Default::default() })))
//!     .unwrap();
//! let d = t.decision().expect("seat 0 is to act");
//! let action = gin_strategies::by_name("simple", 1).unwrap().act(&d);
//! assert!(gin_strategies::is_listed(&d.legal, &action));
//! ```
//!
//! ## The files
//!
//! | file | what it holds |
//! |---|---|
//! | `lib.rs` | the network bot: `Client` (connect over http/https, quick match (`quick_match_with`: or a house bot), create/join (`*_table`: at any format, `TableSeated` past seat 1; the two-player calls hand such a seat back in `Error::TableSeat`), `play`, `play_observed` with an event callback, `resign`; for other clients: `watch`, `act`, `list_games`, `get_record`), `play_seat`, `Outcome`, retries through `backon` (exponential backoff with jitter within `retry_for`; a `retry-after-ms` hint is a floor, plus at most a quarter of it), stream resume, resync on ABORTED |
//! | `tracker.rs` | `SeatTracker`: one seat's events (as that seat receives them) folded into `Decision`s |
//! | `table.rs` | any table over the network: `TableTracker` (a seat's cards, each table's pile, rummy's melds, totals, its pending turn, from its snapshot and events; team play's tables by the seats each `HandDealt` names), `TableStrategy` with `random` and `simple` deciding among the legal moves the turn carries, `strong` at every table, and every two-player strategy (`strong`, `strong-v1`, the styles) at tables of two-player hands (three players, teams: the tracker keeps the seat's `Memory` of its hand from the deal, this seat `S0`, with what each opponent's showdowns in the seat's earlier hands showed of it (`showdowns_of`, from the `TableHandEnded` results it saw), and builds a two-player `Decision`); at gin-7 and rummy `strong` is the house's table search on the hand rebuilt from the seat's view (`gin7_view`/`rummy_view` → `Gin7Hand::from_view`/`RummyHand::from_view`), its move mapped back to one of the turn's legal moves (`simple`'s if none); `table_strategy_for` refuses the other two-player strategies there (`GIN7_RUMMY_STRATEGIES`), `Client::play_table` (from the seat's snapshot, then its stream; a stale move is decided again once the stream brought what happened), `Client::send_legal` (any legal move to its RPC), `TableOutcome` |
//! | `bridge.rs` | the bot bridge library: a program in any language on stdin/stdout. `BotProcess` (the child, with a writer and a reader thread so no wait is without a timeout), `BridgeStrategy` (a `Strategy` that writes the turn and parses the answer; named melds the server refuses go back to the program, `refused <reason>`, through `Strategy::melds_refused`), the protocol's lines (version 2: `event_line` with the showdown before `handover`, `at_line` before each event, `rule_words` on the `game` line, `turn_lines`, `legal_tokens`, `parse_answer`), `OnError` (stop; resign-game: `BotProcess::forgive` lets the next game play; skip: `error <what>` to the program and a safe move; under both, a line that is no move is noted, `take_notes`, and ignored), `play_game` (runs `Client::play_observed`, passing each event on; on a program failure it resigns the game and returns the error), `BridgeEntrant` (the program as a tournament entrant's player, one game at a time; after a failure not forgiven, each later game resigned at once) |
//! | `account.rs` | accounts: `is_account_token` (the `gin_at_` prefix), `seat_name` (a seat's account, `(bot)`, `deleted`, or its guest name; `joined_name` the same from a `PlayerJoined`), the `AccountService` wrappers on `Client` (`register`, `sign_in`, `sign_out`, `who_am_i`, `set_password`, `create_token`, `list_tokens`, `revoke_token`, `export_account`, `delete_account`, `get_account`, `list_player_games`); the account token itself is the `Client`'s (`with_account_token`, sent by `request` on lobby, tournament and account calls) |
//! | `challenge.rs` | challenges (`ChallengeService`): `create_challenge`, `list_challenges`, `watch_challenges`, `accept_challenge`, `decline_challenge`, `cancel_challenge`, and `accept_next_challenge` (watch, accept the first received challenge a filter likes) |
//! | `ladder.rs` | the ladder (`LadderService`): `list_ladders`, `join_ladder` (queue, progress, rejoin after a break or a rate limit), `play_ladder` (the loop: unfinished games first, then join, play, join again, until `LadderStop` or N games; `LadderPlayer` a two-player or table strategy; `LadderEvent`s for progress lines) |
//! | `rating.rs` | ratings (`RatingService`, read only): `leaderboard` (a pool's established ratings, paged), `player_ratings` (an account's rating in each pool), `rating_history` (its rated games in a pool, newest first, paged) |
//! | `entrant.rs` | a tournament entrant: enter (or re-enter with its token), play every assignment concurrently with an `EntrantPlayer` (`play_tournament`: a fresh built-in strategy by name, a table assignment with the table strategy of that name, checked against the tournament's format before entering; `play_tournament_with`: any player, the bridge's program), until the final standings; `standings_table` (the standings as text, the server's text escaped) |
//!
//! The wire's cards, seats and legal actions convert in `gin_proto::convert`, the same code the
//! server writes them with.

pub mod account;
pub mod bridge;
pub mod challenge;
pub mod entrant;
pub mod ladder;
pub mod rating;
pub mod table;
pub mod tracker;

use std::future::Future;
use std::time::{Duration, Instant};

use backon::{BackoffBuilder, ExponentialBuilder, Retryable};
use engine::{Action, Seat};
use gin_proto::convert::{self, WireError};
use gin_proto::text::printable;
use gin_proto::v1 as pb;
use gin_proto::v1::game_service_client::GameServiceClient;
use gin_proto::v1::lobby_service_client::LobbyServiceClient;
use tonic::metadata::MetadataValue;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};
use tonic::{Code, Request, Status};

pub use account::{ACCOUNT_TOKEN_PREFIX, is_account_token, joined_name, seat_name};
use gin_strategies::{Strategy, fallback, is_listed, server_melds};
pub use table::{
    GIN7_RUMMY_STRATEGIES, TableOutcome, TableStrategy, TableTracker, table_strategy, table_strategy_for,
};
pub use tracker::{SeatTracker, TrackError};

/// Connection and retry settings.
#[derive(Clone, Debug)]
pub struct Options {
    /// How long to keep retrying transient failures (calls, streams) without progress
    /// before giving up. Long enough to ride out a server restart.
    pub retry_for: Duration,
    /// How long [`Client::connect`] retries a server that does not answer yet.
    pub connect_for: Duration,
    /// A stream with no message at all (the server sends heartbeats) for this long is
    /// presumed dead and reopened.
    pub idle_timeout: Duration,
    /// Deadline of each unary call (quick match waits longer: up to the server's 60 s).
    pub call_timeout: Duration,
    /// For `https://`: trust this CA certificate (PEM) instead of the system's roots.
    pub ca_cert: Option<Vec<u8>>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            retry_for: Duration::from_secs(120),
            connect_for: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(45),
            call_timeout: Duration::from_secs(20),
            ca_cert: None,
        }
    }
}

/// Why a bot could not play.
#[derive(Debug)]
pub enum Error {
    /// The server address cannot be used.
    BadEndpoint(String),
    /// No connection could be made within [`Options::connect_for`].
    Connect(String),
    /// The server refused a call (a status that retrying does not fix), or transient
    /// failures went on longer than [`Options::retry_for`].
    Rpc {
        /// The call.
        what: &'static str,
        /// The last status.
        status: Status,
    },
    /// The seat token is not a seat of that game (the server sees a spectator).
    NotSeated,
    /// The server's messages contradict each other.
    Protocol(String),
    /// No such strategy, or none for this format (said before anything is sent).
    Strategy(String),
    /// A two-player lobby call (`call`) was given a table's seat past 1: the server seated
    /// the caller, and the seat is here, to be played as a table's (`table_call` takes such
    /// seats in the first place).
    TableSeat {
        /// The two-player call.
        call: &'static str,
        /// The call for tables.
        table_call: &'static str,
        /// The seat taken.
        seated: TableSeated,
    },
    /// The player of a game (the bridge's bot program) failed it: it answered badly or late,
    /// or is gone. The game was resigned.
    Player(String),
}

/// The server's words (a status message, what it sent) are shown escaped
/// ([`gin_proto::text::printable`]): any server may send anything.
impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::BadEndpoint(e) => write!(f, "bad server address: {e}"),
            Error::Connect(e) => write!(f, "cannot connect: {e}"),
            Error::Rpc { what, status } => {
                write!(f, "{what}: {:?}: {}", status.code(), printable(status.message()))
            }
            Error::NotSeated => f.write_str("the seat token is not a seat of this game"),
            Error::Protocol(e) => write!(f, "unexpected message from the server: {}", printable(e)),
            Error::Strategy(e) => write!(f, "strategy: {e}"),
            Error::Player(e) => write!(f, "{e}"),
            Error::TableSeat { call, table_call, seated } => write!(
                f,
                "{call}: seated at seat {} of game {}, a table's seat: take table seats with {table_call} \
                 (the seat and its token are in this error)",
                seated.seat,
                printable(&seated.game_id)
            ),
        }
    }
}

impl std::error::Error for Error {}

/// A message of the server that is no card, seat or legal action.
impl From<WireError> for Error {
    fn from(e: WireError) -> Error {
        Error::Protocol(e.to_string())
    }
}

/// A seat the bot holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seated {
    /// The game.
    pub game_id: String,
    /// The seat.
    pub seat: Seat,
    /// The seat token (secret).
    pub token: String,
}

/// A seat the bot holds at a game of any format (a table's seats go past 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableSeated {
    /// The game.
    pub game_id: String,
    /// The seat, from 0.
    pub seat: u8,
    /// The seat token (secret).
    pub token: String,
}

impl TableSeated {
    /// The same seat of a two-player game; an error naming the table calls for a seat past 1.
    fn two_player(self, call: &'static str, table_call: &'static str) -> Result<Seated, Error> {
        match convert::seat(u32::from(self.seat)) {
            Ok(seat) => Ok(Seated { game_id: self.game_id, seat, token: self.token }),
            Err(_) => Err(Error::TableSeat { call, table_call, seated: self }),
        }
    }
}

/// A seat number from the server as a table's seat.
fn table_seat(seat: u32) -> Result<u8, Error> {
    u8::try_from(seat).map_err(|_| Error::Protocol(format!("seat {seat}: not a seat")))
}

/// How a game ended, for the seat that played it.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The game.
    pub game_id: String,
    /// The seat played.
    pub seat: Seat,
    /// The opponent's display name.
    pub opponent: String,
    /// Whether the opponent is a house bot.
    pub opponent_bot: bool,
    /// Whether the opponent is a tournament's entrant (a program or person of its own).
    pub opponent_entrant: bool,
    /// The winner; `None` on equal totals.
    pub winner: Option<Seat>,
    /// Final totals by seat (after a resignation: the stage scores then).
    pub totals: [u32; 2],
    /// Difference of the totals.
    pub margin: u32,
    /// Why the game ended.
    pub reason: pb::GameEndReason,
    /// Hands played (dead hands included).
    pub hands: u32,
    /// Actions this bot sent and the server accepted or found stale.
    pub decisions: u32,
    /// Times the event stream was reopened.
    pub resumes: u32,
    /// The server's result as sent.
    pub result: pb::GameResult,
}

impl Outcome {
    /// The game's score for this seat: 1 win, 0.5 draw, 0 loss.
    pub fn score(&self) -> f64 {
        match self.winner {
            Some(w) if w == self.seat => 1.0,
            Some(_) => 0.0,
            None => 0.5,
        }
    }

    /// One line for people: `<game> seat 0 vs bob (bot): won 131-45 (target, 6 hands)`. The
    /// server's text (the game id, the opponent's name) is escaped.
    pub fn line(&self) -> String {
        let me = self.seat.index();
        let verdict = match self.winner {
            Some(w) if w == self.seat => "won",
            Some(_) => "lost",
            None => "drew",
        };
        let reason = match self.reason {
            pb::GameEndReason::Target => "target",
            pb::GameEndReason::Resigned => "resigned",
            pb::GameEndReason::Forfeit => "forfeit",
            pb::GameEndReason::Cancelled => "cancelled",
            pb::GameEndReason::Abandoned => "abandoned",
            pb::GameEndReason::HandLimit => "hand limit",
            pb::GameEndReason::Unspecified => "?",
        };
        format!(
            "{} seat {} vs {}{}: {verdict} {}-{} ({reason}, {} hands)",
            printable(&self.game_id),
            me,
            printable(&self.opponent),
            match (self.opponent_bot, self.opponent_entrant) {
                (true, _) => " (house bot)",
                (false, true) => " (entrant)",
                _ => "",
            },
            self.totals[me],
            self.totals[1 - me],
            self.hands,
        )
    }
}

/// Rules by preset name, for [`Client::quick_match`] and [`Client::create_game`].
pub fn preset(name: &str) -> pb::Rules {
    pb::Rules { kind: Some(pb::rules::Kind::Preset(name.into())) }
}

/// A complete custom rule set, for [`Client::quick_match`] and [`Client::create_game`].
pub fn custom(rules: &engine::RuleSet) -> pb::Rules {
    pb::Rules { kind: Some(pb::rules::Kind::Custom(gin_proto::rules::to_pb(rules))) }
}

/// A connection to a gin server (cheap to clone; clones share the connection), signed in to
/// an account or not ([`Client::with_account_token`]).
#[derive(Clone)]
pub struct Client {
    channel: Channel,
    opts: Options,
    /// The account token sent as the bearer of lobby, tournament and account calls (never
    /// of game calls, which carry the seat token).
    account: Option<account::Secret>,
}

/// Plays the seat `seat_token` of `game_id` on the server at `endpoint` with `strategy`, to
/// game over, with the default [`Options`]. The one call a tournament runner needs per
/// assigned game.
pub async fn play_seat(
    endpoint: &str,
    game_id: &str,
    seat_token: &str,
    strategy: &mut dyn Strategy,
) -> Result<Outcome, Error> {
    Client::connect(endpoint).await?.play(game_id, seat_token, strategy).await
}

/// A request carrying the seat token (none when `token` is empty: a spectator).
fn authed<T>(msg: T, token: &str) -> Request<T> {
    let mut r = Request::new(msg);
    if token.is_empty() {
        return r;
    }
    if let Ok(v) = MetadataValue::try_from(format!("Bearer {token}")) {
        r.metadata_mut().insert("authorization", v);
    }
    r
}

/// How many times one turn's named melds may be refused before the server arranges them.
const MAX_MELD_REFUSALS: u32 = 3;

/// Statuses a retry may fix: the server or the connection is away, a call timed out, a
/// rate limit. (Actions are safe to retry: a repeated one is refused as stale.)
fn transient(s: &Status) -> bool {
    match s.code() {
        Code::Unavailable
        | Code::Unknown
        | Code::Cancelled
        | Code::ResourceExhausted
        | Code::DeadlineExceeded => true,
        // Transport failures surface as INTERNAL from the HTTP/2 layer.
        Code::Internal => s.message().contains("h2 protocol error") || s.message().contains("transport"),
        _ => false,
    }
}

/// Whether `s` says the call did nothing, so that even a call not repeated after a lost
/// answer (`CreateGame`, `JoinGame`: a second game, a second seat) may be sent again: a rate
/// limit or a quota; an `UNAVAILABLE` that carries `retry-after-ms` (the server refused
/// before doing anything: in a cluster its lease ran out, or the game is moving to another
/// server; a proxy had no server to take it); a call whose HTTP/2 stream was refused
/// (`REFUSED_STREAM`: by RFC 9113 nothing of it was processed; HAProxy says so of a call no
/// server took before its health checks saw them all down). A plain `UNAVAILABLE` may be a
/// connection dropped after the server acted.
pub fn nothing_done(s: &Status) -> bool {
    s.code() == Code::ResourceExhausted
        || (s.code() == Code::Unavailable && (retry_after(s).is_some() || refused_stream(s)))
}

/// Whether the error under `s` is an HTTP/2 `REFUSED_STREAM` reset.
fn refused_stream(s: &Status) -> bool {
    let mut cause = std::error::Error::source(s);
    while let Some(e) = cause {
        if e.downcast_ref::<h2::Error>().is_some_and(|h| h.reason() == Some(h2::Reason::REFUSED_STREAM)) {
            return true;
        }
        cause = e.source();
    }
    false
}

/// Statuses that end a game's event stream for good (not found, no access, a malformed
/// request); after anything else, reopen it with `resume_after_seq`.
pub fn stream_fatal(s: &Status) -> bool {
    matches!(
        s.code(),
        Code::NotFound
            | Code::Unauthenticated
            | Code::PermissionDenied
            | Code::InvalidArgument
            | Code::OutOfRange
    )
}

/// The waits between retries: 50 ms doubling up to 5 s, each plus a random 0–100 % of it
/// (backon's jitter, randomly seeded) so that many bots do not retry in step. No limit on the
/// number of retries: each caller stops after its time budget ([`Options::retry_for`],
/// [`Options::connect_for`]) without progress.
fn backoff() -> ExponentialBuilder {
    ExponentialBuilder::new()
        .with_min_delay(FIRST_BACKOFF)
        .with_factor(2.0)
        .with_max_delay(MAX_BACKOFF)
        .with_jitter()
        .without_max_times()
}

/// The wait a rate-limit refusal asks for, if any.
fn retry_after(s: &Status) -> Option<Duration> {
    let ms: u64 = s.metadata().get("retry-after-ms")?.to_str().ok()?.parse().ok()?;
    Some(Duration::from_millis(ms))
}

/// The wait before retrying after `s`, given the backoff's next (jittered) wait: a server's
/// `retry-after-ms` hint is a floor, so the wait is the hint plus the backoff's step, at most
/// a quarter of the hint (callers refused together do not come back together, and a caller
/// refused again and again still comes back when the server said, not seconds later).
fn honour_retry_after(s: &Status, next: Option<Duration>) -> Option<Duration> {
    next.map(|d| retry_after(s).map_or(d, |hint| hint + d.min(hint / 4)))
}

/// Runs a synchronous strategy: under `block_in_place` on a multi-threaded runtime (other
/// tasks move to other workers meanwhile), inline otherwise.
fn run_blocking<R>(f: impl FnOnce() -> R) -> R {
    match tokio::runtime::Handle::try_current() {
        Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(f)
        }
        _ => f(),
    }
}

/// Decisions slower than this move to `block_in_place` (see `take_turn`).
const SLOW_DECISION: Duration = Duration::from_micros(200);
const MAX_BACKOFF: Duration = Duration::from_secs(5);
const FIRST_BACKOFF: Duration = Duration::from_millis(50);

impl Client {
    /// Connects to `url` (`http://host:port` or `https://host:port`) with the default
    /// [`Options`].
    pub async fn connect(url: &str) -> Result<Client, Error> {
        Client::connect_with(url, Options::default()).await
    }

    /// Connects to `url` with `opts`, retrying for [`Options::connect_for`]. Afterwards the
    /// connection re-establishes itself when it drops.
    pub async fn connect_with(url: &str, opts: Options) -> Result<Client, Error> {
        let mut ep = Endpoint::from_shared(url.to_string())
            .map_err(|e| Error::BadEndpoint(format!("{url:?}: {e}")))?
            .connect_timeout(Duration::from_secs(5))
            .tcp_nodelay(true)
            .http2_keep_alive_interval(Duration::from_secs(20))
            .keep_alive_timeout(Duration::from_secs(10))
            .keep_alive_while_idle(true);
        if url.starts_with("https://") {
            let tls = match &opts.ca_cert {
                Some(pem) => ClientTlsConfig::new().ca_certificate(Certificate::from_pem(pem)),
                None => ClientTlsConfig::new().with_native_roots(),
            };
            ep = ep.tls_config(tls).map_err(|e| Error::BadEndpoint(format!("TLS: {e}")))?;
        } else if !url.starts_with("http://") {
            return Err(Error::BadEndpoint(format!(
                "{url:?}: expected http://host:port or https://host:port"
            )));
        }
        let start = Instant::now();
        let connected = (|| ep.connect())
            .retry(backoff())
            .when(|_| start.elapsed() < opts.connect_for)
            .notify(|e, wait| tracing::debug!("connecting to {url}: {e}; retrying in {wait:?}"))
            .await;
        match connected {
            Ok(channel) => Ok(Client { channel, opts, account: None }),
            Err(e) => {
                let mut msg = e.to_string();
                let mut src = std::error::Error::source(&e);
                while let Some(s) = src {
                    msg = format!("{msg}: {s}");
                    src = s.source();
                }
                Err(Error::Connect(format!("{url}: {msg}")))
            }
        }
    }

    /// A client over a channel you built yourself.
    pub fn from_channel(channel: Channel, opts: Options) -> Client {
        Client { channel, opts, account: None }
    }

    /// The same connection signed in to an account: `token` (an account token, `gin_at_…`)
    /// goes as `authorization: Bearer` on lobby calls (the seats taken are the account's),
    /// tournament calls (the entrant is the account) and [`account`] calls. Game calls keep
    /// the seat token the join returned. `None` signs out (a guest).
    pub fn with_account_token(self, token: Option<String>) -> Client {
        Client { account: token.filter(|t| !t.is_empty()).map(account::Secret), ..self }
    }

    /// The account token this client sends, if any (secret: never log it).
    pub fn account_token(&self) -> Option<&str> {
        self.account.as_ref().map(|s| s.0.as_str())
    }

    /// `msg` as a request carrying the client's account token as its bearer (none when the
    /// client is a guest's): for lobby, tournament and account calls made with the generated
    /// clients ([`Client::lobby`], [`Client::channel`]).
    pub fn request<T>(&self, msg: T) -> Request<T> {
        authed(msg, self.account_token().unwrap_or(""))
    }

    /// The settings.
    pub fn options(&self) -> &Options {
        &self.opts
    }

    /// The underlying channel (for other services, e.g. tournaments).
    pub fn channel(&self) -> Channel {
        self.channel.clone()
    }

    /// The generated lobby client (for calls the SDK does not wrap).
    pub fn lobby(&self) -> LobbyServiceClient<Channel> {
        LobbyServiceClient::new(self.channel.clone())
    }

    /// The generated game client (for calls the SDK does not wrap).
    pub fn games(&self) -> GameServiceClient<Channel> {
        GameServiceClient::new(self.channel.clone())
    }

    /// Calls `f` until it succeeds, a status that retrying does not fix comes back, or
    /// transient failures went on for [`Options::retry_for`]. Waits as [`backoff`] says, and
    /// at least as long as a server's `retry-after-ms` asks.
    async fn retry<T, Fut>(
        &self,
        what: &'static str,
        timeout: Duration,
        is_transient: fn(&Status) -> bool,
        mut f: impl FnMut() -> Fut,
    ) -> Result<T, Error>
    where
        Fut: Future<Output = Result<T, Status>>,
    {
        let start = Instant::now();
        let call = || {
            let answer = tokio::time::timeout(timeout, f());
            async move {
                answer.await.unwrap_or_else(|_| {
                    Err(Status::deadline_exceeded(format!("no answer within {timeout:?}")))
                })
            }
        };
        call.retry(backoff())
            .when(|s| is_transient(s) && start.elapsed() < self.opts.retry_for)
            .adjust(honour_retry_after)
            .notify(
                |s, wait| tracing::debug!(what, code = ?s.code(), "{}; retrying in {wait:?}", s.message()),
            )
            .await
            .map_err(|status| Error::Rpc { what, status })
    }

    /// Waits (up to the server's 60 s) for another player asking for the same rules, then
    /// both are seated in a new game. `DEADLINE_EXCEEDED` if nobody came.
    pub async fn quick_match(&self, rules: pb::Rules, name: &str) -> Result<Seated, Error> {
        let req = pb::QuickMatchRequest { rules: Some(rules), name: name.to_string(), ..Default::default() };
        self.quick_match_with(req).await.map(|(seated, _)| seated)
    }

    /// A quick match as `req` says: with `req.house_bot` set, if nobody asks for the same
    /// rules within `req.house_bot_after_ms` (0: the server's 10 s), the caller plays that
    /// house bot. Returns the seat and the house bot's strategy (`None`: paired with
    /// another caller).
    pub async fn quick_match_with(
        &self,
        req: pb::QuickMatchRequest,
    ) -> Result<(Seated, Option<String>), Error> {
        let (seated, bot) = self.quick_match_table(req).await?;
        Ok((seated.two_player("quick_match_with", "quick_match_table")?, bot))
    }

    /// [`quick_match_with`](Self::quick_match_with) for any format (`req.format`,
    /// `req.players`): the seat may be past 1.
    pub async fn quick_match_table(
        &self,
        req: pb::QuickMatchRequest,
    ) -> Result<(TableSeated, Option<String>), Error> {
        let not_deadline = |s: &Status| s.code() != Code::DeadlineExceeded && transient(s);
        let r = self
            .retry("QuickMatch", Duration::from_secs(75), not_deadline, || {
                let mut c = self.lobby();
                let req = self.request(req.clone());
                async move { c.quick_match(req).await.map(|r| r.into_inner()) }
            })
            .await?;
        let seated = TableSeated { game_id: r.game_id, seat: table_seat(r.seat)?, token: r.seat_token };
        Ok((seated, Some(r.house_bot).filter(|b| !b.is_empty())))
    }

    /// Creates a game as `req` says and takes a seat in it (`join` is forced on). Set
    /// `req.house_bot` to a strategy name to play the server's built-in bot.
    pub async fn create_game(&self, req: pb::CreateGameRequest) -> Result<Seated, Error> {
        self.create_table(req).await?.two_player("create_game", "create_table")
    }

    /// [`create_game`](Self::create_game) for any format (`req.format`, `req.players`,
    /// `req.house_bots`).
    pub async fn create_table(&self, req: pb::CreateGameRequest) -> Result<TableSeated, Error> {
        let req = pb::CreateGameRequest { join: true, ..req };
        // Not retried on a lost answer (a retry would create a second game); rate limits and
        // refusals that did nothing are (a cluster server whose lease moved).
        let r = self
            .retry("CreateGame", self.opts.call_timeout, nothing_done, || {
                let mut c = self.lobby();
                let req = self.request(req.clone());
                async move { c.create_game(req).await.map(|r| r.into_inner()) }
            })
            .await?;
        let seat = r.seat.ok_or_else(|| Error::Protocol("CreateGame with join returned no seat".into()))?;
        Ok(TableSeated { game_id: r.game_id, seat: table_seat(seat)?, token: r.seat_token })
    }

    /// Takes the first free seat of `game_id`. A game with fixed deals (its creator chose the
    /// seed) is refused: see [`Client::join_game_with`].
    pub async fn join_game(&self, game_id: &str, name: &str) -> Result<Seated, Error> {
        self.join_game_with(pb::JoinGameRequest {
            game_id: game_id.to_string(),
            name: name.to_string(),
            ..Default::default()
        })
        .await
    }

    /// Takes a seat of a game as `req` says (a given seat; `accept_fixed_deals` to join a game
    /// whose creator chose the seed and may know every hand).
    pub async fn join_game_with(&self, req: pb::JoinGameRequest) -> Result<Seated, Error> {
        self.join_table(req).await?.two_player("join_game_with", "join_table")
    }

    /// [`join_game_with`](Self::join_game_with) at a game of any format: the seat may be
    /// past 1.
    pub async fn join_table(&self, req: pb::JoinGameRequest) -> Result<TableSeated, Error> {
        let game_id = req.game_id.clone();
        let r = self
            .retry("JoinGame", self.opts.call_timeout, nothing_done, || {
                let mut c = self.lobby();
                let req = self.request(req.clone());
                async move { c.join_game(req).await.map(|r| r.into_inner()) }
            })
            .await?;
        Ok(TableSeated { game_id, seat: table_seat(r.seat)?, token: r.seat_token })
    }

    /// The snapshot `token` ("" for a spectator) may see of `game_id` now.
    pub async fn get_game(&self, game_id: &str, token: &str) -> Result<pb::GameSnapshot, Error> {
        let r = self
            .retry("GetGame", self.opts.call_timeout, transient, || {
                let mut c = self.games();
                let req = authed(pb::GetGameRequest { game_id: game_id.to_string() }, token);
                async move { c.get_game(req).await.map(|r| r.into_inner()) }
            })
            .await?;
        r.snapshot.ok_or_else(|| Error::Protocol("GetGame returned no snapshot".into()))
    }

    /// Resigns the seat of `token` in `game_id` (the other seat wins), at the game's
    /// current seq; retried when the game moves on meanwhile (`ABORTED`).
    pub async fn resign(&self, game_id: &str, token: &str) -> Result<(), Error> {
        let mut tries = 0;
        loop {
            let seq = self.get_game(game_id, token).await?.seq;
            let r = self
                .retry("Resign", self.opts.call_timeout, transient, || {
                    let mut c = self.games();
                    let req =
                        authed(pb::ResignRequest { game_id: game_id.to_string(), expected_seq: seq }, token);
                    async move { c.resign(req).await.map(|_| ()) }
                })
                .await;
            match r {
                Err(Error::Rpc { status, .. }) if status.code() == Code::Aborted && tries < 5 => tries += 1,
                r => return r,
            }
        }
    }

    /// The record of a finished game.
    pub async fn get_record(&self, game_id: &str) -> Result<pb::GetRecordResponse, Error> {
        self.retry("GetRecord", self.opts.call_timeout, transient, || {
            let mut c = self.games();
            let req = pb::GetRecordRequest { game_id: game_id.to_string() };
            async move { c.get_record(req).await.map(|r| r.into_inner()) }
        })
        .await
    }

    /// Opens the event stream of `game_id` as `token` sees it ("" for a spectator): with
    /// `after` = 0 a snapshot comes first, otherwise every event after seq `after` (no gap, no
    /// duplicate). Opening is retried like any call; reading it, and reopening it when it
    /// fails (unless [`stream_fatal`]), is the caller's part.
    pub async fn watch(
        &self,
        game_id: &str,
        token: &str,
        after: u64,
    ) -> Result<tonic::Streaming<pb::WatchGameResponse>, Error> {
        self.retry("WatchGame", self.opts.call_timeout, transient, || {
            let mut c = self.games();
            let req =
                authed(pb::WatchGameRequest { game_id: game_id.to_string(), resume_after_seq: after }, token);
            async move { c.watch_game(req).await.map(|r| r.into_inner()) }
        })
        .await
    }

    /// The open games (a free seat), newest first.
    pub async fn list_games(&self) -> Result<Vec<pb::OpenGame>, Error> {
        let r = self
            .retry("ListGames", self.opts.call_timeout, transient, || {
                let mut c = self.lobby();
                async move { c.list_games(pb::ListGamesRequest { page_size: 100 }).await.map(|r| r.into_inner()) }
            })
            .await?;
        Ok(r.games)
    }

    /// Sends one action of the seat of `token` with `expected_seq` (the last seq seen),
    /// retrying transient failures (a repeat is refused as stale, never applied twice).
    /// `offer`: the hand is in the first-turn upcard offer, where [`Action::DrawPile`] is
    /// `TakeUpcard`. A refusal comes back as [`Error::Rpc`] with the server's status.
    pub async fn act(
        &self,
        game_id: &str,
        token: &str,
        expected_seq: u64,
        action: &Action,
        offer: bool,
    ) -> Result<(), Error> {
        self.send(game_id, token, expected_seq, action, offer).await
    }

    /// Plays the seat of `token` in `game_id` with `strategy` until the game is over, and
    /// returns how it ended. Works from any point of the game (its events are read from the
    /// start); a game still waiting for its second player is waited for.
    pub async fn play(
        &self,
        game_id: &str,
        token: &str,
        strategy: &mut dyn Strategy,
    ) -> Result<Outcome, Error> {
        self.play_observed(game_id, token, strategy, &mut |_, _| {}).await
    }

    /// [`play`](Self::play), calling `on_event` with each new event of the seat's stream
    /// once the tracker has applied it (in seq order, each once, resumes included), before
    /// the strategy is asked to act on it. The bot bridge uses it to pass the events on.
    pub async fn play_observed(
        &self,
        game_id: &str,
        token: &str,
        strategy: &mut dyn Strategy,
        on_event: &mut (dyn FnMut(&pb::GameEvent, &SeatTracker) + Send),
    ) -> Result<Outcome, Error> {
        let snap = self.get_game(game_id, token).await?;
        let seat = convert::seat(snap.viewer_seat.ok_or(Error::NotSeated)?)?;
        let rules = snap.rules.as_ref().ok_or_else(|| Error::Protocol("a snapshot without rules".into()))?;
        let rules = gin_proto::rules::from_pb(rules)
            .map_err(|e| Error::Protocol(format!("the server's rules: {e}")))?;
        // Seq 1 is the first seat taken; a seated caller means it exists.
        let mut tr = SeatTracker::new(seat, rules, 1);
        for s in &snap.seats {
            if let Ok(seat) = convert::seat(s.seat) {
                tr.set_player(seat, &seat_name(s), s.bot);
                tr.set_entrant(seat, s.entrant);
            }
        }
        let mut decisions = 0;
        let mut resumes = 0;
        let mut slow = false;
        let mut progress = Instant::now();
        // The waits before reopening the stream, from the first again after any progress.
        let mut waits: Option<<ExponentialBuilder as BackoffBuilder>::Backoff> = None;
        loop {
            let mut stream = self.watch(game_id, token, tr.last_seq()).await?;
            let ended = loop {
                let ev = match self.next_event(&mut stream).await {
                    Ok(ev) => ev,
                    Err(why) => break why,
                };
                let before = tr.last_seq();
                tr.apply(&ev).map_err(|e| Error::Protocol(e.to_string()))?;
                if tr.last_seq() != before {
                    on_event(&ev, &tr);
                }
                progress = Instant::now();
                waits = None;
                if let Some(r) = tr.result() {
                    return Ok(outcome(game_id, &tr, r.clone(), decisions, resumes));
                }
                if tr.decision().is_some() {
                    self.take_turn(game_id, token, &tr, strategy, &mut slow).await?;
                    decisions += 1;
                }
            };
            self.before_resume(game_id, tr.last_seq(), ended, progress, &mut waits).await?;
            resumes += 1;
        }
    }

    /// The next event of a seat's stream, heartbeats skipped; `Err` with why the stream
    /// ended (`None`: the server closed it), after `Options::idle_timeout` without a message
    /// too.
    async fn next_event(
        &self,
        stream: &mut tonic::Streaming<pb::WatchGameResponse>,
    ) -> Result<pb::GameEvent, Option<Status>> {
        loop {
            let msg = match tokio::time::timeout(self.opts.idle_timeout, stream.message()).await {
                Err(_) => return Err(Some(Status::deadline_exceeded("no message (not even a heartbeat)"))),
                Ok(Err(s)) => return Err(Some(s)),
                Ok(Ok(None)) => return Err(None),
                Ok(Ok(Some(m))) => m,
            };
            if let Some(pb::watch_game_response::Kind::Event(ev)) = msg.kind {
                return Ok(ev);
            }
        }
    }

    /// After a seat's stream ended (`ended`: why, `None` when the server closed it) before
    /// the game was over: the error to give up with (a fatal status, or no progress since
    /// `progress` for `Options::retry_for`), else the backoff's next wait before reopening it
    /// after seq `after`.
    async fn before_resume(
        &self,
        game_id: &str,
        after: u64,
        ended: Option<Status>,
        progress: Instant,
        waits: &mut Option<<ExponentialBuilder as BackoffBuilder>::Backoff>,
    ) -> Result<(), Error> {
        let stalled = progress.elapsed() >= self.opts.retry_for;
        match ended {
            Some(s) if stream_fatal(&s) || stalled => {
                return Err(Error::Rpc { what: "WatchGame", status: s });
            }
            None if stalled => {
                return Err(Error::Rpc {
                    what: "WatchGame",
                    status: Status::unavailable("the stream keeps ending before the game is over"),
                });
            }
            Some(s) => tracing::info!(game = game_id, after, "stream failed ({s}); resuming"),
            None => tracing::info!(game = game_id, after, "stream ended early; resuming"),
        }
        let wait = waits.get_or_insert_with(|| backoff().build()).next().unwrap_or(MAX_BACKOFF);
        tokio::time::sleep(wait).await;
        Ok(())
    }

    /// Asks the strategy for the pending turn of `tr` and sends the action. A stale action
    /// (the game moved on) is not an error: the stream brings what happened, and the next
    /// turn event asks again.
    async fn take_turn(
        &self,
        game_id: &str,
        token: &str,
        tr: &SeatTracker,
        strategy: &mut dyn Strategy,
        slow: &mut bool,
    ) -> Result<(), Error> {
        let d = tr.decision().expect("a pending turn");
        let expected = tr.last_seq();
        let legal = d.legal;
        // A fast strategy (microseconds) decides inline: handing the worker over to the
        // blocking pool would cost more than the decision. Once a decision of this game took
        // longer than SLOW_DECISION, the next ones run under `block_in_place`.
        let started = Instant::now();
        let mut action = if *slow { run_blocking(|| strategy.act(&d)) } else { strategy.act(&d) };
        if started.elapsed() > SLOW_DECISION {
            *slow = true;
        }
        if !is_listed(&legal, &action) {
            let instead = fallback(&d);
            tracing::warn!(
                game = game_id,
                strategy = strategy.name(),
                "illegal action `{action}`; playing `{instead}`"
            );
            action = instead;
        }
        // Named melds refused this turn (the strategy is asked again each time, up to a
        // bound: then the server arranges them).
        let mut refusals = 0;
        loop {
            let status = match self.send(game_id, token, expected, &action, legal.pass).await {
                Ok(()) => return Ok(()),
                Err(Error::Rpc { status, .. }) => status,
                Err(e) => return Err(e),
            };
            match status.code() {
                Code::Aborted => {
                    tracing::debug!(game = game_id, "stale action ({}); resyncing", status.message());
                    return Ok(());
                }
                // Named melds the server refuses: the strategy says what instead (by default,
                // the same knock with the server's melds; the bridge asks its program).
                Code::FailedPrecondition
                    if matches!(
                        &action,
                        Action::Knock { melds: Some(_), .. } | Action::BigGin { melds: Some(_) }
                    ) =>
                {
                    refusals += 1;
                    let instead = if refusals > MAX_MELD_REFUSALS {
                        server_melds(&action)
                    } else {
                        strategy.melds_refused(&d, &action, status.message())
                    };
                    tracing::info!(
                        game = game_id,
                        "`{action}` refused ({}); playing `{instead}`",
                        status.message()
                    );
                    action = if is_listed(&legal, &instead) { instead } else { fallback(&d) };
                }
                // The game may have moved on (a turn clock, the game ended): resync if so.
                Code::FailedPrecondition => {
                    if self.get_game(game_id, token).await?.seq != expected {
                        return Ok(());
                    }
                    return Err(Error::Rpc { what: "action", status });
                }
                _ => return Err(Error::Rpc { what: "action", status }),
            }
        }
    }

    /// Sends one action (retrying transient failures: a repeat is refused as stale, never
    /// applied twice).
    async fn send(
        &self,
        game_id: &str,
        token: &str,
        expected: u64,
        a: &Action,
        offer: bool,
    ) -> Result<(), Error> {
        let g = || game_id.to_string();
        let t = self.opts.call_timeout;
        match a {
            Action::Pass => {
                self.retry("PassUpcard", t, transient, || {
                    let mut c = self.games();
                    let req = authed(pb::PassUpcardRequest { game_id: g(), expected_seq: expected }, token);
                    async move { c.pass_upcard(req).await.map(|_| ()) }
                })
                .await
            }
            Action::DrawPile if offer => {
                self.retry("TakeUpcard", t, transient, || {
                    let mut c = self.games();
                    let req = authed(pb::TakeUpcardRequest { game_id: g(), expected_seq: expected }, token);
                    async move { c.take_upcard(req).await.map(|_| ()) }
                })
                .await
            }
            Action::DrawPile | Action::DrawStock => {
                let source =
                    if matches!(a, Action::DrawPile) { pb::DrawSource::Pile } else { pb::DrawSource::Stock }
                        as i32;
                self.retry("Draw", t, transient, || {
                    let mut c = self.games();
                    let req = authed(pb::DrawRequest { game_id: g(), expected_seq: expected, source }, token);
                    async move { c.draw(req).await.map(|_| ()) }
                })
                .await
            }
            Action::Discard { card } => {
                self.retry("Discard", t, transient, || {
                    let mut c = self.games();
                    let req = authed(
                        pb::DiscardRequest { game_id: g(), expected_seq: expected, card: card.to_string() },
                        token,
                    );
                    async move { c.discard(req).await.map(|_| ()) }
                })
                .await
            }
            Action::Knock { .. } | Action::BigGin { .. } => {
                let (discard, melds) = match a {
                    Action::Knock { discard, melds } => {
                        (discard.to_string(), convert::melds_to_pb(melds.as_deref().unwrap_or_default()))
                    }
                    Action::BigGin { melds } => {
                        (String::new(), convert::melds_to_pb(melds.as_deref().unwrap_or_default()))
                    }
                    _ => unreachable!("matched above"),
                };
                self.retry("Knock", t, transient, || {
                    let mut c = self.games();
                    let req = authed(
                        pb::KnockRequest {
                            game_id: g(),
                            expected_seq: expected,
                            discard: discard.clone(),
                            melds: melds.clone(),
                        },
                        token,
                    );
                    async move { c.knock(req).await.map(|_| ()) }
                })
                .await
            }
        }
    }
}

fn outcome(game_id: &str, tr: &SeatTracker, r: pb::GameResult, decisions: u32, resumes: u32) -> Outcome {
    let seat = tr.seat();
    Outcome {
        game_id: game_id.to_string(),
        seat,
        opponent: tr.name(seat.other()).to_string(),
        opponent_bot: tr.is_bot(seat.other()),
        opponent_entrant: tr.is_entrant(seat.other()),
        winner: r.winner.and_then(|w| convert::seat(w).ok()),
        totals: [r.totals.first().copied().unwrap_or(0), r.totals.get(1).copied().unwrap_or(0)],
        margin: r.margin,
        reason: pb::GameEndReason::try_from(r.reason).unwrap_or(pb::GameEndReason::Unspecified),
        hands: tr.hands_ended(),
        decisions,
        resumes,
        result: r,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gin_proto::text::refused;

    const HOSTILE: &str = "\x1b]0;pwned\x07\u{202e}\u{9b}2J\u{200d}";

    #[test]
    fn the_backoff_doubles_to_its_cap_with_a_jitter_of_its_own() {
        let waits = |n| backoff().build().take(n).collect::<Vec<_>>();
        let (a, b) = (waits(12), waits(12));
        let mut base = FIRST_BACKOFF;
        for &w in &a {
            assert!(w >= base && w < base * 2, "{w:?} for a step of {base:?}");
            base = (base * 2).min(MAX_BACKOFF);
        }
        // Randomly seeded (backon's `std` feature): two bots do not wait alike.
        assert_ne!(a, b);
    }

    /// Only a refusal that says nothing was done lets `CreateGame` be sent again.
    #[test]
    fn nothing_done_is_said_by_retry_after_or_a_refused_stream() {
        let mut moved = Status::unavailable("this server's lease may have run out");
        assert!(!nothing_done(&moved), "a plain UNAVAILABLE: the connection may have dropped after");
        moved.metadata_mut().insert("retry-after-ms", "250".parse().unwrap());
        assert!(nothing_done(&moved));
        let refused = Status::from_error(Box::new(h2::Error::from(h2::Reason::REFUSED_STREAM)));
        assert_eq!(refused.code(), Code::Unavailable);
        assert!(nothing_done(&refused), "{refused:?}");
        let reset = Status::from_error(Box::new(h2::Error::from(h2::Reason::CANCEL)));
        assert!(!nothing_done(&reset), "{reset:?}");
        assert!(nothing_done(&Status::resource_exhausted("quota")));
        assert!(!nothing_done(&Status::internal("storage")));
    }

    #[test]
    fn a_retry_after_hint_is_a_floor_under_the_backoff() {
        let mut limited = Status::resource_exhausted("rate limit");
        limited.metadata_mut().insert("retry-after-ms", "300".parse().unwrap());
        let step = Some(Duration::from_millis(70));
        assert_eq!(honour_retry_after(&limited, step), Some(Duration::from_millis(370)));
        // A long backoff adds at most a quarter of the hint.
        let long = Some(Duration::from_secs(4));
        assert_eq!(honour_retry_after(&limited, long), Some(Duration::from_millis(375)));
        let down = Status::unavailable("restarting");
        assert_eq!(honour_retry_after(&down, step), step);
        // A malformed hint is ignored; no next wait (never, here) means no retry.
        let mut odd = Status::resource_exhausted("rate limit");
        odd.metadata_mut().insert("retry-after-ms", "soon".parse().unwrap());
        assert_eq!(honour_retry_after(&odd, step), step);
        assert_eq!(honour_retry_after(&limited, None), None);
    }

    #[test]
    fn a_server_s_text_in_errors_and_outcomes_is_escaped() {
        let rpc = Error::Rpc { what: "JoinGame", status: Status::not_found(format!("no game {HOSTILE}")) };
        let shown = rpc.to_string();
        assert_eq!(shown, "JoinGame: NotFound: no game \\u{1b}]0;pwned\\u{7}\\u{202e}\\u{9b}2J\\u{200d}");
        let protocol = Error::Protocol(format!("a card {HOSTILE}")).to_string();
        assert!(!protocol.chars().any(refused), "{protocol:?}");
        let o = Outcome {
            game_id: format!("g{HOSTILE}"),
            seat: Seat::S0,
            opponent: format!("\u{202e}bob{HOSTILE}"),
            opponent_bot: false,
            opponent_entrant: false,
            winner: Some(Seat::S0),
            totals: [120, 30],
            margin: 90,
            reason: pb::GameEndReason::Target,
            hands: 5,
            decisions: 40,
            resumes: 0,
            result: pb::GameResult::default(),
        };
        let line = o.line();
        assert!(!line.chars().any(refused), "{line:?}");
        assert!(line.contains(" seat 0 vs \\u{202e}bob\\u{1b}]0;pwned"), "{line}");
    }
}
