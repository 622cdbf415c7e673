//! TSV / CSV alignments: `source, target[, confidence[, relation]]` (MELT), with or without a
//! header row, and Bio-ML `SrcEntity, TgtEntity, Score`.
//!
//! Records are split by a small hand-written splitter ([`Records`]) that follows the CSV
//! quoting rules (a field that starts with `"` runs to the matching `"`, `""` is an escaped
//! quote, quoted fields may span lines). It borrows every unquoted field from the input (no
//! per-row allocation) and knows the byte offset of every field, so errors point at the exact
//! line and column. The SSSOM reader uses the same splitter.
//!
//! Semantics (MELT `AlignmentParser` TSV, with the deviations the spec asks for):
//! - blank lines are skipped; entities are trimmed and `<iri>` brackets removed;
//! - a missing or empty confidence is 1.0; a missing or empty relation is `=`;
//! - an unknown relation becomes `?` with an `unknown-relation` warning (silently with
//!   [`ReadOptions::melt_relations`], which also reads the token untrimmed, as MELT does);
//! - a header row is recognised by its names (`source`, `target`, `SrcEntity`, `TgtEntity`,
//!   `Score`, `confidence`, `relation`, …, in any order; a row naming only some columns, each
//!   at its positional place, is a positional header; names in conflicting places are an
//!   error) or, unnamed, by a non-numeric third cell after two cells that are not IRIs;
//! - a repeated `(source, target, relation)` keeps the first occurrence (or the policy in
//!   [`ReadOptions::duplicate_policy`]) and is reported as `duplicate-cell`.

use std::borrow::Cow;

use kgeval_model::{Alignment, Correspondence, Diagnostic, Interner, Location, Relation};

use super::measure::{is_out_of_range, measure_value, out_of_range_warning, OUT_OF_RANGE};
use super::{AlignmentFormat, ReadAlignment, ReadOptions};
use crate::warnings::Warnings;
use crate::FormatError;

/// One field of a delimited record.
#[derive(Debug, Clone)]
pub(crate) struct Field<'a> {
    /// The field's content, quotes removed and `""` unescaped.
    pub(crate) text: Cow<'a, [u8]>,
    /// Byte offset in the whole input where the field starts (its opening quote if quoted).
    pub(crate) offset: usize,
}

/// A record-splitting failure, at a byte offset of the input.
#[derive(Debug)]
pub(crate) struct SplitError {
    pub(crate) offset: usize,
    pub(crate) message: String,
}

/// Splits delimited records with CSV quoting, tracking lines and field offsets.
pub(crate) struct Records<'a> {
    input: &'a [u8],
    pos: usize,
    line: u32,
    delimiter: u8,
}

impl<'a> Records<'a> {
    /// Starts splitting `input` at byte `start`, which is on 1-based line `line`.
    pub(crate) fn new(input: &'a [u8], start: usize, line: u32, delimiter: u8) -> Self {
        Records { input, pos: start, line, delimiter }
    }

    /// Reads the next record into `fields` and returns the 1-based line where it starts, or
    /// `None` at the end of the input.
    pub(crate) fn next_record(&mut self, fields: &mut Vec<Field<'a>>) -> Result<Option<u32>, SplitError> {
        fields.clear();
        if self.pos >= self.input.len() {
            return Ok(None);
        }
        let first_line = self.line;
        let input = self.input;
        loop {
            let start = self.pos;
            let (mut text, mut after) = if input.get(start) == Some(&b'"') {
                let (text, closing) = self.quoted(start)?;
                (text, closing + 1)
            } else {
                (Cow::Borrowed(&input[start..start]), start)
            };
            // The rest of the field up to the delimiter or the end of the line. For an unquoted
            // field that is the whole field; after a closing quote, stray text is kept
            // literally (as the csv crate does).
            let end = memchr::memchr2(self.delimiter, b'\n', &input[after..]).map_or(input.len(), |k| after + k);
            let mut content_end = end;
            let at_line_end = end == input.len() || input[end] == b'\n';
            if at_line_end && content_end > after && input[content_end - 1] == b'\r' {
                content_end -= 1;
            }
            if content_end > after {
                if after == start {
                    text = Cow::Borrowed(&input[start..content_end]);
                } else {
                    text.to_mut().extend_from_slice(&input[after..content_end]);
                }
            }
            after = end;
            fields.push(Field { text, offset: start });
            if after >= input.len() {
                self.pos = input.len();
                return Ok(Some(first_line));
            }
            self.pos = after + 1;
            if input[after] == b'\n' {
                self.line = self.line.saturating_add(1);
                return Ok(Some(first_line));
            }
        }
    }

