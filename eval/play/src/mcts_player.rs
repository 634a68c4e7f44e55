//! The MCTS player of matches, analysis and front ends: one game's search
//! under a simulation count, a time per move or a game clock.
//!
//! The search keeps up to `threads` batches of leaves in flight, each on
//! its own evaluation worker (a one-thread pool shared by every MCTS
//! player of the process): while one worker runs the net on a batch, the
//! search gathers the next batch from the same tree (virtual loss, see
//! `brandubh_mcts`) for another worker, and hands each batch's
//! evaluations back in the order the batches were sent. One worker per
//! core, each running its own batch on one thread, was measured faster
//! here than one batch at a time spread over both cores (docs/arena.md).
//! The tree is kept between moves: when the next position follows from
//! the last one searched, the subtree of the moves played is reused. The
//! evaluator comes from the `PlayContext` the player is built with, which
//! loads a model once and shares it, and its evaluation workers, among
//! every player built from it.

use crate::clock::GameClock;
use crate::context::PlayContext;
use brandubh_mcts::{CachedEvaluator, Evaluation, Evaluator, MctsConfig, MoveAnalysis, Search};
use brandubh_rules::{Game, Move, RuleSet};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::{HashMap, VecDeque};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Leaves gathered per evaluation when the spec names no `batch`.
pub const DEFAULT_BATCH: usize = 8;
/// The share of a time limit kept free at the end of a move (at least
/// 1 ms): a search that stopped exactly on time overran it by up to 10 %
/// now and then (docs/arena.md).
pub const STOP_MARGIN: f64 = 0.03;
/// The most of its last tree a timed search keeps, in edges per
/// millisecond of its budget: keeping copies the subtree edge by edge, and
/// this keeps the copy to a small share of the time (docs/arena.md).
pub const KEPT_EDGES_PER_MS: usize = 1_000;
/// Positions whose evaluations a player remembers (about 50 MB at most).
pub const CACHE_POSITIONS: usize = 200_000;
/// Simulations when the spec names neither `sims` nor `ms`.
pub const DEFAULT_SIMS: u32 = 400;

/// The transposition table of the `verify` alpha-beta check, in MB.
const VERIFY_TT_MB: usize = 16;

/// The simulation limit of a player limited by `sims` and/or `millis`:
/// `sims`, or `DEFAULT_SIMS` when neither limit is given.
pub fn sims_limit(sims: Option<u32>, millis: Option<u64>) -> Option<u32> {
    match (sims, millis) {
        (None, None) => Some(DEFAULT_SIMS),
        (s, _) => s,
    }
}

/// How an MCTS player searches: the MCTS settings (the documented
/// defaults of `MctsConfig` with the spec's changes), its limits, the
/// leaves per evaluation and the threads of its evaluation pool.
#[derive(Clone, Debug, PartialEq)]
pub struct MctsSettings {
    pub cfg: MctsConfig,
    /// Stop after this many simulations (of this move's search). `None`:
    /// the time (`millis`, a clock's or a command's) alone bounds the
    /// search, and with no time either it stops after `DEFAULT_SIMS`.
    pub sims: Option<u32>,
    /// Stop after this much wall time per move.
    pub millis: Option<u64>,
    /// Leaves gathered per evaluation (1 is the plain one-leaf search).
    pub batch: usize,
    /// Threads evaluating (all cores by default).
    pub threads: usize,
    /// The share of a timed move's budget kept for an alpha-beta check of
    /// the move the search chose (0 = none; `verify=F` in a spec): a move
    /// after which the opponent wins by force, within the depth alpha-beta
    /// reaches, gives way to the most visited move that does not lose.
    pub verify: f32,
}

/// What the last search did, for `analyze` and time accounting.
#[derive(Clone, Debug, PartialEq)]
pub struct MctsReport {
    /// Simulations done by this move's search (not counting reused ones).
    pub simulations: u32,
    /// Visits at the root, reused ones included.
    pub root_visits: u32,
    /// Edges of the last move's tree this search started from (0 when it
    /// started afresh).
    pub kept_edges: usize,
    pub evaluations: u64,
    pub batches: u64,
    pub collisions: u64,
    /// Leaves answered from the player's cache, over the player's life.
    pub cache_hits: u64,
    pub elapsed: Duration,
    /// The time the player allowed itself, if it had a limit.
    pub budget: Option<Duration>,
    pub best: Move,
    /// Value of the root for the side to move, −1..1.
    pub value: f32,
    pub moves: Vec<MoveAnalysis>,
}

