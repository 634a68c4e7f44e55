use anyhow::{bail, Context, Result};
use brandubh_arena::stats::Sprt;
use brandubh_arena::{
    earlier_pairs, partial_path, run_match_from, MatchConfig, MatchSummary, Resumed,
};
use brandubh_arena::{OpeningFilter, TimeControl};
use brandubh_play::{PlayerKind, PlayerSpec};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Rule set name or path to a TOML file.
    #[arg(long, default_value = "wtf")]
    rules: String,
    /// Player A (e.g. alphabeta:ms=200, alphabeta:depth=4, random).
    #[arg(long)]
    a: String,
    /// Player B.
    #[arg(long)]
    b: String,
    /// Game pairs to play; each pair plays one opening twice with sides swapped.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pairs: u64,
    /// Random plies from the start before the players take over (distinct
    /// games even between deterministic players).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(0..=200))]
    openings: u32,
    /// Balanced openings: redraw any opening that a search scores more than
    /// MARGIN evaluation units (an attacker man is 100) away from the start position,
    /// from the attackers' point of view, so that no pair starts decided by
    /// its random plies. Off by default (every random opening is played).
    /// The search is the alpha-beta baseline with the rule set's built-in
    /// weights, limited to --balance-nodes nodes.
    #[arg(long, value_name = "MARGIN")]
    balanced: Option<u32>,
    /// Node limit of the search that scores openings for --balanced.
    #[arg(long, default_value_t = 300_000, value_name = "NODES", value_parser = clap::value_parser!(u64).range(1..=10_000_000_000))]
    balance_nodes: u64,
    /// Games played at once (default: all cores; 1 when a player searches
    /// with a time limit, MCTS or alpha-beta, or the match has a clock, so
    /// that each timed player has every core on its moves and neither
    /// side's threads are shared with another game).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=256))]
    threads: Option<u64>,
    /// A game clock for each player, replacing the specs' own time limits:
    /// MAIN[+INCREMENT][/PERIODSxOVERTIME] in seconds, e.g. `60+1` or
    /// `30/3x5` (30 s, then three 5 s byo-yomi periods). The players decide
    /// how long to think; a player whose clock runs out loses the game.
    #[arg(long, value_name = "CONTROL")]
    clock: Option<String>,
    /// Seed for openings and any random player.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Stop early when an SPRT (alpha = beta = 0.05) accepts H0: elo <= ELO0
    /// or H1: elo >= ELO1. Example: --sprt 0,20
    #[arg(long, value_name = "ELO0,ELO1")]
    sprt: Option<String>,
    /// A game still going after this many plies is recorded as unfinished
    /// (and scored as a draw).
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    max_plies: u32,
    /// Write every finished game here as JSON lines (see docs/arena.md).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Go on with a match that was cut short (a kill, a crash, a closed
    /// terminal), or extend a finished one to more --pairs: keep the whole
    /// pairs that --out's file (OUT.partial while unfinished) holds and
    /// play from the next pair. Give the same command as before; games
    /// from another match (rule set, players, seed, openings) are refused.
    #[arg(long, requires = "out")]
    resume: bool,
    /// Also write every game as an OpenTafl game file (.otg) in this
    /// directory (created if missing).
    #[arg(long, value_name = "DIR")]
    otg: Option<PathBuf>,
    /// Print the summary as one JSON object.
    #[arg(long)]
    json: bool,
}

/// `MAIN[+INC][/PERIODSxOVERTIME]`, in seconds.
fn parse_clock(s: &str) -> Result<TimeControl> {
    let bad = || {
        anyhow::anyhow!("--clock `{s}`: expected MAIN[+INCREMENT][/PERIODSxOVERTIME] in seconds, e.g. 60+1 or 30/3x5")
    };
    let secs = |t: &str| -> Result<Duration> {
        let x: f64 = t.trim().parse().map_err(|_| bad())?;
        if !(0.0..=86_400.0).contains(&x) {
            bail!("--clock `{s}`: `{t}` is not between 0 and 86400 seconds");
        }
        Ok(Duration::from_secs_f64(x))
    };
    let (rest, overtime) = match s.split_once('/') {
        Some((r, o)) => {
            let (n, t) = o.split_once('x').ok_or_else(bad)?;
            let n: u32 = n.trim().parse().map_err(|_| bad())?;
            if n > 1000 {
                bail!("--clock `{s}`: at most 1000 overtime periods");
            }
            (r, Some((n, secs(t)?)))
        }
        None => (s, None),
    };
    let (main, inc) = match rest.split_once('+') {
        Some((m, i)) => (secs(m)?, secs(i)?),
        None => (secs(rest)?, Duration::ZERO),
    };
    let (periods, overtime) = overtime.unwrap_or((0, Duration::ZERO));
    if main.is_zero() && (periods == 0 || overtime.is_zero()) {
        bail!("--clock `{s}`: no time at all to play with");
    }
    Ok(TimeControl {
        main,
        increment: inc,
        overtime,
        overtime_periods: periods,
    })
}

fn parse_sprt(s: &str) -> Result<Sprt> {
    let (a, b) = s
        .split_once(',')
        .context("--sprt wants ELO0,ELO1, e.g. 0,20")?;
    let (e0, e1): (f64, f64) = (
        a.trim().parse().context("--sprt ELO0")?,
        b.trim().parse().context("--sprt ELO1")?,
    );
    if e1 <= e0 {
        bail!("--sprt: ELO1 ({e1}) must exceed ELO0 ({e0})");
    }
    Ok(Sprt::new(e0, e1))
}

