//! Paired significance tests per system pair, multiplicity corrections and effect sizes.
//!
//! [`compare_systems`] runs one test over every pair of a [`PairedScores`] (a < b in table
//! order) and returns a [`SignificanceResult`]. The closed-form tests are here:
//!
//! - [`paired_t`]: `scipy.stats.ttest_rel` (two-sided, df = n − 1, the variance as scipy
//!   computes it). When the differences have zero variance, scipy returns t = ±∞, p = 0 if
//!   their mean is not 0 (so do we) and t = p = NaN if it is 0; **we return t = 0, p = 1**
//!   there (the spec's convention: identical systems are not different).
//! - [`wilcoxon`]: `scipy.stats.wilcoxon(x, y)` with its 1.17.1 defaults (`zero_method =
//!   "wilcox"`: zero differences dropped; `correction = False`; `method = "auto"`): with more
//!   than 50 differences (zeros included) the normal approximation with tie correction; else
//!   without ties and zeros the exact distribution of R+ (p = 2 min(P(R+ ≥ ⌊r⌋), P(R+ ≤ ⌈r⌉)),
//!   capped at 1); else, with at most 13 differences, the exact permutation distribution of
//!   R+ over all 2ⁿ sign flips (what scipy's `permutation_test` enumerates); else the normal
//!   approximation. The statistic is min(R+, R−). All differences zero: p = 1 (scipy: 1 for
//!   n ≤ 13, NaN above).
//!
//! Two systems' differences that are equal up to float rounding are equal: before any test,
//! differences whose magnitudes lie within [`EQUAL_TOLERANCE`] × the largest score magnitude
//! of the pair of each other take the smallest of those magnitudes (keeping their signs), and
//! those that close to 0 become 0 (0.1 − 0.2 and 0.3 − 0.4 are both −0.1: zero variance, not
//! t = −7.2e15). Scores too large or too small for sums and squares (beyond 2^±400) are
//! scaled by a power of two first (exact, and every test is scale-free); the means stay in
//! the scores' units and are overflow-safe ([`PairedScores::means`]).
//!
//! The randomised tests (bootstrap, Fisher, Tukey HSD) and the intervals are in
//! [`crate::randomised`].

use kgeval_model::meta::significance::{
    Correction, MeanInterval, PairComparison, SignificanceResult, SignificanceTest,
};
use kgeval_model::metric_names::Direction;

use crate::distributions::{normal_sf, pairwise_sum, student_t_two_sided, WilcoxonDistribution};
use crate::randomised;
use crate::{MetaError, PairedScores};

/// Default iterations of Sakai's bootstrap test.
pub const DEFAULT_BOOTSTRAP_ITERATIONS: usize = 1_000;
/// Default iterations of Fisher's randomisation test and of randomised Tukey HSD.
pub const DEFAULT_RANDOMISATION_ITERATIONS: usize = 10_000;
/// Default significance level.
pub const DEFAULT_ALPHA: f64 = 0.05;
/// Default seed of every random draw.
pub const DEFAULT_SEED: u64 = 42;
/// Paired differences closer than this times the largest magnitude of the two systems'
/// scores count as equal (and as zero when that close to 0) in every paired test.
pub const EQUAL_TOLERANCE: f64 = 1e-12;

/// Magnitudes above this (2^400) are scaled down before testing, so sums and squares stay finite.
const LARGE: f64 = f64::from_bits((1023 + 400) << 52);
/// Magnitudes below this (2^-400) are scaled up, so squares do not underflow.
const SMALL: f64 = f64::from_bits((1023 - 400) << 52);

