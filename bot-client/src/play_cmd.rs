//! `gin-bot play`: play games on a server with a built-in strategy, many at once.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use gin_proto::text::printable;
use gin_proto::v1 as pb;
use gin_sdk::{self as sdk, Client, Outcome, Seated};

#[derive(clap::Args)]
pub struct PlayArgs {
    #[command(flatten)]
    server: crate::tournament_cmd::ServerArg,
    /// The strategy playing our seats: random, simple, strong, strong-v1, strong-v2, gin-hunter,
    /// early-knocker or defensive (every one at three players and in teams; random, simple or
    /// strong at gin-7 and rummy).
    #[arg(long, default_value = "simple")]
    strategy: String,
    /// Games to play (ignored with --join).
    #[arg(long, value_name = "N", default_value_t = 1)]
    games: u64,
    /// Games in play at once.
    // `--concurrency`: the older spelling, still taken.
    #[arg(long, value_name = "N", default_value_t = 1, alias = "concurrency")]
    parallel: usize,
    /// A preset name (standard, oklahoma, …, or a table format: three-player, teams, gin-7,
    /// rummy) or a TOML/JSON rules or format file, for the games this command starts.
    #[arg(long, default_value = "standard")]
    rules: String,
    /// The table size (rummy 2–6, gin-7 3–6); default: the format's own.
    #[arg(long, value_name = "N")]
    players: Option<u8>,
    /// Our display name (default: gin-bot-<strategy>).
    #[arg(long)]
    name: Option<String>,
    /// Join the game with this id (its free seat) and play it, instead of starting games; with
    /// --token, play the seat that token holds.
    // `--game`: the older spelling, still taken.
    #[arg(long, value_name = "ID", alias = "game")]
    join: Option<String>,
    /// With --join: the seat token of a seat already taken (printed when it was joined). An
    /// account token (gin_at_…) here is taken, by its prefix, as --account-token: the account
    /// joins (or plays the seat it holds already).
    #[arg(long, value_name = "TOKEN", requires = "join", env = "GIN_SEAT_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// With --join: join even though the game has fixed deals (its creator chose the seed and
    /// may know every hand).
    #[arg(long, requires = "join")]
    accept_fixed_deals: bool,
    /// Create each game against the server's house bot playing this strategy (random,
    /// simple, strong), instead of a quick match against another player.
    #[arg(long, value_name = "STRATEGY", conflicts_with = "join")]
    vs_bot: Option<String>,
    /// Seed of our strategy's choices (game i uses N + i).
    // `--seed`: the older spelling, still taken (`--seed` elsewhere seeds the deals).
    #[arg(long, value_name = "N", default_value_t = 1, alias = "seed")]
    strategy_seed: u64,
    /// With --vs-bot: our seat (0 or 1 at two-player gin; any of a table's). Without it,
    /// the server's choice (seat 0).
    #[arg(long, value_name = "N", requires = "vs_bot")]
    seat: Option<u32>,
    /// With --vs-bot: the deal seed of every game (fixed deals: `--seat 0` then `--seat 1`
    /// with the same seed plays a mirrored pair). Game i uses SEED+i. (`--seed` here is the
    /// older spelling of --strategy-seed.)
    #[arg(long, value_name = "SEED", requires = "vs_bot")]
    deal_seed: Option<u64>,
    /// With --vs-bot, two-player gin: the seat that deals the first hand (0 or 1; default:
    /// drawn from the seed).
    #[arg(long, value_name = "SEAT", requires = "vs_bot")]
    first_dealer: Option<u32>,
}

impl PlayArgs {
    /// Game `i`'s deal seed (0: the server draws one).
    fn deal_seed(&self, i: u64) -> u64 {
        self.deal_seed.map_or(0, |s| s.wrapping_add(i))
    }
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

/// The client (signed in with --account-token, or with an account token given as --token)
/// and the seat token --token gave, if it is one.
async fn client_and_seat(a: &PlayArgs) -> Result<(Client, Option<String>)> {
    let client = a.server.client().await?;
    Ok(match &a.token {
        Some(t) if sdk::is_account_token(t) => (client.with_account_token(Some(t.clone())), None),
        t => (client, t.clone()),
    })
}

pub fn run(a: PlayArgs) -> Result<()> {
    let format = crate::load_format(&a.rules)?;
    let format = match a.players {
        Some(n) => format.with_players(n)?,
        None => format,
    };
    if format.kind() != engine::Kind::Gin {
        return run_tables(a, format);
    }
    gin_strategies::by_name(&a.strategy, 0).map_err(|e| anyhow::anyhow!("--strategy: {e}"))?;
    if let Some(b) = &a.vs_bot {
        // The server checks too; this only gives the error before connecting.
        gin_strategies::by_name(b, 0).map_err(|e| anyhow::anyhow!("--vs-bot: {e}"))?;
    }
    if a.parallel == 0 {
        bail!("--parallel: at least 1");
    }
    let rules = rules_spec(&a.rules)?;
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    rt.block_on(async move {
        let (client, seat_token) = client_and_seat(&a).await?;
        let started = Instant::now();
        if let Some(game) = &a.join {
            let token = match &seat_token {
                Some(t) => t.clone(),
                None => {
                    let name = a.name.clone().unwrap_or_else(|| format!("gin-bot-{}", a.strategy));
                    let seated = client
                        .join_game_with(pb::JoinGameRequest {
                            game_id: game.clone(),
                            name,
                            accept_fixed_deals: a.accept_fixed_deals,
                            ..Default::default()
                        })
                        .await?;
                    eprintln!(
                        "joined game {} as seat {}; back to it with --join {} --token {}",
                        printable(&seated.game_id),
                        seated.seat,
                        printable(&seated.game_id),
                        printable(&seated.token)
                    );
                    seated.token
                }
            };
            let mut bot = gin_strategies::by_name(&a.strategy, a.strategy_seed)?;
            let o = client.play(game, &token, bot.as_mut()).await?;
            println!("{}", o.line());
            let mut t = Tally::default();
            t.add(&o);
            println!("{}", t.summary(started.elapsed().as_secs_f64()));
            return Ok(());
        }
        let a = Arc::new(a);
        let next = Arc::new(AtomicU64::new(0));
        let tally = Arc::new(std::sync::Mutex::new(Tally::default()));
        let workers = a.parallel.min(a.games.max(1) as usize);
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
                    seat: a.seat,
                    seed: a.deal_seed(i),
                    first_dealer: a.first_dealer,
                    ..Default::default()
                })
                .await?
        }
        None => client.quick_match(rules, &name).await?,
    };
    let mut bot = gin_strategies::by_name(&a.strategy, a.strategy_seed.wrapping_add(i))?;
    let o = client
        .play(&seated.game_id, &seated.token, bot.as_mut())
        .await
        .with_context(|| format!("game {}", seated.game_id))?;
    Ok(o)
}

