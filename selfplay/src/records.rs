//! Self-play game records in Parquet, schema version 1 (docs/selfplay.md).
//!
//! A shard is two files: `shard-NNNNNN.positions.parquet` (one row per
//! searched position) and `shard-NNNNNN.games.parquet` (one row per game).
//! Each is written under a `.tmp` name and renamed into place, positions
//! first, so a shard exists for readers exactly when its games file does.
//! A shard that cannot be read is reported by name and skipped.

use arrow_array::builder::{
    BooleanBuilder, Float32Builder, Int8Builder, ListBuilder, StringBuilder, UInt16Builder,
    UInt32Builder, UInt64Builder, UInt8Builder,
};
use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use brandubh_rules::{Bitboard, Board, EndReason, GameResult, Side};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::basic::Encoding;
use parquet::basic::{Compression, ZstdLevel};
use parquet::column::page::{Page, PageReader};
use parquet::file::metadata::{KeyValue, ParquetMetaData};
use parquet::file::properties::WriterProperties;
use parquet::file::serialized_reader::SerializedPageReader;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The schema version written into every file's metadata.
pub const SCHEMA_VERSION: &str = "2";
/// Older versions this build still reads, with the columns they lack.
const OLDER_VERSIONS: [(&str, &[&str]); 1] = [("1", &["root_draw"])];
const VERSION_KEY: &str = "brandubh.schema_version";
const TABLE_KEY: &str = "brandubh.table";

/// One searched position of a self-play game.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionRecord {
    pub ply: u32,
    pub board: Board,
    pub side_to_move: Side,
    pub quiet_plies: u16,
    pub repetitions: u8,
    /// Policy index and visit count of every searched root move.
    pub visits: Vec<(u16, u32)>,
    /// Policy target over the same moves (normalised visits, or Gumbel's improved policy).
    pub target: Vec<f32>,
    /// Root value for the side to move, in [-1, 1].
    pub root_value: f32,
    /// The draw probability behind the root value, in [0, 1]; NaN in
    /// version-1 files, which did not record it.
    pub root_draw: f32,
    /// A full search (a policy training target) rather than a cheap one.
    pub full_search: bool,
    /// The move played (OpenTafl) and its policy index (none for a pass).
    pub mv: String,
    pub move_index: Option<u16>,
}

/// A finished (or capped) self-play game.
#[derive(Clone, Debug, PartialEq)]
pub struct SelfPlayGame {
    pub game_id: u64,
    pub rules: String,
    pub rules_hash: u64,
    pub model_id: String,
    pub seed: u64,
    /// `None`: stopped at the ply cap, unfinished.
    pub result: Option<GameResult>,
    pub reason: Option<EndReason>,
    pub plies: u32,
    /// Every move, opening included, OpenTafl records.
    pub moves: Vec<String>,
    pub positions: Vec<PositionRecord>,
}

impl SelfPlayGame {
    pub fn result_str(&self) -> &'static str {
        self.result.map_or("unfinished", |r| r.as_str())
    }
    /// +1 / 0 / −1 for the side to move in a position of this game.
    pub fn result_for(&self, side: Side) -> i8 {
        match self.result {
            Some(GameResult::AttackersWin) => {
                if side == Side::Attackers {
                    1
                } else {
                    -1
                }
            }
            Some(GameResult::DefendersWin) => {
                if side == Side::Defenders {
                    1
                } else {
                    -1
                }
            }
            _ => 0,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("{path}: {why}")]
    Io { path: PathBuf, why: String },
    #[error("{path}: not a brandubh self-play file: {why}")]
    Schema { path: PathBuf, why: String },
}

fn io_err(path: &Path, e: impl std::fmt::Display) -> RecordError {
    RecordError::Io {
        path: path.to_path_buf(),
        why: e.to_string(),
    }
}

fn list_field(name: &str, inner: DataType) -> Field {
    Field::new(
        name,
        DataType::List(Arc::new(Field::new("item", inner, true))),
        false,
    )
}

