//! `brandubh engine` as a process, and `otep:` players in `brandubh match`.

use std::io::Write;
use std::process::{Command, Stdio};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_brandubh")
}

fn opentafl_string(rules: &str) -> String {
    let out = Command::new(bin())
        .args(["rules", "show", rules])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix("OpenTafl rules string: "))
        .expect("a rules string")
        .to_string()
}

#[test]
fn engine_process_answers_a_session_and_exits_on_eof() {
    let script = format!(
        "rules {}\nside attackers\nstart\nplay attackers\n\u{0}\u{7f}garbage\nclock x\nplay\n",
        opentafl_string("modern")
    );
    let lines = engine_session(
        &["--player", "alphabeta:depth=2", "--rules", "modern"],
        &script,
    );
    assert_eq!(lines[0], "hello");
    assert!(lines[1].starts_with("move "), "{lines:?}");
    assert!(
        lines[2..].iter().all(|l| l.starts_with("error 0 ")),
        "{lines:?}"
    );
}

fn games(path: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The same match in-process and over OTEP: every game move for move.
#[test]
fn a_match_over_otep_equals_the_same_match_in_process() {
    let dir = std::env::temp_dir().join(format!("brandubh-otep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rules = opentafl_string("modern");
    let run = |b: &str, out: &str| {
        let o = Command::new(bin())
            .args([
                "match",
                "--rules",
                &rules,
                "--a",
                "alphabeta:depth=2",
                "--b",
                b,
            ])
            .args([
                "--pairs",
                "3",
                "--threads",
                "1",
                "--seed",
                "5",
                "--json",
                "--out",
            ])
            .arg(dir.join(out))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        games(&dir.join(out))
    };
    let inproc = run("alphabeta:depth=1", "in.jsonl");
    let otep = run(
        "otep:brandubh engine --player alphabeta:depth=1",
        "otep.jsonl",
    );
    assert_eq!(inproc.len(), 6);
    for (a, b) in inproc.iter().zip(&otep) {
        assert_eq!(a["moves"], b["moves"]);
        assert_eq!(a["result"], b["result"]);
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// An engine that dies, or answers with an illegal move, loses that game
/// with the reason recorded, and the match goes on.
#[test]
fn a_broken_engine_forfeits_and_the_match_goes_on() {
    let dir = std::env::temp_dir().join(format!("brandubh-otep-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Says hello, then plays the same illegal move whatever it is asked.
    let script = dir.join("bad.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\necho hello\nwhile read line; do\n  case \"$line\" in play*) echo 'move a1-a2';; goodbye) exit 0;; esac\ndone\n",
    )
    .unwrap();
    let dead = dir.join("dead.sh");
    std::fs::write(&dead, "#!/bin/sh\necho hello\nread line\nexit 3\n").unwrap();
    for (file, reason) in [(&script, "illegal_move"), (&dead, "engine_failure")] {
        let out = dir.join("games.jsonl");
        let o = Command::new(bin())
            .args(["match", "--rules", "modern", "--a", "alphabeta:depth=1"])
            .arg("--b")
            .arg(format!("otep:sh {}", file.display()))
            .args(["--pairs", "2", "--threads", "1", "--json", "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let gs = games(&out);
        assert_eq!(gs.len(), 4);
        for g in &gs {
            assert_eq!(g["reason"], reason, "{g}");
            assert!(g["detail"].is_string(), "{g}");
            let b_attacks = g["attackers"].as_str().unwrap().starts_with("otep:");
            let want = if b_attacks {
                "defenders_win"
            } else {
                "attackers_win"
            };
            assert_eq!(g["result"], want, "{g}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Match games written as OpenTafl game files read back to the same end.
#[test]
fn opentafl_game_files_round_trip() {
    let dir = std::env::temp_dir().join(format!("brandubh-otg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let o = Command::new(bin())
        .args([
            "match",
            "--rules",
            "wtf",
            "--a",
            "alphabeta:depth=2",
            "--b",
            "random",
        ])
        .args(["--pairs", "2", "--threads", "1", "--json", "--out"])
        .arg(dir.join("m.jsonl"))
        .arg("--otg")
        .arg(dir.join("otg"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let records = games(&dir.join("m.jsonl"));
    // The same files again, from the JSON lines.
    let o = Command::new(bin())
        .args(["export-games", "--out"])
        .arg(dir.join("again"))
        .arg(dir.join("m.jsonl"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for r in &records {
        let (pair, game) = (r["pair"].as_u64().unwrap(), r["game"].as_u64().unwrap());
        let name = format!("pair-{pair:05}-game-{game}.otg");
        let file = dir.join("otg").join(&name);
        let text = std::fs::read_to_string(&file).unwrap();
        assert_eq!(
            text,
            std::fs::read_to_string(dir.join("again/m").join(&name)).unwrap()
        );
        let o = Command::new(bin())
            .args(["show", "--json", "--game"])
            .arg(&file)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["rules"], "wtf");
        assert_eq!(v["status"], r["result"], "{name}");
        let plies = v["plies"].as_array().unwrap().len() as u64;
        assert_eq!(plies, r["plies"].as_u64().unwrap());
    }
    // A broken file names its line.
    std::fs::write(dir.join("bad.otg"), "[rules:dim:7 start:/7/]\n\n1. a1-a2\n").unwrap();
    let o = Command::new(bin())
        .args(["show", "--game"])
        .arg(dir.join("bad.otg"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("line 1"));
    std::fs::remove_dir_all(&dir).ok();
}

/// One engine session: the script on standard input, the lines it answered.
fn engine_session(args: &[&str], script: &str) -> Vec<String> {
    let mut child = Command::new(bin())
        .arg("engine")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

/// A net's engine needs no `--rules` when the host sends its rule set's
/// string, and refuses other rules naming its own and what differs.
#[test]
fn a_net_engine_finds_its_rule_set_from_the_hosts_string() {
    let player = ["--player", "mcts:model=models/modern,sims=32,threads=1"];
    let modern = opentafl_string("modern");
    let lines = engine_session(&player, &format!("rules {modern}\nplay attackers\n"));
    assert_eq!(lines[0], "hello");
    assert!(lines[1].starts_with("move "), "{lines:?}");
    // OpenTafl's own Brandubh: unarmed king captured on four sides.
    let opentafl = "dim:7 name:Brandubh esc:c surf:n atkf:y ka:n ks:s cenh: cenhe: start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/";
    let lines = engine_session(&player, &format!("rules {opentafl}\nplay attackers\n"));
    let refusal = lines[1..].join("\n");
    assert!(refusal.starts_with("error 0 "), "{lines:?}");
    assert!(
        refusal.contains("the net plays rule set `modern`"),
        "{refusal}"
    );
    assert!(refusal.contains(&modern), "{refusal}");
    // With alpha-beta any rules play; modern's string plays modern in full.
    let lines = engine_session(
        &["--player", "alphabeta:depth=1"],
        &format!("rules {opentafl}\nplay attackers\n"),
    );
    assert!(lines[1].starts_with("move "), "{lines:?}");
}
