//! Policy indices: every piece move as from-square × direction × distance,
//! `index = (from * 4 + dir) * 6 + (distance - 1)`, 49 × 4 × 6 = 1176
//! indices. Directions are 0 north, 1 east, 2 south, 3 west; squares are
//! `rank * 7 + file` with a1 = 0. The pass has no index: it is only ever
//! the sole legal move, so no policy is learnt for it.

use crate::moves::Move;
use crate::square::{Direction, Square};

/// Number of policy indices.
pub const POLICY_SIZE: usize = 49 * 4 * 6;

impl Move {
    /// This move's policy index; `None` for the pass.
    pub fn policy_index(self) -> Option<u16> {
        if self.is_pass() {
            return None;
        }
        let (ff, fr) = (self.from.file() as i8, self.from.rank() as i8);
        let (tf, tr) = (self.to.file() as i8, self.to.rank() as i8);
        let (dir, dist) = match (tf - ff, tr - fr) {
            (0, d) if d > 0 => (Direction::North, d),
            (d, 0) if d > 0 => (Direction::East, d),
            (0, d) if d < 0 => (Direction::South, -d),
            (d, 0) if d < 0 => (Direction::West, -d),
            _ => return None,
        };
        Some(((self.from.index() * 4 + dir as usize) * 6 + dist as usize - 1) as u16)
    }

    /// The move with this policy index, if it stays on the board.
    pub fn from_policy_index(index: u16) -> Option<Move> {
        let i = index as usize;
        if i >= POLICY_SIZE {
            return None;
        }
        let from = Square::new((i / 24) as u8)?;
        let dir = Direction::ALL[(i / 6) % 4];
        let dist = i % 6 + 1;
        let mut to = from;
        for _ in 0..dist {
            to = to.step(dir)?;
        }
        Some(Move::new(from, to))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_round_trip_and_are_dense() {
        let mut seen = 0;
        for i in 0..POLICY_SIZE as u16 {
            if let Some(m) = Move::from_policy_index(i) {
                assert_eq!(m.policy_index(), Some(i));
                seen += 1;
            }
        }
        // Every square has 6 + 6 rook destinations on a 7×7 board.
        assert_eq!(seen, 49 * 12);
        assert_eq!(Move::PASS.policy_index(), None);
        let m = Move::new("d2".parse().unwrap(), "d5".parse().unwrap());
        assert_eq!(m.policy_index(), Some(((10 * 4) * 6 + 2) as u16));
    }
}
