//! MCTS with the uniform evaluator on hand-made positions, self-play
//! determinism, and Parquet records.

#[path = "../mcts/tests/common/mod.rs"]
mod common;
use common::{game, puct, ALL};

use brandubh_mcts::*;
use brandubh_rules::{Bitboard, Game, GameResult, RuleSet, Side};
use brandubh_selfplay::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

/// Searches with the uniform evaluator; `noisy` adds root noise, picks
/// with temperature 1 and uses another seed.
fn run_search(
    g: &Game,
    cfg: MctsConfig,
    sims: u32,
    noisy: bool,
) -> (brandubh_rules::Move, RootStats) {
    let mut rng = ChaCha8Rng::seed_from_u64(if noisy { 5 } else { 1 });
    let mut s = Search::new(g.rules().clone(), cfg, g);
    s.start(sims, noisy, &mut rng);
    while s.advance() == Advance::NeedsEval {
        let e = UniformEvaluator.evaluate(&[s.leaf_request()]);
        s.apply(&e[0], &mut rng);
    }
    assert_eq!(s.simulations(), sims);
    s.choose(if noisy { 1.0 } else { 0.0 }, &mut rng)
}

fn search(g: &Game, cfg: MctsConfig, sims: u32) -> (brandubh_rules::Move, RootStats) {
    run_search(g, cfg, sims, false)
}

fn gumbel() -> MctsConfig {
    MctsConfig {
        gumbel: true,
        ..puct()
    }
}

fn noisy_search(g: &Game, cfg: MctsConfig, sims: u32) -> (brandubh_rules::Move, RootStats) {
    run_search(g, cfg, sims, true)
}

#[test]
fn win_in_one_is_played_at_once_with_a_one_hot_target() {
    for name in ALL {
        for gumbel in [false, true] {
            let cfg = MctsConfig {
                gumbel,
                ..MctsConfig::default()
            };
            assert!(cfg.win_in_one, "on by default");
            // Escape: even one simulation, root noise and temperature 1.
            let g = game(name, "f6 e5 c6", "c4", "a3", Side::Defenders);
            for (mv, st) in [search(&g, cfg.clone(), 1), noisy_search(&g, cfg.clone(), 8)] {
                assert_eq!(mv.to_string(), "a3-a1", "{name} gumbel={gumbel}");
                let i = st.visits.iter().position(|v| v.0 == mv).unwrap();
                assert_eq!(st.target[i], 1.0);
                assert_eq!(st.target.iter().sum::<f32>(), 1.0);
            }
            // King capture.
            let mut g = game(name, "b6 d6 c7 e5", "g2", "c6", Side::Attackers);
            let (mv, _) = noisy_search(&g, cfg.clone(), 4);
            g.play(mv).unwrap();
            assert_eq!(
                g.outcome().map(|o| o.result),
                Some(GameResult::AttackersWin),
                "{name} gumbel={gumbel}: {mv}"
            );
        }
    }
}

/// Whether every reply to `mv` leaves the mover a win on the spot.
fn forces_a_win(g: &Game, mv: brandubh_rules::Move) -> bool {
    let mut a = g.clone();
    a.play(mv).unwrap();
    !a.is_over()
        && a.legal_moves().iter().all(|&r| {
            let mut b = a.clone();
            b.play(r).unwrap();
            b.position().winning_move(g.rules()).is_some()
        })
}

#[test]
fn a_fork_is_seen_as_a_win_in_two() {
    // The king on c3 can step to c1 or a3, each with two open lines to
    // corners; the attackers can close only one. A node where every move
    // hands the opponent a win on the spot is lost outright, so the fork
    // shows up as a win after one visit.
    for name in ["modern", "ludii", "wtf", "wtf-plain"] {
        let g = game(name, "g4 g3 e7", "f6", "c3", Side::Defenders);
        let forks: Vec<_> = g
            .legal_moves()
            .iter()
            .copied()
            .filter(|&m| forces_a_win(&g, m))
            .collect();
        assert!(!forks.is_empty(), "{name}: the position has a fork");
        let n = g.legal_moves().len() as u32;
        let (mv, st) = search(&g, MctsConfig::default(), 10 * n);
        assert!(forks.contains(&mv), "{name}: played {mv}");
        assert!(st.value > 0.5, "{name}: root value {}", st.value);
    }
}

