//! The alpha-beta's use of its time and of its threads: searches the same
//! positions (the start and positions after seeded random openings) with a
//! time limit on 1 and on 2 threads, and prints, per thread count, the
//! mean share of the limit used, the mean depth reached and the nodes per
//! second (medians over rounds, rounds interleaved).
//!
//! `cargo run --release -p brandubh-alphabeta --example smp -- [RULES] [MS] [POSITIONS] [ROUNDS]`

use brandubh_alphabeta::{EvalWeights, Limits, Searcher};
use brandubh_rules::{Game, RuleSet};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;
use std::time::Instant;

fn positions(rules: &Arc<RuleSet>, n: usize) -> Vec<Game> {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut out = vec![Game::new(rules.clone())];
    while out.len() < n {
        let mut g = Game::new(rules.clone());
        for _ in 0..rng.random_range(2..12) {
            let moves = g.legal_moves();
            if g.is_over() || moves.is_empty() {
                break;
            }
            let mv = moves[rng.random_range(0..moves.len())];
            g.play(mv).expect("a legal move");
        }
        if !g.is_over() {
            out.push(g);
        }
    }
    out
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rules = args.get(1).map_or("wtf", |s| s.as_str());
    let ms: u64 = args.get(2).map_or(1000, |s| s.parse().expect("MS"));
    let n: usize = args.get(3).map_or(8, |s| s.parse().expect("POSITIONS"));
    let rounds: usize = args.get(4).map_or(3, |s| s.parse().expect("ROUNDS"));
    let rules = Arc::new(RuleSet::builtin(rules).expect("a built-in rule set"));
    let games = positions(&rules, n);
    let mut stats: Vec<[Vec<f64>; 3]> = vec![Default::default(), Default::default()];
    for _ in 0..rounds {
        for (k, threads) in [1usize, 2].into_iter().enumerate() {
            let (mut share, mut depth, mut nodes, mut secs) = (0.0, 0.0, 0.0, 0.0);
            for g in &games {
                let mut s = Searcher::new(rules.clone(), EvalWeights::builtin(rules.name()), 16);
                s.set_threads(threads);
                let t0 = Instant::now();
                let r = s.search(
                    g,
                    Limits {
                        millis: Some(ms),
                        ..Limits::default()
                    },
                );
                let spent = t0.elapsed().as_secs_f64();
                share += spent * 1000.0 / ms as f64;
                depth += r.depth as f64;
                nodes += r.nodes as f64;
                secs += spent;
            }
            let n = games.len() as f64;
            stats[k][0].push(share / n);
            stats[k][1].push(depth / n);
            stats[k][2].push(nodes / secs);
        }
    }
    println!(
        "{} positions, {ms} ms, {rounds} rounds (medians)",
        games.len()
    );
    for (k, threads) in [1, 2].into_iter().enumerate() {
        let [share, depth, nps] = stats[k].clone();
        println!(
            "threads {threads}: time used {:.1} %  mean depth {:.2}  {:.0} k nodes/s",
            100.0 * median(share),
            median(depth),
            median(nps) / 1e3
        );
    }
}
