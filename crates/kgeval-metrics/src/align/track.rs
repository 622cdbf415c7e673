//! Whole evaluations: one pair with everything asked for, and a track of pairs with its
//! aggregates, conventions and per-pair score table.

use kgeval_model::align::{AlignConventions, PairEvaluation, PairScores, ResidualCoverage, TrackEvaluation};
use kgeval_model::{Interner, ScoreTable};

use super::par::PAR_MIN;
use super::residual::residual_scores;
use super::scores::{aggregate, best_threshold, score_pair, threshold_curve};
use super::types::type_breakdown;
use super::validate::validate;
use super::{AlignmentOptions, PairInput};

/// Evaluates one pair: primary scores (and labels when `options.collect_labels`), secondary
/// scores when a secondary reference is given, the type breakdown when both ontologies are
/// given, the threshold curve and best threshold when `options.threshold_curve`, and the
/// [`validate`] warnings (plus the breakdown's `untyped-cell` warning).
///
/// ```
/// use kgeval_metrics::align::{evaluate_pair, AlignmentOptions, PairInput};
/// use kgeval_model::{Alignment, Correspondence, Interner, Relation};
/// let mut iris = Interner::new();
/// let mut cell = |a: &str, b: &str| Correspondence::new(iris.intern(a), iris.intern(b), Relation::Equivalence, 1.0);
/// let reference: Alignment = [cell("a", "b"), cell("c", "d")].into_iter().collect();
/// let system: Alignment = [cell("a", "b")].into_iter().collect();
/// let input = PairInput {
///     name: "toy", reference: &reference, secondary: None, system: &system,
///     exclusion: None, onto1: None, onto2: None, baseline: None,
/// };
/// let pair = evaluate_pair(&input, &AlignmentOptions::default(), &iris);
/// assert_eq!((pair.primary.scores.precision, pair.primary.scores.recall), (1.0, 0.5));
/// assert!(pair.secondary.is_none() && pair.warnings.is_empty());
/// ```
#[must_use]
pub fn evaluate_pair(input: &PairInput<'_>, options: &AlignmentOptions, interner: &Interner) -> PairEvaluation {
    let primary = || score_pair(input.reference, input.system, input.exclusion, options, interner);
    let rest = || {
        let secondary = input.secondary.map(|r| {
            let quiet = AlignmentOptions { collect_labels: false, ..options.clone() };
            score_pair(r, input.system, input.exclusion, &quiet, interner).0
        });
        (secondary, validate(input.reference, input.system, input.onto1, input.onto2, interner))
    };
    // A large system: the checks (and the secondary scoring) beside the primary scoring.
    let ((primary, labels), (secondary, mut warnings)) =
        if input.system.len() >= PAR_MIN { rayon::join(primary, rest) } else { (primary(), rest()) };
    let by_type = input.onto1.zip(input.onto2).map(|(onto1, onto2)| {
        let (by_type, found) =
            type_breakdown(input.reference, input.system, input.exclusion, options, onto1, onto2, interner);
        warnings.extend(found);
        by_type
    });
    let residual = input.baseline.map(|baseline| residual_scores(input, baseline, options, interner));
    let (curve, best) = if options.threshold_curve {
        let curve = threshold_curve(input.reference, input.system, input.exclusion, options, interner);
        let best = best_threshold(&curve);
        (curve, best)
    } else {
        (Vec::new(), None)
    };
    PairEvaluation {
        name: input.name.to_owned(),
        primary,
        secondary,
        by_type,
        residual,
        labels,
        threshold_curve: curve,
        best_threshold: best,
        warnings,
    }
}

