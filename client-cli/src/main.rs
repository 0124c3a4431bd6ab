//! `gin`: the Gin Rummy command-line client.
//!
//! Parses the command line and dispatches to the modules of the `gin_client_cli` library.
//! Errors go to stderr as `gin: error: …` with exit status 1.

use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};
use gin_client_cli::{analyze, replay};

#[derive(Parser, Debug)]
#[command(name = "gin", version, about = "Gin Rummy client: analyze hands, replay game records")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Minimum deadwood and best melds of a hand; for 11 cards, the best discard first.
    Analyze(AnalyzeArgs),
    /// Replay a game record and print every hand, the final totals and the winner.
    Replay(ReplayArgs),
}

#[derive(Args, Debug)]
#[command(after_help = "\
Cards: rank then suit, e.g. 7S TD 10D qh A♠; separated by spaces or commas, as separate
arguments or one quoted argument.

With --stdin, each input line is one hand and gets exactly one output line: the deadwood
(11 cards: after the best discard), then for 11 cards `discard <card>`, then the melds, e.g.
  12 [7C 7D 7H] [3S 4S 5S]
  22 discard QD [7C 7D 7H] [3S 4S 5S]
A blank line gets a blank line; a bad line (not cards, a card twice, 0 or more than 11
cards) gets `error: <why>` and the stream goes on. The exit status is 0 even when some lines
were bad; it is 1 only when stdin cannot be read or stdout written.")]
struct AnalyzeArgs {
    /// The hand: 1 to 11 cards.
    #[arg(value_name = "CARDS", required_unless_present = "stdin", conflicts_with = "stdin")]
    cards: Vec<String>,
    /// Read one hand per line from stdin; write one answer line per input line.
    #[arg(long)]
    stdin: bool,
    /// The most deadwood a knock may leave (for the 11-card status line).
    #[arg(long, value_name = "N", default_value_t = 10)]
    knock_limit: u32,
}

#[derive(Args, Debug)]
struct ReplayArgs {
    /// The record file, JSON or the compact text form; `-` reads stdin.
    #[arg(value_name = "RECORD")]
    record: PathBuf,
    /// Print the replayed game result as JSON (`null` while the game is not over).
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        // The reader went away (`gin analyze --stdin … | head`): not an error of ours.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gin: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<io::Error>().is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe))
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Analyze(args) => run_analyze(args),
        Command::Replay(args) => run_replay(args),
    }
}

fn run_analyze(args: AnalyzeArgs) -> Result<()> {
    if args.stdin {
        let input = BufReader::with_capacity(1 << 16, io::stdin().lock());
        let output = BufWriter::with_capacity(1 << 16, io::stdout().lock());
        analyze::run_lines(input, output).context("analyze --stdin")?;
        return Ok(());
    }
    let text = args.cards.join(" ");
    let cards = analyze::parse_hand(&text).with_context(|| format!("bad hand {:?}", text.trim()))?;
    let analysis = analyze::analyze(cards)?;
    let mut out = io::stdout().lock();
    analyze::write_report(&mut out, &analysis, args.knock_limit)?;
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
    let game = replay::replay(&text).with_context(|| format!("record {name} does not replay"))?;
    let mut out = BufWriter::new(io::stdout().lock());
    if args.json {
        replay::write_json(&mut out, &game)?;
    } else {
        replay::write_report(&mut out, &game)?;
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

    #[test]
    fn analyze_needs_cards_or_stdin_but_not_both() {
        assert!(Cli::try_parse_from(["gin", "analyze"]).is_err());
        assert!(Cli::try_parse_from(["gin", "analyze", "--stdin", "7S"]).is_err());
        assert!(Cli::try_parse_from(["gin", "analyze", "--stdin"]).is_ok());
        assert!(Cli::try_parse_from(["gin", "analyze", "7S", "8S"]).is_ok());
    }
}
