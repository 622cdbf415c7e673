//! lemon / OntoLex-Lemon lexicons in Turtle and the QALD-3 URI lists (ontology
//! lexicalization, QALD-3 Task 2).
//!
//! Turtle is read by oxttl in **lenient** mode with a base IRI: the QALD-3 gold lexicons have a
//! space inside an IRI and the M-ATOLL lexica declare `@prefix : <>`. A strict pass over the
//! same bytes turns each defect into a located warning; only input the lenient parser rejects
//! is an error.

mod entries;
mod graph;
mod uri_list;
mod vocabulary;

use std::borrow::Cow;
use std::path::Path;

use kgeval_model::lexicon::Lexicon;
use kgeval_model::{Diagnostic, Location};
use oxrdf::Triple;

pub use uri_list::{read_uri_list, read_uri_list_file};

use crate::FormatError;

/// The base IRI relative IRIs resolve against when none is given (`.invalid` is reserved: it
/// never names a real resource, and gold and system resolve alike).
pub const DEFAULT_BASE_IRI: &str = "http://kgeval.invalid/lexicon/";

/// How to read a lexicon.
#[derive(Debug, Clone, Default)]
pub struct LexiconReadOptions {
    /// The base IRI for relative IRIs; [`DEFAULT_BASE_IRI`] when `None`.
    pub base_iri: Option<String>,
}

/// A lexicon as read, with the warnings found on the way.
#[derive(Debug, Clone)]
pub struct ReadLexicon {
    /// The entries.
    pub lexicon: Lexicon,
    /// Defects of the data (syntax accepted only leniently, orphan entries, typos in frame and
    /// role names, markers on the wrong node, …), each with its location.
    pub warnings: Vec<Diagnostic>,
}

/// Reads a lemon or OntoLex lexicon from Turtle bytes.
///
/// Entries are the objects of `lemon:entry` (`lime:entry`); typed lexical entries not listed
/// there get an `orphan-entry` warning. A file without any `lemon:entry` (M-ATOLL lexica) has
/// its typed `LexicalEntry` nodes read as the entries, with an `entries-by-type` note.
///
/// ```
/// use kgeval_formats::lexicon::{read_lexicon, LexiconReadOptions};
/// let ttl = br#"@prefix lemon: <http://www.monnet-project.eu/lemon#> .
/// @prefix lexinfo: <http://www.lexinfo.net/ontology/2.0/lexinfo#> .
/// @prefix : <> .
/// :lexicon lemon:entry :cross .
/// :cross lemon:canonicalForm [ lemon:writtenRep "cross"@en ] ;
///   lexinfo:partOfSpeech lexinfo:verb ;
///   lemon:synBehavior [ a lexinfo:TransitiveFrame ; lexinfo:subject :x ; lexinfo:directObject :y ] ;
///   lemon:sense [ lemon:reference <http://dbpedia.org/ontology/crosses> ;
///                 lemon:subjOfProp :x ; lemon:objOfProp :y ] ."#;
/// let read = read_lexicon(ttl, "cross.ttl", &LexiconReadOptions::default()).unwrap();
/// let entry = &read.lexicon.entries[0];
/// assert_eq!(entry.written_rep.as_deref(), Some("cross"));
/// assert_eq!(entry.part_of_speech.as_deref(), Some("verb"));
/// assert_eq!(entry.frames[0].frame_type.as_deref(), Some("TransitiveFrame"));
/// assert_eq!(entry.frames[0].arguments[0].role, "subject");
/// assert_eq!(entry.senses[0].subject_nodes, vec![entry.frames[0].arguments[0].node.clone()]);
/// ```
///
/// # Errors
/// A [`FormatError::Syntax`] with line and column when the Turtle is malformed even for the
/// lenient parser, or when the file holds no lexical entry at all.
pub fn read_lexicon(input: &[u8], file: &str, options: &LexiconReadOptions) -> Result<ReadLexicon, FormatError> {
    let base = options.base_iri.as_deref().unwrap_or(DEFAULT_BASE_IRI);
    let (repaired, repaired_lines) = repair_directive_dots(input);
    let input: &[u8] = &repaired;
    let (triples, prefixes) = parse_lenient(input, file, base)?;
    let mut warnings: Vec<Diagnostic> = repaired_lines
        .into_iter()
        .map(|(line, column)| {
            Diagnostic::warning(
                "turtle-repaired",
                "found a @prefix directive without its final '.': read as if the '.' were there",
            )
            .at(Location { file: file.to_owned(), line, column })
        })
        .collect();
    warnings.extend(strict_defects(input, file, base));
    let graph = graph::Graph::new(triples);
    let locator = graph::Locator::new(input, prefixes);
    let lexicon = entries::build(&graph, &locator, file, &mut warnings)?;
    Ok(ReadLexicon { lexicon, warnings })
}

