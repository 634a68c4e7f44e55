//! Search limits: depth, nodes and wall-clock milliseconds.

use std::time::{Duration, Instant};

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub millis: Option<u64>,
}

impl Limits {
    /// The threads a search within these limits uses when not told: every
    /// core for a timed search, else one, so that a depth or node limit
    /// gives the same search every time.
    pub fn default_threads(&self) -> usize {
        match self.millis {
            Some(_) => std::thread::available_parallelism().map_or(1, |n| n.get()),
            None => 1,
        }
    }
}

/// The share of the time limit after which no new iteration starts. An
/// unfinished iteration still yields any root move it proves better, so
/// the search may start one until the deadline: it then spends the time it
/// is given (docs/arena.md).
pub const ITERATION_START_SHARE: f64 = 1.0;

/// The share of a time limit the search leaves unused, so that the move,
/// with the clock checked only every few thousand nodes, still ends within
/// the limit (at 100 ms a move it overran by up to 1.2 ms without it).
pub const DEADLINE_MARGIN: f64 = 0.02;

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
            deadline: limits
                .millis
                .map(|ms| start + Duration::from_millis(ms).mul_f64(1.0 - DEADLINE_MARGIN)),
            node_limit: limits.nodes,
        }
    }

    /// Checked every few thousand nodes.
    pub fn expired(&self, nodes: u64) -> bool {
        self.node_limit.is_some_and(|n| nodes >= n)
            || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Whether another iteration is worth starting. One usually costs
    /// about three times the last (with the reductions), but an unfinished
    /// iteration still yields any root move it proved better, so start one
    /// until `ITERATION_START_SHARE` of the time is spent.
    pub fn next_iteration_fits(&self) -> bool {
        match self.deadline {
            None => true,
            Some(d) => {
                let total = d - self.start;
                self.start.elapsed() < total.mul_f64(ITERATION_START_SHARE)
            }
        }
    }

    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }
}
