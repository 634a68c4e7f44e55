//! Rule-set files: the shipped ones load, bad ones are refused with an
//! error naming file, key and problem, and new readings need no code.

mod common;
use brandubh_rules::{EndReason::*, GameResult::*, Side::*, *};
use common::*;
use std::sync::Arc;

fn modern_text() -> &'static str {
    BUILTIN.iter().find(|(n, _)| *n == "modern").unwrap().1
}

fn err_of(text: &str) -> String {
    RuleSet::from_toml(text, "test.toml")
        .unwrap_err()
        .to_string()
}

#[test]
fn shipped_files_load_and_match_builtins() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/rules");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let r = RuleSet::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.name(), path.file_stem().unwrap().to_str().unwrap());
        assert_eq!(r.hash, RuleSet::builtin(r.name()).unwrap().hash);
        assert!(!r.options.description.is_empty());
        seen += 1;
    }
    assert_eq!(seen, 5);
}

#[test]
fn rule_hashes_differ_but_ignore_names() {
    let hashes: Vec<u64> = ALL.iter().map(|n| rules(n).hash).collect();
    for i in 0..5 {
        for j in 0..i {
            assert_ne!(hashes[i], hashes[j], "{} vs {}", ALL[i], ALL[j]);
        }
    }
    let renamed = modern_text().replace("name = \"modern\"", "name = \"other\"");
    assert_eq!(
        RuleSet::from_toml(&renamed, "x").unwrap().hash,
        rules("modern").hash
    );
}

#[test]
fn unknown_key_is_named() {
    let text = modern_text().replace(
        "pass = \"everyone\"",
        "pass = \"everyone\"\ncolour = \"red\"",
    );
    let e = err_of(&text);
    assert!(
        e.contains("test.toml") && e.contains("throne") && e.contains("colour"),
        "{e}"
    );
}

#[test]
fn bad_value_is_named() {
    let e = err_of(&modern_text().replacen(
        "stop = \"king\"                        # only",
        "stop = \"queen\" # only",
        1,
    ));
    assert!(e.contains("throne.stop") && e.contains("queen"), "{e}");
    let e = err_of(&modern_text().replace("quiet_ply_limit = 100", "quiet_ply_limit = \"many\""));
    assert!(e.contains("end.quiet_ply_limit"), "{e}");
}

#[test]
fn missing_key_is_named() {
    let e = err_of(&modern_text().replace("encirclement = false", ""));
    assert!(e.contains("encirclement"), "{e}");
}

#[test]
fn overlapping_pieces_refused() {
    let e = err_of(&modern_text().replace("defenders = [\"d3\"", "defenders = [\"d2\""));
    assert!(
        e.contains("setup.defenders") && e.contains("d2 holds two pieces"),
        "{e}"
    );
}

#[test]
fn forbidden_squares_refused() {
    let e = err_of(&modern_text().replace("\"d1\", \"d2\"", "\"a1\", \"d2\""));
    assert!(
        e.contains("setup.attackers") && e.contains("a1 is a corner"),
        "{e}"
    );
    let e = err_of(
        &modern_text()
            .replace("defenders = [\"d3\"", "defenders = [\"d4\"")
            .replace("king = \"d4\"", "king = \"e5\""),
    );
    assert!(e.contains("setup.defenders") && e.contains("throne"), "{e}");
    let e = err_of(&modern_text().replace("king = \"d4\"", "king = \"g7\""));
    assert!(e.contains("setup.king"), "{e}");
    let e = err_of(&modern_text().replace("\"d7\"]", "\"d9\"]"));
    assert!(e.contains("setup.attackers") && e.contains("d9"), "{e}");
}

#[test]
fn impossible_combinations_refused() {
    let e = err_of(&modern_text().replace("edge_rule = false", "edge_rule = true"));
    assert!(e.contains("end.edge_rule") && e.contains("pass"), "{e}");
    let e = err_of(&modern_text().replace("repetition_count = 3", "repetition_count = 1"));
    assert!(e.contains("end.repetition_count"), "{e}");
}

#[test]
fn malformed_toml_refused() {
    let e = err_of("name = ");
    assert!(e.contains("test.toml"), "{e}");
    assert!(RuleSet::from_file(std::path::Path::new("/no/such/rules.toml")).is_err());
    let e = RuleSet::named("nonesuch").unwrap_err().to_string();
    assert!(e.contains("nonesuch") && e.contains("modern"), "{e}");
}

/// A new reading without code: the king strong beside the throne (three
/// attackers and the throne) but free to return to it.
#[test]
fn new_reading_strong_beside_throne_may_return() {
    let text = modern_text()
        .replace(
            "capture_beside_throne = \"sandwich\"",
            "capture_beside_throne = \"surround\"",
        )
        .replace("name = \"modern\"", "name = \"strong-beside\"");
    let r = Arc::new(RuleSet::from_toml(&text, "strong-beside.toml").unwrap());
    let g = |att: &str, side| {
        let b = Board {
            attackers: squares(att),
            defenders: squares("g2"),
            king: squares("d5"),
        };
        Game::from_position(r.clone(), Position::from_board(&r, b, side).unwrap())
    };
    let mut two = g("c5 g5", Attackers);
    two.play(mv("g5-e5")).unwrap();
    assert_eq!(outcome(&two), None, "two do not take him beside the throne");
    let mut three = g("c5 e5 a6", Attackers);
    three.play(mv("a6-d6")).unwrap();
    assert_eq!(outcome(&three), Some((AttackersWin, KingCaptured)));
    assert!(
        g("", Defenders).legal_moves().contains(&mv("d5-d4")),
        "may return"
    );
}

/// A new reading without code: threefold repetition is a draw.
#[test]
fn new_reading_repetition_draws() {
    let text = modern_text().replace("repetition = \"mover_loses\"", "repetition = \"draw\"");
    let r = Arc::new(RuleSet::from_toml(&text, "rep-draw.toml").unwrap());
    let b = Board {
        attackers: squares("b2"),
        defenders: squares("f6"),
        king: squares("d6"),
    };
    let mut g = Game::from_position(r.clone(), Position::from_board(&r, b, Attackers).unwrap());
    for m in [
        "b2-b3", "f6-f5", "b3-b2", "f5-f6", "b2-b3", "f6-f5", "b3-b2", "f5-f6",
    ] {
        assert_eq!(outcome(&g), None);
        g.play(mv(m)).unwrap();
    }
    assert_eq!(outcome(&g), Some((Draw, Repetition)));
}

#[test]
fn opentafl_rules_strings() {
    let (s, missing) = opentafl_rules(&rules("modern"));
    assert!(s.starts_with("dim:7 "), "{s}");
    assert!(
        s.contains("ks:w") && s.contains("tfr:w") && s.contains("atkf:y"),
        "{s}"
    );
    assert!(
        s.ends_with("start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/"),
        "{s}"
    );
    assert!(
        missing.iter().any(|m| m.contains("100 plies")),
        "{missing:?}"
    );
    let (s, missing) = opentafl_rules(&rules("wtf"));
    assert!(
        s.contains("surf:y") && s.contains("cenhe:tT ") && s.contains("cenh:t "),
        "{s}"
    );
    assert!(
        missing
            .iter()
            .any(|m| m.contains("king capture on the throne")),
        "{missing:?}"
    );
    let (s, missing) = opentafl_rules(&rules("raven"));
    assert!(s.contains("atkf:n") && s.contains("corh: "), "{s}");
    assert!(
        missing.iter().any(|m| m.contains("edge rule")),
        "{missing:?}"
    );
}
