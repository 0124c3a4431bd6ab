//! The server's integration tests: one binary (each module a concern), a real server on a
//! temporary database and a free port in each test.

mod api;
mod cluster;
mod common;
mod conventions;
mod fairness;
mod games;
mod house;
mod leaks;
mod malformed;
mod metrics;
mod restart;
mod resume;
mod table_tournament;
mod tables;
mod text;
mod tls;
mod tournament;
mod web;
mod web_verify;
