use anyhow::{bail, Context, Result};
use brandubh_charts::{line_chart, Point, Reference, Series};
use brandubh_train::run::EqualTime;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Charts and a table of a training run's progress, from its
/// `generations.jsonl` and `ratings.json`.
///
/// Writes, as PNG and SVG: the rating of each generation (Bradley–Terry
/// over every arena game of the run, anchored on the baseline, 95 %
/// intervals, the ladder's fixed players as reference lines) against the
/// generation, against training hours and against CPU-hours; the
/// attackers' share of self-play games; the final policy and value
/// losses. Prints the table, and writes it as `report.md`, with the
/// ratings drawn as `report.json`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The run directory.
    #[arg(long)]
    run_dir: PathBuf,
    /// Where the charts go (default: RUN_DIR/report).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Another run to draw beside this one on the rating charts, so that
    /// forks of one run (or runs of one rule set) are compared by the
    /// rating they reach per CPU-hour. Repeat it for more runs; each must
    /// be rated against the same anchor (the baseline) as RUN_DIR.
    #[arg(long, value_name = "RUN_DIR")]
    compare: Vec<PathBuf>,
}

struct Gen {
    iteration: u64,
    hours: f64,
    /// Cumulative CPU-hours, while every record so far has them.
    cpu_hours: Option<f64>,
    attacker_share: f64,
    score_vs_baseline: Option<f64>,
    policy_loss: Option<f64>,
    value_loss: Option<f64>,
    rating: Option<(f64, f64)>,
    /// (ms, score, Elo, CI low, CI high) against alpha-beta at equal time.
    equal_time: Vec<(u64, f64, f64, f64, f64)>,
}

/// What the report reads of a line of `generations.jsonl` (an
/// `IterationRecord`; fields a record lacks are drawn as missing).
#[derive(Deserialize)]
struct GenerationLine {
    iteration: u64,
    #[serde(default)]
    selfplay_seconds: f64,
    #[serde(default)]
    train_seconds: f64,
    #[serde(default)]
    eval_seconds: f64,
    #[serde(default)]
    cpu_seconds: Option<f64>,
    #[serde(default = "not_a_number")]
    attacker_share: f64,
    score_vs_baseline: Option<f64>,
    final_policy_loss: Option<f64>,
    final_value_loss: Option<f64>,
    #[serde(default)]
    equal_time: Vec<EqualTime>,
}

fn not_a_number() -> f64 {
    f64::NAN
}

/// What the report reads of `ratings.json` (a rating table).
#[derive(Deserialize)]
struct RatingsFile {
    anchor: String,
    ratings: Vec<Rating>,
}

#[derive(Clone, Deserialize)]
struct Rating {
    player: String,
    #[serde(default)]
    specs: Vec<String>,
    elo: f64,
    ci95: f64,
}

/// The run's generation records; a bad line is an error naming the file
/// and line.
fn read_generations(path: &Path) -> Result<Vec<GenerationLine>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).with_context(|| format!("{} line {}", path.display(), i + 1))
        })
        .collect()
}

/// The generation a path or spec names (`…/gen-0012,…`), if any.
fn generation_of(text: &str) -> Option<u64> {
    let at = text.find("gen-")?;
    text[at + 4..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect::<String>()
        .parse()
        .ok()
}

/// The model ids (the start of each checkpoint's content hash, as rated
/// players are named: `mcts:model=ID,…`) of the run's generations.
fn model_ids(run_dir: &Path) -> BTreeMap<String, u64> {
    let mut ids = BTreeMap::new();
    let Ok(dir) = std::fs::read_dir(run_dir.join("checkpoints")) else {
        return ids;
    };
    for e in dir.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(g) = name
            .strip_prefix("gen-")
            .and_then(|n| n.parse::<u64>().ok())
        else {
            continue;
        };
        if let Ok(meta) = brandubh_model::read_meta(&e.path()) {
            ids.insert(meta.model_id(), g);
        }
    }
    ids
}

/// The generation a rated player is, by the paths it played under, its
/// name, or the model id in its name.
fn generation_of_rating(r: &Rating, ids: &BTreeMap<String, u64>) -> Option<u64> {
    r.specs
        .iter()
        .find_map(|s| generation_of(s))
        .or_else(|| generation_of(&r.player))
        .or_else(|| {
            let at = r.player.find("model=")? + "model=".len();
            let id: String = r.player[at..]
                .chars()
                .take_while(|c| c.is_ascii_hexdigit())
                .collect();
            ids.get(&id).copied()
        })
}

