//! The batched search of one game (several leaves in flight, virtual
//! loss): it finds what the one-leaf search finds on tactical positions,
//! spreads a batch over distinct leaves, counts every simulation once, and
//! leaves no virtual loss behind.

mod common;
use common::{game, puct, ALL};

use brandubh_mcts::*;
use brandubh_rules::{Bitboard, Game, GameResult, Move, Position, RuleSet, Side};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::HashSet;
use std::sync::Arc;

/// Searches `sims` simulations with `batch` leaves per evaluation,
/// checking after every step that the virtual loss is back to zero and
/// that a batch's leaves are distinct positions.
fn batched(g: &Game, cfg: MctsConfig, sims: u32, batch: usize) -> (Move, RootStats, Search) {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut s = Search::new(g.rules().clone(), cfg, g);
    s.start(sims, false, &mut rng);
    loop {
        let n = s.gather(batch);
        if n == 0 {
            break;
        }
        assert!(n <= batch);
        let requests = s.leaf_requests();
        assert_eq!(requests.len(), n);
        // Distinct nodes; in a tree without transpositions that is distinct
        // (position, path) pairs, so at least the leaves are not one node twice.
        let ptrs: HashSet<*const Position> =
            requests.iter().map(|r| r.position as *const _).collect();
        assert_eq!(ptrs.len(), n, "a leaf twice in one batch");
        if n > 1 {
            assert!(
                s.virtual_loss_left() > 0,
                "leaves in flight carry a virtual loss"
            );
        }
        let evals = UniformEvaluator.evaluate(&requests);
        s.apply_batch(&evals, &mut rng);
        assert_eq!(s.virtual_loss_left(), 0, "virtual loss left behind");
        assert_eq!(s.pending_leaves(), 0);
    }
    assert_eq!(s.simulations(), sims, "every simulation counted once");
    let (mv, st) = s.choose(0.0, &mut rng);
    (mv, st, s)
}

/// Runs a started search to its end one leaf at a time with `eval`.
fn finish_one_leaf(s: &mut Search, eval: &dyn Evaluator, rng: &mut ChaCha8Rng) {
    while s.advance() == Advance::NeedsEval {
        let e = eval.evaluate(&[s.leaf_request()]);
        s.apply(&e[0], rng);
    }
}

fn one_leaf(g: &Game, cfg: MctsConfig, sims: u32) -> Move {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut s = Search::new(g.rules().clone(), cfg, g);
    s.start(sims, false, &mut rng);
    finish_one_leaf(&mut s, &UniformEvaluator, &mut rng);
    s.choose(0.0, &mut rng).0
}

#[test]
fn batched_search_finds_the_escape_in_one() {
    for name in ALL {
        let g = game(name, "f6 e5 c6", "c4", "a3", Side::Defenders);
        let single = one_leaf(&g, puct(), 64);
        assert_eq!(single.to_string(), "a3-a1");
        for batch in [2, 8, 16] {
            let (mv, _, _) = batched(&g, puct(), 64, batch);
            assert_eq!(mv, single, "{name} batch {batch}");
        }
    }
}

#[test]
fn batched_search_finds_the_king_capture_in_one() {
    for name in ALL {
        let g = game(name, "b6 d6 c7 e5", "g2", "c6", Side::Attackers);
        for batch in [1, 8, 16] {
            let (mv, _, _) = batched(&g, puct(), 200, batch);
            let mut after = g.clone();
            after.play(mv).unwrap();
            assert_eq!(
                after.outcome().map(|o| o.result),
                Some(GameResult::AttackersWin),
                "{name} batch {batch}: {mv}"
            );
        }
    }
}

#[test]
fn batched_search_blocks_the_escape_in_one() {
    // With flat priors, seeing that a move lets the king out takes the
    // search a visit to that reply below every careless move; leaves chosen
    // under virtual loss spread wider, and needed 800 simulations here
    // where one leaf at a time needed 200 (docs/arena.md).
    for name in ALL {
        let g = game(name, "e2 f6 e6 c3", "a4", "a3", Side::Attackers);
        for (batch, sims) in [(1, 400), (8, 800), (16, 800)] {
            let (mv, _, _) = batched(&g, puct(), sims, batch);
            let mut after = g.clone();
            after.play(mv).unwrap();
            let escapes = after
                .legal_moves()
                .iter()
                .any(|m| Bitboard::CORNERS.contains(m.to));
            assert!(
                !escapes,
                "{name} batch {batch}: {mv} leaves the escape open"
            );
        }
    }
}