pub fn games_schema() -> Schema {
    Schema::new(vec![
        Field::new("game_id", DataType::UInt64, false),
        Field::new("rules", DataType::Utf8, false),
        Field::new("rules_hash", DataType::UInt64, false),
        Field::new("model_id", DataType::Utf8, false),
        Field::new("seed", DataType::UInt64, false),
        Field::new("result", DataType::Utf8, false),
        Field::new("reason", DataType::Utf8, true),
        Field::new("plies", DataType::UInt32, false),
        Field::new("moves", DataType::Utf8, false),
    ])
}

pub fn positions_schema() -> Schema {
    Schema::new(vec![
        Field::new("game_id", DataType::UInt64, false),
        Field::new("ply", DataType::UInt32, false),
        Field::new("attackers", DataType::UInt64, false),
        Field::new("defenders", DataType::UInt64, false),
        Field::new("king", DataType::UInt64, false),
        Field::new("side_to_move", DataType::UInt8, false),
        Field::new("quiet_plies", DataType::UInt16, false),
        Field::new("repetitions", DataType::UInt8, false),
        list_field("visit_index", DataType::UInt16),
        list_field("visit_count", DataType::UInt32),
        list_field("policy_target", DataType::Float32),
        Field::new("root_value", DataType::Float32, false),
        Field::new("root_draw", DataType::Float32, false),
        Field::new("full_search", DataType::Boolean, false),
        Field::new("move", DataType::Utf8, false),
        Field::new("move_index", DataType::UInt16, true),
        Field::new("result", DataType::Int8, false),
        Field::new("game_result", DataType::Utf8, false),
    ])
}

fn write_batch(path: &Path, table: &str, batch: RecordBatch) -> Result<(), RecordError> {
    let tmp = crate::durable::temp_path(path);
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
    crate::durable::persist(&tmp, path).map_err(|e| io_err(path, e))
}

/// The games file of shard `index` in `dir`.
pub fn shard_path(dir: &Path, index: u64) -> PathBuf {
    dir.join(format!("shard-{index:06}.games.parquet"))
}

