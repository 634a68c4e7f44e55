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

use crate::config::MctsConfig;
use crate::evaluator::{EvalRequest, Evaluation};
use brandubh_rules::{Game, GameResult, Move, MoveList, Position, RuleSet};
use rand::Rng;
use rand_distr::{Distribution, Gamma};
use std::collections::VecDeque;
use std::sync::Arc;

const NONE: u32 = u32::MAX;

#[derive(Clone, Debug)]
struct Edge {
    mv: Move,
    prior: f32,
    child: u32,
    visits: u32,
    /// Sum of values from the point of view of the side moving at the parent.
    value_sum: f32,
    /// The move hands the opponent a win on the spot (`win_in_one` only).
    loses: bool,
    /// Sum of draw probabilities backed up through this edge.
    draw_sum: f32,
    /// Sum of the plies to the end, counted from the parent, backed up
    /// through this edge.
    plies_sum: f32,
    /// Walks through this edge waiting for an evaluation (virtual losses).
    in_flight: u32,
}

#[derive(Clone, Debug)]
struct Node {
    pos: Position,
    first_edge: u32,
    n_edges: u32,
    visits: u32,
    /// Sum of values from the point of view of the side to move here.
    value_sum: f32,
    /// Sum of the plies to the end backed up through this node.
    plies_sum: f32,
    /// Exact value for the side to move, when the game is over here.
    terminal: Option<f32>,
    /// With `terminal`: the plies until the game is over (0 when it is).
    terminal_plies: u8,
    expanded: bool,
    /// Earlier occurrences of this position on its path (for the net's input).
    repetitions: u8,
    /// Walks through this node waiting for an evaluation.
    in_flight: u32,
    /// This leaf is waiting for the evaluator.
    pending: bool,
}

/// What `advance` stopped for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Advance {
    /// A leaf waits for the evaluator: see `leaf_request`, then `apply`.
    NeedsEval,
    /// The simulation budget is spent: choose a move.
    Done,
}

/// Root statistics of a finished search.
#[derive(Clone, Debug, PartialEq)]
pub struct RootStats {
    /// (move, visits) of every legal move at the root.
    pub visits: Vec<(Move, u32)>,
    /// The policy target: normalised visits (PUCT) or the improved policy (Gumbel).
    pub target: Vec<f32>,
    /// Mean value for the side to move, in [-1, 1].
    pub value: f32,
    /// Mean draw probability behind that value, in [0, 1] (the backed-up
    /// draw share of the root moves' visits; 0 before any).
    pub draw: f32,
}

/// One root move as the search sees it, for `analyze`.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveAnalysis {
    pub mv: Move,
    pub visits: u32,
    /// The evaluator's prior (after the win/loss-in-one rules, no noise).
    pub prior: f32,
    /// Mean value for the side to move at the root, −1..1; `None` unvisited.
    pub q: Option<f32>,
    /// Win, draw, loss for the side to move at the root; `None` unvisited.
    pub wdl: Option<[f32; 3]>,
    /// Mean plies to the game's end after this move, from nets with a
    /// moves-left output; `None` unvisited or without one.
    pub plies_left: Option<f32>,
    /// The principal variation: this move, then the most visited replies.
    pub pv: Vec<Move>,
}

/// A leaf's request with its own copies of the position and moves.
#[derive(Clone, Debug)]
pub struct OwnedRequest {
    pub position: Position,
    pub moves: Vec<Move>,
    pub repetitions: u8,
}

impl OwnedRequest {
    pub fn as_request(&self) -> EvalRequest<'_> {
        EvalRequest {
            position: &self.position,
            moves: &self.moves,
            repetitions: self.repetitions,
        }
    }
}

struct GumbelRoot {
    /// Gumbel sample + log prior, per root edge.
    score: Vec<f32>,
    remaining: Vec<u32>,
    queue: VecDeque<u32>,
    rounds: u32,
}

pub struct Search {
    rules: Arc<RuleSet>,
    cfg: MctsConfig,
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    /// The move of each edge, kept contiguous so a node's moves are a slice.
    edge_moves: Vec<Move>,
    /// Hashes of the game's positions before the root.
    history: Vec<u64>,
    /// Scratch buffer: history plus the current path, for `new_node`.
    scratch: Vec<u64>,
    /// (node, edge) steps from the root to the node the walk is at.
    path: Vec<(u32, u32)>,
    /// Leaves waiting for the evaluator, each with its path from the root.
    pending: Vec<(u32, Vec<(u32, u32)>)>,
    /// Walks that ended on a leaf already waiting (batched search only).
    collisions: u64,
    sims_done: u32,
    target: u32,
    noise: bool,
    gumbel: Option<GumbelRoot>,
    moves: MoveList,
    /// A move that wins on the spot from the root, when `win_in_one` is on.
    root_win: Option<Move>,
    /// The root's priors before any noise: Gumbel's policy target improves
    /// on the net's own policy, not on the noised one.
    root_priors: Vec<f32>,
    /// The evaluator gives the plies left (the moves-left utility can work).
    moves_left_seen: bool,
    /// The solver proved a root move wins: searching on changes nothing.
    root_won: bool,
}