#[test]
fn batched_visits_add_up_with_gumbel_and_puct() {
    let g = Game::new(Arc::new(RuleSet::builtin("wtf").unwrap()));
    for gumbel in [false, true] {
        let cfg = MctsConfig {
            gumbel,
            ..MctsConfig::default()
        };
        let (_, st, s) = batched(&g, cfg, 300, 16);
        let total: u32 = st.visits.iter().map(|v| v.1).sum();
        assert_eq!(
            total, 299,
            "gumbel={gumbel}: the root's own evaluation is the first"
        );
        let a = s.analysis();
        assert_eq!(a.iter().map(|m| m.visits).sum::<u32>(), 299);
        assert!(a.windows(2).all(|w| w[0].visits >= w[1].visits), "sorted");
        for m in a.iter().filter(|m| m.visits > 0) {
            let w = m.wdl.unwrap();
            assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-3, "{w:?}");
            assert_eq!(m.pv[0], m.mv);
        }
    }
}

#[test]
fn cancelling_leaves_in_flight_takes_their_virtual_loss_back() {
    let g = Game::new(Arc::new(RuleSet::builtin("modern").unwrap()));
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut s = Search::new(g.rules().clone(), MctsConfig::default(), &g);
    s.start(1000, false, &mut rng);
    let n = s.gather(16);
    assert_eq!(n, 1, "the root alone waits first");
    let e = UniformEvaluator.evaluate(&s.leaf_requests());
    s.apply_batch(&e, &mut rng);
    assert!(s.gather(16) > 1);
    assert!(s.virtual_loss_left() > 0);
    s.cancel_pending();
    assert_eq!(s.virtual_loss_left(), 0);
    assert_eq!(s.pending_leaves(), 0);
    // The tree still searches normally afterwards, and moving the root
    // with leaves in flight drops them too.
    assert!(s.gather(16) > 1);
    let mv = g.legal_moves()[0];
    let mut after = g.clone();
    after.play(mv).unwrap();
    s.advance_root(mv, &after);
    assert_eq!(s.virtual_loss_left(), 0);
}

