//! Matches: game pairs with sides swapped from the same seeded opening,
//! run in parallel, accounted in pair order, with Elo and an optional SPRT.

use crate::config::*;
use crate::error::*;
use crate::game::*;
use crate::opening::*;
use crate::record::*;
use crate::stats::*;
use brandubh_play::ending::RecordResult;
use brandubh_rules::{Move, Side};
use serde::Serialize;
use std::path::Path;

/// Time per move of one player over a match.
#[derive(Copy, Clone, Debug, Default, PartialEq, Serialize)]
pub struct MoveTimes {
    pub moves: u64,
    pub mean_ms: f64,
    pub max_ms: f64,
}

impl MoveTimes {
    pub(crate) fn add(&mut self, ms: f64) {
        self.mean_ms = (self.mean_ms * self.moves as f64 + ms) / (self.moves + 1) as f64;
        self.moves += 1;
        self.max_ms = self.max_ms.max(ms);
    }
}

/// Wins, draws and losses of one player on one side.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Wdl {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct MatchSummary {
    pub a: String,
    pub b: String,
    pub rules: String,
    /// Random plies of each opening.
    pub openings: u32,
    /// The margin of balanced openings (`OpeningFilter`), if any.
    pub balanced: Option<i32>,
    pub pairs: u64,
    pub games: u64,
    pub a_as_attackers: Wdl,
    pub a_as_defenders: Wdl,
    pub b_as_attackers: Wdl,
    pub b_as_defenders: Wdl,
    pub unfinished: u64,
    /// Time per move of each player (moves after the openings).
    pub a_times: MoveTimes,
    pub b_times: MoveTimes,
    pub pentanomial: Pentanomial,
    pub score: f64,
    pub elo: f64,
    pub elo_ci95: [f64; 2],
    pub los: f64,
    pub sprt: Option<SprtReport>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SprtReport {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub llr: f64,
    pub bounds: [f64; 2],
    pub verdict: SprtVerdict,
}

/// Runs a match from its first pair. `progress` is called from worker
/// threads after each game. Pairs are played in batches across threads but
/// accounted in pair order, so the result (and where an SPRT stops) does
/// not depend on scheduling.
pub fn run_match(
    cfg: &MatchConfig,
    out: Option<&Path>,
    progress: &(dyn Fn(&GameRecord) + Sync),
) -> Result<(MatchSummary, Vec<GameRecord>), ArenaError> {
    run_match_from(cfg, &[], out, progress)
}

/// Runs a match that goes on from `prior`: the complete pairs, first to
/// last, of an earlier run of the same match that was cut short
/// (`crate::resume::resumable_pairs` reads and checks them). They are
/// accounted as if just played and written to `out` again, and play starts
/// at the pair after them.
pub fn run_match_from(
    cfg: &MatchConfig,
    prior: &[GameRecord],
    out: Option<&Path>,
    progress: &(dyn Fn(&GameRecord) + Sync),
) -> Result<(MatchSummary, Vec<GameRecord>), ArenaError> {
    use rayon::prelude::*;
    let per_pair = if cfg.swap_sides { 2 } else { 1 };
    if !prior.len().is_multiple_of(per_pair) {
        return Err(ArenaError::Resume(format!(
            "{} earlier games do not make whole pairs",
            prior.len()
        )));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads.max(1))
        .build()
        .expect("thread pool");
    let mut writer = out.map(RecordWriter::create).transpose()?;
    let openings = MatchOpenings::new(cfg);
    let mut summary = MatchSummary {
        a: cfg.a.text.clone(),
        b: cfg.b.text.clone(),
        rules: cfg.rules.name().to_string(),
        openings: cfg.openings,
        balanced: cfg.balanced.map(|f| f.margin),
        pairs: 0,
        games: 0,
        a_as_attackers: Wdl::default(),
        a_as_defenders: Wdl::default(),
        b_as_attackers: Wdl::default(),
        b_as_defenders: Wdl::default(),
        unfinished: 0,
        a_times: MoveTimes::default(),
        b_times: MoveTimes::default(),
        pentanomial: Pentanomial::default(),
        score: 0.5,
        elo: 0.0,
        elo_ci95: [0.0, 0.0],
        los: 0.5,
        sprt: None,
    };
    let mut records = Vec::new();
    let mut decided = false;
    for pair in prior.chunks(per_pair) {
        decided = account_pair(cfg, &mut summary, writer.as_mut(), pair)?;
        records.extend_from_slice(pair);
        if decided {
            break;
        }
    }
    let batch = (cfg.threads.max(1) as u64) * 2;
    let mut next = summary.pairs;
    'outer: while next < cfg.pairs && !decided {
        let end = (next + batch).min(cfg.pairs);
        let done: Vec<Result<Vec<GameRecord>, ArenaError>> = pool.install(|| {
            (next..end)
                .into_par_iter()
                .map(|pair| {
                    let open = openings.of_pair(pair);
                    let g0 = play_game(cfg, pair, 0, &open)?;
                    progress(&g0);
                    if !cfg.swap_sides {
                        return Ok(vec![g0]);
                    }
                    let g1 = play_game(cfg, pair, 1, &open)?;
                    progress(&g1);
                    Ok(vec![g0, g1])
                })
                .collect()
        });
        for pair in done {
            let pair = pair?;
            let stop = account_pair(cfg, &mut summary, writer.as_mut(), &pair)?;
            records.extend(pair);
            if stop {
                break 'outer;
            }
        }
        next = end;
    }
    if let Some(EloEstimate {
        score,
        elo,
        ci95,
        los,
    }) = summary.pentanomial.elo()
    {
        summary.score = score;
        summary.elo = elo;
        summary.elo_ci95 = [ci95.0, ci95.1];
        summary.los = los;
    }
    if let Some(w) = writer {
        w.finish()?;
    }
    Ok((summary, records))
}

