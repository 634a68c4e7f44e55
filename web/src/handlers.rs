//! The routes: the page and its assets, the game API, analysis, game
//! files, nets and runs.

use crate::error::{bad, ApiError};
use crate::game::{replay, view, GameRequest, MAX_PLIES};
use crate::players::{allow, nets, safe_name, Allowed};
use crate::{think, AppState};
use axum::body::Bytes;
use axum::extract::{Path as UrlPath, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use brandubh_arena::GameRecord;
use brandubh_play::{Ending, RecordResult};
use brandubh_rules::{otg_result, read_otg, write_otg, RuleSet};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

type St = State<Arc<AppState>>;
type ApiResult = Result<Json<Value>, ApiError>;

/// The longest a request waits for a free search slot.
const SLOT_WAIT: Duration = Duration::from_secs(30);
/// The largest game file or record file the page may send.
const MAX_TEXT: usize = 1 << 20;

pub(crate) fn routes(state: Arc<AppState>) -> Router {
    Router::new()
        .route(
            "/",
            get(|| async { page("text/html; charset=utf-8", INDEX) }),
        )
        .route("/app.js", get(|| async { page("text/javascript", APP_JS) }))
        .route("/net.js", get(|| async { page("text/javascript", NET_JS) }))
        .route("/app.css", get(|| async { page("text/css", APP_CSS) }))
        .route("/vendor/{file}", get(vendor))
        .route("/api/info", get(info))
        .route("/api/game", post(game))
        .route("/api/move", post(play_move))
        .route("/api/analyse", post(analyse))
        .route("/api/chances", post(chances))
        .route("/api/otg/read", post(otg_read))
        .route("/api/otg/write", post(otg_write))
        .route("/api/records/read", post(records_read))
        .route("/api/records/write", post(records_write))
        .route("/api/nets/{name}/{file}", get(net_file))
        .route("/api/runs", get(runs))
        .route("/api/runs/{name}", get(run))
        .route("/api/runs/{name}/files/{*path}", get(run_file))
        .fallback(|| async { ApiError::NotFound("no such page or API route".into()) })
        .with_state(state)
}

const INDEX: &str = include_str!("../static/index.html");
const APP_JS: &str = include_str!("../static/app.js");
const NET_JS: &str = include_str!("../static/net.js");
const APP_CSS: &str = include_str!("../static/app.css");

fn page(kind: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind)], body).into_response()
}

/// A JSON body, or an error naming where it is malformed.
fn parse<T: DeserializeOwned>(body: &Bytes) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(|e| bad(format!("request body: {e}")))
}

fn rules_named(st: &AppState, name: &str) -> Result<Arc<RuleSet>, ApiError> {
    st.cfg
        .rules
        .iter()
        .find(|r| r.name() == name)
        .cloned()
        .ok_or_else(|| {
            let known: Vec<&str> = st.cfg.rules.iter().map(|r| r.name()).collect();
            ApiError::NotFound(format!(
                "no rule set `{}` here (known: {})",
                name.chars().take(40).collect::<String>(),
                known.join(", ")
            ))
        })
}

fn load(st: &AppState, req: &GameRequest) -> Result<brandubh_rules::Game, ApiError> {
    replay(&rules_named(st, &req.rules)?, &req.moves)
}

/// Runs a search on a blocking thread once a slot is free.
async fn search<T: Send + 'static>(
    st: &Arc<AppState>,
    f: impl FnOnce(&AppState) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let permit = tokio::time::timeout(SLOT_WAIT, st.slots.acquire())
        .await
        .map_err(|_| ApiError::Busy("every search slot stayed busy; try again".into()))?
        .map_err(|_| ApiError::Internal("the server is shutting down".into()))?;
    let st2 = st.clone();
    let out = tokio::task::spawn_blocking(move || f(&st2))
        .await
        .map_err(|e| ApiError::Internal(format!("the search failed: {e}")))?;
    drop(permit);
    out
}

