//! Nets on disk: `init-model`, `export` and the inference engines.

use crate::{assert_ok, brandubh, ok_json, scratch};
use std::process::Command;

/// `init-model` writes a checkpoint that loads; it never writes into a
/// directory that holds something else, and replaces a checkpoint only
/// with `--force`, whole.
#[test]
fn init_model_refuses_what_is_not_its_own() {
    let dir_guard = scratch("init");
    let dir = dir_guard.path();
    let other = dir.join("notes");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("todo.txt"), "keep me").unwrap();
    let init = |out: &std::path::Path, extra: &[&str]| {
        let mut args = vec![
            "init-model",
            "--rules",
            "modern",
            "--channels",
            "8",
            "--blocks",
            "1",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        brandubh(&args)
    };
    // A directory that is not a checkpoint: refused, even with --force.
    for extra in [&[][..], &["--force"][..]] {
        let out = init(&other, extra);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(
            err.contains("is not a checkpoint") && err.contains("notes"),
            "{err}"
        );
        assert_eq!(
            std::fs::read_to_string(other.join("todo.txt")).unwrap(),
            "keep me"
        );
        assert!(!other.join("model.json").exists());
    }
    // A new directory: written, and it loads.
    let ckpt = dir.join("ckpt");
    assert!(init(&ckpt, &["--seed", "1"]).status.success());
    let hash = |p: &std::path::Path| {
        let meta: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(p.join("model.json")).unwrap()).unwrap();
        meta["content_hash"].as_str().unwrap().to_string()
    };
    let first = hash(&ckpt);
    // Again without --force: refused, the checkpoint unchanged.
    let out = init(&ckpt, &["--seed", "2"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--force"));
    assert_eq!(hash(&ckpt), first);
    // With --force: a different net, whole, and it plays.
    assert!(init(&ckpt, &["--seed", "2", "--force"]).status.success());
    assert_ne!(hash(&ckpt), first);
    ok_json(&[
        "analyze",
        "--rules",
        "modern",
        "--player",
        &format!("mcts:model={},sims=4", ckpt.display()),
        "--json",
    ]);
    // Nothing left beside it from the swap.
    let names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

/// `init-model --config` takes the net shape as a checkpoint records it,
/// with or without a moves-left output; `analyze` shows the plies left a
/// search expects only for a net that has one, and its spec takes the
/// moves-left utility's settings.
#[test]
fn init_model_config_and_the_moves_left_output_in_analyze() {
    let dir_guard = scratch("ml");
    let dir = dir_guard.path();
    for moves_left in [false, true] {
        let cfg = dir.join(format!("net-{moves_left}.json"));
        let mut shape = serde_json::json!({"channels": 8, "blocks": 1, "value_hidden": 8});
        if moves_left {
            shape["moves_left"] = serde_json::json!(true);
        }
        std::fs::write(&cfg, shape.to_string()).unwrap();
        let ckpt = dir.join(format!("ckpt-{moves_left}"));
        let out = brandubh(&[
            "init-model",
            "--rules",
            "wtf",
            "--out",
            ckpt.to_str().unwrap(),
            "--config",
            cfg.to_str().unwrap(),
        ]);
        assert_ok(&out);
        let meta: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(ckpt.join("model.json")).unwrap())
                .unwrap();
        assert_eq!(
            meta["net"]["moves_left"].as_bool().unwrap_or(false),
            moves_left
        );
        let v = ok_json(&[
            "analyze",
            "--rules",
            "wtf",
            "--player",
            &format!("mcts:model={},sims=32,ml=0.03,mlslope=0.01", ckpt.display()),
            "--json",
        ]);
        let moves = v["moves"].as_array().unwrap();
        let visited: Vec<_> = moves
            .iter()
            .filter(|m| m["visits"].as_u64() > Some(0))
            .collect();
        assert!(!visited.is_empty());
        for m in visited {
            assert_eq!(m["plies_left"].is_number(), moves_left, "{m}");
            if moves_left {
                assert!(m["plies_left"].as_f64().unwrap() >= 1.0, "{m}");
            }
        }
    }
}

/// Exporting a shipped net again, out of its run directory, keeps the
/// training record its card had, and never writes over the checkpoint.
#[test]
fn export_keeps_a_shipped_nets_provenance() {
    let dir_guard = scratch("export");
    let dir = dir_guard.path();
    let shipped = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/wtf");
    for f in ["model.json", "model.safetensors", "model.card.json"] {
        std::fs::copy(shipped.join(f), dir.join(f)).unwrap();
    }
    let card = |p: &std::path::Path| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    };
    let before = card(&dir.join("model.card.json"));
    assert!(before["training"]["run"].is_string());
    let model = dir.to_str().unwrap();
    // Over the net's own card, and to a new place: both keep the record.
    for out in [dir.join("model.onnx"), dir.join("again/net.onnx")] {
        let run = brandubh(&["export", "--model", model, "--out", out.to_str().unwrap()]);
        assert_ok(&run);
        let after = card(&out.with_extension("card.json"));
        assert_eq!(after["training"], before["training"]);
        assert_eq!(
            after["model"]["content_hash"],
            before["model"]["content_hash"]
        );
    }
    // A file of the checkpoint as the output: refused, the file unchanged.
    let meta = std::fs::read(dir.join("model.json")).unwrap();
    let run = brandubh(&[
        "export",
        "--model",
        model,
        "--out",
        dir.join("model.json").to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert!(err.contains("is part of the checkpoint"), "{err}");
    assert_eq!(std::fs::read(dir.join("model.json")).unwrap(), meta);
}

/// A net of a run whose self-play had a fixed opponent says so in its
/// card, from the generation the opponent joined.
#[test]
fn export_names_a_fixed_opponent_in_the_card() {
    let dir_guard = scratch("export-opponent");
    let run = dir_guard.path().join("run");
    let ckpt = run.join("checkpoints/gen-0057");
    std::fs::create_dir_all(&ckpt).unwrap();
    let shipped = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/wtf");
    for f in ["model.json", "model.safetensors"] {
        std::fs::copy(shipped.join(f), ckpt.join(f)).unwrap();
    }
    let base = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/runs/wtf-strong.toml"),
    )
    .unwrap()
    .replace(
        "attacker_sims_factor = 4.0",
        "attacker_sims_factor = 4.0\nopponent_share = 0.5\nopponent_plays = \"defenders\"",
    );
    for (from, seen) in [(40, true), (58, false)] {
        let config = format!(
            "{base}\n[opponent]\nplayer = \"alphabeta:depth=5\"\nfrom_generation = {from}\n"
        );
        std::fs::write(run.join("config.toml"), config).unwrap();
        let out = dir_guard.path().join(format!("net-{from}.onnx"));
        let r = brandubh(&[
            "export",
            "--model",
            ckpt.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_ok(&r);
        let card: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(out.with_extension("card.json")).unwrap(),
        )
        .unwrap();
        let t = &card["training"];
        assert_eq!(t["generation"], 57);
        assert_eq!(t["self_play_only"], !seen, "{t}");
        if seen {
            assert_eq!(t["opponent"]["player"], "alphabeta:depth=5");
            assert_eq!(t["opponent"]["plays"], "defenders");
            assert_eq!(t["opponent"]["from_generation"], from);
        } else {
            assert!(t["opponent"].is_null(), "{t}");
        }
    }
}

/// An inference engine this build does not have is named in a clear
/// error before any model is loaded.
#[test]
fn an_unknown_inference_engine_is_a_clear_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_brandubh"))
        .args([
            "analyze",
            "--rules",
            "modern",
            "--player",
            "mcts:model=models/modern,sims=4",
        ])
        .env("BRANDUBH_INFERENCE", "cuda")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("BRANDUBH_INFERENCE=`cuda`") && !err.contains("panicked"),
        "{err}"
    );
}

/// The inference engine is a flag: each engine runs a shipped net in
/// search, and they give the net's value at the root within 1e-4.
#[test]
fn each_inference_engine_runs_a_shipped_net() {
    let mut values = Vec::new();
    for engine in ["native", "tract", "flex"] {
        let v = ok_json(&[
            "analyze",
            "--inference",
            engine,
            "--rules",
            "wtf",
            "--player",
            "mcts:model=models/wtf,sims=8,batch=1,threads=1",
            "--raw",
            "--json",
        ]);
        assert_eq!(v["simulations"], 8, "{engine}: {v}");
        values.push(v["raw"]["value"].as_f64().unwrap());
    }
    for v in &values {
        assert!((v - values[0]).abs() < 1e-4, "{values:?}");
    }
}
