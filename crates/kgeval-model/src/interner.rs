//! String interning: every IRI of one evaluation becomes a `u32`.
//!
//! The strings live one after the other in a single arena (one growing buffer, no allocation
//! per string) and a hash table of ids finds them. A million-cell alignment interns about two
//! million IRIs, so the table is probed once per lookup (hashbrown's entry API, not a lookup
//! followed by an insert) with foldhash, and a reader that knows how many strings are coming
//! reserves room for them first ([`Interner::reserve`]) so that the table is not rebuilt
//! while it fills. Readers that parse in parallel hash on their threads
//! ([`Interner::hash`]) and intern with the hash ([`Interner::intern_hashed`]), or hand a
//! whole document's strings to [`Interner::intern_batch`], which interns them on every
//! thread (the reader pushes them into [`TermBatch`]es, which sort them by shard as they come).
//!
//! The table is split into 16 tables (shards) by a few bits of the hash. A string always goes
//! to the same shard, so a batch is interned shard by shard in parallel (each shard sees its
//! strings in document order and counts, per part, the new strings each part brings); then
//! every part is numbered on its own thread, its first id and arena place given by a prefix
//! sum of those counts, and the parts' new strings are appended to the arena in order: ids
//! are the same as one-by-one interning gives, at any thread count. Each shard is small
//! enough to stay in cache far better than one table of a million strings.

use std::mem::MaybeUninit;

use hashbrown::hash_table::{Entry, HashTable};
use rayon::prelude::*;

/// The number of tables the ids are spread over (by hash bits 32..36).
const SHARDS: usize = 16;

/// Batches smaller than this are interned one string at a time (same result, less overhead).
const BATCH_MIN: usize = 4096;

/// The shard of a hash: bits that hashbrown uses for neither the bucket (low bits) nor the
/// tag (top seven).
fn shard_of(hash: u64) -> usize {
    (hash >> 32) as usize % SHARDS
}

/// What probing one shard in [`Interner::intern_batch`] yields.
struct Probed {
    /// Per string of the shard, in document order: its old id, or `before + j` for the j-th
    /// new one.
    codes: Vec<u32>,
    /// How many new strings the shard found, and their bytes in all.
    new: usize,
    bytes: usize,
    /// Per part: where it starts in `codes`, in the new strings and in their bytes.
    marks: Vec<Mark>,
}

/// Where a part starts in a [`Probed`] shard.
#[derive(Debug, Clone, Copy)]
struct Mark {
    codes: usize,
    new: usize,
    bytes: usize,
}

/// What numbering one part in [`Interner::number`] yields.
struct Numbered {
    /// The ids of the part's strings (a repeat of a string new in an earlier part: still 0).
    ids: Vec<TermId>,
    /// Strings whose id is known once every part is numbered: (position, shard, j).
    later: Vec<(u32, u8, u32)>,
    /// How many strings and bytes the part wrote to its place in the arena.
    written: (usize, usize),
}

/// A part's place in the interner's spare room ([`Interner::number`]): its new strings'
/// bytes, ends and hashes, and per shard the ids of the shard's new strings first seen in it.
struct Place<'a> {
    bytes: &'a mut [MaybeUninit<u8>],
    ends: &'a mut [MaybeUninit<usize>],
    hashes: &'a mut [MaybeUninit<u64>],
    firsts: Vec<&'a mut [u32]>,
}

/// An interned IRI (or any other term string): an index into one [`Interner`].
///
/// Ids are only meaningful together with the interner that produced them; the reference,
/// the system alignments and the ontologies of one evaluation share a single interner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TermId(u32);

impl TermId {
    /// The raw index.
    #[must_use]
    pub const fn index(self) -> u32 {
        self.0
    }
}

/// The hash of a string as [`Interner`] computes it (fixed seed: the same on every thread
/// and every run).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TermHash(u64);

