//! The logic behind the `gin` command-line client, kept out of `main.rs` so it can be tested.
//!
//! - [`analyze`]: minimum deadwood, best melds and best discard of a hand (`gin analyze`),
//!   one hand from the command line or a stream of hands, one a line (`--stdin`).
//! - [`replay`]: replays a game record and reports every hand and the final score
//!   (`gin replay`).
//! - Playing on a server (`gin play`, `gin watch`): [`table`] is one viewer's picture of a
//!   game folded from the protobuf snapshot and events (pure); [`app`] the full-screen
//!   state and its keys; [`render`] draws it (pure: renders into ratatui's `TestBackend`);
//!   [`plain`] the line-by-line mode; [`net`] the thin network task over the bot SDK
//!   (seating, stream resume, actions); [`run`] the loops that connect them to a terminal.
//! - At a table of another format (three players, teams, gin for 3 to 6, rummy):
//!   [`tables`] is the viewer's picture of the table (pure: its lines, its commands);
//!   [`table_app`] the full screen's state and keys (those of two players), [`table_render`]
//!   draws it (pure), and [`table_run`] the loops over the same network task.
//! - [`list`]: the open games as lines (`gin list`).
//! - Everything a server sent is shown through `gin_proto::text::printable` where it comes
//!   in ([`table`], [`list`], [`net`]'s error texts): no control or bidi character of a
//!   server's reaches the terminal.
//! - [`verify`]: checks a finished game's deals against their commitments (`gin verify`).
//!
//! ```
//! use gin_client_cli::app::{App, Command};
//! use crossterm::event::{KeyCode, KeyEvent};
//! let mut app = App::new(true);
//! // `?` opens the help; nothing is sent to the server.
//! assert_eq!(app.handle_key(KeyEvent::from(KeyCode::Char('?'))), None);
//! assert_eq!(app.overlay, Some(gin_client_cli::app::Overlay::Help));
//! ```

pub mod analyze;
pub mod app;
pub mod list;
pub mod net;
pub mod plain;
pub mod render;
pub mod replay;
pub mod run;
pub mod table;
pub mod table_app;
pub mod table_render;
pub mod table_run;
pub mod tables;
pub mod verify;
