//! Perft: counting the positions reached at exactly a given depth. A game
//! that ends earlier is not expanded, so its subtree adds nothing.

use crate::moves::MoveList;
use crate::outcome::{GameResult, Outcome};
use crate::position::Position;
use crate::ruleset::RuleSet;
use serde::Serialize;

/// Counts at one depth, for `perft --stats`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DepthStats {
    pub depth: u32,
    pub nodes: u64,
    pub capture_moves: u64,
    pub captured_pieces: u64,
    pub attacker_wins: u64,
    pub defender_wins: u64,
    pub draws: u64,
}

/// The number of positions at exactly `depth` plies, counted as fast as we
/// can: the last ply only counts moves.
pub fn perft(rules: &RuleSet, pos: &Position, depth: u32) -> u64 {
    let mut history = Vec::with_capacity(64);
    perft_with_history(rules, pos, depth, &mut history)
}

/// As [`perft`], with the hashes of the positions before `pos`.
pub fn perft_with_history(
    rules: &RuleSet,
    pos: &Position,
    depth: u32,
    history: &mut Vec<u64>,
) -> u64 {
    if pos.after_move_outcome(rules, history).is_some() {
        return u64::from(depth == 0);
    }
    inner(rules, pos, depth, history)
}

fn inner(rules: &RuleSet, pos: &Position, depth: u32, history: &mut Vec<u64>) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_moves(rules),
        _ => {
            let mut moves = MoveList::new();
            pos.legal_moves(rules, &mut moves);
            history.push(pos.hash());
            let mut nodes = 0;
            for &mv in moves.iter() {
                let (child, _) = pos.play(rules, mv);
                if child.after_move_outcome(rules, history).is_none() {
                    nodes += inner(rules, &child, depth - 1, history);
                }
            }
            history.pop();
            nodes
        }
    }
}

/// Perft by first move: each legal move with the positions below it.
pub fn divide(rules: &RuleSet, pos: &Position, depth: u32) -> Vec<(crate::Move, u64)> {
    let mut moves = MoveList::new();
    pos.legal_moves(rules, &mut moves);
    let mut history = vec![pos.hash()];
    moves
        .iter()
        .map(|&mv| {
            let (child, _) = pos.play(rules, mv);
            let n = if depth == 0 {
                0
            } else {
                perft_with_history(rules, &child, depth - 1, &mut history)
            };
            (mv, n)
        })
        .collect()
}

/// Full expansion with per-depth counts (1..=depth).
pub fn perft_stats(rules: &RuleSet, pos: &Position, depth: u32) -> Vec<DepthStats> {
    let mut stats: Vec<DepthStats> = (1..=depth)
        .map(|d| DepthStats {
            depth: d,
            ..DepthStats::default()
        })
        .collect();
    let mut history = Vec::new();
    if depth > 0 && pos.outcome(rules, &history).is_none() {
        stats_inner(rules, pos, 0, &mut stats, &mut history);
    }
    stats
}

fn stats_inner(
    rules: &RuleSet,
    pos: &Position,
    level: usize,
    stats: &mut [DepthStats],
    history: &mut Vec<u64>,
) {
    let mut moves = MoveList::new();
    pos.legal_moves(rules, &mut moves);
    history.push(pos.hash());
    for &mv in moves.iter() {
        let (child, captured) = pos.play(rules, mv);
        let s = &mut stats[level];
        s.nodes += 1;
        if captured.nonempty() {
            s.capture_moves += 1;
            s.captured_pieces += captured.count() as u64;
        }
        match child.outcome(rules, history) {
            Some(Outcome { result, .. }) => match result {
                GameResult::AttackersWin => s.attacker_wins += 1,
                GameResult::DefendersWin => s.defender_wins += 1,
                GameResult::Draw => s.draws += 1,
            },
            None if level + 1 < stats.len() => {
                stats_inner(rules, &child, level + 1, stats, history)
            }
            None => {}
        }
    }
    history.pop();
}
