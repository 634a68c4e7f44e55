use anyhow::Result;
use brandubh_arena::ratings::rate;
use brandubh_arena::{read_records, GameRecord};
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Game files written by `brandubh match --out` (JSON lines).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// The player rated 0.
    #[arg(long, default_value = "random")]
    anchor: String,
    /// Print JSON (one table per rule set).
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<()> {
    let mut by_rules: BTreeMap<String, Vec<GameRecord>> = BTreeMap::new();
    for f in &a.files {
        for rec in read_records(f)? {
            by_rules.entry(rec.rules.clone()).or_default().push(rec);
        }
    }
    let mut tables = Vec::new();
    for games in by_rules.values() {
        tables.push(rate(games, &a.anchor)?);
    }
    if a.json {
        println!("{}", serde_json::to_string(&tables)?);
        return Ok(());
    }
    for t in tables {
        println!(
            "rules {}: {} games, anchor {} = 0",
            t.rules, t.games, t.anchor
        );
        println!(
            "{:<28} {:>6} {:>7} {:>9} {:>8}",
            "player", "games", "score", "Elo", "±95 %"
        );
        for r in &t.ratings {
            // A net is rated by its model id; show it by the first spec it
            // played under, and say when it played under others too.
            let mut name = r.specs.first().unwrap_or(&r.player).clone();
            if r.specs.len() > 1 {
                name += &format!(" (+{} other spellings)", r.specs.len() - 1);
            }
            println!(
                "{:<28} {:>6} {:>6.1}% {:>+9.1} {:>8.1}",
                name,
                r.games,
                r.score * 100.0,
                r.elo,
                r.ci95
            );
        }
        println!(
            "attackers' side advantage: {:+.1} Elo (±{:.1})\n",
            t.attacker_advantage, t.attacker_advantage_ci95
        );
    }
    Ok(())
}
