//! Training: replay windows of self-play positions with symmetric
//! augmentation, the optimiser step, and the run orchestrator
//! (self-play → train → evaluate, resumable, logged to TensorBoard).

pub mod config;
pub mod data;
pub mod run;
pub mod store;
pub mod teacher;
pub mod trainer;
pub mod worker;

pub use config::RunConfig;
pub use data::{draw_batch, sample, window, Sample, WindowEntry};
pub use run::{Progress, Run, RunError, RunState};
pub use trainer::{cosine_lr, StepStats, Trainer};
