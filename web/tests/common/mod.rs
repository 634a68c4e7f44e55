//! A server on an ephemeral loopback port, and a plain HTTP client for it.

#![allow(dead_code)]

use brandubh_play::PlayContext;
use brandubh_rules::RuleSet;
use brandubh_web::{Limits, ServeConfig};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub struct Server {
    pub addr: SocketAddr,
}

/// The repository root (the tests run in the crate's folder).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Starts a server with the five rule sets, nets from `models` (the
/// uniform evaluator only: no model crate here) and runs from `runs`.
pub fn start(models: PathBuf, runs: PathBuf) -> Server {
    let rules: Vec<Arc<RuleSet>> = ["modern", "ludii", "wtf", "wtf-plain", "raven"]
        .iter()
        .map(|n| Arc::new(RuleSet::builtin(n).expect("built-in rules")))
        .collect();
    let cfg = ServeConfig {
        rules,
        models_dir: models,
        runs_dir: runs,
        vendor_dir: None,
        ctx: PlayContext::uniform_only(),
        reporter: Some(Arc::new(|dir: &std::path::Path| {
            Ok(
                serde_json::json!({"anchor": "alphabeta:depth=2", "dir_has_generations": dir.join("generations.jsonl").is_file(), "generations": [], "references": []}),
            )
        })),
        limits: Limits {
            max_ms: 2_000,
            max_tt: 16,
            max_threads: 2,
        },
        searches: 2,
    };
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        brandubh_web::serve_blocking("127.0.0.1:0".parse().unwrap(), cfg, |a| tx.send(a).unwrap())
            .expect("server");
    });
    let addr = rx
        .recv_timeout(Duration::from_secs(10))
        .expect("server bound");
    Server { addr }
}

pub struct Reply {
    pub status: u16,
    pub content_type: String,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
    pub fn error(&self) -> String {
        self.json()["error"].as_str().unwrap_or("").to_string()
    }
}

impl Server {
    pub fn request(&self, method: &str, path: &str, body: &[u8]) -> Reply {
        let mut s = TcpStream::connect(self.addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        s.write_all(head.as_bytes()).unwrap();
        s.write_all(body).unwrap();
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).expect("read reply");
        let split = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("header end");
        let head = String::from_utf8_lossy(&raw[..split]).to_string();
        let status: u16 = head.split(' ').nth(1).unwrap().parse().unwrap();
        let content_type = head
            .lines()
            .find_map(|l| {
                l.to_ascii_lowercase()
                    .strip_prefix("content-type: ")
                    .map(String::from)
            })
            .unwrap_or_default();
        let mut body = raw[split + 4..].to_vec();
        if head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked")
        {
            body = unchunk(&body);
        }
        Reply {
            status,
            content_type,
            body,
        }
    }
    pub fn get(&self, path: &str) -> Reply {
        self.request("GET", path, b"")
    }
    pub fn post(&self, path: &str, body: serde_json::Value) -> Reply {
        self.request("POST", path, body.to_string().as_bytes())
    }
}

fn unchunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(end) = b.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let n = usize::from_str_radix(std::str::from_utf8(&b[..end]).unwrap().trim(), 16).unwrap();
        if n == 0 {
            return out;
        }
        out.extend_from_slice(&b[end + 2..end + 2 + n]);
        b = &b[end + 2 + n + 2..];
    }
}
