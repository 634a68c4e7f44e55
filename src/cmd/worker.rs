use super::run_loop::{open_run, Bars};
use anyhow::Result;
use brandubh_train::store::RunStore;
use brandubh_train::worker::{run_worker, WorkerOptions};
use brandubh_train::Progress;
use std::path::PathBuf;
use std::time::Duration;

/// The two roles of a run split across processes. They share only the
/// run directory (a local one, or a volume every machine mounts), so any
/// number of self-play workers can be started and killed at any time;
/// `brandubh loop` is both roles in one process.
#[derive(clap::Subcommand, Debug)]
pub enum Role {
    /// Play self-play games with the run's current net and write them as
    /// shards of the run, shard after shard, until the run ends. Stateless:
    /// a kill loses at most the shard in flight.
    Selfplay(SelfplayArgs),
    /// Train, evaluate and promote as `brandubh loop` does, taking the
    /// self-play games from workers: each iteration trains once the
    /// workers have written the config's `selfplay_games`.
    Learn(LearnArgs),
}

#[derive(clap::Args, Debug)]
pub struct SelfplayArgs {
    /// The run (the learner creates it): its directory, a file:// URL, or
    /// s3://bucket/prefix (with the `s3` feature, on by default; credentials,
    /// region and endpoint from the usual AWS_* variables).
    #[arg(long)]
    run: String,
    /// Where a worker on an object store keeps the nets it fetched and the
    /// shard it is writing (default: a directory under the system's
    /// temporary directory, one per process).
    #[arg(long)]
    cache_dir: Option<PathBuf>,
    /// Games per shard (default: the run config's `games_per_shard`).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    games_per_shard: Option<u64>,
    /// Threads (default: the run config's `threads`; 0 = every core), at
    /// most 256.
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=256))]
    threads: Option<usize>,
    /// This worker's name in logs and its slot file (default: host and pid).
    #[arg(long)]
    name: Option<String>,
    /// Stop after this many shards (default: run until the run ends).
    #[arg(long)]
    max_shards: Option<u64>,
}

#[derive(clap::Args, Debug)]
pub struct LearnArgs {
    /// The run: its directory, a file:// URL, or s3://bucket/prefix (with
    /// the `s3` feature, on by default); created from --config (or the
    /// built-in default config) when it holds no run yet.
    #[arg(long)]
    run: String,
    /// For a run in an object store: the learner's working copy of it,
    /// fetched from the store when missing (keep it on a persistent volume
    /// to resume without fetching).
    #[arg(long, default_value = "runs/learner")]
    work_dir: PathBuf,
    /// Run config (TOML) for a new run.
    #[arg(long)]
    config: Option<PathBuf>,
    /// How often to look for new shards, in milliseconds.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=600_000))]
    poll_ms: u64,
}

/// One line per event, with no bars: workers run unattended.
struct Lines;

impl Progress for Lines {
    fn phase(&self, _: &str, _: u64) {}
    fn inc(&self, _: u64, _: &str) {}
    fn done(&self) {}
    fn line(&self, text: &str) {
        println!("{text}");
    }
}

pub fn run(role: Role, env: &super::Env) -> Result<()> {
    match role {
        Role::Selfplay(a) => {
            let name = a.name.unwrap_or_else(|| {
                let host = std::env::var("HOSTNAME").unwrap_or_else(|_| "worker".into());
                format!("{host}-{}", std::process::id())
            });
            let opts = WorkerOptions {
                name,
                games_per_shard: a.games_per_shard.map(|n| n as usize),
                threads: a.threads,
                max_shards: a.max_shards,
                cache_dir: a.cache_dir.unwrap_or_else(|| {
                    std::env::temp_dir().join(format!("brandubh-worker-{}", std::process::id()))
                }),
                inference: env.inference,
            };
            let r = run_worker(&a.run, &opts, &Lines)?;
            let secs = (r.play_seconds + r.storage_seconds + r.load_seconds).max(1e-9);
            println!(
                "worker {}: {} shards, {} games, {} positions; {:.0} games/hour; play {:.1} s, \
                 storage {:.3} s ({:.1} ms a shard), loading nets {:.1} s",
                opts.name,
                r.shards,
                r.games,
                r.positions,
                r.games as f64 * 3600.0 / secs,
                r.play_seconds,
                r.storage_seconds,
                1000.0 * r.storage_seconds / r.shards.max(1) as f64,
                r.load_seconds
            );
            Ok(())
        }
        Role::Learn(a) => {
            let store = RunStore::open(&a.run)?;
            let mut run = match store.local_dir() {
                Some(dir) => open_run(&a.config, None, None, dir, None)?,
                None => {
                    // The working copy is the learner's own and never
                    // behind the store (it publishes after writing), so the
                    // run is fetched only into an empty one.
                    let fresh = !a.work_dir.join("config.toml").exists();
                    if fresh && store.get("config.toml")?.is_some() {
                        let n = store.pull("", &a.work_dir)?;
                        println!(
                            "{}: fetched {n} files of the run into {}",
                            store.url(),
                            a.work_dir.display()
                        );
                    }
                    let mut run = open_run(&a.config, None, None, &a.work_dir, None)?;
                    run.mirror_to(store)?;
                    run
                }
            };
            run.learn_from_workers(Duration::from_millis(a.poll_ms));
            run.set_inference(env.inference);
            run.run(&Bars::new())?;
            println!(
                "run complete: {} iterations; current net {}",
                run.state.iteration, run.state.current
            );
            Ok(())
        }
    }
}
