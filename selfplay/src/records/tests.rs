//! Unit tests of the readers' checks on hand-made tables.

use super::*;
use arrow_array::builder::{StringBuilder, UInt32Builder, UInt64Builder};
use arrow_array::{ArrayRef, RecordBatch};
use std::sync::Arc;

/// A games table whose one row has `result` and `reason` as given.
fn games_batch(result: &str, reason: Option<&str>) -> RecordBatch {
    let one_u64 = |v| {
        let mut b = UInt64Builder::new();
        b.append_value(v);
        Arc::new(b.finish()) as ArrayRef
    };
    let one_str = |v: Option<&str>| {
        let mut b = StringBuilder::new();
        b.append_option(v);
        Arc::new(b.finish()) as ArrayRef
    };
    let mut plies = UInt32Builder::new();
    plies.append_value(0);
    let cols = vec![
        one_u64(7),
        one_str(Some("modern")),
        one_u64(1),
        one_str(Some("uniform")),
        one_u64(3),
        one_str(Some(result)),
        one_str(reason),
        Arc::new(plies.finish()) as ArrayRef,
        one_str(Some("")),
    ];
    RecordBatch::try_new(Arc::new(games_schema()), cols).unwrap()
}

/// A result or end reason this build does not know is an error naming
/// the file, the game and the row, never read as "unfinished".
#[test]
fn unknown_results_and_reasons_are_refused() {
    let dir = std::env::temp_dir().join(format!("brandubh-unknown-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let game = SelfPlayGame {
        game_id: 7,
        rules: "modern".into(),
        rules_hash: 1,
        model_id: "uniform".into(),
        seed: 3,
        result: None,
        reason: None,
        plies: 0,
        moves: Vec::new(),
        positions: Vec::new(),
    };
    let path = write_shard(&dir, 0, std::slice::from_ref(&game)).unwrap();
    assert_eq!(read_shard(&path).unwrap(), vec![game]);
    // The same row as written by this build reads back; then the bad ones.
    write_batch(&path, "games", games_batch("unfinished", None)).unwrap();
    assert!(read_shard(&path).unwrap()[0].result.is_none());
    for (result, reason, named) in [
        ("attackers_won", None, "attackers_won"),
        ("defenders_win", Some("king_vanished"), "king_vanished"),
        ("", None, "row 0"),
    ] {
        write_batch(&path, "games", games_batch(result, reason)).unwrap();
        let err = read_shard(&path).unwrap_err().to_string();
        assert!(
            err.contains("shard-000000.games.parquet")
                && err.contains("game 7 (row 0)")
                && err.contains(named),
            "{err}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}
