//! Replays every input the fuzz targets keep through the same checks, so
//! the default test run keeps every one of them: the corpus (the seeds and
//! what the fuzzer found interesting, stored as one archive,
//! `fuzz/corpus.tar.zst`, with entries `corpus/TARGET/FILE`) and
//! `fuzz/regressions/TARGET/`, inputs that once failed. See docs/fuzzing.md.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

type Check = fn(&[u8]);

/// Runs one input through its target's check and fails the test, naming
/// the input, when the check panics.
fn replay(name: &str, origin: &str, check: Check, bytes: &[u8]) {
    let r = std::panic::catch_unwind(|| check(bytes));
    assert!(r.is_ok(), "{name}: {origin} fails its check");
}

#[test]
fn every_kept_fuzz_input_passes_its_check() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let targets: BTreeMap<&str, Check> = brandubh_arena::fuzzing::TARGETS
        .iter()
        .chain(&brandubh_train::fuzzing::TARGETS)
        .map(|&(n, c)| (n, c))
        .collect();
    let mut files: BTreeMap<&str, usize> = targets.keys().map(|&n| (n, 0)).collect();

    let archive = root.join("corpus.tar.zst");
    let file = std::fs::File::open(&archive).expect("fuzz/corpus.tar.zst is in the checkout");
    let decoder = zstd::stream::read::Decoder::new(file).expect("a zstd stream");
    let mut tar = tar::Archive::new(decoder);
    for entry in tar.entries().expect("a tar archive") {
        let mut entry = entry.expect("a readable tar entry");
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let path = entry.path().expect("a tar path").into_owned();
        let mut parts = path.iter().map(|p| p.to_string_lossy().into_owned());
        let (Some(top), Some(target)) = (parts.next(), parts.next()) else {
            continue;
        };
        assert_eq!(top, "corpus", "unexpected entry {}", path.display());
        let Some((&name, &check)) = targets.get_key_value(target.as_str()) else {
            panic!("corpus entry {} names no fuzz target", path.display());
        };
        let mut bytes = Vec::new();
        entry
            .read_to_end(&mut bytes)
            .expect("a readable corpus entry");
        replay(
            name,
            &format!("{} in the archive", path.display()),
            check,
            &bytes,
        );
        *files.get_mut(name).expect("counted") += 1;
    }

    for (&name, &check) in &targets {
        let Ok(dir) = std::fs::read_dir(root.join("regressions").join(name)) else {
            continue;
        };
        for e in dir {
            let p = e.unwrap().path();
            let bytes = std::fs::read(&p).unwrap();
            replay(name, &p.display().to_string(), check, &bytes);
            *files.get_mut(name).expect("counted") += 1;
        }
    }

    for (name, n) in &files {
        assert!(*n > 0, "no kept inputs for fuzz target {name}");
    }
    eprintln!(
        "{} kept fuzz inputs replayed",
        files.values().sum::<usize>()
    );
}
