//! `gin-bot`: self-play, network play and tournaments for Gin Rummy bots.
//!
//! Errors go to stderr as `gin-bot: error: …` (and `  caused by: …` lines) with exit status
//! 1; usage errors are clap's, with status 2 (see `gin_cli_meta`).

use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{CommandFactory, Parser, Subcommand};
use engine::RuleSet;
use gin_cli_meta::{common_statuses, exit_statuses};
use gin_strategies::selfplay::SelfPlay;

// Network play allocates a little for every frame and message; mimalloc does that faster
// than glibc's allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod account_cmd;
mod bridge_cmd;
mod ladder_cmd;
mod play_cmd;
mod tournament_cmd;

#[derive(Parser)]
#[command(
    name = "gin-bot",
    version = env!("GIN_VERSION"),
    about = "Gin Rummy bots: self-play, network play, tournaments",
    after_help = exit_statuses(
        "Logs (the SDK's retries, warnings) go to stderr; RUST_LOG sets their level (default warn).",
        &common_statuses(FAILED),
    ),
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

/// What exit status 1 means, for every command.
const FAILED: &str = "the command failed (the error is on stderr)";

#[derive(Subcommand)]
enum Cmd {
    /// Plays two strategies against each other in-process, on all cores.
    #[command(after_help = exit_statuses("", &common_statuses(
        "an unknown strategy or rules preset, a bad rules file, stdout cannot be written",
    )))]
    Selfplay(SelfplayArgs),
    /// Plays games on a server: quick matches, games against a house bot (--vs-bot), or one
    /// given game (--join, --token); many at once; prints each result and a summary.
    #[command(after_help = exit_statuses("", &common_statuses(
        "the server could not be reached, or any game failed (N of M games failed)",
    )))]
    Play(play_cmd::PlayArgs),
    /// Plays games on a server with a program in any language that speaks a line protocol on
    /// stdin/stdout (see examples/bridge/README.md): no gRPC needed.
    #[command(after_help = exit_statuses("", &common_statuses(
        "the server could not be reached, the program could not be started, or a game failed\n\
         (with --on-error resign-game or skip, a game resigned for the program's error is\n\
         reported and play goes on)",
    )))]
    Bridge(bridge_cmd::BridgeArgs),
    /// Plays the server's rated ladder as an account until stopped: joins a pool, plays each
    /// game it is seated in, joins again; prints its rating as it goes.
    #[command(after_help = exit_statuses("", &common_statuses(
        "the server could not be reached, the token was refused, or a game failed",
    )))]
    Ladder(ladder_cmd::LadderArgs),
    /// Tournaments run by a server: create, join (play as an entrant), watch, results.
    #[command(subcommand, after_help = exit_statuses("", &common_statuses(FAILED)))]
    Tournament(tournament_cmd::TournamentCmd),
    /// Accounts for bots: create one (its token printed once), to play as it with
    /// --account-token.
    #[command(subcommand, after_help = exit_statuses("", &common_statuses(FAILED)))]
    Account(account_cmd::AccountCmd),
    /// Print the shell completion script for gin-bot (bash, zsh, fish, elvish, powershell).
    #[command(after_help = exit_statuses(
        "For bash: gin-bot completions bash > ~/.local/share/bash-completion/completions/gin-bot\n\
         For zsh:  gin-bot completions zsh > ~/.zfunc/_gin-bot  (with fpath+=~/.zfunc before compinit)\n\
         For fish: gin-bot completions fish > ~/.config/fish/completions/gin-bot.fish",
        &common_statuses("stdout cannot be written"),
    ))]
    Completions {
        /// The shell.
        #[arg(value_name = "SHELL")]
        shell: gin_cli_meta::Shell,
    },
}

#[derive(clap::Args)]
struct SelfplayArgs {
    /// Strategy A: random, simple, strong, strong-v1, strong-v2, gin-hunter, early-knocker or
    /// defensive.
    #[arg(long)]
    a: String,
    /// Strategy B.
    #[arg(long)]
    b: String,
    /// Games to play (with --duplicate: rounded up to even, half as many deal pairs).
    #[arg(long, value_name = "N", default_value_t = 1000)]
    games: u64,
    /// A preset name (standard, oklahoma, …, three-player, teams, gin-7, rummy) or a
    /// TOML/JSON rules or format file.
    #[arg(long, default_value = "standard")]
    rules: String,
    /// The table size, for formats played at several (gin-7: 3 to 6, rummy: 2 to 6).
    #[arg(long, value_name = "N")]
    players: Option<u8>,
    /// Master seed for deals and strategies' choices.
    #[arg(long, value_name = "N", default_value_t = 1)]
    seed: u64,
    /// Play every deal twice with seats swapped.
    #[arg(long)]
    duplicate: bool,
    /// Print the report as JSON on stdout.
    #[arg(long)]
    json: bool,
    /// Worker threads (default: one per core).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Do not measure each decision's time (slightly faster).
    #[arg(long)]
    no_timing: bool,
}

/// A preset name, or a rules file.
fn load_rules(spec: &str) -> Result<RuleSet> {
    if let Ok(r) = RuleSet::preset(spec) {
        return Ok(r);
    }
    let path = PathBuf::from(spec);
    if !path.exists() {
        anyhow::bail!("{spec:?} is neither a preset ({}) nor a rules file", engine::PRESETS.join(", "));
    }
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    RuleSet::parse_any(&text).with_context(|| format!("rules file {}", path.display()))
}

