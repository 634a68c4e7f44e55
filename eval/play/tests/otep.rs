//! The engine side of the OpenTafl Engine Protocol, driven in-process: a
//! scripted session, and a stream of malformed and out-of-turn commands
//! that must get `error` lines, never a panic or a line that is not
//! protocol.

use brandubh_play::PlayerSpec;
use brandubh_play::{otep::Engine, otep::Flow};
use brandubh_rules::{opentafl_rules, Board, Game, MoveRecord, RuleSet};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

fn rules(name: &str) -> Arc<RuleSet> {
    Arc::new(RuleSet::named(name).unwrap())
}

fn engine(out: &mut Vec<u8>, prefer: Vec<Arc<RuleSet>>) -> Engine<&mut Vec<u8>> {
    Engine::new(
        out,
        PlayerSpec::parse("alphabeta:depth=2").unwrap(),
        7,
        prefer,
        brandubh_play::PlayContext::uniform_only(),
    )
}

const KEYWORDS: [&str; 7] = [
    "hello", "move", "analysis", "error", "status", "rules", "position",
];

fn lines(out: &[u8]) -> Vec<String> {
    String::from_utf8(out.to_vec())
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn scripted_session_plays_legal_moves() {
    let modern = rules("modern");
    let (text, _) = opentafl_rules(&modern);
    let mut out = Vec::new();
    let mut e = engine(&mut out, vec![modern.clone()]);
    let script = format!(
        "rules {text}\nside defenders\nstart\nopponent-move d1-c1 /2t4/3t3/3T3/ttTKTtt/3T3/3t3/3t3/\n\
         clock 60000 60000 0 0 0\nplay defenders\nanalyze 2 1\nfinish 1\ngoodbye\n"
    );
    e.run(script.as_bytes()).unwrap();
    drop(e);
    let got = lines(&out);
    assert_eq!(got[0], "hello");
    let mv = got[1].strip_prefix("move ").expect("a move");
    let mut game = Game::new(modern.clone());
    game.play("d1-c1".parse::<MoveRecord>().unwrap().mv)
        .unwrap();
    game.play(mv.parse::<MoveRecord>().unwrap().mv)
        .expect("the engine's move is legal");
    assert!(got[2].starts_with("analysis "), "{got:?}");
    assert_eq!(got.len(), 3, "{got:?}");
}

#[test]
fn refused_rules_name_the_entry_and_the_engine_stays_up() {
    let mut out = Vec::new();
    let mut e = engine(&mut out, vec![]);
    assert_eq!(
        e.handle("rules dim:7 esc:e start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/")
            .unwrap(),
        Flow::Continue
    );
    e.handle("play attackers").unwrap();
    // Rules it can play, mid-game: a new game under them.
    e.handle("rules dim:7 ks:n start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/")
        .unwrap();
    e.handle("play attackers").unwrap();
    drop(e);
    let got = lines(&out);
    assert!(
        got[0].starts_with("error 0 ") && got[0].contains("esc:e"),
        "{got:?}"
    );
    assert!(got[1].starts_with("error 0 "), "{got:?}");
    assert!(got[2].starts_with("move "), "{got:?}");
}

#[test]
fn the_hosts_board_wins_when_a_move_is_garbage() {
    let mut out = Vec::new();
    let mut e = engine(&mut out, vec![rules("wtf")]);
    let (text, _) = opentafl_rules(&rules("wtf"));
    e.handle(&format!("rules {text}")).unwrap();
    // A move that is not legal, with the host's board after it.
    let board = "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/1t5/";
    e.handle(&format!("opponent-move zz-q9 {board}")).unwrap();
    e.handle("play defenders").unwrap();
    drop(e);
    let got = lines(&out);
    assert!(got[0].starts_with("move "), "{got:?}");
    let mut game = Game::from_position(
        rules("wtf"),
        brandubh_rules::Position::from_board(
            &rules("wtf"),
            Board::from_record(board).unwrap(),
            brandubh_rules::Side::Defenders,
        )
        .unwrap(),
    );
    game.play(got[0][5..].parse::<MoveRecord>().unwrap().mv)
        .unwrap();
}

/// Seeded random command lines: real keywords with wrong, missing or
/// random arguments, and raw junk.
#[test]
fn malformed_input_never_panics_and_stdout_stays_protocol() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let (text, _) = opentafl_rules(&rules("modern"));
    let words = [
        "rules",
        "position",
        "side",
        "play",
        "opponent-move",
        "clock",
        "analyze",
        "finish",
        "move",
        "error",
        "start",
        "hello",
        "simple-moves",
        "status",
        "xyzzy",
        "",
    ];
    let args = [
        "attackers",
        "defenders",
        "d1-c1",
        "a1-a7",
        "-1",
        "1*",
        "99999999999999999999",
        "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/",
        "/7/7/7/7/7/7/7/",
        "/K6/7/7/7/7/7/t6/",
        "|",
        "||d1-c1",
        "0",
        "1",
        "2",
        "x",
        "dim:7",
        "ks:m",
        "start:/3t3/",
        "\u{00e9}\u{2603}",
        "d4-d4",
        "-5",
        "3 1",
        "18446744073709551615",
        "9223372036854775807*",
        "1000 1000 0 0 0",
        "1000* 5 5 1 1",
    ];
    let mut commands = 0;
    for _ in 0..40 {
        let mut out = Vec::new();
        let mut e = engine(&mut out, vec![]);
        if rng.random_bool(0.7) {
            e.handle(&format!("rules {text}")).unwrap();
        }
        for _ in 0..60 {
            let w = words[rng.random_range(0..words.len())];
            let n = rng.random_range(0..4);
            let mut line = w.to_string();
            for _ in 0..n {
                line.push(' ');
                if rng.random_bool(0.1) {
                    let junk: String = (0..rng.random_range(1..12))
                        .map(|_| rng.random_range(0x20u8..0x7f) as char)
                        .collect();
                    line.push_str(&junk);
                } else {
                    line.push_str(args[rng.random_range(0..args.len())]);
                }
            }
            commands += 1;
            if e.handle(&line).unwrap() == Flow::Quit {
                break;
            }
        }
        drop(e);
        for l in lines(&out) {
            let first = l.split(' ').next().unwrap();
            assert!(KEYWORDS.contains(&first), "not protocol: {l:?}");
        }
    }
    assert!(commands > 1000);
}
