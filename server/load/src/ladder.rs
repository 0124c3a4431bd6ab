//! `gin-load ladder`: the rated ladder under load. Starts a `gin-server` (next to this
//! executable, or `--server-exe`) on a fresh database, registers bot accounts, then:
//!
//! 1. **The burst**: `--burst` programs (1,000 by default) join `gin/standard`'s ladder at
//!    once; each one's *pairing latency* is the time from its first `queued` message (its
//!    arrival, as it sees it) to its `matched` one, the rated game created. Reports the
//!    median, p99 and the worst, and the server's own `waited_ms`. The games are then
//!    resigned.
//! 2. **The steady state**: `--programs` programs (100) play the ladder with `--strategy` for
//!    `--seconds` through gin-sdk's `play_ladder` loop (join, play, join again); reports rated
//!    games finished per second and the `waited_ms` of their matches.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, bail};
use gin_proto::v1 as pb;
use gin_proto::v1::account_service_client::AccountServiceClient;
use gin_proto::v1::ladder_service_client::LadderServiceClient;
use gin_sdk::ladder::{LadderEvent, LadderPlayer, LadderStop};
use serde_json::json;
use tonic::transport::Channel;

/// What to measure.
#[derive(clap::Args, Debug, Clone)]
pub struct LadderArgs {
    /// Programs joining the ladder at once, for the pairing latency.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    burst: usize,
    /// Programs playing the ladder for the throughput window.
    #[arg(long, value_name = "N", default_value_t = 100)]
    programs: usize,
    /// The throughput window, in seconds.
    #[arg(long, default_value_t = 20.0)]
    seconds: f64,
    /// The programs' strategy in the throughput window.
    #[arg(long, default_value = "simple")]
    strategy: String,
    /// Connections the programs share.
    #[arg(long, value_name = "N", default_value_t = 4)]
    connections: usize,
    /// The gin-server executable (default: `gin-server` next to this one).
    #[arg(long)]
    server_exe: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

const POOL: &str = "gin/standard";

/// The `q`-quantile of sorted `v` (nearest rank), in the unit of `v`.
fn quantile(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let i = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1;
    v[i]
}

/// Registers `n` bot accounts (8 at a time): their tokens.
async fn register(chans: &[Channel], n: usize) -> anyhow::Result<Vec<String>> {
    let run = std::process::id();
    let mut set = tokio::task::JoinSet::new();
    let tokens = Arc::new(Mutex::new(vec![String::new(); n]));
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    for w in 0..8 {
        let mut client = AccountServiceClient::new(chans[w % chans.len()].clone());
        let (tokens, next) = (tokens.clone(), next.clone());
        set.spawn(async move {
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= n {
                    return Ok::<(), anyhow::Error>(());
                }
                let r = client
                    .register(pb::RegisterRequest {
                        name: format!("lad{run:x}-{i}"),
                        kind: pb::AccountKind::Bot as i32,
                        token_label: "gin-load".into(),
                        ..Default::default()
                    })
                    .await
                    .map_err(|e| anyhow!("Register: {:?}: {}", e.code(), e.message()))?
                    .into_inner();
                tokens.lock().expect("lock")[i] = r.token;
            }
        });
    }
    while let Some(r) = set.join_next().await {
        r??;
    }
    Ok(std::mem::take(&mut *tokens.lock().expect("lock")))
}

/// One program of the burst: joins and waits for its match; (latency from its arrival to its
/// match in ms, the server's `waited_ms`, the game and its seat token).
async fn join_once(chan: Channel, token: String) -> anyhow::Result<(f64, f64, String, String)> {
    let mut req = tonic::Request::new(pb::JoinLadderRequest { pool: POOL.into() });
    req.metadata_mut().insert("authorization", format!("Bearer {token}").parse()?);
    let mut stream = LadderServiceClient::new(chan).join_ladder(req).await?.into_inner();
    let mut arrived = None;
    loop {
        let m = tokio::time::timeout(Duration::from_secs(60), stream.message())
            .await
            .context("no word from the ladder for 60 s")??
            .context("the ladder's stream ended unseated")?;
        match m.event {
            Some(pb::join_ladder_response::Event::Queued(_)) => {
                arrived.get_or_insert_with(Instant::now);
            }
            Some(pb::join_ladder_response::Event::Matched(m)) => {
                let at = arrived.unwrap_or_else(Instant::now);
                return Ok((at.elapsed().as_secs_f64() * 1e3, m.waited_ms as f64, m.game_id, m.seat_token));
            }
            None => {}
        }
    }
}

