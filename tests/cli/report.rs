//! `report`: a run's progress, drawn and rated.

use crate::{assert_ok, brandubh, ok_json, scratch};

#[test]
fn report_draws_a_runs_progress() {
    let dir_guard = scratch("report");
    let dir = dir_guard.path();
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
    assert!(!text.contains("brandubh ladder"), "{text}");
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
    // A run whose last generation stands far above its top rung is told
    // how to lengthen its ladder.
    let outgrown = run_beside(
        "outgrown",
        r#"{"anchor":"alphabeta:depth=2","ratings":[
            {"player":"mcts:model=o/checkpoints/gen-0003,sims=64","elo":260.0,"ci95":90.0},
            {"player":"alphabeta:depth=3","elo":40.0,"ci95":30.0},
            {"player":"alphabeta:depth=2","elo":0.0,"ci95":0.0}]}"#,
    );
    let out = brandubh(&["report", "--run-dir", outgrown.to_str().unwrap()]);
    assert_ok(&out);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(
            "generation 3 is rated +220 Elo above the ladder's top rung (alphabeta:depth=3)"
        ) && text.contains("--rung alphabeta:depth=6 --rung alphabeta:depth=8"),
        "{text}"
    );
    assert!(
        !std::fs::read_to_string(outgrown.join("report").join("report.md"))
            .unwrap()
            .contains("brandubh ladder"),
        "the hint is for the terminal, not the report"
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
}

/// The report of a tiny run rates every generation the run's arena games
/// rate, with the numbers `brandubh ratings` gives for the same games, and
/// its table has an Elo wherever a rating exists.
#[test]
fn report_rates_each_generation_as_ratings_does() {
    let dir_guard = scratch("report-rated");
    let dir = dir_guard.path().join("run");
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
}
