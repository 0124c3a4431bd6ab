//! The logic behind the `gin` command-line client, kept out of `main.rs` so it can be tested.
//!
//! - [`analyze`]: minimum deadwood, best melds and best discard of a hand (`gin analyze`),
//!   one hand from the command line or a stream of hands, one a line (`--stdin`).
//! - [`replay`]: replays a game record and reports every hand and the final score
//!   (`gin replay`).

pub mod analyze;
pub mod replay;
