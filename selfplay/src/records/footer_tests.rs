//! Unit tests of the footer and page-header guards, on kept fuzz inputs
//! and hand-made files.

use super::*;
use std::path::Path;

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
    assert!(!in_decoder());
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
            msg.starts_with("shard-000000.games.parquet") && msg.contains("row group 0, column 1"),
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
