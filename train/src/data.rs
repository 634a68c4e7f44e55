//! Training samples from self-play records: a replay window of the newest
//! positions, drawn uniformly or side-balanced (`WindowSampler`), each under
//! a random one of the eight board symmetries. Only full-search positions
//! carry a policy target; every position of a finished game carries the
//! game's result as its value target. A game stopped at the ply cap has no
//! result: its positions get no value target (a draw would be a guess, and
//! a wrong one for rule sets that have no ply limit).

use brandubh_model::encoding::{encode, INPUT_LEN};
use brandubh_model::MOVES_LEFT_SCALE;
use brandubh_rules::{Position, RuleSet, Side, Symmetry, POLICY_SIZE};
use brandubh_selfplay::{PositionRecord, SelfPlayGame};
use rand::Rng;

/// One position ready for the net.
#[derive(Clone, Debug)]
pub struct Sample {
    pub planes: Vec<f32>,
    /// Dense policy target (zeros when `policy_weight` is 0).
    pub policy: Vec<f32>,
    pub policy_weight: f32,
    /// One-hot win/draw/loss for the side to move.
    pub wdl: [f32; 3],
    /// 1, or 0 when the game's result is unknown (stopped at the ply cap).
    pub value_weight: f32,
    /// Plies from this position to the game's end, over `MOVES_LEFT_SCALE`
    /// (0 when unknown: `value_weight` is 0 then too).
    pub moves_left: f32,
}

/// A position of the window with the result of its game.
#[derive(Clone, Debug)]
pub struct WindowEntry {
    pub record: PositionRecord,
    /// +1 / 0 / −1 for the side to move.
    pub result: i8,
    /// The game finished (false: stopped at the ply cap, result unknown).
    pub finished: bool,
    /// Plies the game lasted from this position on.
    pub plies_left: u32,
}

/// The newest `capacity` positions of `games` (given oldest first).
pub fn window(games: &[SelfPlayGame], capacity: usize) -> Vec<WindowEntry> {
    let mut out: Vec<WindowEntry> = Vec::new();
    for g in games.iter().rev() {
        for p in g.positions.iter().rev() {
            if out.len() >= capacity {
                out.reverse();
                return out;
            }
            out.push(WindowEntry {
                result: g.result_for(p.side_to_move),
                finished: g.result.is_some(),
                plies_left: g.plies.saturating_sub(p.ply),
                record: p.clone(),
            });
        }
    }
    out.reverse();
    out
}

/// Encodes one entry under `sym`. The value target mixes the game's result
/// with the search's root value: `(1 − value_mix) · result + value_mix · q`.
pub fn sample(rules: &RuleSet, e: &WindowEntry, sym: Symmetry, value_mix: f32) -> Sample {
    let r = &e.record;
    let board = sym.board(&r.board);
    let mut pos = Position::from_board(rules, board, r.side_to_move)
        .unwrap_or_else(|_| Position::start(rules));
    pos.set_counters(r.ply.min(u16::MAX as u32) as u16, r.quiet_plies);
    let mut planes = vec![0.0; INPUT_LEN];
    encode(rules, &pos, r.repetitions, &mut planes);
    let mut policy = vec![0.0; POLICY_SIZE];
    let weight = if r.full_search && !r.visits.is_empty() {
        1.0
    } else {
        0.0
    };
    if weight > 0.0 {
        for ((idx, _), t) in r.visits.iter().zip(&r.target) {
            if let Some(j) = sym.policy_index(*idx) {
                policy[j as usize] = *t;
            }
        }
    }
    let result = match e.result {
        1 => [1.0, 0.0, 0.0],
        -1 => [0.0, 0.0, 1.0],
        _ => [0.0, 1.0, 0.0],
    };
    // The search's own W/D/L: its mean value and the draw share behind it
    // (an unsure search is part win, part loss, not a draw). Files from
    // before the draw share was recorded count it as 0.
    let searched = if r.visits.is_empty() {
        result
    } else {
        let q = r.root_value.clamp(-1.0, 1.0);
        let d = if r.root_draw.is_finite() {
            r.root_draw.clamp(0.0, 1.0 - q.abs())
        } else {
            0.0
        };
        [(1.0 + q - d) / 2.0, d, (1.0 - q - d) / 2.0]
    };
    let m = value_mix.clamp(0.0, 1.0);
    let wdl = [0, 1, 2].map(|k| (1.0 - m) * result[k] + m * searched[k]);
    Sample {
        planes,
        policy,
        policy_weight: weight,
        wdl,
        value_weight: if e.finished { 1.0 } else { 0.0 },
        moves_left: if e.finished {
            e.plies_left as f32 / MOVES_LEFT_SCALE
        } else {
            0.0
        },
    }
}

