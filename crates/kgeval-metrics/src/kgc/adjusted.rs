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

/// Up to this count, H(N) and H₂(N) are summed term by term (`1/1 + 1/2 + …` in f64, in
/// that order, as kgeval always summed them: values up to it are unchanged to the bit); past
/// it, the asymptotic expansions below, within an ulp or two of the exact value there. The
/// term-by-term sums drift by about 5e-14 relative at the switch (the rounding of a million
/// additions), the expansions by less than 1e-15.
const SUMMED_UP_TO: u64 = 1 << 20;

/// The Euler–Mascheroni constant γ.
const EULER_GAMMA: f64 = 0.577_215_664_901_532_9;

/// H(n) = ln n + γ + 1/(2n) − 1/(12n²) + 1/(120n⁴) − …, for n past [`SUMMED_UP_TO`]: the next
/// term, 1/(252n⁶), is below 1e-38 there.
fn harmonic_asymptotic(n: f64) -> f64 {
    let inverse = 1.0 / n;
    let inverse2 = inverse * inverse;
    n.ln() + EULER_GAMMA + 0.5 * inverse - inverse2 / 12.0 + inverse2 * inverse2 / 120.0
}

/// H₂(n) = Σ 1/i² = π²/6 − 1/n + 1/(2n²) − 1/(6n³) + 1/(30n⁵) − …, for n past
/// [`SUMMED_UP_TO`]: the term 1/(30n⁵) is below 1e-31 there.
fn harmonic2_asymptotic(n: f64) -> f64 {
    let inverse = 1.0 / n;
    std::f64::consts::PI * std::f64::consts::PI / 6.0 - inverse + 0.5 * inverse * inverse
        - inverse * inverse * inverse / 6.0
}

/// H(N) and H₂(N) for the candidate counts of one call: exact sums for the distinct counts up
/// to [`SUMMED_UP_TO`] (one pass up to the largest of them, keeping only those), the
/// expansions past it. Memory is one entry per distinct count, whatever the counts declare.
struct Harmonics {
    /// `(N, H(N), H₂(N))` for the distinct counts up to [`SUMMED_UP_TO`], by N.
    summed: Vec<(u64, f64, f64)>,
}

impl Harmonics {
    fn of(candidates: &[u64]) -> Self {
        let mut wanted: Vec<u64> = candidates.iter().copied().filter(|&c| c <= SUMMED_UP_TO).collect();
        wanted.sort_unstable();
        wanted.dedup();
        let mut summed = Vec::with_capacity(wanted.len());
        let (mut h, mut h2) = (0.0, 0.0);
        let mut next = wanted.iter().copied().peekable();
        let last = wanted.last().copied().unwrap_or(0);
        for i in 1..=last {
            let x = i as f64;
            h += 1.0 / x;
            h2 += 1.0 / (x * x);
            if next.peek() == Some(&i) {
                next.next();
                summed.push((i, h, h2));
            }
        }
        Harmonics { summed }
    }

    /// (H(N), H₂(N)) for a count of the call's candidates ((0, 0) for one it was not given).
    fn get(&self, count: u64) -> (f64, f64) {
        if count > SUMMED_UP_TO {
            let n = count as f64;
            return (harmonic_asymptotic(n), harmonic2_asymptotic(n));
        }
        self.summed
            .binary_search_by_key(&count, |&(n, _, _)| n)
            .map_or((0.0, 0.0), |at| (self.summed[at].1, self.summed[at].2))
    }
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
    let harmonics = Harmonics::of(candidates);

