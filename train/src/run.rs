//! The training run: generation after generation, self-play with the
//! current net, train a candidate on the replay window, evaluate it against
//! the current net and the fixed baseline, record, go on.
//!
//! Everything needed to resume lives in the run directory and is written
//! atomically: `state.json` names the phase in progress; self-play shards
//! appear whole or not at all; the candidate is checkpointed every few
//! steps. A kill at any moment loses at most the games, training steps or
//! evaluation games in flight.

use crate::config::RunConfig;
use crate::data::{draw_batch, window};
use crate::trainer::{optimizer_file, Trainer};
use brandubh_eval::arena::{run_match, MatchConfig};
use brandubh_eval::ratings::{rate, RatingTable};
use brandubh_eval::{read_records, GameRecord, PlayerSpec};
use brandubh_model::{load, read_meta, save, NetConfig};
use brandubh_rules::{splitmix64, RuleSet};
use brandubh_selfplay::records::{
    list_shards, next_game_id, next_shard_index, read_dir, read_shard,
};
use brandubh_selfplay::{run_selfplay, write_shard, SelfPlayJob};
use burn::tensor::Device;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;
use tensorboard_rs::summary_writer::SummaryWriter;

/// Progress reporting, implemented by the binary (progress bars).
pub trait Progress: Sync {
    fn phase(&self, name: &str, total: u64);
    fn inc(&self, n: u64, message: &str);
    fn done(&self);
    fn line(&self, text: &str);
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    SelfPlay,
    Train,
    Eval,
}

/// What `state.json` holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunState {
    /// Iterations finished.
    pub iteration: u32,
    /// Checkpoint (under `checkpoints/`) that plays self-play now.
    pub current: String,
    /// The phase in progress of iteration `iteration + 1`.
    pub phase: Phase,
    /// Optimiser steps so far over the whole run.
    pub global_step: u64,
}

/// What the evaluation phase measured.
struct EvalOutcome {
    /// Score and Elo against the current net.
    score: f64,
    elo: f64,
    /// Score and Elo against the baseline, when it was played.
    base: Option<(f64, f64)>,
    equal_time: Vec<EqualTime>,
}

/// The candidate as `mcts:…,ms=T` against `alphabeta:ms=T`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EqualTime {
    pub ms: u64,
    pub pairs: u64,
    pub score: f64,
    pub elo: f64,
    pub elo_ci95: [f64; 2],
}

/// One finished iteration, appended to `generations.jsonl`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct IterationRecord {
    pub iteration: u32,
    pub selfplay_net: String,
    pub candidate: String,
    pub promoted: bool,
    pub selfplay_seconds: f64,
    pub train_seconds: f64,
    pub eval_seconds: f64,
    pub games: u64,
    pub attacker_share: f64,
    pub defender_share: f64,
    pub draw_share: f64,
    pub mean_length: f64,
    pub score_vs_current: f64,
    pub elo_vs_current: f64,
    pub score_vs_baseline: Option<f64>,
    pub elo_vs_baseline: Option<f64>,
    pub final_policy_loss: f32,
    pub final_value_loss: f32,
    /// Matches at equal time against alpha-beta (`eval.equal_time_ms`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub equal_time: Vec<EqualTime>,
}

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct RunError(pub String);

fn e(x: impl std::fmt::Display) -> RunError {
    RunError(x.to_string())
}

pub struct Run {
    pub dir: PathBuf,
    pub config: RunConfig,
    pub rules: Arc<RuleSet>,
    pub state: RunState,
    threads: usize,
}

/// Self-play game ids of iteration `it` start at `it` times this.
pub const GAME_IDS_PER_ITERATION: u64 = 1_000_000_000;

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), RunError> {
    brandubh_selfplay::durable::write(path, bytes)
        .map_err(|x| RunError(format!("{}: {x}", path.display())))
}

