//! Many games at once: every step advances each live game's search to its
//! next leaf (in parallel across threads, each game with its own seeded
//! generator), sends all the leaves to the evaluator as one batch, then
//! hands the results back. Finished games are replaced by new ones. The
//! games, not the thread schedule, decide every random draw, so the same
//! seed gives the same games.

use crate::config::{OpponentSides, SelfPlayConfig};
use crate::{records::PositionRecord, records::SelfPlayGame};
use brandubh_mcts::{evaluator::EvalRequest, evaluator::Evaluator};
use brandubh_mcts::{Advance, Search};
use brandubh_rules::{splitmix64, Game, GameResult, Move, RuleSet, Side};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

/// Counters for progress bars and summaries.
#[derive(Clone, Debug, Default)]
pub struct SelfPlayStats {
    pub games: u64,
    pub attacker_wins: u64,
    pub defender_wins: u64,
    pub draws: u64,
    pub unfinished: u64,
    pub plies: u64,
    pub reasons: BTreeMap<String, u64>,
    pub evaluations: u64,
    pub batches: u64,
    /// Sum over batches of batch size / concurrent games.
    pub fill_sum: f64,
    /// The same over the batches made while new games were still being
    /// started (before the last games drain).
    pub steady_fill_sum: f64,
    pub steady_batches: u64,
    pub eval_seconds: f64,
    pub seconds: f64,
}

impl SelfPlayStats {
    pub fn mean_fill(&self) -> f64 {
        self.fill_sum / self.batches.max(1) as f64
    }
    /// Mean fill before the drain at the end of a run.
    pub fn steady_fill(&self) -> f64 {
        self.steady_fill_sum / self.steady_batches.max(1) as f64
    }
    pub fn mean_length(&self) -> f64 {
        self.plies as f64 / self.games.max(1) as f64
    }
    fn count(&mut self, g: &SelfPlayGame) {
        self.games += 1;
        self.plies += g.plies as u64;
        match g.result {
            Some(GameResult::AttackersWin) => self.attacker_wins += 1,
            Some(GameResult::DefendersWin) => self.defender_wins += 1,
            Some(GameResult::Draw) => self.draws += 1,
            None => self.unfinished += 1,
        }
        *self
            .reasons
            .entry(g.reason.map_or("ply_cap", |r| r.as_str()).to_string())
            .or_default() += 1;
    }
}

struct Slot {
    id: u64,
    seed: u64,
    game: Game,
    search: Search,
    rng: ChaCha8Rng,
    full: bool,
    positions: Vec<PositionRecord>,
    /// A past net playing one side of this game, with a tree of its own.
    past: Option<PastSide>,
    /// A fixed opponent playing one side of this game.
    fixed: Option<FixedSide>,
}

struct FixedSide {
    side: Side,
    player: Box<dyn OpponentPlayer>,
}

/// A player from outside the run (an alpha-beta search, say) that plays
/// one side of a share of the self-play games (`opponent_share`). Each
/// game gets a player of its own, so one may keep state between moves.
pub trait Opponent: Sync {
    fn new_player(&self) -> Box<dyn OpponentPlayer>;
}

/// One game's opponent.
pub trait OpponentPlayer: Send {
    /// Its move in `game` (not over, with a legal move). For the same seed
    /// to give the same games it must depend on the game alone.
    fn choose(&mut self, game: &Game) -> Move;
}

/// Who else plays in self-play besides the current net: past nets of the
/// run (`past_share`) and a fixed opponent (`opponent_share`).
#[derive(Clone, Copy, Default)]
pub struct Opponents<'a> {
    pub past: &'a [&'a dyn Evaluator],
    pub fixed: Option<&'a dyn Opponent>,
}

struct PastSide {
    /// Which of the past nets (0-based).
    net: usize,
    side: Side,
    search: Search,
}

impl Slot {
    /// The fixed opponent is to move.
    fn fixed_to_move(&self) -> bool {
        self.fixed
            .as_ref()
            .is_some_and(|f| f.side == self.game.position().side_to_move())
    }

    /// The past net is to move.
    fn past_to_move(&self) -> bool {
        self.past
            .as_ref()
            .is_some_and(|p| p.side == self.game.position().side_to_move())
    }

    /// The search of the side to move.
    fn active(&self) -> &Search {
        match &self.past {
            Some(p) if p.side == self.game.position().side_to_move() => &p.search,
            _ => &self.search,
        }
    }

