//! The engine's integration tests, one binary (one link) for all: the solver against the
//! data file of hands and an independent brute force, and properties over random legal play.

mod gin7;
mod hands_data;
mod limits;
mod pairs;
mod playout;
mod rummy;
mod solver_reference;
mod table;
