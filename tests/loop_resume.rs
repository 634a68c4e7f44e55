//! The training loop survives kill -9 at random moments: it resumes, every
//! iteration is recorded exactly once, and every file it left is readable.

use brandubh_rules::{splitmix64, RuleSet};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const TINY_RUN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny-run.toml");

/// `brandubh loop` on the tiny run config.
fn start(run_dir: &Path) -> Child {
    start_with(Path::new(TINY_RUN), run_dir)
}

fn start_with(cfg: &Path, dir: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_brandubh"))
        .arg("loop")
        .arg("--config")
        .arg(cfg)
        .arg("--run-dir")
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start brandubh loop")
}

/// The lines of `generations.jsonl`.
fn generation_records(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("generations.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The ids of every game in a run's shards under `sub` (`selfplay` or
/// `teacher`), every shard readable.
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
    let records = generation_records(&dir);
    let iters: Vec<u64> = records
        .iter()
        .map(|v| v["iteration"].as_u64().unwrap())
        .collect();
    assert_eq!(iters, [1, 2], "each iteration recorded once");
    for v in &records {
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
                // Provenance in fields: the run, the parent net, the losses.
                let prov = &meta.provenance;
                assert!(
                    prov.run.is_some() && prov.policy_loss.is_some() && prov.lr.is_some(),
                    "{prov:?}"
                );
                let parent = format!("gen-{:04}", meta.generation - 1);
                let parent =
                    brandubh_model::read_meta(&dir.join("checkpoints").join(parent)).unwrap();
                assert_eq!(prov.parent.as_deref(), Some(parent.model_id().as_str()));
                assert_eq!(
                    adam,
                    [brandubh_train::trainer::optimizer_file(&p, meta.step)],
                    "{}",
                    p.display()
                );
            }
        }
    }
    let ids = games(&dir, "selfplay");
    let mut unique = ids.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "a game id twice in the run");
    assert_eq!(
        ids.len(),
        16,
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
            brandubh_arena::read_records(&p).unwrap();
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

/// The games of one shard directory, in shard order and, within a shard,
/// in the order they were written.
fn shard_games(dir: &Path) -> Vec<u64> {
    brandubh_selfplay::records::list_shards(dir)
        .iter()
        .flat_map(|p| brandubh_selfplay::records::read_shard(p).unwrap())
        .map(|g| g.game_id)
        .collect()
}

/// What a generation's line says, less its times and the timed rung (a
/// match played by the clock, which no seed fixes).
fn untimed(records: &[serde_json::Value]) -> Vec<serde_json::Value> {
    let mut out = records.to_vec();
    for r in &mut out {
        let o = r.as_object_mut().unwrap();
        o.retain(|k, _| !k.contains("seconds") && k != "equal_time");
    }
    out
}

/// The `content_hash` of a run's generation `g`.
fn net_hash(dir: &Path, g: u64) -> String {
    brandubh_model::read_meta(&dir.join(format!("checkpoints/gen-{g:04}")))
        .unwrap()
        .content_hash
}

/// A kill after some of a self-play phase's shards have landed changes
/// nothing: the resumed phase writes the games an unkilled one writes, in
/// the same shards, and the run ends with the same nets.
#[test]
fn a_kill_in_self_play_leaves_the_same_run_as_no_kill() {
    let base = std::env::temp_dir().join(format!("brandubh-replay-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let clean = base.join("clean");
    assert!(start(&clean).wait().unwrap().success());
    let shards = |dir: &Path, it: u32| {
        brandubh_selfplay::records::list_shards(&dir.join(format!("selfplay/iter-{it:04}"))).len()
    };
    let full = shards(&clean, 1);
    assert!(full >= 3, "the tiny run writes several shards per phase");
    // The iteration whose self-play has some but not all of its shards.
    let partial = |dir: &Path| (1..=2).find(|&it| (1..full).contains(&shards(dir, it)));
    // Kill as soon as a phase has part of its shards; a kill that comes too
    // late (the phase already whole) is tried again in a new directory.
    let mut cut = None;
    for attempt in 0..10 {
        let dir = base.join(format!("killed-{attempt}"));
        let mut child = start(&dir);
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(60)
            && child.try_wait().unwrap().is_none()
            && partial(&dir).is_none()
        {
            std::thread::sleep(Duration::from_millis(1));
        }
        let _ = child.kill();
        child.wait().unwrap();
        if let Some(it) = partial(&dir) {
            let kept = shards(&dir, it);
            cut = Some((dir, it, kept));
            break;
        }
    }
    let (dir, it, kept) = cut.expect("a kill lands inside a self-play phase in 10 tries");
    eprintln!("killed in iteration {it}'s self-play with {kept} of {full} shards written");
    assert!(
        start(&dir).wait().unwrap().success(),
        "the resumed run finishes"
    );
    for i in 1..=2 {
        let sub = format!("selfplay/iter-{i:04}");
        assert_eq!(
            shard_games(&dir.join(&sub)),
            shard_games(&clean.join(&sub)),
            "{sub}: the same games in the same shards"
        );
    }
    assert_eq!(
        untimed(&generation_records(&dir)),
        untimed(&generation_records(&clean))
    );
    assert_eq!(net_hash(&dir, 2), net_hash(&clean, 2), "the same final net");
    std::fs::remove_dir_all(&base).ok();
}

/// `eval.every = 2` plays no evaluation games in the generations it skips
/// and trains the same nets as evaluating every generation: with
/// `gating = "always"` the evaluation decides nothing.
#[test]
fn evaluating_every_other_generation_trains_the_same_nets() {
    let base = std::env::temp_dir().join(format!("brandubh-every-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    let text = std::fs::read_to_string(TINY_RUN).unwrap().replacen(
        "generations = 2",
        "generations = 3",
        1,
    );
    let each = base.join("each.toml");
    std::fs::write(&each, &text).unwrap();
    let sparse = base.join("sparse.toml");
    std::fs::write(&sparse, text.replacen("[eval]", "[eval]\nevery = 2", 1)).unwrap();
    let (a, b) = (base.join("each"), base.join("sparse"));
    assert!(start_with(&each, &a).wait().unwrap().success());
    assert!(start_with(&sparse, &b).wait().unwrap().success());
    for g in 1..=3 {
        assert_eq!(net_hash(&a, g), net_hash(&b, g), "generation {g}");
    }
    let arena = |dir: &Path, it: u32| {
        std::fs::read_dir(dir.join("arena"))
            .unwrap()
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                name.to_string_lossy()
                    .starts_with(&format!("iter-{it:04}-"))
            })
            .count()
    };
    // Generation 2 (every second) and 3 (the last) are evaluated, 1 is not.
    assert_eq!(arena(&b, 1), 0);
    assert_eq!(arena(&b, 2), arena(&a, 2));
    assert_eq!(arena(&b, 3), arena(&a, 3));
    assert!(arena(&a, 1) > 0);
    let recs = generation_records(&b);
    assert_eq!(recs.len(), 3);
    assert!(recs[0].get("score_vs_current").is_none(), "{}", recs[0]);
    assert!(recs[0].get("equal_time").is_none(), "{}", recs[0]);
    assert!(recs[1]["score_vs_current"].is_number(), "{}", recs[1]);
    assert!(recs[2]["score_vs_current"].is_number(), "{}", recs[2]);
    // The evaluated generations are rated (generation 1 too, as the net
    // generation 2 played).
    let ratings = std::fs::read_to_string(b.join("ratings.json")).unwrap();
    for g in ["gen-0002,", "gen-0003,"] {
        assert!(ratings.contains(g), "{g}: {ratings}");
    }
    std::fs::remove_dir_all(&base).ok();
}

// The kill campaign (ignored: `cargo test --release --test loop_resume --
// --ignored`): a tiny run of ten generations killed with SIGKILL twenty
// times, each kill aimed at a phase (self-play, training, evaluation, and
// the moment a generation is recorded and promoted) by watching the run's
// own files, then resumed to the end. Afterwards every file reads, every
// finished game is in exactly one shard, no generation is recorded twice,
// and the run is the one an unkilled run makes: the same generations but
// for their times, and the same last net. The default test run has the
// smaller versions above.
const GENERATIONS: u64 = 10;

fn config(dir: &Path) -> std::path::PathBuf {
    let text = std::fs::read_to_string(TINY_RUN).unwrap().replacen(
        "generations = 2",
        &format!("generations = {GENERATIONS}"),
        1,
    );
    let p = dir.with_extension("toml");
    std::fs::write(&p, text).unwrap();
    p
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

fn finish(cfg: &Path, dir: &Path) -> serde_json::Value {
    assert!(start_with(cfg, dir).wait().unwrap().success());
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
        let mut child = start_with(&cfg, &dir);
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
    let iters: Vec<u64> = generation_records(&dir)
        .iter()
        .map(|v| v["iteration"].as_u64().unwrap())
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
            brandubh_arena::read_records(&p).unwrap();
        }
    }
    // And the same run: the same lines but for times, the same last net.
    assert_eq!(
        untimed(&generation_records(&dir)),
        untimed(&generation_records(&clean))
    );
    assert_eq!(
        net_hash(&dir, GENERATIONS),
        net_hash(&clean, GENERATIONS),
        "the same last net as the unkilled run"
    );
    let rules = brandubh_rules::RuleSet::builtin("wtf").unwrap();
    for i in 0..=GENERATIONS {
        let p = dir.join(format!("checkpoints/gen-{i:04}"));
        brandubh_model::load(&p, &rules, &burn::tensor::Device::flex()).unwrap();
    }
    std::fs::remove_dir_all(&base).ok();
}

/// `brandubh train` trains the iteration in progress only when that
/// iteration's self-play is done, records the phase as the loop does, and
/// replaces an earlier candidate whole.
#[test]
fn train_command_trains_the_phase_in_progress_and_records_it() {
    let dir = std::env::temp_dir().join(format!("brandubh-train-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    assert!(start(&dir).wait().unwrap().success());
    let train = || {
        Command::new(env!("CARGO_BIN_EXE_brandubh"))
            .args(["train", "--steps", "5", "--run-dir"])
            .arg(&dir)
            .output()
            .unwrap()
    };
    let state_path = dir.join("state.json");
    let read_state = || -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(&state_path).unwrap()).unwrap()
    };

    // Between iterations there is nothing new to train on.
    let out = train();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("self-play"), "{err}");

    // As if the loop had stopped after iteration 2's self-play.
    let ckpts = dir.join("checkpoints");
    let step1 = brandubh_model::read_meta(&ckpts.join("gen-0001"))
        .unwrap()
        .step;
    let mut state = read_state();
    state["iteration"] = 1.into();
    state["phase"] = "train".into();
    state["global_step"] = step1.into();
    std::fs::write(&state_path, state.to_string()).unwrap();
    let out = train();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let state = read_state();
    assert_eq!(state["phase"], "eval", "{state}");
    assert_eq!(state["global_step"], step1 + 5, "{state}");
    let rules = RuleSet::builtin("wtf").unwrap();
    let (_, _, meta) = brandubh_model::load(
        &ckpts.join("gen-0002"),
        &rules,
        &burn::tensor::Device::flex(),
    )
    .unwrap_or_else(|x| panic!("{x}"));
    assert_eq!((meta.generation, meta.step), (2, step1 + 5));
    for e in std::fs::read_dir(&ckpts).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().to_string();
        assert!(name.starts_with("gen-"), "left behind: {name}");
    }

    // The candidate now waits for its evaluation.
    let out = train();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("evaluation"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `brandubh ladder` plays the chosen generations against a new rung with
/// the run's evaluation settings, adds the games to the run's ratings, and
/// plays nothing again when called again; a bad rung is refused before any
/// game is played.
#[test]
fn ladder_adds_a_rung_to_a_finished_run() {
    let dir = std::env::temp_dir().join(format!("brandubh-ladder-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    assert!(start(&dir).wait().unwrap().success());
    let ladder = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_brandubh"))
            .arg("ladder")
            .arg("--run-dir")
            .arg(&dir)
            .args(args)
            .output()
            .unwrap()
    };
    let rated = || -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join("ratings.json")).unwrap()).unwrap()
    };
    let games_before = rated()["games"].as_u64().unwrap();

    let out = ladder(&["--rung", "alphabeta:dept=4"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("dept"), "{err}");
    assert_eq!(rated()["games"].as_u64().unwrap(), games_before);

    let args = [
        "--rung",
        "alphabeta:depth=4",
        "--every",
        "1",
        "--pairs",
        "2",
    ];
    let out = ladder(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let files: Vec<_> = (1..=2)
        .map(|g| {
            dir.join("arena")
                .join(format!("iter-{g:04}-vs-rung-alphabeta-depth-4.jsonl"))
        })
        .collect();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert_eq!(text.lines().count(), 4, "{}", f.display());
        assert!(text.contains("alphabeta:depth=4"), "{text}");
    }
    let table = rated();
    assert_eq!(table["games"].as_u64().unwrap(), games_before + 8);
    assert!(
        table["ratings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["player"] == "alphabeta:depth=4"),
        "{table}"
    );

    // Called again, it finds the matches played and plays none.
    let stamps: Vec<_> = files
        .iter()
        .map(|f| std::fs::metadata(f).unwrap().modified().unwrap())
        .collect();
    assert!(ladder(&args).status.success());
    for (f, t) in files.iter().zip(&stamps) {
        assert_eq!(std::fs::metadata(f).unwrap().modified().unwrap(), *t);
    }
    assert_eq!(rated()["games"].as_u64().unwrap(), games_before + 8);
    std::fs::remove_dir_all(&dir).ok();
}