async fn info(State(st): St) -> Json<Value> {
    let rules: Vec<Value> = st
        .cfg
        .rules
        .iter()
        .map(|r| {
            json!({
                "name": r.name(),
                "description": r.options.description,
                "opentafl": brandubh_rules::opentafl_rules(r).0,
                "start": crate::game::view(&brandubh_rules::Game::new(r.clone())).board,
            })
        })
        .collect();
    let nets: Vec<Value> = nets(&st.cfg.models_dir)
        .into_iter()
        .map(|(name, dir)| {
            let card = std::fs::read_to_string(dir.join("model.card.json"))
                .ok()
                .and_then(|t| serde_json::from_str::<Value>(&t).ok());
            let rules = card
                .as_ref()
                .and_then(|c| c["rules"]["name"].as_str().map(String::from));
            json!({
                "name": name,
                "rules": rules,
                "onnx": dir.join("model.onnx").is_file() && card.is_some(),
            })
        })
        .collect();
    Json(json!({
        "rules": rules,
        "nets": nets,
        "max_ms": st.cfg.limits.max_ms,
        "in_browser_net": st.cfg.vendor_dir.as_ref().is_some_and(|d| d.join("ort.min.js").is_file()),
    }))
}

async fn game(State(st): St, body: Bytes) -> ApiResult {
    let req: GameRequest = parse(&body)?;
    Ok(Json(json!(view(&load(&st, &req)?))))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlayerRequest {
    rules: String,
    #[serde(default)]
    moves: Vec<String>,
    player: String,
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default)]
    top: Option<usize>,
}

impl PlayerRequest {
    fn game(&self) -> GameRequest {
        GameRequest {
            rules: self.rules.clone(),
            moves: self.moves.clone(),
        }
    }
}

fn player_of(st: &AppState, text: &str) -> Result<Allowed, ApiError> {
    allow(text, &st.cfg.models_dir, &st.cfg.limits)
}

async fn play_move(State(st): St, body: Bytes) -> ApiResult {
    let req: PlayerRequest = parse(&body)?;
    let mut g = load(&st, &req.game())?;
    if g.is_over() {
        return Err(bad("the game is over: no move to play"));
    }
    let who = player_of(&st, &req.player)?;
    let seed = req.seed.unwrap_or(g.plies().len() as u64);
    let g2 = g.clone();
    let (mv, secs) = search(&st, move |st| think::choose(&g2, &who, seed, &st.cfg.ctx)).await?;
    g.play(mv)
        .map_err(|e| ApiError::Internal(format!("the player chose an illegal move {mv}: {e}")))?;
    Ok(Json(
        json!({"move": mv.to_string(), "seconds": secs, "game": view(&g)}),
    ))
}

async fn analyse(State(st): St, body: Bytes) -> ApiResult {
    let req: PlayerRequest = parse(&body)?;
    let g = load(&st, &req.game())?;
    if g.is_over() {
        return Err(bad("the game is over: nothing to analyse"));
    }
    let who = player_of(&st, &req.player)?;
    let top = req.top.unwrap_or(8).clamp(1, 200);
    Ok(Json(
        search(&st, move |st| think::analyse(&g, &who, top, &st.cfg.ctx)).await?,
    ))
}