/// The strings of one part of a batch for [`Interner::intern_batch`], in document order, each
/// with its hash from [`Interner::hash`]. They are kept by shard as they are pushed (with the
/// shard of each in document order), so that interning reads each shard's strings one after
/// the other without first sorting the part out.
///
/// ```
/// use kgeval_model::{Interner, TermBatch};
/// let mut part = TermBatch::new();
/// for s in ["http://example.org/a", "http://example.org/b", "http://example.org/a"] {
///     part.push(s, Interner::hash(s));
/// }
/// let mut interner = Interner::new();
/// let ids = interner.intern_batch(&[&part]);
/// assert_eq!(ids[0][0], ids[0][2]);
/// assert_eq!(interner.resolve(ids[0][1]), "http://example.org/b");
/// ```
#[derive(Debug, Clone)]
pub struct TermBatch<S> {
    /// The shard of each string, in document order.
    order: Vec<u8>,
    /// Per shard, its strings in document order.
    lists: [Vec<(S, TermHash)>; SHARDS],
}

impl<S> Default for TermBatch<S> {
    fn default() -> Self {
        Self { order: Vec::new(), lists: std::array::from_fn(|_| Vec::new()) }
    }
}

impl<S> TermBatch<S> {
    /// An empty part.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Makes room for about `strings` more strings (shards fill unevenly: a little slack
    /// each, and a list grows if it must).
    pub fn reserve(&mut self, strings: usize) {
        self.order.reserve(strings);
        for list in &mut self.lists {
            list.reserve(strings / SHARDS + strings / 64 + 8);
        }
    }

    /// Adds `s`, whose hash is `hash`; returns its index in the part.
    pub fn push(&mut self, s: S, hash: TermHash) -> usize {
        let shard = shard_of(hash.0);
        self.order.push(shard as u8);
        self.lists[shard].push((s, hash));
        self.order.len() - 1
    }

    /// How many strings the part holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether the part holds no string.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The strings with their hashes, in document order.
    pub fn iter(&self) -> impl Iterator<Item = &(S, TermHash)> + '_ {
        let mut taken = [0usize; SHARDS];
        self.order.iter().map(move |&shard| {
            let shard = usize::from(shard);
            taken[shard] += 1;
            &self.lists[shard][taken[shard] - 1]
        })
    }
}

impl<S> FromIterator<(S, TermHash)> for TermBatch<S> {
    fn from_iter<I: IntoIterator<Item = (S, TermHash)>>(iter: I) -> Self {
        let mut part = Self::new();
        for (s, hash) in iter {
            part.push(s, hash);
        }
        part
    }
}

/// Maps strings to dense [`TermId`]s and back. Insertion-ordered, so ids are deterministic
/// for a deterministic input order.
///
/// ```
/// use kgeval_model::Interner;
/// let mut interner = Interner::new();
/// let a = interner.intern("http://example.org/a");
/// assert_eq!(interner.intern("http://example.org/a"), a);
/// assert_eq!(interner.resolve(a), "http://example.org/a");
/// assert_eq!(interner.get("http://example.org/b"), None);
/// ```
#[derive(Clone)]
pub struct Interner {
    /// Every interned string, one after the other.
    arena: String,
    /// The end of string `i` in `arena`; it starts where string `i - 1` ends.
    ends: Vec<usize>,
    /// The hash of string `i` (the tables are rebuilt from these when they grow).
    hashes: Vec<u64>,
    /// Ids, found by the hash of their string, in the shard of that hash ([`shard_of`]).
    tables: Vec<HashTable<u32>>,
}

impl Default for Interner {
    fn default() -> Self {
        Self { arena: String::new(), ends: Vec::new(), hashes: Vec::new(), tables: vec![HashTable::new(); SHARDS] }
    }
}

impl std::fmt::Debug for Interner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries((0..self.ends.len()).map(|i| self.str_at(i))).finish()
    }
}

impl Interner {
    /// An empty interner.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Makes room for `strings` more strings of `bytes` bytes in all (an estimate: a
    /// reader passes the number of strings it is about to intern, repeats included).
    pub fn reserve(&mut self, strings: usize, bytes: usize) {
        let hashes = &self.hashes;
        // Shards fill unevenly: a little slack, and a table grows if it must.
        let per_shard = strings / SHARDS + strings / (SHARDS * 16) + 16;
        // A large reserve moves every id already in a table: the shards on every thread.
        if strings >= BATCH_MIN {
            self.tables.par_iter_mut().for_each(|table| table.reserve(per_shard, |&id| hashes[id as usize]));
        } else {
            for table in &mut self.tables {
                table.reserve(per_shard, |&id| hashes[id as usize]);
            }
        }
        self.ends.reserve(strings);
        self.hashes.reserve(strings);
        self.arena.reserve(bytes);
    }

