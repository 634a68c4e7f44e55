//! Player specs: one parser, and a canonical spelling that parses back to
//! the same spec.

use brandubh_play::{PlayerKind, PlayerSpec};

#[test]
fn a_spec_displays_as_its_canonical_text_and_parses_back() {
    for (text, kind, canonical) in [
        ("random", PlayerKind::Random, "random"),
        ("human", PlayerKind::Human, "human"),
        ("ab:depth=3", PlayerKind::AlphaBeta, "alphabeta:depth=3"),
        (
            "alphabeta:ms=100,threads=2,tt=8",
            PlayerKind::AlphaBeta,
            "alphabeta:ms=100,threads=2,tt=8",
        ),
        (
            "mcts:model=uniform,sims=64,cpuct=1.5",
            PlayerKind::Mcts,
            "mcts:model=uniform,sims=64,cpuct=1.5",
        ),
        (
            "otep:brandubh engine --player alphabeta:depth=2,tt=4",
            PlayerKind::Otep,
            "otep:brandubh engine --player alphabeta:depth=2,tt=4",
        ),
    ] {
        let spec = PlayerSpec::parse(text).unwrap();
        assert_eq!(spec.kind, kind, "{text}");
        assert_eq!(spec.to_string(), canonical, "{text}");
        let again = PlayerSpec::parse(&spec.to_string()).unwrap();
        assert_eq!(
            (again.kind, &again.params),
            (spec.kind, &spec.params),
            "{text}"
        );
    }
}

#[test]
fn specs_carry_typed_settings() {
    use brandubh_play::{AlphaBetaSettings, MctsSpecSettings, Settings};
    let m =
        PlayerSpec::parse("mcts:model=models/wtf,sims=64,gumbel=1,cpuct=2.5,threads=1").unwrap();
    assert_eq!(
        m.mcts(),
        MctsSpecSettings {
            model: Some("models/wtf".into()),
            sims: Some(64),
            gumbel: Some(true),
            cpuct: Some(2.5),
            threads: Some(1),
            ..MctsSpecSettings::default()
        }
    );
    let a = PlayerSpec::parse("ab:depth=6,tt=32").unwrap();
    assert_eq!(
        a.settings,
        Settings::AlphaBeta(AlphaBetaSettings {
            depth: Some(6),
            tt: Some(32),
            ..AlphaBetaSettings::default()
        })
    );
    assert_eq!(a.without(&["tt"]).unwrap().to_string(), "alphabeta:depth=6");
    let o = PlayerSpec::parse("otep:brandubh engine --player random").unwrap();
    assert_eq!(
        o.settings,
        Settings::Otep {
            cmd: "brandubh engine --player random".into()
        }
    );
}
