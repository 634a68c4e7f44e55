//! The end conditions: escape, capture, repetition, move limits, and a
//! side left without a move.

use super::Position;
use crate::bitboard::Bitboard;
use crate::outcome::{EndReason, GameResult, Outcome};
use crate::ruleset::{NoMoves, Repetition, RuleSet};
use crate::Side;

impl Position {
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
    pub(crate) fn since_capture<'h>(&self, history: &'h [u64]) -> &'h [u64] {
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
