//! OpenTafl rules strings, both ways.
//!
//! OpenTafl's notation text and its code disagree in places; where they do,
//! we follow the code (`RulesSerializer` and `GameState` in OpenTafl), since
//! that is what a game under OpenTafl plays:
//!
//! - `tfr:w` makes the player whose move repeats a position for the third
//!   time *lose* (the side then to move wins), and `tfr:l` makes that
//!   player win. Our `repetition = "mover_loses"` is `tfr:w`.
//! - `ks` takes `s`/`y` (strong: four sides everywhere), `w`/`n` (weak: two
//!   sides everywhere), `c` (strong on the throne and the four squares
//!   beside it, weak elsewhere) and `m` (middleweight, which we lack).
//! - `ka` takes `y`, `n`, `h` (hammer only) and `a` (anvil only).
//!
//! A rules string names only what OpenTafl has; what a string leaves out
//! takes OpenTafl's default. Options of ours that OpenTafl has no key for
//! (a quiet-ply draw, a ply limit, passing, the raven edge rule, a
//! repetition count other than three) are off in a rule set read from a
//! string, as they are in a game OpenTafl runs.

use crate::bitboard::Bitboard;
use crate::ruleset::{
    CornerAccess, EndOptions, Hostility, KingCapture, KingOptions, NoMoves, Repetition,
    RuleOptions, RuleSet, Setup, SquareAccess, Who,
};
use crate::square::Square;
use crate::{Board, GameResult, Role, Side};

/// A rules string that cannot be played exactly.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpenTaflRulesError {
    #[error("rules string: `{key}:{value}`: {why}")]
    Unsupported {
        key: String,
        value: String,
        why: String,
    },
    #[error("rules string: `{0}` is not key:value")]
    Malformed(String),
    #[error("rules string: `{key}` is given twice")]
    Twice { key: String },
    #[error("rules string: no `{0}` entry, which OpenTafl requires")]
    Missing(&'static str),
    #[error("rules string: the start position: {0}")]
    Start(String),
}

/// The roles a piece-type list names; OpenTafl's commanders, knights and
/// attacking king (`c`, `n`, `k`, `C`, `N`) do not exist in our games and
/// are skipped.
fn roles_of(key: &str, list: &str) -> Result<Vec<Role>, OpenTaflRulesError> {
    let mut roles = Vec::new();
    for ch in list.chars() {
        let role = match ch {
            't' => Role::Attackers,
            'T' => Role::Defenders,
            'K' => Role::King,
            'c' | 'n' | 'k' | 'C' | 'N' => continue,
            _ => {
                return Err(OpenTaflRulesError::Unsupported {
                    key: key.into(),
                    value: list.into(),
                    why: format!("`{ch}` is not a piece type (t c n k T C N K)"),
                })
            }
        };
        if !roles.contains(&role) {
            roles.push(role);
        }
    }
    roles.sort();
    Ok(roles)
}

/// A piece-type list as one of our "who" settings.
fn who_of(key: &str, list: &str) -> Result<Who, OpenTaflRulesError> {
    let roles = roles_of(key, list)?;
    match roles.as_slice() {
        [] => Ok(Who::Nobody),
        [Role::King] => Ok(Who::King),
        [Role::Attackers, Role::Defenders, Role::King] => Ok(Who::Everyone),
        _ => Err(OpenTaflRulesError::Unsupported {
            key: key.into(),
            value: list.into(),
            why: "our rules let nobody, the king alone or every piece do this".into(),
        }),
    }
}

fn yes_no(key: &str, value: &str) -> Result<bool, OpenTaflRulesError> {
    match value {
        "y" => Ok(true),
        "n" => Ok(false),
        _ => Err(OpenTaflRulesError::Unsupported {
            key: key.into(),
            value: value.into(),
            why: "expected y or n".into(),
        }),
    }
}

