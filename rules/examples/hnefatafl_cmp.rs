//! Side by side in one run: perft leaves per second of this engine and of
//! the published `hnefatafl` crate (rules only) from the Brandubh start.
//! `cargo run --release -p brandubh-rules --example hnefatafl_cmp [RUNS]`
//! prints the median of RUNS runs (default 5) of each, and their ratio.

use brandubh_rules::{perft, Position, RuleSet};
use hnefatafl::aliases::{SmallBasicGameLogic, SmallBasicGameState};
use hnefatafl::board::state::BoardState;
use hnefatafl::game::GameStatus;
use hnefatafl::pieces::Side;
use hnefatafl::preset;
use std::time::Instant;

fn walk(logic: &SmallBasicGameLogic, state: &SmallBasicGameState, depth: u32) -> u64 {
    let mut n = 0;
    for tile in state.board.occupied_by_side(state.side_to_play) {
        for vp in logic.iter_plays(tile, state).expect("occupied tile") {
            if depth == 1 {
                n += 1;
                continue;
            }
            let next = logic.do_valid_play(vp, *state).new_state;
            if matches!(next.status, GameStatus::Ongoing) {
                n += walk(logic, &next, depth - 1);
            }
        }
    }
    n
}

/// Perft with the `hnefatafl` crate's own move iterator and move maker.
pub fn hnefatafl_perft(depth: u32) -> u64 {
    let logic = SmallBasicGameLogic::new(preset::rules::BRANDUBH, 7);
    let state =
        SmallBasicGameState::new(preset::boards::BRANDUBH, Side::Attacker).expect("preset board");
    walk(&logic, &state, depth)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let wtf = RuleSet::builtin("wtf").unwrap();
    let start = Position::start(&wtf);
    let (mut ours, mut ours4, mut theirs) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        let t = Instant::now();
        let n = perft(&wtf, &start, 4);
        ours4.push(n as f64 / t.elapsed().as_secs_f64());
        let t = Instant::now();
        let n = perft(&wtf, &start, 6);
        ours.push(n as f64 / t.elapsed().as_secs_f64());
        let t = Instant::now();
        let m = hnefatafl_perft(4);
        theirs.push(m as f64 / t.elapsed().as_secs_f64());
        assert_eq!(m, 1_007_392, "hnefatafl perft 4 from the start");
    }
    let (o, o4, t) = (median(ours), median(ours4), median(theirs));
    println!(
        "brandubh  perft 6 (wtf):     {:>8.1} M leaves/s (median of {runs})",
        o / 1e6
    );
    println!(
        "brandubh  perft 4 (wtf):     {:>8.1} M leaves/s (median of {runs})",
        o4 / 1e6
    );
    println!(
        "hnefatafl perft 4 (preset):  {:>8.1} M leaves/s (median of {runs})",
        t / 1e6
    );
    println!(
        "ratio at perft 4: {:.1}x; ours at 6 over theirs at 4: {:.1}x",
        o4 / t,
        o / t
    );
}
