//! After the search: the move played (by visits and temperature) and moving the root down the tree, keeping the subtree.

use brandubh_rules::{Game, Move};
use rand::Rng;
use std::collections::VecDeque;

use super::tree::*;

impl Search {
    /// The root's statistics and the move to play. `temperature` > 0
    /// samples visits^(1/T) (PUCT); Gumbel plays the halving's winner.
    pub fn choose<R: Rng>(&self, temperature: f32, rng: &mut R) -> (Move, RootStats) {
        let root = &self.nodes[0];
        let (first, n) = (root.first_edge as usize, root.n_edges as usize);
        let edges = &self.edges[first..first + n];
        let visits: Vec<(Move, u32)> = edges.iter().map(|e| (e.mv, e.visits)).collect();
        let total: u32 = visits.iter().map(|v| v.1).sum();
        let root_v = self.root_value();
        let (mv, target) = if let Some(g) = &self.gumbel {
            let logits: Vec<f32> = edges
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    let prior = self.root_priors.get(i).copied().unwrap_or(e.prior);
                    (prior + 1e-8).ln() + self.sigma(self.edge_q(e, root_v))
                })
                .collect();
            let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let exps: Vec<f32> = logits.iter().map(|l| (l - max).exp()).collect();
            let z: f32 = exps.iter().sum();
            let target: Vec<f32> = exps.iter().map(|e| e / z).collect();
            let best = g
                .remaining
                .iter()
                .copied()
                .max_by(|&a, &b| {
                    let sa =
                        g.score[a as usize] + self.sigma(self.edge_q(&edges[a as usize], root_v));
                    let sb =
                        g.score[b as usize] + self.sigma(self.edge_q(&edges[b as usize], root_v));
                    sa.total_cmp(&sb).then(b.cmp(&a))
                })
                .unwrap_or(0);
            (edges[best as usize].mv, target)
        } else {
            let target: Vec<f32> = visits
                .iter()
                .map(|v| v.1 as f32 / total.max(1) as f32)
                .collect();
            let pick = if temperature > 0.0 && total > 0 {
                let w: Vec<f64> = visits
                    .iter()
                    .map(|v| (v.1 as f64).powf(1.0 / temperature as f64))
                    .collect();
                let sum: f64 = w.iter().sum();
                let mut x = rng.random_range(0.0..sum);
                let mut k = 0;
                for (i, wi) in w.iter().enumerate() {
                    k = i;
                    if x < *wi {
                        break;
                    }
                    x -= wi;
                }
                k
            } else {
                // With the solver, proven wins first and proven losses last.
                let class = |e: &Edge| match self.proven_q(e) {
                    Some(q) if q > 0.0 => 2,
                    Some(q) if q < 0.0 => 0,
                    _ => 1,
                };
                (0..n)
                    .max_by(|&a, &b| {
                        class(&edges[a])
                            .cmp(&class(&edges[b]))
                            .then(edges[a].visits.cmp(&edges[b].visits))
                            .then(
                                self.edge_q(&edges[a], -2.0)
                                    .total_cmp(&self.edge_q(&edges[b], -2.0)),
                            )
                            .then(b.cmp(&a))
                    })
                    .unwrap_or(0)
            };
            (edges[pick].mv, target)
        };
        let (mv, target) = match self.root_win {
            Some(w) => (
                w,
                edges
                    .iter()
                    .map(|e| if e.mv == w { 1.0 } else { 0.0 })
                    .collect(),
            ),
            None => (mv, target),
        };
        (
            mv,
            RootStats {
                visits,
                target,
                value: root_v,
                draw: {
                    let d: f32 = edges.iter().map(|e| e.draw_sum).sum();
                    (d / total.max(1) as f32).clamp(0.0, 1.0)
                },
            },
        )
    }

    /// Moves the root to the child reached by `mv`, keeping its subtree
    /// when the config says so.
    pub fn advance_root(&mut self, mv: Move, game_after: &Game) {
        self.advance_root_within(mv, game_after, usize::MAX);
    }

    /// `advance_root`, keeping at most `max_edges` edges of the subtree,
    /// nearest the new root first: keeping copies the subtree edge by
    /// edge, and a tree kept over many moves grows large. A node left out
    /// is searched afresh; the edge to it keeps its statistics.
    pub fn advance_root_within(&mut self, mv: Move, game_after: &Game, max_edges: usize) {
        let root = &self.nodes[0];
        let child = (root.first_edge..root.first_edge + root.n_edges)
            .map(|i| &self.edges[i as usize])
            .find(|e| e.mv == mv)
            .map(|e| e.child)
            .unwrap_or(NONE);
        self.cancel_pending();
        self.history = game_after.history().to_vec();
        self.gumbel = None;
        // A kept child has no win on the spot (it would be a finished node).
        self.root_win = None;
        // A node the solver proved still has its moves (a finished game has
        // none): its subtree is kept, and as the root it is searched again.
        let finished = child != NONE && {
            let c = &self.nodes[child as usize];
            c.terminal.is_some() && c.n_edges == 0
        };
        if !self.cfg.reuse_tree || child == NONE || finished {
            self.nodes.clear();
            self.edges.clear();
            self.edge_moves.clear();
            self.new_node(*game_after.position());
            return;
        }
        // Copy the subtree breadth-first into fresh arrays.
        let (old_nodes, old_edges) = (
            std::mem::take(&mut self.nodes),
            std::mem::take(&mut self.edges),
        );
        self.edge_moves.clear();
        let mut queue = VecDeque::from([(child, 0u32)]);
        self.nodes.push(old_nodes[child as usize].clone());
        // Edges copied or promised to the nodes queued.
        let mut reserved = old_nodes[child as usize].n_edges as usize;
        while let Some((old, new)) = queue.pop_front() {
            let on = &old_nodes[old as usize];
            let first = self.edges.len() as u32;
            for i in 0..on.n_edges {
                let mut e = old_edges[(on.first_edge + i) as usize].clone();
                if e.child != NONE {
                    let n = old_nodes[e.child as usize].n_edges as usize;
                    if reserved.saturating_add(n) <= max_edges {
                        reserved += n;
                        let c = self.nodes.len() as u32;
                        self.nodes.push(old_nodes[e.child as usize].clone());
                        queue.push_back((e.child, c));
                        e.child = c;
                    } else {
                        e.child = NONE;
                    }
                }
                self.edge_moves.push(e.mv);
                self.edges.push(e);
            }
            self.nodes[new as usize].first_edge = first;
        }
        self.nodes[0].repetitions = game_after.position().repetitions(&self.history).min(255) as u8;
        self.nodes[0].terminal = None;
        self.nodes[0].terminal_plies = 0;
    }
}
