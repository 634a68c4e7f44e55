//! Move ordering: the transposition-table move, then winning moves (king to
//! a corner, king captures), other captures, king moves, the two killer
//! moves of this ply, and the rest by history score.

use brandubh_rules::{Bitboard, Move, MoveList, Position, RuleSet};

pub const MAX_PLY: usize = 128;

/// Killer moves per ply and the history table, shared by one search.
pub struct Ordering {
    pub killers: [[Option<Move>; 2]; MAX_PLY],
    /// [side][from][to]
    pub history: Vec<i32>,
}

impl Default for Ordering {
    fn default() -> Self {
        Ordering {
            killers: [[None; 2]; MAX_PLY],
            history: vec![0; 2 * 49 * 49],
        }
    }
}

impl Ordering {
    fn hist_index(side: usize, mv: Move) -> usize {
        (side * 49 + mv.from.index()) * 49 + mv.to.index()
    }

    pub fn history(&self, side: usize, mv: Move) -> i32 {
        self.history[Self::hist_index(side, mv)]
    }

    /// Rewards a quiet move that caused a cut-off.
    pub fn reward(&mut self, side: usize, ply: usize, mv: Move, depth: u32) {
        if ply < MAX_PLY && self.killers[ply][0] != Some(mv) {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = Some(mv);
        }
        let h = &mut self.history[Self::hist_index(side, mv)];
        *h += (depth * depth) as i32;
        if *h > 1 << 20 {
            for v in self.history.iter_mut() {
                *v /= 2;
            }
        }
    }
}

/// Sorts `moves` best-first and returns each move's child position and
/// captures, so the search makes every move only once.
pub fn order(
    rules: &RuleSet,
    pos: &Position,
    moves: &MoveList,
    tt_move: Option<Move>,
    ord: &Ordering,
    ply: usize,
) -> Vec<(Move, Position, Bitboard)> {
    let side = pos.side_to_move().index();
    let king = pos.board().king;
    let scored: Vec<(i64, Move, Position, Bitboard)> = moves
        .iter()
        .map(|&mv| {
            let (child, captured) = pos.play(rules, mv);
            let is_king = !mv.is_pass() && king.contains(mv.from);
            let mut score: i64 = ord.history(side, mv) as i64;
            if Some(mv) == tt_move {
                score += 1 << 40;
            } else if (child.board().king & Bitboard::CORNERS).nonempty()
                || (captured & king).nonempty()
            {
                score += 1 << 38;
            } else if captured.nonempty() {
                score += (1 << 34) + captured.count() as i64 * (1 << 30);
            } else if ply < MAX_PLY && ord.killers[ply].contains(&Some(mv)) {
                score += 1 << 28;
            }
            if is_king {
                score += 1 << 24;
            }
            (score, mv, child, captured)
        })
        .collect();
    // Sort small keys, not the children; ties keep generation order.
    let mut keys: Vec<(i64, u8)> = scored
        .iter()
        .enumerate()
        .map(|(i, s)| (-s.0, i as u8))
        .collect();
    keys.sort_unstable();
    keys.into_iter()
        .map(|(_, i)| {
            let (_, m, c, x) = scored[i as usize];
            (m, c, x)
        })
        .collect()
}
