//! String interning: every IRI of one evaluation becomes a `u32`.
//!
//! The strings live one after the other in a single arena (one growing buffer, no allocation
//! per string) and a hash table of ids finds them. A million-cell alignment interns about two
//! million IRIs, so the table is probed once per lookup (hashbrown's entry API, not a lookup
//! followed by an insert) with foldhash, and a reader that knows how many strings are coming
//! reserves room for them first ([`Interner::reserve`]) so that the table is not rebuilt
//! while it fills. Readers that parse in parallel hash on their threads
//! ([`Interner::hash`]) and intern with the hash ([`Interner::intern_hashed`]).

use hashbrown::hash_table::{Entry, HashTable};

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
#[derive(Default, Clone)]
pub struct Interner {
    /// Every interned string, one after the other.
    arena: String,
    /// The end of string `i` in `arena`; it starts where string `i - 1` ends.
    ends: Vec<usize>,
    /// The hash of string `i` (the table is rebuilt from these when it grows).
    hashes: Vec<u64>,
    /// Ids, found by the hash of their string.
    table: HashTable<u32>,
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
        self.table.reserve(strings, |&id| hashes[id as usize]);
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
        let Self { arena, ends, hashes, table } = self;
        let at = |id: u32| {
            let i = id as usize;
            &arena[if i == 0 { 0 } else { ends[i - 1] }..ends[i]]
        };
        let entry = table.entry(hash.0, |&id| at(id) == s, |&id| hashes[id as usize]);
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

    /// Forgets every string interned after the first `len` (a reader that gives up on a
    /// parallel read and starts again), as if they had never been interned.
    pub fn truncate(&mut self, len: usize) {
        while self.ends.len() > len {
            let id = (self.ends.len() - 1) as u32;
            if let Ok(entry) = self.table.find_entry(self.hashes[id as usize], |&other| other == id) {
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
        self.table.find(Self::hash(s).0, |&id| self.str_at(id as usize) == s).map(|&id| TermId(id))
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
}
