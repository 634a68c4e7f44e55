//! `brandubh serve` in a real browser: the page's tests in
//! `web/tests/browser.mjs`, run by Node with playwright-core against
//! Debian's headless Chromium, with the shipped nets. Without Node,
//! Chromium or `web/node_modules` the test says so and passes, unless
//! `BRANDUBH_BROWSER_TESTS=required` (as `.ci/run` sets, after installing
//! them); `BRANDUBH_SCREENSHOTS=DIR` keeps the play and analysis views.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

fn missing() -> Option<String> {
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if !Path::new(&chromium).is_file() {
        return Some(format!("no Chromium at {chromium}"));
    }
    if Command::new("node").arg("--version").output().is_err() {
        return Some("no node".into());
    }
    if !Path::new("web/node_modules/playwright-core").is_dir()
        || !Path::new("web/node_modules/onnxruntime-web/dist/ort.min.js").is_file()
    {
        return Some(
            "web/node_modules lacks playwright-core or onnxruntime-web (run `npm ci` in web/)"
                .into(),
        );
    }
    None
}

#[test]
fn the_page_plays_analyses_opens_games_and_runs_the_net() {
    // CI installs the browser and the npm packages while it builds, and
    // writes this file once done: empty, or why they could not be had.
    let mut could_not_install = String::new();
    if let Ok(done) = std::env::var("BRANDUBH_BROWSER_DEPS_DONE") {
        let until = std::time::Instant::now() + std::time::Duration::from_secs(600);
        while !Path::new(&done).exists() && std::time::Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_secs(2));
        }
        could_not_install = std::fs::read_to_string(&done).unwrap_or_default();
    }
    if let Some(why) = missing() {
        if std::env::var("BRANDUBH_BROWSER_TESTS").as_deref() == Ok("required")
            && could_not_install.trim().is_empty()
        {
            panic!("browser tests required, but {why}");
        }
        eprintln!("browser tests skipped: {why} {could_not_install}");
        return;
    }
    let mut server = Command::new(env!("CARGO_BIN_EXE_brandubh"))
        .args(["serve", "--addr", "127.0.0.1:0", "--max-ms", "2000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start the server");
    let mut line = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no address in `{line}`"))
        .to_string();
    let shots = std::env::var("BRANDUBH_SCREENSHOTS").unwrap_or_default();
    let out = Command::new("node")
        .arg("web/tests/browser.mjs")
        .arg(&url)
        .args((!shots.is_empty()).then_some(&shots))
        .output()
        .expect("run node");
    server.kill().ok();
    server.wait().ok();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("{stdout}{stderr}");
    assert!(
        out.status.success(),
        "the browser tests failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("browser figures"), "{stdout}");
}
