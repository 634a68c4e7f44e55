//! Training targets with independent expectations: the value target's
//! sign for each side, unfinished games, the replay window, symmetries of
//! board and policy target, the learning-rate schedule, side-balanced
//! sampling, and a tiny net fitting a tiny batch.

use brandubh_model::encoding::{encode, INPUT_LEN};
use brandubh_model::NetConfig;
use brandubh_rules::{Game, GameResult, Move, Position, RuleSet, Side, Symmetry, POLICY_SIZE};
use brandubh_selfplay::SelfPlayConfig;
use brandubh_selfplay::{PositionRecord, SelfPlayGame};
use brandubh_train::RunConfig;
use brandubh_train::{
    cosine_lr, sample, window, winner, StepStats, Trainer, WindowEntry, WindowSampler,
};
use burn::tensor::Device;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;
use std::sync::Arc;

fn rules() -> Arc<RuleSet> {
    brandubh_rules::testing::rules("wtf")
}

/// A game of `plies` plies from the start (the first legal move each
/// time), every position searched, with the played move's visits as the
/// policy target; `result` as given.
fn game(id: u64, plies: usize, result: Option<GameResult>) -> SelfPlayGame {
    let r = rules();
    let mut g = Game::new(r.clone());
    let mut positions = Vec::new();
    for ply in 0..plies {
        let p = *g.position();
        let moves: Vec<Move> = g.legal_moves().iter().copied().take(3).collect();
        positions.push(PositionRecord {
            ply: ply as u32,
            board: *p.board(),
            side_to_move: p.side_to_move(),
            quiet_plies: p.quiet_plies() as u16,
            repetitions: 0,
            visits: moves
                .iter()
                .enumerate()
                .map(|(i, m)| (m.policy_index().unwrap(), 3 - i as u32))
                .collect(),
            target: vec![0.5, 1.0 / 3.0, 1.0 / 6.0],
            root_value: 0.25,
            root_draw: 0.5,
            full_search: true,
            mv: moves[0].to_string(),
            move_index: moves[0].policy_index(),
        });
        g.play(moves[0]).unwrap();
    }
    SelfPlayGame {
        game_id: id,
        rules: "wtf".into(),
        rules_hash: r.hash,
        model_id: "test".into(),
        seed: id,
        result,
        reason: None,
        plies: plies as u32,
        moves: vec![],
        positions,
    }
}