/// Reads a lexicon file (see [`read_lexicon`]); errors name the file as `path.display()` shows it.
///
/// # Errors
/// [`FormatError::Io`] when the file cannot be read, [`FormatError::Syntax`] when it is malformed.
pub fn read_lexicon_file(path: &Path, options: &LexiconReadOptions) -> Result<ReadLexicon, FormatError> {
    let opened = crate::input::Input::path(path).open()?;
    read_lexicon(opened.bytes(), opened.name(), options)
}

fn turtle_error(file: &str, error: &oxttl::TurtleSyntaxError) -> (Location, String) {
    let start = error.location().start;
    let line = u32::try_from(start.line + 1).unwrap_or(u32::MAX);
    let column = u32::try_from(start.column + 1).unwrap_or(u32::MAX);
    (Location { file: file.to_owned(), line, column }, error.message().to_owned())
}

type Prefixes = Vec<(String, String)>;

fn parse_lenient(input: &[u8], file: &str, base: &str) -> Result<(Vec<Triple>, Prefixes), FormatError> {
    let parser = oxttl::TurtleParser::new()
        .lenient()
        .with_base_iri(base)
        .map_err(|e| FormatError::syntax(file, 0, 0, format!("invalid base IRI {base:?}: {e}")))?;
    let mut parser = parser.for_slice(input);
    let mut triples = Vec::new();
    for result in parser.by_ref() {
        match result {
            Ok(triple) => triples.push(triple),
            Err(e) => {
                let (location, message) = turtle_error(file, &e);
                return Err(FormatError::syntax(
                    file,
                    location.line,
                    location.column,
                    format!("invalid Turtle: {message}"),
                ));
            }
        }
    }
    let prefixes = parser.prefixes().map(|(p, ns)| (p.to_owned(), ns.to_owned())).collect();
    Ok((triples, prefixes))
}

/// What a strict parse rejects that the lenient one accepted (an IRI with a space, …), and a
/// note when relative IRIs were resolved against the base.
fn strict_defects(input: &[u8], file: &str, base: &str) -> Vec<Diagnostic> {
    let errors = |base: Option<&str>| -> Vec<(Location, String)> {
        let parser = match base {
            Some(b) => match oxttl::TurtleParser::new().with_base_iri(b) {
                Ok(p) => p,
                Err(_) => return Vec::new(),
            },
            None => oxttl::TurtleParser::new(),
        };
        parser.for_slice(input).filter_map(Result::err).map(|e| turtle_error(file, &e)).collect()
    };
    let with_base = errors(Some(base));
    let mut out: Vec<Diagnostic> = with_base
        .iter()
        .map(|(location, message)| {
            Diagnostic::warning(
                "turtle-defect",
                format!("{message} (read leniently; a strict Turtle parser rejects this)"),
            )
            .at(location.clone())
        })
        .collect();
    let without_base = errors(None);
    if without_base.len() > with_base.len() {
        let first = without_base.iter().find(|e| !with_base.contains(e)).map(|(l, _)| l.clone());
        let mut note = Diagnostic::note(
            "relative-iri",
            format!("relative IRIs (e.g. `@prefix : <>`) resolved against the base IRI <{base}>"),
        );
        if let Some(location) = first {
            note = note.at(location);
        }
        out.push(note);
    }
    out
}

/// M-ATOLL's `foaf_5.ttl` / `foaf_6.ttl` end a `@prefix` line without its `.`, which no Turtle
/// parser accepts. Such a line (`@prefix p: <iri>` and nothing else) gets its dot back; the
/// `(line, column)` of each repair is returned for a warning. Other bytes are untouched, so
/// positions stay those of the file.
fn repair_directive_dots(input: &[u8]) -> (Cow<'_, [u8]>, Vec<(u32, u32)>) {
    let Ok(text) = std::str::from_utf8(input) else { return (Cow::Borrowed(input), Vec::new()) };
    let mut repaired = String::with_capacity(text.len() + 8);
    let mut lines = Vec::new();
    for (index, line) in text.split_inclusive('\n').enumerate() {
        let body = line.trim_end_matches(['\n', '\r']);
        let trimmed = body.trim();
        let is_bare_prefix = trimmed.strip_prefix("@prefix").is_some_and(|rest| {
            let rest = rest.trim_start();
            rest.split_once(':').is_some_and(|(name, iri)| {
                !name.contains(char::is_whitespace) && {
                    let iri = iri.trim();
                    iri.starts_with('<') && iri.ends_with('>') && iri.matches('>').count() == 1
                }
            })
        });
        if is_bare_prefix {
            repaired.push_str(body.trim_end());
            repaired.push_str(" .");
            repaired.push_str(&line[body.len()..]);
            let column = u32::try_from(body.trim_end().chars().count() + 1).unwrap_or(u32::MAX);
            lines.push((u32::try_from(index + 1).unwrap_or(u32::MAX), column));
        } else {
            repaired.push_str(line);
        }
    }
    if lines.is_empty() {
        (Cow::Borrowed(input), lines)
    } else {
        (Cow::Owned(repaired.into_bytes()), lines)
    }
}
