//! The self-play phase, and the teacher's games after it.

use super::*;

impl Run {
    pub(super) fn teacher_dir(&self, iteration: u32) -> PathBuf {
        self.dir
            .join("teacher")
            .join(format!("iter-{iteration:04}"))
    }

    /// The teacher's games of iteration `it`, when the config asks for
    /// them: played after the self-play games, resumable in the same way.
    pub(super) fn teacher_phase(&self, it: u32, progress: &dyn Progress) -> Result<(), RunError> {
        let Some(t) = self.config.teacher.clone() else {
            return Ok(());
        };
        if it > t.generations || t.games == 0 {
            return Ok(());
        }
        let dir = self.teacher_dir(it);
        open_shard_dir(&dir)?;
        let (have, _) = read_dir(&dir);
        let done = have.len() as u64;
        if done >= t.games {
            return Ok(());
        }
        progress.phase(
            &format!("iteration {it}: teacher games ({})", t.player),
            t.games,
        );
        progress.inc(done, "");
        let seed = splitmix64(self.config.seed ^ 0x7eac ^ splitmix64(it as u64));
        let id_base = it as u64 * GAME_IDS_PER_ITERATION + GAME_IDS_PER_ITERATION / 2;
        let per_shard = self.config.selfplay.games_per_shard.max(1) as u64;
        let mut k = done;
        while k < t.games {
            let end = (k + per_shard).min(t.games);
            let games = crate::teacher::play_teacher_games(
                &self.rules,
                &t,
                &self.config.selfplay,
                k..end,
                seed,
                id_base,
                self.threads,
            )?;
            write_shard(&dir, next_shard_index(&dir), &games)?;
            progress.inc(end - k, "");
            k = end;
        }
        progress.done();
        Ok(())
    }

    pub(super) fn selfplay_dir(&self, iteration: u32) -> PathBuf {
        self.dir
            .join("selfplay")
            .join(format!("iter-{iteration:04}"))
    }

