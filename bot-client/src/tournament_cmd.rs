//! `gin-bot tournament create|join|watch|results`: tournaments run by a server. Its text
//! (names, ids, tokens, error messages) is printed escaped: `gin_proto::text::printable`.

use std::io::IsTerminal;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use gin_proto::text::{printable, printable_lines};
use gin_proto::v1 as pb;
use gin_proto::v1::tournament_service_client::TournamentServiceClient;
use gin_sdk::entrant::standings_table;
use tonic::transport::Channel;

use crate::load_rules;

/// Tournament commands.
#[derive(clap::Subcommand)]
pub enum TournamentCmd {
    /// Creates a tournament and prints its id.
    #[command(after_help = statuses("the server could not be reached or refused the tournament"))]
    Create(CreateArgs),
    /// Enters a tournament with a built-in strategy, or a program through the bridge (--cmd),
    /// and plays every assigned game.
    #[command(after_help = statuses("the server could not be reached or refused, or the entrant's play failed"))]
    Join(JoinArgs),
    /// Shows progress (games done/total, ETA) until the end, then the standings.
    #[command(after_help = statuses("the server could not be reached or has no such tournament"))]
    Watch(IdArgs),
    /// Prints the standings and games: a table, JSON or CSV.
    #[command(after_help = statuses("the server could not be reached or has no such tournament"))]
    Results(ResultsArgs),
}

/// The exit statuses of a `gin-bot tournament` command, 1 meaning `failure`.
fn statuses(failure: &'static str) -> String {
    gin_cli_meta::exit_statuses("", &gin_cli_meta::common_statuses(failure))
}

/// Where the server is: the same two flags on every `gin-bot` command that talks to one (and
/// on `gin`'s).
#[derive(clap::Args)]
pub struct ServerArg {
    /// The server: http://host:port, or https://host:port (TLS, checked against the system's
    /// roots or --ca-cert).
    #[arg(long, env = "GIN_SERVER", default_value = "http://127.0.0.1:50051", value_name = "URL")]
    pub server: String,
    /// For https: trust this CA certificate (PEM) instead of the system's roots.
    #[arg(long, value_name = "FILE")]
    pub ca_cert: Option<std::path::PathBuf>,
    /// Play as this account (its token, gin_at_…: `gin-bot account create` prints one): the
    /// games and tournaments entered are the account's, shown as a bot's. Without it, a guest.
    #[arg(long, value_name = "TOKEN", env = "GIN_ACCOUNT_TOKEN", hide_env_values = true)]
    pub account_token: Option<String>,
}

impl ServerArg {
    /// Connects (plain or TLS, with --ca-cert), with the SDK's retries.
    pub async fn client(&self) -> Result<gin_sdk::Client> {
        let mut opts = gin_sdk::Options::default();
        if let Some(f) = &self.ca_cert {
            opts.ca_cert = Some(std::fs::read(f).with_context(|| format!("reading {}", f.display()))?);
        }
        // A seat or entrant token here would be sent as nobody's account: say so now.
        if self.account_token.as_deref().is_some_and(|t| !gin_sdk::is_account_token(t)) {
            anyhow::bail!(
                "--account-token: not an account token (those start with {})",
                gin_sdk::ACCOUNT_TOKEN_PREFIX
            );
        }
        Ok(gin_sdk::Client::connect_with(&self.server, opts)
            .await?
            .with_account_token(self.account_token.clone()))
    }

    /// The connection alone, for the services the SDK has no wrapper for.
    pub async fn channel(&self) -> Result<Channel> {
        Ok(self.client().await?.channel())
    }
}

/// A tournament's id: positional (like `gin watch ID`); `--id ID`, the spelling before, is
/// still taken.
#[derive(clap::Args)]
pub struct TournamentId {
    /// The tournament id (printed by `tournament create`).
    #[arg(value_name = "ID", required_unless_present = "id_flag")]
    id: Option<String>,
    /// The same, as a flag (the older spelling).
    #[arg(long = "id", value_name = "ID", hide = true, conflicts_with = "id")]
    id_flag: Option<String>,
}

