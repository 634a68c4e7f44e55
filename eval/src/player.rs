//! The `Player` interface and the simplest players.

use brandubh_rules::{Game, Move, MoveRecord};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::io::{BufRead, Write};

/// How much a player may think about one move.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Budget {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub millis: Option<u64>,
}

pub trait Player: Send {
    /// The spec string that recreates this player.
    fn name(&self) -> String;
    /// A legal move for the side to move; the game is not over.
    fn choose(&mut self, game: &Game) -> Move;
}

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
    fn choose(&mut self, game: &Game) -> Move {
        let moves = game.legal_moves();
        moves[self.rng.random_range(0..moves.len())]
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
    fn choose(&mut self, game: &Game) -> Move {
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
                    let _ = writeln!(self.output, "\ninput closed; ending the game");
                    std::process::exit(0);
                }
                Ok(_) => {}
            }
            let text = line.trim();
            match text {
                "" => continue,
                "quit" | "exit" => std::process::exit(0),
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
                        Ok(_) => return rec.mv,
                        Err(e) => {
                            let _ = writeln!(self.output, "illegal: {e}");
                        }
                    }
                }
            }
        }
    }
}

/// A spec string that names no player we know.
#[derive(Debug, thiserror::Error)]
#[error("player spec `{spec}`: {why}")]
pub struct PlayerSpecError {
    pub spec: String,
    pub why: String,
}

/// Builds a player from its spec string; `seed` feeds any randomness.
pub fn parse_player(spec: &str, seed: u64) -> Result<Box<dyn Player>, PlayerSpecError> {
    let (kind, _params) = spec.split_once(':').unwrap_or((spec, ""));
    match kind {
        "random" => Ok(Box::new(RandomPlayer::new(seed))),
        "human" => Ok(Box::new(HumanPlayer::new(
            std::io::BufReader::new(std::io::stdin()),
            std::io::stdout(),
        ))),
        _ => Err(PlayerSpecError {
            spec: spec.to_string(),
            why: "unknown player (known: random, human)".into(),
        }),
    }
}
