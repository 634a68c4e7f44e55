//! The `Player` interface and the simplest players.

use crate::search::evaluation::EvalWeights;
use crate::search::time::Limits;
use crate::search::Searcher;
use brandubh_rules::{Game, Move, MoveRecord, RuleSet};
use brandubh_selfplay::{load_evaluator, Advance, Evaluator, MctsConfig, Search};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::io::{BufRead, Write};
use std::sync::Arc;

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

/// A spec string that could not be used.
#[derive(Debug, thiserror::Error)]
#[error("player spec `{spec}`: {why}")]
pub struct PlayerSpecError {
    pub spec: String,
    pub why: String,
}

/// The alpha-beta baseline as a player.
pub struct AlphaBetaPlayer {
    spec: String,
    searcher: Searcher,
    limits: Limits,
    /// The last search, for commands that report it.
    pub last: Option<crate::SearchResult>,
}

impl AlphaBetaPlayer {
    pub fn new(
        rules: Arc<RuleSet>,
        limits: Limits,
        weights: EvalWeights,
        tt_mb: usize,
        spec: String,
    ) -> Self {
        AlphaBetaPlayer {
            spec,
            searcher: Searcher::new(rules, weights, tt_mb),
            limits,
            last: None,
        }
    }
}

impl Player for AlphaBetaPlayer {
    fn name(&self) -> String {
        self.spec.clone()
    }
    fn choose(&mut self, game: &Game) -> Move {
        let r = self.searcher.search(game, self.limits);
        let mv = r.best;
        self.last = Some(r);
        mv
    }
}

/// Monte Carlo tree search guided by an evaluator (`uniform` or a model).
pub struct MctsPlayer {
    spec: String,
    rules: Arc<RuleSet>,
    cfg: MctsConfig,
    evaluator: Arc<dyn Evaluator>,
    sims: u32,
    rng: ChaCha8Rng,
}

impl Player for MctsPlayer {
    fn name(&self) -> String {
        self.spec.clone()
    }
    fn choose(&mut self, game: &Game) -> Move {
        let mut search = Search::new(self.rules.clone(), self.cfg.clone(), game);
        search.start(self.sims, false, &mut self.rng);
        while search.advance() == Advance::NeedsEval {
            let eval = self.evaluator.evaluate(&[search.leaf_request()]);
            search.apply(&eval[0], &mut self.rng);
        }
        search.choose(0.0, &mut self.rng).0
    }
}

/// A parsed player spec: `KIND[:key=value,key=value…]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerSpec {
    pub text: String,
    pub kind: String,
    pub params: Vec<(String, String)>,
}

impl PlayerSpec {
    /// Parses and checks a spec; every command accepts the same strings.
    ///
    /// - `random`
    /// - `human`
    /// - `alphabeta:depth=N`, `alphabeta:ms=N`, `alphabeta:nodes=N` (any
    ///   mix; with none, depth 4), plus `tt=MiB` (default 16) and
    ///   `eval=FILE.toml` (weights; default `configs/eval/RULES.toml` where
    ///   one exists, else `configs/eval/default.toml`).
    /// - `mcts:model=DIR|uniform,sims=N` (default uniform, 400), `gumbel=1`
    ///   for Gumbel root selection.
    pub fn parse(text: &str) -> Result<PlayerSpec, PlayerSpecError> {
        let err = |why: String| PlayerSpecError {
            spec: text.to_string(),
            why,
        };
        let (kind, rest) = text.split_once(':').unwrap_or((text, ""));
        let mut params = Vec::new();
        for part in rest.split(',').filter(|p| !p.is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| err(format!("`{part}` is not key=value")))?;
            params.push((k.trim().to_string(), v.trim().to_string()));
        }
        let allowed: &[&str] = match kind {
            "random" | "human" => &[],
            "alphabeta" | "ab" => &["depth", "ms", "nodes", "tt", "eval"],
            "mcts" => &["model", "sims", "gumbel"],
            _ => {
                return Err(err(
                    "unknown player (known: random, human, alphabeta, mcts)".into(),
                ))
            }
        };
        for (k, v) in &params {
            if !allowed.contains(&k.as_str()) {
                return Err(err(format!(
                    "`{kind}` takes no `{k}` (it takes: {})",
                    allowed.join(", ")
                )));
            }
            if k != "eval" && k != "model" && v.parse::<u64>().is_err() {
                return Err(err(format!("`{k}={v}`: expected a whole number")));
            }
        }
        Ok(PlayerSpec {
            text: text.to_string(),
            kind: if kind == "ab" {
                "alphabeta".into()
            } else {
                kind.to_string()
            },
            params,
        })
    }

    fn num(&self, key: &str) -> Option<u64> {
        self.params
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| v.parse().ok())
    }

    /// Builds a fresh player; `seed` feeds any randomness.
    pub fn build(
        &self,
        rules: &Arc<RuleSet>,
        seed: u64,
    ) -> Result<Box<dyn Player>, PlayerSpecError> {
        match self.kind.as_str() {
            "random" => Ok(Box::new(RandomPlayer::new(seed))),
            "human" => Ok(Box::new(HumanPlayer::new(
                std::io::BufReader::new(std::io::stdin()),
                std::io::stdout(),
            ))),
            "mcts" => {
                let model = self
                    .params
                    .iter()
                    .find(|(k, _)| k == "model")
                    .map_or("uniform", |(_, v)| v.as_str());
                let evaluator = load_evaluator(model, rules).map_err(|why| PlayerSpecError {
                    spec: self.text.clone(),
                    why,
                })?;
                Ok(Box::new(MctsPlayer {
                    spec: self.text.clone(),
                    rules: rules.clone(),
                    cfg: MctsConfig {
                        gumbel: self.num("gumbel").unwrap_or(0) != 0,
                        ..MctsConfig::default()
                    },
                    evaluator,
                    sims: self.num("sims").unwrap_or(400).max(1) as u32,
                    rng: ChaCha8Rng::seed_from_u64(seed),
                }))
            }
            _ => {
                let mut limits = Limits {
                    depth: self.num("depth").map(|d| d as u32),
                    nodes: self.num("nodes"),
                    millis: self.num("ms"),
                };
                if limits == Limits::default() {
                    limits.depth = Some(4);
                }
                let weights =
                    match self.params.iter().find(|(k, _)| k == "eval") {
                        None => EvalWeights::builtin(rules.name()),
                        Some((_, path)) => EvalWeights::from_file(std::path::Path::new(path))
                            .map_err(|why| PlayerSpecError {
                                spec: self.text.clone(),
                                why,
                            })?,
                    };
                let tt = self.num("tt").unwrap_or(16) as usize;
                Ok(Box::new(AlphaBetaPlayer::new(
                    rules.clone(),
                    limits,
                    weights,
                    tt,
                    self.text.clone(),
                )))
            }
        }
    }
}

/// Parses a spec and builds the player in one step.
pub fn parse_player(
    spec: &str,
    rules: &Arc<RuleSet>,
    seed: u64,
) -> Result<Box<dyn Player>, PlayerSpecError> {
    PlayerSpec::parse(spec)?.build(rules, seed)
}
