//! Mutation fuzzing of the two loaders that sit above burn, which the
//! cargo-fuzz workspace does not build: run configs (`RunConfig`) and
//! checkpoints (`model.json` beside its weights). Each case takes a
//! shipped file and edits it a few times at random (numbers swapped
//! for extreme values, strings for odd ones, lines dropped, doubled or
//! swapped, the text cut short, stray characters put in). The loaders must
//! never panic. What they accept must hold in range, and what they refuse
//! must be refused with the file named.
//!
//! The default run tries a few thousand cases. The long campaign in
//! docs/fuzzing.md is the ignored test, with the count from
//! `BRANDUBH_MUTATIONS`:
//!   BRANDUBH_MUTATIONS=1000000 cargo test --release -p brandubh-train \
//!     --test mutation_fuzz -- --ignored --nocapture

use brandubh_model::{load, read_meta};
use brandubh_rules::RuleSet;
use brandubh_train::RunConfig;
use burn::tensor::Device;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1",
    "2",
    "-0.0",
    "1e308",
    "-1e308",
    "1e-320",
    "nan",
    "inf",
    "-inf",
    "NaN",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "9223372036854775807",
    "-9223372036854775808",
    "0.000001",
    "65536",
    "true",
    "\"12\"",
    "[]",
    "{}",
];

const STRINGS: &[&str] = &[
    "",
    "é",
    "\\u0000",
    "../../etc/passwd",
    "always",
    "score",
    "never",
    "wtf",
    "modern",
    "alphabeta:depth=99999",
    "mcts:sims=0",
    "random",
    "ffffffffffffffff",
    "0000000000000000000000000000000000000000000000000000000000000000",
];

const STRAY: &[&str] = &[
    "\n",
    "=",
    "[",
    "]",
    "\"",
    "{",
    "}",
    ",",
    "#",
    "\u{0}",
    "é",
    "[net]\n",
    "\n[[eval]]\n",
];

/// Byte ranges in a text.
type Spans = Vec<(usize, usize)>;

/// The byte ranges of number-like and string tokens in `text`.
fn tokens(text: &str) -> (Spans, Spans) {
    let b = text.as_bytes();
    let (mut nums, mut strs) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'"' {
            let start = i + 1;
            let mut j = start;
            while j < b.len() && b[j] != b'"' && b[j] != b'\n' {
                j += 1;
            }
            strs.push((start, j));
            i = j + 1;
        } else if b[i].is_ascii_digit()
            || (b[i] == b'-' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b"-+._".contains(&b[i])) {
                i += 1;
            }
            nums.push((start, i));
        } else {
            i += 1;
        }
    }
    (nums, strs)
}

/// `text` edited 1–4 times at random.
fn mutate(text: &str, rng: &mut ChaCha8Rng) -> String {
    let mut s = text.to_string();
    for _ in 0..rng.random_range(1..=4) {
        let (nums, strs) = tokens(&s);
        match rng.random_range(0..8) {
            0 | 1 if !nums.is_empty() => {
                let (a, b) = nums[rng.random_range(0..nums.len())];
                s.replace_range(a..b, NUMBERS[rng.random_range(0..NUMBERS.len())]);
            }
            2 if !strs.is_empty() => {
                let (a, b) = strs[rng.random_range(0..strs.len())];
                s.replace_range(a..b, STRINGS[rng.random_range(0..STRINGS.len())]);
            }
            3 | 4 => {
                let mut lines: Vec<&str> = s.lines().collect();
                if lines.is_empty() {
                    continue;
                }
                let i = rng.random_range(0..lines.len());
                match rng.random_range(0..3) {
                    0 => {
                        lines.remove(i);
                    }
                    1 => lines.insert(i, lines[i]),
                    _ => {
                        let j = rng.random_range(0..lines.len());
                        lines.swap(i, j);
                    }
                }
                s = lines.join("\n");
            }
            5 => {
                let mut cut = rng.random_range(0..=s.len());
                while !s.is_char_boundary(cut) {
                    cut -= 1;
                }
                s.truncate(cut);
            }
            _ => {
                let mut at = rng.random_range(0..=s.len());
                while !s.is_char_boundary(at) {
                    at -= 1;
                }
                s.insert_str(at, STRAY[rng.random_range(0..STRAY.len())]);
            }
        }
    }
    s
}

