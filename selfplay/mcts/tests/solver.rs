//! The MCTS-solver: every win or loss it proves is checked by an
//! independent brute-force search over the rules engine, its choice at the
//! root honours its proofs, and a proven subtree survives tree reuse.

mod common;
use common::ALL;

use brandubh_mcts::*;
use brandubh_rules::{Game, GameResult, Move, RuleSet};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

fn solver() -> MctsConfig {
    MctsConfig {
        solver: true,
        ..MctsConfig::default()
    }
}

/// The side to move's exact result within `depth` plies by full-width
/// minimax over the engine's own moves and outcomes: 1 a forced win, −1 a
/// forced loss, 0 neither (a draw, or not decided that soon).
fn forced(g: &mut Game, depth: u8) -> i32 {
    if let Some(o) = g.outcome() {
        return match o.result {
            GameResult::Draw => 0,
            r if r == GameResult::win_for(g.side_to_move()) => 1,
            _ => -1,
        };
    }
    if depth == 0 {
        return 0;
    }
    let moves: Vec<Move> = g.legal_moves().iter().copied().collect();
    let mut best = -1;
    for mv in moves {
        g.play(mv).expect("a legal move");
        let v = -forced(g, depth - 1);
        g.undo();
        if v == 1 {
            return 1;
        }
        best = best.max(v);
    }
    best
}

/// Searches `sims` more simulations with the uniform evaluator.
fn run(s: &mut Search, sims: u32, rng: &mut ChaCha8Rng) {
    s.start(sims, false, rng);
    while s.advance() == Advance::NeedsEval {
        let e = UniformEvaluator.evaluate(&[s.leaf_request()]);
        s.apply(&e[0], rng);
    }
}

/// A solver search of `sims` simulations from `g`.
fn searched(g: &Game, sims: u32, rng: &mut ChaCha8Rng) -> Search {
    let mut s = Search::new(g.rules().clone(), solver(), g);
    run(&mut s, sims, rng);
    s
}

/// Positions from seeded random games, late enough for the king to be
/// near the corners, in every rule set.
fn positions(per_rules: usize) -> Vec<Game> {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut out = Vec::new();
    for name in ALL {
        let rules = Arc::new(RuleSet::builtin(name).unwrap());
        let wanted = out.len() + per_rules;
        while out.len() < wanted {
            let mut g = Game::new(rules.clone());
            let plies = rng.random_range(8..30);
            for _ in 0..plies {
                if g.is_over() {
                    break;
                }
                let moves = g.legal_moves();
                let mv = moves.as_slice()[rng.random_range(0..moves.len())];
                g.play(mv).unwrap();
            }
            if !g.is_over() {
                out.push(g);
            }
        }
    }
    out
}

#[test]
fn every_proof_holds_under_brute_force_and_the_choice_follows_them() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let (mut checked, mut wins, mut losses, mut root_wins) = (0, 0, 0, 0);
    for g in positions(12) {
        let s = searched(&g, 1500, &mut rng);
        let proofs = s.proofs();
        for (line, v, plies) in &proofs {
            assert!(*plies >= 1, "a proof needs a move");
            if *plies > 4 {
                continue; // deeper proofs cost brute force too much time
            }
            let mut at = g.clone();
            for &mv in line {
                at.play(mv).unwrap();
            }
            assert_eq!(
                forced(&mut at, *plies) as f32,
                *v,
                "{}: after {line:?} the solver claims {v} within {plies} plies",
                g.rules().name()
            );
            checked += 1;
            if *v > 0.0 {
                wins += 1;
            } else {
                losses += 1;
            }
        }
        // At the root: a move into a proven loss for the opponent is a
        // proven win, and is played; a proven loss is played only when
        // every move is one.
        let root: Vec<(Move, f32)> = proofs
            .iter()
            .filter(|p| p.0.len() == 1)
            .map(|p| (p.0[0], -p.1))
            .collect();
        let (mv, _) = s.choose(0.0, &mut rng);
        let value_of = |m: Move| root.iter().find(|r| r.0 == m).map(|r| r.1);
        if root.iter().any(|r| r.1 > 0.0) {
            root_wins += 1;
            assert_eq!(value_of(mv), Some(1.0), "{mv} is not a proven win");
        } else if value_of(mv) == Some(-1.0) {
            let n = g.legal_moves().len();
            assert_eq!(
                root.iter().filter(|r| r.1 < 0.0).count(),
                n,
                "{mv} is a proven loss with another move open"
            );
        }
    }
    // The test means something only if the searches proved both kinds.
    assert!(checked >= 20, "only {checked} proofs checked");
    assert!(wins > 0 && losses > 0, "wins {wins}, losses {losses}");
    assert!(root_wins > 0, "no root position had a proven win");
}

#[test]
fn the_solver_off_proves_nothing() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    for g in positions(2) {
        let mut s = Search::new(g.rules().clone(), MctsConfig::default(), &g);
        run(&mut s, 600, &mut rng);
        assert!(s.proofs().is_empty());
    }
}

#[test]
fn a_proven_subtree_survives_tree_reuse() {
    // Find a position whose search proves a line two moves deep, play
    // into it, and keep searching from the proven node.
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let mut kept = 0;
    for g in positions(6) {
        let mut s = searched(&g, 1500, &mut rng);
        let Some((line, v, _)) = s.proofs().into_iter().find(|p| p.0.len() == 2) else {
            continue;
        };
        let mut after = g.clone();
        after.play(line[0]).unwrap();
        let before = s.tree_size();
        s.advance_root(line[0], &after);
        let size = s.tree_size();
        assert!(size > 1 && size < before, "kept {size} of {before} nodes");
        run(&mut s, 200, &mut rng);
        // The proof one move down is still there, now one move from the root.
        let again = s.proofs();
        let child = again.iter().find(|p| p.0 == [line[1]]);
        assert_eq!(child.map(|p| p.1), Some(v), "proof of {line:?} lost");
        let (mv, _) = s.choose(0.0, &mut rng);
        assert!(after.legal_moves().contains(&mv));
        kept += 1;
    }
    assert!(kept > 0, "no position proved a line two moves deep");
}
