//! The parallel side of judging: when it pays, the size threshold, and the key sets and maps
//! that are built or read on rayon's threads. Every helper gives the same result on any
//! number of threads, and the same as its sequential form (`par == false`).

use kgeval_model::{CellKey, Relation, TermId};
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

/// Pairs whose system alignment has at least this many cells are judged on rayon's threads
/// (verdicts, lookups, counts, the checks beside the judging); smaller ones stay on the
/// calling thread, where the fork-join overhead would cost more than it saves.
pub(crate) const PAR_MIN: usize = 1 << 15;

/// The smallest run of items one rayon task takes (below it, splitting costs more).
const MIN_LEN: usize = 4096;

/// `items.iter().map(f).collect()`, on rayon's threads when `par`: same order either way.
pub(crate) fn map_collect<T: Sync, U: Send>(par: bool, items: &[T], f: impl Fn(&T) -> U + Sync + Send) -> Vec<U> {
    if par {
        items.par_iter().with_min_len(MIN_LEN).map(f).collect()
    } else {
        items.iter().map(f).collect()
    }
}

/// `f(i, &mut items[i])` for every `i`, on rayon's threads when `par`.
pub(crate) fn for_each_indexed<T: Send>(par: bool, items: &mut [T], f: impl Fn(usize, &mut T) + Sync + Send) {
    if par {
        items.par_iter_mut().with_min_len(MIN_LEN).enumerate().for_each(|(i, item)| f(i, item));
    } else {
        items.iter_mut().enumerate().for_each(|(i, item)| f(i, item));
    }
}

/// The sum of `f(i)` over `0..n` (integer tallies, so the order of the additions does not
/// matter), on rayon's threads when `par`.
pub(crate) fn tally<const N: usize>(par: bool, n: usize, f: impl Fn(usize) -> [u64; N] + Sync + Send) -> [u64; N] {
    let add = |mut a: [u64; N], b: [u64; N]| {
        for (x, y) in a.iter_mut().zip(b) {
            *x += y;
        }
        a
    };
    if par {
        (0..n).into_par_iter().with_min_len(MIN_LEN).map(f).reduce(|| [0; N], add)
    } else {
        (0..n).map(f).fold([0; N], add)
    }
}

/// A set of `(entity, relation)` pairs (the partial modes' "this entity has a reference cell
/// with this relation"): a hash set, or for large pairs a dense array of relation bits indexed
/// by the entity id (one load per lookup instead of a hash probe; its size is bounded by the
/// interner's, and it is only chosen when the system alignment is at least as large as
/// [`PAR_MIN`]).
pub(crate) enum EntitySet {
    /// Few lookups: a hash set.
    Hash(FxHashSet<(TermId, Relation)>),
    /// Many lookups: relation bits (`1 << relation as u16`) per entity id.
    Dense(Vec<u16>),
}

impl EntitySet {
    /// An empty set, dense when `dense`.
    pub(crate) fn new(dense: bool) -> Self {
        if dense {
            Self::Dense(Vec::new())
        } else {
            Self::Hash(FxHashSet::default())
        }
    }

    fn bit(relation: Relation) -> u16 {
        1 << (relation as u16)
    }

    /// Adds a pair.
    pub(crate) fn insert(&mut self, entity: TermId, relation: Relation) {
        match self {
            Self::Hash(set) => {
                set.insert((entity, relation));
            }
            Self::Dense(bits) => {
                let i = entity.index() as usize;
                if i >= bits.len() {
                    bits.resize(i + 1, 0);
                }
                bits[i] |= Self::bit(relation);
            }
        }
    }

    /// Whether the pair was added.
    pub(crate) fn contains(&self, entity: TermId, relation: Relation) -> bool {
        match self {
            Self::Hash(set) => set.contains(&(entity, relation)),
            Self::Dense(bits) => bits.get(entity.index() as usize).is_some_and(|b| b & Self::bit(relation) != 0),
        }
    }

