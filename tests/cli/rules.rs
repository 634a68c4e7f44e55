//! The rule sets and positions: `rules`, `perft` and `show`.

use crate::{brandubh, ok_json};

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
