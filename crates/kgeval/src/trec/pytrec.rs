//! pytrec_eval's module-level helpers, decided here so every front end agrees:
//! `supported_measures` (the trec_eval measure families kgeval computes) and
//! `compute_aggregated_measure` (a summary over per-query values).

use kgeval_model::trec::{Aggregation, MeasureFamily};

use crate::Error;

/// The trec_eval measure families kgeval computes, by trec_eval's name (`map`, `P`,
/// `ndcg_cut` …): pytrec_eval's `supported_measures`.
///
/// ```
/// let names = kgeval::trec::supported_measures();
/// assert!(names.contains(&"map") && names.contains(&"ndcg_cut") && names.contains(&"gm_map"));
/// ```
#[must_use]
pub fn supported_measures() -> Vec<&'static str> {
    MeasureFamily::ALL.iter().filter(|f| f.is_trec_eval()).map(|f| f.name()).collect()
}

/// pytrec_eval's `compute_aggregated_measure(measure, values)`: the sum of `num_*` values,
/// `exp(mean)` of `gm_*` values (pytrec_eval's per-query `gm_*` values are logarithms), else
/// the arithmetic mean.
///
/// ```
/// assert_eq!(kgeval::trec::aggregate_measure("map", &[0.5, 0.25])?, 0.375);
/// assert_eq!(kgeval::trec::aggregate_measure("num_ret", &[3.0, 4.0])?, 7.0);
/// assert_eq!(kgeval::trec::aggregate_measure("gm_map", &[0.0, 0.0])?, 1.0);
/// # Ok::<(), kgeval::Error>(())
/// ```
///
/// # Errors
/// [`Error::Invalid`] for no value (a mean of nothing) or a value that is not finite.
pub fn aggregate_measure(measure: &str, values: &[f64]) -> Result<f64, Error> {
    if let Some(i) = values.iter().position(|v| !v.is_finite()) {
        return Err(Error::invalid(format!("values[{i}]: found {}, expected a finite number", values[i])));
    }
    let aggregation = if measure.starts_with("num_") {
        Aggregation::Sum
    } else if measure.starts_with("gm_") {
        Aggregation::GeometricMean
    } else {
        Aggregation::Mean
    };
    let sum: f64 = values.iter().sum();
    if values.is_empty() && aggregation != Aggregation::Sum {
        return Err(Error::invalid(format!("values: found none, expected at least one per-query value of {measure}")));
    }
    #[allow(clippy::cast_precision_loss)] // a count of queries
    let mean = sum / values.len() as f64;
    Ok(match aggregation {
        Aggregation::Sum => sum,
        Aggregation::GeometricMean => mean.exp(),
        _ => mean,
    })
}
