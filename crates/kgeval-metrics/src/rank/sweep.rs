//! τ sweep: every metric as a function of the confidence given to NIL.

use kgeval_model::rank::results::{TauPoint, TauSweep};
use kgeval_model::{Interner, TermId};

use super::query::{outcome, QueryOutcome};
use super::validate::JoinedQuery;
use super::{abstention, LocalOptions};
use crate::ranking::{macro_mean, summarize};

/// 0.00, 0.05, …, 1.00.
#[must_use]
pub fn default_tau_grid() -> Vec<f64> {
    (0..=20).map(|i| f64::from(i) / 20.0).collect()
}

pub(crate) fn sweep(
    pairs: &[Vec<JoinedQuery<'_>>],
    grid: &[f64],
    nil: Option<TermId>,
    interner: &Interner,
    options: &LocalOptions,
) -> TauSweep {
    let mut points = Vec::with_capacity(grid.len());
    for &tau in grid {
        let mut all: Vec<QueryOutcome> = Vec::new();
        let mut per_pair = Vec::with_capacity(pairs.len());
        for queries in pairs {
            let outcomes: Vec<QueryOutcome> =
                queries.iter().map(|q| outcome(q, nil, Some(tau), options.ties, interner)).collect();
            per_pair.push(summarize(outcomes.iter().map(|o| &o.record), &options.ks));
            all.extend(outcomes);
        }
        points.push(TauPoint {
            tau,
            macro_summary: macro_mean(&per_pair),
            pairs: per_pair,
            abstention: abstention::abstention(&all),
        });
    }
    let mut oracle = 0;
    for (i, p) in points.iter().enumerate() {
        if p.macro_summary.mrr > points[oracle].macro_summary.mrr {
            oracle = i;
        }
    }
    TauSweep { points, oracle }
}