    let mut rank = Moments::default();
    let mut reciprocal = Moments::default();
    let mut hits = vec![Moments::default(); summary.hits.len()];
    for &count in candidates {
        let big_n = count as f64;
        rank.add(0.5 * (big_n + 1.0), (big_n * big_n - 1.0) / 12.0);
        let (hn, h2n) = harmonics.get(count);
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

    /// H(2²⁰) and H(2²⁰ + 1), H₂ likewise, summed exactly and rounded to the nearest f64
    /// (50 significant digits in Python's `decimal`: `h += Decimal(1) / i`,
    /// `h2 += 1 / (Decimal(i) * i)` for i = 1 … 2²⁰ + 1; H(2²⁰) = 14.44015975293752146085…,
    /// H₂(2²⁰) = 1.64493311317436477742…, H(2²⁰ + 1) = 14.44016070661092837326…,
    /// H₂(2²⁰ + 1) = 1.64493311317527427039…).
    const EXACT_AT_SWITCH: [(u64, f64, f64); 2] = [
        (1 << 20, 14.440_159_752_937_522, 1.644_933_113_174_364_7),
        ((1 << 20) + 1, 14.440_160_706_610_929, 1.644_933_113_175_274_2),
    ];

    fn relative(a: f64, b: f64) -> f64 {
        ((a - b) / b).abs()
    }

    /// At the switch-over, the term-by-term sum (2²⁰, the last summed count) is off by the
    /// rounding of a million additions (5e-14), and the expansion (2²⁰ + 1, the first one)
    /// is within 1e-15 of the exact values.
    #[test]
    fn harmonic_numbers_at_the_switch_over() {
        let [(summed, h, h2), (expanded, next_h, next_h2)] = EXACT_AT_SWITCH;
        assert_eq!((summed, expanded), (SUMMED_UP_TO, SUMMED_UP_TO + 1));
        let harmonics = Harmonics::of(&[expanded, summed]);
        let (got_h, got_h2) = harmonics.get(summed);
        assert!(relative(got_h, h) < 1e-13 && relative(got_h2, h2) < 1e-13, "{got_h} {got_h2}");
        let (got_h, got_h2) = harmonics.get(expanded);
        assert!(relative(got_h, next_h) < 1e-15 && relative(got_h2, next_h2) < 1e-15, "{got_h} {got_h2}");
        // Small counts are the term-by-term sums, to the bit: H(4) = 25/12, H₂(4) = 205/144.
        let (h4, h2_4) = Harmonics::of(&[4, 9]).get(4);
        assert_eq!((h4, h2_4), (1.0 + 0.5 + 1.0 / 3.0 + 0.25, 1.0 + 0.25 + 1.0 / 9.0 + 1.0 / 16.0));
        assert!(relative(h4, 25.0 / 12.0) < 1e-15 && relative(h2_4, 205.0 / 144.0) < 1e-15);
    }

    /// Declared counts of 10¹⁴ and u64::MAX sized a table of H(N) for N up to them (the
    /// process aborted); the summed table now holds the small counts only, and the huge ones
    /// take the expansions: E[MR] = (N + 1) / 2, E[MRR] = H(N) / N ≈ (ln N + γ) / N.
    #[test]
    fn huge_candidate_counts_take_bounded_memory() {
        let counts = [100_000_000_000_000, u64::MAX, 5];
        assert_eq!(Harmonics::of(&counts).summed.len(), 1);
        let records = [RankRecord::at(1.0), RankRecord::at(2.0), RankRecord::at(1.0)];
        let a = adjusted_metrics(&summarize(&records, &[1]), &counts).unwrap();
        let big = [1e14, u64::MAX as f64];
        let expected_mr = ((big[0] + 1.0) / 2.0 + (big[1] + 1.0) / 2.0 + 3.0) / 3.0;
        assert!(relative(a.expected_mr, expected_mr) < 1e-15);
        let h = |n: f64| n.ln() + 0.577_215_664_901_532_9;
        let h5 = 1.0 + 0.5 + 1.0 / 3.0 + 0.25 + 0.2;
        let expected_mrr = (h(big[0]) / big[0] + h(big[1]) / big[1] + h5 / 5.0) / 3.0;
        assert!(relative(a.expected_mrr, expected_mrr) < 1e-15, "{}", a.expected_mrr);
        assert!(a.z_mrr.is_finite() && a.z_mr.is_finite());
    }

    #[test]
    fn undefined_without_ranks_or_candidates() {
        let summary = summarize(&[RankRecord::at(1.0), RankRecord::absent()], &[1]);
        assert_eq!(adjusted_metrics(&summary, &[5, 5]), None);
        assert_eq!(adjusted_metrics(&summarize(&[], &[1]), &[]), None);
    }
}
