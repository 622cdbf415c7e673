//! Entity typing from ontologies (MELT `TypeRefiner` semantics), for the CLASSES /
//! PROPERTIES / INSTANCES breakdown of alignment scores.
//!
//! The ontology is parsed as RDF (RDF/XML with oxrdfxml, Turtle or N-Triples with oxttl; the
//! syntax is detected from the content) and every named entity gets the strongest kind the
//! triples give it ([`EntityTypes::record`]):
//!
//! - `rdf:type owl:Class` / `rdfs:Class`, subject or object of `rdfs:subClassOf`,
//!   `owl:equivalentClass`, `owl:disjointWith`, object of `owl:someValuesFrom` /
//!   `owl:allValuesFrom`, object of `rdfs:domain`, object of `rdfs:range` unless it is a
//!   datatype (XSD, `rdfs:Literal`, `rdf:PlainLiteral`, `rdf:langString`, `rdf:XMLLiteral` or
//!   declared `rdfs:Datatype`), object of any other `rdf:type` → [`EntityKind::Class`];
//! - `owl:ObjectProperty` and its characteristics (`owl:TransitiveProperty`,
//!   `owl:SymmetricProperty`, `owl:AsymmetricProperty`, `owl:ReflexiveProperty`,
//!   `owl:IrreflexiveProperty`, `owl:InverseFunctionalProperty`), either side of
//!   `owl:inverseOf` → [`EntityKind::ObjectProperty`];
//! - `owl:DatatypeProperty` → [`EntityKind::DatatypeProperty`];
//!   `owl:AnnotationProperty` → [`EntityKind::AnnotationProperty`];
//! - `rdf:Property`, `owl:FunctionalProperty`, subject of `rdfs:domain` / `rdfs:range`,
//!   either side of `rdfs:subPropertyOf` / `owl:equivalentProperty`, object of
//!   `owl:onProperty`, and any predicate outside the RDF/RDFS/OWL vocabularies →
//!   [`EntityKind::OtherProperty`];
//! - a subject typed `owl:NamedIndividual` or typed with any class outside the built-in
//!   vocabularies → [`EntityKind::Individual`].
//!
//! Blank nodes and literals are ignored. The RDF/XML parser reads internal DTD entities only
//! (never external ones), and a pre-scan refuses entity declarations whose expansion would
//! exceed 64 KiB (exponential "billion laughs" definitions).

use std::path::Path;

use kgeval_model::{EntityKind, EntityTypes, Interner};
use oxrdf::{NamedNodeRef, NamedOrBlankNode, Term, Triple};

use crate::FormatError;

const RDF: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
const RDFS: &str = "http://www.w3.org/2000/01/rdf-schema#";
const OWL: &str = "http://www.w3.org/2002/07/owl#";
const XSD: &str = "http://www.w3.org/2001/XMLSchema#";

/// Largest expansion of one DTD entity accepted in RDF/XML.
const MAX_ENTITY_EXPANSION: usize = 64 * 1024;

/// Reads the entity kinds an ontology declares or implies. The syntax (RDF/XML, Turtle,
/// N-Triples) is detected from the content.
///
/// ```
/// use kgeval_formats::ontology::read_entity_types;
/// use kgeval_model::{EntityKind, Interner};
/// let ttl = b"@prefix owl: <http://www.w3.org/2002/07/owl#> .
/// <http://ex/Paper> a owl:Class .
/// <http://ex/writes> a owl:ObjectProperty .";
/// let mut iris = Interner::new();
/// let types = read_entity_types(ttl, "ex.ttl", &mut iris).unwrap();
/// assert_eq!(types.kind(iris.intern("http://ex/Paper")), Some(EntityKind::Class));
/// assert_eq!(types.kind(iris.intern("http://ex/writes")), Some(EntityKind::ObjectProperty));
/// ```
///
/// # Errors
/// A syntax error, with the line and column where it was found.
pub fn read_entity_types(input: &[u8], file: &str, interner: &mut Interner) -> Result<EntityTypes, FormatError> {
    let mut typer = Typer::default();
    if looks_like_xml(input) {
        check_entity_expansion(input, file)?;
        check_xml_structure(input, file)?;
        let mut parser = oxrdfxml::RdfXmlParser::new().for_slice(input);
        while let Some(triple) = parser.next() {
            match triple {
                Ok(triple) => typer.triple(&triple, interner),
                Err(e) => {
                    let offset = usize::try_from(parser.buffer_position()).unwrap_or(input.len());
                    return Err(FormatError::syntax_at_offset(
                        file,
                        input,
                        offset,
                        format!("found invalid RDF/XML ({e}), expected an RDF/XML ontology"),
                    ));
                }
            }
        }
    } else {
        for triple in oxttl::TurtleParser::new().for_slice(input) {
            match triple {
                Ok(triple) => typer.triple(&triple, interner),
                Err(e) => {
                    let start = e.location().start;
                    let line = u32::try_from(start.line + 1).unwrap_or(u32::MAX);
                    let column = u32::try_from(start.column + 1).unwrap_or(u32::MAX);
                    return Err(FormatError::syntax(
                        file,
                        line,
                        column,
                        format!(
                            "found invalid Turtle ({}), expected a Turtle, N-Triples or RDF/XML ontology",
                            e.message()
                        ),
                    ));
                }
            }
        }
    }
    Ok(typer.finish(interner))
}

