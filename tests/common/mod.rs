//! Helpers shared by the end-to-end tests of split runs.

use brandubh_rules::splitmix64;
use std::process::Child;
use std::time::{Duration, Instant};

/// Runs two workers beside `learner` until it exits (it must succeed, before
/// `deadline`). Every `pause.0 + r % pause.1` ms (r from `seed`) one worker
/// is killed with SIGKILL and a new one started in its place by `start`,
/// which takes the new worker's name. Then waits (up to a minute) for the
/// last workers to see the run's end and stop on their own. Returns the
/// kills and the workers started.
pub fn churn_workers(
    learner: &mut Child,
    deadline: Instant,
    mut seed: u64,
    pause: (u64, u64),
    start: &mut dyn FnMut(&str) -> Child,
) -> (u32, usize) {
    let mut workers: Vec<Child> = (0..2).map(|i| start(&format!("w{i}"))).collect();
    let mut started = 2;
    let mut kills = 0;
    loop {
        if let Some(status) = learner.try_wait().unwrap() {
            assert!(status.success(), "the learner failed: {status}");
            break;
        }
        assert!(Instant::now() < deadline, "the run did not finish in time");
        seed = splitmix64(seed);
        std::thread::sleep(Duration::from_millis(pause.0 + seed % pause.1));
        let k = (seed >> 32) as usize % workers.len();
        workers[k].kill().unwrap();
        workers[k].wait().unwrap();
        kills += 1;
        workers[k] = start(&format!("w{started}"));
        started += 1;
    }
    for mut w in workers {
        let t = Instant::now();
        while w.try_wait().unwrap().is_none() {
            if t.elapsed() > Duration::from_secs(60) {
                w.kill().ok();
                panic!("a worker did not stop when the run ended");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    (kills, started)
}
