use super::write_atomic;
use anyhow::{bail, Context, Result};
use brandubh_arena::{
    balance::summarise_all, balance::Balance, balance::GameOutcome, balance::HUMAN_RECORD,
};
use brandubh_arena::{read_records, run_match_from, MatchConfig, Resumed};
use brandubh_charts::attacker_share_chart;
use brandubh_play::PlayerSpec;
use brandubh_rules::{all_names, RuleSet};
use brandubh_selfplay::{records::read_dir, records::read_shard};
use indicatif::{ProgressBar, ProgressStyle};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A rule set name, a TOML path, or `all` (the five built-in rule sets).
    #[arg(long, default_value = "all")]
    rules: String,
    /// The player of both sides (e.g. alphabeta:depth=3, mcts:model=DIR,sims=200).
    #[arg(long, default_value = "alphabeta:depth=3")]
    player: String,
    /// Player of the attackers only (with --defenders).
    #[arg(long, requires = "defenders")]
    attackers: Option<String>,
    /// Player of the defenders only (with --attackers).
    #[arg(long, requires = "attackers")]
    defenders: Option<String>,
    /// Openings per rule set; with one player both sides of each are played.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pairs: u64,
    /// Random plies from the start before the players take over.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(0..=200))]
    openings: u32,
    /// Games still going at this many plies count as unfinished.
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    max_plies: u32,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Games played at once, 1 to 256 (default: all cores; 1 when a player
    /// searches with a time limit, so each side has every core on its moves).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256))]
    threads: Option<usize>,
    /// Summarise existing games instead of playing: self-play shard
    /// directories or `.games.parquet` files, or arena `.jsonl` files.
    #[arg(long, num_args = 1.., conflicts_with_all = ["attackers", "defenders"])]
    games: Vec<PathBuf>,
    /// Report directory: balance.md, balance.json, attacker_share.png/.svg.
    #[arg(long, default_value = "balance-report")]
    out: PathBuf,
    /// Print the summaries as JSON.
    #[arg(long)]
    json: bool,
    /// Go on with a balance run that was cut short: each rule set's games
    /// file in --out (`games-R.jsonl`, or its `.partial`) keeps its whole
    /// pairs and play goes on from the next. Give the same command again.
    #[arg(long, conflicts_with_all = ["games", "sweep"])]
    resume: bool,
    /// A balance study (configs/balance/*.toml): rule sets or rule
    /// variants, each played by a ladder of players and in cross-play, as
    /// a run directory that resumes after a kill (docs/balance.md).
    #[arg(long, value_name = "FILE.toml", conflicts_with_all = ["games", "attackers", "defenders"])]
    sweep: Option<PathBuf>,
    /// The study's directory (default: runs/balance-STEM); an existing one
    /// is resumed, and only its report is rebuilt when every game is in.
    #[arg(long, requires = "sweep")]
    run_dir: Option<PathBuf>,
    /// With a study that has `[finetune]`: train each variant a net of its
    /// own for this many minutes of wall time (from the study's starting
    /// net, resumable, in the study directory) and put it on the
    /// variant's ladder.
    #[arg(long, value_name = "M", requires = "sweep")]
    net_minutes: Option<f64>,
}

fn load_games(paths: &[PathBuf]) -> Result<Vec<GameOutcome>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let (games, errors) = read_dir(p);
            for e in errors {
                eprintln!("warning: skipped {e}");
            }
            out.extend(games.iter().map(GameOutcome::from));
        } else if p.to_string_lossy().ends_with(".parquet") {
            out.extend(read_shard(p)?.iter().map(GameOutcome::from));
        } else {
            out.extend(read_records(p)?.iter().map(GameOutcome::from));
        }
    }
    if out.is_empty() {
        bail!("no games found in {:?}", paths);
    }
    Ok(out)
}

fn play_games(a: &Args, env: &super::Env) -> Result<Vec<GameOutcome>> {
    let names = if a.rules == "all" {
        all_names().into_iter().take(5).collect()
    } else {
        vec![a.rules.clone()]
    };
    let (att, def) = match (&a.attackers, &a.defenders) {
        (Some(x), Some(y)) => (x.clone(), y.clone()),
        _ => (a.player.clone(), a.player.clone()),
    };
    let same = att == def;
    let (att, def) = (PlayerSpec::parse(&att)?, PlayerSpec::parse(&def)?);
    // As in `match`: timed searches use every core each, so their games
    // are played one at a time and both sides have the same hardware.
    let timed = att.is_timed() || def.is_timed();
    let threads = a
        .threads
        .unwrap_or_else(|| if timed { 1 } else { brandubh_play::all_cores() });
    let per = if same { 2 } else { 1 };
    let bar = ProgressBar::new(a.pairs * per * names.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games  eta {eta}  {msg}")
            .expect("valid template"),
    );
    let mut out = Vec::new();
    let ctx = env.play_context();
    for name in names {
        let rules: Arc<RuleSet> = Arc::new(super::load_rules(&name)?);
        bar.set_message(name.clone());
        let cfg = MatchConfig {
            rules,
            a: att.clone(),
            b: def.clone(),
            pairs: a.pairs,
            openings: a.openings,
            seed: a.seed,
            max_plies: a.max_plies,
            threads,
            sprt: None,
            swap_sides: same,
            balanced: None,
            clock: None,
            ctx: ctx.clone(),
        };
        let file = a.out.join(format!("games-{name}.jsonl"));
        let prior = if a.resume {
            bar.suspend(|| super::arena::earlier_games(&cfg, &file))?
        } else {
            Resumed::default()
        };
        bar.inc(prior.games.len() as u64);
        let (_, games) = run_match_from(&cfg, &prior.games, Some(&file), &|_| bar.inc(1))?;
        out.extend(games.iter().map(GameOutcome::from));
    }
    bar.finish_and_clear();
    Ok(out)
}