/// Reads the ontology at `path` (see [`read_entity_types`]); the path as given names the
/// file in errors.
///
/// # Errors
/// The file cannot be read, or a syntax error.
pub fn read_entity_types_file(path: &Path, interner: &mut Interner) -> Result<EntityTypes, FormatError> {
    let opened = crate::input::Input::path(path).open()?;
    read_entity_types(opened.bytes(), opened.name(), interner)
}

/// Whether the content is XML rather than Turtle / N-Triples: after a BOM, white space and
/// Turtle comments, XML starts with `<?`, `<!` or an element name followed by white space,
/// `/` or `>`; Turtle starts with `@prefix`, `PREFIX`, a prefixed name or an `<iri>`.
fn looks_like_xml(input: &[u8]) -> bool {
    let mut rest = input.strip_prefix(b"\xEF\xBB\xBF".as_slice()).unwrap_or(input);
    loop {
        rest = rest.trim_ascii_start();
        if rest.first() == Some(&b'#') {
            rest = memchr::memchr(b'\n', rest).map_or(&[][..], |i| &rest[i + 1..]);
        } else {
            break;
        }
    }
    if rest.starts_with(b"<?") || rest.starts_with(b"<!") {
        return true;
    }
    let Some(tag) = rest.strip_prefix(b"<") else { return false };
    // `<http://x>` (an IRI: no white space before `>`) vs `<rdf:RDF xmlns…>` / `<RDF>`.
    let end = tag.iter().position(|&b| b == b'>' || b.is_ascii_whitespace() || b == b'/');
    match end {
        Some(i) if tag[i] == b'>' => !tag[..i].contains(&b':'),
        Some(i) if tag[i] == b'/' => !tag[..i].contains(&b':') || tag.get(i + 1) != Some(&b'/'),
        Some(_) => true,
        None => false,
    }
}

/// A quick-xml pass over the document: mismatched or unclosed elements (oxrdfxml accepts a
/// truncated file as the triples seen so far), with their position.
fn check_xml_structure(input: &[u8], file: &str) -> Result<(), FormatError> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_reader(input);
    reader.config_mut().check_end_names = true;
    // (name, offset) of the open elements.
    let mut open: Vec<(Vec<u8>, usize)> = Vec::new();
    loop {
        let before = usize::try_from(reader.buffer_position()).unwrap_or(input.len());
        match reader.read_event() {
            Ok(Event::Start(e)) => open.push((e.name().as_ref().to_vec(), before)),
            Ok(Event::End(_)) => {
                open.pop();
            }
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(e) => {
                let offset = usize::try_from(reader.error_position()).unwrap_or(input.len());
                return Err(FormatError::syntax_at_offset(
                    file,
                    input,
                    offset,
                    format!("found malformed XML ({e}), expected a well-formed RDF/XML ontology"),
                ));
            }
        }
    }
    if let Some((name, at)) = open.last() {
        let (line, column) = crate::line_column(input, *at);
        let name = String::from_utf8_lossy(name);
        return Err(FormatError::syntax_at_offset(
            file,
            input,
            input.len(),
            format!("found the end of the file inside `<{name}>` opened at {line}:{column}, expected `</{name}>`"),
        ));
    }
    if open.is_empty() && !input.contains(&b'<') {
        return Err(FormatError::syntax(file, 1, 1, "found no XML element, expected an RDF/XML ontology"));
    }
    Ok(())
}

