//! Replays one recorded match game through a timed MCTS player and prints
//! how long each of its searches took: the player searches every position
//! the recorded player searched, keeping its tree from move to move as in
//! the match, but the recorded move is played, so the game stays the one
//! in the file. Moves over 105 % of the budget are marked.
//!
//! `cargo run --release --example replay_times GAMES.jsonl PAIR GAME SPEC [N]`
//! (SPEC an `mcts:` player; its side is the side the recorded game gave a
//! player whose spec starts with `mcts`; N: stop after N searches). Ends
//! with the mean time and simulations a search.

use brandubh_play::{PlayContext, PlayerSpec};
use brandubh_rules::{Game, MoveRecord, RuleSet};
use std::sync::Arc;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (file, pair, game_no, spec, limit) = match &args[..] {
        [_, f, p, g, s] => (f, p, g, s, usize::MAX),
        [_, f, p, g, s, n] => (f, p, g, s, n.parse().unwrap()),
        _ => {
            eprintln!("usage: replay_times GAMES.jsonl PAIR GAME SPEC [N]");
            std::process::exit(2);
        }
    };
    let (pair, game_no): (u64, u64) = (pair.parse().unwrap(), game_no.parse().unwrap());
    let text = std::fs::read_to_string(file).unwrap();
    let record: serde_json::Value = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|g| g["pair"] == pair && g["game"] == game_no)
        .expect("no such pair and game in the file");
    let rules = Arc::new(RuleSet::named(record["rules"].as_str().unwrap()).unwrap());
    let net_attacks = record["attackers"].as_str().unwrap().starts_with("mcts");
    let spec = PlayerSpec::parse(spec).unwrap();
    let budget = spec.mcts().ms.expect("a timed spec (ms=…)") as f64;
    let ctx = PlayContext::new(brandubh_mcts::Models::new(brandubh_model::model_loader(
        None,
    )));
    let mut player = spec.build_mcts(&rules, 1, &ctx).unwrap();
    let mut game = Game::new(rules.clone());
    let play = |game: &mut Game, m: &serde_json::Value| {
        let rec: MoveRecord = m.as_str().unwrap().parse().unwrap();
        game.play(rec.mv).unwrap();
    };
    for m in record["opening"].as_array().unwrap() {
        play(&mut game, m);
    }
    let (mut over, mut searched, mut total_ms, mut sims) = (0, 0, 0.0, 0u64);
    for m in record["moves"].as_array().unwrap() {
        if searched == limit {
            break;
        }
        let nets_turn = (game.side_to_move() == brandubh_rules::Side::Attackers) == net_attacks;
        if nets_turn && game.legal_moves().len() > 1 {
            let t = Instant::now();
            let r = player.search(&game, None);
            let ms = t.elapsed().as_secs_f64() * 1e3;
            searched += 1;
            total_ms += ms;
            sims += r.simulations as u64;
            if ms > 1.05 * budget {
                over += 1;
                println!(
                    "ply {:>3}: {ms:.0} ms, {} simulations, {} batches",
                    game.plies().len(),
                    r.simulations,
                    r.batches
                );
            }
        }
        play(&mut game, m);
    }
    println!(
        "{over} of {searched} searches over 105 % of {budget} ms; mean {:.0} ms, {:.0} simulations",
        total_ms / searched.max(1) as f64,
        sims as f64 / searched.max(1) as f64
    );
}