/// How to compare the systems.
#[derive(Debug, Clone, PartialEq)]
pub struct SignificanceOptions {
    /// The test.
    pub test: SignificanceTest,
    /// The multiplicity correction (ignored for Tukey HSD, which is family-wise already).
    pub correction: Correction,
    /// The significance level (of marks and counts, and 1 − the intervals' coverage).
    pub alpha: f64,
    /// Iterations B of the randomised test; `None`: 1,000 for the bootstrap, 10,000 for
    /// Fisher and Tukey HSD.
    pub iterations: Option<usize>,
    /// Bootstrap iterations of the per-system percentile intervals; `None`: no intervals.
    pub interval_iterations: Option<usize>,
    /// The seed.
    pub seed: u64,
}

impl Default for SignificanceOptions {
    fn default() -> Self {
        Self {
            test: SignificanceTest::default(),
            correction: Correction::default(),
            alpha: DEFAULT_ALPHA,
            iterations: None,
            interval_iterations: None,
            seed: DEFAULT_SEED,
        }
    }
}

impl SignificanceOptions {
    /// The iterations the test will run (0 for the closed-form tests).
    #[must_use]
    pub fn test_iterations(&self) -> usize {
        match self.test {
            SignificanceTest::PairedT | SignificanceTest::Wilcoxon => 0,
            SignificanceTest::Bootstrap => self.iterations.unwrap_or(DEFAULT_BOOTSTRAP_ITERATIONS),
            SignificanceTest::Fisher | SignificanceTest::TukeyHsd => {
                self.iterations.unwrap_or(DEFAULT_RANDOMISATION_ITERATIONS)
            }
        }
    }
}

/// The outcome of a paired t test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TTest {
    /// t = mean(d) / (sd(d) / √n).
    pub statistic: f64,
    /// Two-sided p-value.
    pub p_value: f64,
    /// Degrees of freedom, n − 1.
    pub df: usize,
}

/// How a Wilcoxon p-value was obtained (scipy's `auto` rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WilcoxonMethod {
    /// The exact distribution of R+ (n ≤ 50, no ties, no zeros).
    Exact,
    /// All 2ⁿ sign flips enumerated (n ≤ 13 with ties or zeros).
    Permutation,
    /// The normal approximation with tie correction.
    Normal,
}

/// The outcome of a Wilcoxon signed-rank test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WilcoxonTest {
    /// min(R+, R−).
    pub statistic: f64,
    /// Two-sided p-value.
    pub p_value: f64,
    /// How the p-value was computed.
    pub method: WilcoxonMethod,
}

/// The exact power of two that brings `max` (the largest magnitude of the scores) into
/// [2^-400, 2^400], or 1 when it already is (or is 0).
pub(crate) fn working_scale(max: f64) -> f64 {
    if max > LARGE {
        // floor(log2(max)) ≤ 1023, and 2^-1023 is representable (subnormal, exact).
        2f64.powi(-(max.log2().floor() as i32))
    } else if max > 0.0 && max < SMALL {
        2f64.powi(600)
    } else {
        1.0
    }
}

/// The largest magnitude of `values` (0 for none).
pub(crate) fn max_magnitude(values: &[f64]) -> f64 {
    values.iter().fold(0.0, |max: f64, v| max.max(v.abs()))
}

/// Makes differences equal up to `tolerance` equal: sorted by magnitude, every run of
/// magnitudes within `tolerance` of the run's first takes that first magnitude (signs kept);
/// a run starting within `tolerance` of 0 becomes 0.
pub(crate) fn snap_differences(d: &mut [f64], tolerance: f64) {
    if tolerance <= 0.0 || d.len() < 2 && d.first().is_none_or(|v| v.abs() > tolerance) {
        return;
    }
    let mut order: Vec<usize> = (0..d.len()).collect();
    order.sort_by(|&i, &j| d[i].abs().total_cmp(&d[j].abs()));
    let mut start = 0;
    while start < order.len() {
        let first = d[order[start]].abs();
        let value = if first <= tolerance { 0.0 } else { first };
        let mut end = start;
        while end < order.len() && d[order[end]].abs() - first <= tolerance {
            let i = order[end];
            d[i] = if value == 0.0 { 0.0 } else { value.copysign(d[i]) };
            end += 1;
        }
        start = end;
    }
}

