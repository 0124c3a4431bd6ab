//! `gin`: the Gin Rummy command-line client.
//!
//! Parses the command line and dispatches to the modules of the `gin_client_cli` library.
//! Errors go to stderr as `gin: error: …` (and `  caused by: …` lines) with exit status 1;
//! usage errors are clap's, with status 2 (see `gin_cli_meta`). Each command's `--help`
//! ends with its exit statuses.

use std::io::{self, BufReader, BufWriter, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};
use gin_cli_meta::{USAGE_STATUS, common_statuses, exit_statuses};
use gin_client_cli::net::{self, Place, Seating};
use gin_client_cli::verify::{self, HandReveal, SeatDraws, SeedReveal, Verifiable};
use gin_client_cli::{analyze, creds, replay, run};
use gin_proto::text::printable;

#[derive(Parser, Debug)]
#[command(
    name = "gin",
    version = env!("GIN_VERSION"),
    about = "Gin Rummy client: play on a server (full screen or plain text), watch, list, verify; analyze hands, replay records",
    after_help = exit_statuses(
        "Each command's --help gives its own statuses (gin verify: 3, not verifiable yet).",
        &common_statuses("the command failed (the error is on stderr)"),
    ),
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Minimum deadwood and best melds of a hand; for 11 cards, the best discard first.
    Analyze(AnalyzeArgs),
    /// Replay a game record of any format and print every hand, the final totals and the
    /// winner.
    Replay(ReplayArgs),
    /// Play a game on a server: quick match (default), a house bot, or a game to share.
    Play(PlayArgs),
    /// Watch a game as a spectator.
    Watch(WatchArgs),
    /// List the open games (with a free seat) on a server.
    #[command(after_help = exit_statuses("", &[
        (0, "the list was printed (it may be empty)"),
        (1, "the server could not be reached or refused"),
        USAGE_STATUS,
    ]))]
    List(ServerArgs),
    /// Check a finished game's deals against their commitments.
    Verify(VerifyArgs),
    /// Accounts: create one; its tokens, password, export; delete it.
    #[command(subcommand, after_help = exit_statuses(ACCOUNT_NOTES, &ACCOUNT_STATUSES))]
    Account(AccountCmd),
    /// Sign in to an account on a server (the token is kept for the next commands).
    Login(LoginArgs),
    /// Sign out: the kept token is revoked on the server and forgotten here.
    #[command(after_help = exit_statuses("", &[
        (0, "signed out (or not signed in to begin with)"),
        (1, "the server could not be reached or refused, or the token file is unreadable"),
        USAGE_STATUS,
    ]))]
    Logout(ServerArgs),
    /// Who is signed in on the server (the kept token's account).
    #[command(after_help = exit_statuses("", &WHOAMI_STATUSES))]
    Whoami(ServerArgs),
    /// An account's games (yours when signed in, by default), newest first; each game's id
    /// for gin verify and the record.
    Games(GamesArgs),
    /// Challenge an account to a game (signed in): it sees the challenge (gin challenges) and
    /// accepts or declines; with --wait, play it here once accepted.
    #[command(after_help = exit_statuses(CHALLENGE_NOTES, &CHALLENGE_STATUSES))]
    Challenge(ChallengeArgs),
    /// Your open challenges, received and sent (signed in); accept, decline or cancel one.
    #[command(after_help = exit_statuses("", &CHALLENGES_STATUSES))]
    Challenges(ChallengesArgs),
    /// Play one game of the rated ladder (signed in): wait in the pool's queue until the
    /// server seats you by rating, then play the game here.
    #[command(after_help = exit_statuses(LADDER_NOTES, &PLAY_STATUSES))]
    Ladder(LadderArgs),
    /// A pool's leaderboard: its established ratings, best first (no sign-in needed).
    Leaderboard(LeaderboardArgs),
    /// An account's profile: its rating in each pool it has played, and its rated games.
    Profile(ProfileArgs),
    /// Print the shell completion script for gin (bash, zsh, fish, elvish, powershell).
    #[command(after_help = exit_statuses(COMPLETIONS_NOTES, &common_statuses("stdout cannot be written")))]
    Completions {
        /// The shell.
        #[arg(value_name = "SHELL")]
        shell: gin_cli_meta::Shell,
    },
}

const WHOAMI_STATUSES: [(u8, &str); 4] = [
    (0, "signed in: the account is printed"),
    (1, "the server could not be reached or refused, or the token file is unreadable"),
    USAGE_STATUS,
    (3, "signed out: no token kept for the server, or the server no longer takes it"),
];

/// Exit statuses of the account commands.
const ACCOUNT_STATUSES: [(u8, &str); 3] = [
    (0, "done"),
    (
        1,
        "the server could not be reached or refused (a name taken, a wrong password, not\n\
         signed in), a password could not be read, or the token file is unreadable",
    ),
    USAGE_STATUS,
];

const ACCOUNT_NOTES: &str = "\
The token is kept per server in accounts.json in the config folder (~/.config/gin on Linux;
GIN_CONFIG_DIR names another), readable by you only; gin play then plays as the account.
Passwords are asked on the terminal (without echo), or read from stdin, one a line, with
--password-stdin.";

#[derive(Subcommand, Debug)]
enum AccountCmd {
    /// Create an account (a person's, or with --bot a program's) and sign in to it.
    #[command(after_help = exit_statuses(ACCOUNT_NOTES, &ACCOUNT_STATUSES))]
    Create(CreateAccountArgs),
    /// The account's API tokens: list, create (shown once), revoke.
    #[command(subcommand, after_help = exit_statuses("", &ACCOUNT_STATUSES))]
    Tokens(TokensCmd),
    /// Set or change the account's password (every session ends; this one goes on with a
    /// new token).
    #[command(after_help = exit_statuses(
        "With --password-stdin: the current password's line first (when one is set), then the new one.",
        &ACCOUNT_STATUSES,
    ))]
    Password(PasswordArgs),
    /// Everything the server keeps about the account, as JSON (stdout, or --out FILE).
    #[command(after_help = exit_statuses("", &ACCOUNT_STATUSES))]
    Export(ExportArgs),
    /// Delete the account for good (its name is never given again; its games stay, its
    /// seats shown as deleted): you type its name to confirm.
    #[command(after_help = exit_statuses("", &ACCOUNT_STATUSES))]
    Delete(DeleteArgs),
}

#[derive(Args, Debug)]
struct CreateAccountArgs {
    /// The account's name (1 to 40 characters; unique, without regard to case).
    #[arg(value_name = "NAME")]
    name: String,
    #[command(flatten)]
    server: ServerArgs,
    /// A program's account: shown as a bot wherever it plays; no password, its token is
    /// printed once.
    #[arg(long, conflicts_with_all = ["password_stdin", "no_password"])]
    bot: bool,
    /// Read the password from stdin's first line instead of asking twice on the terminal.
    #[arg(long)]
    password_stdin: bool,
    /// No password: the token kept here is the only way in (gin account password sets one
    /// later).
    #[arg(long, conflicts_with = "password_stdin")]
    no_password: bool,
}

#[derive(Subcommand, Debug)]
enum TokensCmd {
    /// List the account's tokens (never their secrets), live ones first.
    #[command(after_help = exit_statuses("", &ACCOUNT_STATUSES))]
    List(ServerArgs),
    /// Create an API token for a program: printed once, on stdout.
    #[command(after_help = exit_statuses("", &ACCOUNT_STATUSES))]
    Create {
        /// Its label (1 to 64 characters): "laptop", "my bot on the ladder".
        #[arg(value_name = "LABEL")]
        label: String,
        /// What it may do (repeat the flag for several).
        #[arg(long, value_enum, required = true, value_name = "SCOPE")]
        scope: Vec<ScopeArg>,
        #[command(flatten)]
        server: ServerArgs,
    },
    /// Revoke one of the account's tokens by its id (gin account tokens list).
    #[command(after_help = exit_statuses("", &ACCOUNT_STATUSES))]
    Revoke {
        /// The token's id.
        #[arg(value_name = "ID")]
        id: String,
        #[command(flatten)]
        server: ServerArgs,
    },
}

/// A token's scope on the command line.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum ScopeArg {
    /// Create, join and play games.
    Play,
    /// Create and enter tournaments.
    Tournament,
    /// Manage the account: tokens, password, export, deletion.
    Account,
}

impl ScopeArg {
    fn wire(self) -> gin_proto::v1::TokenScope {
        use gin_proto::v1::TokenScope as S;
        match self {
            ScopeArg::Play => S::Play,
            ScopeArg::Tournament => S::Tournament,
            ScopeArg::Account => S::Account,
        }
    }
}

#[derive(Args, Debug)]
struct PasswordArgs {
    #[command(flatten)]
    server: ServerArgs,
    /// Read the passwords from stdin, one a line, instead of asking on the terminal.
    #[arg(long)]
    password_stdin: bool,
}

