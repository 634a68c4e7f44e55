//! The alpha-beta baseline: iterative deepening negamax with principal
//! variation search, a transposition table, ordered moves, and a threat
//! extension at the horizon for king escapes and king captures. With more
//! than one thread it is a Lazy SMP search: helper threads search the same
//! root, half of them one ply deeper, sharing only the lock-free
//! transposition table, and the main thread's result is the answer. Split
//! by concern: `tt` (transposition table), `movepick` (ordering),
//! `evaluation` (static score), `time` (limits).

pub mod evaluation;
pub mod movepick;
pub mod time;
pub mod tt;

pub use evaluation::{EvalWeights, WeightsError};
pub use time::Limits;

use brandubh_rules::{
    ruleset::Repetition, Game, GameResult, Move, MoveList, Outcome, Position, RuleSet, Side,
};
use evaluation::evaluate;
use movepick::{order, Ordering, MAX_PLY};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use time::Clock;
use tt::{Bound, TranspositionTable};

/// A won position's score at the root; a win found `n` plies deep scores
/// `WIN - n`, so shorter wins are preferred.
pub const WIN: i32 = 30_000;
/// Scores beyond this are wins or losses found by the search.
pub const WIN_BOUND: i32 = WIN - 1_000;
/// Plies of threat extension allowed on one path below the horizon.
const EXTENSIONS: u32 = 2;
/// Null-move pruning: the least remaining depth, and the reduction.
const NULL_MIN_DEPTH: u32 = 3;
const NULL_REDUCTION: u32 = 2;
/// Late move reductions: the least remaining depth, and the first move
/// index (in search order) that may be reduced.
const LMR_MIN_DEPTH: u32 = 3;
const LMR_MIN_INDEX: usize = 3;

/// What a search found.
#[derive(Clone, Debug)]
pub struct SearchResult {
    pub best: Move,
    pub score: i32,
    /// Deepest completed iteration.
    pub depth: u32,
    pub nodes: u64,
    pub pv: Vec<Move>,
    pub seconds: f64,
}

pub struct Searcher {
    rules: Arc<RuleSet>,
    weights: EvalWeights,
    tt: Arc<TranspositionTable>,
    /// Threads a search uses, this one included.
    threads: usize,
    /// Set when a helper thread must stop (the main thread is done).
    stop: Arc<AtomicBool>,
    ord: Ordering,
    nodes: u64,
    stopped: bool,
    clock: Clock,
    /// Hashes of the game's positions and of the current search path.
    history: Vec<u64>,
    /// A root move of the iteration in progress whose finished search beat
    /// the moves searched before it, with its score.
    root_best: Option<(Move, i32)>,
}

/// The score of a finished game for the side to move in `pos`.
fn outcome_score(o: Outcome, side: Side, ply: usize) -> i32 {
    let win = WIN - ply as i32;
    match o.result {
        GameResult::Draw => 0,
        r if r == GameResult::win_for(side) => win,
        _ => -win,
    }
}

/// Where a repeated position loses for the player who makes it occur for
/// the `n`-th time, the first repeat already decides: if the opponent
/// simply replays the cycle, the player who closed it first is the one who
/// closes it the `n`-th time, and every way out of the cycle was open to
/// him the first time round. So a position that occurred before (since the
/// last capture, in the game or on the search path) is scored as the loss
/// it leads to, `n - 2` cycles later, for the player who just moved; unless
/// a quiet-ply or ply limit would end the game first. This sees a
/// repetition trap one cycle sooner than the rule itself would.
fn repetition_score(rules: &RuleSet, pos: &Position, history: &[u64], ply: usize) -> Option<i32> {
    let end = &rules.options.end;
    if end.repetition != Repetition::MoverLoses {
        return None;
    }
    let cycle = pos.plies_since_occurrence(history)? as u32;
    let until = end.repetition_count.saturating_sub(2) as u32 * cycle;
    let limited = |limit: u32, now: u32| limit > 0 && now + until > limit;
    if limited(end.quiet_ply_limit, pos.quiet_plies()) || limited(end.ply_limit, pos.plies()) {
        return None;
    }
    Some(WIN - ply as i32 - until as i32)
}