fn append_line(path: &Path, line: &str) -> Result<(), RunError> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|x| RunError(format!("{}: {x}", path.display())))?;
    writeln!(f, "{line}")
        .and_then(|_| f.sync_all())
        .map_err(|x| RunError(format!("{}: {x}", path.display())))
}

fn ckpt_name(i: u32) -> String {
    format!("gen-{i:04}")
}

impl Run {
    /// Opens a run directory, creating it (with generation 0) from `config`
    /// if it holds no run yet. An existing run keeps its own config; a
    /// different `config_text` is refused rather than silently mixed.
    pub fn open(dir: &Path, config_text: Option<(&str, &str)>) -> Result<Run, RunError> {
        let cfg_path = dir.join("config.toml");
        let existing = cfg_path.exists();
        let text = if existing {
            let t = std::fs::read_to_string(&cfg_path)
                .map_err(|x| RunError(format!("{}: {x}", cfg_path.display())))?;
            if let Some((given, file)) = config_text {
                let a = RunConfig::from_toml(given, file).map_err(RunError)?;
                let b =
                    RunConfig::from_toml(&t, &cfg_path.display().to_string()).map_err(RunError)?;
                if a != b {
                    return Err(RunError(format!(
                        "{} already holds a run with a different config; resume it without --config or choose another --run-dir",
                        dir.display()
                    )));
                }
            }
            t
        } else {
            let (t, _) = config_text.ok_or_else(|| {
                RunError(format!(
                    "{}: no run here and no config given",
                    dir.display()
                ))
            })?;
            t.to_string()
        };
        let config =
            RunConfig::from_toml(&text, &cfg_path.display().to_string()).map_err(RunError)?;
        let rules = Arc::new(RuleSet::named(&config.rules).map_err(e)?);
        let threads = if config.threads == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            config.threads
        };
        for sub in ["checkpoints", "selfplay", "arena", "tb"] {
            std::fs::create_dir_all(dir.join(sub))
                .map_err(|x| RunError(format!("{}: {x}", dir.join(sub).display())))?;
        }
        if !existing {
            write_atomic(&cfg_path, text.as_bytes())?;
        }
        let state_path = dir.join("state.json");
        let state = if state_path.exists() {
            let s = std::fs::read_to_string(&state_path).map_err(e)?;
            serde_json::from_str(&s)
                .map_err(|x| RunError(format!("{}: {x}", state_path.display())))?
        } else {
            let device = Device::flex();
            device.seed(config.seed);
            let nc = net_config(&config);
            let net = nc.init(&device);
            save(
                &dir.join("checkpoints").join(ckpt_name(0)),
                &net,
                &nc,
                &rules,
                0,
                0,
                &format!("run seed {}", config.seed),
            )
            .map_err(e)?;
            let s = RunState {
                iteration: 0,
                current: ckpt_name(0),
                phase: Phase::SelfPlay,
                global_step: 0,
            };
            write_atomic(
                &state_path,
                serde_json::to_string_pretty(&s).map_err(e)?.as_bytes(),
            )?;
            s
        };
        Ok(Run {
            dir: dir.to_path_buf(),
            config,
            rules,
            state,
            threads,
        })
    }

    fn save_state(&self) -> Result<(), RunError> {
        write_atomic(
            &self.dir.join("state.json"),
            serde_json::to_string_pretty(&self.state)
                .map_err(e)?
                .as_bytes(),
        )
    }

    fn ckpt(&self, name: &str) -> PathBuf {
        self.dir.join("checkpoints").join(name)
    }

    /// Partial candidates (`checkpoints/candidate-STEP/`), newest first. Each
    /// is written into a fresh directory, weights first and `model.json`
    /// last, so one with its metadata is whole; a kill can only leave an
    /// unfinished newest one behind, never spoil an older one.
    fn partial_candidates(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = std::fs::read_dir(self.dir.join("checkpoints"))
            .map(|rd| {
                rd.flatten()
                    .map(|e| e.path())
                    .filter(|p| {
                        p.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| n.starts_with("candidate"))
                    })
                    .collect()
            })
            .unwrap_or_default();
        out.sort();
        out.reverse();
        out
    }

    fn teacher_dir(&self, iteration: u32) -> PathBuf {
        self.dir
            .join("teacher")
            .join(format!("iter-{iteration:04}"))
    }

    /// The teacher's games of iteration `it`, when the config asks for
    /// them: played after the self-play games, resumable in the same way.
    fn teacher_phase(&self, it: u32, progress: &dyn Progress) -> Result<(), RunError> {
        let Some(t) = self.config.teacher.clone() else {
            return Ok(());
        };
        if it > t.generations || t.games == 0 {
            return Ok(());
        }
        let dir = self.teacher_dir(it);
        std::fs::create_dir_all(&dir).map_err(e)?;
        for entry in std::fs::read_dir(&dir).map_err(e)?.flatten() {
            let p = entry.path();
            if p.to_string_lossy().ends_with(".tmp") {
                let _ = std::fs::remove_file(&p);
            }
        }
        let (have, _) = read_dir(&dir);
        let done = have.len() as u64;
        if done >= t.games {
            return Ok(());
        }
        progress.phase(
            &format!("iteration {it}: teacher games ({})", t.player),
            t.games,
        );
        progress.inc(done, "");
        let seed = splitmix64(self.config.seed ^ 0x7eac ^ splitmix64(it as u64));
        let id_base = it as u64 * GAME_IDS_PER_ITERATION + GAME_IDS_PER_ITERATION / 2;
        let per_shard = self.config.selfplay.games_per_shard.max(1) as u64;
        let mut k = done;
        while k < t.games {
            let end = (k + per_shard).min(t.games);
            let games = crate::teacher::play_teacher_games(
                &self.rules,
                &t,
                &self.config.selfplay,
                k..end,
                seed,
                id_base,
                self.threads,
            )
            .map_err(RunError)?;
            write_shard(&dir, next_shard_index(&dir), &games).map_err(e)?;
            progress.inc(end - k, "");
            k = end;
        }
        progress.done();
        Ok(())
    }

    fn selfplay_dir(&self, iteration: u32) -> PathBuf {
        self.dir
            .join("selfplay")
            .join(format!("iter-{iteration:04}"))
    }

    /// Runs iterations until `config.generations` are done.
    pub fn run(&mut self, progress: &dyn Progress) -> Result<(), RunError> {
        let mut tb = SummaryWriter::new(self.dir.join("tb"));
        while self.state.iteration < self.config.generations {
            self.iteration(progress, &mut tb)?;
            tb.flush();
        }
        Ok(())
    }

    fn iteration(
        &mut self,
        progress: &dyn Progress,
        tb: &mut SummaryWriter,
    ) -> Result<(), RunError> {
        let it = self.state.iteration + 1;
        let timing_path = self.dir.join(format!("selfplay/iter-{it:04}.timing.json"));
        let t0 = Instant::now();
        if self.state.phase == Phase::SelfPlay {
            self.selfplay_phase(it, progress, tb)?;
            self.teacher_phase(it, progress)?;
            write_atomic(
                &timing_path,
                format!("{{\"selfplay_seconds\": {}}}", t0.elapsed().as_secs_f64()).as_bytes(),
            )?;
            self.state.phase = Phase::Train;
            self.save_state()?;
        }
        let selfplay_seconds = std::fs::read_to_string(&timing_path)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v["selfplay_seconds"].as_f64())
            .unwrap_or(0.0);
        let t1 = Instant::now();
        let candidate = ckpt_name(it);
        if self.state.phase == Phase::Train {
            self.train_phase(it, None, progress, tb)?;
            self.state.phase = Phase::Eval;
            self.save_state()?;
        }
        let train_seconds = t1.elapsed().as_secs_f64();
        let t2 = Instant::now();
        let EvalOutcome {
            score,
            elo,
            base,
            equal_time,
        } = self.eval_phase(it, progress)?;
        let eval_seconds = t2.elapsed().as_secs_f64();
        let promoted =
            self.config.eval.gating == "always" || score >= self.config.eval.promote_score;
        // Self-play statistics of this iteration's games.
        let (games, errors) = read_dir(&self.selfplay_dir(it));
        for x in errors {
            progress.line(&format!("warning: skipped {x}"));
        }
        let n = games.len().max(1) as f64;
        let share = |r: &str| games.iter().filter(|g| g.result_str() == r).count() as f64 / n;
        let meta = read_meta(&self.ckpt(&candidate)).map_err(e)?;
        let rec = IterationRecord {
            iteration: it,
            selfplay_net: self.state.current.clone(),
            candidate: candidate.clone(),
            promoted,
            selfplay_seconds,
            train_seconds,
            eval_seconds,
            games: games.len() as u64,
            attacker_share: share("attackers_win"),
            defender_share: share("defenders_win"),
            draw_share: share("draw"),
            mean_length: games.iter().map(|g| g.plies as f64).sum::<f64>() / n,
            score_vs_current: score,
            elo_vs_current: elo,
            score_vs_baseline: base.map(|b| b.0),
            elo_vs_baseline: base.map(|b| b.1),
            final_policy_loss: meta.provenance_loss(0),
            final_value_loss: meta.provenance_loss(1),
            equal_time,
        };
        let step = it as usize;
        tb.add_scalar("selfplay/attacker_share", rec.attacker_share as f32, step);
        tb.add_scalar("selfplay/defender_share", rec.defender_share as f32, step);
        tb.add_scalar("selfplay/draw_share", rec.draw_share as f32, step);
        tb.add_scalar("selfplay/mean_length", rec.mean_length as f32, step);
        tb.add_scalar("eval/score_vs_current", score as f32, step);
        if let Some((s, el)) = base {
            tb.add_scalar("eval/score_vs_baseline", s as f32, step);
            tb.add_scalar("eval/elo_vs_baseline", el as f32, step);
        }
        tb.add_scalar("time/selfplay_seconds", selfplay_seconds as f32, step);
        tb.add_scalar("time/train_seconds", train_seconds as f32, step);
        tb.add_scalar("time/eval_seconds", eval_seconds as f32, step);
        // Idempotent: a kill after this line but before the state is saved
        // must not record the iteration twice.
        let log = self.dir.join("generations.jsonl");
        let already = std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<IterationRecord>(l).ok())
            .any(|r| r.iteration == it);
        if !already {
            append_line(&log, &serde_json::to_string(&rec).map_err(e)?)?;
        }
        progress.line(&format!(
            "iteration {it}: self-play {:.0} s ({} games, attackers {:.0} %, defenders {:.0} %, {:.0} plies), train {:.0} s (policy {:.3}, value {:.3}), eval {:.0} s: vs current {:.0} % ({:+.0} Elo){}{}",
            selfplay_seconds,
            rec.games,
            100.0 * rec.attacker_share,
            100.0 * rec.defender_share,
            rec.mean_length,
            train_seconds,
            rec.final_policy_loss,
            rec.final_value_loss,
            eval_seconds,
            100.0 * score,
            elo,
            base.map_or(String::new(), |(s, el)| format!(", vs {} {:.0} % ({el:+.0} Elo)", self.config.eval.baseline, 100.0 * s)),
            if promoted { ", promoted" } else { ", kept the current net" }
        ));
        self.state.iteration = it;
        if promoted {
            self.state.current = candidate;
        }
        self.state.phase = Phase::SelfPlay;
        self.save_state()?;
        if let Some(table) = self.write_ratings()? {
            let me = self.mcts_spec(&self.ckpt(&ckpt_name(it)));
            if let Some(r) = table.ratings.iter().find(|r| r.player == me) {
                tb.add_scalar("eval/rating", r.elo as f32, step);
                progress.line(&format!(
                    "iteration {it}: rated {:+.0} ± {:.0} Elo against {} (all arena games so far)",
                    r.elo, r.ci95, table.anchor
                ));
            }
        }
        Ok(())
    }

    fn selfplay_phase(
        &mut self,
        it: u32,
        progress: &dyn Progress,
        tb: &mut SummaryWriter,
    ) -> Result<(), RunError> {
        let dir = self.selfplay_dir(it);
        std::fs::create_dir_all(&dir).map_err(e)?;
        // Remove shards a kill left unfinished.
        for entry in std::fs::read_dir(&dir).map_err(e)?.flatten() {
            let p = entry.path();
            if p.to_string_lossy().ends_with(".tmp") {
                let _ = std::fs::remove_file(&p);
            }
        }
        let done: u64 = list_shards(&dir)
            .iter()
            .filter_map(|p| read_shard(p).ok())
            .map(|g| g.len() as u64)
            .sum();
        let total = self.config.selfplay_games;
        if done >= total {
            return Ok(());
        }
        let evaluator =
            brandubh_model::load_evaluator(&self.ckpt(&self.state.current), &self.rules)
                .map_err(RunError)?;
        progress.phase(&format!("iteration {it}: self-play"), total);
        progress.inc(done, "");
        let seed = splitmix64(self.config.seed ^ splitmix64(it as u64) ^ splitmix64(done + 7));
        let mut shard = next_shard_index(&dir);
        let mut pending = Vec::new();
        let mut failure = None;
        let per_shard = self.config.selfplay.games_per_shard.max(1);
        let stats = run_selfplay(
            self.rules.clone(),
            evaluator.as_ref(),
            &self.config.selfplay,
            SelfPlayJob {
                games: total - done,
                seed,
                // Ids unique over the run: each iteration has its own range,
                // and a resumed phase goes on after the ids already written.
                first_id: next_game_id(&dir).max(it as u64 * GAME_IDS_PER_ITERATION),
                threads: self.threads,
            },
            &mut |g, st| {
                pending.push(g);
                progress.inc(
                    1,
                    &format!(
                        "{:.0} evals/s",
                        st.evaluations as f64 / st.seconds.max(1e-9)
                    ),
                );
                if pending.len() >= per_shard && failure.is_none() {
                    match write_shard(&dir, shard, &pending) {
                        Ok(_) => {
                            shard += 1;
                            pending.clear();
                        }
                        Err(x) => failure = Some(x),
                    }
                }
            },
        );
        if let Some(x) = failure {
            return Err(e(x));
        }
        if !pending.is_empty() {
            write_shard(&dir, shard, &pending).map_err(e)?;
        }
        progress.done();
        tb.add_scalar(
            "selfplay/games_per_second",
            (stats.games as f64 / stats.seconds.max(1e-9)) as f32,
            it as usize,
        );
        tb.add_scalar(
            "selfplay/evaluations_per_second",
            (stats.evaluations as f64 / stats.seconds.max(1e-9)) as f32,
            it as usize,
        );
        tb.add_scalar("selfplay/batch_fill", stats.mean_fill() as f32, it as usize);
        Ok(())
    }

    /// Trains the candidate of iteration `it` (resuming a partial one);
    /// `steps` overrides the config's steps per generation.
    pub fn train_phase(
        &mut self,
        it: u32,
        steps: Option<u64>,
        progress: &dyn Progress,
        tb: &mut SummaryWriter,
    ) -> Result<(), RunError> {
        let target = steps.unwrap_or(self.config.train.steps_per_generation);
        let out = self.ckpt(&ckpt_name(it));
        // A finished candidate of this iteration means the phase is done
        // (a kill came before the state was saved).
        if let Ok(m) = read_meta(&out) {
            if m.generation == it && steps.is_none() {
                self.state.global_step = m.step;
                return Ok(());
            }
        }
        let device = Device::flex().autodiff();
        // Start from the newest whole partial candidate of this iteration
        // if there is one; any other partial is an unfinished write or stale.
        let whole = |p: &Path| {
            read_meta(p)
                .ok()
                .filter(|m| m.generation == it)
                .and_then(|_| load(p, &self.rules, &device).ok())
        };
        let mut resume = None;
        for p in self.partial_candidates() {
            match resume.is_none().then(|| whole(&p)).flatten() {
                Some(loaded) => resume = Some((p, loaded)),
                None => std::fs::remove_dir_all(&p).map_err(e)?,
            }
        }
        let (start_dir, done, (net, config, start_meta)) = match resume {
            Some((p, loaded)) => {
                let done = loaded.2.step.saturating_sub(self.state.global_step);
                (p, done, loaded)
            }
            None => {
                let dir = self.ckpt(&self.state.current);
                let loaded = load(&dir, &self.rules, &device).map_err(e)?;
                (dir, 0, loaded)
            }
        };
        let mut trainer = Trainer::new(net, config, device, self.config.train.weight_decay);
        // Adam's moments carry on from the checkpoint we start from (each
        // checkpoint the loop writes has its optimiser state beside it).
        let adam = optimizer_file(&start_dir, start_meta.step);
        if adam.exists() {
            if let Err(x) = trainer.load_optimizer(&adam) {
                progress.line(&format!("warning: {x}; Adam starts afresh"));
            }
        }
        // The replay window: the newest positions over the iterations so
        // far, read from the newest back until the window is full (older
        // shards could not reach it).
        let capacity = self.config.train.window_positions;
        let mut newest_first = Vec::new();
        let mut held = 0usize;
        for i in (1..=it).rev() {
            let (mut g, errors) = read_dir(&self.teacher_dir(i));
            let (own, more) = read_dir(&self.selfplay_dir(i));
            g.extend(own);
            for x in errors.into_iter().chain(more) {
                progress.line(&format!("warning: skipped {x}"));
            }
            held += g.iter().map(|x| x.positions.len()).sum::<usize>();
            newest_first.push(g);
            if held >= capacity {
                break;
            }
        }
        let all: Vec<_> = newest_first.into_iter().rev().flatten().collect();
        let win = window(&all, capacity);
        if win.is_empty() {
            return Err(RunError("no self-play positions to train on".into()));
        }
        let total_steps =
            (self.config.generations as u64 * self.config.train.steps_per_generation).max(1);
        let mut rng = ChaCha8Rng::seed_from_u64(splitmix64(
            self.config.seed ^ 0x7a1 ^ splitmix64(it as u64) ^ done,
        ));
        progress.phase(
            &format!("iteration {it}: training on {} positions", win.len()),
            target,
        );
        progress.inc(done, "");
        for k in done..target {
            let global = self.state.global_step + k;
            let lr = crate::trainer::cosine_lr(
                self.config.train.lr,
                self.config.train.lr_final,
                global,
                total_steps,
            );
            let batch = draw_batch(
                &self.rules,
                &win,
                self.config.train.batch_size,
                self.config.train.value_target_mix,
                &mut rng,
            );
            let s = trainer.step(&batch, lr);
            let g = global as usize + 1;
            tb.add_scalar("train/policy_loss", s.policy_loss, g);
            tb.add_scalar("train/value_loss", s.value_loss, g);
            tb.add_scalar("train/total_loss", s.total_loss, g);
            tb.add_scalar("train/policy_entropy", s.policy_entropy, g);
            tb.add_scalar("train/value_accuracy", s.value_accuracy, g);
            tb.add_scalar("train/learning_rate", lr as f32, g);
            progress.inc(
                1,
                &format!("policy {:.3} value {:.3}", s.policy_loss, s.value_loss),
            );
            let finished = k + 1 == target;
            if (k + 1) % self.config.train.checkpoint_every == 0 || finished {
                let prov = format!("losses {} {}", s.policy_loss, s.value_loss);
                let net = trainer.inference_net();
                let step_now = self.state.global_step + k + 1;
                let partial = self.ckpt(&format!("candidate-{step_now:08}"));
                let dest = if finished { &out } else { &partial };
                std::fs::create_dir_all(dest).map_err(e)?;
                let adam = optimizer_file(dest, step_now);
                trainer.save_optimizer(&adam).map_err(RunError)?;
                save(
                    dest,
                    &net,
                    &trainer.config,
                    &self.rules,
                    step_now,
                    it,
                    &prov,
                )
                .map_err(e)?;
                // Older optimiser states of this checkpoint are now stale.
                for entry in std::fs::read_dir(dest).map_err(e)?.flatten() {
                    let p = entry.path();
                    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
                    if name.starts_with("adam-") && p != adam {
                        let _ = std::fs::remove_file(&p);
                    }
                }
                // The new checkpoint is whole: older partials can go.
                for p in self.partial_candidates() {
                    if &p != dest {
                        std::fs::remove_dir_all(&p).map_err(e)?;
                    }
                }
                tb.flush();
            }
        }
        // Saving the finished candidate removed every partial.
        self.state.global_step += target;
        progress.done();
        Ok(())
    }

    /// The arena spec (and rating name) of the MCTS player of checkpoint
    /// `dir`: the run's PUCT settings (named in the spec where they differ
    /// from the player defaults), no noise, the run's evaluation simulations.
    fn mcts_spec(&self, dir: &Path) -> String {
        let run = &self.config.selfplay.mcts;
        let player = brandubh_selfplay::MctsConfig::default();
        let mut spec = format!(
            "mcts:model={},sims={}",
            dir.display(),
            self.config.eval.sims
        );
        if run.c_puct != player.c_puct {
            spec += &format!(",cpuct={}", run.c_puct);
        }
        if run.fpu_reduction != player.fpu_reduction {
            spec += &format!(",fpu={}", run.fpu_reduction);
        }
        if run.gumbel != player.gumbel {
            spec += &format!(",gumbel={}", run.gumbel as u8);
        }
        spec
    }

    /// Candidate against the current net, the baseline, the ladder, and
    /// alpha-beta at equal time.
    fn eval_phase(&self, it: u32, progress: &dyn Progress) -> Result<EvalOutcome, RunError> {
        let cand = self.ckpt(&ckpt_name(it));
        let cur = self.ckpt(&self.state.current);
        let ev = &self.config.eval;
        let play_on = |a: String,
                       b: String,
                       pairs: u64,
                       file: &str,
                       seed: u64,
                       threads: usize|
         -> Result<brandubh_eval::MatchSummary, RunError> {
            let cfg = MatchConfig {
                rules: self.rules.clone(),
                a: PlayerSpec::parse(&a).map_err(e)?,
                b: PlayerSpec::parse(&b).map_err(e)?,
                pairs,
                openings: ev.openings,
                seed,
                max_plies: ev.max_plies,
                threads,
                sprt: None,
                swap_sides: true,
                balanced: None,
                clock: None,
            };
            progress.phase(&format!("iteration {it}: {file}"), pairs * 2);
            let (s, _) = run_match(&cfg, Some(&self.dir.join("arena").join(file)), &|_| {
                progress.inc(1, "")
            })
            .map_err(e)?;
            progress.done();
            Ok(s)
        };
        let play = |a, b, pairs, file: &str, seed| play_on(a, b, pairs, file, seed, self.threads);
        let seed = splitmix64(self.config.seed ^ 0xe7a1 ^ it as u64);
        let vs = play(
            self.mcts_spec(&cand),
            self.mcts_spec(&cur),
            ev.pairs,
            &format!("iter-{it:04}-vs-current.jsonl"),
            seed,
        )?;
        let base = if ev.baseline_pairs > 0 {
            let s = play(
                self.mcts_spec(&cand),
                ev.baseline.clone(),
                ev.baseline_pairs,
                &format!("iter-{it:04}-vs-baseline.jsonl"),
                seed ^ 1,
            )?;
            for (k, rung) in ev.ladder.iter().enumerate() {
                let r = play(
                    self.mcts_spec(&cand),
                    rung.clone(),
                    ev.baseline_pairs,
                    &format!("iter-{it:04}-vs-ladder-{}.jsonl", k + 1),
                    seed ^ (2 + k as u64),
                )?;
                progress.line(&format!(
                    "iteration {it}: vs {rung} {:.0} % ({:+.0} Elo)",
                    100.0 * r.score,
                    r.elo
                ));
            }
            Some((s.score, s.elo))
        } else {
            None
        };
        // Equal time: one game at a time, so each player has the machine.
        let mut equal_time = Vec::new();
        for &ms in &ev.equal_time_ms {
            let timed = self
                .mcts_spec(&cand)
                .replace(&format!(",sims={}", ev.sims), &format!(",ms={ms}"));
            let r = play_on(
                timed,
                format!("alphabeta:ms={ms}"),
                ev.baseline_pairs.max(1),
                &format!("iter-{it:04}-equal-time-{ms}ms.jsonl"),
                seed ^ (0x100 + ms),
                1,
            )?;
            progress.line(&format!(
                "iteration {it}: at {ms} ms a move vs alphabeta:ms={ms} {:.0} % ({:+.0} Elo)",
                100.0 * r.score,
                r.elo
            ));
            equal_time.push(EqualTime {
                ms,
                pairs: ev.baseline_pairs.max(1),
                score: r.score,
                elo: r.elo,
                elo_ci95: r.elo_ci95,
            });
        }
        Ok(EvalOutcome {
            score: vs.score,
            elo: vs.elo,
            base,
            equal_time,
        })
    }

    /// Ratings of every player in the run's arena files, anchored on the baseline.
    fn write_ratings(&self) -> Result<Option<RatingTable>, RunError> {
        let mut games: Vec<GameRecord> = Vec::new();
        for entry in std::fs::read_dir(self.dir.join("arena"))
            .map_err(e)?
            .flatten()
        {
            let p = entry.path();
            // Equal-time games pair timed players with nobody else: a
            // separate component the ratings could not place.
            let timed = p.to_string_lossy().contains("-equal-time-");
            if p.extension().is_some_and(|x| x == "jsonl") && !timed {
                games.extend(read_records(&p).map_err(e)?);
            }
        }
        let anchor = if games.iter().any(|g| {
            g.attackers == self.config.eval.baseline || g.defenders == self.config.eval.baseline
        }) {
            self.config.eval.baseline.clone()
        } else {
            match games.first() {
                Some(g) => g.attackers.clone(),
                None => return Ok(None),
            }
        };
        let table = rate(&games, &anchor).map_err(e)?;
        write_atomic(
            &self.dir.join("ratings.json"),
            serde_json::to_string_pretty(&table).map_err(e)?.as_bytes(),
        )?;
        Ok(Some(table))
    }
}

fn net_config(c: &RunConfig) -> NetConfig {
    NetConfig::new()
        .with_channels(c.net.channels)
        .with_blocks(c.net.blocks)
        .with_value_hidden(c.net.value_hidden)
}

trait ProvenanceLoss {
    fn provenance_loss(&self, k: usize) -> f32;
}

impl ProvenanceLoss for brandubh_model::CheckpointMeta {
    /// The losses the trainer wrote into the provenance ("losses P V").
    fn provenance_loss(&self, k: usize) -> f32 {
        self.provenance
            .strip_prefix("losses ")
            .and_then(|s| s.split_whitespace().nth(k))
            .and_then(|x| x.parse().ok())
            .unwrap_or(f32::NAN)
    }
}
