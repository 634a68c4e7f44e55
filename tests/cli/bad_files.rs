//! Bad files and specs across the commands.

use crate::{brandubh, scratch};

/// Bad files and specs: a clear error naming the file and key, exit 1,
/// never a panic.
#[test]
fn bad_files_are_clear_errors() {
    let dir_guard = scratch("badfiles");
    let dir = dir_guard.path();
    std::fs::create_dir_all(dir.join("ckpt")).unwrap();
    let sp = dir.join("sp.toml");
    std::fs::write(&sp, "[mcts]\ndirichlet_epsilon = 2.0\n").unwrap();
    let tiny = dir.join("tiny.toml");
    std::fs::write(&tiny, "[mcts]\ntemperature = 0.000001\n").unwrap();
    let weights = dir.join("w.toml");
    let mut w = std::fs::read_to_string("configs/eval/default.toml").unwrap();
    w = w.replacen("attacker = ", "attacker = 99999999 # ", 1);
    std::fs::write(&weights, w).unwrap();
    let run = dir.join("run.toml");
    let r = std::fs::read_to_string("configs/runs/default.toml")
        .unwrap()
        .replacen("channels = 32", "channels = 0", 1);
    std::fs::write(&run, r).unwrap();
    std::fs::write(
        dir.join("ckpt/model.json"),
        r#"{"format":1,"net":{"channels":8,"blocks":1,"value_hidden":8},"encoding_version":1,
            "rules":"wtf","rules_hash":"0","step":0,"generation":0,"content_hash":"ééééééééééééé"}"#,
    )
    .unwrap();
    let ckpt = format!("mcts:model={}", dir.join("ckpt").display());
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![
                "selfplay".into(),
                "--games".into(),
                "1".into(),
                "--config".into(),
                sp.display().to_string(),
            ],
            "dirichlet_epsilon",
        ),
        (
            vec![
                "selfplay".into(),
                "--games".into(),
                "1".into(),
                "--config".into(),
                tiny.display().to_string(),
            ],
            "temperature",
        ),
        (
            vec![
                "match".into(),
                "--a".into(),
                format!("alphabeta:eval={}", weights.display()),
                "--b".into(),
                "random".into(),
            ],
            "attacker",
        ),
        (
            vec![
                "loop".into(),
                "--config".into(),
                run.display().to_string(),
                "--run-dir".into(),
                dir.join("r").display().to_string(),
            ],
            "channels",
        ),
        (
            vec![
                "analyze".into(),
                "--rules".into(),
                "wtf".into(),
                "--player".into(),
                ckpt,
            ],
            "content_hash",
        ),
        (
            vec![
                "match".into(),
                "--a".into(),
                "otep:".into(),
                "--b".into(),
                "random".into(),
            ],
            "otep",
        ),
        (
            vec![
                "match".into(),
                "--rules".into(),
                "dim:7 esc:e start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/".into(),
                "--a".into(),
                "random".into(),
                "--b".into(),
                "random".into(),
            ],
            "esc:e",
        ),
        (
            vec![
                "show".into(),
                "--game".into(),
                dir.join("none.otg").display().to_string(),
            ],
            "none.otg",
        ),
    ];
    for (args, named) in cases {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = brandubh(&a);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(named), "{args:?} should name `{named}`: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
