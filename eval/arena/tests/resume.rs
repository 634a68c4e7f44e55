//! A match cut short goes on from its record file and ends with the games
//! and figures of one played in a single run; another match's games are
//! refused.

use brandubh_arena::{read_records, resumable_pairs, run_match, run_match_from};
use brandubh_arena::{MatchConfig, OpeningFilter};
use brandubh_play::PlayerSpec;
use brandubh_rules::RuleSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn cfg(pairs: u64, seed: u64) -> MatchConfig {
    MatchConfig {
        rules: Arc::new(RuleSet::builtin("wtf").unwrap()),
        a: PlayerSpec::parse("alphabeta:depth=2").unwrap(),
        b: PlayerSpec::parse("random").unwrap(),
        pairs,
        openings: 4,
        seed,
        max_plies: 300,
        threads: 1,
        sprt: None,
        swap_sides: true,
        balanced: Some(OpeningFilter {
            margin: 100,
            nodes: 2_000,
        }),
        clock: None,
        ctx: brandubh_play::PlayContext::uniform_only(),
    }
}

/// A new, empty directory for one test, removed when the guard is dropped.
fn scratch(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("brandubh-resume-{name}-"))
        .tempdir()
        .unwrap()
}

fn resume(c: &MatchConfig, text: &str, out: &Path) -> brandubh_arena::Resumed {
    resumable_pairs(
        c,
        text,
        &PathBuf::from(format!("{}.partial", out.display())),
    )
    .unwrap()
}

#[test]
fn a_match_cut_mid_pair_ends_as_if_never_stopped() {
    let dir_guard = scratch("cut");
    let dir = dir_guard.path();
    let c = cfg(4, 7);
    let (whole, games) = run_match(&c, Some(&dir.join("whole.jsonl")), &|_| {}).unwrap();
    let text = std::fs::read_to_string(dir.join("whole.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 8);
    // Killed while writing the sixth game: two whole pairs, one game of the
    // third, and half a line.
    let cut = format!(
        "{}\n{}",
        lines[..5].join("\n"),
        &lines[5][..lines[5].len() / 2]
    );
    let out = dir.join("cut.jsonl");
    let prior = resume(&c, &cut, &out);
    assert_eq!((prior.pairs, prior.games.len(), prior.dropped), (2, 4, 1));
    assert_eq!(prior.games[..], games[..4]);
    let (summary, again) = run_match_from(&c, &prior.games, Some(&out), &|_| {}).unwrap();
    assert_eq!(again, games);
    assert_eq!(read_records(&out).unwrap(), games);
    assert_eq!(summary.pentanomial.0, whole.pentanomial.0);
    assert_eq!(summary.score, whole.score);
    assert_eq!(summary.a_as_attackers, whole.a_as_attackers);
    assert_eq!(summary.b_as_defenders, whole.b_as_defenders);
    assert_eq!(summary.pairs, 4);
}

#[test]
fn a_finished_match_extends_to_more_pairs() {
    let dir_guard = scratch("extend");
    let dir = dir_guard.path();
    let (_, five) = run_match(&cfg(5, 3), None, &|_| {}).unwrap();
    let out = dir.join("m.jsonl");
    run_match(&cfg(2, 3), Some(&out), &|_| {}).unwrap();
    let text = std::fs::read_to_string(&out).unwrap();
    let prior = resume(&cfg(5, 3), &text, &out);
    assert_eq!((prior.pairs, prior.dropped), (2, 0));
    let (s, games) = run_match_from(&cfg(5, 3), &prior.games, Some(&out), &|_| {}).unwrap();
    assert_eq!(games, five);
    assert_eq!(s.games, 10);
}

#[test]
fn games_of_another_match_are_refused_naming_the_line() {
    let dir_guard = scratch("other");
    let dir = dir_guard.path();
    let out = dir.join("m.jsonl");
    run_match(&cfg(3, 5), Some(&out), &|_| {}).unwrap();
    let text = std::fs::read_to_string(&out).unwrap();
    let err = |c: &MatchConfig| {
        resumable_pairs(c, &text, &out)
            .map(|r| r.pairs)
            .unwrap_err()
            .to_string()
    };
    let e = err(&cfg(3, 6));
    assert!(
        e.contains("m.jsonl") && e.contains("line 1") && e.contains("--seed"),
        "{e}"
    );
    let mut swapped = cfg(3, 5);
    std::mem::swap(&mut swapped.a, &mut swapped.b);
    let e = err(&swapped);
    assert!(e.contains("attackers alphabeta:depth=2"), "{e}");
    let mut fewer = cfg(3, 5);
    fewer.openings = 2;
    assert!(err(&fewer).contains("opening"));
    let e = err(&cfg(2, 5));
    assert!(e.contains("line 5") && e.contains("pair 2"), "{e}");
    let mut other_rules = cfg(3, 5);
    other_rules.rules = Arc::new(RuleSet::builtin("modern").unwrap());
    assert!(err(&other_rules).contains("this match plays modern"));
    // A game twice is a damaged file, not a whole pair.
    let first = text.lines().next().unwrap();
    let twice = format!("{first}\n{first}\n");
    let e = resumable_pairs(&cfg(3, 5), &twice, &out)
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 2") && e.contains("second time"), "{e}");
}
