//! One test per numbered clause of the rule-set specification the engine
//! was written to (its options, and our readings where it leaves a point
//! open, are in docs/rules.md; each rule file in `configs/rules/` comments
//! its clauses), on hand-made positions, for every rule set the clause
//! applies to. Test names carry the rule set and clause number.

mod common;
use brandubh_rules::{EndReason::*, GameResult::*, Side::*, *};
use common::*;

const STD4: [&str; 4] = ["modern", "ludii", "wtf", "wtf-plain"];

// ---------- Terms and standard setup ----------

#[test]
fn terms_setup_and_public_perft() {
    for name in STD4 {
        let r = rules(name);
        let p = Position::start(&r);
        assert_eq!(
            p.board().to_record(),
            "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/",
            "{name}"
        );
        for (d, n) in [(1, 40), (2, 960), (3, 39_512), (4, 1_007_392)] {
            assert_eq!(perft(&r, &p, d), n, "{name} perft {d}");
        }
    }
}

#[test]
fn terms_record_after_d6_c6() {
    let mut g = Game::new(rules("modern"));
    play(&mut g, "d6-c6");
    assert_eq!(
        g.position().board().to_record(),
        "/3t3/3t3/3T3/ttTKTtt/3T3/2t4/3t3/"
    );
}

#[test]
fn terms_rook_moves_never_jump() {
    for name in ALL {
        let g = game(name, "a3", "c3", "g6", Attackers);
        assert!(is_legal(&g, "a3-b3"), "{name}");
        assert!(!is_legal(&g, "a3-d3"), "{name}: jumped over c3");
        assert!(!is_legal(&g, "a3-b4"), "{name}: turned");
        assert!(is_legal(&g, "a3-a6"), "{name}");
    }
}

#[test]
fn terms_custodial_active_capture_and_safe_entry() {
    for name in ALL {
        // Attacker e1 moves to e3: d3, f3 and e4 sit between it and attackers.
        let mut g = game(name, "e1 c3 g3 e5", "d3 f3 e4", "b6", Attackers);
        assert_eq!(
            play(&mut g, "e1-e3"),
            ["d3", "e4", "f3"],
            "{name}: up to three men at once"
        );
        // A man moving between two enemies is not captured.
        let mut g = game(name, "e2 g2", "f5", "b6", Defenders);
        assert_eq!(play(&mut g, "f5-f2"), Vec::<String>::new(), "{name}");
        assert!(g
            .position()
            .board()
            .defenders
            .contains("f2".parse().unwrap()));
    }
}

#[test]
fn terms_armed_king_hammer_and_anvil() {
    for name in ALL {
        // King as the moving piece: e6-d6 takes c6 against b6.
        let mut g = game(name, "c6 g2", "b6", "e6", Defenders);
        assert_eq!(play(&mut g, "e6-d6"), ["c6"], "{name}: king as hammer");
        // King as the far piece: a defender takes c6 against the king on b6.
        let mut g = game(name, "c6 g2", "d7", "b6", Defenders);
        assert_eq!(play(&mut g, "d7-d6"), ["c6"], "{name}: king as anvil");
    }
}

// ---------- Clauses shared by several rule sets ----------

/// Attackers move first (modern 1, ludii 1, wtf 1, wtf-plain).
#[test]
fn std_clause1_attackers_move_first() {
    for name in STD4 {
        assert_eq!(Game::new(rules(name)).side_to_move(), Attackers, "{name}");
    }
}

/// Only the king may stop on a corner (modern 2, ludii 2, wtf 2, raven 3).
#[test]
fn all_only_the_king_stops_on_corners() {
    for name in ALL {
        let g = game(name, "a3 g6", "b1", "e5", Attackers);
        assert!(!is_legal(&g, "a3-a1"), "{name}: attacker on corner");
        assert!(is_legal(&g, "a3-a2"), "{name}");
        let g = game(name, "g6", "b1", "b7", Defenders);
        assert!(!is_legal(&g, "b1-a1"), "{name}: defender on corner");
        assert!(is_legal(&g, "b7-a7"), "{name}: king on corner");
    }
}