fn differences(x: &[f64], y: &[f64]) -> Result<Vec<f64>, MetaError> {
    if x.len() != y.len() {
        return Err(MetaError::InvalidOption(format!(
            "paired samples of different lengths: {} and {}",
            x.len(),
            y.len()
        )));
    }
    if x.len() < 2 {
        return Err(MetaError::TooFew { what: "paired items".into(), needed: 2, found: x.len() });
    }
    if let Some(v) = x.iter().chain(y).find(|v| !v.is_finite()) {
        return Err(MetaError::InvalidOption(format!("paired samples hold the non-finite value {v}")));
    }
    let factor = working_scale(max_magnitude(x).max(max_magnitude(y)));
    let mut d: Vec<f64> = x.iter().zip(y).map(|(a, b)| a * factor - b * factor).collect();
    let tolerance = EQUAL_TOLERANCE * max_magnitude(x).max(max_magnitude(y)) * factor;
    snap_differences(&mut d, tolerance);
    Ok(d)
}

/// Paired two-sided Student t test of `x` against `y` (`scipy.stats.ttest_rel(x, y)`), on
/// differences made equal up to [`EQUAL_TOLERANCE`] (see the module documentation).
///
/// # Errors
/// Samples of different lengths, fewer than 2 items, a non-finite value.
pub fn paired_t(x: &[f64], y: &[f64]) -> Result<TTest, MetaError> {
    Ok(t_test_differences(&differences(x, y)?))
}

/// Mean and sample standard deviation (ddof = 1) computed as scipy does, except that equal
/// values have their own value as mean and no spread (scipy's pairwise mean can be an ulp
/// off, leaving a variance of rounding noise).
pub(crate) fn mean_sd(d: &[f64]) -> (f64, f64) {
    if let Some(&first) = d.first().filter(|first| d.iter().all(|v| v == *first)) {
        return (first, 0.0);
    }
    let n = d.len() as f64;
    let mean = pairwise_sum(d) / n;
    let squares: Vec<f64> = d.iter().map(|v| (v - mean) * (v - mean)).collect();
    let var = pairwise_sum(&squares) / n * (n / (n - 1.0));
    (mean, var.sqrt())
}

/// The one-sample t test of the differences `d` against 0 (at least 2 finite values).
#[must_use]
pub fn t_test_differences(d: &[f64]) -> TTest {
    let n = d.len();
    let (mean, sd) = mean_sd(d);
    let denom = sd / (n as f64).sqrt();
    let df = n.saturating_sub(1);
    if denom == 0.0 {
        return if mean == 0.0 {
            TTest { statistic: 0.0, p_value: 1.0, df }
        } else {
            TTest { statistic: mean.signum() * f64::INFINITY, p_value: 0.0, df }
        };
    }
    let statistic = mean / denom;
    TTest { statistic, p_value: student_t_two_sided(statistic, df as f64), df }
}

/// Wilcoxon signed-rank test of `x` against `y` (`scipy.stats.wilcoxon(x, y)`, 1.17.1
/// defaults), on differences made equal up to [`EQUAL_TOLERANCE`] (zeros and ties within
/// rounding; see the module documentation).
///
/// # Errors
/// Samples of different lengths, fewer than 2 items, a non-finite value.
pub fn wilcoxon(x: &[f64], y: &[f64]) -> Result<WilcoxonTest, MetaError> {
    Ok(wilcoxon_differences(&differences(x, y)?))
}

/// Average ranks of `values` (1-based) and the sizes of their tie groups.
fn average_ranks(values: &[f64]) -> (Vec<f64>, Vec<usize>) {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&i, &j| values[i].total_cmp(&values[j]));
    let mut ranks = vec![0.0; values.len()];
    let mut groups = Vec::new();
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && values[order[end]] == values[order[start]] {
            end += 1;
        }
        let rank = (start + 1) as f64 + (end - start - 1) as f64 / 2.0;
        for &i in &order[start..end] {
            ranks[i] = rank;
        }
        groups.push(end - start);
        start = end;
    }
    (ranks, groups)
}