/// Runs `check` on `n` mutants of each of `seeds`; a panic fails with the
/// input that caused it.
fn campaign(seeds: &[String], n: u64, seed: u64, mut check: impl FnMut(&str)) -> u64 {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for k in 0..n {
        let base = &seeds[(k % seeds.len() as u64) as usize];
        let input = mutate(base, &mut rng);
        if catch_unwind(AssertUnwindSafe(|| check(&input))).is_err() {
            panic!("case {k} panicked on this input:\n{input}");
        }
    }
    n
}

fn run_configs() -> Vec<String> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(Path::new(ROOT).join("configs/runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.push(Path::new(ROOT).join("tests/data/tiny-run.toml"));
    v.sort();
    v.iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

fn check_run_config(text: &str) {
    match RunConfig::from_toml(text, "mutant.toml") {
        Ok(c) => {
            // What loads is in range: checking it again agrees.
            c.check().unwrap();
            assert!(c.net.channels >= 1 && c.train.lr.is_finite());
        }
        Err(e) => assert!(e.to_string().contains("mutant.toml"), "{e}"),
    }
}

fn runs_fuzz(n: u64) -> u64 {
    campaign(&run_configs(), n, 0x70_6d, check_run_config)
}

/// A scratch checkpoint: the shipped modern net's weights beside a mutated
/// model.json.
struct Scratch {
    dir: PathBuf,
    rules: RuleSet,
    device: Device,
    loads: u64,
}

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("brandubh-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(
            Path::new(ROOT).join("models/modern/model.safetensors"),
            dir.join("model.safetensors"),
        )
        .unwrap();
        Scratch {
            dir,
            rules: RuleSet::builtin("modern").unwrap(),
            device: Device::flex(),
            loads: 0,
        }
    }

    fn check(&mut self, text: &str) {
        std::fs::write(self.dir.join("model.json"), text).unwrap();
        match read_meta(&self.dir) {
            Ok(meta) => {
                assert_eq!(meta.content_hash.len(), 64);
                // Loading reads and hashes the weights: done for the
                // mutants that could load at all.
                if meta.rules_hash == format!("{:016x}", self.rules.hash) {
                    self.loads += 1;
                    if let Err(e) = load(&self.dir, &self.rules, &self.device) {
                        assert!(e.to_string().contains(&*self.dir.to_string_lossy()), "{e}");
                    }
                }
            }
            Err(e) => assert!(e.to_string().contains("model.json"), "{e}"),
        }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn model_json_fuzz(n: u64) -> (u64, u64) {
    let seeds: Vec<String> = ["models/modern/model.json", "models/wtf/model.json"]
        .iter()
        .map(|p| std::fs::read_to_string(Path::new(ROOT).join(p)).unwrap())
        .collect();
    let mut scratch = Scratch::new("meta-fuzz");
    let n = campaign(&seeds, n, 0x6a_73, |t| scratch.check(t));
    (n, scratch.loads)
}

#[test]
fn mutated_run_configs_never_panic() {
    runs_fuzz(3_000);
}

#[test]
fn mutated_model_json_never_panics() {
    model_json_fuzz(1_500);
}

/// The recorded campaign (docs/fuzzing.md).
#[test]
#[ignore = "long; see the module"]
fn mutation_campaign() {
    let n: u64 = std::env::var("BRANDUBH_MUTATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let t = std::time::Instant::now();
    runs_fuzz(n);
    println!(
        "run configs: {n} mutants in {:.1} s, no panic",
        t.elapsed().as_secs_f64()
    );
    let t = std::time::Instant::now();
    let (m, loads) = model_json_fuzz(n);
    println!(
        "model.json: {m} mutants ({loads} loaded with their weights) in {:.1} s, no panic",
        t.elapsed().as_secs_f64()
    );
}
