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
//! - Accounts (`gin account`, `gin login`, `gin logout`, `gin whoami`, `gin games`):
//!   [`creds`] keeps the account token per server (a `0600` file in a `0700` folder);
//!   [`accounts`] is what those commands print. Signed in, `gin play` seats the account.
//! - Ratings (`gin leaderboard`, `gin profile`): [`ratings`] is what they print.
//!
//! ## The files
//!
//! | file | what it holds |
//! |---|---|
//! | `main.rs` | flags (clap) and dispatch; `play` (quick match [`--or-bot`: a house bot if nobody came in `--wait` s], `--vs-bot`, `--create` [`--rated`: signed in, a preset], `--join` [`--token`: back to a seat left], `--rules` [a table format with `--players`: `run_play_table`], `--turn-secs`), a game of another format goes to `table_run` (`front_end` looks at the snapshot's format), `watch`, `list`, `verify` (fetches a record of any format, its reveals, the seed's salt and the commitments, deal and seed, published at each deal; exit 1 on a failed check, 3 while the seed is secret; `--token`: the seat's stream, its draws kept), `analyze`, `replay`; accounts: `account create` (a person's password asked twice with `rpassword`, or `--password-stdin`; `--bot`: its token printed once), `account tokens list/create/revoke`, `account password`, `account export`, `account delete` (the name typed again), `login` (password or `--token`), `logout` (SignOut, then the token forgotten), `whoami` (exit 3 signed out), `games` (`ListPlayerGames`: a table or `--json`, paged); ratings: `leaderboard` (`--pool`, or `--rules PRESET`: `gin/PRESET`; paged; `--json`), `profile NAME` (`GetAccount`, `GetPlayerRatings`, each pool's newest rated games or `--pool`'s, paged; `--json`); `play_client`: signed in unless `--guest` |
//! | `creds.rs` | `Store`: the kept account tokens, `accounts.json` in the config folder (`directories`; `GIN_CONFIG_DIR`), a map from server URL to account name and token; written through a new `0600` file renamed over it, the folder `0700`; a corrupt file is an error naming it; `write_private` (an export) |
//! | `ratings.rs` | `gin leaderboard` (rank, name with `(bot)`, rating, ±deviation, games) and `gin profile` (the account, its rating per pool with its rank or `provisional`, each pool's rated games: before → after, opponents) lines and `--json` (pure; the server's text escaped) |
//! | `accounts.rs` | `gin whoami`, `gin games` (date, format, opponents: an account with `(bot)` for a bot's, `deleted`, a house bot, `guest`; result; game id) and `gin account tokens` lines, `gin games --json` (pure; the server's text escaped) |
//! | `table.rs` | `Table`: one viewer's picture of a game folded from the protobuf snapshot and events (the server's text, names, rules name and game id, enters through `shown`: escaped) (hand, pile, stock, the opponent's known cards, scores, finished hands, turn info, clock deadline, result, the move log); refuses a seq gap; the viewer's live arrangement (engine solver) |
//! | `app.rs` | `App`: the full-screen state (`Stage::Connecting` / `InGame`, sort order, selected card, overlays: help, knock/big gin/resign/quit confirmations, a hand's result) and `handle_key` → `Command` (an action, resign, or quit); local legality checks with a reason for people (`refusal`) |
//! | `render.rs` | `draw(frame, app, now)`: header, table, hand with labels, melds and deadwood, prompt, the last hand's result, score sheet, log, status line, windows; `hand_over_lines` / `game_over_lines` shared with plain mode; a message below 60×20 |
//! | `plain.rs` | `Plain`: `--plain` mode as a pure machine from network events and input lines to output lines and `Flow` (continue, act, exit); holds input while an action is in flight |
//! | `net.rs` | the thin network side over the bot SDK (`gin_sdk::Client`: connect, seat, retries): `seat` (the four ways to a seat), `follow` (the event stream, resumed from the last seq after a drop, gap-checked; each action sent in its own task with the seq the player saw; the stream's end after the game over is not a drop), server errors as messages |
//! | `run.rs` | the two loops: terminal set-up and restore by `ratatui::try_init` / `ratatui::restore` (raw mode, the alternate screen, ratatui's panic hook that restores first), keys from crossterm's `EventStream` in the same `select!` as the network's events, a 500 ms tick for the clock; plain mode's stdin thread |
//! | `tables.rs` | a table of another format (three players, teams, gin for 3 to 6, rummy): `TableScreen` (pure: the viewer's latest snapshot and the event log; every seat with its cards and known cards, each table's pile and stock, rummy's melds with who laid each card, team totals, the seat sitting out, the hand and its best melds), its plain-text lines and typed commands (`--plain`, and the full screen's `:` line); a move the server refuses shows its reason |
//! | `table_app.rs` | `TableApp`: the full screen at those tables, in the two-player screen's keys (labels or arrows select, `s`/`t`/`p`, Enter/`x` discard, `K`/`B` with a confirmation; rummy: labels or Space mark, `m` meld, `l` then a meld's number), the help listing the keys that work at that table, results held until Space, the quit confirmation |
//! | `table_render.rs` | draws `TableApp` (pure): header, each table (the seat sitting out, both team tables), the hand with labels, rummy's numbered melds, prompt, windows |
//! | `table_run.rs` | the loops of those screens over `net::follow` (`Move::Table`: a wire move sent by `Client::send_legal`): the snapshot refreshed by `GetGame` at the viewer's turn and at the end, the game's end held until its game-over event; plain mode reads a line at the viewer's turn, one answer at a time |
//! | `list.rs` | `gin list`'s lines from `ListGames` (pure, the server's text escaped) |
//! | `verify.rs` | `Verifiable` (a `TableRecord` of any format (a saved two-player `GameRecord` reads too) + each hand's deck, salt, commitment and the commitment published at the deal + `SeedReveal`: the seed's salt, its commitment and those published with each deal + `SeatDraws`: one seat's draws as its stream showed them) and `check`: the seed against its commitment as published, the record replayed (counting the turns of the pile the seed fixed; a pile turned with no seed commitment fails), the seat's draws against the replay's, then per hand `engine::verify_deal`, the deck equals the record's deal, the commitment equals the published one; a secret seed (empty salt) leaves the report `pending` |
//! | `analyze.rs`, `replay.rs` | `gin analyze` and `gin replay` |
//!
//! Tests, one binary (`tests/it/`, a module per former file): `render.rs` renders the main screens into ratatui's `TestBackend` at 80×24 and
//! 120×40 and compares them with `insta` snapshots, `tests/snapshots/*.snap` (a difference fails;
//! under `CI=true` insta never writes; to accept a change, `cargo insta review` or
//! `INSTA_UPDATE=always` and review the diff); `model.rs` the table, keys and plain mode on hand-made
//! snapshots (`fixtures.rs`); `hostile.rs` a hostile server's snapshot, events,
//! `ListGames` answer and errors (escape sequences, bidi overrides, zero-width characters)
//! through the table, both screens, `list` and the error texts: no cell or line holds a raw one; `play_e2e.rs` runs the real binary in plain mode against
//! a house bot on an in-process server to game over (answering the `your turn:` prompts), then
//! `verify`, `list`, `watch`; `tui.rs` runs the real binary full screen in a pseudo-terminal
//! (`portable-pty`), reads the screen back through a terminal emulator (`vt100`) and plays by
//! keys against a house bot (pass, draw, discard, knock with `K`/`y`, Space between hands), quits
//! halfway and comes back with `--join --token`, then checks the screen's final score and that
//! every answer is exactly one action in the server's record; `resume.rs` stops and restarts the server mid-game and checks
//! every seq arrives once, in order; `tables_render.rs` the table screens' snapshots at every format;
//! `tables_tmux.rs` the real binary in tmux plays a rummy game for three and gin at one table for
//! four to their end by keys against house bots, the final totals checked against `GetRecord`
//! (skipped without tmux unless `GIN_REQUIRE_TMUX=1`); `cli.rs` analyze and replay.
//!
//! ```
//! use gin_client_cli::app::{App, Command};
//! use crossterm::event::{KeyCode, KeyEvent};
//! let mut app = App::new(true);
//! // `?` opens the help; nothing is sent to the server.
//! assert_eq!(app.handle_key(KeyEvent::from(KeyCode::Char('?'))), None);
//! assert_eq!(app.overlay, Some(gin_client_cli::app::Overlay::Help));
//! ```

pub mod accounts;
pub mod analyze;
pub mod app;
pub mod creds;
pub mod list;
pub mod net;
pub mod plain;
pub mod ratings;
pub mod render;
pub mod replay;
pub mod run;
pub mod table;
pub mod table_app;
pub mod table_render;
pub mod table_run;
pub mod tables;
pub mod verify;
