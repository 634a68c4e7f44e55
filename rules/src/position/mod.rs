//! Positions, moves, move generation and making moves.
//!
//! A [`Position`] is small and `Copy`: search makes moves by copying. It
//! knows nothing of the game's history; [`crate::Game`] adds that, and
//! [`Position::after_move_outcome`] takes the history as a slice of hashes.

mod attacks;
mod end;
mod movegen;

use crate::bitboard::Bitboard;
use crate::board::Board;
use crate::role::Role;
use crate::ruleset::RuleSet;
use crate::square::Square;
use crate::zobrist::{piece_key, SIDE_KEY};
use crate::Side;

/// A position: the board, the side to move, and the counters the end
/// conditions need.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Position {
    pub(crate) board: Board,
    pub(crate) side: Side,
    pub(crate) hash: u64,
    /// Plies since the last capture (or since the start).
    pub(crate) quiet: u16,
    /// Plies since the start.
    pub(crate) ply: u16,
    /// Passes in a row just before this position.
    pub(crate) passes: u8,
    /// Raven edge rule: the attackers must move a piece beside the king.
    pub(crate) edge_duty: bool,
}

/// Why a position could not be set up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    #[error("{sq} holds more than one piece")]
    Overlap { sq: Square },
    #[error("more than one king ({0} kings)")]
    TooManyKings(u32),
    #[error("a {role} man stands on {sq}, where the rules forbid it")]
    ForbiddenSquare { role: &'static str, sq: Square },
}

impl Position {
    /// The rule set's starting position.
    pub fn start(rules: &RuleSet) -> Position {
        Position::from_board(rules, rules.start, rules.options.first_to_move)
            .expect("rule set setup was checked when loaded")
    }

    /// A position from a board; men may not stand where they could never stop.
    pub fn from_board(
        rules: &RuleSet,
        board: Board,
        side: Side,
    ) -> Result<Position, PositionError> {
        let (a, d, k) = (board.attackers, board.defenders, board.king);
        if let Some(sq) = ((a & d) | (a & k) | (d & k)).first() {
            return Err(PositionError::Overlap { sq });
        }
        if k.count() > 1 {
            return Err(PositionError::TooManyKings(k.count()));
        }
        for (role, name) in [
            (Role::Attackers, "attacking"),
            (Role::Defenders, "defending"),
        ] {
            let special = Bitboard::THRONE | Bitboard::CORNERS;
            if let Some(sq) =
                (board.pieces(role) & special & !rules.stop_mask[role.index()]).first()
            {
                return Err(PositionError::ForbiddenSquare { role: name, sq });
            }
        }
        let mut pos = Position {
            board,
            side,
            hash: 0,
            quiet: 0,
            ply: 0,
            passes: 0,
            edge_duty: false,
        };
        pos.hash = pos.compute_hash(rules);
        Ok(pos)
    }

    /// The hash from scratch; [`Position::play`] keeps it up to date.
    pub fn compute_hash(&self, rules: &RuleSet) -> u64 {
        let mut h = rules.hash;
        for role in Role::ALL {
            for sq in self.board.pieces(role) {
                h ^= piece_key(role, sq);
            }
        }
        if self.side == Side::Defenders {
            h ^= SIDE_KEY;
        }
        h
    }

    pub fn board(&self) -> &Board {
        &self.board
    }
    pub fn side_to_move(&self) -> Side {
        self.side
    }
    /// The Zobrist hash of board, side to move and rule set.
    pub fn hash(&self) -> u64 {
        self.hash
    }
    pub fn plies(&self) -> u32 {
        self.ply as u32
    }
    pub fn quiet_plies(&self) -> u32 {
        self.quiet as u32
    }
    /// Passes in a row just before this position.
    pub fn passes(&self) -> u32 {
        self.passes as u32
    }
    /// Whether the raven edge rule binds the attackers' next move.
    pub fn edge_duty(&self) -> bool {
        self.edge_duty
    }
    /// Sets the counters, e.g. when a position is read from a record.
    pub fn set_counters(&mut self, ply: u16, quiet: u16) {
        self.ply = ply;
        self.quiet = quiet;
    }
}
