//! Gin Rummy strategies, on the engine alone: nothing network, no async, no I/O.
//!
//! - [`strategy`]: the [`Strategy`] trait, a synchronous function of what one seat may see
//!   ([`Decision`]) to an action, and the built-in strategies [`random`], [`simple`] and
//!   [`strong`], with [`strong_v1`] and [`strong_v2`] (`strong` frozen as it was, the
//!   yardsticks of its progress),
//!   and opponents of other styles ([`styles`]: `gin-hunter`, `early-knocker`,
//!   `defensive`), by name through [`by_name`].
//! - [`memory`]: what a seat remembers of the hand in play, fed by redacted events.
//! - [`local`] and [`selfplay`]: fast in-process games and matches on all cores, with
//!   duplicate deals; [`stats`]: Elo with its interval, SPRT; [`rng`]: the strategies' seeded
//!   generator and seed derivation.
//!
//! The same strategy plays in local self-play, as the server's house bot and on the network
//! (the `gin-sdk` crate): each builds its [`Decision`] from the seat's own view only.
//! With the `serde` feature, the self-play report and the statistics serialize (for JSON
//! reports).
//!
//! ```
//! use engine::{GameSetup, RuleSet};
//! use gin_strategies::{by_name, local};
//!
//! let mut a = by_name("simple", 1).unwrap();
//! let mut b = by_name("random", 2).unwrap();
//! let game = local::play_game(GameSetup::new(RuleSet::standard(), 7), [a.as_mut(), b.as_mut()]).unwrap();
//! assert!(game.result().is_some());
//! ```
//!
//! ## The files
//!
//! | file | what it holds |
//! |---|---|
//! | `strategy.rs` | `Strategy` (a synchronous `act(&Decision) -> Action`), `Decision` (`Decision::of`: the seat to act's view read from the engine, for local play and house bots), `Turn` (a decision as owned data, decided on away from the game), `is_listed` and `fallback` (a safe legal action for an illegal choice), `by_name` |
//! | `memory.rs` | `Memory`: what one seat remembers of the hand, fed with redacted `Seen` events (`Seen::of`: an engine event as a seat sees it), and of the game: the opponent's part in each showdown (`hand_ended` with the `Shown` showdown: its knock's deadwood, or its ten cards' when it defended), which every feeder passes on (local play, house bots, the SDK's tracker) |
//! | `random.rs`, `simple.rs` | the uniform-random player and the classic baseline (takes the pile card only if it melds, discards the least deadwood, knocks at once) |
//! | `styles.rs` | opponents of other styles, for measuring `strong` without overfitting the baseline: `gin-hunter` (keeps the cards with the most ways to meld; knocks only with ≤ 2 deadwood or ≤ 8 cards left in the stock), `early-knocker` (rushes its deadwood down, knocks at the first chance), `defensive` (never discards next to a card the opponent took, when it has another discard) |
//! | `strong_v1/` | `strong-v1`: `strong` as of 2026-11-24, frozen (a copy of the module) as the yardstick of its progress; a test pins its games (`strong` has since learnt never to take back its own discard but for gin, which ended the endless hands the two could play, and to wait for gin in its rollouts against an opponent the game's showdowns show patient) |
//! | `strong_v2/` | `strong-v2`: `strong` as of 2026-11-29, frozen the same way (issue 40: the yardstick of a player past the search's ceiling); a test pins its games |
//! | `strong/` | `strong`: `model.rs` (opponent model: weights from pickups, discards and declines; sampled hands improved like a deadwood minimizer's and resampled by how well they explain its last discards and, as far as it is an eager knocker, by whether it could have knocked with what it kept), `sim.rs` + `melds.rs` (allocation-free rollouts of a hand with the baseline policy, each seat may be made to wait for a better knock (`Tuning::us_wait`, `opp_wait`, `late`); exact layoffs; a rollout past 200 turns counts as a dead hand; eleven melded cards count as a gin unless `Tuning::rollout_big_gin`), `patience.rs` (the chance that the opponent is a patient knocker, by Bayes' rule over this game's showdowns; the rollouts' waits scale with it), `mod.rs` (draw, discard and knock decisions compared on shared determinizations; never takes back its own discard but for gin, so no two players can pass the same cards round for ever; knock melds chosen against sampled layoffs; `Tuning`), `value.rs` (an optional game-score utility, off) |
//! | `learned/` | `learned` (issue 40, first step; by name only, not in `STRATEGIES`): a policy MLP distilled from `strong`'s decisions. `features.rs` (the information state as planes of card bits), `net.rs` (the hand-written MLP, sparse first layer, Adam; the parameter file's format), `mod.rs` (the player: one forward pass per decision; the expert's games and samples; training), `infer.rs` (a lab probe: a hand-inference network trained on true hands, measured beside `strong`'s model by `examples/probe_inference.rs`; not used in play). Parameters: `data/learned.bin`, made by `examples/train_learned.rs` (distillation) then `examples/finetune_learned.rs` (self-play policy gradient) |
//! | `tables.rs` | bots at every format: `TableBot` (gin kinds: a two-player `Strategy` hand by hand with its `Memory`, which starts each hand with what the showdowns of the earlier hands against the same opponent showed of it: `showdowns_against`, from the table's finished hands, each under its own knock limit; gin-7: `random`/`simple` through the same `Decision`; rummy: `random` and the adapted `simple`), `play_table` (gin-7 straight through `Gin7Game::apply`, each move applied where it is decided, and `simple` called by its type: the moves through `Table::apply` gave the same games, slower), `TableSelfPlay` (duplicate deals rotated over every seat, or over both teams) and its `TableReport` (per strategy, per seat, per team) |
//! | `table_strong.rs` | `strong` at gin-7 (3–6) and rummy (2–6): determinized Monte Carlo, the cards its seat cannot place dealt at random to the other seats and the stock (`Gin7Hand::with_hidden`, `RummyHand::with_hidden`), each candidate move rolled out with `simple` at every seat on shared samples, a budget of rollouts per decision (`SearchStats` counts and times them); the house bots' `strong` there, and over the network the SDK's (on a hand rebuilt from its seat's view, `Gin7Hand::from_view`, `RummyHand::from_view`) |
//! | `local.rs`, `selfplay.rs`, `stats.rs`, `rng.rs` | in-process games, matches on all cores with duplicate deals, Elo/SPRT, the strategies' seeded generator (`rand_xoshiro`'s xoshiro256++, seeded by SplitMix64 as before: a test pins a seed's stream) and seed derivation (the server's tournaments use the last two) |
//!
//! serde is an optional feature (`serde`): the self-play report and the statistics serialize
//! for `gin-bot selfplay --json`; nothing else needs it. `benches/selfplay.rs` times whole
//! games; `tests/it/` (one test binary) holds the legality property over random games
//! (`strategies.rs`), the strong player's tests (`strong.rs`) and the bots at every format (`tables.rs`); `rules/competition.toml` the competition rules it is measured under.
//!
//! A strategy sees the same thing in local play, as a house bot and on the network: local play
//! and house bots read the engine's view of their seat (`Decision::of`) and feed their `Memory`
//! with `Seen::of`; the SDK folds the server's redacted events (`SeatTracker`).
//! `gin-sdk`'s `tracker.rs` tests that the tracker's decisions equal the engine's over a whole
//! game, and the server's `game/house.rs` that a house bot's decision and memory equal the
//! tracker's fed by `event_for`, at every turn of whole games from either seat. A new
//! `Decision` field goes into `Decision::of`, `Turn` and the SDK's `SeatTracker`, with both
//! equality tests.

pub mod learned;
pub mod local;
pub mod memory;
pub mod random;
pub mod rng;
pub mod selfplay;
pub mod simple;
pub mod stats;
pub mod strategy;
pub mod strong;
pub mod strong_v1;
pub mod strong_v2;
pub mod styles;
pub mod table_strong;
pub mod tables;

pub use memory::{Memory, OppShowdown, Seen, Shown};
pub use strategy::{
    Choice, Decision, STRATEGIES, Strategy, Turn, UnknownStrategy, by_name, fallback, is_listed, server_melds,
};
