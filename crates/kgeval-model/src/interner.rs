//! String interning: every IRI of one evaluation becomes a `u32`.
//!
//! The strings live in a few large buffers (chunks: the interner's own, which grows one
//! string at a time, and the buffers of the batches it took in), never one allocation per
//! string, and a hash table of ids finds them. A million-cell alignment interns about two
//! million IRIs, so the table is probed once per lookup (hashbrown's entry API, not a lookup
//! followed by an insert) with foldhash, and a reader that knows how many strings are coming
//! reserves room for them first ([`Interner::reserve`]) so that the table is not rebuilt
//! while it fills. Readers that parse in parallel hash on their threads
//! ([`Interner::hash`]) and intern with the hash ([`Interner::intern_hashed`]), or hand a
//! whole document's strings to [`Interner::intern_batch`], which interns them on every
//! thread (the reader pushes them into [`TermBatch`]es, which copy them by shard as they
//! come, while they are still in cache).
//!
//! The table is split into 16 tables (shards) by a few bits of the hash. A string always goes
//! to the same shard, so a batch is interned shard by shard in parallel (each shard reads its
//! strings in document order out of the parts' compact shard buffers, compares a repeat with
//! its first occurrence in those buffers, and counts, per part, the new strings each part
//! brings); then every part is numbered on its own thread, its first id given by a prefix sum
//! of those counts, and the parts' shard buffers become chunks of the interner, which keeps
//! where each new string lies in them (no string is copied twice): ids are the same as
//! one-by-one interning gives, at any thread count. Each shard is small enough to stay in
//! cache far better than one table of a million strings.

use std::mem::MaybeUninit;

use hashbrown::hash_table::{Entry, HashTable};
use rayon::prelude::*;

mod term_batch;

pub use term_batch::TermBatch;

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
    /// Per string of the shard, in document order (its place `g` in the parts' lists one
    /// after the other): its old id, or `before + g0` for a new one first seen at place `g0`.
    codes: Vec<u32>,
    /// How many new strings the shard found.
    new: usize,
    /// Per part: where it starts in `codes` and in the new strings.
    marks: Vec<Mark>,
}

/// Where a part starts in a [`Probed`] shard.
#[derive(Debug, Clone, Copy)]
struct Mark {
    codes: usize,
    new: usize,
}

impl Probed {
    /// How many new strings part `p` brings to the shard.
    fn new_in(&self, p: usize) -> usize {
        self.marks.get(p + 1).map_or(self.new, |m| m.new) - self.marks[p].new
    }
}

/// What numbering one part in [`Interner::number`] yields.
struct Numbered {
    /// The ids of the part's strings (a repeat of a string new in an earlier part: still 0).
    ids: Vec<TermId>,
    /// Strings whose id is known once every part is numbered: (position, shard, g0).
    later: Vec<(u32, u8, u32)>,
    /// How many strings the part wrote to its place.
    written: usize,
}

/// A part's place in the interner's spare room ([`Interner::number`]): its new strings'
/// spans and hashes, and per shard the ids of the shard's new strings first seen in it (by
/// their place in the shard, from the part's first).
struct Place<'a> {
    spans: &'a mut [MaybeUninit<Span>],
    hashes: &'a mut [MaybeUninit<u64>],
    firsts: Vec<&'a mut [u32]>,
}

/// Where an interned string lies: `len` bytes from `start` in chunk `chunk`.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    len: u32,
    chunk: u32,
}

impl Span {
    /// The span of `len` bytes from `start` in `chunk`.
    ///
    /// # Panics
    /// If the string is longer than `u32::MAX` bytes or there are more than `u32::MAX`
    /// chunks.
    fn new(chunk: usize, start: usize, len: usize) -> Span {
        let len = u32::try_from(len).expect("an interned string longer than u32::MAX bytes");
        let chunk = u32::try_from(chunk).expect("more than u32::MAX interned chunks");
        Span { start, len, chunk }
    }
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
    /// The strings' bytes: chunk 0 is the interner's own (one string after the other, as
    /// they are interned one by one), the others are the shard buffers of the batches it took
    /// in (with the bytes of their repeats between the strings).
    chunks: Vec<String>,
    /// Where string `i` lies in `chunks`.
    spans: Vec<Span>,
    /// The hash of string `i` (the tables are rebuilt from these when they grow).
    hashes: Vec<u64>,
    /// Ids, found by the hash of their string, in the shard of that hash ([`shard_of`]).
    tables: Vec<HashTable<u32>>,
}

