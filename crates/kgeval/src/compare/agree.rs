//! Ranking agreement of two result sets (`against`), through `kgeval_meta::agreement`.

use kgeval_meta::agreement::{agreement, AgreementOptions};
use kgeval_model::meta::agreement::{Agreement, SystemMetricTable};

use super::CompareTask;
use crate::Error;

/// The agreement of `left` with `right` over `metrics` (empty: every shared metric).
///
/// Every row must compare at least two shared systems: with fewer there is no ordering to
/// compare (tau undefined, RBO trivially 1), so it is an error naming the counts.
pub(super) fn agree(
    left: &SystemMetricTable,
    right: &SystemMetricTable,
    metrics: &[String],
    task: &CompareTask,
) -> Result<Agreement, Error> {
    let result = agreement(left, right, metrics, &AgreementOptions { rbo_p: task.rbo_p })
        .map_err(|e| Error::invalid(e.to_string()))?;
    if let Some(row) = result.rows.iter().find(|row| row.n_systems < 2) {
        let place = if row.group.0.is_empty() {
            format!("metric `{}`", row.metric)
        } else {
            format!("metric `{}`, group {}", row.metric, row.group)
        };
        return Err(Error::invalid(format!(
            "{place}: found {} system{} shared by both sides ({} left, {} right), expected at least 2 to compare \
             their orderings",
            row.n_systems,
            if row.n_systems == 1 { "" } else { "s" },
            row.n_systems + row.only_left.len(),
            row.n_systems + row.only_right.len()
        )));
    }
    Ok(result)
}