/// A run's generations, each with its rating where it has one, the fixed
/// ladder players on the same scale, and the anchor's name.
fn gather(run_dir: &Path) -> Result<Gathered> {
    let records = read_generations(&run_dir.join("generations.jsonl"))?;
    if records.is_empty() {
        bail!("{}: no generation finished yet", run_dir.display());
    }
    let ratings: Option<RatingsFile> = match std::fs::read_to_string(run_dir.join("ratings.json")) {
        Ok(t) => Some(serde_json::from_str(&t).context("reading ratings.json")?),
        Err(_) => None,
    };
    let rated: Vec<Rating> = ratings.as_ref().map_or(vec![], |r| r.ratings.clone());
    let anchor = ratings
        .as_ref()
        .map_or("the baseline".to_string(), |r| r.anchor.clone());
    let ids = model_ids(run_dir);
    // Each rated player is a generation of this run or a fixed ladder
    // player, drawn as a labelled reference line.
    let mut by_generation: BTreeMap<u64, (f64, f64)> = BTreeMap::new();
    let mut refs: Vec<(String, f64)> = Vec::new();
    for r in &rated {
        match generation_of_rating(r, &ids) {
            Some(g) => {
                by_generation.insert(g, (r.elo, r.ci95));
            }
            None => refs.push((r.player.clone(), r.elo)),
        }
    }
    let mut hours = 0.0;
    let mut cpu_hours = Some(0.0);
    let mut gens = Vec::new();
    for r in &records {
        hours += (r.selfplay_seconds + r.train_seconds + r.eval_seconds) / 3600.0;
        cpu_hours = cpu_hours.zip(r.cpu_seconds).map(|(h, c)| h + c / 3600.0);
        let iteration = r.iteration;
        let finite = |x: Option<f64>| x.filter(|v| v.is_finite());
        gens.push(Gen {
            iteration,
            hours,
            cpu_hours,
            attacker_share: r.attacker_share,
            score_vs_baseline: r.score_vs_baseline,
            policy_loss: finite(r.final_policy_loss),
            value_loss: finite(r.final_value_loss),
            rating: by_generation.get(&iteration).copied(),
            equal_time: r
                .equal_time
                .iter()
                .map(|t| (t.ms, t.score, t.elo, t.elo_ci95[0], t.elo_ci95[1]))
                .collect(),
        });
    }
    Ok(Gathered { gens, refs, anchor })
}

/// What `gather` reads of a run.
struct Gathered {
    gens: Vec<Gen>,
    /// Fixed players on the same scale: name, Elo.
    refs: Vec<(String, f64)>,
    anchor: String,
}

/// The numbers the charts draw, as JSON: the report's `report.json`, and
/// what `brandubh serve` shows for a run.
pub fn data(run_dir: &Path) -> Result<serde_json::Value> {
    let g = gather(run_dir)?;
    Ok(to_json(&g.gens, &g.refs, &g.anchor))
}

fn to_json(gens: &[Gen], refs: &[(String, f64)], anchor: &str) -> serde_json::Value {
    let num = |x: f64| if x.is_finite() { Some(x) } else { None };
    serde_json::json!({
        "anchor": anchor,
        "generations": gens.iter().map(|g| serde_json::json!({
            "generation": g.iteration,
            "hours": g.hours,
            "cpu_hours": g.cpu_hours,
            "elo": g.rating.map(|r| r.0),
            "ci95": g.rating.map(|r| r.1),
            "attacker_share": num(g.attacker_share),
            "score_vs_baseline": g.score_vs_baseline,
            "policy_loss": g.policy_loss,
            "value_loss": g.value_loss,
        })).collect::<Vec<_>>(),
        "references": refs.iter().map(|(n, e)| serde_json::json!({"player": n, "elo": e})).collect::<Vec<_>>(),
    })
}

/// The last part of a run directory's path, as charts name the run.
fn name_of(run_dir: &Path) -> String {
    run_dir
        .file_name()
        .map_or("run".to_string(), |n| n.to_string_lossy().into_owned())
}

/// The rated generations of a run as chart points, `x` giving each one's
/// place on the horizontal axis.
fn rating_points(gens: &[Gen], x: &dyn Fn(&Gen) -> f64) -> Vec<Point> {
    gens.iter()
        .filter_map(|g| g.rating.map(|(e, ci)| (x(g), e, Some((e - ci, e + ci)))))
        .collect()
}

