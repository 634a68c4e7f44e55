//! Teacher games: games played by a fixed search player (the alpha-beta
//! baseline), recorded like self-play games, that early generations train
//! on beside their own games. The policy target is the move the teacher
//! played; the value target is the result, mixed with the teacher's score.
//! A net that saw them says so in its training record.

use brandubh_play::{PlayerSpec, PlayerSpecError};

use brandubh_alphabeta::WIN;
use brandubh_rules::{splitmix64, Game, RuleSet};
use brandubh_selfplay::{PositionRecord, SelfPlayConfig, SelfPlayGame};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::ops::Range;
use std::sync::Arc;

/// The `[teacher]` section of a run config.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TeacherSection {
    /// An alpha-beta player spec, e.g. `alphabeta:depth=3`.
    pub player: String,
    /// Teacher games added to each generation's training data.
    pub games: u64,
    /// Generations 1..=this get teacher games; later ones only self-play.
    pub generations: u32,
    /// After the opening plies, each move is a uniformly random legal one
    /// with this probability (variety between the teacher's games; such a
    /// move is no policy target).
    #[serde(default)]
    pub random_move_prob: f64,
}

/// The model id teacher games carry in their shards.
pub fn teacher_id(spec: &str) -> String {
    format!("teacher:{spec}")
}

/// An alpha-beta score as a value for the side to move, −1..1: a proven
/// win or loss is ±1, else a soft squash (300 units, three attacker men,
/// give about ±0.76).
fn score_value(score: i32) -> f32 {
    if score.abs() >= WIN - 1000 {
        score.signum() as f32
    } else {
        (score as f32 / 300.0).tanh()
    }
}

/// Why teacher games could not be played.
#[derive(Debug, thiserror::Error)]
pub enum TeacherError {
    #[error(transparent)]
    Player(#[from] PlayerSpecError),
    #[error("teacher.player `{0}`: the teacher must be an alpha-beta player")]
    NotAlphaBeta(String),
    #[error("starting the teacher's threads: {0}")]
    Threads(#[from] rayon::ThreadPoolBuildError),
    #[error("the teacher's move was refused: {0}")]
    Move(#[from] brandubh_rules::IllegalMove),
}

/// Plays teacher games `range` (game k is the same game whenever it is
/// played: its seed comes from `seed` and k), with ids `id_base + k`.
pub fn play_teacher_games(
    rules: &Arc<RuleSet>,
    section: &TeacherSection,
    selfplay: &SelfPlayConfig,
    range: Range<u64>,
    seed: u64,
    id_base: u64,
    threads: usize,
) -> Result<Vec<SelfPlayGame>, TeacherError> {
    let spec = PlayerSpec::parse(&section.player)?;
    if spec.kind != brandubh_play::PlayerKind::AlphaBeta {
        return Err(TeacherError::NotAlphaBeta(section.player.clone()));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()?;
    let model_id = teacher_id(&section.player);
    pool.install(|| {
        range
            .into_par_iter()
            .map(|k| {
                let mut player = spec.build_alphabeta(rules)?;
                // Teacher games run side by side on the pool's threads.
                if spec.alphabeta().threads.is_none() {
                    player.set_threads(1);
                }
                let game_seed = splitmix64(seed ^ splitmix64(k + 1));
                let mut rng = ChaCha8Rng::seed_from_u64(game_seed);
                let mut game = Game::new(rules.clone());
                let mut positions = Vec::new();
                while !game.is_over() && (game.plies().len() as u32) < selfplay.max_plies {
                    let pos = *game.position();
                    let legal = game.legal_moves();
                    let opening = (game.plies().len() as u32) < selfplay.opening_plies;
                    let random =
                        opening || rng.random_bool(section.random_move_prob.clamp(0.0, 1.0));
                    if random || legal.len() == 1 {
                        let mv = legal[rng.random_range(0..legal.len())];
                        game.play(mv)?;
                        continue;
                    }
                    let r = player.analyse(&game).clone();
                    let mv = r.best;
                    let reps = pos.repetitions(game.history()).min(255) as u8;
                    let (visits, target) = match mv.policy_index() {
                        Some(i) => (vec![(i, 1)], vec![1.0]),
                        None => (Vec::new(), Vec::new()),
                    };
                    positions.push(PositionRecord {
                        ply: game.plies().len() as u32,
                        board: *pos.board(),
                        side_to_move: pos.side_to_move(),
                        quiet_plies: pos.quiet_plies().min(u16::MAX as u32) as u16,
                        repetitions: reps,
                        visits,
                        target,
                        root_value: score_value(r.score),
                        root_draw: 0.0,
                        full_search: true,
                        mv: mv.to_string(),
                        move_index: mv.policy_index(),
                    });
                    game.play(mv)?;
                }
                let outcome = game.outcome();
                Ok(SelfPlayGame {
                    game_id: id_base + k,
                    rules: rules.name().to_string(),
                    rules_hash: rules.hash,
                    model_id: model_id.clone(),
                    seed: game_seed,
                    result: outcome.map(|o| o.result),
                    reason: outcome.map(|o| o.reason),
                    plies: game.plies().len() as u32,
                    moves: game
                        .plies()
                        .iter()
                        .map(|p| p.record().to_string())
                        .collect(),
                    positions,
                })
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn teacher_games_are_seeded_and_record_the_teachers_moves() {
        let rules = Arc::new(RuleSet::builtin("modern").unwrap());
        let section = TeacherSection {
            player: "alphabeta:depth=1".into(),
            games: 3,
            generations: 1,
            random_move_prob: 0.1,
        };
        let cfg = SelfPlayConfig::default();
        let a = play_teacher_games(&rules, &section, &cfg, 0..3, 7, 100, 2).unwrap();
        let b = play_teacher_games(&rules, &section, &cfg, 1..3, 7, 100, 1).unwrap();
        assert_eq!(
            a[1..],
            b[..],
            "game k is the same game whenever it is played"
        );
        assert_eq!(
            a.iter().map(|g| g.game_id).collect::<Vec<_>>(),
            [100, 101, 102]
        );
        for g in &a {
            assert_eq!(g.model_id, "teacher:alphabeta:depth=1");
            // Replaying the moves gives the recorded positions, and each
            // policy target is the move played there.
            let mut replay = Game::new(rules.clone());
            let mut recorded = g.positions.iter().peekable();
            for m in &g.moves {
                let rec: brandubh_rules::MoveRecord = m.parse().unwrap();
                if let Some(p) = recorded.peek() {
                    if p.ply == replay.plies().len() as u32 {
                        assert_eq!(p.board, *replay.position().board());
                        assert_eq!(p.mv, rec.mv.to_string());
                        assert_eq!(p.visits, vec![(rec.mv.policy_index().unwrap(), 1)]);
                        assert!(p.root_value.abs() <= 1.0);
                        recorded.next();
                    }
                }
                replay.play(rec.mv).unwrap();
            }
            assert!(recorded.next().is_none());
        }
        let bad = TeacherSection {
            player: "random".into(),
            ..section
        };
        assert!(play_teacher_games(&rules, &bad, &cfg, 0..1, 7, 0, 1).is_err());
    }
}
