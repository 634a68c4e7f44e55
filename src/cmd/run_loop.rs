use anyhow::{bail, Context, Result};
use brandubh_train::config::with_top_level;
use brandubh_train::{Progress, Run};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::sync::Mutex;

/// The built-in default run config.
pub const DEFAULT_RUN: &str = include_str!("../../configs/runs/default.toml");

#[derive(clap::Args, Debug)]
pub struct LoopArgs {
    /// Run config (TOML); default: configs/runs/default.toml (built in).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Run directory; an existing one is resumed where it stopped.
    #[arg(long, default_value = "runs/default")]
    run_dir: PathBuf,
    /// Rule set (name or file) in place of the config's `rules`, so that
    /// one config serves every rule set
    /// (`--config configs/runs/strong.toml --rules raven`). A run keeps its
    /// own config: resume it with `--run-dir` alone (or the same `--config`
    /// and `--rules`); `--rules` alone is checked against the run's.
    #[arg(long)]
    rules: Option<String>,
    /// A new run's generation 0 is this checkpoint instead of random
    /// weights: fine-tuning a net (another rule set's, say) for the run's
    /// rules. Its shape must be the config's `[net]`; a resumed run
    /// ignores it.
    #[arg(long, value_name = "CHECKPOINT")]
    from: Option<PathBuf>,
    /// A new run that forks this run after generation `--fork-at`: it
    /// starts with that run's checkpoints, games and records up to there
    /// and goes on under `--config` (default: that run's own config; with
    /// `--rules`, that rule set in it), which must keep its rule set and
    /// net shape. Two forks of one run measure a
    /// change to the pipeline (docs/training.md).
    #[arg(
        long,
        value_name = "RUN_DIR",
        requires = "fork_at",
        conflicts_with = "from"
    )]
    fork_from: Option<PathBuf>,
    /// The last generation a fork shares with `--fork-from`.
    #[arg(long, value_name = "GENERATION", requires = "fork_from",
          value_parser = clap::value_parser!(u32).range(1..))]
    fork_at: Option<u32>,
    /// Generations to run in place of the config's `generations`. On an
    /// existing run it changes the run's own config: a finished run goes
    /// on to this many (`--run-dir runs/raven --generations 46`); it
    /// cannot go below the generations already finished. The learning
    /// rate's cosine spans the new length from the next step on.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    generations: Option<u32>,
}

#[derive(clap::Args, Debug)]
pub struct TrainArgs {
    /// An existing run directory (see `brandubh loop`).
    #[arg(long)]
    run_dir: PathBuf,
    /// Steps to train (default: the run config's steps per generation),
    /// 1 to 100 000 000.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    steps: Option<u64>,
}

/// Progress bars on the terminal, one per phase.
pub struct Bars {
    bar: Mutex<Option<ProgressBar>>,
}

impl Bars {
    pub fn new() -> Bars {
        Bars {
            bar: Mutex::new(None),
        }
    }
}

impl Progress for Bars {
    fn phase(&self, name: &str, total: u64) {
        let b = ProgressBar::new(total);
        b.set_style(
            ProgressStyle::with_template("{prefix} {bar:30} {pos}/{len} {per_sec} eta {eta} {msg}")
                .expect("valid template"),
        );
        b.set_prefix(name.to_string());
        *self.bar.lock().expect("bar lock") = Some(b);
    }
    fn inc(&self, n: u64, message: &str) {
        if let Some(b) = self.bar.lock().expect("bar lock").as_ref() {
            b.inc(n);
            if !message.is_empty() {
                b.set_message(message.to_string());
            }
        }
    }
    fn done(&self) {
        if let Some(b) = self.bar.lock().expect("bar lock").take() {
            b.finish_and_clear();
        }
    }
    fn line(&self, text: &str) {
        match self.bar.lock().expect("bar lock").as_ref() {
            Some(b) => b.println(text),
            None => println!("{text}"),
        }
    }
}

/// A config file's text and its name for messages.
fn read_config(p: &std::path::Path) -> Result<(String, String)> {
    Ok((
        std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?,
        p.display().to_string(),
    ))
}

fn config_text(path: &Option<PathBuf>) -> Result<Option<(String, String)>> {
    path.as_deref().map(read_config).transpose()
}

/// A config (text, name) with its rule set replaced by `rules`.
fn renamed_rules((text, name): (String, String), rules: &str) -> (String, String) {
    (
        with_rules(&text, rules),
        format!("{name} with rules {rules}"),
    )
}

/// A config (text, name) with its length replaced by `generations`.
fn resized((text, name): (String, String), generations: u32) -> (String, String) {
    (
        with_top_level(&text, "generations", &generations.to_string()),
        format!("{name} with {generations} generations"),
    )
}

