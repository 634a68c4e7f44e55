//! `balance --sweep … --net-minutes M`: a net of its own for each variant
//! of a study, trained for a bounded wall time from the nearest shipped
//! net, as a training run inside the study directory
//! (`nets/VARIANT/`, resumable like any run).

use super::run_loop::{with_rules, Bars};
use super::write_atomic;
use anyhow::{bail, Context, Result};
use brandubh_arena::sweep::{slug, FinetuneConfig, Variant};
use brandubh_train::Run;
use std::path::Path;

/// Trains (or resumes) each variant's net until its run has spent
/// `minutes` of wall time, then puts the net on the variant's ladder at
/// each of the study's simulation counts and into cross-play against the
/// study's `cross` opponents.
pub fn finetune_variants(
    f: &FinetuneConfig,
    dir: &Path,
    variants: &mut [Variant],
    minutes: f64,
    env: &super::Env,
) -> Result<()> {
    if !(minutes.is_finite() && minutes > 0.0) {
        bail!("--net-minutes {minutes}: expected a positive number of minutes");
    }
    let config = std::fs::read_to_string(&f.config)
        .with_context(|| format!("reading the fine-tuning run config {}", f.config))?;
    for v in variants.iter_mut() {
        let from = v.finetune_from.clone().unwrap_or_else(|| f.from.clone());
        let run_dir = dir.join("nets").join(slug(&v.name));
        std::fs::create_dir_all(&run_dir)
            .with_context(|| format!("creating {}", run_dir.display()))?;
        // The run reads its rules from a file of the variant's options.
        let rules_path = run_dir.join("rules.toml");
        let rules = v
            .rules_toml()
            .map_err(|e| anyhow::anyhow!("{}: {e}", v.name))?;
        match std::fs::read_to_string(&rules_path) {
            Ok(old) if old != rules => bail!(
                "{} holds another variant's rules; choose another --run-dir",
                rules_path.display()
            ),
            Ok(_) => {}
            Err(_) => write_atomic(&rules_path, rules.as_bytes())?,
        }
        let text = with_rules(&config, &rules_path.display().to_string());
        let source = format!("{} with the rules of {}", f.config, v.name);
        let mut run = Run::open_from(
            &run_dir.join("run"),
            Some((&text, &source)),
            Some(Path::new(&from)),
        )
        .with_context(|| format!("the fine-tuning run of {}", v.name))?;
        run.set_inference(env.inference);
        let spent = run.spent_seconds();
        if spent < minutes * 60.0 {
            println!(
                "{}: fine-tuning {} for {:.1} of {minutes} minutes",
                v.name,
                from,
                (minutes * 60.0 - spent) / 60.0
            );
        }
        run.run_for(minutes * 60.0, &Bars::new())?;
        let net = run.current_net();
        println!(
            "{}: net {} after {:.1} minutes of training",
            v.name,
            net.display(),
            run.spent_seconds() / 60.0
        );
        let spec = |s: &u32| format!("mcts:model={},sims={s},threads=1", net.display());
        for s in &f.sims {
            v.add_rung(&spec(s));
        }
        if let Some(top) = f.sims.iter().max() {
            for opponent in &f.cross {
                v.add_cross(&spec(top), opponent);
            }
        }
    }
    Ok(())
}
