//! A game: a position plus its history, its status, and legality checks
//! that explain why a move is refused.

use crate::bitboard::Bitboard;
use crate::moves::{Move, MoveList};
use crate::notation::MoveRecord;
use crate::outcome::Outcome;
use crate::position::Position;
use crate::role::Role;
use crate::ruleset::RuleSet;
use crate::square::{Direction, Square};
use crate::Side;
use std::sync::Arc;

/// One played ply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ply {
    pub mv: Move,
    pub captured: Bitboard,
    /// How many legal moves the mover had.
    pub legal_before: usize,
}

impl Ply {
    pub fn record(&self) -> MoveRecord {
        MoveRecord::new(self.mv, self.captured)
    }
}

/// Why a move was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IllegalMove {
    #[error("the game is over")]
    GameOver,
    #[error("{0} is empty")]
    NoPiece(Square),
    #[error("the piece on {sq} belongs to the {owner}, but the {to_move} are to move")]
    WrongSide {
        sq: Square,
        owner: Side,
        to_move: Side,
    },
    #[error("{from} and {to} are not on one rank or file")]
    NotStraight { from: Square, to: Square },
    #[error("{0} is in the way")]
    Blocked(Square),
    #[error("this piece may not cross the throne")]
    ThroneCrossing,
    #[error("this piece may not stop on {0}")]
    ForbiddenStop(Square),
    #[error("a pass is only legal with no other move")]
    PassNotAllowed,
    #[error("the edge rule: after the defenders' pass an attacker beside the king must move")]
    EdgeRule,
    #[error("declared captures {declared} differ from the real ones {actual}")]
    WrongCaptures { declared: String, actual: String },
}

#[derive(Clone, Debug)]
pub struct Game {
    rules: Arc<RuleSet>,
    start: Position,
    position: Position,
    /// Hashes of every earlier position, oldest first.
    history: Vec<u64>,
    plies: Vec<Ply>,
    outcome: Option<Outcome>,
    moves: MoveList,
}

impl Game {
    pub fn new(rules: Arc<RuleSet>) -> Game {
        let start = Position::start(&rules);
        Game::from_position(rules, start)
    }

    pub fn from_position(rules: Arc<RuleSet>, position: Position) -> Game {
        let mut g = Game {
            rules,
            start: position,
            position,
            history: Vec::new(),
            plies: Vec::new(),
            outcome: None,
            moves: MoveList::new(),
        };
        g.refresh();
        g
    }

    fn refresh(&mut self) {
        self.outcome = self.position.after_move_outcome(&self.rules, &self.history);
        self.moves.clear();
        if self.outcome.is_none() {
            self.position.legal_moves(&self.rules, &mut self.moves);
            if self.moves.is_empty() {
                self.outcome = Some(self.position.no_moves_outcome(&self.rules));
            }
        }
    }

    pub fn rules(&self) -> &Arc<RuleSet> {
        &self.rules
    }
    pub fn position(&self) -> &Position {
        &self.position
    }
    pub fn start_position(&self) -> &Position {
        &self.start
    }
    pub fn history(&self) -> &[u64] {
        &self.history
    }
    pub fn plies(&self) -> &[Ply] {
        &self.plies
    }
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }
    pub fn is_over(&self) -> bool {
        self.outcome.is_some()
    }
    pub fn side_to_move(&self) -> Side {
        self.position.side_to_move()
    }
    /// The legal moves; empty once the game is over.
    pub fn legal_moves(&self) -> &MoveList {
        &self.moves
    }

    /// Plays a move, or explains why it is illegal.
    pub fn play(&mut self, mv: Move) -> Result<Bitboard, IllegalMove> {
        if self.is_over() {
            return Err(IllegalMove::GameOver);
        }
        if !self.moves.contains(&mv) {
            return Err(self.explain(mv));
        }
        let legal_before = self.moves.len();
        let (next, captured) = self.position.play(&self.rules, mv);
        self.history.push(self.position.hash());
        self.position = next;
        self.plies.push(Ply {
            mv,
            captured,
            legal_before,
        });
        self.refresh();
        Ok(captured)
    }

    /// Plays a move record, checking its declared captures if it has any.
    pub fn play_record(&mut self, rec: &MoveRecord) -> Result<Bitboard, IllegalMove> {
        let before = self.clone();
        let captured = self.play(rec.mv)?;
        if let Some(declared) = &rec.captures {
            let declared_bb: Bitboard = declared.iter().copied().collect();
            if declared_bb != captured || declared.len() != captured.count() as usize {
                *self = before;
                let list = |it: &mut dyn Iterator<Item = Square>| {
                    let v: Vec<String> = it.map(|s| s.to_string()).collect();
                    if v.is_empty() {
                        "(none)".to_string()
                    } else {
                        v.join("/")
                    }
                };
                return Err(IllegalMove::WrongCaptures {
                    declared: list(&mut declared.iter().copied()),
                    actual: list(&mut captured.into_iter()),
                });
            }
        }
        Ok(captured)
    }

    /// Takes back the last move.
    pub fn undo(&mut self) -> Option<Ply> {
        let ply = self.plies.pop()?;
        let mut replay = Game::from_position(self.rules.clone(), self.start);
        for p in &self.plies {
            replay.play(p.mv).expect("replaying legal moves");
        }
        *self = replay;
        Some(ply)
    }

    fn explain(&self, mv: Move) -> IllegalMove {
        let pos = &self.position;
        let rules = &self.rules;
        if mv.is_pass() {
            return IllegalMove::PassNotAllowed;
        }
        let Some(role) = pos.board().role_at(mv.from) else {
            return IllegalMove::NoPiece(mv.from);
        };
        if role.side() != pos.side_to_move() {
            return IllegalMove::WrongSide {
                sq: mv.from,
                owner: role.side(),
                to_move: pos.side_to_move(),
            };
        }
        let dir = Direction::ALL.into_iter().find(|&d| {
            let mut s = mv.from;
            while let Some(n) = s.step(d) {
                if n == mv.to {
                    return true;
                }
                s = n;
            }
            false
        });
        let Some(dir) = dir else {
            return IllegalMove::NotStraight {
                from: mv.from,
                to: mv.to,
            };
        };
        let occ = pos.board().occupied();
        let mut s = mv.from;
        while let Some(n) = s.step(dir) {
            if occ.contains(n) {
                return IllegalMove::Blocked(n);
            }
            if n == mv.to {
                break;
            }
            if n == Square::THRONE && !rules.options.throne.pass.allows(role) {
                return IllegalMove::ThroneCrossing;
            }
            s = n;
        }
        if !rules.stop_mask[role.index()].contains(mv.to) {
            return IllegalMove::ForbiddenStop(mv.to);
        }
        if pos.edge_duty() && role == Role::Attackers {
            return IllegalMove::EdgeRule;
        }
        IllegalMove::ForbiddenStop(mv.to)
    }
}
