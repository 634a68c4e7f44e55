//! Training runs: `loop` from a checkpoint, forks, extending a run, and workers.

use crate::{assert_ok, brandubh, scratch};

/// A worker pointed at something that is not a run, or at an object store
/// this build cannot reach, says so at once instead of waiting.
#[test]
fn workers_refuse_a_missing_run_or_an_unknown_store() {
    let empty_guard = scratch("norun");
    let empty = empty_guard.path();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![
                "worker".into(),
                "selfplay".into(),
                "--run".into(),
                empty.display().to_string(),
            ],
            "no run here yet",
        ),
        (
            vec![
                "worker".into(),
                "selfplay".into(),
                "--run".into(),
                "s3://bucket/runs/wtf".into(),
            ],
            "s3://",
        ),
        (
            vec![
                "worker".into(),
                "learn".into(),
                "--run".into(),
                "gs://bucket/run".into(),
            ],
            "gs://",
        ),
        (
            vec![
                "worker".into(),
                "selfplay".into(),
                "--run".into(),
                "runs/x".into(),
                "--games-per-shard".into(),
                "0".into(),
            ],
            "--games-per-shard",
        ),
    ];
    for (args, named) in cases {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = brandubh(&a);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(0), "{args:?}: {err}");
        assert!(err.contains(named), "{args:?} should name `{named}`: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // Nothing was created where there was no run.
    assert_eq!(std::fs::read_dir(empty).unwrap().count(), 0);
}

#[test]
fn loop_from_a_checkpoint_fine_tunes_it_for_the_runs_rules() {
    let d_guard = scratch("loop-from");
    let d = d_guard.path();
    let shape = d.join("net.json");
    std::fs::write(&shape, r#"{"channels":8,"blocks":1,"value_hidden":16}"#).unwrap();
    let start = d.join("start");
    let (start_s, shape_s) = (start.display().to_string(), shape.display().to_string());
    let out = brandubh(&[
        "init-model",
        "--rules",
        "modern",
        "--config",
        &shape_s,
        "--out",
        &start_s,
    ]);
    assert_ok(&out);
    let run = d.join("run").display().to_string();
    let out = brandubh(&[
        "loop",
        "--config",
        "tests/data/tiny-run.toml",
        "--run-dir",
        &run,
        "--from",
        &start_s,
    ]);
    assert_ok(&out);
    let meta = |p: &std::path::Path| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(p.join("model.json")).unwrap()).unwrap()
    };
    let (from, gen0) = (meta(&start), meta(&d.join("run/checkpoints/gen-0000")));
    // The same weights, now for the run's rules (wtf), and a run that trained on.
    assert_eq!(gen0["content_hash"], from["content_hash"]);
    assert_eq!(gen0["rules"], "wtf");
    assert_ne!(gen0["rules_hash"], from["rules_hash"]);
    assert!(d.join("run/checkpoints/gen-0002").is_dir());
    // Resumed with `--rules` alone, the run keeps its config; the rule set
    // must be the run's.
    let out = brandubh(&["loop", "--rules", "wtf", "--run-dir", &run]);
    assert_ok(&out);
    let out = brandubh(&["loop", "--rules", "modern", "--run-dir", &run]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("rules wtf") && err.contains("not modern"),
        "{err}"
    );
    // A net of another shape is refused, naming both shapes.
    let wide_shape = d.join("wide.json");
    std::fs::write(
        &wide_shape,
        r#"{"channels":16,"blocks":1,"value_hidden":16}"#,
    )
    .unwrap();
    let wide = d.join("wide").display().to_string();
    let ws = wide_shape.display().to_string();
    assert!(brandubh(&["init-model", "--config", &ws, "--out", &wide])
        .status
        .success());
    let other = d.join("run2").display().to_string();
    let out = brandubh(&[
        "loop",
        "--config",
        "tests/data/tiny-run.toml",
        "--run-dir",
        &other,
        "--from",
        &wide,
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("channels: 16") && err.contains("same shape"),
        "{err}"
    );
}

