//! Games at the terminal: `play`, with seeded players and a human.

use crate::brandubh;
use std::process::Command;

#[test]
fn play_random_vs_random_is_seeded() {
    for name in ["modern", "ludii", "wtf", "wtf-plain", "raven"] {
        let args = [
            "play",
            "--rules",
            name,
            "--attackers",
            "random",
            "--defenders",
            "random",
            "--seed",
            "7",
        ];
        let (a, b) = (brandubh(&args), brandubh(&args));
        assert!(a.status.success());
        assert_eq!(a.stdout, b.stdout, "{name}: same seed, same game");
        let text = String::from_utf8(a.stdout).unwrap();
        assert!(
            text.contains("game over") || text.contains("unfinished"),
            "{text}"
        );
    }
}

#[test]
fn play_human_reads_moves_from_stdin() {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_brandubh"))
        .args([
            "play",
            "--rules",
            "modern",
            "--attackers",
            "human",
            "--defenders",
            "random",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .as_mut()
        .unwrap()
        .write_all(b"d4-d5\nzz\nd6-c6\nquit\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("illegal"), "{text}");
    assert!(text.contains("1. attackers (human): d6-c6"), "{text}");
    assert!(out.status.success());
    assert!(text.contains("attackers (human) resigns: quit"), "{text}");
}
