//! The same split run as `tests/workers.rs`, shared through an S3 server
//! on loopback (moto's, started by the test): the learner keeps a working
//! copy, the workers only the store. Needs a build with `--features s3`
//! and `moto_server` (`pip install 'moto[server]'`), hence ignored by
//! default:
//!   cargo test --release --features s3 --test workers_s3 -- --ignored
#![cfg(feature = "s3")]

mod common;

use brandubh_train::store::RunStore;
use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const TINY_RUN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny-run.toml");

/// A moto S3 server on a free loopback port, stopped when dropped.
struct Moto {
    child: Child,
    port: u16,
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A loopback port nothing listens on (at the time of asking).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn start_moto() -> Moto {
    let port = free_port();
    let child = Command::new("moto_server")
        .args(["-H", "127.0.0.1", "-p", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("moto_server (pip install 'moto[server]')");
    let t = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(t.elapsed() < Duration::from_secs(30), "moto did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
    Moto { child, port }
}

/// Creates a bucket with one plain HTTP request (moto takes it unsigned).
fn create_bucket(port: u16, bucket: &str) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "PUT /{bucket} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply).unwrap();
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
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
#[ignore = "needs moto_server; see the module"]
fn workers_and_a_learner_share_a_run_through_s3() {
    let moto = start_moto();
    let port = moto.port;
    create_bucket(port, "brandubh");
    let tmp = std::env::temp_dir().join(format!("brandubh-s3-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
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
    drop(moto);
    std::fs::remove_dir_all(&tmp).ok();
}
