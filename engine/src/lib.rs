//! The Gin Rummy rules engine: exact, deterministic and fast.
//!
//! Pure: no async, no I/O, no clock, no global RNG. Randomness comes in as a seed.
//!
//! ```
//! use engine::{deadwood, hand};
//! assert_eq!(deadwood(hand("7C 7D 7H 3S 4S 5S 2D 9S AH")), 12);
//! ```

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
