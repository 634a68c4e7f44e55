//! The kinds of piece the rules tell apart.

use crate::Side;
use serde::{Deserialize, Serialize};

/// The kinds of piece, as far as the rules distinguish them.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// An attacking man.
    #[serde(alias = "attacker")]
    Attackers,
    /// A defending man (every defender but the king).
    #[serde(alias = "defender")]
    Defenders,
    King,
}

impl Role {
    pub const ALL: [Role; 3] = [Role::Attackers, Role::Defenders, Role::King];
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }
    #[inline]
    pub const fn side(self) -> Side {
        match self {
            Role::Attackers => Side::Attackers,
            _ => Side::Defenders,
        }
    }
}
