//! Fitting evaluation weights to game results: the features reproduce the
//! evaluation, positions are read back from game records, and the fit
//! lowers the loss and recovers a weight that decides the results.

use brandubh_alphabeta::evaluation::EvalWeights;
use brandubh_alphabeta::{evaluation::evaluate, evaluation::features};
use brandubh_arena::{run_match, MatchConfig};
use brandubh_arena::{tune::fit, tune::loss, tune::samples, tune::Sample};
use brandubh_play::PlayerSpec;
use brandubh_rules::{Game, RuleSet, Side};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

const ALL: [&str; 5] = ["modern", "ludii", "wtf", "wtf-plain", "raven"];

/// Positions of random games.
fn random_positions(name: &str, games: usize, seed: u64) -> Vec<brandubh_rules::Position> {
    let rules = Arc::new(RuleSet::builtin(name).unwrap());
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut g = Game::new(rules.clone());
        while !g.is_over() && g.position().plies() < 80 {
            out.push(*g.position());
            let moves = g.legal_moves();
            let mv = moves[rng.random_range(0..moves.len())];
            g.play(mv).unwrap();
        }
    }
    out
}

#[test]
fn features_times_weights_is_the_evaluation() {
    let odd = EvalWeights {
        attacker: 97,
        defender: 211,
        king_corner_distance: -7,
        king_open_route: 333,
        king_double_route: 1999,
        king_route_squares: 41,
        king_fork: 1204, // not a multiple of 3: evaluate rounds king_fork / 3
        king_mobility: 5,
        king_adjacent_attacker: 37,
        corner_guard: 29,
        enclosed_defender: 61,
        tempo: 13,
    };
    for name in ALL {
        let rules = RuleSet::builtin(name).unwrap();
        for w in [EvalWeights::builtin(name), odd.clone()] {
            let arr = w.to_array();
            assert_eq!(EvalWeights::from_array(&arr), w);
            for pos in random_positions(name, 20, 3) {
                let f = features(&rules, &pos);
                let dot: f64 = arr.iter().zip(&f).map(|(a, b)| a * b).sum();
                let for_attackers = match pos.side_to_move() {
                    Side::Attackers => evaluate(&rules, &pos, &w),
                    Side::Defenders => -evaluate(&rules, &pos, &w),
                };
                // Exact but for the rounding of king_fork / 3.
                assert!(
                    (dot - for_attackers as f64).abs() < 1.0,
                    "{name}: {} vs {for_attackers} at {}",
                    dot,
                    pos.board().to_record()
                );
            }
        }
    }
}

#[test]
fn samples_come_from_every_recorded_position_after_the_skip() {
    let rules = Arc::new(RuleSet::builtin("wtf").unwrap());
    let cfg = MatchConfig {
        rules: rules.clone(),
        a: PlayerSpec::parse("alphabeta:depth=1").unwrap(),
        b: PlayerSpec::parse("random").unwrap(),
        pairs: 3,
        openings: 4,
        seed: 2,
        max_plies: 300,
        threads: 1,
        sprt: None,
        swap_sides: true,
        balanced: None,
        clock: None,
        ctx: brandubh_play::PlayContext::uniform_only(),
    };
    let (_, games) = run_match(&cfg, None, &|_| {}).unwrap();
    let got = samples(&rules, &games, 4).unwrap();
    // Every position from ply 4 on, less those with a win on the spot.
    let mut want = 0;
    for rec in &games {
        let mut g = Game::new(rules.clone());
        for (j, text) in rec.opening.iter().chain(&rec.moves).enumerate() {
            if j >= 4 && g.position().winning_move(&rules).is_none() {
                want += 1;
            }
            let mv = text.parse::<brandubh_rules::MoveRecord>().unwrap().mv;
            g.play(mv).unwrap();
        }
    }
    assert_eq!(got.len(), want);
    assert!(got.iter().all(|s| [0.0, 0.5, 1.0].contains(&s.result)));
    // A corrupt move names the game and the ply.
    let mut bad = games[0].clone();
    bad.moves[1] = "a1-a2".into();
    let err = samples(&rules, &[bad], 0).unwrap_err();
    assert_eq!((err.game, err.ply), (0, 5), "{err}");
    let text = err.to_string();
    assert!(text.contains("game 0") && text.contains("ply 5"), "{text}");
}

#[test]
fn the_fit_recovers_a_weight_that_decides_the_results() {
    // Results drawn from σ(k · true·f / 100) where the true weights value
    // open routes at 900 instead of 350: starting from the defaults, the
    // fit must lower the loss and move that weight most of the way.
    let rules = RuleSet::builtin("wtf").unwrap();
    let truth = EvalWeights {
        king_open_route: 900,
        ..EvalWeights::default()
    };
    let t = truth.to_array();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let data: Vec<Sample> = random_positions("wtf", 400, 5)
        .into_iter()
        .map(|pos| {
            let f = features(&rules, &pos);
            let z = 0.5 * t.iter().zip(&f).map(|(a, b)| a * b).sum::<f64>() / 100.0;
            let p = 1.0 / (1.0 + (-z).exp());
            Sample {
                features: f,
                result: if rng.random_range(0.0..1.0) < p {
                    1.0
                } else {
                    0.0
                },
            }
        })
        .collect();
    let start = EvalWeights::default();
    let f = fit(&data, &start, 600, 10.0);
    assert!(f.loss_after < f.loss_before, "{f:?}");
    assert!(
        (f.loss_after - loss(&data, &f.weights.to_array(), f.scale, f.offset_after)).abs() < 1e-9,
        "reported loss is the fitted weights' loss"
    );
    assert_eq!(f.weights.attacker, start.attacker, "the scale weight stays");
    assert!(
        f.weights.king_open_route > 600,
        "open route weight {} (start 350, truth 900)",
        f.weights.king_open_route
    );
}

#[test]
fn wtf_has_its_own_fitted_weights() {
    let wtf = EvalWeights::builtin("wtf");
    assert_ne!(wtf, EvalWeights::default());
    assert_eq!(wtf.attacker, 100, "the fit keeps the scale weight");
    for name in ["modern", "ludii", "wtf-plain", "raven"] {
        assert_eq!(EvalWeights::builtin(name), EvalWeights::default());
    }
}
