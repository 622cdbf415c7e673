//! An evaluation's values as one Arrow table (feature `arrow`), for `--format parquet|arrow
//! -o FILE` in every family: trec's `(run, qid, measure, value)`
//! ([`trec::arrow::results_batch`](crate::trec::arrow::results_batch)), and for the other
//! families the per-item score table every family fills, `(system, item, metric, value)`:
//! each system's per-item values (items in the table's order, metrics in its order), then its
//! headlines under item `all`, as trec_eval names a summary.

use std::sync::Arc;

use kgeval_formats::arrow::arrow_array::{ArrayRef, Float64Array, RecordBatch, StringArray};
use kgeval_formats::arrow::{write_batch, ArrowFileKind};
use kgeval_model::ScoreTable;

use crate::{Error, Evaluation, Family};

/// The item headline rows are filed under.
pub const SUMMARY_ITEM: &str = "all";

/// The per-item score table as one record batch `(system: utf8, item: utf8, metric: utf8,
/// value: float64)`: per system, its per-item values, then its headlines under item
/// [`SUMMARY_ITEM`].
///
/// # Errors
/// [`Error::Invalid`] when Arrow refuses the columns (it does not for these types).
pub fn table_batch(table: &ScoreTable) -> Result<RecordBatch, Error> {
    let (mut systems, mut items, mut metrics, mut values) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let rows = table.rows();
    let headlines = table.headlines();
    let (mut row, mut headline) = (rows.iter().peekable(), headlines.iter().peekable());
    for (index, system) in table.systems().enumerate() {
        while let Some(&&(_, item, metric, value)) = row.peek().filter(|r| r.0 .0 as usize == index) {
            systems.push(system);
            items.push(table.item_info(item).name.as_str());
            metrics.push(table.metric_name(metric));
            values.push(value);
            row.next();
        }
        while let Some(&&(_, metric, value)) = headline.peek().filter(|h| h.0 .0 as usize == index) {
            systems.push(system);
            items.push(SUMMARY_ITEM);
            metrics.push(table.metric_name(metric));
            values.push(value);
            headline.next();
        }
    }
    long_batch(["system", "item", "metric"], [systems, items, metrics], values)
}

/// A long table of three utf8 columns named `names` (who, which item, which metric) and a
/// float64 `value`: the layout of every Arrow output.
///
/// # Errors
/// [`Error::Invalid`] when Arrow refuses the columns (columns of unequal length).
pub(crate) fn long_batch(names: [&str; 3], labels: [Vec<&str>; 3], values: Vec<f64>) -> Result<RecordBatch, Error> {
    let mut columns: Vec<(&str, ArrayRef)> = names
        .into_iter()
        .zip(labels)
        .map(|(name, column)| (name, Arc::new(StringArray::from(column)) as ArrayRef))
        .collect();
    columns.push(("value", Arc::new(Float64Array::from(values))));
    RecordBatch::try_from_iter(columns).map_err(|e| Error::invalid(format!("to Arrow: {e}")))
}

/// The evaluation as the bytes of a Parquet (Snappy) or Arrow IPC file: trec's
/// [`results_file`](crate::trec::arrow::results_file), every other family's
/// [`table_batch`]. Written atomically by the caller.
///
/// # Errors
/// `name` (the output) when the encoder fails.
pub fn evaluation_file(evaluation: &Evaluation, kind: ArrowFileKind, name: &str) -> Result<Vec<u8>, Error> {
    if evaluation.family == Family::Trec {
        return crate::trec::arrow::results_file(evaluation, kind, name);
    }
    let batch = table_batch(&evaluation.table)?;
    let mut bytes = Vec::new();
    write_batch(&mut bytes, kind, &batch, name)?;
    Ok(bytes)
}
