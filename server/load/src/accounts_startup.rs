//! `gin-load accounts-startup`: how long the real `gin-server` takes to serve at start with a
//! database of many accounts and tokens (issue 38's target: 100,000 accounts in at most 1 s).
//!
//! The time of a start is from the process's spawn to the first successful gRPC call
//! (`ListGames`, tried every 10 ms): opening the store, loading every account, token and
//! unfinished game, building the accounts' registry, binding. The server's own log (JSON)
//! gives the stages: the store opened and loaded, the journal's row records applied again
//! (SQLite), the registry built, listening. Each start is followed by a graceful stop
//! (SIGTERM), timed too. Three cases, `--runs` starts each, medians reported:
//!
//! - **SQLite after SIGKILL**: the database is filled through the store's own writes (batches
//!   of 1,000) by a child process (`gin-load accounts-startup-fill`, hidden), killed with
//!   SIGKILL once every write is acknowledged: its journal holds the row records of every
//!   account and token, which the next start applies to SQLite again. Every run starts on a
//!   fresh copy of those files.
//! - **SQLite after a graceful stop**: the same database once a server has stopped on SIGTERM
//!   (which compacts the journal): nothing to apply again.
//! - **PostgreSQL** (a private cluster, `initdb` + `pg_ctl`; `--no-postgres` skips it): filled
//!   in this process, then the same starts.
//!
//! And, for comparison, SQLite after a graceful stop with the same games and no account.
//! Nothing is asserted (a benchmark reports).

use std::io::BufRead as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, bail};
use clap::Args;
use gin_proto::v1 as pb;
use gin_proto::v1::lobby_service_client::LobbyServiceClient;
use gin_server::storage::pg_cluster::{LocalPostgres, off_runtime};
use gin_server::storage::{
    AccountRow, AccountWrite, KIND_BOT, KIND_PERSON, NewGame, SeatRow, Store, TokenRow, Write,
};
use serde_json::{Value, json};

use crate::{TempDir, free_port, median};

/// Writes per batch while filling.
const BATCH: usize = 1000;

#[derive(Args, Debug, Clone)]
pub struct AccountsStartupArgs {
    /// Accounts in the database, each with one token.
    #[arg(long, default_value_t = 100_000)]
    accounts: usize,
    /// Unfinished games in the database (one seat taken in each), with and without accounts.
    #[arg(long, default_value_t = 1000)]
    games: usize,
    /// Starts timed in each case: the median is reported.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=100))]
    runs: u32,
    /// Leave PostgreSQL out (else a private cluster, `initdb` + `pg_ctl` from Debian's
    /// `postgresql`, is started for the run).
    #[arg(long)]
    no_postgres: bool,
    /// The gin-server executable (default: `gin-server` next to this one).
    #[arg(long, value_name = "FILE")]
    server_exe: Option<PathBuf>,
    /// Keep the temporary directory (the SQLite databases, the servers' logs).
    #[arg(long)]
    keep_temp: bool,
    /// Print a JSON object after the summary.
    #[arg(long)]
    json: bool,
}

/// `gin-load accounts-startup-fill` (hidden): fills the SQLite database `--db` as
/// `accounts-startup` does, prints `filled`, and waits to be killed.
#[derive(Args, Debug, Clone)]
pub struct FillArgs {
    /// The SQLite database to fill.
    #[arg(long)]
    db: PathBuf,
    /// Accounts, each with one token.
    #[arg(long)]
    accounts: usize,
    /// Unfinished games (one seat taken in each).
    #[arg(long)]
    games: usize,
}

