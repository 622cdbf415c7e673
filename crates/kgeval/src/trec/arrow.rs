//! Arrow in and out for the IR family (feature `arrow`): runs and qrels read from Parquet and
//! Arrow IPC files, and an evaluation's per-topic values and summary as one Arrow table
//! `(run, qid, measure, value)` — written as a file, or handed to a front end (Python's
//! `to_arrow()`).

use kgeval_formats::arrow::arrow_array::RecordBatch;
use kgeval_formats::arrow::{batch_error, batches_from_bytes, read_qrels, write_batch, ArrowFileKind, RunColumns};
use kgeval_formats::{FormatError, Input, InputBytes, Read};
use kgeval_model::trec::{MeasureFamily, Qrels};
use kgeval_model::Diagnostic;

use super::InternedRun;
use crate::{Error, Evaluation, FamilyResult};

/// The kind of Arrow table an opened input holds: by the input's extension (`.parquet`,
/// `.arrow`, `.feather`, `.ipc`, `.arrows`), else by its content's magic bytes
/// ([`ArrowFileKind::of_content`]: standard input, gzip, any other name); `None` for text.
#[must_use]
pub fn table_kind(input: &Input, opened: &InputBytes) -> Option<ArrowFileKind> {
    input.as_path().and_then(ArrowFileKind::of_path).or_else(|| ArrowFileKind::of_content(opened.bytes()))
}

/// Reads qrels from an opened Parquet or Arrow IPC table (columns `qid, docno, rel`, or
/// `query_id, doc_id, relevance`: [`kgeval_formats::arrow::QRELS_COLUMNS`]), without a copy of
/// the bytes. The warnings: the columns kgeval does not read.
///
/// # Errors
/// Not a table of `kind` this build reads; a column missing, of another type or null, or two
/// columns for one role; an id that is not one ([`kgeval_formats::ids`]); a (qid, docno)
/// judged twice; no row.
pub fn read_qrels_table(opened: InputBytes, kind: ArrowFileKind) -> Result<Read<Qrels>, Error> {
    let name = opened.name().to_owned();
    let batches = batches_from_bytes(opened.into_shared(), kind, &name)?;
    Ok(read_qrels(&batches.schema, batches.batches, &name)?)
}

/// Reads a run from an opened Parquet or Arrow IPC table (columns `qid, docno, score`, or
/// `query_id, doc_id, score`: [`kgeval_formats::arrow::RUN_COLUMNS`]), rows in any order. Its
/// runid is the last row's `tag` ([`kgeval_formats::arrow::RUN_TAG_COLUMNS`]), `kgeval`
/// without that column. The warnings: the columns kgeval does not read.
///
/// # Errors
/// Not a table of `kind` this build reads; a column missing, of another type or null, or two
/// columns for one role; an id that is not one ([`kgeval_formats::ids`]); no row (as a text
/// run without a line).
pub fn read_run_table(opened: InputBytes, kind: ArrowFileKind) -> Result<Read<InternedRun>, Error> {
    let name = opened.name().to_owned();
    let batches = batches_from_bytes(opened.into_shared(), kind, &name)?;
    let columns = RunColumns::resolve(&batches.schema, &name)?;
    let warnings: Vec<Diagnostic> = columns.warnings(&name);
    Ok(Read { value: intern_run_batches(&columns, batches.batches, &name)?, warnings })
}

/// The error for a run table without a row: an empty text run's, with or without `complete`.
#[must_use]
pub fn no_rows(name: &str) -> FormatError {
    FormatError::syntax(name, 0, 0, "found no rows, expected at least one `qid, docno, score` row")
}

/// A run's record batches (columns already resolved) copied into an [`InternedRun`], rows in
/// any order: the file reader's and the Python package's general path.
///
/// # Errors
/// A batch that cannot be read; a null or ill-typed value, an id that is not one (named with
/// its row); no row at all ([`no_rows`]).
pub fn intern_run_batches<E: std::error::Error + 'static>(
    columns: &RunColumns,
    batches: impl IntoIterator<Item = Result<RecordBatch, E>>,
    name: &str,
) -> Result<InternedRun, FormatError> {
    let mut run = InternedRun::with_capacity(0, 0);
    let mut first_row = 0u64;
    // The last batch with rows, and its first row: its last row's tag names the run.
    let mut last: Option<(RecordBatch, u64)> = None;
    for batch in batches {
        let batch = batch.map_err(|e| batch_error(name, &e))?;
        let rows = columns.batch(&batch, name, first_row)?;
        if batch.num_rows() > 0 {
            last = Some((batch.clone(), first_row));
        }
        for (qid, range) in rows.topics() {
            let slot = run.topic(qid);
            run.reserve(slot, range.len());
            for row in range {
                run.push(slot, rows.docno.get(row), rows.score.f64(row));
            }
        }
        first_row += batch.num_rows() as u64;
    }
    let Some((batch, batch_first_row)) = last else { return Err(no_rows(name)) };
    if let Some(run_id) = columns.run_id(&batch, name, batch_first_row)? {
        run.set_run_id(run_id);
    }
    Ok(run)
}

/// The evaluation's values as one record batch `(run: utf8, qid: utf8, measure: utf8,
/// value: float64)`: per run, its per-topic rows (`per_query`; topics in the evaluation's
/// order, measures in trec_eval's) then its summary rows under qid `all` (`summary`), as
/// `--format csv` and trec_eval's `-q` name them. `runid` is not a value and has no row;
/// summary-only measures (`num_q`, `gm_map`) have summary rows only.
///
/// # Errors
/// [`Error::Invalid`] for an evaluation of another family.
pub fn results_batch(evaluation: &Evaluation, per_query: bool, summary: bool) -> Result<RecordBatch, Error> {
    let FamilyResult::Trec(result) = &evaluation.result else {
        return Err(Error::invalid("to Arrow: expected a trec evaluation"));
    };
    let measures = result.measures.measures();
    let topic_measures: Vec<usize> = (0..measures.len())
        .filter(|&i| measures[i].family.per_topic() && measures[i].family != MeasureFamily::Runid)
        .collect();
    let (mut runs, mut qids, mut names, mut values) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for run in &result.runs {
        if per_query {
            for topic in &run.topics {
                for &i in &topic_measures {
                    runs.push(run.name.as_str());
                    qids.push(topic.qid.as_str());
                    names.push(measures[i].name.as_str());
                    values.push(topic.values[i]);
                }
            }
        }
        if summary {
            for (measure, &value) in measures.iter().zip(&run.summary) {
                if measure.family != MeasureFamily::Runid {
                    runs.push(run.name.as_str());
                    qids.push("all");
                    names.push(measure.name.as_str());
                    values.push(value);
                }
            }
        }
    }
    crate::table_arrow::long_batch(["run", "qid", "measure"], [runs, qids, names], values)
}

/// [`results_batch`] (per-topic rows and the summary) as the bytes of a Parquet (Snappy) or
/// Arrow IPC file, for `--format parquet|arrow -o FILE` (written atomically by the caller).
///
/// # Errors
/// As [`results_batch`]; `name` (the output) when the encoder fails.
pub fn results_file(evaluation: &Evaluation, kind: ArrowFileKind, name: &str) -> Result<Vec<u8>, Error> {
    let batch = results_batch(evaluation, true, true)?;
    let mut bytes = Vec::new();
    write_batch(&mut bytes, kind, &batch, name)?;
    Ok(bytes)
}
