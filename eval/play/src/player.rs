//! The `Player` interface: given a game (and maybe a clock), a move or a
//! forfeit.

use crate::clock::GameClock;
use crate::ending::ForfeitReason;
use brandubh_rules::{Game, Move};
use std::time::Duration;

pub trait Player: Send {
    /// The spec string that recreates this player.
    fn name(&self) -> String;
    /// What ratings know this player by: the spec, with a net's path
    /// replaced by its model id, so that one net keeps one rating however
    /// its path is spelt or wherever its run directory has moved.
    fn identity(&self) -> String {
        self.name()
    }
    /// A legal move for the side to move (the game is not over), or the
    /// reason this player forfeits the game. Under a game clock a thinking
    /// player decides how long to think (`GameClock::budget`); without one
    /// it keeps to its spec's limits. An external engine that crashed, hung
    /// or answered nonsense, or a human who quit, forfeits; the in-process
    /// engines never do.
    fn choose(&mut self, game: &Game, clock: Option<&GameClock>) -> Result<Move, Forfeit>;
    /// Up to `n` lines for the side to move, best first, each with the
    /// player's value of it for the side to move, after thinking for about
    /// `time`. By default the move the player would play, valued 0.
    fn analyse_lines(&mut self, game: &Game, time: Duration, n: usize) -> Vec<(Vec<Move>, f64)> {
        let _ = n;
        let clock = GameClock {
            remaining: time * 2,
            moves_to_go: Some(1),
            ..GameClock::default()
        };
        match self.choose(game, Some(&clock)) {
            Ok(mv) => vec![(vec![mv], 0.0)],
            Err(_) => Vec::new(),
        }
    }
}

/// Why a player gave up a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forfeit {
    /// A game record's reason.
    pub reason: ForfeitReason,
    /// What happened, in words.
    pub detail: String,
}