/// The Wilcoxon signed-rank test of the differences `d` (see the module documentation).
#[must_use]
pub fn wilcoxon_differences(d: &[f64]) -> WilcoxonTest {
    let n_total = d.len();
    let nonzero: Vec<f64> = d.iter().copied().filter(|v| *v != 0.0).collect();
    let n_zero = n_total - nonzero.len();
    let count = nonzero.len();
    let magnitudes: Vec<f64> = nonzero.iter().map(|v| v.abs()).collect();
    let (ranks, groups) = average_ranks(&magnitudes);
    let r_plus = nonzero.iter().zip(&ranks).filter(|(v, _)| **v > 0.0).fold(0.0, |sum, (_, r)| sum + r);
    let r_minus = nonzero.iter().zip(&ranks).filter(|(v, _)| **v < 0.0).fold(0.0, |sum, (_, r)| sum + r);
    let statistic = r_plus.min(r_minus);
    if count == 0 {
        let method = if n_total <= 13 { WilcoxonMethod::Permutation } else { WilcoxonMethod::Normal };
        return WilcoxonTest { statistic, p_value: 1.0, method };
    }
    let has_ties = groups.iter().any(|&g| g > 1);
    let method = if n_total > 50 {
        WilcoxonMethod::Normal
    } else if !has_ties && n_zero == 0 {
        WilcoxonMethod::Exact
    } else if n_total <= 13 {
        WilcoxonMethod::Permutation
    } else {
        WilcoxonMethod::Normal
    };
    let p_value = match method {
        WilcoxonMethod::Exact => {
            let dist = WilcoxonDistribution::new(count);
            let p = 2.0 * dist.sf(r_plus.floor() as i64).min(dist.cdf(r_plus.ceil() as i64));
            p.clamp(0.0, 1.0)
        }
        WilcoxonMethod::Permutation => sign_flip_p_value(&nonzero, &ranks, r_plus),
        WilcoxonMethod::Normal => {
            let c = count as f64;
            let mean = c * (c + 1.0) * 0.25;
            let tie_correct: f64 = groups.iter().map(|&t| (t * t * t - t) as f64).sum();
            let se = ((c * (c + 1.0) * (2.0 * c + 1.0) - tie_correct / 2.0) / 24.0).sqrt();
            let z = (r_plus - mean) / se;
            2.0 * normal_sf(z.abs())
        }
    };
    WilcoxonTest { statistic, p_value, method }
}

/// scipy's exact permutation p-value of R+: all sign patterns of the non-zero differences
/// (each counted 2^zeros times, which cancels), `2 min(#(R+* ≤ r + γ), #(R+* ≥ r − γ)) / 2ⁿ`
/// with scipy's tolerance γ = 100 ε |r|, capped at 1.
fn sign_flip_p_value(nonzero: &[f64], ranks: &[f64], r_plus: f64) -> f64 {
    let n = nonzero.len();
    let gamma = (f64::EPSILON * 100.0 * r_plus).abs();
    let (mut less, mut greater) = (0u64, 0u64);
    for mask in 0u64..(1u64 << n) {
        let r = (0..n).filter(|k| mask >> k & 1 == 1).fold(0.0, |sum, k| sum + ranks[k]);
        less += u64::from(r <= r_plus + gamma);
        greater += u64::from(r >= r_plus - gamma);
    }
    let total = (1u64 << n) as f64;
    (2.0 * (less.min(greater) as f64) / total).clamp(0.0, 1.0)
}