pub fn run(a: Args) -> Result<()> {
    let Gathered { gens, refs, anchor } = gather(&a.run_dir)?;
    let mut others: Vec<(String, Vec<Gen>)> = Vec::new();
    for dir in &a.compare {
        let other = gather(dir)?;
        if other.anchor != anchor {
            bail!(
                "{} is rated against {} but {} against {}: their ratings are on different scales",
                dir.display(),
                other.anchor,
                a.run_dir.display(),
                anchor
            );
        }
        others.push((name_of(dir), other.gens));
    }
    let out = a.out.clone().unwrap_or_else(|| a.run_dir.join("report"));
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let run_name = name_of(&a.run_dir);
    // One series per run on the rating charts: this run's alone, or each
    // run named when others are compared with it.
    let (title_name, main_series) = if others.is_empty() {
        (run_name.clone(), "net of each generation".to_string())
    } else {
        (
            format!("{run_name} and {} more", others.len()),
            run_name.clone(),
        )
    };
    let rating_series = |x: &dyn Fn(&Gen) -> f64| -> Vec<Series> {
        std::iter::once((main_series.as_str(), &gens))
            .chain(others.iter().map(|(n, g)| (n.as_str(), g)))
            .map(|(name, g)| Series {
                name: name.to_string(),
                points: rating_points(g, x),
            })
            .collect()
    };
    let y_elo = format!("Elo (anchor {anchor} = 0), 95 % CI");
    type Chart<'a> = (
        &'a str,
        String,
        (&'a str, &'a str),
        Vec<Series>,
        Vec<Reference>,
    );
    let mut charts: Vec<Chart> = vec![
        (
            "elo_by_generation",
            format!("{title_name}: rating per generation"),
            ("generation", y_elo.as_str()),
            rating_series(&|g| g.iteration as f64),
            refs.clone(),
        ),
        (
            "elo_by_hour",
            format!("{title_name}: rating per training hour"),
            ("hours (self-play, training, evaluation)", y_elo.as_str()),
            rating_series(&|g| g.hours),
            refs.clone(),
        ),
    ];
    // Drawn only from runs whose every generation recorded its CPU time.
    let has_cpu = |g: &[Gen]| g.iter().all(|g| g.cpu_hours.is_some());
    if has_cpu(&gens) && others.iter().all(|(_, g)| has_cpu(g)) {
        charts.push((
            "elo_by_cpu_hour",
            format!("{title_name}: rating per CPU-hour"),
            (
                "CPU-hours (every thread of the run's process)",
                y_elo.as_str(),
            ),
            rating_series(&|g| g.cpu_hours.unwrap_or(0.0)),
            refs.clone(),
        ));
    } else if !others.is_empty() {
        eprintln!("no rating-per-CPU-hour chart: a run has generations without their CPU time");
    }
    charts.extend([
        (
            "attacker_share",
            format!("{run_name}: self-play results"),
            ("generation", "share of games"),
            vec![
                Series {
                    name: "attackers' share of self-play wins".into(),
                    points: gens
                        .iter()
                        .map(|g| (g.iteration as f64, g.attacker_share, None))
                        .collect(),
                },
                Series {
                    name: format!("score against {anchor}"),
                    points: gens
                        .iter()
                        .filter_map(|g| g.score_vs_baseline.map(|s| (g.iteration as f64, s, None)))
                        .collect(),
                },
            ],
            vec![],
        ),
        (
            "losses",
            format!("{run_name}: final training losses"),
            ("generation", "loss"),
            vec![
                Series {
                    name: "policy".into(),
                    points: gens
                        .iter()
                        .filter_map(|g| g.policy_loss.map(|l| (g.iteration as f64, l, None)))
                        .collect(),
                },
                Series {
                    name: "value".into(),
                    points: gens
                        .iter()
                        .filter_map(|g| g.value_loss.map(|l| (g.iteration as f64, l, None)))
                        .collect(),
                },
            ],
            vec![],
        ),
    ]);
    let mut times: Vec<u64> = gens
        .iter()
        .flat_map(|g| g.equal_time.iter().map(|t| t.0))
        .collect();
    times.sort_unstable();
    times.dedup();
    if !times.is_empty() {
        charts.push((
            "equal_time",
            format!("{run_name}: against alpha-beta at equal time"),
            ("generation", "Elo against alphabeta:ms=T (95 % CI)"),
            times
                .iter()
                .map(|&ms| Series {
                    name: format!("mcts:…,ms={ms} vs alphabeta:ms={ms}"),
                    points: gens
                        .iter()
                        .filter_map(|g| {
                            let t = g.equal_time.iter().find(|t| t.0 == ms)?;
                            // Clamp a one-sided result so the chart stays readable.
                            let c = |x: f64| x.clamp(-800.0, 800.0);
                            Some((g.iteration as f64, c(t.2), Some((c(t.3), c(t.4)))))
                        })
                        .collect(),
                })
                .collect(),
            vec![("even".to_string(), 0.0)],
        ));
    }
    for (stem, title, axes, series, refs) in &charts {
        line_chart(&out.join(stem), title, *axes, series, refs)?;
    }
    let timed_head: String = times
        .iter()
        .map(|ms| format!(" vs alphabeta:ms={ms} |"))
        .collect();
    let mut table = format!(
        "| generation | hours | CPU-hours | attacker share | score vs {anchor} | Elo (95 % CI) |{timed_head}\n|---|---|---|---|---|---|{}\n",
        "---|".repeat(times.len())
    );
    for g in &gens {
        let timed: String = times
            .iter()
            .map(|ms| match g.equal_time.iter().find(|t| t.0 == *ms) {
                // A score of 0 or 1 has no finite Elo.
                Some(t) if t.1 <= 0.0 || t.1 >= 1.0 => format!(" {:.1} % |", t.1 * 100.0),
                Some(t) => format!(" {:.1} % ({:+.0}) |", t.1 * 100.0, t.2),
                None => " — |".to_string(),
            })
            .collect();
        table.push_str(&format!(
            "| {} | {:.2} | {} | {:.1} % | {} | {} |{timed}\n",
            g.iteration,
            g.hours,
            g.cpu_hours.map_or("—".to_string(), |h| format!("{h:.2}")),
            g.attacker_share * 100.0,
            g.score_vs_baseline
                .map_or("—".to_string(), |s| format!("{:.1} %", s * 100.0)),
            g.rating
                .map_or("—".to_string(), |(e, ci)| format!("{e:+.0} ± {ci:.0}")),
        ));
    }
    if !refs.is_empty() {
        table.push_str("\nFixed players on the same scale: ");
        let list: Vec<String> = refs.iter().map(|(n, e)| format!("{n} {e:+.0}")).collect();
        table.push_str(&list.join(", "));
        table.push('\n');
    }
    super::write_atomic(&out.join("report.md"), table.as_bytes())?;
    // The charts' data, for other tools and the tests.
    let data = to_json(&gens, &refs, &anchor);
    super::write_atomic(
        &out.join("report.json"),
        serde_json::to_string_pretty(&data)
            .expect("JSON")
            .as_bytes(),
    )?;
    print!("{table}");
    println!("charts written to {}", out.display());
    if let Some(hint) = outgrown_hint(&gens, &refs, &a.run_dir) {
        println!("{hint}");
    }
    Ok(())
}

/// A nudge towards `brandubh ladder` when the run's last rated generation
/// stands more than 200 Elo (an expected 76 %) above every fixed player:
/// past that, the ladder's games no longer tell generations apart.
fn outgrown_hint(gens: &[Gen], refs: &[(String, f64)], run_dir: &Path) -> Option<String> {
    let (last, (elo, _)) = gens
        .iter()
        .rev()
        .find_map(|g| g.rating.map(|r| (g.iteration, r)))?;
    let (top, top_elo) = refs.iter().max_by(|a, b| a.1.total_cmp(&b.1))?;
    if elo - top_elo <= 200.0 {
        return None;
    }
    let rungs = match top
        .strip_prefix("alphabeta:depth=")
        .and_then(|d| d.parse::<u32>().ok())
    {
        Some(d) => format!(
            "--rung alphabeta:depth={} --rung alphabeta:depth={}",
            d + 3,
            d + 5
        ),
        None => "--rung SPEC".to_string(),
    };
    Some(format!(
        "generation {last} is rated {:+.0} Elo above the ladder's top rung ({top}): \
         its games no longer tell the generations apart. Stronger rungs: \
         brandubh ladder --run-dir {} {rungs}",
        elo - top_elo,
        run_dir.display()
    ))
}