fn positions_path(games_path: &Path) -> PathBuf {
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

/// Reads a file whole: shards are small, and the reader goes over each
/// table twice (its pages, then its rows).
fn read_bytes(path: &Path) -> Result<bytes::Bytes, RecordError> {
    std::fs::read(path)
        .map(bytes::Bytes::from)
        .map_err(|e| io_err(path, e))
}

/// Reads a table's file (see [`read_table_from`]).
fn read_table(path: &Path, table: &str, schema: &Schema) -> Result<Vec<RecordBatch>, RecordError> {
    read_table_from(read_bytes(path)?, path, table, schema)
}

/// Checks that every column chunk the footer names lies inside the file.
/// The parquet crate asserts this when it reads a chunk (a negative offset
/// or size panics), so a damaged footer is turned into an error here first.
fn check_column_chunks(
    meta: &ParquetMetaData,
    file_len: u64,
    path: &Path,
) -> Result<(), RecordError> {
    for (g, group) in meta.row_groups().iter().enumerate() {
        for (c, col) in group.columns().iter().enumerate() {
            let start = col
                .dictionary_page_offset()
                .unwrap_or_else(|| col.data_page_offset());
            let len = col.compressed_size();
            let inside = u64::try_from(start)
                .ok()
                .zip(u64::try_from(len).ok())
                .and_then(|(s, l)| s.checked_add(l))
                .is_some_and(|end| end <= file_len);
            if !inside {
                return Err(RecordError::Schema {
                    path: path.to_path_buf(),
                    why: format!(
                        "row group {g}, column {c}: its chunk (offset {start}, {len} bytes) \
                         is not inside the file ({file_len} bytes)"
                    ),
                });
            }
        }
    }
    Ok(())
}

/// One column chunk of a file held in memory, as the page walk reads it:
/// only the chunk's own bytes, as the arrow reader sees them, and a read
/// past their end is an error. The parquet crate's page-header reader skips
/// unknown fields by reading, and takes an empty read for a skipped field,
/// so a header that declares a long list of fields at the end of its chunk
/// keeps it looping once per declared field (`docs/selfplay.md`). A failing
/// read ends that at the first element.
struct ChunkBytes {
    file: bytes::Bytes,
    start: u64,
    end: u64,
}

/// Reads to the end of a [`ChunkBytes`], then fails.
struct StrictRead(bytes::Bytes);

impl std::io::Read for StrictRead {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.0.is_empty() {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        let n = buf.len().min(self.0.len());
        buf[..n].copy_from_slice(&self.0.split_to(n));
        Ok(n)
    }
}

impl ChunkBytes {
    /// The bytes from `at` to the chunk's end, if `at` is inside it.
    fn rest_from(&self, at: u64) -> parquet::errors::Result<bytes::Bytes> {
        if at < self.start || at > self.end {
            return Err(parquet::errors::ParquetError::EOF(format!(
                "offset {at} is outside the column chunk ({}..{})",
                self.start, self.end
            )));
        }
        // `end` was checked against the file's length (check_column_chunks).
        Ok(self.file.slice(at as usize..self.end as usize))
    }
}

impl parquet::file::reader::Length for ChunkBytes {
    fn len(&self) -> u64 {
        self.file.len() as u64
    }
}

impl parquet::file::reader::ChunkReader for ChunkBytes {
    type T = StrictRead;

    fn get_read(&self, start: u64) -> parquet::errors::Result<StrictRead> {
        self.rest_from(start).map(StrictRead)
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<bytes::Bytes> {
        let rest = self.rest_from(start)?;
        if rest.len() < length {
            return Err(parquet::errors::ParquetError::EOF(format!(
                "{length} bytes at offset {start} run past the column chunk's end ({})",
                self.end
            )));
        }
        Ok(rest.slice(..length))
    }
}

/// The structs of a page header, as the parquet crate reads them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum HeaderPart {
    Page,
    Data,
    Index,
    Dictionary,
    DataV2,
    /// A field the crate skips without knowing it (page statistics too).
    Skipped,
}

/// What the crate reads a known field as.
enum FieldKind {
    I32,
    Bool,
    Struct(HeaderPart),
    Skip,
}

impl HeaderPart {
    fn field(self, id: i16) -> FieldKind {
        use FieldKind::*;
        use HeaderPart::*;
        match (self, id) {
            (Page, 1..=4) | (Data, 1..=4) | (Dictionary, 1 | 2) | (DataV2, 1..=6) => I32,
            (Dictionary, 3) | (DataV2, 7) => Bool,
            (Page, 5) => Struct(Data),
            (Page, 6) => Struct(Index),
            (Page, 7) => Struct(Dictionary),
            (Page, 8) => Struct(DataV2),
            _ => Skip,
        }
    }
}

/// A page header read ahead of the parquet crate, the way it reads one,
/// but refused where the crate could loop without reading: it skips a
/// boolean inside a list or map without reading a byte, so a header of a
/// few bytes that declares a list of two billion booleans (or a list of
/// such lists) keeps it busy for seconds to hours. No page header holds a
/// list, set or map, so one here is refused, as is a known field whose
/// wire type is not the one the crate reads it as (the crate would read
/// the bytes differently from the walk). Every accepted header is thus one
/// the crate reads in as many steps as it has bytes.
struct HeaderWalk<'a> {
    bytes: &'a [u8],
    at: usize,
}

/// Why a page header was refused.
type HeaderFault = String;

