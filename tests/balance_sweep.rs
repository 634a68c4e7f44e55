//! `brandubh balance --sweep`: a study is a run directory that resumes
//! after a kill and ends with the report an unkilled study gives.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const STUDY: &str = r#"
base = "wtf"
pairs = 6
chunk = 2
openings = 4
balanced = 0
max_plies = 200
seed = 3
ladder = ["alphabeta:depth=1", "alphabeta:depth=3"]

[[variant]]
name = "wtf"

[[variant]]
name = "king unarmed"
set = { "king.hammer" = false, "king.anvil" = false }
cross = [["random", "alphabeta:depth=1"]]
"#;

/// A new, empty directory for one test, removed when the guard is dropped.
fn dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("brandubh-sweep-{name}-"))
        .tempdir()
        .unwrap()
}

fn sweep(study: &Path, run: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_brandubh"))
        .args(["balance", "--sweep"])
        .arg(study)
        .arg("--run-dir")
        .arg(run)
        .output()
        .unwrap()
}

fn chunks(run: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![run.join("games")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// `games.parquet` holds one row per game of the chunk files, with the
/// documented columns, version and results.
fn games_table_matches_the_chunks(run: &Path) {
    use arrow_array::{Array, StringArray};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let mut results: Vec<String> = Vec::new();
    for c in chunks(run) {
        for line in std::fs::read_to_string(&c).unwrap().lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            results.push(v["result"].as_str().unwrap().to_string());
        }
    }
    let file = std::fs::File::open(run.join("games.parquet")).unwrap();
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    let meta = builder
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .unwrap();
    assert!(meta.iter().any(
        |kv| kv.key == brandubh_arena::sweep::STUDY_GAMES_VERSION_KEY
            && kv.value.as_deref() == Some("1")
    ));
    assert_eq!(
        builder.schema().fields(),
        brandubh_arena::sweep::study_games_schema().fields()
    );
    let mut table: Vec<String> = Vec::new();
    for batch in builder.build().unwrap() {
        let batch = batch.unwrap();
        let col = batch.column_by_name("result").unwrap();
        let col = col.as_any().downcast_ref::<StringArray>().unwrap();
        table.extend((0..col.len()).map(|i| col.value(i).to_string()));
    }
    results.sort();
    table.sort();
    assert_eq!(table, results);
}

#[test]
fn a_killed_study_resumes_to_the_same_report() {
    let base_guard = dir("resume");
    let base = base_guard.path();
    let study = base.join("study.toml");
    std::fs::write(&study, STUDY).unwrap();
    // Uninterrupted.
    let whole = base.join("whole");
    let out = sweep(&study, &whole);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = std::fs::read_to_string(whole.join("report/sweep.json")).unwrap();
    // The first variant: its 2 ladder cells; the second: those, plus
    // random–random and the two cross pairings (alphabeta:depth=1 against
    // itself is a ladder cell already); 3 chunks each.
    assert_eq!(chunks(&whole).len(), (2 + 2 + 3) * 3);
    assert!(whole.join("report/sweep.png").is_file());
    assert!(whole.join("report/strength-king_unarmed.png").is_file());
    let md = std::fs::read_to_string(whole.join("report/sweep.md")).unwrap();
    assert!(md.contains("| random | alphabeta:depth=1 |"), "{md}");
    games_table_matches_the_chunks(&whole);

    // Killed once some chunks are written, then resumed.
    let killed = base.join("killed");
    let mut child = Command::new(env!("CARGO_BIN_EXE_brandubh"))
        .args(["balance", "--sweep"])
        .arg(&study)
        .arg("--run-dir")
        .arg(&killed)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(120);
    while chunks(&killed).len() < 2 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = chunks(&killed).len();
    assert!(
        before >= 2 && before < chunks(&whole).len(),
        "killed after {before} chunks"
    );
    let out = sweep(&study, &killed);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("resuming the study"), "{text}");
    assert!(text.contains("played"), "{text}");
    assert_eq!(
        std::fs::read_to_string(killed.join("report/sweep.json")).unwrap(),
        report,
        "the resumed study's report equals the unkilled one's"
    );
    // A finished study only rebuilds its report.
    let done = chunks(&killed);
    assert_eq!(done.len(), chunks(&whole).len());
    let out = sweep(&study, &killed);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("played"));
    assert_eq!(chunks(&killed), done);
}

