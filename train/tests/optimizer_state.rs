//! Adam's state survives a save and load of the net and optimiser: a
//! trainer restored from disk takes the same next step as the one that
//! never stopped, and a trainer that lost its moments does not.

use brandubh_model::encoding::PLANES;
use brandubh_model::{load, save, NetConfig};
use brandubh_rules::{RuleSet, POLICY_SIZE};
use brandubh_train::trainer::optimizer_file;
use brandubh_train::{Sample, Trainer};
use burn::tensor::{Device, Tensor, TensorData};

fn batch(seed: u64) -> Vec<Sample> {
    let mut x = seed;
    let mut next = || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 40) as f32 / (1u64 << 24) as f32
    };
    (0..16)
        .map(|i| {
            let planes: Vec<f32> = (0..PLANES * 49)
                .map(|_| (next() > 0.7) as u8 as f32)
                .collect();
            let mut policy = vec![0.0; POLICY_SIZE];
            policy[(i * 37) % POLICY_SIZE] = 0.75;
            policy[(i * 91 + 5) % POLICY_SIZE] = 0.25;
            let mut wdl = [0.0; 3];
            wdl[i % 3] = 1.0;
            Sample {
                planes,
                policy,
                policy_weight: 1.0,
                wdl,
                value_weight: 1.0,
                moves_left: 0.0,
            }
        })
        .collect()
}

fn outputs(t: &Trainer) -> Vec<f32> {
    let net = t.inference_net();
    let input = batch(99);
    let planes: Vec<f32> = input.iter().flat_map(|s| s.planes.clone()).collect();
    let x = Tensor::<4>::from_data(
        TensorData::new(planes, [input.len(), PLANES, 7, 7]),
        &Device::flex(),
    );
    let (p, v) = net.forward(x);
    let mut out = p.into_data().try_to_vec::<f32>().unwrap();
    out.extend(v.into_data().try_to_vec::<f32>().unwrap());
    out
}

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

#[test]
fn adam_state_round_trips_with_the_checkpoint() {
    let rules = RuleSet::named("wtf").unwrap();
    let dir = std::env::temp_dir().join(format!("brandubh-adam-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let device = Device::flex().autodiff();
    device.seed(3);
    let config = NetConfig::new()
        .with_channels(8)
        .with_blocks(1)
        .with_value_hidden(8);
    let mut a = Trainer::new(config.init(&device), config.clone(), device.clone(), 1e-4);
    for k in 0..3 {
        a.step(&batch(k), 0.01);
    }
    save(&dir, &a.inference_net(), &config, &rules, 3, 1, "test").unwrap();
    a.save_optimizer(&optimizer_file(&dir, 3)).unwrap();

    // Restored: weights from the checkpoint, moments from the optimiser file.
    let (net, cfg, _) = load(&dir, &rules, &device).unwrap();
    let mut b = Trainer::new(net, cfg, device.clone(), 1e-4);
    b.load_optimizer(&optimizer_file(&dir, 3)).unwrap();
    // Weights only: Adam starts afresh.
    let (net, cfg, _) = load(&dir, &rules, &device).unwrap();
    let mut c = Trainer::new(net, cfg, device.clone(), 1e-4);

    let before = outputs(&a);
    for t in [&mut a, &mut b, &mut c] {
        t.step(&batch(7), 0.01);
    }
    let (oa, ob, oc) = (outputs(&a), outputs(&b), outputs(&c));
    assert!(
        max_diff(&before, &oa) > 1e-3,
        "the step should change the net"
    );
    assert!(
        max_diff(&oa, &ob) < 1e-5,
        "restored trainer diverged by {}",
        max_diff(&oa, &ob)
    );
    assert!(
        max_diff(&oa, &oc) > 1e-3,
        "a fresh Adam should step differently (diff {})",
        max_diff(&oa, &oc)
    );

    // A file that is not an optimiser state is a named error.
    let bad = dir.join("adam-bad.bpk");
    std::fs::write(&bad, b"not a burnpack").unwrap();
    let err = c.load_optimizer(&bad).unwrap_err();
    assert!(
        matches!(&err, brandubh_train::trainer::OptimizerError::NotAnOptimizerState { file, .. } if file == &bad),
        "{err}"
    );
    assert!(err.to_string().contains("adam-bad.bpk"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