impl TournamentId {
    fn get(&self) -> String {
        self.id.clone().or_else(|| self.id_flag.clone()).unwrap_or_default()
    }
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum Format {
    RoundRobin,
    Gauntlet,
    Swiss,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum ClockPolicy {
    AutoPlay,
    Forfeit,
}

#[derive(clap::Args)]
pub struct CreateArgs {
    #[command(flatten)]
    server: ServerArg,
    /// How entrants are paired (gauntlet: the first to join plays every other).
    // `--format`: the older spelling, still taken (`results --format` is the output's format).
    #[arg(long, value_enum, default_value = "round-robin", alias = "format")]
    pairing: Format,
    /// Entrants needed to start.
    #[arg(long, default_value_t = 2)]
    entrants: u32,
    /// Games per pairing (per round for Swiss); rounded up to even with --duplicate.
    // `--games`: the older spelling, still taken (elsewhere `--games` counts all the games).
    #[arg(long, value_name = "N", default_value_t = 10, alias = "games")]
    games_per_pairing: u32,
    /// Play each deal twice, seats swapped.
    #[arg(long)]
    duplicate: bool,
    /// A preset name (standard, oklahoma, …, or a table format: three-player, teams, gin-7,
    /// rummy) or a TOML/JSON rules or format file. Tables play round robin only: every
    /// group of --players entrants meets at a table, in every seating.
    #[arg(long, default_value = "standard")]
    rules: String,
    /// The table size (rummy 2–6, gin-7 3–6); default: the format's own.
    #[arg(long, value_name = "N")]
    players: Option<u8>,
    /// A turn clock of this many seconds (decimals allowed: 0.5), as `gin play --turn-secs`;
    /// without it, no clock.
    #[arg(long, value_name = "SECS", value_parser = parse_turn_secs)]
    turn_secs: Option<u32>,
    /// The turn clock in milliseconds (the older flag; 0: none).
    #[arg(long, value_name = "MS", hide = true, conflicts_with = "turn_secs")]
    clock_ms: Option<u32>,
    /// What happens when the clock runs out.
    #[arg(long, value_enum, default_value = "auto-play")]
    clock_policy: ClockPolicy,
    /// Games in play at once.
    #[arg(long, value_name = "N", default_value_t = 16)]
    parallel: u32,
    /// Swiss rounds (0: ceil(log2(entrants))).
    #[arg(long, default_value_t = 0)]
    rounds: u32,
    /// Stop early by SPRT on entrant 0's Elo advantage: ELO0,ELO1[,ALPHA,BETA] (2 entrants).
    #[arg(long)]
    sprt: Option<String>,
    /// Seed for the deals (0: random, revealed at the end). A seed chosen here fixes every deal:
    /// entrants must join with --accept-fixed-deals.
    #[arg(long, value_name = "N", default_value_t = 0)]
    seed: u64,
    /// A name for people.
    #[arg(long, default_value = "")]
    name: String,
}

#[derive(clap::Args)]
pub struct JoinArgs {
    #[command(flatten)]
    server: ServerArg,
    #[command(flatten)]
    id: TournamentId,
    /// The strategy to play: random, simple, strong, strong-v1, strong-v2, gin-hunter,
    /// early-knocker or defensive (every one at three players and in teams; random, simple or
    /// strong at gin-7 and rummy).
    #[arg(long, default_value = "simple")]
    strategy: String,
    /// Play with this program instead, through the bridge's line protocol (as `gin-bot
    /// bridge --cmd`), run once with `sh -c` for every game, one game at a time.
    #[arg(long, value_name = "COMMAND", conflicts_with_all = ["strategy", "strategy_seed"])]
    cmd: Option<String>,
    /// With --cmd: how long the program may take to answer one turn, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 10_000, requires = "cmd")]
    timeout_ms: u64,
    /// With --cmd: what a bad or late answer, or a line written when no answer was asked,
    /// does: stop (resign the game; every later game is resigned at once, and the command
    /// fails at the end), resign-game (resign it and play the next game), skip (tell the
    /// program, play a safe move for that turn, go on), as `gin-bot bridge --on-error`.
    #[arg(long, value_enum, default_value = "stop", requires = "cmd")]
    on_error: crate::bridge_cmd::OnErrorArg,
    /// The entrant's display name (default: the strategy's name, or `bridge` with --cmd).
    #[arg(long)]
    name: Option<String>,
    /// Re-enter as this entrant (printed when it first joined). An account token (gin_at_…)
    /// here is taken, by its prefix, as --account-token: the account enters.
    #[arg(long, value_name = "TOKEN")]
    token: Option<String>,
    /// Seed of our strategy's choices.
    // `--seed`: the older spelling, still taken (`--seed` elsewhere seeds the deals).
    #[arg(long, value_name = "N", default_value_t = 1, alias = "seed")]
    strategy_seed: u64,
    /// Enter even though the tournament has fixed deals (its creator chose the seed and may
    /// know every hand); the server refuses a new entrant of such a tournament without it.
    #[arg(long)]
    accept_fixed_deals: bool,
}

#[derive(clap::Args)]
pub struct IdArgs {
    #[command(flatten)]
    server: ServerArg,
    #[command(flatten)]
    id: TournamentId,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum ResultsFormat {
    Table,
    Json,
    Csv,
}

#[derive(clap::Args)]
pub struct ResultsArgs {
    #[command(flatten)]
    ids: IdArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: ResultsFormat,
}

/// `--turn-secs`: seconds, decimals allowed, to whole milliseconds (at least 1 ms, at most an
/// hour).
fn parse_turn_secs(s: &str) -> Result<u32, String> {
    let secs: f64 = s.parse().map_err(|_| format!("{s:?} is not a number of seconds"))?;
    if !(0.001..=3600.0).contains(&secs) {
        return Err(format!("{s}: from 0.001 to 3600 seconds"));
    }
    Ok((secs * 1000.0).round() as u32)
}

/// The rules for the wire: a preset by name, or a rules file as a full custom rule set.
pub fn wire_rules(spec: &str) -> Result<pb::Rules> {
    if engine::RuleSet::preset(spec).is_ok() {
        return Ok(gin_sdk::preset(spec));
    }
    Ok(gin_sdk::custom(&load_rules(spec)?))
}

fn parse_sprt(s: &str) -> Result<pb::Sprt> {
    let v: Vec<f64> = s
        .split(',')
        .map(|x| x.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .with_context(|| format!("--sprt {s:?}: expected numbers ELO0,ELO1[,ALPHA,BETA]"))?;
    match v.as_slice() {
        [e0, e1] => Ok(pb::Sprt { elo0: *e0, elo1: *e1, alpha: 0.05, beta: 0.05 }),
        [e0, e1, a, b] => Ok(pb::Sprt { elo0: *e0, elo1: *e1, alpha: *a, beta: *b }),
        _ => bail!("--sprt {s:?}: expected ELO0,ELO1 or ELO0,ELO1,ALPHA,BETA"),
    }
}

/// Runs a tournament command.
pub fn run(cmd: TournamentCmd) -> Result<()> {
    // One worker: an entrant's work is mostly small network messages, and on a small machine
    // (the server on the same cores) a second worker only adds thread handoffs (measured:
    // 80-88 games/s with one against 68-70 with two). Slow strategies still move off the
    // worker (`block_in_place`). GIN_BOT_THREADS overrides.
    let workers = std::env::var("GIN_BOT_THREADS").ok().and_then(|v| v.parse().ok()).unwrap_or(1);
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(workers).enable_all().build()?;
    rt.block_on(async move {
        match cmd {
            TournamentCmd::Create(a) => create(a).await,
            TournamentCmd::Join(a) => join(a).await,
            TournamentCmd::Watch(a) => watch(a).await,
            TournamentCmd::Results(a) => results(a).await,
        }
    })
}

async fn create(a: CreateArgs) -> Result<()> {
    let format = crate::load_format(&a.rules)?;
    let format = match a.players {
        Some(n) => format.with_players(n)?,
        None => format,
    };
    // Two-player gin as its rules; a table as its format's full document.
    let (rules, game_format) = match &format {
        engine::Format::Gin(_) => (Some(wire_rules(&a.rules)?), String::new()),
        table => (None, table.to_value().to_string()),
    };
    let spec = pb::TournamentSpec {
        name: a.name,
        format: match a.pairing {
            Format::RoundRobin => pb::TournamentFormat::RoundRobin,
            Format::Gauntlet => pb::TournamentFormat::Gauntlet,
            Format::Swiss => pb::TournamentFormat::Swiss,
        } as i32,
        entrants: a.entrants,
        games_per_pairing: a.games_per_pairing,
        duplicate: a.duplicate,
        rules,
        game_format,
        players: 0,
        clock: Some(pb::TurnClock {
            turn_millis: a.turn_secs.or(a.clock_ms).unwrap_or(0),
            policy: match a.clock_policy {
                ClockPolicy::AutoPlay => pb::ClockPolicy::AutoPlay,
                ClockPolicy::Forfeit => pb::ClockPolicy::Forfeit,
            } as i32,
        }),
        parallel: a.parallel,
        rounds: a.rounds,
        sprt: a.sprt.as_deref().map(parse_sprt).transpose()?,
        seed: a.seed,
    };
    let client = a.server.client().await?;
    let mut t = TournamentServiceClient::new(client.channel());
    let r = t
        .create_tournament(client.request(pb::CreateTournamentRequest { spec: Some(spec) }))
        .await
        .map_err(|s| refused(&s))?
        .into_inner();
    let id = printable(&r.tournament_id);
    println!("{id}");
    eprintln!(
        "tournament {id} created: up to {} games; it starts when every entrant has joined",
        r.total_games
    );
    Ok(())
}

async fn join(a: JoinArgs) -> Result<()> {
    use gin_sdk::bridge::{BotProcess, BridgeEntrant};
    use gin_sdk::entrant::{EntrantEvent, EntrantPlayer, Entry, play_tournament, play_tournament_with};
    let client = a.server.client().await?;
    let id = a.id.get();
    let entry = Entry {
        tournament_id: id.clone(),
        name: a.name.unwrap_or_else(|| if a.cmd.is_some() { "bridge".into() } else { a.strategy.clone() }),
        token: a.token,
        accept_fixed_deals: a.accept_fixed_deals,
    };
    // The bridge's program, when it plays: its forgiven errors are printed after each game.
    let bot = match &a.cmd {
        Some(cmd) => {
            Some(BotProcess::spawn_with(cmd, Duration::from_millis(a.timeout_ms), a.on_error.on_error())?)
        }
        None => None,
    };
    let notes = |bot: &Option<std::sync::Arc<BotProcess>>| {
        for n in bot.iter().flat_map(|b| b.take_notes()) {
            eprintln!("{}", printable(&n));
        }
    };
    let report = |ev| {
        match ev {
            EntrantEvent::Entered { entrant, token, joined, needed } => eprintln!(
                "entered as entrant #{entrant} ({joined}/{needed} joined); re-enter with --token {}",
                printable(&token)
            ),
            EntrantEvent::Played(o) => println!("{}", o.line()),
            EntrantEvent::PlayedTable(o) => println!("{}", o.line()),
            EntrantEvent::Failed { game_id, error } => {
                eprintln!("game {}: {}", printable(&game_id), printable(&error))
            }
        }
        notes(&bot);
    };
    let standings = match &bot {
        Some(b) => {
            let player: std::sync::Arc<dyn EntrantPlayer> =
                std::sync::Arc::new(BridgeEntrant::new(b.clone()));
            play_tournament_with(&client, entry, player, report).await
        }
        None => play_tournament(&client, entry, &a.strategy, a.strategy_seed, report).await,
    };
    let standings = match (standings, &bot) {
        (Ok(s), _) => s,
        (Err(e), Some(b)) => {
            b.finish(Duration::from_secs(1));
            return Err(e.into());
        }
        (Err(e), None) => return Err(e.into()),
    };
    // The whole final state (its counts and format) when the server gives it; else the
    // standings the stream ended with.
    let full = TournamentServiceClient::new(client.channel())
        .get_tournament(pb::GetTournamentRequest { tournament_id: id.clone() })
        .await
        .ok()
        .and_then(|r| r.into_inner().state);
    let st = full.unwrap_or(pb::TournamentState {
        tournament_id: id,
        status: pb::TournamentStatus::Finished as i32,
        standings: Some(standings),
        ..Default::default()
    });
    print!("{}", standings_table(&st));
    if let Some(b) = bot {
        let failure = b.failure();
        let how = b.finish(Duration::from_secs(5));
        match failure {
            Some(e) => {
                bail!("{e}: the program stopped playing, its later games were resigned; the program {how}")
            }
            None => eprintln!("the program {how}"),
        }
    }
    Ok(())
}

async fn watch(a: IdArgs) -> Result<()> {
    let mut t = TournamentServiceClient::new(a.server.channel().await?);
    let bar = std::io::stderr().is_terminal().then(|| {
        let b = indicatif::ProgressBar::new(0);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:40.cyan/blue} {pos}/{len} games  {msg}  ETA {eta}")
                .expect("valid template"),
        );
        b
    });
    let mut last = None;
    let mut printed = std::time::Instant::now() - Duration::from_secs(60);
    // When this watch first saw the tournament, and its games done then: the rate since.
    let mut since: Option<(std::time::Instant, u32)> = None;
    loop {
        let stream = t.watch_tournament(pb::WatchTournamentRequest { tournament_id: a.id.get() }).await;
        let mut s = match stream {
            Ok(s) => s.into_inner(),
            Err(e) if e.code() == tonic::Code::Unavailable => {
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
            Err(e) => return Err(refused(&e)),
        };
        loop {
            match s.message().await {
                Ok(Some(m)) => {
                    let st = m.state.unwrap_or_default();
                    if let Some(b) = &bar {
                        b.set_length(st.games_total as u64);
                        b.set_position(st.games_done as u64);
                        b.set_message(format!("{} running", st.games_running));
                    } else if printed.elapsed() >= Duration::from_secs(2)
                        || st.status == pb::TournamentStatus::Finished as i32
                    {
                        printed = std::time::Instant::now();
                        let first = *since.get_or_insert((printed, st.games_done));
                        let eta = eta_secs(first, (printed, st.games_done), st.games_total)
                            .map_or(String::new(), |s| format!(", ETA {s:.0} s"));
                        eprintln!(
                            "{}/{} games, {} running{eta}",
                            st.games_done, st.games_total, st.games_running
                        );
                    }
                    last = Some(st);
                }
                Ok(None) => break,
                Err(e) if e.code() == tonic::Code::Unavailable => break,
                Err(e) => return Err(refused(&e)),
            }
        }
        if last.as_ref().is_some_and(|s| s.status == pb::TournamentStatus::Finished as i32) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    print!("{}", standings_table(&last.unwrap_or_default()));
    Ok(())
}

async fn results(a: ResultsArgs) -> Result<()> {
    let mut t = TournamentServiceClient::new(a.ids.server.channel().await?);
    let id = a.ids.id.get();
    let fmt = match a.format {
        ResultsFormat::Table => {
            let st = t
                .get_tournament(pb::GetTournamentRequest { tournament_id: id })
                .await
                .map_err(|s| refused(&s))?
                .into_inner()
                .state
                .unwrap_or_default();
            print!("{}", standings_table(&st));
            return Ok(());
        }
        ResultsFormat::Json => pb::ExportFormat::Json,
        ResultsFormat::Csv => pb::ExportFormat::Csv,
    };
    let r = t
        .export_tournament(pb::ExportTournamentRequest { tournament_id: id, format: fmt as i32 })
        .await
        .map_err(|s| refused(&s))?
        .into_inner();
    print!("{}", export_text(&r.content, std::io::stdout().is_terminal()));
    if !r.content.ends_with('\n') {
        println!();
    }
    Ok(())
}

/// Seconds left at the rate seen between `first` and `now` (instant, games done), for
/// `total` games; `None` before any game ended in between.
fn eta_secs(first: (std::time::Instant, u32), now: (std::time::Instant, u32), total: u32) -> Option<f64> {
    let done = now.1.checked_sub(first.1).filter(|&d| d > 0)?;
    let secs = now.0.duration_since(first.0).as_secs_f64();
    Some(secs / done as f64 * total.saturating_sub(now.1) as f64)
}

/// A status from the server as an error, its message escaped.
fn refused(s: &tonic::Status) -> anyhow::Error {
    anyhow::anyhow!("{}: {}", s.code(), printable(s.message()))
}

/// An exported results document as printed: on a terminal, its text escaped line by line
/// (`printable_lines`); into a file or a pipe, exactly as the server sent it (a JSON or CSV
/// document for another program, which escaping would change).
pub fn export_text(content: &str, terminal: bool) -> std::borrow::Cow<'_, str> {
    if terminal { printable_lines(content) } else { content.into() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_export_is_escaped_on_a_terminal_and_kept_for_a_file() {
        let csv = "number,seat0\n1,\u{202e}ecila\x1b[2J\n";
        let shown = export_text(csv, true);
        assert_eq!(shown, "number,seat0\n1,\\u{202e}ecila\\u{1b}[2J\n");
        assert_eq!(export_text(csv, false), csv);
    }

    #[test]
    fn the_eta_is_the_rate_seen_so_far() {
        let t0 = std::time::Instant::now();
        let t1 = t0 + Duration::from_secs(10);
        // 20 games in 10 s, 60 left: 30 s.
        assert_eq!(eta_secs((t0, 5), (t1, 25), 85), Some(30.0));
        assert_eq!(eta_secs((t0, 5), (t1, 5), 85), None, "no game ended yet");
        assert_eq!(eta_secs((t0, 5), (t1, 85), 85), Some(0.0));
    }

    #[test]
    fn turn_secs_are_whole_milliseconds() {
        assert_eq!(parse_turn_secs("30"), Ok(30_000));
        assert_eq!(parse_turn_secs("0.5"), Ok(500));
        assert!(parse_turn_secs("0").is_err());
        assert!(parse_turn_secs("3601").is_err());
        assert!(parse_turn_secs("soon").is_err());
    }

    #[test]
    fn a_tournament_id_is_positional_or_the_older_flag() {
        #[derive(clap::Parser)]
        struct T {
            #[command(flatten)]
            id: TournamentId,
        }
        use clap::Parser;
        assert_eq!(T::try_parse_from(["t", "abc"]).unwrap().id.get(), "abc");
        assert_eq!(T::try_parse_from(["t", "--id", "abc"]).unwrap().id.get(), "abc");
        assert!(T::try_parse_from(["t"]).is_err());
    }
}
