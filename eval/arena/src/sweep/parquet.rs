//! The study's games as one Parquet table (`games.parquet` in the study
//! directory), for pandas, polars or DuckDB: one row per game. The chunk
//! files stay the study's own store; this table is rebuilt from them with
//! each report, under a temporary name renamed into place.

use super::{cell_games, SweepError, Variant};
use arrow_array::builder::{StringBuilder, UInt32Builder, UInt64Builder, UInt8Builder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The key-value metadata entry that names the table's schema version.
pub const STUDY_GAMES_VERSION_KEY: &str = "brandubh.study_games.version";
/// Raised when a column changes meaning or goes away (docs/balance.md).
pub const STUDY_GAMES_VERSION: u32 = 1;

/// The table's columns, in order.
pub fn study_games_schema() -> Schema {
    let text = |name: &str, nullable| Field::new(name, DataType::Utf8, nullable);
    Schema::new(vec![
        text("variant", false),
        text("rules", false),
        text("rules_hash", false),
        text("attackers", false),
        text("defenders", false),
        Field::new("pair", DataType::UInt64, false),
        Field::new("game", DataType::UInt8, false),
        Field::new("seed", DataType::UInt64, false),
        text("opening", false),
        text("moves", false),
        text("result", false),
        text("reason", true),
        Field::new("plies", DataType::UInt32, false),
    ])
}

fn io(path: &Path, e: impl std::fmt::Display) -> SweepError {
    SweepError::Write {
        path: path.to_path_buf(),
        why: e.to_string(),
    }
}

/// Writes every game the study directory holds for `variants` to
/// `DIR/games.parquet`; returns its path and the number of rows.
pub fn write_study_games(dir: &Path, variants: &[Variant]) -> Result<(PathBuf, u64), SweepError> {
    let text = StringBuilder::new;
    let (mut variant, mut rules, mut hash, mut att, mut def) =
        (text(), text(), text(), text(), text());
    let (mut opening, mut moves, mut result, mut reason) = (text(), text(), text(), text());
    let (mut pair, mut game, mut seed, mut plies) = (
        UInt64Builder::new(),
        UInt8Builder::new(),
        UInt64Builder::new(),
        UInt32Builder::new(),
    );
    let mut rows = 0u64;
    for v in variants {
        for cell in &v.cells {
            for g in cell_games(dir, &v.name, cell)? {
                variant.append_value(&v.name);
                rules.append_value(&g.rules);
                hash.append_value(&g.rules_hash);
                att.append_value(&g.attackers);
                def.append_value(&g.defenders);
                pair.append_value(g.pair);
                game.append_value(g.game);
                seed.append_value(g.seed);
                opening.append_value(g.opening.join(" "));
                moves.append_value(g.moves.join(" "));
                result.append_value(g.result.as_str());
                reason.append_option(g.reason.map(|r| r.as_str()));
                plies.append_value(g.plies);
                rows += 1;
            }
        }
    }
    // In the schema's order.
    let cols: Vec<ArrayRef> = vec![
        Arc::new(variant.finish()),
        Arc::new(rules.finish()),
        Arc::new(hash.finish()),
        Arc::new(att.finish()),
        Arc::new(def.finish()),
        Arc::new(pair.finish()),
        Arc::new(game.finish()),
        Arc::new(seed.finish()),
        Arc::new(opening.finish()),
        Arc::new(moves.finish()),
        Arc::new(result.finish()),
        Arc::new(reason.finish()),
        Arc::new(plies.finish()),
    ];
    let path = dir.join("games.parquet");
    let batch =
        RecordBatch::try_new(Arc::new(study_games_schema()), cols).map_err(|e| io(&path, e))?;
    let tmp = brandubh_durable::temp_path(&path);
    let file = std::fs::File::create(&tmp).map_err(|e| io(&tmp, e))?;
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .set_key_value_metadata(Some(vec![KeyValue::new(
            STUDY_GAMES_VERSION_KEY.to_string(),
            STUDY_GAMES_VERSION.to_string(),
        )]))
        .build();
    let mut w = ArrowWriter::try_new(file, batch.schema(), Some(props)).map_err(|e| io(&tmp, e))?;
    w.write(&batch).map_err(|e| io(&tmp, e))?;
    let file = w.into_inner().map_err(|e| io(&tmp, e))?;
    file.sync_all().map_err(|e| io(&tmp, e))?;
    brandubh_durable::persist(&tmp, &path).map_err(|e| io(&path, e))?;
    Ok((path, rows))
}
