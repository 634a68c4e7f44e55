//! Self-play: Monte Carlo tree search guided by any batched evaluator,
//! a driver that plays many games at once with one evaluation batch per
//! step, and the Parquet game records that training reads.

pub mod config;
pub mod driver;
pub mod durable;
pub mod evaluator;
pub mod mcts;
pub mod records;

pub use config::{ConfigError, MctsConfig, SelfPlayConfig};
pub use driver::{run_selfplay, SelfPlayJob, SelfPlayStats};
pub use evaluator::{
    load_evaluator, register_model_loader, CachedEvaluator, EvalRequest, Evaluation, Evaluator,
    LoadEvaluatorError, LoaderError, ModelLoader, UniformEvaluator,
};
pub use mcts::{Advance, MoveAnalysis, OwnedRequest, RootStats, Search};
pub use records::{
    read_dir, read_shard, read_shard_bytes, write_shard, PositionRecord, RecordError, SelfPlayGame,
};
