//! Measures over tied scores that do not depend on document names (`kgeval trec --ties`):
//! the exact expectation over every order of each tie group, and the best and worst orders.
//!
//! A ranking is cut into tie groups (equal scores, as the ranking core compares them). Every
//! group is ordered uniformly at random, independently (McSherry & Najork, ECIR 2008):
//! - [`expected`](TiedRanking::values) uses a closed form where one exists (linear measures,
//!   Rndcg included, through each position's expected label, AP through pairs within a group,
//!   reciprocal rank and success through the first relevant offset, bpref and binG through the
//!   counts before each relevant document, ndcg_rel through pairs within a group); infAP sums over the compositions of the documents
//!   before each relevant one, the interpolated precisions take the maximum of independent
//!   group maxima (`compositions.rs`);
//! - `yaap`, `G` (and the exact forms beyond their budgets) are averaged over every
//!   arrangement of the groups when they are few, else estimated from seeded random orders,
//!   with the standard error beside the value;
//! - optimistic and pessimistic order each group best first or worst first for the measure.
//!
//! ```
//! use kgeval_metrics::trec::{LevelCounts, RankedRelevance, TiedRanking};
//! use kgeval_model::trec::{MeasureRequest, MeasureSet, Ties};
//!
//! // Three documents at one score, one of them relevant: the relevant one is first, second
//! // or third with probability 1/3 each.
//! let relevance = RankedRelevance { ranked: vec![0, 0, 1], level_counts: LevelCounts::from_dense(&[2, 1]), relevance_level: 1, ndcg_uses_level: false };
//! let ranking = TiedRanking::new(relevance, &[(0, 3)], Vec::new());
//! let measures = MeasureSet::from_requests(&[MeasureRequest::parse("recip_rank").unwrap()]);
//! let expected = ranking.values(measures.measures(), Ties::Expected);
//! assert!((expected[0].value - (1.0 + 1.0 / 2.0 + 1.0 / 3.0) / 3.0).abs() < 1e-15);
//! let range = ranking.values(measures.measures(), Ties::Range);
//! assert_eq!(range[0].range, Some((1.0 / 3.0, 1.0)));
//! ```

mod compositions;
mod counts;
mod expected;
mod orders;
#[cfg(test)]
use orders::SplitMix64 as SplitMix64ForTests;
#[cfg(test)]
mod tests;

pub use counts::{run_tie_counts, topic_tie_counts};
use kgeval_model::trec::{Measure, MeasureFamily, Ties};

use super::measures::RankedRelevance;

/// Whether `measure` reads only whether each ranked document is relevant (not its grade,
/// nor whether it was judged).
fn reads_only_relevance(measure: &Measure) -> bool {
    matches!(measure.family, MeasureFamily::IprecAtRecall | MeasureFamily::ElevenPtAvg | MeasureFamily::Yaap)
}

/// A run of documents sharing one score whose labels are not all equal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TieGroup {
    /// Its first position (0-based).
    pub(crate) start: usize,
    /// Its positions within the depth.
    pub(crate) len: usize,
    /// Its documents ranked past the `-M` depth (only the group the depth cuts has any).
    pub(crate) beyond: usize,
}

impl TieGroup {
    /// Every document of the group, within the depth or not.
    pub(crate) fn size(&self) -> usize {
        self.len + self.beyond
    }
}

/// A topic ready for the tie policies: its ranking in the tie-break's order with the groups
/// of equal scores.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TiedRanking {
    /// The ranking in the tie-break's order (what [`Ties::Trec`] scores).
    pub relevance: RankedRelevance,
    groups: Vec<TieGroup>,
    beyond: Vec<i64>,
}

/// A measure's value under a tie policy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TieValue {
    /// The value (expected, optimistic or pessimistic).
    pub value: f64,
    /// The standard error when the value is a Monte Carlo estimate, `None` when exact.
    pub std_error: Option<f64>,
    /// The least and greatest of the pessimistic and optimistic values ([`Ties::Range`]).
    pub range: Option<(f64, f64)>,
}

