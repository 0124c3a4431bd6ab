//! gin-bot's integration tests, one binary (one link) for all: the real `gin-bot` executable
//! against a real server in this process on loopback sockets.
//!
//!
//! `account`: `gin-bot account create` against a stand-in AccountService (gin's tests' file);
//! `account_e2e`: against a real server.
//! `play`: the real `gin-bot play` against house bots, quick matches and a given seat.
//! `bridge`: `gin-bot bridge` with `examples/bridge/bot.py` plays complete games; programs
//! that answer garbage or illegal actions, exit, or never answer stop it with a clear error,
//! and the game is resigned. `tournament_e2e`: `gin-bot tournament` processes play a round
//! robin (and a rummy tournament at tables of three) to its standings; a program enters
//! through the bridge (`join --cmd`, `examples/bridge/bot.py`) at two-player gin and at
//! rummy tables, and a failing program resigns its games so the tournament still ends.

mod account;
mod account_e2e;
mod bridge;
mod common;
mod conventions;
mod play;
mod tournament_e2e;
