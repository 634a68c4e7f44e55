//! The search tree: nodes, edges, the `Search` that owns them, and the
//! types it hands out (leaf requests, root statistics, move analysis).

use crate::config::MctsConfig;
use crate::evaluator::EvalRequest;
use brandubh_rules::{Game, GameResult, Move, MoveList, Position, RuleSet};
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Instant;

pub(crate) const NONE: u32 = u32::MAX;

#[derive(Clone, Debug)]
pub(crate) struct Edge {
    pub(crate) mv: Move,
    pub(crate) prior: f32,
    pub(crate) child: u32,
    pub(crate) visits: u32,
    /// Sum of values from the point of view of the side moving at the parent.
    pub(crate) value_sum: f32,
    /// The move hands the opponent a win on the spot (`win_in_one` only).
    pub(crate) loses: bool,
    /// Sum of draw probabilities backed up through this edge.
    pub(crate) draw_sum: f32,
    /// Sum of the plies to the end, counted from the parent, backed up
    /// through this edge.
    pub(crate) plies_sum: f32,
    /// Walks through this edge waiting for an evaluation (virtual losses).
    pub(crate) in_flight: u32,
}

#[derive(Clone, Debug)]
pub(crate) struct Node {
    pub(crate) pos: Position,
    pub(crate) first_edge: u32,
    pub(crate) n_edges: u32,
    pub(crate) visits: u32,
    /// Sum of values from the point of view of the side to move here.
    pub(crate) value_sum: f32,
    /// Sum of the plies to the end backed up through this node.
    pub(crate) plies_sum: f32,
    /// Exact value for the side to move, when the game is over here.
    pub(crate) terminal: Option<f32>,
    /// With `terminal`: the plies until the game is over (0 when it is).
    pub(crate) terminal_plies: u8,
    pub(crate) expanded: bool,
    /// Earlier occurrences of this position on its path (for the net's input).
    pub(crate) repetitions: u8,
    /// Walks through this node waiting for an evaluation.
    pub(crate) in_flight: u32,
    /// This leaf is waiting for the evaluator.
    pub(crate) pending: bool,
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

pub(crate) struct GumbelRoot {
    /// Gumbel sample + log prior, per root edge.
    pub(crate) score: Vec<f32>,
    pub(crate) remaining: Vec<u32>,
    pub(crate) queue: VecDeque<u32>,
    pub(crate) rounds: u32,
}

pub struct Search {
    pub(crate) rules: Arc<RuleSet>,
    pub(crate) cfg: MctsConfig,
    pub(crate) nodes: Vec<Node>,
    pub(crate) edges: Vec<Edge>,
    /// The move of each edge, kept contiguous so a node's moves are a slice.
    pub(crate) edge_moves: Vec<Move>,
    /// Hashes of the game's positions before the root.
    pub(crate) history: Vec<u64>,
    /// Scratch buffer: history plus the current path, for `new_node`.
    pub(crate) scratch: Vec<u64>,
    /// (node, edge) steps from the root to the node the walk is at.
    pub(crate) path: Vec<(u32, u32)>,
    /// Leaves waiting for the evaluator, each with its path from the root.
    pub(crate) pending: Vec<(u32, Vec<(u32, u32)>)>,
    /// Walks that ended on a leaf already waiting (batched search only).
    pub(crate) collisions: u64,
    pub(crate) sims_done: u32,
    pub(crate) target: u32,
    pub(crate) noise: bool,
    pub(crate) gumbel: Option<GumbelRoot>,
    pub(crate) moves: MoveList,
    /// A move that wins on the spot from the root, when `win_in_one` is on.
    pub(crate) root_win: Option<Move>,
    /// The root's priors before any noise: Gumbel's policy target improves
    /// on the net's own policy, not on the noised one.
    pub(crate) root_priors: Vec<f32>,
    /// The evaluator gives the plies left (the moves-left utility can work).
    pub(crate) moves_left_seen: bool,
    /// The solver proved a root move wins: searching on changes nothing.
    pub(crate) root_won: bool,
    /// When gathering must stop even if its walks need no evaluation.
    pub(crate) deadline: Option<Instant>,
}

pub(crate) fn outcome_value(result: GameResult, pos: &Position) -> f32 {
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
            deadline: None,
        };
        let root = s.new_node(*game.position());
        debug_assert_eq!(root, 0);
        s
    }

    /// Creates a node for `pos`, reached by the current path; finds out
    /// whether the game is over there and lists its moves.
    pub(crate) fn new_node(&mut self, pos: Position) -> u32 {
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
}