impl TiedRanking {
    /// A ranking with its runs of equal scores: `(start, len)` positions within the depth of
    /// each run of two or more documents, and `beyond`, the labels of the run the `-M` depth
    /// cuts that fall past it (empty without a depth). Runs whose labels are all equal change
    /// nothing and are dropped.
    #[must_use]
    pub fn new(relevance: RankedRelevance, runs: &[(usize, usize)], beyond: Vec<i64>) -> Self {
        let depth = relevance.ranked.len();
        let mut groups = Vec::new();
        for &(start, len) in runs {
            let len = len.min(depth.saturating_sub(start));
            let cut = start + len == depth && !beyond.is_empty();
            let beyond_here = if cut { beyond.len() } else { 0 };
            if len == 0 || len + beyond_here < 2 {
                continue;
            }
            let first = relevance.ranked[start];
            let inside = &relevance.ranked[start..start + len];
            let outside = if cut { beyond.as_slice() } else { &[] };
            if inside.iter().chain(outside).any(|&l| l != first) {
                groups.push(TieGroup { start, len, beyond: beyond_here });
            }
        }
        let beyond = if groups.last().is_some_and(|g| g.beyond > 0) { beyond } else { Vec::new() };
        TiedRanking { relevance, groups, beyond }
    }

    /// Whether some order of a tie group changes the ranking's labels.
    #[must_use]
    pub fn has_mixed_groups(&self) -> bool {
        !self.groups.is_empty()
    }

    /// The labels of group `g`: those within the depth, then those past it.
    pub(crate) fn labels(&self, g: &TieGroup) -> impl Iterator<Item = i64> + '_ {
        let outside: &[i64] = if g.beyond > 0 { &self.beyond } else { &[] };
        self.relevance.ranked[g.start..g.start + g.len].iter().chain(outside).copied()
    }

    /// The same ranking with every label reduced to relevant or not (the groups that then
    /// hold one kind only drop out): fewer arrangements for the measures that read nothing
    /// else.
    fn relevant_or_not(&self) -> TiedRanking {
        let t = &self.relevance;
        let (relevant, other) = (t.relevance_level.max(0), super::NOT_POOLED);
        let map = |l: i64| if t.is_relevant(l) { relevant } else { other };
        let relevance = RankedRelevance { ranked: t.ranked.iter().map(|&l| map(l)).collect(), ..t.clone() };
        let runs: Vec<(usize, usize)> = self.groups.iter().map(|g| (g.start, g.len)).collect();
        TiedRanking::new(relevance, &runs, self.beyond.iter().map(|&l| map(l)).collect())
    }

    /// The value of each of `measures` under `ties` ([`Ties::Trec`]: the tie-break's order).
    #[must_use]
    pub fn values(&self, measures: &[Measure], ties: Ties) -> Vec<TieValue> {
        let exact = |value| TieValue { value, std_error: None, range: None };
        if ties == Ties::Trec || self.groups.is_empty() {
            let mut values: Vec<TieValue> = measures.iter().map(|m| exact(self.relevance.value(m))).collect();
            if ties == Ties::Range {
                values.iter_mut().for_each(|v| v.range = Some((v.value, v.value)));
            }
            return values;
        }
        match ties {
            Ties::Optimistic | Ties::Pessimistic => {
                measures.iter().map(|m| exact(self.extreme(m, ties == Ties::Optimistic))).collect()
            }
            Ties::Trec | Ties::Expected | Ties::Range => {
                let mut values: Vec<Option<TieValue>> =
                    measures.iter().map(|m| self.closed_form(m).map(exact)).collect();
                // The measures that read only relevant / not relevant, then the others.
                for binary in [true, false] {
                    let rest: Vec<usize> = (0..measures.len())
                        .filter(|&i| values[i].is_none() && reads_only_relevance(&measures[i]) == binary)
                        .collect();
                    if rest.is_empty() {
                        continue;
                    }
                    let chosen: Vec<&Measure> = rest.iter().map(|&i| &measures[i]).collect();
                    let binary_view;
                    let ranking = if binary {
                        binary_view = self.relevant_or_not();
                        &binary_view
                    } else {
                        self
                    };
                    for (&i, (value, std_error)) in rest.iter().zip(ranking.over_orders(&chosen)) {
                        values[i] = Some(TieValue { value, std_error, range: None });
                    }
                }
                let mut values: Vec<TieValue> = values.into_iter().map(|v| v.unwrap_or(exact(0.0))).collect();
                if ties == Ties::Range {
                    for (value, measure) in values.iter_mut().zip(measures) {
                        let (worst, best) = (self.extreme(measure, false), self.extreme(measure, true));
                        value.range = Some((worst.min(best), worst.max(best)));
                    }
                }
                values
            }
        }
    }
}