pub struct MctsPlayer {
    spec: String,
    /// The spec with the model named by its id (`Player::identity`).
    identity: String,
    rules: Arc<RuleSet>,
    settings: MctsSettings,
    evaluator: Arc<dyn Evaluator>,
    /// The evaluator behind a cache of this player's own evaluations.
    cached: Arc<CachedEvaluator>,
    workers: Vec<Arc<rayon::ThreadPool>>,
    rng: ChaCha8Rng,
    /// The tree of the last search and the game it was rooted in.
    tree: Option<(Search, Game)>,
    /// A worker's measured seconds per batch (moving average), to stop in time.
    batch_secs: f64,
    /// Measured simulations per second, to size Gumbel's schedule under a
    /// time limit.
    sims_per_sec: f64,
    /// The alpha-beta search of `verify`, made on first use.
    verifier: Option<brandubh_alphabeta::Searcher>,
    pub last: Option<MctsReport>,
}

impl MctsPlayer {
    pub fn new(
        spec: String,
        rules: Arc<RuleSet>,
        settings: MctsSettings,
        evaluator: Arc<dyn Evaluator>,
        seed: u64,
        ctx: &PlayContext,
    ) -> MctsPlayer {
        let workers = ctx.worker_pools(settings.threads.max(1));
        let cached = Arc::new(CachedEvaluator::new(evaluator.clone(), CACHE_POSITIONS));
        let identity = match crate::PlayerSpec::parse(&spec) {
            Ok(p) if p.params.iter().any(|(k, _)| k == "model") => {
                p.with_value("model", &evaluator.id())
            }
            _ => spec.clone(),
        };
        MctsPlayer {
            identity,
            spec,
            rules,
            settings,
            evaluator,
            cached,
            workers,
            rng: ChaCha8Rng::seed_from_u64(seed),
            tree: None,
            batch_secs: 0.0,
            sims_per_sec: 0.0,
            verifier: None,
            last: None,
        }
    }

    /// Searches with `budget` (or the settings' time), then, with `verify`
    /// on and a time to share, checks the chosen move with alpha-beta.
    fn search_and_verify(&mut self, game: &Game, budget: Option<Duration>) -> Move {
        let budget = budget.or(self.settings.millis.map(Duration::from_millis));
        let share = self.settings.verify as f64;
        let Some(total) = budget.filter(|_| share > 0.0) else {
            return self.search(game, budget).best;
        };
        let start = Instant::now();
        self.search(game, Some(total.mul_f64(1.0 - share)));
        let left = total.saturating_sub(start.elapsed());
        self.verify(game, left)
    }

    /// The most visited of the search's moves that alpha-beta does not
    /// prove lost within `time` (up to four tried, the first given half of
    /// it); the search's own choice when every one tried loses.
    fn verify(&mut self, game: &Game, time: Duration) -> Move {
        let report = self.last.as_ref().expect("searched just before");
        let chosen = report.best;
        let mut moves: Vec<(Move, u32)> = report
            .moves
            .iter()
            .filter(|m| m.visits > 0)
            .map(|m| (m.mv, m.visits))
            .collect();
        moves.sort_by_key(|m| std::cmp::Reverse(m.1));
        if let Some(i) = moves.iter().position(|m| m.0 == chosen) {
            let m = moves.remove(i);
            moves.insert(0, m);
        }
        moves.truncate(4);
        let rules = self.rules.clone();
        let searcher = self.verifier.get_or_insert_with(|| {
            brandubh_alphabeta::Searcher::new(
                rules,
                brandubh_alphabeta::evaluation::EvalWeights::default(),
                VERIFY_TT_MB,
            )
        });
        let start = Instant::now();
        for (k, &(mv, _)) in moves.iter().enumerate() {
            let left = time.saturating_sub(start.elapsed());
            let slice = if k == 0 {
                left / 2
            } else {
                left / (moves.len() - k) as u32
            };
            if slice < Duration::from_millis(1) {
                break;
            }
            let mut after = game.clone();
            if after.play(mv).is_err() {
                continue;
            }
            if after.is_over() {
                return mv;
            }
            let r = searcher.search(
                &after,
                brandubh_alphabeta::time::Limits {
                    depth: None,
                    nodes: None,
                    millis: Some(slice.as_millis().max(1) as u64),
                },
            );
            // The opponent's score: a proven win for them means this loses.
            if r.score < brandubh_alphabeta::WIN_BOUND {
                return mv;
            }
        }
        chosen
    }