#[derive(Args, Debug)]
struct ExportArgs {
    #[command(flatten)]
    server: ServerArgs,
    /// Write it to this file (readable by you only) instead of stdout.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct DeleteArgs {
    #[command(flatten)]
    server: ServerArgs,
    /// The account's name, exactly as registered, instead of typing it when asked.
    #[arg(long, value_name = "NAME")]
    confirm: Option<String>,
    /// Read the password (when the account has one) from stdin's first line.
    #[arg(long)]
    password_stdin: bool,
}

const LOGIN_NOTES: &str = "\
The token is kept per server in accounts.json in the config folder (~/.config/gin on Linux;
GIN_CONFIG_DIR names another), readable by you only; gin play then plays as the account,
gin logout forgets it.";

#[derive(Args, Debug)]
#[command(after_help = exit_statuses(LOGIN_NOTES, &[
    (0, "signed in"),
    (1, "the server could not be reached or refused (an unknown name or a wrong password,\n\
         a token revoked), or the password could not be read"),
    USAGE_STATUS,
]))]
struct LoginArgs {
    /// The account's name (without regard to case).
    #[arg(value_name = "NAME", required_unless_present = "token", conflicts_with = "token")]
    name: Option<String>,
    #[command(flatten)]
    server: ServerArgs,
    /// Read the password from stdin's first line instead of asking on the terminal.
    #[arg(long, conflicts_with = "token")]
    password_stdin: bool,
    /// Sign in with this account token (gin_at_…) instead of a password (gin logout revokes
    /// it).
    #[arg(long, value_name = "TOKEN", env = "GIN_ACCOUNT_TOKEN", hide_env_values = true)]
    token: Option<String>,
}

#[derive(Args, Debug)]
#[command(after_help = exit_statuses("", &[
    (0, "the games were printed (there may be none)"),
    (1, "the server could not be reached or refused (no such account; without NAME, not\n\
         signed in)"),
    USAGE_STATUS,
]))]
struct GamesArgs {
    /// The account (default: yours, signed in).
    #[arg(value_name = "NAME")]
    name: Option<String>,
    #[command(flatten)]
    server: ServerArgs,
    /// Print them as JSON.
    #[arg(long)]
    json: bool,
    /// At most this many (the server's default: 20; at most 100).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    limit: Option<u32>,
    /// The page after the one that printed this token.
    #[arg(long, value_name = "TOKEN")]
    page_token: Option<String>,
}

/// Exit statuses of the challenge commands.
const CHALLENGE_STATUSES: [(u8, &str); 4] = [
    (0, "sent (with --wait: accepted, and the game was played, or left with its seat kept)"),
    (1, "the server could not be reached or refused (not signed in, no such account, rated)"),
    USAGE_STATUS,
    (3, "with --wait: the challenge was declined, cancelled or expired"),
];

/// Exit statuses of `gin challenges` and its subcommands.
const CHALLENGES_STATUSES: [(u8, &str); 3] = [
    (0, "done (accept: the game was played, or left with its seat kept; --no-play: printed)"),
    (1, "the server could not be reached or refused (not signed in, no such open challenge)"),
    USAGE_STATUS,
];

const CHALLENGE_NOTES: &str = "\
The challenge id is printed on stdout; the challenged account sees it with gin challenges,
and takes it with gin challenges accept ID. A challenge nobody answers expires (--expires).";

#[derive(Args, Debug)]
struct ChallengeArgs {
    /// The account to challenge, by name.
    #[arg(value_name = "NAME")]
    name: String,
    #[command(flatten)]
    server: ServerArgs,
    /// Rules: a preset (standard, wikihow, wikihow-alt, classic, american, oklahoma,
    /// multistage), a TOML/JSON rules file, or a format of two seats (rummy --players 2).
    #[arg(long, default_value = "standard", value_name = "PRESET|FILE")]
    rules: String,
    /// The table size, for a format (two: a challenge seats two accounts).
    #[arg(long, value_name = "N")]
    players: Option<u8>,
    /// A rated game (refused by a server without ratings).
    #[arg(long)]
    rated: bool,
    /// A turn clock of this many seconds (on expiry the server plays the turn).
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u32).range(1..=3600))]
    turn_secs: Option<u32>,
    /// Your seat, 0 or 1 (default: drawn when accepted).
    #[arg(long, value_name = "SEAT", value_parser = clap::value_parser!(u32).range(0..=1))]
    seat: Option<u32>,
    /// How long the challenge stays open, in seconds (the server's default: 600).
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u32).range(1..=3600))]
    expires: Option<u32>,
    /// Wait for the answer; once accepted, play the game here.
    #[arg(long)]
    wait: bool,
    #[command(flatten)]
    screen: ScreenArgs,
}

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
struct ChallengesArgs {
    #[command(subcommand)]
    action: Option<ChallengesCmd>,
    #[command(flatten)]
    server: ServerArgs,
}

#[derive(Subcommand, Debug)]
enum ChallengesCmd {
    /// List them (the default).
    #[command(after_help = exit_statuses("", &CHALLENGES_STATUSES))]
    List {
        #[command(flatten)]
        server: ServerArgs,
    },
    /// Accept a challenge you received and play its game here (--no-play: print the game).
    #[command(after_help = exit_statuses("", &CHALLENGES_STATUSES))]
    Accept {
        /// The challenge's id.
        #[arg(value_name = "ID")]
        id: String,
        /// Print the game's id and your seat instead of playing it.
        #[arg(long)]
        no_play: bool,
        #[command(flatten)]
        server: ServerArgs,
        #[command(flatten)]
        screen: ScreenArgs,
    },
    /// Decline a challenge you received.
    #[command(after_help = exit_statuses("", &CHALLENGES_STATUSES))]
    Decline {
        /// The challenge's id.
        #[arg(value_name = "ID")]
        id: String,
        #[command(flatten)]
        server: ServerArgs,
    },
    /// Cancel a challenge you sent.
    #[command(after_help = exit_statuses("", &CHALLENGES_STATUSES))]
    Cancel {
        /// The challenge's id.
        #[arg(value_name = "ID")]
        id: String,
        #[command(flatten)]
        server: ServerArgs,
    },
}

const POOL_NOTES: &str = "\
A pool is named by its id: gin/<preset> (two-player gin under a named preset, e.g.
gin/standard, gin/oklahoma), three-player, teams, gin-7/<n> and rummy/<n> (each table size).
A rating is provisional (and off the leaderboard) until its deviation comes down, after about
ten games. gin play --create --rated creates a rated game (signed in).";

const LADDER_NOTES: &str = "\
The ladder seats the closest ratings first, within a window that widens while you wait; every
ladder game is rated and has the server's turn clock. Run it again for the next game; ctrl-c
while waiting leaves the queue. Programs: gin-bot ladder.";

#[derive(Args, Debug)]
struct LadderArgs {
    #[command(flatten)]
    server: ServerArgs,
    /// The ladder: a preset of two-player gin (standard, oklahoma, …), or three-player, teams,
    /// gin-7, rummy (with --players).
    #[arg(long, default_value = "standard", value_name = "PRESET")]
    rules: String,
    /// The table size, for gin-7 (3 to 6) and rummy (2 to 6).
    #[arg(long, value_name = "N")]
    players: Option<u8>,
    #[command(flatten)]
    screen: ScreenArgs,
}

#[derive(Args, Debug)]
#[command(after_help = exit_statuses(POOL_NOTES, &[
    (0, "the leaderboard was printed (it may be empty)"),
    (1, "the server could not be reached or refused (an unknown pool)"),
    USAGE_STATUS,
]))]
struct LeaderboardArgs {
    /// Two-player gin under this preset: the pool gin/PRESET (the default: standard).
    #[arg(long, value_name = "PRESET", conflicts_with = "pool")]
    rules: Option<String>,
    /// The pool, by its id (gin/standard, three-player, teams, gin-7/4, rummy/3, …).
    #[arg(long, value_name = "POOL")]
    pool: Option<String>,
    /// At most this many lines (the server's default: 20; at most 100).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    limit: Option<u32>,
    /// Skip this many lines first (0: from the best).
    #[arg(long, value_name = "N", default_value_t = 0)]
    offset: u32,
    /// Print it as JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    server: ServerArgs,
}

#[derive(Args, Debug)]
#[command(after_help = exit_statuses(POOL_NOTES, &[
    (0, "the profile was printed"),
    (1, "the server could not be reached or refused (no such account, an unknown pool)"),
    USAGE_STATUS,
]))]
struct ProfileArgs {
    /// The account's name (without regard to case).
    #[arg(value_name = "NAME")]
    name: String,
    /// Only this pool's rated games, and more of them (by default: the newest few of each
    /// pool the account has played).
    #[arg(long, value_name = "POOL")]
    pool: Option<String>,
    /// At most this many rated games a pool (default: 20 with --pool, 5 without; at most
    /// 100).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    limit: Option<u32>,
    /// With --pool: the page after the one that printed this token.
    #[arg(long, value_name = "TOKEN", requires = "pool")]
    page_token: Option<String>,
    /// Print it as JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    server: ServerArgs,
}

