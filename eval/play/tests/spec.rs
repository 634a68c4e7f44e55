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
