//! Elo, confidence-interval, LOS, SPRT and rating arithmetic against values
//! computed independently (a separate Python implementation solving the
//! constrained maximum-likelihood problem by Newton's method).

use brandubh_arena::ratings::rate;
use brandubh_arena::stats::*;
use brandubh_arena::GameRecord;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn elo_of_known_scores() {
    assert!(close(elo_from_score(0.75), 190.849, 0.01));
    assert!(close(elo_from_score(0.5), 0.0, 1e-9));
    assert!(close(elo_from_score(0.25), -190.849, 0.01));
    assert!(close(score_from_elo(190.849), 0.75, 1e-5));
}

#[test]
fn normal_cdf_values() {
    assert!(close(normal_cdf(0.0), 0.5, 1e-7));
    assert!(close(normal_cdf(1.959_964), 0.975, 1e-6));
    assert!(close(normal_cdf(-1.0), 0.158_655, 1e-6));
}

#[test]
fn pentanomial_elo_ci_and_los() {
    // 100 pairs: mean pair score 0.6, computed by hand.
    let p = Pentanomial([5, 15, 30, 35, 15]);
    let e = p.elo().unwrap();
    // mean = (15*.25 + 30*.5 + 35*.75 + 15*1)/100 = 0.6
    assert!(close(e.score, 0.6, 1e-12));
    assert!(close(e.elo, 70.437, 0.01));
    // var = Σ c (x-0.6)^2 / 100 = 7.125 / 100
    let se = (0.071_25f64 / 100.0).sqrt();
    assert!(close(e.ci95.0, elo_from_score(0.6 - 1.959_964 * se), 1e-9));
    assert!(close(e.ci95.1, elo_from_score(0.6 + 1.959_964 * se), 1e-9));
    assert!(e.ci95.0 < e.elo && e.elo < e.ci95.1);
    assert!(close(e.los, normal_cdf(0.1 / se), 1e-12));
    assert!(e.los > 0.9999);
}

#[test]
fn sprt_llr_matches_independent_values() {
    for (counts, (e0, e1), expected) in [
        ([10, 40, 100, 50, 20], (0.0, 10.0), 1.443_154_742),
        ([5, 30, 120, 30, 5], (0.0, 5.0), -0.149_253_847),
        ([2, 10, 30, 40, 18], (0.0, 20.0), 4.709_431_957),
        ([100, 300, 800, 350, 120], (-5.0, 5.0), 5.641_058_341),
    ] {
        let llr = Pentanomial(counts).llr(e0, e1);
        assert!(
            close(llr, expected, 1e-6),
            "{counts:?}: {llr} vs {expected}"
        );
    }
}

#[test]
fn sprt_bounds_and_verdicts() {
    let s = Sprt::new(0.0, 10.0);
    let (lo, hi) = s.bounds();
    assert!(close(lo, -2.944_439, 1e-6) && close(hi, 2.944_439, 1e-6));
    assert_eq!(
        s.verdict(&Pentanomial([10, 40, 100, 50, 20])).1,
        SprtVerdict::Continue
    );
    let s20 = Sprt::new(0.0, 20.0);
    assert_eq!(
        s20.verdict(&Pentanomial([2, 10, 30, 40, 18])).1,
        SprtVerdict::AcceptH1
    );
    assert_eq!(
        s20.verdict(&Pentanomial([18, 40, 30, 10, 2])).1,
        SprtVerdict::AcceptH0
    );
}

fn rec(att: &str, def: &str, result: &str) -> GameRecord {
    GameRecord {
        format: 1,
        rules: "wtf".into(),
        rules_hash: "0".into(),
        pair: 0,
        game: 0,
        seed: 0,
        attackers: att.into(),
        defenders: def.into(),
        attackers_id: None,
        defenders_id: None,
        opening: vec![],
        moves: vec![],
        result: result.parse().unwrap(),
        reason: None,
        plies: 0,
        move_us: vec![],
        detail: None,
    }
}

#[test]
fn bradley_terry_recovers_known_ratings_and_side_advantage() {
    // X is +200 Elo over the anchor; the attackers have +100.
    let mut games = Vec::new();
    let mut add = |att: &str, def: &str, p_att: f64| {
        let wins = (p_att * 10_000.0).round() as usize;
        for i in 0..10_000 {
            games.push(rec(
                att,
                def,
                if i < wins {
                    "attackers_win"
                } else {
                    "defenders_win"
                },
            ));
        }
    };
    add("X", "random", score_from_elo(300.0));
    add("random", "X", score_from_elo(-100.0));
    let t = rate(&games, "random").unwrap();
    let x = t.ratings.iter().find(|r| r.player == "X").unwrap();
    assert!(close(x.elo, 200.0, 1.5), "{}", x.elo);
    assert!(
        close(t.attacker_advantage, 100.0, 1.5),
        "{}",
        t.attacker_advantage
    );
    assert!(x.ci95 > 0.0 && x.ci95 < 15.0, "{}", x.ci95);
    let anchor = t.ratings.iter().find(|r| r.player == "random").unwrap();
    assert_eq!(anchor.elo, 0.0);
    assert!(rate(&games, "nobody").is_err());
}

/// One net under two path spellings is one player: its games are rated
/// together under its model id, and either spelling names it as the anchor.
#[test]
fn ratings_know_a_net_by_its_model_id() {
    let net = |path: &str, att: bool, result: &str| {
        let spec = format!("mcts:model={path},sims=50");
        let mut g = if att {
            rec(&spec, "alphabeta:depth=2", result)
        } else {
            rec("alphabeta:depth=2", &spec, result)
        };
        let id = Some("mcts:model=ab12,sims=50".to_string());
        if att {
            g.attackers_id = id;
        } else {
            g.defenders_id = id;
        }
        g
    };
    let games = vec![
        net("runs/a/gen-3", true, "attackers_win"),
        net("./runs/a/gen-3", false, "attackers_win"),
        net("/moved/a/gen-3", true, "defenders_win"),
        net("runs/a/gen-3", false, "defenders_win"),
    ];
    let t = rate(&games, "alphabeta:depth=2").unwrap();
    assert_eq!(t.ratings.len(), 2, "{:?}", t.ratings);
    let me = t
        .ratings
        .iter()
        .find(|r| r.player == "mcts:model=ab12,sims=50")
        .unwrap();
    assert_eq!(me.games, 4);
    assert_eq!(me.specs.len(), 3, "{:?}", me.specs);
    let t = rate(&games, "mcts:model=/moved/a/gen-3,sims=50").unwrap();
    assert_eq!(t.anchor, "mcts:model=/moved/a/gen-3,sims=50");
    assert!(t.ratings.iter().any(|r| r.elo == 0.0 && r.games == 4));
}