const COMPLETIONS_NOTES: &str = "\
For bash: gin completions bash > ~/.local/share/bash-completion/completions/gin
For zsh:  gin completions zsh > ~/.zfunc/_gin  (with fpath+=~/.zfunc before compinit)
For fish: gin completions fish > ~/.config/fish/completions/gin.fish";

#[derive(Args, Debug, Clone)]
struct ServerArgs {
    /// The server: http://host:port, or https://host:port for TLS.
    #[arg(long, env = "GIN_SERVER", default_value = "http://127.0.0.1:50051", value_name = "URL")]
    server: String,
    /// For https: trust this CA certificate (PEM) instead of the system's roots.
    #[arg(long, value_name = "FILE")]
    ca_cert: Option<PathBuf>,
}

#[derive(Args, Debug, Clone)]
struct ScreenArgs {
    /// Line-by-line text instead of the full screen (screen readers, scripts); commands
    /// from stdin, `help` lists them.
    #[arg(long)]
    plain: bool,
    /// No colours (also when the NO_COLOR environment variable is set).
    #[arg(long)]
    no_color: bool,
}

const PLAY_NOTES: &str = "\
Without --vs-bot, --create or --join: a quick match with the next player asking for the same
rules (waits up to a minute); with --or-bot, the house bot plays you if nobody came within
--wait seconds.

Keys (full screen): a-k pick a card, Left/Right move, s stock, t take the pile/upcard,
p pass, Enter or x discard, K knock (asks y/n), B big gin, o sort by suit/rank, ? help,
q quit (asks y/n). At rummy: letters or Space mark cards, m melds them, l then a meld's
number lays the selected card off; at any table of 3-6, : types a command as --plain does.
With --plain, type `help` for the commands. Leaving a game keeps your seat:
gin prints the `gin play --join ID --token TOKEN` that brings you back.

Signed in (gin login, gin account create), the seat is your account's; --guest plays signed
out.";

const PLAY_STATUSES: [(u8, &str); 3] = [
    (0, "the game ended, or you left it (quit, end of input)"),
    (1, "the server could not be reached or refused, or the connection was lost"),
    USAGE_STATUS,
];

const WATCH_STATUSES: [(u8, &str); 3] = [
    (0, "the game ended, or you left it"),
    (1, "the server could not be reached, has no such game, or the connection was lost"),
    USAGE_STATUS,
];

#[derive(Args, Debug)]
#[command(after_help = exit_statuses(PLAY_NOTES, &PLAY_STATUSES))]
struct PlayArgs {
    #[command(flatten)]
    server: ServerArgs,
    #[command(flatten)]
    screen: ScreenArgs,
    /// Play the server's house bot: random, simple or strong.
    #[arg(long, value_name = "STRATEGY", conflicts_with_all = ["create", "join"])]
    vs_bot: Option<String>,
    /// Quick match, or play the server's house bot (random, simple or strong) if nobody asks
    /// for the same rules within --wait seconds.
    #[arg(long, value_name = "STRATEGY", conflicts_with_all = ["vs_bot", "create", "join"])]
    or_bot: Option<String>,
    /// With --or-bot: how long to wait for a person first.
    #[arg(long, value_name = "SECS", default_value_t = 10, requires = "or_bot",
          value_parser = clap::value_parser!(u32).range(1..=60))]
    wait: u32,
    /// Create a game, print its id to share, and wait for someone to join.
    #[arg(long, conflicts_with = "join")]
    create: bool,
    /// With --create: a rated game (signed in; --rules a preset): whoever joins must be
    /// signed in to another account.
    #[arg(long, requires = "create", conflicts_with = "guest")]
    rated: bool,
    /// Join the game with this id.
    #[arg(long, value_name = "ID")]
    join: Option<String>,
    /// With --join: come back to the seat this token holds (printed when you leave a game);
    /// an account token (gin_at_…) instead joins as that account.
    #[arg(long, value_name = "TOKEN", requires = "join")]
    token: Option<String>,
    /// With --join: join even though the game has fixed deals (its creator chose the seed and
    /// may know every hand; `gin list` marks such games).
    #[arg(long, requires = "join")]
    accept_fixed_deals: bool,
    /// Rules: a preset (standard, wikihow, wikihow-alt, classic, american, oklahoma,
    /// multistage) or a TOML/JSON rules file.
    #[arg(long, default_value = "standard", value_name = "PRESET|FILE")]
    rules: String,
    /// The table size, for a table format (--rules three-player, teams, gin-7 or rummy, or a
    /// format file): rummy 2–6, gin-7 3–6; default: the format's own.
    #[arg(long, value_name = "N")]
    players: Option<u8>,
    /// Your display name (signed in: the account's name is shown with it).
    #[arg(long, env = "USER", default_value = "player")]
    name: String,
    /// Play as a guest even when signed in (the seat is no account's).
    #[arg(long)]
    guest: bool,
    /// With --vs-bot or --create: a turn clock of this many seconds (on expiry the server
    /// plays the turn: passes, draws from the stock, discards the least useful card).
    #[arg(long, value_name = "SECS", conflicts_with = "join", value_parser = clap::value_parser!(u32).range(1..=3600))]
    turn_secs: Option<u32>,
}

#[derive(Args, Debug)]
#[command(after_help = exit_statuses("", &WATCH_STATUSES))]
struct WatchArgs {
    /// The game's id.
    id: String,
    #[command(flatten)]
    server: ServerArgs,
    #[command(flatten)]
    screen: ScreenArgs,
}

const VERIFY_NOTES: &str = "\
RECORD is a file written by `gin verify ID --save FILE`, or the id of a finished game on the
server, of any format (its record, every hand's revealed deck and salt, the seed's salt, and
the commitments published at each deal, read from the game's event stream). The seed, whose
commitment comes with the first deal, fixes every shuffle of a pile turned into the stock:
the record replays with it.";

#[derive(Args, Debug)]
#[command(after_help = exit_statuses(VERIFY_NOTES, &[
    (0, "every check passed"),
    (1, "a check failed, or the record could not be read or fetched"),
    USAGE_STATUS,
    (3, "not verifiable yet: the server keeps the record for now (a game in play; a\n\
         tournament's game, until the tournament is over), or no check failed but the seed\n\
         is not revealed yet"),
]))]
struct VerifyArgs {
    /// A saved verifiable record (JSON), or a finished game's id.
    #[arg(value_name = "RECORD")]
    record: String,
    #[command(flatten)]
    server: ServerArgs,
    /// Fetched from the server: also save the verifiable record to this file.
    #[arg(long, value_name = "FILE")]
    save: Option<PathBuf>,
    /// Your seat's token: the events are read as your seat saw them, and every card you drew
    /// (those after a turn of the pile too) is checked against the record.
    #[arg(long, value_name = "TOKEN")]
    token: Option<String>,
}

const ANALYZE_NOTES: &str = "\
Cards: rank then suit, e.g. 7S TD 10D qh A♠; separated by spaces or commas, as separate
arguments or one quoted argument.

With --stdin, each input line is one hand and gets exactly one output line: the deadwood
(11 cards: after the best discard), then for 11 cards `discard <card>`, then the melds, e.g.
  12 [7C 7D 7H] [3S 4S 5S]
  22 discard QD [7C 7D 7H] [3S 4S 5S]
A blank line gets a blank line; a bad line (not cards, a card twice, 0 or more than 11
cards) gets `error: <why>` and the stream goes on.";

#[derive(Args, Debug)]
#[command(after_help = exit_statuses(ANALYZE_NOTES, &[
    (0, "the hand was analyzed; with --stdin, every line was answered, bad ones too"),
    (1, "a bad hand, an unknown rules preset or file; with --stdin, stdin could not be\n\
         read or stdout written"),
    USAGE_STATUS,
]))]
struct AnalyzeArgs {
    /// The hand: 1 to 11 cards.
    #[arg(value_name = "CARDS", required_unless_present = "stdin", conflicts_with = "stdin")]
    cards: Vec<String>,
    /// Read one hand per line from stdin; write one answer line per input line.
    #[arg(long)]
    stdin: bool,
    /// The most deadwood a knock may leave (for the status line of a full hand; default:
    /// the rules', else 10).
    #[arg(long, value_name = "N")]
    knock_limit: Option<u32>,
    /// The rules or format: a preset (standard, …, gin-7, rummy) or a file. gin-7 hands
    /// hold up to 8 cards; rummy hands are scored by its rules (aces high or low).
    #[arg(long, value_name = "RULES")]
    rules: Option<String>,
    /// The table size, for gin-7 and rummy (their hand sizes depend on it).
    #[arg(long, value_name = "N")]
    players: Option<u8>,
}

