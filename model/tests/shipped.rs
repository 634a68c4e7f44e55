//! The nets shipped under `models/` load on a fresh checkout, and both the
//! checkpoint (in burn) and the ONNX file (in tract) reproduce the test
//! vectors of their model cards.

use brandubh_model::export::run_tract;
use brandubh_model::{load, NetEvaluator};
use brandubh_rules::RuleSet;
use std::path::Path;
use std::sync::Arc;

fn floats(v: &serde_json::Value) -> Vec<f32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect()
}

#[test]
fn shipped_nets_match_their_cards() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models");
    let mut seen = Vec::new();
    for rules in ["wtf", "modern"] {
        let dir = root.join(rules);
        let card: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join("model.card.json")).unwrap(),
        )
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
    assert_eq!(seen, ["wtf", "modern"]);
}
