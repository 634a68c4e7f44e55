//! Replays every input the fuzz targets keep (`fuzz/corpus/TARGET/`, the
//! seeds and what the fuzzer found interesting, and `fuzz/regressions/`,
//! inputs that once failed) through the same checks, so the default test
//! run keeps every one of them. See docs/fuzzing.md.

use std::path::Path;

#[test]
fn every_kept_fuzz_input_passes_its_check() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut replayed = 0;
    let targets = brandubh_eval::fuzzing::TARGETS
        .iter()
        .chain(&brandubh_train::fuzzing::TARGETS);
    for &(name, check) in targets {
        let mut files = 0;
        for kind in ["corpus", "regressions"] {
            let Ok(dir) = std::fs::read_dir(root.join(kind).join(name)) else {
                continue;
            };
            for e in dir {
                let p = e.unwrap().path();
                let bytes = std::fs::read(&p).unwrap();
                let r = std::panic::catch_unwind(|| check(&bytes));
                assert!(r.is_ok(), "{name}: {} fails its check", p.display());
                files += 1;
            }
        }
        assert!(files > 0, "no kept inputs for fuzz target {name}");
        replayed += files;
    }
    eprintln!("{replayed} kept fuzz inputs replayed");
}
