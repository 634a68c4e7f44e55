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

use brandubh_arena::read_records;
use brandubh_play::{PlayContext, PlayerSpec};
use brandubh_rules::{Game, MoveRecord, RuleSet, Side};
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
    let (pair, game_no): (u64, u8) = (pair.parse().unwrap(), game_no.parse().unwrap());
    let record = read_records(std::path::Path::new(file))
        .unwrap()
        .into_iter()
        .find(|g| g.pair == pair && g.game == game_no)
        .expect("no such pair and game in the file");
    let rules = Arc::new(RuleSet::named(&record.rules).unwrap());
    let net_side = if record.attackers.starts_with("mcts") {
        Side::Attackers
    } else {
        Side::Defenders
    };
    let spec = PlayerSpec::parse(spec).unwrap();
    let budget = spec.mcts().ms.expect("a timed spec (ms=…)") as f64;
    let ctx = PlayContext::new(brandubh_mcts::Models::new(brandubh_model::model_loader(
        None,
    )));
    let mut player = spec.build_mcts(&rules, 1, &ctx).unwrap();
    let mut game = Game::new(rules.clone());
    let (mut over, mut searched, mut total_ms, mut sims) = (0, 0, 0.0, 0u64);
    for (ply, text) in record.opening.iter().chain(&record.moves).enumerate() {
        if searched == limit {
            break;
        }
        let recorded = ply >= record.opening.len();
        if recorded && game.side_to_move() == net_side && game.legal_moves().len() > 1 {
            let t = Instant::now();
            let r = player.search(&game, None);
            let ms = t.elapsed().as_secs_f64() * 1e3;
            searched += 1;
            total_ms += ms;
            sims += r.simulations as u64;
            if ms > 1.05 * budget {
                over += 1;
                println!(
                    "ply {ply:>3}: {ms:.0} ms, {} simulations, {} batches",
                    r.simulations, r.batches
                );
            }
        }
        game.play(text.parse::<MoveRecord>().unwrap().mv).unwrap();
    }
    println!(
        "{over} of {searched} searches over 105 % of {budget} ms; mean {:.0} ms, {:.0} simulations",
        total_ms / searched.max(1) as f64,
        sims as f64 / searched.max(1) as f64
    );
}
