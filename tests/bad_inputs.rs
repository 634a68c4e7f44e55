//! A survey of bad input, as a new user (or a file from elsewhere) would
//! give it: every command-line number out of range, every kind of file
//! the tools read, damaged in the ways files get damaged. Each case must
//! end, within a time limit, with a non-zero exit and an error line that
//! names what is wrong — never a panic, an abort or a hang. The count of
//! cases is quoted in docs/fuzzing.md.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One bad input: the arguments (`{D}` stands for the case's scratch
/// directory, where it runs; `{R}` for the checkout), files to write there
/// first, and what the error must name.
struct Case {
    args: &'static [&'static str],
    files: Vec<(&'static str, String)>,
    names: &'static str,
}

fn case(args: &'static [&'static str], names: &'static str) -> Case {
    Case {
        args,
        files: Vec::new(),
        names,
    }
}

fn with_files(
    args: &'static [&'static str],
    files: &[(&'static str, &str)],
    names: &'static str,
) -> Case {
    Case {
        args,
        files: files.iter().map(|(n, t)| (*n, t.to_string())).collect(),
        names,
    }
}

/// The shipped default run config with one line replaced (or, when `from`
/// is empty, `to` appended).
fn run_config(from: &str, to: &str) -> String {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/runs/default.toml"),
    )
    .unwrap();
    if from.is_empty() {
        return text + to;
    }
    assert!(text.contains(from), "{from}");
    text.replacen(from, to, 1)
}

/// `loop` on a new run from the default config with one line changed.
fn bad_run(from: &str, to: &str, names: &'static str) -> Case {
    Case {
        args: &["loop", "--config", "{D}/run.toml", "--run-dir", "{D}/r"],
        files: vec![("run.toml", run_config(from, to))],
        names,
    }
}

const START: &str = "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/";

const MODEL_JSON: &str = r#"{"format":1,"net":{"channels":8,"blocks":1,"value_hidden":8},"encoding_version":1,"rules":"wtf","rules_hash":"9448b314ab899a2f","step":0,"generation":0,"content_hash":"0000000000000000000000000000000000000000000000000000000000000000"}"#;

