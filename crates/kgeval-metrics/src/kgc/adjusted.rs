//! PyKEEN's chance-adjusted rank metrics (`pykeen.metrics.ranking`): expectation and variance
//! of MR, MRR and Hits@k when each answer's rank is drawn uniformly from 1..=N (N its filtered
//! candidates), and the derived adjusted (AMR, AMRI, AMRR, AH@k) and z-scored (zMR, zMRR, zH@k)
//! values. The base values (MR, MRR, Hits@k) come from the ranking core's summary.

use kgeval_model::kgc::results::{AdjustedHits, AdjustedMetrics};
use kgeval_model::rank::results::RankSummary;

/// PyKEEN's `EPSILON` of `_safe_divide`: denominators are kept at least this far from 0.
const EPSILON: f64 = 1.0e-12;

/// `x / y` with |y| clamped to ≥ [`EPSILON`], sign kept (PyKEEN `_safe_divide`).
fn safe_divide(x: f64, y: f64) -> f64 {
    x / (y.abs().max(EPSILON).copysign(y))
}

/// Expectation and variance of a mean of independent per-answer values.
#[derive(Debug, Clone, Copy, Default)]
struct Moments {
    sum_expected: f64,
    sum_variance: f64,
}

impl Moments {
    fn add(&mut self, expected: f64, variance: f64) {
        self.sum_expected += expected;
        self.sum_variance += variance;
    }

    /// (E[mean], V[mean]) over `n` answers: mean of expectations, Σ variances / n².
    fn of_mean(self, n: f64) -> (f64, f64) {
        (self.sum_expected / n, self.sum_variance / (n * n))
    }
}

/// Re-indexed value (M − E) / (1 − E) (PyKEEN `ReindexedMetric`).
fn reindexed(value: f64, expected: f64) -> f64 {
    let scale = safe_divide(1.0, 1.0 - expected);
    scale * value - scale * expected
}

/// z-score (M − E) / √V, negated for a metric where lower is better (PyKEEN `ZMetric`).
fn z_score(value: f64, expected: f64, variance: f64, increasing: bool) -> f64 {
    let mut scale = safe_divide(1.0, variance.sqrt());
    if !increasing {
        scale = -scale;
    }
    scale * value - scale * expected
}

