//! A set of squares as the low 49 bits of a `u64`.
//!
//! ```
//! use brandubh_rules::{Bitboard, Square};
//! // Corners of the board:
//! //   7 x . . . . . x
//! //   …
//! //   1 x . . . . . x
//! //     a b c d e f g
//! assert_eq!(Bitboard::CORNERS.count(), 4);
//! assert!(Bitboard::CORNERS.contains("g7".parse::<Square>().unwrap()));
//! ```

use crate::square::{Direction, Square};
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

#[derive(Copy, Clone, PartialEq, Eq, Hash, Default, Debug)]
pub struct Bitboard(pub u64);

const FULL: u64 = (1u64 << 49) - 1;
const FILE_A: u64 = 0x0000_0408_1020_4081;
const FILE_G: u64 = FILE_A << 6;
const RANK_1: u64 = 0x7f;
const RANK_7: u64 = 0x7f << 42;

impl Bitboard {
    pub const EMPTY: Bitboard = Bitboard(0);
    pub const FULL: Bitboard = Bitboard(FULL);
    pub const CORNERS: Bitboard = Bitboard(1 | 1 << 6 | 1 << 42 | 1 << 48);
    pub const THRONE: Bitboard = Bitboard(1 << 24);
    /// Squares on the rim of the board.
    pub const EDGE: Bitboard = Bitboard(FILE_A | FILE_G | RANK_1 | RANK_7);
    /// The four squares orthogonally beside the throne.
    pub const BESIDE_THRONE: Bitboard = Bitboard(1 << 17 | 1 << 23 | 1 << 25 | 1 << 31);

    #[inline]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1 << sq.index())
    }
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
    #[inline]
    pub const fn nonempty(self) -> bool {
        self.0 != 0
    }
    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }
    #[inline]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 >> sq.index() & 1 != 0
    }
    #[inline]
    pub fn set(&mut self, sq: Square) {
        self.0 |= 1 << sq.index();
    }
    #[inline]
    pub fn clear(&mut self, sq: Square) {
        self.0 &= !(1 << sq.index());
    }
    /// The lowest square, if any.
    #[inline]
    pub fn first(self) -> Option<Square> {
        (self.0 != 0).then(|| Square::from_index(self.0.trailing_zeros() as u8))
    }

    /// Every square shifted one step in `dir`; squares that fall off vanish.
    #[inline]
    pub const fn shift(self, dir: Direction) -> Bitboard {
        Bitboard(match dir {
            Direction::North => (self.0 << 7) & FULL,
            Direction::South => self.0 >> 7,
            Direction::East => (self.0 << 1) & !FILE_A & FULL,
            Direction::West => (self.0 >> 1) & !FILE_G,
        })
    }

    /// Squares orthogonally adjacent to some square of the set.
    #[inline]
    pub const fn neighbours(self) -> Bitboard {
        Bitboard(
            self.shift(Direction::North).0
                | self.shift(Direction::South).0
                | self.shift(Direction::East).0
                | self.shift(Direction::West).0,
        )
    }
}

impl Iterator for Bitboard {
    type Item = Square;
    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            let sq = Square::from_index(self.0.trailing_zeros() as u8);
            self.0 &= self.0 - 1;
            Some(sq)
        }
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl From<Square> for Bitboard {
    #[inline]
    fn from(sq: Square) -> Bitboard {
        Bitboard::from_square(sq)
    }
}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Bitboard {
        let mut b = Bitboard::EMPTY;
        for sq in iter {
            b.set(sq);
        }
        b
    }
}

macro_rules! binop {
    ($tr:ident, $f:ident, $tra:ident, $fa:ident, $op:tt) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $tra for Bitboard {
            #[inline]
            fn $fa(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}
binop!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
binop!(BitOr, bitor, BitOrAssign, bitor_assign, |);
binop!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & FULL)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_match_square_steps() {
        for sq in Square::all() {
            for dir in Direction::ALL {
                let shifted = Bitboard::from_square(sq).shift(dir);
                match sq.step(dir) {
                    Some(t) => assert_eq!(shifted, Bitboard::from_square(t)),
                    None => assert!(shifted.is_empty(), "{sq} {dir:?}"),
                }
            }
        }
    }

    #[test]
    fn named_sets() {
        assert_eq!(Bitboard::EDGE.count(), 24);
        assert_eq!(Bitboard::BESIDE_THRONE, Bitboard::THRONE.neighbours());
        assert!(Bitboard::THRONE.contains(Square::THRONE));
    }
}
