//! The closed sets an arena game record names: how the game came out and
//! why it ended. Both are written as snake-case strings (`attackers_win`,
//! `king_captured`, `time_forfeit`, …), the same strings the game files have
//! always held, and a file with any other string is refused when read.

use brandubh_rules::{EndReason, GameResult, UnknownName};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// How a game came out; `Unfinished` when it was stopped at the ply cap.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordResult {
    AttackersWin,
    DefendersWin,
    Draw,
    Unfinished,
}

impl RecordResult {
    pub const ALL: [RecordResult; 4] = [
        RecordResult::AttackersWin,
        RecordResult::DefendersWin,
        RecordResult::Draw,
        RecordResult::Unfinished,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            RecordResult::AttackersWin => "attackers_win",
            RecordResult::DefendersWin => "defenders_win",
            RecordResult::Draw => "draw",
            RecordResult::Unfinished => "unfinished",
        }
    }
    /// Points for the attackers: 1, ½ or 0; an unfinished game counts ½.
    pub fn attacker_points(self) -> f64 {
        match self {
            RecordResult::AttackersWin => 1.0,
            RecordResult::DefendersWin => 0.0,
            RecordResult::Draw | RecordResult::Unfinished => 0.5,
        }
    }
}

impl From<Option<GameResult>> for RecordResult {
    fn from(r: Option<GameResult>) -> RecordResult {
        match r {
            Some(GameResult::AttackersWin) => RecordResult::AttackersWin,
            Some(GameResult::DefendersWin) => RecordResult::DefendersWin,
            Some(GameResult::Draw) => RecordResult::Draw,
            None => RecordResult::Unfinished,
        }
    }
}

impl FromStr for RecordResult {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<RecordResult, UnknownName> {
        RecordResult::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| UnknownName::new("result", s))
    }
}

impl fmt::Display for RecordResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a player gave a game up.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ForfeitReason {
    /// Ran out of time on its clock.
    TimeForfeit,
    /// An external engine crashed, hung or answered nonsense.
    EngineFailure,
    /// Chose a move the rules do not allow.
    IllegalMove,
    /// Gave up (a human's `quit`, an engine's resignation).
    Resigned,
}

impl ForfeitReason {
    pub const ALL: [ForfeitReason; 4] = [
        ForfeitReason::TimeForfeit,
        ForfeitReason::EngineFailure,
        ForfeitReason::IllegalMove,
        ForfeitReason::Resigned,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            ForfeitReason::TimeForfeit => "time_forfeit",
            ForfeitReason::EngineFailure => "engine_failure",
            ForfeitReason::IllegalMove => "illegal_move",
            ForfeitReason::Resigned => "resigned",
        }
    }
}

impl fmt::Display for ForfeitReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a game ended: by the rules, or by a player's forfeit.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Ending {
    Rules(EndReason),
    Forfeit(ForfeitReason),
}

impl Ending {
    pub fn as_str(self) -> &'static str {
        match self {
            Ending::Rules(r) => r.as_str(),
            Ending::Forfeit(f) => f.as_str(),
        }
    }
}

impl From<EndReason> for Ending {
    fn from(r: EndReason) -> Ending {
        Ending::Rules(r)
    }
}

impl From<ForfeitReason> for Ending {
    fn from(f: ForfeitReason) -> Ending {
        Ending::Forfeit(f)
    }
}

impl FromStr for Ending {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Ending, UnknownName> {
        if let Some(f) = ForfeitReason::ALL.into_iter().find(|f| f.as_str() == s) {
            return Ok(Ending::Forfeit(f));
        }
        s.parse::<EndReason>()
            .map(Ending::Rules)
            .map_err(|_| UnknownName::new("end reason", s))
    }
}

impl TryFrom<String> for Ending {
    type Error = UnknownName;
    fn try_from(s: String) -> Result<Ending, UnknownName> {
        s.parse()
    }
}

impl From<Ending> for String {
    fn from(e: Ending) -> String {
        e.as_str().to_string()
    }
}

impl fmt::Display for Ending {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_reads_back() {
        for r in RecordResult::ALL {
            let json = serde_json::to_string(&r).unwrap();
            assert_eq!(json, format!("\"{}\"", r.as_str()));
            assert_eq!(serde_json::from_str::<RecordResult>(&json).unwrap(), r);
        }
        let endings = EndReason::ALL
            .into_iter()
            .map(Ending::from)
            .chain(ForfeitReason::ALL.into_iter().map(Ending::from));
        for e in endings {
            let json = serde_json::to_string(&e).unwrap();
            assert_eq!(json, format!("\"{}\"", e.as_str()));
            assert_eq!(serde_json::from_str::<Ending>(&json).unwrap(), e);
        }
        assert!(serde_json::from_str::<Ending>("\"king_vanished\"").is_err());
        assert!(serde_json::from_str::<RecordResult>("\"attackers_won\"").is_err());
    }
}
