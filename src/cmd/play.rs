use anyhow::Result;
use brandubh_play::parse_player;
use brandubh_rules::Game;
use std::sync::Arc;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Rule set name or path to a TOML file.
    #[arg(long, default_value = "modern")]
    rules: String,
    /// Player for the attackers: human, random or alphabeta[:depth=N|ms=N|nodes=N].
    #[arg(long, default_value = "human")]
    attackers: String,
    /// Player for the defenders (same specs as --attackers).
    #[arg(long, default_value = "random")]
    defenders: String,
    /// Seed for random players.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Stop an unfinished game after this many plies (0: only the rules end it).
    #[arg(long, default_value_t = 1000)]
    max_plies: usize,
}

pub fn run(a: Args, env: &super::Env) -> Result<()> {
    let rules = Arc::new(super::load_rules(&a.rules)?);
    let ctx = env.play_context();
    let mut players = [
        parse_player(&a.attackers, &rules, a.seed, &ctx)?,
        parse_player(&a.defenders, &rules, a.seed.wrapping_add(0x9e37_79b9), &ctx)?,
    ];
    let mut game = Game::new(rules.clone());
    println!(
        "{}: attackers {} vs defenders {}",
        rules.name(),
        players[0].name(),
        players[1].name()
    );
    while !game.is_over() && game.plies().len() < a.max_plies {
        print!("{}", game.position().board().diagram());
        let side = game.side_to_move();
        let player = &mut players[side.index()];
        let mv = match player.choose(&game, None) {
            Ok(mv) => mv,
            Err(f) => {
                let verb = if f.reason == brandubh_play::ending::ForfeitReason::Resigned {
                    "resigns"
                } else {
                    "forfeits"
                };
                println!("{} ({}) {verb}: {}", side, player.name(), f.detail);
                return Ok(());
            }
        };
        game.play(mv)?;
        let rec = game.plies().last().expect("just played").record();
        println!(
            "{:>3}. {} ({}): {}",
            game.plies().len(),
            side,
            player.name(),
            rec
        );
    }
    print!("{}", game.position().board().diagram());
    match game.outcome() {
        Some(o) => println!(
            "game over after {} plies: {} ({})",
            game.plies().len(),
            o.result.as_str(),
            o.reason
        ),
        None => println!("stopped unfinished after {} plies", game.plies().len()),
    }
    let moves: Vec<String> = game
        .plies()
        .iter()
        .map(|p| p.record().to_string())
        .collect();
    println!("moves: {}", moves.join(" "));
    Ok(())
}
