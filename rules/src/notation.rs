//! OpenTafl notation: position records, move records and rules strings.
//!
//! Position records list rank 1 first (a1..g1), then rank 2, up to rank 7:
//! `/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/` is the standard start. Lowercase `t`
//! is an attacker, uppercase `T` a defender, `K` the king, and digits count
//! empty squares. Moves read `d2-d5`, or with captures `d2-d5xd6/c5`. We add
//! `pass` for the pass some rule sets allow; OpenTafl has no pass.

use crate::bitboard::Bitboard;
use crate::board::Board;
use crate::moves::Move;
use crate::role::Role;
use crate::square::Square;
use std::fmt;
use std::str::FromStr;

/// A position or move record that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotationError {
    #[error("position record must start and end with `/`: `{0}`")]
    Slashes(String),
    #[error("position record has {0} rows, expected 7")]
    RowCount(usize),
    #[error("row {row} (rank {row}), character {col} `{ch}`: {why}")]
    BadChar {
        row: usize,
        col: usize,
        ch: char,
        why: &'static str,
    },
    #[error("row {row} (rank {row}) covers {squares} squares, expected 7")]
    RowLength { row: usize, squares: usize },
    #[error("move `{text}`: {why}")]
    BadMove { text: String, why: String },
}

impl Board {
    /// Reads an OpenTafl position record.
    pub fn from_record(record: &str) -> Result<Board, NotationError> {
        let rec = record.trim();
        if !rec.starts_with('/') || !rec.ends_with('/') || rec.len() < 2 {
            return Err(NotationError::Slashes(rec.to_string()));
        }
        let rows: Vec<&str> = rec[1..rec.len() - 1].split('/').collect();
        if rows.len() != 7 {
            return Err(NotationError::RowCount(rows.len()));
        }
        let mut board = Board::default();
        for (r, row) in rows.iter().enumerate() {
            let mut file = 0usize;
            let mut run = 0usize;
            let chars: Vec<char> = row.chars().collect();
            for (c, &ch) in chars.iter().enumerate() {
                let bad = |why| NotationError::BadChar {
                    row: r + 1,
                    col: c + 1,
                    ch,
                    why,
                };
                if let Some(d) = ch.to_digit(10) {
                    run = run * 10 + d as usize;
                    if run > 7 {
                        return Err(bad("run of empty squares longer than the row"));
                    }
                    let next_is_digit = chars.get(c + 1).is_some_and(|n| n.is_ascii_digit());
                    if !next_is_digit {
                        if run == 0 {
                            return Err(bad("a run of zero empty squares"));
                        }
                        file += run;
                        run = 0;
                    }
                    continue;
                }
                let role = match ch {
                    't' => Role::Attackers,
                    'T' => Role::Defenders,
                    'K' => Role::King,
                    'k' | 'n' | 'c' | 'N' | 'C' => {
                        return Err(bad("piece type not used in Brandubh"))
                    }
                    _ => return Err(bad("expected t, T, K or a digit")),
                };
                if file >= 7 {
                    return Err(bad("piece beyond the seventh file"));
                }
                let sq = Square::from_coords(file as u8, r as u8).expect("in range");
                match role {
                    Role::Attackers => board.attackers.set(sq),
                    Role::Defenders => board.defenders.set(sq),
                    Role::King => {
                        if board.king.nonempty() {
                            return Err(bad("a second king"));
                        }
                        board.king.set(sq)
                    }
                }
                file += 1;
            }
            if file != 7 {
                return Err(NotationError::RowLength {
                    row: r + 1,
                    squares: file,
                });
            }
        }
        Ok(board)
    }

    /// Writes the OpenTafl position record.
    pub fn to_record(&self) -> String {
        let mut s = String::from("/");
        for rank in 0..7 {
            let mut empty = 0;
            for file in 0..7 {
                let sq = Square::from_coords(file, rank).expect("in range");
                let ch = match self.role_at(sq) {
                    None => {
                        empty += 1;
                        continue;
                    }
                    Some(Role::Attackers) => 't',
                    Some(Role::Defenders) => 'T',
                    Some(Role::King) => 'K',
                };
                if empty > 0 {
                    s.push_str(&empty.to_string());
                    empty = 0;
                }
                s.push(ch);
            }
            if empty > 0 {
                s.push_str(&empty.to_string());
            }
            s.push('/');
        }
        s
    }