/// Adds one pair's games to the summary and the record file. True when an
/// SPRT has decided and the match stops here.
fn account_pair(
    cfg: &MatchConfig,
    summary: &mut MatchSummary,
    writer: Option<&mut RecordWriter>,
    pair: &[GameRecord],
) -> Result<bool, ArenaError> {
    let mut a_points = 0.0;
    for rec in pair {
        let att_pts = rec.attacker_points();
        let a_is_att = rec.game == 0;
        a_points += if a_is_att { att_pts } else { 1.0 - att_pts };
        if rec.result == RecordResult::Unfinished {
            summary.unfinished += 1;
        }
        let (att_wdl, def_wdl) = if a_is_att {
            (&mut summary.a_as_attackers, &mut summary.b_as_defenders)
        } else {
            (&mut summary.b_as_attackers, &mut summary.a_as_defenders)
        };
        if att_pts == 1.0 {
            att_wdl.wins += 1;
            def_wdl.losses += 1;
        } else if att_pts == 0.0 {
            att_wdl.losses += 1;
            def_wdl.wins += 1;
        } else {
            att_wdl.draws += 1;
            def_wdl.draws += 1;
        }
        summary.games += 1;
        let (att_times, def_times) = if a_is_att {
            (&mut summary.a_times, &mut summary.b_times)
        } else {
            (&mut summary.b_times, &mut summary.a_times)
        };
        // Moves after the opening alternate from whoever is to move then.
        let first_is_att =
            (rec.opening.len() % 2 == 0) == (cfg.rules.options.first_to_move == Side::Attackers);
        for (i, us) in rec.move_us.iter().enumerate() {
            let ms = *us as f64 / 1e3;
            if (i % 2 == 0) == first_is_att {
                att_times.add(ms);
            } else {
                def_times.add(ms);
            }
        }
    }
    if let Some(w) = writer {
        for rec in pair {
            w.write(rec)?;
        }
    }
    summary.pairs += 1;
    if cfg.swap_sides {
        summary.pentanomial.add(a_points);
    }
    if let Some(sprt) = cfg.sprt {
        let (llr, verdict) = sprt.verdict(&summary.pentanomial);
        let (lo, hi) = sprt.bounds();
        summary.sprt = Some(SprtReport {
            elo0: sprt.elo0,
            elo1: sprt.elo1,
            alpha: sprt.alpha,
            beta: sprt.beta,
            llr,
            bounds: [lo, hi],
            verdict,
        });
        return Ok(verdict != SprtVerdict::Continue);
    }
    Ok(false)
}

/// The openings a match plays: balanced under its filter, when it has one,
/// against the start position's score (searched once).
pub(crate) struct MatchOpenings<'a> {
    cfg: &'a MatchConfig,
    start: Option<(OpeningFilter, i32)>,
}

impl<'a> MatchOpenings<'a> {
    pub(crate) fn new(cfg: &'a MatchConfig) -> Self {
        let start = cfg
            .balanced
            .map(|f| (f, opening_score(&cfg.rules, &[], &f)));
        MatchOpenings { cfg, start }
    }

    /// The opening both games of pair `pair` start from.
    pub(crate) fn of_pair(&self, pair: u64) -> Vec<Move> {
        let c = self.cfg;
        match &self.start {
            Some((f, start)) => balanced_opening(&c.rules, c.seed, pair, c.openings, f, *start),
            None => opening(&c.rules, c.seed, pair, c.openings),
        }
    }
}