    pub(super) fn selfplay_phase(
        &mut self,
        it: u32,
        progress: &dyn Progress,
        tb: &mut SummaryWriter,
    ) -> Result<(), RunError> {
        let dir = self.selfplay_dir(it);
        open_shard_dir(&dir)?;
        // The games already written: how many, and which.
        let written: std::collections::HashSet<u64> = list_shards(&dir)
            .iter()
            .filter_map(|p| read_shard(p).ok())
            .flatten()
            .map(|g| g.game_id)
            .collect();
        let done = written.len() as u64;
        let total = self.config.selfplay_games;
        if done >= total {
            return Ok(());
        }
        let first = it as u64 * GAME_IDS_PER_ITERATION;
        // A phase cut off by a kill is played again from its start, with the
        // same seed and ids, so it makes the same games in the same order as
        // an unkilled one: the games its shards already hold are skipped
        // rather than written twice, and the run goes on as if never killed.
        // Shards holding ids outside this phase's range (workers') cannot
        // be matched so: the phase then goes on after them with games of
        // its own. Either way it writes no id twice and no more than
        // `total` games.
        let replay = written.iter().all(|id| (first..first + total).contains(id));
        let (seed_from, games, first_id) = if replay {
            (0, total, first)
        } else {
            let next = written.iter().map(|id| id + 1).max().unwrap_or(0);
            (done, total - done, next.max(first))
        };
        let evaluator = brandubh_model::load_evaluator_on(
            &self.ckpt(&self.state.current),
            &self.rules,
            self.inference,
        )?;
        let config = self.config.selfplay_at(it);
        let past = if config.past_share > 0.0 {
            past_generation_names(&self.state.current, config.past_generations)
                .iter()
                .map(|name| {
                    brandubh_model::load_evaluator_on(&self.ckpt(name), &self.rules, self.inference)
                })
                .collect::<Result<Vec<_>, _>>()?
        } else {
            Vec::new()
        };
        let past: Vec<&dyn brandubh_mcts::Evaluator> = past.iter().map(|e| e.as_ref()).collect();
        let fixed =
            crate::opponent::for_generation(self.config.opponent.as_ref(), &config, &self.rules)
                .map_err(RunError::Games)?;
        let title = if replay && done > 0 {
            format!("iteration {it}: self-play (replaying the {done} games already written)")
        } else {
            format!("iteration {it}: self-play")
        };
        progress.phase(&title, total);
        progress.inc(done, "");
        let seed = splitmix64(self.config.seed ^ splitmix64(it as u64) ^ splitmix64(seed_from + 7));
        let mut shard = next_shard_index(&dir);
        let mut pending = Vec::new();
        let mut have = done;
        let mut failure = None;
        let per_shard = self.config.selfplay.games_per_shard.max(1);
        let stats = run_selfplay_against(
            self.rules.clone(),
            evaluator.as_ref(),
            Opponents {
                past: &past,
                fixed: fixed
                    .as_ref()
                    .map(|f| f as &dyn brandubh_selfplay::Opponent),
            },
            &config,
            SelfPlayJob {
                games,
                seed,
                // Ids unique over the run: each iteration has its own range.
                first_id,
                threads: self.threads,
            },
            &mut |g, st| {
                if written.contains(&g.game_id) || have >= total {
                    return;
                }
                have += 1;
                pending.push(g);
                progress.inc(
                    1,
                    &format!(
                        "{:.0} evals/s",
                        st.evaluations as f64 / st.seconds.max(1e-9)
                    ),
                );
                if pending.len() >= per_shard && failure.is_none() {
                    match write_shard(&dir, shard, &pending) {
                        Ok(_) => {
                            shard += 1;
                            pending.clear();
                        }
                        Err(x) => failure = Some(x),
                    }
                }
            },
        );
        if let Some(x) = failure {
            return Err(x.into());
        }
        if !pending.is_empty() {
            write_shard(&dir, shard, &pending)?;
        }
        progress.done();
        tb.add_scalar(
            "selfplay/games_per_second",
            (stats.games as f64 / stats.seconds.max(1e-9)) as f32,
            it as usize,
        );
        tb.add_scalar(
            "selfplay/evaluations_per_second",
            (stats.evaluations as f64 / stats.seconds.max(1e-9)) as f32,
            it as usize,
        );
        tb.add_scalar("selfplay/batch_fill", stats.mean_fill() as f32, it as usize);
        tb.add_scalar(
            "selfplay/attacker_sims_factor",
            config.attacker_sims_factor,
            it as usize,
        );
        Ok(())
    }
}

impl Run {
    /// The self-play phase when workers play: waits until the iteration's
    /// directory holds the config's `selfplay_games`. Shards are immutable
    /// once they appear, so each is counted once, from its games file.
    pub(super) fn wait_for_workers(
        &self,
        it: u32,
        poll: std::time::Duration,
        progress: &dyn Progress,
    ) -> Result<(), RunError> {
        let dir = self.selfplay_dir(it);
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let total = self.config.selfplay_games;
        progress.phase(
            &format!("iteration {it}: waiting for self-play workers"),
            total,
        );
        let mut counted = std::collections::HashSet::new();
        let mut have = 0;
        loop {
            if let Some(store) = &self.mirror {
                store.pull(&format!("selfplay/iter-{it:04}"), &self.dir)?;
            }
            for p in list_shards(&dir) {
                if !counted.insert(p.clone()) {
                    continue;
                }
                match brandubh_selfplay::records::count_games(&p) {
                    Ok(n) => {
                        have += n;
                        progress.inc(n, "");
                    }
                    Err(x) => progress.line(&format!("warning: skipped {x}")),
                }
            }
            if have >= total {
                break;
            }
            std::thread::sleep(poll);
        }
        // Shards of earlier iterations that landed after their iteration
        // ended (from workers that read the state just before) are fetched
        // too, so the training window sees every shard there is now.
        if let Some(store) = &self.mirror {
            store.pull("selfplay", &self.dir)?;
        }
        progress.done();
        Ok(())
    }
}

/// Creates a shard directory, or clears the partial writes a kill left in
/// it (whole shards stay).
fn open_shard_dir(dir: &Path) -> Result<(), RunError> {
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    for entry in std::fs::read_dir(dir).map_err(io(dir))?.flatten() {
        let p = entry.path();
        if p.to_string_lossy().ends_with(".tmp") {
            let _ = std::fs::remove_file(&p);
        }
    }
    Ok(())
}
