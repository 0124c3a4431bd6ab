//! gin-sdk's integration tests, one binary (one link) for all, against a real server (or a
//! scripted one) in this process on loopback sockets.

mod common;
mod net;
mod retry;
mod table;
