//! The net run by tract on its own ONNX export, behind the same evaluator
//! interface as `NetEvaluator`. tract runs a plan optimised for a fixed
//! batch size, and on this machine the plan for one position, run once per
//! position, was faster per position than plans for 4 to 16 positions at
//! once, and faster than burn-flex at any batch size up to 32 (figures in
//! docs/model.md). So the evaluator keeps that one plan and runs the
//! positions of a batch one after another, in as many slices as the
//! current rayon pool has threads.

use crate::encoding::{INPUT_LEN, PLANES};
use crate::evaluator::{encode_batch, priors_and_wdl};
use crate::export::{onnx_bytes, ExportError};
use crate::net::{Net, NetConfig};
use brandubh_rules::{RuleSet, POLICY_SIZE};
use brandubh_selfplay::{EvalRequest, Evaluation, Evaluator};
use rayon::prelude::*;
use std::sync::Arc;
use tract_onnx::prelude::*;

pub struct TractEvaluator {
    /// The plan for one position.
    plan: Arc<TypedRunnableModel>,
    rules: Arc<RuleSet>,
    id: String,
}

fn err(e: impl std::fmt::Display) -> ExportError {
    ExportError(e.to_string())
}

impl TractEvaluator {
    /// Exports `net` to ONNX in memory and optimises a plan for one position.
    pub fn new(
        net: &Net,
        config: &NetConfig,
        rules: Arc<RuleSet>,
        id: String,
    ) -> Result<TractEvaluator, ExportError> {
        let bytes = onnx_bytes(net, config)?;
        let plan = tract_onnx::onnx()
            .model_for_read(&mut std::io::Cursor::new(bytes))
            .map_err(err)?
            .with_input_fact(0, f32::fact([1, PLANES, 7, 7]).into())
            .map_err(err)?
            .into_optimized()
            .map_err(err)?
            .into_runnable()
            .map_err(err)?;
        Ok(TractEvaluator { plan, rules, id })
    }

    /// Joined outputs `[1179]` (policy logits, then WDL logits) of one
    /// encoded position.
    fn run_one(&self, input: &[f32]) -> Vec<f32> {
        let x: Tensor = tract_ndarray::Array4::from_shape_vec((1, PLANES, 7, 7), input.to_vec())
            .expect("one position's planes")
            .into();
        let out = self.plan.run(tvec!(x.into())).expect("a fixed plan runs");
        let mut joined = Vec::with_capacity(POLICY_SIZE + 3);
        for o in out.iter() {
            let view = o.to_plain_array_view::<f32>().expect("f32 output");
            joined.extend(view.iter().copied());
        }
        joined
    }
}

impl Evaluator for TractEvaluator {
    fn evaluate(&self, batch: &[EvalRequest<'_>]) -> Vec<Evaluation> {
        let n = batch.len();
        if n == 0 {
            return Vec::new();
        }
        let input = encode_batch(&self.rules, batch);
        let threads = rayon::current_num_threads().max(1);
        let slice = n.div_ceil(threads);
        let outputs: Vec<Vec<f32>> = input
            .par_chunks(slice * INPUT_LEN)
            .map(|chunk| {
                chunk
                    .chunks(INPUT_LEN)
                    .flat_map(|one| self.run_one(one))
                    .collect()
            })
            .collect();
        let joined: Vec<f32> = outputs.concat();
        let width = POLICY_SIZE + 3;
        batch
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let row = &joined[i * width..(i + 1) * width];
                priors_and_wdl(r, &row[..POLICY_SIZE], &row[POLICY_SIZE..])
            })
            .collect()
    }
    fn id(&self) -> String {
        self.id.clone()
    }
}
