//! The training loop survives kill -9 at random moments: it resumes, every
//! iteration is recorded exactly once, and every file it left is readable.

use brandubh_rules::{splitmix64, RuleSet};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn start(run_dir: &std::path::Path) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_brandubh"))
        .args([
            "loop",
            "--config",
            concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny-run.toml"),
            "--run-dir",
        ])
        .arg(run_dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start brandubh loop")
}

#[test]
fn loop_resumes_after_kills_and_leaves_readable_files() {
    let dir = std::env::temp_dir().join(format!("brandubh-loop-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut seed = 0x5eed_u64;
    let mut kills = 0;
    for _ in 0..8 {
        seed = splitmix64(seed);
        let wait = Duration::from_millis(100 + seed % 900);
        let mut child = start(&dir);
        let t = Instant::now();
        let mut exited = false;
        while t.elapsed() < wait {
            if child.try_wait().unwrap().is_some() {
                exited = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        if exited {
            break;
        }
        child.kill().unwrap(); // SIGKILL on Unix
        child.wait().unwrap();
        kills += 1;
    }
    assert!(kills > 0, "the run should not finish before the first kill");
    let status = start(&dir).wait().unwrap();
    assert!(status.success(), "the resumed run finishes");

    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("state.json")).unwrap()).unwrap();
    assert_eq!(state["iteration"], 2);
    let log = std::fs::read_to_string(dir.join("generations.jsonl")).unwrap();
    let iters: Vec<u64> = log
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["iteration"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(iters, [1, 2], "each iteration recorded once");
    for l in std::fs::read_to_string(dir.join("generations.jsonl"))
        .unwrap()
        .lines()
    {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        assert_eq!(v["equal_time"][0]["ms"], 5, "{v}");
        assert!(v["equal_time"][0]["score"].is_number(), "{v}");
    }

    let rules = RuleSet::builtin("wtf").unwrap();
    let device = burn::tensor::Device::flex();
    for e in std::fs::read_dir(dir.join("checkpoints")).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        assert!(
            !name.starts_with("candidate"),
            "partial candidates are gone once the run ends: {name}"
        );
        if p.join("model.json").exists() {
            let (_, _, meta) =
                brandubh_model::load(&p, &rules, &device).unwrap_or_else(|x| panic!("{x}"));
            // Each trained checkpoint keeps exactly its own optimiser state.
            let adam: Vec<_> = std::fs::read_dir(&p)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|f| f.to_string_lossy().contains("adam-"))
                .collect();
            if meta.generation > 0 {
                assert_eq!(
                    adam,
                    [brandubh_train::trainer::optimizer_file(&p, meta.step)],
                    "{}",
                    p.display()
                );
            }
        }
    }
    let mut games = 0;
    let mut ids = std::collections::HashSet::new();
    for e in std::fs::read_dir(dir.join("selfplay")).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            let (g, errors) = brandubh_selfplay::read_dir(&p);
            assert!(errors.is_empty(), "{errors:?}");
            games += g.len();
            for x in &g {
                assert!(
                    ids.insert(x.game_id),
                    "game id {} twice in the run",
                    x.game_id
                );
            }
        }
    }
    assert_eq!(
        games, 16,
        "8 self-play games per iteration, none lost or doubled"
    );
    // Teacher games in the first iteration only, each once.
    let (teacher, errors) = brandubh_selfplay::read_dir(&dir.join("teacher/iter-0001"));
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(teacher.len(), 2);
    assert!(teacher
        .iter()
        .all(|g| g.model_id == "teacher:alphabeta:depth=1"));
    assert!(!dir.join("teacher/iter-0002").exists());
    let (mut ladder_files, mut timed_files) = (0, 0);
    for e in std::fs::read_dir(dir.join("arena")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "jsonl") {
            brandubh_eval::read_records(&p).unwrap();
            ladder_files += p.to_string_lossy().contains("-vs-ladder-") as usize;
            timed_files += p.to_string_lossy().contains("-equal-time-5ms") as usize;
        }
    }
    assert_eq!(ladder_files, 2, "one ladder match per iteration");
    assert_eq!(timed_files, 2, "one equal-time match per iteration");
    assert!(
        std::fs::read_dir(dir.join("tb")).unwrap().count() > 0,
        "TensorBoard event files"
    );
    serde_json::from_str::<serde_json::Value>(
        &std::fs::read_to_string(dir.join("ratings.json")).unwrap(),
    )
    .unwrap();
    std::fs::remove_dir_all(&dir).ok();
}
