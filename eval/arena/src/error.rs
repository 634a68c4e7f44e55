//! What can go wrong in a match or when reading its records.

use brandubh_play::PlayerSpecError;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    #[error(transparent)]
    Spec(#[from] PlayerSpecError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot resume the match: {0}")]
    Resume(String),
    #[error("{path}, line {line}: {why}")]
    BadRecord {
        path: PathBuf,
        line: usize,
        why: String,
    },
}
