//! The training step: policy cross-entropy against the search's policy
//! target (full-search positions only), win/draw/loss cross-entropy against
//! the game's result, weight decay in the optimiser (Adam).

use crate::data::Sample;
use brandubh_model::encoding::PLANES;
use brandubh_model::{Net, NetConfig};
use brandubh_rules::POLICY_SIZE;
use burn::module::Module;
use burn::optim::decay::WeightDecayConfig;
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::activation::{log_softmax, softmax};
use burn::tensor::{Device, Tensor, TensorData};

/// Losses and diagnostics of one step (means over the batch).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepStats {
    pub policy_loss: f32,
    pub value_loss: f32,
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
    device: Device,
    pub steps: u64,
}

impl Trainer {
    /// Trains `net` (already on an autodiff device) with Adam.
    pub fn new(net: Net, config: NetConfig, device: Device, weight_decay: f32) -> Trainer {
        let optim = AdamConfig::new()
            .with_weight_decay(Some(WeightDecayConfig::new(weight_decay)))
            .init();
        Trainer {
            net: Some(net),
            config,
            optim,
            device,
            steps: 0,
        }
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

        let (p, v) = self.net().forward(x); // [B, 1176], [B, 3]
        let logp = log_softmax(p.clone(), 1);
        let n_policy = weights.iter().sum::<f32>().max(1.0);
        let policy_loss = (pt * logp.clone())
            .sum_dim(1)
            .mul(w)
            .sum()
            .neg()
            .div_scalar(n_policy);
        let logv = log_softmax(v.clone(), 1);
        let value_loss = (vt * logv).sum_dim(1).mean().neg();
        let total = policy_loss.clone() + value_loss.clone();

        let entropy = (softmax(p.detach(), 1) * logp.detach())
            .sum_dim(1)
            .mean()
            .neg();
        let probs = softmax(v.detach(), 1).into_data();
        let probs = probs.as_slice::<f32>().expect("f32");
        let mut right = 0;
        for i in 0..b {
            let arg = |xs: &[f32]| (0..3).max_by(|&a, &c| xs[a].total_cmp(&xs[c])).unwrap_or(0);
            if arg(&probs[i * 3..i * 3 + 3]) == arg(&wdl[i * 3..i * 3 + 3]) {
                right += 1;
            }
        }
        let stats = StepStats {
            policy_loss: policy_loss.clone().into_scalar::<f32>(),
            value_loss: value_loss.clone().into_scalar::<f32>(),
            total_loss: total.clone().into_scalar::<f32>(),
            policy_entropy: entropy.into_scalar::<f32>(),
            value_accuracy: right as f32 / b.max(1) as f32,
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
