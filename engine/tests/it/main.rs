//! The engine's integration tests, one binary (one link) for all: the solver against the
//! data file of hands and an independent brute force, and properties over random legal play.
//!
//!
//! `solver_reference` checks the solver against an independent brute force (random and
//! meld-dense hands, 10 and 11 cards); `engine/tests/data/hands.txt` holds 660 hands generated
//! by that brute force, replayed by `hands_data`; `playout` checks the engine's invariants
//! (refusals change nothing, legality listed exactly, views hold no hidden card) over random
//! legal games of every preset; `table` does the same over every format through `Table`;
//! `limits`: players who always take the discard end every game at every format. No
//! `#[should_panic]`: tests assert the `Err`.

mod gin7;
mod hands_data;
mod limits;
mod pairs;
mod playout;
mod rummy;
mod solver_reference;
mod table;
