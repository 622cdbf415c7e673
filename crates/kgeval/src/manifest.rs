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
    let text = kgeval_formats::input::read_text_file(path)?;
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

/// Parses a family's manifest into its task struct `T`: a top-level `family` key, if present,
/// must name `family`; errors point into the file.
///
/// # Errors
/// [`Error::Invalid`] with `FILE:LINE:COL` for TOML and schema errors, or a `family` key naming
/// another family.
pub fn family_from_toml<T: DeserializeOwned>(text: &str, file: &str, family: crate::Family) -> Result<T, Error> {
    let manifest = crate::toml_doc::TomlManifest::parse(text, file)?;
    let root = manifest.root();
    if let Some(named) = manifest.family(root)? {
        if named != family {
            return Err(manifest.error(
                manifest.value_at(root, "family"),
                &format!(
                    "found family {:?}, expected {:?} (this manifest is read by `kgeval {}`)",
                    named.name(),
                    family.name(),
                    family.name()
                ),
            ));
        }
    }
    manifest.deserialize(root, &["family"])
}

/// [`family_from_toml`] on a file.
///
/// # Errors
/// [`Error::Format`] when the file cannot be read; as [`family_from_toml`].
pub fn read_family_toml<T: DeserializeOwned>(path: &Path, family: crate::Family) -> Result<T, Error> {
    let file = path.display().to_string();
    let text = kgeval_formats::input::read_text_file(path)?;
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
