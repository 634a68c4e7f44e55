//! Matches: paired games, determinism, strength ordering, game files.

use brandubh_alphabeta::WIN;
use brandubh_arena::ratings::rate;
use brandubh_arena::{balanced_opening, opening, opening_score, read_records, OpeningFilter};
use brandubh_arena::{run_match, MatchConfig};
use brandubh_arena::{stats::Sprt, stats::SprtVerdict};
use brandubh_play::PlayerSpec;
use brandubh_rules::{Move, MoveRecord, RuleSet};
use std::sync::Arc;

fn cfg(rules: &str, a: &str, b: &str, pairs: u64, threads: usize, seed: u64) -> MatchConfig {
    MatchConfig {
        rules: Arc::new(RuleSet::builtin(rules).unwrap()),
        a: PlayerSpec::parse(a).unwrap(),
        b: PlayerSpec::parse(b).unwrap(),
        pairs,
        openings: 4,
        seed,
        max_plies: 300,
        threads,
        sprt: None,
        swap_sides: true,
        balanced: None,
        clock: None,
        ctx: brandubh_play::PlayContext::uniform_only(),
    }
}

#[test]
fn same_seed_same_games_whatever_the_threads() {
    let (_, one) = run_match(
        &cfg("wtf", "alphabeta:depth=2", "random", 6, 1, 9),
        None,
        &|_| {},
    )
    .unwrap();
    let (_, two) = run_match(
        &cfg("wtf", "alphabeta:depth=2", "random", 6, 2, 9),
        None,
        &|_| {},
    )
    .unwrap();
    assert_eq!(one, two);
    let (_, other) = run_match(
        &cfg("wtf", "alphabeta:depth=2", "random", 6, 2, 10),
        None,
        &|_| {},
    )
    .unwrap();
    assert_ne!(one, other);
}

#[test]
fn pairs_swap_sides_from_one_opening() {
    let (s, games) = run_match(
        &cfg("ludii", "alphabeta:depth=1", "alphabeta:depth=1", 4, 2, 3),
        None,
        &|_| {},
    )
    .unwrap();
    assert_eq!(games.len(), 8);
    assert_eq!(s.games, 8);
    for pair in games.chunks(2) {
        assert_eq!(pair[0].opening, pair[1].opening);
        assert_eq!(pair[0].opening.len(), 4);
        assert_eq!(pair[0].attackers, pair[1].defenders);
    }
    // Openings differ between pairs.
    assert!(games.chunks(2).any(|p| p[0].opening != games[0].opening));
}

#[test]
fn deeper_beats_shallower_and_random() {
    for rules in ["wtf", "ludii", "modern", "wtf-plain", "raven"] {
        let (s, _) = run_match(
            &cfg(rules, "alphabeta:depth=2", "random", 4, 2, 1),
            None,
            &|_| {},
        )
        .unwrap();
        assert!(
            s.score >= 0.85,
            "{rules}: depth 2 vs random scored {}",
            s.score
        );
    }
    let (s, _) = run_match(
        &cfg("wtf", "alphabeta:depth=4", "alphabeta:depth=1", 10, 2, 5),
        None,
        &|_| {},
    )
    .unwrap();
    assert!(s.score > 0.6, "depth 4 vs depth 1 scored {}", s.score);
}

#[test]
fn sprt_stops_early() {
    let mut c = cfg("wtf", "alphabeta:depth=2", "random", 200, 2, 2);
    c.sprt = Some(Sprt::new(0.0, 50.0));
    let (s, _) = run_match(&c, None, &|_| {}).unwrap();
    assert!(
        s.pairs < 200,
        "should stop well before 200 pairs, played {}",
        s.pairs
    );
    assert_eq!(s.sprt.unwrap().verdict, SprtVerdict::AcceptH1);
}

