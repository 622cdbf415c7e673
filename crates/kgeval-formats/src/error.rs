//! The one error type of every reader.

use std::{fmt, io};

use kgeval_model::Location;

/// A reader failed: the input could not be read, or it is not what the format expects.
///
/// Displays as one line, `FILE:LINE:COLUMN: MESSAGE` (line and column 1-based; omitted when
/// unknown), which the CLI prints as is.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// The file could not be opened or read.
    #[error("{file}: {source}")]
    Io {
        /// The file as the user named it.
        file: String,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// The content is malformed.
    #[error("{0}")]
    Syntax(SyntaxError),
}

/// Malformed input at a place (the model's [`Location`]: file, 1-based line and column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// Where: file as the user named it, line and column (0 when unknown).
    pub location: Location,
    /// What was found and what was expected.
    pub message: String,
    /// Whether the input is well formed but does not fit the gold it is read against (an
    /// entity or a triple the gold lacks, a gold item the input leaves out): the message then
    /// tells something of the gold's content. See [`FormatError::unfit`].
    pub concerns_gold: bool,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

impl FormatError {
    /// A syntax error at a line and column.
    #[must_use]
    pub fn syntax(file: &str, line: u32, column: u32, message: impl Into<String>) -> Self {
        FormatError::Syntax(SyntaxError {
            location: Location { file: file.to_owned(), line, column },
            message: message.into(),
            concerns_gold: false,
        })
    }

    /// An error at a line and column of a well-formed input that does not fit the gold it is
    /// read against ([`SyntaxError::concerns_gold`]): a reader of a system's output that
    /// resolves its ids against the gold's.
    #[must_use]
    pub fn unfit(file: &str, line: u32, column: u32, message: impl Into<String>) -> Self {
        FormatError::Syntax(SyntaxError {
            location: Location { file: file.to_owned(), line, column },
            message: message.into(),
            concerns_gold: true,
        })
    }

    /// Whether this error tells something of the gold's content
    /// ([`SyntaxError::concerns_gold`]).
    #[must_use]
    pub fn concerns_gold(&self) -> bool {
        matches!(self, FormatError::Syntax(SyntaxError { concerns_gold: true, .. }))
    }

    /// A syntax error at a byte offset of `input`, converted to line and column.
    #[must_use]
    pub fn syntax_at_offset(file: &str, input: &[u8], offset: usize, message: impl Into<String>) -> Self {
        let (line, column) = line_column(input, offset);
        Self::syntax(file, line, column, message)
    }

    /// An I/O error on `file`.
    #[must_use]
    pub fn io(file: &str, source: io::Error) -> Self {
        FormatError::Io { file: file.to_owned(), source }
    }
}

/// `input` as UTF-8 text, or an error at the first byte that is not UTF-8.
pub(crate) fn utf8_text<'a>(file: &str, input: &'a [u8]) -> Result<&'a str, FormatError> {
    std::str::from_utf8(input).map_err(|e| {
        FormatError::syntax_at_offset(
            file,
            input,
            e.valid_up_to(),
            "found bytes that are not UTF-8, expected UTF-8 text",
        )
    })
}

/// The 1-based line and column (in characters) of byte `offset` in `input`.
///
/// ```
/// use kgeval_formats::line_column;
/// assert_eq!(line_column(b"ab\ncd", 4), (2, 2));
/// assert_eq!(line_column(b"ab", 0), (1, 1));
/// ```
#[must_use]
pub fn line_column(input: &[u8], offset: usize) -> (u32, u32) {
    let offset = offset.min(input.len());
    let before = &input[..offset];
    let line = memchr::memchr_iter(b'\n', before).count() + 1;
    let line_start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&before[line_start..]).chars().count() + 1;
    (line as u32, column as u32)
}

/// Longest user text echoed whole in a message, in characters.
pub const MAX_ECHO: usize = 120;

/// User text to echo in a message, capped at `max` characters: longer text keeps its first
/// `max` characters and says how long it was, so a 5 MB IRI never floods the terminal.
///
/// ```
/// use kgeval_formats::shorten;
/// assert_eq!(shorten("http://a#x", 20), "http://a#x");
/// assert_eq!(shorten(&"a".repeat(30), 8), "aaaaaaaa… (30 bytes)");
/// ```
#[must_use]
pub fn shorten(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => std::borrow::Cow::Borrowed(text),
        Some((end, _)) => std::borrow::Cow::Owned(format!("{}… ({} bytes)", &text[..end], text.len())),
    }
}

/// User text quoted for a message, capped by [`shorten`] at [`MAX_ECHO`] characters.
///
/// ```
/// use kgeval_formats::echo;
/// assert_eq!(echo("high"), "\"high\"");
/// assert!(echo(&"x".repeat(5_000_000)).ends_with("… (5000000 bytes)\""));
/// ```
#[must_use]
pub fn echo(text: &str) -> String {
    format!("{:?}", shorten(text, MAX_ECHO))
}

/// Longest header cell echoed in a message: a header error names the one cell it could not
/// place, never the whole line (a file's first line may hold anything).
pub const MAX_CELL_ECHO: usize = 32;

/// A header cell quoted for a message, capped at [`MAX_CELL_ECHO`] characters.
///
/// ```
/// use kgeval_formats::echo_cell;
/// assert_eq!(echo_cell("systm"), "\"systm\"");
/// assert!(echo_cell(&"API_KEY=SECRET".repeat(10)).starts_with("\"API_KEY=SECRETAPI_KEY=SECRETAPI_… ("));
/// ```
#[must_use]
pub fn echo_cell(text: &str) -> String {
    format!("{:?}", shorten(text, MAX_CELL_ECHO))
}
