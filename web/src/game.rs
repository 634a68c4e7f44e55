//! Games as the page sends them (a rule set's name and the moves so far)
//! and as the server answers (the board, whose move, the legal moves, what
//! each move captured, how the game ended). The server replays every
//! request from the start, so the rules live only here and a request
//! holds all its state.

use crate::error::{bad, ApiError};
use brandubh_rules::{Bitboard, Game, MoveRecord, RuleSet, Square};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The longest game a request may carry (the longest ply limit of the
/// seed rule sets is 2500).
pub const MAX_PLIES: usize = 5000;

/// A game to replay: the rule set and every move from the start.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameRequest {
    pub rules: String,
    #[serde(default)]
    pub moves: Vec<String>,
}

/// One played move as the page draws it.
#[derive(Debug, Serialize)]
pub struct PlyView {
    /// `from-to` (or `pass`).
    #[serde(rename = "move")]
    pub mv: String,
    /// The OpenTafl record, captures included (`d7-d5xd4`).
    pub record: String,
    pub captured: Vec<String>,
    /// Whose move it was.
    pub side: &'static str,
}

/// A game's state after its moves.
#[derive(Debug, Serialize)]
pub struct GameView {
    pub rules: String,
    /// The 49 squares, a1 first, then b1 … g1, a2 …: `.` empty, `t`
    /// attacker, `T` defending man, `K` king.
    pub board: String,
    pub side_to_move: &'static str,
    pub plies: Vec<PlyView>,
    /// Legal moves, `from-to`; empty once the game is over.
    pub legal: Vec<String>,
    /// Null while the game goes on; else the result and why.
    pub outcome: Option<OutcomeView>,
    /// How often the position on the board occurred before.
    pub repetitions: u32,
    /// Plies since the last capture, and the rule set's limit (0: none).
    pub quiet_plies: u32,
    pub quiet_ply_limit: u32,
    /// The OpenTafl position record of the board.
    pub position: String,
}

#[derive(Debug, Serialize)]
pub struct OutcomeView {
    /// `attackers_win`, `defenders_win` or `draw`.
    pub result: &'static str,
    /// The rules' end reason (`king_escaped`, `king_captured`, …).
    pub reason: &'static str,
}

/// Replays `moves` from the start; an illegal or unreadable move is an
/// error naming its number and why.
pub fn replay(rules: &Arc<RuleSet>, moves: &[String]) -> Result<Game, ApiError> {
    if moves.len() > MAX_PLIES {
        return Err(bad(format!(
            "{} moves: a game may hold at most {MAX_PLIES}",
            moves.len()
        )));
    }
    let mut game = Game::new(rules.clone());
    for (i, text) in moves.iter().enumerate() {
        let rec: MoveRecord = text
            .parse()
            .map_err(|e| bad(format!("move {} (`{}`): {e}", i + 1, short(text))))?;
        game.play_record(&rec).map_err(|e| {
            bad(format!(
                "move {} (`{}`) is illegal: {e}",
                i + 1,
                short(text)
            ))
        })?;
    }
    Ok(game)
}

/// A move's text cut short for an error message.
fn short(text: &str) -> String {
    text.chars().take(24).collect()
}

fn squares(bb: Bitboard) -> Vec<String> {
    bb.into_iter().map(|s: Square| s.to_string()).collect()
}

pub fn view(game: &Game) -> GameView {
    let board = game.position().board();
    let cells: String = Square::all()
        .map(|sq| match board.role_at(sq) {
            None => '.',
            Some(brandubh_rules::Role::Attackers) => 't',
            Some(brandubh_rules::Role::Defenders) => 'T',
            Some(brandubh_rules::Role::King) => 'K',
        })
        .collect();
    let mut side = game.start_position().side_to_move();
    let plies = game
        .plies()
        .iter()
        .map(|p| {
            let v = PlyView {
                mv: p.mv.to_string(),
                record: p.record().to_string(),
                captured: squares(p.captured),
                side: side.as_str(),
            };
            side = side.other();
            v
        })
        .collect();
    let limits = &game.rules().options.end;
    GameView {
        rules: game.rules().name().to_string(),
        board: cells,
        side_to_move: game.side_to_move().as_str(),
        plies,
        legal: game.legal_moves().iter().map(|m| m.to_string()).collect(),
        outcome: game.outcome().map(|o| OutcomeView {
            result: o.result.as_str(),
            reason: o.reason.as_str(),
        }),
        repetitions: game.position().repetitions(game.history()),
        quiet_plies: game.position().quiet_plies(),
        quiet_ply_limit: limits.quiet_ply_limit,
        position: board.to_record(),
    }
}
