use anyhow::Result;
use brandubh_rules::{divide, perft, perft_stats, Side};
use serde_json::json;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Rule set name or path to a TOML file.
    #[arg(long, default_value = "modern")]
    rules: String,
    /// Depth in plies, 0 to 10 (each ply multiplies the count by about
    /// the number of legal moves).
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=10))]
    depth: u32,
    /// Start from this OpenTafl position record instead of the setup.
    #[arg(long)]
    position: Option<String>,
    /// Side to move in --position (default: the rule set's first mover).
    #[arg(long)]
    side: Option<Side>,
    /// Show the count below each first move.
    #[arg(long)]
    divide: bool,
    /// Also count, per depth, capture moves, captured pieces and finished games
    /// (slower: every leaf is made).
    #[arg(long)]
    stats: bool,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<()> {
    let rules = super::load_rules(&a.rules)?;
    let pos = super::load_position(&rules, a.position.as_deref(), a.side)?;
    if a.divide {
        let t = Instant::now();
        let parts = divide(&rules, &pos, a.depth);
        let total: u64 = parts.iter().map(|p| p.1).sum();
        for (mv, n) in &parts {
            println!("{mv}: {n}");
        }
        println!(
            "\n{} moves, {total} nodes, {:.3} s",
            parts.len(),
            t.elapsed().as_secs_f64()
        );
        return Ok(());
    }
    let t = Instant::now();
    let (results, nodes) = if a.stats {
        let s = perft_stats(&rules, &pos, a.depth);
        let nodes = s.last().map_or(1, |d| d.nodes);
        let rows: Vec<_> = s
            .iter()
            .map(|d| serde_json::to_value(d).expect("plain struct"))
            .collect();
        (rows, nodes)
    } else {
        let mut rows = Vec::new();
        let mut last = 1;
        for d in 1..=a.depth {
            last = perft(&rules, &pos, d);
            rows.push(json!({"depth": d, "nodes": last}));
        }
        (rows, last)
    };
    let secs = t.elapsed().as_secs_f64();
    let lps = nodes as f64 / secs.max(1e-9);
    if a.json {
        let out = json!({
            "rules": rules.name(),
            "position": pos.board().to_record(),
            "side_to_move": pos.side_to_move().as_str(),
            "results": results,
            "seconds": secs,
            "leaves_per_second": lps,
        });
        println!("{out}");
    } else {
        println!(
            "rules {}  position {}  {} to move",
            rules.name(),
            pos.board().to_record(),
            pos.side_to_move()
        );
        for r in &results {
            let mut line = format!("perft {:>2}  {:>14}", r["depth"], r["nodes"]);
            if a.stats {
                line.push_str(&format!(
                    "  captures {:>10} ({} pieces)  attacker wins {}  defender wins {}  draws {}",
                    r["capture_moves"],
                    r["captured_pieces"],
                    r["attacker_wins"],
                    r["defender_wins"],
                    r["draws"]
                ));
            }
            println!("{line}");
        }
        println!(
            "{secs:.3} s, {:.1} M leaves/s (deepest depth over total time)",
            lps / 1e6
        );
    }
    Ok(())
}
