//! Interning the IRIs of a read in document order, with the lookups done in parallel.
//!
//! Interning is what a million-cell read spends most of its time on: each of ~2M IRIs is a
//! hash-table lookup that misses the cache (table, entry, string). The ids must be the ones a
//! sequential pass in document order gives, whatever the thread count. So the work is split in
//! two: in parallel, shards of the IRIs (by hash) find, for every occurrence, the id it already
//! has in the interner or the first occurrence of the same IRI in this read; then one pass in
//! document order interns each first occurrence (new to the interner, so a cheap insert) and
//! copies the id for every other one.

use std::hash::BuildHasher as _;

use kgeval_model::{Interner, TermId};
use rayon::prelude::*;
use rustc_hash::{FxBuildHasher, FxHashMap};

/// What the parallel pass found for one occurrence.
#[derive(Clone, Copy)]
enum Slot {
    /// Already in the interner.
    Known(TermId),
    /// The first occurrence in this read of an IRI new to the interner.
    First,
    /// A repeat of the occurrence at this index.
    Repeat(u32),
}

/// The ids of `terms` (in document order), interned as a sequential pass would intern them;
/// the lookups are split across rayon's threads when `parallel` (the document was read in
/// parallel stretches: large, or cut so by a test) and there is more than one thread.
pub(super) fn intern_all(terms: &[&str], interner: &mut Interner, parallel: bool) -> Vec<TermId> {
    let threads = rayon::current_num_threads();
    if !parallel || threads == 1 {
        return terms.iter().map(|term| interner.intern(term)).collect();
    }
    let shards = (threads * 2).min(64);
    let hashes: Vec<u64> = terms.par_iter().map(|term| FxBuildHasher.hash_one(term)).collect();
    let known: &Interner = interner;
    let found: Vec<Vec<(u32, Slot)>> = (0..shards)
        .into_par_iter()
        .map(|shard| {
            let mut first: FxHashMap<&str, u32> = FxHashMap::default();
            let mut out = Vec::with_capacity(terms.len() / shards + 16);
            for (at, (&term, &hash)) in terms.iter().zip(&hashes).enumerate() {
                if (hash >> 40) as usize % shards != shard {
                    continue;
                }
                let at = at as u32;
                let slot = match known.get(term) {
                    Some(id) => Slot::Known(id),
                    None => match first.entry(term) {
                        std::collections::hash_map::Entry::Occupied(seen) => Slot::Repeat(*seen.get()),
                        std::collections::hash_map::Entry::Vacant(slot) => {
                            slot.insert(at);
                            Slot::First
                        }
                    },
                };
                out.push((at, slot));
            }
            out
        })
        .collect();
    let mut slots = vec![Slot::First; terms.len()];
    for (at, slot) in found.into_iter().flatten() {
        slots[at as usize] = slot;
    }
    let mut ids: Vec<TermId> = Vec::with_capacity(terms.len());
    for (term, slot) in terms.iter().zip(slots) {
        let id = match slot {
            Slot::Known(id) => id,
            Slot::First => interner.intern(term),
            Slot::Repeat(at) => ids[at as usize],
        };
        ids.push(id);
    }
    ids
}
