//! A move (or a pass) and a fixed-capacity list of them.

use crate::square::Square;

/// A move of one piece, or a pass where the rules allow one.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Move {
    pub from: Square,
    pub to: Square,
}

impl Move {
    /// The pass: only legal when a side has no move under `no_legal_moves = "pass"`.
    pub const PASS: Move = Move {
        from: Square::THRONE,
        to: Square::THRONE,
    };
    pub const fn new(from: Square, to: Square) -> Move {
        Move { from, to }
    }
    pub fn is_pass(self) -> bool {
        self.from == self.to
    }
}

/// A fixed-capacity list of moves; no 7×7 position has more than 196
/// (each empty square is reached from at most four directions).
#[derive(Clone, Debug)]
pub struct MoveList {
    moves: [Move; 200],
    len: usize,
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList {
            moves: [Move::PASS; 200],
            len: 0,
        }
    }
}

impl MoveList {
    pub fn new() -> MoveList {
        MoveList::default()
    }
    #[inline]
    pub fn push(&mut self, mv: Move) {
        self.moves[self.len] = mv;
        self.len += 1;
    }
    pub fn clear(&mut self) {
        self.len = 0;
    }
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        &mut self.moves[..self.len]
    }
    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.as_slice().iter()
    }
    pub fn contains(&self, mv: &Move) -> bool {
        self.as_slice().contains(mv)
    }
}

impl std::ops::Index<usize> for MoveList {
    type Output = Move;
    fn index(&self, i: usize) -> &Move {
        &self.as_slice()[i]
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}
