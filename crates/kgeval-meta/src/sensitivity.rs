//! Data sensitivity (seed 004 §5.1): Kendall's tau between the system ordering on random
//! subsets of the test items and the ordering on all of them, per metric and subset ratio.
//!
//! The subsets are drawn here; what a subset's scores are is the caller's: for per-item
//! tables whose headline is the item mean, [`item_sensitivity`] recomputes the means; for KGC
//! the facade subsamples test *triples*, rebuilds the questions and re-evaluates from the
//! per-answer observations (macro metrics cannot be averaged from a per-question table once
//! questions lose answers).
//!
//! Reproducibility: subset `(ratio index r, repeat k)` is `rand::seq::index::sample` of
//! `round(ratio × n)` indices (at least 2, at most n) from a `ChaCha8Rng` seeded with
//! `seed_from_u64(seed)` on stream `r · 2^32 + k`, then sorted; every subset is drawn and
//! evaluated independently, so results do not depend on the thread count.

use kgeval_model::meta::agreement::TauVariant;
use kgeval_model::meta::sensitivity::{Sensitivity, SensitivityPoint, SubsetSource};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::kendall::kendall_tau;
use crate::{MetaError, PairedScores};

/// The sorted item indices of random subset `repeat` of ratio number `ratio_index`.
///
/// ```
/// use kgeval_meta::sensitivity::subsample;
/// let a = subsample(100, 0.1, 2, 7, 42);
/// assert_eq!(a.len(), 10);
/// assert!(a.windows(2).all(|w| w[0] < w[1]));
/// assert_eq!(a, subsample(100, 0.1, 2, 7, 42));
/// assert_ne!(a, subsample(100, 0.1, 2, 8, 42));
/// ```
#[must_use]
pub fn subsample(n: usize, ratio: f64, ratio_index: usize, repeat: usize, seed: u64) -> Vec<usize> {
    let size = subset_size(n, ratio);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(((ratio_index as u64) << 32) | (repeat as u64 & 0xFFFF_FFFF));
    let mut indices = rand::seq::index::sample(&mut rng, n, size).into_vec();
    indices.sort_unstable();
    indices
}

/// `round(ratio × n)`, at least 2 and at most `n`.
#[must_use]
pub fn subset_size(n: usize, ratio: f64) -> usize {
    ((ratio * n as f64).round() as usize).clamp(2.min(n), n)
}

/// The subsets of `source` for `n` items, grouped per curve point: `(ratio, subsets)`.
///
/// # Errors
/// [`MetaError::InvalidOption`] for a ratio outside (0, 1], no ratio, zero repeats, an empty
/// given subset or an index ≥ `n`.
pub fn subsets(n: usize, source: &SubsetSource) -> Result<Vec<CurvePoint>, MetaError> {
    match source {
        SubsetSource::Random { ratios, repeats, seed } => {
            if ratios.is_empty() || *repeats == 0 {
                return Err(MetaError::InvalidOption(
                    "data sensitivity: expected at least one ratio and one repeat".into(),
                ));
            }
            if let Some(bad) = ratios.iter().find(|r| !(**r > 0.0 && **r <= 1.0)) {
                return Err(MetaError::InvalidOption(format!("data sensitivity: ratio {bad} is outside (0, 1]")));
            }
            Ok(ratios
                .iter()
                .enumerate()
                .map(|(index, &ratio)| {
                    (ratio, (0..*repeats).map(|repeat| subsample(n, ratio, index, repeat, *seed)).collect())
                })
                .collect())
        }
        SubsetSource::Given(given) => {
            let mut by_size: Vec<(usize, Vec<Vec<usize>>)> = Vec::new();
            for (line, subset) in given.iter().enumerate() {
                if subset.is_empty() {
                    return Err(MetaError::InvalidOption(format!("data sensitivity: subset {} is empty", line + 1)));
                }
                if let Some(bad) = subset.iter().find(|&&i| i >= n) {
                    return Err(MetaError::InvalidOption(format!(
                        "data sensitivity: subset {} names item index {bad}, but there are {n} items (0-based)",
                        line + 1
                    )));
                }
                match by_size.iter_mut().find(|(size, _)| *size == subset.len()) {
                    Some((_, group)) => group.push(subset.clone()),
                    None => by_size.push((subset.len(), vec![subset.clone()])),
                }
            }
            by_size.sort_by_key(|(size, _)| *size);
            Ok(by_size.into_iter().map(|(size, group)| (size as f64 / n.max(1) as f64, group)).collect())
        }
    }
}

