//! The arena's game records: one finished game per JSON line (format
//! documented in docs/arena.md), written so that a crash loses only the
//! games in flight, and read back with errors that name the file and line.

use crate::error::*;
use brandubh_play::{ending::Ending, ending::RecordResult};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Version of the game-record format.
pub const RECORD_FORMAT: u32 = 1;

/// One finished (or capped) game. Two records are equal when they hold the
/// same game: the move times, a measurement of the machine, are left out.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GameRecord {
    pub format: u32,
    pub rules: String,
    /// The rule set's option hash, hex.
    pub rules_hash: String,
    pub pair: u64,
    /// 0: A has the attackers; 1: sides swapped.
    pub game: u8,
    pub seed: u64,
    /// Player specs.
    pub attackers: String,
    pub defenders: String,
    /// What ratings know a player by when it differs from its spec: a
    /// net's spec with its path replaced by its model id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attackers_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defenders_id: Option<String>,
    /// The random opening plies both games of the pair start with.
    pub opening: Vec<String>,
    /// Moves after the opening, OpenTafl move records.
    pub moves: Vec<String>,
    /// `attackers_win`, `defenders_win`, `draw`, or `unfinished` (capped).
    pub result: RecordResult,
    /// How it ended: the rules' end reasons, or `time_forfeit`,
    /// `engine_failure`, `illegal_move`, `resigned` when a player forfeited;
    /// none when capped.
    pub reason: Option<Ending>,
    /// Total plies, opening included.
    pub plies: u32,
    /// Wall time of each move after the opening, in microseconds (absent
    /// in files from before it was recorded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub move_us: Vec<u64>,
    /// What went wrong when a player forfeited (an external engine that
    /// crashed, hung or played an illegal move).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl PartialEq for GameRecord {
    fn eq(&self, o: &GameRecord) -> bool {
        self.format == o.format
            && self.rules == o.rules
            && self.rules_hash == o.rules_hash
            && self.pair == o.pair
            && self.game == o.game
            && self.seed == o.seed
            && self.attackers == o.attackers
            && self.defenders == o.defenders
            && self.opening == o.opening
            && self.moves == o.moves
            && self.result == o.result
            && self.reason == o.reason
            && self.plies == o.plies
    }
}

impl GameRecord {
    /// What ratings know the attackers by (`Player::identity`).
    pub fn attackers_identity(&self) -> &str {
        self.attackers_id.as_deref().unwrap_or(&self.attackers)
    }
    /// What ratings know the defenders by.
    pub fn defenders_identity(&self) -> &str {
        self.defenders_id.as_deref().unwrap_or(&self.defenders)
    }
    /// Points for the attackers: 1, ½ or 0; a capped game counts as a draw.
    pub fn attacker_points(&self) -> f64 {
        self.result.attacker_points()
    }
}

/// Appends records to `PATH.partial`, renamed to `PATH` when the match ends,
/// so a crash leaves every finished game readable and loses only those in
/// flight.
pub(crate) struct RecordWriter {
    partial: PathBuf,
    path: PathBuf,
    file: std::fs::File,
}

/// Where a match writing to `path` keeps its games until it ends.
pub fn partial_path(path: &Path) -> PathBuf {
    PathBuf::from(format!("{}.partial", path.display()))
}

impl RecordWriter {
    pub(crate) fn create(path: &Path) -> Result<RecordWriter, ArenaError> {
        let partial = partial_path(path);
        let io = |source| ArenaError::Io {
            path: partial.clone(),
            source,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let file = std::fs::File::create(&partial).map_err(io)?;
        Ok(RecordWriter {
            partial,
            path: path.to_path_buf(),
            file,
        })
    }
    pub(crate) fn write(&mut self, rec: &GameRecord) -> Result<(), ArenaError> {
        let line = serde_json::to_string(rec).expect("records serialise");
        writeln!(self.file, "{line}")
            .and_then(|_| self.file.flush())
            .map_err(|source| ArenaError::Io {
                path: self.partial.clone(),
                source,
            })
    }
    pub(crate) fn finish(self) -> Result<(), ArenaError> {
        self.file.sync_all().ok();
        brandubh_durable::persist(&self.partial, &self.path).map_err(|source| ArenaError::Io {
            path: self.path.clone(),
            source,
        })
    }
}

/// Reads a game-record file (JSON lines); a bad line is an error naming
/// the file and line.
pub fn read_records(path: &Path) -> Result<Vec<GameRecord>, ArenaError> {
    let text = std::fs::read_to_string(path).map_err(|source| ArenaError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_records(&text, path)
}

/// Reads game records from the text of a game file; `path` names it in
/// errors, with the line.
pub fn parse_records(text: &str, path: &Path) -> Result<Vec<GameRecord>, ArenaError> {
    Ok(numbered_records(text, path)?
        .into_iter()
        .map(|(_, rec)| rec)
        .collect())
}

/// The records of a game file's text, each with its line number (from 1).
pub(crate) fn numbered_records(
    text: &str,
    path: &Path,
) -> Result<Vec<(usize, GameRecord)>, ArenaError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let rec: GameRecord = serde_json::from_str(line).map_err(|e| ArenaError::BadRecord {
            path: path.to_path_buf(),
            line: i + 1,
            why: e.to_string(),
        })?;
        if rec.format != RECORD_FORMAT {
            return Err(ArenaError::BadRecord {
                path: path.to_path_buf(),
                line: i + 1,
                why: format!(
                    "record format {} (this build reads {RECORD_FORMAT})",
                    rec.format
                ),
            });
        }
        out.push((i + 1, rec));
    }
    Ok(out)
}
