//! The arena: matches of game pairs with sides swapped from the same seeded
//! opening, their game records, and what is read off them: Elo and SPRT
//! statistics, ratings of many players, side balance and the tuning of the
//! alpha-beta's evaluation weights. Also the checks the fuzz targets run.

pub mod balance;
pub mod config;
pub mod error;
pub mod fuzzing;
pub mod game;
pub mod matches;
pub mod opening;
pub mod ratings;
pub mod record;
pub mod resume;
pub mod stats;
pub mod sweep;
pub mod tune;

pub use config::{MatchConfig, TimeControl};
pub use error::ArenaError;
pub use game::charge;
pub use matches::{run_match, run_match_from, MatchSummary, MoveTimes, SprtReport, Wdl};
pub use opening::{balanced_opening, opening, opening_score, OpeningFilter, MAX_OPENING_DRAWS};
pub use record::{parse_records, partial_path, read_records, GameRecord, RECORD_FORMAT};
pub use resume::{earlier_pairs, resumable_pairs, Resumed};
