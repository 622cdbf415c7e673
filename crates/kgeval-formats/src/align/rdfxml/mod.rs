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
//! into stretches of a few MB, parsed on rayon's threads from the state after the prolog.
//! Parsing only records IRIs (hashed on the parsing thread) and cells ([`records`]); then
//! every IRI of the document is interned at once, shard by shard on every thread, with ids in
//! document order ([`kgeval_model::Interner::intern_batch`]), and the cells are inserted in
//! document order, so ids, duplicates, warnings and lines do not depend on the cut. Any error, or
//! anything a stretch cannot decide alone (a header field after the cells, a mismatched end
//! tag, the entity budget), sends the read back to the sequential path (what was interned is
//! forgotten first), and an error is always reported by the exact path (one quick-xml reader
//! over the whole document), so messages and positions never depend on the fast paths.
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

pub(crate) use self::repair::{decode, not_blank, repair_ampersands};

/// Documents at least this large are parsed in parallel stretches.
const PARALLEL_THRESHOLD: usize = 8 << 20;

/// The size of a stretch of a parallel read.
const STRETCH_BYTES: usize = 4 << 20;

/// Reads an Alignment-API RDF/XML document.
pub(crate) fn read(
    input: &[u8],
    file: &str,
    options: &ReadOptions,
    interner: &mut Interner,
) -> Result<ReadAlignment, FormatError> {
    let threads = rayon::current_num_threads();
    // One thread: no stretches. Several: pieces of about STRETCH_BYTES, so that the threads
    // share the work evenly.
    let stretches = if threads > 1 { (input.len() / STRETCH_BYTES).max(threads) } else { 1 };
    let cut = Cut { parallel_from: PARALLEL_THRESHOLD, stretches, fast: true };
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
    // UTF-8 validation and the declaration guard, while the interner and the alignment make
    // room for what the document may hold.
    let body = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
    let mut reserved = Alignment::with_policy(options.duplicate_policy);
    let ((doc, declarations), ()) = rayon::join(
        || decode_and_guard(input, body, file),
        || records::reserve_for(input.len(), interner, &mut reserved),
    );
    let doc = doc?;
    declarations?;
    let mut repaired_count = 0;
    let repaired;
    let doc = if options.repair_xml {
        let (fixed, count) = repair_ampersands(doc);
        repaired_count = count;
        repaired = fixed;
        &*repaired
    } else {
        doc
    };
    let fresh = || {
        let mut warnings = Warnings::default();
        if repaired_count > 0 {
            warnings.push("repaired-xml", || {
                Diagnostic::note("repaired-xml", format!("repaired {repaired_count} raw '&' (escaped as '&amp;')"))
                    .at(Location { file: file.to_owned(), line: 0, column: 0 })
            });
        }
        (Alignment::with_policy(options.duplicate_policy), warnings)
    };
    let (mut alignment, mut warnings) = (reserved, fresh().1);
    let interned = interner.len();
    let mut parser = None;
    if fast && doc.len() >= parallel_from && stretches > 1 {
        parser = read_parallel(doc, file, options, stretches, interner, &mut alignment, &mut warnings);
        if parser.is_none() {
            // Back to the state before: the sequential read interns from there.
            interner.truncate(interned);
            (alignment, warnings) = fresh();
        }
    }
    let parser = match parser {
        Some(parser) => parser,
        None => {
            let (parser, records) = match parse_whole(doc, file, options, if fast { Mode::Fast } else { Mode::Exact }) {
                Ok(read) => read,
                Err(_) => parse_whole(doc, file, options, Mode::Exact)?,
            };
            records::merge((records, 0), doc, file, interner, &mut alignment, &mut warnings);
            parser
        }
    };
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

/// From this many bytes on, [`decode_and_guard`] reads the input once, in pieces.
const ONE_PASS_MIN: usize = 1 << 22;

/// The document (`body`, `input` without its byte-order mark) and the declaration guard's
/// verdict on the same bytes; when both fail, the caller reports the decoding error first. A
/// large input is validated and searched for `<!DOCTYPE` in one pass on every thread
/// ([`crate::xml_guard::utf8_and_doctypes`]); a small one, or one that is not UTF-8, is
/// decoded and guarded by two whole passes side by side, which locate the error.
fn decode_and_guard<'a>(
    input: &'a [u8],
    body: &'a [u8],
    file: &str,
) -> (Result<&'a str, FormatError>, Result<(), FormatError>) {
    // (A UTF-16 byte-order mark is not UTF-8: such an input takes the two passes.)
    if body.len() >= ONE_PASS_MIN {
        if let Some((text, doctypes)) = crate::xml_guard::utf8_and_doctypes(body) {
            return (not_blank(text, file), crate::xml_guard::check_declarations_found(body, file, &doctypes));
        }
    }
    rayon::join(|| decode(input, file), || crate::xml_guard::check_declarations(body, file))
}

/// Parses the whole document on this thread; returns the parser (with the header) and the
/// records.
fn parse_whole<'a, 'o>(
    doc: &'a str,
    file: &'o str,
    options: &'o ReadOptions,
    mode: Mode,
) -> Result<(Parser<'a, 'o>, Records), FormatError> {
    let mut parser = Parser::new(doc, file, options, mode);
    parser.out.reserve(doc.len());
    parser.run(0, doc.len())?;
    let records = std::mem::take(&mut parser.out);
    Ok((parser, records))
}

/// A parsed stretch: its records, the entity budget it spent and its number of lines.
type Stretch = (Records, usize, u32);

/// Parses the prolog (up to the first `<map>`), then `stretches` stretches of the body cut at
/// `<map>` boundaries, each from a copy of the state after the prolog, all on rayon's threads,
/// and merges them into `alignment` in document order: their IRIs are interned at once, on
/// every thread ([`records::merge_all`]). Returns the parser that read the header; `None`
/// when any stretch fails or cannot be read alone, or the stretches together overspend the
/// entity budget: the caller then undoes what was merged and reads sequentially.
fn read_parallel<'a, 'o>(
    doc: &'a str,
    file: &'o str,
    options: &'o ReadOptions,
    stretches: usize,
    interner: &mut Interner,
    alignment: &mut Alignment,
    warnings: &mut Warnings,
) -> Option<Parser<'a, 'o>> {
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
    let ranges: Vec<(usize, usize)> = cuts.windows(2).map(|w| (w[0], w[1])).collect();
    let budget = prolog.expansion_budget;
    let prolog_ref = &prolog;
    let parsed: Vec<Stretch> = ranges
        .par_iter()
        .map(|&(start, end)| {
            let mut part = prolog_ref.fork(start, end == doc.len());
            part.out.reserve(end - start);
            part.run(start, end).ok()?;
            let spent = budget.saturating_sub(part.expansion_budget);
            let lines = part.line_of(end) - 1;
            Some((std::mem::take(&mut part.out), spent, lines))
        })
        .collect::<Option<_>>()?;
    // Each stretch checked the entity budget alone; together they must fit it too.
    let spent: usize = parsed.iter().map(|(_, spent, _)| spent).sum();
    if spent > budget {
        return None;
    }
    let mut shift = prolog.line_of(first) - 1;
    let mut all = Vec::with_capacity(parsed.len() + 1);
    all.push((std::mem::take(&mut prolog.out), 0));
    for (records, _, lines) in parsed {
        all.push((records, shift));
        shift += lines;
    }
    records::merge_all(all, doc, file, interner, alignment, warnings);
    Some(prolog)
}
