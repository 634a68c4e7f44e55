//! Fitting the evaluation weights to game results ("Texel tuning"): the
//! static evaluation is linear in a handful of features, so the chance that
//! the attackers win from a position is modelled as σ(k · eval / 100), and
//! the weights are moved to make that prediction fit the results of
//! recorded games (cross-entropy, full-batch Adam). One weight (`attacker`,
//! the value of a man) stays fixed and sets the scale.

use crate::arena::GameRecord;
use crate::search::evaluation::{features, EvalWeights, N_FEATURES};
use brandubh_rules::{Game, MoveRecord, RuleSet};
use std::sync::Arc;

/// One position of a recorded game: its features (attackers' point of
/// view) and the attackers' points in that game.
#[derive(Clone, Debug)]
pub struct Sample {
    pub features: [f64; N_FEATURES],
    pub result: f64,
}

/// The positions of `games` from ply `skip` on (so random openings are
/// left out), leaving out finished positions and those where the side to
/// move can win on the spot (their evaluation is never asked for).
pub fn samples(
    rules: &Arc<RuleSet>,
    games: &[GameRecord],
    skip: u32,
) -> Result<Vec<Sample>, String> {
    let mut out = Vec::new();
    for (i, rec) in games.iter().enumerate() {
        if rec.result == "unfinished" {
            continue;
        }
        let result = rec.attacker_points();
        let mut g = Game::new(rules.clone());
        for (j, text) in rec.opening.iter().chain(&rec.moves).enumerate() {
            let pos = *g.position();
            if j as u32 >= skip && pos.winning_move(rules).is_none() {
                out.push(Sample {
                    features: features(rules, &pos),
                    result,
                });
            }
            let mv = text
                .parse::<MoveRecord>()
                .map_err(|e| format!("game {i} (pair {}), ply {j}: {e}", rec.pair))?
                .mv;
            g.play(mv)
                .map_err(|e| format!("game {i} (pair {}), ply {j}: {e}", rec.pair))?;
        }
    }
    Ok(out)
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Mean cross-entropy of the predictions σ(k · w·f / 100).
pub fn loss(samples: &[Sample], w: &[f64; N_FEATURES], k: f64) -> f64 {
    let eps = 1e-12;
    samples
        .iter()
        .map(|s| {
            let p = sigmoid(k * dot(w, &s.features) / 100.0).clamp(eps, 1.0 - eps);
            -(s.result * p.ln() + (1.0 - s.result) * (1.0 - p).ln())
        })
        .sum::<f64>()
        / samples.len().max(1) as f64
}

fn dot(w: &[f64; N_FEATURES], f: &[f64; N_FEATURES]) -> f64 {
    w.iter().zip(f).map(|(a, b)| a * b).sum()
}

/// The scale k that fits the given weights best (golden-section search).
pub fn fit_scale(samples: &[Sample], w: &[f64; N_FEATURES]) -> f64 {
    let (mut lo, mut hi) = (1e-4f64, 10.0f64);
    let r = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..80 {
        let a = hi - r * (hi - lo);
        let b = lo + r * (hi - lo);
        if loss(samples, w, a) < loss(samples, w, b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    (lo + hi) / 2.0
}

/// What a fit did.
#[derive(Clone, Debug)]
pub struct Fit {
    pub weights: EvalWeights,
    pub scale: f64,
    pub loss_before: f64,
    pub loss_after: f64,
}

/// Fits every weight but `attacker` by full-batch Adam on the cross-entropy,
/// with the scale k fitted to the starting weights and then kept.
pub fn fit(samples: &[Sample], start: &EvalWeights, iterations: u32, lr: f64) -> Fit {
    let w0 = start.to_array();
    let k = fit_scale(samples, &w0);
    let loss_before = loss(samples, &w0, k);
    let mut w = w0;
    let (mut m, mut v) = ([0.0f64; N_FEATURES], [0.0f64; N_FEATURES]);
    let (b1, b2) = (0.9f64, 0.999f64);
    let n = samples.len().max(1) as f64;
    for t in 1..=iterations {
        let mut g = [0.0f64; N_FEATURES];
        for s in samples {
            let p = sigmoid(k * dot(&w, &s.features) / 100.0);
            let d = (p - s.result) * k / 100.0;
            for (gi, fi) in g.iter_mut().zip(&s.features) {
                *gi += d * fi;
            }
        }
        for i in 0..N_FEATURES {
            if i == 0 {
                continue; // `attacker` fixes the scale
            }
            let gi = g[i] / n;
            m[i] = b1 * m[i] + (1.0 - b1) * gi;
            v[i] = b2 * v[i] + (1.0 - b2) * gi * gi;
            let mh = m[i] / (1.0 - b1.powi(t as i32));
            let vh = v[i] / (1.0 - b2.powi(t as i32));
            w[i] -= lr * mh / (vh.sqrt() + 1e-12);
        }
    }
    let weights = EvalWeights::from_array(&w);
    let loss_after = loss(samples, &weights.to_array(), k);
    Fit {
        weights,
        scale: k,
        loss_before,
        loss_after,
    }
}
