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

use std::borrow::Cow;
use std::collections::HashMap;

use kgeval_model::{Alignment, AlignmentHeader, Correspondence, Diagnostic, Interner, Location, Relation, TermId};
use quick_xml::events::Event;
use quick_xml::Reader;

use super::warnings::Warnings;
use super::{AlignmentFormat, ReadAlignment, ReadOptions, ALIGN_NS, EDOAL_NS, RDF_NS};
use crate::FormatError;

mod dtd;
mod repair;

use dtd::{EntityDef, MAX_ENTITY_SIZE};
pub(crate) use repair::{decode, repair_ampersands};
use repair::{is_name_char, is_name_start};
#[cfg(test)]
mod tests;

/// Reads an Alignment-API RDF/XML document.
pub(crate) fn read(
    input: &[u8],
    file: &str,
    options: &ReadOptions,
    interner: &mut Interner,
) -> Result<ReadAlignment, FormatError> {
    let doc = decode(input, file)?;
    let mut sink = Warnings::default();
    let repaired;
    let doc = if options.repair_xml {
        let (fixed, count) = repair_ampersands(doc);
        if count > 0 {
            sink.push("repaired-xml", || {
                Diagnostic::note("repaired-xml", format!("repaired {count} raw '&' (escaped as '&amp;')"))
                    .at(Location { file: file.to_owned(), line: 0, column: 0 })
            });
        }
        repaired = fixed;
        &*repaired
    } else {
        doc
    };
    let mut parser = Parser::new(doc, file, options, interner, sink);
    parser.run()?;
    Ok(parser.finish())
}

/// What an open element is, for the reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ctx {
    /// `rdf:RDF`.
    Rdf,
    /// `Alignment`.
    Alignment,
    /// `map`.
    Map,
    /// `Cell`.
    Cell,
    /// `entity1` (0) / `entity2` (1).
    Entity(usize),
    /// Anything inside `entity1` / `entity2`; `true` for its direct children.
    EntityInner(usize, bool),
    /// `measure`.
    Measure,
    /// `relation`.
    Relation,
    /// A header field.
    Field(Field),
    /// Ignored subtree.
    Skip,
}

/// Header fields of `Alignment`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Level,
    Type,
    /// `onto1` / `onto2` (the location in legacy files, the ontology otherwise).
    Onto(usize),
    /// `uri1` / `uri2` (legacy: the ontology IRI).
    Uri(usize),
    /// Inside `onto1`/`onto2`: the `Ontology` node and below.
    OntoInner(usize),
}

/// An attribute as written: qualified name split at `:`, raw (unescaped) value and where it is.
#[derive(Debug, Clone, Copy)]
struct RawAttr<'a> {
    prefix: &'a str,
    local: &'a str,
    qname: &'a str,
    value: &'a str,
    value_at: usize,
}

/// A namespace binding in scope from element depth `depth` on.
struct Binding<'a> {
    depth: usize,
    prefix: &'a str,
    uri: Cow<'a, str>,
}

/// The cell being read.
#[derive(Default)]
struct CellState {
    at: usize,
    line: u32,
    entity: [Option<TermId>; 2],
    relation: Option<Relation>,
    measure: Option<f64>,
    /// The element that makes it an EDOAL / complex cell, if any.
    edoal: Option<String>,
}

/// Monotonic byte offset → line counter (offsets only grow while streaming).
struct LineCounter {
    offset: usize,
    line: u32,
}

struct Parser<'a, 'o> {
    doc: &'a str,
    file: &'o str,
    options: &'o ReadOptions,
    interner: &'o mut Interner,
    warnings: Warnings,
    alignment: Alignment,
    header: AlignmentHeader,
    uri: [Option<String>; 2],
    entities: HashMap<&'a str, EntityDef<'a>>,
    entity_sizes: HashMap<&'a str, usize>,
    expansion_budget: usize,
    bindings: Vec<Binding<'a>>,
    bases: Vec<(usize, String)>,
    stack: Vec<Ctx>,
    /// Where each open element starts (for "unclosed" errors).
    starts: Vec<usize>,
    attrs: Vec<RawAttr<'a>>,
    text: String,
    cell: CellState,
    lines: LineCounter,
    root_seen: bool,
    root_done: bool,
    alignments: usize,
    first_other: Option<(usize, String)>,
}

