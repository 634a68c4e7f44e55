//! Seeded random openings, and the filter that redraws lopsided ones.

use brandubh_alphabeta::evaluation::EvalWeights;
use brandubh_alphabeta::time::Limits;
use brandubh_alphabeta::Searcher;
use brandubh_rules::{splitmix64, Game, Move, RuleSet, Side};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

/// Keeps only openings that a node-limited alpha-beta search (built-in
/// weights of the rule set) scores within `margin` evaluation units of the
/// start position, from the attackers' point of view. Random plies can
/// hand one side a man or an open line for free; such an opening decides
/// both games of its pair before the players start, which adds noise and
/// no information. An opening out of the window is replaced by the next
/// one from the same seeded stream, up to `MAX_OPENING_DRAWS` draws; if
/// none fits, the closest one drawn is played.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct OpeningFilter {
    pub margin: i32,
    pub nodes: u64,
}

/// Draws per pair before the filter settles for the closest opening.
pub const MAX_OPENING_DRAWS: usize = 64;

pub(crate) fn opening_rng(seed: u64, pair: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(splitmix64(seed ^ splitmix64(pair)))
}

/// `plies` random legal moves from the start that do not end the game
/// (empty if 1000 draws all ended it).
pub(crate) fn draw_opening(rules: &Arc<RuleSet>, rng: &mut ChaCha8Rng, plies: u32) -> Vec<Move> {
    for _ in 0..1000 {
        let mut g = Game::new(rules.clone());
        let mut moves = Vec::new();
        while moves.len() < plies as usize && !g.is_over() {
            let legal = g.legal_moves();
            let mv = legal[rng.random_range(0..legal.len())];
            g.play(mv).expect("legal");
            moves.push(mv);
        }
        if !g.is_over() {
            return moves;
        }
    }
    Vec::new()
}

/// The seeded opening of pair `pair`: `plies` random legal moves from the
/// start that do not end the game.
pub fn opening(rules: &Arc<RuleSet>, seed: u64, pair: u64, plies: u32) -> Vec<Move> {
    draw_opening(rules, &mut opening_rng(seed, pair), plies)
}

/// The score (attackers' point of view) that `filter`'s search gives the
/// position after `moves`. A fresh searcher each time, so the score does
/// not depend on what was searched before or on the thread.
pub fn opening_score(rules: &Arc<RuleSet>, moves: &[Move], filter: &OpeningFilter) -> i32 {
    let mut g = Game::new(rules.clone());
    for &mv in moves {
        g.play(mv).expect("opening moves are legal");
    }
    let mut searcher = Searcher::new(rules.clone(), EvalWeights::builtin(rules.name()), 4);
    let limits = Limits {
        nodes: Some(filter.nodes),
        ..Limits::default()
    };
    let s = searcher.search(&g, limits).score;
    match g.side_to_move() {
        Side::Attackers => s,
        Side::Defenders => -s,
    }
}

/// The opening of pair `pair` under `filter`: the first opening of the
/// pair's seeded stream whose score is within the margin of `start` (the
/// start position's score), else the closest of the draws.
pub fn balanced_opening(
    rules: &Arc<RuleSet>,
    seed: u64,
    pair: u64,
    plies: u32,
    filter: &OpeningFilter,
    start: i32,
) -> Vec<Move> {
    let mut rng = opening_rng(seed, pair);
    let mut closest: Option<(i32, Vec<Move>)> = None;
    for _ in 0..MAX_OPENING_DRAWS {
        let moves = draw_opening(rules, &mut rng, plies);
        if moves.is_empty() {
            // No plies, or none that leave the game going: nothing to weigh.
            return moves;
        }
        let off = (opening_score(rules, &moves, filter) - start).abs();
        if off <= filter.margin {
            return moves;
        }
        if closest.as_ref().is_none_or(|(d, _)| off < *d) {
            closest = Some((off, moves));
        }
    }
    closest.map(|(_, m)| m).unwrap_or_default()
}
