//! Local play: two strategies play a whole game in-process, each seeing only its own view.

use engine::{Action, Game, GameError, GameResult, GameSetup, Seat};

use crate::memory::{Memory, Seen, Shown};
use crate::strategy::{Decision, Strategy};

/// A strategy chose an action the rules refuse.
#[derive(Debug)]
pub struct IllegalAction {
    /// The strategy's name.
    pub strategy: String,
    /// Its seat.
    pub seat: Seat,
    /// What it tried.
    pub action: Action,
    /// Why it was refused.
    pub error: GameError,
}

impl std::fmt::Display for IllegalAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "strategy {} (seat {}) played an illegal action `{}`: {}",
            self.strategy, self.seat, self.action, self.error
        )
    }
}

impl std::error::Error for IllegalAction {}

/// Plays `setup` to game over: seat 0 is `players[0]`, seat 1 `players[1]`. Returns the
/// finished game (its result, hands and actions).
pub fn play_game(setup: GameSetup, players: [&mut dyn Strategy; 2]) -> Result<Game, IllegalAction> {
    let mut game = Game::new(setup).expect("rules validated by the caller");
    play_on(&mut game, players)?;
    Ok(game)
}

/// Plays `game` from where it stands to game over.
pub fn play_on(game: &mut Game, players: [&mut dyn Strategy; 2]) -> Result<(), IllegalAction> {
    play_on_watched(game, players, &mut |_| {})
}

/// [`play_on`], `watch` called with the game before each decision (a probe that reads what
/// no seat sees, for measuring inference).
pub fn play_on_watched(
    game: &mut Game,
    players: [&mut dyn Strategy; 2],
    watch: &mut dyn FnMut(&Game),
) -> Result<(), IllegalAction> {
    let mut mem = [Memory::new(Seat::S0), Memory::new(Seat::S1)];
    let mut hand_number = u32::MAX;
    while let Some(seat) = game.to_act() {
        if game.hand_number() != hand_number {
            hand_number = game.hand_number();
            let h = game.hand();
            for s in Seat::BOTH {
                mem[s.index()].new_hand(hand_number, h.cards(s), h.upcard());
            }
        }
        watch(game);
        let action = {
            let d = Decision::of(game, &mem[seat.index()]).expect("the seat to act");
            players[seat.index()].act(&d)
        };
        let pile_top = game.hand().pile().last().copied();
        let knock_limit = game.hand().knock_limit();
        let step = game.apply(seat, &action).map_err(|error| IllegalAction {
            strategy: players[seat.index()].name().to_string(),
            seat,
            action: action.clone(),
            error,
        })?;
        if step.hand_over {
            // Both seats see the showdown; the next hand (if any) is dealt, and memories
            // restart at the top of the loop.
            let shown = game.hands().last().and_then(|h| h.result.showdown.as_ref()).map(Shown::of);
            for m in &mut mem {
                m.hand_ended(shown.as_ref(), knock_limit);
            }
            continue;
        }
        // Each seat remembers what it saw: the other seat's stock draw without its card.
        for s in Seat::BOTH {
            if let Some(seen) = Seen::of(&step.event, s, pile_top) {
                mem[s.index()].observe(seen);
            }
        }
    }
    Ok(())
}

/// The score of a finished game for seat 0: 1 win, 0.5 draw, 0 loss.
pub fn score_for_seat0(r: &GameResult) -> f64 {
    match r.winner {
        Some(Seat::S0) => 1.0,
        Some(_) => 0.0,
        None => 0.5,
    }
}