/// One point of the curve before evaluation: its ratio and its subsets (sorted indices).
pub type CurvePoint = (f64, Vec<Vec<usize>>);

/// Everything a sensitivity run needs besides the scores.
#[derive(Debug, Clone)]
pub struct SensitivitySetup {
    /// The metrics, in the order of the score vectors.
    pub metrics: Vec<String>,
    /// The systems, in the order of each score vector.
    pub systems: Vec<String>,
    /// The number of items subsampled.
    pub items: usize,
    /// What an item is (`items`, `test triples`).
    pub unit: String,
    /// The subsets.
    pub source: SubsetSource,
    /// The Kendall variant.
    pub variant: TauVariant,
}

/// The sensitivity curve: `full[m][s]` is system `s`'s value of metric `m` on every item;
/// `evaluate(subset)` returns the same shape on a subset (sorted indices).
///
/// # Errors
/// Whatever `evaluate` returns; [`MetaError`] (converted) for invalid subsets or fewer than 2
/// systems.
pub fn sensitivity<F, E>(setup: SensitivitySetup, full: &[Vec<f64>], evaluate: F) -> Result<Sensitivity, E>
where
    F: Fn(&[usize]) -> Result<Vec<Vec<f64>>, E> + Sync,
    E: From<MetaError> + Send,
{
    if setup.systems.len() < 2 {
        return Err(MetaError::TooFew { what: "systems to order".into(), needed: 2, found: setup.systems.len() }.into());
    }
    let groups = subsets(setup.items, &setup.source)?;
    let mut points = Vec::with_capacity(groups.len());
    for (ratio, group) in groups {
        let taus: Vec<Vec<f64>> = group
            .par_iter()
            .map(|subset| {
                let values = evaluate(subset)?;
                full.iter()
                    .zip(&values)
                    .map(|(all, part)| Ok(kendall_tau(all, part, setup.variant)?.tau))
                    .collect::<Result<Vec<f64>, E>>()
            })
            .collect::<Result<_, E>>()?;
        points.push(point(ratio, group.first().map_or(0, Vec::len), &taus, setup.metrics.len()));
    }
    Ok(Sensitivity {
        metrics: setup.metrics,
        systems: setup.systems,
        items: setup.items,
        unit: setup.unit,
        variant: format!("tau-{}", setup.variant.name()),
        source: setup.source,
        points,
    })
}

