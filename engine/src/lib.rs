//! The Gin Rummy rules engine: exact, deterministic and fast.
//!
//! Pure: no async, no I/O, no clock, no global RNG. Randomness comes in as a seed.
//!
//! ```
//! use engine::{deadwood, hand};
//! assert_eq!(deadwood(hand("7C 7D 7H 3S 4S 5S 2D 9S AH")), 12);
//! ```
//!
//! ## The modules
//!
//! Most modules are private, their items re-exported at the crate's root (`cpu`, `gin7`,
//! `pairs` and `rummy` are public). Dependencies go downward only:
//!
//! | module | what it holds |
//! |---|---|
//! | `card` | `Suit`, `Rank`, `Card` (a `u8` bit index `suit*16 + rank`), notation parse/display |
//! | `cardset` | `CardSet(u64)`: one 16-bit lane per suit; values, iteration, notation |
//! | `meld` | `Meld` (validated set or run), `layoff_spots` |
//! | `solver` | the exact deadwood solver and everything derived from it: `deadwood`, `best_arrangement`, `min_arrangements`, `best_discard`, `deadwood_after_best_discard`, `deadwood_by_discard`, `knock_options`; `Arrangement` |
//! | `layoff` | `best_defense`: the defender's melds and layoffs that minimise its deadwood |
//! | `rules` | `RuleSet` (every number a field), the presets, TOML/JSON loading and validation |
//! | `deal` | `Deck`, the seeded shuffle (ChaCha8 from `rand_chacha` + Fisher–Yates, documented and pinned by a test; the tests keep a reference ChaCha core the stream is checked against) |
//! | `fair` | the commitments: `deal_commitment`/`verify_deal` and `hand_salt` (a deck, each hand), `seed_commitment`/`verify_seed` and `seed_salt` (the game's seed, which keys every deck and every shuffle of a turned pile) |
//! | `seat` | `Seat` (index 0/1), `BySeat<T>` |
//! | `hand` | `Hand`: one hand's state machine; `Action`, `Legal`, `Event`, `RuleError`, `HandResult`, `Showdown`, hand scoring |
//! | `game` | `Game`: hands to the target, dealer rotation, stages, bonuses; `GameSetup`, `GameResult` |
//! | `view` | `SeatView`, `SpectatorView`, `PublicView`: what a viewer may see |
//! | `record` | `GameRecord`: setup + actions, JSON and a compact text form, `replay` |
//! | `rummy` | basic rummy (seed 003), the sibling game, 2 to 6 players: `RummyRules` (every choice a field, `check` refuses impossible tables), `RummyHand` (deal, `legal`, `apply`: draw, melds, one-card lay-offs onto anyone's melds, discard, going out, the pile turned into the stock, dead hand after `max_reshuffles`), `RummyView` (what one seat sees: `view_of`, and `from_view`, a hand rebuilt from it for a search, its hidden cards placed anyhow), `RummyGame` (hands to a target or a number of hands, the deal passing left; explicit decks, its actions and each hand's final table kept for reports) |
//! | `rummy_melds` | the best melds of a rummy hand under its rules (ace low, or high: Q-K-A, never K-A-2), for `gin analyze` and the bots |
//! | `gin7` | gin for 3 to 6 players at one table, 7 cards each (seed 002): `Gin7Rules` (every choice a field, `check` refuses impossible tables; the numbers that depend on the table size, the turns of the pile `default_pile_turns` and the two limits, default by size and follow `with_players`), `Gin7Hand` (deal from the dealer's left, `legal` as the two-player `Legal`, `apply` with the two-player `Action`: draw, discard, knock or gin, layoffs onto the knocker's melds only, dead hand; `Gin7HandResult` with each seat's melds, layoffs, deadwood, points and penalty), `Gin7View` (what one seat sees: `view_of`, and `from_view`, a hand rebuilt from it for a search, its hidden cards placed anyhow; `ViewError`), `Gin7Game` (points and penalties kept apart, to a target or a number of hands, winners by net; its actions in a compact log, a `u16` per draw or discard, `actions()` the list) |
//! | `pairs` | gin for three, rotating, and for four in two teams (seed 000): each hand a two-player `Hand`; `ThreePlayerGame` (the dealer sits out, the loser deals next, the winner plays the previous dealer), `TeamGame` (two tables at once, partners change opponents each round, the round scored as the sum or the difference), `SideTotals` (the rule set's bonuses per person or per team) |
//! | `format` | `Format`: the game kind (`Kind`: gin, three-player, teams, gin-7, rummy) with that kind's rules and table size, as one document (`kind = "…"` + the kind's fields; no `kind` is a two-player `RuleSet` as before), the presets (`FORMAT_PRESETS`), `with_players`, clear errors (`FormatError` names the field) |
//! | `table` | `Table`: the one interface over every kind, an enum with one arm per kind (two-player gin is `Game` itself, so its path and speed do not move): `to_act` (two seats at once in team play), `legal`, `apply` (`Move`: every kind's moves, parsed and printed; the step's `TableEvent`, whose `seen_by` hides a stock draw's card from everyone but the drawer), `view`/`spectator_view` (`TableView`: the viewer's own cards and the public tables only), `hands` (`HandReport`: how each hand ended, who knocked or went out, each seat's melds, lay-offs, deadwood and penalty, running totals), `result` (`TableResult`: totals, winners, places), `moves`; `TableSetup` (format, seed, explicit decks, first dealer) replays a table from its moves |
//! | `table_record` | `TableRecord`: a table of any format as its setup and moves, JSON or the text form `table-record 2`; a two-player `GameRecord` reads as one; `replay` gives the identical table |
//! | `cpu` | what this build needs from the CPU (it is built for x86-64-v3): `unsupported`, which each binary calls first so that an older CPU gets a message, not SIGILL |

