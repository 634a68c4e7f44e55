//! `brandubh balance --sweep`: a balance study as a resumable run
//! directory, and its report (table, JSON, charts).

use super::write_atomic;
use anyhow::{bail, Context, Result};
use brandubh_arena::balance::Balance;
use brandubh_arena::sweep::{
    chunk_path, play_chunk, results, write_study_games, Chunk, SweepConfig, VariantResult,
};
use brandubh_charts::{named_line_chart, Series};
use brandubh_play::PlayerSpec;
use indicatif::{ProgressBar, ProgressStyle};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

pub fn run(
    file: &Path,
    run_dir: Option<&Path>,
    threads: Option<usize>,
    net_minutes: Option<f64>,
    env: &super::Env,
) -> Result<()> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let stem = file
        .file_stem()
        .map_or("sweep".into(), |s| s.to_string_lossy().into_owned());
    let dir: PathBuf = run_dir.map_or_else(
        || PathBuf::from(format!("runs/balance-{stem}")),
        Path::to_path_buf,
    );
    let saved = dir.join("sweep.toml");
    match std::fs::read_to_string(&saved) {
        Ok(old) if old != text => bail!(
            "{} already holds a study with a different config; resume it with the same file or choose another --run-dir",
            dir.display()
        ),
        Ok(_) => println!("resuming the study in {}", dir.display()),
        Err(_) => {
            std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
            write_atomic(&saved, text.as_bytes())?;
            println!("new study in {}", dir.display());
        }
    }
    let name = file.display().to_string();
    let cfg = SweepConfig::parse(&text, &name)?;
    let mut variants = cfg.variants(&name, &|r| {
        super::load_rules(r).map_err(|e| format!("{e:#}"))
    })?;
    match (net_minutes, &cfg.finetune) {
        (Some(m), Some(f)) => super::finetune::finetune_variants(f, &dir, &mut variants, m, env)?,
        (Some(_), None) => bail!("{name}: --net-minutes needs a [finetune] section in the study"),
        (None, _) => {}
    }
    // The chunks still to play.
    let mut todo = Vec::new();
    for v in &variants {
        for cell in &v.cells {
            for chunk in cfg.chunks() {
                if !chunk_path(&dir, &v.name, cell, chunk.0).is_file() {
                    todo.push((v, cell, chunk));
                }
            }
        }
    }
    let total: u64 = todo.iter().map(|t| t.2 .1).sum();
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games  eta {eta}  {msg}")
            .expect("valid template"),
    );
    let ctx = env.play_context();
    let start = Instant::now();
    for (v, cell, chunk) in &todo {
        let timed =
            PlayerSpec::parse(&cell.0)?.is_timed() || PlayerSpec::parse(&cell.1)?.is_timed();
        // Timed searches use every core each, one game at a time, as in `match`.
        let threads = threads.unwrap_or_else(|| if timed { 1 } else { brandubh_play::all_cores() });
        bar.set_message(format!("{}: {} vs {}", v.name, cell.0, cell.1));
        let job = Chunk {
            variant: v,
            cell,
            chunk: *chunk,
        };
        play_chunk(&cfg, &dir, job, threads, &ctx, &|_| bar.inc(1))?;
    }
    bar.finish_and_clear();
    if !todo.is_empty() {
        println!(
            "played {total} games in {:.0} s",
            start.elapsed().as_secs_f64()
        );
    }
    let res = results(&dir, &variants)?;
    let (table, rows) = write_study_games(&dir, &variants)?;
    println!("{rows} games in {}", table.display());
    report(&dir, &cfg, &res)
}

/// A player spec short enough for an axis label: a net named by its
/// folder, without the thread count.
fn short_spec(spec: &str) -> String {
    spec.split(',')
        .filter(|p| !p.starts_with("threads="))
        .map(|p| p.replace("model=models/", "").replace("model=", ""))
        .collect::<Vec<_>>()
        .join(",")
}