impl HeaderWalk<'_> {
    fn byte(&mut self) -> Result<u8, HeaderFault> {
        let b = *self
            .bytes
            .get(self.at)
            .ok_or("a page header runs past its column chunk")?;
        self.at += 1;
        Ok(b)
    }

    /// An unsigned varint (a list's or map's size).
    fn varint(&mut self) -> Result<u64, HeaderFault> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("a page header holds an over-long varint".into())
    }

    /// A zigzag varint, as the crate reads integers (truncating as it does).
    fn zigzag(&mut self) -> Result<i64, HeaderFault> {
        let v = self.varint()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    fn skip(&mut self, n: i64) -> Result<(), HeaderFault> {
        let end = usize::try_from(n)
            .ok()
            .and_then(|n| self.at.checked_add(n))
            .filter(|&e| e <= self.bytes.len())
            .ok_or("a page header runs past its column chunk")?;
        self.at = end;
        Ok(())
    }

    /// Skips a value of wire type `t` as the crate does: `depth` more
    /// levels at most (the crate allows 64 below a field it skips).
    fn skip_value(&mut self, t: u8, depth: u8) -> Result<(), HeaderFault> {
        if depth == 0 {
            return Err("a page header nests too deep".into());
        }
        match t {
            1 | 2 => Ok(()),
            3 => self.skip(1),
            4..=6 => self.zigzag().map(|_| ()),
            7 => self.skip(8),
            8 => {
                let n = self.varint()?;
                self.skip(i64::try_from(n).unwrap_or(i64::MAX))
            }
            9..=11 => {
                Err("a page header holds a list, set or map, which no page header has".into())
            }
            12 => self.fields(HeaderPart::Skipped, depth).map(|_| ()),
            13 => self.skip(16),
            _ => Err(format!("a page header holds a value of unknown type {t}")),
        }
    }

    /// Reads a struct's fields to its stop byte; returns its i32 field 3
    /// (a page header's compressed size), if any. `depth` bounds a skipped
    /// struct's nesting as the crate's does; a known struct's fields are
    /// skipped with the crate's fresh allowance of 64.
    fn fields(&mut self, part: HeaderPart, depth: u8) -> Result<Option<i32>, HeaderFault> {
        let mut id: i16 = 0;
        let mut size = None;
        loop {
            let h = self.byte()?;
            let t = h & 0x0f;
            if t == 0 {
                return Ok(size);
            }
            id = match h >> 4 {
                0 => self.zigzag()? as i16,
                d => id
                    .checked_add(i16::from(d))
                    .ok_or("a page header holds a field id out of range")?,
            };
            let wrong = || format!("a page header's field {id} has wire type {t}");
            match part.field(id) {
                FieldKind::I32 if t == 5 => {
                    let v = self.zigzag()? as i32;
                    if part == HeaderPart::Page && id == 3 {
                        size = Some(v);
                    }
                }
                FieldKind::Bool if t == 1 || t == 2 => {}
                FieldKind::Struct(inner) if t == 12 => {
                    self.fields(inner, 64)?;
                }
                FieldKind::Skip if part == HeaderPart::Skipped => self.skip_value(t, depth - 1)?,
                FieldKind::Skip => self.skip_value(t, 64)?,
                _ => return Err(wrong()),
            }
        }
    }
}

/// Walks a Thrift struct the way the parquet crate skips one it does not
/// know (by wire types alone), counting the values it visits, a boolean
/// inside a list or map included; fails once they outnumber `budget`. In a
/// well-formed encoding every value takes at least a byte (a list's
/// booleans take one each), so a real footer never fails; one that
/// declares a list of two billion booleans does, at once, where the crate
/// would loop over them reading nothing.
fn count_values(
    walk: &mut HeaderWalk<'_>,
    t: u8,
    depth: u8,
    budget: &mut usize,
) -> Result<(), HeaderFault> {
    const TOO_MANY: &str = "declares more values than it has bytes";
    if depth == 0 {
        return Err("nests too deep".into());
    }
    *budget = budget.checked_sub(1).ok_or(TOO_MANY)?;
    match t {
        9 | 10 => {
            let h = walk.byte()?;
            if h == 0 {
                return Ok(());
            }
            let n = match h >> 4 {
                15 => walk.varint()?,
                n => u64::from(n),
            };
            if n > *budget as u64 {
                return Err(TOO_MANY.into());
            }
            for _ in 0..n {
                count_values(walk, h & 0x0f, depth - 1, budget)?;
            }
            Ok(())
        }
        11 => {
            let n = walk.varint()?;
            if n == 0 {
                return Ok(());
            }
            if n.saturating_mul(2) > *budget as u64 {
                return Err(TOO_MANY.into());
            }
            let kv = walk.byte()?;
            for _ in 0..n {
                count_values(walk, kv >> 4, depth - 1, budget)?;
                count_values(walk, kv & 0x0f, depth - 1, budget)?;
            }
            Ok(())
        }
        12 => loop {
            let h = walk.byte()?;
            if h & 0x0f == 0 {
                return Ok(());
            }
            if h >> 4 == 0 {
                walk.zigzag()?;
            }
            count_values(walk, h & 0x0f, depth - 1, budget)?;
        },
        _ => walk.skip_value(t, 64),
    }
}

