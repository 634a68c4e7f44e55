//! Self-play workers: processes that share a run only through its
//! directory. A worker reads the run's config and state, plays a shard of
//! games with the current net, writes the shard under a name of its own
//! into the directory of the iteration it played for, and starts again; it
//! picks up a newly promoted net between shards. It keeps no state of its
//! own: a worker killed at any moment loses the shard in flight and
//! nothing else, and any number of them can come and go. The learner
//! (`Run` with workers on) trains once an iteration's directory holds the
//! config's `selfplay_games`.
//!
//! Each worker claims a slot, `workers/slot-NNNNN`, created only if absent
//! (the one step two workers could race on, settled by the file system).
//! The slot numbers its shards and game ids, so they are unique over the
//! run without the workers talking to each other.

use crate::config::RunConfig;
use crate::run::{io, past_generation_names, Progress, RunError, RunState, GAME_IDS_PER_ITERATION};
use crate::store::RunStore;
use brandubh_mcts::Evaluator;
use brandubh_rules::{splitmix64, RuleSet};
use brandubh_selfplay::records::write_shard_named;
use brandubh_selfplay::{run_selfplay_against, Opponents, SelfPlayJob};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Worker game ids of iteration `it` start at `it * GAME_IDS_PER_ITERATION`
/// plus this, past the ids `brandubh loop` gives (from 0) and below the
/// teacher's (from half the range).
pub const WORKER_IDS_OFFSET: u64 = GAME_IDS_PER_ITERATION / 4;

/// Game ids a slot may use in one iteration; a worker that would need more
/// claims a fresh slot.
pub const IDS_PER_SLOT: u64 = 10_000;

/// The highest slot number (so that slot ids stay inside their range).
pub const MAX_SLOTS: u64 = (GAME_IDS_PER_ITERATION / 2 - WORKER_IDS_OFFSET) / IDS_PER_SLOT;

/// How a self-play worker runs.
#[derive(Clone, Debug)]
pub struct WorkerOptions {
    /// A name for logs and the slot file (a host or pod name, say).
    pub name: String,
    /// Games per shard (default: the run config's `games_per_shard`).
    pub games_per_shard: Option<usize>,
    /// Threads (default: the run config's `threads`; 0 = every core).
    pub threads: Option<usize>,
    /// Stop after this many shards (default: run until the run ends).
    pub max_shards: Option<u64>,
    /// Where a worker on an object store keeps the nets it fetched and
    /// the shard it is writing (unused for a local run directory).
    pub cache_dir: PathBuf,
    /// The engine nets run on (none: the environment's choice, else the
    /// faster one for the width).
    pub inference: Option<brandubh_model::InferenceEngine>,
}

/// What a worker did, for its log and for throughput figures.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WorkerReport {
    pub slot: u64,
    pub shards: u64,
    pub games: u64,
    pub positions: u64,
    /// Seconds spent playing games.
    pub play_seconds: f64,
    /// Seconds spent on the run's files: reading the state, writing shards.
    pub storage_seconds: f64,
    /// Seconds spent loading nets.
    pub load_seconds: f64,
}

/// Reads a run's config as a worker sees it: the run must exist (the
/// learner creates it).
pub fn read_config(store: &RunStore) -> Result<RunConfig, RunError> {
    let Some(text) = store.get("config.toml")? else {
        return Err(RunError::State(format!(
            "{}: no run here yet; start the learner first (`brandubh worker learn --run {} \
             --config FILE`) or give the run's own directory",
            store.url(),
            store.url()
        )));
    };
    let file = format!("{}/config.toml", store.url());
    let text = String::from_utf8(text).map_err(|_| RunError::BadFile {
        path: file.clone().into(),
        why: "not UTF-8".into(),
    })?;
    Ok(RunConfig::from_toml(&text, &file)?)
}

fn read_state(store: &RunStore) -> Result<RunState, RunError> {
    let path = PathBuf::from(format!("{}/state.json", store.url()));
    let Some(bytes) = store.get("state.json")? else {
        return Err(RunError::State(format!(
            "{}: the run has a config but no state yet; is its learner starting?",
            store.url()
        )));
    };
    serde_json::from_slice(&bytes).map_err(|x| RunError::BadFile {
        path,
        why: x.to_string(),
    })
}

