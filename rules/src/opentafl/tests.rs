//! Round trips of OpenTafl rules strings for every built-in rule set, and
//! the strings we refuse.

use super::*;
use crate::builtin::BUILTIN;

fn builtin(name: &str) -> RuleSet {
    let (_, text) = BUILTIN.iter().find(|(n, _)| *n == name).unwrap();
    RuleSet::from_toml(text, name).unwrap()
}

/// The options a rules string carries: everything but what OpenTafl
/// has no key for.
fn expressible(mut o: RuleOptions) -> RuleOptions {
    o.name = String::new();
    o.description = String::new();
    o.end.quiet_ply_limit = 0;
    o.end.ply_limit = 0;
    o.end.ply_limit_outcome = GameResult::Draw;
    o.end.no_legal_moves = NoMoves::Lose;
    o.end.edge_rule = false;
    o.end.repetition_count = 3;
    for list in [
        &mut o.hostile.corners,
        &mut o.hostile.empty_throne,
        &mut o.hostile.occupied_throne,
    ] {
        list.sort();
    }
    let sq = |v: &mut Vec<String>| v.sort();
    sq(&mut o.setup.attackers);
    sq(&mut o.setup.defenders);
    o
}

#[test]
fn every_builtin_round_trips_in_what_opentafl_can_say() {
    for (name, _) in BUILTIN {
        let rules = builtin(name);
        let (text, missing) = opentafl_rules(&rules);
        let back = from_opentafl(&text).unwrap_or_else(|e| panic!("{name}: {text}: {e}"));
        let kc = &rules.options.king;
        let king_exact = matches!(
            (
                kc.capture_on_throne,
                kc.capture_beside_throne,
                kc.capture_elsewhere
            ),
            (KingCapture::Surround, KingCapture::Surround, _)
                | (
                    KingCapture::Sandwich,
                    KingCapture::Sandwich,
                    KingCapture::Sandwich
                )
        );
        if king_exact {
            assert_eq!(
                expressible(back.options),
                expressible(rules.options.clone()),
                "{name}: {text}"
            );
        } else {
            assert!(missing.iter().any(|m| m.contains("king capture")), "{name}");
        }
    }
}

#[test]
fn repetition_follows_opentafl_code() {
    // modern: the mover of the third repetition loses, which OpenTafl's
    // code plays under `tfr:w`.
    let (text, _) = opentafl_rules(&builtin("modern"));
    assert!(text.contains("tfr:w"), "{text}");
    let err = from_opentafl(&text.replace("tfr:w", "tfr:l")).unwrap_err();
    assert!(err.to_string().contains("tfr:l"), "{err}");
}

#[test]
fn ludii_king_is_opentafl_ks_c() {
    let rules = builtin("ludii");
    let (text, missing) = opentafl_rules(&rules);
    assert!(text.contains("ks:c"), "{text}");
    assert!(!missing.iter().any(|m| m.contains("king")), "{missing:?}");
    let back = from_opentafl(&text).unwrap();
    assert_eq!(back.options.king, rules.options.king);
}

#[test]
fn defaults_are_opentafls() {
    // OpenTafl's Brandub example string: weak king, centre hostile to no
    // one when occupied or empty, everything else by default.
    let r =
        from_opentafl("dim:7 ks:n cenhe: cenh: start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/").unwrap();
    let o = &r.options;
    assert_eq!(o.first_to_move, Side::Attackers);
    assert!(o.end.encirclement);
    assert_eq!(o.end.repetition, Repetition::Draw);
    assert!(o.king.hammer && o.king.anvil);
    assert_eq!(o.king.capture_on_throne, KingCapture::Sandwich);
    assert!(o.hostile.empty_throne.is_empty());
    assert!(o.hostile.occupied_throne.is_empty());
    assert_eq!(o.hostile.corners, Role::ALL.to_vec());
    assert_eq!(o.throne.pass, Who::Everyone);
    assert_eq!(o.throne.stop, Who::King);
    assert_eq!(o.corners.stop, Who::King);
    assert_eq!(r.start, builtin("wtf").start);
}

#[test]
fn what_we_cannot_play_is_named() {
    let start = "start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/";
    for (entry, named) in [
        ("dim:9", "dim:9"),
        ("esc:e", "esc:e"),
        ("ks:m", "ks:m"),
        ("sw:s", "sw:s"),
        ("cens:tT", "cens:tT"),
        ("zz:1", "zz:1"),
        ("ka:q", "ka:q"),
    ] {
        let text = format!("dim:7 {entry} {start}").replacen("dim:7 dim:9", "dim:9", 1);
        let err = from_opentafl(&text).unwrap_err().to_string();
        assert!(err.contains(named), "{entry}: {err}");
    }
    assert!(from_opentafl("dim:7 ks:n")
        .unwrap_err()
        .to_string()
        .contains("start"));
    assert!(from_opentafl("dim:7 nonsense start:/7/7/7/7/7/7/7/").is_err());
    assert!(from_opentafl("dim:7 start:/3t3/3t3/3T3/ttT1Ttt/3T3/3t3/3t3/").is_err());
}
