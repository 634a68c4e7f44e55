//! Monte Carlo tree search guided by any batched evaluator: the search
//! (`search`), the one narrow interface through which a net reaches it
//! (`evaluator`: requests in, policy and value out, with a uniform
//! evaluator for tests and a cache), and the search's settings.

pub mod config;
pub mod evaluator;
pub mod search;

pub use config::{in_range, ConfigError, MctsConfig};
pub use evaluator::{
    CachedEvaluator, EvalRequest, Evaluation, Evaluator, LoadEvaluatorError, LoaderError,
    ModelLoader, Models, UniformEvaluator,
};
pub use search::{Advance, MoveAnalysis, OwnedRequest, RootStats, Search};