/// Claims the lowest free slot at or above the number of slots already
/// taken; returns its number.
fn claim_slot(store: &RunStore, name: &str) -> Result<u64, RunError> {
    let taken = store.list("workers")?.len() as u64;
    for n in taken..MAX_SLOTS {
        let line = serde_json::json!({
            "name": name,
            "pid": std::process::id(),
            "claimed_unix": std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        });
        if store.put_new(
            &format!("workers/slot-{n:05}"),
            format!("{line}\n").as_bytes(),
        )? {
            return Ok(n);
        }
    }
    Err(RunError::State(format!(
        "{}/workers: all {MAX_SLOTS} worker slots are taken",
        store.url()
    )))
}

/// The checkpoint `name` as a local directory: the run's own for a local
/// store, else fetched whole into `cache` (once).
fn fetch_checkpoint(store: &RunStore, name: &str, cache: &Path) -> Result<PathBuf, RunError> {
    if let Some(dir) = store.local_dir() {
        return Ok(dir.join("checkpoints").join(name));
    }
    let local = cache.join("checkpoints").join(name);
    if local.join("model.json").exists() {
        return Ok(local);
    }
    let prefix = format!("checkpoints/{name}");
    let mut entries = store.list(&prefix)?;
    if !entries.iter().any(|e| e.path.ends_with("/model.json")) {
        return Err(RunError::State(format!(
            "{}/{prefix}: the run's current net is not in the store",
            store.url()
        )));
    }
    // model.json last: a kill leaves no directory that looks whole.
    entries.sort_by_key(|e| e.path.ends_with("/model.json"));
    for e in entries {
        let rel = e
            .path
            .strip_prefix(&format!("{prefix}/"))
            .unwrap_or(&e.path);
        store.download(&e.path, &local.join(rel))?;
    }
    Ok(local)
}

/// Removes temporary files that killed workers left in `dir` (an hour
/// old or more: a live writer's are seconds old).
fn clear_stale_temps(dir: &Path) {
    let hour = Duration::from_secs(3600);
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = entry.path();
        let stale = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age >= hour);
        if stale && p.to_string_lossy().ends_with(".tmp") {
            let _ = std::fs::remove_file(&p);
        }
    }
}

