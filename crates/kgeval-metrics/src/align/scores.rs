//! P/R/F, per-pair scoring, micro/macro aggregation and the threshold curve.

use kgeval_model::align::{
    Aggregate, AlignmentProfile, ConfusionCounts, LabeledCell, PairScores, PrfScores, ThresholdPoint,
};
use kgeval_model::{Alignment, Interner};

use super::judge::judge;
use super::AlignmentOptions;

/// Precision, recall and Fβ of `counts`, each 0 on a zero denominator (MELT ≥ 3.5).
///
/// ```
/// use kgeval_metrics::align::prf;
/// use kgeval_model::align::ConfusionCounts;
/// let counts = ConfusionCounts { tp: 8, fp: 4, fn_: 7, ..ConfusionCounts::default() };
/// let s = prf(&counts, 1.0);
/// assert_eq!((s.precision, s.recall), (8.0 / 12.0, 8.0 / 15.0));
/// assert!((s.f_measure - 0.5925925925925926).abs() < 1e-15);
/// assert_eq!(prf(&ConfusionCounts::default(), 1.0).f_measure, 0.0);
/// ```
#[must_use]
pub fn prf(counts: &ConfusionCounts, beta: f64) -> PrfScores {
    let precision = ratio(counts.tp, counts.tp + counts.fp);
    let recall = ratio(counts.tp, counts.tp + counts.fn_);
    PrfScores { precision, recall, f_measure: f_beta(precision, recall, beta) }
}

/// `num / den`, 0 when `den` is 0.
fn ratio(num: u64, den: u64) -> f64 {
    if den == 0 {
        0.0
    } else {
        num as f64 / den as f64
    }
}

/// `(1 + β²)PR / (β²P + R)`, 0 on a zero (or non-finite) result.
pub(crate) fn f_beta(precision: f64, recall: f64, beta: f64) -> f64 {
    let b2 = beta * beta;
    let den = b2 * precision + recall;
    let f = if den == 0.0 { 0.0 } else { (1.0 + b2) * precision * recall / den };
    if f.is_finite() {
        f
    } else {
        0.0
    }
}

/// P/R/F of `counts` under the profile's conventions: `alignapi` gives P = 1 when nothing
/// was judged (TP + FP = 0, e.g. an empty system) and R = 1 when nothing was expected
/// (TP + FN = 0); `oaei-seals` rounds P and R to 3 decimals (and reports them rounded) before
/// computing F; the others are [`prf`].
pub(crate) fn profile_prf(counts: &ConfusionCounts, beta: f64, profile: AlignmentProfile) -> PrfScores {
    let plain = prf(counts, beta);
    match profile {
        AlignmentProfile::AlignApi => {
            let precision = if counts.tp + counts.fp == 0 { 1.0 } else { plain.precision };
            let recall = if counts.tp + counts.fn_ == 0 { 1.0 } else { plain.recall };
            PrfScores { precision, recall, f_measure: f_beta(precision, recall, beta) }
        }
        AlignmentProfile::OaeiSeals => {
            let round3 = |x: f64| (x * 1000.0).round() / 1000.0;
            let (precision, recall) = (round3(plain.precision), round3(plain.recall));
            PrfScores { precision, recall, f_measure: f_beta(precision, recall, beta) }
        }
        AlignmentProfile::Melt | AlignmentProfile::OntoAligner | AlignmentProfile::Diso => plain,
    }
}

/// Scores `system` against `reference` after removing the `exclusion` cells and applying the
/// threshold, under `options`' profile and completeness mode.
///
/// The labels (TP / FP / ignored for every scored system cell in input order, then FN for every
/// missed reference cell) are returned only when `options.collect_labels` is set; otherwise the
/// vector is empty. Excluded, below-threshold and merged cells get no label.
///
/// The specification's worked example, in complete and partial mode:
/// ```
/// use kgeval_metrics::align::{score_pair, AlignmentOptions, CompletenessMode};
/// use kgeval_model::{Alignment, Correspondence, Interner, Relation};
/// let mut iris = Interner::new();
/// let mut cell = |a: &str, b: &str| {
///     Correspondence::new(iris.intern(a), iris.intern(b), Relation::Equivalence, 1.0)
/// };
/// let reference: Alignment = [cell("a", "b")].into_iter().collect();
/// let system: Alignment = [cell("a", "b"), cell("a", "c"), cell("d", "b"), cell("d", "e")].into_iter().collect();
/// let mut options = AlignmentOptions::default(); // melt, complete
/// let (complete, _) = score_pair(&reference, &system, None, &options, &iris);
/// assert_eq!(complete.scores.precision, 0.25);
/// options.mode = CompletenessMode::Partial;
/// let (partial, _) = score_pair(&reference, &system, None, &options, &iris);
/// assert_eq!(partial.scores.precision, 1.0 / 3.0);
/// assert_eq!((partial.counts.tp, partial.counts.fp, partial.counts.ignored), (1, 2, 1));
/// assert_eq!(partial.scores.recall, 1.0);
/// ```
#[must_use]
pub fn score_pair(
    reference: &Alignment,
    system: &Alignment,
    exclusion: Option<&Alignment>,
    options: &AlignmentOptions,
    interner: &Interner,
) -> (PairScores, Vec<LabeledCell>) {
    let judgement = judge(reference, system, exclusion, options, interner, None);
    let counts = judgement.counts_at(None);
    let scores = PairScores { scores: profile_prf(&counts, options.beta, options.profile), counts };
    let labels = if options.collect_labels { judgement.labels() } else { Vec::new() };
    (scores, labels)
}

