//! The baseline's static evaluation: what a tafl player looks at — material,
//! the king's routes to the corners, his mobility and safety, corner guards,
//! and enclosure where the rules make it a win. Weights come from a TOML
//! file (`configs/eval/default.toml` is compiled in as the default).

use brandubh_rules::{Bitboard, Direction, Position, RuleSet, Side, Square};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalWeights {
    pub attacker: i32,
    pub defender: i32,
    pub king_corner_distance: i32,
    pub king_open_route: i32,
    pub king_double_route: i32,
    pub king_route_squares: i32,
    pub king_fork: i32,
    pub king_mobility: i32,
    pub king_adjacent_attacker: i32,
    pub corner_guard: i32,
    pub enclosed_defender: i32,
    pub tempo: i32,
}

pub const DEFAULT_WEIGHTS: &str = include_str!("../../../configs/eval/default.toml");
/// Weights fitted to wtf games with `brandubh tune-eval`.
pub const WTF_WEIGHTS: &str = include_str!("../../../configs/eval/wtf.toml");

impl Default for EvalWeights {
    fn default() -> Self {
        toml::from_str(DEFAULT_WEIGHTS).expect("default weights parse")
    }
}

/// The number of weights, in the order of `EvalWeights::NAMES`.
pub const N_FEATURES: usize = 12;

impl EvalWeights {
    /// The built-in weights for a rule set: `configs/eval/NAME.toml` where
    /// one was fitted (wtf), else `configs/eval/default.toml`.
    pub fn builtin(rules_name: &str) -> EvalWeights {
        match rules_name {
            "wtf" => toml::from_str(WTF_WEIGHTS).expect("wtf weights parse"),
            _ => EvalWeights::default(),
        }
    }

    /// The weights' names, in the order of `to_array` and `features`.
    pub const NAMES: [&'static str; N_FEATURES] = [
        "attacker",
        "defender",
        "king_corner_distance",
        "king_open_route",
        "king_double_route",
        "king_route_squares",
        "king_fork",
        "king_mobility",
        "king_adjacent_attacker",
        "corner_guard",
        "enclosed_defender",
        "tempo",
    ];

    pub fn to_array(&self) -> [f64; N_FEATURES] {
        [
            self.attacker,
            self.defender,
            self.king_corner_distance,
            self.king_open_route,
            self.king_double_route,
            self.king_route_squares,
            self.king_fork,
            self.king_mobility,
            self.king_adjacent_attacker,
            self.corner_guard,
            self.enclosed_defender,
            self.tempo,
        ]
        .map(|x| x as f64)
    }

    /// The weights as a TOML file body (one key per weight).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("plain integers serialise")
    }

    /// Weights rounded to whole units.
    pub fn from_array(w: &[f64; N_FEATURES]) -> EvalWeights {
        let r = |x: f64| x.round() as i32;
        EvalWeights {
            attacker: r(w[0]),
            defender: r(w[1]),
            king_corner_distance: r(w[2]),
            king_open_route: r(w[3]),
            king_double_route: r(w[4]),
            king_route_squares: r(w[5]),
            king_fork: r(w[6]),
            king_mobility: r(w[7]),
            king_adjacent_attacker: r(w[8]),
            corner_guard: r(w[9]),
            enclosed_defender: r(w[10]),
            tempo: r(w[11]),
        }
    }

    /// The largest weight allowed (a weight 100 times an attacker man's):
    /// the sum of every term then stays well inside an `i32`.
    pub const MAX_WEIGHT: i32 = 10_000;

    /// Reads weights from a TOML file, naming the file and key on error.
    pub fn from_file(path: &std::path::Path) -> Result<EvalWeights, WeightsError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| WeightsError::Io {
            file: file.clone(),
            why: e.to_string(),
        })?;
        Self::from_toml(&text, &file)
    }

    /// Reads weights from TOML text, `file` naming it in errors; as
    /// [`EvalWeights::from_file`], every weight must be within
    /// [`EvalWeights::MAX_WEIGHT`].
    pub fn from_toml(text: &str, file: &str) -> Result<EvalWeights, WeightsError> {
        let file = file.to_string();
        let w: EvalWeights =
            brandubh_rules::toml_keyed::from_toml(text).map_err(|e| WeightsError::Parse {
                file: file.clone(),
                message: e.to_string(),
            })?;
        for (name, v) in Self::NAMES.iter().zip(w.to_array()) {
            if v.abs() > Self::MAX_WEIGHT as f64 {
                return Err(WeightsError::TooLarge {
                    file,
                    key: name,
                    value: v,
                });
            }
        }
        Ok(w)
    }
}