/// Opens the run in `dir` (a new one from `config`, or the built-in
/// default, when there is none yet) and says which. `generations`, when
/// given, replaces the config's length, and an existing run's own.
pub fn open_run(
    config: &Option<PathBuf>,
    rules: Option<&str>,
    generations: Option<u32>,
    dir: &std::path::Path,
    from: Option<&std::path::Path>,
) -> Result<Run> {
    let fresh = !dir.join("config.toml").exists();
    // A new run always starts from a config text; an existing one has its own.
    let mut given = match config_text(config)? {
        None if fresh => Some(default_config()),
        g => g,
    };
    if let Some(n) = generations {
        if !fresh {
            Run::set_generations(dir, n)?;
        }
        given = given.map(|c| resized(c, n));
    }
    // Resuming with `--rules` alone: the run keeps its own config, whose
    // rule set must be the one named.
    let check_rules = if !fresh && given.is_none() {
        rules
    } else {
        None
    };
    if let Some(r) = rules.filter(|_| check_rules.is_none()) {
        given = given.map(|c| renamed_rules(c, r));
    }
    let text = given.as_ref().map(|(t, f)| (t.as_str(), f.as_str()));
    let run = Run::open_from(dir, text, from)?;
    if let Some(r) = check_rules {
        let named = brandubh_rules::RuleSet::named(r)?;
        if named.hash != run.rules.hash {
            bail!(
                "{} holds a run for rules {} (its config.toml), not {r}",
                dir.display(),
                run.config.rules
            );
        }
    }
    println!(
        "{} run in {}: iteration {} of {}, self-play net {}",
        if fresh { "new" } else { "resuming" },
        dir.display(),
        run.state.iteration,
        run.config.generations,
        run.state.current
    );
    Ok(run)
}

/// The built-in default config (text, name).
fn default_config() -> (String, String) {
    (
        DEFAULT_RUN.to_string(),
        "configs/runs/default.toml".to_string(),
    )
}

/// The config text with its top-level `rules` line replaced (comments and
/// layout kept, so the run's copy still reads as the config did).
pub(crate) fn with_rules(text: &str, rules: &str) -> String {
    with_top_level(text, "rules", &toml_string(rules))
}

/// A TOML basic string.
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

pub fn run_loop(a: LoopArgs, env: &super::Env) -> Result<()> {
    let mut run = match (&a.fork_from, a.fork_at) {
        (Some(base), Some(at)) => {
            let mut given = config_text(&a.config)?;
            if a.rules.is_some() || a.generations.is_some() {
                let mut config = match given {
                    Some(g) => g,
                    None => read_config(&base.join("config.toml"))?,
                };
                if let Some(r) = &a.rules {
                    config = renamed_rules(config, r);
                }
                if let Some(n) = a.generations {
                    config = resized(config, n);
                    if a.run_dir.join("config.toml").exists() {
                        Run::set_generations(&a.run_dir, n)?;
                    }
                }
                given = Some(config);
            }
            let run = Run::fork(
                base,
                at,
                &a.run_dir,
                given.as_ref().map(|(t, f)| (t.as_str(), f.as_str())),
            )?;
            println!(
                "run in {}: a fork of {} after generation {at}, iteration {} of {}",
                a.run_dir.display(),
                base.display(),
                run.state.iteration,
                run.config.generations
            );
            run
        }
        _ => open_run(
            &a.config,
            a.rules.as_deref(),
            a.generations,
            &a.run_dir,
            a.from.as_deref(),
        )?,
    };
    run.set_inference(env.inference);
    run.run(&Bars::new())?;
    println!(
        "run complete: {} iterations; current net {}",
        run.state.iteration, run.state.current
    );
    // Where to look next.
    let dir = a.run_dir.display();
    let net = a.run_dir.join("checkpoints").join(&run.state.current);
    println!("  charts and table:  brandubh report --run-dir {dir}");
    println!(
        "  play the net:      brandubh play --rules {} --attackers human --defenders mcts:model={},ms=1000",
        run.config.rules,
        net.display()
    );
    println!(
        "  in the browser:    brandubh serve --runs {}",
        a.run_dir
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or(".".into(), |p| p.display().to_string())
    );
    println!(
        "  TensorBoard:       tensorboard --logdir {}",
        a.run_dir.join("tb").display()
    );
    Ok(())
}

pub fn run_train(a: TrainArgs, env: &super::Env) -> Result<()> {
    let mut run = Run::open(&a.run_dir, None)?;
    run.set_inference(env.inference);
    let mut tb = tensorboard_rs::summary_writer::SummaryWriter::new(a.run_dir.join("tb"));
    let it = run.train_only(a.steps, &Bars::new(), &mut tb)?;
    tb.flush();
    println!("trained candidate gen-{it:04} in {}", a.run_dir.display());
    Ok(())
}
