//! Starting a search at the root: its simulation budget, Dirichlet noise, and the Gumbel candidates.

use brandubh_rules::Position;
use rand::Rng;
use rand_distr::{Distribution, Gamma};
use std::collections::VecDeque;
use std::time::Instant;

use super::tree::*;

impl Search {
    /// Starts a search of `simulations` (counting the root's own evaluation
    /// if it has none yet), with root noise if `noise`.
    pub fn start<R: Rng>(&mut self, simulations: u32, noise: bool, rng: &mut R) {
        self.deadline = None;
        self.sims_done = 0;
        self.target = simulations.max(1);
        self.root_won = self.cfg.solver && self.root_has_proven_win();
        self.noise = noise;
        self.gumbel = None;
        self.cancel_pending();
        if self.nodes[0].expanded {
            self.prepare_root(rng);
        }
    }

    /// A time after which gathering stops (checked every few walks), for
    /// timed searches: walks that end on finished games need no evaluation,
    /// so without it a tree full of them could hold a search long past its
    /// budget. `start` clears it; set it after.
    pub fn set_deadline(&mut self, at: Option<Instant>) {
        self.deadline = at;
    }

    pub fn root_position(&self) -> &Position {
        &self.nodes[0].pos
    }

    /// Noise and the Gumbel schedule, once the root has priors.
    pub(crate) fn prepare_root<R: Rng>(&mut self, rng: &mut R) {
        let (first, n) = (
            self.nodes[0].first_edge as usize,
            self.nodes[0].n_edges as usize,
        );
        if n == 0 {
            return;
        }
        self.root_priors = self.edges[first..first + n]
            .iter()
            .map(|e| e.prior)
            .collect();
        if let Some(w) = self.root_win {
            // Nothing to explore: all the prior on the win, no noise.
            for e in self.edges[first..first + n].iter_mut() {
                e.prior = if e.mv == w { 1.0 } else { 0.0 };
            }
        } else if self.noise && n > 1 && self.cfg.dirichlet_epsilon > 0.0 {
            let gamma =
                Gamma::new(self.cfg.dirichlet_alpha.max(1e-3) as f64, 1.0).expect("valid gamma");
            let draws: Vec<f64> = (0..n).map(|_| gamma.sample(rng)).collect();
            let sum: f64 = draws.iter().sum::<f64>().max(1e-12);
            let eps = self.cfg.dirichlet_epsilon;
            for (e, d) in self.edges[first..first + n].iter_mut().zip(draws) {
                e.prior = (1.0 - eps) * e.prior + eps * (d / sum) as f32;
            }
        }
        if self.cfg.gumbel {
            let score: Vec<f32> = self.edges[first..first + n]
                .iter()
                .map(|e| {
                    let g = if self.noise {
                        let u: f32 = rng.random_range(1e-6..1.0);
                        -(-u.ln()).ln()
                    } else {
                        0.0
                    };
                    g + (e.prior + 1e-8).ln()
                })
                .collect();
            let m = (self.cfg.gumbel_considered.max(1) as usize).min(n);
            let mut order: Vec<u32> = (0..n as u32).collect();
            order.sort_by(|&a, &b| {
                score[b as usize]
                    .total_cmp(&score[a as usize])
                    .then(a.cmp(&b))
            });
            order.truncate(m);
            let rounds = (m as f32).log2().ceil().max(1.0) as u32;
            self.gumbel = Some(GumbelRoot {
                score,
                remaining: order,
                queue: VecDeque::new(),
                rounds,
            });
        }
    }
}
