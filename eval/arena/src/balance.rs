//! Side balance: how often each side wins under a rule set, how long games
//! last and how they end, from freshly played games or from game files
//! (arena JSON lines, self-play Parquet).

use crate::GameRecord;
use brandubh_play::{ending::Ending, ending::RecordResult};
use brandubh_selfplay::SelfPlayGame;
use serde::Serialize;
use std::collections::BTreeMap;

/// What balance needs of one game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameOutcome {
    pub rules: String,
    /// Grouping within a rule set: the model id for self-play games (one per
    /// generation), the players for arena games.
    pub group: String,
    pub result: RecordResult,
    pub reason: Option<Ending>,
    pub plies: u32,
}

impl From<&GameRecord> for GameOutcome {
    fn from(g: &GameRecord) -> Self {
        GameOutcome {
            rules: g.rules.clone(),
            group: format!("{} vs {}", g.attackers, g.defenders),
            result: g.result,
            reason: g.reason,
            plies: g.plies,
        }
    }
}

impl From<&SelfPlayGame> for GameOutcome {
    fn from(g: &SelfPlayGame) -> Self {
        GameOutcome {
            rules: g.rules.clone(),
            group: g.model_id.clone(),
            result: RecordResult::from(g.result),
            reason: g.reason.map(Ending::Rules),
            plies: g.plies,
        }
    }
}

/// A proportion with its Wilson score 95 % interval.
#[derive(Copy, Clone, Debug, PartialEq, Serialize)]
pub struct Share {
    pub count: u64,
    pub share: f64,
    pub ci95: [f64; 2],
}

/// Wilson score interval for `k` successes in `n` trials (z = 1.96).
pub fn wilson(k: u64, n: u64) -> Share {
    if n == 0 {
        return Share {
            count: 0,
            share: 0.0,
            ci95: [0.0, 1.0],
        };
    }
    let z = 1.959_964f64;
    let (nf, p) = (n as f64, k as f64 / n as f64);
    let denom = 1.0 + z * z / nf;
    let centre = (p + z * z / (2.0 * nf)) / denom;
    let half = z * (p * (1.0 - p) / nf + z * z / (4.0 * nf * nf)).sqrt() / denom;
    Share {
        count: k,
        share: p,
        ci95: [(centre - half).max(0.0), (centre + half).min(1.0)],
    }
}

/// Linear-interpolated quantile of sorted values (numpy's default).
pub fn quantile(sorted: &[u32], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] as f64 + (sorted[hi] as f64 - sorted[lo] as f64) * (pos - lo as f64)
}

#[derive(Clone, Debug, Serialize)]
pub struct Lengths {
    pub mean: f64,
    pub median: f64,
    pub q1: f64,
    pub q3: f64,
    pub min: u32,
    pub max: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct Balance {
    pub rules: String,
    pub group: String,
    pub games: u64,
    pub attackers: Share,
    pub defenders: Share,
    pub draws: Share,
    /// Capped before the rules ended them.
    pub unfinished: Share,
    pub lengths: Lengths,
    /// Games by how they ended (`unfinished` for capped games).
    pub endings: BTreeMap<String, u64>,
}

/// Summarises games of one rule set and group.
pub fn summarise(rules: &str, group: &str, games: &[&GameOutcome]) -> Balance {
    let n = games.len() as u64;
    let count = |r: RecordResult| games.iter().filter(|g| g.result == r).count() as u64;
    let mut lengths: Vec<u32> = games.iter().map(|g| g.plies).collect();
    lengths.sort_unstable();
    let mut endings = BTreeMap::new();
    for g in games {
        *endings
            .entry(g.reason.map_or("unfinished", Ending::as_str).to_string())
            .or_insert(0) += 1;
    }
    Balance {
        rules: rules.to_string(),
        group: group.to_string(),
        games: n,
        attackers: wilson(count(RecordResult::AttackersWin), n),
        defenders: wilson(count(RecordResult::DefendersWin), n),
        draws: wilson(count(RecordResult::Draw), n),
        unfinished: wilson(count(RecordResult::Unfinished), n),
        lengths: Lengths {
            mean: lengths.iter().map(|&l| l as f64).sum::<f64>() / n.max(1) as f64,
            median: quantile(&lengths, 0.5),
            q1: quantile(&lengths, 0.25),
            q3: quantile(&lengths, 0.75),
            min: lengths.first().copied().unwrap_or(0),
            max: lengths.last().copied().unwrap_or(0),
        },
        endings,
    }
}

/// Summaries per (rule set, group), groups in order of first appearance.
pub fn summarise_all(games: &[GameOutcome]) -> Vec<Balance> {
    let mut keys: Vec<(String, String)> = Vec::new();
    for g in games {
        let k = (g.rules.clone(), g.group.clone());
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.iter()
        .map(|(r, grp)| {
            let sel: Vec<&GameOutcome> = games
                .iter()
                .filter(|g| &g.rules == r && &g.group == grp)
                .collect();
            summarise(r, grp, &sel)
        })
        .collect()
}

/// Human games from the World Tafl Federation's online server (counted from
/// its public archive), and which of our rule sets each is nearest to.
pub const HUMAN_RECORD: [(&str, f64, f64, u64, &str); 3] = [
    (
        "Irish Brandubh 1 (king beside the throne needs three captors)",
        0.652,
        0.342,
        1960,
        "ludii",
    ),
    (
        "Irish Brandubh 2 (two captors beside the throne)",
        0.575,
        0.424,
        1279,
        "wtf",
    ),
    ("Walker's Brandubh", 0.529, 0.432, 227, "modern"),
];
