//! Helpers shared by the search tests: hand-made positions and the plain
//! PUCT settings.
#![allow(unused_imports, dead_code)]

use brandubh_mcts::MctsConfig;

pub use brandubh_rules::testing::{game, squares, ALL};

/// Plain PUCT, without the win-in-one shortcut, so the tests show that the
/// search itself finds and avoids wins in one.
pub fn puct() -> MctsConfig {
    MctsConfig {
        win_in_one: false,
        ..MctsConfig::default()
    }
}