/// A player's line in the study chart: a net fine-tuned for its variant
/// (a model under the study's `nets/`) is named by its role, so that the
/// variants' own nets share one line.
fn chart_name(spec: &str, nets: &str) -> String {
    let parts: Vec<&str> = spec.split(',').collect();
    let own = parts.iter().any(|p| {
        p.split_once("model=")
            .is_some_and(|(_, m)| Path::new(m).starts_with(nets))
    });
    if !own {
        return short_spec(spec);
    }
    let mut name = "each variant's fine-tuned net".to_string();
    for p in parts
        .iter()
        .filter(|p| !p.contains("model=") && !p.starts_with("threads="))
    {
        name.push_str(", ");
        name.push_str(p);
    }
    name
}

fn pct(x: f64) -> String {
    format!("{:.1}", 100.0 * x)
}

fn share(b: &Balance) -> String {
    format!(
        "{} ({}–{})",
        pct(b.attackers.share),
        pct(b.attackers.ci95[0]),
        pct(b.attackers.ci95[1])
    )
}

/// Distance of a variant's strongest-rung attackers' share from even.
fn unfairness(v: &VariantResult) -> f64 {
    v.ladder.last().map_or(f64::INFINITY, |c| {
        (c.balance.attackers.share + 0.5 * c.balance.draws.share - 0.5).abs()
    })
}