fn cases() -> Vec<Case> {
    vec![
        // Command-line numbers and limits.
        case(&["perft", "--depth", "99"], "--depth"),
        case(&["perft", "--depth", "-1"], "--depth"),
        case(&["perft", "--depth", "three"], "--depth"),
        case(&["search", "--depth", "0"], "--depth"),
        case(&["show", "--inference", "cuda"], "--inference"),
        case(&["search", "--depth", "65"], "--depth"),
        case(&["search", "--ms", "0"], "--ms"),
        case(&["search", "--ms", "18446744073709551615"], "--ms"),
        case(&["search", "--nodes", "0"], "--nodes"),
        case(&["search", "--tt", "0"], "--tt"),
        case(&["search", "--tt", "17592186044416"], "--tt"),
        case(&["analyze", "--ms", "0"], "--ms"),
        case(&["analyze", "--top", "0"], "--top"),
        case(&["match", "--a", "random", "--b", "random", "--pairs", "0"], "--pairs"),
        case(
            &["match", "--a", "random", "--b", "random", "--clock", "10/3"],
            "clock",
        ),
        case(
            &["match", "--a", "random", "--b", "random", "--clock", "-5"],
            "-5",
        ),
        case(&["balance", "--pairs", "0"], "--pairs"),
        case(&["balance", "--max-plies", "0"], "--max-plies"),
        case(&["selfplay", "--games", "0"], "--games"),
        case(&["selfplay", "--batch", "0"], "--batch"),
        case(&["selfplay", "--threads", "100000"], "--threads"),
        case(&["init-model", "--out", "{D}/m", "--channels", "0"], "--channels"),
        case(&["init-model", "--out", "{D}/m", "--channels", "100000"], "--channels"),
        case(&["init-model", "--out", "{D}/m", "--blocks", "1000"], "--blocks"),
        case(&["tune-eval", "--iterations", "0", "{D}/none.jsonl"], "--iterations"),
        case(&["play", "--max-plies", "x"], "--max-plies"),
        // Player specs.
        case(&["analyze", "--player", "mcts:sims=99999999999"], "sims"),
        case(&["analyze", "--player", "mcts:sims=0"], "sims"),
        case(&["analyze", "--player", "mcts:ms=0"], "ms"),
        case(&["analyze", "--player", "mcts:cpuct=-1"], "cpuct"),
        case(&["analyze", "--player", "mcts:speed=3"], "speed"),
        case(&["analyze", "--player", "mcts:sims=12,sims=13"], "sims"),
        case(&["analyze", "--player", "mcts:model=/no/such/model"], "/no/such/model"),
        case(&["analyze", "--player", "alphabeta:depth=0"], "depth"),
        case(&["analyze", "--player", "alphabeta:depth=x"], "depth"),
        case(&["analyze", "--player", "alphabeta:tt=99999999999"], "tt"),
        case(&["analyze", "--player", "alphabeta:eval=/no/such.toml"], "/no/such.toml"),
        case(&["analyze", "--player", "chess:depth=2"], "chess"),
        case(&["analyze", "--player", ""], "player"),
        case(&["match", "--a", "otep:", "--b", "random"], "otep"),
        case(&["match", "--a", "random"], "--b"),
        case(&["play", "--attackers", "alphabeta:depth=99"], "depth"),
        case(&["engine", "--player", "random:x=1"], "random"),
        // Rule sets: names, OpenTafl strings, TOML files.
        case(&["rules", "show", "chess"], "chess"),
        case(&["perft", "--rules", "nosuch", "--depth", "1"], "nosuch"),
        case(
            &["perft", "--rules", "dim:9 start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/", "--depth", "1"],
            "dim",
        ),
        case(
            &["perft", "--rules", "dim:7 esc:q start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/", "--depth", "1"],
            "esc",
        ),
        with_files(
            &["perft", "--rules", "{D}/r.toml", "--depth", "1"],
            &[("r.toml", "name = \"x\"\nfirst_to_move = \"nobody\"\n")],
            "first_to_move",
        ),
        with_files(
            &["perft", "--rules", "{D}/r.toml", "--depth", "1"],
            &[("r.toml", "name = \"x\"\n[throne\n")],
            "r.toml",
        ),
        with_files(
            &["perft", "--rules", "{D}/r.toml", "--depth", "1"],
            &[("r.toml", "name = \"x\"\nsurprise = 1\n")],
            "surprise",
        ),
        with_files(
            &["perft", "--rules", "{D}/r.toml", "--depth", "1"],
            &[("r.toml", "\u{0}\u{1}\u{2}")],
            "r.toml",
        ),
        // Positions and moves.
        case(&["show", "--position", "/3t3/3t3/"], "position"),
        case(&["show", "--position", "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t4/"], "position"),
        case(&["show", "--position", "/3t3/3t3/3T3/ttTXTtt/3T3/3t3/3t3/"], "position"),
        case(&["show", "--position", "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3tK2/"], "king"),
        case(&["show", "--position", START, "--side", "purple"], "--side"),
        case(&["show", "--moves", "d6-d9"], "d6-d9"),
        case(&["show", "--moves", "d6-c6 d6-c6"], "d6-c6"),
        case(&["show", "--moves", "a1-a2"], "a1-a2"),
        case(&["show", "--moves", "d7-d5xq9"], "d7-d5xq9"),
        case(&["search", "--moves", "pass"], "pass"),
        case(&["perft", "--position", "", "--depth", "1"], "position"),
        // Game files.
        case(&["show", "--game", "{D}/none.otg"], "none.otg"),
        with_files(
            &["show", "--game", "{D}/g.otg"],
            &[("g.otg", "[rules:dim:7 esc:c]\n\n1. d6-g6 d5-c5\n")],
            "g.otg",
        ),
        with_files(
            &["show", "--game", "{D}/g.otg"],
            &[(
                "g.otg",
                "[rules:dim:7 esc:c surf:y atkf:y tfr:w ka:y ks:w corh:tTK cenh:t cenhe:tT cenp:tTK cens:K cors:K start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/]\n\n1. d6-g6 d5-d9\n",
            )],
            "d5-d9",
        ),
        with_files(
            &["show", "--game", "{D}/g.otg"],
            &[("g.otg", "[rules:\n")],
            "g.otg",
        ),
        with_files(&["ratings", "{D}/m.jsonl"], &[("m.jsonl", "{not json\n")], "m.jsonl"),
        with_files(
            &["ratings", "{D}/m.jsonl"],
            &[("m.jsonl", "{\"format\":99}\n")],
            "m.jsonl",
        ),
        with_files(
            &["ratings", "{D}/m.jsonl"],
            &[(
                "m.jsonl",
                "{\"format\":1,\"rules\":\"wtf\",\"rules_hash\":\"9448b314ab899a2f\",\"pair\":0,\"game\":0,\"seed\":1,\"attackers\":\"a\",\"defenders\":\"b\",\"opening\":[],\"moves\":[\"d6-d9\"]}\n",
            )],
            "m.jsonl",
        ),
        case(&["ratings", "{D}/none.jsonl"], "none.jsonl"),
        with_files(
            &["tune-eval", "{D}/m.jsonl"],
            &[("m.jsonl", "\n\n{]\n")],
            "m.jsonl",
        ),
        with_files(
            &["export-games", "{D}/x.games.parquet", "--out", "{D}/o"],
            &[("x.games.parquet", "PAR1 not a parquet file PAR1")],
            "x.games.parquet",
        ),
        with_files(
            &["balance", "--games", "{D}/shards"],
            &[
                ("shards/a.games.parquet", "PAR1PAR1"),
                ("shards/a.positions.parquet", "PAR1PAR1"),
            ],
            "a.",
        ),
        with_files(
            &["export-games", "{D}/m.jsonl", "--out", "{D}/o"],
            &[("m.jsonl", "[1,2,3]\n")],
            "m.jsonl",
        ),
        // Evaluation weights.
        with_files(
            &["search", "--depth", "1", "--eval", "{D}/w.toml"],
            &[("w.toml", "attacker = \"heavy\"\n")],
            "attacker",
        ),
        with_files(
            &["search", "--depth", "1", "--eval", "{D}/w.toml"],
            &[("w.toml", "attacker = 1e30\n")],
            "attacker",
        ),
        with_files(
            &["search", "--depth", "1", "--eval", "{D}/w.toml"],
            &[("w.toml", "nonsense = 3\n")],
            "nonsense",
        ),
        // Self-play and run configs.
        with_files(
            &["selfplay", "--games", "1", "--config", "{D}/s.toml", "--out", "{D}/o"],
            &[("s.toml", "[mcts]\nc_puct = -2.0\n")],
            "c_puct",
        ),
        with_files(
            &["selfplay", "--games", "1", "--config", "{D}/s.toml", "--out", "{D}/o"],
            &[("s.toml", "[mcts]\nsimulations = 0\n")],
            "simulations",
        ),
        with_files(
            &["selfplay", "--games", "1", "--config", "{D}/s.toml", "--out", "{D}/o"],
            &[("s.toml", "concurrent_games = \"many\"\n")],
            "concurrent_games",
        ),
        with_files(
            &["selfplay", "--games", "1", "--config", "{D}/s.toml", "--out", "{D}/o"],
            &[("s.toml", "[mcts]\ntemperature = nan\n")],
            "temperature",
        ),
        case(&["selfplay", "--games", "1", "--config", "{D}/none.toml"], "none.toml"),
        bad_run("generations = 12", "generations = 0", "generations"),
        bad_run("threads = 0", "threads = 100000", "threads"),
        bad_run("selfplay_games = 160", "selfplay_games = -1", "selfplay_games"),
        bad_run("batch_size = 256", "batch_size = 0", "batch_size"),
        bad_run("lr = 0.002", "lr = -1.0", "lr"),
        bad_run("steps_per_generation = 250", "steps_per_generation = 0", "steps_per_generation"),
        bad_run("gating = \"always\"", "gating = \"sometimes\"", "gating"),
        bad_run("sims = 64", "sims = 0", "eval.sims"),
        bad_run("baseline = \"alphabeta:depth=2\"", "baseline = \"alphabeta:depth=x\"", "eval.baseline"),
        bad_run("max_plies = 200", "max_plies = \"long\"", "max_plies"),
        bad_run("random_move_prob = 0.05", "random_move_prob = 2.0", "random_move_prob"),
        bad_run("player = \"alphabeta:depth=5\"", "player = \"random\"", "teacher.player"),
        bad_run("", "\n[surprise]\nx = 1\n", "surprise"),
        case(&["train", "--run-dir", "{D}/nothing"], "nothing"),
        case(&["report", "--run-dir", "{D}/nothing"], "nothing"),
        with_files(
            &["report", "--run-dir", "{D}/r"],
            &[("r/generations.jsonl", "{\"iteration\": \"one\"}\n")],
            "generations.jsonl",
        ),
        // Checkpoints.
        case(&["export", "--model", "{D}/nothing", "--out", "{D}/m.onnx"], "nothing"),
        with_files(
            &["export", "--model", "{D}/c", "--out", "{D}/m.onnx"],
            &[("c/model.json", "{\"format\": 1}")],
            "model.json",
        ),
        with_files(
            &["export", "--model", "{D}/c", "--out", "{D}/m.onnx"],
            &[("c/model.json", MODEL_JSON)],
            "model.safetensors",
        ),
        with_files(
            &["export", "--model", "{D}/c", "--out", "{D}/m.onnx"],
            &[
                ("c/model.json", MODEL_JSON),
                ("c/model.safetensors", "not safetensors at all"),
            ],
            "model.safetensors",
        ),
        with_files(
            &["show", "--model", "{D}/c"],
            &[("c/model.json", "\u{feff}{\"format\": 2}")],
            "model.json",
        ),
        case(
            &["export", "--model", "{R}/models/wtf", "--out", "{R}/models/wtf/model.json"],
            "checkpoint",
        ),
        case(&["init-model", "--out", "{R}/models/wtf"], "--force"),
        case(&["init-model", "--out", "{D}/m", "--config", "{not json"], "{not json"),
        with_files(
            &["init-model", "--out", "{D}/m", "--config", "{D}/net.json"],
            &[("net.json", "{\"channels\": 0, \"blocks\": 1, \"value_hidden\": 8}")],
            "channels",
        ),
    ]
}

