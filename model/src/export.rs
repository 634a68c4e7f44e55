//! ONNX export with a model card, checked in an independent runtime.
//!
//! The net is exported through burn-onnx's forward capture (opset 18) with
//! a dynamic batch axis. Export works on a deep copy rebuilt from the
//! net's record: capture moves the batch-norm statistics of the module it
//! is given, after which the original could no longer run. The exported
//! file is then loaded in tract, and the card records tract's own input and
//! output names and the test vectors (burn's outputs on a few positions),
//! after checking tract reproduces them.

use crate::encoding::{encode, ENCODING_VERSION, INPUT_LEN, PLANES};
use crate::evaluator::NetEvaluator;
use crate::meta::CheckpointMeta;
use crate::net::{Net, NetConfig, MOVES_LEFT_SCALE};
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

/// A test vector's position with everything the encoding reads.
struct TestPosition {
    record: String,
    side: String,
    quiet_plies: u32,
    repeated: bool,
    planes: Vec<f32>,
}

/// Positions used as test vectors: the start and a few plies of a fixed
/// game, one of them with a capture behind it and quiet plies since.
fn test_positions(rules: &Arc<RuleSet>) -> Vec<TestPosition> {
    let mut g = Game::new(rules.clone());
    let mut out = Vec::new();
    for i in 0..6 {
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
        out.push(TestPosition {
            record: p.board().to_record(),
            side: p.side_to_move().as_str().to_string(),
            quiet_plies: p.quiet_plies(),
            repeated: p.repetitions(g.history()) > 0,
            planes,
        });
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
/// policy logits `[n, 1176]` and the WDL logits `[n, 3]`, row-major.
pub fn run_plan(
    plan: &Arc<TypedRunnableModel>,
    input: &[f32],
    n: usize,
) -> Result<(Vec<f32>, Vec<f32>), ExportError> {
    let x: tract_onnx::prelude::Tensor =
        tract_ndarray::Array4::from_shape_vec((n, PLANES, 7, 7), input.to_vec())
            .map_err(err)?
            .into();
    let result = plan.run(tvec!(x.into())).map_err(err)?;
    let read = |i: usize| -> Result<Vec<f32>, ExportError> {
        let view = result[i].to_plain_array_view::<f32>().map_err(err)?;
        Ok(view.iter().copied().collect())
    };
    Ok((read(0)?, read(1)?))
}

/// Policy logits, WDL logits, and the graph's input and output names.
pub type TractRun = (Vec<f32>, Vec<f32>, Vec<String>);

/// Runs an ONNX file in tract on `n` encoded positions.
pub fn run_tract(path: &Path, input: &[f32], n: usize) -> Result<TractRun, ExportError> {
    let plan = tract_plan(path, n)?;
    let model = plan.model();
    let mut names = vec![model.node(model.inputs[0].node).name.clone()];
    for o in &model.outputs {
        let label = model.outlet_label(*o).map(str::to_string);
        names.push(label.unwrap_or_else(|| model.node(o.node).name.clone()));
    }
    let (policy, wdl) = run_plan(&plan, input, n)?;
    Ok((policy, wdl, names))
}

#[derive(Serialize)]
pub struct ExportReport {
    pub max_abs_diff: f32,
    /// The graph's input and output names as tract reads them.
    pub names: Vec<String>,
    pub card: std::path::PathBuf,
}

/// The names the exported graph's input and outputs carry.
pub const INPUT_NAME: &str = "board";
pub const POLICY_NAME: &str = "policy";
pub const WDL_NAME: &str = "wdl";

/// Gives the graph's input and outputs our names (burn's capture generates
/// names such as `tensor_41`), everywhere they are referenced.
fn name_graph(bytes: &[u8]) -> Result<Vec<u8>, ExportError> {
    use onnx_ir::{Message, ModelProto};
    let mut model = ModelProto::parse_from_bytes(bytes).map_err(err)?;
    let graph = model
        .graph
        .as_mut()
        .ok_or(ExportError("ONNX model without a graph".into()))?;
    let mut renames: Vec<(String, String)> = Vec::new();
    if graph.input.len() != 1 || graph.output.len() != 2 {
        return Err(ExportError(format!(
            "expected 1 input and 2 outputs, the capture has {} and {}",
            graph.input.len(),
            graph.output.len()
        )));
    }
    renames.push((graph.input[0].name.clone(), INPUT_NAME.into()));
    renames.push((graph.output[0].name.clone(), POLICY_NAME.into()));
    renames.push((graph.output[1].name.clone(), WDL_NAME.into()));
    let rename = |name: &mut String| {
        if let Some((_, new)) = renames.iter().find(|(old, _)| old == name) {
            *name = new.clone();
        }
    };
    for v in graph
        .input
        .iter_mut()
        .chain(graph.output.iter_mut())
        .chain(graph.value_info.iter_mut())
    {
        rename(&mut v.name);
    }
    for node in graph.node.iter_mut() {
        node.input.iter_mut().for_each(rename);
        node.output.iter_mut().for_each(rename);
    }
    model.write_to_bytes().map_err(err)
}

/// The net as ONNX: opset 18, a dynamic batch axis, input `board`
/// `[N, 8, 7, 7]`, outputs `policy` `[N, 1176]` and `wdl` `[N, 3]` (logits;
/// `[N, 4]` with the moves-left output last).
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
            |m: &Net, x: Tensor<4>| m.forward(x),
        )
        .map_err(|e| ExportError(format!("ONNX export failed: {e:?}")))?;
    name_graph(onnx.as_bytes())
}

