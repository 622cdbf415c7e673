//! Streaming Alignment-API RDF/XML reader (quick-xml).
//!
//! The main path for OAEI alignments. quick-xml only tokenises tags; this module parses the
//! attributes itself (borrowed from the input, no allocation per element, positions for every
//! error), resolves namespaces only where the vocabulary needs them (the root, `Alignment`,
//! `rdf:` attributes, EDOAL expressions inside `entity1`/`entity2`) and matches the other
//! elements by local name. That tolerates what real files do: the alignment namespace with or
//! without `#`, `align:` or default prefixes, `xsd:float` CURIE datatypes, any element order,
//! `&xsd;` DTD entities, the legacy `<uri1>` header. Internal DTD entities are expanded by us
//! with a depth and size bound; external entities are never opened.
//!
//! Speed (a million cells is a 310 MB file): canonical `<map>` elements are read by a fast
//! path straight from the bytes ([`fast`]); large documents are cut at `<map>` boundaries
//! and the stretches parsed on rayon's threads from the state after the prolog. Parsing only
//! records IRIs and cells ([`records`]); interning happens afterwards, sequentially and in
//! document order, so ids, duplicates, warnings and lines do not depend on the cut. Any
//! error, or anything a stretch cannot decide alone (a header field after the cells, a
//! mismatched end tag, the entity budget), sends the read back to the sequential path, and
//! an error is always reported by the exact path (one quick-xml reader over the whole
//! document), so messages and positions never depend on the fast paths.
//!
//! Layout: [`parser`] (event loop, end tags), [`cell`] (measure, relation, finished cells), [`elements`] (start tags, attributes,
//! namespaces), [`fast`], [`records`], [`dtd`] (DOCTYPE, entities, unescaping), [`repair`]
//! (decoding, `--repair-xml`).

mod cell;
mod dtd;
mod elements;
mod fast;
mod parser;
mod records;
mod repair;
#[cfg(test)]
mod tests;

use kgeval_model::{Alignment, Diagnostic, Interner, Location};
use rayon::prelude::*;

use self::parser::{Mode, Parser};
use self::records::Records;
use super::{AlignmentFormat, ReadAlignment, ReadOptions};
use crate::warnings::Warnings;
use crate::FormatError;

pub(crate) use self::repair::{decode, repair_ampersands};

/// Documents at least this large are parsed in parallel stretches.
const PARALLEL_THRESHOLD: usize = 8 << 20;

/// Reads an Alignment-API RDF/XML document.
pub(crate) fn read(
    input: &[u8],
    file: &str,
    options: &ReadOptions,
    interner: &mut Interner,
) -> Result<ReadAlignment, FormatError> {
    let cut = Cut { parallel_from: PARALLEL_THRESHOLD, stretches: rayon::current_num_threads(), fast: true };
    read_cut(input, file, options, interner, cut)
}

/// Reads an Alignment-API RDF/XML document cut as told, for the fuzz targets and tests that
/// compare paths: `parallel_from` is the size from which the document is split into
/// `stretches` parallel stretches; `fast` tries the fast `<map>` path (else the exact one).
/// The result must not depend on these choices.
///
/// # Errors
/// As [`super::read_alignment`] for RDF/XML.
#[doc(hidden)]
pub fn read_rdfxml_cut(
    input: &[u8],
    file: &str,
    options: &ReadOptions,
    interner: &mut Interner,
    parallel_from: usize,
    stretches: usize,
    fast: bool,
) -> Result<ReadAlignment, FormatError> {
    read_cut(input, file, options, interner, Cut { parallel_from, stretches, fast })
}

/// How a document is read: the size from which, and the number of stretches into which, it
/// is cut, and whether the fast path is tried (tests cut small documents and compare).
#[derive(Debug, Clone, Copy)]
struct Cut {
    parallel_from: usize,
    stretches: usize,
    fast: bool,
}

