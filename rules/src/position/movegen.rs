//! Move generation: sliding moves over bitboard rays, who may move
//! where, and the legality of one move.

use super::Position;
use crate::bitboard::Bitboard;
use crate::moves::{Move, MoveList};
use crate::outcome::GameResult;
use crate::role::Role;
use crate::ruleset::{NoMoves, RuleSet};
use crate::square::{Direction, Square};
use crate::zobrist::SIDE_KEY;
use crate::Side;

pub(crate) const fn make_rays() -> [[u64; 49]; 4] {
    let mut rays = [[0u64; 49]; 4];
    let dirs = [
        Direction::North,
        Direction::East,
        Direction::South,
        Direction::West,
    ];
    let mut d = 0;
    while d < 4 {
        let mut s = 0;
        while s < 49 {
            let mut bb = 0u64;
            let mut cur = Square::from_index(s as u8);
            while let Some(next) = cur.step(dirs[d]) {
                bb |= 1 << next.index();
                cur = next;
            }
            rays[d][s] = bb;
            s += 1;
        }
        d += 1;
    }
    rays
}

/// Squares strictly beyond each square in each direction, to the edge.
pub(crate) static RAYS: [[u64; 49]; 4] = make_rays();

/// Squares a rook on `sq` reaches over empty squares, blockers excluded.
#[inline(always)]
pub(crate) fn rook_reach(sq: usize, occ: u64) -> u64 {
    let mut reach = 0;
    // North and East: the nearest blocker is the lowest set bit.
    for d in [0usize, 1] {
        let ray = RAYS[d][sq];
        let blockers = ray & occ;
        reach |= if blockers == 0 {
            ray
        } else {
            let b = blockers.trailing_zeros() as usize;
            ray & !RAYS[d][b] & !(1u64 << b)
        };
    }
    // South and West: the nearest blocker is the highest set bit.
    for d in [2usize, 3] {
        let ray = RAYS[d][sq];
        let blockers = ray & occ;
        reach |= if blockers == 0 {
            ray
        } else {
            let b = 63 - blockers.leading_zeros() as usize;
            ray & !RAYS[d][b] & !(1u64 << b)
        };
    }
    reach
}

impl Position {
    /// The squares `role` standing on `from` may move to.
    #[inline(always)]
    pub(crate) fn targets(
        &self,
        rules: &RuleSet,
        role: Role,
        from: Square,
        occ: Bitboard,
    ) -> Bitboard {
        let r = role.index();
        let throne_empty = !occ.contains(Square::THRONE);
        let mut blockers = occ.0;
        if !rules.pass_throne[r] {
            blockers |= Bitboard::THRONE.0;
        }
        let mut reach = rook_reach(from.index(), blockers);
        if !rules.pass_throne[r] && throne_empty && rules.stop_mask[r].contains(Square::THRONE) {
            // May stop on the throne without crossing it.
            reach |= rook_reach(from.index(), occ.0) & Bitboard::THRONE.0;
        }
        Bitboard(reach) & rules.stop_mask[r]
    }

    /// The pieces that may move this turn, by role (the raven edge rule
    /// narrows the attackers' choice).
    #[inline(always)]
    pub(crate) fn movers(&self, rules: &RuleSet) -> [(Role, Bitboard); 2] {
        match self.side {
            Side::Attackers => {
                let mut pieces = self.board.attackers;
                if self.edge_duty {
                    let near = pieces & self.board.king.neighbours();
                    let occ = self.board.occupied();
                    if near
                        .into_iter()
                        .any(|sq| self.targets(rules, Role::Attackers, sq, occ).nonempty())
                    {
                        pieces = near;
                    }
                }
                [(Role::Attackers, pieces), (Role::King, Bitboard::EMPTY)]
            }
            Side::Defenders => [
                (Role::Defenders, self.board.defenders),
                (Role::King, self.board.king),
            ],
        }
    }

    /// Every legal move of the side to move. Empty when it has none and
    /// must lose, or when a second pass in a row would end the game.
    pub fn legal_moves(&self, rules: &RuleSet, out: &mut MoveList) {
        out.clear();
        let occ = self.board.occupied();
        for (role, pieces) in self.movers(rules) {
            for from in pieces {
                for to in self.targets(rules, role, from, occ) {
                    out.push(Move::new(from, to));
                }
            }
        }
        if out.is_empty() && self.may_pass(rules) {
            out.push(Move::PASS);
        }
    }