/// The model card's path for an ONNX file: `model.onnx` → `model.card.json`
/// (never a checkpoint's own `model.json`).
pub fn card_path(onnx_path: &Path) -> std::path::PathBuf {
    onnx_path.with_extension("card.json")
}

/// Exports `net` to `onnx_path` and writes the model card beside it
/// (`card_path`), with `training` (the run's record of the net, or null)
/// as its provenance; returns the largest difference between tract and
/// burn on the test vectors.
pub fn export(
    net: &Net,
    config: &NetConfig,
    meta: &CheckpointMeta,
    rules: &Arc<RuleSet>,
    onnx_path: &Path,
    training: serde_json::Value,
) -> Result<ExportReport, ExportError> {
    let device = Device::flex();
    let bytes = onnx_bytes(net, config)?;
    brandubh_durable::write(onnx_path, &bytes)
        .map_err(|e| ExportError(format!("{}: {e}", onnx_path.display())))?;

    // Test vectors from burn, checked in tract.
    let positions = test_positions(rules);
    let n = positions.len();
    let input: Vec<f32> = positions
        .iter()
        .flat_map(|p| p.planes.iter().copied())
        .collect();
    let ev = NetEvaluator::new(net, device.clone(), rules.clone(), meta.model_id());
    let (policy, wdl) = ev.forward_raw(input.clone(), n);
    let width = net.value_width();
    let (t_policy, t_wdl, names) = run_tract(onnx_path, &input, n)?;
    let max_diff = t_policy
        .iter()
        .zip(&policy)
        .chain(t_wdl.iter().zip(&wdl))
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    if max_diff > 1e-4 {
        return Err(ExportError(format!(
            "tract differs from burn by {max_diff} on the test vectors"
        )));
    }
    let (ot, unsupported) = opentafl_rules(rules);
    let vectors: Vec<_> = positions
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let p = &policy[i * POLICY_SIZE..(i + 1) * POLICY_SIZE];
            let mut top: Vec<(usize, f32)> = p.iter().copied().enumerate().collect();
            top.sort_by(|a, b| b.1.total_cmp(&a.1));
            let mut v = json!({
                "position": t.record,
                "side_to_move": t.side,
                "plies_since_capture": t.quiet_plies,
                "repeated": t.repeated,
                "input": t.planes,
                "wdl_logits": &wdl[i * width..i * width + 3],
                "policy_logits_top8": top[..8].iter().map(|(k, v)| json!({"index": k, "logit": v})).collect::<Vec<_>>(),
                "policy_logits_sum": p.iter().sum::<f32>(),
            });
            if width > 3 {
                v["moves_left_output"] = json!(wdl[i * width + 3]);
            }
            v
        })
        .collect();
    let card = json!({
        "model": {"id": meta.model_id(), "content_hash": meta.content_hash, "step": meta.step, "generation": meta.generation,
                   "net": {"channels": config.channels, "blocks": config.blocks, "value_hidden": config.value_hidden, "moves_left": config.moves_left, "side_value_heads": config.side_value_heads},
                   "provenance": meta.provenance},
        "rules": {"name": rules.name(), "hash": format!("{:016x}", rules.hash), "options": rules.options,
                  "opentafl": ot, "not_expressible_in_opentafl": unsupported},
        "onnx": {"opset": 18, "input": {"name": INPUT_NAME, "shape": ["batch", PLANES, 7, 7], "dtype": "float32"},
                 "outputs": [{"name": POLICY_NAME, "shape": ["batch", POLICY_SIZE], "dtype": "float32", "what": "policy logits"},
                             {"name": WDL_NAME, "shape": ["batch", width], "dtype": "float32", "what": if width > 3 {
                                 "win, draw, loss logits for the side to move, then the moves-left output"
                             } else {
                                 "win, draw, loss logits for the side to move"
                             }}]},
        "training": training,
        "encoding": {
            "version": ENCODING_VERSION,
            "orientation": "fixed: row r, column c of every plane is square (file c, rank r+1); a1 is [0][0], g7 is [6][6]; the side to move has its own plane",
            "planes": ["attackers", "defending men", "king", "ones if the defenders are to move", "throne d4", "corners",
                       "plies since the last capture / quiet-ply limit (100 when the rule set has none), at most 1",
                       "ones if this position occurred before in the game"],
            "quiet_ply_limit": if rules.options.end.quiet_ply_limit > 0 { rules.options.end.quiet_ply_limit } else { 100 },
            "layout": "input[plane][row][column], planes in the order listed; piece planes are 1 where the piece stands, 0 elsewhere; the other planes are constant",
            "test_vector_input": "each test vector carries its full input tensor (`input`, 392 floats in that layout) beside the position, side to move, plies since the last capture and the repetition flag it encodes",
        },
        "policy": {
            "size": POLICY_SIZE,
            "index": "(from * 4 + direction) * 6 + (distance - 1), from = rank*7 + file (a1 = 0), direction 0 north (+rank), 1 east (+file), 2 south, 3 west, distance 1..6",
            "masking": "set the logits of illegal moves to -infinity, then softmax; a pass (only ever the sole legal move) has no index",
        },
        "value": if config.side_value_heads {
            "softmax of the first three logits: win, draw, loss for the side to move (the net holds a value head for each side to move and picks it by input plane 3; nothing changes for the caller)"
        } else {
            "softmax of the first three logits: win, draw, loss for the side to move"
        },
        "moves_left": if width > 3 {
            json!(format!("the fourth column of `{WDL_NAME}` times {MOVES_LEFT_SCALE}, at least 0: the plies the game is expected to last from this position"))
        } else {
            json!(null)
        },
        "test_vectors": {"positions": vectors, "checked_in": "tract-onnx 0.23", "max_abs_diff_vs_burn": max_diff},
    });
    let card_path = card_path(onnx_path);
    let text = serde_json::to_string_pretty(&card).map_err(err)?;
    brandubh_durable::write(&card_path, text.as_bytes())
        .map_err(|e| ExportError(format!("{}: {e}", card_path.display())))?;
    Ok(ExportReport {
        max_abs_diff: max_diff,
        names,
        card: card_path,
    })
}
