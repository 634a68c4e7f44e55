//! Balance studies: for each rule set or rule variant, the attackers' share
//! from players of several strengths (a ladder) and from cross-play
//! between two kinds of player, kept as a run directory that resumes
//! after a kill. A variant is a rule set as it stands, or a base rule set
//! with options changed (`set = { "end.encirclement" = false }`).
//!
//! Games are played in chunks of `chunk` openings, each written whole
//! (`games/VARIANT/CELL/chunk-NNNN.jsonl`, arena game records) once it is
//! done, so a kill loses at most the chunks in flight, and the report is
//! rebuilt from the files alone.

use crate::ArenaError;
use brandubh_play::PlayerSpec;
use brandubh_rules::ruleset::RuleOptions;
use brandubh_rules::{fnv1a, splitmix64, RuleSet};
use serde::Deserialize;

use std::sync::Arc;

/// A study file (`configs/balance/*.toml`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepConfig {
    /// The rule set (name or file) that variants with `set` start from.
    #[serde(default)]
    pub base: Option<String>,
    /// Openings per cell; each is one game.
    #[serde(default = "default_pairs")]
    pub pairs: u64,
    /// Openings per file: a kill loses at most one chunk per worker.
    #[serde(default = "default_chunk")]
    pub chunk: u64,
    /// Random plies from the start before the players take over.
    #[serde(default = "default_openings")]
    pub openings: u32,
    /// Redraw openings a search scores more than this far from the start
    /// (an attacker man is 100); 0 keeps every random opening.
    #[serde(default = "default_balanced")]
    pub balanced: u32,
    /// Games still going at this many plies are unfinished.
    #[serde(default = "default_max_plies")]
    pub max_plies: u32,
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// The players, weakest first, each playing both sides.
    #[serde(default)]
    pub ladder: Vec<String>,
    #[serde(default, rename = "variant")]
    pub variants: Vec<VariantConfig>,
    /// Nets fine-tuned for each variant (`balance --sweep … --net-minutes M`).
    #[serde(default)]
    pub finetune: Option<FinetuneConfig>,
}

/// `[finetune]`: with `--net-minutes M`, each variant gets a net of its own,
/// trained for M minutes of wall time from `from` (a checkpoint directory,
/// the nearest shipped net) with run config `config`, which then plays on
/// the variant's ladder at each of `sims` simulations a move, and, at the
/// largest count, in cross-play against each of `cross`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FinetuneConfig {
    pub from: String,
    pub config: String,
    #[serde(default = "default_net_sims")]
    pub sims: Vec<u32>,
    /// Opponents of the fine-tuned net in the cross-play check.
    #[serde(default)]
    pub cross: Vec<String>,
}

fn default_net_sims() -> Vec<u32> {
    vec![64]
}

fn default_pairs() -> u64 {
    100
}
fn default_chunk() -> u64 {
    10
}
fn default_openings() -> u32 {
    4
}
fn default_balanced() -> u32 {
    150
}
fn default_max_plies() -> u32 {
    500
}
fn default_seed() -> u64 {
    1
}

/// One rule set or rule variant of a study.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantConfig {
    /// The variant's name in the report (default: the rule set's name).
    #[serde(default)]
    pub name: Option<String>,
    /// A rule set (name or file) as it stands; without it, `base`.
    #[serde(default)]
    pub rules: Option<String>,
    /// Options changed from the rule set, by dotted key as in a rule-set
    /// file (`"hostile.empty_throne" = []`, `"king.hammer" = false`).
    #[serde(default)]
    pub set: toml::Table,
    /// A ladder of this variant's own (a net trained for it, say) in place
    /// of the study's.
    #[serde(default)]
    pub ladder: Option<Vec<String>>,
    /// Pairs of players for the cross-play check, `[A, B]`: A and B each
    /// play themselves and each other from both sides.
    #[serde(default)]
    pub cross: Vec<[String; 2]>,
    /// The checkpoint this variant's fine-tuned net starts from, in place
    /// of `[finetune] from`.
    #[serde(default)]
    pub finetune_from: Option<String>,
}

/// Why a study could not be set up or run.
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    #[error("{file}: {why}")]
    Config { file: String, why: String },
    #[error(transparent)]
    Arena(#[from] ArenaError),
    #[error("{}: {why}", path.display())]
    Write {
        path: std::path::PathBuf,
        why: String,
    },
}

/// A variant ready to play: its name, rules and the cells to fill.
#[derive(Clone, Debug)]
pub struct Variant {
    pub name: String,
    pub rules: Arc<RuleSet>,
    /// The ladder's players, weakest first.
    pub ladder: Vec<String>,
    pub cross: Vec<[String; 2]>,
    /// Every (attackers, defenders) pairing to play, each once.
    pub cells: Vec<(String, String)>,
    /// Where its fine-tuned net starts from, when the study has `[finetune]`.
    pub finetune_from: Option<String>,
}

impl Variant {
    /// Puts `spec` at the top of the ladder (a net fine-tuned for the
    /// variant), playing itself.
    pub fn add_rung(&mut self, spec: &str) {
        if !self.ladder.iter().any(|p| p == spec) {
            self.ladder.push(spec.to_string());
        }
        self.add_cell(spec, spec);
    }

