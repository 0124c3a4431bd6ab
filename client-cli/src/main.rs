//! `gin`: the Gin Rummy command-line client.
//!
//! Parses the command line and dispatches to the modules of the `gin_client_cli` library.
//! Errors go to stderr as `gin: error: …` (and `  caused by: …` lines) with exit status 1;
//! usage errors are clap's, with status 2 (see `gin_cli_meta`). Each command's `--help`
//! ends with its exit statuses.

use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};
use gin_cli_meta::{USAGE_STATUS, common_statuses, exit_statuses};
use gin_client_cli::net::{self, Place, Seating};
use gin_client_cli::verify::{self, HandReveal, SeatDraws, SeedReveal, Verifiable};
use gin_client_cli::{analyze, replay, run};
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
    /// Print the shell completion script for gin (bash, zsh, fish, elvish, powershell).
    #[command(after_help = exit_statuses(COMPLETIONS_NOTES, &common_statuses("stdout cannot be written")))]
    Completions {
        /// The shell.
        #[arg(value_name = "SHELL")]
        shell: gin_cli_meta::Shell,
    },
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
gin prints the `gin play --join ID --token TOKEN` that brings you back.";

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
    /// Join the game with this id.
    #[arg(long, value_name = "ID")]
    join: Option<String>,
    /// With --join: come back to the seat this token holds (printed when you leave a game).
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
    /// Your display name.
    #[arg(long, env = "USER", default_value = "player")]
    name: String,
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
        (None, true, _) => Seating::Create,
        (None, false, Some(id)) => Seating::Join(id.clone(), args.accept_fixed_deals),
        (None, false, None) => Seating::QuickMatch(args.or_bot.clone().map(|b| (b, args.wait))),
    };
    if args.turn_secs.is_some() && matches!(how, Seating::QuickMatch(_)) {
        anyhow::bail!("--turn-secs needs --vs-bot or --create (a quick match has no clock)");
    }
    let client = net::connect(&args.server.server, args.server.ca_cert.as_deref()).await?;
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
    let place = match (&how, &args.token) {
        (Seating::Join(id, _), Some(token)) => Place { game_id: id.clone(), token: token.clone() },
        _ => net::seat(&client, &how, rules, clock, &args.name).await?,
    };
    if matches!(how, Seating::Create) {
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
        (None, true, _) => Seating::Create,
        (None, false, Some(id)) => Seating::Join(id.clone(), args.accept_fixed_deals),
        (None, false, None) => Seating::QuickMatch(args.or_bot.clone().map(|b| (b, args.wait))),
    };
    if args.turn_secs.is_some() && matches!(how, Seating::QuickMatch(_)) {
        anyhow::bail!("--turn-secs needs --vs-bot or --create (a quick match has no clock)");
    }
    let client = net::connect(&args.server.server, args.server.ca_cert.as_deref()).await?;
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
    let place = match (&how, &args.token) {
        (Seating::Join(id, _), Some(token)) => Place { game_id: id.clone(), token: token.clone() },
        _ => net::seat_table(&client, &how, &format, clock, &args.name).await?,
    };
    if matches!(how, Seating::Create) {
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

    #[test]
    fn analyze_needs_cards_or_stdin_but_not_both() {
        assert!(Cli::try_parse_from(["gin", "analyze"]).is_err());
        assert!(Cli::try_parse_from(["gin", "analyze", "--stdin", "7S"]).is_err());
        assert!(Cli::try_parse_from(["gin", "analyze", "--stdin"]).is_ok());
        assert!(Cli::try_parse_from(["gin", "analyze", "7S", "8S"]).is_ok());
    }
}
