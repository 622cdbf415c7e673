//! SSSOM TSV alignments (<https://mapping-commons.github.io/sssom/>).
//!
//! A file starts with a `#`-prefixed YAML metadata block (or its metadata comes from an
//! external `.sssom.yml`, [`ReadOptions::sssom_metadata`]), then a TSV table whose header names
//! the columns, in any order. Only `subject_id`, `predicate_id` and `object_id` are required;
//! `confidence` (missing → 1.0) and `predicate_modifier` are used when present; every other
//! column (labels, justification, `|`-separated multi-values, …) is ignored.
//!
//! CURIEs are expanded with the metadata's `curie_map` on top of the built-in prefixes
//! `owl`, `rdf`, `rdfs`, `semapv`, `skos`, `sssom`, `xsd` and `linkml`; a full IRI (with
//! `://`, or in `<…>`) is taken as is; an undeclared prefix is an error at the cell.
//! Predicates map to relations with [`Relation::parse`] (`skos:exactMatch` → `=`,
//! `skos:broadMatch` → `<`, `skos:narrowMatch` → `>`, `skos:closeMatch`, `skos:relatedMatch`,
//! `owl:equivalentClass` → `=`, …); any other predicate becomes `?` with an
//! `unknown-relation` warning.
//!
//! Negative knowledge, which MELT ignores:
//! - `predicate_modifier: Not` makes the row a *negative cell*: relation `%`
//!   ([`Relation::Incompatible`]). The pair is known not to match; partial-mode scoring counts
//!   a system `=` cell on the same pair as a false positive.
//! - `sssom:NoTermFound` as `object_id` (or `subject_id`) is a *no-mapping cell*: that side is
//!   interned as the empty string `""` and the relation is `%`. Scoring treats the empty entity
//!   as a wildcard: every system `=` cell on the other entity is a false positive.

use std::collections::HashMap;

use kgeval_model::{Alignment, Correspondence, Interner, Location, Relation};
use serde::Deserialize;

use super::tsv::{self, Field, Records};
use super::{AlignmentFormat, ReadAlignment, ReadOptions};
use crate::warnings::Warnings;
use crate::FormatError;

/// The prefixes every SSSOM file may use without declaring them.
const BUILTIN_PREFIXES: [(&str, &str); 8] = [
    ("owl", "http://www.w3.org/2002/07/owl#"),
    ("rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"),
    ("rdfs", "http://www.w3.org/2000/01/rdf-schema#"),
    ("semapv", "https://w3id.org/semapv/vocab/"),
    ("skos", "http://www.w3.org/2004/02/skos/core#"),
    ("sssom", "https://w3id.org/sssom/"),
    ("xsd", "http://www.w3.org/2001/XMLSchema#"),
    ("linkml", "https://w3id.org/linkml/"),
];

const NO_TERM_FOUND: &str = "https://w3id.org/sssom/NoTermFound";

/// The part of the metadata kgeval uses; every other key is ignored.
#[derive(Debug, Default, Deserialize)]
struct Metadata {
    #[serde(default)]
    curie_map: Option<HashMap<String, String>>,
}

/// Parses a YAML metadata document. `first_line` is the file line of the YAML's line 1 and
/// `column_shift` the characters removed from every line (the `#`).
fn parse_metadata(
    yaml: &str,
    file: &str,
    first_line: u32,
    column_shift: u32,
) -> Result<HashMap<String, String>, FormatError> {
    if yaml.trim().is_empty() {
        return Ok(HashMap::new());
    }
    let metadata: Option<Metadata> = serde_yaml_ng::from_str(yaml).map_err(|e| {
        let (mut line, mut column) = e.location().map_or((1, 1), |l| (l.line(), l.column()));
        // An error at the end of the stream is reported after the last line; point at the end
        // of the last line instead (the next file line is the table, not YAML).
        let lines: Vec<&str> = yaml.lines().collect();
        if line > lines.len() {
            line = lines.len().max(1);
            column = lines.last().map_or(0, |l| l.chars().count()) + 1;
        }
        let line = first_line.saturating_add(u32::try_from(line.max(1) - 1).unwrap_or(u32::MAX));
        let column = u32::try_from(column.max(1)).unwrap_or(u32::MAX).saturating_add(column_shift);
        let message = e.to_string();
        let message = message.split(" at line ").next().unwrap_or(&message).to_owned();
        FormatError::syntax(
            file,
            line,
            column,
            format!("found invalid SSSOM metadata ({message}), expected a YAML mapping with an optional curie_map of prefix: IRI"),
        )
    })?;
    Ok(metadata.and_then(|m| m.curie_map).unwrap_or_default())
}

/// The `#` metadata block at the start of `input` (from `start`): the YAML text, the file line
/// where the table starts and its byte offset.
fn split_metadata(input: &[u8], start: usize) -> (Vec<u8>, u32, usize) {
    let mut yaml = Vec::new();
    let mut pos = start;
    let mut line = 1u32;
    while input.get(pos) == Some(&b'#') {
        let end = memchr::memchr(b'\n', &input[pos..]).map_or(input.len(), |k| pos + k);
        yaml.extend_from_slice(&input[pos + 1..end]);
        yaml.push(b'\n');
        pos = (end + 1).min(input.len());
        line += 1;
    }
    (yaml, line, pos)
}