    /// The search of the side to move, with the game's generator.
    fn active_mut(&mut self) -> (&mut Search, &mut ChaCha8Rng) {
        let side = self.game.position().side_to_move();
        let search = match &mut self.past {
            Some(p) if p.side == side => &mut p.search,
            _ => &mut self.search,
        };
        (search, &mut self.rng)
    }

    /// The evaluator the side to move's leaves go to: 0 the current net,
    /// k + 1 past net k.
    fn evaluator(&self) -> usize {
        match &self.past {
            Some(p) if self.past_to_move() => p.net + 1,
            _ => 0,
        }
    }
}

/// Whether game `game_seed` falls in a `share` of the games, drawn from a
/// hash of the seed and `salt` (one salt per kind of opponent, so their
/// draws are independent): the hash when it does, for further draws.
fn in_share(game_seed: u64, salt: u64, share: f32) -> Option<u64> {
    let h = splitmix64(game_seed ^ salt);
    let u = (h >> 11) as f64 / (1u64 << 53) as f64;
    (u < share as f64).then_some(h)
}

/// Whether game `game_seed` is played against a past net (one of `past`
/// nets), and which net and side: a hash of the game's seed decides, so the
/// game's own generator draws exactly what it would without past nets.
fn past_side(cfg: &SelfPlayConfig, past: usize, game_seed: u64) -> Option<(usize, Side)> {
    if past == 0 {
        return None;
    }
    let h2 = splitmix64(in_share(game_seed, 0x009a_570f_9a57, cfg.past_share)?);
    let side = if h2 & 1 == 0 {
        Side::Attackers
    } else {
        Side::Defenders
    };
    Some(((h2 >> 1) as usize % past, side))
}

/// Whether game `game_seed` is played against the fixed opponent, and the
/// side it plays; like `past_side`, a hash of the seed decides, and a game
/// with the fixed opponent has no past net.
fn fixed_side(cfg: &SelfPlayConfig, game_seed: u64) -> Option<Side> {
    let h = in_share(game_seed, 0x0f1c_ed0b_0e17, cfg.opponent_share)?;
    Some(match cfg.opponent_plays {
        OpponentSides::Attackers => Side::Attackers,
        OpponentSides::Defenders => Side::Defenders,
        OpponentSides::Either if splitmix64(h) & 1 == 0 => Side::Attackers,
        OpponentSides::Either => Side::Defenders,
    })
}

fn new_slot(
    rules: &Arc<RuleSet>,
    cfg: &SelfPlayConfig,
    seed: u64,
    id: u64,
    opponents: Opponents<'_>,
) -> Slot {
    let game_seed = splitmix64(seed ^ splitmix64(id.wrapping_add(1)));
    let mut rng = ChaCha8Rng::seed_from_u64(game_seed);
    let mut game = Game::new(rules.clone());
    for _ in 0..cfg.opening_plies {
        if game.is_over() {
            break;
        }
        let legal = game.legal_moves();
        let mv = legal[rng.random_range(0..legal.len())];
        game.play(mv).expect("legal");
    }
    if game.is_over() {
        // An opening that ends the game is replayed from the start.
        game = Game::new(rules.clone());
    }
    let search = Search::new(rules.clone(), cfg.mcts.clone(), &game);
    let fixed = opponents.fixed.and_then(|o| {
        fixed_side(cfg, game_seed).map(|side| FixedSide {
            side,
            player: o.new_player(),
        })
    });
    let past = if fixed.is_some() {
        None
    } else {
        past_side(cfg, opponents.past.len(), game_seed)
    };
    let past = past.map(|(net, side)| PastSide {
        net,
        side,
        search: Search::new(rules.clone(), cfg.mcts.clone(), &game),
    });
    let mut s = Slot {
        id,
        seed: game_seed,
        game,
        search,
        rng,
        full: true,
        positions: Vec::new(),
        past,
        fixed,
    };
    start_search(&mut s, cfg);
    s
}

fn start_search(s: &mut Slot, cfg: &SelfPlayConfig) {
    let m = &cfg.mcts;
    s.full = m.full_search_prob >= 1.0 || s.rng.random::<f32>() < m.full_search_prob;
    if s.fixed_to_move() {
        return;
    }
    let mut sims = if s.full {
        m.simulations
    } else {
        m.cheap_simulations
    };
    if s.game.position().side_to_move() == Side::Attackers {
        sims = (sims as f32 * cfg.attacker_sims_factor.max(0.0))
            .round()
            .max(1.0) as u32;
    }
    let full = s.full;
    let (search, rng) = s.active_mut();
    search.start(sims, full, rng);
}

