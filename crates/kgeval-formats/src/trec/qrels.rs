//! The qrels reader: `qid iter docno rel` lines.

use kgeval_model::trec::{check_relevance, Qrels, RelevanceOutOfRange};
use kgeval_model::{Diagnostic, Location};

use super::fields::{is_decimal_integer, line_kind, parse_integer, shown, Fields, LineKind};
use crate::warnings::Warnings;
use crate::{ids, FormatError};

/// The expected shape, for messages.
const QRELS_LINE: &str = "`qid iter docno rel`";

/// Reads qrels from `bytes` (already decompressed), naming `file` in errors and warnings.
pub(super) fn read(file: &str, bytes: &[u8]) -> Result<(Qrels, Vec<Diagnostic>), FormatError> {
    let mut qrels = Qrels::new();
    let mut warnings = Warnings::default();
    let mut judgments = 0usize;
    for (line_number, start, line) in lines(bytes) {
        let content = match line_kind(line, true) {
            LineKind::Comment => continue,
            LineKind::Blank => {
                warnings.push("blank-line", || {
                    Diagnostic::warning("blank-line", format!("found a blank line, expected {QRELS_LINE}; skipped"))
                        .at(Location { file: file.to_owned(), line: line_number, column: 1 })
                });
                continue;
            }
            LineKind::Content(_) => line,
        };
        let error =
            |offset: usize, message: String| FormatError::syntax_at_offset(file, bytes, start + offset, message);
        let mut fields = Fields::new(content);
        let mut cells = [(0, &b""[..]); 4];
        let mut count = 0;
        for (offset, field) in fields.by_ref() {
            if count == 4 {
                let extra = 5 + fields.count();
                return Err(error(offset, format!("found {extra} fields, expected 4: {QRELS_LINE}")));
            }
            cells[count] = (offset, field);
            count += 1;
        }
        if count < 4 {
            let s = if count == 1 { "" } else { "s" };
            return Err(error(fields.offset(), format!("found {count} field{s}, expected 4: {QRELS_LINE}")));
        }
        let [(qid_at, qid), _, (docno_at, docno), (rel_at, rel)] = cells;
        let qid = utf8_id(file, bytes, start + qid_at, qid, "qid")?;
        let docno = utf8_id(file, bytes, start + docno_at, docno, "docno")?;
        let relevance = match parse_integer(rel) {
            Some(value) => check_relevance(value).map_err(|e| error(rel_at, e.to_string()))?,
            // Digits beyond an i64: out of range rather than not an integer.
            None if is_decimal_integer(rel) => {
                return Err(error(rel_at, RelevanceOutOfRange { found: shown(rel) }.to_string()));
            }
            None => {
                return Err(error(rel_at, format!("found `{}` as the relevance, expected an integer", shown(rel))));
            }
        };
        if qrels.topic_mut(qid).insert(docno, relevance).is_some() {
            let first = first_judgment_line(bytes, qid, docno).unwrap_or(line_number);
            return Err(error(
                docno_at,
                format!(
                    "found a second judgment for qid `{qid}`, docno `{docno}` (first at line {first}), expected one \
                     judgment per (qid, docno)"
                ),
            ));
        }
        judgments += 1;
    }
    if judgments == 0 {
        return Err(FormatError::syntax(file, 1, 1, format!("found no judgment, expected {QRELS_LINE} lines")));
    }
    Ok((qrels, warnings.finish(file)))
}

/// Every line of `bytes` as (1-based number, byte offset of its start, content without `\n`).
fn lines(bytes: &[u8]) -> impl Iterator<Item = (u32, usize, &[u8])> {
    let mut start = 0;
    let mut number = 0u32;
    std::iter::from_fn(move || {
        if start >= bytes.len() {
            return None;
        }
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
        let item = (number + 1, start, &bytes[start..end]);
        number += 1;
        start = end + 1;
        Some(item)
    })
}

/// `field` as an id: UTF-8 (else an error at its first invalid byte) holding no whitespace or
/// control character (else an error at that character: [`crate::ids`]).
pub(super) fn utf8_id<'a>(
    file: &str,
    bytes: &[u8],
    field_start: usize,
    field: &'a [u8],
    what: &str,
) -> Result<&'a str, FormatError> {
    let id = std::str::from_utf8(field).map_err(|e| {
        FormatError::syntax_at_offset(
            file,
            bytes,
            field_start + e.valid_up_to(),
            format!("found a {what} with bytes that are not UTF-8, expected UTF-8 text"),
        )
    })?;
    match ids::id_problem(id) {
        None => Ok(id),
        Some(problem) => {
            let at = match problem {
                ids::IdProblem::Char(at, _) => at,
                ids::IdProblem::Empty => 0,
            };
            Err(FormatError::syntax_at_offset(file, bytes, field_start + at, ids::id_message(what, id, problem)))
        }
    }
}

/// `field` as an id when it is one (UTF-8, no whitespace or control character): the run
/// reader's fast path; `None` sends the line to [`utf8_id`] for its error.
#[inline]
pub(super) fn plain_id(field: &[u8]) -> Option<&str> {
    let id = std::str::from_utf8(field).ok()?;
    (ids::printable_ascii(field) || ids::id_problem(id).is_none()).then_some(id)
}

/// The line of the first judgment of (`qid`, `docno`), found again on the error path only.
fn first_judgment_line(bytes: &[u8], qid: &str, docno: &str) -> Option<u32> {
    lines(bytes).find_map(|(number, _, line)| {
        if line_kind(line, true) == LineKind::Comment {
            return None;
        }
        let mut fields = Fields::new(line).map(|(_, f)| f);
        let (q, _, d) = (fields.next()?, fields.next()?, fields.next()?);
        (q == qid.as_bytes() && d == docno.as_bytes()).then_some(number)
    })
}
