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
//! thread.
//!
//! The table is split into 16 tables (shards) by a few bits of the hash. A string always goes
//! to the same shard, so a batch is interned shard by shard in parallel (each shard sees its
//! strings in document order and counts, per part, the new strings each part brings); then
//! every part is numbered on its own thread, its first id and arena place given by a prefix
//! sum of those counts, and the parts' new strings are appended to the arena in order: ids
//! are the same as one-by-one interning gives, at any thread count. Each shard is small
//! enough to stay in cache far better than one table of a million strings.

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
    /// The strings first seen in this part, one after the other.
    bytes: String,
    /// Their ends in the arena, and their hashes.
    ends: Vec<usize>,
    hashes: Vec<u64>,
    /// Per shard: the ids of its new strings first seen in this part.
    firsts: Vec<Vec<u32>>,
    /// Strings whose id is known once every part is numbered: (position, shard, j).
    later: Vec<(u32, u8, u32)>,
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
        for table in &mut self.tables {
            table.reserve(per_shard, |&id| hashes[id as usize]);
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

    /// Interns the strings of `parts` (each with its hash from [`Interner::hash`]), part after
    /// part, and returns the ids of each part. The ids, and all the interner holds afterwards,
    /// are what [`Interner::intern_hashed`] of every string in turn gives; the work is spread
    /// over rayon's threads, one shard per task (see the module documentation).
    ///
    /// # Panics
    /// If more than `u32::MAX` distinct strings are interned.
    pub fn intern_batch<S: AsRef<str> + Sync>(&mut self, parts: &[&[(S, TermHash)]]) -> Vec<Vec<TermId>> {
        let total: usize = parts.iter().map(|part| part.len()).sum();
        if total < BATCH_MIN {
            return parts
                .iter()
                .map(|part| part.iter().map(|(s, hash)| self.intern_hashed(s.as_ref(), *hash)).collect())
                .collect();
        }
        let before = u32::try_from(self.ends.len()).expect("more than u32::MAX interned strings");
        // The strings of each part that go to each shard, in order, with their hashes: a shard
        // then reads its strings one after the other instead of picking them out of the parts.
        let buckets: Vec<Vec<Vec<(&str, TermHash)>>> = parts
            .par_iter()
            .map(|part| {
                let mut lists: Vec<Vec<(&str, TermHash)>> =
                    (0..SHARDS).map(|_| Vec::with_capacity(part.len() / SHARDS + part.len() / 64 + 8)).collect();
                for (s, hash) in *part {
                    lists[shard_of(hash.0)].push((s.as_ref(), *hash));
                }
                lists
            })
            .collect();
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
                    let mut codes = Vec::with_capacity(buckets.iter().map(|lists| lists[shard].len()).sum());
                    let mut marks = Vec::with_capacity(parts.len());
                    let mut bytes = 0;
                    for lists in &buckets {
                        marks.push(Mark { codes: codes.len(), new: new.len(), bytes });
                        for &(s, hash) in &lists[shard] {
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
        drop(buckets);
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
    /// document order and appends them to the arena. Every part is numbered on its own thread:
    /// the shards' marks say how many new strings (and bytes) each part brings, so a prefix
    /// sum gives each part its first id and its place in the arena. Returns the ids of each
    /// part and, per shard, the id of its j-th new string.
    fn number<S: AsRef<str> + Sync>(
        &mut self,
        parts: &[&[(S, TermHash)]],
        shards: &[Probed],
        before: u32,
    ) -> (Vec<Vec<TermId>>, Vec<Vec<u32>>) {
        // Each part's first id and arena end, and how many strings and bytes it brings.
        let mut starts = Vec::with_capacity(parts.len());
        let (mut id, mut byte) = (before as usize, self.arena.len());
        for p in 0..parts.len() {
            let (mut strings, mut bytes) = (0, 0);
            for probed in shards {
                let next = probed.marks.get(p + 1).map_or((probed.new, probed.bytes), |m| (m.new, m.bytes));
                strings += next.0 - probed.marks[p].new;
                bytes += next.1 - probed.marks[p].bytes;
            }
            starts.push((id, byte, strings, bytes));
            id += strings;
            byte += bytes;
        }
        u32::try_from(id).expect("more than u32::MAX interned strings");
        let mut numbered: Vec<Numbered> = parts
            .par_iter()
            .zip(starts.par_iter())
            .enumerate()
            .map(|(p, (part, &(first_id, first_byte, strings, bytes)))| {
                let mut cursor: Vec<usize> = shards.iter().map(|probed| probed.marks[p].codes).collect();
                let mut next: Vec<usize> = shards.iter().map(|probed| probed.marks[p].new).collect();
                let mut done = Numbered {
                    ids: Vec::with_capacity(part.len()),
                    bytes: String::with_capacity(bytes),
                    ends: Vec::with_capacity(strings),
                    hashes: Vec::with_capacity(strings),
                    firsts: vec![Vec::new(); SHARDS],
                    later: Vec::new(),
                };
                for (position, (s, hash)) in part.iter().enumerate() {
                    let shard = shard_of(hash.0);
                    let code = shards[shard].codes[cursor[shard]];
                    cursor[shard] += 1;
                    if code < before {
                        done.ids.push(TermId(code));
                        continue;
                    }
                    let j = (code - before) as usize;
                    if j != next[shard] {
                        done.ids.push(TermId(0));
                        done.later.push((position as u32, shard as u8, j as u32));
                        continue;
                    }
                    next[shard] += 1;
                    let id = (first_id + done.ends.len()) as u32;
                    done.bytes.push_str(s.as_ref());
                    done.ends.push(first_byte + done.bytes.len());
                    done.hashes.push(hash.0);
                    done.firsts[shard].push(id);
                    done.ids.push(TermId(id));
                }
                done
            })
            .collect();
        let mut assigned: Vec<Vec<u32>> = shards.iter().map(|probed| Vec::with_capacity(probed.new)).collect();
        for done in &mut numbered {
            self.arena.push_str(&done.bytes);
            done.bytes = String::new();
            self.ends.extend_from_slice(&done.ends);
            self.hashes.extend_from_slice(&done.hashes);
            for (mine, firsts) in assigned.iter_mut().zip(&done.firsts) {
                mine.extend_from_slice(firsts);
            }
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
mod tests {
    use super::*;

    /// Ids are dense and in first-insertion order, whatever the table does when it grows;
    /// the empty string and repeats are ids like any other.
    #[test]
    fn ids_are_dense_in_first_insertion_order() {
        let mut interner = Interner::new();
        let words: Vec<String> = (0..5000).map(|i| format!("http://example.org/e{}", i % 3001)).collect();
        let ids: Vec<u32> = words.iter().map(|w| interner.intern(w).index()).collect();
        assert_eq!(interner.len(), 3001);
        for (i, id) in ids.iter().enumerate() {
            assert_eq!(*id as usize, i % 3001);
        }
        assert_eq!(interner.resolve(TermId(3000)), "http://example.org/e3000");
        let empty = interner.intern("");
        assert_eq!((empty.index(), interner.resolve(empty)), (3001, ""));
        assert_eq!(interner.get(""), Some(empty));
        assert_eq!(interner.get("http://example.org/e7"), Some(TermId(7)));
        assert_eq!(interner.get("http://example.org/e3001"), None);
        let mut reserved = Interner::new();
        reserved.reserve(10, 100);
        let hashed: Vec<u32> = words.iter().map(|w| reserved.intern_hashed(w, Interner::hash(w)).index()).collect();
        assert_eq!(hashed, ids);
        reserved.truncate(2000);
        assert_eq!((reserved.len(), reserved.get("http://example.org/e2000")), (2000, None));
        assert_eq!(reserved.intern("http://example.org/e2500").index(), 2000);
        assert_eq!(reserved.intern("http://example.org/e1999").index(), 1999);
        assert_eq!(reserved.resolve(TermId(2000)), "http://example.org/e2500");
        assert_eq!(
            format!("{:?}", {
                let mut small = Interner::new();
                small.intern("a");
                small.intern("b");
                small
            }),
            r#"{"a", "b"}"#
        );
    }

    /// A batch gives the ids, and leaves the interner, exactly as interning its strings one by
    /// one does, at one thread and at two: strings seen before the batch, repeats inside a
    /// part and across parts, an empty part, and enough strings to take the sharded path.
    #[test]
    fn a_batch_interns_as_one_by_one_at_any_thread_count() {
        let word = |i: usize| format!("http://example.org/onto#e{}", (i * 7919) % 6007);
        let old: Vec<String> = (0..3000).map(|i| format!("http://example.org/onto#e{}", i * 3)).collect();
        let parts: Vec<Vec<(String, TermHash)>> = [0..5000, 5000..5000, 5000..9000, 9000..20000]
            .into_iter()
            .map(|range| range.map(|i| (word(i), Interner::hash(&word(i)))).collect())
            .collect();
        let part_refs: Vec<&[(String, TermHash)]> = parts.iter().map(|p| &p[..]).collect();
        let mut one_by_one = Interner::new();
        for w in &old {
            one_by_one.intern(w);
        }
        let expected: Vec<Vec<TermId>> =
            parts.iter().map(|p| p.iter().map(|(w, _)| one_by_one.intern(w)).collect()).collect();
        // Ids above the old ones, and below: the batch mixes both.
        assert_eq!(expected[0][0], TermId(0));
        assert_eq!(expected[0][1], TermId(3000));
        assert_eq!(one_by_one.len(), 3000 + 6007 - 2003);
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
            let mut batched = Interner::new();
            for w in &old {
                batched.intern(w);
            }
            let ids = pool.install(|| batched.intern_batch(&part_refs));
            assert_eq!(ids, expected, "{threads} threads");
            assert_eq!(format!("{batched:?}"), format!("{one_by_one:?}"));
            for i in [0, 17, 6006, 6007] {
                assert_eq!(batched.get(&word(i)), one_by_one.get(&word(i)));
            }
            assert_eq!(batched.intern("http://example.org/new"), TermId(one_by_one.len() as u32));
            batched.truncate(one_by_one.len());
            assert_eq!(batched.get("http://example.org/new"), None);
        }
    }

    /// Many small parts numbered on their own threads: a string first seen in one part and
    /// repeated in later ones (and in the same one) gets the id of one-by-one interning, and
    /// the arena holds the strings in id order.
    #[test]
    fn many_parts_number_like_one_by_one() {
        let word = |i: usize| format!("http://example.org/o#{}", "x".repeat(i % 5) + &((i * 31) % 2500).to_string());
        let parts: Vec<Vec<(String, TermHash)>> = (0..40)
            .map(|p| (p * 150..p * 150 + 150 + p % 3).map(|i| (word(i), Interner::hash(&word(i)))).collect())
            .collect();
        let part_refs: Vec<&[(String, TermHash)]> = parts.iter().map(|p| &p[..]).collect();
        let mut one_by_one = Interner::new();
        one_by_one.intern("http://example.org/o#x7");
        let expected: Vec<Vec<TermId>> =
            parts.iter().map(|p| p.iter().map(|(w, _)| one_by_one.intern(w)).collect()).collect();
        assert!(one_by_one.len() < parts.iter().map(Vec::len).sum::<usize>(), "repeats");
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
            let mut batched = Interner::new();
            batched.intern("http://example.org/o#x7");
            let ids = pool.install(|| batched.intern_batch(&part_refs));
            assert_eq!(ids, expected, "{threads} threads");
            assert_eq!(format!("{batched:?}"), format!("{one_by_one:?}"));
            for (w, _) in parts.iter().flatten().step_by(7) {
                assert_eq!(batched.get(w), one_by_one.get(w));
            }
        }
    }
}