/// An evaluation weights file that cannot be used.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum WeightsError {
    #[error("{file}: {why}")]
    Io { file: String, why: String },
    /// Not TOML, or a key unknown or of the wrong type.
    #[error("{file}: {message}")]
    Parse { file: String, message: String },
    /// A weight large enough to read as a won or lost position.
    #[error("{file}: `{key}` = {value}: weights must be within ±{max}", max = EvalWeights::MAX_WEIGHT)]
    TooLarge {
        file: String,
        key: &'static str,
        value: f64,
    },
}

/// Squares beside the corners: b1 a2 f1 g2 a6 b7 f7 g6.
const CORNER_GUARDS: Bitboard =
    Bitboard(1 << 1 | 1 << 7 | 1 << 5 | 1 << 13 | 1 << 35 | 1 << 43 | 1 << 47 | 1 << 41);

/// For each square, the squares strictly between it and each corner on
/// one of its lines (only edge squares have any).
fn corner_lines() -> &'static [Vec<Bitboard>; 49] {
    static LINES: std::sync::OnceLock<[Vec<Bitboard>; 49]> = std::sync::OnceLock::new();
    LINES.get_or_init(|| {
        std::array::from_fn(|i| {
            let sq = Square::new(i as u8).expect("index below 49");
            let mut out = Vec::new();
            for dir in Direction::ALL {
                let mut between = Bitboard::EMPTY;
                let mut s = sq;
                while let Some(next) = s.step(dir) {
                    if Bitboard::CORNERS.contains(next) {
                        out.push(between);
                        break;
                    }
                    between.set(next);
                    s = next;
                }
            }
            out
        })
    })
}

/// Corners reachable from `sq` along a clear line (blockers in `occ`).
fn open_routes(sq: Square, occ: Bitboard) -> u32 {
    corner_lines()[sq.index()]
        .iter()
        .filter(|&&between| (between & occ).is_empty())
        .count() as u32
}

/// Squares a rook on `sq` reaches (for the king: his mobility).
fn reach(sq: Square, blockers: Bitboard) -> Bitboard {
    let mut out = Bitboard::EMPTY;
    for dir in Direction::ALL {
        let mut s = sq;
        while let Some(next) = s.step(dir) {
            if blockers.contains(next) {
                break;
            }
            out.set(next);
            s = next;
        }
    }
    out
}

/// What `evaluate` counts, one entry per weight (order of
/// `EvalWeights::NAMES`), from the attackers' point of view: their dot
/// product with the weights is the evaluation for the attackers (up to the
/// rounding of `king_fork / 3`). For fitting weights to games.
pub fn features(rules: &RuleSet, pos: &Position) -> [f64; N_FEATURES] {
    let b = pos.board();
    let mut f = [0.0; N_FEATURES];
    f[0] = b.attackers.count() as f64;
    f[1] = -(b.defenders.count() as f64);
    if let Some(k) = b.king_square() {
        let info = king_terms(rules, pos, k);
        f[2] = info.distance as f64;
        f[3] = -(info.routes.min(1) as f64);
        f[4] = -((info.routes >= 2) as u32 as f64);
        f[5] = -(info.route_squares as f64);
        if info.fork {
            f[6] = match pos.side_to_move() {
                Side::Defenders => -1.0,
                Side::Attackers => -1.0 / 3.0,
            };
        }
        f[7] = -(info.mobility as f64);
        f[8] = (b.attackers & b.king.neighbours()).count() as f64;
    }
    f[9] = (b.attackers & CORNER_GUARDS).count() as f64;
    if rules.options.end.encirclement {
        f[10] = enclosed(pos) as f64;
    }
    f[11] = if pos.side_to_move() == Side::Attackers {
        1.0
    } else {
        -1.0
    };
    f
}