/// The side that won the game an entry comes from (`None`: drawn or
/// unfinished).
pub fn winner(e: &WindowEntry) -> Option<Side> {
    let me = e.record.side_to_move;
    match (e.finished, e.result) {
        (true, 1) => Some(me),
        (true, -1) => Some(me.other()),
        _ => None,
    }
}

/// Draws positions from a window, uniformly or side-balanced.
///
/// With `side_balance = b > 0`, the positions of games the attackers won and
/// of games the defenders won are drawn as groups: of the draws that land on
/// a won game, the attackers' share moves from its share in the window, `s`,
/// to `(1 − b) · s + b / 2`; within a group positions stay uniform, and
/// positions of drawn or unfinished games keep their share of the window. At
/// `b = 1` both sides' wins weigh the same however rare one of them is in
/// the data. A window in which only one side ever won is drawn uniformly.
#[derive(Clone, Debug)]
pub struct WindowSampler {
    len: usize,
    /// The share of the window's positions from games the attackers won,
    /// the defenders won, and neither.
    window_shares: [f64; 3],
    /// The probability of drawing a position of each of those groups.
    shares: [f64; 3],
    /// `None`: uniform. Otherwise (cumulative probability, indices) of each
    /// non-empty group.
    groups: Option<Vec<(f64, Vec<usize>)>>,
}

/// 0: the attackers won the entry's game, 1: the defenders, 2: neither.
fn group(e: &WindowEntry) -> usize {
    match winner(e) {
        Some(Side::Attackers) => 0,
        Some(Side::Defenders) => 1,
        None => 2,
    }
}

impl WindowSampler {
    pub fn new(window: &[WindowEntry], side_balance: f32) -> WindowSampler {
        let b = f64::from(side_balance.clamp(0.0, 1.0));
        let mut by = [Vec::new(), Vec::new(), Vec::new()];
        for (i, e) in window.iter().enumerate() {
            by[group(e)].push(i);
        }
        let n = window.len().max(1) as f64;
        let [na, nd, nr] = [0, 1, 2].map(|g| by[g].len() as f64);
        let window_shares = [na / n, nd / n, nr / n];
        if b == 0.0 || na == 0.0 || nd == 0.0 {
            return WindowSampler {
                len: window.len(),
                window_shares,
                shares: window_shares,
                groups: None,
            };
        }
        let won = (na + nd) / n;
        let attackers = (1.0 - b) * na / (na + nd) + b / 2.0;
        let shares = [won * attackers, won * (1.0 - attackers), nr / n];
        let mut acc = 0.0;
        let groups = by
            .into_iter()
            .zip(shares)
            .filter(|(ix, _)| !ix.is_empty())
            .map(|(ix, q)| {
                acc += q;
                (acc, ix)
            })
            .collect();
        WindowSampler {
            len: window.len(),
            window_shares,
            shares,
            groups: Some(groups),
        }
    }

    /// The probability of drawing a position of a game the attackers won,
    /// of one the defenders won, and of one of the rest (drawn or
    /// unfinished).
    pub fn shares(&self) -> [f64; 3] {
        self.shares
    }

    /// The same groups' shares of the window itself.
    pub fn window_shares(&self) -> [f64; 3] {
        self.window_shares
    }

    /// The index of one position.
    pub fn pick<R: Rng>(&self, rng: &mut R) -> usize {
        match &self.groups {
            // Uniform draws use the generator exactly as before side
            // balancing existed, so earlier runs resume drawing the same
            // batches.
            None => rng.random_range(0..self.len),
            Some(groups) => {
                let u: f64 = rng.random();
                let (_, ix) = groups
                    .iter()
                    .find(|(acc, _)| u < *acc)
                    .unwrap_or_else(|| groups.last().expect("a group"));
                ix[rng.random_range(0..ix.len())]
            }
        }
    }

    /// A batch drawn with replacement, each position under a random
    /// symmetry.
    pub fn draw_batch<R: Rng>(
        &self,
        rules: &RuleSet,
        window: &[WindowEntry],
        size: usize,
        value_mix: f32,
        rng: &mut R,
    ) -> Vec<Sample> {
        (0..size)
            .map(|_| {
                let e = &window[self.pick(rng)];
                sample(rules, e, Symmetry(rng.random_range(0..8)), value_mix)
            })
            .collect()
    }
}
