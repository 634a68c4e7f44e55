//! Helpers shared by the rules tests: positions from piece lists, moves
//! from text.
#![allow(dead_code, unused_imports)]

use brandubh_rules::*;

pub use brandubh_rules::testing::{game, mv, rules, squares, ALL};

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
