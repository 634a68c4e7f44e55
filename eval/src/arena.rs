//! The arena: matches of game pairs with sides swapped from the same
//! seeded opening, run in parallel, each finished game written as one JSON
//! line (format documented in docs/arena.md).

use crate::ending::{Ending, ForfeitReason, RecordResult};
use crate::player::{PlayerSpec, PlayerSpecError};
use crate::search::evaluation::EvalWeights;
use crate::search::time::{GameClock, Limits};
use crate::search::Searcher;
use crate::stats::{EloEstimate, Pentanomial, Sprt, SprtVerdict};
use brandubh_rules::{splitmix64, Game, Move, RuleSet, Side};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Version of the game-record format.
pub const RECORD_FORMAT: u32 = 1;

/// One finished (or capped) game. Two records are equal when they hold the
/// same game: the move times, a measurement of the machine, are left out.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GameRecord {
    pub format: u32,
    pub rules: String,
    /// The rule set's option hash, hex.
    pub rules_hash: String,
    pub pair: u64,
    /// 0: A has the attackers; 1: sides swapped.
    pub game: u8,
    pub seed: u64,
    /// Player specs.
    pub attackers: String,
    pub defenders: String,
    /// What ratings know a player by when it differs from its spec: a
    /// net's spec with its path replaced by its model id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attackers_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defenders_id: Option<String>,
    /// The random opening plies both games of the pair start with.
    pub opening: Vec<String>,
    /// Moves after the opening, OpenTafl move records.
    pub moves: Vec<String>,
    /// `attackers_win`, `defenders_win`, `draw`, or `unfinished` (capped).
    pub result: RecordResult,
    /// How it ended: the rules' end reasons, or `time_forfeit`,
    /// `engine_failure`, `illegal_move`, `resigned` when a player forfeited;
    /// none when capped.
    pub reason: Option<Ending>,
    /// Total plies, opening included.
    pub plies: u32,
    /// Wall time of each move after the opening, in microseconds (absent
    /// in files from before it was recorded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub move_us: Vec<u64>,
    /// What went wrong when a player forfeited (an external engine that
    /// crashed, hung or played an illegal move).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl PartialEq for GameRecord {
    fn eq(&self, o: &GameRecord) -> bool {
        self.format == o.format
            && self.rules == o.rules
            && self.rules_hash == o.rules_hash
            && self.pair == o.pair
            && self.game == o.game
            && self.seed == o.seed
            && self.attackers == o.attackers
            && self.defenders == o.defenders
            && self.opening == o.opening
            && self.moves == o.moves
            && self.result == o.result
            && self.reason == o.reason
            && self.plies == o.plies
    }
}

impl GameRecord {
    /// What ratings know the attackers by (`Player::identity`).
    pub fn attackers_identity(&self) -> &str {
        self.attackers_id.as_deref().unwrap_or(&self.attackers)
    }
    /// What ratings know the defenders by.
    pub fn defenders_identity(&self) -> &str {
        self.defenders_id.as_deref().unwrap_or(&self.defenders)
    }
    /// Points for the attackers: 1, ½ or 0; a capped game counts as a draw.
    pub fn attacker_points(&self) -> f64 {
        self.result.attacker_points()
    }
}

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

/// Time per move of one player over a match.
#[derive(Copy, Clone, Debug, Default, PartialEq, Serialize)]
pub struct MoveTimes {
    pub moves: u64,
    pub mean_ms: f64,
    pub max_ms: f64,
}

impl MoveTimes {
    fn add(&mut self, ms: f64) {
        self.mean_ms = (self.mean_ms * self.moves as f64 + ms) / (self.moves + 1) as f64;
        self.moves += 1;
        self.max_ms = self.max_ms.max(ms);
    }
}

/// Keeps only openings that a node-limited alpha-beta search (built-in
/// weights of the rule set) scores within `margin` evaluation units of the
/// start position, from the attackers' point of view. Random plies can
/// hand one side a man or an open line for free; such an opening decides
/// both games of its pair before the players start, which adds noise and
/// no information. An opening out of the window is replaced by the next
/// one from the same seeded stream, up to `MAX_OPENING_DRAWS` draws; if
/// none fits, the closest one drawn is played.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct OpeningFilter {
    pub margin: i32,
    pub nodes: u64,
}