/// Reads an OpenTafl rules string (as the `rules` command of the engine
/// protocol sends it) into a rule set named `opentafl`. Anything we cannot
/// play exactly is an error naming the entry.
pub fn from_opentafl(text: &str) -> Result<RuleSet, OpenTaflRulesError> {
    let mut entries: Vec<(&str, &str)> = Vec::new();
    for part in text.split_whitespace() {
        let (k, v) = match part.split_once(':') {
            Some(kv) => kv,
            None => return Err(OpenTaflRulesError::Malformed(part.into())),
        };
        if entries.iter().any(|(seen, _)| *seen == k) {
            return Err(OpenTaflRulesError::Twice { key: k.into() });
        }
        entries.push((k, v));
    }
    let get = |k: &str| entries.iter().find(|(key, _)| *key == k).map(|(_, v)| *v);
    let unsupported = |k: &str, v: &str, why: &str| OpenTaflRulesError::Unsupported {
        key: k.into(),
        value: v.into(),
        why: why.into(),
    };
    let dim = get("dim").ok_or(OpenTaflRulesError::Missing("dim"))?;
    if dim != "7" {
        return Err(unsupported("dim", dim, "only 7×7 boards are played here"));
    }
    let start = get("start").ok_or(OpenTaflRulesError::Missing("start"))?;
    let board = Board::from_record(start).map_err(|e| OpenTaflRulesError::Start(e.to_string()))?;
    let Some(king) = board.king.first() else {
        return Err(OpenTaflRulesError::Start("no king".into()));
    };
    let names = |b: Bitboard| b.map(|sq: Square| sq.to_string()).collect::<Vec<_>>();

    let mut o = RuleOptions {
        name: "opentafl".into(),
        description: format!("Read from the OpenTafl rules string `{}`.", text.trim()),
        first_to_move: Side::Attackers,
        throne: SquareAccess {
            stop: Who::King,
            pass: Who::Everyone,
        },
        corners: CornerAccess { stop: Who::King },
        hostile: Hostility {
            corners: Role::ALL.to_vec(),
            empty_throne: Role::ALL.to_vec(),
            occupied_throne: vec![Role::Attackers],
        },
        king: KingOptions {
            hammer: true,
            anvil: true,
            capture_on_throne: KingCapture::Surround,
            capture_beside_throne: KingCapture::Surround,
            capture_elsewhere: KingCapture::Surround,
        },
        end: EndOptions {
            encirclement: true,
            no_legal_moves: NoMoves::Lose,
            edge_rule: false,
            repetition: Repetition::Draw,
            repetition_count: 3,
            quiet_ply_limit: 0,
            ply_limit: 0,
            ply_limit_outcome: GameResult::Draw,
        },
        setup: Setup {
            attackers: names(board.attackers),
            defenders: names(board.defenders),
            king: king.to_string(),
        },
    };
    for &(k, v) in &entries {
        match k {
            "dim" | "start" | "name" => {}
            "esc" => {
                if v != "c" {
                    return Err(unsupported(
                        k,
                        v,
                        "only escape to the corners is played here",
                    ));
                }
            }
            "surf" => o.end.encirclement = yes_no(k, v)?,
            "atkf" => {
                o.first_to_move = if yes_no(k, v)? {
                    Side::Attackers
                } else {
                    Side::Defenders
                }
            }
            "tfr" => {
                o.end.repetition = match v {
                    "d" => Repetition::Draw,
                    "i" => Repetition::Ignore,
                    "w" => Repetition::MoverLoses,
                    "l" => {
                        return Err(unsupported(
                            k,
                            v,
                            "under OpenTafl the player who repeats wins; we have no such rule",
                        ))
                    }
                    _ => return Err(unsupported(k, v, "expected d, i, w or l")),
                }
            }
            "ka" => {
                (o.king.hammer, o.king.anvil) = match v {
                    "y" => (true, true),
                    "n" => (false, false),
                    "h" => (true, false),
                    "a" => (false, true),
                    _ => return Err(unsupported(k, v, "expected y, n, h or a")),
                }
            }
            "ks" => {
                use KingCapture::{Sandwich, Surround};
                let (on, beside, elsewhere) = match v {
                    "s" | "y" => (Surround, Surround, Surround),
                    "w" | "n" => (Sandwich, Sandwich, Sandwich),
                    "c" => (Surround, Surround, Sandwich),
                    "m" => {
                        return Err(unsupported(
                            k,
                            v,
                            "a middleweight king (every neighbour hostile, edges included) is not played here",
                        ))
                    }
                    _ => return Err(unsupported(k, v, "expected s, c, m or w")),
                };
                o.king.capture_on_throne = on;
                o.king.capture_beside_throne = beside;
                o.king.capture_elsewhere = elsewhere;
            }
            "kj" | "sw" | "ber" | "efe" => {
                if v != "n" {
                    return Err(unsupported(
                        k,
                        v,
                        "jumps, shieldwalls, edge forts and berserk moves are not played here",
                    ));
                }
            }
            // Jumps of knights and commanders, and shieldwall flanking, do
            // nothing without those pieces or shieldwalls.
            "nj" | "cj" | "swf" => {}
            "spd" => {
                if v != "-1" {
                    return Err(unsupported(k, v, "speed limits are not played here"));
                }
            }
            "cor" => {
                let mut set = Bitboard::EMPTY;
                for s in v.split(',').filter(|s| !s.is_empty()) {
                    match s.parse::<Square>() {
                        Ok(sq) => set.set(sq),
                        Err(e) => return Err(unsupported(k, v, &e.to_string())),
                    }
                }
                if v != "default" && set != Bitboard::CORNERS {
                    return Err(unsupported(
                        k,
                        v,
                        "the corners are always a1, g1, a7 and g7 here",
                    ));
                }
            }
            "cen" => {
                if v != "default" && v.trim_end_matches(',') != "d4" {
                    return Err(unsupported(k, v, "the throne is always d4 here"));
                }
            }
            "afor" | "dfor" => {
                if !v.is_empty() {
                    return Err(unsupported(k, v, "fortresses are not played here"));
                }
            }
            "aforh" | "dforh" | "aforp" | "dforp" | "afors" | "dfors" | "aforre" | "dforre" => {
                roles_of(k, v)?;
            }
            // A corner ends every line through it, so nothing passes one.
            "corp" => {
                roles_of(k, v)?;
            }
            "corh" => o.hostile.corners = roles_of(k, v)?,
            "cenh" => o.hostile.occupied_throne = roles_of(k, v)?,
            "cenhe" => o.hostile.empty_throne = roles_of(k, v)?,
            "cenp" => o.throne.pass = who_of(k, v)?,
            "cens" => o.throne.stop = who_of(k, v)?,
            "cors" => o.corners.stop = who_of(k, v)?,
            "cenre" | "corre" => {
                // Re-entering: every piece that may stop there may come back,
                // as in our rules.
                let roles = roles_of(k, v)?;
                let stop = if k == "cenre" {
                    get("cens").unwrap_or("K")
                } else {
                    get("cors").unwrap_or("K")
                };
                if roles_of(k, stop)?.iter().any(|r| !roles.contains(r)) {
                    return Err(unsupported(
                        k,
                        v,
                        "a piece that may stop on the square may always return to it here",
                    ));
                }
            }
            _ => return Err(unsupported(k, v, "unknown entry")),
        }
    }
    RuleSet::from_options(o, "rules string").map_err(|e| OpenTaflRulesError::Start(e.to_string()))
}