    /// Reads a quoted field whose opening quote is at `start`; returns its text and the offset
    /// of the closing quote.
    fn quoted(&mut self, start: usize) -> Result<(Cow<'a, [u8]>, usize), SplitError> {
        let input = self.input;
        let mut owned: Option<Vec<u8>> = None;
        let mut segment = start + 1;
        let mut i = segment;
        loop {
            let Some(k) = memchr::memchr(b'"', &input[i..]) else {
                return Err(SplitError {
                    offset: start,
                    message: "found a quote that is never closed, expected a closing `\"` before the end of the file"
                        .to_owned(),
                });
            };
            let quote = i + k;
            if input.get(quote + 1) == Some(&b'"') {
                owned.get_or_insert_with(Vec::new).extend_from_slice(&input[segment..=quote]);
                i = quote + 2;
                segment = i;
                continue;
            }
            let newlines = memchr::memchr_iter(b'\n', &input[start..quote]).count();
            self.line = self.line.saturating_add(u32::try_from(newlines).unwrap_or(u32::MAX));
            let text = match owned {
                Some(mut buf) => {
                    buf.extend_from_slice(&input[segment..quote]);
                    Cow::Owned(buf)
                }
                None => Cow::Borrowed(&input[segment..quote]),
            };
            return Ok((text, quote));
        }
    }
}

/// The 1-based column (in characters) of byte `offset`, counted from the previous newline.
/// Cheap (looks back to the line start only), for warnings.
pub(crate) fn column_of(input: &[u8], offset: usize) -> u32 {
    let offset = offset.min(input.len());
    let line_start = memchr::memrchr(b'\n', &input[..offset]).map_or(0, |i| i + 1);
    let chars = String::from_utf8_lossy(&input[line_start..offset]).chars().count();
    u32::try_from(chars + 1).unwrap_or(u32::MAX)
}

/// A field as UTF-8, or an error at the first invalid byte.
pub(crate) fn field_str<'f>(field: &'f Field<'_>, input: &[u8], file: &str) -> Result<&'f str, FormatError> {
    std::str::from_utf8(&field.text).map_err(|e| {
        // For a quoted field the text starts one byte after the opening quote.
        let quoted = input.get(field.offset) == Some(&b'"');
        let offset = field.offset + usize::from(quoted) + e.valid_up_to();
        FormatError::syntax_at_offset(file, input, offset, "found bytes that are not UTF-8, expected UTF-8 text")
    })
}

/// Removes a UTF-8 byte-order mark.
pub(crate) fn skip_bom(input: &[u8]) -> usize {
    if input.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    }
}

/// An entity IRI from a cell: trimmed, `<…>` removed; control characters and empty cells are
/// errors.
pub(crate) fn entity<'s>(
    raw: &'s str,
    field: &Field<'_>,
    input: &[u8],
    file: &str,
    what: &str,
) -> Result<&'s str, FormatError> {
    let trimmed = raw.trim();
    let iri = trimmed.strip_prefix('<').and_then(|s| s.strip_suffix('>')).unwrap_or(trimmed);
    if iri.is_empty() {
        return Err(FormatError::syntax_at_offset(
            file,
            input,
            field.offset,
            format!("found an empty {what}, expected an IRI"),
        ));
    }
    if let Some(c) = iri.chars().find(|c| c.is_control()) {
        return Err(FormatError::syntax_at_offset(
            file,
            input,
            field.offset,
            format!("found control character U+{:04X} in the {what}, expected an IRI", u32::from(c)),
        ));
    }
    Ok(iri)
}

