//! Reading shards back: each table checked against its schema and
//! version, boards checked for possibility, unreadable shards reported by
//! name and skipped.

use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type};
use arrow_array::RecordBatch;
use arrow_schema::Schema;
use brandubh_rules::{Bitboard, Board, EndReason, GameResult, Side};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use std::path::{Path, PathBuf};

use super::*;

/// Reads a file whole: shards are small, and the reader goes over each
/// table twice (its pages, then its rows).
pub(crate) fn read_bytes(path: &Path) -> Result<bytes::Bytes, RecordError> {
    std::fs::read(path)
        .map(bytes::Bytes::from)
        .map_err(|e| io_err(path, e))
}

/// Reads a table's file (see [`read_table_from`]).
pub(crate) fn read_table(
    path: &Path,
    table: &str,
    schema: &Schema,
) -> Result<Vec<RecordBatch>, RecordError> {
    read_table_from(read_bytes(path)?, path, table, schema)
}

/// Reads one table from `data` (named `path` in errors), checking its
/// schema version, its table name and its columns' types.
pub(crate) fn read_table_from(
    data: bytes::Bytes,
    path: &Path,
    table: &str,
    schema: &Schema,
) -> Result<Vec<RecordBatch>, RecordError> {
    check_footer(&data).map_err(|why| RecordError::Schema {
        path: path.to_path_buf(),
        why,
    })?;
    let builder = contained(path, || {
        ParquetRecordBatchReaderBuilder::try_new(data.clone()).map_err(|e| io_err(path, e))
    })?;
    check_column_chunks(builder.metadata(), data.len() as u64, path)?;
    let kv = builder
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .cloned()
        .unwrap_or_default();
    let get = |k: &str| kv.iter().find(|e| e.key == k).and_then(|e| e.value.clone());
    let bad = |why: String| RecordError::Schema {
        path: path.to_path_buf(),
        why,
    };
    let missing: &[&str] = match get(VERSION_KEY) {
        Some(v) if v == SCHEMA_VERSION => &[],
        Some(v) => match OLDER_VERSIONS.iter().find(|(old, _)| *old == v) {
            Some((_, lacks)) => lacks,
            None => {
                return Err(bad(format!(
                    "schema version {v}, this build reads {SCHEMA_VERSION} and 1"
                )))
            }
        },
        None => return Err(bad(format!("no `{VERSION_KEY}` in the file metadata"))),
    };
    if get(TABLE_KEY).as_deref() != Some(table) {
        return Err(bad(format!("expected the `{table}` table")));
    }
    for f in schema
        .fields()
        .iter()
        .filter(|f| !missing.contains(&f.name().as_str()))
    {
        if builder
            .schema()
            .field_with_name(f.name())
            .map(|g| g.data_type() != f.data_type())
            .unwrap_or(true)
        {
            return Err(bad(format!(
                "column `{}` missing or of the wrong type",
                f.name()
            )));
        }
    }
    contained(path, || check_pages(builder.metadata(), &data, path))?;
    let batches = contained(path, || {
        let reader = builder.build().map_err(|e| io_err(path, e))?;
        reader
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| io_err(path, e))
    })?;
    // The decoder can hand back arrays whose offsets or text do not hold
    // (the fuzzer found a string column read past its buffer); arrow's
    // accessors trust them, so every array is checked in full first.
    for b in &batches {
        for (field, column) in b.schema().fields().iter().zip(b.columns()) {
            column
                .to_data()
                .validate_full()
                .map_err(|e| bad(format!("column `{}`: {e}", field.name())))?;
        }
    }
    Ok(batches)
}

/// What is wrong with a board read from a file, if anything: squares past
/// g7, two pieces on one square, more than one king.
pub(crate) fn board_fault(b: &Board) -> Option<String> {
    let outside = !((1u64 << 49) - 1);
    for (name, bits) in [
        ("attackers", b.attackers.0),
        ("defenders", b.defenders.0),
        ("king", b.king.0),
    ] {
        if bits & outside != 0 {
            return Some(format!("`{name}` has bits beyond square 48 ({bits:#x})"));
        }
    }
    if b.attackers.0 & b.defenders.0 != 0
        || b.attackers.0 & b.king.0 != 0
        || b.defenders.0 & b.king.0 != 0
    {
        return Some("two pieces on one square".into());
    }
    if b.king.0.count_ones() > 1 {
        return Some(format!("{} kings", b.king.0.count_ones()));
    }
    None
}

/// The number of games in a shard, from its games file alone.
pub fn count_games(games_path: &Path) -> Result<u64, RecordError> {
    Ok(read_table(games_path, "games", &games_schema())?
        .iter()
        .map(|b| b.num_rows() as u64)
        .sum())
}

/// Reads a shard (given its games file) with every position.
pub fn read_shard(games_path: &Path) -> Result<Vec<SelfPlayGame>, RecordError> {
    let pos_path = positions_path(games_path);
    read_shard_from(read_bytes(games_path)?, read_bytes(&pos_path)?, games_path)
}

/// Reads a shard held in memory, as [`read_shard`] reads one from files;
/// `games_path` names it in errors (the positions file as its sibling).
pub fn read_shard_bytes(
    games: bytes::Bytes,
    positions: bytes::Bytes,
    games_path: &Path,
) -> Result<Vec<SelfPlayGame>, RecordError> {
    read_shard_from(games, positions, games_path)
}

