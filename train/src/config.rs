//! The run config: one commented TOML file (`configs/runs/*.toml`) holding
//! everything a training run needs; it is copied into the run directory.

use brandubh_mcts::in_range;
use brandubh_mcts::ConfigError;
use brandubh_selfplay::SelfPlayConfig;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    pub rules: String,
    pub seed: u64,
    pub generations: u32,
    /// Worker threads; 0 = every core.
    #[serde(default)]
    pub threads: usize,
    /// The shape of the net, as a checkpoint records it.
    pub net: brandubh_model::NetShape,
    /// Self-play games per generation.
    pub selfplay_games: u64,
    pub selfplay: SelfPlayConfig,
    /// The attackers' self-play handicap (`selfplay.attacker_sims_factor`)
    /// falls linearly from its full value in generation 1 to none (1×) in
    /// generation `1 + handicap_decay_generations`. 0 keeps it for the whole
    /// run. Optional; 0 by default.
    #[serde(default, skip_serializing_if = "is_default")]
    pub handicap_decay_generations: u32,
    pub train: TrainSection,
    pub eval: EvalSection,
    /// Teacher games for the first generations (optional; docs/training.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub teacher: Option<crate::teacher::TeacherSection>,
    /// The fixed opponent of `selfplay.opponent_share` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opponent: Option<crate::opponent::OpponentSection>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainSection {
    pub steps_per_generation: u64,
    pub batch_size: usize,
    /// Learning rate at the start of the run, decayed (cosine) to `lr_final`.
    pub lr: f64,
    pub lr_final: f64,
    pub weight_decay: f32,
    /// Replay window, in positions (the newest ones).
    pub window_positions: usize,
    /// Value target = (1 − mix) · game result + mix · search value.
    pub value_target_mix: f32,
    /// How far to even out the attackers' and the defenders' won games when
    /// drawing batches: 0 draws the window uniformly, 1 draws both sides'
    /// wins equally often (`WindowSampler`). Optional; 0 by default.
    #[serde(default, skip_serializing_if = "is_default")]
    pub side_balance: f32,
    /// Save the candidate every this many steps (resume point).
    pub checkpoint_every: u64,
}

/// Optional keys at their default are left out of a written config.
fn is_default<T: Default + PartialEq>(x: &T) -> bool {
    *x == T::default()
}

/// Which candidates become the current net.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Gating {
    /// Every candidate.
    Always,
    /// A candidate scoring at least `promote_score` against the current net.
    Score,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalSection {
    /// Game pairs of candidate against current net.
    pub pairs: u64,
    /// MCTS simulations per move in evaluation games.
    pub sims: u32,
    /// `always` promotes every candidate; `score` promotes one that scores
    /// at least `promote_score` against the current net.
    pub gating: Gating,
    pub promote_score: f64,
    /// The fixed baseline, and pairs against it each generation (0 = skip).
    pub baseline: String,
    pub baseline_pairs: u64,
    /// More fixed players (e.g. alpha-beta at other depths), each played
    /// `baseline_pairs` pairs per generation, so `ratings.json` places
    /// every generation on one ladder. Optional; empty by default.
    #[serde(default)]
    pub ladder: Vec<String>,
    /// Times per move (ms) at which the candidate, as `mcts:…,ms=T`, plays
    /// `baseline_pairs` pairs against `alphabeta:ms=T`, one game at a time.
    /// Recorded in `generations.jsonl`, not in the ratings. Optional.
    #[serde(default)]
    pub equal_time_ms: Vec<u64>,
    pub openings: u32,
    pub max_plies: u32,
    /// Evaluate every this many generations (and the run's last); the
    /// others are promoted unplayed. With `gating = "always"` the
    /// evaluation decides nothing, so the nets are the same, reached in
    /// less time. Above 1 only with `gating = "always"`. Optional; 1.
    #[serde(default = "every_generation")]
    pub every: u32,
}

fn every_generation() -> u32 {
    1
}

impl EvalSection {
    /// Whether generation `it` of a run of `generations` is evaluated.
    pub fn evaluates(&self, it: u32, generations: u32) -> bool {
        it.is_multiple_of(self.every.max(1)) || it >= generations
    }
}

impl RunConfig {
    /// The self-play settings of generation `it` (from 1): the config's,
    /// with the attackers' handicap decayed as `handicap_decay_generations`
    /// says, no past opponents before `selfplay.past_from_generation`, and
    /// no fixed opponent before `opponent.from_generation` (or without one).
    pub fn selfplay_at(&self, it: u32) -> SelfPlayConfig {
        let mut c = self.selfplay.clone();
        let k = self.handicap_decay_generations;
        if k > 0 {
            let left = 1.0 - (it.saturating_sub(1) as f32 / k as f32).min(1.0);
            c.attacker_sims_factor = 1.0 + (c.attacker_sims_factor - 1.0) * left;
        }
        if it < c.past_from_generation {
            c.past_share = 0.0;
        }
        if self
            .opponent
            .as_ref()
            .is_none_or(|o| it < o.from_generation)
        {
            c.opponent_share = 0.0;
        }
        c
    }

    /// Parses and checks a run config; `file` names it in errors.
    pub fn from_toml(text: &str, file: &str) -> Result<RunConfig, ConfigError> {
        let c: RunConfig =
            brandubh_rules::toml_keyed::from_toml(text).map_err(|e| ConfigError::Parse {
                file: file.to_string(),
                message: e.to_string(),
            })?;
        c.check().map_err(|e| ConfigError::InFile {
            file: file.to_string(),
            source: Box::new(e),
        })?;
        Ok(c)
    }

