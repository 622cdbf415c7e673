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

use super::{AlignmentFormat, ReadAlignment, ReadOptions, ALIGN_NS, EDOAL_NS, RDF_NS};
use crate::FormatError;

/// Deepest nesting of entity references inside entity values.
const MAX_ENTITY_DEPTH: usize = 8;
/// Largest expansion of one entity reference, in bytes.
const MAX_ENTITY_SIZE: usize = 1 << 20;
/// At most this many diagnostics of one code are listed; the rest are summarised.
const MAX_WARNINGS_PER_CODE: usize = 1000;

/// Reads an Alignment-API RDF/XML document.
pub(crate) fn read(
    input: &[u8],
    file: &str,
    options: &ReadOptions,
    interner: &mut Interner,
) -> Result<ReadAlignment, FormatError> {
    let doc = decode(input, file)?;
    let mut sink = WarningSink::default();
    let repaired;
    let doc = if options.repair_xml {
        let (fixed, count) = repair_ampersands(doc);
        if count > 0 {
            sink.push(
                Diagnostic::note("repaired-xml", format!("repaired {count} raw '&' (escaped as '&amp;')"))
                    .at(Location { file: file.to_owned(), line: 0, column: 0 }),
            );
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

/// Checks the input is UTF-8 and not empty; strips a UTF-8 byte-order mark.
pub(crate) fn decode<'a>(input: &'a [u8], file: &str) -> Result<&'a str, FormatError> {
    if input.starts_with(&[0xFF, 0xFE]) || input.starts_with(&[0xFE, 0xFF]) {
        return Err(FormatError::syntax(file, 1, 1, "found a UTF-16 byte-order mark: expected UTF-8 XML"));
    }
    let body = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
    let text = std::str::from_utf8(body).map_err(|e| {
        let at = e.valid_up_to();
        let byte = body.get(at).copied().unwrap_or(0);
        FormatError::syntax_at_offset(
            file,
            body,
            at,
            format!("found byte 0x{byte:02X} that is not UTF-8: expected UTF-8 text"),
        )
    })?;
    if text.trim().is_empty() {
        return Err(FormatError::syntax(
            file,
            1,
            1,
            "empty file: expected an Alignment-API RDF/XML document (<rdf:RDF>)",
        ));
    }
    Ok(text)
}

/// Escapes every `&` that does not start a well-formed reference (`&name;`, `&#N;`, `&#xH;`)
/// as `&amp;` (MELT's `AlignmentXmlRepair`). Returns the text and how many were escaped.
pub(crate) fn repair_ampersands(doc: &str) -> (Cow<'_, str>, usize) {
    let bytes = doc.as_bytes();
    let mut out: Option<String> = None;
    let mut last = 0;
    let mut count = 0;
    for at in memchr::memchr_iter(b'&', bytes) {
        if reference_len(&bytes[at..]).is_some() {
            continue;
        }
        let out = out.get_or_insert_with(|| String::with_capacity(doc.len() + 16));
        out.push_str(&doc[last..at]);
        out.push_str("&amp;");
        last = at + 1;
        count += 1;
    }
    match out {
        None => (Cow::Borrowed(doc), 0),
        Some(mut out) => {
            out.push_str(&doc[last..]);
            (Cow::Owned(out), count)
        }
    }
}

/// The length of a well-formed reference at the start of `s` (which starts with `&`),
/// including `&` and `;`.
fn reference_len(s: &[u8]) -> Option<usize> {
    let body = s.get(1..)?;
    if let Some(num) = body.strip_prefix(b"#") {
        let (digits, extra) = match num.strip_prefix(b"x") {
            Some(hex) => (hex.iter().take_while(|b| b.is_ascii_hexdigit()).count(), 2),
            None => (num.iter().take_while(|b| b.is_ascii_digit()).count(), 1),
        };
        let end = 1 + extra + digits;
        return (digits > 0 && s.get(end) == Some(&b';')).then_some(end + 1);
    }
    let first = *body.first()?;
    if !(is_name_start(first)) {
        return None;
    }
    let len = body.iter().take_while(|&&b| is_name_char(b)).count();
    (s.get(1 + len) == Some(&b';')).then_some(len + 2)
}

fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b':' || b >= 0x80
}

