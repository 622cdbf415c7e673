//! The general streaming parser: quick-xml tokens, our own attribute and namespace handling,
//! element matching by local name. It records IRIs and cells ([`Records`]) instead of
//! interning them, so that stretches of one document can be parsed on several threads and
//! interned afterwards in document order.

use std::borrow::Cow;
use std::collections::HashMap;

use kgeval_model::{AlignmentHeader, Location, Relation};
use quick_xml::events::Event;
use quick_xml::Reader;

use super::dtd::{EntityDef, MAX_ENTITY_SIZE};
use super::records::Records;
use crate::align::{ReadOptions, ALIGN_NS};
use crate::FormatError;

/// What an open element is, for the reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ctx {
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
pub(super) enum Field {
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
pub(super) struct RawAttr<'a> {
    pub(super) prefix: &'a str,
    pub(super) local: &'a str,
    pub(super) qname: &'a str,
    pub(super) value: &'a str,
    pub(super) value_at: usize,
}

/// A namespace binding in scope from element depth `depth` on.
#[derive(Clone)]
pub(super) struct Binding<'a> {
    pub(super) depth: usize,
    pub(super) prefix: &'a str,
    pub(super) uri: Cow<'a, str>,
}

/// The cell being read: entities as indices into [`Records::terms`].
#[derive(Default, Clone)]
pub(super) struct CellState {
    pub(super) at: usize,
    pub(super) line: u32,
    pub(super) entity: [Option<u32>; 2],
    pub(super) relation: Option<Relation>,
    pub(super) measure: Option<f64>,
    /// The element that makes it an EDOAL / complex cell, if any.
    pub(super) edoal: Option<String>,
}

/// How a parse treats the unusual.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// One quick-xml reader over the whole document, checking end names: its errors are the
    /// ones reported.
    Exact,
    /// Canonical cells are read by the fast path, the rest by quick-xml from where the fast
    /// path stopped; end names are checked by us. Any error means "redo it exactly".
    Fast,
    /// [`Mode::Fast`] on one stretch of a parallel read. It must end inside the `Alignment`
    /// it started in (unless `last`), and may change the header only if `header`; otherwise
    /// it gives up.
    Part {
        /// Whether the stretch is the prolog (up to the first `<map>`), which reads the header.
        header: bool,
        /// Whether the stretch runs to the end of the document.
        last: bool,
    },
}

/// Monotonic byte offset → line counter.
#[derive(Clone, Copy)]
pub(super) struct LineCounter {
    pub(super) offset: usize,
    pub(super) line: u32,
}

