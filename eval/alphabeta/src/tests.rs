//! Unit tests of the repetition scoring.

use super::*;
use brandubh_rules::MoveRecord;

fn mv(text: &str) -> Move {
    text.parse::<MoveRecord>().unwrap().mv
}

/// Attackers d1-c1, defenders d3-c3, and both back: the start again.
fn cycled(name: &str) -> Game {
    let mut g = Game::new(Arc::new(RuleSet::builtin(name).unwrap()));
    for m in ["d1-c1", "d3-c3", "c1-d1", "c3-d3"] {
        g.play(mv(m)).unwrap();
    }
    g
}

#[test]
fn a_first_repeat_scores_as_the_loss_it_leads_to() {
    let mut g = cycled("wtf");
    let rules = g.rules().clone();
    // Not yet repeated: the start occurred once before, but the
    // attackers, to move there, did not make it.
    assert_eq!(g.position().repetitions(g.history()), 1);
    g.play(mv("d1-c1")).unwrap();
    // The attackers' move repeats the position after their first move,
    // four plies back: replayed, the cycle makes it a third time four
    // plies on, and the attackers lose. Scored for the defenders, to
    // move, as that win.
    let pos = *g.position();
    assert_eq!(pos.plies_since_occurrence(g.history()), Some(4));
    assert_eq!(
        repetition_score(&rules, &pos, g.history(), 1),
        Some(WIN - 1 - 4)
    );
    // A new position scores nothing special.
    let fresh = pos.play(&rules, mv("c4-c3")).0;
    let mut h = g.history().to_vec();
    h.push(pos.hash());
    assert_eq!(repetition_score(&rules, &fresh, &h, 2), None);
}

#[test]
fn repeats_score_nothing_where_the_rules_ignore_them() {
    let mut g = cycled("ludii");
    g.play(mv("d1-c1")).unwrap();
    let rules = g.rules().clone();
    assert_eq!(repetition_score(&rules, g.position(), g.history(), 1), None);
}