impl<'a, 'o> Parser<'a, 'o> {
    fn new(
        doc: &'a str,
        file: &'o str,
        options: &'o ReadOptions,
        interner: &'o mut Interner,
        warnings: Warnings,
    ) -> Self {
        Self {
            doc,
            file,
            options,
            interner,
            warnings,
            alignment: Alignment::with_policy(options.duplicate_policy),
            header: AlignmentHeader::default(),
            uri: [None, None],
            entities: HashMap::new(),
            entity_sizes: HashMap::new(),
            expansion_budget: MAX_ENTITY_SIZE + doc.len(),
            bindings: Vec::new(),
            bases: Vec::new(),
            stack: Vec::with_capacity(16),
            starts: Vec::with_capacity(16),
            attrs: Vec::with_capacity(8),
            text: String::new(),
            cell: CellState::default(),
            lines: LineCounter { offset: 0, line: 1 },
            root_seen: false,
            root_done: false,
            alignments: 0,
            first_other: None,
        }
    }

    fn finish(self) -> ReadAlignment {
        let mut alignment = self.alignment;
        let mut header = self.header;
        // Legacy files: `uri1` is the ontology IRI, `onto1` its location.
        for (side, uri) in self.uri.into_iter().enumerate() {
            if let Some(uri) = uri {
                if side == 0 {
                    header.onto1 = Some(uri);
                } else {
                    header.onto2 = Some(uri);
                }
            }
        }
        alignment.header = header;
        ReadAlignment { alignment, format: AlignmentFormat::RdfXml, warnings: self.warnings.finish(self.file) }
    }

    fn err(&self, offset: usize, message: impl Into<String>) -> FormatError {
        FormatError::syntax_at_offset(self.file, self.doc.as_bytes(), offset, message)
    }

    /// The byte offset of `s` inside the document (it is always borrowed from it).
    fn offset_of(&self, s: &[u8]) -> Option<usize> {
        let start = self.doc.as_ptr() as usize;
        let p = s.as_ptr() as usize;
        (p >= start && p + s.len() <= start + self.doc.len()).then(|| p - start)
    }

    /// The same bytes as a `&'a str` of the document.
    fn rebase(&self, s: &[u8], fallback: usize) -> Result<(&'a str, usize), FormatError> {
        let at = self.offset_of(s).ok_or_else(|| self.err(fallback, "internal error: event not borrowed"))?;
        let text = self.doc.get(at..at + s.len()).ok_or_else(|| self.err(at, "internal error: not a char boundary"))?;
        Ok((text, at))
    }

    /// 1-based line and column of `offset`; offsets must not decrease between calls much
    /// (the counter only moves forward; earlier offsets are recounted from the start).
    fn position(&mut self, offset: usize) -> (u32, u32) {
        let bytes = self.doc.as_bytes();
        let offset = offset.min(bytes.len());
        if offset < self.lines.offset {
            self.lines = LineCounter { offset: 0, line: 1 };
        }
        let newlines = memchr::memchr_iter(b'\n', &bytes[self.lines.offset..offset]).count();
        self.lines.line += newlines as u32;
        self.lines.offset = offset;
        let line_start = memchr::memrchr(b'\n', &bytes[..offset]).map_or(0, |i| i + 1);
        let column = self.doc.get(line_start..offset).map_or(offset - line_start, |s| s.chars().count()) + 1;
        (self.lines.line, column as u32)
    }

    fn location(&mut self, offset: usize) -> Location {
        let (line, column) = self.position(offset);
        Location { file: self.file.to_owned(), line, column }
    }