/// A confidence cell: empty → 1.0; otherwise a finite number (outside [0, 1] accepted with a
/// `measure-out-of-range` warning).
pub(crate) fn confidence(
    raw: &str,
    field: &Field<'_>,
    input: &[u8],
    file: &str,
    (warnings, line): (&mut Warnings, u32),
) -> Result<f64, FormatError> {
    let token = raw.trim();
    if token.is_empty() {
        return Ok(1.0);
    }
    match measure_value(token) {
        Some(value) => {
            if is_out_of_range(value) {
                warnings.push(OUT_OF_RANGE, || {
                    out_of_range_warning(
                        &format!("confidence {token}"),
                        Location { file: file.to_owned(), line, column: column_of(input, field.offset) },
                    )
                });
            }
            Ok(value)
        }
        None => Err(FormatError::syntax_at_offset(
            file,
            input,
            field.offset,
            format!("found confidence `{}`, expected a number such as 0.85", shorten(token)),
        )),
    }
}

/// At most 60 characters of `s`, for messages.
pub(crate) fn shorten(s: &str) -> Cow<'_, str> {
    match s.char_indices().nth(60) {
        Some((i, _)) => Cow::Owned(format!("{}…", &s[..i])),
        None => Cow::Borrowed(s),
    }
}

/// Reads a relation cell.
pub(crate) fn relation(
    raw: &str,
    options: &ReadOptions,
    warnings: &mut Warnings,
    at: impl FnOnce() -> Location,
) -> Relation {
    if options.melt_relations {
        return Relation::parse(raw).unwrap_or(Relation::Unknown);
    }
    let token = raw.trim();
    if token.is_empty() {
        return Relation::Equivalence;
    }
    Relation::parse(token).unwrap_or_else(|| {
        warnings.push("unknown-relation", || {
            Diagnostic::warning(
                "unknown-relation",
                format!("relation `{}` is not known; read as `?` (unknown)", shorten(token)),
            )
            .at(at())
        });
        Relation::Unknown
    })
}

/// Inserts `cell`, reporting a repeated key.
pub(crate) fn insert(
    alignment: &mut Alignment,
    cell: Correspondence,
    interner: &Interner,
    warnings: &mut Warnings,
    file: &str,
) {
    if alignment.insert(cell) == kgeval_model::InsertOutcome::Duplicate {
        warnings.push("duplicate-cell", || {
            let first = alignment.get(&cell.key()).map_or(0, |c| c.line);
            Diagnostic::warning(
                "duplicate-cell",
                format!(
                    "{} {} {} repeats the correspondence of line {first}; the first occurrence is kept",
                    shorten(interner.resolve(cell.entity1)),
                    cell.relation,
                    shorten(interner.resolve(cell.entity2)),
                ),
            )
            .at(Location { file: file.to_owned(), line: cell.line, column: 1 })
        });
    }
}

/// Which column holds what.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Source,
    Target,
    Confidence,
    Relation,
}

fn header_role(name: &str) -> Option<Role> {
    let lower = name.trim().trim_start_matches('#').trim().to_ascii_lowercase();
    Some(match lower.as_str() {
        "source" | "src" | "srcentity" | "src_entity" | "source_entity" | "sourceentity" | "entity1" | "entity_1"
        | "e1" | "subject" | "subject_id" | "left" | "source_id" => Role::Source,
        "target" | "tgt" | "tgtentity" | "tgt_entity" | "target_entity" | "targetentity" | "entity2" | "entity_2"
        | "e2" | "object" | "object_id" | "right" | "target_id" => Role::Target,
        "confidence" | "score" | "measure" | "similarity" | "sim" | "conf" | "value" => Role::Confidence,
        "relation" | "rel" | "predicate" | "predicate_id" | "relation_type" => Role::Relation,
        _ => return None,
    })
}

/// Column positions of the four roles.
#[derive(Debug, Clone, Copy)]
struct Columns {
    source: usize,
    target: usize,
    confidence: Option<usize>,
    relation: Option<usize>,
}

const POSITIONAL: Columns = Columns { source: 0, target: 1, confidence: Some(2), relation: Some(3) };

fn looks_like_iri(s: &str) -> bool {
    let s = s.trim();
    s.starts_with('<') || s.contains(':')
}