/// The reader state; `Clone` so that every stretch of a parallel read starts from the state
/// after the prolog.
#[derive(Clone)]
pub(super) struct Parser<'a, 'o> {
    pub(super) doc: &'a str,
    pub(super) file: &'o str,
    pub(super) options: &'o ReadOptions,
    pub(super) mode: Mode,
    pub(super) out: Records,
    pub(super) header: AlignmentHeader,
    pub(super) uri: [Option<String>; 2],
    pub(super) entities: HashMap<&'a str, EntityDef<'a>>,
    pub(super) entity_sizes: HashMap<&'a str, usize>,
    pub(super) expansion_budget: usize,
    /// The last `rdf:datatype` value with references that the fast path checked (the DTD is
    /// fixed by then, and a check neither expands nor charges anything): a layout such as
    /// `&xsd;float` repeats it in every cell.
    pub(super) datatype_checked: &'a str,
    pub(super) bindings: Vec<Binding<'a>>,
    pub(super) bases: Vec<(usize, String)>,
    pub(super) stack: Vec<Ctx>,
    /// Where each open element starts (for "unclosed" errors) and its name.
    pub(super) starts: Vec<(usize, &'a str)>,
    pub(super) attrs: Vec<RawAttr<'a>>,
    pub(super) text: String,
    pub(super) cell: CellState,
    pub(super) lines: LineCounter,
    pub(super) root_seen: bool,
    pub(super) root_done: bool,
    pub(super) alignments: usize,
    pub(super) first_other: Option<(usize, String)>,
}

impl<'a, 'o> Parser<'a, 'o> {
    pub(super) fn new(doc: &'a str, file: &'o str, options: &'o ReadOptions, mode: Mode) -> Self {
        Self {
            doc,
            file,
            options,
            mode,
            out: Records::default(),
            header: AlignmentHeader::default(),
            uri: [None, None],
            entities: HashMap::new(),
            entity_sizes: HashMap::new(),
            expansion_budget: MAX_ENTITY_SIZE + doc.len(),
            datatype_checked: "",
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

    /// A copy of this state for reading the stretch starting at `start`: no records, lines
    /// counted from 1 at `start` (the caller shifts them).
    pub(super) fn fork(&self, start: usize, last: bool) -> Self {
        let mut fork = self.clone();
        fork.mode = Mode::Part { header: false, last };
        fork.out = Records::default();
        fork.lines = LineCounter { offset: start, line: 1 };
        fork
    }

    pub(super) fn err(&self, offset: usize, message: impl Into<String>) -> FormatError {
        FormatError::syntax_at_offset(self.file, self.doc.as_bytes(), offset, message)
    }

    /// A reason to leave a fast read (the caller redoes the work on the exact path).
    pub(super) fn give_up(&self) -> FormatError {
        FormatError::syntax(self.file, 0, 0, "not on the fast path")
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

    /// The 1-based line of `offset`, counting only the newlines since the last call (offsets
    /// before it are counted backwards from there).
    pub(super) fn line_of(&mut self, offset: usize) -> u32 {
        let bytes = self.doc.as_bytes();
        let offset = offset.min(bytes.len());
        let LineCounter { offset: counted, line } = self.lines;
        let line = if offset >= counted {
            line + memchr::memchr_iter(b'\n', &bytes[counted..offset]).count() as u32
        } else {
            line.saturating_sub(memchr::memchr_iter(b'\n', &bytes[offset..counted]).count() as u32)
        };
        self.lines = LineCounter { offset, line };
        line
    }

    /// 1-based line and column of `offset`.
    pub(super) fn position(&mut self, offset: usize) -> (u32, u32) {
        let line = self.line_of(offset);
        (line, crate::align::tsv::column_of(self.doc.as_bytes(), self.lines.offset))
    }

    pub(super) fn location(&mut self, offset: usize) -> Location {
        let (line, column) = self.position(offset);
        Location { file: self.file.to_owned(), line, column }
    }

    /// Parses `doc[start..end]`.
    pub(super) fn run(&mut self, start: usize, end: usize) -> Result<(), FormatError> {
        let exact = self.mode == Mode::Exact;
        let mut from = start;
        'stretch: loop {
            if !exact && self.stack.last() == Some(&Ctx::Alignment) {
                from = self.fast_maps(from, end);
            }
            let mut reader = Reader::from_str(&self.doc[from..end]);
            reader.config_mut().check_end_names = exact;
            reader.config_mut().allow_unmatched_ends = !exact;
            reader.config_mut().expand_empty_elements = false;
            loop {
                let before = from + reader.buffer_position() as usize;
                let event = match reader.read_event() {
                    Ok(event) => event,
                    Err(e) => {
                        let at = from + reader.error_position() as usize;
                        return Err(self.err(at, xml_error_message(&e, &self.stack_name())));
                    }
                };
                match event {
                    Event::Start(e) => {
                        let (name, at) = self.rebase(e.name().as_ref(), before)?;
                        let (attrs, attrs_at) = self.rebase(e.attributes_raw(), before)?;
                        self.start(name, at.saturating_sub(1), attrs, attrs_at)?;
                    }
                    Event::Empty(e) => {
                        let (name, at) = self.rebase(e.name().as_ref(), before)?;
                        let (attrs, attrs_at) = self.rebase(e.attributes_raw(), before)?;
                        self.start(name, at.saturating_sub(1), attrs, attrs_at)?;
                        self.end(at.saturating_sub(1))?;
                    }
                    Event::End(e) => {
                        // quick-xml checks end names only on the exact path.
                        if !exact && self.starts.last().map(|&(_, name)| name.as_bytes()) != Some(e.name().as_ref()) {
                            return Err(self.give_up());
                        }
                        self.end(before)?;
                        if !exact && self.stack.last() == Some(&Ctx::Alignment) {
                            let after = from + reader.buffer_position() as usize;
                            if self.doc[after..end].trim_start().starts_with("<map>") {
                                from = after;
                                continue 'stretch;
                            }
                        }
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
                    Event::Eof => {
                        return match self.mode {
                            Mode::Part { last: false, .. } => {
                                // A stretch must end where it started: between two `<map>`s.
                                if self.stack.last() == Some(&Ctx::Alignment) {
                                    Ok(())
                                } else {
                                    Err(self.give_up())
                                }
                            }
                            _ => self.eof(),
                        };
                    }
                }
            }
        }
    }

    /// The innermost open element, for error messages.
    fn stack_name(&self) -> String {
        match self.starts.last() {
            Some(&(start, _)) => {
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
        if let Some(&(start, _)) = self.starts.last() {
            let name = self.stack_name();
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

    pub(super) fn set_onto(&mut self, side: usize, iri: String) {
        let slot = if side == 0 { &mut self.header.onto1 } else { &mut self.header.onto2 };
        slot.get_or_insert(iri);
    }

    pub(super) fn start_cell(&mut self, at: usize) {
        let line = self.line_of(at);
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
                    let raw = std::mem::take(&mut self.text);
                    let measure = self.measure(raw.trim(), at);
                    self.text = raw;
                    self.cell.measure = Some(measure?);
                }
            }
            Ctx::Relation => {
                if self.cell.relation.is_none() {
                    let raw = std::mem::take(&mut self.text);
                    self.cell.relation = Some(self.relation(&raw, at));
                    self.text = raw;
                }
            }
            Ctx::Entity(side) => {
                let trimmed = self.text.trim();
                if self.cell.entity[side].is_none() && !trimmed.is_empty() && self.cell.edoal.is_none() {
                    let term = self.out.term(trimmed);
                    self.cell.entity[side] = Some(term);
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
            Ctx::Alignment if matches!(self.mode, Mode::Part { last: false, .. }) => return Err(self.give_up()),
            Ctx::Rdf | Ctx::Alignment | Ctx::Map | Ctx::EntityInner(..) | Ctx::Skip => {}
        }
        Ok(())
    }
}

/// Whether an IRI starts with a scheme (`http:`, `urn:`, …), i.e. is absolute.
pub(super) fn has_scheme(iri: &str) -> bool {
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
