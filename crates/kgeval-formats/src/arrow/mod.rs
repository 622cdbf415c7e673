//! Arrow columns in, Arrow tables out (feature `arrow`): TREC runs and qrels as record
//! batches — from any producer of [`RecordBatch`]es (an Arrow C stream, a Parquet or Arrow IPC
//! file: [`open_batches`]) — and per-topic results written back as Parquet or Arrow IPC
//! ([`write_batch`]).
//!
//! Columns are found by name ([`RUN_COLUMNS`], [`QRELS_COLUMNS`]: the TREC file's names, and
//! ir_measures' / ranx's); ids are `utf8`, `large_utf8`, `utf8_view` or a dictionary of one of
//! them; scores any float or integer type; relevance any integer type. Values are read in
//! place from the batch's buffers ([`IdColumn`], [`Numbers`]): nothing is copied per column.
//!
//! ```
//! use std::sync::Arc;
//! use kgeval_formats::arrow::arrow_array::{ArrayRef, Float32Array, RecordBatch, StringArray};
//! use kgeval_formats::arrow::RunColumns;
//!
//! let batch = RecordBatch::try_from_iter([
//!     ("query_id", Arc::new(StringArray::from(vec!["q1", "q1", "q2"])) as ArrayRef),
//!     ("doc_id", Arc::new(StringArray::from(vec!["d1", "d2", "d1"])) as ArrayRef),
//!     ("score", Arc::new(Float32Array::from(vec![2.0, 1.5, 0.5])) as ArrayRef),
//! ])?;
//! let columns = RunColumns::resolve(&batch.schema(), "run")?;
//! let run = columns.batch(&batch, "run", 0)?;
//! let topics: Vec<_> = run.topics().collect();
//! assert_eq!(topics, [("q1", 0..2), ("q2", 2..3)]);
//! assert_eq!((run.docno.get(1), run.score.f64(1)), ("d2", 1.5));
//!
//! let error = RunColumns::resolve(&batch.schema(), "run").and_then(|_| {
//!     kgeval_formats::arrow::QrelsColumns::resolve(&batch.schema(), "qrels")
//! });
//! assert_eq!(
//!     error.unwrap_err().to_string(),
//!     "qrels: found columns query_id, doc_id, score, expected a relevance column named one of rel, relevance, label"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod budget;
#[cfg(test)]
mod budget_tests;
mod columns;
mod files;
mod guard;
mod ipc_read;
#[cfg(test)]
mod malformed_tests;
mod resolve;

use std::ops::Range;

use arrow_array::{Array, RecordBatch, StringArray};
use arrow_schema::{ArrowError, Schema};
use kgeval_model::trec::{check_relevance, Qrels, RunDoc};
use kgeval_model::Diagnostic;

pub use arrow_array;
pub use arrow_ipc as ipc;
pub use arrow_schema;
pub use budget::batch_error;
pub use columns::{IdColumn, IdValues, Keys, Numbers};
pub use files::{batches_from_bytes, open_batches, write_batch, ArrowFileKind, Batches};

use crate::ids::{id_message, id_problem};
use crate::{FormatError, Read};
use resolve::{unknown_columns_warning, Role};

/// The names a run's columns go by, in order of preference: query id, document id, score.
pub const RUN_COLUMNS: [&[&str]; 3] = [&["qid", "query_id", "q_id"], &["docno", "doc_id", "docid"], &["score"]];

/// The names a run's optional tag column goes by (the TREC file's sixth column): the run's id
/// is its last row's value, as trec_eval takes the last line's tag.
pub const RUN_TAG_COLUMNS: &[&str] = &["tag", "run_id", "runid"];

/// The names a qrels' columns go by, in order of preference: query id, document id,
/// relevance.
pub const QRELS_COLUMNS: [&[&str]; 3] =
    [&["qid", "query_id", "q_id"], &["docno", "doc_id", "docid"], &["rel", "relevance", "label"]];

