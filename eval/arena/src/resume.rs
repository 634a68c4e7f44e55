//! Going on with a match that was cut short: the games its record file
//! kept, checked against the match asked for, trimmed to whole pairs.

use crate::config::*;
use crate::error::*;
use crate::game::game_seed;
use crate::matches::MatchOpenings;
use crate::record::*;
use brandubh_rules::Game;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The earlier games a resumed match keeps.
#[derive(Clone, Debug, Default)]
pub struct Resumed {
    /// Every game of the complete pairs, in pair order (pair 0 first).
    pub games: Vec<GameRecord>,
    /// The complete pairs kept.
    pub pairs: u64,
    /// Games read but played again: those of a pair with a game missing,
    /// and of every pair after it.
    pub dropped: usize,
}

/// The games an earlier run of `cfg` writing to `out` left: read from
/// `OUT.partial` where that run was cut short, else from a finished `OUT`,
/// and kept as [`resumable_pairs`] keeps them. None when neither file
/// exists; the path read otherwise.
pub fn earlier_pairs(
    cfg: &MatchConfig,
    out: &Path,
) -> Result<Option<(PathBuf, Resumed)>, ArenaError> {
    let partial = partial_path(out);
    let path = if partial.exists() {
        partial
    } else if out.exists() {
        out.to_path_buf()
    } else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(&path).map_err(|source| ArenaError::Io {
        path: path.clone(),
        source,
    })?;
    let prior = resumable_pairs(cfg, &text, &path)?;
    Ok(Some((path, prior)))
}

/// Reads the record file of an earlier run of `cfg` (the text of `path`)
/// and keeps its complete pairs from the first on. A last line cut off by
/// a kill is ignored; any other line that is not a game of this match (its
/// rule set, players, seed or opening differ) is an error naming the line,
/// so a match is never resumed from another one's games.
pub fn resumable_pairs(cfg: &MatchConfig, text: &str, path: &Path) -> Result<Resumed, ArenaError> {
    // Every game ends in a newline; text after the last one is a line whose
    // writing was cut off.
    let whole = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
    let records = numbered_records(whole, path)?;
    let per_pair: u8 = if cfg.swap_sides { 2 } else { 1 };
    let openings = MatchOpenings::new(cfg);
    let rules_hash = format!("{:016x}", cfg.rules.hash);
    // Per pair: its games by index, and the opening this match gives it
    // (worked out once a pair: a balanced one costs searches).
    let mut by_pair: BTreeMap<u64, (Vec<Option<GameRecord>>, Vec<String>)> = BTreeMap::new();
    for (line, rec) in records {
        let bad = |why: String| ArenaError::BadRecord {
            path: path.to_path_buf(),
            line,
            why,
        };
        if rec.rules != cfg.rules.name() || rec.rules_hash != rules_hash {
            return Err(bad(format!(
                "a game under {} ({}), but this match plays {} ({rules_hash})",
                rec.rules,
                rec.rules_hash,
                cfg.rules.name()
            )));
        }
        if rec.game >= per_pair {
            return Err(bad(format!(
                "game {} of a pair, but this match plays {per_pair} a pair",
                rec.game
            )));
        }
        if rec.pair >= cfg.pairs {
            return Err(bad(format!(
                "pair {}, but this match plays {} pairs (ask for at least {})",
                rec.pair,
                cfg.pairs,
                rec.pair + 1
            )));
        }
        let (att, def) = if rec.game == 0 {
            (&cfg.a, &cfg.b)
        } else {
            (&cfg.b, &cfg.a)
        };
        if rec.attackers != att.text || rec.defenders != def.text {
            return Err(bad(format!(
                "attackers {} and defenders {}, but in this match they are {} and {}",
                rec.attackers, rec.defenders, att.text, def.text
            )));
        }
        if rec.seed != game_seed(cfg.seed, rec.pair, rec.game) {
            return Err(bad("a game of a match with another --seed".to_string()));
        }
        let (games, expected) = by_pair.entry(rec.pair).or_insert_with(|| {
            let mut g = Game::new(cfg.rules.clone());
            for mv in openings.of_pair(rec.pair) {
                g.play(mv).expect("opening moves are legal");
            }
            let open = g.plies().iter().map(|p| p.record().to_string()).collect();
            (vec![None; per_pair as usize], open)
        });
        if rec.opening != *expected {
            return Err(bad(format!(
                "opening {}, but this match opens pair {} with {} (other --openings or --balanced?)",
                rec.opening.join(" "),
                rec.pair,
                expected.join(" ")
            )));
        }
        let slot = &mut games[rec.game as usize];
        if slot.is_some() {
            return Err(bad(format!(
                "game {} of pair {} a second time",
                rec.game, rec.pair
            )));
        }
        *slot = Some(rec);
    }
    let mut out = Resumed::default();
    let mut read = 0;
    for (pair, (games, _)) in by_pair {
        let n = games.iter().flatten().count();
        read += n;
        if pair == out.pairs && n == games.len() {
            out.games.extend(games.into_iter().flatten());
            out.pairs += 1;
        }
    }
    out.dropped = read - out.games.len();
    Ok(out)
}
