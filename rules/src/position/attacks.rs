//! Making a move: custodial captures, the king's capture, and the
//! encirclement check.

use super::Position;
use crate::bitboard::Bitboard;
use crate::moves::Move;
use crate::role::Role;
use crate::ruleset::{KingCapture, RuleSet};
use crate::square::{Direction, Square};
use crate::zobrist::{piece_key, SIDE_KEY};
use crate::Side;

impl Position {
    /// Squares that help capture a piece of `victim` role: the far piece
    /// of the mover's side or a hostile empty square.
    #[inline(always)]
    pub(crate) fn hostile_squares(&self, rules: &RuleSet, victim: Role, occ: Bitboard) -> Bitboard {
        let v = victim.index();
        let mut h = Bitboard::EMPTY;
        if rules.hostile_corner[v] {
            h |= Bitboard::CORNERS & !occ;
        }
        if !occ.contains(Square::THRONE) {
            if rules.hostile_empty_throne[v] {
                h |= Bitboard::THRONE;
            }
        } else if self.board.king.contains(Square::THRONE) && rules.hostile_occupied_throne[v] {
            h |= Bitboard::THRONE;
        }
        h
    }

    /// Makes a legal move; returns the new position and every square
    /// emptied by captures (the king's included). The move is not checked.
    #[inline]
    pub fn play(&self, rules: &RuleSet, mv: Move) -> (Position, Bitboard) {
        let mut next = *self;
        next.ply = self.ply.saturating_add(1);
        next.side = self.side.other();
        next.hash ^= SIDE_KEY;
        next.edge_duty = false;
        if mv.is_pass() {
            next.passes = self.passes.saturating_add(1);
            next.quiet = self.quiet.saturating_add(1);
            next.edge_duty = rules.options.end.edge_rule && self.side == Side::Defenders;
            return (next, Bitboard::EMPTY);
        }
        next.passes = 0;
        let role = self
            .board
            .role_at(mv.from)
            .expect("a piece on the from-square");
        let from_to = Bitboard::from_square(mv.from) | Bitboard::from_square(mv.to);
        *next.board.pieces_mut(role) ^= from_to;
        next.hash ^= piece_key(role, mv.from) ^ piece_key(role, mv.to);

        let occ = next.board.occupied();
        let to = Bitboard::from_square(mv.to);
        let mut captured = Bitboard::EMPTY;
        let opts = &rules.options;
        if role != Role::King || opts.king.hammer {
            let (victim_role, victims, mut anvil) = match self.side {
                Side::Attackers => (Role::Defenders, next.board.defenders, next.board.attackers),
                Side::Defenders => {
                    let mut a = next.board.defenders;
                    if opts.king.anvil {
                        a |= next.board.king;
                    }
                    (Role::Attackers, next.board.attackers, a)
                }
            };
            anvil |= next.hostile_squares(rules, victim_role, occ);
            for dir in Direction::ALL {
                let n = to.shift(dir) & victims;
                if n.nonempty() && (n.shift(dir) & anvil).nonempty() {
                    captured |= n;
                }
            }
            if captured.nonempty() {
                for sq in captured {
                    next.hash ^= piece_key(victim_role, sq);
                }
                *next.board.pieces_mut(victim_role) &= !captured;
            }
        }
        if self.side == Side::Attackers
            && (next.board.king & to.neighbours()).nonempty()
            && next.king_taken(rules, to)
        {
            let ksq = next.board.king.first().expect("king present");
            next.hash ^= piece_key(Role::King, ksq);
            captured |= next.board.king;
            next.board.king = Bitboard::EMPTY;
        }
        next.quiet = if captured.nonempty() {
            0
        } else {
            self.quiet.saturating_add(1)
        };
        (next, captured)
    }

    /// Whether the attacker that just moved to `to` (beside the king) takes him.
    pub(crate) fn king_taken(&self, rules: &RuleSet, to: Bitboard) -> bool {
        let king = self.board.king;
        let occ = self.board.occupied();
        let hostile = self.board.attackers | self.hostile_squares(rules, Role::King, occ);
        let k = &rules.options.king;
        let method = if king == Bitboard::THRONE {
            k.capture_on_throne
        } else if (king & Bitboard::BESIDE_THRONE).nonempty() {
            k.capture_beside_throne
        } else {
            k.capture_elsewhere
        };
        match method {
            KingCapture::Sandwich => Direction::ALL
                .iter()
                .any(|&d| to.shift(d) == king && (king.shift(d) & hostile).nonempty()),
            KingCapture::Surround => {
                let around = king.neighbours();
                around.count() == 4 && (around & !hostile).is_empty()
            }
        }
    }

    /// Whether no defender can reach the edge through squares free of attackers.
    pub fn encircled(&self) -> bool {
        let defenders = self.board.defenders | self.board.king;
        if defenders.is_empty() {
            return false;
        }
        let free = !self.board.attackers;
        let mut reach = defenders;
        loop {
            if (reach & Bitboard::EDGE).nonempty() {
                return false;
            }
            let next = (reach | reach.neighbours()) & free;
            if next == reach {
                return true;
            }
            reach = next;
        }
    }
}