/// The columns of a run converted from a TREC file that kgeval knows and does not read (as
/// trec_eval reads neither the `Q0` nor the rank field): no warning names them.
pub const RUN_IGNORED_COLUMNS: &[&str] = &["iter", "iteration", "q0", "Q0", "rank"];

/// The columns of qrels converted from a TREC file that kgeval knows and does not read.
pub const QRELS_IGNORED_COLUMNS: &[&str] = &["iter", "iteration"];

/// The roles of a run's columns: query id, document id, score, tag.
const RUN_ROLES: [Role; 4] = [
    Role { role: "query id", names: RUN_COLUMNS[0], required: true },
    Role { role: "document id", names: RUN_COLUMNS[1], required: true },
    Role { role: "score", names: RUN_COLUMNS[2], required: true },
    Role { role: "tag", names: RUN_TAG_COLUMNS, required: false },
];

/// The roles of a qrels' columns: query id, document id, relevance.
const QRELS_ROLES: [Role; 3] = [
    Role { role: "query id", names: QRELS_COLUMNS[0], required: true },
    Role { role: "document id", names: QRELS_COLUMNS[1], required: true },
    Role { role: "relevance", names: QRELS_COLUMNS[2], required: true },
];

/// Where a run's three columns are in a schema ([`RunColumns::resolve`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunColumns {
    /// The index and name of the query id, document id and score columns.
    columns: [(usize, String); 3],
    /// The index and name of the tag column, when there is one ([`RUN_TAG_COLUMNS`]).
    tag: Option<(usize, String)>,
    /// The names of the columns kgeval does not read.
    unknown: Vec<String>,
}

/// Where a qrels' three columns are in a schema ([`QrelsColumns::resolve`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QrelsColumns {
    /// The index and name of the query id, document id and relevance columns.
    columns: [(usize, String); 3],
    /// The names of the columns kgeval does not read.
    unknown: Vec<String>,
}

/// The error `what: message` (no line: Arrow input has rows, named in the message).
fn error(what: &str, message: impl Into<String>) -> FormatError {
    FormatError::syntax(what, 0, 0, message)
}

/// The id column view of `array` (a string type, or a dictionary of one); its nulls are not
/// checked here.
///
/// # Errors
/// The problem, as a message: another type, or a dictionary key outside the dictionary.
pub fn id_column(array: &arrow_array::ArrayRef) -> Result<IdColumn<'_>, String> {
    columns::id_column(array).map_err(|problem| match problem {
        columns::IdProblem::Type => format!("found {}, expected strings", array.data_type()),
        columns::IdProblem::Key(row) => format!("row {}: a dictionary key outside the dictionary", row + 1),
    })
}

/// The numbers of `array` read in place (any float or integer type); `None` for another type.
/// Its nulls are not checked here.
#[must_use]
pub fn numbers_of(array: &arrow_array::ArrayRef) -> Option<Numbers<'_>> {
    columns::numbers(array)
}

/// The three required columns of `resolved` (which [`resolve::resolve`] checked are there).
fn three(resolved: &resolve::Resolved, what: &str) -> Result<[(usize, String); 3], FormatError> {
    let column = |i: usize| {
        resolved.found[i].clone().ok_or_else(|| error(what, "a required column was not resolved (an internal error)"))
    };
    Ok([column(0)?, column(1)?, column(2)?])
}