    fn run(&mut self) -> Result<(), FormatError> {
        let mut reader = Reader::from_str(self.doc);
        reader.config_mut().check_end_names = true;
        reader.config_mut().expand_empty_elements = false;
        loop {
            let before = reader.buffer_position() as usize;
            let event = match reader.read_event() {
                Ok(event) => event,
                Err(e) => {
                    let at = reader.error_position() as usize;
                    return Err(self.err(at, xml_error_message(&e, &self.stack_name(at))));
                }
            };
            match event {
                Event::Start(e) => {
                    let (name, at) = self.rebase(e.name().as_ref(), before)?;
                    let (attrs, attrs_at) = self.rebase(e.attributes_raw(), before)?;
                    self.start(name, at.saturating_sub(1), attrs, attrs_at, false)?;
                }
                Event::Empty(e) => {
                    let (name, at) = self.rebase(e.name().as_ref(), before)?;
                    let (attrs, attrs_at) = self.rebase(e.attributes_raw(), before)?;
                    self.start(name, at.saturating_sub(1), attrs, attrs_at, true)?;
                    self.end(at.saturating_sub(1))?;
                }
                Event::End(_) => {
                    self.end(before)?;
                }
                Event::Text(t) => {
                    let (text, at) = self.rebase(&t, before)?;
                    self.text(text, at)?;
                }
                Event::CData(t) => {
                    if self.collects_text() {
                        let (text, _) = self.rebase(&t, before)?;
                        self.text.push_str(text);
                    } else if self.stack.is_empty() {
                        return Err(self.err(before, "found CDATA outside the root element: expected an element"));
                    }
                }
                Event::DocType(t) => {
                    if self.root_seen {
                        return Err(self.err(before, "found <!DOCTYPE> after the root element: expected it before"));
                    }
                    let (text, at) = self.rebase(&t, before)?;
                    self.doctype(text, at)?;
                }
                Event::Decl(_) | Event::PI(_) | Event::Comment(_) => {}
                Event::Eof => return self.eof(),
            }
        }
    }

    /// The innermost open element, for error messages.
    fn stack_name(&self, _at: usize) -> String {
        match self.starts.last() {
            Some(&start) => {
                let name = self.doc[start + 1..]
                    .split(|c: char| c.is_whitespace() || c == '>' || c == '/')
                    .next()
                    .unwrap_or_default();
                format!("<{name}>")
            }
            None => "the document".to_owned(),
        }
    }

    fn eof(&mut self) -> Result<(), FormatError> {
        let end = self.doc.len();
        if let Some(&start) = self.starts.last() {
            let name = self.stack_name(end);
            let (line, column) = self.position(start);
            let close = name.replacen('<', "</", 1);
            return Err(self.err(
                end,
                format!("unexpected end of file inside {name} (opened at {line}:{column}): expected {close}"),
            ));
        }
        if !self.root_seen {
            return Err(self.err(end, "found no element: expected an <rdf:RDF> or <Alignment> root element"));
        }
        if self.alignments == 0 {
            let (at, found) = match &self.first_other {
                Some((at, name)) => (*at, name.clone()),
                None => (0, "no element inside <rdf:RDF>".to_owned()),
            };
            return Err(self.err(at, format!("expected an Alignment element in namespace {ALIGN_NS}#, found {found}")));
        }
        Ok(())
    }

    fn collects_text(&self) -> bool {
        matches!(
            self.stack.last(),
            Some(
                Ctx::Measure
                    | Ctx::Relation
                    | Ctx::Entity(_)
                    | Ctx::Field(Field::Level | Field::Type | Field::Onto(_) | Field::Uri(_))
            )
        )
    }

