//! `cargo test --release` and `cargo build --release` share one build of
//! burn and the rest only while the tests' dev-dependencies turn on no
//! feature of a shared crate that the binary's dependencies leave off
//! (cargo unifies features per command). The feature pins in the root
//! `Cargo.toml` keep the two equal; this test fails, naming the crate, when
//! a new dependency makes them drift apart.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// Each package of the workspace's graph (`name vX.Y.Z`) with the feature
/// sets it is built with, following the given kinds of edges.
fn feature_sets(edges: &str) -> BTreeMap<String, BTreeSet<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["tree", "--workspace", "--prefix", "none", "-e", edges])
        .args(["-f", "{p} [{f}]"])
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut sets: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let Some(open) = line.find(" [") else {
            continue;
        };
        let package: Vec<&str> = line[..open].split_whitespace().take(2).collect();
        let features = line[open + 1..].trim_end_matches(" (*)").to_string();
        sets.entry(package.join(" ")).or_default().insert(features);
    }
    sets
}

#[test]
fn tests_and_binary_build_shared_crates_with_the_same_features() {
    let binary = feature_sets("normal,build");
    let tests = feature_sets("normal,build,dev");
    let drift: Vec<String> = binary
        .iter()
        .filter_map(|(package, built)| {
            let in_tests = tests.get(package)?;
            (!in_tests.is_subset(built))
                .then(|| format!("{package}: binary {built:?}, tests {in_tests:?}"))
        })
        .collect();
    assert!(
        drift.is_empty(),
        "pin these features in the root Cargo.toml:\n{}",
        drift.join("\n")
    );
    assert!(binary.contains_key("burn v0.22.1"), "{:?}", binary.keys());
}
