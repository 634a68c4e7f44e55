//! The one narrow interface between search and any network: a batch of
//! positions in, a prior over each position's legal moves and a
//! win/draw/loss estimate out. The uniform evaluator serves tests and
//! generation zero; the burn net (model crate) implements the same trait.

use brandubh_rules::{Move, Position};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

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
    /// The plies the game is expected to last from here, from nets with a
    /// moves-left output.
    pub moves_left: Option<f32>,
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
                moves_left: None,
            })
            .collect()
    }
    fn id(&self) -> String {
        "uniform".into()
    }
}

/// Any error a model loader reports (the model crate's own
/// typed error, boxed, so this crate needs no burn).
pub type LoaderError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Loads an evaluator from a model directory: the model crate's loader,
/// given to `Models::new` by the program, so search and the arena stay
/// free of burn.
pub type ModelLoader = Arc<
    dyn Fn(&Path, &brandubh_rules::RuleSet) -> Result<Arc<dyn Evaluator>, LoaderError>
        + Send
        + Sync,
>;

/// Why `Models::load` could not give an evaluator.
#[derive(Debug, thiserror::Error)]
pub enum LoadEvaluatorError {
    #[error("cannot load model `{spec}`: this build has no model support (use `uniform`)")]
    NoModelSupport { spec: String },
    /// The loader's own error, which names the model directory.
    #[error(transparent)]
    Model(LoaderError),
}

/// Nets kept loaded at once (a run's evaluation plays a few nets in turn).
const CACHE_SIZE: usize = 4;

/// Where `model=DIR` player specs get their nets: the loader the program
/// gives (the model crate's, so that search and the arena need no burn)
/// and the nets already loaded, newest last, so that a match that builds
/// a player per game shares one loaded net. A handle the program makes
/// once and passes to whatever builds players.
pub struct Models {
    loader: Option<ModelLoader>,
    cache: Mutex<Vec<(CacheKey, Arc<dyn Evaluator>)>>,
}

impl Models {
    /// Nets loaded by `loader`.
    pub fn new(loader: ModelLoader) -> Models {
        Models {
            loader: Some(loader),
            cache: Mutex::new(Vec::new()),
        }
    }

    /// No model support: only `uniform` (for builds and tests without the
    /// net).
    pub fn uniform_only() -> Models {
        Models {
            loader: None,
            cache: Mutex::new(Vec::new()),
        }
    }

    /// `uniform`, or a model directory through the loader. A model this
    /// handle loaded before (same path, rule set and `model.json` size and
    /// time) is shared, not loaded again.
    pub fn load(
        &self,
        spec: &str,
        rules: &brandubh_rules::RuleSet,
    ) -> Result<Arc<dyn Evaluator>, LoadEvaluatorError> {
        if spec == "uniform" {
            return Ok(Arc::new(UniformEvaluator));
        }
        let Some(load) = &self.loader else {
            return Err(LoadEvaluatorError::NoModelSupport {
                spec: spec.to_string(),
            });
        };
        let key = cache_key(Path::new(spec), rules);
        if let Some(key) = &key {
            let cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
            if let Some((_, ev)) = cache.iter().find(|(k, _)| k == key) {
                return Ok(ev.clone());
            }
        }
        let ev = load(Path::new(spec), rules).map_err(LoadEvaluatorError::Model)?;
        if let Some(key) = key {
            let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
            cache.retain(|(k, _)| *k != key);
            if cache.len() >= CACHE_SIZE {
                cache.remove(0);
            }
            cache.push((key, ev.clone()));
        }
        Ok(ev)
    }
}

/// A model directory as loaded: its canonical path, the rule set, and the
/// size and modification time of its `model.json`, so a checkpoint saved
/// again under the same path is loaded afresh.
#[derive(Clone, Debug, PartialEq, Eq)]
struct CacheKey {
    dir: PathBuf,
    rules_hash: u64,
    meta_len: u64,
    meta_mtime: Option<SystemTime>,
}