#[test]
fn the_value_target_is_the_result_for_the_side_to_move() {
    let r = rules();
    for (result, att, def) in [
        (GameResult::AttackersWin, [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
        (GameResult::DefendersWin, [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]),
        (GameResult::Draw, [0.0, 1.0, 0.0], [0.0, 1.0, 0.0]),
    ] {
        let w = window(&[game(1, 6, Some(result))], 100);
        assert_eq!(w.len(), 6);
        for e in &w {
            let s = sample(&r, e, Symmetry(0), 0.0);
            let want = match e.record.side_to_move {
                Side::Attackers => att,
                Side::Defenders => def,
            };
            assert_eq!(s.wdl, want, "{result:?}, {} to move", e.record.side_to_move);
            assert_eq!(s.value_weight, 1.0);
        }
    }
}

#[test]
fn the_search_value_mixes_in_as_win_draw_loss() {
    let r = rules();
    let mut g = game(1, 2, Some(GameResult::AttackersWin));
    let w = window(std::slice::from_ref(&g), 100);
    // Root value +0.25 with a draw share of 0.5: W 0.375, D 0.5, L 0.125,
    // whichever side is to move (the value is the mover's).
    let s = sample(&r, &w[0], Symmetry(0), 1.0);
    assert_eq!(s.wdl, [0.375, 0.5, 0.125]);
    // Mixed a quarter into the attackers' win.
    let s = sample(&r, &w[0], Symmetry(0), 0.25);
    let want = [0.75 + 0.25 * 0.375, 0.25 * 0.5, 0.25 * 0.125];
    for k in 0..3 {
        assert!((s.wdl[k] - want[k]).abs() < 1e-6, "{:?} {want:?}", s.wdl);
    }
    // An unsure search with no draws behind it is half win, half loss, not
    // a draw; files without the draw share count it as none.
    for p in &mut g.positions {
        p.root_value = 0.0;
        p.root_draw = f32::NAN;
    }
    let w = window(std::slice::from_ref(&g), 100);
    assert_eq!(sample(&r, &w[0], Symmetry(0), 1.0).wdl, [0.5, 0.0, 0.5]);
}

#[test]
fn an_unfinished_game_has_no_value_target() {
    let r = rules();
    let w = window(&[game(1, 4, None)], 100);
    for e in &w {
        assert!(!e.finished);
        assert_eq!(sample(&r, e, Symmetry(0), 0.25).value_weight, 0.0);
    }
}

#[test]
fn the_window_holds_the_newest_positions_in_order() {
    let games = [
        game(1, 5, Some(GameResult::DefendersWin)),
        game(2, 4, Some(GameResult::AttackersWin)),
        game(3, 3, Some(GameResult::Draw)),
    ];
    let w: Vec<WindowEntry> = window(&games, 6);
    let got: Vec<(i8, u32)> = w.iter().map(|e| (e.result, e.record.ply)).collect();
    // The last 3 positions of game 2, then all of game 3, oldest first.
    // Game 2 was won by the attackers, who move at even plies in wtf.
    assert_eq!(rules().options.first_to_move, Side::Attackers);
    let g2_last = |ply: u32| if ply.is_multiple_of(2) { 1 } else { -1 };
    assert_eq!(
        got,
        vec![
            (g2_last(1), 1),
            (g2_last(2), 2),
            (g2_last(3), 3),
            (0, 0),
            (0, 1),
            (0, 2)
        ]
    );
    assert_eq!(window(&games, 100).len(), 12);
}

#[test]
fn board_and_policy_target_move_together_under_every_symmetry() {
    let r = rules();
    let w = window(&[game(1, 5, Some(GameResult::DefendersWin))], 100);
    for e in &w {
        for sym in Symmetry::ALL {
            let s = sample(&r, e, sym, 0.0);
            // The planes are the encoding of the transformed position.
            let pos = Position::from_board(&r, sym.board(&e.record.board), e.record.side_to_move)
                .unwrap();
            let mut pos = pos;
            pos.set_counters(e.record.ply as u16, e.record.quiet_plies);
            let mut planes = vec![0.0; INPUT_LEN];
            encode(&r, &pos, 0, &mut planes);
            assert_eq!(s.planes, planes, "{sym:?}");
            // Each target weight sits on the transformed move, which is
            // legal in the transformed position.
            let mut legal = brandubh_rules::MoveList::new();
            pos.legal_moves(&r, &mut legal);
            let mut expect = vec![0.0; POLICY_SIZE];
            for ((idx, _), t) in e.record.visits.iter().zip(&e.record.target) {
                let j = sym.policy_index(*idx).unwrap();
                expect[j as usize] = *t;
                let mv = Move::from_policy_index(j).unwrap();
                assert!(legal.contains(&mv), "{sym:?}: {mv} not legal");
            }
            assert_eq!(s.policy, expect, "{sym:?}");
            assert_eq!(s.policy_weight, 1.0);
        }
    }
}

#[test]
fn the_learning_rate_falls_from_lr_to_lr_final_on_a_cosine() {
    let (lr, fin) = (0.002, 0.0002);
    assert!((cosine_lr(lr, fin, 0, 100) - lr).abs() < 1e-12);
    assert!((cosine_lr(lr, fin, 50, 100) - (lr + fin) / 2.0).abs() < 1e-12);
    assert!((cosine_lr(lr, fin, 100, 100) - fin).abs() < 1e-12);
    assert!(
        (cosine_lr(lr, fin, 500, 100) - fin).abs() < 1e-12,
        "stays at the end"
    );
    let steps: Vec<f64> = (0..=100).map(|k| cosine_lr(lr, fin, k, 100)).collect();
    assert!(steps.windows(2).all(|w| w[1] <= w[0]), "never rises");
}

/// Trains a seeded 8-channel, one-block net, with or without the
/// moves-left output, for `steps` steps on the positions of one attackers'
/// win of `plies` plies; the first step's statistics and the last's.
/// burn's seed is process-wide and the tests run on several threads: the
/// tests that seed it and then draw from it hold this lock throughout, so
/// that no other test reseeds it in between.
fn rng_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

fn fit_one_game(plies: usize, moves_left: bool, steps: usize) -> (StepStats, StepStats) {
    let _seeded = rng_lock();
    let r = rules();
    let w = window(&[game(1, plies, Some(GameResult::AttackersWin))], 100);
    let batch: Vec<_> = w.iter().map(|e| sample(&r, e, Symmetry(0), 0.0)).collect();
    let device = Device::flex().autodiff();
    device.seed(1);
    let config = NetConfig::new()
        .with_channels(8)
        .with_blocks(1)
        .with_value_hidden(16)
        .with_moves_left(moves_left);
    let mut t = Trainer::new(config.init(&device), config, device, 0.0);
    let first = t.step(&batch, 0.01);
    let mut last = first;
    for _ in 0..steps {
        last = t.step(&batch, 0.01);
    }
    (first, last)
}

#[test]
fn a_tiny_net_fits_a_tiny_batch() {
    let (first, last) = fit_one_game(4, false, 150);
    assert!(last.value_loss < 0.05, "value loss {}", last.value_loss);
    assert_eq!(last.value_accuracy, 1.0);
    // The policy target has entropy, so the loss tends to it, not to 0.
    let target_entropy: f32 = [0.5f32, 1.0 / 3.0, 1.0 / 6.0]
        .iter()
        .map(|p| -p * p.ln())
        .sum();
    assert!(
        last.policy_loss < target_entropy + 0.05 && first.policy_loss > target_entropy + 1.0,
        "policy loss {} -> {} (target entropy {target_entropy})",
        first.policy_loss,
        last.policy_loss
    );
}

// Shipped config files.
// Every shipped config file parses, and the self-play defaults file shows
// exactly the built-in defaults it claims to show.
fn files(dir: &str) -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir);
    let mut v: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    assert!(!v.is_empty(), "{}", root.display());
    v
}