    /// The hash [`Interner::intern_hashed`] wants for `s`; any thread may compute it.
    #[must_use]
    pub fn hash(s: &str) -> TermHash {
        use std::hash::BuildHasher as _;
        TermHash(foldhash::fast::FixedState::with_seed(0x6b67_6576_616c).hash_one(s))
    }

    /// The id of `s`, adding it if it is new. Allocates only when the arena or the table
    /// grows.
    ///
    /// # Panics
    /// If more than `u32::MAX` distinct strings are interned.
    pub fn intern(&mut self, s: &str) -> TermId {
        self.intern_hashed(s, Self::hash(s))
    }

    /// [`Interner::intern`] with the hash of `s` computed beforehand by [`Interner::hash`].
    ///
    /// # Panics
    /// If more than `u32::MAX` distinct strings are interned.
    pub fn intern_hashed(&mut self, s: &str, hash: TermHash) -> TermId {
        let Self { arena, ends, hashes, tables } = self;
        let at = |id: u32| {
            let i = id as usize;
            &arena[if i == 0 { 0 } else { ends[i - 1] }..ends[i]]
        };
        let entry = tables[shard_of(hash.0)].entry(hash.0, |&id| at(id) == s, |&id| hashes[id as usize]);
        match entry {
            Entry::Occupied(found) => TermId(*found.get()),
            Entry::Vacant(slot) => {
                let id = u32::try_from(ends.len()).expect("more than u32::MAX interned strings");
                slot.insert(id);
                arena.push_str(s);
                ends.push(arena.len());
                hashes.push(hash.0);
                TermId(id)
            }
        }
    }

    /// Interns the strings of `parts` (each a [`TermBatch`]: strings with their hashes from
    /// [`Interner::hash`], already kept by shard), part after part, and returns the ids of each
    /// part in document order. The ids, and all the interner holds afterwards,
    /// are what [`Interner::intern_hashed`] of every string in turn gives; the work is spread
    /// over rayon's threads, one shard per task (see the module documentation).
    ///
    /// # Panics
    /// If more than `u32::MAX` distinct strings are interned.
    pub fn intern_batch<S: AsRef<str> + Sync>(&mut self, parts: &[&TermBatch<S>]) -> Vec<Vec<TermId>> {
        let total: usize = parts.iter().map(|part| part.len()).sum();
        if total < BATCH_MIN {
            return parts
                .iter()
                .map(|part| part.iter().map(|(s, hash)| self.intern_hashed(s.as_ref(), *hash)).collect())
                .collect();
        }
        let before = u32::try_from(self.ends.len()).expect("more than u32::MAX interned strings");
        // Each shard, in document order: an old id (< before) or `before + j` for the shard's
        // j-th new string.
        let shards: Vec<Probed> = {
            let Self { arena, ends, hashes, tables } = self;
            let (arena, ends, hashes) = (&*arena, &*ends, &*hashes);
            let at = |id: u32| {
                let i = id as usize;
                &arena[if i == 0 { 0 } else { ends[i - 1] }..ends[i]]
            };
            tables
                .par_iter_mut()
                .enumerate()
                .map(|(shard, table)| {
                    let mut new: Vec<(&str, u64)> = Vec::new();
                    let mut codes = Vec::with_capacity(parts.iter().map(|part| part.lists[shard].len()).sum());
                    let mut marks = Vec::with_capacity(parts.len());
                    let mut bytes = 0;
                    for part in parts {
                        marks.push(Mark { codes: codes.len(), new: new.len(), bytes });
                        let list = &part.lists[shard];
                        for (s, hash) in list {
                            let (s, hash) = (s.as_ref(), *hash);
                            let entry = table.entry(
                                hash.0,
                                |&v| if v < before { at(v) == s } else { new[(v - before) as usize].0 == s },
                                |&v| if v < before { hashes[v as usize] } else { new[(v - before) as usize].1 },
                            );
                            let code = match entry {
                                Entry::Occupied(found) => *found.get(),
                                Entry::Vacant(slot) => {
                                    let code = u32::try_from(new.len())
                                        .ok()
                                        .and_then(|j| before.checked_add(j))
                                        .expect("more than u32::MAX interned strings");
                                    slot.insert(code);
                                    new.push((s, hash.0));
                                    bytes += s.len();
                                    code
                                }
                            };
                            codes.push(code);
                        }
                    }
                    Probed { codes, new: new.len(), bytes, marks }
                })
                .collect()
        };
        let (out, assigned) = self.number(parts, &shards, before);
        // The tables get the ids in place of the codes.
        self.tables.par_iter_mut().zip(assigned.par_iter()).for_each(|(table, mine)| {
            for code in table.iter_mut() {
                if *code >= before {
                    *code = mine[(*code - before) as usize];
                }
            }
        });
        out
    }

