//! Which engine feeds search faster on the 2-core machine: burn-flex running the
//! net, or tract running its ONNX export with a plan fixed to one batch
//! size? Medians of 5 timings of about 0.3 s each.
//!
//! `cargo run --release -p brandubh-model --example tract_vs_flex`

use brandubh_model::encoding::{encode, INPUT_LEN};
use brandubh_model::export::{export, run_plan, tract_plan};
use brandubh_model::{save, NetConfig, NetEvaluator};
use brandubh_rules::{Position, RuleSet};
use burn::tensor::Device;
use std::sync::Arc;
use std::time::Instant;

fn median_rate(mut f: impl FnMut() -> usize) -> f64 {
    let mut runs = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let mut n = 0;
        while t.elapsed().as_secs_f64() < 0.3 || n == 0 {
            n += f();
        }
        runs.push(n as f64 / t.elapsed().as_secs_f64());
    }
    runs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    runs[2]
}

fn main() {
    let rules = Arc::new(RuleSet::builtin("wtf").unwrap());
    let mut planes = vec![0.0; INPUT_LEN];
    encode(&rules, &Position::start(&rules), 0, &mut planes);
    let dir = std::env::temp_dir().join(format!("brandubh-tvf-{}", std::process::id()));
    for (c, b) in [(32, 2), (64, 4)] {
        let config = NetConfig::new().with_channels(c).with_blocks(b);
        let device = Device::flex();
        let net = config.init(&device);
        let meta = save(
            &dir.join(format!("n{c}")),
            &net,
            &config,
            &rules,
            0,
            0,
            "bench",
        )
        .unwrap();
        let onnx = dir.join(format!("n{c}.onnx"));
        export(&net, &config, &meta, &rules, &onnx, serde_json::Value::Null).unwrap();
        let ev = NetEvaluator::new(&net, device, rules.clone(), "bench".into());
        for batch in [1usize, 8, 32, 64] {
            let input: Vec<f32> = planes
                .iter()
                .copied()
                .cycle()
                .take(batch * INPUT_LEN)
                .collect();
            let flex = median_rate(|| {
                ev.forward_raw(input.clone(), batch);
                batch
            });
            let plan = tract_plan(&onnx, batch).unwrap();
            let tract = median_rate(|| {
                run_plan(&plan, &input, batch).unwrap();
                batch
            });
            println!("net {c}×{b} batch {batch:>2}: flex {flex:>7.0} pos/s, tract (one thread, fixed plan) {tract:>7.0} pos/s");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
