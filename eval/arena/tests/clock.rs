//! Time management: how long a player thinks under a clock, how a move's
//! time is charged, and players (alpha-beta and MCTS) keeping to their time.

use brandubh_arena::run_match;
use brandubh_arena::{charge, MatchConfig, TimeControl};
use brandubh_play::{GameClock, PlayerSpec};
use brandubh_rules::{Game, RuleSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// An MCTS player of `spec` with equal priors (seed 1).
fn uniform_mcts(rules: &Arc<RuleSet>, spec: &str) -> brandubh_play::MctsPlayer {
    PlayerSpec::parse(spec)
        .unwrap()
        .build_mcts(rules, 1, &brandubh_play::PlayContext::uniform_only())
        .unwrap()
}

fn clock(remaining: u64, inc: u64, overtime: u64, periods: u32) -> GameClock {
    GameClock {
        remaining: ms(remaining),
        increment: ms(inc),
        overtime: ms(overtime),
        overtime_periods: periods,
        moves_to_go: None,
    }
}

/// One pair in wtf under `clock`, no opening, one game at a time.
fn clocked_match(a: &str, b: &str, clock: TimeControl) -> MatchConfig {
    MatchConfig {
        rules: Arc::new(RuleSet::builtin("wtf").unwrap()),
        a: PlayerSpec::parse(a).unwrap(),
        b: PlayerSpec::parse(b).unwrap(),
        pairs: 1,
        openings: 0,
        seed: 1,
        max_plies: 40,
        threads: 1,
        sprt: None,
        swap_sides: true,
        balanced: None,
        clock: Some(clock),
        ctx: brandubh_play::PlayContext::uniform_only(),
    }
}

#[test]
fn the_budget_spreads_main_time_and_uses_the_increment() {
    // 60 s, nothing added: a thirtieth of it.
    assert_eq!(clock(60_000, 0, 0, 0).budget(), ms(2_000));
    // An increment adds three quarters of itself.
    assert_eq!(clock(60_000, 1_000, 0, 0).budget(), ms(2_750));
    // Moves to go divide the main time among them.
    let c = GameClock {
        moves_to_go: Some(10),
        ..clock(60_000, 0, 0, 0)
    };
    assert_eq!(c.budget(), ms(6_000));
    // One move to go may not take more than half of what is left
    // (nothing comes back after it), less the safety margin.
    let c = GameClock {
        moves_to_go: Some(1),
        ..clock(10_000, 0, 0, 0)
    };
    assert_eq!(c.budget(), ms(5_000) - brandubh_play::clock::SAFETY_MARGIN);
}

#[test]
fn the_budget_never_exceeds_what_the_clock_allows() {
    for remaining in [0u64, 1, 10, 100, 1_000, 10_000, 1_000_000] {
        for inc in [0u64, 100, 5_000] {
            for (overtime, periods) in [(0u64, 0u32), (1_000, 1), (5_000, 3)] {
                let c = clock(remaining, inc, overtime, periods);
                let b = c.budget();
                assert!(b >= ms(1), "{c:?}");
                // What can be spent without losing: the main time and one period.
                let spendable = ms(remaining) + if periods > 0 { ms(overtime) } else { ms(0) };
                if spendable > ms(40) {
                    assert!(b < spendable, "{c:?}: budget {b:?}");
                    // Charging the budget never loses on time.
                    let mut after = c;
                    assert!(charge(&mut after, b), "{c:?}: budget {b:?} loses on time");
                }
            }
        }
    }
}

#[test]
fn overtime_is_used_when_the_main_time_is_gone() {
    // Main time spent, three 5 s periods: think most of one period.
    let b = clock(0, 0, 5_000, 3).budget();
    assert!(b >= ms(3_000) && b < ms(5_000), "{b:?}");
}

#[test]
fn charging_spends_main_time_then_periods() {
    let mut c = clock(1_000, 500, 0, 0);
    assert!(charge(&mut c, ms(400)));
    assert_eq!(c.remaining, ms(1_100), "600 left, plus the increment");
    assert!(!charge(&mut c, ms(1_200)), "more than is left loses");

    let mut c = clock(1_000, 0, 2_000, 2);
    assert!(charge(&mut c, ms(2_500)), "1.5 s into the first period");
    assert_eq!(
        (c.remaining, c.overtime_periods),
        (ms(0), 2),
        "within a period keeps it"
    );
    assert!(charge(&mut c, ms(3_000)), "overruns one period");
    assert_eq!(c.overtime_periods, 1);
    assert!(!charge(&mut c, ms(4_500)), "overruns the last period");
}

#[test]
fn alpha_beta_keeps_to_its_clock_budget() {
    let rules = Arc::new(RuleSet::builtin("wtf").unwrap());
    let mut p = PlayerSpec::parse("alphabeta:ms=100000")
        .unwrap()
        .build(&rules, 1, &brandubh_play::PlayContext::uniform_only())
        .unwrap();
    let g = Game::new(rules.clone());
    let c = clock(3_000, 0, 0, 0);
    let t = Instant::now();
    let mv = p.choose(&g, Some(&c)).unwrap();
    let spent = t.elapsed();
    assert!(g.legal_moves().contains(&mv));
    // The clock (100 ms for this move), not the spec's 100 s, decides.
    assert!(
        spent < ms(1_000),
        "{spent:?} for a budget of {:?}",
        c.budget()
    );
}

#[test]
fn a_clocked_match_charges_each_player_and_records_move_times() {
    let cfg = MatchConfig {
        openings: 2,
        seed: 4,
        ..clocked_match(
            "alphabeta:depth=2",
            "mcts:sims=64",
            TimeControl {
                main: ms(2_000),
                increment: ms(20),
                ..TimeControl::default()
            },
        )
    };
    let (summary, games) = run_match(&cfg, None, &|_| {}).unwrap();
    assert_eq!(games.len(), 2);
    for g in &games {
        assert_eq!(g.move_us.len(), g.moves.len(), "one time per move played");
        assert_ne!(g.reason.map(|r| r.as_str()), Some("time_forfeit"), "{g:?}");
    }
    let moves: u64 = games.iter().map(|g| g.moves.len() as u64).sum();
    assert_eq!(summary.a_times.moves + summary.b_times.moves, moves);
    assert!(summary.a_times.max_ms >= summary.a_times.mean_ms);
}

#[test]
fn a_player_out_of_time_loses_on_time() {
    // A nanosecond of main time runs out on the first move.
    let cfg = MatchConfig {
        swap_sides: false,
        ..clocked_match(
            "alphabeta:depth=5",
            "random",
            TimeControl {
                main: Duration::from_nanos(1),
                ..TimeControl::default()
            },
        )
    };
    let (_, games) = run_match(&cfg, None, &|_| {}).unwrap();
    assert_eq!(games[0].reason.map(|r| r.as_str()), Some("time_forfeit"));
    assert_eq!(games[0].result.as_str(), "defenders_win");
}

#[test]
fn mcts_keeps_to_its_time_per_move() {
    let rules = Arc::new(RuleSet::builtin("modern").unwrap());
    let mut p = uniform_mcts(&rules, "mcts:ms=150,batch=8");
    let mut g = Game::new(rules.clone());
    for _ in 0..3 {
        let t = Instant::now();
        let r = p.search(&g, None).clone();
        let spent = t.elapsed();
        assert!(spent < ms(300), "{spent:?} for 150 ms");
        assert!(
            r.simulations > 50,
            "{} simulations in 150 ms",
            r.simulations
        );
        assert_eq!(r.budget, Some(ms(150)));
        assert_eq!(r.moves[0].mv, r.best, "the most visited move is played");
        g.play(r.best).unwrap();
        // The opponent's reply: the most visited answer, so its subtree is big.
        let reply = r.moves[0].pv[1];
        g.play(reply).unwrap();
    }
}

/// A player that searched 20 000 simulations, then two plies on, under
/// `budget`: the report of that search.
fn search_after_a_kept_tree(budget: Duration) -> brandubh_play::MctsReport {
    let rules = Arc::new(RuleSet::builtin("modern").unwrap());
    let mut p = uniform_mcts(&rules, "mcts:sims=20000,batch=8");
    let mut g = Game::new(rules.clone());
    let r = p.search(&g, None).clone();
    g.play(r.best).unwrap();
    g.play(r.moves[0].pv[1]).unwrap();
    p.search(&g, Some(budget)).clone()
}

/// The tree is kept from move to move under a time limit too: the root
/// keeps the visits of the subtree the last search built.
#[test]
fn mcts_keeps_its_tree_under_a_time_limit() {
    let r = search_after_a_kept_tree(ms(1000));
    assert!(
        r.root_visits > r.simulations,
        "{} root visits, {} new simulations",
        r.root_visits,
        r.simulations
    );
    // A second's budget keeps up to a million edges: the whole subtree.
    assert!(r.kept_edges > 1_000, "{} edges kept", r.kept_edges);
}

#[test]
fn mcts_keeps_no_more_of_its_tree_than_its_budget_allows() {
    // One millisecond keeps `KEPT_EDGES_PER_MS` edges, far fewer than the
    // subtree a second keeps (the test above).
    let r = search_after_a_kept_tree(ms(1));
    assert!(
        r.kept_edges > 0 && r.kept_edges <= brandubh_play::mcts_player::KEPT_EDGES_PER_MS,
        "{} edges kept",
        r.kept_edges
    );
}

#[test]
fn mcts_under_a_clock_thinks_within_the_budget() {
    let rules = Arc::new(RuleSet::builtin("wtf").unwrap());
    let mut p = uniform_mcts(&rules, "mcts:sims=100000000");
    let g = Game::new(rules.clone());
    let c = clock(4_000, 0, 0, 0);
    let t = Instant::now();
    let r = p.search(&g, Some(c.budget())).clone();
    let spent = t.elapsed();
    assert!(
        spent < c.budget() + ms(100),
        "{spent:?} for {:?}",
        c.budget()
    );
    assert!(spent > c.budget() / 2, "stopped early: {spent:?}");
    assert!(g.legal_moves().contains(&r.best));
}