fn outcome_value(result: GameResult, pos: &Position) -> f32 {
    match result {
        GameResult::Draw => 0.0,
        r if r == GameResult::win_for(pos.side_to_move()) => 1.0,
        _ => -1.0,
    }
}

impl Search {
    /// A search rooted at the game's current position (not over).
    pub fn new(rules: Arc<RuleSet>, cfg: MctsConfig, game: &Game) -> Search {
        let mut s = Search {
            rules,
            cfg,
            nodes: Vec::new(),
            edges: Vec::new(),
            edge_moves: Vec::new(),
            history: game.history().to_vec(),
            scratch: Vec::new(),
            path: Vec::new(),
            pending: Vec::new(),
            collisions: 0,
            sims_done: 0,
            target: 0,
            noise: false,
            gumbel: None,
            moves: MoveList::new(),
            root_win: None,
            root_priors: Vec::new(),
            moves_left_seen: false,
            root_won: false,
        };
        let root = s.new_node(*game.position());
        debug_assert_eq!(root, 0);
        s
    }

    /// Creates a node for `pos`, reached by the current path; finds out
    /// whether the game is over there and lists its moves.
    fn new_node(&mut self, pos: Position) -> u32 {
        // The game's hashes, then the path's: reuse one buffer, since this
        // runs at every expansion.
        let mut hist = std::mem::take(&mut self.scratch);
        hist.clear();
        hist.extend_from_slice(&self.history);
        hist.extend(
            self.path
                .iter()
                .map(|&(n, _)| self.nodes[n as usize].pos.hash()),
        );
        let is_root = self.nodes.is_empty();
        let mut terminal = if is_root {
            None
        } else {
            pos.after_move_outcome(&self.rules, &hist)
                .map(|o| outcome_value(o.result, &pos))
        };
        let win = if terminal.is_none() && self.cfg.win_in_one {
            pos.winning_move(&self.rules)
        } else {
            None
        };
        let mut terminal_plies = 0;
        if is_root {
            self.root_win = win;
        } else if win.is_some() {
            // Won for the side to move: an exact value, no evaluation needed.
            terminal = Some(1.0);
            terminal_plies = 1;
        } else if terminal.is_none()
            && self.cfg.win_in_one
            && self.cfg.escape_forks
            && pos.escape_fork(&self.rules, &hist).is_some()
        {
            // The king forks two escapes: won three plies on.
            terminal = Some(1.0);
            terminal_plies = 3;
        }
        let first_edge = self.edges.len() as u32;
        let mut n_edges = 0;
        if terminal.is_none() {
            pos.legal_moves(&self.rules, &mut self.moves);
            if self.moves.is_empty() {
                terminal = Some(outcome_value(
                    pos.no_moves_outcome(&self.rules).result,
                    &pos,
                ));
            }
            // When the opponent threatens a win on the spot, find the moves
            // that leave it open (a move that ends the game some other way
            // is left to the search).
            let threat = self.cfg.win_in_one
                && self.cfg.loss_in_one
                && win.is_none()
                && pos.null_move().winning_move(&self.rules).is_some();
            hist.push(pos.hash());
            let mut losing = 0;
            for &mv in self.moves.iter() {
                let loses = threat && {
                    let child = pos.play(&self.rules, mv).0;
                    child.after_move_outcome(&self.rules, &hist).is_none()
                        && child.winning_move(&self.rules).is_some()
                };
                losing += loses as usize;
                self.edge_moves.push(mv);
                self.edges.push(Edge {
                    mv,
                    prior: 0.0,
                    child: NONE,
                    visits: 0,
                    value_sum: 0.0,
                    loses,
                    draw_sum: 0.0,
                    plies_sum: 0.0,
                    in_flight: 0,
                });
            }
            hist.pop();
            n_edges = self.moves.len() as u32;
            if !is_root && n_edges > 0 && losing == n_edges as usize {
                // Every move loses next turn: lost for the side to move.
                terminal = Some(-1.0);
                terminal_plies = 2;
                self.edges.truncate(first_edge as usize);
                self.edge_moves.truncate(first_edge as usize);
                n_edges = 0;
            }
        }
        self.nodes.push(Node {
            pos,
            first_edge,
            n_edges,
            visits: 0,
            value_sum: 0.0,
            plies_sum: 0.0,
            terminal,
            terminal_plies,
            expanded: false,
            repetitions: pos.repetitions(&hist).min(255) as u8,
            in_flight: 0,
            pending: false,
        });
        self.scratch = hist;
        (self.nodes.len() - 1) as u32
    }