#[derive(Args, Debug)]
#[command(after_help = exit_statuses("", &[
    (0, "the record replays to its recorded result"),
    (1, "the record cannot be read, does not parse, has an illegal action or a result\n\
         that differs"),
    USAGE_STATUS,
]))]
struct ReplayArgs {
    /// The record file, JSON or the compact text form (or a file `gin verify ID --save` wrote); `-` reads stdin.
    #[arg(value_name = "RECORD")]
    record: PathBuf,
    /// Print every hand in full and the result as JSON (the book: reference/command-line.md).
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    // Before anything built for a newer CPU runs (see `engine::cpu`).
    if let Some(why) = engine::cpu::unsupported("gin-client-cli") {
        eprintln!("gin: error: {why}");
        return ExitCode::from(gin_cli_meta::USAGE);
    }
    let cli: Cli = gin_cli_meta::parse("gin");
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        // The reader went away (`gin analyze --stdin … | head`): not an error of ours.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            // Errors may quote a server's words (most are escaped where they come in already):
            // `print_error` escapes them.
            gin_cli_meta::print_error("gin", &e);
            ExitCode::FAILURE
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<io::Error>().is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe))
}

fn run(cli: Cli) -> Result<u8> {
    match cli.command {
        Command::Analyze(args) => run_analyze(args).map(|()| 0),
        Command::Replay(args) => run_replay(args).map(|()| 0),
        Command::Play(args) => runtime()?.block_on(run_play(args)),
        Command::Watch(args) => runtime()?.block_on(run_watch(args)),
        Command::List(args) => runtime()?.block_on(run_list(args)).map(|()| 0),
        Command::Verify(args) => runtime()?.block_on(run_verify(args)),
        Command::Account(cmd) => runtime()?.block_on(run_account(cmd)).map(|()| 0),
        Command::Login(args) => runtime()?.block_on(run_login(args)).map(|()| 0),
        Command::Logout(args) => runtime()?.block_on(run_logout(args)).map(|()| 0),
        Command::Whoami(args) => runtime()?.block_on(run_whoami(args)),
        Command::Games(args) => runtime()?.block_on(run_games(args)).map(|()| 0),
        Command::Challenge(args) => runtime()?.block_on(run_challenge(args)),
        Command::Challenges(args) => runtime()?.block_on(run_challenges(args)),
        Command::Ladder(args) => runtime()?.block_on(run_ladder(args)),
        Command::Leaderboard(args) => runtime()?.block_on(run_leaderboard(args)).map(|()| 0),
        Command::Profile(args) => runtime()?.block_on(run_profile(args)).map(|()| 0),
        Command::Completions { shell } => {
            let cmd = <Cli as clap::CommandFactory>::command();
            gin_cli_meta::write_completions(cmd, shell, &mut io::stdout().lock())
                .context("writing the completions")?;
            Ok(0)
        }
    }
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")
}

fn no_color(s: &ScreenArgs) -> bool {
    s.no_color || std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

/// The table format `--rules` (and `--players`) name, when it is not two-player gin.
fn table_format(spec: &str, players: Option<u8>) -> Result<Option<engine::Format>> {
    let format = match engine::Format::preset(spec) {
        Ok(f) => f,
        Err(_) if Path::new(spec).exists() => {
            let text = std::fs::read_to_string(spec).with_context(|| format!("reading {spec}"))?;
            engine::Format::parse_any(&text).with_context(|| format!("rules file {spec}"))?
        }
        Err(_) => return Ok(None),
    };
    let format = match players {
        Some(n) => format.with_players(n).map_err(|e| anyhow::anyhow!("--players: {}", e.message))?,
        None => format,
    };
    Ok((format.kind() != engine::Kind::Gin).then_some(format))
}

async fn run_play(args: PlayArgs) -> Result<u8> {
    if let Some(format) = table_format(&args.rules, args.players)? {
        return run_play_table(args, format).await;
    }
    let rules = net::rules_spec(&args.rules)?;
    for (flag, b) in [("--vs-bot", &args.vs_bot), ("--or-bot", &args.or_bot)] {
        if let Some(b) = b {
            // The server checks too; this gives the error before connecting.
            gin_strategies::by_name(b, 0).map_err(|e| anyhow::anyhow!("{flag}: {e}"))?;
        }
    }
    let how = match (&args.vs_bot, args.create, &args.join) {
        (Some(b), _, _) => Seating::VsBot(b.clone()),
        (None, true, _) => Seating::Create(args.rated),
        (None, false, Some(id)) => Seating::Join(id.clone(), args.accept_fixed_deals),
        (None, false, None) => Seating::QuickMatch(args.or_bot.clone().map(|b| (b, args.wait))),
    };
    if args.turn_secs.is_some() && matches!(how, Seating::QuickMatch(_)) {
        anyhow::bail!("--turn-secs needs --vs-bot or --create (a quick match has no clock)");
    }
    if args.rated && matches!(rules.kind, Some(gin_proto::v1::rules::Kind::Custom(_))) {
        anyhow::bail!("--rated: custom rules are casual; name a preset with --rules");
    }
    let client = rated_client(&args, play_client(&args).await?)?;
    match &how {
        Seating::QuickMatch(None) => {
            eprintln!("waiting for an opponent asking for the same rules (up to a minute)…")
        }
        Seating::QuickMatch(Some((bot, secs))) => eprintln!(
            "waiting for an opponent asking for the same rules (the {bot} bot plays you after {secs} s)…"
        ),
        _ => {}
    }
    let clock = args.turn_secs.map(|s| gin_proto::v1::TurnClock {
        turn_millis: s * 1000,
        policy: gin_proto::v1::ClockPolicy::AutoPlay as i32,
    });
    let place = match (&how, &seat_token(&args)) {
        (Seating::Join(id, _), Some(token)) => Place { game_id: id.clone(), token: token.clone() },
        _ => net::seat(&client, &how, rules, clock, &args.name).await?,
    };
    if matches!(how, Seating::Create(_)) {
        // On stdout, so a script can read it; the full screen shows it too.
        let id = printable(&place.game_id);
        println!("game id: {id}  (share it: gin play --join {id})");
    }
    front_end(client, place, &args.screen).await
}

/// `gin play` at a table of another format: the house bot takes every other seat
/// (`--vs-bot`), or a quick match, a created game to share, a game joined.
async fn run_play_table(args: PlayArgs, format: engine::Format) -> Result<u8> {
    let how = match (&args.vs_bot, args.create, &args.join) {
        (Some(b), _, _) => Seating::VsBot(b.clone()),
        (None, true, _) => Seating::Create(args.rated),
        (None, false, Some(id)) => Seating::Join(id.clone(), args.accept_fixed_deals),
        (None, false, None) => Seating::QuickMatch(args.or_bot.clone().map(|b| (b, args.wait))),
    };
    if args.turn_secs.is_some() && matches!(how, Seating::QuickMatch(_)) {
        anyhow::bail!("--turn-secs needs --vs-bot or --create (a quick match has no clock)");
    }
    if args.rated && engine::Format::preset(&args.rules).is_err() {
        anyhow::bail!("--rated: a format file is casual; name a preset with --rules");
    }
    let client = rated_client(&args, play_client(&args).await?)?;
    if let Seating::QuickMatch(_) = how {
        eprintln!(
            "waiting for players asking for {} for {} (up to a minute)…",
            format.name(),
            format.players()
        );
    }
    let clock = args.turn_secs.map(|s| gin_proto::v1::TurnClock {
        turn_millis: s * 1000,
        policy: gin_proto::v1::ClockPolicy::AutoPlay as i32,
    });
    let place = match (&how, &seat_token(&args)) {
        (Seating::Join(id, _), Some(token)) => Place { game_id: id.clone(), token: token.clone() },
        _ => net::seat_table(&client, &how, &format, clock, &args.name).await?,
    };
    if matches!(how, Seating::Create(_)) {
        let id = printable(&place.game_id);
        println!("game id: {id}  (share it: gin play --join {id})");
    }
    front_end_table(client, place, &args.screen).await
}

async fn front_end_table(client: gin_sdk::Client, place: Place, screen: &ScreenArgs) -> Result<u8> {
    let (code, over) = if screen.plain {
        gin_client_cli::table_run::plain(client, place.clone(), io::stdout()).await?
    } else {
        gin_client_cli::table_run::tui(client, place.clone(), no_color(screen)).await?
    };
    left_note(&place, over);
    Ok(code)
}

/// Leaving a game that is not over: how to come back to the seat.
fn left_note(place: &Place, over: bool) {
    if !over && !place.token.is_empty() {
        eprintln!(
            "left game {id}; your seat is kept: come back with\n  gin play --join {id} --token {token}",
            id = printable(&place.game_id),
            token = printable(&place.token)
        );
    }
}

async fn front_end(client: gin_sdk::Client, place: Place, screen: &ScreenArgs) -> Result<u8> {
    // A table of another format has its own screen.
    let snap = client.get_game(&place.game_id, &place.token).await;
    if snap.is_ok_and(|s| s.format.is_some_and(|f| f.kind != engine::Kind::Gin.name())) {
        return front_end_table(client, place, screen).await;
    }
    let (code, over) = if screen.plain {
        run::plain(client, place.clone(), io::stdout()).await?
    } else {
        run::tui(client, place.clone(), no_color(screen)).await?
    };
    left_note(&place, over);
    Ok(code)
}

/// The client `gin play` seats with: signed in to the account kept for the server (the seat
/// is the account's), unless `--guest`.
async fn play_client(args: &PlayArgs) -> Result<gin_sdk::Client> {
    let client = net::connect(&args.server.server, args.server.ca_cert.as_deref()).await?;
    if args.guest {
        return Ok(client);
    }
    // An account token given as --token: that account joins (it holds the seat after).
    if let Some(t) = args.token.as_ref().filter(|t| gin_sdk::is_account_token(t)) {
        return Ok(client.with_account_token(Some(t.clone())));
    }
    // No config folder at all (no home): nobody can be signed in.
    let Ok(store) = creds::Store::open() else { return Ok(client) };
    Ok(match store.get(&args.server.server)? {
        Some(kept) => {
            eprintln!("playing as {} (--guest: as a guest)", printable(&kept.name));
            client.with_account_token(Some(kept.token))
        }
        None => client,
    })
}

/// With `--rated`, `client` must be signed in: a rated game is between accounts.
fn rated_client(args: &PlayArgs, client: gin_sdk::Client) -> Result<gin_sdk::Client> {
    if args.rated && client.account_token().is_none() {
        anyhow::bail!(
            "--rated: a rated game is between signed-in accounts, and you are not signed in on {}: \
             gin login NAME (or gin account create NAME)",
            printable(&args.server.server)
        );
    }
    Ok(client)
}

/// `--token` when it is a seat token (an account token, `gin_at_…`, signs in instead:
/// [`play_client`]).
fn seat_token(args: &PlayArgs) -> Option<String> {
    args.token.clone().filter(|t| !gin_sdk::is_account_token(t))
}

/// `gin ladder`: waits in the pool's queue (a line now and then on stderr: your rating, how
/// many wait, the expected wait), then plays the game the ladder seats you in.
async fn run_ladder(a: LadderArgs) -> Result<u8> {
    use gin_sdk::ladder::{LadderEvent, LadderStop};
    let pool = gin_sdk::ladder::pool_of(&a.rules, a.players).map_err(anyhow::Error::msg)?;
    let (client, _) = signed_in(&a.server).await?;
    let mut told: Option<u64> = None;
    let mut on_event = |e: LadderEvent<'_>| match e {
        LadderEvent::Queued(q) if told.is_none_or(|t| q.waited_ms >= t + 30_000) => {
            told = Some(q.waited_ms);
            let mark = if q.provisional { ", provisional" } else { "" };
            let expected = q
                .expected_wait_ms
                .map_or(String::new(), |ms| format!(", expected wait {} s", ms.div_ceil(1000)));
            eprintln!(
                "waiting in the ladder {}: your rating {:.0} ±{:.0}{mark}; {} waiting{expected} (ctrl-c leaves)",
                printable(&q.pool),
                q.rating,
                q.deviation,
                q.waiting
            );
        }
        LadderEvent::Retrying(s, wait) => {
            eprintln!("the ladder: {}; joining again in {:.1} s", printable(s.message()), wait.as_secs_f64())
        }
        _ => {}
    };
    let m = client
        .join_ladder(&pool, &LadderStop::default(), &mut on_event)
        .await
        .map_err(|e| refused("joining the ladder", &e))?
        .context("the ladder stopped")?;
    let others: Vec<String> = (0u32..)
        .zip(&m.seats)
        .filter(|(k, _)| *k != m.seat)
        .map(|(_, s)| format!("{} ({:.0})", printable(&s.name), s.rating))
        .collect();
    println!("game id: {}", printable(&m.game_id));
    eprintln!("seated against {} after {:.0} s", others.join(", "), m.waited_ms as f64 / 1000.0);
    front_end(client, Place { game_id: m.game_id, token: m.seat_token }, &a.screen).await
}

