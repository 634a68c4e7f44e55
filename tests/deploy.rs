//! The deployment files (`deploy/`) stay in step with the code: the
//! Kubernetes manifests are valid (checked offline by `kubernetes-validate`
//! when it is installed, as `.ci/run` does), their run config is the
//! shipped default, and every flag they pass exists.

use std::path::Path;
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Both sets of manifests: a shared volume (`k8s`) and S3 (`k8s-s3`).
fn manifests() -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = ["deploy/k8s", "deploy/k8s-s3"]
        .iter()
        .flat_map(|d| std::fs::read_dir(Path::new(ROOT).join(d)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    v.sort();
    v
}

#[test]
fn the_config_map_holds_the_default_run_config() {
    let yaml = std::fs::read_to_string(Path::new(ROOT).join("deploy/k8s/config.yaml")).unwrap();
    let body: Vec<&str> = yaml
        .lines()
        .skip_while(|l| l.trim() != "run.toml: |")
        .skip(1)
        .map(|l| l.strip_prefix("    ").unwrap_or(l))
        .collect();
    let shipped =
        std::fs::read_to_string(Path::new(ROOT).join("configs/runs/default.toml")).unwrap();
    assert_eq!(body.join("\n").trim_end(), shipped.trim_end());
    brandubh_train::RunConfig::from_toml(&shipped, "configs/runs/default.toml").unwrap();
}

#[test]
fn the_manifests_pass_only_flags_that_exist() {
    for path in manifests() {
        let text = std::fs::read_to_string(&path).unwrap();
        let args: Vec<String> = text
            .lines()
            .skip_while(|l| l.trim() != "args:")
            .skip(1)
            .take_while(|l| l.trim_start().starts_with("- "))
            .map(|l| l.trim_start()[2..].to_string())
            .collect();
        if args.is_empty() {
            continue;
        }
        // The subcommand words, then its help: every flag passed is in it.
        let words: Vec<&str> = args
            .iter()
            .map(String::as_str)
            .take_while(|a| !a.starts_with("--"))
            .collect();
        let out = Command::new(env!("CARGO_BIN_EXE_brandubh"))
            .args(&words)
            .arg("--help")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}: {words:?}", path.display());
        let help = String::from_utf8_lossy(&out.stdout);
        for flag in args.iter().filter(|a| a.starts_with("--")) {
            assert!(
                help.contains(&format!("{flag} ")),
                "{}: `{flag}` is not a flag of {words:?}",
                path.display()
            );
        }
    }
}

#[test]
fn the_manifests_validate() {
    let Ok(out) = Command::new("kubernetes-validate")
        .arg("--strict")
        .args(manifests())
        .output()
    else {
        eprintln!(
            "kubernetes-validate is not installed (pip install kubernetes-validate): skipped"
        );
        return;
    };
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_dockerfile_copies_what_exists() {
    let text = std::fs::read_to_string(Path::new(ROOT).join("deploy/Dockerfile")).unwrap();
    for line in text
        .lines()
        .filter(|l| l.starts_with("COPY --from=build /src/"))
    {
        let src = line.split_whitespace().nth(2).unwrap();
        let rel = src.strip_prefix("/src/").unwrap();
        if rel != "target/release/brandubh" {
            assert!(Path::new(ROOT).join(rel).exists(), "{line}");
        }
    }
    assert!(text.contains("--bin brandubh"));
}