/// The id column `name` of `batch`, checked: a string type, no null, dictionary keys in range,
/// every id an id ([`crate::ids`]: not empty, no whitespace or control character).
fn ids<'a>(
    batch: &'a RecordBatch,
    (index, name): &(usize, String),
    what: &str,
    first_row: u64,
) -> Result<IdColumn<'a>, FormatError> {
    let array = batch.column(*index);
    let column = columns::id_column(array).map_err(|problem| match problem {
        columns::IdProblem::Type => error(
            what,
            format!(
                "column `{name}`: found {}, expected string ids (utf8, large_utf8, utf8_view or a dictionary of them)",
                array.data_type()
            ),
        ),
        columns::IdProblem::Key(row) => error(
            what,
            format!("row {}: column `{name}`: a dictionary key outside the dictionary", first_row + row as u64 + 1),
        ),
    })?;
    no_null(array.as_ref(), name, what, first_row, "an id")?;
    if let Some(row) = column.first_bad_id(batch.num_rows()) {
        let id = column.get(row);
        let problem = id_problem(id).unwrap_or(crate::ids::IdProblem::Empty);
        let role = match name.as_str() {
            n if RUN_COLUMNS[0].contains(&n) => "qid",
            n if RUN_COLUMNS[1].contains(&n) => "docno",
            _ => "run tag",
        };
        return Err(error(
            what,
            format!(
                "row {}, column {}: {}",
                first_row + row as u64 + 1,
                resolve::shown(name),
                id_message(role, id, problem)
            ),
        ));
    }
    Ok(column)
}

/// An error at the first null of `array`.
fn no_null(array: &dyn Array, name: &str, what: &str, first_row: u64, expected: &str) -> Result<(), FormatError> {
    match columns::first_null(array) {
        None => Ok(()),
        Some(row) => Err(error(
            what,
            format!("row {}: column `{name}` is null, expected {expected}", first_row + row as u64 + 1),
        )),
    }
}

/// The numeric column `name` of `batch`, checked: a number type, no null.
fn numbers<'a>(
    batch: &'a RecordBatch,
    (index, name): &(usize, String),
    what: &str,
    first_row: u64,
    integers_only: bool,
) -> Result<Numbers<'a>, FormatError> {
    let array = batch.column(*index);
    let expected =
        if integers_only { "an integer type (int8 … int64, uint8 … uint64)" } else { "a float or integer type" };
    let values = columns::numbers(array)
        .filter(|n| !(integers_only && n.is_float()))
        .ok_or_else(|| error(what, format!("column `{name}`: found {}, expected {expected}", array.data_type())))?;
    no_null(array.as_ref(), name, what, first_row, if integers_only { "an integer" } else { "a score" })?;
    Ok(values)
}

impl RunColumns {
    /// Finds the query id, document id and score columns of `schema` ([`RUN_COLUMNS`]);
    /// `what` names the input in errors.
    ///
    /// # Errors
    /// [`FormatError::Syntax`] naming the role whose column is missing and the columns found.
    /// A role with two columns (the same name twice, or two of its names) is an error naming
    /// both; the columns that play no role are kept for [`RunColumns::warnings`].
    pub fn resolve(schema: &Schema, what: &str) -> Result<Self, FormatError> {
        let resolved = resolve::resolve(schema, what, &RUN_ROLES, RUN_IGNORED_COLUMNS)?;
        Ok(RunColumns { columns: three(&resolved, what)?, tag: resolved.found[3].clone(), unknown: resolved.unknown })
    }

    /// The warnings of the resolution: one `unknown-column` warning naming the columns
    /// kgeval does not read (none when every column has a role or is one of
    /// [`RUN_IGNORED_COLUMNS`]).
    #[must_use]
    pub fn warnings(&self, what: &str) -> Vec<Diagnostic> {
        unknown_columns_warning(&self.unknown, what)
    }

    /// The run's id as `batch`, the last batch of the run, gives it: its last row's tag;
    /// `None` without a tag column or rows. Only that tag names the run, and only it is
    /// checked (as a text run's last line's tag is).
    ///
    /// # Errors
    /// [`FormatError::Syntax`]: a tag column of another type, null in that row, or a tag that
    /// is not an id ([`crate::ids`]).
    pub fn run_id(&self, batch: &RecordBatch, what: &str, first_row: u64) -> Result<Option<String>, FormatError> {
        let (Some(tag), Some(last)) = (&self.tag, batch.num_rows().checked_sub(1)) else { return Ok(None) };
        let row = batch.slice(last, 1);
        let column = ids(&row, tag, what, first_row + last as u64)?;
        Ok(Some(column.get(0).to_owned()))
    }