#[test]
fn a_bad_study_is_refused_with_what_is_wrong() {
    let base_guard = dir("bad");
    let base = base_guard.path();
    let cases = [
        ("base = \"wtf\"\n[[variant]]\nset = { \"end.encirclment\" = false }\nladder = [\"random\"]\n", "no option `encirclment`"),
        ("[[variant]]\nladder = [\"random\"]\n", "no `rules` and no `base`"),
        ("base = \"wtf\"\n[[variant]]\nladder = [\"alphabeta:depth=0\"]\n", "alphabeta:depth=0"),
        ("base = \"wtf\"\n[[variant]]\n", "no ladder and no cross-play"),
        ("base = \"wtf\"\npairs = 0\n[[variant]]\nladder = [\"random\"]\n", "at least 1"),
        ("bas = \"wtf\"\n", "unknown field"),
        ("base = \"wtf\"\nladder = [\"random\"]\n[finetune]\nfrom = \"m\"\nconfig = \"c\"\ncross = [\"alphabeta:dept=3\"]\n[[variant]]\n", "`finetune.cross`"),
    ];
    for (i, (text, words)) in cases.iter().enumerate() {
        let study = base.join(format!("s{i}.toml"));
        std::fs::write(&study, text).unwrap();
        let out = sweep(&study, &base.join(format!("run{i}")));
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(words), "{text}: {err}");
        assert!(
            err.contains(&format!("s{i}.toml")),
            "the error names the file: {err}"
        );
    }
    // A run directory holding another study is not overwritten.
    let study = base.join("ok.toml");
    std::fs::write(
        &study,
        "base = \"wtf\"\npairs = 1\nchunk = 1\n[[variant]]\nladder = [\"random\"]\n",
    )
    .unwrap();
    assert!(sweep(&study, &base.join("run-ok")).status.success());
    std::fs::write(
        &study,
        "base = \"wtf\"\npairs = 2\nchunk = 1\n[[variant]]\nladder = [\"random\"]\n",
    )
    .unwrap();
    let out = sweep(&study, &base.join("run-ok"));
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("different config"));
}

