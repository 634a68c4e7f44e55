//! The net run by tract on its own ONNX export, behind the same evaluator
//! interface as `NetEvaluator`. tract runs a plan optimised for a fixed
//! batch size, and on this machine the plan for one position, run once per
//! position, was faster per position than plans for 4 to 16 positions at
//! once, and faster than burn-flex at any batch size up to 32 (figures in
//! docs/model.md). So the evaluator keeps that one plan and runs the
//! positions of a batch one after another, in as many slices as the
//! current rayon pool has threads.

use crate::encoding::{INPUT_LEN, PLANES};
use crate::evaluator::evaluate_in_slices;
use crate::export::{onnx_bytes, ExportError};
use crate::net::{Net, NetConfig};
use brandubh_mcts::{EvalRequest, Evaluation, Evaluator};
use brandubh_rules::{RuleSet, POLICY_SIZE};
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

    /// Policy and WDL logits of encoded positions, one position at a time.
    fn run(&self, input: &[f32]) -> (Vec<f32>, Vec<f32>) {
        let n = input.len() / INPUT_LEN;
        let (mut policy, mut wdl) = (
            Vec::with_capacity(n * POLICY_SIZE),
            Vec::with_capacity(n * 3),
        );
        for one in input.chunks(INPUT_LEN) {
            let x: Tensor = tract_ndarray::Array4::from_shape_vec((1, PLANES, 7, 7), one.to_vec())
                .expect("one position's planes")
                .into();
            let out = self.plan.run(tvec!(x.into())).expect("a fixed plan runs");
            for (o, dst) in out.iter().zip([&mut policy, &mut wdl]) {
                let view = o.to_plain_array_view::<f32>().expect("f32 output");
                dst.extend(view.iter().copied());
            }
        }
        (policy, wdl)
    }
}

impl Evaluator for TractEvaluator {
    fn evaluate(&self, batch: &[EvalRequest<'_>]) -> Vec<Evaluation> {
        evaluate_in_slices(&self.rules, batch, |chunk| self.run(chunk))
    }
    fn id(&self) -> String {
        self.id.clone()
    }
}
