//! MCTS and self-play settings, read from TOML (`configs/selfplay/*.toml`).

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MctsConfig {
    /// Simulations of a full search (a training target).
    pub simulations: u32,
    /// Simulations of a cheap search (playout-cap randomisation).
    pub cheap_simulations: u32,
    /// Probability that a move gets a full search; 1 turns the cap off.
    pub full_search_prob: f32,
    pub c_puct: f32,
    /// First-play urgency: an unvisited move's value is the parent's minus this.
    pub fpu_reduction: f32,
    pub dirichlet_alpha: f32,
    pub dirichlet_epsilon: f32,
    /// Move choice: sample visits^(1/T) for the first `temperature_plies`, then the most visited.
    pub temperature: f32,
    pub temperature_plies: u32,
    /// Gumbel root selection with sequential halving instead of PUCT at the root.
    pub gumbel: bool,
    /// Moves the Gumbel root considers (m).
    pub gumbel_considered: u32,
    pub gumbel_c_visit: f32,
    pub gumbel_c_scale: f32,
    /// Keep the chosen move's subtree for the next search.
    pub reuse_tree: bool,
    /// Treat a position whose side to move can win on the spot (king to a
    /// corner, or a king capture) as won without asking the evaluator, and
    /// always play such a win at the root.
    pub win_in_one: bool,
    /// With `win_in_one`: when the opponent threatens a win on the spot,
    /// give no prior to the moves that leave it open, and count a position
    /// where every move does as lost.
    pub loss_in_one: bool,
    /// Batched search of one game: the value each walk still waiting for
    /// its evaluation counts as, on every edge it took, as a loss of this
    /// size for the mover (1: a full loss; 0: a visit that changes no value,
    /// only spreads the next walks by the exploration term).
    pub virtual_loss: f32,
}

impl Default for MctsConfig {
    fn default() -> Self {
        MctsConfig {
            simulations: 128,
            cheap_simulations: 32,
            full_search_prob: 0.25,
            c_puct: 1.5,
            fpu_reduction: 0.25,
            dirichlet_alpha: 0.3,
            dirichlet_epsilon: 0.25,
            temperature: 1.0,
            temperature_plies: 12,
            gumbel: false,
            gumbel_considered: 16,
            gumbel_c_visit: 50.0,
            gumbel_c_scale: 1.0,
            reuse_tree: true,
            win_in_one: true,
            loss_in_one: true,
            virtual_loss: 1.0,
        }
    }
}

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
        }
    }
}

impl SelfPlayConfig {
    pub fn from_file(path: &std::path::Path) -> Result<SelfPlayConfig, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        toml::from_str(&text).map_err(|e| format!("{}: {}", path.display(), e.message().trim()))
    }
}
