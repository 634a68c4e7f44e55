//! Studying positions and rule sets: `balance`, `tune-eval` and `analyze`.

use crate::{assert_ok, brandubh, ok_json, scratch};

#[test]
fn balance_plays_and_reads_game_files() {
    let dir_guard = scratch("balance");
    let dir = dir_guard.path();
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
}

#[test]
fn tune_eval_fits_weights_that_a_player_can_use() {
    let dir_guard = scratch("tune");
    let dir = dir_guard.path();
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
