use anyhow::{Context, Result};
use serde_json::json;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    game: super::GameArgs,
    /// Read the game from an OpenTafl game file (.otg) instead: its rules
    /// and moves (with --rules, --position and --moves ignored).
    #[arg(long = "game", value_name = "FILE")]
    game_file: Option<std::path::PathBuf>,
    /// A net checkpoint: also show its value and top moves for the position.
    #[arg(long)]
    model: Option<std::path::PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args, env: &super::Env) -> Result<()> {
    let (rules, game) = match &a.game_file {
        None => a.game.load()?,
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            let otg = brandubh_rules::read_otg(&text, &super::games::known_rules())
                .with_context(|| format!("{}", path.display()))?;
            (otg.game.rules().clone(), otg.game)
        }
    };
    let p = game.position();
    let (status, reason) = match game.outcome() {
        None => ("ongoing", String::new()),
        Some(o) => (o.result.as_str(), o.reason.as_str().to_string()),
    };
    let legal: Vec<String> = game.legal_moves().iter().map(|m| m.to_string()).collect();
    let net = match (&a.model, game.is_over()) {
        (Some(dir), false) => {
            let ev = brandubh_model::load_evaluator_on(dir, &rules, env.inference)?;
            let reps = p.repetitions(game.history()).min(255) as u8;
            let out = ev
                .evaluate(&[brandubh_mcts::EvalRequest {
                    position: p,
                    moves: game.legal_moves().as_slice(),
                    repetitions: reps,
                }])
                .remove(0);
            let mut top: Vec<(String, f32)> = game
                .legal_moves()
                .iter()
                .map(|m| m.to_string())
                .zip(out.priors.iter().copied())
                .collect();
            top.sort_by(|x, y| y.1.total_cmp(&x.1));
            top.truncate(5);
            Some((ev.id(), out.wdl, top))
        }
        _ => None,
    };
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
        let mut out = out;
        if let Some((id, wdl, top)) = &net {
            out["model"] = json!({"id": id, "wdl": wdl, "top_moves": top.iter().map(|(m, p)| json!({"move": m, "prior": p})).collect::<Vec<_>>()});
        }
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
    if let Some((id, wdl, top)) = net {
        println!(
            "net {id}: win {:.1} %  draw {:.1} %  loss {:.1} % for the side to move",
            wdl[0] * 100.0,
            wdl[1] * 100.0,
            wdl[2] * 100.0
        );
        let t: Vec<String> = top
            .iter()
            .map(|(m, p)| format!("{m} {:.1} %", p * 100.0))
            .collect();
        println!("top moves: {}", t.join(", "));
    }
    Ok(())
}
