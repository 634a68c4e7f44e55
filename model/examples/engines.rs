//! The three inference engines behind the search's evaluator interface —
//! burn-flex, tract (one-position plan) and our own (`native_eval`) — on
//! the same net and the same batch of positions from a game, at several
//! batch sizes, on the global rayon pool. Positions a second, median of
//! five timings of at least 0.3 s each; every engine is timed in the same
//! run, so their ratios are comparable even on a busy machine.
//!
//! `cargo run --release -p brandubh-model --example engines [threads]`

use brandubh_mcts::{EvalRequest, Evaluator};
use brandubh_model::{NativeEvaluator, NetConfig, NetEvaluator, TractEvaluator};
use brandubh_rules::{Game, RuleSet};
use burn::tensor::Device;
use std::sync::Arc;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn rate(ev: &dyn Evaluator, reqs: &[EvalRequest<'_>]) -> f64 {
    ev.evaluate(reqs); // warm-up
    let runs = (0..5)
        .map(|_| {
            let t = Instant::now();
            let mut n = 0;
            while t.elapsed().as_secs_f64() < 0.3 || n == 0 {
                ev.evaluate(reqs);
                n += 1;
            }
            (n * reqs.len()) as f64 / t.elapsed().as_secs_f64()
        })
        .collect();
    median(runs)
}

fn main() {
    let threads: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
        .unwrap();
    let rules = Arc::new(RuleSet::builtin("wtf").unwrap());
    // 64 positions of one game, a fixed pseudo-random move at each ply.
    let mut g = Game::new(rules.clone());
    let mut games = Vec::new();
    let mut seed = 3u64;
    while games.len() < 64 {
        if g.is_over() {
            g = Game::new(rules.clone());
        }
        games.push(g.clone());
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let moves = g.legal_moves();
        let m = moves[(seed >> 33) as usize % moves.len()];
        g.play(m).unwrap();
    }
    let reqs: Vec<EvalRequest<'_>> = games
        .iter()
        .map(|g| EvalRequest {
            position: g.position(),
            moves: g.legal_moves().as_slice(),
            repetitions: 0,
        })
        .collect();
    println!("{threads} threads; positions a second (median of 5)");
    for (c, b) in [(32, 2), (32, 3), (64, 4)] {
        let config = NetConfig::new().with_channels(c).with_blocks(b);
        let device = Device::flex();
        let net = config.init(&device);
        let flex = NetEvaluator::new(&net, device, rules.clone(), "flex".into());
        let tract = TractEvaluator::new(&net, &config, rules.clone(), "tract".into()).unwrap();
        let native = NativeEvaluator::new(&net, rules.clone(), "native".into());
        let mflop = 2.0 * config.macs_per_position() as f64 / 1e6;
        println!("net {c}×{b} ({mflop:.1} MFLOP a position)");
        for batch in [1usize, 8, 32, 64] {
            let reqs = &reqs[..batch];
            let (f, t, n) = (rate(&flex, reqs), rate(&tract, reqs), rate(&native, reqs));
            println!(
                "  batch {batch:>2}: flex {f:>7.0}  tract {t:>7.0}  native {n:>7.0}  native/tract {:.2}  native GFLOP/s {:.1}",
                n / t,
                n * mflop / 1e3
            );
        }
    }
}
