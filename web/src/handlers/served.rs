//! Files served as they are: vendored scripts, shipped nets, training runs and their charts.

use super::{ApiResult, St};
use crate::error::ApiError;
use crate::players::{nets, safe_name};
use crate::AppState;
use axum::extract::{Path as UrlPath, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// A file's bytes with its content type, or not found.
fn file_response(path: &Path, kind: &'static str) -> Response {
    match std::fs::read(path) {
        Ok(bytes) => (
            [(header::CONTENT_TYPE, HeaderValue::from_static(kind))],
            bytes,
        )
            .into_response(),
        Err(_) => ApiError::NotFound("no such file".into()).into_response(),
    }
}

fn kind_of(name: &str) -> Option<&'static str> {
    let ext = name.rsplit('.').next()?;
    Some(match ext {
        "json" => "application/json",
        "onnx" => "application/octet-stream",
        "png" => "image/png",
        "svg" => "image/svg+xml",
        "md" => "text/markdown; charset=utf-8",
        "js" | "mjs" => "text/javascript",
        "wasm" => "application/wasm",
        _ => return None,
    })
}

pub(super) async fn vendor(State(st): St, UrlPath(file): UrlPath<String>) -> Response {
    let Some(dir) = &st.cfg.vendor_dir else {
        return ApiError::NotFound("no onnxruntime-web here (see docs/serve.md)".into())
            .into_response();
    };
    match (safe_name(&file), kind_of(&file)) {
        (true, Some(kind @ ("text/javascript" | "application/wasm"))) => {
            file_response(&dir.join(&file), kind)
        }
        _ => ApiError::NotFound(format!(
            "no vendor file `{}`",
            file.chars().take(40).collect::<String>()
        ))
        .into_response(),
    }
}

pub(super) async fn net_file(
    State(st): St,
    UrlPath((name, file)): UrlPath<(String, String)>,
) -> Response {
    if !matches!(file.as_str(), "model.onnx" | "model.card.json") {
        return ApiError::NotFound("a net serves model.onnx and model.card.json".into())
            .into_response();
    }
    match nets(&st.cfg.models_dir)
        .into_iter()
        .find(|(n, _)| *n == name)
    {
        Some((_, dir)) => file_response(
            &dir.join(&file),
            kind_of(&file).unwrap_or("application/octet-stream"),
        ),
        None => ApiError::NotFound(format!(
            "no net `{}` here",
            name.chars().take(40).collect::<String>()
        ))
        .into_response(),
    }
}

/// The run directories: each holds `generations.jsonl` or `state.json`.
fn run_dirs(runs: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    if let Ok(dir) = std::fs::read_dir(runs) {
        for e in dir.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let p = e.path();
            if safe_name(&name)
                && (p.join("generations.jsonl").is_file() || p.join("state.json").is_file())
            {
                out.push((name, p));
            }
        }
    }
    out.sort();
    out
}

fn run_named(st: &AppState, name: &str) -> Result<PathBuf, ApiError> {
    run_dirs(&st.cfg.runs_dir)
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, p)| p)
        .ok_or_else(|| {
            ApiError::NotFound(format!(
                "no run `{}` here",
                name.chars().take(40).collect::<String>()
            ))
        })
}

pub(super) async fn runs(State(st): St) -> Json<Value> {
    let list: Vec<Value> = run_dirs(&st.cfg.runs_dir)
        .into_iter()
        .map(|(name, p)| {
            let gens = std::fs::read_to_string(p.join("generations.jsonl"))
                .map_or(0, |t| t.lines().filter(|l| !l.trim().is_empty()).count());
            json!({"name": name, "generations": gens})
        })
        .collect();
    Json(json!({ "runs": list }))
}

/// Charts under the run directory (two levels down), as paths relative to it.
fn charts(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), 0)];
    while let Some((d, depth)) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            if p.is_dir()
                && depth < 2
                && !matches!(name.as_str(), "checkpoints" | "selfplay" | "teacher")
            {
                stack.push((p, depth + 1));
            } else if name.ends_with(".png") {
                if let Ok(rel) = p.strip_prefix(dir) {
                    out.push(rel.to_string_lossy().into_owned());
                }
            }
        }
    }
    out.sort();
    out
}

pub(super) async fn run(State(st): St, UrlPath(name): UrlPath<String>) -> ApiResult {
    let dir = run_named(&st, &name)?;
    let report = match &st.cfg.reporter {
        Some(f) => {
            let f = f.clone();
            let d = dir.clone();
            tokio::task::spawn_blocking(move || f(&d))
                .await
                .map_err(|e| ApiError::Internal(e.to_string()))?
                .unwrap_or_else(|why| json!({ "error": why }))
        }
        None => json!({"error": "this server has no run reports"}),
    };
    Ok(Json(
        json!({"name": name, "report": report, "charts": charts(&dir)}),
    ))
}

pub(super) async fn run_file(
    State(st): St,
    UrlPath((name, path)): UrlPath<(String, String)>,
) -> Response {
    let dir = match run_named(&st, &name) {
        Ok(d) => d,
        Err(e) => return e.into_response(),
    };
    let parts: Vec<&str> = path.split('/').collect();
    let kind = kind_of(&path).filter(|k| {
        matches!(
            *k,
            "image/png" | "image/svg+xml" | "text/markdown; charset=utf-8"
        )
    });
    if parts.len() > 3 || !parts.iter().all(|p| safe_name(p)) || kind.is_none() {
        return (
            StatusCode::NOT_FOUND,
            Json(json!({"error": "a run serves its charts (.png, .svg) and report.md only"})),
        )
            .into_response();
    }
    let full = parts.iter().fold(dir.clone(), |p, s| p.join(s));
    // A symbolic link may not lead out of the run directory.
    match (full.canonicalize(), dir.canonicalize()) {
        (Ok(f), Ok(d)) if f.starts_with(&d) => {
            file_response(&f, kind.unwrap_or("application/octet-stream"))
        }
        _ => ApiError::NotFound("no such file in the run".into()).into_response(),
    }
}