async fn chances(State(st): St, body: Bytes) -> ApiResult {
    let req: PlayerRequest = parse(&body)?;
    let g = load(&st, &req.game())?;
    let who = player_of(&st, &req.player)?;
    let c = search(&st, move |st| think::win_chances(&g, &who, &st.cfg.ctx)).await?;
    Ok(Json(json!({ "attackers": c })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TextRequest {
    text: String,
}

fn text_of(body: &Bytes) -> Result<String, ApiError> {
    let req: TextRequest = parse(body)?;
    if req.text.len() > MAX_TEXT {
        return Err(bad(format!("the file is over {MAX_TEXT} bytes")));
    }
    Ok(req.text)
}

async fn otg_read(State(st): St, body: Bytes) -> ApiResult {
    let text = text_of(&body)?;
    let read = read_otg(&text, &st.cfg.rules).map_err(|e| bad(format!("game file: {e}")))?;
    let rules = read.game.rules();
    let Some(ours) = st.cfg.rules.iter().find(|r| r.hash == rules.hash) else {
        return Err(bad(format!(
            "the file's rules (`{}`) are none of this server's rule sets",
            brandubh_rules::opentafl_rules(rules).0
        )));
    };
    // Replayed under our rule set, so later requests can name it.
    let moves: Vec<String> = read.game.plies().iter().map(|p| p.mv.to_string()).collect();
    let g = replay(ours, &moves)?;
    let tags: serde_json::Map<String, Value> = read
        .tags
        .iter()
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    Ok(Json(
        json!({"tags": tags, "game": view(&g), "moves": moves}),
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SaveRequest {
    rules: String,
    #[serde(default)]
    moves: Vec<String>,
    #[serde(default)]
    attackers: String,
    #[serde(default)]
    defenders: String,
}

impl SaveRequest {
    fn game(&self, st: &AppState) -> Result<brandubh_rules::Game, ApiError> {
        if self.attackers.len() > 300 || self.defenders.len() > 300 {
            return Err(bad("a player's name is over 300 characters"));
        }
        replay(&rules_named(st, &self.rules)?, &self.moves)
    }
}

fn result_of(g: &brandubh_rules::Game) -> RecordResult {
    RecordResult::from(g.outcome().map(|o| o.result))
}

async fn otg_write(State(st): St, body: Bytes) -> ApiResult {
    let req: SaveRequest = parse(&body)?;
    let g = req.game(&st)?;
    let records: Vec<String> = g.plies().iter().map(|p| p.record().to_string()).collect();
    let mut tags = vec![
        ("event", "brandubh serve".to_string()),
        ("attackers", req.attackers.clone()),
        ("defenders", req.defenders.clone()),
        ("result", otg_result(result_of(&g).as_str()).to_string()),
        ("variant", g.rules().name().to_string()),
        ("compiler", "brandubh".to_string()),
    ];
    if let Some(o) = g.outcome() {
        tags.push(("termination", o.reason.as_str().to_string()));
    }
    Ok(Json(json!({"text": write_otg(&tags, g.rules(), &records)})))
}

async fn records_read(State(st): St, body: Bytes) -> ApiResult {
    let text = text_of(&body)?;
    let records = brandubh_arena::parse_records(&text, Path::new("the uploaded file"))
        .map_err(|e| bad(e.to_string()))?;
    let mut games = Vec::new();
    for (i, r) in records.iter().enumerate() {
        let moves: Vec<String> = r.opening.iter().chain(&r.moves).cloned().collect();
        let checked = rules_named(&st, &r.rules).and_then(|rules| replay(&rules, &moves));
        games.push(match checked {
            Ok(g) => json!({
                "label": format!("pair {} game {}: {} vs {}", r.pair, r.game, r.attackers, r.defenders),
                "rules": r.rules, "attackers": r.attackers, "defenders": r.defenders,
                "result": r.result.as_str(), "moves": g.plies().iter().map(|p| p.mv.to_string()).collect::<Vec<_>>(),
            }),
            Err(e) => json!({"label": format!("record {}", i + 1), "error": e.to_string()}),
        });
        if games.len() >= 10_000 {
            break;
        }
    }
    Ok(Json(json!({ "games": games })))
}

async fn records_write(State(st): St, body: Bytes) -> ApiResult {
    let req: SaveRequest = parse(&body)?;
    let g = req.game(&st)?;
    let record = GameRecord {
        format: brandubh_arena::RECORD_FORMAT,
        rules: g.rules().name().to_string(),
        rules_hash: format!("{:016x}", g.rules().hash),
        pair: 0,
        game: 0,
        seed: 0,
        attackers: req.attackers.clone(),
        defenders: req.defenders.clone(),
        attackers_id: None,
        defenders_id: None,
        opening: vec![],
        moves: g.plies().iter().map(|p| p.record().to_string()).collect(),
        result: result_of(&g),
        reason: g.outcome().map(|o| Ending::from(o.reason)),
        plies: g.plies().len() as u32,
        move_us: vec![],
        detail: None,
    };
    let line = serde_json::to_string(&record).map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(Json(json!({ "text": format!("{line}\n") })))
}

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

async fn vendor(State(st): St, UrlPath(file): UrlPath<String>) -> Response {
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

async fn net_file(State(st): St, UrlPath((name, file)): UrlPath<(String, String)>) -> Response {
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

async fn runs(State(st): St) -> Json<Value> {
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

async fn run(State(st): St, UrlPath(name): UrlPath<String>) -> ApiResult {
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

async fn run_file(State(st): St, UrlPath((name, path)): UrlPath<(String, String)>) -> Response {
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

/// Keeps the longest game constant visible to the page's docs.
#[allow(dead_code)]
const _LONGEST: usize = MAX_PLIES;