/// A refused account call, for people.
fn refused(what: &str, e: &gin_sdk::Error) -> anyhow::Error {
    anyhow::anyhow!("{what}: {}", net::explain(e))
}

/// The account kept for the server, and a client signed in with its token.
async fn signed_in(server: &ServerArgs) -> Result<(gin_sdk::Client, creds::Kept)> {
    let kept = creds::Store::open()?.get(&server.server)?.with_context(|| {
        format!("not signed in on {}: gin login NAME (or gin account create NAME)", printable(&server.server))
    })?;
    let client = net::connect(&server.server, server.ca_cert.as_deref()).await?;
    Ok((client.with_account_token(Some(kept.token.clone())), kept))
}

/// Where passwords come from: stdin, a line each (`--password-stdin`), or the terminal,
/// without echo.
struct Passwords {
    stdin: bool,
}

impl Passwords {
    /// One password.
    fn ask(&mut self, prompt: &str) -> Result<String> {
        if self.stdin {
            let mut line = String::new();
            if io::stdin().read_line(&mut line).context("reading a password from stdin")? == 0 {
                anyhow::bail!("stdin ended before the password (--password-stdin: one a line)");
            }
            let line = line.strip_suffix('\n').unwrap_or(&line);
            return Ok(line.strip_suffix('\r').unwrap_or(line).to_string());
        }
        // Asked only of a person at a terminal: with stdin redirected, a script runs us, and a
        // prompt on the controlling terminal would stall it.
        if !io::stdin().is_terminal() {
            anyhow::bail!("no terminal to ask the password on: pass it on stdin with --password-stdin");
        }
        rpassword::prompt_password(prompt).context("reading the password from the terminal")
    }

    /// A new password: asked twice on the terminal (once from stdin).
    fn new_password(&mut self, prompt: &str) -> Result<String> {
        let p = self.ask(prompt)?;
        if !self.stdin && self.ask("the same again: ")? != p {
            anyhow::bail!("the two passwords differ: nothing was changed");
        }
        Ok(p)
    }
}

/// The label of the tokens gin asks for (sessions, registrations).
const TOKEN_LABEL: &str = "gin";

