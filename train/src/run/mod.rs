//! The training run: generation after generation, self-play with the
//! current net, train a candidate on the replay window, evaluate it against
//! the current net and the fixed baseline, record, go on.
//!
//! Everything needed to resume lives in the run directory and is written
//! atomically: `state.json` names the phase in progress; self-play shards
//! appear whole or not at all; the candidate is checkpointed every few
//! steps. A kill at any moment loses at most the games, training steps or
//! evaluation games in flight.

mod evaluation;
mod fork;
mod open;
mod record;
mod selfplay;
mod training;

pub use fork::ForkRecord;
use record::recorded_iterations;
pub use record::{process_cpu_seconds, EqualTime, IterationRecord, RunError};

use crate::config::{Gating, RunConfig};
use crate::data::{window, WindowSampler};
use crate::trainer::{optimizer_file, Trainer};
use brandubh_arena::{ratings::rate, ratings::RatingTable};
use brandubh_arena::{read_records, GameRecord};
use brandubh_arena::{run_match, MatchConfig};
use brandubh_model::{load, read_meta, save};
use brandubh_play::PlayerSpec;
use brandubh_rules::{splitmix64, GameResult, RuleSet};
use brandubh_selfplay::{
    records::list_shards, records::next_shard_index, records::read_dir, records::read_shard,
};
use brandubh_selfplay::{run_selfplay_against, write_shard, Opponents, SelfPlayJob};
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
#[derive(Default)]
struct EvalOutcome {
    /// Score and Elo against the current net; none in a generation not
    /// evaluated.
    score: Option<f64>,
    elo: Option<f64>,
    /// Score and Elo against the baseline, when it was played.
    base: Option<(f64, f64)>,
    equal_time: Vec<EqualTime>,
}

/// Maps an I/O error on `path` to a `RunError` naming it.
pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
    move |source| RunError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Our own records as JSON (they always serialise).
fn json<T: Serialize>(value: &T, pretty: bool) -> String {
    let text = if pretty {
        serde_json::to_string_pretty(value)
    } else {
        serde_json::to_string(value)
    };
    text.expect("run records serialise")
}

pub struct Run {
    pub dir: PathBuf,
    pub config: RunConfig,
    pub rules: Arc<RuleSet>,
    pub state: RunState,
    threads: usize,
    /// Self-play comes from worker processes (`brandubh worker selfplay`):
    /// the self-play phase waits for their shards instead of playing.
    workers: Option<std::time::Duration>,
    /// The object store this run is shared through, when its directory is
    /// a learner's working copy (see `mirror_to`).
    mirror: Option<crate::store::RunStore>,
    /// The engine self-play and the evaluation matches run nets on (none:
    /// the environment's choice, else the faster one for the width).
    inference: Option<brandubh_model::InferenceEngine>,
    /// Where the evaluation matches' players get their nets and workers.
    players: Arc<brandubh_play::PlayContext>,
}

/// Players whose nets run on `engine`.
fn players_on(engine: Option<brandubh_model::InferenceEngine>) -> Arc<brandubh_play::PlayContext> {
    brandubh_play::PlayContext::new(brandubh_mcts::Models::new(brandubh_model::model_loader(
        engine,
    )))
}

/// Self-play game ids of iteration `it` start at `it` times this.
pub const GAME_IDS_PER_ITERATION: u64 = 1_000_000_000;

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), RunError> {
    brandubh_durable::write(path, bytes).map_err(io(path))
}

fn append_line(path: &Path, line: &str) -> Result<(), RunError> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(io(path))?;
    writeln!(f, "{line}")
        .and_then(|_| f.sync_all())
        .map_err(io(path))
}

fn ckpt_name(i: u32) -> String {
    format!("gen-{i:04}")
}

/// The checkpoints a self-play phase with net `current` (`gen-NNNN`) draws
/// its past opponents from (`selfplay.past_share`): the `k` generations
/// before it, oldest first; none for generation 0 or another name.
pub fn past_generation_names(current: &str, k: u32) -> Vec<String> {
    let Some(n) = current
        .strip_prefix("gen-")
        .and_then(|n| n.parse::<u32>().ok())
    else {
        return Vec::new();
    };
    (n.saturating_sub(k)..n).map(ckpt_name).collect()
}

impl Run {
    /// Runs nets on `engine` in self-play and in the evaluation matches
    /// (none: the environment's choice, else the faster one for the width).
    pub fn set_inference(&mut self, engine: Option<brandubh_model::InferenceEngine>) {
        self.inference = engine;
        self.players = players_on(engine);
    }

    /// Shares the run through `store`, whose copy this directory is: the
    /// workers' shards are fetched from it, and every finished iteration
    /// (checkpoints, then records, then the state) is published to it,
    /// starting now.
    pub fn mirror_to(&mut self, store: crate::store::RunStore) -> Result<(), RunError> {
        store.publish(&self.dir)?;
        self.mirror = Some(store);
        Ok(())
    }