/// Plays shards for the run in `dir` until it ends (or `max_shards`).
pub fn run_worker(
    run: &str,
    opts: &WorkerOptions,
    progress: &dyn Progress,
) -> Result<WorkerReport, RunError> {
    let store = RunStore::open(run)?;
    let config = read_config(&store)?;
    let rules = Arc::new(RuleSet::named(&config.rules)?);
    let threads = match opts.threads.unwrap_or(config.threads) {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    let per_shard = opts
        .games_per_shard
        .unwrap_or(config.selfplay.games_per_shard)
        .max(1) as u64;
    if per_shard > IDS_PER_SLOT {
        return Err(RunError::State(format!(
            "--games-per-shard {per_shard}: at most {IDS_PER_SLOT}"
        )));
    }
    let mut report = WorkerReport {
        slot: claim_slot(&store, &opts.name)?,
        ..WorkerReport::default()
    };
    progress.line(&format!(
        "worker {} (slot {}): {} games a shard, {threads} threads, run {}",
        opts.name,
        report.slot,
        per_shard,
        store.url()
    ));
    let mut net: Option<(String, Arc<dyn Evaluator>)> = None;
    // The past nets of `past_share`, for the net named first.
    let mut past: Option<(String, Vec<Arc<dyn Evaluator>>)> = None;
    // Games this slot played for the iteration `slot_iteration`.
    let mut slot_iteration = 0;
    let mut slot_games = 0;
    while opts.max_shards.is_none_or(|m| report.shards < m) {
        let t = Instant::now();
        let state = read_state(&store)?;
        report.storage_seconds += t.elapsed().as_secs_f64();
        if state.iteration >= config.generations {
            progress.line(&format!(
                "worker {}: the run has finished its {} generations",
                opts.name, config.generations
            ));
            break;
        }
        let it = state.iteration + 1;
        if it != slot_iteration {
            slot_iteration = it;
            slot_games = 0;
        }
        if slot_games + per_shard > IDS_PER_SLOT {
            report.slot = claim_slot(&store, &opts.name)?;
            slot_games = 0;
        }
        if net.as_ref().is_none_or(|(name, _)| *name != state.current) {
            let t = Instant::now();
            let ckpt = fetch_checkpoint(&store, &state.current, &opts.cache_dir)?;
            let ev = brandubh_model::load_evaluator_on(&ckpt, &rules, opts.inference)?;
            report.load_seconds += t.elapsed().as_secs_f64();
            progress.line(&format!(
                "worker {}: playing with {} ({})",
                opts.name,
                state.current,
                ev.id()
            ));
            net = Some((state.current.clone(), ev));
        }
        let (net_name, evaluator) = net.as_ref().expect("loaded above");
        let selfplay = config.selfplay_at(it);
        if past.as_ref().is_none_or(|(name, _)| name != net_name) {
            let mut nets = Vec::new();
            if selfplay.past_share > 0.0 {
                for name in past_generation_names(net_name, selfplay.past_generations) {
                    let ckpt = fetch_checkpoint(&store, &name, &opts.cache_dir)?;
                    nets.push(brandubh_model::load_evaluator_on(
                        &ckpt,
                        &rules,
                        opts.inference,
                    )?);
                }
            }
            past = Some((net_name.clone(), nets));
        }
        let past_nets: Vec<&dyn brandubh_mcts::Evaluator> = past
            .as_ref()
            .map(|(_, nets)| nets.iter().map(|e| e.as_ref()).collect())
            .unwrap_or_default();
        // A local run's shards are written in place (whole, by rename); an
        // object store's are written here first, then uploaded.
        let rel = format!("selfplay/iter-{it:04}");
        let out_dir: PathBuf = match store.local_dir() {
            Some(dir) => dir.join(&rel),
            None => opts.cache_dir.join("outgoing"),
        };
        std::fs::create_dir_all(&out_dir).map_err(io(&out_dir))?;
        clear_stale_temps(&out_dir);
        let first_id = it as u64 * GAME_IDS_PER_ITERATION
            + WORKER_IDS_OFFSET
            + report.slot * IDS_PER_SLOT
            + slot_games;
        let seed =
            splitmix64(config.seed ^ splitmix64(0x3a7e_0000 + report.slot) ^ splitmix64(first_id));
        let t = Instant::now();
        let mut games = Vec::new();
        let fixed = crate::opponent::for_generation(config.opponent.as_ref(), &selfplay, &rules)
            .map_err(RunError::Games)?;
        run_selfplay_against(
            rules.clone(),
            evaluator.as_ref(),
            Opponents {
                past: &past_nets,
                fixed: fixed
                    .as_ref()
                    .map(|f| f as &dyn brandubh_selfplay::Opponent),
            },
            &selfplay,
            SelfPlayJob {
                games: per_shard,
                seed,
                first_id,
                threads,
            },
            &mut |g, _| games.push(g),
        );
        let play = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let stem = format!("shard-w{:05}-{:06}", report.slot, slot_games / per_shard);
        write_shard_named(&out_dir, &stem, &games)?;
        if store.local_dir().is_none() {
            // Positions first, games last: the games file is the shard.
            for kind in ["positions", "games"] {
                let file = out_dir.join(format!("{stem}.{kind}.parquet"));
                store.upload(&file, &format!("{rel}/{stem}.{kind}.parquet"))?;
                let _ = std::fs::remove_file(&file);
            }
        }
        let store_secs = t.elapsed().as_secs_f64();
        report.play_seconds += play;
        report.storage_seconds += store_secs;
        report.shards += 1;
        report.games += games.len() as u64;
        report.positions += games.iter().map(|g| g.positions.len() as u64).sum::<u64>();
        slot_games += per_shard;
        progress.line(&format!(
            "worker {}: iteration {it}, {stem}: {} games with {net_name} in {play:.1} s, \
             written in {:.0} ms",
            opts.name,
            games.len(),
            store_secs * 1000.0
        ));
    }
    Ok(report)
}
