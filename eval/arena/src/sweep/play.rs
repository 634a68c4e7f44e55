//! Playing a study: its cells split into chunks, each written whole.

use super::{slug, SweepConfig, SweepError, Variant};
use crate::{parse_records, run_match, ArenaError, GameRecord, MatchConfig, OpeningFilter};
use brandubh_play::{PlayContext, PlayerSpec};
use brandubh_rules::{fnv1a, splitmix64};
use std::path::{Path, PathBuf};
use std::sync::Arc;
/// Where a cell's chunk lives in the study directory.
pub fn chunk_path(dir: &Path, variant: &str, cell: &(String, String), chunk: u64) -> PathBuf {
    dir.join("games")
        .join(slug(variant))
        .join(slug(&format!("{} vs {}", cell.0, cell.1)))
        .join(format!("chunk-{chunk:04}.jsonl"))
}

/// One chunk of one cell of a variant: (index, openings).
#[derive(Clone, Copy, Debug)]
pub struct Chunk<'a> {
    pub variant: &'a Variant,
    pub cell: &'a (String, String),
    pub chunk: (u64, u64),
}

/// Plays one chunk of a cell and writes it whole. Its openings come from
/// the study's seed, the variant, the cell and the chunk, so a resumed
/// study plays the same games.
pub fn play_chunk(
    cfg: &SweepConfig,
    dir: &Path,
    job: Chunk<'_>,
    threads: usize,
    ctx: &Arc<PlayContext>,
    progress: &(dyn Fn(&GameRecord) + Sync),
) -> Result<PathBuf, SweepError> {
    let Chunk {
        variant,
        cell,
        chunk,
    } = job;
    let path = chunk_path(dir, &variant.name, cell, chunk.0);
    let io = |source: std::io::Error| ArenaError::Io {
        path: path.clone(),
        source,
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io)?;
    }
    let seed = splitmix64(
        cfg.seed
            ^ splitmix64(
                fnv1a(&variant.name)
                    ^ splitmix64(fnv1a(&cell.0) ^ fnv1a(&cell.1).rotate_left(17) ^ chunk.0),
            ),
    );
    let mc = MatchConfig {
        rules: variant.rules.clone(),
        a: PlayerSpec::parse(&cell.0).map_err(ArenaError::from)?,
        b: PlayerSpec::parse(&cell.1).map_err(ArenaError::from)?,
        pairs: chunk.1,
        openings: cfg.openings,
        seed,
        max_plies: cfg.max_plies,
        threads,
        sprt: None,
        // One game per opening, A attacking: the cell names who attacks.
        swap_sides: false,
        balanced: (cfg.balanced > 0).then_some(OpeningFilter {
            margin: cfg.balanced.min(i32::MAX as u32) as i32,
            nodes: 300_000,
        }),
        clock: None,
        ctx: ctx.clone(),
    };
    let (_, games) = run_match(&mc, None, progress)?;
    let mut text = String::new();
    for g in &games {
        text.push_str(&serde_json::to_string(g).expect("a record serialises"));
        text.push('\n');
    }
    brandubh_durable::write(&path, text.as_bytes()).map_err(io)?;
    Ok(path)
}

/// The games of a cell found in the study directory (whole chunks only).
pub fn cell_games(
    dir: &Path,
    variant: &str,
    cell: &(String, String),
) -> Result<Vec<GameRecord>, SweepError> {
    let folder = chunk_path(dir, variant, cell, 0)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&folder) {
        Ok(rd) => rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("chunk-") && n.ends_with(".jsonl"))
            })
            .collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).map_err(|source| ArenaError::Io {
            path: f.clone(),
            source,
        })?;
        out.extend(parse_records(&text, &f)?);
    }
    Ok(out)
}
