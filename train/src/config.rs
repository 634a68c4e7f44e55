//! The run config: one commented TOML file (`configs/runs/*.toml`) holding
//! everything a training run needs; it is copied into the run directory.

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
    pub train: TrainSection,
    pub eval: EvalSection,
    /// Teacher games for the first generations (optional; docs/training.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub teacher: Option<crate::teacher::TeacherSection>,
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
    /// Save the candidate every this many steps (resume point).
    pub checkpoint_every: u64,
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
}

impl RunConfig {
    pub fn from_toml(text: &str, file: &str) -> Result<RunConfig, String> {
        let c: RunConfig =
            toml::from_str(text).map_err(|e| format!("{file}: {}", e.message().trim()))?;
        c.selfplay
            .check()
            .map_err(|x| format!("{file}: {}", x.within("selfplay")))?;
        let n = &c.net;
        if !(1..=512).contains(&n.channels)
            || n.blocks > 64
            || !(1..=4096).contains(&n.value_hidden)
        {
            return Err(format!(
                "{file}: net: channels must be within 1..=512, blocks 0..=64, value_hidden 1..=4096 (got {}, {}, {})",
                n.channels, n.blocks, n.value_hidden
            ));
        }
        let t = &c.train;
        let ok = |x: f64, lo: f64, hi: f64| x.is_finite() && (lo..=hi).contains(&x);
        if !ok(t.lr, 1e-7, 10.0)
            || !ok(t.lr_final, 0.0, 10.0)
            || !ok(t.weight_decay as f64, 0.0, 1.0)
            || !ok(t.value_target_mix as f64, 0.0, 1.0)
            || t.window_positions == 0
        {
            return Err(format!(
                "{file}: train: lr must be within 1e-7..=10, lr_final 0..=10, weight_decay and value_target_mix 0..=1, window_positions positive"
            ));
        }
        if c.train.batch_size == 0 || c.train.checkpoint_every == 0 {
            return Err(format!(
                "{file}: train.batch_size and train.checkpoint_every must be positive"
            ));
        }
        if let Some(ms) = c
            .eval
            .equal_time_ms
            .iter()
            .find(|&&ms| !(1..=60_000).contains(&ms))
        {
            return Err(format!(
                "{file}: eval.equal_time_ms: {ms} is out of range 1..=60000"
            ));
        }
        if let Some(t) = &c.teacher {
            if !(0.0..=1.0).contains(&t.random_move_prob) {
                return Err(format!(
                    "{file}: teacher.random_move_prob must be within 0..=1, not {}",
                    t.random_move_prob
                ));
            }
            let spec = brandubh_eval::PlayerSpec::parse(&t.player)
                .map_err(|x| format!("{file}: teacher.player: {x}"))?;
            if spec.kind != "alphabeta" {
                return Err(format!(
                    "{file}: teacher.player `{}` must be an alpha-beta player",
                    t.player
                ));
            }
        }
        Ok(c)
    }
}