/// The king's terms of the evaluation.
struct KingTerms {
    distance: u32,
    routes: u32,
    mobility: u32,
    route_squares: u32,
    fork: bool,
}

fn king_terms(rules: &RuleSet, pos: &Position, k: Square) -> KingTerms {
    let b = pos.board();
    let occ = b.occupied();
    let distance = [(0u8, 0u8), (6, 0), (0, 6), (6, 6)]
        .iter()
        .map(|&(f, r)| k.file().abs_diff(f) + k.rank().abs_diff(r))
        .min()
        .unwrap_or(0) as u32;
    let routes = open_routes(k, occ);
    // The throne blocks the king only where he may not stop or cross it.
    let mut king_blockers = occ & !b.king;
    if !rules.options.throne.pass.allows(brandubh_rules::Role::King) {
        king_blockers |= Bitboard::THRONE;
    }
    let moves = reach(k, king_blockers);
    let without_king = occ & !b.king;
    let mut route_squares = 0;
    let mut fork = false;
    for sq in moves {
        match open_routes(sq, without_king) {
            0 => {}
            1 => route_squares += 1,
            _ => {
                route_squares += 1;
                fork = true;
            }
        }
    }
    KingTerms {
        distance,
        routes,
        mobility: moves.count(),
        route_squares,
        fork,
    }
}

/// Score from the side to move's point of view.
pub fn evaluate(rules: &RuleSet, pos: &Position, w: &EvalWeights) -> i32 {
    let b = pos.board();
    let mut s = w.attacker * b.attackers.count() as i32 - w.defender * b.defenders.count() as i32;
    if let Some(k) = b.king_square() {
        let t = king_terms(rules, pos, k);
        s += w.king_corner_distance * t.distance as i32;
        s -= w.king_open_route * t.routes.min(1) as i32;
        if t.routes >= 2 {
            s -= w.king_double_route;
        }
        s -= w.king_mobility * t.mobility as i32;
        s -= w.king_route_squares * t.route_squares as i32;
        // A square with two open routes one king move away: with the
        // defenders to move it is usually a win; the attackers, to move,
        // may still spoil it.
        if t.fork {
            s -= match pos.side_to_move() {
                Side::Defenders => w.king_fork,
                Side::Attackers => w.king_fork / 3,
            };
        }
        s += w.king_adjacent_attacker * (b.attackers & b.king.neighbours()).count() as i32;
    }
    s += w.corner_guard * (b.attackers & CORNER_GUARDS).count() as i32;
    if rules.options.end.encirclement {
        s += w.enclosed_defender * enclosed(pos) as i32;
    }
    s += if pos.side_to_move() == Side::Attackers {
        w.tempo
    } else {
        -w.tempo
    };
    // However large the weights, an evaluation never reads as a won game.
    let s = s.clamp(-EVAL_LIMIT, EVAL_LIMIT);
    match pos.side_to_move() {
        Side::Attackers => s,
        Side::Defenders => -s,
    }
}

/// The largest evaluation, far below the scores of won games (`WIN`).
pub const EVAL_LIMIT: i32 = super::WIN / 2;

/// Defenders (king included) that cannot reach the edge through squares
/// free of attackers.
fn enclosed(pos: &Position) -> u32 {
    let b = pos.board();
    let free = !b.attackers;
    let mut outside = Bitboard::EDGE & free;
    loop {
        let next = (outside | outside.neighbours()) & free;
        if next == outside {
            break;
        }
        outside = next;
    }
    ((b.defenders | b.king) & !outside).count()
}
