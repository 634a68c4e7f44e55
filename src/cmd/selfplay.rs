use anyhow::{bail, Context, Result};
use brandubh_selfplay::{records::next_game_id, records::next_shard_index};
use brandubh_selfplay::{
    run_selfplay_against, write_shard, Opponents, SelfPlayConfig, SelfPlayJob,
};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::sync::Arc;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Rule set name or path to a TOML file.
    #[arg(long, default_value = "wtf")]
    rules: String,
    /// A model directory, or `uniform` (equal priors, even value).
    #[arg(long, default_value = "uniform")]
    model: String,
    /// Games to play.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    games: u64,
    /// Self-play settings (TOML, see configs/selfplay/default.toml).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Directory for the Parquet shards.
    #[arg(long, default_value = "selfplay-out")]
    out: PathBuf,
    /// Search threads (default: all cores), 1 to 256.
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256))]
    threads: Option<usize>,
    /// Games searched at once = evaluation batch size (overrides the
    /// config), 1 to 4096.
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=4096))]
    batch: Option<usize>,
    /// Seed for every random choice.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// An alpha-beta player (with `depth=` or `nodes=`, e.g.
    /// `alphabeta:depth=5`) that plays one side of the config's
    /// `opponent_share` of the games, the side `opponent_plays` says
    /// (docs/selfplay.md).
    #[arg(long, value_name = "SPEC")]
    opponent: Option<String>,
}

pub fn run(a: Args, env: &super::Env) -> Result<()> {
    let rules = Arc::new(super::load_rules(&a.rules)?);
    let mut cfg = match &a.config {
        Some(p) => SelfPlayConfig::from_file(p)?,
        None => SelfPlayConfig::default(),
    };
    if let Some(b) = a.batch {
        cfg.concurrent_games = b.max(1);
    }
    let opponent = match (&a.opponent, cfg.opponent_share > 0.0) {
        (Some(spec), true) => Some(
            brandubh_train::opponent::AlphaBetaOpponent::new(spec, rules.clone())
                .map_err(|e| anyhow::anyhow!("--opponent {e}"))?,
        ),
        (Some(_), false) => bail!(
            "--opponent: the self-play config's opponent_share is 0, so the opponent would play no game; set opponent_share in --config"
        ),
        (None, true) => bail!(
            "the self-play config's opponent_share is {}: name the opponent with --opponent SPEC",
            cfg.opponent_share
        ),
        (None, false) => None,
    };
    let evaluator = env.models().load(&a.model, &rules)?;
    let threads = a.threads.unwrap_or_else(brandubh_play::all_cores);
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    let mut shard = next_shard_index(&a.out);
    let bar = ProgressBar::new(a.games);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games  {msg}  eta {eta}")
            .expect("valid template"),
    );
    let mut pending = Vec::new();
    let mut write_error = None;
    let stats = run_selfplay_against(
        rules.clone(),
        evaluator.as_ref(),
        Opponents {
            past: &[],
            fixed: opponent
                .as_ref()
                .map(|o| o as &dyn brandubh_selfplay::Opponent),
        },
        &cfg,
        SelfPlayJob {
            games: a.games,
            seed: a.seed,
            first_id: next_game_id(&a.out),
            threads,
        },
        &mut |g, st| {
            pending.push(g);
            bar.inc(1);
            bar.set_message(format!(
                "{:.2} games/s  {:.0} evals/s",
                st.games as f64 / st.seconds.max(1e-9),
                st.evaluations as f64 / st.seconds.max(1e-9)
            ));
            if pending.len() >= cfg.games_per_shard && write_error.is_none() {
                match write_shard(&a.out, shard, &pending) {
                    Ok(_) => {
                        shard += 1;
                        pending.clear();
                    }
                    Err(e) => write_error = Some(e),
                }
            }
        },
    );
    if let Some(e) = write_error {
        return Err(e.into());
    }
    if !pending.is_empty() {
        write_shard(&a.out, shard, &pending)?;
    }
    bar.finish_and_clear();
    let n = stats.games.max(1) as f64;
    println!(
        "{} games under {} with {}: attackers {} ({:.1} %), defenders {} ({:.1} %), draws {}, unfinished {}",
        stats.games,
        rules.name(),
        evaluator.id(),
        stats.attacker_wins,
        100.0 * stats.attacker_wins as f64 / n,
        stats.defender_wins,
        100.0 * stats.defender_wins as f64 / n,
        stats.draws,
        stats.unfinished
    );
    println!(
        "mean length {:.1} plies; endings: {:?}",
        stats.mean_length(),
        stats.reasons
    );
    println!(
        "{:.1} s: {:.2} games/s, {:.0} evaluations/s, mean batch fill {:.1} % ({:.1} % before the final drain), evaluator {:.1} % of wall time",
        stats.seconds,
        stats.games as f64 / stats.seconds.max(1e-9),
        stats.evaluations as f64 / stats.seconds.max(1e-9),
        100.0 * stats.mean_fill(),
        100.0 * stats.steady_fill(),
        100.0 * stats.eval_seconds / stats.seconds.max(1e-9)
    );
    println!("shards in {}", a.out.display());
    Ok(())
}
