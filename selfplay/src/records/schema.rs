//! What a shard holds: the record types, the two tables' Arrow schemas,
//! the schema version, and the error every reader and writer returns.

use arrow_schema::{DataType, Field, Schema};
use brandubh_rules::{Board, EndReason, GameResult, Side};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The schema version written into every file's metadata.
pub const SCHEMA_VERSION: &str = "2";
/// Older versions this build still reads, with the columns they lack.
pub(crate) const OLDER_VERSIONS: [(&str, &[&str]); 1] = [("1", &["root_draw"])];
pub(crate) const VERSION_KEY: &str = "brandubh.schema_version";
pub(crate) const TABLE_KEY: &str = "brandubh.table";

/// One searched position of a self-play game.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionRecord {
    pub ply: u32,
    pub board: Board,
    pub side_to_move: Side,
    pub quiet_plies: u16,
    pub repetitions: u8,
    /// Policy index and visit count of every searched root move.
    pub visits: Vec<(u16, u32)>,
    /// Policy target over the same moves (normalised visits, or Gumbel's improved policy).
    pub target: Vec<f32>,
    /// Root value for the side to move, in [-1, 1].
    pub root_value: f32,
    /// The draw probability behind the root value, in [0, 1]; NaN in
    /// version-1 files, which did not record it.
    pub root_draw: f32,
    /// A full search (a policy training target) rather than a cheap one.
    pub full_search: bool,
    /// The move played (OpenTafl) and its policy index (none for a pass).
    pub mv: String,
    pub move_index: Option<u16>,
}

/// A finished (or capped) self-play game.
#[derive(Clone, Debug, PartialEq)]
pub struct SelfPlayGame {
    pub game_id: u64,
    pub rules: String,
    pub rules_hash: u64,
    pub model_id: String,
    pub seed: u64,
    /// `None`: stopped at the ply cap, unfinished.
    pub result: Option<GameResult>,
    pub reason: Option<EndReason>,
    pub plies: u32,
    /// Every move, opening included, OpenTafl records.
    pub moves: Vec<String>,
    pub positions: Vec<PositionRecord>,
}

impl SelfPlayGame {
    pub fn result_str(&self) -> &'static str {
        self.result.map_or("unfinished", |r| r.as_str())
    }
    /// +1 / 0 / −1 for the side to move in a position of this game.
    pub fn result_for(&self, side: Side) -> i8 {
        match self.result {
            Some(GameResult::AttackersWin) => {
                if side == Side::Attackers {
                    1
                } else {
                    -1
                }
            }
            Some(GameResult::DefendersWin) => {
                if side == Side::Defenders {
                    1
                } else {
                    -1
                }
            }
            _ => 0,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("{path}: {why}")]
    Io { path: PathBuf, why: String },
    #[error("{path}: not a brandubh self-play file: {why}")]
    Schema { path: PathBuf, why: String },
}

pub(crate) fn io_err(path: &Path, e: impl std::fmt::Display) -> RecordError {
    RecordError::Io {
        path: path.to_path_buf(),
        why: e.to_string(),
    }
}

pub(crate) fn list_field(name: &str, inner: DataType) -> Field {
    Field::new(
        name,
        DataType::List(Arc::new(Field::new("item", inner, true))),
        false,
    )
}

pub fn games_schema() -> Schema {
    Schema::new(vec![
        Field::new("game_id", DataType::UInt64, false),
        Field::new("rules", DataType::Utf8, false),
        Field::new("rules_hash", DataType::UInt64, false),
        Field::new("model_id", DataType::Utf8, false),
        Field::new("seed", DataType::UInt64, false),
        Field::new("result", DataType::Utf8, false),
        Field::new("reason", DataType::Utf8, true),
        Field::new("plies", DataType::UInt32, false),
        Field::new("moves", DataType::Utf8, false),
    ])
}

pub fn positions_schema() -> Schema {
    Schema::new(vec![
        Field::new("game_id", DataType::UInt64, false),
        Field::new("ply", DataType::UInt32, false),
        Field::new("attackers", DataType::UInt64, false),
        Field::new("defenders", DataType::UInt64, false),
        Field::new("king", DataType::UInt64, false),
        Field::new("side_to_move", DataType::UInt8, false),
        Field::new("quiet_plies", DataType::UInt16, false),
        Field::new("repetitions", DataType::UInt8, false),
        list_field("visit_index", DataType::UInt16),
        list_field("visit_count", DataType::UInt32),
        list_field("policy_target", DataType::Float32),
        Field::new("root_value", DataType::Float32, false),
        Field::new("root_draw", DataType::Float32, false),
        Field::new("full_search", DataType::Boolean, false),
        Field::new("move", DataType::Utf8, false),
        Field::new("move_index", DataType::UInt16, true),
        Field::new("result", DataType::Int8, false),
        Field::new("game_result", DataType::Utf8, false),
    ])
}