#[test]
fn a_fork_shares_its_runs_past_and_goes_on_under_its_own_config() {
    let d_guard = scratch("fork");
    let d = d_guard.path();
    let ok = |out: std::process::Output| {
        assert_ok(&out);
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let base = d.join("base").display().to_string();
    ok(brandubh(&[
        "loop",
        "--config",
        "tests/data/tiny-run.toml",
        "--run-dir",
        &base,
    ]));
    // The fork: one generation more, and a share of games against past nets.
    let tiny = std::fs::read_to_string("tests/data/tiny-run.toml").unwrap();
    let cfg = d.join("fork.toml");
    std::fs::write(
        &cfg,
        tiny.replace("generations = 2", "generations = 3").replace(
            "[selfplay]\n",
            "[selfplay]\npast_share = 0.5\npast_generations = 2\n",
        ),
    )
    .unwrap();
    let cfg_s = cfg.display().to_string();
    let fork = d.join("fork");
    let fork_s = fork.display().to_string();
    let args = [
        "loop",
        "--config",
        &cfg_s,
        "--run-dir",
        &fork_s,
        "--fork-from",
        &base,
        "--fork-at",
        "1",
    ];
    let first = ok(brandubh(&args));
    assert!(
        first.contains("a fork of") && first.contains("run complete: 3"),
        "{first}"
    );
    let meta = |p: std::path::PathBuf| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(p.join("model.json")).unwrap()).unwrap()
    };
    let gen = |run: &str, g: &str| meta(std::path::Path::new(run).join("checkpoints").join(g));
    // Generation 1 and its record are the base's; generation 2 is the fork's own.
    assert_eq!(
        gen(&base, "gen-0001")["content_hash"],
        gen(&fork_s, "gen-0001")["content_hash"]
    );
    assert_ne!(
        gen(&base, "gen-0002")["content_hash"],
        gen(&fork_s, "gen-0002")["content_hash"]
    );
    assert!(fork.join("checkpoints/gen-0003").is_dir());
    let lines = |run: &str| -> Vec<String> {
        std::fs::read_to_string(std::path::Path::new(run).join("generations.jsonl"))
            .unwrap()
            .lines()
            .map(String::from)
            .collect()
    };
    let (b, f) = (lines(&base), lines(&fork_s));
    assert_eq!(f.len(), 3);
    assert_eq!(f[0], b[0]);
    assert_ne!(f[1], b[1]);
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fork.join("fork.json")).unwrap()).unwrap();
    assert_eq!(record["generation"], 1);
    // The same command again resumes the finished fork.
    assert!(ok(brandubh(&args)).contains("run complete: 3"));
    // Refused: a generation the base has not finished, another net shape.
    let other = d.join("other").display().to_string();
    let err = |args: &[&str]| {
        let out = brandubh(args);
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let e = err(&[
        "loop",
        "--run-dir",
        &other,
        "--fork-from",
        &base,
        "--fork-at",
        "5",
    ]);
    assert!(e.contains("generation 5 is not finished"), "{e}");
    // `--rules` names the config's rule set, which must be the run's.
    let e = err(&[
        "loop",
        "--config",
        "tests/data/tiny-run.toml",
        "--rules",
        "modern",
        "--run-dir",
        &other,
        "--fork-from",
        &base,
        "--fork-at",
        "1",
    ]);
    assert!(e.contains("a fork keeps the rule set"), "{e}");
    let wide = d.join("wide.toml");
    std::fs::write(&wide, tiny.replace("channels = 8", "channels = 16")).unwrap();
    let wide_s = wide.display().to_string();
    let e = err(&[
        "loop",
        "--config",
        &wide_s,
        "--run-dir",
        &other,
        "--fork-from",
        &base,
        "--fork-at",
        "1",
    ]);
    assert!(e.contains("[net]") && e.contains("net's shape"), "{e}");
    // Allowed: a fork that adds value heads per side; its first own
    // generation trains them onto the base's net.
    let sided = d.join("sided.toml");
    std::fs::write(
        &sided,
        tiny.replace(
            "value_hidden = 16",
            "value_hidden = 16\nside_value_heads = true",
        ),
    )
    .unwrap();
    let sided_s = sided.display().to_string();
    let sided_run = d.join("sided").display().to_string();
    ok(brandubh(&[
        "loop",
        "--config",
        &sided_s,
        "--run-dir",
        &sided_run,
        "--fork-from",
        &base,
        "--fork-at",
        "1",
    ]));
    assert!(gen(&sided_run, "gen-0001")["net"]
        .get("side_value_heads")
        .is_none());
    assert_eq!(gen(&sided_run, "gen-0002")["net"]["side_value_heads"], true);
    // Not the other way: a fork of it without them is refused.
    let e = err(&[
        "loop",
        "--config",
        "tests/data/tiny-run.toml",
        "--run-dir",
        &other,
        "--fork-from",
        &sided_run,
        "--fork-at",
        "2",
    ]);
    assert!(e.contains("net's shape"), "{e}");
}