fn is_name_char(b: u8) -> bool {
    is_name_start(b) || b.is_ascii_digit() || b == b'-' || b == b'.'
}

/// Warnings, at most [`MAX_WARNINGS_PER_CODE`] per code.
#[derive(Default)]
struct WarningSink {
    list: Vec<Diagnostic>,
    counts: Vec<(&'static str, usize)>,
}

impl WarningSink {
    fn push(&mut self, diagnostic: Diagnostic) {
        let count = match self.counts.iter_mut().find(|(code, _)| *code == diagnostic.code) {
            Some((_, count)) => count,
            None => {
                self.counts.push((diagnostic.code, 0));
                &mut self.counts.last_mut().expect("just pushed").1
            }
        };
        *count += 1;
        if *count <= MAX_WARNINGS_PER_CODE {
            self.list.push(diagnostic);
        }
    }

    fn finish(mut self, file: &str) -> Vec<Diagnostic> {
        for (code, count) in self.counts {
            if count > MAX_WARNINGS_PER_CODE {
                self.list.push(
                    Diagnostic::warning(
                        code,
                        format!("{} more '{code}' warnings not listed", count - MAX_WARNINGS_PER_CODE),
                    )
                    .at(Location { file: file.to_owned(), line: 0, column: 0 }),
                );
            }
        }
        self.list
    }
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

/// An entity declared in the internal DTD subset.
enum EntityDef<'a> {
    /// Replacement text as written (may contain references).
    Internal(&'a str),
    /// `SYSTEM` / `PUBLIC`: never read; referencing it is an error.
    External(String),
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
    warnings: WarningSink,
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
        warnings: WarningSink,
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
            self.warnings.push(
                Diagnostic::warning("measure-out-of-range", format!("measure {raw} is outside [0, 1]; kept as is"))
                    .at(location),
            );
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
                self.warnings.push(Diagnostic::warning("unknown-relation", message).at(location));
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
            self.warnings.push(Diagnostic::warning("duplicate-cell", message).at(location));
        }
        Ok(())
    }

    /// Parses the internal subset of a `<!DOCTYPE …>` for `<!ENTITY>` declarations.
    fn doctype(&mut self, content: &'a str, at: usize) -> Result<(), FormatError> {
        let bytes = content.as_bytes();
        // Skip the root name and an optional external id up to `[`.
        let mut i = 0;
        let mut quote = None;
        while i < bytes.len() {
            match (quote, bytes[i]) {
                (None, b'[') => break,
                (None, q @ (b'"' | b'\'')) => quote = Some(q),
                (Some(q), b) if b == q => quote = None,
                _ => {}
            }
            i += 1;
        }
        if i >= bytes.len() {
            return Ok(()); // No internal subset; an external DTD is never read.
        }
        i += 1;
        loop {
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            let rest = &content[i..];
            if rest.is_empty() || rest.starts_with(']') {
                return Ok(());
            }
            if rest.starts_with("<!--") {
                let end =
                    rest.find("-->").ok_or_else(|| self.err(at + i, "unclosed comment in the DTD: expected -->"))?;
                i += end + 3;
            } else if rest.starts_with("<?") {
                let end = rest
                    .find("?>")
                    .ok_or_else(|| self.err(at + i, "unclosed processing instruction in the DTD: expected ?>"))?;
                i += end + 2;
            } else if rest.starts_with('%') {
                let end = rest.find(';').ok_or_else(|| {
                    self.err(at + i, "unterminated parameter-entity reference in the DTD: expected ';'")
                })?;
                i += end + 1;
            } else if let Some(decl) = rest.strip_prefix("<!ENTITY") {
                i += 8 + self.entity_decl(decl, at + i + 8)?;
            } else if rest.starts_with("<!") {
                i += self.skip_decl(rest, at + i)?;
            } else {
                let found: String = rest.chars().take(20).collect();
                return Err(self.err(at + i, format!("found {found:?} in the DTD: expected a declaration <!…>")));
            }
        }
    }