/// modern 2, wtf 2, wtf-plain: only the king stops on the throne, men may
/// cross it once the king has left, the king may return.
#[test]
fn modern_wtf_clause2_throne_access() {
    for name in ["modern", "wtf", "wtf-plain"] {
        let g = game(name, "d2 a6", "b4", "d6", Attackers);
        assert!(
            is_legal(&g, "d2-d5"),
            "{name}: attacker crosses empty throne"
        );
        assert!(!is_legal(&g, "d2-d4"), "{name}: attacker stops on throne");
        let g = game(name, "a6", "b4", "d6", Defenders);
        assert!(
            is_legal(&g, "b4-f4"),
            "{name}: defender crosses empty throne"
        );
        assert!(!is_legal(&g, "b4-d4"), "{name}: defender stops on throne");
        assert!(is_legal(&g, "d6-d4"), "{name}: king returns to the throne");
        // While the king sits on it, nobody passes.
        let g = game(name, "d2 a6", "b6", "d4", Attackers);
        assert!(!is_legal(&g, "d2-d5"), "{name}");
    }
}

/// ludii 2: nobody stops on the throne, so the king never returns; any
/// piece may cross it empty.
#[test]
fn ludii_clause2_throne_access() {
    let g = game("ludii", "d2 a6", "b4", "d6", Attackers);
    assert!(is_legal(&g, "d2-d5"));
    assert!(!is_legal(&g, "d2-d4"));
    let g = game("ludii", "a6", "b4", "d6", Defenders);
    assert!(is_legal(&g, "b4-f4"));
    assert!(!is_legal(&g, "d6-d4"), "the king may not return");
    assert!(is_legal(&g, "d6-d3"), "the king crosses the empty throne");
}

/// Corners hostile to men (modern 4, ludii 4, wtf 4): both sides' men are
/// captured against an empty corner.
#[test]
fn std_clause4_corners_hostile_to_men() {
    for name in STD4 {
        let mut g = game(name, "c3 g6", "b1", "e5", Attackers);
        assert_eq!(
            play(&mut g, "c3-c1"),
            ["b1"],
            "{name}: defender against corner"
        );
        let mut g = game(name, "b7 a2", "e6", "e4", Defenders);
        assert_eq!(play(&mut g, "e6-c6"), Vec::<String>::new());
        let mut g = game(name, "b7 a2", "c5", "e4", Defenders);
        assert_eq!(
            play(&mut g, "c5-c7"),
            ["b7"],
            "{name}: attacker against corner"
        );
    }
}

/// The empty throne is hostile to men (modern 4, ludii 4, wtf 4).
#[test]
fn std_clause4_empty_throne_hostile_to_men() {
    for name in STD4 {
        let mut g = game(name, "a6", "d5", "b2", Attackers);
        assert_eq!(
            play(&mut g, "a6-d6"),
            ["d5"],
            "{name}: defender against empty throne"
        );
        let mut g = game(name, "d3 g6", "a2", "b6", Defenders);
        assert_eq!(
            play(&mut g, "a2-d2"),
            ["d3"],
            "{name}: attacker against empty throne"
        );
    }
}

/// With the king on the throne an attacker is captured against it, a
/// defender is not (modern 4, ludii 4, wtf 4).
#[test]
fn std_clause4_occupied_throne() {
    for name in STD4 {
        let mut g = game(name, "d5 g6", "a6", "d4", Defenders);
        assert_eq!(
            play(&mut g, "a6-d6"),
            ["d5"],
            "{name}: attacker against the king on the throne"
        );
        let mut g = game(name, "a6", "d5", "d4", Attackers);
        assert_eq!(
            play(&mut g, "a6-d6"),
            Vec::<String>::new(),
            "{name}: defender safe beside the king"
        );
    }
}

