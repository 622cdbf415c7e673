//! Tasks from TOML or JSON text: a manifest *is* a task (or a list of tasks).

use std::path::Path;

use serde::de::DeserializeOwned;

use crate::Error;

/// Parses `text` (the content of `file`) as TOML into `T`; errors are
/// `FILE:LINE:COL: message`. For a [`Task`](crate::Task) use [`Task::from_toml`](crate::Task::from_toml),
/// whose errors point into the family's fields.
///
/// # Errors
/// [`Error::Invalid`] with the position of the first TOML or schema error.
pub fn from_toml<T: DeserializeOwned>(text: &str, file: &str) -> Result<T, Error> {
    toml::from_str(text).map_err(|e| {
        let message = e.message().trim_end();
        // A task behind the `family` tag is buffered by serde, so its errors come without a
        // span: then the value or key the message names locates it (when it occurs once).
        let offset = e.span().map(|span| span.start).or_else(|| locate_named(text, message));
        let (line, column) = offset.map_or((1, 1), |at| kgeval_formats::line_column(text.as_bytes(), at));
        Error::invalid(format!("{file}:{line}:{column}: {message}"))
    })
}

/// The offset of the value (`found "x"`, ``unknown variant `x` ``) or key (``unknown field `x` ``)
/// a schema error names, when the text holds it exactly once.
fn locate_named(text: &str, message: &str) -> Option<usize> {
    let between = |prefix: &str, end: char| {
        let rest = &message[message.find(prefix)? + prefix.len()..];
        Some(rest[..rest.find(end)?].to_owned())
    };
    let needle = if let Some(value) = between("found \"", '"') {
        format!("\"{value}\"")
    } else if let Some(value) = between("unknown variant `", '`') {
        format!("\"{value}\"")
    } else {
        between("unknown field `", '`')?
    };
    let mut hits = text.match_indices(&needle).filter(|(at, _)| {
        // A key starts its line (after white space); a value follows `=` or `[` or `,`.
        let before = text[..*at].trim_end_matches([' ', '\t']);
        needle.starts_with('"') || before.is_empty() || before.ends_with('\n')
    });
    let (at, _) = hits.next()?;
    hits.next().is_none().then_some(at)
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

/// The family a manifest names in a top-level `family = "…"` key, and the text with that key
/// blanked out (same length, so positions stay), ready for the family's task struct.
///
/// # Errors
/// [`Error::Invalid`] when the text is not TOML.
pub(crate) fn split_family(text: &str, file: &str) -> Result<(Option<String>, String), Error> {
    let table: toml::Table = from_toml(text, file)?;
    let family = match table.get("family") {
        None => None,
        Some(toml::Value::String(name)) => Some(name.clone()),
        Some(other) => {
            let line = family_line(text).map_or(1, |(i, _)| i + 1);
            return Err(Error::invalid(format!(
                "{file}:{line}:1: found family = {other}, expected a family name string"
            )));
        }
    };
    let mut masked = String::with_capacity(text.len());
    let blank = family_line(text).map(|(i, _)| i);
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if Some(i) == blank {
            let content = line.trim_end_matches(['\n', '\r']);
            masked.push('#');
            masked.extend(std::iter::repeat_n(' ', content.len().saturating_sub(1)));
            masked.push_str(&line[content.len()..]);
        } else {
            masked.push_str(line);
        }
    }
    Ok((family, masked))
}

/// The index and text of the top-level `family = …` line (before any `[table]` header).
fn family_line(text: &str) -> Option<(usize, &str)> {
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with('[') {
            return None;
        }
        if let Some(rest) = trimmed.strip_prefix("family") {
            if rest.trim_start().starts_with('=') {
                return Some((i, line));
            }
        }
    }
    None
}

/// Parses a family's manifest into its task struct `T`: a top-level `family` key, if present,
/// must name `family`; errors point into the file.
///
/// # Errors
/// [`Error::Invalid`] with `FILE:LINE:COL` for TOML and schema errors, or a `family` key naming
/// another family.
pub fn family_from_toml<T: DeserializeOwned>(text: &str, file: &str, family: crate::Family) -> Result<T, Error> {
    let (named, masked) = split_family(text, file)?;
    if let Some(named) = named {
        if named != family.name() {
            let line = family_line(text).map_or(1, |(i, _)| i + 1);
            return Err(Error::invalid(format!(
                "{file}:{line}:1: found family {named:?}, expected {:?} (this manifest is read by `kgeval {}`)",
                family.name(),
                family.name()
            )));
        }
    }
    from_toml(&masked, file)
}

/// [`family_from_toml`] on a file.
///
/// # Errors
/// [`Error::Format`] when the file cannot be read; as [`family_from_toml`].
pub fn read_family_toml<T: DeserializeOwned>(path: &Path, family: crate::Family) -> Result<T, Error> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| kgeval_formats::FormatError::io(&file, e))?;
    family_from_toml(&text, &file, family)
}

#[cfg(test)]
mod tests {
    use crate::Task;

    #[test]
    fn unknown_enum_values_are_located_and_list_the_valid_values() {
        let text = "# qald row\ngold = \"g.xml\"\nfamily = \"qald\"\nsystem = \"s.json\"\nrule = \"qald9\"\n";
        let e = Task::from_toml(text, "t.toml").expect_err("bad rule").to_string();
        assert_eq!(e, "t.toml:5:8: found \"qald9\", expected qald3, qald6 or gerbil");
        let e = super::from_toml::<Task>(text, "t.toml").expect_err("bad rule").to_string();
        assert_eq!(e, "t.toml:5:8: found \"qald9\", expected qald3, qald6 or gerbil");
        let text = "# a row\ngold = \"g.xml\"\nfamily = \"qaldd\"\n";
        let e = Task::from_toml(text, "t.toml").expect_err("bad family").to_string();
        assert_eq!(e, "t.toml:3:10: found family \"qaldd\", expected one of align, rank, trec, kgc, qald, lexicon");
    }
}
