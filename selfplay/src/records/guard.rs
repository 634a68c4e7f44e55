//! Checks made before the parquet crate decodes a file, so that a damaged
//! or hostile file is refused with an error instead of a panic or a loop:
//! column chunks inside the file, page headers and the footer walked by
//! wire type, and the containment of the decoder's remaining panics.

use parquet::basic::Encoding;
use parquet::column::page::{Page, PageReader};
use parquet::file::metadata::ParquetMetaData;
use parquet::file::serialized_reader::SerializedPageReader;
use std::path::Path;
use std::sync::Arc;

use super::*;

/// Checks that every column chunk the footer names lies inside the file.
/// The parquet crate asserts this when it reads a chunk (a negative offset
/// or size panics), so a damaged footer is turned into an error here first.
pub(crate) fn check_column_chunks(
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
pub(crate) struct ChunkBytes {
    file: bytes::Bytes,
    start: u64,
    end: u64,
}

/// Reads to the end of a [`ChunkBytes`], then fails.
pub(crate) struct StrictRead(bytes::Bytes);

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
pub(crate) enum HeaderPart {
    Page,
    Data,
    Index,
    Dictionary,
    DataV2,
    /// A field the crate skips without knowing it (page statistics too).
    Skipped,
}

/// What the crate reads a known field as.
pub(crate) enum FieldKind {
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
pub(crate) struct HeaderWalk<'a> {
    bytes: &'a [u8],
    at: usize,
}

/// Why a page header was refused.
pub(crate) type HeaderFault = String;

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
pub(crate) fn count_values(
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
pub(crate) fn check_footer(data: &[u8]) -> Result<(), HeaderFault> {
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
pub(crate) fn check_page_headers(chunk: &[u8]) -> Result<(), HeaderFault> {
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
pub(crate) fn check_pages(
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

/// Whether the calling thread is inside the parquet crate's decoding,
/// where a panic is turned into an error naming the file (see
/// [`contained`]). A program that wants those panics kept off its
/// standard error checks this in its panic hook; the library installs no
/// hook of its own.
pub fn in_decoder() -> bool {
    IN_DECODER.with(|d| d.get())
}

/// Wraps the process's panic hook so that it stays silent for the panics
/// [`contained`] turns into errors, and only for those: every other panic
/// reaches the previous hook as before. For programs (the binary, the fuzz
/// targets) to call once at start; the library never calls it itself.
pub fn quiet_decoder_panics() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !in_decoder() {
            previous(info);
        }
    }));
}

/// Runs a call into the parquet crate so that a panic in it becomes an
/// error naming the file. The crate still panics on some damaged pages
/// (index and length assertions deep in its level and bit decoders, found by
/// the fuzzer); checking every such case before decoding would mean
/// re-implementing the decoders. The calling thread is marked while the
/// call runs (`in_decoder`), so that a program's panic hook can stay
/// silent for these panics only.
pub(crate) fn contained<T>(
    path: &Path,
    f: impl FnOnce() -> Result<T, RecordError>,
) -> Result<T, RecordError> {
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