    /// Every value in a range the run can use; the error names the key.
    pub fn check(&self) -> Result<(), ConfigError> {
        self.selfplay.check().map_err(|e| e.within("selfplay"))?;
        in_range("generations", self.generations as f64, 1.0, 1e6)?;
        in_range("threads", self.threads as f64, 0.0, 256.0)?;
        in_range("selfplay_games", self.selfplay_games as f64, 1.0, 1e9)?;
        in_range(
            "handicap_decay_generations",
            self.handicap_decay_generations as f64,
            0.0,
            1e6,
        )?;
        let n = &self.net;
        use brandubh_model::meta::{MAX_BLOCKS, MAX_CHANNELS, MAX_VALUE_HIDDEN};
        in_range("net.channels", n.channels as f64, 1.0, MAX_CHANNELS as f64)?;
        in_range("net.blocks", n.blocks as f64, 0.0, MAX_BLOCKS as f64)?;
        in_range(
            "net.value_hidden",
            n.value_hidden as f64,
            1.0,
            MAX_VALUE_HIDDEN as f64,
        )?;
        let t = &self.train;
        in_range(
            "train.steps_per_generation",
            t.steps_per_generation as f64,
            1.0,
            1e9,
        )?;
        in_range("train.lr", t.lr, 1e-7, 10.0)?;
        in_range("train.lr_final", t.lr_final, 0.0, 10.0)?;
        in_range("train.weight_decay", t.weight_decay as f64, 0.0, 1.0)?;
        in_range(
            "train.value_target_mix",
            t.value_target_mix as f64,
            0.0,
            1.0,
        )?;
        in_range("train.side_balance", t.side_balance as f64, 0.0, 1.0)?;
        in_range(
            "train.window_positions",
            t.window_positions as f64,
            1.0,
            1e12,
        )?;
        in_range("train.batch_size", t.batch_size as f64, 1.0, 1e6)?;
        in_range(
            "train.checkpoint_every",
            t.checkpoint_every as f64,
            1.0,
            1e12,
        )?;
        let e = &self.eval;
        in_range("eval.pairs", e.pairs as f64, 0.0, 1e6)?;
        in_range("eval.sims", e.sims as f64, 1.0, 1e7)?;
        in_range("eval.promote_score", e.promote_score, 0.0, 1.0)?;
        in_range("eval.baseline_pairs", e.baseline_pairs as f64, 0.0, 1e6)?;
        in_range("eval.openings", e.openings as f64, 0.0, 200.0)?;
        in_range("eval.max_plies", e.max_plies as f64, 1.0, 1e5)?;
        in_range("eval.every", e.every as f64, 1.0, 1e6)?;
        if e.every > 1 && e.gating != Gating::Always {
            return Err(ConfigError::Invalid {
                key: "eval.every".into(),
                problem: format!(
                    "{} needs gating = \"always\": with \"score\" every candidate must be played before it is promoted",
                    e.every
                ),
            });
        }
        // Fixed players are checked now, not after a generation's self-play
        // and training have run.
        let fixed = std::iter::once(("eval.baseline", &e.baseline))
            .chain(e.ladder.iter().map(|l| ("eval.ladder", l)));
        for (key, spec) in fixed {
            brandubh_play::PlayerSpec::parse(spec).map_err(|x| ConfigError::Invalid {
                key: key.into(),
                problem: x.to_string(),
            })?;
        }
        for &ms in &self.eval.equal_time_ms {
            in_range("eval.equal_time_ms", ms as f64, 1.0, 60_000.0)?;
        }
        if let Some(t) = &self.teacher {
            in_range("teacher.random_move_prob", t.random_move_prob, 0.0, 1.0)?;
            in_range("teacher.games", t.games as f64, 0.0, 1e9)?;
            in_range("teacher.generations", t.generations as f64, 0.0, 1e6)?;
            crate::opponent::alpha_beta_spec(&t.player).map_err(|problem| {
                ConfigError::Invalid {
                    key: "teacher.player".into(),
                    problem,
                }
            })?;
        }
        if let Some(o) = &self.opponent {
            crate::opponent::check_spec(&o.player).map_err(|problem| ConfigError::Invalid {
                key: "opponent.player".into(),
                problem,
            })?;
        } else if self.selfplay.opponent_share > 0.0 {
            return Err(ConfigError::Invalid {
                key: "selfplay.opponent_share".into(),
                problem: format!(
                    "{} needs an [opponent] section naming the player",
                    self.selfplay.opponent_share
                ),
            });
        }
        Ok(())
    }
}

/// The config text with its top-level `key = …` line set to `value` (a TOML
/// value as it is written, e.g. `"raven"` or `46`): comments and layout are
/// kept, so a run's copy still reads as the config did. A text without such
/// a line gets one at the top.
pub fn with_top_level(text: &str, key: &str, value: &str) -> String {
    let line = format!("{key} = {value}");
    let mut out = Vec::new();
    let mut done = false;
    let mut in_table = false;
    for l in text.lines() {
        let t = l.trim_start();
        in_table |= t.starts_with('[');
        let is_key = t
            .strip_prefix(key)
            .is_some_and(|rest| rest.trim_start().starts_with('='));
        if !done && !in_table && is_key {
            out.push(line.clone());
            done = true;
        } else {
            out.push(l.to_string());
        }
    }
    if !done {
        out.insert(0, line);
    }
    out.join("\n") + "\n"
}