async fn run_account(cmd: AccountCmd) -> Result<()> {
    use gin_client_cli::accounts::account_line;
    use gin_proto::v1 as pb;
    let store = creds::Store::open()?;
    match cmd {
        AccountCmd::Create(a) => {
            let client = net::connect(&a.server.server, a.server.ca_cert.as_deref()).await?;
            let (kind, password) = if a.bot {
                (pb::AccountKind::Bot, String::new())
            } else if a.no_password {
                (pb::AccountKind::Person, String::new())
            } else {
                let p = Passwords { stdin: a.password_stdin }
                    .new_password(&format!("password for {}: ", printable(&a.name)))?;
                (pb::AccountKind::Person, p)
            };
            let r = client
                .register(&a.name, kind, &password, TOKEN_LABEL)
                .await
                .map_err(|e| refused(&format!("creating account {}", printable(&a.name)), &e))?;
            let account = r.account.context("the server created an account and did not say which")?;
            let before = store.get(&a.server.server)?;
            store
                .set(&a.server.server, creds::Kept { name: account.name.clone(), token: r.token.clone() })?;
            if let Some(old) = before {
                end_session(&client, old.token).await;
            }
            println!("created {} on {}; signed in", account_line(&account), printable(&a.server.server));
            if a.bot {
                // The program's credential: shown this once.
                println!("token (shown once; give it to the program): {}", printable(&r.token));
            }
        }
        AccountCmd::Tokens(TokensCmd::List(server)) => {
            let (client, _) = signed_in(&server).await?;
            let tokens = client.list_tokens().await.map_err(|e| refused("listing the tokens", &e))?;
            for l in gin_client_cli::accounts::token_lines(&tokens) {
                println!("{l}");
            }
        }
        AccountCmd::Tokens(TokensCmd::Create { label, scope, server }) => {
            let (client, _) = signed_in(&server).await?;
            let scopes: Vec<pb::TokenScope> = scope.iter().map(|s| s.wire()).collect();
            let r =
                client.create_token(&label, &scopes).await.map_err(|e| refused("creating a token", &e))?;
            if let Some(t) = &r.token_info {
                eprintln!("token {} created; its secret is shown this once:", printable(&t.id));
            }
            println!("{}", printable(&r.token));
        }
        AccountCmd::Tokens(TokensCmd::Revoke { id, server }) => {
            let (client, _) = signed_in(&server).await?;
            let t = client.revoke_token(&id).await.map_err(|e| refused("revoking the token", &e))?;
            println!("revoked token {} ({})", printable(&t.id), printable(&t.label));
        }
        AccountCmd::Password(a) => {
            let (client, kept) = signed_in(&a.server).await?;
            let me = client.who_am_i().await.map_err(|e| refused("who am I", &e))?;
            let has = me.account.as_ref().is_some_and(|a| a.has_password);
            let mut ask = Passwords { stdin: a.password_stdin };
            let current = if has { ask.ask("current password: ")? } else { String::new() };
            let new = ask.new_password("new password: ")?;
            let r =
                client.set_password(&current, &new).await.map_err(|e| refused("setting the password", &e))?;
            store.set(&a.server.server, creds::Kept { name: kept.name.clone(), token: r.token })?;
            println!("password set for {}; every other session has ended", printable(&kept.name));
        }
        AccountCmd::Export(a) => {
            let (client, _) = signed_in(&a.server).await?;
            let json = client.export_account().await.map_err(|e| refused("exporting the account", &e))?;
            match &a.out {
                Some(p) => {
                    creds::write_private(p, &json)?;
                    eprintln!("written to {}", p.display());
                }
                None if io::stdout().is_terminal() => println!("{}", gin_proto::text::printable_lines(&json)),
                None => println!("{json}"),
            }
        }
        AccountCmd::Delete(a) => {
            let (client, kept) = signed_in(&a.server).await?;
            let me = client.who_am_i().await.map_err(|e| refused("who am I", &e))?;
            let account = me.account.context("the server did not say whose account this is")?;
            let typed = match a.confirm {
                Some(n) => n,
                None if io::stdin().is_terminal() && !a.password_stdin => {
                    eprint!("this deletes {} for good; type its name to confirm: ", account_line(&account));
                    io::stderr().flush()?;
                    let mut line = String::new();
                    io::stdin().read_line(&mut line)?;
                    line.trim_end_matches(['\r', '\n']).to_string()
                }
                None => anyhow::bail!("no terminal to confirm on: --confirm NAME"),
            };
            if typed != account.name {
                anyhow::bail!("{:?} is not the account's name: nothing was deleted", printable(&typed));
            }
            let password = if account.has_password {
                Passwords { stdin: a.password_stdin }.ask("password: ")?
            } else {
                String::new()
            };
            client
                .delete_account(&typed, &password)
                .await
                .map_err(|e| refused("deleting the account", &e))?;
            store.remove(&a.server.server)?;
            println!("deleted account {}", printable(&kept.name));
        }
    }
    Ok(())
}

async fn run_login(a: LoginArgs) -> Result<()> {
    let store = creds::Store::open()?;
    let client = net::connect(&a.server.server, a.server.ca_cert.as_deref()).await?;
    let (account, token) = match (&a.token, &a.name) {
        (Some(token), _) => {
            if !gin_sdk::is_account_token(token) {
                anyhow::bail!(
                    "--token: not an account token (they start with {})",
                    gin_sdk::ACCOUNT_TOKEN_PREFIX
                );
            }
            let me = client.clone().with_account_token(Some(token.clone()));
            let w = me.who_am_i().await.map_err(|e| refused("signing in with the token", &e))?;
            (w.account, token.clone())
        }
        (None, Some(name)) => {
            let password =
                Passwords { stdin: a.password_stdin }.ask(&format!("password for {}: ", printable(name)))?;
            let r = client
                .sign_in(name, &password, TOKEN_LABEL)
                .await
                .map_err(|e| refused(&format!("signing in as {}", printable(name)), &e))?;
            (r.account, r.token)
        }
        (None, None) => anyhow::bail!("NAME or --token"),
    };
    let account = account.context("the server signed in no account")?;
    let before = store.get(&a.server.server)?;
    store.set(&a.server.server, creds::Kept { name: account.name.clone(), token: token.clone() })?;
    if let Some(old) = before.filter(|old| old.token != token) {
        end_session(&client, old.token).await;
    }
    println!(
        "signed in as {} on {}",
        gin_client_cli::accounts::account_line(&account),
        printable(&a.server.server)
    );
    Ok(())
}

/// Signs out the session `token` replaced by another (best effort: it may be revoked
/// already); an API token (one given with `gin login --token`) is left alone.
async fn end_session(client: &gin_sdk::Client, token: String) {
    let old = client.clone().with_account_token(Some(token));
    if let Ok(w) = old.who_am_i().await
        && w.token.is_some_and(|t| t.session)
    {
        let _ = old.sign_out().await;
    }
}

async fn run_logout(server: ServerArgs) -> Result<()> {
    let store = creds::Store::open()?;
    let Some(kept) = store.get(&server.server)? else {
        println!("not signed in on {}", printable(&server.server));
        return Ok(());
    };
    let client = net::connect(&server.server, server.ca_cert.as_deref()).await?;
    match client.with_account_token(Some(kept.token.clone())).sign_out().await {
        Ok(()) => {}
        // Revoked already (elsewhere, or the account deleted): only forgetting it is left.
        Err(gin_sdk::Error::Rpc { status, .. }) if status.code() == tonic::Code::Unauthenticated => {}
        Err(e) => return Err(refused("signing out (the token is still kept)", &e)),
    }
    store.remove(&server.server)?;
    println!("signed out of {} on {}", printable(&kept.name), printable(&server.server));
    Ok(())
}

async fn run_whoami(server: ServerArgs) -> Result<u8> {
    let Some(kept) = creds::Store::open()?.get(&server.server)? else {
        println!("signed out on {} (gin login NAME)", printable(&server.server));
        return Ok(3);
    };
    let client = net::connect(&server.server, server.ca_cert.as_deref()).await?;
    match client.with_account_token(Some(kept.token)).who_am_i().await {
        Ok(w) => {
            for l in gin_client_cli::accounts::whoami_lines(&server.server, &w) {
                println!("{l}");
            }
            Ok(0)
        }
        Err(gin_sdk::Error::Rpc { status, .. }) if status.code() == tonic::Code::Unauthenticated => {
            println!(
                "signed out: the server no longer takes the token kept for {} (gin login again)",
                printable(&kept.name)
            );
            Ok(3)
        }
        Err(e) => Err(refused("who am I", &e)),
    }
}

/// `gin challenge NAME`: sends the challenge; with --wait, plays its game once accepted.
async fn run_challenge(a: ChallengeArgs) -> Result<u8> {
    use gin_proto::v1 as pb;
    // A format of two seats is named as the server takes it; gin rules as `gin play` reads them.
    let (format, rules) = match table_format(&a.rules, a.players)? {
        Some(_) if !a.rules.ends_with(".toml") && !a.rules.ends_with(".json") => (a.rules.clone(), None),
        Some(_) => anyhow::bail!("--rules {}: a table format file cannot be sent; name a preset", a.rules),
        None => (String::new(), Some(net::rules_spec(&a.rules)?)),
    };
    let (client, kept) = signed_in(&a.server).await?;
    let req = pb::CreateChallengeRequest {
        opponent: a.name.clone(),
        format,
        rules,
        players: a.players.map(u32::from).unwrap_or(0),
        clock: a
            .turn_secs
            .map(|s| pb::TurnClock { turn_millis: s * 1000, policy: pb::ClockPolicy::AutoPlay as i32 }),
        rated: a.rated,
        seat: a.seat,
        expires_in_s: a.expires.unwrap_or(0),
    };
    // Watching first, so the answer cannot come before the stream.
    let mut stream = match a.wait {
        true => Some(client.watch_challenges().await.map_err(|e| refused("watching the challenges", &e))?),
        false => None,
    };
    let c = client.create_challenge(req).await.map_err(|e| refused("challenging", &e))?;
    println!("{}", printable(&c.challenge_id));
    eprintln!(
        "challenged {} (expires {}); they answer with gin challenges accept {}",
        printable(&c.opponent),
        gin_client_cli::accounts::date(c.expires_ms),
        printable(&c.challenge_id)
    );
    let Some(stream) = stream.as_mut() else { return Ok(0) };
    eprintln!("waiting for the answer…");
    loop {
        let m = stream
            .message()
            .await
            .map_err(|s| anyhow::anyhow!("watching the challenges: {}", s.message()))?;
        let Some(m) = m else {
            anyhow::bail!("the server ended the stream of challenges");
        };
        // No challenge: a keep-alive.
        let Some(got) = m.challenge else { continue };
        if got.challenge_id != c.challenge_id {
            continue;
        }
        match pb::ChallengeState::try_from(got.state) {
            Ok(pb::ChallengeState::Accepted) => {
                println!("game id: {}", printable(&got.game_id));
                let place = Place { game_id: got.game_id, token: kept.token.clone() };
                return front_end(client, place, &a.screen).await;
            }
            Ok(pb::ChallengeState::Open) => {}
            Ok(s) => {
                eprintln!("{}", gin_client_cli::accounts::challenge_state(s as i32));
                return Ok(3);
            }
            Err(_) => {}
        }
    }
}