/// The king reaching a corner wins for the defenders; his capture wins for
/// the attackers (modern 6, ludii 6, wtf 5/6, raven 7).
#[test]
fn all_escape_and_capture_end_the_game() {
    for name in ALL {
        let mut g = game(name, "g6", "c3", "b7", Defenders);
        play(&mut g, "b7-a7");
        assert_eq!(outcome(&g), Some((DefendersWin, KingEscaped)), "{name}");
        assert!(g.legal_moves().is_empty());
        assert!(matches!(g.play(mv("g6-g5")), Err(IllegalMove::GameOver)));
    }
    // Capture, by a method every rule set accepts: four attackers round the
    // king on c6, away from throne and edge.
    for name in ALL {
        let mut g = game(name, "b6 d6 c5 e7", "g2", "c6", Attackers);
        assert_eq!(play(&mut g, "e7-c7"), ["c6"], "{name}");
        assert_eq!(outcome(&g), Some((AttackersWin, KingCaptured)), "{name}");
    }
}

/// A side with no legal move at the start of its turn loses (modern 6, wtf 7,
/// wtf-plain).
#[test]
fn modern_wtf_no_legal_move_loses() {
    for name in ["modern", "wtf", "wtf-plain"] {
        let g = game(name, "a2", "a3 b2", "e6", Attackers);
        assert!(g.legal_moves().is_empty(), "{name}");
        assert_eq!(outcome(&g), Some((DefendersWin, NoLegalMoves)), "{name}");
    }
}

/// Back-and-forth moves that bring one position back a third time.
const CYCLE: [&str; 8] = [
    "b2-b3", "f6-f5", "b3-b2", "f5-f6", "b2-b3", "f6-f5", "b3-b2", "f5-f6",
];

/// The move that makes a position occur the third time loses for its
/// maker (modern 7, wtf 8, wtf-plain).
#[test]
fn modern_wtf_threefold_repetition_loses_for_mover() {
    for name in ["modern", "wtf", "wtf-plain"] {
        let mut g = game(name, "b2", "f6", "d6", Attackers);
        for (i, m) in CYCLE.iter().enumerate() {
            assert_eq!(outcome(&g), None, "{name}: ended early at ply {i}");
            play(&mut g, m);
        }
        assert_eq!(
            outcome(&g),
            Some((AttackersWin, Repetition)),
            "{name}: defenders made it"
        );
    }
}

/// No repetition rule (ludii 7, raven).
#[test]
fn ludii_raven_repetition_ignored() {
    for name in ["ludii", "raven"] {
        let mut g = game(name, "b2", "f6", "d6", Attackers);
        for _ in 0..3 {
            for m in CYCLE {
                play(&mut g, m);
            }
        }
        assert_eq!(outcome(&g), None, "{name}");
    }
}

fn with_counters(name: &str, ply: u16, quiet: u16) -> Game {
    let g = game(name, "b2 c7", "f6 c5", "d6", Attackers);
    let mut p = *g.position();
    p.set_counters(ply, quiet);
    Game::from_position(g.rules().clone(), p)
}

/// Plies without capture draw: 100 in modern (8, our reading), 160 in wtf (9).
#[test]
fn modern_wtf_quiet_ply_draw() {
    for (name, limit) in [("modern", 100u16), ("wtf", 160)] {
        let mut g = with_counters(name, 500, limit - 2);
        play(&mut g, "b2-b3");
        assert_eq!(outcome(&g), None, "{name}");
        play(&mut g, "f6-f5");
        assert_eq!(outcome(&g), Some((Draw, QuietPlyLimit)), "{name}");
        // A capture resets the count.
        let g = game(name, "b2 c7 c3", "f6 c4", "d6", Attackers);
        let mut p = *g.position();
        p.set_counters(500, limit - 1);
        let mut g = Game::from_position(g.rules().clone(), p);
        assert_eq!(play(&mut g, "c7-c5"), ["c4"], "{name}");
        assert_eq!(outcome(&g), None, "{name}");
        assert_eq!(g.position().quiet_plies(), 0);
    }
}