    fn text(&mut self, text: &'a str, at: usize) -> Result<(), FormatError> {
        if self.stack.is_empty() {
            if let Some(i) = text.find(|c: char| !c.is_whitespace()) {
                let found: String = text[i..].chars().take(20).collect();
                let message = if self.root_done {
                    format!("found text {found:?} after the root element: expected the end of the document")
                } else {
                    format!("found {found:?}: expected an XML document starting with '<'")
                };
                return Err(self.err(at + i, message));
            }
            return Ok(());
        }
        if self.collects_text() {
            let mut text_buf = std::mem::take(&mut self.text);
            let result = self.unescape_into(text, at, &mut text_buf, "text");
            self.text = text_buf;
            result
        } else {
            self.validate_refs(text, at, "text")
        }
    }

    /// Parses the attributes of a start tag into `self.attrs`.
    fn parse_attrs(&mut self, raw: &'a str, at: usize, element: &str) -> Result<(), FormatError> {
        self.attrs.clear();
        let bytes = raw.as_bytes();
        let mut i = 0;
        loop {
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            if i >= bytes.len() {
                return Ok(());
            }
            if i == 0 {
                return Err(self.err(at, format!("found {:?} right after <{element}: expected whitespace", &raw[..1])));
            }
            let name_start = i;
            while i < bytes.len() && !bytes[i].is_ascii_whitespace() && bytes[i] != b'=' {
                i += 1;
            }
            let qname = &raw[name_start..i];
            if qname.is_empty() || !is_name_start(qname.as_bytes()[0]) || !qname.bytes().all(is_name_char) {
                let found: String = raw[name_start..].chars().take(20).collect();
                return Err(self.err(
                    at + name_start,
                    format!("found {found:?} in <{element}>: expected an attribute name=\"value\""),
                ));
            }
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            if bytes.get(i) != Some(&b'=') {
                return Err(self
                    .err(at + i, format!("attribute '{qname}' of <{element}> has no value: expected {qname}=\"…\"")));
            }
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            let Some(&quote @ (b'"' | b'\'')) = bytes.get(i) else {
                let found: String = raw[i..].chars().take(20).collect();
                return Err(self.err(
                    at + i,
                    format!("value of attribute '{qname}' is not quoted (found {found:?}): expected {qname}=\"…\""),
                ));
            };
            let value_start = i + 1;
            let Some(len) = memchr::memchr(quote, &bytes[value_start..]) else {
                return Err(self.err(
                    at + i,
                    format!("unterminated value of attribute '{qname}': expected a closing {}", quote as char),
                ));
            };
            let value = &raw[value_start..value_start + len];
            if let Some(lt) = memchr::memchr(b'<', value.as_bytes()) {
                return Err(self.err(
                    at + value_start + lt,
                    format!("found '<' in the value of attribute '{qname}': expected it escaped as &lt;"),
                ));
            }
            i = value_start + len + 1;
            if self.attrs.iter().any(|a| a.qname == qname) {
                return Err(self.err(
                    at + name_start,
                    format!("duplicate attribute '{qname}' in <{element}>: expected each attribute once"),
                ));
            }
            let (prefix, local) = qname.split_once(':').unwrap_or(("", qname));
            self.attrs.push(RawAttr { prefix, local, qname, value, value_at: at + value_start });
        }
    }

    /// The namespace bound to `prefix` (empty prefix: the default namespace).
    fn namespace(&self, prefix: &str) -> Option<&str> {
        if prefix == "xml" {
            return Some("http://www.w3.org/XML/1998/namespace");
        }
        match self.bindings.iter().rev().find(|b| b.prefix == prefix) {
            Some(b) => Some(&b.uri),
            None if prefix.is_empty() => Some(""),
            None => None,
        }
    }

    fn element_namespace(&self, name: &str, at: usize) -> Result<&str, FormatError> {
        let prefix = name.split_once(':').map_or("", |(p, _)| p);
        self.namespace(prefix).ok_or_else(|| {
            self.err(at, format!("namespace prefix '{prefix}' of <{name}> is not declared: expected an xmlns:{prefix}"))
        })
    }

