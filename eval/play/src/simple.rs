//! The simplest players: a seeded random mover and a human at a terminal.

use crate::clock::GameClock;
use crate::ending::ForfeitReason;
use crate::player::{Forfeit, Player};
use brandubh_rules::{Game, Move, MoveRecord};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::io::{BufRead, Write};

/// Plays a uniformly random legal move, from a seeded generator.
pub struct RandomPlayer {
    rng: ChaCha8Rng,
}

impl RandomPlayer {
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl Player for RandomPlayer {
    fn name(&self) -> String {
        "random".into()
    }
    fn choose(&mut self, game: &Game, _clock: Option<&GameClock>) -> Result<Move, Forfeit> {
        let moves = game.legal_moves();
        Ok(moves[self.rng.random_range(0..moves.len())])
    }
}

/// Reads moves from a terminal; re-asks until the move is legal.
pub struct HumanPlayer<R: BufRead + Send, W: Write + Send> {
    input: R,
    output: W,
}

impl<R: BufRead + Send, W: Write + Send> HumanPlayer<R, W> {
    pub fn new(input: R, output: W) -> Self {
        HumanPlayer { input, output }
    }
}

impl<R: BufRead + Send, W: Write + Send> Player for HumanPlayer<R, W> {
    fn name(&self) -> String {
        "human".into()
    }
    /// Asks until the move is legal; `quit`, `exit` or the end of input
    /// resign the game (reason `resigned`).
    fn choose(&mut self, game: &Game, _clock: Option<&GameClock>) -> Result<Move, Forfeit> {
        let resign = |detail: &str| Forfeit {
            reason: ForfeitReason::Resigned,
            detail: detail.to_string(),
        };
        loop {
            let _ = write!(
                self.output,
                "{} to move (e.g. d2-d5, `moves` lists them, `quit` ends): ",
                game.side_to_move()
            );
            let _ = self.output.flush();
            let mut line = String::new();
            match self.input.read_line(&mut line) {
                Ok(0) | Err(_) => {
                    let _ = writeln!(self.output);
                    return Err(resign("input closed"));
                }
                Ok(_) => {}
            }
            let text = line.trim();
            match text {
                "" => continue,
                "quit" | "exit" => return Err(resign("quit")),
                "moves" => {
                    let list: Vec<String> =
                        game.legal_moves().iter().map(|m| m.to_string()).collect();
                    let _ = writeln!(self.output, "{}", list.join(" "));
                    continue;
                }
                _ => {}
            }
            match text.parse::<MoveRecord>() {
                Err(e) => {
                    let _ = writeln!(self.output, "{e}");
                }
                Ok(rec) => {
                    let mut probe = game.clone();
                    match probe.play(rec.mv) {
                        Ok(_) => return Ok(rec.mv),
                        Err(e) => {
                            let _ = writeln!(self.output, "illegal: {e}");
                        }
                    }
                }
            }
        }
    }
}