    /// The names of the query id, document id and score columns.
    #[must_use]
    pub fn names(&self) -> [&str; 3] {
        [&self.columns[0].1, &self.columns[1].1, &self.columns[2].1]
    }

    /// `batch`'s run columns, checked (types, no null); `first_row` is the batch's first row
    /// in the whole input (0-based), for messages (rows are numbered from 1 there).
    ///
    /// # Errors
    /// [`FormatError::Syntax`]: a column of another type, a null, a dictionary key out of
    /// range.
    pub fn batch<'a>(&self, batch: &'a RecordBatch, what: &str, first_row: u64) -> Result<RunBatch<'a>, FormatError> {
        Ok(RunBatch {
            qid: ids(batch, &self.columns[0], what, first_row)?,
            docno: ids(batch, &self.columns[1], what, first_row)?,
            score: numbers(batch, &self.columns[2], what, first_row, false)?,
            len: batch.num_rows(),
        })
    }
}

impl RunColumns {
    /// `batch`'s run columns by their types alone, for a batch [`RunColumns::batch`] accepted
    /// before (its nulls and dictionary keys are not checked again: a job holding a slice
    /// of a large batch does not rescan the whole batch). `None` when a column's type does
    /// not fit, which a checked batch cannot have.
    #[must_use]
    pub fn view<'a>(&self, batch: &'a RecordBatch) -> Option<RunBatch<'a>> {
        let id = |index: usize| batch.columns().get(index).and_then(|a| columns::id_column_typed(a).ok());
        Some(RunBatch {
            qid: id(self.columns[0].0)?,
            docno: id(self.columns[1].0)?,
            score: batch.columns().get(self.columns[2].0).and_then(columns::numbers)?,
            len: batch.num_rows(),
        })
    }
}

/// One record batch of a run, its columns borrowed ([`RunColumns::batch`]).
#[derive(Debug, Clone, Copy)]
pub struct RunBatch<'a> {
    /// The query ids.
    pub qid: IdColumn<'a>,
    /// The document ids.
    pub docno: IdColumn<'a>,
    /// The scores.
    pub score: Numbers<'a>,
    /// The number of rows.
    pub len: usize,
}

impl<'a> RunBatch<'a> {
    /// The batch's runs of consecutive rows with one query id: `(qid, rows)`, in row order.
    /// A topic whose rows are contiguous but cross a batch boundary comes in two pieces, one
    /// at the end of this batch and one at the start of the next.
    pub fn topics(&self) -> impl Iterator<Item = (&'a str, Range<usize>)> + '_ {
        let mut start = 0;
        std::iter::from_fn(move || {
            if start >= self.len {
                return None;
            }
            let qid = self.qid.get(start);
            let end = self.qid.run_end(start, self.len);
            let range = start..end;
            start = end;
            Some((qid, range))
        })
    }

    /// Rows `rows` (one topic's) as columns, read in place: for the common layout (string
    /// docnos, all ASCII, and float64 scores), `None` for any other (then
    /// [`RunBatch::push_docs`]).
    #[must_use]
    pub fn topic_columns(&self, rows: Range<usize>) -> Option<TopicColumns<'a>> {
        let (IdColumn::Utf8(docnos), Numbers::F64(scores)) = (self.docno, self.score) else { return None };
        let offsets = docnos.value_offsets().get(rows.start..=rows.end)?;
        let span = |i: i32| usize::try_from(i).ok();
        let (start, end) = (span(*offsets.first()?)?, span(*offsets.last()?)?);
        // An Arrow string array holds UTF-8, but a producer across the C interface is not
        // trusted with it: the rows' docnos, one after the other, are checked once.
        let text = docnos.value_data().get(start..end).filter(|text| text.is_ascii())?;
        Some(TopicColumns { docnos, first_row: rows.start, offsets, text, start, scores: scores.get(rows)? })
    }

