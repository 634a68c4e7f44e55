//! What a checkpoint's `model.json` holds (the net's shape, the input
//! encoding, the rule set, the weights' hash, provenance) and its checks.
//! No burn here: tools and the fuzz targets read checkpoints' metadata
//! without building a net (the `net` feature adds the rest of the crate).

use crate::encoding::ENCODING_VERSION;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub const CHECKPOINT_FORMAT: u32 = 1;
pub(crate) const META: &str = "model.json";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointMeta {
    pub format: u32,
    pub net: NetShape,
    pub encoding_version: u32,
    pub rules: String,
    /// The rule set's option hash, hex.
    pub rules_hash: String,
    /// Optimiser steps the weights have seen.
    pub step: u64,
    /// Generation in a training run (0 for a fresh net).
    pub generation: u32,
    /// SHA-256 of the weights (tensors in name order), hex; its first 12
    /// digits are the model id, the same for the same weights.
    pub content_hash: String,
    /// Where the weights came from (checkpoints from before it had fields
    /// carry a note only).
    #[serde(default, deserialize_with = "provenance_any")]
    pub provenance: Provenance,
}

/// How a checkpoint came about: each fact in its own field, so nothing
/// has to be parsed back out of a sentence.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    /// In words (the whole provenance of older checkpoints).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
    /// The seed of a randomly initialised net.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The training run (its directory's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// The model id of the checkpoint training started from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// Losses of the last training step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy_loss: Option<f32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_loss: Option<f32>,
    /// Training settings: learning rate of the last step, batch size,
    /// replay window in positions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lr: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_size: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_positions: Option<usize>,
}

impl From<&str> for Provenance {
    fn from(note: &str) -> Provenance {
        Provenance {
            note: note.to_string(),
            ..Provenance::default()
        }
    }
}

/// Reads the provenance as fields, or as the sentence older checkpoints hold.
fn provenance_any<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Provenance, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Any {
        Note(String),
        Fields(Provenance),
    }
    Ok(match Any::deserialize(d)? {
        Any::Note(note) => Provenance::from(note.as_str()),
        Any::Fields(p) => p,
    })
}

/// The net config in a checkpoint (plain serde, independent of burn's Config).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetShape {
    pub channels: usize,
    pub blocks: usize,
    pub value_hidden: usize,
    /// The net has the moves-left output (absent in files of nets without).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub moves_left: bool,
    /// The value head's dense layers once per side to move (absent in
    /// files of nets with one shared head).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub side_value_heads: bool,
}

/// The largest nets a checkpoint or run config may declare: far above
/// anything trained here, and small enough that building one never
/// exhausts memory.
pub const MAX_CHANNELS: usize = 512;
pub const MAX_BLOCKS: usize = 64;
pub const MAX_VALUE_HIDDEN: usize = 4096;

/// A net size outside its bound.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("net.{key} = {value}: must be within {lo}..={hi}")]
pub struct NetShapeError {
    pub key: &'static str,
    pub value: usize,
    pub lo: usize,
    pub hi: usize,
}

impl NetShape {
    /// Whether nets of this shape can go on as nets of shape `to`: the same
    /// but for outputs `to` adds (a moves-left output, value heads per
    /// side), which training grows onto them; none taken away.
    pub fn grows_into(&self, to: &NetShape) -> bool {
        let keeps = |from: bool, to: bool| to || !from;
        *to == NetShape {
            moves_left: to.moves_left,
            side_value_heads: to.side_value_heads,
            ..self.clone()
        } && keeps(self.moves_left, to.moves_left)
            && keeps(self.side_value_heads, to.side_value_heads)
    }

    /// Every size within its bound (channels and the value head at least 1).
    pub fn check(&self) -> Result<(), NetShapeError> {
        for (key, v, lo, hi) in [
            ("channels", self.channels, 1, MAX_CHANNELS),
            ("blocks", self.blocks, 0, MAX_BLOCKS),
            ("value_hidden", self.value_hidden, 1, MAX_VALUE_HIDDEN),
        ] {
            if !(lo..=hi).contains(&v) {
                return Err(NetShapeError {
                    key,
                    value: v,
                    lo,
                    hi,
                });
            }
        }
        Ok(())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("{path}: {why}")]
    Io { path: PathBuf, why: String },
    #[error("{path}: {why}")]
    Invalid { path: PathBuf, why: String },
    #[error("{path}: checkpoint is for rule set `{found}` ({found_hash}), not `{wanted}` ({wanted_hash})")]
    WrongRules {
        path: PathBuf,
        found: String,
        found_hash: String,
        wanted: String,
        wanted_hash: String,
    },
}

/// Reads and checks a checkpoint's metadata alone.
pub fn read_meta(dir: &Path) -> Result<CheckpointMeta, CheckpointError> {
    let path = dir.join(META);
    let text = std::fs::read_to_string(&path).map_err(|e| CheckpointError::Io {
        path: path.clone(),
        why: if e.kind() == std::io::ErrorKind::NotFound {
            "no model.json: not a checkpoint directory (or an unfinished one)".into()
        } else {
            e.to_string()
        },
    })?;
    CheckpointMeta::from_json(&text, &path)
}

impl CheckpointMeta {
    pub fn model_id(&self) -> String {
        self.content_hash.chars().take(12).collect()
    }

    /// Parses and checks a `model.json` (its text; `path` names it in
    /// errors): the format, the content hash's form, the net's bounds and
    /// the input encoding's version. The weights are not looked at.
    pub fn from_json(text: &str, path: &Path) -> Result<CheckpointMeta, CheckpointError> {
        let meta: CheckpointMeta =
            serde_json::from_str(text).map_err(|e| CheckpointError::Invalid {
                path: path.to_path_buf(),
                why: format!("malformed metadata: {e}"),
            })?;
        if meta.format != CHECKPOINT_FORMAT {
            return Err(CheckpointError::Invalid {
                path: path.to_path_buf(),
                why: format!(
                    "checkpoint format {} (this build reads {CHECKPOINT_FORMAT})",
                    meta.format
                ),
            });
        }
        if meta.content_hash.len() != 64
            || !meta.content_hash.bytes().all(|b| b.is_ascii_hexdigit())
        {
            return Err(CheckpointError::Invalid {
                path: path.to_path_buf(),
                why: "content_hash must be 64 hexadecimal digits (the SHA-256 of the weights)"
                    .into(),
            });
        }
        if let Err(why) = meta.net.check() {
            return Err(CheckpointError::Invalid {
                path: path.to_path_buf(),
                why: why.to_string(),
            });
        }
        if meta.encoding_version != ENCODING_VERSION {
            return Err(CheckpointError::Invalid {
                path: path.to_path_buf(),
                why: format!(
                    "input encoding version {} (this build uses {ENCODING_VERSION})",
                    meta.encoding_version
                ),
            });
        }
        Ok(meta)
    }
}