fn report(dir: &Path, cfg: &SweepConfig, res: &[VariantResult]) -> Result<()> {
    let out = dir.join("report");
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let mut order: Vec<&VariantResult> = res.iter().collect();
    order.sort_by(|a, b| unfairness(a).total_cmp(&unfairness(b)));
    let mut md = format!(
        "# Balance study\n\n{} openings per cell ({} random plies{}), one game each; attackers' share of games with its 95 % Wilson interval. Variants sorted by how far the strongest rung's attackers' score (draws half) is from 50 %.\n\n",
        cfg.pairs,
        cfg.openings,
        if cfg.balanced > 0 { format!(", balanced within {}", cfg.balanced) } else { String::new() }
    );
    md.push_str("| rank | variant | strongest rung | games | attackers % (95 % CI) | draws % | mean plies | settled | cross-play |\n|---|---|---|---|---|---|---|---|---|\n");
    for (i, v) in order.iter().enumerate() {
        let top = v.ladder.last();
        let cross: Vec<&str> = v.cross.iter().map(|c| c.verdict.as_str()).collect();
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            i + 1,
            v.name,
            top.map_or("—".into(), |c| c.attackers.clone()),
            top.map_or(0, |c| c.balance.games),
            top.map_or("—".into(), |c| share(&c.balance)),
            top.map_or("—".into(), |c| pct(c.balance.draws.share)),
            top.map_or("—".into(), |c| format!("{:.1}", c.balance.lengths.mean)),
            match v.settled {
                Some(true) => "yes",
                Some(false) => "no",
                None => "—",
            },
            if cross.is_empty() {
                "—".to_string()
            } else {
                cross.join("; ")
            }
        );
    }
    md.push_str("\n## Every cell\n\n| variant | attackers | defenders | games | attackers % (95 % CI) | defenders % | draws % | unfinished % | mean plies |\n|---|---|---|---|---|---|---|---|---|\n");
    for v in &order {
        for c in &v.cells {
            let b = &c.balance;
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {:.1} |",
                v.name,
                c.attackers,
                c.defenders,
                b.games,
                share(b),
                pct(b.defenders.share),
                pct(b.draws.share),
                pct(b.unfinished.share),
                b.lengths.mean
            );
        }
    }
    let checks: Vec<_> = order
        .iter()
        .flat_map(|v| v.cross.iter().map(move |c| (v, c)))
        .collect();
    if !checks.is_empty() {
        md.push_str("\n## Cross-play\n\nAttackers' score (draws half) with A and B on each side; the cross-play mean is what the rules give when each player's two sides are averaged out.\n\n| variant | A | B | A–A | B–B | A att. vs B | B att. vs A | cross mean (95 % CI) | verdict |\n|---|---|---|---|---|---|---|---|---|\n");
        for (v, c) in checks {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {} | {} ({}–{}) | {} |",
                v.name,
                c.a,
                c.b,
                pct(c.aa),
                pct(c.bb),
                pct(c.ab),
                pct(c.ba),
                pct(c.cross_mean),
                pct(c.cross_ci95[0]),
                pct(c.cross_ci95[1]),
                c.verdict
            );
        }
    }
    write_atomic(&out.join("sweep.md"), md.as_bytes())?;
    write_atomic(
        &out.join("sweep.json"),
        serde_json::to_string_pretty(&res)?.as_bytes(),
    )?;
    // One chart over the variants (the fairest first), a line per ladder
    // player, at each variant whose ladder has it; the variants' own
    // fine-tuned nets make one line between them.
    let nets = dir.join("nets").display().to_string();
    let mut players: Vec<String> = Vec::new();
    for v in &order {
        for c in &v.ladder {
            let name = chart_name(&c.attackers, &nets);
            if !players.contains(&name) {
                players.push(name);
            }
        }
    }
    let series: Vec<Series> = players
        .iter()
        .map(|p| Series {
            name: p.clone(),
            points: order
                .iter()
                .enumerate()
                .filter_map(|(i, v)| {
                    let b = &v
                        .ladder
                        .iter()
                        .find(|c| chart_name(&c.attackers, &nets) == *p)?
                        .balance;
                    Some((
                        (i + 1) as f64,
                        b.attackers.share,
                        Some((b.attackers.ci95[0], b.attackers.ci95[1])),
                    ))
                })
                .collect(),
        })
        .collect();
    // Names too long to sit side by side become ranks, as in sweep.md.
    let long = order.iter().map(|v| v.name.len() + 2).sum::<usize>() > 90;
    let variant_names: Vec<String> = order
        .iter()
        .enumerate()
        .map(|(i, v)| {
            if long {
                (i + 1).to_string()
            } else {
                v.name.clone()
            }
        })
        .collect();
    named_line_chart(
        &out.join("sweep"),
        "Attackers' share per variant (fairest first; see sweep.md)",
        (
            if long {
                "variant, by its rank in sweep.md"
            } else {
                "variant"
            },
            "attackers' share of games, 95 % CI",
        ),
        &series,
        &[("even".to_string(), 0.5)],
        &variant_names,
    )?;
    // Per variant: the share as play gets stronger.
    for v in res {
        if v.ladder.is_empty() {
            continue;
        }
        let s = Series {
            name: "self-play at each rung".into(),
            points: v
                .ladder
                .iter()
                .enumerate()
                .map(|(k, c)| {
                    let b = &c.balance;
                    (
                        (k + 1) as f64,
                        b.attackers.share,
                        Some((b.attackers.ci95[0], b.attackers.ci95[1])),
                    )
                })
                .collect(),
        };
        let stem = format!(
            "strength-{}",
            v.name
                .replace(|c: char| !c.is_ascii_alphanumeric() && c != '-', "_")
        );
        let rungs: Vec<String> = v.ladder.iter().map(|c| short_spec(&c.attackers)).collect();
        named_line_chart(
            &out.join(stem),
            &format!("{}: attackers' share as play gets stronger", v.name),
            (
                "ladder rung, weakest first (players in sweep.md)",
                "attackers' share of games, 95 % CI",
            ),
            &[s],
            &[("even".to_string(), 0.5)],
            &rungs,
        )?;
    }
    print!("{md}");
    println!("report and charts in {}", out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::chart_name;

    #[test]
    fn the_variants_own_nets_share_one_chart_line() {
        let nets = "runs/balance-x/nets";
        let a = chart_name(
            "mcts:model=runs/balance-x/nets/wtf-1/run/checkpoints/gen-0003,sims=64,threads=1",
            nets,
        );
        let b = chart_name(
            "mcts:model=runs/balance-x/nets/king-2/run/checkpoints/gen-0002,sims=64,threads=1",
            nets,
        );
        assert_eq!(a, "each variant's fine-tuned net, sims=64");
        assert_eq!(a, b);
        assert_eq!(
            chart_name("mcts:model=models/wtf,sims=16,threads=1", nets),
            "mcts:wtf,sims=16"
        );
        assert_eq!(chart_name("alphabeta:depth=3", nets), "alphabeta:depth=3");
    }
}