    /// Replaces the simulation and time limits (see `MctsSettings::sims`).
    pub fn set_limits(&mut self, sims: Option<u32>, millis: Option<u64>) {
        self.settings.sims = sims;
        self.settings.millis = millis;
    }

    /// The evaluator (for the raw policy and value in `analyze`).
    pub fn evaluator(&self) -> &Arc<dyn Evaluator> {
        &self.evaluator
    }

    /// The kept tree rooted at `game`'s position, when `game` continues
    /// the game last searched; else a fresh one. A timed search keeps no
    /// more of it than it can copy in a small share of `budget`.
    fn tree_for(&mut self, game: &Game, budget: Option<Duration>) -> Search {
        let max_edges = budget.map_or(usize::MAX, |t| {
            usize::try_from(t.as_millis())
                .unwrap_or(usize::MAX)
                .saturating_mul(KEPT_EDGES_PER_MS)
        });
        if let Some((mut search, old)) = self.tree.take() {
            let (old_plies, new_plies) = (old.plies(), game.plies());
            let continues = self.settings.cfg.reuse_tree
                && old.start_position() == game.start_position()
                && new_plies.len() > old_plies.len()
                && new_plies[..old_plies.len()]
                    .iter()
                    .zip(old_plies)
                    .all(|(a, b)| a.mv == b.mv);
            if continues {
                let mut g = old;
                for p in &new_plies[g.plies().len()..] {
                    if g.play(p.mv).is_err() {
                        return Search::new(self.rules.clone(), self.settings.cfg.clone(), game);
                    }
                    search.advance_root_within(p.mv, &g, max_edges);
                }
                return search;
            }
        }
        Search::new(self.rules.clone(), self.settings.cfg.clone(), game)
    }