    /// The legal moves that end on a square of `mask` (never the pass):
    /// cheap threat detection for search.
    pub fn legal_moves_into(&self, rules: &RuleSet, mask: Bitboard, out: &mut MoveList) {
        out.clear();
        let occ = self.board.occupied();
        for (role, pieces) in self.movers(rules) {
            for from in pieces {
                for to in self.targets(rules, role, from, occ) & mask {
                    out.push(Move::new(from, to));
                }
            }
        }
    }

    /// A move that wins on the spot for the side to move: the king onto a
    /// corner, or a move that captures the king. Sound but not complete
    /// (a win by encirclement or by leaving the opponent without moves is
    /// not looked for); cheap, since only moves onto corners or next to the
    /// king are generated.
    pub fn winning_move(&self, rules: &RuleSet) -> Option<Move> {
        let mut moves = MoveList::new();
        let b = &self.board;
        match self.side {
            Side::Defenders => {
                self.legal_moves_into(rules, Bitboard::CORNERS, &mut moves);
                moves.iter().copied().find(|m| b.king.contains(m.from))
            }
            Side::Attackers => {
                if b.king.is_empty() {
                    return None;
                }
                self.legal_moves_into(rules, b.king.neighbours(), &mut moves);
                moves
                    .iter()
                    .copied()
                    .find(|&m| self.play(rules, m).0.board().king.is_empty())
            }
        }
    }

    /// A king move after which the attackers cannot stop the king reaching
    /// a corner next turn: every attacker reply leaves a king move onto a
    /// corner, or loses at once. For the defenders to move; `history` as
    /// for `after_move_outcome` (the positions before this one). Only king
    /// moves are tried and repetition is judged on the first two plies,
    /// so a move it finds is a forced win in three plies, but not every
    /// such win is found.
    pub fn escape_fork(&self, rules: &RuleSet, history: &[u64]) -> Option<Move> {
        if self.side != Side::Defenders || self.board.king.is_empty() {
            return None;
        }
        let mut moves = MoveList::new();
        self.legal_moves(rules, &mut moves);
        let king = self.board.king;
        let mut hist: Option<Vec<u64>> = None;
        let mut replies = MoveList::new();
        for &km in moves.iter().filter(|m| king.contains(m.from)) {
            let (child, _) = self.play(rules, km);
            // Only a move that threatens a corner can be a fork.
            if child.null_move().winning_move(rules).is_none() {
                continue;
            }
            let hist = hist.get_or_insert_with(|| {
                let mut h = history.to_vec();
                h.push(self.hash());
                h
            });
            if child.after_move_outcome(rules, hist).is_some() {
                continue;
            }
            hist.push(child.hash());
            child.legal_moves(rules, &mut replies);
            let held = if replies.is_empty() {
                child.no_moves_outcome(rules).result != GameResult::DefendersWin
            } else {
                replies.iter().any(|&r| {
                    let (g, _) = child.play(rules, r);
                    match g.after_move_outcome(rules, hist) {
                        Some(o) => o.result != GameResult::DefendersWin,
                        None => g.winning_move(rules).is_none(),
                    }
                })
            };
            hist.pop();
            if !held {
                return Some(km);
            }
        }
        None
    }

    pub(crate) fn may_pass(&self, rules: &RuleSet) -> bool {
        rules.options.end.no_legal_moves == NoMoves::Pass && self.passes == 0
    }

    /// The number of legal moves, without listing them (perft's last ply).
    pub fn count_moves(&self, rules: &RuleSet) -> u64 {
        let occ = self.board.occupied();
        let mut n = 0u64;
        for (role, pieces) in self.movers(rules) {
            for from in pieces {
                n += self.targets(rules, role, from, occ).count() as u64;
            }
        }
        if n == 0 && self.may_pass(rules) {
            1
        } else {
            n
        }
    }

    /// The same board with the other side to move (a "null move"), for
    /// search heuristics that ask what the opponent threatens. Counters are
    /// kept; the raven edge duty is dropped.
    pub fn null_move(&self) -> Position {
        let mut p = *self;
        p.side = self.side.other();
        p.hash ^= SIDE_KEY;
        p.edge_duty = false;
        p
    }

    /// Whether `mv` is legal here.
    pub fn is_legal(&self, rules: &RuleSet, mv: Move) -> bool {
        let mut list = MoveList::new();
        self.legal_moves(rules, &mut list);
        list.contains(&mv)
    }
}