/// Game `i`, created at `now_ms` (Unix ms): waiting for its second player, as the server
/// stores it (the standard rules), so that it keeps it at start (an hour before it expires).
fn game(i: usize, now_ms: i64) -> (NewGame, SeatRow) {
    let id = format!("g{i:07}");
    let game = NewGame {
        id,
        rules_json: serde_json::to_string(&engine::RuleSet::standard()).expect("rules serialize"),
        seed: i as u64,
        secret: [(i % 251) as u8; 32],
        clock_millis: 30_000,
        clock_policy: 0,
        house_bot: String::new(),
        created_ms: now_ms,
        fixed_deals: false,
        first_dealer: None,
        rated_pool: None,
    };
    let seat = SeatRow {
        seat: 0,
        name: format!("player{i}"),
        token_hash: sha(b"seat", i),
        bot: false,
        joined_ms: now_ms,
        account_id: None,
    };
    (game, seat)
}

/// A distinct 32-byte value per `(tag, i)` (not a real SHA-256: only unique).
fn sha(tag: &[u8], i: usize) -> [u8; 32] {
    let mut h = [0u8; 32];
    h[..8].copy_from_slice(&(i as u64).to_le_bytes());
    for (d, s) in h[8..].iter_mut().zip(tag) {
        *d = *s;
    }
    h
}

fn account(i: usize) -> (AccountRow, TokenRow) {
    let id = format!("acct{i:07}");
    let name = format!("Player{i}");
    let bot = i.is_multiple_of(10);
    let row = AccountRow {
        id: id.clone(),
        name_key: name.to_lowercase(),
        skeleton: format!("p1ayer{i}"),
        name,
        kind: if bot { KIND_BOT } else { KIND_PERSON },
        created_ms: 1_700_000_000_000 + i as i64,
        // A PHC string of argon2id's length.
        password_hash: (!bot).then(|| format!("$argon2id$v=19$m=19456,t=2,p=1${i:022}${i:043}")),
        deleted_ms: None,
    };
    let token = TokenRow {
        id: format!("tok{i:07}"),
        account_id: id,
        hash: sha(b"token", i),
        label: if bot { "bot".to_owned() } else { "session".to_owned() },
        scopes: 3,
        session: !bot,
        created_ms: 1_700_000_000_000 + i as i64,
        last_used_ms: 1_700_000_000_000 + i as i64,
        revoked_ms: None,
    };
    (row, token)
}

/// Writes `games` games, then `accounts` accounts with a token each, through `store`.
async fn write_all(store: &Store, games: usize, accounts: usize) -> anyhow::Result<()> {
    let now_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_millis() as i64;
    let mut i = 0;
    while i < games {
        let mut batch = Vec::with_capacity(2 * BATCH);
        for j in i..(i + BATCH).min(games) {
            let (game, seat) = game(j, now_ms);
            let game_id = game.id.clone();
            batch.push(Write::CreateGame(game));
            batch.push(Write::TakeSeat { game_id, seat });
        }
        store.write(batch).await.map_err(|e| anyhow!("writing games: {e}"))?;
        i += BATCH;
    }
    let mut i = 0;
    while i < accounts {
        let mut batch = Vec::with_capacity(2 * BATCH);
        for j in i..(i + BATCH).min(accounts) {
            let (row, token) = account(j);
            batch.push(Write::Account(AccountWrite::Create(row)));
            batch.push(Write::Account(AccountWrite::AddToken(token)));
        }
        store.write(batch).await.map_err(|e| anyhow!("writing accounts: {e}"))?;
        i += BATCH;
    }
    Ok(())
}

/// Fills the store `db` names and closes it gracefully.
async fn fill(db: &Path, games: usize, accounts: usize) -> anyhow::Result<()> {
    let (store, _) = off_runtime(|| Store::open(db)).map_err(|e| anyhow!("opening {}: {e}", db.display()))?;
    write_all(&store, games, accounts).await?;
    store.close().await;
    Ok(())
}

/// The hidden `accounts-startup-fill`: fills, says so, and waits for its SIGKILL.
pub async fn fill_and_wait(a: &FillArgs) -> anyhow::Result<()> {
    let db = a.db.clone();
    let (store, _) =
        off_runtime(|| Store::open(&db)).map_err(|e| anyhow!("opening {}: {e}", db.display()))?;
    write_all(&store, a.games, a.accounts).await?;
    println!("filled");
    loop {
        tokio::time::sleep(Duration::from_secs(3600)).await;
    }
}

