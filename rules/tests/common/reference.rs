//! A slow, obviously-correct reference implementation of the rules,
//! written square by square from RULESETS.md and the option meanings, with
//! none of the engine's bitboard tricks. The property tests check the
//! engine against it.

use brandubh_rules::ruleset::{KingCapture, NoMoves, Repetition, Who};
use brandubh_rules::*;

fn who(w: Who, role: Role) -> bool {
    match w {
        Who::Nobody => false,
        Who::King => role == Role::King,
        Who::Everyone => true,
    }
}

fn is_corner(sq: Square) -> bool {
    matches!(sq.to_string().as_str(), "a1" | "g1" | "a7" | "g7")
}

fn is_throne(sq: Square) -> bool {
    sq.to_string() == "d4"
}

pub struct RefPos {
    pub board: Board,
    pub side: Side,
    pub passes: u32,
    pub edge_duty: bool,
    pub quiet: u32,
    pub ply: u32,
}

impl RefPos {
    pub fn of(p: &Position) -> RefPos {
        RefPos {
            board: *p.board(),
            side: p.side_to_move(),
            passes: p.passes(),
            edge_duty: p.edge_duty(),
            quiet: p.quiet_plies(),
            ply: p.plies(),
        }
    }
}

pub fn moves(r: &RuleSet, p: &RefPos) -> Vec<Move> {
    let o = &r.options;
    let mut out = Vec::new();
    for from in Square::all() {
        let Some(role) = p.board.role_at(from) else {
            continue;
        };
        if role.side() != p.side {
            continue;
        }
        for dir in Direction::ALL {
            let mut s = from;
            while let Some(n) = s.step(dir) {
                if p.board.role_at(n).is_some() {
                    break;
                }
                if is_throne(n) {
                    if who(o.throne.stop, role) {
                        out.push(Move::new(from, n));
                    }
                    if !who(o.throne.pass, role) {
                        break;
                    }
                } else if is_corner(n) {
                    if who(o.corners.stop, role) {
                        out.push(Move::new(from, n));
                    }
                } else {
                    out.push(Move::new(from, n));
                }
                s = n;
            }
        }
    }
    if p.side == Side::Attackers && p.edge_duty {
        let king = p.board.king_square();
        let near: Vec<Move> = out
            .iter()
            .copied()
            .filter(|m| {
                king.is_some_and(|k| Direction::ALL.iter().any(|&d| m.from.step(d) == Some(k)))
            })
            .collect();
        if !near.is_empty() {
            out = near;
        }
    }
    if out.is_empty() && o.end.no_legal_moves == NoMoves::Pass && p.passes == 0 {
        out.push(Move::PASS);
    }
    out
}

/// Whether `sq` (empty) is hostile to a piece of `victim` role.
fn hostile_square(r: &RuleSet, b: &Board, sq: Square, victim: Role) -> bool {
    let h = &r.options.hostile;
    if is_corner(sq) && b.role_at(sq).is_none() {
        return h.corners.contains(&victim);
    }
    if is_throne(sq) {
        return match b.role_at(sq) {
            None => h.empty_throne.contains(&victim),
            Some(Role::King) => h.occupied_throne.contains(&victim),
            Some(_) => false,
        };
    }
    false
}

