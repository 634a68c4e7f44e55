//! Self-play: a driver that plays many games at once with MCTS, one
//! evaluation batch per step, and the Parquet game records that training
//! reads (schema, writer, reader and the guard against malformed files).

pub mod config;
pub mod driver;
pub mod records;

pub use config::{OpponentSides, SelfPlayConfig};
pub use driver::{
    run_selfplay, run_selfplay_against, Opponent, OpponentPlayer, Opponents, SelfPlayJob,
    SelfPlayStats,
};
pub use records::{
    read_dir, read_shard, read_shard_bytes, write_shard, PositionRecord, RecordError, SelfPlayGame,
};
