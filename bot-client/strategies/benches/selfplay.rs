//! Self-play speed: whole games to 100 between built-in strategies on one core.
//!
//! `cargo bench -p gin-strategies --bench selfplay`; the figure the issue names is
//! `selfplay/simple_vs_simple_game` (time per game; games/s = 1 / time), and for the other
//! formats `selfplay_format/<format>/<players>`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use engine::{GameSetup, RuleSet};
use gin_strategies::local::play_game;
use gin_strategies::simple::SimpleStrategy;
use gin_strategies::strategy::by_name;

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("selfplay");
    g.throughput(Throughput::Elements(1));
    let rules = RuleSet::standard();
    let mut seed = 0u64;
    g.bench_function("simple_vs_simple_game", |b| {
        b.iter(|| {
            seed += 1;
            let (mut x, mut y) = (SimpleStrategy::new(seed), SimpleStrategy::new(!seed));
            let game = play_game(GameSetup::new(rules.clone(), seed), [&mut x, &mut y]).expect("legal play");
            assert!(game.result().is_some());
            game.hands().len()
        })
    });
    g.bench_function("random_vs_random_game", |b| {
        b.iter(|| {
            seed += 1;
            let mut x = by_name("random", seed).expect("known");
            let mut y = by_name("random", !seed).expect("known");
            let game =
                play_game(GameSetup::new(rules.clone(), seed), [x.as_mut(), y.as_mut()]).expect("legal play");
            game.hands().len()
        })
    });
    g.finish();
    // A strong game takes thousands of times longer: fewer samples.
    let mut g = c.benchmark_group("selfplay_strong");
    g.sample_size(10);
    g.bench_function("strong_vs_simple_game", |b| {
        b.iter(|| {
            seed += 1;
            let mut x = by_name("strong", seed).expect("known");
            let mut y = SimpleStrategy::new(!seed);
            let game =
                play_game(GameSetup::new(rules.clone(), seed), [x.as_mut(), &mut y]).expect("legal play");
            game.hands().len()
        })
    });
    g.finish();
}

/// `simple` at every seat of every other format: whole games, one core
/// (`selfplay_format/<format>/<players>`; games/s = 1 / time).
fn bench_formats(c: &mut Criterion) {
    use engine::{Format, TableSetup};
    use gin_strategies::tables::{TableBot, play_table};
    let mut g = c.benchmark_group("selfplay_format");
    g.throughput(Throughput::Elements(1));
    let formats = [
        ("three-player", 3),
        ("teams", 4),
        ("gin-7", 3),
        ("gin-7", 6),
        ("rummy", 2),
        ("rummy", 4),
        ("rummy", 6),
    ];
    for (name, players) in formats {
        let format = Format::preset(name).expect("a preset").with_players(players).expect("a table size");
        let mut seed = 0u64;
        g.bench_function(format!("{name}/{players}"), |b| {
            b.iter(|| {
                seed += 1;
                let mut bots: Vec<TableBot> = (0..players)
                    .map(|s| TableBot::new("simple", format.kind(), seed ^ s as u64).expect("known"))
                    .collect();
                let t = play_table(TableSetup::new(format.clone(), seed), &mut bots).expect("legal play");
                t.hands().len()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench, bench_formats);
criterion_main!(benches);
