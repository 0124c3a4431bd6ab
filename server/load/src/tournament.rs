//! `gin-load tournament`: a tournament's throughput on this machine. Starts a `gin-server`
//! and one `gin-bot tournament join` process per entrant, plays a duplicate round robin (two
//! entrants at two-player gin; at a table format, `--entrants` at tables of `--players`),
//! prints the standings and games/s (until the move here, `gin-bot tournament bench`: the
//! same flags and output).
//!
//!
//! Its entrants accept the deals it fixed; its server's limit of unfinished games is lifted;
//! a failed entrant ends the run with the reason.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use engine::RuleSet;
use gin_proto::text::printable;
use gin_proto::v1 as pb;
use gin_proto::v1::tournament_service_client::TournamentServiceClient;
use gin_sdk::entrant::standings_table;
use tonic::transport::Channel;

/// What to play.
#[derive(clap::Args, Debug, Clone)]
pub struct TournamentArgs {
    /// Games to play (tables: per table of the round robin, rounded up to a whole number of
    /// seatings).
    #[arg(long, default_value_t = 2000)]
    games: u32,
    /// Games in play at once.
    #[arg(long, default_value_t = 128)]
    parallel: u32,
    /// Strategy of both entrants.
    #[arg(long, default_value = "simple")]
    strategy: String,
    /// Rules: a preset or file, or a table format (three-player, teams, gin-7, rummy).
    #[arg(long, default_value = "standard")]
    rules: String,
    /// The table size of a table format (default: the format's own).
    #[arg(long, value_name = "N")]
    players: Option<u8>,
    /// Entrants (one bot process each; default: the table size).
    #[arg(long, value_name = "N")]
    entrants: Option<u32>,
    /// The gin-server executable (default: `gin-server` next to this one).
    #[arg(long)]
    server_exe: Option<PathBuf>,
    /// The gin-bot executable of the entrants (default: `gin-bot` next to this one).
    #[arg(long)]
    bot_exe: Option<PathBuf>,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

/// A child process killed when dropped.
struct Child(std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `flag`'s executable, or `name` next to this one; an error saying how to build it.
fn exe(
    flag: &Option<PathBuf>,
    me: &Path,
    name: &str,
    package: &str,
    option: &str,
) -> anyhow::Result<PathBuf> {
    let exe =
        flag.clone().unwrap_or_else(|| me.with_file_name(format!("{name}{}", std::env::consts::EXE_SUFFIX)));
    if !exe.exists() {
        bail!("{} not found: build it (cargo build --release -p {package}) or pass {option}", exe.display());
    }
    Ok(exe)
}

/// The games for the wire: two-player gin's rules (a preset by name, or a rules file as a
/// full custom rule set), or a table format's document (`TournamentSpec.game_format`).
fn wire_game(spec: &str, players: Option<u8>) -> anyhow::Result<(Option<pb::Rules>, String, u32)> {
    let format = match engine::Format::preset(spec) {
        Ok(f) => f,
        Err(_) => {
            let path = Path::new(spec);
            if !path.exists() {
                let names: Vec<&str> = engine::Format::preset_names().collect();
                bail!("{spec:?} is neither a preset ({}) nor a rules file", names.join(", "));
            }
            let text =
                std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
            engine::Format::parse_any(&text).with_context(|| format!("rules file {}", path.display()))?
        }
    };
    let format = match players {
        Some(n) => format.with_players(n)?,
        None => format,
    };
    let size = u32::from(format.players());
    Ok(match format {
        engine::Format::Gin(_) if RuleSet::preset(spec).is_ok() => {
            (Some(gin_sdk::preset(spec)), String::new(), size)
        }
        engine::Format::Gin(rules) => (Some(gin_sdk::custom(&rules)), String::new(), size),
        table => (None, table.to_value().to_string(), size),
    })
}

/// A status from the server as an error, its message escaped.
fn refused(s: &tonic::Status) -> anyhow::Error {
    anyhow::anyhow!("{}: {}", s.code(), printable(s.message()))
}

/// Connects to `url` with the SDK's retries.
async fn connect(url: &str) -> anyhow::Result<Channel> {
    Ok(gin_sdk::Client::connect(url).await?.channel())
}

/// Runs the tournament bench.
pub async fn run(a: &TournamentArgs) -> anyhow::Result<()> {
    let me = std::env::current_exe()?;
    let server_exe = exe(&a.server_exe, &me, "gin-server", "gin-server", "--server-exe")?;
    let bot_exe = exe(&a.bot_exe, &me, "gin-bot", "gin-bot", "--bot-exe")?;
    let dir = std::env::temp_dir().join(format!("gin-tournament-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    let url = format!("http://127.0.0.1:{port}");
    let log = std::fs::File::create(dir.join("server.log"))?;
    let server = Child(
        Command::new(&server_exe)
            .args(["--addr", &format!("127.0.0.1:{port}"), "--db"])
            .arg(dir.join("bench.db"))
            // A tournament's games count against its creator's limit of unfinished games
            // (100 by default): lift it, or `--parallel` above it is refused.
            .args(["--max-open-games-per-caller", "100000"])
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .with_context(|| format!("starting {}", server_exe.display()))?,
    );
    let mut channel = None;
    for _ in 0..100 {
        if let Ok(c) = connect(&url).await {
            channel = Some(c);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut t = TournamentServiceClient::new(channel.context("the server did not come up")?);
    let (rules, game_format, size) = wire_game(&a.rules, a.players)?;
    let entrants = a.entrants.unwrap_or(size);
    let spec = pb::TournamentSpec {
        name: "bench".into(),
        format: pb::TournamentFormat::RoundRobin as i32,
        entrants,
        games_per_pairing: a.games,
        duplicate: true,
        rules,
        game_format,
        parallel: a.parallel,
        seed: 1,
        ..Default::default()
    };
    let id = t
        .create_tournament(pb::CreateTournamentRequest { spec: Some(spec) })
        .await
        .map_err(|s| refused(&s))?
        .into_inner()
        .tournament_id;
    let mut watch =
        t.watch_tournament(pb::WatchTournamentRequest { tournament_id: id.clone() }).await?.into_inner();
    // The bench chose the seed (every run plays the same deals): its entrants accept that.
    let names: Vec<String> =
        (0..entrants).map(|i| format!("bot-{}", (b'a' + (i % 26) as u8) as char)).collect();
    let mut bots = Vec::new();
    for name in &names {
        let log = std::fs::File::create(dir.join(format!("{name}.log")))?;
        let child = Command::new(&bot_exe)
            .args(["tournament", "join", "--server", &url, "--id", &id, "--strategy", &a.strategy])
            .args(["--name", name, "--accept-fixed-deals"])
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .with_context(|| format!("starting {}", bot_exe.display()))?;
        bots.push(Child(child));
    }
    let mut start = None;
    let mut last = pb::TournamentState::default();
    loop {
        tokio::select! {
            m = watch.message() => match m? {
                Some(m) => {
                    let st = m.state.unwrap_or_default();
                    if start.is_none() && st.status != pb::TournamentStatus::Waiting as i32 {
                        start = Some(Instant::now());
                    }
                    last = st;
                }
                None => break,
            },
            // An entrant that failed would leave the tournament waiting forever: say why.
            _ = tokio::time::sleep(Duration::from_millis(500)) => {
                for (bot, name) in bots.iter_mut().zip(&names) {
                    if let Some(status) = bot.0.try_wait()?.filter(|s| !s.success()) {
                        let log = std::fs::read_to_string(dir.join(format!("{name}.log"))).unwrap_or_default();
                        bail!("{name} ({} tournament join) failed ({status}): {}", bot_exe.display(), log.trim());
                    }
                }
            }
        }
    }
    let secs = start.map_or(0.0, |s| s.elapsed().as_secs_f64());
    drop(bots);
    if last.status != pb::TournamentStatus::Finished as i32 {
        bail!("the tournament did not finish: {}/{} games", last.games_done, last.games_total);
    }
    let rate = last.games_done as f64 / secs.max(1e-9);
    if a.json {
        println!(
            "{}",
            serde_json::json!({"games": last.games_done, "seconds": secs, "games_per_sec": rate,
                "parallel": a.parallel, "strategy": a.strategy, "rules": a.rules,
                "players": size, "entrants": entrants})
        );
    } else {
        print!("{}", standings_table(&last));
        println!(
            "{} games in {:.2} s: {:.1} games/s ({entrants} {} bot processes, {} games at once, {} for {size})",
            last.games_done, secs, rate, a.strategy, a.parallel, a.rules
        );
    }
    // The server first: a running server may still write into the directory.
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
