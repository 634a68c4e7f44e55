//! The JSON API against a real server on an ephemeral loopback port.

mod common;

use common::{start, Server};
use serde_json::{json, Value};

/// A server over empty `models/` and `runs/` folders in a new directory,
/// which is removed when the returned guard is dropped (keep it bound for
/// the whole test).
fn server(name: &str) -> (Server, tempfile::TempDir) {
    let base = tempfile::Builder::new()
        .prefix(&format!("brandubh-web-{name}-"))
        .tempdir()
        .unwrap();
    std::fs::create_dir_all(base.path().join("models")).unwrap();
    std::fs::create_dir_all(base.path().join("runs")).unwrap();
    (
        start(base.path().join("models"), base.path().join("runs")),
        base,
    )
}

fn moves(v: &Value) -> Vec<String> {
    v["plies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["move"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_page_and_its_scripts_are_served() {
    let (s, _dir) = server("page");
    let page = s.get("/");
    assert_eq!(page.status, 200);
    assert!(page.content_type.starts_with("text/html"));
    assert!(String::from_utf8_lossy(&page.body).contains("id=\"board\""));
    for path in ["/app.js", "/net.js", "/app.css"] {
        assert_eq!(s.get(path).status, 200, "{path}");
    }
    let info = s.get("/api/info").json();
    let names: Vec<&str> = info["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["modern", "ludii", "wtf", "wtf-plain", "raven"]);
    assert_eq!(info["in_browser_net"], false);
}

#[test]
fn a_game_is_replayed_with_its_legal_moves_and_captures() {
    let (s, _dir) = server("game");
    let start = s.post("/api/game", json!({"rules": "modern"})).json();
    assert_eq!(start["side_to_move"], "attackers");
    assert_eq!(start["board"].as_str().unwrap().len(), 49);
    assert_eq!(&start["board"].as_str().unwrap()[21..28], "ttTKTtt");
    assert!(start["outcome"].is_null());
    let legal = start["legal"].as_array().unwrap();
    assert!(legal.iter().any(|m| m == "d7-f7"), "{legal:?}");
    // A whole game against random: every move comes back legal, and the
    // captures the server reports account for every piece missing.
    let mut ms: Vec<String> = Vec::new();
    let mut g = start;
    let mut captured = 0;
    while g["outcome"].is_null() && ms.len() < 400 {
        let r = s.post(
            "/api/move",
            json!({"rules": "modern", "moves": ms, "player": "random", "seed": ms.len()}),
        );
        assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
        let r = r.json();
        ms.push(r["move"].as_str().unwrap().to_string());
        g = r["game"].clone();
        captured += g["plies"].as_array().unwrap().last().unwrap()["captured"]
            .as_array()
            .unwrap()
            .len();
    }
    assert!(!g["outcome"].is_null(), "a random game ends");
    assert_eq!(moves(&g), ms);
    let pieces = g["board"]
        .as_str()
        .unwrap()
        .chars()
        .filter(|c| *c != '.')
        .count();
    // A captured king may stay on the board (the game ends with him).
    assert!(
        (12..=13).contains(&(pieces + captured)),
        "{pieces} on the board, {captured} captured"
    );
    assert!(g["legal"].as_array().unwrap().is_empty());
    let over = s.post(
        "/api/move",
        json!({"rules": "modern", "moves": ms, "player": "random"}),
    );
    assert_eq!(over.status, 400);
    assert!(over.error().contains("over"), "{}", over.error());
}

#[test]
fn an_illegal_move_is_refused_with_the_reason() {
    let (s, _dir) = server("illegal");
    let r = s.post("/api/game", json!({"rules": "modern", "moves": ["d7-d5"]}));
    assert_eq!(r.status, 400);
    assert!(
        r.error().contains("move 1 (`d7-d5`) is illegal"),
        "{}",
        r.error()
    );
    assert!(r.error().contains("d6 is in the way"), "{}", r.error());
    let r = s.post("/api/game", json!({"rules": "modern", "moves": ["d4-d5"]}));
    assert!(r.error().contains("defenders"), "{}", r.error());
}

#[test]
fn analysis_gives_heat_maps_lines_and_win_chances() {
    let (s, _dir) = server("analyse");
    let a = s.post(
        "/api/analyse",
        json!({"rules": "wtf", "moves": ["d7-f7"], "player": "mcts:model=uniform,sims=64"}),
    );
    assert_eq!(a.status, 200, "{}", a.error());
    let a = a.json();
    assert_eq!(a["kind"], "mcts");
    for key in ["from_heat", "to_heat"] {
        let h: Vec<f64> = a["net"][key]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert_eq!(h.len(), 49);
        assert!(
            (h.iter().sum::<f64>() - 1.0).abs() < 1e-3,
            "{key} sums to one"
        );
    }
    // Only defenders move in this position: the king (d4) and its men.
    let from: Vec<f64> = a["net"]["from_heat"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert_eq!(from[0], 0.0);
    assert!(from[24] > 0.0 || from[17] > 0.0 || from[31] > 0.0);
    assert!(a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| !m["pv"].as_array().unwrap().is_empty()));
    let ab = s
        .post(
            "/api/analyse",
            json!({"rules": "modern", "player": "alphabeta:depth=2"}),
        )
        .json();
    assert_eq!(ab["kind"], "alphabeta");
    assert_eq!(ab["depth"], 2);
    assert!(!ab["pv"].as_array().unwrap().is_empty());
    let ms = ["d7-f7", "d5-f5", "f7-f6"];
    let c = s
        .post(
            "/api/chances",
            json!({"rules": "modern", "moves": ms, "player": "alphabeta:depth=2"}),
        )
        .json();
    let c = c["attackers"].as_array().unwrap();
    assert_eq!(c.len(), ms.len() + 1);
    assert!(c.iter().all(|x| (0.0..=1.0).contains(&x.as_f64().unwrap())));
    let c = s
        .post(
            "/api/chances",
            json!({"rules": "modern", "moves": ms, "player": "mcts:model=uniform"}),
        )
        .json();
    assert!(c["attackers"]
        .as_array()
        .unwrap()
        .iter()
        .all(|x| x.as_f64().unwrap() == 0.5));
}

#[test]
fn a_search_without_a_time_limit_gets_the_servers() {
    let (s, _dir) = server("bounded");
    // The test server allows 2 s: depth 64 never completes in that.
    let a = s
        .post(
            "/api/analyse",
            json!({"rules": "modern", "player": "alphabeta:depth=64,threads=1"}),
        )
        .json();
    assert!(a["depth"].as_u64().unwrap() < 64);
    assert!(a["seconds"].as_f64().unwrap() < 10.0, "{}", a["seconds"]);
}

#[test]
fn games_round_trip_through_otg_and_match_records() {
    let (s, _dir) = server("files");
    let ms = ["d7-f7", "d5-f5", "f7-f6"];
    let otg = s
        .post(
            "/api/otg/write",
            json!({"rules": "wtf", "moves": ms, "attackers": "me", "defenders": "random"}),
        )
        .json();
    let text = otg["text"].as_str().unwrap();
    assert!(text.contains("[attackers:me]"), "{text}");
    let back = s.post("/api/otg/read", json!({"text": text}));
    assert_eq!(back.status, 200, "{}", back.error());
    let back = back.json();
    assert_eq!(back["game"]["rules"], "wtf");
    assert_eq!(back["moves"], json!(ms));
    let rec = s
        .post(
            "/api/records/write",
            json!({"rules": "raven", "moves": [], "attackers": "a", "defenders": "b"}),
        )
        .json();
    let line = rec["text"].as_str().unwrap();
    let games = s
        .post(
            "/api/records/read",
            json!({"text": format!("{line}{line}")}),
        )
        .json();
    assert_eq!(games["games"].as_array().unwrap().len(), 2);
    assert_eq!(games["games"][0]["rules"], "raven");
    let bad = s.post(
        "/api/otg/read",
        json!({"text": "[rules:dim:9 start:/9/9/9/9/4K4/9/9/9/9/]\n\n1. e1-e2\n"}),
    );
    assert_eq!(bad.status, 400);
}

#[test]
fn runs_are_listed_and_their_charts_served_but_nothing_outside() {
    let (s, base_guard) = server("runs");
    let base = base_guard.path();
    let run = base.join("runs/tiny");
    std::fs::create_dir_all(run.join("report")).unwrap();
    std::fs::write(run.join("generations.jsonl"), "{\"iteration\":1}\n").unwrap();
    std::fs::write(run.join("report/elo.png"), b"\x89PNG fake").unwrap();
    std::fs::write(base.join("secret.png"), b"secret").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(base.join("secret.png"), run.join("report/link.png")).unwrap();
    let list = s.get("/api/runs").json();
    assert_eq!(list["runs"], json!([{"name": "tiny", "generations": 1}]));
    let r = s.get("/api/runs/tiny").json();
    assert_eq!(r["report"]["dir_has_generations"], true);
    assert!(r["charts"]
        .as_array()
        .unwrap()
        .contains(&json!("report/elo.png")));
    let png = s.get("/api/runs/tiny/files/report/elo.png");
    assert_eq!(png.status, 200);
    assert_eq!(png.content_type, "image/png");
    #[cfg(unix)]
    assert_eq!(s.get("/api/runs/tiny/files/report/link.png").status, 404);
    assert_eq!(s.get("/api/runs/tiny/files/generations.jsonl").status, 404);
}

/// Every kind of bad input the API can meet, each answered with a 4xx and
/// a message, never a panic or a hang; the server still answers after.
#[test]
fn bad_input_gets_a_clear_4xx() {
    let (s, base_guard) = server("bad");
    let base = base_guard.path();
    std::fs::create_dir_all(base.join("models/fake")).unwrap();
    std::fs::write(base.join("models/fake/model.json"), "{}").unwrap();
    std::fs::write(base.join("outside.txt"), "secret").unwrap();
    let long_moves: Vec<&str> = vec!["d7-f7"; 6000];
    let big = "x".repeat((1 << 20) + 10);
    let cases: Vec<(&str, &str, Vec<u8>, u16, &str)> = vec![
        (
            "POST",
            "/api/game",
            b"{not json".to_vec(),
            400,
            "request body",
        ),
        (
            "POST",
            "/api/game",
            b"\xff\xfe".to_vec(),
            400,
            "request body",
        ),
        ("POST", "/api/game", b"[]".to_vec(), 400, "request body"),
        (
            "POST",
            "/api/game",
            br#"{"rules":"modern","moves":[],"extra":1}"#.to_vec(),
            400,
            "unknown field",
        ),
        (
            "POST",
            "/api/game",
            br#"{"moves":[]}"#.to_vec(),
            400,
            "missing field",
        ),
        (
            "POST",
            "/api/game",
            br#"{"rules":"chess"}"#.to_vec(),
            404,
            "no rule set `chess`",
        ),
        (
            "POST",
            "/api/game",
            br#"{"rules":"../configs/rules/modern.toml"}"#.to_vec(),
            404,
            "no rule set",
        ),
        (
            "POST",
            "/api/game",
            br#"{"rules":"modern","moves":["zz"]}"#.to_vec(),
            400,
            "move 1",
        ),
        (
            "POST",
            "/api/game",
            br#"{"rules":"modern","moves":[17]}"#.to_vec(),
            400,
            "request body",
        ),
        (
            "POST",
            "/api/game",
            json!({"rules": "modern", "moves": long_moves})
                .to_string()
                .into_bytes(),
            400,
            "at most 5000",
        ),
        (
            "POST",
            "/api/move",
            br#"{"rules":"modern","player":"otep:sh -c 'cat /etc/passwd'"}"#.to_vec(),
            400,
            "not offered",
        ),
        (
            "POST",
            "/api/move",
            br#"{"rules":"modern","player":"human"}"#.to_vec(),
            400,
            "not offered",
        ),
        (
            "POST",
            "/api/move",
            br#"{"rules":"modern","player":"gnuchess"}"#.to_vec(),
            400,
            "unknown player",
        ),
        (
            "POST",
            "/api/move",
            br#"{"rules":"modern","player":"alphabeta:ms=86400000"}"#.to_vec(),
            400,
            "at most 2000 ms",
        ),
        (
            "POST",
            "/api/move",
            br#"{"rules":"modern","player":"alphabeta:ms=99999999999999"}"#.to_vec(),
            400,
            "player spec",
        ),
        (
            "POST",
            "/api/move",
            br#"{"rules":"modern","player":"alphabeta:tt=16384"}"#.to_vec(),
            400,
            "MiB",
        ),
        (
            "POST",
            "/api/move",
            br#"{"rules":"modern","player":"alphabeta:threads=256"}"#.to_vec(),
            400,
            "cores",
        ),
        (
            "POST",
            "/api/move",
            br#"{"rules":"modern","player":"alphabeta:eval=/etc/passwd"}"#.to_vec(),
            400,
            "eval=",
        ),
        (
            "POST",
            "/api/move",
            br#"{"rules":"modern","player":"mcts:model=../../etc"}"#.to_vec(),
            404,
            "no net",
        ),
        (
            "POST",
            "/api/move",
            br#"{"rules":"modern","player":"mcts:model=/etc"}"#.to_vec(),
            404,
            "no net",
        ),
        (
            "POST",
            "/api/move",
            br#"{"rules":"modern","player":"mcts:model=nothere,sims=10"}"#.to_vec(),
            404,
            "nets: fake",
        ),
        (
            "POST",
            "/api/move",
            br#"{"rules":"modern","player":"mcts:sims=0"}"#.to_vec(),
            400,
            "player spec",
        ),
        (
            "POST",
            "/api/move",
            json!({"rules": "modern", "player": "a".repeat(5000)})
                .to_string()
                .into_bytes(),
            400,
            "longer than 300",
        ),
        (
            "POST",
            "/api/analyse",
            br#"{"rules":"modern","player":"random"}"#.to_vec(),
            400,
            "asks an engine",
        ),
        (
            "POST",
            "/api/otg/read",
            br#"{"text":"no tags at all"}"#.to_vec(),
            400,
            "game file",
        ),
        (
            "POST",
            "/api/otg/read",
            json!({"text": big}).to_string().into_bytes(),
            400,
            "over 1048576 bytes",
        ),
        (
            "POST",
            "/api/records/read",
            br#"{"text":"{\"format\":1}\n"}"#.to_vec(),
            400,
            "line 1",
        ),
        (
            "POST",
            "/api/otg/write",
            br#"{"rules":"modern","moves":["d7-d5"]}"#.to_vec(),
            400,
            "illegal",
        ),
        (
            "GET",
            "/api/nets/fake/model.safetensors",
            vec![],
            404,
            "model.onnx",
        ),
        (
            "GET",
            "/api/nets/..%2F..%2Foutside.txt/model.onnx",
            vec![],
            404,
            "no net",
        ),
        ("GET", "/api/nets/nothere/model.onnx", vec![], 404, "no net"),
        ("GET", "/vendor/ort.min.js", vec![], 404, "onnxruntime-web"),
        ("GET", "/api/runs/..%2Foutside.txt", vec![], 404, "no run"),
        (
            "GET",
            "/api/runs/nothere/files/a.png",
            vec![],
            404,
            "no run",
        ),
        ("GET", "/no/such/page", vec![], 404, "no such page"),
    ];
    let n = cases.len();
    for (method, path, body, status, words) in cases {
        let r = s.request(method, path, &body);
        assert_eq!(
            r.status,
            status,
            "{method} {path}: {}",
            String::from_utf8_lossy(&r.body)
        );
        assert!(
            r.error().contains(words),
            "{method} {path}: `{}` lacks `{words}`",
            r.error()
        );
    }
    // A method the route does not take.
    assert_eq!(s.request("DELETE", "/api/game", b"").status, 405);
    assert_eq!(
        s.get("/api/info").status,
        200,
        "still serving after {n} bad requests"
    );
    eprintln!("{} bad inputs answered with 4xx", n + 1);
}