/// CURIE expansion with the file's prefix map.
struct Prefixes {
    map: HashMap<String, String>,
}

impl Prefixes {
    /// Expands `raw` into `out`; `Err(message)` for an undeclared prefix or a bare word.
    fn expand(&self, raw: &str, out: &mut String) -> Result<(), String> {
        out.clear();
        let token = raw.trim();
        if let Some(iri) = token.strip_prefix('<').and_then(|s| s.strip_suffix('>')) {
            out.push_str(iri);
            return Ok(());
        }
        if token.contains("://") || token.starts_with("urn:") {
            out.push_str(token);
            return Ok(());
        }
        let Some((prefix, local)) = token.split_once(':') else {
            return Err(format!("found `{}`, expected a CURIE (prefix:local) or an IRI", tsv::shorten(token)));
        };
        match self.map.get(prefix) {
            Some(base) => {
                out.push_str(base);
                out.push_str(local);
                Ok(())
            }
            None => Err(format!(
                "found undeclared prefix `{}` in `{}`, expected a prefix declared in curie_map or a built-in one (owl, rdf, rdfs, semapv, skos, sssom, xsd, linkml)",
                tsv::shorten(prefix),
                tsv::shorten(token)
            )),
        }
    }
}

/// Positions of the columns kgeval reads.
struct Columns {
    subject: usize,
    predicate: usize,
    object: usize,
    confidence: Option<usize>,
    modifier: Option<usize>,
}

fn locate_columns(cells: &[&str], line: u32, file: &str) -> Result<Columns, FormatError> {
    let find = |name: &str| cells.iter().position(|c| c.trim() == name);
    let required = |name: &'static str| {
        find(name).ok_or_else(|| {
            FormatError::syntax(
                file,
                line,
                1,
                format!(
                    "found no `{name}` column in the header row, expected the SSSOM columns subject_id, predicate_id and object_id"
                ),
            )
        })
    };
    Ok(Columns {
        subject: required("subject_id")?,
        predicate: required("predicate_id")?,
        object: required("object_id")?,
        confidence: find("confidence"),
        modifier: find("predicate_modifier"),
    })
}