#[test]
fn win_in_one_below_the_root_needs_no_evaluation() {
    // Every attacker move but a block leaves the king an escape: with the
    // shortcut, those children are known losses after one visit each and
    // never reach the evaluator.
    for name in ALL {
        let g = game(name, "e2 f6 e6 c3", "a4", "a3", Side::Attackers);
        let n = g.legal_moves().len() as u32;
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut s = Search::new(g.rules().clone(), MctsConfig::default(), &g);
        s.start(2 * n, false, &mut rng);
        let mut evals = 0;
        while s.advance() == Advance::NeedsEval {
            evals += 1;
            let e = UniformEvaluator.evaluate(&[s.leaf_request()]);
            s.apply(&e[0], &mut rng);
        }
        let (mv, st) = s.choose(0.0, &mut rng);
        let mut after = g.clone();
        after.play(mv).unwrap();
        assert!(
            after.position().winning_move(g.rules()).is_none(),
            "{name}: {mv} leaves the escape open"
        );
        // Each losing move was tried, and scored as lost.
        let losing: Vec<_> = st
            .visits
            .iter()
            .filter(|(m, _)| {
                let mut a = g.clone();
                a.play(*m).unwrap();
                a.position().winning_move(g.rules()).is_some()
            })
            .collect();
        assert!(!losing.is_empty());
        assert!(
            evals < 2 * n,
            "{name}: {evals} evaluations for {} sims",
            2 * n
        );
        assert!(st.value > -1.0);
    }
}

#[test]
fn finds_escape_in_one() {
    for name in ALL {
        for cfg in [puct(), gumbel()] {
            let g = game(name, "f6 e5 c6", "c4", "a3", Side::Defenders);
            let (mv, _) = search(&g, cfg.clone(), 64);
            assert_eq!(mv.to_string(), "a3-a1", "{name} gumbel={}", cfg.gumbel);
        }
    }
}

#[test]
fn finds_king_capture_in_one() {
    for name in ALL {
        let mut g = game(name, "b6 d6 c7 e5", "g2", "c6", Side::Attackers);
        let (mv, _) = search(&g, puct(), 200);
        g.play(mv).unwrap();
        assert_eq!(
            g.outcome().map(|o| o.result),
            Some(GameResult::AttackersWin),
            "{name}: {mv}"
        );
    }
}

#[test]
fn blocks_escape_in_one() {
    for name in ALL {
        let mut g = game(name, "e2 f6 e6 c3", "a4", "a3", Side::Attackers);
        let (mv, _) = search(&g, puct(), 400);
        g.play(mv).unwrap();
        let escapes = g
            .legal_moves()
            .iter()
            .any(|m| Bitboard::CORNERS.contains(m.to));
        assert!(!escapes, "{name}: {mv} leaves the escape open");
    }
}

#[test]
fn visit_counts_add_up() {
    let g = Game::new(Arc::new(RuleSet::builtin("wtf").unwrap()));
    for cfg in [puct(), gumbel()] {
        let (_, st) = search(&g, cfg, 100);
        let total: u32 = st.visits.iter().map(|v| v.1).sum();
        assert_eq!(total, 99, "one simulation evaluates the root itself");
        assert_eq!(st.visits.len(), 40);
        assert!((st.target.iter().sum::<f32>() - 1.0).abs() < 1e-4);
    }
}