/// `gin challenges`: list, accept (and play), decline, cancel.
async fn run_challenges(a: ChallengesArgs) -> Result<u8> {
    let cmd = a.action.unwrap_or(ChallengesCmd::List { server: a.server });
    let server = match &cmd {
        ChallengesCmd::List { server }
        | ChallengesCmd::Accept { server, .. }
        | ChallengesCmd::Decline { server, .. }
        | ChallengesCmd::Cancel { server, .. } => server.clone(),
    };
    let (client, kept) = signed_in(&server).await?;
    let line = |c: &gin_proto::v1::Challenge| println!("{}", gin_client_cli::accounts::challenge_line(c));
    match cmd {
        ChallengesCmd::List { .. } => {
            let all = client.list_challenges().await.map_err(|e| refused("listing the challenges", &e))?;
            if all.is_empty() {
                eprintln!("no open challenges");
            }
            all.iter().for_each(line);
        }
        ChallengesCmd::Accept { id, no_play, screen, .. } => {
            let r = client.accept_challenge(&id).await.map_err(|e| refused("accepting", &e))?;
            let c = r.challenge.unwrap_or_default();
            println!("game id: {}  seat: {}", printable(&c.game_id), c.seat.unwrap_or(0));
            if !no_play {
                let place = Place { game_id: c.game_id, token: kept.token.clone() };
                return front_end(client, place, &screen).await;
            }
        }
        ChallengesCmd::Decline { id, .. } => {
            line(&client.decline_challenge(&id).await.map_err(|e| refused("declining", &e))?)
        }
        ChallengesCmd::Cancel { id, .. } => {
            line(&client.cancel_challenge(&id).await.map_err(|e| refused("cancelling", &e))?)
        }
    }
    Ok(0)
}

async fn run_games(a: GamesArgs) -> Result<()> {
    let kept = creds::Store::open()?.get(&a.server.server)?;
    if a.name.is_none() && kept.is_none() {
        anyhow::bail!(
            "not signed in on {}: name the account (gin games NAME), or gin login",
            printable(&a.server.server)
        );
    }
    let client = net::connect(&a.server.server, a.server.ca_cert.as_deref())
        .await?
        .with_account_token(kept.map(|k| k.token));
    let name = a.name.clone().unwrap_or_default();
    let r = client
        .list_player_games(&name, a.limit.unwrap_or(0), a.page_token.as_deref().unwrap_or(""))
        .await
        .map_err(|e| refused("listing the games", &e))?;
    let mut out = io::stdout().lock();
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&gin_client_cli::accounts::games_json(&r))?)?;
    } else {
        for l in gin_client_cli::accounts::games_lines(&r) {
            writeln!(out, "{l}")?;
        }
        if !r.next_page_token.is_empty() {
            eprintln!(
                "more: gin games {}--page-token {}",
                a.name.as_deref().map(|n| format!("{} ", printable(n))).unwrap_or_default(),
                printable(&r.next_page_token)
            );
        }
    }
    Ok(())
}

/// `gin leaderboard`: a page of a pool's leaderboard.
async fn run_leaderboard(a: LeaderboardArgs) -> Result<()> {
    use gin_client_cli::ratings;
    let pool = match (&a.pool, &a.rules) {
        (Some(p), _) => p.clone(),
        (None, Some(r)) => {
            if engine::RuleSet::preset(r).is_err() {
                anyhow::bail!(
                    "--rules {}: not a gin preset ({}); name another pool with --pool",
                    printable(r),
                    engine::PRESETS.join(", ")
                );
            }
            ratings::gin_pool(r)
        }
        (None, None) => ratings::gin_pool("standard"),
    };
    let client = net::connect(&a.server.server, a.server.ca_cert.as_deref()).await?;
    let r = client
        .leaderboard(&pool, a.offset, a.limit.unwrap_or(0))
        .await
        .map_err(|e| refused(&format!("the leaderboard of {}", printable(&pool)), &e))?;
    let mut out = io::stdout().lock();
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&ratings::leaderboard_json(&pool, &r))?)?;
        return Ok(());
    }
    for l in ratings::leaderboard_lines(&pool, &r) {
        writeln!(out, "{l}")?;
    }
    let next = u64::from(a.offset) + r.lines.len() as u64;
    if !r.lines.is_empty() && next < r.total {
        eprintln!("more: gin leaderboard --pool {} --offset {next}", printable(&pool));
    }
    Ok(())
}

/// `gin profile NAME`: the account, its ratings, and its rated games.
async fn run_profile(a: ProfileArgs) -> Result<()> {
    use gin_client_cli::ratings;
    let client = net::connect(&a.server.server, a.server.ca_cert.as_deref()).await?;
    let what = format!("the profile of {}", printable(&a.name));
    let account = client.get_account(&a.name).await.map_err(|e| refused(&what, &e))?;
    let mine = client.player_ratings(&a.name).await.map_err(|e| refused(&what, &e))?;
    let pools: Vec<String> = match &a.pool {
        Some(p) => vec![p.clone()],
        None => mine.ratings.iter().map(|r| r.pool.clone()).collect(),
    };
    let limit = a.limit.unwrap_or(if a.pool.is_some() { 20 } else { 5 });
    let page = a.page_token.as_deref().unwrap_or("");
    let mut histories = Vec::new();
    for p in pools {
        let h = client.rating_history(&a.name, &p, limit, page).await.map_err(|e| {
            refused(&format!("the rating history of {} in {}", printable(&a.name), printable(&p)), &e)
        })?;
        histories.push((p, h));
    }
    let mut out = io::stdout().lock();
    if a.json {
        let v = ratings::profile_json(&account, &mine, &histories);
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(());
    }
    for l in ratings::profile_lines(&account, &mine, &histories) {
        writeln!(out, "{l}")?;
    }
    if let Some((p, h)) = histories.iter().find(|(_, h)| !h.next_page.is_empty()) {
        if a.pool.is_some() {
            eprintln!(
                "more: gin profile {} --pool {} --page-token {}",
                printable(&a.name),
                printable(p),
                printable(&h.next_page)
            );
        } else {
            eprintln!("more: gin profile {} --pool POOL", printable(&a.name));
        }
    }
    Ok(())
}

async fn run_watch(args: WatchArgs) -> Result<u8> {
    let client = net::connect(&args.server.server, args.server.ca_cert.as_deref()).await?;
    // Fail early and clearly on an unknown game.
    client
        .get_game(&args.id, "")
        .await
        .map_err(|e| anyhow::anyhow!("game {}: {}", args.id, net::explain(&e)))?;
    front_end(client, Place { game_id: args.id, token: String::new() }, &args.screen).await
}

async fn run_list(args: ServerArgs) -> Result<()> {
    let client = net::connect(&args.server, args.ca_cert.as_deref()).await?;
    let games =
        client.list_games().await.map_err(|e| anyhow::anyhow!("listing games: {}", net::explain(&e)))?;
    let mut out = io::stdout().lock();
    for l in gin_client_cli::list::lines(&games) {
        writeln!(out, "{l}")?;
    }
    Ok(())
}

async fn run_verify(args: VerifyArgs) -> Result<u8> {
    let path = Path::new(&args.record);
    let v: Verifiable = if path.exists() {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        serde_json::from_str(&text).with_context(|| {
            format!("{} is not a verifiable record (from gin verify ID --save)", path.display())
        })?
    } else {
        let client = net::connect(&args.server.server, args.server.ca_cert.as_deref()).await?;
        match fetch_verifiable(&client, &args.record, args.token.as_deref().unwrap_or("")).await? {
            Ok(v) => v,
            Err(why) => {
                // A game in play, or a tournament's game before the tournament is over.
                let mut out = io::stdout().lock();
                writeln!(out, "game {}", printable(&args.record))?;
                writeln!(out, "not verifiable yet: {why}")?;
                return Ok(3);
            }
        }
    };
    if let Some(p) = &args.save {
        std::fs::write(p, serde_json::to_string_pretty(&v)? + "\n")
            .with_context(|| format!("writing {}", p.display()))?;
    }
    let report = verify::check(&v);
    let mut out = io::stdout().lock();
    // The record (and so its errors) came from a server, or a file saved from one.
    writeln!(out, "game {}", printable(&v.game_id))?;
    for l in &report.lines {
        writeln!(out, "{}", printable(l))?;
    }
    Ok(match (report.ok, report.pending) {
        (true, _) => 0,
        (false, true) => 3,
        (false, false) => 1,
    })
}

