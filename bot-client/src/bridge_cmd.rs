//! `gin-bot bridge`: play games on a server with a program that speaks the bridge's line
//! protocol on stdin/stdout (`gin_sdk::bridge`; `examples/bridge/README.md`).

use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use gin_proto::v1 as pb;
use gin_sdk::bridge::{self, BotProcess, OnError};
use gin_sdk::{Client, Seated};

#[derive(clap::Args)]
pub struct BridgeArgs {
    /// The bot program, run with `sh -c` (e.g. "python3 examples/bridge/bot.py").
    #[arg(long)]
    cmd: String,
    #[command(flatten)]
    server: crate::tournament_cmd::ServerArg,
    /// Create each game against the server's house bot playing this strategy (random,
    /// simple, strong). Without --vs-bot or --join: quick matches against other players.
    #[arg(long, value_name = "STRATEGY", conflicts_with = "join")]
    vs_bot: Option<String>,
    /// Join this game (its first free seat) and play it; --games is then 1.
    #[arg(long, value_name = "ID")]
    join: Option<String>,
    /// Play the server's rated ladder as the account of --account-token: join the pool of
    /// --rules (and --players), play the game it is seated in, join again, for --games
    /// games (0: until ctrl-c, which finishes the game in play).
    #[arg(long, conflicts_with_all = ["join", "vs_bot"])]
    ladder: bool,
    /// Take the challenges sent to the account of --account-token (two-player gin under a
    /// preset, rated or casual) and play each with the program, for --games games (0: until
    /// ctrl-c).
    #[arg(long, conflicts_with_all = ["join", "vs_bot", "ladder"])]
    accept_challenges: bool,
    /// With --join: join even though the game has fixed deals (its creator chose the seed).
    #[arg(long, requires = "join")]
    accept_fixed_deals: bool,
    /// Games to play, one after the other, with the same program.
    #[arg(long, value_name = "N", default_value_t = 1)]
    games: u64,
    /// A preset name (standard, oklahoma, …, or a table format: three-player, teams, gin-7,
    /// rummy) or a TOML/JSON rules or format file, for the games this command starts.
    #[arg(long, default_value = "standard")]
    rules: String,
    /// The table size (rummy 2–6, gin-7 3–6); default: the format's own.
    #[arg(long, value_name = "N")]
    players: Option<u8>,
    /// Our display name.
    #[arg(long, default_value = "bridge")]
    name: String,
    /// How long the program may take to answer one turn, in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    timeout_ms: u64,
    /// With --vs-bot: the program's seat (0 or 1 at two-player gin; any of a table's).
    /// Without it, the server's choice (seat 0).
    #[arg(long, value_name = "N", requires = "vs_bot")]
    seat: Option<u32>,
    /// With --vs-bot: the deal seed of every game (fixed deals: the same seed and rules deal
    /// the same hands, so `--seat 0` then `--seat 1` plays a mirrored pair). Game i of
    /// --games N uses SEED+i.
    #[arg(long, value_name = "SEED", requires = "vs_bot")]
    seed: Option<u64>,
    /// With --vs-bot, two-player gin: the seat that deals the first hand (0 or 1; default:
    /// drawn from the seed).
    #[arg(long, value_name = "SEAT", requires = "vs_bot")]
    first_dealer: Option<u32>,
    /// What a bad or late answer, or a line written when no answer was asked, does: stop
    /// (resign the game and stop), resign-game (resign it and play the next game), skip
    /// (tell the program, play a safe move for that turn, go on). Under the last two a
    /// stray line is reported and ignored.
    #[arg(long, value_enum, default_value = "stop")]
    on_error: OnErrorArg,
}

/// `--on-error`.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum OnErrorArg {
    Stop,
    ResignGame,
    Skip,
}

impl OnErrorArg {
    /// What it means for the program.
    pub fn on_error(self) -> OnError {
        match self {
            OnErrorArg::Stop => OnError::Stop,
            OnErrorArg::ResignGame => OnError::ResignGame,
            OnErrorArg::Skip => OnError::Skip,
        }
    }
}

impl BridgeArgs {
    fn on_error(&self) -> OnError {
        self.on_error.on_error()
    }

    /// Game `i`'s seed (0: the server draws one).
    fn seed(&self, i: u64) -> u64 {
        self.seed.map_or(0, |s| s.wrapping_add(i))
    }
}

/// Prints what the program got away with under a lenient --on-error.
fn report_notes(bot: &BotProcess, game: u64, games: u64) {
    for n in bot.take_notes() {
        eprintln!("[{game}/{games}] {}", gin_proto::text::printable(&n));
    }
}

async fn seat(client: &Client, a: &BridgeArgs, rules: pb::Rules, i: u64) -> Result<Seated> {
    Ok(match (&a.join, &a.vs_bot) {
        (Some(id), _) => {
            client
                .join_game_with(pb::JoinGameRequest {
                    game_id: id.clone(),
                    name: a.name.clone(),
                    accept_fixed_deals: a.accept_fixed_deals,
                    ..Default::default()
                })
                .await?
        }
        (None, Some(bot)) => {
            client
                .create_game(pb::CreateGameRequest {
                    rules: Some(rules),
                    name: a.name.clone(),
                    house_bot: bot.clone(),
                    seat: a.seat,
                    seed: a.seed(i),
                    first_dealer: a.first_dealer,
                    ..Default::default()
                })
                .await?
        }
        (None, None) => client.quick_match(rules, &a.name).await?,
    })
}