// ---------- modern ----------

/// modern 3: captures are custodial; the board edge is not hostile.
#[test]
fn modern_clause3_edge_not_hostile() {
    for name in ["modern", "wtf", "wtf-plain", "ludii"] {
        let mut g = game(name, "c3 g6", "d1", "b6", Attackers);
        assert_eq!(play(&mut g, "c3-d3"), Vec::<String>::new(), "{name}");
    }
}

/// modern 5: the king is captured like a man everywhere.
#[test]
fn modern_clause5_king_captured_like_a_man() {
    // Between two attackers.
    let mut g = game("modern", "b6 e7", "g2", "c6", Attackers);
    play(&mut g, "e7-d7");
    assert_eq!(outcome(&g), None, "d7 is not on the king's line");
    let mut g = game("modern", "b6 d7", "g2", "c6", Attackers);
    assert_eq!(play(&mut g, "d7-d6"), ["c6"]);
    assert_eq!(outcome(&g), Some((AttackersWin, KingCaptured)));
    // Against a corner.
    let mut g = game("modern", "c3 g6", "e5", "b1", Attackers);
    assert_eq!(play(&mut g, "c3-c1"), ["b1"]);
    // Against the empty throne.
    let mut g = game("modern", "a6", "b2", "d5", Attackers);
    assert_eq!(play(&mut g, "a6-d6"), ["d5"]);
    // On the throne, two attackers on opposite sides.
    let mut g = game("modern", "c4 e2", "a6", "d4", Attackers);
    assert_eq!(play(&mut g, "e2-e4"), ["d4"]);
    // Moving between two attackers is safe.
    let mut g = game("modern", "b6 d6", "g2", "c2", Defenders);
    play(&mut g, "c2-c6");
    assert_eq!(outcome(&g), None);
}

/// modern 9 and wtf-plain: no encirclement rule.
#[test]
fn modern_wtfplain_no_encirclement() {
    for name in ["modern", "wtf-plain", "ludii"] {
        // The ring a5 a6 b4 c4 d5 b7 c7 d6 closes round b5 c5 b6 c6.
        let mut g = game(name, "a5 a6 b4 c4 d5 b7 c7 d7", "c5", "b6", Attackers);
        play(&mut g, "d7-d6");
        assert_eq!(outcome(&g), None, "{name}");
        assert!(g.position().encircled());
    }
}

/// modern 9, wtf 10: no shieldwall — a line of men on the edge is only
/// taken custodially, one by one.
#[test]
fn modern_wtf_no_shieldwall() {
    for name in ["modern", "wtf", "wtf-plain"] {
        let mut g = game(name, "b2 c2 e3", "b1 c1", "f6", Attackers);
        assert_eq!(play(&mut g, "e3-e1").len(), 0, "{name}: d1 not reached");
    }
}

// ---------- ludii ----------

/// ludii 5: on the throne the king needs attackers on all four sides.
#[test]
fn ludii_clause5_king_on_throne_needs_four() {
    let mut g = game("ludii", "c4 e4 d5 a3", "g6", "d4", Attackers);
    play(&mut g, "a3-d3");
    assert_eq!(outcome(&g), Some((AttackersWin, KingCaptured)));
    let mut g = game("ludii", "c4 e4 a3", "g6", "d4", Attackers);
    play(&mut g, "a3-d3");
    assert_eq!(outcome(&g), None, "three are not enough");
}

/// ludii 5: beside the throne, attackers on the other three sides.
#[test]
fn ludii_clause5_king_beside_throne_needs_three() {
    let mut g = game("ludii", "c5 e5 a6", "g2", "d5", Attackers);
    assert_eq!(play(&mut g, "a6-d6"), ["d5"]);
    let mut g = game("ludii", "c5 a6", "g2", "d5", Attackers);
    play(&mut g, "a6-d6");
    assert_eq!(
        outcome(&g),
        None,
        "two attackers and the throne are not enough"
    );
    let mut g = game("ludii", "c5 g5", "b2", "d5", Attackers);
    play(&mut g, "g5-e5");
    assert_eq!(
        outcome(&g),
        None,
        "a sandwich does not take him beside the throne"
    );
}

