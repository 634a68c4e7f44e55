//! `brandubh tune-eval`: fit the alpha-beta evaluation weights to the
//! results of recorded games.

use super::{load_rules, write_atomic};
use anyhow::{bail, Result};
use brandubh_alphabeta::evaluation::EvalWeights;
use brandubh_arena::read_records;
use brandubh_arena::{tune::fit, tune::samples};
use std::path::PathBuf;
use std::sync::Arc;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Game files written by `brandubh match --out` (JSON lines), all of
    /// one rule set.
    #[arg(required = true)]
    games: Vec<PathBuf>,
    /// Rule set name or path to a TOML file (must be the games' rule set).
    #[arg(long, default_value = "wtf")]
    rules: String,
    /// Starting weights (default: the rule set's built-in weights).
    #[arg(long)]
    eval: Option<PathBuf>,
    /// Leave out the first plies of every game (the random openings).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(0..=10_000))]
    skip: u32,
    /// Full-batch Adam steps.
    #[arg(long, default_value_t = 1500, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    iterations: u32,
    /// Adam step size, in weight units.
    #[arg(long, default_value_t = 2.0, value_parser = positive)]
    lr: f64,
    /// Write the fitted weights here (TOML, usable as `alphabeta:eval=FILE`).
    #[arg(long)]
    out: Option<PathBuf>,
}

pub fn run(a: Args) -> Result<()> {
    let rules = Arc::new(load_rules(&a.rules)?);
    let start = match &a.eval {
        Some(p) => EvalWeights::from_file(p)?,
        None => EvalWeights::builtin(rules.name()),
    };
    let want = format!("{:016x}", rules.hash);
    let mut games = Vec::new();
    for f in &a.games {
        for rec in read_records(f)? {
            if rec.rules_hash != want {
                bail!(
                    "{}: game of pair {} is `{}` (rules hash {}), not `{}` ({want})",
                    f.display(),
                    rec.pair,
                    rec.rules,
                    rec.rules_hash,
                    rules.name()
                );
            }
            games.push(rec);
        }
    }
    let data = samples(&rules, &games, a.skip)?;
    if data.is_empty() {
        bail!(
            "no positions to fit: every game is shorter than --skip {} plies",
            a.skip
        );
    }
    let attacker_share =
        games.iter().map(|g| g.attacker_points()).sum::<f64>() / games.len() as f64;
    println!(
        "{} games ({:.1} % attacker points), {} positions",
        games.len(),
        100.0 * attacker_share,
        data.len()
    );
    let f = fit(&data, &start, a.iterations, a.lr);
    println!(
        "scale k = {:.4}; offset {:.0} -> {:.0}; cross-entropy {:.5} -> {:.5}",
        f.scale, f.offset_before, f.offset_after, f.loss_before, f.loss_after
    );
    println!("{:<24} {:>8} {:>8}", "weight", "start", "fitted");
    let (before, after) = (start.to_array(), f.weights.to_array());
    for ((name, b), w) in EvalWeights::NAMES.iter().zip(before).zip(after) {
        println!("{name:<24} {b:>8} {w:>8}");
    }
    if let Some(out) = &a.out {
        let text = format!(
            "# Evaluation weights fitted by `brandubh tune-eval` to {} games\n\
             # ({} positions) under `{}`; cross-entropy {:.5} -> {:.5}.\n\n{}",
            games.len(),
            data.len(),
            rules.name(),
            f.loss_before,
            f.loss_after,
            f.weights.to_toml()
        );
        write_atomic(out, text.as_bytes())?;
        println!("weights written to {}", out.display());
    }
    Ok(())
}

/// A step size: a finite number above zero.
fn positive(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        Ok(_) => Err(format!("{s} is not a finite number above 0")),
        Err(e) => Err(format!("{s}: {e}")),
    }
}
