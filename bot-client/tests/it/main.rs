//! gin-bot's integration tests, one binary (one link) for all: the real `gin-bot` executable
//! against a real server in this process on loopback sockets.

mod bridge;
mod common;
mod conventions;
mod play;
mod tournament_e2e;
