//! Checkpoints: a directory with `model.safetensors` (weights, burn-store)
//! and `model.json` (net config, encoding version, rule set, training
//! step, and the SHA-256 of the weights file). Files are written under
//! temporary names and renamed, the JSON last, so a checkpoint is complete
//! exactly when its JSON exists and its hash matches. Loading checks every
//! field and refuses a mismatch with a message naming it.

use crate::encoding::ENCODING_VERSION;
use crate::evaluator::NetEvaluator;
use crate::net::{Net, NetConfig};
use brandubh_rules::RuleSet;
use burn::tensor::Device;
use burn_store::{ModuleSnapshot, SafetensorsStore};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::meta::{
    read_meta, CheckpointError, CheckpointMeta, NetShape, Provenance, CHECKPOINT_FORMAT, META,
};

const WEIGHTS: &str = "model.safetensors";

impl From<&NetConfig> for NetShape {
    fn from(c: &NetConfig) -> Self {
        NetShape {
            channels: c.channels,
            blocks: c.blocks,
            value_hidden: c.value_hidden,
            moves_left: c.moves_left,
            side_value_heads: c.side_value_heads,
        }
    }
}

impl NetShape {
    /// The burn config of a net of this shape.
    pub fn config(&self) -> NetConfig {
        NetConfig::new()
            .with_channels(self.channels)
            .with_blocks(self.blocks)
            .with_value_hidden(self.value_hidden)
            .with_moves_left(self.moves_left)
            .with_side_value_heads(self.side_value_heads)
    }
}

/// `net` (of `config`) with the outputs `want` asks for and it lacks grown
/// onto it, and its config to match: a freshly initialised moves-left
/// output, value heads per side that start as copies of the shared one.
/// How a run goes on from nets without them (a fork that adds them).
pub fn grow_outputs(
    mut net: Net,
    mut config: NetConfig,
    want: &NetShape,
    device: &Device,
) -> (Net, NetConfig) {
    if want.moves_left && !config.moves_left {
        net = net.with_moves_left(device);
        config = config.with_moves_left(true);
    }
    if want.side_value_heads && !config.side_value_heads {
        net = net.with_side_value_heads();
        config = config.with_side_value_heads(true);
    }
    (net, config)
}

/// A weights file's tensors; a file that is not valid safetensors is an
/// error.
fn read_tensors(bytes: &[u8]) -> Result<safetensors::SafeTensors<'_>, String> {
    safetensors::SafeTensors::deserialize(bytes)
        .map_err(|e| format!("not a valid safetensors file: {e}"))
}

/// SHA-256 over the tensors in name order (name, dtype, shape, data): the
/// same weights give the same hash whatever order the file lists them in.
fn weights_hash(st: &safetensors::SafeTensors) -> String {
    let mut tensors = st.tensors();
    tensors.sort_by(|a, b| a.0.cmp(&b.0));
    let mut h = Sha256::new();
    for (name, view) in tensors {
        h.update((name.len() as u64).to_le_bytes());
        h.update(name.as_bytes());
        h.update(format!("{:?}{:?}", view.dtype(), view.shape()).as_bytes());
        h.update((view.data().len() as u64).to_le_bytes());
        h.update(view.data());
    }
    hex(&h.finalize())
}