    /// Starts a search of `simulations` (counting the root's own evaluation
    /// if it has none yet), with root noise if `noise`.
    pub fn start<R: Rng>(&mut self, simulations: u32, noise: bool, rng: &mut R) {
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

    pub fn root_position(&self) -> &Position {
        &self.nodes[0].pos
    }

    /// Noise and the Gumbel schedule, once the root has priors.
    fn prepare_root<R: Rng>(&mut self, rng: &mut R) {
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

    /// σ(q̂) of the Gumbel paper: q mapped to [0, 1], scaled by visits.
    fn sigma(&self, q: f32) -> f32 {
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

    fn edge_q(&self, e: &Edge, fallback: f32) -> f32 {
        if e.visits > 0 {
            e.value_sum / e.visits as f32
        } else {
            fallback
        }
    }

    fn root_value(&self) -> f32 {
        let r = &self.nodes[0];
        if r.visits > 0 {
            r.value_sum / r.visits as f32
        } else {
            0.0
        }
    }

    /// The root edge the Gumbel schedule visits next.
    fn gumbel_next(&mut self) -> u32 {
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

    /// PUCT choice among a node's edges.
    fn select_edge(&self, node: u32) -> u32 {
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
        let mut best = (f32::NEG_INFINITY, 0u32);
        for i in 0..n.n_edges {
            let e = &self.edges[(n.first_edge + i) as usize];
            // Walks in flight count as visits that lost (virtual loss).
            let visits = e.visits + e.in_flight;
            let q = if visits > 0 {
                (e.value_sum - self.cfg.virtual_loss * e.in_flight as f32) / visits as f32
            } else {
                fpu
            };
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
    /// budget is spent or a walk ends on a leaf that already waits (the
    /// tree offers no other leaf worth a virtual loss). 0 means done.
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

    /// MCTS-solver: carries the exact value of `leaf`, the end of the
    /// current path, up that path as far as it proves each parent won or
    /// lost. The root is never marked: its moves keep their own proofs.
    fn propagate_proof(&mut self, leaf: u32) {
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
    fn every_move_loses(&self, node: u32) -> Option<u8> {
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
    fn root_has_proven_win(&self) -> bool {
        self.edges_of(0)
            .iter()
            .any(|e| self.proven_q(e).is_some_and(|q| q > 0.0))
    }

    /// The edges (moves) of `node`.
    fn edges_of(&self, node: u32) -> &[Edge] {
        let n = &self.nodes[node as usize];
        &self.edges[n.first_edge as usize..(n.first_edge + n.n_edges) as usize]
    }

    /// With the solver: the exact value of moving along `e` for the side
    /// moving at its parent, when the position it leads to is decided.
    fn proven_q(&self, e: &Edge) -> Option<f32> {
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

    /// Takes the virtual loss of one walk off its path.
    fn release(&mut self, path: &[(u32, u32)]) {
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

    fn request_for(&self, leaf: u32) -> EvalRequest<'_> {
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

    fn apply_leaf<R: Rng>(
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
        let sum: f32 = edges
            .iter()
            .enumerate()
            .filter(|(_, e)| keep(e))
            .map(|(i, _)| eval.priors.get(i).copied().unwrap_or(0.0))
            .sum();
        let kept = edges.iter().filter(|e| keep(e)).count().max(1);
        for (i, e) in edges.iter_mut().enumerate() {
            let p = eval.priors.get(i).copied().unwrap_or(0.0);
            e.prior = if !keep(e) {
                0.0
            } else if sum > 0.0 {
                p / sum
            } else {
                1.0 / kept as f32
            };
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
    fn backup(&mut self, leaf: u32, value: f32, draw: f32, plies: f32) {
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
        while let Some((old, new)) = queue.pop_front() {
            let on = &old_nodes[old as usize];
            let first = self.edges.len() as u32;
            for i in 0..on.n_edges {
                let mut e = old_edges[(on.first_edge + i) as usize].clone();
                if e.child != NONE {
                    let c = self.nodes.len() as u32;
                    self.nodes.push(old_nodes[e.child as usize].clone());
                    queue.push_back((e.child, c));
                    e.child = c;
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

    /// Simulations done in this search.
    pub fn simulations(&self) -> u32 {
        self.sims_done
    }
}