/// Refuses DTD entity declarations whose expansion grows beyond [`MAX_ENTITY_EXPANSION`],
/// mirroring how oxrdfxml expands an entity's value at declaration time.
pub(crate) fn check_entity_expansion(input: &[u8], file: &str) -> Result<(), FormatError> {
    let Some(doctype) = memchr::memmem::find(input, b"<!DOCTYPE") else { return Ok(()) };
    let end = memchr::memmem::find(&input[doctype..], b"]>").map_or(input.len(), |i| doctype + i);
    let mut sizes: Vec<(&[u8], usize)> = Vec::new();
    let mut search = doctype;
    while let Some(k) = memchr::memmem::find(&input[search..end], b"<!ENTITY") {
        let decl = search + k;
        search = decl + 8;
        let rest = &input[search..end];
        let rest = rest.trim_ascii_start();
        let rest = rest.strip_prefix(b"%").unwrap_or(rest).trim_ascii_start();
        let name_len = rest.iter().position(u8::is_ascii_whitespace).unwrap_or(rest.len());
        let name = &rest[..name_len];
        let after = rest[name_len..].trim_ascii_start();
        if after.starts_with(b"SYSTEM") || after.starts_with(b"PUBLIC") {
            return Err(FormatError::syntax_at_offset(
                file,
                input,
                decl,
                format!(
                    "found external entity `{}`, expected internal entities only (external entities are never read)",
                    String::from_utf8_lossy(name)
                ),
            ));
        }
        let Some(value) = after.strip_prefix(b"\"") else { continue };
        let value = &value[..memchr::memchr(b'"', value).unwrap_or(value.len())];
        let mut size = value.len();
        let mut i = 0;
        while let Some(amp) = memchr::memchr(b'&', &value[i..]) {
            let at = i + amp + 1;
            let Some(semi) = memchr::memchr(b';', &value[at..]) else { break };
            let reference = &value[at..at + semi];
            if let Some((_, n)) = sizes.iter().rev().find(|(name, _)| *name == reference) {
                size = size.saturating_add(*n);
            }
            i = at + semi + 1;
        }
        if size > MAX_ENTITY_EXPANSION {
            return Err(FormatError::syntax_at_offset(
                file,
                input,
                decl,
                format!(
                    "found entity `{}` expanding to more than {MAX_ENTITY_EXPANSION} bytes, expected short entity values (IRIs)",
                    String::from_utf8_lossy(name)
                ),
            ));
        }
        sizes.push((name, size));
    }
    Ok(())
}

/// Accumulates kinds; range objects wait until all datatype declarations are known.
#[derive(Default)]
struct Typer {
    types: EntityTypes,
    datatypes: Vec<String>,
    ranges: Vec<String>,
}

fn in_vocabulary(iri: &str) -> bool {
    iri.starts_with(RDF) || iri.starts_with(RDFS) || iri.starts_with(OWL) || iri.starts_with(XSD)
}

fn is_builtin_datatype(iri: &str) -> bool {
    iri.starts_with(XSD)
        || matches!(
            iri,
            "http://www.w3.org/2000/01/rdf-schema#Literal"
                | "http://www.w3.org/1999/02/22-rdf-syntax-ns#PlainLiteral"
                | "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
                | "http://www.w3.org/1999/02/22-rdf-syntax-ns#XMLLiteral"
                | "http://www.w3.org/1999/02/22-rdf-syntax-ns#HTML"
                | "http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON"
        )
}

fn named_subject(s: &NamedOrBlankNode) -> Option<NamedNodeRef<'_>> {
    match s {
        NamedOrBlankNode::NamedNode(n) => Some(n.as_ref()),
        _ => None,
    }
}

fn named_object(o: &Term) -> Option<NamedNodeRef<'_>> {
    match o {
        Term::NamedNode(n) => Some(n.as_ref()),
        _ => None,
    }
}

impl Typer {
    fn record(&mut self, interner: &mut Interner, iri: &str, kind: EntityKind) {
        self.types.record(interner.intern(iri), kind);
    }

    fn triple(&mut self, triple: &Triple, interner: &mut Interner) {
        let predicate = triple.predicate.as_str();
        let subject = named_subject(&triple.subject).map(|n| n.as_str());
        let object = named_object(&triple.object).map(|n| n.as_str());
        let Some(local) = predicate
            .strip_prefix(RDF)
            .or_else(|| predicate.strip_prefix(RDFS))
            .or_else(|| predicate.strip_prefix(OWL))
        else {
            // Any predicate outside the built-in vocabularies is a property.
            if !in_vocabulary(predicate) {
                self.record(interner, predicate, EntityKind::OtherProperty);
            }
            return;
        };
        let full = predicate;
        match (full.strip_prefix(RDF).is_some(), local) {
            (true, "type") => {
                let (Some(s), Some(o)) = (subject, object) else { return };
                self.typed(interner, s, o);
            }
            (false, "subClassOf" | "equivalentClass" | "disjointWith") => {
                for iri in [subject, object].into_iter().flatten() {
                    self.record(interner, iri, EntityKind::Class);
                }
            }
            (false, "someValuesFrom" | "allValuesFrom") => {
                if let Some(o) = object.filter(|o| !is_builtin_datatype(o)) {
                    self.ranges.push(o.to_owned());
                }
            }
            (false, "domain") => {
                if let Some(s) = subject {
                    self.record(interner, s, EntityKind::OtherProperty);
                }
                if let Some(o) = object {
                    self.record(interner, o, EntityKind::Class);
                }
            }
            (false, "range") => {
                if let Some(s) = subject {
                    self.record(interner, s, EntityKind::OtherProperty);
                }
                if let Some(o) = object.filter(|o| !is_builtin_datatype(o)) {
                    self.ranges.push(o.to_owned());
                }
            }
            (false, "subPropertyOf" | "equivalentProperty") => {
                for iri in [subject, object].into_iter().flatten() {
                    self.record(interner, iri, EntityKind::OtherProperty);
                }
            }
            (false, "inverseOf") => {
                for iri in [subject, object].into_iter().flatten() {
                    self.record(interner, iri, EntityKind::ObjectProperty);
                }
            }
            (false, "onProperty") => {
                if let Some(o) = object {
                    self.record(interner, o, EntityKind::OtherProperty);
                }
            }
            _ => {}
        }
    }