/// Advances one slot until its search needs the evaluator; returns the game
/// if it finished on the way.
fn advance_slot(s: &mut Slot, cfg: &SelfPlayConfig, model_id: &str) -> Option<SelfPlayGame> {
    loop {
        let forced = s.game.legal_moves().len() == 1;
        let fixed_move = s.fixed_to_move();
        if !forced && !fixed_move && s.active_mut().0.advance() == Advance::NeedsEval {
            return None;
        }
        let ply = s.game.plies().len() as u32;
        let temp = if ply < cfg.mcts.temperature_plies {
            cfg.mcts.temperature
        } else {
            0.0
        };
        let pos = *s.game.position();
        let (mv, record) = if forced {
            let mv = s.game.legal_moves()[0];
            (mv, None)
        } else if let Some(f) = s.fixed.as_mut().filter(|_| fixed_move) {
            (f.player.choose(&s.game), None)
        } else {
            let (search, rng) = s.active_mut();
            let (mv, stats) = search.choose(temp, rng);
            (mv, Some(stats))
        };
        // A past net's moves teach the value (its game's result) but not
        // the policy: their searches are not the current net's. A fixed
        // opponent's moves have no search at all (`record` is None).
        let past_move = s.past_to_move();
        let reps = pos.repetitions(s.game.history()).min(255) as u8;
        let (visits, target, value, draw) = match &record {
            Some(st) => {
                let mut v = Vec::new();
                let mut t = Vec::new();
                for ((m, n), p) in st.visits.iter().zip(&st.target) {
                    if let Some(i) = m.policy_index() {
                        v.push((i, *n));
                        t.push(*p);
                    }
                }
                (v, t, st.value, st.draw)
            }
            None => (Vec::new(), Vec::new(), 0.0, 0.0),
        };
        s.positions.push(PositionRecord {
            ply,
            board: *pos.board(),
            side_to_move: pos.side_to_move(),
            quiet_plies: pos.quiet_plies().min(u16::MAX as u32) as u16,
            repetitions: reps,
            visits,
            target,
            root_value: value,
            root_draw: draw,
            full_search: s.full && record.is_some() && !past_move,
            mv: mv.to_string(),
            move_index: mv.policy_index(),
        });
        s.game
            .play(mv)
            .expect("searches and opponents return legal moves");
        let capped = s.game.plies().len() as u32 >= cfg.max_plies;
        if s.game.is_over() || capped {
            let o = s.game.outcome();
            return Some(SelfPlayGame {
                game_id: s.id,
                rules: s.game.rules().name().to_string(),
                rules_hash: s.game.rules().hash,
                model_id: model_id.to_string(),
                seed: s.seed,
                result: o.map(|o| o.result),
                reason: o.map(|o| o.reason),
                plies: s.game.plies().len() as u32,
                moves: s
                    .game
                    .plies()
                    .iter()
                    .map(|p| p.record().to_string())
                    .collect(),
                positions: std::mem::take(&mut s.positions),
            });
        }
        s.search.advance_root(mv, &s.game);
        if let Some(p) = &mut s.past {
            p.search.advance_root(mv, &s.game);
        }
        start_search(s, cfg);
    }
}

/// How many games to play, from which seed, numbered from where, on how
/// many threads.
#[derive(Clone, Copy, Debug)]
pub struct SelfPlayJob {
    pub games: u64,
    pub seed: u64,
    /// The first game's id; the others follow one by one.
    pub first_id: u64,
    pub threads: usize,
}

/// Plays the job's games; `on_game` receives each finished game (in the
/// order they finish, which the seed fixes) with the running counters.
pub fn run_selfplay(
    rules: Arc<RuleSet>,
    evaluator: &dyn Evaluator,
    cfg: &SelfPlayConfig,
    job: SelfPlayJob,
    on_game: &mut dyn FnMut(SelfPlayGame, &SelfPlayStats),
) -> SelfPlayStats {
    run_selfplay_against(rules, evaluator, Opponents::default(), cfg, job, on_game)
}

