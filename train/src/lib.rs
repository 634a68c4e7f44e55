//! Training: replay windows of self-play positions with symmetric
//! augmentation, the optimiser step, and the run orchestrator
//! (self-play → train → evaluate, resumable, logged to TensorBoard).

pub mod config;
pub mod fuzzing;
pub mod opponent;
pub mod teacher;

#[cfg(feature = "net")]
pub mod data;
#[cfg(feature = "net")]
pub mod run;
#[cfg(feature = "net")]
pub mod store;
#[cfg(feature = "net")]
pub mod trainer;
#[cfg(feature = "net")]
pub mod worker;

pub use config::RunConfig;
#[cfg(feature = "net")]
pub use data::{sample, window, winner, Sample, WindowEntry, WindowSampler};
#[cfg(feature = "net")]
pub use run::{past_generation_names, Progress, Run, RunError, RunState};
#[cfg(feature = "net")]
pub use trainer::{cosine_lr, StepStats, Trainer};
