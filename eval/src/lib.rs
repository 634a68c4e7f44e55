//! Players and, later, the alpha-beta baseline, the arena and ratings.
//!
//! Every player answers one question: given a game, which move? Players are
//! named by spec strings (`random`, `human`) that every command accepts.

mod player;

pub use player::{parse_player, Budget, HumanPlayer, Player, PlayerSpecError, RandomPlayer};