    /// Appends rows `rows` to `docs` as the run's documents: docno, score, and the rank and
    /// position a run file would give them (`docs.len()` + 1 and `docs.len()` before each).
    pub fn push_docs(&self, rows: Range<usize>, docs: &mut Vec<RunDoc<'a>>) {
        let base = docs.len() as u64;
        let doc = move |k: usize, docno: &'a str, score: f64| {
            let position = base + k as u64;
            RunDoc { docno, score, rank: position as i64 + 1, position }
        };
        // Each form appends through `extend` over an iterator of known length: no capacity
        // check per row.
        if let Some(columns) = self.topic_columns(rows.clone()) {
            docs.extend(
                columns.docnos().zip(columns.scores).enumerate().map(|(k, (docno, &score))| doc(k, docno, score)),
            );
            return;
        }
        if let (IdColumn::Utf8(docnos), Numbers::F64(scores)) = (self.docno, self.score) {
            // Docnos that are not all ASCII: the rows' text checked as UTF-8 once, each
            // docno then a slice of it (its bounds checked).
            let offsets = &docnos.value_offsets()[rows.start..=rows.end];
            let span = |i: i32| usize::try_from(i).unwrap_or(0);
            let (first, last) = (span(offsets[0]), span(offsets[offsets.len() - 1]));
            let text = docnos.value_data().get(first..last).and_then(|bytes| std::str::from_utf8(bytes).ok());
            let bounds = |pair: &[i32]| span(pair[0]).wrapping_sub(first)..span(pair[1]).wrapping_sub(first);
            docs.extend(offsets.windows(2).zip(&scores[rows.clone()]).enumerate().map(|(k, (pair, &score))| {
                let docno = text.and_then(|text| text.get(bounds(pair)));
                doc(k, docno.unwrap_or_else(|| docnos.value(rows.start + k)), score)
            }));
            return;
        }
        docs.extend(rows.enumerate().map(|(k, row)| doc(k, self.docno.get(row), self.score.f64(row))));
    }
}

/// One topic's rows of a batch as columns ([`RunBatch::topic_columns`]): its scores as the
/// batch holds them, its docnos read in place. Document `i` is the topic's row `i`.
#[derive(Debug, Clone, Copy)]
pub struct TopicColumns<'a> {
    /// The docno column.
    docnos: &'a StringArray,
    /// The topic's first row in the batch.
    first_row: usize,
    /// The offsets of the topic's docnos (one more than its rows).
    offsets: &'a [i32],
    /// The topic's docnos, one after the other: ASCII (checked).
    text: &'a [u8],
    /// Where `text` starts in the column's bytes.
    start: usize,
    /// The topic's scores.
    pub scores: &'a [f64],
}

impl<'a> TopicColumns<'a> {
    /// Document `i`'s docno (`i` below the topic's rows).
    #[inline]
    #[must_use]
    pub fn docno(&self, i: usize) -> &'a str {
        self.between(i, self.offsets[i], self.offsets[i + 1])
    }

    /// Every docno, in row order (one pass over the offsets).
    pub fn docnos(&self) -> impl ExactSizeIterator<Item = &'a str> + '_ {
        let ends = self.offsets.get(1..).unwrap_or_default();
        self.offsets.iter().zip(ends).enumerate().map(|(i, (&from, &to))| self.between(i, from, to))
    }

    /// Document `i`'s docno, which its offsets put between `from` and `to`.
    #[inline]
    fn between(&self, i: usize, from: i32, to: i32) -> &'a str {
        // A negative offset (no valid array has one) becomes a position past the text, so the
        // slice below fails and the column's own reading answers.
        let at = |offset: i32| (u32::from_ne_bytes(offset.to_ne_bytes()) as usize).wrapping_sub(self.start);
        match self.text.get(at(from)..at(to)) {
            // SAFETY: `text` is ASCII (checked when the columns were made), and every slice
            // of an ASCII byte string is UTF-8.
            #[allow(unsafe_code)]
            Some(docno) => unsafe { std::str::from_utf8_unchecked(docno) },
            // Offsets that go back (no valid array has them): the column's own reading.
            None => self.docnos.value(self.first_row + i),
        }
    }
}