/// Micro and macro aggregates over per-pair scores.
///
/// - **micro**: the pairs' counts are summed, then P/R/F computed once under the profile's
///   conventions (the seeds' definition; MELT unions the correspondence sets instead, which is
///   the same whenever the pairs share no keys, as different ontology pairs do).
/// - **macro**: the mean of the per-pair P, R and F (MELT ≥ 3.5), or with
///   `options.macro_harmonic_f1` F = Fβ(macro P, macro R) (MELT 2019 result files); divided by
///   `max(options.expected_pairs, pairs.len())`, so missing pairs count 0. Macro counts are the
///   summed counts. No pair at all gives zeros.
///
/// MELT's unit-test oracle:
/// ```
/// use kgeval_metrics::align::{aggregate, prf, AlignmentOptions};
/// use kgeval_model::align::{ConfusionCounts, PairScores};
/// let pair = |tp, fp, fn_| {
///     let counts = ConfusionCounts { tp, fp, fn_, ignored: 0, correspondences: tp + fp };
///     PairScores { scores: prf(&counts, 1.0), counts }
/// };
/// let all = aggregate(&[pair(2, 1, 1), pair(1, 3, 0), pair(3, 0, 3)], &AlignmentOptions::default());
/// assert!((all.micro.scores.precision - 0.6).abs() < 1e-12);
/// assert!((all.macro_.scores.precision - 0.64).abs() < 0.005);
/// assert!((all.macro_.scores.recall - 0.72).abs() < 0.005);
/// assert!((all.macro_.scores.f_measure - 0.58).abs() < 0.005);
/// ```
#[must_use]
pub fn aggregate(pairs: &[PairScores], options: &AlignmentOptions) -> Aggregate {
    let counts = pairs.iter().fold(ConfusionCounts::default(), |acc, p| acc + p.counts);
    let micro = PairScores { scores: profile_prf(&counts, options.beta, options.profile), counts };
    let n = options.expected_pairs.unwrap_or(0).max(pairs.len());
    let macro_scores = if n == 0 {
        PrfScores::default()
    } else {
        let mean = |f: fn(&PrfScores) -> f64| pairs.iter().map(|p| f(&p.scores)).sum::<f64>() / n as f64;
        let precision = mean(|s| s.precision);
        let recall = mean(|s| s.recall);
        let f_measure =
            if options.macro_harmonic_f1 { f_beta(precision, recall, options.beta) } else { mean(|s| s.f_measure) };
        PrfScores { precision, recall, f_measure }
    };
    Aggregate { micro, macro_: PairScores { scores: macro_scores, counts } }
}

/// The P/R/F curve over thresholds: one point per distinct confidence `c` of the scored system
/// cells (after exclusion and `options.threshold`), ascending, each scoring the cells with
/// `confidence ≥ c` exactly as [`score_pair`] with `threshold = c` would.
///
/// Computed from one judgement and a sort, not one scoring per point, so it is linear-logarithmic
/// in the alignment size. (When relation- or direction-insensitive keys merge several system
/// cells, the merged cell is the first occurrence among all scored cells, whatever the cut.)
///
/// ```
/// use kgeval_metrics::align::{threshold_curve, AlignmentOptions};
/// use kgeval_model::{Alignment, Correspondence, Interner, Relation};
/// let mut iris = Interner::new();
/// let mut cell = |a: &str, b: &str, c: f64| Correspondence::new(iris.intern(a), iris.intern(b), Relation::Equivalence, c);
/// let reference: Alignment = [cell("a", "b", 1.0)].into_iter().collect();
/// let system: Alignment = [cell("a", "b", 0.9), cell("a", "c", 0.5)].into_iter().collect();
/// let curve = threshold_curve(&reference, &system, None, &AlignmentOptions::default(), &iris);
/// let points: Vec<(f64, f64)> = curve.iter().map(|p| (p.threshold, p.scores.scores.precision)).collect();
/// assert_eq!(points, [(0.5, 0.5), (0.9, 1.0)]);
/// ```
#[must_use]
pub fn threshold_curve(
    reference: &Alignment,
    system: &Alignment,
    exclusion: Option<&Alignment>,
    options: &AlignmentOptions,
    interner: &Interner,
) -> Vec<ThresholdPoint> {
    judge(reference, system, exclusion, options, interner, None)
        .curve()
        .into_iter()
        .map(|(threshold, counts)| ThresholdPoint {
            threshold,
            scores: PairScores { scores: profile_prf(&counts, options.beta, options.profile), counts },
        })
        .collect()
}

/// The best point of a curve (MELT `ConfidenceFinder`): scanning in the given (ascending)
/// order, a point replaces the best when its F is ≥ the best F, so ties go to the larger
/// threshold. `None` for an empty curve.
///
/// ```
/// use kgeval_metrics::align::best_threshold;
/// use kgeval_model::align::{PairScores, PrfScores, ThresholdPoint};
/// let point = |threshold, f_measure| ThresholdPoint {
///     threshold,
///     scores: PairScores { scores: PrfScores { f_measure, ..PrfScores::default() }, ..PairScores::default() },
/// };
/// let curve = [point(0.2, 0.5), point(0.4, 0.7), point(0.6, 0.7), point(0.8, 0.3)];
/// assert_eq!(best_threshold(&curve).map(|p| p.threshold), Some(0.6));
/// ```
#[must_use]
pub fn best_threshold(curve: &[ThresholdPoint]) -> Option<ThresholdPoint> {
    let mut best: Option<ThresholdPoint> = None;
    for point in curve {
        if best.is_none_or(|b| point.scores.scores.f_measure >= b.scores.scores.f_measure) {
            best = Some(*point);
        }
    }
    best
}