/// ludii 5: elsewhere two attackers on a line or an attacker and a corner,
/// and only by the attackers' move.
#[test]
fn ludii_clause5_king_elsewhere() {
    let mut g = game("ludii", "b6 d7", "g2", "c6", Attackers);
    assert_eq!(play(&mut g, "d7-d6"), ["c6"]);
    let mut g = game("ludii", "c3 g6", "e5", "b1", Attackers);
    assert_eq!(play(&mut g, "c3-c1"), ["b1"]);
    let mut g = game("ludii", "b6 d6", "g2", "c2", Defenders);
    play(&mut g, "c2-c6");
    assert_eq!(outcome(&g), None, "the king may move between two attackers");
}

/// ludii 7 (our reading): a side with no move passes; two passes in a row draw.
#[test]
fn ludii_clause7_pass_and_double_pass() {
    // Attackers blocked, defenders free: the attackers pass.
    let mut g = game("ludii", "a2", "a3 b2", "e6", Attackers);
    assert_eq!(g.legal_moves().as_slice(), [Move::PASS]);
    play(&mut g, "pass");
    assert_eq!(g.side_to_move(), Defenders);
    assert!(g.legal_moves().len() > 1);
    // Both sides blocked: a board full of defenders and no attacker. The
    // attackers pass; the defenders cannot move either, so it is a draw.
    let full: Vec<String> = Square::all()
        .filter(|&sq| {
            !(Bitboard::CORNERS | Bitboard::THRONE).contains(sq) && sq.to_string() != "c3"
        })
        .map(|sq| sq.to_string())
        .collect();
    let mut g = game("ludii", "", &full.join(" "), "c3", Attackers);
    assert_eq!(g.legal_moves().as_slice(), [Move::PASS]);
    play(&mut g, "pass");
    assert_eq!(outcome(&g), Some((Draw, NoLegalMoves)));
}

/// ludii 7 (our reading): 2 500 plies draw.
#[test]
fn ludii_clause7_ply_limit_draw() {
    let mut g = with_counters("ludii", 2498, 0);
    play(&mut g, "b2-b3");
    assert_eq!(outcome(&g), None);
    play(&mut g, "f6-f5");
    assert_eq!(outcome(&g), Some((Draw, PlyLimit)));
}

// ---------- wtf and wtf-plain ----------

/// wtf 4: corners are hostile to the king too.
#[test]
fn wtf_clause4_corner_hostile_to_king() {
    for name in ["wtf", "wtf-plain"] {
        let mut g = game(name, "c3 g6", "e5", "b1", Attackers);
        assert_eq!(play(&mut g, "c3-c1"), ["b1"], "{name}");
    }
}

/// wtf 4: the throne is never hostile to the king, hostile to defenders
/// only when empty, always hostile to attackers.
#[test]
fn wtf_clause4_throne_hostility() {
    for name in ["wtf", "wtf-plain"] {
        let mut g = game(name, "a6", "b2", "d5", Attackers);
        assert_eq!(
            play(&mut g, "a6-d6"),
            Vec::<String>::new(),
            "{name}: king not captured against the throne"
        );
        let mut g = game(name, "a6", "d5", "b2", Attackers);
        assert_eq!(play(&mut g, "a6-d6"), ["d5"], "{name}");
        let mut g = game(name, "a6", "d5", "d4", Attackers);
        assert_eq!(play(&mut g, "a6-d6"), Vec::<String>::new(), "{name}");
        let mut g = game(name, "d3 g6", "a2", "b6", Defenders);
        assert_eq!(play(&mut g, "a2-d2"), ["d3"], "{name}");
    }
}