fn cache_key(dir: &Path, rules: &brandubh_rules::RuleSet) -> Option<CacheKey> {
    let dir = dir.canonicalize().ok()?;
    let meta = std::fs::metadata(dir.join("model.json")).ok()?;
    Some(CacheKey {
        dir,
        rules_hash: rules.hash,
        meta_len: meta.len(),
        meta_mtime: meta.modified().ok(),
    })
}

/// What the net's input depends on, beyond the position's hash: the board
/// itself (against hash collisions), the plies since the last capture
/// (one input plane) and whether the position occurred before (another).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct CacheEntryKey {
    hash: u64,
    board: brandubh_rules::Board,
    side: brandubh_rules::Side,
    quiet_plies: u32,
    repeated: bool,
}

/// Remembers evaluations, so a position the search reaches again (by
/// another order of the same moves, or in the tree of a later move) is not
/// evaluated twice. The evaluation of a position is a function of the
/// net's input, so a hit returns exactly what the evaluator would. Holds
/// up to `capacity` positions; when full it starts afresh.
pub struct CachedEvaluator {
    inner: Arc<dyn Evaluator>,
    cache: Mutex<std::collections::HashMap<CacheEntryKey, Evaluation>>,
    capacity: usize,
    hits: std::sync::atomic::AtomicU64,
    misses: std::sync::atomic::AtomicU64,
}

impl CachedEvaluator {
    pub fn new(inner: Arc<dyn Evaluator>, capacity: usize) -> CachedEvaluator {
        CachedEvaluator {
            inner,
            cache: Mutex::new(std::collections::HashMap::new()),
            capacity: capacity.max(1),
            hits: Default::default(),
            misses: Default::default(),
        }
    }

    /// (hits, misses) so far.
    pub fn stats(&self) -> (u64, u64) {
        use std::sync::atomic::Ordering::Relaxed;
        (self.hits.load(Relaxed), self.misses.load(Relaxed))
    }

    fn key(r: &EvalRequest<'_>) -> CacheEntryKey {
        CacheEntryKey {
            hash: r.position.hash(),
            board: *r.position.board(),
            side: r.position.side_to_move(),
            quiet_plies: r.position.quiet_plies(),
            repeated: r.repetitions > 0,
        }
    }
}

impl Evaluator for CachedEvaluator {
    fn evaluate(&self, batch: &[EvalRequest<'_>]) -> Vec<Evaluation> {
        use std::sync::atomic::Ordering::Relaxed;
        let keys: Vec<CacheEntryKey> = batch.iter().map(CachedEvaluator::key).collect();
        let mut out: Vec<Option<Evaluation>> = {
            let cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
            keys.iter()
                .zip(batch)
                .map(|(k, r)| {
                    cache
                        .get(k)
                        .filter(|e| e.priors.len() == r.moves.len())
                        .cloned()
                })
                .collect()
        };
        let missing: Vec<usize> = (0..batch.len()).filter(|&i| out[i].is_none()).collect();
        self.hits
            .fetch_add((batch.len() - missing.len()) as u64, Relaxed);
        self.misses.fetch_add(missing.len() as u64, Relaxed);
        if !missing.is_empty() {
            let requests: Vec<EvalRequest<'_>> = missing
                .iter()
                .map(|&i| EvalRequest {
                    position: batch[i].position,
                    moves: batch[i].moves,
                    repetitions: batch[i].repetitions,
                })
                .collect();
            let fresh = self.inner.evaluate(&requests);
            let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
            if cache.len() + fresh.len() > self.capacity {
                cache.clear();
            }
            for (&i, e) in missing.iter().zip(fresh) {
                cache.insert(keys[i], e.clone());
                out[i] = Some(e);
            }
        }
        out.into_iter()
            .map(|e| e.expect("every position evaluated"))
            .collect()
    }
    fn id(&self) -> String {
        self.inner.id()
    }
}