    /// Skips a markup declaration, honouring quotes; returns its length.
    fn skip_decl(&self, rest: &str, at: usize) -> Result<usize, FormatError> {
        let mut quote = None;
        for (i, b) in rest.bytes().enumerate() {
            match (quote, b) {
                (None, b'>') => return Ok(i + 1),
                (None, q @ (b'"' | b'\'')) => quote = Some(q),
                (Some(q), b) if b == q => quote = None,
                _ => {}
            }
        }
        Err(self.err(at, "unterminated declaration in the DTD: expected '>'"))
    }

    /// Parses `S [% S] Name S (EntityValue | ExternalID [NDATA]) S? >`; returns the length.
    fn entity_decl(&mut self, decl: &'a str, at: usize) -> Result<usize, FormatError> {
        let bytes = decl.as_bytes();
        let mut i = 0;
        let skip_ws = |i: &mut usize| {
            while *i < bytes.len() && bytes[*i].is_ascii_whitespace() {
                *i += 1;
            }
        };
        skip_ws(&mut i);
        let parameter = bytes.get(i) == Some(&b'%');
        if parameter {
            i += 1;
            skip_ws(&mut i);
        }
        let name_start = i;
        while i < bytes.len() && is_name_char(bytes[i]) {
            i += 1;
        }
        let name = &decl[name_start..i];
        if name.is_empty() {
            return Err(self.err(at + i, "found <!ENTITY without a name: expected <!ENTITY name \"value\">"));
        }
        skip_ws(&mut i);
        let def = match bytes.get(i) {
            Some(&q @ (b'"' | b'\'')) => {
                let len = memchr::memchr(q, &bytes[i + 1..]).ok_or_else(|| {
                    self.err(at + i, format!("unterminated value of entity '{name}': expected a closing {}", q as char))
                })?;
                let value = &decl[i + 1..i + 1 + len];
                i += len + 2;
                EntityDef::Internal(value)
            }
            _ if decl[i..].starts_with("SYSTEM") || decl[i..].starts_with("PUBLIC") => {
                let keyword_at = i;
                let len = self.skip_decl(&decl[i..], at + i)?;
                let external = decl[keyword_at..keyword_at + len - 1].trim().to_owned();
                i += len - 1;
                EntityDef::External(external)
            }
            _ => {
                let found: String = decl[i..].chars().take(20).collect();
                return Err(self.err(
                    at + i,
                    format!("found {found:?} in the declaration of entity '{name}': expected a quoted value"),
                ));
            }
        };
        let len = self.skip_decl(&decl[i..], at + i)?;
        if !decl[i..i + len - 1].trim().is_empty() && !matches!(def, EntityDef::External(_)) {
            let found = decl[i..i + len - 1].trim().to_owned();
            return Err(self.err(at + i, format!("found {found:?} after the value of entity '{name}': expected '>'")));
        }
        if !parameter {
            // The first declaration binds (XML 1.0 §4.2).
            self.entities.entry(name).or_insert(def);
        }
        Ok(i + len)
    }