/// A format preset name, or a rules/format file.
fn load_format(spec: &str) -> Result<engine::Format> {
    if let Ok(f) = engine::Format::preset(spec) {
        return Ok(f);
    }
    let path = PathBuf::from(spec);
    if !path.exists() {
        let names: Vec<&str> = engine::Format::preset_names().collect();
        anyhow::bail!("{spec:?} is neither a preset ({}) nor a rules file", names.join(", "));
    }
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    engine::Format::parse_any(&text).with_context(|| format!("rules file {}", path.display()))
}

/// Self-play at a table of any format: A at each seat in turn (team play: on each team),
/// B at the others.
fn table_selfplay(a: SelfplayArgs, format: engine::Format) -> Result<()> {
    let format = match a.players {
        Some(n) => format.with_players(n)?,
        None => format,
    };
    let mut sp = gin_strategies::tables::TableSelfPlay {
        format,
        a: a.a,
        b: a.b,
        deals: 0,
        seed: a.seed,
        threads: a.threads,
    };
    let rotations = sp.rotations().len() as u64;
    sp.deals = a.games.div_ceil(rotations);
    sp.validate().map_err(|e| anyhow::anyhow!("unknown strategy {}", e.0))?;
    let report = sp.run()?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.text());
    }
    Ok(())
}

fn selfplay(a: SelfplayArgs) -> Result<()> {
    let format = load_format(&a.rules)?;
    if format.kind() != engine::Kind::Gin || a.players.is_some_and(|n| n != 2) {
        return table_selfplay(a, format);
    }
    let sp = SelfPlay {
        a: a.a,
        b: a.b,
        games: a.games,
        rules: format.gin_rules().expect("a gin format").clone(),
        seed: a.seed,
        duplicate: a.duplicate,
        threads: a.threads,
        timing: !a.no_timing,
    };
    sp.validate()?;
    let bar = if std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40.cyan/blue} {pos}/{len} games  {per_sec}  ETA {eta}",
            )
            .expect("valid template"),
        );
        Some(bar)
    } else {
        None
    };
    let report = sp.run(&|done, total| {
        if let Some(b) = &bar {
            b.set_length(total);
            b.set_position(done);
        }
    })?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.text());
    }
    Ok(())
}

fn main() -> std::process::ExitCode {
    // Before anything built for a newer CPU runs (see `engine::cpu`).
    if let Some(why) = engine::cpu::unsupported("gin-bot") {
        eprintln!("gin-bot: error: {why}");
        return std::process::ExitCode::from(gin_cli_meta::USAGE);
    }
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let cli: Cli = gin_cli_meta::parse("gin-bot");
    let r = match cli.cmd {
        Cmd::Selfplay(a) => selfplay(a),
        Cmd::Play(a) => play_cmd::run(a),
        Cmd::Bridge(a) => bridge_cmd::run(a),
        Cmd::Ladder(a) => ladder_cmd::run(a),
        Cmd::Tournament(c) => tournament_cmd::run(c),
        Cmd::Account(c) => account_cmd::run(c),
        Cmd::Completions { shell } => {
            gin_cli_meta::write_completions(Cli::command(), shell, &mut std::io::stdout().lock())
                .context("writing the completions")
        }
    };
    match r {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            // A server's words escaped (most are where they come in already).
            gin_cli_meta::print_error("gin-bot", &e);
            std::process::ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flags_are_well_formed() {
        Cli::command().debug_assert();
    }

    /// docs/man/gin-bot*.1 and docs/completions/{gin-bot.bash,_gin-bot,gin-bot.fish} are what
    /// the code generates.
    #[test]
    fn generated_docs_are_current() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        gin_cli_meta::check_generated(
            Cli::command(),
            &root,
            "GIN_WRITE_GENERATED=1 cargo test -p gin-bot --bin gin-bot generated_docs_are_current",
        );
    }

    fn parses(args: &str) -> bool {
        Cli::try_parse_from(std::iter::once("gin-bot").chain(args.split_whitespace())).is_ok()
    }

    /// The shared spellings (the book: reference/command-line.md, "Flags") parse, and so do the older ones scripts may use.
    #[test]
    fn the_shared_flags_and_their_older_spellings_parse() {
        for ok in [
            "play --join G --token T --strategy-seed 3",
            "play --join G --accept-fixed-deals",
            "play --vs-bot simple --games 4 --parallel 2 --ca-cert ca.pem",
            "play --game G --token T --seed 3 --concurrency 2",
            "bridge --cmd x --join G --ca-cert ca.pem",
            "tournament create --games-per-pairing 4 --turn-secs 0.5 --pairing swiss --seed 9",
            "tournament create --games 4 --clock-ms 500 --format swiss",
            "tournament join ID --strategy-seed 2 --ca-cert ca.pem",
            "tournament join --id ID --seed 2",
            "tournament watch ID",
            "tournament watch --id ID",
            "tournament results ID --format csv",
            "tournament results --id ID --format json",
            "account create robo",
            "account create robo --token-file t --server http://h:1",
            "play --account-token gin_at_x --vs-bot simple",
            "tournament join ID --account-token gin_at_x",
            "tournament join ID --token gin_at_x",
            "tournament create --account-token gin_at_x",
        ] {
            assert!(parses(ok), "{ok}");
        }
        for bad in [
            "play --token T",
            "play --accept-fixed-deals",
            "play --join G --vs-bot simple",
            "tournament watch",
            "tournament watch ID --id ID",
            "tournament create --turn-secs 1 --clock-ms 1000",
            "tournament create --turn-secs 0",
            "account create",
            "account create robo --password x",
        ] {
            assert!(!parses(bad), "{bad}");
        }
    }
}