    /// Adds the pairing `attackers` against `defenders`, once.
    fn add_cell(&mut self, attackers: &str, defenders: &str) {
        let cell = (attackers.to_string(), defenders.to_string());
        if !self.cells.contains(&cell) {
            self.cells.push(cell);
        }
    }

    /// Adds the cross-play pair `[a, b]` and the cells it needs.
    pub fn add_cross(&mut self, a: &str, b: &str) {
        let pair = [a.to_string(), b.to_string()];
        if !self.cross.contains(&pair) {
            self.cross.push(pair);
        }
        for (x, y) in [(a, a), (b, b), (a, b), (b, a)] {
            self.add_cell(x, y);
        }
    }

    /// The variant's rules as a rule-set file.
    pub fn rules_toml(&self) -> Result<String, String> {
        toml::to_string(&self.rules.options).map_err(|e| e.to_string())
    }
}

/// A name safe as one path component.
pub fn slug(text: &str) -> String {
    let s: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let s = s.trim_matches('_').chars().take(60).collect::<String>();
    format!("{s}-{:08x}", splitmix64(fnv1a(text)) as u32)
}

/// Sets `path` (dotted) in `table` to `value`; the key must already exist,
/// so a misspelt option is an error, not a silent no-op.
fn set_dotted(table: &mut toml::Table, path: &str, value: toml::Value) -> Result<(), String> {
    let mut parts: Vec<&str> = path.split('.').collect();
    let last = parts.pop().unwrap_or_default();
    let mut t = table;
    for p in parts {
        t = t
            .get_mut(p)
            .and_then(|v| v.as_table_mut())
            .ok_or_else(|| format!("`{path}`: no section `{p}` in a rule set"))?;
    }
    if !t.contains_key(last) {
        return Err(format!("`{path}`: no option `{last}` in a rule set"));
    }
    t.insert(last.to_string(), value);
    Ok(())
}

/// The rules of `base` with the options in `set` changed, named `name`.
pub fn variant_rules(base: &RuleSet, set: &toml::Table, name: &str) -> Result<RuleSet, String> {
    let mut table = match toml::Value::try_from(&base.options).map_err(|e| e.to_string())? {
        toml::Value::Table(t) => t,
        _ => return Err("rule options are not a table".into()),
    };
    for (k, v) in set {
        set_dotted(&mut table, k, v.clone())?;
    }
    table.insert("name".into(), toml::Value::String(name.to_string()));
    let options: RuleOptions = toml::Value::Table(table)
        .try_into()
        .map_err(|e: toml::de::Error| e.message().to_string())?;
    RuleSet::from_options(options, name).map_err(|e| e.to_string())
}

impl SweepConfig {
    pub fn parse(text: &str, file: &str) -> Result<SweepConfig, SweepError> {
        let cfg: SweepConfig = toml::from_str(text).map_err(|e| SweepError::Config {
            file: file.to_string(),
            why: e.to_string(),
        })?;
        let bad = |why: String| SweepError::Config {
            file: file.to_string(),
            why,
        };
        if cfg.variants.is_empty() {
            return Err(bad("no [[variant]]".into()));
        }
        if cfg.pairs == 0 || cfg.chunk == 0 {
            return Err(bad("`pairs` and `chunk` must be at least 1".into()));
        }
        if let Some(f) = &cfg.finetune {
            if f.sims.is_empty() || f.sims.contains(&0) {
                return Err(bad(
                    "`finetune.sims`: at least one count, each at least 1".into()
                ));
            }
            for spec in &f.cross {
                PlayerSpec::parse(spec).map_err(|e| bad(format!("`finetune.cross`: {e}")))?;
            }
        }
        Ok(cfg)
    }

    /// The variants with their rules and cells; `load` reads a rule set
    /// by name or path.
    pub fn variants(
        &self,
        file: &str,
        load: &dyn Fn(&str) -> Result<RuleSet, String>,
    ) -> Result<Vec<Variant>, SweepError> {
        let bad = |why: String| SweepError::Config {
            file: file.to_string(),
            why,
        };
        let base = match &self.base {
            Some(b) => Some(load(b).map_err(|e| bad(format!("base: {e}")))?),
            None => None,
        };
        let mut out: Vec<Variant> = Vec::new();
        for (i, v) in self.variants.iter().enumerate() {
            let what = format!("variant {}", i + 1);
            let rules = match (&v.rules, &base) {
                (Some(r), _) => load(r).map_err(|e| bad(format!("{what}: {e}")))?,
                (None, Some(b)) => b.clone(),
                (None, None) => return Err(bad(format!("{what}: no `rules` and no `base`"))),
            };
            let name = v.name.clone().unwrap_or_else(|| rules.name().to_string());
            let rules = if v.set.is_empty() {
                rules
            } else {
                variant_rules(&rules, &v.set, &name)
                    .map_err(|e| bad(format!("{what} ({name}): {e}")))?
            };
            if out.iter().any(|o| o.name == name) {
                return Err(bad(format!("{what}: a second variant named `{name}`")));
            }
            let ladder = v.ladder.clone().unwrap_or_else(|| self.ladder.clone());
            for spec in ladder.iter().chain(v.cross.iter().flatten()) {
                PlayerSpec::parse(spec).map_err(|e| bad(format!("{what} ({name}): {e}")))?;
            }
            let mut variant = Variant {
                name,
                rules: Arc::new(rules),
                ladder: ladder.clone(),
                cross: Vec::new(),
                cells: Vec::new(),
                finetune_from: self
                    .finetune
                    .as_ref()
                    .map(|f| v.finetune_from.clone().unwrap_or_else(|| f.from.clone())),
            };
            for p in &ladder {
                variant.add_cell(p, p);
            }
            for [a, b] in &v.cross {
                variant.add_cross(a, b);
            }
            if variant.cells.is_empty() {
                return Err(bad(format!(
                    "{what} ({}): no ladder and no cross-play",
                    variant.name
                )));
            }
            out.push(variant);
        }
        Ok(out)
    }

