use anyhow::{bail, Result};
use brandubh_play::otep::Engine;
use brandubh_play::PlayerSpec;
use std::sync::Arc;

/// Plays as an engine for OpenTafl (or any host of the OpenTafl Engine
/// Protocol) on standard input and output. Standard output carries the
/// protocol only; anything else goes to standard error.
///
/// The host sends the rules as an OpenTafl rules string; a string we
/// cannot play exactly gets an `error 0` line naming the entry, and the
/// engine waits for other rules. See docs/engine.md.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The player behind the engine: alphabeta[:depth=N|ms=N|…] or
    /// mcts:model=DIR[,ms=T|sims=N] (not human, not otep:). Under a clock
    /// the player decides its own time per move.
    #[arg(long, default_value = "alphabeta:ms=1000")]
    player: String,
    /// Rule sets to play in full when the host sends exactly their OpenTafl
    /// string (a string cannot carry options such as a quiet-ply draw; other
    /// strings are played as OpenTafl means them). Repeatable.
    #[arg(long = "rules")]
    rules: Vec<String>,
    /// Seed for the player's random choices (each game gets its own).
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

pub fn run(a: Args, env: &super::Env) -> Result<()> {
    let spec = PlayerSpec::parse(&a.player)?;
    if matches!(
        spec.kind,
        brandubh_play::PlayerKind::Human | brandubh_play::PlayerKind::Otep
    ) {
        bail!(
            "--player {}: an engine plays a search player, not {}",
            a.player,
            spec.kind
        );
    }
    let mut prefer = Vec::new();
    for name in &a.rules {
        prefer.push(Arc::new(super::load_rules(name)?));
    }
    let stdout = std::io::stdout();
    let mut engine = Engine::new(stdout.lock(), spec, a.seed, prefer, env.play_context());
    engine.run(std::io::stdin().lock())?;
    Ok(())
}