/// The OpenTafl rules string for a rule set, with the options OpenTafl
/// cannot express (each named, with our setting).
pub fn opentafl_rules(rules: &RuleSet) -> (String, Vec<String>) {
    use KingCapture::{Sandwich, Surround};
    let o = &rules.options;
    let mut unsupported = Vec::new();
    let pieces = |roles: &[Role]| {
        let mut s = String::new();
        for (role, ch) in [
            (Role::Attackers, 't'),
            (Role::Defenders, 'T'),
            (Role::King, 'K'),
        ] {
            if roles.contains(&role) {
                s.push(ch);
            }
        }
        s
    };
    let who = |w: Who| match w {
        Who::Nobody => String::new(),
        Who::King => "K".to_string(),
        Who::Everyone => "tTK".to_string(),
    };
    let yn = |b: bool| if b { "y" } else { "n" };
    let tfr = match o.end.repetition {
        Repetition::Ignore => "i",
        Repetition::Draw => "d",
        Repetition::MoverLoses => "w",
    };
    let k = &o.king;
    let ks = match (
        k.capture_on_throne,
        k.capture_beside_throne,
        k.capture_elsewhere,
    ) {
        (Surround, Surround, Surround) => "s",
        (Sandwich, Sandwich, Sandwich) => "w",
        (Surround, Surround, Sandwich) => "c",
        (on, beside, elsewhere) => {
            unsupported.push(format!(
                "king capture on the throne {on:?}, beside it {beside:?}, elsewhere {elsewhere:?} \
                 (OpenTafl: `ks:s`, `ks:w` or `ks:c`, strong on and beside the throne)"
            ));
            if elsewhere == Surround {
                "s"
            } else {
                "w"
            }
        }
    };
    let ka = match (k.hammer, k.anvil) {
        (true, true) => "y",
        (true, false) => "h",
        (false, true) => "a",
        (false, false) => "n",
    };
    if o.end.repetition != Repetition::Ignore && o.end.repetition_count != 3 {
        unsupported.push(format!(
            "repetition after {} occurrences (OpenTafl: threefold)",
            o.end.repetition_count
        ));
    }
    if o.end.no_legal_moves == NoMoves::Pass {
        unsupported.push("a side without moves passes (OpenTafl: it loses)".into());
    }
    if o.end.edge_rule {
        unsupported.push("raven edge rule".into());
    }
    if o.end.quiet_ply_limit > 0 {
        unsupported.push(format!(
            "draw after {} plies without capture",
            o.end.quiet_ply_limit
        ));
    }
    if o.end.ply_limit > 0 {
        unsupported.push(format!(
            "game ends after {} plies ({})",
            o.end.ply_limit,
            o.end.ply_limit_outcome.as_str()
        ));
    }
    let s = format!(
        "dim:7 esc:c surf:{} atkf:{} tfr:{tfr} ka:{ka} ks:{ks} corh:{} cenh:{} cenhe:{} \
         cenp:{} cens:{} cors:{} start:{}",
        yn(o.end.encirclement),
        yn(o.first_to_move == Side::Attackers),
        pieces(&o.hostile.corners),
        pieces(&o.hostile.occupied_throne),
        pieces(&o.hostile.empty_throne),
        who(o.throne.pass),
        who(o.throne.stop),
        who(o.corners.stop),
        rules.start.to_record(),
    );
    (s, unsupported)
}
#[cfg(test)]
mod tests;
