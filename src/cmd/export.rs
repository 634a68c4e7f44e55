use anyhow::{bail, Context, Result};
use brandubh_model::export::export;
use burn::tensor::Device;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Checkpoint directory.
    #[arg(long)]
    model: PathBuf,
    /// The ONNX file to write; the model card goes beside it as
    /// NAME.card.json (model.onnx → model.card.json).
    #[arg(long)]
    out: PathBuf,
}

pub fn run(a: Args) -> Result<()> {
    let meta = brandubh_model::read_meta(&a.model)?;
    let rules = Arc::new(super::load_rules(&meta.rules)?);
    if format!("{:016x}", rules.hash) != meta.rules_hash {
        bail!(
            "{}: trained for rule set `{}` with hash {}, but `{}` here has hash {:016x}",
            a.model.display(),
            meta.rules,
            meta.rules_hash,
            meta.rules,
            rules.hash
        );
    }
    let device = Device::flex();
    let (net, config, meta) = brandubh_model::load(&a.model, &rules, &device)?;
    if let Some(dir) = a.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    refuse_inputs(&a.model, &a.out)?;
    let training = match training_record(&a.model, meta.generation) {
        serde_json::Value::Null => kept_training_record(&a.model, &a.out, &meta.content_hash),
        found => found,
    };
    let report = export(&net, &config, &meta, &rules, &a.out, training)?;
    println!(
        "wrote {} and {} (input `{}`, outputs `{}`); tract matches burn within {:.2e} on the test vectors",
        a.out.display(),
        report.card.display(),
        report.names[0],
        report.names[1..].join("`, `"),
        report.max_abs_diff
    );
    Ok(())
}

/// Never writes over a file of the checkpoint being exported.
fn refuse_inputs(model: &Path, out: &Path) -> Result<()> {
    let card = brandubh_model::export::card_path(out);
    let inputs: Vec<PathBuf> = std::fs::read_dir(model)
        .with_context(|| format!("reading {}", model.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_none_or(|e| e != "onnx")
                && !p.ends_with(card.file_name().unwrap_or_default())
        })
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    for target in [out, card.as_path()] {
        let canon = match (target.parent(), target.file_name()) {
            (Some(dir), Some(name)) => {
                let dir = if dir.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    dir
                };
                dir.canonicalize().map(|d| d.join(name)).ok()
            }
            _ => None,
        };
        if canon.is_some_and(|c| inputs.contains(&c)) {
            bail!(
                "{}: is part of the checkpoint {}; write the export elsewhere",
                target.display(),
                model.display()
            );
        }
    }
    Ok(())
}

/// A checkpoint copied out of its run (a shipped net under `models/`)
/// no longer finds its run's files; its training record then comes from
/// the card already written for this same net (the one being replaced, or
/// the one in the checkpoint's directory), so that exporting it again does
/// not drop its provenance. Null when no card of this net has one.
fn kept_training_record(model: &Path, out: &Path, content_hash: &str) -> serde_json::Value {
    let cards = [
        brandubh_model::export::card_path(out),
        model.join("model.card.json"),
    ];
    cards
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .filter_map(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .find(|card| {
            card["model"]["content_hash"].as_str() == Some(content_hash)
                && !card["training"].is_null()
        })
        .map(|card| card["training"].clone())
        .unwrap_or(serde_json::Value::Null)
}

/// The training run's record of a checkpoint inside a run directory
/// (`RUN/checkpoints/gen-NNNN`): run, generation, config hash, games and
/// steps trained, and its scores and rating at the time; null elsewhere.
fn training_record(model: &Path, generation: u32) -> serde_json::Value {
    use serde_json::json;
    let Some(run) = model.parent().and_then(|c| c.parent()) else {
        return serde_json::Value::Null;
    };
    let Ok(config) = std::fs::read(run.join("config.toml")) else {
        return serde_json::Value::Null;
    };
    let config_hash = {
        use sha2::Digest;
        format!("{:x}", sha2::Sha256::digest(&config))
    };
    let run_config = std::str::from_utf8(&config)
        .ok()
        .and_then(|t| brandubh_train::RunConfig::from_toml(t, "config.toml").ok());
    let teacher = run_config.as_ref().and_then(|c| c.teacher.clone());
    // A fixed opponent in the self-play of this generation or an earlier one.
    let opponent = run_config.as_ref().and_then(|c| {
        let o = c.opponent.as_ref()?;
        (c.selfplay.opponent_share > 0.0 && generation >= o.from_generation).then(|| {
            json!({
                "player": o.player,
                "share": c.selfplay.opponent_share,
                "plays": c.selfplay.opponent_plays,
                "from_generation": o.from_generation,
            })
        })
    });
    // The teacher games this net's training could have seen: those of its
    // generation and the ones before (a config can gain the section
    // mid-run, so count what is there).
    let teacher_games: Vec<(u32, usize)> = (1..=generation)
        .filter_map(|i| {
            let dir = run.join("teacher").join(format!("iter-{i:04}"));
            let (games, _) = brandubh_selfplay::read_dir(&dir);
            (!games.is_empty()).then_some((i, games.len()))
        })
        .collect();
    let records: Vec<serde_json::Value> = std::fs::read_to_string(run.join("generations.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let upto: Vec<&serde_json::Value> = records
        .iter()
        .filter(|r| {
            r["iteration"]
                .as_u64()
                .is_some_and(|i| i <= generation as u64)
        })
        .collect();
    let games: u64 = upto.iter().filter_map(|r| r["games"].as_u64()).sum();
    let this = upto
        .iter()
        .find(|r| r["iteration"].as_u64() == Some(generation as u64));
    let ratings: serde_json::Value = std::fs::read_to_string(run.join("ratings.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(serde_json::Value::Null);
    let name = format!("gen-{generation:04}");
    let rating = ratings
        .get("ratings")
        .and_then(|p| p.as_array())
        .and_then(|ps| {
            // A net is rated under its model id now, under its path in
            // older runs: either spelling of this generation matches.
            let is_this = |n: &str| n.contains(&format!("{name},")) || n.ends_with(&name);
            ps.iter().find(|p| {
                p["player"].as_str().is_some_and(is_this)
                    || p["specs"]
                        .as_array()
                        .is_some_and(|s| s.iter().filter_map(|x| x.as_str()).any(is_this))
            })
        })
        .cloned();
    json!({
        "run": run.file_name().map(|n| n.to_string_lossy().into_owned()),
        "generation": generation,
        "config_sha256": config_hash,
        "selfplay_games_up_to_here": games,
        "self_play_only": teacher_games.is_empty() && opponent.is_none(),
        "teacher": (!teacher_games.is_empty()).then(|| json!({
            "player": teacher.as_ref().map(|t| t.player.clone()),
            "random_move_prob": teacher.as_ref().map(|t| t.random_move_prob),
            "games_by_generation": teacher_games.iter()
                .map(|(i, n)| json!({"generation": i, "games": n}))
                .collect::<Vec<_>>(),
        })),
        "opponent": opponent,
        "generation_record": this,
        "rating": rating,
    })
}
