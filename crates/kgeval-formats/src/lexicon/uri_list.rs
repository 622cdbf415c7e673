//! The QALD-3 Task 2 URI list: one absolute IRI per line, the classes, a blank line, the
//! properties.

use std::path::Path;

use kgeval_model::lexicon::{ListedUri, UriKind, UriList};
use kgeval_model::{Diagnostic, Location};

use crate::{FormatError, Read};

/// Reads a URI list. Lines are trimmed; `#` lines are comments; a run of blank lines separates
/// the class block from the property block. A list without a blank line is read as properties
/// only (with a `uri-list-one-block` warning); a repeated URI keeps its first place (with a
/// `duplicate-uri` warning).
///
/// ```
/// use kgeval_formats::lexicon::read_uri_list;
/// use kgeval_formats::Read;
/// use kgeval_model::lexicon::UriKind;
/// let text = b"http://dbpedia.org/ontology/Bridge\n\nhttp://dbpedia.org/ontology/crosses\n";
/// let Read { value: list, warnings } = read_uri_list(text, "uris.txt").unwrap();
/// assert_eq!(list.kind_of("http://dbpedia.org/ontology/Bridge"), Some(UriKind::Class));
/// assert_eq!(list.kind_of("http://dbpedia.org/ontology/crosses"), Some(UriKind::Property));
/// assert!(warnings.is_empty());
/// ```
///
/// # Errors
/// A [`FormatError::Syntax`] at the offending line for a line that is not an absolute IRI, a
/// third block, invalid UTF-8 or a list without any URI.
pub fn read_uri_list(input: &[u8], file: &str) -> Result<Read<UriList>, FormatError> {
    let text = std::str::from_utf8(input).map_err(|e| {
        FormatError::syntax_at_offset(file, input, e.valid_up_to(), "found invalid UTF-8: expected a UTF-8 text file")
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut blocks: Vec<Vec<(String, u32)>> = vec![Vec::new()];
    let mut warnings = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = u32::try_from(index + 1).unwrap_or(u32::MAX);
        let trimmed = raw.trim();
        if trimmed.starts_with('#') {
            continue;
        }
        if trimmed.is_empty() {
            if blocks.last().is_some_and(|b| !b.is_empty()) {
                blocks.push(Vec::new());
            }
            continue;
        }
        let column = u32::try_from(raw.len() - raw.trim_start().len() + 1).unwrap_or(1);
        let iri = trimmed.trim_start_matches('<').trim_end_matches('>');
        if let Err(e) = oxiri::Iri::parse(iri) {
            return Err(FormatError::syntax(
                file,
                line,
                column,
                format!("found {:?}: expected one absolute class or property IRI per line ({e})", clip(trimmed)),
            ));
        }
        if blocks.len() > 2 {
            return Err(FormatError::syntax(
                file,
                line,
                column,
                format!("found a third block starting with {iri:?}: expected classes, one blank line, properties"),
            ));
        }
        if let Some(last) = blocks.last_mut() {
            last.push((iri.to_owned(), line));
        }
    }
    blocks.retain(|b| !b.is_empty());
    let (classes, properties) = match blocks.len() {
        0 => {
            return Err(FormatError::syntax(file, 1, 1, "found no URI: expected classes, a blank line, properties"));
        }
        1 => {
            warnings.push(
                Diagnostic::warning(
                    "uri-list-one-block",
                    "no blank line separates classes from properties: every URI is read as a property",
                )
                .at(Location { file: file.to_owned(), line: 0, column: 0 }),
            );
            (Vec::new(), blocks.remove(0))
        }
        _ => {
            let properties = blocks.remove(1);
            (blocks.remove(0), properties)
        }
    };
    let mut list = UriList::default();
    for (kind, block) in [(UriKind::Class, classes), (UriKind::Property, properties)] {
        for (uri, line) in block {
            if list.kind_of(&uri).is_some() {
                warnings.push(
                    Diagnostic::warning("duplicate-uri", format!("{uri} is listed again: the first place is kept"))
                        .at(Location { file: file.to_owned(), line, column: 1 }),
                );
                continue;
            }
            list.uris.push(ListedUri { uri, kind });
        }
    }
    Ok(Read { value: list, warnings })
}

/// Reads a URI list file (see [`read_uri_list`]).
///
/// # Errors
/// [`FormatError::Io`] when the file cannot be read, [`FormatError::Syntax`] when it is malformed.
pub fn read_uri_list_file(path: &Path) -> Result<Read<UriList>, FormatError> {
    let opened = crate::input::Input::path(path).open()?;
    read_uri_list(opened.bytes(), opened.name())
}

/// At most 60 characters of a line, for messages.
fn clip(text: &str) -> String {
    let mut out: String = text.chars().take(60).collect();
    if text.chars().count() > 60 {
        out.push('…');
    }
    out
}
