//! Forking a run: a new run directory that holds another run as it stood
//! after generation N — its checkpoints, self-play and teacher shards,
//! arena games and records up to there — and goes on under a config of its
//! own. Two forks of one run differ only by their configs from generation
//! N + 1 on, which is how a change to the pipeline is measured.

use super::*;

/// What `fork.json` in a forked run records.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ForkRecord {
    /// The run it was forked from, as given.
    pub from: String,
    /// The last generation it shares with that run.
    pub generation: u32,
}

/// The files and folders of `base` that belong to iterations up to `at`
/// (relative paths), and its checkpoints `gen-0000 ..= gen-{at}`.
fn shared_paths(base: &Path, at: u32) -> Result<Vec<PathBuf>, RunError> {
    let mut out = Vec::new();
    for g in 0..=at {
        let p = PathBuf::from("checkpoints").join(ckpt_name(g));
        if !base.join(&p).is_dir() {
            return Err(RunError::State(format!(
                "{}: no checkpoint {} to fork from",
                base.display(),
                p.display()
            )));
        }
        out.push(p);
    }
    for sub in ["selfplay", "teacher", "arena"] {
        let dir = base.join(sub);
        if !dir.is_dir() {
            continue;
        }
        for entry in std::fs::read_dir(&dir).map_err(io(&dir))?.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            // iter-NNNN, iter-NNNN.timing.json, iter-NNNN-vs-baseline.jsonl …
            let it = name
                .strip_prefix("iter-")
                .and_then(|r| r.get(..4))
                .and_then(|n| n.parse::<u32>().ok());
            if it.is_some_and(|it| it >= 1 && it <= at) {
                out.push(PathBuf::from(sub).join(name));
            }
        }
    }
    Ok(out)
}

/// Copies a file, or a folder with everything in it.
fn copy_tree(from: &Path, to: &Path) -> Result<(), RunError> {
    if from.is_dir() {
        std::fs::create_dir_all(to).map_err(io(to))?;
        for entry in std::fs::read_dir(from).map_err(io(from))?.flatten() {
            copy_tree(&entry.path(), &to.join(entry.file_name()))?;
        }
        Ok(())
    } else {
        std::fs::copy(from, to).map(|_| ()).map_err(io(to))
    }
}

impl Run {
    /// Creates run `dir` as a fork of run `base` after its generation `at`,
    /// going on under `config_text` (the base's own config when `None`).
    /// The config must keep the base's rule set and net shape. `dir` must
    /// not hold another run; the same fork again resumes it, and a fork cut
    /// short by a kill is made again from the start. The new run's `config.toml` is written last, so a directory
    /// without one is never taken for a run.
    pub fn fork(
        base: &Path,
        at: u32,
        dir: &Path,
        config_text: Option<(&str, &str)>,
    ) -> Result<Run, RunError> {
        if dir.join("config.toml").exists() {
            // The same fork again resumes it, like any run.
            let same = std::fs::read_to_string(dir.join("fork.json"))
                .ok()
                .and_then(|t| serde_json::from_str::<ForkRecord>(&t).ok())
                .is_some_and(|f| f.from == base.display().to_string() && f.generation == at);
            if !same {
                return Err(RunError::State(format!(
                    "{} already holds a run that is not this fork; a fork needs a new --run-dir",
                    dir.display()
                )));
            }
            return Run::open(dir, config_text);
        }
        let base_cfg_path = base.join("config.toml");
        let base_text = std::fs::read_to_string(&base_cfg_path).map_err(io(&base_cfg_path))?;
        let base_config = RunConfig::from_toml(&base_text, &base_cfg_path.display().to_string())?;
        let (text, source) = match config_text {
            Some((t, f)) => (t.to_string(), f.to_string()),
            None => (base_text.clone(), base_cfg_path.display().to_string()),
        };
        let config = RunConfig::from_toml(&text, &source)?;
        let (rules, base_rules) = (
            RuleSet::named(&config.rules)?,
            RuleSet::named(&base_config.rules)?,
        );
        if rules.hash != base_rules.hash {
            return Err(RunError::State(format!(
                "{source}: rules {} differ from the run's ({}); a fork keeps the rule set",
                config.rules, base_config.rules
            )));
        }
        // A fork may add outputs the training grows onto the base's nets.
        if !base_config.net.grows_into(&config.net) {
            return Err(RunError::State(format!(
                "{source}: [net] {:?} differs from the run's {:?}; a fork keeps the net's shape (it may only add moves_left or side_value_heads)",
                config.net, base_config.net
            )));
        }
        let records: Vec<IterationRecord> = recorded_iterations(base)
            .into_iter()
            .filter(|r| r.iteration <= at)
            .collect();
        let Some(last) = records.iter().find(|r| r.iteration == at).cloned() else {
            return Err(RunError::State(format!(
                "{}: generation {at} is not finished (its generations.jsonl has no line for it)",
                base.display()
            )));
        };
        if at == 0 {
            return Err(RunError::State(
                "fork after generation 1 or later: generation 0 is a new run".into(),
            ));
        }
        // The global step after generation `at`: its candidate's training step.
        let step = read_meta(&base.join("checkpoints").join(&last.candidate))?.step;
        let paths = shared_paths(base, at)?;
        // A fork cut short left only the folders made here: clear them.
        for sub in ["checkpoints", "selfplay", "teacher", "arena", "tb"] {
            let _ = std::fs::remove_dir_all(dir.join(sub));
        }
        for f in [
            "generations.jsonl",
            "state.json",
            "ratings.json",
            "fork.json",
        ] {
            let _ = std::fs::remove_file(dir.join(f));
        }
        for p in &paths {
            if let Some(parent) = dir.join(p).parent() {
                std::fs::create_dir_all(parent).map_err(io(parent))?;
            }
            copy_tree(&base.join(p), &dir.join(p))?;
        }
        // The base's own lines, as written.
        let lines: String = std::fs::read_to_string(base.join("generations.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter(|l| serde_json::from_str::<IterationRecord>(l).is_ok_and(|r| r.iteration <= at))
            .map(|l| format!("{l}\n"))
            .collect();
        write_atomic(&dir.join("generations.jsonl"), lines.as_bytes())?;
        let state = RunState {
            iteration: at,
            current: if last.promoted {
                last.candidate.clone()
            } else {
                last.selfplay_net.clone()
            },
            phase: Phase::SelfPlay,
            global_step: step,
        };
        write_atomic(&dir.join("state.json"), json(&state, true).as_bytes())?;
        let record = ForkRecord {
            from: base.display().to_string(),
            generation: at,
        };
        write_atomic(&dir.join("fork.json"), json(&record, true).as_bytes())?;
        write_atomic(&dir.join("config.toml"), text.as_bytes())?;
        let run = Run::open(dir, None)?;
        run.write_ratings()?;
        Ok(run)
    }
}