#[test]
fn a_study_fine_tunes_a_net_for_each_variant() {
    let base_guard = dir("finetune");
    let base = base_guard.path();
    let start = base.join("start");
    let init = |out: &Path, channels: u32| {
        let shape = base.join(format!("net-{channels}.json"));
        std::fs::write(
            &shape,
            format!(r#"{{"channels":{channels},"blocks":1,"value_hidden":16}}"#),
        )
        .unwrap();
        Command::new(env!("CARGO_BIN_EXE_brandubh"))
            .args(["init-model", "--rules", "wtf", "--config"])
            .arg(&shape)
            .arg("--out")
            .arg(out)
            .output()
            .unwrap()
    };
    assert!(init(&start, 8).status.success());
    let tiny = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tiny-run.toml");
    let study_text = |from: &Path| {
        format!(
            r#"
base = "wtf"
pairs = 2
chunk = 2
openings = 2
balanced = 0
max_plies = 80
ladder = ["alphabeta:depth=1"]

[finetune]
from = {from:?}
config = {tiny:?}
sims = [8]
cross = ["alphabeta:depth=1"]

[[variant]]
name = "wtf"

[[variant]]
name = "king unarmed"
set = {{ "king.hammer" = false, "king.anvil" = false }}
"#,
            from = from.display().to_string(),
            tiny = tiny.display().to_string(),
        )
    };
    let study = base.join("study.toml");
    std::fs::write(&study, study_text(&start)).unwrap();
    let run = base.join("run");
    let with_minutes = |run: &Path| {
        Command::new(env!("CARGO_BIN_EXE_brandubh"))
            .args(["balance", "--sweep"])
            .arg(&study)
            .arg("--run-dir")
            .arg(run)
            .args(["--net-minutes", "0.001"])
            .output()
            .unwrap()
    };
    let out = with_minutes(&run);
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // One net per variant, each trained one iteration (the budget runs out
    // during the first), from the starting net, for its own rules.
    let mut nets: Vec<PathBuf> = std::fs::read_dir(run.join("nets"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    nets.sort();
    assert_eq!(nets.len(), 2);
    let mut hashes = Vec::new();
    for n in &nets {
        let log = std::fs::read_to_string(n.join("run/generations.jsonl")).unwrap();
        assert_eq!(log.lines().count(), 1, "{}", n.display());
        let gen0: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(n.join("run/checkpoints/gen-0000/model.json")).unwrap(),
        )
        .unwrap();
        let note = gen0["provenance"]["note"].as_str().unwrap_or_default();
        assert!(note.contains("fine-tuned"), "{gen0}");
        hashes.push(gen0["rules_hash"].as_str().unwrap().to_string());
    }
    assert_ne!(hashes[0], hashes[1], "each net is for its variant's rules");
    // Each variant's net is its strongest rung, and plays the study's
    // cross opponent from both sides.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("report/sweep.json")).unwrap())
            .unwrap();
    let variants = report.as_array().unwrap();
    assert_eq!(variants.len(), 2, "{report}");
    for v in variants {
        let net = v["ladder"].as_array().unwrap().last().unwrap()["attackers"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(
            net.ends_with("/run/checkpoints/gen-0001,sims=8,threads=1"),
            "{net}"
        );
        let cross = v["cross"].as_array().unwrap();
        assert_eq!(cross.len(), 1, "{v}");
        assert_eq!(cross[0]["a"], net.as_str());
        assert_eq!(cross[0]["b"], "alphabeta:depth=1");
        let cells: Vec<(String, String)> = v["cells"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["attackers"].as_str().unwrap().to_string(),
                    c["defenders"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        for pairing in [
            (net.as_str(), "alphabeta:depth=1"),
            ("alphabeta:depth=1", net.as_str()),
        ] {
            assert!(
                cells.contains(&(pairing.0.to_string(), pairing.1.to_string())),
                "{cells:?}"
            );
        }
    }
    // Resumed: nothing more to train or play.
    let out = with_minutes(&run);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains("fine-tuning") && !text.contains("played"),
        "{text}"
    );

    // A starting net of another shape is refused with both shapes named.
    let wide = base.join("wide");
    assert!(init(&wide, 16).status.success());
    std::fs::write(&study, study_text(&wide)).unwrap();
    let out = with_minutes(&base.join("run-wide"));
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("channels: 16") && err.contains("same shape"),
        "{err}"
    );
}

#[test]
fn the_shipped_studies_parse_and_their_nets_fit_their_configs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut seen = 0;
    for e in std::fs::read_dir(root.join("configs/balance")).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|x| x != "toml") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.display().to_string();
        let cfg = brandubh_arena::sweep::SweepConfig::parse(&text, &name).unwrap();
        let variants = cfg
            .variants(&name, &|r| {
                brandubh_rules::RuleSet::named(r).map_err(|e| e.to_string())
            })
            .unwrap();
        assert!(!variants.is_empty());
        if let Some(f) = &cfg.finetune {
            let run = std::fs::read_to_string(root.join(&f.config)).unwrap();
            let run = brandubh_train::RunConfig::from_toml(&run, &f.config).unwrap();
            for v in &variants {
                let from = v.finetune_from.as_deref().unwrap();
                let meta = brandubh_model::read_meta(&root.join(from)).unwrap();
                assert_eq!(meta.net, run.net, "{name}: {from} and {}", f.config);
            }
        }
        seen += 1;
    }
    assert!(seen >= 2);
}
