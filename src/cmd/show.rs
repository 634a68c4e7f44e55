use anyhow::{bail, Result};
use brandubh_rules::{Game, MoveRecord, Side};
use serde_json::json;
use std::sync::Arc;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Rule set name or path to a TOML file.
    #[arg(long, default_value = "modern")]
    rules: String,
    /// Start from this OpenTafl position record instead of the setup.
    #[arg(long)]
    position: Option<String>,
    /// Side to move in --position (default: the rule set's first mover).
    #[arg(long)]
    side: Option<Side>,
    /// Moves to play, space-separated, e.g. "d6-c6 c4-c2" (captures such as
    /// d2-d5xd6/c5 are checked against the real ones).
    #[arg(long, default_value = "")]
    moves: String,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<()> {
    let rules = Arc::new(super::load_rules(&a.rules)?);
    let pos = super::load_position(&rules, a.position.as_deref(), a.side)?;
    let mut game = Game::from_position(rules.clone(), pos);
    for (i, text) in a.moves.split_whitespace().enumerate() {
        let ply = i + 1;
        let rec: MoveRecord = match text.parse() {
            Ok(r) => r,
            Err(e) => bail!("ply {ply}: {e}"),
        };
        if let Err(e) = game.play_record(&rec) {
            bail!("ply {ply}: move `{text}` is illegal: {e}");
        }
    }
    let p = game.position();
    let (status, reason) = match game.outcome() {
        None => ("ongoing", String::new()),
        Some(o) => (o.result.as_str(), o.reason.as_str().to_string()),
    };
    let legal: Vec<String> = game.legal_moves().iter().map(|m| m.to_string()).collect();
    if a.json {
        let plies: Vec<_> = game
            .plies()
            .iter()
            .map(|pl| {
                json!({
                    "move": pl.record().to_string(),
                    "legal_before": pl.legal_before,
                    "captured": pl.captured.map(|s| s.to_string()).collect::<Vec<_>>(),
                })
            })
            .collect();
        let out = json!({
            "rules": rules.name(),
            "position": p.board().to_record(),
            "side_to_move": p.side_to_move().as_str(),
            "status": status,
            "reason": if reason.is_empty() { serde_json::Value::Null } else { json!(reason) },
            "legal_moves": legal,
            "plies": plies,
        });
        println!("{out}");
        return Ok(());
    }
    if !game.plies().is_empty() {
        let recs: Vec<String> = game
            .plies()
            .iter()
            .map(|pl| pl.record().to_string())
            .collect();
        println!("moves: {}", recs.join(" "));
    }
    print!("{}", p.board().diagram());
    println!("position: {}", p.board().to_record());
    println!(
        "rules: {}   ply {}   quiet plies {}",
        rules.name(),
        p.plies(),
        p.quiet_plies()
    );
    match game.outcome() {
        None => {
            println!("{} to move", p.side_to_move());
            println!("{} legal moves: {}", legal.len(), legal.join(" "));
        }
        Some(o) => println!("game over: {} ({})", o.result.as_str(), o.reason),
    }
    Ok(())
}
