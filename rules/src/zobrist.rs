//! Zobrist keys: one per (role, square) and one for the side to move.
//! The rule set's own hash seeds every position hash, so equal boards under
//! different rules never share a transposition-table entry.

use crate::role::Role;
use crate::square::Square;

pub const fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// FNV-1a (64-bit) of a text: a stable hash across builds and machines,
/// for keys and seeds derived from names.
pub fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

const fn make_keys() -> [[u64; 49]; 3] {
    let mut keys = [[0u64; 49]; 3];
    let mut r = 0;
    while r < 3 {
        let mut s = 0;
        while s < 49 {
            keys[r][s] = splitmix64((r * 64 + s) as u64 + 0x5eed);
            s += 1;
        }
        r += 1;
    }
    keys
}

static PIECE_KEYS: [[u64; 49]; 3] = make_keys();
/// XORed in while the defenders are to move.
pub const SIDE_KEY: u64 = splitmix64(0x00de_fe11_de25);

#[inline]
pub fn piece_key(role: Role, sq: Square) -> u64 {
    PIECE_KEYS[role.index()][sq.index()]
}