    /// `s rdf:type o`.
    fn typed(&mut self, interner: &mut Interner, s: &str, o: &str) {
        let kind = if let Some(owl) = o.strip_prefix(OWL) {
            match owl {
                "Class" => Some(EntityKind::Class),
                "ObjectProperty"
                | "TransitiveProperty"
                | "SymmetricProperty"
                | "AsymmetricProperty"
                | "ReflexiveProperty"
                | "IrreflexiveProperty"
                | "InverseFunctionalProperty" => Some(EntityKind::ObjectProperty),
                "DatatypeProperty" => Some(EntityKind::DatatypeProperty),
                "AnnotationProperty" => Some(EntityKind::AnnotationProperty),
                "FunctionalProperty" | "OntologyProperty" | "DeprecatedProperty" => Some(EntityKind::OtherProperty),
                "NamedIndividual" | "Thing" => Some(EntityKind::Individual),
                _ => None, // owl:Ontology, owl:Restriction, owl:AllDisjointClasses, owl:Axiom, …
            }
        } else if o == "http://www.w3.org/2000/01/rdf-schema#Class" {
            Some(EntityKind::Class)
        } else if o == "http://www.w3.org/1999/02/22-rdf-syntax-ns#Property" {
            Some(EntityKind::OtherProperty)
        } else if o == "http://www.w3.org/2000/01/rdf-schema#Datatype" {
            self.datatypes.push(s.to_owned());
            None
        } else if in_vocabulary(o) {
            None
        } else {
            // An instance of a user class.
            self.record(interner, o, EntityKind::Class);
            Some(EntityKind::Individual)
        };
        if let Some(kind) = kind {
            self.record(interner, s, kind);
        }
    }

    fn finish(mut self, interner: &mut Interner) -> EntityTypes {
        let ranges = std::mem::take(&mut self.ranges);
        for o in ranges {
            if !self.datatypes.contains(&o) {
                self.record(interner, &o, EntityKind::Class);
            }
        }
        self.types
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_syntax() {
        assert!(looks_like_xml(b"<?xml version=\"1.0\"?><rdf:RDF/>"));
        assert!(looks_like_xml(b"\n <rdf:RDF xmlns:rdf=\"x\">"));
        assert!(looks_like_xml(b"<!-- c --><rdf:RDF>"));
        assert!(!looks_like_xml(b"<http://a> <http://b> <http://c> ."));
        assert!(!looks_like_xml(b"# comment\n@prefix a: <http://a/> ."));
        assert!(!looks_like_xml(b"PREFIX a: <http://a/>"));
    }

    #[test]
    fn refuses_exponential_entities() {
        let mut doc = String::from("<?xml version=\"1.0\"?><!DOCTYPE r [<!ENTITY a0 \"xxxxxxxxxxxxxxxx\">");
        for i in 1..12 {
            let p = i - 1;
            doc.push_str(&format!("<!ENTITY a{i} \"&a{p};&a{p};&a{p};&a{p};\">"));
        }
        doc.push_str("]><r/>");
        let mut interner = Interner::new();
        let err = read_entity_types(doc.as_bytes(), "x.owl", &mut interner).err().map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.starts_with("x.owl:1:") && e.contains("expanding")));
    }

    #[test]
    fn range_datatypes_are_not_classes() -> Result<(), FormatError> {
        let ttl = b"@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
            <http://e/p> rdfs:range <http://e/D>, <http://e/C> ; rdfs:domain <http://e/C> .
            <http://e/D> a rdfs:Datatype .
            <http://e/i> a <http://e/C> .";
        let mut iris = Interner::new();
        let types = read_entity_types(ttl, "t.ttl", &mut iris)?;
        assert_eq!(types.kind(iris.intern("http://e/D")), None);
        assert_eq!(types.kind(iris.intern("http://e/C")), Some(EntityKind::Class));
        assert_eq!(types.kind(iris.intern("http://e/p")), Some(EntityKind::OtherProperty));
        assert_eq!(types.kind(iris.intern("http://e/i")), Some(EntityKind::Individual));
        Ok(())
    }
}
