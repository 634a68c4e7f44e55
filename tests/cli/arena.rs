//! Matches and ratings: player specs, resuming, clocks, and how a net is named in ratings.

use crate::{assert_ok, brandubh, ok_json, scratch};

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
    let dir_guard = scratch("cli-resume");
    let dir = dir_guard.path();
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

/// A net's games carry its model id, and the ratings rate it as one player
/// however its path was spelt.
#[test]
fn a_net_is_rated_by_its_model_id() {
    let dir_guard = scratch("identity");
    let dir = dir_guard.path();
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
}