fn pct(x: f64) -> String {
    format!("{:.1}", 100.0 * x)
}

fn table(rows: &[Balance]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "| rules | group | games | attackers % (95 % CI) | defenders % (95 % CI) | draws % | unfinished % | length mean / median (IQR) | endings |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|");
    for b in rows {
        let endings: Vec<String> = b.endings.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} ({}–{}) | {} ({}–{}) | {} | {} | {:.1} / {:.0} ({:.0}–{:.0}) | {} |",
            b.rules,
            b.group,
            b.games,
            pct(b.attackers.share),
            pct(b.attackers.ci95[0]),
            pct(b.attackers.ci95[1]),
            pct(b.defenders.share),
            pct(b.defenders.ci95[0]),
            pct(b.defenders.ci95[1]),
            pct(b.draws.share),
            pct(b.unfinished.share),
            b.lengths.mean,
            b.lengths.median,
            b.lengths.q1,
            b.lengths.q3,
            endings.join(", ")
        );
    }
    s
}

fn human_section(rows: &[Balance]) -> String {
    let mut s = String::from(
        "\n## Beside the human record\n\nHuman games on the World Tafl Federation's online server, counted from its public archive, next to our nearest rule set. The mapping is ours: it matches the king-capture rule beside the throne, the one difference the server's variants name.\n\n| human rule set | games | defenders % | attackers % | our nearest | our attackers % (95 % CI) | our defenders % |\n|---|---|---|---|---|---|---|\n",
    );
    for (name, def, att, n, ours) in HUMAN_RECORD {
        let mine = rows.iter().find(|b| b.rules == ours);
        let (a, d) = match mine {
            Some(b) => (
                format!(
                    "{} ({}–{})",
                    pct(b.attackers.share),
                    pct(b.attackers.ci95[0]),
                    pct(b.attackers.ci95[1])
                ),
                pct(b.defenders.share),
            ),
            None => ("not measured".into(), "–".into()),
        };
        let _ = writeln!(
            s,
            "| {name} | {n} | {} | {} | {ours} | {a} | {d} |",
            pct(def),
            pct(att)
        );
    }
    s
}

pub fn run(a: Args, env: &super::Env) -> Result<()> {
    if let Some(file) = &a.sweep {
        return super::sweep::run(file, a.run_dir.as_deref(), a.threads, a.net_minutes, env);
    }
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    let from_files = !a.games.is_empty();
    let games = if from_files {
        load_games(&a.games)?
    } else {
        play_games(&a, env)?
    };
    let rows = summarise_all(&games);
    let source = if from_files {
        format!("games read from {:?}", a.games)
    } else {
        match (&a.attackers, &a.defenders) {
            (Some(x), Some(y)) => format!(
                "attackers `{x}` against defenders `{y}`, {} openings per rule set",
                a.pairs
            ),
            _ => format!(
                "`{}` playing both sides, {} openings × 2 games per rule set",
                a.player, a.pairs
            ),
        }
    };
    let mut md = format!(
        "# Side balance\n\n{source}. Openings: {} random plies.\n\n",
        a.openings
    );
    md.push_str(&table(&rows));
    md.push_str(&human_section(&rows));
    write_atomic(&a.out.join("balance.md"), md.as_bytes())?;
    write_atomic(
        &a.out.join("balance.json"),
        serde_json::to_string_pretty(&rows)?.as_bytes(),
    )?;
    // One chart across rule sets; with several groups per rule set (a
    // training run's generations), one chart per rule set over the groups.
    let mut rules_seen: Vec<&str> = Vec::new();
    for r in &rows {
        if !rules_seen.contains(&r.rules.as_str()) {
            rules_seen.push(&r.rules);
        }
    }
    let single_group = rules_seen.len() == rows.len();
    if single_group {
        let items: Vec<(String, _)> = rows
            .iter()
            .map(|b| (b.rules.clone(), b.attackers))
            .collect();
        attacker_share_chart(
            &a.out.join("attacker_share"),
            "Attackers' share per rule set",
            &items,
        )?;
    } else {
        for r in &rules_seen {
            let items: Vec<(String, _)> = rows
                .iter()
                .filter(|b| b.rules == *r)
                .enumerate()
                .map(|(i, b)| (format!("{i}"), b.attackers))
                .collect();
            attacker_share_chart(
                &a.out.join(format!("attacker_share-{r}")),
                &format!("{r}: attackers' share per generation"),
                &items,
            )?;
        }
    }
    if a.json {
        println!("{}", serde_json::to_string(&rows)?);
    } else {
        print!("{}", table(&rows));
        println!("report, charts and games in {}", a.out.display());
    }
    Ok(())
}
