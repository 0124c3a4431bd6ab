//! `gin-bot play`: play games on a server with a built-in strategy, many at once.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use gin_proto::v1 as pb;
use gin_sdk::{self as sdk, Client, Options, Outcome, Seated};

#[derive(clap::Args)]
pub struct PlayArgs {
    /// The server: http://host:port, or https://host:port (TLS, checked against the system's
    /// roots or --ca-cert).
    #[arg(long, env = "GIN_SERVER", default_value = "http://127.0.0.1:50051")]
    server: String,
    /// The strategy playing our seats: random, simple or strong.
    #[arg(long, default_value = "simple")]
    strategy: String,
    /// Games to play (ignored with --game).
    #[arg(long, default_value_t = 1)]
    games: u64,
    /// Games in progress at once.
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// A preset name (standard, oklahoma, …) or a TOML/JSON rules file, for the games this
    /// command starts.
    #[arg(long, default_value = "standard")]
    rules: String,
    /// Our display name (default: gin-bot-<strategy>).
    #[arg(long)]
    name: Option<String>,
    /// Play this game's seat (with --token) instead of starting games.
    #[arg(long, requires = "token")]
    game: Option<String>,
    /// The seat token of --game.
    #[arg(long, requires = "game", env = "GIN_SEAT_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Create each game against the server's house bot playing this strategy (random,
    /// simple, strong), instead of a quick match against another player.
    #[arg(long, value_name = "STRATEGY", conflicts_with = "game")]
    vs_bot: Option<String>,
    /// Seed of our strategy's choices (game i uses seed + i).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// A CA certificate (PEM) to trust for https:// instead of the system's roots.
    #[arg(long, value_name = "FILE")]
    ca_cert: Option<std::path::PathBuf>,
}

/// Totals over the games played.
#[derive(Default)]
struct Tally {
    won: u64,
    lost: u64,
    drawn: u64,
    errors: u64,
    points_for: u64,
    points_against: u64,
    hands: u64,
    resumes: u64,
}

impl Tally {
    fn add(&mut self, o: &Outcome) {
        match o.winner {
            Some(w) if w == o.seat => self.won += 1,
            Some(_) => self.lost += 1,
            None => self.drawn += 1,
        }
        let me = o.seat.index();
        self.points_for += o.totals[me] as u64;
        self.points_against += o.totals[1 - me] as u64;
        self.hands += o.hands as u64;
        self.resumes += o.resumes as u64;
    }

    fn summary(&self, secs: f64) -> String {
        let played = self.won + self.lost + self.drawn;
        let score =
            if played == 0 { 0.0 } else { (self.won as f64 + 0.5 * self.drawn as f64) / played as f64 };
        format!(
            "{played} games: {} won, {} lost, {} drawn (score {:.1}%); points {}-{}; {} hands; \
             {} stream resumes; {} errors; {secs:.1} s",
            self.won,
            self.lost,
            self.drawn,
            100.0 * score,
            self.points_for,
            self.points_against,
            self.hands,
            self.resumes,
            self.errors,
        )
    }
}

pub fn rules_spec(spec: &str) -> Result<pb::Rules> {
    if engine::RuleSet::preset(spec).is_ok() {
        return Ok(sdk::preset(spec));
    }
    Ok(sdk::custom(&crate::load_rules(spec)?))
}

pub fn run(a: PlayArgs) -> Result<()> {
    gin_strategies::by_name(&a.strategy, 0).map_err(|e| anyhow::anyhow!("--strategy: {e}"))?;
    if let Some(b) = &a.vs_bot {
        // The server checks too; this only gives the error before connecting.
        gin_strategies::by_name(b, 0).map_err(|e| anyhow::anyhow!("--vs-bot: {e}"))?;
    }
    if a.concurrency == 0 {
        bail!("--concurrency: at least 1");
    }
    let rules = rules_spec(&a.rules)?;
    let mut opts = Options::default();
    if let Some(f) = &a.ca_cert {
        opts.ca_cert = Some(std::fs::read(f).with_context(|| format!("reading {}", f.display()))?);
    }
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    rt.block_on(async move {
        let client = Client::connect_with(&a.server, opts).await?;
        let started = Instant::now();
        if let (Some(game), Some(token)) = (&a.game, &a.token) {
            let mut bot = gin_strategies::by_name(&a.strategy, a.seed)?;
            let o = client.play(game, token, bot.as_mut()).await?;
            println!("{}", o.line());
            let mut t = Tally::default();
            t.add(&o);
            println!("{}", t.summary(started.elapsed().as_secs_f64()));
            return Ok(());
        }
        let a = Arc::new(a);
        let next = Arc::new(AtomicU64::new(0));
        let tally = Arc::new(std::sync::Mutex::new(Tally::default()));
        let workers = a.concurrency.min(a.games.max(1) as usize);
        let mut set = tokio::task::JoinSet::new();
        for _ in 0..workers {
            let (a, next, tally, client, rules) =
                (a.clone(), next.clone(), tally.clone(), client.clone(), rules.clone());
            set.spawn(async move {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= a.games {
                        return;
                    }
                    let r = one_game(&client, &a, rules.clone(), i).await;
                    let mut t = tally.lock().expect("lock");
                    match r {
                        Ok(o) => {
                            t.add(&o);
                            println!("[{}/{}] {}", i + 1, a.games, o.line());
                        }
                        Err(e) => {
                            t.errors += 1;
                            let e = gin_proto::text::printable(&format!("{e:#}")).into_owned();
                            eprintln!("[{}/{}] error: {e}", i + 1, a.games);
                        }
                    }
                }
            });
        }
        while set.join_next().await.is_some() {}
        let t = tally.lock().expect("lock");
        println!("{}", t.summary(started.elapsed().as_secs_f64()));
        if t.errors > 0 {
            bail!("{} of {} games failed", t.errors, a.games);
        }
        Ok(())
    })
}

async fn one_game(client: &Client, a: &PlayArgs, rules: pb::Rules, i: u64) -> Result<Outcome> {
    let name = a.name.clone().unwrap_or_else(|| format!("gin-bot-{}", a.strategy));
    let seated: Seated = match &a.vs_bot {
        Some(bot) => {
            client
                .create_game(pb::CreateGameRequest {
                    rules: Some(rules),
                    name,
                    house_bot: bot.clone(),
                    ..Default::default()
                })
                .await?
        }
        None => client.quick_match(rules, &name).await?,
    };
    let mut bot = gin_strategies::by_name(&a.strategy, a.seed.wrapping_add(i))?;
    let o = client
        .play(&seated.game_id, &seated.token, bot.as_mut())
        .await
        .with_context(|| format!("game {}", seated.game_id))?;
    Ok(o)
}
