//! Balance arithmetic.

use brandubh_arena::{
    balance::quantile, balance::summarise_all, balance::wilson, balance::GameOutcome,
};

#[test]
fn wilson_intervals_match_independent_values() {
    // Values from a separate Python implementation of the Wilson formula.
    let s = wilson(50, 100);
    assert!(
        (s.ci95[0] - 0.403_831).abs() < 1e-5 && (s.ci95[1] - 0.596_169).abs() < 1e-5,
        "{s:?}"
    );
    let s = wilson(0, 10);
    assert!(
        s.ci95[0].abs() < 1e-12 && (s.ci95[1] - 0.277_532).abs() < 1e-5,
        "{s:?}"
    );
    let s = wilson(342, 1000);
    assert!(
        (s.ci95[0] - 0.313_253).abs() < 1e-5 && (s.ci95[1] - 0.371_956).abs() < 1e-5,
        "{s:?}"
    );
}

#[test]
fn quantiles_interpolate_like_numpy() {
    let v = [10, 20, 30, 40];
    assert_eq!(quantile(&v, 0.5), 25.0);
    assert_eq!(quantile(&v, 0.25), 17.5);
    assert_eq!(quantile(&v, 0.75), 32.5);
    assert_eq!(quantile(&[7], 0.3), 7.0);
}

fn g(rules: &str, group: &str, result: &str, reason: Option<&str>, plies: u32) -> GameOutcome {
    GameOutcome {
        rules: rules.into(),
        group: group.into(),
        result: result.parse().unwrap(),
        reason: reason.map(|r| r.parse().unwrap()),
        plies,
    }
}

#[test]
fn summaries_count_results_lengths_and_endings() {
    let games = vec![
        g("wtf", "gen0", "attackers_win", Some("king_captured"), 30),
        g("wtf", "gen0", "defenders_win", Some("king_escaped"), 20),
        g("wtf", "gen0", "defenders_win", Some("king_escaped"), 40),
        g("wtf", "gen0", "unfinished", None, 300),
        g("wtf", "gen1", "draw", Some("quiet_ply_limit"), 170),
        g("ludii", "gen0", "attackers_win", Some("king_captured"), 50),
    ];
    let rows = summarise_all(&games);
    assert_eq!(rows.len(), 3);
    let w0 = &rows[0];
    assert_eq!(
        (w0.rules.as_str(), w0.group.as_str(), w0.games),
        ("wtf", "gen0", 4)
    );
    assert_eq!(w0.attackers.count, 1);
    assert_eq!(w0.defenders.count, 2);
    assert_eq!(w0.unfinished.count, 1);
    assert_eq!(w0.lengths.median, 35.0);
    assert_eq!(w0.lengths.mean, 97.5);
    assert_eq!(w0.endings["king_escaped"], 2);
    assert_eq!(w0.endings["unfinished"], 1);
    assert_eq!(rows[1].draws.count, 1);
    assert_eq!(rows[2].rules, "ludii");
}