    /// The numbering step of [`Interner::intern_batch`]: gives the new strings their ids in
    /// document order and writes them to the arena. Every part is numbered on its own thread:
    /// the shards' marks say how many new strings (and bytes) each part brings, so a prefix
    /// sum gives each part its first id and its place in the arena, where it writes its new
    /// strings itself (no second copy, and the fresh pages are touched on every thread).
    /// Returns the ids of each part and, per shard, the id of its j-th new string.
    fn number<S: AsRef<str> + Sync>(
        &mut self,
        parts: &[&TermBatch<S>],
        shards: &[Probed],
        before: u32,
    ) -> (Vec<Vec<TermId>>, Vec<Vec<u32>>) {
        // Each part's first id, and how many strings and bytes it brings.
        let mut starts = Vec::with_capacity(parts.len());
        let (mut id, mut total_bytes) = (before as usize, 0);
        for p in 0..parts.len() {
            let (mut strings, mut bytes) = (0, 0);
            for probed in shards {
                let next = probed.marks.get(p + 1).map_or((probed.new, probed.bytes), |m| (m.new, m.bytes));
                strings += next.0 - probed.marks[p].new;
                bytes += next.1 - probed.marks[p].bytes;
            }
            starts.push((id, strings, bytes));
            id += strings;
            total_bytes += bytes;
        }
        u32::try_from(id).expect("more than u32::MAX interned strings");
        let total_strings = id - before as usize;
        // Per shard, the id of its j-th new string; each part fills its own stretch of each.
        let mut assigned: Vec<Vec<u32>> = shards.iter().map(|probed| vec![0; probed.new]).collect();
        let Self { arena, ends, hashes, .. } = self;
        // SAFETY: the arena's tail is only ever given whole `&str`s (below), so it stays UTF-8.
        #[allow(unsafe_code)]
        let arena = unsafe { arena.as_mut_vec() };
        arena.reserve(total_bytes);
        ends.reserve(total_strings);
        hashes.reserve(total_strings);
        let first_byte = arena.len();
        let mut places = {
            let mut bytes = &mut arena.spare_capacity_mut()[..total_bytes];
            let mut ends = &mut ends.spare_capacity_mut()[..total_strings];
            let mut hashes = &mut hashes.spare_capacity_mut()[..total_strings];
            let mut places: Vec<Place<'_>> = starts
                .iter()
                .map(|&(_, strings, size)| {
                    let (mine, rest) = std::mem::take(&mut bytes).split_at_mut(size);
                    bytes = rest;
                    let (my_ends, rest) = std::mem::take(&mut ends).split_at_mut(strings);
                    ends = rest;
                    let (my_hashes, rest) = std::mem::take(&mut hashes).split_at_mut(strings);
                    hashes = rest;
                    Place { bytes: mine, ends: my_ends, hashes: my_hashes, firsts: Vec::with_capacity(SHARDS) }
                })
                .collect();
            for (probed, mine) in shards.iter().zip(&mut assigned) {
                let mut rest = &mut mine[..];
                for (p, place) in places.iter_mut().enumerate() {
                    let next = probed.marks.get(p + 1).map_or(probed.new, |m| m.new);
                    let (firsts, tail) = std::mem::take(&mut rest).split_at_mut(next - probed.marks[p].new);
                    rest = tail;
                    place.firsts.push(firsts);
                }
            }
            places
        };
        let mut byte_of_part = first_byte;
        let part_bytes: Vec<usize> = starts
            .iter()
            .map(|&(_, _, size)| {
                byte_of_part += size;
                byte_of_part - size
            })
            .collect();
        let numbered: Vec<Numbered> = parts
            .par_iter()
            .zip(places.par_iter_mut())
            .zip(starts.par_iter().zip(part_bytes.par_iter()))
            .enumerate()
            .map(|(p, ((part, place), (&(first_id, _, _), &part_byte)))| {
                let mut cursor: Vec<usize> = shards.iter().map(|probed| probed.marks[p].codes).collect();
                let mut next: Vec<usize> = shards.iter().map(|probed| probed.marks[p].new).collect();
                let mut taken = [0usize; SHARDS];
                let mut ids = Vec::with_capacity(part.len());
                let mut later = Vec::new();
                let (mut strings, mut bytes) = (0, 0);
                for (position, &shard) in part.order.iter().enumerate() {
                    let shard = usize::from(shard);
                    let (s, hash) = &part.lists[shard][taken[shard]];
                    taken[shard] += 1;
                    let code = shards[shard].codes[cursor[shard]];
                    cursor[shard] += 1;
                    if code < before {
                        ids.push(TermId(code));
                        continue;
                    }
                    let j = (code - before) as usize;
                    if j != next[shard] {
                        ids.push(TermId(0));
                        later.push((position as u32, shard as u8, j as u32));
                        continue;
                    }
                    let id = (first_id + strings) as u32;
                    place.firsts[shard][j - shards[shard].marks[p].new] = id;
                    next[shard] += 1;
                    let s = s.as_ref().as_bytes();
                    for (to, &byte) in place.bytes[bytes..bytes + s.len()].iter_mut().zip(s) {
                        to.write(byte);
                    }
                    bytes += s.len();
                    place.ends[strings].write(part_byte + bytes);
                    place.hashes[strings].write(hash.0);
                    strings += 1;
                    ids.push(TermId(id));
                }
                Numbered { ids, later, written: (strings, bytes) }
            })
            .collect();
        drop(places);
        // Every place was filled whole (each part writes exactly the strings and bytes the
        // shards counted for it); only then do the buffers take their new lengths.
        for (done, &(_, strings, size)) in numbered.iter().zip(&starts) {
            assert_eq!(done.written, (strings, size), "a part of a batch wrote less than its place");
        }
        // SAFETY: the `total_bytes`, `total_strings` and `total_strings` elements after the
        // old lengths were all written: each part's place, and the places tile the tails.
        #[allow(unsafe_code)]
        unsafe {
            arena.set_len(first_byte + total_bytes);
            ends.set_len(ends.len() + total_strings);
            hashes.set_len(hashes.len() + total_strings);
        }
        let out = numbered
            .into_par_iter()
            .map(|mut done| {
                for &(position, shard, j) in &done.later {
                    done.ids[position as usize] = TermId(assigned[shard as usize][j as usize]);
                }
                done.ids
            })
            .collect();
        (out, assigned)
    }

