//! Positions, moves, move generation and making moves.
//!
//! A [`Position`] is small and `Copy`: search makes moves by copying. It
//! knows nothing of the game's history; [`crate::Game`] adds that, and
//! [`Position::after_move_outcome`] takes the history as a slice of hashes.

use crate::bitboard::Bitboard;
use crate::ruleset::{GameResult, KingCapture, NoMoves, Repetition, Role, RuleSet};
use crate::square::{Direction, Square};
use crate::zobrist::{piece_key, SIDE_KEY};
use crate::Side;
use std::fmt;

/// Where the pieces stand.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Board {
    pub attackers: Bitboard,
    /// Defending men, the king excluded.
    pub defenders: Bitboard,
    /// Empty once the king is captured.
    pub king: Bitboard,
}

impl Board {
    pub fn occupied(&self) -> Bitboard {
        self.attackers | self.defenders | self.king
    }
    pub fn role_at(&self, sq: Square) -> Option<Role> {
        if self.attackers.contains(sq) {
            Some(Role::Attackers)
        } else if self.defenders.contains(sq) {
            Some(Role::Defenders)
        } else if self.king.contains(sq) {
            Some(Role::King)
        } else {
            None
        }
    }
    pub fn pieces(&self, role: Role) -> Bitboard {
        match role {
            Role::Attackers => self.attackers,
            Role::Defenders => self.defenders,
            Role::King => self.king,
        }
    }
    fn pieces_mut(&mut self, role: Role) -> &mut Bitboard {
        match role {
            Role::Attackers => &mut self.attackers,
            Role::Defenders => &mut self.defenders,
            Role::King => &mut self.king,
        }
    }
    /// Every piece of a side, the king included for the defenders.
    pub fn side(&self, side: Side) -> Bitboard {
        match side {
            Side::Attackers => self.attackers,
            Side::Defenders => self.defenders | self.king,
        }
    }
    pub fn king_square(&self) -> Option<Square> {
        self.king.first()
    }
}

/// A move of one piece, or a pass where the rules allow one.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Move {
    pub from: Square,
    pub to: Square,
}

impl Move {
    /// The pass: only legal when a side has no move under `no_legal_moves = "pass"`.
    pub const PASS: Move = Move {
        from: Square::THRONE,
        to: Square::THRONE,
    };
    pub const fn new(from: Square, to: Square) -> Move {
        Move { from, to }
    }
    pub fn is_pass(self) -> bool {
        self.from == self.to
    }
}

/// A fixed-capacity list of moves; no 7×7 position has more than 196
/// (each empty square is reached from at most four directions).
#[derive(Clone, Debug)]
pub struct MoveList {
    moves: [Move; 200],
    len: usize,
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList {
            moves: [Move::PASS; 200],
            len: 0,
        }
    }
}

impl MoveList {
    pub fn new() -> MoveList {
        MoveList::default()
    }
    #[inline]
    pub fn push(&mut self, mv: Move) {
        self.moves[self.len] = mv;
        self.len += 1;
    }
    pub fn clear(&mut self) {
        self.len = 0;
    }
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        &mut self.moves[..self.len]
    }
    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.as_slice().iter()
    }
    pub fn contains(&self, mv: &Move) -> bool {
        self.as_slice().contains(mv)
    }
}

impl std::ops::Index<usize> for MoveList {
    type Output = Move;
    fn index(&self, i: usize) -> &Move {
        &self.as_slice()[i]
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Why a game ended. Written and read as the snake-case names `as_str`
/// gives, in every file format.
#[derive(
    Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    KingEscaped,
    KingCaptured,
    NoLegalMoves,
    Repetition,
    Encirclement,
    QuietPlyLimit,
    PlyLimit,
}

impl EndReason {
    pub const ALL: [EndReason; 7] = [
        EndReason::KingEscaped,
        EndReason::KingCaptured,
        EndReason::NoLegalMoves,
        EndReason::Repetition,
        EndReason::Encirclement,
        EndReason::QuietPlyLimit,
        EndReason::PlyLimit,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            EndReason::KingEscaped => "king_escaped",
            EndReason::KingCaptured => "king_captured",
            EndReason::NoLegalMoves => "no_legal_moves",
            EndReason::Repetition => "repetition",
            EndReason::Encirclement => "encirclement",
            EndReason::QuietPlyLimit => "quiet_ply_limit",
            EndReason::PlyLimit => "ply_limit",
        }
    }
}

