use anyhow::{bail, Result};
use brandubh_mcts::EvalRequest;
use brandubh_play::{mcts_player::MctsReport, PlayerSpec};
use brandubh_rules::Game;
use serde_json::{json, Value};
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    game: super::GameArgs,
    /// The player to ask: `alphabeta:…` or `mcts:model=DIR,…` (see `brandubh
    /// match --help` for specs).
    #[arg(long, default_value = "alphabeta:ms=1000")]
    player: String,
    /// Think this many milliseconds (replaces the spec's own limits of time
    /// and simulations or depth).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    ms: Option<u64>,
    /// Moves to list (MCTS), most visited first.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=2000))]
    top: u64,
    /// Also print the net's raw policy and value for the position (MCTS).
    #[arg(long)]
    raw: bool,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args, env: &super::Env) -> Result<()> {
    let (rules, game) = a.game.load()?;
    if game.is_over() {
        bail!("the game is over: nothing to analyse");
    }
    let mut spec = PlayerSpec::parse(&a.player)?;
    match spec.kind {
        brandubh_play::PlayerKind::AlphaBeta => {
            if a.raw {
                bail!("--raw shows a net's policy and value: it needs an `mcts:model=…` player");
            }
            if let Some(ms) = a.ms {
                let bare = spec.without(&["ms", "depth", "nodes"])?;
                spec = PlayerSpec::parse(&bare.with_value("ms", &ms.to_string()))?;
            }
            let mut p = spec.build_alphabeta(&rules)?;
            let r = p.analyse(&game);
            let pv: Vec<String> = r.pv.iter().map(|m| m.to_string()).collect();
            if a.json {
                println!(
                    "{}",
                    json!({"rules": rules.name(), "player": a.player, "side_to_move": game.side_to_move().as_str(),
                           "best": r.best.to_string(), "score": r.score, "depth": r.depth,
                           "nodes": r.nodes, "seconds": r.seconds, "pv": pv})
                );
            } else {
                println!(
                    "{} to move; {}\nbest {}  score {} (side to move; an attacker man is 100)  depth {}  nodes {}  {:.3} s\npv {}",
                    game.side_to_move(),
                    a.player,
                    r.best,
                    r.score,
                    r.depth,
                    r.nodes,
                    r.seconds,
                    pv.join(" ")
                );
            }
        }
        brandubh_play::PlayerKind::Mcts => {
            let mut p = spec.build_mcts(&rules, 1, &env.play_context())?;
            let raw = if a.raw {
                Some(raw_eval(&p, &game))
            } else {
                None
            };
            let budget = a.ms.map(Duration::from_millis);
            if budget.is_some() {
                p.set_limits(None, a.ms);
            }
            let r = p.search(&game, budget).clone();
            if a.json {
                let mut out = mcts_json(&r, a.top as usize);
                out["rules"] = json!(rules.name());
                out["player"] = json!(a.player);
                out["side_to_move"] = json!(game.side_to_move().as_str());
                if let Some(raw) = raw {
                    out["raw"] = raw;
                }
                println!("{out}");
            } else {
                print_mcts(&game, &a.player, &r, a.top as usize, raw.as_ref());
            }
        }
        other => bail!("analyze asks an engine: `{other}` is not one (use alphabeta:… or mcts:…)"),
    }
    Ok(())
}

/// The net's own policy (top moves) and value at the root, before search.
fn raw_eval(p: &brandubh_play::mcts_player::MctsPlayer, game: &Game) -> Value {
    let moves = game.legal_moves();
    let reps = game.position().repetitions(game.history()).min(255) as u8;
    let e = p.evaluator().evaluate(&[EvalRequest {
        position: game.position(),
        moves: moves.as_slice(),
        repetitions: reps,
    }]);
    let e = &e[0];
    let mut policy: Vec<(String, f32)> = moves
        .iter()
        .zip(&e.priors)
        .map(|(m, p)| (m.to_string(), *p))
        .collect();
    policy.sort_by(|a, b| b.1.total_cmp(&a.1));
    json!({
        "evaluator": p.evaluator().id(),
        "wdl": e.wdl,
        "value": e.value(),
        "plies_left": e.moves_left,
        "policy": policy.iter().map(|(m, p)| json!({"move": m, "prior": p})).collect::<Vec<_>>(),
    })
}

fn mcts_json(r: &MctsReport, top: usize) -> Value {
    json!({
        "best": r.best.to_string(),
        "value": r.value,
        "simulations": r.simulations,
        "root_visits": r.root_visits,
        "evaluations": r.evaluations,
        "batches": r.batches,
        "collisions": r.collisions,
        "seconds": r.elapsed.as_secs_f64(),
        "moves": r.moves.iter().take(top).map(|m| json!({
            "move": m.mv.to_string(),
            "visits": m.visits,
            "prior": m.prior,
            "q": m.q,
            "wdl": m.wdl,
            "plies_left": m.plies_left,
            "pv": m.pv.iter().map(|x| x.to_string()).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

fn print_mcts(game: &Game, player: &str, r: &MctsReport, top: usize, raw: Option<&Value>) {
    println!(
        "{} to move; {player}\nbest {}  value {:+.3} (side to move)  {} simulations ({} at the root)  {:.3} s  {:.0} sims/s",
        game.side_to_move(),
        r.best,
        r.value,
        r.simulations,
        r.root_visits,
        r.elapsed.as_secs_f64(),
        r.simulations as f64 / r.elapsed.as_secs_f64().max(1e-9)
    );
    // The plies-left column only for nets with a moves-left output.
    let plies = r.moves.iter().any(|m| m.plies_left.is_some());
    println!(
        "{:<14} {:>8} {:>7} {:>7} {:>17}{}  pv",
        "move",
        "visits",
        "prior",
        "Q",
        "win/draw/loss",
        if plies { "  plies left" } else { "" }
    );
    for m in r.moves.iter().take(top) {
        let q = m.q.map_or("-".to_string(), |q| format!("{q:+.3}"));
        let wdl = m.wdl.map_or("-".to_string(), |w| {
            format!("{:.2}/{:.2}/{:.2}", w[0], w[1], w[2])
        });
        let left = match (plies, m.plies_left) {
            (false, _) => String::new(),
            (true, Some(p)) => format!("{p:>12.1}"),
            (true, None) => format!("{:>12}", "-"),
        };
        let pv: Vec<String> = m.pv.iter().map(|x| x.to_string()).collect();
        println!(
            "{:<14} {:>8} {:>7.3} {:>7} {:>17}{}  {}",
            m.mv.to_string(),
            m.visits,
            m.prior,
            q,
            wdl,
            left,
            pv.join(" ")
        );
    }
    if let Some(raw) = raw {
        println!(
            "net alone ({}): value {:+.3}, win/draw/loss {}",
            raw["evaluator"].as_str().unwrap_or(""),
            raw["value"].as_f64().unwrap_or(0.0),
            raw["wdl"]
        );
        let pol: Vec<String> = raw["policy"]
            .as_array()
            .map(|a| {
                a.iter()
                    .take(top)
                    .map(|m| {
                        format!(
                            "{} {:.3}",
                            m["move"].as_str().unwrap_or(""),
                            m["prior"].as_f64().unwrap_or(0.0)
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        println!("net policy: {}", pol.join(", "));
    }
}