/// The net shape the weights themselves hold (the stem's channels, the
/// residual blocks, the value head's width, the moves-left output, the
/// value heads per side), so that a model.json that
/// declares another shape is refused before a net of that shape is built.
fn weights_shape(st: &safetensors::SafeTensors) -> Result<NetShape, String> {
    let dim0 = |name: &str| {
        st.tensor(name)
            .ok()
            .and_then(|t| t.shape().first().copied())
            .ok_or_else(|| format!("no tensor `{name}`"))
    };
    let blocks = st
        .names()
        .iter()
        .filter_map(|n| {
            n.strip_prefix("blocks.")?
                .split('.')
                .next()?
                .parse::<usize>()
                .ok()
        })
        .map(|i| i + 1)
        .max()
        .unwrap_or(0);
    Ok(NetShape {
        channels: dim0("stem.conv.weight")?,
        blocks,
        value_hidden: dim0("value_fc1.bias")?,
        moves_left: st.tensor("moves_left_fc.bias").is_ok(),
        side_value_heads: st.tensor("value_fc1_def.bias").is_ok(),
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), CheckpointError> {
    brandubh_durable::write(path, bytes).map_err(|e| CheckpointError::Io {
        path: path.to_path_buf(),
        why: e.to_string(),
    })
}

/// Saves `net` to `dir` (created if needed); returns the written metadata.
pub fn save(
    dir: &Path,
    net: &Net,
    config: &NetConfig,
    rules: &RuleSet,
    step: u64,
    generation: u32,
    provenance: impl Into<Provenance>,
) -> Result<CheckpointMeta, CheckpointError> {
    std::fs::create_dir_all(dir).map_err(|e| CheckpointError::Io {
        path: dir.to_path_buf(),
        why: e.to_string(),
    })?;
    let mut store = SafetensorsStore::from_bytes(None);
    net.save_into(&mut store)
        .map_err(|e| CheckpointError::Invalid {
            path: dir.join(WEIGHTS),
            why: format!("cannot serialise weights: {e}"),
        })?;
    let bytes = store.get_bytes().map_err(|e| CheckpointError::Invalid {
        path: dir.join(WEIGHTS),
        why: format!("cannot serialise weights: {e}"),
    })?;
    let meta = CheckpointMeta {
        format: CHECKPOINT_FORMAT,
        net: config.into(),
        encoding_version: ENCODING_VERSION,
        rules: rules.name().to_string(),
        rules_hash: format!("{:016x}", rules.hash),
        step,
        generation,
        content_hash: weights_hash(&read_tensors(&bytes).map_err(|why| {
            CheckpointError::Invalid {
                path: dir.join(WEIGHTS),
                why,
            }
        })?),
        provenance: provenance.into(),
    };
    write_atomic(&dir.join(WEIGHTS), &bytes)?;
    write_atomic(
        &dir.join(META),
        serde_json::to_string_pretty(&meta)
            .expect("plain struct")
            .as_bytes(),
    )?;
    Ok(meta)
}

/// Loads a checkpoint for `rules`, checking everything; the net is on `device`.
pub fn load(
    dir: &Path,
    rules: &RuleSet,
    device: &Device,
) -> Result<(Net, NetConfig, CheckpointMeta), CheckpointError> {
    let meta = read_meta(dir)?;
    let wanted_hash = format!("{:016x}", rules.hash);
    if meta.rules_hash != wanted_hash {
        return Err(CheckpointError::WrongRules {
            path: dir.to_path_buf(),
            found: meta.rules.clone(),
            found_hash: meta.rules_hash.clone(),
            wanted: rules.name().to_string(),
            wanted_hash,
        });
    }
    let wpath = dir.join(WEIGHTS);
    let bytes = std::fs::read(&wpath).map_err(|e| CheckpointError::Io {
        path: wpath.clone(),
        why: e.to_string(),
    })?;
    let tensors = read_tensors(&bytes).map_err(|why| CheckpointError::Invalid {
        path: wpath.clone(),
        why: format!("corrupted: {why}"),
    })?;
    let hash = weights_hash(&tensors);
    if hash != meta.content_hash {
        return Err(CheckpointError::Invalid {
            path: wpath,
            why: format!(
                "corrupted: its weights hash to {}…, model.json expects {}…",
                &hash[..12],
                meta.model_id()
            ),
        });
    }
    let held = weights_shape(&tensors).map_err(|why| CheckpointError::Invalid {
        path: wpath.clone(),
        why,
    })?;
    if held != meta.net {
        let s = |n: &NetShape| {
            format!(
                "{}×{} (value head {})",
                n.channels, n.blocks, n.value_hidden
            )
        };
        return Err(CheckpointError::Invalid {
            path: dir.join(META),
            why: format!(
                "declares a {} net, but the weights hold a {} one",
                s(&meta.net),
                s(&held)
            ),
        });
    }
    let config = meta.net.config();
    let mut net = config.init(device);
    let mut store = SafetensorsStore::from_bytes(Some(bytes));
    let result = net
        .load_from(&mut store)
        .map_err(|e| CheckpointError::Invalid {
            path: wpath.clone(),
            why: format!("cannot read weights: {e}"),
        })?;
    if !result.errors.is_empty() || !result.missing.is_empty() {
        return Err(CheckpointError::Invalid {
            path: wpath,
            why: format!(
                "weights do not fit the {}×{} net: missing {:?}, errors {:?}",
                config.channels, config.blocks, result.missing, result.errors
            ),
        });
    }
    Ok((net, config, meta))
}

/// The inference engine of loaded models.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InferenceEngine {
    /// Our own batched inference (`native_eval`).
    Native,
    /// tract, over the net exported to ONNX.
    Tract,
    /// burn itself, on the CPU.
    Flex,
}

impl InferenceEngine {
    /// The faster engine here for a net of `channels` trunk channels
    /// (docs/model.md): ours up to 64 channels, the widest measured;
    /// tract's kernels above.
    pub fn for_width(channels: usize) -> InferenceEngine {
        if channels <= 64 {
            InferenceEngine::Native
        } else {
            InferenceEngine::Tract
        }
    }
}

impl std::str::FromStr for InferenceEngine {
    type Err = String;
    fn from_str(s: &str) -> Result<InferenceEngine, String> {
        match s {
            "native" => Ok(InferenceEngine::Native),
            "tract" => Ok(InferenceEngine::Tract),
            "flex" => Ok(InferenceEngine::Flex),
            other => Err(format!("`{other}`: expected `native`, `tract` or `flex`")),
        }
    }
}

/// `BRANDUBH_INFERENCE` holds no engine's name.
#[derive(Debug, thiserror::Error)]
#[error("BRANDUBH_INFERENCE=`{0}`: expected `native`, `tract` or `flex`")]
pub struct InferenceEngineError(pub String);

/// The engine chosen by the environment variable `BRANDUBH_INFERENCE`
/// (`native`, `tract` or `flex`); none when it is unset or empty, and
/// each net then gets `InferenceEngine::for_width`.
pub fn inference_engine() -> Result<Option<InferenceEngine>, InferenceEngineError> {
    match std::env::var("BRANDUBH_INFERENCE").as_deref() {
        Err(_) | Ok("") => Ok(None),
        Ok("native") => Ok(Some(InferenceEngine::Native)),
        Ok("tract") => Ok(Some(InferenceEngine::Tract)),
        Ok("flex") => Ok(Some(InferenceEngine::Flex)),
        Ok(other) => Err(InferenceEngineError(other.to_string())),
    }
}

/// Why a checkpoint could not become an evaluator for search.
#[derive(Debug, thiserror::Error)]
pub enum LoadEvaluatorError {
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    #[error(transparent)]
    Engine(#[from] InferenceEngineError),
    #[error("{}: preparing the net for tract: {source}", path.display())]
    Tract {
        path: PathBuf,
        source: crate::export::ExportError,
    },
}

/// Loads a checkpoint as an evaluator for search, on the engine the
/// environment names (see `inference_engine`), else the faster one for its
/// width.
pub fn load_evaluator(
    dir: &Path,
    rules: &RuleSet,
) -> Result<Arc<dyn brandubh_mcts::Evaluator>, LoadEvaluatorError> {
    load_evaluator_on(dir, rules, None)
}

/// Loads a checkpoint as an evaluator for search on `engine`; with none,
/// on the engine the environment names, else the faster one for its width.
pub fn load_evaluator_on(
    dir: &Path,
    rules: &RuleSet,
    engine: Option<InferenceEngine>,
) -> Result<Arc<dyn brandubh_mcts::Evaluator>, LoadEvaluatorError> {
    let engine = match engine {
        Some(e) => Some(e),
        None => inference_engine()?,
    };
    let device = Device::flex();
    let (net, config, meta) = load(dir, rules, &device)?;
    let rules = Arc::new(rules.clone());
    Ok(
        match engine.unwrap_or(InferenceEngine::for_width(config.channels)) {
            InferenceEngine::Flex => {
                Arc::new(NetEvaluator::new(&net, device, rules, meta.model_id()))
            }
            InferenceEngine::Native => Arc::new(crate::native_eval::NativeEvaluator::new(
                &net,
                rules,
                meta.model_id(),
            )),
            InferenceEngine::Tract => Arc::new(
                crate::tract_eval::TractEvaluator::new(&net, &config, rules, meta.model_id())
                    .map_err(|source| LoadEvaluatorError::Tract {
                        path: dir.to_path_buf(),
                        source,
                    })?,
            ),
        },
    )
}

/// `load_evaluator_on` with `engine` as the loader of a
/// `brandubh_mcts::Models` handle, so `model=DIR` player specs load through
/// it.
pub fn model_loader(engine: Option<InferenceEngine>) -> brandubh_mcts::ModelLoader {
    Arc::new(move |dir, rules| Ok(load_evaluator_on(dir, rules, engine)?))
}
