//! The two sides.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Attackers,
    Defenders,
}

impl Side {
    #[inline]
    pub const fn other(self) -> Side {
        match self {
            Side::Attackers => Side::Defenders,
            Side::Defenders => Side::Attackers,
        }
    }
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }
    #[inline]
    pub const fn as_str(self) -> &'static str {
        match self {
            Side::Attackers => "attackers",
            Side::Defenders => "defenders",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a side (attackers or defenders)")]
pub struct ParseSideError(pub String);

impl FromStr for Side {
    type Err = ParseSideError;
    fn from_str(s: &str) -> Result<Side, ParseSideError> {
        match s.to_ascii_lowercase().as_str() {
            "attackers" | "attacker" | "a" | "black" => Ok(Side::Attackers),
            "defenders" | "defender" | "d" | "white" => Ok(Side::Defenders),
            _ => Err(ParseSideError(s.to_string())),
        }
    }
}