#[test]
fn every_run_config_parses() {
    for p in files("configs/runs") {
        let text = std::fs::read_to_string(&p).unwrap();
        RunConfig::from_toml(&text, &p.display().to_string()).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn every_selfplay_and_eval_config_parses() {
    for p in files("configs/selfplay") {
        SelfPlayConfig::from_file(&p).unwrap_or_else(|e| panic!("{e}"));
    }
    for p in files("configs/eval") {
        brandubh_alphabeta::evaluation::EvalWeights::from_file(&p)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn the_selfplay_defaults_file_is_the_built_in_defaults() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/selfplay/default.toml");
    assert_eq!(
        SelfPlayConfig::from_file(&p).unwrap(),
        SelfPlayConfig::default()
    );
}

/// A run config's out-of-range value is named by its full key, in the
/// file it came from.
#[test]
fn run_config_errors_name_the_key() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/runs/default.toml");
    let text = std::fs::read_to_string(&p).unwrap();
    for (from, to, key) in [
        ("lr = 0.002", "lr = -1.0", "train.lr"),
        ("batch_size = 256", "batch_size = 0", "train.batch_size"),
        ("c_puct = 1.5", "c_puct = 1e9", "selfplay.mcts.c_puct"),
        (
            "value_target_mix = 0.25",
            "value_target_mix = 0.25\nside_balance = 1.5",
            "train.side_balance",
        ),
    ] {
        assert!(text.contains(from), "{from}");
        let e = RunConfig::from_toml(&text.replacen(from, to, 1), "run.toml").unwrap_err();
        let brandubh_mcts::ConfigError::InFile { file, source } = &e else {
            panic!("{e}")
        };
        assert_eq!(file, "run.toml");
        assert!(
            matches!(&**source, brandubh_mcts::ConfigError::OutOfRange { key: k, .. } if k == key),
            "{e}"
        );
    }
}

/// Evaluating only some generations is refused where the evaluation
/// decides the promotion, naming the key.
#[test]
fn evaluating_some_generations_needs_gating_always() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/runs/default.toml");
    let text = std::fs::read_to_string(&p).unwrap();
    let sparse = text.replacen("[eval]", "[eval]\nevery = 3", 1);
    let c = RunConfig::from_toml(&sparse, "run.toml").unwrap();
    assert!(!c.eval.evaluates(1, 12) && c.eval.evaluates(3, 12) && c.eval.evaluates(12, 12));
    assert!(!c.eval.evaluates(11, 12));
    assert!(text.contains("gating = \"always\""));
    let gated = sparse.replacen("gating = \"always\"", "gating = \"score\"", 1);
    let e = RunConfig::from_toml(&gated, "run.toml").unwrap_err();
    let brandubh_mcts::ConfigError::InFile { source, .. } = &e else {
        panic!("{e}")
    };
    assert!(
        matches!(&**source, brandubh_mcts::ConfigError::Invalid { key, .. } if key == "eval.every"),
        "{e}"
    );
    assert_eq!(
        RunConfig::from_toml(&text, "run.toml").unwrap().eval.every,
        1
    );
}

/// One game the attackers won, nine the defenders won and one unfinished,
/// four positions each: 4 + 36 + 4 entries, oldest first.
fn lopsided_window() -> Vec<WindowEntry> {
    let mut games = vec![game(0, 4, Some(GameResult::AttackersWin))];
    games.extend((1..10).map(|i| game(i, 4, Some(GameResult::DefendersWin))));
    games.push(game(10, 4, None));
    window(&games, 1000)
}

/// How often each group (attackers' wins, defenders' wins, the rest) and
/// each entry come up in `n` draws.
fn draw_counts(w: &[WindowEntry], s: &WindowSampler, n: usize) -> ([f64; 3], Vec<usize>) {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut groups = [0.0; 3];
    let mut each = vec![0; w.len()];
    for _ in 0..n {
        let i = s.pick(&mut rng);
        each[i] += 1;
        let g = match winner(&w[i]) {
            Some(Side::Attackers) => 0,
            Some(Side::Defenders) => 1,
            None => 2,
        };
        groups[g] += 1.0 / n as f64;
    }
    (groups, each)
}

#[test]
fn the_winner_of_an_entry_is_the_same_for_both_sides_to_move() {
    let w = lopsided_window();
    // Entries alternate the side to move; the winner is the game's.
    assert!(w[..4].iter().all(|e| winner(e) == Some(Side::Attackers)));
    assert_ne!(w[0].record.side_to_move, w[1].record.side_to_move);
    assert!(w[4..40].iter().all(|e| winner(e) == Some(Side::Defenders)));
    assert!(w[40..].iter().all(|e| winner(e).is_none()));
}

#[test]
fn side_balanced_sampling_evens_out_each_sides_wins() {
    let w = lopsided_window();
    assert_eq!(w.len(), 44);
    // The attackers' share of won games' draws: 4/40 in the window, moved
    // to (1 − b)·0.1 + b/2; the unfinished game keeps its 4/44 either way.
    for (b, attackers) in [(0.0, 0.1), (0.5, 0.3), (1.0, 0.5)] {
        let s = WindowSampler::new(&w, b);
        let want = [
            40.0 / 44.0 * attackers,
            40.0 / 44.0 * (1.0 - attackers),
            4.0 / 44.0,
        ];
        for (got, want) in s.shares().iter().zip(want) {
            assert!((got - want).abs() < 1e-9, "b = {b}: {:?}", s.shares());
        }
        let (drawn, each) = draw_counts(&w, &s, 100_000);
        for (got, want) in drawn.iter().zip(want) {
            assert!((got - want).abs() < 0.01, "b = {b}: drew {drawn:?}");
        }
        // Within a group every entry is drawn about equally often.
        for (range, share) in [(0..4, want[0]), (4..40, want[1]), (40..44, want[2])] {
            let per = share * 100_000.0 / range.len() as f64;
            for i in range {
                let got = each[i] as f64;
                assert!(
                    (got - per).abs() < 0.1 * per,
                    "b = {b}, entry {i}: {got} of {per}"
                );
            }
        }
    }
}

#[test]
fn uniform_sampling_draws_as_before_and_one_sided_windows_stay_uniform() {
    let w = lopsided_window();
    // Side balance 0 uses the generator as a plain uniform draw does, so a
    // run resumed on a newer build draws the same batches.
    let s = WindowSampler::new(&w, 0.0);
    let mut a = ChaCha8Rng::seed_from_u64(9);
    let mut b = ChaCha8Rng::seed_from_u64(9);
    for _ in 0..1000 {
        assert_eq!(s.pick(&mut a), b.random_range(0..w.len()));
    }
    // Only the defenders ever won: nothing to balance against.
    let one_sided = window(
        &[game(1, 4, Some(GameResult::DefendersWin)), game(2, 6, None)],
        100,
    );
    let s = WindowSampler::new(&one_sided, 1.0);
    assert_eq!(s.shares(), [0.0, 0.4, 0.6]);
    let mut a = ChaCha8Rng::seed_from_u64(3);
    let mut b = ChaCha8Rng::seed_from_u64(3);
    for _ in 0..100 {
        assert_eq!(s.pick(&mut a), b.random_range(0..one_sided.len()));
    }
}

#[test]
fn the_attackers_handicap_decays_to_none_over_the_given_generations() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/runs/wtf-strong.toml");
    let mut c = RunConfig::from_toml(&std::fs::read_to_string(&p).unwrap(), "wtf").unwrap();
    assert_eq!(c.selfplay.attacker_sims_factor, 4.0);
    // Without a decay the handicap holds for the whole run.
    assert_eq!(c.selfplay_at(1).attacker_sims_factor, 4.0);
    assert_eq!(c.selfplay_at(60).attacker_sims_factor, 4.0);
    // 4× in generation 1, 1× from generation 13 on, linear between.
    c.handicap_decay_generations = 12;
    for (it, want) in [
        (1, 4.0),
        (5, 3.0),
        (7, 2.5),
        (13, 1.0),
        (14, 1.0),
        (60, 1.0),
    ] {
        let got = c.selfplay_at(it).attacker_sims_factor;
        assert!((got - want).abs() < 1e-6, "generation {it}: {got}");
    }
    // Nothing else changes.
    let mut d = c.selfplay_at(7);
    d.attacker_sims_factor = c.selfplay.attacker_sims_factor;
    assert_eq!(d, c.selfplay);
}

