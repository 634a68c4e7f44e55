//! Inference throughput of the net on the flex CPU backend at several
//! batch sizes, beside the machine's f32 GEMM peak measured in the same
//! run with the `gemm` crate. Medians of several timings.
//!
//! `cargo run --release -p brandubh-model --example throughput [threads]`

use brandubh_model::encoding::{encode, INPUT_LEN};
use brandubh_model::{NetConfig, NetEvaluator};
use brandubh_rules::{Position, RuleSet};
use burn::tensor::Device;
use std::sync::Arc;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// Median GFLOP/s of a 1024³ f32 matrix product on `threads` threads.
fn gemm_peak(threads: usize) -> f64 {
    let n = 1024;
    let a = vec![1.0f32; n * n];
    let b = vec![0.5f32; n * n];
    let mut c = vec![0.0f32; n * n];
    let par = if threads > 1 {
        gemm::Parallelism::Rayon(threads)
    } else {
        gemm::Parallelism::None
    };
    let mut runs = Vec::new();
    for _ in 0..7 {
        let t = Instant::now();
        unsafe {
            gemm::gemm(
                n,
                n,
                n,
                c.as_mut_ptr(),
                1,
                n as isize,
                false,
                a.as_ptr(),
                1,
                n as isize,
                b.as_ptr(),
                1,
                n as isize,
                0.0f32,
                1.0f32,
                false,
                false,
                false,
                par,
            );
        }
        runs.push(2.0 * (n * n * n) as f64 / t.elapsed().as_secs_f64() / 1e9);
    }
    median(runs)
}

fn main() {
    let threads: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    let peak = gemm_peak(threads);
    println!("f32 GEMM peak (gemm crate, 1024³, {threads} threads): {peak:.1} GFLOP/s");
    let rules = Arc::new(RuleSet::builtin("wtf").unwrap());
    let pos = Position::start(&rules);
    let mut planes = vec![0.0; INPUT_LEN];
    encode(&rules, &pos, 0, &mut planes);
    for (c, b) in [(32, 2), (128, 6)] {
        let config = NetConfig::new().with_channels(c).with_blocks(b);
        let device = Device::flex();
        let net = config.init(&device);
        let ev = NetEvaluator::new(&net, device, rules.clone(), "bench".into());
        let macs = config.macs_per_position();
        println!("net {c}×{b}: {:.1} MFLOP/position", 2.0 * macs as f64 / 1e6);
        for batch in [1usize, 8, 32, 128, 512] {
            let input: Vec<f32> = planes
                .iter()
                .copied()
                .cycle()
                .take(batch * INPUT_LEN)
                .collect();
            ev.forward_raw(input.clone(), batch); // warm-up
            let mut runs = Vec::new();
            for _ in 0..5 {
                let t = Instant::now();
                let mut n = 0;
                while t.elapsed().as_secs_f64() < 0.3 || n == 0 {
                    ev.forward_raw(input.clone(), batch);
                    n += 1;
                }
                runs.push((n * batch) as f64 / t.elapsed().as_secs_f64());
            }
            let pps = median(runs);
            let gflops = pps * 2.0 * macs as f64 / 1e9;
            println!(
                "  batch {batch:>3}: {pps:>9.0} positions/s  {gflops:>6.1} GFLOP/s  {:>5.1} % of peak",
                100.0 * gflops / peak
            );
        }
    }
}
