//! A player's game clock and how much of it one move may spend.

use std::time::Duration;

/// A player's clock during a game, as a front end or the engine protocol
/// reports it: what is left of the main time, what each move adds, and
/// byo-yomi overtime (OpenTafl's overtime periods: once the main time is
/// gone, each move may use up to one period; overrunning a period spends
/// it, and the last one lost loses the game).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct GameClock {
    pub remaining: Duration,
    pub increment: Duration,
    pub overtime: Duration,
    pub overtime_periods: u32,
    /// Moves until the next time control, when the control has one.
    pub moves_to_go: Option<u32>,
}

/// Own moves assumed still to come when the clock does not say.
pub const MOVES_LEFT_GUESS: u32 = 30;
/// Held back from every deadline for the move's own overheads (sending it,
/// a late check of the clock).
pub const SAFETY_MARGIN: Duration = Duration::from_millis(30);

impl GameClock {
    /// How long to think on this move. Spends the main time evenly over the
    /// moves expected to come (`moves_to_go`, else `MOVES_LEFT_GUESS`),
    /// plus most of the increment; with overtime periods it may also use
    /// most of one period, which comes back after the move. Never more than
    /// the time that can be spent without losing on the clock, less
    /// `SAFETY_MARGIN`; at least 1 ms.
    pub fn budget(&self) -> Duration {
        let moves_left = self.moves_to_go.unwrap_or(MOVES_LEFT_GUESS).max(1);
        let period = if self.overtime_periods > 0 {
            self.overtime
        } else {
            Duration::ZERO
        };
        let share = self.remaining / moves_left + self.increment.mul_f64(0.75);
        let wanted = share + period.mul_f64(0.8);
        // The most this move can take: half the main time when nothing
        // comes back after the move, most of it when an increment or a
        // period does, plus one period.
        let reserve = if period.is_zero() && self.increment.is_zero() {
            self.remaining / 2
        } else {
            self.remaining.mul_f64(0.9)
        };
        let cap = (reserve + period).saturating_sub(SAFETY_MARGIN);
        wanted.min(cap).max(Duration::from_millis(1))
    }
}
