//! End-to-end tests of the `brandubh` binary.

use std::process::{Command, Output};

fn brandubh(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_brandubh"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run brandubh")
}

fn ok_json(args: &[&str]) -> serde_json::Value {
    let out = brandubh(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

/// Asserts that a run of the binary succeeded, showing its stderr if not.
fn assert_ok(out: &Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A new, empty scratch directory for one test (what an earlier run left
/// there is removed).
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("brandubh-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn rules_list_and_show() {
    let out = brandubh(&["rules", "list"]);
    let text = String::from_utf8(out.stdout).unwrap();
    for name in ["modern", "ludii", "wtf", "wtf-plain", "raven"] {
        assert!(text.contains(name), "{text}");
        let out = brandubh(&["rules", "show", name]);
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("OpenTafl rules string: dim:7"), "{text}");
    }
}

#[test]
fn perft_json_for_every_rule_set() {
    for name in ["modern", "ludii", "wtf", "wtf-plain", "raven"] {
        let v = ok_json(&["perft", "--rules", name, "--depth", "3", "--json"]);
        assert_eq!(v["rules"], name);
        assert_eq!(v["results"].as_array().unwrap().len(), 3);
        assert!(v["leaves_per_second"].as_f64().unwrap() > 0.0);
    }
    let v = ok_json(&["perft", "--rules", "wtf", "--depth", "4", "--json"]);
    assert_eq!(v["results"][3]["nodes"], 1_007_392);
    let v = ok_json(&[
        "perft", "--rules", "ludii", "--depth", "2", "--stats", "--json",
    ]);
    assert_eq!(v["results"][1]["nodes"], 960);
    assert!(v["results"][1].get("capture_moves").is_some());
    let v = ok_json(&[
        "perft",
        "--rules",
        "modern",
        "--depth",
        "1",
        "--position",
        "/7/1T3t1/2t1T2/t5t/2tKt2/3t3/1T5/",
        "--side",
        "defenders",
        "--json",
    ]);
    assert_eq!(v["side_to_move"], "defenders");
    assert_eq!(
        v["results"][0]["nodes"], 27,
        "ludii gives 26: there the king may not return to the throne"
    );
}

#[test]
fn show_json_plays_moves() {
    let v = ok_json(&[
        "show",
        "--rules",
        "modern",
        "--moves",
        "d6-c6 c4-c2",
        "--json",
    ]);
    assert_eq!(v["plies"].as_array().unwrap().len(), 2);
    assert_eq!(v["plies"][0]["move"], "d6-c6");
    assert_eq!(v["plies"][0]["legal_before"], 40);
    assert_eq!(v["side_to_move"], "attackers");
    assert_eq!(v["status"], "ongoing");
    // A capture of the king is listed among the captured squares.
    let v = ok_json(&[
        "show",
        "--rules",
        "modern",
        "--position",
        "/7/7/7/7/7/1tK4/3t3/",
        "--side",
        "attackers",
        "--moves",
        "d7-d6",
        "--json",
    ]);
    assert_eq!(v["status"], "attackers_win");
    assert_eq!(v["reason"], "king_captured");
    assert_eq!(v["plies"][0]["captured"], serde_json::json!(["c6"]));
    assert_eq!(v["legal_moves"].as_array().unwrap().len(), 0);
}

#[test]
fn show_rejects_illegal_and_malformed_input() {
    let out = brandubh(&["show", "--rules", "modern", "--moves", "d6-c6 d4-d5"]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("ply 2") && err.contains("d4-d5") && err.contains("d5 is in the way"),
        "{err}"
    );
    let out = brandubh(&["show", "--rules", "modern", "--moves", "d6c6"]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!out.status.success() && err.contains("ply 1"), "{err}");
    let out = brandubh(&[
        "show",
        "--rules",
        "modern",
        "--position",
        "/3t3/3t3/3T3/ttTKTtt/3T3/3q3/3t3/",
    ]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        !out.status.success() && err.contains("row 6") && err.contains("character 2"),
        "{err}"
    );
    let out = brandubh(&["show", "--rules", "nonesuch"]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!out.status.success() && err.contains("nonesuch"), "{err}");
}

#[test]
fn play_random_vs_random_is_seeded() {
    for name in ["modern", "ludii", "wtf", "wtf-plain", "raven"] {
        let a = brandubh(&[
            "play",
            "--rules",
            name,
            "--attackers",
            "random",
            "--defenders",
            "random",
            "--seed",
            "7",
        ]);
        let b = brandubh(&[
            "play",
            "--rules",
            name,
            "--attackers",
            "random",
            "--defenders",
            "random",
            "--seed",
            "7",
        ]);
        assert!(a.status.success());
        assert_eq!(a.stdout, b.stdout, "{name}: same seed, same game");
        let text = String::from_utf8(a.stdout).unwrap();
        assert!(
            text.contains("game over") || text.contains("unfinished"),
            "{text}"
        );
    }
}

#[test]
fn play_human_reads_moves_from_stdin() {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_brandubh"))
        .args([
            "play",
            "--rules",
            "modern",
            "--attackers",
            "human",
            "--defenders",
            "random",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .as_mut()
        .unwrap()
        .write_all(b"d4-d5\nzz\nd6-c6\nquit\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("illegal"), "{text}");
    assert!(text.contains("1. attackers (human): d6-c6"), "{text}");
    assert!(out.status.success());
    assert!(text.contains("attackers (human) resigns: quit"), "{text}");
}

#[test]
fn balance_plays_and_reads_game_files() {
    let dir = std::env::temp_dir().join(format!("brandubh-balance-{}", std::process::id()));
    let out = dir.join("report");
    let d = out.to_str().unwrap();
    let balance = |pairs: &'static str| {
        vec![
            "balance",
            "--rules",
            "wtf",
            "--player",
            "alphabeta:depth=1",
            "--pairs",
            pairs,
            "--out",
            d,
            "--json",
        ]
    };
    let v = ok_json(&balance("3"));
    assert_eq!(v[0]["games"], 6);
    for f in [
        "balance.md",
        "balance.json",
        "attacker_share.png",
        "attacker_share.svg",
        "games-wtf.jsonl",
    ] {
        assert!(out.join(f).exists(), "{f}");
    }
    let md = std::fs::read_to_string(out.join("balance.md")).unwrap();
    assert!(
        md.contains("Irish Brandubh 2") && md.contains("| wtf |"),
        "{md}"
    );
    // The same summary from the game file.
    let games = out.join("games-wtf.jsonl");
    let out2 = dir.join("again");
    let v2 = ok_json(&[
        "balance",
        "--games",
        games.to_str().unwrap(),
        "--out",
        out2.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(v2[0]["attackers"], v[0]["attackers"]);
    // A larger run resumed from the first keeps its games and plays the rest.
    let before = std::fs::read_to_string(&games).unwrap();
    let mut more = balance("4");
    more.push("--resume");
    let o = brandubh(&more);
    assert_ok(&o);
    let v4: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v4[0]["games"], 8);
    let after = std::fs::read_to_string(&games).unwrap();
    assert!(after.starts_with(&before) && after.lines().count() == 8);
    // And from self-play shards.
    let sp = dir.join("sp");
    let o = brandubh(&[
        "selfplay",
        "--rules",
        "ludii",
        "--games",
        "4",
        "--batch",
        "4",
        "--out",
        sp.to_str().unwrap(),
    ]);
    assert_ok(&o);
    let v3 = ok_json(&[
        "balance",
        "--games",
        sp.to_str().unwrap(),
        "--out",
        dir.join("sp-report").to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(v3[0]["games"], 4);
    assert_eq!(v3[0]["group"], "uniform");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn tune_eval_fits_weights_that_a_player_can_use() {
    let dir = scratch("tune");
    let games = dir.join("games.jsonl");
    let weights = dir.join("weights.toml");
    ok_json(&[
        "match",
        "--rules",
        "wtf",
        "--a",
        "alphabeta:depth=2",
        "--b",
        "alphabeta:depth=1",
        "--pairs",
        "6",
        "--out",
        games.to_str().unwrap(),
        "--json",
    ]);
    let out = brandubh(&[
        "tune-eval",
        "--rules",
        "wtf",
        games.to_str().unwrap(),
        "--iterations",
        "200",
        "--out",
        weights.to_str().unwrap(),
    ]);
    assert_ok(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("cross-entropy"), "{text}");
    // The fitted file drives a player.
    let spec = format!("alphabeta:depth=1,eval={}", weights.display());
    let v = ok_json(&[
        "match", "--rules", "wtf", "--a", &spec, "--b", "random", "--pairs", "1", "--json",
    ]);
    assert_eq!(v["games"], 2);
    // Games of another rule set are refused, naming the file.
    let out = brandubh(&["tune-eval", "--rules", "ludii", games.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("games.jsonl") && err.contains("ludii"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn analyze_reports_both_kinds_of_player() {
    let v = ok_json(&[
        "analyze",
        "--rules",
        "wtf",
        "--player",
        "alphabeta:depth=3",
        "--json",
    ]);
    assert_eq!(v["depth"], 3);
    assert!(!v["pv"].as_array().unwrap().is_empty());
    assert_eq!(v["pv"][0], v["best"]);
    let v = ok_json(&[
        "analyze",
        "--rules",
        "modern",
        "--moves",
        "d6-c6",
        "--player",
        "mcts:model=uniform,sims=300,batch=4",
        "--top",
        "5",
        "--json",
    ]);
    assert_eq!(v["side_to_move"], "defenders");
    assert_eq!(v["simulations"], 300);
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 5);
    assert_eq!(moves[0]["move"], v["best"]);
    let visits: Vec<u64> = moves
        .iter()
        .map(|m| m["visits"].as_u64().unwrap())
        .collect();
    assert!(visits.windows(2).all(|w| w[0] >= w[1]), "{visits:?}");
    let wdl: Vec<f64> = moves[0]["wdl"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert!((wdl.iter().sum::<f64>() - 1.0).abs() < 1e-3);
    assert_eq!(moves[0]["pv"][0], moves[0]["move"]);
    // A time limit replaces the simulation count.
    let v = ok_json(&[
        "analyze",
        "--rules",
        "wtf",
        "--player",
        "mcts:sims=5",
        "--ms",
        "200",
        "--json",
    ]);
    assert!(v["simulations"].as_u64().unwrap() > 5);
    assert!(v["seconds"].as_f64().unwrap() < 1.0);
    // Human-readable by default.
    let out = brandubh(&["analyze", "--rules", "wtf", "--player", "alphabeta:depth=2"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("best ") && text.contains("pv "), "{text}");
}

#[test]
fn bad_limits_and_players_are_clear_errors() {
    for args in [
        &["analyze", "--player", "mcts:ms=0"][..],
        &["analyze", "--player", "mcts:sims=99999999999"],
        &["analyze", "--player", "mcts:speed=3"],
        &["analyze", "--player", "mcts:model=/no/such/model"],
        &["analyze", "--player", "alphabeta:depth=2", "--raw"],
        &["analyze", "--player", "random"],
        &["analyze", "--ms", "0"],
        &[
            "search",
            "--rules",
            "wtf",
            "--tt",
            "17592186044416",
            "--depth",
            "2",
        ],
        &["match", "--a", "random", "--b", "random", "--clock", "x"],
        &["match", "--a", "random", "--b", "random", "--clock", "0"],
        &["match", "--a", "random", "--b", "random", "--clock", "10/3"],
        &["match", "--a", "alphabeta:tt=99999999999", "--b", "random"],
    ] {
        let out = brandubh(args);
        // 1 for our errors, 2 for those clap finds in the arguments.
        assert!(
            matches!(out.status.code(), Some(1) | Some(2)),
            "{args:?} should fail cleanly"
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn a_match_resumes_from_its_record_file() {
    let dir = scratch("cli-resume");
    let out = dir.join("m.jsonl");
    let out_s = out.to_str().unwrap();
    let args = |pairs: &'static str| {
        vec![
            "match",
            "--a",
            "alphabeta:depth=1",
            "--b",
            "random",
            "--seed",
            "3",
            "--pairs",
            pairs,
            "--out",
            out_s,
            "--json",
        ]
    };
    // Nothing to resume from yet: a fresh match, and a note that says so.
    let mut first = args("2");
    first.push("--resume");
    let o = brandubh(&first);
    assert_ok(&o);
    assert!(String::from_utf8_lossy(&o.stderr).contains("starting from the first pair"));
    let mut more = args("3");
    more.push("--resume");
    let o = brandubh(&more);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("resume: 2 whole pairs kept"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (v["pairs"].as_u64(), v["games"].as_u64()),
        (Some(3), Some(6))
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 6);
    // Another seed's match is refused, and its file left as it was.
    let mut other = args("4");
    other[6] = "4";
    other.push("--resume");
    let o = brandubh(&other);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("line 1") && err.contains("--seed"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 6);
    // --resume needs the file it resumes from.
    let o = brandubh(&["match", "--a", "random", "--b", "random", "--resume"]);
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("--out"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_clocked_match_reports_time_per_move() {
    let v = ok_json(&[
        "match",
        "--rules",
        "wtf",
        "--a",
        "alphabeta:depth=6",
        "--b",
        "mcts:sims=100000",
        "--pairs",
        "1",
        "--clock",
        "3+0.05",
        "--max-plies",
        "30",
        "--json",
    ]);
    assert_eq!(v["games"], 2);
    for who in ["a_times", "b_times"] {
        let t = &v[who];
        assert!(t["moves"].as_u64().unwrap() > 0, "{v}");
        // 3 s for the game: no move may take the whole clock.
        assert!(t["max_ms"].as_f64().unwrap() < 2_000.0, "{v}");
    }
}

#[test]
fn report_draws_a_runs_progress() {
    let dir = scratch("report");
    let mut lines = String::new();
    for i in 1..=3 {
        lines.push_str(&format!(
            "{{\"iteration\":{i},\"selfplay_seconds\":600.0,\"train_seconds\":1200.0,\"eval_seconds\":0.0,\
             \"cpu_seconds\":3600.0,\"attacker_share\":0.{i},\"score_vs_baseline\":0.25,\"final_policy_loss\":3.0,\
             \"final_value_loss\":0.9,\
             \"equal_time\":[{{\"ms\":100,\"pairs\":10,\"score\":0.3,\"elo\":-147.0,\"elo_ci95\":[-300.0,-20.0]}}]}}\n"
        ));
    }
    std::fs::write(dir.join("generations.jsonl"), lines).unwrap();
    std::fs::write(
        dir.join("ratings.json"),
        r#"{"anchor":"alphabeta:depth=2","ratings":[
            {"player":"mcts:model=r/checkpoints/gen-0002,sims=64","elo":-50.0,"ci95":80.0},
            {"player":"alphabeta:depth=2","elo":0.0,"ci95":0.0}]}"#,
    )
    .unwrap();
    let out = brandubh(&["report", "--run-dir", dir.to_str().unwrap()]);
    assert_ok(&out);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("| 2 | 1.00 | 2.00 | 20.0 % | 25.0 % | -50 ± 80 |"),
        "{text}"
    );
    assert!(
        text.contains("| 1 | 0.50 | 1.00 | 10.0 % | 25.0 % | — |"),
        "{text}"
    );
    for stem in [
        "elo_by_generation",
        "elo_by_hour",
        "elo_by_cpu_hour",
        "attacker_share",
        "losses",
    ] {
        for ext in ["png", "svg"] {
            let f = dir.join("report").join(format!("{stem}.{ext}"));
            assert!(
                std::fs::metadata(&f).unwrap().len() > 1000,
                "{}",
                f.display()
            );
        }
    }

    // A second run on the same anchor is drawn beside the first, named by
    // its directory; one on another anchor is refused.
    // A copy of this run's generations rated as `ratings` says.
    let run_beside = |name: &str, ratings: &str| {
        let run = dir.join(name);
        std::fs::create_dir_all(&run).unwrap();
        std::fs::copy(dir.join("generations.jsonl"), run.join("generations.jsonl")).unwrap();
        std::fs::write(run.join("ratings.json"), ratings).unwrap();
        run
    };
    let fork = run_beside(
        "fork-b",
        r#"{"anchor":"alphabeta:depth=2","ratings":[
            {"player":"mcts:model=f/checkpoints/gen-0003,sims=64","elo":120.0,"ci95":90.0},
            {"player":"alphabeta:depth=2","elo":0.0,"ci95":0.0}]}"#,
    );
    let both = dir.join("both");
    let out = brandubh(&[
        "report",
        "--run-dir",
        dir.to_str().unwrap(),
        "--compare",
        fork.to_str().unwrap(),
        "--out",
        both.to_str().unwrap(),
    ]);
    assert_ok(&out);
    let svg = std::fs::read_to_string(both.join("elo_by_cpu_hour.svg")).unwrap();
    assert!(
        svg.contains("fork-b"),
        "the compared run is not in the legend"
    );
    assert!(
        svg.contains("and 1 more"),
        "the title does not say a run was added"
    );
    let other = run_beside(
        "other-anchor",
        r#"{"anchor":"alphabeta:depth=3","ratings":[{"player":"alphabeta:depth=3","elo":0.0,"ci95":0.0}]}"#,
    );
    let out = brandubh(&[
        "report",
        "--run-dir",
        dir.to_str().unwrap(),
        "--compare",
        other.to_str().unwrap(),
        "--out",
        both.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("different scales") && err.contains("alphabeta:depth=3"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Bad files and specs: a clear error naming the file and key, exit 1,
/// never a panic.
#[test]
fn bad_files_are_clear_errors() {
    let dir = std::env::temp_dir().join(format!("brandubh-badfiles-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("ckpt")).unwrap();
    let sp = dir.join("sp.toml");
    std::fs::write(&sp, "[mcts]\ndirichlet_epsilon = 2.0\n").unwrap();
    let tiny = dir.join("tiny.toml");
    std::fs::write(&tiny, "[mcts]\ntemperature = 0.000001\n").unwrap();
    let weights = dir.join("w.toml");
    let mut w = std::fs::read_to_string("configs/eval/default.toml").unwrap();
    w = w.replacen("attacker = ", "attacker = 99999999 # ", 1);
    std::fs::write(&weights, w).unwrap();
    let run = dir.join("run.toml");
    let r = std::fs::read_to_string("configs/runs/default.toml")
        .unwrap()
        .replacen("channels = 32", "channels = 0", 1);
    std::fs::write(&run, r).unwrap();
    std::fs::write(
        dir.join("ckpt/model.json"),
        r#"{"format":1,"net":{"channels":8,"blocks":1,"value_hidden":8},"encoding_version":1,
            "rules":"wtf","rules_hash":"0","step":0,"generation":0,"content_hash":"ééééééééééééé"}"#,
    )
    .unwrap();
    let ckpt = format!("mcts:model={}", dir.join("ckpt").display());
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![
                "selfplay".into(),
                "--games".into(),
                "1".into(),
                "--config".into(),
                sp.display().to_string(),
            ],
            "dirichlet_epsilon",
        ),
        (
            vec![
                "selfplay".into(),
                "--games".into(),
                "1".into(),
                "--config".into(),
                tiny.display().to_string(),
            ],
            "temperature",
        ),
        (
            vec![
                "match".into(),
                "--a".into(),
                format!("alphabeta:eval={}", weights.display()),
                "--b".into(),
                "random".into(),
            ],
            "attacker",
        ),
        (
            vec![
                "loop".into(),
                "--config".into(),
                run.display().to_string(),
                "--run-dir".into(),
                dir.join("r").display().to_string(),
            ],
            "channels",
        ),
        (
            vec![
                "analyze".into(),
                "--rules".into(),
                "wtf".into(),
                "--player".into(),
                ckpt,
            ],
            "content_hash",
        ),
        (
            vec![
                "match".into(),
                "--a".into(),
                "otep:".into(),
                "--b".into(),
                "random".into(),
            ],
            "otep",
        ),
        (
            vec![
                "match".into(),
                "--rules".into(),
                "dim:7 esc:e start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/".into(),
                "--a".into(),
                "random".into(),
                "--b".into(),
                "random".into(),
            ],
            "esc:e",
        ),
        (
            vec![
                "show".into(),
                "--game".into(),
                dir.join("none.otg").display().to_string(),
            ],
            "none.otg",
        ),
    ];
    for (args, named) in cases {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = brandubh(&a);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(named), "{args:?} should name `{named}`: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A net's games carry its model id, and the ratings rate it as one player
/// however its path was spelt.
#[test]
fn a_net_is_rated_by_its_model_id() {
    let dir = scratch("identity");
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string("models/modern/model.json").unwrap())
            .unwrap();
    let id: String = meta["content_hash"].as_str().unwrap()[..12].to_string();
    for (i, path) in ["models/modern", "./models/modern/"].iter().enumerate() {
        let out = dir.join(format!("{i}.jsonl"));
        ok_json(&[
            "match",
            "--rules",
            "modern",
            "--a",
            &format!("mcts:model={path},sims=4"),
            "--b",
            "alphabeta:depth=1",
            "--pairs",
            "1",
            "--seed",
            &format!("{}", i + 1),
            "--out",
            out.to_str().unwrap(),
            "--json",
        ]);
        let first: serde_json::Value = serde_json::from_str(
            std::fs::read_to_string(&out)
                .unwrap()
                .lines()
                .next()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(
            first["attackers_id"],
            format!("mcts:model={id},sims=4"),
            "{first}"
        );
        assert!(first.get("defenders_id").is_none(), "{first}");
    }
    let v = ok_json(&[
        "ratings",
        "--anchor",
        "alphabeta:depth=1",
        "--json",
        dir.join("0.jsonl").to_str().unwrap(),
        dir.join("1.jsonl").to_str().unwrap(),
    ]);
    let ratings = v[0]["ratings"].as_array().unwrap();
    assert_eq!(ratings.len(), 2, "{v}");
    let net = ratings
        .iter()
        .find(|r| r["player"] == format!("mcts:model={id},sims=4"))
        .unwrap();
    assert_eq!(net["games"], 4);
    assert_eq!(net["specs"].as_array().unwrap().len(), 2);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `init-model` writes a checkpoint that loads; it never writes into a
/// directory that holds something else, and replaces a checkpoint only
/// with `--force`, whole.
#[test]
fn init_model_refuses_what_is_not_its_own() {
    let dir = std::env::temp_dir().join(format!("brandubh-init-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let other = dir.join("notes");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("todo.txt"), "keep me").unwrap();
    let init = |out: &std::path::Path, extra: &[&str]| {
        let mut args = vec![
            "init-model",
            "--rules",
            "modern",
            "--channels",
            "8",
            "--blocks",
            "1",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        brandubh(&args)
    };
    // A directory that is not a checkpoint: refused, even with --force.
    for extra in [&[][..], &["--force"][..]] {
        let out = init(&other, extra);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(
            err.contains("is not a checkpoint") && err.contains("notes"),
            "{err}"
        );
        assert_eq!(
            std::fs::read_to_string(other.join("todo.txt")).unwrap(),
            "keep me"
        );
        assert!(!other.join("model.json").exists());
    }
    // A new directory: written, and it loads.
    let ckpt = dir.join("ckpt");
    assert!(init(&ckpt, &["--seed", "1"]).status.success());
    let hash = |p: &std::path::Path| {
        let meta: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(p.join("model.json")).unwrap()).unwrap();
        meta["content_hash"].as_str().unwrap().to_string()
    };
    let first = hash(&ckpt);
    // Again without --force: refused, the checkpoint unchanged.
    let out = init(&ckpt, &["--seed", "2"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--force"));
    assert_eq!(hash(&ckpt), first);
    // With --force: a different net, whole, and it plays.
    assert!(init(&ckpt, &["--seed", "2", "--force"]).status.success());
    assert_ne!(hash(&ckpt), first);
    ok_json(&[
        "analyze",
        "--rules",
        "modern",
        "--player",
        &format!("mcts:model={},sims=4", ckpt.display()),
        "--json",
    ]);
    // Nothing left beside it from the swap.
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `init-model --config` takes the net shape as a checkpoint records it,
/// with or without a moves-left output; `analyze` shows the plies left a
/// search expects only for a net that has one, and its spec takes the
/// moves-left utility's settings.
#[test]
fn init_model_config_and_the_moves_left_output_in_analyze() {
    let dir = scratch("ml");
    for moves_left in [false, true] {
        let cfg = dir.join(format!("net-{moves_left}.json"));
        let mut shape = serde_json::json!({"channels": 8, "blocks": 1, "value_hidden": 8});
        if moves_left {
            shape["moves_left"] = serde_json::json!(true);
        }
        std::fs::write(&cfg, shape.to_string()).unwrap();
        let ckpt = dir.join(format!("ckpt-{moves_left}"));
        let out = brandubh(&[
            "init-model",
            "--rules",
            "wtf",
            "--out",
            ckpt.to_str().unwrap(),
            "--config",
            cfg.to_str().unwrap(),
        ]);
        assert_ok(&out);
        let meta: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(ckpt.join("model.json")).unwrap())
                .unwrap();
        assert_eq!(
            meta["net"]["moves_left"].as_bool().unwrap_or(false),
            moves_left
        );
        let v = ok_json(&[
            "analyze",
            "--rules",
            "wtf",
            "--player",
            &format!("mcts:model={},sims=32,ml=0.03,mlslope=0.01", ckpt.display()),
            "--json",
        ]);
        let moves = v["moves"].as_array().unwrap();
        let visited: Vec<_> = moves
            .iter()
            .filter(|m| m["visits"].as_u64() > Some(0))
            .collect();
        assert!(!visited.is_empty());
        for m in visited {
            assert_eq!(m["plies_left"].is_number(), moves_left, "{m}");
            if moves_left {
                assert!(m["plies_left"].as_f64().unwrap() >= 1.0, "{m}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Exporting a shipped net again, out of its run directory, keeps the
/// training record its card had, and never writes over the checkpoint.
#[test]
fn export_keeps_a_shipped_nets_provenance() {
    let dir = scratch("export");
    let shipped = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/wtf");
    for f in ["model.json", "model.safetensors", "model.card.json"] {
        std::fs::copy(shipped.join(f), dir.join(f)).unwrap();
    }
    let card = |p: &std::path::Path| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    };
    let before = card(&dir.join("model.card.json"));
    assert!(before["training"]["run"].is_string());
    let model = dir.to_str().unwrap();
    // Over the net's own card, and to a new place: both keep the record.
    for out in [dir.join("model.onnx"), dir.join("again/net.onnx")] {
        let run = brandubh(&["export", "--model", model, "--out", out.to_str().unwrap()]);
        assert_ok(&run);
        let after = card(&out.with_extension("card.json"));
        assert_eq!(after["training"], before["training"]);
        assert_eq!(
            after["model"]["content_hash"],
            before["model"]["content_hash"]
        );
    }
    // A file of the checkpoint as the output: refused, the file unchanged.
    let meta = std::fs::read(dir.join("model.json")).unwrap();
    let run = brandubh(&[
        "export",
        "--model",
        model,
        "--out",
        dir.join("model.json").to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert!(err.contains("is part of the checkpoint"), "{err}");
    assert_eq!(std::fs::read(dir.join("model.json")).unwrap(), meta);
    let _ = std::fs::remove_dir_all(&dir);
}

/// An inference engine this build does not have is named in a clear
/// error before any model is loaded.
#[test]
fn an_unknown_inference_engine_is_a_clear_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_brandubh"))
        .args([
            "analyze",
            "--rules",
            "modern",
            "--player",
            "mcts:model=models/modern,sims=4",
        ])
        .env("BRANDUBH_INFERENCE", "cuda")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("BRANDUBH_INFERENCE=`cuda`") && !err.contains("panicked"),
        "{err}"
    );
}

/// A worker pointed at something that is not a run, or at an object store
/// this build cannot reach, says so at once instead of waiting.
#[test]
fn workers_refuse_a_missing_run_or_an_unknown_store() {
    let empty = scratch("norun");
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
    assert_eq!(std::fs::read_dir(&empty).unwrap().count(), 0);
    std::fs::remove_dir_all(&empty).ok();
}

/// The report of a tiny run rates every generation the run's arena games
/// rate, with the numbers `brandubh ratings` gives for the same games, and
/// its table has an Elo wherever a rating exists.
#[test]
fn report_rates_each_generation_as_ratings_does() {
    let dir = std::env::temp_dir().join(format!("brandubh-report-rated-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let cfg = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny-run.toml");
    let out = brandubh(&["loop", "--config", cfg, "--run-dir", d]);
    assert_ok(&out);
    let report_dir = dir.join("charts");
    let out = brandubh(&[
        "report",
        "--run-dir",
        d,
        "--out",
        report_dir.to_str().unwrap(),
    ]);
    assert_ok(&out);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report_dir.join("report.json")).unwrap())
            .unwrap();

    // The same games, rated by the ratings command (equal-time games are
    // left out of a run's ratings: their players meet nobody else).
    let mut files: Vec<String> = std::fs::read_dir(dir.join("arena"))
        .unwrap()
        .map(|e| e.unwrap().path().to_string_lossy().into_owned())
        .filter(|p| p.ends_with(".jsonl") && !p.contains("-equal-time-"))
        .collect();
    files.sort();
    let anchor = report["anchor"].as_str().unwrap().to_string();
    let mut args = vec!["ratings", "--json", "--anchor", anchor.as_str()];
    args.extend(files.iter().map(|s| s.as_str()));
    let tables = ok_json(&args);
    let table = &tables[0];
    let rating_of = |generation: u64| {
        table["ratings"].as_array().unwrap().iter().find_map(|r| {
            r["specs"]
                .as_array()
                .unwrap()
                .iter()
                .any(|s| {
                    s.as_str()
                        .unwrap()
                        .contains(&format!("gen-{generation:04}"))
                })
                .then(|| r["elo"].as_f64().unwrap())
        })
    };

    let gens = report["generations"].as_array().unwrap();
    assert_eq!(gens.len(), 2, "{report}");
    let mut rated = 0;
    for g in gens {
        let n = g["generation"].as_u64().unwrap();
        match (rating_of(n), g["elo"].as_f64()) {
            (Some(want), Some(got)) => {
                assert!((want - got).abs() < 1e-6, "generation {n}: {got} vs {want}");
                rated += 1;
            }
            (None, None) => {}
            other => panic!("generation {n}: report and ratings disagree: {other:?}"),
        }
    }
    assert_eq!(
        rated, 2,
        "both generations of the tiny run are rated: {report}"
    );
    // CPU-hours are positive and grow with each generation, and their
    // chart is drawn.
    let cpu: Vec<f64> = gens
        .iter()
        .map(|g| g["cpu_hours"].as_f64().unwrap())
        .collect();
    assert!(cpu[0] > 0.0 && cpu[1] > cpu[0], "{cpu:?}");
    assert!(report_dir.join("elo_by_cpu_hour.png").is_file());
    // No generation is drawn as a fixed reference player.
    for r in report["references"].as_array().unwrap() {
        assert!(!r["player"].as_str().unwrap().starts_with("mcts:"), "{r}");
    }
    // The table: an Elo in every row of a rated generation.
    let md = std::fs::read_to_string(report_dir.join("report.md")).unwrap();
    let rows: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| generation"))
        .collect();
    assert_eq!(rows.len(), 2, "{md}");
    for row in rows {
        let elo = row.split('|').nth(6).unwrap().trim();
        assert!(elo.contains('±'), "no Elo in `{row}`");
    }
    for stem in ["elo_by_generation", "elo_by_hour"] {
        assert!(report_dir.join(format!("{stem}.png")).exists());
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The inference engine is a flag: each engine runs a shipped net in
/// search, and they give the net's value at the root within 1e-4.
#[test]
fn each_inference_engine_runs_a_shipped_net() {
    let mut values = Vec::new();
    for engine in ["native", "tract", "flex"] {
        let v = ok_json(&[
            "analyze",
            "--inference",
            engine,
            "--rules",
            "wtf",
            "--player",
            "mcts:model=models/wtf,sims=8,batch=1,threads=1",
            "--raw",
            "--json",
        ]);
        assert_eq!(v["simulations"], 8, "{engine}: {v}");
        values.push(v["raw"]["value"].as_f64().unwrap());
    }
    for v in &values {
        assert!((v - values[0]).abs() < 1e-4, "{values:?}");
    }
}

#[test]
fn loop_from_a_checkpoint_fine_tunes_it_for_the_runs_rules() {
    let d = scratch("loop-from");
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
    let d = scratch("fork");
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
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn generations_extends_a_finished_run_in_place_and_never_shortens_one() {
    let d = std::env::temp_dir().join(format!("brandubh-extend-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
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
    let _ = std::fs::remove_dir_all(&d);
}