/// The moves-left target is the plies the game lasted from each position,
/// over the output's scale; a game stopped at the ply cap has none.
#[test]
fn the_moves_left_target_counts_the_plies_to_the_end() {
    let r = rules();
    let scale = brandubh_model::MOVES_LEFT_SCALE;
    let w = window(&[game(1, 5, Some(GameResult::DefendersWin))], 100);
    let left: Vec<f32> = w
        .iter()
        .map(|e| sample(&r, e, Symmetry(3), 0.0).moves_left * scale)
        .collect();
    assert_eq!(left, [5.0, 4.0, 3.0, 2.0, 1.0]);
    let w = window(&[game(2, 5, None)], 100);
    for e in &w {
        let s = sample(&r, e, Symmetry(0), 0.0);
        assert_eq!((s.moves_left, s.value_weight), (0.0, 0.0));
    }
}

/// A tiny net with the moves-left output learns the plies left of a tiny
/// batch, and learns its value as well as one without the output.
#[test]
fn a_tiny_net_fits_the_plies_left() {
    let (first, last) = fit_one_game(6, true, 200);
    assert!(first.moves_left_loss > 0.0);
    // A root-mean-square error under 2 plies, on targets of 1 to 6 plies.
    let rms = last.moves_left_loss.sqrt() * brandubh_model::MOVES_LEFT_SCALE;
    assert!(rms < 2.0, "rms error {rms} plies");
    assert!(last.value_loss < 0.05, "value loss {}", last.value_loss);
}

