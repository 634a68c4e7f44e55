//! Game files and arena records: reading them into the page, writing them back.

use super::{parse, rules_named, ApiResult, St, MAX_TEXT};
use crate::error::{bad, ApiError};
use crate::game::{replay, view};
use crate::AppState;
use axum::body::Bytes;
use axum::extract::State;
use axum::Json;
use brandubh_arena::GameRecord;
use brandubh_play::{Ending, RecordResult};
use brandubh_rules::{otg_result, read_otg, write_otg};
use serde::Deserialize;
use serde_json::{json, Value};
use std::path::Path;

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

pub(super) async fn otg_read(State(st): St, body: Bytes) -> ApiResult {
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

pub(super) async fn otg_write(State(st): St, body: Bytes) -> ApiResult {
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

pub(super) async fn records_read(State(st): St, body: Bytes) -> ApiResult {
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

pub(super) async fn records_write(State(st): St, body: Bytes) -> ApiResult {
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
