//! Tasks from TOML or JSON text: a manifest *is* a task (or a list of tasks).

use std::path::Path;

use serde::de::DeserializeOwned;

use crate::Error;

/// Parses `text` (the content of `file`) as TOML into `T`; errors are
/// `FILE:LINE:COL: message`.
///
/// ```
/// let task: kgeval::Task = kgeval::from_toml("family = \"lexicon\"\ngold = \"g.ttl\"\nsystem = \"s.ttl\"\nuris = \"u.txt\"\n", "t.toml")?;
/// assert_eq!(task.family(), kgeval::Family::Lexicon);
/// let error = kgeval::from_toml::<kgeval::Task>("family = \"nope\"\n", "t.toml").unwrap_err();
/// assert!(error.to_string().starts_with("t.toml:1:"), "{error}");
/// # Ok::<(), kgeval::Error>(())
/// ```
///
/// # Errors
/// [`Error::Invalid`] with the position of the first TOML or schema error.
pub fn from_toml<T: DeserializeOwned>(text: &str, file: &str) -> Result<T, Error> {
    toml::from_str(text).map_err(|e| {
        let (line, column) = e.span().map_or((1, 1), |span| kgeval_formats::line_column(text.as_bytes(), span.start));
        Error::invalid(format!("{file}:{line}:{column}: {}", e.message().trim_end()))
    })
}

/// Reads a TOML file into `T` (see [`from_toml`]).
///
/// # Errors
/// [`Error::Format`] when the file cannot be read; as [`from_toml`].
pub fn read_toml<T: DeserializeOwned>(path: &Path) -> Result<T, Error> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| kgeval_formats::FormatError::io(&file, e))?;
    from_toml(&text, &file)
}

/// Parses `text` (the content of `file`) as JSON into `T`; errors are `FILE:LINE:COL: message`.
///
/// # Errors
/// [`Error::Invalid`] with the position of the first JSON or schema error.
pub fn from_json<T: DeserializeOwned>(text: &str, file: &str) -> Result<T, Error> {
    serde_json::from_str(text)
        .map_err(|e| Error::invalid(format!("{file}:{}:{}: {e}", e.line().max(1), e.column().max(1))))
}
