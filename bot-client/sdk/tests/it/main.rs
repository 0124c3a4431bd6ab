//! gin-sdk's integration tests, one binary (one link) for all, against a real server (or a
//! scripted one) in this process on loopback sockets.
//!
//!
//! `net`: a stream cut mid-game by a TCP proxy resumes, and every decision is applied exactly
//! once. `retry`: against a scripted lobby, a server's `retry-after-ms` is waited for,
//! transient failures stop after the time budget, a status retrying does not fix is not
//! retried. `table`: a seat's tracker matches the server at every turn of every format;
//! `play_table` plays a team game to its end.

mod common;
mod net;
mod retry;
mod table;