/// Runs one case in its own scratch directory; the error text, or why the
/// case did not end as a clear error.
fn run(i: usize, c: &Case) -> Result<String, String> {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("brandubh-bad-{}-{i}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in &c.files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let d = dir.to_str().unwrap();
    let root = env!("CARGO_MANIFEST_DIR");
    let args: Vec<String> = c
        .args
        .iter()
        .map(|a| a.replace("{D}", d).replace("{R}", root))
        .collect();
    let mut child = Command::new(env!("CARGO_BIN_EXE_brandubh"))
        .args(&args)
        // In the scratch directory, so that a case that wrongly succeeds
        // leaves its output there, not in the checkout.
        .current_dir(&dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(60) {
            child.kill().ok();
            child.wait().ok();
            let _ = std::fs::remove_dir_all(&dir);
            return Err(format!("{args:?}: still running after 60 s"));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).ok();
    let _ = std::fs::remove_dir_all(&dir);
    let named = c.names.replace("{D}", d);
    if !matches!(status.code(), Some(1) | Some(2)) {
        return Err(format!("{args:?}: exit {status:?}: {err}"));
    }
    if !err.lines().any(|l| l.starts_with("error")) || err.contains("panicked") {
        return Err(format!("{args:?}: not a clear error: {err}"));
    }
    // A cause is said once, not repeated by each error that wraps it.
    // (What a message quotes in backticks, the input itself, may hold
    // the same text as its cause.)
    let first = err.lines().find(|l| l.starts_with("error")).unwrap_or("");
    let unquoted: String = first.split('`').step_by(2).collect();
    for part in unquoted.split(": ").filter(|p| p.len() >= 12) {
        if unquoted.matches(part).count() > 1 {
            return Err(format!("{args:?}: `{part}` said twice: {first}"));
        }
    }
    if !err.contains(&named) {
        return Err(format!(
            "{args:?}: the error does not name `{named}`: {err}"
        ));
    }
    Ok(err)
}

#[test]
fn every_bad_input_is_a_clear_error() {
    let cases = cases();
    let failures: Vec<String> = cases
        .iter()
        .enumerate()
        .filter_map(|(i, c)| run(i, c).err())
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} bad inputs were not clear errors:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    // No two cases are the same input.
    let mut seen = std::collections::HashSet::new();
    for c in &cases {
        assert!(seen.insert((c.args, c.files.clone())), "{:?} twice", c.args);
    }
}