/// Decides whether the first record is a header; returns the columns to use and whether to
/// skip the record.
fn detect_header(
    cells: &[&str],
    fields: &[Field<'_>],
    input: &[u8],
    file: &str,
) -> Result<(Columns, bool), FormatError> {
    let roles: Vec<Option<Role>> = cells.iter().map(|c| header_role(c)).collect();
    if roles.iter().any(Option::is_some) && !looks_like_iri(cells[0]) {
        let find = |role| roles.iter().position(|r| *r == Some(role));
        let positional = |(i, role): (usize, &Option<Role>)| {
            role.is_none_or(|r| {
                i == [Role::Source, Role::Target, Role::Confidence, Role::Relation]
                    .iter()
                    .position(|p| *p == r)
                    .unwrap_or(usize::MAX)
            })
        };
        let (Some(source), Some(target)) = (find(Role::Source), find(Role::Target)) else {
            if roles.iter().enumerate().all(positional) {
                // Some names known (`sim`, `relation`), each where the positional layout has it.
                return Ok((POSITIONAL, true));
            }
            let missing = if find(Role::Source).is_none() { "source" } else { "target" };
            return Err(FormatError::syntax_at_offset(
                file,
                input,
                fields[0].offset,
                format!(
                    "found a header row without a {missing} column, expected names such as \
                     source/target/confidence/relation or SrcEntity/TgtEntity/Score"
                ),
            ));
        };
        let columns = Columns { source, target, confidence: find(Role::Confidence), relation: find(Role::Relation) };
        return Ok((columns, true));
    }
    let unnamed_header = cells.len() >= 3
        && !cells[2].trim().is_empty()
        && cells[2].trim().parse::<f64>().is_err()
        && !looks_like_iri(cells[0])
        && !looks_like_iri(cells[1]);
    Ok((POSITIONAL, unnamed_header))
}

/// Reads a TSV (`delimiter` = `\t`) or CSV (`,`) alignment.
pub(crate) fn read(
    input: &[u8],
    file: &str,
    options: &ReadOptions,
    interner: &mut Interner,
    delimiter: u8,
) -> Result<ReadAlignment, FormatError> {
    let format = if delimiter == b',' { AlignmentFormat::Csv } else { AlignmentFormat::Tsv };
    let mut alignment = Alignment::with_policy(options.duplicate_policy);
    let mut warnings = Warnings::default();
    let mut records = Records::new(input, skip_bom(input), 1, delimiter);
    let mut fields = Vec::with_capacity(8);
    let mut columns: Option<Columns> = None;
    let delimiter_name = if delimiter == b'\t' { "tab" } else { "comma" };
    loop {
        let line = match records.next_record(&mut fields) {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => return Err(FormatError::syntax_at_offset(file, input, e.offset, e.message)),
        };
        if fields.iter().all(|f| f.text.trim_ascii().is_empty()) {
            continue;
        }
        let cols = match columns {
            Some(cols) => cols,
            None => {
                let cells = fields.iter().map(|f| field_str(f, input, file)).collect::<Result<Vec<_>, _>>()?;
                let (cols, is_header) = detect_header(&cells, &fields, input, file)?;
                columns = Some(cols);
                if is_header {
                    continue;
                }
                cols
            }
        };
        let needed = cols.source.max(cols.target);
        let cell = |i: usize| field_str(&fields[i], input, file);
        if fields.len() <= needed {
            let last = &fields[fields.len() - 1];
            let end = last.offset + last.text.len();
            let (l, c) = crate::line_column(input, end);
            return Err(FormatError::syntax(
                file,
                l,
                c,
                format!(
                    "found {} column(s), expected at least {} {delimiter_name}-separated columns (source, target[, confidence[, relation]])",
                    fields.len(),
                    needed + 1
                ),
            ));
        }
        let confidence = match cols.confidence {
            Some(i) if i < fields.len() => confidence(cell(i)?, &fields[i], input, file, (&mut warnings, line))?,
            _ => 1.0,
        };
        let relation = match cols.relation {
            Some(i) if i < fields.len() => relation(cell(i)?, options, &mut warnings, || Location {
                file: file.to_owned(),
                line,
                column: column_of(input, fields[i].offset),
            }),
            _ => Relation::Equivalence,
        };
        let e1 = entity(cell(cols.source)?, &fields[cols.source], input, file, "source entity")?;
        let e2 = entity(cell(cols.target)?, &fields[cols.target], input, file, "target entity")?;
        let correspondence =
            Correspondence { entity1: interner.intern(e1), entity2: interner.intern(e2), relation, confidence, line };
        insert(&mut alignment, correspondence, interner, &mut warnings, file);
    }
    Ok(ReadAlignment { alignment, format, warnings: warnings.finish(file) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::warnings::MAX_WARNINGS_PER_CODE;

    fn split(input: &[u8], delimiter: u8) -> Result<Vec<(u32, Vec<String>)>, SplitError> {
        let mut records = Records::new(input, 0, 1, delimiter);
        let mut fields = Vec::new();
        let mut out = Vec::new();
        while let Some(line) = records.next_record(&mut fields)? {
            out.push((line, fields.iter().map(|f| String::from_utf8_lossy(&f.text).into_owned()).collect()));
        }
        Ok(out)
    }

    #[test]
    fn splitter_handles_quotes_and_line_ends() -> Result<(), SplitError> {
        let got = split(b"a,\"b,\"\"c\"\"\",d\r\n\"multi\nline\",x\ny", b',')?;
        assert_eq!(got[0], (1, vec!["a".into(), "b,\"c\"".into(), "d".into()]));
        assert_eq!(got[1], (2, vec!["multi\nline".into(), "x".into()]));
        assert_eq!(got[2], (4, vec!["y".into()]));
        let err = split(b"a\t\"never", b'\t').err().map(|e| e.offset);
        assert_eq!(err, Some(2));
        Ok(())
    }

    #[test]
    fn reads_tsv_with_header_in_any_order() -> Result<(), FormatError> {
        let input = b"relation\tscore\ttgt\tsrc\n=\t0.5\thttp://b\thttp://a\n";
        let mut interner = Interner::new();
        let read = read(input, "x.tsv", &ReadOptions::default(), &mut interner, b'\t')?;
        let cell = read.alignment.cells()[0];
        assert_eq!(interner.resolve(cell.entity1), "http://a");
        assert_eq!(cell.confidence, 0.5);
        assert_eq!(cell.line, 2);
        Ok(())
    }

    #[test]
    fn unnamed_header_and_two_columns() -> Result<(), FormatError> {
        let mut interner = Interner::new();
        let options = ReadOptions::default();
        let read1 = read(b"left one\tright one\tsim\n\nex:a\tex:b\t0.25\n", "h.tsv", &options, &mut interner, b'\t')?;
        assert_eq!(read1.alignment.len(), 1);
        assert_eq!(read1.alignment.cells()[0].line, 3);
        let read2 = read(b"\xEF\xBB\xBFex:a\tex:b\r\nex:c\t<ex:d>\r\n", "h.tsv", &options, &mut interner, b'\t')?;
        let cells = read2.alignment.cells();
        assert_eq!(cells.len(), 2);
        assert_eq!(interner.resolve(cells[0].entity1), "ex:a");
        assert_eq!(interner.resolve(cells[1].entity2), "ex:d");
        assert_eq!((cells[1].confidence, cells[1].relation), (1.0, Relation::Equivalence));
        Ok(())
    }

    #[test]
    fn warnings_are_capped_per_code() -> Result<(), FormatError> {
        let mut input = Vec::new();
        for _ in 0..(MAX_WARNINGS_PER_CODE + 5) {
            input.extend_from_slice(b"ex:a\tex:b\t0.5\t=\n");
        }
        let mut interner = Interner::new();
        let read = read(&input, "d.tsv", &ReadOptions::default(), &mut interner, b'\t')?;
        assert_eq!(read.alignment.duplicates(), MAX_WARNINGS_PER_CODE + 4);
        assert_eq!(read.warnings.len(), MAX_WARNINGS_PER_CODE + 1);
        assert!(read.warnings[MAX_WARNINGS_PER_CODE].message.starts_with("4 more `duplicate-cell` warnings"));
        Ok(())
    }

    #[test]
    fn bad_confidence_points_at_the_field() {
        let mut interner = Interner::new();
        let err = read(
            b"http://a\thttp://b\t0.5\nhttp://a\thttp://c\tzero\n",
            "x.tsv",
            &ReadOptions::default(),
            &mut interner,
            b'\t',
        )
        .err()
        .map(|e| e.to_string());
        assert_eq!(err.as_deref(), Some("x.tsv:2:19: found confidence `zero`, expected a number such as 0.85"));
    }
}
