//! What the project's command-line programs (`gin`, `gin-bot`, `gin-server`, `gin-load`)
//! share, so that they behave as one family:
//!
//! - [`build::emit_version`], for their build scripts: the version `--version` prints, with
//!   the git revision it was built from (`gin 0.1.0 (abc1234 2026-11-27)`).
//! - [`parse`] and [`print_error`]: one error style on stderr. A usage error is clap's own,
//!   after the program's name (`gin: error: unexpected argument '--frob' found`, then the
//!   usage, exit status 2); any other error is `gin: error: <what failed>` and one line
//!   `  caused by: <why>` for each cause, exit status 1.
//! - [`exit_statuses`]: the "Exit status:" list at the end of a command's `--help`, which the
//!   manual pages show as their EXIT STATUS section.
//! - [`write_completions`] (`gin completions SHELL`), [`generated`] (the manual pages and
//!   completion scripts committed in `docs/man` and `docs/completions`) and
//!   [`check_generated`], the test that keeps them from drifting from the code.
//! - `testing`: the convention tests each program runs over its real executable.
//!
//! The build script takes this crate without its default feature `cli`, so it compiles
//! nothing else.

pub mod build;

#[cfg(feature = "cli")]
mod cli;
#[cfg(feature = "cli")]
pub use cli::*;
#[cfg(feature = "cli")]
pub mod testing;
