//! What the search found, for `analyze` and the tests: root moves with visits and Q, proofs, tree size.

use brandubh_rules::Move;

use super::tree::*;

impl Search {
    /// Every root move, most visited first (ties: higher prior first).
    pub fn analysis(&self) -> Vec<MoveAnalysis> {
        let root = &self.nodes[0];
        let (first, n) = (root.first_edge as usize, root.n_edges as usize);
        let mut out: Vec<MoveAnalysis> = self.edges[first..first + n]
            .iter()
            .map(|e| {
                let (q, wdl) = if e.visits > 0 {
                    let q = e.value_sum / e.visits as f32;
                    let d = (e.draw_sum / e.visits as f32).clamp(0.0, 1.0);
                    let w = ((1.0 + q - d) / 2.0).clamp(0.0, 1.0);
                    let l = ((1.0 - q - d) / 2.0).clamp(0.0, 1.0);
                    (Some(q), Some([w, d, l]))
                } else {
                    (None, None)
                };
                let mut pv = vec![e.mv];
                let mut node = e.child;
                while node != NONE && pv.len() < 64 {
                    let best = self
                        .edges_of(node)
                        .iter()
                        .filter(|c| c.visits > 0)
                        .max_by_key(|c| c.visits);
                    match best {
                        Some(c) => {
                            pv.push(c.mv);
                            node = c.child;
                        }
                        None => break,
                    }
                }
                MoveAnalysis {
                    mv: e.mv,
                    visits: e.visits,
                    prior: e.prior,
                    q,
                    wdl,
                    plies_left: (self.moves_left_seen && e.visits > 0)
                        .then(|| e.plies_sum / e.visits as f32),
                    pv,
                }
            })
            .collect();
        out.sort_by(|a, b| b.visits.cmp(&a.visits).then(b.prior.total_cmp(&a.prior)));
        out
    }

    /// Every position below the root that the solver proved, as the moves
    /// that lead to it from the root, its value for the side to move there
    /// (1 won, −1 lost) and the plies within which the game ends. Finished
    /// games and the win/loss-in-one shortcuts are not listed.
    pub fn proofs(&self) -> Vec<(Vec<Move>, f32, u8)> {
        let mut out = Vec::new();
        let mut stack = vec![(0u32, Vec::new())];
        while let Some((node, line)) = stack.pop() {
            let n = &self.nodes[node as usize];
            if let Some(v) = n.terminal.filter(|_| node != 0 && n.n_edges > 0) {
                out.push((line.clone(), v, n.terminal_plies));
            }
            for e in self.edges_of(node) {
                if e.child != NONE {
                    let mut l = line.clone();
                    l.push(e.mv);
                    stack.push((e.child, l));
                }
            }
        }
        out
    }

    /// Nodes in the tree (for tests and statistics).
    pub fn tree_size(&self) -> usize {
        self.nodes.len()
    }

    /// Edges in the tree: the moves of every expanded node, the bulk of
    /// its memory.
    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }

    /// Simulations done in this search.
    pub fn simulations(&self) -> u32 {
        self.sims_done
    }
}
