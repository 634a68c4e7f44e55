//! Simulations per second of one game's search from the start position:
//! the one-leaf loop the MCTS player used before batching (one leaf per
//! forward pass, on the calling thread), against the batched, pipelined
//! player with burn-flex, tract or our own engine behind the evaluator, for random nets of
//! the default size (32×2) and 64×4. Each configuration searches `SIMS`
//! simulations `REPS` times, the configurations taking turns so that a
//! noisy spell of the machine hits them alike; medians are printed, and
//! ratios to the one-leaf loop of the same run.
//!
//! `cargo run --release --example mcts_speed [SIMS] [REPS]`

use brandubh_mcts::{Advance, Evaluator, MctsConfig, Search};
use brandubh_model::{NativeEvaluator, NetConfig, NetEvaluator, TractEvaluator};
use brandubh_play::{mcts_player::MctsPlayer, mcts_player::MctsSettings};
use brandubh_rules::{Game, RuleSet};
use burn::tensor::Device;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;
use std::time::Instant;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

/// The search before batching: one leaf, one forward pass, one thread asking.
fn one_leaf(
    rules: &Arc<RuleSet>,
    game: &Game,
    ev: &Arc<dyn Evaluator>,
    sims: u32,
    seed: u64,
) -> f64 {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let t = Instant::now();
    let mut s = Search::new(rules.clone(), MctsConfig::default(), game);
    s.start(sims, false, &mut rng);
    while s.advance() == Advance::NeedsEval {
        let e = ev.evaluate(&[s.leaf_request()]);
        s.apply(&e[0], &mut rng);
    }
    s.simulations() as f64 / t.elapsed().as_secs_f64()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let sims: u32 = args.next().and_then(|s| s.parse().ok()).unwrap_or(3000);
    let reps: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(5);
    let rules = Arc::new(RuleSet::builtin("wtf").unwrap());
    let game = Game::new(rules.clone());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    for (c, b) in [(32, 2), (64, 4)] {
        let config = NetConfig::new().with_channels(c).with_blocks(b);
        let net = config.init(&Device::flex());
        let flex: Arc<dyn Evaluator> = Arc::new(NetEvaluator::new(
            &net,
            Device::flex(),
            rules.clone(),
            "bench".into(),
        ));
        let tract: Arc<dyn Evaluator> =
            Arc::new(TractEvaluator::new(&net, &config, rules.clone(), "bench".into()).unwrap());
        let native: Arc<dyn Evaluator> =
            Arc::new(NativeEvaluator::new(&net, rules.clone(), "bench".into()));
        // (label, evaluator, batch, workers)
        let mut configs: Vec<(String, Arc<dyn Evaluator>, usize, usize)> = Vec::new();
        for (engine, ev) in [("flex", &flex), ("tract", &tract), ("native", &native)] {
            for (batch, workers) in [(1, 1), (8, 1), (4, cores), (8, cores), (16, cores)] {
                configs.push((
                    format!("{engine:>6}, batch {batch:>2}, {workers} worker(s)"),
                    ev.clone(),
                    batch,
                    workers,
                ));
            }
        }
        let mut before = Vec::new();
        let mut rates = vec![Vec::new(); configs.len()];
        let mut hits = vec![Vec::new(); configs.len()];
        let ctx = brandubh_play::PlayContext::uniform_only();
        for rep in 0..reps {
            before.push(one_leaf(&rules, &game, &flex, sims, rep as u64));
            for (k, (_, ev, batch, workers)) in configs.iter().enumerate() {
                let mut p = MctsPlayer::new(
                    "bench".into(),
                    rules.clone(),
                    MctsSettings {
                        cfg: MctsConfig::default(),
                        sims: Some(sims),
                        millis: None,
                        batch: *batch,
                        threads: *workers,
                        verify: 0.0,
                    },
                    ev.clone(),
                    rep as u64,
                    &ctx,
                );
                let r = p.search(&game, None);
                rates[k].push(r.simulations as f64 / r.elapsed.as_secs_f64());
                hits[k].push(r.cache_hits as f64 / r.evaluations.max(1) as f64);
            }
        }
        let old = median(before);
        println!("net {c}x{b}: one leaf per pass, flex (before): {old:>6.0} sims/s");
        for (k, (label, ..)) in configs.iter().enumerate() {
            let rate = median(rates[k].clone());
            println!(
                "net {c}x{b}: {label}: {rate:>6.0} sims/s ({:.2}x), {:.0} % of leaves from the cache",
                rate / old,
                100.0 * median(hits[k].clone())
            );
        }
    }
}
