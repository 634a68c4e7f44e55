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

impl Default for EvalWeights {
    fn default() -> Self {
        toml::from_str(DEFAULT_WEIGHTS).expect("default weights parse")
    }
}

impl EvalWeights {
    /// Reads weights from a TOML file, naming the file and key on error.
    pub fn from_file(path: &std::path::Path) -> Result<EvalWeights, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        toml::from_str(&text).map_err(|e| format!("{}: {}", path.display(), e.message()))
    }
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

/// Score from the side to move's point of view.
pub fn evaluate(rules: &RuleSet, pos: &Position, w: &EvalWeights) -> i32 {
    let b = pos.board();
    let mut s = w.attacker * b.attackers.count() as i32 - w.defender * b.defenders.count() as i32;
    if let Some(k) = b.king_square() {
        let occ = b.occupied();
        let dist = [(0u8, 0u8), (6, 0), (0, 6), (6, 6)]
            .iter()
            .map(|&(f, r)| k.file().abs_diff(f) + k.rank().abs_diff(r))
            .min()
            .unwrap_or(0);
        s += w.king_corner_distance * dist as i32;
        let routes = open_routes(k, occ);
        s -= w.king_open_route * routes.min(1) as i32;
        if routes >= 2 {
            s -= w.king_double_route;
        }
        // The throne blocks the king only where he may not stop or cross it.
        let mut king_blockers = occ & !b.king;
        if !rules.options.throne.pass.allows(brandubh_rules::Role::King) {
            king_blockers |= Bitboard::THRONE;
        }
        let moves = reach(k, king_blockers);
        s -= w.king_mobility * moves.count() as i32;
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
        s -= w.king_route_squares * route_squares;
        // A square with two open routes one king move away: with the
        // defenders to move it is usually a win; the attackers, to move,
        // may still spoil it.
        if fork {
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
    match pos.side_to_move() {
        Side::Attackers => s,
        Side::Defenders => -s,
    }
}

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