mod card;
mod cardset;
pub mod cpu;
mod deal;
mod fair;
mod format;
mod game;
pub mod gin7;
mod hand;
mod layoff;
mod meld;
pub mod pairs;
mod record;
mod rules;
pub mod rummy;
mod rummy_melds;
mod seat;
mod solver;
mod table;
mod table_record;
mod view;

pub use card::{Card, ParseCardError, Rank, Suit, card};
pub use cardset::{CardSet, ParseCardSetError, hand};
pub use deal::{Deck, DeckError, first_dealer};
pub use fair::{deal_commitment, hand_salt, seed_commitment, seed_salt, verify_deal, verify_seed};
pub use format::{FORMAT_PRESETS, Format, FormatError, Kind};
pub use game::{Game, GameEnd, GameError, GameResult, GameSetup, HandSummary, StageResult, Step};
pub use hand::{
    Action, EndKind, Event, Hand, HandResult, Legal, ParseActionError, Phase, RuleError, Showdown,
    score_knock,
};
pub use layoff::{Defense, Layoff, best_defense};
pub use meld::{Meld, MeldError, MeldKind};
pub use record::{GameRecord, RecordedAction, ReplayError};
pub use rules::{
    DEFAULT_MAX_HANDS_PER_GAME, DEFAULT_MAX_TURNS_PER_HAND, PRESETS, RuleSet, RuleSetError, Shutout,
    TargetRule,
};
pub use rummy_melds::RummyArrangement;
pub use seat::{BySeat, Seat};
pub use solver::{
    Arrangement, ArrangementError, BestDiscard, KnockOptions, all_melded, best_arrangement, best_discard,
    deadwood, deadwood_after_best_discard, deadwood_by_discard, knock_discards, knock_options, meldable,
    melds_with_lowest, min_arrangements,
};
pub use table::{
    HandEnd, HandReport, Move, SeatOutcome, Table, TableError, TableEvent, TablePart, TableResult,
    TableSetup, TableStep, TableView,
};
pub use table_record::{RecordedMove, TABLE_RECORD_VERSION, TableRecord, TableReplayError};
pub use view::{PublicView, SeatView, SpectatorView};
