//! OpenTafl game files: writing match and self-play games as `.otg`, and
//! `export-games`, which converts recorded games.

use anyhow::{bail, Context, Result};
use brandubh_arena::GameRecord;
use brandubh_rules::{otg_result, write_otg, RuleSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Converts recorded games to OpenTafl game files, one per game.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Match or balance game files (JSON lines, `match --out`) or self-play
    /// games shards (`*.games.parquet`).
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Directory for the `.otg` files (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// Rule set of the games, when it is not one of the named sets (a path
    /// to a TOML file); by default the games' own rule-set name.
    #[arg(long)]
    rules: Option<String>,
}

/// Every rule set with a name, for reading game files back in full.
pub fn known_rules() -> Vec<Arc<RuleSet>> {
    brandubh_rules::all_names()
        .iter()
        .filter_map(|n| RuleSet::named(n).ok().map(Arc::new))
        .collect()
}

/// Writes one arena game as `DIR/NAME.otg`.
pub fn write_match_game(dir: &Path, rules: &RuleSet, g: &GameRecord) -> Result<PathBuf> {
    let moves: Vec<String> = g.opening.iter().chain(&g.moves).cloned().collect();
    let mut tags = vec![
        ("event", "brandubh match".to_string()),
        ("round", format!("pair {} game {}", g.pair, g.game)),
        ("attackers", g.attackers.clone()),
        ("defenders", g.defenders.clone()),
        ("result", otg_result(g.result.as_str()).to_string()),
        ("variant", g.rules.clone()),
        ("compiler", "brandubh".to_string()),
    ];
    if let Some(r) = g.reason {
        tags.push(("termination", r.to_string()));
    }
    let path = dir.join(format!("pair-{:05}-game-{}.otg", g.pair, g.game));
    super::write_atomic(&path, write_otg(&tags, rules, &moves).as_bytes())?;
    Ok(path)
}

fn rules_for(
    name: &str,
    given: &Option<String>,
    cache: &mut Vec<Arc<RuleSet>>,
) -> Result<Arc<RuleSet>> {
    let want = given.as_deref().unwrap_or(name);
    if let Some(r) = cache.iter().find(|r| r.name() == name) {
        return Ok(r.clone());
    }
    let r = Arc::new(super::load_rules(want)?);
    cache.push(r.clone());
    Ok(r)
}

pub fn run(a: Args) -> Result<()> {
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    let mut cache = Vec::new();
    let mut written = 0usize;
    for input in &a.inputs {
        let name = input.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let stem = name.split('.').next().unwrap_or("games").to_string();
        if name.ends_with(".parquet") {
            let games = brandubh_selfplay::records::read_shard(input)
                .with_context(|| format!("reading {}", input.display()))?;
            for g in games {
                let rules = rules_for(&g.rules, &a.rules, &mut cache)?;
                let tags = vec![
                    ("event", "brandubh self-play".to_string()),
                    ("round", format!("game {}", g.game_id)),
                    ("attackers", format!("self-play {}", g.model_id)),
                    ("defenders", format!("self-play {}", g.model_id)),
                    ("result", otg_result(g.result_str()).to_string()),
                    ("variant", g.rules.clone()),
                    ("compiler", "brandubh".to_string()),
                    (
                        "termination",
                        g.reason.map_or("unfinished", |r| r.as_str()).to_string(),
                    ),
                ];
                let path = a.out.join(format!("{stem}-game-{:06}.otg", g.game_id));
                super::write_atomic(&path, write_otg(&tags, &rules, &g.moves).as_bytes())?;
                written += 1;
            }
        } else if name.ends_with(".jsonl") || name.ends_with(".json") {
            let games = brandubh_arena::read_records(input)
                .with_context(|| format!("reading {}", input.display()))?;
            let dir = a.out.join(&stem);
            std::fs::create_dir_all(&dir)?;
            for g in &games {
                let rules = rules_for(&g.rules, &a.rules, &mut cache)?;
                write_match_game(&dir, &rules, g)?;
                written += 1;
            }
        } else {
            bail!(
                "{}: expected match games (.jsonl) or a self-play games shard (.games.parquet)",
                input.display()
            );
        }
    }
    println!("{written} games written to {}", a.out.display());
    Ok(())
}