    /// A diagram with rank 7 on top, `#` for empty corners and throne.
    pub fn diagram(&self) -> String {
        let mut s = String::from("  +---------------+\n");
        for rank in (0..7).rev() {
            s.push_str(&format!("{} |", rank + 1));
            for file in 0..7 {
                let sq = Square::from_coords(file, rank).expect("in range");
                let special = (Bitboard::CORNERS | Bitboard::THRONE).contains(sq);
                let ch = match self.role_at(sq) {
                    Some(Role::Attackers) => 't',
                    Some(Role::Defenders) => 'T',
                    Some(Role::King) => 'K',
                    None if special => '#',
                    None => '.',
                };
                s.push(' ');
                s.push(ch);
            }
            s.push_str(" |\n");
        }
        s.push_str("  +---------------+\n    a b c d e f g\n");
        s
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_pass() {
            f.write_str("pass")
        } else {
            write!(f, "{}-{}", self.from, self.to)
        }
    }
}

/// A move with the squares it emptied, as OpenTafl records it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct MoveRecord {
    pub mv: Move,
    /// Squares of captured pieces, in the order written; `None` when the
    /// record did not say (a plain `d2-d5` says nothing about captures).
    pub captures: Option<Vec<Square>>,
}

impl MoveRecord {
    pub fn new(mv: Move, captured: Bitboard) -> MoveRecord {
        MoveRecord {
            mv,
            captures: Some(captured.collect()),
        }
    }
}

impl fmt::Display for MoveRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.mv)?;
        if let Some(caps) = self.captures.as_ref().filter(|c| !c.is_empty()) {
            f.write_str("x")?;
            for (i, sq) in caps.iter().enumerate() {
                if i > 0 {
                    f.write_str("/")?;
                }
                write!(f, "{sq}")?;
            }
        }
        Ok(())
    }
}

impl FromStr for MoveRecord {
    type Err = NotationError;
    fn from_str(text: &str) -> Result<MoveRecord, NotationError> {
        let bad = |why: String| NotationError::BadMove {
            text: text.to_string(),
            why,
        };
        let t = text.trim();
        if t == "pass" {
            return Ok(MoveRecord {
                mv: Move::PASS,
                captures: Some(vec![]),
            });
        }
        // Optional piece letter, optional trailing info symbols (+, ++, -, --).
        let t = t.strip_prefix(['K', 'T', 't']).unwrap_or(t);
        let t = t.trim_end_matches(['+']);
        let t = if t.len() > 5 {
            t.trim_end_matches('-')
        } else {
            t
        };
        let (main, caps) = match t.split_once('x') {
            Some((m, c)) => (m, Some(c)),
            None => (t, None),
        };
        let (from, to) = main
            .split_once('-')
            .ok_or_else(|| bad("expected FROM-TO, e.g. d2-d5".into()))?;
        let from: Square = from.parse().map_err(|e| bad(format!("{e}")))?;
        let to: Square = to.parse().map_err(|e| bad(format!("{e}")))?;
        if from == to {
            return Err(bad("a move must change square".into()));
        }
        let captures = match caps {
            None => None,
            Some(c) => {
                let mut list = Vec::new();
                for part in c.split('/') {
                    let part = part.strip_prefix(['K', 'T', 't']).unwrap_or(part);
                    list.push(part.parse().map_err(|e| bad(format!("capture: {e}")))?);
                }
                Some(list)
            }
        };
        Ok(MoveRecord {
            mv: Move::new(from, to),
            captures,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/";

    #[test]
    fn start_record_round_trips() {
        let b = Board::from_record(START).unwrap();
        assert_eq!(b.attackers.count(), 8);
        assert_eq!(b.defenders.count(), 4);
        assert_eq!(b.king_square().unwrap().to_string(), "d4");
        assert_eq!(b.to_record(), START);
    }

    #[test]
    fn bad_records_name_row_and_character() {
        let e = Board::from_record("/3t3/3t3/3T3/ttTKTtt/3T3/3x3/3t3/").unwrap_err();
        assert_eq!(
            e,
            NotationError::BadChar {
                row: 6,
                col: 2,
                ch: 'x',
                why: "expected t, T, K or a digit"
            }
        );
        assert!(matches!(
            Board::from_record("/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t4/"),
            Err(NotationError::RowLength { row: 7, squares: 8 })
        ));
        assert!(matches!(
            Board::from_record("/7/"),
            Err(NotationError::RowCount(1))
        ));
        assert!(Board::from_record("3t3").is_err());
    }

    #[test]
    fn move_records() {
        let m: MoveRecord = "d2-d5xd6/c5".parse().unwrap();
        assert_eq!(m.mv.to_string(), "d2-d5");
        assert_eq!(m.captures.as_ref().unwrap().len(), 2);
        assert_eq!(m.to_string(), "d2-d5xd6/c5");
        let k: MoveRecord = "Ke1-a1--".parse().unwrap();
        assert_eq!(k.to_string(), "e1-a1");
        assert!("d2d5".parse::<MoveRecord>().is_err());
        assert!("d2-d2".parse::<MoveRecord>().is_err());
        assert!("d2-h5".parse::<MoveRecord>().is_err());
    }
}
