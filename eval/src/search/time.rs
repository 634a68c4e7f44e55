//! Search limits: depth, nodes and wall-clock milliseconds.

use std::time::{Duration, Instant};

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub millis: Option<u64>,
}

/// Decides when a search must stop.
pub struct Clock {
    start: Instant,
    deadline: Option<Instant>,
    node_limit: Option<u64>,
}

impl Clock {
    pub fn new(limits: &Limits) -> Clock {
        let start = Instant::now();
        Clock {
            start,
            deadline: limits.millis.map(|ms| start + Duration::from_millis(ms)),
            node_limit: limits.nodes,
        }
    }

    /// Checked every few thousand nodes.
    pub fn expired(&self, nodes: u64) -> bool {
        self.node_limit.is_some_and(|n| nodes >= n)
            || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Whether another iteration is worth starting: one usually costs
    /// several times the last, so stop past half the time.
    pub fn next_iteration_fits(&self) -> bool {
        match self.deadline {
            None => true,
            Some(d) => {
                let total = d - self.start;
                self.start.elapsed() < total / 2
            }
        }
    }

    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }
}