/// Runs the ladder bench.
pub async fn run(a: &LadderArgs) -> anyhow::Result<()> {
    if a.burst % 2 == 1 {
        bail!("--burst: an even number (two-player tables)");
    }
    let me = std::env::current_exe()?;
    let exe = a.server_exe.clone().unwrap_or_else(|| me.with_file_name("gin-server"));
    if !exe.is_file() {
        bail!(
            "{} not found: build it (cargo build --release -p gin-server) or pass --server-exe",
            exe.display()
        );
    }
    let dir = std::env::temp_dir().join(format!("gin-ladder-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let (server, url) = crate::start_gin_server(&exe, &dir, "ladder", None).await?;
    let chans = crate::connect(&url, a.connections.max(1)).await?;
    let accounts = a.burst.max(a.programs);
    let t0 = Instant::now();
    let tokens = register(&chans, accounts).await?;
    eprintln!("{accounts} accounts registered in {:.1} s", t0.elapsed().as_secs_f64());

    // 1. The burst.
    let mut set = tokio::task::JoinSet::new();
    let burst_start = Instant::now();
    for (i, t) in tokens.iter().take(a.burst).enumerate() {
        set.spawn(join_once(chans[i % chans.len()].clone(), t.clone()));
    }
    let (mut latency, mut waited, mut games) = (Vec::new(), Vec::new(), Vec::new());
    while let Some(r) = set.join_next().await {
        let (l, w, g, t) = r??;
        latency.push(l);
        waited.push(w);
        games.push((g, t));
    }
    let all_matched_s = burst_start.elapsed().as_secs_f64();
    latency.sort_by(f64::total_cmp);
    waited.sort_by(f64::total_cmp);
    let sdk = gin_sdk::Client::from_channel(chans[0].clone(), gin_sdk::Options::default());
    let mut resigns = tokio::task::JoinSet::new();
    for (g, t) in games.iter().step_by(1) {
        let (sdk, g, t) = (sdk.clone(), g.clone(), t.clone());
        resigns.spawn(async move { sdk.resign(&g, &t).await });
    }
    while let Some(r) = resigns.join_next().await {
        // Both seats resign; the second finds the game over already.
        let _ = r?;
    }

    // 2. The steady state.
    let stop = LadderStop::default();
    let played = Arc::new(Mutex::new(Vec::<(Instant, f64)>::new()));
    let mut loops = tokio::task::JoinSet::new();
    for (i, t) in tokens.iter().take(a.programs).enumerate() {
        let sdk = gin_sdk::Client::from_channel(chans[i % chans.len()].clone(), gin_sdk::Options::default())
            .with_account_token(Some(t.clone()));
        let (stop, played, strategy) = (stop.clone(), played.clone(), a.strategy.clone());
        loops.spawn(async move {
            let mut s =
                gin_strategies::by_name(&strategy, i as u64).map_err(|e| anyhow!("--strategy: {e}"))?;
            let mut on = |e: LadderEvent<'_>| {
                if let LadderEvent::Played(g) = e {
                    let w = g.matched.as_ref().map_or(0.0, |m| m.waited_ms as f64);
                    played.lock().expect("lock").push((Instant::now(), w));
                }
            };
            sdk.play_ladder(POOL, LadderPlayer::Two(s.as_mut()), None, &stop, &mut on).await?;
            Ok::<(), anyhow::Error>(())
        });
    }
    let window_start = Instant::now();
    tokio::time::sleep(Duration::from_secs_f64(a.seconds)).await;
    let window_end = Instant::now();
    stop.stop();
    let grace = tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(r) = loops.join_next().await {
            r??;
        }
        Ok::<(), anyhow::Error>(())
    })
    .await;
    match grace {
        Ok(r) => r?,
        Err(_) => bail!("the ladder programs did not stop within 60 s of the window's end"),
    }
    let played = played.lock().expect("lock").clone();
    // Each game is played by two programs: counted once.
    let in_window: Vec<f64> =
        played.iter().filter(|(at, _)| *at >= window_start && *at <= window_end).map(|p| p.1).collect();
    let games_per_sec = in_window.len() as f64 / 2.0 / a.seconds;
    let mut steady_wait = in_window.clone();
    steady_wait.sort_by(f64::total_cmp);
    drop(server);

    let summary = format!(
        "ladder: {} joined at once, all matched in {:.0} ms; pairing latency (arrival to match) median {:.0} ms, p99 {:.0} ms, worst {:.0} ms (server's waited_ms worst {:.0}); \
         {} programs ({}) {:.1} rated games/s over {:.0} s, their wait median {:.0} ms, p99 {:.0} ms",
        a.burst,
        all_matched_s * 1e3,
        quantile(&latency, 0.5),
        quantile(&latency, 0.99),
        latency.last().copied().unwrap_or(f64::NAN),
        waited.last().copied().unwrap_or(f64::NAN),
        a.programs,
        a.strategy,
        games_per_sec,
        a.seconds,
        quantile(&steady_wait, 0.5),
        quantile(&steady_wait, 0.99),
    );
    let report = json!({
        "burst": {
            "programs": a.burst,
            "all_matched_ms": all_matched_s * 1e3,
            "latency_ms": { "p50": quantile(&latency, 0.5), "p99": quantile(&latency, 0.99), "max": latency.last() },
            "server_waited_ms_max": waited.last(),
        },
        "steady": {
            "programs": a.programs,
            "strategy": a.strategy,
            "seconds": a.seconds,
            "rated_games_per_sec": games_per_sec,
            "waited_ms": { "p50": quantile(&steady_wait, 0.5), "p99": quantile(&steady_wait, 0.99) },
        },
    });
    crate::report(&summary, report, a.json);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