pub fn run(a: BridgeArgs) -> Result<()> {
    if a.ladder || a.accept_challenges {
        return run_ladder(a);
    }
    let format = crate::load_format(&a.rules)?;
    let format = match a.players {
        Some(n) => format.with_players(n)?,
        None => format,
    };
    if format.kind() != engine::Kind::Gin {
        return run_table(a, format);
    }
    if let Some(b) = &a.vs_bot {
        gin_strategies::by_name(b, 0).map_err(|e| anyhow::anyhow!("--vs-bot: {e}"))?;
    }
    let games = if a.join.is_some() { 1 } else { a.games };
    let rules = crate::play_cmd::rules_spec(&a.rules)?;
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    rt.block_on(async move {
        let client = a.server.client().await?;
        let bot = BotProcess::spawn_with(&a.cmd, Duration::from_millis(a.timeout_ms), a.on_error())?;
        let started = Instant::now();
        let (mut won, mut lost, mut drawn, mut resigned) = (0, 0, 0, 0);
        for i in 0..games {
            let seated = seat(&client, &a, rules.clone(), i).await?;
            let target = client.get_game(&seated.game_id, &seated.token).await?.rules.map_or(0, |r| r.target);
            let played = bridge::play_game(&client, &seated, &bot).await;
            report_notes(&bot, i + 1, games);
            let o = match played {
                Ok(o) => o,
                Err(e) => {
                    if bot.forgive().is_some() {
                        eprintln!(
                            "[{}/{games}] game {}: {e} (the game was resigned; going on)",
                            i + 1,
                            seated.game_id
                        );
                        resigned += 1;
                        continue;
                    }
                    bot.finish(Duration::from_secs(1));
                    bail!("[{}/{games}] game {}: {e} (the game was resigned)", i + 1, seated.game_id);
                }
            };
            let hands = bridge::check_result(&client, &o, target).await?;
            match o.score() {
                1.0 => won += 1,
                0.0 => lost += 1,
                _ => drawn += 1,
            }
            println!("[{}/{games}] {} (result checked against GetRecord: {hands} hands)", i + 1, o.line());
        }
        let how = bot.finish(Duration::from_secs(5));
        let resigned =
            if resigned > 0 { format!(", {resigned} resigned after a bad answer") } else { String::new() };
        println!(
            "{games} games: {won} won, {lost} lost, {drawn} drawn{resigned}; the program {how}; {:.1} s",
            started.elapsed().as_secs_f64()
        );
        Ok(())
    })
}

/// `gin-bot bridge` at a table of another format: each game created with `--vs-bot` house
/// bots in every other seat (or a quick match, or `--join`); the result checked against
/// `GetRecord`.
fn run_table(a: BridgeArgs, format: engine::Format) -> Result<()> {
    if a.first_dealer.is_some() {
        bail!("--first-dealer: two-player gin only (a table's dealer follows its format's rules)");
    }
    let games = if a.join.is_some() { 1 } else { a.games };
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    rt.block_on(async move {
        let client = a.server.client().await?;
        let bot = BotProcess::spawn_with(&a.cmd, Duration::from_millis(a.timeout_ms), a.on_error())?;
        let started = Instant::now();
        let doc = format.to_value().to_string();
        let players = u32::from(format.players());
        let mut won = 0;
        for i in 0..games {
            let (game_id, token) = match (&a.join, &a.vs_bot) {
                (Some(id), _) => {
                    let req = pb::JoinGameRequest {
                        game_id: id.clone(),
                        name: a.name.clone(),
                        accept_fixed_deals: a.accept_fixed_deals,
                        ..Default::default()
                    };
                    (id.clone(), client.join_table(req).await?.token)
                }
                (None, bot_name) => {
                    let req = pb::CreateGameRequest {
                        format: doc.clone(),
                        players,
                        join: true,
                        name: a.name.clone(),
                        house_bot: bot_name.clone().unwrap_or_default(),
                        seat: a.seat,
                        seed: a.seed(i),
                        ..Default::default()
                    };
                    if bot_name.is_none() {
                        let q = pb::QuickMatchRequest {
                            format: doc.clone(),
                            players,
                            name: a.name.clone(),
                            ..Default::default()
                        };
                        let (q, _) = client.quick_match_table(q).await?;
                        (q.game_id, q.token)
                    } else {
                        let c = client.create_table(req).await?;
                        (c.game_id, c.token)
                    }
                }
            };
            let played = bridge::play_table_game(&client, &game_id, &token, &bot).await;
            report_notes(&bot, i + 1, games);
            let o = match played {
                Ok(o) => o,
                Err(e) => {
                    if bot.forgive().is_some() {
                        eprintln!(
                            "[{}/{games}] game {game_id}: {e} (the game was resigned; going on)",
                            i + 1
                        );
                        continue;
                    }
                    bot.finish(Duration::from_secs(1));
                    bail!("[{}/{games}] game {game_id}: {e} (the game was resigned)", i + 1);
                }
            };
            let rec = client.get_record(&game_id).await?;
            if rec.result.as_ref() != Some(&o.result) {
                bail!(
                    "[{}/{games}] game {game_id}: GetRecord's result differs from the game-over event's",
                    i + 1
                );
            }
            won += u64::from(o.won());
            println!(
                "[{}/{games}] {} (result checked against GetRecord: {} hands)",
                i + 1,
                o.line(),
                rec.reveals.len()
            );
        }
        let how = bot.finish(Duration::from_secs(5));
        println!("{games} games: {won} won; the program {how}; {:.1} s", started.elapsed().as_secs_f64());
        Ok(())
    })
}

