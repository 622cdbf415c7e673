//! The one order of a scored list: score descending, then a named [`TieBreak`]. Retrieved
//! lists ([`sort_run`], [`rank_order`]), candidate pools ([`order`](super::order)) and the
//! rank of one target under an order policy ([`rank_of`](super::rank_of)) all compare through
//! [`score_key`] and [`break_tie`], so trec_eval's order (and every other) is written once.

use std::cmp::Ordering;

use kgeval_model::ranking::TieBreak;
use kgeval_model::trec::RunDoc;

use super::equal_keys::has_equal_keys;
use super::rank::quantize_12dp;

/// What a tie-break looks at besides the score: the identifier, the rank column and the input
/// position (lists without a rank column use their input position there too).
#[derive(Debug)]
pub struct TieKey<'a, K: ?Sized> {
    /// The identifier (docno, IRI, entity id).
    pub id: &'a K,
    /// The rank column ([`TieBreak::Rank`]).
    pub rank: i64,
    /// The position in the input ([`TieBreak::Input`]).
    pub position: u64,
}

impl<K: ?Sized> Clone for TieKey<'_, K> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<K: ?Sized> Copy for TieKey<'_, K> {}

/// An integer that sorts ascending as the score sorts descending under `tie_break`: IEEE
/// total order with `-0.0` folded onto `0.0` (so equal keys are equal scores, as in
/// trec_eval's `>`/`<` comparison); [`TieBreak::Lexicographic`] compares the score rounded to
/// 12 decimal places. Scores are never NaN (readers reject them).
#[inline]
#[must_use]
pub fn score_key(score: f64, tie_break: TieBreak) -> u64 {
    key_of(score, tie_break == TieBreak::Lexicographic)
}

/// [`score_key`] with the tie-break's one effect on keys decided by the caller (once per list,
/// not per score): `quantize` for [`TieBreak::Lexicographic`].
#[inline]
fn key_of(score: f64, quantize: bool) -> u64 {
    let score = if quantize { quantize_12dp(score) } else { score };
    let bits = if score == 0.0 { 0 } else { score.to_bits() };
    let ascending = if bits >> 63 == 1 { !bits } else { bits | (1 << 63) };
    !ascending
}

/// A score's bits with `-0.0` folded onto `0.0`: equal for equal scores (never NaN), which
/// is all a check for ties needs (no order, unlike [`score_key`]).
#[inline]
fn equality_bits(score: f64) -> u64 {
    if score == 0.0 {
        0
    } else {
        score.to_bits()
    }
}

/// How `a` and `b`, two candidates with equal scores, are ordered under `tie_break` (`Less`:
/// `a` first). `Equal` only for two candidates with one identifier (and one rank), which no
/// valid run has.
#[inline]
pub fn break_tie<K: Ord + ?Sized>(tie_break: TieBreak, a: TieKey<'_, K>, b: TieKey<'_, K>) -> Ordering {
    match tie_break {
        TieBreak::DocnoDescending => b.id.cmp(a.id),
        TieBreak::DocnoAscending | TieBreak::Lexicographic => a.id.cmp(b.id),
        TieBreak::Rank => a.rank.cmp(&b.rank).then_with(|| b.id.cmp(a.id)),
        TieBreak::Input => a.position.cmp(&b.position),
    }
}

