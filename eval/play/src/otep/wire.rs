//! The protocol's words: sides and clock values.

use brandubh_rules::Side;

pub(crate) fn side_word(side: Side) -> &'static str {
    match side {
        Side::Attackers => "attackers",
        Side::Defenders => "defenders",
    }
}

pub(crate) fn parse_side(word: &str) -> Option<Side> {
    match word {
        "attackers" => Some(Side::Attackers),
        "defenders" => Some(Side::Defenders),
        _ => None,
    }
}

/// One side's time from a `clock` value: milliseconds, `*` when the side is
/// in overtime (the value is then what is left of the current period).
pub(crate) fn clock_value(text: &str) -> Option<(i64, bool)> {
    let (num, over) = match text.strip_suffix('*') {
        Some(n) => (n, true),
        None => (text, false),
    };
    num.parse::<i64>().ok().map(|v| (v, over))
}

pub(crate) const DAY_MS: i64 = 86_400_000;
