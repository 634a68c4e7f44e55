//! The Brandubh rules engine: a 7×7 bitboard board, rule sets read from
//! TOML as independent options, move generation, captures, every end
//! condition, Zobrist hashing, OpenTafl notation and perft.
//!
//! No machine learning and no I/O beyond reading rule files lives here, so
//! search and the arena build and test fast.

mod bitboard;
mod board;
mod builtin;
mod game;
mod index;
mod moves;
pub mod notation;
mod opentafl;
mod otg;
mod outcome;
mod perft;
mod position;
mod role;
pub mod ruleset;
mod side;
mod square;
mod symmetry;
pub mod testing;
pub mod toml_keyed;
mod zobrist;

pub use bitboard::Bitboard;
pub use board::Board;
pub use builtin::{all_names, BUILTIN, RULES_DIR};
pub use game::{Game, IllegalMove, Ply};
pub use index::POLICY_SIZE;
pub use moves::{Move, MoveList};
pub use notation::{MoveRecord, NotationError};
pub use opentafl::{from_opentafl, opentafl_rules, OpenTaflRulesError};
pub use otg::{otg_result, read_otg, write_otg, OtgError, OtgGame};
pub use outcome::{EndReason, GameResult, Outcome, UnknownName};
pub use perft::{divide, perft, perft_stats, perft_with_history, DepthStats};
pub use position::{Position, PositionError};
pub use role::Role;
pub use ruleset::{RuleSet, RulesError};
pub use side::{ParseSideError, Side};
pub use square::{Direction, ParseSquareError, Square, NUM_SQUARES, SIZE};
pub use symmetry::Symmetry;
pub use zobrist::{fnv1a, splitmix64};
