//! The eight symmetries of the square board (rotations and reflections).
//! Throne and corners map to themselves, so every rule set is invariant:
//! the image of a legal move is legal in the image position.

use crate::bitboard::Bitboard;
use crate::board::Board;
use crate::moves::Move;
use crate::square::Square;

/// One of the eight symmetries, numbered 0..8: 0 identity, 1–3 rotations
/// by 90°, 180°, 270° anticlockwise, 4 mirror a↔g, 5 mirror 1↔7,
/// 6 the a1–g7 diagonal, 7 the a7–g1 diagonal.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub struct Symmetry(pub u8);

impl Symmetry {
    pub const ALL: [Symmetry; 8] = [
        Symmetry(0),
        Symmetry(1),
        Symmetry(2),
        Symmetry(3),
        Symmetry(4),
        Symmetry(5),
        Symmetry(6),
        Symmetry(7),
    ];

    /// The image of `sq`.
    pub fn square(self, sq: Square) -> Square {
        let (f, r) = (sq.file(), sq.rank());
        let (nf, nr) = match self.0 {
            0 => (f, r),
            1 => (6 - r, f),
            2 => (6 - f, 6 - r),
            3 => (r, 6 - f),
            4 => (6 - f, r),
            5 => (f, 6 - r),
            6 => (r, f),
            _ => (6 - r, 6 - f),
        };
        Square::from_coords(nf, nr).expect("symmetries keep squares on the board")
    }

    /// The symmetry that undoes this one.
    pub fn inverse(self) -> Symmetry {
        match self.0 {
            1 => Symmetry(3),
            3 => Symmetry(1),
            s => Symmetry(s),
        }
    }

    pub fn bitboard(self, b: Bitboard) -> Bitboard {
        b.map(|sq| self.square(sq)).collect()
    }

    pub fn board(self, b: &Board) -> Board {
        Board {
            attackers: self.bitboard(b.attackers),
            defenders: self.bitboard(b.defenders),
            king: self.bitboard(b.king),
        }
    }

    pub fn mv(self, m: Move) -> Move {
        if m.is_pass() {
            m
        } else {
            Move::new(self.square(m.from), self.square(m.to))
        }
    }

    /// The image of a policy index (every valid index maps to a valid one).
    pub fn policy_index(self, index: u16) -> Option<u16> {
        Move::from_policy_index(index).and_then(|m| self.mv(m).policy_index())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetries_are_bijections_with_inverses() {
        for s in Symmetry::ALL {
            let image: Bitboard = Square::all().map(|sq| s.square(sq)).collect();
            assert_eq!(image, Bitboard::FULL);
            for sq in Square::all() {
                assert_eq!(s.inverse().square(s.square(sq)), sq);
            }
            assert_eq!(s.bitboard(Bitboard::CORNERS), Bitboard::CORNERS);
            assert_eq!(s.bitboard(Bitboard::THRONE), Bitboard::THRONE);
        }
    }
}
