//! The solver: proven wins and losses carried up the tree from finished games.

use super::tree::*;

impl Search {
    /// MCTS-solver: carries the exact value of `leaf`, the end of the
    /// current path, up that path as far as it proves each parent won or
    /// lost. The root is never marked: its moves keep their own proofs.
    pub(crate) fn propagate_proof(&mut self, leaf: u32) {
        let mut child = leaf;
        for k in (0..self.path.len()).rev() {
            let node = self.path[k].0;
            let c = &self.nodes[child as usize];
            if node == 0 {
                self.root_won |= c.terminal.is_some_and(|v| v < 0.0);
                break;
            }
            let Some(cv) = c.terminal else { break };
            let proof = if cv < 0.0 {
                // A move into a position lost for the opponent wins.
                Some((1.0, c.terminal_plies.saturating_add(1)))
            } else if cv > 0.0 {
                // Lost only if every move is: the longest loss is the value.
                self.every_move_loses(node)
                    .map(|longest| (-1.0, longest.saturating_add(1)))
            } else {
                None
            };
            let Some((v, plies)) = proof else { break };
            let n = &mut self.nodes[node as usize];
            n.terminal = Some(v);
            n.terminal_plies = plies;
            child = node;
        }
    }

    /// When every move at `node` leads into a position proven won for the
    /// opponent (or hands over a win on the spot), the most plies any of
    /// those wins takes; `None` while a move is open.
    pub(crate) fn every_move_loses(&self, node: u32) -> Option<u8> {
        let mut longest = 0u8;
        for e in self.edges_of(node) {
            let plies = if e.loses {
                1
            } else if e.child == NONE {
                return None;
            } else {
                let c = &self.nodes[e.child as usize];
                match c.terminal {
                    Some(v) if v > 0.0 => c.terminal_plies,
                    _ => return None,
                }
            };
            longest = longest.max(plies);
        }
        Some(longest)
    }

    /// Whether a root move leads into a position proven lost for the opponent.
    pub(crate) fn root_has_proven_win(&self) -> bool {
        self.edges_of(0)
            .iter()
            .any(|e| self.proven_q(e).is_some_and(|q| q > 0.0))
    }

    /// The edges (moves) of `node`.
    pub(crate) fn edges_of(&self, node: u32) -> &[Edge] {
        let n = &self.nodes[node as usize];
        &self.edges[n.first_edge as usize..(n.first_edge + n.n_edges) as usize]
    }

    /// With the solver: the exact value of moving along `e` for the side
    /// moving at its parent, when the position it leads to is decided.
    pub(crate) fn proven_q(&self, e: &Edge) -> Option<f32> {
        if !self.cfg.solver {
            return None;
        }
        if e.loses {
            return Some(-1.0);
        }
        (e.child != NONE)
            .then(|| self.nodes[e.child as usize].terminal)
            .flatten()
            .map(|v| -v)
    }
}
