//! Players, the alpha-beta baseline, the arena and ratings.
//!
//! Every player answers one question: given a game, which move? Players are
//! named by spec strings (`random`, `human`, `alphabeta:depth=4`) that every
//! command accepts.

pub mod arena;
pub mod balance;
pub mod charts;
pub mod ending;
pub mod fuzzing;
pub mod mcts_player;
pub mod otep;
mod player;
pub mod ratings;
pub mod search;
pub mod stats;
pub mod tune;

pub use arena::{read_records, run_match, GameRecord, MatchConfig, MatchSummary};
pub use ending::{Ending, ForfeitReason, RecordResult};
pub use mcts_player::{MctsPlayer, MctsReport, MctsSettings};
pub use player::{
    parse_player, AlphaBetaPlayer, Forfeit, HumanPlayer, Player, PlayerSpec, PlayerSpecError,
    RandomPlayer,
};
pub use search::evaluation::{EvalWeights, WeightsError};
pub use search::time::{GameClock, Limits};
pub use search::{SearchResult, Searcher, WIN};