/// Fills the SQLite database `db` in a child process and kills it with SIGKILL once every
/// write is acknowledged: its files are as a crash leaves them.
fn fill_then_kill(db: &Path, games: usize, accounts: usize) -> anyhow::Result<()> {
    let exe = std::env::current_exe().context("locating this executable")?;
    let mut child = Command::new(exe)
        .arg("accounts-startup-fill")
        .arg("--db")
        .arg(db)
        .args(["--accounts", &accounts.to_string(), "--games", &games.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .context("starting gin-load accounts-startup-fill")?;
    let mut line = String::new();
    let read = std::io::BufReader::new(child.stdout.take().expect("piped")).read_line(&mut line);
    let _ = child.kill();
    let status = child.wait()?;
    if read.is_err() || line.trim() != "filled" {
        bail!("gin-load accounts-startup-fill did not fill {} ({status})", db.display());
    }
    Ok(())
}

/// Copies the directory `from` (files and directories in it, one level deep) into `to`,
/// made anew.
fn copy_dir(from: &Path, to: &Path) -> anyhow::Result<()> {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            std::fs::create_dir_all(&target)?;
            for inner in std::fs::read_dir(entry.path())? {
                let inner = inner?;
                std::fs::copy(inner.path(), target.join(inner.file_name()))?;
            }
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// One start and its stop.
#[derive(Clone, Debug, Default)]
struct Start {
    /// From the spawn to the first successful call.
    ready_s: f64,
    /// The server's log: the store opened and loaded, the rows applied again (SQLite), the
    /// registry built, listening (from the start of `run`), in ms.
    store_ms: f64,
    replay_ms: f64,
    rows_replayed: f64,
    registry_ms: f64,
    listening_ms: f64,
    accounts: f64,
    /// From SIGTERM to the exit.
    stop_s: f64,
    /// The journal's compaction at the stop (SQLite; 0 when none).
    compact_ms: f64,
}

/// The JSON log lines of `log` as (message, fields).
fn log_lines(log: &Path) -> Vec<(String, Value)> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| {
            let fields = v.get("fields")?.clone();
            Some((fields.get("message")?.as_str()?.to_owned(), fields))
        })
        .collect()
}

/// Field `key` of the first line of `lines` whose message starts with `message` (0 if none).
fn field(lines: &[(String, Value)], message: &str, key: &str) -> f64 {
    lines.iter().find(|(m, _)| m.starts_with(message)).and_then(|(_, f)| f.get(key)?.as_f64()).unwrap_or(0.0)
}

/// Starts `gin-server` on `db`, times it until it serves, stops it with SIGTERM.
async fn start_once(server: &Path, db: &str, log: &Path) -> anyhow::Result<Start> {
    let port = free_port()?;
    let url = format!("http://127.0.0.1:{port}");
    let out = std::fs::File::create(log).with_context(|| format!("creating {}", log.display()))?;
    let mut cmd = Command::new(server);
    cmd.arg("--addr")
        .arg(format!("127.0.0.1:{port}"))
        .args(["--db", db, "--log-format", "json"])
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(out);
    let t0 = Instant::now();
    let mut child = Guard(cmd.spawn().with_context(|| format!("starting {}", server.display()))?);
    loop {
        if let Some(status) = child.0.try_wait()? {
            bail!("gin-server exited at start ({status}); its log:\n{}", crate::log_tail(log));
        }
        if let Ok(ch) = tonic::transport::Endpoint::from_shared(url.clone())?.connect().await
            && LobbyServiceClient::new(ch).list_games(pb::ListGamesRequest { page_size: 1 }).await.is_ok()
        {
            break;
        }
        if t0.elapsed() > Duration::from_secs(120) {
            bail!("gin-server did not serve within 120 s; its log:\n{}", crate::log_tail(log));
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let ready_s = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let sent = Command::new("kill").args(["-TERM", &child.0.id().to_string()]).status()?;
    if !sent.success() {
        bail!("kill -TERM failed");
    }
    let status = tokio::task::block_in_place(|| child.0.wait())?;
    let stop_s = t1.elapsed().as_secs_f64();
    if !status.success() {
        bail!("gin-server stopped with {status} on SIGTERM; its log:\n{}", crate::log_tail(log));
    }
    let lines = log_lines(log);
    Ok(Start {
        ready_s,
        store_ms: field(&lines, "start: store opened", "took_ms"),
        replay_ms: field(&lines, "store: the journal's row records applied again", "took_ms"),
        rows_replayed: field(&lines, "store: the journal's row records applied again", "rows_replayed"),
        registry_ms: field(&lines, "start: the accounts' registry built", "took_ms"),
        listening_ms: field(&lines, "gin-server listening", "start_ms"),
        accounts: field(&lines, "start: store opened", "accounts"),
        stop_s,
        compact_ms: field(&lines, "store: the journal compacted at the stop", "took_ms"),
    })
}

/// A child process, killed (and reaped) when dropped.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// The starts of one case.
struct Case {
    name: &'static str,
    starts: Vec<Start>,
}

impl Case {
    fn median(&self, f: impl Fn(&Start) -> f64) -> f64 {
        let mut v: Vec<f64> = self.starts.iter().map(f).collect();
        v.sort_by(f64::total_cmp);
        median(&v).unwrap_or(f64::NAN)
    }

    fn range(&self, f: impl Fn(&Start) -> f64) -> (f64, f64) {
        let v: Vec<f64> = self.starts.iter().map(f).collect();
        (v.iter().copied().fold(f64::INFINITY, f64::min), v.iter().copied().fold(f64::NEG_INFINITY, f64::max))
    }

    fn summary(&self) -> String {
        let (lo, hi) = self.range(|s| s.ready_s);
        let mut line = format!(
            "  {:<34} serves after {:.3} s median ({lo:.3}–{hi:.3}); server's log: store {:.0} ms",
            self.name,
            self.median(|s| s.ready_s),
            self.median(|s| s.store_ms),
        );
        if self.median(|s| s.rows_replayed) > 0.0 {
            line += &format!(
                " (of which {:.0} rows applied again: {:.0} ms)",
                self.median(|s| s.rows_replayed),
                self.median(|s| s.replay_ms)
            );
        }
        line += &format!(
            ", registry {:.0} ms, listening at {:.0} ms; stop {:.3} s",
            self.median(|s| s.registry_ms),
            self.median(|s| s.listening_ms),
            self.median(|s| s.stop_s)
        );
        if self.median(|s| s.compact_ms) > 0.0 {
            line += &format!(" (compaction {:.0} ms)", self.median(|s| s.compact_ms));
        }
        line
    }

    fn json(&self) -> Value {
        let runs: Vec<Value> = self
            .starts
            .iter()
            .map(|s| {
                json!({
                    "ready_s": s.ready_s,
                    "store_ms": s.store_ms,
                    "replay_ms": s.replay_ms,
                    "rows_replayed": s.rows_replayed as u64,
                    "registry_ms": s.registry_ms,
                    "listening_ms": s.listening_ms,
                    "accounts_loaded": s.accounts as u64,
                    "stop_s": s.stop_s,
                    "compact_ms": s.compact_ms,
                })
            })
            .collect();
        json!({
            "case": self.name,
            "ready_median_s": self.median(|s| s.ready_s),
            "store_median_ms": self.median(|s| s.store_ms),
            "rows_replayed_median": self.median(|s| s.rows_replayed),
            "registry_median_ms": self.median(|s| s.registry_ms),
            "listening_median_ms": self.median(|s| s.listening_ms),
            "stop_median_s": self.median(|s| s.stop_s),
            "accounts_loaded": self.starts.last().map_or(0, |s| s.accounts as u64),
            "runs": runs,
        })
    }
}

pub async fn run(a: &AccountsStartupArgs) -> anyhow::Result<()> {
    let exe = std::env::current_exe().context("locating this executable")?;
    let server = a.server_exe.clone().unwrap_or_else(|| exe.with_file_name("gin-server"));
    if !server.exists() {
        bail!("no gin-server at {} (build it: cargo build --release -p gin-server)", server.display());
    }
    let tmp = TempDir::new(a.keep_temp)?;
    let dir = |name: &str| -> anyhow::Result<PathBuf> {
        let d = tmp.path.join(name);
        std::fs::create_dir_all(&d)?;
        Ok(d)
    };
    let log = |case: &str, i: u32| tmp.path.join(format!("gin-server-{case}-{i}.log"));
    let mut cases = Vec::new();

    // SQLite: filled by a process killed with SIGKILL once every write was acknowledged.
    let crashed = dir("crashed")?;
    let t = Instant::now();
    tokio::task::block_in_place(|| fill_then_kill(&crashed.join("gin.db"), a.games, a.accounts))
        .context("filling the SQLite database")?;
    let fill_s = t.elapsed().as_secs_f64();
    eprintln!("accounts-startup: SQLite filled in {fill_s:.1} s (then SIGKILL); {} starts per case", a.runs);
    let run_dir = tmp.path.join("run");
    let db = run_dir.join("gin.db").display().to_string();
    let mut after_kill = Case { name: "SQLite after SIGKILL (replay)", starts: Vec::new() };
    for i in 0..a.runs {
        copy_dir(&crashed, &run_dir)?;
        after_kill.starts.push(start_once(&server, &db, &log("killed", i)).await?);
    }
    // The last of those stopped gracefully: from here on, starts after a graceful stop.
    let mut after_stop = Case { name: "SQLite after a graceful stop", starts: Vec::new() };
    for i in 0..a.runs {
        after_stop.starts.push(start_once(&server, &db, &log("stopped", i)).await?);
    }
    cases.extend([after_stop, after_kill]);

    // The same games without accounts.
    let base = dir("without")?.join("gin.db");
    fill(&base, a.games, 0).await.context("filling the database without accounts")?;
    let base_db = base.display().to_string();
    let mut without = Case { name: "SQLite without accounts", starts: Vec::new() };
    for i in 0..a.runs {
        without.starts.push(start_once(&server, &base_db, &log("without", i)).await?);
    }

    if !a.no_postgres {
        let pg = off_runtime(LocalPostgres::start).map_err(|e| anyhow!("starting PostgreSQL: {e}"))?;
        let url = off_runtime(|| pg.create_database("with_accounts")).map_err(|e| anyhow!("{e}"))?;
        fill(Path::new(&url), a.games, a.accounts).await.context("filling the PostgreSQL database")?;
        let mut postgres = Case { name: "PostgreSQL", starts: Vec::new() };
        for i in 0..a.runs {
            postgres.starts.push(start_once(&server, &url, &log("postgres", i)).await?);
        }
        cases.push(postgres);
        drop(pg);
    }
    cases.push(without);

    let mut summary = format!(
        "accounts-startup: gin-server from its spawn to the first successful call, {} accounts with a \
         token each, {} unfinished games; medians of {} starts",
        a.accounts, a.games, a.runs
    );
    for c in &cases {
        summary += "\n";
        summary += &c.summary();
    }
    let json = json!({
        "accounts": a.accounts,
        "games": a.games,
        "runs": a.runs,
        "fill_s": fill_s,
        "cases": cases.iter().map(Case::json).collect::<Vec<_>>(),
    });
    crate::report(&summary, json, a.json);
    Ok(())
}