/// Draws per pair before the filter settles for the closest opening.
pub const MAX_OPENING_DRAWS: usize = 64;

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

#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    #[error(transparent)]
    Spec(#[from] PlayerSpecError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}, line {line}: {why}")]
    BadRecord {
        path: PathBuf,
        line: usize,
        why: String,
    },
}

fn opening_rng(seed: u64, pair: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(splitmix64(seed ^ splitmix64(pair)))
}

/// `plies` random legal moves from the start that do not end the game
/// (empty if 1000 draws all ended it).
fn draw_opening(rules: &Arc<RuleSet>, rng: &mut ChaCha8Rng, plies: u32) -> Vec<Move> {
    for _ in 0..1000 {
        let mut g = Game::new(rules.clone());
        let mut moves = Vec::new();
        while moves.len() < plies as usize && !g.is_over() {
            let legal = g.legal_moves();
            let mv = legal[rng.random_range(0..legal.len())];
            g.play(mv).expect("legal");
            moves.push(mv);
        }
        if !g.is_over() {
            return moves;
        }
    }
    Vec::new()
}

/// The seeded opening of pair `pair`: `plies` random legal moves from the
/// start that do not end the game.
pub fn opening(rules: &Arc<RuleSet>, seed: u64, pair: u64, plies: u32) -> Vec<Move> {
    draw_opening(rules, &mut opening_rng(seed, pair), plies)
}

/// The score (attackers' point of view) that `filter`'s search gives the
/// position after `moves`. A fresh searcher each time, so the score does
/// not depend on what was searched before or on the thread.
pub fn opening_score(rules: &Arc<RuleSet>, moves: &[Move], filter: &OpeningFilter) -> i32 {
    let mut g = Game::new(rules.clone());
    for &mv in moves {
        g.play(mv).expect("opening moves are legal");
    }
    let mut searcher = Searcher::new(rules.clone(), EvalWeights::builtin(rules.name()), 4);
    let limits = Limits {
        nodes: Some(filter.nodes),
        ..Limits::default()
    };
    let s = searcher.search(&g, limits).score;
    match g.side_to_move() {
        Side::Attackers => s,
        Side::Defenders => -s,
    }
}

/// The opening of pair `pair` under `filter`: the first opening of the
/// pair's seeded stream whose score is within the margin of `start` (the
/// start position's score), else the closest of the draws.
pub fn balanced_opening(
    rules: &Arc<RuleSet>,
    seed: u64,
    pair: u64,
    plies: u32,
    filter: &OpeningFilter,
    start: i32,
) -> Vec<Move> {
    let mut rng = opening_rng(seed, pair);
    let mut closest: Option<(i32, Vec<Move>)> = None;
    for _ in 0..MAX_OPENING_DRAWS {
        let moves = draw_opening(rules, &mut rng, plies);
        if moves.is_empty() {
            // No plies, or none that leave the game going: nothing to weigh.
            return moves;
        }
        let off = (opening_score(rules, &moves, filter) - start).abs();
        if off <= filter.margin {
            return moves;
        }
        if closest.as_ref().is_none_or(|(d, _)| off < *d) {
            closest = Some((off, moves));
        }
    }
    closest.map(|(_, m)| m).unwrap_or_default()
}

