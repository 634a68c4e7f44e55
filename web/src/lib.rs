//! `brandubh serve`: one HTTP server on loopback with a page to play the
//! nets, see what they think, open and save games and watch training
//! runs, and the small JSON API the page uses (docs/serve.md). The rules
//! live here, never in the page: every request carries its game's moves
//! and the server replays them. Searches run on blocking threads, at most
//! a few at once, each bounded in time; the server reads files only under
//! the directories it was given.

pub mod error;
pub mod game;
mod handlers;
pub mod players;
pub mod think;

use brandubh_play::PlayContext;
use brandubh_rules::RuleSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use error::ApiError;
pub use players::Limits;

/// A run directory's report data (the numbers `brandubh report` draws),
/// given by the program: the report reads checkpoints, which this crate
/// leaves to the model crate.
pub type RunReporter =
    Arc<dyn Fn(&Path) -> Result<serde_json::Value, String> + Send + Sync + 'static>;

/// Everything the server serves.
pub struct ServeConfig {
    /// Rule sets offered, by name.
    pub rules: Vec<Arc<RuleSet>>,
    /// Net directories (`NAME/model.json`, `model.onnx`, `model.card.json`).
    pub models_dir: PathBuf,
    /// Training runs (`NAME/generations.jsonl`, charts).
    pub runs_dir: PathBuf,
    /// onnxruntime-web's files for the in-browser net (`ort.min.js`,
    /// `*.wasm`); the page says how to install them when absent.
    pub vendor_dir: Option<PathBuf>,
    pub ctx: Arc<PlayContext>,
    pub reporter: Option<RunReporter>,
    pub limits: Limits,
    /// Searches that may run at once; more wait for a slot.
    pub searches: usize,
}

/// The server's shared state.
pub(crate) struct AppState {
    pub cfg: ServeConfig,
    pub slots: tokio::sync::Semaphore,
}

/// The router: the page, its assets and the API.
pub fn router(cfg: ServeConfig) -> axum::Router {
    let slots = tokio::sync::Semaphore::new(cfg.searches.max(1));
    handlers::routes(Arc::new(AppState { cfg, slots }))
}

/// Serves until the process ends.
pub async fn serve(listener: tokio::net::TcpListener, cfg: ServeConfig) -> std::io::Result<()> {
    axum::serve(listener, router(cfg)).await
}

/// Binds `addr`, calls `on_bound` with the address bound (the port chosen
/// when `addr` asks for port 0), and serves until the process ends, on a
/// runtime of its own.
pub fn serve_blocking(
    addr: std::net::SocketAddr,
    cfg: ServeConfig,
    on_bound: impl FnOnce(std::net::SocketAddr),
) -> std::io::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        on_bound(listener.local_addr()?);
        serve(listener, cfg).await
    })
}
