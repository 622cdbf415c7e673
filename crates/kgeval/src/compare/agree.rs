//! Ranking agreement of two result sets (`against`), through `kgeval_meta::agreement`.

use kgeval_meta::agreement::{agreement, AgreementOptions};
use kgeval_model::meta::agreement::{Agreement, SystemMetricTable};

use super::CompareTask;
use crate::Error;

/// The agreement of `left` with `right` over `metrics` (empty: every shared metric).
pub(super) fn agree(
    left: &SystemMetricTable,
    right: &SystemMetricTable,
    metrics: &[String],
    task: &CompareTask,
) -> Result<Agreement, Error> {
    agreement(left, right, metrics, &AgreementOptions { rbo_p: task.rbo_p }).map_err(|e| Error::invalid(e.to_string()))
}
