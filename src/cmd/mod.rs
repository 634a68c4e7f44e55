//! Subcommands, one file each.

mod analyze;
mod arena;
mod balance;
mod engine;
mod export;
mod finetune;
mod games;
mod init_model;
mod ladder;
mod perft;
mod play;
mod ratings;
mod report;
mod rules;
mod run_loop;
mod search;
mod selfplay;
mod serve;
mod show;
mod sweep;
mod tune;
mod worker;

use anyhow::{Context, Result};
use brandubh_rules::{Board, Game, MoveRecord, Position, RuleSet, Side};
use clap::{Parser, Subcommand};
use std::sync::Arc;

/// Brandubh (7×7 tafl): rules engine, search and self-taught play.
///
/// Rule sets are named (`modern`, `ludii`, `wtf`, `wtf-plain`, `raven`,
/// or any `configs/rules/NAME.toml`) or given as a path to a TOML file.
#[derive(Parser, Debug)]
#[command(name = "brandubh", version, about, long_about)]
pub struct Cli {
    /// The engine that runs nets in search: `native` (ours), `tract` or
    /// `flex` (burn). Default: the one `BRANDUBH_INFERENCE` names, else
    /// the faster one here for the net's width (docs/model.md).
    #[arg(long, global = true, value_name = "ENGINE")]
    inference: Option<brandubh_model::InferenceEngine>,
    #[command(subcommand)]
    command: Command,
}

/// What the command line sets for every command that loads nets, passed
/// to those commands.
pub struct Env {
    pub inference: Option<brandubh_model::InferenceEngine>,
}

impl Env {
    /// Nets loaded through the model crate on the chosen engine, shared
    /// within the command.
    pub fn models(&self) -> brandubh_mcts::Models {
        brandubh_mcts::Models::new(brandubh_model::model_loader(self.inference))
    }

    /// The handle players are built with: these nets and the MCTS players'
    /// evaluation workers.
    pub fn play_context(&self) -> Arc<brandubh_play::PlayContext> {
        brandubh_play::PlayContext::new(self.models())
    }
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List rule sets or describe one.
    Rules(rules::Args),
    /// Count the positions at exactly depth N (move-generator check and speed test).
    Perft(perft::Args),
    /// Play moves from a position and show the board, status and legal moves.
    Show(show::Args),
    /// Play as an OpenTafl Engine Protocol engine on stdin/stdout (for OpenTafl
    /// and other hosts; `otep:` players are the other side of it).
    Engine(engine::Args),
    /// Play a game in the terminal (human, random or alpha-beta on each side).
    Play(play::Args),
    /// Run the alpha-beta baseline on a position: best move, score, depth, speed.
    Search(search::Args),
    /// Ask a player about a position: MCTS moves with visits, prior, Q, W/D/L
    /// and lines; alpha-beta score, depth and line.
    Analyze(analyze::Args),
    /// Fit the alpha-beta evaluation weights to the results of recorded games.
    TuneEval(tune::Args),
    /// Play a match of game pairs (sides swapped) between two players: Elo, CI, LOS, SPRT.
    Match(arena::Args),
    /// Bradley-Terry ratings of every player in recorded games, with the side advantage.
    Ratings(ratings::Args),
    /// Play self-play games with MCTS and write them as Parquet shards.
    Selfplay(selfplay::Args),
    /// Side balance per rule set: win shares with intervals, lengths, endings, charts.
    Balance(balance::Args),
    /// Convert recorded games (match JSON lines, self-play shards) to
    /// OpenTafl game files (.otg).
    ExportGames(games::Args),
    /// Write a randomly initialised net checkpoint (generation 0 of a run).
    InitModel(init_model::Args),
    /// Export a checkpoint to ONNX with a model card, checked in tract.
    Export(export::Args),
    /// The training run: self-play, train, evaluate, generation after generation (resumable).
    Loop(run_loop::LoopArgs),
    /// Charts and a table of a run's progress: rating per generation and per
    /// hour, attacker share, losses (PNG and SVG).
    Report(report::Args),
    /// Add stronger rungs to a run's rating ladder after the fact, so that
    /// its report tells apart nets that have outgrown the run's ladder.
    Ladder(ladder::Args),
    /// One training phase of an existing run on its own.
    Train(run_loop::TrainArgs),
    /// A local web page: play the nets, see what they think, open games, watch runs.
    Serve(serve::Args),
    /// A run split across processes that share only the run directory:
    /// self-play workers and one learner.
    #[command(subcommand)]
    Worker(worker::Role),
}

