//! QALD question sets and submissions: one reader for every dialect.
//!
//! - XML (QALD-1..7): `<dataset>` › `<question>` › `<string>`, `<keywords>`, `<query>`,
//!   `<pseudoquery>`, `<answers>` › `<answer>` › typed values or untyped text.
//! - JSON (QALD-5..10): `{"dataset", "questions": [...]}` with SPARQL-results answers, and the
//!   QALD-7 "extended" JSON (`questions[].question.{id, language[], answers, metadata}`).
//!
//! The syntax is detected from the content (`{` or `<` after an optional UTF-8 BOM). Real
//! files break their own spec; every tolerated quirk comes back as a located warning
//! (`qald-*` codes), malformed input as a [`FormatError`]. Question ids must be unique.

mod json;
mod xml;

use std::path::Path;

use kgeval_model::qald::{AnswerValue, LabelMap, QaldDataset, QaldQuery};
use kgeval_model::{Diagnostic, Location};

use crate::error::utf8_text;
pub(crate) use crate::warnings::Warnings;
use crate::FormatError;

/// A QALD file read: the dataset and the quirks met on the way.
#[derive(Debug, Clone, Default)]
pub struct ReadQald {
    /// Questions in file order.
    pub dataset: QaldDataset,
    /// Tolerated quirks, each with its location.
    pub warnings: Vec<Diagnostic>,
}

/// Reads a QALD file (XML or JSON, detected from the content).
///
/// # Errors
/// [`FormatError::Io`] when the file cannot be read, [`FormatError::Syntax`] when it is
/// malformed (with file, line and column).
pub fn read_qald_file(path: &Path) -> Result<ReadQald, FormatError> {
    let opened = crate::input::Input::path(path).open()?;
    read_qald(opened.bytes(), opened.name())
}

/// Reads QALD XML or JSON from bytes; `file` names the input in errors and warnings.
///
/// ```
/// use kgeval_formats::qald::read_qald;
/// use kgeval_model::qald::{AnswerValue, QaldQuery};
/// let xml = br#"<dataset id="d"><question id="1" answertype="number">
///   <string lang="en">How many?</string><query>OUT OF SCOPE</query>
///   <answers><answer><number>42</number></answer></answers></question></dataset>"#;
/// let read = read_qald(xml, "q.xml").unwrap();
/// let q = &read.dataset.questions[0];
/// assert_eq!(q.query, QaldQuery::OutOfScope);
/// assert_eq!(q.answer_slice()[0].value, AnswerValue::Number("42".into()));
///
/// let json = br#"{"questions": [{"id": 7, "question": [{"language": "en", "string": "Is it?"}],
///   "answers": [{"head": {}, "boolean": true}]}]}"#;
/// let read = read_qald(json, "q.json").unwrap();
/// assert_eq!(read.dataset.questions[0].id, "7");
/// assert_eq!(read.dataset.questions[0].answer_slice()[0].value, AnswerValue::Boolean("true".into()));
/// ```
///
/// # Errors
/// [`FormatError::Syntax`] when the input is neither well-formed QALD XML nor QALD JSON.
pub fn read_qald(input: &[u8], file: &str) -> Result<ReadQald, FormatError> {
    let warnings = Warnings::default();
    // A UTF-8 byte-order mark is skipped, as every input skips it (see `input`).
    let (body, offset) = match input.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => (rest, 3),
        None => (input, 0),
    };
    utf8_text(file, input)?;
    let first = body.iter().position(|b| !b.is_ascii_whitespace());
    let mut source = Source { file, input, offset, warnings };
    let dataset = match first.map(|i| body[i]) {
        Some(b'{') => json::read(body, &mut source)?,
        Some(b'<') => xml::read(body, &mut source)?,
        Some(_) => {
            let at = offset + first.unwrap_or(0);
            return Err(FormatError::syntax_at_offset(
                file,
                input,
                at,
                "found text, expected a QALD XML document (`<`) or QALD JSON (`{`)",
            ));
        }
        None => {
            return Err(FormatError::syntax(file, 1, 1, "found an empty file, expected QALD XML or JSON"));
        }
    };
    check_unique_ids(&dataset, file)?;
    Ok(ReadQald { dataset, warnings: source.warnings.finish(file) })
}

/// The input being read: its name, the whole bytes (for line/column), the offset of the body
/// after a BOM, and the warnings so far.
pub(crate) struct Source<'a> {
    pub(crate) file: &'a str,
    input: &'a [u8],
    offset: usize,
    pub(crate) warnings: Warnings,
}

impl Source<'_> {
    /// The location of byte `offset` of the body.
    pub(crate) fn location(&self, offset: usize) -> Location {
        let (line, column) = crate::line_column(self.input, self.offset + offset);
        at(self.file, line, column)
    }

    /// A syntax error at byte `offset` of the body.
    pub(crate) fn error(&self, offset: usize, message: impl Into<String>) -> FormatError {
        FormatError::syntax_at_offset(self.file, self.input, self.offset + offset, message)
    }

    /// A warning of `code` at byte `offset` of the body.
    pub(crate) fn warn(&mut self, code: &'static str, offset: usize, message: impl FnOnce() -> String) {
        let location = self.location(offset);
        self.warnings.push(code, || Diagnostic::warning(code, message()).at(location));
    }
}

fn at(file: &str, line: u32, column: u32) -> Location {
    Location { file: file.to_owned(), line, column }
}

