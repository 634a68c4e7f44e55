//! Self-play game records in Parquet, schema version 1 (docs/selfplay.md).
//!
//! A shard is two files: `shard-NNNNNN.positions.parquet` (one row per
//! searched position) and `shard-NNNNNN.games.parquet` (one row per game).
//! Each is written under a `.tmp` name and renamed into place, positions
//! first, so a shard exists for readers exactly when its games file does.
//! A shard that cannot be read is reported by name and skipped.

mod guard;
mod read;
mod schema;
mod write;

#[cfg(test)]
mod footer_tests;
#[cfg(test)]
mod tests;

use guard::*;
pub use guard::{in_decoder, quiet_decoder_panics};
pub use read::*;
pub use schema::*;
pub use write::*;
