//! [`TermBatch`]: the strings of one part of a batch for [`Interner::intern_batch`](crate::Interner::intern_batch), copied
//! by shard as they come.

use super::{shard_of, TermHash, SHARDS};

/// The strings of one part of a batch for [`Interner::intern_batch`](crate::Interner::intern_batch), in document order, each
/// with its hash from [`Interner::hash`](crate::Interner::hash). Each string is copied, as it is pushed, after the
/// strings of its shard (and its shard noted in document order, one byte), so that interning
/// reads each shard's strings one after the other from a compact buffer, compares a repeat
/// with its first occurrence in that buffer (not at a random place of the input), and keeps
/// the buffer as the storage of the new strings it finds (no second copy).
///
/// ```
/// use kgeval_model::{Interner, TermBatch};
/// let mut part = TermBatch::new();
/// for s in ["http://example.org/a", "http://example.org/b", "http://example.org/a"] {
///     part.push(s, Interner::hash(s));
/// }
/// let mut interner = Interner::new();
/// let ids = interner.intern_batch(vec![part]);
/// assert_eq!(ids[0][0], ids[0][2]);
/// assert_eq!(interner.resolve(ids[0][1]), "http://example.org/b");
/// ```
#[derive(Debug, Clone, Default)]
pub struct TermBatch {
    /// The shard of each string, in document order.
    pub(super) order: Vec<u8>,
    /// Per shard, its strings in document order.
    pub(super) lists: [ShardList; SHARDS],
}

/// The strings of one shard of a [`TermBatch`], one after the other.
#[derive(Debug, Clone, Default)]
pub(super) struct ShardList {
    /// The strings' bytes.
    pub(super) bytes: String,
    /// Per string: where it ends in `bytes`, and its hash.
    pub(super) ends: Vec<(usize, u64)>,
}

impl ShardList {
    /// How many strings the list holds.
    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Where string `k` starts and ends in `bytes`, and its hash (its bytes are not read).
    pub(super) fn span(&self, k: usize) -> (usize, usize, u64) {
        let start = if k == 0 { 0 } else { self.ends[k - 1].0 };
        let (end, hash) = self.ends[k];
        (start, end, hash)
    }

    /// String `k` and its hash.
    pub(super) fn get(&self, k: usize) -> (&str, u64) {
        let (start, end, hash) = self.span(k);
        (&self.bytes[start..end], hash)
    }

    /// The strings' bytes with their hashes, in order (as bytes: a string whose hash says it
    /// is new is never read).
    pub(super) fn iter(&self) -> impl Iterator<Item = (&[u8], u64)> + '_ {
        let mut start = 0;
        self.ends.iter().map(move |&(end, hash)| {
            let s = &self.bytes.as_bytes()[start..end];
            start = end;
            (s, hash)
        })
    }
}

impl TermBatch {
    /// An empty part.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Makes room for about `strings` more strings of `bytes` bytes in all (shards fill
    /// unevenly: a little slack each, and a list grows if it must).
    pub fn reserve(&mut self, strings: usize, bytes: usize) {
        self.order.reserve(strings);
        for list in &mut self.lists {
            list.ends.reserve(strings / SHARDS + strings / 64 + 8);
            list.bytes.reserve(bytes / SHARDS + bytes / 64 + 64);
        }
    }

    /// Adds a copy of `s`, whose hash is `hash`; returns its index in the part.
    pub fn push(&mut self, s: &str, hash: TermHash) -> usize {
        let shard = shard_of(hash.0);
        self.order.push(shard as u8);
        let list = &mut self.lists[shard];
        list.bytes.push_str(s);
        list.ends.push((list.bytes.len(), hash.0));
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
    pub fn iter(&self) -> impl Iterator<Item = (&str, TermHash)> + '_ {
        let mut taken = [0usize; SHARDS];
        self.order.iter().map(move |&shard| {
            let shard = usize::from(shard);
            let (s, hash) = self.lists[shard].get(taken[shard]);
            taken[shard] += 1;
            (s, TermHash(hash))
        })
    }
}

impl<S: AsRef<str>> FromIterator<(S, TermHash)> for TermBatch {
    fn from_iter<I: IntoIterator<Item = (S, TermHash)>>(iter: I) -> Self {
        let mut part = Self::new();
        for (s, hash) in iter {
            part.push(s.as_ref(), hash);
        }
        part
    }
}