/// The footer (file metadata) of a file held in memory: refused when a
/// walk of it by wire types ([`count_values`]) visits more values than it
/// has bytes. Any other fault is left for the parquet crate to report.
fn check_footer(data: &[u8]) -> Result<(), HeaderFault> {
    let n = data.len();
    if n < 12 || &data[n - 4..] != b"PAR1" {
        return Ok(());
    }
    let len = u32::from_le_bytes([data[n - 8], data[n - 7], data[n - 6], data[n - 5]]) as usize;
    if len > n - 12 {
        return Ok(());
    }
    let footer = &data[n - 8 - len..n - 8];
    let mut walk = HeaderWalk {
        bytes: footer,
        at: 0,
    };
    let mut budget = footer.len();
    match count_values(&mut walk, 12, 64, &mut budget) {
        Err(e) if e.contains("more values") => Err(format!("its footer {e}")),
        _ => Ok(()),
    }
}

/// Reads ahead every page header of one column chunk (its bytes), page
/// after page, as [`HeaderWalk`] describes.
fn check_page_headers(chunk: &[u8]) -> Result<(), HeaderFault> {
    let mut walk = HeaderWalk {
        bytes: chunk,
        at: 0,
    };
    while walk.at < chunk.len() {
        let size = walk
            .fields(HeaderPart::Page, 64)?
            .ok_or("a page header without a compressed size")?;
        walk.skip(i64::from(size))
            .map_err(|_| format!("a page of {size} bytes runs past its column chunk"))?;
    }
    Ok(())
}

/// Checks every page header of every column chunk: a page must decode as a
/// header within its chunk, and a dictionary-encoded data page must follow a
/// dictionary page in its chunk. The parquet crate panics on the second (it
/// expects the dictionary to be there), so a damaged shard is turned into
/// an error here first.
fn check_pages(
    meta: &ParquetMetaData,
    data: &bytes::Bytes,
    path: &Path,
) -> Result<(), RecordError> {
    for (g, group) in meta.row_groups().iter().enumerate() {
        let rows = usize::try_from(group.num_rows()).unwrap_or(0);
        for (c, col) in group.columns().iter().enumerate() {
            let at = |why: String| RecordError::Schema {
                path: path.to_path_buf(),
                why: format!("row group {g}, column {c}: {why}"),
            };
            let (start, len) = col.byte_range();
            check_page_headers(&data[start as usize..(start + len) as usize]).map_err(at)?;
            let chunk = ChunkBytes {
                file: data.clone(),
                start,
                end: start + len,
            };
            let mut pages = SerializedPageReader::new(Arc::new(chunk), col, rows, None)
                .map_err(|e| at(e.to_string()))?;
            let mut dictionary = false;
            while let Some(page) = pages.get_next_page().map_err(|e| at(e.to_string()))? {
                match page {
                    Page::DictionaryPage { .. } => dictionary = true,
                    p if matches!(
                        p.encoding(),
                        Encoding::PLAIN_DICTIONARY | Encoding::RLE_DICTIONARY
                    ) && !dictionary =>
                    {
                        return Err(at(
                            "a dictionary-encoded page with no dictionary page before it".into(),
                        ));
                    }
                    _ => {}
                }
            }
        }
    }
    Ok(())
}

