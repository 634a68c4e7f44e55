//! Where the pieces stand: one bitboard per kind of piece.

use crate::bitboard::Bitboard;
use crate::role::Role;
use crate::square::Square;
use crate::Side;

/// Where the pieces stand.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Board {
    pub attackers: Bitboard,
    /// Defending men, the king excluded.
    pub defenders: Bitboard,
    /// Empty once the king is captured.
    pub king: Bitboard,
}

impl Board {
    pub fn occupied(&self) -> Bitboard {
        self.attackers | self.defenders | self.king
    }
    pub fn role_at(&self, sq: Square) -> Option<Role> {
        if self.attackers.contains(sq) {
            Some(Role::Attackers)
        } else if self.defenders.contains(sq) {
            Some(Role::Defenders)
        } else if self.king.contains(sq) {
            Some(Role::King)
        } else {
            None
        }
    }
    pub fn pieces(&self, role: Role) -> Bitboard {
        match role {
            Role::Attackers => self.attackers,
            Role::Defenders => self.defenders,
            Role::King => self.king,
        }
    }
    pub(crate) fn pieces_mut(&mut self, role: Role) -> &mut Bitboard {
        match role {
            Role::Attackers => &mut self.attackers,
            Role::Defenders => &mut self.defenders,
            Role::King => &mut self.king,
        }
    }
    /// Every piece of a side, the king included for the defenders.
    pub fn side(&self, side: Side) -> Bitboard {
        match side {
            Side::Attackers => self.attackers,
            Side::Defenders => self.defenders | self.king,
        }
    }
    pub fn king_square(&self) -> Option<Square> {
        self.king.first()
    }
}
