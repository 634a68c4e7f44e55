//! The policy/value network in burn: input encoding, the residual net,
//! a batched evaluator for search, and checkpoints. burn lives here and in
//! `train/` only.

pub mod checkpoint;
pub mod encoding;
pub mod evaluator;
pub mod export;
pub mod net;
pub mod tract_eval;

pub use checkpoint::{
    inference_engine, load, load_evaluator, model_loader, read_meta, save, CheckpointError,
    CheckpointMeta, InferenceEngine, InferenceEngineError, LoadEvaluatorError, NetShape,
    Provenance,
};
pub use evaluator::NetEvaluator;
pub use net::{Net, NetConfig};
pub use tract_eval::TractEvaluator;