#[test]
fn gumbel_target_improves_on_the_net_prior_not_the_noised_one() {
    // Flat priors, full Dirichlet noise: the noise must not reach the
    // target, so every move the halving never visited keeps an equal share.
    let g = Game::new(Arc::new(RuleSet::builtin("wtf").unwrap()));
    let cfg = MctsConfig {
        gumbel: true,
        gumbel_considered: 4,
        dirichlet_epsilon: 1.0,
        ..MctsConfig::default()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let mut s = Search::new(g.rules().clone(), cfg, &g);
    s.start(16, true, &mut rng);
    finish_one_leaf(&mut s, &UniformEvaluator, &mut rng);
    let (_, st) = s.choose(0.0, &mut rng);
    let unvisited: Vec<f32> = st
        .visits
        .iter()
        .zip(&st.target)
        .filter(|((_, v), _)| *v == 0)
        .map(|(_, t)| *t)
        .collect();
    assert!(unvisited.len() > 10);
    for t in &unvisited {
        assert!((t - unvisited[0]).abs() < 1e-6, "{unvisited:?}");
    }
}

/// Moving the root within an edge budget keeps no more edges than that,
/// nearest the root first: the new root keeps its moves and their visits,
/// a node left out is searched afresh, and the search goes on normally.
#[test]
fn a_kept_tree_stays_within_its_edge_budget() {
    let g = Game::new(Arc::new(RuleSet::builtin("modern").unwrap()));
    let (mv, _, mut all) = batched(&g, MctsConfig::default(), 2000, 8);
    let mut after = g.clone();
    after.play(mv).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    all.advance_root(mv, &after);
    let (_, kept_all) = all.choose(0.0, &mut rng);
    assert!(all.edge_count() > 1_000, "{} edges", all.edge_count());
    let (_, _, mut some) = batched(&g, MctsConfig::default(), 2000, 8);
    some.advance_root_within(mv, &after, 1_000);
    assert!(some.edge_count() <= 1_000, "{} edges", some.edge_count());
    assert!(some.tree_size() < all.tree_size());
    let (_, kept_some) = some.choose(0.0, &mut rng);
    assert_eq!(
        kept_some.visits, kept_all.visits,
        "the root's moves keep their visits"
    );
    some.start(500, false, &mut rng);
    while some.advance() == Advance::NeedsEval {
        let e = UniformEvaluator.evaluate(&[some.leaf_request()]);
        some.apply(&e[0], &mut rng);
    }
    assert_eq!(some.simulations(), 500);
}

/// Priors falling off geometrically (each move half the one before), a
/// drawn value: a net that is sure of its first move.
struct Skewed;

impl Evaluator for Skewed {
    fn evaluate(&self, batch: &[EvalRequest<'_>]) -> Vec<Evaluation> {
        batch
            .iter()
            .map(|r| {
                let raw: Vec<f32> = (0..r.moves.len()).map(|i| 0.5f32.powi(i as i32)).collect();
                let sum: f32 = raw.iter().sum();
                Evaluation {
                    priors: raw.iter().map(|p| p / sum).collect(),
                    wdl: [0.0, 1.0, 0.0],
                    moves_left: None,
                }
            })
            .collect()
    }
    fn id(&self) -> String {
        "skewed".into()
    }
}

/// The root's priors, in the evaluator's move order, after one simulation.
fn root_priors(g: &Game, policy_temperature: f32) -> Vec<f32> {
    let cfg = MctsConfig {
        policy_temperature,
        dirichlet_epsilon: 0.0,
        ..MctsConfig::default()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut s = Search::new(g.rules().clone(), cfg, g);
    s.start(1, false, &mut rng);
    finish_one_leaf(&mut s, &Skewed, &mut rng);
    let by_move: std::collections::HashMap<Move, f32> =
        s.analysis().iter().map(|a| (a.mv, a.prior)).collect();
    g.legal_moves().iter().map(|m| by_move[m]).collect()
}

#[test]
fn the_policy_temperature_flattens_the_priors_and_one_leaves_them() {
    let g = Game::new(Arc::new(RuleSet::builtin("wtf").unwrap()));
    let n = g.legal_moves().len();
    // Searches leave the priors alone unless a config says otherwise.
    assert_eq!(MctsConfig::default().policy_temperature, 1.0);
    let plain = root_priors(&g, 1.0);
    // T = 1: the evaluator's priors unchanged, halving from move to move.
    for i in 1..n.min(12) {
        assert!((plain[i] / plain[i - 1] - 0.5).abs() < 1e-3, "{plain:?}");
    }
    // T = 2: each prior's square root, renormalised, so each move's prior
    // is 1/sqrt(2) of the one before and they still sum to 1.
    let warm = root_priors(&g, 2.0);
    assert!((warm.iter().sum::<f32>() - 1.0).abs() < 1e-4);
    for i in 1..n.min(12) {
        assert!(
            (warm[i] / warm[i - 1] - 0.5f32.sqrt()).abs() < 1e-3,
            "{warm:?}"
        );
    }
    assert!(warm[0] < plain[0] && warm[8] > plain[8]);
    // T = 0.5 sharpens: the first move takes more than before.
    assert!(root_priors(&g, 0.5)[0] > plain[0]);
}

/// The most walks one `gather` call made in a search of 5 000 simulations
/// from the king-capture-in-one position, where most walks end on the
/// capture, a finished game that needs no evaluation.
fn longest_gather(deadline_passed: bool) -> u32 {
    let g = game("ludii", "b6 d6 c7 e5", "g2", "c6", Side::Attackers);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut s = Search::new(g.rules().clone(), puct(), &g);
    s.start(5_000, false, &mut rng);
    if deadline_passed {
        s.set_deadline(Some(std::time::Instant::now()));
    }
    let mut longest = 0;
    loop {
        let before = s.simulations();
        let n = s.gather(8);
        longest = longest.max(s.simulations() - before + n as u32);
        if n == 0 {
            break;
        }
        let evals = UniformEvaluator.evaluate(&s.leaf_requests());
        s.apply_batch(&evals, &mut rng);
    }
    longest
}

#[test]
fn a_passed_deadline_stops_walks_that_need_no_evaluation() {
    let free = longest_gather(false);
    assert!(
        free > 100,
        "the position gives long runs of finished walks: {free}"
    );
    let stopped = longest_gather(true);
    assert!(
        stopped <= 32,
        "{stopped} walks in one gather after the deadline"
    );
}
