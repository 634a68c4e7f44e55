//! Players: every player answers one question, given a game (and maybe a
//! clock), which move? Players are named by spec strings (`random`,
//! `human`, `alphabeta:depth=4`, `mcts:model=DIR`, `otep:CMD`) that every
//! command accepts. Also the game clock, how a game ended, and the
//! OpenTafl Engine Protocol, as an engine and as a host of one.

mod alphabeta;
mod build;
pub mod clock;
mod context;
pub mod ending;
pub mod mcts_player;
pub mod otep;
mod player;
mod simple;
mod spec;

pub use alphabeta::AlphaBetaPlayer;
pub use build::{all_cores, parse_player};
pub use clock::GameClock;
pub use context::PlayContext;
pub use ending::{Ending, ForfeitReason, RecordResult};
pub use mcts_player::{MctsPlayer, MctsReport, MctsSettings};
pub use player::{Forfeit, Player};
pub use simple::{HumanPlayer, RandomPlayer};
pub use spec::{
    AlphaBetaSettings, MctsSpecSettings, PlayerKind, PlayerSpec, PlayerSpecError, Settings,
};
