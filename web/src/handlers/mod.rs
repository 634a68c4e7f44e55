//! The routes: the page and its assets, the game API, analysis, game
//! files, nets and runs.

use crate::error::{bad, ApiError};
use crate::game::{replay, view, GameRequest};
use crate::players::{allow, nets, Allowed};
use crate::{think, AppState};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use brandubh_rules::RuleSet;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};
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

const INDEX: &str = include_str!("../../static/index.html");
const APP_JS: &str = include_str!("../../static/app.js");
const NET_JS: &str = include_str!("../../static/net.js");
const APP_CSS: &str = include_str!("../../static/app.css");

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

mod files;
mod served;
use files::{otg_read, otg_write, records_read, records_write};
use served::{net_file, run, run_file, runs, vendor};