/// The adjusted metrics of a set of answers with their candidate counts, given the core's
/// `summary` of the same answers (its MR, MRR and Hits@k). `None` when there is no answer, or
/// when an answer has no rank (MR over ranked answers only would not be MR) or no candidate.
///
/// ```
/// use kgeval_metrics::kgc::adjusted_metrics;
/// use kgeval_metrics::ranking::{summarize, RankRecord};
/// // Realistic ranks [3.5, 2, 1] among N = [5, 5, 4] candidates.
/// let records = [RankRecord::at(3.5), RankRecord::at(2.0), RankRecord::at(1.0)];
/// let summary = summarize(&records, &[1]);
/// let adjusted = adjusted_metrics(&summary, &[5, 5, 4]).unwrap();
/// assert!((adjusted.amri - 0.3636364).abs() < 1e-7);
/// assert!((adjusted.z_mrr - 0.6989267).abs() < 1e-7);
/// ```
#[must_use]
pub fn adjusted_metrics(summary: &RankSummary, candidates: &[u64]) -> Option<AdjustedMetrics> {
    let mr = summary.mean_rank?;
    if candidates.is_empty() || summary.ranked != candidates.len() || candidates.contains(&0) {
        return None;
    }
    let n = candidates.len() as f64;
    let max = candidates.iter().copied().max().unwrap_or(1) as usize;
    // H(N) and H₂(N) for N = 1..=max, once.
    let mut harmonic = Vec::with_capacity(max + 1);
    let mut harmonic2 = Vec::with_capacity(max + 1);
    let (mut h, mut h2) = (0.0, 0.0);
    harmonic.push(0.0);
    harmonic2.push(0.0);
    for i in 1..=max {
        let x = i as f64;
        h += 1.0 / x;
        h2 += 1.0 / (x * x);
        harmonic.push(h);
        harmonic2.push(h2);
    }

    let mut rank = Moments::default();
    let mut reciprocal = Moments::default();
    let mut hits = vec![Moments::default(); summary.hits.len()];
    for &count in candidates {
        let big_n = count as f64;
        rank.add(0.5 * (big_n + 1.0), (big_n * big_n - 1.0) / 12.0);
        let (hn, h2n) = (harmonic[count as usize], harmonic2[count as usize]);
        reciprocal.add(hn / big_n, ((big_n * h2n - hn * hn) / (big_n * big_n)).max(0.0));
        for (moments, &(k, _)) in hits.iter_mut().zip(&summary.hits) {
            let p = (f64::from(k) / big_n).min(1.0);
            moments.add(p, p * (1.0 - p));
        }
    }

    let (expected_mr, variance_mr) = rank.of_mean(n);
    let (expected_mrr, variance_mrr) = reciprocal.of_mean(n);
    let hits = hits
        .iter()
        .zip(&summary.hits)
        .map(|(moments, &(k, value))| {
            let (expected, variance) = moments.of_mean(n);
            AdjustedHits {
                k,
                expected,
                adjusted: reindexed(value, expected),
                z: z_score(value, expected, variance, true),
            }
        })
        .collect();
    Some(AdjustedMetrics {
        expected_mr,
        amr: safe_divide(1.0, expected_mr) * mr,
        amri: reindexed(mr, expected_mr),
        z_mr: z_score(mr, expected_mr, variance_mr, false),
        expected_mrr,
        amrr: reindexed(summary.mrr, expected_mrr),
        z_mrr: z_score(summary.mrr, expected_mrr, variance_mrr, true),
        hits,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ranking::{summarize, RankRecord};

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-7
    }

    /// The expectations of the spec's case (N = [5, 5, 4]; the derived values of its realistic
    /// ranks are asserted by the integration tests): E[MR] = mean (N + 1) / 2, E[MRR] = mean
    /// H(N) / N, E[H@k] = mean min(k / N, 1).
    #[test]
    fn expectations_by_hand() {
        let records = [RankRecord::at(3.5), RankRecord::at(2.0), RankRecord::at(1.0)];
        let a = adjusted_metrics(&summarize(&records, &[1, 10]), &[5, 5, 4]).unwrap();
        let h = |n: u32| (1..=n).map(|i| 1.0 / f64::from(i)).sum::<f64>();
        assert!(close(a.expected_mr, (3.0 + 3.0 + 2.5) / 3.0));
        assert!(close(a.expected_mrr, (2.0 * h(5) / 5.0 + h(4) / 4.0) / 3.0));
        assert!(close(a.hits[0].expected, (0.2 + 0.2 + 0.25) / 3.0));
        // Hits@10 ≥ N everywhere: E = 1, every rank hits; the re-indexed value divides by ε.
        assert_eq!((a.hits[1].k, a.hits[1].expected), (10, 1.0));
    }

    #[test]
    fn perfect_and_random_extremes() {
        // Rank 1 everywhere: AMRI 1, AMRR 1, AH@1 1.
        let records = [RankRecord::at(1.0); 4];
        let summary = summarize(&records, &[1]);
        let a = adjusted_metrics(&summary, &[10, 20, 30, 40]).unwrap();
        assert!(close(a.amri, 1.0) && close(a.amrr, 1.0) && close(a.hits[0].adjusted, 1.0));
        // Every rank at its expectation (N + 1) / 2: AMR 1, AMRI 0, zMR 0.
        let records = [RankRecord::at(5.5), RankRecord::at(10.5)];
        let a = adjusted_metrics(&summarize(&records, &[1]), &[10, 20]).unwrap();
        assert!(close(a.amr, 1.0) && close(a.amri, 0.0) && close(a.z_mr, 0.0));
    }

    #[test]
    fn undefined_without_ranks_or_candidates() {
        let summary = summarize(&[RankRecord::at(1.0), RankRecord::absent()], &[1]);
        assert_eq!(adjusted_metrics(&summary, &[5, 5]), None);
        assert_eq!(adjusted_metrics(&summarize(&[], &[1]), &[]), None);
    }
}