impl std::str::FromStr for EndReason {
    type Err = crate::UnknownName;
    fn from_str(s: &str) -> Result<EndReason, crate::UnknownName> {
        EndReason::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| crate::UnknownName::new("end reason", s))
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A finished game's result and why.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub struct Outcome {
    pub result: GameResult,
    pub reason: EndReason,
}

const fn make_rays() -> [[u64; 49]; 4] {
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
static RAYS: [[u64; 49]; 4] = make_rays();

/// Squares a rook on `sq` reaches over empty squares, blockers excluded.
#[inline(always)]
fn rook_reach(sq: usize, occ: u64) -> u64 {
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

/// A position: the board, the side to move, and the counters the end
/// conditions need.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Position {
    pub(crate) board: Board,
    pub(crate) side: Side,
    pub(crate) hash: u64,
    /// Plies since the last capture (or since the start).
    pub(crate) quiet: u16,
    /// Plies since the start.
    pub(crate) ply: u16,
    /// Passes in a row just before this position.
    pub(crate) passes: u8,
    /// Raven edge rule: the attackers must move a piece beside the king.
    pub(crate) edge_duty: bool,
}

/// Why a position could not be set up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    #[error("{sq} holds more than one piece")]
    Overlap { sq: Square },
    #[error("more than one king ({0} kings)")]
    TooManyKings(u32),
    #[error("a {role} man stands on {sq}, where the rules forbid it")]
    ForbiddenSquare { role: &'static str, sq: Square },
}

impl Position {
    /// The rule set's starting position.
    pub fn start(rules: &RuleSet) -> Position {
        Position::from_board(rules, rules.start, rules.options.first_to_move)
            .expect("rule set setup was checked when loaded")
    }

    /// A position from a board; men may not stand where they could never stop.
    pub fn from_board(
        rules: &RuleSet,
        board: Board,
        side: Side,
    ) -> Result<Position, PositionError> {
        let (a, d, k) = (board.attackers, board.defenders, board.king);
        if let Some(sq) = ((a & d) | (a & k) | (d & k)).first() {
            return Err(PositionError::Overlap { sq });
        }
        if k.count() > 1 {
            return Err(PositionError::TooManyKings(k.count()));
        }
        for (role, name) in [
            (Role::Attackers, "attacking"),
            (Role::Defenders, "defending"),
        ] {
            let special = Bitboard::THRONE | Bitboard::CORNERS;
            if let Some(sq) =
                (board.pieces(role) & special & !rules.stop_mask[role.index()]).first()
            {
                return Err(PositionError::ForbiddenSquare { role: name, sq });
            }
        }
        let mut pos = Position {
            board,
            side,
            hash: 0,
            quiet: 0,
            ply: 0,
            passes: 0,
            edge_duty: false,
        };
        pos.hash = pos.compute_hash(rules);
        Ok(pos)
    }

    /// The hash from scratch; [`Position::play`] keeps it up to date.
    pub fn compute_hash(&self, rules: &RuleSet) -> u64 {
        let mut h = rules.hash;
        for role in Role::ALL {
            for sq in self.board.pieces(role) {
                h ^= piece_key(role, sq);
            }
        }
        if self.side == Side::Defenders {
            h ^= SIDE_KEY;
        }
        h
    }

    pub fn board(&self) -> &Board {
        &self.board
    }
    pub fn side_to_move(&self) -> Side {
        self.side
    }
    /// The Zobrist hash of board, side to move and rule set.
    pub fn hash(&self) -> u64 {
        self.hash
    }
    pub fn plies(&self) -> u32 {
        self.ply as u32
    }
    pub fn quiet_plies(&self) -> u32 {
        self.quiet as u32
    }
    /// Passes in a row just before this position.
    pub fn passes(&self) -> u32 {
        self.passes as u32
    }
    /// Whether the raven edge rule binds the attackers' next move.
    pub fn edge_duty(&self) -> bool {
        self.edge_duty
    }
    /// Sets the counters, e.g. when a position is read from a record.
    pub fn set_counters(&mut self, ply: u16, quiet: u16) {
        self.ply = ply;
        self.quiet = quiet;
    }

    /// The squares `role` standing on `from` may move to.
    #[inline(always)]
    fn targets(&self, rules: &RuleSet, role: Role, from: Square, occ: Bitboard) -> Bitboard {
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
    fn movers(&self, rules: &RuleSet) -> [(Role, Bitboard); 2] {
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

    fn may_pass(&self, rules: &RuleSet) -> bool {
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

    /// Squares that help capture a piece of `victim` role: the far piece
    /// of the mover's side or a hostile empty square.
    #[inline(always)]
    fn hostile_squares(&self, rules: &RuleSet, victim: Role, occ: Bitboard) -> Bitboard {
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
    fn king_taken(&self, rules: &RuleSet, to: Bitboard) -> bool {
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

    /// The end conditions checked right after a move (every one but "no
    /// legal move", which needs move generation). `history` holds the hashes
    /// of the positions before this one, oldest first.
    pub fn after_move_outcome(&self, rules: &RuleSet, history: &[u64]) -> Option<Outcome> {
        let mover = self.side.other();
        let end = &rules.options.end;
        let won = |side: Side, reason| {
            Some(Outcome {
                result: GameResult::win_for(side),
                reason,
            })
        };
        if self.board.king.is_empty() {
            return won(Side::Attackers, EndReason::KingCaptured);
        }
        if (self.board.king & Bitboard::CORNERS).nonempty() {
            return won(Side::Defenders, EndReason::KingEscaped);
        }
        if end.encirclement && mover == Side::Attackers && self.encircled() {
            return won(Side::Attackers, EndReason::Encirclement);
        }
        if end.repetition != Repetition::Ignore
            && self.repetitions(history) + 1 >= end.repetition_count as u32
        {
            return Some(Outcome {
                result: match end.repetition {
                    Repetition::Draw => GameResult::Draw,
                    _ => GameResult::win_for(mover.other()),
                },
                reason: EndReason::Repetition,
            });
        }
        if end.quiet_ply_limit > 0 && self.quiet as u32 >= end.quiet_ply_limit {
            return Some(Outcome {
                result: GameResult::Draw,
                reason: EndReason::QuietPlyLimit,
            });
        }
        if end.ply_limit > 0 && self.ply as u32 >= end.ply_limit {
            return Some(Outcome {
                result: end.ply_limit_outcome,
                reason: EndReason::PlyLimit,
            });
        }
        None
    }

    /// The part of `history` a repetition can reach: back to the last
    /// capture, which can never be undone.
    fn since_capture<'h>(&self, history: &'h [u64]) -> &'h [u64] {
        &history[history.len() - (self.quiet as usize).min(history.len())..]
    }

    /// How often this position occurred before, since the last capture.
    pub fn repetitions(&self, history: &[u64]) -> u32 {
        self.since_capture(history)
            .iter()
            .filter(|&&h| h == self.hash)
            .count() as u32
    }

    /// How many plies ago this position last occurred, since the last
    /// capture; `None` if it is new.
    pub fn plies_since_occurrence(&self, history: &[u64]) -> Option<usize> {
        self.since_capture(history)
            .iter()
            .rev()
            .position(|&h| h == self.hash)
            .map(|i| i + 1)
    }

    /// The outcome when the side to move has no legal move, given the rules.
    pub fn no_moves_outcome(&self, rules: &RuleSet) -> Outcome {
        Outcome {
            result: match rules.options.end.no_legal_moves {
                NoMoves::Lose => GameResult::win_for(self.side.other()),
                NoMoves::Pass => GameResult::Draw,
            },
            reason: EndReason::NoLegalMoves,
        }
    }

    /// The full outcome: after-move conditions, then "no legal move".
    pub fn outcome(&self, rules: &RuleSet, history: &[u64]) -> Option<Outcome> {
        self.after_move_outcome(rules, history)
            .or_else(|| (self.count_moves(rules) == 0).then(|| self.no_moves_outcome(rules)))
    }
}
