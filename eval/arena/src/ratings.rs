//! Maximum-likelihood (Bradley–Terry) ratings of every player across
//! recorded games, with the attackers' side advantage as its own parameter:
//! P(attacker i beats defender j) = σ(r_i − r_j + h). A draw (or a capped
//! game) counts as half a win each way. One player is anchored at 0; 95 %
//! intervals come from the inverse of the observed information matrix.
//! A weak normal prior (sd 1000 Elo) keeps players with only wins or only
//! losses finite; it moves well-measured ratings by a fraction of an Elo.

use crate::GameRecord;
use serde::{Deserialize, Serialize};

const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;
const PRIOR_SD_ELO: f64 = 1000.0;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Rating {
    /// The player's identity: its spec, with a net's path replaced by the
    /// net's model id (see `Player::identity`).
    pub player: String,
    /// The specs it played under, as the game files spell them.
    pub specs: Vec<String>,
    pub games: u64,
    /// Points scored over games played.
    pub score: f64,
    pub elo: f64,
    /// Half-width of the 95 % interval (0 for the anchor).
    pub ci95: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RatingTable {
    pub rules: String,
    pub anchor: String,
    pub games: u64,
    pub ratings: Vec<Rating>,
    /// The attackers' advantage in Elo, with its 95 % half-width.
    pub attacker_advantage: f64,
    pub attacker_advantage_ci95: f64,
}

#[derive(Debug, thiserror::Error)]
pub enum RatingError {
    #[error("no games to rate")]
    NoGames,
    #[error("anchor `{0}` played no game (players: {1})")]
    UnknownAnchor(String, String),
}

/// Rates the players of `games` (which should share one rule set). Players
/// are told apart by identity, so one net is one player under any path;
/// `anchor` may name a player by identity or by any spec it played under.
pub fn rate(games: &[GameRecord], anchor: &str) -> Result<RatingTable, RatingError> {
    if games.is_empty() {
        return Err(RatingError::NoGames);
    }
    let mut players: Vec<String> = Vec::new();
    let mut specs: Vec<Vec<String>> = Vec::new();
    let mut index = |id: &str, spec: &str| {
        let i = players.iter().position(|p| p == id).unwrap_or_else(|| {
            players.push(id.to_string());
            specs.push(Vec::new());
            players.len() - 1
        });
        if !specs[i].iter().any(|s| s == spec) {
            specs[i].push(spec.to_string());
        }
        i
    };
    let obs: Vec<(usize, usize, f64)> = games
        .iter()
        .map(|g| {
            let a = index(g.attackers_identity(), &g.attackers);
            let d = index(g.defenders_identity(), &g.defenders);
            (a, d, g.attacker_points())
        })
        .collect();
    let named = |i: usize| players[i] == anchor || specs[i].iter().any(|s| s == anchor);
    let Some(anchor_ix) = (0..players.len()).find(|&i| named(i)) else {
        return Err(RatingError::UnknownAnchor(
            anchor.to_string(),
            players.join(", "),
        ));
    };
    let n = players.len();
    // Parameters: ratings of every player but the anchor, then h. In nats.
    let free: Vec<usize> = (0..n).filter(|&i| i != anchor_ix).collect();
    let dim = free.len() + 1;
    let pos_of = |p: usize| free.iter().position(|&f| f == p);
    let prior = 1.0 / (PRIOR_SD_ELO / ELO_PER_NAT).powi(2);
    let mut theta = vec![0.0; dim];
    let mut info = vec![vec![0.0; dim]; dim];
    for _ in 0..100 {
        let rating = |p: usize, t: &[f64]| pos_of(p).map_or(0.0, |k| t[k]);
        let mut grad = vec![0.0; dim];
        for row in info.iter_mut() {
            row.iter_mut().for_each(|v| *v = 0.0);
        }
        for &(a, d, s) in &obs {
            let x = rating(a, &theta) - rating(d, &theta) + theta[dim - 1];
            let p = 1.0 / (1.0 + (-x).exp());
            let w = p * (1.0 - p);
            // dx/dθ: +1 for a, −1 for d, +1 for h.
            let mut idx: Vec<(usize, f64)> = vec![(dim - 1, 1.0)];
            if let Some(k) = pos_of(a) {
                idx.push((k, 1.0));
            }
            if let Some(k) = pos_of(d) {
                idx.push((k, -1.0));
            }
            for &(i, si) in &idx {
                grad[i] += (s - p) * si;
                for &(j, sj) in &idx {
                    info[i][j] += w * si * sj;
                }
            }
        }
        for k in 0..dim - 1 {
            grad[k] -= prior * theta[k];
            info[k][k] += prior;
        }
        let step = solve(&info, &grad);
        let mut max = 0.0f64;
        for k in 0..dim {
            theta[k] += step[k];
            max = max.max(step[k].abs());
        }
        if max < 1e-10 {
            break;
        }
    }
    let cov = invert(&info);
    let mut ratings: Vec<Rating> = (0..n)
        .map(|p| {
            let mine: Vec<&(usize, usize, f64)> =
                obs.iter().filter(|o| o.0 == p || o.1 == p).collect();
            let points: f64 = mine
                .iter()
                .map(|&&(a, _, s)| if a == p { s } else { 1.0 - s })
                .sum();
            let (elo, ci) = match pos_of(p) {
                Some(k) => (
                    theta[k] * ELO_PER_NAT,
                    1.959_964 * cov[k][k].sqrt() * ELO_PER_NAT,
                ),
                None => (0.0, 0.0),
            };
            Rating {
                player: players[p].clone(),
                specs: specs[p].clone(),
                games: mine.len() as u64,
                score: points / mine.len().max(1) as f64,
                elo,
                ci95: ci,
            }
        })
        .collect();
    ratings.sort_by(|a, b| b.elo.total_cmp(&a.elo));
    Ok(RatingTable {
        rules: games[0].rules.clone(),
        anchor: anchor.to_string(),
        games: games.len() as u64,
        ratings,
        attacker_advantage: theta[dim - 1] * ELO_PER_NAT,
        attacker_advantage_ci95: 1.959_964 * cov[dim - 1][dim - 1].sqrt() * ELO_PER_NAT,
    })
}

/// Solves A x = b (A symmetric positive definite, small) by Gaussian elimination.
fn solve(a: &[Vec<f64>], b: &[f64]) -> Vec<f64> {
    let n = b.len();
    let mut m: Vec<Vec<f64>> = a
        .iter()
        .zip(b)
        .map(|(row, &bi)| row.iter().copied().chain([bi]).collect())
        .collect();
    for c in 0..n {
        let p = (c..n)
            .max_by(|&i, &j| m[i][c].abs().total_cmp(&m[j][c].abs()))
            .expect("rows");
        m.swap(c, p);
        let piv = m[c][c];
        if piv.abs() < 1e-300 {
            continue;
        }
        let pivot_row = m[c].clone();
        for (r, row) in m.iter_mut().enumerate() {
            if r != c {
                let f = row[c] / piv;
                for (x, p) in row[c..].iter_mut().zip(&pivot_row[c..]) {
                    *x -= f * p;
                }
            }
        }
    }
    (0..n)
        .map(|i| {
            if m[i][i].abs() < 1e-300 {
                0.0
            } else {
                m[i][n] / m[i][i]
            }
        })
        .collect()
}

fn invert(a: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let n = a.len();
    let cols: Vec<Vec<f64>> = (0..n)
        .map(|j| {
            let e: Vec<f64> = (0..n).map(|i| if i == j { 1.0 } else { 0.0 }).collect();
            solve(a, &e)
        })
        .collect();
    (0..n)
        .map(|i| (0..n).map(|j| cols[j][i]).collect())
        .collect()
}
