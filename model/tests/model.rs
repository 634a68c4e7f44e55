//! The net, its evaluator, checkpoints and ONNX export.

use brandubh_mcts::{EvalRequest, Evaluator};
use brandubh_model::encoding::{encode, INPUT_LEN};
use brandubh_model::export::{export, run_tract};
use brandubh_model::{load, load_evaluator, read_meta, save, NetConfig, NetEvaluator};
use brandubh_rules::{Game, Position, RuleSet, Symmetry};
use burn::tensor::Device;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;

/// burn's random generator is one per process: tests that seed it or
/// initialise a net (loading one does) take turns, so a seeded test's
/// weights are its own.
fn rng_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("brandubh-model-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

use brandubh_rules::testing::rules;

fn some_positions(r: &Arc<RuleSet>) -> Vec<Game> {
    let mut out = Vec::new();
    let mut g = Game::new(r.clone());
    for i in 0..5 {
        out.push(g.clone());
        let m = g.legal_moves()[(i * 5 + 1) % g.legal_moves().len()];
        g.play(m).unwrap();
    }
    out
}

fn eval_all(ev: &dyn Evaluator, games: &[Game]) -> Vec<brandubh_mcts::Evaluation> {
    let reqs: Vec<EvalRequest<'_>> = games
        .iter()
        .map(|g| EvalRequest {
            position: g.position(),
            moves: g.legal_moves().as_slice(),
            repetitions: 0,
        })
        .collect();
    ev.evaluate(&reqs)
}

#[test]
fn evaluator_outputs_are_distributions_and_batch_independent() {
    let _rng = rng_lock();
    let r = rules("wtf");
    let device = Device::flex();
    device.seed(3);
    let net = NetConfig::new().init(&device);
    let ev = NetEvaluator::new(&net, device, r.clone(), "t".into());
    let games = some_positions(&r);
    let batch = eval_all(&ev, &games);
    for (g, e) in games.iter().zip(&batch) {
        assert_eq!(e.priors.len(), g.legal_moves().len());
        assert!((e.priors.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        assert!(e.priors.iter().all(|&p| p >= 0.0));
        assert!((e.wdl.iter().sum::<f32>() - 1.0).abs() < 1e-4);
    }
    for (i, g) in games.iter().enumerate() {
        let single = eval_all(&ev, std::slice::from_ref(g)).remove(0);
        for (a, b) in single.priors.iter().zip(&batch[i].priors) {
            assert!((a - b).abs() < 1e-5, "batch and single evaluation differ");
        }
    }
}

#[test]
fn checkpoints_round_trip() {
    let _rng = rng_lock();
    let r = rules("ludii");
    let dir = tmp("roundtrip");
    let device = Device::flex();
    device.seed(5);
    let config = NetConfig::new().with_channels(16).with_blocks(1);
    let net = config.init(&device);
    let meta = save(&dir, &net, &config, &r, 42, 3, "test").unwrap();
    assert_eq!(read_meta(&dir).unwrap(), meta);
    let (back, cfg2, meta2) = load(&dir, &r, &device).unwrap();
    assert_eq!(cfg2, config);
    assert_eq!((meta2.step, meta2.generation), (42, 3));
    let games = some_positions(&r);
    let a = eval_all(
        &NetEvaluator::new(&net, device.clone(), r.clone(), "a".into()),
        &games,
    );
    let b = eval_all(
        &NetEvaluator::new(&back, device, r.clone(), "b".into()),
        &games,
    );
    assert_eq!(a, b);
    assert!(load_evaluator(&dir, &r).unwrap().id() == meta.model_id());
    std::fs::remove_dir_all(&dir).ok();
}

/// Saves `net` as a checkpoint under `dir`, loads it back as the same
/// config and the same evaluations of `games`, exports it to ONNX with its
/// card, and checks the card's vectors alone in tract. Returns the
/// checkpoint's metadata, the evaluations and the card.
fn round_trip_and_export(
    net: &brandubh_model::Net,
    config: &NetConfig,
    r: &Arc<RuleSet>,
    dir: &Path,
    games: &[Game],
    device: &Device,
) -> (
    brandubh_model::CheckpointMeta,
    Vec<brandubh_mcts::Evaluation>,
    serde_json::Value,
) {
    let meta = save(&dir.join("ckpt"), net, config, r, 7, 1, "test").unwrap();
    let (back, cfg2, _) = load(&dir.join("ckpt"), r, device).unwrap();
    assert_eq!(&cfg2, config);
    let a = eval_all(
        &NetEvaluator::new(net, device.clone(), r.clone(), "a".into()),
        games,
    );
    assert_eq!(
        a,
        eval_all(
            &NetEvaluator::new(&back, device.clone(), r.clone(), "b".into()),
            games,
        )
    );
    let onnx = dir.join("net.onnx");
    let report = export(net, config, &meta, r, &onnx, serde_json::Value::Null).unwrap();
    assert!(report.max_abs_diff <= 1e-4, "{}", report.max_abs_diff);
    let card: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("net.card.json")).unwrap()).unwrap();
    card_alone_reproduces_its_vectors(&onnx, &card);
    (meta, a, card)
}

/// A net with the moves-left output: its checkpoint says so (and the
/// weights agree), it loads as the same net, its evaluations carry the
/// plies left, and it exports to ONNX with the output as the value's fourth
/// column, which its card's vectors reproduce in tract. A net without the
/// output gives none, and its checkpoint's metadata does not mention it.
#[test]
fn moves_left_output_round_trips_and_exports() {
    let _rng = rng_lock();
    let r = rules("wtf");
    let dir = tmp("moves-left");
    let device = Device::flex();
    device.seed(13);
    let config = NetConfig::new()
        .with_channels(8)
        .with_blocks(1)
        .with_moves_left(true);
    let net = config.init(&device);
    assert_eq!(net.value_width(), 4);
    let games = some_positions(&r);
    let (meta, a, card) = round_trip_and_export(&net, &config, &r, &dir, &games, &device);
    assert!(meta.net.moves_left);
    assert!(a.iter().all(|e| e.moves_left.is_some_and(|m| m >= 0.0)));
    assert_eq!(card["onnx"]["outputs"][1]["shape"][1], 4);
    assert!(card["moves_left"].is_string());

    let plain = NetConfig::new().with_channels(8).with_blocks(1);
    let net = plain.init(&device);
    let meta = save(&dir.join("plain"), &net, &plain, &r, 7, 1, "test").unwrap();
    assert!(!meta.net.moves_left);
    let text = std::fs::read_to_string(dir.join("plain").join("model.json")).unwrap();
    assert!(!text.contains("moves_left"), "{text}");
    let e = eval_all(
        &NetEvaluator::new(&net, device, r.clone(), "p".into()),
        &games,
    );
    assert!(e.iter().all(|e| e.moves_left.is_none()));
    std::fs::remove_dir_all(&dir).ok();
}

/// Value heads per side: a net grown from a shared head gives exactly the
/// shared head's values for both sides until trained; the checkpoint says
/// it has them (and the weights agree), loads as the same net, and exports
/// to ONNX with a card whose vectors (both sides to move) reproduce in
/// tract. A net without them does not mention them.
#[test]
fn side_value_heads_round_trip_and_export() {
    let _rng = rng_lock();
    let r = rules("modern");
    let dir = tmp("side-heads");
    let device = Device::flex();
    device.seed(17);
    let plain = NetConfig::new()
        .with_channels(8)
        .with_blocks(1)
        .with_value_hidden(16);
    let shared = plain.init(&device);
    let games = some_positions(&r);
    let defenders = games
        .iter()
        .filter(|g| g.position().side_to_move() == brandubh_rules::Side::Defenders)
        .count();
    assert!(
        defenders > 0 && defenders < games.len(),
        "positions with each side to move"
    );
    let before = eval_all(
        &NetEvaluator::new(&shared, device.clone(), r.clone(), "s".into()),
        &games,
    );
    let grown = shared.clone().with_side_value_heads();
    let after = eval_all(
        &NetEvaluator::new(&grown, device.clone(), r.clone(), "g".into()),
        &games,
    );
    assert_eq!(before, after);

    let config = plain.clone().with_side_value_heads(true);
    let net = config.init(&device);
    let (meta, _, card) = round_trip_and_export(&net, &config, &r, &dir, &games, &device);
    assert!(meta.net.side_value_heads);
    assert_eq!(card["model"]["net"]["side_value_heads"], true);
    // A checkpoint that declares no side heads over weights that have them
    // is refused.
    let json = dir.join("ckpt").join("model.json");
    let text = std::fs::read_to_string(&json).unwrap();
    std::fs::write(
        &json,
        text.replace("\"side_value_heads\": true", "\"side_value_heads\": false"),
    )
    .unwrap();
    assert!(load(&dir.join("ckpt"), &r, &device).is_err());
    std::fs::write(&json, text).unwrap();

    let meta = save(&dir.join("plain"), &shared, &plain, &r, 7, 1, "test").unwrap();
    assert!(!meta.net.side_value_heads);
    let text = std::fs::read_to_string(dir.join("plain").join("model.json")).unwrap();
    assert!(!text.contains("side_value_heads"), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn provenance_reads_as_fields_or_as_an_old_note() {
    let _rng = rng_lock();
    let r = rules("wtf");
    let dir = tmp("prov");
    let config = NetConfig::new().with_channels(8).with_blocks(1);
    let device = Device::flex();
    let prov = brandubh_model::Provenance {
        seed: Some(4),
        run: Some("r".into()),
        policy_loss: Some(1.5),
        ..Default::default()
    };
    save(&dir, &config.init(&device), &config, &r, 0, 0, prov.clone()).unwrap();
    assert_eq!(read_meta(&dir).unwrap().provenance, prov);
    // A checkpoint from before: the provenance was one sentence.
    let path = dir.join("model.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    v["provenance"] = serde_json::json!("losses 2.7 0.8");
    std::fs::write(&path, v.to_string()).unwrap();
    let meta = read_meta(&dir).unwrap();
    assert_eq!(meta.provenance.note, "losses 2.7 0.8");
    assert_eq!(meta.provenance.policy_loss, None);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_checkpoints_are_refused_with_reasons() {
    let _rng = rng_lock();
    let r = rules("wtf");
    let dir = tmp("bad");
    let device = Device::flex();
    let config = NetConfig::new().with_channels(8).with_blocks(1);
    save(&dir, &config.init(&device), &config, &r, 0, 0, "").unwrap();
    let err = |d: &PathBuf, rr: &RuleSet| load(d, rr, &device).expect_err("must fail").to_string();

    let e = err(&dir, &RuleSet::builtin("modern").unwrap());
    assert!(e.contains("`wtf`") && e.contains("`modern`"), "{e}");

    let w = dir.join("model.safetensors");
    let bytes = std::fs::read(&w).unwrap();
    std::fs::write(&w, &bytes[..bytes.len() / 2]).unwrap();
    let e = err(&dir, &r);
    assert!(e.contains("corrupted"), "{e}");
    std::fs::write(&w, &bytes).unwrap();
    assert!(load(&dir, &r, &device).is_ok());

    let m = dir.join("model.json");
    let json = std::fs::read_to_string(&m).unwrap();
    std::fs::write(&m, &json[..json.len() / 2]).unwrap();
    assert!(err(&dir, &r).contains("malformed metadata"));
    // A shape other than the weights' is refused before a net of that
    // shape is built; an absurd one before the weights are read (the
    // mutation fuzzer found that one building a net until memory ran out).
    std::fs::write(&m, json.replace("\"channels\": 8", "\"channels\": 16")).unwrap();
    let e = err(&dir, &r);
    assert!(
        e.contains("declares a 16×1") && e.contains("hold a 8×1"),
        "{e}"
    );
    std::fs::write(
        &m,
        json.replace("\"channels\": 8", "\"channels\": 4294967295"),
    )
    .unwrap();
    let e = err(&dir, &r);
    assert!(e.contains("net.channels = 4294967295"), "{e}");
    std::fs::write(
        &m,
        json.replace("\"encoding_version\": 1", "\"encoding_version\": 9"),
    )
    .unwrap();
    assert!(err(&dir, &r).contains("encoding version 9"));
    std::fs::remove_file(&m).unwrap();
    assert!(err(&dir, &r).contains("no model.json"));
    assert!(err(&tmp("missing"), &r).contains("no model.json"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn encoding_commutes_with_symmetries() {
    let _rng = rng_lock();
    let r = rules("modern");
    for g in some_positions(&r) {
        let p = g.position();
        let mut base = vec![0.0; INPUT_LEN];
        encode(&r, p, 0, &mut base);
        for s in Symmetry::ALL {
            let mut img = Position::from_board(&r, s.board(p.board()), p.side_to_move()).unwrap();
            img.set_counters(p.plies() as u16, p.quiet_plies() as u16);
            let mut planes = vec![0.0; INPUT_LEN];
            encode(&r, &img, 0, &mut planes);
            for plane in 0..8 {
                for sq in brandubh_rules::Square::all() {
                    assert_eq!(
                        planes[plane * 49 + s.square(sq).index()],
                        base[plane * 49 + sq.index()]
                    );
                }
            }
        }
    }
}

#[test]
fn onnx_export_matches_burn_in_tract() {
    let _rng = rng_lock();
    let r = rules("wtf");
    let dir = tmp("onnx");
    std::fs::create_dir_all(&dir).unwrap();
    let device = Device::flex();
    device.seed(9);
    let config = NetConfig::new().with_channels(16).with_blocks(1);
    let net = config.init(&device);
    let meta = save(&dir.join("ckpt"), &net, &config, &r, 0, 0, "test").unwrap();
    let onnx = dir.join("net.onnx");
    let report = export(&net, &config, &meta, &r, &onnx, serde_json::Value::Null).unwrap();
    assert!(report.max_abs_diff <= 1e-4, "{}", report.max_abs_diff);
    assert_eq!(report.names, ["board", "policy", "wdl"]);
    let card: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("net.card.json")).unwrap()).unwrap();
    for key in [
        "model",
        "rules",
        "onnx",
        "encoding",
        "policy",
        "value",
        "test_vectors",
    ] {
        assert!(card.get(key).is_some(), "model card lacks {key}");
    }
    assert_eq!(card["onnx"]["input"]["name"], "board");
    // The original net still runs after export, and another batch size works.
    let games = some_positions(&r);
    let ev = NetEvaluator::new(&net, device.clone(), r.clone(), "x".into());
    let mut input = Vec::new();
    for g in &games {
        let mut planes = vec![0.0; INPUT_LEN];
        encode(&r, g.position(), 0, &mut planes);
        input.extend(planes);
    }
    let (policy, wdl) = ev.forward_raw(input.clone(), games.len());
    let (t_policy, t_wdl, _) = run_tract(&onnx, &input, games.len()).unwrap();
    for (a, b) in t_policy.iter().zip(&policy).chain(t_wdl.iter().zip(&wdl)) {
        assert!((a - b).abs() < 1e-4);
    }
    card_alone_reproduces_its_vectors(&onnx, &card);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn same_seed_same_weights_same_id() {
    let _rng = rng_lock();
    let r = rules("wtf");
    let config = NetConfig::new().with_channels(8).with_blocks(1);
    let device = Device::flex();
    let mut ids = Vec::new();
    for (i, seed) in [4u64, 4, 5].into_iter().enumerate() {
        let dir = tmp(&format!("seed{i}"));
        device.seed(seed);
        let net = config.init(&device);
        ids.push(
            save(&dir, &net, &config, &r, 0, 0, "")
                .unwrap()
                .content_hash,
        );
        std::fs::remove_dir_all(&dir).ok();
    }
    assert_eq!(ids[0], ids[1], "same seed, same weights, same id");
    assert_ne!(ids[0], ids[2]);
}

#[test]
fn tract_evaluator_matches_burn_and_the_cache_answers_alike() {
    let _rng = rng_lock();
    use brandubh_mcts::CachedEvaluator;
    use brandubh_model::TractEvaluator;
    let r = rules("modern");
    let device = Device::flex();
    device.seed(5);
    let config = NetConfig::new();
    let net = config.init(&device);
    let flex = NetEvaluator::new(&net, device, r.clone(), "t".into());
    let tract = TractEvaluator::new(&net, &config, r.clone(), "t".into()).unwrap();
    let games = some_positions(&r);
    let a = eval_all(&flex, &games);
    // One call on the current pool (threads slice the batch) and one at a time.
    let b = eval_all(&tract, &games);
    for (x, y) in a.iter().zip(&b) {
        for (p, q) in x.priors.iter().zip(&y.priors) {
            assert!((p - q).abs() < 1e-4, "prior {p} vs {q}");
        }
        for (p, q) in x.wdl.iter().zip(&y.wdl) {
            assert!((p - q).abs() < 1e-4, "wdl {p} vs {q}");
        }
    }
    let cached = CachedEvaluator::new(Arc::new(tract), 1000);
    let first = eval_all(&cached, &games);
    let again = eval_all(&cached, &games);
    assert_eq!(first, b, "a miss is the evaluator's own answer");
    assert_eq!(again, b, "a hit returns the same evaluation");
    assert_eq!(cached.stats(), (games.len() as u64, games.len() as u64));
}

#[test]
fn a_model_is_loaded_once_per_handle() {
    let _rng = rng_lock();
    let models = brandubh_mcts::Models::new(brandubh_model::model_loader(None));
    let r = rules("wtf");
    let dir = tmp("load-once");
    let device = Device::flex();
    let config = NetConfig::new();
    save(&dir, &config.init(&device), &config, &r, 0, 0, "test").unwrap();
    let spec = dir.to_str().unwrap();
    let a = models.load(spec, &r).unwrap();
    let b = models.load(spec, &r).unwrap();
    assert!(Arc::ptr_eq(&a, &b), "the second load shares the first");
    // Saved again under the same path: loaded afresh.
    std::thread::sleep(std::time::Duration::from_millis(20));
    save(&dir, &config.init(&device), &config, &r, 1, 0, "test").unwrap();
    let c = models.load(spec, &r).unwrap();
    assert!(!Arc::ptr_eq(&a, &c));
    assert_ne!(a.id(), c.id());
    std::fs::remove_dir_all(&dir).ok();
}

/// What a front end in another language would do with the card alone:
/// encode each test position from the card's description of the planes,
/// check the card's own input tensor, run the ONNX file by the names the
/// card gives, and compare the outputs with the card's.
fn card_alone_reproduces_its_vectors(file: &std::path::Path, card: &serde_json::Value) {
    use tract_onnx::prelude::*;
    let limit = card["encoding"]["quiet_ply_limit"].as_f64().unwrap() as f32;
    let vectors = card["test_vectors"]["positions"].as_array().unwrap();
    assert!(vectors
        .iter()
        .any(|v| v["plies_since_capture"].as_u64().unwrap() > 0));
    let model = tract_onnx::onnx()
        .model_for_path(file)
        .unwrap()
        .with_input_fact(0, f32::fact([1, 8, 7, 7]).into())
        .unwrap()
        .into_optimized()
        .unwrap()
        .into_runnable()
        .unwrap();
    for v in vectors {
        // Planes as the card lists them; rows of the record from rank 1.
        let mut x = vec![0.0f32; 8 * 49];
        let rec = v["position"].as_str().unwrap();
        for (rank, row) in rec.trim_matches('/').split('/').enumerate() {
            let mut file = 0;
            for ch in row.chars() {
                if let Some(d) = ch.to_digit(10) {
                    file += d as usize;
                    continue;
                }
                let plane = match ch {
                    't' => 0,
                    'T' => 1,
                    'K' => 2,
                    _ => panic!("{ch}"),
                };
                x[plane * 49 + rank * 7 + file] = 1.0;
                file += 1;
            }
        }
        let fill = |x: &mut Vec<f32>, plane: usize, value: f32| {
            x[plane * 49..(plane + 1) * 49]
                .iter_mut()
                .for_each(|c| *c = value)
        };
        if v["side_to_move"] == "defenders" {
            fill(&mut x, 3, 1.0);
        }
        x[4 * 49 + 3 * 7 + 3] = 1.0;
        for sq in [0, 6, 42, 48] {
            x[5 * 49 + sq] = 1.0;
        }
        let quiet = v["plies_since_capture"].as_f64().unwrap() as f32;
        fill(&mut x, 6, (quiet / limit).min(1.0));
        if v["repeated"].as_bool().unwrap() {
            fill(&mut x, 7, 1.0);
        }
        let card_input: Vec<f32> = v["input"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_f64().unwrap() as f32)
            .collect();
        assert_eq!(x, card_input, "{rec}");
        let t: Tensor = tract_ndarray::Array4::from_shape_vec((1, 8, 7, 7), x)
            .unwrap()
            .into();
        let out = model.run(tvec!(t.into())).unwrap();
        let policy: Vec<f32> = out[0]
            .to_plain_array_view::<f32>()
            .unwrap()
            .iter()
            .copied()
            .collect();
        let wdl: Vec<f32> = out[1]
            .to_plain_array_view::<f32>()
            .unwrap()
            .iter()
            .copied()
            .collect();
        assert_eq!(policy.len(), 1176);
        for (k, want) in v["wdl_logits"].as_array().unwrap().iter().enumerate() {
            assert!((wdl[k] - want.as_f64().unwrap() as f32).abs() < 1e-4);
        }
        // A moves-left output is the value output's fourth column.
        let width = card["onnx"]["outputs"][1]["shape"][1].as_u64().unwrap() as usize;
        assert_eq!(wdl.len(), width);
        match v.get("moves_left_output") {
            Some(m) => {
                assert_eq!(width, 4);
                assert!((wdl[3] - m.as_f64().unwrap() as f32).abs() < 1e-4);
            }
            None => assert_eq!(width, 3),
        }
        for top in v["policy_logits_top8"].as_array().unwrap() {
            let k = top["index"].as_u64().unwrap() as usize;
            assert!((policy[k] - top["logit"].as_f64().unwrap() as f32).abs() < 1e-4);
        }
    }
}

// Shipped nets.
// The nets shipped under `models/` load on a fresh checkout, and both the
// checkpoint (in burn) and the ONNX file (in tract) reproduce the test
// vectors of their model cards.
fn floats(v: &serde_json::Value) -> Vec<f32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect()
}

#[test]
fn shipped_nets_match_their_cards() {
    let _rng = rng_lock();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models");
    // Every folder of models/ is a shipped net named by its rule set.
    let mut shipped: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    shipped.sort();
    let mut seen = Vec::new();
    for rules in shipped.iter().map(String::as_str) {
        let dir = root.join(rules);
        let card: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("model.card.json")).unwrap())
                .unwrap();
        assert_eq!(card["rules"]["name"], rules);
        let r = Arc::new(RuleSet::builtin(rules).unwrap());
        let device = burn::tensor::Device::flex();
        let (net, _, meta) = load(&dir, &r, &device).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(card["model"]["id"], meta.model_id().as_str());
        let vectors = card["test_vectors"]["positions"].as_array().unwrap();
        let input: Vec<f32> = vectors.iter().flat_map(|v| floats(&v["input"])).collect();
        let n = vectors.len();
        let ev = NetEvaluator::new(&net, device, r.clone(), meta.model_id());
        let (policy, wdl) = ev.forward_raw(input.clone(), n);
        let (t_policy, t_wdl, names) = run_tract(&dir.join("model.onnx"), &input, n).unwrap();
        assert_eq!(names, ["board", "policy", "wdl"]);
        for (i, v) in vectors.iter().enumerate() {
            for (k, want) in floats(&v["wdl_logits"]).iter().enumerate() {
                assert!((wdl[i * 3 + k] - want).abs() < 1e-4, "{rules}: burn wdl");
                assert!((t_wdl[i * 3 + k] - want).abs() < 1e-4, "{rules}: tract wdl");
            }
            for top in v["policy_logits_top8"].as_array().unwrap() {
                let k = i * 1176 + top["index"].as_u64().unwrap() as usize;
                let want = top["logit"].as_f64().unwrap() as f32;
                assert!((policy[k] - want).abs() < 1e-4, "{rules}: burn policy");
                assert!((t_policy[k] - want).abs() < 1e-4, "{rules}: tract policy");
            }
        }
        seen.push(rules);
    }
    // One net for each of the five rule sets.
    assert_eq!(seen, ["ludii", "modern", "raven", "wtf", "wtf-plain"]);
}

/// Our own inference gives burn's logits, for the shipped nets (trained
/// batch-norm statistics, folded at load) and for a random net of another
/// shape, at batch sizes that do and do not divide among threads; and
/// through the evaluator interface, the same priors and values.
#[test]
fn native_inference_matches_burn() {
    let _rng = rng_lock();
    use brandubh_model::{NativeEvaluator, NativeNet};
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models");
    let device = Device::flex();
    device.seed(11);
    let mut nets = Vec::new();
    for name in ["wtf", "modern"] {
        let r = Arc::new(RuleSet::builtin(name).unwrap());
        let (net, _, _) = load(&root.join(name), &r, &device).unwrap();
        nets.push((r, net));
    }
    let small = NetConfig::new()
        .with_channels(8)
        .with_blocks(1)
        .with_value_hidden(16);
    nets.push((rules("modern"), small.init(&device)));
    nets.push((
        rules("wtf"),
        small.clone().with_moves_left(true).init(&device),
    ));
    nets.push((
        rules("wtf"),
        small.clone().with_side_value_heads(true).init(&device),
    ));
    nets.push((
        rules("modern"),
        small
            .clone()
            .with_side_value_heads(true)
            .with_moves_left(true)
            .init(&device),
    ));
    for (r, net) in &nets {
        // Positions of one seeded random game, repetitions flagged on some.
        let mut g = Game::new(r.clone());
        let mut positions = Vec::new();
        let mut seed = 7u64;
        while positions.len() < 40 && g.outcome().is_none() {
            positions.push(g.clone());
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let moves = g.legal_moves();
            let m = moves[(seed >> 33) as usize % moves.len()];
            g.play(m).unwrap();
        }
        let burn = NetEvaluator::new(net, device.clone(), r.clone(), "b".into());
        let native = NativeNet::new(net);
        for n in [1, 7, positions.len()] {
            let mut input = vec![0.0f32; n * INPUT_LEN];
            for (i, (g, chunk)) in positions
                .iter()
                .zip(input.chunks_mut(INPUT_LEN))
                .enumerate()
            {
                encode(r, g.position(), (i % 3 == 0) as u8, chunk);
            }
            let (p, v) = burn.forward_raw(input.clone(), n);
            let (q, w) = native.forward(&input);
            assert_eq!((p.len(), v.len()), (q.len(), w.len()));
            for (a, b) in p.iter().zip(&q).chain(v.iter().zip(&w)) {
                assert!(
                    (a - b).abs() < 1e-4 * (1.0 + a.abs()),
                    "{a} vs {b} (n = {n})"
                );
            }
        }
        let ev = NativeEvaluator::new(net, r.clone(), "n".into());
        let a = eval_all(&burn, &positions);
        let b = eval_all(&ev, &positions);
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.priors.len(), y.priors.len());
            for (p, q) in x
                .priors
                .iter()
                .zip(&y.priors)
                .chain(x.wdl.iter().zip(&y.wdl))
            {
                assert!((p - q).abs() < 1e-4, "{p} vs {q}");
            }
            assert_eq!(x.moves_left.is_some(), y.moves_left.is_some());
            if let (Some(p), Some(q)) = (x.moves_left, y.moves_left) {
                assert!((p - q).abs() < 1e-2 * (1.0 + p), "{p} vs {q}");
            }
        }
    }
}