/// wtf 5: four attackers on the throne; two anywhere else, beside the
/// throne included.
#[test]
fn wtf_clause5_king_capture() {
    for name in ["wtf", "wtf-plain"] {
        let mut g = game(name, "c4 e4 d5 a3", "g6", "d4", Attackers);
        play(&mut g, "a3-d3");
        assert_eq!(outcome(&g), Some((AttackersWin, KingCaptured)), "{name}");
        let mut g2 = game(name, "c4 e2", "g6", "d4", Attackers);
        play(&mut g2, "e2-e4");
        assert_eq!(
            outcome(&g2),
            None,
            "{name}: two do not take him on the throne"
        );
        let mut g = game(name, "c5 g5", "b2", "d5", Attackers);
        assert_eq!(
            play(&mut g, "g5-e5"),
            ["d5"],
            "{name}: two beside the throne"
        );
    }
}

/// wtf 6: encirclement wins for the attackers; a ring leaning on the edge
/// does not count, and only the attackers' move closes it.
#[test]
fn wtf_clause6_encirclement() {
    let mut g = game("wtf", "a3 b4 b2 c4 c2 d7", "c3", "b3", Attackers);
    assert_eq!(play(&mut g, "d7-d3"), Vec::<String>::new());
    assert_eq!(outcome(&g), Some((AttackersWin, Encirclement)));
    // Same ring, but a defender stands on the edge: no win.
    let mut g = game("wtf", "a3 b4 b2 c4 c2 d7", "c3 g5", "b3", Attackers);
    play(&mut g, "d7-d3");
    assert_eq!(outcome(&g), None);
    // A ring against the edge does not count: a man on the edge is free.
    let mut g = game("wtf", "a3 c4 a6", "a4", "g3", Attackers);
    play(&mut g, "c4-b4");
    assert_eq!(outcome(&g), None, "a man on the edge is never encircled");
}

/// wtf-plain: no draw after quiet plies.
#[test]
fn wtfplain_no_quiet_draw() {
    let mut g = with_counters("wtf-plain", 1000, 500);
    play(&mut g, "b2-b3");
    assert_eq!(outcome(&g), None);
}

// ---------- raven ----------

/// raven 1 (our reading of the squares) and 2: white moves first.
#[test]
fn raven_clause1_2_setup_and_first_move() {
    let g = Game::new(rules("raven"));
    let b = g.position().board();
    assert_eq!(b.attackers, squares("c1 d1 e1 a3 a4 a5 g3 g4 g5 c7 d7 e7"));
    assert_eq!(b.defenders, squares("d3 c4 e4 d5"));
    assert_eq!(b.king, squares("d4"));
    assert_eq!(g.side_to_move(), Defenders);
}

/// raven 3: only the High King crosses or stops on the centre.
#[test]
fn raven_clause3_centre_for_the_high_king_only() {
    let g = game("raven", "a6", "d2", "b6", Defenders);
    assert!(
        !is_legal(&g, "d2-d6"),
        "a lesser king may not cross the centre"
    );
    assert!(!is_legal(&g, "d2-d4"));
    let g = game("raven", "d2 g6", "a2", "b4", Attackers);
    assert!(!is_legal(&g, "d2-d6"), "a raven may not cross");
    let g = game("raven", "g6", "a2", "b4", Defenders);
    assert!(is_legal(&g, "b4-f4"), "the High King crosses");
    assert!(is_legal(&g, "b4-d4"), "and stops there");
}

/// raven 4: no square is hostile; the High King captures with a lesser king.
#[test]
fn raven_clause4_captures() {
    let mut g = game("raven", "c3 g6", "b1", "e5", Attackers);
    assert_eq!(
        play(&mut g, "c3-c1"),
        Vec::<String>::new(),
        "corner not hostile"
    );
    let mut g = game("raven", "a6", "d5", "b2", Attackers);
    assert_eq!(
        play(&mut g, "a6-d6"),
        Vec::<String>::new(),
        "centre not hostile"
    );
    let mut g = game("raven", "c6 g2", "b6", "e6", Defenders);
    assert_eq!(play(&mut g, "e6-d6"), ["c6"], "High King as hammer");
    let mut g = game("raven", "c6 g2", "d7", "b6", Defenders);
    assert_eq!(play(&mut g, "d7-d6"), ["c6"], "High King as anvil");
    let mut g = game("raven", "e1 c3 g3 e5", "d3 f3 e4", "b6", Attackers);
    assert_eq!(play(&mut g, "e1-e3"), ["d3", "e4", "f3"], "several at once");
}

