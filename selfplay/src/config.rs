//! Self-play settings, read from TOML (`configs/selfplay/*.toml`): the
//! search's settings plus how many games run at once and how they start.

use brandubh_mcts::{in_range, ConfigError, MctsConfig};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SelfPlayConfig {
    pub mcts: MctsConfig,
    /// Games searched at once; their leaves form one evaluation batch.
    pub concurrent_games: usize,
    /// A game still going after this many plies is recorded as unfinished.
    pub max_plies: u32,
    /// Random plies played before search takes over, for variety.
    pub opening_plies: u32,
    /// Games per Parquet shard.
    pub games_per_shard: usize,
    /// The attackers' searches get this many times the simulations (full
    /// and cheap alike): a handicap that lets the weaker side of a lopsided
    /// game win some self-play games, so both sides' values carry signal.
    /// 1 is an even search.
    pub attacker_sims_factor: f32,
    /// The share of a run's self-play games in which one side (attackers
    /// or defenders, equally often) is played by a past net of the run
    /// instead of the current one, so each side also meets weaker and
    /// different opponents than itself. 0 turns it off.
    pub past_share: f32,
    /// How many of the newest earlier generations those past nets are
    /// drawn from (uniformly).
    pub past_generations: u32,
    /// The first generation of a run whose self-play plays past nets
    /// (earlier ones play only the current net).
    pub past_from_generation: u32,
    /// The share of the games in which one side is played by a fixed
    /// opponent outside the run (an alpha-beta player, say) that the
    /// caller supplies; its moves carry the game's result but no policy
    /// target. 0, or no opponent supplied, turns it off.
    pub opponent_share: f32,
    /// Which side that opponent plays.
    pub opponent_plays: OpponentSides,
}

/// The side a fixed opponent plays in the games it is in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpponentSides {
    /// Attackers or defenders, equally often.
    #[default]
    Either,
    Attackers,
    Defenders,
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            mcts: MctsConfig::default(),
            concurrent_games: 64,
            max_plies: 300,
            opening_plies: 2,
            games_per_shard: 64,
            attacker_sims_factor: 1.0,
            past_share: 0.0,
            past_generations: 10,
            past_from_generation: 1,
            opponent_share: 0.0,
            opponent_plays: OpponentSides::Either,
        }
    }
}

impl SelfPlayConfig {
    pub fn from_file(path: &std::path::Path) -> Result<SelfPlayConfig, ConfigError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Io {
            file: file.clone(),
            why: e.to_string(),
        })?;
        let c: SelfPlayConfig =
            brandubh_rules::toml_keyed::from_toml(&text).map_err(|e| ConfigError::Parse {
                file: file.clone(),
                message: e.to_string(),
            })?;
        c.check().map_err(|e| ConfigError::InFile {
            file,
            source: Box::new(e),
        })?;
        Ok(c)
    }

    /// Every value in a range self-play can use; the error names the key.
    pub fn check(&self) -> Result<(), ConfigError> {
        self.mcts.check()?;
        let range = in_range;
        range(
            "concurrent_games",
            self.concurrent_games as f64,
            1.0,
            65536.0,
        )?;
        range("max_plies", self.max_plies as f64, 1.0, 65535.0)?;
        range("opening_plies", self.opening_plies as f64, 0.0, 1000.0)?;
        range("games_per_shard", self.games_per_shard as f64, 1.0, 1e6)?;
        range(
            "attacker_sims_factor",
            self.attacker_sims_factor as f64,
            0.01,
            100.0,
        )?;
        range("past_share", self.past_share as f64, 0.0, 1.0)?;
        range("opponent_share", self.opponent_share as f64, 0.0, 1.0)?;
        range(
            "past_generations",
            self.past_generations as f64,
            1.0,
            10_000.0,
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_commented_default_file_holds_the_built_in_defaults() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../configs/selfplay/default.toml");
        assert_eq!(
            SelfPlayConfig::from_file(&path).unwrap(),
            SelfPlayConfig::default()
        );
    }

    #[test]
    fn out_of_range_values_are_named() {
        assert!(SelfPlayConfig::default().check().is_ok());
        let bad = |f: &dyn Fn(&mut SelfPlayConfig), key: &str| {
            let mut c = SelfPlayConfig::default();
            f(&mut c);
            let e = c.check().unwrap_err();
            match &e {
                ConfigError::OutOfRange { key: k, .. } => assert!(k.ends_with(key), "{e}"),
                _ => panic!("{e}"),
            }
            assert!(e.to_string().contains(key), "{e}");
        };
        bad(&|c| c.mcts.dirichlet_epsilon = 1.5, "dirichlet_epsilon");
        bad(&|c| c.mcts.temperature = 1e-6, "temperature");
        bad(&|c| c.mcts.c_puct = f32::NAN, "c_puct");
        bad(&|c| c.mcts.simulations = 0, "simulations");
        bad(&|c| c.concurrent_games = 0, "concurrent_games");
        bad(&|c| c.attacker_sims_factor = -1.0, "attacker_sims_factor");
        bad(&|c| c.opponent_share = 1.5, "opponent_share");
        let mut c = SelfPlayConfig::default();
        c.mcts.temperature = 0.0;
        assert!(c.check().is_ok(), "0: always the most visited move");
    }
}