#[test]
fn past_opponents_start_at_their_generation() {
    let mut c = RunConfig::from_toml(
        &std::fs::read_to_string("../configs/runs/strong.toml").unwrap(),
        "strong.toml",
    )
    .unwrap();
    c.selfplay.past_share = 0.25;
    c.selfplay.past_from_generation = 11;
    assert_eq!(c.selfplay_at(10).past_share, 0.0);
    assert_eq!(c.selfplay_at(11).past_share, 0.25);
    assert_eq!(c.selfplay_at(36).past_share, 0.25);
}

#[test]
fn a_fixed_opponent_needs_a_bounded_alpha_beta_and_starts_at_its_generation() {
    let text = std::fs::read_to_string("../configs/runs/strong.toml").unwrap();
    let with = |extra: &str| RunConfig::from_toml(&format!("{text}\n{extra}"), "strong.toml");
    let shared = "[opponent]\nplayer = \"alphabeta:depth=3\"\nfrom_generation = 4\n";
    let mut c = with(shared).unwrap();
    c.selfplay.opponent_share = 0.5;
    assert_eq!(c.selfplay_at(3).opponent_share, 0.0);
    assert_eq!(c.selfplay_at(4).opponent_share, 0.5);
    let rules = std::sync::Arc::new(brandubh_rules::RuleSet::builtin("wtf").unwrap());
    let at = |it| {
        brandubh_train::opponent::for_generation(c.opponent.as_ref(), &c.selfplay_at(it), &rules)
    };
    assert!(at(3).unwrap().is_none());
    assert!(at(4).unwrap().is_some());
    // A share without an opponent, and opponents that are not a bounded
    // alpha-beta, are refused with the key named.
    c.opponent = None;
    let e = c.check().unwrap_err().to_string();
    assert!(e.contains("selfplay.opponent_share"), "{e}");
    for (player, why) in [
        ("random", "alpha-beta"),
        ("alphabeta:ms=100", "depth= or nodes="),
        ("alphabeta", "depth= or nodes="),
    ] {
        let e = with(&format!("[opponent]\nplayer = \"{player}\"\n"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("opponent.player") && e.contains(why), "{e}");
    }
}

#[test]
fn past_opponents_are_the_generations_before_the_current_net() {
    use brandubh_train::past_generation_names;
    assert_eq!(
        past_generation_names("gen-0012", 3),
        ["gen-0009", "gen-0010", "gen-0011"]
    );
    assert_eq!(past_generation_names("gen-0001", 3), ["gen-0000"]);
    assert!(past_generation_names("gen-0000", 3).is_empty());
    assert!(past_generation_names("candidate-50", 3).is_empty());
}
