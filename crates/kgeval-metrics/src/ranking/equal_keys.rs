//! Whether two keys of a list are equal ([`has_equal_keys`]), the ranking core's check for
//! tied scores: one pass over the keys into an open-addressing table of key indices, a
//! quarter full, that stops at the first key found twice. The table holds indices, not keys
//! (a key is recomputed from its index when a probe meets an occupied slot, about one probe
//! in eight), so a 1,000-key list uses 16 KiB, cleared per list, in the first-level cache.

use std::cell::RefCell;

/// Table slots per key: a quarter full, a probe meets an occupied slot about one time in eight.
const SLOTS_PER_KEY: usize = 4;

/// Probes past a key's own slot allowed per key, over the whole list, before the keys are
/// sorted instead.
const PROBE_BUDGET_PER_KEY: usize = 8;

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
    // Past 4 billion keys the indices do not fit a slot.
    let size = len.checked_mul(SLOTS_PER_KEY).and_then(usize::checked_next_power_of_two);
    let (Some(size), Ok(_)) = (size, u32::try_from(len)) else {
        return has_equal_keys_sorted(len, key);
    };
    let (mask, shift) = (size - 1, 64 - size.trailing_zeros());
    // Probes past a key's own slot, for the whole list: keys that crowd a few slots (made so,
    // since the hash is not keyed) would make the probes quadratic, so past this budget the
    // keys are sorted instead. Natural keys use about one eighth of it.
    let mut budget = PROBE_BUDGET_PER_KEY * len;
    SLOTS.with_borrow_mut(|table| {
        table.clear();
        table.resize(size, 0);
        // A slice held in registers: stores into it do not make the compiler reload the
        // vector's pointer and length (which live in thread-local memory) for every key.
        let slots = table.as_mut_slice();
        for i in 0..len {
            let k = key(i);
            let mut slot = home(k, shift);
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
                if budget == 0 {
                    return has_equal_keys_sorted(len, &key);
                }
                budget -= 1;
                slot = (slot + 1) & mask;
            }
        }
        false
    })
}

/// The first slot of `key` in a table of 2^(64 − `shift`) slots: the top bits of a
/// multiplicative hash (the fold first brings the sign and exponent of a score's key down into
/// the bits the product spreads).
#[inline]
fn home(key: u64, shift: u32) -> usize {
    ((key ^ (key >> 29)).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> shift) as usize
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

    /// Keys made to share one first slot (the hash is not keyed, so an input can do this):
    /// the probes would be quadratic, the check sorts instead and still answers right.
    #[test]
    fn keys_crowding_one_slot_are_sorted_instead() {
        const KEYS: usize = 300;
        let shift = 64 - (KEYS * SLOTS_PER_KEY).next_power_of_two().trailing_zeros();
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut keys = Vec::new();
        while keys.len() < KEYS {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if home(x, shift) == 0 {
                keys.push(x);
            }
        }
        let probes: usize = (0..KEYS).sum();
        assert!(probes > PROBE_BUDGET_PER_KEY * KEYS, "the keys exhaust the budget");
        assert!(!has_equal_keys(keys.len(), |i| keys[i]));
        keys.push(keys[KEYS / 2]);
        assert!(has_equal_keys(keys.len(), |i| keys[i]));
    }
}
