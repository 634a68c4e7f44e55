//! Helpers shared by the rules tests: positions from piece lists, moves
//! from text.
#![allow(dead_code)]

use brandubh_rules::*;
use std::sync::Arc;

pub const ALL: [&str; 5] = ["modern", "ludii", "wtf", "wtf-plain", "raven"];

pub fn rules(name: &str) -> Arc<RuleSet> {
    Arc::new(RuleSet::builtin(name).unwrap_or_else(|| panic!("no rule set {name}")))
}

pub fn squares(list: &str) -> Bitboard {
    list.split_whitespace()
        .map(|s| s.parse::<Square>().unwrap())
        .collect()
}

/// A game from piece lists: attackers, defending men, king ("" for none).
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

pub fn mv(text: &str) -> Move {
    text.parse::<MoveRecord>().unwrap().mv
}

/// Plays a move that must be legal; returns the captured squares, sorted.
pub fn play(g: &mut Game, text: &str) -> Vec<String> {
    let cap = g
        .play(mv(text))
        .unwrap_or_else(|e| panic!("{text} should be legal under {}: {e}", g.rules().name()));
    let mut v: Vec<String> = cap.map(|s| s.to_string()).collect();
    v.sort();
    v
}

pub fn is_legal(g: &Game, text: &str) -> bool {
    g.legal_moves().contains(&mv(text))
}

pub fn outcome(g: &Game) -> Option<(GameResult, EndReason)> {
    g.outcome().map(|o| (o.result, o.reason))
}