    /// The chunks of a cell: (index, openings in it).
    pub fn chunks(&self) -> Vec<(u64, u64)> {
        (0..self.pairs.div_ceil(self.chunk))
            .map(|k| (k, self.chunk.min(self.pairs - k * self.chunk)))
            .collect()
    }
}

mod parquet;
mod play;
mod results;
pub use parquet::{
    study_games_schema, write_study_games, STUDY_GAMES_VERSION, STUDY_GAMES_VERSION_KEY,
};
pub use play::{cell_games, chunk_path, play_chunk, Chunk};
pub use results::{cross_check, results, CellResult, CrossCheck, VariantResult};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::balance::{summarise, Balance, GameOutcome};
    use brandubh_play::ending::RecordResult;

    fn bal(att: u64, def: u64, draw: u64) -> Balance {
        let mut games = Vec::new();
        for (n, r) in [
            (att, RecordResult::AttackersWin),
            (def, RecordResult::DefendersWin),
            (draw, RecordResult::Draw),
        ] {
            for _ in 0..n {
                games.push(GameOutcome {
                    rules: "x".into(),
                    group: "g".into(),
                    result: r,
                    reason: None,
                    plies: 40,
                });
            }
        }
        let refs: Vec<&GameOutcome> = games.iter().collect();
        summarise("x", "g", &refs)
    }

    #[test]
    fn a_player_with_weak_attackers_is_flagged() {
        // A (net) attacks badly: against the same defenders (A) its
        // attackers win 10 %, B's 50 %; B and A defend alike.
        let c = cross_check(
            "net",
            "ab",
            &bal(10, 90, 0),
            &bal(50, 50, 0),
            &bal(10, 90, 0),
            &bal(50, 50, 0),
        );
        assert!(!c.a_agrees, "{c:?}");
        assert!(c.verdict.starts_with("player-limited"), "{}", c.verdict);
        assert!(c.verdict.contains("`net` attacks worse"), "{}", c.verdict);
        assert!(!c.verdict.contains("defends worse"), "{}", c.verdict);
    }

    #[test]
    fn equal_players_agree() {
        let c = cross_check(
            "a",
            "b",
            &bal(40, 60, 0),
            &bal(42, 58, 0),
            &bal(41, 59, 0),
            &bal(40, 60, 0),
        );
        assert!(c.a_agrees && c.b_agrees, "{c:?}");
        assert!(c.verdict.starts_with("consistent"), "{}", c.verdict);
    }

    #[test]
    fn a_variant_changes_only_its_options_and_refuses_unknown_ones() {
        let base = RuleSet::builtin("wtf").unwrap();
        let mut set = toml::Table::new();
        set.insert("end.encirclement".into(), toml::Value::Boolean(false));
        set.insert("end.quiet_ply_limit".into(), toml::Value::Integer(0));
        let v = variant_rules(&base, &set, "wtf, no encirclement").unwrap();
        assert!(!v.options.end.encirclement);
        assert_eq!(v.options.end.quiet_ply_limit, 0);
        // Just those two options: it plays as wtf-plain does.
        assert_eq!(v.hash, RuleSet::builtin("wtf-plain").unwrap().hash);
        let mut bad = toml::Table::new();
        bad.insert("end.encirclment".into(), toml::Value::Boolean(false));
        let e = variant_rules(&base, &bad, "typo").unwrap_err();
        assert!(e.contains("no option `encirclment`"), "{e}");
        let mut wrong = toml::Table::new();
        wrong.insert("king.hammer".into(), toml::Value::Integer(3));
        assert!(variant_rules(&base, &wrong, "wrong type").is_err());
    }

    #[test]
    fn chunks_cover_every_opening_once() {
        let cfg = SweepConfig::parse(
            "pairs = 25\nchunk = 10\n[[variant]]\nrules = \"wtf\"\n",
            "t",
        )
        .unwrap();
        assert_eq!(cfg.chunks(), vec![(0, 10), (1, 10), (2, 5)]);
    }
}
