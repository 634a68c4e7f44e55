//! The search's settings, their ranges, and the error that names a
//! setting out of range.

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
    /// With `win_in_one`: count a position as won for the defenders when a
    /// king move leaves the attackers no way to stop an escape next turn
    /// (`Position::escape_fork`), a forced win three plies deep.
    pub escape_forks: bool,
    /// MCTS-solver: a node whose side to move has a move into a position
    /// proven lost for the opponent is proven won; one where every move
    /// leads into a position proven won for the opponent is proven lost.
    /// Proven nodes back up their exact value, PUCT scores a move by its
    /// proof rather than its mean, never walks into a proven loss while
    /// another move is open, and the most-visited choice plays a proven
    /// win and avoids a proven loss.
    pub solver: bool,
    /// Batched search of one game: the value each walk still waiting for
    /// its evaluation counts as, on every edge it took, as a loss of this
    /// size for the mover (1: a full loss; 0: a visit that changes no value,
    /// only spreads the next walks by the exploration term).
    pub virtual_loss: f32,
    /// Moves-left utility (PUCT only, nets with a moves-left output): the
    /// largest amount by which a move's score rises or falls for the plies
    /// it is expected to take; 0 turns it off. A side that is winning
    /// prefers the shorter lines, a side that is losing the longer ones, in
    /// proportion to how sure the node's value is.
    pub moves_left_effect: f32,
    /// The utility per ply of difference between a move's expected plies
    /// to the end and its parent's, before the cap `moves_left_effect`.
    pub moves_left_slope: f32,
    /// Q normalisation (PUCT only; 0 turns it off): at each node the
    /// visited moves' mean values are stretched from their own range onto
    /// −1..1 before the exploration term is added, so a side whose every
    /// move looks about equally lost (or won) still tells its moves apart.
    /// The range is taken as at least this wide, which caps the stretch
    /// at 2 / this.
    pub q_normalize: f32,
    /// Policy temperature: each prior the evaluator gives is raised to the
    /// power 1/T and the priors renormalised before the search uses them.
    /// Above 1 the search spreads its visits over more of the moves the
    /// net rates low; 1 leaves the priors as they are.
    pub policy_temperature: f32,
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
            escape_forks: false,
            solver: false,
            virtual_loss: 1.0,
            moves_left_effect: 0.0,
            moves_left_slope: 0.0027,
            q_normalize: 0.0,
            policy_temperature: 1.0,
        }
    }
}

/// A self-play or search setting that cannot be used, or a settings file
/// that cannot be read.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// `key` (dotted, as in the file: `mcts.c_puct`) is outside its range.
    #[error("{key} = {value}: must be within {lo}..={hi}{note}")]
    OutOfRange {
        key: String,
        value: f64,
        lo: f64,
        hi: f64,
        /// What else is allowed, if anything.
        note: &'static str,
    },
    #[error("{file}: {why}")]
    Io { file: String, why: String },
    /// Not TOML, or a key of the wrong type or unknown.
    #[error("{file}: {message}")]
    Parse { file: String, message: String },
    /// A value that is not a range's: a player spec that does not parse,
    /// say.
    #[error("{key}: {problem}")]
    Invalid { key: String, problem: String },
    /// A value in a file out of range.
    #[error("{file}: {source}")]
    InFile {
        file: String,
        #[source]
        source: Box<ConfigError>,
    },
}

impl ConfigError {
    /// The same error with `prefix.` before its key (a section of a larger
    /// file: `selfplay.` in a run config).
    pub fn within(mut self, prefix: &str) -> ConfigError {
        if let ConfigError::OutOfRange { key, .. } | ConfigError::Invalid { key, .. } = &mut self {
            *key = format!("{prefix}.{key}");
        }
        self
    }
}

/// `key = x` is finite and within `lo..=hi`, or an error naming both.
pub fn in_range(key: &str, x: f64, lo: f64, hi: f64) -> Result<(), ConfigError> {
    if x.is_finite() && (lo..=hi).contains(&x) {
        Ok(())
    } else {
        Err(ConfigError::OutOfRange {
            key: key.to_string(),
            value: x,
            lo,
            hi,
            note: "",
        })
    }
}

impl MctsConfig {
    /// Every value in a range the search can use; the error names the key
    /// (as `mcts.KEY`) and its range.
    pub fn check(&self) -> Result<(), ConfigError> {
        let range =
            |key: &str, x: f64, lo: f64, hi: f64| in_range(&format!("mcts.{key}"), x, lo, hi);
        range("simulations", self.simulations as f64, 1.0, 1e8)?;
        range("cheap_simulations", self.cheap_simulations as f64, 1.0, 1e8)?;
        range("full_search_prob", self.full_search_prob as f64, 0.0, 1.0)?;
        range("c_puct", self.c_puct as f64, 0.01, 100.0)?;
        range("fpu_reduction", self.fpu_reduction as f64, 0.0, 2.0)?;
        range("dirichlet_alpha", self.dirichlet_alpha as f64, 0.001, 100.0)?;
        range("dirichlet_epsilon", self.dirichlet_epsilon as f64, 0.0, 1.0)?;
        // visits^(1/T) overflows for T near 0; 0 itself means "most visited".
        if self.temperature != 0.0 {
            range("temperature", self.temperature as f64, 0.05, 100.0).map_err(|mut e| {
                if let ConfigError::OutOfRange { note, .. } = &mut e {
                    *note = " (or exactly 0: always the most visited move)";
                }
                e
            })?;
        }
        range(
            "gumbel_considered",
            self.gumbel_considered as f64,
            1.0,
            1176.0,
        )?;
        range("gumbel_c_visit", self.gumbel_c_visit as f64, 0.001, 1e6)?;
        range("gumbel_c_scale", self.gumbel_c_scale as f64, 0.001, 1e6)?;
        range("virtual_loss", self.virtual_loss as f64, 0.0, 2.0)?;
        range("moves_left_effect", self.moves_left_effect as f64, 0.0, 1.0)?;
        range("moves_left_slope", self.moves_left_slope as f64, 0.0, 1.0)?;
        range("q_normalize", self.q_normalize as f64, 0.0, 2.0)?;
        range(
            "policy_temperature",
            self.policy_temperature as f64,
            0.1,
            10.0,
        )?;
        Ok(())
    }
}