#[test]
fn puct_and_gumbel_improve_on_the_prior() {
    // The uniform prior gives the escape 1/n; search must raise it.
    let g = game("wtf", "f6 e5 c6", "c4 b2", "a3", Side::Defenders);
    let n = g.legal_moves().len() as f32;
    // Without root noise Gumbel considers the top m moves by prior; with a
    // flat prior, let it consider them all.
    let all_moves = MctsConfig {
        gumbel_considered: 64,
        ..gumbel()
    };
    for (cfg, sims) in [(puct(), 200), (all_moves, 48)] {
        let (_, st) = search(&g, cfg.clone(), sims);
        let i = st
            .visits
            .iter()
            .position(|v| v.0.to_string() == "a3-a1")
            .unwrap();
        assert!(
            st.target[i] > 2.0 / n,
            "gumbel={}: {} vs prior {}",
            cfg.gumbel,
            st.target[i],
            1.0 / n
        );
    }
}

#[test]
fn tree_reuse_keeps_the_subtree() {
    let rules = Arc::new(RuleSet::builtin("modern").unwrap());
    let mut g = Game::new(rules.clone());
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut s = Search::new(rules, puct(), &g);
    s.start(200, false, &mut rng);
    while s.advance() == Advance::NeedsEval {
        let e = UniformEvaluator.evaluate(&[s.leaf_request()]);
        s.apply(&e[0], &mut rng);
    }
    let (mv, st) = s.choose(0.0, &mut rng);
    let kept = st.visits.iter().find(|v| v.0 == mv).unwrap().1;
    g.play(mv).unwrap();
    s.advance_root(mv, &g);
    assert!(
        s.tree_size() as u32 >= kept,
        "subtree of {kept} visits kept: {} nodes",
        s.tree_size()
    );
    assert_eq!(s.root_position(), g.position());
}

fn small_cfg() -> SelfPlayConfig {
    SelfPlayConfig {
        mcts: MctsConfig {
            simulations: 24,
            cheap_simulations: 8,
            ..MctsConfig::default()
        },
        concurrent_games: 4,
        max_plies: 120,
        opening_plies: 2,
        games_per_shard: 4,
        attacker_sims_factor: 1.0,
        ..SelfPlayConfig::default()
    }
}

#[test]
fn attacker_sims_factor_scales_only_the_attackers_searches() {
    // Fresh trees and full searches only, so each searched position's
    // visits add up to its budget less the root's own evaluation.
    let cfg = SelfPlayConfig {
        mcts: MctsConfig {
            simulations: 20,
            full_search_prob: 1.0,
            reuse_tree: false,
            ..MctsConfig::default()
        },
        attacker_sims_factor: 3.0,
        ..small_cfg()
    };
    let mut seen = [false; 2];
    for g in play("wtf", 4, 3, 1, &cfg) {
        for p in g.positions.iter().filter(|p| !p.visits.is_empty()) {
            let total: u32 = p.visits.iter().map(|v| v.1).sum();
            let want = match p.side_to_move {
                Side::Attackers => 59,
                Side::Defenders => 19,
            };
            assert_eq!(total, want, "ply {} {:?}", p.ply, p.side_to_move);
            seen[(p.side_to_move == Side::Attackers) as usize] = true;
        }
    }
    assert_eq!(seen, [true, true]);
}

/// The uniform evaluator, counting the positions it was asked about.
#[derive(Default)]
struct Counting(std::sync::atomic::AtomicU64);

