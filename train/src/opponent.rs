//! A fixed opponent in self-play: an alpha-beta player that plays one side
//! of a share of each generation's games (`selfplay.opponent_share`), so
//! the net also learns from games against a search unlike its own.

use brandubh_play::{AlphaBetaPlayer, PlayerSpec};
use brandubh_rules::{Game, Move, RuleSet};
use brandubh_selfplay::{Opponent, OpponentPlayer};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The `[opponent]` section of a run config.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpponentSection {
    /// An alpha-beta player spec with a depth or node limit (a time limit
    /// would make the games depend on the machine), e.g. `alphabeta:depth=5`.
    pub player: String,
    /// The first generation whose self-play has the opponent.
    #[serde(default = "first_generation")]
    pub from_generation: u32,
}

fn first_generation() -> u32 {
    1
}

/// A player spec that must name an alpha-beta player (the teacher's, the
/// fixed opponent's), parsed; the error says what is wrong with it.
pub fn alpha_beta_spec(text: &str) -> Result<PlayerSpec, String> {
    let spec = PlayerSpec::parse(text).map_err(|e| e.to_string())?;
    if spec.kind != brandubh_play::PlayerKind::AlphaBeta {
        return Err(format!("`{text}` must be an alpha-beta player"));
    }
    Ok(spec)
}

/// The opponent's spec, checked: alpha-beta, bounded by depth or nodes.
pub fn check_spec(text: &str) -> Result<PlayerSpec, String> {
    let spec = alpha_beta_spec(text)?;
    let ab = spec.alphabeta();
    if ab.ms.is_some() || (ab.depth.is_none() && ab.nodes.is_none()) {
        return Err(format!(
            "`{text}` needs a depth= or nodes= limit and no ms=, so that a seed gives the same games on any machine"
        ));
    }
    Ok(spec)
}

/// Alpha-beta players of one spec, one per game, each on one thread (the
/// games already run side by side on the self-play threads).
pub struct AlphaBetaOpponent {
    spec: PlayerSpec,
    rules: Arc<RuleSet>,
}

impl AlphaBetaOpponent {
    pub fn new(text: &str, rules: Arc<RuleSet>) -> Result<AlphaBetaOpponent, String> {
        let spec = check_spec(text)?;
        // Built once here, so a spec that cannot be built fails now.
        spec.build_alphabeta(&rules).map_err(|e| e.to_string())?;
        Ok(AlphaBetaOpponent { spec, rules })
    }
}

struct OneGame(AlphaBetaPlayer);

impl OpponentPlayer for OneGame {
    fn choose(&mut self, game: &Game) -> Move {
        self.0.analyse(game).best
    }
}

impl Opponent for AlphaBetaOpponent {
    fn new_player(&self) -> Box<dyn OpponentPlayer> {
        let mut p = self
            .spec
            .build_alphabeta(&self.rules)
            .expect("checked when the opponent was made");
        p.set_threads(1);
        Box::new(OneGame(p))
    }
}

/// The fixed opponent of a generation whose self-play settings are
/// `selfplay` (from `RunConfig::selfplay_at`), given the run's
/// `[opponent]` section: none when the share is 0.
pub fn for_generation(
    section: Option<&OpponentSection>,
    selfplay: &brandubh_selfplay::SelfPlayConfig,
    rules: &Arc<RuleSet>,
) -> Result<Option<AlphaBetaOpponent>, String> {
    match section {
        Some(o) if selfplay.opponent_share > 0.0 => {
            AlphaBetaOpponent::new(&o.player, rules.clone())
                .map(Some)
                .map_err(|e| format!("opponent.player: {e}"))
        }
        _ => Ok(None),
    }
}
