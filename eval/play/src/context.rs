//! What building players needs beyond a spec: where nets come from and
//! the MCTS players' evaluation workers. One handle, made by the program
//! and passed to every place that builds players, so that a match shares
//! one loaded net and one set of worker threads across its games.

use brandubh_mcts::Models;
use std::sync::{Arc, Mutex};

pub struct PlayContext {
    models: Models,
    pools: Mutex<Vec<Arc<rayon::ThreadPool>>>,
}

impl std::fmt::Debug for PlayContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PlayContext")
    }
}

impl PlayContext {
    /// Players whose nets come from `models`.
    pub fn new(models: Models) -> Arc<PlayContext> {
        Arc::new(PlayContext {
            models,
            pools: Mutex::new(Vec::new()),
        })
    }

    /// Players without nets (`mcts:model=uniform` still works): for tests
    /// and builds without the model crate.
    pub fn uniform_only() -> Arc<PlayContext> {
        PlayContext::new(Models::uniform_only())
    }

    pub fn models(&self) -> &Models {
        &self.models
    }

    /// `n` evaluation workers, each a one-thread pool (so the net's kernels
    /// stay on that thread), shared by every player built from this
    /// context.
    pub fn worker_pools(&self, n: usize) -> Vec<Arc<rayon::ThreadPool>> {
        let mut pools = self.pools.lock().unwrap_or_else(|p| p.into_inner());
        while pools.len() < n {
            let i = pools.len();
            pools.push(Arc::new(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(1)
                    .thread_name(move |_| format!("mcts-eval-{i}"))
                    .build()
                    .expect("thread pool"),
            ));
        }
        pools[..n].to_vec()
    }
}