fn check_unique_ids(dataset: &QaldDataset, file: &str) -> Result<(), FormatError> {
    let mut seen = std::collections::HashMap::new();
    for q in &dataset.questions {
        if let Some(first) = seen.insert(q.id.as_str(), &q.location) {
            let l = &q.location;
            return Err(FormatError::syntax(
                file,
                l.line,
                l.column,
                format!(
                    "found question id {:?} a second time (first at line {}), expected unique ids",
                    q.id, first.line
                ),
            ));
        }
    }
    Ok(())
}

/// A query text: empty → none, `OUT OF SCOPE` → out of scope, else `make(text)`.
pub(crate) fn classify_query(text: &str, make: fn(String) -> QaldQuery) -> QaldQuery {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        QaldQuery::None
    } else if trimmed.eq_ignore_ascii_case("OUT OF SCOPE") {
        QaldQuery::OutOfScope
    } else {
        make(trimmed.to_owned())
    }
}

/// `true` / `false` in any case.
pub(crate) fn parse_flag(text: &str) -> Option<bool> {
    match text.trim() {
        t if t.eq_ignore_ascii_case("true") => Some(true),
        t if t.eq_ignore_ascii_case("false") => Some(false),
        _ => None,
    }
}

/// Whether `text` reads as an absolute IRI (a scheme, then no whitespace).
pub(crate) fn looks_like_iri(text: &str) -> bool {
    let text = text.trim();
    let Some((scheme, rest)) = text.split_once(':') else { return false };
    !rest.is_empty()
        && scheme.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && !text.chars().any(char::is_whitespace)
}

/// An untyped answer (QALD-5+ `<answer>text</answer>`, QALD-5 JSON `{"string"}`), typed from
/// the question's answertype, or from its look when the answertype says nothing.
pub(crate) fn untyped_answer(text: &str, answertype: Option<&str>) -> AnswerValue {
    let raw = text.to_owned();
    match answertype.map(str::to_ascii_lowercase).as_deref() {
        Some("boolean") => AnswerValue::Boolean(raw),
        Some("number" | "num") => AnswerValue::Number(raw),
        Some("date") => AnswerValue::Date(raw),
        Some("resource" | "uri") if looks_like_iri(text) => AnswerValue::Iri(raw.trim().to_owned()),
        Some("string" | "text" | "literal") => AnswerValue::plain(raw),
        _ if looks_like_iri(text) => AnswerValue::Iri(raw.trim().to_owned()),
        _ => AnswerValue::plain(raw),
    }
}

/// Reads a label map file: one IRI per line, then its labels, tab-separated
/// (`IRI<TAB>label<TAB>label…`); blank lines and lines starting with `#` are skipped.
///
/// ```
/// use kgeval_formats::qald::read_label_map;
/// let map = read_label_map(b"# iri\tlabels\nhttp://x.org/Berlin\tBerlin\tBerlin, Germany\n", "l.tsv").unwrap();
/// assert_eq!(map["http://x.org/Berlin"], ["Berlin", "Berlin, Germany"]);
/// ```
///
/// # Errors
/// [`FormatError::Syntax`] on a line without a label, or whose first field is not an IRI.
pub fn read_label_map(input: &[u8], file: &str) -> Result<LabelMap, FormatError> {
    let text = utf8_text(file, input)?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut map = LabelMap::new();
    for (index, line) in text.lines().enumerate() {
        let line_no = index as u32 + 1;
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let mut fields = line.split('\t');
        let iri = fields.next().unwrap_or_default().trim();
        let iri = iri.strip_prefix('<').and_then(|i| i.strip_suffix('>')).unwrap_or(iri);
        if !looks_like_iri(iri) {
            return Err(FormatError::syntax(file, line_no, 1, format!("found {}, expected an IRI", crate::echo(iri))));
        }
        let labels: Vec<String> = fields.map(str::trim).filter(|l| !l.is_empty()).map(str::to_owned).collect();
        if labels.is_empty() {
            let column = line.chars().count() as u32 + 1;
            return Err(FormatError::syntax(file, line_no, column, "found no label, expected IRI<TAB>label"));
        }
        map.entry(iri.to_owned()).or_default().extend(labels);
    }
    Ok(map)
}

/// Reads a label map file (see [`read_label_map`]).
///
/// # Errors
/// [`FormatError::Io`] when the file cannot be read, [`FormatError::Syntax`] when malformed.
pub fn read_label_map_file(path: &Path) -> Result<LabelMap, FormatError> {
    let opened = crate::input::Input::path(path).open()?;
    read_label_map(opened.bytes(), opened.name())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iri_look() {
        assert!(looks_like_iri(" http://dbpedia.org/resource/X\n"));
        assert!(looks_like_iri("urn:isbn:123"));
        assert!(!looks_like_iri("Valentina Tereshkova"));
        assert!(!looks_like_iri("12:30"));
        assert!(!looks_like_iri("see: this"));
    }

    #[test]
    fn untyped_answers_follow_the_answertype() {
        assert_eq!(untyped_answer("true", Some("boolean")), AnswerValue::Boolean("true".into()));
        assert_eq!(untyped_answer("http://x.org/a", None), AnswerValue::Iri("http://x.org/a".into()));
        assert_eq!(untyped_answer("http://x.org/a", Some("string")), AnswerValue::plain("http://x.org/a"));
        assert_eq!(untyped_answer("42", Some("num")), AnswerValue::Number("42".into()));
    }

    #[test]
    fn label_map_errors_are_located() {
        let e = read_label_map(b"http://x.org/a\tA\nnot an iri\tB\n", "l.tsv").unwrap_err();
        assert!(e.to_string().starts_with("l.tsv:2:1: "), "{e}");
        let e = read_label_map(b"http://x.org/a\n", "l.tsv").unwrap_err();
        assert!(e.to_string().starts_with("l.tsv:1:15: found no label"), "{e}");
    }
}
