//! How often a hand of gin for 3 to 6 dies (the stock down to `dead_stock` cards) under
//! `simple` vs `simple` self-play, per table size and number of turns of the pile allowed
//! (`Gin7Rules::reshuffles`): the measurement behind that rule's default.
//!
//! `cargo run --release -p gin-strategies --example gin7_dead_hands [games] [reshuffles…]`
//! (default 1000 games, reshuffles 0 1 2; `PLAYERS=6` for one table size). Each game is to
//! 100 points, every seat `simple`.

use engine::gin7::Gin7Rules;
use engine::{Format, HandEnd, Kind, TableSetup};
use gin_strategies::rng::derive;
use gin_strategies::tables::{TableBot, play_table};

fn main() {
    let only: Option<u8> = std::env::var("PLAYERS").ok().map(|p| p.parse().expect("PLAYERS: 3 to 6"));
    let mut args = std::env::args().skip(1);
    let games: u64 = args.next().map_or(1000, |a| a.parse().expect("games: a number"));
    let mut turns: Vec<u32> = args.map(|a| a.parse().expect("reshuffles: numbers")).collect();
    if turns.is_empty() {
        turns = vec![0, 1, 2];
    }
    println!("players reshuffles games hands hands/game dead dead% games/s");
    for players in (3..=6u8).filter(|p| only.is_none_or(|o| o == *p)) {
        for &reshuffles in &turns {
            let rules = Gin7Rules { reshuffles, ..Gin7Rules::for_players(players).expect("3 to 6") };
            let format = Format::Gin7(rules);
            let (mut hands, mut dead) = (0u64, 0u64);
            let start = std::time::Instant::now();
            for g in 0..games {
                let seed = derive(0x6E7_DEAD, g);
                let mut bots: Vec<TableBot> = (0..players)
                    .map(|s| TableBot::new("simple", Kind::Gin7, derive(seed, 1 + s as u64)).expect("simple"))
                    .collect();
                let t = play_table(TableSetup::new(format.clone(), seed), &mut bots).expect("legal play");
                for h in t.hands() {
                    hands += 1;
                    dead += (h.end == HandEnd::Dead) as u64;
                }
            }
            let secs = start.elapsed().as_secs_f64();
            println!(
                "{players} {reshuffles} {games} {hands} {:.1} {dead} {:.1} {:.0}",
                hands as f64 / games as f64,
                100.0 * dead as f64 / hands as f64,
                games as f64 / secs
            );
        }
    }
}
