//! Whether two keys of a list are equal ([`has_equal_keys`]), the ranking core's check for
//! tied scores: one pass over the keys into an open-addressing table of key indices, a
//! quarter full, that stops at the first key found twice. The table holds indices, not keys
//! (a key is recomputed from its index when a probe meets an occupied slot, about one probe
//! in eight), so a 1,000-key list uses 16 KiB, cleared per list, in the first-level cache.

use std::cell::RefCell;

/// Table slots per key: a quarter full, a probe meets an occupied slot about one time in eight.
const SLOTS_PER_KEY: usize = 4;

thread_local! {
    /// The per-thread table (index + 1 of the key in a slot; 0 for an empty one), reused from
    /// list to list.
    static SLOTS: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
}

/// Whether two of the `len` keys `key(0)`, …, `key(len - 1)` are equal. `key` is called
/// once per index and once more per occupied slot a probe meets, so it should be cheap (a
/// score's key is).
///
/// ```
/// # use kgeval_metrics::ranking::has_equal_scores;
/// // Through the public check on scores: ties are equal keys.
/// # use kgeval_model::{ranking::TieBreak, trec::RunDoc};
/// let doc = |docno, score| RunDoc { docno, score, rank: 0, position: 0 };
/// assert!(has_equal_scores(&[doc("a", 0.5), doc("b", 0.25), doc("c", 0.5)], TieBreak::DocnoDescending));
/// assert!(!has_equal_scores(&[doc("a", 0.5), doc("b", 0.25)], TieBreak::DocnoDescending));
/// ```
pub(crate) fn has_equal_keys(len: usize, key: impl Fn(usize) -> u64) -> bool {
    if len < 2 {
        return false;
    }
    if u32::try_from(len).is_err() {
        // Past 4 billion keys the indices do not fit a slot.
        return has_equal_keys_sorted(len, key);
    }
    let size = (len * SLOTS_PER_KEY).next_power_of_two();
    let (mask, shift) = (size - 1, 64 - size.trailing_zeros());
    // The first slot of a key: the top bits of a multiplicative hash (the fold first brings
    // the sign and exponent of a score's key down into the bits the product spreads).
    let home = |key: u64| ((key ^ (key >> 29)).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> shift) as usize;
    SLOTS.with_borrow_mut(|slots| {
        slots.clear();
        slots.resize(size, 0);
        for i in 0..len {
            let k = key(i);
            let mut slot = home(k);
            loop {
                let occupant = slots[slot];
                if occupant == 0 {
                    // `len` fits a u32 (checked above), so `i + 1` does.
                    slots[slot] = i as u32 + 1;
                    break;
                }
                if key(occupant as usize - 1) == k {
                    return true;
                }
                slot = (slot + 1) & mask;
            }
        }
        false
    })
}

/// [`has_equal_keys`] by sorting a copy of the keys: for lists too long for the table.
fn has_equal_keys_sorted(len: usize, key: impl Fn(usize) -> u64) -> bool {
    let mut keys: Vec<u64> = (0..len).map(key).collect();
    keys.sort_unstable();
    keys.windows(2).any(|pair| pair[0] == pair[1])
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The answer of a std set, on lists with few distinct keys (equal ones likely) and
        /// on keys spread over the whole range (equal ones rare, probes still meeting other
        /// keys' slots); the same for the sorting fallback.
        #[test]
        fn agrees_with_a_std_set(
            small in proptest::collection::vec(0u64..500, 0..300),
            wide in proptest::collection::vec(proptest::num::u64::ANY, 0..300),
            repeat in proptest::option::of(0usize..300),
        ) {
            for mut keys in [small, wide] {
                if let Some(at) = repeat.filter(|&at| at < keys.len()) {
                    keys.push(keys[at]);
                }
                let mut seen = std::collections::HashSet::new();
                let expected = !keys.iter().all(|k| seen.insert(*k));
                proptest::prop_assert_eq!(has_equal_keys(keys.len(), |i| keys[i]), expected);
                proptest::prop_assert_eq!(has_equal_keys_sorted(keys.len(), |i| keys[i]), expected);
            }
        }
    }
}
