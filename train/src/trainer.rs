//! The training step: policy cross-entropy against the search's policy
//! target (full-search positions only), win/draw/loss cross-entropy against
//! the game's result, the squared error of the moves-left output (nets
//! that have one) against the plies the game lasted, weight decay in the
//! optimiser (Adam).

use crate::data::Sample;
use brandubh_model::encoding::PLANES;
use brandubh_model::{Net, NetConfig};
use brandubh_rules::POLICY_SIZE;
use burn::module::{Module, ModuleMapper, Param, ParamId};
use burn::optim::decay::WeightDecayConfig;
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::activation::{log_softmax, softmax};
use burn::tensor::{Bytes, Device, Tensor, TensorData};
use std::path::{Path, PathBuf};

/// Gives every parameter an id derived from its path in the module
/// (`blocks.0.conv1.weight`), so the optimiser's state, which burn keys by
/// parameter id, still fits the net after it is saved and loaded again.
struct StableIds {
    path: Vec<String>,
}

impl ModuleMapper for StableIds {
    fn enter_module(&mut self, name: &str, _container_type: &str) {
        self.path.push(name.to_string());
    }

    fn exit_module(&mut self, _name: &str, _container_type: &str) {
        self.path.pop();
    }

    fn map_float<const D: usize>(&mut self, mut param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        param.id = ParamId::from(brandubh_rules::fnv1a(&self.path.join(".")));
        param
    }
}

fn adam(weight_decay: f32) -> ModuleOptimizer {
    AdamConfig::new()
        .with_weight_decay(Some(WeightDecayConfig::new(weight_decay)))
        .init()
}

/// The file holding the optimiser state that goes with the checkpoint
/// at optimiser step `step`.
pub fn optimizer_file(dir: &Path, step: u64) -> PathBuf {
    dir.join(format!("adam-{step:09}.bpk"))
}

/// Losses and diagnostics of one step (means over the batch).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepStats {
    pub policy_loss: f32,
    pub value_loss: f32,
    /// Mean squared error of the moves-left output, in units of
    /// `MOVES_LEFT_SCALE` plies (0 for nets without the output).
    pub moves_left_loss: f32,
    pub total_loss: f32,
    /// Entropy of the net's policy (over all 1176 logits).
    pub policy_entropy: f32,
    /// Share of positions whose most likely W/D/L is the actual result.
    pub value_accuracy: f32,
}

pub struct Trainer {
    /// Always `Some` between steps (taken while the optimiser updates it).
    net: Option<Net>,
    pub config: NetConfig,
    optim: ModuleOptimizer,
    weight_decay: f32,
    device: Device,
    pub steps: u64,
}

impl Trainer {
    /// Trains `net` (already on an autodiff device) with Adam.
    pub fn new(net: Net, config: NetConfig, device: Device, weight_decay: f32) -> Trainer {
        let optim = adam(weight_decay);
        let net = net.map(&mut StableIds { path: Vec::new() });
        Trainer {
            net: Some(net),
            config,
            optim,
            weight_decay,
            device,
            steps: 0,
        }
    }

    /// Restores Adam's moments from `file` (written by [`Trainer::save_optimizer`]).
    pub fn load_optimizer(&mut self, file: &Path) -> Result<(), OptimizerError> {
        let bytes = std::fs::read(file).map_err(|e| OptimizerError::Io {
            file: file.to_path_buf(),
            why: e.to_string(),
        })?;
        // On a bad file the optimiser starts afresh (still with weight decay).
        let optim = std::mem::replace(&mut self.optim, adam(self.weight_decay));
        self.optim = optim
            .from_bytes(Bytes::from_bytes_vec(bytes))
            .map_err(|e| OptimizerError::NotAnOptimizerState {
                file: file.to_path_buf(),
                why: e.to_string(),
            })?;
        Ok(())
    }

    /// Writes Adam's moments to `file`, durably.
    pub fn save_optimizer(&self, file: &Path) -> Result<(), OptimizerError> {
        let bytes = self
            .optim
            .into_bytes()
            .map_err(|e| OptimizerError::Serialise(e.to_string()))?;
        brandubh_durable::write(file, &bytes[..]).map_err(|e| OptimizerError::Io {
            file: file.to_path_buf(),
            why: e.to_string(),
        })
    }

