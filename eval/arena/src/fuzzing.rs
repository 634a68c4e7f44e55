//! What the fuzz targets (`fuzz/`) check, one function per parser or
//! loader, shared with the test that replays the kept corpus
//! (`tests/fuzz_corpus.rs`), so the default test run keeps every input the
//! fuzzer ever found interesting. Each takes raw bytes, feeds them to the
//! parser, and panics only when a property the parser promises fails: a
//! parser's own error is the right answer to bad input.

use brandubh_alphabeta::evaluation::EvalWeights;
use brandubh_play::otep::Engine;
use brandubh_play::PlayerSpec;
use brandubh_rules::{from_opentafl, opentafl_rules, read_otg, Board, MoveRecord, RuleSet};
use brandubh_selfplay::SelfPlayConfig;

/// A fuzz target's check.
pub type Check = fn(&[u8]);

/// The fuzz targets by name, for the corpus replay.
pub const TARGETS: [(&str, Check); 11] = [
    ("position_record", position_record),
    ("move_record", move_record),
    ("rules_toml", rules_toml),
    ("opentafl_rules", opentafl_rules_string),
    ("otg", otg),
    ("player_spec", player_spec),
    ("otep_engine", otep_engine),
    ("selfplay_config", selfplay_config),
    ("eval_weights", eval_weights),
    ("parquet_shard", parquet_shard),
    ("arena_records", arena_records),
];

fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

/// A position record that reads writes back to itself (in normal form).
pub fn position_record(data: &[u8]) {
    let Some(s) = text(data) else { return };
    if let Ok(b) = Board::from_record(s) {
        let again = Board::from_record(&b.to_record()).expect("a written record reads");
        assert_eq!(again, b);
    }
}

/// A move record that reads writes a record that reads to the same move.
pub fn move_record(data: &[u8]) {
    let Some(s) = text(data) else { return };
    if let Ok(m) = s.parse::<MoveRecord>() {
        let again: MoveRecord = m.to_string().parse().expect("a written move reads");
        assert_eq!(again.mv, m.mv);
    }
}

/// A rule-set file either fails with an error or gives a rule set whose
/// start position has legal moves to count.
pub fn rules_toml(data: &[u8]) {
    let Some(s) = text(data) else { return };
    if let Ok(r) = RuleSet::from_toml(s, "fuzz") {
        let pos = brandubh_rules::Position::start(&r);
        let _ = pos.count_moves(&r);
    }
}

/// An OpenTafl rules string we accept writes a string we accept again.
pub fn opentafl_rules_string(data: &[u8]) {
    let Some(s) = text(data) else { return };
    if let Ok(r) = from_opentafl(s) {
        let (again, _) = opentafl_rules(&r);
        let back = from_opentafl(&again).expect("a written rules string reads");
        assert_eq!(back.hash, r.hash, "{again}");
    }
}

/// A game file replays or names its fault.
pub fn otg(data: &[u8]) {
    let Some(s) = text(data) else { return };
    let _ = read_otg(s, &[]);
}

/// A player spec parses or names its fault (nothing is built).
pub fn player_spec(data: &[u8]) {
    let Some(s) = text(data) else { return };
    let _ = PlayerSpec::parse(s);
}

/// Engine-protocol input, line by line, to an alpha-beta engine at depth
/// 1: every line it writes is a protocol line.
pub fn otep_engine(data: &[u8]) {
    let mut out = Vec::new();
    {
        let spec = PlayerSpec::parse("alphabeta:depth=1,tt=1").expect("a valid spec");
        let mut e = Engine::new(
            &mut out,
            spec,
            1,
            Vec::new(),
            brandubh_play::PlayContext::uniform_only(),
        );
        let _ = e.run(data);
    }
    let written = String::from_utf8(out).expect("the engine writes text");
    for line in written.lines() {
        let first = line.split(' ').next().unwrap_or("");
        assert!(
            ["hello", "move", "analysis", "error", "status"].contains(&first),
            "not protocol: {line:?}"
        );
    }
}

/// Self-play settings parse and check, or name the key.
pub fn selfplay_config(data: &[u8]) {
    let Some(s) = text(data) else { return };
    if let Ok(c) = toml::from_str::<SelfPlayConfig>(s) {
        let _ = c.check();
    }
}

/// Evaluation weights parse within bounds, or name the key.
pub fn eval_weights(data: &[u8]) {
    let Some(s) = text(data) else { return };
    if let Ok(w) = EvalWeights::from_toml(s, "fuzz.toml") {
        assert!(w
            .to_array()
            .iter()
            .all(|v| v.abs() <= EvalWeights::MAX_WEIGHT as f64));
    }
}

/// A self-play shard (games file; positions from the same bytes) reads or
/// names its fault; a shard that reads holds only possible boards.
pub fn parquet_shard(data: &[u8]) {
    let bytes = bytes::Bytes::copy_from_slice(data);
    let name = std::path::Path::new("shard-000000.games.parquet");
    if let Ok(gs) = brandubh_selfplay::read_shard_bytes(bytes.clone(), bytes, name) {
        for p in gs.iter().flat_map(|g| &g.positions) {
            let all = p.board.attackers.0 | p.board.defenders.0 | p.board.king.0;
            assert_eq!(all >> 49, 0);
        }
    }
}

/// Arena game files (JSON lines): they read or name the line at fault; a
/// record that reads writes one that reads to the same record, and what
/// the tools compute from records (ratings, balance, tuning samples) gives
/// an answer or an error, never a panic.
pub fn arena_records(data: &[u8]) {
    let Some(s) = text(data) else { return };
    let Ok(recs) = crate::parse_records(s, std::path::Path::new("fuzz.jsonl")) else {
        return;
    };
    for r in &recs {
        let line = serde_json::to_string(r).expect("a record writes");
        let again = crate::parse_records(&line, std::path::Path::new("again.jsonl"))
            .expect("a written record reads");
        assert_eq!(again.len(), 1);
        assert_eq!(&again[0], r);
    }
    if let Some(first) = recs.first() {
        let _ = crate::ratings::rate(&recs, &first.attackers);
        if let Some(rules) = RuleSet::builtin(&first.rules) {
            let same: Vec<_> = recs
                .iter()
                .filter(|r| r.rules == first.rules)
                .cloned()
                .collect();
            let _ = crate::tune::samples(&std::sync::Arc::new(rules), &same, 0);
        }
    }
    let outcomes: Vec<crate::balance::GameOutcome> = recs.iter().map(Into::into).collect();
    let _ = crate::balance::summarise_all(&outcomes);
}
