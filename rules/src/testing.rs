//! Helpers that the tests of every crate share: built-in rule sets by
//! name and positions written as square lists. They panic on bad input,
//! as a test should.

use crate::{Bitboard, Board, Game, Move, MoveRecord, Position, RuleSet, Side, Square};
use std::sync::Arc;

/// The five built-in rule sets, by name.
pub const ALL: [&str; 5] = ["modern", "ludii", "wtf", "wtf-plain", "raven"];

/// A built-in rule set.
pub fn rules(name: &str) -> Arc<RuleSet> {
    Arc::new(RuleSet::builtin(name).unwrap_or_else(|| panic!("no rule set {name}")))
}

/// Squares from a list such as `"a1 d4 g7"`.
pub fn squares(list: &str) -> Bitboard {
    list.split_whitespace()
        .map(|s| {
            s.parse::<Square>()
                .unwrap_or_else(|e| panic!("square `{s}`: {e}"))
        })
        .collect()
}

/// A game from piece lists (attackers, defending men, king: `""` for none)
/// with `side` to move.
pub fn game(rules_name: &str, attackers: &str, defenders: &str, king: &str, side: Side) -> Game {
    let r = rules(rules_name);
    let board = Board {
        attackers: squares(attackers),
        defenders: squares(defenders),
        king: squares(king),
    };
    let pos = Position::from_board(&r, board, side).expect("valid test position");
    Game::from_position(r, pos)
}

/// A move from its record, e.g. `"d2-d5"`.
pub fn mv(text: &str) -> Move {
    text.parse::<MoveRecord>()
        .unwrap_or_else(|e| panic!("move `{text}`: {e}"))
        .mv
}