    /// Forgets every string interned after the first `len` (a reader that gives up on a
    /// parallel read and starts again), as if they had never been interned.
    pub fn truncate(&mut self, len: usize) {
        while self.ends.len() > len {
            let id = (self.ends.len() - 1) as u32;
            let hash = self.hashes[id as usize];
            if let Ok(entry) = self.tables[shard_of(hash)].find_entry(hash, |&other| other == id) {
                entry.remove();
            }
            self.ends.pop();
            self.hashes.pop();
        }
        let end = self.ends.last().copied().unwrap_or(0);
        self.arena.truncate(end);
    }

    /// The id of `s` if it was interned before.
    #[must_use]
    pub fn get(&self, s: &str) -> Option<TermId> {
        let hash = Self::hash(s).0;
        self.tables[shard_of(hash)].find(hash, |&id| self.str_at(id as usize) == s).map(|&id| TermId(id))
    }

    /// The string behind `id`.
    ///
    /// # Panics
    /// If `id` comes from another interner and is out of range.
    #[must_use]
    pub fn resolve(&self, id: TermId) -> &str {
        self.str_at(id.0 as usize)
    }

    fn str_at(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.arena[start..self.ends[i]]
    }

    /// How many distinct strings were interned.
    #[must_use]
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether nothing was interned yet.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
}

#[cfg(test)]
#[path = "interner_tests.rs"]
mod tests;