pub fn run(a: Args, env: &super::Env) -> Result<()> {
    let rules = Arc::new(super::load_rules(&a.rules)?);
    let (pa, pb) = (PlayerSpec::parse(&a.a)?, PlayerSpec::parse(&a.b)?);
    let clock = a.clock.as_deref().map(parse_clock).transpose()?;
    // Timed searches use every core each (MCTS and alpha-beta alike), so
    // their games are played one at a time: each player then has the
    // whole machine on its moves, and the two sides the same hardware.
    let timed = clock.is_some() || pa.is_timed() || pb.is_timed();
    let threads = match a.threads {
        Some(t) => t as usize,
        None if timed => 1,
        None => brandubh_play::all_cores(),
    };
    let cfg = MatchConfig {
        rules,
        a: pa,
        b: pb,
        pairs: a.pairs,
        openings: a.openings,
        seed: a.seed,
        max_plies: a.max_plies,
        threads,
        sprt: a.sprt.as_deref().map(parse_sprt).transpose()?,
        swap_sides: true,
        balanced: a.balanced.map(|m| OpeningFilter {
            margin: m.min(i32::MAX as u32) as i32,
            nodes: a.balance_nodes.max(1),
        }),
        clock,
        ctx: env.play_context(),
    };
    if cfg.a.kind == PlayerKind::Human || cfg.b.kind == PlayerKind::Human {
        bail!("the arena plays engines against each other; use `brandubh play` for a human player");
    }
    let bar = ProgressBar::new(cfg.pairs * 2);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games  {per_sec}  eta {eta}  {msg}")
            .expect("valid template"),
    );
    if a.json {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    if let Some(dir) = &a.otg {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let prior = match (&a.out, a.resume) {
        (Some(out), true) => earlier_games(&cfg, out)?,
        _ => Resumed::default(),
    };
    bar.inc(prior.games.len() as u64);
    let (summary, games) = run_match_from(&cfg, &prior.games, a.out.as_deref(), &|_| bar.inc(1))?;
    bar.finish_and_clear();
    if let Some(dir) = &a.otg {
        for g in &games {
            super::games::write_match_game(dir, &cfg.rules, g)?;
        }
    }
    if a.json {
        println!("{}", serde_json::to_string(&summary)?);
    } else {
        print_summary(&summary);
        if let Some(out) = &a.out {
            println!("games written to {}", out.display());
        }
    }
    Ok(())
}

/// The whole pairs of an earlier run of this match, with a line saying
/// where they came from.
pub(super) fn earlier_games(cfg: &MatchConfig, out: &std::path::Path) -> Result<Resumed> {
    let Some((path, prior)) = earlier_pairs(cfg, out)? else {
        eprintln!(
            "resume: no games at {} or {}: starting from the first pair",
            partial_path(out).display(),
            out.display()
        );
        return Ok(Resumed::default());
    };
    eprintln!(
        "resume: {} whole pairs kept from {}{}",
        prior.pairs,
        path.display(),
        if prior.dropped > 0 {
            format!(
                ", {} games of unfinished pairs to be played again",
                prior.dropped
            )
        } else {
            String::new()
        }
    );
    Ok(prior)
}

fn print_summary(s: &MatchSummary) {
    println!(
        "{} vs {} under {}: {} pairs, {} games ({} unfinished)",
        s.a, s.b, s.rules, s.pairs, s.games, s.unfinished
    );
    match s.balanced {
        Some(m) => println!(
            "openings: {} random plies, balanced (within {m} of the start's score)",
            s.openings
        ),
        None => println!("openings: {} random plies", s.openings),
    }
    println!(
        "{:<12} {:>18} {:>18}",
        "", "as attackers W/D/L", "as defenders W/D/L"
    );
    for (name, att, def) in [
        ("A", s.a_as_attackers, s.a_as_defenders),
        ("B", s.b_as_attackers, s.b_as_defenders),
    ] {
        println!(
            "{:<12} {:>18} {:>18}",
            name,
            format!("{}/{}/{}", att.wins, att.draws, att.losses),
            format!("{}/{}/{}", def.wins, def.draws, def.losses)
        );
    }
    for (name, t) in [("A", s.a_times), ("B", s.b_times)] {
        if t.moves > 0 {
            println!(
                "{name} time per move: mean {:.1} ms, max {:.1} ms over {} moves",
                t.mean_ms, t.max_ms, t.moves
            );
        }
    }
    let p = s.pentanomial.0;
    println!("pair results for A (0, ½, 1, 1½, 2 points): {p:?}");
    println!(
        "A scores {:.1} %: Elo {:+.1} (95 % CI {:+.1} .. {:+.1}), LOS {:.1} %",
        s.score * 100.0,
        s.elo,
        s.elo_ci95[0],
        s.elo_ci95[1],
        s.los * 100.0
    );
    if let Some(r) = &s.sprt {
        println!(
            "SPRT [{}, {}]: LLR {:.3} (bounds {:.3}, {:.3}): {:?}",
            r.elo0, r.elo1, r.llr, r.bounds[0], r.bounds[1], r.verdict
        );
    }
}