/// [`read`], cut as told.
fn read_cut(
    input: &[u8],
    file: &str,
    options: &ReadOptions,
    interner: &mut Interner,
    cut: Cut,
) -> Result<ReadAlignment, FormatError> {
    let Cut { parallel_from, stretches, fast } = cut;
    let doc = decode(input, file)?;
    crate::xml_guard::check_declarations(doc.as_bytes(), file)?;
    let mut warnings = Warnings::default();
    let repaired;
    let doc = if options.repair_xml {
        let (fixed, count) = repair_ampersands(doc);
        if count > 0 {
            warnings.push("repaired-xml", || {
                Diagnostic::note("repaired-xml", format!("repaired {count} raw '&' (escaped as '&amp;')"))
                    .at(Location { file: file.to_owned(), line: 0, column: 0 })
            });
        }
        repaired = fixed;
        &*repaired
    } else {
        doc
    };
    let parallel = (fast && doc.len() >= parallel_from && stretches > 1)
        .then(|| parse_parallel(doc, file, options, stretches))
        .flatten();
    let (parser, parts) = match parallel {
        Some(read) => read,
        None => match parse_whole(doc, file, options, if fast { Mode::Fast } else { Mode::Exact }) {
            Ok(read) => read,
            Err(_) => parse_whole(doc, file, options, Mode::Exact)?,
        },
    };
    let mut alignment = Alignment::with_policy(options.duplicate_policy);
    records::merge(parts, doc, file, interner, &mut alignment, &mut warnings);
    let mut header = parser.header;
    // Legacy files: `uri1` is the ontology IRI, `onto1` its location.
    let [uri1, uri2] = parser.uri;
    if let Some(uri) = uri1 {
        header.onto1 = Some(uri);
    }
    if let Some(uri) = uri2 {
        header.onto2 = Some(uri);
    }
    alignment.header = header;
    Ok(ReadAlignment { alignment, format: AlignmentFormat::RdfXml, warnings: warnings.finish(file) })
}

/// Records of the parts of a document with the number of lines before each, and the parser
/// that read the header.
type Parsed<'a, 'o> = (Parser<'a, 'o>, Vec<(Records<'a>, u32)>);

/// Parses the whole document on this thread.
fn parse_whole<'a, 'o>(
    doc: &'a str,
    file: &'o str,
    options: &'o ReadOptions,
    mode: Mode,
) -> Result<Parsed<'a, 'o>, FormatError> {
    let mut parser = Parser::new(doc, file, options, mode);
    parser.run(0, doc.len())?;
    let records = std::mem::take(&mut parser.out);
    Ok((parser, vec![(records, 0)]))
}

/// Parses the prolog (up to the first `<map>`), then `stretches` stretches of the body cut at
/// `<map>` boundaries, in parallel, each from a copy of the state after the prolog. `None`
/// when any part fails or cannot be read alone; the caller then reads sequentially.
fn parse_parallel<'a, 'o>(
    doc: &'a str,
    file: &'o str,
    options: &'o ReadOptions,
    stretches: usize,
) -> Option<Parsed<'a, 'o>> {
    let finder = memchr::memmem::Finder::new(b"<map>");
    let bytes = doc.as_bytes();
    let first = finder.find(bytes)?;
    let mut prolog = Parser::new(doc, file, options, Mode::Part { header: true, last: false });
    prolog.run(0, first).ok()?;
    let mut cuts = vec![first];
    for k in 1..stretches {
        let target = first + (doc.len() - first) / stretches * k;
        let cut = finder.find(&bytes[target..]).map_or(doc.len(), |at| target + at);
        if cut > *cuts.last().unwrap_or(&first) && cut < doc.len() {
            cuts.push(cut);
        }
    }
    cuts.push(doc.len());
    let budget = prolog.expansion_budget;
    let parts = cuts
        .windows(2)
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|range| {
            let (start, end) = (range[0], range[1]);
            let mut part = prolog.fork(start, end == doc.len());
            part.run(start, end).ok()?;
            let spent = budget.saturating_sub(part.expansion_budget);
            let lines = part.line_of(end) - 1;
            Some((std::mem::take(&mut part.out), spent, lines))
        })
        .collect::<Option<Vec<_>>>()?;
    // Each stretch checked the entity budget alone; together they must fit it too.
    if parts.iter().map(|(_, spent, _)| spent).sum::<usize>() > budget {
        return None;
    }
    let mut shift = prolog.line_of(first) - 1;
    let mut merged = vec![(std::mem::take(&mut prolog.out), 0)];
    for (records, _, lines) in parts {
        merged.push((records, shift));
        shift += lines;
    }
    Some((prolog, merged))
}
