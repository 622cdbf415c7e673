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

/// Sorts `docs` best first: score descending, ties by `tie_break`. Every tie-break is a total
/// order on a list without repeated docnos, so the result does not depend on the input order
/// (except for [`TieBreak::Input`], which is defined by it).
pub fn sort_run(docs: &mut [RunDoc<'_>], tie_break: TieBreak) {
    match tie_break {
        TieBreak::DocnoDescending => {
            docs.sort_unstable_by(|a, b| trec_eval_order((a.docno, a.score), (b.docno, b.score)));
        }
        TieBreak::DocnoAscending => docs.sort_unstable_by(|a, b| by_score(a, b).then_with(|| a.docno.cmp(b.docno))),
        TieBreak::Rank => docs.sort_unstable_by(|a, b| {
            by_score(a, b).then_with(|| a.rank.cmp(&b.rank)).then_with(|| b.docno.cmp(a.docno))
        }),
        TieBreak::Input => docs.sort_unstable_by(|a, b| by_score(a, b).then_with(|| a.position.cmp(&b.position))),
    }
}

#[inline]
fn by_score(a: &RunDoc<'_>, b: &RunDoc<'_>) -> Ordering {
    b.score.partial_cmp(&a.score).unwrap_or(Ordering::Equal)
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
    fn docno_order_is_bytewise() {
        // strcmp order: "D10" < "D9" and uppercase before lowercase.
        let mut docs = [doc("D9", 1.0, 0, 0), doc("D10", 1.0, 0, 1), doc("d1", 1.0, 0, 2)];
        sort_run(&mut docs, TieBreak::DocnoDescending);
        assert_eq!(docs.map(|d| d.docno), ["d1", "D9", "D10"]);
    }
}