    /// The value of the `rdf:` attribute `local` of the current element, expanded.
    fn rdf_attr(&mut self, local: &str) -> Result<Option<(String, usize)>, FormatError> {
        let Some(attr) = self
            .attrs
            .iter()
            .copied()
            .find(|a| a.local == local && !a.prefix.is_empty() && self.namespace(a.prefix) == Some(RDF_NS))
        else {
            return Ok(None);
        };
        let mut value = String::new();
        self.unescape_into(attr.value, attr.value_at, &mut value, "attribute value")?;
        Ok(Some((value, attr.value_at)))
    }

    /// Interns the IRI of an `rdf:resource` / `rdf:about` value, resolved against `xml:base`.
    fn intern_iri(&mut self, attr: &str) -> Result<Option<TermId>, FormatError> {
        let Some((value, at)) = self.rdf_attr(attr)? else { return Ok(None) };
        Ok(Some(self.intern_value(&value, at)?))
    }

    fn intern_value(&mut self, value: &str, at: usize) -> Result<TermId, FormatError> {
        if value.trim().is_empty() {
            return Err(self.err(at, "found an empty IRI: expected an entity IRI"));
        }
        if !has_scheme(value) {
            if let Some((_, base)) = self.bases.last() {
                if let Ok(base) = oxiri::Iri::parse(base.as_str()) {
                    if let Ok(resolved) = base.resolve(value) {
                        return Ok(self.interner.intern(resolved.as_str()));
                    }
                }
            }
        }
        Ok(self.interner.intern(value))
    }

