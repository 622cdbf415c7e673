//! The Alignment-API vocabulary read as RDF triples (oxttl, oxrdfxml).
//!
//! Turtle and N-Triples alignments, and RDF/XML that is valid RDF but not laid out the way the
//! streaming reader expects. Cells are the subjects of `align:entity1` / `align:entity2`
//! triples (namespace with or without `#`), built in the order their subject first appears.
//! Slower than the streaming path (every triple is materialised) but it sees exactly the RDF
//! graph: the differential test holds the two paths to the same cells.

use std::collections::HashMap;

use kgeval_model::{Alignment, AlignmentHeader, Correspondence, Diagnostic, Interner, Location, Relation};
use oxrdf::{NamedOrBlankNode, Term, Triple};

use super::measure::{is_out_of_range, measure_value, out_of_range_warning, OUT_OF_RANGE};
use super::{rdfxml, AlignmentFormat, ReadAlignment, ReadOptions, ALIGN_NS, EDOAL_NS, RDF_NS};
use crate::warnings::Warnings;
use crate::FormatError;

/// What the triples say about one cell node.
#[derive(Default)]
struct CellTriples {
    entity: [Option<Term>; 2],
    relation: Option<Term>,
    measure: Option<Term>,
}

/// Reads `input` as `format` (RDF/XML, Turtle or N-Triples) and builds the cells.
pub(crate) fn read(
    input: &[u8],
    file: &str,
    format: AlignmentFormat,
    options: &ReadOptions,
    interner: &mut Interner,
) -> Result<ReadAlignment, FormatError> {
    let mut warnings = Vec::new();
    let triples = match format {
        AlignmentFormat::RdfXml => {
            // oxrdfxml expands DTD entities at declaration: refuse "billion laughs" first.
            crate::ontology::check_entity_expansion(input, file)?;
            let doc = rdfxml::decode(input, file)?;
            let (doc, repaired) = if options.repair_xml { rdfxml::repair_ampersands(doc) } else { (doc.into(), 0) };
            if repaired > 0 {
                warnings.push(
                    Diagnostic::note("repaired-xml", format!("repaired {repaired} raw '&' (escaped as '&amp;')"))
                        .at(Location { file: file.to_owned(), line: 0, column: 0 }),
                );
            }
            parse_rdfxml(doc.as_bytes(), file)?
        }
        AlignmentFormat::Turtle => collect_ttl(
            oxttl::TurtleParser::new().for_slice(input).map(|r| r.map_err(|e| ttl_error(file, "Turtle", &e))),
        )?,
        AlignmentFormat::NTriples => collect_ttl(
            oxttl::NTriplesParser::new().for_slice(input).map(|r| r.map_err(|e| ttl_error(file, "N-Triples", &e))),
        )?,
        other => {
            return Err(FormatError::syntax(
                file,
                1,
                1,
                format!("cannot read {} as RDF triples: expected rdfxml, turtle or ntriples", other.name()),
            ));
        }
    };
    build(&triples, file, format, options, interner, warnings)
}

fn collect_ttl(iter: impl Iterator<Item = Result<Triple, FormatError>>) -> Result<Vec<Triple>, FormatError> {
    iter.collect()
}

fn ttl_error(file: &str, syntax: &str, error: &oxttl::TurtleSyntaxError) -> FormatError {
    let start = error.location().start;
    let line = u32::try_from(start.line + 1).unwrap_or(u32::MAX);
    let column = u32::try_from(start.column + 1).unwrap_or(u32::MAX);
    FormatError::syntax(file, line, column, format!("invalid {syntax}: {}", error.message()))
}

fn parse_rdfxml(input: &[u8], file: &str) -> Result<Vec<Triple>, FormatError> {
    let mut parser = oxrdfxml::RdfXmlParser::new().for_slice(input);
    let mut triples = Vec::new();
    loop {
        match parser.next() {
            Some(Ok(triple)) => triples.push(triple),
            Some(Err(e)) => {
                // oxrdfxml gives no position: the parser's position when the error surfaced.
                let at = usize::try_from(parser.buffer_position()).unwrap_or(usize::MAX);
                return Err(FormatError::syntax_at_offset(file, input, at, format!("invalid RDF/XML: {e}")));
            }
            None => return Ok(triples),
        }
    }
}

/// The local name of an alignment-vocabulary IRI (`…/alignment#entity1` → `entity1`).
fn align_local(iri: &str) -> Option<&str> {
    let rest = iri.strip_prefix(ALIGN_NS)?;
    Some(rest.strip_prefix('#').unwrap_or(rest))
}

