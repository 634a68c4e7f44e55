//! One arena game between two players, under their own limits or a game
//! clock, and how a move's time is taken off that clock.

use crate::config::*;
use crate::error::*;
use crate::record::*;
use brandubh_play::clock::GameClock;
use brandubh_play::{ending::Ending, ending::ForfeitReason, ending::RecordResult};
use brandubh_rules::{splitmix64, Game, Move};
use std::time::{Duration, Instant};

/// Plays one game of a pair.
pub(crate) fn play_game(
    cfg: &MatchConfig,
    pair: u64,
    game_ix: u8,
    open: &[Move],
) -> Result<GameRecord, ArenaError> {
    let (att, def) = if game_ix == 0 {
        (&cfg.a, &cfg.b)
    } else {
        (&cfg.b, &cfg.a)
    };
    let seed = game_seed(cfg.seed, pair, game_ix);
    let mut players = [
        att.build(&cfg.rules, seed, &cfg.ctx)?,
        def.build(&cfg.rules, splitmix64(seed), &cfg.ctx)?,
    ];
    let identities = [0, 1].map(|i| {
        let id = players[i].identity();
        (id != players[i].name()).then_some(id)
    });
    let mut g = Game::new(cfg.rules.clone());
    for &mv in open {
        g.play(mv).expect("opening moves are legal");
    }
    let mut move_us = Vec::new();
    let mut clocks = cfg.clock.map(|tc| {
        [GameClock {
            remaining: tc.main,
            increment: tc.increment,
            overtime: tc.overtime,
            overtime_periods: tc.overtime_periods,
            moves_to_go: None,
        }; 2]
    });
    let mut forfeit = None;
    while !g.is_over() && (g.plies().len() as u32) < cfg.max_plies {
        let side = g.side_to_move();
        let t0 = Instant::now();
        let clock = clocks.as_ref().map(|c| c[side.index()]);
        let chosen = players[side.index()].choose(&g, clock.as_ref());
        let spent = t0.elapsed();
        move_us.push(spent.as_micros() as u64);
        let mv = match chosen {
            Ok(mv) => mv,
            Err(f) => {
                forfeit = Some((side, f.reason, Some(f.detail)));
                break;
            }
        };
        if let Some(c) = clocks.as_mut() {
            if !charge(&mut c[side.index()], spent) {
                forfeit = Some((side, ForfeitReason::TimeForfeit, None));
                break;
            }
        }
        if let Err(e) = g.play(mv) {
            forfeit = Some((side, ForfeitReason::IllegalMove, Some(format!("{mv}: {e}"))));
            break;
        }
    }
    let detail = forfeit.as_ref().and_then(|f| f.2.clone());
    let (result, reason) = match (forfeit, g.outcome()) {
        (Some((side, reason, _)), _) => (
            RecordResult::from(Some(brandubh_rules::GameResult::win_for(side.other()))),
            Some(Ending::Forfeit(reason)),
        ),
        (None, Some(o)) => (
            RecordResult::from(Some(o.result)),
            Some(Ending::Rules(o.reason)),
        ),
        (None, None) => (RecordResult::Unfinished, None),
    };
    let records: Vec<String> = g.plies().iter().map(|p| p.record().to_string()).collect();
    Ok(GameRecord {
        format: RECORD_FORMAT,
        rules: cfg.rules.name().to_string(),
        rules_hash: format!("{:016x}", cfg.rules.hash),
        pair,
        game: game_ix,
        seed,
        attackers: att.text.clone(),
        defenders: def.text.clone(),
        attackers_id: identities[0].clone(),
        defenders_id: identities[1].clone(),
        opening: records[..open.len()].to_vec(),
        moves: records[open.len()..].to_vec(),
        result,
        reason,
        plies: g.plies().len() as u32,
        move_us,
        detail,
    })
}

/// The seed game `game_ix` of pair `pair` builds its players from.
pub(crate) fn game_seed(match_seed: u64, pair: u64, game_ix: u8) -> u64 {
    splitmix64(match_seed ^ splitmix64(pair * 2 + game_ix as u64 + 1))
}

/// Takes a move's time off a clock: the main time first, then overtime
/// periods (a move within one period keeps it; each period overrun is
/// spent). Adds the increment. False when the clock ran out.
pub fn charge(clock: &mut GameClock, spent: Duration) -> bool {
    if spent <= clock.remaining {
        clock.remaining -= spent;
    } else {
        let mut over = spent - clock.remaining;
        clock.remaining = Duration::ZERO;
        while over > clock.overtime {
            if clock.overtime_periods == 0 {
                return false;
            }
            clock.overtime_periods -= 1;
            over = over.saturating_sub(clock.overtime);
        }
        if clock.overtime_periods == 0 {
            return false;
        }
    }
    clock.remaining += clock.increment;
    true
}