    /// One optimiser step on `batch` at learning rate `lr`.
    pub fn step(&mut self, batch: &[Sample], lr: f64) -> StepStats {
        let b = batch.len();
        let planes: Vec<f32> = batch
            .iter()
            .flat_map(|s| s.planes.iter().copied())
            .collect();
        let policy: Vec<f32> = batch
            .iter()
            .flat_map(|s| s.policy.iter().copied())
            .collect();
        let weights: Vec<f32> = batch.iter().map(|s| s.policy_weight).collect();
        let wdl: Vec<f32> = batch.iter().flat_map(|s| s.wdl).collect();
        let d = &self.device;
        let x = Tensor::<4>::from_data(TensorData::new(planes, [b, PLANES, 7, 7]), d);
        let pt = Tensor::<2>::from_data(TensorData::new(policy, [b, POLICY_SIZE]), d);
        let w = Tensor::<2>::from_data(TensorData::new(weights.clone(), [b, 1]), d);
        let vt = Tensor::<2>::from_data(TensorData::new(wdl.clone(), [b, 3]), d);
        let value_weights: Vec<f32> = batch.iter().map(|s| s.value_weight).collect();
        let n_value = value_weights.iter().sum::<f32>().max(1.0);
        let vw = Tensor::<2>::from_data(TensorData::new(value_weights.clone(), [b, 1]), d);

        let (p, out) = self.net().forward(x); // [B, 1176], [B, 3 or 4]
        let v = out.clone().slice([0..b, 0..3]);
        let logp = log_softmax(p.clone(), 1);
        let n_policy = weights.iter().sum::<f32>().max(1.0);
        let policy_loss = (pt * logp.clone())
            .sum_dim(1)
            .mul(w)
            .sum()
            .neg()
            .div_scalar(n_policy);
        let logv = log_softmax(v.clone(), 1);
        let value_loss = (vt * logv)
            .sum_dim(1)
            .mul(vw.clone())
            .sum()
            .neg()
            .div_scalar(n_value);
        let mut total = policy_loss.clone() + value_loss.clone();
        let mut moves_left_loss = 0.0;
        if self.config.moves_left {
            let target: Vec<f32> = batch.iter().map(|s| s.moves_left).collect();
            let mt = Tensor::<2>::from_data(TensorData::new(target, [b, 1]), d);
            let diff = out.slice([0..b, 3..4]) - mt;
            let loss = (diff.clone() * diff)
                .mul(vw.clone())
                .sum()
                .div_scalar(n_value);
            moves_left_loss = loss.clone().into_scalar::<f32>();
            total = total + loss;
        }

        let entropy = (softmax(p.detach(), 1) * logp.detach())
            .sum_dim(1)
            .mean()
            .neg();
        let probs = softmax(v.detach(), 1).into_data();
        let probs = probs.as_slice::<f32>().expect("f32");
        let mut right = 0;
        for i in (0..b).filter(|&i| value_weights[i] > 0.0) {
            let arg = |xs: &[f32]| (0..3).max_by(|&a, &c| xs[a].total_cmp(&xs[c])).unwrap_or(0);
            if arg(&probs[i * 3..i * 3 + 3]) == arg(&wdl[i * 3..i * 3 + 3]) {
                right += 1;
            }
        }
        let stats = StepStats {
            policy_loss: policy_loss.clone().into_scalar::<f32>(),
            value_loss: value_loss.clone().into_scalar::<f32>(),
            moves_left_loss,
            total_loss: total.clone().into_scalar::<f32>(),
            policy_entropy: entropy.into_scalar::<f32>(),
            value_accuracy: right as f32 / n_value,
        };
        let grads = total.backward();
        let net = self.net.take().expect("net present between steps");
        let grads = GradientsParams::from_grads(grads, &net);
        self.net = Some(self.optim.step(lr, net, grads));
        self.steps += 1;
        stats
    }

    /// The net being trained (on the autodiff device).
    pub fn net(&self) -> &Net {
        self.net.as_ref().expect("net present between steps")
    }

    /// An inference copy of the current weights.
    pub fn inference_net(&self) -> Net {
        self.net().valid()
    }
}

/// The learning rate at global step `step` of `total` steps: a cosine from
/// `lr` at step 0 down to `lr_final` at the last step, `lr_final` after it.
pub fn cosine_lr(lr: f64, lr_final: f64, step: u64, total: u64) -> f64 {
    let frac = (step as f64 / total.max(1) as f64).min(1.0);
    lr_final + 0.5 * (lr - lr_final) * (1.0 + (std::f64::consts::PI * frac).cos())
}

/// An optimiser state that cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum OptimizerError {
    #[error("{}: {why}", file.display())]
    Io {
        file: std::path::PathBuf,
        why: String,
    },
    #[error("{}: not an optimiser state: {why}", file.display())]
    NotAnOptimizerState {
        file: std::path::PathBuf,
        why: String,
    },
    #[error("cannot serialise the optimiser state: {0}")]
    Serialise(String),
}
