//! Input encoding, version 1: what the net sees of a position.
//!
//! Orientation is **fixed**, not relative to the side to move: plane `p`,
//! row `r`, column `c` is square `(file c, rank r + 1)`, so a1 is
//! `[p][0][0]` and g7 `[p][6][6]`; the side to move is its own plane. The
//! tensor is `[N, 8, 7, 7]`, float32:
//!
//! | plane | content |
//! |---|---|
//! | 0 | attackers |
//! | 1 | defending men |
//! | 2 | the king |
//! | 3 | all ones when the defenders are to move |
//! | 4 | the throne (d4) |
//! | 5 | the four corners |
//! | 6 | plies since the last capture / the rule set's quiet-ply limit (100 when it has none), at most 1 |
//! | 7 | all ones when this position occurred before in the game |
//!
//! The policy has 1176 logits indexed as in `brandubh_rules::Move::policy_index`;
//! illegal moves are masked before the softmax. The value head gives
//! win/draw/loss logits for the side to move.

use brandubh_rules::{Bitboard, Position, RuleSet, Side};

pub const ENCODING_VERSION: u32 = 1;
pub const PLANES: usize = 8;
pub const BOARD: usize = 7;
pub const INPUT_LEN: usize = PLANES * 49;

/// Writes the planes of one position into `out` (length `INPUT_LEN`).
pub fn encode(rules: &RuleSet, pos: &Position, repetitions: u8, out: &mut [f32]) {
    debug_assert_eq!(out.len(), INPUT_LEN);
    out.fill(0.0);
    let b = pos.board();
    let mut put = |plane: usize, set: Bitboard| {
        for sq in set {
            out[plane * 49 + sq.index()] = 1.0;
        }
    };
    put(0, b.attackers);
    put(1, b.defenders);
    put(2, b.king);
    if pos.side_to_move() == Side::Defenders {
        put(3, Bitboard::FULL);
    }
    put(4, Bitboard::THRONE);
    put(5, Bitboard::CORNERS);
    let limit = match rules.options.end.quiet_ply_limit {
        0 => 100.0,
        n => n as f32,
    };
    let quiet = (pos.quiet_plies() as f32 / limit).min(1.0);
    out[6 * 49..7 * 49].fill(quiet);
    if repetitions > 0 {
        out[7 * 49..8 * 49].fill(1.0);
    }
}
