//! Which players a request may name, and the bounds the server puts on
//! them: `random`, `alphabeta:…` and `mcts:…` only (no external engines,
//! no human on the server's terminal), nets by the name of a directory in
//! the server's models folder (never a path), no weight files, and every
//! search limited in time.

use crate::error::{bad, ApiError};
use brandubh_play::{PlayerKind, PlayerSpec, Settings};
use std::path::{Path, PathBuf};

/// Bounds on one search.
#[derive(Clone, Debug)]
pub struct Limits {
    /// The longest a search may think, in milliseconds; a spec without
    /// `ms` gets this as its time limit beside its own depth or sims.
    pub max_ms: u64,
    /// The largest transposition table (`tt=`, MiB).
    pub max_tt: u64,
    /// The most threads one search may use.
    pub max_threads: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_ms: 10_000,
            max_tt: 64,
            max_threads: brandubh_play::all_cores() as u64,
        }
    }
}

/// A spec the server accepts, rewritten for it: `model=NAME` replaced by
/// the net's directory, and a time limit added where the spec has none.
#[derive(Clone, Debug)]
pub struct Allowed {
    pub spec: PlayerSpec,
    /// The spec as the page wrote it.
    pub asked: String,
}

/// The net directories under `models`: each holds a `model.json`.
pub fn nets(models: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir(models) else {
        return out;
    };
    for e in dir.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if safe_name(&name) && e.path().join("model.json").is_file() {
            out.push((name, e.path()));
        }
    }
    out.sort();
    out
}

/// A plain file or directory name: letters, digits, `-`, `_`, `.`, not
/// starting with a dot (so never `..`).
pub fn safe_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// Checks a requested spec against the server's rules and bounds.
pub fn allow(text: &str, models: &Path, limits: &Limits) -> Result<Allowed, ApiError> {
    if text.len() > 300 {
        return Err(bad("player spec longer than 300 characters"));
    }
    let spec = PlayerSpec::parse(text).map_err(|e| bad(e.to_string()))?;
    match spec.kind {
        PlayerKind::Random | PlayerKind::AlphaBeta | PlayerKind::Mcts => {}
        other => {
            return Err(bad(format!(
                "player `{other}` is not offered here (use random, alphabeta:… or mcts:…)"
            )))
        }
    }
    let mut spec_text = spec.to_string();
    let (ms, tt, threads) = match &spec.settings {
        Settings::AlphaBeta(a) => {
            if a.eval.is_some() {
                return Err(bad(
                    "`eval=` names a file: the server plays with the built-in weights only",
                ));
            }
            (a.ms, a.tt, a.threads)
        }
        Settings::Mcts(m) => (m.ms, None, m.threads),
        _ => (None, None, None),
    };
    if let Some(ms) = ms {
        if ms > limits.max_ms {
            return Err(bad(format!(
                "ms={ms}: this server thinks at most {} ms a move",
                limits.max_ms
            )));
        }
    }
    if let Some(tt) = tt {
        if tt as u64 > limits.max_tt {
            return Err(bad(format!("tt={tt}: at most {} MiB here", limits.max_tt)));
        }
    }
    if let Some(t) = threads {
        if t as u64 > limits.max_threads {
            return Err(bad(format!(
                "threads={t}: this server has {} cores",
                limits.max_threads
            )));
        }
    }
    if spec.kind == PlayerKind::Mcts {
        match spec.mcts().model.as_deref() {
            None | Some("uniform") => {}
            Some(name) => {
                let dir = nets(models)
                    .into_iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, d)| d)
                    .ok_or_else(|| {
                        let known: Vec<String> = nets(models).into_iter().map(|(n, _)| n).collect();
                        ApiError::NotFound(format!(
                            "no net `{}` here (nets: {})",
                            name.chars().take(40).collect::<String>(),
                            if known.is_empty() {
                                "none".to_string()
                            } else {
                                known.join(", ")
                            }
                        ))
                    })?;
                let reparsed = PlayerSpec::parse(&spec_text).map_err(|e| bad(e.to_string()))?;
                spec_text = reparsed.with_value("model", &dir.display().to_string());
            }
        }
    }
    let mut spec = PlayerSpec::parse(&spec_text).map_err(|e| bad(e.to_string()))?;
    if spec.kind != PlayerKind::Random && spec.value("ms").is_none() {
        // Depth, node and simulation limits still apply; the time limit
        // stops the ones that would run long.
        let bounded = spec.with_value("ms", &limits.max_ms.to_string());
        spec = PlayerSpec::parse(&bounded).map_err(|e| bad(e.to_string()))?;
    }
    Ok(Allowed {
        spec,
        asked: text.to_string(),
    })
}
