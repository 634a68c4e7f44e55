use super::run_loop::Bars;
use anyhow::Result;
use brandubh_train::run::Run;
use std::path::PathBuf;

/// Adds stronger rungs to a run's rating ladder after the fact.
///
/// A run rates each generation against its config's fixed ladder; once its
/// nets beat the top rung nearly every game, later generations can no
/// longer be told apart and the rating curve flattens. This plays every
/// N-th generation (and the last) against the rungs given, with the run's
/// own evaluation settings, adds the games to the run's arena and rewrites
/// `ratings.json`, so that `brandubh report` draws the whole run on the
/// longer ladder. Matches already played are kept: a killed call resumes.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// An existing run directory (see `brandubh loop`).
    #[arg(long)]
    run_dir: PathBuf,
    /// A fixed player to add to the ladder, e.g. `alphabeta:depth=6`.
    /// Repeat for several rungs.
    #[arg(long, value_name = "SPEC", required = true)]
    rung: Vec<String>,
    /// Play every this many generations (and the run's last).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    every: u32,
    /// Pairs of games per generation and rung (default: the run config's
    /// `eval.baseline_pairs`).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pairs: Option<u64>,
}

pub fn run(a: Args, env: &super::Env) -> Result<()> {
    let mut run = Run::open(&a.run_dir, None)?;
    run.set_inference(env.inference);
    let pairs = a.pairs.unwrap_or(run.config.eval.baseline_pairs).max(1);
    let table = run.extend_ladder(&a.rung, a.every, pairs, &Bars::new())?;
    match table {
        Some(t) => println!(
            "{}: {} rated games, anchored on {}; `brandubh report --run-dir {}` draws them",
            a.run_dir.join("ratings.json").display(),
            t.games,
            t.anchor,
            a.run_dir.display()
        ),
        None => println!("no games to rate"),
    }
    Ok(())
}