/// Plays one game of a pair.
fn play_game(
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
    let seed = splitmix64(cfg.seed ^ splitmix64(pair * 2 + game_ix as u64 + 1));
    let mut players = [
        att.build(&cfg.rules, seed)?,
        def.build(&cfg.rules, splitmix64(seed))?,
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
        let chosen = players[side.index()].try_choose(&g, clock.as_ref());
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

/// Appends records to `PATH.partial`, renamed to `PATH` when the match ends,
/// so a crash leaves every finished game readable and loses only those in
/// flight.
struct RecordWriter {
    partial: PathBuf,
    path: PathBuf,
    file: std::fs::File,
}

impl RecordWriter {
    fn create(path: &Path) -> Result<RecordWriter, ArenaError> {
        let partial = PathBuf::from(format!("{}.partial", path.display()));
        let io = |source| ArenaError::Io {
            path: partial.clone(),
            source,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let file = std::fs::File::create(&partial).map_err(io)?;
        Ok(RecordWriter {
            partial,
            path: path.to_path_buf(),
            file,
        })
    }
    fn write(&mut self, rec: &GameRecord) -> Result<(), ArenaError> {
        let line = serde_json::to_string(rec).expect("records serialise");
        writeln!(self.file, "{line}")
            .and_then(|_| self.file.flush())
            .map_err(|source| ArenaError::Io {
                path: self.partial.clone(),
                source,
            })
    }
    fn finish(self) -> Result<(), ArenaError> {
        self.file.sync_all().ok();
        brandubh_selfplay::durable::persist(&self.partial, &self.path).map_err(|source| {
            ArenaError::Io {
                path: self.path.clone(),
                source,
            }
        })
    }
}

/// Runs a match. `progress` is called from worker threads after each game.
/// Pairs are played in batches across threads but accounted in pair order,
/// so the result (and where an SPRT stops) does not depend on scheduling.
pub fn run_match(
    cfg: &MatchConfig,
    out: Option<&Path>,
    progress: &(dyn Fn(&GameRecord) + Sync),
) -> Result<(MatchSummary, Vec<GameRecord>), ArenaError> {
    use rayon::prelude::*;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads.max(1))
        .build()
        .expect("thread pool");
    let mut writer = out.map(RecordWriter::create).transpose()?;
    let filter_start = cfg
        .balanced
        .map(|f| (f, opening_score(&cfg.rules, &[], &f)));
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
    let batch = (cfg.threads.max(1) as u64) * 2;
    let mut next = 0u64;
    'outer: while next < cfg.pairs {
        let end = (next + batch).min(cfg.pairs);
        let done: Vec<Result<Vec<GameRecord>, ArenaError>> = pool.install(|| {
            (next..end)
                .into_par_iter()
                .map(|pair| {
                    let open = match &filter_start {
                        Some((f, start)) => {
                            balanced_opening(&cfg.rules, cfg.seed, pair, cfg.openings, f, *start)
                        }
                        None => opening(&cfg.rules, cfg.seed, pair, cfg.openings),
                    };
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
            let mut a_points = 0.0;
            for rec in &pair {
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
                for (i, us) in rec.move_us.iter().enumerate() {
                    let ms = *us as f64 / 1e3;
                    // Moves after the opening alternate from whoever is to move then.
                    let first_is_att = (rec.opening.len() % 2 == 0)
                        == (cfg.rules.options.first_to_move == Side::Attackers);
                    let is_att = (i % 2 == 0) == first_is_att;
                    if is_att {
                        att_times.add(ms);
                    } else {
                        def_times.add(ms);
                    }
                }
                if let Some(w) = writer.as_mut() {
                    w.write(rec)?;
                }
            }
            summary.pairs += 1;
            if cfg.swap_sides {
                summary.pentanomial.add(a_points);
            }
            records.extend(pair);
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
                if verdict != SprtVerdict::Continue {
                    break 'outer;
                }
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

/// Reads a game-record file (JSON lines); a bad line is an error naming
/// the file and line.
pub fn read_records(path: &Path) -> Result<Vec<GameRecord>, ArenaError> {
    let text = std::fs::read_to_string(path).map_err(|source| ArenaError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_records(&text, path)
}

/// Reads game records from the text of a game file; `path` names it in
/// errors, with the line.
pub fn parse_records(text: &str, path: &Path) -> Result<Vec<GameRecord>, ArenaError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let rec: GameRecord = serde_json::from_str(line).map_err(|e| ArenaError::BadRecord {
            path: path.to_path_buf(),
            line: i + 1,
            why: e.to_string(),
        })?;
        if rec.format != RECORD_FORMAT {
            return Err(ArenaError::BadRecord {
                path: path.to_path_buf(),
                line: i + 1,
                why: format!(
                    "record format {} (this build reads {RECORD_FORMAT})",
                    rec.format
                ),
            });
        }
        out.push(rec);
    }
    Ok(out)
}
