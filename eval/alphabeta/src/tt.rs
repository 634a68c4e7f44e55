//! The transposition table: one 16-byte entry per slot, always-replace by
//! depth-preferred rule, indexed by the low bits of the Zobrist hash.

use brandubh_rules::{Move, Square};

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Copy, Clone, Default)]
#[repr(C)]
struct Entry {
    key: u64,
    score: i16,
    from: u8,
    to: u8,
    depth: u8,
    bound: u8,
    generation: u8,
    _pad: u8,
}

const _: () = assert!(std::mem::size_of::<Entry>() == 16);

/// What a probe returns.
#[derive(Copy, Clone, Debug)]
pub struct Hit {
    pub mv: Option<Move>,
    pub score: i32,
    pub depth: u32,
    pub bound: Bound,
}

pub struct TranspositionTable {
    entries: Vec<Entry>,
    mask: usize,
    generation: u8,
}

impl TranspositionTable {
    /// A table of about `megabytes` MiB (rounded down to a power of two entries).
    pub fn new(megabytes: usize) -> TranspositionTable {
        let want = (megabytes.max(1) << 20) / std::mem::size_of::<Entry>();
        let n = want.next_power_of_two() / if want.is_power_of_two() { 1 } else { 2 };
        TranspositionTable {
            entries: vec![Entry::default(); n],
            mask: n - 1,
            generation: 0,
        }
    }

    /// Marks a new search: older entries become cheaper to replace.
    pub fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(1);
    }

    pub fn probe(&self, key: u64) -> Option<Hit> {
        let e = &self.entries[key as usize & self.mask];
        if e.key != key || e.bound == 0 {
            return None;
        }
        let mv = (e.from != e.to).then(|| {
            Move::new(
                Square::new(e.from).expect("stored square"),
                Square::new(e.to).expect("stored square"),
            )
        });
        Some(Hit {
            mv,
            score: e.score as i32,
            depth: e.depth as u32,
            bound: match e.bound {
                1 => Bound::Exact,
                2 => Bound::Lower,
                _ => Bound::Upper,
            },
        })
    }

    pub fn store(&mut self, key: u64, mv: Option<Move>, score: i32, depth: u32, bound: Bound) {
        let gen = self.generation;
        let e = &mut self.entries[key as usize & self.mask];
        if e.key != key && e.generation == gen && e.depth as u32 > depth {
            return;
        }
        let (from, to) = match mv {
            Some(m) if !m.is_pass() => (m.from.index() as u8, m.to.index() as u8),
            _ => (0, 0),
        };
        *e = Entry {
            key,
            score: score.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
            from,
            to,
            depth: depth.min(255) as u8,
            bound: match bound {
                Bound::Exact => 1,
                Bound::Lower => 2,
                Bound::Upper => 3,
            },
            generation: gen,
            _pad: 0,
        };
    }
}
