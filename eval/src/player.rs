//! The `Player` interface and the simplest players.

use crate::ending::ForfeitReason;
use crate::mcts_player::{sims_limit, MctsPlayer, MctsSettings, DEFAULT_BATCH};
use crate::search::evaluation::EvalWeights;
use crate::search::time::{GameClock, Limits};
use crate::search::Searcher;
use brandubh_rules::{Game, Move, MoveRecord, RuleSet};
use brandubh_selfplay::{load_evaluator, MctsConfig};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::io::{BufRead, Write};
use std::sync::Arc;
use std::time::Duration;

pub trait Player: Send {
    /// The spec string that recreates this player.
    fn name(&self) -> String;
    /// What ratings know this player by: the spec, with a net's path
    /// replaced by its model id, so that one net keeps one rating however
    /// its path is spelt or wherever its run directory has moved.
    fn identity(&self) -> String {
        self.name()
    }
    /// A legal move for the side to move; the game is not over.
    fn choose(&mut self, game: &Game) -> Move;
    /// A move under a game clock: a thinking player decides how long to
    /// think (`GameClock::budget`); the others play as `choose`.
    fn choose_clocked(&mut self, game: &Game, clock: &GameClock) -> Move {
        let _ = clock;
        self.choose(game)
    }
    /// A move, or the reason this player forfeits the game: an external
    /// engine that crashed, hung or answered nonsense loses that game and
    /// the match goes on. In-process players never forfeit.
    fn try_choose(&mut self, game: &Game, clock: Option<&GameClock>) -> Result<Move, Forfeit> {
        Ok(match clock {
            Some(c) => self.choose_clocked(game, c),
            None => self.choose(game),
        })
    }
    /// Up to `n` lines for the side to move, best first, each with the
    /// player's value of it for the side to move, after thinking for about
    /// `time`. By default the move the player would play, valued 0.
    fn analyse_lines(&mut self, game: &Game, time: Duration, n: usize) -> Vec<(Vec<Move>, f64)> {
        let _ = n;
        let clock = GameClock {
            remaining: time * 2,
            moves_to_go: Some(1),
            ..GameClock::default()
        };
        vec![(vec![self.choose_clocked(game, &clock)], 0.0)]
    }
}

/// Why a player gave up a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forfeit {
    /// A game record's reason.
    pub reason: ForfeitReason,
    /// What happened, in words.
    pub detail: String,
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
    /// Panics when the human quits; the commands use `try_choose`.
    fn choose(&mut self, game: &Game) -> Move {
        self.try_choose(game, None)
            .unwrap_or_else(|f| panic!("human player: {}", f.detail))
    }
    /// Asks until the move is legal; `quit`, `exit` or the end of input
    /// resign the game (reason `resigned`).
    fn try_choose(&mut self, game: &Game, _clock: Option<&GameClock>) -> Result<Move, Forfeit> {
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

impl AlphaBetaPlayer {
    /// Searches `game` within the player's limits, for commands that report
    /// the search itself.
    pub fn analyse(&mut self, game: &Game) -> &crate::SearchResult {
        self.search_within(game, self.limits)
    }

    /// Searches `game` within `limits` and keeps the result as `last`.
    fn search_within(&mut self, game: &Game, limits: Limits) -> &crate::SearchResult {
        let r = self.searcher.search(game, limits);
        self.last.insert(r)
    }
}

impl Player for AlphaBetaPlayer {
    fn name(&self) -> String {
        self.spec.clone()
    }
    fn choose(&mut self, game: &Game) -> Move {
        self.search_within(game, self.limits).best
    }
    fn choose_clocked(&mut self, game: &Game, clock: &GameClock) -> Move {
        // The clock replaces any time per move; depth and node caps stay.
        let limits = Limits {
            millis: Some((clock.budget().as_millis() as u64).max(1)),
            ..self.limits
        };
        self.search_within(game, limits).best
    }
    fn analyse_lines(&mut self, game: &Game, time: Duration, _n: usize) -> Vec<(Vec<Move>, f64)> {
        let limits = Limits {
            millis: Some((time.as_millis() as u64).max(1)),
            ..self.limits
        };
        let r = self.search_within(game, limits);
        let line = if r.pv.is_empty() {
            vec![r.best]
        } else {
            r.pv.clone()
        };
        vec![(line, r.score as f64)]
    }
}

/// A parsed player spec: `KIND[:key=value,key=value…]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerSpec {
    pub text: String,
    pub kind: String,
    pub params: Vec<(String, String)>,
}

