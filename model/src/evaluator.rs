//! The net behind the search's batched evaluator interface: one call
//! encodes N positions, runs one forward pass, and returns N masked,
//! normalised priors and WDL estimates.

use crate::encoding::{encode, INPUT_LEN, PLANES};
use crate::net::{Net, MOVES_LEFT_SCALE};
use brandubh_mcts::{EvalRequest, Evaluation, Evaluator};
use brandubh_rules::{RuleSet, POLICY_SIZE};
use burn::module::Module;
use burn::tensor::{Device, Tensor, TensorData};
use std::sync::{Arc, Mutex};

pub struct NetEvaluator {
    /// Inference copies (they share the weights): callers on different
    /// threads, e.g. the games of a match, each take a free one.
    nets: Vec<Mutex<Net>>,
    device: Device,
    rules: Arc<RuleSet>,
    id: String,
}

impl NetEvaluator {
    /// Wraps an inference copy of `net`.
    pub fn new(net: &Net, device: Device, rules: Arc<RuleSet>, id: String) -> NetEvaluator {
        let copies = std::thread::available_parallelism().map_or(1, |n| n.get());
        let net = net.valid();
        NetEvaluator {
            nets: (0..copies).map(|_| Mutex::new(net.clone())).collect(),
            device,
            rules,
            id,
        }
    }

    /// Raw outputs for encoded inputs: (policy logits N×1176, value N×3 or
    /// N×4, as `Net::forward`).
    pub fn forward_raw(&self, input: Vec<f32>, n: usize) -> (Vec<f32>, Vec<f32>) {
        let x = Tensor::<4>::from_data(TensorData::new(input, [n, PLANES, 7, 7]), &self.device);
        let (p, v) = self.free_net().forward(x);
        let p = p.into_data();
        let v = v.into_data();
        (
            p.as_slice::<f32>().expect("f32 policy").to_vec(),
            v.as_slice::<f32>().expect("f32 value").to_vec(),
        )
    }
}

impl NetEvaluator {
    /// A copy no other thread is using, or else the first one.
    fn free_net(&self) -> std::sync::MutexGuard<'_, Net> {
        self.nets
            .iter()
            .find_map(|m| m.try_lock().ok())
            .unwrap_or_else(|| self.nets[0].lock().unwrap_or_else(|p| p.into_inner()))
    }
}

/// The net's input for every request of a batch, one after another.
pub(crate) fn encode_batch(rules: &RuleSet, batch: &[EvalRequest<'_>]) -> Vec<f32> {
    let mut input = vec![0.0f32; batch.len() * INPUT_LEN];
    for (r, chunk) in batch.iter().zip(input.chunks_mut(INPUT_LEN)) {
        encode(rules, r.position, r.repetitions, chunk);
    }
    input
}

/// The evaluations of `batch`, cut into one slice per thread of the
/// current rayon pool: `forward` maps a slice's encoded positions to their
/// policy logits (`POLICY_SIZE` a position) and value outputs (3 or 4 a
/// position, as `Net::forward`).
pub(crate) fn evaluate_in_slices(
    rules: &RuleSet,
    batch: &[EvalRequest<'_>],
    forward: impl Fn(&[f32]) -> (Vec<f32>, Vec<f32>) + Sync,
) -> Vec<Evaluation> {
    use rayon::prelude::*;
    if batch.is_empty() {
        return Vec::new();
    }
    let input = encode_batch(rules, batch);
    let slice = batch.len().div_ceil(rayon::current_num_threads().max(1));
    let outputs: Vec<(Vec<f32>, Vec<f32>)> =
        input.par_chunks(slice * INPUT_LEN).map(&forward).collect();
    let rows = outputs.iter().flat_map(|(policy, value)| {
        let width = value_width(policy.len(), value.len());
        policy.chunks(POLICY_SIZE).zip(value.chunks(width))
    });
    batch
        .iter()
        .zip(rows)
        .map(|(r, (logits, wdl))| priors_and_wdl(r, logits, wdl))
        .collect()
}

/// Columns of the value output, from the outputs' lengths for one batch.
fn value_width(policy_len: usize, value_len: usize) -> usize {
    (value_len / (policy_len / POLICY_SIZE).max(1)).max(3)
}

/// A position's evaluation from the net's raw outputs: the policy logits
/// of its legal moves (softmax over them alone), the softmaxed WDL, and
/// the plies left if the value output has a fourth column.
pub(crate) fn priors_and_wdl(r: &EvalRequest<'_>, logits: &[f32], wdl: &[f32]) -> Evaluation {
    let mut priors: Vec<f32> = r
        .moves
        .iter()
        .map(|m| m.policy_index().map_or(0.0, |k| logits[k as usize]))
        .collect();
    softmax(&mut priors);
    let mut v = [wdl[0], wdl[1], wdl[2]];
    softmax(&mut v);
    Evaluation {
        priors,
        wdl: v,
        moves_left: wdl.get(3).map(|m| m.max(0.0) * MOVES_LEFT_SCALE),
    }
}

fn softmax(xs: &mut [f32]) {
    let max = xs.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for x in xs.iter_mut() {
        *x = (*x - max).exp();
        sum += *x;
    }
    for x in xs.iter_mut() {
        *x /= sum;
    }
}

impl Evaluator for NetEvaluator {
    fn evaluate(&self, batch: &[EvalRequest<'_>]) -> Vec<Evaluation> {
        let n = batch.len();
        if n == 0 {
            return Vec::new();
        }
        let (policy, value) = self.forward_raw(encode_batch(&self.rules, batch), n);
        let width = value_width(policy.len(), value.len());
        batch
            .iter()
            .enumerate()
            .map(|(i, r)| {
                priors_and_wdl(
                    r,
                    &policy[i * POLICY_SIZE..(i + 1) * POLICY_SIZE],
                    &value[i * width..(i + 1) * width],
                )
            })
            .collect()
    }
    fn id(&self) -> String {
        self.id.clone()
    }
}
