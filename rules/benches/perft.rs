//! Perft speed: this engine against the published `hnefatafl` crate on the
//! same Brandubh start position and depth, plus our perft 5 per rule set.
//! `cargo bench -p brandubh-rules`; the ratio of the two `start_d4` times is
//! the speed-up.

use brandubh_rules::{perft, Position, RuleSet};
use criterion::{criterion_group, criterion_main, Criterion};
use hnefatafl_cmp::hnefatafl_perft;
use std::hint::black_box;

#[path = "../examples/hnefatafl_cmp.rs"]
#[allow(dead_code)]
mod hnefatafl_cmp;

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("perft");
    g.sample_size(10);
    let wtf = RuleSet::builtin("wtf").unwrap();
    let start = Position::start(&wtf);
    g.bench_function("brandubh_start_d4", |b| {
        b.iter(|| perft(&wtf, black_box(&start), 4))
    });
    g.bench_function("hnefatafl_start_d4", |b| {
        b.iter(|| hnefatafl_perft(black_box(4)))
    });
    for name in ["modern", "ludii", "wtf", "wtf-plain", "raven"] {
        let r = RuleSet::builtin(name).unwrap();
        let p = Position::start(&r);
        g.bench_function(format!("brandubh_{name}_d5"), |b| {
            b.iter(|| perft(&r, black_box(&p), 5))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
