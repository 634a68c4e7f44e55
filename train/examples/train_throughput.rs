//! Training-step throughput (samples/s) at batch 256 for two net sizes, on
//! the flex backend with autodiff. Median of several timed steps.
//!
//! `cargo run --release -p brandubh-train --example train_throughput`

use brandubh_model::encoding::INPUT_LEN;
use brandubh_model::NetConfig;
use brandubh_rules::POLICY_SIZE;
use brandubh_train::{Sample, Trainer};
use burn::tensor::Device;
use std::time::Instant;

fn main() {
    let batch = 256;
    let samples: Vec<Sample> = (0..batch)
        .map(|i| {
            let mut policy = vec![0.0; POLICY_SIZE];
            policy[i % POLICY_SIZE] = 1.0;
            Sample {
                planes: (0..INPUT_LEN)
                    .map(|k| ((k + i) % 3 == 0) as u8 as f32)
                    .collect(),
                policy,
                policy_weight: 1.0,
                wdl: [1.0, 0.0, 0.0],
                value_weight: 1.0,
                moves_left: 0.0,
            }
        })
        .collect();
    for (c, b) in [(32, 2), (128, 6)] {
        let config = NetConfig::new().with_channels(c).with_blocks(b);
        let device = Device::flex().autodiff();
        let net = config.init(&device);
        let mut t = Trainer::new(net, config, device, 1e-4);
        t.step(&samples, 1e-3); // warm-up
        let mut runs = Vec::new();
        for _ in 0..5 {
            let start = Instant::now();
            t.step(&samples, 1e-3);
            runs.push(batch as f64 / start.elapsed().as_secs_f64());
        }
        runs.sort_by(|a, b| a.partial_cmp(b).unwrap());
        println!(
            "net {c}×{b}: {:.0} samples/s at batch {batch} (median of 5 steps)",
            runs[2]
        );
    }
}
