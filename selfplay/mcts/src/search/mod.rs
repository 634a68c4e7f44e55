//! Monte Carlo tree search for one game: PUCT selection with priors from
//! an evaluator, first-play urgency, Dirichlet noise at the root, exact
//! values at finished games (the game's history is carried down every path,
//! so repetition is judged exactly), tree reuse after each move, and
//! optionally Gumbel root selection with sequential halving (Danihelka et
//! al. 2022; PUCT below the root).
//!
//! The search is driven from outside: `advance` walks to the next leaf
//! that needs the evaluator and stops, `apply` hands the evaluation back.
//! That lets a driver gather the leaves of many games into one batch.
//!
//! One game can also keep the evaluator busy on its own: `gather` walks to
//! several leaves before any is evaluated, and `apply_batch` hands their
//! evaluations back together. Each walk puts a *virtual loss* on the edges
//! it takes (counted apart from the real visits, as `in_flight`), so the
//! next walk sees those moves as visited and lost and tends to go
//! elsewhere; applying the evaluation removes it exactly. Virtual loss
//! (rather than, say, lc0's collision counting alone) keeps the batch
//! spread over distinct leaves with no extra bookkeeping, and with one
//! leaf in flight the search is the plain one-leaf search.

mod batch;
mod choose;
mod gumbel;
mod report;
mod root;
mod select;
mod solver;
mod tree;

pub use tree::{Advance, MoveAnalysis, OwnedRequest, RootStats, Search};