#[test]
fn game_files_round_trip_and_rate() {
    let dir = std::env::temp_dir().join(format!("brandubh-arena-{}", std::process::id()));
    let path = dir.join("games.jsonl");
    let (_, games) = run_match(
        &cfg("wtf", "alphabeta:depth=2", "random", 3, 2, 4),
        Some(&path),
        &|_| {},
    )
    .unwrap();
    assert!(
        !dir.join("games.jsonl.partial").exists(),
        "partial file renamed into place"
    );
    let back = read_records(&path).unwrap();
    assert_eq!(back, games);
    let t = rate(&back, "random").unwrap();
    assert_eq!(t.ratings[0].player, "alphabeta:depth=2");
    assert!(t.ratings[0].elo > 0.0);
    // A damaged file is an error naming the line.
    std::fs::write(
        dir.join("bad.jsonl"),
        format!(
            "{}\n{{not json\n",
            serde_json::to_string(&games[0]).unwrap()
        ),
    )
    .unwrap();
    let e = read_records(&dir.join("bad.jsonl"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("bad.jsonl") && e.contains("line 2"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_specs_are_refused() {
    for spec in [
        "alphabeta:depth",
        "alphabeta:depth=x",
        "alphabeta:speed=3",
        "mcts:sims=x",
        "mcts:depth=3",
        "nonesuch",
        "random:depth=2",
        // Out of range, overflowing, empty, repeated, or of the wrong type.
        "alphabeta:tt=17592186044416",
        "alphabeta:tt=0",
        "alphabeta:ms=0",
        "alphabeta:ms=18446744073709551615",
        "alphabeta:depth=99999999999999999999",
        "alphabeta:eval=",
        "alphabeta:depth=2,depth=3",
        "mcts:sims=0",
        "mcts:sims=4294967296",
        "mcts:ms=0",
        "mcts:batch=0",
        "mcts:threads=0",
        "mcts:cpuct=-1",
        "mcts:cpuct=x",
        "mcts:fpu=3",
        "mcts:gumbel=2",
        "mcts:verify=0.95",
        "mcts:verify=-0.1",
        "mcts:solver=2",
        "mcts:ptemp=0",
        "mcts:ptemp=11",
    ] {
        assert!(PlayerSpec::parse(spec).is_err(), "{spec}");
    }
    assert!(PlayerSpec::parse("alphabeta:depth=3,tt=8").is_ok());
    let s = PlayerSpec::parse("mcts:ms=250,batch=8,threads=1,cpuct=2.5,fpu=0.1,gumbel=1").unwrap();
    let m = s.mcts_settings();
    assert_eq!(
        (m.sims, m.millis, m.batch, m.threads),
        (None, Some(250), 8, 1)
    );
    assert_eq!(
        (m.cfg.c_puct, m.cfg.fpu_reduction, m.cfg.gumbel),
        (2.5, 0.1, true)
    );
    assert!(
        !m.cfg.win_in_one || m.cfg.loss_in_one,
        "documented defaults"
    );
    let m = PlayerSpec::parse("mcts:ms=50,verify=0.3")
        .unwrap()
        .mcts_settings();
    assert_eq!(m.verify, 0.3);
    assert_eq!(
        PlayerSpec::parse("mcts").unwrap().mcts_settings().verify,
        0.0
    );
    // The solver and escape forks are off unless a spec turns them on.
    let on = PlayerSpec::parse("mcts:solver=1,forks=1")
        .unwrap()
        .mcts_settings();
    assert!(on.cfg.solver && on.cfg.escape_forks);
    let off = PlayerSpec::parse("mcts").unwrap().mcts_settings();
    assert!(!off.cfg.solver && !off.cfg.escape_forks);
    // The policy temperature a spec gives reaches the search; without one
    // the priors are left as the net gives them.
    let warm = PlayerSpec::parse("mcts:ptemp=1.6").unwrap().mcts_settings();
    assert_eq!(warm.cfg.policy_temperature, 1.6);
    assert_eq!(off.cfg.policy_temperature, 1.0);
    // With no limit, no simulation cap in the settings (the default one
    // applies only when no time is given either); batches no larger than
    // a 32nd of the simulations.
    let m = PlayerSpec::parse("mcts").unwrap().mcts_settings();
    assert_eq!((m.sims, m.millis, m.batch), (None, None, 8));
    let m = PlayerSpec::parse("mcts:sims=64").unwrap().mcts_settings();
    assert_eq!(m.batch, 2);
    let rules = Arc::new(RuleSet::builtin("wtf").unwrap());
    let e = PlayerSpec::parse("mcts:model=/no/such/dir")
        .unwrap()
        .build(&rules, 0, &brandubh_play::PlayContext::uniform_only())
        .err()
        .unwrap();
    assert!(e.to_string().contains("/no/such/dir"), "{e}");
}

#[test]
fn mcts_player_beats_random() {
    let (s, _) = run_match(
        &cfg("wtf", "mcts:model=uniform,sims=200", "random", 3, 2, 8),
        None,
        &|_| {},
    )
    .unwrap();
    assert!(s.score >= 0.8, "uniform MCTS vs random scored {}", s.score);
}

#[test]
fn balanced_openings_stay_near_the_start_score() {
    let rules = Arc::new(RuleSet::builtin("wtf").unwrap());
    let filter = OpeningFilter {
        margin: 60,
        nodes: 3_000,
    };
    let start = opening_score(&rules, &[], &filter);
    let mut redrawn = 0;
    for pair in 0..12 {
        let plain = opening(&rules, 5, pair, 4);
        let kept = balanced_opening(&rules, 5, pair, 4, &filter, start);
        assert_eq!(kept.len(), 4);
        let off = (opening_score(&rules, &kept, &filter) - start).abs();
        assert!(off <= filter.margin, "pair {pair}: {off} off the start");
        if kept != plain {
            // Only an opening out of the window is replaced.
            redrawn += 1;
            assert!((opening_score(&rules, &plain, &filter) - start).abs() > filter.margin);
        }
    }
    assert!(redrawn > 0, "no random opening of 12 was lopsided");
    // A window wider than any score keeps the plain openings.
    let wide = OpeningFilter {
        margin: 3 * WIN,
        nodes: 3_000,
    };
    for pair in 0..4 {
        assert_eq!(
            balanced_opening(&rules, 5, pair, 4, &wide, start),
            opening(&rules, 5, pair, 4)
        );
    }
    // Balanced matches repeat whatever the thread count.
    let run = |threads| {
        let mut c = cfg("wtf", "alphabeta:depth=1", "random", 4, threads, 5);
        c.balanced = Some(filter);
        run_match(&c, None, &|_| {}).unwrap()
    };
    let ((s1, one), (s2, two)) = (run(1), run(2));
    assert_eq!(one, two);
    assert_eq!(s1.balanced, Some(60));
    assert_eq!(s2.openings, 4);
    for g in one.iter().filter(|g| g.game == 0) {
        let kept = balanced_opening(&rules, 5, g.pair, 4, &filter, start);
        let played: Vec<Move> = g
            .opening
            .iter()
            .map(|t| t.parse::<MoveRecord>().unwrap().mv)
            .collect();
        assert_eq!(played, kept);
    }
}

/// An MCTS player that checks its moves with alpha-beta (`verify`) plays
/// legal moves, whichever of its candidates the check settles on.
#[test]
fn a_verified_mcts_player_plays_legal_games() {
    let rules = Arc::new(RuleSet::builtin("wtf").unwrap());
    let spec = PlayerSpec::parse("mcts:ms=30,sims=8,verify=0.5,threads=1").unwrap();
    let mut player = spec
        .build(&rules, 3, &brandubh_play::PlayContext::uniform_only())
        .unwrap();
    let mut game = brandubh_rules::Game::new(rules.clone());
    for _ in 0..12 {
        if game.is_over() {
            break;
        }
        let mv = player.choose(&game, None).unwrap();
        assert!(game.legal_moves().contains(&mv), "{mv}");
        game.play(mv).unwrap();
    }
}

/// A spec with no limit is bounded by a clock's time alone: the default
/// depth and simulation count hold only when no time is given, and a timed
/// alpha-beta search uses every core unless the spec names its threads.
#[test]
fn a_clock_alone_bounds_a_spec_without_limits() {
    use brandubh_alphabeta::time::Limits;
    use std::time::Duration;
    let rules = Arc::new(RuleSet::builtin("wtf").unwrap());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let second = Some(Duration::from_secs(1));

    let plain = PlayerSpec::parse("alphabeta")
        .unwrap()
        .build_alphabeta(&rules)
        .unwrap();
    let untimed = plain.limits_for(None);
    assert_eq!(
        untimed,
        Limits {
            depth: Some(brandubh_play::AlphaBetaPlayer::DEFAULT_DEPTH),
            nodes: None,
            millis: None
        }
    );
    assert_eq!(
        plain.threads_for(&untimed),
        1,
        "a depth limit searches on one thread"
    );
    let clocked = plain.limits_for(second);
    assert_eq!(
        clocked,
        Limits {
            depth: None,
            nodes: None,
            millis: Some(1000)
        }
    );
    assert_eq!(
        plain.threads_for(&clocked),
        cores,
        "a timed search uses every core"
    );

    // The spec's own caps and threads stay under a clock.
    let capped = PlayerSpec::parse("alphabeta:depth=6,threads=1")
        .unwrap()
        .build_alphabeta(&rules)
        .unwrap();
    let l = capped.limits_for(second);
    assert_eq!((l.depth, l.millis), (Some(6), Some(1000)));
    assert_eq!(capped.threads_for(&l), 1);

    // MCTS: the default simulation count without a time, the time alone with one.
    let mut mcts = PlayerSpec::parse("mcts:threads=1")
        .unwrap()
        .build_mcts(&rules, 1, &brandubh_play::PlayContext::uniform_only())
        .unwrap();
    let game = brandubh_rules::Game::new(rules.clone());
    let untimed = mcts.search(&game, None).simulations;
    assert_eq!(untimed, brandubh_play::mcts_player::DEFAULT_SIMS);
    let timed = mcts.search(&game, second).simulations;
    assert!(timed > untimed, "{timed} simulations in a second");
}