impl QrelsColumns {
    /// Finds the query id, document id and relevance columns of `schema`
    /// ([`QRELS_COLUMNS`]); `what` names the input in errors.
    ///
    /// # Errors
    /// [`FormatError::Syntax`] naming the role whose column is missing and the columns found.
    /// A role with two columns is an error naming both, as for runs.
    pub fn resolve(schema: &Schema, what: &str) -> Result<Self, FormatError> {
        let resolved = resolve::resolve(schema, what, &QRELS_ROLES, QRELS_IGNORED_COLUMNS)?;
        Ok(QrelsColumns { columns: three(&resolved, what)?, unknown: resolved.unknown })
    }

    /// The warnings of the resolution, as [`RunColumns::warnings`] (ignoring
    /// [`QRELS_IGNORED_COLUMNS`]).
    #[must_use]
    pub fn warnings(&self, what: &str) -> Vec<Diagnostic> {
        unknown_columns_warning(&self.unknown, what)
    }

    /// The names of the query id, document id and relevance columns.
    #[must_use]
    pub fn names(&self) -> [&str; 3] {
        [&self.columns[0].1, &self.columns[1].1, &self.columns[2].1]
    }
}

/// Reads qrels from record batches (`schema` theirs); `what` names the input in errors. The
/// warnings: the columns kgeval does not read ([`QrelsColumns::warnings`]).
///
/// # Errors
/// [`FormatError::Syntax`]: a missing or ill-typed column, a null, a relevance beyond
/// ±2^53 ([`check_relevance`]), a second judgment for one (qid, docno), no judgment at all;
/// the producer's own error (as the message).
pub fn read_qrels<I>(schema: &Schema, batches: I, what: &str) -> Result<Read<Qrels>, FormatError>
where
    I: IntoIterator<Item = Result<RecordBatch, ArrowError>>,
{
    let columns = QrelsColumns::resolve(schema, what)?;
    let [qid_column, docno_column, rel_column] = &columns.columns;
    let mut qrels = Qrels::new();
    let mut first_row = 0u64;
    for batch in batches {
        let batch = batch.map_err(|e| batch_error(what, &e))?;
        let qids = ids(&batch, qid_column, what, first_row)?;
        let docnos = ids(&batch, docno_column, what, first_row)?;
        let rels = numbers(&batch, rel_column, what, first_row, true)?;
        for row in 0..batch.num_rows() {
            let (qid, docno) = (qids.get(row), docnos.get(row));
            let row_number = first_row + row as u64 + 1;
            let relevance = rels.i64(row).ok_or_else(|| {
                error(
                    what,
                    format!(
                        "row {row_number}: column `{}`: found a value above 2^63 - 1, expected an int64",
                        rel_column.1
                    ),
                )
            })?;
            let relevance = check_relevance(relevance)
                .map_err(|e| error(what, format!("row {row_number}: column `{}`: {e}", rel_column.1)))?;
            if qrels.topic_mut(qid).insert(docno, relevance).is_some() {
                return Err(error(
                    what,
                    format!(
                        "row {row_number}: found a second judgment for qid `{qid}`, docno `{docno}`, expected one judgment per (qid, docno)"
                    ),
                ));
            }
        }
        first_row += batch.num_rows() as u64;
    }
    if qrels.is_empty() {
        return Err(error(what, "found no judgment, expected at least one row"));
    }
    Ok(Read { value: qrels, warnings: columns.warnings(what) })
}
