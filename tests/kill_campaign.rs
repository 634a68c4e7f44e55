//! The kill campaign (`cargo test --release --test kill_campaign -- --ignored`):
//! a tiny run of five generations killed with SIGKILL twenty times, each
//! kill aimed at a phase (self-play, training, evaluation, and the moment a
//! generation is recorded and promoted) by watching the run's own files,
//! then resumed to the end. Afterwards every file reads, every finished
//! game is in exactly one shard, no generation is recorded twice, and the
//! run took exactly the steps and games an unkilled run takes. The default
//! test run has a smaller version (`loop_resume.rs`).

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const GENERATIONS: u64 = 5;

fn config(dir: &Path) -> std::path::PathBuf {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/tiny-run.toml"
    ))
    .unwrap()
    .replacen(
        "generations = 2",
        &format!("generations = {GENERATIONS}"),
        1,
    );
    let p = dir.with_extension("toml");
    std::fs::write(&p, text).unwrap();
    p
}

fn start(cfg: &Path, dir: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_brandubh"))
        .arg("loop")
        .arg("--config")
        .arg(cfg)
        .arg("--run-dir")
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn phase(dir: &Path) -> Option<(u64, String)> {
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("state.json")).ok()?).ok()?;
    Some((s["iteration"].as_u64()?, s["phase"].as_str()?.to_string()))
}

fn recorded(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("generations.jsonl"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

/// Every game of the run's shards (self-play and teacher), by id.
fn games(dir: &Path, sub: &str) -> Vec<u64> {
    let mut ids = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir.join(sub)) else {
        return ids;
    };
    for e in rd {
        let p = e.unwrap().path();
        if p.is_dir() {
            let (g, errors) = brandubh_selfplay::read_dir(&p);
            assert!(errors.is_empty(), "{errors:?}");
            ids.extend(g.iter().map(|g| g.game_id));
        }
    }
    ids
}

fn finish(cfg: &Path, dir: &Path) -> serde_json::Value {
    assert!(start(cfg, dir).wait().unwrap().success());
    serde_json::from_str(&std::fs::read_to_string(dir.join("state.json")).unwrap()).unwrap()
}

#[test]
#[ignore]
fn twenty_kills_aimed_at_every_phase() {
    let base = std::env::temp_dir().join(format!("brandubh-kills-{}", std::process::id()));
    let (dir, clean) = (base.join("killed"), base.join("clean"));
    std::fs::create_dir_all(&base).unwrap();
    let cfg = config(&base.join("tiny"));
    let targets = ["self_play", "train", "eval", "record"];
    let mut landed: Vec<(String, String)> = Vec::new();
    let mut k = 0;
    while landed.len() < 20 {
        let target = targets[k % targets.len()];
        k += 1;
        let before = recorded(&dir);
        let mut child = start(&cfg, &dir);
        let t = Instant::now();
        let mut hit = None;
        while t.elapsed() < Duration::from_secs(120) {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            let now = phase(&dir);
            let aimed = match target {
                "record" => recorded(&dir) > before,
                p => {
                    now.as_ref().is_some_and(|(_, ph)| ph == p)
                        && t.elapsed() > Duration::from_millis(150)
                }
            };
            if aimed {
                // A little later for the long phases, so kills spread over them.
                if target != "record" {
                    std::thread::sleep(Duration::from_millis(30 * (k as u64 % 7)));
                }
                hit = Some(format!("{now:?}"));
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        if child.try_wait().unwrap().is_some() {
            break; // the run finished before this kill could land
        }
        child.kill().unwrap();
        child.wait().unwrap();
        landed.push((target.to_string(), hit.unwrap_or_else(|| "timeout".into())));
    }
    let state = finish(&cfg, &dir);
    let clean_state = finish(&cfg, &clean);
    for (t, at) in &landed {
        eprintln!("kill aimed at {t:8} landed at {at}");
    }
    eprintln!("{} kills", landed.len());
    assert!(
        landed.len() >= 16,
        "most kills land before the run ends: {landed:?}"
    );
    for t in targets {
        assert!(landed.iter().any(|(x, _)| x == t), "no kill aimed at {t}");
    }
    // The same end as an unkilled run: generations, steps, games.
    assert_eq!(state["iteration"], GENERATIONS);
    assert_eq!(state["global_step"], clean_state["global_step"]);
    let log = std::fs::read_to_string(dir.join("generations.jsonl")).unwrap();
    let iters: Vec<u64> = log
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["iteration"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(
        iters,
        (1..=GENERATIONS).collect::<Vec<_>>(),
        "each generation once"
    );
    for sub in ["selfplay", "teacher"] {
        let mut ids = games(&dir, sub);
        let n = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), n, "{sub}: a game id twice");
        assert_eq!(
            n,
            games(&clean, sub).len(),
            "{sub}: as many games as the unkilled run"
        );
    }
    for e in std::fs::read_dir(dir.join("arena")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "jsonl") {
            brandubh_eval::read_records(&p).unwrap();
        }
    }
    let rules = brandubh_rules::RuleSet::builtin("wtf").unwrap();
    for i in 0..=GENERATIONS {
        let p = dir.join(format!("checkpoints/gen-{i:04}"));
        brandubh_model::load(&p, &rules, &burn::tensor::Device::flex()).unwrap();
    }
    std::fs::remove_dir_all(&base).ok();
}
