//! End-to-end tests of the `brandubh` binary, one module per group of
//! commands, with the helpers they share.

use std::process::{Command, Output};

mod arena;
mod bad_files;
mod model;
mod play;
mod report;
mod rules;
mod study;
mod training;

/// Runs the binary from the workspace root.
pub(crate) fn brandubh(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_brandubh"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run brandubh")
}

/// Runs the binary, which must succeed, and parses its stdout as one JSON
/// object.
pub(crate) fn ok_json(args: &[&str]) -> serde_json::Value {
    let out = brandubh(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

/// Asserts that a run of the binary succeeded, showing its stderr if not.
pub(crate) fn assert_ok(out: &Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A new, empty scratch directory for one test, removed when the returned
/// guard is dropped.
pub(crate) fn scratch(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("brandubh-{name}-"))
        .tempdir()
        .unwrap()
}