    fn start(
        &mut self,
        name: &'a str,
        at: usize,
        raw_attrs: &'a str,
        attrs_at: usize,
        empty: bool,
    ) -> Result<(), FormatError> {
        self.parse_attrs(raw_attrs, attrs_at, name)?;
        let depth = self.stack.len();
        // Namespace declarations and xml:base apply to the element itself.
        for i in 0..self.attrs.len() {
            let a = self.attrs[i];
            if a.qname == "xmlns" || a.prefix == "xmlns" {
                let prefix = if a.qname == "xmlns" { "" } else { a.local };
                let mut uri = String::new();
                self.unescape_into(a.value, a.value_at, &mut uri, "attribute value")?;
                let uri = if uri == a.value { Cow::Borrowed(a.value) } else { Cow::Owned(uri) };
                self.bindings.push(Binding { depth, prefix, uri });
            } else if a.qname == "xml:base" {
                let mut base = String::new();
                self.unescape_into(a.value, a.value_at, &mut base, "attribute value")?;
                let base = match self.bases.last().and_then(|(_, b)| oxiri::Iri::parse(b.as_str()).ok()) {
                    Some(parent) => parent.resolve(&base).map_or(base, |iri| iri.into_inner()),
                    None => base,
                };
                self.bases.push((depth, base));
            } else if memchr::memchr(b'&', a.value.as_bytes()).is_some() {
                self.validate_refs(a.value, a.value_at, "attribute value")?;
            }
        }
        // Namespace well-formedness: every prefix in use must be bound (cheap: a short scan).
        if name.contains(':') {
            self.element_namespace(name, at)?;
        }
        for a in &self.attrs {
            if !a.prefix.is_empty() && a.prefix != "xmlns" && self.namespace(a.prefix).is_none() {
                return Err(self.err(
                    a.value_at.saturating_sub(a.qname.len() + 2),
                    format!(
                        "namespace prefix '{}' of attribute '{}' is not declared: expected an xmlns:{}",
                        a.prefix, a.qname, a.prefix
                    ),
                ));
            }
        }
        let local = name.rsplit_once(':').map_or(name, |(_, l)| l);
        let parent = self.stack.last().copied();
        let ctx = match parent {
            None => {
                if self.root_done {
                    return Err(self
                        .err(at, format!("found <{name}> after the root element: expected the end of the document")));
                }
                self.root_seen = true;
                let ns = self.element_namespace(name, at)?;
                if local == "RDF" && ns == RDF_NS {
                    Ctx::Rdf
                } else if local == "Alignment" && is_align_ns(ns) {
                    self.alignments += 1;
                    Ctx::Alignment
                } else {
                    return Err(self.err(
                        at,
                        format!(
                            "found root element <{name}> (namespace {ns:?}): expected <rdf:RDF> or an Alignment element in namespace {ALIGN_NS}#"
                        ),
                    ));
                }
            }
            Some(Ctx::Rdf) => {
                let ns = self.element_namespace(name, at)?;
                if local == "Alignment" && is_align_ns(ns) {
                    self.alignments += 1;
                    Ctx::Alignment
                } else if local == "Alignment" || local == "Cell" {
                    return Err(self.err(
                        at,
                        format!("expected an Alignment element in namespace {ALIGN_NS}#, found <{name}> in namespace {ns:?}"),
                    ));
                } else {
                    if self.first_other.is_none() {
                        self.first_other = Some((at, format!("<{name}> in namespace {ns:?}")));
                    }
                    Ctx::Skip
                }
            }
            Some(Ctx::Alignment) => match local {
                "map" => Ctx::Map,
                "Cell" => {
                    return Err(self.err(at, "found <Cell> directly inside <Alignment>: expected it inside <map>"));
                }
                "level" => Ctx::Field(Field::Level),
                "type" => Ctx::Field(Field::Type),
                "onto1" | "onto2" => {
                    let side = usize::from(local == "onto2");
                    if let Some((iri, _)) = self.rdf_attr("resource")? {
                        self.set_onto(side, iri);
                    }
                    Ctx::Field(Field::Onto(side))
                }
                "uri1" | "uri2" => Ctx::Field(Field::Uri(usize::from(local == "uri2"))),
                _ => Ctx::Skip,
            },
            Some(Ctx::Map) => {
                if local == "Cell" {
                    self.start_cell(at);
                    Ctx::Cell
                } else {
                    return Err(self.err(
                        at,
                        format!("found <{name}> inside <map>: expected <Cell> (for other RDF/XML shapes read the file as RDF triples)"),
                    ));
                }
            }
            Some(Ctx::Cell) => match local {
                "entity1" | "entity2" => {
                    let side = usize::from(local == "entity2");
                    if let Some(id) = self.intern_iri("resource")? {
                        self.cell.entity[side].get_or_insert(id);
                    }
                    self.text.clear();
                    Ctx::Entity(side)
                }
                "measure" => {
                    self.text.clear();
                    Ctx::Measure
                }
                "relation" => {
                    self.text.clear();
                    Ctx::Relation
                }
                "Cell" => return Err(self.err(at, "found <Cell> inside <Cell>: expected </Cell> first")),
                _ => Ctx::Skip,
            },
            Some(Ctx::Entity(side)) => {
                let ns = self.element_namespace(name, at)?;
                if is_edoal_ns(ns) {
                    self.cell.edoal.get_or_insert_with(|| format!("<{name}>"));
                } else {
                    match self.intern_iri("about")? {
                        Some(id) => {
                            self.cell.entity[side].get_or_insert(id);
                        }
                        None => {
                            self.cell.edoal.get_or_insert_with(|| format!("<{name}> without rdf:about"));
                        }
                    }
                }
                Ctx::EntityInner(side, true)
            }
            Some(Ctx::EntityInner(side, _)) => {
                let ns = self.element_namespace(name, at)?;
                if is_edoal_ns(ns) {
                    self.cell.edoal.get_or_insert_with(|| format!("<{name}>"));
                }
                Ctx::EntityInner(side, false)
            }
            Some(Ctx::Field(Field::Onto(side))) => {
                if let Some((iri, _)) = self.rdf_attr("about")? {
                    self.set_onto(side, iri);
                }
                Ctx::Field(Field::OntoInner(side))
            }
            Some(Ctx::Field(Field::OntoInner(side))) => Ctx::Field(Field::OntoInner(side)),
            Some(Ctx::Measure | Ctx::Relation | Ctx::Field(_) | Ctx::Skip) => Ctx::Skip,
        };
        self.stack.push(ctx);
        self.starts.push(at);
        let _ = empty;
        Ok(())
    }

