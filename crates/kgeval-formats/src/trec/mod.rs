//! Readers of the IR family: TREC qrels (`qid iter docno rel`) and runs
//! (`qid Q0 docno rank score tag`), as trec_eval reads them, with located errors.
//!
//! - [`read_qrels`] / [`read_qrels_bytes`]: exactly 4 whitespace-separated fields (spaces or
//!   tabs), an integer relevance (negative allowed), `#` at column 0 a comment (ids may contain
//!   `#` elsewhere, as MS MARCO's do), blank lines a `blank-line` warning, a repeated
//!   (qid, docno) an error naming both lines.
//! - [`RunFile`] ([`RunFile::open`], [`read_run_bytes`]): at least 6 fields (extras ignored),
//!   an integer rank column, a finite score, UTF-8 ids, each docno once per topic; blank and
//!   comment lines skipped; the run id is the tag of the last line. The file is mapped and
//!   indexed by topic in one parallel pass; each topic is parsed when the metrics engine asks
//!   for it ([`kgeval_model::trec::RunSource`]), without allocating per line.
//!
//! Both accept `-` for standard input and gzip input (a `.gz` name or the gzip magic).
//! Field separators are spaces, tabs, CR, VT and FF (C's `isspace`), so CRLF files read too.

mod fields;
mod index;
mod qrels;
mod run;
mod scan;

use kgeval_model::trec::Qrels;

pub use run::RunFile;

use crate::input::{Input, InputBytes};
use crate::{FormatError, Read};

/// Reads a qrels file (`-` = standard input; gzip decompressed).
///
/// Returns the judgments (topics in file order) and the warnings (blank lines, each located;
/// at most 100 listed, then one summary).
///
/// # Errors
/// [`FormatError::Io`] when the file cannot be read; [`FormatError::Syntax`] as
/// [`read_qrels_bytes`].
pub fn read_qrels(path: &str) -> Result<Read<Qrels>, FormatError> {
    let opened = Input::path(path).open()?;
    let (value, warnings) = qrels::read(opened.name(), opened.bytes())?;
    Ok(Read { value, warnings })
}

/// Reads qrels from bytes (decompressed first when they are gzip); `name` is the file named
/// in errors.
///
/// ```
/// use kgeval_formats::trec::read_qrels_bytes;
/// use kgeval_formats::Read;
///
/// let Read { value: qrels, warnings } = read_qrels_bytes(b"# TREC-8\n401 0 FBIS3-10082 1\n401 0 FR940104-0-00001 -1\n\n402\t0\tLA010189-0001\t2\n", "qrels")?;
/// assert_eq!(qrels.len(), 2);
/// assert_eq!(qrels.topic("401").unwrap().get("FR940104-0-00001"), Some(-1));
/// assert_eq!(qrels.topic("402").unwrap().get("LA010189-0001"), Some(2));
/// assert_eq!(warnings[0].to_string(), "warning: qrels:4:1: found a blank line, expected `qid iter docno rel`; skipped [blank-line]");
///
/// let error = read_qrels_bytes(b"401 0 d1 1\n401 0 d1 0\n", "qrels").unwrap_err();
/// assert_eq!(error.to_string(), "qrels:2:7: found a second judgment for qid `401`, docno `d1` (first at line 1), expected one judgment per (qid, docno)");
/// # Ok::<(), kgeval_formats::FormatError>(())
/// ```
///
/// # Errors
/// [`FormatError::Syntax`] at the first line that does not have exactly 4 fields, has a qid or
/// docno that is not UTF-8 or a relevance that is not an integer, or repeats a (qid, docno);
/// at line 1 when there is no judgment at all. [`FormatError::Io`] for corrupt gzip.
pub fn read_qrels_bytes(bytes: &[u8], name: &str) -> Result<Read<Qrels>, FormatError> {
    let opened = Input::from_bytes(name, bytes.to_vec()).open()?;
    let (value, warnings) = qrels::read(name, opened.bytes())?;
    Ok(Read { value, warnings })
}

/// Reads a run from bytes (decompressed first when they are gzip); `name` is the file named
/// in errors.
///
/// ```
/// use kgeval_formats::trec::read_run_bytes;
/// use kgeval_model::trec::{RunDoc, RunSource};
///
/// let run = read_run_bytes(b"401 Q0 d1 1 2.5 bm25\n401 Q0 d2 2 1e-3 bm25\n402 Q0 d1 1 -0.5 rm3 extra\n".to_vec(), "run")?;
/// assert_eq!((run.run_id(), run.topic_count(), run.topic_id(1)), ("rm3", 2, "402"));
/// let mut docs = Vec::new();
/// run.topic_docs(0, &mut docs)?;
/// assert_eq!(docs[1], RunDoc { docno: "d2", score: 0.001, rank: 2, position: 21 });
/// assert_eq!(run.line_of(docs[1].position), 2);
///
/// let run = read_run_bytes(b"401 Q0 d1 1 2.5 bm25\n401 Q0 d1 2 NaN bm25\n".to_vec(), "run")?;
/// let error = run.topic_docs(0, &mut docs).unwrap_err();
/// assert_eq!(error.to_string(), "run:2:13: found the score `NaN`, expected a finite number");
/// # Ok::<(), kgeval_formats::FormatError>(())
/// ```
///
/// # Errors
/// When opening: [`FormatError::Syntax`] for a qid that is not UTF-8, a last line with fewer
/// than 6 fields, or no run line at all ("found no run lines"); [`FormatError::Io`] for
/// corrupt gzip. The other checks happen per topic, see [`RunFile`].
pub fn read_run_bytes(bytes: Vec<u8>, name: &str) -> Result<RunFile, FormatError> {
    RunFile::from_input(InputBytes::from_vec(name, bytes)?)
}

/// The (line, column) of a syntax error, to pick the earliest of several errors found in
/// parallel; `None` for I/O errors.
///
/// ```
/// use kgeval_formats::trec::{error_position, read_qrels_bytes};
///
/// let error = read_qrels_bytes(b"1 0 d 1\n1 0 d x\n", "q").unwrap_err();
/// assert_eq!(error_position(&error), Some((2, 7)));
/// ```
#[must_use]
pub fn error_position(error: &FormatError) -> Option<(u32, u32)> {
    match error {
        FormatError::Syntax(syntax) => Some((syntax.location.line, syntax.location.column)),
        FormatError::Io { .. } => None,
    }
}
