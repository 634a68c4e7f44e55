use anyhow::{bail, Result};
use brandubh_alphabeta::{evaluation::EvalWeights, time::Limits, Searcher};
use serde_json::json;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    game: super::GameArgs,
    /// Stop after this depth (1–64).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
    depth: Option<u32>,
    /// Stop after this many milliseconds (default 1000 when no limit is
    /// given; at most a day).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    ms: Option<u64>,
    /// Stop after this many nodes.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
    /// Transposition table size in MiB (1–16384).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=16_384))]
    tt: u64,
    /// Evaluation weights (TOML); default: the rule set's built-in weights
    /// (configs/eval/RULES.toml where one exists, else configs/eval/default.toml).
    #[arg(long)]
    eval: Option<std::path::PathBuf>,
    /// Search threads (Lazy SMP; 1–256). Default: every core when the
    /// search is limited by time, else 1, so that a depth or node limit
    /// gives the same result every time.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=256))]
    threads: Option<u64>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<()> {
    let (rules, game) = a.game.load()?;
    if game.is_over() {
        bail!("the game is over: nothing to search");
    }
    let weights = match &a.eval {
        None => EvalWeights::builtin(rules.name()),
        Some(p) => EvalWeights::from_file(p)?,
    };
    let mut limits = Limits {
        depth: a.depth,
        nodes: a.nodes,
        millis: a.ms,
    };
    if limits == Limits::default() {
        limits.millis = Some(1000);
    }
    let mut s = Searcher::new(rules.clone(), weights, a.tt as usize);
    s.set_threads(
        a.threads
            .map_or_else(|| limits.default_threads(), |n| n as usize),
    );
    let r = s.search(&game, limits);
    let pv: Vec<String> = r.pv.iter().map(|m| m.to_string()).collect();
    let nps = r.nodes as f64 / r.seconds.max(1e-9);
    if a.json {
        println!(
            "{}",
            json!({"rules": rules.name(), "best": r.best.to_string(), "score": r.score, "depth": r.depth, "threads": s.threads(),
                   "nodes": r.nodes, "seconds": r.seconds, "nodes_per_second": nps, "pv": pv})
        );
    } else {
        println!(
            "best {}  score {}  depth {}  nodes {}  {:.3} s  {:.2} M nodes/s  threads {}\npv {}",
            r.best,
            r.score,
            r.depth,
            r.nodes,
            r.seconds,
            nps / 1e6,
            s.threads(),
            pv.join(" ")
        );
    }
    Ok(())
}
