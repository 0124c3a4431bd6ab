//! `gin-bot ladder`: an account's program on the server's rated ladder, until stopped
//! (`Client::play_ladder`): joins the pool, plays each game it is seated in with a built-in
//! strategy, joins again; a progress line with its rating as it goes. With
//! `--accept-challenges`, it also takes the two-player challenges sent to the account
//! (`Client::accept_next_challenge`) and plays them alongside.

use std::time::Duration;

use anyhow::{Context, Result};
use gin_proto::text::printable;
use gin_proto::v1 as pb;
use gin_sdk::ladder::{LadderEvent, LadderPlayer, LadderStop};

/// `gin-bot ladder`.
#[derive(clap::Args)]
pub struct LadderArgs {
    #[command(flatten)]
    server: crate::tournament_cmd::ServerArg,
    /// The account's token (gin_at_…; `gin-bot account create` prints one): the same as
    /// --account-token.
    #[arg(long, value_name = "TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// The strategy: random, simple, strong, … (at gin-7 and rummy: random, simple or strong).
    #[arg(long, default_value = "simple", value_name = "NAME")]
    strategy: String,
    /// The ladder: a preset of two-player gin (standard, oklahoma, …), or three-player, teams,
    /// gin-7, rummy (with --players).
    #[arg(long, default_value = "standard", value_name = "PRESET")]
    rules: String,
    /// The table size, for gin-7 (3 to 6) and rummy (2 to 6).
    #[arg(long, value_name = "N")]
    players: Option<u8>,
    /// Stop after this many ladder games (default: until stopped with ctrl-c, which finishes
    /// the game in play first; a second ctrl-c stops at once).
    #[arg(long, value_name = "N")]
    games: Option<u64>,
    /// Also take the challenges sent to the account (two-player gin under a preset, rated or
    /// casual) and play them alongside the ladder.
    #[arg(long)]
    accept_challenges: bool,
    /// Seed of the strategy's choices.
    #[arg(long, value_name = "N", default_value_t = 0)]
    strategy_seed: u64,
}

/// The pool of `--rules` and `--players`.
pub fn pool_of(rules: &str, players: Option<u8>) -> Result<String> {
    gin_sdk::ladder::pool_of(rules, players).map_err(anyhow::Error::msg)
}

/// Whether a challenge is one the ladder program takes: two-player gin under a preset.
pub fn wanted(c: &pb::Challenge) -> bool {
    let preset = matches!(
        &c.rules,
        None | Some(pb::Rules { kind: None }) | Some(pb::Rules { kind: Some(pb::rules::Kind::Preset(_)) })
    );
    preset && c.format.is_empty() && c.players <= 2
}

/// The progress line of a queued program.
fn queued_line(q: &pb::LadderQueued, played: u64, score: f64) -> String {
    let mark = if q.provisional { " provisional" } else { "" };
    let expected =
        q.expected_wait_ms.map_or(String::new(), |ms| format!(", expected wait {:.0} s", ms as f64 / 1e3));
    format!(
        "ladder {}: {played} played ({score} points), rating {:.0} ±{:.0}{mark} after {} rated games; {} waiting{expected}",
        printable(&q.pool),
        q.rating,
        q.deviation,
        q.games,
        q.waiting
    )
}