/// A finished game's record and reveals, with the commitments its stream published; `Err`
/// inside: the server keeps the record for now (FAILED_PRECONDITION), and why.
async fn fetch_verifiable(
    client: &gin_sdk::Client,
    id: &str,
    token: &str,
) -> Result<std::result::Result<Verifiable, String>> {
    let rec = match client.get_record(id).await {
        Ok(r) => r,
        Err(e) if matches!(&e, gin_sdk::Error::Rpc { status, .. } if status.code() == tonic::Code::FailedPrecondition) =>
        {
            return Ok(Err(net::explain(&e)));
        }
        Err(e) => {
            anyhow::bail!("game {id:?}: {} (is it a finished game's id or a file?)", net::explain(&e))
        }
    };
    let record = engine::TableRecord::parse(&rec.record_json)
        .map_err(|e| anyhow::anyhow!("the server's record of {id} does not parse: {e}"))?;
    let snap =
        client.get_game(id, token).await.map_err(|e| anyhow::anyhow!("game {id}: {}", net::explain(&e)))?;
    let (last, me) = (snap.seq, snap.viewer_seat);
    if !token.is_empty() && me.is_none() {
        anyhow::bail!("game {id}: the token holds no seat of it");
    }
    // The commitments as published at each deal: the stream from the start (the seat's, with
    // a token: with the cards it drew).
    let mut published = Vec::new();
    let mut seeds = Vec::new();
    let mut drawn = Vec::new();
    let mut stream =
        client.watch(id, token, 1).await.map_err(|e| anyhow::anyhow!("game {id}: {}", net::explain(&e)))?;
    let mut seq = 1;
    while seq < last {
        let m = tokio::time::timeout(std::time::Duration::from_secs(20), stream.message())
            .await
            .context("the server stopped sending the game's events")?
            .map_err(|s| anyhow::anyhow!("reading the events of {id}: {}", net::refusal_text(&s)))?
            .context("the event stream ended early")?;
        use gin_proto::v1::game_event::Kind as K;
        use gin_proto::v1::watch_game_response::Kind as W;
        if let Some(W::Event(e)) = m.kind {
            seq = e.seq;
            match e.kind {
                Some(K::HandDealt(d)) => {
                    published.push((d.hand_number, d.commitment));
                    seeds.push(verify::to_hex(&d.seed_commitment));
                }
                Some(K::CardDrawn(d)) if Some(d.seat) == me => drawn.push(d.card),
                _ => {}
            }
        }
    }
    let hands = rec
        .reveals
        .iter()
        .enumerate()
        .map(|(i, r)| HandReveal {
            deck: r.deck.join(" "),
            salt: verify::to_hex(&r.salt),
            commitment: verify::to_hex(&r.commitment),
            published: published.iter().find(|(n, _)| *n as usize == i).map(|(_, c)| verify::to_hex(c)),
        })
        .collect();
    // A server that commits to no seed (an earlier version) gives none.
    let seed = (!rec.seed_commitment.is_empty()).then(|| SeedReveal {
        salt: verify::to_hex(&rec.seed_salt),
        commitment: verify::to_hex(&rec.seed_commitment),
        published: seeds,
    });
    let seat = me.and_then(|s| u8::try_from(s).ok()).map(|seat| SeatDraws { seat, drawn });
    Ok(Ok(Verifiable { game_id: id.to_string(), record, hands, seed, seat }))
}

/// A format preset, or a rules/format file.
fn load_format(spec: &str) -> Result<engine::Format> {
    if let Ok(f) = engine::Format::preset(spec) {
        return Ok(f);
    }
    let path = Path::new(spec);
    if !path.exists() {
        let names: Vec<&str> = engine::Format::preset_names().collect();
        anyhow::bail!("{spec:?} is neither a preset ({}) nor a rules file", names.join(", "));
    }
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    engine::Format::parse_any(&text).with_context(|| format!("rules file {}", path.display()))
}

fn run_analyze(args: AnalyzeArgs) -> Result<()> {
    let format = match &args.rules {
        Some(spec) => {
            let f = load_format(spec)?;
            match args.players {
                Some(n) => f.with_players(n)?,
                None => f,
            }
        }
        None => engine::Format::default(),
    };
    let input = || BufReader::with_capacity(1 << 16, io::stdin().lock());
    let output = || BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let text = args.cards.join(" ");
    let parse = || analyze::parse_hand(&text).with_context(|| format!("bad hand {:?}", text.trim()));
    let mut out = io::stdout().lock();
    match &format {
        engine::Format::Rummy(r) => {
            let full = r.cards_each() as u32 + 1;
            let check = |cards: engine::CardSet| {
                if cards.len() > full {
                    Err(analyze::HandError::TooMany(cards.len(), full))
                } else {
                    Ok(cards)
                }
            };
            if args.stdin {
                analyze::run_lines_with(input(), output(), |c| check(c).map(|c| analyze::rummy_line(r, c)))
                    .context("analyze --stdin")?;
                return Ok(());
            }
            let cards = check(parse()?)?;
            analyze::write_rummy_report(&mut out, r, cards, full)?;
        }
        f => {
            let (full, limit) = match f {
                engine::Format::Gin7(r) => (r.hand_size as u32 + 1, r.knock_limit),
                f => (analyze::MAX_CARDS, f.gin_rules().map_or(10, |r| r.knock_limit)),
            };
            if args.stdin {
                analyze::run_lines_with(input(), output(), |c| {
                    let a = analyze::analyze_with(c, full)?;
                    let mut line = Vec::new();
                    analyze::write_line(&mut line, &a).expect("writing to a Vec");
                    Ok(String::from_utf8(line).expect("ASCII"))
                })
                .context("analyze --stdin")?;
                return Ok(());
            }
            let analysis = analyze::analyze_with(parse()?, full)?;
            analyze::write_report(&mut out, &analysis, args.knock_limit.unwrap_or(limit))?;
        }
    }
    out.flush()?;
    Ok(())
}

fn read_record(path: &Path) -> Result<String> {
    if path == Path::new("-") {
        let mut text = String::new();
        io::stdin().read_to_string(&mut text).context("cannot read the record from stdin")?;
        Ok(text)
    } else {
        std::fs::read_to_string(path).with_context(|| format!("cannot read record file {}", path.display()))
    }
}

fn run_replay(args: ReplayArgs) -> Result<()> {
    let text = read_record(&args.record)?;
    let name =
        if args.record == Path::new("-") { "stdin".to_string() } else { args.record.display().to_string() };
    let table = replay::replay_any(&text)
        .map_err(|e| anyhow::anyhow!(e))
        .with_context(|| format!("record {name} does not replay"))?;
    let mut out = BufWriter::new(io::stdout().lock());
    if args.json {
        replay::write_json(&mut out, &table)?;
    } else {
        replay::write_table_report(&mut out, &table)?;
    }
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_valid() {
        Cli::command().debug_assert();
    }

    /// docs/man/gin*.1 and docs/completions/{gin.bash,_gin,gin.fish} are what the code
    /// generates.
    #[test]
    fn generated_docs_are_current() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        gin_cli_meta::check_generated(
            Cli::command(),
            &root,
            "GIN_WRITE_GENERATED=1 cargo test -p gin-client-cli --bin gin generated_docs_are_current",
        );
    }

    fn parses(args: &str) -> bool {
        Cli::try_parse_from(std::iter::once("gin").chain(args.split_whitespace())).is_ok()
    }

    #[test]
    fn the_account_commands_parse() {
        for ok in [
            "account create alice",
            "account create alice --password-stdin --server http://h:1",
            "account create alice --no-password",
            "account create robo --bot",
            "login alice",
            "login alice --password-stdin",
            "login --token gin_at_x",
            "logout",
            "whoami --server http://h:1",
            "games",
            "games bob --json --limit 5 --page-token p",
            "account tokens list",
            "account tokens create laptop --scope play --scope tournament",
            "account tokens revoke t1",
            "account password --password-stdin",
            "account export --out f.json",
            "account delete --confirm alice --password-stdin",
            "play --vs-bot simple --guest",
        ] {
            assert!(parses(ok), "{ok}");
        }
        for bad in [
            "account create",
            "account create robo --bot --password-stdin",
            "account create a --password-stdin --no-password",
            "login",
            "login alice --token gin_at_x",
            "account tokens create laptop",
            "account tokens create laptop --scope everything",
            "account tokens revoke",
            "games --limit 0",
            "games --limit 101",
        ] {
            assert!(!parses(bad), "{bad}");
        }
    }

    #[test]
    fn analyze_needs_cards_or_stdin_but_not_both() {
        assert!(Cli::try_parse_from(["gin", "analyze"]).is_err());
        assert!(Cli::try_parse_from(["gin", "analyze", "--stdin", "7S"]).is_err());
        assert!(Cli::try_parse_from(["gin", "analyze", "--stdin"]).is_ok());
        assert!(Cli::try_parse_from(["gin", "analyze", "7S", "8S"]).is_ok());
    }
}