/// What a spec key's value must be.
enum KeyKind {
    /// A whole number in the range.
    Int(u64, u64),
    /// A number in the range.
    Float(f64, f64),
    /// A path or `uniform`.
    Text,
}

/// The keys each kind of player takes, with their values' types and ranges.
fn keys_of(kind: &str) -> Option<&'static [(&'static str, KeyKind)]> {
    use KeyKind::*;
    const DAY_MS: u64 = 86_400_000;
    Some(match kind {
        "random" | "human" => &[],
        "alphabeta" | "ab" => &[
            ("depth", Int(1, 64)),
            ("ms", Int(1, DAY_MS)),
            ("nodes", Int(1, 1_000_000_000_000)),
            ("tt", Int(1, 16_384)),
            ("eval", Text),
        ],
        "mcts" => &[
            ("model", Text),
            ("sims", Int(1, 100_000_000)),
            ("ms", Int(1, DAY_MS)),
            ("batch", Int(1, 1024)),
            ("threads", Int(1, 256)),
            ("gumbel", Int(0, 1)),
            ("cpuct", Float(0.01, 100.0)),
            ("fpu", Float(0.0, 2.0)),
            ("vloss", Float(0.0, 2.0)),
            ("forks", Int(0, 1)),
            ("solver", Int(0, 1)),
            ("ml", Float(0.0, 1.0)),
            ("mlslope", Float(0.0, 1.0)),
            ("verify", Float(0.0, 0.9)),
        ],
        _ => return None,
    })
}

impl PlayerSpec {
    /// The spec text with `key`'s value replaced (or appended when absent).
    pub fn with_value(&self, key: &str, value: &str) -> String {
        let mut params = self.params.clone();
        match params.iter_mut().find(|(k, _)| k == key) {
            Some(p) => p.1 = value.to_string(),
            None => params.push((key.to_string(), value.to_string())),
        }
        let body: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("{}:{}", self.kind, body.join(","))
    }

