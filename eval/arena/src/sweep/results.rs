//! Reading a study back: each cell's balance and the cross-play verdicts.

use super::{cell_games, SweepError, Variant};
use crate::balance::{summarise, Balance, GameOutcome};
use serde::Serialize;
use std::path::Path;
/// One cell's balance.
#[derive(Clone, Debug, Serialize)]
pub struct CellResult {
    pub attackers: String,
    pub defenders: String,
    pub balance: Balance,
}

/// The cross-play check for one pair of players A, B: with each player's
/// attack and defence as separate strengths, A's self-play share minus
/// B-attacking-A's measures A's attack against B's, and A-attacking-B's
/// minus A's self-play measures B's defence against A's. When A's
/// self-play share lies outside the interval of the cross-play mean, A's
/// two sides are not as strong as each other relative to B, and A's
/// balance figure is player-limited.
#[derive(Clone, Debug, Serialize)]
pub struct CrossCheck {
    pub a: String,
    pub b: String,
    /// Attackers' shares (wins; draws count half) of A–A, B–B, A–B, B–A
    /// (attackers first).
    pub aa: f64,
    pub bb: f64,
    pub ab: f64,
    pub ba: f64,
    /// The mean of the two cross-play shares and its 95 % interval.
    pub cross_mean: f64,
    pub cross_ci95: [f64; 2],
    pub a_agrees: bool,
    pub b_agrees: bool,
    /// In words: which player's which side is weaker, when one is.
    pub verdict: String,
}

/// The attackers' points share (draws half) and its 95 % normal interval.
fn points(b: &Balance) -> (f64, f64) {
    let n = b.games.max(1) as f64;
    let p = (b.attackers.count as f64 + 0.5 * b.draws.count as f64) / n;
    let se = (p * (1.0 - p) / n).sqrt().max(0.5 / n);
    (p, se)
}

pub fn cross_check(
    a: &str,
    b: &str,
    aa: &Balance,
    bb: &Balance,
    ab: &Balance,
    ba: &Balance,
) -> CrossCheck {
    let (paa, saa) = points(aa);
    let (pbb, sbb) = points(bb);
    let (pab, sab) = points(ab);
    let (pba, sba) = points(ba);
    let mean = (pab + pba) / 2.0;
    let se = (sab * sab + sba * sba).sqrt() / 2.0;
    // A self-play share agrees when the two intervals overlap.
    let agrees = |p: f64, s: f64| (p - mean).abs() <= 1.96 * (s * s + se * se).sqrt();
    let (a_agrees, b_agrees) = (agrees(paa, saa), agrees(pbb, sbb));
    let differs =
        |x: f64, sx: f64, y: f64, sy: f64| (x - y).abs() > 1.96 * (sx * sx + sy * sy).sqrt();
    let mut notes = Vec::new();
    // Same defenders (A), different attackers: A's attack against B's.
    if differs(paa, saa, pba, sba) {
        let weaker = if paa < pba { a } else { b };
        notes.push(format!(
            "`{weaker}` attacks worse (against the same defenders)"
        ));
    }
    // Same attackers (A), different defenders: B's defence against A's.
    if differs(pab, sab, paa, saa) {
        let weaker = if pab > paa { b } else { a };
        notes.push(format!(
            "`{weaker}` defends worse (against the same attackers)"
        ));
    }
    let verdict = if a_agrees && b_agrees {
        if notes.is_empty() {
            "consistent: self-play and cross-play agree".to_string()
        } else {
            format!(
                "self-play agrees with cross-play, though {}",
                notes.join("; ")
            )
        }
    } else {
        let who: Vec<&str> = [(a, a_agrees), (b, b_agrees)]
            .iter()
            .filter(|(_, ok)| !ok)
            .map(|(n, _)| *n)
            .collect();
        format!(
            "player-limited: the self-play share of `{}` is off the cross-play mean{}",
            who.join("` and `"),
            if notes.is_empty() {
                String::new()
            } else {
                format!("; {}", notes.join("; "))
            }
        )
    };
    CrossCheck {
        a: a.into(),
        b: b.into(),
        aa: paa,
        bb: pbb,
        ab: pab,
        ba: pba,
        cross_mean: mean,
        cross_ci95: [(mean - 1.96 * se).max(0.0), (mean + 1.96 * se).min(1.0)],
        a_agrees,
        b_agrees,
        verdict,
    }
}

/// A variant's results: each cell, the ladder's shares in order, and the
/// cross-play checks.
#[derive(Clone, Debug, Serialize)]
pub struct VariantResult {
    pub name: String,
    pub rules_hash: String,
    pub cells: Vec<CellResult>,
    /// The ladder's self-play balance, weakest first (cells with games).
    pub ladder: Vec<CellResult>,
    pub cross: Vec<CrossCheck>,
    /// Whether the ladder's top two rungs agree within their intervals.
    pub settled: Option<bool>,
}

/// Summarises what the directory holds for each variant.
pub fn results(dir: &Path, variants: &[Variant]) -> Result<Vec<VariantResult>, SweepError> {
    let mut out = Vec::new();
    for v in variants {
        let mut cells = Vec::new();
        for cell in &v.cells {
            let games = cell_games(dir, &v.name, cell)?;
            let outcomes: Vec<GameOutcome> = games.iter().map(GameOutcome::from).collect();
            let refs: Vec<&GameOutcome> = outcomes.iter().collect();
            cells.push(CellResult {
                attackers: cell.0.clone(),
                defenders: cell.1.clone(),
                balance: summarise(&v.name, &format!("{} vs {}", cell.0, cell.1), &refs),
            });
        }
        let find = |a: &str, d: &str| {
            cells
                .iter()
                .find(|c| c.attackers == a && c.defenders == d && c.balance.games > 0)
                .cloned()
        };
        let ladder: Vec<CellResult> = v.ladder.iter().filter_map(|p| find(p, p)).collect();
        let cross = v
            .cross
            .iter()
            .filter_map(|[a, b]| {
                Some(cross_check(
                    a,
                    b,
                    &find(a, a)?.balance,
                    &find(b, b)?.balance,
                    &find(a, b)?.balance,
                    &find(b, a)?.balance,
                ))
            })
            .collect();
        let settled = (ladder.len() >= 2).then(|| {
            let x = &ladder[ladder.len() - 1].balance;
            let y = &ladder[ladder.len() - 2].balance;
            let (px, sx) = points(x);
            let (py, sy) = points(y);
            (px - py).abs() <= 1.96 * (sx * sx + sy * sy).sqrt()
        });
        out.push(VariantResult {
            name: v.name.clone(),
            rules_hash: format!("{:016x}", v.rules.hash),
            cells,
            ladder,
            cross,
            settled,
        });
    }
    Ok(out)
}