pub(crate) fn read_shard_from(
    games_file: bytes::Bytes,
    positions_file: bytes::Bytes,
    games_path: &Path,
) -> Result<Vec<SelfPlayGame>, RecordError> {
    let mut games = Vec::new();
    for b in read_table_from(games_file, games_path, "games", &games_schema())? {
        let col = |n: &str| b.column_by_name(n).expect("schema checked").clone();
        let (id, rules, rh, model, seed) = (
            col("game_id"),
            col("rules"),
            col("rules_hash"),
            col("model_id"),
            col("seed"),
        );
        let (result, reason, plies, moves) =
            (col("result"), col("reason"), col("plies"), col("moves"));
        for i in 0..b.num_rows() {
            let game_id = id.as_primitive::<UInt64Type>().value(i);
            let bad = |why: String| RecordError::Schema {
                path: games_path.to_path_buf(),
                why: format!("game {game_id} (row {i}): {why}"),
            };
            let result = match result.as_string::<i32>().value(i) {
                "unfinished" => None,
                r => Some(r.parse::<GameResult>().map_err(|e| bad(e.to_string()))?),
            };
            let reason = if reason.is_null(i) {
                None
            } else {
                let r = reason.as_string::<i32>().value(i);
                Some(r.parse::<EndReason>().map_err(|e| bad(e.to_string()))?)
            };
            games.push(SelfPlayGame {
                game_id,
                rules: rules.as_string::<i32>().value(i).to_string(),
                rules_hash: rh.as_primitive::<UInt64Type>().value(i),
                model_id: model.as_string::<i32>().value(i).to_string(),
                seed: seed.as_primitive::<UInt64Type>().value(i),
                result,
                reason,
                plies: plies.as_primitive::<UInt32Type>().value(i),
                moves: moves
                    .as_string::<i32>()
                    .value(i)
                    .split_whitespace()
                    .map(String::from)
                    .collect(),
                positions: Vec::new(),
            });
        }
    }
    let pos_path = positions_path(games_path);
    for b in read_table_from(positions_file, &pos_path, "positions", &positions_schema())? {
        let col = |n: &str| b.column_by_name(n).expect("schema checked").clone();
        let gid = col("game_id");
        let (ply, att, def, king, stm) = (
            col("ply"),
            col("attackers"),
            col("defenders"),
            col("king"),
            col("side_to_move"),
        );
        let (quiet, reps, vi, vc, pt) = (
            col("quiet_plies"),
            col("repetitions"),
            col("visit_index"),
            col("visit_count"),
            col("policy_target"),
        );
        let (rv, fs, mv, mi) = (
            col("root_value"),
            col("full_search"),
            col("move"),
            col("move_index"),
        );
        let rd = b.column_by_name("root_draw").cloned();
        for i in 0..b.num_rows() {
            let g = gid.as_primitive::<UInt64Type>().value(i);
            let Some(game) = games.iter_mut().find(|x| x.game_id == g) else {
                return Err(RecordError::Schema {
                    path: pos_path.clone(),
                    why: format!("position of game {g}, which the games file lacks"),
                });
            };
            let board = Board {
                attackers: Bitboard(att.as_primitive::<UInt64Type>().value(i)),
                defenders: Bitboard(def.as_primitive::<UInt64Type>().value(i)),
                king: Bitboard(king.as_primitive::<UInt64Type>().value(i)),
            };
            if let Some(why) = board_fault(&board) {
                return Err(RecordError::Schema {
                    path: pos_path.clone(),
                    why: format!("game {g}, row {i}: {why}"),
                });
            }
            let list_u16 = vi.as_list::<i32>().value(i);
            let list_u32 = vc.as_list::<i32>().value(i);
            let list_f32 = pt.as_list::<i32>().value(i);
            let idx = list_u16.as_primitive::<UInt16Type>();
            let cnt = list_u32.as_primitive::<UInt32Type>();
            game.positions.push(PositionRecord {
                ply: ply.as_primitive::<UInt32Type>().value(i),
                board,
                side_to_move: if stm.as_primitive::<UInt8Type>().value(i) == 0 {
                    Side::Attackers
                } else {
                    Side::Defenders
                },
                quiet_plies: quiet.as_primitive::<UInt16Type>().value(i),
                repetitions: reps.as_primitive::<UInt8Type>().value(i),
                visits: idx
                    .values()
                    .iter()
                    .copied()
                    .zip(cnt.values().iter().copied())
                    .collect(),
                target: list_f32.as_primitive::<Float32Type>().values().to_vec(),
                root_value: rv.as_primitive::<Float32Type>().value(i),
                root_draw: rd
                    .as_ref()
                    .map_or(f32::NAN, |c| c.as_primitive::<Float32Type>().value(i)),
                full_search: fs.as_boolean().value(i),
                mv: mv.as_string::<i32>().value(i).to_string(),
                move_index: (!mi.is_null(i)).then(|| mi.as_primitive::<UInt16Type>().value(i)),
            });
        }
    }
    Ok(games)
}

/// Every complete shard in `dir`, oldest first.
pub fn list_shards(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".games.parquet"))
        .collect();
    v.sort();
    v
}

/// Reads every shard of `dir`; unreadable shards are returned with their error, not fatal.
pub fn read_dir(dir: &Path) -> (Vec<SelfPlayGame>, Vec<RecordError>) {
    let mut games = Vec::new();
    let mut errors = Vec::new();
    for p in list_shards(dir) {
        match read_shard(&p) {
            Ok(g) => games.extend(g),
            Err(e) => errors.push(e),
        }
    }
    (games, errors)
}
