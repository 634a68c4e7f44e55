//! The alpha-beta baseline as a player.

use crate::clock::GameClock;
use crate::player::{Forfeit, Player};
use brandubh_alphabeta::evaluation::EvalWeights;
use brandubh_alphabeta::time::Limits;
use brandubh_alphabeta::Searcher;
use brandubh_rules::{Game, Move, RuleSet};
use std::sync::Arc;
use std::time::Duration;

/// The alpha-beta baseline as a player.
pub struct AlphaBetaPlayer {
    spec: String,
    searcher: Searcher,
    limits: Limits,
    /// The last search, for commands that report it.
    pub last: Option<brandubh_alphabeta::SearchResult>,
}

impl AlphaBetaPlayer {
    pub fn new(
        rules: Arc<RuleSet>,
        limits: Limits,
        weights: EvalWeights,
        tt_mb: usize,
        spec: String,
    ) -> Self {
        AlphaBetaPlayer {
            spec,
            searcher: Searcher::new(rules, weights, tt_mb),
            limits,
            last: None,
        }
    }
}

impl AlphaBetaPlayer {
    /// The threads each search uses (see `Searcher::set_threads`).
    pub fn set_threads(&mut self, threads: usize) {
        self.searcher.set_threads(threads);
    }

    /// Searches `game` within the player's limits, for commands that report
    /// the search itself.
    pub fn analyse(&mut self, game: &Game) -> &brandubh_alphabeta::SearchResult {
        self.search_within(game, self.limits)
    }

    /// Searches `game` within `limits` and keeps the result as `last`.
    fn search_within(&mut self, game: &Game, limits: Limits) -> &brandubh_alphabeta::SearchResult {
        let r = self.searcher.search(game, limits);
        self.last.insert(r)
    }
}

impl Player for AlphaBetaPlayer {
    fn name(&self) -> String {
        self.spec.clone()
    }
    fn choose(&mut self, game: &Game, clock: Option<&GameClock>) -> Result<Move, Forfeit> {
        // A clock replaces any time per move; depth and node caps stay.
        let limits = match clock {
            Some(c) => Limits {
                millis: Some((c.budget().as_millis() as u64).max(1)),
                ..self.limits
            },
            None => self.limits,
        };
        Ok(self.search_within(game, limits).best)
    }
    fn analyse_lines(&mut self, game: &Game, time: Duration, _n: usize) -> Vec<(Vec<Move>, f64)> {
        let limits = Limits {
            millis: Some((time.as_millis() as u64).max(1)),
            ..self.limits
        };
        let r = self.search_within(game, limits);
        let line = if r.pv.is_empty() {
            vec![r.best]
        } else {
            r.pv.clone()
        };
        vec![(line, r.score as f64)]
    }
}
