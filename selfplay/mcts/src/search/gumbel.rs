//! Gumbel root selection with sequential halving (Danihelka et al. 2022): the completed-Q transform and which candidate the next simulation visits.

use super::tree::*;

impl Search {
    /// σ(q̂) of the Gumbel paper: q mapped to [0, 1], scaled by visits.
    pub(crate) fn sigma(&self, q: f32) -> f32 {
        let (first, n) = (
            self.nodes[0].first_edge as usize,
            self.nodes[0].n_edges as usize,
        );
        let max_n = self.edges[first..first + n]
            .iter()
            .map(|e| e.visits)
            .max()
            .unwrap_or(0) as f32;
        (self.cfg.gumbel_c_visit + max_n) * self.cfg.gumbel_c_scale * (q + 1.0) / 2.0
    }

    pub(crate) fn edge_q(&self, e: &Edge, fallback: f32) -> f32 {
        if e.visits > 0 {
            e.value_sum / e.visits as f32
        } else {
            fallback
        }
    }

    pub(crate) fn root_value(&self) -> f32 {
        let r = &self.nodes[0];
        if r.visits > 0 {
            r.value_sum / r.visits as f32
        } else {
            0.0
        }
    }

    /// The root edge the Gumbel schedule visits next.
    pub(crate) fn gumbel_next(&mut self) -> u32 {
        let first = self.nodes[0].first_edge as usize;
        let budget = self.target;
        let root_v = self.root_value();
        let mut g = self.gumbel.take().expect("gumbel state");
        if g.queue.is_empty() {
            if g.remaining.len() > 1 && self.edges[first + g.remaining[0] as usize].visits > 0 {
                let keyed: Vec<(f32, u32)> = g
                    .remaining
                    .iter()
                    .map(|&a| {
                        let q = self.edge_q(&self.edges[first + a as usize], root_v);
                        (g.score[a as usize] + self.sigma(q), a)
                    })
                    .collect();
                let mut keyed = keyed;
                keyed.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
                let keep = g.remaining.len().div_ceil(2);
                g.remaining = keyed[..keep].iter().map(|k| k.1).collect();
            }
            let per = (budget / (g.rounds * g.remaining.len() as u32)).max(1);
            for _ in 0..per {
                g.queue.extend(g.remaining.iter().copied());
            }
        }
        let a = g.queue.pop_front().expect("refilled");
        self.gumbel = Some(g);
        a
    }
}