impl Default for Interner {
    fn default() -> Self {
        Self {
            chunks: vec![String::new()],
            spans: Vec::new(),
            hashes: Vec::new(),
            tables: vec![HashTable::new(); SHARDS],
        }
    }
}

impl std::fmt::Debug for Interner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries((0..self.spans.len()).map(|i| self.str_at(i))).finish()
    }
}

/// The string at `span` of `chunks`.
fn at(chunks: &[String], span: Span) -> &str {
    &chunks[span.chunk as usize][span.start..span.start + span.len as usize]
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
        self.spans.reserve(strings);
        self.hashes.reserve(strings);
        self.chunks[0].reserve(bytes);
    }

    /// The hash [`Interner::intern_hashed`] wants for `s`; any thread may compute it.
    #[must_use]
    pub fn hash(s: &str) -> TermHash {
        use std::hash::BuildHasher as _;
        TermHash(foldhash::fast::FixedState::with_seed(0x6b67_6576_616c).hash_one(s))
    }

    /// The id of `s`, adding it if it is new. Allocates only when a buffer or the table
    /// grows.
    ///
    /// # Panics
    /// If more than `u32::MAX` distinct strings are interned, or `s` is longer than
    /// `u32::MAX` bytes.
    pub fn intern(&mut self, s: &str) -> TermId {
        self.intern_hashed(s, Self::hash(s))
    }

    /// [`Interner::intern`] with the hash of `s` computed beforehand by [`Interner::hash`].
    ///
    /// # Panics
    /// If more than `u32::MAX` distinct strings are interned, or `s` is longer than
    /// `u32::MAX` bytes.
    pub fn intern_hashed(&mut self, s: &str, hash: TermHash) -> TermId {
        let Self { chunks, spans, hashes, tables } = self;
        let entry = tables[shard_of(hash.0)].entry(
            hash.0,
            |&id| at(chunks, spans[id as usize]) == s,
            |&id| hashes[id as usize],
        );
        match entry {
            Entry::Occupied(found) => TermId(*found.get()),
            Entry::Vacant(slot) => {
                let id = u32::try_from(spans.len()).expect("more than u32::MAX interned strings");
                let own = &mut chunks[0];
                spans.push(Span::new(0, own.len(), s.len()));
                own.push_str(s);
                slot.insert(id);
                hashes.push(hash.0);
                TermId(id)
            }
        }
    }

    /// Interns the strings of `parts` (each a [`TermBatch`]: strings with their hashes from
    /// [`Interner::hash`], copied by shard), part after part, and returns the ids of each
    /// part in document order. The ids, and all the interner holds afterwards, are what
    /// [`Interner::intern_hashed`] of every string in turn gives; the work is spread over
    /// rayon's threads, one shard per task, and the parts' shard buffers that hold new
    /// strings are kept as they are (see the module documentation).
    ///
    /// # Panics
    /// If more than `u32::MAX` distinct strings are interned, or a string is longer than
    /// `u32::MAX` bytes.
    pub fn intern_batch(&mut self, parts: Vec<TermBatch>) -> Vec<Vec<TermId>> {
        let total: usize = parts.iter().map(TermBatch::len).sum();
        if total < BATCH_MIN {
            return parts
                .iter()
                .map(|part| part.iter().map(|(s, hash)| self.intern_hashed(s, hash)).collect())
                .collect();
        }
        let before = u32::try_from(self.spans.len()).expect("more than u32::MAX interned strings");
        // Each shard, at each place in document order: an old id (< before), or `before + g0`
        // for a new string first seen at place `g0`.
        let shards: Vec<Probed> = {
            let Self { chunks, spans, hashes, tables } = self;
            let (chunks, spans, hashes) = (&*chunks, &*spans, &*hashes);
            let parts = &parts;
            tables
                .par_iter_mut()
                .enumerate()
                .map(|(shard, table)| {
                    let mut codes: Vec<u32> =
                        Vec::with_capacity(parts.iter().map(|part| part.lists[shard].len()).sum());
                    let mut marks: Vec<Mark> = Vec::with_capacity(parts.len());
                    let mut new = 0;
                    for part in parts {
                        marks.push(Mark { codes: codes.len(), new });
                        for (s, hash) in part.lists[shard].iter() {
                            // The string at place `g` of the shard (its parts' lists one after
                            // the other): its list, and its index there.
                            let locate = |g: usize| {
                                let p = marks.partition_point(|mark| mark.codes <= g) - 1;
                                (&parts[p].lists[shard], g - marks[p].codes)
                            };
                            let entry = table.entry(
                                hash,
                                |&v| {
                                    if v < before {
                                        at(chunks, spans[v as usize]).as_bytes() == s
                                    } else {
                                        // The hash first: a tag that matches by chance reads
                                        // no string.
                                        let (list, k) = locate((v - before) as usize);
                                        let (start, end, other) = list.span(k);
                                        other == hash && &list.bytes.as_bytes()[start..end] == s
                                    }
                                },
                                |&v| {
                                    if v < before {
                                        hashes[v as usize]
                                    } else {
                                        let (list, k) = locate((v - before) as usize);
                                        list.span(k).2
                                    }
                                },
                            );
                            let code = match entry {
                                Entry::Occupied(found) => *found.get(),
                                Entry::Vacant(slot) => {
                                    let code = u32::try_from(codes.len())
                                        .ok()
                                        .and_then(|g| before.checked_add(g))
                                        .expect("more than u32::MAX interned strings");
                                    slot.insert(code);
                                    new += 1;
                                    code
                                }
                            };
                            codes.push(code);
                        }
                    }
                    Probed { codes, new, marks }
                })
                .collect()
        };
        let first_chunk = self.chunks.len();
        let (out, assigned) = self.number(&parts, &shards, before, first_chunk);
        // The tables get the ids in place of the codes.
        self.tables.par_iter_mut().zip(assigned.par_iter()).for_each(|(table, mine)| {
            for code in table.iter_mut() {
                if *code >= before {
                    *code = mine[(*code - before) as usize];
                }
            }
        });
        // The shard buffers become chunks `first_chunk + p * SHARDS + shard` (one holding no
        // new string is dropped, its place kept); the rest of the parts is freed on every
        // thread.
        let kept: Vec<[String; SHARDS]> = parts
            .into_par_iter()
            .enumerate()
            .map(|(p, part)| {
                let mut shard = 0;
                part.lists.map(|list| {
                    let keep = shards[shard].new_in(p) > 0;
                    shard += 1;
                    if keep {
                        list.bytes
                    } else {
                        String::new()
                    }
                })
            })
            .collect();
        self.chunks.extend(kept.into_iter().flatten());
        out
    }

    /// The numbering step of [`Interner::intern_batch`]: gives the new strings their ids in
    /// document order and records where they lie (part `p`'s shard buffer of shard `k` is to
    /// be chunk `first_chunk + p * SHARDS + k`). Every part is numbered on its own thread: the
    /// shards' marks say how many new strings each part brings, so a prefix sum gives each
    /// part its first id and its place in the spans, which it writes itself. Returns the ids
    /// of each part and, per shard, the id of the new string first seen at each place of the
    /// shard (0 at the other places).
    fn number(
        &mut self,
        parts: &[TermBatch],
        shards: &[Probed],
        before: u32,
        first_chunk: usize,
    ) -> (Vec<Vec<TermId>>, Vec<Vec<u32>>) {
        // Each part's first id, and how many strings it brings.
        let mut starts = Vec::with_capacity(parts.len());
        let mut id = before as usize;
        for p in 0..parts.len() {
            let strings: usize = shards.iter().map(|probed| probed.new_in(p)).sum();
            starts.push((id, strings));
            id += strings;
        }
        u32::try_from(id).expect("more than u32::MAX interned strings");
        u32::try_from(first_chunk + parts.len() * SHARDS).expect("more than u32::MAX interned chunks");
        let total_strings = id - before as usize;
        // Per shard, the id of the new string first seen at each place; each part fills its
        // own stretch of each.
        let mut assigned: Vec<Vec<u32>> = shards.iter().map(|probed| vec![0; probed.codes.len()]).collect();
        let Self { spans, hashes, .. } = self;
        spans.reserve(total_strings);
        hashes.reserve(total_strings);
        let mut places = {
            let mut spans = &mut spans.spare_capacity_mut()[..total_strings];
            let mut hashes = &mut hashes.spare_capacity_mut()[..total_strings];
            let mut places: Vec<Place<'_>> = starts
                .iter()
                .map(|&(_, strings)| {
                    let (my_spans, rest) = std::mem::take(&mut spans).split_at_mut(strings);
                    spans = rest;
                    let (my_hashes, rest) = std::mem::take(&mut hashes).split_at_mut(strings);
                    hashes = rest;
                    Place { spans: my_spans, hashes: my_hashes, firsts: Vec::with_capacity(SHARDS) }
                })
                .collect();
            for (shard, mine) in assigned.iter_mut().enumerate() {
                let mut rest = &mut mine[..];
                for (part, place) in parts.iter().zip(&mut places) {
                    let (firsts, tail) = std::mem::take(&mut rest).split_at_mut(part.lists[shard].len());
                    rest = tail;
                    place.firsts.push(firsts);
                }
            }
            places
        };
        let numbered: Vec<Numbered> = parts
            .par_iter()
            .zip(places.par_iter_mut())
            .zip(starts.par_iter())
            .enumerate()
            .map(|(p, ((part, place), &(first_id, _)))| {
                // The part's first place in each shard, and the next one.
                let first: [usize; SHARDS] = std::array::from_fn(|shard| shards[shard].marks[p].codes);
                let mut cursor = first;
                let mut ids = Vec::with_capacity(part.len());
                let mut later = Vec::new();
                let mut strings = 0;
                for (position, &shard) in part.order.iter().enumerate() {
                    let shard = usize::from(shard);
                    let g = cursor[shard];
                    cursor[shard] += 1;
                    let code = shards[shard].codes[g];
                    if code < before {
                        ids.push(TermId(code));
                        continue;
                    }
                    let g0 = (code - before) as usize;
                    if g0 != g {
                        ids.push(TermId(0));
                        later.push((position as u32, shard as u8, g0 as u32));
                        continue;
                    }
                    let id = (first_id + strings) as u32;
                    let k = g - first[shard];
                    place.firsts[shard][k] = id;
                    let (start, end, hash) = part.lists[shard].span(k);
                    place.spans[strings].write(Span::new(first_chunk + p * SHARDS + shard, start, end - start));
                    place.hashes[strings].write(hash);
                    strings += 1;
                    ids.push(TermId(id));
                }
                Numbered { ids, later, written: strings }
            })
            .collect();
        drop(places);
        // Every place was filled whole (each part writes exactly the strings the shards
        // counted for it); only then do the buffers take their new lengths.
        for (done, &(_, strings)) in numbered.iter().zip(&starts) {
            assert_eq!(done.written, strings, "a part of a batch wrote less than its place");
        }
        // SAFETY: the `total_strings` elements after the old lengths of both were all
        // written: each part's place, and the places tile the tails.
        #[allow(unsafe_code)]
        unsafe {
            spans.set_len(spans.len() + total_strings);
            hashes.set_len(hashes.len() + total_strings);
        }
        let out = numbered
            .into_par_iter()
            .map(|mut done| {
                for &(position, shard, g0) in &done.later {
                    done.ids[position as usize] = TermId(assigned[shard as usize][g0 as usize]);
                }
                done.ids
            })
            .collect();
        (out, assigned)
    }

    /// Forgets every string interned after the first `len` (a reader that gives up on a
    /// parallel read and starts again), as if they had never been interned.
    pub fn truncate(&mut self, len: usize) {
        while self.spans.len() > len {
            let id = (self.spans.len() - 1) as u32;
            let hash = self.hashes[id as usize];
            if let Ok(entry) = self.tables[shard_of(hash)].find_entry(hash, |&other| other == id) {
                entry.remove();
            }
            self.spans.pop();
            self.hashes.pop();
        }
        // The chunks after the last one a string is left in go; the interner's own keeps the
        // bytes of its strings.
        let last = self.spans.iter().map(|span| span.chunk).max().unwrap_or(0);
        self.chunks.truncate(last as usize + 1);
        let own = self.spans.iter().rev().find(|span| span.chunk == 0).map_or(0, |span| span.start + span.len as usize);
        self.chunks[0].truncate(own);
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
        at(&self.chunks, self.spans[i])
    }

    /// How many distinct strings were interned.
    #[must_use]
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether nothing was interned yet.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }
}

#[cfg(test)]
#[path = "interner_tests.rs"]
mod tests;
