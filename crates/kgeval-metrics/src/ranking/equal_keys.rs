//! Whether two keys of a list are equal ([`has_equal_keys`]), the ranking core's check for
//! tied scores: no hash table probed per key, but two bitmaps — one pass marks each key's
//! bucket and, without a branch, the buckets marked twice; only the keys of those buckets
//! (a handful per 1,000-document list) are then compared, sorted.

use std::cell::RefCell;

/// Bitmap bits per key: at 64, a 1,000-key list shares about 8 of 65,536 buckets.
const BITS_PER_KEY: usize = 64;

/// The per-thread bitmaps and the keys of shared buckets, reused from list to list.
#[derive(Default)]
struct Buckets {
    /// A bucket's bit: some key falls in it.
    seen: Vec<u64>,
    /// A bucket's bit: two keys (or more) fall in it.
    shared: Vec<u64>,
    /// The keys that fall in a shared bucket.
    suspects: Vec<u64>,
}

thread_local! {
    static BUCKETS: RefCell<Buckets> = RefCell::new(Buckets::default());
}

/// Whether two of the `len` keys `key(0)`, …, `key(len - 1)` are equal. `key` is called
/// once or twice per index, so it should be cheap (a score's key is).
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
    let bits = (len * BITS_PER_KEY).next_power_of_two();
    let shift = 64 - bits.trailing_zeros();
    // The bucket of a key: the top bits of a multiplicative hash (the fold first brings the
    // sign and exponent down into the bits the product spreads).
    let bucket = |key: u64| ((key ^ (key >> 29)).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> shift) as usize;
    BUCKETS.with_borrow_mut(|buckets| {
        let words = bits / 64;
        for map in [&mut buckets.seen, &mut buckets.shared] {
            map.clear();
            map.resize(words, 0);
        }
        let mut any_shared = 0;
        for i in 0..len {
            let b = bucket(key(i));
            let (word, bit) = (b / 64, 1_u64 << (b % 64));
            let before = buckets.seen[word];
            buckets.seen[word] = before | bit;
            buckets.shared[word] |= before & bit;
            any_shared |= before & bit;
        }
        if any_shared == 0 {
            return false;
        }
        buckets.suspects.clear();
        for i in 0..len {
            let k = key(i);
            let b = bucket(k);
            if buckets.shared[b / 64] & (1 << (b % 64)) != 0 {
                buckets.suspects.push(k);
            }
        }
        buckets.suspects.sort_unstable();
        buckets.suspects.windows(2).any(|pair| pair[0] == pair[1])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The answer of a std set, on lists with few distinct keys (equal ones likely) and
        /// on keys spread over the whole range (equal ones rare, shared buckets still met).
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
            }
        }
    }
}