    /// Takes self-play games from worker processes from now on, looking
    /// for new shards every `poll`, instead of playing them itself.
    pub fn learn_from_workers(&mut self, poll: std::time::Duration) {
        self.workers = Some(poll);
    }

    fn save_state(&self) -> Result<(), RunError> {
        write_atomic(
            &self.dir.join("state.json"),
            json(&self.state, true).as_bytes(),
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

    /// `brandubh train`: the training phase of the iteration in progress on
    /// its own (with `steps` in place of the config's), recorded in the run
    /// state as the loop records it, so that `brandubh loop` goes on to
    /// evaluate the candidate. Returns the iteration trained.
    pub fn train_only(
        &mut self,
        steps: Option<u64>,
        progress: &dyn Progress,
        tb: &mut SummaryWriter,
    ) -> Result<u32, RunError> {
        let it = self.state.iteration + 1;
        let dir = self.dir.display();
        match self.state.phase {
            Phase::SelfPlay => {
                return Err(RunError::State(format!(
                    "{dir}: iteration {it} has not played its self-play games yet, so there is \
                     nothing new to train on; `brandubh loop --run-dir {dir}` plays and trains"
                )))
            }
            Phase::Eval => {
                return Err(RunError::State(format!(
                    "{dir}: iteration {it}'s candidate {} is trained and waits for its \
                     evaluation; `brandubh loop --run-dir {dir}` evaluates it",
                    ckpt_name(it)
                )))
            }
            Phase::Train => {}
        }
        self.train_phase(it, steps, progress, tb)?;
        self.state.phase = Phase::Eval;
        self.save_state()?;
        Ok(it)
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

    /// Runs iterations until the config's generations are done or the
    /// run's finished iterations have taken `budget` seconds of wall time
    /// in all (a resumed run counts the ones it recorded before); the
    /// iteration in flight when the budget runs out is finished.
    pub fn run_for(&mut self, budget: f64, progress: &dyn Progress) -> Result<(), RunError> {
        let mut tb = SummaryWriter::new(self.dir.join("tb"));
        while self.state.iteration < self.config.generations && self.spent_seconds() < budget {
            self.iteration(progress, &mut tb)?;
            tb.flush();
        }
        Ok(())
    }

    /// Wall seconds of the finished iterations, from `generations.jsonl`.
    pub fn spent_seconds(&self) -> f64 {
        recorded_iterations(&self.dir)
            .iter()
            .map(|r| r.selfplay_seconds + r.train_seconds + r.eval_seconds)
            .sum()
    }

    /// The net self-play uses now: the newest promoted generation.
    pub fn current_net(&self) -> PathBuf {
        self.dir.join("checkpoints").join(&self.state.current)
    }

    fn iteration(
        &mut self,
        progress: &dyn Progress,
        tb: &mut SummaryWriter,
    ) -> Result<(), RunError> {
        let it = self.state.iteration + 1;
        let timing_path = self.dir.join(format!("selfplay/iter-{it:04}.timing.json"));
        let t0 = Instant::now();
        let cpu0 = process_cpu_seconds();
        if self.state.phase == Phase::SelfPlay {
            match self.workers {
                Some(poll) => self.wait_for_workers(it, poll, progress)?,
                None => self.selfplay_phase(it, progress, tb)?,
            }
            self.teacher_phase(it, progress)?;
            let cpu = match (cpu0, process_cpu_seconds()) {
                (Some(a), Some(b)) => format!(", \"selfplay_cpu_seconds\": {}", b - a),
                _ => String::new(),
            };
            write_atomic(
                &timing_path,
                format!(
                    "{{\"selfplay_seconds\": {}{cpu}}}",
                    t0.elapsed().as_secs_f64()
                )
                .as_bytes(),
            )?;
            self.state.phase = Phase::Train;
            self.save_state()?;
        }
        let timing = std::fs::read_to_string(&timing_path)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
        let selfplay_seconds = timing
            .as_ref()
            .and_then(|v| v["selfplay_seconds"].as_f64())
            .unwrap_or(0.0);
        // Self-play's CPU time as recorded when it finished (so that a
        // resumed iteration still counts it), then this process's since.
        let selfplay_cpu = timing
            .as_ref()
            .and_then(|v| v["selfplay_cpu_seconds"].as_f64());
        let t1 = Instant::now();
        let cpu1 = process_cpu_seconds();
        let candidate = ckpt_name(it);
        if self.state.phase == Phase::Train {
            self.train_phase(it, None, progress, tb)?;
            self.state.phase = Phase::Eval;
            self.save_state()?;
        }
        let train_seconds = t1.elapsed().as_secs_f64();
        let t2 = Instant::now();
        let evaluated = self.config.eval.evaluates(it, self.config.generations);
        let EvalOutcome {
            score,
            elo,
            base,
            equal_time,
        } = if evaluated {
            self.eval_phase(it, progress)?
        } else {
            EvalOutcome::default()
        };
        let eval_seconds = t2.elapsed().as_secs_f64();
        let cpu_seconds = match (selfplay_cpu, cpu1, process_cpu_seconds()) {
            (Some(s), Some(a), Some(b)) => Some(s + (b - a)),
            _ => None,
        };
        let promoted = self.config.eval.gating == Gating::Always
            || score.is_some_and(|s| s >= self.config.eval.promote_score);
        // Self-play statistics of this iteration's games.
        let (games, errors) = read_dir(&self.selfplay_dir(it));
        for x in errors {
            progress.line(&format!("warning: skipped {x}"));
        }
        let n = games.len().max(1) as f64;
        let share = |r: GameResult| games.iter().filter(|g| g.result == Some(r)).count() as f64 / n;
        let meta = read_meta(&self.ckpt(&candidate))?;
        let rec = IterationRecord {
            iteration: it,
            selfplay_net: self.state.current.clone(),
            candidate: candidate.clone(),
            promoted,
            selfplay_seconds,
            train_seconds,
            eval_seconds,
            cpu_seconds,
            games: games.len() as u64,
            attacker_share: share(GameResult::AttackersWin),
            defender_share: share(GameResult::DefendersWin),
            draw_share: share(GameResult::Draw),
            mean_length: games.iter().map(|g| g.plies as f64).sum::<f64>() / n,
            score_vs_current: score,
            elo_vs_current: elo,
            score_vs_baseline: base.map(|b| b.0),
            elo_vs_baseline: base.map(|b| b.1),
            final_policy_loss: meta.provenance.policy_loss.unwrap_or(f32::NAN),
            final_value_loss: meta.provenance.value_loss.unwrap_or(f32::NAN),
            equal_time,
        };
        let step = it as usize;
        tb.add_scalar("selfplay/attacker_share", rec.attacker_share as f32, step);
        tb.add_scalar("selfplay/defender_share", rec.defender_share as f32, step);
        tb.add_scalar("selfplay/draw_share", rec.draw_share as f32, step);
        tb.add_scalar("selfplay/mean_length", rec.mean_length as f32, step);
        if let Some(s) = score {
            tb.add_scalar("eval/score_vs_current", s as f32, step);
        }
        if let Some((s, el)) = base {
            tb.add_scalar("eval/score_vs_baseline", s as f32, step);
            tb.add_scalar("eval/elo_vs_baseline", el as f32, step);
        }
        tb.add_scalar("time/selfplay_seconds", selfplay_seconds as f32, step);
        tb.add_scalar("time/train_seconds", train_seconds as f32, step);
        tb.add_scalar("time/eval_seconds", eval_seconds as f32, step);
        if let Some(c) = cpu_seconds {
            tb.add_scalar("time/cpu_seconds", c as f32, step);
        }
        // Idempotent: a kill after this line but before the state is saved
        // must not record the iteration twice.
        let log = self.dir.join("generations.jsonl");
        let already = recorded_iterations(&self.dir)
            .iter()
            .any(|r| r.iteration == it);
        if !already {
            append_line(&log, &json(&rec, false))?;
        }
        progress.line(&format!(
            "iteration {it}: self-play {:.0} s ({} games, attackers {:.0} %, defenders {:.0} %, {:.0} plies), train {:.0} s (policy {:.3}, value {:.3}), {}{}{}",
            selfplay_seconds,
            rec.games,
            100.0 * rec.attacker_share,
            100.0 * rec.defender_share,
            rec.mean_length,
            train_seconds,
            rec.final_policy_loss,
            rec.final_value_loss,
            match (score, elo) {
                (Some(s), Some(e)) => format!(
                    "eval {eval_seconds:.0} s: vs current {:.0} % ({e:+.0} Elo)",
                    100.0 * s
                ),
                _ => format!("not evaluated (eval.every = {})", self.config.eval.every),
            },
            base.map_or(String::new(), |(s, el)| format!(", vs {} {:.0} % ({el:+.0} Elo)", self.config.eval.baseline, 100.0 * s)),
            if promoted { ", promoted" } else { ", kept the current net" }
        ));
        self.state.iteration = it;
        if promoted {
            self.state.current = candidate;
        }
        self.state.phase = Phase::SelfPlay;
        self.save_state()?;
        let table = if evaluated {
            self.write_ratings()?
        } else {
            None
        };
        if let Some(table) = table {
            let me = self.mcts_spec(&self.ckpt(&ckpt_name(it)));
            if let Some(r) = table.ratings.iter().find(|r| r.specs.contains(&me)) {
                tb.add_scalar("eval/rating", r.elo as f32, step);
                progress.line(&format!(
                    "iteration {it}: rated {:+.0} ± {:.0} Elo against {} (all arena games so far)",
                    r.elo, r.ci95, table.anchor
                ));
            }
        }
        if let Some(store) = &self.mirror {
            store.publish(&self.dir)?;
        }
        Ok(())
    }
}