#[test]
fn generations_extends_a_finished_run_in_place_and_never_shortens_one() {
    let d_guard = scratch("extend");
    let d = d_guard.path();
    let run = d.join("run").display().to_string();
    let out = |args: &[&str]| {
        let o = brandubh(args);
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let config = || std::fs::read_to_string(d.join("run/config.toml")).unwrap();
    let records = || {
        std::fs::read_to_string(d.join("run/generations.jsonl"))
            .unwrap()
            .lines()
            .count()
    };
    let tiny = ["--config", "tests/data/tiny-run.toml", "--run-dir", &run];
    let (ok, _, e) = out(&[&["loop"][..], &tiny].concat());
    assert!(ok, "{e}");
    assert_eq!(records(), 2);
    // Shorter than what is finished: refused, the run's config untouched.
    let (ok, _, e) = out(&["loop", "--run-dir", &run, "--generations", "1"]);
    assert!(!ok);
    assert!(e.contains("2 generations are already finished"), "{e}");
    assert!(config().contains("\ngenerations = 2\n"));
    // Longer: the finished run goes on, its config says so and keeps its
    // comments.
    let (ok, o, e) = out(&["loop", "--run-dir", &run, "--generations", "3"]);
    assert!(ok, "{e}");
    assert!(o.contains("run complete: 3"), "{o}");
    assert_eq!(records(), 3);
    assert!(config().contains("\ngenerations = 3\n"));
    assert!(config().starts_with("# A tiny run"), "{}", config());
    // The command that started it, with the new length, resumes it; without
    // the new length the config differs and is refused.
    let (ok, o, e) = out(&[&["loop", "--generations", "3"][..], &tiny].concat());
    assert!(ok && o.contains("run complete: 3"), "{e}");
    let (ok, _, e) = out(&[&["loop"][..], &tiny].concat());
    assert!(!ok && e.contains("different config"), "{e}");
    // A new run takes the length from the flag.
    let other = d.join("other").display().to_string();
    let (ok, o, e) = out(&[
        "loop",
        "--config",
        "tests/data/tiny-run.toml",
        "--run-dir",
        &other,
        "--generations",
        "1",
    ]);
    assert!(ok && o.contains("run complete: 1"), "{e}");
}

/// `selfplay --opponent`: an alpha-beta player takes its side of the
/// config's share of the games; a share without an opponent, an opponent
/// without a share, and an opponent that is not a bounded alpha-beta are
/// refused before any game is played.
#[test]
fn selfplay_plays_a_share_of_its_games_against_an_opponent() {
    let dir_guard = scratch("selfplay-opponent");
    let dir = dir_guard.path();
    let config = dir.join("s.toml");
    std::fs::write(
        &config,
        "opponent_share = 1.0\nopponent_plays = \"defenders\"\n[mcts]\nsimulations = 8\ncheap_simulations = 4\n",
    )
    .unwrap();
    let plain = dir.join("plain.toml");
    std::fs::write(&plain, "[mcts]\nsimulations = 8\n").unwrap();
    let (c, p) = (config.to_str().unwrap(), plain.to_str().unwrap());
    let out = |name: &str| dir.join(name).display().to_string();
    for (args, named) in [
        (vec!["--config", c], "--opponent SPEC"),
        (
            vec!["--config", p, "--opponent", "alphabeta:depth=1"],
            "opponent_share is 0",
        ),
        (
            vec!["--config", c, "--opponent", "alphabeta:ms=10"],
            "depth= or nodes=",
        ),
        (vec!["--config", c, "--opponent", "random"], "alpha-beta"),
    ] {
        let o = out("refused");
        let mut all = vec!["selfplay", "--games", "2", "--out", &o];
        all.extend(args.iter().copied());
        let run = brandubh(&all);
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{all:?}: {err}");
        assert!(err.contains(named), "{all:?} should name `{named}`: {err}");
        assert!(!dir.join("refused").exists(), "nothing written: {all:?}");
    }
    let o = out("games");
    let run = brandubh(&[
        "selfplay",
        "--games",
        "4",
        "--seed",
        "3",
        "--config",
        c,
        "--opponent",
        "alphabeta:depth=1",
        "--out",
        &o,
    ]);
    assert_ok(&run);
    let (games, _) = brandubh_selfplay::read_dir(&dir.join("games"));
    assert_eq!(games.len(), 4);
    for g in &games {
        // Every defender move is the opponent's (share 1): no search, so no
        // policy target; the attackers' moves are searched.
        let (attackers, defenders): (Vec<_>, Vec<_>) = g
            .positions
            .iter()
            .partition(|p| p.side_to_move == brandubh_rules::Side::Attackers);
        assert!(
            attackers.iter().any(|p| !p.visits.is_empty()),
            "game {}",
            g.game_id
        );
        assert!(!defenders.is_empty());
        assert!(
            defenders
                .iter()
                .all(|p| p.visits.is_empty() && !p.full_search),
            "game {}",
            g.game_id
        );
    }
}
