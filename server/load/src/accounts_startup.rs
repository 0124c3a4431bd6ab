//! `gin-load accounts-startup`: how long the store takes to load a database of many
//! accounts and tokens at start (issue 38's target: 100,000 accounts in at most 1 s).
//!
//! It fills a database through the store's own writes (batches of 1,000), closes it, then
//! times `--runs` fresh [`Store::open`]s, each followed by a close; and the same for the same
//! games without accounts. It measures the store's part only: the server's in-memory
//! registry, built from [`gin_server::storage::Startup`] after this, adds its own time.
//! Nothing is asserted (a benchmark reports).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, anyhow};
use clap::Args;
use gin_server::storage::pg_cluster::{LocalPostgres, off_runtime};
use gin_server::storage::{
    AccountRow, AccountWrite, KIND_BOT, KIND_PERSON, NewGame, SeatRow, Store, TokenRow, Write,
};
use serde_json::{Value, json};

use crate::{TempDir, median};

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
    /// Fresh opens timed, for each database: the median is reported.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=100))]
    runs: u32,
    /// Measure PostgreSQL (a private cluster, `initdb` + `pg_ctl`, started for the run)
    /// instead of a SQLite file.
    #[arg(long)]
    postgres: bool,
    /// Keep the temporary directory (the SQLite databases).
    #[arg(long)]
    keep_temp: bool,
    /// Print a JSON object after the summary.
    #[arg(long)]
    json: bool,
}

fn game(i: usize) -> (NewGame, SeatRow) {
    let id = format!("g{i:07}");
    let game = NewGame {
        id,
        rules_json: "{}".to_owned(),
        seed: i as u64,
        secret: [(i % 251) as u8; 32],
        clock_millis: 30_000,
        clock_policy: 0,
        house_bot: String::new(),
        created_ms: 1_700_000_000_000 + i as i64,
        fixed_deals: false,
        first_dealer: None,
    };
    let seat = SeatRow {
        seat: 0,
        name: format!("player{i}"),
        token_hash: sha(b"seat", i),
        bot: false,
        joined_ms: 1_700_000_000_000 + i as i64,
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

/// Fills the store `db` names: `games` games, then `accounts` accounts with a token each.
async fn fill(db: &Path, games: usize, accounts: usize) -> anyhow::Result<()> {
    let (store, _) = off_runtime(|| Store::open(db)).map_err(|e| anyhow!("opening {}: {e}", db.display()))?;
    let mut i = 0;
    while i < games {
        let mut batch = Vec::with_capacity(2 * BATCH);
        for j in i..(i + BATCH).min(games) {
            let (game, seat) = game(j);
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
    store.close().await;
    Ok(())
}

/// One database's opens: their times in seconds, and what the last one loaded.
struct Opens {
    secs: Vec<f64>,
    accounts: usize,
    tokens: usize,
    live_games: usize,
}

impl Opens {
    fn json(&self) -> Value {
        let mut sorted = self.secs.clone();
        sorted.sort_by(f64::total_cmp);
        json!({
            "median_s": median(&sorted),
            "runs_s": self.secs,
            "accounts_loaded": self.accounts,
            "tokens_loaded": self.tokens,
            "live_games_loaded": self.live_games,
        })
    }

    fn median(&self) -> f64 {
        let mut sorted = self.secs.clone();
        sorted.sort_by(f64::total_cmp);
        median(&sorted).unwrap_or(f64::NAN)
    }
}

async fn opens(db: &Path, runs: u32) -> anyhow::Result<Opens> {
    let mut out = Opens { secs: Vec::new(), accounts: 0, tokens: 0, live_games: 0 };
    for _ in 0..runs {
        let db2 = db.to_path_buf();
        let t = Instant::now();
        let (store, startup) = tokio::task::spawn_blocking(move || Store::open(&db2))
            .await?
            .map_err(|e| anyhow!("opening {}: {e}", db.display()))?;
        out.secs.push(t.elapsed().as_secs_f64());
        (out.accounts, out.tokens, out.live_games) =
            (startup.accounts.len(), startup.tokens.len(), startup.live.len());
        drop(startup);
        store.close().await;
    }
    Ok(out)
}

pub async fn run(a: &AccountsStartupArgs) -> anyhow::Result<()> {
    let tmp = TempDir::new(a.keep_temp)?;
    let pg = if a.postgres {
        Some(off_runtime(LocalPostgres::start).map_err(|e| anyhow!("starting PostgreSQL: {e}"))?)
    } else {
        None
    };
    let db = |name: &str| -> anyhow::Result<PathBuf> {
        Ok(match &pg {
            Some(pg) => PathBuf::from(
                off_runtime(|| pg.create_database(name)).map_err(|e| anyhow!("creating {name}: {e}"))?,
            ),
            None => tmp.path.join(format!("{name}.db")),
        })
    };
    let backend = if a.postgres { "postgres" } else { "sqlite" };
    let (with, without) = (db("with_accounts")?, db("without_accounts")?);
    let t = Instant::now();
    fill(&with, a.games, a.accounts).await.context("filling the database with accounts")?;
    let fill_s = t.elapsed().as_secs_f64();
    fill(&without, a.games, 0).await.context("filling the database without accounts")?;
    eprintln!("accounts-startup: filled in {fill_s:.1} s; timing {} opens of each", a.runs);
    let measured = opens(&with, a.runs).await?;
    let baseline = opens(&without, a.runs).await?;
    println_report(a, backend, &measured, &baseline, fill_s);
    Ok(())
}

fn println_report(a: &AccountsStartupArgs, backend: &str, with: &Opens, without: &Opens, fill_s: f64) {
    let summary = format!(
        "accounts-startup ({backend}): Store::open of {} accounts, {} tokens, {} games: median {:.3} s \
         of {} runs; without accounts {:.3} s (the store's part only; the server's registry adds to it)",
        with.accounts,
        with.tokens,
        with.live_games,
        with.median(),
        a.runs,
        without.median(),
    );
    let json = json!({
        "backend": backend,
        "accounts": a.accounts,
        "games": a.games,
        "runs": a.runs,
        "fill_s": fill_s,
        "with_accounts": with.json(),
        "without_accounts": without.json(),
    });
    crate::report(&summary, json, a.json);
}