/// Makes `m`; returns the new position and the captured squares.
pub fn play(r: &RuleSet, p: &RefPos, m: Move) -> (RefPos, Vec<Square>) {
    let o = &r.options;
    let mut b = p.board;
    let mut next = RefPos {
        board: b,
        side: p.side.other(),
        passes: 0,
        edge_duty: false,
        quiet: p.quiet + 1,
        ply: p.ply + 1,
    };
    if m.is_pass() {
        next.passes = p.passes + 1;
        next.edge_duty = o.end.edge_rule && p.side == Side::Defenders;
        return (next, vec![]);
    }
    let role = b.role_at(m.from).unwrap();
    for set in [&mut b.attackers, &mut b.defenders, &mut b.king] {
        if set.contains(m.from) {
            set.clear(m.from);
            set.set(m.to);
        }
    }
    let mut captured = Vec::new();
    if role != Role::King || o.king.hammer {
        for dir in Direction::ALL {
            let Some(n) = m.to.step(dir) else { continue };
            let victim = b.role_at(n);
            let is_victim = match p.side {
                Side::Attackers => victim == Some(Role::Defenders),
                Side::Defenders => victim == Some(Role::Attackers),
            };
            if !is_victim {
                continue;
            }
            let Some(far) = n.step(dir) else { continue };
            let own = match (p.side, b.role_at(far)) {
                (Side::Attackers, Some(Role::Attackers)) => true,
                (Side::Defenders, Some(Role::Defenders)) => true,
                (Side::Defenders, Some(Role::King)) => o.king.anvil,
                _ => false,
            };
            let anvil = own || hostile_square(r, &b, far, victim.unwrap());
            if anvil {
                captured.push(n);
            }
        }
        for &sq in &captured {
            b.attackers.clear(sq);
            b.defenders.clear(sq);
        }
    }
    if p.side == Side::Attackers {
        if let Some(k) = b.king_square() {
            if let Some(dir) = Direction::ALL
                .into_iter()
                .find(|&d| m.to.step(d) == Some(k))
            {
                let on_throne = is_throne(k);
                let beside = Direction::ALL
                    .iter()
                    .any(|&d| k.step(d).is_some_and(is_throne));
                let method = if on_throne {
                    o.king.capture_on_throne
                } else if beside {
                    o.king.capture_beside_throne
                } else {
                    o.king.capture_elsewhere
                };
                let closes = |sq: Option<Square>| match sq {
                    None => false,
                    Some(s) => {
                        b.role_at(s) == Some(Role::Attackers)
                            || (b.role_at(s).is_none() && hostile_square(r, &b, s, Role::King))
                    }
                };
                let taken = match method {
                    KingCapture::Sandwich => closes(k.step(dir)),
                    KingCapture::Surround => Direction::ALL.iter().all(|&d| closes(k.step(d))),
                };
                if taken {
                    b.king.clear(k);
                    captured.push(k);
                }
            }
        }
    }
    if !captured.is_empty() {
        next.quiet = 0;
    }
    captured.sort();
    next.board = b;
    (next, captured)
}

fn encircled(b: &Board) -> bool {
    let mut seen = [false; 49];
    let mut stack: Vec<Square> = Square::all()
        .filter(|&s| matches!(b.role_at(s), Some(Role::Defenders | Role::King)))
        .collect();
    if stack.is_empty() {
        return false;
    }
    while let Some(s) = stack.pop() {
        if seen[s.index()] {
            continue;
        }
        seen[s.index()] = true;
        if s.file() == 0 || s.file() == 6 || s.rank() == 0 || s.rank() == 6 {
            return false;
        }
        for d in Direction::ALL {
            if let Some(n) = s.step(d) {
                if b.role_at(n) != Some(Role::Attackers) {
                    stack.push(n);
                }
            }
        }
    }
    true
}

/// The outcome of `p`, given the boards-and-sides seen before it.
pub fn outcome(
    r: &RuleSet,
    p: &RefPos,
    history: &[(Board, Side)],
) -> Option<(GameResult, EndReason)> {
    let e = &r.options.end;
    let mover = p.side.other();
    let Some(k) = p.board.king_square() else {
        return Some((GameResult::AttackersWin, EndReason::KingCaptured));
    };
    if is_corner(k) {
        return Some((GameResult::DefendersWin, EndReason::KingEscaped));
    }
    if e.encirclement && mover == Side::Attackers && encircled(&p.board) {
        return Some((GameResult::AttackersWin, EndReason::Encirclement));
    }
    if e.repetition != Repetition::Ignore {
        let seen = history
            .iter()
            .filter(|(b, s)| *b == p.board && *s == p.side)
            .count() as u32;
        if seen + 1 >= e.repetition_count as u32 {
            let res = if e.repetition == Repetition::Draw {
                GameResult::Draw
            } else {
                GameResult::win_for(p.side)
            };
            return Some((res, EndReason::Repetition));
        }
    }
    if e.quiet_ply_limit > 0 && p.quiet >= e.quiet_ply_limit {
        return Some((GameResult::Draw, EndReason::QuietPlyLimit));
    }
    if e.ply_limit > 0 && p.ply >= e.ply_limit {
        return Some((e.ply_limit_outcome, EndReason::PlyLimit));
    }
    if moves(r, p).is_empty() {
        let res = match e.no_legal_moves {
            NoMoves::Lose => GameResult::win_for(mover),
            NoMoves::Pass => GameResult::Draw,
        };
        return Some((res, EndReason::NoLegalMoves));
    }
    None
}

/// Perft on the reference implementation.
pub fn perft(r: &RuleSet, p: &RefPos, depth: u32, history: &mut Vec<(Board, Side)>) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut n = 0;
    history.push((p.board, p.side));
    for m in moves(r, p) {
        let (c, _) = play(r, p, m);
        if depth == 1 {
            n += 1;
        } else if outcome(r, &c, history).is_none() {
            n += perft(r, &c, depth - 1, history);
        }
    }
    history.pop();
    n
}
