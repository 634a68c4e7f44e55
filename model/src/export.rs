//! ONNX export with a model card, checked in an independent runtime.
//!
//! The net is exported through burn-onnx's forward capture (opset 18) with
//! a dynamic batch axis. Export works on a deep copy rebuilt from the
//! net's record: capture moves the batch-norm statistics of the module it
//! is given, after which the original could no longer run. The exported
//! file is then loaded in tract, and the card records tract's own input and
//! output names and the test vectors (burn's outputs on a few positions),
//! after checking tract reproduces them.

use crate::checkpoint::CheckpointMeta;
use crate::encoding::{encode, ENCODING_VERSION, INPUT_LEN, PLANES};
use crate::evaluator::NetEvaluator;
use crate::net::{Net, NetConfig};
use brandubh_rules::{opentafl_rules, Game, RuleSet, POLICY_SIZE};
use burn::module::Module;
use burn::tensor::{Device, Tensor};
use burn_onnx::export::{AxisSpec, InputSpec, OnnxExporter};
use serde::Serialize;
use serde_json::json;
use std::path::Path;
use std::sync::Arc;
use tract_onnx::prelude::*;

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ExportError(pub String);

fn err(e: impl std::fmt::Display) -> ExportError {
    ExportError(e.to_string())
}

/// Positions used as test vectors: the start and a few plies of a fixed game.
fn test_positions(rules: &Arc<RuleSet>) -> Vec<(String, String, Vec<f32>)> {
    let mut g = Game::new(rules.clone());
    let mut out = Vec::new();
    for i in 0..4 {
        if g.is_over() {
            break;
        }
        let p = *g.position();
        let mut planes = vec![0.0; INPUT_LEN];
        encode(
            rules,
            &p,
            p.repetitions(g.history()).min(255) as u8,
            &mut planes,
        );
        out.push((
            p.board().to_record(),
            p.side_to_move().as_str().to_string(),
            planes,
        ));
        let moves = g.legal_moves();
        let mv = moves[(i * 7 + 3) % moves.len()];
        g.play(mv).expect("legal");
    }
    out
}

/// A tract plan for an ONNX file with the batch fixed to `n`.
pub fn tract_plan(path: &Path, n: usize) -> Result<Arc<TypedRunnableModel>, ExportError> {
    tract_onnx::onnx()
        .model_for_path(path)
        .map_err(err)?
        .with_input_fact(0, f32::fact([n, PLANES, 7, 7]).into())
        .map_err(err)?
        .into_optimized()
        .map_err(err)?
        .into_runnable()
        .map_err(err)
}

/// Runs a fixed-batch tract plan on `n` encoded positions; returns the
/// joined outputs `[n, 1179]` row-major.
pub fn run_plan(
    plan: &Arc<TypedRunnableModel>,
    input: &[f32],
    n: usize,
) -> Result<Vec<f32>, ExportError> {
    let x: tract_onnx::prelude::Tensor =
        tract_ndarray::Array4::from_shape_vec((n, PLANES, 7, 7), input.to_vec())
            .map_err(err)?
            .into();
    let result = plan.run(tvec!(x.into())).map_err(err)?;
    let view = result[0].to_plain_array_view::<f32>().map_err(err)?;
    Ok(view.iter().copied().collect())
}

/// Runs an ONNX file in tract on `n` encoded positions; returns the joined
/// outputs `[n, 1179]` row-major and the graph's input/output names.
pub fn run_tract(
    path: &Path,
    input: &[f32],
    n: usize,
) -> Result<(Vec<f32>, String, String), ExportError> {
    let plan = tract_plan(path, n)?;
    let model = plan.model();
    let in_name = model.node(model.inputs[0].node).name.clone();
    let out_name = model.node(model.outputs[0].node).name.clone();
    Ok((run_plan(&plan, input, n)?, in_name, out_name))
}

#[derive(Serialize)]
pub struct ExportReport {
    pub max_abs_diff: f32,
    pub input_name: String,
    pub output_name: String,
}

/// The net as ONNX (opset 18, a dynamic batch axis, one output `[N, 1179]`).
/// Works on a deep copy: capture moves the batch-norm statistics of the
/// module it is given.
pub fn onnx_bytes(net: &Net, config: &NetConfig) -> Result<Vec<u8>, ExportError> {
    let device = Device::flex();
    let copy = config.init(&device).load_record(net.clone().into_record());
    let copy = copy.valid();
    let sample = Tensor::<4>::zeros([2, PLANES, 7, 7], &device);
    let validation = Tensor::<4>::zeros([3, PLANES, 7, 7], &device);
    let specs = [InputSpec::new([
        AxisSpec::dynamic("batch"),
        AxisSpec::Static,
        AxisSpec::Static,
        AxisSpec::Static,
    ])];
    let onnx = OnnxExporter::new()
        .export_dynamic(
            &copy,
            sample,
            validation,
            &specs,
            |m: &Net, x: Tensor<4>| m.forward_joined(x),
        )
        .map_err(|e| ExportError(format!("ONNX export failed: {e:?}")))?;
    Ok(onnx.as_bytes().to_vec())
}

