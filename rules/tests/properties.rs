//! Property tests over random games in every rule set: the engine agrees
//! with the slow reference implementation on moves, captures and outcomes;
//! the incremental hash equals the hash from scratch; no man stands where
//! it may not; piece counts only fall; notation round-trips.

mod common;
#[path = "common/reference.rs"]
mod reference;

use brandubh_rules::*;
use common::*;
use proptest::prelude::*;

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = splitmix64(self.0);
        (self.0 % n as u64) as usize
    }
}

/// Plays a random game, checking every invariant at every ply.
fn check_random_game(name: &str, seed: u64, max_plies: usize) {
    let r = rules(name);
    let mut rng = Rng(seed);
    let mut g = Game::new(r.clone());
    let mut ref_history: Vec<(Board, Side)> = Vec::new();
    let mut refpos = reference::RefPos::of(g.position());
    for ply in 0..max_plies {
        let pos = *g.position();
        let ctx = format!("{name} seed {seed} ply {ply} {}", pos.board().to_record());
        // Hash from scratch.
        assert_eq!(pos.hash(), pos.compute_hash(&r), "{ctx}: incremental hash");
        // Same board and counters as the reference.
        assert_eq!(*pos.board(), refpos.board, "{ctx}: boards differ");
        // No man on a square it may never stop on.
        let b = pos.board();
        for (role, set) in [
            (Role::Attackers, b.attackers),
            (Role::Defenders, b.defenders),
        ] {
            let special = Bitboard::CORNERS | Bitboard::THRONE;
            for sq in set & special {
                let allowed = if Bitboard::CORNERS.contains(sq) {
                    r.options.corners.stop
                } else {
                    r.options.throne.stop
                };
                assert!(allowed.allows(role), "{ctx}: {role:?} on {sq}");
            }
        }
        // Outcome agrees.
        let expected = reference::outcome(&r, &refpos, &ref_history);
        let got = g.outcome().map(|o| (o.result, o.reason));
        assert_eq!(got, expected, "{ctx}: outcome");
        if got.is_some() {
            return;
        }
        // Move lists agree (as sets), and count_moves matches.
        let mut fast: Vec<Move> = g.legal_moves().iter().copied().collect();
        let mut slow = reference::moves(&r, &refpos);
        let key = |m: &Move| (m.from, m.to);
        fast.sort_by_key(key);
        slow.sort_by_key(key);
        assert_eq!(fast, slow, "{ctx}: move lists");
        assert_eq!(
            pos.count_moves(&r) as usize,
            fast.len(),
            "{ctx}: count_moves"
        );
        // winning_move finds a king escape or king capture exactly when
        // one of the legal moves is one, and what it returns is one.
        let wins_on_the_spot = |mv: Move| {
            let (next, _) = pos.play(&r, mv);
            matches!(
                next.after_move_outcome(&r, &[]).map(|o| o.reason),
                Some(EndReason::KingEscaped | EndReason::KingCaptured)
            )
        };
        match pos.winning_move(&r) {
            Some(w) => assert!(fast.contains(&w) && wins_on_the_spot(w), "{ctx}: {w}"),
            None => assert!(
                !fast.iter().any(|&m| wins_on_the_spot(m)),
                "{ctx}: a win in one was missed"
            ),
        }
        // A king fork escape_fork finds wins by force: every attacker reply
        // leaves a king move onto a corner (or loses at once).
        if let Some(f) = pos.escape_fork(&r, &[]) {
            assert!(fast.contains(&f) && b.king.contains(f.from), "{ctx}: {f}");
            let (child, _) = pos.play(&r, f);
            assert!(child.after_move_outcome(&r, &[pos.hash()]).is_none());
            let mut replies = MoveList::new();
            child.legal_moves(&r, &mut replies);
            for &rep in replies.iter() {
                let (next, _) = child.play(&r, rep);
                let end = next.after_move_outcome(&r, &[pos.hash(), child.hash()]);
                assert!(
                    match end {
                        Some(o) => o.result == GameResult::DefendersWin,
                        None => next.winning_move(&r).is_some(),
                    },
                    "{ctx}: fork {f} is stopped by {rep}"
                );
            }
        }
        // Play a random move in both; captures agree; counts only fall.
        let m = fast[rng.below(fast.len())];
        let before = (b.attackers.count(), b.defenders.count(), b.king.count());
        let captured = g.play(m).unwrap();
        let (next_ref, ref_caps) = reference::play(&r, &refpos, m);
        let mut caps: Vec<Square> = captured.collect();
        caps.sort();
        assert_eq!(caps, ref_caps, "{ctx}: captures of {m}");
        ref_history.push((refpos.board, refpos.side));
        refpos = next_ref;
        let a = g.position().board();
        assert!(
            a.attackers.count() <= before.0
                && a.defenders.count() <= before.1
                && a.king.count() <= before.2
        );
        assert_eq!(
            before.0 + before.1 + before.2 - caps.len() as u32,
            a.occupied().count(),
            "{ctx}"
        );
        // The move record round-trips and replays.
        let rec = g.plies().last().unwrap().record();
        let parsed: MoveRecord = rec.to_string().parse().unwrap();
        assert_eq!(parsed.mv, rec.mv, "{ctx}");
        assert_eq!(parsed.to_string(), rec.to_string(), "{ctx}");
        // The board record round-trips.
        assert_eq!(Board::from_record(&a.to_record()).unwrap(), *a);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_games_agree_with_reference(seed in any::<u64>(), which in 0usize..5) {
        check_random_game(ALL[which], seed, 400);
    }

    #[test]
    fn board_parser_never_panics(s in "\\PC{0,80}") {
        let _ = Board::from_record(&s);
    }

    #[test]
    fn board_parser_never_panics_on_near_records(s in "/[tTK1-8xk/]{0,60}/") {
        if let Ok(b) = Board::from_record(&s) {
            prop_assert_eq!(Board::from_record(&b.to_record()).unwrap(), b);
        }
    }

    #[test]
    fn move_parser_never_panics(s in "\\PC{0,30}") {
        let _ = s.parse::<MoveRecord>();
    }

    #[test]
    fn move_parser_near_moves(s in "[KTt]?[a-h][0-9]-[a-h][0-9](x[a-h][0-9](/[a-h][0-9]){0,3})?[+-]{0,2}") {
        if let Ok(m) = s.parse::<MoveRecord>() {
            let again: MoveRecord = m.to_string().parse().unwrap();
            prop_assert_eq!(again, m);
        }
    }

    #[test]
    fn rules_parser_never_panics(s in "\\PC{0,200}") {
        let _ = RuleSet::from_toml(&s, "fuzz.toml");
    }

    #[test]
    fn rules_parser_survives_mutated_files(which in 0usize..5, at in any::<prop::sample::Index>(), junk in "\\PC{0,6}") {
        let text = BUILTIN[which].1;
        let mut cut = at.index(text.len());
        while !text.is_char_boundary(cut) { cut -= 1; }
        let mutated = format!("{}{}{}", &text[..cut], junk, &text[cut..]);
        let _ = RuleSet::from_toml(&mutated, "mutated.toml");
    }
}

#[test]
fn reference_perft_matches_engine() {
    for name in ALL {
        let r = rules(name);
        let start = Position::start(&r);
        let refpos = reference::RefPos::of(&start);
        for depth in 1..=3 {
            let slow = reference::perft(&r, &refpos, depth, &mut Vec::new());
            assert_eq!(perft(&r, &start, depth), slow, "{name} depth {depth}");
        }
    }
}

#[test]
fn long_random_games_in_every_rule_set() {
    for name in ALL {
        for seed in 0..20 {
            check_random_game(name, seed * 7919 + 1, 3000);
        }
    }
}

/// The image of every legal move is legal in the image position, under
/// all eight symmetries, along random games; perft is invariant too.
#[test]
fn symmetries_commute_with_move_generation() {
    for name in ALL {
        let r = rules(name);
        let mut rng = Rng(17);
        let mut g = Game::new(r.clone());
        while !g.is_over() && g.plies().len() < 60 {
            let pos = *g.position();
            let mut fast: Vec<Move> = g.legal_moves().iter().copied().collect();
            fast.sort_by_key(|m| (m.from, m.to));
            for s in Symmetry::ALL {
                let img =
                    Position::from_board(&r, s.board(pos.board()), pos.side_to_move()).unwrap();
                let mut list = MoveList::new();
                img.legal_moves(&r, &mut list);
                let mut mapped: Vec<Move> = list.iter().map(|&m| s.inverse().mv(m)).collect();
                mapped.sort_by_key(|m| (m.from, m.to));
                assert_eq!(mapped, fast, "{name} symmetry {s:?}");
                for &m in &fast {
                    if let Some(i) = m.policy_index() {
                        assert_eq!(s.policy_index(i), s.mv(m).policy_index());
                    }
                }
            }
            let m = fast[rng.below(fast.len())];
            g.play(m).unwrap();
        }
        let start = Position::start(&r);
        for s in Symmetry::ALL {
            let img =
                Position::from_board(&r, s.board(start.board()), start.side_to_move()).unwrap();
            assert_eq!(perft(&r, &img, 3), perft(&r, &start, 3), "{name} {s:?}");
        }
    }
}
