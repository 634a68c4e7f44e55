//! The training phase: a candidate trained on the replay window.

use super::*;

impl Run {
    /// Trains the candidate of iteration `it` (resuming a partial one);
    /// `steps` overrides the config's steps per generation.
    pub fn train_phase(
        &mut self,
        it: u32,
        steps: Option<u64>,
        progress: &dyn Progress,
        tb: &mut SummaryWriter,
    ) -> Result<(), RunError> {
        let target = steps.unwrap_or(self.config.train.steps_per_generation);
        let out = self.ckpt(&ckpt_name(it));
        // A finished candidate of this iteration means the phase is done
        // (a kill came before the state was saved).
        if let Ok(m) = read_meta(&out) {
            if m.generation == it && steps.is_none() {
                self.state.global_step = m.step;
                return Ok(());
            }
        }
        let device = Device::flex().autodiff();
        // Start from the newest whole partial candidate of this iteration
        // if there is one; any other partial is an unfinished write or stale.
        let whole = |p: &Path| {
            read_meta(p)
                .ok()
                .filter(|m| m.generation == it && m.step <= self.state.global_step + target)
                .and_then(|_| load(p, &self.rules, &device).ok())
        };
        let mut resume = None;
        for p in self.partial_candidates() {
            match resume.is_none().then(|| whole(&p)).flatten() {
                Some(loaded) => resume = Some((p, loaded)),
                None => std::fs::remove_dir_all(&p).map_err(io(&p))?,
            }
        }
        self.remove_retired()?;
        let (start_dir, done, (net, config, start_meta)) = match resume {
            Some((p, loaded)) => {
                let done = loaded.2.step.saturating_sub(self.state.global_step);
                (p, done, loaded)
            }
            None => {
                let dir = self.ckpt(&self.state.current);
                let loaded = load(&dir, &self.rules, &device)?;
                (dir, 0, loaded)
            }
        };
        // A run config that asks for outputs the net lacks (a run forked
        // from one without them) trains them onto it.
        let (net, config) = brandubh_model::grow_outputs(net, config, &self.config.net, &device);
        let mut trainer = Trainer::new(net, config, device, self.config.train.weight_decay);
        // Adam's moments carry on from the checkpoint we start from (each
        // checkpoint the loop writes has its optimiser state beside it).
        let adam = optimizer_file(&start_dir, start_meta.step);
        // The net this generation trains from (not a partial candidate).
        let parent = read_meta(&self.ckpt(&self.state.current))
            .ok()
            .map(|m| m.model_id());
        if adam.exists() {
            if let Err(x) = trainer.load_optimizer(&adam) {
                progress.line(&format!("warning: {x}; Adam starts afresh"));
            }
        }
        // The replay window: the newest positions over the iterations so
        // far, read from the newest back until the window is full (older
        // shards could not reach it).
        let capacity = self.config.train.window_positions;
        let mut newest_first = Vec::new();
        let mut held = 0usize;
        // The shards read, as paths in the run directory (recorded below).
        let mut shards_read = Vec::new();
        for i in (1..=it).rev() {
            let mut g = Vec::new();
            for dir in [self.teacher_dir(i), self.selfplay_dir(i)] {
                for p in list_shards(&dir) {
                    match read_shard(&p) {
                        Ok(games) => {
                            g.extend(games);
                            let rel = p.strip_prefix(&self.dir).unwrap_or(&p);
                            shards_read.push(rel.display().to_string());
                        }
                        Err(x) => progress.line(&format!("warning: skipped {x}")),
                    }
                }
            }
            held += g.iter().map(|x| x.positions.len()).sum::<usize>();
            newest_first.push(g);
            if held >= capacity {
                break;
            }
        }
        let all: Vec<_> = newest_first.into_iter().rev().flatten().collect();
        let win = window(&all, capacity);
        if win.is_empty() {
            return Err(RunError::State("no self-play positions to train on".into()));
        }
        // What this candidate trains on (the oldest shard may be partly
        // outside the window), for provenance and for checking that every
        // shard a worker wrote was trained on.
        shards_read.sort();
        let sampler = WindowSampler::new(&win, self.config.train.side_balance);
        // How often batches hold positions of games each side won, in the
        // window and as drawn: attackers, defenders, neither.
        let round = |x: [f64; 3]| x.map(|v| (v * 1e4).round() / 1e4);
        let record = serde_json::json!({
            "iteration": it,
            "positions": win.len(),
            "won_shares": round(sampler.window_shares()),
            "drawn_shares": round(sampler.shares()),
            "shards": shards_read,
        });
        write_atomic(
            &self.dir.join(format!("selfplay/iter-{it:04}.window.json")),
            json(&record, true).as_bytes(),
        )?;
        let total_steps =
            (self.config.generations as u64 * self.config.train.steps_per_generation).max(1);
        progress.phase(
            &format!("iteration {it}: training on {} positions", win.len()),
            target,
        );
        progress.inc(done, "");
        for k in done..target {
            let global = self.state.global_step + k;
            let lr = crate::trainer::cosine_lr(
                self.config.train.lr,
                self.config.train.lr_final,
                global,
                total_steps,
            );
            // Each step's batch comes from its own generator, seeded from
            // the global step, so a phase resumed from a partial candidate
            // draws the same batches an unbroken one would have.
            let mut rng = ChaCha8Rng::seed_from_u64(splitmix64(
                self.config.seed ^ 0x7a1 ^ splitmix64(global ^ splitmix64(it as u64)),
            ));
            let batch = sampler.draw_batch(
                &self.rules,
                &win,
                self.config.train.batch_size,
                self.config.train.value_target_mix,
                &mut rng,
            );
            let s = trainer.step(&batch, lr);
            let g = global as usize + 1;
            tb.add_scalar("train/policy_loss", s.policy_loss, g);
            tb.add_scalar("train/value_loss", s.value_loss, g);
            tb.add_scalar("train/total_loss", s.total_loss, g);
            if trainer.config.moves_left {
                tb.add_scalar("train/moves_left_loss", s.moves_left_loss, g);
            }
            tb.add_scalar("train/policy_entropy", s.policy_entropy, g);
            tb.add_scalar("train/value_accuracy", s.value_accuracy, g);
            tb.add_scalar("train/learning_rate", lr as f32, g);
            progress.inc(
                1,
                &format!("policy {:.3} value {:.3}", s.policy_loss, s.value_loss),
            );
            let finished = k + 1 == target;
            if (k + 1) % self.config.train.checkpoint_every == 0 || finished {
                let prov = brandubh_model::Provenance {
                    note: format!("generation {it} of a training run"),
                    seed: Some(self.config.seed),
                    run: self
                        .dir
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned()),
                    parent: parent.clone(),
                    policy_loss: Some(s.policy_loss),
                    value_loss: Some(s.value_loss),
                    lr: Some(lr),
                    batch_size: Some(self.config.train.batch_size),
                    window_positions: Some(self.config.train.window_positions),
                };
                let net = trainer.inference_net();
                let step_now = self.state.global_step + k + 1;
                let dest = self.ckpt(&format!("candidate-{step_now:08}"));
                std::fs::create_dir_all(&dest).map_err(io(&dest))?;
                let adam = optimizer_file(&dest, step_now);
                trainer.save_optimizer(&adam)?;
                save(
                    &dest,
                    &net,
                    &trainer.config,
                    &self.rules,
                    step_now,
                    it,
                    prov,
                )?;
                // The new checkpoint is whole: older partials can go.
                for p in self.partial_candidates() {
                    if p != dest {
                        std::fs::remove_dir_all(&p).map_err(io(&p))?;
                    }
                }
                tb.flush();
            }
        }
        // The finished candidate is a whole partial until now: it takes the
        // generation's name by renames only, so no kill leaves a checkpoint
        // under that name whose weights and metadata disagree.
        let last = self.ckpt(&format!("candidate-{:08}", self.state.global_step + target));
        self.publish(&last, &out)?;
        self.state.global_step += target;
        progress.done();
        Ok(())
    }

    /// Moves the whole checkpoint `from` to `to`, replacing what `to` held
    /// (renamed aside as `retired-…` meanwhile; see `durable::replace_dir`).
    fn publish(&self, from: &Path, to: &Path) -> Result<(), RunError> {
        let name = to.file_name().and_then(|n| n.to_str()).unwrap_or("old");
        let aside = self.dir.join("checkpoints").join(format!("retired-{name}"));
        brandubh_durable::replace_dir(from, to, &aside).map_err(io(to))
    }

    /// Removes checkpoints a publish renamed aside.
    pub(super) fn remove_retired(&self) -> Result<(), RunError> {
        let dir = self.dir.join("checkpoints");
        for entry in std::fs::read_dir(&dir).map_err(io(&dir))?.flatten() {
            let p = entry.path();
            if p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("retired-"))
            {
                std::fs::remove_dir_all(&p).map_err(io(&p))?;
            }
        }
        Ok(())
    }
}