    /// Whether nothing was added.
    pub(crate) fn is_empty(&self) -> bool {
        match self {
            Self::Hash(set) => set.is_empty(),
            Self::Dense(bits) => bits.is_empty(),
        }
    }
}

/// A set of entity ids as a bit per id: a cheap test before a hash lookup in a large pass.
pub(crate) struct EntityBits(Vec<u64>);

impl EntityBits {
    /// The set of `ids`.
    pub(crate) fn of(ids: impl Iterator<Item = TermId>) -> Self {
        let mut bits = Vec::new();
        for id in ids {
            let i = id.index() as usize;
            if i / 64 >= bits.len() {
                bits.resize(i / 64 + 1, 0);
            }
            bits[i / 64] |= 1u64 << (i % 64);
        }
        Self(bits)
    }

    /// Whether `id` is in the set.
    pub(crate) fn contains(&self, id: TermId) -> bool {
        let i = id.index() as usize;
        self.0.get(i / 64).is_some_and(|word| word & (1u64 << (i % 64)) != 0)
    }
}

/// A map from matching key to the first scored system cell with that key, split into shards
/// by key so that each shard is built on its own thread (one shard when sequential).
pub(crate) struct KeyIndex(Vec<FxHashMap<CellKey, u32>>);

/// The number of shards of a parallel [`KeyIndex`].
const SHARDS: usize = 16;

impl KeyIndex {
    fn shard(&self, key: &CellKey) -> usize {
        let pair = (u64::from(key.0.index()) << 32) | u64::from(key.1.index());
        let mixed = pair.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ key.2 as u64;
        (mixed.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 56) as usize % self.0.len()
    }

    /// The index of `keys[i]` for every `i` whose `scored(i)`: the first such `i` of a key is
    /// kept; the later ones are returned (in ascending order) to be dropped like duplicates.
    pub(crate) fn build(par: bool, keys: &[CellKey], scored: impl Fn(usize) -> bool + Sync) -> (Self, Vec<u32>) {
        if !par {
            let mut map = FxHashMap::with_capacity_and_hasher(keys.len(), Default::default());
            let mut merged = Vec::new();
            for (i, key) in keys.iter().enumerate().filter(|(i, _)| scored(*i)) {
                if insert_first(&mut map, *key, i as u32) {
                    continue;
                }
                merged.push(i as u32);
            }
            return (Self(vec![map]), merged);
        }
        let mut index = Self(Vec::new());
        index.0.resize_with(SHARDS, FxHashMap::default);
        let mut lists: Vec<Vec<u32>> = (0..SHARDS).map(|_| Vec::with_capacity(keys.len() / SHARDS + 16)).collect();
        for (i, key) in keys.iter().enumerate() {
            lists[index.shard(key)].push(i as u32);
        }
        let merged: Vec<Vec<u32>> = index
            .0
            .par_iter_mut()
            .zip(lists.par_iter())
            .map(|(map, list)| {
                map.reserve(list.len());
                list.iter()
                    .copied()
                    .filter(|&i| scored(i as usize) && !insert_first(map, keys[i as usize], i))
                    .collect()
            })
            .collect();
        let mut merged: Vec<u32> = merged.into_iter().flatten().collect();
        merged.sort_unstable();
        (index, merged)
    }

    /// The cell of `key`.
    pub(crate) fn get(&self, key: &CellKey) -> Option<u32> {
        self.0[self.shard(key)].get(key).copied()
    }
}

/// Inserts `(key, value)` into `map` when `key` is absent; whether it did.
fn insert_first(map: &mut FxHashMap<CellKey, u32>, key: CellKey, value: u32) -> bool {
    match map.entry(key) {
        std::collections::hash_map::Entry::Vacant(slot) => {
            slot.insert(value);
            true
        }
        std::collections::hash_map::Entry::Occupied(_) => false,
    }
}