/// Applies a multiplicity correction to the p-values of one family (all pairs of a metric).
/// Holm: step-down, `p_(k) · (m − k + 1)`, made monotone and capped at 1; Bonferroni:
/// `min(1, m · p)`; none: unchanged. An undefined p-value (NaN) stays undefined and is not
/// counted in m.
#[must_use]
pub fn adjust_p_values(p_values: &[f64], correction: Correction) -> Vec<f64> {
    let m = p_values.iter().filter(|p| !p.is_nan()).count() as f64;
    match correction {
        Correction::None => p_values.to_vec(),
        Correction::Bonferroni => p_values.iter().map(|p| if p.is_nan() { *p } else { (p * m).min(1.0) }).collect(),
        Correction::Holm => {
            let mut order: Vec<usize> = (0..p_values.len()).filter(|&i| !p_values[i].is_nan()).collect();
            order.sort_by(|&i, &j| p_values[i].total_cmp(&p_values[j]));
            let mut adjusted = vec![f64::NAN; p_values.len()];
            let mut running: f64 = 0.0;
            for (k, &i) in order.iter().enumerate() {
                running = running.max(((m - k as f64) * p_values[i]).min(1.0));
                adjusted[i] = running;
            }
            adjusted
        }
    }
}

/// Cohen's d of paired differences: mean / sd (ddof = 1); 0 when both are 0, ±∞ when only
/// the sd is; NaN with fewer than 2 differences.
#[must_use]
pub fn cohens_d(d: &[f64]) -> f64 {
    if d.len() < 2 {
        return f64::NAN;
    }
    let (mean, sd) = mean_sd(d);
    scaled(mean, sd)
}

/// `mean / scale`, with 0 / 0 = 0 and ±∞ for a zero scale (an effect without spread).
pub(crate) fn scaled(mean: f64, scale: f64) -> f64 {
    if scale == 0.0 {
        if mean == 0.0 {
            0.0
        } else {
            mean.signum() * f64::INFINITY
        }
    } else {
        mean / scale
    }
}

fn check_options(scores: &PairedScores, options: &SignificanceOptions) -> Result<(), MetaError> {
    if !(options.alpha > 0.0 && options.alpha < 1.0) {
        return Err(MetaError::InvalidOption(format!("alpha must be in (0, 1), got {}", options.alpha)));
    }
    if options.test.is_randomised() && options.test_iterations() == 0 {
        return Err(MetaError::InvalidOption("the number of iterations must be at least 1".into()));
    }
    if options.interval_iterations == Some(0) {
        return Err(MetaError::InvalidOption("the number of interval iterations must be at least 1".into()));
    }
    if scores.n_systems() < 2 {
        return Err(MetaError::TooFew { what: "systems".into(), needed: 2, found: scores.n_systems() });
    }
    if scores.n_items() < 2 {
        return Err(MetaError::TooFew {
            what: format!("items of metric {}", scores.metric),
            needed: 2,
            found: scores.n_items(),
        });
    }
    Ok(())
}