/// Mean and sample standard deviation per metric over the subsets with a defined tau.
fn point(ratio: f64, size: usize, taus: &[Vec<f64>], metrics: usize) -> SensitivityPoint {
    let mut mean_tau = Vec::with_capacity(metrics);
    let mut sd_tau = Vec::with_capacity(metrics);
    let mut undefined = Vec::with_capacity(metrics);
    for metric in 0..metrics {
        let defined: Vec<f64> = taus.iter().map(|t| t[metric]).filter(|t| t.is_finite()).collect();
        undefined.push(taus.len() - defined.len());
        let n = defined.len() as f64;
        let mean = defined.iter().sum::<f64>() / n;
        let sd = if defined.len() > 1 {
            (defined.iter().map(|t| (t - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
        } else {
            0.0
        };
        mean_tau.push(mean);
        sd_tau.push(if defined.is_empty() { f64::NAN } else { sd });
    }
    SensitivityPoint { ratio, size, subsets: taus.len(), mean_tau, sd_tau, undefined }
}

/// Sensitivity of per-item metrics whose headline is the item mean: a subset's value is the
/// mean over its items. Every score table must have the same items in the same order (build
/// them with the same missing-value policy).
///
/// # Errors
/// [`MetaError::InvalidOption`] when the tables' systems or items differ; as [`sensitivity`].
pub fn item_sensitivity(
    scores: &[PairedScores],
    source: SubsetSource,
    variant: TauVariant,
) -> Result<Sensitivity, MetaError> {
    let Some(first) = scores.first() else {
        return Err(MetaError::InvalidOption("data sensitivity: no metric".into()));
    };
    if let Some(other) = scores.iter().find(|s| s.items != first.items || s.systems != first.systems) {
        return Err(MetaError::InvalidOption(format!(
            "data sensitivity: metrics `{}` and `{}` are not scored on the same items and systems",
            first.metric, other.metric
        )));
    }
    let setup = SensitivitySetup {
        metrics: scores.iter().map(|s| s.metric.clone()).collect(),
        systems: first.systems.clone(),
        items: first.n_items(),
        unit: "items".into(),
        source,
        variant,
    };
    let full: Vec<Vec<f64>> = scores.iter().map(PairedScores::means).collect();
    sensitivity(setup, &full, |subset| Ok(scores.iter().map(|s| s.select_items(subset).means()).collect()))
}

#[cfg(test)]
mod tests {
    use kgeval_model::metric_names::Direction;

    use super::*;

    fn scores(values: Vec<f64>, n_items: usize) -> PairedScores {
        let systems = vec!["A".to_owned(), "B".to_owned(), "C".to_owned()];
        let items = (0..n_items).map(|i| format!("q{i}")).collect();
        PairedScores::new("map", Direction::Higher, systems, items, values).unwrap()
    }

    #[test]
    fn subsets_are_reproducible_and_sized() {
        let source = SubsetSource::Random { ratios: vec![0.01, 0.5, 1.0], repeats: 3, seed: 7 };
        let groups = subsets(40, &source).unwrap();
        assert_eq!(groups.len(), 3);
        // 1 % of 40 rounds to 0: at least two items are kept.
        assert!(groups[0].1.iter().all(|s| s.len() == 2));
        assert!(groups[1].1.iter().all(|s| s.len() == 20));
        assert_eq!(groups[2].1[0], (0..40).collect::<Vec<_>>());
        assert_eq!(groups, subsets(40, &source).unwrap());
        assert_ne!(groups[1].1[0], groups[1].1[1]);
    }

    #[test]
    fn bad_subsets_are_errors() {
        let bad_ratio = SubsetSource::Random { ratios: vec![1.5], repeats: 3, seed: 7 };
        assert!(matches!(subsets(10, &bad_ratio), Err(MetaError::InvalidOption(_))));
        let bad_index = SubsetSource::Given(vec![vec![0, 10]]);
        assert!(matches!(subsets(10, &bad_index), Err(MetaError::InvalidOption(_))));
    }

    /// Items where every system keeps its order give tau = 1 at every ratio; a given subset
    /// reversing the order gives -1, worked out by hand.
    #[test]
    fn hand_worked_curve() {
        // Items 0..3: A > B > C; item 4: C > B > A by a wide margin.
        let mut values = Vec::new();
        for _ in 0..4 {
            values.extend([0.9, 0.5, 0.1]);
        }
        values.extend([0.0, 0.5, 1.0]);
        let table = scores(values, 5);
        // Full means: A 0.72, B 0.5, C 0.28. Subset {4}: C > B > A (tau -1). Subset {0, 1}:
        // same order (tau 1). Subset {3, 4}: A 0.45, B 0.5, C 0.55 (tau -1).
        let source = SubsetSource::Given(vec![vec![4], vec![0, 1], vec![3, 4]]);
        let result = item_sensitivity(&[table], source, TauVariant::B).unwrap();
        assert_eq!(result.points.len(), 2);
        assert_eq!((result.points[0].size, result.points[0].mean_tau[0]), (1, -1.0));
        assert_eq!(result.points[1].size, 2);
        assert_eq!(result.points[1].mean_tau[0], 0.0);
        assert!((result.points[1].sd_tau[0] - 2f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn same_result_at_one_and_two_threads() {
        let values: Vec<f64> = (0..300).map(|i| f64::from((i * 37 % 101) as u32) / 101.0).collect();
        let table = scores(values, 100);
        let run = |threads| {
            rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(|| {
                item_sensitivity(std::slice::from_ref(&table), SubsetSource::seed_004(), TauVariant::B).unwrap()
            })
        };
        let one = run(1);
        assert_eq!(one.points.len(), 12);
        assert_eq!(one.points.last().unwrap().subsets, 50);
        assert_eq!(format!("{one:?}"), format!("{:?}", run(2)));
    }
}
