//! Writing shards: each table under a temporary name, renamed into place,
//! positions first, and the shard and game numbering of a directory.

use arrow_array::builder::{
    BooleanBuilder, Float32Builder, Int8Builder, ListBuilder, StringBuilder, UInt16Builder,
    UInt32Builder, UInt64Builder, UInt8Builder,
};
use arrow_array::{ArrayRef, RecordBatch};
use brandubh_rules::EndReason;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::*;

pub(crate) fn write_batch(path: &Path, table: &str, batch: RecordBatch) -> Result<(), RecordError> {
    let tmp = brandubh_durable::temp_path(path);
    let file = std::fs::File::create(&tmp).map_err(|e| io_err(&tmp, e))?;
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .set_key_value_metadata(Some(vec![
            KeyValue::new(VERSION_KEY.to_string(), SCHEMA_VERSION.to_string()),
            KeyValue::new(TABLE_KEY.to_string(), table.to_string()),
        ]))
        .build();
    let mut w =
        ArrowWriter::try_new(file, batch.schema(), Some(props)).map_err(|e| io_err(&tmp, e))?;
    w.write(&batch).map_err(|e| io_err(&tmp, e))?;
    let file = w.into_inner().map_err(|e| io_err(&tmp, e))?;
    file.sync_all().map_err(|e| io_err(&tmp, e))?;
    brandubh_durable::persist(&tmp, path).map_err(|e| io_err(path, e))
}

/// The games file of shard `index` in `dir`.
pub fn shard_path(dir: &Path, index: u64) -> PathBuf {
    dir.join(format!("shard-{index:06}.games.parquet"))
}

pub(crate) fn positions_path(games_path: &Path) -> PathBuf {
    let s = games_path.display().to_string();
    PathBuf::from(s.replace(".games.parquet", ".positions.parquet"))
}

/// The next free shard index in `dir` (one past the highest complete or partial one).
pub fn next_shard_index(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_prefix("shard-")?.get(..6)?.parse::<u64>().ok()
        })
        .max()
        .map_or(0, |m| m + 1)
}

/// One past the highest game id in `dir`'s readable shards (0 for none):
/// where a new batch of games in the same directory starts its ids.
pub fn next_game_id(dir: &Path) -> u64 {
    list_shards(dir)
        .iter()
        .filter_map(|p| read_shard(p).ok())
        .flatten()
        .map(|g| g.game_id + 1)
        .max()
        .unwrap_or(0)
}

/// Writes one shard; returns the games file's path.
pub fn write_shard(dir: &Path, index: u64, games: &[SelfPlayGame]) -> Result<PathBuf, RecordError> {
    write_shard_named(dir, &format!("shard-{index:06}"), games)
}

/// Writes one shard as `STEM.positions.parquet` then `STEM.games.parquet`
/// (a reader lists games files, so it sees the shard whole or not at
/// all); returns the games file's path. Writers that share a directory
/// (self-play workers) each use stems of their own.
pub fn write_shard_named(
    dir: &Path,
    stem: &str,
    games: &[SelfPlayGame],
) -> Result<PathBuf, RecordError> {
    std::fs::create_dir_all(dir).map_err(|e| io_err(dir, e))?;
    let games_path = dir.join(format!("{stem}.games.parquet"));
    let pos_path = positions_path(&games_path);

    let mut c = (
        UInt64Builder::new(),
        UInt32Builder::new(),
        UInt64Builder::new(),
        UInt64Builder::new(),
        UInt64Builder::new(),
        UInt8Builder::new(),
        UInt16Builder::new(),
        UInt8Builder::new(),
    );
    let mut vi = ListBuilder::new(UInt16Builder::new());
    let mut vc = ListBuilder::new(UInt32Builder::new());
    let mut pt = ListBuilder::new(Float32Builder::new());
    let mut rv = Float32Builder::new();
    let mut rd = Float32Builder::new();
    let mut fs = BooleanBuilder::new();
    let mut mv = StringBuilder::new();
    let mut mi = UInt16Builder::new();
    let mut res = Int8Builder::new();
    let mut gres = StringBuilder::new();
    for g in games {
        for p in &g.positions {
            c.0.append_value(g.game_id);
            c.1.append_value(p.ply);
            c.2.append_value(p.board.attackers.0);
            c.3.append_value(p.board.defenders.0);
            c.4.append_value(p.board.king.0);
            c.5.append_value(p.side_to_move.index() as u8);
            c.6.append_value(p.quiet_plies);
            c.7.append_value(p.repetitions);
            for &(i, n) in &p.visits {
                vi.values().append_value(i);
                vc.values().append_value(n);
            }
            vi.append(true);
            vc.append(true);
            for &t in &p.target {
                pt.values().append_value(t);
            }
            pt.append(true);
            rv.append_value(p.root_value);
            rd.append_value(p.root_draw);
            fs.append_value(p.full_search);
            mv.append_value(&p.mv);
            mi.append_option(p.move_index);
            res.append_value(g.result_for(p.side_to_move));
            gres.append_value(g.result_str());
        }
    }
    let cols: Vec<ArrayRef> = vec![
        Arc::new(c.0.finish()),
        Arc::new(c.1.finish()),
        Arc::new(c.2.finish()),
        Arc::new(c.3.finish()),
        Arc::new(c.4.finish()),
        Arc::new(c.5.finish()),
        Arc::new(c.6.finish()),
        Arc::new(c.7.finish()),
        Arc::new(vi.finish()),
        Arc::new(vc.finish()),
        Arc::new(pt.finish()),
        Arc::new(rv.finish()),
        Arc::new(rd.finish()),
        Arc::new(fs.finish()),
        Arc::new(mv.finish()),
        Arc::new(mi.finish()),
        Arc::new(res.finish()),
        Arc::new(gres.finish()),
    ];
    let batch = RecordBatch::try_new(Arc::new(positions_schema()), cols)
        .map_err(|e| io_err(&pos_path, e))?;
    write_batch(&pos_path, "positions", batch)?;

    let mut id = UInt64Builder::new();
    let mut rules = StringBuilder::new();
    let mut rh = UInt64Builder::new();
    let mut model = StringBuilder::new();
    let mut seed = UInt64Builder::new();
    let mut result = StringBuilder::new();
    let mut reason = StringBuilder::new();
    let mut plies = UInt32Builder::new();
    let mut moves = StringBuilder::new();
    for g in games {
        id.append_value(g.game_id);
        rules.append_value(&g.rules);
        rh.append_value(g.rules_hash);
        model.append_value(&g.model_id);
        seed.append_value(g.seed);
        result.append_value(g.result_str());
        reason.append_option(g.reason.map(EndReason::as_str));
        plies.append_value(g.plies);
        moves.append_value(g.moves.join(" "));
    }
    let cols: Vec<ArrayRef> = vec![
        Arc::new(id.finish()),
        Arc::new(rules.finish()),
        Arc::new(rh.finish()),
        Arc::new(model.finish()),
        Arc::new(seed.finish()),
        Arc::new(result.finish()),
        Arc::new(reason.finish()),
        Arc::new(plies.finish()),
        Arc::new(moves.finish()),
    ];
    let batch =
        RecordBatch::try_new(Arc::new(games_schema()), cols).map_err(|e| io_err(&games_path, e))?;
    write_batch(&games_path, "games", batch)?;
    Ok(games_path)
}
