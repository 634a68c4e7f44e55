//! Walking the tree: PUCT selection with first-play urgency, and the walks to one leaf (`advance`) or to several with virtual loss (`gather`).

use super::tree::*;
use std::time::Instant;

/// Walks between two looks at the clock while gathering.
const DEADLINE_CHECK_WALKS: u32 = 32;

impl Search {
    /// PUCT choice among a node's edges.
    pub(crate) fn select_edge(&self, node: u32) -> u32 {
        let n = &self.nodes[node as usize];
        let parent_q = if n.visits > 0 {
            n.value_sum / n.visits as f32
        } else {
            0.0
        };
        let fpu = parent_q - self.cfg.fpu_reduction;
        let sqrt_n = ((n.visits + n.in_flight).max(1) as f32).sqrt();
        // Moves-left utility: relative to the node's own expected length,
        // shorter lines score more for a side that is winning, longer ones
        // for a side that is losing, scaled by how sure the value is.
        let cap = self.cfg.moves_left_effect;
        let moves_left = (cap > 0.0 && self.moves_left_seen && n.visits > 0)
            .then(|| n.plies_sum / n.visits as f32);
        // Walks in flight count as visits that lost (virtual loss).
        let mean = |e: &Edge| {
            let visits = e.visits + e.in_flight;
            (visits > 0)
                .then(|| (e.value_sum - self.cfg.virtual_loss * e.in_flight as f32) / visits as f32)
        };
        let stretch = self.q_stretch(node, &mean);
        let mut best = (f32::NEG_INFINITY, 0u32);
        for i in 0..n.n_edges {
            let e = &self.edges[(n.first_edge + i) as usize];
            let visits = e.visits + e.in_flight;
            let q = stretch(mean(e).unwrap_or(fpu));
            let u = self.cfg.c_puct * e.prior * sqrt_n / (1.0 + visits as f32);
            let mut s = q + u;
            if let Some(exact) = self.proven_q(e) {
                // A proven loss is walked into only when every move is one.
                s = if exact < 0.0 { f32::MIN } else { exact + u };
            }
            if let Some(parent_m) = moves_left.filter(|_| e.visits > 0) {
                let longer = e.plies_sum / e.visits as f32 - parent_m;
                s -= parent_q * (self.cfg.moves_left_slope * longer).clamp(-cap, cap);
            }
            if s > best.0 {
                best = (s, i);
            }
        }
        best.1
    }

    /// The map that `q_normalize` applies to a node's move values: the
    /// visited moves' range (at least `q_normalize` wide) onto −1..1, or
    /// the identity when it is off.
    fn q_stretch(&self, node: u32, mean: &dyn Fn(&Edge) -> Option<f32>) -> impl Fn(f32) -> f32 {
        let floor = self.cfg.q_normalize;
        let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
        if floor > 0.0 {
            let n = &self.nodes[node as usize];
            for e in &self.edges[n.first_edge as usize..(n.first_edge + n.n_edges) as usize] {
                if let Some(q) = mean(e).filter(|_| self.proven_q(e).is_none()) {
                    lo = lo.min(q);
                    hi = hi.max(q);
                }
            }
        }
        let on = floor > 0.0 && lo <= hi;
        let mid = if on { (lo + hi) / 2.0 } else { 0.0 };
        let scale = if on { 2.0 / (hi - lo).max(floor) } else { 1.0 };
        move |q: f32| {
            if on {
                ((q - mid) * scale).clamp(-1.0, 1.0)
            } else {
                q
            }
        }
    }

    /// Walks to the next leaf needing evaluation, backing up finished games
    /// on the way; stops when the budget is spent.
    pub fn advance(&mut self) -> Advance {
        if self.gather(1) > 0 {
            Advance::NeedsEval
        } else {
            Advance::Done
        }
    }

    /// Walks to up to `max_leaves` leaves needing evaluation (counting
    /// those already waiting) and returns how many wait. Finished games met
    /// on the way are backed up at once. Gathering stops early when the
    /// budget is spent, the deadline has passed (looked at every few
    /// walks), or a walk ends on a leaf that already waits (the tree offers
    /// no other leaf worth a virtual loss). 0 means done.
    pub fn gather(&mut self, max_leaves: usize) -> usize {
        let max_leaves = max_leaves.max(1);
        let mut guard = 0;
        while self.pending.len() < max_leaves
            && (self.sims_done as usize + self.pending.len()) < self.target as usize
            && !self.root_won
        {
            guard += 1;
            if guard > 100_000 {
                // Only finished games below: nothing left to learn.
                break;
            }
            if guard % DEADLINE_CHECK_WALKS == 0
                && self.deadline.is_some_and(|d| Instant::now() >= d)
            {
                break;
            }
            self.path.clear();
            let mut node = 0u32;
            loop {
                let n = &self.nodes[node as usize];
                if let Some(v) = n.terminal {
                    let draw = if v == 0.0 { 1.0 } else { 0.0 };
                    let plies = n.terminal_plies as f32;
                    if self.cfg.solver {
                        self.propagate_proof(node);
                    }
                    self.backup(node, v, draw, plies);
                    break;
                }
                if !n.expanded {
                    let path = std::mem::take(&mut self.path);
                    if n.pending {
                        // Collision: take the walk's virtual loss back.
                        self.collisions += 1;
                        self.release(&path);
                        return self.pending.len();
                    }
                    self.nodes[node as usize].pending = true;
                    self.pending.push((node, path));
                    break;
                }
                let i = if node == 0 && self.gumbel.is_some() {
                    self.gumbel_next()
                } else {
                    self.select_edge(node)
                };
                let ei = self.nodes[node as usize].first_edge + i;
                self.path.push((node, ei));
                self.nodes[node as usize].in_flight += 1;
                self.edges[ei as usize].in_flight += 1;
                let child = self.edges[ei as usize].child;
                node = if child == NONE {
                    let mv = self.edges[ei as usize].mv;
                    let pos = self.nodes[node as usize].pos.play(&self.rules, mv).0;
                    let c = self.new_node(pos);
                    self.edges[ei as usize].child = c;
                    c
                } else {
                    child
                };
            }
        }
        self.pending.len()
    }
}
