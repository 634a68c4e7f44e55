//! What the players answer: a move to play, an analysis of the position
//! on the board (a net's policy as heat maps, its win/draw/loss, the
//! search's lines; alpha-beta's score and line), and the attackers'
//! chances at every position of a game, for the page's graph.

use crate::error::ApiError;
use crate::players::Allowed;
use brandubh_mcts::EvalRequest;
use brandubh_play::{PlayContext, PlayerKind, PlayerSpec};
use brandubh_rules::{Game, GameResult, Move, Side};
use serde_json::{json, Value};
use std::time::Instant;

fn internal(e: impl std::fmt::Display) -> ApiError {
    ApiError::Internal(e.to_string())
}

/// The player's move in `game` (not over), and the seconds it took.
pub fn choose(
    game: &Game,
    who: &Allowed,
    seed: u64,
    ctx: &PlayContext,
) -> Result<(Move, f64), ApiError> {
    let mut player = who.spec.build(game.rules(), seed, ctx).map_err(internal)?;
    let start = Instant::now();
    let mv = player
        .choose(game, None)
        .map_err(|f| ApiError::Internal(format!("{} forfeited: {}", who.asked, f.detail)))?;
    Ok((mv, start.elapsed().as_secs_f64()))
}

/// Sums of a policy over the moves leaving each square and reaching it.
fn heat(moves: &[Move], priors: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let (mut from, mut to) = (vec![0f32; 49], vec![0f32; 49]);
    for (m, p) in moves.iter().zip(priors) {
        if !m.is_pass() {
            from[m.from.index()] += p;
            to[m.to.index()] += p;
        }
    }
    (from, to)
}

fn strings(moves: &[Move]) -> Vec<String> {
    moves.iter().map(|m| m.to_string()).collect()
}

/// An analysis of the position on the board, as JSON for the page.
pub fn analyse(
    game: &Game,
    who: &Allowed,
    top: usize,
    ctx: &PlayContext,
) -> Result<Value, ApiError> {
    let rules = game.rules();
    match who.spec.kind {
        PlayerKind::AlphaBeta => {
            let mut p = who.spec.build_alphabeta(rules).map_err(internal)?;
            let r = p.analyse(game);
            Ok(json!({
                "kind": "alphabeta",
                "player": who.asked,
                "best": r.best.to_string(),
                "score": r.score,
                "depth": r.depth,
                "nodes": r.nodes,
                "seconds": r.seconds,
                "pv": strings(&r.pv),
            }))
        }
        PlayerKind::Mcts => {
            let mut p = who.spec.build_mcts(rules, 1, ctx).map_err(internal)?;
            let moves = game.legal_moves().as_slice().to_vec();
            let reps = game.position().repetitions(game.history()).min(255) as u8;
            let e = p
                .evaluator()
                .evaluate(&[EvalRequest {
                    position: game.position(),
                    moves: &moves,
                    repetitions: reps,
                }])
                .remove(0);
            let (from, to) = heat(&moves, &e.priors);
            let mut policy: Vec<(String, f32)> = moves
                .iter()
                .zip(&e.priors)
                .map(|(m, p)| (m.to_string(), *p))
                .collect();
            policy.sort_by(|a, b| b.1.total_cmp(&a.1));
            let net = json!({
                "evaluator": p.evaluator().id(),
                "wdl": e.wdl,
                "value": e.value(),
                "policy": policy.iter().take(top).map(|(m, p)| json!({"move": m, "prior": p})).collect::<Vec<_>>(),
                "from_heat": from,
                "to_heat": to,
            });
            let r = p.search(game, None).clone();
            Ok(json!({
                "kind": "mcts",
                "player": who.asked,
                "net": net,
                "best": r.best.to_string(),
                "value": r.value,
                "simulations": r.simulations,
                "seconds": r.elapsed.as_secs_f64(),
                "moves": r.moves.iter().take(top).map(|m| json!({
                    "move": m.mv.to_string(),
                    "visits": m.visits,
                    "prior": m.prior,
                    "q": m.q,
                    "wdl": m.wdl,
                    "pv": strings(&m.pv),
                })).collect::<Vec<_>>(),
            }))
        }
        other => Err(ApiError::Bad(format!(
            "analysis asks an engine: `{other}` is not one (use alphabeta:… or mcts:…)"
        ))),
    }
}

/// The attackers' expected score at a finished game's end.
fn final_score(result: GameResult) -> f64 {
    match result {
        GameResult::AttackersWin => 1.0,
        GameResult::DefendersWin => 0.0,
        GameResult::Draw => 0.5,
    }
}

/// Turns a score for the side to move into the attackers' expected score.
fn for_attackers(side: Side, score: f64) -> f64 {
    if side == Side::Attackers {
        score
    } else {
        1.0 - score
    }
}

/// The attackers' expected score (0..1) at the start and after every move
/// of `game`: a net's own value (win plus half a draw), without search;
/// for alpha-beta, its depth-2 score through a logistic curve (an
/// attacker man, 100, is worth about 0.12 at even).
pub fn win_chances(game: &Game, who: &Allowed, ctx: &PlayContext) -> Result<Vec<f64>, ApiError> {
    let rules = game.rules();
    let mut replay = Game::new(rules.clone());
    let mut games = vec![replay.clone()];
    for p in game.plies() {
        replay.play(p.mv).map_err(internal)?;
        games.push(replay.clone());
    }
    match who.spec.kind {
        PlayerKind::Mcts => {
            let p = who.spec.build_mcts(rules, 1, ctx).map_err(internal)?;
            let live: Vec<&Game> = games.iter().filter(|g| !g.is_over()).collect();
            let reqs: Vec<EvalRequest> = live
                .iter()
                .map(|g| EvalRequest {
                    position: g.position(),
                    moves: g.legal_moves().as_slice(),
                    repetitions: g.position().repetitions(g.history()).min(255) as u8,
                })
                .collect();
            let mut evals = Vec::with_capacity(reqs.len());
            for chunk in reqs.chunks(256) {
                evals.extend(p.evaluator().evaluate(chunk));
            }
            let mut evals = evals.into_iter();
            Ok(games
                .iter()
                .map(|g| match g.outcome() {
                    Some(o) => final_score(o.result),
                    None => {
                        let e = evals.next().expect("one evaluation per live position");
                        let s = e.wdl[0] as f64 + 0.5 * e.wdl[1] as f64;
                        for_attackers(g.side_to_move(), s)
                    }
                })
                .collect())
        }
        PlayerKind::AlphaBeta => {
            let spec = PlayerSpec::parse("alphabeta:depth=2,threads=1").map_err(internal)?;
            let mut p = spec.build_alphabeta(rules).map_err(internal)?;
            Ok(games
                .iter()
                .map(|g| match g.outcome() {
                    Some(o) => final_score(o.result),
                    None => {
                        let score = p.analyse(g).score as f64;
                        let s = 1.0 / (1.0 + (-score / 200.0).exp());
                        for_attackers(g.side_to_move(), s)
                    }
                })
                .collect())
        }
        other => Err(ApiError::Bad(format!(
            "win chances need an engine: `{other}` is not one (use alphabeta:… or mcts:…)"
        ))),
    }
}
