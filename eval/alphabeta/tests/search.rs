//! The alpha-beta baseline on hand-made positions in every rule set.

use brandubh_alphabeta::{evaluation::EvalWeights, time::Limits, Searcher, WIN};
use brandubh_rules::testing::{game, squares, ALL};
use brandubh_rules::{Bitboard, Game, GameResult, RuleSet, Side};
use std::sync::Arc;

/// The thread counts every tactical test is run with.
const THREADS: [usize; 2] = [1, 2];

fn search(g: &Game, depth: u32) -> brandubh_alphabeta::SearchResult {
    search_on(g, depth, 1)
}

fn search_on(g: &Game, depth: u32, threads: usize) -> brandubh_alphabeta::SearchResult {
    let mut s = Searcher::new(g.rules().clone(), EvalWeights::default(), 4);
    s.set_threads(threads);
    s.search(
        g,
        Limits {
            depth: Some(depth),
            ..Limits::default()
        },
    )
}

#[test]
fn finds_escape_in_one() {
    for (threads, name) in THREADS
        .iter()
        .flat_map(|&t| ALL.iter().map(move |&n| (t, n)))
    {
        let g = game(name, "f6 e5 c6", "c4", "a3", Side::Defenders);
        let r = search_on(&g, 3, threads);
        assert_eq!(r.best.to_string(), "a3-a1", "{name} on {threads} threads");
        assert_eq!(r.score, WIN - 1, "{name} on {threads} threads");
    }
}

#[test]
fn finds_king_capture_in_one() {
    for (threads, name) in THREADS
        .iter()
        .flat_map(|&t| ALL.iter().map(move |&n| (t, n)))
    {
        let mut g = game(name, "b6 d6 c7 e5", "g2", "c6", Side::Attackers);
        let r = search_on(&g, 3, threads);
        g.play(r.best).unwrap();
        assert_eq!(
            g.outcome().map(|o| o.result),
            Some(GameResult::AttackersWin),
            "{name} on {threads} threads: {}",
            r.best
        );
    }
}

#[test]
fn takes_a_hanging_man() {
    for name in ALL {
        // The defender on c5 hangs: e5-d5? no — c7-c6 takes it against c4.
        let mut g = game(name, "c7 c4 g2", "c5", "f3", Side::Attackers);
        let r = search(&g, 2);
        let captured = g.play(r.best).unwrap();
        assert_eq!(captured, squares("c5"), "{name}: chose {}", r.best);
    }
}

#[test]
fn blocks_escape_in_one() {
    for (threads, name) in THREADS
        .iter()
        .flat_map(|&t| ALL.iter().map(move |&n| (t, n)))
    {
        // The king on a3 threatens a3-a1; a4 and c3 block his other routes.
        let mut g = game(name, "e2 f6 e6 c3", "a4", "a3", Side::Attackers);
        let r = search_on(&g, 3, threads);
        g.play(r.best).unwrap();
        let escapes = g
            .legal_moves()
            .iter()
            .any(|m| Bitboard::CORNERS.contains(m.to));
        assert!(
            !escapes,
            "{name} on {threads} threads: {} leaves the escape open",
            r.best
        );
        assert!(
            r.score > -(WIN - 100),
            "{name} on {threads} threads: should not see a forced loss, got {}",
            r.score
        );
    }
}

#[test]
fn finds_short_forced_win_with_a_fork() {
    for (threads, name) in THREADS
        .iter()
        .flat_map(|&t| ALL.iter().map(move |&n| (t, n)))
    {
        // King c2-c1 opens both a1 and g1: the attackers can close one.
        let g = game(name, "f6 e5 b6", "e3", "c2", Side::Defenders);
        let r = search_on(&g, 4, threads);
        assert_eq!(
            r.score,
            WIN - 3,
            "{name} on {threads} threads: {} {:?}",
            r.best,
            r.pv
        );
    }
}

#[test]
fn same_search_same_move() {
    let g = Game::new(Arc::new(RuleSet::builtin("wtf").unwrap()));
    let a = search(&g, 4);
    let b = search(&g, 4);
    assert_eq!((a.best, a.score, a.nodes), (b.best, b.score, b.nodes));
    assert_eq!(a.depth, 4);
}

#[test]
fn a_parallel_search_reaches_its_depth_and_stops_on_time() {
    let g = Game::new(Arc::new(RuleSet::builtin("wtf").unwrap()));
    let two = search_on(&g, 5, 2);
    assert_eq!(two.depth, 5);
    assert!(g.legal_moves().contains(&two.best));
    // A time-limited parallel search stops on time.
    let mut s = Searcher::new(g.rules().clone(), EvalWeights::default(), 4);
    s.set_threads(2);
    let t0 = std::time::Instant::now();
    let r = s.search(
        &g,
        Limits {
            millis: Some(200),
            ..Limits::default()
        },
    );
    let spent = t0.elapsed().as_secs_f64();
    assert!(spent < 1.5, "a 200 ms search took {spent} s");
    assert!(r.depth >= 1);
}

#[test]
fn evaluation_weights_file_errors_are_named() {
    let dir_guard = tempfile::Builder::new()
        .prefix("brandubh-eval-test-")
        .tempdir()
        .unwrap();
    let dir = dir_guard.path();
    let p = dir.join("bad.toml");
    std::fs::write(&p, "attacker = 100\nbogus = 3\n").unwrap();
    let e = EvalWeights::from_file(&p).unwrap_err().to_string();
    assert!(e.contains("bad.toml") && e.contains("bogus"), "{e}");
    let huge = EvalWeights {
        attacker: 100_000,
        ..EvalWeights::default()
    };
    std::fs::write(&p, huge.to_toml()).unwrap();
    let e = EvalWeights::from_file(&p).unwrap_err();
    assert!(
        matches!(
            e,
            brandubh_alphabeta::evaluation::WeightsError::TooLarge {
                key: "attacker",
                ..
            }
        ),
        "{e}"
    );
}
