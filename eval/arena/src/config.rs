//! What a match is asked to play: the players, pairs, openings, limits
//! and an optional game clock.

use crate::opening::OpeningFilter;
use crate::stats::Sprt;
use brandubh_play::{PlayContext, PlayerSpec};
use brandubh_rules::RuleSet;
use std::sync::Arc;
use std::time::Duration;

#[derive(Clone, Debug)]
pub struct MatchConfig {
    pub rules: Arc<RuleSet>,
    pub a: PlayerSpec,
    pub b: PlayerSpec,
    pub pairs: u64,
    /// Random plies from the start before the players take over.
    pub openings: u32,
    pub seed: u64,
    /// A game still going after this many plies is recorded as unfinished.
    pub max_plies: u32,
    pub threads: usize,
    pub sprt: Option<Sprt>,
    /// Play each opening twice with sides swapped (a match); when false,
    /// one game per opening with A attacking (balance runs).
    pub swap_sides: bool,
    /// Redraw openings that a search finds lopsided (see `OpeningFilter`);
    /// `None` keeps every random opening.
    pub balanced: Option<OpeningFilter>,
    /// A game clock for each player instead of the specs' own limits: the
    /// players decide how long to think, and one whose clock runs out
    /// loses the game (`time_forfeit`).
    pub clock: Option<TimeControl>,
    /// Where the players' nets and evaluation workers come from.
    pub ctx: Arc<PlayContext>,
}

/// A time control: main time, an increment per move, and byo-yomi
/// overtime periods.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TimeControl {
    pub main: Duration,
    pub increment: Duration,
    pub overtime: Duration,
    pub overtime_periods: u32,
}