/// Compares every pair of systems of `scores` with one test, applies the correction, and
/// adds effect sizes, win/tie/loss counts and (optionally) percentile intervals of the means.
///
/// Randomised tests are seeded per iteration from (`options.seed`, pair, iteration), so the
/// result does not depend on the number of rayon threads.
///
/// # Errors
/// [`MetaError::TooFew`] for fewer than 2 systems or items, [`MetaError::InvalidOption`] for
/// α outside (0, 1) or 0 iterations.
pub fn compare_systems(scores: &PairedScores, options: &SignificanceOptions) -> Result<SignificanceResult, MetaError> {
    check_options(scores, options)?;
    let n_systems = scores.n_systems();
    let means = scores.means();
    // Every test runs on scores scaled by an exact power of two when they are too large or
    // too small for sums and squares (factor 1 otherwise: the same numbers as before).
    let factor = working_scale(max_magnitude(&scores.values));
    let scaled_scores;
    let working = if factor == 1.0 {
        scores
    } else {
        scaled_scores = PairedScores { values: scores.values.iter().map(|v| v * factor).collect(), ..scores.clone() };
        &scaled_scores
    };
    let columns: Vec<Vec<f64>> = (0..n_systems).map(|s| working.system_column(s)).collect();
    let magnitudes: Vec<f64> = columns.iter().map(|c| max_magnitude(c)).collect();
    let iterations = options.test_iterations();
    let tukey = if options.test == SignificanceTest::TukeyHsd {
        Some(randomised::tukey_hsd(working, iterations, options.seed)?)
    } else {
        None
    };
    let mut pairs = Vec::with_capacity(n_systems * (n_systems - 1) / 2);
    for a in 0..n_systems {
        for b in a + 1..n_systems {
            let pair_index = pairs.len();
            let mut d: Vec<f64> = columns[a].iter().zip(&columns[b]).map(|(x, y)| x - y).collect();
            snap_differences(&mut d, EQUAL_TOLERANCE * magnitudes[a].max(magnitudes[b]));
            let (statistic, p_value) = match options.test {
                SignificanceTest::PairedT => {
                    // Zero variance: no t (±∞), p = 0 or 1 by the spec's convention.
                    let t = t_test_differences(&d);
                    (Some(t.statistic).filter(|t| t.is_finite()), t.p_value)
                }
                SignificanceTest::Wilcoxon => {
                    let w = wilcoxon_differences(&d);
                    (Some(w.statistic), w.p_value)
                }
                SignificanceTest::Bootstrap => {
                    (None, randomised::bootstrap_asl(&d, iterations, randomised::pair_seed(options.seed, pair_index)))
                }
                SignificanceTest::Fisher => (
                    None,
                    randomised::fisher_randomisation(&d, iterations, randomised::pair_seed(options.seed, pair_index)),
                ),
                SignificanceTest::TukeyHsd => (None, tukey.as_ref().map_or(f64::NAN, |p| p[pair_index])),
            };
            let (mut wins, mut ties, mut losses) = (0, 0, 0);
            for (x, y) in columns[a].iter().zip(&columns[b]) {
                let (x, y) = (scores.oriented(*x), scores.oriented(*y));
                if x > y {
                    wins += 1;
                } else if x < y {
                    losses += 1;
                } else {
                    ties += 1;
                }
            }
            let mean_difference = means[a] - means[b];
            if !mean_difference.is_finite() {
                return Err(MetaError::InvalidOption(format!(
                    "metric {}: found a difference of means beyond ±1.8e308 between {} and {}, expected scores \
                     whose means differ by a finite number",
                    scores.metric, scores.systems[a], scores.systems[b]
                )));
            }
            pairs.push(PairComparison {
                a,
                b,
                mean_difference,
                effect_size: cohens_d(&d),
                statistic,
                p_value,
                p_adjusted: p_value,
                wins,
                ties,
                losses,
            });
        }
    }
    let correction = if options.test.is_family_wise() { Correction::None } else { options.correction };
    let raw: Vec<f64> = pairs.iter().map(|p| p.p_value).collect();
    for (pair, adjusted) in pairs.iter_mut().zip(adjust_p_values(&raw, correction)) {
        pair.p_adjusted = adjusted;
    }
    let intervals = match options.interval_iterations {
        Some(b) => randomised::mean_intervals(working, b, options.alpha, options.seed)?
            .into_iter()
            .map(|i| MeanInterval { lower: i.lower / factor, upper: i.upper / factor })
            .collect(),
        None => Vec::new(),
    };
    Ok(SignificanceResult {
        metric: scores.metric.clone(),
        higher_is_better: scores.direction != Direction::Lower,
        test: options.test,
        correction,
        alpha: options.alpha,
        iterations,
        interval_iterations: options.interval_iterations.unwrap_or(0),
        seed: options.seed,
        n_items: scores.n_items(),
        systems: scores.systems.clone(),
        means,
        intervals,
        pairs,
    })
}

#[cfg(test)]
mod tests;
