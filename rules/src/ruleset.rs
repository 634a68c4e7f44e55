//! Rule sets as data.
//!
//! A rule set is a TOML file of independent options (see
//! `configs/rules/*.toml`); the engine reads only options, never a variant
//! name. [`RuleSet::from_toml`] checks the file and compiles the options into
//! the masks and flags the move generator uses.

use crate::bitboard::Bitboard;
pub use crate::outcome::{GameResult, UnknownName};
pub use crate::role::Role;
use crate::square::Square;
use crate::Side;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Who may do something on a special square.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Who {
    Nobody,
    King,
    Everyone,
}

impl Who {
    pub const fn allows(self, role: Role) -> bool {
        match self {
            Who::Nobody => false,
            Who::King => matches!(role, Role::King),
            Who::Everyone => true,
        }
    }
}

/// How the king is taken on a kind of square.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KingCapture {
    /// Like a man: between the moving attacker and an attacker, or a square
    /// hostile to the king, on the far side.
    Sandwich,
    /// All four neighbours are attackers or squares hostile to the king; the
    /// board's edge never counts.
    Surround,
}

/// What a side with no legal move at the start of its turn does.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoMoves {
    Lose,
    /// It passes; two passes in a row draw the game.
    Pass,
}

/// What a repeated position does.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Repetition {
    Ignore,
    /// The player whose move made the position occur `repetition_count`
    /// times loses.
    MoverLoses,
    Draw,
}

/// The raw options as written in a rule-set file.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleOptions {
    /// Short name, used on the command line.
    pub name: String,
    /// One paragraph on where the rules come from.
    #[serde(default)]
    pub description: String,
    pub first_to_move: Side,
    pub throne: SquareAccess,
    pub corners: CornerAccess,
    pub hostile: Hostility,
    pub king: KingOptions,
    pub end: EndOptions,
    pub setup: Setup,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SquareAccess {
    /// Who may end a move on the square.
    pub stop: Who,
    /// Who may slide across the square while it is empty.
    pub pass: Who,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CornerAccess {
    /// Who may end a move on a corner (a corner is never crossed: it ends
    /// every line it is on).
    pub stop: Who,
}

#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hostility {
    /// Pieces that an empty corner helps to capture.
    pub corners: Vec<Role>,
    /// Pieces that the empty throne helps to capture.
    pub empty_throne: Vec<Role>,
    /// Pieces that the throne helps to capture while the king sits on it.
    pub occupied_throne: Vec<Role>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KingOptions {
    /// The king may be the moving piece of a capture.
    pub hammer: bool,
    /// The king may be the far piece of a capture.
    pub anvil: bool,
    pub capture_on_throne: KingCapture,
    pub capture_beside_throne: KingCapture,
    pub capture_elsewhere: KingCapture,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndOptions {
    /// After an attackers' move: no defender can reach the edge.
    pub encirclement: bool,
    pub no_legal_moves: NoMoves,
    /// Raven edge rule: after the defenders pass, the attackers' next move
    /// must move an attacker beside the king if one can move.
    pub edge_rule: bool,
    pub repetition: Repetition,
    #[serde(default = "default_repetition_count")]
    pub repetition_count: u8,
    /// Plies in a row without a capture that draw the game; 0 for none.
    pub quiet_ply_limit: u32,
    /// Total plies after which the game ends; 0 for none.
    pub ply_limit: u32,
    #[serde(default = "default_ply_limit_outcome")]
    pub ply_limit_outcome: GameResult,
}

fn default_repetition_count() -> u8 {
    3
}
fn default_ply_limit_outcome() -> GameResult {
    GameResult::Draw
}

#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    pub attackers: Vec<String>,
    pub defenders: Vec<String>,
    pub king: String,
}

/// A rule-set file that could not be used.
#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    #[error("{file}: cannot read: {source}")]
    Io {
        file: String,
        source: std::io::Error,
    },
    #[error("{file}: key `{key}`: {problem}")]
    Invalid {
        file: String,
        key: String,
        problem: String,
    },
    #[error("no rule set named `{name}` (known: {known})")]
    Unknown { name: String, known: String },
}

/// A checked rule set, with the masks the engine needs.
#[derive(Clone, Debug)]
pub struct RuleSet {
    pub options: RuleOptions,
    /// Hash of every option that changes play (not name or description).
    pub hash: u64,
    pub(crate) start: crate::board::Board,
    /// Squares each role may end a move on.
    pub(crate) stop_mask: [Bitboard; 3],
    /// Whether each role may slide across the empty throne.
    pub(crate) pass_throne: [bool; 3],
    pub(crate) hostile_corner: [bool; 3],
    pub(crate) hostile_empty_throne: [bool; 3],
    pub(crate) hostile_occupied_throne: [bool; 3],
}

