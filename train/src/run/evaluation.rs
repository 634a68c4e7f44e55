//! The evaluation phase: the candidate against the current net, the
//! baseline, the ladder and alpha-beta at equal time; the run's ratings.

use super::*;
use brandubh_rules::fnv1a;

impl Run {
    /// The arena spec (and rating name) of the MCTS player of checkpoint
    /// `dir`: the run's PUCT settings (named in the spec where they differ
    /// from the player defaults), no noise, the run's evaluation simulations.
    pub(super) fn mcts_spec(&self, dir: &Path) -> String {
        self.mcts_spec_limited(dir, &format!("sims={}", self.config.eval.sims))
    }

    /// `mcts_spec` with another search limit (`sims=N` or `ms=T`).
    fn mcts_spec_limited(&self, dir: &Path, limit: &str) -> String {
        let run = &self.config.selfplay.mcts;
        let player = brandubh_mcts::MctsConfig::default();
        let mut spec = format!("mcts:model={},{limit}", dir.display());
        if run.c_puct != player.c_puct {
            spec += &format!(",cpuct={}", run.c_puct);
        }
        if run.fpu_reduction != player.fpu_reduction {
            spec += &format!(",fpu={}", run.fpu_reduction);
        }
        if run.gumbel != player.gumbel {
            spec += &format!(",gumbel={}", run.gumbel as u8);
        }
        spec
    }

    /// Candidate against the current net, the baseline, the ladder, and
    /// alpha-beta at equal time.
    pub(super) fn eval_phase(
        &self,
        it: u32,
        progress: &dyn Progress,
    ) -> Result<EvalOutcome, RunError> {
        let cand = self.ckpt(&ckpt_name(it));
        let cur = self.ckpt(&self.state.current);
        let ev = &self.config.eval;
        let play_on = |a: String, b: String, pairs: u64, file: &str, seed: u64, threads: usize| {
            self.play_match(
                a,
                b,
                pairs,
                file,
                seed,
                threads,
                &format!("iteration {it}: {file}"),
                progress,
            )
        };
        let play = |a, b, pairs, file: &str, seed| play_on(a, b, pairs, file, seed, self.threads);
        let seed = splitmix64(self.config.seed ^ 0xe7a1 ^ it as u64);
        let vs = play(
            self.mcts_spec(&cand),
            self.mcts_spec(&cur),
            ev.pairs,
            &format!("iter-{it:04}-vs-current.jsonl"),
            seed,
        )?;
        let base = if ev.baseline_pairs > 0 {
            let s = play(
                self.mcts_spec(&cand),
                ev.baseline.clone(),
                ev.baseline_pairs,
                &format!("iter-{it:04}-vs-baseline.jsonl"),
                seed ^ 1,
            )?;
            for (k, rung) in ev.ladder.iter().enumerate() {
                let r = play(
                    self.mcts_spec(&cand),
                    rung.clone(),
                    ev.baseline_pairs,
                    &format!("iter-{it:04}-vs-ladder-{}.jsonl", k + 1),
                    seed ^ (2 + k as u64),
                )?;
                progress.line(&format!(
                    "iteration {it}: vs {rung} {:.0} % ({:+.0} Elo)",
                    100.0 * r.score,
                    r.elo
                ));
            }
            Some((s.score, s.elo))
        } else {
            None
        };
        // Equal time: one game at a time, so each player has the machine.
        let mut equal_time = Vec::new();
        for &ms in &ev.equal_time_ms {
            let r = play_on(
                self.mcts_spec_limited(&cand, &format!("ms={ms}")),
                format!("alphabeta:ms={ms}"),
                ev.baseline_pairs.max(1),
                &format!("iter-{it:04}-equal-time-{ms}ms.jsonl"),
                seed ^ (0x100 + ms),
                1,
            )?;
            progress.line(&format!(
                "iteration {it}: at {ms} ms a move vs alphabeta:ms={ms} {:.0} % ({:+.0} Elo)",
                100.0 * r.score,
                r.elo
            ));
            equal_time.push(EqualTime {
                ms,
                pairs: ev.baseline_pairs.max(1),
                score: r.score,
                elo: r.elo,
                elo_ci95: r.elo_ci95,
            });
        }
        Ok(EvalOutcome {
            score: Some(vs.score),
            elo: Some(vs.elo),
            base,
            equal_time,
        })
    }