    fn set_onto(&mut self, side: usize, iri: String) {
        let slot = if side == 0 { &mut self.header.onto1 } else { &mut self.header.onto2 };
        slot.get_or_insert(iri);
    }

    fn start_cell(&mut self, at: usize) {
        let (line, _) = self.position(at);
        self.cell = CellState { at, line, ..CellState::default() };
    }

    fn end(&mut self, at: usize) -> Result<(), FormatError> {
        let Some(ctx) = self.stack.pop() else {
            return Err(self.err(at, "found an end tag without a start tag: expected the end of the document"));
        };
        self.starts.pop();
        let depth = self.stack.len();
        while self.bindings.last().is_some_and(|b| b.depth == depth) {
            self.bindings.pop();
        }
        while self.bases.last().is_some_and(|(d, _)| *d == depth) {
            self.bases.pop();
        }
        if depth == 0 {
            self.root_done = true;
        }
        match ctx {
            Ctx::Measure => {
                if self.cell.measure.is_none() {
                    let measure = self.parse_measure(at)?;
                    self.cell.measure = Some(measure);
                }
            }
            Ctx::Relation => {
                if self.cell.relation.is_none() {
                    let relation = self.parse_relation(at);
                    self.cell.relation = Some(relation);
                }
            }
            Ctx::Entity(side) => {
                let trimmed = self.text.trim();
                if self.cell.entity[side].is_none() && !trimmed.is_empty() && self.cell.edoal.is_none() {
                    let id = self.interner.intern(trimmed);
                    self.cell.entity[side] = Some(id);
                }
            }
            Ctx::Field(field) => {
                let value = self.text.trim();
                if !value.is_empty() {
                    match field {
                        Field::Level => self.header.level = Some(value.to_owned()),
                        Field::Type => self.header.arity = Some(value.to_owned()),
                        Field::Onto(side) => {
                            let value = value.to_owned();
                            self.set_onto(side, value);
                        }
                        Field::Uri(side) => self.uri[side] = Some(value.to_owned()),
                        Field::OntoInner(_) => {}
                    }
                }
                self.text.clear();
            }
            Ctx::Cell => self.finish_cell()?,
            Ctx::Rdf | Ctx::Alignment | Ctx::Map | Ctx::EntityInner(..) | Ctx::Skip => {}
        }
        Ok(())
    }

    fn parse_measure(&mut self, at: usize) -> Result<f64, FormatError> {
        let raw = self.text.trim().to_owned();
        let value = match raw.parse::<f64>() {
            Ok(v) if v.is_finite() => v,
            _ => {
                let text_at = self.starts_text_offset(at);
                return Err(self.err(
                    text_at,
                    format!("found measure {raw:?}: expected a number such as 0.75 (a confidence in [0, 1])"),
                ));
            }
        };
        if !(0.0..=1.0).contains(&value) {
            let location = self.location(at);
            self.warnings.push("measure-out-of-range", || {
                Diagnostic::warning("measure-out-of-range", format!("measure {raw} is outside [0, 1]; kept as is"))
                    .at(location)
            });
        }
        Ok(value)
    }

    /// Best-effort start of the text of the element that ends at `end_tag` (for messages).
    fn starts_text_offset(&self, end_tag: usize) -> usize {
        let before = &self.doc.as_bytes()[..end_tag.min(self.doc.len())];
        memchr::memrchr(b'>', before).map_or(end_tag, |i| i + 1)
    }

    fn parse_relation(&mut self, at: usize) -> Relation {
        if self.options.melt_relations {
            return Relation::parse(&self.text).unwrap_or(Relation::Unknown);
        }
        let token = self.text.trim();
        match Relation::parse(token) {
            Some(r) => r,
            None => {
                let message = format!("unknown relation {token:?}: read as '?'");
                let location = self.location(at);
                self.warnings
                    .push("unknown-relation", || Diagnostic::warning("unknown-relation", message).at(location));
                Relation::Unknown
            }
        }
    }

