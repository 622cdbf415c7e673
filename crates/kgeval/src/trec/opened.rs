//! A run as opened: TREC text, or (feature `arrow`) a Parquet or Arrow IPC table, with the
//! reader's warnings.

use kgeval_formats::trec::RunFile;
use kgeval_formats::{Input, Read};

#[cfg(feature = "arrow")]
use super::{arrow, InternedRun};
use crate::Error;

/// A run file as opened: TREC text, or (feature `arrow`) a Parquet or Arrow IPC table.
pub(super) enum OpenedRun {
    /// `qid Q0 docno rank score tag` lines.
    Text(RunFile),
    /// `qid, docno, score` columns.
    #[cfg(feature = "arrow")]
    Arrow(InternedRun),
}

/// Opens a run: a Parquet or IPC table (feature `arrow`) by its extension or else its
/// content, else a text file.
pub(super) fn open_run(input: &Input) -> Result<OpenedRun, Error> {
    Ok(open_run_read(input)?.value)
}

/// [`open_run`] with the reader's warnings (a table's columns kgeval does not read).
pub(super) fn open_run_read(input: &Input) -> Result<Read<OpenedRun>, Error> {
    let opened = input.open()?;
    #[cfg(feature = "arrow")]
    if let Some(kind) = arrow::table_kind(input, &opened) {
        let Read { value, warnings } = arrow::read_run_table(opened, kind)?;
        return Ok(Read { value: OpenedRun::Arrow(value), warnings });
    }
    Ok(Read { value: OpenedRun::Text(RunFile::from_input(opened)?), warnings: Vec::new() })
}