/// raven 5: four ravens take the High King; never on an edge or beside the centre.
#[test]
fn raven_clause5_high_king_capture() {
    let mut g = game("raven", "b6 d7", "g2", "c6", Attackers);
    play(&mut g, "d7-d6");
    assert_eq!(outcome(&g), None, "two are not enough");
    let mut g = game("raven", "b6 d6 c5 e7", "g2", "c6", Attackers);
    play(&mut g, "e7-c7");
    assert_eq!(outcome(&g), Some((AttackersWin, KingCaptured)));
    let mut g = game("raven", "a2 b3 c4", "g2", "a3", Attackers);
    play(&mut g, "c4-a4");
    assert_eq!(outcome(&g), None, "not on the edge");
    let mut g = game("raven", "c5 e5 a6", "g2", "d5", Attackers);
    play(&mut g, "a6-d6");
    assert_eq!(outcome(&g), None, "not beside the centre");
}

/// raven 6 (our reading): white without a move passes, then the ravens
/// must move one beside the High King if one can.
#[test]
fn raven_clause6_edge_rule() {
    let mut g = game("raven", "a3 a5 b4 f6", "", "a4", Defenders);
    assert_eq!(g.legal_moves().as_slice(), [Move::PASS]);
    play(&mut g, "pass");
    assert!(g.position().edge_duty());
    let movers: std::collections::BTreeSet<String> =
        g.legal_moves().iter().map(|m| m.from.to_string()).collect();
    assert_eq!(movers.into_iter().collect::<Vec<_>>(), ["a3", "a5", "b4"]);
    assert!(matches!(g.play(mv("f6-f5")), Err(IllegalMove::EdgeRule)));
    play(&mut g, "b4-c4");
    assert!(!g.position().edge_duty());
    // When no raven beside him can move, any raven may.
    let mut g = game("raven", "a3 a5 b4 a2 a6 b3 b5 c4", "", "a4", Defenders);
    play(&mut g, "pass");
    assert!(!g.legal_moves().is_empty());
    assert!(g
        .legal_moves()
        .iter()
        .all(|m| !["a3", "a5", "b4"].contains(&m.from.to_string().as_str())));
    assert!(is_legal(&g, "a2-b2"));
}

/// raven 8 (our reading): after 200 plies with the High King on the board, white wins.
#[test]
fn raven_clause8_white_wins_at_200() {
    let mut g = with_counters("raven", 198, 0);
    play(&mut g, "b2-b3");
    assert_eq!(outcome(&g), None);
    play(&mut g, "f6-f5");
    assert_eq!(outcome(&g), Some((DefendersWin, PlyLimit)));
}

/// A king move onto an open edge between two corners is a fork the
/// attackers cannot stop; a king with no edge in reach has none.
#[test]
fn escape_fork_finds_a_double_threat_and_only_one() {
    let g = game("wtf", "c7 e7", "", "d4", Defenders);
    let f = g
        .position()
        .escape_fork(g.rules(), &[])
        .expect("d4 has forks on three edges");
    assert_eq!(f.from.to_string(), "d4");
    // Walled in one step from every edge: no fork.
    let g = game("wtf", "d2 b4 f4 d6", "", "d4", Defenders);
    assert_eq!(g.position().escape_fork(g.rules(), &[]), None);
    // Not the defenders' move: none.
    let g = game("wtf", "c7 e7", "", "d4", Attackers);
    assert_eq!(g.position().escape_fork(g.rules(), &[]), None);
}