    /// The size of the replacement text of entity `name`, fully expanded, checking the bounds.
    fn entity_size(&mut self, name: &'a str, depth: usize, at: usize) -> Result<usize, FormatError> {
        if let Some(&size) = self.entity_sizes.get(name) {
            return Ok(size);
        }
        if depth >= MAX_ENTITY_DEPTH {
            return Err(self.err(
                at,
                format!(
                    "entity expansion limit exceeded: references nested deeper than {MAX_ENTITY_DEPTH} (at &{name};)"
                ),
            ));
        }
        let raw = match self.entities.get(name) {
            Some(EntityDef::Internal(raw)) => *raw,
            Some(EntityDef::External(decl)) => {
                return Err(self.err(
                    at,
                    format!("found a reference to the external entity &{name}; ({decl}): expected internal entities only (external entities are never read)"),
                ));
            }
            None => {
                if let Some(predefined) = quick_xml::escape::resolve_xml_entity(name) {
                    return Ok(predefined.len());
                }
                return Err(
                    self.err(at, format!("found undefined entity &{name};: expected a declared entity or '&amp;'"))
                );
            }
        };
        let mut size = 0usize;
        let bytes = raw.as_bytes();
        let mut last = 0;
        for amp in memchr::memchr_iter(b'&', bytes) {
            if amp < last {
                continue;
            }
            size += amp - last;
            let len = reference_len(&bytes[amp..]).ok_or_else(|| {
                self.err(
                    at,
                    format!("found a raw '&' in the value of entity '{name}': expected a reference like &amp;"),
                )
            })?;
            let inner = &raw[amp + 1..amp + len - 1];
            size += if inner.starts_with('#') { 4 } else { self.entity_size(inner, depth + 1, at)? };
            last = amp + len;
            if size > MAX_ENTITY_SIZE {
                break;
            }
        }
        size += bytes.len().saturating_sub(last);
        if size > MAX_ENTITY_SIZE {
            return Err(self.err(
                at,
                format!("entity expansion limit exceeded: &{name}; expands to more than {MAX_ENTITY_SIZE} bytes"),
            ));
        }
        self.entity_sizes.insert(name, size);
        Ok(size)
    }

    /// Checks every reference in `raw` without expanding it.
    fn validate_refs(&mut self, raw: &'a str, at: usize, what: &str) -> Result<(), FormatError> {
        let bytes = raw.as_bytes();
        for amp in memchr::memchr_iter(b'&', bytes) {
            let Some(len) = reference_len(&bytes[amp..]) else {
                return Err(self.raw_ampersand(raw, amp, at, what));
            };
            let inner = &raw[amp + 1..amp + len - 1];
            if let Some(num) = inner.strip_prefix('#') {
                self.char_ref(num, at + amp)?;
            } else {
                self.entity_size(inner, 0, at + amp)?;
            }
        }
        Ok(())
    }

    fn raw_ampersand(&self, raw: &str, amp: usize, at: usize, what: &str) -> FormatError {
        let found: String = raw[amp..].chars().take(16).collect();
        self.err(
            at + amp,
            format!(
                "raw '&' in {what} (found {found:?}): expected an entity reference such as &amp; (or use --repair-xml)"
            ),
        )
    }

    fn char_ref(&self, num: &str, at: usize) -> Result<char, FormatError> {
        let code = match num.strip_prefix('x') {
            Some(hex) => u32::from_str_radix(hex, 16).ok(),
            None => num.parse::<u32>().ok(),
        };
        code.and_then(char::from_u32).filter(|&c| c != '\0').ok_or_else(|| {
            self.err(
                at,
                format!("found character reference &#{num}; that is not a character: expected a valid code point"),
            )
        })
    }

    /// Appends `raw` to `out` with every reference expanded.
    fn unescape_into(&mut self, raw: &'a str, at: usize, out: &mut String, what: &str) -> Result<(), FormatError> {
        let bytes = raw.as_bytes();
        if memchr::memchr(b'&', bytes).is_none() {
            out.push_str(raw);
            return Ok(());
        }
        let mut last = 0;
        for amp in memchr::memchr_iter(b'&', bytes) {
            out.push_str(&raw[last..amp]);
            let Some(len) = reference_len(&bytes[amp..]) else {
                return Err(self.raw_ampersand(raw, amp, at, what));
            };
            let inner = &raw[amp + 1..amp + len - 1];
            if let Some(num) = inner.strip_prefix('#') {
                out.push(self.char_ref(num, at + amp)?);
            } else {
                self.expand_entity(inner, at + amp, out, 0)?;
            }
            last = amp + len;
        }
        out.push_str(&raw[last..]);
        Ok(())
    }

