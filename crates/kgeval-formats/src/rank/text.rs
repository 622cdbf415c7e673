//! The input as UTF-8 text: lines with their numbers and byte offsets, tab-separated cells with
//! their offsets, and errors placed at a byte offset.

use std::borrow::Cow;
use std::collections::HashMap;

use kgeval_model::{Diagnostic, Location};

pub(crate) use crate::lines::{Line, Lines};
use crate::FormatError;

/// One input file as text, with its display name (for errors).
#[derive(Clone, Copy)]
pub(crate) struct Source<'a> {
    /// The file as the user named it.
    pub(crate) file: &'a str,
    /// The whole input (a leading byte-order mark included, so offsets are file offsets).
    pub(crate) text: &'a str,
}

impl<'a> Source<'a> {
    /// Checks that `input` is UTF-8.
    pub(crate) fn new(file: &'a str, input: &'a [u8]) -> Result<Self, FormatError> {
        let text = crate::error::utf8_text(file, input)?;
        Ok(Source { file, text })
    }

    /// An error at byte `offset` of the input.
    pub(crate) fn error(&self, offset: usize, message: impl Into<String>) -> FormatError {
        FormatError::syntax_at_offset(self.file, self.text.as_bytes(), offset, message)
    }

    /// The location of byte `offset` (for warnings).
    pub(crate) fn location(&self, offset: usize) -> Location {
        let (line, column) = crate::line_column(self.text.as_bytes(), offset);
        Location { file: self.file.to_owned(), line, column }
    }

    /// The lines of the input (a byte-order mark skipped, `\r\n` endings trimmed).
    pub(crate) fn lines(&self) -> Lines<'a> {
        crate::lines::lines(self.text)
    }

    /// The first non-blank line, if any.
    pub(crate) fn first_content_line(&self) -> Option<Line<'a>> {
        self.lines().find(|line| !line.is_blank())
    }

    /// The error for an input without any content.
    pub(crate) fn empty_error(&self, expected: &str) -> FormatError {
        self.error(0, format!("found an empty file, expected {expected}"))
    }
}

impl<'a> Line<'a> {
    /// The line's tab-separated cells, into `cells` (cleared first).
    ///
    /// Each cell is trimmed; a cell quoted as a whole by CSV rules (pandas quotes a cell that
    /// holds a `"`) is unquoted, `""` becoming `"`.
    pub(crate) fn cells_into(&self, cells: &mut Vec<Cell<'a>>) {
        cells.clear();
        let mut start = 0;
        for raw in self.text.split('\t') {
            let leading = raw.len() - raw.trim_start().len();
            let trimmed = raw.trim();
            let offset = self.offset + start + leading;
            let cell = if trimmed.len() >= 2 && trimmed.starts_with('"') && trimmed.ends_with('"') {
                let inner = &trimmed[1..trimmed.len() - 1];
                let text = if inner.contains("\"\"") { Cow::Owned(inner.replace("\"\"", "\"")) } else { inner.into() };
                Cell { text, offset: offset + 1 }
            } else {
                Cell { text: Cow::Borrowed(trimmed), offset }
            };
            cells.push(cell);
            start += raw.len() + 1;
        }
    }
}

/// One tab-separated cell, trimmed.
#[derive(Debug, Clone)]
pub(crate) struct Cell<'a> {
    /// The cell's text.
    pub(crate) text: Cow<'a, str>,
    /// The byte offset of the text's first byte in the input.
    pub(crate) offset: usize,
}

impl Cell<'_> {
    /// The same cell, owning its text.
    pub(crate) fn into_owned(self) -> Cell<'static> {
        Cell { text: Cow::Owned(self.text.into_owned()), offset: self.offset }
    }
}

/// A short, quoted rendering of a found value for error messages (long values are cut).
pub(crate) fn quoted(text: &str) -> String {
    const MAX: usize = 60;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("`{}…`", &text[..cut]),
        None => format!("`{text}`"),
    }
}

/// Parses a finite score, or says why not.
pub(crate) fn parse_score(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(value) if value.is_finite() => Ok(value),
        Ok(_) => Err(format!("found {}, expected a finite score", quoted(text))),
        Err(_) => Err(format!("found {}, expected a score (a number)", quoted(text))),
    }
}

/// Names the k-th occurrence of a source entity as a query id: the source itself the first
/// time, `SOURCE#k` from the second occurrence on (with a `repeated-source` note).
#[derive(Default)]
pub(crate) struct SourceQids {
    seen: HashMap<Box<str>, (u32, u32)>,
}

impl SourceQids {
    /// The query id of `source` met at byte `offset` on line `line`; pushes a note when the
    /// source was met before.
    pub(crate) fn qid(
        &mut self,
        source: &str,
        line: u32,
        offset: usize,
        src: &Source<'_>,
        warnings: &mut Vec<Diagnostic>,
    ) -> Box<str> {
        if let Some((count, first_line)) = self.seen.get_mut(source) {
            *count += 1;
            let qid: Box<str> = format!("{source}#{count}").into();
            warnings.push(
                Diagnostic::note(
                    "repeated-source",
                    format!(
                        "source {} occurs again (first at line {first_line}); this query is named {}",
                        quoted(source),
                        quoted(&qid)
                    ),
                )
                .at(src.location(offset)),
            );
            return qid;
        }
        self.seen.insert(source.into(), (1, line));
        source.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_keep_numbers_offsets_and_trim_crlf() {
        let src = Source::new("f", b"a\r\n\nbc").unwrap();
        let lines: Vec<_> = src.lines().map(|l| (l.number, l.offset, l.text)).collect();
        assert_eq!(lines, vec![(1, 0, "a"), (2, 3, ""), (3, 4, "bc")]);
    }

    #[test]
    fn cells_are_trimmed_and_unquoted_with_offsets() {
        let src = Source::new("f", b"x\t a \t\"b\"\"c\"").unwrap();
        let line = src.lines().next().unwrap();
        let mut cells = Vec::new();
        line.cells_into(&mut cells);
        let got: Vec<_> = cells.iter().map(|c| (c.text.as_ref(), c.offset)).collect();
        assert_eq!(got, vec![("x", 0), ("a", 3), ("b\"c", 7)]);
    }

    #[test]
    fn non_utf8_is_an_error_at_its_place() {
        let err = Source::new("f", b"ab\n\xff").err().unwrap();
        assert_eq!(err.to_string(), "f:2:1: found bytes that are not UTF-8, expected UTF-8 text");
    }
}
