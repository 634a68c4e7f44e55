//! A run split across processes that share only the run directory: one
//! learner and self-play workers that are killed with SIGKILL at random
//! moments and started again. The run still advances its generations,
//! every shard is whole and readable, no game is written twice, and the
//! shards written before the last training began were trained on.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const TINY_RUN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny-run.toml");

fn brandubh(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_brandubh"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start brandubh")
}

fn worker(dir: &Path, name: &str) -> Child {
    brandubh(&[
        "worker",
        "selfplay",
        "--run",
        dir.to_str().unwrap(),
        "--threads",
        "1",
        "--name",
        name,
    ])
}

/// Every games file under `selfplay/`, relative to the run directory.
fn shards(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir.join("selfplay")).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            for s in brandubh_selfplay::records::list_shards(&p) {
                out.push(s.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn workers_killed_at_random_and_restarted_feed_the_learner() {
    let dir = std::env::temp_dir().join(format!("brandubh-workers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut learner = brandubh(&[
        "worker",
        "learn",
        "--run",
        dir.to_str().unwrap(),
        "--config",
        TINY_RUN,
        "--poll-ms",
        "50",
    ]);
    let deadline = Instant::now() + Duration::from_secs(300);
    while !dir.join("state.json").exists() {
        assert!(
            Instant::now() < deadline,
            "the learner never created the run"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Workers killed and replaced at random; when the run is over, the
    // last ones see it and stop on their own.
    let (kills, started) =
        common::churn_workers(&mut learner, deadline, 0x3a7e, (100, 700), &mut |name| {
            worker(&dir, name)
        });
    assert!(kills >= 3, "only {kills} kills");

    // Each generation recorded once, with at least the config's games.
    let records: Vec<serde_json::Value> = std::fs::read_to_string(dir.join("generations.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let its: Vec<u64> = records
        .iter()
        .map(|r| r["iteration"].as_u64().unwrap())
        .collect();
    assert_eq!(its, vec![1, 2]);
    assert!(records.iter().all(|r| r["games"].as_u64().unwrap() >= 8));

    // Every shard reads whole; no game id twice, each in the workers' range.
    let all = shards(&dir);
    let mut ids = BTreeSet::new();
    for s in &all {
        let games = brandubh_selfplay::read_shard(&dir.join(s)).unwrap();
        assert!(!games.is_empty());
        for g in games {
            assert!(ids.insert(g.game_id), "game {} written twice", g.game_id);
            assert!(
                g.game_id % 1_000_000_000 >= 250_000_000,
                "{}: not a worker id",
                g.game_id
            );
        }
    }
    // Workers picked up the promoted net between shards: iteration 2's
    // games (played once the state named gen-0001) are all by gen-0001.
    let meta: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("checkpoints/gen-0001/model.json")).unwrap(),
    )
    .unwrap();
    let gen1 = &meta["content_hash"].as_str().unwrap()[..12];
    for s in all.iter().filter(|s| s.starts_with("selfplay/iter-0002")) {
        for g in brandubh_selfplay::read_shard(&dir.join(s)).unwrap() {
            assert_eq!(g.model_id, gen1, "{}", s.display());
        }
    }
    // Slots are never shared: one per worker process that got to claim one.
    let slots = std::fs::read_dir(dir.join("workers")).unwrap().count();
    assert!(slots <= started, "{slots} slots for {started} workers");

    // Every shard of iteration 1 was trained on by iteration 2, and each
    // window lists a shard once.
    let window = |it: u32| -> Vec<String> {
        let text = std::fs::read_to_string(dir.join(format!("selfplay/iter-{it:04}.window.json")))
            .unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v["shards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect()
    };
    let w2 = window(2);
    let distinct: BTreeSet<&String> = w2.iter().collect();
    assert_eq!(distinct.len(), w2.len(), "a shard listed twice: {w2:?}");
    // A worker that read the state just before iteration 1 ended may
    // land its shard in iteration 1 after iteration 2 began training; such
    // a shard is trained on from the next iteration on. Those written two
    // seconds or more before the window was recorded must be in it.
    let mtime = |p: &Path| std::fs::metadata(p).unwrap().modified().unwrap();
    let recorded = mtime(&dir.join("selfplay/iter-0002.window.json"));
    for s in all.iter().filter(|s| s.starts_with("selfplay/iter-0001")) {
        let early = mtime(&dir.join(s)) + Duration::from_secs(2) <= recorded;
        let s = s.display().to_string();
        assert!(
            distinct.contains(&s) || !early,
            "{s} was never trained on: {w2:?}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}