fn is_edoal_type(iri: &str) -> bool {
    iri.starts_with(EDOAL_NS)
}

fn term_text(term: &Term) -> String {
    match term {
        Term::NamedNode(n) => n.as_str().to_owned(),
        Term::BlankNode(b) => format!("_:{}", b.as_str()),
        Term::Literal(l) => l.value().to_owned(),
        #[allow(unreachable_patterns)]
        _ => term.to_string(),
    }
}

fn build(
    triples: &[Triple],
    file: &str,
    format: AlignmentFormat,
    options: &ReadOptions,
    interner: &mut Interner,
    mut warnings: Vec<Diagnostic>,
) -> Result<ReadAlignment, FormatError> {
    let rdf_type = format!("{RDF_NS}type");
    let mut order: Vec<NamedOrBlankNode> = Vec::new();
    let mut cells: HashMap<NamedOrBlankNode, CellTriples> = HashMap::new();
    let mut edoal_nodes: HashMap<NamedOrBlankNode, String> = HashMap::new();
    let mut header = AlignmentHeader::default();
    let mut uri: [Option<String>; 2] = [None, None];
    let mut has_alignment_vocabulary = false;
    for triple in triples {
        let predicate = triple.predicate.as_str();
        if predicate == rdf_type {
            if let Term::NamedNode(t) = &triple.object {
                if is_edoal_type(t.as_str()) {
                    edoal_nodes.entry(triple.subject.clone()).or_insert_with(|| t.as_str().to_owned());
                }
                if align_local(t.as_str()).is_some() {
                    has_alignment_vocabulary = true;
                }
            }
            continue;
        }
        let Some(local) = align_local(predicate) else { continue };
        has_alignment_vocabulary = true;
        let slot = match local {
            "entity1" | "entity2" | "relation" | "measure" => {
                let cell = cells.entry(triple.subject.clone()).or_insert_with(|| {
                    order.push(triple.subject.clone());
                    CellTriples::default()
                });
                match local {
                    "entity1" => &mut cell.entity[0],
                    "entity2" => &mut cell.entity[1],
                    "relation" => &mut cell.relation,
                    _ => &mut cell.measure,
                }
            }
            "onto1" | "onto2" => {
                let target = if local == "onto1" { &mut header.onto1 } else { &mut header.onto2 };
                target.get_or_insert_with(|| term_text(&triple.object));
                continue;
            }
            "uri1" | "uri2" => {
                uri[usize::from(local == "uri2")].get_or_insert_with(|| term_text(&triple.object));
                continue;
            }
            "level" => {
                header.level.get_or_insert_with(|| term_text(&triple.object));
                continue;
            }
            "type" => {
                header.arity.get_or_insert_with(|| term_text(&triple.object));
                continue;
            }
            _ => continue,
        };
        // The first value wins, as in the streaming reader.
        slot.get_or_insert_with(|| triple.object.clone());
    }
    if !has_alignment_vocabulary {
        return Err(FormatError::syntax(
            file,
            1,
            1,
            format!("found no triple in the alignment vocabulary: expected predicates in namespace {ALIGN_NS}#"),
        ));
    }
    // onto1 may be an Ontology node: prefer uri1 (legacy) as the streaming reader does.
    if let Some(u) = uri[0].take() {
        header.onto1 = Some(u);
    }
    if let Some(u) = uri[1].take() {
        header.onto2 = Some(u);
    }
    let mut alignment = Alignment::with_policy(options.duplicate_policy);
    alignment.header = header;
    let mut sink = Warnings::default();
    for node in &order {
        let cell = &cells[node];
        let node_name = match node {
            NamedOrBlankNode::NamedNode(n) => format!("<{}>", n.as_str()),
            NamedOrBlankNode::BlankNode(b) => format!("_:{}", b.as_str()),
            #[allow(unreachable_patterns)]
            other => other.to_string(),
        };
        let mut edoal = None;
        let mut entities = [None, None];
        for (side, entity) in cell.entity.iter().enumerate() {
            match entity {
                Some(Term::NamedNode(n)) => {
                    let as_subject = NamedOrBlankNode::NamedNode(n.clone());
                    if let Some(t) = edoal_nodes.get(&as_subject) {
                        edoal.get_or_insert_with(|| format!("{} typed <{t}>", n.as_str()));
                    }
                    entities[side] = Some(interner.intern(n.as_str()));
                }
                Some(Term::Literal(l)) if !l.value().trim().is_empty() => {
                    entities[side] = Some(interner.intern(l.value().trim()));
                }
                Some(other) => {
                    edoal.get_or_insert_with(|| format!("{other} (not an IRI)"));
                }
                None => {}
            }
        }
        if let Some(what) = edoal {
            if options.skip_edoal {
                alignment.skipped_cells += 1;
                continue;
            }
            return Err(FormatError::syntax(
                file,
                1,
                1,
                format!(
                    "EDOAL / level-2 cell {node_name} (entity {what}): expected entities given as IRIs; skip such cells with --skip-edoal"
                ),
            ));
        }
        let [Some(entity1), Some(entity2)] = entities else {
            let missing = if entities[0].is_none() { "entity1" } else { "entity2" };
            return Err(FormatError::syntax(
                file,
                1,
                1,
                format!("found cell {node_name} without {missing}: expected an align:{missing} triple"),
            ));
        };
        let relation = match &cell.relation {
            None => Relation::Equivalence,
            Some(term) => {
                let text = term_text(term);
                if options.melt_relations {
                    Relation::parse(&text).unwrap_or(Relation::Unknown)
                } else {
                    Relation::parse(text.trim()).unwrap_or_else(|| {
                        sink.push("unknown-relation", || {
                            Diagnostic::warning(
                                "unknown-relation",
                                format!("unknown relation {text:?} of cell {node_name}: read as '?'"),
                            )
                            .at(Location { file: file.to_owned(), line: 0, column: 0 })
                        });
                        Relation::Unknown
                    })
                }
            }
        };
        let confidence = match &cell.measure {
            None => 1.0,
            Some(term) => {
                let text = term_text(term);
                match measure_value(text.trim()) {
                    Some(v) => {
                        if is_out_of_range(v) {
                            sink.push(OUT_OF_RANGE, || {
                                out_of_range_warning(
                                    &format!("measure {text} of cell {node_name}"),
                                    Location { file: file.to_owned(), line: 0, column: 0 },
                                )
                            });
                        }
                        v
                    }
                    None => {
                        return Err(FormatError::syntax(
                            file,
                            1,
                            1,
                            format!("found measure {text:?} on cell {node_name}: expected a number such as 0.75"),
                        ));
                    }
                }
            }
        };
        let correspondence = Correspondence { entity1, entity2, relation, confidence, line: 0 };
        if alignment.insert(correspondence) == kgeval_model::InsertOutcome::Duplicate {
            sink.push("duplicate-cell", || {
                Diagnostic::warning(
                    "duplicate-cell",
                    format!(
                        "duplicate cell ({}, {}, {relation}): the first occurrence is kept",
                        interner.resolve(entity1),
                        interner.resolve(entity2)
                    ),
                )
                .at(Location { file: file.to_owned(), line: 0, column: 0 })
            });
        }
    }
    warnings.extend(sink.finish(file));
    Ok(ReadAlignment { alignment, format, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turtle_without_hash_and_literal_relation() {
        let ttl = br#"@prefix a: <http://knowledgeweb.semanticweb.org/heterogeneity/alignment> .
<http://c1> <http://knowledgeweb.semanticweb.org/heterogeneity/alignmententity1> <http://a#x> ;
  <http://knowledgeweb.semanticweb.org/heterogeneity/alignmententity2> <http://b#y> ;
  <http://knowledgeweb.semanticweb.org/heterogeneity/alignmentrelation> "<" ;
  <http://knowledgeweb.semanticweb.org/heterogeneity/alignmentmeasure> "0.5"^^<http://www.w3.org/2001/XMLSchema#float> ."#;
        let mut interner = Interner::new();
        let read = read(ttl, "t.ttl", AlignmentFormat::Turtle, &ReadOptions::default(), &mut interner).unwrap();
        let c = read.alignment.cells()[0];
        assert_eq!((c.relation, c.confidence), (Relation::Subsumed, 0.5));
    }

    #[test]
    fn turtle_error_has_position() {
        let mut interner = Interner::new();
        let e = read(
            b"@prefix a: <x> .\n<a> <b> ",
            "t.ttl",
            AlignmentFormat::Turtle,
            &ReadOptions::default(),
            &mut interner,
        )
        .unwrap_err();
        let FormatError::Syntax(s) = e else { panic!() };
        assert!(s.location.line >= 1 && s.location.column >= 1);
    }

    #[test]
    fn missing_entity_is_an_error() {
        let nt = b"_:c <http://knowledgeweb.semanticweb.org/heterogeneity/alignment#entity1> <http://a> .\n";
        let mut interner = Interner::new();
        let e = read(nt, "t.nt", AlignmentFormat::NTriples, &ReadOptions::default(), &mut interner).unwrap_err();
        assert!(e.to_string().contains("without entity2"), "{e}");
    }
}
