//! OpenTafl game records (`.otg` files).
//!
//! As OpenTafl writes and reads them: tag lines `[key:value]` (the rule set
//! in a `rules` tag holding an OpenTafl rules string), a blank line, then
//! one line per turn, `N. MOVE MOVE`, with full move records (captures
//! included). OpenTafl's notation text also allows the rules string on a
//! line of its own after the tags; we read that form too.

use crate::notation::MoveRecord;
use crate::opentafl::{from_opentafl, opentafl_rules};
use crate::{Game, RuleSet};
use std::sync::Arc;

/// A game file that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OtgError {
    #[error("line {line}: {why}")]
    Line { line: usize, why: String },
    #[error("no rules: neither a `[rules:…]` tag nor a `dim:` line")]
    NoRules,
}

/// Keeps a tag value on its line and out of OpenTafl's comment syntax.
fn clean(value: &str) -> String {
    value
        .chars()
        .map(|c| match c {
            '[' | ']' | '|' | '\n' | '\r' => ' ',
            c => c,
        })
        .collect()
}

/// Writes a game: `tags` first (e.g. `attackers`, `defenders`, `result` as
/// OpenTafl's `1`, `0`, `-1` or `?`), then the rules and the moves.
pub fn write_otg(tags: &[(&str, String)], rules: &RuleSet, moves: &[String]) -> String {
    let mut s = String::new();
    for (k, v) in tags {
        s.push_str(&format!("[{k}:{}]\n", clean(v)));
    }
    s.push_str(&format!("[rules:{}]\n\n", opentafl_rules(rules).0));
    for (turn, pair) in moves.chunks(2).enumerate() {
        s.push_str(&format!("{}. {}\n", turn + 1, pair.join(" ")));
    }
    s
}

/// OpenTafl's `result` tag for one of our results.
pub fn otg_result(result: &str) -> &'static str {
    match result {
        "attackers_win" => "1",
        "defenders_win" => "-1",
        "draw" => "0",
        _ => "?",
    }
}

/// A game file read back: its tags and the game with every move played.
#[derive(Debug)]
pub struct OtgGame {
    pub tags: Vec<(String, String)>,
    pub game: Game,
}

/// Reads a game file. `known` offers rule sets of ours: one whose OpenTafl
/// string is the file's is played in full (its limits included); other
/// strings are played as OpenTafl means them.
pub fn read_otg(text: &str, known: &[Arc<RuleSet>]) -> Result<OtgGame, OtgError> {
    let mut tags = Vec::new();
    let mut rules_text = None;
    let lines: Vec<&str> = text.lines().collect();
    let mut body_from = lines.len();
    for (i, raw) in lines.iter().enumerate() {
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(inner) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            if let Some((k, v)) = inner.split_once(':') {
                if k == "rules" {
                    rules_text = Some(v.trim().to_string());
                }
                tags.push((k.to_string(), v.to_string()));
                continue;
            }
        }
        if line.starts_with("dim:") && rules_text.is_none() {
            rules_text = Some(line.to_string());
            body_from = i + 1;
        } else {
            body_from = i;
        }
        break;
    }
    let rules_text = rules_text.ok_or(OtgError::NoRules)?;
    let rules = match known.iter().find(|r| opentafl_rules(r).0 == rules_text) {
        Some(r) => r.clone(),
        None => Arc::new(from_opentafl(&rules_text).map_err(|e| {
            OtgError::Line {
                line: lines
                    .iter()
                    .position(|l| l.contains(rules_text.as_str()))
                    .map_or(1, |p| p + 1),
                why: e.to_string(),
            }
        })?),
    };
    let mut game = Game::new(rules);
    let mut turn = 1usize;
    for (i, raw) in lines.iter().enumerate().skip(body_from) {
        let bad = |why: String| OtgError::Line { line: i + 1, why };
        // Commentary sits in brackets after a turn.
        let line = match raw.find('[') {
            Some(p) => &raw[..p],
            None => raw,
        }
        .trim();
        if line.is_empty() {
            continue;
        }
        let mut words = line.split_whitespace();
        let number = words.next().unwrap_or("");
        let want = format!("{turn}.");
        if number != want {
            return Err(bad(format!("expected turn `{want}`, found `{number}`")));
        }
        for w in words {
            if w == "---" {
                // A resignation: the game ends here.
                return Ok(OtgGame { tags, game });
            }
            if game.is_over() {
                return Err(bad(format!("`{w}` after the game ended")));
            }
            let rec: MoveRecord = w.parse().map_err(|e| bad(format!("{e}")))?;
            game.play_record(&rec)
                .map_err(|e| bad(format!("`{w}`: {e}")))?;
        }
        turn += 1;
    }
    Ok(OtgGame { tags, game })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::BUILTIN;

    fn modern() -> Arc<RuleSet> {
        let (_, text) = BUILTIN.iter().find(|(n, _)| *n == "modern").unwrap();
        Arc::new(RuleSet::from_toml(text, "modern").unwrap())
    }

    #[test]
    fn a_game_round_trips() {
        let rules = modern();
        let mut g = Game::new(rules.clone());
        for m in ["d1-c1", "c4-c2", "a4-a3", "d3-c3"] {
            g.play(m.parse::<MoveRecord>().unwrap().mv).unwrap();
        }
        let moves: Vec<String> = g.plies().iter().map(|p| p.record().to_string()).collect();
        let text = write_otg(
            &[
                ("attackers", "alphabeta:depth=2".into()),
                ("result", "?".into()),
            ],
            &rules,
            &moves,
        );
        assert!(
            text.contains("\n1. d1-c1 c4-c2\n2. a4-a3 d3-c3\n"),
            "{text}"
        );
        let back = read_otg(&text, std::slice::from_ref(&rules)).unwrap();
        assert_eq!(back.game.position(), g.position());
        assert_eq!(back.game.rules().name(), "modern");
        assert_eq!(
            back.tags[0],
            ("attackers".into(), "alphabeta:depth=2".into())
        );
        // Without our rule set on offer: OpenTafl's reading of the string.
        let back = read_otg(&text, &[]).unwrap();
        assert_eq!(back.game.rules().name(), "opentafl");
        assert_eq!(back.game.position().board(), g.position().board());
    }

    #[test]
    fn bad_files_name_the_line() {
        let rules = modern();
        let (ot, _) = opentafl_rules(&rules);
        let e = read_otg(&format!("[rules:{ot}]\n\n1. d1-c1 d1-d2\n"), &[]).unwrap_err();
        assert!(matches!(e, OtgError::Line { line: 3, .. }), "{e}");
        let e = read_otg(&format!("[rules:{ot}]\n\n2. d1-c1\n"), &[]).unwrap_err();
        assert!(e.to_string().contains("expected turn `1.`"), "{e}");
        assert_eq!(read_otg("1. d1-c1\n", &[]).unwrap_err(), OtgError::NoRules);
        // The spec's form: the rules string on its own line.
        let g = read_otg(&format!("[event:x]\n{ot}\n\n1. d1-c1 [a comment|]\n"), &[]).unwrap();
        assert_eq!(g.game.plies().len(), 1);
    }
}
