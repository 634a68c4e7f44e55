//! Every shipped config file parses, and the self-play defaults file shows
//! exactly the built-in defaults it claims to show.

use brandubh_selfplay::SelfPlayConfig;
use brandubh_train::RunConfig;
use std::path::Path;

fn files(dir: &str) -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir);
    let mut v: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    assert!(!v.is_empty(), "{}", root.display());
    v
}

#[test]
fn every_run_config_parses() {
    for p in files("configs/runs") {
        let text = std::fs::read_to_string(&p).unwrap();
        RunConfig::from_toml(&text, &p.display().to_string()).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn every_selfplay_and_eval_config_parses() {
    for p in files("configs/selfplay") {
        SelfPlayConfig::from_file(&p).unwrap_or_else(|e| panic!("{e}"));
    }
    for p in files("configs/eval") {
        brandubh_eval::EvalWeights::from_file(&p).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn the_selfplay_defaults_file_is_the_built_in_defaults() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/selfplay/default.toml");
    assert_eq!(
        SelfPlayConfig::from_file(&p).unwrap(),
        SelfPlayConfig::default()
    );
}
