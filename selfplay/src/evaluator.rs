//! The one narrow interface between search and any network: a batch of
//! positions in, a prior over each position's legal moves and a
//! win/draw/loss estimate out. The uniform evaluator serves tests and
//! generation zero; the burn net (model crate) implements the same trait.

use brandubh_rules::{Move, Position};
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// One position to evaluate.
pub struct EvalRequest<'a> {
    pub position: &'a Position,
    /// The legal moves, in the order the priors must follow.
    pub moves: &'a [Move],
    /// How often this position occurred before in the game.
    pub repetitions: u8,
}

/// A net's answer for one position.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// Prior probability of each legal move, same order as the request; sums to 1.
    pub priors: Vec<f32>,
    /// Win, draw, loss probabilities for the side to move.
    pub wdl: [f32; 3],
}

impl Evaluation {
    /// Expected score for the side to move, in [-1, 1].
    pub fn value(&self) -> f32 {
        self.wdl[0] - self.wdl[2]
    }
}

pub trait Evaluator: Send + Sync {
    /// Evaluates every request in one call (one forward pass for a net).
    fn evaluate(&self, batch: &[EvalRequest<'_>]) -> Vec<Evaluation>;
    /// Identifies the model in records (e.g. a checkpoint's content hash).
    fn id(&self) -> String;
}

/// Equal priors, an even value: search guided only by the rules.
#[derive(Clone, Copy, Debug, Default)]
pub struct UniformEvaluator;

impl Evaluator for UniformEvaluator {
    fn evaluate(&self, batch: &[EvalRequest<'_>]) -> Vec<Evaluation> {
        batch
            .iter()
            .map(|r| Evaluation {
                priors: vec![1.0 / r.moves.len().max(1) as f32; r.moves.len()],
                wdl: [0.0, 1.0, 0.0],
            })
            .collect()
    }
    fn id(&self) -> String {
        "uniform".into()
    }
}

/// Loads an evaluator from a model directory. The binary registers the
/// model crate's loader here, so search and the arena stay free of burn.
pub type ModelLoader = fn(&Path, &brandubh_rules::RuleSet) -> Result<Arc<dyn Evaluator>, String>;

static LOADER: OnceLock<ModelLoader> = OnceLock::new();

/// Registers the loader for `model=DIR` (first call wins).
pub fn register_model_loader(loader: ModelLoader) {
    let _ = LOADER.set(loader);
}

/// `uniform`, or a model directory through the registered loader.
pub fn load_evaluator(
    spec: &str,
    rules: &brandubh_rules::RuleSet,
) -> Result<Arc<dyn Evaluator>, String> {
    if spec == "uniform" {
        return Ok(Arc::new(UniformEvaluator));
    }
    match LOADER.get() {
        Some(load) => load(Path::new(spec), rules),
        None => Err(format!(
            "cannot load model `{spec}`: this build has no model support (use `uniform`)"
        )),
    }
}
