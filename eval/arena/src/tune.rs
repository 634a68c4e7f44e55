//! Fitting the evaluation weights to game results ("Texel tuning"): the
//! static evaluation is linear in a handful of features, so the chance that
//! the attackers win from a position is modelled as σ(k · (eval + c) / 100),
//! and the weights are moved to make that prediction fit the results of
//! recorded games (cross-entropy, full-batch Adam). One weight (`attacker`,
//! the value of a man) stays fixed and sets the scale. The offset c is
//! there because the game is lopsided (an even evaluation is not an even
//! game); the search never sees it, since adding a constant to every
//! evaluation changes no choice between them.

use crate::GameRecord;
use brandubh_alphabeta::{evaluation::features, evaluation::EvalWeights, evaluation::N_FEATURES};
use brandubh_rules::{Game, MoveRecord, RuleSet};
use std::sync::Arc;

/// One position of a recorded game: its features (attackers' point of
/// view) and the attackers' points in that game.
#[derive(Clone, Debug)]
pub struct Sample {
    pub features: [f64; N_FEATURES],
    pub result: f64,
}

/// A recorded game's move that does not read or does not play.
#[derive(Debug, thiserror::Error)]
#[error("game {game} (pair {pair}), ply {ply}: {why}")]
pub struct SampleError {
    pub game: usize,
    pub pair: u64,
    pub ply: usize,
    pub why: String,
}

/// The positions of `games` from ply `skip` on (so random openings are
/// left out), leaving out finished positions and those where the side to
/// move can win on the spot (their evaluation is never asked for).
pub fn samples(
    rules: &Arc<RuleSet>,
    games: &[GameRecord],
    skip: u32,
) -> Result<Vec<Sample>, SampleError> {
    let mut out = Vec::new();
    for (i, rec) in games.iter().enumerate() {
        if rec.result == brandubh_play::ending::RecordResult::Unfinished {
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
            let err = |why: String| SampleError {
                game: i,
                pair: rec.pair,
                ply: j,
                why,
            };
            let mv = text
                .parse::<MoveRecord>()
                .map_err(|e| err(e.to_string()))?
                .mv;
            g.play(mv).map_err(|e| err(e.to_string()))?;
        }
    }
    Ok(out)
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Mean cross-entropy of the predictions σ(k · (w·f + c) / 100).
pub fn loss(samples: &[Sample], w: &[f64; N_FEATURES], k: f64, c: f64) -> f64 {
    let eps = 1e-12;
    samples
        .iter()
        .map(|s| {
            let p = sigmoid(k * (dot(w, &s.features) + c) / 100.0).clamp(eps, 1.0 - eps);
            -(s.result * p.ln() + (1.0 - s.result) * (1.0 - p).ln())
        })
        .sum::<f64>()
        / samples.len().max(1) as f64
}

fn dot(w: &[f64; N_FEATURES], f: &[f64; N_FEATURES]) -> f64 {
    w.iter().zip(f).map(|(a, b)| a * b).sum()
}

/// The scale k and offset c that fit the given weights best: a logistic
/// regression of the results on the evaluation (Newton's method).
pub fn fit_scale(samples: &[Sample], w: &[f64; N_FEATURES]) -> (f64, f64) {
    // p = σ(a + b·x) with x = eval / 100; then k = b and c = 100·a / b.
    let xs: Vec<f64> = samples
        .iter()
        .map(|s| dot(w, &s.features) / 100.0)
        .collect();
    let (mut a, mut b) = (0.0f64, 0.0f64);
    for _ in 0..50 {
        let (mut ga, mut gb, mut haa, mut hab, mut hbb) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for (x, s) in xs.iter().zip(samples) {
            let p = sigmoid(a + b * x);
            let q = p * (1.0 - p) + 1e-12;
            ga += p - s.result;
            gb += (p - s.result) * x;
            haa += q;
            hab += q * x;
            hbb += q * x * x;
        }
        let det = haa * hbb - hab * hab;
        if det.abs() < 1e-12 {
            break;
        }
        let da = (hbb * ga - hab * gb) / det;
        let db = (haa * gb - hab * ga) / det;
        a -= da;
        b -= db;
        if da.abs() + db.abs() < 1e-10 {
            break;
        }
    }
    let k = b.max(1e-6);
    (k, 100.0 * a / k)
}

/// What a fit did.
#[derive(Clone, Debug)]
pub struct Fit {
    pub weights: EvalWeights,
    pub scale: f64,
    /// The offset c at the start and after the fit, in evaluation units.
    pub offset_before: f64,
    pub offset_after: f64,
    pub loss_before: f64,
    pub loss_after: f64,
}

/// Fits every weight but `attacker`, and the offset, by full-batch Adam on
/// the cross-entropy, with the scale k fitted to the starting weights and
/// then kept.
pub fn fit(samples: &[Sample], start: &EvalWeights, iterations: u32, lr: f64) -> Fit {
    let w0 = start.to_array();
    let (k, c0) = fit_scale(samples, &w0);
    let loss_before = loss(samples, &w0, k, c0);
    // Parameters: the weights, then the offset.
    const P: usize = N_FEATURES + 1;
    let mut w = [0.0f64; P];
    w[..N_FEATURES].copy_from_slice(&w0);
    w[N_FEATURES] = c0;
    let (mut m, mut v) = ([0.0f64; P], [0.0f64; P]);
    let (b1, b2) = (0.9f64, 0.999f64);
    let n = samples.len().max(1) as f64;
    for t in 1..=iterations {
        let mut g = [0.0f64; P];
        let wf: [f64; N_FEATURES] = w[..N_FEATURES].try_into().expect("sized");
        for s in samples {
            let p = sigmoid(k * (dot(&wf, &s.features) + w[N_FEATURES]) / 100.0);
            let d = (p - s.result) * k / 100.0;
            for (gi, fi) in g.iter_mut().zip(&s.features) {
                *gi += d * fi;
            }
            g[N_FEATURES] += d;
        }
        for i in 0..P {
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
    let wf: [f64; N_FEATURES] = w[..N_FEATURES].try_into().expect("sized");
    let weights = EvalWeights::from_array(&wf);
    let loss_after = loss(samples, &weights.to_array(), k, w[N_FEATURES]);
    Fit {
        weights,
        scale: k,
        offset_before: c0,
        offset_after: w[N_FEATURES],
        loss_before,
        loss_after,
    }
}