thread_local! {
    /// Set while this thread runs the parquet crate's decoding (see
    /// [`contained`]).
    static IN_DECODER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs a call into the parquet crate so that a panic in it becomes an
/// error naming the file. The crate still panics on some damaged pages
/// (index and length assertions deep in its level and bit decoders, found by
/// the fuzzer); checking every such case before decoding would mean
/// re-implementing the decoders. The first call wraps the process's panic
/// hook so that it stays silent for these panics only; every other panic,
/// ours included, reaches the previous hook as before.
fn contained<T>(path: &Path, f: impl FnOnce() -> Result<T, RecordError>) -> Result<T, RecordError> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !IN_DECODER.with(|d| d.get()) {
                previous(info);
            }
        }));
    });
    let was = IN_DECODER.with(|d| d.replace(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    IN_DECODER.with(|d| d.set(was));
    result.unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(RecordError::Schema {
            path: path.to_path_buf(),
            why: format!("the parquet decoder failed on a damaged page: {what}"),
        })
    })
}

/// Reads one table from `data` (named `path` in errors), checking its
/// schema version, its table name and its columns' types.
fn read_table_from(
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
fn board_fault(b: &Board) -> Option<String> {
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

fn read_shard_from(
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

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::builder::{StringBuilder, UInt32Builder, UInt64Builder};

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
}

#[cfg(test)]
mod footer_tests {
    use super::*;

    /// The error reading a kept fuzz input as both files of a shard named
    /// `shard-000000.games.parquet`, as the `parquet_shard` target does.
    fn regression_error(input: &str) -> String {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions/parquet_shard");
        let bytes = bytes::Bytes::from(std::fs::read(root.join(input)).unwrap());
        let name = Path::new("shard-000000.games.parquet");
        read_shard_bytes(bytes.clone(), bytes, name)
            .unwrap_err()
            .to_string()
    }

    /// A shard whose footer gives a column chunk a negative offset, found by
    /// the `parquet_shard` fuzz target (the parquet crate asserts on it).
    #[test]
    fn a_column_chunk_outside_the_file_is_an_error_not_a_panic() {
        let msg = regression_error("crash-622fb59e2ada6427eadac254c7b667afce156315");
        assert!(msg.starts_with("shard-000000.games.parquet"), "{msg}");
        assert!(msg.contains("is not inside the file"), "{msg}");
    }

    /// Shards whose pages make the parquet crate's own decoders panic (a
    /// bit-packed run past its buffer, an over-long varint), found by the
    /// `parquet_shard` fuzz target: the panic is contained and reported as
    /// an error naming the file.
    #[test]
    fn a_panic_in_the_parquet_decoder_is_an_error() {
        for (crash, what) in [
            (
                "crash-2627f306afce00a32e2ae98175da4702dfa3f129",
                "MAX_VLQ_BYTE_LEN",
            ),
            (
                "crash-810438f6d005884191c51f876c6507aa1e315631",
                "offset + len out of bounds",
            ),
        ] {
            let msg = regression_error(crash);
            assert!(
                msg.starts_with("shard-000000.games.parquet")
                    && msg.contains("the parquet decoder failed on a damaged page")
                    && msg.contains(what),
                "{crash}: {msg}"
            );
        }
        // The flag that silences the hook is down again once the read is over.
        assert!(!IN_DECODER.with(|d| d.get()));
    }

    /// A shard whose `moves` column the parquet crate decoded to text that
    /// is not UTF-8, found by the `parquet_shard` fuzz target: arrow's
    /// accessor trusted it and read past the buffer (AddressSanitizer).
    /// Every array is now validated in full when read.
    #[test]
    fn an_array_that_does_not_hold_is_an_error() {
        let crash = "crash-aa36b8dd7ef11bf201db0c2271d20d1d71192b60";
        let msg = regression_error(crash);
        assert!(
            msg.starts_with("shard-000000.games.parquet")
                && msg.contains("column `moves`")
                && msg.contains("Invalid UTF8"),
            "{msg}"
        );
    }

    /// Shards whose page headers declare long lists of fields past the end of
    /// their column chunk, found by the `parquet_shard` fuzz target: the
    /// parquet crate skipped them one empty read at a time. The page walk's reader fails
    /// at the chunk's end instead, so they are refused at the first element.
    #[test]
    fn a_page_header_running_past_its_chunk_is_an_error() {
        for slow in [
            "slow-unit-4ef46b9a4c921450dddc0f47741ab9343973a8b8",
            "slow-unit-f358480328dcbc34722af52776aa2df59acb13ac",
        ] {
            let msg = regression_error(slow);
            assert!(
                msg.starts_with("shard-000000.games.parquet")
                    && msg.contains("row group 0, column 1"),
                "{slow}: {msg}"
            );
            // Refused by the read-ahead of page headers, or else by the
            // chunk-bounded reader behind the crate.
            assert!(
                msg.contains("a page header runs past its column chunk")
                    || msg.contains("unexpected end of file"),
                "{slow}: {msg}"
            );
        }
    }

    /// Shards whose page headers declare lists of two billion booleans,
    /// found by the `parquet_shard` fuzz target: the parquet crate skips
    /// such a boolean without reading a byte, and took 0.3–0.4 s a header in
    /// release (9 s under AddressSanitizer); a chunk of such headers would
    /// take hours. The read-ahead of page headers refuses them at once.
    #[test]
    fn a_page_header_holding_a_list_is_an_error() {
        for slow in [
            "slow-unit-37d284cb8086bb42e4578d582d6484d46e20eb52",
            "slow-unit-a683a7d80209dcf0439b413c8715e263ef5a1e2c",
        ] {
            let msg = regression_error(slow);
            assert!(
                msg.starts_with("shard-000000.games.parquet")
                    && msg.contains("a page header holds a list, set or map"),
                "{slow}: {msg}"
            );
        }
    }

    /// Shards whose footers declare lists of two billion booleans in
    /// fields the parquet crate skips (the same fault as the page headers'
    /// above, in the file metadata): 0.5 and 0.8 s in release, 2.8 and 6.1 s
    /// under AddressSanitizer. Refused by the footer's read-ahead.
    /// Unknown structs nested inside each other, one byte a level: the
    /// read-ahead stops at the crate's 64 levels instead of recursing once
    /// per byte (which overflowed the stack on a chunk of 400 000 bytes).
    #[test]
    fn deeply_nested_skipped_structs_are_an_error_not_a_stack_overflow() {
        let e = check_page_headers(&[0x9C; 400_000]).unwrap_err();
        assert!(e.contains("nests too deep"), "{e}");
    }

    #[test]
    fn a_footer_declaring_more_values_than_bytes_is_an_error() {
        for slow in [
            "slow-unit-70d2dce624d725ca0dea31ec6babb70c25b6ff83",
            "slow-unit-725ff4f1780f7c82de7b53da22b927c2c35e5e77",
        ] {
            let msg = regression_error(slow);
            assert!(
                msg.starts_with("shard-000000.games.parquet")
                    && msg.contains("its footer declares more values than it has bytes"),
                "{slow}: {msg}"
            );
        }
    }

    /// Shards with a dictionary-encoded data page and no dictionary page
    /// before it, found by the `parquet_shard` fuzz target (the parquet
    /// crate panics on them: "Decoder for dict should have been set").
    #[test]
    fn a_dictionary_page_missing_is_an_error_not_a_panic() {
        for crash in [
            "crash-71582e73377d438d08025eece6906fbb09101050",
            "crash-e9f6b403c4d510d0114b2cbab1de93037bb2662e",
        ] {
            let msg = regression_error(crash);
            assert!(
                msg.starts_with("shard-000000.games.parquet"),
                "{crash}: {msg}"
            );
            // (The second is now refused earlier: its last page runs past
            // its chunk.)
            assert!(
                msg.contains("a dictionary-encoded page with no dictionary page before it")
                    || msg.contains("runs past its column chunk"),
                "{crash}: {msg}"
            );
        }
    }
}