/// Reads an SSSOM TSV alignment.
pub(crate) fn read(
    input: &[u8],
    file: &str,
    options: &ReadOptions,
    interner: &mut Interner,
) -> Result<ReadAlignment, FormatError> {
    let mut map: HashMap<String, String> =
        BUILTIN_PREFIXES.iter().map(|(p, iri)| ((*p).to_owned(), (*iri).to_owned())).collect();
    if let Some((meta_file, content)) = &options.sssom_metadata {
        let yaml = std::str::from_utf8(content).map_err(|e| {
            FormatError::syntax_at_offset(
                meta_file,
                content,
                e.valid_up_to(),
                "found bytes that are not UTF-8, expected UTF-8 YAML",
            )
        })?;
        map.extend(parse_metadata(yaml, meta_file, 1, 0)?);
    }
    let start = tsv::skip_bom(input);
    let (yaml, table_line, table_start) = split_metadata(input, start);
    let yaml = std::str::from_utf8(&yaml).map_err(|_| {
        let bad = input[start..table_start].utf8_chunks().next().map_or(0, |c| c.valid().len());
        FormatError::syntax_at_offset(
            file,
            input,
            start + bad,
            "found bytes that are not UTF-8 in the metadata block, expected UTF-8 YAML",
        )
    })?;
    map.extend(parse_metadata(yaml, file, 1, 1)?);
    let prefixes = Prefixes { map };

    let mut alignment = Alignment::with_policy(options.duplicate_policy);
    let mut warnings = Warnings::default();
    let mut records = Records::new(input, table_start, table_line, b'\t');
    let mut fields: Vec<Field<'_>> = Vec::with_capacity(16);
    let mut columns: Option<Columns> = None;
    let (mut subject, mut object, mut predicate) = (String::new(), String::new(), String::new());
    let split_error = |e: tsv::SplitError| FormatError::syntax_at_offset(file, input, e.offset, e.message);
    while let Some(line) = records.next_record(&mut fields).map_err(split_error)? {
        if fields.iter().all(|f| f.text.trim_ascii().is_empty()) {
            continue;
        }
        let Some(cols) = &columns else {
            let cells = fields.iter().map(|f| tsv::field_str(f, input, file)).collect::<Result<Vec<_>, _>>()?;
            columns = Some(locate_columns(&cells, line, file)?);
            continue;
        };
        let needed = cols.subject.max(cols.predicate).max(cols.object);
        let cell = |i: usize| tsv::field_str(&fields[i], input, file);
        if fields.len() <= needed {
            let last = &fields[fields.len() - 1];
            let (l, c) = crate::line_column(input, last.offset + last.text.len());
            return Err(FormatError::syntax(
                file,
                l,
                c,
                format!("found {} column(s), expected at least {} as the header row says", fields.len(), needed + 1),
            ));
        }
        let cell_error =
            |i: usize, message: String| FormatError::syntax_at_offset(file, input, fields[i].offset, message);
        prefixes.expand(cell(cols.subject)?, &mut subject).map_err(|m| cell_error(cols.subject, m))?;
        prefixes.expand(cell(cols.object)?, &mut object).map_err(|m| cell_error(cols.object, m))?;
        prefixes.expand(cell(cols.predicate)?, &mut predicate).map_err(|m| cell_error(cols.predicate, m))?;
        for (i, iri, what) in [(cols.subject, &subject, "subject_id"), (cols.object, &object, "object_id")] {
            if iri.is_empty() || iri.chars().any(char::is_control) {
                return Err(cell_error(
                    i,
                    format!("found `{}` as {what}, expected a CURIE or an IRI", tsv::shorten(iri)),
                ));
            }
        }
        let confidence = match cols.confidence {
            Some(i) if i < fields.len() => tsv::confidence(cell(i)?, &fields[i], input, file, (&mut warnings, line))?,
            _ => 1.0,
        };
        let modifier = match cols.modifier.filter(|&i| i < fields.len()) {
            Some(i) => Some((i, cell(i)?.trim())),
            None => None,
        };
        let negated = match modifier {
            None | Some((_, "")) => false,
            Some((_, m)) if m.eq_ignore_ascii_case("not") => true,
            Some((i, m)) => {
                return Err(cell_error(
                    i,
                    format!("found predicate_modifier `{}`, expected `Not` or an empty cell", tsv::shorten(m)),
                ))
            }
        };
        let mut relation = if predicate.is_empty() {
            return Err(cell_error(
                cols.predicate,
                "found an empty predicate_id, expected a CURIE such as skos:exactMatch".to_owned(),
            ));
        } else {
            tsv::relation(&predicate, options, &mut warnings, || Location {
                file: file.to_owned(),
                line,
                column: tsv::column_of(input, fields[cols.predicate].offset),
            })
        };
        let no_subject = subject == NO_TERM_FOUND;
        let no_object = object == NO_TERM_FOUND;
        if negated || no_subject || no_object {
            relation = Relation::Incompatible;
        }
        let correspondence = Correspondence {
            entity1: interner.intern(if no_subject { "" } else { &subject }),
            entity2: interner.intern(if no_object { "" } else { &object }),
            relation,
            confidence,
            line,
        };
        tsv::insert(&mut alignment, correspondence, interner, &mut warnings, file);
    }
    if columns.is_none() {
        let (l, c) = crate::line_column(input, input.len());
        return Err(FormatError::syntax(
            file,
            l,
            c,
            "found no header row, expected a TSV header naming subject_id, predicate_id and object_id",
        ));
    }
    Ok(ReadAlignment { alignment, format: AlignmentFormat::Sssom, warnings: warnings.finish(file) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_str(input: &str) -> Result<(ReadAlignment, Interner), FormatError> {
        let mut interner = Interner::new();
        let read = read(input.as_bytes(), "t.sssom.tsv", &ReadOptions::default(), &mut interner)?;
        Ok((read, interner))
    }

    #[test]
    fn negative_and_no_term_found_cells() -> Result<(), FormatError> {
        let (read, iris) = read_str(
            "#curie_map:\n#  A: http://a/\n#  B: http://b/\n\
             subject_id\tpredicate_id\tpredicate_modifier\tobject_id\tconfidence\n\
             A:1\tskos:exactMatch\tNot\tB:1\t0.4\n\
             A:2\tskos:exactMatch\t\tsssom:NoTermFound\t\n\
             A:3\tskos:broadMatch\t\t<http://b/3>\t0.9\n",
        )?;
        let cells = read.alignment.cells();
        assert_eq!(cells.len(), 3);
        assert_eq!(cells[0].relation, Relation::Incompatible);
        assert_eq!(iris.resolve(cells[0].entity2), "http://b/1");
        assert_eq!(cells[1].relation, Relation::Incompatible);
        assert_eq!(iris.resolve(cells[1].entity2), "");
        assert_eq!(cells[1].confidence, 1.0);
        assert_eq!(cells[2].relation, Relation::Subsumed);
        assert_eq!(cells[2].line, 7);
        Ok(())
    }

    #[test]
    fn undeclared_prefix_is_located() {
        let err =
            read_str("subject_id\tpredicate_id\tobject_id\nX:1\tskos:exactMatch\tY:1\n").err().map(|e| e.to_string());
        assert!(
            err.as_deref().is_some_and(|e| e.starts_with("t.sssom.tsv:2:1: found undeclared prefix `X`")),
            "{err:?}"
        );
    }

    #[test]
    fn bad_yaml_line_is_the_file_line() {
        let err = read_str("#a: 1\n#curie_map: [\n#b: c\nsubject_id\n").err().map(|e| e.to_string());
        assert!(
            err.as_deref().is_some_and(|e| e.starts_with("t.sssom.tsv:2:13: found invalid SSSOM metadata")),
            "{err:?}"
        );
    }
}