pub fn run(a: LadderArgs) -> Result<()> {
    let pool = pool_of(&a.rules, a.players)?;
    let two = pool.starts_with("gin/");
    let kind = pool.split('/').next().unwrap_or_default().to_owned();
    if two {
        gin_strategies::by_name(&a.strategy, 0).map_err(|e| anyhow::anyhow!("--strategy: {e}"))?;
    } else {
        gin_sdk::table_strategy_for(&a.strategy, &kind, 0).map_err(|e| anyhow::anyhow!("--strategy: {e}"))?;
    }
    let mut server = a.server;
    if let Some(t) = a.token {
        server.account_token = Some(t);
    }
    let token = server
        .account_token
        .clone()
        .context("--token (or --account-token, GIN_ACCOUNT_TOKEN): the ladder is an account's")?;
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    rt.block_on(async move {
        let client = server.client().await?;
        let stop = LadderStop::default();
        let on_ctrl_c = stop.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                eprintln!("stopping after the game in play (ctrl-c again to stop now)");
                on_ctrl_c.stop();
                if tokio::signal::ctrl_c().await.is_ok() {
                    std::process::exit(130);
                }
            }
        });
        if a.accept_challenges {
            let (client, token, strategy, stop) =
                (client.clone(), token.clone(), a.strategy.clone(), stop.clone());
            tokio::spawn(async move {
                let mut n = 0u64;
                while !stop.stopped() {
                    let c = match client.accept_next_challenge(wanted).await {
                        Ok(c) => c,
                        Err(e) => {
                            eprintln!("challenges: {e}; watching again in 5 s");
                            tokio::time::sleep(Duration::from_secs(5)).await;
                            continue;
                        }
                    };
                    n += 1;
                    let Ok(mut bot) =
                        gin_strategies::by_name(&strategy, a.strategy_seed.wrapping_add(n << 32))
                    else {
                        return;
                    };
                    println!("challenge from {}: game {}", printable(&c.challenger), printable(&c.game_id));
                    match client.play(&c.game_id, &token, bot.as_mut()).await {
                        Ok(o) => println!("challenge {}", o.line()),
                        Err(e) => eprintln!("challenge game {}: {e}", printable(&c.game_id)),
                    }
                }
            });
        }
        let mut played = 0u64;
        let mut score = 0.0;
        // The waited time of the last progress line printed in this join.
        let mut told: Option<u64> = None;
        let mut on_event = |e: LadderEvent<'_>| match e {
            LadderEvent::Queued(q) => {
                // Once per join, then every 30 s of waiting.
                if told.is_none_or(|t| q.waited_ms >= t + 30_000) {
                    println!("{}", queued_line(q, played, score));
                    told = Some(q.waited_ms);
                }
            }
            LadderEvent::Matched(m) => {
                let others: Vec<String> = m
                    .seats
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i as u32 != m.seat)
                    .map(|(_, s)| format!("{} ({:.0})", printable(&s.name), s.rating))
                    .collect();
                println!(
                    "seated in {} (seat {}) against {} after {:.1} s",
                    printable(&m.game_id),
                    m.seat,
                    others.join(", "),
                    m.waited_ms as f64 / 1e3
                );
            }
            LadderEvent::Resuming(id) => println!("resuming the unfinished game {}", printable(id)),
            LadderEvent::Played(g) => {
                played += 1;
                score += g.score();
                told = None;
                println!("{}", g.line());
            }
            LadderEvent::Retrying(s, wait) => {
                eprintln!("ladder: {}; joining again in {:.1} s", s.message(), wait.as_secs_f64())
            }
        };
        let seed = a.strategy_seed;
        let n = if two {
            let mut bot = gin_strategies::by_name(&a.strategy, seed)?;
            client.play_ladder(&pool, LadderPlayer::Two(bot.as_mut()), a.games, &stop, &mut on_event).await
        } else {
            let mut bot = gin_sdk::table_strategy_for(&a.strategy, &kind, seed)?;
            client.play_ladder(&pool, LadderPlayer::Table(bot.as_mut()), a.games, &stop, &mut on_event).await
        }
        .map_err(|e| anyhow::anyhow!("the ladder {pool}: {e}"))?;
        println!("ladder {pool}: stopped after {n} games");
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_two_player_gin_under_a_preset_is_taken_from_challenges() {
        let c = |rules: Option<pb::Rules>, format: &str| pb::Challenge {
            rules,
            format: format.into(),
            ..Default::default()
        };
        let preset = |p: &str| Some(pb::Rules { kind: Some(pb::rules::Kind::Preset(p.into())) });
        assert!(wanted(&c(None, "")));
        assert!(wanted(&c(preset("oklahoma"), "")));
        assert!(!wanted(&c(None, "rummy")));
        let custom = Some(pb::Rules { kind: Some(pb::rules::Kind::Custom(Default::default())) });
        assert!(!wanted(&c(custom, "")));
    }
}
