//! The server's settings.
//!
//!
//! Every setting has a flag in `main.rs` (with an environment fallback). `metrics_addr`: the
//! metrics endpoint, off by default; `trusted_proxies` and `trusts`: whose `x-gin-client`
//! header a cluster's server believes (the proxy and the other servers; loopback by default;
//! from anywhere else the header is ignored and the caller is the TCP peer).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// Server settings; every one has a flag (and an environment variable) in `gin-server`.
#[derive(Clone, Debug)]
pub struct Config {
    /// SQLite database file.
    pub db: PathBuf,
    /// TLS certificate and key (PEM); plain TCP without.
    pub tls: Option<(PathBuf, PathBuf)>,
    /// Largest request accepted, in bytes.
    pub max_message_bytes: usize,
    /// Requests per second per caller (seat token, or peer address without one); 0: no limit.
    pub rate_per_sec: u32,
    /// Accounts one address may register per hour (`AccountService.Register`); 0: no limit.
    pub registrations_per_hour: u32,
    /// How long a sign-in's session token lasts (the web page's cookie, `Max-Age` too) from
    /// its creation; then it is refused as a revoked one (see
    /// [`accounts`](crate::accounts)). API tokens do not expire.
    pub session_lifetime: Duration,
    /// A call whose handler has not answered by then is DEADLINE_EXCEEDED (a client's
    /// shorter `grpc-timeout` wins).
    pub request_timeout: Duration,
    /// Calls one connection may have in flight at once.
    pub max_calls_per_connection: usize,
    /// Unfinished games one caller may have created, its tournaments' games included: an
    /// account's from whatever address (a call with an account token), else an address's
    /// (see `game::shared::QuotaKey`).
    pub max_open_games_per_caller: u32,
    /// A game nobody joined for this long is cancelled (see [`expiry`](crate::game::expiry)); zero: never.
    pub open_game_ttl: Duration,
    /// A started game whose seat to act did nothing for this long is abandoned by that seat,
    /// which loses (see [`expiry`](crate::game::expiry)); zero: never.
    pub idle_game_ttl: Duration,
    /// Events buffered per watch stream; a stream further behind is cut off and resumes.
    pub stream_buffer: usize,
    /// Heartbeat interval on idle streams.
    pub heartbeat: Duration,
    /// How long a finished game stays in memory after its end, its seat tokens with it; then
    /// it is read back from the store when asked for (a record, a late watcher), and a token
    /// of it is checked against its seats then.
    pub keep_finished: Duration,
    /// Threads serving the connections, each with a single-threaded runtime of its own (see
    /// [`run`](crate::run)); at least 1.
    pub threads: usize,
    /// Where to serve the Prometheus numbers (`GET /metrics`, plain HTTP/1.1, see
    /// [`metrics`](crate::metrics)); `None`: not served.
    pub metrics_addr: Option<SocketAddr>,
    /// One server of several on one PostgreSQL database: the address (`host:port`) the
    /// others reach this one at. `None`: the database is this server's alone.
    pub cluster_addr: Option<String>,
    /// In a cluster, how long this server's lease on its games lasts unless renewed (it
    /// renews it every third of that); a server killed keeps its games from the others that
    /// long at most.
    pub lease: Duration,
    /// A tag put before the id of every game and tournament this server creates (`TAG-…`),
    /// so that a proxy can send the calls naming one to the server that created it (it
    /// reads the id in the request: `examples/cluster/local-cluster.sh`) instead of to any,
    /// which would forward it. Letters, digits and `_`, 1 to 16 of them. `None`: plain ids.
    pub route_tag: Option<String>,
    /// In a cluster, the networks whose calls may name their caller (`x-gin-client`): the
    /// proxy in front and the other servers (which pass on a forwarded call's caller). A
    /// call from anywhere else is its TCP peer's, whatever it names, so that a client
    /// reaching a server directly cannot pass for another address to the quotas and rate
    /// limits. Default: loopback only (everything on one machine, as `local-cluster.sh`).
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// Whether the house bots (`house-random`, `house-simple`, `house-strong`: bot accounts
    /// the server registers and plays) enter the ladder's two-player pools, as the opponent of
    /// a player nobody else reached.
    pub ladder_house_bots: bool,
    /// How long a player waits in a two-player ladder pool before a house bot takes it on.
    pub ladder_house_after: Duration,
    /// The turn clock of ladder games, in milliseconds (auto-play on expiry).
    pub ladder_turn_millis: u32,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            db: PathBuf::from("gin.db"),
            tls: None,
            max_message_bytes: 64 * 1024,
            rate_per_sec: 200,
            registrations_per_hour: 10,
            session_lifetime: crate::accounts::SESSION_LIFETIME,
            request_timeout: Duration::from_secs(120),
            max_calls_per_connection: 1024,
            max_open_games_per_caller: 100,
            open_game_ttl: Duration::from_secs(3600),
            idle_game_ttl: Duration::from_secs(3600),
            stream_buffer: 1024,
            heartbeat: Duration::from_secs(15),
            keep_finished: Duration::from_secs(5),
            threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
            metrics_addr: None,
            cluster_addr: None,
            lease: Duration::from_secs(3),
            route_tag: None,
            trusted_proxies: Config::loopback(),
            ladder_house_bots: false,
            ladder_house_after: Duration::from_secs(10),
            ladder_turn_millis: 60_000,
        }
    }
}

impl Config {
    /// The loopback networks, IPv4 and IPv6: [`Config::trusted_proxies`]' default.
    pub fn loopback() -> Vec<ipnet::IpNet> {
        ["127.0.0.0/8", "::1/128"].iter().map(|n| n.parse().expect("a network")).collect()
    }

    /// Whether the call from `peer` may name its caller ([`Config::trusted_proxies`]; only
    /// in a cluster).
    pub fn trusts(&self, peer: std::net::IpAddr) -> bool {
        self.cluster_addr.is_some() && self.trusted_proxies.iter().any(|n| n.contains(&peer))
    }
}
