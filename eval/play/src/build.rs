//! Building a player from its spec: the alpha-beta, MCTS, OTEP, random and
//! human players with the spec's settings.

use crate::alphabeta::AlphaBetaPlayer;
use crate::context::PlayContext;
use crate::player::Player;
use crate::simple::{HumanPlayer, RandomPlayer};
use crate::spec::{PlayerKind, PlayerSpec, PlayerSpecError};
use crate::{
    mcts_player::sims_limit, mcts_player::MctsPlayer, mcts_player::MctsSettings,
    mcts_player::DEFAULT_BATCH,
};
use brandubh_alphabeta::evaluation::EvalWeights;
use brandubh_alphabeta::time::Limits;
use brandubh_mcts::MctsConfig;
use brandubh_rules::RuleSet;
use std::sync::Arc;

impl PlayerSpec {
    /// The MCTS settings this spec stands for (defaults filled in).
    pub fn mcts_settings(&self) -> MctsSettings {
        let defaults = MctsConfig::default();
        let m = self.mcts();
        let sims = sims_limit(m.sims, m.ms);
        MctsSettings {
            cfg: MctsConfig {
                gumbel: m.gumbel.unwrap_or(defaults.gumbel),
                c_puct: m.cpuct.unwrap_or(defaults.c_puct),
                fpu_reduction: m.fpu.unwrap_or(defaults.fpu_reduction),
                virtual_loss: m.vloss.unwrap_or(defaults.virtual_loss),
                escape_forks: m.forks.unwrap_or(defaults.escape_forks),
                solver: m.solver.unwrap_or(defaults.solver),
                moves_left_effect: m.ml.unwrap_or(defaults.moves_left_effect),
                moves_left_slope: m.mlslope.unwrap_or(defaults.moves_left_slope),
                q_normalize: m.qnorm.unwrap_or(defaults.q_normalize),
                policy_temperature: m.ptemp.unwrap_or(defaults.policy_temperature),
                ..defaults
            },
            sims: m.sims,
            millis: m.ms,
            batch: m.batch.unwrap_or_else(|| default_batch(sims)),
            threads: m.threads.unwrap_or_else(all_cores),
            verify: m.verify.unwrap_or(0.0),
        }
    }

    /// Builds an MCTS player (the spec's kind must be `mcts`).
    pub fn build_mcts(
        &self,
        rules: &Arc<RuleSet>,
        seed: u64,
        ctx: &PlayContext,
    ) -> Result<MctsPlayer, PlayerSpecError> {
        if self.kind != PlayerKind::Mcts {
            return Err(PlayerSpecError {
                spec: self.text.clone(),
                why: "not an MCTS player".into(),
            });
        }
        let model = self.mcts().model.unwrap_or_else(|| "uniform".to_string());
        let evaluator = ctx
            .models()
            .load(&model, rules)
            .map_err(|e| PlayerSpecError {
                spec: self.text.clone(),
                why: e.to_string(),
            })?;
        Ok(MctsPlayer::new(
            self.text.clone(),
            rules.clone(),
            self.mcts_settings(),
            evaluator,
            seed,
            ctx,
        ))
    }

    /// Builds an alpha-beta player (the spec's kind must be `alphabeta`).
    pub fn build_alphabeta(
        &self,
        rules: &Arc<RuleSet>,
    ) -> Result<AlphaBetaPlayer, PlayerSpecError> {
        if self.kind != PlayerKind::AlphaBeta {
            return Err(PlayerSpecError {
                spec: self.text.clone(),
                why: "not an alpha-beta player".into(),
            });
        }
        let ab = self.alphabeta();
        let limits = Limits {
            depth: ab.depth,
            nodes: ab.nodes,
            millis: ab.ms,
        };
        let weights = match ab.eval.as_deref() {
            None => EvalWeights::builtin(rules.name()),
            Some(path) => EvalWeights::from_file(std::path::Path::new(path)).map_err(|why| {
                PlayerSpecError {
                    spec: self.text.clone(),
                    why: why.to_string(),
                }
            })?,
        };
        let tt = ab.tt.unwrap_or(16);
        let mut player =
            AlphaBetaPlayer::new(rules.clone(), limits, weights, tt, self.text.clone());
        if let Some(threads) = ab.threads {
            player.set_threads(threads);
        }
        Ok(player)
    }

    /// Builds a fresh player; `seed` feeds any randomness, `ctx` gives the
    /// nets and evaluation workers.
    pub fn build(
        &self,
        rules: &Arc<RuleSet>,
        seed: u64,
        ctx: &PlayContext,
    ) -> Result<Box<dyn Player>, PlayerSpecError> {
        match self.kind {
            PlayerKind::Random => Ok(Box::new(RandomPlayer::new(seed))),
            PlayerKind::Human => Ok(Box::new(HumanPlayer::new(
                std::io::BufReader::new(std::io::stdin()),
                std::io::stdout(),
            ))),
            PlayerKind::Mcts => Ok(Box::new(self.build_mcts(rules, seed, ctx)?)),
            PlayerKind::Otep => {
                let cmd = match &self.settings {
                    crate::spec::Settings::Otep { cmd } => cmd.as_str(),
                    _ => "",
                };
                Ok(Box::new(
                    crate::otep::OtepPlayer::spawn(&self.text, cmd, rules.clone()).map_err(
                        |why| PlayerSpecError {
                            spec: self.text.clone(),
                            why: why.to_string(),
                        },
                    )?,
                ))
            }
            PlayerKind::AlphaBeta => Ok(Box::new(self.build_alphabeta(rules)?)),
        }
    }
}

/// Leaves per evaluation when the spec names none: `DEFAULT_BATCH`, but
/// no more than a 32nd of a simulation limit, since every leaf in flight
/// is chosen without the evaluations of the others (at 64 simulations,
/// batches of 2).
pub fn default_batch(sims: Option<u32>) -> usize {
    match sims {
        Some(s) => ((s / 32) as usize).clamp(1, DEFAULT_BATCH),
        None => DEFAULT_BATCH,
    }
}

/// Parses a spec and builds the player in one step.
pub fn parse_player(
    spec: &str,
    rules: &Arc<RuleSet>,
    seed: u64,
    ctx: &PlayContext,
) -> Result<Box<dyn Player>, PlayerSpecError> {
    PlayerSpec::parse(spec)?.build(rules, seed, ctx)
}

/// The cores this process may use (1 when that cannot be known).
pub fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