/// `gin-bot play` at a table of another format: each game created with `--vs-bot` house
/// bots in every other seat (or a quick match for the same format), our seat played by a
/// table strategy (`random`, `simple`, `strong` at every table; the other two-player
/// strategies at three players and in teams).
fn run_tables(a: PlayArgs, format: engine::Format) -> Result<()> {
    if a.first_dealer.is_some() {
        bail!("--first-dealer: two-player gin only (a table's dealer follows its format's rules)");
    }
    let kind = format.kind().name();
    sdk::table_strategy_for(&a.strategy, kind, 0).map_err(|e| anyhow::anyhow!("--strategy: {e}"))?;
    if a.parallel == 0 {
        bail!("--parallel: at least 1");
    }
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    rt.block_on(async move {
        let (client, seat_token) = client_and_seat(&a).await?;
        let started = Instant::now();
        let doc = format.to_value().to_string();
        let players = u32::from(format.players());
        let (mut won, mut errors, mut played) = (0u64, 0u64, 0u64);
        if let Some(game) = &a.join {
            let token = match &seat_token {
                Some(t) => t.clone(),
                None => {
                    let name = a.name.clone().unwrap_or_else(|| format!("gin-bot-{}", a.strategy));
                    let req = pb::JoinGameRequest {
                        game_id: game.clone(),
                        name,
                        accept_fixed_deals: a.accept_fixed_deals,
                        ..Default::default()
                    };
                    let j = client.join_table(req).await?;
                    eprintln!(
                        "joined game {} as seat {}; back to it with --join {} --token {}",
                        printable(game),
                        j.seat,
                        printable(game),
                        printable(&j.token)
                    );
                    j.token
                }
            };
            let mut bot = sdk::table_strategy_for(&a.strategy, kind, a.strategy_seed)?;
            let o = client.play_table(game, &token, bot.as_mut()).await?;
            println!("{}", o.line());
            return Ok(());
        }
        for i in 0..a.games {
            let name = a.name.clone().unwrap_or_else(|| format!("gin-bot-{}", a.strategy));
            let r: Result<sdk::TableOutcome> = async {
                let (game_id, token) = match &a.vs_bot {
                    Some(bot) => {
                        let c = client
                            .create_table(pb::CreateGameRequest {
                                format: doc.clone(),
                                players,
                                name: name.clone(),
                                house_bot: bot.clone(),
                                seat: a.seat,
                                seed: a.deal_seed(i),
                                ..Default::default()
                            })
                            .await?;
                        (c.game_id, c.token)
                    }
                    None => {
                        let req = pb::QuickMatchRequest {
                            format: doc.clone(),
                            players,
                            name: name.clone(),
                            ..Default::default()
                        };
                        let (q, _) = client.quick_match_table(req).await?;
                        (q.game_id, q.token)
                    }
                };
                let mut bot = sdk::table_strategy_for(&a.strategy, kind, a.strategy_seed.wrapping_add(i))?;
                client
                    .play_table(&game_id, &token, bot.as_mut())
                    .await
                    .with_context(|| format!("game {game_id}"))
            }
            .await;
            match r {
                Ok(o) => {
                    played += 1;
                    won += u64::from(o.won());
                    println!("[{}/{}] {}", i + 1, a.games, o.line());
                }
                Err(e) => {
                    errors += 1;
                    eprintln!("[{}/{}] error: {}", i + 1, a.games, printable(&format!("{e:#}")));
                }
            }
        }
        println!(
            "{played} games at {} for {players}: {won} won; {errors} errors; {:.1} s",
            format.kind(),
            started.elapsed().as_secs_f64()
        );
        if errors > 0 {
            bail!("{errors} of {} games failed", a.games);
        }
        Ok(())
    })
}
