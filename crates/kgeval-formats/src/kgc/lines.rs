//! Tab-separated lines with their numbers and offsets, for the KGC readers.

use kgeval_model::Location;

pub(crate) use crate::lines::{Line, Lines};
use crate::FormatError;

/// One input file as UTF-8 text.
#[derive(Clone, Copy)]
pub(crate) struct Text<'a> {
    pub(crate) text: &'a str,
}

impl<'a> Text<'a> {
    /// Checks that `input` is UTF-8.
    pub(crate) fn new(file: &'a str, input: &'a [u8]) -> Result<Self, FormatError> {
        Ok(Text { text: crate::error::utf8_text(file, input)? })
    }

    /// The lines (a byte-order mark skipped, `\r\n` trimmed), blank lines included.
    pub(crate) fn lines(&self) -> Lines<'a> {
        crate::lines::lines(self.text)
    }
}

/// One tab-separated field: its text and its byte offset within the line.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Field<'a> {
    pub(crate) text: &'a str,
    pub(crate) start: usize,
}

impl<'a> Line<'a> {
    /// The tab-separated fields, into `out` (cleared first), untrimmed.
    pub(crate) fn fields_into(&self, out: &mut Vec<Field<'a>>) {
        out.clear();
        let mut start = 0;
        for text in self.text.split('\t') {
            out.push(Field { text, start });
            start += text.len() + 1;
        }
    }

    /// The 1-based column of byte `start` of the line.
    pub(crate) fn column(&self, start: usize) -> u32 {
        let start = start.min(self.text.len());
        self.text.get(..start).map_or(start, |s| s.chars().count()) as u32 + 1
    }

    /// The location of byte `start` of the line.
    pub(crate) fn location(&self, file: &str, start: usize) -> Location {
        Location { file: file.to_owned(), line: self.number, column: self.column(start) }
    }

    /// A syntax error at byte `start` of the line.
    pub(crate) fn error(&self, file: &str, start: usize, message: impl Into<String>) -> FormatError {
        FormatError::syntax(file, self.number, self.column(start), message)
    }

    /// An error at the field starting at byte `start` that does not fit the gold
    /// ([`FormatError::unfit`]).
    pub(crate) fn unfit(&self, file: &str, start: usize, message: impl Into<String>) -> FormatError {
        FormatError::unfit(file, self.number, self.column(start), message)
    }

    /// Exactly `names.len()` fields, each non-empty after trimming, or an error naming what
    /// was expected.
    pub(crate) fn expect_fields(
        &self,
        file: &str,
        names: &[&str],
        out: &mut Vec<Field<'a>>,
    ) -> Result<(), FormatError> {
        self.fields_into(out);
        let expected = || format!("{} tab-separated fields ({})", names.len(), names.join(", "));
        if out.len() != names.len() {
            let at = if out.len() > names.len() { out[names.len()].start } else { self.text.len() };
            return Err(self.error(file, at, format!("found {} field(s), expected {}", out.len(), expected())));
        }
        for (field, name) in out.iter().zip(names) {
            if field.text.trim().is_empty() {
                return Err(self.error(file, field.start, format!("found an empty {name}, expected {}", expected())));
            }
        }
        Ok(())
    }
}

/// A found value for a message, quoted and cut when long.
pub(crate) fn quoted(text: &str) -> String {
    const MAX: usize = 60;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("`{}…`", &text[..cut]),
        None => format!("`{text}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_fields_and_columns() {
        let text = Text::new("f", "\u{feff}a\tbé\tc\r\n\nx".as_bytes()).unwrap();
        let lines: Vec<Line<'_>> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!((lines[0].number, lines[0].text), (1, "a\tbé\tc"));
        assert!(lines[1].is_blank());
        let mut fields = Vec::new();
        lines[0].expect_fields("f", &["head", "relation", "tail"], &mut fields).unwrap();
        assert_eq!((fields[2].text, fields[2].start, lines[0].column(fields[2].start)), ("c", 6, 6));
        let err = lines[2].expect_fields("f", &["head", "relation", "tail"], &mut fields).unwrap_err();
        assert_eq!(err.to_string(), "f:3:2: found 1 field(s), expected 3 tab-separated fields (head, relation, tail)");
    }
}
