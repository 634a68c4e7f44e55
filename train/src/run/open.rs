//! Opening a run directory: its config, its folders, its state, and a new
//! run's generation 0 (random weights, or a trained net's weights saved
//! for the run's rules with `loop --from`).

use super::*;

impl Run {
    /// Opens a run directory, creating it (with generation 0) from `config`
    /// if it holds no run yet. An existing run keeps its own config; a
    /// different `config_text` is refused rather than silently mixed.
    pub fn open(dir: &Path, config_text: Option<(&str, &str)>) -> Result<Run, RunError> {
        Run::open_from(dir, config_text, None)
    }

    /// Sets the length of the run in `dir` to `generations` in its
    /// `config.toml`: a finished run then goes on when resumed, or an
    /// unfinished one stops sooner. Refused below the generations already
    /// finished. The learning rate's cosine spans the new length from the
    /// next step on (it is a function of the step and the run's length).
    pub fn set_generations(dir: &Path, generations: u32) -> Result<(), RunError> {
        let cfg_path = dir.join("config.toml");
        let text = std::fs::read_to_string(&cfg_path).map_err(io(&cfg_path))?;
        let new_text =
            crate::config::with_top_level(&text, "generations", &generations.to_string());
        let source = cfg_path.display().to_string();
        let old = RunConfig::from_toml(&text, &source)?;
        RunConfig::from_toml(&new_text, &source)?;
        if old.generations == generations {
            return Ok(());
        }
        let state_path = dir.join("state.json");
        if state_path.exists() {
            let state = read_state(&state_path)?;
            if generations < state.iteration {
                return Err(RunError::State(format!(
                    "{}: {} generations are already finished; a run cannot be shortened to {generations}",
                    dir.display(),
                    state.iteration
                )));
            }
        }
        write_atomic(&cfg_path, new_text.as_bytes())
    }

    /// As `open`, but a new run's generation 0 is the net in checkpoint
    /// directory `start` (fine-tuning it, for the run's rules) instead of
    /// random weights. Its shape must be the config's `[net]`; the net may
    /// have been trained for another rule set (the encoding is the same).
    /// An existing run ignores `start`.
    pub fn open_from(
        dir: &Path,
        config_text: Option<(&str, &str)>,
        start: Option<&Path>,
    ) -> Result<Run, RunError> {
        let cfg_path = dir.join("config.toml");
        let existing = cfg_path.exists();
        // Errors name the file the text came from: the run's own copy,
        // or for a new run the config given.
        let (text, source) = if existing {
            let t = std::fs::read_to_string(&cfg_path).map_err(io(&cfg_path))?;
            if let Some((given, file)) = config_text {
                let a = RunConfig::from_toml(given, file)?;
                let b = RunConfig::from_toml(&t, &cfg_path.display().to_string())?;
                if a != b {
                    return Err(RunError::State(format!(
                        "{} already holds a run with a different config; resume it without --config or choose another --run-dir",
                        dir.display()
                    )));
                }
            }
            (t, cfg_path.display().to_string())
        } else {
            let (t, file) = config_text.ok_or_else(|| {
                RunError::State(format!(
                    "{}: no run here and no config given",
                    dir.display()
                ))
            })?;
            (t.to_string(), file.to_string())
        };
        let config = RunConfig::from_toml(&text, &source)?;
        let rules = Arc::new(RuleSet::named(&config.rules)?);
        let threads = if config.threads == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            config.threads
        };
        for sub in ["checkpoints", "selfplay", "arena", "tb"] {
            let sub = dir.join(sub);
            std::fs::create_dir_all(&sub).map_err(io(&sub))?;
        }
        if !existing {
            write_atomic(&cfg_path, text.as_bytes())?;
        }
        let state_path = dir.join("state.json");
        let state = if state_path.exists() {
            read_state(&state_path)?
        } else {
            generation_zero(dir, &config, &rules, start)?;
            let s = RunState {
                iteration: 0,
                current: ckpt_name(0),
                phase: Phase::SelfPlay,
                global_step: 0,
            };
            write_atomic(&state_path, json(&s, true).as_bytes())?;
            s
        };
        Ok(Run {
            dir: dir.to_path_buf(),
            config,
            rules,
            state,
            threads,
            workers: None,
            mirror: None,
            inference: None,
            players: players_on(None),
        })
    }
}

/// A run's `state.json`.
fn read_state(path: &Path) -> Result<RunState, RunError> {
    let s = std::fs::read_to_string(path).map_err(io(path))?;
    serde_json::from_str(&s).map_err(|x| RunError::BadFile {
        path: path.to_path_buf(),
        why: x.to_string(),
    })
}

/// Writes `DIR/checkpoints/gen-0000`, from `start` when given (its shape
/// must be the config's `[net]`).
fn generation_zero(
    dir: &Path,
    config: &RunConfig,
    rules: &RuleSet,
    start: Option<&Path>,
) -> Result<(), RunError> {
    let device = Device::flex();
    device.seed(config.seed);
    let (net, nc, note) = match start {
        None => {
            let nc = config.net.config();
            let net = nc.init(&device);
            (net, nc, "a run's generation 0: random weights".to_string())
        }
        Some(from) => {
            let meta = brandubh_model::read_meta(from)?;
            if meta.net != config.net {
                return Err(RunError::State(format!(
                    "{}: its net is {:?}, the run config's [net] is {:?}; fine-tuning needs the same shape",
                    from.display(),
                    meta.net,
                    config.net
                )));
            }
            let own = RuleSet::named(&meta.rules)?;
            let (net, nc, meta) = brandubh_model::load(from, &own, &device)?;
            let note = format!(
                "a run's generation 0: {} (net {}, trained for {}), to be fine-tuned",
                from.display(),
                meta.model_id(),
                meta.rules
            );
            (net, nc, note)
        }
    };
    save(
        &dir.join("checkpoints").join(ckpt_name(0)),
        &net,
        &nc,
        rules,
        0,
        0,
        brandubh_model::Provenance {
            note,
            seed: Some(config.seed),
            run: dir.file_name().map(|n| n.to_string_lossy().into_owned()),
            ..Default::default()
        },
    )?;
    Ok(())
}