    /// Searches `game`'s position within the settings' limits, or within
    /// `budget` when one is given (the time a clock allows this move).
    pub fn search(&mut self, game: &Game, budget: Option<Duration>) -> &MctsReport {
        let start = Instant::now();
        let budget = budget.or(self.settings.millis.map(Duration::from_millis));
        let mut search = self.tree_for(game, budget);
        let kept_edges = search.edge_count();
        let sims = match (self.settings.sims, budget) {
            (Some(n), _) => n,
            // Gumbel's halving schedule needs a budget in simulations:
            // the measured rate (a guess before the first move).
            (None, Some(t)) if self.settings.cfg.gumbel => {
                let rate = if self.sims_per_sec > 0.0 {
                    self.sims_per_sec
                } else {
                    2000.0
                };
                (rate * t.as_secs_f64()).clamp(16.0, 1e7) as u32
            }
            (None, Some(_)) => u32::MAX / 2,
            (None, None) => DEFAULT_SIMS,
        };
        search.start(sims, false, &mut self.rng);
        search.set_deadline(budget.map(|t| start + t.saturating_sub(stop_margin(t))));
        let (mut evaluations, mut batches) = (0u64, 0u64);
        let collisions_before = search.collisions();
        let (tx, rx) = mpsc::channel::<(u64, Vec<Evaluation>, f64)>();
        // Batches sent and not yet applied: (id, leaves), oldest first.
        let mut in_flight: VecDeque<(u64, usize)> = VecDeque::new();
        let mut arrived: HashMap<u64, Vec<Evaluation>> = HashMap::new();
        let mut next_id = 0u64;
        let mut stopping = false;
        loop {
            // Send batches while a worker is free and time allows.
            while !stopping && in_flight.len() < self.workers.len() {
                if let Some(t) = budget {
                    // No batch that would end past the budget, with room
                    // for a slow batch (the workers share the cores with
                    // the search thread) and for the move's own overheads;
                    // the root itself is always evaluated.
                    let next = Duration::from_secs_f64(1.5 * self.batch_secs);
                    let margin = stop_margin(t);
                    if batches + in_flight.len() as u64 > 0 && start.elapsed() + next + margin >= t
                    {
                        stopping = true;
                        break;
                    }
                }
                let waiting = search.pending_leaves();
                let n = search.gather(waiting + self.settings.batch) - waiting;
                if n == 0 {
                    // Done, or every walk ends on a leaf in flight: wait.
                    if in_flight.is_empty() {
                        stopping = true;
                    }
                    break;
                }
                let requests = search.owned_requests(waiting);
                let (evaluator, tx) = (self.cached.clone(), tx.clone());
                let id = next_id;
                next_id += 1;
                let worker = &self.workers[(id % self.workers.len() as u64) as usize];
                worker.spawn(move || {
                    let t0 = Instant::now();
                    let batch: Vec<_> = requests.iter().map(|r| r.as_request()).collect();
                    let evals = evaluator.evaluate(&batch);
                    let _ = tx.send((id, evals, t0.elapsed().as_secs_f64()));
                });
                in_flight.push_back((id, n));
            }
            let Some(&(oldest, n)) = in_flight.front() else {
                break;
            };
            // Apply the oldest batch once it is back (others wait their turn).
            let evals = loop {
                if let Some(e) = arrived.remove(&oldest) {
                    break e;
                }
                let (id, e, secs) = rx.recv().expect("evaluation workers answer");
                // A worker's time per batch, to know when to stop sending.
                self.batch_secs = if self.batch_secs == 0.0 {
                    secs
                } else {
                    0.8 * self.batch_secs + 0.2 * secs
                };
                arrived.insert(id, e);
            };
            debug_assert_eq!(evals.len(), n);
            in_flight.pop_front();
            search.apply_first(&evals, &mut self.rng);
            evaluations += n as u64;
            batches += 1;
        }
        debug_assert_eq!(search.pending_leaves(), 0);
        let (best, stats) = search.choose(0.0, &mut self.rng);
        let elapsed = start.elapsed();
        let done = search.simulations();
        if elapsed.as_secs_f64() > 0.01 && done > 0 {
            self.sims_per_sec = done as f64 / elapsed.as_secs_f64();
        }
        let report = MctsReport {
            simulations: done,
            root_visits: stats.visits.iter().map(|v| v.1).sum(),
            kept_edges,
            evaluations,
            batches,
            collisions: search.collisions() - collisions_before,
            cache_hits: self.cached.stats().0,
            elapsed,
            budget,
            best,
            value: stats.value,
            moves: search.analysis(),
        };
        self.tree = Some((search, game.clone()));
        self.last = Some(report);
        self.last.as_ref().expect("just set")
    }
}

impl crate::Player for MctsPlayer {
    fn name(&self) -> String {
        self.spec.clone()
    }
    fn identity(&self) -> String {
        self.identity.clone()
    }
    fn choose(&mut self, game: &Game, clock: Option<&GameClock>) -> Result<Move, crate::Forfeit> {
        Ok(match only_move(game) {
            Some(mv) => mv,
            None => self.search_and_verify(game, clock.map(GameClock::budget)),
        })
    }
    fn analyse_lines(&mut self, game: &Game, time: Duration, n: usize) -> Vec<(Vec<Move>, f64)> {
        let report = self.search(game, Some(time));
        let mut moves: Vec<_> = report.moves.iter().filter(|m| m.visits > 0).collect();
        moves.sort_by_key(|m| std::cmp::Reverse(m.visits));
        let mut lines: Vec<(Vec<Move>, f64)> = moves
            .into_iter()
            .take(n.max(1))
            .map(|m| (m.pv.clone(), m.q.unwrap_or(0.0) as f64))
            .collect();
        if lines.is_empty() {
            lines.push((vec![report.best], report.value as f64));
        }
        lines
    }
}

/// The part of a move's budget left unused for the move's own overheads.
fn stop_margin(budget: Duration) -> Duration {
    budget.mul_f64(STOP_MARGIN).max(Duration::from_millis(1))
}

/// The move to play at once when it is the only legal one.
fn only_move(game: &Game) -> Option<Move> {
    let moves = game.legal_moves();
    (moves.len() == 1).then(|| moves[0])
}
