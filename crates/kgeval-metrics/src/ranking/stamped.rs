//! A hash set for one list at a time, reused from list to list ([`StampedSet`]): what the
//! ranking core's equal-score check and the facade's repeated-docno check share.

/// Entries of one list at a time: open addressing with linear probing over (hash, payload,
/// stamp), a slot counting as empty unless it carries the current list's stamp, so starting a
/// list costs nothing (no clearing, no allocation once the table is large enough). Keep one
/// per thread (`thread_local!`).
#[derive(Debug, Default)]
pub struct StampedSet {
    /// (hash, payload, stamp) per slot; the length is a power of two, at least twice the list.
    slots: Vec<(u64, u32, u32)>,
    /// The current list's stamp (never 0, the stamp of a fresh slot).
    stamp: u32,
}

impl StampedSet {
    /// An empty set (allocates on the first [`reset`](Self::reset)).
    #[must_use]
    pub const fn new() -> Self {
        StampedSet { slots: Vec::new(), stamp: 0 }
    }

    /// Starts a list of up to `len` entries, forgetting the previous list's.
    pub fn reset(&mut self, len: usize) {
        let wanted = (2 * len).next_power_of_two().max(16);
        self.stamp = self.stamp.wrapping_add(1);
        if self.slots.len() < wanted || self.stamp == 0 {
            self.slots = vec![(0, 0, 0); wanted.max(self.slots.len())];
            self.stamp = 1;
        }
    }

    /// Adds an entry whose key hashes to `hash`, carrying `payload` (an index into the
    /// caller's list); false when an entry of equal hash for which `same(its payload)` holds
    /// was added since the last [`reset`](Self::reset). A `hash` that is the key itself (or a
    /// bijection of it) makes `same` trivially true.
    ///
    /// ```
    /// use kgeval_metrics::ranking::StampedSet;
    /// let mut set = StampedSet::new();
    /// set.reset(3);
    /// assert!(set.insert(7, 0, |_| true) && set.insert(8, 1, |_| true));
    /// assert!(!set.insert(7, 2, |_| true));
    /// set.reset(3);
    /// assert!(set.insert(7, 0, |_| true));
    /// ```
    pub fn insert(&mut self, hash: u64, payload: u32, same: impl Fn(u32) -> bool) -> bool {
        let mask = self.slots.len() - 1;
        // Fibonacci hashing: the top bits of the product.
        let shift = 64 - self.slots.len().trailing_zeros();
        let mut slot = (hash.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> shift) as usize;
        loop {
            let (stored, other, stamp) = self.slots[slot];
            if stamp != self.stamp {
                self.slots[slot] = (hash, payload, self.stamp);
                return true;
            }
            if stored == hash && same(other) {
                return false;
            }
            slot = (slot + 1) & mask;
        }
    }
}