    /// Plays one match of the run's evaluation (its openings and ply cap)
    /// into `arena/FILE`, under a progress bar named `label`.
    #[allow(clippy::too_many_arguments)]
    fn play_match(
        &self,
        a: String,
        b: String,
        pairs: u64,
        file: &str,
        seed: u64,
        threads: usize,
        label: &str,
        progress: &dyn Progress,
    ) -> Result<brandubh_arena::MatchSummary, RunError> {
        let ev = &self.config.eval;
        let cfg = MatchConfig {
            rules: self.rules.clone(),
            a: PlayerSpec::parse(&a)?,
            b: PlayerSpec::parse(&b)?,
            pairs,
            openings: ev.openings,
            seed,
            max_plies: ev.max_plies,
            threads,
            sprt: None,
            swap_sides: true,
            balanced: None,
            clock: None,
            ctx: self.players.clone(),
        };
        progress.phase(label, pairs * 2);
        let (s, _) = run_match(&cfg, Some(&self.dir.join("arena").join(file)), &|_| {
            progress.inc(1, "")
        })?;
        progress.done();
        Ok(s)
    }

    /// The generations `extend_ladder` plays: every `every`-th finished
    /// one and the last finished, oldest first.
    fn ladder_generations(&self, every: u32) -> Vec<u32> {
        let last = self.state.iteration;
        (1..=last)
            .filter(|&it| it == last || (every > 0 && it % every == 0))
            .collect()
    }

    /// Extends the run's rating ladder after the fact: plays generations
    /// `ladder_generations(every)` against each of `rungs` (`pairs` pairs,
    /// at the run's evaluation simulations, openings and seed), so that a
    /// run whose nets have outgrown its ladder is still told apart. The
    /// games go to `arena/iter-NNNN-vs-rung-SPEC.jsonl`, which the ratings
    /// read with the rest; a match already written is not played again,
    /// so a killed call resumes. Rewrites `ratings.json`. These games are
    /// not charged to the run's CPU-hours, which count its training.
    pub fn extend_ladder(
        &self,
        rungs: &[String],
        every: u32,
        pairs: u64,
        progress: &dyn Progress,
    ) -> Result<Option<RatingTable>, RunError> {
        for rung in rungs {
            PlayerSpec::parse(rung)?;
        }
        let gens = self.ladder_generations(every);
        if gens.is_empty() {
            return Err(RunError::State(format!(
                "{}: no generation finished yet",
                self.dir.display()
            )));
        }
        progress.line(&format!(
            "rating generations {gens:?} against {} ({pairs} pairs each)",
            rungs.join(", ")
        ));
        for it in gens {
            let cand = self.ckpt(&ckpt_name(it));
            if !cand.exists() {
                continue;
            }
            for rung in rungs {
                let file = rung_file(it, rung);
                if self.dir.join("arena").join(&file).exists() {
                    continue;
                }
                let seed =
                    splitmix64(self.config.seed ^ 0x1add_e700 ^ ((it as u64) << 32) ^ fnv1a(rung));
                let r = self.play_match(
                    self.mcts_spec(&cand),
                    rung.clone(),
                    pairs,
                    &file,
                    seed,
                    self.threads,
                    &format!("generation {it}: vs {rung}"),
                    progress,
                )?;
                progress.line(&format!(
                    "generation {it}: vs {rung} {:.0} % ({:+.0} Elo)",
                    100.0 * r.score,
                    r.elo
                ));
            }
        }
        self.write_ratings()
    }

    /// Ratings of every player in the run's arena files, anchored on the baseline.
    pub(super) fn write_ratings(&self) -> Result<Option<RatingTable>, RunError> {
        let mut games: Vec<GameRecord> = Vec::new();
        let arena = self.dir.join("arena");
        for entry in std::fs::read_dir(&arena).map_err(io(&arena))?.flatten() {
            let p = entry.path();
            // Equal-time games pair timed players with nobody else: a
            // separate component the ratings could not place.
            let timed = p.to_string_lossy().contains("-equal-time-");
            if p.extension().is_some_and(|x| x == "jsonl") && !timed {
                games.extend(read_records(&p)?);
            }
        }
        let anchor = if games.iter().any(|g| {
            g.attackers == self.config.eval.baseline || g.defenders == self.config.eval.baseline
        }) {
            self.config.eval.baseline.clone()
        } else {
            match games.first() {
                Some(g) => g.attackers.clone(),
                None => return Ok(None),
            }
        };
        let table = rate(&games, &anchor)?;
        write_atomic(
            &self.dir.join("ratings.json"),
            json(&table, true).as_bytes(),
        )?;
        Ok(Some(table))
    }
}

/// The arena file of generation `it`'s games against an added rung: the
/// spec with every character but letters and digits made a dash.
fn rung_file(it: u32, rung: &str) -> String {
    let slug: String = rung
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    format!("iter-{it:04}-vs-rung-{slug}.jsonl")
}