impl Evaluator for Counting {
    fn evaluate(&self, batch: &[EvalRequest<'_>]) -> Vec<Evaluation> {
        self.0
            .fetch_add(batch.len() as u64, std::sync::atomic::Ordering::Relaxed);
        UniformEvaluator.evaluate(batch)
    }
    fn id(&self) -> String {
        "counting".into()
    }
}

/// Sixteen wtf games of seed 9 against `opponents`, in id order.
fn play_against(cfg: &SelfPlayConfig, threads: usize, opponents: Opponents) -> Vec<SelfPlayGame> {
    let r = Arc::new(RuleSet::builtin("wtf").unwrap());
    let mut out = Vec::new();
    let job = SelfPlayJob {
        games: 16,
        seed: 9,
        first_id: 0,
        threads,
    };
    run_selfplay_against(r, &UniformEvaluator, opponents, cfg, job, &mut |g, _| {
        out.push(g)
    });
    out.sort_by_key(|g| g.game_id);
    out
}

fn play_with_past(cfg: &SelfPlayConfig, threads: usize, past: &Counting) -> Vec<SelfPlayGame> {
    let opponents = Opponents {
        past: &[past],
        fixed: None,
    };
    play_against(cfg, threads, opponents)
}

#[test]
fn past_nets_play_one_side_of_a_share_of_the_games() {
    let cfg = SelfPlayConfig {
        mcts: MctsConfig {
            full_search_prob: 1.0,
            ..small_cfg().mcts
        },
        past_share: 0.5,
        ..small_cfg()
    };
    let past = Counting::default();
    let games = play_with_past(&cfg, 1, &past);
    assert!(past.0.load(std::sync::atomic::Ordering::Relaxed) > 0);
    // With full searches only, a searched position without a policy
    // target is a past net's move.
    let mut sides = [0; 2];
    let mut against_past = 0;
    for g in &games {
        let searched = g.positions.iter().filter(|p| !p.visits.is_empty());
        let past_sides: std::collections::HashSet<Side> = searched
            .clone()
            .filter(|p| !p.full_search)
            .map(|p| p.side_to_move)
            .collect();
        let own_sides: std::collections::HashSet<Side> = searched
            .filter(|p| p.full_search)
            .map(|p| p.side_to_move)
            .collect();
        assert!(past_sides.len() <= 1, "game {}: one past side", g.game_id);
        assert!(past_sides.is_disjoint(&own_sides), "game {}", g.game_id);
        if let Some(side) = past_sides.iter().next() {
            against_past += 1;
            sides[(*side == Side::Attackers) as usize] += 1;
        }
    }
    assert!((3..=13).contains(&against_past), "{against_past} of 16");
    assert!(sides[0] > 0 && sides[1] > 0, "both sides: {sides:?}");
    // The same games on other thread counts.
    assert_eq!(games, play_with_past(&cfg, 2, &Counting::default()));
    // A share of 0 plays the games of plain self-play, past nets or not.
    let plain = SelfPlayConfig {
        past_share: 0.0,
        ..cfg.clone()
    };
    let unused = Counting::default();
    let mut without = play("wtf", 16, 9, 1, &plain);
    without.sort_by_key(|g| g.game_id);
    assert_eq!(play_with_past(&plain, 1, &unused), without);
    assert_eq!(unused.0.load(std::sync::atomic::Ordering::Relaxed), 0);
}

/// A fixed opponent that always plays the first legal move, counting its
/// moves.
#[derive(Default)]
struct FirstMove(std::sync::Arc<std::sync::atomic::AtomicU64>);

impl Opponent for FirstMove {
    fn new_player(&self) -> Box<dyn OpponentPlayer> {
        Box::new(FirstMove(self.0.clone()))
    }
}

impl OpponentPlayer for FirstMove {
    fn choose(&mut self, game: &Game) -> brandubh_rules::Move {
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        game.legal_moves()[0]
    }
}

fn play_with_fixed(cfg: &SelfPlayConfig, threads: usize, fixed: &FirstMove) -> Vec<SelfPlayGame> {
    let opponents = Opponents {
        past: &[],
        fixed: Some(fixed),
    };
    play_against(cfg, threads, opponents)
}

#[test]
fn a_fixed_opponent_plays_its_side_of_a_share_of_the_games() {
    let cfg = SelfPlayConfig {
        mcts: MctsConfig {
            full_search_prob: 1.0,
            ..small_cfg().mcts
        },
        opponent_share: 0.5,
        opponent_plays: OpponentSides::Defenders,
        ..small_cfg()
    };
    let fixed = FirstMove::default();
    let games = play_with_fixed(&cfg, 1, &fixed);
    let calls = fixed.0.load(std::sync::atomic::Ordering::Relaxed);
    let r = Arc::new(RuleSet::builtin("wtf").unwrap());
    let mut against = 0;
    let mut opponent_moves = 0;
    for g in &games {
        // With full searches only, an unforced move without a policy target
        // is the opponent's; it is always the defenders', and is the first
        // legal move, and the attackers' moves are all searched.
        let mut replay = Game::new(r.clone());
        let mut fixed_sides = std::collections::HashSet::new();
        let opening = g.positions[0].ply as usize;
        for m in &g.moves[..opening] {
            let rec: brandubh_rules::MoveRecord = m.parse().unwrap();
            replay.play(rec.mv).unwrap();
        }
        assert_eq!(g.positions.len(), g.moves.len() - opening);
        for (m, p) in g.moves[opening..].iter().zip(&g.positions) {
            assert_eq!(p.ply, replay.plies().len() as u32);
            assert_eq!(p.board, *replay.position().board());
            let rec: brandubh_rules::MoveRecord = m.parse().unwrap();
            let legal = replay.legal_moves();
            if legal.len() > 1 && p.visits.is_empty() {
                fixed_sides.insert(p.side_to_move);
                assert_eq!(rec.mv, legal[0], "game {} ply {}", g.game_id, p.ply);
                assert!(!p.full_search);
                opponent_moves += 1;
            }
            replay.play(rec.mv).unwrap();
        }
        assert!(fixed_sides.len() <= 1, "game {}", g.game_id);
        if fixed_sides.contains(&Side::Defenders) {
            against += 1;
        }
        assert!(
            !fixed_sides.contains(&Side::Attackers),
            "game {}",
            g.game_id
        );
    }
    assert!((3..=13).contains(&against), "{against} of 16");
    assert!(calls >= opponent_moves && opponent_moves > 0);
    // The same games on other thread counts.
    assert_eq!(games, play_with_fixed(&cfg, 2, &FirstMove::default()));
    // A share of 0 plays the games of plain self-play, opponent or not.
    let plain = SelfPlayConfig {
        opponent_share: 0.0,
        ..cfg.clone()
    };
    let unused = FirstMove::default();
    let mut without = play("wtf", 16, 9, 1, &plain);
    without.sort_by_key(|g| g.game_id);
    assert_eq!(play_with_fixed(&plain, 1, &unused), without);
    assert_eq!(unused.0.load(std::sync::atomic::Ordering::Relaxed), 0);
}

fn play(
    rules: &str,
    games: u64,
    seed: u64,
    threads: usize,
    cfg: &SelfPlayConfig,
) -> Vec<SelfPlayGame> {
    let r = Arc::new(RuleSet::builtin(rules).unwrap());
    let mut out = Vec::new();
    let stats = run_selfplay(
        r,
        &UniformEvaluator,
        cfg,
        SelfPlayJob {
            games,
            seed,
            first_id: 0,
            threads,
        },
        &mut |g, _| out.push(g),
    );
    assert_eq!(stats.games, games);
    out
}

#[test]
fn selfplay_is_deterministic_and_complete() {
    let cfg = small_cfg();
    let a = play("wtf", 6, 5, 1, &cfg);
    let b = play("wtf", 6, 5, 2, &cfg);
    assert_eq!(a, b, "same seed, different thread counts");
    let c = play("wtf", 6, 6, 2, &cfg);
    assert_ne!(a, c);
    for g in &a {
        assert_eq!(
            g.positions.len() as u32,
            g.plies - 2,
            "every searched ply is recorded"
        );
        assert!(g.positions.iter().any(|p| p.full_search));
        for p in g.positions.iter().filter(|p| !p.visits.is_empty()) {
            let s: f32 = p.target.iter().sum();
            assert!((s - 1.0).abs() < 1e-3);
        }
    }
}

#[test]
fn selfplay_runs_every_rule_set_with_gumbel_too() {
    for name in ALL {
        let mut cfg = small_cfg();
        cfg.mcts.gumbel = name == "ludii" || name == "raven";
        let games = play(name, 4, 1, 2, &cfg);
        assert_eq!(games.len(), 4, "{name}");
    }
}

#[test]
fn parquet_round_trip_and_bad_shards_skipped() {
    let dir = std::env::temp_dir().join(format!("brandubh-records-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let games = play("modern", 5, 2, 2, &small_cfg());
    let p0 = write_shard(&dir, 0, &games[..3]).unwrap();
    let p1 = write_shard(&dir, 1, &games[3..]).unwrap();
    assert_eq!(read_shard(&p0).unwrap(), games[..3].to_vec());
    let (all, errors) = read_dir(&dir);
    assert!(errors.is_empty());
    assert_eq!(all, games);
    // Truncate shard 1: reported by name, shard 0 still read.
    let bytes = std::fs::read(&p1).unwrap();
    std::fs::write(&p1, &bytes[..bytes.len() / 2]).unwrap();
    let (all, errors) = read_dir(&dir);
    assert_eq!(all, games[..3].to_vec());
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0].to_string().contains("shard-000001.games.parquet"),
        "{}",
        errors[0]
    );
    // Not a self-play file at all.
    std::fs::write(dir.join("shard-000002.games.parquet"), b"PAR1 nonsense").unwrap();
    let (_, errors) = read_dir(&dir);
    assert_eq!(errors.len(), 2);
    assert!(!std::fs::read_dir(&dir).unwrap().any(|e| e
        .unwrap()
        .path()
        .to_string_lossy()
        .ends_with(".tmp")));
    std::fs::remove_dir_all(&dir).ok();
}

/// Shards of schema version 1 (no `root_draw` column) still read, with the
/// draw share unknown (NaN).
#[test]
fn version_1_shards_still_read() {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/schema-v1/shard-000000.games.parquet");
    let games = read_shard(&p).unwrap();
    assert_eq!(games.len(), 2);
    assert!(games.iter().all(|g| !g.positions.is_empty()));
    assert!(games
        .iter()
        .flat_map(|g| &g.positions)
        .all(|p| p.root_draw.is_nan() && p.root_value.is_finite()));
}

/// A board column with bits past g7 (or two pieces on a square) is an
/// error naming the game and row, not a position made up from it.
#[test]
fn impossible_boards_in_a_shard_are_refused() {
    let dir = std::env::temp_dir().join(format!("brandubh-badboard-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut games = play("modern", 1, 2, 2, &small_cfg());
    games[0].positions[1].board.attackers.0 |= 1 << 60;
    let p = write_shard(&dir, 0, &games).unwrap();
    let err = read_shard(&p).unwrap_err().to_string();
    assert!(
        err.contains("row 1") && err.contains("beyond square 48"),
        "{err}"
    );
    games[0].positions[1].board.attackers.0 &= (1 << 49) - 1;
    games[0].positions[1].board.defenders.0 |=
        games[0].positions[1].board.attackers.0 & 1u64.wrapping_neg();
    let p = write_shard(&dir, 1, &games).unwrap();
    let err = read_shard(&p).unwrap_err().to_string();
    assert!(err.contains("two pieces"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Ids run on from `first_id`, one per game, none skipped or repeated.
#[test]
fn game_ids_start_where_asked() {
    let r = Arc::new(RuleSet::builtin("modern").unwrap());
    let mut cfg = small_cfg();
    cfg.concurrent_games = 3;
    let mut ids = Vec::new();
    let job = SelfPlayJob {
        games: 7,
        seed: 1,
        first_id: 100,
        threads: 1,
    };
    let stats = run_selfplay(r, &UniformEvaluator, &cfg, job, &mut |g, _| {
        ids.push(g.game_id)
    });
    assert_eq!(stats.games, 7);
    ids.sort_unstable();
    assert_eq!(ids, (100..107).collect::<Vec<u64>>());
}

/// An evaluator under which the side to move at the start wins (or loses)
/// everywhere, with uniform priors, and whose plies left depend only on
/// where the attackers stand: each of the attackers' first moves leads to
/// its own expected length, which their opponents' replies keep.
struct SureOutcome {
    starter: Side,
    starter_wins: bool,
    moves_left: bool,
}

impl SureOutcome {
    fn plies_left(pos: &brandubh_rules::Position) -> f32 {
        let a = pos.board().attackers.0;
        let sum: u64 = (0..49).filter(|i| a >> i & 1 == 1).sum();
        10.0 + (sum % 37) as f32
    }
}

impl Evaluator for SureOutcome {
    fn evaluate(&self, batch: &[EvalRequest<'_>]) -> Vec<Evaluation> {
        batch
            .iter()
            .map(|r| {
                let wins = (r.position.side_to_move() == self.starter) == self.starter_wins;
                Evaluation {
                    priors: vec![1.0 / r.moves.len().max(1) as f32; r.moves.len()],
                    wdl: if wins {
                        [1.0, 0.0, 0.0]
                    } else {
                        [0.0, 0.0, 1.0]
                    },
                    moves_left: self.moves_left.then(|| Self::plies_left(r.position)),
                }
            })
            .collect()
    }
    fn id(&self) -> String {
        "sure".into()
    }
}

fn visits_under(g: &Game, cfg: MctsConfig, ev: &SureOutcome) -> RootStats {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut s = Search::new(g.rules().clone(), cfg, g);
    s.start(300, false, &mut rng);
    while s.advance() == Advance::NeedsEval {
        let e = ev.evaluate(&[s.leaf_request()]);
        s.apply(&e[0], &mut rng);
    }
    s.choose(0.0, &mut rng).1
}

/// The plies left after each root move, by `SureOutcome`'s rule.
fn plies_after(g: &Game, st: &RootStats) -> Vec<f32> {
    st.visits
        .iter()
        .map(|(mv, _)| {
            let pos = g.position().play(g.rules(), *mv).0;
            SureOutcome::plies_left(&pos)
        })
        .collect()
}

fn most_visited(st: &RootStats) -> usize {
    (0..st.visits.len())
        .max_by_key(|&i| st.visits[i].1)
        .expect("root moves")
}

#[test]
fn moves_left_utility_lengthens_lost_games_and_shortens_won_ones() {
    let g = Game::new(Arc::new(RuleSet::builtin("modern").unwrap()));
    let starter = g.position().side_to_move();
    // No first-play reduction: every move, visited or not, looks the same
    // but for the plies it takes.
    let even = MctsConfig {
        fpu_reduction: 0.0,
        ..puct()
    };
    let cfg = MctsConfig {
        moves_left_effect: 0.05,
        ..even.clone()
    };
    for starter_wins in [false, true] {
        let ev = SureOutcome {
            starter,
            starter_wins,
            moves_left: true,
        };
        let st = visits_under(&g, cfg.clone(), &ev);
        let plies = plies_after(&g, &st);
        let chosen = plies[most_visited(&st)];
        let (lo, hi) = plies
            .iter()
            .fold((f32::MAX, f32::MIN), |(lo, hi), &p| (lo.min(p), hi.max(p)));
        assert!(hi > lo + 10.0, "the root moves' lengths differ: {lo}..{hi}");
        if starter_wins {
            assert_eq!(chosen, lo, "a won game is ended soonest");
        } else {
            assert_eq!(chosen, hi, "a lost game is drawn out longest");
        }
        // Off, every move is alike: the visits spread evenly.
        let off = visits_under(&g, even.clone(), &ev);
        let counts: Vec<u32> = off.visits.iter().map(|v| v.1).collect();
        let spread = counts.iter().max().unwrap() - counts.iter().min().unwrap();
        assert!(spread <= 2, "without the utility: {counts:?}");
    }
}

#[test]
fn moves_left_utility_needs_an_evaluator_that_gives_plies_left() {
    let g = Game::new(Arc::new(RuleSet::builtin("modern").unwrap()));
    let ev = SureOutcome {
        starter: g.position().side_to_move(),
        starter_wins: false,
        moves_left: false,
    };
    let on = MctsConfig {
        moves_left_effect: 0.05,
        ..puct()
    };
    assert_eq!(visits_under(&g, on, &ev), visits_under(&g, puct(), &ev));
}