/// `run_selfplay`, with a share `cfg.past_share` of the games played
/// against one of the `opponents.past` nets: it plays one side (attackers
/// or defenders, equally often) with a search of its own, and its
/// positions carry the game's result but no policy target. Likewise a
/// share `cfg.opponent_share` against `opponents.fixed`, on the side
/// `cfg.opponent_plays`; those games have no past net. Without such
/// opponents, or with shares of 0, the games are those of `run_selfplay`.
pub fn run_selfplay_against(
    rules: Arc<RuleSet>,
    evaluator: &dyn Evaluator,
    opponents: Opponents<'_>,
    cfg: &SelfPlayConfig,
    job: SelfPlayJob,
    on_game: &mut dyn FnMut(SelfPlayGame, &SelfPlayStats),
) -> SelfPlayStats {
    let SelfPlayJob {
        games,
        seed,
        first_id,
        threads,
    } = job;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .expect("thread pool");
    let start = Instant::now();
    let mut stats = SelfPlayStats::default();
    let width = cfg.concurrent_games.max(1);
    let model_id = evaluator.id();
    let mut next_id = first_id;
    let mut slots: Vec<Slot> = Vec::new();
    while (slots.len() as u64) < games.min(width as u64) {
        slots.push(new_slot(&rules, cfg, seed, next_id, opponents));
        next_id += 1;
    }
    while !slots.is_empty() {
        // Search every game to its next leaf.
        let finished: Vec<Option<SelfPlayGame>> = pool.install(|| {
            slots
                .par_iter_mut()
                .map(|s| advance_slot(s, cfg, &model_id))
                .collect()
        });
        let mut keep = Vec::with_capacity(slots.len());
        for (slot, done) in std::mem::take(&mut slots).into_iter().zip(finished) {
            match done {
                None => keep.push(slot),
                Some(g) => {
                    stats.count(&g);
                    stats.seconds = start.elapsed().as_secs_f64();
                    on_game(g, &stats);
                    if next_id < first_id + games {
                        let mut fresh = new_slot(&rules, cfg, seed, next_id, opponents);
                        next_id += 1;
                        if let Some(g) = advance_slot(&mut fresh, cfg, &model_id) {
                            // A game decided without any evaluation (forced moves only).
                            stats.count(&g);
                            on_game(g, &stats);
                        } else {
                            keep.push(fresh);
                        }
                    }
                }
            }
        }
        slots = keep;
        if slots.is_empty() {
            break;
        }
        // One batch for all leaves.
        let t = Instant::now();
        let evals = evaluate_leaves(&slots, evaluator, opponents.past);
        stats.eval_seconds += t.elapsed().as_secs_f64();
        stats.evaluations += evals.len() as u64;
        stats.batches += 1;
        stats.fill_sum += evals.len() as f64 / width as f64;
        if next_id < first_id + games {
            stats.steady_fill_sum += evals.len() as f64 / width as f64;
            stats.steady_batches += 1;
        }
        pool.install(|| {
            slots
                .par_iter_mut()
                .zip(evals.par_iter())
                .for_each(|(s, e)| {
                    let (search, rng) = s.active_mut();
                    search.apply(e, rng)
                })
        });
    }
    stats.seconds = start.elapsed().as_secs_f64();
    stats
}

/// Every slot's waiting leaf, evaluated by the net of the side to move
/// there: one batch per net, answers in slot order.
fn evaluate_leaves(
    slots: &[Slot],
    evaluator: &dyn Evaluator,
    past: &[&dyn Evaluator],
) -> Vec<brandubh_mcts::evaluator::Evaluation> {
    if slots.iter().all(|s| s.evaluator() == 0) {
        let requests: Vec<EvalRequest<'_>> =
            slots.iter().map(|s| s.active().leaf_request()).collect();
        return evaluator.evaluate(&requests);
    }
    let mut out = vec![None; slots.len()];
    for (k, net) in std::iter::once(evaluator)
        .chain(past.iter().copied())
        .enumerate()
    {
        let (index, requests): (Vec<usize>, Vec<EvalRequest<'_>>) = slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.evaluator() == k)
            .map(|(i, s)| (i, s.active().leaf_request()))
            .unzip();
        if requests.is_empty() {
            continue;
        }
        for (i, e) in index.into_iter().zip(net.evaluate(&requests)) {
            out[i] = Some(e);
        }
    }
    out.into_iter()
        .map(|e| e.expect("every slot's leaf is evaluated"))
        .collect()
}