    fn finish_cell(&mut self) -> Result<(), FormatError> {
        let cell = std::mem::take(&mut self.cell);
        if let Some(what) = cell.edoal {
            if self.options.skip_edoal {
                self.alignment.skipped_cells += 1;
                return Ok(());
            }
            return Err(self.err(
                cell.at,
                format!(
                    "EDOAL / level-2 cell (entity is the expression {what}): expected entities given as IRIs (rdf:resource); skip such cells with --skip-edoal"
                ),
            ));
        }
        let [Some(entity1), Some(entity2)] = cell.entity else {
            let missing = if cell.entity[0].is_none() { "entity1" } else { "entity2" };
            return Err(
                self.err(cell.at, format!("found a Cell without {missing}: expected <{missing} rdf:resource=\"…\"/>"))
            );
        };
        let correspondence = Correspondence {
            entity1,
            entity2,
            relation: cell.relation.unwrap_or(Relation::Equivalence),
            confidence: cell.measure.unwrap_or(1.0),
            line: cell.line,
        };
        if self.alignment.insert(correspondence) == kgeval_model::InsertOutcome::Duplicate {
            let message = format!(
                "duplicate cell ({}, {}, {}): the first occurrence is kept",
                self.interner.resolve(entity1),
                self.interner.resolve(entity2),
                correspondence.relation
            );
            let location = self.location(cell.at);
            self.warnings.push("duplicate-cell", || Diagnostic::warning("duplicate-cell", message).at(location));
        }
        Ok(())
    }
}

/// Whether an IRI starts with a scheme (`http:`, `urn:`, …), i.e. is absolute.
fn has_scheme(iri: &str) -> bool {
    let mut chars = iri.char_indices();
    if !chars.next().is_some_and(|(_, c)| c.is_ascii_alphabetic()) {
        return false;
    }
    for (_, c) in chars {
        if c == ':' {
            return true;
        }
        if !(c.is_ascii_alphanumeric() || c == '+' || c == '-' || c == '.') {
            return false;
        }
    }
    false
}

fn is_align_ns(ns: &str) -> bool {
    ns.strip_prefix(ALIGN_NS).is_some_and(|rest| rest.is_empty() || rest == "#")
}

fn is_edoal_ns(ns: &str) -> bool {
    ns.strip_prefix(EDOAL_NS).is_some_and(|rest| rest.is_empty() || rest == "#")
}

/// A one-line message for a quick-xml error, saying what was found and expected.
fn xml_error_message(error: &quick_xml::Error, open: &str) -> String {
    use quick_xml::errors::{IllFormedError, SyntaxError};
    match error {
        quick_xml::Error::Syntax(e) => match e {
            SyntaxError::UnclosedComment => "found an unclosed comment: expected -->".to_owned(),
            SyntaxError::UnclosedDoctype => "found an unclosed <!DOCTYPE: expected ']>' to end it".to_owned(),
            SyntaxError::UnclosedCData => "found an unclosed CDATA section: expected ]]>".to_owned(),
            SyntaxError::UnclosedPIOrXmlDecl => "found an unclosed <? … : expected ?>".to_owned(),
            SyntaxError::UnclosedTag => format!("found end of file inside a tag (in {open}): expected '>'"),
            SyntaxError::InvalidBangMarkup => {
                "found '<!' not followed by '--', '[CDATA[' or 'DOCTYPE': expected markup".to_owned()
            }
        },
        quick_xml::Error::IllFormed(e) => match e {
            IllFormedError::MismatchedEndTag { expected, found } => {
                format!("found end tag </{found}>: expected </{expected}>")
            }
            IllFormedError::UnmatchedEndTag(found) => {
                format!("found end tag </{found}> with no open element: expected the end of the document")
            }
            other => format!("malformed XML: {other}"),
        },
        other => format!("malformed XML: {other} (in {open})"),
    }
}
