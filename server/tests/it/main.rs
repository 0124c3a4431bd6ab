//! The server's integration tests: one binary (each module a concern), a real server on a
//! temporary database and a free port in each test.
//!
//!
//! Real loopback sockets, generated clients, real SQLite files; PostgreSQL where installed
//! (`GIN_REQUIRE_POSTGRES=1` makes its absence a failure), Chromium for the web tests
//! (`GIN_REQUIRE_BROWSER=1` likewise).
//!
//! - `games`: complete games under several presets equal the engine's result, deal reveals
//!   verify, gRPC-Web over HTTP/1.1.
//! - `api`: every error code with the state unchanged, retried actions applied once, rate
//!   limit, resign, clocks, quick match, health, reflection.
//! - `resume`: no gap, no duplicate; a slow reader cut off without blocking the game (and the
//!   cut counted in the metrics).
//! - `tables`: every message of every seat and a spectator, over every format, against an
//!   engine replay.
//! - `cluster`: servers on one PostgreSQL: a killed server's game moves to another and ends as
//!   an uninterrupted one, half its calls forwarded; quick match pairs callers of two servers,
//!   the lists span the servers; a finished tournament game read on the server that does not
//!   hold its tournament stays sealed; `examples/cluster/local-cluster.sh` with HAProxy: games
//!   through the proxy reach their servers with no call forwarded, games through the proxy
//!   while two of three servers are killed or frozen past the lease, and a tournament through
//!   the proxy that completes while its server is killed three times (`--respawn`).
//! - `restart`: SIGKILL of the real binary mid-game (SQLite and PostgreSQL), restart, the same
//!   result as an uninterrupted run; ctrl-c stops promptly with watchers.
//! - `leaks`: 1,000+ networked hands, every message of every viewer checked against what it
//!   may see; a duplicate tournament played 8 games at a time, every game checked so, and no
//!   two games overlapping in time in which an entrant holds its opponent's hand of the other.
//! - `fairness`: what a hostile player tries: a foreseen seed shown and refused unless
//!   accepted, games and tournaments, across a restart; a game left before anyone joined is
//!   over for good; a quick-match waiter whose deadline runs out while being paired (a bare
//!   HTTP/2 client, so only the server enforces it): never one seated without the other; two
//!   calls of one connection not paired; tournaments held to their creator's limit; idle games
//!   cancelled and abandoned, and games a clock plays alone; a tournament's records and decks
//!   sealed until it is over, read back and after a restart.
//! - `tls`; `house`: the SDK plays every house bot to game over from either seat, results
//!   equal `GetGame`, `GetRecord` and the engine's replay; a house bot to act when the server
//!   starts plays on; a quick match nobody answers in time is played against the house bot.
//! - `tournament`, `table_tournament`: tournaments played by SDK entrants (a rummy round robin
//!   at tables of three: equal seats and meetings, each deal over its table's rotations, every
//!   seat's books equal to the game's result, pairwise standings, exports, the books read back
//!   the same after a restart); the restart test reads every file the server wrote and finds no
//!   token.
//! - `text`: names with controls, bidi overrides or zero-width characters refused naming the
//!   field, nothing created; names of every script accepted; stored text the check now refuses
//!   still loads.
//! - `malformed`: raw HTTP/2 and gRPC-Web requests that are not protobuf, break the framing or
//!   are oversize: their status and message, nothing changed.
//! - `metrics`: `/metrics` scraped by a raw HTTP/1.1 GET before, during and after games.
//! - `accounts`: registration (names unique without regard to case and confusables), sign-in
//!   (one answer for a wrong password and an unknown name, failures slowed down), tokens and
//!   scopes, password changes ending sessions, registrations per hour, no secret on disk,
//!   accounts and tokens across a restart; a whole game played with an account token, its
//!   seat named, listed with its outcome, export and deletion shown on the seats; two servers
//!   on one PostgreSQL sharing accounts, a revocation refused by the other within a second.
//! - `challenges`: an account challenges another, which sees it on its stream and accepts; both
//!   play the game to its end through the SDK with their account tokens, and it is in both
//!   accounts' games; decline, cancel and a one-second expiry reach both streams; refused
//!   challenges (self, unknown or deleted, anonymous, no `play`, rated, bad input, too many)
//!   change nothing; gin-sdk's `accept_next_challenge` takes only what its filter likes; on
//!   PostgreSQL, a challenge sent at one server is seen, accepted and played at another.
//! - `web`, `web_verify`: the page served, and played, watched and verified in Chromium
//!   (`server/web/test/`).

mod accounts;
mod api;
mod challenges;
mod cluster;
mod common;
mod conventions;
mod fairness;
mod games;
mod house;
mod ladder;
mod leaks;
mod malformed;
mod metrics;
mod ratings;
mod restart;
mod resume;
mod table_tournament;
mod tables;
mod text;
mod tls;
mod tournament;
mod web;
mod web_session;
mod web_verify;