impl RuleSet {
    /// Reads and checks a rule-set file.
    pub fn from_file(path: &Path) -> Result<RuleSet, RulesError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| RulesError::Io {
            file: file.clone(),
            source,
        })?;
        RuleSet::from_toml(&text, &file)
    }

    /// Parses and checks rule-set text; `file` names it in errors.
    pub fn from_toml(text: &str, file: &str) -> Result<RuleSet, RulesError> {
        let options: RuleOptions =
            crate::toml_keyed::from_toml(text).map_err(|e| RulesError::Invalid {
                file: file.to_string(),
                key: e.key.unwrap_or_else(|| "(top level)".into()),
                problem: match e.line {
                    Some(l) => format!("{} (line {l})", e.message),
                    None => e.message,
                },
            })?;
        RuleSet::from_options(options, file)
    }

    /// Checks options built in code; `file` names them in errors.
    pub fn from_options(options: RuleOptions, file: &str) -> Result<RuleSet, RulesError> {
        let bad = |key: &str, problem: String| RulesError::Invalid {
            file: file.to_string(),
            key: key.to_string(),
            problem,
        };
        if options.name.trim().is_empty() {
            return Err(bad("name", "must not be empty".into()));
        }
        let e = &options.end;
        if e.edge_rule && e.no_legal_moves != NoMoves::Pass {
            return Err(bad(
                "end.edge_rule",
                "the edge rule follows a pass, so it needs end.no_legal_moves = \"pass\"".into(),
            ));
        }
        if e.repetition != Repetition::Ignore && e.repetition_count < 2 {
            return Err(bad(
                "end.repetition_count",
                format!("must be at least 2, not {}", e.repetition_count),
            ));
        }
        if e.ply_limit > u16::MAX as u32 || e.quiet_ply_limit > u16::MAX as u32 {
            return Err(bad("end", "ply limits must be at most 65535".into()));
        }
        // Setup: squares parse, pieces do not overlap, each stands where it may.
        let mut occupied = Bitboard::EMPTY;
        let mut boards = [Bitboard::EMPTY; 3];
        let lists: [(&str, Role, Vec<String>); 3] = [
            (
                "setup.attackers",
                Role::Attackers,
                options.setup.attackers.clone(),
            ),
            (
                "setup.defenders",
                Role::Defenders,
                options.setup.defenders.clone(),
            ),
            ("setup.king", Role::King, vec![options.setup.king.clone()]),
        ];
        for (key, role, names) in lists {
            for name in names {
                let sq: Square = name.parse().map_err(|err| bad(key, format!("{err}")))?;
                if occupied.contains(sq) {
                    return Err(bad(key, format!("{sq} holds two pieces")));
                }
                if Bitboard::CORNERS.contains(sq) && !options.corners.stop.allows(role) {
                    return Err(bad(
                        key,
                        format!("{sq} is a corner, where corners.stop forbids this piece"),
                    ));
                }
                if sq == Square::THRONE && role != Role::King && !options.throne.stop.allows(role) {
                    return Err(bad(
                        key,
                        format!("{sq} is the throne, where throne.stop forbids this piece"),
                    ));
                }
                occupied.set(sq);
                boards[role.index()].set(sq);
            }
        }
        if boards[Role::King.index()] & Bitboard::CORNERS != Bitboard::EMPTY {
            return Err(bad(
                "setup.king",
                "the king would start on a corner, a finished game".into(),
            ));
        }
        if boards[Role::Attackers.index()].is_empty() {
            return Err(bad("setup.attackers", "needs at least one attacker".into()));
        }

        let mut stop_mask = [Bitboard::FULL; 3];
        let mut pass_throne = [false; 3];
        let mut hostile_corner = [false; 3];
        let mut hostile_empty_throne = [false; 3];
        let mut hostile_occupied_throne = [false; 3];
        for role in Role::ALL {
            let i = role.index();
            if !options.throne.stop.allows(role) {
                stop_mask[i] &= !Bitboard::THRONE;
            }
            if !options.corners.stop.allows(role) {
                stop_mask[i] &= !Bitboard::CORNERS;
            }
            pass_throne[i] = options.throne.pass.allows(role);
            hostile_corner[i] = options.hostile.corners.contains(&role);
            hostile_empty_throne[i] = options.hostile.empty_throne.contains(&role);
            hostile_occupied_throne[i] = options.hostile.occupied_throne.contains(&role);
        }
        let hash = options_hash(&options);
        Ok(RuleSet {
            start: crate::board::Board {
                attackers: boards[0],
                defenders: boards[1],
                king: boards[2],
            },
            options,
            hash,
            stop_mask,
            pass_throne,
            hostile_corner,
            hostile_empty_throne,
            hostile_occupied_throne,
        })
    }

    pub fn name(&self) -> &str {
        &self.options.name
    }

    /// Describes the options in words, one line each.
    pub fn describe(&self) -> Vec<String> {
        let o = &self.options;
        let who = |w: Who| match w {
            Who::Nobody => "nobody",
            Who::King => "only the king",
            Who::Everyone => "every piece",
        };
        let roles = |r: &[Role]| {
            if r.is_empty() {
                "nobody".to_string()
            } else {
                r.iter()
                    .map(|r| match r {
                        Role::Attackers => "attackers",
                        Role::Defenders => "defenders",
                        Role::King => "the king",
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        };
        let cap = |c: KingCapture| match c {
            KingCapture::Sandwich => {
                "two sides (a line of attacker and attacker or hostile square)"
            }
            KingCapture::Surround => "four sides (attackers or hostile squares, never the edge)",
        };
        let limit = |n: u32| {
            if n == 0 {
                "none".to_string()
            } else {
                format!("{n} plies")
            }
        };
        vec![
            format!("first to move: {}", o.first_to_move),
            format!(
                "throne: {} may stop on it; {} may cross it when empty",
                who(o.throne.stop),
                who(o.throne.pass)
            ),
            format!("corners: {} may stop on them", who(o.corners.stop)),
            format!(
                "empty corners are hostile to: {}",
                roles(&o.hostile.corners)
            ),
            format!(
                "the empty throne is hostile to: {}",
                roles(&o.hostile.empty_throne)
            ),
            format!(
                "the throne with the king on it is hostile to: {}",
                roles(&o.hostile.occupied_throne)
            ),
            format!(
                "king armed: captures as the moving piece: {}; as the far piece: {}",
                yes(o.king.hammer),
                yes(o.king.anvil)
            ),
            format!(
                "king captured on the throne by {}",
                cap(o.king.capture_on_throne)
            ),
            format!(
                "king captured beside the throne by {}",
                cap(o.king.capture_beside_throne)
            ),
            format!(
                "king captured elsewhere by {}",
                cap(o.king.capture_elsewhere)
            ),
            format!(
                "encirclement wins for the attackers: {}",
                yes(o.end.encirclement)
            ),
            format!(
                "a side with no legal move: {}",
                match o.end.no_legal_moves {
                    NoMoves::Lose => "loses",
                    NoMoves::Pass => "passes (two passes in a row draw)",
                }
            ),
            format!("raven edge rule: {}", yes(o.end.edge_rule)),
            format!(
                "repetition: {}",
                match o.end.repetition {
                    Repetition::Ignore => "no rule".to_string(),
                    Repetition::MoverLoses => format!(
                        "the move that makes a position occur {} times loses",
                        o.end.repetition_count
                    ),
                    Repetition::Draw => format!(
                        "a position occurring {} times draws",
                        o.end.repetition_count
                    ),
                }
            ),
            format!(
                "plies without capture before a draw: {}",
                limit(o.end.quiet_ply_limit)
            ),
            format!(
                "game length limit: {}{}",
                limit(o.end.ply_limit),
                if o.end.ply_limit > 0 {
                    format!(", then {}", o.end.ply_limit_outcome.as_str())
                } else {
                    String::new()
                }
            ),
            format!(
                "setup: {} attackers, {} defenders and the king on {}",
                o.setup.attackers.len(),
                o.setup.defenders.len(),
                o.setup.king
            ),
        ]
    }
}

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// The rule-set names (file stems) in a directory, sorted.
pub fn list_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let p = e.path();
            if p.extension()? != "toml" {
                return None;
            }
            Some(p.file_stem()?.to_string_lossy().into_owned())
        })
        .collect();
    names.sort();
    names
}

/// FNV-1a over the canonical TOML of the options that change play, mixed
/// with splitmix64 so nearby option sets give unrelated keys.
fn options_hash(options: &RuleOptions) -> u64 {
    let mut canonical = options.clone();
    canonical.name.clear();
    canonical.description.clear();
    let text = toml::to_string(&canonical).expect("options serialise");
    crate::zobrist::splitmix64(crate::zobrist::fnv1a(&text))
}
