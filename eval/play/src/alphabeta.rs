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
    /// The limits the spec gives (none at all: `Self::DEFAULT_DEPTH`, unless a
    /// clock or a command gives a time).
    limits: Limits,
    /// The threads the spec gives; else `Limits::default_threads` of the
    /// limits of each search.
    threads: Option<usize>,
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
            threads: None,
            last: None,
        }
    }
}

impl AlphaBetaPlayer {
    /// The depth of a search whose spec gives no limit and that has no
    /// time from a clock or a command either.
    pub const DEFAULT_DEPTH: u32 = 4;

    /// The threads each search uses (see `Searcher::set_threads`), in
    /// place of the default for its limits.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = Some(threads);
    }

    /// The limits of a search given `time` by a clock or a command: that
    /// time with the spec's depth and node caps; with no time, the spec's
    /// limits, or `Self::DEFAULT_DEPTH` when it gives none. So a spec without
    /// limits is bounded by the clock alone, not by the default depth.
    pub fn limits_for(&self, time: Option<Duration>) -> Limits {
        match time {
            Some(t) => Limits {
                millis: Some((t.as_millis() as u64).max(1)),
                ..self.limits
            },
            None if self.limits == Limits::default() => Limits {
                depth: Some(Self::DEFAULT_DEPTH),
                ..self.limits
            },
            None => self.limits,
        }
    }

    /// The threads of a search within `limits`: the spec's, else every
    /// core for a timed search and one otherwise.
    pub fn threads_for(&self, limits: &Limits) -> usize {
        self.threads.unwrap_or_else(|| limits.default_threads())
    }

    /// Searches `game` within the player's limits, for commands that report
    /// the search itself.
    pub fn analyse(&mut self, game: &Game) -> &brandubh_alphabeta::SearchResult {
        self.search_within(game, self.limits_for(None))
    }

    /// Searches `game` within `limits` and keeps the result as `last`.
    fn search_within(&mut self, game: &Game, limits: Limits) -> &brandubh_alphabeta::SearchResult {
        self.searcher.set_threads(self.threads_for(&limits));
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
        let limits = self.limits_for(clock.map(GameClock::budget));
        Ok(self.search_within(game, limits).best)
    }
    fn analyse_lines(&mut self, game: &Game, time: Duration, _n: usize) -> Vec<(Vec<Move>, f64)> {
        let limits = self.limits_for(Some(time));
        let r = self.search_within(game, limits);
        let line = if r.pv.is_empty() {
            vec![r.best]
        } else {
            r.pv.clone()
        };
        vec![(line, r.score as f64)]
    }
}
