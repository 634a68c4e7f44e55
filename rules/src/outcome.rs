//! How a game ends: its result, the reason, and the two together.

use crate::Side;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A finished game's result.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
#[serde(rename_all = "snake_case")]
pub enum GameResult {
    AttackersWin,
    DefendersWin,
    Draw,
}

impl GameResult {
    #[inline]
    pub fn win_for(side: Side) -> GameResult {
        match side {
            Side::Attackers => GameResult::AttackersWin,
            Side::Defenders => GameResult::DefendersWin,
        }
    }
    #[inline]
    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::AttackersWin => "attackers_win",
            GameResult::DefendersWin => "defenders_win",
            GameResult::Draw => "draw",
        }
    }
}

/// A name that is none of a closed set's (a result, an end reason).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} `{name}`")]
pub struct UnknownName {
    /// What the set names, e.g. "result".
    pub what: &'static str,
    pub name: String,
}

impl UnknownName {
    pub fn new(what: &'static str, name: &str) -> UnknownName {
        UnknownName {
            what,
            name: name.to_string(),
        }
    }
}

impl std::str::FromStr for GameResult {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<GameResult, UnknownName> {
        [
            GameResult::AttackersWin,
            GameResult::DefendersWin,
            GameResult::Draw,
        ]
        .into_iter()
        .find(|r| r.as_str() == s)
        .ok_or_else(|| UnknownName::new("result", s))
    }
}

/// Why a game ended. Written and read as the snake-case names `as_str`
/// gives, in every file format.
#[derive(
    Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    KingEscaped,
    KingCaptured,
    NoLegalMoves,
    Repetition,
    Encirclement,
    QuietPlyLimit,
    PlyLimit,
}

impl EndReason {
    pub const ALL: [EndReason; 7] = [
        EndReason::KingEscaped,
        EndReason::KingCaptured,
        EndReason::NoLegalMoves,
        EndReason::Repetition,
        EndReason::Encirclement,
        EndReason::QuietPlyLimit,
        EndReason::PlyLimit,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            EndReason::KingEscaped => "king_escaped",
            EndReason::KingCaptured => "king_captured",
            EndReason::NoLegalMoves => "no_legal_moves",
            EndReason::Repetition => "repetition",
            EndReason::Encirclement => "encirclement",
            EndReason::QuietPlyLimit => "quiet_ply_limit",
            EndReason::PlyLimit => "ply_limit",
        }
    }
}

impl std::str::FromStr for EndReason {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<EndReason, UnknownName> {
        EndReason::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| UnknownName::new("end reason", s))
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A finished game's result and why.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub struct Outcome {
    pub result: GameResult,
    pub reason: EndReason,
}
