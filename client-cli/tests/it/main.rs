//! gin-client-cli's integration tests, one binary (one link) for all: the pure model and the
//! renders (`fixtures`), and the real `gin` executable against a real server in this process
//! (`common`).

mod accounts_cli;
mod accounts_e2e;
mod challenges_e2e;
mod cli;
mod common;
mod conventions;
mod fake_accounts;
mod fixtures;
mod hostile;
mod model;
mod play_e2e;
mod ratings_e2e;
mod render;
mod resume;
mod table_fixtures;
mod tables_e2e;
mod tables_render;
mod tables_tmux;
mod tui;
mod verify_formats;
