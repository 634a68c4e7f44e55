//! Squares of the 7×7 board and the four rook directions.
//!
//! A square's index is `rank * 7 + file`, so a1 = 0, g1 = 6, a7 = 42 and
//! g7 = 48. Files run a–g west to east, ranks 1–7 south to north.

use std::fmt;
use std::str::FromStr;

/// Side length of the board.
pub const SIZE: u8 = 7;
/// Number of squares.
pub const NUM_SQUARES: usize = 49;

/// One of the 49 squares.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Square(u8);

impl Square {
    /// The centre square, d4.
    pub const THRONE: Square = Square(24);

    /// The square with this index, if it is on the board.
    #[inline]
    pub const fn new(index: u8) -> Option<Square> {
        if index < 49 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The square at `file` (0 = a) and `rank` (0 = rank 1).
    #[inline]
    pub const fn from_coords(file: u8, rank: u8) -> Option<Square> {
        if file < SIZE && rank < SIZE {
            Some(Square(rank * SIZE + file))
        } else {
            None
        }
    }

    /// # Safety-free unchecked constructor used by tables; panics in debug.
    pub(crate) const fn from_index(index: u8) -> Square {
        debug_assert!(index < 49);
        Square(index)
    }

    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    #[inline]
    pub const fn file(self) -> u8 {
        self.0 % SIZE
    }
    #[inline]
    pub const fn rank(self) -> u8 {
        self.0 / SIZE
    }

    /// The neighbouring square in `dir`, or `None` off the board.
    #[inline]
    pub const fn step(self, dir: Direction) -> Option<Square> {
        let (df, dr) = dir.delta();
        let f = self.file() as i8 + df;
        let r = self.rank() as i8 + dr;
        if f < 0 || r < 0 || f >= SIZE as i8 || r >= SIZE as i8 {
            None
        } else {
            Some(Square((r as u8) * SIZE + f as u8))
        }
    }

    /// Every square, a1 first.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..49).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, self.rank() + 1)
    }
}

/// Why a square name could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a square of the 7×7 board (a1..g7)")]
pub struct ParseSquareError(pub String);

impl FromStr for Square {
    type Err = ParseSquareError;
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        let b = s.as_bytes();
        let err = || ParseSquareError(s.to_string());
        if b.len() != 2 {
            return Err(err());
        }
        let file = b[0].wrapping_sub(b'a');
        let rank = b[1].wrapping_sub(b'1');
        Square::from_coords(file, rank).ok_or_else(err)
    }
}

/// A rook direction.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub enum Direction {
    North = 0,
    East = 1,
    South = 2,
    West = 3,
}

impl Direction {
    pub const ALL: [Direction; 4] = [
        Direction::North,
        Direction::East,
        Direction::South,
        Direction::West,
    ];

    /// (file delta, rank delta).
    #[inline]
    pub const fn delta(self) -> (i8, i8) {
        match self {
            Direction::North => (0, 1),
            Direction::East => (1, 0),
            Direction::South => (0, -1),
            Direction::West => (-1, 0),
        }
    }

    #[inline]
    pub const fn opposite(self) -> Direction {
        match self {
            Direction::North => Direction::South,
            Direction::East => Direction::West,
            Direction::South => Direction::North,
            Direction::West => Direction::East,
        }
    }

    /// True when moving this way increases the square index.
    #[inline]
    pub const fn is_positive(self) -> bool {
        matches!(self, Direction::North | Direction::East)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for sq in Square::all() {
            assert_eq!(sq.to_string().parse::<Square>().unwrap(), sq);
        }
        assert_eq!("d4".parse::<Square>().unwrap(), Square::THRONE);
        assert!("h1".parse::<Square>().is_err());
        assert!("a8".parse::<Square>().is_err());
        assert!("a".parse::<Square>().is_err());
        assert!("é1".parse::<Square>().is_err());
    }

    #[test]
    fn steps_stop_at_edges() {
        let a1: Square = "a1".parse().unwrap();
        assert_eq!(a1.step(Direction::West), None);
        assert_eq!(a1.step(Direction::South), None);
        assert_eq!(a1.step(Direction::North).unwrap().to_string(), "a2");
        let g7: Square = "g7".parse().unwrap();
        assert_eq!(g7.step(Direction::East), None);
        assert_eq!(g7.step(Direction::North), None);
    }
}