/// The deepest iteration `limits` allow.
fn depth_limit(limits: &Limits) -> u32 {
    limits
        .depth
        .unwrap_or(MAX_PLY as u32 - 8)
        .clamp(1, MAX_PLY as u32 - 8)
}

fn to_tt(score: i32, ply: usize) -> i32 {
    if score > WIN_BOUND {
        score + ply as i32
    } else if score < -WIN_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_tt(score: i32, ply: usize) -> i32 {
    if score > WIN_BOUND {
        score - ply as i32
    } else if score < -WIN_BOUND {
        score + ply as i32
    } else {
        score
    }
}

impl Searcher {
    pub fn new(rules: Arc<RuleSet>, weights: EvalWeights, tt_megabytes: usize) -> Searcher {
        let tt = Arc::new(TranspositionTable::new(tt_megabytes));
        Searcher::on_table(rules, weights, tt, Arc::new(AtomicBool::new(false)))
    }

    /// A one-thread searcher on a table and stop flag that may be shared.
    fn on_table(
        rules: Arc<RuleSet>,
        weights: EvalWeights,
        tt: Arc<TranspositionTable>,
        stop: Arc<AtomicBool>,
    ) -> Searcher {
        Searcher {
            rules,
            weights,
            tt,
            threads: 1,
            stop,
            ord: Ordering::default(),
            nodes: 0,
            stopped: false,
            clock: Clock::new(&Limits::default()),
            history: Vec::new(),
            root_best: None,
        }
    }

    /// The number of threads each search uses (at least 1). With one, a
    /// search limited by depth or nodes gives the same result every time;
    /// with more, helper threads fill the shared table in an order that
    /// depends on scheduling, so the result may vary from run to run.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    /// A helper for a parallel search: the same rules, weights, table and
    /// stop flag, its own move-ordering statistics and counters.
    fn helper(&self) -> Searcher {
        Searcher::on_table(
            self.rules.clone(),
            self.weights.clone(),
            self.tt.clone(),
            self.stop.clone(),
        )
    }

    /// Searches the game's current position (which must not be over), on
    /// `threads` threads. The nodes reported are those of every thread; a
    /// node limit counts the main thread's alone.
    pub fn search(&mut self, game: &Game, limits: Limits) -> SearchResult {
        assert!(!game.is_over(), "search needs a game in progress");
        self.tt.new_search();
        if self.threads <= 1 {
            return self.iterate(game, limits);
        }
        self.stop.store(false, Relaxed);
        let mut helpers: Vec<Searcher> = (1..self.threads).map(|_| self.helper()).collect();
        let (mut result, helper_nodes) = std::thread::scope(|scope| {
            let handles: Vec<_> = helpers
                .iter_mut()
                .enumerate()
                .map(|(i, h)| scope.spawn(move || h.search_helper(game, limits, i)))
                .collect();
            let result = self.iterate(game, limits);
            self.stop.store(true, Relaxed);
            let nodes: u64 = handles
                .into_iter()
                .map(|h| h.join().expect("a helper search thread panicked"))
                .sum();
            (result, nodes)
        });
        result.nodes += helper_nodes;
        result
    }

    /// A helper thread's search: iterative deepening from the same root
    /// until the main thread is done; every other helper, the first among
    /// them, starts one ply deeper, so that the threads do not all search
    /// the same depth at once.
    fn search_helper(&mut self, game: &Game, limits: Limits, index: usize) -> u64 {
        self.history = game.history().to_vec();
        let pos = *game.position();
        let first = 1 + ((index + 1) % 2) as u32;
        for depth in first..=depth_limit(&limits) {
            self.root_best = None;
            self.negamax(&pos, depth, -WIN - 1, WIN + 1, 0, EXTENSIONS);
            if self.stopped || self.stop.load(Relaxed) {
                break;
            }
        }
        self.nodes
    }

    /// The calling thread's iterative deepening within `limits`, whose
    /// result is the search's (the table's generation is already advanced).
    fn iterate(&mut self, game: &Game, limits: Limits) -> SearchResult {
        self.clock = Clock::new(&limits);
        self.nodes = 0;
        self.stopped = false;
        self.history = game.history().to_vec();
        self.ord = Ordering::default();
        let pos = *game.position();
        let max_depth = depth_limit(&limits);
        let mut best = SearchResult {
            best: game.legal_moves()[0],
            score: 0,
            depth: 0,
            nodes: 0,
            pv: vec![],
            seconds: 0.0,
        };
        for depth in 1..=max_depth {
            self.root_best = None;
            let score = self.negamax(&pos, depth, -WIN - 1, WIN + 1, 0, EXTENSIONS);
            if self.stopped && depth > 1 {
                // An unfinished iteration still counts where it proved a
                // move better, at the new depth, than the one searched
                // first (the previous best, from the TT).
                if let Some((mv, s)) = self.root_best {
                    best.best = mv;
                    best.score = s;
                    best.pv = vec![mv];
                }
                break;
            }
            let pv = self.principal_variation(&pos, depth as usize);
            if let Some(&mv) = pv.first() {
                best.best = mv;
            }
            best.score = score;
            best.depth = depth;
            best.pv = pv;
            if self.stopped || score.abs() > WIN_BOUND || !self.clock.next_iteration_fits() {
                break;
            }
        }
        best.nodes = self.nodes;
        best.seconds = self.clock.elapsed().as_secs_f64();
        best
    }

    /// Follows TT moves from the root.
    fn principal_variation(&self, pos: &Position, max: usize) -> Vec<Move> {
        let mut pv = Vec::new();
        let mut p = *pos;
        let mut seen = Vec::new();
        while pv.len() < max {
            let Some(mv) = self.tt.probe(p.hash()).and_then(|h| h.mv) else {
                break;
            };
            if !p.is_legal(&self.rules, mv) || seen.contains(&p.hash()) {
                break;
            }
            seen.push(p.hash());
            pv.push(mv);
            p = p.play(&self.rules, mv).0;
        }
        pv
    }

    fn negamax(
        &mut self,
        pos: &Position,
        depth: u32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        ext: u32,
    ) -> i32 {
        self.nodes += 1;
        if self.nodes & 1023 == 0 && (self.clock.expired(self.nodes) || self.stop.load(Relaxed)) {
            self.stopped = true;
        }
        if self.stopped {
            return 0;
        }
        let rules = self.rules.clone();
        if ply > 0 {
            if let Some(o) = pos.after_move_outcome(&rules, &self.history) {
                return outcome_score(o, pos.side_to_move(), ply);
            }
            if let Some(s) = repetition_score(&rules, pos, &self.history, ply) {
                return s;
            }
        }
        if ply >= MAX_PLY - 2 {
            return evaluate(&rules, pos, &self.weights);
        }
        if depth == 0 {
            if pos.count_moves(&rules) == 0 {
                return outcome_score(pos.no_moves_outcome(&rules), pos.side_to_move(), ply);
            }
            return self.horizon(pos, alpha, beta, ply, ext);
        }
        let mut moves = MoveList::new();
        pos.legal_moves(&rules, &mut moves);
        if moves.is_empty() {
            return outcome_score(pos.no_moves_outcome(&rules), pos.side_to_move(), ply);
        }
        let tt_hit = self.tt.probe(pos.hash());
        if let Some(h) = tt_hit {
            if ply > 0 && h.depth >= depth {
                let s = from_tt(h.score, ply);
                let cut = match h.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if cut {
                    return s;
                }
            }
        }
        let pv_node = beta - alpha > 1;

        // Null-move pruning: away from the principal variation, if passing
        // still holds beta at a reduced depth, a real move will too. Not
        // when the opponent threatens a win next move (then passing loses).
        let null = pos.null_move();
        if !pv_node
            && ply > 0
            && depth >= NULL_MIN_DEPTH
            && beta.abs() < WIN_BOUND
            && evaluate(&rules, pos, &self.weights) >= beta
            && !self.has_winning_move(&null)
        {
            self.history.push(pos.hash());
            let s = -self.negamax(
                &null,
                depth - 1 - NULL_REDUCTION,
                -beta,
                -beta + 1,
                ply + 1,
                ext,
            );
            self.history.pop();
            if self.stopped {
                return 0;
            }
            if s >= beta && s < WIN_BOUND {
                return s;
            }
        }
        let ordered = order(
            &rules,
            pos,
            &moves,
            tt_hit.and_then(|h| h.mv),
            &self.ord,
            ply,
        );
        let alpha0 = alpha;
        let mut best_score = -WIN - 1;
        let mut best_move = ordered[0].0;
        let king = pos.board().king;
        self.history.push(pos.hash());
        for (i, (mv, child, captured)) in ordered.iter().enumerate() {
            let score = if i == 0 {
                -self.negamax(child, depth - 1, -beta, -alpha, ply + 1, ext)
            } else {
                // Late move reductions: quiet, late-ordered moves (no
                // capture, not the king, not a killer) first get a
                // shallower null-window look; only those that beat alpha
                // are searched to full depth.
                let reducible = depth >= LMR_MIN_DEPTH
                    && i >= LMR_MIN_INDEX
                    && captured.is_empty()
                    && !king.contains(mv.from)
                    && !(ply < MAX_PLY && self.ord.killers[ply].contains(&Some(*mv)));
                // alpha + 1 stands for "not refuted yet": search in full.
                let mut s = if !reducible {
                    alpha + 1
                } else {
                    let r = if i >= 2 * LMR_MIN_INDEX + 4 && depth > LMR_MIN_DEPTH {
                        2
                    } else {
                        1
                    };
                    -self.negamax(child, depth - 1 - r, -alpha - 1, -alpha, ply + 1, ext)
                };
                if s > alpha {
                    s = -self.negamax(child, depth - 1, -alpha - 1, -alpha, ply + 1, ext);
                }
                if s > alpha && s < beta {
                    -self.negamax(child, depth - 1, -beta, -alpha, ply + 1, ext)
                } else {
                    s
                }
            };
            if self.stopped {
                self.history.pop();
                return 0;
            }
            if ply == 0 && i > 0 && score > alpha {
                self.root_best = Some((*mv, score));
            }
            if score > best_score {
                best_score = score;
                best_move = *mv;
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                if captured.is_empty() {
                    self.ord.reward(pos.side_to_move().index(), ply, *mv, depth);
                }
                break;
            }
        }
        self.history.pop();
        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_score > alpha0 {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt.store(
            pos.hash(),
            Some(best_move),
            to_tt(best_score, ply),
            depth,
            bound,
        );
        best_score
    }

    /// At the horizon: take an immediate win, search one more ply when the
    /// opponent threatens one (while extensions last), else evaluate.
    fn horizon(&mut self, pos: &Position, alpha: i32, beta: i32, ply: usize, ext: u32) -> i32 {
        if self.has_winning_move(pos) {
            return WIN - ply as i32 - 1;
        }
        if ext > 0 && self.has_winning_move(&pos.null_move()) {
            return self.negamax(pos, 1, alpha, beta, ply, ext - 1);
        }
        evaluate(&self.rules, pos, &self.weights)
    }

    /// King to a corner (defenders) or a king capture (attackers) this move.
    fn has_winning_move(&self, pos: &Position) -> bool {
        pos.winning_move(&self.rules).is_some()
    }
}

#[cfg(test)]
mod tests;
