//! The same split run as `tests/workers.rs`, shared through an S3 server
//! on loopback: s3s-fs (an S3 server over a directory, from crates.io),
//! run in this test's process with signed requests checked. The learner
//! keeps a working copy, the workers only the store. Part of the default
//! run; a build with `--no-default-features` (no `s3`) leaves it out.
#![cfg(feature = "s3")]

mod common;

use brandubh_train::store::RunStore;
use std::collections::BTreeSet;
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const TINY_RUN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny-run.toml");

/// A loopback port nothing listens on (at the time of asking).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Serves `root` as an S3 store (each directory a bucket) on a loopback
/// port, from a thread of its own that lives as long as the test; returns
/// the port. Requests must be signed with key `test`, secret `test`.
fn start_s3(root: &Path) -> u16 {
    use hyper_util::rt::{TokioExecutor, TokioIo};
    use hyper_util::server::conn::auto::Builder;
    let fs = s3s_fs::FileSystem::new(root).unwrap();
    let mut b = s3s::service::S3ServiceBuilder::new(fs);
    b.set_auth(s3s::auth::SimpleAuth::from_single("test", "test"));
    let service = b.build();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            let http = Builder::new(TokioExecutor::new());
            loop {
                let Ok((socket, _)) = listener.accept().await else {
                    continue;
                };
                let conn = http
                    .serve_connection(TokioIo::new(socket), service.clone())
                    .into_owned();
                tokio::spawn(async move {
                    let _ = conn.await;
                });
            }
        });
    });
    port
}

fn brandubh(args: &[&str], port: u16) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_brandubh"));
    c.args(args)
        .env("AWS_ENDPOINT", format!("http://127.0.0.1:{port}"))
        .env("AWS_ALLOW_HTTP", "true")
        .env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .env("AWS_REGION", "us-east-1")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

fn worker(url: &str, cache: &Path, port: u16, name: &str) -> Child {
    brandubh(
        &[
            "worker",
            "selfplay",
            "--run",
            url,
            "--threads",
            "1",
            "--name",
            name,
            "--cache-dir",
            cache.join(name).to_str().unwrap(),
        ],
        port,
    )
    .spawn()
    .unwrap()
}

#[test]
fn workers_and_a_learner_share_a_run_through_s3() {
    let tmp = std::env::temp_dir().join(format!("brandubh-s3-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    // The bucket `brandubh` is a directory of the server's root.
    std::fs::create_dir_all(tmp.join("s3/brandubh")).unwrap();
    let port = start_s3(&tmp.join("s3"));
    let url = "s3://brandubh/runs/tiny";

    // A missing bucket, a prefix with no run, and a store nobody listens
    // on: clear errors, soon.
    for (run, at, named) in [
        ("s3://no-such-bucket/run", port, "no-such-bucket"),
        ("s3://brandubh/none", port, "no run here yet"),
        (url, free_port(), "cannot reach the store"),
    ] {
        let t = Instant::now();
        let out = brandubh(&["worker", "selfplay", "--run", run], at)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains(named), "{run}: {err}");
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "{run}: took {:?}",
            t.elapsed()
        );
    }

    let mut learner = brandubh(
        &[
            "worker",
            "learn",
            "--run",
            url,
            "--config",
            TINY_RUN,
            "--work-dir",
            tmp.join("learner").to_str().unwrap(),
            "--poll-ms",
            "100",
        ],
        port,
    )
    .spawn()
    .unwrap();
    std::env::set_var("AWS_ENDPOINT", format!("http://127.0.0.1:{port}"));
    std::env::set_var("AWS_ALLOW_HTTP", "true");
    std::env::set_var("AWS_ACCESS_KEY_ID", "test");
    std::env::set_var("AWS_SECRET_ACCESS_KEY", "test");
    std::env::set_var("AWS_REGION", "us-east-1");
    let store = RunStore::open(url).unwrap();
    let deadline = Instant::now() + Duration::from_secs(600);
    while store.get("state.json").unwrap().is_none() {
        assert!(
            Instant::now() < deadline,
            "the learner never published the run"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let cache = tmp.join("cache");
    let (kills, _) =
        common::churn_workers(&mut learner, deadline, 0x5335, (300, 1500), &mut |name| {
            worker(url, &cache, port, name)
        });
    assert!(kills >= 2, "only {kills} kills");

    // The store holds the finished run: its state, both generations once,
    // the promoted checkpoints, and every shard whole with no game twice.
    let state: serde_json::Value =
        serde_json::from_slice(&store.get("state.json").unwrap().unwrap()).unwrap();
    assert_eq!(state["iteration"], 2, "{state}");
    let gens = String::from_utf8(store.get("generations.jsonl").unwrap().unwrap()).unwrap();
    let its: Vec<u64> = gens
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["iteration"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(its, vec![1, 2]);
    let current = state["current"].as_str().unwrap();
    assert!(store
        .get(&format!("checkpoints/{current}/model.json"))
        .unwrap()
        .is_some());
    let shards: Vec<String> = store
        .list("selfplay")
        .unwrap()
        .into_iter()
        .map(|e| e.path)
        .filter(|p| p.ends_with(".games.parquet"))
        .collect();
    assert!(shards.len() >= 8, "{shards:?}");
    let check = tmp.join("check");
    let mut ids = BTreeSet::new();
    for s in &shards {
        let positions = s.replace(".games.parquet", ".positions.parquet");
        assert!(
            store.download(&positions, &check.join(&positions)).unwrap(),
            "{positions}"
        );
        assert!(store.download(s, &check.join(s)).unwrap());
        for g in brandubh_selfplay::read_shard(&check.join(s)).unwrap() {
            assert!(ids.insert(g.game_id), "game {} twice", g.game_id);
        }
    }
    // Iteration 2 trained on every shard of iteration 1 that was there
    // when it began (see tests/workers.rs for the margin).
    let window: serde_json::Value = serde_json::from_slice(
        &store
            .get("selfplay/iter-0002.window.json")
            .unwrap()
            .unwrap(),
    )
    .unwrap();
    let listed: BTreeSet<String> = window["shards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect();
    let in_one = shards
        .iter()
        .filter(|s| s.starts_with("selfplay/iter-0001/"))
        .count();
    let trained = listed
        .iter()
        .filter(|s| s.starts_with("selfplay/iter-0001/"))
        .count();
    assert!(
        trained + 1 >= in_one,
        "{trained} of {in_one} shards of iteration 1 trained on"
    );
    std::fs::remove_dir_all(&tmp).ok();
}