    fn expand_entity(&mut self, name: &'a str, at: usize, out: &mut String, depth: usize) -> Result<(), FormatError> {
        let size = self.entity_size(name, depth, at)?;
        if size > self.expansion_budget {
            return Err(self.err(
                at,
                format!(
                    "entity expansion limit exceeded: expanding &{name}; passes the document's budget of expanded text"
                ),
            ));
        }
        self.expansion_budget -= size;
        let raw = match self.entities.get(name) {
            Some(EntityDef::Internal(raw)) => *raw,
            _ => {
                // Predefined (checked by entity_size).
                out.push_str(quick_xml::escape::resolve_xml_entity(name).unwrap_or_default());
                return Ok(());
            }
        };
        let bytes = raw.as_bytes();
        let mut last = 0;
        for amp in memchr::memchr_iter(b'&', bytes) {
            out.push_str(&raw[last..amp]);
            let Some(len) = reference_len(&bytes[amp..]) else {
                return Err(self.raw_ampersand(raw, amp, at, "entity value"));
            };
            let inner = &raw[amp + 1..amp + len - 1];
            if let Some(num) = inner.strip_prefix('#') {
                out.push(self.char_ref(num, at)?);
            } else {
                // Sizes were checked above; nested expansions do not charge the budget again.
                self.expansion_budget += self.entity_size(inner, depth + 1, at)?;
                self.expand_entity(inner, at, out, depth + 1)?;
            }
            last = amp + len;
        }
        out.push_str(&raw[last..]);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn read_str(xml: &str) -> Result<(ReadAlignment, Interner), FormatError> {
        read_with(xml, &ReadOptions::default())
    }

    fn read_with(xml: &str, options: &ReadOptions) -> Result<(ReadAlignment, Interner), FormatError> {
        let mut interner = Interner::new();
        let read = read(xml.as_bytes(), "t.rdf", options, &mut interner)?;
        Ok((read, interner))
    }

    fn cells(read: &ReadAlignment, interner: &Interner) -> Vec<(String, String, Relation, f64)> {
        read.alignment
            .iter()
            .map(|c| {
                (
                    interner.resolve(c.entity1).to_owned(),
                    interner.resolve(c.entity2).to_owned(),
                    c.relation,
                    c.confidence,
                )
            })
            .collect()
    }

    const HEAD: &str = r#"<?xml version="1.0"?>
<rdf:RDF xmlns="http://knowledgeweb.semanticweb.org/heterogeneity/alignment"
         xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
         xmlns:xsd="http://www.w3.org/2001/XMLSchema#">
<Alignment><xml>yes</xml><level>0</level><type>??</type>
<map>"#;
    const TAIL: &str = "</map></Alignment></rdf:RDF>";

    fn doc(cells: &str) -> String {
        format!("{HEAD}{cells}{TAIL}")
    }

    fn one(cell_body: &str) -> (String, String, Relation, f64) {
        let (read, interner) = read_str(&doc(&format!("<Cell>{cell_body}</Cell>"))).unwrap();
        let mut all = cells(&read, &interner);
        assert_eq!(all.len(), 1);
        all.remove(0)
    }

    const E12: &str = r#"<entity1 rdf:resource="http://a#x"/><entity2 rdf:resource="http://b#y"/>"#;

    #[test]
    fn plain_cell_no_hash_namespace() {
        let c = one(&format!("{E12}<measure rdf:datatype=\"xsd:float\">0.5</measure><relation>=</relation>"));
        assert_eq!(c, ("http://a#x".into(), "http://b#y".into(), Relation::Equivalence, 0.5));
    }

    #[test]
    fn measure_before_relation_and_variants() {
        assert_eq!(one(&format!("{E12}<relation>&lt;</relation><measure>1.</measure>")).2, Relation::Subsumed);
        assert_eq!(one(&format!("{E12}<measure>1.</measure>")).3, 1.0);
        assert_eq!(one(&format!("{E12}<measure>1e-1</measure>")).3, 0.1);
        assert_eq!(one(&format!("{E12}<measure> 0.5 </measure>")).3, 0.5);
    }

    #[test]
    fn missing_measure_and_relation() {
        let c = one(E12);
        assert_eq!((c.2, c.3), (Relation::Equivalence, 1.0));
    }

    #[test]
    fn align_prefix_with_hash() {
        let xml = r##"<r:RDF xmlns:align="http://knowledgeweb.semanticweb.org/heterogeneity/alignment#" xmlns:r="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><align:Alignment><align:map><align:Cell r:about="#c1"><align:entity1 r:resource="http://a#x"/><align:entity2 r:resource="http://b#y"/><align:measure>0.3</align:measure><align:relation>&gt;</align:relation></align:Cell></align:map></align:Alignment></r:RDF>"##;
        let (read, interner) = read_str(xml).unwrap();
        assert_eq!(cells(&read, &interner), vec![("http://a#x".into(), "http://b#y".into(), Relation::Subsumes, 0.3)]);
        assert_eq!(read.alignment.cells()[0].line, 1);
    }

    #[test]
    fn dtd_entities() {
        let xml = r#"<?xml version="1.0"?>
<!DOCTYPE rdf:RDF [
  <!ENTITY xsd "http://www.w3.org/2001/XMLSchema#">
  <!ENTITY a "http://a#">
  <!ENTITY ax "&a;x">
]>
<rdf:RDF xmlns="http://knowledgeweb.semanticweb.org/heterogeneity/alignment#" xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<Alignment><map><Cell cid="c1">
<entity1 rdf:resource="&ax;"/><entity2 rdf:resource="&a;y&#x41;"/>
<measure rdf:datatype="&xsd;float">0.25</measure></Cell></map></Alignment></rdf:RDF>"#;
        let (read, interner) = read_str(xml).unwrap();
        assert_eq!(
            cells(&read, &interner),
            vec![("http://a#x".into(), "http://a#yA".into(), Relation::Equivalence, 0.25)]
        );
        assert_eq!(read.alignment.cells()[0].line, 8);
    }

    #[test]
    fn nested_descriptions() {
        let c = one(
            r#"<entity1><rdf:Description rdf:about="http://a#x"/></entity1><entity2><owl:Class xmlns:owl="http://www.w3.org/2002/07/owl#" rdf:about="http://b#y"><rdf:type rdf:resource="http://t"/></owl:Class></entity2>"#,
        );
        assert_eq!((c.0.as_str(), c.1.as_str()), ("http://a#x", "http://b#y"));
    }

    #[test]
    fn out_of_range_and_unknown_relation_warn() {
        let (read, _) =
            read_str(&doc(&format!("<Cell>{E12}<measure>1.5</measure><relation> foo </relation></Cell>"))).unwrap();
        let codes: Vec<_> = read.warnings.iter().map(|w| w.code).collect();
        assert_eq!(codes, ["measure-out-of-range", "unknown-relation"]);
        assert_eq!(read.alignment.cells()[0].relation, Relation::Unknown);
        assert!(read.warnings.iter().all(|w| w.location.as_ref().is_some_and(|l| l.line == 6)));
    }

    #[test]
    fn melt_relations_do_not_trim() {
        let options = ReadOptions { melt_relations: true, ..ReadOptions::default() };
        let (read, _) = read_with(&doc(&format!("<Cell>{E12}<relation> = </relation></Cell>")), &options).unwrap();
        assert_eq!(read.alignment.cells()[0].relation, Relation::Unknown);
        assert!(read.warnings.is_empty());
        let (read, _) = read_str(&doc(&format!("<Cell>{E12}<relation> = </relation></Cell>"))).unwrap();
        assert_eq!(read.alignment.cells()[0].relation, Relation::Equivalence);
    }

    #[test]
    fn duplicates_keep_first_and_warn() {
        let cell = |m: &str| format!("<Cell>{E12}<measure>{m}</measure></Cell>\n");
        let (read, _) = read_str(&doc(&format!("{}{}", cell("0.4"), cell("0.9")))).unwrap();
        assert_eq!(read.alignment.len(), 1);
        assert_eq!(read.alignment.duplicates(), 1);
        assert_eq!(read.alignment.cells()[0].confidence, 0.4);
        assert_eq!(read.warnings[0].code, "duplicate-cell");
        assert_eq!(read.alignment.duplicate_lines(), [7]);
    }

    #[test]
    fn one_line_and_legacy_header() {
        let xml = r#"<?xml version='1.0'?><rdf:RDF xmlns='http://knowledgeweb.semanticweb.org/heterogeneity/alignment#' xml:base='http://knowledgeweb.semanticweb.org/heterogeneity/alignment#' xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'><Alignment><level>0</level><type>11</type><onto1>file:///a.owl</onto1><onto2>file:///b.owl</onto2><uri1>http://a</uri1><map><Cell><entity1 rdf:resource='http://a#x'/><entity2 rdf:resource='http://b#y'/><measure>0.5</measure><relation>=</relation></Cell></map></Alignment></rdf:RDF>"#;
        let (read, _) = read_str(xml).unwrap();
        assert_eq!(read.alignment.len(), 1);
        let h = &read.alignment.header;
        assert_eq!(h.onto1.as_deref(), Some("http://a"));
        assert_eq!(h.onto2.as_deref(), Some("file:///b.owl"));
        assert_eq!(h.level.as_deref(), Some("0"));
        assert_eq!(h.arity.as_deref(), Some("11"));
    }

    #[test]
    fn onto_as_ontology_node() {
        let xml = doc("</map><onto1><Ontology rdf:about=\"http://o1\"><location>x</location></Ontology></onto1><map>");
        let (read, _) = read_str(&xml).unwrap();
        assert_eq!(read.alignment.header.onto1.as_deref(), Some("http://o1"));
    }

    #[test]
    fn errors_have_positions() {
        let cases = [
            (doc(&format!("<Cell>{E12}<measure>abc</measure></Cell>")), "measure"),
            (doc(r#"<Cell><entity1 rdf:resource="http://a"/></Cell>"#), "without entity2"),
            (doc(r#"<Cell><entity1 rdf:resource="a&b"/></Cell>"#), "raw '&'"),
            (doc(r#"<Cell><entity1 rdf:resource="&foo;"/></Cell>"#), "undefined entity"),
            (doc(r#"<Cell><entity1 rdf:resource=http://a/></Cell>"#), "not quoted"),
            (doc(r#"<Cell><entity1 rdf:resource="a" rdf:resource="b"/></Cell>"#), "duplicate attribute"),
            (HEAD.to_owned(), "end of file"),
            ("<foo/>".to_owned(), "root element"),
            (
                r#"<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><Alignment xmlns="http://example.org/"/></rdf:RDF>"#
                    .to_owned(),
                "expected an Alignment element in namespace",
            ),
            (format!("{}<x/>", doc("")), "after the root"),
            (doc("<Cell></map>"), "expected </Cell>"),
        ];
        for (xml, needle) in cases {
            let e = read_str(&xml).unwrap_err();
            let FormatError::Syntax(s) = &e else { panic!("{e}") };
            assert!(s.line >= 1 && s.column >= 1, "{e}");
            assert!(e.to_string().contains(needle), "{e} should contain {needle:?}");
        }
    }

    #[test]
    fn edoal_error_or_skip() {
        let xml = format!(
            r#"{HEAD}<Cell><entity1><edoal:Class xmlns:edoal="http://ns.inria.org/edoal/1.0/#" rdf:about="http://a"/></entity1><entity2 rdf:resource="http://b"/></Cell><Cell>{E12}</Cell>{TAIL}"#
        );
        let e = read_str(&xml).unwrap_err().to_string();
        assert!(e.contains("EDOAL / level-2 cell"), "{e}");
        let options = ReadOptions { skip_edoal: true, ..ReadOptions::default() };
        let (read, _) = read_with(&xml, &options).unwrap();
        assert_eq!((read.alignment.len(), read.alignment.skipped_cells), (1, 1));
    }

    #[test]
    fn repair_raw_ampersands() {
        let xml =
            doc(r#"<Cell><entity1 rdf:resource = "http://a?x=1&y=2"/><entity2 rdf:resource="http://b&amp;c"/></Cell>"#);
        assert!(read_str(&xml).unwrap_err().to_string().contains("--repair-xml"));
        let options = ReadOptions { repair_xml: true, ..ReadOptions::default() };
        let (read, interner) = read_with(&xml, &options).unwrap();
        assert_eq!(cells(&read, &interner)[0].0, "http://a?x=1&y=2");
        assert_eq!(cells(&read, &interner)[0].1, "http://b&c");
        assert_eq!(read.warnings[0].code, "repaired-xml");
        assert!(read.warnings[0].message.contains("repaired 1 raw '&'"));
    }

    #[test]
    fn billion_laughs_fails_fast() {
        let mut dtd = String::from("<!DOCTYPE rdf:RDF [\n<!ENTITY lol \"lol\">\n");
        dtd.push_str("<!ENTITY lol1 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n");
        for i in 2..10 {
            let p = i - 1;
            dtd.push_str(&format!(
                "<!ENTITY lol{i} \"&lol{p};&lol{p};&lol{p};&lol{p};&lol{p};&lol{p};&lol{p};&lol{p};&lol{p};&lol{p};\">\n"
            ));
        }
        dtd.push_str("]>\n");
        let xml =
            format!("{dtd}{}", doc(r#"<Cell><entity1 rdf:resource="&lol9;"/><entity2 rdf:resource="x"/></Cell>"#));
        let start = std::time::Instant::now();
        let e = read_str(&xml).unwrap_err().to_string();
        assert!(e.contains("entity expansion limit exceeded"), "{e}");
        assert!(start.elapsed().as_millis() < 1000);
    }

    #[test]
    fn external_entity_is_refused() {
        let xml = format!(
            "<!DOCTYPE rdf:RDF [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>{}",
            doc(r#"<Cell><entity1 rdf:resource="&xxe;"/><entity2 rdf:resource="x"/></Cell>"#)
        );
        let e = read_str(&xml).unwrap_err().to_string();
        assert!(e.contains("external entity &xxe;"), "{e}");
    }

    #[test]
    fn garbage_and_encoding() {
        assert!(read(b"", "t", &ReadOptions::default(), &mut Interner::new()).is_err());
        assert!(read(b"\x00\x01binary", "t", &ReadOptions::default(), &mut Interner::new()).is_err());
        let e = read(b"<a>\xff</a>", "t", &ReadOptions::default(), &mut Interner::new()).unwrap_err();
        assert_eq!(e.to_string(), "t:1:4: found byte 0xFF that is not UTF-8: expected UTF-8 text");
    }

    #[test]
    fn relative_iris_resolve_against_xml_base() {
        let xml = doc(
            r#"<Cell xml:base="http://ex.org/dir/"><entity1 rdf:resource="a"/><entity2 rdf:resource="http://b"/></Cell>"#,
        );
        let (read, interner) = read_str(&xml).unwrap();
        assert_eq!(cells(&read, &interner)[0].0, "http://ex.org/dir/a");
    }
}