/// `gin-bot bridge --ladder`: the program plays the rated ladder as the account, game after
/// game (`Client::join_ladder`, then the bridge's game of two players or of a table), with a
/// progress line carrying its rating. `--accept-challenges`: the games are instead those of
/// the challenges the account receives (`Client::accept_next_challenge`), its account token
/// acting for its seat.
fn run_ladder(a: BridgeArgs) -> Result<()> {
    use gin_sdk::ladder::{LadderEvent, LadderStop};
    let pool = crate::ladder_cmd::pool_of(&a.rules, a.players)?;
    let mode = if a.ladder { "--ladder" } else { "--accept-challenges" };
    let Some(account_token) = a.server.account_token.clone() else {
        bail!("{mode}: an account's: give --account-token (or GIN_ACCOUNT_TOKEN)");
    };
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    rt.block_on(async move {
        let client = a.server.client().await?;
        let bot = BotProcess::spawn_with(&a.cmd, Duration::from_millis(a.timeout_ms), a.on_error())?;
        let stop = LadderStop::default();
        let on_ctrl_c = stop.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                eprintln!("stopping after the game in play");
                on_ctrl_c.stop();
            }
        });
        let started = Instant::now();
        let (mut played, mut won) = (0u64, 0u64);
        while (a.games == 0 || played < a.games) && !stop.stopped() {
            let mut told = false;
            let mut on_event = |e: LadderEvent<'_>| match e {
                LadderEvent::Queued(q) if !told => {
                    told = true;
                    let mark = if q.provisional { " provisional" } else { "" };
                    println!(
                        "ladder {}: rating {:.0} ±{:.0}{mark} after {} rated games; {} waiting",
                        gin_proto::text::printable(&q.pool),
                        q.rating,
                        q.deviation,
                        q.games,
                        q.waiting
                    );
                }
                LadderEvent::Retrying(s, wait) => {
                    eprintln!("ladder: {}; joining again in {:.1} s", s.message(), wait.as_secs_f64())
                }
                _ => {}
            };
            let m = if a.ladder {
                let Some(m) = client.join_ladder(&pool, &stop, &mut on_event).await? else { break };
                m
            } else {
                let c = tokio::select! {
                    c = client.accept_next_challenge(crate::ladder_cmd::wanted) => c?,
                    () = async { while !stop.stopped() { tokio::time::sleep(Duration::from_millis(50)).await } } => break,
                };
                println!("challenge from {}: game {}", gin_proto::text::printable(&c.challenger), c.game_id);
                pb::LadderMatched {
                    game_id: c.game_id.clone(),
                    seat: c.seat.unwrap_or_default(),
                    seat_token: account_token.clone(),
                    ..Default::default()
                }
            };
            let n = played + 1;
            let result = if pool.starts_with("gin/") || !a.ladder {
                let seat = gin_proto::convert::seat(m.seat)?;
                let seated = Seated { game_id: m.game_id.clone(), seat, token: m.seat_token.clone() };
                bridge::play_game(&client, &seated, &bot).await.map(|o| (o.score() == 1.0, o.line()))
            } else {
                bridge::play_table_game(&client, &m.game_id, &m.seat_token, &bot)
                    .await
                    .map(|o| (o.won(), o.line()))
            };
            report_notes(&bot, n, a.games);
            match result {
                Ok((w, line)) => {
                    won += u64::from(w);
                    println!("[{n}] {line}");
                }
                Err(e) if bot.forgive().is_some() => {
                    eprintln!("[{n}] game {}: {e} (the game was resigned; going on)", m.game_id);
                }
                Err(e) => {
                    bot.finish(Duration::from_secs(1));
                    bail!("[{n}] game {}: {e} (the game was resigned)", m.game_id);
                }
            }
            played = n;
        }
        let how = bot.finish(Duration::from_secs(5));
        let what = if a.ladder { format!("ladder {pool}") } else { "challenges".to_owned() };
        println!("{what}: {played} games, {won} won; the program {how}; {:.1} s", started.elapsed().as_secs_f64());
        Ok(())
    })
}
