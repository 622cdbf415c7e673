//! Discriminative power (Sakai 2006): how many system pairs a metric's test separates.
//!
//! From the p-values of every system pair (one metric): the number of pairs, how many are
//! significant at α (p < α) and at 0.01, the area under the p-value curve sorted in
//! descending order — the plain sum of the p-values (unit spacing, no trapezoid), so a smaller
//! area means a more discriminative metric, as in the kgc-sparsity paper's Figure 8 — the
//! median p-value (mean of the two middle ones for an even count) and the curve's points.

use kgeval_model::meta::significance::{DiscriminativePower, PValueMatrix, SignificanceResult};

use crate::MetaError;

/// The discriminative power of one metric from its pair p-values (raw or adjusted, as the
/// caller chooses).
///
/// # Errors
/// [`MetaError::TooFew`] without p-values; [`MetaError::InvalidOption`] for α outside (0, 1)
/// or a p-value that is NaN or outside [0, 1].
pub fn discriminative_power(metric: &str, p_values: &[f64], alpha: f64) -> Result<DiscriminativePower, MetaError> {
    if !(alpha > 0.0 && alpha < 1.0) {
        return Err(MetaError::InvalidOption(format!("alpha must be in (0, 1), got {alpha}")));
    }
    if p_values.is_empty() {
        return Err(MetaError::TooFew { what: format!("p-values of metric {metric}"), needed: 1, found: 0 });
    }
    if let Some(p) = p_values.iter().find(|p| !(0.0..=1.0).contains(*p)) {
        return Err(MetaError::InvalidOption(format!("metric {metric}: {p} is not a p-value (expected 0 ≤ p ≤ 1)")));
    }
    let mut curve = p_values.to_vec();
    curve.sort_by(|a, b| b.total_cmp(a));
    let n = curve.len();
    let median_p = if n % 2 == 1 { curve[n / 2] } else { (curve[n / 2 - 1] + curve[n / 2]) / 2.0 };
    Ok(DiscriminativePower {
        metric: metric.to_owned(),
        alpha,
        pairs: n,
        significant: p_values.iter().filter(|p| **p < alpha).count(),
        significant_at_01: p_values.iter().filter(|p| **p < 0.01).count(),
        area: curve.iter().sum(),
        median_p,
        curve,
    })
}

/// The discriminative power of a significance result, from its adjusted p-values (the raw
/// ones when `adjusted` is false) at the result's α.
///
/// # Errors
/// As [`discriminative_power`].
pub fn power_of(result: &SignificanceResult, adjusted: bool) -> Result<DiscriminativePower, MetaError> {
    let p: Vec<f64> = result.pairs.iter().map(|pair| if adjusted { pair.p_adjusted } else { pair.p_value }).collect();
    discriminative_power(&result.metric, &p, result.alpha)
}

/// The p-value matrix of several metrics' results over the same systems (kgc-sparsity's
/// `discriminative_power.csv` content: one column per metric, one entry per pair a < b), with
/// the adjusted p-values when `adjusted` is true, else the raw ones.
///
/// # Errors
/// [`MetaError::TooFew`] without results; [`MetaError::InvalidOption`] when the results do not
/// compare the same systems in the same order.
pub fn pvalue_matrix(results: &[SignificanceResult], adjusted: bool) -> Result<PValueMatrix, MetaError> {
    let Some(first) = results.first() else {
        return Err(MetaError::TooFew { what: "significance results".into(), needed: 1, found: 0 });
    };
    if let Some(other) = results.iter().find(|r| r.systems != first.systems) {
        return Err(MetaError::InvalidOption(format!(
            "metric {} compares other systems than metric {}: one p-value matrix needs the same systems",
            other.metric, first.metric
        )));
    }
    Ok(PValueMatrix {
        systems: first.systems.clone(),
        metrics: results.iter().map(|r| r.metric.clone()).collect(),
        pairs: first.pairs.iter().map(|p| (p.a, p.b)).collect(),
        p_values: results
            .iter()
            .map(|r| r.pairs.iter().map(|p| if adjusted { p.p_adjusted } else { p.p_value }).collect())
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{compare_systems, PairedScores, SignificanceOptions};
    use kgeval_model::metric_names::Direction;

    #[test]
    fn matrix_of_results() {
        let names = |n: usize, p: &str| (0..n).map(|i| format!("{p}{i}")).collect::<Vec<_>>();
        let values: Vec<f64> = (0..30).map(|i| f64::from(i % 7) / 7.0 + f64::from(i % 3) * 0.1).collect();
        let scores = PairedScores::new("map", Direction::Higher, names(3, "S"), names(10, "q"), values).unwrap();
        let mut mrr = scores.clone();
        mrr.metric = "mrr".into();
        let options = SignificanceOptions::default();
        let results = [compare_systems(&scores, &options).unwrap(), compare_systems(&mrr, &options).unwrap()];
        let matrix = pvalue_matrix(&results, false).unwrap();
        assert_eq!(matrix.metrics, ["map", "mrr"]);
        assert_eq!(matrix.pairs, [(0, 1), (0, 2), (1, 2)]);
        assert_eq!(matrix.metric("map").unwrap()[2], results[0].pairs[2].p_value);
        let power = power_of(&results[0], true).unwrap();
        assert_eq!(power.pairs, 3);
        assert!(pvalue_matrix(&[], true).is_err());
        let mut other = results[1].clone();
        other.systems[0] = "X".into();
        assert!(pvalue_matrix(&[results[0].clone(), other], true).is_err());
    }

    #[test]
    fn counts_area_median_by_hand() {
        let p = [0.2, 0.001, 0.04, 0.5, 0.009];
        let power = discriminative_power("map", &p, 0.05).unwrap();
        assert_eq!(power.pairs, 5);
        assert_eq!(power.significant, 3);
        assert_eq!(power.significant_at_01, 2);
        assert!((power.area - 0.75).abs() < 1e-15);
        assert_eq!(power.median_p, 0.04);
        assert_eq!(power.curve, vec![0.5, 0.2, 0.04, 0.009, 0.001]);
        let even = discriminative_power("map", &p[..4], 0.05).unwrap();
        assert!((even.median_p - 0.12).abs() < 1e-15);
        // p = α is not significant.
        assert_eq!(discriminative_power("map", &[0.05], 0.05).unwrap().significant, 0);
    }

    #[test]
    fn bad_p_values() {
        assert!(matches!(discriminative_power("m", &[], 0.05), Err(MetaError::TooFew { .. })));
        assert!(matches!(discriminative_power("m", &[f64::NAN], 0.05), Err(MetaError::InvalidOption(_))));
        assert!(matches!(discriminative_power("m", &[1.5], 0.05), Err(MetaError::InvalidOption(_))));
        assert!(matches!(discriminative_power("m", &[0.5], 1.0), Err(MetaError::InvalidOption(_))));
    }
}