    /// Parses and checks a spec; every command accepts the same strings.
    ///
    /// - `random`
    /// - `human`
    /// - `alphabeta:depth=N`, `alphabeta:ms=N`, `alphabeta:nodes=N` (any
    ///   mix; with none, depth 4), plus `tt=MiB` (default 16) and
    ///   `eval=FILE.toml` (weights; default `configs/eval/RULES.toml` where
    ///   one exists, else `configs/eval/default.toml`).
    /// - `mcts:model=DIR|uniform` (default uniform) with `sims=N` and/or
    ///   `ms=T` (whichever comes first; with neither, 400 simulations),
    ///   `batch=N` leaves per evaluation (default 8, at most a 32nd of
    ///   `sims`), `threads=N` evaluating (default all cores), and the MCTS
    ///   settings `cpuct=F`, `fpu=F`, `gumbel=0|1`, `vloss=F`, `forks=0|1`
    ///   (count a king's escape fork as won: `escape_forks`), `solver=0|1`
    ///   (prove wins and losses in the tree: `solver`), `ml=F` and
    ///   `mlslope=F` (the moves-left utility's cap and slope, for nets with
    ///   a moves-left output: `moves_left_effect`, `moves_left_slope`) (defaults:
    ///   `MctsConfig::default()`), and `verify=F` (with `ms=T` or a clock:
    ///   keep this share of each move's time for an alpha-beta check that
    ///   the chosen move does not lose by force; default 0).
    /// - `otep:COMMAND LINE`: an external OpenTafl Engine Protocol engine,
    ///   the rest of the spec its command line (split at whitespace; a
    ///   first word `brandubh` is this program).
    pub fn parse(text: &str) -> Result<PlayerSpec, PlayerSpecError> {
        let err = |why: String| PlayerSpecError {
            spec: text.to_string(),
            why,
        };
        let (kind, rest) = text.split_once(':').unwrap_or((text, ""));
        if kind == "otep" {
            // The rest is a command line, commas and colons included.
            if rest.trim().is_empty() {
                return Err(err("`otep:` needs the engine's command line".into()));
            }
            return Ok(PlayerSpec {
                text: text.to_string(),
                kind: kind.to_string(),
                params: vec![("cmd".into(), rest.trim().to_string())],
            });
        }
        let Some(allowed) = keys_of(kind) else {
            return Err(err(
                "unknown player (known: random, human, alphabeta, mcts, otep)".into(),
            ));
        };
        let mut params: Vec<(String, String)> = Vec::new();
        for part in rest.split(',').filter(|p| !p.is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| err(format!("`{part}` is not key=value")))?;
            let (k, v) = (k.trim(), v.trim());
            let Some((_, want)) = allowed.iter().find(|(name, _)| *name == k) else {
                let names: Vec<&str> = allowed.iter().map(|(n, _)| *n).collect();
                return Err(err(format!(
                    "`{kind}` takes no `{k}` (it takes: {})",
                    if names.is_empty() {
                        "nothing".to_string()
                    } else {
                        names.join(", ")
                    }
                )));
            };
            if params.iter().any(|(seen, _)| seen == k) {
                return Err(err(format!("`{k}` is given twice")));
            }
            match want {
                KeyKind::Int(lo, hi) => match v.parse::<u64>() {
                    Ok(n) if (*lo..=*hi).contains(&n) => {}
                    Ok(n) => return Err(err(format!("`{k}={n}`: out of range {lo}..={hi}"))),
                    Err(_) => return Err(err(format!("`{k}={v}`: expected a whole number"))),
                },
                KeyKind::Float(lo, hi) => match v.parse::<f64>() {
                    Ok(x) if (*lo..=*hi).contains(&x) => {}
                    Ok(_) => return Err(err(format!("`{k}={v}`: out of range {lo}..={hi}"))),
                    Err(_) => return Err(err(format!("`{k}={v}`: expected a number"))),
                },
                KeyKind::Text if v.is_empty() => {
                    return Err(err(format!("`{k}=` needs a value")));
                }
                KeyKind::Text => {}
            }
            params.push((k.to_string(), v.to_string()));
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

    /// The value of `key`, checked by `parse`.
    fn value(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    fn num(&self, key: &str) -> Option<u64> {
        self.value(key)
            .map(|v| v.parse().expect("checked by parse"))
    }

    fn float(&self, key: &str) -> Option<f32> {
        self.value(key)
            .map(|v| v.parse().expect("checked by parse"))
    }

    /// Whether this player thinks for a time per move (`ms=`).
    pub fn is_timed(&self) -> bool {
        self.value("ms").is_some()
    }

    /// The MCTS settings this spec stands for (defaults filled in).
    pub fn mcts_settings(&self) -> MctsSettings {
        let defaults = MctsConfig::default();
        let sims = sims_limit(self.num("sims").map(|s| s as u32), self.num("ms"));
        MctsSettings {
            cfg: MctsConfig {
                gumbel: self.num("gumbel").map_or(defaults.gumbel, |g| g != 0),
                c_puct: self.float("cpuct").unwrap_or(defaults.c_puct),
                fpu_reduction: self.float("fpu").unwrap_or(defaults.fpu_reduction),
                virtual_loss: self.float("vloss").unwrap_or(defaults.virtual_loss),
                escape_forks: self.num("forks").map_or(defaults.escape_forks, |f| f != 0),
                solver: self.num("solver").map_or(defaults.solver, |f| f != 0),
                moves_left_effect: self.float("ml").unwrap_or(defaults.moves_left_effect),
                moves_left_slope: self.float("mlslope").unwrap_or(defaults.moves_left_slope),
                ..defaults
            },
            sims,
            millis: self.num("ms"),
            batch: self
                .num("batch")
                .map_or_else(|| default_batch(sims), |b| b as usize),
            threads: self.num("threads").map_or_else(
                || std::thread::available_parallelism().map_or(1, |n| n.get()),
                |t| t as usize,
            ),
            verify: self.float("verify").unwrap_or(0.0),
        }
    }

    /// Builds an MCTS player (the spec's kind must be `mcts`).
    pub fn build_mcts(
        &self,
        rules: &Arc<RuleSet>,
        seed: u64,
    ) -> Result<MctsPlayer, PlayerSpecError> {
        if self.kind != "mcts" {
            return Err(PlayerSpecError {
                spec: self.text.clone(),
                why: "not an MCTS player".into(),
            });
        }
        let model = self.value("model").unwrap_or("uniform");
        let evaluator = load_evaluator(model, rules).map_err(|e| PlayerSpecError {
            spec: self.text.clone(),
            why: e.to_string(),
        })?;
        Ok(MctsPlayer::new(
            self.text.clone(),
            rules.clone(),
            self.mcts_settings(),
            evaluator,
            seed,
        ))
    }

    /// Builds an alpha-beta player (the spec's kind must be `alphabeta`).
    pub fn build_alphabeta(
        &self,
        rules: &Arc<RuleSet>,
    ) -> Result<AlphaBetaPlayer, PlayerSpecError> {
        if self.kind != "alphabeta" {
            return Err(PlayerSpecError {
                spec: self.text.clone(),
                why: "not an alpha-beta player".into(),
            });
        }
        let mut limits = Limits {
            depth: self.num("depth").map(|d| d as u32),
            nodes: self.num("nodes"),
            millis: self.num("ms"),
        };
        if limits == Limits::default() {
            limits.depth = Some(4);
        }
        let weights = match self.value("eval") {
            None => EvalWeights::builtin(rules.name()),
            Some(path) => EvalWeights::from_file(std::path::Path::new(path)).map_err(|why| {
                PlayerSpecError {
                    spec: self.text.clone(),
                    why: why.to_string(),
                }
            })?,
        };
        let tt = self.num("tt").unwrap_or(16) as usize;
        Ok(AlphaBetaPlayer::new(
            rules.clone(),
            limits,
            weights,
            tt,
            self.text.clone(),
        ))
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
            "mcts" => Ok(Box::new(self.build_mcts(rules, seed)?)),
            "otep" => {
                let cmd = self.value("cmd").unwrap_or_default();
                Ok(Box::new(
                    crate::otep::OtepPlayer::spawn(&self.text, cmd, rules.clone()).map_err(
                        |why| PlayerSpecError {
                            spec: self.text.clone(),
                            why: why.to_string(),
                        },
                    )?,
                ))
            }
            _ => Ok(Box::new(self.build_alphabeta(rules)?)),
        }
    }
}

/// Leaves per evaluation when the spec names none: `DEFAULT_BATCH`, but
/// no more than a 32nd of a simulation limit, since every leaf in flight
/// is chosen without the evaluations of the others (at 64 simulations,
/// batches of 2).
pub fn default_batch(sims: Option<u32>) -> usize {
    match sims {
        Some(s) => ((s / 32) as usize).clamp(1, DEFAULT_BATCH),
        None => DEFAULT_BATCH,
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
