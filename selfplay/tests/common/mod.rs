//! Helpers shared by the search tests: hand-made positions and the plain
//! PUCT settings.

use brandubh_rules::{Bitboard, Board, Game, Position, RuleSet, Side, Square};
use brandubh_selfplay::MctsConfig;
use std::sync::Arc;

pub const ALL: [&str; 5] = ["modern", "ludii", "wtf", "wtf-plain", "raven"];

pub fn squares(list: &str) -> Bitboard {
    list.split_whitespace()
        .map(|s| s.parse::<Square>().unwrap())
        .collect()
}

/// A game from a position given as square lists, `side` to move.
pub fn game(name: &str, att: &str, def: &str, king: &str, side: Side) -> Game {
    let r = Arc::new(RuleSet::builtin(name).unwrap());
    let b = Board {
        attackers: squares(att),
        defenders: squares(def),
        king: squares(king),
    };
    Game::from_position(r.clone(), Position::from_board(&r, b, side).unwrap())
}

/// Plain PUCT, without the win-in-one shortcut, so the tests show that the
/// search itself finds and avoids wins in one.
pub fn puct() -> MctsConfig {
    MctsConfig {
        win_in_one: false,
        ..MctsConfig::default()
    }
}