/// Exports `net` to `onnx_path` and writes the model card beside it
/// (`FILE.json`); returns the largest difference between tract and burn.
pub fn export(
    net: &Net,
    config: &NetConfig,
    meta: &CheckpointMeta,
    rules: &Arc<RuleSet>,
    onnx_path: &Path,
) -> Result<ExportReport, ExportError> {
    let device = Device::flex();
    let bytes = onnx_bytes(net, config)?;
    let tmp = onnx_path.with_extension("onnx.tmp");
    std::fs::write(&tmp, &bytes).map_err(|e| ExportError(format!("{}: {e}", tmp.display())))?;
    std::fs::rename(&tmp, onnx_path)
        .map_err(|e| ExportError(format!("{}: {e}", onnx_path.display())))?;

    // Test vectors from burn, checked in tract.
    let positions = test_positions(rules);
    let n = positions.len();
    let input: Vec<f32> = positions.iter().flat_map(|p| p.2.iter().copied()).collect();
    let ev = NetEvaluator::new(net, device.clone(), rules.clone(), meta.model_id());
    let (policy, wdl) = ev.forward_raw(input.clone(), n);
    let (tract_out, input_name, output_name) = run_tract(onnx_path, &input, n)?;
    let width = POLICY_SIZE + 3;
    let mut max_diff = 0.0f32;
    for i in 0..n {
        for k in 0..POLICY_SIZE {
            max_diff = max_diff.max((tract_out[i * width + k] - policy[i * POLICY_SIZE + k]).abs());
        }
        for k in 0..3 {
            max_diff =
                max_diff.max((tract_out[i * width + POLICY_SIZE + k] - wdl[i * 3 + k]).abs());
        }
    }
    if max_diff > 1e-4 {
        return Err(ExportError(format!(
            "tract differs from burn by {max_diff} on the test vectors"
        )));
    }
    let (ot, unsupported) = opentafl_rules(rules);
    let vectors: Vec<_> = positions
        .iter()
        .enumerate()
        .map(|(i, (rec, side, _))| {
            let p = &policy[i * POLICY_SIZE..(i + 1) * POLICY_SIZE];
            let mut top: Vec<(usize, f32)> = p.iter().copied().enumerate().collect();
            top.sort_by(|a, b| b.1.total_cmp(&a.1));
            json!({
                "position": rec,
                "side_to_move": side,
                "wdl_logits": &wdl[i * 3..i * 3 + 3],
                "policy_logits_top8": top[..8].iter().map(|(k, v)| json!({"index": k, "logit": v})).collect::<Vec<_>>(),
                "policy_logits_sum": p.iter().sum::<f32>(),
            })
        })
        .collect();
    let card = json!({
        "model": {"id": meta.model_id(), "content_hash": meta.content_hash, "step": meta.step, "generation": meta.generation,
                   "net": {"channels": config.channels, "blocks": config.blocks, "value_hidden": config.value_hidden},
                   "provenance": meta.provenance},
        "rules": {"name": rules.name(), "hash": format!("{:016x}", rules.hash), "options": rules.options,
                  "opentafl": ot, "not_expressible_in_opentafl": unsupported},
        "onnx": {"opset": 18, "input": {"name": input_name, "shape": ["batch", PLANES, 7, 7], "dtype": "float32"},
                 "output": {"name": output_name, "shape": ["batch", POLICY_SIZE + 3], "dtype": "float32",
                            "layout": "columns 0..1176 are policy logits, 1176..1179 are win/draw/loss logits"}},
        "encoding": {
            "version": ENCODING_VERSION,
            "orientation": "fixed: row r, column c of every plane is square (file c, rank r+1); a1 is [0][0], g7 is [6][6]; the side to move has its own plane",
            "planes": ["attackers", "defending men", "king", "ones if the defenders are to move", "throne d4", "corners",
                       "plies since the last capture / quiet-ply limit (100 when the rule set has none), at most 1",
                       "ones if this position occurred before in the game"],
        },
        "policy": {
            "size": POLICY_SIZE,
            "index": "(from * 4 + direction) * 6 + (distance - 1), from = rank*7 + file (a1 = 0), direction 0 north (+rank), 1 east (+file), 2 south, 3 west, distance 1..6",
            "masking": "set the logits of illegal moves to -infinity, then softmax; a pass (only ever the sole legal move) has no index",
        },
        "value": "softmax of the three logits: win, draw, loss for the side to move",
        "test_vectors": {"positions": vectors, "checked_in": "tract-onnx 0.23", "max_abs_diff_vs_burn": max_diff},
    });
    let card_path = onnx_path.with_extension("json");
    std::fs::write(
        &card_path,
        serde_json::to_string_pretty(&card).map_err(err)?,
    )
    .map_err(|e| ExportError(format!("{}: {e}", card_path.display())))?;
    Ok(ExportReport {
        max_abs_diff: max_diff,
        input_name,
        output_name,
    })
}
