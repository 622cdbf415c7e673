//! The order of a retrieved list: score descending, then a named [`TieBreak`]. trec_eval's
//! comparison (`trec_eval_order`) is shared with [`order`](super::order) under
//! [`TiePolicy::TrecEval`](kgeval_model::ranking::TiePolicy::TrecEval).

use std::cmp::Ordering;

use kgeval_model::ir::{RunDoc, TieBreak};

/// trec_eval's comparison: higher score first, equal scores by identifier descending (byte
/// order). Scores are never NaN (readers reject them).
#[inline]
pub fn trec_eval_order<K: Ord + ?Sized>(a: (&K, f64), b: (&K, f64)) -> Ordering {
    b.1.partial_cmp(&a.1).unwrap_or(Ordering::Equal).then_with(|| b.0.cmp(a.0))
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
/// `tie_break`. Equal keys mean equal scores (`-0.0` and `0.0` are equal, as in trec_eval's
/// `>`/`<` comparison). Sorting 16-byte integer keys, then only the runs of equal scores by
/// the tie-break, is what makes a 1,000-document topic cheap; `order` is reused.
pub fn rank_order(docs: &[RunDoc<'_>], tie_break: TieBreak, order: &mut Vec<(u64, u32)>) {
    order.clear();
    order.extend(docs.iter().enumerate().map(|(i, d)| (descending_key(d.score), i as u32)));
    order.sort_unstable();
    let tie = |a: &(u64, u32), b: &(u64, u32)| {
        let (a, b) = (&docs[a.1 as usize], &docs[b.1 as usize]);
        match tie_break {
            TieBreak::DocnoDescending => b.docno.cmp(a.docno),
            TieBreak::DocnoAscending => a.docno.cmp(b.docno),
            TieBreak::Rank => a.rank.cmp(&b.rank).then_with(|| b.docno.cmp(a.docno)),
            TieBreak::Input => a.position.cmp(&b.position),
        }
    };
    let mut start = 0;
    while start < order.len() {
        let key = order[start].0;
        let end = start + order[start..].iter().take_while(|o| o.0 == key).count();
        if end - start > 1 {
            order[start..end].sort_unstable_by(tie);
        }
        start = end;
    }
}

/// An integer that sorts ascending as `score` sorts descending (IEEE total order, with
/// `-0.0` folded onto `0.0`).
#[inline]
fn descending_key(score: f64) -> u64 {
    let bits = if score == 0.0 { 0 } else { score.to_bits() };
    let ascending = if bits >> 63 == 1 { !bits } else { bits | (1 << 63) };
    !ascending
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(docno: &str, score: f64, rank: i64, position: u64) -> RunDoc<'_> {
        RunDoc { docno, score, rank, position }
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
    }

    #[test]
    fn keys_follow_the_float_order() {
        let scores = [f64::MIN, -2.5, -1e-300, -0.0, 0.0, 1e-300, 0.5, 2.5, f64::MAX];
        for pair in scores.windows(2) {
            assert!(descending_key(pair[0]) >= descending_key(pair[1]), "{pair:?}");
        }
        assert_eq!(descending_key(-0.0), descending_key(0.0));
    }

    proptest::proptest! {
        /// The key sort gives the comparison sort's order under every tie-break.
        #[test]
        fn key_order_equals_comparison_order(
            lines in proptest::collection::vec((0u8..12, 0u8..5, -3i64..3), 0..60),
        ) {
            let docnos: Vec<String> = (0..lines.len()).map(|i| format!("d{}", i * 7 % 13 + i)).collect();
            let docs: Vec<RunDoc<'_>> = lines
                .iter()
                .zip(&docnos)
                .enumerate()
                .map(|(i, (&(_, s, r), docno))| RunDoc { docno, score: f64::from(s) - 2.0, rank: r, position: i as u64 })
                .collect();
            for tie_break in TieBreak::ALL {
                let mut by_comparison = docs.clone();
                by_comparison.sort_by(|a, b| {
                    b.score.partial_cmp(&a.score).unwrap_or(Ordering::Equal).then_with(|| match tie_break {
                        TieBreak::DocnoDescending => b.docno.cmp(a.docno),
                        TieBreak::DocnoAscending => a.docno.cmp(b.docno),
                        TieBreak::Rank => a.rank.cmp(&b.rank).then_with(|| b.docno.cmp(a.docno)),
                        TieBreak::Input => a.position.cmp(&b.position),
                    })
                });
                let mut by_key = docs.clone();
                sort_run(&mut by_key, tie_break);
                proptest::prop_assert_eq!(by_key, by_comparison);
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
