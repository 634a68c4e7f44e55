//! The checks behind the fuzz targets for the two loaders above the eval
//! crate: run configs and checkpoints' `model.json`. Like
//! `brandubh_arena::fuzzing`, each takes arbitrary bytes, must not panic,
//! and asserts what must hold of what it accepts. Burn-free, so the
//! cargo-fuzz workspace builds them without the `net` feature.

use crate::RunConfig;
use brandubh_model::CheckpointMeta;
use std::path::Path;

/// The fuzz targets here, by name (as in `fuzz/fuzz_targets/`).
pub const TARGETS: [(&str, brandubh_arena::fuzzing::Check); 2] =
    [("run_config", run_config), ("model_json", model_json)];

/// A run config parses and passes its range checks, or names the file and
/// key; one that loads writes TOML that loads to the same config.
pub fn run_config(data: &[u8]) {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(c) = RunConfig::from_toml(s, "fuzz.toml") {
        let text = toml::to_string(&c).expect("a loaded config writes");
        let again = RunConfig::from_toml(&text, "again.toml").expect("a written config loads");
        assert_eq!(again, c);
    }
}

/// A `model.json` parses and passes its checks, or names the file; one
/// that reads writes JSON that reads to the same net, rules and weights'
/// hash.
pub fn model_json(data: &[u8]) {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(m) = CheckpointMeta::from_json(s, Path::new("fuzz/model.json")) {
        let text = serde_json::to_string(&m).expect("metadata writes");
        let again = CheckpointMeta::from_json(&text, Path::new("again/model.json"))
            .expect("written metadata reads");
        assert_eq!(
            (
                &again.net,
                &again.rules,
                &again.rules_hash,
                &again.content_hash
            ),
            (&m.net, &m.rules, &m.rules_hash, &m.content_hash)
        );
        assert_eq!(again.model_id(), m.model_id());
    }
}