pub fn run(cli: Cli) -> Result<()> {
    let env = Env {
        inference: cli.inference,
    };
    let env = &env;
    match cli.command {
        Command::Rules(a) => rules::run(a),
        Command::Perft(a) => perft::run(a),
        Command::Show(a) => show::run(a, env),
        Command::Play(a) => play::run(a, env),
        Command::Report(a) => report::run(a),
        Command::Ladder(a) => ladder::run(a, env),
        Command::Serve(a) => serve::run(a, env),
        Command::ExportGames(a) => games::run(a),
        Command::Engine(a) => engine::run(a, env),
        Command::Search(a) => search::run(a),
        Command::Analyze(a) => analyze::run(a, env),
        Command::TuneEval(a) => tune::run(a),
        Command::Match(a) => arena::run(a, env),
        Command::Ratings(a) => ratings::run(a),
        Command::Selfplay(a) => selfplay::run(a, env),
        Command::Balance(a) => balance::run(a, env),
        Command::InitModel(a) => init_model::run(a),
        Command::Export(a) => export::run(a),
        Command::Loop(a) => run_loop::run_loop(a, env),
        Command::Train(a) => run_loop::run_train(a, env),
        Command::Worker(r) => worker::run(r, env),
    }
}

/// Writes a file whole or not at all (`brandubh_durable`).
pub fn write_atomic(path: &std::path::Path, bytes: &[u8]) -> Result<()> {
    brandubh_durable::write(path, bytes).with_context(|| format!("writing {}", path.display()))
}

/// The rule set named on the command line.
/// An OpenTafl rules string (`dim:7 …`) is read as OpenTafl plays it.
pub fn load_rules(name: &str) -> Result<RuleSet> {
    if name.trim_start().starts_with("dim:") {
        return Ok(brandubh_rules::from_opentafl(name)?);
    }
    // Both errors name the set or its file themselves.
    Ok(RuleSet::named(name)?)
}

/// The start position, or the one given by `--position` and `--side`.
pub fn load_position(
    rules: &RuleSet,
    record: Option<&str>,
    side: Option<Side>,
) -> Result<Position> {
    match record {
        None => {
            let mut p = Position::start(rules);
            if let Some(s) = side {
                if s != p.side_to_move() {
                    p = Position::from_board(rules, *p.board(), s)?;
                }
            }
            Ok(p)
        }
        Some(rec) => {
            let board = Board::from_record(rec)
                .with_context(|| format!("reading position record `{rec}`"))?;
            let side = side.unwrap_or(rules.options.first_to_move);
            Position::from_board(rules, board, side)
                .with_context(|| format!("position `{rec}` under `{}`", rules.name()))
        }
    }
}

/// The position arguments `show` and `search` share.
#[derive(clap::Args, Debug)]
pub struct GameArgs {
    /// Rule set name or path to a TOML file.
    #[arg(long, default_value = "modern")]
    pub rules: String,
    /// Start from this OpenTafl position record instead of the setup.
    #[arg(long)]
    pub position: Option<String>,
    /// Side to move in --position (default: the rule set's first mover).
    #[arg(long)]
    pub side: Option<Side>,
    /// Moves to play first, space-separated, e.g. "d6-c6 c4-c2" (captures
    /// such as d2-d5xd6/c5 are checked against the real ones).
    #[arg(long, default_value = "")]
    pub moves: String,
}

impl GameArgs {
    /// The rule set, and the game with the `--moves` played.
    pub fn load(&self) -> Result<(Arc<RuleSet>, Game)> {
        let rules = Arc::new(load_rules(&self.rules)?);
        let game = load_game(&rules, self.position.as_deref(), self.side, &self.moves)?;
        Ok((rules, game))
    }
}

/// A game from `--position`/`--side` with the `--moves` played; a bad move
/// names its ply, the move and why.
fn load_game(
    rules: &Arc<RuleSet>,
    record: Option<&str>,
    side: Option<Side>,
    moves: &str,
) -> Result<Game> {
    let pos = load_position(rules, record, side)?;
    let mut game = Game::from_position(rules.clone(), pos);
    for (i, text) in moves.split_whitespace().enumerate() {
        let ply = i + 1;
        let rec: MoveRecord = text
            .parse()
            .map_err(|e| anyhow::anyhow!("ply {ply}: {e}"))?;
        game.play_record(&rec)
            .map_err(|e| anyhow::anyhow!("ply {ply}: move `{text}` is illegal: {e}"))?;
    }
    Ok(game)
}
