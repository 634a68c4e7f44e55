//! What a run records of each finished iteration (`generations.jsonl`),
//! and why a run cannot go on.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The candidate as `mcts:…,ms=T` against `alphabeta:ms=T`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EqualTime {
    pub ms: u64,
    pub pairs: u64,
    pub score: f64,
    pub elo: f64,
    pub elo_ci95: [f64; 2],
}

/// The iterations `DIR/generations.jsonl` records (none when it is absent;
/// an unreadable line is skipped).
pub(super) fn recorded_iterations(dir: &std::path::Path) -> Vec<IterationRecord> {
    std::fs::read_to_string(dir.join("generations.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// One finished iteration, appended to `generations.jsonl`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct IterationRecord {
    pub iteration: u32,
    pub selfplay_net: String,
    pub candidate: String,
    pub promoted: bool,
    pub selfplay_seconds: f64,
    pub train_seconds: f64,
    pub eval_seconds: f64,
    /// CPU time (user and system, every thread) this process spent on the
    /// iteration: the run's cost in CPU-hours on one machine. Self-play
    /// done by separate worker processes is not in it. Absent in records
    /// from before it was measured, and where it cannot be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_seconds: Option<f64>,
    pub games: u64,
    pub attacker_share: f64,
    pub defender_share: f64,
    pub draw_share: f64,
    pub mean_length: f64,
    /// Against the net before it; absent in a generation not evaluated
    /// (`eval.every`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score_vs_current: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elo_vs_current: Option<f64>,
    pub score_vs_baseline: Option<f64>,
    pub elo_vs_baseline: Option<f64>,
    pub final_policy_loss: f32,
    pub final_value_loss: f32,
    /// Matches at equal time against alpha-beta (`eval.equal_time_ms`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub equal_time: Vec<EqualTime>,
}

/// Why a run cannot go on; each names the file, key or phase at fault.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Config(#[from] brandubh_mcts::ConfigError),
    #[error(transparent)]
    Rules(#[from] brandubh_rules::RulesError),
    #[error(transparent)]
    Checkpoint(#[from] brandubh_model::CheckpointError),
    #[error(transparent)]
    Records(#[from] brandubh_selfplay::RecordError),
    #[error(transparent)]
    Arena(#[from] brandubh_arena::ArenaError),
    #[error(transparent)]
    Player(#[from] brandubh_play::PlayerSpecError),
    #[error(transparent)]
    Ratings(#[from] brandubh_arena::ratings::RatingError),
    #[error(transparent)]
    Optimizer(#[from] crate::trainer::OptimizerError),
    #[error(transparent)]
    Evaluator(#[from] brandubh_model::LoadEvaluatorError),
    #[error(transparent)]
    Teacher(#[from] crate::teacher::TeacherError),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    /// A file or directory that cannot be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A run file that does not hold what it should.
    #[error("{}: {why}", path.display())]
    BadFile { path: PathBuf, why: String },
    /// What was asked cannot be done in the state the run is in.
    #[error("{0}")]
    State(String),
    /// Games that could not be played, or a net that could not be loaded
    /// to play them.
    #[error("{0}")]
    Games(String),
}

/// The CPU time this process has used so far (user and system, every
/// thread), where the platform tells.
pub fn process_cpu_seconds() -> Option<f64> {
    #[cfg(unix)]
    {
        // SAFETY: getrusage writes the struct it is given and nothing else.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) } != 0 {
            return None;
        }
        let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
        Some(secs(u.ru_utime) + secs(u.ru_stime))
    }
    #[cfg(not(unix))]
    {
        None
    }
}
