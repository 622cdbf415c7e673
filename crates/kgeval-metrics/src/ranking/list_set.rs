//! A hash set for one list at a time, reused from list to list ([`ListSet`]): what the ranking
//! core's equal-score check and the facade's repeated-docno check share.

/// Entries of one list at a time: open addressing with linear probing over 8-byte slots (the
/// upper half of an entry's hash beside its payload, the caller deciding equality; 0 marks an
/// empty slot), cleared by [`reset`](Self::reset) over the part the list uses only — a
/// 1,000-entry list clears 16 KiB, which stays in the first-level cache with the probes, and
/// nothing is allocated once the table is large enough. Keep one per thread (`thread_local!`).
#[derive(Debug, Default)]
pub struct ListSet {
    /// The slots; the first `used` belong to the current list.
    slots: Vec<u64>,
    /// The current list's table size: a power of two, at least twice the list.
    used: usize,
    /// 64 − log2(`used`): the shift that turns a product into a slot.
    shift: u32,
}

/// The upper half of a slot: a hashed entry's hash bits.
const HASH_BITS: u64 = !0xffff_ffff;

impl ListSet {
    /// An empty set (allocates on the first [`reset`](Self::reset)).
    #[must_use]
    pub const fn new() -> Self {
        ListSet { slots: Vec::new(), used: 0, shift: 64 }
    }

    /// Starts a list of up to `len` entries, forgetting the previous list's.
    pub fn reset(&mut self, len: usize) {
        self.used = (2 * len).next_power_of_two().max(16);
        self.shift = 64 - self.used.trailing_zeros();
        if self.slots.len() < self.used {
            self.slots = vec![0; self.used];
        } else {
            self.slots[..self.used].fill(0);
        }
    }

    /// The first slot to probe for `hash` (Fibonacci hashing: the top bits of the product).
    #[inline]
    fn home(&self, hash: u64) -> usize {
        (hash.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize
    }

    /// Adds an entry whose key hashes to `hash`, carrying `payload` (an index into the
    /// caller's list, below `u32::MAX`); false when an entry with the same upper half of the
    /// hash for which `same(its payload)` holds was added since the last
    /// [`reset`](Self::reset).
    ///
    /// ```
    /// use kgeval_metrics::ranking::ListSet;
    /// let names = ["a", "b", "a"];
    /// let mut set = ListSet::new();
    /// set.reset(names.len());
    /// let hash = |name: &str| name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    /// let mut fresh = names.iter().enumerate().map(|(i, name)| set.insert(hash(name), i as u32, |j| names[j as usize] == *name));
    /// assert_eq!(fresh.by_ref().collect::<Vec<_>>(), [true, true, false]);
    /// ```
    #[inline]
    pub fn insert(&mut self, hash: u64, payload: u32, same: impl Fn(u32) -> bool) -> bool {
        self.upsert(hash, payload, same, |found| found).is_none()
    }

    /// [`insert`](Self::insert) that also finds: adds `payload` and returns `None` when no
    /// entry with the same upper half of `hash` satisfies `same`; otherwise returns that
    /// entry's payload and replaces it with `update(payload)`.
    ///
    /// ```
    /// use kgeval_metrics::ranking::ListSet;
    /// let mut set = ListSet::new();
    /// set.reset(2);
    /// assert_eq!(set.upsert(5 << 32, 1, |_| true, |p| p + 10), None);
    /// assert_eq!(set.upsert(5 << 32, 2, |_| true, |p| p + 10), Some(1));
    /// assert_eq!(set.get(5 << 32, |_| true), Some(11));
    /// ```
    #[inline]
    pub fn upsert(
        &mut self,
        hash: u64,
        payload: u32,
        same: impl Fn(u32) -> bool,
        update: impl FnOnce(u32) -> u32,
    ) -> Option<u32> {
        let tag = hash & HASH_BITS;
        match self.probe(hash, same) {
            Err(empty) => {
                self.slots[empty] = entry(tag, payload);
                None
            }
            Ok(slot) => {
                let found = payload_of(self.slots[slot]);
                self.slots[slot] = entry(tag, update(found));
                Some(found)
            }
        }
    }

    /// The payload of the entry added with a hash of the same upper half for which
    /// `same(its payload)` holds, if any (entries added with [`insert`](Self::insert)).
    #[inline]
    #[must_use]
    pub fn get(&self, hash: u64, same: impl Fn(u32) -> bool) -> Option<u32> {
        self.probe(hash, same).ok().map(|slot| payload_of(self.slots[slot]))
    }

    /// The slot of the entry with `hash`'s upper half that `same` accepts (`Ok`), or the empty
    /// slot where such an entry would go (`Err`).
    // Always inlined: called once per document of a list, with a closure the caller's loop
    // can then keep in registers (a call per document cost a sixth of the check).
    #[inline(always)]
    fn probe(&self, hash: u64, same: impl Fn(u32) -> bool) -> Result<usize, usize> {
        let tag = hash & HASH_BITS;
        let mask = self.used - 1;
        let mut slot = self.home(hash);
        loop {
            let stored = self.slots[slot];
            if stored == 0 {
                return Err(slot);
            }
            if stored & HASH_BITS == tag && same(payload_of(stored)) {
                return Ok(slot);
            }
            slot = (slot + 1) & mask;
        }
    }
}

/// A slot's entry: the hash's upper half, the payload + 1 (never 0, the empty slot).
#[inline]
fn entry(tag: u64, payload: u32) -> u64 {
    tag | (u64::from(payload.min(u32::MAX - 1)) + 1)
}

/// The payload of a slot's entry.
#[inline]
fn payload_of(stored: u64) -> u32 {
    (stored as u32).wrapping_sub(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Insert, get and upsert agree with a std map, over several lists in one table (a long
        /// list, then shorter ones: the cleared prefix is all a list sees).
        #[test]
        fn agrees_with_a_std_set(lists in proptest::collection::vec(proptest::collection::vec(0u64..40, 0..80), 1..5)) {
            let mut set = ListSet::new();
            for list in &lists {
                set.reset(list.len());
                // upsert: the first payload back, then what `update` made of it.
                let mut seen = std::collections::HashMap::new();
                for (i, &key) in list.iter().enumerate() {
                    let found = set.upsert(key << 32, i as u32, |j| list[j as usize % 1000] == key, |p| p + 1000);
                    proptest::prop_assert_eq!(found, seen.get(&key).copied());
                    seen.entry(key).and_modify(|p| *p += 1000).or_insert(i as u32);
                }
                set.reset(list.len());
                let mut seen = std::collections::HashSet::new();
                for (i, &key) in list.iter().enumerate() {
                    // A hash with few distinct upper halves: equality is the caller's.
                    let hash = (key % 3) << 32;
                    let first = list.iter().position(|&other| other == key).map(|j| j as u32);
                    proptest::prop_assert_eq!(set.get(hash, |j| list[j as usize] == key), first.filter(|&j| (j as usize) < i));
                    let fresh = set.insert(hash, i as u32, |j| list[j as usize] == key);
                    proptest::prop_assert_eq!(fresh, seen.insert(key));
                }
            }
        }
    }
}
