//! The policy/value network in burn: input encoding, the residual net,
//! a batched evaluator for search, and checkpoints. burn lives here and in
//! `train/` only.

pub mod encoding;
pub mod meta;

#[cfg(feature = "net")]
pub mod checkpoint;
#[cfg(feature = "net")]
pub mod evaluator;
#[cfg(feature = "net")]
pub mod export;
#[cfg(feature = "net")]
pub mod native_eval;
#[cfg(feature = "net")]
pub mod net;
#[cfg(feature = "net")]
pub mod tract_eval;

pub use meta::{read_meta, CheckpointError, CheckpointMeta, NetShape, NetShapeError, Provenance};

#[cfg(feature = "net")]
pub use checkpoint::{
    grow_outputs, inference_engine, load, load_evaluator, load_evaluator_on, model_loader, save,
    InferenceEngine, InferenceEngineError, LoadEvaluatorError,
};
#[cfg(feature = "net")]
pub use evaluator::NetEvaluator;
#[cfg(feature = "net")]
pub use native_eval::{NativeEvaluator, NativeNet};
#[cfg(feature = "net")]
pub use net::{Net, NetConfig, MOVES_LEFT_SCALE};
#[cfg(feature = "net")]
pub use tract_eval::TractEvaluator;
