//! The perft driver: one data file per rule set (`data/NAME.perft`), read
//! the same way for every rule set. The default run checks counts up to
//! 2 M nodes and cross-checks every position against the reference
//! implementation to depth 3; `cargo test --release -- --ignored` checks
//! every count in the files (perft 6 included).

mod common;
#[path = "common/reference.rs"]
mod reference;

use brandubh_rules::*;
use common::{rules, ALL};

struct Case {
    id: String,
    position: Option<(String, Side)>,
    counts: Vec<(u32, u64)>,
}

fn read_cases(name: &str) -> Vec<Case> {
    let path = format!("{}/tests/data/{name}.perft", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut cases: Vec<Case> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let bad = || -> ! { panic!("{path}:{}: cannot read `{line}`", n + 1) };
        match words[..] {
            ["id", id] => cases.push(Case {
                id: id.to_string(),
                position: None,
                counts: vec![],
            }),
            ["position", "start"] => {}
            ["position", rec, side] => {
                cases.last_mut().unwrap_or_else(|| bad()).position =
                    Some((rec.into(), side.parse().unwrap()));
            }
            ["perft", d, nodes] => cases
                .last_mut()
                .unwrap_or_else(|| bad())
                .counts
                .push((d.parse().unwrap(), nodes.parse().unwrap())),
            _ => {
                bad();
            }
        }
    }
    cases
}

fn position_of(r: &RuleSet, case: &Case) -> Position {
    match &case.position {
        None => Position::start(r),
        Some((rec, side)) => {
            Position::from_board(r, Board::from_record(rec).unwrap(), *side).unwrap()
        }
    }
}

fn run(max_nodes: u64) {
    for name in ALL {
        let r = rules(name);
        let cases = read_cases(name);
        assert!(cases.len() >= 4, "{name}: too few perft cases");
        for case in &cases {
            let pos = position_of(&r, case);
            for &(depth, nodes) in &case.counts {
                if nodes <= max_nodes {
                    assert_eq!(
                        perft(&r, &pos, depth),
                        nodes,
                        "{name} {} perft {depth}",
                        case.id
                    );
                }
            }
        }
    }
}

#[test]
fn perft_files_up_to_2m_nodes() {
    run(2_000_000);
}

#[test]
fn perft_positions_agree_with_reference() {
    for name in ALL {
        let r = rules(name);
        for case in read_cases(name) {
            let pos = position_of(&r, &case);
            let refpos = reference::RefPos::of(&pos);
            for depth in 1..=3 {
                let slow = reference::perft(&r, &refpos, depth, &mut Vec::new());
                assert_eq!(
                    perft(&r, &pos, depth),
                    slow,
                    "{name} {} depth {depth}",
                    case.id
                );
            }
        }
    }
}

#[test]
fn divide_adds_up() {
    let r = rules("wtf");
    let pos = Position::start(&r);
    let parts = divide(&r, &pos, 3);
    assert_eq!(parts.len(), 40);
    assert_eq!(parts.iter().map(|p| p.1).sum::<u64>(), 39_512);
}

#[test]
fn stats_nodes_match_plain_perft() {
    for name in ALL {
        let r = rules(name);
        let pos = Position::start(&r);
        let stats = perft_stats(&r, &pos, 3);
        for s in &stats {
            assert_eq!(
                s.nodes,
                perft(&r, &pos, s.depth),
                "{name} depth {}",
                s.depth
            );
        }
    }
}

#[test]
#[ignore = "minutes of work: run with --ignored"]
fn perft_files_all_depths() {
    run(u64::MAX);
}
