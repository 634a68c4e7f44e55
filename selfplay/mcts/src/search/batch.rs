//! Handing leaves to an evaluator and their evaluations back: requests, virtual loss, expansion and backup.

use crate::evaluator::{EvalRequest, Evaluation};
use rand::Rng;

use super::tree::*;

impl Search {
    /// Takes the virtual loss of one walk off its path.
    pub(crate) fn release(&mut self, path: &[(u32, u32)]) {
        for &(node, edge) in path {
            self.nodes[node as usize].in_flight -= 1;
            self.edges[edge as usize].in_flight -= 1;
        }
    }

    /// Drops every waiting leaf unevaluated, with its virtual loss.
    pub fn cancel_pending(&mut self) {
        for (leaf, path) in std::mem::take(&mut self.pending) {
            self.release(&path);
            self.nodes[leaf as usize].pending = false;
        }
        self.path.clear();
    }

    /// Leaves waiting for the evaluator.
    pub fn pending_leaves(&self) -> usize {
        self.pending.len()
    }

    /// Walks that found their leaf already waiting, over this search's life.
    pub fn collisions(&self) -> u64 {
        self.collisions
    }

    /// Virtual losses still on the tree: 0 whenever no leaf waits.
    pub fn virtual_loss_left(&self) -> u64 {
        self.nodes.iter().map(|n| n.in_flight as u64).sum::<u64>()
            + self.edges.iter().map(|e| e.in_flight as u64).sum::<u64>()
    }

    /// The first waiting leaf, as an evaluator request.
    pub fn leaf_request(&self) -> EvalRequest<'_> {
        self.request_for(self.pending.first().expect("a pending leaf").0)
    }

    /// Every waiting leaf, as evaluator requests, in the order
    /// `apply_batch` takes their evaluations.
    pub fn leaf_requests(&self) -> Vec<EvalRequest<'_>> {
        self.pending
            .iter()
            .map(|&(leaf, _)| self.request_for(leaf))
            .collect()
    }

    pub(crate) fn request_for(&self, leaf: u32) -> EvalRequest<'_> {
        let n = &self.nodes[leaf as usize];
        let first = n.first_edge as usize;
        EvalRequest {
            position: &n.pos,
            moves: &self.edge_moves[first..first + n.n_edges as usize],
            repetitions: n.repetitions,
        }
    }

    /// Hands back the evaluation of the first waiting leaf.
    pub fn apply<R: Rng>(&mut self, eval: &Evaluation, rng: &mut R) {
        self.apply_first(std::slice::from_ref(eval), rng);
    }

    /// The waiting leaves from the `skip`-th on, as owned requests that can
    /// go to another thread while the tree gathers more.
    pub fn owned_requests(&self, skip: usize) -> Vec<OwnedRequest> {
        self.pending[skip.min(self.pending.len())..]
            .iter()
            .map(|&(leaf, _)| {
                let r = self.request_for(leaf);
                OwnedRequest {
                    position: *r.position,
                    moves: r.moves.to_vec(),
                    repetitions: r.repetitions,
                }
            })
            .collect()
    }

    /// Hands back the evaluations of the first `evals.len()` waiting leaves
    /// (the oldest), leaving later ones waiting.
    pub fn apply_first<R: Rng>(&mut self, evals: &[Evaluation], rng: &mut R) {
        assert!(
            evals.len() <= self.pending.len(),
            "more evaluations than leaves"
        );
        let rest = self.pending.split_off(evals.len());
        for ((leaf, path), eval) in std::mem::replace(&mut self.pending, rest)
            .into_iter()
            .zip(evals)
        {
            self.apply_leaf(leaf, path, eval, rng);
        }
    }

    /// Hands back the evaluations of every waiting leaf, in the order of
    /// `leaf_requests`.
    pub fn apply_batch<R: Rng>(&mut self, evals: &[Evaluation], rng: &mut R) {
        assert_eq!(evals.len(), self.pending.len(), "one evaluation per leaf");
        self.apply_first(evals, rng);
    }

    pub(crate) fn apply_leaf<R: Rng>(
        &mut self,
        leaf: u32,
        path: Vec<(u32, u32)>,
        eval: &Evaluation,
        rng: &mut R,
    ) {
        self.path = path;
        self.nodes[leaf as usize].pending = false;
        let (first, n) = {
            let node = &self.nodes[leaf as usize];
            (node.first_edge as usize, node.n_edges as usize)
        };
        // Moves that hand the opponent a win on the spot get no prior,
        // unless every move does.
        let edges = &mut self.edges[first..first + n];
        let skip_losing = edges.iter().any(|e| !e.loses);
        let keep = |e: &Edge| !(skip_losing && e.loses);
        let inv_t = 1.0 / self.cfg.policy_temperature;
        // The kept moves' priors, shaped by the policy temperature once
        // each, then normalised over the kept moves.
        let mut sum = 0.0f32;
        let mut kept = 0usize;
        for (i, e) in edges.iter_mut().enumerate() {
            e.prior = if keep(e) {
                let p = eval.priors.get(i).copied().unwrap_or(0.0);
                kept += 1;
                if inv_t == 1.0 {
                    p
                } else {
                    p.powf(inv_t)
                }
            } else {
                0.0
            };
            sum += e.prior;
        }
        for e in edges.iter_mut() {
            if keep(e) {
                e.prior = if sum > 0.0 {
                    e.prior / sum
                } else {
                    1.0 / kept.max(1) as f32
                };
            }
        }
        self.nodes[leaf as usize].expanded = true;
        self.moves_left_seen |= eval.moves_left.is_some();
        self.backup(
            leaf,
            eval.value(),
            eval.wdl[1],
            eval.moves_left.unwrap_or(0.0),
        );
        if leaf == 0 {
            self.prepare_root(rng);
        }
    }

    /// Backs `value` (for the side to move at `leaf`), the draw
    /// probability and the plies left at `leaf` up the current path, and
    /// takes the path's virtual loss off.
    pub(crate) fn backup(&mut self, leaf: u32, value: f32, draw: f32, plies: f32) {
        let mut v = value;
        let mut m = plies;
        let l = &mut self.nodes[leaf as usize];
        l.visits += 1;
        l.value_sum += v;
        l.plies_sum += m;
        let path = std::mem::take(&mut self.path);
        for &(node, edge) in path.iter().rev() {
            v = -v;
            m += 1.0;
            let e = &mut self.edges[edge as usize];
            e.visits += 1;
            e.value_sum += v;
            e.draw_sum += draw;
            e.plies_sum += m;
            e.in_flight -= 1;
            let n = &mut self.nodes[node as usize];
            n.visits += 1;
            n.value_sum += v;
            n.plies_sum += m;
            n.in_flight -= 1;
        }
        self.path = path;
        self.path.clear();
        self.sims_done += 1;
    }
}