/// Sorts `docs` best first: score descending, ties by `tie_break` (the order of
/// [`rank_order`]). Every tie-break is a total order on a list without repeated docnos, so
/// the result does not depend on the input order (except for [`TieBreak::Input`], which is
/// defined by it).
pub fn sort_run(docs: &mut [RunDoc<'_>], tie_break: TieBreak) {
    let mut order = Vec::new();
    rank_order(docs, tie_break, &mut order);
    let sorted: Vec<RunDoc<'_>> = order.iter().map(|&(_, i)| docs[i as usize]).collect();
    docs.copy_from_slice(&sorted);
}

/// Fills `order` with `(key, index)` for `docs` best first: score descending, ties by
/// `tie_break`. Equal keys mean equal scores ([`score_key`]). Sorting 16-byte integer keys,
/// then only the runs of equal scores by the tie-break, is what makes a 1,000-document topic
/// cheap; `order` is reused.
pub fn rank_order(docs: &[RunDoc<'_>], tie_break: TieBreak, order: &mut Vec<(u64, u32)>) {
    let tie_key = |i: u32| {
        let d = &docs[i as usize];
        TieKey { id: d.docno, rank: d.rank, position: d.position }
    };
    sort_keyed(docs.iter().map(|d| d.score), tie_key, tie_break, order);
}

/// The one sort: `(score_key, index)` of every score, best first, equal keys by
/// [`break_tie`] then by index (a stable sort's order).
pub(crate) fn sort_keyed<'k, K: Ord + ?Sized + 'k>(
    scores: impl Iterator<Item = f64>,
    tie_key: impl Fn(u32) -> TieKey<'k, K>,
    tie_break: TieBreak,
    order: &mut Vec<(u64, u32)>,
) {
    order.clear();
    order.extend(scores.enumerate().map(|(i, score)| (score_key(score, tie_break), i as u32)));
    order.sort_unstable();
    let mut start = 0;
    while start < order.len() {
        let key = order[start].0;
        let end = start + order[start..].iter().take_while(|o| o.0 == key).count();
        if end - start > 1 {
            order[start..end]
                .sort_unstable_by(|a, b| break_tie(tie_break, tie_key(a.1), tie_key(b.1)).then(a.1.cmp(&b.1)));
        }
        start = end;
    }
}

/// The positions [`rank_order`] gives the documents `selected` (distinct indices into `docs`),
/// found by counting instead of sorting the list: each document is compared with the selected
/// ones only, so for a few selected documents in a long list (the judged documents of a
/// topic) it costs a fraction of the sort. `positions[s]` is the 0-based position of
/// `docs[selected[s]]`.
pub fn positions_of(docs: &[RunDoc<'_>], tie_break: TieBreak, selected: &[u32], positions: &mut Vec<u32>) {
    count_positions(docs, tie_break, selected, positions, false);
}

/// [`positions_of`] and [`has_equal_scores`] over one copy of the scores (each rounded once
/// for [`TieBreak::Lexicographic`]): fills `positions` and returns whether two documents share
/// a score; equal scores are counted only when they do.
pub fn positions_and_ties(
    docs: &[RunDoc<'_>],
    tie_break: TieBreak,
    selected: &[u32],
    positions: &mut Vec<u32>,
) -> bool {
    count_positions(docs, tie_break, selected, positions, true)
}

/// [`positions_and_ties`] for a list held as columns: its scores one after the other
/// (`scores[i]` is document `i`'s) and `tie_key(i)` what its tie-break looks at. A columnar
/// front end (an Arrow batch) hands its score column as it is: the scores are not copied
/// (except to be rounded, for [`TieBreak::Lexicographic`]).
pub fn positions_and_ties_in<'k>(
    scores: &[f64],
    tie_key: impl Fn(usize) -> TieKey<'k, str>,
    tie_break: TieBreak,
    selected: &[u32],
    positions: &mut Vec<u32>,
) -> bool {
    if tie_break != TieBreak::Lexicographic {
        return count_in(scores, tie_key, tie_break, selected, positions, true);
    }
    SCORES.with_borrow_mut(|rounded| {
        rounded.clear();
        rounded.extend(scores.iter().map(|&score| quantize_12dp(score)));
        count_in(rounded, tie_key, tie_break, selected, positions, true)
    })
}

/// [`positions_of`], and with `check_ties` whether two documents share a score (`false`
/// without): the scores copied once into a contiguous list (each rounded for
/// [`TieBreak::Lexicographic`]), then counted ([`count_in`]).
fn count_positions(
    docs: &[RunDoc<'_>],
    tie_break: TieBreak,
    selected: &[u32],
    positions: &mut Vec<u32>,
    check_ties: bool,
) -> bool {
    let quantize = tie_break == TieBreak::Lexicographic;
    let tie_key = |i: usize| {
        let d = &docs[i];
        TieKey { id: d.docno, rank: d.rank, position: d.position }
    };
    SCORES.with_borrow_mut(|scores| {
        scores.clear();
        scores.extend(docs.iter().map(|doc| if quantize { quantize_12dp(doc.score) } else { doc.score }));
        count_in(scores, tie_key, tie_break, selected, positions, check_ties)
    })
}

/// The counting behind [`positions_of`] and [`positions_and_ties`], on contiguous `scores`
/// (rounded already for [`TieBreak::Lexicographic`]).
///
/// A document's position is the number of documents with a greater score (as compared under
/// `tie_break`: rounded for [`TieBreak::Lexicographic`]; `-0.0` equals `0.0`), plus the equal
/// ones the tie-break puts first. Each selected document's counts are one branch-free pass
/// over the scores that the compiler vectorises.
fn count_in<'k>(
    scores: &[f64],
    tie_key: impl Fn(usize) -> TieKey<'k, str>,
    tie_break: TieBreak,
    selected: &[u32],
    positions: &mut Vec<u32>,
    check_ties: bool,
) -> bool {
    let tied = check_ties && has_equal_keys(scores.len(), |i| equality_bits(scores[i]));
    // A list known to have no equal scores needs no count of them.
    let may_tie = !check_ties || tied;
    positions.clear();
    positions.extend(selected.iter().map(|&i| {
        let i = i as usize;
        let score = scores[i];
        let above = count_where(scores, |other| other > score);
        if !may_tie || count_where(scores, |other| other == score) == 1 {
            return above;
        }
        // Equal scores: the tie-break, then the input index (as `sort_keyed`).
        let first = |j: usize| break_tie(tie_break, tie_key(j), tie_key(i)).then(j.cmp(&i)) == Ordering::Less;
        let tied_ahead = scores.iter().enumerate().filter(|&(j, &other)| other == score && j != i && first(j)).count();
        above + tied_ahead as u32
    }));
    tied
}

/// How many of `scores` `counted` holds for, with the widest vectors the CPU has: a sum
/// compiled for AVX-512 or AVX2 ([`count_where_summed`]) or the portable loop
/// ([`count_where_in_lanes`]), the one run chosen at run time (the wheel and the binary are
/// built for any x86-64). Per judged document of a topic this is one pass over its scores,
/// the largest part of ranking it.
#[inline]
fn count_where(scores: &[f64], counted: impl Fn(f64) -> bool) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: `count_where_avx512` requires AVX-512F alone, which this CPU has (just
            // detected); its body is safe code compiled for that feature.
            #[allow(unsafe_code)]
            return unsafe { count_where_avx512(scores, counted) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: as above, for AVX2.
            #[allow(unsafe_code)]
            return unsafe { count_where_avx2(scores, counted) };
        }
    }
    count_where_in_lanes(scores, counted)
}

/// [`count_where_summed`] compiled for AVX-512F.
///
/// # Safety
/// The CPU must have AVX-512F. (An `unsafe fn`: a safe function with target features needs
/// Rust 1.86, past the workspace's MSRV.)
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[allow(unsafe_code)]
unsafe fn count_where_avx512(scores: &[f64], counted: impl Fn(f64) -> bool) -> u32 {
    count_where_summed(scores, counted)
}

/// How many of `scores` `counted` holds for, as a plain sum: with AVX2 or AVX-512 the
/// compiler unrolls it over several vector accumulators by itself (the eight explicit lanes
/// of [`count_where_in_lanes`], which suit SSE2, it would vectorise across lanes instead,
/// with gathers).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline(always)]
fn count_where_summed(scores: &[f64], counted: impl Fn(f64) -> bool) -> u32 {
    let counted: u64 = scores.iter().map(|&other| u64::from(counted(other))).sum();
    // A topic's documents are numbered by u32 everywhere in the engine.
    u32::try_from(counted).unwrap_or(u32::MAX)
}

/// [`count_where_summed`] compiled for AVX2.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(unsafe_code)]
unsafe fn count_where_avx2(scores: &[f64], counted: impl Fn(f64) -> bool) -> u32 {
    count_where_summed(scores, counted)
}

/// How many of `scores` `counted` holds for: eight independent lanes of counters (no
/// dependency from one score to the next), which the compiler vectorises. The lanes are as
/// wide as a score, so a comparison's mask is added as it is (32-bit lanes cost a pack of the
/// masks per comparison).
#[inline(always)]
fn count_where_in_lanes(scores: &[f64], counted: impl Fn(f64) -> bool) -> u32 {
    let mut lanes = [0_u64; 8];
    let mut chunks = scores.chunks_exact(8);
    for chunk in &mut chunks {
        for (lane, &other) in lanes.iter_mut().zip(chunk) {
            *lane += u64::from(counted(other));
        }
    }
    let counted =
        lanes.iter().sum::<u64>() + chunks.remainder().iter().map(|&other| u64::from(counted(other))).sum::<u64>();
    // A topic's documents are numbered by u32 everywhere in the engine.
    u32::try_from(counted).unwrap_or(u32::MAX)
}

/// Whether two of `docs` share a score under `tie_break` ([`score_key`]), without sorting.
#[must_use]
pub fn has_equal_scores(docs: &[RunDoc<'_>], tie_break: TieBreak) -> bool {
    has_equal_keys(docs.len(), |i| score_key(docs[i].score, tie_break))
}

thread_local! {
    /// [`count_positions`]' contiguous scores, kept per thread from list to list.
    static SCORES: std::cell::RefCell<Vec<f64>> = const { std::cell::RefCell::new(Vec::new()) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ranking::{order, rank_of};
    use kgeval_model::ranking::TiePolicy;

    fn doc(docno: &str, score: f64, rank: i64, position: u64) -> RunDoc<'_> {
        RunDoc { docno, score, rank, position }
    }

    proptest::proptest! {
        /// Every compiled form of the count (the one this CPU runs, the portable lanes, the
        /// plain sum) counts the same, on lists of every length around the vector widths.
        #[test]
        fn every_count_where_agrees(
            scores in proptest::collection::vec(0u8..8, 0..70),
            pivot in 0u8..8,
        ) {
            let scores: Vec<f64> = scores.iter().map(|&s| f64::from(s) / 4.0).collect();
            let pivot = f64::from(pivot) / 4.0;
            let expected = scores.iter().filter(|&&s| s > pivot).count() as u32;
            proptest::prop_assert_eq!(count_where(&scores, |s| s > pivot), expected);
            proptest::prop_assert_eq!(count_where_in_lanes(&scores, |s| s > pivot), expected);
            proptest::prop_assert_eq!(count_where_summed(&scores, |s| s > pivot), expected);
        }
    }

    #[test]
    fn every_tie_break_on_the_spec_example() {
        // q1: d1, d2, d3 all at 0.5, written in that order with ranks 1, 2, 3; d0 above them.
        let input = [doc("d1", 0.5, 1, 0), doc("d2", 0.5, 2, 1), doc("d0", 0.9, 9, 2), doc("d3", 0.5, 3, 3)];
        let sorted = |tie_break| {
            let mut docs = input;
            sort_run(&mut docs, tie_break);
            docs.iter().map(|d| d.docno).collect::<Vec<_>>()
        };
        assert_eq!(sorted(TieBreak::DocnoDescending), ["d0", "d3", "d2", "d1"]);
        assert_eq!(sorted(TieBreak::DocnoAscending), ["d0", "d1", "d2", "d3"]);
        assert_eq!(sorted(TieBreak::Rank), ["d0", "d1", "d2", "d3"]);
        assert_eq!(sorted(TieBreak::Input), ["d0", "d1", "d2", "d3"]);
        assert_eq!(sorted(TieBreak::Lexicographic), ["d0", "d1", "d2", "d3"]);
    }

    #[test]
    fn counted_positions_are_the_sorted_ones() {
        // Tie-heavy lists under every tie-break; a few selected documents or many (both
        // counting branches), docnos and rank columns that disagree with the input order.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let names: Vec<String> = (0..300).map(|i| format!("d{i}")).collect();
        for case in 0..200 {
            let len = next(300) as usize;
            let mut ids: Vec<usize> = (0..300).collect();
            for i in 0..len {
                ids.swap(i, i + next((300 - i) as u64) as usize);
            }
            let docs: Vec<RunDoc<'_>> = (0..len)
                .map(|i| {
                    let score = if case % 3 == 0 { next(5) as f64 * 0.5 } else { next(1000) as f64 - 500.0 };
                    doc(&names[ids[i]], score, next(50) as i64, (len - i) as u64)
                })
                .collect();
            let selected: Vec<u32> =
                (0..len as u32).filter(|_| next(if case % 2 == 0 { 20 } else { 2 }) == 0).collect();
            for tie_break in [
                TieBreak::DocnoDescending,
                TieBreak::DocnoAscending,
                TieBreak::Rank,
                TieBreak::Input,
                TieBreak::Lexicographic,
            ] {
                let mut order = Vec::new();
                rank_order(&docs, tie_break, &mut order);
                let mut positions = Vec::new();
                positions_of(&docs, tie_break, &selected, &mut positions);
                for (&i, &position) in selected.iter().zip(&positions) {
                    assert_eq!(order[position as usize].1, i, "case {case}, {tie_break:?}");
                }
                let tied = order.windows(2).any(|w| w[0].0 == w[1].0);
                assert_eq!(has_equal_scores(&docs, tie_break), tied);
                let mut fused = Vec::new();
                assert_eq!(positions_and_ties(&docs, tie_break, &selected, &mut fused), tied);
                assert_eq!(fused, positions, "case {case}, {tie_break:?}");
            }
        }
    }

    #[test]
    fn keys_follow_the_float_order() {
        let scores = [f64::MIN, -2.5, -1e-300, -0.0, 0.0, 1e-300, 0.5, 2.5, f64::MAX];
        for pair in scores.windows(2) {
            assert!(score_key(pair[0], TieBreak::Input) >= score_key(pair[1], TieBreak::Input), "{pair:?}");
        }
        assert_eq!(score_key(-0.0, TieBreak::Input), score_key(0.0, TieBreak::Input));
        assert_eq!(score_key(0.5 + 1e-13, TieBreak::Lexicographic), score_key(0.5, TieBreak::Lexicographic));
    }

    #[test]
    fn minus_zero_ties_with_zero_in_rows_and_columns() {
        // c first; then the tie of b and a at ±0, docno descending: b, a.
        let docs = [doc("a", -0.0, 1, 0), doc("b", 0.0, 2, 1), doc("c", 1.0, 3, 2)];
        let mut positions = Vec::new();
        assert!(positions_and_ties(&docs, TieBreak::DocnoDescending, &[0, 1], &mut positions));
        assert_eq!(positions, [2, 1]);
        let scores = [-0.0, 0.0, 1.0];
        let tie_key = |i: usize| TieKey { id: ["a", "b", "c"][i], rank: i as i64 + 1, position: i as u64 };
        assert!(positions_and_ties_in(&scores, tie_key, TieBreak::DocnoDescending, &[0, 1], &mut positions));
        assert_eq!(positions, [2, 1]);
        assert!(!positions_and_ties_in(&[0.5, 0.0, 1.0], tie_key, TieBreak::DocnoDescending, &[0, 1], &mut positions));
        assert_eq!(positions, [1, 2]);
    }

    proptest::proptest! {
        /// The key sort gives the float comparison sort's order under every tie-break, and
        /// the rank of each candidate under the order policy is its position in that order.
        #[test]
        fn key_order_equals_comparison_order_and_ranks(
            lines in proptest::collection::vec((0u8..12, 0u8..5, -3i64..3), 0..60),
        ) {
            let docnos: Vec<String> = (0..lines.len()).map(|i| format!("d{}", i * 7 % 13 + i)).collect();
            let docs: Vec<RunDoc<'_>> = lines
                .iter()
                .zip(&docnos)
                .enumerate()
                .map(|(i, (&(_, s, r), docno))| RunDoc { docno, score: f64::from(s) - 2.0, rank: r, position: i as u64 })
                .collect();
            fn key<'a>(d: &RunDoc<'a>) -> TieKey<'a, str> {
                TieKey { id: d.docno, rank: d.rank, position: d.position }
            }
            for tie_break in TieBreak::ALL {
                let mut by_comparison = docs.clone();
                by_comparison.sort_by(|a, b| {
                    b.score.partial_cmp(&a.score).unwrap_or(Ordering::Equal).then_with(|| break_tie(tie_break, key(a), key(b)))
                });
                let mut by_key = docs.clone();
                sort_run(&mut by_key, tie_break);
                proptest::prop_assert_eq!(&by_key, &by_comparison);
                // Pools (identifier, score) under the order policy: the same order (their rank
                // column is their position, so `Rank` is not compared).
                if tie_break == TieBreak::Rank {
                    continue;
                }
                let pool: Vec<(&str, f64)> = docs.iter().map(|d| (d.docno, d.score)).collect();
                let policy = TiePolicy::Order(tie_break);
                let ordered: Vec<&str> = order(&pool, policy).iter().map(|&i| pool[i as usize].0).collect();
                let expected: Vec<&str> = by_key.iter().map(|d| d.docno).collect();
                proptest::prop_assert_eq!(&ordered, &expected);
                for (position, &index) in order(&pool, policy).iter().enumerate() {
                    proptest::prop_assert_eq!(rank_of(&pool, index as usize, policy), (position + 1) as f64);
                }
            }
        }
    }

    #[test]
    fn docno_order_is_bytewise() {
        // strcmp order: "D10" < "D9" and uppercase before lowercase.
        let mut docs = [doc("D9", 1.0, 0, 0), doc("D10", 1.0, 0, 1), doc("d1", 1.0, 0, 2)];
        sort_run(&mut docs, TieBreak::DocnoDescending);
        assert_eq!(docs.map(|d| d.docno), ["d1", "D9", "D10"]);
    }
}
