//! The transposition table, shared by every thread of a search without
//! locks: one 16-byte slot per entry, indexed by the low bits of the
//! Zobrist hash, replaced unless it holds another position searched deeper
//! in the same search. A slot is two atomic words, the entry packed into
//! one and the key xor-ed with it in the other (Hyatt's lockless hashing),
//! so an entry torn by two threads writing at once reads as a miss instead
//! of as another position's entry.

use brandubh_rules::{Move, Square};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Bound {
    Exact,
    Lower,
    Upper,
}

/// One entry, as packed into a slot's data word.
#[derive(Copy, Clone, Default)]
struct Entry {
    score: i16,
    from: u8,
    to: u8,
    depth: u8,
    /// 0 for an empty slot, else 1 exact, 2 lower, 3 upper.
    bound: u8,
    generation: u8,
}

impl Entry {
    fn pack(self) -> u64 {
        (self.score as u16 as u64)
            | (self.from as u64) << 16
            | (self.to as u64) << 24
            | (self.depth as u64) << 32
            | (self.bound as u64) << 40
            | (self.generation as u64) << 48
    }

    fn unpack(w: u64) -> Entry {
        Entry {
            score: w as u16 as i16,
            from: (w >> 16) as u8,
            to: (w >> 24) as u8,
            depth: (w >> 32) as u8,
            bound: (w >> 40) as u8,
            generation: (w >> 48) as u8,
        }
    }
}

/// A slot: the key xor-ed with the data, and the data.
#[derive(Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

const _: () = assert!(std::mem::size_of::<Slot>() == 16);

/// What a probe returns.
#[derive(Copy, Clone, Debug)]
pub struct Hit {
    pub mv: Option<Move>,
    pub score: i32,
    pub depth: u32,
    pub bound: Bound,
}

pub struct TranspositionTable {
    slots: Box<[Slot]>,
    mask: usize,
    generation: AtomicU8,
}

impl TranspositionTable {
    /// A table of about `megabytes` MiB (rounded down to a power of two entries).
    pub fn new(megabytes: usize) -> TranspositionTable {
        let want = (megabytes.max(1) << 20) / std::mem::size_of::<Slot>();
        let n = want.next_power_of_two() / if want.is_power_of_two() { 1 } else { 2 };
        TranspositionTable {
            slots: (0..n).map(|_| Slot::default()).collect(),
            mask: n - 1,
            generation: AtomicU8::new(0),
        }
    }

    /// Marks a new search: older entries become cheaper to replace.
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Relaxed);
    }

    /// The slot's entry when it holds `key`'s position whole.
    fn read(&self, key: u64) -> Option<Entry> {
        let slot = &self.slots[key as usize & self.mask];
        let data = slot.data.load(Relaxed);
        let check = slot.check.load(Relaxed);
        let e = Entry::unpack(data);
        (check ^ data == key && e.bound != 0).then_some(e)
    }

    pub fn probe(&self, key: u64) -> Option<Hit> {
        let e = self.read(key)?;
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

    pub fn store(&self, key: u64, mv: Option<Move>, score: i32, depth: u32, bound: Bound) {
        let gen = self.generation.load(Relaxed);
        let slot = &self.slots[key as usize & self.mask];
        let old_data = slot.data.load(Relaxed);
        let old_key = slot.check.load(Relaxed) ^ old_data;
        let old = Entry::unpack(old_data);
        if old_key != key && old.bound != 0 && old.generation == gen && old.depth as u32 > depth {
            return;
        }
        let (from, to) = match mv {
            Some(m) if !m.is_pass() => (m.from.index() as u8, m.to.index() as u8),
            _ => (0, 0),
        };
        let data = Entry {
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
        }
        .pack();
        slot.data.store(data, Relaxed);
        slot.check.store(key ^ data, Relaxed);
    }
}