/// Evaluates one system over a track's pairs: every pair ([`evaluate_pair`]), the micro and
/// macro aggregates against the primary references, the aggregates against the secondary
/// references over the pairs that have one (`None` when none has), the conventions in force
/// and the per-pair score table (system × pair × `precision`, `recall`, `f1`, `tp`, `fp`, `fn`,
/// plus `secondary_*` for pairs with a secondary reference; items grouped by `pair`).
///
/// ```
/// use kgeval_metrics::align::{evaluate_track, AlignmentOptions, PairInput};
/// use kgeval_model::{Alignment, Correspondence, Interner, Relation};
/// let mut iris = Interner::new();
/// let mut cell = |a: &str, b: &str| Correspondence::new(iris.intern(a), iris.intern(b), Relation::Equivalence, 1.0);
/// let reference: Alignment = [cell("a", "b"), cell("c", "d")].into_iter().collect();
/// let system: Alignment = [cell("a", "b"), cell("a", "x")].into_iter().collect();
/// let input = PairInput {
///     name: "toy", reference: &reference, secondary: None, system: &system,
///     exclusion: None, onto1: None, onto2: None, baseline: None,
/// };
/// let track = evaluate_track(&[input], &AlignmentOptions::default(), &iris, "matcher");
/// assert_eq!(track.primary.micro.scores.f_measure, 0.5);
/// let (s, i, m) = track.score_table.find("matcher", "toy", "f1").unwrap();
/// assert_eq!(track.score_table.get(s, i, m), Some(0.5));
/// ```
#[must_use]
pub fn evaluate_track(
    inputs: &[PairInput<'_>],
    options: &AlignmentOptions,
    interner: &Interner,
    system_name: &str,
) -> TrackEvaluation {
    let pairs: Vec<PairEvaluation> = inputs.iter().map(|input| evaluate_pair(input, options, interner)).collect();
    let primary_scores: Vec<PairScores> = pairs.iter().map(|p| p.primary).collect();
    let secondary_scores: Vec<PairScores> = pairs.iter().filter_map(|p| p.secondary).collect();
    let primary = aggregate(&primary_scores, options);
    let secondary = (!secondary_scores.is_empty()).then(|| aggregate(&secondary_scores, options));
    let residual_scores: Option<Vec<PairScores>> = pairs.iter().map(|p| p.residual.map(|r| r.primary)).collect();
    let residual = residual_scores.filter(|s| !s.is_empty()).map(|s| aggregate(&s, options));
    let score_table = score_table(&pairs, system_name);
    let mut conventions = conventions(options);
    conventions.residual = ResidualCoverage::of(pairs.iter().filter(|p| p.residual.is_some()).count(), pairs.len());
    TrackEvaluation {
        system: system_name.to_owned(),
        profile: options.profile,
        mode: options.mode,
        conventions,
        pairs,
        primary,
        secondary,
        residual,
        score_table,
    }
}

fn score_table(pairs: &[PairEvaluation], system_name: &str) -> ScoreTable {
    let mut table = ScoreTable::new();
    let system = table.system(system_name);
    for pair in pairs {
        let item = table.item(&pair.name, &[("pair", &pair.name)]);
        let mut put = |prefix: &str, scores: &PairScores| {
            let c = scores.counts;
            for (name, value) in [
                ("precision", scores.scores.precision),
                ("recall", scores.scores.recall),
                ("f1", scores.scores.f_measure),
                ("tp", c.tp as f64),
                ("fp", c.fp as f64),
                ("fn", c.fn_ as f64),
            ] {
                let metric = table.metric(&format!("{prefix}{name}"));
                table.set(system, item, metric, value);
            }
        };
        put("", &pair.primary);
        if let Some(secondary) = &pair.secondary {
            put("secondary_", secondary);
        }
    }
    table
}

/// The conventions in force under `options` (residual recall: not computed; the caller
/// knows which pairs have a baseline).
#[must_use]
pub fn conventions(options: &AlignmentOptions) -> AlignConventions {
    AlignConventions {
        profile: options.profile,
        mode: options.mode,
        threshold: options.threshold,
        beta: options.beta,
        relation_sensitive: options.relation_sensitivity(),
        macro_harmonic_f1: options.macro_harmonic_f1,
        expected_pairs: options.expected_pairs,
        residual: ResidualCoverage::NotComputed,
    }
}
